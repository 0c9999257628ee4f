//! The extra runs of `vm inline`'s study modes (`--compare`, `--explain`,
//! `--gain`): a profiling run whose output is captured rather than
//! printed, and a counting run that measures the simulated cycles of a
//! program (the cost model of `--cycles`).

use std::sync::Arc;

use jit_sim::inline::{Budget, Decision, Outcome};
use profile::Profile;
use profiler::config::{ProfileConfig, ProfileKind};
use profiler::{Profiler, RunFacts};
use vm::loader::Program;
use vm::module::Module;
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};

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
    let program = Program::load(module, !a.no_yieldpoints);
    let profiler = (config.kind != ProfileKind::None).then(|| Profiler::start(config, &program));
    let (output, buf) = Output::capture();
    let mut options = VmOptions {
        max_frames: a.max_frames as usize,
        max_threads: a.max_threads as usize,
        max_heap: a
            .max_heap
            .map_or_else(vm::memory::default_limit, |b| b as usize),
        globals,
        count,
        output,
        ..VmOptions::default()
    };
    if let Some(p) = &profiler {
        options.hooks = Arc::clone(p) as Arc<dyn vm::hooks::Hooks>;
    }
    let vm = Vm::new(program, options);
    if let Some(p) = &profiler {
        p.attach(&vm);
    }
    let outcome = vm.run();
    let profile = profiler.map(|p| {
        let facts = RunFacts {
            wall_ns: outcome.wall_ns,
            threads: outcome.threads as u64,
            cycles: outcome.cycles.map(|c| c.cycles),
        };
        p.finish_streaming(&vm.program, &a.file.program.display().to_string(), facts)
            .into_profile()
    });
    let output = buf.lock().clone();
    Ok(Ran {
        status: outcome.status,
        profile,
        output,
        cycles: outcome.cycles.map(|c| c.cycles),
    })
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
