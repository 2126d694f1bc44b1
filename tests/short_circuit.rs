//! `&&`, `||`, `?:` and `!` are nested `if`s: a test whose `if` has a condition built from
//! them, over acquire, relaxed and plain reads, must be judged under the LKMM exactly as
//! the same test with the condition written out as nested `if`s (each operand a test of
//! its own, the branches duplicated where the operators share them). Same final states,
//! witness counts, flags and loop cut, under both explorations (`domains` and `grow`).
//!
//! The writer's side gives the conditions something to observe: its writes are ordered by
//! optional fences, and it first reads `u`, which the reader writes only in its `then`
//! branch, so the ctrl dependencies (and `po`) the condition gives that branch matter.

mod common;

use common::{answer, judged_with_options, shipped};
use litmus::judge::Options;
use litmus::litmus::parse;
use litmus::tuning::Exploration;
use proptest::prelude::*;

/// A condition over the reads of `x`, `y` and `z`.
#[derive(Clone, Debug)]
enum Cond {
    /// A read of location `loc` (0..3) by kind (0 acquire, 1 relaxed, 2 plain).
    Read(u8, u8),
    Not(Box<Cond>),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Tern(Box<Cond>, Box<Cond>, Box<Cond>),
}

fn read(kind: u8, loc: u8) -> String {
    let l = ["x", "y", "z"][loc as usize];
    match kind {
        0 => format!("smp_load_acquire({l})"),
        1 => format!("READ_ONCE(*{l})"),
        _ => format!("*{l}"),
    }
}

/// The condition as written, with C's operators.
fn written(c: &Cond) -> String {
    match c {
        Cond::Read(k, l) => read(*k, *l),
        Cond::Not(a) => format!("!{}", written(a)),
        Cond::And(a, b) => format!("({} && {})", written(a), written(b)),
        Cond::Or(a, b) => format!("({} || {})", written(a), written(b)),
        Cond::Tern(a, b, c) => format!("({} ? {} : {})", written(a), written(b), written(c)),
    }
}

/// `if (c) then else els` with `c` as nested `if`s over single reads.
fn nested(c: &Cond, then: &str, els: &str) -> String {
    match c {
        Cond::Read(k, l) => format!("if ({}) {{ {then} }} else {{ {els} }}", read(*k, *l)),
        Cond::Not(a) => nested(a, els, then),
        Cond::And(a, b) => nested(a, &nested(b, then, els), els),
        Cond::Or(a, b) => nested(a, then, &nested(b, then, els)),
        Cond::Tern(a, b, c) => nested(a, &nested(b, then, els), &nested(c, then, els)),
    }
}

fn cond() -> impl Strategy<Value = Cond> {
    let leaf = (0u8..3, 0u8..3).prop_map(|(k, l)| Cond::Read(k, l));
    leaf.prop_recursive(3, 6, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| Cond::Not(Box::new(a))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Cond::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Cond::Or(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone(), inner).prop_map(|(a, b, c)| Cond::Tern(
                Box::new(a),
                Box::new(b),
                Box::new(c)
            )),
        ]
    })
}

/// The whole test, the reader's `if` being `branch` (its `then` and `else` given).
fn test(branch: impl Fn(&str, &str) -> String, mb: bool, wmb: bool) -> String {
    let body = branch("r = 1; WRITE_ONCE(*u, 1);", "r = 2;");
    format!(
        "C gen\n\n{{}}\n\nP0(int *x, int *y, int *z, int *u)\n{{\n\tint r0 = READ_ONCE(*u);\n\t{}\n\
         \tWRITE_ONCE(*x, 1);\n\t{}\n\tWRITE_ONCE(*y, 1);\n\tsmp_store_release(z, 1);\n}}\n\n\
         P1(int *x, int *y, int *z, int *u)\n{{\n\tint r = 0;\n\t{body}\n}}\n\n\
         exists (0:r0=1 /\\ 1:r=1)\n",
        if mb { "smp_mb();" } else { "" },
        if wmb { "smp_wmb();" } else { "" },
    )
}

fn with(exploration: Exploration) -> Options {
    let mut o = Options::default();
    o.tuning.exploration = exploration;
    o
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn short_circuit_operators_are_nested_ifs(c in cond(), mb: bool, wmb: bool) {
        let lkmm = shipped("lkmm");
        let as_written = test(|t, e| format!("if ({}) {{ {t} }} else {{ {e} }}", written(&c)), mb, wmb);
        let as_nested = test(|t, e| nested(&c, t, e), mb, wmb);
        let w = parse(&as_written).unwrap();
        let n = parse(&as_nested).unwrap();
        for x in [Exploration::Domains, Exploration::Grow] {
            let a = answer(&judged_with_options(&w, &lkmm, with(x)));
            let b = answer(&judged_with_options(&n, &lkmm, with(x)));
            prop_assert_eq!(a, b, "{:?}:\n{}\nnested:\n{}", x, as_written, as_nested);
        }
    }
}

/// The two reports of issue 37, and `!` on each side: herd7 7.58 says Never for the nested
/// forms.
#[test]
fn the_reported_short_circuits_are_never() {
    let lkmm = shipped("lkmm");
    for reader in [
        "int stale = 0; if (smp_load_acquire(flag) && !READ_ONCE(*data)) stale = 1;",
        "int stale = (smp_load_acquire(flag) == 0 || READ_ONCE(*data) == 1) ? 0 : 1;",
        "int stale = 0; if (!(!smp_load_acquire(flag) || READ_ONCE(*data))) stale = 1;",
        "int stale = smp_load_acquire(flag) ? !READ_ONCE(*data) : 0;",
    ] {
        let text = format!(
            "C t\n\n{{}}\n\nP0(int *data, int *flag)\n{{\n\tWRITE_ONCE(*data, 1);\n\t\
             smp_store_release(flag, 1);\n}}\n\nP1(int *data, int *flag)\n{{\n\t{reader}\n}}\n\n\
             exists (1:stale=1)\n"
        );
        let t = parse(&text).unwrap();
        for x in [Exploration::Domains, Exploration::Grow] {
            let j = judged_with_options(&t, &lkmm, with(x));
            assert_eq!(j.observation().to_string(), "Never", "{reader} ({x:?})");
        }
    }
}
