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
    /// A helper function's body inlined at a call (its names made fresh): run, a `return`
    /// ending it, then the local holding its value ([`RET`], renamed).
    Frame(Box<St>, String),
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
    /// A conditional atomic add (herd's `__atomic_add_unless{a}` and our
    /// `__atomic_fetch_add_unless{a}`, `__atomic_add_unless_negative{a}`): one atomic read,
    /// then the write of the sum only when `guard` lets it. Without the write it is a lone
    /// read tagged as an RMW, like a failed cmpxchg.
    AddUnless {
        loc: Box<Ex>,
        add: Box<Ex>,
        guard: Guard,
        yields: Yield,
        annot: Annot,
    },
    /// `__trylock(loc)`: 1 when taken, else 0.
    TryLock(Box<Ex>),
    /// `__islocked(loc)`
    IsLocked(Box<Ex>),
    /// `__srcu{a}(loc)` as an expression.
    Srcu(Box<Ex>, Annot),
    /// A GNU statement expression `({ st; e })`: runs `st`, then yields `e`. Lowering
    /// makes C's side effects inside expressions into these (`r++`, `x = e` as a value),
    /// and the spin-wait macros are written with them, as the kernel writes them.
    Seq(Box<St>, Box<Ex>),
    /// `t[i]` for a local array `t`: the local `t[i]` for the value of `i` (a global
    /// array is reached through its address: `*(t + i)`).
    Elem(String, Box<Ex>, Span),
}

/// When a conditional add ([`Ex::AddUnless`]) does not write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Guard {
    /// The value read equals this one.
    Equals(Box<Ex>),
    /// The sum is negative.
    NegativeSum,
}

/// What a conditional add yields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Yield {
    /// 1 when it wrote, else 0.
    Added,
    /// The value read.
    Old,
    /// The sum, written or not.
    Sum,
}

/// What ends a statement early, found before running it: the exits it may take past
/// its own end (a `break` or `continue` of an enclosing loop, or a `return`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exits {
    pub brk: bool,
    pub cont: bool,
    pub ret: bool,
}

impl Exits {
    pub fn any(self) -> bool {
        self.brk || self.cont || self.ret
    }
    fn or(self, o: Exits) -> Exits {
        Exits {
            brk: self.brk || o.brk,
            cont: self.cont || o.cont,
            ret: self.ret || o.ret,
        }
    }
    /// The exits `st` may take past its end. A loop keeps only its `return`s: its `break`s
    /// and `continue`s are its own.
    pub fn of(st: &St) -> Exits {
        match st {
            St::Seq(v) => v.iter().fold(Exits::default(), |a, s| a.or(Exits::of(s))),
            St::If { exits, .. } => *exits,
            St::Loop(l) => Exits {
                ret: Exits::of(&l.body).ret || l.step.as_deref().is_some_and(|s| Exits::of(s).ret),
                ..Exits::default()
            },
            St::Break(_) => Exits {
                brk: true,
                ..Exits::default()
            },
            St::Continue(_) => Exits {
                cont: true,
                ..Exits::default()
            },
            St::Return(_) => Exits {
                ret: true,
                ..Exits::default()
            },
            _ => Exits::default(),
        }
    }
}

/// A loop: `while (c) body`, `do body while (c)`, `for (; c; step) body` (the `for`'s
/// first clause is lowered before the loop). Each iteration lies in the branch of the
/// test before it (herd's `while`: an iteration's events are ctrl-dependent on every
/// earlier test), and at most `--unroll` iterations run: a run needing more is cut.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// The test; `None` (`for (;;)`) always holds.
    pub cond: Option<Ex>,
    /// Tested before each iteration (`while`, `for`), or after (`do ... while`).
    pub test_first: bool,
    pub body: Box<St>,
    /// Run after each iteration, `continue`d ones too, before the next test (`for`'s
    /// third clause).
    pub step: Option<Box<St>>,
    /// A spin-wait whose exit orders what follows: everything after the loop is
    /// ctrl-dependent on the reads that decided the exit (the failing test, or the tests
    /// around the `break` taken in the last iteration). The kernel relies on this for
    /// `smp_cond_load_*()` (include/asm-generic/barrier.h); herd's `while` gives code after
    /// a loop no dependency, so only our spin-wait macros set it.
    pub ctrl_after: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum St {
    Seq(Vec<St>),
    /// `if (c) then else els`; `exits`: what the branches may exit past the `if`
    /// ([`Exits::of`] of both). When some branch may exit, the code after the `if` up to
    /// that exit's target runs only for the outcomes of the test that did not exit, so
    /// it is ctrl-dependent on the test, as if written in the branch that falls through
    /// (build with [`St::if_`]).
    If {
        cond: Ex,
        then: Box<St>,
        els: Option<Box<St>>,
        exits: Exits,
        span: Span,
    },
    Loop(Loop),
    /// Leave the innermost loop.
    Break(Span),
    /// Go to the innermost loop's step and test.
    Continue(Span),
    /// End the thread (a returned value is evaluated by a preceding [`St::Eval`]).
    Return(Span),
    /// `int r;`: no event.
    Decl(String),
    /// `r = e;` (also `int r = e;`).
    SetReg(String, Ex, Span),
    /// `t[i] = e;` for a local array `t`: the local `t[i]` for the value of `i`.
    SetElem(String, Ex, Ex, Span),
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

impl St {
    /// An `if` with its [`Exits`] computed.
    pub fn if_(cond: Ex, then: St, els: Option<St>, span: Span) -> St {
        let exits = els
            .as_ref()
            .map_or(Exits::default(), Exits::of)
            .or(Exits::of(&then));
        St::If {
            cond,
            then: Box::new(then),
            els: els.map(Box::new),
            exits,
            span,
        }
    }
}

/// Why a thread's code cannot be lowered.
pub type LowerError = (Span, String);

/// Lower a thread's body; macro calls stay as `Call`s.
///
/// Block scopes are resolved here: a declaration that shadows a visible local is
/// renamed (`r#1`), so every name in the result is one local of the thread, and the
/// thread's outermost locals keep their names for the condition. Side effects inside
/// expressions become statement expressions ([`Ex::Seq`]) with fresh locals (`%1`, which
/// no test can name) holding intermediate values.
pub fn lower_body(body: &[ast::Stmt]) -> Result<St, LowerError> {
    let mut l = Lower {
        scopes: vec![Vec::new()],
        declared: Vec::new(),
        arrays: Vec::new(),
        fresh: 0,
        loops: 0,
        in_function: false,
    };
    l.block(body)
}

/// The local a helper function's `return e;` sets before it returns.
pub const RET: &str = "%ret";

/// A helper function, lowered: inlined at each call with its names made fresh.
#[derive(Clone, Debug)]
pub struct Func {
    pub params: Vec<String>,
    pub body: St,
    /// Every name the body declares or sets, its parameters and [`RET`].
    pub locals: Vec<String>,
}

/// Lower a helper function: as a thread's body, `return e;` setting [`RET`].
pub fn lower_function(f: &ast::CFunc) -> Result<Func, LowerError> {
    let params: Vec<String> = f.params.iter().map(|p| p.name.clone()).collect();
    let mut l = Lower {
        scopes: vec![params.iter().map(|p| (p.clone(), p.clone())).collect()],
        declared: params.clone(),
        arrays: Vec::new(),
        fresh: 0,
        loops: 0,
        in_function: true,
    };
    let body = l.block(&f.body)?;
    let mut locals = params.clone();
    locals.push(RET.to_string());
    set_names(&body, &mut locals);
    locals.sort();
    locals.dedup();
    Ok(Func {
        params,
        body,
        locals,
    })
}

/// A block with its `goto`s made loops: for a label with `goto`s after it (backward),
/// the code from the label to the last `goto` becomes `do { ...; break; } while (1)`,
/// each `goto` a `continue` (so `--unroll` bounds the retries as it bounds loops); for
/// one with `goto`s before it (forward), the code from the first `goto` to the label
/// becomes `do { ... } while (0)`, each `goto` a `break`. The `goto`s may be inside `if`s and blocks, not inside loops or
/// `switch`es, and the code they wrap may not `break` or `continue` a loop around it.
fn gotos(mut b: Vec<ast::Stmt>) -> Result<Vec<ast::Stmt>, LowerError> {
    use ast::Stmt as S;
    while let Some((i, l, sp)) = b.iter().enumerate().find_map(|(i, s)| match s {
        S::Label(l, sp) if b.iter().any(|t| jumps_to(t, l)) => Some((i, l.clone(), *sp)),
        _ => None,
    }) {
        let back = b[i + 1..].iter().any(|t| jumps_to(t, &l));
        let fwd = b[..i].iter().any(|t| jumps_to(t, &l));
        if back && fwd {
            return Err((
                sp,
                format!("label `{l}`: `goto`s both before and after it are not supported"),
            ));
        }
        // The shortest segment: up to the last `goto` back, from the first `goto` forward.
        let (from, to) = if back {
            let last = (i + 1..b.len())
                .rev()
                .find(|&k| jumps_to(&b[k], &l))
                .unwrap_or(i);
            (i + 1, last + 1)
        } else {
            (b[..i].iter().position(|t| jumps_to(t, &l)).unwrap_or(0), i)
        };
        let (seg, with, cond) = if back {
            (b[from..to].to_vec(), S::Continue(sp), 1)
        } else {
            (b[from..to].to_vec(), S::Break(sp), 0)
        };
        if let Some(at) = seg.iter().find_map(loop_exit) {
            return Err((
                at,
                format!("`break` or `continue` in code a `goto {l}` jumps over or back into"),
            ));
        }
        let mut body = retarget(&seg, &l, &with)?;
        if back {
            body.push(S::Break(sp));
        }
        let lp = S::DoWhile {
            body,
            cond: ast::Expr::Int(cond),
            span: sp,
        };
        let (before, after) = if back { (i, to) } else { (from, i + 1) };
        b = b[..before]
            .iter()
            .cloned()
            .chain([lp])
            .chain(b[after..].iter().cloned())
            .collect();
    }
    Ok(b)
}

/// Whether `s` has a `goto l`.
fn jumps_to(s: &ast::Stmt, l: &str) -> bool {
    use ast::Stmt as S;
    match s {
        S::Goto(g, _) => g == l,
        S::If { then, els, .. } => {
            then.iter().any(|t| jumps_to(t, l)) || els.iter().flatten().any(|t| jumps_to(t, l))
        }
        S::Block(v) | S::While { body: v, .. } | S::DoWhile { body: v, .. } => {
            v.iter().any(|t| jumps_to(t, l))
        }
        S::For { body, .. } | S::Switch { body, .. } => body.iter().any(|t| jumps_to(t, l)),
        _ => false,
    }
}

/// A `break` or `continue` of `s` for a loop around it.
fn loop_exit(s: &ast::Stmt) -> Option<Span> {
    use ast::Stmt as S;
    match s {
        S::Break(sp) | S::Continue(sp) => Some(*sp),
        S::If { then, els, .. } => then.iter().chain(els.iter().flatten()).find_map(loop_exit),
        S::Block(v) => v.iter().find_map(loop_exit),
        _ => None,
    }
}

/// `seg` with each `goto l` replaced by `with`.
fn retarget(seg: &[ast::Stmt], l: &str, with: &ast::Stmt) -> Result<Vec<ast::Stmt>, LowerError> {
    use ast::Stmt as S;
    seg.iter()
        .map(|s| {
            Ok(match s {
                S::Goto(g, _) if g == l => with.clone(),
                S::If {
                    cond,
                    then,
                    els,
                    span,
                } => S::If {
                    cond: cond.clone(),
                    then: retarget(then, l, with)?,
                    els: els.as_deref().map(|e| retarget(e, l, with)).transpose()?,
                    span: *span,
                },
                S::Block(v) => S::Block(retarget(v, l, with)?),
                S::While { span, .. }
                | S::DoWhile { span, .. }
                | S::For { span, .. }
                | S::Switch { span, .. }
                    if jumps_to(s, l) =>
                {
                    return Err((
                        *span,
                        format!("`goto {l}` out of a loop or `switch` is not supported"),
                    ));
                }
                s => s.clone(),
            })
        })
        .collect()
}

/// Whether `st` has a `continue` for a loop around it.
fn continues(st: &St) -> bool {
    match st {
        St::Continue(_) => true,
        St::Seq(v) => v.iter().any(continues),
        St::If { then, els, .. } => continues(then) || els.as_deref().is_some_and(continues),
        _ => false,
    }
}

/// The names `st` declares or sets.
fn set_names(st: &St, out: &mut Vec<String>) {
    match st {
        St::Seq(v) => v.iter().for_each(|x| set_names(x, out)),
        St::If { then, els, .. } => {
            set_names(then, out);
            if let Some(e) = els {
                set_names(e, out);
            }
        }
        St::Loop(l) => {
            set_names(&l.body, out);
            if let Some(s) = &l.step {
                set_names(s, out);
            }
        }
        St::Decl(n) | St::SetReg(n, ..) | St::SetElem(n, ..) => out.push(n.clone()),
        _ => {}
    }
}

struct Lower {
    /// Per open block, its declarations: (name as written, name in the IR).
    scopes: Vec<Vec<(String, String)>>,
    /// Every IR name declared so far, to pick fresh names for shadowing ones.
    declared: Vec<String>,
    /// Local arrays (IR name, length).
    arrays: Vec<(String, usize)>,
    fresh: u32,
    /// Loops open around the statement being lowered (for `break`/`continue`).
    loops: u32,
    /// Lowering a helper function: `return e;` sets [`RET`].
    in_function: bool,
}

/// `int[2]`: an array type's element type and length.
pub fn array_type(ty: &str) -> Option<(&str, usize)> {
    let (elem, n) = ty.strip_suffix(']')?.rsplit_once('[')?;
    Some((elem.trim_end(), n.trim().parse().ok()?))
}

impl Lower {
    /// The IR name of `name` as seen here.
    fn resolve(&self, name: &str) -> String {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map_or_else(|| name.to_string(), |(_, ir)| ir.clone())
    }

    fn declare(&mut self, name: &str) -> String {
        let visible = self.scopes.iter().flatten().any(|(n, _)| n == name);
        let ir = if visible || (self.scopes.len() > 1 && self.declared.iter().any(|d| d == name)) {
            let mut k = 1;
            while self.declared.contains(&format!("{name}#{k}")) {
                k += 1;
            }
            format!("{name}#{k}")
        } else {
            name.to_string()
        };
        self.declared.push(ir.clone());
        if let Some(s) = self.scopes.last_mut() {
            s.push((name.to_string(), ir.clone()));
        }
        ir
    }

    fn temp(&mut self) -> String {
        self.fresh += 1;
        format!("%{}", self.fresh)
    }

    fn array_len(&self, ir: &str) -> Option<usize> {
        self.arrays.iter().find(|(n, _)| n == ir).map(|a| a.1)
    }

    /// A block: its own scope.
    fn block(&mut self, b: &[ast::Stmt]) -> Result<St, LowerError> {
        let b = &gotos(b.to_vec())?;
        self.scopes.push(Vec::new());
        let r = b.iter().map(|s| self.stmt(s)).collect::<Result<_, _>>();
        self.scopes.pop();
        Ok(St::Seq(r?))
    }

    /// `switch (c) { ... }` as tests in a `do { } while (0)` (which `break` leaves):
    /// the value once in a local, then each `case` group run when a match happened
    /// (fall-through) or its value matches; then, when nothing matched, the groups from
    /// `default:` on. The tests are nested `if`s over that local, so what follows them is
    /// ctrl-dependent on the reads the value came from, as the `if` chain written out.
    fn switch(
        &mut self,
        cond: &ast::Expr,
        body: &[ast::Stmt],
        span: Span,
    ) -> Result<St, LowerError> {
        use ast::Stmt as S;
        let v = self.expr(cond, span)?;
        let (val, hit) = (self.temp(), self.temp());
        // The groups: a label and the statements up to the next one.
        let mut groups: Vec<(Option<&ast::Expr>, Vec<ast::Stmt>)> = Vec::new();
        for s in body {
            match s {
                S::Case(v, _) => groups.push((v.as_ref(), Vec::new())),
                // Code before the first label never runs.
                s => {
                    if let Some(g) = groups.last_mut() {
                        g.1.push(s.clone());
                    }
                }
            }
        }
        let reg = |r: &str| Ex::Reg(r.to_string(), span);
        let set_hit = || St::SetReg(hit.clone(), Ex::Int(1), span);
        let inner = self.in_loop(|l| -> Result<Vec<St>, LowerError> {
            let mut code = Vec::new();
            for (label, stmts) in &groups {
                let test = match label {
                    Some(c) => {
                        let c = l.expr(c, span)?;
                        let eq = Ex::Bin(BinOp::Eq, Box::new(reg(&val)), Box::new(c));
                        Ex::Bin(BinOp::LOr, Box::new(reg(&hit)), Box::new(eq))
                    }
                    None => reg(&hit),
                };
                let b = St::Seq(vec![set_hit(), l.block(stmts)?]);
                code.push(St::if_(test, b, None, span));
            }
            if let Some(d) = groups.iter().position(|g| g.0.is_none()) {
                let rest: Vec<ast::Stmt> = groups[d..].iter().flat_map(|g| g.1.clone()).collect();
                let not_hit = Ex::Un(UnOp::Not, Box::new(reg(&hit)));
                code.push(St::if_(not_hit, l.block(&rest)?, None, span));
            }
            Ok(code)
        })?;
        if continues(&St::Seq(inner.clone())) {
            return Err((span, "`continue` inside a `switch` is not supported".into()));
        }
        Ok(St::Seq(vec![
            St::SetReg(val, v, span),
            St::SetReg(hit, Ex::Int(0), span),
            St::Loop(Loop {
                cond: Some(Ex::Int(0)),
                test_first: false,
                body: Box::new(St::Seq(inner)),
                step: None,
                ctrl_after: false,
                span,
            }),
        ]))
    }

    fn in_loop<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        self.loops += 1;
        let r = f(self);
        self.loops -= 1;
        r
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Result<St, LowerError> {
        use ast::Stmt as S;
        Ok(match s {
            S::Decl {
                ty,
                name,
                init,
                span,
            } => {
                // The initial value is computed before the name is in scope.
                let v = init.as_ref().map(|e| self.expr(e, *span)).transpose()?;
                let ir = self.declare(name);
                match (array_type(ty), v) {
                    (Some((_, n)), None) => {
                        self.arrays.push((ir.clone(), n));
                        St::Seq(
                            (0..n)
                                .map(|i| St::SetReg(format!("{ir}[{i}]"), Ex::Int(0), *span))
                                .collect(),
                        )
                    }
                    (Some(_), Some(_)) => {
                        return Err((*span, "local array initialisers are not supported".into()));
                    }
                    (None, None) => St::Decl(ir),
                    (None, Some(v)) => St::SetReg(ir, v, *span),
                }
            }
            S::Expr(e, span) => self.expr_stmt(e, *span)?,
            S::If {
                cond,
                then,
                els,
                span,
            } => {
                let c = self.expr(cond, *span)?;
                let t = self.block(then)?;
                let e = els.as_deref().map(|b| self.block(b)).transpose()?;
                St::if_(c, t, e, *span)
            }
            S::While { cond, body, span } => {
                let cond = Some(self.expr(cond, *span)?);
                let body = self.in_loop(|l| l.block(body))?;
                St::Loop(Loop {
                    cond,
                    test_first: true,
                    body: Box::new(body),
                    step: None,
                    ctrl_after: false,
                    span: *span,
                })
            }
            S::DoWhile { body, cond, span } => {
                let body = self.in_loop(|l| l.block(body))?;
                St::Loop(Loop {
                    cond: Some(self.expr(cond, *span)?),
                    test_first: false,
                    body: Box::new(body),
                    step: None,
                    ctrl_after: false,
                    span: *span,
                })
            }
            S::For {
                init,
                cond,
                step,
                body,
                span,
            } => {
                // `for (int i = 0; ...)`: `i` is scoped to the loop.
                self.scopes.push(Vec::new());
                let r = (|| {
                    let init = init.as_deref().map(|s| self.stmt(s)).transpose()?;
                    let cond = cond.as_ref().map(|c| self.expr(c, *span)).transpose()?;
                    let step = step
                        .as_ref()
                        .map(|e| self.expr_stmt(e, *span))
                        .transpose()?;
                    let body = self.in_loop(|l| l.block(body))?;
                    let lp = St::Loop(Loop {
                        cond,
                        test_first: true,
                        body: Box::new(body),
                        step: step.map(Box::new),
                        ctrl_after: false,
                        span: *span,
                    });
                    Ok(St::Seq(init.into_iter().chain([lp]).collect()))
                })();
                self.scopes.pop();
                r?
            }
            S::Block(b) => self.block(b)?,
            S::Switch { cond, body, span } => self.switch(cond, body, *span)?,
            S::Case(_, span) => {
                return Err((*span, "`case` or `default` outside a `switch`".into()));
            }
            S::Goto(l, span) => {
                return Err((
                    *span,
                    format!(
                        "`goto {l}`: no label `{l}` in the block around it or an enclosing one (a `goto` jumps within its function, to a label of a block it is in)"
                    ),
                ));
            }
            S::Label(..) => St::Seq(Vec::new()),
            S::Empty => St::Seq(Vec::new()),
            S::Break(span) | S::Continue(span) if self.loops == 0 => {
                let what = if matches!(s, S::Break(_)) {
                    "break"
                } else {
                    "continue"
                };
                return Err((*span, format!("`{what}` outside a loop")));
            }
            S::Break(span) => St::Break(*span),
            S::Continue(span) => St::Continue(*span),
            S::Return(None, span) => St::Return(*span),
            S::Return(Some(e), span) if self.in_function => St::Seq(vec![
                St::SetReg(RET.to_string(), self.expr(e, *span)?, *span),
                St::Return(*span),
            ]),
            S::Return(Some(e), span) => St::Seq(vec![
                St::Eval(self.expr(e, *span)?, *span),
                St::Return(*span),
            ]),
        })
    }

    /// An expression statement: assignments, statement-macro calls, or an expression
    /// evaluated for its effects.
    fn expr_stmt(&mut self, e: &ast::Expr, span: Span) -> Result<St, LowerError> {
        use ast::Expr as E;
        Ok(match e {
            E::Assign { op, lhs, rhs } => self.assign(*op, lhs, rhs, span)?.0,
            E::Unary(op @ (UnOp::PreInc | UnOp::PreDec | UnOp::PostInc | UnOp::PostDec), a) => {
                self.assign(Some(step_op(*op)), a, &E::Int(1), span)?.0
            }
            // herd parses `f(...);` as a call of a statement macro.
            E::Call { name, args, span } => St::Call(name.clone(), self.args(args, *span)?, *span),
            E::Cast(_, e) => St::Eval(self.expr(e, span)?, span),
            _ => St::Eval(self.expr(e, span)?, span),
        })
    }

    fn args(&mut self, args: &[ast::Expr], span: Span) -> Result<Vec<Ex>, LowerError> {
        args.iter().map(|a| self.expr(a, span)).collect()
    }

    /// `lhs = rhs` or `lhs op= rhs`: the statement, and an expression reading the value
    /// assigned afterwards (no second access to memory: a memory target's value is kept
    /// in a fresh local).
    fn assign(
        &mut self,
        op: Option<BinOp>,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Result<(St, Ex), LowerError> {
        use ast::Expr as E;
        let rhs = self.expr(rhs, span)?;
        let value = |cur: Ex| match op {
            None => rhs.clone(),
            Some(op) => Ex::Bin(op, Box::new(cur), Box::new(rhs.clone())),
        };
        Ok(match lhs {
            E::Var(r, s) if self.array_len(&self.resolve(r)).is_none() => {
                let r = self.resolve(r);
                let st = St::SetReg(r.clone(), value(Ex::Reg(r.clone(), *s)), span);
                (st, Ex::Reg(r, *s))
            }
            E::Index(a, i) if self.local_array(a).is_some() => {
                let t = self.local_array(a).unwrap_or_default();
                let i = self.expr(i, span)?;
                // The index is computed once.
                let k = self.temp();
                let ki = Ex::Reg(k.clone(), span);
                let cur = Ex::Elem(t.clone(), Box::new(ki.clone()), span);
                let v = self.temp();
                let st = St::Seq(vec![
                    St::SetReg(k, i, span),
                    St::SetReg(v.clone(), value(cur), span),
                    St::SetElem(t, ki, Ex::Reg(v.clone(), span), span),
                ]);
                (st, Ex::Reg(v, span))
            }
            E::Unary(UnOp::Deref, _) | E::Index(..) => {
                let addr = self.address(lhs, span)?;
                // A computed address is computed once.
                let (pre, addr) = match addr {
                    a @ (Ex::Reg(..) | Ex::Int(_)) => (None, a),
                    a => {
                        let p = self.temp();
                        (Some(St::SetReg(p.clone(), a, span)), Ex::Reg(p, span))
                    }
                };
                let v = self.temp();
                let cur = Ex::Load(Box::new(addr.clone()), Vec::new());
                let st: Vec<St> = pre
                    .into_iter()
                    .chain([
                        St::SetReg(v.clone(), value(cur), span),
                        St::Store(addr, Ex::Reg(v.clone(), span), Vec::new(), span),
                    ])
                    .collect();
                (St::Seq(st), Ex::Reg(v, span))
            }
            _ => return Err((span, "unsupported assignment target".into())),
        })
    }

    /// `a` when it names a local array: its IR name.
    fn local_array(&self, a: &ast::Expr) -> Option<String> {
        match a {
            ast::Expr::Var(n, _) => {
                let ir = self.resolve(n);
                self.array_len(&ir).map(|_| ir)
            }
            _ => None,
        }
    }

    /// The address a memory lvalue (`*p`, `p[i]`) names.
    fn address(&mut self, lv: &ast::Expr, span: Span) -> Result<Ex, LowerError> {
        use ast::Expr as E;
        match lv {
            E::Unary(UnOp::Deref, a) => self.expr(a, span),
            // `p[i]` is `*(p + i)`.
            E::Index(p, i) => Ok(Ex::Bin(
                BinOp::Add,
                Box::new(self.expr(p, span)?),
                Box::new(self.expr(i, span)?),
            )),
            _ => Err((span, "not an lvalue".into())),
        }
    }

    /// `span` locates the enclosing statement, for expressions without a span of their own.
    fn expr(&mut self, e: &ast::Expr, span: Span) -> Result<Ex, LowerError> {
        use ast::Expr as E;
        Ok(match e {
            E::Int(i) => Ex::Int(*i),
            E::Var(r, s) => {
                let ir = self.resolve(r);
                if self.array_len(&ir).is_some() {
                    return Err((*s, format!("the local array `{r}` is only usable indexed")));
                }
                Ex::Reg(ir, *s)
            }
            E::Call { name, args, span } => Ex::Call(name.clone(), self.args(args, *span)?, *span),
            E::Unary(UnOp::Deref, a) => Ex::Load(Box::new(self.expr(a, span)?), Vec::new()),
            E::Unary(UnOp::AddrOf, a) => match &**a {
                // `&*e` is `e`; `&p[i]` is `p + i`.
                E::Unary(UnOp::Deref, inner) => self.expr(inner, span)?,
                E::Index(..) if self.local_array(a).is_none() => self.address(a, span)?,
                // A local's address, for try_cmpxchg's `&old`.
                E::Var(r, s) => Ex::LocalAddr(self.resolve(r), *s),
                _ => {
                    return Err((
                        span,
                        "address-of (`&`) is not supported here: only `&local`, `&*p` and `&p[i]`"
                            .into(),
                    ));
                }
            },
            E::Unary(op @ (UnOp::Neg | UnOp::Not | UnOp::BitNot), a) => {
                Ex::Un(*op, Box::new(self.expr(a, span)?))
            }
            E::Unary(op @ (UnOp::PreInc | UnOp::PreDec), a) => {
                let (st, v) = self.assign(Some(step_op(*op)), a, &E::Int(1), span)?;
                Ex::Seq(Box::new(st), Box::new(v))
            }
            E::Unary(op @ (UnOp::PostInc | UnOp::PostDec), a) => {
                // The old value, kept before the update.
                let old = self.temp();
                let read = self.expr(a, span)?;
                let keep = St::SetReg(old.clone(), read, span);
                let old_e = E::Var(old.clone(), span);
                let bump = E::Binary(
                    if *op == UnOp::PostInc {
                        BinOp::Add
                    } else {
                        BinOp::Sub
                    },
                    Box::new(old_e),
                    Box::new(E::Int(1)),
                );
                let (st, _) = self.assign(None, a, &bump, span)?;
                Ex::Seq(
                    Box::new(St::Seq(vec![keep, st])),
                    Box::new(Ex::Reg(old, span)),
                )
            }
            E::Binary(op, l, r) => Ex::Bin(
                *op,
                Box::new(self.expr(l, span)?),
                Box::new(self.expr(r, span)?),
            ),
            E::Cast(_, e) => self.expr(e, span)?,
            E::Cond(c, t, f) => Ex::Cond(
                Box::new(self.expr(c, span)?),
                Box::new(self.expr(t, span)?),
                Box::new(self.expr(f, span)?),
            ),
            E::Assign { op, lhs, rhs } => {
                let (st, v) = self.assign(*op, lhs, rhs, span)?;
                Ex::Seq(Box::new(st), Box::new(v))
            }
            E::Index(a, i) => match self.local_array(a) {
                Some(t) => Ex::Elem(t, Box::new(self.expr(i, span)?), span),
                None => Ex::Load(Box::new(self.address(e, span)?), Vec::new()),
            },
            E::Field { .. } => return Err((span, "struct fields are not supported".into())),
        })
    }
}

/// The operator of `++`/`--`.
fn step_op(op: UnOp) -> BinOp {
    if matches!(op, UnOp::PreInc | UnOp::PostInc) {
        BinOp::Add
    } else {
        BinOp::Sub
    }
}
