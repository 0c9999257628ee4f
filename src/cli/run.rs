//! `vm run PROG.bc [OPTIONS]`: load, optionally attach a profiler, run, and
//! write the profile (even when the program dies).

use std::io::Write;

use jit_sim::adaptive::{AdaptiveOptions, PrintLevel};
use jit_sim::session::Adaptive;
use profiler::config::{ProfileConfig, ProfileKind, ProfileOptions, RecordKind};
use profiler::session::FinishedProfile;
use vm::loader::Program;
use vm::module::Module;
use vm::runtime::VmOptions;

use vm::interrupt::Interruption;
use vm::stdio::{self, Stream};

use super::args::{CollapseRecursion, ProfileArgs, ReportKind, RunArgs};
use super::output_file::{not_the_program, OutputFile};
use super::{load_module, signals, Failure, EXIT_NO_INPUT};

pub fn run(mut a: RunArgs) -> Result<i32, Failure> {
    if a.html.is_some() && !a.profile.adaptive {
        return Err(Failure::usage(
            "vm: --html applies only with --adaptive (the controller's timeline)",
        ));
    }
    if simulated_machine(&a)? {
        if !ticking(&a.profile) {
            // --clock=virtual asked for the simulated machine; no tick of
            // this profile reads it.
            a.profile.options.clock = None;
        }
        // The profile's config records the machine; a timer profile's
        // sampler runs on it (profiler::sampler::simulate).
        a.profile.options.0.cores = a.cores.map(|c| c as u32);
        a.profile.options.0.quantum = a.quantum;
    }
    let config = resolve_profile(&a.profile, a.no_yieldpoints)?;
    not_the_programs_outputs(&a)?;
    let module = load_module(&a.file.program, a.file.limit.max_source)?;
    let Executed {
        status,
        profile,
        vm,
        ..
    } = execute(&a, config, module)?;
    // The process exits next: freeing the profile, the VM and its program
    // would only cost time (a profiled run would pay it, a plain run, whose
    // VM outlives this, does not).
    std::mem::forget((profile, vm));
    Ok(status)
}

/// Usage errors: `--profile-out` or `--html` naming the program itself.
pub(super) fn not_the_programs_outputs(a: &RunArgs) -> Result<(), Failure> {
    let program = &a.file.program;
    not_the_program(program, a.profile.profile_out.as_deref(), "--profile-out")?;
    not_the_program(program, a.html.as_deref(), "--html")
}

/// What [`execute`] leaves: the exit status and, if a profile was taken,
/// the profile.
pub(super) struct Executed {
    /// The program's exit status (66 if the profile could not be written
    /// after a successful run).
    pub status: i32,
    /// The profile, its calling context tree still a tree.
    pub profile: Option<FinishedProfile>,
    /// Why the program was stopped from outside, if it was.
    pub interrupted: Option<Interruption>,
    /// The VM that ran, with its program and heaps.
    pub vm: std::sync::Arc<vm::runtime::Vm>,
}

/// The `--set NAME=INT` globals of `a`, each checked against `module`.
pub(super) fn set_globals(a: &RunArgs, module: &Module) -> Result<Vec<(u32, i64)>, Failure> {
    let mut globals = Vec::new();
    for (name, value) in &a.set {
        match module.globals.iter().position(|g| g == name) {
            Some(g) => globals.push((g as u32, *value)),
            None => {
                return Err(Failure::usage(format!(
                    "vm: --set {name}={value}: the program has no global `{name}`"
                )))
            }
        }
    }
    Ok(globals)
}

/// Runs `module` as `vm run` does, for `vm run` and `vm inline`: `--set`,
/// the session ([`jit_sim::session::run`]: the profiler and, with
/// `--adaptive`, the controller), `--profile-out` (opened before the run,
/// written even when the program dies, or is interrupted: docs/CLI.md,
/// "Signals and write errors"), `--report` and `--stats`.
pub(super) fn execute(
    a: &RunArgs,
    config: ProfileConfig,
    module: Module,
) -> Result<Executed, Failure> {
    check_report(a.profile.report, &config)?;
    let globals = set_globals(a, &module)?;
    let (profile_file, html_file) = open_outputs(a)?;
    let print = a
        .profile
        .print_compilation
        .and_then(PrintLevel::from_number)
        .unwrap_or_default();
    let adaptive = a.profile.adaptive.then_some(Adaptive {
        options: AdaptiveOptions::default(),
        print,
    });
    // A signal now stops the program and lets the profile be written.
    signals::finish_on_signal();
    let ran = jit_sim::session::run(
        Program::load(module, !a.no_yieldpoints),
        vm_options(a, globals),
        config,
        &a.file.program.display().to_string(),
        adaptive,
    )
    .map_err(|e| not_started(a, &e))?;
    let (outcome, mut profile) = (ran.outcome, ran.profile);
    let mut html_failed = false;
    if let Some(report) = ran.controller_report {
        if print >= PrintLevel::Report {
            // Decisions and estimates were printed as they happened.
            stdio::eprint(&report.report());
        }
        if let Some(file) = html_file {
            let page =
                jit_sim::adaptive::html::page(&report, &a.file.program.display().to_string());
            if let Err(f) = file.commit(&page) {
                stdio::eprintln(&f.message);
                html_failed = true;
            }
        }
    }
    let mut status = outcome.status;
    if html_failed && status == 0 {
        status = EXIT_NO_INPUT;
    }
    let mut profile_written = None;
    if let Some(finished) = &mut profile {
        // The profile says why the program did not run to its end.
        finished.profile.run.interrupted = outcome.interrupted.map(Interruption::cause);
        if let Some(file) = profile_file {
            let written = write_profile(file, finished);
            if !written && status == 0 {
                status = EXIT_NO_INPUT;
            }
            profile_written = Some(written);
        }
        if let Some(format) = a.profile.report {
            print_report(format, finished);
        }
    }
    if let Some(c) = outcome.cycles.filter(|_| a.cycles) {
        stdio::eprintln(&format!(
            "vm: cycles: {} instructions: {}",
            c.cycles, c.instructions
        ));
        if let Some(f) = &profile {
            let run = &f.profile.run;
            let lines = [
                profile::overhead::line(run),
                profile::overhead::work_line(run),
            ];
            for line in lines.into_iter().flatten() {
                stdio::eprintln(&format!("vm: {line}"));
            }
        }
    }
    if a.stats {
        stdio::eprintln(&stats_line(&outcome));
    }
    if let Some(sig) = signals::received() {
        say_interrupted(a, sig, &outcome, profile_written == Some(true));
    }
    Ok(Executed {
        status,
        profile,
        interrupted: outcome.interrupted,
        vm: ran.vm,
    })
}

/// The line on stderr of a run a signal interrupted: `vm: interrupted by
/// SIGINT: the program was stopped; the profile of what ran is in
/// `p.json` (run.interrupted)`.
fn say_interrupted(a: &RunArgs, sig: i32, outcome: &vm::runtime::RunOutcome, written: bool) {
    let stopped = matches!(outcome.interrupted, Some(Interruption::Signal(_)));
    let mut line = format!("vm: interrupted by {}", vm::interrupt::signal_name(sig));
    if stopped {
        line.push_str(": the program was stopped");
    }
    if let Some(path) = a.profile.profile_out.as_ref().filter(|_| written) {
        line.push_str(&format!(
            "; the profile{} is in `{}`{}",
            if stopped { " of what ran" } else { "" },
            path.display(),
            if stopped { " (run.interrupted)" } else { "" }
        ));
    }
    stdio::eprintln(&line);
}

/// Opens the files `vm run` writes before the program runs, so that a bad
/// path is reported before the program's output rather than after it:
/// `--profile-out` and the controller's `--html` page, both written at
/// the end beside their targets and renamed into place
/// ([`OutputFile`]: no empty or partial file, ever).
fn open_outputs(a: &RunArgs) -> Result<(Option<OutputFile>, Option<OutputFile>), Failure> {
    let profile_file = a
        .profile
        .profile_out
        .as_deref()
        .map(OutputFile::create)
        .transpose()?;
    // Should the system refuse memory past the emergency reserve, the
    // unfinished file is removed (vm::memory::process_allocator).
    vm::memory::process_allocator::writing_profile(
        profile_file
            .as_ref()
            .and_then(|f| Some((f.temporary()?, f.path()))),
    );
    let html_file = a
        .html
        .as_deref()
        .filter(|_| a.profile.adaptive)
        .map(OutputFile::create)
        .transpose()?;
    Ok((profile_file, html_file))
}

/// A thread of the profiler or the controller would not start, so the
/// program never ran: the failure says so (the files [`open_outputs`]
/// opened are dropped, their temporaries removed: no empty profile or
/// page is left behind).
fn not_started(a: &RunArgs, e: &profiler::StartError) -> Failure {
    let mut f = Failure::not_started(e);
    if let Some(path) = &a.profile.profile_out {
        vm::memory::process_allocator::writing_profile(None);
        f.message += &format!("; the profile `{}` was not written", path.display());
    }
    f
}

/// Writes `finished` to the `--profile-out` file opened before the run;
/// false (the message printed) if that fails. Never inlined: a frame of its
/// own lets bench/profiler_validation.py leave the writing out of what it
/// measures (a JVM's profiler keeps its profile in memory).
#[inline(never)]
fn write_profile(file: OutputFile, finished: &FinishedProfile) -> bool {
    let path = file.path().to_path_buf();
    let written = file.commit_unbuffered(|w| finished.write_json(w));
    vm::memory::process_allocator::writing_profile(None);
    match written {
        Ok(()) => true,
        Err(e) => {
            stdio::eprintln(&format!("vm: cannot write `{}`: {e}", path.display()));
            false
        }
    }
}

/// The VM's options of `a`: its limits, `--set`'s `globals`, `--cycles`
/// and the simulated machine ([`simulated_machine`] checked them).
pub(super) fn vm_options(a: &RunArgs, globals: Vec<(u32, i64)>) -> VmOptions {
    VmOptions {
        max_frames: a.max_frames as usize,
        max_threads: a.max_threads as usize,
        max_heap: a
            .max_heap
            .map_or_else(vm::memory::default_limit, |b| b as usize),
        globals,
        count: a.cycles,
        machine: a.cores.map(|cores| vm::schedule::Machine {
            cores: cores as usize,
            quantum: a.quantum.unwrap_or(vm::schedule::DEFAULT_QUANTUM),
        }),
        ..VmOptions::default()
    }
}

/// The simulated machine `--cores` and `--quantum` ask for, checked
/// (docs/CLI.md): `--cores` needs `--clock=virtual` and at least 1 core,
/// `--quantum` needs `--cores` and at least 1 cycle.
/// True if the run is simulated. [`execute`] builds the machine from the
/// options this accepted.
pub(super) fn simulated_machine(a: &RunArgs) -> Result<bool, Failure> {
    let Some(cores) = a.cores else {
        return match a.quantum {
            Some(_) => Err(Failure::usage("vm: --quantum applies only with --cores")),
            None => Ok(false),
        };
    };
    if a.profile.options.clock != Some(profiler::config::ClockKind::Virtual) {
        return Err(Failure::usage(
            "vm: --cores needs --clock=virtual (the simulated cores run in virtual time)",
        ));
    }
    if cores == 0 || cores > MAX_CORES {
        return Err(Failure::usage(format!(
            "vm: --cores={cores}: a simulated machine has 1 to {MAX_CORES} cores"
        )));
    }
    if a.quantum == Some(0) {
        return Err(Failure::usage(
            "vm: --quantum=0: a quantum is at least 1 cycle",
        ));
    }
    if a.profile.adaptive {
        return Err(Failure::usage(
            "vm: --cores does not apply with --adaptive (its controller runs in real time)",
        ));
    }
    Ok(true)
}

/// The most cores `--cores` simulates.
const MAX_CORES: u64 = 65_536;

/// Does the profile asked for tick (timer, cbs, or cbs by `--adaptive`)?
fn ticking(p: &ProfileArgs) -> bool {
    matches!(
        p.options.profile,
        Some(ProfileKind::Timer | ProfileKind::Cbs)
    ) || (p.adaptive && p.options.profile.is_none())
}

/// Checks the profiling options against each other (docs/CLI.md: an
/// option that does not apply is a usage error).
pub(super) fn resolve_profile(
    p: &ProfileArgs,
    no_yieldpoints: bool,
) -> Result<ProfileConfig, Failure> {
    if p.print_compilation.is_some() && !p.adaptive {
        return Err(Failure::usage(
            "vm: --print-compilation applies only with --adaptive",
        ));
    }
    // The controller reads a live sampled profile: cbs unless one is named.
    let profile = match (p.adaptive, p.options.profile) {
        (true, None) => Some(ProfileKind::Cbs),
        (true, Some(k @ (ProfileKind::None | ProfileKind::Exhaustive))) => {
            return Err(Failure::usage(format!(
                "vm: --adaptive needs a sampling profile while the program runs \
                 (timer, cbs or counter), not --profile={}",
                k.name()
            )))
        }
        (_, k) => k,
    };
    let options = ProfileOptions {
        profile,
        ..p.options.0.clone()
    };
    let command_line = p.given_for_resolve(no_yieldpoints);
    options
        .resolve_with(&command_line, random_seed())
        .map_err(|problems| {
            let lines: Vec<String> = problems.lines().map(|l| format!("vm: {l}")).collect();
            Failure::usage(lines.join("\n"))
        })
}

/// `--report=FORMAT`, checked before the program runs: the formats meant
/// for a browser are refused (they are for `vm report`, from a file), and
/// `folded` needs a calling-context record.
fn check_report(format: Option<ReportKind>, config: &ProfileConfig) -> Result<(), Failure> {
    let what = match format {
        None | Some(ReportKind::Text | ReportKind::Dot) => return Ok(()),
        Some(ReportKind::Folded) => {
            if config.record.iter().any(|r| *r != RecordKind::Dcg) {
                return Ok(());
            }
            let records = if config.kind == ProfileKind::Exhaustive {
                "--record=cct"
            } else {
                "--record=cct, pcct, acct or ccmap"
            };
            return Err(Failure::usage(format!(
                "vm: --report=folded prints the calling contexts, and this run records none: \
                 add {records}"
            )));
        }
        Some(ReportKind::Flamegraph) => ("flamegraph", "an SVG picture", "svg"),
        Some(ReportKind::Speedscope) => ("speedscope", "a file for the speedscope viewer", "json"),
        Some(ReportKind::Html) => ("html", "a page", "html"),
    };
    let (name, thing, ext) = what;
    Err(Failure::usage(format!(
        "vm: --report={name} would write {thing} for a browser, not text for a terminal: \
         write the profile with --profile-out=p.json, then run \
         `vm report p.json --format={name} -o p.{ext}`"
    )))
}

/// Prints `--report=FORMAT` of a finished run on stderr, as `vm report
/// --format=FORMAT` writes it from the profile file (the formats
/// [`check_report`] lets through).
fn print_report(format: ReportKind, finished: &FinishedProfile) {
    use profile::report::{dot, folded, text};
    // The contexts of a tree still to be written are listed for the
    // report (the file was written from the tree itself).
    let mut p = finished.to_profile();
    let out = match format {
        ReportKind::Folded => {
            // As `vm report` does: a tree deeper than 1,000 levels
            // collapsed, said on stderr.
            let shown = "vm: --report=folded";
            super::report::collapse_recursion(&mut p, shown, CollapseRecursion::Auto);
            let mut w = std::io::BufWriter::new(std::io::stderr().lock());
            let written =
                folded::write(p.cct.as_deref().unwrap_or(&[]), &mut w).and_then(|()| w.flush());
            if let Err(e) = written {
                stdio::note(Stream::Stderr, &e);
            }
            return;
        }
        ReportKind::Dot => dot::dcg(&p),
        _ => text::summary(&p),
    };
    stdio::eprint(&out);
}

/// A seed for runs without `--seed`: the clock's nanoseconds mixed with
/// the process id (recorded in the profile, so any run can be repeated),
/// kept below 2^53 so that every JSON reader holds it exactly.
fn random_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    (nanos ^ (u64::from(std::process::id()) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11
}

/// `--stats`: one line a script can parse.
fn stats_line(o: &vm::runtime::RunOutcome) -> String {
    let rss = peak_rss_kb().map_or("unknown".to_string(), |kb| kb.to_string());
    // On a simulated machine (--cores), the run's length in virtual time.
    let simulated = o
        .virtual_ns
        .map_or(String::new(), |ns| format!(" virtual-ns {ns}"));
    format!(
        "vm: stats: wall-ms {:.1} threads {} gc {} peak-rss-kb {}{simulated}",
        o.wall_ns as f64 / 1e6,
        o.threads,
        o.collections,
        rss
    )
}

/// The process's peak resident set size, as the kernel reports it.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
