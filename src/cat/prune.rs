//! Pruning coherence orders before the model sees them.
//!
//! Most per-location orders picked by `with co from ...` break SC-per-location, which the
//! model then checks with `acyclic po-loc | rf | co | fr`. When the rest of the model
//! unconditionally runs such a check, an order `p` for one location can be dropped as soon as
//! `po-loc | rf | p | (rf^-1; p) \ id` has a cycle: every `co` containing `p` makes the check's
//! relation cyclic too (all operators involved are monotone), so every branch with `p` fails.
//! The guard check is found by reading the model, not by trusting names alone: each name
//! bound after the `with` gets the set of relations its value is known to contain.
//! A plan's lower bounds (`plan::replay`) then drop the orders that fail any other check.

use super::ast::{Expr, Ins, Op1, Op2, Pat, Sym, Test, TestKind, TestType};
use super::tally::Tally;
use super::{CheckKind, Failure};
use crate::budget::{Budget, Exhausted};
use crate::rel::{Rel, Set};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// The SC-per-location guard found after a `with`, ready to test orders.
pub struct Coherence<'m> {
    test: &'m Test,
    /// `po-loc | rf`
    base: Rel,
    rf_inv: Rel,
}

impl<'m> Coherence<'m> {
    pub fn new(test: &'m Test, rf: &Rel, po_loc: &Rel) -> Self {
        Coherence {
            test,
            base: po_loc.union(rf),
            rf_inv: rf.inverse(),
        }
    }

    /// A cycle of `po-loc | rf | co | fr` in every `co` containing `p`.
    pub fn cycle(&self, p: &Rel) -> Option<Vec<usize>> {
        let mut g = self.base.union(p);
        let mut fr = self.rf_inv.compose(p);
        for i in 0..p.universe() {
            fr.remove(i, i);
        }
        g.union_with(&fr);
        g.find_cycle()
    }

    fn failure(&self, cycle: Vec<usize>) -> Failure {
        let t = self.test;
        Failure {
            kind: CheckKind::Acyclic,
            negated: false,
            name: t.name.clone().unwrap_or_else(|| t.text.clone()),
            cycle: Some(cycle),
            pair: None,
        }
    }
}

/// Whether testing prefixes of orders at `site` with `left` elements still to place pays
/// (tries and drops in `levels`): only while at least one in `left!` of them is dropped
/// (after `trial` tries, `Tuning::prefix_trial`), as below lie at most `left!` orders,
/// each judged in about the time a test takes.
pub fn prefix_pays(levels: &Tally, site: usize, left: usize, trial: u32) -> bool {
    let orders: u32 = (1..=left.min(12) as u32).product();
    trial == 0 || levels.worth((site, left), trial, orders)
}

/// Makes one of the [`Pruner`]'s tests, the first time it is needed.
pub type Make<'a, T> = Box<dyn FnOnce() -> Option<T> + 'a>;

/// Lower bounds of the checks after a `with`, to test prefixes of orders with: a plan's
/// (`plan::replay`).
pub trait Below {
    /// Whether there is any check to try.
    fn has_checks(&self) -> bool;
    /// Whether testing prefixes with `left` elements still to place pays.
    fn worth_at(&self, left: usize) -> bool;
    /// Counts one test of a prefix with `left` elements still to place.
    fn tried_at(&self, left: usize, dropped: bool);
    /// A check whose lower bound fails when `co` contains `p`.
    fn failing(&self, p: &Rc<Rel>) -> Option<Failure>;
}

/// The tests an order for one location must pass to be worth a branch: the guard first,
/// then the lower bounds of the other checks. Each is prepared only when some location has
/// a choice of orders: with one branch, the model's own checks do the work.
pub struct Pruner<'a, 'm> {
    coherence: Lazy<'a, Coherence<'m>>,
    bounds: Lazy<'a, Box<dyn Below + 'a>>,
    /// The first failure of the guard, and of the bounds.
    first: (Option<Failure>, Option<Failure>),
}

enum Lazy<'a, T> {
    Later(Make<'a, T>),
    Now(Option<T>),
}

impl<T> Lazy<'_, T> {
    fn get(&mut self) -> Option<&T> {
        if let Lazy::Later(_) = self
            && let Lazy::Later(make) = std::mem::replace(self, Lazy::Now(None))
        {
            *self = Lazy::Now(make());
        }
        match self {
            Lazy::Now(t) => t.as_ref(),
            Lazy::Later(_) => None,
        }
    }
}

impl<'a, 'm> Pruner<'a, 'm> {
    pub fn new(coherence: Make<'a, Coherence<'m>>, bounds: Make<'a, Box<dyn Below + 'a>>) -> Self {
        Pruner {
            coherence: Lazy::Later(coherence),
            bounds: Lazy::Later(Box::new(|| bounds().filter(|b| b.has_checks()))),
            first: (None, None),
        }
    }

    /// Whether some branch whose `co` contains `p` may pass every check; `left` elements
    /// are still to be placed below `p` (see [`Rel::linearisations_pruned`]).
    pub fn keeps(&mut self, p: &Rel, left: usize) -> bool {
        if let Some(c) = self.coherence.get()
            && let Some(cycle) = c.cycle(p)
        {
            self.first.0.get_or_insert_with(|| c.failure(cycle));
            return false;
        }
        if let Some(b) = self.bounds.get()
            && b.worth_at(left)
        {
            let failure = b.failing(&Rc::new(p.clone()));
            b.tried_at(left, failure.is_some());
            if let Some(f) = failure {
                self.first.1.get_or_insert(f);
                return false;
            }
        }
        true
    }

    /// Drops from each factor the orders that cannot pass (unless there is only one branch).
    pub fn prune(&mut self, fs: &mut [Vec<Rc<Rel>>]) {
        if fs.iter().all(|f| f.len() <= 1) {
            return;
        }
        for f in fs.iter_mut() {
            f.retain(|p| self.keeps(p, 1));
        }
    }

    /// The factors of [`super::native::Choices::Orders`]: for each class, the linearisations
    /// extending `base` that may pass, cut while they are built. A class with a single
    /// order is not tested (see [`Pruner::prune`]; and its order may well be tested with
    /// the other factors). Stops at the first class left with no order, as then there is
    /// no branch at all.
    ///
    /// A full order is tested only when another class has a choice too: its failure then
    /// spares the branches of every order of the others; alone, each order it passes is
    /// judged in full by the model right after, which finds the same failure.
    /// Building stops once `budget` runs out (the orders of one location alone may be
    /// more than the memory holds), and does not start when there would be more than
    /// `max` orders in all (0: no limit), counted first.
    pub fn build(
        &mut self,
        classes: &[Set],
        base: &Rel,
        budget: &Budget,
        max: u64,
    ) -> Result<Vec<Vec<Rc<Rel>>>, Exhausted> {
        let mut fs = Vec::with_capacity(classes.len());
        let bases: Vec<(Rel, bool)> = classes
            .iter()
            .map(|s| {
                let b = super::builtins::lin_base(base, s);
                let total = is_total(&b, s);
                (b, total)
            })
            .collect();
        if max > 0 {
            let all = classes
                .iter()
                .zip(&bases)
                .try_fold(1u64, |all, (s, (b, _))| {
                    let n = all.saturating_mul(b.count_linearisations(s, max));
                    (n <= max).then_some(n)
                });
            if all.is_none() {
                return Err(Exhausted::Size(format!(
                    "more than {max} coherence orders at one `with`"
                )));
            }
        }
        let choices = bases.iter().filter(|(_, total)| !total).count();
        for (s, (base, total)) in classes.iter().zip(bases) {
            let orders = if total {
                base.linearisations(s)
            } else {
                let mut out = Ok(());
                let orders = base.linearisations_pruned(s, choices > 1, |p, left| {
                    if out.is_ok() {
                        out = budget.check();
                    }
                    out.is_ok() && self.keeps(p, left)
                });
                out?;
                orders
            };
            let none = orders.is_empty();
            fs.push(orders.into_iter().map(Rc::new).collect());
            if none {
                break;
            }
        }
        Ok(fs)
    }

    /// The failure to report for the orders dropped, if any: the guard's first.
    pub fn failure(self) -> Option<Failure> {
        self.first.0.or(self.first.1)
    }
}

/// Whether `r` orders `s` totally (then `s` has one linearisation, or none if `r` is cyclic).
fn is_total(r: &Rel, s: &Set) -> bool {
    let m = s.len();
    m <= 1 || r.transitive_closure().len() >= m * (m - 1) / 2
}

/// What a value is known to contain (as of the `with`).
const PO_LOC: u8 = 1;
const RF: u8 = 2;
const CO: u8 = 4;
/// `(rf^-1; co) \ id`
const FR: u8 = 8;
pub const ALL: u8 = PO_LOC | RF | CO | FR;
/// `rf^-1` (followed only with [`Roots::named_inverse`]).
const RF_INV: u8 = 16;

/// The names the analysis starts from.
pub struct Roots {
    /// The `with` variable (none when reading a whole model, see [`rejects_po_rf_cycles`]).
    pub co: Option<Sym>,
    pub rf: Sym,
    /// `po-loc` at a `with` (none when reading a whole model: the library binds it).
    pub po_loc: Option<Sym>,
    /// `id`, when the model never rebinds it.
    pub id: Option<Sym>,
    /// The primitives `po` and `loc`, whose intersection is `po-loc`, when reading a whole
    /// model (the standard library defines `po-loc` that way).
    pub po_and_loc: Option<(Sym, Sym)>,
    /// Sets that hold every access of the candidates at hand (the primitives `M`, `Exp`
    /// when no access is implicit): `[S]; r; [S]` then contains what `r` contains.
    pub accesses: Vec<Sym>,
    /// Follow `rf^-1` through the names it is bound to (`let rf-inv = rf^-1`; the LKMM's
    /// `fr` is `rf-inv; co`).
    pub named_inverse: bool,
}

/// Reading a model for a guard check: the instructions after a `with`, or the whole model.
pub struct Scan<'m> {
    m: &'m super::Model,
    roots: Roots,
    /// Names rebound since the `with`, with what their value contains.
    cov: FxHashMap<Sym, u8>,
    /// What a check's relation must contain to be the guard.
    need: u8,
}

/// Whether every candidate whose `rf` has a read take its value from a write that follows
/// it in program order (same location) fails a check of `m`: the model runs, whatever the
/// branch, an `acyclic` check whose relation contains the primitives `rf` and `po & loc`
/// (SC per location; herd's `uniproc`). Then the enumerator need not offer such `rf` edges,
/// as herd's `-optace` does — but read from the model, never assumed.
pub fn rejects_po_rf_cycles(m: &super::Model) -> bool {
    let names = &m.names;
    let (Some(rf), Some(po), Some(loc)) = (names.get("rf"), names.get("po"), names.get("loc"))
    else {
        return false;
    };
    let id = names.get("id").filter(|&s| !m.binds(s));
    let mut scan = Scan::new(
        m,
        Roots {
            co: None,
            rf,
            po_loc: None,
            id,
            po_and_loc: Some((po, loc)),
            accesses: Vec::new(),
            named_inverse: false,
        },
        PO_LOC | RF,
    );
    for &f in &m.order {
        match scan.scan(&m.files[f].prog.body) {
            Found::Guard(_) => return true,
            Found::GiveUp => return false,
            Found::More => {}
        }
    }
    false
}

/// How reading one sequence of instructions ended.
pub enum Found<'m> {
    /// A check that every branch runs and whose relation contains the four.
    Guard(&'m Test),
    /// Something the analysis does not follow: no pruning.
    GiveUp,
    /// End of the sequence, keep reading what follows.
    More,
}

impl<'m> Scan<'m> {
    /// `need`: what a check's relation must contain ([`ALL`] at a `with`).
    pub fn new(m: &'m super::Model, roots: Roots, need: u8) -> Self {
        Scan {
            m,
            roots,
            cov: FxHashMap::default(),
            need,
        }
    }

    fn mask(&self, e: &Expr) -> u8 {
        let r = &self.roots;
        match e {
            Expr::Var(_, y) => match self.cov.get(y) {
                Some(&m) => m,
                None if Some(*y) == r.co => CO,
                None if *y == r.rf => RF,
                None if Some(*y) == r.po_loc => PO_LOC,
                None => 0,
            },
            Expr::Op(_, Op2::Union, es) => es.iter().fold(0, |m, a| m | self.mask(a)),
            Expr::Op(_, Op2::Inter, es) => match (&es[..], r.po_and_loc) {
                ([Expr::Var(_, a), Expr::Var(_, b)], Some((po, loc)))
                    if !self.cov.contains_key(a)
                        && !self.cov.contains_key(b)
                        && ((*a, *b) == (po, loc) || (*a, *b) == (loc, po)) =>
                {
                    PO_LOC
                }
                _ => 0,
            },
            Expr::Op1(_, Op1::Plus | Op1::Star | Op1::Opt, a) => self.mask(a),
            // All four are irreflexive: removing `id` keeps them.
            Expr::Op(_, Op2::Diff, es) => match &es[1] {
                Expr::Var(_, y) if Some(*y) == r.id && !self.cov.contains_key(y) => {
                    self.mask(&es[0])
                }
                _ => 0,
            },
            Expr::Op(_, Op2::Seq, es) => match &es[..] {
                [Expr::Op1(_, Op1::Inv, a), b]
                    if self.mask(a) & RF != 0 && self.mask(b) & CO != 0 =>
                {
                    FR
                }
                [a, b]
                    if r.named_inverse && self.mask(a) & RF_INV != 0 && self.mask(b) & CO != 0 =>
                {
                    FR
                }
                // `[S]; r; [S]` with every access in `S`.
                [Expr::Op1(_, Op1::ToId, s1), x, Expr::Op1(_, Op1::ToId, s2)]
                    if self.covers(s1) && self.covers(s2) =>
                {
                    self.mask(x)
                }
                _ => 0,
            },
            Expr::Op1(_, Op1::Inv, a) if r.named_inverse && self.mask(a) & RF != 0 => RF_INV,
            _ => 0,
        }
    }

    /// Whether the set `e` holds every access (see [`Roots::accesses`]).
    fn covers(&self, e: &Expr) -> bool {
        match e {
            Expr::Var(_, y) => {
                self.roots.accesses.contains(y) && !self.cov.contains_key(y) && !self.m.binds(*y)
            }
            Expr::Op(_, Op2::Inter, es) => es.iter().all(|a| self.covers(a)),
            Expr::Op(_, Op2::Union, es) => es.iter().any(|a| self.covers(a)),
            _ => false,
        }
    }

    fn rebind(&mut self, p: &Pat, m: u8) {
        for y in p.vars().into_iter().flatten() {
            self.cov.insert(y, m);
        }
    }

    /// Reads `body` for the guard check.
    pub fn scan(&mut self, body: &'m [Ins]) -> Found<'m> {
        for i in body {
            match i {
                Ins::Let(_, bds) => {
                    let ms: Vec<u8> = bds
                        .iter()
                        .map(|b| match b.pat {
                            Pat::Var(_) => self.mask(&b.expr),
                            Pat::Tuple(_) => 0,
                        })
                        .collect();
                    for (b, m) in bds.iter().zip(ms) {
                        self.rebind(&b.pat, m);
                    }
                }
                Ins::Rec(_, bds, _) => bds.iter().for_each(|b| self.rebind(&b.pat, 0)),
                Ins::Procedure(_, y, ..) | Ins::Enum(_, y, _) | Ins::WithFrom(_, y, _) => {
                    self.cov.insert(*y, 0);
                }
                Ins::Test(t, TestType::Check)
                    if t.kind == TestKind::Acyclic
                        && !t.negated
                        && self.mask(&t.expr) & self.need == self.need =>
                {
                    return Found::Guard(t);
                }
                Ins::Include { file: Some(f), .. } => {
                    match self.scan(&self.m.files[*f].prog.body) {
                        Found::More => {}
                        found => return found,
                    }
                }
                Ins::IfVariant(_, c, yes, no) => {
                    let b = if self.m.variant_holds(c) { yes } else { no };
                    match self.scan(b) {
                        Found::More => {}
                        found => return found,
                    }
                }
                // Bindings made in these do not outlive them.
                Ins::Forall(..) | Ins::Call(..) => {}
                Ins::Test(..) | Ins::Show(_) | Ins::Events(_) | Ins::Debug(..) => {}
                Ins::Match(..) | Ins::Include { file: None, .. } => return Found::GiveUp,
            }
        }
        Found::More
    }
}
