//! The controller's timeline as one self-contained HTML page
//! (`vm run --adaptive --html=FILE`, docs/ADAPTIVE.md).
//!
//! The page holds the report as JSON and a small script that draws it: a
//! time axis with every wake-up (coloured by what it came to) and every
//! recompilation, and a table of the recompilations with the model's
//! figures (past time, expected benefit, compile cost), the saving measured
//! in cycles beside the expected benefit ([`super::saving`]), the call
//! sites inlined and what the profile said afterwards. Nothing is fetched: the
//! style and the script are in the page, put together by the skeleton all
//! the VM's pages share ([`profile::html`]). The script marks the body
//! `data-rendered="yes"` when it is done, so a headless browser can tell a
//! page that rendered from one whose script broke.

use std::fmt::Write as _;

use profile::html::{esc, Page};

use super::{AdaptiveReport, LookOutcome, Saving};

/// `s` as a JSON string literal (the page makes it safe inside its
/// `<script>` element).
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A finite number for JSON (NaN and infinities as 0).
fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.6}")
    } else {
        "0".into()
    }
}

/// `x` as JSON, `null` when absent.
fn opt_num(x: Option<f64>) -> String {
    x.filter(|x| x.is_finite())
        .map_or_else(|| "null".into(), num)
}

/// The measured saving's fields of a compilation's JSON object.
fn saving_json(saving: Option<&Saving>) -> String {
    format!(
        "\"actual_ms\":{},\"ratio\":{},\"measured\":{}",
        opt_num(saving.and_then(Saving::actual_ms)),
        opt_num(saving.and_then(Saving::ratio)),
        json_str(&saving.map_or_else(|| "not measured".to_string(), Saving::detail))
    )
}

/// The report as the JSON the page's script reads.
pub fn data_json(report: &AdaptiveReport, program: &str) -> String {
    let mut s = String::new();
    let ms = |d: std::time::Duration| num(d.as_secs_f64() * 1e3);
    let _ = write!(
        s,
        "{{\"program\":{},\"period_ms\":{},\"end_ms\":{},\"min_samples\":{},",
        json_str(program),
        ms(report.period),
        ms(report.ended),
        report.min_samples
    );
    s.push_str("\"wakeups\":[");
    for (i, (at, o)) in report.look_times.iter().zip(&report.outcomes).enumerate() {
        let (kind, detail) = match o {
            LookOutcome::TooFewSamples(n) => ("few", format!("{n} method samples")),
            LookOutcome::NothingToInline => ("none", "nothing to inline".into()),
            LookOutcome::NotWorthIt => ("declined", "nothing worth recompiling".into()),
            LookOutcome::Refused => ("refused", "the inliner refused".into()),
            LookOutcome::Recompiled(n) => ("recompiled", format!("{n} recompiled")),
        };
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{{\"at\":{},\"kind\":{},\"detail\":{}}}",
            ms(*at),
            json_str(kind),
            json_str(&detail)
        );
    }
    s.push_str("],\"compilations\":[");
    for (i, c) in report.compilations.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let inlined: Vec<String> = c.inlined.iter().map(|x| json_str(x)).collect();
        let after = report
            .measured
            .get(i)
            .map_or_else(String::new, super::Measured::text);
        let _ = write!(
            s,
            "{{\"number\":{},\"at\":{},\"method\":{},\"size_before\":{},\"size_after\":{},\
             \"past_ms\":{},\"benefit_ms\":{},\"cost_ms\":{},\"compile_ms\":{},\
             \"installed\":{},\"inlined\":[{}],\"after\":{},{}}}",
            c.number,
            ms(c.at),
            json_str(&c.name),
            c.size.0,
            c.size.1,
            num(c.estimate.time_ns / 1e6),
            num(c.estimate.benefit_ns / 1e6),
            num(c.estimate.cost_ns / 1e6),
            ms(c.compile_time),
            json_str(match &c.installed {
                Ok(()) => "yes",
                Err(e) => e,
            }),
            inlined.join(","),
            json_str(&after),
            saving_json(report.savings.get(i))
        );
    }
    s.push_str("],\"declined\":[");
    for (i, d) in report.declined.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{{\"method\":{},\"reason\":{}}}",
            json_str(&d.name),
            json_str(&d.reason)
        );
    }
    let _ = write!(
        s,
        "],\"considered\":[{}],\"totals\":{}}}",
        report
            .considered
            .iter()
            .map(|m| json_str(m))
            .collect::<Vec<_>>()
            .join(","),
        json_str(report.report().lines().last().unwrap_or_default())
    );
    s
}

// The page fits the window's width: the time axis scales down with it,
// the table's cells wrap their text (a method's name, the inlined sites,
// the measured cycles), and a window too narrow even for the wrapped table
// scrolls the table in its own box, not the page.
const STYLE: &str = "\
body{font-size:14px;line-height:1.4;margin:1.5em}\
h1{font-size:1.3em;overflow-wrap:anywhere}h2{font-size:1.1em;margin-top:1.5em}\
#axis{max-width:100%;height:auto;display:block}\
.scroll{overflow-x:auto;max-width:100%}table{width:100%;border-collapse:collapse}\
td,th{padding:.25em .6em;border-bottom:1px solid #ddd;text-align:left;vertical-align:top;overflow-wrap:anywhere}\
th{overflow-wrap:normal}\
li,p{overflow-wrap:anywhere}\
td.n{text-align:right}\
.few{fill:#bbb}.none{fill:#888}.declined{fill:#e0a030}.refused{fill:#c03030}.recompiled{fill:#2a8a3a}\
.legend span{display:inline-block;width:.8em;height:.8em;margin:0 .3em 0 1em;vertical-align:middle}\
svg text{font:11px system-ui,sans-serif}";

const SCRIPT: &str = r#"
(function () {
  const d = JSON.parse(document.getElementById('data').textContent);
  const el = (tag, attrs, text) => {
    const e = document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const f3 = x => x.toFixed(3);
  const kinds = {few: 'too few samples', none: 'nothing to inline', declined: 'nothing worth it',
                 refused: 'inliner refused', recompiled: 'recompiled'};
  document.getElementById('totals').textContent = d.totals.replace(/^vm: adaptive: /, '');
  // The time axis: wake-ups as ticks, recompilations as labelled marks.
  const ns = 'http://www.w3.org/2000/svg';
  const svgEl = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const W = 1000, left = 40, right = 20;
  const end = Math.max(d.end_ms, ...d.wakeups.map(w => w.at), 1);
  const x = t => left + (W - left - right) * t / end;
  const rows = d.compilations.length;
  const H = 70 + 16 * rows;
  const svg = svgEl('svg', {width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, id: 'axis'});
  svg.appendChild(svgEl('line', {x1: left, x2: W - right, y1: 40, y2: 40, stroke: '#444'}));
  for (let t = 0; t <= end; t += Math.max(10, Math.pow(10, Math.floor(Math.log10(end))) / 2)) {
    svg.appendChild(svgEl('line', {x1: x(t), x2: x(t), y1: 40, y2: 45, stroke: '#444'}));
    svg.appendChild(svgEl('text', {x: x(t), y: 58, 'text-anchor': 'middle'}, Math.round(t) + 'ms'));
  }
  d.wakeups.forEach((w, i) => {
    const r = svgEl('rect', {x: x(w.at) - 1.5, y: 22, width: 3, height: 16, class: 'wakeup ' + w.kind});
    r.appendChild(svgEl('title', {}, 'wake-up ' + (i + 1) + ' at ' + w.at.toFixed(1) + 'ms: ' + w.detail));
    svg.appendChild(r);
  });
  d.compilations.forEach((c, i) => {
    const y = 72 + 16 * i;
    svg.appendChild(svgEl('line', {x1: x(c.at), x2: x(c.at), y1: 40, y2: y - 4, stroke: '#2a8a3a', 'stroke-dasharray': '2,2'}));
    const t = svgEl('text', {x: x(c.at) + 3, y: y, class: 'mark'}, '#' + c.number + ' ' + c.method);
    t.appendChild(svgEl('title', {}, 'benefit ' + f3(c.benefit_ms) + 'ms > cost ' + f3(c.cost_ms) + 'ms'));
    svg.appendChild(t);
  });
  document.getElementById('timeline').appendChild(svg);
  // The recompilations.
  const tbody = document.querySelector('#compilations tbody');
  for (const c of d.compilations) {
    const tr = el('tr', {class: 'compilation', 'data-method': c.method});
    const cells = [
      [c.number, 'n'], [c.at.toFixed(1) + 'ms', 'n'], [c.method, ''],
      [c.size_before + ' \u2192 ' + c.size_after, 'n'],
      [f3(c.past_ms) + 'ms', 'n past'], [f3(c.benefit_ms) + 'ms', 'n benefit'],
      [c.actual_ms === null ? '\u2013' : f3(c.actual_ms) + 'ms', 'n actual'],
      [c.ratio === null ? '\u2013' : c.ratio.toFixed(2), 'n ratio'], [c.measured, 'measured'],
      [f3(c.cost_ms) + 'ms', 'n cost'], [f3(c.compile_ms) + 'ms', 'n'],
      [c.inlined.join(', '), 'inlined'], [c.installed === 'yes' ? c.after : 'not installed: ' + c.installed, '']
    ];
    for (const [text, cls] of cells) tr.appendChild(el('td', {class: cls}, String(text)));
    tbody.appendChild(tr);
  }
  if (!d.compilations.length) {
    tbody.appendChild(el('tr', {}, '')).appendChild(el('td', {colspan: 13}, 'Nothing was recompiled.'));
  }
  const ul = document.getElementById('declined');
  for (const m of d.declined) ul.appendChild(el('li', {class: 'declined'}, m.method + ': ' + m.reason));
  const counts = {};
  for (const w of d.wakeups) counts[w.kind] = (counts[w.kind] || 0) + 1;
  document.getElementById('wakeups').textContent =
    d.wakeups.length + ' wake-ups (every ' + d.period_ms + 'ms): ' +
    Object.keys(counts).map(k => counts[k] + ' ' + kinds[k]).join(', ') +
    '; methods considered: ' + (d.considered.join(', ') || 'none');
  document.body.setAttribute('data-rendered', 'yes');
})();
"#;

/// The whole page.
pub fn page(report: &AdaptiveReport, program: &str) -> String {
    let body = format!(
        "<h1>The adaptive controller on <code>{p}</code></h1>\n\
         <p id=\"totals\"></p><p id=\"wakeups\"></p>\n\
         <h2>Timeline</h2>\n<p class=\"legend\">wake-ups:\
         <span class=\"recompiled\" style=\"background:#2a8a3a\"></span>recompiled\
         <span style=\"background:#e0a030\"></span>nothing worth it\
         <span style=\"background:#888\"></span>nothing to inline\
         <span style=\"background:#bbb\"></span>too few samples</p>\n\
         <div id=\"timeline\"></div>\n\
         <h2>Recompilations</h2>\n\
         <p>The model: past time of the inlined callees through the inlined \
         edges; expected benefit, the share of it that is call overhead, over a \
         future as long as the past; compile cost, proportional to the size \
         produced. <em>Actual saving</em> is what the new code saved, counted \
         in cycles per call of the old and the new code (callees included) \
         and put in the estimate's terms: time at the run's own rate, over a \
         future as long as the past; <em>ratio</em> is actual over expected \
         (only with <code>--clock=virtual</code> or <code>--cycles</code>, \
         which count cycles). <em>After</em> is what the profile said later \
         (the share of the samples in the method and what it inlined, which \
         inlining also moves: see docs/ADAPTIVE.md).</p>\n\
         <div class=\"scroll\"><table id=\"compilations\"><thead><tr><th>#</th><th>at</th><th>method</th>\
         <th>instrs</th><th>past time</th><th>expected benefit</th><th>actual saving</th>\
         <th>ratio</th><th>cycles measured</th><th>compile cost</th>\
         <th>compiled in</th><th>inlined</th><th>after</th></tr></thead><tbody></tbody></table></div>\n\
         <h2>Not recompiled</h2>\n<ul id=\"declined\"></ul>",
        p = esc(program),
    );
    Page {
        title: &format!("vm adaptive: {program}"),
        style: STYLE,
        body: &body,
        data: &data_json(report, program),
        script: SCRIPT,
        sortable: false,
    }
    .render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_json_strings() {
        assert_eq!(json_str("a</script>\"\\"), "\"a</script>\\\"\\\\\"");
        assert_eq!(json_str("\u{1}\n"), "\"\\u0001\\n\"");
    }

    #[test]
    fn each_compilation_carries_its_saving_or_null_with_why() {
        use crate::adaptive::{Compilation, Estimate, RunClock};
        use vm::bodycount::BodyCount;
        let c = Compilation {
            number: 1,
            at: std::time::Duration::from_millis(10),
            method: 1,
            name: "f".into(),
            estimate: Estimate {
                time_ns: 1e6,
                benefit_ns: 100e3,
                cost_ns: 9e3,
                size: 9,
            },
            inlined: vec!["@3 g".into()],
            size: (4, 9),
            compile_time: std::time::Duration::from_micros(50),
            installed: Ok(()),
        };
        let run = RunClock {
            ended_ns: 30e6,
            cycles: 540_000,
        };
        let count = |calls, cycles| BodyCount { calls, cycles };
        let r = AdaptiveReport {
            compilations: vec![c.clone(), Compilation { number: 2, ..c }],
            savings: vec![
                Saving::of(100e3, 10e6, run, count(50, 5000), count(1000, 60_000), None),
                Saving::of(100e3, 10e6, run, count(50, 5000), count(0, 0), None),
            ],
            ..AdaptiveReport::default()
        };
        let json = data_json(&r, "p.bc");
        assert!(
            json.contains(
                "\"actual_ms\":1.000000,\"ratio\":10.000000,\"measured\":\"100.0 -> 60.0"
            ),
            "{json}"
        );
        assert!(
            json.contains("\"actual_ms\":null,\"ratio\":null,\"measured\":\"no after data: "),
            "{json}"
        );
    }

    #[test]
    fn an_empty_report_makes_a_page_that_fetches_nothing() {
        let r = AdaptiveReport::default();
        let json = data_json(&r, "p<1>.bc");
        assert!(json.starts_with("{\"program\":\"p<1>.bc\""), "{json}");
        assert!(json.contains("\"compilations\":[]"), "{json}");
        let page = page(&r, "p<1>.bc");
        assert!(page.contains("<code>p&lt;1&gt;.bc</code>"));
        assert!(page.contains("{\"program\":\"p\\u003c1\\u003e.bc\""));
        assert!(!page.contains("<link") && !page.contains("src=\"http"));
    }
}
