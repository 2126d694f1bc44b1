//! A run that overflows its stack (a model recursing without end) or crashes ends with a
//! message and status 70 rather than a bare signal. Unix only; elsewhere std's own report
//! of a stack overflow stands.

/// Restores the default action of `SIGPIPE`, so that `litmus check ... | head` ends quietly
/// when the reader goes away, as other Unix tools do (Rust ignores the signal by default).
pub fn default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting the disposition of SIGPIPE before any other thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Installs the report for `SIGSEGV` and `SIGBUS` (once per process) and gives the calling
/// thread an alternate signal stack to run it on. Call it on every thread that runs models.
pub fn guard_this_thread() {
    #[cfg(unix)]
    unix::guard_this_thread();
}

#[cfg(unix)]
mod unix {
    use std::sync::Once;

    const MESSAGE: &[u8] = b"error: internal failure: the run overflowed its stack (a model \
recursing too deeply?) or crashed; please report it with the input that caused it\n";

    /// Bytes of the alternate stack the handler runs on (the overflowed one is unusable).
    const ALT_STACK: usize = 64 * 1024;

    extern "C" fn report(_: libc::c_int) {
        // SAFETY: write(2) and _exit(2) are async-signal-safe.
        unsafe {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::_exit(70);
        }
    }

    pub fn guard_this_thread() {
        static INSTALL: Once = Once::new();
        INSTALL.call_once(|| {
            // SAFETY: a plain sigaction with a handler that only calls async-signal-safe code.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = report as *const () as usize;
                sa.sa_flags = libc::SA_ONSTACK;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(libc::SIGSEGV, &sa, std::ptr::null_mut());
                libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
            }
        });
        // The stack lives as long as the thread may take a signal: for ever.
        let stack: &'static mut [u8] = Box::leak(vec![0u8; ALT_STACK].into_boxed_slice());
        let ss = libc::stack_t {
            ss_sp: stack.as_mut_ptr().cast(),
            ss_flags: 0,
            ss_size: ALT_STACK,
        };
        // SAFETY: `ss` describes memory that is never freed.
        unsafe { libc::sigaltstack(&ss, std::ptr::null_mut()) };
    }
}
