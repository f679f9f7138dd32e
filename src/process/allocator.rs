//! The process's allocator: mimalloc, called the way the standard library calls `malloc`.
//!
//! The `mimalloc` crate's `MiMalloc` passes every allocation to `mi_malloc_aligned`, whose
//! fast path in mimalloc 3 only hits when a free block of the size class happens to be
//! aligned already; otherwise (a fresh page, a block over 1 KiB) it takes the generic path,
//! which over-allocates by the alignment. A request on the HTTP hot path makes about thirty
//! allocations, and that path was a twentieth of its instructions (BENCHMARKS.md, "HTTP").
//! Like `std::alloc::System` on Unix, this calls the plain `mi_malloc` (whose blocks are
//! aligned to 16 bytes, or to their size below 16) whenever that alignment suffices, and
//! `mi_malloc_aligned` only for the rare over-aligned layout.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys as ffi;

/// The alignment every `mi_malloc` block of at least this size has (`MI_MAX_ALIGN_SIZE`).
const MIN_ALIGN: usize = 16;

/// mimalloc as the global allocator (see the module docs).
pub struct Allocator;

/// Whether `mi_malloc(size)` is aligned enough for `layout`.
#[inline]
fn plain(layout: &Layout) -> bool {
    layout.align() <= MIN_ALIGN && layout.align() <= layout.size()
}

// SAFETY: every method forwards to mimalloc, whose `mi_malloc`/`mi_zalloc`/`mi_realloc`
// return blocks aligned to `min(16, size rounded up to its class)` (so `plain` layouts are
// satisfied) or null on failure, and whose `*_aligned` variants honour any power-of-two
// alignment; `mi_free` frees blocks from either family.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe {
            if plain(&layout) {
                ffi::mi_malloc(layout.size()).cast()
            } else {
                ffi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe {
            if plain(&layout) {
                ffi::mi_zalloc(layout.size()).cast()
            } else {
                ffi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the `GlobalAlloc` contract).
        unsafe { ffi::mi_free(ptr.cast::<c_void>()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from this allocator with `layout`; the new block keeps the
        // alignment because `plain` is judged on the new size (as the aligned call would).
        unsafe {
            let new = Layout::from_size_align_unchecked(new_size, layout.align());
            if plain(&new) {
                ffi::mi_realloc(ptr.cast(), new_size).cast()
            } else {
                ffi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every small size and alignment are aligned as asked, keep their contents
    /// across `realloc` (growing and shrinking), and come back zeroed from `alloc_zeroed`.
    #[test]
    fn layouts_are_honoured() {
        let a = Allocator;
        for align in [1usize, 2, 4, 8, 16, 32, 64, 128, 4096] {
            for size in [
                1usize, 3, 7, 8, 15, 16, 17, 24, 31, 64, 100, 1000, 1025, 70_000,
            ] {
                let layout = Layout::from_size_align(size, align).unwrap();
                for new_size in [size * 3 + 5, size.div_ceil(2)] {
                    // SAFETY: non-zero sizes; each block is freed with its current layout.
                    unsafe {
                        let p = a.alloc(layout);
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0, "size {size} align {align}");
                        for i in 0..size {
                            *p.add(i) = i as u8;
                        }
                        let q = a.realloc(p, layout, new_size);
                        assert!(!q.is_null());
                        assert_eq!(q as usize % align, 0, "{size}->{new_size} align {align}");
                        for i in 0..size.min(new_size) {
                            assert_eq!(*q.add(i), i as u8);
                        }
                        a.dealloc(q, Layout::from_size_align(new_size, align).unwrap());
                    }
                }
                // SAFETY: as above.
                unsafe {
                    let z = a.alloc_zeroed(layout);
                    assert_eq!(z as usize % align, 0);
                    assert!((0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
