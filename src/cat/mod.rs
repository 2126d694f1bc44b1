//! Stage 4: herd's cat language: parse model files and evaluate them on a candidate.
//!
//! The engine hands each candidate over as [`Primitives`] (herd's predefined sets and
//! relations); the model reports one [`Verdict`] per branch of its `with ... from`
//! choices (one branch when it has none).
//!
//! Three layers, each depending only on those above it:
//! - the language: `ast`, `lex`, `parse`, `config` (herd's `.cfg`), `library` (the shipped
//!   files), `value` (what expressions evaluate to), `ops` (what the operators mean),
//!   `builtins` (herd's primitives), and the loaded [`Model`] here;
//! - [`reference`]: herd's semantics read directly, on one candidate — what a model
//!   *means*;
//! - the fast path, [`plan`]: the model compiled once per shape of thread runs and run
//!   natively for each candidate, from above for subtrees and from below for partial
//!   choices of `rf` (with `prune` and `native` for coherence orders).
//!
//! [`Checker`] is where the engine meets them: it keeps a plan per shape and falls back on
//! the reference evaluator where a model does not compile.

pub mod assume;
mod ast;
mod builtins;
mod checker;
pub mod config;
mod lex;
pub mod library;
mod native;
mod ops;
mod parse;
pub mod plan;
mod prune;
pub mod reference;
mod tally;
#[cfg(test)]
mod tests;
mod value;

pub use crate::tuning::Tuning;
pub use checker::{Checker, Stats};
pub use config::{load_cfg, read_cfg};
pub use plan::upper::Bound;

use crate::budget::{Budget, Exhausted};
use crate::rel::{Rel, Set};
use crate::sem::{Kind, Symbols, Value};
use ast::{Expr, Ins, Pat, Program, SetClause, Sym};
use parse::Names;
use std::collections::HashMap;
type FxMap<K, V> = rustc_hash::FxHashMap<K, V>;
use std::fmt;
use std::path::{Path, PathBuf};

/// What the model sees of one event.
#[derive(Clone, Debug)]
pub struct EventInfo {
    /// Thread, or `None` for an initial write.
    pub proc: Option<u32>,
    pub kind: Kind,
    pub loc: Option<Value>,
    pub val: Option<Value>,
    pub tags: Vec<String>,
}

/// herd's predefined names for one candidate.
pub struct Primitives<'a> {
    pub n: usize,
    pub events: &'a [EventInfo],
    pub symbols: &'a Symbols,
    /// `_` (all events), `R`, `W`, `M`, `F`, `B`, `IW`, `FW`, and one set per tag.
    pub sets: Named<'a, Set>,
    /// `po`, `addr`, `data`, `ctrl`, `rmw`, `loc`, `int`, `ext`, `id`, `rf`,
    /// `iico_data`, `iico_ctrl`, `same-instance`, ...
    pub rels: Named<'a, Rel>,
}

/// A map from names to values in two layers: a base shared by many candidates (everything
/// that does not depend on rf or the final writes) and the few values of this candidate.
pub struct Named<'a, T> {
    base: Option<&'a NameMap<T>>,
    own: Vec<(String, T)>,
}

impl<T: Clone> Clone for Named<'_, T> {
    fn clone(&self) -> Self {
        Named {
            base: self.base,
            own: self.own.clone(),
        }
    }
}

/// The shared layer of [`Named`].
pub type NameMap<T> = HashMap<String, T, rustc_hash::FxBuildHasher>;

impl<'a, T> Named<'a, T> {
    /// `own` on top of `base`.
    pub fn layered(base: &'a NameMap<T>, own: Vec<(String, T)>) -> Named<'a, T> {
        Named {
            base: Some(base),
            own,
        }
    }
    pub fn get(&self, name: &str) -> Option<&T> {
        self.own
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
            .or_else(|| self.base.and_then(|b| b.get(name)))
    }
    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
    /// Whether `name` comes from the shared layer (the same for every candidate on it).
    pub fn shared(&self, name: &str) -> bool {
        !self.own.iter().any(|(k, _)| k == name) && self.base.is_some_and(|b| b.contains_key(name))
    }
    /// The same names, `name` bound to `v`.
    pub fn with(&self, name: &str, v: T) -> Named<'a, T>
    where
        T: Clone,
    {
        let mut own: Vec<(String, T)> = self
            .own
            .iter()
            .filter(|(k, _)| k != name)
            .cloned()
            .collect();
        own.push((name.to_string(), v));
        Named {
            base: self.base,
            own,
        }
    }
    /// Every name, this candidate's first.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.own.iter().map(|(k, _)| k.as_str()).chain(
            self.base
                .into_iter()
                .flat_map(|b| b.keys().map(String::as_str)),
        )
    }
}

impl<T> FromIterator<(String, T)> for Named<'_, T> {
    fn from_iter<I: IntoIterator<Item = (String, T)>>(it: I) -> Self {
        Named {
            base: None,
            own: it.into_iter().collect(),
        }
    }
}

/// Which kind of check failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    Acyclic,
    Irreflexive,
    Empty,
}

/// Why a branch was rejected.
#[derive(Clone, Debug)]
pub struct Failure {
    pub kind: CheckKind,
    /// The check's negation flag (`~acyclic` ...).
    pub negated: bool,
    /// `as NAME`, or the check's text when unnamed.
    pub name: String,
    /// For a failed acyclicity check: a cycle, as events.
    pub cycle: Option<Vec<usize>>,
    /// For a failed `empty` check: the first pair of its relation (an event of a set as
    /// `(e, e)`); for a failed `irreflexive` check: the reflexive event, as `(e, e)`.
    pub pair: Option<(usize, usize)>,
}

impl Failure {
    /// Why a run fails check `t`, broken by `broken`: a cycle of its relation
    /// (`acyclic`), the event related to itself (`irreflexive`), or the first pair `[a, b]`
    /// of its relation (`empty`; an event `e` of a set as `[e, e]`). A negated check is
    /// broken by nothing in particular.
    pub fn of(t: &ast::Test, broken: Option<Vec<usize>>) -> Failure {
        let kind = match t.kind {
            ast::TestKind::Acyclic => CheckKind::Acyclic,
            ast::TestKind::Irreflexive => CheckKind::Irreflexive,
            ast::TestKind::Empty => CheckKind::Empty,
        };
        let broken = if t.negated { None } else { broken };
        let pair = match kind {
            CheckKind::Acyclic => None,
            _ => broken.as_deref().map(|v| (v[0], v[v.len() - 1])),
        };
        Failure {
            kind,
            negated: t.negated,
            name: t.name.clone().unwrap_or_else(|| t.text.clone()),
            cycle: if kind == CheckKind::Empty {
                None
            } else {
                broken
            },
            pair,
        }
    }
}

/// The result of one branch of the model.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// `None`: every check passed.
    pub failed: Option<Failure>,
    /// Flags raised (`flag ~empty ... as NAME`).
    pub flags: Vec<String>,
    /// The model's final `co` and `rf`, when bound.
    pub co: Option<Rel>,
    pub rf: Option<Rel>,
}

/// An error in a cat file or in running it.
#[derive(Clone, Debug)]
pub struct CatError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub msg: String,
    /// Set when the run had to stop rather than the model being wrong: cat's `try` never
    /// catches such an error.
    pub fatal: Option<Fatal>,
}

/// Why a run stopped that no `try` may go on from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fatal {
    /// The test's budget of time or memory ran out.
    Exhausted(Exhausted),
    /// Function or procedure calls nested deeper than [`MAX_CALL_DEPTH`] (an unbounded
    /// recursion would otherwise overflow the stack or fill the memory).
    TooDeep,
}

/// How deeply function and procedure calls may nest. herd's own library recurses once per
/// element of a set (`map`, `one-of-each`): a few hundred levels at most.
pub const MAX_CALL_DEPTH: u32 = 10_000;

impl fmt::Display for CatError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        if let Some(Fatal::Exhausted(x)) = &self.fatal {
            return write!(f, "{x}");
        }
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.msg)
    }
}

/// Where a model comes from.
#[derive(Clone, Debug, Default)]
pub struct ModelOptions {
    /// The cat file: a path, or the name of a shipped model (`lkmm`, `x86tso`, ...).
    pub cat: String,
    pub bell: Option<String>,
    pub variants: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    /// Checks that pass without being evaluated (herd's `-skipchecks`, `-through`).
    pub skip: SkipChecks,
    /// The `.cfg` line that named the cat file, if one did (to report it missing there).
    pub cat_named_at: Option<Place>,
}

/// A place in a file: its name, 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

/// Which of a model's checks (`acyclic`/`irreflexive`/`empty` that reject executions; not
/// flags or `undefined_unless`) are dropped when it is loaded, as herd's `-skipchecks
/// NAME,...` (checks named `as NAME`) and `-through all|invalid` (every check) drop them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkipChecks {
    pub names: Vec<String>,
    pub all: bool,
}

impl SkipChecks {
    fn skips(&self, t: &ast::Test, ty: ast::TestType) -> bool {
        ty == ast::TestType::Check
            && (self.all || t.name.as_ref().is_some_and(|n| self.names.contains(n)))
    }

    /// Drops the skipped checks of `body` (in place: a dropped check becomes a no-op).
    fn apply(&self, body: &mut [Ins]) {
        for i in body {
            match i {
                Ins::Test(t, ty) if self.skips(t, *ty) => *i = Ins::Events(t.pos),
                Ins::IfVariant(_, _, a, b) => {
                    self.apply(a);
                    self.apply(b);
                }
                Ins::Procedure(_, _, _, b, _) | Ins::Forall(_, _, _, b) => self.apply(b),
                Ins::Match(_, _, cls, d) => {
                    for (_, b) in cls {
                        self.apply(b);
                    }
                    if let Some(b) = d {
                        self.apply(b);
                    }
                }
                _ => {}
            }
        }
    }
}

/// A loaded model, ready to run on candidates: every file it uses is parsed once, here.
pub struct Model {
    pub name: String,
    names: Names,
    files: Vec<LoadedFile>,
    /// Files run in order: stdlib, the bell file if any, the model.
    order: Vec<usize>,
    /// Per symbol: whether the model ever binds it (else it is a primitive).
    bound: Vec<bool>,
    /// Tag → its entry in `tags` (the last declaration wins, as in herd).
    tag_types: FxMap<String, u32>,
    /// Every tag of every `enum`, in declaration order.
    tags: Vec<value::TagName>,
    /// Each `enum` type, with where its tags are in `tags`.
    enums: Vec<(String, std::ops::Range<usize>)>,
    /// Names like `Rcu-lock` standing for the events bearing bell annotation `rcu-lock`.
    bell_sets: FxMap<Sym, String>,
    variants: Vec<String>,
    /// Library functions run natively, by the position of their `fun`.
    natives: Vec<(ast::Pos, native::Native)>,
    /// See [`prune::rejects_po_rf_cycles`].
    po_rf_guard: bool,
    /// What the growing exploration may assume (see [`assume`]): SC per location and
    /// atomicity, checked in every branch.
    assumes: (bool, bool),
    /// What orders every branch keeps acyclic (see [`assume::orders`]).
    orders: assume::Orders,
}

struct LoadedFile {
    path: String,
    prog: Program,
}

/// Includes nested deeper than this are taken for a cycle.
const MAX_INCLUDE_DEPTH: usize = 32;

/// The error a run stops with for `f`.
pub(crate) fn fatal_error(f: Fatal) -> CatError {
    CatError {
        fatal: Some(f),
        ..load_error("", "")
    }
}

fn load_error(file: &str, msg: impl Into<String>) -> CatError {
    CatError {
        file: file.to_string(),
        line: 0,
        col: 0,
        msg: msg.into(),
        fatal: None,
    }
}

impl Model {
    pub fn load(opts: &ModelOptions) -> Result<Model, CatError> {
        let dirs = &opts.include_dirs;
        let main = config::find(&opts.cat, None, dirs)
            .or_else(|| config::find(&format!("{}.cat", opts.cat), None, dirs))
            .ok_or_else(|| load_error(&opts.cat, "cannot find model file"))?;
        Self::load_main(main, opts)
    }

    /// Every file the model was loaded from (stdlib, bell, the model, its includes), as
    /// found: a path, or `<builtin>/NAME` for a shipped file.
    pub fn sources(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|f| f.path.as_str())
    }

    /// Whether the model computes dependencies itself (herd's `catdep`, as aarch64.cat):
    /// the engine must then provide register events and their dataflow.
    pub fn catdep(&self) -> bool {
        self.files.iter().any(|f| f.prog.catdep)
    }

    /// A model given as text (`opts.cat` names it in messages); its `include`s are looked
    /// up in `opts.include_dirs`, then among the shipped files.
    pub fn from_source(text: &str, opts: &ModelOptions) -> Result<Model, CatError> {
        Self::load_main(
            config::Source::Text(opts.cat.clone(), text.to_string()),
            opts,
        )
    }

    fn load_main(main: config::Source, opts: &ModelOptions) -> Result<Model, CatError> {
        let mut m = Model {
            name: opts.cat.clone(),
            names: Names::default(),
            files: Vec::new(),
            order: Vec::new(),
            bound: Vec::new(),
            tag_types: FxMap::default(),
            tags: Vec::new(),
            enums: Vec::new(),
            bell_sets: FxMap::default(),
            variants: opts
                .variants
                .iter()
                .map(|v| v.to_ascii_lowercase())
                .collect(),
            natives: Vec::new(),
            po_rf_guard: false,
            assumes: (false, false),
            orders: assume::Orders::default(),
        };
        let dirs = &opts.include_dirs;
        let main_dir = main.dir();
        // herd runs stdlib.cat first, from the model's search path if it has one.
        let stdlib = config::find("stdlib.cat", main_dir.as_deref(), dirs)
            .ok_or_else(|| load_error("stdlib.cat", "cannot find stdlib.cat"))?;
        let s = m.load_source(stdlib, dirs, 0)?;
        m.order.push(s);
        if let Some(bell) = &opts.bell {
            let src = config::find(bell, main_dir.as_deref(), dirs)
                .ok_or_else(|| load_error(bell, "cannot find bell file"))?;
            let b = m.load_source(src, dirs, 0)?;
            m.order.push(b);
        }
        let c = m.load_source(main, dirs, 0)?;
        m.order.push(c);
        if let Some(t) = &m.files[c].prog.title {
            m.name = t.clone();
        }
        if opts.skip != SkipChecks::default() {
            for f in &mut m.files {
                opts.skip.apply(&mut f.prog.body);
            }
        }
        m.analyse();
        Ok(m)
    }

    fn load_source(
        &mut self,
        src: config::Source,
        dirs: &[PathBuf],
        depth: usize,
    ) -> Result<usize, CatError> {
        let path = src.display();
        if depth > MAX_INCLUDE_DEPTH {
            return Err(load_error(&path, "includes nest too deeply (cycle?)"));
        }
        let idx = self.files.len() as u32;
        self.files.push(LoadedFile {
            path: path.clone(),
            prog: Program {
                title: None,
                catdep: false,
                body: Vec::new(),
            },
        });
        let stored = match &src {
            config::Source::Embedded(name, _) => library::parsed(name),
            _ => None,
        };
        let mut prog = match stored.and_then(|b| self.read_stored(b, idx)) {
            Some(prog) => prog,
            None => {
                let text = src.read().map_err(|e| load_error(&path, e))?;
                parse::parse(&text, idx, &mut self.names).map_err(|(pos, msg)| CatError {
                    file: path.clone(),
                    line: pos.line,
                    col: pos.col,
                    msg,
                    fatal: None,
                })?
            }
        };
        let dir = src.dir();
        self.resolve_includes(&mut prog.body, dir.as_deref(), dirs, depth)?;
        self.files[idx as usize].prog = prog;
        Ok(idx as usize)
    }

    /// A shipped file's tree as build.rs stored it, its symbols interned here and its
    /// positions in file `idx`.
    fn read_stored(&mut self, bytes: &[u8], idx: u32) -> Option<Program> {
        // The symbols are borrowed from the stored bytes: only new ones are copied.
        let (syms, tree): (Vec<&str>, &[u8]) = postcard::take_from_bytes(bytes).ok()?;
        self.names.reserve(syms.len());
        let syms = syms.iter().map(|s| self.names.intern(s)).collect();
        ast::relocated(syms, idx, || postcard::from_bytes(tree).ok())
    }

    /// Loads every included file; a file that cannot be found is an error only if the
    /// `include` runs.
    fn resolve_includes(
        &mut self,
        body: &mut [Ins],
        dir: Option<&Path>,
        dirs: &[PathBuf],
        depth: usize,
    ) -> Result<(), CatError> {
        for i in body {
            match i {
                Ins::Include { name, file, .. } => {
                    if let Some(src) = config::find(name, dir, dirs) {
                        *file = Some(self.load_source(src, dirs, depth + 1)?);
                    }
                }
                Ins::IfVariant(_, _, a, b) => {
                    self.resolve_includes(a, dir, dirs, depth)?;
                    self.resolve_includes(b, dir, dirs, depth)?;
                }
                Ins::Procedure(_, _, _, b, _) | Ins::Forall(_, _, _, b) => {
                    self.resolve_includes(b, dir, dirs, depth)?
                }
                Ins::Match(_, _, cls, d) => {
                    for (_, b) in cls {
                        self.resolve_includes(b, dir, dirs, depth)?;
                    }
                    if let Some(b) = d {
                        self.resolve_includes(b, dir, dirs, depth)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Whether some binding of the model names `x` (`let`, a parameter, `with`, ...):
    /// else `x` is always herd's primitive of that name, and an environment need not be
    /// searched for it (the model's definitions make it hundreds of bindings long).
    pub fn binds(&self, x: Sym) -> bool {
        self.bound.get(x.0 as usize).copied().unwrap_or(true)
    }

    /// What `env` binds `x` to, if anything: `None` at once for a name [`Model::binds`]
    /// says no binding introduces (the caller takes herd's primitive).
    pub fn slot<'e, 'v, S: value::Stage>(
        &self,
        env: &'e value::Env<'v, S>,
        x: Sym,
    ) -> Option<&'e value::Slot<'v, S>> {
        self.binds(x).then(|| env.lookup(x)).flatten()
    }

    /// Precomputes what runs need: bound names, tag types, bell set names.
    fn analyse(&mut self) {
        let mut bound = vec![false; self.names.len()];
        let mut enums = Vec::new();
        for f in &self.files {
            mark_ins(&f.prog.body, &mut bound, &mut enums);
        }
        let enums: Vec<(String, Vec<String>)> = enums
            .into_iter()
            .map(|(x, tags)| (self.names.name(x).to_string(), tags))
            .collect();
        for (ty, tags) in enums {
            let start = self.tags.len();
            for t in tags {
                self.tag_types.insert(t.clone(), self.tags.len() as u32);
                if let Some(x) = self.names.get(&builtins::tag_set_name(&t)) {
                    self.bell_sets.entry(x).or_insert_with(|| t.clone());
                }
                self.tags.push(value::TagName {
                    ty: ty.clone(),
                    name: t,
                });
            }
            self.enums.push((ty, start..self.tags.len()));
        }
        self.bound = bound;
        let names = &self.names;
        let name = |p: &Pat| match p {
            Pat::Var(Some(x)) => Some(names.name(*x).to_string()),
            _ => None,
        };
        self.natives = self
            .files
            .iter()
            .flat_map(|f| native::find(&f.path, &f.prog.body, name))
            .collect();
        self.po_rf_guard = prune::rejects_po_rf_cycles(self);
        self.assumes = (assume::coherence(self), assume::atomicity(self));
        self.orders = assume::orders(self);
    }

    /// Whether the model rejects every candidate in which a read takes its value from a
    /// write after it in program order (see [`prune::rejects_po_rf_cycles`]).
    pub fn rejects_po_rf_cycles(&self) -> bool {
        self.po_rf_guard
    }

    /// Whether every branch checks SC per location over a coherence order, and the
    /// atomicity of read-modify-writes (see [`assume`]).
    pub fn assumes(&self) -> (bool, bool) {
        self.assumes
    }

    /// What orders every branch keeps acyclic (see [`assume::orders`]).
    pub fn orders(&self) -> assume::Orders {
        self.orders
    }

    /// Whether a variant condition holds for this model's variants.
    fn variant_holds(&self, c: &ast::VariantCond) -> bool {
        match c {
            ast::VariantCond::Variant(v) => self.has_variant(v),
            ast::VariantCond::Not(a) => !self.variant_holds(a),
            ast::VariantCond::And(a, b) => self.variant_holds(a) && self.variant_holds(b),
            ast::VariantCond::Or(a, b) => self.variant_holds(a) || self.variant_holds(b),
        }
    }

    /// Whether `f` is a library function with a native implementation.
    fn native(&self, f: &ast::FunDef) -> Option<native::Native> {
        self.natives
            .iter()
            .find(|(p, _)| *p == f.pos)
            .map(|&(_, n)| n)
    }

    fn file_name(&self, i: u32) -> &str {
        self.files.get(i as usize).map_or("?", |f| f.path.as_str())
    }

    fn has_variant(&self, v: &str) -> bool {
        let v = v.to_ascii_lowercase();
        self.variants.contains(&v)
    }

    /// The value an `enum` declaration binds: the set of its tags.
    fn enum_value<S: value::Stage>(&self, name: Sym) -> value::Value<'_, S> {
        let n = self.names.name(name);
        let tags = self
            .enums
            .iter()
            .rev()
            .find(|(t, _)| t == n)
            .map(|(_, tags)| {
                self.tags[tags.clone()]
                    .iter()
                    .map(value::Value::Tag)
                    .collect()
            })
            .unwrap_or_default();
        value::valset(tags)
    }

    /// Evaluate the model on one candidate; `report` gets each branch's verdict and
    /// returns whether to keep exploring.
    pub fn run(
        &self,
        p: &Primitives,
        report: &mut dyn FnMut(Verdict) -> bool,
    ) -> Result<(), CatError> {
        Checker::new(self, &Tuning::default()).verdicts(p, &[], true, &Budget::unlimited(), report)
    }
}

fn mark(x: &Option<Sym>, bound: &mut [bool]) {
    if let Some(x) = x {
        bound[x.0 as usize] = true;
    }
}

fn mark_pat(p: &Pat, bound: &mut [bool]) {
    for x in p.vars() {
        mark(&x, bound);
    }
}

fn mark_ins(body: &[Ins], bound: &mut [bool], enums: &mut Vec<(Sym, Vec<String>)>) {
    for i in body {
        match i {
            Ins::Let(_, bds) | Ins::Rec(_, bds, _) => {
                for b in bds {
                    mark_pat(&b.pat, bound);
                    mark_expr(&b.expr, bound);
                }
            }
            Ins::Match(_, e, cls, d) => {
                mark_expr(e, bound);
                for (_, b) in cls {
                    mark_ins(b, bound, enums);
                }
                if let Some(b) = d {
                    mark_ins(b, bound, enums);
                }
            }
            Ins::Test(t, _) => mark_expr(&t.expr, bound),
            Ins::Procedure(_, x, pat, b, _) => {
                mark(&Some(*x), bound);
                mark_pat(pat, bound);
                mark_ins(b, bound, enums);
            }
            Ins::Call(_, _, e, _) | Ins::Debug(_, e) => mark_expr(e, bound),
            Ins::Enum(_, x, tags) => {
                mark(&Some(*x), bound);
                enums.push((*x, tags.clone()));
            }
            Ins::Forall(_, x, e, b) => {
                mark(&Some(*x), bound);
                mark_expr(e, bound);
                mark_ins(b, bound, enums);
            }
            Ins::WithFrom(_, x, e) => {
                mark(&Some(*x), bound);
                mark_expr(e, bound);
            }
            Ins::IfVariant(_, _, a, b) => {
                mark_ins(a, bound, enums);
                mark_ins(b, bound, enums);
            }
            Ins::Show(_) | Ins::Include { .. } | Ins::Events(_) => {}
        }
    }
}

fn mark_expr(e: &Expr, bound: &mut [bool]) {
    match e {
        Expr::Bind(_, bds, _) | Expr::BindRec(_, bds, _) => {
            bds.iter().for_each(|b| mark_pat(&b.pat, bound));
        }
        Expr::Fun(f) => mark_pat(&f.pat, bound),
        Expr::MatchSet(_, _, _, cl) => match &**cl {
            SetClause::EltRem(x, xs, _) => [x, xs].into_iter().for_each(|x| mark(x, bound)),
            SetClause::PreEltPost(a1, x, a2, _) => {
                [a1, x, a2].into_iter().for_each(|x| mark(x, bound));
            }
        },
        _ => {}
    }
    e.for_each_child(&mut |c| mark_expr(c, bound));
}
