//! `vm experiment`: the papers' tables and figures, rerun on this VM.
//!
//! Each experiment is a module of [`exp`] and one row of the [`registry`]
//! table: its name, the paper result it reproduces, and a function that
//! runs it. An experiment runs the `vm` binary (the one given in
//! [`Options::vm`]) as a child process for every measurement, reads the
//! profiles it writes with the offline `profile` crate, and writes three
//! files into the output directory:
//!
//! - `NAME.csv`: one row per measurement, raw, each row flushed as soon as
//!   it (and every row before it) is finished, so an interrupted run keeps
//!   what it measured. The first lines are `#` comments: the experiment,
//!   the machine (cores, CPU model), the settings ([`csv`]).
//! - `NAME.svg` (and `NAME-2.svg`... when the panels need more than one
//!   slide): the plot, in the paper's form ([`plot`]).
//! - `NAME.md`: the page of the run ([`page`]): the command and its run
//!   time, the figure, the paper's claims judged on the CSV
//!   ([`claims`]), the method, our tables with the paper's numbers beside
//!   them, and a discussion of what differs.
//!
//! Accuracy sweeps use `--clock=virtual` and fixed seeds: they run in
//! parallel ([`runner::par_map`]) and their CSVs are the same byte for byte
//! on every run. Timing sweeps run one process at a time, configurations
//! interleaved round by round ([`runner::time_rounds`]), and report medians
//! with quartiles.

// The crate's documentation is written to be read with its private items
// (docs/ARCHITECTURE.md: `cargo doc --document-private-items`), where a
// public item's link to a private one resolves.
#![allow(rustdoc::private_intra_doc_links)]

pub mod children;
pub mod claims;
pub mod cores;
pub mod csv;
pub mod exp;
pub mod index;
pub mod machine;
pub mod markdown;
pub mod page;
pub mod plot;
pub mod progress;
pub mod runner;
pub mod stats;
pub mod suite;
pub mod table;

use std::path::{Path, PathBuf};

/// Exit status of bad usage (an unknown experiment name).
pub const EXIT_USAGE: i32 = 2;
/// Exit status of a file that cannot be read or created (a missing program,
/// an output directory that cannot be made), as for `vm run --profile-out`.
pub const EXIT_NO_INPUT: i32 = 66;
/// Exit status of an experiment whose measurement failed (a run of `vm`
/// that did not succeed, a profile that could not be read).
pub const EXIT_FAILED: i32 = 70;

/// One experiment: a row of the registry.
pub struct Experiment {
    /// The name given on the command line.
    pub name: &'static str,
    /// The paper result it reproduces ("Arnold & Grove 2005, Figure 1").
    pub reproduces: &'static str,
    /// What it measures, in a line.
    pub measures: &'static str,
    /// Whether it takes `--cores` (the `hofer-*` experiments: simulated
    /// cores by default, where their CSVs are the same byte for byte on
    /// every run, like those of the accuracy sweeps under the virtual
    /// clock; `tests/e2e/experiment.rs` checks which repeat exactly).
    pub takes_cores: bool,
    /// Whether it takes `--clock=wall` (its overheads are the cost model's
    /// by default).
    pub takes_wall_clock: bool,
    /// Runs it: writes the CSV and the figures, returns the parts of its
    /// page.
    pub run: fn(&Context) -> Result<markdown::Page, Error>,
    /// The paper's claims, judged on a CSV it wrote.
    pub claims: fn(&table::Table) -> Vec<claims::Claim>,
}

/// Every experiment, in the order `--list` and `all` use.
pub fn registry() -> &'static [Experiment] {
    exp::REGISTRY
}

/// The experiment called `name`.
pub fn find(name: &str) -> Option<&'static Experiment> {
    registry().iter().find(|e| e.name == name)
}

/// What the command line asked for.
#[derive(Clone, Debug)]
pub struct Options {
    /// The `vm` binary every measurement runs.
    pub vm: PathBuf,
    /// The directory holding `programs/` (the repository).
    pub root: PathBuf,
    /// Where `NAME.csv`, `NAME.svg` and `NAME.md` go.
    pub out: PathBuf,
    /// Runs (seeds, or timing rounds) per configuration; `None`: the
    /// experiment's default.
    pub runs: Option<usize>,
    /// Sizes that finish in seconds.
    pub quick: bool,
    /// Programs instead of the experiment's own list.
    pub programs: Option<Vec<String>>,
    /// Parallel jobs of accuracy sweeps.
    pub jobs: usize,
    /// `--cores`: where the `hofer-*` experiments run; `None`: their
    /// default, [`cores::Cores::default`].
    pub cores: Option<cores::Cores>,
    /// `--clock=wall`: overheads timed on the wall clock (interleaved
    /// rounds of whole processes) instead of the profiler's work in the
    /// cost model, for the experiments that take it.
    pub wall_clock: bool,
}

/// Why an experiment could not run.
#[derive(Debug)]
pub enum Error {
    /// Bad usage (status 2).
    Usage(String),
    /// A file that cannot be read or created (status 66).
    NoInput(String),
    /// A measurement failed (status 70).
    Failed(String),
}

impl Error {
    /// The exit status `vm experiment` ends with.
    pub fn status(&self) -> i32 {
        match self {
            Error::Usage(_) => EXIT_USAGE,
            Error::NoInput(_) => EXIT_NO_INPUT,
            Error::Failed(_) => EXIT_FAILED,
        }
    }

    /// The message, one line.
    pub fn message(&self) -> &str {
        match self {
            Error::Usage(m) | Error::NoInput(m) | Error::Failed(m) => m,
        }
    }
}

/// What an experiment's run function gets: the options and its own row.
pub struct Context<'a> {
    /// The command line's options.
    pub opts: &'a Options,
    /// The experiment being run.
    pub exp: &'static Experiment,
    /// A scratch directory for profiles and emitted programs, removed
    /// afterwards.
    pub work: PathBuf,
}

impl Context<'_> {
    /// `DIR/NAME.EXT`.
    pub fn out_file(&self, ext: &str) -> PathBuf {
        self.opts.out.join(format!("{}.{ext}", self.exp.name))
    }

    /// Runs per configuration: `--runs`, else `quick` or `full`.
    pub fn runs(&self, quick: usize, full: usize) -> usize {
        self.opts
            .runs
            .unwrap_or(if self.opts.quick { quick } else { full })
            .max(1)
    }

    /// The programs to run: `--programs`, else `default`, resolved.
    pub fn programs(&self, default: &[&str]) -> Result<Vec<suite::Program>, Error> {
        match &self.opts.programs {
            Some(list) => suite::resolve(&self.opts.root, list, self.opts.quick),
            None => {
                let list: Vec<String> = default.iter().map(|s| s.to_string()).collect();
                suite::resolve(&self.opts.root, &list, self.opts.quick)
            }
        }
    }

    /// The programs of a suite-wide experiment: `--programs`, else the Are
    /// We Fast Yet benchmarks ([`suite::AWFY`], [`suite::AWFY_QUICK`] for
    /// `--quick`).
    pub fn suite(&self) -> Result<Vec<suite::Program>, Error> {
        self.programs(if self.opts.quick {
            suite::AWFY_QUICK
        } else {
            suite::AWFY
        })
    }

    /// Where the programs run: `--cores`, else the simulated machine of
    /// [`cores::DEFAULT_CORES`] cores.
    pub fn cores(&self) -> cores::Cores {
        self.opts.cores.unwrap_or_default()
    }

    /// The `vm` runner of this context.
    pub fn vm(&self) -> runner::Vm<'_> {
        runner::Vm {
            bin: &self.opts.vm,
            work: &self.work,
        }
    }
}

/// The names of every experiment, comma-separated (for messages).
pub fn names() -> String {
    registry()
        .iter()
        .map(|e| e.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The experiments `name` selects: one, or every one for `all`. An unknown
/// name is a usage error that lists the names.
pub fn select(name: &str) -> Result<Vec<&'static Experiment>, Error> {
    if name == "all" {
        return Ok(registry().iter().collect());
    }
    find(name).map(|e| vec![e]).ok_or_else(|| {
        Error::Usage(format!(
            "vm experiment: no experiment named `{name}`; the experiments are: {} (or `all`)",
            names()
        ))
    })
}

/// Whether an experiment takes an option.
type Takes = fn(&Experiment) -> bool;

/// Checks the options before anything runs: `--cores` and `--clock=wall`
/// only for experiments that take them (for `all`: if any of them does;
/// the others ignore it), a usage error otherwise; creates the output
/// directory (66 if it cannot be made) and resolves `--programs` (66 for
/// a missing program).
pub fn prepare(opts: &Options, selected: &[&'static Experiment]) -> Result<(), Error> {
    let options: [(bool, &str, Takes); 2] = [
        (opts.cores.is_some(), "--cores", |e| e.takes_cores),
        (opts.wall_clock, "--clock=wall", |e| e.takes_wall_clock),
    ];
    for (given, flag, takes) in options {
        if given && !selected.iter().any(|e| takes(e)) {
            let takers: Vec<&str> = registry()
                .iter()
                .filter(|e| takes(e))
                .map(|e| e.name)
                .collect();
            let names: Vec<&str> = selected.iter().map(|e| e.name).collect();
            return Err(Error::Usage(format!(
                "vm experiment: {flag} does not apply to {}; it applies to {}",
                names.join(", "),
                takers.join(", ")
            )));
        }
    }
    std::fs::create_dir_all(&opts.out).map_err(|e| {
        Error::NoInput(format!(
            "vm experiment: cannot create `{}`: {}",
            opts.out.display(),
            io_reason(&e)
        ))
    })?;
    if let Some(list) = &opts.programs {
        suite::resolve(&opts.root, list, opts.quick)?;
    }
    Ok(())
}

/// The scratch directory of `exp` (`DIR/.NAME.work`), removed when it
/// ends, however it ends.
pub fn scratch_dir(exp: &Experiment, opts: &Options) -> PathBuf {
    opts.out.join(format!(".{}.work", exp.name))
}

/// Runs one experiment: its files in `opts.out` (the page written from
/// its CSV, figures and run time); returns its table.
pub fn run(exp: &'static Experiment, opts: &Options) -> Result<String, Error> {
    let start = page::Start::now();
    let work = scratch_dir(exp, opts);
    std::fs::create_dir_all(&work).map_err(|e| {
        Error::NoInput(format!(
            "vm experiment: cannot create `{}`: {}",
            work.display(),
            io_reason(&e)
        ))
    })?;
    let ctx = Context {
        opts,
        exp,
        work: work.clone(),
    };
    let result = (exp.run)(&ctx);
    let _ = std::fs::remove_dir_all(&work);
    let part = result?;
    let csv = table::Table::read(&ctx.out_file("csv"))?;
    let claims = (exp.claims)(&csv);
    write_file(
        &ctx.out_file("md"),
        &page::write(&ctx, &start, &part, &claims),
    )?;
    Ok(part.table)
}

/// A short reason for an I/O error.
pub fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Writes `text` to `path`, 66 if it cannot. The text goes to a file
/// beside `path` that replaces it once whole, so that an interrupted
/// experiment leaves the earlier file (or none), never a part of one.
pub fn write_file(path: &Path, text: &str) -> Result<(), Error> {
    let name = path
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let partial = path.with_file_name(format!(".{name}.{}.partial", std::process::id()));
    let written = std::fs::write(&partial, text).and_then(|()| std::fs::rename(&partial, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&partial);
        Error::NoInput(format!(
            "vm experiment: cannot write `{}`: {}",
            path.display(),
            io_reason(&e)
        ))
    })
}
