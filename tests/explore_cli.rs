//! `litmus explore` without a terminal: a clear error and status 2, never a panic.

use std::process::{Command, Stdio};

fn explore(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_litmus"))
        .arg("explore")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn without_a_terminal_it_says_so() {
    let (code, err) = explore(&["litmus/classic/PPC/MP+lwsync+addr.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("needs a terminal"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_is_reported_before_the_terminal_check() {
    let (code, err) = explore(&["no-such-file.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("no-such-file.litmus"), "{err}");
    let (code, err) = explore(&["--model", "x86", "litmus/classic/PPC/MP+lwsync+addr.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("covers"), "{err}");
}
