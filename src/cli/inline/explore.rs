//! The study modes of `vm inline` (docs/INLINING.md "Studying
//! decisions"): `--compare` (one table of every call site's weight and
//! decision under several profiles, with the cycles each disagreement cost
//! or saved), `--explain` (one site's rules and what would flip it),
//! `--suggest` (hot sites rejected, with the option value that lets them
//! through), `--gain` (cycles before and after) and `--advice`. Everything
//! printed is drawn from the decision records of
//! [`jit_sim::policy::record`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use jit_sim::inline::{CallSite, Decision, Target};
use jit_sim::policy::record::{self, Record, Verdict};
use jit_sim::policy::{self, EdgeWeights, PolicyKind, Rule, SiteDecision, Thresholds};
use profiler::config::{Clock, ProfileKind};
use serde_json::{json, Value};
use vm::module::{Module, Op};

use super::super::args::RunArgs;
use super::super::run::resolve_profile;
use super::super::{load_module, Failure};
use super::logfile::{self, Pending, LOG_FORMAT};
use super::runs::{self, Ran};
use super::{thresholds, InlineArgs};

/// What the study modes look at: one run's decisions.
pub struct Study<'a> {
    /// The run options (for the measuring runs).
    pub args: &'a RunArgs,
    /// The original program.
    pub module: &'a Module,
    /// The policy.
    pub kind: PolicyKind,
    /// Its thresholds.
    pub t: &'a Thresholds,
    /// The profile's edges.
    pub weights: &'a EdgeWeights,
    /// The policy's verdicts.
    pub verdicts: &'a [SiteDecision],
    /// The records.
    pub records: &'a [Record],
    /// The optimized program.
    pub optimized: &'a Module,
}

/// The log file's first line: what was decided, how.
pub fn run_record(
    program: &str,
    policy: Result<PolicyKind, String>,
    profile: Option<String>,
    dcg_weight: Option<u64>,
    t: &Thresholds,
) -> Value {
    let (policy, advice) = match policy {
        Ok(k) => (Some(k.name()), None),
        Err(file) => (None, Some(file)),
    };
    json!({
        "format": LOG_FORMAT,
        "type": "run",
        "program": program,
        "policy": policy,
        "advice": advice,
        "profile": profile,
        "dcg_weight": dcg_weight,
        "thresholds": {
            "inline_always": t.always,
            "inline_max_cold": t.max_cold,
            "inline_max_hot": t.max_hot,
            "inline_ramp_from": t.ramp_from,
            "hot_edge_pct": t.hot_pct,
            "guard_min_pct": t.guard_min_pct,
            "inline_depth": t.depth,
        },
    })
}

/// The text log's header line, from the run record.
pub fn run_header(run: &Value) -> String {
    let program = run["program"].as_str().unwrap_or("?");
    let how = match (run["policy"].as_str(), run["advice"].as_str()) {
        (_, Some(file)) => format!("--advice={file}"),
        (Some(p), _) => format!("--policy={p}"),
        _ => "?".into(),
    };
    let total = match run["dcg_weight"].as_u64() {
        Some(w) => format!(", DCG weight {w}"),
        None => String::new(),
    };
    format!("vm: inlining {program} with {how}{total}")
}

/// The verdicts of `--advice`: the file's decisions are inlined, every
/// other call site is not.
pub fn advice_verdicts(
    module: &Module,
    decisions: &[Decision],
    weights: &EdgeWeights,
) -> Vec<SiteDecision> {
    let weight = |site: CallSite, callee: Option<u32>| {
        (weights.total > 0).then(|| callee.map_or(0, |c| weights.edge(site, c)))
    };
    let mut out = Vec::new();
    for site in jit_sim::inline::call_sites(module) {
        let op = module.methods[site.method as usize].code[site.index as usize].op;
        let mine: Vec<&Decision> = decisions.iter().filter(|d| d.site == site).collect();
        for d in &mine {
            let callee = match (d.target, op) {
                (Target::Method { method }, _) => Some(method),
                (_, Op::Call(m)) => Some(m),
                _ => None,
            };
            out.push(SiteDecision {
                site,
                callee,
                target: Some(d.target),
                weight: weight(site, callee),
                reason: "inline (advice)".into(),
                rules: vec![Rule::fact("in the advice", true)],
            });
        }
        if mine.is_empty() {
            let callee = match op {
                Op::Call(m) => Some(m),
                _ => None,
            };
            out.push(SiteDecision {
                site,
                callee,
                target: None,
                weight: weight(site, callee),
                reason: "not in the advice".into(),
                rules: vec![Rule::fact("in the advice", false)],
            });
        }
    }
    out
}

/// Parses `CALLER:LINE` against the module: the call site there.
pub fn parse_site(spec: &str, module: &Module) -> Result<CallSite, Failure> {
    let bad = |why: String| Failure::usage(format!("vm: --explain={spec}: {why}"));
    let (caller, line) = spec
        .rsplit_once(':')
        .ok_or_else(|| bad("expected CALLER:LINE, e.g. main:12".into()))?;
    let line: u32 = line
        .parse()
        .map_err(|_| bad(format!("`{line}` is not a line number")))?;
    let method = module
        .method_by_display_name(caller)
        .ok_or_else(|| bad(format!("the program has no method `{caller}`")))?;
    jit_sim::inline::site_at_line_of(module, method, line).ok_or_else(|| {
        let lines: Vec<String> = jit_sim::inline::call_sites(module)
            .iter()
            .filter(|s| s.method == method)
            .map(|s| {
                module.methods[method as usize].code[s.index as usize]
                    .pos
                    .line
                    .to_string()
            })
            .collect();
        bad(if lines.is_empty() {
            format!("`{caller}` has no call site")
        } else {
            format!(
                "`{caller}` has no call on line {line} (its calls are on line {})",
                lines.join(", ")
            )
        })
    })
}

/// The target the inliner is asked for to inline `callee` at `site`.
fn target_for(module: &Module, site: CallSite, callee: u32) -> Target {
    match module.methods[site.method as usize].code[site.index as usize].op {
        Op::CallVirt(_) => Target::Method { method: callee },
        _ => Target::Static,
    }
}

/// `decisions` with the one for (`site`, `callee`) flipped: removed if it
/// is there, added if not.
fn flipped(module: &Module, decisions: &[Decision], site: CallSite, callee: u32) -> Vec<Decision> {
    let target = target_for(module, site, callee);
    let mut out: Vec<Decision> = decisions
        .iter()
        .filter(|d| !(d.site == site && d.target == target))
        .copied()
        .collect();
    if out.len() == decisions.len() {
        out.push(Decision { site, target });
    }
    out
}

/// The cycles of `module` with `decisions` inlined (checked to behave as
/// the original).
fn cycles_with(
    args: &RunArgs,
    module: &Module,
    decisions: &[Decision],
    t: &Thresholds,
    original: &Ran,
    what: &str,
) -> Result<u64, Failure> {
    let (optimized, _) = runs::inline_with(module, decisions, &t.budget())?;
    runs::measure_equivalent(args, optimized, original, what)
}

fn signed(d: i64) -> String {
    if d > 0 {
        format!("+{d}")
    } else {
        d.to_string()
    }
}

fn pct_change(before: u64, after: u64) -> String {
    if before == 0 {
        return "n/a".into();
    }
    format!(
        "{:+.2}%",
        100.0 * (after as f64 - before as f64) / before as f64
    )
}

/// The options a policy reads, with how to get and set them.
struct Knob {
    option: &'static str,
    policies: &'static [PolicyKind],
    /// Integer or percentage.
    integer: bool,
    get: fn(&Thresholds) -> f64,
    set: fn(&mut Thresholds, f64),
    /// Allowed range.
    lo: f64,
    hi: f64,
}

const ALL: &[PolicyKind] = &[PolicyKind::Static, PolicyKind::HotEdge, PolicyKind::Linear];
const PROFILED: &[PolicyKind] = &[PolicyKind::HotEdge, PolicyKind::Linear];

fn knobs() -> Vec<Knob> {
    vec![
        Knob {
            option: "--inline-always",
            policies: ALL,
            integer: true,
            get: |t| t.always as f64,
            set: |t, v| t.always = v as usize,
            lo: 0.0,
            hi: 10_000.0,
        },
        Knob {
            option: "--inline-max-cold",
            policies: &[PolicyKind::Static],
            integer: true,
            get: |t| t.max_cold as f64,
            set: |t, v| t.max_cold = v as usize,
            lo: 0.0,
            hi: 10_000.0,
        },
        Knob {
            option: "--inline-max-hot",
            policies: PROFILED,
            integer: true,
            get: |t| t.max_hot as f64,
            set: |t, v| t.max_hot = v as usize,
            lo: 0.0,
            hi: 10_000.0,
        },
        Knob {
            option: "--inline-ramp-from",
            policies: &[PolicyKind::Linear],
            integer: true,
            get: |t| t.ramp_from as f64,
            set: |t, v| t.ramp_from = v as usize,
            lo: 0.0,
            hi: 10_000.0,
        },
        Knob {
            option: "--hot-edge-pct",
            policies: PROFILED,
            integer: false,
            get: |t| t.hot_pct,
            set: |t, v| t.hot_pct = v,
            lo: 0.01,
            hi: 100.0,
        },
        Knob {
            option: "--guard-min-pct",
            policies: &[PolicyKind::Linear],
            integer: false,
            get: |t| t.guard_min_pct,
            set: |t, v| t.guard_min_pct = v,
            lo: 0.0,
            hi: 99.99,
        },
    ]
}

/// Would the policy inline `callee` at `site` under `t`?
fn policy_inlines(s: &Study, t: &Thresholds, site: CallSite, callee: Option<u32>) -> bool {
    policy::decide_site(s.kind, s.module, s.weights, t, site)
        .iter()
        .any(|v| v.callee == callee && v.inline())
}

/// The nearest value of each option that flips the policy's verdict on
/// the record's target (the other options as given). A refusal by the
/// inliner's depth budget is flipped by `--inline-depth`.
fn flip_values(s: &Study, r: &Record) -> Vec<String> {
    let mut out = Vec::new();
    if r.verdict == Verdict::Refused {
        if let Some(rule) = r.rules.last().filter(|x| x.name == "depth") {
            if let Some(v) = rule.value {
                out.push(format!("--inline-depth={}", v as u64));
            }
        }
        return out;
    }
    if r.reason.ends_with("(advice)") || r.reason == "not in the advice" {
        return out;
    }
    let now = policy_inlines(s, s.t, r.site, r.callee_id);
    for k in knobs() {
        if !k.policies.contains(&s.kind) {
            continue;
        }
        let cur = (k.get)(s.t);
        let step = if k.integer { 1.0 } else { 0.01 };
        let steps = ((k.hi - k.lo) / step) as i64 + 1;
        let mut found = None;
        for d in 1..=steps {
            for v in [cur + d as f64 * step, cur - d as f64 * step] {
                let v = (v / step).round() * step;
                if v < k.lo || v > k.hi {
                    continue;
                }
                let mut t = *s.t;
                (k.set)(&mut t, v);
                // --inline-ramp-from may not be above --inline-max-hot:
                // lowering the one lowers the other with it.
                let mut also = String::new();
                if t.ramp_from > t.max_hot {
                    if k.option != "--inline-max-hot" {
                        continue;
                    }
                    t.ramp_from = t.max_hot;
                    also = format!(" --inline-ramp-from={}", t.max_hot);
                }
                if policy_inlines(s, &t, r.site, r.callee_id) != now {
                    found = Some((v, also));
                    break;
                }
            }
            if found.is_some() {
                break;
            }
        }
        if let Some((v, also)) = found {
            out.push(if k.integer {
                format!("{}={}{also}", k.option, v as i64)
            } else {
                format!("{}={v:.2}{also}", k.option)
            });
        }
    }
    out
}

/// The depth-1 records of a site (one per target).
fn site_records(records: &[Record], site: CallSite) -> Vec<&Record> {
    records
        .iter()
        .filter(|r| r.depth == 1 && r.site == site)
        .collect()
}

fn describe_weight(r: &Record) -> String {
    match (r.weight, r.weight_pct()) {
        (Some(w), Some(p)) => format!(
            ", weight {w} = {p:.2}% of the DCG, site weight {}",
            r.site_weight.unwrap_or(0)
        ),
        _ => String::new(),
    }
}

/// `--explain=CALLER:LINE`.
pub fn explain(s: &Study, site: CallSite) -> Result<String, Failure> {
    let mut out = String::new();
    let original = runs::measure(s.args, s.module.clone())?;
    let decisions = policy::decisions(s.verdicts);
    let as_decided =
        runs::measure_equivalent(s.args, s.optimized.clone(), &original, "as decided")?;
    for r in site_records(s.records, site) {
        let size = r
            .callee_size
            .map_or_else(|| "virtual".into(), |n| format!("{n} insns"));
        let _ = writeln!(
            out,
            "{}:{} -> {} ({size}{})",
            r.caller,
            r.line,
            r.callee,
            describe_weight(r)
        );
        for x in &r.receivers {
            let _ = writeln!(
                out,
                "  receiver {} ({}): {:.2}% of the site",
                x.method,
                x.classes.join(", "),
                x.share
            );
        }
        let _ = writeln!(out, "  rules, in order:");
        for rule in &r.rules {
            let _ = writeln!(out, "    {}", rule.describe());
        }
        if let Some(rule) = r.deciding_rule() {
            let _ = writeln!(out, "  decided by: {}", rule.describe());
        }
        let _ = writeln!(out, "  outcome: {}: {}", r.verdict.name(), r.reason);
        let flips = flip_values(s, r);
        if flips.is_empty() {
            let _ = writeln!(out, "  to flip it: no single option value does");
        } else {
            let _ = writeln!(out, "  to flip it: {}", flips.join(" or "));
        }
        if let Some(callee) = r.callee_id {
            let flip = flipped(s.module, &decisions, site, callee);
            let c = cycles_with(s.args, s.module, &flip, s.t, &original, "with the flip")?;
            let _ = writeln!(
                out,
                "  cycles: {as_decided} as decided, {c} with this decision flipped ({})",
                signed(c as i64 - as_decided as i64)
            );
        }
    }
    Ok(out)
}

/// `--suggest`: the profiled call sites not inlined, heaviest first, each
/// with the rule that stopped it and the option values that let it
/// through.
pub fn suggest(s: &Study) -> String {
    let mut rejected: Vec<&Record> = s
        .records
        .iter()
        .filter(|r| r.depth == 1 && !r.verdict.inlined() && r.weight.unwrap_or(0) > 0)
        .collect();
    rejected.sort_by(|a, b| b.weight.cmp(&a.weight).then(a.line.cmp(&b.line)));
    let mut out = String::from("vm: suggestions: hot call sites not inlined, heaviest first\n");
    if rejected.is_empty() {
        out.push_str("  (none: every profiled call site was inlined)\n");
    }
    for (i, r) in rejected.iter().enumerate() {
        let stop = r.deciding_rule().map_or_else(|| "?".into(), Rule::describe);
        let flips = flip_values(s, r);
        let _ = writeln!(
            out,
            "  {}. {}:{} -> {} ({:.2}% of the DCG): {}; stopped by {}; lets it through: {}",
            i + 1,
            r.caller,
            r.line,
            r.callee,
            r.weight_pct().unwrap_or(0.0),
            r.reason,
            stop,
            if flips.is_empty() {
                "no single option value".into()
            } else {
                flips.join(" or ")
            }
        );
    }
    out
}

/// Instructions executed per method, from an exhaustive profile of a run
/// of `module`.
fn instructions_per_method(
    args: &RunArgs,
    module: Module,
) -> Result<BTreeMap<String, u64>, Failure> {
    // --no-yieldpoints applies to the exhaustive profile: nothing to check.
    let p = profiler::config::ProfileOptions {
        profile: Some(ProfileKind::Exhaustive),
        seed: Some(1),
        ..Default::default()
    };
    let config = p
        .resolve(1)
        .map_err(|e| Failure::usage(format!("vm: {e}")))?;
    let ran = runs::run_captured(args, config, module, true)?;
    Ok(ran
        .profile
        .and_then(|p| p.methods)
        .unwrap_or_default()
        .into_iter()
        .map(|m| (m.name, m.self_))
        .collect())
}

/// `--gain`: cycles before and after, instructions per method before and
/// after, and the hot methods that had nothing inlined, with why.
pub fn gain(s: &Study) -> Result<String, Failure> {
    let original = runs::measure(s.args, s.module.clone())?;
    let before = original.cycles.unwrap_or(0);
    let after = runs::measure_equivalent(s.args, s.optimized.clone(), &original, "")?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "vm: gain: cycles {before} -> {after} ({}, {})",
        signed(after as i64 - before as i64),
        pct_change(before, after)
    );
    let per_before = instructions_per_method(s.args, s.module.clone())?;
    let per_after = instructions_per_method(s.args, s.optimized.clone())?;
    let total: u64 = per_before.values().sum();
    let mut names: Vec<&String> = per_before.keys().chain(per_after.keys()).collect();
    names.sort_by_key(|n| std::cmp::Reverse(per_before.get(*n).copied().unwrap_or(0)));
    names.dedup();
    let _ = writeln!(out, "  instructions per method (before -> after):");
    for n in &names {
        let b = per_before.get(*n).copied().unwrap_or(0);
        let a = per_after.get(*n).copied().unwrap_or(0);
        let _ = writeln!(out, "    {n}: {b} -> {a} ({})", signed(a as i64 - b as i64));
    }
    // Hot methods (5% of the instructions or more) with nothing inlined.
    for n in names {
        let b = per_before.get(n).copied().unwrap_or(0);
        if total == 0 || (b as f64) < 0.05 * total as f64 {
            continue;
        }
        let own: Vec<&Record> = s
            .records
            .iter()
            .filter(|r| r.depth == 1 && &r.caller == n)
            .collect();
        // A method without calls has nothing to inline by nature.
        if own.is_empty() || own.iter().any(|r| r.verdict.inlined()) {
            continue;
        }
        let reasons: Vec<String> = own
            .iter()
            .map(|r| format!("{} at line {}: {}", r.callee, r.line, r.reason))
            .collect();
        let why = reasons.join("; ");
        let _ = writeln!(
            out,
            "  hot, nothing inlined: {n} ({:.0}% of the instructions): {why}",
            100.0 * b as f64 / total as f64
        );
    }
    Ok(out)
}

/// One profile's view in `--compare`.
struct View {
    kind: ProfileKind,
    records: Vec<Record>,
    decisions: Vec<Decision>,
    cycles: u64,
}

/// `--compare=KIND,KIND,...`.
pub fn compare(mut a: InlineArgs) -> Result<i32, Failure> {
    let list = a.compare.take().unwrap_or_default();
    let mut kinds: Vec<ProfileKind> = Vec::new();
    for name in &list {
        let k: ProfileKind = name.trim().parse().map_err(|_| {
            Failure::usage(format!(
                "vm: --compare: `{name}` is not a profile kind: exhaustive, timer, cbs or counter"
            ))
        })?;
        if k == ProfileKind::None {
            return Err(Failure::usage(
                "vm: --compare: `none` is not a profile to compare (exhaustive, timer, cbs or counter)",
            ));
        }
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    if kinds.len() < 2 {
        return Err(Failure::usage(format!(
            "vm: --compare needs at least two profile kinds to compare (got {}), e.g. \
             --compare=exhaustive,cbs,timer",
            if kinds.is_empty() {
                "none".to_string()
            } else {
                format!("only {}", kinds[0])
            }
        )));
    }
    let kind = a.policy.unwrap_or(PolicyKind::Linear);
    if !kind.uses_profile() {
        return Err(Failure::usage(
            "vm: --compare does not apply to --policy=static (it reads no profile)",
        ));
    }
    let clash = [
        (a.run.profile.options.profile.is_some(), "--profile"),
        (a.from_profile.is_some(), "--from-profile"),
        (a.advice.is_some(), "--advice"),
        (a.advice_out.is_some(), "--advice-out"),
        (a.explain.is_some(), "--explain"),
        (a.emit.is_some(), "--emit"),
        (a.gain, "--gain"),
        (a.suggest, "--suggest"),
        (a.tree, "--tree"),
        (a.run.html.is_some(), "--html"),
        (a.run.profile.profile_out.is_some(), "--profile-out"),
        (a.run.profile.report.is_some(), "--report"),
        (a.run.cycles, "--cycles"),
        (a.run.stats, "--stats"),
    ];
    if let Some((_, flag)) = clash.iter().find(|(given, _)| *given) {
        return Err(Failure::usage(format!(
            "vm: {flag} does not apply with --compare (it runs one program per profile kind)"
        )));
    }
    let t = thresholds(&a, kind)?;
    let clock = a.run.profile.options.clock.unwrap_or(Clock::Virtual);
    // One seed for every run: the given one, or one drawn by the first.
    let mut seed = a.run.profile.options.seed;
    let module = load_module(&a.run.program, a.run.max_source)?;
    if jit_sim::inline::call_sites(&module).is_empty() {
        return Err(Failure::usage(format!(
            "vm: --compare: {} has no call site, so there is nothing to inline",
            a.run.program.display()
        )));
    }
    let log_file = a.log.as_deref().map(Pending::create).transpose()?;
    let original = runs::measure(&a.run, module.clone())?;
    let mut views = Vec::new();
    for &k in &kinds {
        a.run.profile.options.profile = Some(k);
        a.run.profile.options.clock =
            matches!(k, ProfileKind::Timer | ProfileKind::Cbs).then_some(clock);
        a.run.profile.options.seed = seed;
        let config = resolve_profile(&a.run.profile, a.run.no_yieldpoints)?;
        seed = Some(config.seed);
        let ran = runs::run_captured(&a.run, config, module.clone(), false)?;
        let weights = ran
            .profile
            .as_ref()
            .map(|p| EdgeWeights::from_profile(&module, p))
            .unwrap_or_default();
        let verdicts = policy::decide(kind, &module, &weights, &t);
        let decisions = policy::decisions(&verdicts);
        let (optimized, outcomes) = runs::inline_with(&module, &decisions, &t.budget())?;
        let records = record::records(&module, &verdicts, &outcomes, &weights, Some(&t));
        let cycles = runs::measure_equivalent(&a.run, optimized, &original, &format!("under {k}"))?;
        views.push(View {
            kind: k,
            records,
            decisions,
            cycles,
        });
    }
    let program = a.run.program.display().to_string();
    let mut out = String::new();
    let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
    let _ = writeln!(
        out,
        "vm: comparing {} on {program} with --policy={} (seed {}, --clock={clock})",
        names.join(", "),
        kind.name(),
        seed.unwrap_or(0)
    );
    // The rows: every (site, callee) at depth 1 under any profile, in
    // code order.
    let mut keys: Vec<(CallSite, String)> = Vec::new();
    for v in &views {
        for r in v.records.iter().filter(|r| r.depth == 1) {
            let key = (r.site, r.callee.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let find = |v: &View, key: &(CallSite, String)| -> Option<Record> {
        v.records
            .iter()
            .find(|r| r.depth == 1 && r.site == key.0 && r.callee == key.1)
            .cloned()
    };
    let col = 20;
    let _ = write!(
        out,
        "  {:<18} {:<20} {:>5}",
        "caller:line", "callee", "size"
    );
    for n in &names {
        let _ = write!(out, "  {n:<col$}");
    }
    out.push('\n');
    let mut disagreements = Vec::new();
    for key in &keys {
        let rows: Vec<Option<Record>> = views.iter().map(|v| find(v, key)).collect();
        let any = rows
            .iter()
            .flatten()
            .next()
            .expect("a key comes from a record");
        let inlined: Vec<bool> = rows
            .iter()
            .map(|r| r.as_ref().is_some_and(|r| r.verdict.inlined()))
            .collect();
        let disagree = inlined.iter().any(|&x| x != inlined[0]);
        let size = any
            .callee_size
            .map_or_else(|| "-".into(), |n| n.to_string());
        let _ = write!(
            out,
            "{} {:<18} {:<20} {:>5}",
            if disagree { "*" } else { " " },
            format!("{}:{}", any.caller, any.line),
            any.callee,
            size
        );
        for r in &rows {
            let cell = match r {
                Some(r) => format!(
                    "{:>6.2}% {}",
                    r.weight_pct().unwrap_or(0.0),
                    r.verdict.name()
                ),
                None => "     - not seen".into(),
            };
            let _ = write!(out, "  {cell:<col$}");
        }
        out.push('\n');
        let reasons: Vec<String> = rows
            .iter()
            .map(|r| {
                r.as_ref()
                    .map_or_else(|| "not seen".into(), |r| r.reason.clone())
            })
            .collect();
        if reasons.iter().all(|x| *x == reasons[0]) {
            let _ = writeln!(out, "      all: {}", reasons[0]);
        } else {
            for (n, reason) in names.iter().zip(&reasons) {
                let _ = writeln!(out, "      {n}: {reason}");
            }
        }
        if disagree {
            disagreements.push((key.clone(), any.caller.clone(), any.line, any.callee_id));
        }
    }
    let _ = writeln!(
        out,
        "cycles of the program optimized under each profile (original {}):",
        original.cycles.unwrap_or(0)
    );
    for v in &views {
        let _ = writeln!(
            out,
            "  {:<10} {} ({})",
            v.kind.name(),
            v.cycles,
            pct_change(original.cycles.unwrap_or(0), v.cycles)
        );
    }
    if disagreements.is_empty() {
        let _ = writeln!(
            out,
            "no disagreements: every profile made the same decisions"
        );
    } else {
        let _ = writeln!(
            out,
            "disagreements (each decision flipped alone, under the profile that made it):"
        );
    }
    for ((site, callee_name), caller, line, callee) in &disagreements {
        let Some(callee) = callee else {
            continue;
        };
        for v in &views {
            let r = find(v, &(*site, callee_name.clone()));
            let verdict = r.as_ref().map_or(Verdict::Rejected, |r| r.verdict);
            let flip = flipped(&module, &v.decisions, *site, *callee);
            let c = cycles_with(
                &a.run,
                &module,
                &flip,
                &t,
                &original,
                &format!("under {} with {caller}:{line} flipped", v.kind),
            )?;
            let delta = v.cycles as i64 - c as i64;
            let verdict_word = if verdict.inlined() {
                "inlined"
            } else {
                "did not inline"
            };
            let flip_word = if verdict.inlined() {
                "not inlining it"
            } else {
                "inlining it"
            };
            let _ = writeln!(
                out,
                "  {caller}:{line} {callee_name}: {} {verdict_word} it; {flip_word}: {} -> {c} cycles ({}): the decision {} {} cycles",
                v.kind.name(),
                v.cycles,
                signed(c as i64 - v.cycles as i64),
                if delta > 0 { "cost" } else { "saved" },
                delta.unsigned_abs()
            );
        }
    }
    for line in out.lines() {
        println!("{}", line.trim_end());
    }
    if let Some(file) = log_file {
        let mut text = String::new();
        for v in &views {
            let dcg = v.records.iter().find_map(|r| r.dcg_weight);
            let mut run = run_record(&program, Ok(kind), Some(v.kind.name().into()), dcg, &t);
            run["cycles"] = json!(v.cycles);
            text.push_str(&run.to_string());
            text.push('\n');
            for r in &v.records {
                let mut j = logfile::record_json(r);
                j["profile"] = json!(v.kind.name());
                text.push_str(&j.to_string());
                text.push('\n');
            }
        }
        file.commit(&text)?;
    }
    Ok(original.status)
}
