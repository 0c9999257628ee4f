//! End-to-end tests of the `vm` command, run through the real binary.
//!
//! docs/LANGUAGE.md (the language) and docs/CLI.md (the command line) are
//! the contract: every expected output here was worked out from them by
//! hand. Most tests are
//! table-driven over `tests/programs/CATEGORY/*.bc`; the convention for those
//! programs (header comments and `.out` files) is described in `harness.rs`.

mod chromium;
mod gen;
mod harness;

mod adaptive;
mod architecture;
mod awfy;
mod bad_input;
mod ccmap;
mod cli;
mod compare;
mod context_path;
mod contexts;
mod cores;
mod cycles;
mod declarations;
mod deep_report;
mod differential;
mod exact_cycles;
mod examples;
mod experiment;
mod experiment_results;
mod figures;
mod folded;
mod generated;
mod incremental;
mod inline;
mod inline_explorer;
mod inline_generated;
mod instructions;
mod language_doc;
mod layers;
mod limits;
mod loading;
mod loose_ends;
mod memory_limits;
mod options;
mod page_layout;
mod profiler_costs;
mod profiles;
mod records;
mod report;
mod runtime_errors;
mod runtime_limits;
mod samplers;
mod service_threads;
mod signals;
mod threads;
mod verifier;
mod wording;
mod write_errors;
