//! Macro expansion, as herd does it before giving the code a meaning: a call's arguments
//! are expanded in the caller's scope, then substituted for the formals in the body.
//! Names that are not formals stay as they are (they are the thread's locals).

use super::ir::{Annot, Ex, Func, Guard, Loop, RET, St};
use crate::litmus::ast::Span;
use crate::sem::SemError;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// A test's helper functions while one thread is expanded: calls made so far (each
/// inlined copy gets fresh names) and the calls open (to refuse recursion).
pub struct Funcs<'f> {
    pub defs: &'f HashMap<String, Func>,
    next: Cell<u32>,
    open: RefCell<Vec<String>>,
}

impl<'f> Funcs<'f> {
    pub fn new(defs: &'f HashMap<String, Func>) -> Self {
        Funcs {
            defs,
            next: Cell::new(0),
            open: RefCell::new(Vec::new()),
        }
    }
}

/// Macro definitions by name: `(formals, body)`.
#[derive(Clone, Debug, Default)]
pub struct Defs {
    pub exprs: HashMap<String, (Vec<String>, Ex)>,
    pub stmts: HashMap<String, (Vec<String>, St)>,
    /// Definitions parsed only when first used (the shipped macro file: a test calls a
    /// handful of its hundred macros, and parsing them all would be most of a small run);
    /// below `exprs` and `stmts`, which hide its names.
    pub lazy: Option<std::sync::Arc<super::defparse::LazyDefs>>,
}

impl Defs {
    fn expr_macro(&self, name: &str) -> Option<(&[String], &Ex)> {
        match self.exprs.get(name) {
            Some((f, b)) => Some((f, b)),
            // A name defined here hides the fallback's.
            None if self.stmts.contains_key(name) => None,
            None => match self.lazy.as_ref()?.get(name)? {
                super::defparse::Def::Expr(_, f, b) => Some((f, b)),
                super::defparse::Def::Stmt(..) => None,
            },
        }
    }
    fn stmt_macro(&self, name: &str) -> Option<(&[String], &St)> {
        match self.stmts.get(name) {
            Some((f, b)) => Some((f, b)),
            None if self.exprs.contains_key(name) => None,
            None => match self.lazy.as_ref()?.get(name)? {
                super::defparse::Def::Stmt(_, f, b) => Some((f, b)),
                super::defparse::Def::Expr(..) => None,
            },
        }
    }
    /// Is `name` defined, as an expression or a statement macro?
    pub fn defines(&self, name: &str) -> bool {
        self.expr_macro(name).is_some() || self.stmt_macro(name).is_some()
    }

    /// Every defined name, sorted.
    fn names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .exprs
            .keys()
            .chain(self.stmts.keys())
            .map(String::as_str)
            .collect();
        if let Some(l) = &self.lazy {
            v.extend(l.names());
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    /// "unknown macro" with the defined names closest to `name`.
    fn unknown(&self, name: &str) -> String {
        let names = self.names();
        let mut near: Vec<(usize, &str)> = names
            .iter()
            .map(|n| (edit_distance(name, n), *n))
            .filter(|(d, _)| *d <= 3.max(name.len() / 4))
            .collect();
        near.sort_unstable();
        let near: Vec<String> = near.iter().take(4).map(|(_, n)| format!("`{n}`")).collect();
        let near = if near.is_empty() {
            String::new()
        } else {
            format!("; did you mean {}?", near.join(", "))
        };
        format!(
            "unknown macro `{name}`{near} ({} primitives are defined; docs/src/kernel-code.md lists them)",
            names.len()
        )
    }
}

/// Levenshtein distance, for suggestions.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Deeper than this, a macro is taken to call itself.
const MAX_DEPTH: usize = 64;

/// Where expansion is: the formals in scope and the thread-code call being expanded.
struct Scope<'a> {
    frame: Option<&'a HashMap<String, Ex>>,
    /// Innermost macro being expanded, for messages.
    macro_name: Option<&'a str>,
    /// The span of the thread-code call (macro bodies have no span of their own there).
    at: Option<Span>,
    depth: usize,
    funcs: Option<&'a Funcs<'a>>,
}

/// The error for a call of a macro the `.def` file does not define; [`unknown_macro`]
/// reads the name back (herd's scripts look for it).
/// The macro an error message from this module says is unknown.
pub fn unknown_macro(msg: &str) -> Option<&str> {
    let (_, rest) = msg.split_once("unknown macro `")?;
    rest.split('`').next()
}

fn err(span: Option<Span>, msg: String) -> SemError {
    SemError { span, msg }
}

impl Defs {
    /// Expand every macro call in a thread's body.
    pub fn expand_thread(&self, body: &St, funcs: &Funcs) -> Result<St, SemError> {
        let top = Scope {
            frame: None,
            macro_name: None,
            at: None,
            depth: 0,
            funcs: Some(funcs),
        };
        self.stmt(body, &top)
    }

    fn call_frame(
        &self,
        name: &str,
        formals: &[String],
        args: &[Ex],
        s: &Scope,
        span: Span,
    ) -> Result<HashMap<String, Ex>, SemError> {
        let at = s.at.or(Some(span));
        if formals.len() != args.len() {
            return Err(err(
                at,
                format!(
                    "`{name}` takes {} argument(s), {} given",
                    formals.len(),
                    args.len()
                ),
            ));
        }
        if s.depth >= MAX_DEPTH {
            return Err(err(at, format!("expansion of `{name}` does not terminate")));
        }
        let args = args
            .iter()
            .map(|a| self.expr(a, s))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(formals.iter().cloned().zip(args).collect())
    }

    /// Expand a macro's body with its formals bound to the call's arguments.
    fn in_macro<T>(
        &self,
        name: &str,
        formals: &[String],
        args: &[Ex],
        s: &Scope,
        span: Span,
        body: impl FnOnce(&Scope) -> Result<T, SemError>,
    ) -> Result<T, SemError> {
        let frame = self.call_frame(name, formals, args, s, span)?;
        body(&Scope {
            frame: Some(&frame),
            macro_name: Some(name),
            at: s.at.or(Some(span)),
            depth: s.depth + 1,
            funcs: s.funcs,
        })
    }

    /// A call of helper function `f`, inlined: each parameter a fresh local set to its
    /// argument (call by value; `&local` passed stands for that local), the body's names
    /// made fresh, so every call is the body written out at the call.
    fn inline(
        &self,
        name: &str,
        f: &Func,
        args: &[Ex],
        s: &Scope,
        span: Span,
    ) -> Result<Ex, SemError> {
        let at = s.at.or(Some(span));
        let funcs = s.funcs.expect("functions are only called from a thread");
        let open = funcs.open.borrow().clone();
        if let Some(k) = open.iter().position(|n| n == name) {
            let chain: Vec<&str> = open[k..].iter().map(String::as_str).chain([name]).collect();
            return Err(err(
                at,
                format!(
                    "recursive call of `{name}` ({}): helper functions are inlined at each call, \
                     so they may not call themselves",
                    chain.join(" -> ")
                ),
            ));
        }
        if f.params.len() != args.len() {
            let msg = format!(
                "`{name}` takes {} argument(s), {} given",
                f.params.len(),
                args.len()
            );
            return Err(err(at, msg));
        }
        let args = args
            .iter()
            .map(|a| self.expr(a, s))
            .collect::<Result<Vec<_>, _>>()?;
        let k = funcs.next.get();
        funcs.next.set(k + 1);
        let fresh = |l: &str| format!("{name}#{k}.{l}");
        let mut frame: HashMap<String, Ex> = f
            .locals
            .iter()
            .map(|l| (l.clone(), Ex::Reg(fresh(l), span)))
            .collect();
        let mut body = Vec::new();
        for (p, a) in f.params.iter().zip(args) {
            if matches!(a, Ex::LocalAddr(..)) {
                frame.insert(p.clone(), a);
            } else {
                body.push(St::SetReg(fresh(p), a, span));
            }
        }
        funcs.open.borrow_mut().push(name.to_string());
        let inner = Scope {
            frame: Some(&frame),
            macro_name: Some(name),
            at: s.at,
            depth: s.depth + 1,
            funcs: s.funcs,
        };
        let b = self.stmt(&f.body, &inner);
        funcs.open.borrow_mut().pop();
        body.push(b?);
        Ok(Ex::Frame(Box::new(St::Seq(body)), fresh(RET)))
    }

    fn function<'s>(&self, name: &str, s: &Scope<'s>) -> Option<&'s Func> {
        s.funcs.and_then(|f| f.defs.get(name))
    }

    fn bad_arg(&self, prim: &str, s: &Scope) -> SemError {
        let within = s
            .macro_name
            .map(|m| format!(" (in `{m}`)"))
            .unwrap_or_default();
        err(
            s.at,
            format!(
                "bad {prim} argument{within}: an annotated access needs a dereference such as `*x`"
            ),
        )
    }

    /// The address an access touches: `arg` itself when plain, the pointer `p` of `*p`
    /// when annotated.
    fn access_addr(&self, arg: &Ex, annot: &Annot, prim: &str, s: &Scope) -> Result<Ex, SemError> {
        let e = self.expr(arg, s)?;
        if annot.is_empty() {
            return Ok(e);
        }
        match e {
            Ex::Load(addr, a) if a.is_empty() => Ok(*addr),
            _ => Err(self.bad_arg(prim, s)),
        }
    }

    fn expr(&self, e: &Ex, s: &Scope) -> Result<Ex, SemError> {
        let b = |e: &Ex| self.expr(e, s).map(Box::new);
        Ok(match e {
            Ex::Int(_) => e.clone(),
            Ex::Reg(r, _) => match s.frame.and_then(|f| f.get(r)) {
                Some(arg) => arg.clone(),
                None => e.clone(),
            },
            Ex::Load(arg, annot) => match self.access_addr(arg, annot, "__load", s)? {
                // `*p` for `p` standing for `&r`: the local `r`.
                Ex::LocalAddr(r, sp) if annot.is_empty() => Ex::Reg(r, sp),
                addr => Ex::Load(Box::new(addr), annot.clone()),
            },
            Ex::Un(op, a) => Ex::Un(*op, b(a)?),
            Ex::Bin(op, l, r) => Ex::Bin(*op, b(l)?, b(r)?),
            Ex::Cond(c, t, f) => Ex::Cond(b(c)?, b(t)?, b(f)?),
            Ex::Call(name, args, span) if self.function(name, s).is_some() => {
                let f = self.function(name, s).expect("checked");
                self.inline(name, f, args, s, *span)?
            }
            Ex::Call(name, args, span) => match self.expr_macro(name) {
                Some((formals, body)) => self.in_macro(name, formals, args, s, *span, |inner| {
                    self.expr(body, inner)
                })?,
                // herd's built-in fallback when no definition is loaded.
                None if name == "atomic_add_unless" && args.len() == 3 => Ex::AddUnless {
                    loc: b(&args[0])?,
                    add: b(&args[1])?,
                    guard: Guard::Equals(b(&args[2])?),
                    yields: super::ir::Yield::Added,
                    annot: vec![String::new()],
                },
                None if self.stmt_macro(name).is_some() => {
                    let msg = format!("`{name}` is a statement: it yields no value to use");
                    return Err(err(s.at.or(Some(*span)), msg));
                }
                None => return Err(err(s.at.or(Some(*span)), self.unknown(name))),
            },
            Ex::Xchg(l, v, a) => Ex::Xchg(b(l)?, b(v)?, a.clone()),
            Ex::CmpXchg(l, o, n, a) => Ex::CmpXchg(b(l)?, b(o)?, b(n)?, a.clone()),
            Ex::TryCmpXchg(l, p, n, a) => Ex::TryCmpXchg(b(l)?, b(p)?, b(n)?, a.clone()),
            // `&V` for a formal `V` is the address of what the caller passed.
            Ex::LocalAddr(r, sp) => match s.frame.and_then(|f| f.get(r)) {
                Some(Ex::Reg(r2, sp2)) => Ex::LocalAddr(r2.clone(), *sp2),
                Some(Ex::Load(addr, a)) if a.is_empty() => (**addr).clone(),
                Some(_) => return Err(err(s.at.or(Some(*sp)), format!("`&{r}`: not an lvalue"))),
                None => e.clone(),
            },
            Ex::AtomicRet {
                loc,
                op,
                val,
                fetch,
                annot,
            } => Ex::AtomicRet {
                loc: b(loc)?,
                op: *op,
                val: b(val)?,
                fetch: *fetch,
                annot: annot.clone(),
            },
            Ex::AddUnless {
                loc,
                add,
                guard,
                yields,
                annot,
            } => Ex::AddUnless {
                loc: b(loc)?,
                add: b(add)?,
                guard: match guard {
                    Guard::Equals(u) => Guard::Equals(b(u)?),
                    Guard::NegativeSum => Guard::NegativeSum,
                },
                yields: *yields,
                annot: annot.clone(),
            },
            Ex::Seq(st, v) => Ex::Seq(Box::new(self.stmt(st, s)?), b(v)?),
            Ex::Frame(st, r) => Ex::Frame(Box::new(self.stmt(st, s)?), r.clone()),
            Ex::Elem(t, i, sp) => Ex::Elem(self.local_name(t, s, *sp)?, b(i)?, *sp),
            Ex::TryLock(l) => Ex::TryLock(b(l)?),
            Ex::IsLocked(l) => Ex::IsLocked(b(l)?),
            Ex::Srcu(l, a) => Ex::Srcu(b(l)?, a.clone()),
        })
    }

    /// The local a name stands for: a formal bound to a local names that local.
    fn local_name(&self, t: &str, s: &Scope, sp: Span) -> Result<String, SemError> {
        match s.frame.and_then(|f| f.get(t)) {
            None => Ok(t.to_string()),
            Some(Ex::Reg(r, _)) => Ok(r.clone()),
            Some(_) => Err(err(
                s.at.or(Some(sp)),
                format!("`{t}` is not a local array"),
            )),
        }
    }

    fn stmt(&self, st: &St, s: &Scope) -> Result<St, SemError> {
        let e = |x: &Ex| self.expr(x, s);
        // Statements from a macro body are reported at the thread's call.
        let here = |sp: &Span| s.at.unwrap_or(*sp);
        Ok(match st {
            St::Seq(v) => St::Seq(
                v.iter()
                    .map(|x| self.stmt(x, s))
                    .collect::<Result<_, _>>()?,
            ),
            St::If {
                cond,
                then,
                els,
                span,
                ..
            } => St::if_(
                e(cond)?,
                self.stmt(then, s)?,
                els.as_deref().map(|f| self.stmt(f, s)).transpose()?,
                here(span),
            ),
            St::Loop(l) => St::Loop(Loop {
                cond: l.cond.as_ref().map(e).transpose()?,
                test_first: l.test_first,
                body: Box::new(self.stmt(&l.body, s)?),
                step: l
                    .step
                    .as_deref()
                    .map(|st| self.stmt(st, s))
                    .transpose()?
                    .map(Box::new),
                ctrl_after: l.ctrl_after,
                span: here(&l.span),
            }),
            St::Break(sp) => St::Break(here(sp)),
            St::Continue(sp) => St::Continue(here(sp)),
            St::Return(sp) => St::Return(here(sp)),
            St::SetElem(t, i, v, sp) => {
                St::SetElem(self.local_name(t, s, here(sp))?, e(i)?, e(v)?, here(sp))
            }
            St::Decl(r) => match s.frame.and_then(|f| f.get(r)) {
                Some(Ex::Reg(r2, _)) => St::Decl(r2.clone()),
                _ => st.clone(),
            },
            St::Fence(..) => st.clone(),
            St::SetReg(r, v, sp) => {
                let v = e(v)?;
                match s.frame.and_then(|f| f.get(r)) {
                    None => St::SetReg(r.clone(), v, here(sp)),
                    // Assigning to a formal assigns to what the caller passed.
                    Some(Ex::Reg(r2, _)) => St::SetReg(r2.clone(), v, here(sp)),
                    Some(Ex::Load(addr, a)) => St::Store((**addr).clone(), v, a.clone(), here(sp)),
                    Some(_) => {
                        return Err(err(Some(here(sp)), format!("`{r}` is not assignable here")));
                    }
                }
            }
            St::Eval(x, sp) => St::Eval(e(x)?, here(sp)),
            St::Store(arg, v, annot, sp) => match self.access_addr(arg, annot, "__store", s)? {
                Ex::LocalAddr(r, _) if annot.is_empty() => St::SetReg(r, e(v)?, here(sp)),
                addr => St::Store(addr, e(v)?, annot.clone(), here(sp)),
            },
            St::Lock(l, sp) => St::Lock(e(l)?, here(sp)),
            St::Unlock(l, sp) => St::Unlock(e(l)?, here(sp)),
            St::AtomicOp(l, op, v, a, sp) => St::AtomicOp(e(l)?, *op, e(v)?, a.clone(), here(sp)),
            St::Srcu(l, a, v, sp) => {
                St::Srcu(e(l)?, a.clone(), v.as_ref().map(e).transpose()?, here(sp))
            }
            St::Call(name, args, span) if self.function(name, s).is_some() => {
                let f = self.function(name, s).expect("checked");
                St::Eval(self.inline(name, f, args, s, *span)?, here(span))
            }
            St::Call(name, args, span) => match self.stmt_macro(name) {
                Some((formals, body)) => self.in_macro(name, formals, args, s, *span, |inner| {
                    self.stmt(body, inner)
                })?,
                // An expression statement discards its value, as in C
                // (`smp_cond_load_acquire(&x, VAL == 1);` in kernel/smp.c).
                None if self.expr_macro(name).is_some() => {
                    let call = Ex::Call(name.clone(), args.clone(), *span);
                    St::Eval(e(&call)?, here(span))
                }
                None => return Err(err(s.at.or(Some(*span)), self.unknown(name))),
            },
        })
    }
}
