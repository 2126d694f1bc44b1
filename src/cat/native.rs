//! Native versions of the library functions that enumerate coherence orders.
//!
//! herd's `cross` (cross.cat) and our `one-of-each` (colib.cat) both map a set of
//! alternative-sets of relations to the set of every union of one pick per alternative-set.
//! Interpreted, they build that whole set one `++` at a time; here the product is computed
//! natively, and `with x from ...` walks it lazily, one branch at a time.

use super::ast::{Expr, FunDef, Ins, Pat, Pos};
use super::eval::{Ctx, R};
use super::value::{Env, Value, valset};
use crate::rel::Rel;
use std::rc::Rc;

/// A library function with a native implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Native {
    /// Set of alternative-sets of relations → set of unions of one pick from each.
    Cross,
}

/// Library files and the functions in them that are implemented natively.
const KNOWN: &[(&str, &str, Native)] = &[
    ("cross.cat", "cross", Native::Cross),
    ("colib.cat", "one-of-each", Native::Cross),
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
}

impl<'m> Ctx<'m, '_> {
    /// Evaluates `e` like [`Ctx::eval`], except that a native product in tail position is
    /// returned unexpanded.
    pub fn choices(&self, env: &Env<'m>, e: &'m Expr) -> R<Choices<'m>> {
        match e {
            Expr::App(pos, f, a) => {
                let f = self.eval(env, f)?;
                let a = self.eval(env, a)?;
                match &f {
                    Value::Clo(c) => {
                        if self.m.native(c.def) == Some(Native::Cross)
                            && let Some(fs) = self.cross_factors(&a)
                        {
                            return Ok(self.product(fs));
                        }
                        let env = self.call_env(*pos, c, a)?;
                        self.choices(&env, &c.def.body)
                    }
                    _ => Ok(Choices::Val(self.apply(*pos, &f, a)?)),
                }
            }
            Expr::Bind(_, bds, body) => {
                let env2 = self.bind_all(env, env, bds)?;
                self.choices(&env2, body)
            }
            _ => Ok(Choices::Val(self.eval(env, e)?)),
        }
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
        let mut disjoint = true;
        for f in &fs {
            let mut support = Rel::empty(self.n);
            for r in f {
                support.union_with(r);
            }
            if !seen.inter(&support).is_empty() {
                disjoint = false;
                break;
            }
            seen.union_with(&support);
        }
        if disjoint {
            Choices::Product(fs)
        } else {
            let mut all = Vec::new();
            for_each_union(self.n, &fs, |r| {
                all.push(Value::rel(r));
                true
            });
            Choices::Val(if all.is_empty() {
                Value::Empty
            } else {
                valset(all)
            })
        }
    }

    /// `cross` applied outside `with`: the whole set.
    pub fn cross_value(&self, fs: Vec<Vec<Rc<Rel>>>) -> Value<'m> {
        match self.product(fs) {
            Choices::Val(v) => v,
            Choices::Product(fs) => {
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
    }
}

/// Calls `f` on the union of each pick of one relation per factor, until it returns false;
/// returns false when stopped.
pub fn for_each_union(n: usize, fs: &[Vec<Rc<Rel>>], mut f: impl FnMut(Rel) -> bool) -> bool {
    if fs.iter().any(Vec::is_empty) {
        return true;
    }
    let mut pick = vec![0usize; fs.len()];
    loop {
        let mut r = Rel::empty(n);
        for (fac, &k) in fs.iter().zip(&pick) {
            r.union_with(&fac[k]);
        }
        if !f(r) {
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
