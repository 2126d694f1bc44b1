//! What one test may spend: time and memory, checked wherever work can grow (the
//! enumeration's search, the model's `with` choices, `let rec` fixpoints, procedure calls,
//! the symmetry group's closure, the explorer).
//!
//! A check is cheap (a clock read), so it can sit in every loop that may run long. Memory
//! is the process's resident size, read at most every [`MEMORY_POLL`]: a test that pushes
//! the process over its limit is the one stopped (with `--jobs 1` it is always the test
//! that used the memory). A test that runs out is *undetermined*, never an answer.

use std::fmt;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// How often the resident size is read, at most.
const MEMORY_POLL: Duration = Duration::from_millis(5);
/// The clock is read on one check in this many: checks sit in the enumeration's inner loops,
/// where a clock read per candidate costs more than the candidate.
const CLOCK_EVERY: u32 = 64;

/// A test's allowance. Cloning shares it (the parallel parts of one test draw on one
/// budget).
#[derive(Clone, Debug)]
pub struct Budget {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    start: Instant,
    time: Option<Duration>,
    memory: Option<u64>,
    /// Nanoseconds after `start` of the last memory reading.
    polled: AtomicU64,
    /// Once run out, it stays so: every later check gives the same answer.
    spent: OnceLock<Exhausted>,
    /// Checks so far, to read the clock on one in [`CLOCK_EVERY`] (the first among them).
    checks: AtomicU32,
}

/// Why a test has no answer: its budget ran out, or it outgrew a size the engine keeps to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exhausted {
    /// The time limit passed.
    Time { limit: Duration },
    /// The process's resident memory reached the limit (bytes).
    Memory { limit: u64, used: u64 },
    /// A size limit of the engine (runs of a thread, values of a location), said in words.
    Size(String),
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Exhausted::Time { limit } => write!(f, "timed out after {}", secs(*limit)),
            Exhausted::Memory { limit, used } => write!(
                f,
                "out of memory: {} resident, limit {}",
                mib(*used),
                mib(*limit)
            ),
            Exhausted::Size(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for Exhausted {}

/// How far a test got before it ran out: what was judged is no answer, but it tells
/// how far from one the test was.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Explored {
    /// Candidate executions judged.
    pub candidates: usize,
    /// Distinct final states of the consistent executions among them.
    pub states: usize,
}

fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes / (1 << 20))
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::unlimited()
    }
}

impl Budget {
    /// No limit at all.
    pub fn unlimited() -> Budget {
        Budget::new(None, None)
    }

    /// A budget starting now: at most `time`, and at most `memory` bytes resident.
    pub fn new(time: Option<Duration>, memory: Option<u64>) -> Budget {
        Budget {
            inner: Arc::new(Inner {
                start: Instant::now(),
                time,
                memory,
                polled: AtomicU64::new(0),
                spent: OnceLock::new(),
                checks: AtomicU32::new(0),
            }),
        }
    }

    /// Time spent since the budget was made.
    pub fn elapsed(&self) -> Duration {
        self.inner.start.elapsed()
    }

    /// `Err` once the time or memory is used up, and from then on.
    pub fn check(&self) -> Result<(), Exhausted> {
        let i = &*self.inner;
        if i.time.is_none() && i.memory.is_none() {
            return Ok(());
        }
        if let Some(e) = i.spent.get() {
            return Err(e.clone());
        }
        if !i
            .checks
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(CLOCK_EVERY)
        {
            return Ok(());
        }
        self.measure()
            .map_err(|e| i.spent.get_or_init(|| e).clone())
    }

    fn measure(&self) -> Result<(), Exhausted> {
        let i = &*self.inner;
        let now = i.start.elapsed();
        if let Some(limit) = i.time
            && now >= limit
        {
            return Err(Exhausted::Time { limit });
        }
        if let Some(limit) = i.memory {
            let now_ns = now.as_nanos() as u64;
            let last = i.polled.load(Ordering::Relaxed);
            if now_ns.saturating_sub(last) >= MEMORY_POLL.as_nanos() as u64
                && i.polled
                    .compare_exchange(last, now_ns, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
                && let Some(used) = resident_bytes()
                && used >= limit
            {
                return Err(Exhausted::Memory { limit, used });
            }
        }
        Ok(())
    }
}

/// The process's resident memory in bytes, where the platform tells it.
pub fn resident_bytes() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        // statm: size resident shared text lib data dt, in pages.
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
        // SAFETY: sysconf only reads a system constant.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        Some(pages * u64::try_from(page).ok()?)
    }
    #[cfg(target_os = "macos")]
    {
        let mut info: libc::proc_taskinfo = unsafe { std::mem::zeroed() };
        let size = std::mem::size_of::<libc::proc_taskinfo>() as libc::c_int;
        // SAFETY: proc_pidinfo fills at most `size` bytes of `info`.
        let n = unsafe {
            libc::proc_pidinfo(
                libc::getpid(),
                libc::PROC_PIDTASKINFO,
                0,
                (&mut info as *mut libc::proc_taskinfo).cast(),
                size,
            )
        };
        (n == size).then_some(info.pti_resident_size)
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos")))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unlimited_budget_never_runs_out() {
        assert_eq!(Budget::unlimited().check(), Ok(()));
    }

    #[test]
    fn a_past_deadline_is_exhausted() {
        let b = Budget::new(Some(Duration::ZERO), None);
        assert!(matches!(b.check(), Err(Exhausted::Time { .. })));
    }

    #[test]
    fn a_budget_once_spent_stays_spent() {
        let b = Budget::new(Some(Duration::from_millis(1)), None);
        std::thread::sleep(Duration::from_millis(2));
        let first = b.check();
        assert!(first.is_err());
        assert_eq!(b.clone().check(), first);
    }

    #[cfg(any(target_os = "linux", target_os = "macos"))]
    #[test]
    fn a_memory_limit_below_the_resident_size_is_exhausted() {
        assert!(resident_bytes().is_some_and(|b| b > 0));
        let b = Budget::new(None, Some(1));
        // The first reading comes once MEMORY_POLL has passed since the start.
        std::thread::sleep(MEMORY_POLL);
        assert!(matches!(b.check(), Err(Exhausted::Memory { .. })));
    }
}
