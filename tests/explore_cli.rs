//! `litmus explore` without a terminal (a clear error and status 2, never a panic), and
//! in one under tmux.

mod common;

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

#[test]
fn a_test_over_its_budget_is_undetermined_in_the_explorer() {
    let dir = std::env::temp_dir().join(format!("litmus-explore-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Twelve writes of one location: 12! coherence orders, far more than a second's work.
    let mut t = String::from("C W12\n{}\n");
    for i in 0..12 {
        t += &format!("P{i}(int *x) {{ WRITE_ONCE(*x, {}); }}\n", i + 1);
    }
    t += "exists (x=1)\n";
    std::fs::write(dir.join("W12.litmus"), t).unwrap();
    let cmd = format!(
        "cd {} && {} explore --timeout 1 W12.litmus; echo EXIT=$?; sleep 60",
        dir.display(),
        env!("CARGO_BIN_EXE_litmus")
    );
    let Some(term) = common::terminal::Terminal::start(&dir, "explore-budget", &cmd) else {
        return;
    };
    let screen = term.wait_for("EXIT=", 1);
    drop(term);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(screen.contains("EXIT=3"), "{screen}");
    assert!(
        screen.contains("W12.litmus: undetermined: timed out"),
        "{screen}"
    );
}
