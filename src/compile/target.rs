//! What the compiler asks of an architecture besides the mapping table: register names,
//! moves, arithmetic, compare-and-branch, jumps. One implementation per architecture
//! (`ppc.rs`, `aarch64.rs`, `x86.rs`); every line is herd's syntax for that architecture,
//! parsed back by our own parser before it is kept.

use crate::litmus::ast::{Arch, BinOp};

/// An operand the compiler holds: a register, an immediate, or a global's address that
/// the architecture can use directly as a memory operand (X86's `[x]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Reg(String),
    Imm(i64),
    Sym(String),
}

/// A comparison, as branches test it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    pub fn from_binop(op: BinOp) -> Option<Cmp> {
        Some(match op {
            BinOp::Eq => Cmp::Eq,
            BinOp::Ne => Cmp::Ne,
            BinOp::Lt => Cmp::Lt,
            BinOp::Le => Cmp::Le,
            BinOp::Gt => Cmp::Gt,
            BinOp::Ge => Cmp::Ge,
            _ => return None,
        })
    }

    /// The comparison as C writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
        }
    }

    pub fn negate(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Lt => Cmp::Ge,
            Cmp::Ge => Cmp::Lt,
            Cmp::Gt => Cmp::Le,
            Cmp::Le => Cmp::Gt,
        }
    }

    /// The same test with the operands swapped.
    pub fn swap(self) -> Cmp {
        match self {
            Cmp::Lt => Cmp::Gt,
            Cmp::Gt => Cmp::Lt,
            Cmp::Le => Cmp::Ge,
            Cmp::Ge => Cmp::Le,
            c => c,
        }
    }
}

pub trait Target {
    fn arch(&self) -> Arch;
    /// Registers the compiler may allocate, in order.
    fn registers(&self) -> &'static [&'static str];
    /// Whether a thread's pointer parameter is used as a symbol (`[x]`) rather than a
    /// register initialised with the address.
    fn direct_globals(&self) -> bool;
    /// Whether a global can be named directly in an instruction (`(x)`): the
    /// dialect's words (herd's X86_64 reads `(sp)` as a register) go through a register.
    fn direct_symbol(&self, _name: &str) -> bool {
        self.direct_globals()
    }
    /// A register's name in the condition and the init block (`X5` for `W5`).
    fn state_name(&self, reg: &str) -> String {
        reg.to_string()
    }
    /// A register's 32-bit name (`{r:w}` in a template): `W5` for `X5` on AArch64.
    fn narrow(&self, reg: &str) -> String {
        reg.to_string()
    }
    fn load_imm(&self, dst: &str, v: i64) -> Vec<String>;
    fn mov(&self, dst: &str, src: &str) -> Vec<String>;
    /// `dst = a op b`; `dst` differs from `b` when `b` is a register.
    fn binop(&self, op: BinOp, dst: &str, a: &str, b: &Op) -> Result<Vec<String>, String>;
    /// `dst = -a`, `dst = ~a`.
    fn neg(&self, dst: &str, a: &str) -> Vec<String>;
    /// Branch to `label` when `a cmp b`; an error when the dialect has no such branch.
    /// `spare` is a fresh label the code may place (a line `spare:`) when
    /// [`Target::branch_needs_label`] asked for one, else empty.
    fn branch_if(
        &self,
        cmp: Cmp,
        a: &str,
        b: &Op,
        label: &str,
        spare: &str,
    ) -> Result<Vec<String>, String>;
    /// Whether [`Target::branch_if`] needs a label of its own for this comparison.
    fn branch_needs_label(&self, _cmp: Cmp, _b: &Op) -> bool {
        false
    }
    fn jump(&self, label: &str) -> Vec<String>;
    /// The 64-bit form of an instruction of a table entry whose location is 64 bits wide
    /// (`ld` for `lwz` on PPC64), or `None` when it has no other form: the tables are
    /// written for 32-bit words, and targets whose tables use 64-bit forms throughout
    /// (AArch64's X registers, X86_64's `q` forms) keep them.
    fn wide(&self, _instr: &str) -> Option<String> {
        None
    }
    /// An operand's text in an instruction template.
    fn operand(&self, op: &Op) -> String {
        match op {
            Op::Reg(r) | Op::Sym(r) => r.clone(),
            Op::Imm(i) => i.to_string(),
        }
    }
}

pub fn for_arch(arch: Arch) -> Option<Box<dyn Target>> {
    Some(match arch {
        Arch::PPC => Box::new(super::ppc::Ppc),
        Arch::AArch64 => Box::new(super::aarch64::AArch64),
        Arch::X86 | Arch::X86_64 => Box::new(super::x86::X86),
        _ => return None,
    })
}
