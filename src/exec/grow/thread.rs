//! One thread of a growing execution: the script of its choices so far, and what the
//! last run of that script made.

use crate::exec::Program;
use crate::sem::{Deps, Entry, LocId, Need, SemError, Stop, ThreadExec, Tracer};
use std::collections::BTreeMap;

/// How a run of a script ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// The script's next entry is needed.
    Need(Need),
    /// The thread ran to its end.
    Done,
    /// A loop ran past the unrolling bound.
    Cut,
    /// The code failed on a value that depends on reads not known yet: the thread waits
    /// for them (an error with known values is an [`End::Error`]).
    Waits,
    /// The script describes no run (a decision contradicted once its values were known).
    Dead,
    /// The values read make the code undefined (herd drops the run).
    Undefined(SemError),
    Error(SemError),
}

/// A read of the thread: its event and location, and the write it reads from (`None`
/// while pending, since step `since` of the exploration).
#[derive(Clone, Copy, Debug)]
pub struct Read {
    pub event: u32,
    pub loc: LocId,
    pub src: Option<super::Source>,
    pub since: u32,
}

/// A thread's script and its last run.
#[derive(Clone, Debug)]
pub struct Thread {
    pub script: Vec<Entry>,
    pub reads: Vec<Read>,
    /// The events, relations and (when done) registers of the last run.
    pub run: ThreadExec,
    pub end: End,
    /// The run's reads not known yet, and its writes whose values are not.
    pub unknown: Deps,
    pub unknown_writes: Deps,
    /// The run's `rmw` pairs (read event, write event), apart from its other relations
    /// (the coherence check looks them up for every read).
    pub rmw: Vec<(u32, u32)>,
}

impl Thread {
    /// Thread `t` run on an empty script.
    pub fn start(p: &Program, t: usize, unroll: u32) -> Thread {
        let mut th = Thread {
            script: Vec::new(),
            reads: Vec::new(),
            run: ThreadExec {
                events: Vec::new(),
                rels: Vec::new(),
                regs: BTreeMap::new(),
                cut: false,
            },
            end: End::Dead,
            unknown: Deps::NONE,
            unknown_writes: Deps::NONE,
            rmw: Vec::new(),
        };
        th.replay(p, t, unroll);
        th
    }

    /// Runs the script again from the thread's start.
    pub fn replay(&mut self, p: &Program, t: usize, unroll: u32) {
        let mut tr = Tracer::scripted(&self.script, &p.symbols, unroll);
        let res = p.run_thread(t, &mut tr);
        self.unknown = tr.unknown();
        self.unknown_writes = tr
            .unknown_writes()
            .fold(Deps::NONE, |d, w| d.union(Deps::one(w)));
        let used = tr.used_up();
        let waits = !self.unknown.is_empty();
        let (regs, end) = match res {
            Ok(regs) if used => (regs, End::Done),
            Ok(_) => (BTreeMap::new(), End::Dead),
            Err(Stop::Need(n)) => (BTreeMap::new(), End::Need(n)),
            Err(Stop::Cut) => (BTreeMap::new(), End::Cut),
            Err(Stop::Dead) => (BTreeMap::new(), End::Dead),
            Err(Stop::Undefined(_) | Stop::Error(_)) if waits => (BTreeMap::new(), End::Waits),
            Err(Stop::Undefined(e)) => (BTreeMap::new(), End::Undefined(e)),
            Err(Stop::Error(e)) => (BTreeMap::new(), End::Error(e)),
            Err(Stop::Choose(n)) => (
                BTreeMap::new(),
                End::Error(SemError {
                    span: None,
                    msg: format!("internal: a scripted run chose among {n}"),
                }),
            ),
        };
        let cut = end == End::Cut;
        self.run = tr.finish(regs);
        self.run.cut = cut;
        self.rmw = (self.run.rels.iter())
            .filter(|r| r.0 == "rmw")
            .map(|&(_, a, b)| (a, b))
            .collect();
        self.end = end;
        // The reads' events, in script order.
        let mut k = 0;
        for (i, e) in self.run.events.iter().enumerate() {
            if e.kind == crate::sem::Kind::Read {
                if let Some(r) = self.reads.get_mut(k) {
                    r.event = i as u32;
                }
                k += 1;
            }
        }
    }

    /// Whether event `a` is before event `b` in program order (as the enumerator's `po`
    /// has it: distinct instructions, and the pairs the semantics adds).
    pub fn po(&self, a: usize, b: usize) -> bool {
        let ev = &self.run.events;
        match ev[a].instr.cmp(&ev[b].instr) {
            std::cmp::Ordering::Less => true,
            std::cmp::Ordering::Greater => false,
            // Within one instruction, only the pairs the semantics orders.
            std::cmp::Ordering::Equal => self
                .run
                .rels
                .iter()
                .any(|&(n, x, y)| x as usize == a && y as usize == b && n == "po"),
        }
    }

    /// Whether write event `e` is made and holds a known value.
    pub fn write_known(&self, e: usize) -> bool {
        self.unknown_writes.0 & (1u128 << e) == 0
    }
}
