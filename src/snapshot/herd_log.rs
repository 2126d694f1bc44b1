//! Reading herd7's output (ours, herd7's, or a hardware run's from litmus7) back into
//! [`Outcome`]s, one per `Test` block, as `mcompare7` reads logs.

use super::{Outcome, state};

/// A block the reader could not make sense of, with its line.
#[derive(Debug)]
pub struct LogError {
    pub line: usize,
    pub msg: String,
}

/// Every test block of `text`, in order; lines outside blocks (warnings, a shell's
/// messages) are skipped.
///
/// A block is herd7's: `Test NAME KIND`, `States N` and N states, `Ok`/`No` (after `Loop`
/// when the unrolling bound cut executions), `Witnesses`, `Positive: P Negative: N`,
/// `Flag` lines, `Condition ...`, `Observation NAME WORD S U`; litmus7's
/// `Histogram (N states)` with counted states (`12 *>0:r0=1; ...`) is read too.
pub fn parse(text: &str) -> Result<Vec<Outcome>, LogError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        match lines[i].strip_prefix("Test ") {
            Some(rest) => {
                let name = rest.split_whitespace().next().unwrap_or_default();
                let (o, next) = block(&lines, i, name)?;
                out.push(o);
                i = next;
            }
            None => i += 1,
        }
    }
    Ok(out)
}

/// The block whose `Test` line is `lines[start]`, and the line after it.
fn block(lines: &[&str], start: usize, name: &str) -> Result<(Outcome, usize), LogError> {
    let err = |line: usize, msg: String| LogError {
        line: line + 1,
        msg: format!("test {name}: {msg}"),
    };
    let mut o = Outcome {
        test: name.to_string(),
        ..Outcome::default()
    };
    let mut i = start + 1;
    let count_line = lines.get(i).copied().unwrap_or_default();
    let count = count_line
        .strip_prefix("States ")
        .or_else(|| {
            count_line
                .strip_prefix("Histogram (")
                .and_then(|r| r.strip_suffix(" states)"))
        })
        .and_then(|n| n.trim().parse::<usize>().ok())
        .ok_or_else(|| err(i, format!("expected `States N`, found `{count_line}`")))?;
    i += 1;
    for k in 0..count {
        let line = lines
            .get(i)
            .ok_or_else(|| err(i, format!("{count} states announced, {k} given")))?;
        o.states.push(state(counted(line)));
        i += 1;
    }
    let mut seen_result = false;
    while let Some(line) = lines.get(i) {
        let line = line.trim_end();
        if line.starts_with("Test ") {
            break;
        }
        i += 1;
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["Loop", r] | [r] if matches!(*r, "Ok" | "No") && !seen_result => {
                o.cut = words.len() == 2;
                o.ok = *r == "Ok";
                seen_result = true;
            }
            ["Positive:", p, "Negative:", n] => {
                let num = |s: &str| {
                    s.trim_end_matches(',')
                        .parse::<u64>()
                        .map_err(|_| err(i - 1, format!("bad count `{s}`")))
                };
                o.positive = num(p)?;
                o.negative = num(n)?;
            }
            ["Flag", f] => {
                o.flags.insert(f.to_string());
            }
            ["Condition", ..] => {
                // litmus7 says whether the condition held after it.
                let c = &line["Condition ".len()..];
                let c = [" is validated", " is NOT validated"]
                    .iter()
                    .find_map(|s| c.strip_suffix(s))
                    .unwrap_or(c);
                o.condition = c.to_string();
            }
            ["Observation", _, word, ..] => {
                o.observation = word.to_string();
                // The block's last line that matters.
                break;
            }
            _ => {}
        }
    }
    if !seen_result || o.observation.is_empty() {
        return Err(err(start, "no `Ok`/`No` or `Observation` line".into()));
    }
    Ok((o, i))
}

/// A state line without litmus7's count and marker (`12 *>` or `3 :>`).
fn counted(line: &str) -> &str {
    let t = line.trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        let rest = t[digits..].trim_start();
        for m in ["*>", ":>"] {
            if let Some(r) = rest.strip_prefix(m) {
                return r;
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERD: &str = "Warning: something\nTest SB Allowed\nStates 2\n0:r0=0; 1:r0=0;\n0:r0=1; 1:r0=1;\nLoop Ok\nWitnesses\nPositive: 1 Negative: 3\nFlag data-race\nCondition exists (0:r0=0 /\\ 1:r0=0)\nObservation SB Sometimes 1 3\nTime SB 0.01\nHash=abc\n\n";
    const LITMUS7: &str = "Test SB Allowed\nHistogram (2 states)\n5     *>0:r0=0; 1:r0=0;\n995   :>0:r0=1; 1:r0=1;\nOk\n\nWitnesses\nPositive: 5, Negative: 995\nCondition exists (0:r0=0 /\\ 1:r0=0) is validated\nObservation SB Sometimes 5 995\n";

    #[test]
    fn reads_herd_blocks() {
        let v = parse(HERD).unwrap();
        assert_eq!(v.len(), 1);
        let o = &v[0];
        assert_eq!(o.test, "SB");
        assert!(o.ok && o.cut);
        assert_eq!((o.positive, o.negative), (1, 3));
        assert_eq!(o.states, ["0:r0=0; 1:r0=0;", "0:r0=1; 1:r0=1;"]);
        assert!(o.flags.contains("data-race"));
        assert_eq!(o.condition, "exists (0:r0=0 /\\ 1:r0=0)");
        assert_eq!(o.observation, "Sometimes");
    }

    #[test]
    fn reads_litmus7_histograms() {
        let v = parse(LITMUS7).unwrap();
        assert_eq!(v[0].states, ["0:r0=0; 1:r0=0;", "0:r0=1; 1:r0=1;"]);
        assert_eq!(v[0].observation, "Sometimes");
        assert_eq!((v[0].positive, v[0].negative), (5, 995));
        assert_eq!(v[0].condition, "exists (0:r0=0 /\\ 1:r0=0)");
    }

    #[test]
    fn a_truncated_block_is_an_error_with_its_line() {
        let e = parse("Test SB Allowed\nStates 3\n0:r0=0;\n").unwrap_err();
        assert!(e.msg.contains("3 states announced"), "{}", e.msg);
        assert_eq!(e.line, 4);
    }
}
