//! Graphviz DOT pictures of a profile (`dot -Tsvg report.dot > g.svg`).
//!
//! - [`dcg`]: the dynamic call graph, a node per method labelled with its
//!   share of `self`, an edge per call site labelled with the caller's line
//!   and the edge's weight and share; pen width grows with the weight, and
//!   hot edges (at least a tenth of the heaviest's weight, the threshold of
//!   hot-edge coverage) are drawn red.
//! - [`tree`]: the calling-context tree pruned at `min_percent`, a node per
//!   context labelled with its self and total shares, an edge per call
//!   labelled with the call-site line and calls, its pen as wide as those
//!   calls against the most of any edge (the number on the label, not
//!   another quantity).
//!
//! Edge labels start a little right of their edge, left-justified
//! ([`edge_label`]), where neither a thick pen nor an arrowhead covers them.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::share;
use super::tree::Full;
use crate::Profile;

/// A DOT string literal.
fn quote(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        match c {
            '"' => q.push_str("\\\""),
            '\\' => q.push_str("\\\\"),
            '\n' => q.push_str("\\n"),
            c => q.push(c),
        }
    }
    q.push('"');
    q
}

/// An edge's label as a DOT string: each line indented and left-justified
/// (`\l`), so that the text starts clear of the edge, however wide its pen
/// (a centred label sat on a thick edge, and under the arrowhead of a short
/// one).
fn edge_label(text: &str) -> String {
    let mut q = String::from("\"");
    for line in text.lines() {
        let quoted = quote(line);
        q.push_str("    ");
        q.push_str(&quoted[1..quoted.len() - 1]);
        q.push_str("\\l");
    }
    q.push('"');
    q
}

/// A fill colour from white (0%) to orange (100%).
fn heat(percent: f64) -> String {
    let t = (percent / 100.0).clamp(0.0, 1.0);
    let g = (255.0 - t * 120.0) as u8;
    let b = (255.0 - t * 230.0) as u8;
    format!("#ff{g:02x}{b:02x}")
}

fn header(s: &mut String, p: &Profile, what: &str) {
    let _ = writeln!(s, "digraph profile {{");
    let _ = writeln!(
        s,
        "  label={};",
        quote(&format!(
            "{}: {what} ({} profile)",
            p.program, p.config.profile
        ))
    );
    let _ = writeln!(s, "  labelloc=t;");
    let _ = writeln!(
        s,
        "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];"
    );
    let _ = writeln!(s, "  edge [fontname=\"Helvetica\", fontsize=10];");
}

/// The DOT text of `p`'s call graph (`dcg` and `methods`; either may be
/// missing).
pub fn dcg(p: &Profile) -> String {
    let mut s = String::new();
    header(
        &mut s,
        p,
        "call graph, node: self share, edge: call-site line and weight",
    );
    let mut methods: BTreeMap<&str, u64> = BTreeMap::new();
    for m in p.methods.as_deref().unwrap_or(&[]) {
        *methods.entry(m.name.as_str()).or_default() += m.self_;
    }
    let edges = p.dcg.as_deref().unwrap_or(&[]);
    for e in edges {
        methods.entry(e.caller.as_str()).or_default();
        methods.entry(e.callee.as_str()).or_default();
    }
    let total_self = super::total(methods.values().copied());
    for (name, self_) in &methods {
        let pc = share(*self_, total_self);
        let _ = writeln!(
            s,
            "  {} [label={}, fillcolor={}];",
            quote(name),
            quote(&format!("{name}\nself {pc:.1}%")),
            quote(&heat(pc))
        );
    }
    let total = super::total(edges.iter().map(|e| e.weight));
    let max = edges.iter().map(|e| e.weight).max().unwrap_or(0);
    for e in edges {
        let hot = max > 0 && 10 * e.weight as u128 >= max as u128;
        let width = if max == 0 {
            1.0
        } else {
            1.0 + 7.0 * e.weight as f64 / max as f64
        };
        let _ = writeln!(
            s,
            "  {} -> {} [label={}, penwidth={width:.2}, color={}];",
            quote(&e.caller),
            quote(&e.callee),
            edge_label(&format!(
                "line {}\n{} ({:.1}%)",
                e.line,
                e.weight,
                share(e.weight, total)
            )),
            if hot { "\"#d62728\"" } else { "\"#555555\"" }
        );
    }
    let _ = writeln!(s, "}}");
    s
}

/// The DOT text of `p`'s calling-context tree (which must be present),
/// contexts under `min_percent` of the total folded into `(other)`.
pub fn tree(p: &Profile, min_percent: f64) -> String {
    let mut s = String::new();
    header(
        &mut s,
        p,
        &format!("calling contexts (under {min_percent}% in (other)), node: self / total share"),
    );
    let pruned = Full::new(p.cct.as_deref().unwrap_or(&[])).prune(min_percent);
    let grand = u128::from(pruned.nodes[0].total);
    let _ = writeln!(s, "  n0 [label=\"<root>\", fillcolor=\"#eeeeee\"];");
    for (i, n) in pruned.nodes.iter().enumerate().skip(1) {
        let ps = share(n.self_, grand);
        let pt = share(n.total, grand);
        let _ = writeln!(
            s,
            "  n{i} [label={}, fillcolor={}{}];",
            quote(&format!("{}\nself {ps:.1}%, total {pt:.1}%", n.method)),
            quote(&heat(ps)),
            if n.other {
                ", style=\"dashed,filled\""
            } else {
                ""
            }
        );
    }
    let most_calls = pruned
        .nodes
        .iter()
        .skip(1)
        .filter(|n| !n.other)
        .map(|n| n.calls)
        .max()
        .unwrap_or(0);
    for (i, n) in pruned.nodes.iter().enumerate() {
        for &c in &n.children {
            let child = &pruned.nodes[c];
            let label = match (child.other, child.line) {
                (true, _) => "pruned".to_string(),
                (false, Some(l)) => format!("line {l}\n{} calls", child.calls),
                (false, None) => format!("{} calls", child.calls),
            };
            let width = if child.other || most_calls == 0 {
                1.0
            } else {
                1.0 + 7.0 * child.calls as f64 / most_calls as f64
            };
            let _ = writeln!(
                s,
                "  n{i} -> n{c} [label={}, penwidth={width:.2}];",
                edge_label(&label)
            );
        }
    }
    let _ = writeln!(s, "}}");
    s
}
