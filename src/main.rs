//! The `litmus` command line.

mod cli;

/// Candidates and model evaluation allocate many small bit matrices: a fast allocator pays.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Stack for the main work: models recurse (herd's cat library builds coherence orders
/// recursively), and a large test must not abort.
const STACK: usize = 1 << 30;

fn main() {
    // Behave like other Unix tools when the reader goes away (`litmus check ... | head`):
    // end quietly instead of failing on the broken pipe.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args: Vec<String> = std::env::args().collect();
    let worker = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || cli::main(args));
    let code = match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: internal failure (please report it with the input that caused it)");
            70
        }
    };
    std::process::exit(code);
}
