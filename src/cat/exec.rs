//! Running a model's instructions on one candidate.
//!
//! What remains to run is a persistent stack of frames ([`Kont`]), so `with x from S` can
//! run the rest of the model once per element of `S` by sharing that stack.

use super::ast::*;
use super::eval::{Ctx, R};
use super::native::{Choices, for_each_union};
use super::plan;
use super::prune::{ALL, Coherence, Found, Pruner, Roots, Scan};
use super::value::*;
use super::{CheckKind, Failure, Fatal, Verdict};
use crate::rel::Rel;
use std::rc::Rc;

enum Frame<'m> {
    Seq(&'m [Ins]),
    /// Back from a procedure call: the caller's environment and call depth.
    Restore(Env<'m>, u32),
    Forall {
        x: Sym,
        elems: Rc<Vec<Value<'m>>>,
        next: usize,
        body: &'m [Ins],
        env0: Env<'m>,
    },
}

#[derive(Clone, Default)]
struct Kont<'m>(Option<Rc<(Frame<'m>, Kont<'m>)>>);

impl<'m> Kont<'m> {
    fn push(&self, f: Frame<'m>) -> Kont<'m> {
        Kont(Some(Rc::new((f, self.clone()))))
    }

    /// Where the run goes on, as a key for what is learnt about a `with` site: the
    /// address of the instructions it runs next.
    fn site(&self) -> Option<usize> {
        match &self.0.as_ref()?.0 {
            Frame::Seq(b) => Some(b.as_ptr() as usize),
            _ => None,
        }
    }
}

#[derive(Clone)]
struct State<'m> {
    env: Env<'m>,
    flags: Vec<String>,
    /// `env` is one of the run cache's shared environments (see [`super::RunCache`]).
    shared: bool,
    /// Procedure calls under way (see [`super::MAX_CALL_DEPTH`]).
    calls: u32,
}

/// How a `with` binds its variable in each branch.
enum Binder<'m> {
    /// In the shared environment after the `with`, through the memo slot.
    Shared(Env<'m>, u32),
    Plain(Env<'m>, Sym),
}

pub struct Runner<'c, 'm, 'p> {
    pub cx: &'c Ctx<'m, 'p>,
    pub report: &'c mut dyn FnMut(Verdict) -> bool,
    /// Whether verdicts carry the final `co` and `rf` (for graphs): copying them for every
    /// branch costs more than some branches.
    pub relations: bool,
}

impl<'m> Runner<'_, 'm, '_> {
    /// Runs `progs` in order (stdlib, bell, model); false when the caller asked to stop.
    pub fn run_all(&mut self, progs: &[&'m [Ins]]) -> R<bool> {
        let mut k = Kont::default();
        for p in progs.iter().rev() {
            k = k.push(Frame::Seq(p));
        }
        let st = State {
            env: Env::default(),
            flags: Vec::new(),
            shared: self.cx.cache().is_some(),
            calls: 0,
        };
        self.run(st, k)
    }

    fn verdict(&self, st: &State<'m>, failed: Option<Failure>) -> Verdict {
        let get = |name: &str| {
            if !self.relations {
                return None;
            }
            let x = self.cx.m.names.get(name)?;
            let v = self.cx.lookup(&st.env, x, Pos::default()).ok()?;
            self.cx
                .as_rel(&v, Pos::default())
                .ok()
                .map(|r| (*r).clone())
        };
        Verdict {
            failed,
            flags: st.flags.clone(),
            co: get("co"),
            rf: get("rf"),
        }
    }

    fn run(&mut self, mut st: State<'m>, mut k: Kont<'m>) -> R<bool> {
        loop {
            let Some(node) = k.0.clone() else {
                if self.cx.planning.active() {
                    let rels = self.rels_at(&st);
                    self.cx.planning.step(plan::Step::End(rels));
                    return Ok(true);
                }
                let v = self.verdict(&st, None);
                return Ok((self.report)(v));
            };
            let (frame, rest) = &*node;
            k = rest.clone();
            match frame {
                Frame::Seq(body) => {
                    let mut ins = *body;
                    while let [i, more @ ..] = ins {
                        if st.shared && matches!(i, Ins::Let(..)) {
                            ins = self.lets(&mut st, ins)?;
                            continue;
                        }
                        // Only instructions that branch or enter other code need the rest
                        // of the run as a frame; the others go on here, allocating nothing.
                        let nested = matches!(
                            i,
                            Ins::Match(..)
                                | Ins::Include { .. }
                                | Ins::Call(..)
                                | Ins::Forall(..)
                                | Ins::WithFrom(..)
                                | Ins::IfVariant(..)
                        );
                        if nested {
                            k = k.push(Frame::Seq(more));
                            match self.exec(&mut st, i, k)? {
                                Step::Next(k2) => k = k2,
                                Step::Done(b) => return Ok(b),
                            }
                            break;
                        }
                        if let Step::Done(b) = self.exec(&mut st, i, Kont::default())? {
                            return Ok(b);
                        }
                        ins = more;
                    }
                }
                Frame::Restore(env, calls) => {
                    st.env = env.clone();
                    st.calls = *calls;
                }
                Frame::Forall {
                    x,
                    elems,
                    next,
                    body,
                    env0,
                } => {
                    if *next == elems.len() {
                        st.env = env0.clone();
                    } else {
                        st.env = env0.bind(*x, elems[*next].clone());
                        k = k
                            .push(Frame::Forall {
                                x: *x,
                                elems: elems.clone(),
                                next: next + 1,
                                body,
                                env0: env0.clone(),
                            })
                            .push(Frame::Seq(body));
                    }
                }
            }
        }
    }

    fn exec(&mut self, st: &mut State<'m>, i: &'m Ins, k: Kont<'m>) -> R<Step<'m>> {
        let cx = self.cx;
        match i {
            Ins::Let(_, bds) => {
                let env = st.env.clone();
                let shared = match st.shared {
                    true => self.shared_env(i, &env, || cx.bind_shared(&env, bds))?,
                    false => None,
                };
                st.shared = shared.is_some();
                st.env = match shared {
                    Some(e) => e,
                    None => cx.bind_all(&env, &env, bds)?,
                };
            }
            Ins::Rec(pos, bds, test) => {
                let is_fun = |b: &Binding| matches!(b.expr, Expr::Fun(_));
                let done = if st.shared && !bds.iter().any(is_fun) {
                    self.share_rec_values(st, i, *pos, bds, test.as_ref())?
                } else {
                    match cx.env_rec(&st.env, *pos, bds, test.as_ref())? {
                        Some(env) if st.shared => {
                            self.share_rec_funs(st, i, bds, env)?;
                            true
                        }
                        Some(env) => {
                            st.env = env;
                            true
                        }
                        None => false,
                    }
                };
                if !done {
                    let t = test.as_ref().expect("only a `when` check fails a let rec");
                    return self.fail(st, t, None);
                }
            }
            Ins::Match(pos, e, cls, d) => {
                cx.need_exact(&st.env, e, "a match")?;
                let v = cx.eval(&st.env, e)?;
                let Value::Tag(TagName { name: s, .. }) = v else {
                    return Err(cx.err(
                        e.pos(),
                        format!("matching on non-tag value of type '{}'", v.type_name()),
                    ));
                };
                let branch = cls
                    .iter()
                    .find(|(t, _)| t == s)
                    .map(|(_, b)| b)
                    .or(d.as_ref());
                match branch {
                    Some(b) => return Ok(Step::Next(k.push(Frame::Seq(b)))),
                    None => {
                        return Err(cx.err(*pos, format!("pattern matching failed on value '{s}'")));
                    }
                }
            }
            Ins::Test(t, ty) => {
                if let Some((probed, events, acyclic)) = cx.probe() {
                    if !std::ptr::eq(probed, t) {
                        return Ok(Step::Next(k));
                    }
                    let r = cx.as_rel(&cx.eval(&st.env, &t.expr)?, t.pos)?;
                    let on = r.restrict_domain(events).restrict_range(events);
                    acyclic.set(acyclic.get() && on.is_acyclic());
                    return Ok(Step::Done(true));
                }
                // Bounding from below, a check that fails fails in every candidate; nothing
                // else is settled, so flags and the other tests are not even evaluated.
                if cx.lowering() {
                    let settled = !t.negated || cx.is_exact(&st.env, &t.expr);
                    if *ty != TestType::Check || !settled {
                        return Ok(Step::Next(k));
                    }
                    let Some((ok, cycle)) = self.test_outcome(st, t, *ty)? else {
                        return Ok(Step::Next(k));
                    };
                    if !ok {
                        return self.fail(st, t, cycle);
                    }
                    return Ok(Step::Next(k));
                }
                let Some((ok, cycle)) = self.test_outcome(st, t, *ty)? else {
                    return Ok(Step::Next(k));
                };
                // A bound settles a test where the bounded relation passes it (`acyclic`,
                // `empty`, `irreflexive` then hold in every candidate); else only an exact
                // relation does, or, for an acyclicity check within locations, the check
                // again on each location's choices (see `Model::bound`).
                let holds = ok != t.negated;
                if cx.bounding() && !holds && !cx.is_exact(&st.env, &t.expr) {
                    if *ty == TestType::Check
                        && t.kind == TestKind::Acyclic
                        && !t.negated
                        && self.within_locations(&st.env, t)?
                    {
                        cx.defer(t);
                        return Ok(Step::Next(k));
                    }
                    return Err(cx.give_up(t.pos, "a test"));
                }
                match (ok, ty) {
                    (true, TestType::Flag) => {
                        if let Some(n) = &t.name {
                            self.raise(st, n.clone());
                        }
                    }
                    (true, _) | (false, TestType::Flag) => {}
                    (false, TestType::Check) => return self.fail(st, t, cycle),
                    (false, TestType::UndefinedUnless) => self.raise(st, "*undef*".into()),
                    (false, TestType::Assert) => {
                        let n = t.name.as_deref().unwrap_or("(unknown)");
                        return Err(
                            cx.err(t.pos, format!("{n} assertion failed, check input test"))
                        );
                    }
                }
            }
            Ins::Show(_) | Ins::Events(_) | Ins::Debug(..) => {}
            Ins::Include { pos, name, file } => match file {
                Some(f) => return Ok(Step::Next(k.push(Frame::Seq(&cx.m.files[*f].prog.body)))),
                None => return Err(cx.err(*pos, format!("cannot find file {name}"))),
            },
            Ins::Procedure(_, name, pat, body, is_rec) => {
                st.env = self.define(st, i, |env| {
                    let p = Procedure {
                        pat,
                        body,
                        env: env.clone(),
                        rec_name: is_rec.then_some(*name),
                    };
                    env.bind(*name, Value::Proc(Rc::new(p)))
                })?;
            }
            Ins::Call(pos, name, arg, _) => {
                let Value::Proc(p) = cx.lookup(&st.env, *name, *pos)? else {
                    return Err(cx.err(*pos, "procedure expected"));
                };
                let a = cx.eval(&st.env, arg)?;
                let mut env = p.env.clone();
                if let Some(r) = p.rec_name {
                    env = env.bind(r, Value::Proc(p.clone()));
                }
                let env = cx.bind_pat(&env, *pos, p.pat, a)?;
                if st.calls >= super::MAX_CALL_DEPTH {
                    return Err(cx.too_deep(*pos));
                }
                cx.poll(*pos)?;
                let k = k
                    .push(Frame::Restore(st.env.clone(), st.calls))
                    .push(Frame::Seq(p.body));
                st.env = env;
                st.shared = false;
                st.calls += 1;
                return Ok(Step::Next(k));
            }
            Ins::Enum(_, name, _) => {
                st.env = self.define(st, i, |env| env.bind(*name, cx.m.enum_value(*name)))?;
            }
            Ins::Forall(pos, x, e, body) => {
                cx.need_exact(&st.env, e, "a forall")?;
                let elems = match cx.eval(&st.env, e)? {
                    Value::Empty => Rc::new(Vec::new()),
                    Value::ValSet(s) => s,
                    t @ Value::Tag(..) => Rc::new(vec![t]),
                    _ => return Err(cx.err(*pos, "forall instruction applied to non-set value")),
                };
                let f = Frame::Forall {
                    x: *x,
                    elems,
                    next: 0,
                    body,
                    env0: st.env.clone(),
                };
                st.shared = false;
                return Ok(Step::Next(k.push(f)));
            }
            Ins::WithFrom(_, x, e) if cx.lowering() => return self.lower_with(st, *x, e, k),
            Ins::WithFrom(_, x, e) if cx.bounding() => return self.bounded_with(st, i, *x, e, k),
            Ins::WithFrom(_, x, e) => {
                let v = match cx.choices_cached(&st.env, e)? {
                    // A plan of the candidates of a shape: the orders are a step.
                    Choices::SymOrders(classes, base) if cx.planning.of_globals() => {
                        return self.plan_with(st, i, *x, classes, base, k);
                    }
                    Choices::Orders(classes, base) if cx.planning.of_globals() => {
                        let base = cx.sym_node(&Value::Rel(base), false).expect("a relation");
                        return self.plan_with(st, i, *x, classes, base, k);
                    }
                    Choices::Product(fs) if cx.planning.active() && branch_count(&fs) > 1 => {
                        return Err(cx.sym_lost(e.pos(), "a choice"));
                    }
                    Choices::Val(v) => v,
                    Choices::Product(mut fs) => {
                        let mut pruner = self.pruner(&st.env, *x, &k);
                        pruner.prune(&mut fs);
                        let failed = pruner.failure();
                        let b = self.binder(st, i, *x)?;
                        return self.branches(st, &b, k, &fs, failed);
                    }
                    Choices::Orders(classes, base) => {
                        let mut pruner = self.pruner(&st.env, *x, &k);
                        let fs = pruner.build(&classes, &base, &cx.budget).map_err(|x| {
                            cx.fatal(e.pos(), Fatal::Exhausted(x.clone()), x.to_string())
                        })?;
                        let failed = pruner.failure();
                        let b = self.binder(st, i, *x)?;
                        return self.branches(st, &b, k, &fs, failed);
                    }
                    Choices::SymOrders(..) => return Err(cx.sym_lost(e.pos(), "a choice")),
                };
                return self.each_value(st, i, *x, e, v, k);
            }
            Ins::IfVariant(_, c, yes, no) => {
                let b = if cx.variant(c) { yes } else { no };
                return Ok(Step::Next(k.push(Frame::Seq(b))));
            }
        }
        Ok(Step::Next(k))
    }

    /// Runs the consecutive `let`s that start `ins` in a shared environment, at once when
    /// a candidate ran them from the same environment before (each makes the same shared
    /// environment from the same one); returns the instructions after them.
    fn lets(&mut self, st: &mut State<'m>, ins: &'m [Ins]) -> R<&'m [Ins]> {
        let c = self
            .cx
            .cache()
            .expect("shared environments need a run cache");
        let at = st.env.0.as_ref().map_or(0, |n| Rc::as_ptr(n) as usize);
        let key = (ins.as_ptr() as usize, at);
        if let Some((env, n)) = c.blocks.borrow().get(&key) {
            st.env = env.clone();
            return Ok(&ins[*n..]);
        }
        let mut n = 0;
        while let [i @ Ins::Let(..), ..] = &ins[n..] {
            if !st.shared {
                break;
            }
            self.exec(st, i, Kont::default())?;
            n += 1;
        }
        if st.shared {
            c.blocks.borrow_mut().insert(key, (st.env.clone(), n));
        }
        Ok(&ins[n..])
    }

    /// The shared environment after `i` run in `env` (shared too), built by `build` for
    /// the first candidate that gets there.
    fn shared_env(
        &self,
        i: &'m Ins,
        env: &Env<'m>,
        build: impl FnOnce() -> R<Option<Env<'m>>>,
    ) -> R<Option<Env<'m>>> {
        let c = self
            .cx
            .cache()
            .expect("shared environments need a run cache");
        let at = env.0.as_ref().map_or(0, |n| Rc::as_ptr(n) as usize);
        let key = (i as *const Ins as usize, at);
        if let Some(e) = c.envs.borrow().get(&key) {
            return Ok(Some(e.clone()));
        }
        let e = build()?;
        if let Some(e) = &e {
            e.mark_shared(env);
            c.envs.borrow_mut().insert(key, e.clone());
        }
        Ok(e)
    }

    /// The environment after a definition that binds the same value in every candidate:
    /// built by `bind` from the current one, or the shared one when that is shared.
    fn define(
        &self,
        st: &State<'m>,
        i: &'m Ins,
        bind: impl FnOnce(&Env<'m>) -> Env<'m>,
    ) -> R<Env<'m>> {
        if !st.shared {
            return Ok(bind(&st.env));
        }
        let e = self.shared_env(i, &st.env, || Ok(Some(bind(&st.env))))?;
        Ok(e.expect("a definition always binds"))
    }

    /// Continues a `let rec` with functions in a shared environment: functions alone are
    /// the same in every candidate; with values too, the rest is this candidate's own.
    fn share_rec_funs(
        &self,
        st: &mut State<'m>,
        i: &'m Ins,
        bds: &'m [Binding],
        rec: Env<'m>,
    ) -> R<()> {
        if bds.iter().all(|b| matches!(b.expr, Expr::Fun(_))) {
            st.env = self.define(st, i, |_| rec)?;
        } else {
            st.shared = false;
            st.env = rec;
        }
        Ok(())
    }

    /// Continues a `let rec` of values in a shared environment, each variable in a memo
    /// slot with what its fixpoint read; false when its `when` check fails. A fixpoint this
    /// candidate already computed in an earlier `with` branch, without reading that
    /// `with`'s variable, is still in the memo and is not computed again (the LKMM's
    /// `rcu-order` is empty without RCU, whatever the coherence order).
    fn share_rec_values(
        &self,
        st: &mut State<'m>,
        i: &'m Ins,
        pos: Pos,
        bds: &'m [Binding],
        test: Option<&'m Test>,
    ) -> R<bool> {
        let cx = self.cx;
        let names: Vec<Sym> = bds.iter().flat_map(|b| b.pat.vars()).flatten().collect();
        let env = &st.env;
        let shared = self
            .shared_env(i, env, || {
                let mut e = env.clone();
                for &x in &names {
                    e = e.bind_slot(x, Slot::Memo(cx.new_memo()));
                }
                Ok(Some(e))
            })?
            .expect("built");
        let slots: Vec<(Sym, u32)> = names
            .iter()
            .filter_map(|&x| match shared.lookup(x) {
                Some(Slot::Memo(m)) => Some((x, *m)),
                _ => None,
            })
            .collect();
        if slots.iter().all(|&(_, m)| cx.memo_has(m)) {
            // Read as the fixpoint was.
            for &(_, m) in &slots {
                cx.force(&Slot::Memo(m))?;
            }
        } else {
            let (rec, reads) = cx.reads_of(|| cx.env_rec(env, pos, bds, test));
            let Some(rec) = rec? else {
                return Ok(false);
            };
            for &(x, m) in &slots {
                if let Some(slot) = rec.lookup(x) {
                    cx.memo_set_read(m, cx.force(slot)?, reads);
                }
            }
        }
        st.env = shared;
        Ok(true)
    }

    /// How the `with` at `i` binds `x` in its branches.
    fn binder(&self, st: &State<'m>, i: &'m Ins, x: Sym) -> R<Binder<'m>> {
        if !st.shared {
            return Ok(Binder::Plain(st.env.clone(), x));
        }
        let cx = self.cx;
        let env = &st.env;
        let shared = self
            .shared_env(i, env, || {
                Ok(Some(env.bind_slot(x, Slot::Memo(cx.new_memo()))))
            })?
            .expect("built");
        let Some(Slot::Memo(m)) = shared.lookup(x) else {
            unreachable!("the shared environment of a `with` binds its variable to a memo slot")
        };
        let m = *m;
        Ok(Binder::Shared(shared, m))
    }

    /// The state a branch of a `with` starts from, its variable bound to `v`.
    fn branch(&self, st: &State<'m>, b: &Binder<'m>, v: Value<'m>) -> State<'m> {
        let (env, shared) = match b {
            Binder::Shared(env, m) => {
                self.cx.memo_forget_from(*m);
                self.cx.memo_set(*m, v);
                (env.clone(), true)
            }
            Binder::Plain(env, x) => (env.bind(*x, v), false),
        };
        State {
            env,
            flags: st.flags.clone(),
            shared,
            calls: st.calls,
        }
    }

    /// Runs `k` once per union of one order per factor, after reporting `failed` (why
    /// some orders were dropped).
    fn branches(
        &mut self,
        st: &State<'m>,
        b: &Binder<'m>,
        k: Kont<'m>,
        fs: &[Vec<Rc<Rel>>],
        failed: Option<Failure>,
    ) -> R<Step<'m>> {
        if let Some(f) = failed {
            let v = self.verdict(st, Some(f));
            if !(self.report)(v) {
                return Ok(Step::Done(false));
            }
        }
        let mut res = Ok(true);
        for_each_union(self.cx.n, fs, |r| {
            res = self.cx.poll(Pos::default()).map(|()| true);
            if res.is_ok() {
                let st2 = self.branch(st, b, Value::rel(r));
                res = self.run(st2, k.clone());
            }
            matches!(res, Ok(true))
        });
        res.map(Step::Done)
    }

    /// `with x from` coherence orders in a plan of the candidates of a shape: a step,
    /// whose variable, symbolic, the rest of the model runs on.
    fn plan_with(
        &mut self,
        st: &State<'m>,
        i: &'m Ins,
        x: Sym,
        classes: Vec<crate::rel::Set>,
        base: u32,
        k: Kont<'m>,
    ) -> R<Step<'m>> {
        let cx = self.cx;
        let lost = || cx.sym_lost(Pos::default(), "a choice");
        let site = k.site().ok_or_else(lost)?;
        let node = |name: Sym| {
            let v = cx.lookup(&st.env, name, Pos::default()).ok()?;
            cx.sym_node(&v, false)
        };
        let guard = match self.guard(x, &k) {
            Some((t, rf, po_loc)) => Some((
                t,
                node(rf).ok_or_else(lost)?,
                node(po_loc).ok_or_else(lost)?,
            )),
            None => None,
        };
        let rels = self.rels_at(st);
        let (var, v) = cx.planning.with_input();
        cx.planning.step(plan::Step::With(Box::new(plan::With {
            var,
            classes,
            base,
            guard,
            site,
            rels,
        })));
        let b = self.binder(st, i, x)?;
        let st2 = self.branch(st, &b, v);
        self.run(st2, k).map(Step::Done)
    }

    /// Runs `k` once per element of the set `v`, bound to `x` by the `with` at `i`.
    fn each_value(
        &mut self,
        st: &State<'m>,
        i: &'m Ins,
        x: Sym,
        e: &'m Expr,
        v: Value<'m>,
        k: Kont<'m>,
    ) -> R<Step<'m>> {
        let elems = match v {
            // No choice at all: this candidate has no valid branch.
            Value::Empty => return Ok(Step::Done(true)),
            Value::ValSet(s) => s,
            _ => return Err(self.cx.err(e.pos(), "set expected")),
        };
        if self.cx.planning.active() && elems.len() > 1 {
            return Err(self.cx.sym_lost(e.pos(), "a choice"));
        }
        let b = self.binder(st, i, x)?;
        for v in elems.iter() {
            self.cx.poll(e.pos())?;
            let st2 = self.branch(st, &b, v.clone());
            if !self.run(st2, k.clone())? {
                return Ok(Step::Done(false));
            }
        }
        Ok(Step::Done(true))
    }

    /// `with x from e` in a run bounding a subtree: every branch is run (no order is
    /// pruned, as later checks see bounds, not values), and only a few; choices that
    /// differ between the subtree's candidates are taken only as [`Runner::bounded_orders`]
    /// says.
    fn bounded_with(
        &mut self,
        st: &State<'m>,
        i: &'m Ins,
        x: Sym,
        e: &'m Expr,
        k: Kont<'m>,
    ) -> R<Step<'m>> {
        let cx = self.cx;
        let too_many = || cx.give_up(e.pos(), "too many branches");
        let fs = if !cx.is_exact(&st.env, e) {
            self.bounded_orders(&st.env, e)?
        } else {
            match cx.choices_cached(&st.env, e)? {
                Choices::Orders(classes, base) => {
                    bounded_build(&classes, &base).ok_or_else(too_many)?
                }
                Choices::Product(fs) => {
                    let n = fs.iter().try_fold(1usize, |a, f| a.checked_mul(f.len()));
                    if n.is_none_or(|n| n > BOUNDED_BRANCHES) {
                        return Err(too_many());
                    }
                    fs
                }
                Choices::Val(Value::ValSet(s)) if s.len() > BOUNDED_BRANCHES => {
                    return Err(too_many());
                }
                Choices::Val(v) => return self.each_value(st, i, x, e, v, k),
                Choices::SymOrders(..) => return Err(cx.give_up(e.pos(), "a choice")),
            }
        };
        let b = self.binder(st, i, x)?;
        self.branches(st, &b, k, &fs, None)
    }

    /// `with x from e` bounded from below: one branch, `x` bound to what every choice
    /// contains (for coherence orders, the base they extend, transitively closed). No
    /// choice at all: no candidate has a consistent execution.
    fn lower_with(&mut self, st: &State<'m>, x: Sym, e: &'m Expr, k: Kont<'m>) -> R<Step<'m>> {
        let cx = self.cx;
        let n = cx.n;
        let within = |fs: &[Vec<Rc<Rel>>]| {
            let mut acc = Rel::empty(n);
            for f in fs {
                let mut it = f.iter();
                let first = it.next()?;
                acc.union_with(&it.fold((**first).clone(), |a, r| a.inter(r)));
            }
            Some(acc)
        };
        let choices = if cx.is_exact(&st.env, e) {
            cx.exactly(|| cx.choices(&st.env, e))?
        } else {
            self.coherence_choice(&st.env, e)?.0
        };
        let lower = match choices {
            Choices::Orders(classes, base) => {
                let mut acc = Some(Rel::empty(n));
                for c in classes.iter() {
                    let o = super::builtins::lin_base(&base, c).transitive_closure();
                    match acc.as_mut() {
                        // A cyclic base has no linearisation.
                        Some(a) if o.is_irreflexive() => a.union_with(&o),
                        _ => acc = None,
                    }
                }
                acc.map(Value::rel)
            }
            // The same, for every candidate a plan stands for (see `super::plan`).
            Choices::SymOrders(classes, base) => {
                let v = cx.sym(plan::Op::CoLower(base, Rc::new(classes)), false);
                if let Value::Sym(node) = v {
                    cx.planning.step(plan::Step::NoChoice(node.node));
                }
                Some(v)
            }
            Choices::Product(fs) => within(&fs).map(Value::rel),
            Choices::Val(Value::ValSet(s)) => {
                let rels: Option<Vec<Rc<Rel>>> =
                    s.iter().map(|v| cx.as_rel(v, e.pos()).ok()).collect();
                match rels {
                    Some(rs) => within(&[rs]).map(Value::rel),
                    None => return Err(cx.give_up(e.pos(), "a choice")),
                }
            }
            Choices::Val(Value::Empty) => None,
            Choices::Val(_) => return Err(cx.give_up(e.pos(), "a choice")),
        };
        let Some(lower) = lower else {
            // Every candidate has no branch here.
            return self.failed(st, no_choice());
        };
        let st2 = State {
            env: st.env.bind(x, lower),
            flags: st.flags.clone(),
            shared: false,
            calls: st.calls,
        };
        self.run(st2, k).map(Step::Done)
    }

    /// The choices of `with x from coherence-orders(S, base)` where `base` may differ
    /// between the candidates judged at once but `S` does not: the orders of each class of
    /// `S` extending `base` as it is bounded; and the expression `base`.
    fn coherence_choice(&self, env: &Env<'m>, e: &'m Expr) -> R<(Choices<'m>, &'m Expr)> {
        let cx = self.cx;
        let lost = || cx.give_up(e.pos(), "a choice");
        let Expr::App(_, _, a) = e else {
            return Err(lost());
        };
        let Expr::Op(_, Op2::Tuple, parts) = &**a else {
            return Err(lost());
        };
        let [set, base] = &parts[..] else {
            return Err(lost());
        };
        cx.need_exact(env, set, "a choice")?;
        match cx.choices(env, e)? {
            c @ (Choices::Orders(..) | Choices::SymOrders(..)) => Ok((c, base)),
            _ => Err(lost()),
        }
    }

    /// Whether the check's relation only relates events of the same location.
    fn within_locations(&self, env: &Env<'m>, t: &'m Test) -> R<bool> {
        let cx = self.cx;
        let r = cx.as_rel(&cx.eval(env, &t.expr)?, t.pos)?;
        Ok(cx.p.rels.get("loc").is_some_and(|loc| r.is_subset(loc)))
    }

    /// The choices of `with x from coherence-orders(S, base)` in every candidate of a
    /// bounded subtree where `base` differs between them but `S` does not: the orders
    /// extending a lower bound of `base` when each of them extends its upper bound too
    /// (then every candidate has exactly these); else the bound is given up.
    fn bounded_orders(&self, env: &Env<'m>, e: &'m Expr) -> R<Vec<Vec<Rc<Rel>>>> {
        let cx = self.cx;
        let lost = || cx.give_up(e.pos(), "a choice");
        let (Choices::Orders(classes, upper), base) = self.coherence_choice(env, e)? else {
            return Err(lost());
        };
        if *cx.as_rel(&cx.eval(env, base)?, base.pos())? != *upper {
            return Err(lost());
        }
        let lower = cx.lower(env, base, 16)?;
        let fs = bounded_build(&classes, &lower).ok_or_else(lost)?;
        for (c, f) in classes.iter().zip(&fs) {
            let up = super::builtins::lin_base(&upper, c);
            if !f.iter().all(|o| up.is_subset(o)) {
                return Err(lost());
            }
        }
        Ok(fs)
    }

    /// What drops the per-location orders that would make a later check fail: the
    /// SC-per-location check (see [`super::prune`]) and the lower bounds of the others (see
    /// [`super::prune::bound`]).
    fn pruner<'a>(&'a self, env: &'a Env<'m>, x: Sym, k: &'a Kont<'m>) -> Pruner<'a, 'm> {
        let coherence = Box::new(move || self.coherence(env, x, k));
        Pruner::new(coherence, Box::new(|| None))
    }

    /// The SC-per-location check every branch of the `with` binding `x` runs, if any.
    fn coherence(&self, env: &Env<'m>, x: Sym, k: &Kont<'m>) -> Option<Coherence<'m>> {
        let cx = self.cx;
        let (guard, rf, po_loc) = self.guard(x, k)?;
        let rel = |s: Sym| -> Option<Rc<Rel>> {
            let v = cx.lookup(env, s, Pos::default()).ok()?;
            cx.as_rel(&v, Pos::default()).ok()
        };
        let (rf, po_loc) = (rel(rf)?, rel(po_loc)?);
        Some(Coherence::new(guard, &rf, &po_loc))
    }

    /// The SC-per-location check every branch of the `with` binding `x` runs, if any, with
    /// the names of `rf` and `po-loc`.
    fn guard(&self, x: Sym, k: &Kont<'m>) -> Option<(&'m Test, Sym, Sym)> {
        let cx = self.cx;
        let names = &cx.m.names;
        let (Some(rf), Some(po_loc)) = (names.get("rf"), names.get("po-loc")) else {
            return None;
        };
        // The guard depends only on where the `with` is: look for it once per run cache.
        let site = k.site()?;
        let cached = cx
            .cache()
            .and_then(|c| c.guards.borrow().get(&site).copied());
        let guard = match cached {
            Some(g) => g,
            None => {
                let g = self.find_guard(x, rf, po_loc, k);
                if let Some(c) = cx.cache() {
                    c.guards.borrow_mut().insert(site, g);
                }
                g
            }
        };
        Some((guard?, rf, po_loc))
    }

    /// The SC-per-location check that every branch of the `with` binding `x` runs, if any.
    fn find_guard(&self, x: Sym, rf: Sym, po_loc: Sym, k: &Kont<'m>) -> Option<&'m Test> {
        let cx = self.cx;
        let id = cx.m.names.get("id").filter(|s| !cx.m.bound[s.0 as usize]);
        let mut scan = Scan::new(
            cx.m,
            Roots {
                co: Some(x),
                rf,
                po_loc: Some(po_loc),
                id,
                po_and_loc: None,
            },
            ALL,
        );
        let mut cur = k.0.clone();
        loop {
            let node = cur?;
            match &node.0 {
                Frame::Seq(b) => match scan.scan(b) {
                    Found::Guard(t) => return Some(t),
                    Found::GiveUp => return None,
                    Found::More => {}
                },
                _ => return None,
            }
            cur = node.1.0.clone();
        }
    }

    fn fail(&mut self, st: &State<'m>, t: &Test, cycle: Option<Vec<usize>>) -> R<Step<'m>> {
        self.failed(st, plan::failure(t, cycle))
    }

    /// Reports failure `f` for this branch (or records it, for every branch of the plan
    /// being built).
    fn failed(&mut self, st: &State<'m>, f: Failure) -> R<Step<'m>> {
        if self.cx.planning.active() {
            let rels = self.rels_at(st);
            self.cx.planning.step(plan::Step::Fail(f, rels));
            return Ok(Step::Done(true));
        }
        let v = self.verdict(st, Some(f));
        Ok(Step::Done((self.report)(v)))
    }

    /// Raises flag `name`: for this branch, or for every branch of the plan being built.
    fn raise(&mut self, st: &mut State<'m>, name: String) {
        match self.cx.planning.active() {
            true => self.cx.planning.step(plan::Step::Flag(name)),
            false => st.flags.push(name),
        }
    }

    /// The final `co` and `rf` as nodes of the plan being built, when verdicts carry them.
    fn rels_at(&self, st: &State<'m>) -> plan::Rels {
        let cx = self.cx;
        let node = |name: &str| {
            let x = cx.m.names.get(name)?;
            let v = cx.lookup(&st.env, x, Pos::default()).ok()?;
            cx.sym_node(&v, false)
        };
        self.relations.then(|| (node("co"), node("rf")))
    }

    /// The outcome of check `t`; `None` when it is recorded as a step of the plan being
    /// built instead (see [`Runner::plan_test`]).
    fn test_outcome(
        &mut self,
        st: &State<'m>,
        t: &'m Test,
        ty: TestType,
    ) -> R<Option<super::TestOutcome>> {
        match self.cx.planning.active() {
            true => self.plan_test(st, t, ty),
            false => self.cx.test_eval_cached(&st.env, t).map(Some),
        }
    }

    /// A check met while a plan is built: recorded as a step of the plan when its
    /// relation is symbolic (`None`), else its outcome, the same in every branch.
    fn plan_test(
        &mut self,
        st: &State<'m>,
        t: &'m Test,
        ty: TestType,
    ) -> R<Option<super::TestOutcome>> {
        let cx = self.cx;
        if cx.m.stable_tests.contains(&(t as *const Test as usize)) {
            return cx.test_eval_cached(&st.env, t).map(Some);
        }
        let v = cx.eval(&st.env, &t.expr)?;
        let Value::Sym(x) = v else {
            return cx.test_of(t, &v).map(Some);
        };
        if ty == TestType::Assert || (x.set && t.kind != TestKind::Empty) {
            return Err(cx.sym_lost(t.pos, "a check"));
        }
        let rels = self.rels_at(st);
        cx.planning.step(plan::Step::Test {
            test: t,
            ty,
            node: x.node,
            rels,
        });
        Ok(None)
    }
}

/// Why no candidate bounded from below has a branch at a `with`: it has no choice.
pub fn no_choice() -> Failure {
    Failure {
        kind: CheckKind::Empty,
        negated: true,
        name: "no choice".into(),
        cycle: None,
        pair: None,
    }
}

/// How many branches the factors `fs` make.
fn branch_count(fs: &[Vec<Rc<Rel>>]) -> usize {
    fs.iter()
        .try_fold(1usize, |a, f| a.checked_mul(f.len()))
        .unwrap_or(usize::MAX)
}

/// How many branches a bounded run may take, in all, at one `with`.
const BOUNDED_BRANCHES: usize = 64;

/// For each class, the orders extending `base`, unless that makes more than
/// [`BOUNDED_BRANCHES`] branches (or takes long to find out).
fn bounded_build(classes: &[crate::rel::Set], base: &Rel) -> Option<Vec<Vec<Rc<Rel>>>> {
    // Prefixes tried before the orders of one class count as too many.
    const STEPS: usize = 64 * BOUNDED_BRANCHES;
    let mut fs = Vec::with_capacity(classes.len());
    let mut total = 1usize;
    for s in classes {
        let mut steps = 0;
        let orders = super::builtins::lin_base(base, s).linearisations_pruned(s, true, |_, _| {
            steps += 1;
            steps <= STEPS
        });
        if steps > STEPS {
            return None;
        }
        total = total.saturating_mul(orders.len());
        if total > BOUNDED_BRANCHES {
            return None;
        }
        let none = orders.is_empty();
        fs.push(orders.into_iter().map(Rc::new).collect());
        if none {
            break;
        }
    }
    Some(fs)
}

enum Step<'m> {
    Next(Kont<'m>),
    /// This branch is over; false when the caller asked to stop.
    Done(bool),
}
