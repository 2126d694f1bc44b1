//! Power instruction semantics, after herd's.
//!
//! Fences are tagged as herd's sets `SYNC`, `LWSYNC`, `EIEIO`, `ISYNC`; `lwarx` and a
//! successful `stwcx.` are tagged `EX` and paired as `rmw` (the reservation's load with
//! the next exclusive store, herd's `lxsx`). A conditional branch reads CR0 and makes a
//! branch event, so later events are `ctrl`-dependent on the reads behind the
//! comparison. In indexed forms (`lwzx`, `stwx`, `lwarx`, `stwcx.`) and in `addi`/`addis`
//! `r0` reads as 0.

use super::asm_common::{Flow, add_addr_t, arith_t, compare, exec, unsupported};
use super::{Stop, TVal, ThreadInit, Tracer, Value};
use crate::litmus::ast::{AsmThread, Instr, MemBase, Operand, Span};
use std::cmp::Ordering;
use std::collections::BTreeMap;

struct State<'a> {
    regs: BTreeMap<String, TVal>,
    /// CR0: the last comparison (or `stwcx.` outcome) and what it depends on.
    cr0: (Option<Ordering>, TVal),
    /// The reservation: address, and the `lwarx` read that made it.
    res: Option<(Value, usize)>,
    /// What the last `lwarx`'s address depends on (herd's `RESADDR` register, which a
    /// `stwcx.` reads).
    res_addr: TVal,
    /// The last exclusive event (`lwarx` read or `stwcx.` write): index, is-read.
    last_ex: Option<(usize, bool)>,
    init: &'a ThreadInit<'a>,
}

/// Run one thread; returns its final registers (`r1`, ...).
pub fn run(
    thread: &AsmThread,
    init: &ThreadInit,
    t: &mut Tracer,
) -> Result<BTreeMap<String, Value>, Stop> {
    let mut st = State {
        regs: init
            .regs
            .iter()
            .map(|(k, v)| (k.clone(), TVal::konst(*v)))
            .collect(),
        cr0: (None, TVal::int(0)),
        res: None,
        res_addr: TVal::int(0),
        last_ex: None,
        init,
    };
    exec(thread, t, &mut st, step)?;
    Ok(st.regs.into_iter().map(|(k, v)| (k, v.v)).collect())
}

impl State<'_> {
    fn reg(&self, r: &str) -> TVal {
        self.regs.get(r).copied().unwrap_or(TVal::int(0))
    }
    /// `rA` of indexed forms: `r0` means 0.
    fn reg0(&self, r: &str) -> TVal {
        if r == "r0" { TVal::int(0) } else { self.reg(r) }
    }
    fn set(&mut self, r: &str, v: TVal) {
        self.regs.insert(r.to_string(), v);
    }
    fn cmp(&mut self, a: TVal, b: TVal) -> Result<(), Stop> {
        self.cr0 = (Some(compare(a.v, b.v)?), a.with(a.v, b));
        Ok(())
    }
    /// Effective address of `d(rA)`, `d,rA`, `rA,rB` (indexed) forms.
    fn ea(&self, args: &[Operand]) -> Result<Option<TVal>, Stop> {
        Ok(match args {
            [Operand::Mem(m)] if m.index.is_none() => {
                let base = match &m.base {
                    MemBase::Reg(r) => self.reg(r),
                    MemBase::Sym(s) => sym(self.init, s)?,
                };
                Some(add_addr_t(self.init.symbols, base, TVal::int(m.offset))?)
            }
            [Operand::Imm(d), Operand::Reg(a)] => {
                Some(add_addr_t(self.init.symbols, self.reg(a), TVal::int(*d))?)
            }
            _ => None,
        })
    }
    fn ea_x(&self, a: &str, b: &str) -> Result<TVal, Stop> {
        add_addr_t(self.init.symbols, self.reg0(a), self.reg(b))
    }
}

fn sym(init: &ThreadInit, s: &str) -> Result<TVal, Stop> {
    init.symbols
        .get(s)
        .map(|l| TVal::konst(Value::Addr(l)))
        .ok_or_else(|| Stop::error(None, format!("unknown location {s}")))
}

fn step(st: &mut State, i: &Instr, _: Span, t: &mut Tracer) -> Result<Flow, Stop> {
    use Operand::{Imm, Reg, Sym};
    let op = i.op.as_str();
    let args = i.args.as_slice();
    let next = Ok(Flow::Next);
    match (op, args) {
        ("sync" | "hwsync", []) => fence(t, "SYNC"),
        ("lwsync", []) => fence(t, "LWSYNC"),
        ("eieio", []) => fence(t, "EIEIO"),
        ("isync", []) => fence(t, "ISYNC"),
        ("nop" | "dcbf", _) => next,
        ("li", [Reg(d), Imm(k)]) => {
            st.set(d, TVal::int(*k));
            next
        }
        ("lis", [Reg(d), Imm(k)]) => {
            st.set(d, TVal::int(k << 16));
            next
        }
        ("mr", [Reg(d), Reg(s)]) => {
            let v = st.reg(s);
            st.set(d, v);
            next
        }
        ("addi" | "addis" | "subi", [Reg(d), Reg(a), Imm(k)]) => {
            let k = match op {
                "addis" => k << 16,
                "subi" => -k,
                _ => *k,
            };
            let v = if a == "r0" {
                TVal::int(k)
            } else {
                add_addr_t(st.init.symbols, st.reg(a), TVal::int(k))?
            };
            st.set(d, v);
            next
        }
        ("ori" | "xori" | "andi." | "mulli", [Reg(d), Reg(a), Imm(k)]) => {
            let f = match op {
                "ori" => "or",
                "xori" => "xor",
                "andi." => "and",
                _ => "mul",
            };
            let v = arith_t(f, st.reg(a), TVal::int(*k))?;
            if op == "andi." {
                st.cmp(v, TVal::int(0))?;
            }
            st.set(d, v);
            next
        }
        (
            "add" | "add." | "sub" | "sub." | "subf" | "subf." | "xor" | "xor." | "or" | "or."
            | "and" | "and." | "mullw" | "mullw." | "mull" | "mull." | "divw" | "divw." | "div"
            | "div.",
            [Reg(d), Reg(a), Reg(b)],
        ) => {
            let base = op.trim_end_matches('.');
            let (f, x, y) = match base {
                "subf" => ("sub", st.reg(b), st.reg(a)),
                "mullw" | "mull" => ("mul", st.reg(a), st.reg(b)),
                "divw" | "div" => ("div", st.reg(a), st.reg(b)),
                f => (f, st.reg(a), st.reg(b)),
            };
            // An array's base plus a byte offset is its cell there, as in an address.
            let v = match f {
                "add" => add_addr_t(st.init.symbols, x, y)?,
                _ => arith_t(f, x, y)?,
            };
            if op.ends_with('.') {
                st.cmp(v, TVal::int(0))?;
            }
            st.set(d, v);
            next
        }
        ("cmpw" | "cmpd", [Reg(a), Reg(b)]) => {
            let (x, y) = (st.reg(a), st.reg(b));
            st.cmp(x, y)?;
            next
        }
        ("cmpwi" | "cmpdi", [Reg(a), Imm(k)]) => {
            let x = st.reg(a);
            st.cmp(x, TVal::int(*k))?;
            next
        }
        ("cmplwi", [Reg(a), Imm(k)]) => {
            let x = st.reg(a);
            let x = match x.v {
                Value::Int(n) => x.with(Value::Int(n & 0xffff_ffff), x),
                _ => x,
            };
            st.cmp(x, TVal::int(k & 0xffff))?;
            next
        }
        ("b", [Sym(l)]) => Ok(Flow::Jump(l.clone())),
        (b @ ("beq" | "bne" | "blt" | "bge" | "bnl" | "bgt" | "ble" | "bng"), [Sym(l)]) => {
            let (ord, dep) = st.cr0;
            t.branch(dep.deps, &[])?;
            let taken = match (b, ord) {
                (_, None) => matches!(b, "bne" | "bge" | "bnl" | "ble" | "bng"),
                ("beq", Some(o)) => o == Ordering::Equal,
                ("bne", Some(o)) => o != Ordering::Equal,
                ("blt", Some(o)) => o == Ordering::Less,
                ("bge" | "bnl", Some(o)) => o != Ordering::Less,
                ("bgt", Some(o)) => o == Ordering::Greater,
                (_, Some(o)) => o != Ordering::Greater,
            };
            let taken = t.decide(taken, dep.deps)?;
            Ok(if taken {
                Flow::Jump(l.clone())
            } else {
                Flow::Next
            })
        }
        ("lwz" | "ld" | "lbz" | "lhz" | "lwa", [Reg(d), rest @ ..]) => {
            let a = st.ea(rest)?.ok_or_else(|| unsupported(i, st.init.arch))?;
            let (_, v) = t.read(a, &[])?;
            st.set(d, v);
            next
        }
        ("lwzx" | "ldx" | "lbzx" | "lhzx" | "lwax", [Reg(d), Reg(a), Reg(b)]) => {
            let ea = st.ea_x(a, b)?;
            let (_, v) = t.read(ea, &[])?;
            st.set(d, v);
            next
        }
        ("stw" | "std" | "stb" | "sth", [Reg(s), rest @ ..]) => {
            let a = st.ea(rest)?.ok_or_else(|| unsupported(i, st.init.arch))?;
            t.write(a, st.reg(s), &[])?;
            next
        }
        ("stwx" | "stdx" | "stbx" | "sthx", [Reg(s), Reg(a), Reg(b)]) => {
            let ea = st.ea_x(a, b)?;
            t.write(ea, st.reg(s), &[])?;
            next
        }
        ("lwarx" | "ldarx", [Reg(d), Reg(a), Reg(b)]) => {
            let ea = st.ea_x(a, b)?;
            let (r, v) = t.read(ea, &["EX"])?;
            st.res = Some((ea.v, r));
            st.res_addr = ea;
            st.last_ex = Some((r, true));
            st.set(d, v);
            next
        }
        ("stwcx." | "stdcx.", [Reg(s), Reg(a), Reg(b)]) => {
            let ea = st.ea_x(a, b)?;
            // herd sets CR0 after reading the value stored, the address and the
            // reservation (`RES`, `RESADDR`), in both outcomes: a branch on it is
            // ctrl-dependent on whatever those depend on (the `lwarx` read, when the
            // value stored is computed from it, as in an atomic add).
            let outcome = st
                .reg(s)
                .with(Value::Int(0), ea)
                .with(Value::Int(0), st.res_addr);
            // herd's alternatives: fail (no write), or succeed when the reservation
            // is held on this very address.
            let same = st.res.is_some_and(|(ra, _)| ra == ea.v);
            let can_succeed = t.decide(same, ea.deps.union(st.res_addr.deps))?;
            let ok = if can_succeed {
                t.choose(2)? == 1
            } else {
                false
            };
            st.res = None;
            if ok {
                let w = t.write(ea, st.reg(s), &["EX"])?;
                if let Some((r, true)) = st.last_ex {
                    t.relate("rmw", r, w);
                }
                st.last_ex = Some((w, false));
                st.cr0 = (Some(Ordering::Equal), outcome);
            } else {
                st.cr0 = (None, outcome);
            }
            next
        }
        _ => Err(unsupported(i, st.init.arch)),
    }
}

fn fence(t: &mut Tracer, tag: &str) -> Result<Flow, Stop> {
    t.fence(&[tag])?;
    Ok(Flow::Next)
}

#[cfg(test)]
mod tests {
    use super::super::Kind;
    use super::super::asm_common::testing::*;
    use super::*;
    use crate::litmus::ast::Arch;

    #[test]
    fn lwsync_and_addr_dependency_through_xor() {
        let s = syms(&["x", "y"]);
        let (x, y) = (
            Value::Addr(s.get("x").unwrap()),
            Value::Addr(s.get("y").unwrap()),
        );
        let th = thread(
            1,
            vec![
                (None, "lwz", vec![r("r1"), at("r2")]),
                (None, "lwsync", vec![]),
                (None, "xor", vec![r("r3"), r("r1"), r("r1")]),
                (None, "lwzx", vec![r("r4"), r("r3"), r("r5")]),
            ],
        );
        let runs = explore(run, Arch::PPC, &th, &[("r2", y), ("r5", x)], &s);
        assert_eq!(runs.len(), 9);
        for e in &runs {
            assert_eq!(kinds(e), vec![Kind::Read, Kind::Fence, Kind::Read]);
            assert_eq!(e.events[1].tags, vec!["LWSYNC"]);
            assert_eq!(e.events[2].loc, Some(x));
            assert!(has_rel(e, "addr", 0, 2));
            assert!(!has_rel(e, "data", 0, 2));
        }
    }

    #[test]
    fn ctrl_isync_after_compare_and_branch() {
        let s = syms(&["x", "y"]);
        let (x, y) = (
            Value::Addr(s.get("x").unwrap()),
            Value::Addr(s.get("y").unwrap()),
        );
        let th = thread(
            1,
            vec![
                (None, "lwz", vec![r("r1"), at("r2")]),
                (None, "cmpw", vec![r("r1"), r("r1")]),
                (None, "beq", vec![Operand::Sym("L".into())]),
                (Some("L"), "isync", vec![]),
                (None, "lwz", vec![r("r3"), at("r4")]),
            ],
        );
        let runs = explore(run, Arch::PPC, &th, &[("r2", y), ("r4", x)], &s);
        assert_eq!(runs.len(), 9);
        for e in &runs {
            assert_eq!(
                kinds(e),
                vec![Kind::Read, Kind::Branch, Kind::Fence, Kind::Read]
            );
            assert_eq!(e.events[2].tags, vec!["ISYNC"]);
            assert!(has_rel(e, "ctrl", 0, 2) && has_rel(e, "ctrl", 0, 3));
        }
    }

    #[test]
    fn lwarx_stwcx_loop() {
        let s = syms(&["x"]);
        let x = Value::Addr(s.get("x").unwrap());
        let th = thread(
            0,
            vec![
                (Some("Loop"), "lwarx", vec![r("r1"), r("r0"), r("r2")]),
                (None, "addi", vec![r("r1"), r("r1"), Operand::Imm(1)]),
                (None, "stwcx.", vec![r("r1"), r("r0"), r("r2")]),
                (None, "bne", vec![Operand::Sym("Loop".into())]),
            ],
        );
        let runs = explore(run, Arch::PPC, &th, &[("r2", x)], &s);
        // A round reads one of 3 values; success ends the loop; with unroll 2 there are
        // at most 3 rounds, and runs still failing are cut: 3 + 9 + 27.
        assert_eq!(runs.len(), 39);
        for e in &runs {
            let last = e
                .events
                .iter()
                .rposition(|ev| ev.kind == Kind::Write)
                .unwrap();
            let read = last - 1; // a round is R (lwarx), W (stwcx.), B (bne)
            assert_eq!(e.events[read].kind, Kind::Read);
            assert!(e.events[read].tags == vec!["EX"] && e.events[last].tags == vec!["EX"]);
            assert!(has_rel(e, "rmw", read as u32, last as u32));
            assert!(has_rel(e, "data", read as u32, last as u32));
        }
    }

    /// herd sets a `stwcx.`'s CR0 after reading the value stored: when that value is
    /// computed from the `lwarx` read (an atomic add), what follows the `bne` is
    /// ctrl-dependent on the read (ppc.cat's ctrlisync then orders a later load); a
    /// constant stored gives no such dependency.
    #[test]
    fn a_stwcx_outcome_depends_on_the_value_stored() {
        let s = syms(&["x", "y"]);
        let (x, y) = (
            Value::Addr(s.get("x").unwrap()),
            Value::Addr(s.get("y").unwrap()),
        );
        for (computed, dependent) in [(true, true), (false, false)] {
            let value = if computed { "r1" } else { "r5" };
            let th = thread(
                0,
                vec![
                    (None, "li", vec![r("r5"), Operand::Imm(1)]),
                    (None, "lwarx", vec![r("r1"), r("r0"), r("r2")]),
                    (None, "addi", vec![r("r1"), r("r1"), Operand::Imm(1)]),
                    (None, "stwcx.", vec![r(value), r("r0"), r("r2")]),
                    (None, "bne", vec![Operand::Sym("Out".into())]),
                    (None, "isync", vec![]),
                    (None, "lwz", vec![r("r4"), Operand::Imm(0), r("r3")]),
                    (Some("Out"), "li", vec![r("r6"), Operand::Imm(0)]),
                ],
            );
            let runs = explore(run, Arch::PPC, &th, &[("r2", x), ("r3", y)], &s);
            let done: Vec<_> = runs
                .iter()
                .filter(|e| e.events.iter().filter(|ev| ev.kind == Kind::Read).count() == 2)
                .collect();
            assert!(!done.is_empty());
            for e in done {
                let last = e.events.len() as u32 - 1; // the lwz
                assert_eq!(has_rel(e, "ctrl", 0, last), dependent, "{value}");
            }
        }
    }
}
