//! Room left under the address-space limit (`ulimit -v`) for one more
//! thread.
//!
//! The system can refuse a thread after it has started: Rust's runtime maps
//! each new thread's signal stack from inside the thread, and aborts the
//! whole process if that mapping is refused. So the VM refuses a thread
//! itself, exactly as when the OS refuses it (`runtime error: cannot start
//! thread N: the OS refused`), while the room left under the limit is less
//! than a thread's stack and a margin for the threads still starting; the
//! profiler's and the controller's own threads ask the same question
//! (`profiler::spawn::start`). With no limit (the usual case) nothing is
//! read.

use std::sync::OnceLock;

/// Room kept free beyond the new thread's stack: the signal stacks and
/// first allocations of threads that are still starting.
const MARGIN: u64 = 4 << 20;

/// Bytes per page in `/proc/self/statm` (x86-64 and AArch64 Linux).
const PAGE: u64 = 4096;

/// The soft address-space limit in bytes, if there is one.
fn limit() -> Option<u64> {
    static LIMIT: OnceLock<Option<u64>> = OnceLock::new();
    *LIMIT.get_or_init(|| {
        let text = std::fs::read_to_string("/proc/self/limits").ok()?;
        let line = text.lines().find(|l| l.starts_with("Max address space"))?;
        let soft = line["Max address space".len()..]
            .split_whitespace()
            .next()?;
        soft.parse().ok()
    })
}

/// A new thread's stack: Rust's default, or `RUST_MIN_STACK`.
fn thread_stack() -> u64 {
    static STACK: OnceLock<u64> = OnceLock::new();
    *STACK.get_or_init(|| {
        std::env::var("RUST_MIN_STACK")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(2 << 20)
    })
}

/// The address space the process has mapped, in bytes.
fn mapped() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(pages * PAGE)
}

/// Is there room under the address-space limit for one more thread? True
/// when there is no limit, or when the process's mappings cannot be read.
pub fn room_for_a_thread() -> bool {
    let Some(limit) = limit() else {
        return true;
    };
    mapped().is_none_or(|used| used + thread_stack() + MARGIN <= limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_mappings_and_room() {
        // The tests run without `ulimit -v` or with far more than they map.
        let used = mapped().expect("/proc/self/statm");
        assert!(used > PAGE, "{used} bytes mapped");
        assert!(room_for_a_thread());
    }
}
