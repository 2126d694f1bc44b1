//! The plan compiler: the model run once on a shape's primitives, `rf`, `FW` and values
//! staged (see [`super`]).
//!
//! It evaluates what the reference evaluator evaluates, in the same order and with the
//! same errors (the operators on known values are [`Ops`]'s), and makes a node for each
//! operation on a staged value ([`Compiler::node`]: the same operation on the same nodes
//! is the same node). `expr.rs` holds the expressions, `ins.rs` the instructions and the
//! steps they make.

mod expr;
mod ins;

use super::{Deps, FW, Node, Op, Plan, RF, Step, VALS, WITH};
use crate::budget::Budget;
use crate::cat::ast::{Pos, Sym};
use crate::cat::ops::Ops;
use crate::cat::value::{Env, Stage, Value};
use crate::cat::{CatError, Fatal, MAX_CALL_DEPTH, Model, Primitives};
use crate::rel::{Rel, Set};
use rustc_hash::FxHashMap;
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::rc::Rc;

/// A set or relation known only when the plan runs: a node, and whether it is a set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Staged {
    pub node: u32,
    pub set: bool,
}

impl Stage for Staged {
    fn type_name(&self) -> &'static str {
        if self.set { "events" } else { "rel" }
    }
    fn order(&self, o: &Self) -> Ordering {
        self.node.cmp(&o.node)
    }
}

pub type V<'m> = Value<'m, Staged>;
pub type CEnv<'m> = Env<'m, Staged>;

/// Why a plan could not be made.
#[derive(Debug)]
pub enum Stop {
    /// An error of the model, the same in every candidate (or the budget spent).
    Error(Box<CatError>),
    /// Something the model decides depends on a staged value: where, and what.
    GiveUp(Pos, &'static str),
}

impl From<Box<CatError>> for Stop {
    fn from(e: Box<CatError>) -> Stop {
        Stop::Error(e)
    }
}

pub type C<T> = Result<T, Stop>;

/// Compiles `m` for the candidates whose primitives are `p`'s but `rf`, `FW` (when `p`
/// has its own) and values.
pub fn compile<'m>(m: &'m Model, p: &Primitives, budget: &Budget) -> C<Plan<'m>> {
    let mut inputs: Vec<(&'static str, bool)> = Vec::new();
    if m.names.get("rf").is_some() {
        inputs.push(("rf", false));
    }
    if m.names.get("FW").is_some() && p.sets.get("FW").is_some() && !p.sets.shared("FW") {
        inputs.push(("FW", true));
    }
    let cx = Compiler::new(m, p, budget);
    for &(name, set) in &inputs {
        let deps = if set { FW } else { RF };
        let node = cx.push(Op::Input, set, 1, deps);
        cx.inputs
            .borrow_mut()
            .push((m.names.get(name).expect("named"), node));
    }
    cx.run_model()?;
    Ok(Plan {
        nodes: cx.nodes.into_inner(),
        steps: cx.steps.into_inner(),
        inputs,
    })
}

/// One compilation's state.
pub struct Compiler<'m, 'p> {
    pub m: &'m Model,
    pub p: &'p Primitives<'p>,
    pub ops: Ops<'m>,
    budget: &'p Budget,
    /// The staged primitives and their input nodes.
    inputs: RefCell<Vec<(Sym, u32)>>,
    nodes: RefCell<Vec<Node>>,
    /// Each operation already made, by what it is.
    made: RefCell<FxHashMap<Op, u32>>,
    steps: RefCell<Vec<Step<'m>>>,
    /// The deepest `with` variable's level so far (1: none).
    level: Cell<u8>,
    /// Function calls under way (see [`MAX_CALL_DEPTH`]).
    calls: Cell<u32>,
    next_id: Cell<u64>,
    /// The primitives and built-ins looked up so far.
    globals: RefCell<FxHashMap<Sym, V<'m>>>,
}

/// Room for the nodes of a plan of a typical model (the kernel's makes a few dozen), so
/// that a compile, run once per shape, does not grow its tables step by step.
const PLAN_NODES: usize = 64;

impl<'m, 'p> Compiler<'m, 'p> {
    fn new(m: &'m Model, p: &'p Primitives<'p>, budget: &'p Budget) -> Self {
        Compiler {
            m,
            p,
            ops: Ops { n: p.n, m },
            budget,
            inputs: RefCell::new(Vec::new()),
            nodes: RefCell::new(Vec::with_capacity(PLAN_NODES)),
            made: RefCell::new(FxHashMap::with_capacity_and_hasher(
                PLAN_NODES,
                Default::default(),
            )),
            steps: RefCell::new(Vec::new()),
            level: Cell::new(1),
            calls: Cell::new(0),
            next_id: Cell::new(0),
            globals: RefCell::new(FxHashMap::default()),
        }
    }

    pub fn err(&self, pos: Pos, msg: impl Into<String>) -> Stop {
        Stop::Error(Box::new(CatError {
            file: self.m.file_name(pos.file).to_string(),
            line: pos.line,
            col: pos.col,
            msg: msg.into(),
            fatal: None,
        }))
    }

    fn fatal(&self, pos: Pos, f: Fatal, msg: String) -> Stop {
        let mut e = CatError {
            file: self.m.file_name(pos.file).to_string(),
            line: pos.line,
            col: pos.col,
            msg,
            fatal: None,
        };
        e.fatal = Some(f);
        Stop::Error(Box::new(e))
    }

    /// Stops compiling, with an error no `try` catches, once the budget is spent.
    pub fn poll(&self, pos: Pos) -> C<()> {
        self.budget
            .check()
            .map_err(|x| self.fatal(pos, Fatal::Exhausted(x.clone()), x.to_string()))
    }

    /// The error of a call nested deeper than [`MAX_CALL_DEPTH`].
    fn too_deep(&self, pos: Pos) -> Stop {
        self.fatal(pos, Fatal::TooDeep, "calls nest too deeply".into())
    }

    /// Runs `f` one call deeper.
    fn nested<T>(&self, pos: Pos, f: impl FnOnce() -> C<T>) -> C<T> {
        let d = self.calls.get();
        if d >= MAX_CALL_DEPTH {
            return Err(self.too_deep(pos));
        }
        self.poll(pos)?;
        self.calls.set(d + 1);
        let v = f();
        self.calls.set(d);
        v
    }

    fn fresh_id(&self) -> u64 {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        id
    }

    // ---------- nodes ----------

    /// A new node, not shared.
    fn push(&self, op: Op, set: bool, level: u8, deps: Deps) -> u32 {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(Node {
            op,
            set,
            level,
            deps,
        });
        (nodes.len() - 1) as u32
    }

    /// The node computing `op`, typed `set`: made once per compilation.
    pub fn node(&self, op: Op, set: bool) -> u32 {
        if let Some(&x) = self.made.borrow().get(&op) {
            return x;
        }
        let (mut level, mut deps) = (0, 0);
        {
            let nodes = self.nodes.borrow();
            super::each_operand(&op, |x| {
                let n = &nodes[x as usize];
                level = level.max(n.level);
                deps |= n.deps;
            });
        }
        if let Op::DiffVals(_) = op {
            level = level.max(1);
            deps |= VALS;
        }
        let x = self.push(op.clone(), set, level, deps);
        self.made.borrow_mut().insert(op, x);
        x
    }

    /// `v` as a staged value of the node computing `op`.
    pub fn staged(&self, op: Op, set: bool) -> V<'m> {
        Value::Staged(Staged {
            node: self.node(op, set),
            set,
        })
    }

    /// The node of `v`, a set (`set`) or a relation: itself when staged, else a constant.
    /// `None` when `v` is not of that type.
    pub fn node_of(&self, v: &V<'m>, set: bool) -> Option<u32> {
        let n = self.ops.n;
        let op = match (v, set) {
            (Value::Staged(s), _) => return (s.set == set).then_some(s.node),
            (Value::Rel(r), false) => Op::Rel(super::ByAddr(r.clone())),
            (Value::Set(s), true) => Op::Set(super::ByAddr(s.clone())),
            (Value::Empty, false) => Op::Rel(super::ByAddr(Rc::new(Rel::empty(n)))),
            (Value::Empty, true) => Op::Set(super::ByAddr(Rc::new(Set::empty(n)))),
            (Value::Unv, false) => Op::Rel(super::ByAddr(Rc::new(Rel::cartesian(
                &Set::full(n),
                &Set::full(n),
            )))),
            (Value::Unv, true) => Op::Set(super::ByAddr(Rc::new(Set::full(n)))),
            (Value::Pair(a, b), false) => Op::Rel(super::ByAddr(Rc::new(
                crate::cat::value::pair_rel(n, *a, *b),
            ))),
            (Value::Event(e), true) => Op::Set(super::ByAddr(Rc::new(Set::from_iter(n, [*e])))),
            _ => return None,
        };
        Some(self.node(op, set))
    }

    /// A typed placeholder for a staged value, for the operators' type errors.
    pub fn placeholder(&self, v: V<'m>) -> V<'m> {
        match v {
            Value::Staged(s) if s.set => Value::set(Set::empty(self.ops.n)),
            Value::Staged(_) => Value::rel(Rel::empty(self.ops.n)),
            v => v,
        }
    }

    /// A new `with` variable, one level deeper.
    fn with_var(&self, deps: Deps) -> (u32, V<'m>) {
        let level = self.level.get() + 1;
        self.level.set(level);
        let node = self.push(Op::With, false, level, deps | WITH);
        (node, Value::Staged(Staged { node, set: false }))
    }

    /// Records a step; its index.
    fn step(&self, s: Step<'m>) -> usize {
        let mut steps = self.steps.borrow_mut();
        steps.push(s);
        steps.len() - 1
    }

    // ---------- names ----------

    /// The value of a name the model does not bind: a staged primitive, a primitive of
    /// the shape, a built-in.
    pub fn global(&self, x: Sym, pos: Pos) -> C<V<'m>> {
        if let Some(&(_, node)) = self.inputs.borrow().iter().find(|(y, _)| *y == x) {
            let set = self.nodes.borrow()[node as usize].set;
            return Ok(Value::Staged(Staged { node, set }));
        }
        if let Some(v) = self.globals.borrow().get(&x) {
            return Ok(v.clone());
        }
        let v = crate::cat::builtins::global(self.m, self.p, x)
            .ok_or_else(|| self.err(pos, format!("unbound var: {}", self.m.names.name(x))))?;
        self.globals.borrow_mut().insert(x, v.clone());
        Ok(v)
    }
}
