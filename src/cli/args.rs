//! Every command and flag of the `vm` command, in one place (SPEC section
//! 2). `vm --help` and `vm COMMAND --help` print these doc comments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// A bytecode VM with a built-in adaptive profiler.
#[derive(Parser, Debug)]
#[command(name = "vm", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a program (program output on stdout, everything else on stderr).
    Run(RunArgs),
    /// Assemble and verify a program without running it.
    Check(FileArg),
    /// Print the loaded code, yieldpoints included.
    Disasm(DisasmArgs),
}

/// A program file.
#[derive(Args, Debug)]
pub struct FileArg {
    /// The program (`.bc` text).
    pub program: PathBuf,
}

/// Options of `vm disasm`.
#[derive(Args, Debug)]
pub struct DisasmArgs {
    /// The program (`.bc` text).
    pub program: PathBuf,
    /// Show the code as loaded without yieldpoints.
    #[arg(long)]
    pub no_yieldpoints: bool,
}

/// Options of `vm run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program (`.bc` text).
    pub program: PathBuf,
    /// Load without yieldpoints (to measure their cost).
    #[arg(long)]
    pub no_yieldpoints: bool,
    /// Frame limit per thread; `main` counts as one frame.
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub max_frames: u64,
    /// Print run statistics on stderr at the end: wall time, threads,
    /// garbage collections, peak resident memory.
    #[arg(long)]
    pub stats: bool,
    /// Set a global before `main` runs (repeatable).
    #[arg(long = "set", value_name = "NAME=INT", value_parser = parse_set)]
    pub set: Vec<(String, i64)>,
}

fn parse_set(s: &str) -> Result<(String, i64), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not NAME=INT"))?;
    let value = value
        .trim()
        .parse::<i64>()
        .map_err(|_| format!("`{value}` is not a 64-bit integer"))?;
    Ok((name.trim().to_string(), value))
}
