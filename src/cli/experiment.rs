//! `vm experiment`: a thin front end over the `experiment` crate, which
//! holds the experiments, the runner and the plots (docs/EXPERIMENTS.md).
//!
//! The measurements run this very binary (`current_exe`) as a child
//! process. Programs are looked up under the current directory's
//! `programs/` if it has one, else under the repository the binary was
//! built from.

use std::path::{Path, PathBuf};

use clap::Args;

use super::signals::Removal;
use super::Failure;

/// Options of `vm experiment`.
#[derive(Args, Debug)]
pub struct ExperimentArgs {
    /// The experiment (see --list), or `all`.
    #[arg(value_name = "NAME", required_unless_present = "list")]
    pub name: Option<String>,
    /// List the experiments: name, what each reproduces, what it measures.
    #[arg(long, conflicts_with_all = ["out", "runs", "quick", "programs", "jobs", "cores", "clock"])]
    pub list: bool,
    /// Directory for NAME.csv, NAME.svg and NAME.md (created if missing).
    #[arg(long, value_name = "DIR", default_value = "experiments")]
    pub out: PathBuf,
    /// Runs per configuration: seeds of an accuracy sweep, rounds of a
    /// timing sweep (default: per experiment, see docs/EXPERIMENTS.md).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: Option<u32>,
    /// Small sizes and few runs: every experiment in seconds.
    #[arg(long)]
    pub quick: bool,
    /// Comma-separated programs instead of the experiment's own: names in
    /// programs/awfy, programs/bench or programs/examples, or paths.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub programs: Option<Vec<String>>,
    /// Parallel runs of the accuracy sweeps (default: the cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: Option<u32>,
    /// The `hofer-*` experiments only: run the programs on N simulated
    /// cores (`vm run --clock=virtual --cores=N`, deterministic), or
    /// `real` for the real threads on the wall clock (default: 4
    /// simulated cores, the paper's machine).
    #[arg(long, value_name = "N|real", value_parser = experiment::cores::Cores::parse)]
    pub cores: Option<experiment::cores::Cores>,
    /// How overheads are measured: `virtual`, the profiler's work in the
    /// cost model (deterministic, the default), or `wall`, wall-clock
    /// time of whole processes in interleaved rounds (arnold-grove-table3).
    #[arg(long, value_name = "virtual|wall", value_parser = ["virtual", "wall"])]
    pub clock: Option<String>,
}

/// The directory holding `programs/`.
fn root() -> PathBuf {
    let here = Path::new(".");
    if here.join("programs").is_dir() {
        return here.to_path_buf();
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn experiment(a: ExperimentArgs) -> Result<i32, Failure> {
    if a.list {
        for e in experiment::registry() {
            vm::stdio::print(&format!(
                "{:<22} {:<36} {}\n",
                e.name, e.reproduces, e.measures
            ));
        }
        return Ok(0);
    }
    let fail = |e: experiment::Error| Failure {
        status: e.status(),
        message: e.message().to_string(),
    };
    let name = a.name.unwrap_or_default();
    let selected = experiment::select(&name).map_err(fail)?;
    let vm = std::env::current_exe().map_err(|e| Failure {
        status: experiment::EXIT_FAILED,
        message: format!("vm experiment: cannot find the vm binary: {e}"),
    })?;
    let opts = experiment::Options {
        vm,
        root: root(),
        out: a.out,
        runs: a.runs.map(|n| n as usize),
        quick: a.quick,
        programs: a.programs,
        jobs: a
            .jobs
            .map(|n| n as usize)
            .unwrap_or_else(experiment::machine::cores),
        cores: a.cores,
        wall_clock: a.clock.as_deref() == Some("wall"),
    };
    experiment::prepare(&opts, &selected).map_err(fail)?;
    // A signal stops the runs (experiment::children) and the experiment
    // fails; a second one removes the scratch directory and exits.
    super::signals::finish_on_signal();
    for exp in selected {
        let start = std::time::Instant::now();
        let _scratch = Removal::dir(&experiment::scratch_dir(exp, &opts));
        let table = experiment::run(exp, &opts).map_err(|e| match super::signals::received() {
            Some(sig) => Failure {
                status: 128 + sig,
                message: format!(
                    "vm experiment {}: interrupted by {}; {}/{}.csv has the rows measured",
                    exp.name,
                    vm::interrupt::signal_name(sig),
                    opts.out.display(),
                    exp.name
                ),
            },
            None => fail(e),
        })?;
        vm::stdio::print(&format!("## {}: {}\n\n{table}\n", exp.name, exp.reproduces));
        vm::stdio::eprintln(&format!(
            "vm experiment {}: done in {:.1} s; {}/{}.{{csv,svg,md}}",
            exp.name,
            start.elapsed().as_secs_f64(),
            opts.out.display(),
            exp.name
        ));
        // Stdout that cannot be written, or stderr's reader gone: the
        // next experiments would print to no one (super::finish says so).
        if vm::interrupt::pending().is_some() {
            break;
        }
    }
    Ok(0)
}
