//! The final condition: evaluation on a final state, and herd's way of printing it.

use crate::litmus::ast::{Condition, LocRef, Prop, Quantifier, ValueLit};
use crate::sem::{Symbols, Value};
use std::fmt::Write;

fn lit(v: &ValueLit, symbols: &Symbols) -> Option<Value> {
    match v {
        ValueLit::Int(i) => Some(Value::Int(*i)),
        ValueLit::Addr { name, .. } => symbols.get(name).map(Value::Addr),
    }
}

/// Truth of `p` where `look` gives each location's final value.
pub fn eval(p: &Prop, look: &dyn Fn(&LocRef) -> Value, symbols: &Symbols) -> bool {
    match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Eq(l, v) => Some(look(l)) == lit(v, symbols),
        Prop::Ne(l, v) => Some(look(l)) != lit(v, symbols),
        Prop::EqLoc(a, b) => look(a) == look(b),
        Prop::Not(a) => !eval(a, look, symbols),
        Prop::And(xs) => xs.iter().all(|x| eval(x, look, symbols)),
        Prop::Or(xs) => xs.iter().any(|x| eval(x, look, symbols)),
        Prop::Implies(a, b) => !eval(a, look, symbols) || eval(b, look, symbols),
    }
}

/// Truth of `p` when `look` knows only some locations (`None` for the others): `Some` when
/// the known ones decide it (Kleene's three-valued logic), so a partial candidate that
/// already fails the test's `filter` can be dropped before its other choices are made.
pub fn eval_partial(
    p: &Prop,
    look: &dyn Fn(&LocRef) -> Option<Value>,
    symbols: &Symbols,
) -> Option<bool> {
    let both = |a: &Prop, b: &Prop| {
        (
            eval_partial(a, look, symbols),
            eval_partial(b, look, symbols),
        )
    };
    match p {
        Prop::True => Some(true),
        Prop::False => Some(false),
        Prop::Eq(l, v) => Some(Some(look(l)?) == lit(v, symbols)),
        Prop::Ne(l, v) => Some(Some(look(l)?) != lit(v, symbols)),
        Prop::EqLoc(a, b) => Some(look(a)? == look(b)?),
        Prop::Not(a) => eval_partial(a, look, symbols).map(|x| !x),
        Prop::And(xs) => kleene(xs, false, look, symbols),
        Prop::Or(xs) => kleene(xs, true, look, symbols),
        Prop::Implies(a, b) => match both(a, b) {
            (Some(false), _) | (_, Some(true)) => Some(true),
            (Some(true), Some(false)) => Some(false),
            _ => None,
        },
    }
}

/// A chain of `/\` (`decider` false) or `\/` (true): an operand equal to `decider`
/// decides it; all known and none deciding give the other value.
fn kleene(
    xs: &[Prop],
    decider: bool,
    look: &dyn Fn(&LocRef) -> Option<Value>,
    symbols: &Symbols,
) -> Option<bool> {
    let mut known = true;
    for x in xs {
        match eval_partial(x, look, symbols) {
            Some(v) if v == decider => return Some(decider),
            Some(_) => {}
            None => known = false,
        }
    }
    known.then_some(!decider)
}

/// A location as herd prints it in states and conditions: `0:r1`, `[x]`, and an array
/// cell bare: `x[1]`.
pub fn show_loc(l: &LocRef) -> String {
    match l {
        LocRef::Reg { proc, reg } => format!("{proc}:{reg}"),
        LocRef::Global(g) if g.ends_with(']') => g.clone(),
        LocRef::Global(g) => format!("[{g}]"),
    }
}

fn show_lit(v: &ValueLit) -> String {
    match v {
        ValueLit::Int(i) => i.to_string(),
        ValueLit::Addr { name, .. } => name.clone(),
    }
}

/// `exists (0:r0=1 /\ [x]=2)`, with herd's parenthesisation.
pub fn show_condition(c: &Condition) -> String {
    let q = match c.quant {
        Quantifier::Exists => "exists",
        Quantifier::NotExists => "~exists",
        Quantifier::Forall => "forall",
    };
    let mut out = format!("{q} (");
    show_prop(&mut out, &c.prop, 0);
    out.push(')');
    out
}

/// Appends `p` to `out`, parenthesised when its level is below `ctx`. Precedence levels:
/// 0 = top/implication, 1 = or, 2 = and, 3 = atom. One buffer: a condition of many
/// thousand terms prints in time linear in its size.
fn show_prop(out: &mut String, p: &Prop, ctx: u8) {
    let lvl = match p {
        Prop::Implies(..) => 0,
        Prop::Or(_) => 1,
        Prop::And(_) => 2,
        _ => 3,
    };
    if lvl < ctx {
        out.push('(');
    }
    let chain = |out: &mut String, xs: &[Prop], op: &str, ctx: u8| {
        for (k, x) in xs.iter().enumerate() {
            if k > 0 {
                out.push_str(op);
            }
            show_prop(out, x, ctx);
        }
    };
    match p {
        Prop::True => out.push_str("true"),
        Prop::False => out.push_str("false"),
        // herd's fault atom `fault(P1:L0,x)` (virtual-memory variant), parsed as `=1`.
        Prop::Eq(LocRef::Global(g), ValueLit::Int(1)) if g.starts_with("fault(") => out.push_str(g),
        Prop::Eq(l, v) => {
            let _ = write!(out, "{}={}", show_loc(l), show_lit(v));
        }
        Prop::Ne(l, v) => {
            let _ = write!(out, "{}!={}", show_loc(l), show_lit(v));
        }
        Prop::EqLoc(a, b) => {
            let _ = write!(out, "{}={}", show_loc(a), show_loc(b));
        }
        Prop::Not(a) => {
            out.push_str("not (");
            show_prop(out, a, 0);
            out.push(')');
        }
        Prop::And(xs) => chain(out, xs, " /\\ ", 2),
        Prop::Or(xs) => chain(out, xs, " \\/ ", 1),
        Prop::Implies(a, b) => {
            show_prop(out, a, 1);
            out.push_str(" => ");
            show_prop(out, b, 1);
        }
    }
    if lvl < ctx {
        out.push(')');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::litmus::ast::{LocRef, Prop, ValueLit};

    fn reg(p: u32, v: i64) -> Prop {
        Prop::Eq(
            LocRef::Reg {
                proc: p,
                reg: "r0".into(),
            },
            ValueLit::Int(v),
        )
    }

    #[test]
    fn partial_truth_is_decided_only_by_known_locations() {
        // Thread 0's r0 is 1; thread 1's is unknown.
        let look = |l: &LocRef| match l {
            LocRef::Reg { proc: 0, .. } => Some(Value::Int(1)),
            _ => None,
        };
        let s = Symbols::default();
        let and = |a, b| Prop::And(vec![a, b]);
        let or = |a, b| Prop::Or(vec![a, b]);
        let imp = |a, b| Prop::Implies(Box::new(a), Box::new(b));
        assert_eq!(
            eval_partial(&and(reg(0, 0), reg(1, 0)), &look, &s),
            Some(false)
        );
        assert_eq!(eval_partial(&and(reg(0, 1), reg(1, 0)), &look, &s), None);
        assert_eq!(
            eval_partial(&or(reg(1, 0), reg(0, 1)), &look, &s),
            Some(true)
        );
        assert_eq!(eval_partial(&or(reg(1, 0), reg(0, 0)), &look, &s), None);
        assert_eq!(
            eval_partial(&imp(reg(0, 0), reg(1, 0)), &look, &s),
            Some(true)
        );
        assert_eq!(eval_partial(&imp(reg(0, 1), reg(1, 0)), &look, &s), None);
        let not = Prop::Not(Box::new(reg(0, 1)));
        assert_eq!(eval_partial(&not, &look, &s), Some(false));
    }
}
