//! The reference evaluator (`cat::reference`, `check --reference`) against the fast paths:
//! - on our suite (`litmus/`), herd block by herd block (the `Time` line left out);
//! - on generated cat models (proptest: every operator, `let rec`, `with ... from`, `try`,
//!   `match`, `if variant`, functions, procedures, checks and flags), judged on small
//!   litmus tests, answer by answer, by default, with plans alone and with every fast path
//!   forced; a failure shrinks to a minimal model, kept below as a
//!   regression test.

mod common;
use common::{answer, root, suite};

use litmus::budget::Budget;
use litmus::cat::{Model, ModelOptions};
use litmus::judge::{self, Judgement, Options};
use litmus::litmus::{ast::Test, parse};
use litmus::report::herd;
use litmus::tuning::Tuning;
use proptest::prelude::*;
use std::time::Duration;

/// Tests whose default run (fast interpreter, every enumeration shortcut off) judges more
/// candidates than this are left out of the suite comparison: the reference also
/// interprets their coherence orders one by one, and takes minutes.
const SUITE_CANDIDATES: usize = 2_000;

fn block(t: &Test, j: &Judgement) -> String {
    let b = herd::block(t, j);
    b.lines()
        .filter(|l| !l.starts_with("Time "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Compares the reference with the default on the suite's tests of one architecture.
fn suite_agrees(arch: &str) {
    let (mut compared, mut skipped, mut diffs) = (0, Vec::new(), Vec::new());
    for (f, t, m) in suite().filter(|(f, _, _)| f.to_string_lossy().contains(&format!("/{arch}/")))
    {
        let rel = f.strip_prefix(root()).unwrap().display().to_string();
        let run = |o: Options| judge::run(&t, &m.model, m.macros.as_ref(), &o);
        let fast = run(Options::default()).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let plain = Options {
            tuning: Tuning {
                bound_min: 0,
                doomed_min: 0,
                symmetry: false,
                ..Tuning::default()
            },
            ..Options::default()
        };
        let size = run(plain)
            .unwrap_or_else(|e| panic!("{rel}: {e}"))
            .stats
            .candidates;
        if size > SUITE_CANDIDATES {
            skipped.push(format!("{rel} ({size} candidates)"));
            continue;
        }
        let reference =
            run(Options::default().reference()).unwrap_or_else(|e| panic!("{rel}: {e}"));
        compared += 1;
        if block(&t, &fast) != block(&t, &reference) {
            diffs.push(format!(
                "{rel}:\ndefault:\n{}\nreference:\n{}",
                block(&t, &fast),
                block(&t, &reference)
            ));
        }
    }
    eprintln!("{arch}: {compared} tests compared; left out (too big): {skipped:?}");
    assert!(compared >= 10, "{arch}: only {compared} tests compared");
    assert!(
        diffs.is_empty(),
        "reference and default differ:\n{}",
        diffs.join("\n")
    );
}

#[test]
fn suite_c() {
    suite_agrees("C");
}

#[test]
fn suite_x86() {
    suite_agrees("X86");
}

#[test]
fn suite_aarch64() {
    suite_agrees("AArch64");
}

#[test]
fn suite_ppc() {
    suite_agrees("PPC");
}

// ---------- generated models ----------

/// Small tests the generated models judge: two to four threads, plain and locked
/// accesses, fences.
fn programs() -> Vec<Test> {
    [
        "SB.litmus",
        "MP.litmus",
        "SB+xchgs.litmus",
        "IRIW.litmus",
        "R+po+mfence.litmus",
    ]
    .iter()
    .map(|f| {
        let text = std::fs::read_to_string(root().join("litmus/classic/X86").join(f));
        parse(&text.unwrap()).unwrap()
    })
    .collect()
}

/// What judging gives, for comparison: an answer, an error, or a spent budget (`None`).
fn outcome(
    t: &Test,
    m: &Model,
    o: Options,
) -> Option<Result<impl PartialEq + std::fmt::Debug, ()>> {
    let o = Options {
        budget: Budget::new(Some(Duration::from_secs(20)), None),
        ..o
    };
    match judge::run(t, m, None, &o) {
        Ok(j) => Some(Ok(answer(&j))),
        Err(e) if e.exhausted.is_some() => None,
        Err(_) => Some(Err(())),
    }
}

/// Judges `model` on every program with the reference, the default options, plans alone
/// (bounds, doomed choices and symmetry off) and every fast path forced
/// (`Tuning::eager`); the first disagreement.
fn disagreement(model: &str) -> Option<String> {
    let opts = ModelOptions {
        cat: "generated.cat".into(),
        ..ModelOptions::default()
    };
    let m = match Model::from_source(model, &opts) {
        Ok(m) => m,
        Err(e) => return Some(format!("the generated model does not load: {e}\n{model}")),
    };
    let alone = Options {
        tuning: Tuning {
            bound_min: 0,
            doomed_min: 0,
            symmetry: false,
            ..Tuning::default()
        },
        ..Options::default()
    };
    for t in programs() {
        let reference = outcome(&t, &m, Options::default().reference());
        let eager = Options {
            tuning: Tuning::eager(),
            ..Options::default()
        };
        for (name, o) in [
            ("default", Options::default()),
            ("plans alone", alone.clone()),
            ("every fast path forced", eager),
        ] {
            let fast = outcome(&t, &m, o);
            if let (Some(a), Some(b)) = (&fast, &reference)
                && a != b
            {
                return Some(format!(
                    "{}: {name} {a:?}, reference {b:?}\n{model}",
                    t.name
                ));
            }
        }
    }
    None
}

const RELS: &[&str] = &[
    "po", "rf", "co", "fr", "loc", "int", "ext", "id", "rmw", "0", "v0", "v1", "v2",
];
const SETS: &[&str] = &["R", "W", "M", "F", "IW", "FW", "MFENCE", "_"];

/// A relation expression; `vars` whether it may name the variables `v0`–`v2` (not in the
/// body of a `let rec`, which must grow).
fn rel(vars: bool) -> BoxedStrategy<String> {
    let atoms = if vars { RELS } else { &RELS[..10] };
    let leaf = prop_oneof![
        4 => proptest::sample::select(atoms).prop_map(String::from),
        1 => set(vars).prop_map(|s| format!("[{s}]")),
    ];
    leaf.prop_recursive(3, 24, 2, move |r| {
        let pair = (r.clone(), r.clone());
        prop_oneof![
            (
                pair.clone(),
                proptest::sample::select(&["|", "&", "\\", ";"][..])
            )
                .prop_map(|((a, b), op)| format!("({a} {op} {b})")),
            (
                r.clone(),
                proptest::sample::select(&["*", "+", "?", "^-1"][..])
            )
                .prop_map(|(a, op)| format!("(({a}){op})")),
            r.clone().prop_map(|a| format!("~({a})")),
            pair.clone()
                .prop_map(|(a, b)| format!("(let v2 = {a} in {b})")),
            pair.clone()
                .prop_map(|(a, b)| format!("(try ({a} | nosuch) with {b})")),
            pair.clone()
                .prop_map(|(a, b)| format!("(try {a} with {b})")),
            pair.clone()
                .prop_map(|(a, b)| format!("(if \"novariant\" then {a} else {b})")),
            pair.clone()
                .prop_map(|(a, b)| format!("(match 'slow with 'fast -> {a} || 'slow -> {b} end)")),
            r.clone().prop_map(|a| format!("sym({a})")),
            (set(false), set(false)).prop_map(|(a, b)| format!("(({a}) * ({b}))")),
        ]
    })
    .boxed()
}

fn set(vars: bool) -> BoxedStrategy<String> {
    let leaf = proptest::sample::select(SETS).prop_map(String::from);
    leaf.prop_recursive(2, 8, 2, move |s| {
        prop_oneof![
            (
                s.clone(),
                s.clone(),
                proptest::sample::select(&["|", "&", "\\"][..])
            )
                .prop_map(|(a, b, op)| format!("({a} {op} {b})")),
            s.clone().prop_map(|a| format!("~({a})")),
            proptest::sample::select(if vars { RELS } else { &RELS[..10] })
                .prop_map(|r| format!("domain({r})")),
            proptest::sample::select(if vars { RELS } else { &RELS[..10] })
                .prop_map(|r| format!("range({r})")),
        ]
    })
    .boxed()
}

/// One instruction of a generated model.
fn instruction(n: usize) -> impl Strategy<Value = String> {
    let test = move || {
        let kinds = &["acyclic", "irreflexive", "empty", "~empty"][..];
        (proptest::sample::select(kinds), rel(true))
            .prop_map(move |(k, r)| format!("{k} {r} as t{n}"))
    };
    prop_oneof![
        (0..3usize, rel(true)).prop_map(|(v, r)| format!("let v{v} = {r}")),
        (rel(false), rel(false)).prop_map(|(a, b)| format!("let rec v2 = {a} | (v2 ; {b})")),
        (0..2usize, rel(true), rel(true))
            .prop_map(|(v, a, b)| format!("with v{v} from {{{a}, {b}}}")),
        test(),
        test(),
        (
            proptest::sample::select(&["empty", "~empty", "acyclic"][..]),
            rel(true)
        )
            .prop_map(move |(k, r)| format!("flag {k} {r} as f{n}")),
        rel(true).prop_map(|r| format!("call check({r})")),
        (test(), test()).prop_map(|(a, b)| format!("if \"novariant\" {a} else {b} end")),
    ]
}

fn model() -> impl Strategy<Value = String> {
    proptest::collection::vec(0..1usize, 1..6).prop_flat_map(|slots| {
        let ins: Vec<_> = (0..slots.len()).map(instruction).collect();
        ins.prop_map(|ins| {
            let mut m = String::from(PRELUDE);
            for i in ins {
                m += &i;
                m.push('\n');
            }
            m
        })
    })
}

/// What every generated model starts with: coherence orders from the library (herd's
/// scheme, run natively by the fast path), an enum, a function and a procedure.
const PRELUDE: &str = "\"generated\"
include \"cos.cat\"
enum Speed = 'fast || 'slow
let sym(r) = r | r^-1
procedure check(r) =
  irreflexive r as in-check
end
let v0 = po
let v1 = rf
let v2 = co
";

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// 256 generated models, each judged on 5 tests four ways: by the reference evaluator, and
    /// by default, with plans alone, and with every fast path forced on (`Tuning::eager`).
    #[test]
    fn generated_models_agree(m in model()) {
        if let Some(d) = disagreement(&m) {
            prop_assert!(false, "{}", d);
        }
    }
}

/// A model of every kind of instruction, by hand (so the comparison does not rest on the
/// generator alone).
#[test]
fn hand_written_model_agrees() {
    let m = format!(
        "{PRELUDE}
let rec hb = (po | rf) | (hb ; (po | rf))
with v0 from {{po, po & loc}}
forall s in classes-loc(W) do
  flag ~empty ([s] ; co ; [s]) as has-co
end
match 'fast with || 'fast -> acyclic (v0 | rf | co | fr) as sc || 'slow -> empty 0 end
call check(hb)
let rec even = 0 | (odd ; po) and odd = po | (even ; po)
flag ~empty (even & fr^-1) as odd-even
"
    );
    assert_eq!(disagreement(&m), None);
}

/// Found by `generated_models_agree`: the fast interpreter took `_` in a sequence for
/// neutral (`_ ; [W]` as `[W]`); herd7 raises this flag too.
#[test]
fn universe_in_a_sequence_is_not_neutral() {
    let m = "\"universe\"\nflag ~empty ((_ ; [W]) \\ [W]) as unv-seq\n";
    assert_eq!(disagreement(m), None);
    let opts = ModelOptions {
        cat: "universe.cat".into(),
        ..ModelOptions::default()
    };
    let model = Model::from_source(m, &opts).unwrap();
    for t in programs() {
        let j = judge::run(&t, &model, None, &Options::default()).unwrap();
        assert!(j.flags.contains("unv-seq"), "{}: {:?}", t.name, j.flags);
    }
}

/// Found by `generated_models_agree`: an empty sequence became the polymorphic `{}`, so
/// its complement was `_`, which an explicit set refuses; herd7 keeps an empty relation
/// (and accepts this model).
#[test]
fn an_empty_sequence_stays_a_relation() {
    let m = "\"empty sequence\"\ninclude \"cos.cat\"\nwith v1 from {po, ~fr}\n";
    assert_eq!(disagreement(m), None);
    let opts = ModelOptions {
        cat: "empty-seq.cat".into(),
        ..ModelOptions::default()
    };
    let model = Model::from_source(m, &opts).unwrap();
    for t in programs() {
        judge::run(&t, &model, None, &Options::default())
            .unwrap_or_else(|e| panic!("{}: {e}", t.name));
    }
}
