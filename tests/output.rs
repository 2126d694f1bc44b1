//! What the command line prints around its answers: one error format everywhere
//! (`file:line:col: error: message` and the line), warnings for likely mistakes, JSON
//! records, tables and batch summaries, shards merged back.

mod common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_litmus"))
}

/// A fresh folder of its own for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("litmus-output-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
    fn file(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the binary in `dir` (so that paths print as given).
fn run(dir: &Path, args: &[&str]) -> Output {
    bin().current_dir(dir).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const SB: &str = "C SB\n{}\nP0(int *x, int *y) { WRITE_ONCE(*x, 1); int r0 = READ_ONCE(*y); }\n\
P1(int *x, int *y) { WRITE_ONCE(*y, 1); int r1 = READ_ONCE(*x); }\nexists (0:r0=0 /\\ 1:r1=0)\n";

/// The first line of a diagnostic is `FILE:LINE:COL: error: ` and the source line follows.
fn assert_located(err: &str, prefix: &str, line_text: &str) {
    assert!(err.starts_with(prefix), "expected `{prefix}...` in:\n{err}");
    assert!(
        err.contains(line_text),
        "source line `{line_text}` not shown in:\n{err}"
    );
    assert!(err.contains('^'), "no caret in:\n{err}");
}

#[test]
fn unknown_macro_is_located_without_a_space_after_the_file() {
    let s = Scratch::new("macro");
    s.file(
        "mac.litmus",
        "C mac\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nP1(int *x) {\n  int r1 = READ_ONCE(*x);\n  frob(x);\n}\nexists (1:r1=0)\n",
    );
    let o = run(&s.0, &["check", "mac.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert_located(
        &stderr(&o),
        "mac.litmus:6:3: error: P1: unknown macro `frob`",
        "frob(x);",
    );
}

#[test]
fn unknown_ppc_instruction_is_shown_as_written_not_as_rust_debug_text() {
    let s = Scratch::new("ppc");
    s.file(
        "bad.litmus",
        "PPC bad\n{ 0:r3=x; }\n P0           ;\n lwzx r5,r3   ;\nexists (0:r5=0)\n",
    );
    let o = run(&s.0, &["check", "bad.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_located(
        &err,
        "bad.litmus:4:2: error: P0: unsupported instruction or operands: `lwzx r5,r3`",
        "lwzx r5,r3",
    );
    assert!(!err.contains("Reg(\""), "Rust debug text in: {err}");
}

#[test]
fn parse_errors_use_the_same_format() {
    let s = Scratch::new("parse");
    s.file(
        "semi.litmus",
        "C semi\n{}\nP0(int *x) { WRITE_ONCE(*x, 1) }\nexists (x=0)\n",
    );
    let o = run(&s.0, &["check", "semi.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    assert_located(
        &stderr(&o),
        "semi.litmus:3:32: error: expected `;`",
        "WRITE_ONCE(*x, 1) }",
    );
}

#[test]
fn number_too_large_is_reported_as_such() {
    let s = Scratch::new("big");
    s.file(
        "big.litmus",
        "C big\n{}\nP0(int *x) { WRITE_ONCE(*x, 99999999999999999999999); }\nexists (x=0)\n",
    );
    let o = run(&s.0, &["check", "big.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_located(
        &err,
        "big.litmus:3:29: error: number too large for a 64-bit integer: `99999999999999999999999`",
        "WRITE_ONCE(*x, 9999",
    );
    assert!(!err.contains("expected an expression"), "{err}");
}

#[test]
fn cat_errors_say_error_once_with_the_line() {
    let s = Scratch::new("cat");
    s.file("bad.cat", "\"bad\"\nlet x = po |\nacyclic x\n");
    s.file("sb.litmus", SB);
    let o = run(&s.0, &["check", "--cat", "bad.cat", "sb.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("bad.cat:3:1: error: expected an expression"),
        "{err}"
    );
    assert!(err.contains(" 3 | acyclic x"), "{err}");
    assert_eq!(err.matches("error").count(), 1, "{err}");
}

#[test]
fn missing_cat_file_is_reported_at_the_cfg_line_that_names_it() {
    let s = Scratch::new("cfg");
    s.file("miss.cfg", "# a comment\nmodel nosuch.cat\n");
    s.file("sb.litmus", SB);
    let o = run(&s.0, &["check", "--conf", "miss.cfg", "sb.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("miss.cfg:2:7: error: cannot find model file nosuch.cat"),
        "{err}"
    );
    assert!(err.contains(" 2 | model nosuch.cat"), "{err}");
    assert!(!err.contains(":0:0"), "{err}");
}

#[test]
fn unreadable_and_missing_files_name_the_file_first() {
    let s = Scratch::new("unreadable");
    std::fs::write(s.0.join("nu.litmus"), b"C x\xff\n").unwrap();
    let o = run(&s.0, &["check", "nu.litmus", "gone.litmus"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("nu.litmus:1:4: error: not UTF-8 text (byte 0xff)"),
        "{err}"
    );
    assert!(err.contains("gone.litmus: error: "), "{err}");
}

/// The answer's block, the same whether or not there are warnings.
fn observation(o: &Output) -> String {
    stdout(o)
        .lines()
        .find(|l| l.starts_with("Observation"))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn condition_register_no_thread_sets_is_warned_at_the_condition() {
    let s = Scratch::new("reg");
    s.file("sb.litmus", &SB.replace("1:r1=0", "1:r2=0"));
    let o = run(&s.0, &["check", "sb.litmus"]);
    assert_eq!(o.status.code(), Some(0), "warnings change no exit status");
    let err = stderr(&o);
    assert!(
        err.contains("sb.litmus:5:19: warning: the condition reads `1:r2`, which P1 never sets"),
        "{err}"
    );
    assert!(err.contains(" 5 | exists (0:r0=0 /\\ 1:r2=0)"), "{err}");
    // Still herd's answer: the typo reads as 0.
    assert_eq!(observation(&o), "Observation SB Sometimes 2 2");
    // The right register: no warning.
    s.file("ok.litmus", SB);
    let o = run(&s.0, &["check", "ok.litmus"]);
    assert_eq!(stderr(&o), "");
}

#[test]
fn condition_location_or_thread_that_does_not_exist_is_warned() {
    let s = Scratch::new("loc");
    s.file(
        "loc.litmus",
        "C loc\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (z=1 \\/ x=1 \\/ 2:r0=1)\n",
    );
    let o = run(&s.0, &["check", "loc.litmus"]);
    assert_eq!(o.status.code(), Some(0));
    let err = stderr(&o);
    assert!(
        err.contains(
            "loc.litmus:4:9: warning: the condition reads location `z`, which no thread accesses"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "loc.litmus:4:23: warning: the condition names `2:r0`, but there is no thread P2"
        ),
        "{err}"
    );
    assert!(!err.contains("`x`"), "x is written by P0: {err}");
}

#[test]
fn executions_lost_to_division_by_zero_or_null_dereference_are_warned_with_the_reason() {
    let s = Scratch::new("ub");
    s.file(
        "div.litmus",
        "C div\n{}\nP0(int *x) {\n  int r0 = READ_ONCE(*x);\n  int r1 = 10 / r0;\n}\nexists (0:r0=0)\n",
    );
    s.file(
        "nul.litmus",
        "C nul\n{}\nP0(int **p) {\n  int *r0 = READ_ONCE(*p);\n  int r1 = READ_ONCE(*r0);\n}\nexists (0:r1=0)\n",
    );
    for (f, why, line) in [
        ("div.litmus", "division by zero", " 5 |   int r1 = 10 / r0;"),
        (
            "nul.litmus",
            "NULL dereference",
            " 5 |   int r1 = READ_ONCE(*r0);",
        ),
    ] {
        let o = run(&s.0, &["check", f]);
        assert_eq!(o.status.code(), Some(0), "{f}");
        let err = stderr(&o);
        assert!(
            err.contains(&format!(
                "{f}:5:7: warning: no execution is left: runs are dropped for undefined behaviour (P0: {why})"
            )),
            "{err}"
        );
        assert!(err.contains(line), "{err}");
        // herd's answer is unchanged.
        assert!(
            observation(&o).ends_with("Never 0 0"),
            "{f}: {}",
            stdout(&o)
        );
    }
}

/// The crate's own suite of tests.
fn suite() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// JSON lines parsed.
fn records(o: &Output) -> Vec<serde_json::Value> {
    stdout(o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Records without what changes from run to run (seconds, herd's `Time` line).
fn steady(mut v: serde_json::Value) -> serde_json::Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("seconds");
        if let Some(h) = o.get("herd").and_then(|h| h.as_str()) {
            let h: String = h
                .lines()
                .filter(|l| !l.starts_with("Time "))
                .map(|l| format!("{l}\n"))
                .collect();
            o.insert("herd".into(), h.into());
        }
    }
    v
}

#[test]
fn json_has_one_record_per_file_and_model_even_for_errors_and_timeouts() {
    let s = Scratch::new("json");
    s.file("sb.litmus", SB);
    s.file(
        "semi.litmus",
        "C semi\n{}\nP0(int *x) { WRITE_ONCE(*x, 1) }\nexists (x=0)\n",
    );
    let o = run(
        &s.0,
        &[
            "check",
            "--format",
            "json",
            "--model",
            "lkmm,lkmm",
            "sb.litmus",
            "semi.litmus",
        ],
    );
    let rs = records(&o);
    assert_eq!(rs.len(), 4, "{}", stdout(&o));
    let status: Vec<(&str, &str)> = rs
        .iter()
        .map(|r| (r["file"].as_str().unwrap(), r["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        status,
        [
            ("sb.litmus", "ok"),
            ("sb.litmus", "ok"),
            ("semi.litmus", "error"),
            ("semi.litmus", "error")
        ]
    );
    assert_eq!(rs[2]["message"], "expected `;`, found `}`");
    assert_eq!(
        (rs[2]["line"].as_u64(), rs[2]["col"].as_u64()),
        (Some(3), Some(32))
    );
    // States are maps from location to value.
    let states = rs[0]["states"].as_array().unwrap();
    assert_eq!(states.len(), 4);
    assert!(
        states.iter().any(|m| m["0:r0"] == 0 && m["1:r1"] == 0),
        "{states:?}"
    );
    // A timeout is a record too, with how far it got.
    let o = run(
        &s.0,
        &[
            "check",
            "--format",
            "json",
            "--timeout",
            "0.000000001",
            "sb.litmus",
        ],
    );
    let rs = records(&o);
    assert_eq!(rs.len(), 1);
    assert_eq!(rs[0]["status"], "timeout");
    assert!(rs[0]["message"].as_str().unwrap().contains("timed out"));
}

#[test]
fn json_cycles_and_witnesses_refer_to_an_events_table() {
    let f = suite().join("litmus/classic/C/SB+mbs.litmus");
    let o = run(
        &suite(),
        &["check", "--format", "json", f.to_str().unwrap()],
    );
    let r = &records(&o)[0];
    let fb = &r["forbidden_by"];
    let events = fb["events"].as_array().unwrap();
    let cycle = fb["cycle"].as_array().unwrap();
    assert!(!cycle.is_empty(), "{r}");
    for step in cycle {
        let id = step["event"].as_u64().unwrap() as usize;
        assert_eq!(events[id]["id"], id as u64);
        assert!(events[id]["label"].is_string());
    }
    let f = suite().join("litmus/classic/C/SB+onces.litmus");
    let o = run(
        &suite(),
        &["check", "--format", "json", f.to_str().unwrap()],
    );
    let w = &records(&o)[0]["witness"];
    let n = w["events"].as_array().unwrap().len() as u64;
    let edges = w["edges"].as_array().unwrap();
    assert!(edges.iter().any(|e| e["rel"] == "rf"));
    assert!(
        edges
            .iter()
            .all(|e| e["from"].as_u64() < Some(n) && e["to"].as_u64() < Some(n))
    );
}

#[test]
fn json_records_of_the_suite_snapshot() {
    let o = run(
        &suite(),
        &["check", "--format", "json", "litmus/classic/X86"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<String> = records(&o)
        .into_iter()
        .map(|r| steady(r).to_string())
        .collect();
    insta::assert_snapshot!("json_classic_x86", lines.join("\n"));
}

#[test]
fn table_of_the_suite_snapshot() {
    let o = run(
        &suite(),
        // The C rows without their compiled forms, which take minutes at --unroll 2
        // on the whole suite (tests/hardware.rs checks those, and snapshots litmus/locks).
        &[
            "check",
            "--model",
            "all",
            "--mapping",
            "none",
            "--format",
            "table",
            "litmus",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    insta::assert_snapshot!("table_suite", stdout(&o));
}

#[test]
fn table_rows_are_files_and_clashing_names_show_paths() {
    let s = Scratch::new("clash");
    s.file("a/sb.litmus", SB);
    s.file(
        "b/sb.litmus",
        &SB.replace(
            "WRITE_ONCE(*x, 1); int r0",
            "WRITE_ONCE(*x, 1); smp_mb(); int r0",
        )
        .replace(
            "WRITE_ONCE(*y, 1); int r1",
            "WRITE_ONCE(*y, 1); smp_mb(); int r1",
        ),
    );
    let o = run(
        &s.0,
        &["check", "--format", "table", "--model", "lkmm", "a", "b"],
    );
    let out = stdout(&o);
    let rows: Vec<&str> = out.lines().skip(2).take(2).collect();
    assert!(
        rows[0].starts_with("a/sb.litmus") && rows[0].contains("allowed (4 states)"),
        "{out}"
    );
    assert!(
        rows[1].starts_with("b/sb.litmus") && rows[1].contains("forbidden (3 states)"),
        "{out}"
    );
    assert!(!out.contains("SB: "), "rows merged by name: {out}");
}

#[test]
fn table_says_timeout_data_race_one_state_and_sums_up_the_batch() {
    let s = Scratch::new("table");
    s.file("sb.litmus", SB);
    // Plain accesses racing: the LKMM flags a data race.
    s.file(
        "race.litmus",
        &SB.replace("WRITE_ONCE(*x, 1)", "*x = 1")
            .replace("READ_ONCE(*x)", "*x"),
    );
    s.file(
        "one.litmus",
        "C one\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n",
    );
    s.file(
        "semi.litmus",
        "C semi\n{}\nP0(int *x) { WRITE_ONCE(*x, 1) }\nexists (x=0)\n",
    );
    let o = run(
        &s.0,
        &[
            "check",
            "--format",
            "table",
            "--model",
            "lkmm",
            "sb.litmus",
            "race.litmus",
            "one.litmus",
            "semi.litmus",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(out.contains("allowed (4 states, data race)"), "{out}");
    assert!(out.contains("allowed (1 state)"), "{out}");
    assert!(
        out.contains("semi.litmus  error") || out.contains("semi  "),
        "{out}"
    );
    assert!(
        out.contains("data race: the model flags one"),
        "no legend: {out}"
    );
    assert!(
        out.ends_with("4 files: 3 judged, 1 error, 0 timeouts, 0 mismatches\n"),
        "{out}"
    );
    let o = run(
        &s.0,
        &[
            "check",
            "--format",
            "table",
            "--model",
            "lkmm",
            "--timeout",
            "0.000000001",
            "sb.litmus",
        ],
    );
    let out = stdout(&o);
    assert!(out.lines().nth(2).unwrap().ends_with("timeout"), "{out}");
    assert!(
        out.ends_with("1 file: 0 judged, 0 errors, 1 timeout, 0 mismatches\n"),
        "{out}"
    );
}

#[test]
fn table_summary_counts_answers_that_contradict_their_result_comment() {
    let s = Scratch::new("mismatch");
    s.file(
        "sb.litmus",
        &SB.replace("{}\n", "(* Result: Never *)\n{}\n"),
    );
    let o = run(
        &s.0,
        &["check", "--format", "table", "--model", "lkmm", "sb.litmus"],
    );
    assert!(
        stdout(&o).ends_with("1 file: 1 judged, 0 errors, 0 timeouts, 1 mismatch\n"),
        "{}",
        stdout(&o)
    );
}

/// herd blocks without their `Time` lines (the only thing two runs may differ in).
fn timeless(herd: &str) -> String {
    herd.lines()
        .filter(|l| !l.starts_with("Time "))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn shards_are_deterministic_whatever_order_the_files_are_given_in() {
    let files = ["litmus/classic/X86", "litmus/classic/PPC"];
    let picked = |args: &[&str]| -> Vec<String> {
        let o = run(&suite(), args);
        records(&o)
            .iter()
            .map(|r| format!("{} {}", r["index"], r["file"]))
            .collect()
    };
    let mut all = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let a = picked(&[
            "check", "--format", "jsonl", "--shard", &shard, files[0], files[1],
        ]);
        let b = picked(&[
            "check", "--format", "jsonl", "--shard", &shard, files[1], files[0],
        ]);
        let names = |v: &[String]| -> Vec<String> {
            let mut n: Vec<String> = v
                .iter()
                .map(|l| l.split_once(' ').unwrap().1.to_string())
                .collect();
            n.sort();
            n
        };
        assert_eq!(
            names(&a),
            names(&b),
            "shard {shard} depends on the order of the paths"
        );
        assert!(!a.is_empty());
        all.extend(names(&a));
    }
    let whole = picked(&["check", "--format", "jsonl", files[0], files[1]]);
    all.sort();
    let mut want: Vec<String> = whole
        .iter()
        .map(|l| l.split_once(' ').unwrap().1.to_string())
        .collect();
    want.sort();
    assert_eq!(all, want, "the shards do not split the batch exactly");
    let o = run(&suite(), &["check", "--shard", "5/4", files[0]]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("1 <= K <= N"), "{}", stderr(&o));
}

#[test]
fn four_shards_through_gnu_parallel_merge_into_the_unsharded_output() {
    let name = "four_shards_through_gnu_parallel_merge_into_the_unsharded_output";
    if !common::skip::program(name, "parallel", &["--version"], Some("GNU parallel")) {
        return;
    }
    let parallel = "parallel";
    let s = Scratch::new("shards");
    let bin = env!("CARGO_BIN_EXE_litmus");
    let paths = "litmus/classic litmus/locks litmus/primitives";
    let whole = |format: &str| {
        let mut args = vec!["check", "--format", format];
        args.extend(paths.split(' '));
        run(&suite(), &args)
    };
    let out = s.0.display().to_string();
    let o = Command::new(parallel)
        .current_dir(suite())
        .args(["-j", "4", "--halt", "now,fail=1"])
        .arg(format!(
            "{bin} check --shard {{}}/4 --format jsonl {paths} > {out}/shard{{}}.jsonl"
        ))
        .args([":::", "1", "2", "3", "4"])
        .output()
        .unwrap();
    assert!(o.status.success(), "parallel: {}", stderr(&o));
    let shards: Vec<String> = (1..=4).map(|k| format!("{out}/shard{k}.jsonl")).collect();
    for f in &shards {
        assert!(std::fs::metadata(f).unwrap().len() > 0, "{f} is empty");
    }
    let report = |format: &str| {
        let mut args = vec!["report", "--format", format];
        args.extend(shards.iter().map(String::as_str));
        run(&suite(), &args)
    };
    // The table has no timings: byte for byte the same.
    let (merged, unsharded) = (report("table"), whole("table"));
    assert_eq!(merged.status.code(), unsharded.status.code());
    assert_eq!(stdout(&merged), stdout(&unsharded));
    // herd's blocks: the same but for each run's own `Time` lines.
    let (merged, unsharded) = (report("herd"), whole("herd"));
    assert_eq!(timeless(&stdout(&merged)), timeless(&stdout(&unsharded)));
    assert!(stdout(&merged).contains("Test SB+mbs Allowed"));
    // The records merged are the unsharded run's, in its order.
    let strip =
        |o: &Output| -> Vec<serde_json::Value> { records(o).into_iter().map(steady).collect() };
    assert_eq!(strip(&report("jsonl")), strip(&whole("jsonl")));
}

#[test]
fn the_progress_bar_counts_each_file_once_whatever_the_models() {
    // The bar's length is the batch's files and each file moves it once, judged under
    // every model of a table or not parsed at all; records come back in the files'
    // order though the batch judges them in its own.
    use litmus::batch::{self, Choice, Models, Settings};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let s = Scratch::new("progress");
    let bad = s.file(
        "bad.litmus",
        "C bad\n{}\nP0(int *x) { frob(x); }\nexists (x=1)\n",
    );
    let mut files: Vec<PathBuf> = [
        "litmus/classic/C/SB+onces.litmus",
        "litmus/classic/PPC/MP+lwsync+addr.litmus",
        "litmus/classic/X86/SB.litmus",
        "litmus/classic/AArch64/LB.litmus",
    ]
    .iter()
    .map(|f| suite().join(f))
    .collect();
    files.insert(2, bad);
    let models = Models::load(
        Choice::named(litmus::model::all_names()),
        &Default::default(),
    )
    .unwrap();
    let load = |p: &Path| -> Result<litmus::litmus::ast::Test, litmus::report::diag::Diagnostic> {
        let src = litmus::litmus::read_source(p).map_err(|e| {
            litmus::report::diag::Diagnostic::error(p.display().to_string(), None, e.to_string())
        })?;
        litmus::litmus::parse(&src).map_err(|e| {
            litmus::report::diag::Diagnostic::error(p.display().to_string(), None, e.to_string())
        })
    };
    let settings = Settings {
        options: Default::default(),
        timeout: None,
        max_memory: None,
    };
    let done = AtomicUsize::new(0);
    let count = || {
        done.fetch_add(1, Ordering::Relaxed);
    };
    // Shuffled or not, on the pool or not: the records in the files' order.
    for (parallel, shuffled) in [(false, true), (false, false), (true, true), (true, false)] {
        done.store(0, Ordering::Relaxed);
        let run = batch::Run {
            parallel,
            shuffled,
            done: &count,
        };
        let records = batch::run(&files, &load, &models, &settings, run);
        assert_eq!(done.load(Ordering::Relaxed), files.len());
        let columns = models.columns().len();
        assert_eq!(records.len(), files.len() * columns);
        let order: Vec<&PathBuf> = records.iter().step_by(columns).map(|r| &r.file).collect();
        assert_eq!(order, files.iter().collect::<Vec<_>>());
    }
    assert_ne!(
        batch::schedule(&files),
        (0..files.len()).collect::<Vec<_>>(),
        "judged in an order of its own"
    );
}

#[test]
fn the_batch_order_samples_every_folder_so_the_time_left_holds() {
    // Two folders of 50 tests each, one of them slow: in the order the batch judges
    // them, every stretch of files mixes both, so the mean time per file so far predicts
    // the rest; and the same files always go in the same order, whatever order given.
    let files: Vec<PathBuf> = (0..100)
        .map(|i| PathBuf::from(format!("{}/T{i:02}.litmus", ["fast", "slow"][i / 50])))
        .collect();
    let order = litmus::batch::schedule(&files);
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(sorted, (0..100).collect::<Vec<_>>(), "a permutation");
    for start in (0..100).step_by(20) {
        let slow = order[start..start + 20]
            .iter()
            .filter(|&&i| i >= 50)
            .count();
        assert!(
            (4..=16).contains(&slow),
            "files {start}..: {slow} of 20 slow"
        );
    }
    let mut reversed = files.clone();
    reversed.reverse();
    let again: Vec<&PathBuf> = litmus::batch::schedule(&reversed)
        .into_iter()
        .map(|i| &reversed[i])
        .collect();
    assert_eq!(again, order.iter().map(|&i| &files[i]).collect::<Vec<_>>());
}

#[test]
fn herd_and_json_output_leave_stdout_alone_and_sum_up_the_batch_on_stderr() {
    let two = [
        "litmus/classic/C/SB+onces.litmus",
        "litmus/classic/C/MP+onces.litmus",
    ];
    for format in ["herd", "json", "jsonl"] {
        let mut args = vec!["check", "--format", format];
        args.extend(two);
        let o = run(&suite(), &args);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            stderr(&o),
            "2 files: 2 judged, 0 errors, 0 timeouts, 0 mismatches\n",
            "{format}"
        );
        assert!(!stdout(&o).contains("files:"), "{format}");
    }
    // herd's blocks, byte for byte as one file at a time gives them (no summary: the
    // kernel's scripts run one file per call and keep stderr with the output).
    let o = run(&suite(), &["check", two[0]]);
    assert_eq!(stderr(&o), "");
    let one = stdout(&o);
    let both = stdout(&run(&suite(), &["check", two[0], two[1]]));
    assert!(both.starts_with(&timeless(&one)[..one.find("Time").unwrap()]));
    // A table has its summary in it, on stdout.
    let o = run(&suite(), &["check", "--format", "table", two[0], two[1]]);
    assert_eq!(stderr(&o), "");
    assert!(stdout(&o).ends_with("2 files: 2 judged, 0 errors, 0 timeouts, 0 mismatches\n"));
}

#[test]
fn a_folder_with_no_tests_beside_other_inputs_is_a_warning_and_alone_an_error() {
    let s = Scratch::new("no-tests");
    std::fs::create_dir_all(s.0.join("empty")).unwrap();
    s.file("notes/README", "not a test\n");
    let test = suite().join("litmus/classic/C/SB+onces.litmus");
    let test = test.to_str().unwrap();
    let o = run(&s.0, &["check", test, "empty", "notes"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("empty: warning: no *.litmus files in this folder (no tests to check)\n"),
        "{err}"
    );
    assert!(err.contains("notes: warning: no *.litmus files"), "{err}");
    assert!(stdout(&o).contains("Test SB+onces Allowed"));
    // Alone, nothing is checked: an error.
    let o = run(&s.0, &["check", "empty"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("empty: error: no *.litmus files in this folder"));
}

#[test]
fn summary_of_the_suite_snapshot() {
    // What `check` prints on stderr after JSON records of the classic shapes, every
    // architecture (the whole suite's table, with its summary, is snapshot above).
    let o = run(&suite(), &["check", "--format", "jsonl", "litmus/classic"]);
    insta::assert_snapshot!("summary_suite", stderr(&o));
}

/// A loop the unrolling bound cuts: one test checked alone says so on its own line; a
/// batch says it once, with how many tests, and `-v` names each.
#[test]
fn runs_cut_by_the_unrolling_bound_are_one_warning_in_a_batch() {
    let s = Scratch::new("cut");
    let spin = "C spin\n{}\nP0(int *x) { while (READ_ONCE(*x) == 0) ; }\n\
P1(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n";
    s.file("a.litmus", spin);
    s.file("b.litmus", &spin.replace("C spin", "C spin2"));
    s.file("sb.litmus", SB);
    let alone = run(&s.0, &["check", "a.litmus"]);
    let err = stderr(&alone);
    assert!(
        err.contains("a.litmus: warning: unrolling limit exceeded (--unroll 2)"),
        "{err}"
    );
    let batch = run(&s.0, &["check", "a.litmus", "b.litmus", "sb.litmus"]);
    let err = stderr(&batch);
    let cut: Vec<&str> = err.lines().filter(|l| l.contains("--unroll")).collect();
    assert_eq!(
        cut,
        ["warning: 2 tests cut by --unroll 2, legal outcomes may be missing (-v lists them)"],
        "{err}"
    );
    let verbose = run(&s.0, &["check", "-v", "a.litmus", "b.litmus", "sb.litmus"]);
    let err = stderr(&verbose);
    for f in ["a.litmus", "b.litmus"] {
        assert!(
            err.contains(&format!("{f}: warning: unrolling limit")),
            "{err}"
        );
    }
    assert!(!err.contains("sb.litmus: warning"), "{err}");
}

/// An output asked for and not made is an error of the batch: in the exit status and in
/// the summary's count.
#[test]
fn graphs_not_drawn_are_counted_as_errors() {
    let s = Scratch::new("svg");
    s.file("sb.litmus", SB);
    s.file("sb2.litmus", &SB.replace("C SB", "C SB2"));
    // No Graphviz on this PATH: `dot` cannot run.
    let o = bin()
        .current_dir(&s.0)
        .env("PATH", "/nonexistent")
        .args(["check", "--graph", "g", "--svg", "sb.litmus", "sb2.litmus"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("2 files: 2 judged, 2 errors"), "{err}");
}

/// With Graphviz, `--svg` draws each graph beside its DOT file.
#[test]
fn graphs_are_drawn_as_svg_with_graphviz() {
    let name = "graphs_are_drawn_as_svg_with_graphviz";
    if !common::skip::program(name, "dot", &["-V"], None) {
        return;
    }
    let s = Scratch::new("svg-drawn");
    s.file("sb.litmus", SB);
    let o = run(&s.0, &["check", "--graph", "g", "--svg", "sb.litmus"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let svg = std::fs::read_to_string(s.0.join("g/SB.lkmm.svg")).unwrap();
    assert!(svg.contains("<svg"), "{svg}");
}
