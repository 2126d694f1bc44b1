//! Every value of every option (issue #26), as a property test over the command line.
//! The options are read from each command's own help, so an option added later is covered
//! without touching this file; values come from what users mistype and what breaks number
//! parsers. No run may panic, abort, die of a signal or hang, and a refused value exits 2
//! with a message.

mod common;

use common::process::{bin, no_crash, run, text};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The commands whose options are tried, as typed after `litmus`; the last is herd7's
/// command line (`-option`, listed by `-help`).
const COMMANDS: &[&[&str]] = &[
    &["check"],
    &["diff"],
    &["compile"],
    &["bench"],
    &["explore"],
    &["snapshot", "record"],
    &["snapshot", "check"],
    &["snapshot", "review"],
    &["herd7"],
];

const SB: &str = "C SB\n{}\nP0(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }\n\
P1(int *x, int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }\nexists (0:r0=0 /\\ 1:r0=0)\n";

/// Values that have broken option parsers: signs, NaN, infinities, overflows, empty and
/// separator-only lists, units, shard-like fractions, names of models and formats.
const NASTY: &[&str] = &[
    "",
    " ",
    "0",
    "-0",
    "1",
    "2",
    "-1",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e300",
    "1e19",
    "1e-300",
    "0.0000001",
    "18446744073709551616",
    "4294967296",
    "99999999999999999999",
    "3/4",
    "0/4",
    "5/4",
    "1/0",
    ",",
    ",,,",
    "all",
    "none",
    "true",
    "false",
    "fast",
    "prop",
    "wit",
    "1G",
    "0K",
    "16M",
    "99999T",
    "1.5GiB",
    "lkmm",
    "power",
    "x86tso",
    "armv8",
    "herd",
    "table",
    "json",
    "SB.litmus",
    "missing.cat",
    "nope.cfg",
    "lkmm.cfg",
    "linux-kernel.cfg",
    "ppc-sync",
    ".",
    "./",
    "é",
    "--",
    "-",
    "=",
    "_",
];

/// Each command's options, read from its help once.
fn options() -> &'static Vec<Vec<String>> {
    static OPTIONS: OnceLock<Vec<Vec<String>>> = OnceLock::new();
    OPTIONS.get_or_init(|| COMMANDS.iter().map(|c| help_options(c)).collect())
}

/// The options a command's help lists: `--name` (clap's) or `-name` (herd7's).
fn help_options(cmd: &[&str]) -> Vec<String> {
    let herd = cmd == ["herd7"];
    let mut c = bin();
    c.args(cmd).arg(if herd { "-help" } else { "--help" });
    let out = run(c);
    let help = text(&out.stdout) + &text(&out.stderr);
    let mut found: Vec<String> = help
        .lines()
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let w = match words.as_slice() {
                [short, long, ..] if short.len() == 3 && short.ends_with(',') => *long,
                [first, ..] => *first,
                [] => return None,
            };
            let name: String = w
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "-_.".contains(*c))
                .collect();
            let ok = if herd {
                name.len() > 1 && name.starts_with('-') && !name.starts_with("--")
            } else {
                name.len() > 2 && name.starts_with("--")
            };
            // Options that only print: they are no test of a value.
            (ok && !["--help", "-help", "--version", "-version"].contains(&name.as_str()))
                .then_some(name)
        })
        .collect();
    found.dedup();
    assert!(
        !found.is_empty(),
        "`litmus {}` lists no options in its help:\n{help}",
        cmd.join(" ")
    );
    found
}

/// A value: one of [`NASTY`], or any short printable text that names no place outside the
/// scratch folder (the runs may write files where an option says).
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::sample::select(NASTY).prop_map(str::to_string),
        1 => "[ -~]{0,12}".prop_filter("stays in the scratch folder", |s| {
            !s.starts_with('/') && !s.starts_with('~') && !s.contains("..")
        }),
    ]
}

/// One command line: a command, up to four of its options each with a value or none,
/// and the test file or not.
fn command_line() -> impl Strategy<Value = (usize, Vec<(usize, Option<String>)>, bool)> {
    (0..COMMANDS.len()).prop_flat_map(|k| {
        let n = options()[k].len();
        (
            Just(k),
            proptest::collection::vec((0..n, proptest::option::weighted(0.8, value())), 1..=4),
            proptest::bool::weighted(0.8),
        )
    })
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("litmus-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("SB.litmus"), SB).unwrap();
    d
}

fn try_line(
    dir: &Path,
    k: usize,
    opts: &[(usize, Option<String>)],
    file: bool,
) -> Result<(), TestCaseError> {
    let mut args: Vec<String> = COMMANDS[k].iter().map(|s| s.to_string()).collect();
    for (i, v) in opts {
        args.push(options()[k][*i].clone());
        args.extend(v.clone());
    }
    if file {
        args.push("SB.litmus".into());
    }
    let mut c = bin();
    c.current_dir(dir).args(&args);
    // bench's generated families grow with --scaling: bounded by its own time limit.
    if COMMANDS[k] == ["bench"] && !args.iter().any(|a| a == "--timeout") {
        c.args(["--timeout", "1"]);
    }
    let out = run(c);
    let what = format!("litmus {}", args.join(" "));
    no_crash(&out, &what);
    if out.status.code() == Some(2) {
        prop_assert!(!out.stderr.is_empty(), "{what}: exit 2 with no message");
    }
    Ok(())
}

#[test]
fn no_value_of_any_option_panics() {
    let dir = scratch("values");
    let cases = 400;
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&command_line(), |(k, opts, file)| {
            try_line(&dir, k, &opts, file)
        })
        .unwrap();
    println!(
        "{cases} command lines over {} options of {} commands",
        options().iter().map(Vec::len).sum::<usize>(),
        COMMANDS.len()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Values that once panicked, or ran without end, kept as they were found.
#[test]
fn values_that_once_broke_are_refused() {
    let dir = scratch("broke");
    for args in [
        &["herd7", "-timeout", "inf", "SB.litmus"][..],
        &["herd7", "-timeout", "nan", "SB.litmus"],
        &["herd7", "-timeout", "-1", "SB.litmus"],
        &["bench", "--scaling", "100000"],
        &["bench", "--scaling", "0"],
    ] {
        let mut c = bin();
        c.current_dir(&dir).args(args);
        let out = run(c);
        no_crash(&out, &args.join(" "));
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(args[1]),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
