//! Plans (see [`crate::cat::plan`]): the branches of a `with` run from a plan, and partial
//! choices of `rf` judged from one, give what the reference evaluator gives; where the
//! compiler meets what depends on a staged value, there is no plan and the reference
//! evaluator judges the shape's candidates.

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

/// The branches that pass, in full (sorted: the plans walk coherence orders pick by pick,
/// the reference in the order of the set it builds), and whether any fails: a plan's
/// lower bounds may drop failing orders that the reference reports one by one.
fn judged(vs: Vec<Verdict>) -> (Vec<Full>, bool) {
    let fails = vs.iter().any(|v| v.failed.is_some());
    let mut ok = full(vs.into_iter().filter(|v| v.failed.is_none()).collect());
    ok.sort_by_key(|b| format!("{b:?}"));
    (ok, fails)
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
    "let rec r = co | (r ; co)\nacyclic r as fix\n",
    "let rec a = co | (b ; po) and b = a | (rf ; a)\nflag ~empty a & b as ab\nacyclic a as fix2\n",
    "let rec n = co \\ (n ; n)\nflag ~empty n as n\n",
    "let t = try [co] with po\nacyclic t as t\n",
];

/// Bodies a plan cannot run, each for its own reason: a condition and a set match over
/// `co`, a `with` from a set holding it, a native function of it.
const INTERPRETED: &[&str] = &[
    "let k = if co subset po then po else co\nacyclic k as k\n",
    "let m = match co with || {} -> po || e ++ r -> co end\nacyclic m as m\n",
    "with x from {co, po}\nacyclic x | co as x\n",
    "let l = linearisations(W, co)\nflag ~empty l as l\n",
];

#[test]
fn branches_run_from_a_plan_give_what_the_reference_gives() {
    for (bodies, planned) in [(PLANNED, true), (INTERPRETED, false)] {
        for body in bodies {
            let m = with_co(body);
            let c = sb();
            let fresh = full(reference_verdicts(&m, &c));
            assert!(fresh.len() >= 4, "{body}");
            let (runs, stats) = checked(&m, &[&c, &c], &Tuning::default());
            for vs in runs {
                assert_eq!(judged(vs), judged(reference_verdicts(&m, &c)), "{body}");
            }
            assert_eq!(stats.plans > 0, planned, "{body}");
            assert_eq!(stats.given_up > 0, !planned, "{body}");
        }
    }
    // The bodies test something: between them, branches fail with cycles and raise flags.
    let all: Vec<Full> = PLANNED
        .iter()
        .flat_map(|b| full(reference_verdicts(&with_co(b), &sb())))
        .collect();
    assert!(
        all.iter()
            .any(|v| v.1.as_ref().is_some_and(|f| f.3.is_some()))
    );
    assert!(all.iter().any(|v| v.1.is_none() && v.0.len() > 1));
}

/// Every source each read of the store-buffering candidate may take: read 3 (of y) writes
/// 1, 4; read 5 (of x) writes 0, 2.
const SOURCES: [(usize, [usize; 2]); 2] = [(3, [1, 4]), (5, [0, 2])];

/// Models bounded from below ([`Checker::doomed`]): a partial choice of `rf` is doomed
/// only when every completion of it fails in every branch (the reference says so), and
/// some are.
#[test]
fn partial_rf_choices_are_doomed_only_when_every_completion_fails() {
    let srcs = [
        "M\nempty rf as no-rf\n",
        "M\n~empty rf as some-rf\n~empty F as fences\n",
        "M\nempty po \\ rf as po-in-rf\nacyclic po | rf^-1 as back\n",
        "M\nlet fr = (rf^-1 ; co) \\ id\nacyclic po | rf | fr as sc\n",
        "M\nempty different-values(rf) as same\n",
        "M\nwith x from {po, po | loc}\nempty x & rf as nothing\n",
        "M\nwith x from {po, po | rf}\nempty x as nothing\n",
        "M\nlet rec h = rf | (h ; po ; h)\nirreflexive h ; po as cyc\n",
        "M\nlet map f = let rec m s = match s with || {} -> {} || e ++ r -> f e ++ m r end in m\n\
         include \"colib.cat\"\nwith co from coherence-orders(W, rf ; po ; rf^-1)\n\
         let fr = (rf^-1 ; co) \\ id\nacyclic co | fr | po as sc\n",
    ];
    let with_rf = |pairs: Vec<(usize, usize)>| {
        let mut c = sb();
        c.rels.retain(|(k, _)| *k != "rf");
        c.rels.push(("rf", pairs));
        c
    };
    // Each read: no source yet, or one of its two.
    let pick = |k: usize| -> Vec<(usize, usize)> {
        SOURCES
            .iter()
            .enumerate()
            .filter_map(|(i, &(r, ws))| match (k / 3usize.pow(i as u32)) % 3 {
                0 => None,
                j => Some((ws[j - 1], r)),
            })
            .collect()
    };
    let (mut doomed, mut kept) = (0, 0);
    for src in srcs {
        let m = model(src, &[]);
        let checker = Checker::new(&m, &Tuning::default());
        for k in 0..9 {
            let partial = pick(k);
            let c = with_rf(partial.clone());
            let d = checker.doomed(&c.prims(), &[], &Budget::unlimited());
            if d {
                // Every completion, every branch: a failure.
                for full in (0..9).map(pick).filter(|f| f.len() == 2) {
                    if partial.iter().all(|e| full.contains(e)) {
                        let vs = reference_verdicts(&m, &with_rf(full.clone()));
                        assert!(
                            vs.iter().all(|v| v.failed.is_some()),
                            "{src} {partial:?} {full:?}"
                        );
                    }
                }
            }
            doomed += d as usize;
            kept += !d as usize;
        }
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

/// The candidates of one shape run from one plan of the whole model (`rf` staged; the
/// coherence orders a step, built and cut natively) give the reference's verdicts; with a
/// condition or a choice over `rf`, there is no plan.
#[test]
fn candidates_of_a_shape_run_from_a_plan_give_what_the_reference_gives() {
    let rf_bodies = [
        "let obs = rf | (po ; rf^-1)\nacyclic obs | co as obs\nflag ~empty rf & int as rfi\n",
        "let rfe = rf & ext\nlet hb = (po | rfe | co | fr)+\nirreflexive hb as hb\n",
        "let rec hb = po | (rf & ext) | co | fr | (hb ; hb)\nirreflexive hb as hb\n",
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
        let cs = sb_rfs();
        let all: Vec<&Cand> = cs.iter().chain(&cs).collect();
        let (runs, stats) = checked(&m, &all, &Tuning::default());
        for (c, vs) in all.iter().zip(runs) {
            assert_eq!(judged(vs), judged(reference_verdicts(&m, c)), "{body}");
        }
        assert_eq!(stats.plans == 1, planned, "{body}");
    }
}
