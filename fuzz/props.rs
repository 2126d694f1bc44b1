//! What the fuzz targets hold true, one function per target. `tests/fuzz.rs` includes
//! this file too and replays every saved input under `cargo test`, so an input the fuzzer
//! once broke stays a regression test.
//!
//! Every property is "no panic" plus what the function asserts; an error returned for bad
//! input is a pass.

#![allow(dead_code)] // each target uses one of these properties

use litmus::budget::Budget;
use litmus::cat::config::Source;
use litmus::cat::{Model, ModelOptions, read_cfg};
use litmus::judge::{self, Judgement, Options};
use litmus::litmus as lit;
use litmus::model::{self, Loaded, Request};
use std::time::{Duration, Instant};

/// Each test's time budget: small, so that a run tries many inputs.
pub const TIME: Duration = Duration::from_millis(1000);
/// Memory budget (resident bytes of the whole process, as `--max-memory`).
const MEMORY: u64 = 2 << 30;
/// A run may pass its time budget by 10% (the bound), plus this much for the
/// scheduler of a loaded machine.
const SLACK: Duration = Duration::from_millis(100);

/// Litmus text: parsing never panics, and what parses prints back to text that parses
/// to an equal test (the invariant of [`lit::print`]).
pub fn litmus_text(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(t) = lit::parse(src) {
        let printed = lit::print(&t);
        match lit::parse(&printed) {
            Ok(t2) => assert!(t2 == t, "reparsed print differs:\n{printed}"),
            Err(e) => panic!("print does not parse: {e}\n{printed}"),
        }
    }
}

/// A cat model: loading never panics, and a model that loads judges a small test
/// within its budget.
pub fn cat_text(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let opts = ModelOptions {
        cat: "fuzz.cat".into(),
        ..ModelOptions::default()
    };
    if let Ok(m) = Model::from_source(src, &opts) {
        judge_within_budget(&probe(), &m, None, Options::default());
    }
}

/// A herd `.cfg` file: reading never panics, and the model it names, if it loads,
/// judges a small test within its budget.
pub fn cfg_text(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    let Ok((opts, _macros)) = read_cfg(&Source::Text("fuzz.cfg".into(), src.into())) else {
        return;
    };
    // Only the shipped files: a configuration may name any path, and the fuzzer must not
    // read the machine's files.
    let path = |n: &str| n.contains('/') || n.contains('\\');
    if path(&opts.cat) || opts.bell.as_deref().is_some_and(path) {
        return;
    }
    if let Ok(m) = Model::load(&opts) {
        judge_within_budget(&probe(), &m, None, Options::default());
    }
}

/// A small test: it parses (the generator only writes valid tests), every shipped model
/// for its architecture judges it within the budget, and the fast paths, each forced on
/// however small the test (bounds of whole subtrees, cuts of doomed partial `rf` choices,
/// symmetry, plans), and the growing exploration, give the answer of the reference: every
/// candidate enumerated and judged by the reference evaluator (`check --reference`).
pub fn check_test(src: &str) {
    let t = lit::parse(src).unwrap_or_else(|e| panic!("generated test does not parse: {e}\n{src}"));
    MODELS.with(|models| {
        for m in models
            .iter()
            .filter(|m| m.arches.as_ref().is_some_and(|a| a.contains(&t.arch)))
        {
            let fast = judge_within_budget(&t, &m.model, m.macros.as_ref(), forced_options());
            let reference = judge_with(
                &t,
                &m.model,
                m.macros.as_ref(),
                Options::default().reference(),
            );
            let grown = judge_within_budget(&t, &m.model, m.macros.as_ref(), grown_options());
            if let (Some(f), Some(p)) = (fast, reference.as_ref()) {
                assert_eq!(
                    answer(&f),
                    answer(p),
                    "{}: fast paths differ from the reference on\n{src}",
                    m.label
                );
            }
            if let (Some(g), Some(p)) = (grown, reference.as_ref()) {
                assert_eq!(
                    answer(&g),
                    answer(p),
                    "{}: the growing exploration differs from the reference on\n{src}",
                    m.label
                );
            }
        }
    });
}

thread_local! {
    /// The shipped models, loaded once per thread.
    static MODELS: Vec<Loaded> = model::all_names()
        .into_iter()
        .map(|n| model::load_shipped(n, &Request::default()).expect("a shipped model loads"))
        .collect();
}

/// What must not depend on how the candidates were enumerated.
fn answer(j: &Judgement) -> impl PartialEq + std::fmt::Debug + '_ {
    (&j.states, j.sat, j.unsat, &j.flags)
}

/// Every fast path on, at the smallest size it applies to.
fn forced_options() -> Options {
    Options {
        tuning: litmus::tuning::Tuning::eager(),
        ..Options::default()
    }
}

/// The growing exploration (`exec::grow`) however small the test.
fn grown_options() -> Options {
    let mut o = Options::default();
    o.tuning.exploration = litmus::tuning::Exploration::Grow;
    o
}

/// Judges `t` under the budget and fails if the run ends later than the budget allows;
/// `None` when it was undetermined or an error.
fn judge_within_budget(
    t: &lit::ast::Test,
    m: &Model,
    macros: Option<&litmus::sem::c::Macros>,
    o: Options,
) -> Option<Judgement> {
    let start = Instant::now();
    let j = judge_with(t, m, macros, o);
    let took = start.elapsed();
    assert!(
        took <= TIME + TIME / 10 + SLACK,
        "ran {took:?} on a budget of {TIME:?}:\n{}",
        lit::print(t)
    );
    j
}

fn judge_with(
    t: &lit::ast::Test,
    m: &Model,
    macros: Option<&litmus::sem::c::Macros>,
    mut o: Options,
) -> Option<Judgement> {
    o.budget = Budget::new(Some(TIME), Some(MEMORY));
    // Models recurse: judge on a stack as deep as the command's workers have.
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(litmus::WORKER_STACK)
            .spawn_scoped(s, || judge::run(t, m, macros, &o).ok())
            .expect("a thread starts")
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

/// The test a fuzzed model judges: message passing with a lock, a release and an
/// acquire, so that most of the LKMM's sets are not empty.
fn probe() -> lit::ast::Test {
    lit::parse(
        "C probe\n{}\n\
         P0(int *x, int *y, spinlock_t *s) { spin_lock(s); WRITE_ONCE(*x, 1); spin_unlock(s); smp_store_release(y, 1); }\n\
         P1(int *x, int *y, spinlock_t *s) { int r0; int r1; r0 = smp_load_acquire(y); spin_lock(s); r1 = READ_ONCE(*x); spin_unlock(s); }\n\
         exists (1:r0=1 /\\ 1:r1=0)\n",
    )
    .expect("the probe parses")
}
