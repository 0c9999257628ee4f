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
use jit_sim::policy::{self, record, EdgeWeights, PolicyKind, Thresholds};
use profile::Profile;
use profiler::config::ProfileKind;

use super::args::RunArgs;
use super::run::{execute, resolve_profile};
use super::{load_module, Failure};

mod compare;
mod explore;
mod flip;
mod html;
mod logfile;
mod runs;
mod timing;

use super::output_file::{not_the_program, OutputFile};

/// Options of `vm inline`: every `vm run` option but `--adaptive` and
/// `--print-compilation`, which it refuses (it inlines once, after the
/// run), so its help does not list them.
#[derive(Args, Debug)]
#[command(mut_arg("adaptive", |a| a.hide(true)), mut_arg("print_compilation", |a| a.hide(true)))]
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
    /// Write the decision log to FILE: one JSON object per line (format
    /// vm-inline-log/1, docs/INLINING.md), a `run` line then one `site`
    /// line per call site and target considered
    #[arg(long, value_name = "FILE.jsonl", help_heading = "Studying decisions")]
    pub log: Option<PathBuf>,
    /// Run the program once per profile KIND (at least two of exhaustive,
    /// timer, cbs, counter; same seed, --clock=virtual unless given) and
    /// print, on stdout, one row per call site with each profile's weight
    /// and decision, the cycles of the program optimized under each, and
    /// what each disagreement cost or saved; the program's output is not
    /// printed
    #[arg(
        long,
        value_name = "KIND,KIND,...",
        value_delimiter = ',',
        help_heading = "Studying decisions"
    )]
    pub compare: Option<Vec<String>>,
    /// With --compare: also time the original and each optimized program,
    /// N runs each (default 5), interleaved round by round and one at a
    /// time, and print the median wall time with its quartiles beside the
    /// cycles (the runs count no cycles and take no profile)
    #[arg(
        long,
        value_name = "N",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "5",
        value_parser = clap::value_parser!(u32).range(1..=1000),
        help_heading = "Studying decisions"
    )]
    pub time: Option<u32>,
    /// Explain the decision at the call on line LINE of method CALLER:
    /// every rule checked, the one that decided, the option values that
    /// would flip it, and the cycles with it flipped (on stderr, after the
    /// program's output)
    #[arg(long, value_name = "CALLER:LINE", help_heading = "Studying decisions")]
    pub explain: Option<String>,
    /// Write the decisions handed to the inliner to FILE (format
    /// vm-inline-advice/1), for --advice
    #[arg(long, value_name = "FILE", help_heading = "Studying decisions")]
    pub advice_out: Option<PathBuf>,
    /// Inline exactly the decisions of FILE (written by --advice-out)
    /// instead of asking a policy; calls the program no longer has are
    /// skipped, each with a line on stderr
    #[arg(long, value_name = "FILE", help_heading = "Studying decisions")]
    pub advice: Option<PathBuf>,
    /// Measure the gain: simulated cycles of the original and of the
    /// optimized program, instructions per method before and after, and
    /// the hot methods that had nothing inlined, with why
    #[arg(long, help_heading = "Studying decisions")]
    pub gain: bool,
    /// Print the inlining tree of each method on stderr: what got inlined
    /// into what, depth, sizes, and the budgets left
    #[arg(long, help_heading = "Studying decisions")]
    pub tree: bool,
    /// List the hot call sites that were not inlined, heaviest first, each
    /// with the rule that stopped it and the option value that lets it
    /// through
    #[arg(long, help_heading = "Studying decisions")]
    pub suggest: bool,
}

fn parse_policy(s: &str) -> Result<PolicyKind, String> {
    PolicyKind::parse(s).ok_or_else(|| format!("`{s}` is not a policy: static, hot-edge or linear"))
}

/// The thresholds, with every option checked against the policy
/// (`Thresholds::validate`).
fn thresholds(a: &InlineArgs, kind: PolicyKind) -> Result<Thresholds, Failure> {
    let mut t = Thresholds::default();
    let given: Vec<&str> = [
        (a.inline_max_cold.is_some(), "--inline-max-cold"),
        (a.inline_max_hot.is_some(), "--inline-max-hot"),
        (a.inline_ramp_from.is_some(), "--inline-ramp-from"),
        (a.hot_edge_pct.is_some(), "--hot-edge-pct"),
        (a.guard_min_pct.is_some(), "--guard-min-pct"),
    ]
    .into_iter()
    .filter_map(|(given, flag)| given.then_some(flag))
    .collect();
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
    t.hot_pct = a.hot_edge_pct.unwrap_or(t.hot_pct);
    t.guard_min_pct = a.guard_min_pct.unwrap_or(t.guard_min_pct);
    t.depth = a.inline_depth.unwrap_or(t.depth);
    let problems = t.validate(kind, &given);
    if problems.is_empty() {
        Ok(t)
    } else {
        let lines: Vec<String> = problems.iter().map(|p| format!("vm: {p}")).collect();
        Err(Failure::usage(lines.join("\n")))
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
    for o in profiler::options::PROFILE_OPTIONS {
        flag((o.given)(&p.options), o.flag);
    }
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
    if a.run.profile.adaptive || a.run.profile.print_compilation.is_some() {
        return Err(Failure::usage(
            "vm: --adaptive does not apply to vm inline (it inlines once, after the run; \
             use vm run --adaptive)",
        ));
    }
    not_the_programs_outputs(&a)?;
    if a.compare.is_some() {
        return compare::compare(a);
    }
    if let Some(n) = a.time {
        return Err(Failure::usage(format!(
            "vm: --time={n} applies only with --compare (it times the program optimized \
             under each profile)"
        )));
    }
    let kind = a.policy.unwrap_or(PolicyKind::Linear);
    let t = thresholds(&a, kind)?;
    if let Some(file) = &a.advice {
        let mut clash = Vec::new();
        if a.policy.is_some() {
            clash.push("--policy");
        }
        if a.from_profile.is_some() {
            clash.push("--from-profile");
        }
        if a.explain.is_some() {
            clash.push("--explain");
        }
        if a.suggest {
            clash.push("--suggest");
        }
        if let Some(first) = clash.first() {
            return Err(Failure::usage(format!(
                "vm: --advice={}: the decisions come from the file, so {first} does not apply",
                file.display()
            )));
        }
        if t != Thresholds::default() && a.inline_depth.is_none() {
            return Err(Failure::usage(
                "vm: --advice: the decisions come from the file, so the policy's thresholds \
                 do not apply (only --inline-depth does)",
            ));
        }
    }
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
        if a.explain.is_some() || a.gain {
            return Err(Failure::usage(format!(
                "vm: --from-profile={}: the program is not run, so {} cannot measure cycles",
                file.display(),
                if a.gain { "--gain" } else { "--explain" }
            )));
        }
    }
    let uses_profile = kind.uses_profile() && a.advice.is_none();
    // A profile-reading policy with no --profile profiles exhaustively:
    // the exact call counts, the same on every run.
    if uses_profile && a.from_profile.is_none() && a.run.profile.options.profile.is_none() {
        a.run.profile.options.profile = Some(ProfileKind::Exhaustive);
    }
    if uses_profile && a.run.profile.options.profile == Some(ProfileKind::None) {
        return Err(Failure::usage(format!(
            "vm: --policy={} needs a profile: not --profile=none",
            kind.name()
        )));
    }
    if kind == PolicyKind::Static
        && a.run
            .profile
            .options
            .profile
            .is_some_and(|k| k != ProfileKind::None)
    {
        return Err(Failure::usage(
            "vm: --profile does not apply to --policy=static (it reads no profile)",
        ));
    }
    super::run::simulated_machine(&a.run)?;
    let config = resolve_profile(&a.run.profile, a.run.no_yieldpoints)?;
    let module = load_module(&a.run.file.program, a.run.file.limit.max_source)?;
    let explain_at = match &a.explain {
        Some(spec) => Some(explore::parse_site(spec, &module)?),
        None => None,
    };
    let advice = match &a.advice {
        Some(path) => {
            let bytes = super::limits::read_bounded(path, a.run.file.limit.max_source)?;
            let text = String::from_utf8(bytes).map_err(|_| Failure {
                status: super::EXIT_INVALID,
                message: format!("vm: `{}` is not UTF-8 text", path.display()),
            })?;
            let (decisions, skipped) = logfile::read_advice(path, &text, &module)?;
            Some((path.clone(), decisions, skipped))
        }
        None => None,
    };

    // Open the output files first, so a bad path is reported before the
    // program runs; each is written whole at the end, or not at all.
    let open = |p: &Option<PathBuf>| p.as_deref().map(OutputFile::create).transpose();
    let emit_file = open(&a.emit)?;
    let log_file = open(&a.log)?;
    let advice_file = open(&a.advice_out)?;
    let html_file = open(&a.run.html)?;
    let (status, profile) = match &a.from_profile {
        Some(file) => (
            0,
            Some(super::load_profile(file, a.run.file.limit.max_source)?),
        ),
        None => run_program(&a.run, config, module.clone())?,
    };

    let weights = match &profile {
        Some(p) if uses_profile || advice.is_some() => EdgeWeights::from_profile(&module, p),
        _ => EdgeWeights::default(),
    };
    let verdicts = match &advice {
        Some((_, decisions, _)) => explore::advice_verdicts(&module, decisions, &weights),
        None => policy::decide(kind, &module, &weights, &t),
    };
    let decisions = policy::decisions(&verdicts);
    let (optimized, outcomes) = runs::inline_with(&module, &decisions, &t.budget())?;
    let records = record::records(&module, &verdicts, &outcomes, &weights, Some(&t));
    let program = a.run.file.program.display().to_string();
    let run = explore::run_record(
        &program,
        match &advice {
            Some((path, ..)) => Err(path.display().to_string()),
            None => Ok(kind),
        },
        profile.as_ref().map(|p| p.config.profile.clone()),
        (profile.is_some() && (uses_profile || advice.is_some())).then_some(weights.total),
        &t,
    );
    let mut err = vm::stdio::stderr();
    if let Some((_, _, skipped)) = &advice {
        for line in skipped {
            let _ = writeln!(err, "{line}");
        }
    }
    let _ = writeln!(err, "{}", explore::run_header(&run));
    if explain_at.is_none() {
        let _ = err.write_all(record::render_text(&records).as_bytes());
    }
    drop(err);
    let study = explore::Study {
        args: &a.run,
        module: &module,
        kind,
        t: &t,
        weights: &weights,
        verdicts: &verdicts,
        records: &records,
        optimized: &optimized,
    };
    if let Some(site) = explain_at {
        vm::stdio::eprint(&explore::explain(&study, site)?);
    }
    if a.tree {
        vm::stdio::eprintln("vm: inlining tree:");
        vm::stdio::eprint(&record::render_tree(&records, &module, &optimized, &t));
    }
    if a.suggest {
        vm::stdio::eprint(&explore::suggest(&study));
    }
    if a.gain {
        vm::stdio::eprint(&explore::gain(&study)?);
    }
    if let Some(file) = log_file {
        file.commit(&logfile::log_text(&run, &records))?;
    }
    if let Some(file) = advice_file {
        file.commit(&logfile::advice_text(&module, &program, &decisions))?;
    }
    if emit_file.is_some() || html_file.is_some() {
        let src = source_text(&a.run);
        let text = emitted_text(&src, &module, &optimized, &outcomes)?;
        if let Some(file) = html_file {
            let view = html::View {
                profile: None,
                header: explore::run_header(&run),
                thresholds: match &advice {
                    Some(_) => "none read: the advice file decides".into(),
                    None => flip::thresholds_line(kind, &t),
                },
                records: &records,
                flips: flip::site_flips(study.deciding(), &records),
                tree: record::render_tree(&records, &module, &optimized, &t),
                emitted: text.clone(),
            };
            file.commit(&html::page(&program, &src, &[view]))?;
        }
        if let Some(file) = emit_file {
            file.commit(&text)?;
        }
    }
    Ok(status)
}

/// The program's source text (empty if it cannot be read again).
fn source_text(a: &RunArgs) -> String {
    super::limits::read_bounded(&a.file.program, a.file.limit.max_source)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

/// The optimized program as `.bc` text, with the original's comments put
/// back and each inlined region marked.
fn emitted_text(
    src: &str,
    module: &vm::module::Module,
    optimized: &vm::module::Module,
    outcomes: &[jit_sim::inline::Outcome],
) -> Result<String, Failure> {
    let text = vm::printer::print(optimized).map_err(|e| Failure {
        status: 70,
        message: format!("vm: cannot print the optimized program: {e}"),
    })?;
    Ok(jit_sim::inline::annotate::annotate(
        src, module, &text, optimized, outcomes,
    ))
}

/// Usage errors: a file to write that is the program itself (`--emit`,
/// `--log`, `--advice-out`, and `vm run`'s `--profile-out`, `--html`).
fn not_the_programs_outputs(a: &InlineArgs) -> Result<(), Failure> {
    super::run::not_the_programs_outputs(&a.run)?;
    for (flag, path) in [
        ("--emit", &a.emit),
        ("--log", &a.log),
        ("--advice-out", &a.advice_out),
    ] {
        not_the_program(&a.run.file.program, path.as_deref(), flag)?;
    }
    Ok(())
}

/// Runs the program as `vm run` would (same options, same output) and
/// returns its exit status and profile; a run stopped from outside (a
/// signal, an output that cannot be written) ends `vm inline` there.
fn run_program(
    a: &RunArgs,
    config: profiler::config::ProfileConfig,
    module: vm::module::Module,
) -> Result<(i32, Option<Profile>), Failure> {
    let done = execute(a, config, module)?;
    if let Some(why) = done.interrupted {
        return Err(runs::interrupted(why));
    }
    Ok((done.status, done.profile.map(|p| p.into_profile())))
}
