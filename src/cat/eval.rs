//! Expression evaluation: herd's operators over sets, relations and values.
//!
//! Names resolve through the environment, then the candidate's [`Primitives`], then the
//! built-in functions, then herd's implicitly declared (possibly empty) event sets.

use super::ast::*;
use super::builtins::Builtin;
use super::native::Native;
use super::value::*;
use super::{CatError, Fatal, MAX_CALL_DEPTH, Model, Primitives, RunCache};
use crate::budget::Budget;
use crate::rel::{Rel, Set};
use std::cell::{Cell, OnceCell, RefCell};
use std::cmp::Ordering;
use std::rc::Rc;

/// Errors are boxed: results then fit in two registers (a model's evaluation returns millions).
pub type R<T> = Result<T, Box<CatError>>;

/// Everything one run of the model needs besides the environment.
pub struct Ctx<'m, 'p> {
    pub m: &'m Model,
    pub p: &'p Primitives<'p>,
    pub n: usize,
    /// Values of names the model does not bind, found so far in this run (those that
    /// are the same in every candidate live in the run cache instead).
    globals: RefCell<Vec<(Sym, Value<'m>)>>,
    full: OnceCell<Rc<Set>>,
    ident: OnceCell<Rc<Rel>>,
    unv: OnceCell<Rc<Rel>>,
    cache: Option<&'p RunCache<'m>>,
    /// Where the values that are the same for every candidate of the runs' shapes are kept:
    /// the run cache's, also in runs that share nothing else with the candidates (see
    /// [`Ctx::from_below`]).
    vals: Option<&'p RunCache<'m>>,
    /// This candidate's values of the memo slots of the shared environments (see
    /// [`RunCache`]), by index, each with what it read (see [`Forced`]): a new `with` branch
    /// forgets only the values that read its variable or a later one
    /// ([`Ctx::memo_forget_from`]).
    memo: RefCell<Vec<Option<Forced<'m>>>>,
    /// What the value being computed has read so far (see [`Forced`]).
    reading: Cell<u32>,
    /// Whether what is being evaluated has read something that may differ between the
    /// candidates sharing the run cache: `rf`, `FW`, values, a `with` or `let rec`
    /// variable, or a value computed from them (see [`Ctx::force`]).
    touched: Cell<bool>,
    /// Set when the run bounds a subtree of candidates (see [`Upper`]).
    /// The last closures computed (`r+` or `r*`, by the identity of `r`): the LKMM takes
    /// `hb*` three times and `pb*` twice from the same `hb` and `pb`.
    closures: RefCell<Vec<KeptClosure>>,
    upper: Option<Upper<'m>>,
    /// The plan being built, while the model runs on symbolic values (see [`super::plan`]).
    pub(super) planning: super::plan::Building<'m>,
    /// What the run may spend (see [`Ctx::poll`]).
    pub(super) budget: Budget,
    /// Function calls under way (see [`MAX_CALL_DEPTH`]).
    depth: Cell<u32>,
}

/// A run that bounds a whole subtree of candidates at once (see [`super::Model::bound`]):
/// `rf` holds every edge of every candidate of the subtree, and each value is a superset of
/// its value in each of them. Operators are monotone but `A \ B` and `~A`: their operand
/// must then be *exact*, the same in every candidate ([`Ctx::is_exact`]), or the bound falls
/// back on a coarser one (`A`; the universe). Choices, matches, conditions and the tests a
/// bound cannot settle need exact operands, or the run gives up ([`Ctx::lost`]).
///
/// With `lower`, the dual (see [`super::Model::doomed`]): `rf` holds only the edges every
/// candidate of the subtree has, each value is a subset of its value in each of them, and
/// the fallbacks are the empty set and relation.
struct Upper<'m> {
    lower: bool,
    /// Something could not be bounded: the subtree must be judged candidate by candidate.
    lost: Cell<bool>,
    /// Inside the evaluation of an exact value: computed as usual.
    exact: Cell<u32>,
    /// Acyclicity checks that failed on the bound but relate events of one location only:
    /// left for [`super::Model::bound`] to settle location by location.
    deferred: RefCell<Vec<&'m Test>>,
    /// A run that only looks at one such check, on the events of one location: the check,
    /// the events, and whether every time it ran its relation was acyclic on them.
    probe: Option<(&'m Test, Set, Cell<bool>)>,
}

/// What varies across the values a bound stands for: the candidates of a subtree (see
/// [`Upper`]), or those of one combination of runs below a partial choice of `rf`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Within {
    Subtree,
    Combo,
}

impl Within {
    /// The primitives that vary (the `with` variables always do).
    fn prims(self) -> &'static [&'static str] {
        match self {
            Within::Subtree => super::stable::SUBTREE_VARYING,
            Within::Combo => super::stable::COMBO_VARYING,
        }
    }
}

/// A relation, a closure operator (`+` or `*`), and the result.
type KeptClosure = (Rc<Rel>, Op1, Rc<Rel>);

/// How many recent closures [`Ctx`] remembers.
const CLOSURES_KEPT: usize = 8;

/// Sets `table[i]`, growing the table as needed (memo tables grow as slots are handed out).
fn set_at<T: Clone>(table: &mut Vec<Option<T>>, i: u32, v: T) {
    let i = i as usize;
    if table.len() <= i {
        table.resize(i + 1, None);
    }
    table[i] = Some(v);
}

thread_local! {
    /// Closure identities, unique across runs since cached values outlive their run.
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
}

/// A sequence `r1 ; r2 ; ...` being folded: identity on a set, or a relation (still the
/// operand's own until something changes it, so `r` alone or `r; _` copies nothing).
enum SeqAcc {
    Neutral,
    Id(Rc<Set>),
    Shared(Rc<Rel>),
    Rel(Rel),
    /// Symbolic (see [`super::plan`]): the factors as nodes, identities of sets marked.
    Sym(Vec<(u32, bool)>),
}

impl<'m, 'p> Ctx<'m, 'p> {
    pub fn new(m: &'m Model, p: &'p Primitives<'p>, cache: Option<&'p RunCache<'m>>) -> Self {
        Ctx {
            m,
            p,
            n: p.n,
            globals: RefCell::new(Vec::new()),
            full: OnceCell::new(),
            ident: OnceCell::new(),
            unv: OnceCell::new(),
            cache,
            vals: cache,
            // As many slots as the candidates before handed out: one allocation.
            memo: RefCell::new(Vec::with_capacity(
                cache.map_or(0, |c| c.memos.get() as usize),
            )),
            reading: Cell::new(0),
            touched: Cell::new(false),
            closures: RefCell::new(Vec::new()),
            upper: None,
            planning: Default::default(),
            budget: Budget::unlimited(),
            depth: Cell::new(0),
        }
    }

    /// The same run, stopping once `budget` runs out.
    pub fn with_budget(mut self, budget: &Budget) -> Self {
        self.budget = budget.clone();
        self
    }

    /// Stops the run, with an error no `try` catches, once the budget is spent: called
    /// wherever work can grow (each branch of a `with`, each round of a fixpoint, each
    /// call).
    pub fn poll(&self, pos: Pos) -> R<()> {
        self.budget
            .check()
            .map_err(|x| self.fatal(pos, Fatal::Exhausted(x.clone()), x.to_string()))
    }

    /// An error that stops the run: no `try` catches it.
    pub fn fatal(&self, pos: Pos, f: Fatal, msg: impl Into<String>) -> Box<CatError> {
        let mut e = self.err(pos, msg);
        e.fatal = Some(f);
        e
    }

    /// The error for a call nested deeper than [`MAX_CALL_DEPTH`].
    pub fn too_deep(&self, pos: Pos) -> Box<CatError> {
        let msg = format!("calls nested deeper than {MAX_CALL_DEPTH} (unbounded recursion?)");
        self.fatal(pos, Fatal::TooDeep, msg)
    }

    /// A run bounding a subtree of candidates, whose `rf` in `p` is the union of theirs;
    /// with a `probe`, one that only looks at that check on those events.
    pub fn upper(m: &'m Model, p: &'p Primitives<'p>, probe: Option<(&'m Test, Set)>) -> Self {
        Ctx {
            upper: Some(Upper {
                lower: false,
                lost: Cell::new(false),
                exact: Cell::new(0),
                deferred: RefCell::new(Vec::new()),
                probe: probe.map(|(t, s)| (t, s, Cell::new(true))),
            }),
            ..Ctx::new(m, p, None)
        }
    }

    /// A run bounding from below the candidates of one combination of runs whose `rf` in
    /// `p` holds the edges they all have. `cache` holds only such runs: the values that are
    /// the same for every candidate of the runs' shapes (exact), the shared environments,
    /// and the values that read nothing varying (bounds from below, as everything there).
    pub fn from_below(
        m: &'m Model,
        p: &'p Primitives<'p>,
        cache: Option<&'p RunCache<'m>>,
    ) -> Self {
        let mut cx = Ctx::upper(m, p, None);
        if let Some(u) = cx.upper.as_mut() {
            u.lower = true;
        }
        cx.vals = cache;
        cx.cache = cache;
        cx
    }

    /// Leaves a failed check to be settled location by location.
    pub fn defer(&self, t: &'m Test) {
        if let Some(u) = &self.upper {
            let mut d = u.deferred.borrow_mut();
            if !d.iter().any(|x| std::ptr::eq(*x, t)) {
                d.push(t);
            }
        }
    }

    pub fn deferred(&self) -> Vec<&'m Test> {
        self.upper
            .as_ref()
            .map_or_else(Vec::new, |u| u.deferred.borrow().clone())
    }

    /// The check a probing run looks at, the events it looks at, and whether it held so far.
    pub fn probe(&self) -> Option<(&'m Test, &Set, &Cell<bool>)> {
        let (t, s, ok) = self.upper.as_ref()?.probe.as_ref()?;
        Some((*t, s, ok))
    }

    /// Bounding, outside an exact value.
    pub fn bounding(&self) -> bool {
        self.upper.as_ref().is_some_and(|u| u.exact.get() == 0)
    }

    /// Bounding from below, outside an exact value.
    pub fn lowering(&self) -> bool {
        self.bounding() && self.bounds_below()
    }

    /// A run bounding from below, inside an exact value or not.
    fn bounds_below(&self) -> bool {
        self.upper.as_ref().is_some_and(|u| u.lower)
    }

    /// What varies across the values this run's bounds stand for.
    fn within(&self) -> Within {
        match self.bounds_below() {
            true => Within::Combo,
            false => Within::Subtree,
        }
    }

    /// Condition `c` while a plan is built: given up unless the same in every run.
    #[inline(never)]
    fn branch_cond(&self, env: &Env<'m>, pos: Pos, c: &'m Cond) -> R<bool> {
        let (holds, exact) = match c {
            Cond::Eq(x, y) | Cond::In(x, y) | Cond::Subset(x, y) => {
                self.plan_exact(env, &[x, y], || self.cond(env, pos, c))
            }
            Cond::Variant(_) => (self.cond(env, pos, c), true),
        };
        if !exact {
            return Err(self.sym_lost(pos, "a condition"));
        }
        holds
    }

    /// What is exact in this run's bounds, by address (see [`Ctx::is_exact`]).
    fn exact_table(&self) -> &rustc_hash::FxHashSet<usize> {
        self.exact_table_for(self.within())
    }

    /// What is exact, by address, when `w` varies.
    fn exact_table_for(&self, w: Within) -> &rustc_hash::FxHashSet<usize> {
        let m = self.m;
        let cell = match w {
            Within::Subtree => &m.exact,
            Within::Combo => &m.exact_combo,
        };
        cell.get_or_init(|| super::stable::stable_parts(m, w.prims()).exact)
    }

    /// What a bound takes for an operator whose operand is not exact (see [`Upper`]):
    /// `fallback` in place of a set or relation `v`; anything else is given up.
    fn coarse(&self, v: Value<'m>, fallback: Value<'m>, pos: Pos, what: &str) -> R<Value<'m>> {
        match v {
            Value::Set(_) | Value::Rel(_) | Value::Empty | Value::Unv | Value::Sym(_) => {
                Ok(fallback)
            }
            _ => Err(self.give_up(pos, what)),
        }
    }

    /// Whether the bound was given up.
    pub fn lost(&self) -> bool {
        self.upper.as_ref().is_some_and(|u| u.lost.get())
    }

    /// Gives the bound up: the error stops the run, and the flag survives a `try`.
    pub fn give_up(&self, pos: Pos, what: &str) -> Box<CatError> {
        if let Some(u) = &self.upper {
            // Nothing is known of the candidates from here on, whatever their `rf`.
            if self.planning.active() && !u.lost.replace(true) {
                self.planning.step(super::plan::Step::GiveUp);
            }
            u.lost.set(true);
        }
        self.err(
            pos,
            format!("{what} of a value that the bound does not fix"),
        )
    }

    /// Whether `e` has the same value in every candidate of the bounded subtree: every
    /// name it reads is bound to an exact right-hand side or function of the model (see
    /// [`super::stable`]), a tag, a built-in, or a primitive that does not vary.
    pub fn is_exact(&self, env: &Env<'m>, e: &'m Expr) -> bool {
        self.exact_as(env, e, self.within())
    }

    /// [`Ctx::is_exact`] when `w` varies.
    fn exact_as(&self, env: &Env<'m>, e: &'m Expr, w: Within) -> bool {
        let mut ok = true;
        super::parse::free_vars(e, &mut Vec::new(), &mut |x| {
            ok = ok && self.name_exact(env, x, w);
        });
        ok
    }

    fn name_exact(&self, env: &Env<'m>, x: Sym, w: Within) -> bool {
        let table = self.exact_table_for(w);
        let addr = |p: *const ()| table.contains(&(p as usize));
        if self.m.bound[x.0 as usize]
            && let Some(slot) = env.lookup(x)
        {
            return match slot {
                Slot::Thunk(t) => addr(t.expr as *const Expr as *const ()),
                Slot::Val(Value::Clo(c)) => addr(c.def as *const FunDef as *const ()),
                // Within one combination of runs, values are those of its runs.
                Slot::Val(Value::Prim(b)) => w != Within::Subtree || *b != Builtin::DifferentValues,
                Slot::Val(Value::Tag(..)) => true,
                _ => false,
            };
        }
        !w.prims().contains(&self.m.names.name(x))
    }

    /// `f` evaluated as usual: it computes an exact value.
    pub(super) fn exactly<T>(&self, f: impl FnOnce() -> T) -> T {
        let Some(u) = self.upper.as_ref() else {
            return f();
        };
        u.exact.set(u.exact.get() + 1);
        let v = f();
        u.exact.set(u.exact.get() - 1);
        v
    }

    /// A lower bound of the relation `e` in every candidate of the bounded subtree: its
    /// value when exact, the union of its operands' bounds for a union, its definition's
    /// bound for a name; else the empty relation.
    pub fn lower(&self, env: &Env<'m>, e: &'m Expr, depth: u32) -> R<Rel> {
        if self.is_exact(env, e) {
            let v = self.exactly(|| self.eval(env, e))?;
            return Ok((*self.as_rel(&v, e.pos())?).clone());
        }
        let mut acc = Rel::empty(self.n);
        if depth > 0 {
            match e {
                Expr::Op(_, Op2::Union, es) => {
                    for a in es {
                        acc.union_with(&self.lower(env, a, depth - 1)?);
                    }
                }
                Expr::Var(_, x) if self.m.bound[x.0 as usize] => {
                    if let Some(Slot::Thunk(t)) = env.lookup(*x) {
                        return self.lower(&t.env, t.expr, depth - 1);
                    }
                }
                _ => {}
            }
        }
        Ok(acc)
    }

    /// The value of `e`, which decides a match: given up unless exact in a bound.
    fn exact_eval(&self, env: &Env<'m>, e: &'m Expr, what: &str) -> R<Value<'m>> {
        self.need_exact(env, e, what)?;
        let v = self.eval(env, e)?;
        self.no_sym(&v, e.pos(), what)?;
        Ok(v)
    }

    /// While a plan is built (see [`super::plan`]): `f`'s result, and whether it is the same
    /// in every run of the plan: it read nothing that varies between the candidates of a
    /// shape, and `es` depend on no varying primitive as written. Always, outside a plan.
    pub fn plan_exact<T>(
        &self,
        env: &Env<'m>,
        es: &[&'m Expr],
        f: impl FnOnce() -> T,
    ) -> (T, bool) {
        if !self.planning.of_globals() {
            return (f(), true);
        }
        // What reads a primitive that varies, or any value of the candidate's own, may differ.
        let outer = self.touched.replace(false);
        let v = f();
        let touched = self.touched.get();
        self.touched.set(outer || touched);
        let exact = !touched && es.iter().all(|e| self.exact_as(env, e, Within::Combo));
        (v, exact)
    }

    /// Gives the bound up unless `e` is exact (it decides a choice, a match, a condition).
    pub fn need_exact(&self, env: &Env<'m>, e: &'m Expr, what: &str) -> R<()> {
        if self.bounding() && !self.is_exact(env, e) {
            return Err(self.give_up(e.pos(), what));
        }
        Ok(())
    }

    pub fn err(&self, pos: Pos, msg: impl Into<String>) -> Box<CatError> {
        Box::new(CatError {
            file: self.m.file_name(pos.file).to_string(),
            line: pos.line,
            col: pos.col,
            msg: msg.into(),
            fatal: None,
        })
    }

    pub fn full(&self) -> Rc<Set> {
        self.full.get_or_init(|| Rc::new(Set::full(self.n))).clone()
    }
    pub fn ident(&self) -> Rc<Rel> {
        self.ident
            .get_or_init(|| Rc::new(Rel::identity(&Set::full(self.n))))
            .clone()
    }
    pub fn unv(&self) -> Rc<Rel> {
        self.unv
            .get_or_init(|| {
                let f = Set::full(self.n);
                Rc::new(Rel::cartesian(&f, &f))
            })
            .clone()
    }
    pub fn cache(&self) -> Option<&'p RunCache<'m>> {
        self.cache
    }
    pub fn fresh_id(&self) -> u64 {
        NEXT_ID.with(|c| {
            let i = c.get();
            c.set(i + 1);
            i
        })
    }

    // ---------- names ----------

    pub fn lookup(&self, env: &Env<'m>, x: Sym, pos: Pos) -> R<Value<'m>> {
        match self.find(env, x) {
            Some(slot) => self.force(slot),
            None => self.global(x, pos),
        }
    }

    /// Where `env` binds `x`, if it does.
    fn find<'e>(&self, env: &'e Env<'m>, x: Sym) -> Option<&'e Slot<'m>> {
        if !self.m.bound[x.0 as usize] {
            return None;
        }
        let mut cur = &env.0;
        while let Some(n) = cur {
            if n.shared.get()
                && let Some(c) = self.cache
            {
                return self.shared_lookup(c, n, x);
            }
            if n.name == x {
                return Some(&n.slot);
            }
            cur = &n.next.0;
        }
        None
    }

    /// Where `x` is bound from the shared node `n` on: found once per run cache (the
    /// candidates of a shape look up the same names from the same nodes).
    fn shared_lookup<'c>(
        &self,
        c: &RunCache<'m>,
        n: &'c EnvNode<'m>,
        x: Sym,
    ) -> Option<&'c Slot<'m>> {
        let key = (n as *const EnvNode as usize, x);
        let found = c.lookups.borrow().get(&key).copied();
        let slot = found.unwrap_or_else(|| {
            let p = n
                .lookup(x)
                .map_or(std::ptr::null(), |s| s as *const Slot<'m>);
            c.lookups.borrow_mut().insert(key, p);
            p
        });
        // SAFETY: the slot is in `n` or a node below it in a shared environment, which the
        // run cache keeps alive and unchanged until it is cleared, and the map with it; `n`
        // outlives the reference.
        unsafe { slot.as_ref() }
    }

    /// The value in `slot`. A thunk of a shared environment whose evaluation reads nothing
    /// that varies between candidates (short-circuits often spare a relation's `rf` part:
    /// `po; [UL]; (po | rf)` when the runs have no unlock) is the same for every candidate
    /// of the run cache: its value is kept there. The others go to the candidate's memo.
    pub fn force(&self, slot: &Slot<'m>) -> R<Value<'m>> {
        match slot {
            Slot::Val(v) => Ok(v.clone()),
            Slot::Memo(i) => {
                self.touched.set(true);
                let (v, reads) = self.memo_get(*i).ok_or_else(|| {
                    self.err(Pos::default(), "internal: memo slot read before set")
                })?;
                self.note_read(reads);
                Ok(v)
            }
            Slot::Thunk(t) => {
                // A value the same for every candidate of the shape (also in this
                // candidate's memo once computed here): reading it reads nothing varying.
                let stable = t.key.zip(self.vals);
                if let Some((k, c)) = stable
                    && let Some(v) = &c.vals.borrow()[k as usize]
                {
                    return Ok(v.clone());
                }
                let held = match &t.value {
                    Held::Own(cell) => cell.borrow().clone(),
                    Held::Memo(i) => self.memo_get(*i),
                };
                if let Some((v, reads)) = held {
                    // Kept per candidate: it may have read what varies.
                    self.touched.set(true);
                    self.note_read(reads);
                    return Ok(v);
                }
                // A shared thunk not known to be stable may still turn out steady.
                let steady = match (&t.value, self.cache, t.key) {
                    (Held::Memo(i), Some(c), None) => {
                        if let Some(Some(v)) = c.steady.borrow().get(*i as usize) {
                            return Ok(v.clone());
                        }
                        Some((*i, c))
                    }
                    _ => None,
                };
                let outer = self.touched.replace(false);
                let (v, read) = self.reads_of(|| {
                    if self.bounding()
                        && self
                            .exact_table()
                            .contains(&(t.expr as *const Expr as usize))
                    {
                        self.exactly(|| self.eval(&t.env, t.expr))
                    } else {
                        self.eval(&t.env, t.expr)
                    }
                });
                let varies = self.touched.get();
                self.touched.set(outer || varies);
                // A function or procedure may call for anything later: it reads everything.
                let reads = match v {
                    Ok(Value::Clo(_) | Value::Proc(_)) => u32::MAX,
                    _ => read,
                };
                self.note_read(reads);
                let v = v?;
                // Functions and procedures may hold lazy parts of the candidate: never kept.
                if let Some((i, c)) = steady
                    && !varies
                    && !matches!(v, Value::Clo(_) | Value::Proc(_))
                {
                    set_at(&mut c.steady.borrow_mut(), i, v.clone());
                    return Ok(v);
                }
                match &t.value {
                    Held::Own(cell) => *cell.borrow_mut() = Some((v.clone(), reads)),
                    Held::Memo(i) => set_at(&mut self.memo.borrow_mut(), *i, (v.clone(), reads)),
                }
                if let Some((k, c)) = stable {
                    c.vals.borrow_mut()[k as usize] = Some(v.clone());
                }
                Ok(v)
            }
        }
    }

    fn memo_get(&self, i: u32) -> Option<Forced<'m>> {
        self.memo.borrow().get(i as usize).cloned().flatten()
    }

    /// Sets the `with` variable in memo slot `i`: its value reads itself.
    pub fn memo_set(&self, i: u32, v: Value<'m>) {
        self.memo_set_read(i, v, i + 1);
    }

    /// Sets the variable in memo slot `i` to a value whose evaluation read `reads` (see
    /// [`Ctx::reads_of`]): a `let rec` variable, which a `with` branch forgets only when
    /// the fixpoint read that `with`'s variable.
    pub fn memo_set_read(&self, i: u32, v: Value<'m>, reads: u32) {
        set_at(&mut self.memo.borrow_mut(), i, (v, reads));
    }

    /// Whether memo slot `i` holds a value (a new `with` branch has not forgotten it).
    pub fn memo_has(&self, i: u32) -> bool {
        self.memo
            .borrow()
            .get(i as usize)
            .is_some_and(Option::is_some)
    }

    /// Runs `f`, returning with its result the latest `with` or `let rec` variable it read
    /// (as memo slot + 1; 0 for none), which also counts as read by the caller.
    pub fn reads_of<T>(&self, f: impl FnOnce() -> T) -> (T, u32) {
        let outer = self.reading.replace(0);
        let out = f();
        let reads = self.reading.get();
        self.reading.set(outer.max(reads));
        (out, reads)
    }

    /// A new `with` branch starts, its variable in memo slot `i`: forgets the values that
    /// read that variable or a later one (a run bounding candidates forgets everything
    /// after the variable). Those that did not, such as the LKMM's `rf` when the
    /// lock part's `singlestep(co)` meets no lock, stay for every branch.
    pub fn memo_forget_from(&self, i: u32) {
        let mut memo = self.memo.borrow_mut();
        if self.upper.is_some() {
            memo.truncate(i as usize);
            return;
        }
        for v in memo.iter_mut().skip(i as usize) {
            if v.as_ref().is_some_and(|&(_, reads)| reads > i) {
                *v = None;
            }
        }
    }

    /// Notes that what is being evaluated read the variable in memo slot `r - 1`, or a
    /// value that read it.
    fn note_read(&self, r: u32) {
        if r > self.reading.get() {
            self.reading.set(r);
        }
    }

    /// A name not bound by the model: a primitive of the candidate, a built-in, or one of
    /// herd's predefined event sets that this candidate happens not to have.
    pub fn global(&self, x: Sym, pos: Pos) -> R<Value<'m>> {
        if let Some(v) = self.planning.global(x) {
            self.touched.set(true);
            return Ok(v);
        }
        // Primitives other than rf and FW are the same in every candidate sharing a cache;
        // FW too when the candidates share it (they observe no location).
        let varying = self.m.varying[x.0 as usize] && {
            let name = self.m.names.name(x);
            !self.p.sets.shared(name) && !self.p.rels.shared(name)
        };
        if varying {
            self.touched.set(true);
        }
        let shared = self.vals.filter(|_| !varying);
        if let Some(c) = shared {
            if let Some(v) = &c.globals.borrow()[x.0 as usize] {
                return Ok(v.clone());
            }
        } else if let Some((_, v)) = self.globals.borrow().iter().find(|(y, _)| *y == x) {
            return Ok(v.clone());
        }
        let Some(v) = super::builtins::global(self.m, self.p, x) else {
            let name = self.m.names.name(x);
            return Err(self.err(pos, format!("unbound var: {name}")));
        };
        match shared {
            Some(c) => c.globals.borrow_mut()[x.0 as usize] = Some(v.clone()),
            None => self.globals.borrow_mut().push((x, v.clone())),
        }
        Ok(v)
    }

    // ---------- conversions ----------

    pub fn as_rel(&self, v: &Value<'m>, pos: Pos) -> R<Rc<Rel>> {
        match v {
            Value::Rel(r) => Ok(r.clone()),
            Value::Empty => Ok(Rc::new(Rel::empty(self.n))),
            Value::Unv => Ok(self.unv()),
            Value::Pair(a, b) => Ok(Rc::new(pair_rel(self.n, *a, *b))),
            Value::Sym(_) => Err(self.sym_lost(pos, "a relation")),
            v => Err(self.err(pos, format!("type rel expected, {} found", v.type_name()))),
        }
    }

    pub fn as_set(&self, v: &Value<'m>, pos: Pos) -> R<Rc<Set>> {
        match v {
            Value::Set(s) => Ok(s.clone()),
            Value::Empty => Ok(Rc::new(Set::empty(self.n))),
            Value::Unv => Ok(self.full()),
            Value::Event(e) => Ok(Rc::new(Set::from_iter(self.n, [*e]))),
            Value::Sym(_) => Err(self.sym_lost(pos, "a set")),
            v => Err(self.err(
                pos,
                format!("type events expected, {} found", v.type_name()),
            )),
        }
    }

    fn tag2set(v: Value<'m>) -> Value<'m> {
        match v {
            Value::Tag(..) => Value::ValSet(Rc::new(vec![v])),
            v => v,
        }
    }

    /// All tags of an enum type (for complements of tag sets).
    fn tag_universe(&self, ty: &str) -> Vec<Value<'m>> {
        let m = self.m;
        let mut v: Vec<Value<'m>> = m
            .enums
            .iter()
            .filter(|(t, _)| t == ty)
            .flat_map(|(_, tags)| m.tags[tags.clone()].iter().map(Value::Tag))
            .collect();
        v.sort_by(cmp);
        v.dedup_by(|a, b| cmp(a, b) == Ordering::Equal);
        v
    }

    // ---------- expressions ----------

    pub fn eval(&self, env: &Env<'m>, e: &'m Expr) -> R<Value<'m>> {
        match e {
            Expr::EmptyRel(_) => Ok(Value::rel(Rel::empty(self.n))),
            Expr::Universe(_) => Ok(Value::Unv),
            Expr::Tag(pos, t) => match self.m.tag_types.get(t.as_str()) {
                Some(&i) => Ok(Value::Tag(&self.m.tags[i as usize])),
                None => Err(self.err(*pos, format!("tag '{t} is undefined"))),
            },
            Expr::Var(pos, x) => self.lookup(env, *x, *pos),
            Expr::Fun(f) => Ok(self.closure(env, f, None)),
            Expr::Op1(pos, op, a) => self.eval_op1(env, *pos, *op, a),
            Expr::ExplicitSet(pos, es) => {
                let mut vs = Vec::with_capacity(es.len());
                for a in es {
                    match self.eval(env, a)? {
                        Value::Unv => return Err(self.err(a.pos(), "universe in explicit set")),
                        v if has_sym(&v) => return Err(self.sym_lost(a.pos(), "an element")),
                        v => vs.push(v),
                    }
                }
                self.explicit_set(*pos, vs)
            }
            Expr::Op(_, Op2::Tuple, es) => {
                let vs = es
                    .iter()
                    .map(|a| self.eval(env, a))
                    .collect::<R<Vec<_>>>()?;
                Ok(Value::Tuple(Rc::new(vs)))
            }
            Expr::Op(pos, Op2::Union, es) => self.union(env, *pos, es),
            Expr::Op(_, Op2::Seq, es) => self.seq(env, es),
            Expr::Op(pos, Op2::Inter, es) => self.inter(env, *pos, &es[0], &es[1]),
            Expr::Op(pos, Op2::Diff, es) => self.diff(env, *pos, &es[0], &es[1]),
            Expr::Op(pos, Op2::Cartesian, es) => {
                let a = self.eval(env, &es[0])?;
                let b = self.eval(env, &es[1])?;
                if has_sym(&a) || has_sym(&b) {
                    return self.sym_cartesian(&a, &b, *pos);
                }
                let a = self.as_set(&a, es[0].pos())?;
                let b = self.as_set(&b, es[1].pos())?;
                Ok(Value::rel(Rel::cartesian(&a, &b)))
            }
            Expr::Op(pos, Op2::Add, es) => {
                let a = self.eval(env, &es[0])?;
                let b = self.eval(env, &es[1])?;
                if has_sym(&a) || has_sym(&b) {
                    return Err(self.sym_lost(*pos, "an element"));
                }
                self.add(*pos, a, b)
            }
            Expr::App(pos, f, a) => {
                if self.bounding() && self.is_exact(env, e) {
                    return self.exactly(|| self.eval(env, e));
                }
                let f = self.eval(env, f)?;
                if self.bounding() {
                    match &f {
                        Value::Prim(Builtin::Domain | Builtin::Range) => {}
                        // Monotone once values are those of one combination of runs.
                        Value::Prim(Builtin::DifferentValues) if self.lowering() => {}
                        // The pairs of its argument that hold different values: the
                        // argument bounds them.
                        Value::Prim(Builtin::DifferentValues) => {
                            let v = self.eval(env, a)?;
                            return Ok(Value::Rel(self.as_rel(&v, a.pos())?));
                        }
                        Value::Clo(c) if self.m.native(c.def).is_none() => {}
                        _ => return Err(self.give_up(*pos, "a native function")),
                    }
                }
                let a = self.eval(env, a)?;
                let values = matches!(f, Value::Prim(Builtin::DifferentValues));
                if self.planning.active() && (values || has_sym(&f) || has_sym(&a)) {
                    return self.sym_apply(*pos, &f, a);
                }
                self.apply(*pos, &f, a)
            }
            Expr::Bind(_, bds, body) => {
                let env2 = self.bind_all(env, env, bds)?;
                self.eval(&env2, body)
            }
            Expr::BindRec(pos, bds, body) => match self.env_rec(env, *pos, bds, None)? {
                Some(env2) => self.eval(&env2, body),
                None => Err(self.err(*pos, "check failed in recursive binding")),
            },
            Expr::Match(pos, a, cls, d) => match self.exact_eval(env, a, "a match")? {
                Value::Tag(tag) => {
                    let s = &tag.name;
                    for (t, c) in cls {
                        if t == s {
                            return self.eval(env, c);
                        }
                    }
                    match d {
                        Some(d) => self.eval(env, d),
                        None => {
                            Err(self.err(*pos, format!("pattern matching failed on value '{s}'")))
                        }
                    }
                }
                v => Err(self.err(
                    a.pos(),
                    format!("matching on non-tag value of type '{}'", v.type_name()),
                )),
            },
            Expr::MatchSet(pos, a, em, cl) => {
                let kind = self.exact_eval(env, a, "a match")?;
                self.match_set(env, *pos, a, kind, em, cl)
            }
            Expr::Try(pos, a, b) if self.planning.active() => {
                // An error that may depend on the variable is not caught: the plan is
                // given up, and each branch finds out.
                let (v, exact) = self.plan_exact(env, &[a], || self.eval(env, a));
                match v {
                    Ok(v) => Ok(v),
                    Err(e) if self.planning.lost() || e.fatal.is_some() => Err(e),
                    Err(_) if !exact => Err(self.sym_lost(*pos, "an error")),
                    Err(_) => self.eval(env, b),
                }
            }
            Expr::Try(_, a, b) => match self.eval(env, a) {
                Err(e) if e.fatal.is_none() => self.eval(env, b),
                v => v,
            },
            Expr::If(pos, c, a, b) => {
                if let Cond::Eq(x, y) | Cond::In(x, y) | Cond::Subset(x, y) = &**c {
                    self.need_exact(env, x, "a condition")?;
                    self.need_exact(env, y, "a condition")?;
                }
                let holds = match self.planning.active() {
                    true => self.branch_cond(env, *pos, c)?,
                    false => self.cond(env, *pos, c)?,
                };
                if holds {
                    self.eval(env, a)
                } else {
                    self.eval(env, b)
                }
            }
        }
    }

    pub fn closure(
        &self,
        env: &Env<'m>,
        f: &'m FunDef,
        rec: Option<(Rc<RecGroup<'m>>, usize)>,
    ) -> Value<'m> {
        let mut cenv = Env::default();
        for &x in &f.free {
            if let Some(s) = env.lookup(x) {
                cenv = cenv.bind_slot(x, s.clone());
            }
        }
        Value::Clo(Rc::new(Closure {
            def: f,
            env: cenv,
            rec,
            id: self.fresh_id(),
        }))
    }

    /// `r+` or `r*`, reusing a recent one of the same `r`.
    fn closure_of(&self, op: Op1, r: Rc<Rel>) -> Rc<Rel> {
        let mut kept = self.closures.borrow_mut();
        if let Some((_, _, c)) = kept.iter().find(|(x, o, _)| *o == op && Rc::ptr_eq(x, &r)) {
            return c.clone();
        }
        let c = Rc::new(match op {
            Op1::Plus => r.transitive_closure(),
            _ => r.reflexive_transitive_closure(),
        });
        if kept.len() == CLOSURES_KEPT {
            kept.remove(0);
        }
        kept.push((r, op, c.clone()));
        c
    }

    fn eval_op1(&self, env: &Env<'m>, pos: Pos, op: Op1, a: &'m Expr) -> R<Value<'m>> {
        if op == Op1::ToId {
            return match self.eval(env, a)? {
                Value::Sym(x) => self.sym_op1(op, x, pos),
                Value::Empty => Ok(Value::Empty),
                Value::Unv => Ok(Value::Rel(self.ident())),
                Value::Set(s) => Ok(Value::rel(Rel::identity(&s))),
                Value::Event(e) => Ok(Value::rel(Rel::from_pairs(self.n, [(e, e)]))),
                v => Err(self.err(
                    a.pos(),
                    format!("type events expected, {} found", v.type_name()),
                )),
            };
        }
        let v = self.eval(env, a)?;
        if op == Op1::Comp && self.bounding() && !self.is_exact(env, a) {
            // The complement of a bound bounds nothing: the universe (or nothing) does.
            let none = if self.lowering() {
                Value::Empty
            } else {
                Value::Unv
            };
            return self.coarse(v, none, pos, "the complement");
        }
        let bad = |v: &Value| {
            self.err(
                a.pos(),
                format!("type rel expected, {} found", v.type_name()),
            )
        };
        match (op, v) {
            (op, Value::Sym(x)) => self.sym_op1(op, x, pos),
            (Op1::Plus, Value::Empty) => Ok(Value::Empty),
            (Op1::Star | Op1::Opt, Value::Empty) => Ok(Value::Rel(self.ident())),
            (Op1::Plus | Op1::Star | Op1::Opt | Op1::Inv, Value::Unv) => Ok(Value::Unv),
            (Op1::Plus | Op1::Star, Value::Rel(r)) => Ok(Value::Rel(self.closure_of(op, r))),
            (Op1::Opt, Value::Rel(r)) => Ok(Value::rel(r.union(&self.ident()))),
            (Op1::Inv, Value::Empty) => Ok(Value::Empty),
            (Op1::Inv, Value::Rel(r)) => Ok(Value::rel(r.inverse())),
            (Op1::Inv, Value::Pair(a, b)) => Ok(Value::Pair(b, a)),
            (Op1::Comp, Value::Empty) => Ok(Value::Unv),
            (Op1::Comp, Value::Unv) => Ok(Value::Empty),
            (Op1::Comp, Value::Set(s)) => Ok(Value::set(s.complement())),
            (Op1::Comp, Value::Rel(r)) => Ok(Value::rel(r.complement())),
            (Op1::Comp, Value::ValSet(s)) => match s.first() {
                Some(Value::Tag(t)) => {
                    let all = self.tag_universe(&t.ty);
                    let rest = all
                        .into_iter()
                        .filter(|t| !valset_contains(&s, t))
                        .collect();
                    Ok(Value::ValSet(Rc::new(rest)))
                }
                _ => Err(self.err(pos, "set or relation expected, set found")),
            },
            (Op1::Comp, Value::Tag(t)) => {
                let all = self.tag_universe(&t.ty);
                let rest = all
                    .into_iter()
                    .filter(|x| !matches!(x, Value::Tag(y) if y.name == t.name))
                    .collect();
                Ok(Value::ValSet(Rc::new(rest)))
            }
            (Op1::Comp, v) => Err(self.err(
                pos,
                format!("set or relation expected, {} found", v.type_name()),
            )),
            (_, v) => Err(bad(&v)),
        }
    }

    fn explicit_set(&self, pos: Pos, vs: Vec<Value<'m>>) -> R<Value<'m>> {
        if vs.is_empty() {
            return Ok(Value::Empty);
        }
        if vs.iter().all(|v| matches!(v, Value::Event(_))) {
            let s = Set::from_iter(
                self.n,
                vs.iter().filter_map(|v| match v {
                    Value::Event(e) => Some(*e),
                    _ => None,
                }),
            );
            return Ok(Value::set(s));
        }
        if vs.iter().all(|v| matches!(v, Value::Pair(..))) {
            let r = Rel::from_pairs(
                self.n,
                vs.iter().filter_map(|v| match v {
                    Value::Pair(a, b) => Some((*a as usize, *b as usize)),
                    _ => None,
                }),
            );
            return Ok(Value::rel(r));
        }
        if vs
            .iter()
            .any(|v| matches!(v, Value::Event(_) | Value::Pair(..)))
        {
            return Err(self.err(pos, "heterogeneous set elements"));
        }
        Ok(valset(vs))
    }

    fn union(&self, env: &Env<'m>, pos: Pos, es: &'m [Expr]) -> R<Value<'m>> {
        if self.planning.active() {
            return self.sym_union(env, pos, es);
        }
        self.union_of(es.iter().map(|a| (a, self.eval(env, a))))
    }

    /// A union whose operands are symbolic (see [`super::plan`]): a node, unless one is
    /// the universe.
    fn sym_union(&self, env: &Env<'m>, pos: Pos, es: &'m [Expr]) -> R<Value<'m>> {
        let vs = es
            .iter()
            .map(|a| self.eval(env, a).map(Self::tag2set))
            .collect::<R<Vec<_>>>()?;
        if !vs.iter().any(has_sym) {
            return self.union_of(es.iter().zip(vs).map(|(a, v)| (a, Ok(v))));
        }
        if vs.iter().any(|v| matches!(v, Value::Unv)) {
            return Ok(Value::Unv);
        }
        let parts: Vec<&Value<'m>> = vs.iter().filter(|v| !matches!(v, Value::Empty)).collect();
        let (mut nodes, set) = self.sym_operands(&parts, pos, "a union")?;
        Ok(match nodes.len() {
            1 => Value::Sym(SymVal {
                node: nodes[0],
                set,
            }),
            _ => {
                nodes.dedup();
                self.sym(super::plan::Op::Union(nodes), set)
            }
        })
    }

    /// The union of the operands `vs`, each with its expression, evaluated in turn.
    fn union_of(&self, vs: impl Iterator<Item = (&'m Expr, R<Value<'m>>)>) -> R<Value<'m>> {
        // The first operand as it is; from the second on, one matrix of our own that each
        // further operand is added into.
        enum Acc<'m> {
            None,
            Val(Value<'m>),
            Rel(Rel),
            Set(Set),
        }
        let value = |acc: Acc<'m>| match acc {
            Acc::None => Value::Empty,
            Acc::Val(v) => v,
            Acc::Rel(r) => Value::rel(r),
            Acc::Set(s) => Value::set(s),
        };
        let mut acc = Acc::None;
        let mut unv = false;
        for (a, v) in vs {
            let v = Self::tag2set(v?);
            match v {
                Value::Empty => continue,
                Value::Unv => {
                    unv = true;
                    continue;
                }
                _ => {}
            }
            acc = match (acc, v) {
                (Acc::None, Value::Pair(x, y)) => Acc::Rel(pair_rel(self.n, x, y)),
                (Acc::None, Value::Event(x)) => Acc::Set(Set::from_iter(self.n, [x])),
                (Acc::None, v @ (Value::Rel(_) | Value::Set(_) | Value::ValSet(_))) => Acc::Val(v),
                (Acc::Val(Value::Rel(r)), Value::Rel(s)) => {
                    let mut r = Rc::unwrap_or_clone(r);
                    r.union_with(&s);
                    Acc::Rel(r)
                }
                (Acc::Rel(mut r), Value::Rel(s)) => {
                    r.union_with(&s);
                    Acc::Rel(r)
                }
                (Acc::Val(Value::Set(r)), Value::Set(s)) => {
                    let mut r = Rc::unwrap_or_clone(r);
                    r.union_with(&s);
                    Acc::Set(r)
                }
                (Acc::Set(mut r), Value::Set(s)) => {
                    r.union_with(&s);
                    Acc::Set(r)
                }
                (Acc::Val(Value::ValSet(r)), Value::ValSet(s)) => {
                    let mut v = Rc::unwrap_or_clone(r);
                    v.extend(s.iter().cloned());
                    Acc::Val(valset(v))
                }
                (prev, v) => {
                    let t0 = match prev {
                        Acc::None => "?",
                        prev => value(prev).type_name(),
                    };
                    return Err(self.err(
                        a.pos(),
                        format!("type {t0} expected, {} found", v.type_name()),
                    ));
                }
            };
        }
        if unv {
            return Ok(Value::Unv);
        }
        Ok(value(acc))
    }

    fn seq(&self, env: &Env<'m>, es: &'m [Expr]) -> R<Value<'m>> {
        // A later factor already known to be empty spares the others: the lock part of the
        // LKMM's `rf`, `[IW | UL]; singlestep(co); lk-rmw^-1`, then does not read `co`.
        if es.len() > 1
            && let Some(polymorphic) = self.stable_empty_factor(env, es)
        {
            return Ok(match polymorphic {
                true => Value::Empty,
                false => Value::rel(Rel::empty(self.n)),
            });
        }
        let mut acc = SeqAcc::Neutral;
        for a in es {
            // `[S]` is kept as a set: composing with it is a restriction.
            let item = if let Expr::Op1(_, Op1::ToId, s) = a {
                match self.eval(env, s)? {
                    Value::Empty => return Ok(Value::Empty),
                    // Composing with nothing gives the empty relation, whatever the rest.
                    Value::Set(s) if s.is_empty() => return Ok(Value::rel(Rel::empty(self.n))),
                    Value::Unv => SeqAcc::Id(self.full()),
                    Value::Sym(x) if x.set => SeqAcc::Sym(vec![(x.node, true)]),
                    v => SeqAcc::Id(self.as_set(&v, s.pos())?),
                }
            } else {
                match self.eval(env, a)? {
                    Value::Empty => return Ok(Value::Empty),
                    Value::Rel(r) if r.is_empty() => return Ok(Value::rel(Rel::empty(self.n))),
                    // `_ ; r` relates everything to the range of `r`: not neutral.
                    Value::Unv => SeqAcc::Shared(self.unv()),
                    Value::Sym(x) if !x.set => SeqAcc::Sym(vec![(x.node, false)]),
                    v => SeqAcc::Shared(self.as_rel(&v, a.pos())?),
                }
            };
            acc = match (acc, item) {
                (SeqAcc::Neutral, x) => x,
                (acc, SeqAcc::Sym(w)) => {
                    let mut v = self.seq_nodes(acc);
                    v.extend(w);
                    SeqAcc::Sym(v)
                }
                (SeqAcc::Sym(mut v), x) => {
                    v.extend(self.seq_nodes(x));
                    SeqAcc::Sym(v)
                }
                (SeqAcc::Id(s), SeqAcc::Id(t)) => SeqAcc::Id(Rc::new(s.inter(&t))),
                (SeqAcc::Id(s), SeqAcc::Shared(r)) => SeqAcc::Rel(r.restrict_domain(&s)),
                (SeqAcc::Shared(r), SeqAcc::Id(s)) => SeqAcc::Rel(r.restrict_range(&s)),
                (SeqAcc::Rel(mut r), SeqAcc::Id(s)) => {
                    r.restrict_range_in_place(&s);
                    SeqAcc::Rel(r)
                }
                (SeqAcc::Shared(r), SeqAcc::Shared(t)) => SeqAcc::Rel(r.compose(&t)),
                (SeqAcc::Rel(r), SeqAcc::Shared(t)) => SeqAcc::Rel(r.compose(&t)),
                (_, SeqAcc::Neutral | SeqAcc::Rel(_)) => unreachable!("items are sets or operands"),
            };
            let empty = match &acc {
                SeqAcc::Id(s) => s.is_empty(),
                SeqAcc::Shared(r) => r.is_empty(),
                SeqAcc::Rel(r) => r.is_empty(),
                SeqAcc::Neutral | SeqAcc::Sym(_) => false,
            };
            // herd's sequence of relations is a relation, empty or not: only an operand
            // that is the polymorphic `{}` makes it `{}` (so `~(r; s)` stays a relation).
            if empty {
                return Ok(Value::rel(Rel::empty(self.n)));
            }
        }
        Ok(match acc {
            SeqAcc::Neutral => Value::Rel(self.unv()),
            SeqAcc::Id(s) => Value::rel(Rel::identity(&s)),
            SeqAcc::Shared(r) => Value::Rel(r),
            SeqAcc::Rel(r) => Value::rel(r),
            SeqAcc::Sym(v) => match v[..] {
                [(x, true)] => self.sym(super::plan::Op::ToId(x), false),
                [(x, false)] => Value::Sym(SymVal {
                    node: x,
                    set: false,
                }),
                _ => self.sym(super::plan::Op::Seq(v), false),
            },
        })
    }

    /// The factors of a sequence folded so far, as nodes of the plan being built.
    fn seq_nodes(&self, acc: SeqAcc) -> Vec<(u32, bool)> {
        let node = |v: Value<'m>, set| self.sym_node(&v, set).expect("typed");
        match acc {
            SeqAcc::Neutral => Vec::new(),
            SeqAcc::Id(s) => vec![(node(Value::Set(s), true), true)],
            SeqAcc::Shared(r) => vec![(node(Value::Rel(r), false), false)],
            SeqAcc::Rel(r) => vec![(node(Value::rel(r), false), false)],
            SeqAcc::Sym(v) => v,
        }
    }

    /// Whether a factor of the sequence `es` after the first is a name whose value is the
    /// same for every candidate of the runs' shapes (kept in the run cache) and empty.
    /// Decided once per shape and environment, and only in the environments candidates
    /// share (a name there always means the same binding).
    fn stable_empty_factor(&self, env: &Env<'m>, es: &'m [Expr]) -> Option<bool> {
        let (Some(c), Some(n)) = (self.cache, env.0.as_ref().filter(|n| n.shared.get())) else {
            return None;
        };
        let key = (es.as_ptr() as usize, Rc::as_ptr(n) as usize);
        if let Some(&found) = c.seq_empty.borrow().get(&key) {
            return found;
        }
        let mut found = None;
        for a in &es[1..] {
            let x = match a {
                Expr::Var(_, x) => *x,
                Expr::Op1(_, Op1::Inv | Op1::ToId, a) => match &**a {
                    Expr::Var(_, x) => *x,
                    _ => continue,
                },
                _ => continue,
            };
            let kept = self.find(env, x).and_then(|slot| self.kept_for_shape(slot));
            if let Some(v) = kept.filter(is_empty_coll) {
                found = Some(matches!(v, Value::Empty));
                break;
            }
        }
        c.seq_empty.borrow_mut().insert(key, found);
        found
    }

    /// The value of `slot` if the run cache keeps it for every candidate of the shape: a
    /// stable binding (computed now if it was not yet: once per shape), or a thunk found
    /// steady.
    fn kept_for_shape(&self, slot: &Slot<'m>) -> Option<Value<'m>> {
        let (Slot::Thunk(t), Some(c)) = (slot, self.cache) else {
            return None;
        };
        if t.key.is_some() {
            // An error here is the sequence's own business, if it gets that far.
            return self.force(slot).ok();
        }
        match &t.value {
            Held::Memo(i) => c.steady.borrow().get(*i as usize).cloned().flatten(),
            Held::Own(_) => None,
        }
    }

    fn inter(&self, env: &Env<'m>, pos: Pos, a: &'m Expr, b: &'m Expr) -> R<Value<'m>> {
        // `r & (A * B)` restricts r without building the product.
        let cart = match (a, b) {
            (r, Expr::Op(_, Op2::Cartesian, ab)) | (Expr::Op(_, Op2::Cartesian, ab), r) => {
                Some((r, ab))
            }
            _ => None,
        };
        if let Some((r, ab)) = cart {
            let rv = self.eval(env, r)?;
            if let Value::Sym(x) = rv
                && !x.set
            {
                let node = |e: &'m Expr| -> R<u32> {
                    let v = self.eval(env, e)?;
                    self.sym_node(&v, true)
                        .ok_or_else(|| self.sym_lost(e.pos(), "a product"))
                };
                let fs = vec![
                    (node(&ab[0])?, true),
                    (x.node, false),
                    (node(&ab[1])?, true),
                ];
                return Ok(self.sym(super::plan::Op::Seq(fs), false));
            }
            if let Value::Rel(rr) = &rv {
                let s1 = self.eval(env, &ab[0])?;
                let s1 = self.as_set(&s1, ab[0].pos())?;
                let s2 = self.eval(env, &ab[1])?;
                let s2 = self.as_set(&s2, ab[1].pos())?;
                let mut out = rr.restrict_domain(&s1);
                out.restrict_range_in_place(&s2);
                return Ok(Value::rel(out));
            }
        }
        let v1 = Self::tag2set(self.eval(env, a)?);
        // Nothing to intersect with: `b` (often a costly lazy binding) is not computed.
        if is_empty_value(&v1) {
            return Ok(v1);
        }
        let v2 = Self::tag2set(self.eval(env, b)?);
        match (v1, v2) {
            (Value::Rel(x), Value::Rel(y)) => Ok(Value::rel(x.inter(&y))),
            (Value::Set(x), Value::Set(y)) => Ok(Value::set(x.inter(&y))),
            (Value::ValSet(x), Value::ValSet(y)) => Ok(Value::ValSet(Rc::new(
                x.iter()
                    .filter(|v| valset_contains(&y, v))
                    .cloned()
                    .collect(),
            ))),
            (Value::Unv, v) | (v, Value::Unv) => Ok(v),
            (Value::Empty, _) | (_, Value::Empty) => Ok(Value::Empty),
            (x, y) if has_sym(&x) || has_sym(&y) => self.sym_inter_diff(true, &x, &y, pos),
            (x, y) => Err(self.err(
                pos,
                format!("intersection of {} and {}", x.type_name(), y.type_name()),
            )),
        }
    }

    fn diff(&self, env: &Env<'m>, pos: Pos, a: &'m Expr, b: &'m Expr) -> R<Value<'m>> {
        let v1 = Self::tag2set(self.eval(env, a)?);
        // Nothing to remove from: `b` is not computed (the LKMM's race relations, say, in a
        // test without plain accesses).
        if is_empty_value(&v1) {
            return Ok(v1);
        }
        // `A \ B` is within `A`; and contains nothing known from below.
        if self.bounding() && !self.is_exact(env, b) {
            if self.lowering() {
                return self.coarse(v1, Value::Empty, pos, "a difference");
            }
            return Ok(v1);
        }
        let v2 = Self::tag2set(self.eval(env, b)?);
        match (v1, v2) {
            (Value::Rel(x), Value::Rel(y)) => Ok(Value::rel(x.diff(&y))),
            (Value::Set(x), Value::Set(y)) => Ok(Value::set(x.diff(&y))),
            (Value::ValSet(x), Value::ValSet(y)) => Ok(Value::ValSet(Rc::new(
                x.iter()
                    .filter(|v| !valset_contains(&y, v))
                    .cloned()
                    .collect(),
            ))),
            (Value::Unv, Value::Rel(y)) => Ok(Value::rel(y.complement())),
            (Value::Unv, Value::Set(y)) => Ok(Value::set(y.complement())),
            (Value::Unv, Value::ValSet(y)) => match y.first() {
                Some(Value::Tag(t)) => {
                    let all = self.tag_universe(&t.ty);
                    Ok(Value::ValSet(Rc::new(
                        all.into_iter()
                            .filter(|t| !valset_contains(&y, t))
                            .collect(),
                    )))
                }
                _ => Err(self.err(pos, "cannot build universe for element type")),
            },
            (Value::Unv, Value::Empty) => Ok(Value::Unv),
            (Value::Unv, Value::Sym(y)) => self.sym_op1(Op1::Comp, y, pos),
            (_, Value::Unv) | (Value::Empty, _) => Ok(Value::Empty),
            (v, Value::Empty)
                if matches!(
                    v,
                    Value::Rel(_) | Value::Set(_) | Value::ValSet(_) | Value::Sym(_)
                ) =>
            {
                Ok(v)
            }
            (x, y) if has_sym(&x) || has_sym(&y) => self.sym_inter_diff(false, &x, &y, pos),
            (x, y) => Err(self.err(
                pos,
                format!("difference of {} and {}", x.type_name(), y.type_name()),
            )),
        }
    }

    fn add(&self, pos: Pos, a: Value<'m>, b: Value<'m>) -> R<Value<'m>> {
        add(self.n, a, b).map_err(|m| self.err(pos, m))
    }

    /// Binds a pattern to a value (tuples are split component-wise).
    pub fn bind_pat(&self, env: &Env<'m>, pos: Pos, pat: &Pat, v: Value<'m>) -> R<Env<'m>> {
        env.bind_pat(pat, v).map_err(|m| self.err(pos, m))
    }

    pub fn apply(&self, pos: Pos, f: &Value<'m>, arg: Value<'m>) -> R<Value<'m>> {
        match f {
            Value::Clo(c) => {
                if self.m.native(c.def) == Some(Native::Cross)
                    && let Some(fs) = self.cross_factors(&arg)
                {
                    return Ok(self.cross_value(fs));
                }
                let env = self.call_env(pos, c, arg)?;
                self.nested(pos, || self.eval(&env, &c.def.body))
            }
            Value::Prim(b) => super::builtins::call(*b, self.p, arg)
                .map_err(|msg| self.err(pos, format!("primitive {}: {msg}", b.name()))),
            v => Err(self.err(
                pos,
                format!("closure or primitive expected, {} found", v.type_name()),
            )),
        }
    }

    /// `f`, one call deeper: an error once calls nest deeper than [`MAX_CALL_DEPTH`].
    pub fn nested<T>(&self, pos: Pos, f: impl FnOnce() -> R<T>) -> R<T> {
        let d = self.depth.get();
        if d >= MAX_CALL_DEPTH {
            return Err(self.too_deep(pos));
        }
        self.poll(pos)?;
        self.depth.set(d + 1);
        let v = f();
        self.depth.set(d);
        v
    }

    /// The environment a closure's body runs in, for argument `arg`.
    pub fn call_env(&self, pos: Pos, c: &Closure<'m>, arg: Value<'m>) -> R<Env<'m>> {
        let mut env = c.env.clone();
        if let Some((g, _)) = &c.rec {
            for (j, (name, def)) in g.funs.iter().enumerate() {
                let clo = Value::Clo(Rc::new(Closure {
                    def,
                    env: g.env.clone(),
                    rec: Some((g.clone(), j)),
                    id: self.fresh_id(),
                }));
                env = env.bind(*name, clo);
            }
        }
        self.bind_pat(&env, pos, &c.def.pat, arg)
            .map_err(|_| self.err(pos, "argument mismatch"))
    }

    /// `let` bindings: right-hand sides see `outer`, results extend `base`.
    pub fn bind_all(&self, outer: &Env<'m>, base: &Env<'m>, bds: &'m [Binding]) -> R<Env<'m>> {
        let env = self.bind_lets(outer, base, bds, false)?;
        Ok(env.expect("only shared bindings refuse"))
    }

    /// Top-level `let` bindings for an environment the candidates of the run cache share:
    /// every right-hand side left to a thunk whose value goes to the candidate's memo table.
    /// `None` for a binding that must be evaluated at once (a tuple pattern).
    pub fn bind_shared(&self, env: &Env<'m>, bds: &'m [Binding]) -> R<Option<Env<'m>>> {
        self.bind_lets(env, env, bds, true)
    }

    /// A fresh index in the memo tables of the run cache's candidates.
    pub fn new_memo(&self) -> u32 {
        let c = self.cache.expect("shared environments need a run cache");
        let i = c.memos.get();
        c.memos.set(i + 1);
        i
    }

    fn bind_lets(
        &self,
        outer: &Env<'m>,
        base: &Env<'m>,
        bds: &'m [Binding],
        shared: bool,
    ) -> R<Option<Env<'m>>> {
        let mut env = base.clone();
        for b in bds {
            match &b.pat {
                Pat::Var(None) => {}
                Pat::Var(Some(x)) => {
                    let slot = match &b.expr {
                        // Cheap forms are evaluated at once (a name only when the value
                        // is this candidate's alone).
                        Expr::Fun(_) | Expr::EmptyRel(_) => Slot::Val(self.eval(outer, &b.expr)?),
                        Expr::Var(..) if !shared => Slot::Val(self.eval(outer, &b.expr)?),
                        e => {
                            let key = self.vals.and_then(|_| {
                                self.m
                                    .cache_keys
                                    .get(&(b as *const Binding as usize))
                                    .copied()
                            });
                            // A bound judges exactness by the thunk's expression: it keeps
                            // the thunk, whose forcing finds the value.
                            let hit = key.filter(|_| self.upper.is_none()).and_then(|k| {
                                self.vals.and_then(|c| c.vals.borrow()[k as usize].clone())
                            });
                            match hit {
                                Some(v) => Slot::Val(v),
                                None => Slot::Thunk(Rc::new(Thunk {
                                    expr: e,
                                    env: outer.clone(),
                                    value: match shared {
                                        true => Held::Memo(self.new_memo()),
                                        false => Held::Own(RefCell::new(None)),
                                    },
                                    key,
                                })),
                            }
                        }
                    };
                    env = env.bind_slot(*x, slot);
                }
                _ if shared => return Ok(None),
                pat => {
                    let v = self.eval(outer, &b.expr)?;
                    env = self.bind_pat(&env, b.pos, pat, v)?;
                }
            }
        }
        Ok(Some(env))
    }

    /// `let rec`: functions become a recursive group; other bindings are computed as a
    /// least fixpoint from empty values. `Ok(None)` when the `when` check fails.
    pub fn env_rec(
        &self,
        env: &Env<'m>,
        pos: Pos,
        bds: &'m [Binding],
        check: Option<&'m Test>,
    ) -> R<Option<Env<'m>>> {
        let mut funs = Vec::new();
        let mut vals = Vec::new();
        for b in bds {
            match (&b.pat, &b.expr) {
                (Pat::Var(Some(x)), Expr::Fun(f)) => funs.push((*x, &**f)),
                (Pat::Tuple(_), Expr::Fun(_)) => return Err(self.err(b.pos, "binding mismatch")),
                _ => vals.push(b),
            }
        }
        let add_funs = |env: &Env<'m>| -> Env<'m> {
            if funs.is_empty() {
                return env.clone();
            }
            let g = Rc::new(RecGroup {
                env: env.clone(),
                funs: funs.clone(),
            });
            let mut e = env.clone();
            for (j, (name, def)) in funs.iter().enumerate() {
                let clo = self.closure(env, def, Some((g.clone(), j)));
                e = e.bind(*name, clo);
            }
            e
        };
        if vals.is_empty() {
            return Ok(Some(add_funs(env)));
        }
        // Iterating bounds from empty ones bounds the least fixpoint when each step is
        // monotone in the variables.
        if self.bounding() {
            let group: Vec<Sym> = vals.iter().flat_map(|b| b.pat.vars()).flatten().collect();
            if !vals.iter().all(|b| monotone_in(&b.expr, &group)) {
                return Err(self.give_up(pos, "a recursive definition"));
            }
        }
        let vars: Vec<Vec<Option<Sym>>> = vals.iter().map(|b| b.pat.vars()).collect();
        let mut cur: Vec<Value<'m>> = vals
            .iter()
            .map(|b| match &b.pat {
                Pat::Var(_) => Value::Empty,
                Pat::Tuple(xs) => Value::Tuple(Rc::new(vec![Value::Empty; xs.len()])),
            })
            .collect();
        let with_vals = |cur: &[Value<'m>]| -> R<Env<'m>> {
            let mut e = env.clone();
            for (b, v) in vals.iter().zip(cur) {
                e = self.bind_pat(&e, b.pos, &b.pat, v.clone())?;
            }
            Ok(e)
        };
        let _ = vars;
        for _round in 0..10_000 {
            self.poll(pos)?;
            let mut e = add_funs(&with_vals(&cur)?);
            let mut next = Vec::with_capacity(cur.len());
            for b in &vals {
                let v = self.eval(&e, &b.expr)?;
                e = self.bind_pat(&e, b.pos, &b.pat, v.clone())?;
                e = add_funs(&e);
                next.push(v);
            }
            if let Some(t) = check
                && !self.test_ok(&e, t)?
            {
                return Ok(None);
            }
            let stable = cur
                .iter()
                .zip(&next)
                .map(|(old, new)| self.stabilised(pos, old, new))
                .collect::<R<Vec<bool>>>()?
                .into_iter()
                .all(|b| b);
            cur = next;
            if stable {
                return Ok(Some(e));
            }
        }
        Err(self.err(pos, "recursive definition does not converge"))
    }

    /// Whether `new ⊆ old` (the iteration has reached its fixpoint).
    fn stabilised(&self, pos: Pos, old: &Value<'m>, new: &Value<'m>) -> R<bool> {
        Ok(match (old, new) {
            (Value::Sym(_), _) | (_, Value::Sym(_)) => return Err(self.sym_lost(pos, "a fixpoint")),
            (_, Value::Empty) | (Value::Unv, _) => true,
            (Value::Empty, Value::Rel(r)) => r.is_empty(),
            (Value::Empty, Value::Set(s)) => s.is_empty(),
            (Value::Empty, Value::ValSet(s)) => s.is_empty(),
            (Value::Rel(o), Value::Rel(n)) => n.is_subset(o),
            (Value::Set(o), Value::Set(n)) => n.is_subset(o),
            (Value::ValSet(o), Value::ValSet(n)) => n.iter().all(|x| valset_contains(o, x)),
            (Value::Rel(o), Value::Unv) => o.len() == self.n * self.n,
            (Value::Set(o), Value::Unv) => o.len() == self.n,
            (Value::Tuple(o), Value::Tuple(n)) if o.len() == n.len() => {
                let mut all = true;
                for (a, b) in o.iter().zip(n.iter()) {
                    all &= self.stabilised(pos, a, b)?;
                }
                all
            }
            (_, v) => {
                return Err(self.err(
                    pos,
                    format!("illegal recursion on type '{}'", v.type_name()),
                ));
            }
        })
    }

    fn match_set(
        &self,
        env: &Env<'m>,
        pos: Pos,
        a: &'m Expr,
        kind: Value<'m>,
        em: &'m Expr,
        cl: &'m SetClause,
    ) -> R<Value<'m>> {
        // The set's elements (`kind`, the value of `a`), smallest first (herd picks the
        // minimum).
        let elems: Vec<Value<'m>> = match &kind {
            Value::Empty => Vec::new(),
            Value::Set(s) => s.iter().map(Value::Event).collect(),
            Value::Rel(r) => r
                .pairs()
                .map(|(x, y)| Value::Pair(x as u32, y as u32))
                .collect(),
            Value::ValSet(s) => s.to_vec(),
            Value::Unv => return Err(self.err(pos, "cannot set-match on universe")),
            v => {
                return Err(self.err(
                    a.pos(),
                    format!("set-matching on non-set value of type '{}'", v.type_name()),
                ));
            }
        };
        if elems.is_empty() {
            return self.eval(env, em);
        }
        let rebuild = |vs: &[Value<'m>]| -> Value<'m> {
            match &kind {
                Value::Set(_) => Value::set(Set::from_iter(
                    self.n,
                    vs.iter().filter_map(|v| {
                        if let Value::Event(e) = v {
                            Some(*e)
                        } else {
                            None
                        }
                    }),
                )),
                Value::Rel(_) => Value::rel(Rel::from_pairs(
                    self.n,
                    vs.iter().filter_map(|v| {
                        if let Value::Pair(x, y) = v {
                            Some((*x as usize, *y as usize))
                        } else {
                            None
                        }
                    }),
                )),
                _ => Value::ValSet(Rc::new(vs.to_vec())),
            }
        };
        match cl {
            SetClause::EltRem(x, xs, body) => {
                let mut e = env.clone();
                if let Some(x) = x {
                    e = e.bind(*x, elems[0].clone());
                }
                if let Some(xs) = xs {
                    e = e.bind(*xs, rebuild(&elems[1..]));
                }
                self.eval(&e, body)
            }
            SetClause::PreEltPost(s1, x, s2, body) => {
                let mid = elems.len() / 2;
                let mut e = env.clone();
                if let Some(x) = x {
                    e = e.bind(*x, elems[mid].clone());
                }
                if let Some(s1) = s1 {
                    e = e.bind(*s1, rebuild(&elems[..mid]));
                }
                if let Some(s2) = s2 {
                    e = e.bind(*s2, rebuild(&elems[mid + 1..]));
                }
                self.eval(&e, body)
            }
        }
    }

    pub fn variant(&self, c: &VariantCond) -> bool {
        self.m.variant_holds(c)
    }

    fn cond(&self, env: &Env<'m>, pos: Pos, c: &'m Cond) -> R<bool> {
        match c {
            Cond::Variant(v) => Ok(self.variant(v)),
            Cond::Eq(a, b) => {
                let x = self.eval(env, a)?;
                let y = self.eval(env, b)?;
                Ok(cmp(&x, &y) == Ordering::Equal)
            }
            Cond::In(a, b) => {
                let x = self.eval(env, a)?;
                let y = self.eval(env, b)?;
                match (&x, y) {
                    (Value::Event(e), y) => Ok(self.as_set(&y, b.pos())?.contains(*e)),
                    (Value::Pair(p, q), y) => {
                        Ok(self.as_rel(&y, b.pos())?.contains(*p as usize, *q as usize))
                    }
                    (_, Value::ValSet(s)) => Ok(valset_contains(&s, &x)),
                    (_, Value::Empty) => Ok(false),
                    (_, y) => {
                        Err(self.err(b.pos(), format!("set expected, found {}", y.type_name())))
                    }
                }
            }
            Cond::Subset(a, b) => {
                let x = self.eval(env, a)?;
                let y = self.eval(env, b)?;
                match (&x, &y) {
                    (Value::Empty, _) => Ok(true),
                    (Value::Set(_) | Value::Event(_), _) | (_, Value::Set(_)) => Ok(self
                        .as_set(&x, a.pos())?
                        .is_subset(&*self.as_set(&y, b.pos())?)),
                    (Value::ValSet(s), Value::ValSet(t)) => {
                        Ok(s.iter().all(|v| valset_contains(t, v)))
                    }
                    (Value::ValSet(s), Value::Empty) => Ok(s.is_empty()),
                    _ => Ok(self
                        .as_rel(&x, a.pos())?
                        .is_subset(&*self.as_rel(&y, b.pos())?)),
                }
            }
        }
        .map_err(|e: Box<CatError>| if e.line == 0 { self.err(pos, e.msg) } else { e })
    }

    /// Evaluates a check's expression as a relation or a set and decides it.
    pub fn test_ok(&self, env: &Env<'m>, t: &'m Test) -> R<bool> {
        Ok(self.test_eval(env, t)?.0)
    }

    /// [`Ctx::test_eval`], once per shape for a check that does not vary (see
    /// [`super::stable`]).
    pub fn test_eval_cached(&self, env: &Env<'m>, t: &'m Test) -> R<super::TestOutcome> {
        let key = t as *const Test as usize;
        self.once_per_shape(
            key,
            &self.m.stable_tests,
            |c| &c.tests,
            || self.test_eval(env, t),
        )
    }

    /// [`Ctx::choices`], once per shape for a `with` whose choices do not vary.
    pub fn choices_cached(&self, env: &Env<'m>, e: &'m Expr) -> R<super::native::Choices<'m>> {
        let key = e as *const Expr as usize;
        self.once_per_shape(
            key,
            &self.m.stable_withs,
            |c| &c.withs,
            || self.choices(env, e),
        )
    }

    /// `compute`, or its value kept in the run cache under `key` when `stable` holds it.
    fn once_per_shape<V: Clone + 'p>(
        &self,
        key: usize,
        stable: &rustc_hash::FxHashSet<usize>,
        slot: impl Fn(&'p RunCache<'m>) -> &'p RefCell<rustc_hash::FxHashMap<usize, V>>,
        compute: impl FnOnce() -> R<V>,
    ) -> R<V> {
        let Some(c) = self.vals.filter(|_| stable.contains(&key)) else {
            return compute();
        };
        if let Some(v) = slot(c).borrow().get(&key) {
            return Ok(v.clone());
        }
        let v = compute()?;
        slot(c).borrow_mut().insert(key, v.clone());
        Ok(v)
    }

    /// The check's verdict, and a cycle when an acyclicity check fails.
    pub fn test_eval(&self, env: &Env<'m>, t: &'m Test) -> R<super::TestOutcome> {
        let v = self.eval(env, &t.expr)?;
        self.test_of(t, &v)
    }

    /// The verdict of check `t` on its relation's value `v`.
    pub fn test_of(&self, t: &'m Test, v: &Value<'m>) -> R<super::TestOutcome> {
        let (holds, cycle) = match (t.kind, v) {
            (TestKind::Empty, Value::Set(s)) => {
                let first = (!s.is_empty()).then(|| s.iter().next()).flatten();
                (first.is_none(), first.map(|e| vec![e, e]))
            }
            (TestKind::Empty, Value::Event(e)) => (false, Some(vec![*e, *e])),
            (TestKind::Empty, Value::ValSet(s)) => (s.is_empty(), None),
            (TestKind::Empty, v) => {
                let r = self.as_rel(v, t.expr.pos())?;
                let first = (!r.is_empty()).then(|| r.pairs().next()).flatten();
                (first.is_none(), first.map(|(a, b)| vec![a, b]))
            }
            (_, Value::Set(_) | Value::Event(_)) => {
                return Err(self.err(t.expr.pos(), "relation expected"));
            }
            (TestKind::Irreflexive, v) => {
                // A reflexive event stands for the cycle through it (for explanations).
                let r = self.as_rel(v, t.expr.pos())?;
                let x = (0..r.universe()).find(|&i| r.contains(i, i));
                (x.is_none(), x.map(|i| vec![i]))
            }
            (TestKind::Acyclic, v) => {
                let c = self.as_rel(v, t.expr.pos())?.find_cycle();
                (c.is_none(), c)
            }
        };
        Ok((holds != t.negated, cycle))
    }
}

/// An empty set or relation of events (a set of other values may be empty and still
/// typed, and is left alone).
fn is_empty_value(v: &Value) -> bool {
    match v {
        Value::Empty => true,
        Value::Rel(r) => r.is_empty(),
        Value::Set(s) => s.is_empty(),
        _ => false,
    }
}

/// Whether `e` is built from the names in `group` by monotone operators only (no
/// difference or complement of them, nor a function, match or condition applied to them).
fn monotone_in(e: &Expr, group: &[Sym]) -> bool {
    let mentions = |a: &Expr| {
        let mut any = false;
        super::parse::free_vars(a, &mut Vec::new(), &mut |x| any = any || group.contains(&x));
        any
    };
    let ok = match e {
        Expr::Op(_, Op2::Diff, es) => !mentions(&es[1]),
        Expr::Op1(_, Op1::Comp, a) => !mentions(a),
        Expr::App(..) | Expr::Match(..) | Expr::MatchSet(..) | Expr::If(..) => !mentions(e),
        _ => true,
    };
    let mut all = ok;
    e.for_each_child(&mut |c| all = all && monotone_in(c, group));
    all
}
