//! Recorded outcomes, and what changed between two of them.
//!
//! An [`Outcome`] is what herd7 says of one test under one model, as text: the verdict, the
//! witness counts, the flags, the loop cut-off and the final states as herd prints them.
//! Snapshots ([`file`]) keep outcomes in git, herd logs ([`herd_log`]) print them, and a
//! [`Delta`] says how two differ, whichever their source: a snapshot and a new run, two
//! models, two logs. Nothing here judges a test.

pub mod file;
pub mod herd_log;

use crate::judge::{Judgement, cond};
use crate::litmus::ast::Test;
use crate::report::herd::StatePrinter;
use serde::Serialize;
use std::collections::BTreeSet;

/// One test's outcome under one model, as herd7 reports it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The test's name (from its first line; a file may be named otherwise).
    pub test: String,
    /// herd's `Condition` line, after the word.
    pub condition: String,
    /// herd's `Ok` (true) or `No`.
    pub ok: bool,
    /// herd's Observation word: `Never`, `Sometimes` or `Always`.
    pub observation: String,
    /// herd's `Positive:` and `Negative:` witness counts.
    pub positive: u64,
    pub negative: u64,
    pub flags: BTreeSet<String>,
    /// A loop bound cut some executions off (herd's `Loop`).
    pub cut: bool,
    /// The final states, as herd prints them (see [`state`]), in its order.
    pub states: Vec<String>,
}

impl Outcome {
    pub fn of(t: &Test, j: &Judgement) -> Outcome {
        let printer = StatePrinter::new(&j.shown);
        let states = j
            .states
            .iter()
            .map(|s| {
                let mut out = String::new();
                printer.write(&mut out, &j.symbols, s);
                out
            })
            .collect();
        let (positive, negative) = j.witnesses();
        Outcome {
            test: j.name.clone(),
            condition: cond::show_condition(&t.condition),
            ok: j.ok(),
            observation: j.observation().to_string(),
            positive: positive as u64,
            negative: negative as u64,
            flags: j.flags.clone(),
            cut: j.cut,
            states,
        }
    }

    /// `Ok Sometimes`, `No Never`, ...
    pub fn verdict(&self) -> String {
        format!("{} {}", if self.ok { "Ok" } else { "No" }, self.observation)
    }
}

/// A final state in one spelling, whoever printed it: `0:r0=1; [x]=2;` (each binding
/// followed by `;`, one space between them).
pub fn state(text: &str) -> String {
    let parts: Vec<&str> = text
        .split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let mut out = String::new();
    for (k, p) in parts.iter().enumerate() {
        if k > 0 {
            out.push(' ');
        }
        // `0:r0 = 1` as `0:r0=1`.
        out.extend(p.split_whitespace());
        out.push(';');
    }
    out
}

/// How the outcome `after` differs from `before`: empty when they agree.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Delta {
    /// The verdicts (see [`Outcome::verdict`]) before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<(String, String)>,
    /// Final states only after (in its order), and only before (in its order).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Positive and negative witness counts before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub witnesses: Option<((u64, u64), (u64, u64))>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags_added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags_removed: Vec<String>,
    /// Whether the loop bound cut executions off, before and after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<(bool, bool)>,
    /// The test's condition or name, when the test itself was edited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<(String, String)>,
}

impl Delta {
    pub fn between(before: &Outcome, after: &Outcome) -> Delta {
        let changed = |a: String, b: String| (a != b).then_some((a, b));
        let only = |xs: &[String], ys: &[String]| {
            let ys: BTreeSet<&String> = ys.iter().collect();
            xs.iter().filter(|x| !ys.contains(x)).cloned().collect()
        };
        let old_flags: Vec<String> = before.flags.iter().cloned().collect();
        let new_flags: Vec<String> = after.flags.iter().cloned().collect();
        Delta {
            verdict: changed(before.verdict(), after.verdict()),
            added: only(&after.states, &before.states),
            removed: only(&before.states, &after.states),
            witnesses: ((before.positive, before.negative) != (after.positive, after.negative))
                .then_some((
                    (before.positive, before.negative),
                    (after.positive, after.negative),
                )),
            flags_added: only(&new_flags, &old_flags),
            flags_removed: only(&old_flags, &new_flags),
            cut: (before.cut != after.cut).then_some((before.cut, after.cut)),
            condition: changed(before.condition.clone(), after.condition.clone()),
            test: changed(before.test.clone(), after.test.clone()),
        }
    }

    pub fn is_empty(&self) -> bool {
        *self == Delta::default()
    }

    /// Whether the answer changed: the verdict, a final state, a flag or the loop
    /// cut-off (not only witness counts, nor only the test's wording).
    pub fn answers(&self) -> bool {
        self.verdict.is_some()
            || !self.added.is_empty()
            || !self.removed.is_empty()
            || !self.flags_added.is_empty()
            || !self.flags_removed.is_empty()
            || self.cut.is_some()
    }

    /// The difference, a line each: `verdict No Never → Ok Sometimes`, `+ STATE` for a
    /// state only after (`- STATE` only before), witnesses, flags, the loop cut-off.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some((a, b)) = &self.test {
            out.push(format!("test name {a} → {b}"));
        }
        if let Some((a, b)) = &self.condition {
            out.push(format!("condition {a} → {b}"));
        }
        if let Some((a, b)) = &self.verdict {
            out.push(format!("verdict {a} → {b}"));
        }
        out.extend(self.removed.iter().map(|s| format!("- {s}")));
        out.extend(self.added.iter().map(|s| format!("+ {s}")));
        if let Some(((p0, n0), (p1, n1))) = self.witnesses {
            out.push(format!(
                "witnesses (positive/negative) {p0}/{n0} → {p1}/{n1}"
            ));
        }
        out.extend(self.flags_removed.iter().map(|f| format!("- flag {f}")));
        out.extend(self.flags_added.iter().map(|f| format!("+ flag {f}")));
        if let Some((a, b)) = self.cut {
            let say = |c: bool| {
                if c {
                    "cut by the loop bound"
                } else {
                    "not cut"
                }
            };
            out.push(format!("loop {} → {}", say(a), say(b)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(states: &[&str], ok: bool) -> Outcome {
        Outcome {
            test: "SB".into(),
            condition: "exists (0:r0=0 /\\ 1:r0=0)".into(),
            ok,
            observation: if ok { "Sometimes" } else { "Never" }.into(),
            positive: ok as u64,
            negative: 3,
            flags: BTreeSet::new(),
            cut: false,
            states: states.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn states_in_one_spelling() {
        assert_eq!(state(" 0:r0=1;  [x] = 2 ;"), "0:r0=1; [x]=2;");
        assert_eq!(state("0:r0=1; [x]=2;"), "0:r0=1; [x]=2;");
    }

    #[test]
    fn delta_names_what_changed() {
        let a = outcome(&["0:r0=0; 1:r0=1;", "0:r0=1; 1:r0=1;"], false);
        let b = outcome(&["0:r0=0; 1:r0=0;", "0:r0=0; 1:r0=1;"], true);
        let d = Delta::between(&a, &b);
        assert!(d.answers());
        assert_eq!(d.added, ["0:r0=0; 1:r0=0;"]);
        assert_eq!(d.removed, ["0:r0=1; 1:r0=1;"]);
        assert_eq!(
            d.verdict,
            Some(("No Never".to_string(), "Ok Sometimes".to_string()))
        );
        assert!(Delta::between(&a, &a).is_empty());
        // The states in another order are the same states.
        let mut c = a.clone();
        c.states.reverse();
        assert!(Delta::between(&a, &c).is_empty());
    }
}
