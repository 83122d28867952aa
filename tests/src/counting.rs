//! A global allocator that counts allocations, for tests that prove something allocates nothing
//! (or no more than it should). It counts only in a test binary that installs it:
//!
//! ```ignore
//! #[global_allocator]
//! static GLOBAL: agents_kt_tests::counting::CountingAllocator =
//!     agents_kt_tests::counting::CountingAllocator;
//! ```
//!
//! Keep such a test alone in its binary (or serialize its tests): the count is process-wide.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
static LIVE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting every allocation.
pub struct CountingAllocator;

impl CountingAllocator {
    /// Allocations made so far by this process.
    pub fn allocations() -> usize {
        ALLOCATIONS.load(Ordering::SeqCst)
    }

    /// Bytes allocated and not yet freed, now.
    pub fn live_bytes() -> usize {
        LIVE_BYTES.load(Ordering::SeqCst)
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; counting has no effect on
// the memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        LIVE_BYTES.fetch_add(layout.size(), Ordering::SeqCst);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size(), Ordering::SeqCst);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
}
