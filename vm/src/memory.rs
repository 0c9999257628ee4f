//! The memory budget of a run (`--max-heap`): one limit over every
//! thread's heap and every thread's frames, so that a runaway program
//! meets a runtime error instead of the kernel's OOM killer or an abort.
//!
//! Threads take memory from the shared [`MemoryBudget`] in steps, not per
//! allocation: a heap charges ahead for what it is about to allocate only
//! when its footprint (live data at the last collection plus what it
//! allocated since) outgrows what it holds, by a quarter of what it holds
//! (at least a [`GRAIN`], at most a [`CHUNK`]), and gives back what a
//! collection freed; so a thread with little live data holds little more
//! than that, and sixteen small threads fit where one does. The value
//! stack and the frame list are charged when they grow, and the profile's
//! own records that grow with the run (the exhaustive profile's calling
//! context tree and shadow stack) through a [`Charge`]. When the budget cannot give more, the heap collects and tries
//! again; if the live data alone exceeds the limit, the allocation (or the
//! call) is a runtime error: `out of memory: heap limit 2.0 GiB reached
//! (--max-heap)`.
//!
//! The operating system may refuse memory before the budget is spent
//! (`ulimit -v`, overcommit turned off). The binary's global allocator
//! ([`process_allocator`]) notes such a refusal here with [`note_system_refusal`]
//! (it gives back an emergency reserve and retries, so the allocation
//! itself goes through); the VM turns the note into the runtime error `out
//! of memory: the system refused N bytes` at its next safe point: a heap's
//! slow path, a yieldpoint's slow path, or the waiting thread's periodic
//! check that makes every thread take one. An allocation the VM can live
//! without (an array, the growth of a stack) is tried inside [`fallibly`]:
//! a refusal there comes back as a failed `try_reserve`, which the VM
//! reports at once, and leaves the reserve alone.

pub mod address_space;
pub mod huge_pages;
pub mod process_allocator;
pub mod small_blocks;

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The most a heap charges ahead of its footprint in one step.
pub const CHUNK: usize = 1 << 20;

/// The least a heap charges ahead in one step: what a thread with almost
/// no live data holds of the budget.
pub const GRAIN: usize = 16 << 10;

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

    /// Takes `bytes` whatever the limit (memory already allocated that
    /// must be counted: the next request meets the limit instead).
    pub fn force_take(&self, bytes: usize) {
        self.used.fetch_add(bytes, Ordering::AcqRel);
    }

    /// Gives back `bytes` taken earlier.
    pub fn give_back(&self, bytes: usize) {
        self.used.fetch_sub(bytes, Ordering::AcqRel);
    }
}

/// Bytes held of a budget by one owner (a profile's record), given back
/// when the owner drops it.
#[derive(Debug)]
pub struct Charge {
    budget: Arc<MemoryBudget>,
    bytes: usize,
}

impl Charge {
    /// Nothing held yet of `budget`.
    pub fn new(budget: Arc<MemoryBudget>) -> Charge {
        Charge { budget, bytes: 0 }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The budget's limit in bytes.
    pub fn limit(&self) -> usize {
        self.budget.limit()
    }

    /// Takes `bytes` more if the budget has room: true if it had.
    pub fn try_grow(&mut self, bytes: usize) -> bool {
        let ok = self.budget.try_take(bytes);
        if ok {
            self.bytes += bytes;
        }
        ok
    }

    /// Holds exactly `bytes` from now on, whatever the limit (memory that
    /// exists already, such as two trees merged into one).
    pub fn set(&mut self, bytes: usize) {
        if bytes > self.bytes {
            self.budget.force_take(bytes - self.bytes);
        } else {
            self.budget.give_back(self.bytes - bytes);
        }
        self.bytes = bytes;
    }
}

impl Drop for Charge {
    fn drop(&mut self) {
        self.budget.give_back(self.bytes);
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

/// `n` rounded up to a whole number of [`GRAIN`]s.
pub fn whole_grains(n: usize) -> usize {
    n.div_ceil(GRAIN).saturating_mul(GRAIN)
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
            return if bytes.is_multiple_of(one) && shift < 30 {
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
        assert_eq!(whole_grains(1), GRAIN);
        assert_eq!(whole_grains(GRAIN + 1), 2 * GRAIN);
        assert_eq!(whole_grains(0), 0);
    }

    #[test]
    fn a_charge_holds_until_dropped() {
        let b = Arc::new(MemoryBudget::new(3 * CHUNK));
        let mut c = Charge::new(b.clone());
        assert!(c.try_grow(2 * CHUNK));
        assert!(!c.try_grow(2 * CHUNK), "past the limit");
        assert_eq!((c.bytes(), b.used()), (2 * CHUNK, 2 * CHUNK));
        c.set(4 * CHUNK);
        assert_eq!(b.used(), 4 * CHUNK, "set counts what exists");
        c.set(CHUNK);
        assert_eq!(b.used(), CHUNK);
        drop(c);
        assert_eq!(b.used(), 0);
    }
}
