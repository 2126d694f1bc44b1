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

use litmus::WORKER_STACK as STACK;

// mimalloc reserves its first arena at the first allocation, 1 GiB by default, and the
// arena's bitmaps alone are tens of pages to fault in: more than a small run allocates.
// Runs that need more get more arenas as they grow.
unsafe extern "C" {
    fn mi_option_set(option: libc::c_int, value: libc::c_long);
    #[cfg(test)]
    fn mi_option_get(option: libc::c_int) -> libc::c_long;
}
/// `mi_option_arena_reserve` in mimalloc's option enum (v3).
const MI_OPTION_ARENA_RESERVE: libc::c_int = 23;
const ARENA_RESERVE_KIB: libc::c_long = 64 * 1024;

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
    // SAFETY: sets a plain option, before the first allocation reads it.
    unsafe { mi_option_set(MI_OPTION_ARENA_RESERVE, ARENA_RESERVE_KIB) };
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

/// Runs `work` on a new thread with a `STACK`-byte stack, which ends the process with the
/// code `work` returns: waking this thread and tearing the big stack down would only cost
/// time. Returns only if the thread cannot start or `work` panics.
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
            litmus::crash::guard_this_thread();
            let code: i32 = work();
            end(code)
        });
    match worker {
        Ok(h) => h.join(),
        Err(e) => Err(Box::new(e)),
    }
}

/// Ends the process once stdout and stderr are flushed, without the exit handlers: the
/// allocator would hand its pages back to the system one `madvise` at a time, for a process
/// that is about to vanish.
fn end(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // SAFETY: _exit ends the process; everything worth keeping is written out above.
    unsafe { libc::_exit(code) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number is mimalloc's: an upgrade that renumbers options must fail here.
    #[test]
    fn arena_reserve_is_the_option_set() {
        // SAFETY: reads a plain option.
        let default = unsafe { mi_option_get(MI_OPTION_ARENA_RESERVE) };
        if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_none() {
            assert_eq!(default, 1 << 20, "1 GiB in KiB");
        }
    }
}
