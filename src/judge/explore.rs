//! Every (candidate, verdict) pair of a test, kept for browsing: where `judge` folds the
//! candidates into herd's summary, this keeps each one's graph, final state and verdict so
//! that an engineer can see how an outcome is reached or why it is rejected.

use super::graph::ExecGraph;
use super::{Branch, Explanation, Options, State, explain, explain_with, visit};
use crate::cat::CheckKind;
use crate::cat::Model;
use crate::exec::EngineError;
use crate::litmus::ast::{LocRef, Test};
use crate::sem::{Symbols, c::Macros};
use std::collections::{BTreeMap, BTreeSet};

/// One candidate execution under one branch of the model.
#[derive(Clone, Debug)]
pub struct ExecRecord {
    /// Which candidate (in visiting order) this is; a model that enumerates choices of its
    /// own (`co`, ...) gives several records per candidate. 0: the judge's own execution
    /// (its witness, or the one whose rejection explains a forbidden outcome), found by an
    /// enumeration with shortcuts, so without a place in this one.
    pub candidate: usize,
    pub state: State,
    /// The condition's proposition holds in the final state.
    pub sat: bool,
    /// Flags the model raised (consistent executions only, as herd).
    pub flags: Vec<String>,
    /// `None`: every check passed.
    pub rejected: Option<Rejection>,
    pub graph: ExecGraph,
}

/// The check that rejected an execution, and what broke it in base edges (see
/// [`super::Explanation`]).
#[derive(Clone, Debug)]
pub struct Rejection {
    pub check: String,
    pub kind: CheckKind,
    /// Each event of the cycle with the relations leading to the next one; empty for a
    /// check without a cycle (emptiness).
    pub cycle: Vec<(usize, String)>,
    /// The offending pair of an `empty` check (an irreflexive check's event twice).
    pub pair: Option<(usize, usize)>,
    /// The events between the pair (see [`super::Explanation::between`]).
    pub between: Vec<(usize, String)>,
}

impl Rejection {
    fn of(e: Explanation) -> (Rejection, ExecGraph) {
        (
            Rejection {
                check: e.check,
                kind: e.kind,
                cycle: e.cycle,
                pair: e.pair,
                between: e.between,
            },
            e.graph,
        )
    }

    /// The edges to draw bold: the cycle's, or the path between the pair.
    pub fn highlight(&self) -> Vec<(usize, usize)> {
        let mut v = ExecGraph::cycle_edges(&self.cycle);
        if let (Some((_, b)), false) = (self.pair, self.between.is_empty()) {
            for (k, (a, _)) in self.between.iter().enumerate() {
                let next = self.between.get(k + 1).map_or(b, |s| s.0);
                v.push((*a, next));
            }
        }
        v
    }
}

impl ExecRecord {
    pub fn consistent(&self) -> bool {
        self.rejected.is_none()
    }

    /// Whether this is the judge's own execution (see [`ExecRecord::candidate`]).
    pub fn from_judge(&self) -> bool {
        self.candidate == 0
    }

    /// The execution the judgement `j` answers with, if it has one: its witness when the
    /// outcome is reached, else the execution whose rejection explains why it is not.
    pub fn of_judgement(j: &super::Judgement) -> Option<ExecRecord> {
        if let (Some(g), Some(state)) = (&j.witness, &j.witness_state) {
            return Some(ExecRecord {
                candidate: 0,
                state: state.clone(),
                sat: true,
                flags: Vec::new(),
                rejected: None,
                graph: g.clone(),
            });
        }
        let e = j.forbidden_by.clone()?;
        let state = e.state.clone();
        let (rejected, graph) = Rejection::of(e);
        Some(ExecRecord {
            candidate: 0,
            state,
            sat: true,
            flags: Vec::new(),
            rejected: Some(rejected),
            graph,
        })
    }
}

/// The executions of a test, in the order `judge` visits them.
#[derive(Clone, Debug)]
pub struct Exploration {
    pub records: Vec<ExecRecord>,
    /// `false` when `limit` stopped the enumeration early.
    pub complete: bool,
    /// Candidates cut off by the unrolling bound (never judged, as herd's `Loop`).
    pub cut: usize,
    pub symbols: Symbols,
    /// The locations of the final states.
    pub shown: Vec<LocRef>,
}

impl Exploration {
    /// A final state as herd prints it: `0:r0=1; [x]=2;`.
    pub fn show_state(&self, s: &State) -> String {
        crate::report::herd::show_values(&self.shown, &self.symbols, s)
    }
}

/// Run the model on the candidates of `test` and keep up to `limit` executions, rejected
/// ones included (those that the test's `filter` excludes are skipped, as in `judge`).
pub fn executions(
    test: &Test,
    model: &Model,
    macros: Option<&Macros>,
    opts: &Options,
    limit: usize,
) -> Result<Exploration, EngineError> {
    selected(test, model, macros, opts, &|_| true, limit)
}

/// The consistent executions (in visiting order) that `show` selects, at most `limit`:
/// the pictures herd's `-show` and `-nshow` ask for.
pub fn shown(
    test: &Test,
    model: &Model,
    macros: Option<&Macros>,
    opts: &Options,
    show: &super::Show,
    limit: usize,
) -> Result<Exploration, EngineError> {
    let q = test.condition.quant;
    let keep = |b: &Branch| b.verdict.failed.is_none() && show.selects(q, b.sat, &b.verdict.flags);
    selected(test, model, macros, opts, &keep, limit)
}

/// The record of one branch.
fn record(b: &Branch, opts: &Options) -> ExecRecord {
    let (graph, rejected) = match &b.verdict.failed {
        None => (ExecGraph::of(b.c, &b.verdict), None),
        Some(f) => {
            // Only an execution satisfying the condition is worth the explaining model's
            // run (see `Explainer`): it says why the outcome is forbidden.
            let e = match b.sat {
                true => explain_with(b.c, &b.verdict, f, b.state(), opts),
                false => explain(b.c, &b.verdict, f, b.state()),
            };
            let (r, g) = Rejection::of(e);
            (g, Some(r))
        }
    };
    ExecRecord {
        candidate: b.ordinal,
        state: b.state().clone(),
        sat: b.sat,
        flags: if rejected.is_none() {
            b.verdict.flags.clone()
        } else {
            Vec::new()
        },
        rejected,
        graph,
    }
}

/// [`executions`] of the branches `keep` keeps.
fn selected(
    test: &Test,
    model: &Model,
    macros: Option<&Macros>,
    opts: &Options,
    keep: &dyn Fn(&Branch) -> bool,
    limit: usize,
) -> Result<Exploration, EngineError> {
    let mut records = Vec::new();
    let mut complete = true;
    let seen = visit(test, model, macros, opts, &mut |b: Branch| {
        if !keep(&b) {
            return true;
        }
        if records.len() >= limit {
            complete = false;
            return false;
        }
        records.push(record(&b, opts));
        true
    })?;
    Ok(Exploration {
        records,
        complete,
        cut: seen.cut,
        symbols: seen.symbols,
        shown: super::shown_locations(test),
    })
}

/// How a [`listing`] ended.
#[derive(Clone, Debug)]
pub struct Listed {
    /// Every candidate was visited.
    pub complete: bool,
    /// Candidates cut off by the unrolling bound.
    pub cut: usize,
    pub symbols: Symbols,
    /// Candidates visited after the first `limit` executions, in search of one that
    /// satisfies the condition.
    pub searched: usize,
    /// Whether that search found one.
    pub found: bool,
}

/// The explorer's enumeration: the first `limit` executions in visiting order, each
/// handed to `sink` as it is made (which may stop the listing by returning false); past
/// them, when `none_sat_yet` is still true and `search` is set, the visit goes on until
/// an execution that satisfies the condition, which is handed over too, so that the cap
/// never hides the executions the question is about. Candidates are counted in
/// `opts.progress` as they are visited.
pub fn listing(
    test: &Test,
    model: &Model,
    macros: Option<&Macros>,
    opts: &Options,
    limit: usize,
    search: bool,
    sink: &mut dyn FnMut(ExecRecord) -> bool,
) -> Result<Listed, EngineError> {
    let mut kept = 0usize;
    let mut any_sat = false;
    let mut complete = true;
    let mut searched = 0usize;
    let mut last = 0usize;
    let mut found = false;
    let seen = visit(test, model, macros, opts, &mut |b: Branch| {
        if kept < limit {
            kept += 1;
            any_sat |= b.sat;
            last = b.ordinal;
            return sink(record(&b, opts));
        }
        if !search || any_sat {
            complete = false;
            return false;
        }
        searched = b.ordinal - last;
        if !b.sat {
            return true;
        }
        found = true;
        complete = false;
        sink(record(&b, opts));
        false
    })?;
    Ok(Listed {
        complete,
        cut: seen.cut,
        symbols: seen.symbols,
        searched,
        found,
    })
}

/// The other model of [`rejections`]: the one that allows the states.
pub struct Allowing<'a> {
    pub model: &'a Model,
    pub macros: Option<&'a Macros>,
}

/// Why a final state is none of a model's.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejected {
    /// The checks that reject the executions, each with how many it rejects, in the order
    /// first met.
    pub checks: Vec<(String, usize)>,
    /// Whether these are the executions the allowing model allows (the same candidate,
    /// and the same coherence order when the check came after choosing one); else they
    /// are every execution reaching the state, none of them one the other allows.
    pub matched: bool,
}

/// Why each of `states` (final states as [`crate::snapshot::state`] spells them) is no
/// final state of `test` under `model`, when `allowing` reaches it: the checks that reject
/// the executions `allowing` allows, or, when none of them can be told (another
/// enumeration of candidates), every execution reaching it. A state no candidate reaches
/// has no entry: it is impossible before any axiom.
/// A relation's pairs of event indices (a coherence order).
type Pairs = Vec<(usize, usize)>;

pub fn rejections(
    test: &Test,
    model: &Model,
    macros: Option<&Macros>,
    opts: &Options,
    states: &BTreeSet<String>,
    allowing: Option<Allowing>,
) -> Result<BTreeMap<String, Rejected>, EngineError> {
    let shown = super::shown_locations(test);
    let printer = crate::report::herd::StatePrinter::new(&shown);
    let text = |b: &Branch| {
        let mut t = String::new();
        printer.write(&mut t, b.c.prims.symbols, b.state());
        crate::snapshot::state(&t)
    };
    let co = |b: &Branch| -> Option<Pairs> { b.verdict.co.as_ref().map(|r| r.pairs().collect()) };
    // The allowing model's executions that reach the states: candidate → its orders.
    let mut allowed: BTreeMap<usize, BTreeSet<Option<Pairs>>> = BTreeMap::new();
    if let Some(a) = &allowing {
        visit(test, a.model, a.macros, opts, &mut |b: Branch| {
            if b.verdict.failed.is_none() && states.contains(&text(&b)) {
                allowed.entry(b.ordinal).or_default().insert(co(&b));
            }
            true
        })?;
    }
    let count = |checks: &mut Vec<(String, usize)>, name: &str| match checks
        .iter_mut()
        .find(|(c, _)| c == name)
    {
        Some((_, n)) => *n += 1,
        None => checks.push((name.to_string(), 1)),
    };
    let mut all: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
    let mut matched: BTreeMap<String, Vec<(String, usize)>> = BTreeMap::new();
    visit(test, model, macros, opts, &mut |b: Branch| {
        if let Some(f) = &b.verdict.failed {
            let t = text(&b);
            if states.contains(&t) {
                // Rejected before choosing an order, or with the allowed one.
                let same = allowed.get(&b.ordinal).is_some_and(|orders| match co(&b) {
                    None => true,
                    order => orders.contains(&order),
                });
                if same {
                    count(matched.entry(t.clone()).or_default(), &f.name);
                }
                count(all.entry(t).or_default(), &f.name);
            }
        }
        true
    })?;
    Ok(all
        .into_iter()
        .map(|(s, checks)| {
            let r = match matched.remove(&s) {
                Some(m) => Rejected {
                    checks: m,
                    matched: true,
                },
                None => Rejected {
                    checks,
                    matched: false,
                },
            };
            (s, r)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge;
    use crate::model::load_shipped;

    /// The suite's message-passing test (PPC, lwsync and an address dependency).
    const MP: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/litmus/classic/PPC/MP+lwsync+addr.litmus"
    ));

    fn explore(src: &str, limit: usize) -> (Exploration, crate::judge::Judgement) {
        let t = crate::litmus::parse(src).expect("parses");
        let m = load_shipped("power", &Default::default()).expect("model");
        let o = Options {
            evidence: true,
            ..Options::default()
        };
        let x = executions(&t, &m.model, None, &o, limit).expect("runs");
        let j = judge::run(&t, &m.model, None, &o).expect("judges");
        (x, j)
    }

    #[test]
    fn agrees_with_judge() {
        let (x, j) = explore(MP, usize::MAX);
        assert!(x.complete);
        let ok: Vec<_> = x.records.iter().filter(|r| r.consistent()).collect();
        assert_eq!(ok.iter().filter(|r| r.sat).count(), j.sat);
        assert_eq!(ok.iter().filter(|r| !r.sat).count(), j.unsat);
        let states: std::collections::BTreeSet<_> = ok.iter().map(|r| r.state.clone()).collect();
        assert_eq!(states, j.states);
    }

    #[test]
    fn the_forbidden_outcome_is_rejected_with_a_cycle() {
        let (x, j) = explore(MP, usize::MAX);
        let bad: Vec<_> = x.records.iter().filter(|r| r.sat).collect();
        assert!(!bad.is_empty());
        let want = j.forbidden_by.expect("forbidden");
        for r in bad {
            let why = r.rejected.as_ref().expect("rejected");
            assert_eq!(why.check, want.check);
            assert!(why.cycle.len() >= 2);
            // Each step names an edge of this execution's graph.
            for (k, (a, rel)) in why.cycle.iter().enumerate() {
                let b = why.cycle[(k + 1) % why.cycle.len()].0;
                let first = rel.split('|').next().unwrap();
                assert!(r.graph.between(*a, b).contains(&first), "{a}->{b} {rel}");
            }
        }
        assert_eq!(
            x.show_state(&x.records[0].state).matches(';').count(),
            x.records[0].state.len()
        );
    }

    #[test]
    fn rejections_name_the_check_for_each_forbidden_state() {
        let t = crate::litmus::parse(MP).expect("parses");
        let m = load_shipped("power", &Default::default()).expect("model");
        let o = Options {
            evidence: true,
            ..Options::default()
        };
        let j = judge::run(&t, &m.model, None, &o).expect("judges");
        let want = j.forbidden_by.expect("forbidden").check;
        // The states satisfying the condition are the forbidden ones.
        let (x, _) = explore(MP, usize::MAX);
        let forbidden: BTreeSet<String> = x
            .records
            .iter()
            .filter(|r| r.sat)
            .map(|r| crate::snapshot::state(&x.show_state(&r.state)))
            .collect();
        assert_eq!(forbidden.len(), 1);
        let state = forbidden.iter().next().unwrap();
        let why = rejections(&t, &m.model, None, &o, &forbidden, None).expect("runs");
        assert_eq!(why[state].checks[0].0, want);
        assert!(!why[state].matched);
        let unreachable: BTreeSet<String> = ["1:r0=7; 1:r2=7;".to_string()].into();
        let none = rejections(&t, &m.model, None, &o, &unreachable, None).unwrap();
        assert!(none.is_empty());
        // Against a model without the observation axiom, which allows the state, the
        // executions it allows are the ones named, each rejected by observation.
        let text = crate::cat::library::get("power.cat").unwrap().1;
        let axiom = "irreflexive fre; prop; hb* as observation";
        assert!(text.contains(axiom));
        let opts = crate::cat::ModelOptions {
            cat: "weaker.cat".into(),
            ..Default::default()
        };
        let weaker = crate::cat::Model::from_source(&text.replace(axiom, ""), &opts).unwrap();
        let w = judge::run(&t, &weaker, None, &o).expect("judges");
        assert!(w.sat > 0, "the weaker model allows the outcome");
        let allowing = Allowing {
            model: &weaker,
            macros: None,
        };
        let why = rejections(&t, &m.model, None, &o, &forbidden, Some(allowing)).unwrap();
        assert!(why[state].matched);
        assert_eq!(why[state].checks, [(want, w.sat)]);
    }

    #[test]
    fn limit_stops_early() {
        let (x, _) = explore(MP, 2);
        assert_eq!(x.records.len(), 2);
        assert!(!x.complete);
    }
}
