//! The fast path: a model compiled, once per shape of thread runs, into a plan of
//! bit-matrix operations that each candidate of the shape then runs natively.
//!
//! Candidates whose thread runs have the same shapes give the model the same primitives
//! but three: `rf`, the final writes `FW`, and the values events hold (which only
//! `different-values` reads). [`compile`] runs the model once on the shape's primitives
//! with those three *staged* (`Value::Staged`, a [`Node`] of the plan): everything that
//! does not depend on them is computed there and then, as the reference evaluator would
//! compute it, and every operation on a staged value becomes a node instead. The checks,
//! flags and `with` choices met become the plan's [`Step`]s. A `let rec` over staged
//! values becomes a [`Fix`] node, iterated when the plan runs.
//!
//! A plan exists only when nothing the model decides depends on a staged value: a
//! condition, a match, an element of an explicit set, a `forall`, or a `with` over a set
//! computed from `rf` give the plan up, and the reference evaluator judges the shape's
//! candidates instead (`Checker`). So a plan's constants and its control are the same for
//! every candidate it stands for, and errors are the reference's: an error met while
//! compiling is an error of every candidate (types are fixed when nodes are made).
//!
//! Three consumers run plans, each with its own state:
//! - [`replay`]: the verdicts of one candidate, each `with` over coherence orders built
//!   natively and cut (see [`super::prune`]);
//! - [`upper`]: whether every candidate of a subtree (one shape, `rf` any subset of a
//!   union) is consistent, from one run on the union;
//! - [`lower`]: whether every candidate below a partial choice of `rf` fails a check,
//!   from one run on the edges chosen so far.
//!
//! The bounds are abstract interpretations of the same nodes ([`Sense`]): every operator
//! of a plan but `A \ B`, `~A`, `different-values` and a fixpoint is monotone, so a node
//! computed on bounds of its operands bounds its value; those four take a coarser value
//! (`A`, the universe, the argument, the universe; or the empty set from below) when
//! what they read differs between the candidates bounded.

pub mod compile;
pub mod lower;
pub mod replay;
pub mod upper;

use super::Failure;
use super::ast::{Test, TestType};
use crate::rel::{Rel, Set};
use std::rc::Rc;

/// What a node's value depends on, beyond the shape.
pub type Deps = u8;
/// The candidate's `rf`.
pub const RF: Deps = 1;
/// The candidate's final writes.
pub const FW: Deps = 2;
/// The values of the candidate's events (`different-values`).
pub const VALS: Deps = 4;
/// A `with` variable.
pub const WITH: Deps = 8;

/// An operation of a plan; operands are earlier nodes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// A primitive that differs between candidates: input `k` of the plan is node `k`.
    Input,
    /// The variable of a `with` step, set by each of its branches.
    With,
    Rel(ByAddr<Rel>),
    Set(ByAddr<Set>),
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
    /// The pairs of a relation whose events hold different values (`different-values`).
    DiffVals(u32),
    /// A variable of a fixpoint, set by the [`Fix`] that computes it.
    Loop,
    /// Iterates a `let rec` until it is stable (see [`Fix`]).
    Fix(Rc<Fix>),
    /// The value of loop variable `.1` once fixpoint `.0` is computed.
    Out(u32, u32),
}

/// A constant, compared and hashed by address (nodes are shared when their operation is
/// the same: the LKMM takes `hb*` three times).
#[derive(Debug, Clone)]
pub struct ByAddr<T>(pub Rc<T>);

impl<T> PartialEq for ByAddr<T> {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.0, &o.0)
    }
}
impl<T> Eq for ByAddr<T> {}
impl<T> std::hash::Hash for ByAddr<T> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (Rc::as_ptr(&self.0) as usize).hash(h)
    }
}

/// A `let rec` over staged values, herd's way (`env_rec`): the variables start from
/// `init`, each round computes `results` in order (a later binding sees this round's
/// value of an earlier one), and the rounds stop once no result grows.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Fix {
    pub loops: Vec<u32>,
    pub init: Vec<u32>,
    pub results: Vec<u32>,
    /// The nodes computed again every round: those that read a loop variable.
    pub body: Vec<u32>,
    /// No result reads a loop variable through `\`'s right-hand side or `~` (so
    /// iterating on bounds bounds the fixpoint).
    pub monotone: bool,
}

#[derive(Debug)]
pub struct Node {
    pub op: Op,
    /// A set (else a relation).
    pub set: bool,
    /// When it must be computed again: 0, never (a constant); 1, for each candidate; `k`,
    /// for each branch of the `with` whose variable has level `k`.
    pub level: u8,
    pub deps: Deps,
}

/// The final `co` and `rf` at a step, as nodes, when the model binds them.
pub type Rels = (Option<u32>, Option<u32>);

/// What a run meets, in the model's order. Each branch's steps end with `End`, `Fail`,
/// `Halt`, `Error` or `Choose`.
#[derive(Debug)]
pub enum Step<'m> {
    /// A check or flag whose relation is staged.
    Test {
        test: &'m Test,
        ty: TestType,
        node: u32,
        rels: Rels,
    },
    /// A flag raised in every run that gets this far.
    Flag(String),
    /// A check failing in every run that gets this far.
    Fail(Failure, Rels),
    /// The end of the model: a consistent branch.
    End(Rels),
    /// A `with` over nothing: no branch, no verdict.
    Halt,
    /// An error of the model, met by the runs that get this far.
    Error(crate::cat::CatError),
    /// `with x from` the per-location orders extending a relation: the steps after it run
    /// once per order.
    Orders(Box<Orders<'m>>),
    /// `with x from` a set of relations (or every union of one per factor) known when the
    /// plan is made: the steps after it run once per choice.
    Picks(Box<Picks<'m>>),
    /// `with x from` a set of other values: each choice's steps start at its index.
    Choose(Vec<usize>),
}

/// The SC-per-location check every branch of a `with` runs (see
/// [`super::prune::Coherence`]), with the nodes of `rf` and `po-loc` at the `with`.
pub type Guard<'m> = (&'m Test, u32, u32);

#[derive(Debug)]
pub struct Orders<'m> {
    /// The variable: a [`Op::With`] node.
    pub var: u32,
    /// The classes of events ordered, each on its own.
    pub classes: Vec<Set>,
    pub base: u32,
    pub guard: Option<Guard<'m>>,
    /// Identifies the site, for what the pruning learns.
    pub site: usize,
    /// The final `co` and `rf` before the `with`, for the verdict of the orders dropped.
    pub rels: Rels,
}

#[derive(Debug)]
pub struct Picks<'m> {
    pub var: u32,
    /// Each choice is the union of one relation per factor.
    pub factors: Vec<Vec<Rc<Rel>>>,
    pub guard: Option<Guard<'m>>,
    pub rels: Rels,
}

/// A compiled model: its nodes (inputs first) and the steps a run takes from step 0.
pub struct Plan<'m> {
    pub nodes: Vec<Node>,
    pub steps: Vec<Step<'m>>,
    /// The primitives each run sets, input `k` being node `k`: name, and whether a set.
    pub inputs: Vec<(&'static str, bool)>,
}

impl Plan<'_> {
    /// Whether some node depends on what `deps` names.
    pub fn reads(&self, deps: Deps) -> bool {
        self.nodes.iter().any(|n| n.deps & deps != 0)
    }
}

/// How a run takes its nodes: their values, or bounds of their values in the candidates
/// a run stands for. A node is *varying* when what it depends on differs between those.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sense {
    Exact,
    /// Supersets: inputs are unions; varying nodes depend on these.
    Upper(Deps),
    /// Subsets: inputs are intersections; varying nodes depend on these.
    Lower(Deps),
    /// Subsets where nodes of this level or deeper vary (the variable of a `with` bound
    /// to a prefix of its orders), exact below.
    Below(u8),
}

impl Sense {
    /// Whether node `n` differs between the candidates this sense stands for.
    #[inline]
    pub fn varies(self, n: &Node) -> bool {
        match self {
            Sense::Exact => false,
            Sense::Upper(d) | Sense::Lower(d) => n.deps & d != 0,
            Sense::Below(l) => n.level >= l,
        }
    }
    pub fn from_below(self) -> bool {
        matches!(self, Sense::Lower(_) | Sense::Below(_))
    }
}

/// The operands of `op`.
pub fn each_operand(op: &Op, mut f: impl FnMut(u32)) {
    match op {
        Op::Union(xs) => xs.iter().for_each(|&x| f(x)),
        Op::Inter(a, b) | Op::Diff(a, b) | Op::Cart(a, b) => {
            f(*a);
            f(*b);
        }
        Op::Seq(fs) => fs.iter().for_each(|x| f(x.0)),
        Op::Comp(a)
        | Op::Inv(a)
        | Op::Plus(a)
        | Op::Star(a)
        | Op::Opt(a)
        | Op::ToId(a)
        | Op::Domain(a)
        | Op::Range(a)
        | Op::DiffVals(a) => f(*a),
        Op::Fix(fix) => fix.init.iter().chain(&fix.results).for_each(|&x| f(x)),
        Op::Out(fix, _) => f(*fix),
        Op::Input | Op::With | Op::Loop | Op::Rel(_) | Op::Set(_) => {}
    }
}
