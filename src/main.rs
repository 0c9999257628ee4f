//! `vm`: the command-line front end. A thin binary over the `vm`,
//! `profiler` and `jit-sim` crates: it parses arguments (every flag is
//! documented in `cli/args.rs` and in docs/CLI.md), loads the program, and
//! hands it to the libraries. Exit statuses follow docs/LANGUAGE.md.

mod cli;

fn main() {
    let status = cli::main();
    std::process::exit(status);
}
