//! Running the binary as users run it, with a guard against hangs.

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The `litmus` binary of this build.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_litmus"))
}

/// A child still running after this is hung: the test fails (this is not a measure of
/// speed; the runs the tests make end in well under a second when they work).
const HANG: Duration = Duration::from_secs(60);

/// Runs `cmd` to its end, or kills it and fails once it has run for [`HANG`].
pub fn run(mut cmd: Command) -> Output {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let (mut so, mut se) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            panic!("{cmd:?} hung");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// No panic, no abort: an exit status of our own, and stderr free of Rust's panic text.
pub fn no_crash(o: &Output, what: &str) {
    let err = text(&o.stderr);
    assert!(!err.contains("panicked"), "{what}: {err}");
    let code = o.status.code();
    assert!(
        matches!(code, Some(0..=3)),
        "{what}: exit {code:?} (a signal or a crash), stderr: {err}"
    );
}
