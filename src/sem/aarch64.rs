//! AArch64 instruction semantics, after herd's.
//!
//! Tags are herd's sets: `A` (LDAR, LDAXR, acquire AMOs), `Q` (LDAPR), `L` (STLR,
//! STLXR, release AMOs), `EX` (exclusives), `X` (AMO effects), `NoRet` (AMOs writing
//! to the zero register), fences `DMB.SY`, `DMB.ISHLD`, `DSB.ISH`, `ISB`...; every
//! memory event is also tagged `Exp` (explicit), conditional branches `BCC`.
//! `rmw` pairs an exclusive load with the next exclusive store (herd's `lxsx`) and the
//! read and write of one AMO. Under `Variant=vmsa` each explicit access to a virtual
//! location is translated first (see [`super::vmsa`]): a fault ends the thread unless
//! the variant says `faultToNext` or `handled`, and leaves the registers as they were.
//!
//! aarch64.cat computes its dependencies itself (`catdep`, aarch64deps.cat) from
//! register events and the instructions' internal dataflow (`iico_data`) and
//! selection (`iico_ctrl`). We have no register events, so each value carries two
//! sets of reads instead:
//! - `deps`, herd's `dtrm`: reads reaching the value through register dataflow,
//!   intra-instruction dataflow (a loaded value also depends on its address) and
//!   memory (`lmrs`: on what the po-latest store to that location depended on);
//! - `pick`, herd's `pick-dtrm`: the same, plus selection — the condition of a CSEL,
//!   the comparison of a CAS, which control which value flows but not the value.
//!
//! From them come `addr`, `data`, `ctrl` (through the tracer) and the relations
//! `pick-addr-dep`, `pick-data-dep`, `pick-ctrl-dep` and `pick-dep` of
//! aarch64deps.cat. herd relates events of distinct instructions only (`& po`,
//! `~same-instance`), so sources in the current instruction are left out.

use super::asm_common::{Flow, add_addr, arith, compare, exec, unsupported};
use super::{Deps, LocId, Stop, TVal, ThreadInit, Tracer, Value, vmsa};
use crate::litmus::ast::{AsmThread, Instr, Mem, MemBase, Operand, Span};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A register value with the reads it depends on, by dataflow (`deps`) and by dataflow
/// or selection (`pick`, a superset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RVal {
    v: Value,
    deps: Deps,
    pick: Deps,
    /// Register events (`Rreg`) and reads of the current instruction the value flows
    /// from: sources of its `iico_data` edges, when register events are recorded.
    src: Deps,
}

impl Default for RVal {
    fn default() -> RVal {
        RVal::konst(Value::ZERO)
    }
}

impl RVal {
    fn konst(v: Value) -> RVal {
        RVal {
            v,
            deps: Deps::NONE,
            pick: Deps::NONE,
            src: Deps::NONE,
        }
    }
    fn int(i: i64) -> RVal {
        RVal::konst(Value::Int(i))
    }
    /// A value computed from `self` and `o`.
    fn with(self, v: Value, o: RVal) -> RVal {
        RVal {
            v,
            deps: self.deps.union(o.deps),
            pick: self.pick.union(o.pick),
            src: self.src.union(o.src),
        }
    }
    /// The same dependencies, another value.
    fn map(self, v: Value) -> RVal {
        RVal { v, ..self }
    }
    /// Selected under a condition depending on `p`.
    fn picked(self, p: Deps) -> RVal {
        RVal {
            pick: self.pick.union(p),
            ..self
        }
    }
    /// Only the selection part (the value does not flow).
    fn pick_only(self) -> RVal {
        RVal {
            v: Value::ZERO,
            deps: Deps::NONE,
            pick: self.pick,
            src: self.src,
        }
    }
}

/// Dependencies of what a store put in memory: herd's sources of `lmrs`.
#[derive(Clone, Copy, Default)]
struct Taint {
    deps: Deps,
    pick: Deps,
}

struct State<'a> {
    /// `X0`..`X30`, full 64-bit values.
    regs: BTreeMap<u8, RVal>,
    /// Registers holding an address plus a non-zero offset (post-indexing), which values
    /// cannot express: reading them is an error.
    opaque: BTreeSet<u8>,
    /// Condition flags (NZCV): the comparison and its dependencies.
    flags: Option<(Ordering, RVal)>,
    /// Exclusive monitor: the address reserved by the last LDXR.
    res: Option<Value>,
    /// The last exclusive event: index, is-read.
    last_ex: Option<(usize, bool)>,
    /// Per location, what the po-latest store depended on.
    stored: HashMap<Value, Taint>,
    /// Reads that earlier conditional branches depended on, by selection too.
    pick_ctrl: Deps,
    /// Index of the current instruction's first event.
    first: usize,
    /// Instructions held in memory, by the (line, column) of their cell: code whose
    /// address the test exposes (`0:X1=1:L0`), fetched before it runs.
    code: HashMap<(u32, u32), Value>,
    /// Labels of the instructions, by (line, column): faults are reported by label.
    labels: HashMap<(u32, u32), String>,
    /// The current instruction's translation fault (virtual-memory variant).
    fault: Option<LocId>,
    /// Faults so far: label and virtual location.
    faults: Vec<(String, LocId)>,
    init: &'a ThreadInit<'a>,
}

/// The thread's instructions that are memory locations: those at a label `P:L` that
/// the test names as a value (herd's `ifetch` variant).
fn code_lines(thread: &AsmThread, init: &ThreadInit) -> HashMap<(u32, u32), Value> {
    let mut code = HashMap::new();
    for (k, line) in thread.code.iter().enumerate() {
        let Some(label) = &line.label else { continue };
        let Some(l) = init.symbols.get(&format!("{}:{label}", init.proc)) else {
            continue;
        };
        if let Some(at) = thread.code[k..].iter().find(|c| c.instr.is_some()) {
            code.entry((at.span.line, at.span.col))
                .or_insert(Value::Addr(l));
        }
    }
    code
}

/// Whether `v` is the address of code (`P:label`), whose accesses are herd's `Instr`.
fn is_code(symbols: &super::Symbols, v: Value) -> bool {
    match v {
        Value::Addr(l) => symbols
            .name(l)
            .split_once(':')
            .is_some_and(|(p, _)| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())),
        Value::Int(_) => false,
    }
}

/// The instruction an instruction value (`instr:"NOP"`) stands for.
fn decode(symbols: &super::Symbols, v: Value) -> Result<Instr, Stop> {
    let text = match v {
        Value::Addr(l) => symbols
            .name(l)
            .strip_prefix("instr:\"")
            .and_then(|t| t.strip_suffix('"')),
        Value::Int(_) => None,
    };
    let text = text.ok_or_else(|| {
        Stop::error(
            None,
            format!("fetched {}, which is no instruction", symbols.show(v)),
        )
    })?;
    crate::litmus::parse_instr(text, crate::litmus::ast::Arch::AArch64)
        .map_err(|e| Stop::error(None, format!("cannot decode `{text}`: {}", e.msg)))
}

/// Run one thread; returns its final registers as herd prints them (`X0`, even when
/// the code uses `W0`).
pub fn run(
    thread: &AsmThread,
    init: &ThreadInit,
    t: &mut Tracer,
) -> Result<BTreeMap<String, Value>, Stop> {
    let mut st = State {
        regs: BTreeMap::new(),
        opaque: BTreeSet::new(),
        flags: None,
        res: None,
        last_ex: None,
        stored: HashMap::new(),
        pick_ctrl: Deps::NONE,
        first: 0,
        code: HashMap::new(),
        labels: HashMap::new(),
        fault: None,
        faults: Vec::new(),
        init,
    };
    st.code = code_lines(thread, init);
    if init.symbols.vmsa {
        st.labels = instr_labels(thread);
    }
    for (name, v) in &init.regs {
        if let Some((n, _)) = parse_reg(name) {
            st.regs.insert(n, RVal::konst(*v));
        }
    }
    exec(thread, t, &mut st, step)?;
    let opaque = st.opaque;
    let mut regs: BTreeMap<String, Value> = st
        .regs
        .into_iter()
        .filter(|(n, _)| !opaque.contains(n))
        .map(|(n, v)| (format!("X{n}"), v.v))
        .collect();
    for (label, l) in st.faults {
        regs.insert(vmsa::fault_key(&label), Value::Addr(l));
    }
    Ok(regs)
}

/// Each instruction's label, by the (line, column) of the instruction.
fn instr_labels(thread: &AsmThread) -> HashMap<(u32, u32), String> {
    let mut out = HashMap::new();
    for (k, line) in thread.code.iter().enumerate() {
        let Some(label) = &line.label else { continue };
        if let Some(at) = thread.code[k..].iter().find(|c| c.instr.is_some()) {
            out.entry((at.span.line, at.span.col))
                .or_insert_with(|| label.clone());
        }
    }
    out
}

/// Register number and width (true for W); 31 is the zero register.
fn parse_reg(r: &str) -> Option<(u8, bool)> {
    let u = r.to_ascii_uppercase();
    match u.as_str() {
        "XZR" => return Some((31, false)),
        "WZR" => return Some((31, true)),
        _ => {}
    }
    let (w, n) = (u.starts_with('W'), u.strip_prefix(['X', 'W'])?);
    let n: u8 = n.parse().ok()?;
    (n < 31).then_some((n, w))
}

/// Bytes one access of register `r` covers: 4 for `Wn`, 8 for `Xn`.
fn reg_bytes(r: &str) -> i64 {
    if parse_reg(r).is_some_and(|(_, w)| w) {
        4
    } else {
        8
    }
}

fn w_mask(v: Value) -> Value {
    match v {
        Value::Int(i) => Value::Int(i & 0xffff_ffff),
        a => a,
    }
}

/// Register keys of herd's register events beyond `X0`..`X30`: the condition flags and
/// the exclusive monitor's reservation.
const NZCV: u32 = 32;
const RES: u32 = 33;

/// Record a read of register `key` (when register events are on): the value's source.
fn reg_read(t: &mut Tracer, key: u32) -> Result<Deps, Stop> {
    if !t.reg_events {
        return Ok(Deps::NONE);
    }
    Ok(Deps::one(t.reg_event(false, key)?))
}

/// Record a write of register `key` fed by `src` (`iico_data`).
fn reg_write(t: &mut Tracer, key: u32, src: Deps) -> Result<Option<usize>, Stop> {
    if !t.reg_events {
        return Ok(None);
    }
    let e = t.reg_event(true, key)?;
    for s in src.iter() {
        t.relate("iico_data", s, e);
    }
    Ok(Some(e))
}

/// `iico_data` from `src` to event `to`; register reads among `src` are tagged with
/// the port they feed (`ADDR` or `DATA`, herd's sets).
fn feed(t: &mut Tracer, src: Deps, to: usize, port: Option<&str>) {
    for s in src.iter() {
        t.relate("iico_data", s, to);
        if let Some(p) = port {
            let ev = &mut t.events_mut()[s];
            if ev.tags.iter().any(|x| x == "Rreg") && !ev.tags.iter().any(|x| x == p) {
                ev.tags.push(p.to_string());
            }
        }
    }
}

/// herd's `Branching(pred)` event of a selection (CSEL's condition, CAS's comparison),
/// fed by `src` and by the register reads `data` (tagged `DATA`); `None` without
/// register events.
fn predicate(t: &mut Tracer, src: Deps, data: Option<Deps>) -> Result<Option<usize>, Stop> {
    if !t.reg_events {
        return Ok(None);
    }
    let ev = super::EventData {
        kind: super::Kind::Branch,
        loc: None,
        val: None,
        tags: vec!["PRED".to_string()],
        instr: 0,
    };
    let p = t.event(ev, Deps::NONE, Deps::NONE)?;
    feed(t, src, p, None);
    if let Some(d) = data {
        feed(t, d, p, Some("DATA"));
    }
    Ok(Some(p))
}

/// `iico_ctrl` from each of `from` (a selection) to each of `to`.
fn selects(t: &mut Tracer, from: impl IntoIterator<Item = usize>, to: Deps) {
    let from: Vec<usize> = from.into_iter().collect();
    for f in from {
        for e in to.iter() {
            t.relate("iico_ctrl", f, e);
        }
    }
}

fn bad_reg(r: &str) -> Stop {
    Stop::error(None, format!("bad register {r}"))
}

impl State<'_> {
    fn reg(&self, t: &mut Tracer, r: &str) -> Result<RVal, Stop> {
        let (n, w) = parse_reg(r).ok_or_else(|| bad_reg(r))?;
        if n == 31 {
            return Ok(RVal::int(0));
        }
        let src = reg_read(t, n as u32)?;
        if self.opaque.contains(&n) {
            return Err(Stop::error(
                None,
                format!("{r} holds an address plus an offset, which is not supported"),
            ));
        }
        let v = RVal {
            src,
            ..self.regs.get(&n).copied().unwrap_or_default()
        };
        Ok(if w { v.map(w_mask(v.v)) } else { v })
    }
    fn set(&mut self, t: &mut Tracer, r: &str, v: RVal) -> Result<(), Stop> {
        let (n, w) = parse_reg(r).ok_or_else(|| bad_reg(r))?;
        if n != 31 {
            reg_write(t, n as u32, v.src)?;
            let v = RVal {
                src: Deps::NONE,
                ..v
            };
            self.opaque.remove(&n);
            self.regs.insert(n, if w { v.map(w_mask(v.v)) } else { v });
        }
        Ok(())
    }
    fn is_zr(r: &str) -> bool {
        parse_reg(r).is_some_and(|(n, _)| n == 31)
    }
    fn addr(&self, t: &mut Tracer, m: &Mem) -> Result<RVal, Stop> {
        let base = match &m.base {
            MemBase::Reg(r) => self.reg(t, r)?,
            MemBase::Sym(s) => {
                RVal::konst(Value::Addr(self.init.symbols.get(s).ok_or_else(|| {
                    Stop::error(None, format!("unknown location {s}"))
                })?))
            }
        };
        let syms = self.init.symbols;
        let mut a = base.map(add_addr(syms, base.v, Value::Int(m.offset))?);
        if let Some(ix) = &m.index {
            let i = extend(self.reg(t, ix)?, m.shift.as_ref())?;
            a = a.with(add_addr(syms, a.v, i.v)?, i);
        }
        Ok(a)
    }

    /// `d` without the reads of the current instruction: herd's dependencies relate
    /// distinct instructions only.
    fn outer(&self, d: Deps) -> Deps {
        match 1u128.checked_shl(self.first as u32) {
            Some(bit) => Deps(d.0 & (bit - 1)),
            None => d,
        }
    }

    /// `x` as the tracer takes it: its dependencies on earlier instructions only.
    fn traced(&self, x: RVal) -> TVal {
        TVal {
            v: x.v,
            deps: self.outer(x.deps),
        }
    }

    /// The tags of an explicit access to `a`: `tags`, `Exp`, and `Instr` on code.
    fn access_tags<'s>(&self, a: RVal, tags: &[&'s str]) -> Vec<&'s str> {
        let mut tags = tags.to_vec();
        tags.push("Exp");
        if is_code(self.init.symbols, a.v) {
            tags.push("Instr");
        }
        tags
    }
    fn relate_from(&self, t: &mut Tracer, name: &'static str, from: Deps, to: usize) {
        for r in self.outer(from).iter() {
            t.relate(name, r, to);
        }
    }

    /// A load from `a`: the value depends on the read, on its address (`iico_data`) and
    /// on what the po-latest store to the location depended on (`lmrs`).
    fn load(&mut self, t: &mut Tracer, a: RVal, tags: &[&str]) -> Result<(usize, RVal), Stop> {
        let (a, branch) = match self.translate(t, a)? {
            Ok(p) => p,
            Err(f) => return Ok((f, RVal::int(0))),
        };
        let r = self.load_at(t, a, tags)?;
        if let Some(b) = branch {
            t.relate("iico_ctrl", b, r.0);
        }
        Ok(r)
    }

    /// The translation of an explicit access to `a` (virtual-memory variant): the
    /// physical address and the translation's branch, or the fault event, recorded as
    /// the instruction's fault.
    fn translate(
        &mut self,
        t: &mut Tracer,
        a: RVal,
    ) -> Result<Result<(RVal, Option<usize>), usize>, Stop> {
        Ok(match vmsa::translate(t, self.traced(a))? {
            vmsa::Translation::Direct => Ok((a, None)),
            vmsa::Translation::Mapped { phys, branch } => Ok((a.map(phys), Some(branch))),
            vmsa::Translation::Fault { loc, event } => {
                self.fault = Some(loc);
                Err(event)
            }
        })
    }

    fn load_at(&mut self, t: &mut Tracer, a: RVal, tags: &[&str]) -> Result<(usize, RVal), Stop> {
        let tags = self.access_tags(a, tags);
        let (i, v) = t.read(self.traced(a), &tags)?;
        feed(t, a.src, i, Some("ADDR"));
        let via_mem = self.stored.get(&a.v).copied().unwrap_or_default();
        self.relate_from(t, "pick-addr-dep", a.pick, i);
        self.relate_from(t, "pick-dep", a.pick.union(via_mem.pick), i);
        Ok((
            i,
            RVal {
                v: v.v,
                deps: v.deps.union(a.deps).union(via_mem.deps),
                pick: v.deps.union(a.pick).union(via_mem.pick),
                src: Deps::one(i),
            },
        ))
    }

    /// A store of `data` to `a`. `data.deps` are `data` sources; `data.pick` and
    /// `pick_data` (selection of the written value, CAS's comparison) are
    /// `pick-data-dep` sources; `inner` is what else flows into the written value
    /// inside the instruction without being a register (an AMO's read).
    fn store(
        &mut self,
        t: &mut Tracer,
        a: RVal,
        data: RVal,
        pick_data: Deps,
        inner: RVal,
        tags: &[&str],
    ) -> Result<usize, Stop> {
        let (a, branch) = match self.translate(t, a)? {
            Ok(p) => p,
            Err(f) => return Ok(f),
        };
        let w = self.store_at(t, a, data, pick_data, inner, tags)?;
        if let Some(b) = branch {
            t.relate("iico_ctrl", b, w);
        }
        Ok(w)
    }

    fn store_at(
        &mut self,
        t: &mut Tracer,
        a: RVal,
        data: RVal,
        pick_data: Deps,
        inner: RVal,
        tags: &[&str],
    ) -> Result<usize, Stop> {
        let tags = self.access_tags(a, tags);
        let i = t.write(self.traced(a), self.traced(data), &tags)?;
        feed(t, a.src, i, Some("ADDR"));
        feed(t, data.src, i, Some("DATA"));
        feed(t, inner.src, i, None);
        let pick_data = data.pick.union(pick_data);
        self.relate_from(t, "pick-addr-dep", a.pick, i);
        self.relate_from(t, "pick-data-dep", pick_data, i);
        let all = a.pick.union(pick_data).union(inner.pick);
        self.relate_from(t, "pick-dep", all, i);
        let taint = Taint {
            deps: a.deps.union(data.deps).union(inner.deps),
            pick: all,
        };
        self.stored.insert(a.v, taint);
        Ok(i)
    }

    /// A conditional branch on `cond`: herd's `BCC`, source of `ctrl`.
    fn branch(&mut self, t: &mut Tracer, cond: RVal) -> Result<(), Stop> {
        let b = t.branch(self.outer(cond.deps), &["BCC"])?;
        feed(t, cond.src, b, None);
        self.pick_ctrl = self.pick_ctrl.union(self.outer(cond.pick));
        Ok(())
    }

    fn exclusive(&mut self, t: &mut Tracer, i: usize, read: bool) {
        if !read && let Some((r, true)) = self.last_ex {
            t.relate("rmw", r, i);
        }
        self.last_ex = Some((i, read));
    }

    fn flags(&self, t: &mut Tracer) -> Result<(Ordering, RVal), Stop> {
        let (o, v) = self
            .flags
            .ok_or_else(|| Stop::error(None, "condition flags read before any comparison"))?;
        let src = reg_read(t, NZCV)?;
        Ok((o, RVal { src, ..v }))
    }
    fn set_flags(&mut self, t: &mut Tracer, o: Ordering, v: RVal) -> Result<(), Stop> {
        reg_write(t, NZCV, v.src)?;
        self.flags = Some((
            o,
            RVal {
                src: Deps::NONE,
                ..v
            },
        ));
        Ok(())
    }
}

/// Apply an extend/shift modifier (`SXTW`, `UXTW`, `LSL #2`) to an index value.
fn extend(v: RVal, shift: Option<&(String, Option<i64>)>) -> Result<RVal, Stop> {
    let Some((kind, amount)) = shift else {
        return Ok(v);
    };
    let x = match (kind.to_ascii_uppercase().as_str(), v.v) {
        ("SXTW", Value::Int(i)) => Value::Int(i as i32 as i64),
        ("UXTW", Value::Int(i)) => Value::Int(i & 0xffff_ffff),
        ("SXTW" | "UXTW" | "LSL", x) => x,
        (k, _) => return Err(Stop::error(None, format!("unsupported extend {k}"))),
    };
    let x = match amount {
        Some(k) if *k != 0 => arith("lsl", x, Value::Int(*k))?,
        _ => x,
    };
    Ok(v.map(x))
}

fn cond_holds(c: &str, o: Ordering) -> Option<bool> {
    Some(match c {
        "EQ" => o == Ordering::Equal,
        "NE" => o != Ordering::Equal,
        "GE" => o != Ordering::Less,
        "GT" => o == Ordering::Greater,
        "LE" => o != Ordering::Greater,
        "LT" => o == Ordering::Less,
        "AL" => true,
        _ => return None,
    })
}

/// Second source of a data-processing instruction: register (with modifier) or immediate.
fn operand2(st: &State, t: &mut Tracer, args: &[Operand]) -> Result<Option<RVal>, Stop> {
    Ok(match args {
        [Operand::Imm(k)] => Some(RVal::int(*k)),
        [Operand::Reg(r)] => Some(st.reg(t, r)?),
        [Operand::Reg(r), Operand::Shift { kind, amount }] => {
            Some(extend(st.reg(t, r)?, Some(&(kind.clone(), *amount)))?)
        }
        _ => None,
    })
}

fn fence_tag(op: &str, args: &[Operand]) -> Option<String> {
    let opt = match args {
        [] => "SY".to_string(),
        [Operand::Sym(s)] | [Operand::Reg(s)] => s.to_ascii_uppercase(),
        _ => return None,
    };
    Some(format!("{op}.{opt}"))
}

/// Acquire/release suffix letters of an AMO mnemonic (`CASAL` → (true, true)).
fn amo_order(suffix: &str) -> Option<(bool, bool)> {
    Some(match suffix {
        "" => (false, false),
        "A" => (true, false),
        "L" => (false, true),
        "AL" => (true, true),
        _ => return None,
    })
}

/// One instruction, then the selection-aware control dependencies of its events (herd's
/// `pick-ctrl-dep`: every event po-after a conditional branch).
fn step(st: &mut State, i: &Instr, span: Span, t: &mut Tracer) -> Result<Flow, Stop> {
    st.first = t.events().len();
    let ctrl = st.pick_ctrl;
    let before = st.init.symbols.vmsa.then(|| st.regs.clone());
    let mut flow = match st.code.get(&(span.line, span.col)).copied() {
        Some(at) => fetch_and_run(st, at, span, t)?,
        None => step_instr(st, i, span, t)?,
    };
    // A faulting instruction has no effect on registers; with `fatal` it ends the thread.
    if let Some(l) = st.fault.take() {
        st.regs = before.unwrap_or_default();
        let label = st.labels.get(&(span.line, span.col)).cloned();
        st.faults.push((label.unwrap_or_default(), l));
        flow = if st.init.symbols.fatal {
            Flow::Exit
        } else {
            Flow::Next
        };
    }
    for e in st.first..t.events().len() {
        for r in ctrl.iter() {
            t.relate("pick-ctrl-dep", r, e);
            t.relate("pick-dep", r, e);
        }
    }
    Ok(flow)
}

/// An instruction in memory: an implicit fetch read of its location (herd's `IFetch`,
/// sets `Imp` and `Instr`) picks which instruction runs, the initial one or one a thread
/// wrote there; the fetch is intrinsically before the events of what it fetched
/// (`iico_ctrl`, the Arm ARM's Fetch-intrinsically-before).
fn fetch_and_run(st: &mut State, at: Value, span: Span, t: &mut Tracer) -> Result<Flow, Stop> {
    let (f, v) = t.read(TVal::konst(at), &["Imp", "Instr", "IFetch"])?;
    let i = decode(st.init.symbols, v.v)?;
    let flow = step_instr(st, &i, span, t)?;
    for e in f + 1..t.events().len() {
        t.relate("iico_ctrl", f, e);
    }
    Ok(flow)
}

/// A cache maintenance instruction on the line of the address in `r` (`DC CVAU`,
/// `IC IVAU`): an event at that location, neither read nor write, tagged `tag`.
fn cache_op(st: &State, t: &mut Tracer, r: &str, tag: &str) -> Result<(), Stop> {
    let a = st.reg(t, r)?;
    let ev = super::EventData {
        kind: super::Kind::Special,
        loc: Some(a.v),
        val: None,
        tags: vec![tag.to_string()],
        instr: 0,
    };
    let e = t.event(ev, st.outer(a.deps), Deps::NONE)?;
    feed(t, a.src, e, Some("ADDR"));
    st.relate_from(t, "pick-addr-dep", a.pick, e);
    st.relate_from(t, "pick-dep", a.pick, e);
    Ok(())
}

fn step_instr(st: &mut State, i: &Instr, _: Span, t: &mut Tracer) -> Result<Flow, Stop> {
    use Operand::{Imm, Mem as M, Reg, Sym};
    let op = i.op.to_ascii_uppercase();
    let args = i.args.as_slice();
    let next = Ok(Flow::Next);
    match (op.as_str(), args) {
        ("NOP", []) => next,
        ("ISB", []) => {
            t.fence(&["ISB"])?;
            next
        }
        ("DMB" | "DSB", a) => {
            let tag = fence_tag(&op, a).ok_or_else(|| unsupported(i, st.init.arch))?;
            t.fence(&[tag.as_str()])?;
            next
        }
        ("MOV", [Reg(d), Imm(k)]) => {
            st.set(t, d, RVal::int(*k))?;
            next
        }
        ("MOV", [Reg(d), Reg(s)]) => {
            let v = st.reg(t, s)?;
            st.set(t, d, v)?;
            next
        }
        ("ADR", [Reg(d), Sym(s)]) => {
            let l = st
                .init
                .symbols
                .get(s)
                .ok_or_else(|| unsupported(i, st.init.arch))?;
            st.set(t, d, RVal::konst(Value::Addr(l)))?;
            next
        }
        (
            o @ ("ADD" | "SUB" | "EOR" | "ORR" | "AND" | "LSL" | "LSR" | "ASR" | "ADDS" | "SUBS"
            | "ANDS"),
            [Reg(d), Reg(n), rest @ ..],
        ) => {
            let b = operand2(st, t, rest)?.ok_or_else(|| unsupported(i, st.init.arch))?;
            let a = st.reg(t, n)?;
            let f = match o.trim_end_matches('S') {
                "ADD" => "add",
                "SUB" => "sub",
                "EOR" => "xor",
                "ORR" => "or",
                "AND" => "and",
                "LSL" => "lsl",
                "LSR" => "lsr",
                _ => "asr",
            };
            // The page of a virtual address stays symbolic (virtual-memory variant).
            let r = match (f, b.v) {
                ("lsr", Value::Int(12)) => vmsa::page(st.init.symbols, a.v),
                _ => None,
            };
            // An array's base plus a byte offset is its cell there, as in an address.
            let plain = || match f {
                "add" => add_addr(st.init.symbols, a.v, b.v),
                _ => arith(f, a.v, b.v),
            };
            let v = a.with(r.map_or_else(plain, Ok)?, b);
            if o == "SUBS" {
                st.set_flags(t, compare(a.v, b.v)?, v)?;
            } else if o.ends_with('S') {
                st.set_flags(t, compare(v.v, Value::Int(0))?, v)?;
            }
            st.set(t, d, v)?;
            next
        }
        ("CMP", [Reg(n), rest @ ..]) => {
            let b = operand2(st, t, rest)?.ok_or_else(|| unsupported(i, st.init.arch))?;
            let a = st.reg(t, n)?;
            st.set_flags(t, compare(a.v, b.v)?, a.with(Value::ZERO, b))?;
            next
        }
        ("CSEL" | "CSINC", [Reg(d), Reg(a), Reg(b), Sym(c)]) => {
            let (o, flags) = st.flags(t)?;
            let holds = cond_holds(&c.to_ascii_uppercase(), o)
                .ok_or_else(|| unsupported(i, st.init.arch))?;
            // Which register the result is: decided by the flags, whose sources are no
            // dependency of the value (herd's `pick`), so decided as a branch is.
            let holds = t.decide(holds, flags.deps)?;
            // The condition selects (herd's iico_ctrl): only the selected register's
            // value flows into the result; the flags' sources are pick dependencies.
            let pred = predicate(t, flags.src, None)?;
            let v = if holds {
                st.reg(t, a)?
            } else if op == "CSINC" {
                let v = st.reg(t, b)?;
                v.map(arith("add", v.v, Value::Int(1))?)
            } else {
                st.reg(t, b)?
            };
            selects(t, pred, v.src);
            st.set(t, d, v.picked(flags.pick))?;
            next
        }
        // `B .+8`: relative to this instruction, 4 bytes each.
        ("B", [Sym(l)]) if l.starts_with('.') => {
            let bytes: i64 = l[1..].parse().map_err(|_| unsupported(i, st.init.arch))?;
            if bytes % 4 != 0 {
                return Err(Stop::error(None, format!("misaligned branch target {l}")));
            }
            Ok(Flow::Skip(bytes / 4))
        }
        ("B", [Sym(l)]) => Ok(Flow::Jump(l.clone())),
        ("TLBI", [Sym(op), Reg(r)]) => {
            let p = st.reg(t, r)?;
            let e = vmsa::tlbi(t, op, st.traced(p))?;
            feed(t, p.src, e, Some("ADDR"));
            next
        }
        ("DC", [Sym(op), Reg(r)]) if op == "CVAU" => {
            cache_op(st, t, r, "DC.CVAU")?;
            next
        }
        ("IC", [Sym(op), Reg(r)]) if op == "IVAU" => {
            cache_op(st, t, r, "IC.IVAU")?;
            next
        }
        (b, [Sym(l)]) if b.starts_with("B.") => {
            let (o, flags) = st.flags(t)?;
            let holds = cond_holds(&b[2..], o).ok_or_else(|| unsupported(i, st.init.arch))?;
            st.branch(t, flags)?;
            let holds = t.decide(holds, flags.deps)?;
            Ok(if holds {
                Flow::Jump(l.clone())
            } else {
                Flow::Next
            })
        }
        ("CBZ" | "CBNZ", [Reg(r), Sym(l)]) => {
            let v = st.reg(t, r)?;
            st.branch(t, v)?;
            let zero = t.decide(v.v == Value::Int(0), v.deps)?;
            Ok(if zero == (op == "CBZ") {
                Flow::Jump(l.clone())
            } else {
                Flow::Next
            })
        }
        // Loads and stores.
        (
            o @ ("LDR" | "LDAR" | "LDAPR" | "LDXR" | "LDAXR" | "LDRB" | "LDRH"),
            [Reg(d), M(m), post @ ..],
        ) => {
            let a = st.addr(t, m)?;
            let tags: &[&str] = match o {
                "LDAR" => &["A"],
                "LDAPR" => &["Q"],
                "LDXR" => &["EX"],
                "LDAXR" => &["EX", "A"],
                _ => &[],
            };
            let (e, v) = st.load(t, a, tags)?;
            if o.contains('X') {
                reg_write(t, RES, a.src)?;
                st.res = Some(a.v);
                st.exclusive(t, e, true);
            }
            st.set(t, d, v)?;
            post_index(st, t, m, post)?;
            next
        }
        (o @ ("STR" | "STLR" | "STRB" | "STRH"), [Reg(s), M(m), post @ ..]) => {
            let a = st.addr(t, m)?;
            let v = st.reg(t, s)?;
            let tags: &[&str] = if o == "STLR" { &["L"] } else { &[] };
            st.store(t, a, v, Deps::NONE, RVal::default(), tags)?;
            post_index(st, t, m, post)?;
            next
        }
        // FEAT_LRCPC3 pairs: two accesses, the first register's at the lower address,
        // ordered by the instruction itself (herd's `iico_order`).
        ("LDIAPP", [Reg(d1), Reg(d2), M(m)]) => {
            let a1 = st.addr(t, m)?;
            let a2 = a1.map(add_addr(st.init.symbols, a1.v, Value::Int(reg_bytes(d1)))?);
            let (e1, v1) = st.load(t, a1, &["Q"])?;
            let (e2, v2) = st.load(t, a2, &["Q"])?;
            t.relate("iico_order", e1, e2);
            st.set(t, d1, v1)?;
            st.set(t, d2, v2)?;
            next
        }
        ("STILP", [Reg(s1), Reg(s2), M(m)]) => {
            let a1 = st.addr(t, m)?;
            let a2 = a1.map(add_addr(st.init.symbols, a1.v, Value::Int(reg_bytes(s1)))?);
            let (v1, v2) = (st.reg(t, s1)?, st.reg(t, s2)?);
            let w1 = st.store(t, a1, v1, Deps::NONE, RVal::default(), &["L"])?;
            let w2 = st.store(t, a2, v2, Deps::NONE, RVal::default(), &["L"])?;
            t.relate("iico_order", w1, w2);
            next
        }
        (o @ ("STXR" | "STLXR"), [Reg(status), Reg(s), M(m)]) => {
            let a = st.addr(t, m)?;
            let v = st.reg(t, s)?;
            // herd: the store may fail; it may succeed only while the monitor holds
            // this address.
            let held = t.decide(st.res == Some(a.v), a.deps)?;
            let ok = held && t.choose(2)? == 1;
            st.res = None;
            // herd: the reservation controls the store and its own clearing.
            let res = reg_read(t, RES)?;
            if ok {
                let tags: &[&str] = if o == "STLXR" { &["EX", "L"] } else { &["EX"] };
                let w = st.store(t, a, v, Deps::NONE, RVal::default(), tags)?;
                selects(t, res.iter(), Deps::one(w));
                selects(t, a.src.iter(), Deps::one(w));
                st.exclusive(t, w, false);
            }
            if let Some(clear) = reg_write(t, RES, Deps::NONE)? {
                selects(t, res.iter(), Deps::one(clear));
            }
            st.set(t, status, RVal::int(if ok { 0 } else { 1 }))?;
            next
        }
        (o, [Reg(rs), Reg(rt), M(m)]) if o.starts_with("CAS") => {
            let (acq, rel) = amo_order(&o[3..]).ok_or_else(|| unsupported(i, st.init.arch))?;
            cas(st, t, acq, rel, rs, rt, m)?;
            next
        }
        (o, [Reg(rs), Reg(rt), M(m)]) if o.starts_with("SWP") => {
            let (acq, rel) = amo_order(&o[3..]).ok_or_else(|| unsupported(i, st.init.arch))?;
            amo(st, t, acq, rel, None, rs, rt, m)?;
            next
        }
        (o, [Reg(rs), Reg(rt), M(m)]) if o.starts_with("LD") && ldop(&o[2..]).is_some() => {
            let (f, sfx) = ldop(&o[2..]).unwrap_or_default();
            let (acq, rel) = amo_order(sfx).ok_or_else(|| unsupported(i, st.init.arch))?;
            amo(st, t, acq, rel, Some(f), rs, rt, m)?;
            next
        }
        (o, [Reg(rs), M(m)]) if o.starts_with("ST") && ldop(&o[2..]).is_some() => {
            let (f, sfx) = ldop(&o[2..]).unwrap_or_default();
            // ST<op> is LD<op> into the zero register; only the release form exists.
            let rel = match sfx {
                "" => false,
                "L" => true,
                _ => return Err(unsupported(i, st.init.arch)),
            };
            amo(st, t, false, rel, Some(f), rs, "XZR", m)?;
            next
        }
        _ => Err(unsupported(i, st.init.arch)),
    }
}

/// `LD<op>` family: operation and ordering suffix (`ADDAL` → ("add", "AL")).
fn ldop(s: &str) -> Option<(&'static str, &str)> {
    let ops = [
        ("ADD", "add"),
        ("EOR", "xor"),
        ("SET", "or"),
        ("CLR", "andnot"),
        ("SMAX", "max"),
        ("SMIN", "min"),
        ("UMAX", "umax"),
        ("UMIN", "umin"),
    ];
    ops.iter()
        .find_map(|(p, f)| s.strip_prefix(p).map(|sfx| (*f, sfx)))
}

/// Post-indexed addressing (`[X1],#4`): the base register moves after the access. An
/// address moved off its location cannot be represented; the register becomes opaque.
fn post_index(st: &mut State, t: &mut Tracer, m: &Mem, post: &[Operand]) -> Result<(), Stop> {
    match (post, &m.base) {
        ([], _) => Ok(()),
        ([Operand::Imm(k)], MemBase::Reg(r)) => {
            let b = st.reg(t, r)?;
            match arith("add", b.v, Value::Int(*k)) {
                Ok(v) => st.set(t, r, b.map(v)),
                Err(_) => {
                    let (n, _) = parse_reg(r).ok_or_else(|| bad_reg(r))?;
                    st.opaque.insert(n);
                    Ok(())
                }
            }
        }
        _ => Err(Stop::error(None, "unsupported addressing mode")),
    }
}

fn amo_tags(acq: bool, rel: bool, noret: bool) -> (Vec<&'static str>, Vec<&'static str>) {
    let r = if noret {
        vec!["X", "NoRet"]
    } else if acq {
        vec!["X", "A"]
    } else {
        vec!["X"]
    };
    let w = if rel { vec!["X", "L"] } else { vec!["X"] };
    (r, w)
}

/// SWP (f = None) and LD<op>: an atomic read and write of one instance, paired as `rmw`.
/// The written value is `rs` (SWP) or computed from `rs` and the value read (LD<op>,
/// whose read flows into the write inside the instruction).
#[allow(clippy::too_many_arguments)]
fn amo(
    st: &mut State,
    t: &mut Tracer,
    acq: bool,
    rel: bool,
    f: Option<&str>,
    rs: &str,
    rt: &str,
    m: &Mem,
) -> Result<(), Stop> {
    let a = st.addr(t, m)?;
    let src = st.reg(t, rs)?;
    let w32 = parse_reg(rs).is_some_and(|(_, w)| w);
    let mask = |v: Value| if w32 { w_mask(v) } else { v };
    let (rtags, wtags) = amo_tags(acq, rel, State::is_zr(rt));
    let (r, old) = st.load(t, a, &rtags)?;
    let old = old.map(mask(old.v));
    let (new, inner) = match f {
        None => (src, RVal::default()),
        Some(f) => (src.map(mask(arith(f, old.v, src.v)?)), old),
    };
    let w = st.store(t, a, new, Deps::NONE, inner, &wtags)?;
    t.relate("rmw", r, w);
    // herd: SWP's write does not use the value read; it is only ordered after it.
    let inside = if f.is_none() && t.reg_events {
        "iico_order"
    } else {
        "iico_data"
    };
    t.relate(inside, r, w);
    st.set(t, rt, old)
}

/// CAS: herd's three outcomes: success (read, write of `rt`); failure writing back the
/// value read; failure with a read only. Success needs the value read to equal `rs`.
///
/// The comparison (herd's branch on `rs` and the value read) selects the write
/// (`iico_ctrl`): its sources are pick dependencies of the write. herd runs success
/// twice: `rs` receives the value read either from memory or from `rs` itself (equal
/// values, different dependencies); both are explored. herd 7.58 also runs failure
/// without write-back twice: with and without the comparison controlling the write of
/// `rs` (`iico_ctrl`, so a pick dependency on `rs` and the value read); both are
/// explored too.
fn cas(
    st: &mut State,
    t: &mut Tracer,
    acq: bool,
    rel: bool,
    rs: &str,
    rt: &str,
    m: &Mem,
) -> Result<(), Stop> {
    let a = st.addr(t, m)?;
    let expect = st.reg(t, rs)?;
    let new = st.reg(t, rt)?;
    let noret = State::is_zr(rs);
    // Which outcome: 0 success, 1 failure with write-back, 2 failure without.
    let outcome = t.choose(3)?;
    let (rtags, wtags) = amo_tags(acq, rel, noret);
    let plain: Vec<&str> = if noret {
        vec!["X", "NoRet"]
    } else if acq {
        vec!["A"]
    } else {
        vec![]
    };
    let (r, old) = st.load(t, a, if outcome == 2 { &plain } else { &rtags })?;
    let equal = t.decide(old.v == expect.v, old.deps.union(expect.deps))?;
    if equal != (outcome == 0) {
        return Err(Stop::Dead);
    }
    // What the comparison depends on, by selection.
    let cmp = expect.with(Value::ZERO, old).pick_only();
    // herd's comparison: a branching event on `rs` and the value read, controlling
    // the write (`iico_ctrl`).
    let pred = predicate(t, old.src, Some(expect.src))?;
    let cmp = RVal {
        src: Deps::NONE,
        ..cmp
    };
    // Whether the write of `rs` is selected (`iico_ctrl`) by the comparison.
    let mut rs_selected = false;
    let result = match outcome {
        0 => {
            let w = st.store(t, a, new, expect.pick, cmp, &wtags)?;
            selects(t, pred, Deps::one(w));
            t.relate("rmw", r, w);
            if t.choose(2)? == 0 {
                rs_selected = true;
                expect.map(old.v).picked(cmp.pick)
            } else {
                old
            }
        }
        1 => {
            // The value read flows into the write-back, but not through a register.
            let data = RVal::konst(old.v);
            let inner = old.picked(cmp.pick);
            let w = st.store(t, a, data, expect.pick, inner, &wtags)?;
            selects(t, pred, Deps::one(w));
            t.relate("rmw", r, w);
            old
        }
        _ => {
            // herd 7.58 runs this outcome twice (`aarch64_cas_no`, `add_ctrl`): in one
            // run the comparison also controls (`iico_ctrl`) the write of `rs`, whose
            // value then depends by selection on `rs` and on the value read.
            if t.choose(2)? == 0 {
                rs_selected = true;
                old.picked(cmp.pick)
            } else {
                old
            }
        }
    };
    let before = t.events().len();
    st.set(t, rs, result)?;
    if rs_selected {
        let written = (before..t.events().len()).fold(Deps::NONE, |d, e| d.union(Deps::one(e)));
        selects(t, pred, written);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use super::super::asm_common::testing::*;
    use super::*;
    use crate::litmus::ast::Arch;

    fn at_idx(reg: &str, ix: &str) -> Operand {
        Operand::Mem(Mem {
            base: MemBase::Reg(reg.into()),
            index: Some(ix.into()),
            offset: 0,
            shift: Some(("SXTW".into(), None)),
            scale: None,
        })
    }
    fn addr(s: &crate::sem::Symbols, n: &str) -> Value {
        Value::Addr(s.get(n).unwrap())
    }

    #[test]
    fn mp_writer_dmb_and_stlr() {
        let s = syms(&["x", "y"]);
        let th = thread(
            0,
            vec![
                (None, "MOV", vec![r("W0"), Operand::Imm(1)]),
                (None, "STR", vec![r("W0"), at("X1")]),
                (None, "DMB", vec![Operand::Sym("SY".into())]),
                (None, "STLR", vec![r("W0"), at("X2")]),
            ],
        );
        let runs = explore(
            run,
            Arch::AArch64,
            &th,
            &[("X1", addr(&s, "x")), ("X2", addr(&s, "y"))],
            &s,
        );
        assert_eq!(runs.len(), 1);
        let e = &runs[0];
        assert_eq!(kinds(e), vec![Kind::Write, Kind::Fence, Kind::Write]);
        assert_eq!(e.events[1].tags, vec!["DMB.SY"]);
        assert_eq!(e.events[2].tags, vec!["L", "Exp"]);
        assert_eq!(e.regs["X0"], Value::Int(1));
    }

    #[test]
    fn ldar_then_addr_dependency_via_eor() {
        let s = syms(&["x", "y"]);
        let th = thread(
            1,
            vec![
                (None, "LDAR", vec![r("W0"), at("X1")]),
                (None, "EOR", vec![r("W2"), r("W0"), r("W0")]),
                (None, "LDR", vec![r("W3"), at_idx("X4", "W2")]),
            ],
        );
        let runs = explore(
            run,
            Arch::AArch64,
            &th,
            &[("X1", addr(&s, "y")), ("X4", addr(&s, "x"))],
            &s,
        );
        assert_eq!(runs.len(), 9);
        for e in &runs {
            assert_eq!(e.events[0].tags, vec!["A", "Exp"]);
            assert_eq!(e.events[1].loc, Some(addr(&s, "x")));
            assert!(has_rel(e, "addr", 0, 1));
            assert!(e.regs.contains_key("X3") && !e.regs.contains_key("W3"));
        }
    }

    #[test]
    fn ldxr_stxr_retry_loop() {
        let s = syms(&["x"]);
        let th = thread(
            0,
            vec![
                (Some("L"), "LDXR", vec![r("W0"), at("X1")]),
                (None, "ADD", vec![r("W0"), r("W0"), Operand::Imm(1)]),
                (None, "STXR", vec![r("W2"), r("W0"), at("X1")]),
                (None, "CBNZ", vec![r("W2"), Operand::Sym("L".into())]),
            ],
        );
        let runs = explore(run, Arch::AArch64, &th, &[("X1", addr(&s, "x"))], &s);
        assert_eq!(runs.len(), 3 + 9 + 27);
        for e in &runs {
            let w = e
                .events
                .iter()
                .rposition(|ev| ev.kind == Kind::Write)
                .unwrap();
            assert_eq!(e.events[w].tags, vec!["EX", "Exp"]);
            assert!(has_rel(e, "rmw", w as u32 - 1, w as u32));
            assert!(has_rel(e, "data", w as u32 - 1, w as u32));
            assert_eq!(e.regs["X2"], Value::Int(0));
        }
    }

    #[test]
    fn cas_success_and_failures() {
        let s = syms(&["x"]);
        let th = thread(0, vec![(None, "CASA", vec![r("W0"), r("W2"), at("X1")])]);
        let runs = explore(
            run,
            Arch::AArch64,
            &th,
            &[
                ("X1", addr(&s, "x")),
                ("X0", Value::Int(1)),
                ("X2", Value::Int(2)),
            ],
            &s,
        );
        // Success reads 1 (twice, as herd: `rs` takes the value from memory or from
        // itself); failures read 0 or 2, each with write-back or (twice) without.
        assert_eq!(runs.len(), 2 + 2 + 4);
        let ok: Vec<_> = runs
            .iter()
            .filter(|e| e.events.len() == 2 && e.events[0].val == Some(Value::Int(1)))
            .collect();
        assert_eq!(ok.len(), 2);
        assert_eq!(ok[0].events[0].tags, vec!["X", "A", "Exp"]);
        assert!(has_rel(ok[0], "rmw", 0, 1));
        let bare: Vec<_> = runs.iter().filter(|e| e.events.len() == 1).collect();
        assert_eq!(bare.len(), 4);
        assert!(
            bare.iter().all(|e| e.events[0].tags == vec!["A", "Exp"]
                && e.regs["X0"] == e.events[0].val.unwrap())
        );
    }

    #[test]
    fn ldadd_noret_and_swp() {
        let s = syms(&["x"]);
        let th = thread(
            0,
            vec![
                (None, "STADDL", vec![r("W3"), at("X1")]),
                (None, "SWPAL", vec![r("W3"), r("W4"), at("X1")]),
            ],
        );
        let runs = explore(
            run,
            Arch::AArch64,
            &th,
            &[("X1", addr(&s, "x")), ("X3", Value::Int(5))],
            &s,
        );
        assert_eq!(runs.len(), 9);
        for e in &runs {
            assert_eq!(e.events[0].tags, vec!["X", "NoRet", "Exp"]);
            assert_eq!(e.events[1].tags, vec!["X", "L", "Exp"]);
            assert_eq!(
                e.events[1].val,
                Some(Value::Int(e.events[0].val.unwrap().as_int().unwrap() + 5))
            );
            assert_eq!(e.events[2].tags, vec!["X", "A", "Exp"]);
            assert!(has_rel(e, "rmw", 0, 1) && has_rel(e, "rmw", 2, 3));
            assert_eq!(e.regs["X4"], e.events[2].val.unwrap());
        }
    }

    #[test]
    fn w_writes_zero_extend_and_ctrl_from_cbnz() {
        let s = syms(&["x", "y"]);
        let th = thread(
            0,
            vec![
                (None, "LDR", vec![r("W0"), at("X1")]),
                (None, "CBNZ", vec![r("W0"), Operand::Sym("L".into())]),
                (Some("L"), "MOV", vec![r("W5"), Operand::Imm(-1)]),
                (None, "STR", vec![r("W5"), at("X2")]),
            ],
        );
        let runs = explore(
            run,
            Arch::AArch64,
            &th,
            &[("X1", addr(&s, "x")), ("X2", addr(&s, "y"))],
            &s,
        );
        for e in &runs {
            assert_eq!(e.regs["X5"], Value::Int(0xffff_ffff));
            assert!(has_rel(e, "ctrl", 0, 2));
            assert!(!has_rel(e, "data", 0, 2));
        }
    }

    #[test]
    fn csel_gives_pick_addr_not_addr() {
        let s = syms(&["x", "za", "zb"]);
        let th = thread(
            0,
            vec![
                (None, "LDR", vec![r("W0"), at("X1")]),
                (None, "CMP", vec![r("W0"), Operand::Imm(0)]),
                (
                    None,
                    "CSEL",
                    vec![r("X5"), r("X10"), r("X11"), Operand::Sym("EQ".into())],
                ),
                (None, "STR", vec![r("W4"), at("X5")]),
            ],
        );
        let init = [
            ("X1", addr(&s, "x")),
            ("X10", addr(&s, "za")),
            ("X11", addr(&s, "zb")),
        ];
        let runs = explore(run, Arch::AArch64, &th, &init, &s);
        assert_eq!(runs.len(), 3);
        for e in &runs {
            let target = if e.events[0].val == Some(Value::Int(0)) {
                "za"
            } else {
                "zb"
            };
            assert_eq!(e.events[1].loc, Some(addr(&s, target)));
            assert!(has_rel(e, "pick-addr-dep", 0, 1) && has_rel(e, "pick-dep", 0, 1));
            assert!(!has_rel(e, "addr", 0, 1));
        }
    }

    #[test]
    fn cas_comparison_is_a_pick_data_dependency() {
        let s = syms(&["x", "y", "z"]);
        let th = thread(
            0,
            vec![
                (None, "LDR", vec![r("W5"), at("X1")]),
                (None, "CAS", vec![r("W5"), r("W4"), at("X3")]),
                (None, "STR", vec![r("W5"), at("X6")]),
            ],
        );
        let init = [
            ("X1", addr(&s, "x")),
            ("X3", addr(&s, "y")),
            ("X6", addr(&s, "z")),
            ("X4", Value::Int(2)),
        ];
        let runs = explore(run, Arch::AArch64, &th, &init, &s);
        let ok: Vec<_> = runs
            .iter()
            .filter(|e| e.events.len() == 4 && e.events[1].val == e.events[0].val)
            .collect();
        // x=0,1,2 each give a successful CAS, in two variants.
        assert_eq!(ok.len(), 6);
        for e in &ok {
            assert!(has_rel(e, "pick-data-dep", 0, 2) && !has_rel(e, "data", 0, 2));
            assert!(has_rel(e, "rmw", 1, 2) && !has_rel(e, "data", 1, 2));
        }
        // The value `rs` receives depends on the CAS's read in one variant only.
        let via_read = ok.iter().filter(|e| has_rel(e, "data", 1, 3)).count();
        assert_eq!(via_read, 3);
        assert!(ok.iter().all(|e| has_rel(e, "pick-data-dep", 1, 3)));
        // Failure without write-back, twice as herd 7.58: in one variant the
        // comparison also selects the write of `rs`, so what `rs` held before (read
        // from x) is a pick dependency of the store of `rs`.
        let bare: Vec<_> = runs
            .iter()
            .filter(|e| e.events.len() == 3 && e.events[1].val != e.events[0].val)
            .collect();
        assert!(!bare.is_empty() && bare.len() % 2 == 0);
        assert!(
            bare.iter()
                .all(|e| has_rel(e, "data", 1, 2) && !has_rel(e, "data", 0, 2))
        );
        let selected = bare
            .iter()
            .filter(|e| has_rel(e, "pick-data-dep", 0, 2))
            .count();
        assert_eq!(2 * selected, bare.len());
    }

    #[test]
    fn ldadd_has_no_data_dependency_inside_the_instruction() {
        let s = syms(&["x"]);
        let th = thread(0, vec![(None, "LDADD", vec![r("W3"), r("W4"), at("X1")])]);
        let runs = explore(run, Arch::AArch64, &th, &[("X1", addr(&s, "x"))], &s);
        assert_eq!(runs.len(), 3);
        for e in &runs {
            assert!(has_rel(e, "rmw", 0, 1) && !has_rel(e, "data", 0, 1));
        }
    }

    #[test]
    fn post_index_off_an_address_hides_the_register() {
        let s = syms(&["x"]);
        let mut post = vec![r("W2"), at("X3")];
        post.push(Operand::Imm(4));
        let th = thread(0, vec![(None, "STR", post)]);
        let runs = explore(run, Arch::AArch64, &th, &[("X3", addr(&s, "x"))], &s);
        assert_eq!(runs.len(), 1);
        assert!(!runs[0].regs.contains_key("X3"));
        assert_eq!(runs[0].events[0].loc, Some(addr(&s, "x")));
    }

    fn array2() -> crate::sem::Symbols {
        let mut s = syms(&[]);
        s.intern_array("x", 2, 4);
        s
    }

    #[test]
    fn offset_into_an_array_reaches_the_next_cell() {
        let s = array2();
        let mut m = at("X2");
        if let Operand::Mem(mm) = &mut m {
            mm.offset = 4;
        }
        let th = thread(0, vec![(None, "LDR", vec![r("W0"), m])]);
        let runs = explore(run, Arch::AArch64, &th, &[("X2", addr(&s, "x"))], &s);
        assert_eq!(runs[0].events[0].loc, Some(addr(&s, "x[1]")));
    }

    #[test]
    fn ldiapp_reads_both_cells_in_order() {
        let s = array2();
        let th = thread(0, vec![(None, "LDIAPP", vec![r("W0"), r("W1"), at("X2")])]);
        let runs = explore(run, Arch::AArch64, &th, &[("X2", addr(&s, "x"))], &s);
        assert_eq!(runs.len(), 9);
        for e in &runs {
            assert_eq!(kinds(e), vec![Kind::Read, Kind::Read]);
            assert_eq!(e.events[0].loc, Some(addr(&s, "x")));
            assert_eq!(e.events[1].loc, Some(addr(&s, "x[1]")));
            assert!(e.events.iter().all(|ev| ev.tags.contains(&"Q".to_string())));
            assert!(has_rel(e, "iico_order", 0, 1));
            assert_eq!(e.events[1].instr, e.events[0].instr);
        }
    }

    #[test]
    fn stilp_writes_both_cells_as_releases() {
        let s = array2();
        let th = thread(0, vec![(None, "STILP", vec![r("W0"), r("W1"), at("X2")])]);
        let regs = [
            ("X0", Value::Int(1)),
            ("X1", Value::Int(2)),
            ("X2", addr(&s, "x")),
        ];
        let runs = explore(run, Arch::AArch64, &th, &regs, &s);
        assert_eq!(runs.len(), 1);
        let e = &runs[0];
        assert_eq!(kinds(e), vec![Kind::Write, Kind::Write]);
        assert_eq!(e.events[1].loc, Some(addr(&s, "x[1]")));
        assert_eq!(e.events[1].val, Some(Value::Int(2)));
        assert!(has_rel(e, "iico_order", 0, 1));
    }

    /// Final values of `regs` of thread 1 in every allowed state of `src` under armv8.
    fn states_of(src: &str, regs: &[&str]) -> (Vec<Vec<i64>>, crate::judge::Judgement) {
        let test = crate::litmus::parse(src).expect("parses");
        let m = crate::model::load_shipped("armv8", &Default::default()).expect("model");
        let j = crate::judge::run(&test, &m.model, None, &Default::default()).expect("runs");
        let states = j
            .states
            .iter()
            .map(|st| {
                regs.iter()
                    .map(|r| {
                        j.shown
                            .iter()
                            .zip(st)
                            .find(|(l, _)| matches!(l, crate::litmus::ast::LocRef::Reg { reg, .. } if reg == r))
                            .and_then(|(_, v)| v.as_int())
                            .expect("register shown")
                    })
                    .collect()
            })
            .collect();
        (states, j)
    }

    #[test]
    fn vmsa_accesses_go_through_the_entry_and_an_invalid_one_faults() {
        // P0 remaps x to y's page, then unmaps it; P1 reads x through its entry.
        let src = "AArch64 T\nVariant=vmsa\n{ [y]=1; pteval_t 0:X0=(oa:PA(y), valid:1);\n\
                   pteval_t 0:X2=(oa:PA(y), valid:0); 0:X1=PTE(x); 1:X1=x; }\n\
                   P0          | P1              ;\n\
                   STR X0,[X1] | L0: LDR W2,[X1] ;\n\
                   STR X2,[X1] | MOV W3,#1       ;\n\
                   locations [1:X2; 1:X3;]\n\
                   exists (fault(P1:L0,x))\n";
        let (states, j) = states_of(src, &["X2", "X3"]);
        // x's own page (0), y's (1), or a fault that ends P1 before its MOV.
        assert_eq!(states, vec![vec![0, 0], vec![0, 1], vec![1, 1]]);
        let test = crate::litmus::parse(src).expect("parses");
        let shown: Vec<String> = j
            .states
            .iter()
            .map(|s| crate::report::herd::show_state(&j, s))
            .collect();
        assert!(shown.contains(&"1:X2=0; 1:X3=0; Fault(P1:L0,x,MMU:Translation);".to_string()));
        assert!(shown.contains(&"1:X2=1; 1:X3=1;  ~Fault(P1:L0,x);".to_string()));
        assert!(crate::report::herd::block(&test, &j).contains("exists (fault(P1:L0,x))"));
        assert_eq!(j.sat, 1);
    }

    #[test]
    fn a_completed_tlbi_orders_an_unmapping_before_later_writes() {
        let src = |sync: &str| {
            format!(
                "AArch64 T\nVariant=vmsa\n{{ pteval_t 0:X0=(oa:PA(x), valid:0); 0:X1=PTE(x);\n\
                 0:X2=x; 0:X4=y; 1:X2=x; 1:X4=y; }}\n\
                 P0              | P1              ;\n\
                 STR X0,[X1]     | LDR W0,[X4]     ;\n\
                 {sync}\n\
                 MOV W3,#1       | ISB             ;\n\
                 STR W3,[X4]     | L0: LDR W5,[X2] ;\n\
                 exists (1:X0=1 /\\ not (fault(P1:L0,x)))\n"
            )
        };
        let tlbi = "DSB ISH         | DSB SY          ;\n\
                    LSR X5,X2,#12   |                 ;\n\
                    TLBI VAAE1IS,X5 |                 ;\n\
                    DSB ISH         |                 ;";
        let (_, j) = states_of(&src(tlbi), &["X0"]);
        assert_eq!(j.sat, 0, "the TLBI and DSB order the unmapping first");
        assert!(j.flags.contains("Assuming-common-inner-shareable-domain"));
        let (_, j) = states_of(&src("DMB ST          | DSB SY          ;"), &["X0"]);
        assert!(j.sat > 0, "without a TLBI the old entry may still be used");
    }

    #[test]
    fn exposed_code_is_fetched_and_runs_what_was_written() {
        // P0 overwrites P1's NOP with a branch over the next instruction.
        let src = "AArch64 T\n{ ins_t 0:X0=instr:\"B .+8\"; 0:X1=1:L0; }\n\
                   P0          | P1         ;\n\
                   STR W0,[X1] | L0:        ;\n\
                               | NOP        ;\n\
                               | MOV W2,#1  ;\n\
                               | MOV W3,#1  ;\n\
                   exists (1:X2=0 /\\ 1:X3=1)\n";
        let (states, j) = states_of(src, &["X2", "X3"]);
        assert_eq!(states, vec![vec![0, 1], vec![1, 1]]);
        assert_eq!((j.sat, j.unsat), (1, 1));
        assert!(
            j.flags.is_empty(),
            "one modified instruction: {:?}",
            j.flags
        );
    }

    #[test]
    fn without_dic_a_fetch_may_see_an_older_instruction_than_the_one_before() {
        // MP on code: with DIC the second fetch cannot miss the first write's
        // predecessor in coherence; without it, nothing orders the two fetches.
        let body = "{ ins_t 0:X0=NOP; 0:X1=1:L1; 0:X2=1:L0; }\n\
                    P0          | P1        ;\n\
                    STR W0,[X1] | L0:       ;\n\
                    DMB ST      | B L1      ;\n\
                    STR W0,[X2] | MOV W9,#1 ;\n\
                                | L1:       ;\n\
                                | B L2      ;\n\
                                | MOV W8,#1 ;\n\
                                | L2:       ;\n\
                    exists (1:X9=1 /\\ 1:X8=0)\n";
        let (plain, j) = states_of(&format!("AArch64 T\n{body}"), &["X9", "X8"]);
        assert!(plain.contains(&vec![1, 0]));
        assert!(j.flags.iter().any(|f| f.contains("modified-instructions")));
        let (dic, _) = states_of(&format!("AArch64 T\nCacheType=DIC\n{body}"), &["X9", "X8"]);
        assert!(!dic.contains(&vec![1, 0]));
        assert_eq!(dic.len(), 3);
    }
}
