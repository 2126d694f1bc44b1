//! Limits that hold and failures that say so (issue #26): every test is named after the
//! problem it guards against. The binary runs as users run it; none of these measures
//! time (a child that does not end within [`HANG`] fails the test as hung).

mod common;

use common::process::{bin, no_crash, run, text};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn check(args: &[&str]) -> Output {
    let mut c = bin();
    c.arg("check").args(args);
    run(c)
}

/// A folder of its own for one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("litmus-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

const SB: &str = "C SB\n{}\nP0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }\n\
P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }\nexists (0:r0=0 /\\ 1:r0=0)\n";

fn sb_file(dir: &Path) -> PathBuf {
    let f = dir.join("SB.litmus");
    std::fs::write(&f, SB).unwrap();
    f
}

/// `n` threads, each storing to a location of its own: one candidate, a symmetry group
/// of n! elements.
fn identical_threads(n: usize) -> String {
    let mut s = format!("C SAME{n}\n{{}}\n");
    for i in 0..n {
        s += &format!("P{i}(int *x{i}) {{ WRITE_ONCE(*x{i}, 1); }}\n");
    }
    s + "exists (x0=1)\n"
}

#[test]
fn absurd_timeouts_are_refused_not_panics() {
    let d = scratch("timeouts");
    let f = sb_file(&d);
    for v in ["-1", "nan", "inf", "1e300", "1e19", "0", "soon"] {
        let o = check(&[&format!("--timeout={v}"), f.to_str().unwrap()]);
        no_crash(&o, v);
        assert_eq!(o.status.code(), Some(2), "--timeout {v}");
        assert!(
            text(&o.stderr).contains("--timeout"),
            "{v}: {}",
            text(&o.stderr)
        );
    }
}

#[test]
fn jobs_1000_runs_or_says_why() {
    let d = scratch("jobs");
    let f = sb_file(&d);
    let o = check(&["--jobs", "1000", f.to_str().unwrap(), f.to_str().unwrap()]);
    no_crash(&o, "--jobs 1000");
    for v in ["0", "100000", "-3"] {
        let o = check(&["--jobs", v, f.to_str().unwrap()]);
        no_crash(&o, v);
        assert_eq!(o.status.code(), Some(2), "--jobs {v}");
    }
}

#[test]
fn absurd_memory_limits_are_refused() {
    let d = scratch("memory");
    let f = sb_file(&d);
    for v in ["0", "1", "12Q", "-1G", "huge"] {
        let o = check(&["--max-memory", v, f.to_str().unwrap()]);
        no_crash(&o, v);
        assert_eq!(o.status.code(), Some(2), "--max-memory {v}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn stdout_on_a_full_disk_is_an_error_not_a_panic() {
    let d = scratch("full");
    let f = sb_file(&d);
    let mut c = bin();
    c.arg("check").arg(&f);
    let o = c
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    no_crash(&o, "stdout on /dev/full");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("No space left"),
        "{}",
        text(&o.stderr)
    );
}

#[cfg(target_os = "linux")]
#[test]
fn stderr_on_a_full_disk_is_not_an_abort() {
    let o = bin()
        .args(["check", "/nonexistent/x.litmus"])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{:?}", o.status);
}

#[cfg(unix)]
#[test]
fn a_fifo_is_refused_not_waited_on() {
    let d = scratch("fifo");
    let fifo = d.join("t.litmus");
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
    let o = check(&[fifo.to_str().unwrap()]);
    no_crash(&o, "fifo");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("FIFO"), "{}", text(&o.stderr));
}

#[cfg(unix)]
#[test]
fn dev_zero_as_a_test_or_a_cfg_is_refused() {
    let d = scratch("zero");
    let f = sb_file(&d);
    let o = check(&["/dev/zero"]);
    no_crash(&o, "/dev/zero");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("not a regular file"));
    let o = check(&["-conf", "/dev/zero", f.to_str().unwrap()]);
    no_crash(&o, "-conf /dev/zero");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("not a regular file"));
}

#[cfg(unix)]
#[test]
fn a_folder_with_a_self_symlink_judges_each_test_once() {
    let d = scratch("selflink");
    sb_file(&d);
    std::os::unix::fs::symlink(".", d.join("self")).unwrap();
    let o = check(&[d.to_str().unwrap()]);
    no_crash(&o, "self link");
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout).matches("\nObservation SB ").count(), 1);
}

#[test]
fn an_empty_folder_is_an_error() {
    let d = scratch("empty");
    let o = check(&[d.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no *.litmus files"));
}

#[test]
fn a_folder_without_tests_is_an_error() {
    let d = scratch("notests");
    std::fs::write(d.join("README"), "nothing here").unwrap();
    let o = check(&[d.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("no *.litmus files"));
}

#[test]
fn empty_model_lists_are_errors() {
    let d = scratch("models");
    let f = sb_file(&d);
    for m in ["", ",,,", " , "] {
        let o = check(&["--model", m, f.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "--model {m:?}");
        assert!(text(&o.stderr).contains("names no model"), "{m:?}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn non_utf8_file_names_are_read() {
    use std::os::unix::ffi::OsStrExt;
    let d = scratch("names");
    let f = d.join(std::ffi::OsStr::from_bytes(b"caf\xe9.litmus"));
    std::fs::write(&f, SB).unwrap();
    let mut c = bin();
    c.arg("check").arg(&f);
    let o = run(c);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("Observation SB Sometimes"));
}

#[test]
fn non_utf8_text_is_located_by_line_and_column() {
    let d = scratch("bytes");
    let f = d.join("t.litmus");
    std::fs::write(&f, b"C t\n{}\nP0(int *x) { \xff }\nexists (x=1)\n").unwrap();
    let o = check(&[f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("t.litmus:3:14: error: not UTF-8"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn deeply_nested_brackets_are_an_error_not_an_overflow() {
    let d = scratch("nesting");
    let f = d.join("t.litmus");
    let deep = format!(
        "C t\n{{}}\nP0(int *x) {{ WRITE_ONCE(*x, 1); }}\nexists {}x=1{}\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    std::fs::write(&f, deep).unwrap();
    let o = check(&[f.to_str().unwrap()]);
    no_crash(&o, "nesting");
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("brackets open at once"));
}

/// A C thread whose code is `body`, then a write of `r0` (so the test has an event).
fn c_thread(body: &str, cond: &str) -> String {
    format!(
        "C t\n{{}}\nP0(int *x) {{\n int r0 = 0; int r1 = 0;\n {body}\n WRITE_ONCE(*x, r0);\n}}\n{cond}\n"
    )
}

#[test]
fn long_operator_chains_in_c_are_judged_or_a_located_error() {
    let d = scratch("c-chains");
    let write = |name: &str, src: String| {
        let f = d.join(name);
        std::fs::write(&f, src).unwrap();
        f
    };
    use litmus::litmus::MAX_EXPR_DEPTH;
    assert_eq!(MAX_EXPR_DEPTH, 4096, "the README states the limit");
    // Under the stated depth a chain is judged.
    let sum = vec!["1"; 4000].join(" + ");
    let f = write(
        "sum.litmus",
        c_thread(&format!("r0 = {sum};"), "exists (0:r0=4000)"),
    );
    let o = check(&[f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("Observation t Always 1 0"));
    // Beyond it, every right-recursive or chained form stops at the operator that goes
    // deeper (line 5, the thread's second line), in linear time, where a million terms
    // overflowed the stack (or ran for minutes).
    let n = 1_000_000;
    let cases = [
        (
            "plus",
            format!("r0 = {};", vec!["1"; n].join("+")),
            "5:8198:",
        ),
        ("bang", format!("r0 = {}r1;", "!".repeat(n)), "5:4102:"),
        ("cast", format!("r0 = {}r1;", "(int)".repeat(n)), "5:20482:"),
        ("post", format!("r0{};", "++".repeat(n)), "5:8194:"),
        ("assign", format!("{}1;", "r0 = ".repeat(n)), "5:20480:"),
        (
            "else",
            format!("r0 = {}1;", "r1 ? 1 : ".repeat(n)),
            "5:36871:",
        ),
    ];
    for (name, body, at) in cases {
        let f = write(
            &format!("{name}.litmus"),
            c_thread(&body, "exists (0:r0=1)"),
        );
        let o = check(&[f.to_str().unwrap()]);
        no_crash(&o, name);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!(
                "{name}.litmus:{at} error: expression more than {MAX_EXPR_DEPTH} levels deep"
            )),
            "{name}: {err}"
        );
    }
    // Statements and `?:` middle operands nest without brackets: at most 256 of them.
    let cases = [
        ("ifs", format!("{}r0 = 1;", "if (r1) ".repeat(n))),
        (
            "elseif",
            format!(
                "if (r1) r0 = 1; {}",
                "else if (r1) r0 = 1; ".repeat(100_000)
            ),
        ),
        (
            "middle",
            format!("r0 = {}1{};", "r1 ? ".repeat(n), " : 2".repeat(n)),
        ),
    ];
    for (name, body) in cases {
        let f = write(
            &format!("{name}.litmus"),
            c_thread(&body, "exists (0:r0=1)"),
        );
        let o = check(&[f.to_str().unwrap()]);
        no_crash(&o, name);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        assert!(
            err.contains(&format!("{name}.litmus:5:"))
                && err.contains("more than 256 statements or `?:` operands nested"),
            "{name}: {err}"
        );
    }
}

#[test]
fn a_condition_of_many_terms_is_one_flat_chain() {
    // A chain of `/\` is one node: evaluating and printing it go through it once, where a
    // tree as deep as the chain took quadratic time (and could overflow the stack).
    let cond = vec!["x=1"; 50_000].join(" /\\ ");
    let src = format!("C t\n{{}}\nP0(int *x) {{ WRITE_ONCE(*x, 1); }}\nexists ({cond})\n");
    let t = litmus::litmus::parse(&src).unwrap();
    match &t.condition.prop {
        litmus::litmus::ast::Prop::And(xs) => assert_eq!(xs.len(), 50_000),
        p => panic!("not one chain: {:?}", std::mem::discriminant(p)),
    }
    let d = scratch("chain");
    let f = d.join("t.litmus");
    std::fs::write(&f, &src).unwrap();
    let o = check(&[f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("Observation t Always 1 0"));
}

#[test]
fn a_timed_out_test_is_reported_undetermined_in_every_format() {
    let d = scratch("undetermined");
    let f = sb_file(&d);
    let f = f.to_str().unwrap();
    // A nanosecond: spent before the first thread runs.
    let o = check(&["--timeout", "0.000000001", f]);
    no_crash(&o, "herd");
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("Test SB Undetermined"), "{out}");
    assert!(out.contains("Undetermined SB: timed out"), "{out}");
    assert!(!out.contains("Observation"), "{out}");
    let o = check(&["--timeout", "0.000000001", "--model", "lkmm,lkmm", f]);
    assert!(text(&o.stdout).contains("timeout"), "{}", text(&o.stdout));
    let o = check(&["--timeout", "0.000000001", "--format", "json", f]);
    let v: serde_json::Value = serde_json::from_str(text(&o.stdout).trim()).unwrap();
    assert_eq!(v["status"], "timeout");
    assert_eq!(v["test"], "SB");
    assert!(v["explored"]["candidates"].is_u64());
}

#[test]
fn identical_threads_stay_within_a_small_memory_limit() {
    // The closure of a symmetry group of 50! elements once filled a queue with the
    // products of everything found (3.6 GB): under 256 MiB the test must still answer.
    let d = scratch("identical");
    let f = d.join("same50.litmus");
    std::fs::write(&f, identical_threads(50)).unwrap();
    let o = check(&["--max-memory", "256M", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("Observation SAME50 Always 1 0"));
}

#[cfg(target_os = "linux")]
#[test]
fn a_small_test_runs_under_a_small_address_space_limit() {
    // 4 GiB of reserved address space and a 1 GiB stack per thread once made every run
    // fail under `ulimit -v` of a few gigabytes.
    let d = scratch("ulimit");
    let f = sb_file(&d);
    let mut c = Command::new("sh");
    c.arg("-c").arg(format!(
        "ulimit -v 1000000 && exec '{}' check '{}'",
        env!("CARGO_BIN_EXE_litmus"),
        f.display()
    ));
    let o = run(c);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("Observation SB Sometimes"));
}

/// Twelve threads writing one location and reading another: 12! coherence orders of x.
fn twelve_writers(d: &Path) -> PathBuf {
    let mut s = String::from("C W12\n{}\n");
    for i in 0..12 {
        s += &format!(
            "P{i}(int *x, int *y) {{ int r0; WRITE_ONCE(*x, {}); r0 = READ_ONCE(*y); }}\n",
            i + 1
        );
    }
    let f = d.join("W12.litmus");
    std::fs::write(&f, s + "exists (x=1)\n").unwrap();
    f
}

#[test]
fn a_many_thread_test_stops_at_its_timeout() {
    // The deadline was once read only between judged candidates: a 6-thread test with
    // `--timeout 5` ran 105 s, an 8-thread one was still running at 150 s.
    let d = scratch("w12-time");
    let o = check(&["--timeout", "1", twelve_writers(&d).to_str().unwrap()]);
    no_crash(&o, "W12 --timeout 1");
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("Undetermined W12: timed out after 1.0s"));
}

#[test]
fn a_test_over_its_memory_limit_is_undetermined_not_an_abort() {
    // Under a memory cap the process once died of `memory allocation failed` (SIGABRT).
    let d = scratch("w12-memory");
    let o = check(&["--max-memory", "100M", twelve_writers(&d).to_str().unwrap()]);
    no_crash(&o, "W12 --max-memory 100M");
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("Undetermined W12: out of memory"),
        "{}",
        text(&o.stdout)
    );
}

/// Runs the SB test under the cat model `cat` with `--timeout 1`: undetermined.
fn times_out_under(name: &str, cat: &str) {
    let d = scratch(name);
    let m = d.join(format!("{name}.cat"));
    std::fs::write(&m, cat).unwrap();
    let f = sb_file(&d);
    let o = check(&[
        "--timeout",
        "1",
        "--cat",
        m.to_str().unwrap(),
        f.to_str().unwrap(),
    ]);
    no_crash(&o, name);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("Undetermined SB: timed out"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn a_model_branching_without_end_stops_at_its_timeout() {
    // Fourteen `with`s of four choices each: 268 million branches, each with a fixpoint.
    // (Ten were too few: plans replay a branch in well under a microsecond, and a million
    // branches sometimes finished within the second.)
    let withs: String = (0..14)
        .map(|i| format!("with a{i} from {{po, rf, loc, ext}}\n"))
        .collect();
    times_out_under(
        "branches",
        &format!("\"branches\"\n{withs}let rec g = g | (g;po) | (po;g) | po\nacyclic g as ok\n"),
    );
}

#[test]
fn an_exponential_cat_recursion_stops_at_its_timeout() {
    // A function calling itself twice per element of a 40-element set: 2^40 calls, never
    // deeper than 40. A recursive cat procedure once passed 4 GB in 3 s with --timeout 2.
    let tags: Vec<String> = (0..40).map(|i| format!("'t{i}")).collect();
    times_out_under(
        "recursion",
        &format!(
            "\"recursion\"\nenum Tags = {}\n\
             let rec f(s) = match s with || {{}} -> 0 || x ++ rest -> f(rest) | f(rest) end\n\
             let r = f({{{}}})\nempty r as ok\n",
            tags.join(" || "),
            tags.join(",")
        ),
    );
}
