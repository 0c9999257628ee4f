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
