//! What the command line prints around its answers: one error format everywhere
//! (`file:line:col: error: message` and the line), warnings for likely mistakes, JSON
//! records, tables and batch summaries, shards merged back.

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
