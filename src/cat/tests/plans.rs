//! Plans (see [`crate::cat::plan`]): the branches of a `with` run from a plan, and partial
//! choices of `rf` judged from one, give what the interpreter gives; where the symbolic run
//! meets what it cannot record, there is no plan and the interpreter runs as before.

use super::*;

/// Everything a branch reports: its flags in the order raised, the failed check with its
/// kind, negation and cycle, and the final `co` and `rf`.
type Full = (
    Vec<String>,
    Option<(String, CheckKind, bool, Option<Vec<usize>>)>,
    Option<Rel>,
    Option<Rel>,
);

fn full(vs: Vec<Verdict>) -> Vec<Full> {
    vs.into_iter()
        .map(|v| {
            let failed = v.failed.map(|f| (f.name, f.kind, f.negated, f.cycle));
            (v.flags, failed, v.co, v.rf)
        })
        .collect()
}

/// The branches that pass, in full, and whether any fails: a plan's lower bounds may drop
/// failing orders that the interpreter reports one by one.
fn judged(vs: Vec<Verdict>) -> (Vec<Full>, bool) {
    let fails = vs.iter().any(|v| v.failed.is_some());
    (
        full(vs.into_iter().filter(|v| v.failed.is_none()).collect()),
        fails,
    )
}

/// The store-buffering candidate's four coherence orders, then `body`.
fn with_co(body: &str) -> Model {
    let src = format!(
        "let map f = let rec m s = match s with || {{}} -> {{}} || e ++ r -> f e ++ m r end in m\n\
         include \"colib.cat\"\nflag ~empty rf as before\n\
         with co from coherence-orders(W, 0)\n{body}"
    );
    model(&src, &[])
}

/// Bodies whose branches a plan runs: every operator, functions, procedures, `let ... in`,
/// `try` around an error that does not depend on `co`, short-circuits on constants, flags
/// and every kind of check, negated or not, some failing in some orders.
const PLANNED: &[&str] = &[
    "let fr = (rf^-1 ; co) \\ id\nacyclic po | rf | co | fr as sc\n",
    "let a = co+ | co* | co? | co^-1\nlet b = ~co & loc\n\
     let c = [domain(co)] ; (co \\ id) ; [range(co)]\n\
     flag ~empty a \\ b as ab\nflag ~empty c as c\nirreflexive (co ; co) | co^-1 as irr\n",
    "let d = (co ; co) | ((W * W) & co) | (domain(co) * range(co))\n\
     empty d & (R * _) as no-reads\n~empty d as some\nacyclic d \\ id as d\n",
    "let f(r) = r ; po\nlet g = let x = co in x | f(co)\n\
     flag ~empty g & int as g-int\nacyclic g | (rf ; po) as g\n",
    "let e = (co & 0) | (0 ; co) | ([FW] ; co)\nflag ~empty e as never\n\
     flag ~empty co \\ _ as never2\nflag empty co | _ as never3\n\
     flag ~empty (_ \\ co) & (W * W) as gaps\nflag ~empty [W] ; co ; [IW] as iw-last\n",
    "let t = try nosuchname with co\nacyclic t | po as t\n",
    "procedure p(r) = acyclic r as p-acyclic\nflag ~empty r & ext as p-ext end\n\
     call p(co | po)\ncall p(co^-1 | po)\n",
    "let c2 = co\nlet co = c2 | (po & (W * W))\nlet rf = rf | (co ; [R])\n\
     acyclic co | rf as final\n",
    "flag ~empty co as one\nflag ~empty [IW] ; co as two\nempty co & id as three\n",
];

/// Bodies a plan cannot run, each for its own reason: a condition, a match and a fixpoint
/// over `co`, a nested `with`, a native function of `co`, and an error that depends on it.
const INTERPRETED: &[&str] = &[
    "let k = if co subset po then po else co\nacyclic k as k\n",
    "let m = match co with || {} -> po || e ++ r -> co end\nacyclic m as m\n",
    "let rec r = co | (r ; co)\nacyclic r as fix\n",
    "with x from {co, po}\nacyclic x | co as x\n",
    "let l = linearisations(W, co)\nflag ~empty l as l\n",
    "let t = try [co] with po\nacyclic t as t\n",
];

#[test]
fn branches_run_from_a_plan_give_what_the_interpreter_gives() {
    for (bodies, planned) in [(PLANNED, true), (INTERPRETED, false)] {
        for body in bodies {
            let m = with_co(body);
            // Without a run cache there is never a plan: the interpreter's answers.
            let fresh = full(verdicts(&m, &sb()));
            assert!(fresh.len() >= 4, "{body}");
            let cache = m.new_cache();
            for _ in 0..2 {
                assert_eq!(full(cached_verdicts(&m, &sb(), &cache)), fresh, "{body}");
            }
            assert_eq!(cache.planned.get() > 0, planned, "{body}");
        }
    }
    // The bodies test something: between them, branches fail with cycles and raise flags.
    let all: Vec<Full> = PLANNED
        .iter()
        .flat_map(|b| full(verdicts(&with_co(b), &sb())))
        .collect();
    assert!(
        all.iter()
            .any(|v| v.1.as_ref().is_some_and(|f| f.3.is_some()))
    );
    assert!(all.iter().any(|v| v.1.is_none() && v.0.len() > 1));
}

/// A cache whose plans are turned off judges as the interpreter does, and makes none.
#[test]
fn plans_can_be_turned_off() {
    let m = with_co(PLANNED[0]);
    let cache = m.new_cache();
    cache.plan.set(false);
    assert_eq!(
        full(cached_verdicts(&m, &sb(), &cache)),
        full(verdicts(&m, &sb()))
    );
    assert_eq!(cache.planned.get(), 0);
}

/// Models bounded from below (`Model::doomed`): the verdict on each partial choice of `rf`
/// is the interpreter's, from one plan per shape; a bound given up stays given up.
#[test]
fn partial_rf_choices_judged_from_a_plan_are_judged_as_interpreted() {
    let srcs = [
        "M\nempty rf as no-rf\n",
        "M\n~empty rf as some-rf\n~empty F as fences\n",
        "M\nempty po \\ rf as po-in-rf\nacyclic po | rf^-1 as back\n",
        "M\nlet fr = (rf^-1 ; co) \\ id\nacyclic po | rf | fr as sc\n",
        "M\nempty different-values(rf) as same\n",
        "M\nwith x from {po, po | loc}\nempty x & rf as nothing\n",
        "M\nwith x from {po, po | rf}\nempty x as nothing\n",
        "M\nlet map f = let rec m s = match s with || {} -> {} || e ++ r -> f e ++ m r end in m\n\
         include \"colib.cat\"\nwith co from coherence-orders(W, rf ; po ; rf^-1)\n\
         let fr = (rf^-1 ; co) \\ id\nacyclic co | fr | po as sc\n",
    ];
    // Reads 3 (of y: writes 1, 4) and 5 (of x: writes 0, 2), each with a source or none.
    let choices: Vec<Vec<(usize, usize)>> = [None, Some(1), Some(4)]
        .into_iter()
        .flat_map(|a| [None, Some(0), Some(2)].into_iter().map(move |b| (a, b)))
        .map(|(a, b)| {
            a.map(|w| (w, 3))
                .into_iter()
                .chain(b.map(|w| (w, 5)))
                .collect()
        })
        .collect();
    let (mut doomed, mut kept) = (0, 0);
    for src in srcs {
        let m = model(src, &[]);
        let cache = m.new_cache();
        for rf in &choices {
            let mut c = sb();
            c.rels.retain(|(k, _)| *k != "rf");
            c.rels.push(("rf", rf.clone()));
            let interpreted = m.doomed(&c.prims(), None, &Budget::unlimited());
            assert_eq!(
                m.doomed(&c.prims(), Some(&cache), &Budget::unlimited()),
                interpreted,
                "{src} {rf:?}"
            );
            doomed += interpreted as usize;
            kept += !interpreted as usize;
        }
        assert_eq!(cache.planned.get(), 1, "{src}");
    }
    assert!(doomed > 0 && kept > 0);
}

/// Every way the store-buffering candidate's reads may take their sources: candidates of
/// one shape.
fn sb_rfs() -> Vec<Cand> {
    let mut out = Vec::new();
    for y in [1, 4] {
        for x in [0, 2] {
            let mut c = sb();
            c.rels.retain(|(k, _)| *k != "rf");
            c.rels.push(("rf", vec![(y, 3), (x, 5)]));
            out.push(c);
        }
    }
    out
}

/// The candidates of one shape run from one plan of the whole model (made at the second
/// of them, `rf` symbolic; the coherence orders a step, built and cut natively) give the
/// interpreter's verdicts; with a condition, a match or a choice over `rf`, there is no
/// plan.
#[test]
fn candidates_of_a_shape_run_from_a_plan_give_what_the_interpreter_gives() {
    let rf_bodies = [
        "let obs = rf | (po ; rf^-1)\nacyclic obs | co as obs\nflag ~empty rf & int as rfi\n",
        "let rfe = rf & ext\nlet hb = (po | rfe | co | fr)+\nirreflexive hb as hb\n",
    ];
    let interpreted = [
        "let k = if rf subset po then po else co\nacyclic k as k\n",
        "with x from {rf, po}\nacyclic x | co as x\n",
    ];
    let cases = PLANNED
        .iter()
        .chain(&rf_bodies)
        .map(|b| (b, true))
        .chain(interpreted.iter().map(|b| (b, false)));
    for (body, planned) in cases {
        let m = with_co(body);
        let cache = m.new_cache();
        for c in sb_rfs().iter().chain(&sb_rfs()) {
            assert_eq!(
                judged(cached_verdicts(&m, c, &cache)),
                judged(verdicts(&m, c)),
                "{body}"
            );
        }
        let made = matches!(*cache.whole.borrow(), super::super::Whole::Made(_));
        assert_eq!(made, planned, "{body}");
    }
}
