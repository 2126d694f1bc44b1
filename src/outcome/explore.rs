//! Every (candidate, verdict) pair of a test, kept for browsing: where `judge` folds the
//! candidates into herd's summary, this keeps each one's graph, final state and verdict so
//! that an engineer can see how an outcome is reached or why it is rejected.

use super::graph::ExecGraph;
use super::{Branch, Options, State, explain, visit};
use crate::cat::Model;
use crate::exec::EngineError;
use crate::litmus::ast::{LocRef, Test};
use crate::sem::{Symbols, c::Macros};

/// One candidate execution under one branch of the model.
#[derive(Clone, Debug)]
pub struct ExecRecord {
    /// Which candidate (in visiting order) this is; a model that enumerates choices of its
    /// own (`co`, ...) gives several records per candidate.
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

/// The check that rejected an execution, and its cycle in base edges (see `explain`).
#[derive(Clone, Debug)]
pub struct Rejection {
    pub check: String,
    /// Each event of the cycle with the relations leading to the next one; empty for a
    /// check without a cycle (emptiness, irreflexivity without a witness).
    pub cycle: Vec<(usize, String)>,
}

impl ExecRecord {
    pub fn consistent(&self) -> bool {
        self.rejected.is_none()
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
        let (graph, rejected) = match &b.verdict.failed {
            None => (ExecGraph::of(b.c, &b.verdict), None),
            Some(f) => {
                let e = explain(b.c, &b.verdict, f);
                let r = Rejection {
                    check: e.check,
                    cycle: e.cycle,
                };
                (e.graph, Some(r))
            }
        };
        records.push(ExecRecord {
            candidate: b.ordinal,
            state: b.state().clone(),
            sat: b.sat,
            flags: if rejected.is_none() {
                b.verdict.flags
            } else {
                Vec::new()
            },
            rejected,
            graph,
        });
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::load_shipped;
    use crate::outcome::judge;

    /// The suite's message-passing test (PPC, lwsync and an address dependency).
    const MP: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/litmus/classic/PPC/MP+lwsync+addr.litmus"
    ));

    fn explore(src: &str, limit: usize) -> (Exploration, crate::outcome::Judgement) {
        let t = crate::litmus::parse(src).expect("parses");
        let m = load_shipped("power", &Default::default()).expect("model");
        let o = Options::default();
        let x = executions(&t, &m.model, None, &o, limit).expect("runs");
        let j = judge(&t, &m.model, None, &o).expect("judges");
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
    fn limit_stops_early() {
        let (x, _) = explore(MP, 2);
        assert_eq!(x.records.len(), 2);
        assert!(!x.complete);
    }
}
