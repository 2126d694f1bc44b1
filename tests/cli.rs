//! The command line on bad input: located errors, exit status 2, the batch goes on.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_litmus"))
}

/// A file in a folder of its own; `discard` removes it.
fn scratch(name: &str, text: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("litmus-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn discard(p: &Path) {
    if let Some(d) = p.parent() {
        let _ = std::fs::remove_dir_all(d);
    }
}

const GOOD: &str = "X86 SB\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";

#[test]
fn parse_error_is_located_and_batch_goes_on() {
    let bad = scratch(
        "bad.litmus",
        b"X86 SB\n{ x=0; }\n P0 ;\n FROB [x],$1 ;\nexists (0:EAX=0)\n",
    );
    let good = scratch("good.litmus", GOOD.as_bytes());
    let out = bin().arg("parse").arg(&bad).arg(&good).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.litmus:4:"), "no location in: {err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("X86 SB"), "good file not printed: {stdout}");
    discard(&bad);
    discard(&good);
}

#[test]
fn garbage_and_empty_files_do_not_crash() {
    for (name, text) in [
        (
            "garbage.litmus",
            &[0xffu8, 0xfe, 0x00, 0x13, 0x37, b'{', b'('][..],
        ),
        ("empty.litmus", &b""[..]),
        ("truncated.litmus", &GOOD.as_bytes()[..40]),
    ] {
        let p = scratch(name, text);
        for cmd in ["parse", "check"] {
            let out = bin().arg(cmd).arg(&p).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{cmd} {name}");
            assert!(
                String::from_utf8_lossy(&out.stderr).contains(name),
                "{cmd} {name}: error does not name the file"
            );
        }
        discard(&p);
    }
}

#[test]
fn unknown_model_is_an_error() {
    let good = scratch("sb.litmus", GOOD.as_bytes());
    let out = bin()
        .args(["check", "--model", "nosuch"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown model"));
    discard(&good);
}

#[test]
fn missing_file_is_an_error() {
    let out = bin()
        .args(["check", "/nonexistent/x.litmus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/x.litmus"));
}

#[test]
fn bench_reports_throughput_and_peak_memory() {
    let good = scratch("bench.litmus", GOOD.as_bytes());
    let out = bin().arg("bench").arg(&good).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("tests 1  judged 1  failed 0"), "{stdout}");
    assert!(stdout.contains("candidates/s"), "{stdout}");
    let mib: f64 = stdout
        .lines()
        .find_map(|l| l.strip_prefix("peak memory: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no peak memory line in {stdout}"));
    assert!(mib > 0.0, "{stdout}");
    discard(&good);
}
