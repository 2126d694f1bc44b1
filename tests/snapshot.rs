//! `litmus snapshot` and `litmus diff` as a user runs them: the snapshot format, the
//! reports of `check` and `diff`, review (from a pipe and in a terminal under tmux), and a
//! model edit whose changed answers are found exactly.

mod common;
use common::root;

use litmus::judge::{self, Options};
use litmus::litmus::parse_file;
use litmus::model::{self, Request};
use litmus::snapshot::{Delta, Outcome};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_litmus"))
}

/// A folder of its own under the system's temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("litmus-snap-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    fn path(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }
    /// Copies the suite's `litmus/FROM` to `TO` here.
    fn copy(&self, from: &str, to: &str) {
        let dest = self.path(to);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(root().join("litmus").join(from), dest).unwrap();
    }
    /// `litmus ARGS` run here.
    fn run(&self, args: &[&str]) -> Output {
        bin().current_dir(&self.0).args(args).output().unwrap()
    }
    fn read(&self, p: &str) -> String {
        std::fs::read_to_string(self.path(p)).unwrap()
    }
    /// A copy of the shipped LKMM as `model/edited.cat`, with `model/edited.cfg` loading
    /// it as the shipped one is loaded (bell, variant).
    fn lkmm_copy(&self) {
        std::fs::create_dir_all(self.path("model")).unwrap();
        std::fs::copy(root().join("cat/lkmm.cat"), self.path("model/edited.cat")).unwrap();
        std::fs::write(
            self.path("model/edited.cfg"),
            "model edited.cat\nbell lkmm.bell\nvariant lkmmv2\n",
        )
        .unwrap();
    }
    /// Drops the term `(prop \ id) & int` of the happens-before order of the copy.
    fn weaken_hb(&self) {
        let p = self.path("model/edited.cat");
        let text = std::fs::read_to_string(&p).unwrap();
        let hb = "let hb = [Marked]; (ppo | rfe | ((prop \\ id) & int)); [Marked]";
        assert!(
            text.contains(hb),
            "cat/lkmm.cat's hb is not as this test expects"
        );
        std::fs::write(
            &p,
            text.replace(hb, "let hb = [Marked]; (ppo | rfe); [Marked]"),
        )
        .unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `text` with every SHA-256 in hex, whole or cut to 12 digits, as `<sha256>`: the
/// shipped model files' hashes change whenever they are edited.
fn redact(text: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |w: &mut String, out: &mut String| {
        let hex = w
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase());
        if hex && (w.len() == 64 || w.len() == 12) {
            out.push_str("<sha256>");
        } else {
            out.push_str(w);
        }
        w.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Three C tests of which the weakened LKMM changes one (MP+wmb+rmb), and a PPC one.
fn small_suite(s: &Scratch) {
    s.copy("classic/C/SB+onces.litmus", "t/C/SB+onces.litmus");
    s.copy("classic/C/MP+wmb+rmb.litmus", "t/C/MP+wmb+rmb.litmus");
    s.copy("classic/C/LB+onces.litmus", "t/C/LB+onces.litmus");
    s.copy(
        "classic/PPC/MP+lwsync+addr.litmus",
        "t/PPC/MP+lwsync+addr.litmus",
    );
}

#[test]
fn the_snapshot_format() {
    let s = Scratch::new("format");
    small_suite(&s);
    let o = s.run(&["snapshot", "record", "t"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let c = s.read("t/C/litmus.snap");
    let ppc = s.read("t/PPC/litmus.snap");
    insta::assert_snapshot!(
        "format_shipped",
        format!("{c}\n=== t/PPC/litmus.snap\n{ppc}")
    );
    // Recording again gives the same bytes.
    s.run(&["snapshot", "record", "t"]);
    assert_eq!(s.read("t/C/litmus.snap"), c);
    // A model from files: how to load it again, and every file it loaded, hashed.
    s.lkmm_copy();
    let o = s.run(&["snapshot", "record", "--conf", "model/edited.cfg", "t/C"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = s.read("t/C/litmus.snap");
    let header: String = text.split("\n\n").next().unwrap().to_string();
    insta::assert_snapshot!("format_files", redact(&header));
    // Both models' entries are kept, each under its name.
    assert!(text.contains("test SB+onces.litmus\n  model edited.cfg\n"));
    assert!(text.contains("test SB+onces.litmus\n  model lkmm\n"));
}

#[test]
fn a_snapshot_reads_back_as_written() {
    let s = Scratch::new("roundtrip");
    small_suite(&s);
    s.lkmm_copy();
    s.run(&["snapshot", "record", "t"]);
    s.run(&["snapshot", "record", "--conf", "model/edited.cfg", "t/C"]);
    for f in ["t/C/litmus.snap", "t/PPC/litmus.snap"] {
        let text = s.read(f);
        let snap = litmus::snapshot::file::Snapshot::parse(&text, f).unwrap();
        assert_eq!(snap.write(), text);
    }
}

#[test]
fn check_reports_changed_new_and_missing() {
    let s = Scratch::new("check");
    small_suite(&s);
    s.lkmm_copy();
    let o = s.run(&["snapshot", "record", "--conf", "model/edited.cfg", "t/C"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = s.run(&["snapshot", "check", "t/C"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    insta::assert_snapshot!("check_unchanged", stdout(&o));
    assert!(!s.path("t/C/litmus.snap.new").exists());

    s.weaken_hb();
    std::fs::remove_file(s.path("t/C/LB+onces.litmus")).unwrap();
    s.copy("classic/C/MP+rel+acq.litmus", "t/C/MP+rel+acq.litmus");
    let before = s.read("t/C/litmus.snap");
    let o = s.run(&["snapshot", "check", "t/C"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    insta::assert_snapshot!("check_changed", redact(&stdout(&o)));
    // The snapshot is untouched; the changes wait beside it.
    assert_eq!(s.read("t/C/litmus.snap"), before);
    assert!(s.path("t/C/litmus.snap.new").exists());
    let o = s.run(&[
        "snapshot",
        "check",
        "--format",
        "json",
        "--no-pending",
        "t/C",
    ]);
    assert_eq!(o.status.code(), Some(1));
    insta::assert_snapshot!("check_changed_json", redact(&stdout(&o)));
}

#[test]
fn review_from_a_pipe_accepts_and_rejects_each_change() {
    let s = Scratch::new("review");
    small_suite(&s);
    s.lkmm_copy();
    s.run(&["snapshot", "record", "--conf", "model/edited.cfg", "t/C"]);
    s.weaken_hb();
    std::fs::remove_file(s.path("t/C/LB+onces.litmus")).unwrap();
    s.copy("classic/C/MP+rel+acq.litmus", "t/C/MP+rel+acq.litmus");
    assert_eq!(s.run(&["snapshot", "check", "t/C"]).status.code(), Some(1));
    // The items in order: the model's new files, LB (missing), MP+rel+acq (new),
    // MP+wmb+rmb (changed). Accept the model, leave LB pending, reject the new test,
    // accept the change.
    let mut child = bin()
        .current_dir(&s.0)
        .args(["snapshot", "review", "t/C"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"a\ns\nr\na\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    let out = stdout(&o);
    assert!(
        out.contains("review: 2 accepted, 1 rejected, 1 left pending"),
        "{out}"
    );
    assert!(out.contains("missing: the test is gone"), "{out}");
    assert!(out.contains("verdict No Never → Ok Sometimes"), "{out}");
    let snap = s.read("t/C/litmus.snap");
    let mp = snap.split("test MP+wmb+rmb.litmus").nth(1).unwrap();
    assert!(mp.contains("verdict Ok Sometimes"), "{snap}");
    assert!(!snap.contains("MP+rel+acq"));
    assert!(snap.contains("test LB+onces.litmus"));
    let pending = s.read("t/C/litmus.snap.new");
    assert!(pending.contains("test LB+onces.litmus\n  model edited.cfg\n  removed"));
    assert!(!pending.contains("MP+wmb+rmb"));
    // The model's new fingerprint was taken: checking again finds only the new test and
    // the missing one.
    let o = s.run(&["snapshot", "check", "t/C"]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(
        out.contains("2 unchanged, 0 changed, 1 new, 1 missing, 0 errors\n")
            || out.contains("2 unchanged, 0 changed, 1 new, 1 missing, 0 errors;"),
        "{out}"
    );
    assert!(!out.contains("changed since the snapshot"), "{out}");
    // --accept takes the rest; then all is unchanged and no pending file is left.
    let o = s.run(&["snapshot", "review", "--accept", "t/C"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!s.path("t/C/litmus.snap.new").exists());
    let o = s.run(&["snapshot", "check", "t/C"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(!s.read("t/C/litmus.snap").contains("LB+onces"));
}

#[test]
fn review_in_a_terminal_under_tmux() {
    let s = Scratch::new("tmux");
    small_suite(&s);
    s.lkmm_copy();
    s.run(&["snapshot", "record", "--conf", "model/edited.cfg", "t/C"]);
    s.weaken_hb();
    assert_eq!(s.run(&["snapshot", "check", "t/C"]).status.code(), Some(1));
    let cmd = format!(
        "cd {} && {} snapshot review t/C; echo EXIT=$?; sleep 60",
        s.0.display(),
        env!("CARGO_BIN_EXE_litmus")
    );
    let Some(term) = common::terminal::Terminal::start(&s.0, "review", &cmd) else {
        return;
    };
    // The model's new fingerprint, then MP+wmb+rmb's change: accept both.
    let screen = term.wait_for("quit [q]?", 1);
    assert!(screen.contains("the models or the unrolling bound"));
    term.keys(&["a", "Enter"]);
    let screen = term.wait_for("quit [q]?", 2);
    assert!(screen.contains("+ 1:r0=1; 1:r1=0;"), "{screen}");
    term.keys(&["a", "Enter"]);
    let shown = term.wait_for("EXIT=0", 1);
    drop(term);
    assert!(
        shown.contains("review: 2 accepted, 0 rejected, 0 left pending"),
        "{shown}"
    );
    assert!(!s.path("t/C/litmus.snap.new").exists());
    assert_eq!(s.run(&["snapshot", "check", "t/C"]).status.code(), Some(0));
}

#[test]
fn diff_reports_each_state_and_the_check_that_forbids_it() {
    let s = Scratch::new("diff");
    small_suite(&s);
    s.lkmm_copy();
    s.weaken_hb();
    let o = s.run(&[
        "diff",
        "--model",
        "lkmm",
        "--model",
        "model/edited.cfg",
        "t",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    insta::assert_snapshot!("diff_models", stdout(&o));
    // The same models the other way round: the state is removed, the first forbids it.
    let o = s.run(&["diff", "--model", "model/edited.cfg,lkmm", "t/C"]);
    assert!(stdout(&o).contains("- 1:r0=1; 1:r1=0;  lkmm forbids it by happens-before"));
    // Two logs of `litmus check`, as mcompare7 compares herd's.
    for (model, log) in [("lkmm", "lkmm.log"), ("model/edited.cfg", "edited.log")] {
        let o = s.run(&["check", "--model", model, "t/C"]);
        std::fs::write(s.path(log), &o.stdout).unwrap();
    }
    let o = s.run(&["diff", "lkmm.log", "edited.log"]);
    assert_eq!(o.status.code(), Some(1));
    insta::assert_snapshot!("diff_logs", stdout(&o));
    let o = s.run(&["diff", "lkmm.log", "lkmm.log"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

fn judged_arch_c(f: &Path) -> bool {
    parse_file(f).is_ok_and(|t| t.arch == litmus::litmus::ast::Arch::C)
}

/// One suite test's outcome under the shipped LKMM and under the edited copy, judged
/// here through the library (not through `litmus diff` or `snapshot`).
fn judged_both(file: &Path, edited: &model::Loaded) -> Option<(Outcome, Outcome)> {
    let t = parse_file(file).ok()?;
    if t.arch != litmus::litmus::ast::Arch::C {
        return None;
    }
    let lkmm = model::load_shipped("lkmm", &Request::default()).unwrap();
    let o = Options::default();
    let a = judge::run(&t, &lkmm.model, lkmm.macros.as_ref(), &o).unwrap();
    let b = judge::run(&t, &edited.model, edited.macros.as_ref(), &o).unwrap();
    Some((Outcome::of(&t, &a), Outcome::of(&t, &b)))
}

/// The folders of `litmus/` that [`common::suite_files`] walks (relative to the root):
/// `litmus/kernel/`, whose tests are checked through their herd7 pairs at the bounds
/// recorded there (tests/kernel_pairs.rs), is left out.
fn suite_dirs() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("litmus"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir() && e.file_name() != "kernel")
        .map(|e| format!("litmus/{}", e.file_name().to_string_lossy()))
        .collect();
    v.sort();
    v
}

#[test]
fn an_edited_lkmm_changes_exactly_the_tests_it_should() {
    let s = Scratch::new("edited");
    s.lkmm_copy();
    s.weaken_hb();
    let edited = model::load_files(&Request {
        conf: Some(s.path("model/edited.cfg")),
        ..Default::default()
    })
    .unwrap()
    .unwrap();
    // What should change, test by test, judged here.
    let mut expected: BTreeMap<String, Delta> = BTreeMap::new();
    let mut c_tests = 0;
    for f in common::suite_files() {
        let Some((a, b)) = judged_both(&f, &edited) else {
            continue;
        };
        c_tests += 1;
        let d = Delta::between(&a, &b);
        if !d.is_empty() {
            let rel = f.strip_prefix(root()).unwrap().display().to_string();
            expected.insert(rel, d);
        }
    }
    assert!(c_tests > 40, "the suite's C tests: {c_tests}");
    assert!(!expected.is_empty() && expected.len() < c_tests);

    // `litmus diff` reports those tests and no other, each with its states.
    let o = bin()
        .current_dir(root())
        .args(["diff", "--format", "json", "--model", "lkmm", "--model"])
        .arg(s.path("model/edited.cfg"))
        .args(suite_dirs())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut reported: BTreeMap<String, serde_json::Value> = BTreeMap::new();
    for t in v["tests"].as_array().unwrap() {
        reported.insert(t["file"].as_str().unwrap().to_string(), t.clone());
    }
    assert_eq!(
        reported.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (file, d) in &expected {
        let got = &reported[file];
        assert_eq!(got["delta"], serde_json::to_value(d).unwrap(), "{file}");
        // Each state the edit allows is explained by the check of lkmm that forbids it.
        for state in &d.added {
            let why = &got["forbidden_by_first"][state];
            assert!(
                why["checks"][0]["check"].is_string(),
                "{file}: {state}: {why}"
            );
        }
    }
    assert_eq!(v["summary"]["compared"], c_tests);

    // A snapshot of the suite under the copy, checked after the edit: the same tests.
    let s2 = Scratch::new("edited-snap");
    for f in common::suite_files() {
        let rel = f.strip_prefix(root().join("litmus")).unwrap();
        let dest = s2.path("litmus").join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(&f, dest).unwrap();
    }
    s2.lkmm_copy();
    // A model from files judges every test it is given: give it the C folders.
    let c_folders: std::collections::BTreeSet<String> = common::suite_files()
        .iter()
        .filter(|f| judged_arch_c(f))
        .map(|f| {
            let rel = f.parent().unwrap().strip_prefix(root()).unwrap();
            rel.display().to_string()
        })
        .collect();
    let folders: Vec<&str> = c_folders.iter().map(String::as_str).collect();
    let record = [
        &["snapshot", "record", "--conf", "model/edited.cfg"][..],
        &folders,
    ]
    .concat();
    let o = s2.run(&record);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    s2.weaken_hb();
    let check = [&["snapshot", "check", "--format", "json"][..], &folders].concat();
    let o = s2.run(&check);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let changed: BTreeMap<String, serde_json::Value> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "changed")
        .map(|t| (t["file"].as_str().unwrap().to_string(), t["delta"].clone()))
        .collect();
    assert_eq!(
        changed.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (file, d) in &expected {
        assert_eq!(changed[file], serde_json::to_value(d).unwrap(), "{file}");
    }
    assert_eq!(
        v["summary"]["models_changed"],
        c_folders.len(),
        "once per folder"
    );
}

#[test]
fn a_bad_snapshot_is_an_error_naming_its_line() {
    let s = Scratch::new("bad");
    small_suite(&s);
    s.run(&["snapshot", "record", "t"]);
    let p = s.path("t/C/litmus.snap");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace("  witnesses 1 3\n", "  witnesses one\n")).unwrap();
    let o = s.run(&["snapshot", "check", "t"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("litmus.snap:"), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad `witnesses`"), "{}", stderr(&o));
    // record does not overwrite what it cannot read.
    let o = s.run(&["snapshot", "record", "t"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        std::fs::read_to_string(&p)
            .unwrap()
            .contains("witnesses one")
    );
}
