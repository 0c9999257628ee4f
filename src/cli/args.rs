//! Every command and flag of the `vm` command, in one place (docs/CLI.md). `vm --help` and `vm COMMAND --help` print these doc comments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use profiler::config::{
    parse_duration, parse_record_list, Clock, ProfileKind, Record, SampledBit, Walk,
};

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
    /// Exit status: the program's; 2 bad usage; 65 invalid program or
    /// profile file; 66 a file cannot be read or written.
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
pub enum ReportFormat {
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
    pub format: ReportFormat,
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

/// A program file.
#[derive(Args, Debug)]
pub struct FileArg {
    /// The program (`.bc` text).
    pub program: PathBuf,
    /// Refuse a file larger than this (e.g. 256M, 1G) before reading it
    /// whole; status 66
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = super::limits::parse_size)]
    pub max_source: u64,
}

/// Options of `vm disasm`.
#[derive(Args, Debug)]
pub struct DisasmArgs {
    /// The program (`.bc` text).
    pub program: PathBuf,
    /// Refuse a file larger than this (e.g. 256M, 1G) before reading it
    /// whole; status 66
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = super::limits::parse_size)]
    pub max_source: u64,
    /// Show the code as loaded without yieldpoints.
    #[arg(long)]
    pub no_yieldpoints: bool,
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
    /// Refuse a file larger than this (e.g. 256M, 1G) before reading it
    /// whole; status 66
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = super::limits::parse_size)]
    pub max_source: u64,
}

/// Options of `vm run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The program (`.bc` text).
    pub program: PathBuf,
    /// Refuse a file larger than this (e.g. 256M, 1G) before reading it
    /// whole; status 66
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = super::limits::parse_size)]
    pub max_source: u64,
    /// Load without yieldpoints (to measure their cost).
    #[arg(long)]
    pub no_yieldpoints: bool,
    /// Frame limit per thread; `main` counts as one frame.
    #[arg(long, value_name = "N", default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    pub max_frames: u64,
    /// Threads running at once; `main` counts as one. A `spawn` beyond it
    /// is a runtime error (status 70), as when the OS refuses a thread
    #[arg(long, value_name = "N", default_value_t = vm::runtime::DEFAULT_MAX_THREADS as u64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_threads: u64,
    /// Memory for all threads' heaps and frames, e.g. 512M, 2G; reaching it
    /// is a runtime error (status 70) [default: half the physical memory]
    #[arg(long, value_name = "SIZE", value_parser = super::limits::parse_size)]
    pub max_heap: Option<u64>,
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
}

/// The profiling options of `vm run` (docs/CLI.md explains each). An
/// option that does not apply to the chosen `--profile` is a usage error,
/// never silently ignored.
#[derive(Args, Debug, Default)]
#[command(next_help_heading = "Profiling")]
pub struct ProfileArgs {
    /// What to profile: none, exhaustive (every call counted: the exact
    /// profile), timer (Jikes RVM baseline), cbs (counter-based sampling),
    /// counter (a sample every Nth call) [default: none]
    #[arg(long, value_name = "KIND")]
    pub profile: Option<ProfileKind>,
    /// Timer period, e.g. 10ms, 1ms, 100us (timer, cbs) [default: 1ms]
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub interval: Option<u64>,
    /// cbs: sample every Nth prologue/epilogue yieldpoint after a tick
    /// [default: 3]
    #[arg(long, value_name = "N")]
    pub stride: Option<u32>,
    /// cbs: samples per timer tick (the burst) [default: 16]
    #[arg(long, value_name = "N")]
    pub samples: Option<u32>,
    /// counter: sample every Nth call [default: 100]
    #[arg(long, value_name = "N")]
    pub every: Option<u32>,
    /// Timer ticks in real time (wall), or in virtual time: cycles of the
    /// cost model, 1 cycle = 1 ns, deterministic (timer, cbs) [default: wall]
    #[arg(long, value_name = "wall|virtual")]
    pub clock: Option<Clock>,
    /// Seed for every random choice; the one used is recorded in the
    /// profile [default: random]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// What to build from the samples, comma-separated: dcg, cct, pcct,
    /// acct, ccmap [default: dcg]
    #[arg(long, value_name = "LIST", value_parser = parse_records)]
    pub record: Option<RecordList>,
    /// How a sample examines the stack, with --record including cct, pcct,
    /// acct or ccmap: full (every frame down to the entry frame), marked
    /// (only the frames pushed since an earlier sample, Whaley's marked
    /// frames; the only walk of pcct and acct) or incremental (cct only:
    /// only the top frame; callers are captured lazily when they are
    /// returned into, through return-address trampolines: Hofer's
    /// incremental stack tracing); top (the top frame only) is the dcg's
    /// walk [default: marked with pcct or acct, full with cct or ccmap,
    /// else top]
    #[arg(long, value_name = "HOW")]
    pub walk: Option<Walk>,
    /// Frames one sample may examine (cct, pcct, ccmap); a deeper walk
    /// starts a detached subtree (Whaley's Figure 10); an acct walk and an
    /// incremental walk are never cut
    /// [default: marked 16, full 256]
    #[arg(long, value_name = "N")]
    pub max_walk: Option<u32>,
    /// ACCT edge update strategy: last-edge or all-new-edges
    /// [default: last-edge]
    #[arg(long, value_name = "STRATEGY")]
    pub acct_update: Option<String>,
    /// Extension, acct only: where a frame's sampled bit is kept: mark (the
    /// mark bit of its return word) or return-address (the return word is
    /// replaced by a trampoline, Arnold & Sweeney's "known location")
    /// [default: mark]
    #[arg(long, value_name = "mark|return-address")]
    pub sampled_bit: Option<SampledBit>,
    /// Extension, pcct only: every N samples of a thread, purge the
    /// contexts no sample reached since the previous purge [default: never]
    #[arg(long, value_name = "N")]
    pub purge: Option<u64>,
    /// Self-tuning sampling interval (timer, cbs, counter): every 1000
    /// samples, halve the interval (or --every) if under 1% of samples found
    /// the same activation executing as before, double it if over 15%; the
    /// final one is recorded in the profile's run section
    #[arg(long)]
    pub tune: bool,
    /// timer: who walks the stacks of a multi-threaded program at each
    /// tick: safepoint (a global safepoint; a sampler thread walks every
    /// thread), partial (a partial safepoint of --sample-threads threads;
    /// the sampler thread walks them), self (the same partial safepoint,
    /// each selected thread walking itself); with --clock=virtual only self
    /// (docs/SAMPLERS.md) [default: self]
    #[arg(long, value_name = "HOW")]
    pub sampler: Option<String>,
    /// timer with --sampler=partial|self (wall clock): how many threads one
    /// tick samples [default: cores]
    #[arg(long, value_name = "N")]
    pub sample_threads: Option<u32>,
    /// timer with --sampler=partial|self (wall clock): sample only runnable
    /// threads, never waiting ones (the paper's section 3.1 sampling of
    /// waiting threads off) [default: waiting threads get their share]
    #[arg(long)]
    pub runnable_only: bool,
    /// timer with --sampler=self (wall clock): a selected thread goes on as
    /// soon as it has walked its own stack, instead of parking until every
    /// selected thread has (the paper's Figure 4) [default: it parks]
    #[arg(long)]
    pub no_hold: bool,
    /// Recompile hot methods with profile-directed inlining while running
    /// (the `linear` policy, Whaley's cost-benefit model); the profile is
    /// cbs unless --profile names timer, cbs or counter
    #[arg(long)]
    pub adaptive: bool,
    /// With --adaptive: what the controller prints on stderr. LEVEL 0:
    /// nothing; 1: a final report (wake-ups, methods considered and
    /// chosen, each recompilation's estimate beside its code's share of
    /// the samples before and after, what was not recompiled and why);
    /// 2 (the bare flag): also
    /// each recompilation as it happens; 3: also every estimate and each
    /// wake-up that did nothing
    #[arg(
        long,
        value_name = "LEVEL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "2",
        value_parser = clap::value_parser!(u8).range(0..=3)
    )]
    pub print_compilation: Option<u8>,
    /// Write the profile as JSON to FILE; written even if the program fails
    #[arg(long, value_name = "FILE")]
    pub profile_out: Option<PathBuf>,
    /// Print a report of the profile on stderr after the run: `text` (the
    /// default, what `vm report --format=text` prints), `folded` or `dot`
    /// (as `vm report` writes them); flamegraph, speedscope and html are
    /// for a browser: write the profile with --profile-out and use
    /// `vm report`
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, require_equals = true, default_missing_value = "text")]
    pub report: Option<ReportFormat>,
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

/// A `--record` list (one value holding several kinds).
#[derive(Clone, Debug)]
pub struct RecordList(pub Vec<Record>);

fn parse_records(s: &str) -> Result<RecordList, String> {
    parse_record_list(s).map(RecordList)
}
