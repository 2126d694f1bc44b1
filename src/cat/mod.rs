//! Stage 4: herd's cat language: parse model files and evaluate them on a candidate.
//!
//! The engine hands each candidate over as [`Primitives`] (herd's predefined sets and
//! relations); the model reports one [`Verdict`] per branch of its `with ... from`
//! choices (one branch when it has none).

use crate::rel::{Rel, Set};
use crate::sem::{Kind, Symbols, Value};
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;

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
    pub sets: HashMap<String, Set>,
    /// `po`, `addr`, `data`, `ctrl`, `rmw`, `loc`, `int`, `ext`, `id`, `rf`,
    /// `iico_data`, `iico_ctrl`, `same-instance`, ...
    pub rels: HashMap<String, Rel>,
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
}

impl fmt::Display for CatError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
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
}

/// A loaded model, ready to run on candidates.
pub struct Model {
    pub name: String,
}

impl Model {
    pub fn load(opts: &ModelOptions) -> Result<Model, CatError> {
        Err(CatError { file: opts.cat.clone(), line: 0, col: 0, msg: "cat interpreter not written yet".into() })
    }

    /// Evaluate the model on one candidate; `report` gets each branch's verdict and
    /// returns whether to keep exploring.
    pub fn run(&self, _p: &Primitives, _report: &mut dyn FnMut(Verdict) -> bool) -> Result<(), CatError> {
        Ok(())
    }
}

/// Read a herd7 `.cfg` file: the model options and the macro file it names.
/// (Placeholder until the interpreter's config module lands.)
pub fn load_cfg(path: &std::path::Path) -> Result<(ModelOptions, Option<String>), CatError> {
    Err(CatError { file: path.display().to_string(), line: 0, col: 0, msg: "cfg files not supported yet".into() })
}
