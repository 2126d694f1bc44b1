//! herd's operators on values: what `a | b`, `a & b`, `a \ b`, `~a`, `r+`, `[S]`, `e ++ S`,
//! `{e1, e2}`, `a = b`, `a in b`, `a <= b` and the three checks mean, as herd's
//! `interpreter.ml` computes them.
//!
//! Part of the language layer: both evaluators call these on values they know
//! (the plan compiler handles staged operands itself, before it gets here). Errors are
//! messages, for the caller to locate.

use super::Model;
use super::ast::{Op1, Pos, TestKind};
use super::value::{
    Stage, Value, cmp, is_empty_coll, pair_rel, valset, valset_add, valset_contains,
};
use crate::rel::{Rel, Set};
use std::cmp::Ordering;
use std::rc::Rc;

pub type Res<T> = Result<T, String>;

/// The operators over the events of one candidate (`n` of them) of model `m` (whose
/// `enum`s give the universe a complement of tags is taken in).
#[derive(Clone, Copy)]
pub struct Ops<'m> {
    pub n: usize,
    pub m: &'m Model,
}

impl<'m> Ops<'m> {
    pub fn all(&self) -> Set {
        Set::full(self.n)
    }

    pub fn id(&self) -> Rel {
        Rel::identity(&self.all())
    }

    /// `v` as a relation (`{}` and `_` typed; a pair is the relation holding it).
    pub fn as_rel<S: Stage>(&self, v: &Value<'m, S>) -> Res<Rc<Rel>> {
        match v {
            Value::Rel(r) => Ok(r.clone()),
            Value::Empty => Ok(Rc::new(Rel::empty(self.n))),
            Value::Unv => Ok(Rc::new(Rel::cartesian(&self.all(), &self.all()))),
            Value::Pair(a, b) => Ok(Rc::new(pair_rel(self.n, *a, *b))),
            v => Err(format!("type rel expected, {} found", v.type_name())),
        }
    }

    /// `v` as a set of events (an event is the set holding it).
    pub fn as_set<S: Stage>(&self, v: &Value<'m, S>) -> Res<Rc<Set>> {
        match v {
            Value::Set(s) => Ok(s.clone()),
            Value::Empty => Ok(Rc::new(Set::empty(self.n))),
            Value::Unv => Ok(Rc::new(self.all())),
            Value::Event(e) => Ok(Rc::new(Set::from_iter(self.n, [*e]))),
            v => Err(format!("type events expected, {} found", v.type_name())),
        }
    }

    /// All tags of an enum type (the universe a complement of tags is taken in).
    fn tags_of<S: Stage>(&self, ty: &str) -> Vec<Value<'m, S>> {
        let m = self.m;
        let tags = m.enums.iter().filter(|(t, _)| t == ty);
        let all = tags.flat_map(|(_, r)| m.tags[r.clone()].iter().map(Value::Tag));
        match valset(all.collect()) {
            Value::ValSet(s) => s.to_vec(),
            _ => Vec::new(),
        }
    }

    /// A unary operator.
    pub fn op1<S: Stage>(&self, op: Op1, v: Value<'m, S>) -> Res<Value<'m, S>> {
        let rel = |r: Rel| Ok(Value::rel(r));
        match (op, v) {
            (Op1::ToId, Value::Empty) => Ok(Value::Empty),
            (Op1::ToId, v) => rel(Rel::identity(&*self.as_set(&v)?)),
            (Op1::Plus | Op1::Inv, Value::Empty) => Ok(Value::Empty),
            (Op1::Star | Op1::Opt, Value::Empty) => rel(self.id()),
            (Op1::Plus | Op1::Star | Op1::Opt | Op1::Inv, Value::Unv) => Ok(Value::Unv),
            (Op1::Plus, Value::Rel(r)) => rel(r.transitive_closure()),
            (Op1::Star, Value::Rel(r)) => rel(r.reflexive_transitive_closure()),
            (Op1::Opt, Value::Rel(r)) => rel(r.union(&self.id())),
            (Op1::Inv, Value::Rel(r)) => rel(r.inverse()),
            (Op1::Inv, Value::Pair(a, b)) => Ok(Value::Pair(b, a)),
            (Op1::Comp, Value::Empty) => Ok(Value::Unv),
            (Op1::Comp, Value::Unv) => Ok(Value::Empty),
            (Op1::Comp, Value::Set(s)) => Ok(Value::set(s.complement())),
            (Op1::Comp, Value::Rel(r)) => rel(r.complement()),
            (Op1::Comp, v @ (Value::ValSet(_) | Value::Tag(_))) => {
                self.diff(&Value::Unv, &tag2set(v))
            }
            (Op1::Comp, v) => Err(format!("set or relation expected, {} found", v.type_name())),
            (_, v) => Err(format!("type rel expected, {} found", v.type_name())),
        }
    }

    /// `{e1, e2, ...}`: events make a set, pairs a relation, other values a set of values.
    pub fn explicit_set<S: Stage>(&self, vs: Vec<Value<'m, S>>) -> Res<Value<'m, S>> {
        let events: Option<Vec<usize>> = vs
            .iter()
            .map(|v| match v {
                Value::Event(e) => Some(*e),
                _ => None,
            })
            .collect();
        let pairs: Option<Vec<(usize, usize)>> = vs
            .iter()
            .map(|v| match v {
                Value::Pair(a, b) => Some((*a as usize, *b as usize)),
                _ => None,
            })
            .collect();
        let mixed = vs
            .iter()
            .any(|v| matches!(v, Value::Event(_) | Value::Pair(..)));
        match (vs.is_empty(), events, pairs) {
            (true, _, _) => Ok(Value::Empty),
            (_, Some(es), _) => Ok(Value::set(Set::from_iter(self.n, es))),
            (_, _, Some(ps)) => Ok(Value::rel(Rel::from_pairs(self.n, ps))),
            _ if mixed => Err("heterogeneous set elements".into()),
            _ => Ok(valset(vs)),
        }
    }

    /// `a | b`: `{}` is neutral and `_` absorbs, as in herd.
    pub fn union<S: Stage>(&self, a: Value<'m, S>, b: Value<'m, S>) -> Res<Value<'m, S>> {
        let a = match tag2set(a) {
            Value::Event(e) => Value::set(Set::from_iter(self.n, [e])),
            Value::Pair(x, y) => Value::rel(pair_rel(self.n, x, y)),
            a => a,
        };
        match (a, tag2set(b)) {
            (Value::Empty, v) | (v, Value::Empty) => Ok(v),
            (Value::Unv, _) | (_, Value::Unv) => Ok(Value::Unv),
            (Value::Set(x), Value::Set(y)) => Ok(Value::set(x.union(&y))),
            (Value::Rel(x), Value::Rel(y)) => Ok(Value::rel(x.union(&y))),
            (Value::ValSet(x), Value::ValSet(y)) => {
                Ok(valset(x.iter().chain(y.iter()).cloned().collect()))
            }
            (x, y) => Err(format!(
                "type {} expected, {} found",
                x.type_name(),
                y.type_name()
            )),
        }
    }

    pub fn inter<S: Stage>(&self, a: &Value<'m, S>, b: &Value<'m, S>) -> Res<Value<'m, S>> {
        match (a, b) {
            (Value::Rel(x), Value::Rel(y)) => Ok(Value::rel(x.inter(y))),
            (Value::Set(x), Value::Set(y)) => Ok(Value::set(x.inter(y))),
            (Value::ValSet(x), Value::ValSet(y)) => {
                let both = x.iter().filter(|v| valset_contains(y, v));
                Ok(Value::ValSet(Rc::new(both.cloned().collect())))
            }
            (Value::Unv, v) | (v, Value::Unv) => Ok(v.clone()),
            (Value::Empty, _) | (_, Value::Empty) => Ok(Value::Empty),
            (x, y) => Err(format!(
                "intersection of {} and {}",
                x.type_name(),
                y.type_name()
            )),
        }
    }

    pub fn diff<S: Stage>(&self, a: &Value<'m, S>, b: &Value<'m, S>) -> Res<Value<'m, S>> {
        match (a, b) {
            (Value::Rel(x), Value::Rel(y)) => Ok(Value::rel(x.diff(y))),
            (Value::Set(x), Value::Set(y)) => Ok(Value::set(x.diff(y))),
            (Value::ValSet(x), Value::ValSet(y)) => {
                let left = x.iter().filter(|v| !valset_contains(y, v));
                Ok(Value::ValSet(Rc::new(left.cloned().collect())))
            }
            (Value::Unv, Value::Rel(y)) => Ok(Value::rel(y.complement())),
            (Value::Unv, Value::Set(y)) => Ok(Value::set(y.complement())),
            (Value::Unv, Value::ValSet(y)) => match y.first() {
                Some(Value::Tag(t)) => {
                    let all = self.tags_of(&t.ty).into_iter();
                    let left = all.filter(|t| !valset_contains(y, t));
                    Ok(Value::ValSet(Rc::new(left.collect())))
                }
                _ => Err("cannot build universe for element type".into()),
            },
            (Value::Unv, Value::Empty) => Ok(Value::Unv),
            (_, Value::Unv) | (Value::Empty, _) => Ok(Value::Empty),
            (v @ (Value::Rel(_) | Value::Set(_) | Value::ValSet(_)), Value::Empty) => Ok(v.clone()),
            (x, y) => Err(format!(
                "difference of {} and {}",
                x.type_name(),
                y.type_name()
            )),
        }
    }

    /// `a * b` on sets of events.
    pub fn cartesian<S: Stage>(&self, a: &Value<'m, S>, b: &Value<'m, S>) -> Res<Value<'m, S>> {
        Ok(Value::rel(Rel::cartesian(
            &*self.as_set(a)?,
            &*self.as_set(b)?,
        )))
    }

    /// `e ++ S`, herd's addition of an element to a set (a set of events, a relation, or a
    /// set of values).
    pub fn add<S: Stage>(&self, a: Value<'m, S>, b: Value<'m, S>) -> Res<Value<'m, S>> {
        let n = self.n;
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

    /// The elements of a set, in herd's order (a set-match takes the first or the middle
    /// one).
    pub fn elements<S: Stage>(&self, v: &Value<'m, S>) -> Res<Vec<Value<'m, S>>> {
        Ok(match v {
            Value::Empty => Vec::new(),
            Value::Set(s) => s.iter().map(Value::Event).collect(),
            Value::Rel(r) => r
                .pairs()
                .map(|(x, y)| Value::Pair(x as u32, y as u32))
                .collect(),
            Value::ValSet(s) => s.to_vec(),
            Value::Unv => return Err("cannot set-match on universe".into()),
            v => {
                let t = v.type_name();
                return Err(format!("set-matching on non-set value of type '{t}'"));
            }
        })
    }

    /// The rest of a set after a set-match: a set of the same kind as `like`.
    pub fn rebuild<S: Stage>(&self, like: &Value<'m, S>, vs: &[Value<'m, S>]) -> Value<'m, S> {
        let vs = vs.iter().cloned();
        match like {
            Value::Set(_) => Value::set(Set::from_iter(
                self.n,
                vs.filter_map(|v| match v {
                    Value::Event(e) => Some(e),
                    _ => None,
                }),
            )),
            Value::Rel(_) => Value::rel(Rel::from_pairs(
                self.n,
                vs.filter_map(|v| match v {
                    Value::Pair(x, y) => Some((x as usize, y as usize)),
                    _ => None,
                }),
            )),
            _ => Value::ValSet(Rc::new(vs.collect())),
        }
    }

    /// `x = y`.
    pub fn equal<S: Stage>(&self, x: &Value<'m, S>, y: &Value<'m, S>) -> bool {
        cmp(x, y) == Ordering::Equal
    }

    /// `x in y`; the error is about `y`.
    pub fn member<S: Stage>(&self, x: &Value<'m, S>, y: &Value<'m, S>) -> Res<bool> {
        match (x, y) {
            (Value::Event(e), y) => Ok(self.as_set(y)?.contains(*e)),
            (Value::Pair(p, q), y) => Ok(self.as_rel(y)?.contains(*p as usize, *q as usize)),
            (_, Value::ValSet(s)) => Ok(valset_contains(s, x)),
            (_, Value::Empty) => Ok(false),
            (_, y) => Err(format!("set expected, found {}", y.type_name())),
        }
    }

    /// `x <= y` (a subset); the error is about `x` (first) or `y` (second).
    pub fn subset<S: Stage>(
        &self,
        x: &Value<'m, S>,
        y: &Value<'m, S>,
    ) -> Result<bool, (bool, String)> {
        fn first<T>(r: Res<T>) -> Result<T, (bool, String)> {
            r.map_err(|e| (true, e))
        }
        fn second<T>(r: Res<T>) -> Result<T, (bool, String)> {
            r.map_err(|e| (false, e))
        }
        match (x, y) {
            (Value::Empty, _) => Ok(true),
            (Value::Set(_) | Value::Event(_), _) | (_, Value::Set(_)) => {
                Ok(first(self.as_set(x))?.is_subset(&*second(self.as_set(y))?))
            }
            (Value::ValSet(s), Value::ValSet(t)) => Ok(s.iter().all(|v| valset_contains(t, v))),
            (Value::ValSet(s), Value::Empty) => Ok(s.is_empty()),
            _ => Ok(first(self.as_rel(x))?.is_subset(&*second(self.as_rel(y))?)),
        }
    }

    /// Whether a round of a fixpoint added nothing: `new ⊆ old` (herd's `stabilised`).
    pub fn stabilised<S: Stage>(&self, old: &Value<'m, S>, new: &Value<'m, S>) -> Res<bool> {
        Ok(match (old, new) {
            (_, Value::Empty) | (Value::Unv, _) => true,
            (Value::Empty, v) => is_empty_coll(v),
            (Value::Rel(o), Value::Rel(n)) => n.is_subset(o),
            (Value::Set(o), Value::Set(n)) => n.is_subset(o),
            (Value::ValSet(o), Value::ValSet(n)) => n.iter().all(|x| valset_contains(o, x)),
            (Value::Rel(o), Value::Unv) => o.len() == self.n * self.n,
            (Value::Set(o), Value::Unv) => o.len() == self.n,
            (Value::Tuple(o), Value::Tuple(n)) if o.len() == n.len() => {
                let mut all = true;
                for (a, b) in o.iter().zip(n.iter()) {
                    all &= self.stabilised(a, b)?;
                }
                all
            }
            (_, v) => return Err(format!("illegal recursion on type '{}'", v.type_name())),
        })
    }

    /// Whether the property a check of `kind` names holds of `v` (its negation aside),
    /// and, when it does not, what breaks it (see [`super::Failure::of`]): a cycle of the
    /// relation, the event related to itself, or its first pair (an event as `[e, e]`).
    pub fn check<S: Stage>(
        &self,
        kind: TestKind,
        v: &Value<'m, S>,
    ) -> Res<(bool, Option<Vec<usize>>)> {
        Ok(match (kind, v) {
            (TestKind::Empty, Value::Set(s)) => match s.iter().next() {
                Some(e) => (false, Some(vec![e, e])),
                None => (true, None),
            },
            (TestKind::Empty, Value::Event(e)) => (false, Some(vec![*e, *e])),
            (TestKind::Empty, Value::ValSet(s)) => (s.is_empty(), None),
            (TestKind::Empty, v) => match self.as_rel(v)?.pairs().next() {
                Some((a, b)) => (false, Some(vec![a, b])),
                None => (true, None),
            },
            (_, Value::Set(_) | Value::Event(_)) => return Err("relation expected".into()),
            (TestKind::Irreflexive, v) => {
                let r = self.as_rel(v)?;
                let x = (0..self.n).find(|&i| r.contains(i, i));
                (x.is_none(), x.map(|i| vec![i]))
            }
            (TestKind::Acyclic, v) => {
                let c = self.as_rel(v)?.find_cycle();
                (c.is_none(), c)
            }
        })
    }
}

/// herd's `match` on a tag: the branch of the clause naming `v`'s tag, else the default
/// `d`. An error is located at `at` (the match) when no clause names the tag, at `of` (the
/// matched expression) when `v` is no tag.
pub fn tag_branch<'c, T, S: Stage>(
    v: &Value<'_, S>,
    cls: &'c [(String, T)],
    d: Option<&'c T>,
    at: Pos,
    of: Pos,
) -> Result<&'c T, (Pos, String)> {
    let Value::Tag(tag) = v else {
        let t = v.type_name();
        return Err((of, format!("matching on non-tag value of type '{t}'")));
    };
    let name = &tag.name;
    let branch = cls.iter().find(|(t, _)| t == name).map(|(_, b)| b);
    branch
        .or(d)
        .ok_or_else(|| (at, format!("pattern matching failed on value '{name}'")))
}

/// A tag taken as the set holding it, where a set is expected.
pub fn tag2set<S: Stage>(v: Value<'_, S>) -> Value<'_, S> {
    match v {
        Value::Tag(..) => Value::ValSet(Rc::new(vec![v])),
        v => v,
    }
}
