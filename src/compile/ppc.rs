//! PowerPC: `r1`-`r31` (`r0` reads as zero as a base, so it is never allocated: the
//! tables write `lwarx r,r0,p`), `li`/`mr`, `cmpw`/`cmpwi` and conditional branches.

use super::target::{Cmp, Op, Target};
use crate::litmus::ast::{Arch, BinOp};

pub struct Ppc;

const REGS: &[&str] = &[
    "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
    "r16", "r17", "r18", "r19", "r20", "r21", "r22", "r23", "r24", "r25", "r26", "r27", "r28",
    "r29", "r30", "r31",
];

impl Target for Ppc {
    fn arch(&self) -> Arch {
        Arch::PPC
    }
    fn registers(&self) -> &'static [&'static str] {
        REGS
    }
    fn direct_globals(&self) -> bool {
        false
    }
    /// arch/powerpc's 64-bit atomics (atomic64.h, cmpxchg.h's `__cmpxchg_u64`, rwonce
    /// on `u64`): `ld`/`std`/`ldarx`/`stdcx.`/`cmpd` for the word forms.
    fn wide(&self, instr: &str) -> Option<String> {
        let (op, rest) = instr.trim_start().split_once(' ')?;
        let op64 = match op {
            "lwz" => "ld",
            "stw" => "std",
            "lwzx" => "ldx",
            "stwx" => "stdx",
            "lwarx" => "ldarx",
            "stwcx." => "stdcx.",
            "cmpw" => "cmpd",
            "cmpwi" => "cmpdi",
            "cmplw" => "cmpld",
            "cmplwi" => "cmpldi",
            _ => return None,
        };
        Some(format!("{op64} {rest}"))
    }
    fn load_imm(&self, dst: &str, v: i64) -> Vec<String> {
        vec![format!("li {dst},{v}")]
    }
    fn mov(&self, dst: &str, src: &str) -> Vec<String> {
        vec![format!("mr {dst},{src}")]
    }
    fn binop(&self, op: BinOp, dst: &str, a: &str, b: &Op) -> Result<Vec<String>, String> {
        let b = match b {
            Op::Reg(r) => r.clone(),
            Op::Imm(i) => match op {
                BinOp::Add => return Ok(vec![format!("addi {dst},{a},{i}")]),
                BinOp::Sub => return Ok(vec![format!("addi {dst},{a},{}", -i)]),
                BinOp::Xor => return Ok(vec![format!("xori {dst},{a},{i}")]),
                BinOp::Or => return Ok(vec![format!("ori {dst},{a},{i}")]),
                _ => {
                    let mut v = self.load_imm(dst, *i);
                    v.extend(self.binop(op, dst, a, &Op::Reg(dst.into()))?);
                    return Ok(v);
                }
            },
            Op::Sym(s) => return Err(format!("the address of {s} in arithmetic")),
        };
        Ok(vec![match op {
            BinOp::Add => format!("add {dst},{a},{b}"),
            BinOp::Sub => format!("subf {dst},{b},{a}"),
            BinOp::And => format!("and {dst},{a},{b}"),
            BinOp::Or => format!("or {dst},{a},{b}"),
            BinOp::Xor => format!("xor {dst},{a},{b}"),
            BinOp::Mul => format!("mullw {dst},{a},{b}"),
            BinOp::Div => format!("divw {dst},{a},{b}"),
            o => {
                return Err(format!(
                    "operator {o:?} of two registers: no PPC instruction that herd 7.58 and litmus both take"
                ));
            }
        }])
    }
    fn neg(&self, dst: &str, a: &str) -> Vec<String> {
        vec![format!("li {dst},0"), format!("subf {dst},{a},{dst}")]
    }
    fn branch_if(
        &self,
        cmp: Cmp,
        a: &str,
        b: &Op,
        label: &str,
        _spare: &str,
    ) -> Result<Vec<String>, String> {
        let c = match b {
            Op::Imm(i) => format!("cmpwi {a},{i}"),
            b => format!("cmpw {a},{}", self.operand(b)),
        };
        let br = match cmp {
            Cmp::Eq => "beq",
            Cmp::Ne => "bne",
            Cmp::Lt => "blt",
            Cmp::Le => "ble",
            Cmp::Gt => "bgt",
            Cmp::Ge => "bge",
        };
        Ok(vec![c, format!("{br} {label}")])
    }
    fn jump(&self, label: &str) -> Vec<String> {
        vec![format!("b {label}")]
    }
}
