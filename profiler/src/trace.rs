//! An optional trace of where each timer sample was taken (cargo feature
//! `sample-trace`, off by default and then compiled to nothing).
//!
//! With the feature, every sample of `--profile=timer` (a tick noticed at a
//! yieldpoint, or a `--sampler` safepoint) prints one line on stderr:
//!
//! ```text
//! sample-trace THREAD METHOD KIND PC
//! ```
//!
//! (`KIND` is `prologue`, `epilogue`, `backedge` or `blocked`.) The
//! sequence of one thread's lines shows what a profile cannot: whether the
//! thread ran between two samples. `bench/lockstep.sh` uses it to show why
//! a global safepoint looks more accurate than it is when there are more
//! computing threads than cores (docs/SAMPLERS.md, "Why the global
//! safepoint looks better on few cores").

use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;

/// Prints the sample `t` is taking at a yieldpoint of `kind` (`None`: the
/// thread is blocked in `sleep` or `join`).
#[cfg(feature = "sample-trace")]
pub fn sample(t: &ThreadCtx<'_>, kind: Option<YieldKind>) {
    if let Some(top) = t.frames.last() {
        let method = &t.program.body(top.body).name;
        // Never a panic on a stderr that cannot be written.
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "{}",
            line(t.thread.id, method, kind, t.pc)
        );
    }
}

/// Without the `sample-trace` feature: nothing.
#[cfg(not(feature = "sample-trace"))]
#[inline(always)]
pub fn sample(_: &ThreadCtx<'_>, _: Option<YieldKind>) {}

/// One line of the trace: `sample-trace THREAD METHOD KIND PC`, five
/// fields separated by single spaces (method names have no spaces).
pub fn line(thread: u32, method: &str, kind: Option<YieldKind>, pc: u32) -> String {
    let kind = match kind {
        Some(YieldKind::Prologue) => "prologue",
        Some(YieldKind::Epilogue) => "epilogue",
        Some(YieldKind::Backedge) => "backedge",
        None => "blocked",
    };
    format!("sample-trace {thread} {method} {kind} {pc}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_has_the_five_fields_bench_lockstep_reads() {
        let l = line(3, "pair", Some(YieldKind::Prologue), 0);
        assert_eq!(l, "sample-trace 3 pair prologue 0");
        assert_eq!(
            line(0, "step", Some(YieldKind::Backedge), 6)
                .split(' ')
                .count(),
            5
        );
        assert!(line(1, "tick", Some(YieldKind::Epilogue), 2).contains(" epilogue "));
        assert!(line(7, "napper", None, 4).ends_with("napper blocked 4"));
    }
}
