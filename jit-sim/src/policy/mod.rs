//! Inlining policies: which call sites to inline, decided from a profile's
//! dynamic call graph (Arnold & Grove 2005, sections 5.1 and 5.2).
//!
//! Three policies, all with thresholds from Jikes RVM's
//! `DefaultInlineOracle` (in its cost units, roughly bytecodes; here one
//! unit is one instruction, see docs/INLINING.md):
//!
//! - [`PolicyKind::Static`]: sizes only, no profile. A callee below
//!   [`Thresholds::always`] instructions, or of at most
//!   [`Thresholds::max_cold`], is inlined; a `callvirt` only if exactly one
//!   method implements its selector (then guarded).
//! - [`PolicyKind::HotEdge`]: the old Jikes RVM inliner. An edge whose
//!   weight is above [`Thresholds::hot_pct`] percent of the DCG's total is
//!   hot and may inline a callee of up to [`Thresholds::max_hot`]; the
//!   profile of every other edge is ignored: only callees below
//!   [`Thresholds::always`] are inlined there.
//! - [`PolicyKind::Linear`]: the Arnold-Grove inliner. The size threshold
//!   grows linearly with the edge's weight, from [`Thresholds::ramp_from`]
//!   for the lightest profiled edge to [`Thresholds::max_hot`] at
//!   [`Thresholds::hot_pct`] percent and above; a target of a `callvirt`
//!   gets a guarded inline only if it has more than
//!   [`Thresholds::guard_min_pct`] percent of its site's weight; a site the
//!   profile never saw is not inlined.
//!
//! Every policy gives one [`SiteDecision`] per (call site, target)
//! considered, with a reason in the style of HotSpot's `PrintInlining`;
//! the inlined ones become [`Decision`]s for [`crate::inline::inline`].
//! [`log`] merges the reasons with the inliner's outcomes (which may still
//! refuse: too deep, caller too big) into the printed log.

use std::collections::HashMap;

use profile::Profile;
use profiler::dcg::DynamicCallGraph;
use vm::module::{MethodId, Module, Op};

use crate::inline::{Budget, CallSite, Decision, Outcome, Target};

/// Which policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    /// Size thresholds only.
    Static,
    /// Hot edges (above 1%) get a larger threshold; others are ignored.
    HotEdge,
    /// The threshold grows linearly with the edge weight.
    Linear,
}

impl PolicyKind {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            PolicyKind::Static => "static",
            PolicyKind::HotEdge => "hot-edge",
            PolicyKind::Linear => "linear",
        }
    }

    /// Parses a command-line name.
    pub fn parse(s: &str) -> Option<PolicyKind> {
        match s {
            "static" => Some(PolicyKind::Static),
            "hot-edge" => Some(PolicyKind::HotEdge),
            "linear" => Some(PolicyKind::Linear),
            _ => None,
        }
    }

    /// Does the policy read a profile?
    pub fn uses_profile(self) -> bool {
        self != PolicyKind::Static
    }
}

/// The thresholds, in instructions and percentages. The defaults are Jikes
/// RVM's numbers with one instruction for one cost unit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// Callees with fewer instructions are always inlined (Jikes: 11).
    pub always: usize,
    /// Largest callee without profile evidence (`static`; Jikes: 23).
    pub max_cold: usize,
    /// Largest callee on a hot edge (Jikes: 119).
    pub max_hot: usize,
    /// `linear`: the threshold of the lightest profiled edge (Jikes: 46).
    pub ramp_from: usize,
    /// An edge above this percentage of the DCG's total weight is hot
    /// (Jikes: 1%).
    pub hot_pct: f64,
    /// `linear`: a guarded target needs more than this percentage of its
    /// site's weight (Jikes: 40%).
    pub guard_min_pct: f64,
    /// Inline levels; past this depth the budget is zero (Jikes shrinks
    /// its budget past depth 5).
    pub depth: u32,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            always: 11,
            max_cold: 23,
            max_hot: 119,
            ramp_from: 46,
            hot_pct: 1.0,
            guard_min_pct: 40.0,
            depth: 5,
        }
    }
}

impl Thresholds {
    /// The inliner budget that goes with these thresholds: the policy
    /// judges callee sizes itself, the inliner enforces the depth.
    pub fn budget(&self) -> Budget {
        Budget {
            max_depth: self.depth,
            max_callee_size: usize::MAX,
            ..Budget::default()
        }
    }

    /// `linear`: the largest callee for an edge with `pct` percent of the
    /// DCG's weight (`pct > 0`).
    pub fn linear_max(&self, pct: f64) -> usize {
        if pct >= self.hot_pct || self.hot_pct <= 0.0 {
            return self.max_hot;
        }
        let lo = self.ramp_from as f64;
        let hi = self.max_hot.max(self.ramp_from) as f64;
        (lo + (hi - lo) * pct / self.hot_pct).floor() as usize
    }
}

/// The profile's edges as the policies read them: weights per call site
/// and target, and the DCG's total.
#[derive(Clone, Debug, Default)]
pub struct EdgeWeights {
    /// Weight of each (site, callee) edge.
    pub edges: HashMap<(CallSite, MethodId), u64>,
    /// Sum of the weights of all edges (the DCG's total).
    pub total: u64,
}

impl EdgeWeights {
    /// Reads the `dcg` of `profile` against `module`. Edges naming a
    /// method or call site the module does not have count in the total but
    /// are otherwise ignored (the profile may be of another program).
    pub fn from_profile(module: &Module, profile: &Profile) -> EdgeWeights {
        let mut w = EdgeWeights::default();
        for e in profile.dcg.iter().flatten() {
            w.total = w.total.saturating_add(e.weight);
            let Some(site) = crate::inline::site_at_line(module, &e.caller, e.line) else {
                continue;
            };
            let Some(callee) = module.method_by_display_name(&e.callee) else {
                continue;
            };
            let slot = w.edges.entry((site, callee)).or_insert(0);
            *slot = slot.saturating_add(e.weight);
        }
        w
    }

    /// Reads a dynamic call graph of `module`'s program, as the organizer
    /// holds it while the program runs (method ids, call-site lines).
    pub fn from_dcg(module: &Module, dcg: &DynamicCallGraph) -> EdgeWeights {
        let mut w = EdgeWeights::default();
        for (&(caller, line, callee), &weight) in &dcg.edges {
            w.total = w.total.saturating_add(weight);
            let Some(site) = crate::inline::site_at_line_of(module, caller, line) else {
                continue;
            };
            if callee as usize >= module.methods.len() {
                continue;
            }
            let slot = w.edges.entry((site, callee)).or_insert(0);
            *slot = slot.saturating_add(weight);
        }
        w
    }

    /// Weight of one edge.
    pub fn edge(&self, site: CallSite, callee: MethodId) -> u64 {
        self.edges.get(&(site, callee)).copied().unwrap_or(0)
    }

    /// Percentage of the total.
    pub fn pct(&self, weight: u64) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * weight as f64 / self.total as f64
        }
    }

    /// The profiled targets of `site`, heaviest first (ties by id).
    pub fn targets(&self, site: CallSite) -> Vec<(MethodId, u64)> {
        let mut v: Vec<(MethodId, u64)> = self
            .edges
            .iter()
            .filter(|((s, _), w)| *s == site && **w > 0)
            .map(|((_, c), w)| (*c, *w))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }
}

/// One rule a policy checked at a call site: `value CMP threshold`, and
/// whether it held. The rules of a site are listed in the order they were
/// checked; the last one decided (a failed rule rejects the site, a passed
/// last rule accepts it).
#[derive(Clone, Debug, PartialEq)]
pub struct Rule {
    /// What the rule checks: `tiny`, `size`, `hot edge`, `hot size`,
    /// `profiled`, `size for weight`, `implementations`, `guard share`,
    /// `depth`, `caller size`, ...
    pub name: &'static str,
    /// The command-line option that sets the threshold, if one does.
    pub option: Option<&'static str>,
    /// The value the site has (a size, a percentage, a count).
    pub value: Option<f64>,
    /// The comparison: `<`, `<=`, `>`, `==`.
    pub cmp: &'static str,
    /// The threshold.
    pub threshold: Option<f64>,
    /// Did the rule hold?
    pub passed: bool,
}

impl Rule {
    /// A rule with numbers; `passed` computed from `cmp`.
    pub fn check(
        name: &'static str,
        option: Option<&'static str>,
        value: f64,
        cmp: &'static str,
        threshold: f64,
    ) -> Rule {
        let passed = match cmp {
            "<" => value < threshold,
            "<=" => value <= threshold,
            ">" => value > threshold,
            ">=" => value >= threshold,
            _ => value == threshold,
        };
        Rule {
            name,
            option,
            value: Some(value),
            cmp,
            threshold: Some(threshold),
            passed,
        }
    }

    /// A rule without numbers (e.g. an inliner refusal that has none).
    pub fn fact(name: &'static str, passed: bool) -> Rule {
        Rule {
            name,
            option: None,
            value: None,
            cmp: "",
            threshold: None,
            passed,
        }
    }

    /// `tiny: 8 < 11 (--inline-always) yes`
    pub fn describe(&self) -> String {
        let num = |v: f64| {
            if v.fract() == 0.0 && v.abs() < 1e15 {
                format!("{}", v as i64)
            } else {
                format!("{v:.2}")
            }
        };
        let mut s = self.name.to_string();
        if let (Some(v), Some(t)) = (self.value, self.threshold) {
            s.push_str(&format!(": {} {} {}", num(v), self.cmp, num(t)));
        }
        if let Some(o) = self.option {
            s.push_str(&format!(" ({o})"));
        }
        s.push_str(if self.passed { " yes" } else { " no" });
        s
    }
}

/// The policy's verdict on one target at one call site.
#[derive(Clone, Debug, PartialEq)]
pub struct SiteDecision {
    /// The call site of the original module.
    pub site: CallSite,
    /// The callee considered (None: no method to consider).
    pub callee: Option<MethodId>,
    /// What the inliner is asked for, if anything.
    pub target: Option<Target>,
    /// The edge's weight in the profile (None for `static`).
    pub weight: Option<u64>,
    /// The reason, as printed in the log (`inline (hot)`, `too big`, ...).
    pub reason: String,
    /// The rules checked, in order.
    pub rules: Vec<Rule>,
}

impl SiteDecision {
    /// Is the target to be inlined?
    pub fn inline(&self) -> bool {
        self.target.is_some()
    }
}

/// The methods that implement selector `sel` (every virtual method with
/// that selector).
pub fn implementations(module: &Module, sel: u32) -> Vec<MethodId> {
    module
        .methods
        .iter()
        .enumerate()
        .filter(|(_, m)| m.class.is_some() && m.selector == Some(sel))
        .map(|(i, _)| i as MethodId)
        .collect()
}

fn size(module: &Module, m: MethodId) -> usize {
    module.methods[m as usize].code.len()
}

fn class_name(module: &Module, m: MethodId) -> String {
    let method = &module.methods[m as usize];
    method
        .class
        .and_then(|c| module.classes.get(c as usize))
        .map_or_else(|| method.name.clone(), |c| c.name.clone())
}

/// Decides every call site of `module`. `weights` is ignored by
/// [`PolicyKind::Static`] (pass an empty one).
pub fn decide(
    kind: PolicyKind,
    module: &Module,
    weights: &EdgeWeights,
    t: &Thresholds,
) -> Vec<SiteDecision> {
    let mut out = Vec::new();
    for site in crate::inline::call_sites(module) {
        out.extend(decide_site(kind, module, weights, t, site));
    }
    out
}

/// Decides one call site (one verdict per target considered).
pub fn decide_site(
    kind: PolicyKind,
    module: &Module,
    weights: &EdgeWeights,
    t: &Thresholds,
    site: CallSite,
) -> Vec<SiteDecision> {
    let mut out = Vec::new();
    let op = module.methods[site.method as usize].code[site.index as usize].op;
    match op {
        Op::Call(callee) => out.push(decide_static_call(kind, module, weights, t, site, callee)),
        Op::CallVirt(sel) => decide_virtual(kind, module, weights, t, site, sel, &mut out),
        _ => {}
    }
    out
}

/// The sizes-only verdict (`static`; and `hot-edge` where the profile is
/// ignored, with `max` the always-inline size). `option` names the option
/// that sets `max`.
fn by_size(
    module: &Module,
    t: &Thresholds,
    callee: MethodId,
    max: usize,
    option: &'static str,
    rules: &mut Vec<Rule>,
) -> Result<String, String> {
    let n = size(module, callee);
    let tiny = Rule::check(
        "tiny",
        Some("--inline-always"),
        n as f64,
        "<",
        t.always as f64,
    );
    let is_tiny = tiny.passed;
    rules.push(tiny);
    if is_tiny {
        return Ok(format!("inline (tiny: < {})", t.always));
    }
    let fits = Rule::check("size", Some(option), n as f64, "<=", max as f64);
    let ok = fits.passed;
    rules.push(fits);
    if ok {
        Ok("inline (size)".into())
    } else {
        Err(format!("too big ({n} > {max})"))
    }
}

/// The verdict on one profiled edge of weight `w` to `callee`.
fn by_profile(
    kind: PolicyKind,
    module: &Module,
    weights: &EdgeWeights,
    t: &Thresholds,
    callee: MethodId,
    w: u64,
    rules: &mut Vec<Rule>,
) -> Result<String, String> {
    let n = size(module, callee);
    let pct = weights.pct(w);
    let hot = w > 0 && pct > t.hot_pct;
    match kind {
        PolicyKind::Static => by_size(module, t, callee, t.max_cold, "--inline-max-cold", rules),
        PolicyKind::HotEdge => {
            rules.push(Rule::check(
                "hot edge",
                Some("--hot-edge-pct"),
                pct,
                ">",
                t.hot_pct,
            ));
            if hot {
                let r = Rule::check(
                    "hot size",
                    Some("--inline-max-hot"),
                    n as f64,
                    "<=",
                    t.max_hot as f64,
                );
                let ok = r.passed;
                rules.push(r);
                if ok {
                    Ok("inline (hot)".into())
                } else {
                    Err(format!("hot method too big ({n} > {})", t.max_hot))
                }
            } else {
                let r = Rule::check(
                    "tiny",
                    Some("--inline-always"),
                    n as f64,
                    "<",
                    t.always as f64,
                );
                let ok = r.passed;
                rules.push(r);
                if ok {
                    Ok(format!("inline (tiny: < {})", t.always))
                } else {
                    Err("too cold to inline".into())
                }
            }
        }
        PolicyKind::Linear => {
            rules.push(Rule::check("profiled", None, w as f64, ">", 0.0));
            if w == 0 {
                return Err("too cold to inline".into());
            }
            let max = t.linear_max(pct);
            let option = if max >= t.max_hot {
                "--inline-max-hot"
            } else {
                "--inline-ramp-from"
            };
            let r = Rule::check("size for weight", Some(option), n as f64, "<=", max as f64);
            let ok = r.passed;
            rules.push(r);
            if ok {
                Ok(if hot || pct >= t.hot_pct {
                    "inline (hot)".into()
                } else {
                    format!("inline (warm: max {max})")
                })
            } else if max >= t.max_hot {
                Err(format!("hot method too big ({n} > {max})"))
            } else {
                Err(format!("too big for its weight ({n} > {max})"))
            }
        }
    }
}

fn decide_static_call(
    kind: PolicyKind,
    module: &Module,
    weights: &EdgeWeights,
    t: &Thresholds,
    site: CallSite,
    callee: MethodId,
) -> SiteDecision {
    let w = weights.edge(site, callee);
    let mut rules = Vec::new();
    let verdict = match kind {
        PolicyKind::Static => by_size(
            module,
            t,
            callee,
            t.max_cold,
            "--inline-max-cold",
            &mut rules,
        ),
        _ => by_profile(kind, module, weights, t, callee, w, &mut rules),
    };
    let (target, reason) = match verdict {
        Ok(r) => (Some(Target::Static), r),
        Err(r) => (None, r),
    };
    SiteDecision {
        site,
        callee: Some(callee),
        target,
        weight: kind.uses_profile().then_some(w),
        reason,
        rules,
    }
}

fn decide_virtual(
    kind: PolicyKind,
    module: &Module,
    weights: &EdgeWeights,
    t: &Thresholds,
    site: CallSite,
    sel: u32,
    out: &mut Vec<SiteDecision>,
) {
    let impls = implementations(module, sel);
    // Without (usable) profile evidence: the class hierarchy. A selector
    // with one implementation is monomorphic; guard it anyway (a receiver
    // of an unrelated class must still fail as `callvirt` would).
    let by_hierarchy = |out: &mut Vec<SiteDecision>,
                        max: usize,
                        option: &'static str,
                        weight: Option<u64>,
                        mut rules: Vec<Rule>| {
        rules.push(Rule::check(
            "implementations",
            None,
            impls.len() as f64,
            "==",
            1.0,
        ));
        match impls.as_slice() {
            [only] => {
                let (target, reason) = match by_size(module, t, *only, max, option, &mut rules) {
                    Ok(_) => (
                        Some(Target::Method { method: *only }),
                        "guarded inline (only implementation)".to_string(),
                    ),
                    Err(r) => (None, r),
                };
                out.push(SiteDecision {
                    site,
                    callee: Some(*only),
                    target,
                    weight,
                    reason,
                    rules,
                });
            }
            [] => out.push(SiteDecision {
                site,
                callee: None,
                target: None,
                weight,
                reason: "no implementation".into(),
                rules,
            }),
            many => out.push(SiteDecision {
                site,
                callee: None,
                target: None,
                weight,
                reason: format!("polymorphic ({} implementations)", many.len()),
                rules,
            }),
        }
    };
    match kind {
        PolicyKind::Static => by_hierarchy(out, t.max_cold, "--inline-max-cold", None, Vec::new()),
        PolicyKind::HotEdge | PolicyKind::Linear => {
            let targets: Vec<(MethodId, u64)> = weights
                .targets(site)
                .into_iter()
                .filter(|(m, _)| impls.contains(m))
                .collect();
            let site_weight: u64 = targets.iter().map(|(_, w)| w).sum();
            if kind == PolicyKind::HotEdge {
                let hottest = targets
                    .iter()
                    .map(|(_, w)| weights.pct(*w))
                    .fold(0.0, f64::max);
                if hottest <= t.hot_pct {
                    // Non-hot edges are ignored: the static rule with the
                    // always-inline size.
                    let rules = vec![Rule::check(
                        "hot edge",
                        Some("--hot-edge-pct"),
                        hottest,
                        ">",
                        t.hot_pct,
                    )];
                    by_hierarchy(
                        out,
                        t.always.saturating_sub(1),
                        "--inline-always",
                        Some(site_weight),
                        rules,
                    );
                    return;
                }
            } else if targets.is_empty() {
                out.push(SiteDecision {
                    site,
                    callee: impls.first().copied().filter(|_| impls.len() == 1),
                    target: None,
                    weight: Some(0),
                    reason: "too cold to inline".into(),
                    rules: vec![Rule::check("profiled", None, 0.0, ">", 0.0)],
                });
                return;
            }
            for (callee, w) in targets {
                let mut rules = Vec::new();
                let share = 100.0 * w as f64 / site_weight.max(1) as f64;
                let verdict = if kind == PolicyKind::Linear && {
                    let r = Rule::check(
                        "guard share",
                        Some("--guard-min-pct"),
                        share,
                        ">",
                        t.guard_min_pct,
                    );
                    let failed = !r.passed;
                    rules.push(r);
                    failed
                } {
                    Err(format!(
                        "polymorphic ({share:.0}% {} <= {}%)",
                        class_name(module, callee),
                        t.guard_min_pct
                    ))
                } else if kind == PolicyKind::HotEdge && weights.pct(w) <= t.hot_pct {
                    rules.push(Rule::check(
                        "hot edge",
                        Some("--hot-edge-pct"),
                        weights.pct(w),
                        ">",
                        t.hot_pct,
                    ));
                    Err("too cold to inline".into())
                } else {
                    by_profile(kind, module, weights, t, callee, w, &mut rules)
                };
                let (target, reason) = match verdict {
                    Ok(r) => {
                        let detail = r
                            .strip_prefix("inline (")
                            .and_then(|d| d.strip_suffix(')'))
                            .map_or_else(String::new, |d| format!(", {d}"));
                        (
                            Some(Target::Method { method: callee }),
                            format!(
                                "guarded inline ({share:.0}% {}{detail})",
                                class_name(module, callee)
                            ),
                        )
                    }
                    Err(r) => (None, r),
                };
                out.push(SiteDecision {
                    site,
                    callee: Some(callee),
                    target,
                    weight: Some(w),
                    reason,
                    rules,
                });
            }
        }
    }
}

/// The decisions to hand to the inliner.
pub fn decisions(verdicts: &[SiteDecision]) -> Vec<Decision> {
    verdicts
        .iter()
        .filter_map(|v| {
            v.target.map(|target| Decision {
                site: v.site,
                target,
            })
        })
        .collect()
}

/// The inlining log: for every method with call sites, a header line
/// `NAME:`, then one line per call site and target considered, in code
/// order, `@ LINE Callee (N insns, weight W = P%)   REASON`, indented two
/// spaces per inline level, the sites inside an inlined copy right after
/// the line that inlined it. A site the policy chose but the inliner
/// refused shows the inliner's reason (too deep, caller too big). It is
/// [`record::render_text`] of [`record::records`]: the text is rendered
/// from the structured records, not computed on its own.
pub fn log(
    module: &Module,
    verdicts: &[SiteDecision],
    outcomes: &[Outcome],
    weights: &EdgeWeights,
) -> String {
    let recs = record::records(module, verdicts, outcomes, weights, None);
    record::render_text(&recs)
}

pub mod record;
mod validate;

pub use validate::POLICY_OPTIONS;

#[cfg(test)]
mod tests;
