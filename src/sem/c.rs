//! C (Linux-kernel) semantics: calls are expanded through a herd `.def` macro file into
//! herd's primitives (`__load{ONCE}`, `__xchg{MB}`, `__lock`, ...), which make events.
//!
//! The pipeline: the thread's AST is lowered to a small core language ([`ir`]), its macro
//! calls are expanded ([`expand`]), and the result is run against the tracer
//! ([`interp`]).
//!
//! Events, as herd makes them for the LKMM (variant `lkmmv2`, herd's
//! `linux-kernel.cfg`):
//! - reads and writes (`Kind::Read`/`Kind::Write`) are tagged with their annotation
//!   (`ONCE`, `ACQUIRE`, `RELEASE`, `MB`, `NORETURN`, `srcu-lock`, ...; none for a plain
//!   `*x`) and `annot` when they have one; the read and write of a read-modify-write are
//!   also tagged `X` and `RMW` and related by `rmw`. A failed `cmpxchg` or
//!   `atomic_add_unless` is a lone read tagged `X`/`RMW`, keeping its annotation;
//! - fences (`Kind::Fence`) are tagged with their annotation (`MB`, `rmb`, `rcu-lock`,
//!   `sync-rcu`, ...);
//! - lock operations are `Kind::Special` events at the lock's location, with no value:
//!   `spin_lock` is `LKR` then `LKW` (both also `LK`), `spin_unlock` is `UL`, a failed
//!   `spin_trylock` is `LF` (a successful one is a lock), `spin_is_locked` is `RL`
//!   (locked) or `RU` (unlocked); `synchronize_srcu` is a `Kind::Special` event tagged
//!   `sync-srcu`. Every event is also tagged `NA` (herd's "not a C11 atomic").

mod defparse;
mod expand;
mod interp;
pub mod ir;

#[cfg(test)]
mod tests;

pub use expand::unknown_macro;

use super::{SemError, Stop, ThreadInit, Tracer, Value};
use crate::litmus::ast::{CFunc, CThread};
use std::collections::BTreeMap;

const LKMM_DEF: &str = include_str!("../../cat/lkmm.def");

/// A parsed `.def` macro file.
#[derive(Clone, Debug, Default)]
pub struct Macros {
    defs: expand::Defs,
    /// herd's legacy variant `lkmmv1` (RMWs bracketed by `mb` fences, `once`/`noreturn`
    /// annotations); the default is `lkmmv2`, which the current LKMM needs.
    pub lkmmv1: bool,
}

impl Macros {
    /// Parse a herd `.def` file: `NAME(ARGS) EXPR` and `NAME(ARGS) { STMTS }` lines.
    /// A later definition of a name replaces an earlier one.
    pub fn parse(src: &str) -> Result<Macros, SemError> {
        let mut defs = expand::Defs::default();
        for d in defparse::parse_defs(src)? {
            match d {
                defparse::Def::Expr(name, formals, body) => {
                    defs.exprs.insert(name, (formals, body));
                }
                defparse::Def::Stmt(name, formals, body) => {
                    defs.stmts.insert(name, (formals, body));
                }
            }
        }
        Ok(Macros {
            defs,
            lkmmv1: false,
        })
    }

    /// Our own mapping of the Linux-kernel primitives (`cat/lkmm.def`): herd's
    /// `linux-kernel.def` and our extensions; each macro is parsed when a test first uses it.
    pub fn lkmm() -> Macros {
        match defparse::LazyDefs::index(LKMM_DEF) {
            Some(lazy) => Macros {
                defs: expand::Defs {
                    lazy: Some(std::sync::Arc::new(lazy)),
                    ..Default::default()
                },
                lkmmv1: false,
            },
            None => Macros::parse(LKMM_DEF).expect("cat/lkmm.def parses"),
        }
    }

    /// These macros, and for the names they lack, `cat/lkmm.def`'s: a kernel file such as
    /// the kernel's own `linux-kernel.def` then also knows the primitives it lacks
    /// (`atomic_long_*`, `try_cmpxchg*`, `smp_cond_load_*`, ...), whose bodies use only
    /// herd's primitives and annotations, so its model judges them too.
    pub fn with_extensions(mut self) -> Macros {
        if self.defs.lazy.is_none() {
            self.defs.lazy = defparse::LazyDefs::index(LKMM_DEF).map(std::sync::Arc::new);
        }
        self
    }

    /// Is `name` defined, as an expression or a statement macro?
    pub fn defines(&self, name: &str) -> bool {
        self.defs.defines(name)
    }
}

/// A thread's body lowered and with its macros expanded: the same in every run of the
/// thread, so it is made once (a thread is run again for every choice of the values it reads).
#[derive(Debug)]
pub struct Code(ir::St);

impl Code {
    /// The thread's code in the core language, macros expanded (for back ends such as a
    /// compiler to assembly).
    pub fn ir(&self) -> &ir::St {
        &self.0
    }
}

/// The code every run of `thread` executes.
pub fn prepare(thread: &CThread, functions: &[CFunc], macros: &Macros) -> Result<Code, Stop> {
    let lower_err = |(span, msg): ir::LowerError| Stop::error(Some(span), msg);
    let lowered = ir::lower_body(&thread.body).map_err(lower_err)?;
    let defs = functions
        .iter()
        .map(|f| Ok((f.name.clone(), ir::lower_function(f).map_err(lower_err)?)))
        .collect::<Result<_, Stop>>()?;
    let funcs = expand::Funcs::new(&defs);
    let code = macros
        .defs
        .expand_thread(&lowered, &funcs)
        .map_err(Stop::Error)?;
    Ok(Code(code))
}

/// Run one thread; returns the final values of its locals (parameters included).
///
/// Parameters are bound to the addresses of the globals they name, then the init
/// block's `proc:reg = value` entries apply. Loops run at most `tracer.unroll` times:
/// a run that would go further is `Stop::Cut`.
pub fn run(
    thread: &CThread,
    code: &Code,
    init: &ThreadInit,
    macros: &Macros,
    t: &mut Tracer,
) -> Result<BTreeMap<String, Value>, Stop> {
    let mut regs = BTreeMap::new();
    for p in &thread.params {
        let loc = init.symbols.get(&p.name).ok_or_else(|| {
            Stop::error(Some(thread.span), format!("unknown location `{}`", p.name))
        })?;
        regs.insert(p.name.clone(), Value::Addr(loc));
    }
    regs.extend(init.regs.iter().map(|(k, v)| (k.clone(), *v)));
    let mut it = interp::Interp::new(t, init.proc, macros.lkmmv1, regs);
    // A `return` ends the thread.
    it.stmt(&code.0)?;
    Ok(it.finish())
}
