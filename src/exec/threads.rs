//! Every run of every thread.
//!
//! A read may return any value its location can hold; which values those are depends on
//! what the threads write, which depends on what they read. We iterate from the initial
//! values to a fixpoint: each round runs every thread with every read value known so far and
//! adds the values written. A value reachable in a real execution comes from a chain of at
//! most one write per write event, so the number of rounds is bounded by the writes seen.

use super::program::{EngineError, Program};
use crate::budget::{Budget, Exhausted};
use crate::sem::{Domain, EventData, Kind, LocId, Stop, ThreadExec, Tracer, Value};
use std::collections::BTreeMap;

/// Values each location may hold.
#[derive(Clone, Debug, Default)]
pub struct Domains {
    vals: Vec<Vec<Value>>,
}

impl Domain for Domains {
    fn values(&self, loc: LocId) -> &[Value] {
        self.vals
            .get(loc.0 as usize)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }
}

impl Domains {
    fn add(&mut self, loc: LocId, v: Value) -> bool {
        let d = &mut self.vals[loc.0 as usize];
        match d.binary_search(&v) {
            Ok(_) => false,
            Err(pos) => {
                d.insert(pos, v);
                true
            }
        }
    }
}

/// The runs of each thread, and whether a loop bound cut some off.
pub struct ThreadRuns {
    pub runs: Vec<Vec<ThreadExec>>,
    /// Per thread and run: its shape, the same for runs with the same events, relations
    /// and cut that differ only in the values they read or write. Candidates whose runs
    /// have the same shapes differ, for a model, only in rf, the final writes and values.
    pub shapes: Vec<Vec<u32>>,
    pub cut: bool,
    /// The first run dropped for undefined behaviour (its thread's proc and why), if any.
    pub undefined: Option<(u32, crate::sem::SemError)>,
}

/// Numbers the distinct shapes of one thread's runs (see [`ThreadRuns::shapes`]).
fn shapes_of(runs: &[ThreadExec]) -> Vec<u32> {
    type Shape<'a> = (
        Vec<(Kind, Option<Value>, &'a [String], u32)>,
        &'a [(&'static str, u32, u32)],
        bool,
    );
    let mut ids: rustc_hash::FxHashMap<Shape, u32> = Default::default();
    runs.iter()
        .map(|r| {
            let key: Shape = (
                r.events
                    .iter()
                    .map(|e| (e.kind, e.loc, &e.tags[..], e.instr))
                    .collect(),
                &r.rels,
                r.cut,
            );
            let next = ids.len() as u32;
            *ids.entry(key).or_insert(next)
        })
        .collect()
}

/// Most values one location may take before we give up.
const MAX_DOMAIN: usize = 1024;
/// Most runs of one thread.
const MAX_RUNS: usize = 200_000;

pub fn enumerate(p: &Program, unroll: u32, budget: &Budget) -> Result<ThreadRuns, EngineError> {
    enumerate_at_most(p, unroll, budget, MAX_RUNS)
}

/// [`enumerate`], giving up (`Exhausted::Size`) past `max_runs` runs of one thread.
pub fn enumerate_at_most(
    p: &Program,
    unroll: u32,
    budget: &Budget,
    max_runs: usize,
) -> Result<ThreadRuns, EngineError> {
    let mut dom = Domains {
        vals: p.init_mem.iter().map(|&v| vec![v]).collect(),
    };
    let mut rounds = 0usize;
    loop {
        rounds += 1;
        let mut runs = Vec::with_capacity(p.test.threads.len());
        let mut cut = false;
        let mut extra = Vec::new();
        let mut undefined = None;
        for idx in 0..p.test.threads.len() {
            let r = runs_of(p, idx, &dom, unroll, budget, max_runs)?;
            cut |= r.cut;
            if undefined.is_none() {
                undefined = r.undefined.map(|e| (p.test.threads[idx].proc(), e));
            }
            extra.extend(r.dead_writes);
            runs.push(r.runs);
        }
        // Most writes one candidate can have: a value needs at most that many rounds.
        let writes: usize = runs
            .iter()
            .map(|rs| {
                rs.iter()
                    .map(|r| r.events.iter().filter(|e| e.kind == Kind::Write).count())
                    .max()
                    .unwrap_or(0)
            })
            .sum();
        let mut grew = false;
        let found = runs.iter().flatten().flat_map(|r| writes_of(&r.events));
        for (l, v) in found.chain(extra) {
            grew |= dom.add(l, v);
            if dom.vals[l.0 as usize].len() > MAX_DOMAIN {
                return Err(EngineError::exhausted(Exhausted::Size(format!(
                    "location {} may hold more than {MAX_DOMAIN} values",
                    p.symbols.name(l)
                ))));
            }
        }
        if !grew || rounds > writes {
            let shapes = runs.iter().map(|rs| shapes_of(rs)).collect();
            return Ok(ThreadRuns {
                runs,
                shapes,
                cut,
                undefined,
            });
        }
    }
}

/// Explore every choice sequence of one thread, depth first.
fn runs_of(
    p: &Program,
    idx: usize,
    dom: &Domains,
    unroll: u32,
    budget: &Budget,
    max_runs: usize,
) -> Result<Runs, EngineError> {
    let mut out = Vec::new();
    let mut dead_writes = Vec::new();
    let mut undefined = None;
    let mut cut = false;
    let mut stack: Vec<Vec<usize>> = vec![Vec::new()];
    while let Some(prefix) = stack.pop() {
        budget.check().map_err(EngineError::exhausted)?;
        let mut t = Tracer::new(&prefix, dom, &p.symbols, unroll);
        match p.run_thread(idx, &mut t) {
            Ok(regs) => {
                out.push(t.finish(regs));
                if out.len() > max_runs {
                    return Err(EngineError::exhausted(Exhausted::Size(format!(
                        "thread P{} has more than {max_runs} runs",
                        p.test.threads[idx].proc()
                    ))));
                }
            }
            // Only scripted runs need entries (every value is known here).
            Err(Stop::Need(n)) => {
                return Err(EngineError::new(format!(
                    "internal: a domain run needs {n:?}"
                )));
            }
            Err(Stop::Choose(n)) => {
                for i in (0..n).rev() {
                    let mut q = prefix.clone();
                    q.push(i);
                    stack.push(q);
                }
            }
            Err(Stop::Cut) => {
                cut = true;
                let mut r = t.finish(BTreeMap::new());
                r.cut = true;
                out.push(r);
            }
            // The run is impossible, but the writes it made before dying may still be
            // made by the real runs that share its prefix: keep them for the domains.
            Err(Stop::Dead) => dead_writes.extend(writes_of(t.events())),
            Err(Stop::Undefined(e)) => {
                dead_writes.extend(writes_of(t.events()));
                undefined.get_or_insert(e);
            }
            Err(Stop::Error(e)) => {
                return Err(EngineError {
                    at: e.span.map(|s| (s.line, s.col)),
                    ..EngineError::new(format!("P{}: {}", p.test.threads[idx].proc(), e.msg))
                });
            }
        }
    }
    Ok(Runs {
        runs: out,
        cut,
        dead_writes,
        undefined,
    })
}

/// One thread's runs, and the writes of the runs that died (for the domains only).
struct Runs {
    runs: Vec<ThreadExec>,
    cut: bool,
    dead_writes: Vec<(LocId, Value)>,
    undefined: Option<crate::sem::SemError>,
}

fn writes_of(events: &[EventData]) -> impl Iterator<Item = (LocId, Value)> + '_ {
    events.iter().filter_map(|e| match (e.kind, e.loc, e.val) {
        (Kind::Write, Some(Value::Addr(l)), Some(v)) => Some((l, v)),
        _ => None,
    })
}
