//! The walk over a test's candidates: which enumeration makes them (the domain
//! enumerator with its shortcuts, or the growing exploration), and what becomes of each
//! one (its branches' verdicts, handed over with its final state).

use super::{Branch, Options, State, Stats, cond, lookup, reg_value, state_value};
use crate::cat::{Bound, CatError, Checker, Fatal, Model, Verdict};
use crate::exec::symmetry::Symmetry;
use crate::exec::{Candidate, EngineError, Program, candidate, grow, threads};
use crate::litmus::ast::{LocRef, Test};
use crate::sem::{Symbols, Value, c::Macros};
use crate::tuning::Exploration;
use std::cell::{Cell, OnceCell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// What [`visit_part`] saw besides the branches.
pub(crate) struct Visited {
    pub symbols: Symbols,
    /// Candidates cut off by the unrolling bound (herd's `Loop`; never judged).
    pub cut: usize,
    pub stats: Stats,
    /// What the grown runs did, for the warnings (the domain enumeration's runs say it
    /// themselves).
    pub grown: Option<grow::Seen>,
    /// The domain enumeration visited more candidates than [`Prepared::outgrows`] allows
    /// and stopped: the test is to be explored by growing instead.
    pub outgrown: bool,
}

/// One part of a judgement split for the workers: its prefix of run choices, its place
/// in enumeration order, and what the parts share.
pub(crate) struct Part<'a> {
    pub prefix: &'a [usize],
    pub index: usize,
    pub firsts: &'a Firsts,
}

/// The first part, in enumeration order, that found a witness and that explained a
/// forbidden outcome: the merged judgement keeps the first part's, so later parts need
/// build neither (nor keep subtrees that may hold the outcome to explain it).
pub(crate) struct Firsts {
    pub witness: AtomicUsize,
    pub why: AtomicUsize,
    /// Candidates the parts visited so far (for [`Prepared::outgrows`]).
    pub visited: AtomicUsize,
}

impl Default for Firsts {
    fn default() -> Firsts {
        Firsts {
            witness: AtomicUsize::new(usize::MAX),
            why: AtomicUsize::new(usize::MAX),
            visited: AtomicUsize::new(0),
        }
    }
}

impl Part<'_> {
    /// The whole test, as one part.
    pub fn whole(firsts: &Firsts) -> Part<'_> {
        Part {
            prefix: &[],
            index: 0,
            firsts,
        }
    }
    /// Whether this part should still build a witness graph.
    pub fn wants_witness(&self, opts: &Options) -> bool {
        opts.evidence && self.firsts.witness.load(Ordering::Relaxed) >= self.index
    }
    /// Whether this part should still explain a forbidden outcome.
    pub fn wants_why(&self, opts: &Options) -> bool {
        opts.evidence && self.firsts.why.load(Ordering::Relaxed) >= self.index
    }
}

/// A test ready for its candidates to be visited: its program and how they are made.
pub(crate) struct Prepared<'t> {
    pub prog: Program<'t>,
    pub engine: Engine,
    /// With [`Exploration::Auto`] and the domain enumeration chosen for a test the growing
    /// exploration could take: the most candidates to visit before growing instead (the
    /// runs were few, their combinations and `rf` choices turned out many).
    pub outgrows: Option<usize>,
    pub shown: Vec<LocRef>,
    pub start: Instant,
}

/// How a test's candidates are made (see [`Exploration`]).
pub(crate) enum Engine {
    /// Every run of each thread, then their combinations and `rf`.
    Domains {
        runs: threads::ThreadRuns,
        combiner: Box<candidate::Combiner>,
        sym: Option<Symmetry>,
    },
    /// Executions grown read by read, with what the model lets them assume.
    Grow(grow::Facts),
}

/// `every_rf`: offer every `rf` edge, even those the model is known to reject (for the
/// explorer, which shows every candidate, with the domain enumeration).
pub(crate) fn prepare<'t>(
    test: &'t Test,
    model: &Model,
    macros: Option<&'t Macros>,
    opts: &Options,
    every_rf: bool,
) -> Result<Prepared<'t>, EngineError> {
    let start = Instant::now();
    let mut prog = Program::new(test, macros)?;
    prog.reg_events = model.catdep();
    let shown = super::shown_locations(test);
    let every_rf = every_rf || !opts.tuning.early_rejects;
    let (coherence, atomicity) = model.assumes();
    let facts = grow::Facts {
        coherence,
        atomicity,
        po_later_rf: !model.rejects_po_rf_cycles(),
        orders: model.orders(),
    };
    let grows = !every_rf && !prog.symbols.vmsa && !prog.code;
    let tuning = &opts.tuning;
    let runs = match tuning.exploration {
        Exploration::Grow if grows => None,
        Exploration::Auto if grows => {
            match threads::enumerate_at_most(
                &prog,
                opts.unroll,
                &opts.budget,
                tuning.domain_runs_max,
            ) {
                Ok(runs) => Some(runs),
                Err(e) if matches!(e.exhausted, Some(crate::budget::Exhausted::Size(_))) => None,
                Err(e) => return Err(e),
            }
        }
        _ => Some(threads::enumerate(&prog, opts.unroll, &opts.budget)?),
    };
    let engine = match runs {
        None => Engine::Grow(facts),
        Some(runs) => {
            let po_later = every_rf || !model.rejects_po_rf_cycles();
            let combiner = Box::new(candidate::Combiner::new(&prog, &runs, po_later));
            let sym = (tuning.symmetry && !every_rf)
                .then(|| Symmetry::of(&prog, &runs, &shown, &opts.budget))
                .flatten();
            Engine::Domains {
                runs,
                combiner,
                sym,
            }
        }
    };
    let outgrows = (tuning.exploration == Exploration::Auto && grows)
        .then_some(tuning.domain_candidates_max)
        .filter(|_| matches!(engine, Engine::Domains { .. }));
    Ok(Prepared {
        prog,
        engine,
        outgrows,
        shown,
        start,
    })
}

/// The candidates of the part (whose first threads take the runs of its prefix, with
/// the domain enumeration), each branch's verdict handed to `f` until it returns false.
/// Candidates cut by the loop bound and those the `filter` excludes are not judged, as
/// in herd.
pub(crate) fn visit_part(
    pre: &Prepared,
    model: &Model,
    opts: &Options,
    part: &Part,
    f: &mut dyn FnMut(Branch) -> bool,
) -> Result<Visited, EngineError> {
    let checker = Checker::new(model, &opts.tuning);
    let sym = match &pre.engine {
        Engine::Domains { sym, .. } => sym.as_ref(),
        Engine::Grow(_) => None,
    };
    let images = RefCell::new(vec![0]);
    let explained = Cell::new(false);
    let mut j = Judging {
        prog: &pre.prog,
        shown: &pre.shown,
        sym,
        images: &images,
        checker: &checker,
        opts,
        seen: Visited {
            symbols: pre.prog.symbols.clone(),
            cut: 0,
            stats: Stats::default(),
            grown: None,
            outgrown: false,
        },
        err: None,
        exhausted: None,
        ordinal: 0,
        witnessed: false,
        explained: &explained,
        outgrows: pre.outgrows.map(|max| (&part.firsts.visited, max)),
        f,
    };
    match &pre.engine {
        Engine::Domains { runs, combiner, .. } => domains(&mut j, runs, combiner, part),
        Engine::Grow(facts) => grown(&mut j, pre, *facts, part)?,
    }
    j.seen.stats.cat = checker.stats();
    if let Some(e) = j.err {
        return Err(EngineError::new(e.to_string()));
    }
    // The search also stops by itself when the budget is spent (the check is sticky).
    if let Some(e) = j.exhausted.or_else(|| opts.budget.check().err()) {
        let mut e = EngineError::exhausted(e);
        e.explored.candidates = j.seen.stats.candidates;
        return Err(e);
    }
    Ok(j.seen)
}

/// Whether `prop` may still hold of a candidate whose first threads take the runs
/// `picks`, by their final registers (memory and the other threads unknown).
fn may_hold(
    prog: &Program,
    runs: &threads::ThreadRuns,
    prop: &crate::litmus::ast::Prop,
    picks: &[usize],
) -> bool {
    let test = prog.test;
    let look = |l: &LocRef| -> Option<Value> {
        let LocRef::Reg { proc, reg } = l else {
            return None;
        };
        let t = test.threads.iter().position(|t| t.proc() == *proc)?;
        let &k = picks.get(t)?;
        Some(reg_value(prog, &runs.runs[t][k], t, reg))
    };
    cond::eval_partial(prop, &look, &prog.symbols) != Some(false)
}

/// The candidates of the domain enumeration, with its shortcuts: symmetries, an early
/// `filter`, bounds of subtrees from above and partial `rf` doomed from below.
fn domains(
    j: &mut Judging,
    runs: &threads::ThreadRuns,
    combiner: &candidate::Combiner,
    part: &Part,
) {
    let (prog, opts, checker) = (j.prog, j.opts, j.checker);
    let test = prog.test;
    // A filter that the registers of the runs chosen so far already falsify drops the
    // combination before its other threads, rf and final writes are enumerated. Not when
    // some run is cut by the unrolling bound: such candidates count for `Loop` first.
    let filter = test
        .filter
        .as_ref()
        .filter(|_| !runs.cut && opts.tuning.early_rejects);
    let (sym, images) = (j.sym, j.images);
    // With symmetries, a whole combination is judged only when it is the first of its
    // orbit; `images` then holds the symmetries giving its distinct renamings.
    let admit = |picks: &[usize]| -> bool {
        if let Some(sym) = sym
            && picks.len() == runs.runs.len()
        {
            match sym.images(picks) {
                Some(v) => *images.borrow_mut() = v,
                None => return false,
            }
        }
        filter.is_none_or(|flt| may_hold(prog, runs, flt, picks))
    };
    let bound = |c: &Candidate| checker.bound(&c.prims, c.shapes, &opts.budget);
    let bounder = candidate::Bounder {
        bound: &bound,
        min: opts.tuning.bound_min,
    };
    let bounder = (opts.tuning.bound_min > 0).then_some(&bounder);
    let explained = j.explained;
    // Until a candidate satisfying the condition failed (the first one explains a
    // forbidden outcome, when the output shows it), no subtree that may hold one is cut.
    let doomed = |c: &Candidate| {
        if !explained.get() && part.wants_why(opts) {
            // The runs are chosen, the final writes not.
            let look = |l: &LocRef| match l {
                LocRef::Global(g) if !g.starts_with("fault(") => None,
                _ => Some(lookup(prog, c, l)),
            };
            if cond::eval_partial(&test.condition.prop, &look, &prog.symbols) != Some(false) {
                return false;
            }
        }
        checker.doomed(&c.prims, c.shapes, &opts.budget)
    };
    let doomer = candidate::Doomer {
        doomed: &doomed,
        min: opts.tuning.doomed_min,
    };
    let doomer = (opts.tuning.doomed_min > 0).then_some(&doomer);
    let counts = candidate::for_each(
        prog,
        runs,
        combiner,
        candidate::Scope {
            prefix: part.prefix,
            admit: &admit,
            budget: &opts.budget,
        },
        candidate::Shortcuts { bounder, doomer },
        &mut |c: &Candidate, bounded: Option<&Bound>| j.candidate(c, bounded),
    );
    j.seen.stats.candidates = counts.visited;
    j.seen.stats.left_out = counts.left_out;
}

/// The candidates of the growing exploration.
fn grown(
    j: &mut Judging,
    pre: &Prepared,
    facts: grow::Facts,
    part: &Part,
) -> Result<(), EngineError> {
    let opts = j.opts;
    let mut each = |c: &Candidate| j.candidate(c, None);
    let mut g = grow::Grow::new(&pre.prog, opts.unroll, facts, &opts.budget, &mut each);
    let res = g.run();
    let (counts, seen) = (g.counts, std::mem::take(&mut g.seen));
    drop(g);
    j.seen.stats.candidates = counts.visited;
    j.seen.stats.partial = counts.partial;
    j.seen.stats.dropped = counts.dropped;
    j.seen.grown = Some(seen);
    res?;
    let unexplained = !j.witnessed && !j.explained.get() && part.wants_why(opts);
    if unexplained && counts.dropped > 0 && j.exhausted.is_none() && j.err.is_none() {
        explain_dropped(j, pre)?;
    }
    Ok(())
}

/// No candidate made satisfies the condition, and the exploration dropped incoherent
/// partial executions: the outcome is forbidden, and the candidates that explain why were
/// dropped. The domain enumeration finds one, when each thread has at most
/// [`crate::tuning::Tuning::why_runs_max`] runs: only the combinations of runs whose
/// registers may satisfy the condition, up to the first candidate that does. It is not
/// one the exploration made (none of those satisfies the condition) and so an incoherent
/// one (every coherent candidate was made): the model rejects it, no count changes, and
/// judging it only explains the outcome.
fn explain_dropped(j: &mut Judging, pre: &Prepared) -> Result<(), EngineError> {
    let (prog, opts) = (&pre.prog, j.opts);
    let Ok(runs) =
        threads::enumerate_at_most(prog, opts.unroll, &opts.budget, opts.tuning.why_runs_max)
    else {
        j.seen.stats.why_left_out = true;
        return Ok(());
    };
    let combiner = candidate::Combiner::new(prog, &runs, true);
    let prop = &prog.test.condition.prop;
    let admit = |picks: &[usize]| may_hold(prog, &runs, prop, picks);
    let scope = candidate::Scope {
        prefix: &[],
        admit: &admit,
        budget: &opts.budget,
    };
    let none = candidate::Shortcuts {
        bounder: None,
        doomer: None,
    };
    candidate::for_each(
        prog,
        &runs,
        &combiner,
        scope,
        none,
        &mut |c: &Candidate, _| {
            let cut = c.runs.iter().any(|r| r.cut);
            if cut || j.condition(c) != Some(true) {
                return true;
            }
            j.candidate(c, None) && !j.explained.get()
        },
    );
    j.seen.stats.why_left_out = !j.explained.get();
    Ok(())
}

/// What judging the candidates of one part keeps track of.
struct Judging<'a, 'm, 'f> {
    prog: &'a Program<'a>,
    shown: &'a [LocRef],
    sym: Option<&'a Symmetry>,
    /// With symmetries: the symmetries giving the distinct renamings of the combination
    /// being judged (set when it is admitted).
    images: &'a RefCell<Vec<usize>>,
    checker: &'a Checker<'m>,
    opts: &'a Options,
    seen: Visited,
    err: Option<CatError>,
    exhausted: Option<crate::budget::Exhausted>,
    /// Candidates judged so far.
    ordinal: usize,
    /// Whether a consistent execution satisfying the condition was judged in full: the
    /// first one makes the witness graph.
    witnessed: bool,
    /// Whether a candidate satisfying the condition failed (see [`domains`]).
    explained: &'a Cell<bool>,
    /// The parts' candidates so far and [`Prepared::outgrows`].
    outgrows: Option<(&'a AtomicUsize, usize)>,
    f: &'f mut dyn FnMut(Branch) -> bool,
}

impl Judging<'_, '_, '_> {
    /// Whether `c` satisfies the test's condition; `None` when the `filter` excludes it.
    fn condition(&self, c: &Candidate) -> Option<bool> {
        let (prog, test) = (self.prog, self.prog.test);
        let look = |l: &LocRef| lookup(prog, c, l);
        if let Some(flt) = &test.filter
            && !cond::eval(flt, &look, &prog.symbols)
        {
            return None;
        }
        Some(cond::eval(&test.condition.prop, &look, &prog.symbols))
    }

    /// One candidate: each branch of the model hands over its verdict (or, under a
    /// bound, the bound's flags); false when the search is to stop.
    fn candidate(&mut self, c: &Candidate, bounded: Option<&Bound>) -> bool {
        let (prog, opts) = (self.prog, self.opts);
        if let Err(e) = opts.budget.check() {
            self.exhausted = Some(e);
            return false;
        }
        if let Some((visited, max)) = self.outgrows
            && visited.fetch_add(1, Ordering::Relaxed) >= max
        {
            self.seen.outgrown = true;
            return false;
        }
        if let Some(p) = &opts.progress {
            p.add(1);
        }
        self.seen.stats.events = self.seen.stats.events.max(c.prims.n);
        if c.runs.iter().any(|r| r.cut) {
            self.seen.cut += 1;
            return true;
        }
        let Some(sat) = self.condition(c) else {
            return true;
        };
        self.ordinal += 1;
        let shown = self.shown;
        let state_of = || -> State { shown.iter().map(|l| state_value(prog, c, l)).collect() };
        let hand = Hand {
            c,
            sat,
            ordinal: self.ordinal,
            state: OnceCell::new(),
            state_of: &state_of,
            images: self.images.borrow().clone(),
            sym: self.sym,
            recorded: Cell::new(false),
        };
        let f = &mut *self.f;
        if let Some(b) = bounded.filter(|_| self.witnessed || !sat) {
            self.seen.stats.bounded += 1;
            return b.iter().all(|flags| {
                hand.over(
                    Verdict {
                        failed: None,
                        flags: flags.clone(),
                        co: None,
                        rf: None,
                    },
                    f,
                )
            });
        }
        let mut keep = true;
        let (witnessed, explained) = (&mut self.witnessed, self.explained);
        let mut judge = |verdict: Verdict| {
            debug_assert!(
                bounded.is_none() || verdict.failed.is_none(),
                "a bounded candidate fails {:?}",
                verdict.failed
            );
            *witnessed |= sat && verdict.failed.is_none();
            if sat && verdict.failed.is_some() {
                explained.set(true);
            }
            keep = hand.over(verdict, f);
            keep
        };
        let res = self
            .checker
            .verdicts(&c.prims, c.shapes, sat, &opts.budget, &mut judge);
        match res {
            Ok(()) => return keep,
            Err(CatError {
                fatal: Some(Fatal::Exhausted(x)),
                ..
            }) => self.exhausted = Some(x),
            Err(e) => self.err = Some(e),
        }
        false
    }
}

/// Hands one candidate's branches over.
struct Hand<'x, 'c> {
    c: &'x Candidate<'c>,
    sat: bool,
    ordinal: usize,
    /// The final state, over the shown locations: made when first asked for (most
    /// candidates of a big test are rejected and never need it).
    state: OnceCell<State>,
    state_of: &'x dyn Fn() -> State,
    images: Vec<usize>,
    sym: Option<&'x Symmetry>,
    /// This candidate's state and its renamings are recorded: later consistent branches
    /// only count.
    recorded: Cell<bool>,
}

impl<'x, 'c> Hand<'x, 'c> {
    fn branch<'y>(
        &'y self,
        verdict: Verdict,
        state: &'y OnceCell<State>,
        renamed: usize,
    ) -> Branch<'y, 'c> {
        Branch {
            c: self.c,
            verdict,
            sat: self.sat,
            state,
            state_of: self.state_of,
            ordinal: self.ordinal,
            renamed,
        }
    }

    fn over(&self, verdict: Verdict, f: &mut dyn FnMut(Branch) -> bool) -> bool {
        if self.recorded.get() && verdict.failed.is_none() {
            return f(self.branch(verdict, &self.state, self.images.len() - 1));
        }
        // A consistent execution's renamings are executions too. The condition maps onto
        // itself, so they satisfy it as this one does; and they are never the witness
        // (this one comes first): no graph.
        let renamings = self
            .sym
            .filter(|_| verdict.failed.is_none() && self.images.len() > 1)
            .map(|sym| (sym, verdict.flags.clone()));
        if !f(self.branch(verdict, &self.state, 0)) {
            return false;
        }
        let Some((sym, flags)) = renamings else {
            return true;
        };
        let s = self.state.get_or_init(self.state_of);
        self.recorded.set(true);
        self.images[1..].iter().all(|&i| {
            let renamed = Verdict {
                failed: None,
                flags: flags.clone(),
                co: None,
                rf: None,
            };
            let state = OnceCell::from(sym.state(i, s));
            f(self.branch(renamed, &state, 0))
        })
    }
}
