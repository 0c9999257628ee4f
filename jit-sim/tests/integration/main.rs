//! The inliner's integration tests, in one test binary: one module per
//! file (one link instead of two; docs/PERFORMANCE.md, "Build time").

mod inline_programs;
mod random_programs;
