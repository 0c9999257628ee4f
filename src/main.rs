//! `vm`: the command-line front end. A thin binary over the `vm`,
//! `profiler` and `jit-sim` crates: it parses arguments (every flag is
//! documented in `cli/args.rs` and in docs/CLI.md), loads the program, and
//! hands it to the libraries. Exit statuses follow docs/LANGUAGE.md.
//! The process allocates through [`vm::memory::process_allocator::Guarded`],
//! so that the system
//! refusing memory ends a run with a message and its profile, not an
//! abort.

mod cli;

use vm::memory::process_allocator as alloc;

#[global_allocator]
static GLOBAL: alloc::Guarded = alloc::Guarded;

/// Run among the process's initializers, before Rust's runtime makes its
/// first allocation: mimalloc reserves little address space
/// ([`vm::memory::small_blocks::reserve_little`]).
#[used]
#[unsafe(link_section = ".init_array")]
static RESERVE_LITTLE: extern "C" fn() = vm::memory::small_blocks::reserve_little;

fn main() {
    alloc::keep_reserve();
    alloc::remove_profile_on_abort();
    let status = cli::main();
    std::process::exit(status);
}
