//! A batch: every test under every chosen model, one [`Record`] per (file, model), in the
//! order of the input. What `check` and every report share; a report never judges, and
//! the judge never knows which report will read it.

use crate::budget::{Budget, Exhausted, Explored};
use crate::litmus::ast::Test;
use crate::model::{self, Loaded, Request};
use crate::outcome::{self, Judgement, Options};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// Which models judge the tests, as the user named them.
pub enum Choice {
    /// The test's architecture picks a shipped model, as herd7 does.
    ByArch,
    /// These models: one column each.
    Columns(Vec<Column>),
}

/// One model of [`Choice::Columns`].
pub enum Column {
    /// A shipped model by canonical name, loaded with the batch's request.
    Shipped(&'static str),
    /// A model from files (`-conf`, `-model`, ...), loaded.
    Files(Box<Loaded>),
}

impl Choice {
    /// These shipped models, by canonical name.
    pub fn named(names: Vec<&'static str>) -> Choice {
        Choice::Columns(names.into_iter().map(Column::Shipped).collect())
    }
    /// One model from files.
    pub fn files(m: Loaded) -> Choice {
        Choice::Columns(vec![Column::Files(Box::new(m))])
    }
}

/// Which columns judge a test (file, test, column); every one when there is no filter.
pub type Select = dyn Fn(&Path, &Test, usize) -> bool + Sync;

/// The models of a batch, each loaded once, when first needed.
pub struct Models {
    choice: Choice,
    request: Request,
    shipped: BTreeMap<&'static str, OnceLock<Result<Loaded, String>>>,
    select: Option<Box<Select>>,
}

impl Models {
    /// Loads what `choice` names, with `request`'s variants and include folders. Shipped
    /// columns are loaded now (an error ends the batch before it starts); `ByArch` loads
    /// each shipped model when a test first needs it.
    pub fn load(choice: Choice, request: &Request) -> Result<Models, String> {
        let shipped = model::all_names()
            .into_iter()
            .map(|n| (n, OnceLock::new()))
            .collect();
        let models = Models {
            choice,
            request: request.clone(),
            shipped,
            select: None,
        };
        if let Choice::Columns(cs) = &models.choice {
            for c in cs {
                if let Column::Shipped(n) = c {
                    models.shipped(n)?;
                }
            }
        }
        Ok(models)
    }

    /// Judges each test under the columns `select` picks only (a snapshot's models for
    /// its tests); a column left out gives no record.
    pub fn select(mut self, select: Box<Select>) -> Models {
        self.select = Some(select);
        self
    }

    fn shipped(&self, name: &'static str) -> Result<&Loaded, String> {
        self.shipped[name]
            .get_or_init(|| {
                model::load_shipped(name, &self.request)
                    .map_err(|e| format!("error: model {name}: {e}"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The columns of a table: one per model named, else one.
    pub fn columns(&self) -> Vec<String> {
        match &self.choice {
            Choice::Columns(cs) => cs
                .iter()
                .map(|c| match c {
                    Column::Shipped(n) => n.to_string(),
                    Column::Files(m) => m.label.clone(),
                })
                .collect(),
            Choice::ByArch => vec!["default".into()],
        }
    }

    /// The model of `column` for `t`, or why it could not be loaded.
    pub fn get(&self, column: usize, t: &Test) -> Result<&Loaded, String> {
        match &self.choice {
            Choice::Columns(cs) => match &cs[column] {
                Column::Shipped(n) => self.shipped(n),
                Column::Files(m) => Ok(m.as_ref()),
            },
            Choice::ByArch => self.shipped(model::default_for(t.arch)),
        }
    }

    /// The columns that judge `t` (of `file`), each with its model.
    fn for_test(&self, file: &Path, t: &Test) -> Vec<(usize, Result<&Loaded, String>)> {
        (0..self.columns().len())
            .filter(|&k| self.select.as_ref().is_none_or(|s| s(file, t, k)))
            .map(|k| (k, self.get(k, t)))
            .collect()
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
    load: &(dyn Fn(&Path) -> Result<Test, String> + Sync),
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
                let ms = models.for_test(f, &t);
                let several = ms.len() > 1;
                ms.into_iter()
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
