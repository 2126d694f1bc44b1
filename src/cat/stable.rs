//! Which top-level `let` bindings have the same value in every candidate whose thread runs
//! have the same shapes (the same events but for their values).
//!
//! The engine varies only `rf`, `FW` and event values between such candidates (and the
//! model itself varies the names bound by `with`). A binding whose right-hand side names
//! none of those, directly or through earlier bindings, is computed once per shape and
//! shared by every candidate and every `with` branch (see [`super::RunCache`]). Names are followed in program order,
//! as the runner binds them; anything the reading does not follow stops the caching of
//! everything after it.

use super::Model;
use super::ast::{Expr, Ins, Pat, Sym};
use super::parse::free_vars;
use rustc_hash::FxHashMap;

/// Primitives that differ between candidates sharing a cache: those of one combination of
/// runs differ in `rf` and `FW`, and runs of the same shape differ in the values they read
/// and write, which only `different-values` looks at.
pub const VARYING_PRIMITIVES: &[&str] = &["rf", "FW", "different-values"];

struct Walk<'a> {
    m: &'a Model,
    /// The primitives that vary.
    prims: &'a [&'a str],
    /// Per name bound so far: whether its value may vary.
    varying: FxHashMap<Sym, bool>,
    out: Stable,
    stopped: bool,
}

/// What the run cache may keep for runs of one shape.
#[derive(Default)]
pub struct Stable {
    /// The cache slot of each stable binding, by the binding's address.
    pub bindings: rustc_hash::FxHashMap<usize, u32>,
    /// Checks and flags whose outcome is the same, by the test's address.
    pub tests: rustc_hash::FxHashSet<usize>,
    /// `with x from e` whose choices are the same, by the address of `e`.
    pub withs: rustc_hash::FxHashSet<usize>,
    /// Right-hand sides of every form (and the functions they define) whose value is the
    /// same, by address: what [`super::eval::Ctx`] calls exact when it bounds a subtree of
    /// candidates (see `Ctx::is_exact`).
    pub exact: rustc_hash::FxHashSet<usize>,
}

/// Primitives that differ between the candidates of a subtree that [`super::Model::bound`]
/// judges at once: their runs have the same shapes and their final writes are the same.
pub const SUBTREE_VARYING: &[&str] = &["rf", "different-values"];

/// Primitives that differ between the candidates of one combination of runs whose reads
/// [`super::Model::doomed`] judges before they all have a source: `rf`, and the final
/// writes, chosen last.
pub const COMBO_VARYING: &[&str] = &["rf", "FW"];

/// What stays the same when only the primitives `prims` vary.
pub fn stable_parts(m: &Model, prims: &[&str]) -> Stable {
    let mut w = Walk {
        m,
        prims,
        varying: FxHashMap::default(),
        out: Stable::default(),
        stopped: false,
    };
    for &f in &m.order {
        w.walk(&m.files[f].prog.body);
    }
    w.out
}

impl Walk<'_> {
    fn name_varies(&self, x: Sym) -> bool {
        match self.varying.get(&x) {
            Some(&v) => v,
            None => self.prims.contains(&self.m.names.name(x)),
        }
    }

    fn varies(&self, e: &Expr, bound: &mut Vec<Sym>) -> bool {
        let mut any = false;
        free_vars(e, bound, &mut |x| any = any || self.name_varies(x));
        any
    }

    fn set(&mut self, p: &Pat, v: bool) {
        for x in p.vars().into_iter().flatten() {
            self.varying.insert(x, v);
        }
    }

    fn exact(&mut self, e: &Expr) {
        self.out.exact.insert(e as *const Expr as usize);
        if let Expr::Fun(f) = e {
            self.out.exact.insert(&**f as *const _ as usize);
        }
    }

    fn walk(&mut self, body: &[Ins]) {
        for i in body {
            if self.stopped {
                return;
            }
            match i {
                Ins::Let(_, bds) => {
                    let vs: Vec<bool> = bds
                        .iter()
                        .map(|b| self.varies(&b.expr, &mut Vec::new()))
                        .collect();
                    for (b, &v) in bds.iter().zip(&vs) {
                        if !v {
                            self.exact(&b.expr);
                        }
                        // Only bindings the runner makes lazily (see `Ctx::bind_all`).
                        let lazy =
                            !matches!(b.expr, Expr::Var(..) | Expr::Fun(_) | Expr::EmptyRel(_));
                        if !v && lazy && matches!(b.pat, Pat::Var(Some(_))) {
                            let k = self.out.bindings.len() as u32;
                            self.out.bindings.insert(b as *const _ as usize, k);
                        }
                    }
                    for (b, v) in bds.iter().zip(vs) {
                        self.set(&b.pat, v);
                    }
                }
                Ins::Rec(_, bds, _) => {
                    let mut group: Vec<Sym> =
                        bds.iter().flat_map(|b| b.pat.vars()).flatten().collect();
                    let v = bds.iter().any(|b| self.varies(&b.expr, &mut group));
                    bds.iter().for_each(|b| self.set(&b.pat, v));
                    if !v {
                        bds.iter().for_each(|b| self.exact(&b.expr));
                    }
                }
                Ins::WithFrom(_, x, e) => {
                    if !self.varies(e, &mut Vec::new()) {
                        self.out.withs.insert(e as *const Expr as usize);
                    }
                    self.varying.insert(*x, true);
                }
                Ins::Procedure(_, x, ..) => {
                    self.varying.insert(*x, true);
                }
                Ins::Test(t, _) => {
                    if !self.varies(&t.expr, &mut Vec::new()) {
                        self.out.tests.insert(t as *const _ as usize);
                    }
                }
                Ins::Enum(_, x, _) => {
                    self.varying.insert(*x, false);
                }
                Ins::Include { file: Some(f), .. } => self.walk(&self.m.files[*f].prog.body),
                Ins::IfVariant(_, c, yes, no) => {
                    let b = if self.m.variant_holds(c) { yes } else { no };
                    self.walk(b);
                }
                // Their bindings do not outlive them.
                Ins::Forall(..) | Ins::Call(..) => {}
                Ins::Show(_) | Ins::Events(_) | Ins::Debug(..) => {}
                Ins::Match(..) | Ins::Include { file: None, .. } => self.stopped = true,
            }
        }
    }
}
