//! Whether each judgement agrees with its test's `Result:` comment, judged as the kernel's
//! `tools/memory-model/scripts/judgelitmus.sh` judges herd7's output (LKMM runs): a data
//! race predicted (`DATARACE`) must be flagged and one flagged must be predicted, `DEADLOCK`
//! wants no execution at all (`Never 0 0`) and nothing else may have none, `Maybe` takes
//! any observation, and a wrong observation is forgiven when a data race is flagged.

use crate::judge::Judgement;
use crate::litmus::expect::{Expectation, Expected};

/// How a judgement stands against the test's expectation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agreement {
    Agrees,
    /// A different observation, forgiven: a data race is predicted and flagged.
    Forgiven,
    /// What the script prints (its `!!!` line, without the test's name).
    Mismatch(String),
    /// The test states no `Result:`.
    Unstated,
}

impl Agreement {
    pub fn is_mismatch(&self) -> bool {
        matches!(self, Agreement::Mismatch(_))
    }
}

/// The flag the LKMM raises for a data race.
const DATA_RACE: &str = "data-race";

pub fn agreement(e: Option<&Expectation>, j: &Judgement) -> Agreement {
    let Some(e) = e else {
        return Agreement::Unstated;
    };
    let modeled = j.flags.contains(DATA_RACE);
    if e.datarace && !modeled {
        return Agreement::Mismatch("Predicted data race not modeled".into());
    }
    if !e.datarace && modeled {
        return Agreement::Mismatch("Unexpected data race modeled".into());
    }
    let observation = j.observation();
    let deadlock = observation == "Never" && j.sat == 0 && j.unsat == 0;
    let word = match &e.outcome {
        Expected::Deadlock if deadlock => return Agreement::Agrees,
        Expected::Deadlock => {
            return Agreement::Mismatch("Unexpected non-DEADLOCK verification".into());
        }
        Expected::Observation(w) | Expected::Other(w) => w.as_str(),
        Expected::Maybe => "Maybe",
    };
    if deadlock {
        return Agreement::Mismatch(format!("Unexpected non-{word} deadlock"));
    }
    if e.outcome == Expected::Maybe || observation == word {
        Agreement::Agrees
    } else if modeled {
        Agreement::Forgiven
    } else {
        Agreement::Mismatch(format!("Unexpected non-{word} verification"))
    }
}

/// One test of a batch, for the report.
pub struct Row<'a> {
    pub file: String,
    pub expected: Option<Expectation>,
    /// The judgement, or why there is none.
    pub judged: Result<&'a Judgement, String>,
}

/// One line per test and a closing summary; and whether any test mismatched.
pub fn render(rows: &[Row]) -> (String, bool) {
    let (mut agree, mut forgiven, mut mismatch, mut unstated, mut failed) = (0, 0, 0, 0, 0);
    let mut out = String::new();
    for r in rows {
        let stated = r
            .expected
            .as_ref()
            .map(|e| {
                let from = e.line.find("Result:").unwrap_or(0);
                format!("  ({})", e.line[from..].trim_end_matches("*)").trim())
            })
            .unwrap_or_default();
        let line = match &r.judged {
            Err(e) => {
                failed += 1;
                format!("error     {}{stated}: {e}", r.file)
            }
            Ok(j) => {
                let obs = format!("{} {} {}", j.observation(), j.sat, j.unsat);
                let race = if j.flags.contains(DATA_RACE) {
                    " data-race"
                } else {
                    ""
                };
                match agreement(r.expected.as_ref(), j) {
                    Agreement::Agrees => {
                        agree += 1;
                        format!("agree     {}  {obs}{race}{stated}", r.file)
                    }
                    Agreement::Forgiven => {
                        forgiven += 1;
                        format!("forgiven  {}  {obs}{race}{stated}", r.file)
                    }
                    Agreement::Mismatch(why) => {
                        mismatch += 1;
                        format!("MISMATCH  {}  {obs}{race}{stated}: {why}", r.file)
                    }
                    Agreement::Unstated => {
                        unstated += 1;
                        format!("unstated  {}  {obs}{race}: no Result: comment", r.file)
                    }
                }
            }
        };
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&format!(
        "{} tests: {} agree with their Result: comment ({forgiven} of them forgiven: data race), {mismatch} mismatch, {unstated} state no result, {failed} not judged\n",
        rows.len(),
        agree + forgiven,
    ));
    (out, mismatch > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{self, Options};
    use crate::litmus::expect::expectation;
    use crate::model::{Request, load_shipped};

    fn judged(src: &str) -> Judgement {
        let t = crate::litmus::parse(src).unwrap();
        let m = load_shipped("lkmm", &Request::default()).unwrap();
        judge::run(&t, &m.model, m.macros.as_ref(), &Options::default()).unwrap()
    }

    const SB: &str = "C SB\n{}\nP0(int *x, int *y) { WRITE_ONCE(*x, 1); int r0 = READ_ONCE(*y); }\n\
                      P1(int *x, int *y) { WRITE_ONCE(*y, 1); int r0 = READ_ONCE(*x); }\n\
                      exists (0:r0=0 /\\ 1:r0=0)\n";

    #[test]
    fn result_comments_are_judged_as_judgelitmus_judges_them() {
        let j = judged(SB);
        let says = |line: &str| agreement(expectation(line).as_ref(), &j);
        assert_eq!(says(" * Result: Sometimes"), Agreement::Agrees);
        assert_eq!(says(" * Result: Maybe"), Agreement::Agrees);
        assert_eq!(
            says(" * Result: Never"),
            Agreement::Mismatch("Unexpected non-Never verification".into())
        );
        assert_eq!(
            says(" * Result: DEADLOCK"),
            Agreement::Mismatch("Unexpected non-DEADLOCK verification".into())
        );
        assert_eq!(
            says(" * Result: Sometimes DATARACE"),
            Agreement::Mismatch("Predicted data race not modeled".into())
        );
        assert_eq!(says("no comment"), Agreement::Unstated);
    }

    #[test]
    fn plain_accesses_racing_are_flagged_and_must_be_predicted() {
        let racy = SB.replace("WRITE_ONCE(*x, 1)", "*x = 1");
        let j = judged(&racy);
        assert!(j.flags.contains(DATA_RACE));
        let says = |line: &str| agreement(expectation(line).as_ref(), &j);
        assert_eq!(
            says(" * Result: Sometimes"),
            Agreement::Mismatch("Unexpected data race modeled".into())
        );
        assert_eq!(says(" * Result: Sometimes DATARACE"), Agreement::Agrees);
        // A wrong observation is forgiven when the race is predicted and flagged.
        assert_eq!(says(" * Result: Never DATARACE"), Agreement::Forgiven);
    }
}
