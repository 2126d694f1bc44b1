//! Every shortcut the engine takes, and when: one value, so that tests can force each of
//! them on (or off) and check that the answers stay the reference evaluator's.

/// When the fast paths are taken. [`Tuning::default`] is what pays on the corpus and the
/// big tests; [`Tuning::reference`] takes none; [`Tuning::eager`] takes every one at its
/// smallest size (for tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Compile the model into a plan per shape of thread runs (`cat::plan`); else the
    /// reference evaluator judges every candidate.
    pub plans: bool,
    /// Subtrees of at least this many combinations of runs, when the runs still to
    /// choose have one shape per thread, are first judged at once from above
    /// (`cat::plan::upper`); 0: never. A bound costs a few candidates' time.
    pub bound_min: usize,
    /// In combinations of runs with at least this many candidates, a partial choice of
    /// `rf` that already fails a check from below (`cat::plan::lower`) leaves out the
    /// candidates below it; 0: never. It costs about a candidate's time, which only pays
    /// in big ones.
    pub doomed_min: usize,
    /// Judge one combination of runs per orbit of the test's symmetries
    /// (`exec::symmetry`) and count the others as its renamings.
    pub symmetry: bool,
    /// Leave out what the model or the test rejects whatever else is chosen: a read
    /// offered a write after it in program order when the model runs SC per location in
    /// every branch (herd's `-optace`), a combination of runs whose registers already
    /// falsify the test's `filter`.
    pub early_rejects: bool,
    /// Drop the coherence orders (and other choices of a `with`) that a later check must
    /// reject before their branches run, reporting them as one failure (`cat::prune`).
    pub prune_orders: bool,
    /// Prefixes of coherence orders tested at one `with` site before their worth is
    /// judged (`cat::prune`); 0: test every prefix, always.
    pub prefix_trial: u32,
    /// Shapes whose plans and buffers are kept at once (the enumeration visits one shape
    /// at a time, and comes back to a few).
    pub shapes_kept: usize,
    /// Most branches a bound from above takes at one `with`, and most ways it tries for
    /// the reads of one location.
    pub bounded_branches: usize,
    /// Most coherence orders one `with` may build (the product over its locations); 0: no
    /// limit. Past it the run stops, undetermined (`Exhausted::Size`). Only the explainer
    /// sets it: it takes every order unpruned, and its explanation is a best effort (a
    /// judgement needs every order, and its budget bounds it).
    pub orders_max: u64,
    /// How candidates are enumerated.
    pub exploration: Exploration,
    /// With [`Exploration::Auto`]: a test one of whose threads has more runs than this,
    /// over every value its reads may take, is explored by growing its executions.
    pub domain_runs_max: usize,
    /// With [`Exploration::Auto`]: a test the domain enumeration took (few runs) is grown
    /// instead once it has visited this many candidates (its combinations and `rf`
    /// choices are many: what it judged so far is dropped, at about a second's cost).
    pub domain_candidates_max: usize,
    /// When the growing exploration dropped the candidates that would explain a forbidden
    /// outcome (for output that shows why): most runs of a thread the domain enumeration
    /// may make to find one; past this, the outcome stays unexplained.
    pub why_runs_max: usize,
}

/// How candidates are enumerated (see ARCHITECTURE.md, "Exploring executions").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exploration {
    /// Every run of every thread over the values its reads may take, then every
    /// combination and `rf` (`exec::threads`, `exec::candidate`): the reference, and the
    /// fastest on tests whose threads have few runs (symmetries, bounds of subtrees).
    Domains,
    /// Executions grown read by read, each read taking its value from the write it
    /// reads from (`exec::grow`).
    Grow,
    /// `Domains` unless a thread has more than [`Tuning::domain_runs_max`] runs, then
    /// `Grow` (where the test allows it).
    Auto,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            plans: true,
            bound_min: 64,
            doomed_min: 256,
            symmetry: true,
            early_rejects: true,
            prune_orders: true,
            prefix_trial: 128,
            shapes_kept: 4,
            bounded_branches: 64,
            orders_max: 0,
            exploration: Exploration::Auto,
            domain_runs_max: 2_000,
            domain_candidates_max: 1_000_000,
            why_runs_max: 20_000,
        }
    }
}

impl Tuning {
    /// Every fast path off: each candidate judged by the reference evaluator, every `rf`
    /// offered, no symmetry.
    pub fn reference() -> Tuning {
        Tuning {
            plans: false,
            bound_min: 0,
            doomed_min: 0,
            symmetry: false,
            early_rejects: false,
            prune_orders: false,
            exploration: Exploration::Domains,
            ..Tuning::default()
        }
    }

    /// Every fast path on at its smallest size: bounds and cuts wherever they may apply,
    /// every prefix of every order tested, one shape kept.
    pub fn eager() -> Tuning {
        Tuning {
            plans: true,
            bound_min: 1,
            doomed_min: 1,
            symmetry: true,
            early_rejects: true,
            prune_orders: true,
            prefix_trial: 0,
            shapes_kept: 1,
            bounded_branches: 64,
            orders_max: 0,
            exploration: Exploration::Auto,
            domain_runs_max: 2_000,
            domain_candidates_max: 1_000_000,
            why_runs_max: 20_000,
        }
    }
}
