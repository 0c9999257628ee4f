//! One run of a program as `vm run` and `vm inline` make it: profiled
//! under a configuration and, with `--adaptive`, recompiled while it runs
//! by the [`AdaptiveController`]. The command line only parses, opens its
//! files, calls [`run`] and prints what it returns.
//!
//! The session's steps (profiler started, VM created with it, the
//! profiler given the VM, the controller started, the program run, the
//! controller stopped, the profile finished) are
//! [`profiler::session::run`]'s; this adds the controller, which lives in
//! this crate (Jikes RVM's controller over the profiler's listeners and
//! organizer: Arnold et al.'s adaptive optimization system).

use profiler::config::ProfileConfig;
use profiler::session::{Beside, FinishedProfile};
use profiler::StartError;
use std::sync::Arc;
use vm::loader::Program;
use vm::profiler_cost::{CostItem, Work};

use vm::runtime::{RunOutcome, Vm, VmOptions};

use crate::adaptive::{AdaptiveController, AdaptiveOptions, AdaptiveReport, PrintLevel};

/// `--adaptive`: how the controller works and what it prints as it goes.
#[derive(Clone, Copy, Debug)]
pub struct Adaptive {
    /// The controller's policy, model and period.
    pub options: AdaptiveOptions,
    /// What it prints on stderr while the program runs.
    pub print: PrintLevel,
}

/// What [`run`] leaves.
pub struct SessionOutcome {
    /// How the program ended.
    pub outcome: RunOutcome,
    /// The profile, unless the configuration was `--profile=none`; taken
    /// however the program ended.
    pub profile: Option<FinishedProfile>,
    /// The controller's report, if it ran.
    pub controller_report: Option<AdaptiveReport>,
    /// The VM that ran ([`profiler::session::Session::vm`]).
    pub vm: Arc<Vm>,
}

impl Beside for AdaptiveController {
    type Report = AdaptiveReport;
    fn stop(self) -> AdaptiveReport {
        self.finish()
    }
    /// Its wake-ups (each reads the live DCG and weighs the candidates)
    /// and the instructions it compiled (inlined, verified, loaded).
    fn work(report: &AdaptiveReport) -> Work {
        let mut w = Work::default();
        w.charge(CostItem::ControllerWakeup, report.looks);
        w.charge(CostItem::CompileInstruction, report.compiled_instructions);
        w
    }
}

/// Runs `program` with `vm_options` under `profile`, with the adaptive
/// controller if `adaptive` is given and there is a profile to read
/// (kind `none`: no profiler, and no controller either); `program_path`
/// names the program in the profile. Should the system refuse a thread
/// of the profiler or the controller, the program does not run and the
/// error says which ([`profiler::spawn`]).
pub fn run(
    program: Program,
    vm_options: VmOptions,
    profile: ProfileConfig,
    program_path: &str,
    adaptive: Option<Adaptive>,
) -> Result<SessionOutcome, StartError> {
    let s = profiler::session::run(program, vm_options, profile, program_path, |vm, p| {
        adaptive
            .zip(p)
            .map(|(a, p)| AdaptiveController::start(vm, p, a.options, a.print))
            .transpose()
    })?;
    Ok(SessionOutcome {
        outcome: s.outcome,
        profile: s.profile,
        controller_report: s.beside,
        vm: s.vm,
    })
}
