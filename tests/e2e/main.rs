//! End-to-end tests of the `vm` command, run through the real binary.
//!
//! The SPEC (`../shared/SPEC.md`, sections 1 and 2) is the contract: every
//! expected output here was worked out from it by hand. Most tests are
//! table-driven over `tests/programs/CATEGORY/*.bc`; the convention for those
//! programs (header comments and `.out` files) is described in `harness.rs`.

mod harness;

mod adaptive;
mod awfy;
mod bad_input;
mod ccmap;
mod cli;
mod compare;
mod contexts;
mod cycles;
mod declarations;
mod differential;
mod examples;
mod incremental;
mod inline;
mod inline_generated;
mod instructions;
mod limits;
mod loading;
mod profiles;
mod records;
mod runtime_errors;
mod samplers;
mod threads;
mod verifier;
