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
//! - [`adaptive`]: the adaptive controller of `vm run --adaptive`: reads the
//!   live profile, weighs the benefit of recompiling a hot method with
//!   inlining against its cost (Whaley 2000), and installs the new code while
//!   the program runs.
//!
//! - [`session`]: one run of a program, profiled and optionally with the
//!   adaptive controller: the one call `vm run` and `vm inline` make.

#![warn(missing_docs)]
// The crate's documentation is written to be read with its private items
// (docs/ARCHITECTURE.md: `cargo doc --document-private-items`), where a
// public item's link to a private one resolves.
#![allow(rustdoc::private_intra_doc_links)]

pub mod adaptive;
pub mod inline;
pub mod policy;
pub mod session;
