//! The snapshot file: the outcomes of a folder's tests, one file per folder
//! ([`FILE`], pending changes beside it in [`PENDING`]), in a text format meant for git.
//!
//! ```text
//! unroll 2
//! model lkmm
//! model edited.cfg
//!   conf ../../models/edited.cfg
//!   file 3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b ../../models/edited.cfg
//!
//! test MP+poonceonces.litmus
//!   model lkmm
//!   name MP+poonceonces
//!   condition exists (1:r0=1 /\ 1:r1=0)
//!   verdict Ok Sometimes
//!   witnesses 1 3
//!   states 4
//!     1:r0=0; 1:r1=0;
//!     ...
//! ```
//!
//! Everything is in a fixed order (models by name, tests by file then model, states as herd
//! prints them), one fact a line: recording again gives the same bytes, and a change of
//! answer is a change of the lines that say it. A model from files is named by its
//! configuration or cat file and carries how to load it again and the SHA-256 of every
//! file it loaded, so a snapshot is never compared, unsaid, with another model's answers.
//! Paths are relative to the snapshot's folder (absolute ones stay absolute), so the
//! folder can move with its tests.

use super::Outcome;
use crate::model::{Loaded, Request};
use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::{Component, Path, PathBuf};

/// The snapshot of a folder's tests.
pub const FILE: &str = "litmus.snap";
/// Changes found by `snapshot check` and not accepted yet.
pub const PENDING: &str = "litmus.snap.new";

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    /// The loop unrolling bound the tests were judged with.
    pub unroll: u32,
    /// The models the entries name, by key.
    pub models: Vec<ModelId>,
    /// By file, then model.
    pub entries: Vec<Entry>,
}

/// A model as a snapshot names it.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelId {
    /// How entries name it: a shipped model's name, or the file name of its configuration
    /// (or cat file), which no shipped name has.
    pub key: String,
    /// How to load it again, for a model from files; `None` for a shipped one.
    pub source: Option<Source>,
}

/// A model from files: herd7's options, and what they loaded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Source {
    pub conf: Option<String>,
    pub cat: Option<String>,
    pub bell: Option<String>,
    pub macros: Option<String>,
    pub variants: Vec<String>,
    pub include: Vec<String>,
    /// Every file the model loaded: (SHA-256 in hex, path).
    pub files: Vec<(String, String)>,
}

impl ModelId {
    /// How `now` differs from this (recorded) description, a line each; empty when they
    /// are the same model.
    pub fn changes(&self, now: &ModelId) -> Vec<String> {
        let none = Source::default();
        let (a, b) = (
            self.source.as_ref().unwrap_or(&none),
            now.source.as_ref().unwrap_or(&none),
        );
        let mut out = Vec::new();
        let opts = |s: &Source| {
            format!(
                "conf {:?} cat {:?} bell {:?} macros {:?} variants {:?} include {:?}",
                s.conf, s.cat, s.bell, s.macros, s.variants, s.include
            )
        };
        if opts(a) != opts(b) {
            out.push(format!("options {} → {}", opts(a), opts(b)));
        }
        let short = |h: &str| h.chars().take(12).collect::<String>();
        for (h, p) in &a.files {
            match b.files.iter().find(|(_, q)| q == p) {
                None => out.push(format!("- file {p}")),
                Some((g, _)) if g != h => {
                    out.push(format!("file {p}: sha256 {} → {}", short(h), short(g)))
                }
                _ => {}
            }
        }
        for (_, q) in &b.files {
            if !a.files.iter().any(|(_, p)| p == q) {
                out.push(format!("+ file {q}"));
            }
        }
        out
    }
}

/// One test under one model.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The test's file name, in the snapshot's folder.
    pub file: String,
    /// The model's key (see [`ModelId::key`]).
    pub model: String,
    /// `None` only in a pending file: the entry is to be removed.
    pub outcome: Option<Outcome>,
}

impl Snapshot {
    /// Entries and models in their fixed order.
    pub fn sort(&mut self) {
        self.models.sort_by(|a, b| a.key.cmp(&b.key));
        self.models.dedup_by(|a, b| a.key == b.key);
        self.entries
            .sort_by(|a, b| (&a.file, &a.model).cmp(&(&b.file, &b.model)));
    }

    pub fn entry(&self, file: &str, model: &str) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.file == file && e.model == model)
    }

    pub fn model(&self, key: &str) -> Option<&ModelId> {
        self.models.iter().find(|m| m.key == key)
    }

    /// Puts `e` in place of the entry of its file and model; an entry without an outcome
    /// removes it.
    pub fn put(&mut self, e: Entry) {
        self.entries
            .retain(|x| !(x.file == e.file && x.model == e.model));
        if e.outcome.is_some() {
            self.entries.push(e);
        }
        self.sort();
    }

    /// Puts `m` in place of the model of its key.
    pub fn put_model(&mut self, m: ModelId) {
        self.models.retain(|x| x.key != m.key);
        self.models.push(m);
        self.sort();
    }

    /// Drops the models no entry names.
    pub fn prune_models(&mut self) {
        let used: BTreeSet<&str> = self.entries.iter().map(|e| e.model.as_str()).collect();
        self.models.retain(|m| used.contains(m.key.as_str()));
    }

    /// The file's text.
    pub fn write(&self) -> String {
        let mut o = String::new();
        o.push_str(
            "# litmus snapshot: the outcome of each test in this folder under each model.\n\
             # `litmus snapshot check` judges them again and compares; `litmus snapshot \
             review` takes changes.\n\
             # witnesses: herd's Positive and Negative counts.\n",
        );
        let _ = writeln!(o, "unroll {}", self.unroll);
        for m in &self.models {
            let _ = writeln!(o, "model {}", m.key);
            let Some(s) = &m.source else { continue };
            let mut opt = |k: &str, v: &Option<String>| {
                if let Some(v) = v {
                    let _ = writeln!(o, "  {k} {v}");
                }
            };
            opt("conf", &s.conf);
            opt("cat", &s.cat);
            opt("bell", &s.bell);
            opt("macros", &s.macros);
            for v in &s.variants {
                let _ = writeln!(o, "  variant {v}");
            }
            for d in &s.include {
                let _ = writeln!(o, "  include {d}");
            }
            for (hash, path) in &s.files {
                let _ = writeln!(o, "  file {hash} {path}");
            }
        }
        for e in &self.entries {
            o.push('\n');
            write_entry(&mut o, e);
        }
        o
    }

    /// Reads a snapshot file's text; `name` is the file, for messages.
    pub fn parse(text: &str, name: &str) -> Result<Snapshot, String> {
        let mut p = Parser {
            snap: Snapshot::default(),
            name,
            at: Some(At::Top),
            unroll: false,
        };
        let mut lines = text.lines().enumerate().peekable();
        while let Some((i, line)) = lines.next() {
            let n = i + 1;
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            if line.starts_with("    ") {
                return Err(p.error(n, "a state outside `states`"));
            }
            let (indented, body) = match line.strip_prefix("  ") {
                Some(b) => (true, b),
                None => (false, line),
            };
            let (key, val) = body.split_once(' ').unwrap_or((body, ""));
            if !indented {
                p.top(n, key, val)?;
                continue;
            }
            if key == "states" {
                let count: usize = val
                    .parse()
                    .map_err(|_| p.error(n, "`states` wants a count"))?;
                let mut states = Vec::with_capacity(count);
                while states.len() < count {
                    match lines.peek() {
                        Some((_, l)) if l.starts_with("    ") => {
                            states.push(l[4..].to_string());
                            lines.next();
                        }
                        _ => {
                            return Err(p.error(
                                n,
                                &format!("`states {count}` but {} state lines", states.len()),
                            ));
                        }
                    }
                }
                p.outcome(n)?.states = states;
                continue;
            }
            p.attribute(n, key, val)?;
        }
        p.finish()
    }
}

fn write_entry(o: &mut String, e: &Entry) {
    let _ = writeln!(o, "test {}", e.file);
    let _ = writeln!(o, "  model {}", e.model);
    let Some(x) = &e.outcome else {
        o.push_str("  removed\n");
        return;
    };
    let _ = writeln!(o, "  name {}", x.test);
    let _ = writeln!(o, "  condition {}", x.condition);
    let _ = writeln!(o, "  verdict {}", x.verdict());
    let _ = writeln!(o, "  witnesses {} {}", x.positive, x.negative);
    for f in &x.flags {
        let _ = writeln!(o, "  flag {f}");
    }
    if x.cut {
        o.push_str("  loop\n");
    }
    let _ = writeln!(o, "  states {}", x.states.len());
    for s in &x.states {
        let _ = writeln!(o, "    {s}");
    }
}

/// One entry's text, as the snapshot file has it (for showing a change under review).
pub fn entry_text(e: &Entry) -> String {
    let mut o = String::new();
    write_entry(&mut o, e);
    o
}

/// What the indented lines belong to.
enum At {
    Top,
    Model,
    /// A test, its model not yet named.
    Test(String),
    Entry,
}

struct Parser<'a> {
    snap: Snapshot,
    name: &'a str,
    at: Option<At>,
    unroll: bool,
}

impl Parser<'_> {
    fn error(&self, line: usize, msg: &str) -> String {
        format!("{}:{line}: error: {msg}", self.name)
    }

    fn top(&mut self, n: usize, key: &str, val: &str) -> Result<(), String> {
        self.end_entry(n)?;
        match key {
            "unroll" => {
                self.snap.unroll = val
                    .parse()
                    .map_err(|_| self.error(n, "`unroll` wants a number"))?;
                self.unroll = true;
                self.at = Some(At::Top);
            }
            "model" if !val.is_empty() => {
                self.snap.models.push(ModelId {
                    key: val.to_string(),
                    source: None,
                });
                self.at = Some(At::Model);
            }
            "test" if !val.is_empty() => self.at = Some(At::Test(val.to_string())),
            _ => return Err(self.error(n, &format!("unexpected `{key}`"))),
        }
        Ok(())
    }

    /// The outcome of the entry being read.
    fn outcome(&mut self, n: usize) -> Result<&mut Outcome, String> {
        let err = self.error(n, "an outcome's line outside a test");
        match (&self.at, self.snap.entries.last_mut()) {
            (
                Some(At::Entry),
                Some(Entry {
                    outcome: Some(o), ..
                }),
            ) => Ok(o),
            _ => Err(err),
        }
    }

    fn attribute(&mut self, n: usize, key: &str, val: &str) -> Result<(), String> {
        match self.at.take() {
            Some(At::Model) => {
                self.at = Some(At::Model);
                let err = self.error(n, &format!("unexpected `{key}` in a model"));
                let m = self.snap.models.last_mut().ok_or(err.clone())?;
                let s = m.source.get_or_insert_with(Source::default);
                let v = Some(val.to_string());
                match key {
                    "conf" => s.conf = v,
                    "cat" => s.cat = v,
                    "bell" => s.bell = v,
                    "macros" => s.macros = v,
                    "variant" => s.variants.push(val.to_string()),
                    "include" => s.include.push(val.to_string()),
                    "file" => {
                        let (hash, path) = val.split_once(' ').ok_or(err.clone())?;
                        s.files.push((hash.to_string(), path.to_string()));
                    }
                    _ => return Err(err),
                }
                Ok(())
            }
            Some(At::Test(file)) if key == "model" => {
                self.snap.entries.push(Entry {
                    file,
                    model: val.to_string(),
                    outcome: Some(Outcome::default()),
                });
                self.at = Some(At::Entry);
                Ok(())
            }
            Some(At::Entry) => {
                self.at = Some(At::Entry);
                if key == "removed" {
                    if let Some(e) = self.snap.entries.last_mut() {
                        e.outcome = None;
                    }
                    self.at = Some(At::Top);
                    return Ok(());
                }
                let bad = |p: &Self, what: &str| p.error(n, &format!("bad `{key}`: {what}"));
                let o = self.outcome(n)?;
                match key {
                    "name" => o.test = val.to_string(),
                    "condition" => o.condition = val.to_string(),
                    "verdict" => {
                        let (ok, obs) = val.split_once(' ').unwrap_or((val, ""));
                        o.ok = match ok {
                            "Ok" => true,
                            "No" => false,
                            _ => return Err(bad(self, "Ok or No first")),
                        };
                        o.observation = obs.to_string();
                    }
                    "witnesses" => {
                        let counts: Vec<u64> =
                            val.split(' ').filter_map(|w| w.parse().ok()).collect();
                        let [p, q] = counts[..] else {
                            return Err(bad(self, "two counts"));
                        };
                        (o.positive, o.negative) = (p, q);
                    }
                    "flag" => {
                        o.flags.insert(val.to_string());
                    }
                    "loop" => o.cut = true,
                    _ => return Err(self.error(n, &format!("unexpected `{key}` in a test"))),
                }
                Ok(())
            }
            Some(At::Test(_)) => Err(self.error(n, "a test's first line names its model")),
            _ => Err(self.error(n, &format!("unexpected `{key}`"))),
        }
    }

    /// An entry ends at the next top-level line: it must have said its verdict.
    fn end_entry(&mut self, n: usize) -> Result<(), String> {
        if let Some(At::Test(f)) = &self.at {
            return Err(self.error(n, &format!("test {f} names no model")));
        }
        if let (Some(At::Entry), Some(e)) = (&self.at, self.snap.entries.last())
            && let Some(o) = &e.outcome
            && o.observation.is_empty()
        {
            return Err(self.error(
                n,
                &format!("test {} under {} has no verdict", e.file, e.model),
            ));
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Snapshot, String> {
        self.end_entry(0)?;
        if !self.unroll {
            return Err(self.error(1, "no `unroll` line: not a litmus snapshot"));
        }
        let keys: BTreeSet<&str> = self.snap.models.iter().map(|m| m.key.as_str()).collect();
        if let Some(e) = self
            .snap
            .entries
            .iter()
            .find(|e| !keys.contains(e.model.as_str()))
        {
            return Err(format!(
                "{}: error: test {} names model {}, which the file does not describe",
                self.name, e.file, e.model
            ));
        }
        self.snap.sort();
        Ok(self.snap)
    }
}

impl Source {
    /// herd7's options as a snapshot in `folder` keeps them: `r`'s paths relative to the
    /// folder where they name files or folders that exist (a bare name found by the model
    /// search, `lkmm.bell`, stays as it is), with `files` (see [`crate::model::fingerprint`]).
    pub fn of(r: &Request, folder: &Path, files: Vec<(String, String)>) -> Source {
        let rel = |p: &PathBuf| relative(p, folder);
        Source {
            conf: r.conf.as_ref().map(rel),
            cat: r.cat.as_ref().map(rel),
            bell: r.bell.as_ref().map(rel),
            macros: r.macros.as_ref().map(rel),
            variants: r.variants.clone(),
            include: r.include.iter().map(rel).collect(),
            files: files
                .into_iter()
                .map(|(path, hash)| {
                    let shown = if path.starts_with('<') {
                        path
                    } else {
                        relative(Path::new(&path), folder)
                    };
                    (hash, shown)
                })
                .collect(),
        }
    }

    /// The options again, for a snapshot in `folder`: the inverse of [`Source::of`].
    pub fn request(&self, folder: &Path) -> Request {
        let back = |p: &String| {
            let q = folder.join(p);
            if q.exists() { q } else { PathBuf::from(p) }
        };
        Request {
            conf: self.conf.as_ref().map(back),
            cat: self.cat.as_ref().map(back),
            bell: self.bell.as_ref().map(back),
            macros: self.macros.as_ref().map(back),
            variants: self.variants.clone(),
            include: self.include.iter().map(back).collect(),
            ..Request::default()
        }
    }
}

/// How a snapshot names a loaded model (see [`ModelId::key`]).
pub fn key(m: &Loaded) -> String {
    match &m.request {
        Some(r) => key_of(r),
        None => m.label.clone(),
    }
}

/// A loaded model as a snapshot in `folder` describes it: a model from files with its
/// options and the fingerprint of every file it loaded.
pub fn model_id(m: &Loaded, folder: &Path) -> Result<ModelId, String> {
    let source = match &m.request {
        Some(r) => Some(Source::of(r, folder, crate::model::fingerprint(&m.files)?)),
        None => None,
    };
    Ok(ModelId {
        key: key(m),
        source,
    })
}

/// The key a snapshot names a model from files by: its configuration's file name, else its
/// cat file's.
pub fn key_of(r: &Request) -> String {
    r.conf
        .as_ref()
        .or(r.cat.as_ref())
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into())
}

/// `p` relative to the folder `from`, when `p` exists and is not absolute; else `p` as it is.
fn relative(p: &Path, from: &Path) -> String {
    let as_is = p.display().to_string();
    if p.is_absolute() || !p.exists() {
        return as_is;
    }
    let (Ok(to), Ok(from)) = (p.canonicalize(), from.canonicalize()) else {
        return as_is;
    };
    let to: Vec<Component> = to.components().collect();
    let from: Vec<Component> = from.components().collect();
    let common = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for c in &to[common..] {
        out.push(c);
    }
    out.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn relative_paths_climb_and_descend() {
        let base = std::env::temp_dir().join(format!("litmus-rel-{}", std::process::id()));
        std::fs::create_dir_all(base.join("a/b")).unwrap();
        std::fs::create_dir_all(base.join("c")).unwrap();
        std::fs::write(base.join("c/m.cat"), "").unwrap();
        // A path as the user typed it: relative to the current folder.
        let cwd = std::env::current_dir().unwrap();
        let up: PathBuf = cwd.components().skip(1).map(|_| "..").collect();
        let typed = up.join(base.strip_prefix("/").unwrap()).join("c/m.cat");
        assert!(typed.is_relative() && typed.exists(), "{}", typed.display());
        let got = relative(&typed, &base.join("a/b"));
        assert_eq!(got, "../../c/m.cat");
        assert_eq!(relative(Path::new("no-such.bell"), &base), "no-such.bell");
        let r = Request {
            cat: Some(base.join("c/m.cat")),
            ..Default::default()
        };
        // Absolute stays absolute, and comes back as it was.
        let s = Source::of(&r, &base.join("a/b"), Vec::new());
        assert_eq!(s.request(&base.join("a/b")).cat, r.cat);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn errors_name_the_line() {
        let e = Snapshot::parse(
            "unroll 2\nmodel lkmm\n\ntest a.litmus\n  name a\n",
            "x.snap",
        )
        .unwrap_err();
        assert!(e.contains("x.snap:5"), "{e}");
        let e = Snapshot::parse(
            "unroll 2\nmodel lkmm\ntest a.litmus\n  model lkmm\n  name a\n  verdict Ok Sometimes\n  states 2\n    [x]=1;\n",
            "x.snap",
        )
        .unwrap_err();
        assert!(e.contains("x.snap:7") && e.contains("states 2"), "{e}");
        let e = Snapshot::parse(
            "unroll 2\ntest a.litmus\n  model other\n  verdict No Never\n  states 0\n",
            "x.snap",
        )
        .unwrap_err();
        assert!(e.contains("other"), "{e}");
    }
}
