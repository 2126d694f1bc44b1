//! The growing exploration (`exec::grow`) against the domain enumeration it replaces for
//! big tests: on every test of our suite, kernel-form tests included, under every shipped
//! model of its architecture, both give the same states, witness counts, flags and loop
//! cut. (`tests/fuzz.rs` compares it with the reference evaluator on generated tests.)

mod common;

use common::{answer, root};
use litmus::budget::Budget;
use litmus::judge::{self, Judgement, Options};
use litmus::litmus::parse;
use litmus::model::{self, Request};
use litmus::tuning::Exploration;
use std::path::{Path, PathBuf};

fn every_test() -> Vec<PathBuf> {
    common::litmus_files("litmus", &[])
}

fn with(exploration: Exploration) -> Options {
    let mut o = Options::default();
    o.tuning.exploration = exploration;
    // The domain enumeration gives up on the tests written for growth (64-bit counts):
    // there, a short budget (an answer it gives within it is compared).
    if exploration == Exploration::Domains {
        o.budget = Budget::new(Some(std::time::Duration::from_secs(2)), None);
    }
    o
}

fn judged(t: &litmus::litmus::ast::Test, m: &model::Loaded, e: Exploration) -> Option<Judgement> {
    judge::run(t, &m.model, m.macros.as_ref(), &with(e)).ok()
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
    let (mut compared, mut grown_more, mut given_up) = (0, 0, Vec::new());
    for f in &files {
        let t = parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        for m in models
            .iter()
            .filter(|m| m.arches.as_ref().is_some_and(|a| a.contains(&t.arch)))
        {
            let g = judged(&t, m, Exploration::Grow)
                .unwrap_or_else(|| panic!("{} under {}: not grown", f.display(), m.label));
            let Some(d) = judged(&t, m, Exploration::Domains) else {
                given_up.push(f.display().to_string());
                continue;
            };
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
    println!("the domain enumeration gave up on {given_up:?}");
    assert!(compared > 100);
}

/// lockref's word with real counts (`X+count64.litmus`: the count in the upper half of a
/// u64, no modulo) is answered as its modulo-4 form `X.litmus` is: the growing
/// exploration's cost does not depend on the values' width.
#[test]
fn real_counts_answer_as_the_modulo_forms() {
    let lkmm = model::load_shipped("lkmm", &Request::default()).unwrap();
    let seeds = root().join("litmus/kernel/seeds");
    let mut pairs = 0;
    for f in every_test().into_iter().filter(|f| f.starts_with(&seeds)) {
        let name = f.file_name().unwrap().to_str().unwrap();
        let Some(base) = name.strip_suffix("+count64.litmus") else {
            continue;
        };
        let modulo = seeds.join(format!("{base}.litmus"));
        let verdict = |p: &Path| {
            let t = parse(&std::fs::read_to_string(p).unwrap()).unwrap();
            let j = judged(&t, &lkmm, Exploration::Auto).expect("answered");
            (j.observation(), j.witnesses(), j.cut)
        };
        assert_eq!(verdict(&f), verdict(&modulo), "{name}");
        pairs += 1;
    }
    assert!(pairs >= 4, "{pairs} real-count seeds");
}

/// `auto` takes the domain enumeration for a test whose threads have few runs, and grows
/// it instead once it has visited `Tuning::domain_candidates_max` candidates: the answer
/// is the one either engine gives alone.
#[test]
fn auto_grows_a_test_whose_candidates_outgrow_the_enumeration() {
    let lkmm = model::load_shipped("lkmm", &Request::default()).unwrap();
    let f = root().join("litmus/locks/C/spinlock-mutex.litmus");
    let t = parse(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let mut small = with(Exploration::Auto);
    small.budget = Budget::default();
    small.tuning.domain_candidates_max = 3;
    let switched = judge::run(&t, &lkmm.model, lkmm.macros.as_ref(), &small).unwrap();
    let alone = judged(&t, &lkmm, Exploration::Domains).unwrap();
    assert!(alone.stats.candidates > 3 && alone.stats.partial == 0);
    assert!(
        switched.stats.partial > 0,
        "not grown: {:?}",
        switched.stats
    );
    assert_eq!(answer(&switched), answer(&alone));
}
