//! Behaviour of the model's evaluation on small hand-built candidates: every verdict of
//! the fast path is checked against the reference evaluator's.

use super::*;
use crate::rel::{Rel, Set};
use crate::sem::{Kind, Symbols, Value as Val};

mod plans;

/// Store buffering: IW x (0), IW y (1); P0: W x=1 (2), R y=0 (3); P1: W y=1 (4), R x=0 (5).
struct Cand {
    events: Vec<EventInfo>,
    symbols: Symbols,
    sets: Vec<(&'static str, Vec<usize>)>,
    rels: Vec<(&'static str, Vec<(usize, usize)>)>,
}

fn ev(proc: Option<u32>, kind: Kind, loc: u32, val: i64, tags: &[&str]) -> EventInfo {
    EventInfo {
        proc,
        kind,
        loc: Some(Val::Addr(crate::sem::LocId(loc))),
        val: Some(Val::Int(val)),
        tags: tags.iter().map(|t| t.to_string()).collect(),
    }
}

fn sb() -> Cand {
    let mut symbols = Symbols::default();
    symbols.intern("x");
    symbols.intern("y");
    let events = vec![
        ev(None, Kind::Write, 0, 0, &[]),
        ev(None, Kind::Write, 1, 0, &[]),
        ev(Some(0), Kind::Write, 0, 1, &[]),
        ev(Some(0), Kind::Read, 1, 0, &[]),
        ev(Some(1), Kind::Write, 1, 1, &["wmb"]),
        ev(Some(1), Kind::Read, 0, 0, &[]),
    ];
    Cand {
        events,
        symbols,
        sets: vec![
            ("W", vec![0, 1, 2, 4]),
            ("R", vec![3, 5]),
            ("M", vec![0, 1, 2, 3, 4, 5]),
            ("IW", vec![0, 1]),
            ("wmb", vec![4]),
        ],
        rels: vec![
            ("po", vec![(2, 3), (4, 5)]),
            ("rf", vec![(1, 3), (0, 5)]),
            ("co", vec![(0, 2), (1, 4)]),
            (
                "loc",
                vec![
                    (0, 0),
                    (0, 2),
                    (0, 5),
                    (2, 0),
                    (2, 2),
                    (2, 5),
                    (5, 0),
                    (5, 2),
                    (5, 5),
                    (1, 1),
                    (1, 3),
                    (1, 4),
                    (3, 1),
                    (3, 3),
                    (3, 4),
                    (4, 1),
                    (4, 3),
                    (4, 4),
                ],
            ),
            (
                "int",
                vec![
                    (2, 3),
                    (3, 2),
                    (4, 5),
                    (5, 4),
                    (2, 2),
                    (3, 3),
                    (4, 4),
                    (5, 5),
                ],
            ),
            ("id", (0..6).map(|i| (i, i)).collect()),
        ],
    }
}

impl Cand {
    fn prims(&self) -> Primitives<'_> {
        let n = self.events.len();
        Primitives {
            n,
            events: &self.events,
            symbols: &self.symbols,
            sets: self
                .sets
                .iter()
                .map(|(k, v)| (k.to_string(), Set::from_iter(n, v.iter().copied())))
                .collect(),
            rels: self
                .rels
                .iter()
                .map(|(k, v)| (k.to_string(), Rel::from_pairs(n, v.iter().copied())))
                .collect(),
        }
    }
}

const STDLIB: &str = "stdlib\nlet fencerel(B) = (po & (_ * B)) ; po\nlet fr = (rf^-1 ; co) \\ id\n";

fn model(src: &str, variants: &[&str]) -> Model {
    model_res(src, variants).unwrap_or_else(|e| panic!("{e}"))
}

fn model_res(src: &str, variants: &[&str]) -> Result<Model, CatError> {
    // One directory per model: tests run in parallel.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("litmus-cat-test-{}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("stdlib.cat"), STDLIB).unwrap();
    let opts = ModelOptions {
        cat: "test.cat".into(),
        bell: None,
        variants: variants.iter().map(|v| v.to_string()).collect(),
        include_dirs: vec![dir.clone()],
        ..Default::default()
    };
    // The model is loaded here, once: the folder is not needed afterwards.
    let m = Model::from_source(src, &opts);
    let _ = std::fs::remove_dir_all(&dir);
    m
}

/// The verdicts of `m` on `c`, checked against the reference evaluator's: the same
/// consistent branches (flags, final `co` and `rf`), and a failure exactly where it fails
/// every branch. (The fast path reports orders it prunes as one failure, so only the
/// consistent branches are compared one by one.)
fn verdicts(m: &Model, c: &Cand) -> Vec<Verdict> {
    let mut out = Vec::new();
    m.run(&c.prims(), &mut |v| {
        out.push(v);
        true
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let mut reference = Vec::new();
    let budget = Budget::unlimited();
    reference::run(m, &c.prims(), true, &budget, &mut |v| {
        reference.push(v);
        true
    })
    .unwrap_or_else(|e| panic!("reference: {e}"));
    assert_eq!(
        consistent(&out),
        consistent(&reference),
        "fast and reference differ"
    );
    out
}

/// The consistent branches of `vs`, as flags and pairs of `co` and `rf`, sorted.
type Branch = (
    Vec<String>,
    Option<Vec<(usize, usize)>>,
    Option<Vec<(usize, usize)>>,
);

fn consistent(vs: &[Verdict]) -> Vec<Branch> {
    let pairs = |r: &Option<Rel>| r.as_ref().map(|r| r.pairs().collect());
    let mut out: Vec<Branch> = vs
        .iter()
        .filter(|v| v.failed.is_none())
        .map(|v| (v.flags.clone(), pairs(&v.co), pairs(&v.rf)))
        .collect();
    out.sort();
    out
}

/// The relation a model binds to `co` at the end of its single branch.
fn co_of(src: &str) -> Vec<(usize, usize)> {
    let c = sb();
    let vs = verdicts(&model(src, &[]), &c);
    assert_eq!(vs.len(), 1);
    assert!(vs[0].failed.is_none(), "{:?}", vs[0].failed);
    vs[0].co.as_ref().unwrap().pairs().collect()
}

#[test]
fn sc_forbids_store_buffering_with_a_cycle() {
    let m = model("SC\nlet com = rf | co | fr\nacyclic po | com as sc\n", &[]);
    let vs = verdicts(&m, &sb());
    let f = vs[0].failed.as_ref().expect("SB is not SC");
    assert_eq!(
        (f.kind, f.negated, f.name.as_str()),
        (CheckKind::Acyclic, false, "sc")
    );
    let cyc = f.cycle.as_ref().unwrap();
    assert!(cyc.len() >= 2 && cyc.contains(&2) && cyc.contains(&4));
    assert_eq!(vs[0].rf.as_ref().unwrap().len(), 2);
}

#[test]
fn unnamed_check_is_named_by_its_text() {
    let m = model("acyclic po | rf | co | fr\n", &[]);
    let vs = verdicts(&m, &sb());
    assert_eq!(vs[0].failed.as_ref().unwrap().name, "po | rf | co | fr");
}

#[test]
fn tso_allows_store_buffering() {
    let m = model(
        "let ppo = po \\ (W * R)\nacyclic ppo | rf & ~int | co | fr as tso\n",
        &[],
    );
    assert!(verdicts(&m, &sb())[0].failed.is_none());
}

#[test]
fn operators() {
    assert_eq!(co_of("let co = po ; po^-1"), vec![(2, 2), (4, 4)]);
    assert_eq!(co_of("let co = [W] ; po ; [R]"), vec![(2, 3), (4, 5)]);
    assert_eq!(
        co_of("let co = (po | rf) & (_ * R) \\ rf"),
        vec![(2, 3), (4, 5)]
    );
    assert_eq!(co_of("let co = IW * (W \\ IW) & loc"), vec![(0, 2), (1, 4)]);
    assert_eq!(co_of("let co = (rf ; po^-1)+ \\ rf ; 0"), vec![]);
    assert_eq!(co_of("let co = (rf ; po^-1)^+"), vec![(0, 4), (1, 2)]);
    assert_eq!(co_of("let co = po? & ~id & po*"), vec![(2, 3), (4, 5)]);
    assert_eq!(co_of("let co = [~M | IW] ; id"), vec![(0, 0), (1, 1)]);
    assert_eq!(
        co_of("let co = [domain(rf) | range(po)] \\ [R]"),
        vec![(0, 0), (1, 1)]
    );
}

#[test]
fn explicit_sets_and_add() {
    let src = "let co = po | {e}\nacyclic co";
    // `e` is unbound: an error when the model runs, not when it loads.
    assert!(model_res(src, &[]).is_ok());
    let c = sb();
    let err = model(src, &[]).run(&c.prims(), &mut |_| true).unwrap_err();
    assert!(err.msg.contains("unbound var: e"), "{err}");
    assert_eq!(
        co_of(
            "let pick = fun r -> match r with {} -> 0 || p ++ rest -> p ++ 0 end\nlet co = pick(po)"
        ),
        vec![(2, 3)]
    );
}

#[test]
fn recursive_relation_is_a_least_fixpoint() {
    let src = "let r = po | rf\nlet rec t = r | (t ; r)\nlet co = t \\ r+";
    assert_eq!(co_of(src), vec![]);
    let src = "let rec a = po | b and b = (a ; rf^-1) in\nlet co = b";
    assert_eq!(co_of(src), vec![(2, 1), (4, 0)]);
    let src = "let rec a = rf | (a ; b) and b = po\nlet co = a \\ rf";
    assert_eq!(co_of(src), vec![]);
}

#[test]
fn recursive_functions_and_map() {
    let src = "let map f =\n let rec do_map S = match S with\n || {} -> {}\n || e ++ S -> f e ++ do_map S\n end in do_map\n\
               let pair-to-rel p = p ++ 0\nlet rels = map pair-to-rel po\n\
               let rec union_all S = match S with {} -> 0 || r ++ rest -> r | union_all rest end\n\
               let co = union_all rels";
    assert_eq!(co_of(src), vec![(2, 3), (4, 5)]);
}

#[test]
fn tags_enums_match_and_bell_sets() {
    let src = "enum Barriers = 'wmb || 'rmb\ninstructions F[Barriers]\n\
               let f t = match t with 'wmb -> Wmb || _ -> Rmb end\n\
               let co = [f('wmb)] ; po | [f('rmb)]\n\
               flag ~empty Wmb as has-wmb\nflag ~empty Rmb as has-rmb\n\
               let co = co | (if 'rmb in ~{'wmb} then 0 else po)";
    let c = sb();
    let vs = verdicts(&model(src, &[]), &c);
    assert_eq!(vs[0].flags, vec!["has-wmb".to_string()]);
    assert_eq!(
        vs[0].co.as_ref().unwrap().pairs().collect::<Vec<_>>(),
        vec![(4, 5)]
    );
}

#[test]
fn try_variants_and_conditions() {
    assert_eq!(
        co_of("let co = try nosuchname with po"),
        vec![(2, 3), (4, 5)]
    );
    let src = "if \"mine\" && not \"other\" let co = po else let co = 0 end";
    let c = sb();
    let on = verdicts(&model(src, &["Mine"]), &c);
    assert_eq!(on[0].co.as_ref().unwrap().len(), 2);
    let off = verdicts(&model(src, &[]), &c);
    assert_eq!(off[0].co.as_ref().unwrap().len(), 0);
    assert_eq!(
        co_of("let co = if \"x\" then 0 else if po subset rf then 0 else po & (W * R)"),
        vec![(2, 3), (4, 5)]
    );
}

#[test]
fn with_from_runs_the_rest_once_per_choice() {
    // Two co orders per location → four branches; the SC check rejects some.
    let src = "enum Locs = 'x || 'y\nlet pairs = linearisations(W & loc2events('x), 0)\n\
               with cox from pairs\nwith coy from linearisations(W \\ loc2events('x), 0)\n\
               let co = cox | coy\nlet fr = (rf^-1 ; co) \\ id\n\
               acyclic co | rf | fr | po as sc";
    let c = sb();
    let m = model(src, &[]);
    let vs = verdicts(&m, &c);
    assert_eq!(vs.len(), 4);
    // Only the branch where both initial writes come first in co has the SB cycle.
    assert_eq!(vs.iter().filter(|v| v.failed.is_some()).count(), 1);
    let cos: Vec<_> = vs.iter().map(|v| v.co.clone().unwrap()).collect();
    assert!(cos.iter().all(|r| r.len() == 2));
    // Stop after the first branch when asked to.
    let mut n = 0;
    m.run(&c.prims(), &mut |_| {
        n += 1;
        false
    })
    .unwrap();
    assert_eq!(n, 1);
}

#[test]
fn procedures_forall_and_failures() {
    let src = "procedure cons(r) = acyclic r as inner end\n\
               enum Dirs = 'a || 'b\n\
               forall d in Dirs do let seen = d end\n\
               call cons(po)\nlet co = po\n\
               undefined_unless empty rf\ncall cons(po | po^-1)";
    let vs = verdicts(&model(src, &[]), &sb());
    assert_eq!(vs.len(), 1);
    assert_eq!(vs[0].flags, vec!["*undef*".to_string()]);
    assert_eq!(vs[0].failed.as_ref().unwrap().name, "inner");
}

#[test]
fn parse_errors_have_positions() {
    let e = model_res("let x = po |\nacyclic x", &[]).err().unwrap();
    assert_eq!((e.line, e.col), (2, 1), "{e}");
    assert!(e.msg.contains("expected an expression"), "{e}");
    let e = model_res("let x = (po", &[]).err().unwrap();
    assert!(e.msg.contains("')'"), "{e}");
}

#[test]
fn cfg_files() {
    let dir = std::env::temp_dir().join(format!("litmus-cfg-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("m.cfg");
    std::fs::write(
        &p,
        "# comment\nmacros m.def\nbell m.bell\nmodel m.cat\nvariant a,b\ngraph columns\n",
    )
    .unwrap();
    let (o, macros) = load_cfg(&p).unwrap();
    assert_eq!(
        (o.cat.as_str(), o.bell.as_deref(), macros.as_deref()),
        ("m.cat", Some("m.bell"), Some("m.def"))
    );
    assert_eq!(o.variants, vec!["a", "b"]);
    assert!(o.include_dirs.contains(&dir));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `co`s of the branches that pass, and how many branches failed.
/// Runs `m` on each of `cs` in turn, through one [`Checker`] (the candidates having one
/// shape: one plan), collecting each candidate's verdicts; and what the fast paths did.
fn checked(m: &Model, cs: &[&Cand], tuning: &Tuning) -> (Vec<Vec<Verdict>>, Stats) {
    let checker = Checker::new(m, tuning);
    let out = cs
        .iter()
        .map(|c| {
            let mut out = Vec::new();
            checker
                .verdicts(&c.prims(), &[], true, &Budget::unlimited(), &mut |v| {
                    out.push(v);
                    true
                })
                .unwrap_or_else(|e| panic!("{e}"));
            out
        })
        .collect();
    (out, checker.stats())
}

/// The coherence orders passing `src` on the store-buffering candidate, and how many
/// failures were reported, as the plan of the candidate's shape judges them (its lower
/// bounds drop orders before the product is walked).
fn passing_cos(src: &str) -> (Vec<Vec<(usize, usize)>>, usize) {
    let m = model(src, &[]);
    let c = sb();
    verdicts(&m, &c);
    let (mut runs, stats) = checked(&m, &[&c], &Tuning::default());
    assert_eq!(stats.plans, 1, "{src}");
    let vs = runs.remove(0);
    let mut ok: Vec<Vec<(usize, usize)>> = vs
        .iter()
        .filter(|v| v.failed.is_none())
        .map(|v| v.co.as_ref().unwrap().pairs().collect())
        .collect();
    ok.sort();
    (ok, vs.iter().filter(|v| v.failed.is_some()).count())
}

#[test]
fn native_coherence_orders_match_the_interpreted_ones() {
    // The same product, through colib.cat (native, pruned) and through an interpreted copy.
    let body = "let po-loc = (loc & ((W \\ IW) * IW)) | (po & loc)\n\
                with co from ORDERS\nlet fr = (rf^-1 ; co) \\ id\n\
                acyclic po-loc | rf | co | fr as uniproc\nacyclic po | rf | co | fr as sc";
    let map =
        "let map f = let rec m s = match s with || {} -> {} || e ++ r -> f e ++ m r end in m\n";
    let native = format!(
        "{map}include \"colib.cat\"\n{}",
        body.replace("ORDERS", "coherence-orders(W, 0)")
    );
    let copy = "let rec all-of s = match s with || {} -> {} || x ++ xs -> x | all-of xs end\n\
                let rec each a = match a with || {} -> { 0 } || c ++ cs ->\n\
                  let t = each cs in all-of (map (fun r -> map (fun u -> r | u) t) c) end\n";
    let interpreted = format!(
        "{map}{copy}{}",
        body.replace(
            "ORDERS",
            "each (map (fun ws -> linearisations(ws, 0)) (classes-loc W))"
        )
    );
    let (ok_n, failed_n) = passing_cos(&native);
    let (ok_i, failed_i) = passing_cos(&interpreted);
    assert_eq!(ok_n, ok_i);
    // Every order putting an initial write last fails uniproc: the guard drops them all
    // before the branches run, one failure standing for them, whether the orders are
    // built natively or come as a set the model built.
    assert_eq!((failed_n, failed_i), (1, 1));
    assert_eq!(ok_n.len(), 1);
    // The reference reports each of them.
    let m = model(&interpreted, &[]);
    let mut failed = 0;
    let budget = Budget::unlimited();
    reference::run(&m, &sb().prims(), false, &budget, &mut |v| {
        failed += v.failed.is_some() as usize;
        true
    })
    .unwrap();
    assert_eq!(failed, 3);
}

#[test]
fn candidates_of_one_shape_share_a_plan_and_keep_their_own_rf() {
    // `ppo` does not depend on rf and is computed when the plan is made; `com` and `obs`
    // do, and are nodes each candidate computes again.
    let src = "M\nlet ppo = po \\ (W * R)\nlet com = rf | co | fr\nlet obs = rf ; ppo\n\
               acyclic po as order\nacyclic ppo | com as tso\nempty obs \\ (rf ; po) as obs\n";
    let m = model(src, &[]);
    let sb_sc = {
        let mut c = sb();
        // P1 reads x=1 from P0: the SB cycle is broken.
        c.rels[1].1 = vec![(1, 3), (2, 5)];
        c
    };
    let cs = [&sb(), &sb_sc, &sb()];
    let (runs, stats) = checked(&m, &cs, &Tuning::default());
    for (c, vs) in cs.iter().zip(runs) {
        let fresh: Vec<_> = verdicts(&m, c)
            .into_iter()
            .map(|v| v.failed.map(|f| f.name))
            .collect();
        let shared: Vec<_> = vs.into_iter().map(|v| v.failed.map(|f| f.name)).collect();
        assert_eq!(fresh, shared);
    }
    assert_eq!((stats.plans, stats.planned), (1, 3));
}

/// Each branch's flags (sorted), failed check and coherence order: what a branch that
/// shares values with others must give as a run sharing nothing does.
type BranchOutcome = (Vec<String>, Option<String>, Option<Rel>);

/// The branches' outcomes, sorted: the plans walk coherence orders pick by pick, the
/// reference in the order of the set it builds.
fn branch_outcomes(vs: Vec<Verdict>) -> Vec<BranchOutcome> {
    let mut out: Vec<BranchOutcome> = vs
        .into_iter()
        .map(|v| {
            let mut flags = v.flags;
            flags.sort();
            (flags, v.failed.map(|f| f.name), v.co)
        })
        .collect();
    out.sort_by_key(|o| format!("{o:?}"));
    out
}

/// How many of the branches raise flag `name`.
fn raising(outcomes: &[BranchOutcome], name: &str) -> usize {
    outcomes
        .iter()
        .filter(|(f, ..)| f.iter().any(|x| x == name))
        .count()
}

/// Every verdict of the reference evaluator on `c`.
fn reference_verdicts(m: &Model, c: &Cand) -> Vec<Verdict> {
    let mut out = Vec::new();
    reference::run(m, &c.prims(), true, &Budget::unlimited(), &mut |v| {
        out.push(v);
        true
    })
    .unwrap_or_else(|e| panic!("{e}"));
    out
}

#[test]
fn with_branches_compute_again_only_the_values_that_read_their_variable() {
    // Four branches (two orders of x's writes, then two of y's). `bx` reads `cox` only, so
    // the branches of `coy` keep it (its node's level is `cox`'s); `early` is empty as
    // `none` is; `late`, `byf` (through a function) and `both` read the latest variable
    // and are computed again in every branch. Each branch's flags and checks are the
    // reference's.
    let src = "enum Locs = 'x || 'y\nlet none = [F]\nlet f r = r ; [IW]\n\
               with cox from linearisations(W & loc2events('x), 0)\n\
               let bx = cox ; [IW]\n\
               with coy from linearisations(W \\ loc2events('x), 0)\n\
               let early = coy ; none\nlet late = coy ; [IW]\nlet byf = f(coy)\n\
               let both = bx | late\nlet co = cox | coy\n\
               flag ~empty bx as bx\nflag ~empty late as late\nflag ~empty byf as byf\n\
               flag ~empty early as early\nflag ~empty both as both\n\
               acyclic co | rf | ((rf^-1 ; co) \\ id) | po as sc";
    let m = model(src, &[]);
    let fresh = branch_outcomes(reference_verdicts(&m, &sb()));
    assert_eq!(fresh.len(), 4);
    // The flags differ between branches: each must be its own branch's.
    for flag in ["bx", "late"] {
        assert!((1..fresh.len()).contains(&raising(&fresh, flag)), "{flag}");
    }
    assert_eq!(raising(&fresh, "early"), 0);
    let c = sb();
    let (runs, _) = checked(&m, &[&c, &c], &Tuning::default());
    for vs in runs {
        assert_eq!(branch_outcomes(vs), fresh);
    }
}

#[test]
fn a_let_rec_over_a_with_variable_is_iterated_in_each_branch() {
    // `quiet` is computed when the plan is made (it reads nothing staged); `reach` is
    // `cox`'s closure, a fixpoint node iterated again in each branch, whose flags must be
    // its own (some orders put an x write before x's initial write).
    let src = "enum Locs = 'x || 'y\nlet none = [F]\n\
               with cox from linearisations(W & loc2events('x), 0)\n\
               let rec quiet = none | (quiet ; po)\n\
               let rec reach = cox | (reach ; reach)\n\
               let late = reach ; [IW]\n\
               flag ~empty quiet as quiet\nflag ~empty late as late\n\
               acyclic reach as order";
    let m = model(src, &[]);
    let fresh = branch_outcomes(reference_verdicts(&m, &sb()));
    assert!(fresh.len() > 1);
    assert!((1..fresh.len()).contains(&raising(&fresh, "late")));
    assert_eq!(raising(&fresh, "quiet"), 0);
    let c = sb();
    let (runs, stats) = checked(&m, &[&c, &c], &Tuning::default());
    assert_eq!(
        stats.plans, 1,
        "the fixpoint over a `with` variable is a node"
    );
    for vs in runs {
        assert_eq!(branch_outcomes(vs), fresh);
    }
}

#[test]
fn values_naming_rf_are_computed_per_candidate_of_the_shape() {
    // `locked` names rf, but there is no `F` event: the sequence is empty whatever rf is.
    // `com` reads rf. The verdicts are those of fresh runs.
    let src = "M\nlet locked = po; [F]; (po | rf)\nlet com = rf | co | fr\n\
               acyclic locked | po | com as sc\n";
    let m = model(src, &[]);
    let sb_sc = {
        let mut c = sb();
        c.rels[1].1 = vec![(1, 3), (2, 5)];
        c
    };
    let failed =
        |vs: Vec<Verdict>| -> Vec<_> { vs.into_iter().map(|v| v.failed.map(|f| f.name)).collect() };
    let cs = [&sb(), &sb_sc, &sb()];
    let (runs, _) = checked(&m, &cs, &Tuning::default());
    for (c, vs) in cs.iter().zip(runs) {
        assert_eq!(failed(verdicts(&m, c)), failed(vs));
    }
}

#[test]
fn orders_failing_a_later_check_are_dropped_before_the_product() {
    // `iw-first` fails for the x order 2 < 0 and the y order 4 < 1, whatever the other
    // location's order: both are dropped before the product is walked. Behind a double
    // complement (not monotone) the same check cannot be bounded and every branch runs.
    let src = "let map f = let rec m s = match s with || {} -> {} || e ++ r -> f e ++ m r end in m\n\
               include \"colib.cat\"\nwith co from coherence-orders(W, 0)\n\
               let late = co & ((W \\ IW) * IW)\nempty CHECK as iw-first\n";
    let (ok_pruned, failed_pruned) = passing_cos(&src.replace("CHECK", "late"));
    let (ok_all, failed_all) = passing_cos(&src.replace("CHECK", "~(~late)"));
    assert_eq!(ok_pruned, ok_all);
    assert_eq!(ok_all, vec![vec![(0, 2), (1, 4)]]);
    assert_eq!(failed_all, 3);
    // One failure stands for every dropped branch.
    assert_eq!(failed_pruned, 1);
}

#[test]
fn a_bound_that_may_be_the_universe_is_not_composed() {
    // `co | ~(co & {})` is `_`, the universal relation in a sequence (herd's): the check
    // holds in every branch, so no order may be dropped although `[IW]; co; [W \ IW]`
    // alone is never empty.
    let src = "let map f = let rec m s = match s with || {} -> {} || e ++ r -> f e ++ m r end in m\n\
               include \"colib.cat\"\nwith co from coherence-orders(W, 0)\n\
               let all = co | ~(co & {})\n\
               empty ([IW]; all; [W \\ IW]) \\ (IW * W) as skipped\n";
    let (ok, failed) = passing_cos(src);
    assert_eq!((ok.len(), failed), (4, 0));
}

#[test]
fn stored_trees_of_the_shipped_files_are_the_parsed_ones() {
    use super::{ast, library, parse};
    let mut seen = 0;
    for (name, text) in library::FILES {
        let Some(bytes) = library::parsed(name) else {
            assert!(
                !name.ends_with(".cat") && !name.ends_with(".bell"),
                "{name}"
            );
            continue;
        };
        let mut fresh = parse::Names::default();
        let want = parse::parse(text, 3, &mut fresh).unwrap();
        let (syms, tree): (Vec<String>, &[u8]) = postcard::take_from_bytes(bytes).unwrap();
        let mut names = parse::Names::default();
        let syms = syms.iter().map(|s| names.intern(s)).collect();
        let got: ast::Program = ast::relocated(syms, 3, || postcard::from_bytes(tree)).unwrap();
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{name}");
        assert_eq!(names.len(), fresh.len(), "{name}");
        seen += 1;
    }
    assert!(seen >= 10, "only {seen} shipped cat/bell files");
}

#[test]
fn a_po_rf_cycle_guard_is_read_from_the_model() {
    let guarded = |src: &str| model(src, &[]).rejects_po_rf_cycles();
    // SC per location, with `po-loc` and `com` bound as the libraries do.
    assert!(guarded(
        "let po-loc = po & loc\nlet com = rf | co | fr\nacyclic po-loc | com as sc"
    ));
    // A superset of the primitive `rf` still contains it.
    assert!(guarded(
        "let po-loc = loc & po\nlet rf = rf | (co \\ co)\nacyclic (po-loc | rf)+ \\ id"
    ));
    // `rf` narrowed, a flag, a negated check, `po-loc` never bound to `po & loc`: no guard.
    assert!(!guarded(
        "let po-loc = po & loc\nlet rf = rf & ext\nacyclic po-loc | rf"
    ));
    assert!(!guarded(
        "let po-loc = po & loc\nflag ~acyclic po-loc | rf as f"
    ));
    assert!(!guarded("let po-loc = po & loc\n~acyclic po-loc | rf"));
    assert!(!guarded("let po-loc = po\nacyclic po-loc | rf"));
}

/// A model bounded from below ([`Checker::doomed`]) condemns a partial `rf` only when a
/// check fails in every candidate containing it: a non-negated check failing on the edges
/// chosen, or an exact one failing; never a negated check on what may still grow, nor a
/// difference with something that varies.
#[test]
fn a_partial_rf_is_doomed_only_by_a_check_that_fails_in_every_completion() {
    let with_rf = |pairs: Vec<(usize, usize)>| {
        let mut c = sb();
        c.rels.retain(|(k, _)| *k != "rf");
        c.rels.push(("rf", pairs));
        c
    };
    let (some, none) = (with_rf(vec![(1, 3)]), with_rf(vec![]));
    let doomed = |src: &str, c: &Cand| {
        Checker::new(&model(src, &[]), &Tuning::default()).doomed(
            &c.prims(),
            &[],
            &Budget::unlimited(),
        )
    };
    // Grows with rf: fails as soon as an edge is chosen.
    assert!(doomed("M\nempty rf as no-rf\n", &some));
    assert!(!doomed("M\nempty rf as no-rf\n", &none));
    // Negated, on what may still grow: never settled from below.
    assert!(!doomed("M\n~empty rf as some-rf\n", &none));
    assert!(!doomed("M\n~empty rf as some-rf\n", &some));
    // Negated and exact: settled either way.
    assert!(!doomed("M\n~empty W as writes\n", &none));
    assert!(doomed("M\n~empty F as fences\n", &none));
    // A difference with what varies is nothing from below.
    assert!(!doomed("M\nempty po \\ rf as po-in-rf\n", &some));
    // A `with` binds what all its choices contain; choices that vary give the plan up.
    assert!(doomed(
        "M\nwith x from {po, po | loc}\nempty x as nothing\n",
        &none
    ));
    assert!(!doomed(
        "M\nwith x from {po, int \\ po}\nempty x as nothing\n",
        &none
    ));
    assert!(!doomed(
        "M\nwith x from {po, po | rf}\nempty x as nothing\n",
        &some
    ));
}

#[test]
fn checks_and_flags_after_a_with_over_orders_are_judged_per_branch() {
    // Four branches (two orders per location). `quiet` and the flag `never` hold in every
    // branch; `sc` and the flag `iw-first` differ between orders; `gaps` (the pairs of
    // writes against `co`) and `against` (the same through a function) are raised by each
    // branch. The flag in `twice` is met twice. With `as_transitive`, a native function of
    // `co`, the same. A run through a shape's cache with plans off gives what a run sharing
    // nothing gives.
    let src = "let map f = let rec m s = match s with || {} -> {} || e ++ r -> f e ++ m r end in m\n\
               include \"colib.cat\"\nwith co from coherence-orders(W, 0)\n\
               let fr = (rf^-1 ; co) \\ id\nlet never = po ; NEVER\n\
               let gaps = (((W * W) & loc) \\ id) \\ co\n\
               flag ~empty never as never\nflag ~empty [IW] ; co as iw-first\n\
               flag ~empty gaps as gaps\nirreflexive never as quiet\n\
               let against(r) = (((W * W) & loc) \\ id) \\ r\n\
               flag ~empty against(co) as against\n\
               procedure twice(r) = flag ~empty r as twice end\n\
               call twice(po ; co)\ncall twice([IW] ; co)\n\
               acyclic po | rf | co | fr as sc\n";
    for never in ["co", "as_transitive(co)"] {
        let m = model(&src.replace("NEVER", never), &[]);
        let fresh = branch_outcomes(verdicts(&m, &sb()));
        assert_eq!(fresh.len(), 4);
        assert!((1..4).contains(&raising(&fresh, "iw-first")));
        assert_eq!(raising(&fresh, "twice"), raising(&fresh, "iw-first"));
        assert!((1..4).contains(&fresh.iter().filter(|o| o.1.is_some()).count()));
        assert_eq!(raising(&fresh, "never"), 0);
        assert_eq!(raising(&fresh, "gaps"), 4);
        assert_eq!(raising(&fresh, "against"), 4);
        // Plans off: the reference evaluator judges every candidate, the same way.
        let c = sb();
        let (runs, stats) = checked(&m, &[&c, &c], &Tuning::reference());
        assert_eq!((stats.plans, stats.referenced), (0, 2));
        for vs in runs {
            assert_eq!(branch_outcomes(vs), fresh);
        }
    }
}

/// The run's error for `src` on the store-buffering candidate under `budget`.
fn run_error(src: &str, budget: &Budget) -> CatError {
    let m = model(src, &[]);
    let c = sb();
    Checker::new(&m, &Tuning::default())
        .verdicts(&c.prims(), &[], true, budget, &mut |_| true)
        .expect_err(src)
}

#[test]
fn unbounded_recursion_is_a_located_error_that_try_does_not_catch() {
    // On a stack as deep as the binary's workers' (test threads have 2 MiB).
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(recursion_errors)
        .unwrap()
        .join()
        .unwrap();
}

fn recursion_errors() {
    let err = run_error(
        "M\nlet rec f s = f (s | s)\nlet x = try f po with po\nacyclic x as a\n",
        &Budget::unlimited(),
    );
    assert_eq!(err.fatal, Some(Fatal::TooDeep));
    assert_eq!((err.line, err.col), (2, 15), "{err}");
    let err = run_error(
        "M\nprocedure rec p(s) = call p(s | s) end\ncall p(po)\n",
        &Budget::unlimited(),
    );
    assert_eq!(err.fatal, Some(Fatal::TooDeep));
    assert_eq!(err.line, 2, "{err}");
}

#[test]
fn a_spent_budget_stops_the_run_whatever_try_says() {
    let spent = Budget::new(Some(std::time::Duration::ZERO), None);
    for src in [
        "M\nlet f s = s | po\nlet x = try f po with po\nacyclic x as a\n",
        "M\nlet rec a = a | po\nacyclic a as a\n",
        "M\nwith x from {po, po^-1}\nacyclic x as a\n",
        "M\nprocedure p(s) = acyclic s as a end\ncall p(po)\n",
        "include \"colib.cat\"\nwith co from coherence-orders(W, 0)\nacyclic co as a\n",
    ] {
        let err = run_error(src, &spent);
        assert!(
            matches!(err.fatal, Some(Fatal::Exhausted(_))),
            "{src}: {err}"
        );
    }
}
