//! The process's allocator: a small one of our own until a test turns out big, mimalloc
//! after.
//!
//! Most runs judge one small test in about a millisecond. For them mimalloc's set-up (its
//! options, arena bitmaps, one fresh page per size class) cost a fifth of the process
//! (0.2 ms, 40 page faults), and the C library's allocator, which starts at once, still spent
//! over a third of a short run's instructions on its bins and headers. Such a run makes a few
//! thousand blocks, most of them soon freed and made again at the same sizes. So [`Hybrid`]
//! starts with [`Small`]: blocks cut from one reserved region, without headers, and a free
//! list per size class (16-byte steps up to 1 KiB, powers of two above). Big tests allocate
//! and free millions of small bit matrices, where mimalloc is faster: the judge calls
//! [`go_big`] once a test has shown enough candidates, and from then on new blocks come from
//! mimalloc. A block goes back to the allocator that made it, which its address tells: the
//! region's blocks are ours (after the switch they are left be), every other one is
//! mimalloc's. The switch comes early when the region cannot be mapped or runs out, or when
//! two threads ask for blocks at the same moment (see [`Small`]).
//!
//! mimalloc is built without its start-up constructor (`MI_PRIM_HAS_PROCESS_ATTACH`, see
//! `.cargo/config.toml`), so it initialises at the switch and costs nothing before.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

// The mimalloc crate links the library; its symbols are used directly here.
use mimalloc as _;

unsafe extern "C" {
    fn mi_malloc(size: usize) -> *mut c_void;
    fn mi_zalloc(size: usize) -> *mut c_void;
    fn mi_realloc(p: *mut c_void, newsize: usize) -> *mut c_void;
    fn mi_malloc_aligned(size: usize, alignment: usize) -> *mut c_void;
    fn mi_zalloc_aligned(size: usize, alignment: usize) -> *mut c_void;
    fn mi_realloc_aligned(p: *mut c_void, newsize: usize, alignment: usize) -> *mut c_void;
    fn mi_free(p: *mut c_void);
    fn mi_option_set(option: libc::c_int, value: libc::c_long);
    fn mi_reserve_os_memory_ex(
        size: usize,
        commit: bool,
        allow_large: bool,
        exclusive: bool,
        arena_id: *mut *mut c_void,
    ) -> libc::c_int;
    #[cfg(test)]
    fn mi_arena_area(arena_id: *mut c_void, size: *mut usize) -> *mut c_void;
    #[cfg(test)]
    fn mi_option_get(option: libc::c_int) -> libc::c_long;
}

// Built without its start-up constructor, mimalloc takes itself for a library still being
// loaded for the whole run, and then never reserves an arena of its own: every page would
// come from the system and go back when freed (a `mmap` and two `munmap`s per 64 KiB page,
// a fifth of a parallel lock emulation's time in the kernel). So its arena is reserved by
// hand: address space only, its pages faulted in as they are first used. Beyond it, pages
// come from the system one by one.
const ARENA_BYTES: usize = 4 << 30;
/// The arena reserved, once reserved (mimalloc's `mi_arena_id_t`).
static ARENA: std::sync::atomic::AtomicPtr<c_void> =
    std::sync::atomic::AtomicPtr::new(std::ptr::null_mut());
// mimalloc hands freed pages back to the system after a delay (10 ms), and the process then
// faults them in again: a process that lives seconds keeps them instead (its peak is the same).
/// `mi_option_purge_delay` in mimalloc's option enum (v2 and v3).
const MI_OPTION_PURGE_DELAY: libc::c_int = 15;

/// Whether new blocks come from mimalloc. Set once, never cleared.
static BIG: AtomicBool = AtomicBool::new(false);
static SWITCH: Once = Once::new();

/// From now on, new blocks come from mimalloc. Cheap to call again.
pub fn go_big() {
    SWITCH.call_once(|| {
        // SAFETY: sets a plain option and reserves an arena before mimalloc's first
        // allocation; then a plain allocation and its release initialise mimalloc on this
        // thread before any other thread can ask it for memory.
        unsafe {
            mi_option_set(MI_OPTION_PURGE_DELAY, -1);
            // (Without it, pages still come from the system.)
            let mut arena = std::ptr::null_mut();
            if mi_reserve_os_memory_ex(ARENA_BYTES, true, false, false, &mut arena) == 0 {
                ARENA.store(arena, Ordering::Release);
            }
            mi_free(mi_malloc_aligned(8, 8));
        }
        BIG.store(true, Ordering::Release);
    });
}

/// Whether [`go_big`] has been called.
pub fn is_big() -> bool {
    BIG.load(Ordering::Acquire)
}

/// A fresh private anonymous read-write mapping of `len` bytes (with `flags` added), whose
/// pages are committed only when touched; `None` when the system refuses it.
pub fn map_anonymous(len: usize, flags: libc::c_int) -> Option<*mut c_void> {
    // SAFETY: a new mapping, at an address the system picks, that nothing else refers to.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | flags,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p)
}

/// Virtual space reserved for the small allocator: mapped without a reservation of memory,
/// pages are committed only when touched. A run that needs more goes big.
const REGION: usize = 4 << 30;
/// Blocks up to this size are rounded to 16 bytes; bigger ones to a power of two.
const FINE: usize = 1024;
const CLASSES: usize = FINE / 16 + 64;

/// The allocator of short runs (see the module's documentation). Its state is behind a spin
/// lock. A short run has one thread; when two threads ask for blocks at once (a batch judged
/// in parallel, a test split into parts), the one that finds the lock taken makes the process
/// go big instead of waiting, so that threads do not queue here.
pub struct Small {
    lock: AtomicBool,
    /// Start of the region, 0 until it is mapped, 1 if it cannot be.
    base: AtomicUsize,
    state: UnsafeCell<SmallState>,
}

struct SmallState {
    /// Next free byte of the region (0 until it is mapped).
    bump: usize,
    /// Per size class, the last freed block; each free block holds the next one.
    free: [*mut u8; CLASSES],
}

// SAFETY: the state is only touched with the lock held.
unsafe impl Sync for Small {}

static SMALL: Small = Small::new();

/// The size class of a block of `size` bytes, and the size of the blocks of that class.
fn class_of(size: usize) -> (usize, usize) {
    let size = size.max(1);
    if size <= FINE {
        let c = size.div_ceil(16);
        (c - 1, c * 16)
    } else {
        let b = size.next_power_of_two();
        (
            FINE / 16 + (b.trailing_zeros() as usize - FINE.trailing_zeros() as usize),
            b,
        )
    }
}

impl Small {
    const fn new() -> Small {
        Small {
            lock: AtomicBool::new(false),
            base: AtomicUsize::new(0),
            state: UnsafeCell::new(SmallState {
                bump: 0,
                free: [std::ptr::null_mut(); CLASSES],
            }),
        }
    }

    /// Whether `p` is one of this allocator's blocks.
    fn owns(&self, p: *mut u8) -> bool {
        let base = self.base.load(Ordering::Relaxed);
        base > 1 && (p as usize).wrapping_sub(base) < REGION
    }

    fn try_lock(&self) -> bool {
        self.lock
            .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }

    /// `f` on the state, waiting for the lock.
    fn with<T>(&self, f: impl FnOnce(&mut SmallState) -> T) -> T {
        while !self.try_lock() {
            std::hint::spin_loop();
        }
        self.locked(f)
    }

    /// `f` on the state, if the lock is free.
    fn try_with<T>(&self, f: impl FnOnce(&mut SmallState) -> T) -> Option<T> {
        self.try_lock().then(|| self.locked(f))
    }

    fn locked<T>(&self, f: impl FnOnce(&mut SmallState) -> T) -> T {
        // SAFETY: the caller holds the lock, so this is the only reference to the state.
        let r = f(unsafe { &mut *self.state.get() });
        self.lock.store(false, Ordering::Release);
        r
    }

    /// Maps the region, once (kept out of the allocation path); false if it cannot be.
    #[cold]
    #[inline(never)]
    fn map_region(&self, st: &mut SmallState) -> bool {
        if self.base.load(Ordering::Relaxed) == 1 {
            return false;
        }
        let Some(base) = map_anonymous(REGION, libc::MAP_NORESERVE) else {
            self.base.store(1, Ordering::Relaxed);
            return false;
        };
        st.bump = base as usize;
        self.base.store(base as usize, Ordering::Relaxed);
        true
    }

    /// A block for `l`, and whether it is fresh from the region (so already zero); null when
    /// the region is not available or full.
    fn alloc(&self, l: Layout) -> (*mut u8, bool) {
        if l.size() > REGION / 4 {
            return (std::ptr::null_mut(), false);
        }
        let (c, bytes) = class_of(l.size());
        let got = self.try_with(|st| {
            if st.bump == 0 && !self.map_region(st) {
                return (std::ptr::null_mut(), false);
            }
            // Freed blocks are 16-aligned only: wider alignments always take fresh ones.
            let head = st.free[c];
            if !head.is_null() && l.align() <= 16 {
                // SAFETY: a free block of this class holds the next free block's address.
                st.free[c] = unsafe { head.cast::<*mut u8>().read() };
                return (head, false);
            }
            // Alignments are powers of two.
            let a = l.align().max(16);
            let start = (st.bump + a - 1) & !(a - 1);
            if start + bytes > self.base.load(Ordering::Relaxed) + REGION {
                return (std::ptr::null_mut(), false);
            }
            st.bump = start + bytes;
            (start as *mut u8, true)
        });
        got.unwrap_or((std::ptr::null_mut(), false))
    }

    /// Takes back a block made for `l`.
    fn dealloc(&self, p: *mut u8, l: Layout) {
        let (c, _) = class_of(l.size());
        self.with(|st| {
            // SAFETY: the block is ours, free, and at least 16 bytes long and 16-aligned.
            unsafe { p.cast::<*mut u8>().write(st.free[c]) };
            st.free[c] = p;
        });
    }
}

pub struct Hybrid;

/// Every mimalloc block is aligned to this much (`MI_MAX_ALIGN_SIZE`). Asking for an
/// alignment, even a smaller one, takes mimalloc's aligned path, which in v3 over-allocates
/// whenever the block size is not a power of two: plain calls where they suffice.
const MI_ALIGN: usize = 16;

impl Hybrid {
    /// A block from mimalloc (`big`) or the small allocator, which goes big when it cannot
    /// give one; and whether the block is known to be zero.
    unsafe fn alloc_in(big: bool, l: Layout) -> (*mut u8, bool) {
        if !big {
            let (p, fresh) = SMALL.alloc(l);
            if !p.is_null() {
                return (p, fresh);
            }
            go_big();
        }
        // SAFETY: as in `mi_block`.
        (unsafe { Self::mi_block(l, false) }, false)
    }

    /// A block from mimalloc, zeroed or not: from the plain calls when every block has
    /// the alignment asked for.
    unsafe fn mi_block(l: Layout, zero: bool) -> *mut u8 {
        // SAFETY: mimalloc honours any size and power-of-two alignment.
        unsafe {
            match (l.align() <= MI_ALIGN, zero) {
                (true, false) => mi_malloc(l.size()),
                (true, true) => mi_zalloc(l.size()),
                (false, false) => mi_malloc_aligned(l.size(), l.align()),
                (false, true) => mi_zalloc_aligned(l.size(), l.align()),
            }
            .cast()
        }
    }

    unsafe fn alloc_zeroed_in(big: bool, l: Layout) -> *mut u8 {
        if big {
            // SAFETY: as in `mi_block`.
            return unsafe { Self::mi_block(l, true) };
        }
        // SAFETY: `p` is a fresh block of at least `l.size()` bytes.
        unsafe {
            let (p, zero) = Self::alloc_in(false, l);
            if !p.is_null() && !zero {
                p.write_bytes(0, l.size());
            }
            p
        }
    }
}

// SAFETY: every block is returned to the allocator that made it (the small allocator's are
// in its region); both honour the layout's size and alignment.
unsafe impl GlobalAlloc for Hybrid {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        unsafe { Self::alloc_in(is_big(), l).0 }
    }

    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        unsafe { Self::alloc_zeroed_in(is_big(), l) }
    }

    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        if SMALL.owns(p) {
            // Once big, nothing is cut from the region any more: its blocks are left be.
            if !is_big() {
                SMALL.dealloc(p, l)
            }
        } else {
            // SAFETY: every other block is mimalloc's.
            unsafe { mi_free(p.cast()) }
        }
    }

    unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
        unsafe {
            if !SMALL.owns(p) {
                return match l.align() <= MI_ALIGN {
                    true => mi_realloc(p.cast(), new_size),
                    false => mi_realloc_aligned(p.cast(), new_size, l.align()),
                }
                .cast();
            }
            // Same class: the block already has room.
            if class_of(new_size).0 == class_of(l.size()).0 {
                return p;
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
    fn mimalloc_blocks_come_from_the_arena_reserved() {
        go_big();
        let arena = ARENA.load(Ordering::Acquire);
        assert!(!arena.is_null(), "no arena reserved");
        let l = Layout::from_size_align(200, 8).unwrap();
        // SAFETY: reads the arena's bounds; each block is released once.
        unsafe {
            let mut size = 0;
            let start = mi_arena_area(arena, &mut size) as usize;
            assert!(size >= ARENA_BYTES / 2);
            for _ in 0..1000 {
                let (b, _) = Hybrid::alloc_in(true, l);
                assert!((start..start + size).contains(&(b as usize)));
                Hybrid.dealloc(b, l);
            }
        }
    }

    /// Whichever allocator made a block (other tests may have switched already), it is
    /// zeroed when asked, keeps its bytes when grown across the switch, and goes back to its
    /// maker.
    #[test]
    fn blocks_go_back_to_their_allocator() {
        let h = Hybrid;
        let l = |n| Layout::from_size_align(n, 8).unwrap();
        let wide = Layout::from_size_align(100, 64).unwrap();
        // SAFETY: each block is used within its layout and released once.
        unsafe {
            let z = Hybrid::alloc_zeroed_in(false, l(30));
            assert!((0..30).all(|i| *z.add(i) == 0));
            let w = Hybrid::alloc_zeroed_in(false, wide);
            assert!((w as usize).is_multiple_of(64) && *w.add(99) == 0);
            z.write_bytes(5, 30);
            let grown = h.realloc(z, l(30), 4000);
            assert!(*grown.add(29) == 5);
            go_big();
            assert_eq!(mi_option_get(MI_OPTION_PURGE_DELAY), -1);
            let (m, _) = Hybrid::alloc_in(true, l(24));
            assert!(!m.is_null() && !SMALL.owns(m));
            let m = h.realloc(m, l(24), 4000);
            assert!(!SMALL.owns(m));
            // After the switch a block grows into mimalloc, keeping its bytes.
            let moved = h.realloc(grown, l(4000), 9000);
            assert!(!SMALL.owns(moved) && *moved.add(29) == 5);
            h.dealloc(moved, l(9000));
            h.dealloc(m, l(4000));
            h.dealloc(w, wide);
        }
    }

    #[test]
    fn freed_blocks_are_reused_by_size_class() {
        // An allocator of the test's own: others' blocks do not interfere.
        let s = Small::new();
        let l = |n| Layout::from_size_align(n, 8).unwrap();
        let (a, fresh) = s.alloc(l(24));
        assert!(fresh && s.owns(a) && !SMALL.owns(a));
        // SAFETY: the block is 32 bytes long.
        unsafe { a.write_bytes(7, 24) };
        s.dealloc(a, l(24));
        // The same class (17..=32 bytes) hands the block back, not known to be zero.
        assert_eq!(s.alloc(l(30)), (a, false));
        let (b, fresh) = s.alloc(l(30));
        assert!(fresh && b != a);
        // Wider alignments take fresh blocks.
        s.dealloc(b, l(30));
        let (c, fresh) = s.alloc(Layout::from_size_align(30, 64).unwrap());
        assert!(fresh && (c as usize).is_multiple_of(64));
        assert_eq!(s.alloc(l(1 << 40)).0, std::ptr::null_mut());
        // A thread that finds the lock taken gets nothing (and goes big) instead of waiting.
        assert!(s.try_lock());
        let other = std::thread::scope(|sc| sc.spawn(|| s.alloc(l(24)).0 as usize).join());
        assert_eq!(other.unwrap(), 0);
        s.lock.store(false, Ordering::Release);
        assert!(s.owns(s.alloc(l(24)).0));
    }

    #[test]
    fn size_classes_hold_their_blocks() {
        for size in [1, 15, 16, 17, 1024, 1025, 4096, 5000, 1 << 30] {
            let (c, bytes) = class_of(size);
            assert!(bytes >= size && c < CLASSES, "{size}");
            assert_eq!(class_of(bytes), (c, bytes));
        }
        assert!(class_of(1024).0 < class_of(1025).0);
    }
}
