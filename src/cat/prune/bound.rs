//! Lower bounds of what the model computes after `with co from ...`, one location at a time.
//!
//! For a per-location order `p`, every `co` the product can pick contains `p`. Reading the
//! instructions after the `with` with `co` bound to `p` and each value replaced by a lower
//! bound of it (names that do not depend on `co` are exact; monotone operators combine lower
//! bounds; `A \ B` needs `B` exact; anything else gives the empty bound) yields a lower bound
//! of each check's relation. A non-negated check that every branch runs fails in every branch
//! containing `p` as soon as its lower bound already fails: `p` can be dropped.

use crate::cat::ast::{Binding, Expr, FunDef, Ins, Op1, Op2, Pat, Sym, Test, TestKind, TestType};
use crate::cat::builtins::Builtin;
use crate::cat::eval::Ctx;
use crate::cat::tally::Tally;
use crate::cat::value::{Env, Value};
use crate::cat::{CheckKind, Failure};
use crate::rel::{Rel, Set};
use rustc_hash::FxHashMap;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Calls nested deeper than this give the empty bound.
const MAX_DEPTH: u32 = 16;
/// A check is tried this many times at a site before its success rate is judged...
const TRIAL: u32 = 128;
/// ... and is then skipped there when it drops fewer than one order in this many.
const WORTH: u32 = 32;

/// What the analysis learns about each `with` site, shared by the candidates of a run.
#[derive(Default)]
pub struct Memo {
    /// Whether an expression is exact, by site, expression and length of the names bound
    /// since the `with` (the names themselves are the same at every visit of a site).
    exact: RefCell<FxHashMap<(usize, usize, u32), bool>>,
    /// How often each check was tried at a site and how often it dropped the order, by
    /// (site, check).
    stats: Tally,
    /// Sites where no check is worth trying any more: not even read again.
    idle: RefCell<rustc_hash::FxHashSet<usize>>,
    /// How often the checks were tried at a site on a prefix with so many elements left to
    /// place, and how often they dropped it, by (site, elements left).
    levels: Tally,
}

/// Whether testing prefixes of orders at `site` with `left` elements still to place pays
/// (tries and drops in `levels`): only while at least one in `left!` of them is dropped
/// (after [`TRIAL`] tries), as below lie at most `left!` orders, each judged in about the
/// time a test takes.
pub fn prefix_pays(levels: &Tally, site: usize, left: usize) -> bool {
    let orders: u32 = (1..=left.min(12) as u32).product();
    levels.worth((site, left), TRIAL, orders)
}

/// What is known of a value: a lower bound, or the value itself.
#[derive(Clone)]
enum Lb<'m> {
    /// Nothing known: the empty bound (of any type; the value may even be `_`).
    Nothing,
    /// The empty bound of a value that is not `_`.
    Empty,
    Rel(Rc<Rel>),
    /// A lower bound of a relation that may also be `_`, which sequences skip.
    Under(Rc<Rel>),
    Set(Rc<Set>),
    /// An exact value other than a set or relation of events (`_`, closures, tags, ...).
    Val(Value<'m>),
    /// A function defined after the `with`, whose body may depend on `co`.
    Fun(&'m FunDef, Abs<'m>),
}

/// An environment of the analysis: names bound after the `with` over the real environment
/// that holds the exact ones.
#[derive(Clone)]
struct Abs<'m> {
    list: Option<Rc<Node<'m>>>,
    real: Env<'m>,
    /// How many names `list` binds; `None` inside calls and `let ... in`, whose
    /// exactness is not remembered.
    len: Option<u32>,
}

struct Node<'m> {
    name: Sym,
    slot: Slot<'m>,
    next: Option<Rc<Node<'m>>>,
}

enum Slot<'m> {
    /// The same in every branch: the real environment holds it.
    Exact,
    /// The `with` variable: the order being tried.
    Root,
    Known(Lb<'m>),
    Lazy(Rc<Lazy<'m>>),
}

struct Lazy<'m> {
    expr: &'m Expr,
    env: Abs<'m>,
    /// The bound, and whether it depends on the order.
    cell: RefCell<Option<(Lb<'m>, bool)>>,
}

impl<'m> Abs<'m> {
    fn push(&mut self, name: Sym, slot: Slot<'m>) {
        self.len = self.len.map(|l| l + 1);
        self.list = Some(Rc::new(Node {
            name,
            slot,
            next: self.list.take(),
        }));
    }

    fn find(&self, y: Sym) -> Option<&Slot<'m>> {
        let mut cur = &self.list;
        while let Some(n) = cur {
            if n.name == y {
                return Some(&n.slot);
            }
            cur = &n.next;
        }
        None
    }
}

/// The checks after one `with`, ready to be tried on each per-location order.
pub struct Bounds<'a, 'm, 'p> {
    cx: &'a Ctx<'m, 'p>,
    /// Identifies the `with` site.
    site: usize,
    shared: Option<&'p Memo>,
    local: Memo,
    root: RefCell<Lb<'m>>,
    /// Values depending on the order: forgotten before each new one.
    lazies: Vec<Rc<Lazy<'m>>>,
    checks: Vec<(&'m Test, Abs<'m>)>,
    /// Bounds of expressions that do not depend on the order (`None`: they do), by
    /// expression and names bound.
    nodes: RefCell<FxHashMap<(usize, u32), Option<Lb<'m>>>>,
    /// Whether what is being computed has read the order.
    touched: Cell<bool>,
    depth: Cell<u32>,
}

impl<'a, 'm, 'p> Bounds<'a, 'm, 'p> {
    /// Reads `seqs` (what remains to run after the `with` binding `x`, in order) for the
    /// checks every branch runs.
    pub fn new(cx: &'a Ctx<'m, 'p>, env: &Env<'m>, x: Sym, seqs: &[&'m [Ins]]) -> Self {
        let mut b = Bounds {
            cx,
            site: site(seqs),
            shared: cx.cache().map(|c| &c.bounds),
            local: Memo::default(),
            root: RefCell::new(Lb::Nothing),
            lazies: Vec::new(),
            checks: Vec::new(),
            nodes: RefCell::default(),
            touched: Cell::new(false),
            depth: Cell::new(0),
        };
        if b.memo().idle.borrow().contains(&b.site) {
            return b;
        }
        let mut abs = Abs {
            list: None,
            real: env.clone(),
            len: Some(0),
        };
        abs.push(x, Slot::Root);
        for s in seqs {
            if !b.scan(&mut abs, s) {
                break;
            }
        }
        // The checks that drop orders most often first; those that rarely do are skipped.
        let mut checks = std::mem::take(&mut b.checks);
        {
            let stats = &b.memo().stats;
            let key = |t: &Test| (b.site, t as *const Test as usize);
            checks.retain(|(t, _)| stats.worth(key(t), TRIAL, WORTH));
            checks.sort_by_key(|(t, _)| std::cmp::Reverse(stats.get(key(t)).1));
        }
        if checks.is_empty() {
            b.memo().idle.borrow_mut().insert(b.site);
        }
        b.checks = checks;
        b
    }

    fn memo(&self) -> &Memo {
        self.shared.unwrap_or(&self.local)
    }
}

impl super::Below for Bounds<'_, '_, '_> {
    fn has_checks(&self) -> bool {
        !self.checks.is_empty()
    }

    fn worth_at(&self, left: usize) -> bool {
        prefix_pays(&self.memo().levels, self.site, left)
    }

    /// Counts one test of a prefix with `left` elements still to place.
    fn tried_at(&self, left: usize, dropped: bool) {
        self.memo().levels.count((self.site, left), dropped);
    }

    /// The first check whose lower bound fails when `co` contains `p`.
    fn failing(&self, p: &Rc<Rel>) -> Option<Failure> {
        *self.root.borrow_mut() = Lb::Rel(p.clone());
        for l in &self.lazies {
            let mut c = l.cell.borrow_mut();
            if c.as_ref().is_some_and(|(_, varies)| *varies) {
                *c = None;
            }
        }
        self.checks.iter().find_map(|(t, abs)| {
            let fail = self.fails(t, abs);
            let key = (self.site, *t as *const Test as usize);
            self.memo().stats.count(key, fail.is_some());
            fail
        })
    }
}

impl<'a, 'm, 'p> Bounds<'a, 'm, 'p> {
    fn fails(&self, t: &'m Test, abs: &Abs<'m>) -> Option<Failure> {
        let cycle = match (t.kind, self.lb(&t.expr, abs)) {
            (TestKind::Empty, Lb::Rel(r) | Lb::Under(r)) if !r.is_empty() => None,
            (TestKind::Empty, Lb::Set(s)) if !s.is_empty() => None,
            (TestKind::Irreflexive, Lb::Rel(r) | Lb::Under(r)) => {
                let i = (0..r.universe()).find(|&i| r.contains(i, i))?;
                Some(vec![i])
            }
            (TestKind::Acyclic, Lb::Rel(r) | Lb::Under(r)) => Some(r.find_cycle()?),
            _ => return None,
        };
        let kind = match t.kind {
            TestKind::Acyclic => CheckKind::Acyclic,
            TestKind::Irreflexive => CheckKind::Irreflexive,
            TestKind::Empty => CheckKind::Empty,
        };
        Some(Failure {
            kind,
            negated: false,
            name: t.name.clone().unwrap_or_else(|| t.text.clone()),
            cycle,
        })
    }

    // ---------- reading the instructions ----------

    /// Binds what `body` binds and collects its checks; false where the analysis stops
    /// following the model (the checks found so far still hold).
    fn scan(&mut self, abs: &mut Abs<'m>, body: &'m [Ins]) -> bool {
        let cx = self.cx;
        for i in body {
            match i {
                Ins::Let(_, bds) => {
                    let outer = abs.clone();
                    for b in bds {
                        if !self.bind(&outer, abs, b) {
                            return false;
                        }
                    }
                }
                Ins::Rec(pos, bds, test) => {
                    let own: Vec<Sym> = bds.iter().flat_map(|b| b.pat.vars()).flatten().collect();
                    let exact = bds.iter().all(|b| self.is_exact_but(&b.expr, abs, &own))
                        && test
                            .as_ref()
                            .is_none_or(|t| self.is_exact_but(&t.expr, abs, &own));
                    if exact {
                        match cx.env_rec(&abs.real, *pos, bds, test.as_ref()) {
                            Ok(Some(real)) => abs.real = real,
                            _ => return false,
                        }
                    }
                    for y in own {
                        let slot = if exact {
                            Slot::Exact
                        } else {
                            Slot::Known(Lb::Nothing)
                        };
                        abs.push(y, slot);
                    }
                }
                Ins::Enum(_, y, _) => {
                    abs.real = abs.real.bind(*y, cx.m.enum_value(*y));
                    abs.push(*y, Slot::Exact);
                }
                Ins::Procedure(_, y, ..) | Ins::WithFrom(_, y, _) => {
                    abs.push(*y, Slot::Known(Lb::Nothing));
                }
                Ins::Test(t, TestType::Check) if !t.negated && !self.is_exact(&t.expr, abs) => {
                    self.checks.push((t, abs.clone()));
                }
                Ins::Include { file: Some(f), .. } => {
                    if !self.scan(abs, &cx.m.files[*f].prog.body) {
                        return false;
                    }
                }
                Ins::IfVariant(_, c, yes, no) => {
                    let b = if cx.variant(c) { yes } else { no };
                    if !self.scan(abs, b) {
                        return false;
                    }
                }
                // Bindings made in these do not outlive them.
                Ins::Forall(..) | Ins::Call(..) => {}
                Ins::Test(..) | Ins::Show(_) | Ins::Events(_) | Ins::Debug(..) => {}
                Ins::Match(..) | Ins::Include { file: None, .. } => return false,
            }
        }
        true
    }

    /// Adds one `let` binding (its right-hand side seen from `outer`) to `abs`.
    fn bind(&mut self, outer: &Abs<'m>, abs: &mut Abs<'m>, b: &'m Binding) -> bool {
        let exact = self.is_exact(&b.expr, outer);
        if exact {
            match self
                .cx
                .bind_all(&outer.real, &abs.real, std::slice::from_ref(b))
            {
                Ok(real) => abs.real = real,
                Err(_) => return false,
            }
        }
        match &b.pat {
            Pat::Var(None) => {}
            Pat::Var(Some(y)) if !exact => {
                let l = Rc::new(Lazy {
                    expr: &b.expr,
                    env: outer.clone(),
                    cell: RefCell::new(None),
                });
                self.lazies.push(l.clone());
                abs.push(*y, Slot::Lazy(l));
            }
            pat => {
                for y in pat.vars().into_iter().flatten() {
                    let slot = if exact {
                        Slot::Exact
                    } else {
                        Slot::Known(Lb::Nothing)
                    };
                    abs.push(y, slot);
                }
            }
        }
        true
    }

    // ---------- exactness ----------

    fn is_exact(&self, e: &'m Expr, abs: &Abs<'m>) -> bool {
        self.is_exact_but(e, abs, &[])
    }

    /// Whether `e` has the same value in every branch: no name in it (free or not, to stay
    /// simple) is bound after the `with` to something depending on `co`; `own` are exact.
    fn is_exact_but(&self, e: &'m Expr, abs: &Abs<'m>, own: &[Sym]) -> bool {
        let key = abs
            .len
            .filter(|_| own.is_empty())
            .map(|l| (self.site, e as *const Expr as usize, l));
        if let Some(k) = key
            && let Some(&b) = self.memo().exact.borrow().get(&k)
        {
            return b;
        }
        let mut ok = true;
        vars(e, &mut |y| {
            if ok && !own.contains(&y) {
                ok = matches!(abs.find(y), None | Some(Slot::Exact));
            }
        });
        if let Some(k) = key {
            self.memo().exact.borrow_mut().insert(k, ok);
        }
        ok
    }

    // ---------- lower bounds ----------

    fn lookup(&self, abs: &Abs<'m>, y: Sym) -> Lb<'m> {
        match abs.find(y) {
            None | Some(Slot::Exact) => self.exact_val(|| {
                self.cx
                    .lookup(&abs.real, y, crate::cat::ast::Pos::default())
            }),
            Some(Slot::Root) => {
                self.touched.set(true);
                self.root.borrow().clone()
            }
            Some(Slot::Known(v)) => v.clone(),
            Some(Slot::Lazy(l)) => {
                if let Some((v, varies)) = &*l.cell.borrow() {
                    self.touched.set(self.touched.get() || *varies);
                    return v.clone();
                }
                let saved = self.touched.replace(false);
                let v = self.lb(l.expr, &l.env);
                let varies = self.touched.get();
                *l.cell.borrow_mut() = Some((v.clone(), varies));
                self.touched.set(saved || varies);
                v
            }
        }
    }

    fn exact_val(&self, f: impl FnOnce() -> crate::cat::eval::R<Value<'m>>) -> Lb<'m> {
        match f() {
            Ok(Value::Empty) => Lb::Empty,
            Err(_) => Lb::Nothing,
            Ok(Value::Rel(r)) => Lb::Rel(r),
            Ok(Value::Set(s)) => Lb::Set(s),
            Ok(Value::Pair(a, b)) => Lb::Rel(Rc::new(crate::cat::value::pair_rel(self.cx.n, a, b))),
            Ok(Value::Event(e)) => Lb::Set(Rc::new(Set::from_iter(self.cx.n, [e]))),
            Ok(v) => Lb::Val(v),
        }
    }

    /// A lower bound of the value of `e` in every branch where `co` contains the order.
    /// Bounds not depending on the order are remembered for the next ones.
    fn lb(&self, e: &'m Expr, abs: &Abs<'m>) -> Lb<'m> {
        let key = abs.len.map(|l| (e as *const Expr as usize, l));
        let seen = key.and_then(|k| self.nodes.borrow().get(&k).cloned());
        match seen {
            Some(Some(v)) => return v,
            Some(None) => return self.compute(e, abs),
            None => {}
        }
        let exact = match e {
            Expr::Var(_, y) => matches!(abs.find(*y), None | Some(Slot::Exact)),
            _ => self.is_exact(e, abs),
        };
        let saved = self.touched.replace(false);
        let v = if exact {
            self.exact_val(|| self.cx.eval(&abs.real, e))
        } else {
            self.compute(e, abs)
        };
        let varies = self.touched.get();
        self.touched.set(saved || varies);
        if let Some(k) = key {
            self.nodes
                .borrow_mut()
                .insert(k, (!varies).then(|| v.clone()));
        }
        v
    }

    fn compute(&self, e: &'m Expr, abs: &Abs<'m>) -> Lb<'m> {
        match e {
            Expr::Var(_, y) => self.lookup(abs, *y),
            Expr::Op1(_, op, a) => self.op1(*op, self.lb(a, abs)),
            Expr::Op(_, Op2::Union, es) => self.union(es, abs),
            Expr::Op(_, Op2::Inter, es) => inter(self.lb(&es[0], abs), self.lb(&es[1], abs)),
            Expr::Op(_, Op2::Diff, es) => {
                if !self.is_exact(&es[1], abs) {
                    return Lb::Nothing;
                }
                match (self.lb(&es[0], abs), self.lb(&es[1], abs)) {
                    (a, Lb::Empty) => a,
                    (_, Lb::Val(Value::Unv)) => Lb::Nothing,
                    (Lb::Rel(a), Lb::Rel(b)) => Lb::Rel(Rc::new(a.diff(&b))),
                    (Lb::Under(a), Lb::Rel(b)) => Lb::Under(Rc::new(a.diff(&b))),
                    (Lb::Set(a), Lb::Set(b)) => Lb::Set(Rc::new(a.diff(&b))),
                    _ => Lb::Nothing,
                }
            }
            Expr::Op(_, Op2::Seq, es) => self.seq(es, abs),
            Expr::Op(_, Op2::Cartesian, es) => {
                let set = |v: Lb<'m>| match v {
                    Lb::Set(s) => Some(s),
                    Lb::Val(Value::Unv) => Some(self.cx.full()),
                    _ => None,
                };
                match (set(self.lb(&es[0], abs)), set(self.lb(&es[1], abs))) {
                    (Some(a), Some(b)) => Lb::Rel(Rc::new(Rel::cartesian(&a, &b))),
                    _ => Lb::Nothing,
                }
            }
            Expr::App(_, f, a) => {
                let f = self.lb(f, abs);
                let a = self.lb(a, abs);
                self.apply(f, a)
            }
            Expr::Bind(_, bds, body) => {
                let mut inner = Abs {
                    len: None,
                    ..abs.clone()
                };
                for b in bds {
                    if !self.bind_local(abs, &mut inner, b) {
                        return Lb::Nothing;
                    }
                }
                self.lb(body, &inner)
            }
            Expr::Fun(f) => Lb::Fun(f, abs.clone()),
            _ => Lb::Nothing,
        }
    }

    /// A `let ... in` binding met while computing a bound: fresh for each order.
    fn bind_local(&self, outer: &Abs<'m>, abs: &mut Abs<'m>, b: &'m Binding) -> bool {
        if self.is_exact(&b.expr, outer) {
            match self
                .cx
                .bind_all(&outer.real, &abs.real, std::slice::from_ref(b))
            {
                Ok(real) => abs.real = real,
                Err(_) => return false,
            }
            for y in b.pat.vars().into_iter().flatten() {
                abs.push(y, Slot::Exact);
            }
        } else {
            let v = match b.pat {
                Pat::Var(_) => self.lb(&b.expr, outer),
                Pat::Tuple(_) => Lb::Nothing,
            };
            for y in b.pat.vars().into_iter().flatten() {
                abs.push(y, Slot::Known(v.clone()));
            }
        }
        true
    }

    fn op1(&self, op: Op1, v: Lb<'m>) -> Lb<'m> {
        let id = || Lb::Rel(self.cx.ident());
        if let Lb::Under(r) = v {
            // `_` stays `_`.
            return match self.op1(op, Lb::Rel(r)) {
                Lb::Rel(r) if op != Op1::ToId => Lb::Under(r),
                _ => Lb::Nothing,
            };
        }
        match (op, v) {
            (Op1::Star | Op1::Opt, Lb::Nothing | Lb::Empty) => id(),
            // No pair known: none known of its closure or inverse either.
            (Op1::Plus | Op1::Inv, Lb::Empty) => Lb::Empty,
            (Op1::Plus, Lb::Rel(r)) => Lb::Rel(Rc::new(r.transitive_closure())),
            (Op1::Star, Lb::Rel(r)) => Lb::Rel(Rc::new(r.reflexive_transitive_closure())),
            (Op1::Opt, Lb::Rel(r)) => Lb::Rel(Rc::new(r.union(&self.cx.ident()))),
            (Op1::Inv, Lb::Rel(r)) => Lb::Rel(Rc::new(r.inverse())),
            (Op1::ToId, Lb::Set(s)) => Lb::Rel(Rc::new(Rel::identity(&s))),
            (Op1::Plus | Op1::Star | Op1::Opt | Op1::Inv, u @ Lb::Val(Value::Unv)) => u,
            (Op1::ToId, Lb::Val(Value::Unv)) => id(),
            _ => Lb::Nothing,
        }
    }

    fn union(&self, es: &'m [Expr], abs: &Abs<'m>) -> Lb<'m> {
        let mut acc = Lb::Nothing;
        // A part known to be a relation but `_`: the union is `_` then.
        let mut maybe_unv = false;
        for a in es {
            let v = match self.lb(a, abs) {
                Lb::Under(r) => {
                    maybe_unv = true;
                    Lb::Rel(r)
                }
                Lb::Nothing => {
                    maybe_unv = true;
                    Lb::Nothing
                }
                v => v,
            };
            acc = match (acc, v) {
                (_, u @ Lb::Val(Value::Unv)) => return u,
                (acc, Lb::Nothing | Lb::Empty) => acc,
                (Lb::Nothing, v @ (Lb::Rel(_) | Lb::Set(_))) => v,
                (Lb::Rel(r), Lb::Rel(s)) => {
                    let mut r = Rc::unwrap_or_clone(r);
                    r.union_with(&s);
                    Lb::Rel(Rc::new(r))
                }
                (Lb::Set(r), Lb::Set(s)) => {
                    let mut r = Rc::unwrap_or_clone(r);
                    r.union_with(&s);
                    Lb::Set(Rc::new(r))
                }
                _ => return Lb::Nothing,
            };
        }
        match acc {
            Lb::Rel(r) if maybe_unv => Lb::Under(r),
            // Every part had the empty bound of a value that is not `_`.
            Lb::Nothing if !maybe_unv => Lb::Empty,
            acc => acc,
        }
    }

    /// Never `_`: the evaluator gives a relation or `{}` for any sequence.
    fn seq(&self, es: &'m [Expr], abs: &Abs<'m>) -> Lb<'m> {
        // An empty exact factor makes the rest irrelevant.
        for a in es {
            let a = match a {
                Expr::Op1(_, Op1::ToId, s) => s,
                a => a,
            };
            if self.is_exact(a, abs) {
                match self.lb(a, abs) {
                    Lb::Empty => return Lb::Empty,
                    Lb::Rel(r) if r.is_empty() => return Lb::Empty,
                    Lb::Set(s) if s.is_empty() => return Lb::Empty,
                    _ => {}
                }
            }
        }
        let mut acc: Option<Rel> = None;
        for a in es {
            // As the evaluator does: `_` is skipped, `[S]` restricts.
            let item = match a {
                Expr::Op1(_, Op1::ToId, s) => match self.lb(s, abs) {
                    Lb::Val(Value::Unv) => continue,
                    Lb::Set(s) => Err(s),
                    _ => return Lb::Empty,
                },
                _ => match self.lb(a, abs) {
                    Lb::Val(Value::Unv) => continue,
                    Lb::Rel(r) => Ok(r),
                    _ => return Lb::Empty,
                },
            };
            acc = Some(match (acc, item) {
                (None, Ok(r)) => Rc::unwrap_or_clone(r),
                (None, Err(s)) => Rel::identity(&s),
                (Some(r), Ok(t)) => r.compose(&t),
                (Some(r), Err(s)) => r.restrict_range(&s),
            });
            if acc.as_ref().is_some_and(Rel::is_empty) {
                return Lb::Empty;
            }
        }
        acc.map_or(Lb::Empty, |r| Lb::Rel(Rc::new(r)))
    }

    fn apply(&self, f: Lb<'m>, a: Lb<'m>) -> Lb<'m> {
        let (def, env) = match f {
            Lb::Val(Value::Prim(b @ (Builtin::Domain | Builtin::Range))) => {
                return match a {
                    Lb::Rel(r) if b == Builtin::Domain => Lb::Set(Rc::new(r.domain())),
                    Lb::Rel(r) => Lb::Set(Rc::new(r.range())),
                    _ => Lb::Nothing,
                };
            }
            Lb::Val(Value::Clo(c)) if self.cx.m.native(c.def).is_none() => {
                let pos = c.def.pos;
                let Ok(real) = self.cx.call_env(pos, &c, Value::Empty) else {
                    return Lb::Nothing;
                };
                let env = Abs {
                    list: None,
                    real,
                    len: None,
                };
                (c.def, env)
            }
            Lb::Fun(def, env) => (def, env),
            _ => return Lb::Nothing,
        };
        let Pat::Var(p) = def.pat else {
            return Lb::Nothing;
        };
        let d = self.depth.get();
        if d >= MAX_DEPTH {
            return Lb::Nothing;
        }
        let mut env = Abs { len: None, ..env };
        if let Some(p) = p {
            env.push(p, Slot::Known(a));
        }
        self.depth.set(d + 1);
        let v = self.lb(&def.body, &env);
        self.depth.set(d);
        v
    }
}

/// A `with` site: what remains to run after it.
fn site(seqs: &[&[Ins]]) -> usize {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    for s in seqs {
        (s.as_ptr() as usize, s.len()).hash(&mut h);
    }
    h.finish() as usize
}

fn inter<'m>(a: Lb<'m>, b: Lb<'m>) -> Lb<'m> {
    match (a, b) {
        (Lb::Under(x), Lb::Rel(y) | Lb::Under(y)) | (Lb::Rel(x), Lb::Under(y)) => {
            Lb::Under(Rc::new(x.inter(&y)))
        }
        (Lb::Val(Value::Unv), v) | (v, Lb::Val(Value::Unv)) => v,
        (Lb::Rel(x), Lb::Rel(y)) => Lb::Rel(Rc::new(x.inter(&y))),
        (Lb::Set(x), Lb::Set(y)) => Lb::Set(Rc::new(x.inter(&y))),
        _ => Lb::Nothing,
    }
}

/// Calls `f` on every name occurring in `e`.
fn vars(e: &Expr, f: &mut impl FnMut(Sym)) {
    if let Expr::Var(_, y) = e {
        f(*y);
    }
    e.for_each_child(&mut |c| vars(c, f));
}
