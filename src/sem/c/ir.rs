//! The core language C threads and `.def` macro bodies are lowered to: herd's C
//! primitives (`__load{a}`, `__xchg{a}`, `__lock`, ...) plus ordinary C arithmetic.
//!
//! The same types serve before and after macro expansion. Before, `Call`s may remain and
//! an annotated `Load`/`Store` holds its argument as written (herd requires it to be a
//! dereference `*e`); after expansion ([`super::expand`]) every access holds the address
//! it touches and no `Call` is left.

use crate::litmus::ast::{self, BinOp, Span, UnOp};

/// Annotations of a primitive, as written (`ONCE`, `MB`, `rcu-lock`, ...).
pub type Annot = Vec<String>;

/// The operation of an atomic read-modify-write (`__atomic_op(X,+,V)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RmwOp {
    Add,
    Sub,
    And,
    Or,
    Xor,
    /// `&~`: `old & ~v`.
    AndNot,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ex {
    Int(i64),
    /// A local, a parameter, or (in a macro body) a formal argument.
    Reg(String, Span),
    /// A memory read. Expanded: `addr` is the address read, `annot` empty for a plain `*e`.
    Load(Box<Ex>, Annot),
    Un(UnOp, Box<Ex>),
    Bin(BinOp, Box<Ex>, Box<Ex>),
    /// `c ? a : b`
    Cond(Box<Ex>, Box<Ex>, Box<Ex>),
    /// A macro call, before expansion.
    Call(String, Vec<Ex>, Span),
    /// `__xchg{a}(loc, val)`
    Xchg(Box<Ex>, Box<Ex>, Annot),
    /// `__cmpxchg{a}(loc, old, new)`
    CmpXchg(Box<Ex>, Box<Ex>, Box<Ex>, Annot),
    /// `__try_cmpxchg{a}(loc, oldp, new)` (our extension, the kernel's `try_cmpxchg`):
    /// `oldp` is a [`Ex::LocalAddr`] or a pointer to memory.
    TryCmpXchg(Box<Ex>, Box<Ex>, Box<Ex>, Annot),
    /// `&r` for a local `r`: only meaningful as the `oldp` of [`Ex::TryCmpXchg`].
    LocalAddr(String, Span),
    /// `__atomic_op_return{a}(loc, op, val)` (`fetch` false) or `__atomic_fetch_op` (true).
    AtomicRet {
        loc: Box<Ex>,
        op: RmwOp,
        val: Box<Ex>,
        fetch: bool,
        annot: Annot,
    },
    /// `__atomic_add_unless{a}(loc, add, unless)`: 1 when it added, else 0.
    AddUnless(Box<Ex>, Box<Ex>, Box<Ex>, Annot),
    /// `__trylock(loc)`: 1 when taken, else 0.
    TryLock(Box<Ex>),
    /// `__islocked(loc)`
    IsLocked(Box<Ex>),
    /// `__srcu{a}(loc)` as an expression.
    Srcu(Box<Ex>, Annot),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum St {
    Seq(Vec<St>),
    If(Ex, Box<St>, Option<Box<St>>, Span),
    While(Ex, Box<St>, Span),
    /// `int r;`: no event.
    Decl(String),
    /// `r = e;` (also `int r = e;`).
    SetReg(String, Ex, Span),
    /// An expression evaluated for its effects: `(void)e;`.
    Eval(Ex, Span),
    /// A memory write: `*loc = val;` or `__store{a}(loc, val);` (see [`Ex::Load`]).
    Store(Ex, Ex, Annot, Span),
    Lock(Ex, Span),
    Unlock(Ex, Span),
    /// `__atomic_op{a}(loc, op, val);`
    AtomicOp(Ex, RmwOp, Ex, Annot, Span),
    Fence(Annot, Span),
    /// `__srcu{a}(loc);` or `__srcu{a}(loc, val);`
    Srcu(Ex, Annot, Option<Ex>, Span),
    /// A statement macro call, before expansion.
    Call(String, Vec<Ex>, Span),
}

/// Why a thread's code cannot be lowered.
pub type LowerError = (Span, String);

/// Lower a thread's body; macro calls stay as `Call`s.
pub fn lower_body(body: &[ast::Stmt]) -> Result<St, LowerError> {
    Ok(St::Seq(
        body.iter().map(lower_stmt).collect::<Result<_, _>>()?,
    ))
}

fn lower_stmt(s: &ast::Stmt) -> Result<St, LowerError> {
    use ast::Stmt as S;
    Ok(match s {
        S::Decl {
            name, init: None, ..
        } => St::Decl(name.clone()),
        S::Decl {
            name,
            init: Some(e),
            span,
            ..
        } => St::SetReg(name.clone(), lower_expr(e, *span)?, *span),
        S::Expr(e, span) => lower_expr_stmt(e, *span)?,
        S::If {
            cond,
            then,
            els,
            span,
        } => St::If(
            lower_expr(cond, *span)?,
            Box::new(lower_block(then)?),
            els.as_deref().map(lower_block).transpose()?.map(Box::new),
            *span,
        ),
        S::While { cond, body, span } => St::While(
            lower_expr(cond, *span)?,
            Box::new(lower_block(body)?),
            *span,
        ),
        S::Block(b) => lower_block(b)?,
        S::Empty => St::Seq(Vec::new()),
        S::DoWhile { span, .. } => return Err((*span, unsupported("`do ... while`"))),
        S::For { span, .. } => return Err((*span, unsupported("`for`"))),
        S::Break(span) => return Err((*span, unsupported("`break`"))),
        S::Continue(span) => return Err((*span, unsupported("`continue`"))),
        S::Return(_, span) => return Err((*span, unsupported("`return`"))),
    })
}

fn unsupported(what: &str) -> String {
    format!("{what} is not part of herd's C dialect (only if/else and while)")
}

fn lower_block(b: &[ast::Stmt]) -> Result<St, LowerError> {
    Ok(St::Seq(b.iter().map(lower_stmt).collect::<Result<_, _>>()?))
}

/// An expression statement: assignments, statement-macro calls, or an expression
/// evaluated for its effects.
fn lower_expr_stmt(e: &ast::Expr, span: Span) -> Result<St, LowerError> {
    use ast::Expr as E;
    Ok(match e {
        E::Assign { op, lhs, rhs } => {
            let rhs = lower_expr(rhs, span)?;
            let value = |cur: Ex| match op {
                None => rhs.clone(),
                Some(op) => Ex::Bin(*op, Box::new(cur), Box::new(rhs.clone())),
            };
            match &**lhs {
                E::Var(r, s) => St::SetReg(r.clone(), value(Ex::Reg(r.clone(), *s)), span),
                E::Unary(UnOp::Deref, a) => {
                    let addr = lower_expr(a, span)?;
                    let v = value(Ex::Load(Box::new(addr.clone()), Vec::new()));
                    St::Store(addr, v, Vec::new(), span)
                }
                _ => return Err((span, "unsupported assignment target".into())),
            }
        }
        E::Unary(op @ (UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec), a) => {
            let bop = if matches!(op, UnOp::PreInc | UnOp::PostInc) {
                BinOp::Add
            } else {
                BinOp::Sub
            };
            let one = Box::new(E::Int(1));
            let assign = E::Assign {
                op: Some(bop),
                lhs: a.clone(),
                rhs: one,
            };
            lower_expr_stmt(&assign, span)?
        }
        // herd parses `f(...);` as a call of a statement macro.
        E::Call { name, args, span } => St::Call(name.clone(), lower_args(args, *span)?, *span),
        E::Cast(_, e) => St::Eval(lower_expr(e, span)?, span),
        _ => St::Eval(lower_expr(e, span)?, span),
    })
}

fn lower_args(args: &[ast::Expr], span: Span) -> Result<Vec<Ex>, LowerError> {
    args.iter().map(|a| lower_expr(a, span)).collect()
}

/// `span` locates the enclosing statement, for expressions without a span of their own.
fn lower_expr(e: &ast::Expr, span: Span) -> Result<Ex, LowerError> {
    use ast::Expr as E;
    let b = |e: &ast::Expr| lower_expr(e, span).map(Box::new);
    Ok(match e {
        E::Int(i) => Ex::Int(*i),
        E::Var(r, s) => Ex::Reg(r.clone(), *s),
        E::Call { name, args, span } => Ex::Call(name.clone(), lower_args(args, *span)?, *span),
        E::Unary(UnOp::Deref, a) => Ex::Load(b(a)?, Vec::new()),
        E::Unary(UnOp::AddrOf, a) => match &**a {
            // `&*e` is `e`; herd's C has no other address-of.
            E::Unary(UnOp::Deref, inner) => lower_expr(inner, span)?,
            // A local's address, for try_cmpxchg's `&old`.
            E::Var(r, s) => Ex::LocalAddr(r.clone(), *s),
            _ => {
                return Err((
                    span,
                    "address-of (`&`) is not supported in thread code".into(),
                ));
            }
        },
        E::Unary(op @ (UnOp::Neg | UnOp::Not | UnOp::BitNot), a) => Ex::Un(*op, b(a)?),
        E::Unary(_, _) => {
            return Err((
                span,
                "`++`/`--` inside an expression is not supported".into(),
            ));
        }
        E::Binary(op, l, r) => Ex::Bin(*op, b(l)?, b(r)?),
        E::Cast(_, e) => lower_expr(e, span)?,
        E::Cond(c, t, f) => Ex::Cond(b(c)?, b(t)?, b(f)?),
        E::Assign { .. } => {
            return Err((
                span,
                "assignment inside an expression is not supported".into(),
            ));
        }
        E::Index(..) => return Err((span, "array indexing is not supported".into())),
        E::Field { .. } => return Err((span, "struct fields are not supported".into())),
    })
}
