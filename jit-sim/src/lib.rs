//! The JIT simulator: what an optimizing compiler would do with the
//! profiles, done on bytecode so that its effect can be read and run.
//!
//! - [`inline`]: a bytecode-to-bytecode inliner over [`vm::module::Module`]
//!   (static and guarded virtual inlining, nested, with budgets); its output
//!   is an ordinary program, printed as `.bc` by [`vm::printer`].
//!
//! - [`policy`]: the inlining policies (`static`, `hot-edge`, `linear`)
//!   that turn a profile into decisions for [`inline`].
//!
//! The adaptive controller builds on both and comes in later work.

#![warn(missing_docs)]

pub mod inline;
pub mod policy;
