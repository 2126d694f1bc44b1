//! Option values read from the command line, each checked with a message that says what
//! is wanted: no value of any option reaches the engine unless it makes sense there.

use std::time::Duration;

/// The longest time limit: about a century, far below what `Instant` can add.
pub const MAX_SECONDS: f64 = 3.2e9;

/// Most worker threads.
pub const MAX_JOBS: usize = 1024;

/// Seconds, as a positive finite decimal (`--timeout 2.5`).
pub fn seconds(s: &str) -> Result<Duration, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !v.is_finite() || v <= 0.0 {
        return Err(format!(
            "`{s}`: the time must be a positive number of seconds"
        ));
    }
    if v > MAX_SECONDS {
        return Err(format!("`{s}`: at most {MAX_SECONDS:e} seconds"));
    }
    Ok(Duration::from_secs_f64(v))
}

/// A shard `K/N` of a batch: the `K`th of `N` (1-based), `1 <= K <= N`.
pub fn shard(s: &str) -> Result<(usize, usize), String> {
    let (k, n) = s
        .split_once('/')
        .ok_or_else(|| format!("`{s}`: a shard is K/N, the Kth of N (e.g. 2/4)"))?;
    let num = |x: &str| x.trim().parse::<usize>().ok().filter(|&v| v > 0);
    match (num(k), num(n)) {
        (Some(k), Some(n)) if k <= n => Ok((k, n)),
        _ => Err(format!("`{s}`: a shard is K/N with 1 <= K <= N (e.g. 2/4)")),
    }
}

/// A number of worker threads, 1 to [`MAX_JOBS`].
pub fn jobs(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of threads"))?;
    if n == 0 || n > MAX_JOBS {
        return Err(format!("`{s}`: between 1 and {MAX_JOBS} threads"));
    }
    Ok(n)
}

/// A memory size in bytes: a number with an optional unit, `K`, `M`, `G` or `T` (powers
/// of 1024, an optional `i`/`B`: `512M`, `1.5GiB`, `2G`). At least 16 MiB.
pub fn bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(digits);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a size (say 512M or 2G)"))?;
    let shift = match unit
        .trim()
        .trim_end_matches(['B', 'b'])
        .trim_end_matches('i')
    {
        "" => 0,
        "K" | "k" => 10,
        "M" | "m" => 20,
        "G" | "g" => 30,
        "T" | "t" => 40,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (K, M, G or T)")),
    };
    let b = v * (1u64 << shift) as f64;
    if !b.is_finite() || b < (16u64 << 20) as f64 || b > (1u64 << 50) as f64 {
        return Err(format!("`{s}`: between 16M and 1024T"));
    }
    Ok(b as u64)
}

/// The memory a test may use when not told: three quarters of the machine's, so that a
/// runaway test ends with an answer of "out of memory" rather than the system's killer.
pub fn default_memory() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf only reads system constants.
        let (pages, page) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        let total = u64::try_from(pages).ok()? * u64::try_from(page).ok()?;
        (total > 0).then_some(total / 4 * 3)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_refuse_what_makes_no_sense() {
        for bad in [
            "-1", "0", "nan", "inf", "-inf", "1e300", "1e19", "", "x", "2s",
        ] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds("2.5"), Ok(Duration::from_millis(2500)));
    }

    #[test]
    fn jobs_are_between_one_and_the_most() {
        for bad in ["0", "-1", "100000", "x", "1.5"] {
            assert!(jobs(bad).is_err(), "{bad}");
        }
        assert_eq!(jobs("2"), Ok(2));
    }

    #[test]
    fn sizes_take_units() {
        assert_eq!(bytes("1G"), Ok(1 << 30));
        assert_eq!(bytes("512M"), Ok(512 << 20));
        assert_eq!(bytes("1.5GiB"), Ok(3 << 29));
        for bad in ["1", "1Q", "G", "-1G", "nanG", "1e300G", ""] {
            assert!(bytes(bad).is_err(), "{bad}");
        }
    }
}
