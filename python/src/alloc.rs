//! The extension's global allocator: monty's counting allocator in sandbox processes only.
//!
//! The sandbox's memory limit needs `monty_alloc::LimitedAllocator` as the global allocator of
//! the process it runs in, counting from the first allocation on. That counter is one atomic
//! that every allocation and free of every thread adds to, and its cache line bouncing between
//! cores cost the process that steps episodes a quarter of its two-thread throughput (K8s
//! episodes from two Python threads, allocation-heavy: 1.55× one thread; the same workload in
//! two processes: 2×). That process never runs the sandbox: sandboxed answers go to child
//! processes (`python -m netpress._sandbox_worker`), which the pool starts with
//! [`netpress::env::SANDBOX_PROCESS_VAR`] set. So the choice is made once per process, at its
//! first allocation, from that variable: count in a sandbox process, plain `System` elsewhere.
//!
//! Written here because no allocator crate switches on a process-wide condition, and the choice
//! cannot be made later: a block allocated by one path must be freed by the same one (monty's
//! counter would underflow on frees it never charged).

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::CStr;
use std::sync::atomic::{AtomicU8, Ordering};

use monty_alloc::LimitedAllocator;

/// The variable's name as `getenv` takes it.
const VAR: &CStr = c"NETPRESS_SANDBOX_PROCESS";
const _: () = assert!(same(VAR.to_bytes(), netpress::env::SANDBOX_PROCESS_VAR.as_bytes()));

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const UNDECIDED: u8 = 0;
const COUNTING: u8 = 1;
const PLAIN: u8 = 2;

/// The process's choice, made at the first allocation and never changed.
static MODE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// `LimitedAllocator` in a sandbox process, `System` elsewhere.
pub struct Allocator;

/// Whether this process counts its allocations.
#[inline]
fn counting() -> bool {
    match MODE.load(Ordering::Relaxed) {
        COUNTING => true,
        PLAIN => false,
        _ => decide(),
    }
}

#[cold]
fn decide() -> bool {
    // `getenv`, not `std::env::var_os`: it does not allocate, and an allocation here would
    // recurse into an undecided allocator. Two threads deciding at once read the same
    // environment (the extension's first allocation is its import; the variable is set by
    // the parent before the process starts) and store the same answer.
    // SAFETY: a NUL-terminated name; the returned pointer is only compared with null.
    let set = unsafe { !libc::getenv(VAR.as_ptr()).is_null() };
    MODE.store(if set { COUNTING } else { PLAIN }, Ordering::Relaxed);
    set
}

// SAFETY: every method forwards its arguments unchanged to one of two allocators that uphold
// `GlobalAlloc`'s contract, and the same one for the whole process (`MODE` is set once, before
// the first block is handed out), so a block is always freed or grown by the allocator that
// gave it.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged (see the impl's comment).
        unsafe { if counting() { LimitedAllocator.alloc(layout) } else { System.alloc(layout) } }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the allocator that gave `ptr`.
        unsafe {
            if counting() { LimitedAllocator.dealloc(ptr, layout) } else { System.dealloc(ptr, layout) }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        unsafe {
            if counting() { LimitedAllocator.alloc_zeroed(layout) } else { System.alloc_zeroed(layout) }
        }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged to the allocator that gave `ptr`.
        unsafe {
            if counting() {
                LimitedAllocator.realloc(ptr, layout, new_size)
            } else {
                System.realloc(ptr, layout, new_size)
            }
        }
    }
}
