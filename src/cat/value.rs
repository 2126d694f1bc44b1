//! Run-time values of the cat language.
//!
//! Sets and relations of events are [`Set`]/[`Rel`] bit matrices behind `Rc`, so binding and
//! passing them around never copies. `Empty` and `Unv` stay symbolic until an operator
//! needs their type, as in herd.

use super::ast::{Expr, FunDef, Ins, Pat, Sym};
use super::builtins::Builtin;
use crate::rel::{Rel, Set};
use std::cell::RefCell;
use std::cmp::Ordering;
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

#[derive(Clone, Debug)]
pub enum Value<'m> {
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
    ValSet(Rc<Vec<Value<'m>>>),
    Tuple(Rc<Vec<Value<'m>>>),
    Clo(Rc<Closure<'m>>),
    Prim(Builtin),
    Proc(Rc<Procedure<'m>>),
    /// A set or relation that differs between the branches a plan stands for: a node of
    /// the plan being built (see [`super::plan`]).
    Sym(SymVal),
}

/// A node of the plan being built, and whether it is a set (else a relation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymVal {
    pub node: u32,
    pub set: bool,
}

/// Whether `v` is symbolic or holds a symbolic value (a tuple of them).
pub fn has_sym(v: &Value<'_>) -> bool {
    match v {
        Value::Sym(_) => true,
        Value::Tuple(t) => t.iter().any(has_sym),
        _ => false,
    }
}

/// An environment: a persistent list of bindings, newest first.
#[derive(Clone, Default, Debug)]
pub struct Env<'m>(pub Option<Rc<EnvNode<'m>>>);

#[derive(Debug)]
pub struct EnvNode<'m> {
    pub name: Sym,
    /// Part of an environment the candidates of a run cache share (see
    /// [`Env::mark_shared`]): it stays alive, unchanged, as long as the cache.
    pub shared: std::cell::Cell<bool>,
    pub slot: Slot<'m>,
    pub next: Env<'m>,
}

/// A bound value, or a `let` right-hand side not evaluated yet (herd binds lazily, so
/// unused definitions cost nothing and their errors do not matter).
#[derive(Clone, Debug)]
pub enum Slot<'m> {
    Val(Value<'m>),
    Thunk(Rc<Thunk<'m>>),
    /// A value each candidate (and each `with` branch) sets in its own memo table: the
    /// variable of a `with` or of a `let rec`, in an environment candidates share.
    Memo(u32),
}

#[derive(Debug)]
pub struct Thunk<'m> {
    pub expr: &'m Expr,
    pub env: Env<'m>,
    pub value: Held<'m>,
    /// Its slot in the run cache, for a binding that is the same in every candidate.
    pub key: Option<u32>,
}

/// A forced value, with the latest `with` or `let rec` variable its evaluation read,
/// directly or through other values, as that variable's memo slot plus one (0: none;
/// `u32::MAX` for a function or procedure, which may read anything when called).
pub type Forced<'m> = (Value<'m>, u32);

/// Where a thunk keeps its value once forced.
#[derive(Debug)]
pub enum Held<'m> {
    /// In the thunk: it belongs to one candidate's environment.
    Own(RefCell<Option<Forced<'m>>>),
    /// In each candidate's memo table, at this index: the thunk is in an environment
    /// candidates share.
    Memo(u32),
}

impl<'m> EnvNode<'m> {
    /// The slot of `name` in this node or the ones below it.
    pub fn lookup(&self, name: Sym) -> Option<&Slot<'m>> {
        let mut cur = self;
        loop {
            if cur.name == name {
                return Some(&cur.slot);
            }
            cur = cur.next.0.as_deref()?;
        }
    }
}

impl<'m> Env<'m> {
    pub fn bind(&self, name: Sym, val: Value<'m>) -> Env<'m> {
        self.bind_slot(name, Slot::Val(val))
    }

    /// Binds a pattern to a value (tuples are split component-wise); the error is the
    /// message, for the caller to locate.
    pub fn bind_pat(&self, pat: &Pat, v: Value<'m>) -> Result<Env<'m>, &'static str> {
        match pat {
            Pat::Var(None) => Ok(self.clone()),
            Pat::Var(Some(x)) => Ok(self.bind(*x, v)),
            Pat::Tuple(xs) => {
                let vs: Vec<Value<'m>> = match v {
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
    pub fn bind_slot(&self, name: Sym, slot: Slot<'m>) -> Env<'m> {
        Env(Some(Rc::new(EnvNode {
            name,
            shared: std::cell::Cell::new(false),
            slot,
            next: self.clone(),
        })))
    }
    /// Marks the nodes of this environment down to `base` (exclusive) as shared.
    pub fn mark_shared(&self, base: &Env<'m>) {
        let stop = base.0.as_ref().map(Rc::as_ptr);
        let mut cur = &self.0;
        while let Some(n) = cur {
            if Some(Rc::as_ptr(n)) == stop || n.shared.get() {
                break;
            }
            n.shared.set(true);
            cur = &n.next.0;
        }
    }

    pub fn lookup(&self, name: Sym) -> Option<&Slot<'m>> {
        self.0.as_deref()?.lookup(name)
    }
}

/// A function value. Recursive functions (`let rec f x = ...`) refer to their group of
/// definitions instead of holding a cycle of `Rc`s: calling one rebinds the whole group.
#[derive(Debug)]
pub struct Closure<'m> {
    pub def: &'m FunDef,
    pub env: Env<'m>,
    pub rec: Option<(Rc<RecGroup<'m>>, usize)>,
    pub id: u64,
}

/// Functions defined together by `let rec f = fun ... and g = fun ...`.
#[derive(Debug)]
pub struct RecGroup<'m> {
    pub env: Env<'m>,
    pub funs: Vec<(Sym, &'m FunDef)>,
}

#[derive(Debug)]
pub struct Procedure<'m> {
    pub pat: &'m Pat,
    pub body: &'m [Ins],
    pub env: Env<'m>,
    /// Recursive procedures see themselves under this name.
    pub rec_name: Option<Sym>,
}

impl<'m> Value<'m> {
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
            Value::Sym(s) if s.set => "events",
            Value::Sym(_) => "rel",
        }
    }

    pub fn set(s: Set) -> Value<'m> {
        Value::Set(Rc::new(s))
    }
    pub fn rel(r: Rel) -> Value<'m> {
        Value::Rel(Rc::new(r))
    }
}

fn rank(v: &Value<'_>) -> u8 {
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
        Value::Sym(_) => 12,
    }
}

/// Whether `v` is an empty set, relation or set of values.
pub fn is_empty_coll(v: &Value<'_>) -> bool {
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
pub fn cmp(a: &Value<'_>, b: &Value<'_>) -> Ordering {
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
        _ => rank(a).cmp(&rank(b)),
    }
}

/// Builds a sorted, duplicate-free set of values.
pub fn valset(mut v: Vec<Value<'_>>) -> Value<'_> {
    v.sort_by(cmp);
    v.dedup_by(|a, b| cmp(a, b) == Ordering::Equal);
    Value::ValSet(Rc::new(v))
}

/// Adds `x` to the sorted set `s`.
pub fn valset_add<'m>(s: &[Value<'m>], x: Value<'m>) -> Value<'m> {
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

/// `a ++ b`, herd's addition of an element to a set (a set of events, a relation, or a set
/// of values), over `n` events; the error is the message, for the caller to locate.
pub fn add<'m>(n: usize, a: Value<'m>, b: Value<'m>) -> Result<Value<'m>, String> {
    match (a, b) {
        (Value::Unv, _) => Err("universe in set ++".into()),
        (_, Value::Unv) => Ok(Value::Unv),
        (Value::Event(e), Value::Empty) => Ok(Value::set(Set::from_iter(n, [e]))),
        (Value::Pair(x, y), Value::Empty) => Ok(Value::rel(pair_rel(n, x, y))),
        (v, Value::Empty) => Ok(Value::ValSet(Rc::new(vec![v]))),
        (v, Value::ValSet(s)) => Ok(valset_add(&s, v)),
        (Value::Pair(x, y), Value::Rel(r)) => {
            let mut r = Rc::unwrap_or_clone(r);
            r.insert(x as usize, y as usize);
            Ok(Value::rel(r))
        }
        (Value::Tuple(t), Value::Rel(r)) => match &t[..] {
            [Value::Event(x), Value::Event(y)] => {
                let mut r = Rc::unwrap_or_clone(r);
                r.insert(*x, *y);
                Ok(Value::rel(r))
            }
            _ => Err("this expression should be a pair".into()),
        },
        (Value::Event(e), Value::Set(s)) => {
            let mut s = Rc::unwrap_or_clone(s);
            s.insert(e);
            Ok(Value::set(s))
        }
        (a, b) => Err(format!(
            "cannot add a {} to a {}",
            a.type_name(),
            b.type_name()
        )),
    }
}

pub fn valset_contains(s: &[Value<'_>], x: &Value<'_>) -> bool {
    s.binary_search_by(|y| cmp(y, x)).is_ok()
}
