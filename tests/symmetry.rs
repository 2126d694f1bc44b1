//! Judging one combination of runs per orbit of a test's symmetries (threads that are the
//! same code on renamed locations) must give exactly the answers of judging them all:
//! states, witness counts, flags.

mod common;

use common::{answer, judged_with_options, lock_emulation, lock_emulation_text, shipped, suite};
use litmus::judge::{Judgement, Options};
use litmus::litmus::{ast::Test, parse};
use litmus::model::Loaded;
use litmus::tuning::Tuning;

fn judged(t: &Test, m: &Loaded, symmetry: bool) -> Judgement {
    let tuning = Tuning {
        symmetry,
        ..Tuning::default()
    };
    judged_with_options(
        t,
        m,
        Options {
            tuning,
            ..Options::default()
        },
    )
}

/// Judged with and without symmetries: the same answer; the symmetries used.
fn same_both_ways(t: &Test, m: &Loaded, what: &str) -> (usize, Judgement) {
    let with = judged(t, m, true);
    let without = judged(t, m, false);
    assert_eq!(without.stats.symmetries, 1);
    assert_eq!(answer(&with), answer(&without), "{what}");
    // Witness and explanation exist alike (they may be renamings of each other).
    assert_eq!(with.witness.is_some(), without.witness.is_some(), "{what}");
    let why = |j: &Judgement| j.forbidden_by.as_ref().map(|e| e.check.clone());
    assert_eq!(why(&with).is_some(), why(&without).is_some(), "{what}");
    (with.stats.symmetries, with)
}

#[test]
fn symmetries_change_no_answer_of_the_suite() {
    let mut used = 0;
    for (f, t, m) in suite() {
        let (n, _) = same_both_ways(&t, &m, &f.display().to_string());
        used += usize::from(n > 1);
    }
    assert!(used > 0, "no test of the suite has a symmetry");
}

#[test]
fn a_lock_ring_is_judged_one_rotation_in_n() {
    let m = shipped("lkmm");
    for n in [3, 4] {
        for xchg in [false, true] {
            let lock = match xchg {
                true => "xchg_acquire(sl, 1)",
                false => "cmpxchg_acquire(sl, 0, 1)",
            };
            let t = lock_emulation(lock, n);
            let (syms, with) = same_both_ways(&t, &m, &format!("{n} {xchg}"));
            // The rotations of the ring.
            assert_eq!(syms, n, "{n} {xchg}");
            let without = judged(&t, &m, false);
            assert!(
                with.stats.candidates * (n - 1) < without.stats.candidates,
                "{n} {xchg}: {} of {} candidates visited",
                with.stats.candidates,
                without.stats.candidates
            );
        }
    }
}

#[test]
fn what_tells_threads_apart_leaves_no_symmetry() {
    let m = shipped("lkmm");
    let sb = |init: &str, cond: &str| {
        format!(
            "C SB\n{{ {init} }}\nP0(int *x, int *y)\n{{\n\tint r0;\n\tWRITE_ONCE(*x, 1);\n\
             \tr0 = READ_ONCE(*y);\n}}\nP1(int *x, int *y)\n{{\n\tint r0;\n\
             \tWRITE_ONCE(*y, 1);\n\tr0 = READ_ONCE(*x);\n}}\nexists ({cond})\n"
        )
    };
    // Store buffering swaps its threads with x and y.
    let (n, _) = same_both_ways(&parse(&sb("", "0:r0=0 /\\ 1:r0=0")).unwrap(), &m, "SB");
    assert_eq!(n, 2);
    // Final values of memory are renamed too.
    let t = parse(&sb("", "0:r0=0 /\\ 1:r0=0 /\\ x=1 /\\ y=1")).unwrap();
    assert_eq!(same_both_ways(&t, &m, "SB x y").0, 2);
    let t = parse(
        "C 2+2W\n{}\nP0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tWRITE_ONCE(*y, 2);\n}\n\
         P1(int *x, int *y)\n{\n\tWRITE_ONCE(*y, 1);\n\tWRITE_ONCE(*x, 2);\n}\n\
         exists (x=2 /\\ y=2)\n",
    )
    .unwrap();
    assert_eq!(same_both_ways(&t, &m, "2+2W").0, 2);
    // Not when the condition tells the threads apart, nor the initial state, nor the
    // final value of one location only.
    for (init, cond) in [
        ("", "0:r0=0 /\\ 1:r0=1"),
        ("x=1;", "0:r0=0 /\\ 1:r0=0"),
        ("", "0:r0=0 /\\ 1:r0=0 /\\ x=1"),
    ] {
        let t = parse(&sb(init, cond)).unwrap();
        let (n, _) = same_both_ways(&t, &m, cond);
        assert_eq!(n, 1, "{init} {cond}");
    }
    // Threads whose code differs.
    let t = parse(
        "C MP\n{}\nP0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tsmp_store_release(y, 1);\n}\n\
         P1(int *x, int *y)\n{\n\tint r0;\n\tint r1;\n\tr0 = smp_load_acquire(y);\n\
         \tr1 = READ_ONCE(*x);\n}\nexists (1:r0=1 /\\ 1:r1=0)\n",
    )
    .unwrap();
    assert_eq!(same_both_ways(&t, &m, "MP").0, 1);
}

#[test]
fn a_symmetric_filter_keeps_the_symmetry_and_an_asymmetric_one_drops_it() {
    let m = shipped("lkmm");
    let t = |flt: &str| {
        let mut s = lock_emulation_text("cmpxchg_acquire(sl, 0, 1)", 3);
        let at = s.find("exists").unwrap();
        s.insert_str(at, &format!("filter ({flt})\n"));
        parse(&s).unwrap()
    };
    let (n, _) = same_both_ways(&t("0:r2=0 /\\ 1:r2=0 /\\ 2:r2=0"), &m, "symmetric");
    assert_eq!(n, 3);
    let (n, _) = same_both_ways(&t("0:r2=0"), &m, "asymmetric");
    assert_eq!(n, 1);
}
