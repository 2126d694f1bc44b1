//! A batch: every test under every chosen model, one [`Record`] per (file, model), in the
//! order of the input. What `check` and every report share; a report never judges, and
//! the judge never knows which report will read it.

use crate::budget::{Budget, Exhausted, Explored};
use crate::litmus::ast::{Arch, Test};
use crate::model::{self, Loaded, Request};
use crate::outcome::{self, Judgement, Options};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

/// Which models judge the tests, as the user named them.
pub enum Choice {
    /// The test's architecture picks a shipped model, as herd7 does.
    ByArch,
    /// These shipped models, by canonical name: one column each.
    Named(Vec<&'static str>),
    /// One model from files (`-conf`, `-model`, ...), loaded.
    Files(Box<Loaded>),
    /// The file herd7 picks for the test's architecture (`ppc.cat`, ...), looked up on the
    /// request's search path as herd7 looks it up; our model stands in when none is there.
    Standard,
}

/// The models of a batch, each loaded once, when first needed.
pub struct Models {
    choice: Choice,
    request: Request,
    shipped: BTreeMap<&'static str, OnceLock<Result<Loaded, String>>>,
    /// By position in [`Arch::ALL`].
    standard: [OnceLock<Result<Loaded, String>>; Arch::ALL.len()],
}

impl Models {
    /// Loads what `choice` names, with `request`'s variants and include folders. Named
    /// models are loaded now (an error ends the batch before it starts); `ByArch` loads
    /// each shipped model when a test first needs it.
    pub fn load(choice: Choice, request: &Request) -> Result<Models, String> {
        let shipped = model::all_names()
            .into_iter()
            .map(|n| (n, OnceLock::new()))
            .collect();
        let standard = Default::default();
        let models = Models {
            choice,
            request: request.clone(),
            shipped,
            standard,
        };
        if let Choice::Named(names) = &models.choice {
            for n in names {
                models.shipped(n).map_err(|e| format!("error: {e}"))?;
            }
        }
        Ok(models)
    }

    fn shipped(&self, name: &'static str) -> Result<&Loaded, String> {
        self.shipped[name]
            .get_or_init(|| {
                model::load_shipped(name, &self.request).map_err(|e| format!("model {name}: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn standard(&self, arch: Arch) -> Result<&Loaded, String> {
        let k = Arch::ALL.iter().position(|&a| a == arch).unwrap_or(0);
        self.standard[k]
            .get_or_init(|| {
                match model::load_files(&model::standard_request(arch, &self.request)) {
                    Ok(Some(m)) => Ok(m),
                    Ok(None) => Err(format!("no standard model for {}", arch.name())),
                    Err(e) => Err(e.to_string()),
                }
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The model a test of `arch` gets when the choice is [`Choice::Standard`] (loaded now
    /// if it was not yet), to say which files it was made from.
    pub fn standard_for(&self, arch: Arch) -> Result<&Loaded, String> {
        self.standard(arch)
    }

    /// Every model loaded so far (a lazily loaded one once a test needed it).
    pub fn loaded(&self) -> Vec<&Loaded> {
        let lazy = self
            .shipped
            .values()
            .chain(self.standard.iter())
            .filter_map(|c| c.get().and_then(|r| r.as_ref().ok()));
        match &self.choice {
            Choice::Files(m) => std::iter::once(m.as_ref()).chain(lazy).collect(),
            _ => lazy.collect(),
        }
    }

    pub fn choice(&self) -> &Choice {
        &self.choice
    }

    /// The model that judges `t` when there is one column (not [`Choice::Named`]).
    pub fn model_for(&self, t: &Test) -> Result<&Loaded, String> {
        self.for_test(t).into_iter().next().expect("one column")
    }

    /// The columns of a table: one per model named, else one.
    pub fn columns(&self) -> Vec<String> {
        match &self.choice {
            Choice::Named(n) => n.iter().map(|s| s.to_string()).collect(),
            Choice::ByArch | Choice::Standard => vec!["default".into()],
            Choice::Files(m) => vec![m.label.clone()],
        }
    }

    /// The model of each column for `t`, or why it could not be loaded.
    fn for_test(&self, t: &Test) -> Vec<Result<&Loaded, String>> {
        match &self.choice {
            Choice::Named(n) => n.iter().map(|k| self.shipped(k)).collect(),
            Choice::ByArch => vec![self.shipped(model::default_for(t.arch))],
            Choice::Standard => vec![self.standard(t.arch)],
            Choice::Files(m) => vec![Ok(m.as_ref())],
        }
    }
}

/// One test file under one model.
pub struct Record {
    pub file: PathBuf,
    /// The parsed test; `None` when the file could not be read or parsed.
    pub test: Option<std::sync::Arc<Test>>,
    /// Column of the model (see [`Models::columns`]).
    pub column: usize,
    /// The model's label (`lkmm`, `power`, a cat file's name); empty when the test could
    /// not be parsed.
    pub model: String,
    pub status: Status,
}

pub enum Status {
    Judged(Box<Judgement>),
    /// The test ran out of its budget: no answer, only how far it got.
    Undetermined(Exhausted, Explored),
    /// The file, the model or the engine failed; the message is ready to print.
    Error(String),
    /// In a table across models, a model that does not speak the test's language.
    NotApplicable,
}

/// How each test of a batch is judged.
#[derive(Clone)]
pub struct Settings {
    pub options: Options,
    /// Per test.
    pub timeout: Option<Duration>,
    /// Bytes resident, for the whole process.
    pub max_memory: Option<u64>,
}

/// Parses every file (`load` gives a test or a printable error) and judges each test under
/// `models`, on the worker pool when `parallel`; `done` is called once per file judged.
pub fn run(
    files: &[PathBuf],
    load: &(dyn Fn(&std::path::Path) -> Result<Test, String> + Sync),
    models: &Models,
    settings: &Settings,
    parallel: bool,
    done: &(dyn Fn() + Sync),
) -> Vec<Record> {
    let columns = models.columns().len();
    let per_file = |f: &PathBuf| -> Vec<Record> {
        let records = match load(f) {
            Err(e) => (0..columns)
                .map(|column| Record {
                    file: f.clone(),
                    test: None,
                    column,
                    model: String::new(),
                    status: Status::Error(e.clone()),
                })
                .collect(),
            Ok(t) => {
                let t = std::sync::Arc::new(t);
                let ms = models.for_test(&t);
                let several = ms.len() > 1;
                ms.into_iter()
                    .enumerate()
                    .map(|(column, m)| {
                        let (model, status) = match m {
                            Err(e) => (String::new(), Status::Error(e)),
                            Ok(m) => (
                                m.label.clone(),
                                match &m.arches {
                                    Some(a) if several && !a.contains(&t.arch) => {
                                        Status::NotApplicable
                                    }
                                    _ => judge_one(&t, m, settings),
                                },
                            ),
                        };
                        Record {
                            file: f.clone(),
                            test: Some(t.clone()),
                            column,
                            model,
                            status,
                        }
                    })
                    .collect()
            }
        };
        done();
        records
    };
    let nested: Vec<Vec<Record>> = if parallel {
        files.par_iter().map(per_file).collect()
    } else {
        files.iter().map(per_file).collect()
    };
    nested.into_iter().flatten().collect()
}

fn judge_one(t: &Test, m: &Loaded, s: &Settings) -> Status {
    if let Err(e) = m.covers(t) {
        return Status::Error(e);
    }
    let mut o = s.options.clone();
    o.budget = Budget::new(s.timeout, s.max_memory);
    match outcome::judge(t, &m.model, m.macros.as_ref(), &o) {
        Ok(mut j) => {
            j.model = m.label.clone();
            Status::Judged(Box::new(j))
        }
        Err(e) => match e.exhausted {
            Some(x) => Status::Undetermined(x, e.explored),
            None => Status::Error(e.to_string()),
        },
    }
}
