//! The structured decision log: one [`Record`] per call site (and target)
//! the inliner considered, in the order of the PrintInlining-style text,
//! which [`render_text`] draws from the records (and nothing else).
//!
//! A record names the method being compiled (`root`), the call site
//! (`caller`, `line`), the callee and its size, the edge's weight and the
//! site's, the receiver methods the profile saw at the site with their
//! shares, every [`Rule`] checked in order (the policy's, then the
//! inliner's depth and size checks), and the outcome with its reason.
//! `vm inline --log=FILE.jsonl` writes them as JSON lines (format
//! `vm-inline-log/1`, docs/INLINING.md).

use std::collections::HashMap;

use vm::module::{MethodId, Module, Op};

use super::{EdgeWeights, Rule, SiteDecision, Thresholds};
use crate::inline::{CallSite, Outcome, Refusal, Status, Target};

/// What happened to one target at one call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Inlined (a static call).
    Inline,
    /// Inlined behind a receiver guard.
    Guarded,
    /// The policy said no.
    Rejected,
    /// The policy said yes but the inliner could not (too deep, caller
    /// too big, ...).
    Refused,
}

impl Verdict {
    /// The name in the log: `inline`, `guarded`, `rejected`, `refused`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Inline => "inline",
            Verdict::Guarded => "guarded",
            Verdict::Rejected => "rejected",
            Verdict::Refused => "refused",
        }
    }

    /// Parses [`Verdict::name`].
    pub fn parse(s: &str) -> Option<Verdict> {
        [
            Verdict::Inline,
            Verdict::Guarded,
            Verdict::Rejected,
            Verdict::Refused,
        ]
        .into_iter()
        .find(|v| v.name() == s)
    }

    /// Was the call inlined?
    pub fn inlined(self) -> bool {
        matches!(self, Verdict::Inline | Verdict::Guarded)
    }
}

/// A virtual method the profile saw at a call site, with its share of the
/// site's weight. Profiles name the method that ran, so the receivers are
/// the classes that run it.
#[derive(Clone, Debug, PartialEq)]
pub struct Receiver {
    /// The method (`Square.area`).
    pub method: String,
    /// The classes whose objects run it.
    pub classes: Vec<String>,
    /// The edge's weight.
    pub weight: u64,
    /// Percentage of the site's weight.
    pub share: f64,
}

/// One call site and target considered, as the log prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The method being compiled (the log's header).
    pub root: String,
    /// Inline level: 1 for a call written in `root`, more inside inlined
    /// code.
    pub depth: usize,
    /// The chain of call sites from `root` to this one, as
    /// (method, line) pairs, this site last.
    pub path: Vec<(String, u32)>,
    /// The method whose code holds the call (in the original program).
    pub caller: String,
    /// The call's source line in the original program.
    pub line: u32,
    /// `call` or `callvirt`.
    pub call: &'static str,
    /// The callee, or the selector's name when no single method was
    /// considered (a polymorphic site without a profile).
    pub callee: String,
    /// The callee's size in instructions (None without a single callee).
    pub callee_size: Option<usize>,
    /// The edge's weight (None: the policy reads no profile).
    pub weight: Option<u64>,
    /// The DCG's total weight (None: no profile).
    pub dcg_weight: Option<u64>,
    /// The site's weight: the sum over its targets (the call count under
    /// the exhaustive profile).
    pub site_weight: Option<u64>,
    /// The profiled receivers at the site, heaviest first.
    pub receivers: Vec<Receiver>,
    /// Every rule checked, in order.
    pub rules: Vec<Rule>,
    /// What happened.
    pub verdict: Verdict,
    /// The reason, as the text log prints it.
    pub reason: String,
    /// The site in the original module (not written to the log file).
    pub site: CallSite,
    /// The callee's id (not written).
    pub callee_id: Option<MethodId>,
    /// What the inliner was (or would be) asked for (not written).
    pub target: Option<Target>,
}

impl Record {
    /// The edge's percentage of the DCG's total.
    pub fn weight_pct(&self) -> Option<f64> {
        match (self.weight, self.dcg_weight) {
            (Some(w), Some(t)) if t > 0 => Some(100.0 * w as f64 / t as f64),
            (Some(_), _) => Some(0.0),
            _ => None,
        }
    }

    /// The rule that decided: the first that failed, else the policy's
    /// last (the inliner's passed depth check decides nothing).
    pub fn deciding_rule(&self) -> Option<&Rule> {
        self.rules
            .iter()
            .find(|r| !r.passed)
            .or_else(|| self.rules.iter().rev().find(|r| r.name != "depth"))
            .or_else(|| self.rules.last())
    }

    /// The text log's line (without the indentation).
    pub fn text_line(&self) -> String {
        let weight = match (self.weight, self.weight_pct()) {
            (Some(w), Some(p)) => format!(", weight {w} = {p:.2}%"),
            _ => String::new(),
        };
        let size = match self.callee_size {
            Some(n) => format!("{n} insns{weight}"),
            None if self.call == "callvirt" => format!("virtual{weight}"),
            None => format!("?{weight}"),
        };
        format!(
            "@ {} {} ({})   {}",
            self.line, self.callee, size, self.reason
        )
    }
}

/// The classes whose objects run `method` (by dispatch on its selector).
pub fn receiver_classes(module: &Module, method: MethodId) -> Vec<String> {
    let Some(sel) = module.methods.get(method as usize).and_then(|m| m.selector) else {
        return Vec::new();
    };
    (0..module.classes.len())
        .filter(|&c| module.resolve_virtual(c as _, sel) == Some(method))
        .map(|c| module.classes[c].name.clone())
        .collect()
}

/// The rule an inliner refusal stands for.
fn refusal_rule(r: &Refusal) -> Rule {
    match r {
        Refusal::TooDeep { depth, max } | Refusal::RecursiveTooDeep { depth, max } => Rule::check(
            "depth",
            Some("--inline-depth"),
            *depth as f64,
            "<=",
            *max as f64,
        ),
        Refusal::CalleeTooBig { size, max } => {
            Rule::check("callee size", None, *size as f64, "<=", *max as f64)
        }
        Refusal::CallerTooBig { size, max } => {
            Rule::check("caller size", None, *size as f64, "<=", *max as f64)
        }
        Refusal::Unreachable => Rule::fact("reachable", false),
        Refusal::NotUnderstood { .. } => Rule::fact("class has the method", false),
        Refusal::Overridden { .. } => Rule::fact("guard sound", false),
    }
}

/// The records of one run: the policy's verdicts merged with the
/// inliner's outcomes, in the text log's order (per root method in id
/// order, then code order, the sites inside an inlined copy right after
/// the record that inlined it). `t` (if given) adds the passed depth rule
/// to inlined records.
pub fn records(
    module: &Module,
    verdicts: &[SiteDecision],
    outcomes: &[Outcome],
    weights: &EdgeWeights,
    t: Option<&Thresholds>,
) -> Vec<Record> {
    let mut by_site: HashMap<CallSite, Vec<&SiteDecision>> = HashMap::new();
    for v in verdicts {
        by_site.entry(v.site).or_default().push(v);
    }
    let mut ctx = Walk {
        module,
        by_site,
        outcomes,
        weights,
        t,
        out: Vec::new(),
    };
    for root in 0..module.methods.len() as MethodId {
        ctx.walk(root, root, None, &[]);
    }
    ctx.out
}

struct Walk<'a> {
    module: &'a Module,
    by_site: HashMap<CallSite, Vec<&'a SiteDecision>>,
    outcomes: &'a [Outcome],
    weights: &'a EdgeWeights,
    t: Option<&'a Thresholds>,
    out: Vec<Record>,
}

impl Walk<'_> {
    fn walk(
        &mut self,
        root: MethodId,
        method: MethodId,
        parent: Option<usize>,
        path: &[(String, u32)],
    ) {
        let module = self.module;
        let depth = path.len() + 1;
        if depth > 64 {
            return;
        }
        let name = |m: MethodId| module.methods[m as usize].display_name(module);
        let code = &module.methods[method as usize].code;
        for (i, insn) in code.iter().enumerate() {
            let site = CallSite {
                method,
                index: i as u32,
            };
            let Some(vs) = self.by_site.get(&site).cloned() else {
                continue;
            };
            // The receivers the profile saw here (virtual calls only).
            let targets = self.weights.targets(site);
            let site_total: u64 = targets.iter().map(|(_, w)| w).sum();
            let receivers: Vec<Receiver> = match insn.op {
                Op::CallVirt(_) => targets
                    .iter()
                    .map(|&(m, w)| Receiver {
                        method: name(m),
                        classes: receiver_classes(module, m),
                        weight: w,
                        share: 100.0 * w as f64 / site_total.max(1) as f64,
                    })
                    .collect(),
                _ => Vec::new(),
            };
            let mut here = path.to_vec();
            here.push((name(method), insn.pos.line));
            for v in vs {
                let callee = match (v.callee, insn.op) {
                    (Some(c), _) => name(c),
                    (None, Op::CallVirt(sel)) => module
                        .selectors
                        .get(sel as usize)
                        .map_or_else(|| "?".into(), |s| s.name.clone()),
                    (None, _) => "?".into(),
                };
                let found = v.target.and_then(|target| {
                    self.outcomes.iter().enumerate().find(|(_, o)| {
                        o.root == root
                            && o.parent == parent
                            && o.site() == site
                            && o.target == target
                            && o.depth() == depth
                    })
                });
                let mut rules = v.rules.clone();
                let (verdict, reason) = match found {
                    Some((_, o)) => match &o.status {
                        Status::Refused(r) => {
                            rules.push(refusal_rule(r));
                            (Verdict::Refused, r.reason(module))
                        }
                        s => {
                            if let Some(t) = self.t {
                                rules.push(Rule::check(
                                    "depth",
                                    Some("--inline-depth"),
                                    depth as f64,
                                    "<=",
                                    t.depth as f64,
                                ));
                            }
                            let g = matches!(s, Status::GuardedInlined);
                            (
                                if g { Verdict::Guarded } else { Verdict::Inline },
                                v.reason.clone(),
                            )
                        }
                    },
                    // Chosen but never reached by the inliner: treat as
                    // the policy's own verdict.
                    None if v.target.is_some() => (Verdict::Refused, v.reason.clone()),
                    None => (Verdict::Rejected, v.reason.clone()),
                };
                let uses_profile = v.weight.is_some();
                self.out.push(Record {
                    root: name(root),
                    depth,
                    path: here.clone(),
                    caller: name(method),
                    line: insn.pos.line,
                    call: if matches!(insn.op, Op::CallVirt(_)) {
                        "callvirt"
                    } else {
                        "call"
                    },
                    callee,
                    callee_size: v.callee.map(|c| module.methods[c as usize].code.len()),
                    weight: v.weight,
                    dcg_weight: uses_profile.then_some(self.weights.total),
                    site_weight: uses_profile.then(|| match insn.op {
                        Op::CallVirt(_) => site_total,
                        _ => v.weight.unwrap_or(0),
                    }),
                    receivers: receivers.clone(),
                    rules,
                    verdict,
                    reason,
                    site,
                    callee_id: v.callee,
                    target: v.target,
                });
                if let Some((k, o)) = found {
                    if o.inlined() {
                        if let Some(c) = o.callee {
                            self.walk(root, c, Some(k), &here);
                        }
                    }
                }
            }
        }
    }
}

/// The PrintInlining-style text: per root method a header `NAME:`, then
/// each record's [`Record::text_line`] indented two spaces per level.
pub fn render_text(records: &[Record]) -> String {
    let mut out = String::new();
    let mut last: Option<&str> = None;
    for r in records {
        if last != Some(r.root.as_str()) {
            out.push_str(&r.root);
            out.push_str(":\n");
            last = Some(r.root.as_str());
        }
        out.push_str(&" ".repeat(2 * r.depth));
        out.push_str(&r.text_line());
        out.push('\n');
    }
    out
}

/// The inlining tree of each method that got something inlined (JITWatch's
/// "chain" view): the method's size before and after and the size budget
/// left, then what was inlined into what, one line per inlined copy,
/// indented per level, with its depth and the depth budget left.
pub fn render_tree(
    records: &[Record],
    original: &Module,
    optimized: &Module,
    t: &Thresholds,
) -> String {
    use std::fmt::Write as _;
    let max_size = t.budget().max_method_size;
    let mut out = String::new();
    let mut last: Option<&str> = None;
    for r in records.iter().filter(|r| r.verdict.inlined()) {
        if last != Some(r.root.as_str()) {
            last = Some(r.root.as_str());
            let id = original.method_by_display_name(&r.root);
            let before = id.map_or(0, |m| original.methods[m as usize].code.len());
            let after = id
                .and_then(|m| optimized.methods.get(m as usize))
                .map_or(0, |m| m.code.len());
            let _ = writeln!(
                out,
                "{} ({before} -> {after} insns, size budget left {})",
                r.root,
                max_size.saturating_sub(after)
            );
        }
        let _ = writeln!(
            out,
            "{}{} <- {}:{} ({} insns, {}) depth {}, {} more level{} allowed",
            "  ".repeat(r.depth),
            r.callee,
            r.caller,
            r.line,
            r.callee_size.unwrap_or(0),
            r.verdict.name(),
            r.depth,
            (t.depth as usize).saturating_sub(r.depth),
            if (t.depth as usize).saturating_sub(r.depth) == 1 {
                ""
            } else {
                "s"
            }
        );
    }
    if out.is_empty() {
        out.push_str("(nothing inlined)\n");
    }
    out
}
