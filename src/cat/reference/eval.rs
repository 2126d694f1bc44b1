//! Expressions of the cat language on one candidate, as herd's `interpreter.ml` evaluates
//! them: `let` binds lazily (an unused definition costs nothing and its errors do not
//! matter), `let rec` iterates from empty values until nothing grows, sets and relations
//! are computed whole. What each operator means is [`Ops`]'s.

use super::super::ast::*;
use super::super::builtins;
use super::super::ops::{Ops, tag_branch, tag2set};
use super::super::value::*;
use super::super::{CatError, Fatal, MAX_CALL_DEPTH, Model, Primitives};
use crate::budget::Budget;
use crate::rel::Rel;
use std::cell::Cell;
use std::rc::Rc;

pub type R<T> = Result<T, Box<CatError>>;

/// Everything one evaluation needs besides the environment: the model, the candidate,
/// the budget, and the call depth.
pub struct Eval<'m, 'p> {
    pub m: &'m Model,
    pub p: &'p Primitives<'p>,
    pub ops: Ops<'m>,
    budget: &'p Budget,
    depth: Cell<u32>,
    /// Closures are compared by identity (herd gives each one a number).
    next_id: Cell<u64>,
}

impl<'m, 'p> Eval<'m, 'p> {
    pub fn new(m: &'m Model, p: &'p Primitives<'p>, budget: &'p Budget) -> Self {
        Eval {
            m,
            p,
            ops: Ops { n: p.n, m },
            budget,
            depth: Cell::new(0),
            next_id: Cell::new(0),
        }
    }

    pub fn err(&self, pos: Pos, msg: impl Into<String>) -> Box<CatError> {
        Box::new(CatError {
            file: self.m.file_name(pos.file).to_string(),
            line: pos.line,
            col: pos.col,
            msg: msg.into(),
            fatal: None,
        })
    }

    fn fatal(&self, pos: Pos, f: Fatal, msg: String) -> Box<CatError> {
        let mut e = self.err(pos, msg);
        e.fatal = Some(f);
        e
    }

    /// Stops the run (no `try` catches it) once the budget is spent.
    pub fn poll(&self, pos: Pos) -> R<()> {
        self.budget
            .check()
            .map_err(|x| self.fatal(pos, Fatal::Exhausted(x.clone()), x.to_string()))
    }

    /// The error of a call nested deeper than [`MAX_CALL_DEPTH`].
    pub fn too_deep(&self, pos: Pos) -> Box<CatError> {
        self.fatal(pos, Fatal::TooDeep, "calls nest too deeply".into())
    }

    /// Runs `f` one call deeper, polling the budget.
    fn nested<T>(&self, pos: Pos, f: impl FnOnce() -> R<T>) -> R<T> {
        let d = self.depth.get();
        if d >= MAX_CALL_DEPTH {
            return Err(self.too_deep(pos));
        }
        self.poll(pos)?;
        self.depth.set(d + 1);
        let v = f();
        self.depth.set(d);
        v
    }

    fn fresh_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    // ---------- names ----------

    pub fn lookup(&self, env: &Env<'m>, x: Sym, pos: Pos) -> R<Value<'m>> {
        match self.m.slot(env, x) {
            Some(Slot::Val(v)) => Ok(v.clone()),
            Some(Slot::Thunk(t)) => {
                if let Some(v) = &*t.value.borrow() {
                    return Ok(v.clone());
                }
                let v = self.eval(&t.env, t.expr)?;
                *t.value.borrow_mut() = Some(v.clone());
                Ok(v)
            }
            None => builtins::global(self.m, self.p, x)
                .ok_or_else(|| self.err(pos, format!("unbound var: {}", self.m.names.name(x)))),
        }
    }

    /// `let p1 = e1 and p2 = e2 ...`: each right-hand side in `env`, names bound lazily.
    pub fn bind_lets(&self, env: &Env<'m>, bds: &'m [Binding]) -> R<Env<'m>> {
        let mut out = env.clone();
        for b in bds {
            out = match &b.pat {
                Pat::Var(None) => out,
                Pat::Var(Some(x)) => out.bind_lazy(*x, &b.expr, env),
                pat => self.bind_pat(&out, b.pos, pat, self.eval(env, &b.expr)?)?,
            };
        }
        Ok(out)
    }

    pub fn bind_pat(&self, env: &Env<'m>, pos: Pos, pat: &Pat, v: Value<'m>) -> R<Env<'m>> {
        env.bind_pat(pat, v).map_err(|m| self.err(pos, m))
    }

    /// `let rec`: functions see each other; the other bindings start empty and are
    /// recomputed in order until none grows (herd's `env_rec`), `check` (the `when` of an
    /// instruction) holding after every round. `None` when the check fails.
    pub fn env_rec(
        &self,
        env: &Env<'m>,
        pos: Pos,
        bds: &'m [Binding],
        check: Option<&'m Test>,
    ) -> R<Option<Env<'m>>> {
        let rb = RecBindings::split(bds).map_err(|p| self.err(p, "binding mismatch"))?;
        let vals = &rb.vals[..];
        let with_funs = |env: &Env<'m>| rb.bind_funs(env, &|| self.fresh_id());
        if vals.is_empty() {
            return Ok(Some(with_funs(env)));
        }
        let mut cur: Vec<Value<'m>> = vals.iter().map(|b| empty_for(&b.pat)).collect();
        loop {
            self.poll(pos)?;
            let mut e = env.clone();
            for (b, v) in vals.iter().zip(&cur) {
                e = self.bind_pat(&e, b.pos, &b.pat, v.clone())?;
            }
            e = with_funs(&e);
            let mut next = Vec::with_capacity(cur.len());
            for b in vals {
                let v = self.eval(&e, &b.expr)?;
                e = with_funs(&self.bind_pat(&e, b.pos, &b.pat, v.clone())?);
                next.push(v);
            }
            if let Some(t) = check
                && !self.test(&e, t)?.0
            {
                return Ok(None);
            }
            let mut over = true;
            for (old, new) in cur.iter().zip(&next) {
                over &= self
                    .ops
                    .stabilised(old, new)
                    .map_err(|m| self.err(pos, m))?;
            }
            if over {
                return Ok(Some(e));
            }
            cur = next;
        }
    }

    fn closure(&self, env: &Env<'m>, def: &'m FunDef) -> Value<'m> {
        Value::Clo(Rc::new(Closure {
            def,
            env: env.clone(),
            rec: None,
            id: self.fresh_id(),
        }))
    }

    // ---------- conversions ----------

    pub fn as_rel(&self, v: &Value<'m>, pos: Pos) -> R<Rc<Rel>> {
        self.ops.as_rel(v).map_err(|m| self.err(pos, m))
    }

    fn eval_all(&self, env: &Env<'m>, es: &'m [Expr]) -> R<Vec<Value<'m>>> {
        es.iter().map(|e| self.eval(env, e).map(tag2set)).collect()
    }

    // ---------- expressions ----------

    pub fn eval(&self, env: &Env<'m>, e: &'m Expr) -> R<Value<'m>> {
        let ops = &self.ops;
        let at = |pos: Pos| move |m: String| self.err(pos, m);
        match e {
            Expr::EmptyRel(_) => Ok(Value::rel(Rel::empty(ops.n))),
            Expr::Universe(_) => Ok(Value::Unv),
            Expr::Tag(pos, t) => match self.m.tag_types.get(t.as_str()) {
                Some(&i) => Ok(Value::Tag(&self.m.tags[i as usize])),
                None => Err(self.err(*pos, format!("tag '{t} is undefined"))),
            },
            Expr::Var(pos, x) => self.lookup(env, *x, *pos),
            Expr::Fun(f) => Ok(self.closure(env, f)),
            Expr::Op1(pos, op, a) => {
                let v = self.eval(env, a)?;
                ops.op1(*op, v).map_err(at(*pos))
            }
            Expr::ExplicitSet(pos, es) => {
                let mut vs = Vec::with_capacity(es.len());
                for a in es {
                    match self.eval(env, a)? {
                        Value::Unv => return Err(self.err(a.pos(), "universe in explicit set")),
                        v => vs.push(v),
                    }
                }
                ops.explicit_set(vs).map_err(at(*pos))
            }
            Expr::Op(_, Op2::Tuple, es) => {
                let vs = es.iter().map(|a| self.eval(env, a));
                Ok(Value::Tuple(Rc::new(vs.collect::<R<_>>()?)))
            }
            Expr::Op(pos, Op2::Union, es) => {
                let vs = self.eval_all(env, es)?;
                vs.into_iter()
                    .try_fold(Value::Empty, |acc, v| ops.union(acc, v))
                    .map_err(at(*pos))
            }
            Expr::Op(_, Op2::Seq, es) => self.seq(env, es),
            Expr::Op(pos, Op2::Inter, es) => {
                let vs = self.eval_all(env, &es[..2])?;
                ops.inter(&vs[0], &vs[1]).map_err(at(*pos))
            }
            Expr::Op(pos, Op2::Diff, es) => {
                let vs = self.eval_all(env, &es[..2])?;
                ops.diff(&vs[0], &vs[1]).map_err(at(*pos))
            }
            Expr::Op(_, Op2::Cartesian, es) => {
                let a = self.eval(env, &es[0])?;
                ops.as_set(&a).map_err(at(es[0].pos()))?;
                let b = self.eval(env, &es[1])?;
                ops.as_set(&b).map_err(at(es[1].pos()))?;
                ops.cartesian(&a, &b).map_err(at(es[0].pos()))
            }
            Expr::Op(pos, Op2::Add, es) => {
                let a = self.eval(env, &es[0])?;
                let b = self.eval(env, &es[1])?;
                ops.add(a, b).map_err(at(*pos))
            }
            Expr::App(pos, f, a) => {
                let f = self.eval(env, f)?;
                let a = self.eval(env, a)?;
                self.apply(*pos, &f, a)
            }
            Expr::Bind(_, bds, body) => self.eval(&self.bind_lets(env, bds)?, body),
            Expr::BindRec(pos, bds, body) => match self.env_rec(env, *pos, bds, None)? {
                Some(env) => self.eval(&env, body),
                None => Err(self.err(*pos, "check failed in recursive binding")),
            },
            Expr::Match(pos, a, cls, d) => {
                let v = self.eval(env, a)?;
                let c = tag_branch(&v, cls, d.as_deref(), *pos, a.pos())
                    .map_err(|(p, m)| self.err(p, m))?;
                self.eval(env, c)
            }
            Expr::MatchSet(pos, a, empty, cl) => {
                let v = self.eval(env, a)?;
                let at_set = if matches!(v, Value::Unv) {
                    *pos
                } else {
                    a.pos()
                };
                let elems = ops.elements(&v).map_err(at(at_set))?;
                self.match_set(env, &v, &elems, empty, cl)
            }
            Expr::Try(_, a, b) => match self.eval(env, a) {
                Err(e) if e.fatal.is_none() => self.eval(env, b),
                v => v,
            },
            Expr::If(pos, c, a, b) => match self.cond(env, *pos, c)? {
                true => self.eval(env, a),
                false => self.eval(env, b),
            },
        }
    }

    /// `r1; r2; ...`, herd's way: `[S]` is the identity on `S`; the polymorphic `{}` makes
    /// the whole sequence `{}` (the factors after it are not evaluated); else a relation,
    /// empty or not.
    fn seq(&self, env: &Env<'m>, es: &'m [Expr]) -> R<Value<'m>> {
        let mut acc: Option<Rel> = None;
        for a in es {
            let r = match a {
                Expr::Op1(_, Op1::ToId, s) => {
                    let v = self.eval(env, s)?;
                    Rel::identity(&*self.ops.as_set(&v).map_err(|m| self.err(s.pos(), m))?)
                }
                a => match self.eval(env, a)? {
                    Value::Empty => return Ok(Value::Empty),
                    v => (*self.as_rel(&v, a.pos())?).clone(),
                },
            };
            acc = Some(match acc {
                None => r,
                Some(acc) => acc.compose(&r),
            });
        }
        Ok(acc.map_or(Value::Unv, Value::rel))
    }

    /// Calls a function or a built-in.
    pub fn apply(&self, pos: Pos, f: &Value<'m>, arg: Value<'m>) -> R<Value<'m>> {
        match f {
            Value::Clo(c) => {
                let env = c.call_env(|| self.fresh_id());
                let env = self
                    .bind_pat(&env, pos, &c.def.pat, arg)
                    .map_err(|_| self.err(pos, "argument mismatch"))?;
                self.nested(pos, || self.eval(&env, &c.def.body))
            }
            Value::Prim(b) => builtins::call(*b, self.p, arg)
                .map_err(|msg| self.err(pos, format!("primitive {}: {msg}", b.name()))),
            v => Err(self.err(
                pos,
                format!("closure or primitive expected, {} found", v.type_name()),
            )),
        }
    }

    /// `match S with || {} -> e || x ++ rest -> f` (or `pre | x ++ post`): the first
    /// element (or the middle one) in herd's order.
    fn match_set(
        &self,
        env: &Env<'m>,
        set: &Value<'m>,
        elems: &[Value<'m>],
        empty: &'m Expr,
        cl: &'m SetClause,
    ) -> R<Value<'m>> {
        if elems.is_empty() {
            return self.eval(env, empty);
        }
        let bind = |env: Env<'m>, x: &Option<Sym>, v: Value<'m>| match x {
            Some(x) => env.bind(*x, v),
            None => env,
        };
        let rest = |vs: &[Value<'m>]| self.ops.rebuild(set, vs);
        match cl {
            SetClause::EltRem(x, more, body) => {
                let e = bind(env.clone(), x, elems[0].clone());
                self.eval(&bind(e, more, rest(&elems[1..])), body)
            }
            SetClause::PreEltPost(pre, x, post, body) => {
                let mid = elems.len() / 2;
                let e = bind(env.clone(), x, elems[mid].clone());
                let e = bind(e, pre, rest(&elems[..mid]));
                self.eval(&bind(e, post, rest(&elems[mid + 1..])), body)
            }
        }
    }

    fn cond(&self, env: &Env<'m>, pos: Pos, c: &'m Cond) -> R<bool> {
        let (a, b) = match c {
            Cond::Variant(v) => return Ok(self.m.variant_holds(v)),
            Cond::Eq(a, b) | Cond::In(a, b) | Cond::Subset(a, b) => (a, b),
        };
        let (x, y) = (self.eval(env, a)?, self.eval(env, b)?);
        let located = |e: Box<CatError>| if e.line == 0 { self.err(pos, e.msg) } else { e };
        match c {
            Cond::Eq(..) => Ok(self.ops.equal(&x, &y)),
            Cond::In(..) => self
                .ops
                .member(&x, &y)
                .map_err(|m| located(self.err(b.pos(), m))),
            _ => self
                .ops
                .subset(&x, &y)
                .map_err(|(first, m)| located(self.err(if first { a.pos() } else { b.pos() }, m))),
        }
    }

    /// Whether check `t` holds in `env` (its negation applied), and a cycle (or a
    /// reflexive event, or the first pair of an `empty` check's relation) of its relation.
    pub fn test(&self, env: &Env<'m>, t: &'m Test) -> R<(bool, Option<Vec<usize>>)> {
        let v = self.eval(env, &t.expr)?;
        let (holds, cycle) = self
            .ops
            .check(t.kind, &v)
            .map_err(|m| self.err(t.expr.pos(), m))?;
        Ok((holds != t.negated, cycle))
    }
}
