//! Huge pages for large arrays: a hint to the kernel, nothing more.
//!
//! A program that walks a large array with a stride (the sieve kernel
//! crossing out multiples in its 2,000,000 elements, 32 MB of values)
//! touches a new 4 KiB page at almost every step, and each step's store
//! waits for the translation of its address as much as for the memory.
//! Backed by 2 MiB pages, the same array needs 16 translations instead of
//! 8,192: the sieve kernel ran in 0.68 of the time on its own, 0.89 in
//! rounds interleaved with other programs, where the system time of
//! faulting the huge pages in varied from run to run (docs/PERFORMANCE.md,
//! "Huge pages for large arrays").
//!
//! Linux gives huge pages to a mapping only where asked when transparent
//! huge pages are set to `madvise` (the common default; with `always` it
//! gives them anyway, with `never` not at all). [`advise`] asks, with
//! `madvise(MADV_HUGEPAGE)`, for the whole 2 MiB pages that lie inside a
//! fresh allocation, before anything touches it, so its first touches
//! fault in huge pages. Only pages entirely inside the allocation are
//! advised, so no other memory is touched; an array's memory comes zeroed
//! from the kernel and is first touched by the program's stores, a whole
//! huge page at a time (a footprint at most that of writing it all when
//! it is made, as `newarray` did before). Elsewhere, and wherever the
//! kernel says no, nothing happens.

/// The size of a huge page on x86-64 and most other Linux platforms.
pub const HUGE_PAGE: usize = 2 << 20;

/// The smallest allocation worth advising: one that holds at least one
/// whole huge page wherever it starts.
pub const MIN_ADVISED: usize = 2 * HUGE_PAGE;

/// The whole huge pages inside `start..start + len`, as `(first, len)`;
/// `None` if there is none.
pub fn whole_pages_inside(start: usize, len: usize) -> Option<(usize, usize)> {
    let first = start.checked_next_multiple_of(HUGE_PAGE)?;
    let end = start.checked_add(len)? / HUGE_PAGE * HUGE_PAGE;
    (end > first).then(|| (first, end - first))
}

/// Asks for huge pages under the `len` bytes from `start`, an allocation
/// nothing has touched yet (a hint: the answer is ignored).
#[cfg(all(target_os = "linux", not(miri)))]
pub fn advise(start: *const u8, len: usize) {
    if len < MIN_ADVISED {
        return;
    }
    if let Some((first, len)) = whole_pages_inside(start as usize, len) {
        // SAFETY: `first..first + len` lies inside one live allocation of
        // ours (`whole_pages_inside`); MADV_HUGEPAGE changes how the kernel
        // backs those pages, never their contents or their mapping.
        unsafe {
            libc::madvise(first as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
    }
}

/// Elsewhere (and under Miri, which has no `madvise`) there is nothing
/// to ask.
#[cfg(any(not(target_os = "linux"), miri))]
pub fn advise(_start: *const u8, _len: usize) {}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn only_whole_pages_inside_the_allocation() {
        // A 32 MB array 16 bytes past a page boundary: 14 whole pages.
        let start = 7 * HUGE_PAGE + 16;
        assert_eq!(
            whole_pages_inside(start, 32_000_000),
            Some((8 * HUGE_PAGE, 14 * HUGE_PAGE))
        );
        assert_eq!(
            whole_pages_inside(HUGE_PAGE, 2 * HUGE_PAGE),
            Some((HUGE_PAGE, 2 * HUGE_PAGE))
        );
        assert_eq!(whole_pages_inside(HUGE_PAGE + 1, 2 * HUGE_PAGE - 2), None);
        assert_eq!(whole_pages_inside(usize::MAX - 8, 8), None);
    }

    /// Is the page at `addr` advised for huge pages (`hg`)?
    #[cfg(target_os = "linux")]
    pub(crate) fn advised(addr: usize) -> bool {
        mapping_flags(addr).split_whitespace().any(|f| f == "hg")
    }

    /// The flags of the mapping that holds `addr` (`/proc/self/smaps`).
    #[cfg(target_os = "linux")]
    pub(crate) fn mapping_flags(addr: usize) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").expect("smaps");
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().unwrap_or("");
            if let Some((a, b)) = range.split_once('-') {
                if let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
                {
                    inside = (a..b).contains(&addr);
                    continue;
                }
            }
            if inside && line.starts_with("VmFlags:") {
                return line.to_string();
            }
        }
        panic!("no mapping holds {addr:#x}");
    }

    /// Does this kernel have transparent huge pages at all? (Without them
    /// `madvise(MADV_HUGEPAGE)` is refused, and there is nothing to see.)
    #[cfg(target_os = "linux")]
    pub(crate) fn kernel_has_huge_pages() -> bool {
        let has = std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists();
        if !has {
            eprintln!("note: this kernel has no transparent huge pages: nothing to check");
        }
        has
    }

    #[cfg(target_os = "linux")]
    #[cfg_attr(miri, ignore = "no madvise, no /proc under Miri")]
    #[test]
    fn a_large_array_is_advised_and_a_small_one_is_not() {
        if !kernel_has_huge_pages() {
            return;
        }
        let heap_array = |len: usize| {
            let mut v: Vec<u128> = Vec::with_capacity(len);
            advise(v.as_ptr().cast(), len * 16);
            v.resize(len, 0);
            v
        };
        let large = heap_array(2_000_000);
        let (first, _) = whole_pages_inside(large.as_ptr() as usize, 32_000_000).unwrap();
        assert!(advised(first));
        let small = heap_array(1000);
        assert!(!advised(small.as_ptr() as usize));
    }

    #[test]
    fn advising_a_live_allocation_leaves_its_contents() {
        let mut v: Vec<u64> = Vec::with_capacity(MIN_ADVISED);
        advise(v.as_ptr().cast(), MIN_ADVISED * 8);
        v.resize(MIN_ADVISED, 7);
        assert!(v.iter().all(|&x| x == 7));
    }
}
