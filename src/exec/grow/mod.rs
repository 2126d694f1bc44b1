//! The growing exploration: executions built read by read, each read taking its value
//! from the write it reads from, so that the work follows the executions rather than the
//! values a read might take (the domain enumerator, [`super::threads`], runs every thread
//! once per combination of the values its reads may return).
//!
//! A *partial execution* is a prefix of each thread's run (made by running its
//! [`thread::Thread::script`]) and the write each of its reads reads from. It grows by
//! one choice at a time, the lowest thread that needs one first:
//! - a read takes a write already made whose value is known (an *available* write), or
//!   is left *pending*: it will read from a write made available later. The thread goes
//!   on past a pending read with its value unknown (see [`crate::sem::oracle`]) until the
//!   code needs it (a branch, an address);
//! - when a write becomes available, each read pending on its location either takes it
//!   or stays pending (an *offer*);
//! - a choice of the semantics (`choose`) takes each outcome in turn;
//! - when no thread can go on but some wait on a decision about unknown values, the
//!   lowest one's decision is taken each way, to be checked once the values are known
//!   (herd's symbolic branches do the same): cycles of control dependencies through
//!   `rf` are candidates too.
//!
//! Every candidate whose reads' values come from writes by chains that start at known
//! values is made exactly once: at each step the candidate says which branch it is in
//! (a read's write was available when it read, or it was not and became so later). A
//! candidate whose values justify themselves (`r1 = x; y = r1` both ways) is never made:
//! herd drops such candidates too, as their equations have no solution.
//!
//! A partial execution that already breaks SC per location or atomicity is dropped when
//! the model checks those in every branch ([`Facts`], [`coherence`]).

pub mod coherence;
pub mod thread;

pub use super::candidate::Source;
use super::candidate::{Assembler, Candidate};
use super::program::{EngineError, Program};
use crate::budget::Budget;
use crate::sem::{Entry, Kind, LocId, Need, SemError, Value};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use thread::{End, Read, Thread};

/// What the model lets the exploration assume, read from the model itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// Every branch checks SC per location over a coherence order of the writes.
    pub coherence: bool,
    /// Every branch checks the atomicity of read-modify-writes (`rmw & (fre; coe)`).
    pub atomicity: bool,
    /// A read may read from a write after it in program order (the model does not
    /// reject every such candidate).
    pub po_later_rf: bool,
    /// The cycles every branch rejects.
    pub orders: crate::cat::assume::Orders,
}

impl Facts {
    /// Whether a read may read from a write after it in program order: not where the
    /// model rejects such cycles, nor where it checks SC per location (the write is after
    /// the read in `po-loc`).
    pub fn reads_own_later_writes(&self) -> bool {
        self.po_later_rf && !self.coherence
    }
}

/// What an exploration visited.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Candidates handed over.
    pub visited: usize,
    /// Partial executions dropped because they break coherence or atomicity.
    pub dropped: usize,
    /// Partial executions explored, runs of scripts, and decisions taken both ways.
    pub partial: usize,
    pub replays: usize,
    pub forks: usize,
}

/// What the runs did besides the candidates, for the test's warnings.
#[derive(Debug, Default)]
pub struct Seen {
    /// The first run found undefined (its thread's proc, why).
    pub undefined: Option<(u32, SemError)>,
    /// Per thread, the registers some complete run sets, and whether it has one.
    pub regs: Vec<std::collections::BTreeSet<String>>,
    pub ran: Vec<bool>,
    /// The locations some run accesses.
    pub touched: std::collections::BTreeSet<LocId>,
}

/// A write once available: where it is, its location and value.
#[derive(Clone, Copy, Debug)]
struct Avail {
    src: Source,
    loc: LocId,
    val: Value,
}

/// A partial execution.
#[derive(Clone)]
struct State {
    threads: Vec<Thread>,
    /// The writes made available so far, in order (the initial ones first).
    avail: Vec<Avail>,
    /// Per thread, its write events already in `avail`.
    made: Vec<u128>,
    /// Offers to make: an available write (index in `avail`) to a pending read (thread,
    /// index among its reads).
    offers: VecDeque<(usize, (usize, usize))>,
}

/// One exploration of one test.
pub struct Grow<'p, 'f> {
    p: &'p Program<'p>,
    unroll: u32,
    facts: Facts,
    budget: &'p Budget,
    assembler: Assembler,
    shapes: Vec<FxHashMap<ShapeKey, u32>>,
    /// Whether a candidate with a run cut by the unrolling bound was handed over: it is
    /// only counted (herd's `Loop`), so later ones need not be made.
    cut_seen: bool,
    /// Whether some thread's run reached the unrolling bound, in any partial execution.
    cut_reached: bool,
    /// Only look for a candidate with a cut run (see [`Grow::run`]).
    finding_cut: bool,
    stopped: bool,
    error: Option<EngineError>,
    pub counts: Counts,
    pub seen: Seen,
    f: &'f mut dyn FnMut(&Candidate) -> bool,
}

/// What makes two runs of a thread the same shape: their events but values, relations
/// and cut (see [`super::threads::ThreadRuns::shapes`]).
type ShapeKey = (
    Vec<(Kind, Option<Value>, Vec<String>, u32)>,
    Vec<(&'static str, u32, u32)>,
    bool,
);

impl<'p, 'f> Grow<'p, 'f> {
    pub fn new(
        p: &'p Program<'p>,
        unroll: u32,
        facts: Facts,
        budget: &'p Budget,
        f: &'f mut dyn FnMut(&Candidate) -> bool,
    ) -> Self {
        let n = p.test.threads.len();
        Grow {
            p,
            unroll,
            facts,
            budget,
            assembler: Assembler::new(p),
            shapes: vec![FxHashMap::default(); n],
            cut_seen: false,
            cut_reached: false,
            finding_cut: false,
            stopped: false,
            error: None,
            counts: Counts::default(),
            seen: Seen {
                regs: vec![Default::default(); n],
                ran: vec![false; n],
                ..Seen::default()
            },
            f,
        }
    }

    /// Hands every candidate over until `f` returns false or the budget is spent.
    ///
    /// A candidate with a run cut by the unrolling bound is not judged, only counted
    /// (herd's `Loop`), whether or not the model would accept it: herd sets the flag when
    /// some candidate whose values are consistent has a cut run. The exploration drops
    /// incoherent partial executions, so when none of the candidates it made has a cut
    /// run but some run reached the bound, a second exploration looks for one without
    /// dropping any, and stops at the first.
    pub fn run(&mut self) -> Result<(), EngineError> {
        self.explore()?;
        if self.cut_reached && !self.cut_seen && !self.stopped && self.facts.coherence {
            let facts = self.facts;
            self.facts.coherence = false;
            self.facts.atomicity = false;
            self.finding_cut = true;
            self.explore()?;
            self.facts = facts;
            self.finding_cut = false;
        }
        Ok(())
    }

    fn explore(&mut self) -> Result<(), EngineError> {
        let p = self.p;
        let avail: Vec<Avail> = (0..p.symbols.len())
            .map(|l| Avail {
                src: Source::Init(LocId(l as u32)),
                loc: LocId(l as u32),
                val: p.init_mem[l],
            })
            .collect();
        let n = p.test.threads.len();
        let mut st = State {
            threads: Vec::with_capacity(n),
            avail,
            made: vec![0; n],
            offers: VecDeque::new(),
        };
        for t in 0..n {
            st.threads.push(Thread::start(p, t, self.unroll));
        }
        let ok = (0..n).all(|t| self.settled(&mut st, t));
        if ok {
            self.grow(st);
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Explores every extension of `st`; false once the search stops.
    fn grow(&mut self, mut st: State) -> bool {
        self.counts.partial += 1;
        if self.stopped || self.budget.check().is_err() {
            self.stopped = true;
            return false;
        }
        if let Some((w, (t, k))) = st.offers.pop_front() {
            return self.offer(st, w, t, k);
        }
        for t in 0..st.threads.len() {
            match st.threads[t].end {
                End::Need(Need::Read(loc)) => return self.read(st, t, loc),
                End::Need(Need::Choice(n)) => {
                    return (0..n).all(|c| self.extend(st.clone(), t, Entry::Choice(c)));
                }
                _ => {}
            }
        }
        let done = |th: &Thread| matches!(th.end, End::Done | End::Cut);
        if st.threads.iter().all(done) {
            let pending = st
                .threads
                .iter()
                .any(|th| th.reads.iter().any(|r| r.src.is_none()));
            return pending || self.leaf(&st);
        }
        // No thread can go on: the lowest that waits on a decision the model does not
        // settle takes it each way (see [`Grow::settles`]).
        for t in 0..st.threads.len() {
            match st.threads[t].end {
                End::Need(Need::Decide { at, ordered }) if !self.settles(ordered) => {
                    self.counts.forks += 1;
                    return [true, false]
                        .into_iter()
                        .all(|taken| self.extend(st.clone(), t, Entry::Decide { at, taken }));
                }
                End::Need(Need::Locate(at)) if !self.facts.orders.po_from_reads => {
                    self.counts.forks += 1;
                    let locs = self.p.symbols.len() as u32;
                    return (0..locs).all(|l| {
                        let loc = LocId(l);
                        self.extend(st.clone(), t, Entry::Locate { at, loc })
                    });
                }
                _ => {}
            }
        }
        // What is left waits on values no write will give.
        true
    }

    /// Thread `t`'s next read, of `loc`: each available write of `loc`, then pending.
    fn read(&mut self, st: State, t: usize, loc: LocId) -> bool {
        let sources: Vec<Avail> = st.avail.iter().filter(|a| a.loc == loc).copied().collect();
        for a in sources {
            let mut next = st.clone();
            next.threads[t].reads.push(Read {
                event: 0,
                loc,
                src: Some(a.src),
                since: 0,
            });
            if !self.extend(next, t, Entry::Read(Some(a.val))) {
                return false;
            }
        }
        if !self.may_feed(&st, t, loc) {
            return true;
        }
        let mut next = st;
        let since = next.avail.len() as u32;
        next.threads[t].reads.push(Read {
            event: 0,
            loc,
            src: None,
            since,
        });
        self.extend(next, t, Entry::Read(None))
    }

    /// Whether a write of `loc` may still become available to a read of thread `t` now:
    /// another thread may still run, or has a write of `loc` (or of a location not known
    /// yet) whose value is not known yet; or `t` itself may, where a read may read from a
    /// later write of its own. Else the read would stay pending for ever.
    fn may_feed(&self, st: &State, t: usize, loc: LocId) -> bool {
        let own = self.facts.reads_own_later_writes();
        st.threads.iter().enumerate().any(|(u, th)| {
            if u == t && !own {
                return false;
            }
            let finished = matches!(th.end, End::Done | End::Cut);
            !finished
                || th.run.events.iter().enumerate().any(|(e, ev)| {
                    ev.kind == Kind::Write
                        && st.made[u] & (1u128 << e) == 0
                        && !matches!(ev.loc, Some(Value::Addr(l)) if l != loc)
                })
        })
    }

    /// Offer `avail[w]` to thread `t`'s pending read `k`: it takes it, or it does not.
    fn offer(&mut self, st: State, w: usize, t: usize, k: usize) -> bool {
        // Taken by an earlier offer meanwhile: nothing to choose.
        if st.threads[t].reads[k].src.is_some() {
            return self.grow(st);
        }
        let a = st.avail[w];
        let mut taking = st.clone();
        let r = &mut taking.threads[t].reads[k];
        r.src = Some(a.src);
        let entry = script_index(&taking.threads[t].script, k);
        taking.threads[t].script[entry] = Entry::Read(Some(a.val));
        if self.settled(&mut taking, t) && self.coherent(&taking, a.loc) && !self.grow(taking) {
            return false;
        }
        self.grow(st)
    }

    /// `st` with `e` added to thread `t`'s script, explored.
    fn extend(&mut self, mut st: State, t: usize, e: Entry) -> bool {
        st.threads[t].script.push(e);
        if !self.settled(&mut st, t) {
            return true;
        }
        if let Entry::Read(Some(_)) = e {
            let loc = st.threads[t].reads.last().expect("the read just added").loc;
            if !self.coherent(&st, loc) {
                return true;
            }
        }
        self.grow(st)
    }

    /// Runs thread `t`'s script again and makes its new known writes available (with
    /// their offers); false when the run shows this partial execution has no extension.
    fn settled(&mut self, st: &mut State, t: usize) -> bool {
        let th = &mut st.threads[t];
        self.counts.replays += 1;
        th.replay(self.p, t, self.unroll);
        match &th.end {
            End::Dead | End::Waits => {}
            End::Undefined(e) => {
                if self.seen.undefined.is_none() {
                    let proc = self.p.test.threads[t].proc();
                    self.seen.undefined = Some((proc, e.clone()));
                }
                return false;
            }
            End::Error(e) => {
                let proc = self.p.test.threads[t].proc();
                self.error.get_or_insert(EngineError {
                    at: e.span.map(|s| (s.line, s.col)),
                    ..EngineError::new(format!("P{proc}: {}", e.msg))
                });
                self.stopped = true;
                return false;
            }
            End::Cut if self.cut_seen => return false,
            End::Cut => self.cut_reached = true,
            _ => {}
        }
        if th.end == End::Dead {
            return false;
        }
        for e in &th.run.events {
            if let Some(Value::Addr(l)) = e.loc {
                self.seen.touched.insert(l);
            }
        }
        self.make_available(st, t);
        true
    }

    /// Thread `t`'s writes newly known: available, and offered to the reads pending on
    /// their locations.
    fn make_available(&mut self, st: &mut State, t: usize) {
        let th = &st.threads[t];
        let fresh: Vec<(usize, LocId, Value)> = th
            .run
            .events
            .iter()
            .enumerate()
            .filter(|&(e, ev)| {
                ev.kind == Kind::Write && st.made[t] & (1u128 << e) == 0 && th.write_known(e)
            })
            .filter_map(|(e, ev)| match (ev.loc, ev.val) {
                (Some(Value::Addr(l)), Some(v)) => Some((e, l, v)),
                _ => None,
            })
            .collect();
        for (e, loc, val) in fresh {
            st.made[t] |= 1u128 << e;
            let w = st.avail.len();
            st.avail.push(Avail {
                src: Source::Event {
                    thread: t as u32,
                    event: e as u32,
                },
                loc,
                val,
            });
            for (u, other) in st.threads.iter().enumerate() {
                for (k, r) in other.reads.iter().enumerate() {
                    // An own write after the read only where the model allows it.
                    let later = u == t && other.po(r.event as usize, e);
                    let may_later = self.facts.reads_own_later_writes();
                    if r.src.is_none() && r.loc == loc && (!later || may_later) {
                        st.offers.push_back((w, (u, k)));
                    }
                }
            }
        }
    }

    /// Whether a partial execution in which no thread can go on, some waiting on a
    /// decision (`ordered`: every later event depends on it), has no consistent extension
    /// the fork of that decision would make, because the model rejects it.
    ///
    /// In such a state each waiting thread waits on a pending read whose write is made
    /// later by another waiting thread, after the point where that one waits or from the
    /// values it waits on: any extension has a cycle of such pairs (`rfe`), each thread
    /// contributing the edge from its pending read to its later write. With every read
    /// ordered before what follows it (x86-TSO), the model rejects every such cycle; with
    /// dependencies kept (no thin air), those through decisions every later event depends
    /// on, and writes whose values do.
    fn settles(&self, ordered: bool) -> bool {
        let o = self.facts.orders;
        o.po_from_reads || (ordered && o.dependencies)
    }

    /// Whether `loc` may still be made coherent (when the model asks it).
    fn coherent(&mut self, st: &State, loc: LocId) -> bool {
        let ok = !self.facts.coherence || coherence::holds(&st.threads, loc, self.facts.atomicity);
        if !ok {
            self.counts.dropped += 1;
        }
        ok
    }

    /// A complete execution: its candidates, one per choice of final writes.
    fn leaf(&mut self, st: &State) -> bool {
        let p = self.p;
        let runs: Vec<&crate::sem::ThreadExec> = st.threads.iter().map(|t| &t.run).collect();
        let cut = runs.iter().any(|r| r.cut);
        if self.finding_cut && !cut {
            return true;
        }
        let shapes: Vec<u32> = runs
            .iter()
            .enumerate()
            .map(|(t, r)| {
                let key: ShapeKey = (
                    r.events
                        .iter()
                        .map(|e| (e.kind, e.loc, e.tags.clone(), e.instr))
                        .collect(),
                    r.rels.clone(),
                    r.cut,
                );
                let next = self.shapes[t].len() as u32;
                *self.shapes[t].entry(key).or_insert(next)
            })
            .collect();
        for (t, r) in runs.iter().enumerate() {
            if !r.cut {
                self.seen.regs[t].extend(r.regs.keys().cloned());
                self.seen.ran[t] = true;
            }
        }
        let rf: Vec<((u32, u32), Source)> = st
            .threads
            .iter()
            .enumerate()
            .flat_map(|(t, th)| {
                th.reads
                    .iter()
                    .filter_map(move |r| Some(((t as u32, r.event), r.src?)))
            })
            .collect();
        let (coherence, atomicity) = (self.facts.coherence, self.facts.atomicity);
        let threads = &st.threads;
        let final_ok =
            |loc: LocId, w: Source| !coherence || coherence::may_end(threads, loc, w, atomicity);
        let (counts, f) = (&mut self.counts, &mut self.f);
        let go_on = self
            .assembler
            .each(p, &runs, &shapes, &rf, &final_ok, &mut |c: &Candidate| {
                counts.visited += 1;
                f(c)
            });
        if cut {
            self.cut_seen = true;
        }
        // Looking for a cut run, the first one is enough.
        if !go_on || (self.finding_cut && cut) {
            self.stopped = true;
            return false;
        }
        true
    }
}

/// Where the `k`th read's entry is in a script.
fn script_index(script: &[Entry], k: usize) -> usize {
    script
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Entry::Read(_)))
        .nth(k)
        .map(|(i, _)| i)
        .expect("every read has its entry")
}
