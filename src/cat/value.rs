//! Run-time values of the cat language.
//!
//! Sets and relations of events are [`Set`]/[`Rel`] bit matrices behind `Rc`, so binding and
//! passing them around never copies. `Empty` and `Unv` stay symbolic until an operator
//! needs their type, as in herd.
//!
//! A value may also be *staged* (`Value::Staged`): a set or relation known only when a
//! plan runs (see `cat::plan`), which the plan compiler makes and nothing else does. Its
//! type parameter is [`Never`] everywhere else, so the reference evaluator's values are
//! never staged.

use super::ast::{Binding, Expr, FunDef, Ins, Pat, Sym};
use super::builtins::Builtin;
use crate::rel::{Rel, Set};
use std::cell::RefCell;
use std::cmp::Ordering;
use std::fmt::Debug;
use std::rc::Rc;

/// The relation holding just the pair `(a, b)`, over `n` events: a [`Value::Pair`] taken as
/// a relation.
pub fn pair_rel(n: usize, a: u32, b: u32) -> Rel {
    Rel::from_pairs(n, [(a as usize, b as usize)])
}

/// A tag of an `enum` declaration, kept by the model: a value holds a reference, so values
/// stay two words long.
#[derive(Debug, PartialEq, Eq)]
pub struct TagName {
    pub ty: String,
    pub name: String,
}

/// What a staged value is (see the module's documentation).
pub trait Stage: Clone + Debug {
    /// `events` or `rel`.
    fn type_name(&self) -> &'static str;
    /// An order among staged values, for sets of values.
    fn order(&self, other: &Self) -> Ordering;
}

/// No staged value: the values of the reference evaluator and of everything but the plan
/// compiler.
#[derive(Clone, Copy, Debug)]
pub enum Never {}

impl Stage for Never {
    fn type_name(&self) -> &'static str {
        match *self {}
    }
    fn order(&self, _: &Self) -> Ordering {
        match *self {}
    }
}

#[derive(Clone, Debug)]
pub enum Value<'m, S: Stage = Never> {
    /// `{}`: empty of any type.
    Empty,
    /// `_`: all events, or all pairs of events.
    Unv,
    Set(Rc<Set>),
    Rel(Rc<Rel>),
    Event(usize),
    Pair(u32, u32),
    /// A tag: its enum type and its name.
    Tag(&'m TagName),
    /// A set of non-event values, sorted by [`cmp`] and without duplicates.
    ValSet(Rc<Vec<Value<'m, S>>>),
    Tuple(Rc<Vec<Value<'m, S>>>),
    Clo(Rc<Closure<'m, S>>),
    Prim(Builtin),
    Proc(Rc<Procedure<'m, S>>),
    /// Known only when a plan runs (see the module's documentation).
    Staged(S),
}

/// An environment: a persistent list of bindings, newest first.
///
/// A model's definitions make it hundreds of bindings long, and its names are looked up
/// millions of times, so the list is cut into blocks of [`BLOCK`] nodes, and each node knows
/// which names (as bits of a 128-bit mask) its block binds from it down: a lookup skips
/// every block whose mask lacks the name's bit.
#[derive(Clone, Debug)]
pub struct Env<'m, S: Stage = Never>(pub Option<Rc<EnvNode<'m, S>>>);

impl<S: Stage> Default for Env<'_, S> {
    fn default() -> Self {
        Env(None)
    }
}

#[derive(Debug)]
pub struct EnvNode<'m, S: Stage> {
    pub name: Sym,
    pub slot: Slot<'m, S>,
    pub next: Env<'m, S>,
    /// The bits of the names bound by this node and those below it in its block.
    names: u128,
    /// The environment below this node's block.
    below: Env<'m, S>,
    /// This node's place in its block, from 1.
    depth: u8,
}

/// Nodes per block of an [`Env`]: 16 names set about an eighth of a mask's bits.
const BLOCK: u8 = 16;

fn name_bit(name: Sym) -> u128 {
    1 << (name.0 % 128)
}

/// A bound value, or a `let` right-hand side not evaluated yet (herd binds lazily, so
/// unused definitions cost nothing and their errors do not matter).
#[derive(Clone, Debug)]
pub enum Slot<'m, S: Stage> {
    Val(Value<'m, S>),
    Thunk(Rc<Thunk<'m, S>>),
}

#[derive(Debug)]
pub struct Thunk<'m, S: Stage> {
    pub expr: &'m Expr,
    pub env: Env<'m, S>,
    /// The value, once forced.
    pub value: RefCell<Option<Value<'m, S>>>,
}

impl<'m, S: Stage> Env<'m, S> {
    pub fn bind(&self, name: Sym, val: Value<'m, S>) -> Env<'m, S> {
        self.bind_slot(name, Slot::Val(val))
    }

    /// Binds `name` lazily to `expr`, evaluated in `env` when first needed.
    pub fn bind_lazy(&self, name: Sym, expr: &'m Expr, env: &Env<'m, S>) -> Env<'m, S> {
        let t = Thunk {
            expr,
            env: env.clone(),
            value: RefCell::new(None),
        };
        self.bind_slot(name, Slot::Thunk(Rc::new(t)))
    }

    /// Binds a pattern to a value (tuples are split component-wise); the error is the
    /// message, for the caller to locate.
    pub fn bind_pat(&self, pat: &Pat, v: Value<'m, S>) -> Result<Env<'m, S>, &'static str> {
        match pat {
            Pat::Var(None) => Ok(self.clone()),
            Pat::Var(Some(x)) => Ok(self.bind(*x, v)),
            Pat::Tuple(xs) => {
                let vs: Vec<Value<'m, S>> = match v {
                    Value::Tuple(t) => t.to_vec(),
                    Value::Pair(a, b) => vec![Value::Event(a as usize), Value::Event(b as usize)],
                    v => vec![v],
                };
                if vs.len() != xs.len() {
                    return Err("binding mismatch");
                }
                let mut env = self.clone();
                for (x, v) in xs.iter().zip(vs) {
                    if let Some(x) = x {
                        env = env.bind(*x, v);
                    }
                }
                Ok(env)
            }
        }
    }

    pub fn bind_slot(&self, name: Sym, slot: Slot<'m, S>) -> Env<'m, S> {
        let (names, below, depth) = match self.0.as_deref() {
            Some(n) if n.depth < BLOCK => (n.names, n.below.clone(), n.depth + 1),
            _ => (0, self.clone(), 1),
        };
        Env(Some(Rc::new(EnvNode {
            name,
            slot,
            next: self.clone(),
            names: names | name_bit(name),
            below,
            depth,
        })))
    }

    pub fn lookup(&self, name: Sym) -> Option<&Slot<'m, S>> {
        let bit = name_bit(name);
        let mut cur = self.0.as_deref()?;
        loop {
            if cur.names & bit == 0 {
                cur = cur.below.0.as_deref()?;
            } else if cur.name == name {
                return Some(&cur.slot);
            } else {
                cur = cur.next.0.as_deref()?;
            }
        }
    }
}

/// A function value. Recursive functions (`let rec f x = ...`) refer to their group of
/// definitions instead of holding a cycle of `Rc`s: calling one rebinds the whole group.
#[derive(Debug)]
pub struct Closure<'m, S: Stage> {
    pub def: &'m FunDef,
    pub env: Env<'m, S>,
    pub rec: Option<(Rc<RecGroup<'m, S>>, usize)>,
    /// Closures compare by identity (herd numbers them).
    pub id: u64,
}

/// Functions defined together by `let rec f = fun ... and g = fun ...`.
#[derive(Debug)]
pub struct RecGroup<'m, S: Stage> {
    pub env: Env<'m, S>,
    pub funs: Vec<(Sym, &'m FunDef)>,
}

/// A `let rec`'s bindings as herd splits them: the functions, bound together so that each
/// sees all (a [`RecGroup`]), and the values, computed by a fixpoint from [`empty_for`].
pub struct RecBindings<'m> {
    pub funs: Vec<(Sym, &'m FunDef)>,
    pub vals: Vec<&'m Binding>,
}

impl<'m> RecBindings<'m> {
    /// `Err` with the position of a function bound to a tuple (herd's "binding mismatch").
    pub fn split(bds: &'m [Binding]) -> Result<RecBindings<'m>, super::ast::Pos> {
        let mut r = RecBindings {
            funs: Vec::new(),
            vals: Vec::new(),
        };
        for b in bds {
            match (&b.pat, &b.expr) {
                (Pat::Var(Some(x)), Expr::Fun(f)) => r.funs.push((*x, &**f)),
                (Pat::Tuple(_), Expr::Fun(_)) => return Err(b.pos),
                _ => r.vals.push(b),
            }
        }
        Ok(r)
    }

    /// `env` with the functions bound, each a closure over `env` and the group; `id`
    /// numbers the closures.
    pub fn bind_funs<S: Stage>(&self, env: &Env<'m, S>, id: &dyn Fn() -> u64) -> Env<'m, S> {
        let g = Rc::new(RecGroup {
            env: env.clone(),
            funs: self.funs.clone(),
        });
        let mut e = env.clone();
        for (j, (name, def)) in self.funs.iter().enumerate() {
            let clo = Closure {
                def,
                env: env.clone(),
                rec: Some((g.clone(), j)),
                id: id(),
            };
            e = e.bind(*name, Value::Clo(Rc::new(clo)));
        }
        e
    }
}

/// What the variables of a `let rec` pattern start from: `{}`, or a tuple of them.
pub fn empty_for<'m, S: Stage>(pat: &Pat) -> Value<'m, S> {
    match pat {
        Pat::Var(_) => Value::Empty,
        Pat::Tuple(xs) => Value::Tuple(Rc::new(vec![Value::Empty; xs.len()])),
    }
}

#[derive(Debug)]
pub struct Procedure<'m, S: Stage> {
    pub pat: &'m Pat,
    pub body: &'m [Ins],
    pub env: Env<'m, S>,
    /// Recursive procedures see themselves under this name.
    pub rec_name: Option<Sym>,
}

impl<'m, S: Stage> Closure<'m, S> {
    /// The environment the body runs in: the captured one, with the function's recursive
    /// group bound again (each call makes its own closures, `fresh` numbering them).
    pub fn call_env(&self, mut fresh: impl FnMut() -> u64) -> Env<'m, S> {
        let mut env = self.env.clone();
        if let Some((g, _)) = &self.rec {
            for (j, (name, def)) in g.funs.iter().enumerate() {
                let c = Closure {
                    def,
                    env: g.env.clone(),
                    rec: Some((g.clone(), j)),
                    id: fresh(),
                };
                env = env.bind(*name, Value::Clo(Rc::new(c)));
            }
        }
        env
    }
}

impl<'m, S: Stage> Value<'m, S> {
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Empty => "{}",
            Value::Unv => "universe",
            Value::Set(_) => "events",
            Value::Rel(_) => "rel",
            Value::Event(_) => "event",
            Value::Pair(..) => "pair",
            Value::Tag(..) => "tag",
            Value::ValSet(_) => "set",
            Value::Tuple(_) => "tuple",
            Value::Clo(_) | Value::Prim(_) => "closure",
            Value::Proc(_) => "procedure",
            Value::Staged(s) => s.type_name(),
        }
    }

    pub fn set(s: Set) -> Self {
        Value::Set(Rc::new(s))
    }
    pub fn rel(r: Rel) -> Self {
        Value::Rel(Rc::new(r))
    }

    /// Whether this is staged or holds a staged value (in a tuple or a set).
    pub fn is_staged(&self) -> bool {
        match self {
            Value::Staged(_) => true,
            Value::Tuple(t) | Value::ValSet(t) => t.iter().any(Value::is_staged),
            _ => false,
        }
    }
}

fn rank<S: Stage>(v: &Value<'_, S>) -> u8 {
    match v {
        Value::Empty => 0,
        Value::Unv => 1,
        Value::Set(_) => 2,
        Value::Rel(_) => 3,
        Value::Event(_) => 4,
        Value::Pair(..) => 5,
        Value::Tag(..) => 6,
        Value::ValSet(_) => 7,
        Value::Tuple(_) => 8,
        Value::Clo(_) => 9,
        Value::Prim(_) => 10,
        Value::Proc(_) => 11,
        Value::Staged(_) => 12,
    }
}

/// Whether `v` is an empty set, relation or set of values.
pub fn is_empty_coll<S: Stage>(v: &Value<'_, S>) -> bool {
    match v {
        Value::Empty => true,
        Value::Set(s) => s.is_empty(),
        Value::Rel(r) => r.is_empty(),
        Value::ValSet(s) => s.is_empty(),
        _ => false,
    }
}

/// A total order on values, used for sets of values and for `=`; `{}` equals any empty
/// collection, as in herd.
pub fn cmp<S: Stage>(a: &Value<'_, S>, b: &Value<'_, S>) -> Ordering {
    use Value::*;
    match (a, b) {
        (Empty, _) if is_empty_coll(b) => Ordering::Equal,
        (_, Empty) if is_empty_coll(a) => Ordering::Equal,
        (Set(x), Set(y)) => x.words().cmp(y.words()),
        (Rel(x), Rel(y)) => x.words().cmp(y.words()),
        (Event(x), Event(y)) => x.cmp(y),
        (Pair(a1, b1), Pair(a2, b2)) => (a1, b1).cmp(&(a2, b2)),
        (Tag(x), Tag(y)) => x.name.cmp(&y.name),
        (ValSet(x), ValSet(y)) | (Tuple(x), Tuple(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                let c = cmp(p, q);
                if c != Ordering::Equal {
                    return c;
                }
            }
            x.len().cmp(&y.len())
        }
        (Clo(x), Clo(y)) => x.id.cmp(&y.id),
        (Prim(x), Prim(y)) => (*x as u32).cmp(&(*y as u32)),
        (Proc(x), Proc(y)) => (Rc::as_ptr(x) as usize).cmp(&(Rc::as_ptr(y) as usize)),
        (Staged(x), Staged(y)) => x.order(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

/// Builds a sorted, duplicate-free set of values.
pub fn valset<S: Stage>(mut v: Vec<Value<'_, S>>) -> Value<'_, S> {
    v.sort_by(cmp);
    v.dedup_by(|a, b| cmp(a, b) == Ordering::Equal);
    Value::ValSet(Rc::new(v))
}

/// Adds `x` to the sorted set `s`.
pub fn valset_add<'m, S: Stage>(s: &[Value<'m, S>], x: Value<'m, S>) -> Value<'m, S> {
    match s.binary_search_by(|y| cmp(y, &x)) {
        Ok(_) => Value::ValSet(Rc::new(s.to_vec())),
        Err(i) => {
            let mut v = Vec::with_capacity(s.len() + 1);
            v.extend_from_slice(&s[..i]);
            v.push(x);
            v.extend_from_slice(&s[i..]);
            Value::ValSet(Rc::new(v))
        }
    }
}

pub fn valset_contains<S: Stage>(s: &[Value<'_, S>], x: &Value<'_, S>) -> bool {
    s.binary_search_by(|y| cmp(y, x)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lookups across many blocks, with names that share a mask bit and names rebound: the
    /// newest binding wins, a name never bound is not found, and an older environment
    /// still sees its own bindings.
    #[test]
    fn env_lookup_skips_blocks_soundly() {
        let ev = |e: &Env, x: u32| match e.lookup(Sym(x)) {
            Some(Slot::Val(Value::Event(v))) => Some(*v),
            _ => None,
        };
        let mut env: Env = Env::default();
        let mut old = None;
        // Syms 0..300 (many share a bit: 300 > 128), then 0..300 by 7 rebound.
        for x in 0..300u32 {
            env = env.bind(Sym(x), Value::Event(x as usize));
            if x == 150 {
                old = Some(env.clone());
            }
        }
        for x in (0..300u32).step_by(7) {
            env = env.bind(Sym(x), Value::Event(1000 + x as usize));
        }
        for x in 0..300u32 {
            let want = if x % 7 == 0 { 1000 + x } else { x };
            assert_eq!(ev(&env, x), Some(want as usize), "sym {x}");
        }
        assert_eq!(ev(&env, 300), None);
        assert_eq!(ev(&env, 428), None); // the bit of 44 and 172, both bound
        let old = old.unwrap();
        assert_eq!(ev(&old, 140), Some(140));
        assert_eq!(ev(&old, 151), None);
    }
}
