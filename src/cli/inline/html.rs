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
//! the address selects one when the page opens). The skeleton and the
//! escaping are the ones all the VM's pages share ([`profile::html`]).

use jit_sim::policy::record::Record;
use profile::html::Page;
use serde_json::{json, Value};

use super::logfile::record_json;

/// One profile's decisions, as the page shows them.
pub struct View<'a> {
    /// The profile kind's name (`None` for the page of one run).
    pub profile: Option<String>,
    /// The line above the columns.
    pub header: String,
    /// The decision records.
    pub records: &'a [Record],
    /// The inlining tree, as `--tree` prints it.
    pub tree: String,
    /// The emitted program, as `--emit` writes it.
    pub emitted: String,
}

const STYLE: &str = r#"
body { font: 13px/1.35 system-ui, sans-serif; margin: 0; }
header { padding: 6px 10px; background: #eee; border-bottom: 1px solid #ccc; }
header select { margin-right: 1em; }
main { display: grid; grid-template-columns: 2fr 1fr 2fr; height: calc(100vh - 40px); }
section { overflow: auto; border-right: 1px solid #ccc; }
h2 { font-size: 13px; margin: 0; padding: 4px 8px; background: #f6f6f6; position: sticky; top: 0; }
pre { margin: 0; padding: 4px 8px; font: 12px/1.4 ui-monospace, monospace; }
.line { white-space: pre; }
.line:target { background: #ffef9e; }
.no { color: #999; display: inline-block; width: 3.5em; text-align: right; margin-right: 1em; }
.ann { display: block; margin-left: 4.5em; font-family: system-ui, sans-serif; font-size: 12px; padding: 1px 4px; border-left: 3px solid; }
.inline { border-color: #2a8c2a; background: #e8f6e8; }
.guarded { border-color: #2760b8; background: #e7eefb; }
.rejected { border-color: #b83227; background: #fbe9e7; }
.refused { border-color: #b8860b; background: #fbf3e0; }
.region { color: #2760b8; font-weight: bold; }
.comment { color: #777; }
"#;

const BODY: &str = r#"<header><select id="profile" hidden title="the profile whose decisions are shown"></select><span id="title"></span></header>
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
      (byLine[n] || []).forEach(function (r) {
        var w = r.weight_pct === null ? '' : r.weight_pct.toFixed(2) + '% ';
        var a = el('span', 'ann ' + r.outcome, w + r.callee + ': ' + r.outcome + ', ' + r.reason);
        a.dataset.site = r.caller + ':' + r.line;
        a.dataset.callee = r.callee;
        line.appendChild(a);
      });
      src.appendChild(line);
    });
  }
  function tree(v) {
    var t = document.getElementById('tree');
    t.textContent = '';
    v.tree.forEach(function (text) { t.appendChild(el('div', 'line', text)); });
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
    source(v);
    tree(v);
    emitted(v);
    document.body.dataset.profile = v.profile || '';
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
                "records": v.records.iter().map(record_json).collect::<Vec<_>>(),
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
