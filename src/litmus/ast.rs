//! The litmus-test AST shared by every dialect.
//!
//! Spans are carried for diagnostics only: they compare equal to each other so that
//! "print, then parse the print" round trips can compare ASTs with `==`.

use serde::Serialize;

/// Position in the source file, 1-based. Equality ignores it (see module doc).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Span {
    pub line: u32,
    pub col: u32,
}

impl PartialEq for Span {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Span {}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Arch {
    C,
    X86,
    X86_64,
    AArch64,
    PPC,
}

impl Arch {
    /// Every architecture, in declaration order.
    pub const ALL: [Arch; 5] = [Arch::C, Arch::X86, Arch::X86_64, Arch::AArch64, Arch::PPC];

    /// The test's first word, as herd spells it.
    pub fn name(self) -> &'static str {
        match self {
            Arch::C => "C",
            Arch::X86 => "X86",
            Arch::X86_64 => "X86_64",
            Arch::AArch64 => "AArch64",
            Arch::PPC => "PPC",
        }
    }

    pub fn from_name(s: &str) -> Option<Arch> {
        Some(match s {
            "C" => Arch::C,
            "X86" | "x86" => Arch::X86,
            "X86_64" | "x86_64" => Arch::X86_64,
            "AArch64" | "AARCH64" | "aarch64" => Arch::AArch64,
            "PPC" | "ppc" | "Power" | "POWER" => Arch::PPC,
            _ => return None,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Test {
    pub arch: Arch,
    pub name: String,
    /// The optional quoted string after the name.
    pub doc: Option<String>,
    /// `Key=Value` header lines (Cycle=, Relax=, ...), in order.
    pub info: Vec<(String, String)>,
    /// The `(* ... *)` comments of the header (before the initial state), as written:
    /// where the kernel's tests keep their `Result:` line.
    pub comments: Vec<String>,
    pub init: Vec<InitEntry>,
    /// C helper functions defined before the threads (`static inline int f(int *x)
    /// { ... }`), inlined at each call.
    pub functions: Vec<CFunc>,
    pub threads: Vec<Thread>,
    /// `locations [x; 0:r1;]`: extra locations shown in every final state.
    pub locations: Vec<LocRef>,
    pub filter: Option<Prop>,
    pub condition: Condition,
    /// Where the preprocessor's expansions lie in the text the code was parsed from, to
    /// report an error inside one at the macro's use, naming it.
    #[serde(skip)]
    pub macros: MacroMap,
}

/// The macro uses of a C test with `#define`s ([`crate::litmus::cpp`]); like spans, for
/// diagnostics only, and equal whatever they hold.
#[derive(Clone, Debug, Default)]
pub struct MacroMap(pub Option<std::sync::Arc<crate::litmus::cpp::Expanded>>);

impl PartialEq for MacroMap {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for MacroMap {}

impl Test {
    /// An error at `at` (line, column of the text parsed) said of the test's source: inside
    /// a macro's expansion, at the macro's use and naming it.
    pub fn relocate(&self, at: Option<(u32, u32)>, msg: String) -> (Option<(u32, u32)>, String) {
        match (&self.macros.0, at) {
            (Some(x), Some((line, col))) => {
                let (col, msg) = x.relocate(line, col, &msg);
                (Some((line, col)), msg)
            }
            _ => (at, msg),
        }
    }
}

/// A location named in `init`, `locations` or the condition.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum LocRef {
    /// A shared memory location: `x`, `[x]`, or `*x` in C.
    Global(String),
    /// A register or a C local: `0:r1`.
    Reg { proc: u32, reg: String },
}

/// A value in init or in the condition.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum ValueLit {
    Int(i64),
    /// The address of a global: `x` or `&x` (the `&` form prints as `&x`).
    Addr {
        name: String,
        amp: bool,
    },
}

/// One `{ ... }` item: `int x = 1;`, `0:r2=x;`, `uint64_t x;`, `int *p = &x;`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InitEntry {
    /// Type words as written (`int`, `int *`, `atomic_t`, `uint64_t`, `spinlock_t`).
    pub ty: Option<String>,
    pub loc: LocRef,
    pub value: Option<ValueLit>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Quantifier {
    Exists,
    NotExists,
    Forall,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Condition {
    pub quant: Quantifier,
    pub prop: Prop,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Prop {
    True,
    False,
    /// `loc = value`
    Eq(LocRef, ValueLit),
    /// `loc != value`
    Ne(LocRef, ValueLit),
    /// `loc = loc`
    EqLoc(LocRef, LocRef),
    Not(Box<Prop>),
    /// `p /\ q /\ ...`: a chain is one node, however long (at least two operands; a
    /// parenthesised chain inside is a node of its own).
    And(Vec<Prop>),
    /// `p \/ q \/ ...`, as `And`.
    Or(Vec<Prop>),
    Implies(Box<Prop>, Box<Prop>),
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Thread {
    C(CThread),
    Asm(AsmThread),
}

impl Thread {
    pub fn proc(&self) -> u32 {
        match self {
            Thread::C(t) => t.proc,
            Thread::Asm(t) => t.proc,
        }
    }
}

// ---------------------------------------------------------------- C dialect

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CThread {
    pub proc: u32,
    pub params: Vec<CParam>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// A helper function: `static inline int name(params) { body }`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CFunc {
    /// The words before the name (`static inline int`, `struct lockref *`).
    pub ret: String,
    pub name: String,
    pub params: Vec<CParam>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CParam {
    /// Type as written, e.g. `int *`, `spinlock_t *`, `atomic_t *`, `struct foo *`.
    pub ty: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Stmt {
    /// `int r0;`, `int r1 = READ_ONCE(*x);` (one declarator each; `int a, b;` becomes two).
    Decl {
        ty: String,
        name: String,
        init: Option<Expr>,
        span: Span,
    },
    Expr(Expr, Span),
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Option<Vec<Stmt>>,
        span: Span,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
        span: Span,
    },
    DoWhile {
        body: Vec<Stmt>,
        cond: Expr,
        span: Span,
    },
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Vec<Stmt>,
        span: Span,
    },
    Block(Vec<Stmt>),
    /// `switch (cond) { body }`: `body` holds its `case`/`default` labels ([`Stmt::Case`]).
    Switch {
        cond: Expr,
        body: Vec<Stmt>,
        span: Span,
    },
    /// `case value:` (`default:` when `None`), directly in a switch's body.
    Case(Option<Expr>, Span),
    /// `goto label;`
    Goto(String, Span),
    /// `label:`
    Label(String, Span),
    Break(Span),
    Continue(Span),
    Return(Option<Expr>, Span),
    /// `;`
    Empty,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LAnd,
    LOr,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Expr {
    Int(i64),
    Var(String, Span),
    Call {
        name: String,
        args: Vec<Expr>,
        span: Span,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `lhs = rhs`, or `lhs op= rhs` when `op` is set.
    Assign {
        op: Option<BinOp>,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `(type) e`, e.g. `(void)xchg(...)`.
    Cast(String, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `e.f` (arrow = false) or `e->f` (arrow = true)
    Field {
        base: Box<Expr>,
        field: String,
        arrow: bool,
    },
}

// --------------------------------------------------------- assembly dialects

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AsmThread {
    pub proc: u32,
    pub code: Vec<AsmLine>,
}

/// One cell of the column layout: an optional label and an optional instruction.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AsmLine {
    pub label: Option<String>,
    pub instr: Option<Instr>,
    pub span: Span,
}

/// An instruction: the mnemonic as the architecture spells it canonically
/// (upper case for X86 Intel syntax and AArch64, lower case for X86_64 AT&T and PPC,
/// with suffixes such as `stwcx.` or `B.NE` kept), and its operands in source order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Instr {
    pub op: String,
    pub args: Vec<Operand>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Operand {
    /// A register, canonical spelling (`W0`, `X1`, `r3`, `EAX`, `%rax`).
    Reg(String),
    /// An immediate (`#1`, `$1`, `1`).
    Imm(i64),
    /// A label or a global's address used as an operand (`x`, `Lfoo`, `$x`).
    Sym(String),
    /// A memory operand.
    Mem(Mem),
    /// A shift or extend modifier: `LSL #2`, `SXTW`, `UXTW #2`.
    Shift { kind: String, amount: Option<i64> },
}

/// Memory operand: `[X1]`, `[X1,#8]`, `[X1,X2]`, `[X1,W2,SXTW]`, `0(r2)`, `(x)`, `[x]`,
/// `(%rax)`, `8(%rax,%rbx,4)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mem {
    pub base: MemBase,
    pub index: Option<String>,
    pub offset: i64,
    pub shift: Option<(String, Option<i64>)>,
    pub scale: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum MemBase {
    Reg(String),
    Sym(String),
}
