//! Stage 5: the judge. Runs the model on every candidate and gathers what herd reports:
//! the final states of consistent executions, how many satisfy the condition, the flags.

pub mod cond;
pub mod explore;
pub mod graph;
pub mod lint;
mod visit;

pub(crate) use visit::Visited;
use visit::{Engine, Firsts, Part, prepare, visit_part};

use graph::ExecGraph;

use crate::budget::Budget;
use crate::cat::{CheckKind, Checker, Model, Tuning, Verdict};
use crate::exec::{Candidate, EngineError, Program};
use crate::litmus::ast::{Arch, LocRef, Quantifier, Test};
use crate::sem::{Symbols, Value, c::Macros};
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How to run a test.
#[derive(Clone, Debug)]
pub struct Options {
    /// Loop unrolling bound (herd's `-unroll`).
    pub unroll: u32,
    /// Only the executions that settle the condition count, and with [`Speed::Fast`] the
    /// first one ends the search (herd's `-speedcheck`).
    pub speedcheck: Speed,
    /// Stop once this many consistent executions that `Show` selects were met (herd's
    /// `-nshow N` with `-show`, which ends its search for the pictures too).
    pub nshow: Option<(Show, usize)>,
    /// What the test may spend; when it runs out, the test is undetermined.
    pub budget: Budget,
    /// When the fast paths are taken (see [`Tuning`]).
    pub tuning: Tuning,
    /// The model run again on the one candidate explained when the judging model's reason
    /// names steps no base edges explain (see [`Explainer`]).
    pub explainer: Option<Explainer>,
    /// Counts the candidates judged as they are (for a progress display).
    pub progress: Option<Progress>,
    /// Build the evidence behind the answer: the witness graph and, for a forbidden
    /// outcome, why the first candidate reaching it was rejected. Only for outputs that
    /// print them (`--explain`, `--graph`, JSON records, the explorer): an explanation
    /// may take thousands of coherence orders, and looking for one keeps the search from
    /// leaving out subtrees that hold the outcome.
    pub evidence: bool,
}

/// The same model loaded with the variant `explain`, which our shipped models test to
/// give up shortcuts that judge faster and explain worse: `lkmm` then tries every
/// coherence order instead of anticipating atomicity, so that its `atomic` check names
/// the read and write of one atomic operation and the write between them. Run only on the
/// candidate whose rejection is explained, never to judge.
#[derive(Clone)]
pub struct Explainer(
    std::sync::Arc<(crate::cat::ModelOptions, std::sync::OnceLock<Option<Model>>)>,
);

impl Explainer {
    /// The model `opts` loads, once first needed.
    pub fn new(opts: crate::cat::ModelOptions) -> Explainer {
        Explainer(std::sync::Arc::new((opts, Default::default())))
    }

    /// The model, loaded now if it was not yet (`None` if it does not load).
    pub fn model(&self) -> Option<&Model> {
        self.0
            .1
            .get_or_init(|| Model::load(&self.0.0).ok())
            .as_ref()
    }
}

impl std::fmt::Debug for Explainer {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("Explainer")
    }
}

/// How many candidates a judgement has visited so far, shared with whoever shows it.
#[derive(Clone, Debug, Default)]
pub struct Progress(pub std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Progress {
    pub fn get(&self) -> usize {
        self.0.load(Ordering::Relaxed)
    }
    fn add(&self, n: usize) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            unroll: 2,
            speedcheck: Speed::False,
            nshow: None,
            budget: Budget::unlimited(),
            tuning: Tuning::default(),
            explainer: None,
            progress: None,
            evidence: false,
        }
    }
}

impl Options {
    /// The whole pipeline with every fast path off: no symmetry, no cuts, no bounds, no
    /// plans, every `rf` offered, and each candidate judged by the reference evaluator.
    /// Slow, and the same answers.
    pub fn reference(self) -> Options {
        Options {
            tuning: Tuning::reference(),
            ..self
        }
    }
}

/// herd's `-speedcheck`: `True` counts only the executions that settle the condition (the
/// ones that satisfy `exists` or `~exists`, falsify `forall`), `Fast` stops at the first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Speed {
    #[default]
    False,
    True,
    Fast,
}

/// Which consistent executions herd's `-show` selects (for pictures, and for `-nshow`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Show {
    /// Those satisfying the condition's proposition.
    Prop,
    /// Those not satisfying it.
    Neg,
    /// Those that make the condition true (`exists`, `forall`) or false (`~exists`).
    Cond,
    /// Those that settle the condition (as [`Speed`] counts them).
    Wit,
    All,
    None,
    /// Those raising this flag.
    Flag(String),
}

impl Show {
    pub fn selects(&self, q: Quantifier, sat: bool, flags: &[String]) -> bool {
        match self {
            Show::Prop => sat,
            Show::Neg => !sat,
            Show::Cond => match q {
                Quantifier::Exists | Quantifier::Forall => sat,
                Quantifier::NotExists => !sat,
            },
            Show::Wit => settles(q, sat),
            Show::All => true,
            Show::None => false,
            Show::Flag(f) => flags.iter().any(|g| g == f),
        }
    }
}

/// A final state: the values of the shown locations ([`Judgement::shown`]), in that order.
/// (The locations are the same for every state of a test: kept once, a test with half a
/// million states holds half a million short vectors of values.)
pub type State = Vec<Value>;

/// herd's answer for one test under one model.
#[derive(Clone, Debug)]
pub struct Judgement {
    pub name: String,
    pub model: String,
    pub quant: Quantifier,
    /// The locations of the final states, in herd's display order.
    pub shown: Vec<LocRef>,
    pub states: BTreeSet<State>,
    /// Consistent executions that satisfy / do not satisfy the condition's proposition.
    pub sat: usize,
    pub unsat: usize,
    pub flags: BTreeSet<String>,
    /// A loop bound cut some runs off.
    pub cut: bool,
    pub symbols: Symbols,
    /// What the judgement cost and which shortcuts it took; never part of the answer.
    pub stats: Stats,
    /// For a forbidden condition: why the first candidate that satisfied it was rejected.
    pub forbidden_by: Option<Explanation>,
    /// The first consistent execution that satisfies the condition.
    pub witness: Option<ExecGraph>,
    /// Its final state.
    pub witness_state: Option<State>,
    /// Likely mistakes in the test (see [`lint`]); they change no answer.
    pub warnings: Vec<lint::Warning>,
    /// Consistent executions counted that [`Options::nshow`]'s selection selects.
    selected: usize,
}

/// The check that rejected a candidate that would have satisfied the condition.
#[derive(Clone, Debug)]
pub struct Explanation {
    pub check: String,
    pub kind: CheckKind,
    /// For `acyclic` and `irreflexive`: the cycle, each event (of `graph`) with the
    /// relations that lead to the next one, the last leading back to the first.
    pub cycle: Vec<(usize, String)>,
    /// For `empty`: the first pair of the check's relation (an event of a set twice); for
    /// `irreflexive`: the reflexive event, twice.
    pub pair: Option<(usize, usize)>,
    /// For `empty`: what lies between the pair, the shortest path of edges from its first
    /// event to its second through another event, each event with the relations that
    /// lead to the next one (the pair's second event ends it).
    pub between: Vec<(usize, String)>,
    pub graph: ExecGraph,
    /// The execution's final state.
    pub state: State,
}

impl Explanation {
    /// Whether something it names is no path of the graph's edges: a step of the cycle
    /// only the check's relation explains, or a pair with nothing found between.
    pub fn unexplained(&self) -> bool {
        match self.kind {
            CheckKind::Empty => {
                matches!(self.pair, Some((a, b)) if a != b && self.between.is_empty())
            }
            _ => self.cycle.is_empty() || self.cycle.iter().any(|(_, via)| via.starts_with('(')),
        }
    }
}

impl Judgement {
    /// herd's `Ok`/`No`.
    pub fn ok(&self) -> bool {
        match self.quant {
            Quantifier::Exists => self.sat > 0,
            Quantifier::NotExists => self.sat == 0,
            Quantifier::Forall => self.unsat == 0,
        }
    }
    /// herd's Observation word.
    pub fn observation(&self) -> &'static str {
        if self.sat == 0 {
            "Never"
        } else if self.unsat == 0 {
            "Always"
        } else {
            "Sometimes"
        }
    }
    /// herd's Positive/Negative witness counts (swapped for `~exists`).
    pub fn witnesses(&self) -> (usize, usize) {
        match self.quant {
            Quantifier::NotExists => (self.unsat, self.sat),
            _ => (self.sat, self.unsat),
        }
    }
}

/// One branch of the model on one candidate, as [`visit`] hands it over.
pub(crate) struct Branch<'x, 'c> {
    pub c: &'x Candidate<'c>,
    pub verdict: Verdict,
    /// The condition's proposition holds in the candidate's final state.
    pub sat: bool,
    /// The final state, over the shown locations: built when first asked for (most
    /// candidates of a big test are rejected and never need it).
    state: &'x OnceCell<State>,
    state_of: &'x dyn Fn() -> State,
    /// Which candidate this is among those judged, from 1.
    pub ordinal: usize,
    /// Renamings of this consistent execution (see [`crate::exec::symmetry`]) that it
    /// stands for too, their states recorded already by an earlier branch of the same
    /// candidate (the state does not depend on the branch): counted, not recorded again.
    pub renamed: usize,
}

impl Branch<'_, '_> {
    pub fn state(&self) -> &State {
        self.state.get_or_init(self.state_of)
    }
}

/// What a judgement cost and which shortcuts it took: beside the answer, never in it
/// (two runs that give the same answer may differ here).
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Candidates visited.
    pub candidates: usize,
    /// Candidates judged by the bound of a whole subtree of them (see
    /// [`Tuning::bound_min`]) rather than one by one.
    pub bounded: usize,
    /// Candidates never visited: they lie below a partial choice of `rf` sources that
    /// already fails a check (see [`Tuning::doomed_min`]), so none is consistent.
    pub left_out: usize,
    /// Partial executions the growing exploration built, and of those, how many it
    /// dropped because no extension passes the model's coherence or atomicity (see
    /// `exec::grow`); zero with the domain enumeration.
    pub partial: usize,
    pub dropped: usize,
    /// The condition is forbidden, the candidates satisfying it were dropped before they
    /// were complete, and none was found within [`Tuning::why_runs_max`] to
    /// explain why: there is no explanation, and no claim that no candidate satisfies it.
    pub why_left_out: bool,
    /// Most events in one candidate.
    pub events: usize,
    /// How many symmetries of the test were used (1: none; see [`Tuning::symmetry`]).
    pub symmetries: usize,
    /// What the model's fast paths did (see [`crate::cat::Stats`]).
    pub cat: crate::cat::Stats,
    pub elapsed: Duration,
}

impl Stats {
    /// Those of two parts of one judgement, together.
    fn add(&mut self, o: &Stats) {
        self.candidates += o.candidates;
        self.bounded += o.bounded;
        self.left_out += o.left_out;
        self.partial += o.partial;
        self.dropped += o.dropped;
        self.why_left_out |= o.why_left_out;
        self.events = self.events.max(o.events);
        self.cat += o.cat;
    }
}

/// Run the model on every candidate of `test` and hand each branch's verdict to `f`, until
/// it returns false. Candidates cut by the loop bound and those the `filter` excludes are not
/// judged, as in herd. Every `rf` is offered, even those the model is known to reject, and
/// each candidate is judged on its own (for the explorer, which shows every candidate).
pub(crate) fn visit(
    test: &Test,
    model: &Model,
    macros: Option<&Macros>,
    opts: &Options,
    f: &mut dyn FnMut(Branch) -> bool,
) -> Result<Visited, EngineError> {
    let p = prepare(test, model, macros, opts, true)?;
    let opts = Options {
        tuning: Tuning {
            bound_min: 0,
            doomed_min: 0,
            ..opts.tuning.clone()
        },
        ..opts.clone()
    };
    let firsts = Firsts::default();
    visit_part(&p, model, &opts, &Part::whole(&firsts), f)
}

/// Judge one test under one model.
///
/// A test with many combinations of thread runs is split by the runs of its first threads
/// into parts judged in parallel (rayon), then merged in enumeration order, so the result
/// is the one a sequential run gives.
pub fn run(
    test: &Test,
    model: &Model,
    macros: Option<&Macros>,
    opts: &Options,
) -> Result<Judgement, EngineError> {
    let pre = prepare(test, model, macros, opts, false)?;
    // Asking rayon how many workers it has starts its pool: only a big test does.
    // An early stop must be the one a sequential run makes (herd's `-nshow`).
    let sequential = opts.nshow.is_some();
    let runs = match &pre.engine {
        Engine::Domains { runs, .. } if !sequential => Some(runs),
        _ => None,
    };
    let parts = if runs.is_none_or(|r| combinations(&r.runs) < PARALLEL_MIN) {
        vec![Vec::new()]
    } else {
        let runs = runs.expect("split only with the domain enumeration");
        deep_stacked_pool();
        // The combinations judged under symmetries gather where the first threads take
        // their first runs: smaller parts keep the workers busy to the end, but not so
        // small that a subtree which may be bounded at once is split.
        let workers = rayon::current_num_threads();
        match &pre.engine {
            Engine::Domains {
                sym: Some(_),
                combiner,
                ..
            } => partition(&runs.runs, workers, PARTS_SYMMETRIC, &|d| {
                let bounded = |d| combiner.boundable(d, opts.tuning.bound_min);
                bounded(d) && !bounded(d + 1)
            }),
            _ => partition(&runs.runs, workers, PARTS, &|_| false),
        }
    };
    let stop = AtomicBool::new(false);
    let firsts = Firsts::default();
    let judge_part = |(index, prefix): (usize, &Vec<usize>)| {
        let mut j = Judgement::empty(test, model);
        let part = Part {
            prefix,
            index,
            firsts: &firsts,
        };
        let seen = visit_part(&pre, model, opts, &part, &mut |b: Branch| {
            !stop.load(Ordering::Relaxed) && {
                let go_on = j.record(b, opts, &part);
                if !go_on {
                    stop.store(true, Ordering::Relaxed);
                }
                go_on
            }
        });
        (j, seen)
    };
    let results: Vec<(Judgement, Result<Visited, EngineError>)> = if parts.len() > 1 {
        crate::workers::each_in_order(&parts, |i, p| judge_part((i, p)))
    } else {
        parts.iter().enumerate().map(judge_part).collect()
    };
    let mut j = Judgement::empty(test, model);
    let mut seen = Visited {
        symbols: pre.prog.symbols.clone(),
        cut: 0,
        stats: Stats::default(),
        grown: None,
        outgrown: false,
    };
    // A part that ran out of budget stops the others (the budget is shared): what all
    // of them judged says how far the test got.
    let mut exhausted: Option<EngineError> = None;
    for (part, r) in results {
        j.merge(part);
        let s = match r {
            // Too many candidates for the domain enumeration: grown instead.
            Ok(s) if s.outgrown => return run(test, model, macros, &grown(opts)),
            Ok(s) => s,
            Err(e) if e.exhausted.is_some() => {
                seen.stats.candidates += e.explored.candidates;
                exhausted.get_or_insert(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        seen.stats.add(&s.stats);
        seen.cut += s.cut;
        seen.grown = seen.grown.or(s.grown);
    }
    if let Some(mut e) = exhausted {
        e.explored.candidates = seen.stats.candidates;
        e.explored.states = j.states.len();
        return Err(e);
    }
    j.symbols = seen.symbols;
    j.stats = Stats {
        symmetries: match &pre.engine {
            Engine::Domains { sym: Some(s), .. } => s.elems.len(),
            _ => 1,
        },
        elapsed: pre.start.elapsed(),
        ..seen.stats
    };
    j.cut = seen.cut > 0;
    let ran: &dyn lint::Ran = match (&pre.engine, &seen.grown) {
        (Engine::Domains { runs, .. }, _) => runs,
        (Engine::Grow(_), Some(g)) => g,
        (Engine::Grow(_), None) => &crate::exec::grow::Seen::default(),
    };
    j.warnings = lint::warnings(&pre.prog, ran, j.sat + j.unsat);
    Ok(j)
}

/// `opts` exploring by growing executions.
fn grown(opts: &Options) -> Options {
    let mut o = opts.clone();
    o.tuning.exploration = crate::tuning::Exploration::Grow;
    o
}

/// Makes sure rayon's global pool, unless a caller built it already, has threads with
/// [`crate::WORKER_STACK`]: the parts of a judgement run the model there.
fn deep_stacked_pool() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = rayon::ThreadPoolBuilder::new()
            .stack_size(crate::WORKER_STACK)
            .start_handler(|_| crate::crash::guard_this_thread())
            .build_global();
    });
}

/// How many combinations of one run per thread there are (saturating).
fn combinations(runs: &[Vec<crate::sem::ThreadExec>]) -> usize {
    runs.iter()
        .try_fold(1usize, |acc, r| acc.checked_mul(r.len()))
        .unwrap_or(usize::MAX)
}

/// Fewer combinations of runs than this are judged in one piece.
const PARALLEL_MIN: usize = 64;

/// Parts per worker a test is split into...
const PARTS: usize = 8;
/// ... and when it is judged under symmetries.
const PARTS_SYMMETRIC: usize = 32;

/// Prefixes of run choices (one run for each of the first threads) that split the
/// combinations into at least `per_worker` parts per worker, unless `whole` says the parts
/// below prefixes of some length are to be kept whole (once there are two per worker); one
/// empty prefix for small tests.
fn partition(
    runs: &[Vec<crate::sem::ThreadExec>],
    workers: usize,
    per_worker: usize,
    whole: &dyn Fn(usize) -> bool,
) -> Vec<Vec<usize>> {
    if workers < 2 || combinations(runs) < PARALLEL_MIN {
        return vec![Vec::new()];
    }
    let want = per_worker * workers;
    let mut parts = vec![Vec::new()];
    for (d, r) in runs.iter().enumerate() {
        if parts.len() >= want || (parts.len() >= 2 * workers && whole(d)) {
            break;
        }
        parts = parts
            .into_iter()
            .flat_map(|p: Vec<usize>| {
                (0..r.len()).map(move |k| {
                    let mut q = p.clone();
                    q.push(k);
                    q
                })
            })
            .collect();
    }
    parts
}

impl Judgement {
    fn empty(test: &Test, model: &Model) -> Judgement {
        Judgement {
            name: test.name.clone(),
            model: model.name.clone(),
            quant: test.condition.quant,
            shown: shown_locations(test),
            states: BTreeSet::new(),
            sat: 0,
            unsat: 0,
            flags: BTreeSet::new(),
            cut: false,
            symbols: Symbols::default(),
            stats: Stats::default(),
            forbidden_by: None,
            witness: None,
            witness_state: None,
            warnings: Vec::new(),
            selected: 0,
        }
    }

    /// Takes one branch into account; false when it settles the condition and only the
    /// verdict was asked for.
    fn record(&mut self, b: Branch, opts: &Options, part: &Part) -> bool {
        match &b.verdict.failed {
            // herd never visits the executions that cannot settle the condition.
            None if opts.speedcheck != Speed::False && !settles(self.quant, b.sat) => true,
            None => {
                self.flags.extend(b.verdict.flags.iter().cloned());
                if b.sat {
                    self.sat += 1 + b.renamed;
                } else {
                    self.unsat += 1 + b.renamed;
                }
                if !self.states.contains(b.state()) {
                    self.states.insert(b.state().clone());
                }
                if b.sat && self.witness.is_none() && part.wants_witness(opts) {
                    self.witness = Some(ExecGraph::of(b.c, &b.verdict));
                    self.witness_state = Some(b.state().clone());
                    part.firsts.witness.fetch_min(part.index, Ordering::Relaxed);
                }
                if let Some((show, n)) = &opts.nshow
                    && show.selects(self.quant, b.sat, &b.verdict.flags)
                {
                    self.selected += 1 + b.renamed;
                    if self.selected >= *n {
                        return false;
                    }
                }
                opts.speedcheck != Speed::Fast
            }
            Some(f) => {
                if b.sat && self.forbidden_by.is_none() && part.wants_why(opts) {
                    self.forbidden_by = Some(explain_with(b.c, &b.verdict, f, b.state(), opts));
                    part.firsts.why.fetch_min(part.index, Ordering::Relaxed);
                }
                true
            }
        }
    }

    /// Adds a later part of the enumeration: its first witness and first forbidden
    /// execution come after ours.
    fn merge(&mut self, mut o: Judgement) {
        // A bulk merge: a ring's half a million states are not inserted one by one again.
        self.states.append(&mut o.states);
        self.sat += o.sat;
        self.unsat += o.unsat;
        self.selected += o.selected;
        self.flags.extend(o.flags);
        if self.witness.is_none() {
            self.witness = o.witness;
            self.witness_state = o.witness_state;
        }
        if self.forbidden_by.is_none() {
            self.forbidden_by = o.forbidden_by;
        }
    }
}

/// Whether one execution with this truth value settles the condition.
fn settles(q: Quantifier, sat: bool) -> bool {
    match q {
        Quantifier::Exists | Quantifier::NotExists => sat,
        Quantifier::Forall => !sat,
    }
}

/// A location's final value in a candidate.
pub(crate) fn lookup(p: &Program, c: &Candidate, l: &LocRef) -> Value {
    match l {
        LocRef::Reg { proc, reg } => {
            let Some(t) = p.test.threads.iter().position(|t| t.proc() == *proc) else {
                return Value::ZERO;
            };
            reg_value(p, c.runs[t], t, reg)
        }
        LocRef::Global(g) if g.starts_with("fault(") => {
            Value::Int(fault_at(p, c, g).is_some() as i64)
        }
        LocRef::Global(g) => {
            let Some(id) = p.symbols.get(g) else {
                return Value::ZERO;
            };
            c.final_mem
                .iter()
                .find(|(l, _)| *l == id)
                .map(|(_, v)| *v)
                .unwrap_or(p.init_mem[id.0 as usize])
        }
    }
}

/// A register's final value in `run` of thread `t`: its initial value when the run never
/// writes it.
fn reg_value(p: &Program, run: &crate::sem::ThreadExec, t: usize, reg: &str) -> Value {
    run.regs
        .get(reg)
        .or_else(|| p.thread_regs[t].get(reg))
        .copied()
        .unwrap_or(Value::ZERO)
}

/// The virtual location a fault atom's thread faulted on at its label, if it did and
/// the location is the one the atom names (virtual-memory variant).
fn fault_at(p: &Program, c: &Candidate, g: &str) -> Option<Value> {
    let (proc, label, loc) = crate::sem::vmsa::fault_atom(g)?;
    let t = p.test.threads.iter().position(|t| t.proc() == proc)?;
    let v = *c.runs[t].regs.get(&crate::sem::vmsa::fault_key(label))?;
    match (loc, v) {
        (Some(x), Value::Addr(l)) if p.symbols.name(l) != x => None,
        _ => Some(v),
    }
}

/// A location's value as a final state shows it: a fault atom holds the faulting
/// location (or 0), which the printer spells herd's way.
fn state_value(p: &Program, c: &Candidate, l: &LocRef) -> Value {
    match l {
        LocRef::Global(g) if g.starts_with("fault(") => fault_at(p, c, g).unwrap_or(Value::ZERO),
        _ => lookup(p, c, l),
    }
}

/// Name what broke a check in base edges. A step of a forbidding cycle that is not a
/// base relation is expanded into the shortest path of base edges (po, rf, co, fr,
/// dependencies) between its ends, so the cycle reads like herd's `Fre PodWW Rfe ...`; an
/// irreflexive check's event into the shortest cycle through it; an empty check's pair
/// into the events between its two (the LKMM's `atomic`: the read and the write of one
/// atomic operation, and another thread's write `fr`-after the one and `co`-before the
/// other).
pub(crate) fn explain(
    c: &Candidate,
    v: &Verdict,
    f: &crate::cat::Failure,
    state: &State,
) -> Explanation {
    let graph = ExecGraph::of(c, v);
    let (cycle, between) = match f.kind {
        CheckKind::Empty => {
            let between = match f.pair {
                Some((a, b)) if a != b => graph.path_between(a, b).unwrap_or_default(),
                _ => Vec::new(),
            };
            (Vec::new(), between)
        }
        _ => (
            graph.expand_cycle(f.cycle.as_deref().unwrap_or_default(), &f.name),
            Vec::new(),
        ),
    };
    Explanation {
        check: f.name.clone(),
        kind: f.kind,
        cycle,
        pair: f.pair,
        between,
        graph,
        state: state.clone(),
    }
}

/// The most coherence orders the [`Explainer`] builds at one `with` (it takes each order
/// on its own, unpruned): 7!. A 3-process lock emulation's lock word has 6! orders; a
/// 4-process one's 8! would cost more than judging the test. Past it the judging
/// model's reason stays.
const EXPLAIN_ORDERS_MAX: u64 = 5_040;

/// [`explain`], then, when the reason names what no base edges explain (a shortcut of the
/// model's: a step only its relation gives, before any coherence order is chosen), a
/// failure of the [`Explainer`] on the same candidate that is explained: of the check the
/// shortcut anticipated (the same name) if some branch fails it, else the first.
pub(crate) fn explain_with(
    c: &Candidate,
    v: &Verdict,
    f: &crate::cat::Failure,
    state: &State,
    opts: &Options,
) -> Explanation {
    let first = explain(c, v, f, state);
    let Some(x) = opts.explainer.as_ref().filter(|_| first.unexplained()) else {
        return first;
    };
    let Some(model) = x.model() else {
        return first;
    };
    let (mut same, mut other) = (None, None);
    // Each coherence order's own failure, where pruning reports the orders it drops as
    // one; from a plan even under `--reference` (an explanation, not the answer: the
    // explaining model tries every coherence order, which the reference builds whole).
    let tuning = Tuning {
        prune_orders: false,
        orders_max: EXPLAIN_ORDERS_MAX,
        ..Tuning::default()
    };
    let checker = Checker::new(model, &tuning);
    let ran = checker.verdicts(&c.prims, c.shapes, true, &opts.budget, &mut |v: Verdict| {
        let Some(g) = &v.failed else { return true };
        let e = explain(c, &v, g, state);
        if e.unexplained() {
            return true;
        }
        if g.name == f.name {
            same = Some(e);
            return false;
        }
        other.get_or_insert(e);
        true
    });
    match (ran, same.or(other)) {
        (Ok(()), Some(e)) => e,
        _ => first,
    }
}

/// The locations shown in each final state: `locations [...]` and the condition's, with
/// registers first (by thread, then register in herd's order for the architecture) and
/// memory after, as herd lists them.
pub fn shown_locations(test: &Test) -> Vec<LocRef> {
    let mut set: BTreeMap<(u8, u32, u32, String), LocRef> = BTreeMap::new();
    let mut add = |l: &LocRef| {
        let key = match l {
            LocRef::Reg { proc, reg } => (0, *proc, reg_rank(test.arch, reg), reg.clone()),
            LocRef::Global(g) => (1, 0, 0, g.clone()),
        };
        set.insert(key, l.clone());
    };
    for l in &test.locations {
        add(l);
    }
    crate::exec::program::prop_locs(&test.condition.prop, &mut add);
    set.into_values().collect()
}

/// Where herd's `reg_compare` puts a register among its architecture's: by number for
/// AArch64 (`X7` before `X10`, the zero register first) and PPC (`r9` before `r10`), in
/// the order of herd's register type for X86 (`EAX EBX ECX EDX ESI EDI ...`) and X86_64
/// (`ax bx cx dx si di bp sp r8`..`r15`, whatever the width); C's registers and any other
/// compare by name (rank 0 for all, then the name).
fn reg_rank(arch: Arch, reg: &str) -> u32 {
    const OTHER: u32 = 1000;
    let num = |r: &str, prefixes: &[&str]| {
        prefixes
            .iter()
            .find_map(|p| r.strip_prefix(p).and_then(|n| n.parse::<u32>().ok()))
    };
    match arch {
        Arch::C => 0,
        Arch::AArch64 => {
            let up = reg.to_ascii_uppercase();
            if matches!(up.as_str(), "XZR" | "WZR") {
                0
            } else {
                num(&up, &["X", "W"]).map_or(OTHER, |n| n + 1)
            }
        }
        Arch::PPC => num(&reg.to_ascii_lowercase(), &["r"]).unwrap_or(OTHER),
        Arch::X86 => {
            const REGS: [&str; 9] = [
                "EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP", "EIP",
            ];
            let up = reg.to_ascii_uppercase();
            REGS.iter()
                .position(|r| *r == up)
                .map_or(OTHER, |k| k as u32)
        }
        Arch::X86_64 => {
            let r = reg.trim_start_matches('%').to_ascii_lowercase();
            const BASES: [&str; 8] = ["ax", "bx", "cx", "dx", "si", "di", "bp", "sp"];
            if let Some(n) = r
                .strip_prefix('r')
                .map(|n| n.trim_end_matches(['d', 'w', 'b']))
                .and_then(|n| n.parse::<u32>().ok())
            {
                return n;
            }
            let base = r
                .trim_start_matches(['r', 'e'])
                .trim_end_matches(['l', 'h']);
            let base = match base {
                "a" => "ax",
                "b" => "bx",
                "c" => "cx",
                "d" => "dx",
                "si" | "di" | "bp" | "sp" => base,
                b => b,
            };
            BASES
                .iter()
                .position(|b| *b == base)
                .map_or(OTHER, |k| k as u32)
        }
    }
}
