//! Running plans: each node computed at most once per run, into a buffer of its own.

use super::{Op, Plan, Rels, Step, With, each_operand, failure};
use crate::budget::{Budget, Exhausted};
use crate::cat::ast::{TestKind, TestType};
use crate::cat::native::for_each_pick;
use crate::cat::prune::{Below, Coherence, Pruner, prefix_pays};
use crate::cat::tally::Tally;
use crate::cat::{EventInfo, Failure, Primitives, Verdict};
use crate::rel::{Rel, Set};
use std::cell::RefCell;
use std::rc::Rc;

/// A node's value while a plan runs.
enum Buf {
    Rel(Rel),
    Set(Set),
}

impl Buf {
    fn rel(&self) -> &Rel {
        match self {
            Buf::Rel(r) => r,
            Buf::Set(_) => unreachable!("a plan's nodes are typed when built"),
        }
    }
    fn set(&self) -> &Set {
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
    fn is_empty(&self) -> bool {
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
    fn copy_from(&mut self, o: &Buf) {
        match (self, o) {
            (Buf::Rel(r), Buf::Rel(x)) => r.copy_from(x),
            (Buf::Set(s), Buf::Set(x)) => s.copy_from(x),
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

/// The buffers of one plan's nodes, reused by every run.
pub struct Replay {
    bufs: Vec<Buf>,
    /// When each node was last computed (constants: always).
    stamp: Vec<u64>,
    /// Per level, from when a value computed is still valid: a new candidate renews every
    /// level, a new branch of a `with` its variable's level and deeper.
    valid: Vec<u64>,
    tick: u64,
    /// While orders are pruned: the level from which values are lower bounds (else 0).
    lower: u8,
    tmp: Rel,
}

const ALWAYS: u64 = u64::MAX;

impl Replay {
    /// A new run from level `level` on: the values of the levels below stay.
    fn renew(&mut self, level: u8) {
        self.tick += 1;
        for v in &mut self.valid[level as usize..] {
            *v = self.tick;
        }
    }

    /// Sets input node `x`.
    fn set(&mut self, x: u32, v: In) {
        match (&mut self.bufs[x as usize], v) {
            (Buf::Rel(b), In::Rel(v)) => b.copy_from(v),
            (Buf::Set(b), In::Set(v)) => b.copy_from(v),
            _ => unreachable!("inputs are typed when built"),
        }
        self.stamp[x as usize] = self.tick;
    }
}

/// What a plan's run reports to, and with what.
pub struct Run<'a, 'e> {
    events: &'e [EventInfo],
    relations: bool,
    report: &'a mut dyn FnMut(Verdict) -> bool,
    /// How often testing prefixes of orders paid, by (site, elements left).
    pays: &'a Tally,
    /// What the run may spend: polled at each coherence order.
    budget: &'a Budget,
    /// Set when the budget ran out (the run then stops).
    exhausted: Option<Exhausted>,
}

impl<'a, 'e> Run<'a, 'e> {
    /// A run over the candidate's `events`, handing its verdicts (with their final `co`
    /// and `rf` when `relations`) to `report`.
    pub fn new(
        events: &'e [EventInfo],
        relations: bool,
        pays: &'a Tally,
        budget: &'a Budget,
        report: &'a mut dyn FnMut(Verdict) -> bool,
    ) -> Self {
        Run {
            events,
            relations,
            report,
            pays,
            budget,
            exhausted: None,
        }
    }
}

impl<'m> Plan<'m> {
    /// Buffers for the plan's runs, over `n` events.
    pub fn replay(&self, n: usize) -> Replay {
        let mut stamp = vec![0; self.nodes.len()];
        let bufs = self
            .nodes
            .iter()
            .zip(&mut stamp)
            .map(|(node, st)| match &node.op {
                Op::Rel(r) => {
                    *st = ALWAYS;
                    Buf::Rel((**r).clone())
                }
                Op::Set(s) => {
                    *st = ALWAYS;
                    Buf::Set((**s).clone())
                }
                _ if node.set => Buf::Set(Set::empty(n)),
                _ => Buf::Rel(Rel::empty(n)),
            })
            .collect();
        let levels = self.nodes.iter().map(|x| x.level).max().unwrap_or(0) as usize + 1;
        Replay {
            bufs,
            stamp,
            valid: vec![0; levels.max(2)],
            tick: 0,
            lower: 0,
            tmp: Rel::empty(n),
        }
    }

    /// Starts a run on a new candidate, its inputs `inputs` (nodes `0..`).
    fn start(&self, r: &mut Replay, inputs: &[In]) {
        r.renew(1);
        for (k, &v) in inputs.iter().enumerate() {
            r.set(k as u32, v);
        }
    }

    /// Every verdict of the candidate `p` (a plan of the candidates of one shape, its
    /// inputs the primitives `inputs`), to the run's report; `Err` when the budget ran out.
    pub fn judge(
        &self,
        r: &mut Replay,
        p: &Primitives,
        inputs: &[(String, bool)],
        mut run: Run,
    ) -> Result<(), Exhausted> {
        let vals: Vec<In> = inputs
            .iter()
            .map(|(name, set)| match set {
                true => In::Set(p.sets.get(name).expect("an input of the shape")),
                false => In::Rel(p.rels.get(name).expect("an input of the shape")),
            })
            .collect();
        self.start(r, &vals);
        self.walk(r, 0, Vec::new(), &mut run);
        run.exhausted.map_or(Ok(()), Err)
    }

    /// For a plan bounding from below the candidates whose `rf` contains `input` (see
    /// `Model::doomed`): whether a check fails, in each of them.
    pub fn doomed(&self, r: &mut Replay, input: &Rel, events: &[EventInfo]) -> bool {
        self.start(r, &[In::Rel(input)]);
        for step in &self.steps {
            match step {
                Step::Test { test, ty, node, .. } => {
                    self.eval(r, *node, events);
                    let (holds, _) = outcome(test.kind, &r.bufs[*node as usize]);
                    if *ty == TestType::Check && holds == test.negated {
                        return true;
                    }
                }
                Step::NoChoice(x) => {
                    self.eval(r, *x, events);
                    if !r.bufs[*x as usize].rel().is_irreflexive() {
                        return true;
                    }
                }
                Step::Fail(..) => return true,
                Step::Flag(_) => {}
                Step::End(_) | Step::GiveUp | Step::With(_) => return false,
            }
        }
        false
    }

    /// Runs the steps from `from` on, reporting the verdict of each branch; false when the
    /// report asked to stop.
    fn walk(&self, r: &mut Replay, from: usize, mut flags: Vec<String>, run: &mut Run) -> bool {
        for (i, step) in self.steps.iter().enumerate().skip(from) {
            match step {
                Step::Test {
                    test,
                    ty,
                    node,
                    rels,
                } => {
                    self.eval(r, *node, run.events);
                    let (holds, cycle) = outcome(test.kind, &r.bufs[*node as usize]);
                    match (holds != test.negated, ty) {
                        (true, TestType::Flag) => flags.extend(test.name.iter().cloned()),
                        (false, TestType::UndefinedUnless) => flags.push("*undef*".into()),
                        (false, TestType::Check) => {
                            let v =
                                self.verdict_at(r, Some(failure(test, cycle)), flags, *rels, run);
                            return (run.report)(v);
                        }
                        _ => {}
                    }
                }
                Step::Flag(name) => flags.push(name.clone()),
                Step::Fail(f, rels) => {
                    let v = self.verdict_at(r, Some(f.clone()), flags, *rels, run);
                    return (run.report)(v);
                }
                Step::End(rels) => {
                    let v = self.verdict_at(r, None, flags, *rels, run);
                    return (run.report)(v);
                }
                Step::With(w) => return self.branches(r, i, w, flags, run),
                // Only in plans bounding from below.
                Step::NoChoice(_) | Step::GiveUp => return true,
            }
        }
        true
    }

    /// The `with` at step `i`: its orders, built and cut natively (see
    /// `Runner::pruner`), each running the steps after it.
    fn branches(
        &self,
        r: &mut Replay,
        i: usize,
        w: &With<'m>,
        flags: Vec<String>,
        run: &mut Run,
    ) -> bool {
        let events = run.events;
        self.eval(r, w.base, events);
        let base = r.bufs[w.base as usize].rel().clone();
        let coherence = w.guard.map(|(t, rf, po_loc)| {
            self.eval(r, rf, events);
            self.eval(r, po_loc, events);
            Coherence::new(t, r.bufs[rf as usize].rel(), r.bufs[po_loc as usize].rel())
        });
        let level = self.nodes[w.var as usize].level;
        let (fs, failed) = {
            let below = PlanBelow {
                plan: self,
                r: RefCell::new(&mut *r),
                from: i + 1,
                var: w.var,
                level,
                site: w.site,
                events,
                pays: run.pays,
            };
            let mut pruner = Pruner::new(
                Box::new(move || coherence),
                Box::new(move || Some(Box::new(below) as Box<dyn Below + '_>)),
            );
            let fs = pruner.build(&w.classes, &base, run.budget);
            (fs, pruner.failure())
        };
        let fs = match fs {
            Ok(fs) => fs,
            Err(x) => {
                run.exhausted = Some(x);
                return false;
            }
        };
        if let Some(f) = failed {
            let v = self.verdict_at(r, Some(f), flags.clone(), w.rels, run);
            if !(run.report)(v) {
                return false;
            }
        }
        for_each_pick(&fs, |pick| {
            if let Err(x) = run.budget.check() {
                run.exhausted = Some(x);
                return false;
            }
            r.renew(level);
            let co = r.bufs[w.var as usize].rel_mut();
            co.clear();
            for (fac, &k) in fs.iter().zip(pick) {
                co.union_with(&fac[k]);
            }
            r.stamp[w.var as usize] = r.tick;
            self.walk(r, i + 1, flags.clone(), run)
        })
    }

    fn verdict_at(
        &self,
        r: &mut Replay,
        failed: Option<Failure>,
        flags: Vec<String>,
        rels: Rels,
        run: &Run,
    ) -> Verdict {
        let (co, rf) = rels.filter(|_| run.relations).unwrap_or((None, None));
        let mut get = |x: Option<u32>| {
            x.map(|x| {
                self.eval(r, x, run.events);
                r.bufs[x as usize].rel().clone()
            })
        };
        Verdict {
            failed,
            flags,
            co: get(co),
            rf: get(rf),
        }
    }

    /// Computes node `id` for the current run, and the operands it needs first, unless it
    /// is computed already.
    #[inline(always)]
    fn eval(&self, r: &mut Replay, id: u32, events: &[EventInfo]) {
        let i = id as usize;
        if r.stamp[i] == ALWAYS || r.stamp[i] >= r.valid[self.nodes[i].level as usize] {
            return;
        }
        self.eval_now(r, i, events);
    }

    #[inline(never)]
    fn eval_now(&self, r: &mut Replay, i: usize, events: &[EventInfo]) {
        let node = &self.nodes[i];
        let op = &node.op;
        // Bounding from below, what shrinks as the variable grows is nothing.
        let lower = r.lower != 0 && node.level >= r.lower;
        let shrinks = match op {
            Op::Diff(_, b) => lower && self.nodes[*b as usize].level >= r.lower,
            Op::Comp(_) => lower,
            _ => false,
        };
        if shrinks {
            r.bufs[i].clear();
            r.stamp[i] = r.tick;
            return;
        }
        match op {
            // Operands needed only when the first one is not empty.
            Op::Inter(a, _) | Op::Diff(a, _) => self.eval(r, *a, events),
            // Factors computed one at a time, while the product is not empty.
            Op::Seq(_) => {}
            _ => each_operand(op, |x| self.eval(r, x, events)),
        }
        let second = match op {
            Op::Inter(a, b) | Op::Diff(a, b) if !r.bufs[*a as usize].is_empty() => Some(*b),
            _ => None,
        };
        if let Some(b) = second {
            self.eval(r, b, events);
        }
        if let Op::Seq(fs) = op {
            self.seq(r, i, fs, events);
        } else {
            self.compute(r, i, second.is_some(), events);
        }
        r.stamp[i] = r.tick;
    }

    /// Computes node `i` from its operands, computed already.
    fn compute(&self, r: &mut Replay, i: usize, second: bool, events: &[EventInfo]) {
        let (lo, hi) = r.bufs.split_at_mut(i);
        let out = &mut hi[0];
        let at = |x: &u32| &lo[*x as usize];
        match &self.nodes[i].op {
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
            Op::Inter(a, b) | Op::Diff(a, b) => match second {
                false => out.clear(),
                true => {
                    let and = |x: u64, y: u64| x & y;
                    let but = |x: u64, y: u64| x & !y;
                    let inter = matches!(self.nodes[i].op, Op::Inter(..));
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
            Op::Plus(a) | Op::Star(a) | Op::Opt(a) => {
                let o = out.rel_mut();
                o.copy_from(at(a).rel());
                if !matches!(self.nodes[i].op, Op::Opt(_)) {
                    o.close_in_place();
                }
                if !matches!(self.nodes[i].op, Op::Plus(_)) {
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
            Op::CoLower(a, classes) => {
                let (o, tmp) = (out.rel_mut(), &mut r.tmp);
                o.clear();
                for c in classes.iter() {
                    tmp.copy_from(at(a).rel());
                    tmp.restrict_domain_in_place(c);
                    tmp.restrict_range_in_place(c);
                    tmp.close_in_place();
                    o.union_with(tmp);
                }
            }
            Op::Seq(_) | Op::Input | Op::Rel(_) | Op::Set(_) => {}
        }
    }

    /// A sequence, factor by factor, stopping as soon as the product is empty (the later
    /// factors are then not computed).
    fn seq(&self, r: &mut Replay, i: usize, fs: &[(u32, bool)], events: &[EventInfo]) {
        // The first factor is read where it is, when the second is a relation.
        let (f0, id0) = fs[0];
        self.eval(r, f0, events);
        let mut started = false;
        for (k, &(f, id)) in fs.iter().enumerate() {
            if k == 0 && !fs[1].1 {
                if r.bufs[f0 as usize].is_empty() {
                    r.bufs[i].clear();
                    return;
                }
                continue;
            }
            self.eval(r, f, events);
            let (lo, hi) = r.bufs.split_at_mut(i);
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
                    out.compose_into(x.rel(), &mut r.tmp);
                    std::mem::swap(out, &mut r.tmp);
                }
            }
            started = true;
            if out.is_empty() {
                return;
            }
        }
    }
}

/// The checks after a `with` step, on lower bounds: the variable bound to a prefix of
/// orders, what shrinks as it grows taken as nothing.
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
}

impl Below for PlanBelow<'_, '_, '_> {
    fn has_checks(&self) -> bool {
        self.plan.steps[self.from..]
            .iter()
            .take_while(|s| !matches!(s, Step::End(_) | Step::With(_)))
            .any(|s| match s {
                Step::Test { test, ty, .. } => *ty == TestType::Check && !test.negated,
                Step::Fail(..) => true,
                _ => false,
            })
    }

    fn worth_at(&self, left: usize) -> bool {
        prefix_pays(self.pays, self.site, left)
    }

    fn tried_at(&self, left: usize, dropped: bool) {
        self.pays.count((self.site, left), dropped);
    }

    fn failing(&self, p: &Rc<Rel>) -> Option<Failure> {
        let r = &mut **self.r.borrow_mut();
        r.renew(self.level);
        r.set(self.var, In::Rel(p));
        r.lower = self.level;
        let mut failed = None;
        for step in &self.plan.steps[self.from..] {
            match step {
                Step::Test {
                    test,
                    ty: TestType::Check,
                    node,
                    ..
                } if !test.negated => {
                    self.plan.eval(r, *node, self.events);
                    let (holds, cycle) = outcome(test.kind, &r.bufs[*node as usize]);
                    if !holds {
                        failed = Some(failure(test, cycle));
                        break;
                    }
                }
                Step::Fail(f, _) => {
                    failed = Some(f.clone());
                    break;
                }
                Step::End(_) | Step::With(_) => break,
                _ => {}
            }
        }
        r.lower = 0;
        // The lower bounds computed go with the next run.
        r.renew(self.level);
        failed
    }
}

/// Whether a check of kind `kind` holds on `v` (negation aside), with a cycle, a
/// reflexive event or the first pair when it does not (see [`super::super::TestOutcome`]).
fn outcome(kind: TestKind, v: &Buf) -> (bool, Option<Vec<usize>>) {
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
