//! Running the model from plans (see `cat::plan`: the model compiled once per shape of
//! thread runs, then run natively for each candidate, from above for subtrees and from
//! below for partial choices of `rf`) must give exactly the reference evaluator's answers:
//! states, witness counts, flags and the explanation of a forbidden outcome.

mod common;

use common::{answer, judged_with_options, lock_emulation, shipped, suite};
use litmus::judge::{Judgement, Options};
use litmus::litmus::ast::Test;
use litmus::model::Loaded;
use litmus::tuning::Tuning;

fn judged(t: &Test, m: &Loaded, plans: bool) -> Judgement {
    judged_with_options(
        t,
        m,
        Options {
            tuning: Tuning {
                plans,
                ..Tuning::default()
            },
            ..Options::default()
        },
    )
}

/// The same answers with plans and with the reference evaluator on every candidate (the
/// enumeration's own shortcuts on in both); how many plans were made.
fn same(t: &Test, m: &Loaded, what: &str) -> u64 {
    let (planned, referenced) = (judged(t, m, true), judged(t, m, false));
    assert_eq!(referenced.stats.cat.plans, 0, "{what}");
    assert_eq!(answer(&planned), answer(&referenced), "{what}");
    // Bounds and cuts need plans: without them every candidate is visited.
    assert_eq!(
        planned.stats.candidates + planned.stats.left_out,
        referenced.stats.candidates + referenced.stats.left_out,
        "{what}"
    );
    // A forbidden outcome is explained either way (by the first check that rejects its
    // first candidate: the plans report the coherence orders they drop before the
    // branches they run, so the check may differ).
    let why = |j: &Judgement| j.forbidden_by.is_some();
    assert_eq!(why(&planned), why(&referenced), "{what}");
    assert_eq!(
        planned.stats.cat.given_up, 0,
        "{what}: a shipped model that does not compile"
    );
    planned.stats.cat.plans
}

#[test]
fn plans_change_no_answer_of_the_suite() {
    let mut plans = 0;
    for (f, t, m) in suite() {
        plans += same(&t, &m, &f.display().to_string());
    }
    assert!(plans > 0, "no plan was made for the suite");
}

/// Lock emulations around store buffering, with `xchg_acquire` and with
/// `cmpxchg_acquire`, on three threads: the lock word's coherence orders are built by
/// the plans, and its partial `rf` choices are cut from them.
#[test]
fn lock_emulations_are_judged_from_plans_as_by_the_reference() {
    for lock in ["xchg_acquire(sl, 1)", "cmpxchg_acquire(sl, 0, 1)"] {
        let t = lock_emulation(lock, 3);
        let m = shipped("lkmm");
        assert!(same(&t, &m, lock) > 1, "{lock}");
        assert_eq!(judged(&t, &m, true).witnesses().0, 0);
        // Cut wherever a cut may apply: the same answer, and partial choices cut.
        let eager = judged_with_options(
            &t,
            &m,
            Options {
                tuning: Tuning::eager(),
                ..Options::default()
            },
        );
        assert_eq!(answer(&eager), answer(&judged(&t, &m, false)), "{lock}");
        assert!(eager.stats.cat.doomed > 0, "{lock}: no partial rf cut");
    }
}
