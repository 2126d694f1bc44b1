//! A batch: every test under every chosen model, one [`Record`] per (file, model), in the
//! order of the input. What `check` and every report share; a report never judges, and
//! the judge never knows which report will read it.

use crate::budget::{Budget, Exhausted, Explored};
use crate::compile::mapping::Mapping;
use crate::judge::{self, Judgement, Options};
use crate::litmus::ast::{Arch, Test};
use crate::model::{self, Loaded, Request};
use crate::report::diag::Diagnostic;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Which models judge the tests, as the user named them.
pub enum Choice {
    /// The test's architecture picks a shipped model, as herd7 does.
    ByArch,
    /// These models: one column each.
    Columns(Vec<Column>),
    /// The file herd7 picks for the test's architecture (`ppc.cat`, ...), looked up on the
    /// request's search path as herd7 looks it up; our model stands in when none is there.
    Standard,
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
    /// By position in [`Arch::ALL`].
    standard: [OnceLock<Result<Loaded, String>>; Arch::ALL.len()],
    /// herd's files loaded again with the variants a test declares (`Variant=vmsa`), by
    /// architecture (for [`Choice::Standard`]) and those variants.
    declared: Mutex<BTreeMap<DeclaredKey, Result<Arc<Loaded>, String>>>,
    /// The kernel's mappings a C test goes through under a hardware column (see
    /// [`Models::compiling`]); none: such a column refuses C tests.
    mappings: Vec<Arc<Mapping>>,
}
/// A test's architecture (for [`Choice::Standard`]) and the variants it declares.
type DeclaredKey = (Option<&'static str>, Vec<String>);

/// The model that judges one test: one of the batch's, or one loaded for the variants the
/// test declares.
pub enum ModelRef<'a> {
    Batch(&'a Loaded),
    Declared(Arc<Loaded>),
}

impl std::ops::Deref for ModelRef<'_> {
    type Target = Loaded;
    fn deref(&self) -> &Loaded {
        match self {
            ModelRef::Batch(m) => m,
            ModelRef::Declared(m) => m,
        }
    }
}

/// The `-variant` tags a test declares in its `Variant=` line, which herd adds to the
/// command line's for that test (only the tags herd knows), and those its `CacheType=`
/// line sets.
fn declared_variants(t: &Test) -> Vec<String> {
    let mut v: Vec<String> = t
        .info
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("Variant"))
        .flat_map(|(_, v)| v.split([',', ' ']))
        .map(|w| w.trim().to_string())
        .filter(|w| !w.is_empty() && model::herd_variant(w))
        .collect();
    // `CacheType=DIC` (which implies IDC) or `IDC`: herd's variants `DIC` and `IDC`, which
    // only a test's header sets (lib/cacheType.mll, herd/parseTest.ml).
    for (_, ct) in t
        .info
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("CacheType"))
    {
        let has = |w: &str| ct.split_whitespace().any(|x| x.eq_ignore_ascii_case(w));
        if has("DIC") {
            v.extend(["DIC".to_string(), "IDC".to_string()]);
        } else if has("IDC") {
            v.push("IDC".to_string());
        }
    }
    v.sort();
    v.dedup();
    v
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
            standard: Default::default(),
            declared: Mutex::default(),
            mappings: Vec::new(),
        };
        if let Choice::Columns(cs) = &models.choice {
            for c in cs {
                if let Column::Shipped(n) = c {
                    models.shipped(n).map_err(|e| format!("error: {e}"))?;
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

    /// Judges a C test under a shipped hardware column as the kernel runs it there:
    /// compiled through each of `mappings` made for an architecture the column covers
    /// (in the order given: the kernel's default first), one record per mapping. Without
    /// mappings the column refuses C tests, as herd does.
    pub fn compiling(mut self, mappings: Vec<Mapping>) -> Models {
        self.mappings = mappings.into_iter().map(Arc::new).collect();
        self
    }

    /// The mappings `t` goes through under `m`: none unless `t` is C and `m` is a
    /// shipped model of other architectures (a user's cat file says nothing of which).
    fn mappings_for(&self, m: &Loaded, t: &Test) -> Vec<Arc<Mapping>> {
        match &m.arches {
            Some(arches) if t.arch == Arch::C && !arches.contains(&Arch::C) => self
                .mappings
                .iter()
                .filter(|map| arches.contains(&map.arch))
                .cloned()
                .collect(),
            _ => Vec::new(),
        }
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
        let files = match &self.choice {
            Choice::Columns(cs) => cs
                .iter()
                .filter_map(|c| match c {
                    Column::Files(m) => Some(m.as_ref()),
                    Column::Shipped(_) => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        files.into_iter().chain(lazy).collect()
    }

    pub fn choice(&self) -> &Choice {
        &self.choice
    }

    /// The model that judges `t` in the first column (the only one but in a table).
    pub fn model_for(&self, t: &Test) -> Result<ModelRef<'_>, String> {
        self.get(0, t)
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
            Choice::ByArch | Choice::Standard => vec!["default".into()],
        }
    }

    /// The model of `column` for `t`, or why it could not be loaded.
    pub fn get(&self, column: usize, t: &Test) -> Result<ModelRef<'_>, String> {
        match &self.choice {
            Choice::Columns(cs) => match &cs[column] {
                Column::Shipped(n) => self.shipped(n).map(ModelRef::Batch),
                Column::Files(m) => self.with_declared(t, Ok(m.as_ref()), None),
            },
            Choice::ByArch => self
                .shipped(model::default_for(t.arch))
                .map(ModelRef::Batch),
            Choice::Standard => self.with_declared(t, self.standard(t.arch), Some(t.arch)),
        }
    }

    /// herd's model files for `t`: `m`, or, when the test declares variants the command
    /// line did not give, the same files loaded with those too (once per set of variants).
    /// Our shipped models read a test's `Variant=` themselves.
    fn with_declared<'a>(
        &'a self,
        t: &Test,
        m: Result<&'a Loaded, String>,
        arch: Option<Arch>,
    ) -> Result<ModelRef<'a>, String> {
        let m = m?;
        let given: Vec<String> = self
            .request
            .variants
            .iter()
            .flat_map(|v| v.split(','))
            .map(|v| v.trim().to_ascii_lowercase())
            .collect();
        let extra: Vec<String> = declared_variants(t)
            .into_iter()
            .filter(|v| !given.contains(&v.to_ascii_lowercase()))
            .collect();
        if extra.is_empty() {
            return Ok(ModelRef::Batch(m));
        }
        let mut cache = self.declared.lock().unwrap_or_else(|e| e.into_inner());
        let loaded = cache
            .entry((arch.map(Arch::name), extra.clone()))
            .or_insert_with(|| {
                let mut r = match arch {
                    Some(a) => model::standard_request(a, &self.request),
                    None => self.request.clone(),
                };
                r.variants.extend(extra);
                match model::load_files(&r) {
                    Ok(Some(mut l)) => {
                        l.model_arch = m.model_arch.clone();
                        Ok(Arc::new(l))
                    }
                    Ok(None) => Err("no model file".into()),
                    Err(e) => Err(e.to_string()),
                }
            });
        loaded.clone().map(ModelRef::Declared)
    }

    /// The columns that judge `t` (of `file`), each with its model.
    fn for_test(&self, file: &Path, t: &Test) -> Vec<(usize, Result<ModelRef<'_>, String>)> {
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
    /// The mapping a C test was compiled through for a hardware model (`ppc-lwsync`).
    pub mapping: Option<String>,
    /// The compiled test that was judged (named `TEST@MAPPING`), when one was.
    pub compiled: Option<Arc<Test>>,
    pub status: Status,
}

impl Record {
    /// The test the judgement is of: the compiled one, else the test of the file.
    pub fn judged_test(&self) -> Option<&Test> {
        self.compiled.as_deref().or(self.test.as_deref())
    }
}

pub enum Status {
    Judged(Box<Judgement>),
    /// The test ran out of its budget: no answer, only how far it got.
    Undetermined(Exhausted, Explored),
    /// The file, the model or the engine failed: the message, at its place in the file
    /// when it has one (print it with [`Diagnostic::render_file`]).
    Error(Diagnostic),
    /// In a table across models, a model that does not speak the test's language.
    NotApplicable,
    /// A C test that the mapping cannot compile (a primitive with no instruction
    /// sequence, such as an RCU grace period): why.
    NotCompiled(String),
}

/// Which of `files` shard `k` of `n` (1-based) judges, by position: the files sorted by
/// path, every `n`th from the `k`th, so that the shards of a batch split it the same way
/// whatever order the files were given in.
pub fn shard(files: &[PathBuf], k: usize, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| files[a].cmp(&files[b]));
    let mut mine: Vec<usize> = order
        .into_iter()
        .enumerate()
        .filter(|(rank, _)| rank % n == k - 1)
        .map(|(_, i)| i)
        .collect();
    mine.sort();
    mine
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

/// The order a batch judges `files` in (records still come back in the files' order): a
/// fixed pseudo-random interleaving, by a hash of each path. Files in one folder tend to
/// cost alike (a folder of 8-thread rings, a folder of two-line tests), so judging them in
/// the given order made a progress bar's rate swing with the folder at hand; judged in
/// this order, the files done so far at any point are a fair sample of the batch, and the
/// time they took per file predicts the rest's. The same files always go in the same order.
pub fn schedule(files: &[PathBuf]) -> Vec<usize> {
    // FNV-1a over the path's bytes: stable across runs, platforms and Rust versions.
    let hash = |p: &Path| {
        p.as_os_str()
            .as_encoded_bytes()
            .iter()
            .fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
                (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
            })
    };
    let mut order: Vec<(u64, usize)> = files.iter().map(|f| hash(f)).zip(0..).collect();
    order.sort();
    order.into_iter().map(|(_, i)| i).collect()
}

/// How a batch runs: on the worker pool or not, in which order, and who hears of each file
/// judged.
#[derive(Clone, Copy)]
pub struct Run<'a> {
    pub parallel: bool,
    /// Judge the files in [`schedule`]'s shuffled order, for a progress bar's estimate;
    /// else in their own order, so that each file's output can go out as soon as it and
    /// those before it are done.
    pub shuffled: bool,
    /// Called once per file judged (whatever the number of models it is judged under).
    pub done: &'a (dyn Fn() + Sync),
}

/// Parses every file (`load` gives a test or a printable error) and judges each test under
/// `models`; the records come back in the order of `files`.
pub fn run(
    files: &[PathBuf],
    load: &(dyn Fn(&Path) -> Result<Test, Diagnostic> + Sync),
    models: &Models,
    settings: &Settings,
    run: Run,
) -> Vec<Record> {
    let mut all = Vec::new();
    stream(files, load, models, settings, run, &|r| r, &mut |r| {
        all.push(r)
    });
    all
}

/// [`run`], each record turned by `keep` into what the caller keeps of it, on the worker
/// that made it and as soon as it is made, then handed to `sink` in the order of `files`
/// as soon as the files before it are done. A batch whose output is text thus holds no
/// test's final states longer than it takes to print them (a 19-thread ring has half a
/// million, and the text of a batch of them is most of a gigabyte).
pub fn stream<K: Send>(
    files: &[PathBuf],
    load: &(dyn Fn(&Path) -> Result<Test, Diagnostic> + Sync),
    models: &Models,
    settings: &Settings,
    run: Run,
    keep: &(dyn Fn(Record) -> K + Sync),
    sink: &mut (dyn FnMut(K) + Send),
) {
    let per_file = |f: &PathBuf| -> Vec<K> {
        let kept = judge_file(f, load, models, settings)
            .into_iter()
            .map(keep)
            .collect();
        (run.done)();
        kept
    };
    let order = match run.shuffled {
        true => schedule(files),
        false => (0..files.len()).collect(),
    };
    let out = std::sync::Mutex::new(InOrder {
        next: 0,
        waiting: BTreeMap::new(),
        sink,
    });
    let deliver = |i: usize, kept: Vec<K>| {
        out.lock()
            .unwrap_or_else(|e| e.into_inner())
            .deliver(i, kept)
    };
    if run.parallel {
        crate::workers::each_in_order(&order, |_, &i| deliver(i, per_file(&files[i])));
    } else {
        for &i in &order {
            deliver(i, per_file(&files[i]));
        }
    }
}

/// Hands what was kept of each file to the sink in the files' order.
struct InOrder<'s, K> {
    next: usize,
    waiting: BTreeMap<usize, Vec<K>>,
    sink: &'s mut (dyn FnMut(K) + Send),
}

impl<K> InOrder<'_, K> {
    fn deliver(&mut self, i: usize, kept: Vec<K>) {
        self.waiting.insert(i, kept);
        while let Some(kept) = self.waiting.remove(&self.next) {
            kept.into_iter().for_each(&mut *self.sink);
            self.next += 1;
        }
    }
}

/// One file under every model of the batch that applies to it.
fn judge_file(
    f: &Path,
    load: &(dyn Fn(&Path) -> Result<Test, Diagnostic> + Sync),
    models: &Models,
    settings: &Settings,
) -> Vec<Record> {
    let columns = models.columns().len();
    match load(f) {
        Err(e) => (0..columns)
            .map(|column| Record {
                file: f.to_path_buf(),
                test: None,
                column,
                model: String::new(),
                mapping: None,
                compiled: None,
                status: Status::Error(e.clone()),
            })
            .collect(),
        Ok(t) => {
            let t = Arc::new(t);
            let ms = models.for_test(f, &t);
            let several = ms.len() > 1;
            ms.into_iter()
                .flat_map(|(column, m)| {
                    let at = Cell {
                        file: f,
                        test: &t,
                        column,
                    };
                    match m {
                        Err(e) => vec![at.record(String::new(), Status::Error(unlocated(f, e)))],
                        Ok(m) => at.judge(&m, models, several, settings),
                    }
                })
                .collect()
        }
    }
}

/// One (file, column) of a batch, whose records [`Cell::judge`] makes.
struct Cell<'a> {
    file: &'a Path,
    test: &'a Arc<Test>,
    column: usize,
}

impl Cell<'_> {
    fn record(&self, model: String, status: Status) -> Record {
        Record {
            file: self.file.to_path_buf(),
            test: Some(self.test.clone()),
            column: self.column,
            model,
            mapping: None,
            compiled: None,
            status,
        }
    }

    /// The test under `m`: one record, or one per mapping when a C test is compiled for
    /// a hardware model; not applicable when `m` is one column of several that does not
    /// speak the test's language and no mapping translates it.
    fn judge(&self, m: &Loaded, models: &Models, several: bool, s: &Settings) -> Vec<Record> {
        let maps = models.mappings_for(m, self.test);
        if !maps.is_empty() {
            return maps.iter().map(|map| self.compiled(m, map, s)).collect();
        }
        let status = match &m.arches {
            Some(a) if several && !a.contains(&self.test.arch) => Status::NotApplicable,
            _ => judge_one(self.file, self.test, m, s),
        };
        vec![self.record(m.label.clone(), status)]
    }

    /// The test compiled through `map` and judged under `m`, or why it does not compile.
    fn compiled(&self, m: &Loaded, map: &Mapping, s: &Settings) -> Record {
        let mut r = self.record(m.label.clone(), Status::NotApplicable);
        r.mapping = Some(map.name.clone());
        match crate::compile::compile(self.test, map) {
            Ok(c) => {
                let mut ct = c.test;
                ct.name = format!("{}@{}", self.test.name, map.name);
                r.status = judge_one(self.file, &ct, m, s);
                r.compiled = Some(Arc::new(ct));
            }
            Err(e) => r.status = Status::NotCompiled(e.to_string()),
        }
        r
    }
}

/// An error of the file `f` at no place in it.
fn unlocated(f: &Path, msg: String) -> Diagnostic {
    Diagnostic::error(f.display().to_string(), None, msg)
}

fn judge_one(f: &Path, t: &Test, m: &Loaded, s: &Settings) -> Status {
    if let Err(e) = m.covers(t) {
        return Status::Error(unlocated(f, e));
    }
    let mut o = s.options.clone();
    o.budget = Budget::new(s.timeout, s.max_memory);
    o.explainer = m.explainer();
    match judge::run(t, &m.model, m.macros.as_ref(), &o) {
        Ok(mut j) => {
            j.model = m.label.clone();
            Status::Judged(Box::new(j))
        }
        Err(e) => match e.exhausted {
            Some(x) => Status::Undetermined(x, e.explored),
            None => {
                let (at, msg) = t.relocate(e.at, e.msg);
                Status::Error(Diagnostic::error(f.display().to_string(), at, msg))
            }
        },
    }
}
