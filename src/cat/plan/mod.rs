//! Staged evaluation: the model run once on symbolic values, then natively.
//!
//! A model runs on thousands of candidates that differ only in a few primitives (`rf`, the
//! final writes, the values events hold), and on each of their coherence orders. The
//! interpreter keeps what does not change from one to the next, but still walks the model
//! for what does: most of the time of big tests went to finding names, forcing thunks and
//! allocating values rather than to the bit-matrix operations themselves. Here the model
//! runs *once* with what varies symbolic ([`Value::Sym`]): every operation with a
//! symbolic operand is recorded as a [`Node`] instead of being computed, everything else
//! is computed as usual, and the checks, flags and choices met become the plan's
//! [`Step`]s. Each candidate then runs the plan natively on its own values, in buffers
//! allocated once ([`Replay`]).
//!
//! Two kinds of plans, by what their inputs are:
//! - the whole model for the candidates of one shape (`rf` and the final writes;
//!   `Model::run_planned`), a `with` over coherence orders being a step whose variable is
//!   an input of the steps after it: the orders are built natively, cut by the SC
//!   guard and by the plan's own lower bounds ([`replay::Below`]);
//! - the model bounded from below for the partial choices of `rf` of one shape (`rf`;
//!   `Model::doomed`).
//!
//! A plan exists only when the symbolic run met nothing it cannot record: a choice, a
//! condition, a match, a fixpoint or a native function over a symbolic value, a choice
//! between several constant branches, or an error that may depend on what varies give
//! the plan up, and the interpreter runs as before. So a plan's constants are the same
//! for everything it stands for, the short-circuits on them are the interpreter's, and
//! those on symbolic values (`A & B` with `A` empty) are taken when the plan runs.

mod build;
mod replay;

pub use replay::{Replay, Run};

use super::ast::{Sym, Test, TestKind, TestType};
use super::value::{SymVal, Value};
use super::{CheckKind, Failure};
use crate::rel::Set;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// An operation of a plan; operands are earlier nodes.
#[derive(Debug)]
pub enum Op {
    /// What the plan is run on: the value each run sets.
    Input,
    Rel(Rc<crate::rel::Rel>),
    Set(Rc<Set>),
    Union(Vec<u32>),
    Inter(u32, u32),
    Diff(u32, u32),
    Comp(u32),
    /// `r1; r2; ...`: each factor a relation, or a set standing for its identity (`[S]`).
    Seq(Vec<(u32, bool)>),
    Cart(u32, u32),
    Inv(u32),
    Plus(u32),
    Star(u32),
    Opt(u32),
    ToId(u32),
    Domain(u32),
    Range(u32),
    /// The pairs of a relation whose events hold different values (`different-values`):
    /// the values are the candidate's.
    DiffVals(u32),
    /// What every coherence order extending a base contains, each class of events
    /// ordered on its own: the union of the base's closures on each class (see
    /// `Runner::lower_with`).
    CoLower(u32, Rc<Vec<Set>>),
}

#[derive(Debug)]
pub struct Node {
    op: Op,
    /// A set (else a relation).
    set: bool,
    /// What it depends on: 0, nothing (a constant); 1, the plan's first inputs; `k + 1`,
    /// the variable of the `k`-th `with` step too.
    level: u8,
}

/// The final `co` and `rf` at a step, as nodes, when verdicts carry them.
pub type Rels = Option<(Option<u32>, Option<u32>)>;

/// What a run meets, in the model's order.
#[derive(Debug)]
pub enum Step<'m> {
    /// A check or flag whose relation is symbolic.
    Test {
        test: &'m Test,
        ty: TestType,
        node: u32,
        rels: Rels,
    },
    /// A flag raised in every run.
    Flag(String),
    /// A check failing in every run that gets this far.
    Fail(Failure, Rels),
    /// The end of the model.
    End(Rels),
    /// Bounding from below: no coherence order extends the base of this `CoLower` node
    /// when it relates an event to itself.
    NoChoice(u32),
    /// Bounding from below: the bound is given up here (nothing is known of the
    /// candidates).
    GiveUp,
    /// `with x from` coherence orders: the steps after it run once per order.
    With(Box<With<'m>>),
}

/// A `with` over the coherence orders extending a base, each class of events ordered on
/// its own (colib's `coherence-orders`, cross.cat's `generate_cos`).
#[derive(Debug)]
pub struct With<'m> {
    /// The variable: an input node.
    pub var: u32,
    pub classes: Vec<Set>,
    pub base: u32,
    /// The SC-per-location check every branch runs, with the nodes of `rf` and `po-loc`
    /// at the `with` (see [`super::prune::Coherence`]).
    pub guard: Option<(&'m Test, u32, u32)>,
    /// Identifies the site, for what the pruning learns.
    pub site: usize,
    /// The final `co` and `rf` before the `with`, for the verdict of the orders dropped.
    pub rels: Rels,
}

/// The plan being built, in a [`super::eval::Ctx`].
#[derive(Default)]
pub struct Building<'m> {
    /// While a plan is built for the values of primitives: each primitive, with its
    /// input node.
    globals: RefCell<Vec<(Sym, u32)>>,
    /// `globals` is not empty (read on the interpreter's paths: no borrow there).
    of_globals: Cell<bool>,
    nodes: RefCell<Vec<Node>>,
    steps: RefCell<Vec<Step<'m>>>,
    /// The level of the nodes of the last `with` step's variable.
    depth: Cell<u8>,
    /// Something could not be recorded: no plan.
    lost: Cell<bool>,
}

impl<'m> Building<'m> {
    pub fn active(&self) -> bool {
        self.of_globals.get()
    }
    /// Whether the plan being built stands for the values of primitives.
    pub fn of_globals(&self) -> bool {
        self.of_globals.get()
    }
    /// The value of primitive `x` when it is an input of the plan being built.
    pub fn global(&self, x: Sym) -> Option<Value<'m>> {
        if !self.of_globals.get() {
            return None;
        }
        let g = self.globals.borrow();
        let &(_, node) = g.iter().find(|(y, _)| *y == x)?;
        let set = self.nodes.borrow()[node as usize].set;
        Some(Value::Sym(SymVal { node, set }))
    }
    fn begin(&self) {
        self.lost.set(false);
        self.depth.set(1);
        self.steps.borrow_mut().clear();
        self.nodes.borrow_mut().clear();
    }
    fn input(&self, set: bool, level: u8) -> u32 {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Node {
            op: Op::Input,
            set,
            level,
        });
        (nodes.len() - 1) as u32
    }
    /// Starts a plan whose inputs are the primitives `xs`, each a set or a relation: input
    /// `k` is node `k`.
    pub fn start_globals(&self, xs: &[(Sym, bool)]) {
        self.begin();
        let nodes: Vec<(Sym, u32)> = xs.iter().map(|&(x, set)| (x, self.input(set, 1))).collect();
        self.of_globals.set(!nodes.is_empty());
        *self.globals.borrow_mut() = nodes;
    }
    /// A new input for the variable of a `with` step, one level deeper: its node and
    /// symbolic value.
    pub fn with_input(&self) -> (u32, Value<'m>) {
        let level = self.depth.get() + 1;
        self.depth.set(level);
        let node = self.input(false, level);
        (node, Value::Sym(SymVal { node, set: false }))
    }
    /// Records a step of the plan.
    pub fn step(&self, s: Step<'m>) {
        self.steps.borrow_mut().push(s);
    }
    /// Ends the plan: its nodes and steps, unless something could not be recorded.
    pub fn finish(&self) -> Option<(Vec<Node>, Vec<Step<'m>>)> {
        self.of_globals.set(false);
        self.globals.borrow_mut().clear();
        let nodes = std::mem::take(&mut *self.nodes.borrow_mut());
        let steps = std::mem::take(&mut *self.steps.borrow_mut());
        (!self.lost.replace(false)).then_some((nodes, steps))
    }
    pub fn lost(&self) -> bool {
        self.lost.get()
    }
}

/// A plan: the nodes, and the steps a run takes.
pub struct Plan<'m> {
    nodes: Vec<Node>,
    steps: Vec<Step<'m>>,
}

impl<'m> Plan<'m> {
    pub fn new((nodes, steps): (Vec<Node>, Vec<Step<'m>>)) -> Plan<'m> {
        Plan { nodes, steps }
    }
}

/// Why a run fails check `t`, broken by `cycle` (see [`super::TestOutcome`]).
pub fn failure(t: &Test, cycle: Option<Vec<usize>>) -> Failure {
    let kind = match t.kind {
        TestKind::Acyclic => CheckKind::Acyclic,
        TestKind::Irreflexive => CheckKind::Irreflexive,
        TestKind::Empty => CheckKind::Empty,
    };
    let broken = if t.negated { None } else { cycle };
    let pair = match kind {
        CheckKind::Acyclic => None,
        _ => broken.as_deref().map(|v| (v[0], v[v.len() - 1])),
    };
    Failure {
        kind,
        negated: t.negated,
        name: t.name.clone().unwrap_or_else(|| t.text.clone()),
        cycle: if kind == CheckKind::Empty {
            None
        } else {
            broken
        },
        pair,
    }
}

/// The operand of a unary operator.
fn unary(op: &Op) -> Option<&u32> {
    match op {
        Op::Comp(a)
        | Op::Inv(a)
        | Op::Plus(a)
        | Op::Star(a)
        | Op::Opt(a)
        | Op::ToId(a)
        | Op::Domain(a)
        | Op::Range(a) => Some(a),
        _ => None,
    }
}

/// Calls `f` on each operand of `op`.
fn each_operand(op: &Op, mut f: impl FnMut(u32)) {
    match op {
        Op::Union(xs) => xs.iter().for_each(|&x| f(x)),
        Op::Inter(a, b) | Op::Diff(a, b) | Op::Cart(a, b) => {
            f(*a);
            f(*b);
        }
        Op::Seq(fs) => fs.iter().for_each(|x| f(x.0)),
        Op::DiffVals(a) | Op::CoLower(a, _) => f(*a),
        Op::Input | Op::Rel(_) | Op::Set(_) => {}
        _ => unary(op).into_iter().for_each(|&x| f(x)),
    }
}
