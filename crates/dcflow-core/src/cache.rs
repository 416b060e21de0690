//! Ask the processor to start loading memory that the engine reads next.
//!
//! The packet engine waits on memory more than it computes: its first
//! touch of a packet that has been in flight, or of a port, misses the
//! first-level cache (BENCHMARKS.md, "Prefetching the next events"). The
//! event queue shows the engine the events coming next
//! ([`crate::EventQueue::pop_looking_ahead`]), so it starts loading their
//! data while it handles the ones before them.

/// Start loading the cache line that holds `*r`. Only a hint: it changes
/// no value, and a run gives the same results with or without it.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `r` is a valid reference, and a prefetch reads nothing into
    // the program: it cannot fault or change any value.
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
