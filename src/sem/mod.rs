//! Instruction semantics: a thread's code becomes events.
//!
//! Each dialect runs a thread concretely against a [`Tracer`]. A read does not know its
//! value: the tracer asks the enumerator (`exec::threads`) for one, from the values the
//! location can hold, and the enumerator explores every choice by re-running the thread.
//! Values carry the set of reads they were computed from ([`Deps`]), which is how `addr`,
//! `data` and `ctrl` arise without a separate analysis.

pub mod aarch64;
pub mod asm_common;
pub mod c;
pub mod oracle;
pub mod ppc;
pub mod vmsa;
pub mod x86;

use crate::litmus::ast::Span;
pub use oracle::{Domain, Entry, Need, Oracle};
use std::collections::BTreeMap;
use std::fmt;

/// A location's identity: an index into [`Symbols`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocId(pub u32);

/// A concrete value: an integer, or the address of a global.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Int(i64),
    Addr(LocId),
}

impl Value {
    pub const ZERO: Value = Value::Int(0);
    pub fn as_int(self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(i),
            Value::Addr(_) => None,
        }
    }
    /// C truthiness: addresses are non-null.
    pub fn is_true(self) -> bool {
        self != Value::Int(0)
    }
}

/// The names of the test's global locations; `LocId(i)` is `names[i]`.
///
/// An array `int x[2]` is one location per cell, as herd has it for tests that are not
/// mixed-size: `x` (cell 0) and `x[1]`; [`Symbols::offset`] maps a base address plus a
/// byte offset to its cell.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    names: Vec<String>,
    arrays: Vec<Array>,
    /// herd's virtual-memory variant (`Variant=vmsa`): explicit accesses to a location
    /// `x` that has an entry `PTE(x)` are translated through it.
    pub vmsa: bool,
    /// A translation fault ends its thread (herd's default, `fatal`).
    pub fatal: bool,
}

/// The cells of one array, in order, and the size in bytes of each.
#[derive(Clone, Debug)]
struct Array {
    cells: Vec<LocId>,
    elem_bytes: i64,
}

impl Symbols {
    pub fn intern(&mut self, name: &str) -> LocId {
        if let Some(l) = self.get(name) {
            return l;
        }
        self.names.push(name.to_string());
        LocId(self.names.len() as u32 - 1)
    }
    /// Intern array `name` of `len` cells of `elem_bytes` bytes each: `name` is cell 0,
    /// `name[i]` cell `i`. Returns the cells.
    pub fn intern_array(&mut self, name: &str, len: usize, elem_bytes: i64) -> Vec<LocId> {
        let cells: Vec<LocId> = (0..len.max(1))
            .map(|i| match i {
                0 => self.intern(name),
                _ => self.intern(&format!("{name}[{i}]")),
            })
            .collect();
        self.arrays.push(Array {
            cells: cells.clone(),
            elem_bytes: elem_bytes.max(1),
        });
        cells
    }

    /// The location `bytes` bytes after `l`: `l` itself for 0, otherwise a cell of the
    /// same array; `None` when that falls outside every array or between cells.
    pub fn offset(&self, l: LocId, bytes: i64) -> Option<LocId> {
        if bytes == 0 {
            return Some(l);
        }
        self.arrays.iter().find_map(|a| {
            let i = a.cells.iter().position(|&c| c == l)? as i64;
            if bytes % a.elem_bytes != 0 {
                return None;
            }
            let j = usize::try_from(i + bytes / a.elem_bytes).ok()?;
            a.cells.get(j).copied()
        })
    }

    /// The location `cells` cells after `l` in its array (C's `p + i`): `l` itself for 0.
    pub fn offset_cells(&self, l: LocId, cells: i64) -> Option<LocId> {
        if cells == 0 {
            return Some(l);
        }
        self.arrays.iter().find_map(|a| {
            let i = a.cells.iter().position(|&c| c == l)? as i64;
            a.cells.get(usize::try_from(i + cells).ok()?).copied()
        })
    }

    /// The location of `name`; `x[0]` is the array `x`'s first cell, `x`.
    pub fn get(&self, name: &str) -> Option<LocId> {
        let name = name.strip_suffix("[0]").unwrap_or(name);
        self.names
            .iter()
            .position(|n| n == name)
            .map(|i| LocId(i as u32))
    }
    pub fn name(&self, id: LocId) -> &str {
        &self.names[id.0 as usize]
    }
    /// Whether some locations are cells of arrays (their order then matters).
    pub fn has_arrays(&self) -> bool {
        !self.arrays.is_empty()
    }
    pub fn len(&self) -> usize {
        self.names.len()
    }
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
    pub fn show(&self, v: Value) -> String {
        let mut out = String::new();
        self.write(&mut out, v);
        out
    }
    /// Appends `v` as [`Symbols::show`] spells it.
    pub fn write(&self, out: &mut String, v: Value) {
        use std::fmt::Write;
        let _ = match v {
            Value::Int(i) => write!(out, "{i}"),
            Value::Addr(l) => write!(out, "{}", self.name(l)),
        };
    }
}

/// The reads (indices into the thread's events) a value was computed from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Deps(pub u128);

impl Deps {
    pub const NONE: Deps = Deps(0);
    pub fn one(ev: usize) -> Deps {
        Deps(1u128 << ev)
    }
    pub fn union(self, o: Deps) -> Deps {
        Deps(self.0 | o.0)
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn iter(self) -> impl Iterator<Item = usize> {
        let mut x = self.0;
        std::iter::from_fn(move || {
            if x == 0 {
                None
            } else {
                let t = x.trailing_zeros() as usize;
                x &= x - 1;
                Some(t)
            }
        })
    }
}

/// A value with the reads it depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TVal {
    pub v: Value,
    pub deps: Deps,
}

impl TVal {
    pub fn konst(v: Value) -> TVal {
        TVal {
            v,
            deps: Deps::NONE,
        }
    }
    pub fn int(i: i64) -> TVal {
        TVal::konst(Value::Int(i))
    }
    /// A value computed from `self` and `o`: it depends on both.
    pub fn with(self, v: Value, o: TVal) -> TVal {
        TVal {
            v,
            deps: self.deps.union(o.deps),
        }
    }
}

/// What an event does, before any model gives it meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A memory read: the enumerator picks its `rf` source.
    Read,
    /// A memory write: it takes part in `co`.
    Write,
    /// A fence; its tags say which.
    Fence,
    /// A (conditional) branch, herd's `B`.
    Branch,
    /// A memory access that is neither R nor W to the enumerator, such as the LKMM's lock
    /// events (LKR, LKW, UL, LF, RL, RU), whose `rf`/`co` the model computes itself.
    Special,
}

/// One event of one thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EventData {
    pub kind: Kind,
    /// Accessed location (memory events).
    pub loc: Option<Value>,
    /// Value read or written (memory events).
    pub val: Option<Value>,
    /// herd's annotations and action classes; each becomes a set of the same name for
    /// the cat model (`ONCE`, `ACQUIRE`, `LKR`, `X`, `A`, `L`, `Q`, `lwsync`, `DMB.ISH`,
    /// `MFENCE`, ...).
    pub tags: Vec<String>,
    /// Instruction instance; `po` orders events of distinct instances only.
    pub instr: u32,
}

/// Why a run of a thread stopped short.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The thread asked for a choice beyond the prefix it was given (internal).
    Choose(usize),
    /// A scripted run needs its script's next entry (see [`oracle`]).
    Need(Need),
    /// A loop ran past the unrolling bound: the run is dropped and the test is marked.
    Cut,
    /// This run is impossible (e.g. a failed assumption): dropped silently.
    Dead,
    /// The values this run read make its code undefined (a division by zero, a NULL
    /// dereference): dropped as herd drops it, and said when no execution is left.
    Undefined(SemError),
    /// The code cannot be given a meaning.
    Error(SemError),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemError {
    pub span: Option<Span>,
    pub msg: String,
}

impl fmt::Display for SemError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.span {
            Some(s) => write!(f, "{}:{}: {}", s.line, s.col, self.msg),
            None => write!(f, "{}", self.msg),
        }
    }
}

impl Stop {
    pub fn error(span: Option<Span>, msg: impl Into<String>) -> Stop {
        Stop::Error(SemError {
            span,
            msg: msg.into(),
        })
    }
}

/// One complete run of a thread with every read's value fixed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ThreadExec {
    pub events: Vec<EventData>,
    /// Extra relations between this thread's events, by herd name: `addr`, `data`,
    /// `ctrl`, `rmw`, `iico_data`, `iico_ctrl`, ... A `po` entry adds a pair to the
    /// instruction-order `po` (C: herd orders an instruction's events linked by `iico`).
    pub rels: Vec<(&'static str, u32, u32)>,
    /// Final values of registers / C locals.
    pub regs: BTreeMap<String, Value>,
    /// The run stopped at the loop-unrolling bound: its events are a prefix. herd builds
    /// candidates from such runs only to report that the bound cut executions off.
    pub cut: bool,
}

/// Records one run of a thread, its reads and choices answered by an [`Oracle`].
pub struct Tracer<'a> {
    oracle: Oracle<'a>,
    pub symbols: &'a Symbols,
    /// Loop unrolling bound.
    pub unroll: u32,
    events: Vec<EventData>,
    rels: Vec<(&'static str, u32, u32)>,
    ctrl: Deps,
    instr: u32,
    /// Emit herd's register events (see [`Tracer::reg_event`]): set for models that
    /// compute dependencies themselves (`catdep`).
    pub reg_events: bool,
    /// Register events so far: (register key, event index).
    reg_log: Vec<(u32, usize)>,
    /// The reads whose values are not known yet (scripted runs only).
    unknown: Deps,
    /// Each write with the reads its value was computed from.
    written: Vec<(usize, Deps)>,
    /// Decisions and accesses so far, numbering them (see [`Entry`]).
    decisions: u32,
    /// `ctrl` shrinks as the code leaves a branch (C's structured `if`), rather than
    /// reaching everything after a branch (assembly).
    ctrl_scoped: bool,
    accesses: u32,
}

/// Most events a thread may have (the width of [`Deps`]).
pub const MAX_THREAD_EVENTS: usize = 128;

impl<'a> Tracer<'a> {
    /// A run whose reads take the values `domain` offers, one per choice of `choices`.
    pub fn new(
        choices: &'a [usize],
        domain: &'a dyn Domain,
        symbols: &'a Symbols,
        unroll: u32,
    ) -> Tracer<'a> {
        Tracer::with(
            Oracle::Choices {
                choices,
                next: 0,
                domain,
            },
            symbols,
            unroll,
        )
    }

    /// A run following `script` (see [`oracle`]).
    pub fn scripted(script: &'a [Entry], symbols: &'a Symbols, unroll: u32) -> Tracer<'a> {
        Tracer::with(Oracle::Script { script, next: 0 }, symbols, unroll)
    }

    fn with(oracle: Oracle<'a>, symbols: &'a Symbols, unroll: u32) -> Tracer<'a> {
        Tracer {
            oracle,
            symbols,
            unroll,
            events: Vec::new(),
            rels: Vec::new(),
            ctrl: Deps::NONE,
            instr: 0,
            reg_events: false,
            reg_log: Vec::new(),
            unknown: Deps::NONE,
            written: Vec::new(),
            decisions: 0,
            ctrl_scoped: false,
            accesses: 0,
        }
    }

    /// Pick one of `n` alternatives (explored exhaustively by the enumerator).
    pub fn choose(&mut self, n: usize) -> Result<usize, Stop> {
        if n == 0 {
            return Err(Stop::Dead);
        }
        if n == 1 {
            return Ok(0);
        }
        self.oracle.choose(n).map_err(|need| match need {
            Need::Choice(n) if matches!(self.oracle, Oracle::Choices { .. }) => Stop::Choose(n),
            need => Stop::Need(need),
        })
    }

    /// Whether a value computed from `deps` is known (always, but in a scripted run that
    /// went past a read whose write is not chosen yet).
    pub fn known(&self, deps: Deps) -> bool {
        oracle::known(deps, self.unknown)
    }

    /// The reads of this run whose values are not known yet.
    pub fn unknown(&self) -> Deps {
        self.unknown
    }

    /// The writes of this run whose values are not known yet.
    pub fn unknown_writes(&self) -> impl Iterator<Item = usize> + '_ {
        self.written
            .iter()
            .filter(|(_, d)| !self.known(*d))
            .map(|(w, _)| *w)
    }

    /// Whether the run used its whole script (see [`Oracle::used_up`]).
    pub fn used_up(&self) -> bool {
        self.oracle.used_up()
    }

    /// A decision the code makes: `guess`, computed from values that depend on the reads
    /// `deps`. Every branch of the semantics goes through here, so that a decision on a
    /// value not known yet is the script's to make (see [`oracle`]), and checked once the
    /// value is known.
    pub fn decide(&mut self, guess: bool, deps: Deps) -> Result<bool, Stop> {
        let at = self.decisions;
        self.decisions += 1;
        let unknown = !self.known(deps);
        let ordered = !self.ctrl_scoped && deps.0 & !self.ctrl.0 == 0;
        match self.oracle.decide(at, guess, unknown, ordered) {
            Ok(Some(b)) => Ok(b),
            Ok(None) => Err(Stop::Dead),
            Err(need) => Err(Stop::Need(need)),
        }
    }

    /// The location an access goes to: `addr`, or, when it depends on reads not known
    /// yet, the one the script says (checked once they are).
    pub fn locate(&mut self, addr: TVal) -> Result<TVal, Stop> {
        let at = self.accesses;
        self.accesses += 1;
        let unknown = !self.known(addr.deps);
        match self.oracle.locate(at, addr.v, unknown) {
            Ok(Some(v)) => Ok(TVal { v, deps: addr.deps }),
            Ok(None) => Err(Stop::Dead),
            Err(need) => Err(Stop::Need(need)),
        }
    }

    /// The reads the value of write `w` was computed from, when they are more than its
    /// `data` dependencies (C's ports hand some values over without one).
    pub fn written_from(&mut self, w: usize, deps: Deps) {
        if let Some(e) = self.written.iter_mut().find(|(x, _)| *x == w) {
            e.1 = e.1.union(deps);
        }
    }

    /// Start a new instruction instance: later events are po-after earlier ones.
    pub fn next_instr(&mut self) {
        self.instr += 1;
    }

    /// Add an event (in the current instruction) with its `addr`/`data` sources and the
    /// current control dependencies; returns its index.
    pub fn event(&mut self, ev: EventData, addr: Deps, data: Deps) -> Result<usize, Stop> {
        let i = self.events.len();
        if i >= MAX_THREAD_EVENTS {
            return Err(Stop::error(
                None,
                format!("a thread has more than {MAX_THREAD_EVENTS} events"),
            ));
        }
        let mut ev = ev;
        ev.instr = self.instr;
        if self.symbols.vmsa {
            vmsa::tag_entry_access(self.symbols, &mut ev);
        }
        for d in addr.iter() {
            self.rels.push(("addr", d as u32, i as u32));
        }
        for d in data.iter() {
            self.rels.push(("data", d as u32, i as u32));
        }
        for d in self.ctrl.iter() {
            self.rels.push(("ctrl", d as u32, i as u32));
        }
        self.events.push(ev);
        Ok(i)
    }

    /// A memory read of `loc`; its value is the oracle's: one of those the location may
    /// hold, or the value of the write it reads from (unknown until that is chosen).
    pub fn read(&mut self, loc: TVal, tags: &[&str]) -> Result<(usize, TVal), Stop> {
        let loc = self.locate(loc)?;
        let l = match loc.v {
            Value::Addr(l) => l,
            Value::Int(i) => return Err(Stop::error(None, format!("read from non-address {i}"))),
        };
        let v = match &self.oracle {
            Oracle::Choices { domain, .. } => {
                let n = domain.values(l).len();
                let k = self.choose(n)?;
                let Oracle::Choices { domain, .. } = &self.oracle else {
                    unreachable!("the oracle does not change")
                };
                Some(domain.values(l)[k])
            }
            Oracle::Script { .. } => self.oracle.scripted_read(l).map_err(Stop::Need)?,
        };
        if v.is_none() {
            self.unknown = self.unknown.union(Deps::one(self.events.len()));
        }
        let v = v.unwrap_or(oracle::PLACEHOLDER);
        let ev = EventData {
            kind: Kind::Read,
            loc: Some(loc.v),
            val: Some(v),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            instr: 0,
        };
        let i = self.event(ev, loc.deps, Deps::NONE)?;
        Ok((
            i,
            TVal {
                v,
                deps: Deps::one(i),
            },
        ))
    }

    /// A memory write of `val` to `loc`.
    pub fn write(&mut self, loc: TVal, val: TVal, tags: &[&str]) -> Result<usize, Stop> {
        let loc = self.locate(loc)?;
        if let Value::Int(i) = loc.v {
            return Err(Stop::error(None, format!("write to non-address {i}")));
        }
        let ev = EventData {
            kind: Kind::Write,
            loc: Some(loc.v),
            val: Some(val.v),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            instr: 0,
        };
        let w = self.event(ev, loc.deps, val.deps)?;
        self.written.push((w, val.deps));
        Ok(w)
    }

    /// A fence with the given tags.
    pub fn fence(&mut self, tags: &[&str]) -> Result<usize, Stop> {
        let ev = EventData {
            kind: Kind::Fence,
            loc: None,
            val: None,
            tags: tags.iter().map(|s| s.to_string()).collect(),
            instr: 0,
        };
        self.event(ev, Deps::NONE, Deps::NONE)
    }

    /// A conditional branch on `cond`: every later event is ctrl-dependent on its reads.
    pub fn branch(&mut self, cond: Deps, tags: &[&str]) -> Result<usize, Stop> {
        let ev = EventData {
            kind: Kind::Branch,
            loc: None,
            val: None,
            tags: tags.iter().map(|s| s.to_string()).collect(),
            instr: 0,
        };
        // herd's `data` only targets memory events: the branch records no edges of its own;
        // the events after it depend on its inputs by ctrl.
        let i = self.event(ev, Deps::NONE, Deps::NONE)?;
        self.ctrl = self.ctrl.union(cond);
        Ok(i)
    }

    /// Add control dependencies without a branch event.
    pub fn add_ctrl(&mut self, cond: Deps) {
        self.ctrl = self.ctrl.union(cond);
    }

    /// The reads every new event is currently ctrl-dependent on.
    pub fn ctrl(&self) -> Deps {
        self.ctrl
    }

    /// Replace the current control dependencies: structured code (C's `if`) scopes them
    /// to the branches, restoring the outer set when the branch ends.
    pub fn set_ctrl(&mut self, ctrl: Deps) {
        self.ctrl = ctrl;
        self.ctrl_scoped = true;
    }

    /// Relate two of this thread's events by a named relation (`rmw`, `iico_data`, ...).
    pub fn relate(&mut self, name: &'static str, a: usize, b: usize) {
        self.rels.push((name, a as u32, b as u32));
    }

    pub fn events(&self) -> &[EventData] {
        &self.events
    }
    pub fn events_mut(&mut self) -> &mut [EventData] {
        &mut self.events
    }

    /// A read (`Rreg`) or write (`Wreg`) of the register numbered `key`, as herd records
    /// them for models that compute dependencies (aarch64deps.cat). Neither R nor W nor
    /// M: a [`Kind::Special`] event without a location, related by `loc` to the thread's
    /// other accesses to the same register (herd's `same-gpr` is `loc` on them).
    pub fn reg_event(&mut self, write: bool, key: u32) -> Result<usize, Stop> {
        let ev = EventData {
            kind: Kind::Special,
            loc: None,
            val: None,
            tags: vec![if write { "Wreg" } else { "Rreg" }.to_string()],
            instr: 0,
        };
        let i = self.event(ev, Deps::NONE, Deps::NONE)?;
        self.relate("loc", i, i);
        let same: Vec<usize> = self
            .reg_log
            .iter()
            .filter(|(k, _)| *k == key)
            .map(|&(_, j)| j)
            .collect();
        for j in same {
            self.relate("loc", i, j);
            self.relate("loc", j, i);
        }
        self.reg_log.push((key, i));
        Ok(i)
    }

    /// The run is complete: package it.
    pub fn finish(self, regs: BTreeMap<String, Value>) -> ThreadExec {
        let mut rels = self.rels;
        rels.sort();
        rels.dedup();
        ThreadExec {
            events: self.events,
            rels,
            regs,
            cut: false,
        }
    }
}

/// Initial state a thread's semantics needs: register/local values from `init`, and the
/// shared symbol table.
pub struct ThreadInit<'a> {
    pub arch: crate::litmus::ast::Arch,
    pub proc: u32,
    /// `proc:reg = value` entries of the init block for this thread.
    pub regs: BTreeMap<String, Value>,
    pub symbols: &'a Symbols,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_cells_are_locations_reached_by_byte_offsets() {
        let mut s = Symbols::default();
        let y = s.intern("y");
        let cells = s.intern_array("x", 3, 4);
        assert_eq!(s.name(cells[2]), "x[2]");
        assert_eq!(s.get("x[0]"), Some(cells[0]));
        assert_eq!(s.offset(cells[0], 8), Some(cells[2]));
        assert_eq!(s.offset(cells[2], -4), Some(cells[1]));
        assert_eq!(s.offset(cells[0], 2), None);
        assert_eq!(s.offset(cells[2], 4), None);
        assert_eq!(s.offset(y, 4), None);
        assert_eq!(s.offset(y, 0), Some(y));
    }
}
