//! One self-contained HTML page (inline CSS and JavaScript, nothing
//! fetched: it works offline) that explains a profile to someone who has
//! never read one: the run's summary, a sortable table of hot methods, the
//! call edges, the flame graph; with a reference profile also the
//! accuracy metrics, each edge's sampled share against its exact share,
//! and the differential flame graph.
//!
//! The hot-methods table is built by the page's script from the data
//! embedded in the page (so a broken script shows as an empty table, and
//! the browser test notices), with the sortable table, the skeleton and
//! the escaping that all the VM's pages share ([`crate::html`]); the flame graphs are inline SVG without
//! inferno's script (two graphs on one page would share its element ids),
//! each box's tooltip giving its context and weight.

use std::collections::HashMap;
use std::fmt::Write;
use std::io;

use serde_json::json;

use super::{flamegraph, share};
use crate::html::{esc, Page};
use crate::{metrics, Profile};

/// Edge weights by `(caller, line, callee)`.
type EdgeWeights<'a> = HashMap<(&'a str, u32, &'a str), u64>;

/// An inferno SVG made fit to stand inside the page.
fn inline_svg(svg: &[u8]) -> String {
    let text = String::from_utf8_lossy(svg);
    match text.find("<svg") {
        Some(i) => text[i..].to_string(),
        None => String::new(),
    }
}

const STYLE: &str = r#"
body { margin: 2em auto; max-width: 1200px; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
p.help { color: #555; max-width: 60em; }
table { margin: 0.5em 0; }
th, td { padding: 0.2em 0.8em; border-bottom: 1px solid #eee; text-align: left; }
td.n, th.n { text-align: right; }
.bar { display: inline-block; height: 0.7em; vertical-align: middle; }
.bar.s { background: #d62728; } .bar.e { background: #1f77b4; }
.flame svg { width: 100%; height: auto; border: 1px solid #ddd; }
"#;

/// The hot-methods table, drawn by the shared sortable table.
const SCRIPT: &str = r#"
(function () {
  var data = JSON.parse(document.getElementById("data").textContent);
  function cells(m) {
    return [[m.name, ""], [m.self, "n"], [m.share.toFixed(1) + "%", "n"], [m.calls, "n"]];
  }
  cells.rowClass = "method";
  vmSortable(document.getElementById("methods"), data.methods, cells, "self", false);
  document.body.setAttribute("data-rendered", "yes");
})();
"#;

/// The page for `p`, with `reference` (and its shown name) when given.
/// The flame graphs need a `cct`; without one the page says which
/// `--record` gives it.
pub fn page(
    p: &Profile,
    reference: Option<(&Profile, &str)>,
    min_percent: f64,
) -> io::Result<String> {
    let mut s = String::new();
    let unit = if p.config.profile == "exhaustive" {
        "instructions"
    } else {
        "samples"
    };
    let _ = writeln!(
        s,
        "<h1>Profile of <code>{}</code> ({} profile)</h1>",
        esc(&p.program),
        esc(&p.config.profile)
    );
    let _ = writeln!(
        s,
        "<p class=\"help\">A profile tells where a program spent its time. {}</p>",
        if p.config.profile == "exhaustive" {
            "This one is exact: every call was counted and every instruction charged to the method that ran it."
        } else {
            "This one is sampled: now and then the profiler looked at what the program was doing, and each look is one sample. A sample is an estimate; the more samples, the closer it comes to the truth."
        }
    );
    // Summary.
    let _ = writeln!(
        s,
        "<h2 id=\"summary\">Summary</h2>\n<table id=\"summary-table\">"
    );
    let config = serde_json::to_value(&p.config).unwrap_or_default();
    let run = serde_json::to_value(&p.run).unwrap_or_default();
    for (section, v) in [("config", &config), ("run", &run)] {
        if let Some(o) = v.as_object() {
            for (k, v) in o {
                let shown = match v {
                    serde_json::Value::String(t) => t.clone(),
                    other => other.to_string(),
                };
                let _ = writeln!(
                    s,
                    "<tr><th>{section}.{}</th><td>{}</td></tr>",
                    esc(k),
                    esc(&shown)
                );
            }
        }
    }
    let _ = writeln!(s, "</table>");
    if let Some(hint) = super::no_samples_hint(p) {
        let _ = writeln!(s, "<p class=\"help\"><strong>{}</strong></p>", esc(&hint));
    }
    // Accuracy.
    if let Some((r, rname)) = reference {
        let c = metrics::compare(p, r);
        let _ = writeln!(
            s,
            "<h2 id=\"accuracy\">How accurate is this profile?</h2>\n<p class=\"help\">Compared with \
             <code>{}</code> ({} profile). Overlaps run from 0 (nothing in common) to 100 (the same \
             shares); the correlation of the methods' self counts from -1 to 1; hot-edge coverage is \
             the percentage of the reference's hot calling contexts that the sample found at all.</p>\n\
             <table id=\"metrics\">",
            esc(rname),
            esc(&r.config.profile)
        );
        for (name, v) in c.entries() {
            let _ = writeln!(
                s,
                "<tr class=\"metric\"><th>{name}</th><td class=\"n\">{v:.2}</td></tr>"
            );
        }
        for (name, why) in c.undefined() {
            let _ = writeln!(
                s,
                "<tr class=\"metric\"><th>{name}</th><td>left out: {}</td></tr>",
                esc(why)
            );
        }
        let _ = writeln!(s, "</table>");
    }
    // Hot methods.
    let methods = p.methods.as_deref().unwrap_or(&[]);
    let total_self = super::total(methods.iter().map(|m| m.self_));
    let rows: Vec<_> = methods
        .iter()
        .map(|m| {
            json!({"name": m.name, "self": m.self_, "share": share(m.self_, total_self), "calls": m.calls})
        })
        .collect();
    let data = json!({"methods": rows}).to_string();
    let _ = writeln!(
        s,
        "<h2 id=\"hot-methods\">Hot methods</h2>\n<p class=\"help\"><em>self</em>: {unit} taken \
         while the method itself was running (not its callees); <em>calls</em>: calls into it {}. \
         Click a column to sort.</p>\n<table id=\"methods\"><thead><tr><th data-key=\"name\">method</th>\
         <th class=\"n\" data-key=\"self\">self</th><th class=\"n\" data-key=\"share\">self %</th>\
         <th class=\"n\" data-key=\"calls\">calls</th></tr></thead><tbody></tbody></table>",
        if p.config.profile == "exhaustive" {
            "(all of them)"
        } else {
            "that a sample saw"
        }
    );
    // Edges.
    if let Some(dcg) = &p.dcg {
        let total = super::total(dcg.iter().map(|e| e.weight));
        let exact: Option<(EdgeWeights, u128)> =
            reference.and_then(|(r, _)| r.dcg.as_ref()).map(|rd| {
                let mut m = HashMap::new();
                for e in rd {
                    *m.entry((e.caller.as_str(), e.line, e.callee.as_str()))
                        .or_default() += e.weight;
                }
                (m, super::total(rd.iter().map(|e| e.weight)))
            });
        let _ = writeln!(
            s,
            "<h2 id=\"edges\">Call edges</h2>\n<p class=\"help\">Each edge is a call site: the caller, \
             the line of the call, the method called. Its weight is {}.{}</p>\n<table id=\"edge-table\">\
             <thead><tr><th>call site</th><th class=\"n\">weight</th><th class=\"n\">share</th>{}</tr></thead><tbody>",
            if p.config.profile == "exhaustive" {
                "the number of calls"
            } else {
                "the number of samples that saw the call"
            },
            if exact.is_some() {
                " The bars set the sample's share (red) against the reference's (blue)."
            } else {
                ""
            },
            if exact.is_some() {
                "<th class=\"n\">exact share</th><th>sampled (red) against exact (blue)</th>"
            } else {
                ""
            }
        );
        let mut sorted: Vec<_> = dcg.iter().collect();
        sorted.sort_by_key(|e| std::cmp::Reverse(e.weight));
        for e in sorted {
            let ps = share(e.weight, total);
            let _ = write!(
                s,
                "<tr class=\"edge\"><td>{}:{} &#8594; {}</td><td class=\"n\">{}</td><td class=\"n\">{ps:.1}%</td>",
                esc(&e.caller),
                e.line,
                esc(&e.callee),
                e.weight
            );
            if let Some((m, te)) = &exact {
                let w = m
                    .get(&(e.caller.as_str(), e.line, e.callee.as_str()))
                    .copied()
                    .unwrap_or(0);
                let pe = share(w, *te);
                let _ = write!(
                    s,
                    "<td class=\"n\">{pe:.1}%</td><td><span class=\"bar s\" style=\"width:{:.1}px\"></span><br>\
                     <span class=\"bar e\" style=\"width:{:.1}px\"></span></td>",
                    ps * 3.0,
                    pe * 3.0
                );
            }
            let _ = writeln!(s, "</tr>");
        }
        let _ = writeln!(s, "</tbody></table>");
    }
    // Flame graphs.
    let _ = writeln!(s, "<h2 id=\"flamegraph\">Flame graph</h2>");
    if p.cct.is_some() {
        let _ = writeln!(
            s,
            "<p class=\"help\">Each box is a calling context: a method as called along one path \
             from the thread's entry method, its callees stacked on top. A box is as wide as the \
             {unit} taken in it and everything it called. Hover over a box for its numbers. \
             Contexts under {min_percent}% of the total are gathered in <code>(other)</code>.</p>\n\
             <div class=\"flame\" id=\"flame\">{}</div>",
            inline_svg(&flamegraph::svg(p, min_percent, false)?)
        );
        if let Some((r, _)) = reference.filter(|(r, _)| r.cct.is_some()) {
            let _ = writeln!(
                s,
                "<h2 id=\"differential\">Where the sample is wrong</h2>\n<p class=\"help\">Here each \
                 box is as wide as the calls the sample counted in the context and below, and \
                 coloured by how the sample's share of them differs from the reference's: red \
                 where the sample over-weights the context, blue where it under-weights it; the \
                 deeper the colour, the larger the error.</p>\n\
                 <div class=\"flame\" id=\"diff-flame\">{}</div>",
                inline_svg(&flamegraph::differential(p, r, min_percent, false)?)
            );
        }
    } else {
        let _ = writeln!(
            s,
            "<p class=\"help\">This profile has no calling-context tree, so there is no flame \
             graph: record one with {}.</p>",
            super::missing_contexts(p).unwrap_or("--record=cct")
        );
    }
    Ok(Page {
        title: &format!("Profile of {}", p.program),
        style: STYLE,
        body: &s,
        data: &data,
        script: SCRIPT,
        sortable: true,
    }
    .render())
}
