//! Building plans: the interpreter's operators call these when an operand is symbolic.

use super::{Node, Op, each_operand, unary};
use crate::cat::CatError;
use crate::cat::ast::Pos;
use crate::cat::builtins::Builtin;
use crate::cat::eval::{Ctx, R};
use crate::cat::value::{SymVal, Value, has_sym, pair_rel};
use crate::rel::{Rel, Set};
use std::rc::Rc;

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
        let mut level = 0;
        each_operand(&op, |x| level = level.max(nodes[x as usize].level));
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
        nodes.push(Node { op, set, level });
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
    pub fn sym_op1(&self, op: crate::cat::ast::Op1, s: SymVal, pos: Pos) -> R<Value<'m>> {
        use crate::cat::ast::Op1;
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
