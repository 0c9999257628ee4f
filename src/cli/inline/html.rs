//! `vm inline --html=FILE`: one self-contained page with three columns a
//! student scrolls side by side: the original `.bc` with each call site
//! annotated (weight, decision, reason, a colour for inlined / guarded /
//! rejected / refused), the inlining tree, and the emitted `.bc` with each
//! inlined region's mark linked back to its call site. The data is the
//! decision records, embedded as JSON; the page's script lays it out (and
//! marks `<body data-rendered="yes">` when done, which the tests check).
//!
//! With `--compare` the page holds one view per profile, and a profile
//! selector switches the three columns between them (`#profile=KIND` in
//! the address selects one when the page opens); a call site the profiles
//! decide differently is marked, with each profile's weight and decision. The skeleton and the
//! escaping are the ones all the VM's pages share ([`profile::html`]).

use jit_sim::policy::record::Record;
use profile::html::Page;
use serde_json::{json, Value};

use super::logfile::record_json;

/// Every rule of a record as `--explain` prints it.
fn rules_text(r: &Record) -> Vec<String> {
    r.rules.iter().map(|x| x.describe()).collect()
}

/// One profile's decisions, as the page shows them.
pub struct View<'a> {
    /// The profile kind's name (`None` for the page of one run).
    pub profile: Option<String>,
    /// The line above the columns.
    pub header: String,
    /// The options the policy read, with their values (`--inline-always=11
    /// ...`).
    pub thresholds: String,
    /// The decision records.
    pub records: &'a [Record],
    /// Per record, the option values that would flip it (`None`: not
    /// computed, for the records inside inlined code).
    pub flips: Vec<Option<Vec<String>>>,
    /// The inlining tree, as `--tree` prints it.
    pub tree: String,
    /// The emitted program, as `--emit` writes it.
    pub emitted: String,
}

const STYLE: &str = r#"
body { font: 13px/1.35 system-ui, sans-serif; margin: 0; }
header { padding: 6px 10px; background: #eee; border-bottom: 1px solid #ccc; }
header select { margin-right: 1em; }
header .sub { font-size: 12px; color: #444; }
header code { font-size: 12px; }
main { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1.2fr) minmax(0, 2fr); height: calc(100vh - 62px); }
section { overflow: auto; border-right: 1px solid #ccc; }
h2 { font-size: 13px; margin: 0; padding: 4px 8px; background: #f6f6f6; position: sticky; top: 0; z-index: 1; }
pre { margin: 0; padding: 4px 8px; font: 12px/1.4 ui-monospace, monospace; }
.line { white-space: pre; }
.line:target { background: #ffef9e; }
#tree .line { white-space: pre-wrap; overflow-wrap: anywhere; }
.no { color: #999; display: inline-block; width: 3.5em; text-align: right; margin-right: 1em; }
.ann { display: block; margin-left: 4.5em; font-family: system-ui, sans-serif; font-size: 12px; padding: 1px 4px; border-left: 3px solid; white-space: normal; }
.ann .rule, .ann .flip { display: block; color: #333; }
.ann .flip { color: #555; }
.ann details { color: #333; }
.ann summary { cursor: pointer; color: #555; }
.ann ol { margin: 0; padding-left: 2em; }
.ann .differs { display: block; font-weight: bold; color: #7a1f7a; }
.ann.differ { box-shadow: inset 0 0 0 1px #7a1f7a; }
.inline { border-color: #2a8c2a; background: #e8f6e8; }
.guarded { border-color: #2760b8; background: #e7eefb; }
.rejected { border-color: #b83227; background: #fbe9e7; }
.refused { border-color: #b8860b; background: #fbf3e0; }
.region { color: #2760b8; font-weight: bold; }
.comment { color: #777; }
"#;

const BODY: &str = r#"<header><select id="profile" hidden title="the profile whose decisions are shown"></select><span id="title"></span>
<div class="sub">thresholds: <code id="thresholds"></code> <span id="differences"></span></div></header>
<main>
<section><h2>original (call sites annotated)</h2><pre id="source"></pre></section>
<section><h2>inlining tree</h2><pre id="tree"></pre></section>
<section><h2>emitted (inlined regions linked to their call site)</h2><pre id="emitted"></pre></section>
</main>"#;

const SCRIPT: &str = r#"
(function () {
  var d = JSON.parse(document.getElementById('data').textContent);
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function key(r) { return r.caller + ':' + r.line + ' ' + r.callee; }
  // What each profile decided at each call site: key -> [[profile, record]].
  var byKey = {};
  d.views.forEach(function (v) {
    v.records.forEach(function (r) {
      if (r.depth === 1) (byKey[key(r)] = byKey[key(r)] || []).push([v.profile, r]);
    });
  });
  // The sites the profiles decide differently, as --compare's table marks
  // them: inlined (or guarded) under one profile and not under another, a
  // profile that did not see the site counting as not inlined. Null for a
  // site they agree on, or a page of one run.
  function inlined(r) { return r.outcome === 'inline' || r.outcome === 'guarded'; }
  function differs(r) {
    if (d.views.length < 2) return null;
    var all = byKey[key(r)] || [];
    var per = d.views.map(function (v) {
      var p = all.find(function (q) { return q[0] === v.profile; });
      return p ? p[1] : null;
    });
    var yes = per.map(function (q) { return q !== null && inlined(q); });
    if (yes.every(function (y) { return y === yes[0]; })) return null;
    return d.views.map(function (v, i) {
      var q = per[i];
      if (!q) return v.profile + ' not seen';
      var w = q.weight_pct === null ? '' : ' ' + q.weight_pct.toFixed(2) + '%';
      return v.profile + w + ' ' + q.outcome;
    }).join(' \u00b7 ');
  }
  var differing = Object.keys(byKey).filter(function (k) { return differs(byKey[k][0][1]); });
  function annotation(r) {
    var w = r.weight_pct === null ? '' : r.weight_pct.toFixed(2) + '% ';
    var a = el('div', 'ann ' + r.outcome);
    a.dataset.site = r.caller + ':' + r.line;
    a.dataset.callee = r.callee;
    var other = differs(r);
    if (other) {
      a.className += ' differ';
      a.appendChild(el('span', 'differs', '\u2260 profiles differ: ' + other));
    }
    a.appendChild(el('span', 'verdict', w + r.callee + ': ' + r.outcome + ', ' + r.reason));
    if (r.decided_by) a.appendChild(el('span', 'rule', 'decided by ' + r.decided_by));
    if (r.to_flip) {
      a.appendChild(el('span', 'flip', 'to flip it: ' +
        (r.to_flip.length ? r.to_flip.join(' or ') : 'no single option value does')));
    }
    if (r.rules_text.length > 1) {
      var det = el('details');
      det.appendChild(el('summary', '', 'all ' + r.rules_text.length + ' rules, in order'));
      var ol = el('ol');
      r.rules_text.forEach(function (t) { ol.appendChild(el('li', '', t)); });
      det.appendChild(ol);
      a.appendChild(det);
    }
    return a;
  }
  function source(v) {
    var byLine = {};
    v.records.forEach(function (r) {
      if (r.depth === 1) (byLine[r.line] = byLine[r.line] || []).push(r);
    });
    var src = document.getElementById('source');
    src.textContent = '';
    d.source.forEach(function (text, i) {
      var n = i + 1;
      var line = el('div', 'line');
      line.id = 'src-' + n;
      line.appendChild(el('span', 'no', String(n)));
      line.appendChild(document.createTextNode(text));
      (byLine[n] || []).forEach(function (r) { line.appendChild(annotation(r)); });
      src.appendChild(line);
    });
  }
  function tree(v) {
    var t = document.getElementById('tree');
    t.textContent = '';
    // A long line wraps under its own indentation, not under the margin.
    v.tree.forEach(function (text) {
      var m = /^(\s*)(.*)$/.exec(text);
      var line = el('div', 'line', m[2]);
      line.style.paddingLeft = (m[1].length + 2) + 'ch';
      line.style.textIndent = '-2ch';
      t.appendChild(line);
    });
  }
  function emitted(v) {
    var out = document.getElementById('emitted');
    out.textContent = '';
    v.emitted.forEach(function (text, i) {
      var line = el('div', 'line');
      line.id = 'out-' + (i + 1);
      var m = /^(\s*); inlined from (.+):(\d+) -> (.+)$/.exec(text);
      if (m) {
        line.appendChild(document.createTextNode(m[1] + '; inlined from '));
        var a = el('a', 'region', m[2] + ':' + m[3] + ' -> ' + m[4]);
        a.href = '#src-' + m[3];
        a.dataset.site = m[2] + ':' + m[3];
        a.dataset.callee = m[4];
        line.appendChild(a);
      } else if (/^\s*;/.test(text)) {
        line.appendChild(el('span', 'comment', text));
      } else {
        line.textContent = text;
      }
      out.appendChild(line);
    });
  }
  function show(i) {
    var v = d.views[i];
    document.getElementById('title').textContent = v.header;
    document.getElementById('thresholds').textContent = v.thresholds;
    source(v);
    tree(v);
    emitted(v);
    document.body.dataset.profile = v.profile || '';
  }
  if (d.views.length > 1) {
    document.getElementById('differences').textContent = '\u00b7 the profiles decide ' +
      differing.length + ' of ' + Object.keys(byKey).length + ' call sites differently (marked \u2260)';
  }
  var select = document.getElementById('profile');
  d.views.forEach(function (v, i) {
    if (v.profile !== null) select.appendChild(el('option', '', v.profile)).value = String(i);
  });
  select.addEventListener('change', function () { show(Number(select.value)); });
  show(0);
  if (d.views.length > 1) {
    select.hidden = false;
    var m = /(?:^#|&)profile=([a-z]+)/.exec(location.hash);
    var want = m ? d.views.findIndex(function (v) { return v.profile === m[1]; }) : -1;
    if (want > 0) {
      select.value = String(want);
      select.dispatchEvent(new Event('change'));
    }
  }
  document.body.dataset.rendered = 'yes';
})();
"#;

/// The page: the source once, then one view per profile (one for a page
/// of one run).
pub fn page(program: &str, source: &str, views: &[View]) -> String {
    let views: Vec<Value> = views
        .iter()
        .map(|v| {
            json!({
                "profile": v.profile,
                "header": v.header,
                "thresholds": v.thresholds,
                "records": v.records.iter().zip(&v.flips).map(|(r, flip)| {
                    let mut j = record_json(r);
                    j["decided_by"] = json!(r.deciding_rule().map(|x| x.describe()));
                    j["rules_text"] = json!(rules_text(r));
                    j["to_flip"] = json!(flip);
                    j
                }).collect::<Vec<_>>(),
                "tree": v.tree.lines().collect::<Vec<_>>(),
                "emitted": v.emitted.lines().collect::<Vec<_>>(),
            })
        })
        .collect();
    let data = json!({
        "program": program,
        "source": source.lines().collect::<Vec<_>>(),
        "views": views,
    });
    Page {
        title: &format!("vm inline: {program}"),
        style: STYLE,
        body: BODY,
        data: &data.to_string(),
        script: SCRIPT,
        sortable: false,
    }
    .render()
}
