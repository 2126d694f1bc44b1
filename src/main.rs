//! The `litmus` command line.
//!
//! Most runs judge one small test and last a millisecond or two, so process start-up is a
//! large share of the time. `main` is the C entry point (`no_main`), which skips std's
//! runtime set-up: on Linux that reads `/proc/self/maps` to find the main thread's stack
//! guard, and the work here runs on a thread of its own anyway. std still finds the
//! arguments, and `std::process::exit` still flushes stdout.
// The test harness brings its own `main`.
#![cfg_attr(not(test), no_main)]

mod cli;

/// Candidates and model evaluation allocate many small bit matrices: a fast allocator pays.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Stack for the main work: models recurse (herd's cat library builds coherence orders
/// recursively), and a large test must not abort.
const STACK: usize = 1 << 30;

#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(_argc: libc::c_int, _argv: *const *const libc::c_char) -> libc::c_int {
    std::process::exit(run())
}

#[cfg(test)]
fn main() {
    std::process::exit(run());
}

fn run() -> i32 {
    // Behave like other Unix tools when the reader goes away (`litmus check ... | head`):
    // end quietly instead of failing on the broken pipe.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args: Vec<String> = std::env::args().collect();
    match on_big_stack(move || cli::main(args)) {
        Ok(code) => code,
        Err(_) => {
            eprintln!("error: internal failure (please report it with the input that caused it)");
            70
        }
    }
}

/// Runs `work` on a new thread with a `STACK`-byte stack, and waits for it.
///
/// The new thread starts on this thread's CPU, then may move anywhere. On a busy machine,
/// a thread queued behind another process waits for the scheduler's next tick, which is
/// milliseconds: longer than a small test takes. This thread is about to sleep in `join`,
/// so its CPU is the one that is free.
fn on_big_stack(work: impl FnOnce() -> i32 + Send + 'static) -> std::thread::Result<i32> {
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `cpu_set_t` is plain data; the calls only read or write the given set.
    let allowed = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        let here = libc::sched_getcpu();
        let ok = libc::sched_getaffinity(0, size, &mut set) == 0;
        if ok && here >= 0 {
            let mut one: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(here as usize, &mut one);
            libc::sched_setaffinity(0, size, &one);
        }
        ok.then_some(set)
    };
    let worker = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
            if let Some(set) = allowed {
                // SAFETY: as above. The worker's own threads inherit the whole set again.
                unsafe { libc::sched_setaffinity(0, size, &set) };
            }
            work()
        });
    match worker {
        Ok(h) => h.join(),
        Err(e) => Err(Box::new(e)),
    }
}
