//! X86 (herd's 32-bit Intel syntax): globals as direct memory operands (`[x]`), `EAX`
//! kept for the tables (CMPXCHG's implicit operand), two-operand arithmetic.

use super::target::{Cmp, Op, Target};
use crate::litmus::ast::{Arch, BinOp};

pub struct X86;

const REGS: &[&str] = &["EBX", "ECX", "EDX", "ESI", "EDI", "EBP"];

impl Target for X86 {
    fn arch(&self) -> Arch {
        Arch::X86
    }
    fn registers(&self) -> &'static [&'static str] {
        REGS
    }
    fn direct_globals(&self) -> bool {
        true
    }
    fn load_imm(&self, dst: &str, v: i64) -> Vec<String> {
        vec![format!("MOV {dst},${v}")]
    }
    fn mov(&self, dst: &str, src: &str) -> Vec<String> {
        vec![format!("MOV {dst},{src}")]
    }
    fn binop(&self, op: BinOp, dst: &str, a: &str, b: &Op) -> Result<Vec<String>, String> {
        let m = match op {
            BinOp::Add => "ADD",
            BinOp::Sub => "SUB",
            BinOp::And => "AND",
            BinOp::Or => "OR",
            BinOp::Xor => "XOR",
            o => return Err(format!("operator {o:?} has no X86 instruction here")),
        };
        let mut v = Vec::new();
        if dst != a {
            v.push(format!("MOV {dst},{a}"));
        }
        v.push(format!("{m} {dst},{}", self.operand(b)));
        Ok(v)
    }
    fn neg(&self, dst: &str, a: &str) -> Vec<String> {
        vec![format!("MOV {dst},$0"), format!("SUB {dst},{a}")]
    }
    fn branch_if(&self, cmp: Cmp, a: &str, b: &Op, label: &str) -> Vec<String> {
        let j = match cmp {
            Cmp::Eq => "JE",
            Cmp::Ne => "JNE",
            Cmp::Lt => "JL",
            Cmp::Le => "JLE",
            Cmp::Gt => "JG",
            Cmp::Ge => "JGE",
        };
        vec![
            format!("CMP {a},{}", self.operand(b)),
            format!("{j} {label}"),
        ]
    }
    fn jump(&self, label: &str) -> Vec<String> {
        vec![format!("JMP {label}")]
    }
    fn operand(&self, op: &Op) -> String {
        match op {
            Op::Reg(r) | Op::Sym(r) => r.clone(),
            Op::Imm(i) => format!("${i}"),
        }
    }
}
