//! Staged evaluation of the branches of a `with`.
//!
//! A `with co from ...` runs the rest of the model once per coherence order. The
//! interpreter keeps what does not read `co` from one branch to the next, but still walks
//! the model for what does: most of the time of tests with many orders went to finding
//! names, forcing thunks and allocating values rather than to the bit-matrix operations
//! themselves. Here the rest of the model runs *once* with the variable symbolic
//! ([`Value::Sym`]): every operation with a symbolic operand is recorded as a [`Node`]
//! instead of being computed, everything else is computed as usual, and the checks and
//! flags met become the plan's [`Step`]s. Each branch then runs the plan natively on its
//! own value of the variable, in buffers allocated once.
//!
//! A plan exists only when the symbolic run met nothing it cannot record: a choice, a
//! condition, a match, a fixpoint or a native function over a symbolic value, a nested
//! `with`, or an error that may depend on the variable give the plan up, and the branches
//! are interpreted as before. So a plan's constants are the candidate's own values, the
//! short-circuits on them are the interpreter's, and those on symbolic values (`A & B`
//! with `A` empty) are taken when a branch runs the plan.

use super::ast::{Pos, Test, TestKind, TestType};
use super::builtins::Builtin;
use super::eval::{Ctx, R};
use super::value::{SymVal, Value, has_sym, pair_rel};
use super::{CatError, CheckKind, EventInfo, Failure, Verdict};
use crate::rel::{Rel, Set};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// An operation of a plan; operands are earlier nodes.
#[derive(Debug)]
pub enum Op {
    /// The `with` variable (node 0).
    Input,
    Rel(Rc<Rel>),
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
}

/// The final `co` and `rf` at a step, as nodes, when verdicts carry them.
pub type Rels = Option<(Option<u32>, Option<u32>)>;

/// What a branch meets, in the model's order.
#[derive(Debug)]
pub enum Step<'m> {
    /// A check or flag whose relation is symbolic.
    Test {
        test: &'m Test,
        ty: TestType,
        node: u32,
        rels: Rels,
    },
    /// A flag raised in every branch.
    Flag(String),
    /// A check failing in every branch that gets this far.
    Fail(Failure, Rels),
    /// The end of the model.
    End(Rels),
    /// Bounding from below: no coherence order extends the base of this `CoLower` node
    /// when it relates an event to itself.
    NoChoice(u32),
    /// Bounding from below: the bound is given up here (nothing is known of the
    /// candidates).
    GiveUp,
}

/// The plan being built, in a [`Ctx`].
#[derive(Default)]
pub struct Building<'m> {
    /// The variable's memo slot + 1 while a plan is built; else 0.
    slot: Cell<u32>,
    /// While a plan is built for what a primitive's value changes (`rf`): that primitive.
    global: Cell<Option<super::ast::Sym>>,
    nodes: RefCell<Vec<Node>>,
    steps: RefCell<Vec<Step<'m>>>,
    /// Something could not be recorded: no plan.
    lost: Cell<bool>,
}

impl<'m> Building<'m> {
    pub fn active(&self) -> bool {
        self.slot.get() != 0 || self.global.get().is_some()
    }
    /// The primitive that is the plan's input, if any.
    pub fn global(&self) -> Option<super::ast::Sym> {
        self.global.get()
    }
    /// Starts a plan whose input is primitive `x`.
    pub fn start_global(&self, x: super::ast::Sym) {
        self.global.set(Some(x));
        self.begin();
    }
    fn begin(&self) {
        self.lost.set(false);
        self.steps.borrow_mut().clear();
        let mut nodes = self.nodes.borrow_mut();
        nodes.clear();
        nodes.push(Node {
            op: Op::Input,
            set: false,
        });
    }
    /// The variable's memo slot + 1 while a plan is built; else 0.
    pub fn slot(&self) -> u32 {
        self.slot.get()
    }
    /// Starts a plan for the variable in memo slot `slot`: its symbolic value.
    pub fn start(&self, slot: u32) -> Value<'m> {
        self.slot.set(slot + 1);
        self.begin();
        input()
    }
    /// Records a step of the plan.
    pub fn step(&self, s: Step<'m>) {
        self.steps.borrow_mut().push(s);
    }
    /// Ends the plan: its nodes and steps, unless something could not be recorded.
    pub fn finish(&self) -> Option<(Vec<Node>, Vec<Step<'m>>)> {
        self.slot.set(0);
        self.global.set(None);
        let nodes = std::mem::take(&mut *self.nodes.borrow_mut());
        let steps = std::mem::take(&mut *self.steps.borrow_mut());
        (!self.lost.replace(false)).then_some((nodes, steps))
    }
    pub fn lost(&self) -> bool {
        self.lost.get()
    }
}

/// The value of the plan's input (node 0).
pub fn input<'m>() -> Value<'m> {
    Value::Sym(SymVal {
        node: 0,
        set: false,
    })
}

/// A plan: the nodes, and the steps a branch takes.
pub struct Plan<'m> {
    nodes: Vec<Node>,
    steps: Vec<Step<'m>>,
}

/// A node's value while a branch runs a plan.
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

/// The buffers of one plan's nodes, reused by every branch.
pub struct Replay {
    bufs: Vec<Buf>,
    /// The branch each node was last computed for (constants: always).
    stamp: Vec<u64>,
    branch: u64,
    tmp: Rel,
}

const ALWAYS: u64 = u64::MAX;

impl<'m> Plan<'m> {
    pub fn new(nodes: Vec<Node>, steps: Vec<Step<'m>>) -> Plan<'m> {
        Plan { nodes, steps }
    }

    /// Buffers for the branches, over `n` events.
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
        Replay {
            bufs,
            stamp,
            branch: 0,
            tmp: Rel::empty(n),
        }
    }

    /// The verdict of the branch whose variable is `input`, the flags raised before the
    /// `with` being `flags`.
    pub fn verdict(
        &self,
        r: &mut Replay,
        input: &Rel,
        flags: &[String],
        events: &[EventInfo],
    ) -> Verdict {
        self.start(r, input);
        let mut flags = flags.to_vec();
        for step in &self.steps {
            match step {
                Step::Test {
                    test,
                    ty,
                    node,
                    rels,
                } => {
                    self.eval(r, *node, events);
                    let (holds, cycle) = outcome(test.kind, &r.bufs[*node as usize]);
                    match (holds != test.negated, ty) {
                        (true, TestType::Flag) => flags.extend(test.name.iter().cloned()),
                        (false, TestType::UndefinedUnless) => flags.push("*undef*".into()),
                        (false, TestType::Check) => {
                            let f = failure(test, cycle);
                            return self.finish(r, Some(f), flags, *rels, events);
                        }
                        _ => {}
                    }
                }
                Step::Flag(name) => flags.push(name.clone()),
                Step::Fail(f, rels) => {
                    return self.finish(r, Some(f.clone()), flags, *rels, events);
                }
                Step::End(rels) => return self.finish(r, None, flags, *rels, events),
                // Only in plans bounding from below.
                Step::NoChoice(_) | Step::GiveUp => break,
            }
        }
        self.finish(r, None, flags, None, events)
    }

    /// For a plan bounding from below the candidates whose `rf` contains `input` (see
    /// `Model::doomed`): whether a check fails, in each of them.
    pub fn doomed(&self, r: &mut Replay, input: &Rel, events: &[EventInfo]) -> bool {
        self.start(r, input);
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
                    let o = r.bufs[*x as usize].rel();
                    if (0..o.universe()).any(|i| o.contains(i, i)) {
                        return true;
                    }
                }
                Step::Fail(..) => return true,
                Step::Flag(_) | Step::End(_) | Step::GiveUp => return false,
            }
        }
        false
    }

    /// A new run of the plan, its input `input`.
    fn start(&self, r: &mut Replay, input: &Rel) {
        r.branch += 1;
        r.bufs[0].rel_mut().copy_from(input);
        r.stamp[0] = r.branch;
    }

    fn finish(
        &self,
        r: &mut Replay,
        failed: Option<Failure>,
        flags: Vec<String>,
        rels: Rels,
        events: &[EventInfo],
    ) -> Verdict {
        let (co, rf) = rels.unwrap_or((None, None));
        let mut get = |x: Option<u32>| {
            x.map(|x| {
                self.eval(r, x, events);
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

    /// Computes node `id` for the current branch, and the operands it needs first.
    fn eval(&self, r: &mut Replay, id: u32, events: &[EventInfo]) {
        let i = id as usize;
        if r.stamp[i] == r.branch || r.stamp[i] == ALWAYS {
            return;
        }
        let op = &self.nodes[i].op;
        let ops: &[u32] = match op {
            Op::Union(xs) => xs,
            Op::Inter(a, _) | Op::Diff(a, _) | Op::DiffVals(a) | Op::CoLower(a, _) => {
                std::slice::from_ref(a)
            }
            Op::Cart(a, b) => &[*a, *b],
            Op::Seq(_) | Op::Input | Op::Rel(_) | Op::Set(_) => &[],
            _ => unary(op).map_or(&[], std::slice::from_ref),
        };
        for &x in ops {
            self.eval(r, x, events);
        }
        // Operands that are needed only when the first one is not empty.
        let second = match &self.nodes[i].op {
            Op::Inter(a, b) | Op::Diff(a, b) if !r.bufs[*a as usize].is_empty() => Some(*b),
            _ => None,
        };
        if let Some(b) = second {
            self.eval(r, b, events);
        }
        if let Op::Seq(fs) = &self.nodes[i].op {
            self.seq(r, i, fs, events);
        } else {
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
                    None => out.clear(),
                    Some(_) => {
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
                    let pairs: Vec<(usize, usize)> =
                        o.pairs().filter(|&(x, y)| same(x, y)).collect();
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
        r.stamp[i] = r.branch;
    }

    /// A sequence, factor by factor, stopping as soon as the product is empty (the later
    /// factors are then not computed).
    fn seq(&self, r: &mut Replay, i: usize, fs: &[(u32, bool)], events: &[EventInfo]) {
        let mut started = false;
        for &(f, id) in fs {
            self.eval(r, f, events);
            let (lo, hi) = r.bufs.split_at_mut(i);
            let out = hi[0].rel_mut();
            let x = &lo[f as usize];
            match (id, started) {
                (true, false) => out.set_identity(x.set()),
                (true, true) => out.restrict_range_in_place(x.set()),
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

/// Whether a check of kind `kind` holds on `v` (negation aside), with a cycle or a
/// reflexive event when it does not.
fn outcome(kind: TestKind, v: &Buf) -> (bool, Option<Vec<usize>>) {
    match kind {
        TestKind::Empty => (v.is_empty(), None),
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

/// Why a branch fails check `t`.
pub fn failure(t: &Test, cycle: Option<Vec<usize>>) -> Failure {
    let kind = match t.kind {
        TestKind::Acyclic => CheckKind::Acyclic,
        TestKind::Irreflexive => CheckKind::Irreflexive,
        TestKind::Empty => CheckKind::Empty,
    };
    Failure {
        kind,
        negated: t.negated,
        name: t.name.clone().unwrap_or_else(|| t.text.clone()),
        cycle: if t.negated { None } else { cycle },
    }
}

/// Building plans: the interpreter's operators call these when an operand is symbolic.
impl<'m> Ctx<'m, '_> {
    /// Gives the plan up: the error stops the symbolic run, and the flag survives a `try`.
    pub fn sym_lost(&self, pos: Pos, what: &str) -> Box<CatError> {
        self.planning.lost.set(true);
        self.err(
            pos,
            format!("{what} of a value that differs between branches"),
        )
    }

    /// Gives the plan up if `v` is or holds a symbolic value (it decides something).
    pub fn no_sym(&self, v: &Value<'m>, pos: Pos, what: &str) -> R<()> {
        if has_sym(v) {
            return Err(self.sym_lost(pos, what));
        }
        Ok(())
    }

    fn push(&self, op: Op, set: bool) -> u32 {
        let mut nodes = self.planning.nodes.borrow_mut();
        // The same operator on the same node is the same node: the LKMM takes `hb*`
        // three times.
        if let Some(x) = unary(&op)
            && let Some(i) = nodes.iter().position(|n| {
                unary(&n.op) == Some(x)
                    && std::mem::discriminant(&n.op) == std::mem::discriminant(&op)
            })
        {
            return i as u32;
        }
        nodes.push(Node { op, set });
        (nodes.len() - 1) as u32
    }

    /// A node computing `op`, as a value.
    pub fn sym(&self, op: Op, set: bool) -> Value<'m> {
        Value::Sym(SymVal {
            node: self.push(op, set),
            set,
        })
    }

    /// `v` as a node of the plan, a set or a relation: itself when symbolic, else a
    /// constant. `None` when it is not of that type.
    pub fn sym_node(&self, v: &Value<'m>, set: bool) -> Option<u32> {
        let n = self.n;
        let op = match (v, set) {
            (Value::Sym(s), _) => return (s.set == set).then_some(s.node),
            (Value::Rel(r), false) => Op::Rel(r.clone()),
            (Value::Set(s), true) => Op::Set(s.clone()),
            (Value::Empty, false) => Op::Rel(Rc::new(Rel::empty(n))),
            (Value::Empty, true) => Op::Set(Rc::new(Set::empty(n))),
            (Value::Unv, false) => Op::Rel(self.unv()),
            (Value::Unv, true) => Op::Set(self.full()),
            (Value::Pair(a, b), false) => Op::Rel(Rc::new(pair_rel(n, *a, *b))),
            (Value::Event(e), true) => Op::Set(Rc::new(Set::from_iter(n, [*e]))),
            _ => return None,
        };
        Some(self.push(op, set))
    }

    /// The nodes of `vs`, of the type of the symbolic one among them; else the plan is
    /// given up (the interpreter reports the type error, if any).
    pub fn sym_operands(&self, vs: &[&Value<'m>], pos: Pos, what: &str) -> R<(Vec<u32>, bool)> {
        let set = vs
            .iter()
            .find_map(|v| match v {
                Value::Sym(s) => Some(s.set),
                _ => None,
            })
            .ok_or_else(|| self.sym_lost(pos, what))?;
        let nodes = vs
            .iter()
            .map(|v| self.sym_node(v, set))
            .collect::<Option<Vec<u32>>>()
            .ok_or_else(|| self.sym_lost(pos, what))?;
        Ok((nodes, set))
    }

    /// `A & B` or `A \ B` with a symbolic operand (neither empty nor the universe).
    pub fn sym_inter_diff(
        &self,
        inter: bool,
        a: &Value<'m>,
        b: &Value<'m>,
        pos: Pos,
    ) -> R<Value<'m>> {
        let (ns, set) = self.sym_operands(&[a, b], pos, "an intersection")?;
        let op = match inter {
            true => Op::Inter(ns[0], ns[1]),
            false => Op::Diff(ns[0], ns[1]),
        };
        Ok(self.sym(op, set))
    }

    /// A unary operator on a symbolic value.
    pub fn sym_op1(&self, op: super::ast::Op1, s: SymVal, pos: Pos) -> R<Value<'m>> {
        use super::ast::Op1;
        let x = s.node;
        let (op, set) = match (op, s.set) {
            (Op1::Comp, set) => (Op::Comp(x), set),
            (Op1::ToId, true) => (Op::ToId(x), false),
            (Op1::Plus, false) => (Op::Plus(x), false),
            (Op1::Star, false) => (Op::Star(x), false),
            (Op1::Opt, false) => (Op::Opt(x), false),
            (Op1::Inv, false) => (Op::Inv(x), false),
            _ => return Err(self.sym_lost(pos, "an operator")),
        };
        Ok(self.sym(op, set))
    }

    /// `A * B` with a symbolic operand.
    pub fn sym_cartesian(&self, a: &Value<'m>, b: &Value<'m>, pos: Pos) -> R<Value<'m>> {
        let node = |v| {
            self.sym_node(v, true)
                .ok_or_else(|| self.sym_lost(pos, "a product"))
        };
        let (x, y) = (node(a)?, node(b)?);
        Ok(self.sym(Op::Cart(x, y), false))
    }

    /// `f a` where `f` or `a` is symbolic: the primitives that are operators on relations,
    /// and functions of the model, whose bodies run as usual.
    pub fn sym_apply(&self, pos: Pos, f: &Value<'m>, a: Value<'m>) -> R<Value<'m>> {
        match (f, &a) {
            (Value::Prim(b @ (Builtin::Domain | Builtin::Range)), Value::Sym(x)) => {
                self.sym_domain(*b == Builtin::Range, *x, pos)
            }
            (Value::Prim(Builtin::AsTransitive), Value::Sym(x)) if !x.set => Ok(a),
            // The values are each candidate's: computed when a branch runs the plan.
            (Value::Prim(Builtin::DifferentValues), _) => {
                let x = self
                    .sym_node(&a, false)
                    .ok_or_else(|| self.sym_lost(pos, "a primitive"))?;
                Ok(self.sym(Op::DiffVals(x), false))
            }
            (Value::Clo(c), _) if self.m.native(c.def).is_none() => self.apply(pos, f, a),
            _ => Err(self.sym_lost(pos, "a native function")),
        }
    }

    /// `domain` or `range` of a symbolic relation.
    pub fn sym_domain(&self, range: bool, s: SymVal, pos: Pos) -> R<Value<'m>> {
        if s.set {
            return Err(self.sym_lost(pos, "a primitive"));
        }
        let op = match range {
            true => Op::Range(s.node),
            false => Op::Domain(s.node),
        };
        Ok(self.sym(op, true))
    }
}
