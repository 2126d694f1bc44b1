//! Expressions of the cat language on one candidate, as herd's `interpreter.ml` evaluates
//! them: `let` binds lazily (an unused definition costs nothing and its errors do not
//! matter), `let rec` iterates from empty values until nothing grows, sets and relations
//! are computed whole.

use super::super::ast::*;
use super::super::builtins;
use super::super::value::*;
use super::super::{CatError, Fatal, MAX_CALL_DEPTH, Model, Primitives};
use crate::budget::Budget;
use crate::rel::{Rel, Set};
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::rc::Rc;

pub type R<T> = Result<T, Box<CatError>>;

/// Everything one evaluation needs besides the environment: the model, the candidate,
/// the budget, and the call depth.
pub struct Eval<'m, 'p> {
    pub m: &'m Model,
    pub p: &'p Primitives<'p>,
    pub n: usize,
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
            n: p.n,
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

    /// Runs `f` one call deeper, polling the budget.
    fn nested<T>(&self, pos: Pos, f: impl FnOnce() -> R<T>) -> R<T> {
        let d = self.depth.get();
        if d >= MAX_CALL_DEPTH {
            return Err(self.fatal(pos, Fatal::TooDeep, "calls nest too deeply".into()));
        }
        self.poll(pos)?;
        self.depth.set(d + 1);
        let v = f();
        self.depth.set(d);
        v
    }

    fn all(&self) -> Set {
        Set::full(self.n)
    }

    fn id(&self) -> Rel {
        Rel::identity(&self.all())
    }

    // ---------- names ----------

    pub fn lookup(&self, env: &Env<'m>, x: Sym, pos: Pos) -> R<Value<'m>> {
        match env.lookup(x) {
            Some(Slot::Val(v)) => Ok(v.clone()),
            Some(Slot::Thunk(t)) => self.force(t),
            Some(Slot::Memo(_)) => Err(self.err(pos, "internal: a memo slot in the reference")),
            None => builtins::global(self.m, self.p, x)
                .ok_or_else(|| self.err(pos, format!("unbound var: {}", self.m.names.name(x)))),
        }
    }

    /// The value of a lazy binding, computed the first time it is needed.
    fn force(&self, t: &Thunk<'m>) -> R<Value<'m>> {
        let Held::Own(cell) = &t.value else {
            return Err(self.err(t.expr.pos(), "internal: a shared thunk in the reference"));
        };
        if let Some((v, _)) = &*cell.borrow() {
            return Ok(v.clone());
        }
        let v = self.eval(&t.env, t.expr)?;
        *cell.borrow_mut() = Some((v.clone(), 0));
        Ok(v)
    }

    /// `let p1 = e1 and p2 = e2 ...`: each right-hand side in `env`, names bound lazily.
    pub fn bind_lets(&self, env: &Env<'m>, bds: &'m [Binding]) -> R<Env<'m>> {
        let mut out = env.clone();
        for b in bds {
            out = match &b.pat {
                Pat::Var(None) => out,
                Pat::Var(Some(x)) => out.bind_slot(
                    *x,
                    Slot::Thunk(Rc::new(Thunk {
                        expr: &b.expr,
                        env: env.clone(),
                        value: Held::Own(RefCell::new(None)),
                        key: None,
                    })),
                ),
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
        let mut funs = Vec::new();
        let mut vals = Vec::new();
        for b in bds {
            match (&b.pat, &b.expr) {
                (Pat::Var(Some(x)), Expr::Fun(f)) => funs.push((*x, &**f)),
                (Pat::Tuple(_), Expr::Fun(_)) => return Err(self.err(b.pos, "binding mismatch")),
                _ => vals.push(b),
            }
        }
        let with_funs = |env: &Env<'m>| {
            let g = Rc::new(RecGroup {
                env: env.clone(),
                funs: funs.clone(),
            });
            let mut e = env.clone();
            for (j, (name, def)) in funs.iter().enumerate() {
                e = e.bind(*name, self.closure(env, def, Some((g.clone(), j))));
            }
            e
        };
        if vals.is_empty() {
            return Ok(Some(with_funs(env)));
        }
        let mut cur: Vec<Value<'m>> = vals
            .iter()
            .map(|b| match &b.pat {
                Pat::Var(_) => Value::Empty,
                Pat::Tuple(xs) => Value::Tuple(Rc::new(vec![Value::Empty; xs.len()])),
            })
            .collect();
        loop {
            self.poll(pos)?;
            let mut e = env.clone();
            for (b, v) in vals.iter().zip(&cur) {
                e = self.bind_pat(&e, b.pos, &b.pat, v.clone())?;
            }
            e = with_funs(&e);
            let mut next = Vec::with_capacity(cur.len());
            for b in &vals {
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
                over &= self.stabilised(pos, old, new)?;
            }
            if over {
                return Ok(Some(e));
            }
            cur = next;
        }
    }

    /// Whether a round of a fixpoint added nothing (herd's `stabilised`).
    fn stabilised(&self, pos: Pos, old: &Value<'m>, new: &Value<'m>) -> R<bool> {
        Ok(match (old, new) {
            (_, Value::Empty) | (Value::Unv, _) => true,
            (Value::Empty, v) => is_empty_coll(v),
            (Value::Rel(o), Value::Rel(n)) => n.is_subset(o),
            (Value::Set(o), Value::Set(n)) => n.is_subset(o),
            (Value::ValSet(o), Value::ValSet(n)) => n.iter().all(|x| valset_contains(o, x)),
            (Value::Rel(o), Value::Unv) => o.len() == self.n * self.n,
            (Value::Set(o), Value::Unv) => o.len() == self.n,
            (Value::Tuple(o), Value::Tuple(n)) if o.len() == n.len() => {
                let mut all = true;
                for (a, b) in o.iter().zip(n.iter()) {
                    all &= self.stabilised(pos, a, b)?;
                }
                all
            }
            (_, v) => {
                let t = v.type_name();
                return Err(self.err(pos, format!("illegal recursion on type '{t}'")));
            }
        })
    }

    fn closure(
        &self,
        env: &Env<'m>,
        def: &'m FunDef,
        rec: Option<(Rc<RecGroup<'m>>, usize)>,
    ) -> Value<'m> {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        Value::Clo(Rc::new(Closure {
            def,
            env: env.clone(),
            rec,
            id,
        }))
    }

    // ---------- conversions ----------

    pub fn as_rel(&self, v: &Value<'m>, pos: Pos) -> R<Rel> {
        match v {
            Value::Rel(r) => Ok((**r).clone()),
            Value::Empty => Ok(Rel::empty(self.n)),
            Value::Unv => Ok(Rel::cartesian(&self.all(), &self.all())),
            Value::Pair(a, b) => Ok(pair_rel(self.n, *a, *b)),
            v => Err(self.err(pos, format!("type rel expected, {} found", v.type_name()))),
        }
    }

    pub fn as_set(&self, v: &Value<'m>, pos: Pos) -> R<Set> {
        match v {
            Value::Set(s) => Ok((**s).clone()),
            Value::Empty => Ok(Set::empty(self.n)),
            Value::Unv => Ok(self.all()),
            Value::Event(e) => Ok(Set::from_iter(self.n, [*e])),
            v => Err(self.err(
                pos,
                format!("type events expected, {} found", v.type_name()),
            )),
        }
    }

    /// All tags of an enum type (the universe a complement of tags is taken in).
    fn tags_of(&self, ty: &str) -> Vec<Value<'m>> {
        let m = self.m;
        let tags = m.enums.iter().filter(|(t, _)| t == ty);
        let all = tags.flat_map(|(_, r)| m.tags[r.clone()].iter().map(Value::Tag));
        match valset(all.collect()) {
            Value::ValSet(s) => s.to_vec(),
            _ => Vec::new(),
        }
    }

    fn eval_all(&self, env: &Env<'m>, es: &'m [Expr]) -> R<Vec<Value<'m>>> {
        es.iter().map(|e| self.eval(env, e).map(tag2set)).collect()
    }

    // ---------- expressions ----------

    pub fn eval(&self, env: &Env<'m>, e: &'m Expr) -> R<Value<'m>> {
        match e {
            Expr::EmptyRel(_) => Ok(Value::rel(Rel::empty(self.n))),
            Expr::Universe(_) => Ok(Value::Unv),
            Expr::Tag(pos, t) => match self.m.tag_types.get(t.as_str()) {
                Some(&i) => Ok(Value::Tag(&self.m.tags[i as usize])),
                None => Err(self.err(*pos, format!("tag '{t} is undefined"))),
            },
            Expr::Var(pos, x) => self.lookup(env, *x, *pos),
            Expr::Fun(f) => Ok(self.closure(env, f, None)),
            Expr::Op1(pos, op, a) => {
                let v = self.eval(env, a)?;
                self.op1(*pos, *op, v)
            }
            Expr::ExplicitSet(pos, es) => {
                let mut vs = Vec::with_capacity(es.len());
                for a in es {
                    match self.eval(env, a)? {
                        Value::Unv => return Err(self.err(a.pos(), "universe in explicit set")),
                        v => vs.push(v),
                    }
                }
                self.explicit_set(*pos, vs)
            }
            Expr::Op(_, Op2::Tuple, es) => {
                let vs = es.iter().map(|a| self.eval(env, a));
                Ok(Value::Tuple(Rc::new(vs.collect::<R<_>>()?)))
            }
            Expr::Op(pos, Op2::Union, es) => {
                let vs = self.eval_all(env, es)?;
                vs.into_iter()
                    .try_fold(Value::Empty, |acc, v| self.union(*pos, acc, v))
            }
            Expr::Op(_, Op2::Seq, es) => self.seq(env, es),
            Expr::Op(pos, Op2::Inter, es) => {
                let vs = self.eval_all(env, &es[..2])?;
                self.inter(*pos, &vs[0], &vs[1])
            }
            Expr::Op(pos, Op2::Diff, es) => {
                let vs = self.eval_all(env, &es[..2])?;
                self.diff(*pos, &vs[0], &vs[1])
            }
            Expr::Op(_, Op2::Cartesian, es) => {
                let a = self.as_set(&self.eval(env, &es[0])?, es[0].pos())?;
                let b = self.as_set(&self.eval(env, &es[1])?, es[1].pos())?;
                Ok(Value::rel(Rel::cartesian(&a, &b)))
            }
            Expr::Op(pos, Op2::Add, es) => {
                let a = self.eval(env, &es[0])?;
                let b = self.eval(env, &es[1])?;
                self.add(*pos, a, b)
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
            Expr::Match(pos, a, cls, d) => match self.eval(env, a)? {
                Value::Tag(tag) => match cls.iter().find(|(t, _)| *t == tag.name) {
                    Some((_, c)) => self.eval(env, c),
                    None => match d {
                        Some(d) => self.eval(env, d),
                        None => Err(self.err(
                            *pos,
                            format!("pattern matching failed on value '{}'", tag.name),
                        )),
                    },
                },
                v => Err(self.err(
                    a.pos(),
                    format!("matching on non-tag value of type '{}'", v.type_name()),
                )),
            },
            Expr::MatchSet(pos, a, empty, cl) => {
                let v = self.eval(env, a)?;
                self.match_set(env, *pos, a.pos(), v, empty, cl)
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

    fn op1(&self, pos: Pos, op: Op1, v: Value<'m>) -> R<Value<'m>> {
        let rel = |r: Rel| Ok(Value::rel(r));
        match (op, v) {
            (Op1::ToId, Value::Empty) => Ok(Value::Empty),
            (Op1::ToId, v) => rel(Rel::identity(&self.as_set(&v, pos)?)),
            (Op1::Plus | Op1::Inv, Value::Empty) => Ok(Value::Empty),
            (Op1::Star | Op1::Opt, Value::Empty) => rel(self.id()),
            (Op1::Plus | Op1::Star | Op1::Opt | Op1::Inv, Value::Unv) => Ok(Value::Unv),
            (Op1::Plus, Value::Rel(r)) => rel(r.transitive_closure()),
            (Op1::Star, Value::Rel(r)) => rel(r.reflexive_transitive_closure()),
            (Op1::Opt, Value::Rel(r)) => rel(r.union(&self.id())),
            (Op1::Inv, Value::Rel(r)) => rel(r.inverse()),
            (Op1::Inv, Value::Pair(a, b)) => Ok(Value::Pair(b, a)),
            (Op1::Comp, Value::Empty) => Ok(Value::Unv),
            (Op1::Comp, Value::Unv) => Ok(Value::Empty),
            (Op1::Comp, Value::Set(s)) => Ok(Value::set(s.complement())),
            (Op1::Comp, Value::Rel(r)) => rel(r.complement()),
            (Op1::Comp, v @ (Value::ValSet(_) | Value::Tag(_))) => {
                self.diff(pos, &Value::Unv, &tag2set(v))
            }
            (Op1::Comp, v) => Err(self.err(
                pos,
                format!("set or relation expected, {} found", v.type_name()),
            )),
            (_, v) => Err(self.err(pos, format!("type rel expected, {} found", v.type_name()))),
        }
    }

    fn explicit_set(&self, pos: Pos, vs: Vec<Value<'m>>) -> R<Value<'m>> {
        let events: Option<Vec<usize>> = vs
            .iter()
            .map(|v| {
                if let Value::Event(e) = v {
                    Some(*e)
                } else {
                    None
                }
            })
            .collect();
        let pairs: Option<Vec<(usize, usize)>> = vs
            .iter()
            .map(|v| match v {
                Value::Pair(a, b) => Some((*a as usize, *b as usize)),
                _ => None,
            })
            .collect();
        let mixed = vs
            .iter()
            .any(|v| matches!(v, Value::Event(_) | Value::Pair(..)));
        match (vs.is_empty(), events, pairs) {
            (true, _, _) => Ok(Value::Empty),
            (_, Some(es), _) => Ok(Value::set(Set::from_iter(self.n, es))),
            (_, _, Some(ps)) => Ok(Value::rel(Rel::from_pairs(self.n, ps))),
            _ if mixed => Err(self.err(pos, "heterogeneous set elements")),
            _ => Ok(valset(vs)),
        }
    }

    /// `a | b`: `{}` is neutral and `_` absorbs, as in herd.
    fn union(&self, pos: Pos, a: Value<'m>, b: Value<'m>) -> R<Value<'m>> {
        let a = match a {
            Value::Event(e) => Value::set(Set::from_iter(self.n, [e])),
            Value::Pair(x, y) => Value::rel(pair_rel(self.n, x, y)),
            a => a,
        };
        match (a, b) {
            (Value::Empty, v) | (v, Value::Empty) => Ok(v),
            (Value::Unv, _) | (_, Value::Unv) => Ok(Value::Unv),
            (Value::Set(x), Value::Set(y)) => Ok(Value::set(x.union(&y))),
            (Value::Rel(x), Value::Rel(y)) => Ok(Value::rel(x.union(&y))),
            (Value::ValSet(x), Value::ValSet(y)) => {
                Ok(valset(x.iter().chain(y.iter()).cloned().collect()))
            }
            (x, y) => Err(self.err(
                pos,
                format!("type {} expected, {} found", x.type_name(), y.type_name()),
            )),
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
                    Rel::identity(&self.as_set(&self.eval(env, s)?, s.pos())?)
                }
                a => match self.eval(env, a)? {
                    Value::Empty => return Ok(Value::Empty),
                    v => self.as_rel(&v, a.pos())?,
                },
            };
            acc = Some(match acc {
                None => r,
                Some(acc) => acc.compose(&r),
            });
        }
        Ok(acc.map_or(Value::Unv, Value::rel))
    }

    fn inter(&self, pos: Pos, a: &Value<'m>, b: &Value<'m>) -> R<Value<'m>> {
        match (a, b) {
            (Value::Rel(x), Value::Rel(y)) => Ok(Value::rel(x.inter(y))),
            (Value::Set(x), Value::Set(y)) => Ok(Value::set(x.inter(y))),
            (Value::ValSet(x), Value::ValSet(y)) => {
                let both = x.iter().filter(|v| valset_contains(y, v));
                Ok(Value::ValSet(Rc::new(both.cloned().collect())))
            }
            (Value::Unv, v) | (v, Value::Unv) => Ok(v.clone()),
            (Value::Empty, _) | (_, Value::Empty) => Ok(Value::Empty),
            (x, y) => Err(self.err(
                pos,
                format!("intersection of {} and {}", x.type_name(), y.type_name()),
            )),
        }
    }

    fn diff(&self, pos: Pos, a: &Value<'m>, b: &Value<'m>) -> R<Value<'m>> {
        match (a, b) {
            (Value::Rel(x), Value::Rel(y)) => Ok(Value::rel(x.diff(y))),
            (Value::Set(x), Value::Set(y)) => Ok(Value::set(x.diff(y))),
            (Value::ValSet(x), Value::ValSet(y)) => {
                let left = x.iter().filter(|v| !valset_contains(y, v));
                Ok(Value::ValSet(Rc::new(left.cloned().collect())))
            }
            (Value::Unv, Value::Rel(y)) => Ok(Value::rel(y.complement())),
            (Value::Unv, Value::Set(y)) => Ok(Value::set(y.complement())),
            (Value::Unv, Value::ValSet(y)) => match y.first() {
                Some(Value::Tag(t)) => {
                    let all = self.tags_of(&t.ty).into_iter();
                    let left = all.filter(|t| !valset_contains(y, t));
                    Ok(Value::ValSet(Rc::new(left.collect())))
                }
                _ => Err(self.err(pos, "cannot build universe for element type")),
            },
            (Value::Unv, Value::Empty) => Ok(Value::Unv),
            (_, Value::Unv) | (Value::Empty, _) => Ok(Value::Empty),
            (v @ (Value::Rel(_) | Value::Set(_) | Value::ValSet(_)), Value::Empty) => Ok(v.clone()),
            (x, y) => Err(self.err(
                pos,
                format!("difference of {} and {}", x.type_name(), y.type_name()),
            )),
        }
    }

    /// `e ++ S`: adds an element to a set.
    fn add(&self, pos: Pos, a: Value<'m>, b: Value<'m>) -> R<Value<'m>> {
        add(self.n, a, b).map_err(|m| self.err(pos, m))
    }

    /// Calls a function or a built-in.
    pub fn apply(&self, pos: Pos, f: &Value<'m>, arg: Value<'m>) -> R<Value<'m>> {
        match f {
            Value::Clo(c) => {
                let mut env = c.env.clone();
                if let Some((g, _)) = &c.rec {
                    for (j, (name, def)) in g.funs.iter().enumerate() {
                        env = env.bind(*name, self.closure(&g.env, def, Some((g.clone(), j))));
                    }
                }
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
        pos: Pos,
        at: Pos,
        v: Value<'m>,
        empty: &'m Expr,
        cl: &'m SetClause,
    ) -> R<Value<'m>> {
        let elems: Vec<Value<'m>> = match &v {
            Value::Empty => Vec::new(),
            Value::Set(s) => s.iter().map(Value::Event).collect(),
            Value::Rel(r) => r
                .pairs()
                .map(|(x, y)| Value::Pair(x as u32, y as u32))
                .collect(),
            Value::ValSet(s) => s.to_vec(),
            Value::Unv => return Err(self.err(pos, "cannot set-match on universe")),
            v => {
                let t = v.type_name();
                return Err(self.err(at, format!("set-matching on non-set value of type '{t}'")));
            }
        };
        if elems.is_empty() {
            return self.eval(env, empty);
        }
        // The rest of a set is a set of the same kind.
        let rebuild = |vs: &[Value<'m>]| -> Value<'m> {
            let vs = vs.iter().cloned();
            match &v {
                Value::Set(_) => Value::set(Set::from_iter(
                    self.n,
                    vs.filter_map(|v| {
                        if let Value::Event(e) = v {
                            Some(e)
                        } else {
                            None
                        }
                    }),
                )),
                Value::Rel(_) => Value::rel(Rel::from_pairs(
                    self.n,
                    vs.filter_map(|v| match v {
                        Value::Pair(x, y) => Some((x as usize, y as usize)),
                        _ => None,
                    }),
                )),
                _ => Value::ValSet(Rc::new(vs.collect())),
            }
        };
        let bind = |env: Env<'m>, x: &Option<Sym>, v: Value<'m>| match x {
            Some(x) => env.bind(*x, v),
            None => env,
        };
        match cl {
            SetClause::EltRem(x, rest, body) => {
                let e = bind(env.clone(), x, elems[0].clone());
                self.eval(&bind(e, rest, rebuild(&elems[1..])), body)
            }
            SetClause::PreEltPost(pre, x, post, body) => {
                let mid = elems.len() / 2;
                let e = bind(env.clone(), x, elems[mid].clone());
                let e = bind(e, pre, rebuild(&elems[..mid]));
                self.eval(&bind(e, post, rebuild(&elems[mid + 1..])), body)
            }
        }
    }

    fn cond(&self, env: &Env<'m>, pos: Pos, c: &'m Cond) -> R<bool> {
        let (x, y, a, b) = match c {
            Cond::Variant(v) => return Ok(self.m.variant_holds(v)),
            Cond::Eq(a, b) | Cond::In(a, b) | Cond::Subset(a, b) => {
                (self.eval(env, a)?, self.eval(env, b)?, a, b)
            }
        };
        match c {
            Cond::Eq(..) => Ok(cmp(&x, &y) == Ordering::Equal),
            Cond::In(..) => match (&x, &y) {
                (Value::Event(e), y) => Ok(self.as_set(y, b.pos())?.contains(*e)),
                (Value::Pair(p, q), y) => {
                    Ok(self.as_rel(y, b.pos())?.contains(*p as usize, *q as usize))
                }
                (_, Value::ValSet(s)) => Ok(valset_contains(s, &x)),
                (_, Value::Empty) => Ok(false),
                (_, y) => Err(self.err(b.pos(), format!("set expected, found {}", y.type_name()))),
            },
            _ => match (&x, &y) {
                (Value::Empty, _) => Ok(true),
                (Value::Set(_) | Value::Event(_), _) | (_, Value::Set(_)) => Ok(self
                    .as_set(&x, a.pos())?
                    .is_subset(&self.as_set(&y, b.pos())?)),
                (Value::ValSet(s), Value::ValSet(t)) => Ok(s.iter().all(|v| valset_contains(t, v))),
                (Value::ValSet(s), Value::Empty) => Ok(s.is_empty()),
                _ => Ok(self
                    .as_rel(&x, a.pos())?
                    .is_subset(&self.as_rel(&y, b.pos())?)),
            },
        }
        .map_err(|e| if e.line == 0 { self.err(pos, e.msg) } else { e })
    }

    /// Whether check `t` holds in `env` (its negation applied), and a cycle (or a
    /// reflexive event, or the first pair of an `empty` check's relation) of its relation.
    pub fn test(&self, env: &Env<'m>, t: &'m Test) -> R<(bool, Option<Vec<usize>>)> {
        let v = self.eval(env, &t.expr)?;
        let pos = t.expr.pos();
        let (holds, cycle) = match (t.kind, &v) {
            (TestKind::Empty, Value::Set(s)) => {
                let first = (!s.is_empty()).then(|| s.iter().next()).flatten();
                (first.is_none(), first.map(|e| vec![e, e]))
            }
            (TestKind::Empty, Value::Event(e)) => (false, Some(vec![*e, *e])),
            (TestKind::Empty, Value::ValSet(s)) => (s.is_empty(), None),
            (TestKind::Empty, v) => {
                let r = self.as_rel(v, pos)?;
                let first = (!r.is_empty()).then(|| r.pairs().next()).flatten();
                (first.is_none(), first.map(|(a, b)| vec![a, b]))
            }
            (_, Value::Set(_) | Value::Event(_)) => {
                return Err(self.err(pos, "relation expected"));
            }
            (TestKind::Irreflexive, v) => {
                let r = self.as_rel(v, pos)?;
                let x = (0..self.n).find(|&i| r.contains(i, i));
                (x.is_none(), x.map(|i| vec![i]))
            }
            (TestKind::Acyclic, v) => {
                let c = self.as_rel(v, pos)?.find_cycle();
                (c.is_none(), c)
            }
        };
        Ok((holds != t.negated, cycle))
    }
}

/// A tag taken as the set holding it, where a set is expected.
fn tag2set(v: Value<'_>) -> Value<'_> {
    match v {
        Value::Tag(..) => Value::ValSet(Rc::new(vec![v])),
        v => v,
    }
}
