//! The extra runs of `vm inline`'s study modes (`--compare`, `--explain`,
//! `--gain`): a profiling run whose output is captured rather than
//! printed, and a counting run that measures the simulated cycles of a
//! program (the cost model of `--cycles`).

use jit_sim::inline::{Budget, Decision, Outcome};
use profile::Profile;
use profiler::config::ProfileConfig;
use vm::interrupt::Interruption;
use vm::loader::Program;
use vm::module::Module;
use vm::output::Output;
use vm::runtime::VmOptions;

use super::super::args::RunArgs;
use super::super::Failure;

/// What a captured run left.
pub struct Ran {
    /// The exit status.
    pub status: i32,
    /// The profile, if one was taken.
    pub profile: Option<Profile>,
    /// What the program printed.
    pub output: Vec<u8>,
    /// Simulated cycles, if the run counted them.
    pub cycles: Option<u64>,
}

/// Runs `module` with the profile `config` (kind `none`: no profiler) and
/// `count` set, its output captured.
pub fn run_captured(
    a: &RunArgs,
    config: ProfileConfig,
    module: Module,
    count: bool,
) -> Result<Ran, Failure> {
    let globals = super::super::run::set_globals(a, &module)?;
    let (output, buf) = Output::capture();
    let options = VmOptions {
        globals,
        count,
        output,
        machine: None,
        ..super::super::run::vm_options(a, Vec::new())
    };
    // A signal stops the program, and the study with it.
    super::super::signals::finish_on_signal();
    let ran = jit_sim::session::run(
        Program::load(module, !a.no_yieldpoints),
        options,
        config,
        &a.file.program.display().to_string(),
        None,
    )
    .map_err(|e| Failure::not_started(&e))?;
    if let Some(why) = ran.outcome.interrupted {
        return Err(interrupted(why));
    }
    let (outcome, profile) = (ran.outcome, ran.profile.map(|p| p.into_profile()));
    let output = buf.lock().clone();
    Ok(Ran {
        status: outcome.status,
        profile,
        output,
        cycles: outcome.cycles.map(|c| c.cycles),
    })
}

/// The failure that ends `vm inline` after a run stopped from outside
/// (docs/CLI.md, "Signals and write errors"): nothing is inlined or
/// written after it; the status is the interruption's (a closed pipe's
/// quietly).
pub fn interrupted(why: Interruption) -> Failure {
    Failure {
        status: why.status(),
        message: match why {
            Interruption::Signal(_) => "vm: inline: interrupted: nothing inlined or written".into(),
            Interruption::BrokenPipe(_) | Interruption::WriteError(_) => String::new(),
        },
    }
}

/// A plain counting run of `module`: its cycles, output and status.
pub fn measure(a: &RunArgs, module: Module) -> Result<Ran, Failure> {
    let none = profiler::config::ProfileOptions::default()
        .resolve(0)
        .map_err(|e| Failure::usage(format!("vm: {e}")))?;
    run_captured(a, none, module, true)
}

/// Inlines `decisions` into `module` (the study modes' one entry to the
/// inliner).
pub fn inline_with(
    module: &Module,
    decisions: &[Decision],
    budget: &Budget,
) -> Result<(Module, Vec<Outcome>), Failure> {
    jit_sim::inline::inline(module, decisions, budget).map_err(|e| Failure {
        status: 70,
        message: format!("vm: inlining failed: {e}"),
    })
}

/// Measures an optimized program and checks that it prints what the
/// original printed and ends the same way (an inliner bug must not pass
/// for a speed-up).
pub fn measure_equivalent(
    a: &RunArgs,
    optimized: Module,
    original: &Ran,
    what: &str,
) -> Result<u64, Failure> {
    let ran = measure(a, optimized)?;
    if ran.output != original.output || ran.status != original.status {
        return Err(Failure {
            status: 70,
            message: format!(
                "vm: the program optimized {what} does not behave as the original \
                 (status {} against {}, output {} against {} bytes)",
                ran.status,
                original.status,
                ran.output.len(),
                original.output.len()
            ),
        });
    }
    Ok(ran.cycles.unwrap_or(0))
}
