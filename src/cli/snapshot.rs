//! `litmus snapshot record|check|review`: each folder's expected outcomes in its
//! `litmus.snap` (see `litmus::snapshot::file`), judged again and compared, changes kept in
//! `litmus.snap.new` until a person accepts them.

use super::{ModelArgs, diag};
use clap::{Args, Subcommand};
use litmus::batch::{self, Choice, Column, Models, Record, Settings, Status};
use litmus::judge::Options;
use litmus::litmus::ast::Test;
use litmus::model::{self, Request, Spec};
use litmus::snapshot::file::{self as snap, Entry, ModelId, PENDING, Snapshot};
use litmus::snapshot::{Delta, Outcome};
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

#[derive(Args)]
pub struct SnapshotArgs {
    #[command(subcommand)]
    cmd: SnapshotCmd,
}

#[derive(Subcommand)]
enum SnapshotCmd {
    /// Judge the tests and store each one's outcome per model in its folder's litmus.snap.
    Record(RecordArgs),
    /// Judge the tests again under the snapshots' models and compare: unchanged, changed,
    /// new, missing. Changes go to litmus.snap.new beside each snapshot; exit 1 on any.
    Check(CheckArgs),
    /// Step through the pending changes (litmus.snap.new) and accept or reject each.
    Review(ReviewArgs),
}

/// How the tests are judged (as `litmus check`).
#[derive(Args)]
struct JudgeArgs {
    /// Litmus files, or folders searched for `*.litmus`.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    m: ModelArgs,
    #[command(flatten)]
    limits: super::Limits,
}

#[derive(Args)]
struct RecordArgs {
    #[command(flatten)]
    judge: JudgeArgs,
    /// Loop unrolling bound.
    #[arg(long, default_value_t = 2)]
    unroll: u32,
}

#[derive(Args)]
struct CheckArgs {
    #[command(flatten)]
    judge: JudgeArgs,
    /// Loop unrolling bound (default: each snapshot's).
    #[arg(long)]
    unroll: Option<u32>,
    /// Output: text, or json (one document).
    #[arg(long, default_value = "text")]
    format: String,
    /// Compare only: write no litmus.snap.new.
    #[arg(long)]
    no_pending: bool,
}

#[derive(Args)]
struct ReviewArgs {
    /// Folders searched for pending changes (litmus.snap.new), or such files.
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Accept every pending change without asking.
    #[arg(long, conflicts_with = "reject")]
    accept: bool,
    /// Reject (discard) every pending change without asking.
    #[arg(long)]
    reject: bool,
}

pub fn run(a: &SnapshotArgs) -> i32 {
    match &a.cmd {
        SnapshotCmd::Record(r) => record(r),
        SnapshotCmd::Check(c) => check(c),
        SnapshotCmd::Review(r) => review(r),
    }
}

fn folder_of(file: &Path) -> PathBuf {
    file.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn file_name(file: &Path) -> String {
    file.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The snapshot of `folder`, if it has one.
fn read(folder: &Path, name: &str) -> Result<Option<Snapshot>, String> {
    let path = folder.join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Snapshot::parse(&text, &path.display().to_string()).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: error: {e}", path.display())),
    }
}

fn write(folder: &Path, name: &str, s: &Snapshot) -> Result<(), String> {
    let path = folder.join(name);
    std::fs::write(&path, s.write()).map_err(|e| format!("{}: error: {e}", path.display()))
}

fn remove_pending(folder: &Path) -> Result<(), String> {
    let p = folder.join(PENDING);
    match std::fs::remove_file(&p) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("{}: error: {e}", p.display()))
        }
        _ => Ok(()),
    }
}

/// Folders under `paths` holding a file named `name` (for snapshots whose tests are all
/// gone, and for pending changes).
fn folders_with(paths: &[PathBuf], name: &str) -> Vec<PathBuf> {
    fn walk(d: &Path, name: &str, out: &mut Vec<PathBuf>) {
        if d.join(name).is_file() {
            out.push(d.to_path_buf());
        }
        if let Ok(rd) = std::fs::read_dir(d) {
            let mut subs: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect();
            subs.sort();
            for s in subs {
                walk(&s, name, out);
            }
        }
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, name, &mut out);
        } else if p.file_name().is_some_and(|n| n == name) {
            out.push(folder_of(p));
        }
    }
    out
}

fn settings(j: &JudgeArgs, unroll: u32) -> Settings {
    j.limits.settings(Options {
        unroll,
        ..Options::default()
    })
}

/// Whether the command line names models (else a check takes the snapshots').
fn names_models(m: &ModelArgs) -> bool {
    m.model.is_some() || m.conf.is_some() || m.cat.is_some()
}

/// A shipped model named by its name only: variants would make it another model.
fn shipped_variants(m: &ModelArgs, choice: &Choice) -> Result<(), String> {
    let shipped = match choice {
        Choice::ByArch | Choice::Standard => true,
        Choice::Columns(cs) => cs.iter().any(|c| matches!(c, Column::Shipped(_))),
    };
    if shipped && !m.variant.is_empty() {
        return Err(
            "error: a snapshot names a shipped model by its name alone: give variants \
                    with a .cfg or .cat model (--conf, --cat)"
                .into(),
        );
    }
    Ok(())
}

/// Reports a record that was not judged; true when it was an error.
fn report_failure(r: &Record) -> bool {
    match &r.status {
        Status::Error(e) => say!("{}", e.render_file()),
        Status::Undetermined(e, _) => say!("{}: undetermined: {e}", r.file.display()),
        Status::Judged(_) | Status::NotApplicable | Status::NotCompiled(_) => return false,
    }
    true
}

/// The outcome of a judged record, with its test.
fn judged(r: &Record) -> Option<(&Test, Outcome)> {
    match (&r.status, &r.test) {
        (Status::Judged(j), Some(t)) => Some((t.as_ref(), Outcome::of(t, j))),
        _ => None,
    }
}

fn record(a: &RecordArgs) -> i32 {
    let j = &a.judge;
    let Some(super::Batch {
        files,
        problems,
        parallel,
    }) = super::batch(&j.paths, j.limits.jobs)
    else {
        return 2;
    };
    if problems {
        // A snapshot recorded without the tests that could not be read would lose them.
        return 2;
    }
    let request = j.m.request();
    let models = match super::choice(&j.m)
        .and_then(|c| shipped_variants(&j.m, &c).map(|_| c))
        .and_then(|c| Models::load(c, &request))
    {
        Ok(m) => m,
        Err(e) => {
            say!("{e}");
            return 2;
        }
    };
    let records = super::run_batch(&files, &models, &settings(j, a.unroll), parallel);
    let mut status = 0;
    let mut by_folder: BTreeMap<PathBuf, Vec<(Entry, ModelId)>> = BTreeMap::new();
    for r in &records {
        if report_failure(r) {
            status = 2;
        }
        let Some((t, outcome)) = judged(r) else {
            continue;
        };
        let folder = folder_of(&r.file);
        let m = models
            .get(r.column, t)
            .expect("a judged record's model is loaded");
        let id = match snap::model_id(&m, &folder) {
            Ok(id) => id,
            Err(e) => {
                say!("{e}");
                status = 2;
                continue;
            }
        };
        by_folder.entry(folder).or_default().push((
            Entry {
                file: file_name(&r.file),
                model: id.key.clone(),
                outcome: Some(outcome),
            },
            id,
        ));
    }
    let (mut written, mut outcomes) = (0, 0);
    for (folder, entries) in by_folder {
        let mut s = match read(&folder, snap::FILE) {
            Ok(s) => s.unwrap_or_default(),
            Err(e) => {
                // Never overwrite a snapshot we cannot read: it may hold a merge to finish.
                say!("{e}");
                status = 2;
                continue;
            }
        };
        s.unroll = a.unroll;
        outcomes += entries.len();
        for (e, id) in entries {
            s.put(e);
            s.put_model(id);
        }
        s.entries.retain(|e| folder.join(&e.file).is_file());
        s.prune_models();
        if let Err(e) = write(&folder, snap::FILE, &s).and_then(|_| remove_pending(&folder)) {
            say!("{e}");
            status = 2;
            continue;
        }
        written += 1;
    }
    say!(
        "recorded {outcomes} outcomes of {} tests in {written} snapshots",
        files.len()
    );
    status
}

/// What became of one (test, model) of a snapshot.
enum Found {
    Unchanged,
    Changed(Box<Delta>),
    New,
    Missing,
}

/// One (test, model) compared.
struct Compared {
    /// The test file (as walked; for a missing test, where it was).
    file: PathBuf,
    model: String,
    found: Found,
    /// The new outcome (none for a missing test).
    now: Option<Outcome>,
}

/// A folder's snapshot and what its check found.
#[derive(Default)]
struct Folder {
    snap: Option<Snapshot>,
    unroll: u32,
    compared: Vec<Compared>,
    /// The models now, by key, as this folder's snapshot would describe them.
    ids: BTreeMap<String, ModelId>,
}

/// The columns a check judges under, when the command line names none: every shipped model
/// (loaded when a test needs it) and each model from files a snapshot names.
struct SnapshotModels {
    columns: Vec<Column>,
    /// Per (folder, model key), its column.
    by_key: HashMap<(PathBuf, String), usize>,
}

fn snapshot_models(
    folders: &BTreeMap<PathBuf, Folder>,
    base: &Request,
) -> Result<SnapshotModels, String> {
    let mut columns: Vec<Column> = model::all_names()
        .into_iter()
        .map(Column::Shipped)
        .collect();
    let mut requests: Vec<(Request, usize)> = Vec::new();
    let mut by_key = HashMap::new();
    for (folder, f) in folders {
        let Some(s) = &f.snap else { continue };
        for m in &s.models {
            let column = match &m.source {
                None => match model::canonical(&m.key) {
                    Some(n) => model::all_names().iter().position(|k| *k == n).unwrap(),
                    None => {
                        return Err(format!(
                            "{}: error: model {} is neither shipped nor described",
                            folder.join(snap::FILE).display(),
                            m.key
                        ));
                    }
                },
                Some(src) => {
                    let r = src.request(folder);
                    match requests.iter().find(|(q, _)| *q == r) {
                        Some((_, k)) => *k,
                        None => {
                            let loaded =
                                Spec::Files(Box::new(r.clone())).load(base).map_err(|e| {
                                    format!(
                                        "{e}\n  (model {} of {})",
                                        m.key,
                                        folder.join(snap::FILE).display()
                                    )
                                })?;
                            columns.push(Column::Files(Box::new(loaded)));
                            requests.push((r, columns.len() - 1));
                            columns.len() - 1
                        }
                    }
                }
            };
            by_key.insert((folder.clone(), m.key.clone()), column);
        }
    }
    Ok(SnapshotModels { columns, by_key })
}

fn check(a: &CheckArgs) -> i32 {
    let j = &a.judge;
    if !matches!(a.format.as_str(), "text" | "json") {
        say!("error: unknown format `{}` (text, json)", a.format);
        return 2;
    }
    let Some(super::Batch {
        files,
        problems,
        parallel,
    }) = super::batch(&j.paths, j.limits.jobs)
    else {
        return 2;
    };
    let request = j.m.request();
    let mut status = if problems { 2 } else { 0 };

    // Every folder with a test or a snapshot, with its snapshot.
    let mut folders: BTreeMap<PathBuf, Folder> = BTreeMap::new();
    for d in files
        .iter()
        .map(|f| folder_of(f))
        .chain(folders_with(&j.paths, snap::FILE))
    {
        if folders.contains_key(&d) {
            continue;
        }
        match read(&d, snap::FILE) {
            Ok(s) => {
                let unroll = a.unroll.or(s.as_ref().map(|s| s.unroll)).unwrap_or(2);
                folders.insert(
                    d,
                    Folder {
                        snap: s,
                        unroll,
                        ..Default::default()
                    },
                );
            }
            Err(e) => {
                say!("{e}");
                status = 2;
            }
        }
    }
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|f| folders.contains_key(&folder_of(f)))
        .collect();

    // The models: the command line's for every test, else each snapshot's for its tests
    // and the architecture's for a test it does not have.
    let loaded = if names_models(&j.m) {
        super::choice(&j.m)
            .and_then(|c| shipped_variants(&j.m, &c).map(|_| c))
            .and_then(|c| Models::load(c, &request))
    } else {
        snapshot_models(&folders, &request).and_then(|sm| {
            let mut wanted: HashMap<PathBuf, Vec<usize>> = HashMap::new();
            for (folder, f) in &folders {
                let Some(s) = &f.snap else { continue };
                for e in &s.entries {
                    let k = sm.by_key[&(folder.clone(), e.model.clone())];
                    wanted.entry(folder.join(&e.file)).or_default().push(k);
                }
            }
            let names = model::all_names();
            let select = move |file: &Path, t: &Test, k: usize| match wanted.get(file) {
                Some(ks) => ks.contains(&k),
                None => names.get(k) == Some(&model::default_for(t.arch)),
            };
            Models::load(Choice::Columns(sm.columns), &request).map(|m| m.select(Box::new(select)))
        })
    };
    let models = match loaded {
        Ok(m) => m,
        Err(e) => {
            say!("{e}");
            return 2;
        }
    };

    // Judge, one batch per unrolling bound.
    let bar = super::progress(files.len());
    let done = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let unrolls: BTreeSet<u32> = folders.values().map(|f| f.unroll).collect();
    let mut records = Vec::new();
    for u in unrolls {
        let group: Vec<PathBuf> = files
            .iter()
            .filter(|f| folders[&folder_of(f)].unroll == u)
            .cloned()
            .collect();
        let run = batch::Run {
            parallel,
            shuffled: false,
            done: &done,
        };
        records.extend(batch::run(
            &group,
            &diag::load_record,
            &models,
            &settings(j, u),
            run,
        ));
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }

    // Compare.
    let mut errors = 0;
    let mut seen: BTreeSet<(PathBuf, String, String)> = BTreeSet::new();
    for r in &records {
        if report_failure(r) {
            status = 2;
            errors += 1;
            // A test that fails now is neither missing nor new.
            if let Some(t) = &r.test
                && let Ok(m) = models.get(r.column, t)
            {
                seen.insert((folder_of(&r.file), file_name(&r.file), snap::key(&m)));
            }
            continue;
        }
        let Some((t, now)) = judged(r) else { continue };
        let folder = folder_of(&r.file);
        let m = models
            .get(r.column, t)
            .expect("a judged record's model is loaded");
        let key = snap::key(&m);
        let f = folders
            .get_mut(&folder)
            .expect("every test's folder is read");
        if !f.ids.contains_key(&key) {
            match snap::model_id(&m, &folder) {
                Ok(id) => {
                    f.ids.insert(key.clone(), id);
                }
                Err(e) => {
                    say!("{e}");
                    status = 2;
                }
            }
        }
        let name = file_name(&r.file);
        seen.insert((folder.clone(), name.clone(), key.clone()));
        let before = f
            .snap
            .as_ref()
            .and_then(|s| s.entry(&name, &key))
            .and_then(|e| e.outcome.as_ref());
        let found = match before {
            None => Found::New,
            Some(b) => {
                let d = Delta::between(b, &now);
                if d.is_empty() {
                    Found::Unchanged
                } else {
                    Found::Changed(Box::new(d))
                }
            }
        };
        f.compared.push(Compared {
            file: r.file.clone(),
            model: key,
            found,
            now: Some(now),
        });
    }
    // Missing: a snapshot's test whose file is gone, in a folder this check covers.
    let given: BTreeSet<&PathBuf> = files.iter().collect();
    for (folder, f) in folders.iter_mut() {
        let Some(s) = &f.snap else { continue };
        let walked = j.paths.iter().any(|p| p.is_dir() && folder.starts_with(p));
        for e in &s.entries {
            let path = folder.join(&e.file);
            if seen.contains(&(folder.clone(), e.file.clone(), e.model.clone()))
                || given.contains(&path)
                || path.is_file()
                || !walked
            {
                continue;
            }
            f.compared.push(Compared {
                file: path,
                model: e.model.clone(),
                found: Found::Missing,
                now: None,
            });
        }
    }

    // The pending changes of each folder, and what is reported.
    let mut counts = [0usize; 4];
    let mut pending_files = 0;
    let mut model_notes: Vec<(PathBuf, String, Vec<String>)> = Vec::new();
    let mut unroll_notes: Vec<(PathBuf, u32, u32)> = Vec::new();
    for (folder, f) in folders.iter_mut() {
        f.compared
            .sort_by(|x, y| (&x.file, &x.model).cmp(&(&y.file, &y.model)));
        for c in &f.compared {
            counts[match c.found {
                Found::Unchanged => 0,
                Found::Changed(_) => 1,
                Found::New => 2,
                Found::Missing => 3,
            }] += 1;
        }
        let old = f.snap.clone().unwrap_or_default();
        let mut header = old.clone();
        header.entries.clear();
        let mut pending = Snapshot {
            unroll: f.unroll,
            models: Vec::new(),
            entries: Vec::new(),
        };
        for (key, id) in &f.ids {
            match old.model(key) {
                Some(was) if was != id => {
                    model_notes.push((folder.clone(), key.clone(), was.changes(id)))
                }
                _ => {}
            }
        }
        if f.snap.is_some() && old.unroll != f.unroll {
            unroll_notes.push((folder.clone(), old.unroll, f.unroll));
        }
        // The header after every change: the models now, those of untouched entries.
        let mut after = old.clone();
        after.unroll = f.unroll;
        for c in &f.compared {
            let e = Entry {
                file: file_name(&c.file),
                model: c.model.clone(),
                outcome: c.now.clone(),
            };
            if !matches!(c.found, Found::Unchanged) {
                pending.entries.push(e.clone());
            }
            after.put(e);
        }
        for id in f.ids.values() {
            if after.entries.iter().any(|e| e.model == id.key) {
                after.put_model(id.clone());
            }
        }
        after.prune_models();
        header.models = after.models.clone();
        pending.models = after.models;
        let header_changed = header.models != old.models || after.unroll != old.unroll;
        if a.no_pending {
            continue;
        }
        let result = if pending.entries.is_empty() && !header_changed {
            remove_pending(folder)
        } else {
            pending.sort();
            pending_files += 1;
            write(folder, PENDING, &pending)
        };
        if let Err(e) = result {
            say!("{e}");
            status = 2;
        }
    }
    let changed = counts[1..].iter().sum::<usize>() + model_notes.len() + unroll_notes.len();
    if changed > 0 && status == 0 {
        status = 1;
    }

    let summary = format!(
        "snapshot check: {} unchanged, {} changed, {} new, {} missing, {errors} errors{}{}",
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        if model_notes.is_empty() {
            String::new()
        } else {
            format!("; {} models changed", model_notes.len())
        },
        match pending_files {
            0 => String::new(),
            n => format!(
                "; pending changes in {n} {}: `litmus snapshot review`",
                if n == 1 { "folder" } else { "folders" }
            ),
        }
    );
    let out = match a.format.as_str() {
        "json" => {
            let tests: Vec<_> = folders
                .values()
                .flat_map(|f| &f.compared)
                .map(|c| {
                    let (word, delta) = match &c.found {
                        Found::Unchanged => ("unchanged", None),
                        Found::Changed(d) => ("changed", Some(d)),
                        Found::New => ("new", None),
                        Found::Missing => ("missing", None),
                    };
                    json!({
                        "file": c.file.display().to_string(),
                        "model": c.model,
                        "status": word,
                        "delta": delta,
                        "verdict": c.now.as_ref().map(Outcome::verdict),
                    })
                })
                .collect();
            let models: Vec<_> = model_notes
                .iter()
                .map(|(d, k, ch)| {
                    json!({"folder": d.display().to_string(), "model": k, "changes": ch})
                })
                .collect();
            let doc = json!({
                "tests": tests,
                "models": models,
                "summary": {
                    "unchanged": counts[0], "changed": counts[1], "new": counts[2],
                    "missing": counts[3], "errors": errors, "models_changed": model_notes.len(),
                    "pending": pending_files,
                },
            });
            format!("{doc:#}\n")
        }
        _ => {
            let mut o = String::new();
            for (d, k, ch) in &model_notes {
                o += &format!(
                    "model {k} in {}: changed since the snapshot\n",
                    d.join(snap::FILE).display()
                );
                for line in ch {
                    o += &format!("    {line}\n");
                }
            }
            for (d, was, now) in &unroll_notes {
                o += &format!("unroll {was} → {now} in {}\n", d.join(snap::FILE).display());
            }
            for c in folders.values().flat_map(|f| &f.compared) {
                o += &compared_text(c);
            }
            o + &summary + "\n"
        }
    };
    if let Err(e) = super::write_stdout(&out) {
        say!("error: cannot write the output: {e}");
        return 2;
    }
    status
}

/// One compared test as text: nothing when unchanged.
fn compared_text(c: &Compared) -> String {
    let head = |word: &str| format!("{word:<8}{} under {}", c.file.display(), c.model);
    match &c.found {
        Found::Unchanged => String::new(),
        Found::New => {
            let now = c.now.as_ref().expect("a new test is judged");
            format!(
                "{}: {}, {} states\n",
                head("new"),
                now.verdict(),
                now.states.len()
            )
        }
        Found::Missing => format!("{}: the test is gone\n", head("missing")),
        Found::Changed(d) => {
            let mut s = head("changed") + "\n";
            for l in d.lines() {
                s += &format!("    {l}\n");
            }
            s
        }
    }
}

/// One pending change of a folder under review.
enum Item {
    /// The unrolling bound or a model's description.
    Header,
    Entry(Entry),
}

fn review(a: &ReviewArgs) -> i32 {
    let folders = folders_with(&a.paths, PENDING);
    if folders.is_empty() {
        say!("no pending changes (no {PENDING}) under the paths given");
        return 0;
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let (mut accepted, mut rejected, mut skipped) = (0, 0, 0);
    let mut all: Option<bool> = a.accept.then_some(true).or(a.reject.then_some(false));
    let mut quit = false;
    for folder in &folders {
        let (old, pending) = match (read(folder, snap::FILE), read(folder, PENDING)) {
            (Ok(o), Ok(Some(p))) => (o, p),
            (Err(e), _) | (_, Err(e)) => {
                say!("{e}");
                return 2;
            }
            (_, Ok(None)) => continue,
        };
        let mut snap_now = old.clone().unwrap_or(Snapshot {
            unroll: pending.unroll,
            ..Default::default()
        });
        let header_changed = old.as_ref().is_none_or(|o| {
            o.unroll != pending.unroll
                || pending
                    .models
                    .iter()
                    .any(|m| o.model(&m.key).is_some_and(|was| was != m))
        });
        let mut items: Vec<Item> = Vec::new();
        if header_changed && old.is_some() {
            items.push(Item::Header);
        }
        items.extend(pending.entries.iter().cloned().map(Item::Entry));
        let mut keep = Snapshot {
            unroll: pending.unroll,
            models: pending.models.clone(),
            entries: Vec::new(),
        };
        let mut keep_header = false;
        let mut touched = false;
        for item in items {
            let take = if quit {
                None
            } else if let Some(x) = all {
                Some(x)
            } else {
                print!("{}", describe(folder, &item, &snap_now, &pending));
                match ask(&mut input) {
                    Answer::Accept => Some(true),
                    Answer::Reject => Some(false),
                    Answer::Skip => None,
                    Answer::AcceptAll => {
                        all = Some(true);
                        Some(true)
                    }
                    Answer::Quit => {
                        quit = true;
                        None
                    }
                }
            };
            match (take, item) {
                (Some(true), Item::Header) => {
                    snap_now.unroll = pending.unroll;
                    for m in &pending.models {
                        snap_now.put_model(m.clone());
                    }
                    touched = true;
                    accepted += 1;
                }
                (Some(true), Item::Entry(e)) => {
                    if let Some(m) = pending.model(&e.model) {
                        snap_now.put_model(m.clone());
                    }
                    if old.is_none() {
                        snap_now.unroll = pending.unroll;
                    }
                    snap_now.put(e);
                    touched = true;
                    accepted += 1;
                }
                (Some(false), _) => rejected += 1,
                (None, Item::Header) => {
                    keep_header = true;
                    skipped += 1;
                }
                (None, Item::Entry(e)) => {
                    keep.entries.push(e);
                    skipped += 1;
                }
            }
        }
        let mut result = Ok(());
        if touched {
            snap_now.prune_models();
            result = write(folder, snap::FILE, &snap_now);
        }
        if result.is_ok() {
            result = if keep.entries.is_empty() && !keep_header {
                remove_pending(folder)
            } else {
                write(folder, PENDING, &keep)
            };
        }
        if let Err(e) = result {
            say!("{e}");
            return 2;
        }
    }
    println!("review: {accepted} accepted, {rejected} rejected, {skipped} left pending");
    0
}

/// A pending change as review shows it: where, what was, what would be.
fn describe(folder: &Path, item: &Item, now: &Snapshot, pending: &Snapshot) -> String {
    let snap_file = folder.join(snap::FILE);
    match item {
        Item::Header => {
            let mut s = format!(
                "\n── {}: the models or the unrolling bound\n",
                snap_file.display()
            );
            if now.unroll != pending.unroll {
                s += &format!("    unroll {} → {}\n", now.unroll, pending.unroll);
            }
            for m in &pending.models {
                if let Some(was) = now.model(&m.key) {
                    for l in was.changes(m) {
                        s += &format!("    model {}: {l}\n", m.key);
                    }
                }
            }
            s
        }
        Item::Entry(e) => {
            let path = folder.join(&e.file);
            let before = now
                .entry(&e.file, &e.model)
                .and_then(|x| x.outcome.as_ref());
            let mut s = format!("\n── {} under {}\n", path.display(), e.model);
            match (before, &e.outcome) {
                (Some(b), Some(n)) => {
                    s += "changed:\n";
                    for l in Delta::between(b, n).lines() {
                        s += &format!("    {l}\n");
                    }
                }
                (None, Some(_)) => {
                    s += "new:\n";
                    for l in snap::entry_text(e).lines() {
                        s += &format!("    {l}\n");
                    }
                }
                (_, None) => s += "missing: the test is gone; its entry would be removed\n",
            }
            s
        }
    }
}

enum Answer {
    Accept,
    Reject,
    Skip,
    AcceptAll,
    Quit,
}

/// Reads an answer, a line at a time (works in any terminal, under tmux, and from a pipe);
/// the end of input quits, leaving what is left pending.
fn ask(input: &mut impl BufRead) -> Answer {
    loop {
        print!("accept [a], reject [r], skip [s], accept all the rest [A], quit [q]? ");
        let _ = std::io::stdout().flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                println!();
                return Answer::Quit;
            }
            Ok(_) => {}
        }
        match line.trim() {
            "a" | "y" | "accept" => return Answer::Accept,
            "r" | "n" | "reject" => return Answer::Reject,
            "s" | "" | "skip" => return Answer::Skip,
            "A" => return Answer::AcceptAll,
            "q" | "quit" => return Answer::Quit,
            other => println!("`{other}`: type a, r, s, A or q"),
        }
    }
}
