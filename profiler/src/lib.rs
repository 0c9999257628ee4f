//! Sampling profilers over the VM's yieldpoints.
//!
//! The crate follows the roles of Jikes RVM's adaptive system:
//!
//! - **listeners** live on the application threads, are called at taken
//!   yieldpoints (through [`vm::hooks::ThreadListener`]) and only record raw
//!   samples into a thread-local buffer;
//! - **organizers** run on their own thread and fold full buffers into the
//!   **repositories** (the dynamic call graph, calling context trees);
//! - the profile file and the accuracy **metrics** are computed from the
//!   repositories after the run.
//!
//! Map of the modules: [`config`] (options of SPEC section 2),
//! [`profile`] (the JSON file of SPEC section 3).

pub mod config;
pub mod profile;
