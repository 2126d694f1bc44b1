//! Native versions of the library functions that enumerate coherence orders.
//!
//! herd's `cross` (cross.cat) and our `one-of-each` (colib.cat) both map a set of
//! alternative-sets of relations to the set of every union of one pick per alternative-set.
//! Interpreted, they build that whole set one `++` at a time; the plan compiler recognises
//! them under `with x from ...` instead, and the plan walks the product one branch at a
//! time (coherence orders being built and cut as they go, see [`super::prune`]). The
//! reference evaluator runs their cat text.

use super::ast::{Expr, FunDef, Ins, Pat, Pos};
use super::value::{Stage, Value, valset};
use crate::rel::Rel;
use std::rc::Rc;

/// A library function with a native implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Native {
    /// Set of alternative-sets of relations → set of unions of one pick from each.
    Cross,
    /// `(S, base)` → for each location, the linearisations of the events of `S` there
    /// extending `base` (colib.cat's `orders-per-location`).
    OrdersPerLocation,
    /// `(base, classes)` → for each class, its linearisations extending `base` (cross.cat's
    /// `co_locs`).
    CoLocs,
}

/// Library files and the functions in them that are implemented natively.
const KNOWN: &[(&str, &str, Native)] = &[
    ("cross.cat", "cross", Native::Cross),
    ("colib.cat", "one-of-each", Native::Cross),
    (
        "colib.cat",
        "orders-per-location",
        Native::OrdersPerLocation,
    ),
    ("cross.cat", "co_locs", Native::CoLocs),
];

/// Where the natively implemented functions are defined: the position of their `fun`.
pub fn find(path: &str, body: &[Ins], name: impl Fn(&Pat) -> Option<String>) -> Vec<(Pos, Native)> {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let mut out = Vec::new();
    for &(file, fun, native) in KNOWN {
        if file != base {
            continue;
        }
        for i in body {
            let (Ins::Let(_, bds) | Ins::Rec(_, bds, _)) = i else {
                continue;
            };
            for b in bds {
                if name(&b.pat).as_deref() == Some(fun)
                    && let Some(f) = fun_def(&b.expr)
                {
                    out.push((f.pos, native));
                }
            }
        }
    }
    out
}

/// The function an expression evaluates to when it is a literal, possibly under `let`s.
fn fun_def(e: &Expr) -> Option<&FunDef> {
    match e {
        Expr::Fun(f) => Some(f),
        Expr::Bind(_, _, body) | Expr::BindRec(_, _, body) => fun_def(body),
        _ => None,
    }
}

/// The factors of a `cross` argument, when it is a set of sets of relations.
pub fn cross_factors<S: Stage>(n: usize, arg: &Value<'_, S>) -> Option<Vec<Vec<Rc<Rel>>>> {
    let oss = match arg {
        Value::Empty => return Some(Vec::new()),
        Value::ValSet(s) => s,
        _ => return None,
    };
    oss.iter()
        .map(|os| match os {
            Value::Empty => Some(Vec::new()),
            Value::ValSet(s) => s
                .iter()
                .map(|o| match o {
                    Value::Rel(r) => Some(r.clone()),
                    Value::Empty => Some(Rc::new(Rel::empty(n))),
                    _ => None,
                })
                .collect(),
            _ => None,
        })
        .collect()
}

/// Whether the unions of one relation per factor are all distinct (the factors touch
/// disjoint pairs, as per-location orders do): then the product can be walked pick by
/// pick; else its unions must be made a set first.
pub fn distinct_unions(n: usize, fs: &[Vec<Rc<Rel>>]) -> bool {
    if fs.iter().any(Vec::is_empty) {
        return true;
    }
    let mut seen = Rel::empty(n);
    for f in fs {
        let mut support = Rel::empty(n);
        for r in f {
            support.union_with(r);
        }
        if !seen.inter(&support).is_empty() {
            return false;
        }
        seen.union_with(&support);
    }
    true
}

/// The set of the unions of one relation per factor (`cross`'s value).
pub fn unions<'m, S: Stage>(n: usize, fs: &[Vec<Rc<Rel>>]) -> Value<'m, S> {
    let mut all = Vec::new();
    for_each_union(n, fs, |r| {
        all.push(Value::rel(r));
        true
    });
    if all.is_empty() {
        Value::Empty
    } else {
        valset(all)
    }
}

/// Calls `f` on the union of each pick of one relation per factor, until it returns false;
/// returns false when stopped.
pub fn for_each_union(n: usize, fs: &[Vec<Rc<Rel>>], mut f: impl FnMut(Rel) -> bool) -> bool {
    for_each_pick(fs, |pick| {
        let mut r = Rel::empty(n);
        for (fac, &k) in fs.iter().zip(pick) {
            r.union_with(&fac[k]);
        }
        f(r)
    })
}

/// Calls `f` on each pick of one element per factor (the index of each), the first factor
/// turning fastest, until it returns false; returns false when stopped.
pub fn for_each_pick<T>(fs: &[Vec<T>], mut f: impl FnMut(&[usize]) -> bool) -> bool {
    if fs.iter().any(Vec::is_empty) {
        return true;
    }
    let mut pick = vec![0usize; fs.len()];
    loop {
        if !f(&pick) {
            return false;
        }
        let mut k = 0;
        loop {
            if k == pick.len() {
                return true;
            }
            pick[k] += 1;
            if pick[k] < fs[k].len() {
                break;
            }
            pick[k] = 0;
            k += 1;
        }
    }
}

/// How many picks the factors make.
pub fn pick_count<T>(fs: &[Vec<T>]) -> usize {
    fs.iter()
        .try_fold(1usize, |a, f| a.checked_mul(f.len()))
        .unwrap_or(usize::MAX)
}
