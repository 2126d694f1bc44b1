//! x86 instruction semantics: Intel syntax (`X86`, `MOV EAX,[x]`) and AT&T syntax
//! (`X86_64`, `movq (x),%rax`).
//!
//! As in herd, locked instructions (`XCHG` with memory, `LOCK`-prefixed ones) make an
//! atomic read and write tagged `X` in one instruction instance, which the enumerator
//! pairs as `rmw`; the written value depends on the read (`data`, herd's internal RMW
//! dependency). Fences are tagged `MFENCE`, `LFENCE`, `SFENCE`.
//!
//! `CMPXCHG ea,r` follows herd's X86_64 semantics (operands in herd's order, memory
//! first; AT&T's `cmpxchg %r,mem` is accepted too): read `ea`, compare with `RAX`/`EAX`
//! (which sets ZF), then write `r` to `ea` on success or the value read to `RAX` on
//! failure. `LOCK CMPXCHG` makes its memory events `X`, so a success is an `rmw` pair
//! and a failure a lone atomic read; without `LOCK` they are plain. herd has no 32-bit
//! `X86` CMPXCHG ("not implemented"): we give it the same semantics, an extension.

use super::asm_common::{Flow, add_addr_t, arith_t, compare, exec, unsupported};
use super::{Stop, TVal, ThreadInit, Tracer, Value};
use crate::litmus::ast::{Arch, AsmThread, Instr, Mem, MemBase, Operand};
use std::cmp::Ordering;
use std::collections::BTreeMap;

struct State<'a> {
    regs: BTreeMap<String, TVal>,
    /// Result of the last comparison and its dependencies.
    flags: Option<(Ordering, TVal)>,
    init: &'a ThreadInit<'a>,
    att: bool,
}

/// Run one thread; returns its final registers, named as herd prints them (`EAX` for
/// X86, `rax` for X86_64).
pub fn run(
    thread: &AsmThread,
    init: &ThreadInit,
    t: &mut Tracer,
) -> Result<BTreeMap<String, Value>, Stop> {
    let att = init.arch == Arch::X86_64;
    let mut st = State {
        regs: BTreeMap::new(),
        flags: None,
        init,
        att,
    };
    for (name, v) in &init.regs {
        st.regs.insert(canon(name, att), TVal::konst(*v));
    }
    exec(thread, t, &mut st, step)?;
    Ok(st.regs.into_iter().map(|(k, v)| (k, v.v)).collect())
}

/// A register's canonical (full-width) name: `EAX` on X86; `rax` for `%eax`, `%ax`...
fn canon(r: &str, att: bool) -> String {
    let r = r.trim_start_matches('%');
    if !att {
        return r.to_ascii_uppercase();
    }
    let l = r.to_ascii_lowercase();
    let base = match l.as_str() {
        "eax" | "ax" | "al" => "rax",
        "ebx" | "bx" | "bl" => "rbx",
        "ecx" | "cx" | "cl" => "rcx",
        "edx" | "dx" | "dl" => "rdx",
        "esi" | "si" | "sil" => "rsi",
        "edi" | "di" | "dil" => "rdi",
        "esp" | "sp" => "rsp",
        "ebp" | "bp" => "rbp",
        _ => {
            // r8d, r8w, r8b → r8
            if let Some(n) = l
                .strip_prefix('r')
                .map(|s| s.trim_end_matches(['d', 'w', 'b']))
                && n.parse::<u8>().is_ok()
            {
                return format!("r{n}");
            }
            return l;
        }
    };
    base.to_string()
}

impl State<'_> {
    fn reg(&self, r: &str) -> TVal {
        self.regs
            .get(&canon(r, self.att))
            .copied()
            .unwrap_or(TVal::int(0))
    }
    /// The accumulator CMPXCHG compares with: `RAX` (`EAX` on X86).
    fn acc(&self) -> String {
        if self.att { "rax" } else { "EAX" }.to_string()
    }
    fn set(&mut self, r: &str, v: TVal) {
        self.regs.insert(canon(r, self.att), v);
    }
    fn addr(&self, m: &Mem) -> Result<TVal, Stop> {
        let base = match &m.base {
            MemBase::Reg(r) => self.reg(r),
            MemBase::Sym(s) => sym(self.init, s)?,
        };
        let mut a = base;
        if let Some(ix) = &m.index {
            let i = self.reg(ix);
            let i = arith_t("mul", i, TVal::int(m.scale.unwrap_or(1)))?;
            a = add_addr_t(self.init.symbols, a, i)?;
        }
        add_addr_t(self.init.symbols, a, TVal::int(m.offset))
    }
    /// The value of a source operand (register or immediate, or a symbol's address).
    fn src(&self, o: &Operand) -> Result<Option<TVal>, Stop> {
        Ok(match o {
            Operand::Reg(r) => Some(self.reg(r)),
            Operand::Imm(i) => Some(TVal::int(*i)),
            Operand::Sym(s) => Some(sym(self.init, s)?),
            _ => None,
        })
    }
}

fn sym(init: &ThreadInit, s: &str) -> Result<TVal, Stop> {
    let s = s.trim_start_matches('$');
    match init.symbols.get(s) {
        Some(l) => Ok(TVal::konst(Value::Addr(l))),
        None => Err(Stop::error(None, format!("unknown location {s}"))),
    }
}

/// Mnemonic without AT&T size suffix and `LOCK` prefix, upper case; and whether locked.
fn mnemonic(op: &str, att: bool) -> (String, bool) {
    let up = op.to_ascii_uppercase();
    let (locked, m) = match up.strip_prefix("LOCK") {
        Some(rest) => (true, rest.trim_start_matches([' ', ';']).to_string()),
        None => (false, up),
    };
    if att {
        let known = [
            "MOV", "XCHG", "ADD", "SUB", "XOR", "AND", "OR", "INC", "DEC", "CMPXCHG", "CMP", "XADD",
        ];
        for k in known {
            if let Some(s) = m.strip_prefix(k)
                && matches!(s, "B" | "W" | "L" | "Q")
            {
                return (k.to_string(), locked);
            }
        }
    }
    (m, locked)
}

fn step(
    st: &mut State,
    i: &Instr,
    _: crate::litmus::ast::Span,
    t: &mut Tracer,
) -> Result<Flow, Stop> {
    let (m, locked) = mnemonic(&i.op, st.att);
    // Operands in Intel order: destination first.
    let args: Vec<&Operand> = if st.att {
        i.args.iter().rev().collect()
    } else {
        i.args.iter().collect()
    };
    let atomic = |extra: &[&'static str]| -> Vec<&'static str> {
        let mut v = vec!["X"];
        v.extend_from_slice(extra);
        v
    };
    match (m.as_str(), args.as_slice()) {
        ("MFENCE", []) => fence(t, "MFENCE"),
        ("LFENCE", []) => fence(t, "LFENCE"),
        ("SFENCE", []) => fence(t, "SFENCE"),
        ("NOP", []) => Ok(Flow::Next),
        ("MOV", [Operand::Mem(d), s]) if !locked => {
            let v = st.src(s)?.ok_or_else(|| unsupported(i, st.init.arch))?;
            let a = st.addr(d)?;
            t.write(a, v, &[])?;
            Ok(Flow::Next)
        }
        ("MOV", [Operand::Reg(d), Operand::Mem(s)]) if !locked => {
            let a = st.addr(s)?;
            let (_, v) = t.read(a, &[])?;
            st.set(d, v);
            Ok(Flow::Next)
        }
        ("MOV", [Operand::Reg(d), s]) if !locked => {
            let v = st.src(s)?.ok_or_else(|| unsupported(i, st.init.arch))?;
            st.set(d, v);
            Ok(Flow::Next)
        }
        ("XCHG", [Operand::Mem(m), Operand::Reg(r)])
        | ("XCHG", [Operand::Reg(r), Operand::Mem(m)]) => {
            let a = st.addr(m)?;
            let v = st.reg(r);
            let (_, old) = t.read(a, &atomic(&[]))?;
            t.write(a, v, &atomic(&[]))?;
            st.set(r, old);
            Ok(Flow::Next)
        }
        ("XCHG", [Operand::Reg(a), Operand::Reg(b)]) => {
            let (va, vb) = (st.reg(a), st.reg(b));
            st.set(a, vb);
            st.set(b, va);
            Ok(Flow::Next)
        }
        (op @ ("ADD" | "SUB" | "XOR" | "AND" | "OR" | "INC" | "DEC" | "XADD"), [d, rest @ ..]) => {
            let src = match (op, rest) {
                ("INC" | "DEC", []) => TVal::int(1),
                (_, [s]) => st.src(s)?.ok_or_else(|| unsupported(i, st.init.arch))?,
                _ => return Err(unsupported(i, st.init.arch)),
            };
            let f = match op {
                "ADD" | "INC" | "XADD" => "add",
                "SUB" | "DEC" => "sub",
                "XOR" => "xor",
                "AND" => "and",
                _ => "or",
            };
            match d {
                Operand::Reg(r) if !locked => {
                    // An array's base plus a byte offset is its cell there.
                    let v = match f {
                        "add" => add_addr_t(st.init.symbols, st.reg(r), src)?,
                        _ => arith_t(f, st.reg(r), src)?,
                    };
                    if op == "XADD"
                        && let [Operand::Reg(s)] = rest
                    {
                        let old = st.reg(r);
                        st.set(s, old);
                    }
                    st.flags = Some((compare(v.v, Value::Int(0))?, v));
                    st.set(r, v);
                }
                Operand::Mem(m) => {
                    let a = st.addr(m)?;
                    let tags = if locked { atomic(&[]) } else { vec![] };
                    let (re, old) = t.read(a, &tags)?;
                    let v = arith_t(f, old, src)?;
                    let w = t.write(a, v, &tags)?;
                    if locked {
                        t.relate("iico_data", re, w);
                    }
                    if op == "XADD"
                        && let [Operand::Reg(s)] = rest
                    {
                        st.set(s, old);
                    }
                    st.flags = Some((compare(v.v, Value::Int(0))?, v));
                }
                _ => return Err(unsupported(i, st.init.arch)),
            }
            Ok(Flow::Next)
        }
        ("CMPXCHG", _) => cmpxchg(st, i, locked, t),
        ("CMP", [a, b]) => {
            let (va, vb) = (
                st.src(a)?.ok_or_else(|| unsupported(i, st.init.arch))?,
                st.src(b)?.ok_or_else(|| unsupported(i, st.init.arch))?,
            );
            st.flags = Some((compare(va.v, vb.v)?, va.with(va.v, vb)));
            Ok(Flow::Next)
        }
        ("JMP", [Operand::Sym(l)]) => Ok(Flow::Jump(l.clone())),
        (j @ ("JE" | "JNE" | "JZ" | "JNZ" | "JL" | "JLE" | "JG" | "JGE"), [Operand::Sym(l)]) => {
            let (ord, dep) = st
                .flags
                .ok_or_else(|| Stop::error(None, "conditional jump without flags"))?;
            t.branch(dep.deps, &[])?;
            let taken = match j {
                "JE" | "JZ" => ord == Ordering::Equal,
                "JNE" | "JNZ" => ord != Ordering::Equal,
                "JL" => ord == Ordering::Less,
                "JLE" => ord != Ordering::Greater,
                "JG" => ord == Ordering::Greater,
                _ => ord != Ordering::Less,
            };
            let taken = t.decide(taken, dep.deps)?;
            Ok(if taken {
                Flow::Jump(l.clone())
            } else {
                Flow::Next
            })
        }
        _ => Err(unsupported(i, st.init.arch)),
    }
}

/// `CMPXCHG ea,r` (see the module doc). Operands as written: herd's order `ea,r` in
/// both syntaxes; when one operand is memory it is `ea` whatever its position.
fn cmpxchg(st: &mut State, i: &Instr, locked: bool, t: &mut Tracer) -> Result<Flow, Stop> {
    let (ea, r) = match i.args.as_slice() {
        [m @ Operand::Mem(_), Operand::Reg(r)] | [Operand::Reg(r), m @ Operand::Mem(_)] => (m, r),
        [ea @ Operand::Reg(_), Operand::Reg(r)] => (ea, r),
        _ => return Err(unsupported(i, st.init.arch)),
    };
    let acc = st.acc();
    let tags: &[&str] = if locked { &["X"] } else { &[] };
    let (loc, v_ea) = match ea {
        Operand::Mem(m) => {
            let a = st.addr(m)?;
            (Some(a), t.read(a, tags)?.1)
        }
        Operand::Reg(e) => (None, st.reg(e)),
        _ => return Err(unsupported(i, st.init.arch)),
    };
    let v_acc = st.reg(&acc);
    let ord = compare(v_ea.v, v_acc.v)?;
    st.flags = Some((ord, v_ea.with(v_ea.v, v_acc)));
    let v_r = st.reg(r);
    let equal = t.decide(ord == Ordering::Equal, v_ea.deps.union(v_acc.deps))?;
    match (equal, loc, ea) {
        (true, Some(a), _) => {
            t.write(a, v_r, tags)?;
        }
        (true, None, Operand::Reg(e)) => st.set(e, v_r),
        _ => st.set(&acc, v_ea),
    }
    Ok(Flow::Next)
}

fn fence(t: &mut Tracer, tag: &str) -> Result<Flow, Stop> {
    t.fence(&[tag])?;
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::super::asm_common::testing::*;
    use super::super::{Kind, ThreadExec};
    use super::*;

    fn mem_sym(s: &str) -> Operand {
        Operand::Mem(Mem {
            base: MemBase::Sym(s.into()),
            index: None,
            offset: 0,
            shift: None,
            scale: None,
        })
    }

    #[test]
    fn mp_reader_with_mfence() {
        let syms = syms(&["x", "y"]);
        let th = thread(
            1,
            vec![
                (None, "MOV", vec![Operand::Reg("EAX".into()), mem_sym("y")]),
                (None, "MFENCE", vec![]),
                (None, "MOV", vec![Operand::Reg("EBX".into()), mem_sym("x")]),
            ],
        );
        let runs = explore(run, Arch::X86, &th, &[], &syms);
        assert_eq!(runs.len(), 9);
        for r in &runs {
            assert_eq!(kinds(r), vec![Kind::Read, Kind::Fence, Kind::Read]);
            assert_eq!(r.events[1].tags, vec!["MFENCE"]);
            assert_eq!(r.events[0].val, Some(r.regs["EAX"]));
            assert!(r.events[0].instr < r.events[1].instr && r.events[1].instr < r.events[2].instr);
        }
    }

    #[test]
    fn att_store_and_load_use_64_bit_names() {
        let syms = syms(&["x"]);
        let th = thread(
            0,
            vec![
                (None, "movl", vec![Operand::Imm(2), mem_sym("x")]),
                (
                    None,
                    "movq",
                    vec![mem_sym("x"), Operand::Reg("%eax".into())],
                ),
            ],
        );
        let runs = explore(run, Arch::X86_64, &th, &[], &syms);
        assert_eq!(runs.len(), 3);
        for r in &runs {
            assert_eq!(r.events[0].kind, Kind::Write);
            assert_eq!(r.events[0].val, Some(Value::Int(2)));
            assert!(r.regs.contains_key("rax"));
        }
    }

    #[test]
    fn xchg_is_a_locked_read_write_pair() {
        let syms = syms(&["x"]);
        let th = thread(
            0,
            vec![(None, "XCHG", vec![mem_sym("x"), Operand::Reg("EAX".into())])],
        );
        let runs = explore(run, Arch::X86, &th, &[("EAX", Value::Int(1))], &syms);
        assert_eq!(runs.len(), 3);
        for r in &runs {
            assert_eq!(kinds(r), vec![Kind::Read, Kind::Write]);
            assert!(
                r.events
                    .iter()
                    .all(|e| e.tags == vec!["X"] && e.instr == r.events[0].instr)
            );
            assert_eq!(r.events[1].val, Some(Value::Int(1)));
            assert_eq!(r.regs["EAX"], r.events[0].val.unwrap());
        }
    }

    /// `CMPXCHG` runs with `x` holding 0, 1 or 2, the accumulator 0 and the source 5.
    fn cmpxchg_runs(arch: Arch, op: &str, args: Vec<Operand>) -> Vec<ThreadExec> {
        let syms = syms(&["x"]);
        let th = thread(0, vec![(None, op, args)]);
        let (acc, src) = if arch == Arch::X86 {
            ("EAX", "EBX")
        } else {
            ("rax", "rbx")
        };
        explore(
            run,
            arch,
            &th,
            &[(acc, Value::Int(0)), (src, Value::Int(5))],
            &syms,
        )
    }

    #[test]
    fn lock_cmpxchg_succeeds_with_an_rmw_pair_or_fails_with_a_read() {
        let runs = cmpxchg_runs(
            Arch::X86_64,
            "lock cmpxchgq",
            vec![mem_sym("x"), Operand::Reg("%rbx".into())],
        );
        assert_eq!(runs.len(), 3);
        for r in &runs {
            let read = r.events[0].val.unwrap();
            assert!(r.events.iter().all(|e| e.tags == vec!["X"]));
            if read == Value::Int(0) {
                // Success: the source is written, RAX untouched.
                assert_eq!(kinds(r), vec![Kind::Read, Kind::Write]);
                assert_eq!(r.events[1].val, Some(Value::Int(5)));
                assert_eq!(r.events[0].instr, r.events[1].instr);
                assert_eq!(r.regs["rax"], Value::Int(0));
            } else {
                // Failure: a lone locked read; RAX takes the value read.
                assert_eq!(kinds(r), vec![Kind::Read]);
                assert_eq!(r.regs["rax"], read);
            }
        }
    }

    #[test]
    fn cmpxchg_without_lock_is_plain_and_att_order_is_accepted() {
        let runs = cmpxchg_runs(
            Arch::X86_64,
            "cmpxchgl",
            vec![Operand::Reg("%ebx".into()), mem_sym("x")],
        );
        assert_eq!(runs.len(), 3);
        for r in &runs {
            assert!(r.events.iter().all(|e| e.tags.is_empty()));
        }
        let ok: Vec<_> = runs
            .iter()
            .filter(|r| r.events[0].val == Some(Value::Int(0)))
            .collect();
        assert_eq!(ok.len(), 1);
        assert_eq!(kinds(ok[0]), vec![Kind::Read, Kind::Write]);
    }

    #[test]
    fn cmpxchg_sets_zf_for_a_following_jump() {
        let syms = syms(&["x"]);
        let th = thread(
            0,
            vec![
                (
                    None,
                    "LOCK CMPXCHG",
                    vec![mem_sym("x"), Operand::Reg("EBX".into())],
                ),
                (None, "JNE", vec![Operand::Sym("L".into())]),
                (
                    None,
                    "MOV",
                    vec![Operand::Reg("ECX".into()), Operand::Imm(1)],
                ),
                (Some("L"), "NOP", vec![]),
            ],
        );
        let runs = explore(
            run,
            Arch::X86,
            &th,
            &[("EAX", Value::Int(1)), ("EBX", Value::Int(2))],
            &syms,
        );
        assert_eq!(runs.len(), 3);
        for r in &runs {
            let ok = r.events[0].val == Some(Value::Int(1));
            assert_eq!(r.regs.get("ECX").copied() == Some(Value::Int(1)), ok);
            assert_eq!(
                r.regs["EAX"],
                r.events[0].val.unwrap(),
                "EAX: the value read"
            );
        }
    }

    #[test]
    fn unknown_instruction_is_an_error() {
        let syms = syms(&[]);
        let th = thread(0, vec![(None, "FROB", vec![])]);
        let dom = Small(vec![Value::Int(0)]);
        let init = ThreadInit {
            arch: Arch::X86,
            proc: 0,
            regs: BTreeMap::new(),
            symbols: &syms,
        };
        let mut t = Tracer::new(&[], &dom, &syms, 2);
        assert!(matches!(run(&th, &init, &mut t), Err(Stop::Error(_))));
    }
}
