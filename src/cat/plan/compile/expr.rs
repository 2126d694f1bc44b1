//! Expressions, compiled: the reference evaluator's order and errors, a node for each
//! operation on a staged value.

use super::super::{Fix, Op};
use super::{C, CEnv, Compiler, Staged, Stop, V};
use crate::cat::ast::*;
use crate::cat::builtins::{self, Builtin};
use crate::cat::ops::{tag_branch, tag2set};
use crate::cat::value::{Closure, Slot, Value};
use crate::cat::value::{RecBindings, empty_for};
use crate::rel::{Rel, Set};
use std::rc::Rc;

impl<'m> Compiler<'m, '_> {
    /// Where a staged value would decide something: the plan is given up.
    pub fn give_up<T>(&self, pos: Pos, what: &'static str) -> C<T> {
        Err(Stop::GiveUp(pos, what))
    }

    fn at(&self, pos: Pos) -> impl Fn(String) -> Stop + '_ {
        move |m| self.err(pos, m)
    }

    pub fn lookup(&self, env: &CEnv<'m>, x: Sym, pos: Pos) -> C<V<'m>> {
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
            None => self.global(x, pos),
        }
    }

    /// `let p1 = e1 and p2 = e2 ...`: each right-hand side in `env`, names bound lazily.
    pub fn bind_lets(&self, env: &CEnv<'m>, bds: &'m [Binding]) -> C<CEnv<'m>> {
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

    pub fn bind_pat(&self, env: &CEnv<'m>, pos: Pos, pat: &Pat, v: V<'m>) -> C<CEnv<'m>> {
        env.bind_pat(pat, v).map_err(|m| self.err(pos, m))
    }

    fn closure(&self, env: &CEnv<'m>, def: &'m FunDef) -> V<'m> {
        Value::Clo(Rc::new(Closure {
            def,
            env: env.clone(),
            rec: None,
            id: self.fresh_id(),
        }))
    }

    fn eval_all(&self, env: &CEnv<'m>, es: &'m [Expr]) -> C<Vec<V<'m>>> {
        es.iter().map(|e| self.eval(env, e).map(tag2set)).collect()
    }

    pub fn eval(&self, env: &CEnv<'m>, e: &'m Expr) -> C<V<'m>> {
        let ops = &self.ops;
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
                self.op1(*pos, *op, v)
            }
            Expr::ExplicitSet(pos, es) => {
                let mut vs = Vec::with_capacity(es.len());
                for a in es {
                    match self.eval(env, a)? {
                        Value::Unv => return Err(self.err(a.pos(), "universe in explicit set")),
                        v if v.is_staged() => return self.give_up(a.pos(), "an element"),
                        v => vs.push(v),
                    }
                }
                ops.explicit_set(vs).map_err(self.at(*pos))
            }
            Expr::Op(_, Op2::Tuple, es) => {
                let vs = es.iter().map(|a| self.eval(env, a));
                Ok(Value::Tuple(Rc::new(vs.collect::<C<_>>()?)))
            }
            Expr::Op(pos, Op2::Union, es) => {
                let vs = self.eval_all(env, es)?;
                self.union(*pos, vs)
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
                let a = self.eval(env, &es[0])?;
                ops.as_set(&self.placeholder(a.clone()))
                    .map_err(self.at(es[0].pos()))?;
                let b = self.eval(env, &es[1])?;
                ops.as_set(&self.placeholder(b.clone()))
                    .map_err(self.at(es[1].pos()))?;
                if !a.is_staged() && !b.is_staged() {
                    return ops.cartesian(&a, &b).map_err(self.at(es[0].pos()));
                }
                let (x, y) = (self.set_node(&a), self.set_node(&b));
                Ok(self.staged(Op::Cart(x, y), false))
            }
            Expr::Op(pos, Op2::Add, es) => {
                let a = self.eval(env, &es[0])?;
                let b = self.eval(env, &es[1])?;
                if a.is_staged() || b.is_staged() {
                    return self.give_up(*pos, "an element");
                }
                ops.add(a, b).map_err(self.at(*pos))
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
                if v.is_staged() {
                    return self.give_up(a.pos(), "a set match");
                }
                let at_set = if matches!(v, Value::Unv) {
                    *pos
                } else {
                    a.pos()
                };
                let elems = ops.elements(&v).map_err(self.at(at_set))?;
                self.match_set(env, &v, &elems, empty, cl)
            }
            Expr::Try(_, a, b) => match self.eval(env, a) {
                Err(Stop::Error(e)) if e.fatal.is_none() => self.eval(env, b),
                v => v,
            },
            Expr::If(pos, c, a, b) => match self.cond(env, *pos, c)? {
                true => self.eval(env, a),
                false => self.eval(env, b),
            },
        }
    }

    /// The node of a set-typed value (checked by the caller).
    fn set_node(&self, v: &V<'m>) -> u32 {
        self.node_of(v, true).expect("a set")
    }

    fn op1(&self, pos: Pos, op: Op1, v: V<'m>) -> C<V<'m>> {
        let Value::Staged(s) = v else {
            return self.ops.op1(op, v).map_err(self.at(pos));
        };
        // The operator's type errors are those of a known value of the same type.
        self.ops
            .op1(op, self.placeholder(v))
            .map_err(self.at(pos))?;
        let x = s.node;
        let (op, set) = match op {
            Op1::ToId => (Op::ToId(x), false),
            Op1::Comp => (Op::Comp(x), s.set),
            Op1::Plus => (Op::Plus(x), false),
            Op1::Star => (Op::Star(x), false),
            Op1::Opt => (Op::Opt(x), false),
            Op1::Inv => (Op::Inv(x), false),
        };
        Ok(self.staged(op, set))
    }

    /// `a | b | ...`, herd's fold from `{}`: the known operands are united first.
    fn union(&self, pos: Pos, vs: Vec<V<'m>>) -> C<V<'m>> {
        let ops = &self.ops;
        if !vs.iter().any(V::is_staged) {
            return vs
                .into_iter()
                .try_fold(Value::Empty, |acc, v| ops.union(acc, v))
                .map_err(self.at(pos));
        }
        let typed = vs
            .iter()
            .try_fold(Value::Empty, |acc, v| {
                ops.union(acc, self.placeholder(v.clone()))
            })
            .map_err(self.at(pos))?;
        let set = match typed {
            Value::Unv => return Ok(Value::Unv),
            Value::Set(_) => true,
            Value::Rel(_) => false,
            _ => return self.give_up(pos, "a union"),
        };
        let mut known = Value::Empty;
        let mut nodes = Vec::new();
        for v in vs {
            match v {
                Value::Staged(s) => nodes.push(s.node),
                v => known = ops.union(known, v).map_err(self.at(pos))?,
            }
        }
        if !crate::cat::value::is_empty_coll(&known) {
            nodes.insert(0, self.node_of(&known, set).expect("typed"));
        }
        nodes.dedup();
        Ok(match nodes[..] {
            [x] => Value::Staged(Staged { node: x, set }),
            _ => self.staged(Op::Union(nodes), set),
        })
    }

    /// `r1; r2; ...` (see the reference's): consecutive known factors are composed here,
    /// and `[S]` stays a set (composing with it restricts).
    fn seq(&self, env: &CEnv<'m>, es: &'m [Expr]) -> C<V<'m>> {
        let n = self.ops.n;
        // Each factor: a known relation, a known `[S]`, or a staged node (with whether it
        // is a set standing for its identity).
        enum F {
            Rel(Rel),
            Id(Set),
            Node(u32, bool),
        }
        let mut fs: Vec<F> = Vec::with_capacity(es.len());
        for a in es {
            let f = match a {
                Expr::Op1(_, Op1::ToId, s) => match self.eval(env, s)? {
                    Value::Staged(x) if x.set => F::Node(x.node, true),
                    v => {
                        let set = self.ops.as_set(&self.placeholder(v.clone()));
                        F::Id((*set.map_err(self.at(s.pos()))?).clone())
                    }
                },
                a => match self.eval(env, a)? {
                    Value::Empty => return Ok(Value::Empty),
                    Value::Staged(x) if !x.set => F::Node(x.node, false),
                    v => {
                        let r = self
                            .ops
                            .as_rel(&self.placeholder(v))
                            .map_err(self.at(a.pos()))?;
                        F::Rel((*r).clone())
                    }
                },
            };
            // Known factors next to each other are one.
            let merged = match (fs.pop(), f) {
                (Some(F::Rel(r)), F::Rel(t)) => F::Rel(r.compose(&t)),
                (Some(F::Rel(r)), F::Id(s)) => F::Rel(r.restrict_range(&s)),
                (Some(F::Id(s)), F::Rel(r)) => F::Rel(r.restrict_domain(&s)),
                (Some(F::Id(s)), F::Id(t)) => F::Id(s.inter(&t)),
                (prev, f) => {
                    fs.extend(prev);
                    f
                }
            };
            fs.push(merged);
        }
        let empty = |f: &F| match f {
            F::Rel(r) => r.is_empty(),
            F::Id(s) => s.is_empty(),
            F::Node(..) => false,
        };
        if fs.iter().any(empty) {
            return Ok(Value::rel(Rel::empty(n)));
        }
        let factors: Vec<(u32, bool)> = match &fs[..] {
            [F::Rel(r)] => return Ok(Value::rel(r.clone())),
            [F::Id(s)] => return Ok(Value::rel(Rel::identity(s))),
            _ => fs
                .into_iter()
                .map(|f| match f {
                    F::Node(x, id) => (x, id),
                    F::Rel(r) => (
                        self.node_of(&Value::rel(r), false).expect("a relation"),
                        false,
                    ),
                    F::Id(s) => (self.node_of(&Value::set(s), true).expect("a set"), true),
                })
                .collect(),
        };
        Ok(match factors[..] {
            [(x, false)] => Value::Staged(Staged {
                node: x,
                set: false,
            }),
            [(x, true)] => self.staged(Op::ToId(x), false),
            _ => self.staged(Op::Seq(factors), false),
        })
    }

    fn inter(&self, pos: Pos, a: &V<'m>, b: &V<'m>) -> C<V<'m>> {
        if !a.is_staged() && !b.is_staged() {
            return self.ops.inter(a, b).map_err(self.at(pos));
        }
        match (a, b) {
            (Value::Unv, v) | (v, Value::Unv) => return Ok(v.clone()),
            (Value::Empty, _) | (_, Value::Empty) => return Ok(Value::Empty),
            _ => {}
        }
        let (pa, pb) = (self.placeholder(a.clone()), self.placeholder(b.clone()));
        let set = matches!(
            self.ops.inter(&pa, &pb).map_err(self.at(pos))?,
            Value::Set(_)
        );
        if [a, b].iter().any(|v| crate::cat::value::is_empty_coll(v)) {
            return Ok(pa);
        }
        let x = self.node_of(a, set).expect("typed");
        let y = self.node_of(b, set).expect("typed");
        Ok(self.staged(Op::Inter(x, y), set))
    }

    fn diff(&self, pos: Pos, a: &V<'m>, b: &V<'m>) -> C<V<'m>> {
        if !a.is_staged() && !b.is_staged() {
            return self.ops.diff(a, b).map_err(self.at(pos));
        }
        let set = |v: &V<'m>| matches!(v, Value::Staged(s) if s.set);
        match (a, b) {
            (Value::Unv, Value::Staged(s)) => return Ok(self.staged(Op::Comp(s.node), s.set)),
            (_, Value::Unv) | (Value::Empty, _) => return Ok(Value::Empty),
            (v, Value::Empty) => return Ok(v.clone()),
            _ => {}
        }
        let (pa, pb) = (self.placeholder(a.clone()), self.placeholder(b.clone()));
        self.ops.diff(&pa, &pb).map_err(self.at(pos))?;
        let set = set(a) || set(b);
        if crate::cat::value::is_empty_coll(a) {
            return Ok(pa);
        }
        if crate::cat::value::is_empty_coll(b) {
            return Ok(a.clone());
        }
        let x = self.node_of(a, set).expect("typed");
        let y = self.node_of(b, set).expect("typed");
        Ok(self.staged(Op::Diff(x, y), set))
    }

    /// Calls a function (its body compiled in place) or a built-in.
    pub fn apply(&self, pos: Pos, f: &V<'m>, arg: V<'m>) -> C<V<'m>> {
        match f {
            Value::Clo(c) => {
                let env = c.call_env(|| self.fresh_id());
                let env = env
                    .bind_pat(&c.def.pat, arg)
                    .map_err(|_| self.err(pos, "argument mismatch"))?;
                self.nested(pos, || self.eval(&env, &c.def.body))
            }
            Value::Prim(b) => self.builtin(pos, *b, arg),
            v => Err(self.err(
                pos,
                format!("closure or primitive expected, {} found", v.type_name()),
            )),
        }
    }

    fn builtin(&self, pos: Pos, b: Builtin, arg: V<'m>) -> C<V<'m>> {
        let call = |arg: V<'m>| {
            builtins::call(b, self.p, arg)
                .map_err(|msg| self.err(pos, format!("primitive {}: {msg}", b.name())))
        };
        // The values are each candidate's: a node even for a known relation.
        if b == Builtin::DifferentValues {
            call(self.placeholder(arg.clone()))?;
            let x = self.node_of(&arg, false).expect("a relation");
            return Ok(self.staged(Op::DiffVals(x), false));
        }
        // Without page-table events, these are empty whatever the relation.
        if matches!(
            b,
            Builtin::SameOa | Builtin::OaChanges | Builtin::AtLeastOneWritable
        ) {
            return call(self.deep_placeholder(arg));
        }
        let Value::Staged(s) = arg else {
            if arg.is_staged() {
                return self.give_up(pos, "a native function");
            }
            return call(arg);
        };
        call(self.placeholder(arg.clone()))?;
        match b {
            Builtin::Domain => Ok(self.staged(Op::Domain(s.node), true)),
            Builtin::Range => Ok(self.staged(Op::Range(s.node), true)),
            Builtin::AsTransitive => Ok(arg),
            _ => self.give_up(pos, "a native function"),
        }
    }

    /// `v` with every staged value in it (in tuples) a typed placeholder.
    fn deep_placeholder(&self, v: V<'m>) -> V<'m> {
        match v {
            Value::Tuple(t) => Value::Tuple(Rc::new(
                t.iter().map(|v| self.deep_placeholder(v.clone())).collect(),
            )),
            v => self.placeholder(v),
        }
    }

    fn match_set(
        &self,
        env: &CEnv<'m>,
        set: &V<'m>,
        elems: &[V<'m>],
        empty: &'m Expr,
        cl: &'m SetClause,
    ) -> C<V<'m>> {
        if elems.is_empty() {
            return self.eval(env, empty);
        }
        let bind = |env: CEnv<'m>, x: &Option<Sym>, v: V<'m>| match x {
            Some(x) => env.bind(*x, v),
            None => env,
        };
        let rest = |vs: &[V<'m>]| self.ops.rebuild(set, vs);
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

    pub fn cond(&self, env: &CEnv<'m>, pos: Pos, c: &'m Cond) -> C<bool> {
        let (a, b) = match c {
            Cond::Variant(v) => return Ok(self.m.variant_holds(v)),
            Cond::Eq(a, b) | Cond::In(a, b) | Cond::Subset(a, b) => (a, b),
        };
        let (x, y) = (self.eval(env, a)?, self.eval(env, b)?);
        if x.is_staged() || y.is_staged() {
            return self.give_up(pos, "a condition");
        }
        let located = |line: Pos, m: String| {
            if line.line == 0 {
                self.err(pos, m)
            } else {
                self.err(line, m)
            }
        };
        match c {
            Cond::Eq(..) => Ok(self.ops.equal(&x, &y)),
            Cond::In(..) => self.ops.member(&x, &y).map_err(|m| located(b.pos(), m)),
            _ => self
                .ops
                .subset(&x, &y)
                .map_err(|(first, m)| located(if first { a.pos() } else { b.pos() }, m)),
        }
    }

    /// `let rec` (see the reference's): rounds run here while every value is known; once
    /// one is staged, the rounds from there on are a [`Fix`] node, iterated when the plan
    /// runs. `None` when the `when` check fails.
    pub fn env_rec(
        &self,
        env: &CEnv<'m>,
        pos: Pos,
        bds: &'m [Binding],
        check: Option<&'m Test>,
    ) -> C<Option<CEnv<'m>>> {
        let rb = RecBindings::split(bds).map_err(|p| self.err(p, "binding mismatch"))?;
        let vals = &rb.vals[..];
        let with_funs = |env: &CEnv<'m>| rb.bind_funs(env, &|| self.fresh_id());
        if vals.is_empty() {
            return Ok(Some(with_funs(env)));
        }
        let mut cur: Vec<V<'m>> = vals.iter().map(|b| empty_for(&b.pat)).collect();
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
            if next.iter().any(V::is_staged) {
                if check.is_some() {
                    return self.give_up(pos, "a checked fixpoint");
                }
                return self.fix(env, pos, vals, &cur, &next, &with_funs).map(Some);
            }
            if let Some(t) = check
                && !self.check_known(&e, t)?
            {
                return Ok(None);
            }
            let mut over = true;
            for (old, new) in cur.iter().zip(&next) {
                over &= self.ops.stabilised(old, new).map_err(self.at(pos))?;
            }
            if over {
                return Ok(Some(e));
            }
            cur = next;
        }
    }

    /// Whether check `t` holds in `env` (negation applied), its relation known.
    fn check_known(&self, env: &CEnv<'m>, t: &'m Test) -> C<bool> {
        let v = self.eval(env, &t.expr)?;
        if v.is_staged() {
            return self.give_up(t.pos, "a checked fixpoint");
        }
        let (holds, _) = self.ops.check(t.kind, &v).map_err(self.at(t.expr.pos()))?;
        Ok(holds != t.negated)
    }

    /// The rounds of a `let rec` from `cur` on, as a [`Fix`] node; `next` is the round
    /// after `cur`, which staged some value (it gives each variable its type).
    fn fix(
        &self,
        env: &CEnv<'m>,
        pos: Pos,
        vals: &[&'m Binding],
        cur: &[V<'m>],
        next: &[V<'m>],
        with_funs: &dyn Fn(&CEnv<'m>) -> CEnv<'m>,
    ) -> C<CEnv<'m>> {
        let mut names = Vec::with_capacity(vals.len());
        for b in vals {
            match b.pat {
                Pat::Var(x) => names.push(x),
                Pat::Tuple(_) => return self.give_up(b.pos, "a fixpoint of tuples"),
            }
        }
        // A variable whose type no value gives yet is taken for a relation, and for a set
        // if its round says so.
        let mut sets: Vec<bool> = next
            .iter()
            .zip(cur)
            .map(|(v, c)| match (v, c) {
                (Value::Staged(s), _) => s.set,
                (Value::Set(_) | Value::Event(_), _) | (_, Value::Set(_)) => true,
                _ => false,
            })
            .collect();
        for _attempt in 0..2 {
            let level = self.level.get();
            let first = self.nodes.borrow().len() as u32;
            let loops: Vec<u32> = sets
                .iter()
                .map(|&set| self.push(Op::Loop, set, level, 0))
                .collect();
            let mut e = env.clone();
            for (x, (&l, &set)) in names.iter().zip(loops.iter().zip(&sets)) {
                if let Some(x) = x {
                    e = e.bind(*x, Value::Staged(Staged { node: l, set }));
                }
            }
            e = with_funs(&e);
            let mut results = Vec::with_capacity(vals.len());
            let mut retype = false;
            for ((b, x), k) in vals.iter().zip(&names).zip(0..) {
                let v = self.eval(&e, &b.expr)?;
                match self.node_of(&v, sets[k]) {
                    Some(r) => results.push(r),
                    None if self.node_of(&v, !sets[k]).is_some() => {
                        sets[k] = !sets[k];
                        retype = true;
                    }
                    None => return self.give_up(b.pos, "a fixpoint"),
                }
                if let Some(x) = x {
                    e = with_funs(&e.bind(*x, v));
                }
            }
            if retype {
                continue;
            }
            let init: Vec<u32> = cur
                .iter()
                .zip(&sets)
                .map(|(c, &set)| self.node_of(c, set))
                .collect::<Option<_>>()
                .ok_or(Stop::GiveUp(pos, "a fixpoint"))?;
            let fix = self.close_fix(first, loops, init, results);
            let mut out = env.clone();
            for (k, x) in names.iter().enumerate() {
                if let Some(x) = x {
                    let l = fix.loops[k];
                    let set = sets[k];
                    let fx = self.fix_node(&fix);
                    out = out.bind(*x, self.staged(Op::Out(fx, l), set));
                }
            }
            return Ok(with_funs(&out));
        }
        self.give_up(pos, "a fixpoint")
    }

    /// The [`Fix`] of loop variables `loops` (the first node made for it is `first`): the
    /// nodes made since that read them are its body; their dependencies and those of the
    /// loop variables are what the body reads from outside.
    fn close_fix(&self, first: u32, loops: Vec<u32>, init: Vec<u32>, results: Vec<u32>) -> Fix {
        let mut nodes = self.nodes.borrow_mut();
        let mut reads = vec![false; nodes.len()];
        for &l in &loops {
            reads[l as usize] = true;
        }
        let mut outside = 0;
        let mut monotone = true;
        let mut body = Vec::new();
        for x in first as usize..nodes.len() {
            let op = &nodes[x].op;
            let mut inner = false;
            super::super::each_operand(op, |y| inner |= reads[y as usize]);
            if !inner {
                continue;
            }
            reads[x] = true;
            body.push(x as u32);
            super::super::each_operand(op, |y| {
                if !reads[y as usize] {
                    outside |= nodes[y as usize].deps;
                }
            });
            monotone &= match op {
                Op::Diff(_, b) => !reads[*b as usize],
                Op::Comp(_) | Op::Fix(_) => false,
                _ => true,
            };
        }
        for &i in &init {
            outside |= nodes[i as usize].deps;
        }
        for &l in loops.iter().chain(&body) {
            nodes[l as usize].deps |= outside;
        }
        Fix {
            loops,
            init,
            results,
            body,
            monotone,
        }
    }

    /// The node of a fixpoint (made once: its `Out` nodes share it).
    fn fix_node(&self, fix: &Fix) -> u32 {
        let key = Op::Fix(Rc::new(Fix {
            loops: fix.loops.clone(),
            init: fix.init.clone(),
            results: fix.results.clone(),
            body: fix.body.clone(),
            monotone: fix.monotone,
        }));
        self.node(key, false)
    }
}
