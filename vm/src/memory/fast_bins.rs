//! Small frees kept unmerged: one setting of glibc's allocator.
//!
//! Every object's fields and every array's elements are one allocation
//! from the system allocator (`crate::heap`), and a collection frees a
//! cycle's garbage in one sweep. glibc's `malloc` keeps a freed chunk of
//! at most `M_MXFAST` bytes (128 by default on 64-bit systems) in a
//! "fast bin", a list per size that the next allocation of that size pops
//! without merging it with its neighbours; a larger chunk is merged and
//! sorted into the general bins, and the next allocation splits it again.
//! A box of 8 or 9 values needs a chunk of 144 or 160 bytes: above the
//! default, so those of Storage's leaves (arrays of 1 to 10 values) went
//! through the slow paths of both `free` and `malloc` (`perf`:
//! `_int_malloc`, `_int_free`, `malloc`, `malloc_consolidate` and
//! `unlink_chunk` were 41% of its samples).
//!
//! [`keep_small_frees_unmerged`] raises the limit to the largest glibc
//! takes, 160 bytes (boxes of up to 9 values): Storage ran in 0.84 of
//! its CPU time, the other programs that allocate most (Havlak, binary_trees,
//! CD, Json, DeltaBlue, Richards) as before, with the same peak memory
//! (docs/PERFORMANCE.md, "Fast bins for small boxes"). The setting is
//! process-wide and changes no result; only the `vm` binary makes it, at
//! its start, before any thread allocates.

/// The largest `M_MXFAST` glibc accepts on a 64-bit system
/// (`80 * sizeof(size_t) / 4`).
pub const MAX_FAST_BYTES: i32 = 160;

/// Raises glibc's fast-bin limit to [`MAX_FAST_BYTES`]; true if the
/// allocator took the setting (false elsewhere: another C library, or
/// Miri, which has no `mallopt`).
#[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
pub fn keep_small_frees_unmerged() -> bool {
    // SAFETY: `mallopt` only sets a parameter of the allocator, which
    // takes effect for later frees; it reads no memory of ours.
    unsafe { libc::mallopt(libc::M_MXFAST, MAX_FAST_BYTES) == 1 }
}

/// Elsewhere there is no such setting.
#[cfg(not(all(target_os = "linux", target_env = "gnu", not(miri))))]
pub fn keep_small_frees_unmerged() -> bool {
    false
}

#[cfg(all(test, target_os = "linux", target_env = "gnu", not(miri)))]
mod tests {
    use super::*;

    #[test]
    fn glibc_takes_the_largest_fast_bin_and_refuses_one_above_it() {
        assert!(keep_small_frees_unmerged());
        // SAFETY: as in `keep_small_frees_unmerged`.
        let above = unsafe { libc::mallopt(libc::M_MXFAST, MAX_FAST_BYTES + 1) };
        assert_eq!(above, 0, "glibc took a fast-bin limit above its largest");
        // A box of 9 values (144 bytes and malloc's 8-byte header, rounded
        // to 16) is the largest that fits.
        let chunk = |values: usize| (values * 16 + 8).next_multiple_of(16);
        assert!(chunk(9) <= MAX_FAST_BYTES as usize);
        assert!(chunk(10) > MAX_FAST_BYTES as usize);
    }
}
