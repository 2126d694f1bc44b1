//! AArch64: 64-bit `X0`-`X28` throughout (herd compares the values, not their width),
//! `MOV`, `CMP`, `B.cond`, and `CBZ`/`CBNZ` against zero as the kernel's asm does.

use super::target::{Cmp, Op, Target};
use crate::litmus::ast::{Arch, BinOp};

pub struct AArch64;

const REGS: &[&str] = &[
    "X0", "X1", "X2", "X3", "X4", "X5", "X6", "X7", "X8", "X9", "X10", "X11", "X12", "X13", "X14",
    "X15", "X16", "X17", "X18", "X19", "X20", "X21", "X22", "X23", "X24", "X25", "X26", "X27",
    "X28",
];

impl Target for AArch64 {
    fn arch(&self) -> Arch {
        Arch::AArch64
    }
    fn registers(&self) -> &'static [&'static str] {
        REGS
    }
    fn direct_globals(&self) -> bool {
        false
    }
    fn narrow(&self, reg: &str) -> String {
        match reg.strip_prefix('X') {
            Some(n) => format!("W{n}"),
            None => reg.to_string(),
        }
    }
    fn load_imm(&self, dst: &str, v: i64) -> Vec<String> {
        vec![format!("MOV {dst},#{v}")]
    }
    fn mov(&self, dst: &str, src: &str) -> Vec<String> {
        vec![format!("MOV {dst},{src}")]
    }
    fn binop(&self, op: BinOp, dst: &str, a: &str, b: &Op) -> Result<Vec<String>, String> {
        let m = match op {
            BinOp::Add => "ADD",
            BinOp::Sub => "SUB",
            BinOp::And => "AND",
            BinOp::Or => "ORR",
            BinOp::Xor => "EOR",
            BinOp::Shl => "LSL",
            BinOp::Shr => "ASR",
            o => {
                return Err(format!(
                    "operator {o:?} of two registers: no AArch64 instruction that herd 7.58 and litmus both take"
                ));
            }
        };
        Ok(match b {
            Op::Reg(r) => vec![format!("{m} {dst},{a},{r}")],
            Op::Imm(i) if matches!(op, BinOp::Add | BinOp::Sub) && *i >= 0 => {
                vec![format!("{m} {dst},{a},#{i}")]
            }
            Op::Imm(i) => {
                let mut v = self.load_imm(dst, *i);
                v.push(format!("{m} {dst},{a},{dst}"));
                v
            }
            Op::Sym(s) => return Err(format!("the address of {s} in arithmetic")),
        })
    }
    fn neg(&self, dst: &str, a: &str) -> Vec<String> {
        vec![format!("SUB {dst},XZR,{a}")]
    }
    fn branch_if(
        &self,
        cmp: Cmp,
        a: &str,
        b: &Op,
        label: &str,
        _spare: &str,
    ) -> Result<Vec<String>, String> {
        match (cmp, b) {
            (Cmp::Eq, Op::Imm(0)) => return Ok(vec![format!("CBZ {a},{label}")]),
            (Cmp::Ne, Op::Imm(0)) => return Ok(vec![format!("CBNZ {a},{label}")]),
            _ => {}
        }
        let c = match b {
            Op::Imm(i) if *i >= 0 => format!("CMP {a},#{i}"),
            Op::Imm(i) => format!("CMN {a},#{}", -i),
            b => format!("CMP {a},{}", self.operand(b)),
        };
        let cc = match cmp {
            Cmp::Eq => "EQ",
            Cmp::Ne => "NE",
            Cmp::Lt => "LT",
            Cmp::Le => "LE",
            Cmp::Gt => "GT",
            Cmp::Ge => "GE",
        };
        Ok(vec![c, format!("B.{cc} {label}")])
    }
    fn jump(&self, label: &str) -> Vec<String> {
        vec![format!("B {label}")]
    }
}
