//! The answer a test's author expects, as the kernel's tests state it in a comment line
//! ` * Result: Never` (or `(* Result: Sometimes DATARACE *)`), read the way the kernel's
//! `tools/memory-model/scripts/judgelitmus.sh` reads it: the first line that starts with
//! `(* Result: ` or ` * Result: `, its third word the outcome, `DATARACE` after it a
//! predicted data race.

/// The outcome a `Result:` line states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expected {
    /// `Never`, `Sometimes`, `Always`: herd's `Observation` word.
    Observation(String),
    /// `Maybe`: any observation will do.
    Maybe,
    /// `DEADLOCK`: no execution at all (`Never 0 0`).
    Deadlock,
    /// Any other word, which the script compares with the `Observation` line as it is.
    Other(String),
}

/// A test's `Result:` line, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub outcome: Expected,
    /// The line names `DATARACE`: the LKMM must flag a data race.
    pub datarace: bool,
    /// The line as written, for reports.
    pub line: String,
}

/// The expectation stated in the source text of a test, if any.
pub fn expectation(src: &str) -> Option<Expectation> {
    let line = src
        .lines()
        .find(|l| l.starts_with("(* Result: ") || l.starts_with(" * Result: "))?;
    // awk '{ print $3 }': fields split on blanks.
    let word = line.split_whitespace().nth(2).unwrap_or("");
    let outcome = match word {
        "Never" | "Sometimes" | "Always" => Expected::Observation(word.to_string()),
        "Maybe" => Expected::Maybe,
        "DEADLOCK" => Expected::Deadlock,
        w => Expected::Other(w.to_string()),
    };
    // grep '^[( ]\* Result: .* DATARACE'
    let after = &line["(* Result: ".len()..];
    let datarace = after.find(" DATARACE").is_some();
    Some(Expectation {
        outcome,
        datarace,
        line: line.trim().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines_are_read_as_judgelitmus_reads_them() {
        let e = expectation("C t\n(*\n * Result: Never\n *)\n{}").unwrap();
        assert_eq!(e.outcome, Expected::Observation("Never".into()));
        assert!(!e.datarace);
        let e = expectation("C t\n(* Result: Sometimes DATARACE *)\n").unwrap();
        assert_eq!(e.outcome, Expected::Observation("Sometimes".into()));
        assert!(e.datarace);
        let e = expectation(" * Result: DEADLOCK\n").unwrap();
        assert_eq!(e.outcome, Expected::Deadlock);
        assert_eq!(
            expectation(" * Result: Maybe\n").unwrap().outcome,
            Expected::Maybe
        );
        // Indented differently, or no `Result:` line: nothing.
        assert_eq!(expectation("  * Result: Never\n"), None);
        assert_eq!(expectation("C t\n{}\n"), None);
        // The first such line counts.
        let e = expectation(" * Result: Always\n * Result: Never\n").unwrap();
        assert_eq!(e.outcome, Expected::Observation("Always".into()));
    }
}
