//! Small blocks from mimalloc, large ones from the system allocator: the
//! allocator under [`super::process_allocator::Guarded`].
//!
//! A program that allocates much allocates small: every object's fields
//! and every array's elements are one block ([`crate::heap`]), most of a
//! few values, and a collection frees a cycle's garbage in one sweep.
//! glibc's `malloc` and `free` of such blocks were a third of Storage's
//! machine instructions (callgrind: `_int_malloc`, `_int_free`, `calloc`,
//! `malloc_consolidate`), where mimalloc, an allocator built for exactly
//! this (free lists per size class and per page, sharded by thread), pops
//! and pushes a free list: docs/PERFORMANCE.md, "Small blocks".
//!
//! Large blocks stay with the system allocator, for what it does with them
//! that the VM relies on: a large `calloc` comes fresh from the kernel,
//! untouched ([`crate::elements`]), and a large `realloc` (a deep
//! recursion's value stack, doubling) moves pages with `mremap` instead of
//! copying them into a second block, so the peak resident memory stays
//! near `--max-heap` (tests/e2e/memory_limits.rs). Which allocator owns a
//! block follows from its layout alone ([`is_small`]), so `dealloc` needs
//! no lookup; a `realloc` across the line copies.
//!
//! mimalloc reserves 1 GiB of address space for its first arena, which
//! under `ulimit -v` is 1 GiB less for the threads' stacks and the large
//! blocks; [`reserve_little`], which the `vm` binary runs before its
//! runtime's first allocation, makes that [`ARENA_RESERVE_KIB`].

use std::alloc::{GlobalAlloc, Layout, System};

/// The allocator of small blocks: mimalloc; under Miri, which cannot run
/// its C code, the system's.
#[cfg(not(miri))]
use mimalloc::MiMalloc as Small;
#[cfg(miri)]
use std::alloc::System as Small;

/// The largest block mimalloc serves (bytes): an object of 64 fields,
/// an array of 64 values.
pub const SMALL_MAX: usize = 1024;

/// Does a block of `layout` come from mimalloc?
#[inline]
pub fn is_small(layout: Layout) -> bool {
    layout.size() <= SMALL_MAX && layout.align() <= 16
}

/// The address space mimalloc reserves at a time for its arenas (KiB):
/// 64 MiB, two of its segments.
pub const ARENA_RESERVE_KIB: i64 = 64 << 10;

/// mimalloc's option `arena_reserve`: its place in `mi_option_e`
/// (mimalloc.h, v2 and v3 alike, as libmimalloc-sys vendors them; its bindings
/// do not name it). The test below reads it back.
#[cfg(not(miri))]
const MI_OPTION_ARENA_RESERVE: libmimalloc_sys::mi_option_t = 23;

/// Sets mimalloc's arena reservation to [`ARENA_RESERVE_KIB`]. To take
/// effect it must run before the first small block is allocated: the `vm`
/// binary calls it from the process's initializers (`main.rs`), before
/// Rust's runtime starts.
pub extern "C" fn reserve_little() {
    #[cfg(not(miri))]
    // SAFETY: sets one of mimalloc's options, as its API allows at any
    // time; this runs before any thread but the first exists.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_ARENA_RESERVE, ARENA_RESERVE_KIB as _);
    }
}

/// mimalloc for blocks up to [`SMALL_MAX`] bytes, the system allocator
/// for the rest.
pub struct SmallBlocksFirst;

/// `$call` (a method and its arguments) on the allocator whose blocks
/// `$layout` describes.
macro_rules! by_size {
    ($layout:expr, $($call:tt)*) => {
        if is_small($layout) {
            Small.$($call)*
        } else {
            System.$($call)*
        }
    };
}

// SAFETY: each block is served and released by one allocator, chosen by
// `is_small` of its layout, which the caller passes unchanged to
// `dealloc` and `realloc`; a `realloc` that crosses the line allocates
// the new block from the other allocator, copies the smaller size, and
// releases the old one only once the new one exists.
unsafe impl GlobalAlloc for SmallBlocksFirst {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, passed on.
        unsafe { by_size!(layout, alloc(layout)) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        unsafe { by_size!(layout, alloc_zeroed(layout)) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from the allocator `is_small(layout)` names.
        unsafe { by_size!(layout, dealloc(ptr, layout)) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size` with `layout.align()`
        // is a valid layout.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: `ptr` came from the allocator of `layout`; when the new
        // size stays on its side, that allocator reallocates; else the
        // new block is made, filled and the old one released.
        unsafe {
            match (is_small(layout), is_small(new)) {
                (true, true) => Small.realloc(ptr, layout, new_size),
                (false, false) => System.realloc(ptr, layout, new_size),
                _ => {
                    let p = self.alloc(new);
                    if !p.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    p
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block of `size` bytes filled with a pattern, reallocated to
    /// `new_size`: the common prefix survives, whichever allocators the
    /// two sizes belong to.
    fn realloc_keeps_contents(size: usize, new_size: usize) {
        let a = SmallBlocksFirst;
        let layout = Layout::from_size_align(size, 8).unwrap();
        // SAFETY: non-zero sizes; each block is used within its size and
        // released with the layout it has.
        unsafe {
            let p = a.alloc(layout);
            assert!(!p.is_null());
            for i in 0..size {
                *p.add(i) = (i % 251) as u8;
            }
            let q = a.realloc(p, layout, new_size);
            assert!(!q.is_null());
            for i in 0..size.min(new_size) {
                assert_eq!(
                    *q.add(i),
                    (i % 251) as u8,
                    "byte {i} of {size} -> {new_size}"
                );
            }
            a.dealloc(q, Layout::from_size_align(new_size, 8).unwrap());
        }
    }

    #[test]
    fn a_realloc_keeps_the_contents_on_either_side_and_across_the_line() {
        for (from, to) in [
            (16, 64),
            (SMALL_MAX, SMALL_MAX + 1),
            (SMALL_MAX + 1, SMALL_MAX),
            (64, 1 << 20),
            (1 << 20, 48),
            (1 << 16, 1 << 20),
        ] {
            realloc_keeps_contents(from, to);
        }
    }

    #[test]
    fn zeroed_blocks_are_zero_on_both_sides() {
        let a = SmallBlocksFirst;
        for size in [16, SMALL_MAX, SMALL_MAX + 16, 1 << 20] {
            let layout = Layout::from_size_align(size, 16).unwrap();
            // SAFETY: a non-zero size; read within it, released with it.
            unsafe {
                let p = a.alloc_zeroed(layout);
                assert!(!p.is_null());
                assert_eq!(p as usize % 16, 0, "aligned");
                assert!((0..size).all(|i| *p.add(i) == 0), "{size} bytes zeroed");
                a.dealloc(p, layout);
            }
        }
    }

    /// The option's index is mimalloc's `arena_reserve`: its default is
    /// 1 GiB, the only option of that default, and it takes the value.
    #[cfg(not(miri))]
    #[test]
    fn the_arena_reserve_option_is_the_one_set() {
        // SAFETY: reads and sets an option (tests share the process; the
        // value set is the one the binary sets).
        unsafe {
            let before = libmimalloc_sys::mi_option_get(MI_OPTION_ARENA_RESERVE);
            assert!(
                before == 1 << 20 || before == ARENA_RESERVE_KIB as _,
                "option {MI_OPTION_ARENA_RESERVE} is {before}, not 1 GiB in KiB"
            );
            reserve_little();
            assert_eq!(
                libmimalloc_sys::mi_option_get(MI_OPTION_ARENA_RESERVE),
                ARENA_RESERVE_KIB as _
            );
        }
    }

    #[test]
    fn the_line_is_by_size_and_alignment() {
        assert!(is_small(Layout::from_size_align(SMALL_MAX, 16).unwrap()));
        assert!(!is_small(
            Layout::from_size_align(SMALL_MAX + 1, 16).unwrap()
        ));
        assert!(!is_small(Layout::from_size_align(64, 4096).unwrap()));
    }
}
