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
    // One model at a time, and the help offers no `all`.
    let (code, err) = explore(&["--model", "all", "litmus/classic/PPC/MP+lwsync+addr.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("one model at a time"), "{err}");
    let help = Command::new(env!("CARGO_BIN_EXE_litmus"))
        .args(["explore", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let model = help.lines().find(|l| l.contains("--model")).unwrap();
    assert!(!model.contains("all"), "{model}");
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

#[test]
fn the_explorer_shows_progress_and_reaches_a_satisfying_execution_past_its_cap() {
    let dir = std::env::temp_dir().join(format!("litmus-explore-far-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Eleven reads of x in a row against three writes of 1: each read takes the initial
    // value or one of three writes, 4^11 = 4,194,304 candidates. The condition (ten 1s,
    // then a 0) goes back in coherence: forbidden, and the first candidate reaching it
    // comes about four million candidates in, far past the 5,000 the list keeps.
    let reads: String = (0..11)
        .map(|i| format!("  r{i} = READ_ONCE(*x);\n"))
        .collect();
    let regs: Vec<String> = (0..11).map(|i| format!("r{i}")).collect();
    let cond: Vec<String> = (0..11)
        .map(|i| format!("3:r{i}={}", u8::from(i < 10)))
        .collect();
    let mut t = String::from("C many-reads\n{}\n");
    for p in 0..3 {
        t += &format!("P{p}(int *x) {{ WRITE_ONCE(*x, 1); }}\n");
    }
    t += &format!("P3(int *x) {{\n  int {};\n{reads}}}\n", regs.join(", "));
    t += &format!("exists ({})\n", cond.join(" /\\ "));
    std::fs::write(dir.join("many.litmus"), t).unwrap();
    let cmd = format!(
        "cd {} && {} explore many.litmus; echo EXIT=$?; sleep 60",
        dir.display(),
        env!("CARGO_BIN_EXE_litmus")
    );
    let Some(term) = common::terminal::Terminal::start(&dir, "explore-far", &cmd) else {
        return;
    };
    // The judge's answer and its reason come first, while the listing goes on, counting
    // the candidates it visits past the cap.
    let searching = term.wait_for("satisfies the condition; looking further:", 1);
    assert!(
        searching.contains("Observation many-reads Never 0"),
        "{searching}"
    );
    assert!(searching.contains("rejected by coherence"), "{searching}");
    assert!(searching.contains("Cycle of coherence"), "{searching}");
    let done = term.wait_for("the first satisfying the condition lies", 1);
    assert!(
        done.contains("5002 executions"),
        "the 5,000 listed, the judge's and the one found:\n{done}"
    );
    // That one, in the list of satisfying executions: its own rejection, by the same check.
    term.keys(&["s", "G"]);
    let found = term.wait_for("Execution 5002 (candidate ", 1);
    assert!(found.contains("rejected by coherence"), "{found}");
    assert!(found.contains("satisfies the condition"), "{found}");
    term.keys(&["q"]);
    let end = term.wait_for("EXIT=", 1);
    drop(term);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(end.contains("EXIT=0"), "{end}");
}

/// A small test: every execution listed, and the header says so (never "none past the
/// first 5000"); consistent and rejected executions in columns of their own, a rejected
/// one marked and named by its check (the lock model's `co-consistent` reads like a
/// verdict otherwise).
#[test]
fn a_small_test_lists_every_execution_and_marks_rejections() {
    let dir = std::env::temp_dir().join(format!("litmus-explore-small-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let cmd = format!(
        "cd {} && {} explore litmus/locks/C/spinlock-mutex.litmus; echo EXIT=$?; sleep 60",
        env!("CARGO_MANIFEST_DIR"),
        env!("CARGO_BIN_EXE_litmus")
    );
    let Some(term) = common::terminal::Terminal::start(&dir, "explore-small", &cmd) else {
        return;
    };
    let screen = term.wait_for("every execution listed", 1);
    assert!(!screen.contains("none past"), "{screen}");
    assert!(screen.contains("✓ consistent"), "{screen}");
    assert!(screen.contains("✗ rejected by "), "{screen}");
    for line in screen.lines().filter(|l| l.contains("✗ rejected by")) {
        assert!(!line.contains("✓"), "{line}");
    }
    term.keys(&["q"]);
    let end = term.wait_for("EXIT=", 1);
    drop(term);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(end.contains("EXIT=0"), "{end}");
}
