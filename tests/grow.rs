//! The growing exploration (`exec::grow`) against the domain enumeration it replaces for
//! big tests: on every test of our suite, kernel-form tests included, under every shipped
//! model of its architecture, both give the same states, witness counts, flags and loop
//! cut. (`tests/fuzz.rs` compares it with the reference evaluator on generated tests.)

mod common;

use common::{answer, judged_with_options, root};
use litmus::judge::Options;
use litmus::litmus::parse;
use litmus::model::{self, Request};
use litmus::tuning::Exploration;
use std::path::{Path, PathBuf};

fn every_test() -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(&root().join("litmus"), &mut v);
    v.sort();
    v
}

fn with(exploration: Exploration) -> Options {
    let mut o = Options::default();
    o.tuning.exploration = exploration;
    o
}

#[test]
fn grown_answers_are_the_enumerated_ones() {
    let models: Vec<_> = model::all_names()
        .into_iter()
        .map(|n| model::load_shipped(n, &Request::default()).unwrap())
        .collect();
    let files = every_test();
    assert!(
        files.len() > 100,
        "the suite is missing: {} tests",
        files.len()
    );
    let (mut compared, mut grown_more) = (0, 0);
    for f in &files {
        let t = parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        for m in models
            .iter()
            .filter(|m| m.arches.as_ref().is_some_and(|a| a.contains(&t.arch)))
        {
            let d = judged_with_options(&t, m, with(Exploration::Domains));
            let g = judged_with_options(&t, m, with(Exploration::Grow));
            assert_eq!(
                answer(&g),
                answer(&d),
                "{} under {}: grown and enumerated differ",
                f.display(),
                m.label
            );
            compared += 1;
            grown_more += (g.stats.candidates > d.stats.candidates) as usize;
        }
    }
    println!("{compared} judgements compared; {grown_more} grew more candidates");
    assert!(compared > 100);
}
