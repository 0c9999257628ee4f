//! The study modes of `vm inline` (docs/INLINING.md "Studying
//! decisions"): `--explain` (one site's rules and what would flip it),
//! `--suggest` (hot sites rejected, with the option value that lets them
//! through), `--gain` (cycles before and after) and `--advice`
//! (`--compare` is in its own module, using the helpers here). Everything
//! printed is drawn from the decision records of
//! [`jit_sim::policy::record`].

use std::collections::BTreeMap;
use std::fmt::Write as _;

use jit_sim::inline::{CallSite, Decision, Target};
use jit_sim::policy::record::Record;
use jit_sim::policy::{self, EdgeWeights, PolicyKind, Rule, SiteDecision, Thresholds};
use profiler::config::ProfileKind;
use serde_json::{json, Value};
use vm::module::{Module, Op};

use super::super::args::RunArgs;
use super::super::Failure;
use super::flip::{flip_values, Deciding};
use super::logfile::LOG_FORMAT;
use super::runs::{self, Ran};

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

impl Study<'_> {
    /// What the policy decided with.
    pub fn deciding(&self) -> Deciding<'_> {
        Deciding {
            kind: self.kind,
            module: self.module,
            weights: self.weights,
            t: self.t,
        }
    }
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
pub(super) fn flipped(
    module: &Module,
    decisions: &[Decision],
    site: CallSite,
    callee: u32,
) -> Vec<Decision> {
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
pub(super) fn cycles_with(
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

pub(super) fn signed(d: i64) -> String {
    if d > 0 {
        format!("+{d}")
    } else {
        d.to_string()
    }
}

pub(super) fn pct_change(before: u64, after: u64) -> String {
    if before == 0 {
        return "n/a".into();
    }
    format!(
        "{:+.2}%",
        100.0 * (after as f64 - before as f64) / before as f64
    )
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
        let flips = flip_values(s.deciding(), r);
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
        let flips = flip_values(s.deciding(), r);
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
