//! The process's allocator: the C library's until a test turns out big, mimalloc after.
//!
//! Most runs judge one small test in about a millisecond. For them mimalloc's set-up (its
//! options, arena bitmaps, one fresh page per size class) cost a fifth of the process
//! (0.2 ms, 40 page faults). The C library's allocator packs a short run's few hundred
//! kilobytes densely and starts at once. Big tests allocate and free millions of small bit
//! matrices, where mimalloc is 10–20% faster. So [`Hybrid`] starts with the C library's and
//! switches to mimalloc for good when [`go_big`] is called (the judge calls it once a test
//! has shown enough candidates). Each block is freed by the allocator that made it: mimalloc
//! knows its own blocks (`mi_is_in_heap_region`), and before the switch there are none.
//!
//! mimalloc is built without its start-up constructor (`MI_PRIM_HAS_PROCESS_ATTACH`, see
//! `.cargo/config.toml`), so it initialises at the switch and costs nothing before.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

// The mimalloc crate links the library; its symbols are used directly here.
use mimalloc as _;

unsafe extern "C" {
    fn mi_malloc_aligned(size: usize, alignment: usize) -> *mut c_void;
    fn mi_zalloc_aligned(size: usize, alignment: usize) -> *mut c_void;
    fn mi_realloc_aligned(p: *mut c_void, newsize: usize, alignment: usize) -> *mut c_void;
    fn mi_free(p: *mut c_void);
    fn mi_is_in_heap_region(p: *const c_void) -> bool;
    fn mi_option_set(option: libc::c_int, value: libc::c_long);
    #[cfg(test)]
    fn mi_option_get(option: libc::c_int) -> libc::c_long;
}

// mimalloc reserves its first arena at its first allocation, 1 GiB by default, and the
// arena's bitmaps alone are tens of pages to fault in. Runs that need more get more arenas
// as they grow.
/// `mi_option_arena_reserve` in mimalloc's option enum (v3).
const MI_OPTION_ARENA_RESERVE: libc::c_int = 23;
const ARENA_RESERVE_KIB: libc::c_long = 64 * 1024;

/// Whether new blocks come from mimalloc. Set once, never cleared.
static BIG: AtomicBool = AtomicBool::new(false);
static SWITCH: Once = Once::new();

/// From now on, new blocks come from mimalloc. Cheap to call again.
pub fn go_big() {
    SWITCH.call_once(|| {
        // SAFETY: sets a plain option before mimalloc's first allocation reads it; then a
        // plain allocation and its release initialise mimalloc on this thread before any
        // other thread can ask it for memory.
        unsafe {
            mi_option_set(MI_OPTION_ARENA_RESERVE, ARENA_RESERVE_KIB);
            mi_free(mi_malloc_aligned(8, 8));
        }
        BIG.store(true, Ordering::Release);
    });
}

/// Whether [`go_big`] has been called.
pub fn is_big() -> bool {
    BIG.load(Ordering::Acquire)
}

/// Alignment the C library's `malloc` guarantees on x86-64 and AArch64 Linux.
const MALLOC_ALIGN: usize = 16;

pub struct Hybrid;

impl Hybrid {
    fn ours(p: *mut u8) -> bool {
        // SAFETY: a lookup in mimalloc's page map, initialised before `BIG` is set.
        is_big() && unsafe { mi_is_in_heap_region(p.cast()) }
    }
}

impl Hybrid {
    /// A block from mimalloc (`big`) or the C library.
    unsafe fn alloc_in(big: bool, l: Layout) -> *mut u8 {
        unsafe {
            if big {
                mi_malloc_aligned(l.size(), l.align()).cast()
            } else if l.align() <= MALLOC_ALIGN {
                libc::malloc(l.size()).cast()
            } else {
                libc::aligned_alloc(l.align(), l.size().next_multiple_of(l.align())).cast()
            }
        }
    }

    unsafe fn alloc_zeroed_in(big: bool, l: Layout) -> *mut u8 {
        unsafe {
            if big {
                mi_zalloc_aligned(l.size(), l.align()).cast()
            } else if l.align() <= MALLOC_ALIGN {
                libc::calloc(1, l.size()).cast()
            } else {
                let p = Self::alloc_in(false, l);
                if !p.is_null() {
                    p.write_bytes(0, l.size());
                }
                p
            }
        }
    }
}

// SAFETY: every block is returned by the allocator that made it (see `ours`); both honour
// the layout's size and alignment.
unsafe impl GlobalAlloc for Hybrid {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        unsafe { Self::alloc_in(is_big(), l) }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        unsafe { Self::alloc_zeroed_in(is_big(), l) }
    }

    unsafe fn dealloc(&self, p: *mut u8, _: Layout) {
        unsafe {
            if Self::ours(p) {
                mi_free(p.cast())
            } else {
                libc::free(p.cast())
            }
        }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        unsafe {
            if Self::ours(p) {
                return mi_realloc_aligned(p.cast(), new_size, l.align()).cast();
            }
            if l.align() <= MALLOC_ALIGN {
                // A block stays with the allocator that made it.
                return libc::realloc(p.cast(), new_size).cast();
            }
            let q = self.alloc(Layout::from_size_align_unchecked(new_size, l.align()));
            if !q.is_null() {
                std::ptr::copy_nonoverlapping(p, q, l.size().min(new_size));
                self.dealloc(p, l);
            }
            q
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The option number is mimalloc's: an upgrade that renumbers options must fail here.
    #[test]
    fn arena_reserve_is_the_option_set() {
        go_big();
        // SAFETY: reads a plain option.
        assert_eq!(
            unsafe { mi_option_get(MI_OPTION_ARENA_RESERVE) },
            ARENA_RESERVE_KIB
        );
    }

    /// Blocks made before the switch are freed and grown by the C library, blocks made
    /// after by mimalloc, whichever way they are released. (One test: the switch is for
    /// the whole process.) The option number is mimalloc's: an upgrade that renumbers
    /// options must fail here too.
    #[test]
    fn blocks_go_back_to_their_allocator() {
        let h = Hybrid;
        let small = Layout::from_size_align(24, 8).unwrap();
        let wide = Layout::from_size_align(100, 64).unwrap();
        // SAFETY: each block is used within its layout and released once.
        unsafe {
            // Other tests may have switched already: the switch's side is chosen here.
            go_big();
            assert_eq!(mi_option_get(MI_OPTION_ARENA_RESERVE), ARENA_RESERVE_KIB);
            let before = Hybrid::alloc_in(false, small);
            let before_wide = Hybrid::alloc_zeroed_in(false, wide);
            assert!((before_wide as usize).is_multiple_of(64) && *before_wide.add(99) == 0);
            assert!(!Hybrid::ours(before) && !Hybrid::ours(before_wide));
            let after = Hybrid::alloc_in(true, small);
            assert!(Hybrid::ours(after));
            before.write_bytes(7, 24);
            let grown = h.realloc(before, small, 4000);
            assert!(!Hybrid::ours(grown) && *grown.add(23) == 7);
            let grown_after = h.realloc(after, small, 4000);
            assert!(Hybrid::ours(grown_after));
            let moved = h.realloc(before_wide, wide, 300);
            assert!((moved as usize).is_multiple_of(64));
            h.dealloc(grown, Layout::from_size_align(4000, 8).unwrap());
            h.dealloc(grown_after, Layout::from_size_align(4000, 8).unwrap());
            h.dealloc(moved, Layout::from_size_align(300, 64).unwrap());
        }
    }
}
