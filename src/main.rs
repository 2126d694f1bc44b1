//! The `litmus` command line.
//!
//! Most runs judge one small test and last a millisecond or two, so process start-up is a
//! large share of the time. `main` is the C entry point (`no_main`), which skips std's
//! runtime set-up: on Linux that reads `/proc/self/maps` to find the main thread's stack
//! guard, and the work here runs on a stack of its own anyway. The arguments are read from
//! `argv` (std finds them before `main` only with glibc, and the binary is built for musl),
//! and `std::process::exit` still flushes stdout.
// The test harness brings its own `main`.
#![cfg_attr(not(test), no_main)]

mod cli;

/// A small allocator of ours for short runs, mimalloc once a test is big (see `alloc`).
#[global_allocator]
static ALLOC: litmus::alloc::Hybrid = litmus::alloc::Hybrid;

use litmus::WORKER_STACK as STACK;

#[cfg(not(test))]
#[unsafe(no_mangle)]
extern "C" fn main(argc: libc::c_int, argv: *const *const libc::c_char) -> libc::c_int {
    // From `argv` itself: std finds the arguments before `main` only with glibc.
    let args = (0..argc.max(0) as usize)
        .map(|i| {
            // SAFETY: the C runtime passes `argc` valid NUL-terminated strings.
            let s = unsafe { std::ffi::CStr::from_ptr(*argv.add(i)) };
            s.to_string_lossy().into_owned()
        })
        .collect();
    std::process::exit(run(args))
}

#[cfg(test)]
fn main() {
    std::process::exit(run(std::env::args().collect()));
}

fn run(args: Vec<String>) -> i32 {
    // Behave like other Unix tools when the reader goes away (`litmus check ... | head`):
    // end quietly instead of failing on the broken pipe.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    match on_big_stack(move || cli::main(args)) {
        Ok(code) => code,
        Err(_) => {
            eprintln!("error: internal failure (please report it with the input that caused it)");
            70
        }
    }
}

/// Runs `work` on a `STACK`-byte stack of its own, on this thread, and ends the process with
/// the code it returns. Returns only if `work` panics.
///
/// A stack switch rather than a thread: a thread costs a clone, its own allocator heap and
/// a wake-up of this one, a tenth of a millisecond for a run that may take one. Only when
/// the stack cannot be mapped does `work` run on a new thread instead.
fn on_big_stack(work: impl FnOnce() -> i32 + Send + 'static) -> std::thread::Result<i32> {
    let page = 4096;
    let flags = libc::MAP_NORESERVE | libc::MAP_STACK;
    let Some(base) = litmus::alloc::map_anonymous(STACK + page, flags) else {
        return on_thread(work);
    };
    // The lowest page stays unmapped, so an overflow faults (reported by `crash`) instead of
    // running into whatever lies below.
    // SAFETY: the page is the start of the mapping made above, which nothing uses yet.
    unsafe { libc::mprotect(base, page, libc::PROT_NONE) };
    litmus::crash::guard_this_thread();
    let stack = base.cast::<u8>().wrapping_add(page);
    // SAFETY: `stack` is page-aligned, `STACK` bytes long and never unmapped; the callback
    // cannot unwind (panics are caught inside it).
    let result = unsafe {
        psm::on_stack(stack, STACK, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
        })
    };
    result.map(|code| end(code))
}

/// `on_big_stack` on a new thread, for when the stack cannot be mapped.
fn on_thread(work: impl FnOnce() -> i32 + Send + 'static) -> std::thread::Result<i32> {
    let worker = std::thread::Builder::new()
        .stack_size(STACK)
        .spawn(move || {
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
