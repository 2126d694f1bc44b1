//! Judging a whole subtree of candidates at once by a bound of the model (an upper bound of
//! every relation over the subtree's `rf` edges) must give exactly the answers of judging
//! its candidates one by one: states, witness counts, flags.

mod common;

use common::{answer, judged_with_options, lock_emulation, shipped, suite};
use litmus::judge::{Judgement, Options};
use litmus::litmus::{ast::Test, parse};
use litmus::model::Loaded;
use litmus::tuning::Tuning;

fn judged(t: &Test, m: &Loaded, bound_min: usize) -> Judgement {
    judged_with_options(
        t,
        m,
        Options {
            tuning: Tuning {
                bound_min,
                ..Tuning::default()
            },
            evidence: true,
            ..Options::default()
        },
    )
}

#[test]
fn bounding_every_subtree_of_the_suite_changes_no_answer() {
    let mut bounded = 0;
    for (f, t, m) in suite() {
        let (t, m) = (&t, &m);
        // Subtrees of two combinations of runs and more: every one the search meets.
        let by_bound = judged(t, m, 2);
        let one_by_one = judged(t, m, 0);
        assert_eq!(one_by_one.stats.bounded, 0);
        assert_eq!(answer(&by_bound), answer(&one_by_one), "{}", f.display());
        assert_eq!(
            by_bound.stats.candidates,
            one_by_one.stats.candidates,
            "{}",
            f.display()
        );
        bounded += by_bound.stats.bounded;
    }
    assert!(bounded > 0, "no subtree of the suite was bounded");
}

/// A ring of RCU readers and updaters in the style of the kernel's `auto/C-RW-*` tests:
/// each thread reads one variable and writes the next, inside a critical section (`R`) or
/// after a grace period (`G`).
fn ring(kinds: &str) -> String {
    let n = kinds.len();
    let mut s = format!("C ring-{kinds}\n{{\n}}\n");
    for (i, k) in kinds.chars().enumerate() {
        let (x, y) = (i, (i + 1) % n);
        s += &format!("P{i}(intptr_t *x{x}, intptr_t *x{y})\n{{\n");
        if k == 'G' {
            s += &format!("\tintptr_t r1 = READ_ONCE(*x{x});\n\tsynchronize_rcu();\n");
            s += &format!("\tWRITE_ONCE(*x{y}, 1);\n}}\n");
        } else {
            s += &format!("\trcu_read_lock();\n\tintptr_t r1 = READ_ONCE(*x{x});\n");
            s += &format!("\tWRITE_ONCE(*x{y}, 1);\n\trcu_read_unlock();\n}}\n");
        }
    }
    let all: Vec<String> = (0..n).map(|i| format!("{i}:r1=1")).collect();
    s + &format!("exists ({})\n", all.join(" /\\ "))
}

#[test]
fn rcu_rings_are_judged_by_subtrees_with_the_same_answers() {
    let m = shipped("lkmm");
    for kinds in ["GRGRGRGRGR", "GGRRRRRGGG", "GGGGGGGGGG", "RRRRRRRRRG"] {
        let t = parse(&ring(kinds)).unwrap();
        let by_bound = judged(&t, &m, Tuning::default().bound_min);
        let one_by_one = judged(&t, &m, 0);
        assert_eq!(answer(&by_bound), answer(&one_by_one), "{kinds}");
        // Most of the ring's candidates are consistent: subtrees of them are bounded.
        assert!(
            by_bound.stats.bounded * 2 > by_bound.stats.candidates,
            "{kinds}: {} of {} bounded",
            by_bound.stats.bounded,
            by_bound.stats.candidates
        );
    }
}

#[test]
fn a_ring_the_model_forbids_keeps_its_explanation_and_witness() {
    // The all-ones outcome of a ring with as many grace periods as critical sections is
    // forbidden: the forbidding candidate is judged on its own, and explained.
    let m = shipped("lkmm");
    let t = parse(&ring("GRGRGRGRGR")).unwrap();
    let j = judged(&t, &m, Tuning::default().bound_min);
    assert_eq!(j.sat, 0);
    let why = j.forbidden_by.expect("a forbidden execution is explained");
    assert_eq!(why.check, "rcu");
    // With fewer grace periods the outcome is allowed, and the witness is a full graph.
    let t = parse(&ring("GRRRRRRRRR")).unwrap();
    let j = judged(&t, &m, Tuning::default().bound_min);
    assert!(j.sat > 0);
    let full = judged(&t, &m, 0);
    assert_eq!(format!("{:?}", j.witness), format!("{:?}", full.witness));
    assert!(j.witness.is_some());
}

#[test]
fn coherence_is_settled_on_every_location_even_with_its_reads_decided() {
    // Two reads of one location in program order that disagree with coherence (CoRR), and
    // two writes that coherence orders against program order (CoWW): candidates a bound
    // must never let through, wherever the search bounds them.
    let corr = "PPC CoRR+detour
{ 0:r2=x; 0:r4=y; 1:r2=y; 2:r2=x; }
 P0           | P1           | P2           ;
 li r1,1      | li r1,1      | lwz r1,0(r2) ;
 stw r1,0(r2) | stw r1,0(r2) | lwz r3,0(r2) ;
 lwz r3,0(r4) | li r1,2      |              ;
 lwz r5,0(r4) | stw r1,0(r2) |              ;
exists (0:r3=2 /\\ 0:r5=1)
";
    let m = shipped("power");
    let t = parse(corr).unwrap();
    for min in [2, 4, 8] {
        assert_eq!(answer(&judged(&t, &m, min)), answer(&judged(&t, &m, 0)));
    }
    assert_eq!(judged(&t, &m, 2).sat, 0);
}

fn judged_with(t: &Test, m: &Loaded, doomed_min: usize) -> Judgement {
    judged_with_options(
        t,
        m,
        Options {
            tuning: Tuning {
                bound_min: 0,
                doomed_min,
                ..Tuning::default()
            },
            evidence: true,
            ..Options::default()
        },
    )
}

/// Leaving out the candidates below a partial choice of sources that already fails a check
/// (the model bounded from below) changes no answer, nor the forbidden outcome's
/// explanation, and every candidate is either visited or left out.
#[test]
fn cutting_partial_rf_choices_in_the_suite_changes_no_answer() {
    let mut left_out = 0;
    for (f, t, m) in suite() {
        let (t, m) = (&t, &m);
        // Every combination of runs with two candidates or more.
        let cut = judged_with(t, m, 2);
        let whole = judged_with(t, m, 0);
        assert_eq!(whole.stats.left_out, 0);
        assert_eq!(answer(&cut), answer(&whole), "{}", f.display());
        let why = |j: &Judgement| j.forbidden_by.as_ref().map(|e| e.check.clone());
        assert_eq!(why(&cut), why(&whole), "{}", f.display());
        assert_eq!(
            cut.stats.candidates + cut.stats.left_out,
            whole.stats.candidates,
            "{}",
            f.display()
        );
        left_out += cut.stats.left_out;
    }
    assert!(left_out > 0, "no candidate of the suite was left out");
}

/// A lock emulated with `xchg_acquire` and `smp_store_release` around store buffering, on
/// three threads: most choices of the lock word's sources fail a check early.
#[test]
fn lock_emulation_is_cut_with_the_same_answers() {
    let t = lock_emulation("xchg_acquire(sl, 1)", 3);
    let m = shipped("lkmm");
    let cut = judged_with(&t, &m, 2);
    let whole = judged_with(&t, &m, 0);
    assert_eq!(answer(&cut), answer(&whole));
    assert_eq!(
        cut.stats.candidates + cut.stats.left_out,
        whole.stats.candidates
    );
    assert!(cut.stats.left_out > 0);
    // Serialised critical sections: store buffering's outcome cannot happen.
    assert_eq!(cut.witnesses().0, 0);
    assert!(cut.witnesses().1 > 0);
}
