//! Explanations people can act on: an `empty` check names its offending pair and the
//! events between (the LKMM's `atomic` on a lock test: the read and the write of one
//! atomic operation and another thread's write between them), never a made-up cycle; an
//! irreflexive check its event and the cycle through it; an allowed outcome its witness's
//! rf and co, in words and in `--graph`; forbidding cycles as short as the relation
//! allows; the same pair whichever evaluator judged.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn suite() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn litmus(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_litmus"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The explanation `check --explain` prints after herd's block.
fn explanation(o: &Output) -> String {
    let s = stdout(o);
    let at = s.find("\nTime ").expect("a herd block");
    let rest = &s[at + 1..];
    rest[rest.find('\n').unwrap() + 1..].to_string()
}

/// The JSON record of one (file, model).
fn record(dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut a = vec!["check", "--format", "json"];
    a.extend_from_slice(args);
    let o = litmus(dir, &a);
    serde_json::from_str(stdout(&o).lines().next().expect("a record")).expect("JSON")
}

/// A fresh folder of its own for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("litmus-explain-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The event of a record's `forbidden_by` table with this id: (thread, label).
fn event(f: &serde_json::Value, id: u64) -> (Option<u64>, String) {
    let e = f["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .expect("an event of the table");
    (e["proc"].as_u64(), e["label"].as_str().unwrap().to_string())
}

#[test]
fn lkmm_atomic_on_a_lock_test_names_the_rmw_pair_and_the_intervening_write() {
    // lockref's cmpxchg loop against the locked slow path: the outcome where an
    // increment is lost needs the cmpxchg to read the count from before the locked
    // update and write after it.
    let file = "litmus/locks/C/lockref-get+locked-inc.litmus";
    let r = record(&suite(), &[file]);
    assert_eq!(r["observation"], "Never");
    let f = &r["forbidden_by"];
    assert_eq!(f["check"], "atomic", "{f}");
    assert_eq!(f["kind"], "empty", "{f}");
    // The pair: the read and the write of one atomic operation (one thread's RMW).
    let pair = f["pair"].as_array().expect("a pair");
    let (read, write) = (pair[0].as_u64().unwrap(), pair[1].as_u64().unwrap());
    let (rp, rl) = event(f, read);
    let (wp, wl) = event(f, write);
    assert_eq!(rp, wp, "{f}");
    assert!(rl.starts_with("R[") && rl.contains("RMW"), "{rl}");
    assert!(wl.starts_with("W[") && wl.contains("RMW"), "{wl}");
    // Between them: fr to another thread's write, which is co-before the RMW's write.
    let between = f["between"].as_array().expect("the events between");
    assert_eq!(between.len(), 2, "{f}");
    assert_eq!(between[0]["event"], read);
    assert_eq!(between[0]["via"], "fr");
    let (op, ol) = event(f, between[1]["event"].as_u64().unwrap());
    assert!(op.is_some() && op != rp && ol.starts_with("W"), "{f}");
    assert_eq!(between[1]["via"], "co");
    // No step named by the check alone, as the anticipating `acyclic ... as atomic`
    // of the model's judging run would give.
    assert!(f["cycle"].as_array().unwrap().is_empty(), "{f}");
    // In words, as --explain prints it.
    let o = litmus(&suite(), &["check", "--explain", file]);
    let text = explanation(&o);
    assert!(
        text.starts_with("Forbidden by atomic, whose relation must be empty and relates\n"),
        "{text}"
    );
    assert!(text.contains("with, between them:\n"), "{text}");
    assert!(
        text.contains("    --fr-->\n") && text.contains("    --co-->\n"),
        "{text}"
    );
    assert!(!text.contains("(atomic)"), "{text}");
    assert!(text.contains("\nin the execution where\n  rf: "), "{text}");
    assert!(text.contains("\n  co: "), "{text}");
}

#[test]
fn an_empty_check_pair_is_the_same_from_plans_the_interpreter_and_the_reference() {
    // armv8.cat's own `empty rmw & (fre; coe) as atomic` judges this one directly: two
    // exclusive pairs that both succeed on the value they both read.
    let s = Scratch::new("exclusives");
    s.file(
        "excl.litmus",
        "AArch64 LDXR-STXR-twice\n{\n0:X1=x;\n1:X1=x;\n}\n \
         P0              | P1              ;\n \
         LDXR W0,[X1]    | LDXR W0,[X1]    ;\n \
         ADD W0,W0,#1    | ADD W0,W0,#1    ;\n \
         STXR W2,W0,[X1] | STXR W2,W0,[X1] ;\n\
         exists (0:X2=0 /\\ 1:X2=0 /\\ x=1)\n",
    );
    let why = |extra: &[&str]| {
        let mut a = extra.to_vec();
        a.push("excl.litmus");
        let r = record(&s.0, &a);
        let f = r["forbidden_by"].clone();
        (f["check"].clone(), f["pair"].clone(), f["between"].clone())
    };
    let plans = why(&[]);
    assert_eq!(plans.0, "atomic");
    assert!(plans.1.is_array(), "{plans:?}");
    assert_eq!(plans.2.as_array().map(Vec::len), Some(2), "{plans:?}");
    assert_eq!(why(&["--no-bound"]), plans, "the interpreter");
    assert_eq!(why(&["--reference"]), plans, "the reference evaluator");
}

#[test]
fn an_irreflexive_check_names_its_event_and_the_cycle_through_it() {
    let file = "litmus/classic/PPC/MP+lwsync+addr.litmus";
    let r = record(&suite(), &[file]);
    let f = &r["forbidden_by"];
    assert_eq!(f["kind"], "irreflexive", "{f}");
    let pair = f["pair"].as_array().unwrap();
    assert_eq!(pair[0], pair[1]);
    let cycle = f["cycle"].as_array().unwrap();
    assert_eq!(cycle[0]["event"], pair[0], "the cycle starts at the event");
    let text = explanation(&litmus(&suite(), &["check", "--explain", file]));
    assert!(
        text.starts_with(
            "Forbidden by observation, whose relation must be irreflexive and relates \
             P1: R x=0 to itself, through the cycle:\n"
        ),
        "{text}"
    );
}

#[test]
fn the_forbidding_cycle_is_as_short_as_the_checks_relation_allows() {
    // Ten reads of x in a row, the last going back to the initial value: coherence's
    // relation has a cycle through every read, and one through the first and last.
    let s = Scratch::new("corr");
    let reads: String = (0..10)
        .map(|i| format!("  r{i} = READ_ONCE(*x);\n"))
        .collect();
    let decl: Vec<String> = (0..10).map(|i| format!("r{i}")).collect();
    s.file(
        "corr.litmus",
        &format!(
            "C CoRR-long\n{{}}\nP0(int *x) {{ WRITE_ONCE(*x, 1); }}\n\
             P1(int *x) {{\n  int {};\n{reads}}}\nexists (1:r0=1 /\\ 1:r9=0)\n",
            decl.join(", ")
        ),
    );
    let r = record(&s.0, &["corr.litmus"]);
    let f = &r["forbidden_by"];
    assert_eq!(f["check"], "coherence", "{f}");
    let via: Vec<&str> = f["cycle"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["via"].as_str().unwrap())
        .collect();
    assert_eq!(via.len(), 3, "{f}");
    for rel in ["rf", "po", "fr"] {
        assert!(via.contains(&rel), "{via:?}");
    }
}

#[test]
fn an_allowed_outcome_is_explained_by_its_witness_rf_and_co_in_words_and_in_the_graph() {
    let s = Scratch::new("witness");
    let file = "litmus/classic/C/2+2W+onces.litmus";
    let o = litmus(&suite(), &["check", "--explain", file]);
    let text = explanation(&o);
    assert!(
        text.starts_with("Allowed: the first execution found that reaches it has\n"),
        "{text}"
    );
    // Each location's last write is the one the condition names: y=1 and x=1.
    assert!(text.contains("  co: y=2 (P0) before y=1 (P1)\n"), "{text}");
    assert!(text.contains("      x=2 (P1) before x=1 (P0)\n"), "{text}");
    // The graph: the witness's rf and co bold, its words in a note.
    let dir = s.0.display().to_string();
    let o = litmus(&suite(), &["check", "--graph", &dir, file]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dot = std::fs::read_dir(&s.0)
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "dot"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("a DOT file");
    assert!(dot.contains(": allowed (lkmm)"), "{dot}");
    assert!(
        dot.contains("label=\"co\", color=blue, fontcolor=blue, penwidth=3"),
        "{dot}"
    );
    assert!(
        dot.contains("note [shape=note") && dot.contains("co: y=2 (P0) before y=1 (P1)"),
        "{dot}"
    );
    // JSON: the witness's words too.
    let r = record(&suite(), &[file]);
    let words = r["witness"]["words"].as_array().expect("words");
    assert!(
        words
            .iter()
            .any(|w| w.as_str().unwrap().starts_with("co: ")),
        "{r}"
    );
}

#[test]
fn the_forbidden_graph_draws_the_pair_and_the_events_between_bold() {
    let s = Scratch::new("graph");
    let dir = s.0.display().to_string();
    let file = "litmus/locks/C/lockref-get+locked-inc.litmus";
    let o = litmus(&suite(), &["check", "--graph", &dir, file]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let path = s.0.join("lockref-get+locked-inc.lkmm.dot");
    let dot = std::fs::read_to_string(&path).expect("the DOT file");
    assert!(dot.contains(": forbidden by atomic (lkmm)"), "{dot}");
    for rel in ["fr", "co", "rmw"] {
        assert!(
            dot.lines()
                .any(|l| l.contains(&format!("label=\"{rel}\"")) && l.contains("penwidth=3")),
            "{rel} bold:\n{dot}"
        );
    }
    assert!(
        dot.contains("whose relation must be empty and relates"),
        "{dot}"
    );
}

#[test]
fn explanations_of_the_lock_suite_snapshot() {
    // Why each lock test's outcome is what it is under the LKMM, as --explain says it
    // (herd's blocks and their Time lines left out).
    let o = litmus(&suite(), &["check", "--explain", "litmus/locks/C"]);
    let mut text = String::new();
    let mut keep = false;
    for line in stdout(&o).lines() {
        if let Some(name) = line.strip_prefix("Test ") {
            text += &format!("== {}\n", name.split(' ').next().unwrap_or(name));
            keep = false;
        } else if line.starts_with("Time ") {
            keep = true;
        } else if keep {
            text += line;
            text.push('\n');
        }
    }
    insta::assert_snapshot!("explanations_locks_lkmm", text);
}
