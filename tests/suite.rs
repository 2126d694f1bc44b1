//! Our own suite (`litmus/`): every test judged under the model herd7 would pick.
//! - Its answer agrees with herd7's, recorded in `litmus/herd7-answers.jsonl` (final states,
//!   verdict, witness counts).
//! - Its full herd-format block is pinned by an insta snapshot (the `Time` line left out).

mod common;
use common::{norm, root, suite_files};

use litmus::judge::{self, Options};
use litmus::litmus::parse_file;
use litmus::model::{self, Loaded, Request};
use litmus::report::herd;
use std::collections::{BTreeMap, BTreeSet};

/// herd7's recorded answer for one of our tests.
struct Herd {
    states: BTreeSet<String>,
    observation: String,
    pos: usize,
    neg: usize,
}

fn herd_answers() -> BTreeMap<String, Herd> {
    let text = std::fs::read_to_string(root().join("litmus/herd7-answers.jsonl")).unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let states = v["states"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| norm(s.as_str().unwrap()))
                .collect();
            (
                v["file"].as_str().unwrap().to_string(),
                Herd {
                    states,
                    observation: v["observation"].as_str().unwrap().to_string(),
                    pos: v["pos"].as_u64().unwrap() as usize,
                    neg: v["neg"].as_u64().unwrap() as usize,
                },
            )
        })
        .collect()
}

#[test]
fn suite_agrees_with_herd7_and_snapshots() {
    let answers = herd_answers();
    let mut models: BTreeMap<&str, Loaded> = BTreeMap::new();
    let mut disagreements = Vec::new();
    let files = suite_files();
    assert!(
        files.len() >= 100,
        "the suite shrank: {} tests",
        files.len()
    );
    for f in &files {
        let rel = f
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let t = parse_file(f).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let name = model::default_for(t.arch);
        let m = models
            .entry(name)
            .or_insert_with(|| model::load_shipped(name, &Request::default()).unwrap());
        let j = judge::run(&t, &m.model, m.macros.as_ref(), &Options::default())
            .unwrap_or_else(|e| panic!("{rel}: {e}"));

        let block: String = herd::block(&t, &j)
            .lines()
            .filter(|l| !l.starts_with("Time "))
            .map(|l| format!("{l}\n"))
            .collect();
        insta::assert_snapshot!(rel.trim_end_matches(".litmus").replace('/', "__"), block);

        let h = answers
            .get(&rel)
            .unwrap_or_else(|| panic!("{rel}: no herd7 answer recorded"));
        let ours: BTreeSet<String> = j
            .states
            .iter()
            .map(|s| norm(&herd::show_state(&j, s)))
            .collect();
        let (pos, neg) = j.witnesses();
        if ours != h.states || j.observation() != h.observation || (pos, neg) != (h.pos, h.neg) {
            disagreements.push(format!(
                "{rel}: herd7 {} {}/{} {:?}, ours {} {pos}/{neg} {:?}",
                h.observation,
                h.pos,
                h.neg,
                h.states,
                j.observation(),
                ours
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "disagreements with herd7:\n{}",
        disagreements.join("\n")
    );
}
