//! `vm inline PROG.bc [run options] [--policy=P] [--emit=OUT.bc]`: profile
//! a run (or read a profile file), decide what to inline with a policy,
//! print the decisions, write the optimized program.
//!
//! Streams: the program's own output goes to stdout exactly as under
//! `vm run`; the inlining log goes to stderr after the run, so that
//! `vm inline P.bc > out.txt` keeps the program's output and the decisions
//! apart. The exit status is the program's (as `vm run`), unless the
//! optimized program cannot be written (66).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use jit_sim::policy::{self, EdgeWeights, PolicyKind, Thresholds};
use profile::Profile;
use profiler::config::ProfileKind;

use super::args::RunArgs;
use super::run::{execute, resolve_profile};
use super::{load_module, Failure, EXIT_NO_INPUT};

/// Options of `vm inline`.
#[derive(Args, Debug)]
pub struct InlineArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// The inlining policy: static (sizes only, no profile), hot-edge (the
    /// old Jikes RVM inliner: edges above --hot-edge-pct get --inline-max-hot,
    /// other edges only --inline-always), linear (Arnold & Grove: the size
    /// limit grows with the edge's weight; guarded inlines only for targets
    /// above --guard-min-pct of their site; unprofiled sites not inlined)
    /// [default: linear]
    #[arg(long, value_name = "static|hot-edge|linear", value_parser = parse_policy, help_heading = "Inlining")]
    pub policy: Option<PolicyKind>,
    /// Write the optimized program as .bc text to FILE
    #[arg(long, value_name = "FILE", help_heading = "Inlining")]
    pub emit: Option<PathBuf>,
    /// Take the profile from FILE (a vm-profile/1 JSON file, as written by
    /// `vm run --profile-out`) instead of running the program; not with
    /// --profile or other run options (hot-edge, linear)
    #[arg(long, value_name = "FILE", help_heading = "Inlining")]
    pub from_profile: Option<PathBuf>,
    /// Always inline a callee of fewer than N instructions (Jikes: 11)
    /// [default: 11]
    #[arg(long, value_name = "N", help_heading = "Inlining")]
    pub inline_always: Option<u32>,
    /// static: largest callee inlined without profile evidence (Jikes: 23)
    /// [default: 23]
    #[arg(long, value_name = "N", help_heading = "Inlining")]
    pub inline_max_cold: Option<u32>,
    /// hot-edge, linear: largest callee on a hot edge (Jikes: 119)
    /// [default: 119]
    #[arg(long, value_name = "N", help_heading = "Inlining")]
    pub inline_max_hot: Option<u32>,
    /// linear: size limit of the lightest profiled edge, where the linear
    /// ramp up to --inline-max-hot starts (Jikes: 46) [default: 46]
    #[arg(long, value_name = "N", help_heading = "Inlining")]
    pub inline_ramp_from: Option<u32>,
    /// hot-edge, linear: an edge above this percentage of the DCG's total
    /// weight is hot (Jikes: 1) [default: 1]
    #[arg(long, value_name = "F", help_heading = "Inlining")]
    pub hot_edge_pct: Option<f64>,
    /// linear: a target of a virtual call is inlined (guarded) only above
    /// this percentage of its site's weight (Jikes: 40) [default: 40]
    #[arg(long, value_name = "F", help_heading = "Inlining")]
    pub guard_min_pct: Option<f64>,
    /// Inline levels; nothing is inlined deeper (Jikes: 5) [default: 5]
    #[arg(long, value_name = "N", help_heading = "Inlining")]
    pub inline_depth: Option<u32>,
}

fn parse_policy(s: &str) -> Result<PolicyKind, String> {
    PolicyKind::parse(s).ok_or_else(|| format!("`{s}` is not a policy: static, hot-edge or linear"))
}

/// The thresholds, with every option checked against the policy.
fn thresholds(a: &InlineArgs, kind: PolicyKind) -> Result<Thresholds, Failure> {
    use PolicyKind::*;
    let mut t = Thresholds::default();
    let mut problems = Vec::new();
    let mut applies = |given: bool, flag: &str, policies: &[PolicyKind]| {
        if given && !policies.contains(&kind) {
            let names: Vec<&str> = policies.iter().map(|p| p.name()).collect();
            problems.push(format!(
                "vm: {flag} does not apply to --policy={} (only {})",
                kind.name(),
                names.join(", ")
            ));
        }
    };
    applies(a.inline_max_cold.is_some(), "--inline-max-cold", &[Static]);
    applies(
        a.inline_max_hot.is_some(),
        "--inline-max-hot",
        &[HotEdge, Linear],
    );
    applies(
        a.inline_ramp_from.is_some(),
        "--inline-ramp-from",
        &[Linear],
    );
    applies(
        a.hot_edge_pct.is_some(),
        "--hot-edge-pct",
        &[HotEdge, Linear],
    );
    applies(a.guard_min_pct.is_some(), "--guard-min-pct", &[Linear]);
    if let Some(n) = a.inline_always {
        t.always = n as usize;
    }
    if let Some(n) = a.inline_max_cold {
        t.max_cold = n as usize;
    }
    if let Some(n) = a.inline_max_hot {
        t.max_hot = n as usize;
    }
    if let Some(n) = a.inline_ramp_from {
        t.ramp_from = n as usize;
    }
    if let Some(f) = a.hot_edge_pct {
        if !(f > 0.0 && f <= 100.0) {
            problems.push(format!(
                "vm: --hot-edge-pct={f}: must be above 0 and at most 100"
            ));
        }
        t.hot_pct = f;
    }
    if let Some(f) = a.guard_min_pct {
        if !(0.0..100.0).contains(&f) {
            problems.push(format!(
                "vm: --guard-min-pct={f}: must be at least 0 and below 100"
            ));
        }
        t.guard_min_pct = f;
    }
    if let Some(n) = a.inline_depth {
        if !(1..=64).contains(&n) {
            problems.push(format!("vm: --inline-depth={n}: must be 1 to 64"));
        }
        t.depth = n;
    }
    if t.ramp_from > t.max_hot {
        problems.push(format!(
            "vm: --inline-ramp-from={} is above --inline-max-hot={}",
            t.ramp_from, t.max_hot
        ));
    }
    if problems.is_empty() {
        Ok(t)
    } else {
        Err(Failure::usage(problems.join("\n")))
    }
}

/// Run options that make no sense without a run (with --from-profile).
fn run_options_given(a: &RunArgs) -> Vec<&'static str> {
    let p = &a.profile;
    let mut v = Vec::new();
    let mut flag = |given: bool, name: &'static str| {
        if given {
            v.push(name);
        }
    };
    flag(p.profile.is_some(), "--profile");
    flag(p.interval.is_some(), "--interval");
    flag(p.stride.is_some(), "--stride");
    flag(p.samples.is_some(), "--samples");
    flag(p.every.is_some(), "--every");
    flag(p.clock.is_some(), "--clock");
    flag(p.seed.is_some(), "--seed");
    flag(p.record.is_some(), "--record");
    flag(p.walk.is_some(), "--walk");
    flag(p.max_walk.is_some(), "--max-walk");
    flag(p.acct_update.is_some(), "--acct-update");
    flag(p.sampled_bit.is_some(), "--sampled-bit");
    flag(p.purge.is_some(), "--purge");
    flag(p.tune, "--tune");
    flag(p.sampler.is_some(), "--sampler");
    flag(p.sample_threads.is_some(), "--sample-threads");
    flag(p.runnable_only, "--runnable-only");
    flag(p.no_hold, "--no-hold");
    flag(p.adaptive, "--adaptive");
    flag(p.profile_out.is_some(), "--profile-out");
    flag(p.report.is_some(), "--report");
    flag(a.no_yieldpoints, "--no-yieldpoints");
    flag(a.stats, "--stats");
    flag(a.cycles, "--cycles");
    flag(!a.set.is_empty(), "--set");
    v
}

pub fn inline(mut a: InlineArgs) -> Result<i32, Failure> {
    if a.run.profile.adaptive || a.run.profile.print_compilation {
        return Err(Failure::usage(
            "vm: --adaptive does not apply to vm inline (it inlines once, after the run; \
             use vm run --adaptive)",
        ));
    }
    let kind = a.policy.unwrap_or(PolicyKind::Linear);
    let t = thresholds(&a, kind)?;
    if let Some(file) = &a.from_profile {
        if !kind.uses_profile() {
            return Err(Failure::usage(
                "vm: --from-profile does not apply to --policy=static (it reads no profile)",
            ));
        }
        let given = run_options_given(&a.run);
        if !given.is_empty() {
            return Err(Failure::usage(format!(
                "vm: --from-profile={}: the program is not run, so {} {} not apply",
                file.display(),
                given.join(", "),
                if given.len() == 1 { "does" } else { "do" }
            )));
        }
    }
    // A profile-reading policy with no --profile profiles exhaustively:
    // the exact call counts, the same on every run.
    if kind.uses_profile() && a.from_profile.is_none() && a.run.profile.profile.is_none() {
        a.run.profile.profile = Some(ProfileKind::Exhaustive);
    }
    if kind.uses_profile() && a.run.profile.profile == Some(ProfileKind::None) {
        return Err(Failure::usage(format!(
            "vm: --policy={} needs a profile: not --profile=none",
            kind.name()
        )));
    }
    if !kind.uses_profile()
        && a.run
            .profile
            .profile
            .is_some_and(|k| k != ProfileKind::None)
    {
        return Err(Failure::usage(
            "vm: --profile does not apply to --policy=static (it reads no profile)",
        ));
    }
    let config = resolve_profile(&a.run.profile, a.run.no_yieldpoints)?;
    let module = load_module(&a.run.program, a.run.max_source)?;

    // Open the output files first, so a bad path is reported before the
    // program runs.
    let mut emit_file = match &a.emit {
        Some(path) => Some(create(path)?),
        None => None,
    };
    let (status, profile) = match &a.from_profile {
        Some(file) => (0, Some(super::load_profile(file, a.run.max_source)?)),
        None => run_program(&a.run, config, module.clone())?,
    };

    let weights = match &profile {
        Some(p) if kind.uses_profile() => EdgeWeights::from_profile(&module, p),
        _ => EdgeWeights::default(),
    };
    let verdicts = policy::decide(kind, &module, &weights, &t);
    let (optimized, outcomes) =
        jit_sim::inline::inline(&module, &policy::decisions(&verdicts), &t.budget()).map_err(
            |e| Failure {
                status: 70,
                message: format!("vm: inlining failed: {e}"),
            },
        )?;
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let total = match &profile {
        Some(_) if kind.uses_profile() => format!(", DCG weight {}", weights.total),
        _ => String::new(),
    };
    let _ = writeln!(
        err,
        "vm: inlining {} with --policy={}{total}",
        a.run.program.display(),
        kind.name()
    );
    let _ = err.write_all(policy::log(&module, &verdicts, &outcomes, &weights).as_bytes());
    drop(err);
    if let (Some(file), Some(path)) = (&mut emit_file, &a.emit) {
        let text = vm::printer::print(&optimized).map_err(|e| Failure {
            status: 70,
            message: format!("vm: cannot print the optimized program: {e}"),
        })?;
        file.write_all(text.as_bytes()).map_err(|e| Failure {
            status: EXIT_NO_INPUT,
            message: format!("vm: cannot write `{}`: {e}", path.display()),
        })?;
    }
    Ok(status)
}

fn create(path: &std::path::Path) -> Result<std::fs::File, Failure> {
    std::fs::File::create(path).map_err(|e| Failure {
        status: EXIT_NO_INPUT,
        message: format!("vm: cannot write `{}`: {e}", path.display()),
    })
}

/// Runs the program as `vm run` would (same options, same output) and
/// returns its exit status and profile.
fn run_program(
    a: &RunArgs,
    config: profiler::config::ProfileConfig,
    module: vm::module::Module,
) -> Result<(i32, Option<Profile>), Failure> {
    let done = execute(a, config, module)?;
    Ok((done.status, done.profile.map(|p| p.into_profile())))
}
