//! A model checked against the candidates of one test: a plan per shape of thread runs,
//! kept while the enumeration stays on that shape, and the reference evaluator for the
//! shapes whose model cannot be compiled (see [`super::plan`]).
//!
//! This is where the fast paths meet the engine: `outcome` asks for each candidate's
//! verdicts, for bounds of subtrees and for cuts of partial choices, and never knows
//! whether a plan or the reference evaluator answered.

use super::plan::compile::{Stop, compile};
use super::plan::replay::{self, Replay, Run};
use super::plan::{Plan, lower, upper};
use super::tally::Tally;
use super::{Bound, CatError, Model, Primitives, Tuning, Verdict, reference};
use crate::budget::Budget;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// What the fast paths did, for measurements and for the tests that check each is taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Shapes compiled into plans.
    pub plans: u64,
    /// Shapes whose model could not be compiled (judged by the reference evaluator).
    pub given_up: u64,
    /// Candidates judged from a plan, and by the reference evaluator.
    pub planned: u64,
    pub referenced: u64,
    /// Subtrees bounded from above: tried, and found consistent throughout.
    pub bounds_tried: u64,
    pub bounds_held: u64,
    /// Partial choices of `rf` bounded from below: tried, and found doomed.
    pub doomed_tried: u64,
    pub doomed: u64,
    /// `with` steps that dropped choices before their branches ran (`prune`).
    pub pruned: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.plans += o.plans;
        self.given_up += o.given_up;
        self.planned += o.planned;
        self.referenced += o.referenced;
        self.bounds_tried += o.bounds_tried;
        self.bounds_held += o.bounds_held;
        self.doomed_tried += o.doomed_tried;
        self.doomed += o.doomed;
        self.pruned += o.pruned;
    }
}

/// One shape's plan (or why there is none) and the buffers of its three consumers.
struct Shape<'m> {
    key: (usize, Vec<u32>),
    plan: Result<Plan<'m>, Option<CatError>>,
    judge: RefCell<Option<Replay>>,
    upper: RefCell<Option<Replay>>,
    lower: RefCell<Option<Replay>>,
}

/// A model checked against the candidates of one test (one per worker: it is not `Sync`).
pub struct Checker<'m> {
    model: &'m Model,
    tuning: Tuning,
    /// The shapes met last, the latest last.
    shapes: RefCell<Vec<Rc<Shape<'m>>>>,
    /// How often testing prefixes of orders paid, by (site, elements left).
    pays: Tally,
    stats: Cell<Stats>,
}

/// Compiling stops being tried after this many shapes gave up without one compiling.
const GIVE_UP_AFTER: u64 = 4;

impl<'m> Checker<'m> {
    pub fn new(model: &'m Model, tuning: &Tuning) -> Checker<'m> {
        Checker {
            model,
            tuning: tuning.clone(),
            shapes: RefCell::new(Vec::new()),
            pays: Tally::default(),
            stats: Cell::new(Stats::default()),
        }
    }

    pub fn stats(&self) -> Stats {
        self.stats.get()
    }

    fn count(&self, f: impl FnOnce(&mut Stats)) {
        let mut s = self.stats.get();
        f(&mut s);
        self.stats.set(s);
    }

    /// The plan of the shape `shapes` (of candidate `p`), made when first met.
    fn shape(&self, p: &Primitives, shapes: &[u32], budget: &Budget) -> Rc<Shape<'m>> {
        // Called for every candidate: the shape met last is found without allocating.
        let mut kept = self.shapes.borrow_mut();
        if let Some(k) = kept
            .iter()
            .position(|s| s.key.0 == p.n && s.key.1 == shapes)
        {
            if k + 1 < kept.len() {
                let s = kept.remove(k);
                kept.push(s);
            }
            return kept.last().expect("just found").clone();
        }
        let key = (p.n, shapes.to_vec());
        let st = self.stats.get();
        let hopeless = st.plans == 0 && st.given_up >= GIVE_UP_AFTER;
        let plan = match self.tuning.plans && !hopeless {
            true => compile(self.model, p, budget),
            false => Err(Stop::GiveUp(Default::default(), "plans off")),
        };
        let plan = match plan {
            Ok(plan) => {
                self.count(|s| s.plans += 1);
                Ok(plan)
            }
            Err(Stop::Error(e)) => Err(Some(*e)),
            Err(Stop::GiveUp(..)) => {
                self.count(|s| s.given_up += 1);
                Err(None)
            }
        };
        let s = Rc::new(Shape {
            key,
            plan,
            judge: RefCell::new(None),
            upper: RefCell::new(None),
            lower: RefCell::new(None),
        });
        if kept.len() >= self.tuning.shapes_kept.max(1) {
            kept.remove(0);
        }
        kept.push(s.clone());
        s
    }

    /// Every branch's verdict of candidate `p` (whose thread runs have shapes `shapes`),
    /// to `report` until it returns false. Without `relations`, verdicts leave out the
    /// final `co` and `rf`. A spent budget stops the run with a fatal [`CatError`].
    pub fn verdicts(
        &self,
        p: &Primitives,
        shapes: &[u32],
        relations: bool,
        budget: &Budget,
        report: &mut dyn FnMut(Verdict) -> bool,
    ) -> Result<(), CatError> {
        let s = self.shape(p, shapes, budget);
        match &s.plan {
            Ok(plan) => {
                self.count(|s| s.planned += 1);
                let mut r = s.judge.borrow_mut();
                let r = r.get_or_insert_with(|| Replay::new(plan, p.n, super::plan::Sense::Exact));
                let run = Run {
                    events: p.events,
                    relations,
                    report,
                    pays: &self.pays,
                    prune: self.tuning.prune_orders,
                    orders_max: self.tuning.orders_max,
                    trial: self.tuning.prefix_trial,
                    budget,
                    stopped: None,
                    pruned: 0,
                };
                let (res, pruned) = replay::judge(plan, r, p, run);
                self.count(|s| s.pruned += pruned);
                res
            }
            Err(Some(e)) => Err(e.clone()),
            Err(None) => {
                self.count(|s| s.referenced += 1);
                reference::run(self.model, p, relations, budget, report)
            }
        }
    }

    /// Whether every candidate of a subtree (one shape; `p` holds the union of their
    /// `rf`) is consistent in every branch: the flags of each branch (see [`upper`]).
    pub fn bound(&self, p: &Primitives, shapes: &[u32], budget: &Budget) -> Option<Bound> {
        let s = self.shape(p, shapes, budget);
        let plan = s.plan.as_ref().ok()?;
        self.count(|s| s.bounds_tried += 1);
        let mut r = s.upper.borrow_mut();
        let r = r.get_or_insert_with(|| Replay::new(plan, p.n, upper::SENSE));
        let b = upper::bound(plan, r, p, budget, &self.tuning);
        if b.is_some() {
            self.count(|s| s.bounds_held += 1);
        }
        b
    }

    /// Whether every candidate below a partial choice of `rf` (`p`: one combination of
    /// runs, its reads' sources chosen so far, no final writes) fails a check (see
    /// [`lower`]).
    pub fn doomed(&self, p: &Primitives, shapes: &[u32], budget: &Budget) -> bool {
        let s = self.shape(p, shapes, budget);
        let Ok(plan) = &s.plan else {
            return false;
        };
        self.count(|s| s.doomed_tried += 1);
        let mut r = s.lower.borrow_mut();
        let r = r.get_or_insert_with(|| Replay::new(plan, p.n, lower::SENSE));
        let d = lower::doomed(plan, r, p, budget);
        if d {
            self.count(|s| s.doomed += 1);
        }
        d
    }
}
