//! Running the model from plans (see `cat::plan`: the branches of a `with`, and the runs
//! judging partial choices of `rf`, each made once from a run on symbolic values and then
//! run natively) must give exactly the interpreter's answers: states, witness counts,
//! flags, the candidates left out and the explanation of a forbidden outcome.

mod common;

use common::{answer, judged_with_options, lock_emulation, shipped, suite};
use litmus::litmus::ast::Test;
use litmus::model::Loaded;
use litmus::outcome::{Judgement, Options};

fn judged(t: &Test, m: &Loaded, plans: bool) -> Judgement {
    judged_with_options(
        t,
        m,
        Options {
            plans,
            ..Options::default()
        },
    )
}

/// The same answers, and the same work left out, with plans and without.
fn same(t: &Test, m: &Loaded, what: &str) -> u64 {
    let (planned, interpreted) = (judged(t, m, true), judged(t, m, false));
    assert_eq!(interpreted.plans, 0, "{what}");
    assert_eq!(answer(&planned), answer(&interpreted), "{what}");
    assert_eq!(planned.candidates, interpreted.candidates, "{what}");
    assert_eq!(planned.left_out, interpreted.left_out, "{what}");
    let why = |j: &Judgement| {
        j.forbidden_by
            .as_ref()
            .map(|e| (e.check.clone(), e.cycle.clone()))
    };
    assert_eq!(why(&planned), why(&interpreted), "{what}");
    planned.plans
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
/// `cmpxchg_acquire`, on three threads: the lock word's coherence orders are run from
/// plans, and its partial `rf` choices are cut from them.
#[test]
fn lock_emulations_are_judged_from_plans_as_interpreted() {
    for lock in ["xchg_acquire(sl, 1)", "cmpxchg_acquire(sl, 0, 1)"] {
        let t = lock_emulation(lock, 3);
        let m = shipped("lkmm");
        assert!(same(&t, &m, lock) > 1, "{lock}");
        assert_eq!(judged(&t, &m, true).witnesses().0, 0);
    }
}
