//! Sampling profilers over the VM's yieldpoints.
//!
//! The crate follows the roles of Jikes RVM's adaptive system:
//!
//! - **listeners** ([`listeners`], [`exact`]) live on the application
//!   threads, are called at taken yieldpoints (through
//!   [`vm::hooks::ThreadListener`]) and only record raw samples into a
//!   thread-local buffer ([`samples`]);
//! - the **organizer** ([`organizer`]) runs on its own thread and folds full
//!   buffers into the **repositories**: the dynamic call graph ([`dcg`])
//!   and, with a calling-context `--record`, that record's repository;
//! - the **calling-context records** ([`records`]: `cct`, `pcct`, `acct`,
//!   `ccmap`, a folder each) each have a half on every thread, which the
//!   listeners feed their samples, and a half in the organizer;
//! - a **clock** ([`clock`]) decides when samples are taken;
//! - a thread of its own (or the adaptive controller's) that the system
//!   refuses is a [`spawn::StartError`], not a panic;
//! - after the run, a [`session::Profiler`] turns the repositories into the
//!   profile file ([`profile`], docs/LANGUAGE.md "Profiles"), which the accuracy
//!   metrics and `--report` read.
//!
//! Options are declared once, in [`options`]; their defaults and the rules
//! between them are in [`config`] (docs/CLI.md).

// The crate's documentation is written to be read with its private items
// (docs/ARCHITECTURE.md: `cargo doc --document-private-items`), where a
// public item's link to a private one resolves.
#![allow(rustdoc::private_intra_doc_links)]

pub mod clock;
pub mod config;
pub mod dcg;
pub mod exact;
pub mod listeners;
pub mod options;
pub mod organizer;
pub mod priority;
pub mod records;
pub mod sampler;
pub mod samples;
pub mod session;
pub mod spawn;
pub mod stack;
pub mod stop;
pub mod trace;
pub mod tune;

pub use session::{Profiler, RunFacts};
pub use spawn::StartError;
