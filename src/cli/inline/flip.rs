//! What would flip a decision of `vm inline` (docs/INLINING.md "Studying
//! decisions"): the options a policy reads, and for one record the nearest
//! value of each that makes the policy decide the other way, the others as
//! given. `--explain` and `--suggest` print these values, and the `--html`
//! page shows them beside each call site with the thresholds the run used.

use jit_sim::inline::CallSite;
use jit_sim::policy::record::{Record, Verdict};
use jit_sim::policy::{self, EdgeWeights, PolicyKind, Thresholds};
use vm::module::Module;

/// What a policy decided with: asked again with other thresholds, it says
/// which way a site would go.
#[derive(Clone, Copy)]
pub struct Deciding<'a> {
    /// The policy.
    pub kind: PolicyKind,
    /// The original program.
    pub module: &'a Module,
    /// The profile's edges.
    pub weights: &'a EdgeWeights,
    /// The thresholds given.
    pub t: &'a Thresholds,
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
fn policy_inlines(s: Deciding, t: &Thresholds, site: CallSite, callee: Option<u32>) -> bool {
    policy::decide_site(s.kind, s.module, s.weights, t, site)
        .iter()
        .any(|v| v.callee == callee && v.inline())
}

/// The nearest value of each option that flips the policy's verdict on
/// the record's target (the other options as given). A refusal by the
/// inliner's depth budget is flipped by `--inline-depth`.
pub fn flip_values(s: Deciding, r: &Record) -> Vec<String> {
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

/// The options the policy `kind` reads, with the values `t` gives them
/// (`--inline-always=11 --inline-max-hot=119 ... --inline-depth=5`).
pub fn thresholds_line(kind: PolicyKind, t: &Thresholds) -> String {
    let mut parts: Vec<String> = knobs()
        .iter()
        .filter(|k| k.policies.contains(&kind))
        .map(|k| {
            let v = (k.get)(t);
            if k.integer {
                format!("{}={}", k.option, v as i64)
            } else {
                format!("{}={v:.2}", k.option)
            }
        })
        .collect();
    parts.push(format!("--inline-depth={}", t.depth));
    parts.join(" ")
}

/// [`flip_values`] of each record written in the method compiled (depth
/// 1), `None` for the records inside inlined code, in the records' order.
pub fn site_flips(s: Deciding, records: &[Record]) -> Vec<Option<Vec<String>>> {
    records
        .iter()
        .map(|r| (r.depth == 1).then(|| flip_values(s, r)))
        .collect()
}
