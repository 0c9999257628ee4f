//! The virtual machine: a stack-based bytecode VM whose method prologues,
//! epilogues and loop backedges carry yieldpoints.
//!
//! Data flows from text to running code in four steps (see
//! docs/ARCHITECTURE.md):
//!
//! 1. [`asm`]: lexing and parsing `.bc` text into a syntax tree;
//! 2. [`verify`]: resolving names and checking the documented rules, giving a
//!    [`module::Module`];
//! 3. [`loader`]: laying out classes, building virtual-method tables and
//!    inserting yieldpoints, giving a runnable [`loader::Program`];
//! 4. [`interp`]: the interpreter, one per managed thread ([`thread`]), with
//!    its heap ([`heap`]).
//!
//! The VM knows nothing of its clients: profilers attach through the hooks
//! in [`hooks`].
//!
//! The VM core's modules are layered, each using only those below it
//! (`tests/e2e/layers.rs` checks it on the `crate::` paths):
//!
//! ```text
//! runtime    the Vm: owns the state below, starts threads, ends the run
//!    |
//! interp     one thread's interpreter, given a narrow VmContext
//!    |
//! context    what an interpreter may use of its VM (and the Runtime trait)
//!    |
//! safepoint  the protocol, methods of SafepointState over the registry
//!    |
//! hooks      the profiler's door: Hooks, ThreadListener, ThreadCtx
//!    |
//! thread     ThreadShared (control word, requests), ThreadRegistry
//! ```

#![warn(missing_docs)]
// The crate's documentation is written to be read with its private items
// (docs/ARCHITECTURE.md: `cargo doc --document-private-items`), where a
// public item's link to a private one resolves.
#![allow(rustdoc::private_intra_doc_links)]

pub mod asm;
pub mod bodycount;
pub mod call_cache;
mod context;
pub mod diag;
pub mod disasm;
pub mod elements;
pub mod error;
pub mod frame;
pub mod heap;
pub mod hooks;
pub mod install;
pub mod instr;
mod interp;
pub mod interrupt;
pub mod loader;
pub mod memory;
pub mod module;
pub mod opcode;
pub mod output;
pub mod printer;
pub mod profiler_cost;
pub mod runtime;
pub mod safepoint;
pub mod schedule;
pub mod simsample;
pub mod stdio;
pub mod superinstr;
#[cfg(test)]
mod test_programs;
pub mod thread;
pub mod translate;
mod trip;
pub mod value;
pub mod verify;
