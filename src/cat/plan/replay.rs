//! Running plans: each node computed at most once per run, into a buffer of its own, and
//! the verdicts of one candidate (see [`judge`]).
//!
//! [`Replay`] holds the buffers and computes nodes on demand, in its [`Sense`]: a node is
//! computed again only when an input of its level changed (a new candidate renews level
//! 1, a new branch of a `with` its variable's level), and `A & B`, `A \ B` and sequences
//! compute their later operands only while the result may be non-empty.

use super::{Fix, Op, Orders, Picks, Plan, Rels, Sense, Step};
use crate::budget::{Budget, Exhausted};
use crate::cat::ast::{TestKind, TestType};
use crate::cat::native::for_each_pick;
use crate::cat::prune::{Below, Coherence, Pruner, prefix_pays};
use crate::cat::tally::Tally;
use crate::cat::{CatError, EventInfo, Failure, Fatal, Primitives, Verdict, fatal_error};
use crate::rel::{Rel, Set};
use std::cell::RefCell;
use std::rc::Rc;

/// A node's value while a plan runs.
pub enum Buf {
    Rel(Rel),
    Set(Set),
}

impl Buf {
    pub fn rel(&self) -> &Rel {
        match self {
            Buf::Rel(r) => r,
            Buf::Set(_) => unreachable!("a plan's nodes are typed when built"),
        }
    }
    pub fn set(&self) -> &Set {
        match self {
            Buf::Set(s) => s,
            Buf::Rel(_) => unreachable!("a plan's nodes are typed when built"),
        }
    }
    fn rel_mut(&mut self) -> &mut Rel {
        match self {
            Buf::Rel(r) => r,
            Buf::Set(_) => unreachable!("a plan's nodes are typed when built"),
        }
    }
    fn set_mut(&mut self) -> &mut Set {
        match self {
            Buf::Set(s) => s,
            Buf::Rel(_) => unreachable!("a plan's nodes are typed when built"),
        }
    }
    pub fn is_empty(&self) -> bool {
        match self {
            Buf::Rel(r) => r.is_empty(),
            Buf::Set(s) => s.is_empty(),
        }
    }
    fn clear(&mut self) {
        match self {
            Buf::Rel(r) => r.clear(),
            Buf::Set(s) => s.clear(),
        }
    }
    fn fill(&mut self) {
        match self {
            Buf::Rel(r) => {
                r.clear();
                r.complement_in_place();
            }
            Buf::Set(s) => {
                s.clear();
                s.complement_in_place();
            }
        }
    }
    fn copy_from(&mut self, o: &Buf) {
        match (self, o) {
            (Buf::Rel(r), Buf::Rel(x)) => r.copy_from(x),
            (Buf::Set(s), Buf::Set(x)) => s.copy_from(x),
            _ => unreachable!("a plan's nodes are typed when built"),
        }
    }
    fn is_subset(&self, o: &Buf) -> bool {
        match (self, o) {
            (Buf::Rel(r), Buf::Rel(x)) => r.is_subset(x),
            (Buf::Set(s), Buf::Set(x)) => s.is_subset(x),
            _ => unreachable!("a plan's nodes are typed when built"),
        }
    }
}

/// A value given to a plan's input.
#[derive(Clone, Copy)]
pub enum In<'a> {
    Rel(&'a Rel),
    Set(&'a Set),
}

/// The buffers of one plan's nodes, reused by every run, and how runs take them.
pub struct Replay {
    pub bufs: Vec<Buf>,
    /// When each node was last computed (constants: always).
    stamp: Vec<u64>,
    /// Per level, from when a value computed is still valid: a new candidate renews every
    /// level, a new branch of a `with` its variable's level and deeper.
    valid: Vec<u64>,
    tick: u64,
    pub sense: Sense,
    tmp: Rel,
    /// What fixpoints may spend (a round that does not converge runs until it is spent).
    budget: Budget,
    /// The budget ran out while a fixpoint iterated: the run's values mean nothing.
    pub exhausted: Option<Exhausted>,
}

const ALWAYS: u64 = u64::MAX;

impl Replay {
    /// Buffers for `plan`'s runs over `n` events, taken in `sense`.
    pub fn new(plan: &Plan, n: usize, sense: Sense) -> Replay {
        let mut stamp = vec![0; plan.nodes.len()];
        let bufs = plan
            .nodes
            .iter()
            .zip(&mut stamp)
            .map(|(node, st)| match &node.op {
                Op::Rel(r) => {
                    *st = ALWAYS;
                    Buf::Rel((*r.0).clone())
                }
                Op::Set(s) => {
                    *st = ALWAYS;
                    Buf::Set((*s.0).clone())
                }
                _ if node.set => Buf::Set(Set::empty(n)),
                _ => Buf::Rel(Rel::empty(n)),
            })
            .collect();
        let levels = plan.nodes.iter().map(|x| x.level).max().unwrap_or(0) as usize + 1;
        // Level 0 is never renewed: its nodes are computed once, by the first run.
        let mut valid = vec![0; levels.max(2)];
        valid[0] = 1;
        Replay {
            bufs,
            stamp,
            valid,
            tick: 0,
            sense,
            tmp: Rel::empty(n),
            budget: Budget::unlimited(),
            exhausted: None,
        }
    }

    /// A new run from level `level` on: the values of the levels below stay.
    pub fn renew(&mut self, level: u8) {
        self.tick += 1;
        for v in &mut self.valid[level as usize..] {
            *v = self.tick;
        }
    }

    /// Sets node `x` (an input or a variable).
    pub fn set(&mut self, x: u32, v: In) {
        match (&mut self.bufs[x as usize], v) {
            (Buf::Rel(b), In::Rel(v)) => b.copy_from(v),
            (Buf::Set(b), In::Set(v)) => b.copy_from(v),
            _ => unreachable!("inputs are typed when built"),
        }
        self.stamp[x as usize] = self.tick;
    }

    /// Starts a run on a new candidate: its inputs (the plan's, by name, from `p`) and
    /// the budget its fixpoints may spend.
    pub fn start(&mut self, plan: &Plan, p: &Primitives, budget: &Budget) {
        self.renew(1);
        self.budget = budget.clone();
        self.exhausted = None;
        for (k, &(name, set)) in plan.inputs.iter().enumerate() {
            let v = match set {
                true => In::Set(p.sets.get(name).expect("an input of the shape")),
                false => In::Rel(p.rels.get(name).expect("an input of the shape")),
            };
            self.set(k as u32, v);
        }
    }

    pub fn rel(&self, x: u32) -> &Rel {
        self.bufs[x as usize].rel()
    }

    /// Computes node `id` for the current run, and the operands it needs first, unless it
    /// is computed already.
    #[inline(always)]
    pub fn eval(&mut self, plan: &Plan, id: u32, events: &[EventInfo]) {
        let i = id as usize;
        if self.stamp[i] == ALWAYS || self.stamp[i] >= self.valid[plan.nodes[i].level as usize] {
            return;
        }
        self.eval_now(plan, i, events);
    }

    #[inline(never)]
    fn eval_now(&mut self, plan: &Plan, i: usize, events: &[EventInfo]) {
        let node = &plan.nodes[i];
        let op = &node.op;
        // A bound of an operator that is not monotone in what differs between the
        // candidates bounded: coarser (see `Sense`).
        if self.sense != Sense::Exact {
            let varies = |x: &u32| self.sense.varies(&plan.nodes[*x as usize]);
            let coarse = match op {
                Op::Diff(a, b) if varies(b) => Some(Some(*a)),
                Op::Comp(a) if varies(a) => Some(None),
                Op::DiffVals(a) if !self.sense.from_below() => Some(Some(*a)),
                _ => None,
            };
            if let Some(keep) = coarse {
                match (keep, self.sense.from_below()) {
                    (_, true) => self.bufs[i].clear(),
                    (None, false) => self.bufs[i].fill(),
                    (Some(a), false) => {
                        self.eval(plan, a, events);
                        let (lo, hi) = self.bufs.split_at_mut(i);
                        hi[0].copy_from(&lo[a as usize]);
                    }
                }
                self.stamp[i] = self.tick;
                return;
            }
        }
        match op {
            // Operands needed only when the first one is not empty.
            Op::Inter(a, _) | Op::Diff(a, _) => self.eval(plan, *a, events),
            // Factors computed one at a time, while the product is not empty.
            Op::Seq(_) => {}
            Op::Fix(fix) => {
                self.fix(plan, i, fix, events);
                self.stamp[i] = self.tick;
                return;
            }
            _ => super::each_operand(op, |x| self.eval(plan, x, events)),
        }
        let second = match op {
            Op::Inter(a, b) | Op::Diff(a, b) if !self.bufs[*a as usize].is_empty() => Some(*b),
            _ => None,
        };
        if let Some(b) = second {
            self.eval(plan, b, events);
        }
        if let Op::Seq(fs) = op {
            self.seq(plan, i, fs, events);
        } else {
            self.compute(plan, i, second.is_some(), events);
        }
        self.stamp[i] = self.tick;
    }

    /// Iterates fixpoint `fix` (node `i`), herd's way: each round computes the results
    /// from the loop variables, until none grows.
    fn fix(&mut self, plan: &Plan, i: usize, fix: &Fix, events: &[EventInfo]) {
        for &x in &fix.init {
            self.eval(plan, x, events);
        }
        if !fix.monotone && self.sense.varies(&plan.nodes[i]) {
            // Iterating bounds bounds nothing: the universe does (or nothing, from below).
            let up = !self.sense.from_below();
            for &l in &fix.loops {
                let b = &mut self.bufs[l as usize];
                if up {
                    b.fill()
                } else {
                    b.clear()
                }
                self.stamp[l as usize] = self.tick;
            }
            return;
        }
        for (&l, &x) in fix.loops.iter().zip(&fix.init) {
            let (lo, hi) = split_two(&mut self.bufs, l as usize, x as usize);
            lo.copy_from(hi);
            self.stamp[l as usize] = self.tick;
        }
        loop {
            if let Err(x) = self.budget.check() {
                self.exhausted = Some(x);
                return;
            }
            for &b in &fix.body {
                self.stamp[b as usize] = 0;
            }
            for &x in &fix.results {
                self.eval(plan, x, events);
            }
            let mut stable = true;
            for (&l, &x) in fix.loops.iter().zip(&fix.results) {
                let (loop_var, result) = split_two(&mut self.bufs, l as usize, x as usize);
                stable &= result.is_subset(loop_var);
                loop_var.copy_from(result);
                self.stamp[l as usize] = self.tick;
            }
            if stable {
                return;
            }
        }
    }

    /// Computes node `i` from its operands, computed already.
    fn compute(&mut self, plan: &Plan, i: usize, second: bool, events: &[EventInfo]) {
        let (lo, hi) = self.bufs.split_at_mut(i);
        let out = &mut hi[0];
        let at = |x: &u32| &lo[*x as usize];
        match &plan.nodes[i].op {
            Op::Union(xs) => {
                let or = |x: u64, y: u64| x | y;
                match (&mut *out, at(&xs[0]), at(&xs[1])) {
                    (Buf::Rel(o), Buf::Rel(x), Buf::Rel(y)) => o.assign(x, y, or),
                    (Buf::Set(o), Buf::Set(x), Buf::Set(y)) => o.assign(x, y, or),
                    _ => unreachable!("a plan's nodes are typed when built"),
                }
                for x in &xs[2..] {
                    match (&mut *out, at(x)) {
                        (Buf::Rel(o), Buf::Rel(v)) => o.union_with(v),
                        (Buf::Set(o), Buf::Set(v)) => o.union_with(v),
                        _ => unreachable!("a plan's nodes are typed when built"),
                    }
                }
            }
            op @ (Op::Inter(a, b) | Op::Diff(a, b)) => match second {
                false => out.clear(),
                true => {
                    let inter = matches!(op, Op::Inter(..));
                    let and = |x: u64, y: u64| x & y;
                    let but = |x: u64, y: u64| x & !y;
                    match (&mut *out, at(a), at(b), inter) {
                        (Buf::Rel(o), Buf::Rel(x), Buf::Rel(y), true) => o.assign(x, y, and),
                        (Buf::Set(o), Buf::Set(x), Buf::Set(y), true) => o.assign(x, y, and),
                        (Buf::Rel(o), Buf::Rel(x), Buf::Rel(y), false) => o.assign(x, y, but),
                        (Buf::Set(o), Buf::Set(x), Buf::Set(y), false) => o.assign(x, y, but),
                        _ => unreachable!("a plan's nodes are typed when built"),
                    }
                }
            },
            Op::Comp(a) => {
                out.copy_from(at(a));
                match out {
                    Buf::Rel(o) => o.complement_in_place(),
                    Buf::Set(o) => o.complement_in_place(),
                }
            }
            Op::Cart(a, b) => out.rel_mut().set_cartesian(at(a).set(), at(b).set()),
            Op::Inv(a) => at(a).rel().inverse_into(out.rel_mut()),
            op @ (Op::Plus(a) | Op::Star(a) | Op::Opt(a)) => {
                let o = out.rel_mut();
                o.copy_from(at(a).rel());
                if !matches!(op, Op::Opt(_)) {
                    o.close_in_place();
                }
                if !matches!(op, Op::Plus(_)) {
                    o.add_identity();
                }
            }
            Op::ToId(a) => out.rel_mut().set_identity(at(a).set()),
            Op::Domain(a) => at(a).rel().domain_into(out.set_mut()),
            Op::Range(a) => at(a).rel().range_into(out.set_mut()),
            Op::DiffVals(a) => {
                let o = out.rel_mut();
                o.copy_from(at(a).rel());
                let same = |x: usize, y: usize| matches!((events[x].val, events[y].val), (Some(p), Some(q)) if p == q);
                let pairs: Vec<(usize, usize)> = o.pairs().filter(|&(x, y)| same(x, y)).collect();
                for (x, y) in pairs {
                    o.remove(x, y);
                }
            }
            Op::Out(_, l) => out.copy_from(at(l)),
            Op::Seq(_) | Op::Input | Op::With | Op::Loop | Op::Fix(_) | Op::Rel(_) | Op::Set(_) => {
            }
        }
    }

    /// A sequence, factor by factor, stopping as soon as the product is empty (the later
    /// factors are then not computed).
    fn seq(&mut self, plan: &Plan, i: usize, fs: &[(u32, bool)], events: &[EventInfo]) {
        // The first factor is read where it is, when the second is a relation.
        let (f0, id0) = fs[0];
        self.eval(plan, f0, events);
        let mut started = false;
        for (k, &(f, id)) in fs.iter().enumerate() {
            if k == 0 && !fs[1].1 {
                if self.bufs[f0 as usize].is_empty() {
                    self.bufs[i].clear();
                    return;
                }
                continue;
            }
            self.eval(plan, f, events);
            let (lo, hi) = self.bufs.split_at_mut(i);
            let out = hi[0].rel_mut();
            let x = &lo[f as usize];
            match (id, started) {
                (true, false) => out.set_identity(x.set()),
                (true, true) => out.restrict_range_in_place(x.set()),
                (false, false) if k == 1 && id0 => {
                    out.copy_from(x.rel());
                    out.restrict_domain_in_place(lo[f0 as usize].set());
                }
                (false, false) if k == 1 => lo[f0 as usize].rel().compose_into(x.rel(), out),
                (false, false) => out.copy_from(x.rel()),
                (false, true) => {
                    out.compose_into(x.rel(), &mut self.tmp);
                    std::mem::swap(out, &mut self.tmp);
                }
            }
            started = true;
            if out.is_empty() {
                return;
            }
        }
    }
}

/// Two distinct buffers, mutably: `a`'s and `b`'s.
fn split_two(bufs: &mut [Buf], a: usize, b: usize) -> (&mut Buf, &Buf) {
    if a < b {
        let (lo, hi) = bufs.split_at_mut(b);
        (&mut lo[a], &hi[0])
    } else {
        let (lo, hi) = bufs.split_at_mut(a);
        (&mut hi[0], &lo[b])
    }
}

/// Whether a check of kind `kind` holds on `v` (negation aside), with what breaks it when
/// it does not (see [`Failure::of`]).
pub fn outcome(kind: TestKind, v: &Buf) -> (bool, Option<Vec<usize>>) {
    match kind {
        TestKind::Empty => match v {
            Buf::Rel(r) => {
                let first = (!r.is_empty()).then(|| r.pairs().next()).flatten();
                (first.is_none(), first.map(|(a, b)| vec![a, b]))
            }
            Buf::Set(s) => {
                let first = (!s.is_empty()).then(|| s.iter().next()).flatten();
                (first.is_none(), first.map(|e| vec![e, e]))
            }
        },
        TestKind::Irreflexive => {
            let r = v.rel();
            let x = (0..r.universe()).find(|&i| r.contains(i, i));
            (x.is_none(), x.map(|i| vec![i]))
        }
        TestKind::Acyclic => {
            let c = v.rel().find_cycle();
            (c.is_none(), c)
        }
    }
}

/// What a candidate's run reports to, and with what.
pub struct Run<'a, 'e> {
    pub events: &'e [EventInfo],
    /// Whether verdicts carry the final `co` and `rf` (for graphs).
    pub relations: bool,
    pub report: &'a mut dyn FnMut(Verdict) -> bool,
    /// How often testing prefixes of orders paid, by (site, elements left).
    pub pays: &'a Tally,
    /// See `Tuning::prune_orders`.
    pub prune: bool,
    /// See `Tuning::orders_max`.
    pub orders_max: u64,
    /// See `Tuning::prefix_trial`.
    pub trial: u32,
    /// What the run may spend: polled at each branch.
    pub budget: &'a Budget,
    /// Why the run stopped, if it did: the budget ran out, or the model met an error.
    pub stopped: Option<CatError>,
    /// `with` steps that dropped choices before their branches ran.
    pub pruned: u64,
}

/// Every verdict of the candidate `p`, one of those `plan` was made for, to the run's
/// report; `Err` when the budget ran out or the model met an error. With how many `with`
/// steps dropped choices.
pub fn judge(
    plan: &Plan,
    r: &mut Replay,
    p: &Primitives,
    mut run: Run,
) -> (Result<(), CatError>, u64) {
    r.start(plan, p, run.budget);
    walk(plan, r, 0, Vec::new(), &mut run);
    let exhausted = r.exhausted.take().map(|x| fatal_error(Fatal::Exhausted(x)));
    let res = match run.stopped.or(exhausted) {
        Some(e) => Err(e),
        None => Ok(()),
    };
    (res, run.pruned)
}

impl Run<'_, '_> {
    fn exhausted(&mut self, x: Exhausted) {
        self.stopped = Some(fatal_error(Fatal::Exhausted(x)));
    }
}

/// Runs the steps from `from` on, reporting the verdict of each branch; false when the
/// report asked to stop (or the budget ran out).
fn walk(plan: &Plan, r: &mut Replay, from: usize, mut flags: Vec<String>, run: &mut Run) -> bool {
    let events = run.events;
    for (i, step) in plan.steps.iter().enumerate().skip(from) {
        match step {
            Step::Test {
                test,
                ty,
                node,
                rels,
            } => {
                r.eval(plan, *node, events);
                if r.exhausted.is_some() {
                    return false;
                }
                let (holds, cycle) = outcome(test.kind, &r.bufs[*node as usize]);
                match (holds != test.negated, ty) {
                    (true, TestType::Flag) => flags.extend(test.name.iter().cloned()),
                    (false, TestType::UndefinedUnless) => flags.push("*undef*".into()),
                    (false, TestType::Check) => {
                        let f = Failure::of(test, cycle);
                        return report(plan, r, Some(f), flags, *rels, run);
                    }
                    _ => {}
                }
            }
            Step::Flag(name) => flags.push(name.clone()),
            Step::Fail(f, rels) => return report(plan, r, Some(f.clone()), flags, *rels, run),
            Step::End(rels) => return report(plan, r, None, flags, *rels, run),
            Step::Halt => return true,
            Step::Error(e) => {
                run.stopped = Some(e.clone());
                return false;
            }
            Step::Orders(o) => return orders(plan, r, i, o, flags, run),
            Step::Picks(p) => return picks(plan, r, i, p, flags, run),
            Step::Choose(starts) => {
                return starts.iter().all(|&s| {
                    if let Err(x) = run.budget.check() {
                        run.exhausted(x);
                        return false;
                    }
                    walk(plan, r, s, flags.clone(), run)
                });
            }
        }
    }
    true
}

fn report(
    plan: &Plan,
    r: &mut Replay,
    failed: Option<Failure>,
    flags: Vec<String>,
    rels: Rels,
    run: &mut Run,
) -> bool {
    let (co, rf) = if run.relations { rels } else { (None, None) };
    let mut get = |x: Option<u32>| {
        x.map(|x| {
            r.eval(plan, x, run.events);
            r.rel(x).clone()
        })
    };
    let v = Verdict {
        failed,
        flags,
        co: get(co),
        rf: get(rf),
    };
    (run.report)(v)
}

/// The SC-per-location guard of a `with`, on this run's values.
fn coherence<'m>(
    plan: &Plan<'m>,
    r: &mut Replay,
    guard: Option<super::Guard<'m>>,
    events: &[EventInfo],
) -> Option<Coherence<'m>> {
    let (t, rf, po_loc) = guard?;
    r.eval(plan, rf, events);
    r.eval(plan, po_loc, events);
    Some(Coherence::new(t, r.rel(rf), r.rel(po_loc)))
}

/// The `with` over orders at step `i`: its orders, built and cut natively (see
/// [`Pruner`]), each running the steps after it.
fn orders(
    plan: &Plan,
    r: &mut Replay,
    i: usize,
    o: &Orders,
    flags: Vec<String>,
    run: &mut Run,
) -> bool {
    let events = run.events;
    r.eval(plan, o.base, events);
    let base = r.rel(o.base).clone();
    let coherence = coherence(plan, r, o.guard.filter(|_| run.prune), events);
    let level = plan.nodes[o.var as usize].level;
    let prune = run.prune;
    let (fs, failed) = {
        let below = PlanBelow {
            plan,
            r: RefCell::new(&mut *r),
            from: i + 1,
            var: o.var,
            level,
            site: o.site,
            events,
            pays: run.pays,
            trial: run.trial,
        };
        let mut pruner = Pruner::new(
            Box::new(move || coherence),
            Box::new(move || prune.then(|| Box::new(below) as Box<dyn Below + '_>)),
        );
        let fs = pruner.build(&o.classes, &base, run.budget, run.orders_max);
        (fs, pruner.failure())
    };
    let fs = match fs {
        Ok(fs) => fs,
        Err(x) => {
            run.exhausted(x);
            return false;
        }
    };
    branches(plan, r, i, o.var, level, &fs, failed, o.rels, flags, run)
}

/// The `with` over known relations at step `i`: the choices the guard does not reject,
/// each running the steps after it.
fn picks(
    plan: &Plan,
    r: &mut Replay,
    i: usize,
    p: &Picks,
    flags: Vec<String>,
    run: &mut Run,
) -> bool {
    let coherence = coherence(plan, r, p.guard.filter(|_| run.prune), run.events);
    let mut fs = p.factors.clone();
    let mut pruner = Pruner::new(Box::new(move || coherence), Box::new(|| None));
    pruner.prune(&mut fs);
    let failed = pruner.failure();
    let level = plan.nodes[p.var as usize].level;
    branches(plan, r, i, p.var, level, &fs, failed, p.rels, flags, run)
}

/// Runs the steps after step `i` once per union of one relation per factor, the variable
/// `var` bound to it, after reporting `failed` (why some choices were dropped).
#[allow(clippy::too_many_arguments)]
fn branches(
    plan: &Plan,
    r: &mut Replay,
    i: usize,
    var: u32,
    level: u8,
    fs: &[Vec<Rc<Rel>>],
    failed: Option<Failure>,
    rels: Rels,
    flags: Vec<String>,
    run: &mut Run,
) -> bool {
    if let Some(f) = failed {
        run.pruned += 1;
        if !report(plan, r, Some(f), flags.clone(), rels, run) {
            return false;
        }
    }
    for_each_pick(fs, |pick| {
        if let Err(x) = run.budget.check() {
            run.exhausted(x);
            return false;
        }
        r.renew(level);
        let v = r.bufs[var as usize].rel_mut();
        v.clear();
        for (fac, &k) in fs.iter().zip(pick) {
            v.union_with(&fac[k]);
        }
        r.stamp[var as usize] = r.tick;
        walk(plan, r, i + 1, flags.clone(), run)
    })
}

/// The checks after a `with` step, on lower bounds: the variable bound to a prefix of
/// orders, what shrinks as it grows taken as nothing (see [`Sense::Below`]).
struct PlanBelow<'a, 'm, 'e> {
    plan: &'a Plan<'m>,
    r: RefCell<&'a mut Replay>,
    /// The steps after the `with`.
    from: usize,
    var: u32,
    level: u8,
    site: usize,
    events: &'e [EventInfo],
    pays: &'a Tally,
    trial: u32,
}

impl Below for PlanBelow<'_, '_, '_> {
    fn has_checks(&self) -> bool {
        self.plan.steps[self.from..]
            .iter()
            .take_while(|s| {
                !matches!(
                    s,
                    Step::End(_)
                        | Step::Orders(_)
                        | Step::Picks(_)
                        | Step::Choose(_)
                        | Step::Halt
                        | Step::Error(_)
                )
            })
            .any(|s| match s {
                Step::Test { test, ty, .. } => *ty == TestType::Check && !test.negated,
                Step::Fail(..) => true,
                _ => false,
            })
    }

    fn worth_at(&self, left: usize) -> bool {
        prefix_pays(self.pays, self.site, left, self.trial)
    }

    fn tried_at(&self, left: usize, dropped: bool) {
        self.pays.count((self.site, left), dropped);
    }

    fn failing(&self, p: &Rc<Rel>) -> Option<Failure> {
        let r = &mut **self.r.borrow_mut();
        let plan = self.plan;
        r.renew(self.level);
        r.set(self.var, In::Rel(p));
        r.sense = Sense::Below(self.level);
        let mut failed = None;
        for step in &plan.steps[self.from..] {
            match step {
                Step::Test {
                    test,
                    ty: TestType::Check,
                    node,
                    ..
                } if !test.negated => {
                    r.eval(plan, *node, self.events);
                    let (holds, cycle) = outcome(test.kind, &r.bufs[*node as usize]);
                    if !holds {
                        failed = Some(Failure::of(test, cycle));
                        break;
                    }
                }
                Step::Fail(f, _) => {
                    failed = Some(f.clone());
                    break;
                }
                Step::End(_)
                | Step::Orders(_)
                | Step::Picks(_)
                | Step::Choose(_)
                | Step::Halt
                | Step::Error(_) => break,
                _ => {}
            }
        }
        r.sense = Sense::Exact;
        // The lower bounds computed go with the next run.
        r.renew(self.level);
        // A fixpoint cut short by the budget bounds nothing: the run finds out.
        if r.exhausted.is_some() {
            return None;
        }
        failed
    }
}
