//! The `litmus` command line.
//!
//! The work runs on a thread with a deep stack ([`litmus::WORKER_STACK`]): models recurse
//! (herd's cat library builds coherence orders recursively) and a large test must not abort.

mod cli;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    litmus::crash::default_sigpipe();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let worker = std::thread::Builder::new()
        .name("litmus".into())
        .stack_size(litmus::WORKER_STACK)
        .spawn(move || {
            litmus::crash::guard_this_thread();
            cli::main(args)
        });
    let code = match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => {
            let _ = writeln!(
                std::io::stderr(),
                "error: internal failure (please report it with the input that caused it)"
            );
            70
        }
        Err(e) => {
            let _ = writeln!(
                std::io::stderr(),
                "error: cannot start the worker thread: {e}"
            );
            71
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
