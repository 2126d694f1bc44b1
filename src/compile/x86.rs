//! x86-64 in herd's X86_64 dialect (AT&T operand order, source first): 64-bit registers
//! `%rbx`..`%r15` (`%rax` is kept for the tables: CMPXCHG's implicit operand), globals as
//! direct memory operands `(x)`, two-operand arithmetic. herd 7.58's X86_64 has no `sub`,
//! `neg` or `xadd`, and its `jlt` jumps on less *or equal*: subtraction and negation are
//! written with `xorq $-1` (one's complement) and `addq`/`incq`, and strict comparisons
//! with `jle`/`jge` only. (herd's 32-bit X86 has no CMPXCHG at all, hence X86_64.)

use super::target::{Cmp, Op, Target};
use crate::litmus::ast::{Arch, BinOp};

pub struct X86;

const REGS: &[&str] = &[
    "%rbx", "%rcx", "%rdx", "%rsi", "%rdi", "%rbp", "%r8", "%r9", "%r10", "%r11", "%r12", "%r13",
    "%r14", "%r15",
];

/// What herd 7.58's X86_64 lexer reads as a register or a keyword, not as a location name
/// (X86_64Base.ml, X86_64Lexer.mll), besides the mnemonics our parser knows
/// (`litmus::x86_64_mnemonic`).
const HERD_WORDS: &[&str] = &[
    "ah", "al", "ax", "bh", "bl", "bp", "bpl", "bx", "cf", "ch", "cl", "cx", "dh", "di", "dil",
    "dl", "dx", "eax", "ebp", "ebx", "ecx", "edi", "edx", "esi", "esp", "r10", "r10b", "r10d",
    "r10w", "r11", "r11b", "r11d", "r11w", "r12", "r12b", "r12d", "r12w", "r13", "r13b", "r13d",
    "r13w", "r14", "r14b", "r14d", "r14w", "r15", "r15b", "r15d", "r15w", "r8", "r8b", "r8d",
    "r8w", "r9", "r9b", "r9d", "r9w", "rax", "rbp", "rbx", "rcx", "rdi", "rdx", "rip", "rsi",
    "rsp", "sf", "si", "sil", "sp", "spl", "zf", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
    "xmm6", "xmm7", "lock", "endbr64",
];

impl Target for X86 {
    fn arch(&self) -> Arch {
        Arch::X86_64
    }
    fn registers(&self) -> &'static [&'static str] {
        REGS
    }
    fn direct_globals(&self) -> bool {
        true
    }
    fn direct_symbol(&self, name: &str) -> bool {
        let name = name.to_ascii_lowercase();
        !HERD_WORDS.contains(&name.as_str()) && !crate::litmus::x86_64_mnemonic(&name)
    }
    fn state_name(&self, reg: &str) -> String {
        reg.trim_start_matches('%').to_string()
    }
    fn load_imm(&self, dst: &str, v: i64) -> Vec<String> {
        vec![format!("movq ${v},{dst}")]
    }
    fn mov(&self, dst: &str, src: &str) -> Vec<String> {
        vec![format!("movq {src},{dst}")]
    }
    fn binop(&self, op: BinOp, dst: &str, a: &str, b: &Op) -> Result<Vec<String>, String> {
        let b_text = self.operand(b);
        let mut v = Vec::new();
        if dst != a {
            v.push(format!("movq {a},{dst}"));
        }
        match op {
            BinOp::Add => v.push(format!("addq {b_text},{dst}")),
            BinOp::Xor => v.push(format!("xorq {b_text},{dst}")),
            BinOp::Or => v.push(format!("orq {b_text},{dst}")),
            // herd 7.58 knows `and` with no size suffix only.
            BinOp::And => v.push(format!("and {b_text},{dst}")),
            // a - b = ~(~a + b)
            BinOp::Sub => match b {
                Op::Imm(i) if *i != i64::MIN => v.push(format!("addq ${},{dst}", -i)),
                _ => {
                    v.push(format!("xorq $-1,{dst}"));
                    v.push(format!("addq {b_text},{dst}"));
                    v.push(format!("xorq $-1,{dst}"));
                }
            },
            o => {
                return Err(format!(
                    "operator {o:?} of two registers: no X86_64 instruction that herd 7.58 and litmus both take"
                ));
            }
        }
        Ok(v)
    }
    fn neg(&self, dst: &str, a: &str) -> Vec<String> {
        // -a = ~a + 1
        vec![
            format!("movq {a},{dst}"),
            format!("xorq $-1,{dst}"),
            format!("incq {dst}"),
        ]
    }
    fn branch_if(
        &self,
        cmp: Cmp,
        a: &str,
        b: &Op,
        label: &str,
        spare: &str,
    ) -> Result<Vec<String>, String> {
        // `cmpq b,a` then a jump on `a cmp b`; strict comparisons as non-strict ones.
        let (b, cmp) = match (cmp, b) {
            (Cmp::Lt, Op::Imm(i)) if *i != i64::MIN => (Op::Imm(i - 1), Cmp::Le),
            (Cmp::Gt, Op::Imm(i)) if *i != i64::MAX => (Op::Imm(i + 1), Cmp::Ge),
            (c, b) => (b.clone(), c),
        };
        let mut v = vec![format!("cmpq {},{a}", self.operand(&b))];
        let j = match cmp {
            Cmp::Eq => "je",
            Cmp::Ne => "jne",
            Cmp::Le => "jle",
            Cmp::Ge => "jge",
            // Register operands: over the jump when the opposite holds.
            Cmp::Lt | Cmp::Gt => {
                let not = if cmp == Cmp::Lt { "jge" } else { "jle" };
                v.push(format!("{not} {spare}"));
                v.push(format!("jmp {label}"));
                v.push(format!("{spare}:"));
                return Ok(v);
            }
        };
        v.push(format!("{j} {label}"));
        Ok(v)
    }
    fn branch_needs_label(&self, cmp: Cmp, b: &Op) -> bool {
        match (cmp, b) {
            (Cmp::Lt, Op::Imm(i)) => *i == i64::MIN,
            (Cmp::Gt, Op::Imm(i)) => *i == i64::MAX,
            (c, _) => matches!(c, Cmp::Lt | Cmp::Gt),
        }
    }
    fn jump(&self, label: &str) -> Vec<String> {
        vec![format!("jmp {label}")]
    }
    fn operand(&self, op: &Op) -> String {
        match op {
            Op::Reg(r) | Op::Sym(r) => r.clone(),
            Op::Imm(i) => format!("${i}"),
        }
    }
}
