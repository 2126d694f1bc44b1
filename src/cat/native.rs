//! Native versions of the library functions that enumerate coherence orders.
//!
//! herd's `cross` (cross.cat) and our `one-of-each` (colib.cat) both map a set of
//! alternative-sets of relations to the set of every union of one pick per alternative-set.
//! Interpreted, they build that whole set one `++` at a time; here the product is computed
//! natively, and `with x from ...` walks it lazily, one branch at a time.

use super::ast::{Expr, FunDef, Ins, Pat, Pos};
use super::builtins::{classes_loc, prim_rel, prim_set};
use super::eval::{Ctx, R};
use super::value::{Env, Value, has_sym, valset};
use crate::rel::{Rel, Set};
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

/// The value of a `with ... from` expression: a value, or a product still to walk.
#[derive(Clone)]
pub enum Choices<'m> {
    Val(Value<'m>),
    /// Every union of one relation per factor; no two picks give the same union.
    Product(Vec<Vec<Rc<Rel>>>),
    /// The product whose factors are the linearisations of each class extending the
    /// relation, not built yet (so that pruning can cut them while they are built). The
    /// classes are disjoint.
    Orders(Vec<Set>, Rc<Rel>),
    /// The same, with a base that differs between the runs of a plan being built: its
    /// node (see [`super::plan`]).
    SymOrders(Vec<Set>, u32),
}

impl<'m> Ctx<'m, '_> {
    /// Evaluates `e` like [`Ctx::eval`], except that a native product in tail position is
    /// returned unexpanded.
    pub fn choices(&self, env: &Env<'m>, e: &'m Expr) -> R<Choices<'m>> {
        match e {
            Expr::App(pos, f, a) => {
                let f = self.eval(env, f)?;
                match &f {
                    Value::Clo(c) => {
                        if self.m.native(c.def) == Some(Native::Cross)
                            && let Some(orders) = self.orders(env, a)?
                        {
                            return Ok(orders);
                        }
                        let a = self.eval(env, a)?;
                        if self.m.native(c.def) == Some(Native::Cross)
                            && let Some(fs) = self.cross_factors(&a)
                        {
                            return Ok(self.product(fs));
                        }
                        let env = self.call_env(*pos, c, a)?;
                        self.nested(*pos, || self.choices(&env, &c.def.body))
                    }
                    _ => {
                        let a = self.eval(env, a)?;
                        Ok(Choices::Val(self.apply(*pos, &f, a)?))
                    }
                }
            }
            Expr::Bind(_, bds, body) => {
                let env2 = self.bind_all(env, env, bds)?;
                self.choices(&env2, body)
            }
            _ => Ok(Choices::Val(self.eval(env, e)?)),
        }
    }

    /// The per-location orders `e` stands for, unbuilt, when it is a native
    /// `orders-per-location` or `co_locs` applied to classes that do not overlap.
    fn orders(&self, env: &Env<'m>, e: &'m Expr) -> R<Option<Choices<'m>>> {
        let Expr::App(_, f, a) = e else {
            return Ok(None);
        };
        let Value::Clo(c) = self.eval(env, f)? else {
            return Ok(None);
        };
        let native = self.m.native(c.def);
        if !matches!(native, Some(Native::OrdersPerLocation | Native::CoLocs)) {
            return Ok(None);
        }
        let arg = self.eval(env, a)?;
        // The classes, and the base: a relation, or symbolic (see `super::plan`).
        let parts = match (&arg, native) {
            (Value::Tuple(t), Some(Native::CoLocs)) if t.len() == 2 => {
                let classes = match &t[1] {
                    Value::Empty => Some(Vec::new()),
                    Value::ValSet(s) => s
                        .iter()
                        .map(|v| match v {
                            Value::Set(s) => Some((**s).clone()),
                            Value::Empty => Some(Set::empty(self.n)),
                            _ => None,
                        })
                        .collect(),
                    _ => None,
                };
                classes.map(|c| (c, &t[0]))
            }
            (Value::Tuple(t), _) if t.len() == 2 => {
                let s = prim_set(self.n, &t[0]).ok();
                s.map(|s| (classes_loc(self.p, &s), &t[1]))
            }
            _ => None,
        };
        let base = parts.as_ref().and_then(|(_, b)| match b {
            Value::Sym(x) if !x.set => Some(Err(x.node)),
            b => prim_rel(self.n, b).ok().map(Ok),
        });
        // Other shapes are left to the interpreter, which reports the errors.
        let (Some((classes, _)), Some(base)) = (parts, base) else {
            if has_sym(&arg) {
                return Err(self.sym_lost(e.pos(), "a choice"));
            }
            return Ok(None);
        };
        let mut seen = Set::empty(self.n);
        for c in &classes {
            if !seen.inter(c).is_empty() {
                return Ok(None);
            }
            seen.union_with(c);
        }
        Ok(Some(match base {
            Ok(base) => Choices::Orders(classes, base),
            Err(node) => Choices::SymOrders(classes, node),
        }))
    }

    /// The factors of a `cross` argument, when it is a set of sets of relations.
    pub fn cross_factors(&self, arg: &Value<'m>) -> Option<Vec<Vec<Rc<Rel>>>> {
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
                        Value::Empty => Some(Rc::new(Rel::empty(self.n))),
                        _ => None,
                    })
                    .collect(),
                _ => None,
            })
            .collect()
    }

    /// The product as a lazy walk when its unions are all distinct (the factors touch
    /// disjoint pairs, as per-location orders do), else as a set.
    pub fn product(&self, fs: Vec<Vec<Rc<Rel>>>) -> Choices<'m> {
        if fs.iter().any(Vec::is_empty) {
            return Choices::Product(fs);
        }
        let mut seen = Rel::empty(self.n);
        for f in &fs {
            let mut support = Rel::empty(self.n);
            for r in f {
                support.union_with(r);
            }
            if !seen.inter(&support).is_empty() {
                return Choices::Val(self.cross_value(fs));
            }
            seen.union_with(&support);
        }
        Choices::Product(fs)
    }

    /// `cross` applied outside `with`: the whole set.
    pub fn cross_value(&self, fs: Vec<Vec<Rc<Rel>>>) -> Value<'m> {
        let mut all = Vec::new();
        for_each_union(self.n, &fs, |r| {
            all.push(Value::rel(r));
            true
        });
        if all.is_empty() {
            Value::Empty
        } else {
            valset(all)
        }
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
