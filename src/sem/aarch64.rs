//! AArch64 instruction semantics, after herd's.
//!
//! Tags are herd's sets: `A` (LDAR, LDAXR, acquire AMOs), `Q` (LDAPR), `L` (STLR,
//! STLXR, release AMOs), `EX` (exclusives), `X` (AMO effects), `NoRet` (AMOs writing
//! to the zero register), fences `DMB.SY`, `DMB.ISHLD`, `DSB.ISH`, `ISB`...; every
//! memory event is also tagged `Exp` (explicit), conditional branches `BCC`.
//! `rmw` pairs an exclusive load with the next exclusive store (herd's `lxsx`) and the
//! read and write of one AMO.
//!
//! aarch64.cat computes `addr`/`data`/`ctrl` itself (`catdep`) through register
//! dataflow, intra-instruction dataflow and po-earlier same-location stores. We follow
//! that here in the values' dependencies: a loaded value also depends on what its
//! address depended on, and on what the po-latest store to that location depended on.

use super::asm_common::{Flow, arith, compare, exec, unsupported};
use super::{Deps, Stop, TVal, ThreadInit, Tracer, Value};
use crate::litmus::ast::{AsmThread, Instr, Mem, MemBase, Operand, Span};
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

struct State<'a> {
    /// `X0`..`X30`, full 64-bit values.
    regs: BTreeMap<u8, TVal>,
    flags: Option<(Ordering, Deps)>,
    /// Exclusive monitor: the address reserved by the last LDXR.
    res: Option<Value>,
    /// The last exclusive event: index, is-read.
    last_ex: Option<(usize, bool)>,
    /// Per location, what the po-latest store depended on (address and data).
    stored: HashMap<Value, Deps>,
    init: &'a ThreadInit<'a>,
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
        flags: None,
        res: None,
        last_ex: None,
        stored: HashMap::new(),
        init,
    };
    for (name, v) in &init.regs {
        if let Some((n, _)) = parse_reg(name) {
            st.regs.insert(n, TVal::konst(*v));
        }
    }
    exec(thread, t, &mut st, step)?;
    Ok(st
        .regs
        .into_iter()
        .map(|(n, v)| (format!("X{n}"), v.v))
        .collect())
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

fn w_mask(v: Value) -> Value {
    match v {
        Value::Int(i) => Value::Int(i & 0xffff_ffff),
        a => a,
    }
}

impl State<'_> {
    fn reg(&self, r: &str) -> Result<TVal, Stop> {
        let (n, w) = parse_reg(r).ok_or_else(|| Stop::error(None, format!("bad register {r}")))?;
        if n == 31 {
            return Ok(TVal::int(0));
        }
        let v = self.regs.get(&n).copied().unwrap_or(TVal::int(0));
        Ok(if w {
            TVal {
                v: w_mask(v.v),
                ..v
            }
        } else {
            v
        })
    }
    fn set(&mut self, r: &str, v: TVal) -> Result<(), Stop> {
        let (n, w) = parse_reg(r).ok_or_else(|| Stop::error(None, format!("bad register {r}")))?;
        if n != 31 {
            let v = if w {
                TVal {
                    v: w_mask(v.v),
                    ..v
                }
            } else {
                v
            };
            self.regs.insert(n, v);
        }
        Ok(())
    }
    fn is_zr(r: &str) -> bool {
        parse_reg(r).is_some_and(|(n, _)| n == 31)
    }
    fn addr(&self, m: &Mem) -> Result<TVal, Stop> {
        let base = match &m.base {
            MemBase::Reg(r) => self.reg(r)?,
            MemBase::Sym(s) => {
                TVal::konst(Value::Addr(self.init.symbols.get(s).ok_or_else(|| {
                    Stop::error(None, format!("unknown location {s}"))
                })?))
            }
        };
        let mut a = base.with(arith("add", base.v, Value::Int(m.offset))?, base);
        if let Some(ix) = &m.index {
            let i = extend(self.reg(ix)?, m.shift.as_ref())?;
            a = a.with(arith("add", a.v, i.v)?, i);
        }
        Ok(a)
    }
    /// A load: the value depends on the read, on its address's sources, and on what the
    /// po-latest store to the location depended on (aarch64.cat's `dtrm`).
    fn load(&mut self, t: &mut Tracer, a: TVal, tags: &[&str]) -> Result<(usize, TVal), Stop> {
        let mut tags = tags.to_vec();
        tags.push("Exp");
        let (i, v) = t.read(a, &tags)?;
        let via_mem = self.stored.get(&a.v).copied().unwrap_or(Deps::NONE);
        Ok((
            i,
            TVal {
                v: v.v,
                deps: v.deps.union(a.deps).union(via_mem),
            },
        ))
    }
    fn store(&mut self, t: &mut Tracer, a: TVal, v: TVal, tags: &[&str]) -> Result<usize, Stop> {
        let mut tags = tags.to_vec();
        tags.push("Exp");
        let i = t.write(a, v, &tags)?;
        self.stored.insert(a.v, a.deps.union(v.deps));
        Ok(i)
    }
    fn exclusive(&mut self, t: &mut Tracer, i: usize, read: bool) {
        if !read && let Some((r, true)) = self.last_ex {
            t.relate("rmw", r, i);
        }
        self.last_ex = Some((i, read));
    }
}

/// Apply an extend/shift modifier (`SXTW`, `UXTW`, `LSL #2`) to an index value.
fn extend(v: TVal, shift: Option<&(String, Option<i64>)>) -> Result<TVal, Stop> {
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
    Ok(TVal { v: x, deps: v.deps })
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
fn operand2(st: &State, args: &[Operand]) -> Result<Option<TVal>, Stop> {
    Ok(match args {
        [Operand::Imm(k)] => Some(TVal::int(*k)),
        [Operand::Reg(r)] => Some(st.reg(r)?),
        [Operand::Reg(r), Operand::Shift { kind, amount }] => {
            Some(extend(st.reg(r)?, Some(&(kind.clone(), *amount)))?)
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

fn step(st: &mut State, i: &Instr, _: Span, t: &mut Tracer) -> Result<Flow, Stop> {
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
            let tag = fence_tag(&op, a).ok_or_else(|| unsupported(i))?;
            t.fence(&[tag.as_str()])?;
            next
        }
        ("MOV", [Reg(d), Imm(k)]) => {
            st.set(d, TVal::int(*k))?;
            next
        }
        ("MOV", [Reg(d), Reg(s)]) => {
            let v = st.reg(s)?;
            st.set(d, v)?;
            next
        }
        ("ADR", [Reg(d), Sym(s)]) => {
            let l = st.init.symbols.get(s).ok_or_else(|| unsupported(i))?;
            st.set(d, TVal::konst(Value::Addr(l)))?;
            next
        }
        (
            o @ ("ADD" | "SUB" | "EOR" | "ORR" | "AND" | "LSL" | "LSR" | "ASR" | "ADDS" | "SUBS"
            | "ANDS"),
            [Reg(d), Reg(n), rest @ ..],
        ) => {
            let b = operand2(st, rest)?.ok_or_else(|| unsupported(i))?;
            let a = st.reg(n)?;
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
            let v = a.with(arith(f, a.v, b.v)?, b);
            if o == "SUBS" {
                st.flags = Some((compare(a.v, b.v)?, v.deps));
            } else if o.ends_with('S') {
                st.flags = Some((compare(v.v, Value::Int(0))?, v.deps));
            }
            st.set(d, v)?;
            next
        }
        ("CMP", [Reg(n), rest @ ..]) => {
            let b = operand2(st, rest)?.ok_or_else(|| unsupported(i))?;
            let a = st.reg(n)?;
            st.flags = Some((compare(a.v, b.v)?, a.deps.union(b.deps)));
            next
        }
        ("CSEL" | "CSINC", [Reg(d), Reg(a), Reg(b), Sym(c)]) => {
            let (o, _) = st
                .flags
                .ok_or_else(|| Stop::error(None, "CSEL without flags"))?;
            let holds = cond_holds(&c.to_ascii_uppercase(), o).ok_or_else(|| unsupported(i))?;
            // The condition selects (herd's iico_ctrl); only the selected register's
            // value flows into the result.
            let v = if holds {
                st.reg(a)?
            } else if op == "CSINC" {
                let v = st.reg(b)?;
                v.with(arith("add", v.v, Value::Int(1))?, v)
            } else {
                st.reg(b)?
            };
            st.set(d, v)?;
            next
        }
        ("B", [Sym(l)]) => Ok(Flow::Jump(l.clone())),
        (b, [Sym(l)]) if b.starts_with("B.") => {
            let (o, deps) = st
                .flags
                .ok_or_else(|| Stop::error(None, "conditional branch without flags"))?;
            let holds = cond_holds(&b[2..], o).ok_or_else(|| unsupported(i))?;
            t.branch(deps, &["BCC"])?;
            Ok(if holds {
                Flow::Jump(l.clone())
            } else {
                Flow::Next
            })
        }
        ("CBZ" | "CBNZ", [Reg(r), Sym(l)]) => {
            let v = st.reg(r)?;
            t.branch(v.deps, &["BCC"])?;
            let zero = v.v == Value::Int(0);
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
            let a = st.addr(m)?;
            let tags: &[&str] = match o {
                "LDAR" => &["A"],
                "LDAPR" => &["Q"],
                "LDXR" => &["EX"],
                "LDAXR" => &["EX", "A"],
                _ => &[],
            };
            let (e, v) = st.load(t, a, tags)?;
            if o.contains('X') {
                st.res = Some(a.v);
                st.exclusive(t, e, true);
            }
            st.set(d, v)?;
            post_index(st, m, post)?;
            next
        }
        (o @ ("STR" | "STLR" | "STRB" | "STRH"), [Reg(s), M(m), post @ ..]) => {
            let a = st.addr(m)?;
            let v = st.reg(s)?;
            st.store(t, a, v, if o == "STLR" { &["L"] } else { &[] })?;
            post_index(st, m, post)?;
            next
        }
        (o @ ("STXR" | "STLXR"), [Reg(status), Reg(s), M(m)]) => {
            let a = st.addr(m)?;
            let v = st.reg(s)?;
            // herd: the store may fail; it may succeed only while the monitor holds
            // this address.
            let ok = st.res == Some(a.v) && t.choose(2)? == 1;
            st.res = None;
            if ok {
                let tags: &[&str] = if o == "STLXR" { &["EX", "L"] } else { &["EX"] };
                let w = st.store(t, a, v, tags)?;
                st.exclusive(t, w, false);
            }
            st.set(status, TVal::int(if ok { 0 } else { 1 }))?;
            next
        }
        (o, [Reg(rs), Reg(rt), M(m)]) if o.starts_with("CAS") => {
            let (acq, rel) = amo_order(&o[3..]).ok_or_else(|| unsupported(i))?;
            cas(st, t, acq, rel, rs, rt, m)?;
            next
        }
        (o, [Reg(rs), Reg(rt), M(m)]) if o.starts_with("SWP") => {
            let (acq, rel) = amo_order(&o[3..]).ok_or_else(|| unsupported(i))?;
            amo(st, t, acq, rel, None, rs, rt, m)?;
            next
        }
        (o, [Reg(rs), Reg(rt), M(m)]) if o.starts_with("LD") && ldop(&o[2..]).is_some() => {
            let (f, sfx) = ldop(&o[2..]).unwrap_or_default();
            let (acq, rel) = amo_order(sfx).ok_or_else(|| unsupported(i))?;
            amo(st, t, acq, rel, Some(f), rs, rt, m)?;
            next
        }
        (o, [Reg(rs), M(m)]) if o.starts_with("ST") && ldop(&o[2..]).is_some() => {
            let (f, sfx) = ldop(&o[2..]).unwrap_or_default();
            // ST<op> is LD<op> into the zero register; only the release form exists.
            let rel = match sfx {
                "" => false,
                "L" => true,
                _ => return Err(unsupported(i)),
            };
            amo(st, t, false, rel, Some(f), rs, "XZR", m)?;
            next
        }
        _ => Err(unsupported(i)),
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

fn post_index(st: &mut State, m: &Mem, post: &[Operand]) -> Result<(), Stop> {
    match (post, &m.base) {
        ([], _) => Ok(()),
        ([Operand::Imm(k)], MemBase::Reg(r)) => {
            let b = st.reg(r)?;
            st.set(r, b.with(arith("add", b.v, Value::Int(*k))?, b))
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
    let a = st.addr(m)?;
    let src = st.reg(rs)?;
    let w32 = parse_reg(rs).is_some_and(|(_, w)| w);
    let (rtags, wtags) = amo_tags(acq, rel, State::is_zr(rt));
    let (r, old) = st.load(t, a, &rtags)?;
    let old = if w32 {
        TVal {
            v: w_mask(old.v),
            ..old
        }
    } else {
        old
    };
    let new = match f {
        None => src,
        Some(f) => old.with(arith(f, old.v, src.v)?, src),
    };
    let new = if w32 {
        TVal {
            v: w_mask(new.v),
            ..new
        }
    } else {
        new
    };
    let w = st.store(t, a, new, &wtags)?;
    t.relate("rmw", r, w);
    t.relate("iico_data", r, w);
    st.set(rt, old)
}

/// CAS: herd's three outcomes: success (read, write of `rt`); failure writing back the
/// value read; failure with a read only. Success needs the value read to equal `rs`.
fn cas(
    st: &mut State,
    t: &mut Tracer,
    acq: bool,
    rel: bool,
    rs: &str,
    rt: &str,
    m: &Mem,
) -> Result<(), Stop> {
    let a = st.addr(m)?;
    let expect = st.reg(rs)?;
    let new = st.reg(rt)?;
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
    let equal = old.v == expect.v;
    if equal != (outcome == 0) {
        return Err(Stop::Dead);
    }
    if outcome < 2 {
        let v = if outcome == 0 { new } else { old };
        let w = st.store(t, a, v, &wtags)?;
        t.relate("rmw", r, w);
    }
    st.set(rs, old)
}

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use super::super::asm_common::testing::*;
    use super::*;
    use crate::litmus::ast::Arch;

    fn r(n: &str) -> Operand {
        Operand::Reg(n.into())
    }
    fn at(reg: &str) -> Operand {
        Operand::Mem(Mem {
            base: MemBase::Reg(reg.into()),
            index: None,
            offset: 0,
            shift: None,
            scale: None,
        })
    }
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
        // Success reads 1; failures read 0 or 2, each with or without write-back.
        assert_eq!(runs.len(), 1 + 2 + 2);
        let ok: Vec<_> = runs
            .iter()
            .filter(|e| e.events.len() == 2 && e.events[0].val == Some(Value::Int(1)))
            .collect();
        assert_eq!(ok.len(), 1);
        assert_eq!(ok[0].events[0].tags, vec!["X", "A", "Exp"]);
        assert!(has_rel(ok[0], "rmw", 0, 1));
        let bare: Vec<_> = runs.iter().filter(|e| e.events.len() == 1).collect();
        assert_eq!(bare.len(), 2);
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
}
