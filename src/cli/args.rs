//! Every command and flag of the `vm` command, in one place (docs/CLI.md).
//! `vm --help` and `vm COMMAND --help` print these doc comments; the
//! profiling options of `vm run` come from the profiler's option table
//! (src/cli/profile_args.rs).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub use super::profile_args::ProfileArgs;

/// A bytecode VM with a built-in adaptive profiler.
#[derive(Parser, Debug)]
#[command(name = "vm", version, about, long_about = None, propagate_version = true, after_help = EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The examples of `vm --help` (tests/e2e/cli.rs runs each).
pub const EXAMPLES: &str = "\
Examples, from the repository's root:
  vm run programs/examples/fib.bc
  vm run programs/examples/fib.bc --profile=exhaustive --profile-out=exact.json
  vm run programs/examples/fib.bc --profile=cbs --clock=virtual --report --profile-out=cbs.json
  vm compare cbs.json exact.json
  vm report cbs.json --against exact.json --format=html -o report.html
  vm inline programs/examples/arnold-grove-fig1.bc --emit=inlined.bc

`vm COMMAND --help` describes a command; docs/CLI.md every flag, docs/LANGUAGE.md the .bc language.";

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run a program (program output on stdout, everything else on stderr).
    Run(Box<RunArgs>),
    /// Assemble and verify a program without running it.
    Check(FileArg),
    /// Print the loaded code, yieldpoints included.
    Disasm(DisasmArgs),
    /// Accuracy of one profile against another (docs/LANGUAGE.md).
    ///
    /// Reads two `vm-profile/1` files (written by `vm run --profile-out`)
    /// and prints, one per line as `name: value` with two decimals, in this
    /// order:
    ///
    ///   dcg-overlap          0-100, overlap of the dynamic call graphs
    ///                        (Arnold & Ryder: sum over the edges in both
    ///                        of the smaller percentage of weight)
    ///   cct-overlap          0-100, the same over calling contexts
    ///                        (paths from the root), weighted by calls
    ///   method-correlation   -1 to 1, Pearson correlation of the methods'
    ///                        self counts
    ///   hot-edge-coverage    0-100, share of REF's hot contexts (calls at
    ///                        least 0.1 x its hottest's) found in PROFILE
    ///
    /// A metric the two files cannot both give (a section missing from one
    /// of them: `dcg`, `cct`, `methods`) is left out. So is one that is
    /// undefined on them (a total weight of 0, self counts that do not
    /// vary, a reference without calls), with a note on stderr saying why.
    /// If no section is in common, a note saying which sections each file
    /// has goes to stderr, stdout gets nothing (`{}` with --json), and the
    /// status is still 0.
    ///
    /// Exit status: 0 success; 66 a file cannot be read; 65 a file is not
    /// a valid vm-profile/1 profile; 2 bad usage.
    #[command(verbatim_doc_comment)]
    Compare(CompareArgs),
    /// Profile a run, decide what to inline, print the decisions, emit the
    /// optimized program.
    ///
    /// Takes every `vm run` option. The program's output goes to stdout as
    /// under `vm run`; then the inlining log goes to stderr, one line per
    /// call site and target considered (docs/INLINING.md, "Reading the
    /// log"). Without --profile, hot-edge and linear profile exhaustively.
    /// Exit status: the program's (70 also when a thread of the profiler
    /// cannot start); 2 bad usage; 65 invalid program or profile file; 66
    /// a file cannot be read or written.
    Inline(Box<super::inline::InlineArgs>),
    /// Reports of profile files: text, flame graphs, speedscope, DOT, HTML.
    ///
    /// Reads `vm-profile/1` files (written by `vm run --profile-out`) and
    /// writes one report to stdout, or to FILE with -o:
    ///
    ///   text         what `vm run --report` prints; with --against also
    ///                the accuracy metrics of `vm compare` and the edges
    ///                and contexts the sample over- and under-weights most
    ///   folded       collapsed stacks, `main;A;B 42` (weight = self), one
    ///                line per calling context, for flame-graph tools
    ///   flamegraph   an SVG flame graph of the calling contexts; with
    ///                --against a differential one (red: the sample
    ///                over-weights a context, blue: under-weights it)
    ///   speedscope   a file for the speedscope viewer; several PROFILEs
    ///                become one file with one profile each
    ///   dot          Graphviz DOT of the call graph (--tree: of the
    ///                calling-context tree); render with `dot -Tsvg`
    ///   html         one self-contained page: summary, hot methods, call
    ///                edges, flame graph; with --against the metrics and
    ///                the differential flame graph
    ///
    /// folded, flamegraph, speedscope and `dot --tree` need a
    /// calling-context tree: record one with --record=cct (or pcct, acct,
    /// ccmap). flamegraph, speedscope, `dot --tree` and html fold contexts
    /// under --min-percent of the total into one `(other)` box per parent.
    ///
    /// Exit status: 0 success; 66 a file cannot be read or written; 65 a
    /// file is not a valid vm-profile/1 profile; 2 bad usage (an unknown
    /// format, an option that does not apply, a profile without the
    /// section the format needs, --against a profile of another program).
    #[command(verbatim_doc_comment)]
    Report(ReportArgs),
    /// Reproduce a paper's table or figure (docs/EXPERIMENTS.md).
    ///
    /// Runs the experiment NAME (`all`: every one) with this `vm` binary
    /// and writes DIR/NAME.csv (the raw measurements), DIR/NAME.svg (the
    /// plot) and DIR/NAME.md (our table beside the paper's), and prints
    /// the table. --list names the experiments.
    ///
    /// Exit status: 0 success; 2 bad usage (an unknown NAME: the message
    /// lists the names); 66 a program of --programs cannot be found, or
    /// DIR cannot be created; 70 a measurement failed.
    #[command(verbatim_doc_comment)]
    Experiment(super::experiment::ExperimentArgs),
}

/// The formats of `vm report`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportKind {
    /// The readable summary of `vm run --report`.
    Text,
    /// Collapsed stacks, one line per calling context.
    Folded,
    /// An SVG flame graph.
    Flamegraph,
    /// A speedscope file.
    Speedscope,
    /// Graphviz DOT.
    Dot,
    /// A self-contained HTML page.
    Html,
}

/// When `vm report` collapses recursion in a calling-context tree
/// ([`profile::report::recursion`]).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CollapseRecursion {
    /// In a tree deeper than 1,000 levels.
    Auto,
    /// In every tree.
    Always,
    /// Never: every level kept (a deep tree's report grows with the
    /// square of its depth).
    Never,
}

/// Options of `vm report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The profiles (`vm-profile/1` JSON files); several only with
    /// --format=speedscope.
    #[arg(value_name = "PROFILE.json", required = true)]
    pub profiles: Vec<PathBuf>,
    /// A reference profile of the same program, usually the exhaustive
    /// one: adds the accuracy of PROFILE against it (text, flamegraph,
    /// html).
    #[arg(long, value_name = "REF.json")]
    pub against: Option<PathBuf>,
    /// The report to write.
    #[arg(long, value_name = "FORMAT", default_value = "text")]
    pub format: ReportKind,
    /// Write the report to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Contexts under this percentage of the total are folded into one
    /// `(other)` box per parent (flamegraph, speedscope, dot --tree, html);
    /// 0 keeps them all.
    #[arg(long, value_name = "PERCENT", default_value_t = profile::report::DEFAULT_MIN_PERCENT, value_parser = parse_percent)]
    pub min_percent: f64,
    /// With --format=dot: the calling-context tree instead of the call
    /// graph.
    #[arg(long)]
    pub tree: bool,
    /// Keep each method at most once on a context's path, merging a
    /// recursive call into its caller's context: `auto` for a tree deeper
    /// than 1,000 levels (said on stderr), `always`, `never`.
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    pub collapse_recursion: CollapseRecursion,
    /// Refuse a file larger than this (e.g. 256M, 1G) before reading it
    /// whole; status 66
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = super::limits::parse_size)]
    pub max_source: u64,
}

fn parse_percent(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(v) if (0.0..=100.0).contains(&v) => Ok(v),
        _ => Err(format!("`{s}` is not a percentage from 0 to 100")),
    }
}

/// A program file and `--max-source`: declared here once, flattened into
/// the commands that read a program (`check`, `disasm`, `run`, `inline`).
#[derive(Args, Debug)]
pub struct FileArg {
    /// The program (`.bc` text).
    pub program: PathBuf,
    #[command(flatten)]
    pub limit: MaxSource,
}

/// `--max-source` at its default for programs and profiles of 256M
/// (`vm report`, which reads large profiles, has its own of 1G).
#[derive(Args, Debug)]
pub struct MaxSource {
    /// Refuse a file larger than this (e.g. 256M, 1G) before reading it
    /// whole; status 66
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = super::limits::parse_size, help_heading = LIMITS)]
    pub max_source: u64,
}

/// Options of `vm disasm`.
#[derive(Args, Debug)]
pub struct DisasmArgs {
    #[command(flatten)]
    pub file: FileArg,
    /// Show the code as loaded without yieldpoints.
    #[arg(long)]
    pub no_yieldpoints: bool,
    /// Show the code a plain `vm run` executes, with the interpreter's
    /// superinstructions, instead of the code the counting modes run.
    #[arg(long)]
    pub exec: bool,
}

/// Options of `vm compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The profile to judge (a `vm-profile/1` JSON file).
    #[arg(value_name = "PROFILE.json")]
    pub profile: PathBuf,
    /// The reference it is judged against, usually the exhaustive profile
    /// (`--profile=exhaustive`) of the same program.
    #[arg(value_name = "REF.json")]
    pub reference: PathBuf,
    /// Print one JSON object instead, the metric names as keys and
    /// unrounded numbers as values.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub limit: MaxSource,
}

/// Options of `vm run`. `vm run --help` lists them in this order under
/// three headings: running, profiling ([`ProfileArgs`]), resource limits
/// (clap orders its headings by their first option).
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Load without yieldpoints (to measure their cost).
    #[arg(long)]
    pub no_yieldpoints: bool,
    /// Print run statistics on stderr at the end: wall time, threads,
    /// garbage collections, peak resident memory.
    #[arg(long)]
    pub stats: bool,
    /// Write one self-contained HTML page to FILE. `vm run --adaptive`: the
    /// controller's timeline (wake-ups, recompilations with the model's
    /// figures, what each inlined). `vm inline`: the original program with
    /// each call site annotated, the inlining tree, and the emitted program
    /// with each inlined region linked to its call site
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Count simulated cycles (the cost model shared with the virtual
    /// clock, yieldpoints included) and print `vm: cycles: N instructions:
    /// M` on stderr at the end, summed over threads; with any --profile,
    /// none included
    #[arg(long)]
    pub cycles: bool,
    /// Set a global before `main` runs (repeatable).
    #[arg(long = "set", value_name = "NAME=INT", value_parser = parse_set)]
    pub set: Vec<(String, i64)>,
    /// With --clock=virtual: run on a simulated machine of N cores in
    /// virtual time, one thread at a time under a deterministic scheduler
    /// that switches threads only at yieldpoints (docs/SAMPLERS.md,
    /// "Simulated cores")
    #[arg(long, value_name = "N")]
    pub cores: Option<u64>,
    /// With --cores: cycles a thread runs before its simulated core goes to
    /// another thread [default: 100000]
    #[arg(long, value_name = "CYCLES")]
    pub quantum: Option<u64>,
    #[command(flatten)]
    pub profile: ProfileArgs,
    /// Frame limit per thread; `main` counts as one frame.
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000), help_heading = LIMITS)]
    pub max_frames: u64,
    /// Threads running at once; `main` counts as one. A `spawn` beyond it
    /// is a runtime error (status 70), as when the OS refuses a thread
    #[arg(long, value_name = "N", default_value_t = vm::runtime::DEFAULT_MAX_THREADS as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000), help_heading = LIMITS)]
    pub max_threads: u64,
    /// Memory for all threads' heaps and frames, e.g. 512M, 2G; reaching it
    /// is a runtime error (status 70) [default: half the physical memory]
    #[arg(long, value_name = "SIZE", value_parser = super::limits::parse_size, help_heading = LIMITS)]
    pub max_heap: Option<u64>,
    /// The program, and `--max-source` (a resource limit too).
    #[command(flatten)]
    pub file: FileArg,
}

/// The help heading of the resource limits.
const LIMITS: &str = "Resource limits";

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
