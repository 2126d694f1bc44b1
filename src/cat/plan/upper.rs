//! A subtree of candidates judged at once, from above: whether every candidate of the
//! subtree is consistent in every branch, and with which flags.
//!
//! The candidates share one shape and their final writes, and differ in `rf` (and so in
//! the values reads return): the plan runs once on the union of their `rf`,
//! [`Sense::Upper`], what depends on `rf` or on values varying. Every node then holds a
//! superset of its value in each candidate: `A \ B` of what varies is taken as `A`, `~A`
//! as the universe, `different-values` as its argument, a fixpoint that is not monotone
//! as the universe. A check that holds on supersets holds in each candidate; so does one
//! on an exact relation; anything else gives the bound up ([`bound`] returns `None`, and
//! the candidates are judged one by one) — but an acyclicity check within locations
//! (SC per location), which fails on the union as soon as a read has two sources. That
//! one is settled location by location: for each way the reads of one location may
//! choose (the others keeping the union), its relation has no cycle on that location's
//! events. In every candidate its relation is within these, location by location, and a
//! cycle stays on one location.
//!
//! The `with` choices must be the same in every candidate: coherence orders extending an
//! exact base, or choices known when the plan was made; each branch is run (no order is
//! pruned, as later checks see bounds), and only a few.

use super::replay::{In, Replay, outcome};
use super::{Plan, RF, Sense, Step, VALS};
use crate::budget::Budget;
use crate::cat::ast::{TestKind, TestType};
use crate::cat::builtins::lin_base;
use crate::cat::native::{for_each_pick, pick_count};
use crate::cat::{Primitives, Tuning};
use crate::rel::{Rel, Set};
use crate::sem::Kind;
use std::rc::Rc;

/// How runs bounding from above take a plan's nodes.
pub const SENSE: Sense = Sense::Upper(RF | VALS);

/// What every candidate of a subtree gets from the model, when the bound can tell: the
/// flags of each branch, all consistent.
pub type Bound = Vec<Vec<String>>;

/// Whether every candidate of the subtree whose `rf` union `p` holds (one shape, `plan`'s)
/// is consistent in every branch: the flags of each branch, the same in each candidate.
pub fn bound(
    plan: &Plan,
    r: &mut Replay,
    p: &Primitives,
    budget: &Budget,
    tuning: &Tuning,
) -> Option<Bound> {
    debug_assert_eq!(r.sense, SENSE);
    r.start(plan, p, budget);
    let mut up = Up::new(plan, p, tuning);
    let ok = up.walk(r, 0, Vec::new());
    if !ok || r.exhausted.is_some() {
        return None;
    }
    let Up {
        branches, deferred, ..
    } = up;
    if deferred.is_empty() {
        return Some(branches);
    }
    let rf = plan.inputs.iter().position(|&(name, _)| name == "rf")? as u32;
    let union = p.rels.get("rf")?;
    for (events, rfs) in location_choices(p, union, tuning.bounded_branches)? {
        for choice in &rfs {
            r.renew(1);
            r.set(rf, In::Rel(choice));
            let mut probe = Probe {
                up: Up::new(plan, p, tuning),
                tests: &deferred,
                on: &events,
            };
            if !probe.walk(r, 0) || r.exhausted.is_some() {
                return None;
            }
        }
    }
    Some(branches)
}

struct Up<'a, 'm> {
    plan: &'a Plan<'m>,
    loc: Option<&'a Rel>,
    events: &'a [crate::cat::EventInfo],
    tuning: &'a Tuning,
    branches: Bound,
    /// Steps of acyclicity checks within locations that failed on the union.
    deferred: Vec<usize>,
}

impl<'a, 'm> Up<'a, 'm> {
    /// A run of `plan` on the union `p`, no branch or deferred check met yet.
    fn new(plan: &'a Plan<'m>, p: &'a Primitives, tuning: &'a Tuning) -> Self {
        Up {
            plan,
            loc: p.rels.get("loc"),
            events: p.events,
            tuning,
            branches: Vec::new(),
            deferred: Vec::new(),
        }
    }

    /// Runs the steps from `from` on; false when the bound is given up.
    fn walk(&mut self, r: &mut Replay, from: usize, mut flags: Vec<String>) -> bool {
        let plan = self.plan;
        for (i, step) in plan.steps.iter().enumerate().skip(from) {
            match step {
                Step::Test { test, ty, node, .. } => {
                    r.eval(plan, *node, self.events);
                    let (raw, _) = outcome(test.kind, &r.bufs[*node as usize]);
                    let exact = !r.sense.varies(&plan.nodes[*node as usize]);
                    if !raw && !exact {
                        let within = *ty == TestType::Check
                            && test.kind == TestKind::Acyclic
                            && !test.negated
                            && self.loc.is_some_and(|l| r.rel(*node).is_subset(l));
                        if !within {
                            return false;
                        }
                        if !self.deferred.contains(&i) {
                            self.deferred.push(i);
                        }
                        continue;
                    }
                    match (raw != test.negated, ty) {
                        (true, TestType::Flag) => flags.extend(test.name.iter().cloned()),
                        (false, TestType::UndefinedUnless) => flags.push("*undef*".into()),
                        (false, TestType::Check) => return false,
                        _ => {}
                    }
                }
                Step::Flag(name) => flags.push(name.clone()),
                Step::Fail(..) | Step::Error(_) => return false,
                Step::End(_) => {
                    self.branches.push(flags);
                    return true;
                }
                Step::Halt => return true,
                Step::Choose(starts) => {
                    return starts.iter().all(|&s| self.walk(r, s, flags.clone()));
                }
                Step::Orders(_) | Step::Picks(_) => {
                    let Some(c) = self.choices(r, step) else {
                        return false;
                    };
                    return each_choice(plan, r, c, |r| self.walk(r, i + 1, flags.clone()));
                }
            }
        }
        true
    }

    /// The choices of a `with` step, when they are the same in every candidate and few.
    fn choices(&self, r: &mut Replay, step: &Step) -> Option<(u32, Vec<Vec<Rc<Rel>>>)> {
        let most = self.tuning.bounded_branches;
        match step {
            Step::Orders(o) => {
                if r.sense.varies(&self.plan.nodes[o.base as usize]) {
                    return None;
                }
                r.eval(self.plan, o.base, self.events);
                Some((o.var, few_orders(&o.classes, r.rel(o.base), most)?))
            }
            Step::Picks(p) => (pick_count(&p.factors) <= most).then(|| (p.var, p.factors.clone())),
            _ => None,
        }
    }
}

/// `go` once per choice of a `with` step (its variable and the factors of its choices, as
/// [`Up::choices`] gives them), the variable set to the choice; whether every `go` held.
fn each_choice(
    plan: &Plan,
    r: &mut Replay,
    (var, fs): (u32, Vec<Vec<Rc<Rel>>>),
    mut go: impl FnMut(&mut Replay) -> bool,
) -> bool {
    let level = plan.nodes[var as usize].level;
    for_each_pick(&fs, |pick| {
        let mut v = Rel::empty(r.rel(var).universe());
        for (fac, &k) in fs.iter().zip(pick) {
            v.union_with(&fac[k]);
        }
        r.renew(level);
        r.set(var, In::Rel(&v));
        go(r)
    })
}

/// The runs settling deferred checks on one location's events, its reads choosing one way.
struct Probe<'a, 'm> {
    up: Up<'a, 'm>,
    tests: &'a [usize],
    on: &'a Set,
}

impl Probe<'_, '_> {
    /// Whether every deferred check, wherever it runs, is acyclic on the location's events.
    fn walk(&mut self, r: &mut Replay, from: usize) -> bool {
        let plan = self.up.plan;
        for (i, step) in plan.steps.iter().enumerate().skip(from) {
            match step {
                Step::Test { node, .. } if self.tests.contains(&i) => {
                    r.eval(plan, *node, self.up.events);
                    let on = r
                        .rel(*node)
                        .restrict_domain(self.on)
                        .restrict_range(self.on);
                    if !on.is_acyclic() {
                        return false;
                    }
                }
                Step::Test { .. } | Step::Flag(_) => {}
                Step::Fail(..) | Step::End(_) | Step::Halt | Step::Error(_) => return true,
                Step::Choose(starts) => return starts.iter().all(|&s| self.walk(r, s)),
                Step::Orders(_) | Step::Picks(_) => {
                    let Some(c) = self.up.choices(r, step) else {
                        return false;
                    };
                    return each_choice(plan, r, c, |r| self.walk(r, i + 1));
                }
            }
        }
        true
    }
}

/// For each class, the orders extending `base`, unless that makes more than `most`
/// branches (or takes long to find out).
fn few_orders(classes: &[Set], base: &Rel, most: usize) -> Option<Vec<Vec<Rc<Rel>>>> {
    // Prefixes tried before the orders of one class count as too many.
    let steps_max = 64 * most;
    let mut fs = Vec::with_capacity(classes.len());
    let mut total = 1usize;
    for s in classes {
        let mut steps = 0;
        let orders = lin_base(base, s).linearisations_pruned(s, true, |_, _| {
            steps += 1;
            steps <= steps_max
        });
        if steps > steps_max {
            return None;
        }
        total = total.saturating_mul(orders.len());
        if total > most {
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

/// For each location: its events, and every `rf` in which its reads take one source each
/// (the other reads keep theirs). The locations whose reads have one source each are looked
/// at together, with `rf` as it is (a cycle of a relation within locations stays on one).
/// `None` when a location has more than `most` ways.
fn location_choices(p: &Primitives, rf: &Rel, most: usize) -> Option<Vec<(Set, Vec<Rel>)>> {
    let n = p.n;
    let mut out: Vec<(Set, Vec<Rel>)> = Vec::new();
    let mut decided = Set::empty(n);
    let mut done = Vec::new();
    for e in 0..n {
        let Some(loc) = p.events[e].loc.as_ref() else {
            continue;
        };
        if done.contains(&loc) {
            continue;
        }
        done.push(loc);
        let events = Set::from_iter(n, (0..n).filter(|&e| p.events[e].loc.as_ref() == Some(loc)));
        let reads: Vec<(usize, Vec<usize>)> = events
            .iter()
            .filter(|&e| p.events[e].kind == Kind::Read)
            .map(|e| (e, (0..n).filter(|&w| rf.contains(w, e)).collect::<Vec<_>>()))
            .filter(|(_, ws)| ws.len() > 1)
            .collect();
        if reads.is_empty() {
            decided.union_with(&events);
            continue;
        }
        let mut choices = vec![rf.clone()];
        for (e, ws) in &reads {
            let mut next = Vec::new();
            for c in &choices {
                for &w in ws {
                    let mut c = c.clone();
                    for x in ws {
                        c.remove(*x, *e);
                    }
                    c.insert(w, *e);
                    next.push(c);
                }
            }
            if next.len() > most {
                return None;
            }
            choices = next;
        }
        out.push((events, choices));
    }
    if !decided.is_empty() {
        out.push((decided, vec![rf.clone()]));
    }
    Some(out)
}
