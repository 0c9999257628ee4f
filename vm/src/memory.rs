//! The memory budget of a run (`--max-heap`): one limit over every
//! thread's heap and every thread's frames, so that a runaway program
//! meets a runtime error instead of the kernel's OOM killer or an abort.
//!
//! Threads take memory from the shared [`MemoryBudget`] in chunks of
//! [`CHUNK`] bytes, not per allocation: a heap charges ahead for what it is
//! about to allocate only when its footprint (live data at the last
//! collection plus what it allocated since) outgrows what it holds, and
//! gives back what a collection freed. A frame stack is charged when it
//! grows. When the budget cannot give more, the heap collects and tries
//! again; if the live data alone exceeds the limit, the allocation (or the
//! call) is a runtime error: `out of memory: heap limit 2.0 GiB reached
//! (--max-heap)`.
//!
//! The operating system may refuse memory before the budget is spent
//! (`ulimit -v`, overcommit turned off). The binary's global allocator
//! (src/alloc.rs) notes such a refusal here with [`note_system_refusal`]
//! (it gives back an emergency reserve and retries, so the allocation
//! itself goes through); the VM turns the note into the runtime error `out
//! of memory: the system refused N bytes` at its next safe point: a heap's
//! slow path, a yieldpoint's slow path, or the waiting thread's periodic
//! check that makes every thread take one. An allocation the VM can live
//! without (an array, the growth of a stack) is tried inside [`fallibly`]:
//! a refusal there comes back as a failed `try_reserve`, which the VM
//! reports at once, and leaves the reserve alone.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The unit in which threads take memory from the budget.
pub const CHUNK: usize = 1 << 20;

/// A limit on the bytes held by all threads of a run.
#[derive(Debug)]
pub struct MemoryBudget {
    limit: usize,
    used: AtomicUsize,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> MemoryBudget {
        MemoryBudget {
            limit,
            used: AtomicUsize::new(0),
        }
    }

    /// A budget that never refuses (tests, embedding).
    pub fn unlimited() -> MemoryBudget {
        MemoryBudget::new(usize::MAX)
    }

    /// The limit in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes held now, summed over threads.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    /// Takes `bytes` if that stays within the limit.
    pub fn try_take(&self, bytes: usize) -> bool {
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                u.checked_add(bytes).filter(|&n| n <= self.limit)
            })
            .is_ok()
    }

    /// Gives back `bytes` taken earlier.
    pub fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// Bytes of the first allocation the system refused, 0 while none was.
static SYSTEM_REFUSED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Is this thread inside [`fallibly`]? (A `const` thread-local without
    /// a destructor: reading it neither allocates nor locks, so the
    /// allocator may.)
    static FALLIBLE: Cell<bool> = const { Cell::new(false) };
}

/// Notes that the system refused an allocation of `bytes` (the first
/// refusal is kept). Called by the global allocator: it neither allocates
/// nor locks.
pub fn note_system_refusal(bytes: usize) {
    let _ = SYSTEM_REFUSED.compare_exchange(0, bytes.max(1), Ordering::AcqRel, Ordering::Relaxed);
}

/// The size of the first allocation the system refused, if one was.
#[inline]
pub fn system_refusal() -> Option<usize> {
    match SYSTEM_REFUSED.load(Ordering::Relaxed) {
        0 => None,
        n => Some(n),
    }
}

/// Runs `f`, an allocation whose failure the caller handles (a
/// `try_reserve`): inside, the global allocator lets a refusal fail the
/// allocation instead of spending its reserve or stopping the process.
pub fn fallibly<T>(f: impl FnOnce() -> T) -> T {
    let outer = FALLIBLE.with(|c| c.replace(true));
    let r = f();
    FALLIBLE.with(|c| c.set(outer));
    r
}

/// Is the current thread inside [`fallibly`]? (For the global allocator:
/// neither allocates nor locks.)
pub fn in_fallible_allocation() -> bool {
    FALLIBLE.try_with(Cell::get).unwrap_or(false)
}

/// `n` rounded up to a whole number of [`CHUNK`]s.
pub fn whole_chunks(n: usize) -> usize {
    n.div_ceil(CHUNK).saturating_mul(CHUNK)
}

/// The default `--max-heap`: half of the machine's physical memory (from
/// `/proc/meminfo`; 4 GiB where that cannot be read).
pub fn default_limit() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kib.saturating_mul(1024) / 2)
        })
        .filter(|&b| b > 0)
        .unwrap_or(4 << 30)
}

/// A size for a message: `256 MiB`, `2.0 GiB`, `1.5 KiB`, `1000 bytes`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (unit, shift) in UNITS {
        let one = 1u64 << shift;
        if bytes >= one {
            return if bytes % one == 0 && shift < 30 {
                format!("{} {unit}", bytes >> shift)
            } else {
                format!("{:.1} {unit}", bytes as f64 / one as f64)
            };
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_refuses_past_the_limit_and_takes_back() {
        let b = MemoryBudget::new(3 * CHUNK);
        assert!(b.try_take(2 * CHUNK));
        assert!(!b.try_take(2 * CHUNK));
        assert_eq!(b.used(), 2 * CHUNK);
        b.give_back(CHUNK);
        assert!(b.try_take(2 * CHUNK));
        assert_eq!(b.used(), 3 * CHUNK);
        assert!(MemoryBudget::unlimited().try_take(usize::MAX / 2));
    }

    #[test]
    fn fallible_scopes_nest_and_end() {
        assert!(!in_fallible_allocation());
        let inner = fallibly(|| fallibly(in_fallible_allocation) && in_fallible_allocation());
        assert!(inner);
        assert!(!in_fallible_allocation());
    }

    #[test]
    fn sizes_format_for_messages() {
        assert_eq!(format_size(256 << 20), "256 MiB");
        assert_eq!(format_size(2 << 30), "2.0 GiB");
        assert_eq!(format_size(3 << 29), "1.5 GiB");
        assert_eq!(format_size(1000), "1000 bytes");
        assert_eq!(format_size(1536), "1.5 KiB");
        assert_eq!(whole_chunks(1), CHUNK);
        assert_eq!(whole_chunks(CHUNK + 1), 2 * CHUNK);
        assert_eq!(whole_chunks(0), 0);
    }
}
