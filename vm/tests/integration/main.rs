//! The VM library's integration tests, in one test binary: one module per
//! file. (Each test binary is linked on its own, so five binaries cost five
//! links of the whole VM; docs/PERFORMANCE.md, "Build time".)

mod body_counts;
mod call_cache;
mod hot_yieldpoints;
mod panics;
mod passes;
mod safepoint_blocked;
mod safepoints;
mod trampolines;
mod unchecked;
