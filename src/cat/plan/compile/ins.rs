//! Instructions, compiled into steps. What remains to compile is a persistent stack of
//! frames, as in the reference evaluator, so a `with` over known values other than
//! relations compiles the rest of the model once per value ([`Step::Choose`]).

use super::super::{Guard, Orders, Picks, Rels, Step};
use super::{C, CEnv, Compiler, Stop, V};
use crate::cat::Failure;
use crate::cat::ast::*;
use crate::cat::builtins::{classes_loc, prim_rel, prim_set};
use crate::cat::native::{self, Native};
use crate::cat::ops::tag_branch;
use crate::cat::prune::{ALL, Found, Roots, Scan};
use crate::cat::value::{Procedure, Value};
use crate::rel::{Rel, Set};
use std::rc::Rc;

enum Frame<'m> {
    Seq(&'m [Ins]),
    /// Back from a procedure call: the caller's environment, and how many calls it was in.
    Restore(CEnv<'m>, u32),
    /// The rest of a `forall`: the body for the elements from `next` on, each in `env`.
    Forall {
        x: Sym,
        elems: Rc<Vec<V<'m>>>,
        next: usize,
        body: &'m [Ins],
        env: CEnv<'m>,
    },
}

#[derive(Clone, Default)]
struct Kont<'m>(Option<Rc<(Frame<'m>, Kont<'m>)>>);

impl<'m> Kont<'m> {
    fn push(&self, f: Frame<'m>) -> Kont<'m> {
        Kont(Some(Rc::new((f, self.clone()))))
    }

    /// Where the run goes on, as a key for what pruning learns about a `with` site: the
    /// address of the instructions it runs next.
    fn site(&self) -> usize {
        match &self.0 {
            Some(node) => match &node.0 {
                Frame::Seq(b) => b.as_ptr() as usize,
                _ => Rc::as_ptr(node) as usize,
            },
            None => 0,
        }
    }
}

/// Where an instruction leaves the compilation.
enum Next<'m> {
    On,
    Jump(Kont<'m>),
    /// This branch's steps are complete.
    Done,
}

/// What a `with` chooses from.
enum Choices<'m> {
    Val(V<'m>),
    /// Every union of one relation per factor, all distinct.
    Product(Vec<Vec<Rc<Rel>>>),
    /// The per-location orders of the classes extending a relation (a node).
    Orders(Vec<Set>, u32),
}

impl<'m> Compiler<'m, '_> {
    /// Compiles the model's files, in order, into the plan's steps.
    pub(super) fn run_model(&self) -> C<()> {
        let m = self.m;
        let mut k = Kont::default();
        for &f in m.order.iter().rev() {
            k = k.push(Frame::Seq(&m.files[f].prog.body));
        }
        self.run(CEnv::default(), 0, k)
    }

    /// Compiles `k` from `env`, `calls` procedure calls deep, until the branch ends.
    fn run(&self, mut env: CEnv<'m>, mut calls: u32, mut k: Kont<'m>) -> C<()> {
        loop {
            let Some(node) = k.0.clone() else {
                let rels = self.rels(&env)?;
                self.step(Step::End(rels));
                return Ok(());
            };
            let (frame, rest) = &*node;
            k = rest.clone();
            match frame {
                Frame::Seq(body) => {
                    for (i, ins) in body.iter().enumerate() {
                        let rest = k.push(Frame::Seq(&body[i + 1..]));
                        let next = match self.exec(&mut env, &mut calls, ins, &rest) {
                            // An error of the model is every candidate's that gets here
                            // (a staged check before may end their branches first).
                            Err(Stop::Error(e)) if e.fatal.is_none() => {
                                self.step(Step::Error(*e));
                                return Ok(());
                            }
                            next => next?,
                        };
                        match next {
                            Next::On => {}
                            Next::Jump(k2) => {
                                k = k2;
                                break;
                            }
                            Next::Done => return Ok(()),
                        }
                    }
                }
                Frame::Restore(e, c) => {
                    env = e.clone();
                    calls = *c;
                }
                Frame::Forall {
                    x,
                    elems,
                    next,
                    body,
                    env: e,
                } => {
                    env = e.clone();
                    if let Some(v) = elems.get(*next) {
                        env = e.bind(*x, v.clone());
                        let more = Frame::Forall {
                            x: *x,
                            elems: elems.clone(),
                            next: next + 1,
                            body,
                            env: e.clone(),
                        };
                        k = k.push(more).push(Frame::Seq(body));
                    }
                }
            }
        }
    }

    /// The final `co` and `rf` as nodes, where the model binds them as relations (as the
    /// reference finds them for a verdict: an error leaves one out).
    fn rels(&self, env: &CEnv<'m>) -> C<Rels> {
        let node = |name: &str| -> C<Option<u32>> {
            let Some(x) = self.m.names.get(name) else {
                return Ok(None);
            };
            match self.lookup(env, x, Pos::default()) {
                Ok(v) => Ok(self.node_of(&v, false)),
                Err(Stop::Error(_)) => Ok(None),
                Err(give_up) => Err(give_up),
            }
        };
        Ok((node("co")?, node("rf")?))
    }

    fn fail(&self, env: &CEnv<'m>, t: &Test, cycle: Option<Vec<usize>>) -> C<Next<'m>> {
        let rels = self.rels(env)?;
        self.step(Step::Fail(Failure::of(t, cycle), rels));
        Ok(Next::Done)
    }

    /// Compiles one instruction; `k` is what follows it.
    fn exec(&self, env: &mut CEnv<'m>, calls: &mut u32, i: &'m Ins, k: &Kont<'m>) -> C<Next<'m>> {
        let m = self.m;
        match i {
            Ins::Let(_, bds) => *env = self.bind_lets(env, bds)?,
            Ins::Rec(pos, bds, test) => match self.env_rec(env, *pos, bds, test.as_ref())? {
                Some(e) => *env = e,
                None => {
                    let t = test.as_ref().expect("only a `when` check fails a let rec");
                    return self.fail(env, t, None);
                }
            },
            Ins::Match(pos, e, cls, d) => {
                let v = self.eval(env, e)?;
                let b = tag_branch(&v, cls, d.as_ref(), *pos, e.pos())
                    .map_err(|(p, m)| self.err(p, m))?;
                return Ok(Next::Jump(k.push(Frame::Seq(b))));
            }
            Ins::Test(t, ty) => return self.test(env, t, *ty),
            Ins::Show(_) | Ins::Events(_) | Ins::Debug(..) => {}
            Ins::Include { pos, name, file } => {
                return match file {
                    Some(f) => Ok(Next::Jump(k.push(Frame::Seq(&m.files[*f].prog.body)))),
                    None => Err(self.err(*pos, format!("cannot find file {name}"))),
                };
            }
            Ins::Procedure(_, name, pat, body, is_rec) => {
                let p = Procedure {
                    pat,
                    body,
                    env: env.clone(),
                    rec_name: is_rec.then_some(*name),
                };
                *env = env.bind(*name, Value::Proc(Rc::new(p)));
            }
            Ins::Call(pos, name, arg, _) => {
                let Value::Proc(p) = self.lookup(env, *name, *pos)? else {
                    return Err(self.err(*pos, "procedure expected"));
                };
                let a = self.eval(env, arg)?;
                let mut penv = p.env.clone();
                if let Some(r) = p.rec_name {
                    penv = penv.bind(r, Value::Proc(p.clone()));
                }
                self.poll(*pos)?;
                if *calls >= crate::cat::MAX_CALL_DEPTH {
                    return Err(self.too_deep(*pos));
                }
                let penv = self.bind_pat(&penv, *pos, p.pat, a)?;
                let k = k
                    .push(Frame::Restore(env.clone(), *calls))
                    .push(Frame::Seq(p.body));
                *env = penv;
                *calls += 1;
                return Ok(Next::Jump(k));
            }
            Ins::Enum(_, name, _) => *env = env.bind(*name, m.enum_value(*name)),
            Ins::Forall(pos, x, e, body) => {
                let elems = match self.eval(env, e)? {
                    v if v.is_staged() => return self.give_up(*pos, "a forall"),
                    Value::Empty => Rc::new(Vec::new()),
                    Value::ValSet(s) => s,
                    t @ Value::Tag(..) => Rc::new(vec![t]),
                    _ => return Err(self.err(*pos, "forall instruction applied to non-set value")),
                };
                let f = Frame::Forall {
                    x: *x,
                    elems,
                    next: 0,
                    body,
                    env: env.clone(),
                };
                return Ok(Next::Jump(k.push(f)));
            }
            Ins::WithFrom(_, x, e) => {
                self.with(env, *calls, *x, e, k)?;
                return Ok(Next::Done);
            }
            Ins::IfVariant(_, c, yes, no) => {
                let b = if m.variant_holds(c) { yes } else { no };
                return Ok(Next::Jump(k.push(Frame::Seq(b))));
            }
        }
        Ok(Next::On)
    }

    /// A check, flag or assertion: decided here when its relation is known, a step
    /// otherwise.
    fn test(&self, env: &CEnv<'m>, t: &'m Test, ty: TestType) -> C<Next<'m>> {
        let v = self.eval(env, &t.expr)?;
        let at = |m: String| self.err(t.expr.pos(), m);
        if let Value::Staged(s) = v {
            self.ops.check(t.kind, &self.placeholder(v)).map_err(at)?;
            if ty == TestType::Assert {
                return self.give_up(t.pos, "an assertion");
            }
            let rels = self.rels(env)?;
            self.step(Step::Test {
                test: t,
                ty,
                node: s.node,
                rels,
            });
            return Ok(Next::On);
        }
        let (raw, cycle) = self.ops.check(t.kind, &v).map_err(at)?;
        match (raw != t.negated, ty) {
            (true, TestType::Flag) => {
                if let Some(n) = &t.name {
                    self.step(Step::Flag(n.clone()));
                }
            }
            (true, _) | (false, TestType::Flag) => {}
            (false, TestType::Check) => return self.fail(env, t, cycle),
            (false, TestType::UndefinedUnless) => {
                self.step(Step::Flag("*undef*".into()));
            }
            (false, TestType::Assert) => {
                let n = t.name.as_deref().unwrap_or("(unknown)");
                return Err(self.err(t.pos, format!("{n} assertion failed, check input test")));
            }
        }
        Ok(Next::On)
    }

    /// `with x from e`, the rest of the model being `k`.
    fn with(&self, env: &CEnv<'m>, calls: u32, x: Sym, e: &'m Expr, k: &Kont<'m>) -> C<()> {
        self.poll(e.pos())?;
        let n = self.ops.n;
        let rels = self.rels(env)?;
        let factors = match self.choices(env, e)? {
            Choices::Orders(classes, base) => {
                let guard = self.guard(env, x, k);
                let deps = self.nodes.borrow()[base as usize].deps;
                let (var, v) = self.with_var(deps);
                self.step(Step::Orders(Box::new(Orders {
                    var,
                    classes,
                    base,
                    guard,
                    site: k.site(),
                    rels,
                })));
                return self.run(env.bind(x, v), calls, k.clone());
            }
            Choices::Product(fs) => fs,
            Choices::Val(v) if v.is_staged() => return self.give_up(e.pos(), "a choice"),
            Choices::Val(Value::Empty) => {
                // No choice: the candidate has no branch here (herd's `kfail`).
                self.step(Step::Halt);
                return Ok(());
            }
            Choices::Val(Value::ValSet(s)) => {
                let rels: Option<Vec<Rc<Rel>>> = s
                    .iter()
                    .map(|v| match v {
                        Value::Rel(r) => Some(r.clone()),
                        Value::Empty => Some(Rc::new(Rel::empty(n))),
                        _ => None,
                    })
                    .collect();
                match rels {
                    Some(rs) => vec![rs],
                    None => return self.choose(env, calls, x, &s, k),
                }
            }
            Choices::Val(_) => return Err(self.err(e.pos(), "set expected")),
        };
        match native::pick_count(&factors) {
            0 => {
                self.step(Step::Halt);
                Ok(())
            }
            1 => {
                let mut r = Rel::empty(n);
                factors.iter().for_each(|f| r.union_with(&f[0]));
                self.run(env.bind(x, Value::rel(r)), calls, k.clone())
            }
            _ => {
                let guard = self.guard(env, x, k);
                let (var, v) = self.with_var(0);
                self.step(Step::Picks(Box::new(Picks {
                    var,
                    factors,
                    guard,
                    rels,
                })));
                self.run(env.bind(x, v), calls, k.clone())
            }
        }
    }

    /// `with x from` known values other than relations: the rest compiled once per value.
    fn choose(&self, env: &CEnv<'m>, calls: u32, x: Sym, elems: &[V<'m>], k: &Kont<'m>) -> C<()> {
        let at = self.step(Step::Choose(Vec::new()));
        let mut starts = Vec::with_capacity(elems.len());
        for v in elems {
            starts.push(self.steps.borrow().len());
            self.run(env.bind(x, v.clone()), calls, k.clone())?;
        }
        self.steps.borrow_mut()[at] = Step::Choose(starts);
        Ok(())
    }

    /// What `with x from e` chooses from: the value of `e`, except for the native
    /// products of coherence orders (see [`native`]), which are kept unbuilt.
    fn choices(&self, env: &CEnv<'m>, e: &'m Expr) -> C<Choices<'m>> {
        match e {
            Expr::App(pos, f, a) => {
                let f = self.eval(env, f)?;
                let Value::Clo(c) = &f else {
                    let a = self.eval(env, a)?;
                    return Ok(Choices::Val(self.apply(*pos, &f, a)?));
                };
                let native = self.m.native(c.def);
                if native == Some(Native::Cross)
                    && let Some(orders) = self.orders(env, a)?
                {
                    return Ok(orders);
                }
                let a = self.eval(env, a)?;
                if native == Some(Native::Cross)
                    && let Some(fs) = native::cross_factors(self.ops.n, &a)
                {
                    return Ok(match native::distinct_unions(self.ops.n, &fs) {
                        true => Choices::Product(fs),
                        false => Choices::Val(native::unions(self.ops.n, &fs)),
                    });
                }
                let cenv = c.call_env(|| self.fresh_id());
                let cenv = cenv
                    .bind_pat(&c.def.pat, a)
                    .map_err(|_| self.err(*pos, "argument mismatch"))?;
                self.nested(*pos, || self.choices(&cenv, &c.def.body))
            }
            Expr::Bind(_, bds, body) => self.choices(&self.bind_lets(env, bds)?, body),
            _ => Ok(Choices::Val(self.eval(env, e)?)),
        }
    }

    /// The per-location orders `e` stands for, unbuilt, when it is a native
    /// `orders-per-location` or `co_locs` applied to classes that do not overlap.
    fn orders(&self, env: &CEnv<'m>, e: &'m Expr) -> C<Option<Choices<'m>>> {
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
        let n = self.ops.n;
        let arg = self.eval(env, a)?;
        let parts = match (&arg, native) {
            (Value::Tuple(t), Some(Native::CoLocs)) if t.len() == 2 => {
                let classes: Option<Vec<Set>> = match &t[1] {
                    Value::Empty => Some(Vec::new()),
                    Value::ValSet(s) => s
                        .iter()
                        .map(|v| match v {
                            Value::Set(s) => Some((**s).clone()),
                            Value::Empty => Some(Set::empty(n)),
                            _ => None,
                        })
                        .collect(),
                    _ => None,
                };
                classes.map(|c| (c, &t[0]))
            }
            (Value::Tuple(t), _) if t.len() == 2 && !t[0].is_staged() => {
                let s = prim_set(n, &t[0]).ok();
                s.map(|s| (classes_loc(self.p, &s), &t[1]))
            }
            _ => None,
        };
        let base = parts.as_ref().and_then(|(_, b)| match b {
            Value::Staged(x) if !x.set => Some(x.node),
            b => prim_rel(n, b)
                .ok()
                .and_then(|r| self.node_of(&Value::Rel(r), false)),
        });
        // Other shapes are the cat text's to evaluate, which reports the errors.
        let (Some((classes, _)), Some(base)) = (parts, base) else {
            if arg.is_staged() {
                return self.give_up(e.pos(), "a choice");
            }
            return Ok(None);
        };
        let mut seen = Set::empty(n);
        for c in &classes {
            if !seen.inter(c).is_empty() {
                return Ok(None);
            }
            seen.union_with(c);
        }
        Ok(Some(Choices::Orders(classes, base)))
    }

    /// The SC-per-location check every branch of the `with` binding `x` runs, if any, with
    /// the nodes of `rf` and `po-loc` where the `with` is.
    fn guard(&self, env: &CEnv<'m>, x: Sym, k: &Kont<'m>) -> Option<Guard<'m>> {
        let m = self.m;
        let (rf, po_loc) = (m.names.get("rf")?, m.names.get("po-loc")?);
        let id = m.names.get("id").filter(|&s| !m.binds(s));
        let roots = Roots {
            co: Some(x),
            rf,
            po_loc: Some(po_loc),
            id,
            po_and_loc: None,
            accesses: Vec::new(),
            named_inverse: false,
        };
        let mut scan = Scan::new(m, roots, ALL);
        let mut cur = k.0.clone();
        let test = loop {
            let node = cur?;
            match &node.0 {
                Frame::Seq(b) => match scan.scan(b) {
                    Found::Guard(t) => break t,
                    Found::GiveUp => return None,
                    Found::More => {}
                },
                _ => return None,
            }
            cur = node.1.0.clone();
        };
        let node = |s: Sym| {
            let v = self.lookup(env, s, Pos::default()).ok()?;
            self.node_of(&v, false)
        };
        Some((test, node(rf)?, node(po_loc)?))
    }
}
