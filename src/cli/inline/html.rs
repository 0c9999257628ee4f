//! `vm inline --html=FILE`: one self-contained page with three columns a
//! student scrolls side by side: the original `.bc` with each call site
//! annotated (weight, decision, reason, a colour for inlined / guarded /
//! rejected / refused), the inlining tree, and the emitted `.bc` with each
//! inlined region's mark linked back to its call site. The data is the
//! decision records, embedded as JSON; the page's script lays it out (and
//! marks `<body data-rendered="yes">` when done, which the tests check).

use jit_sim::policy::record::Record;
use serde_json::{json, Value};

use super::logfile::record_json;

/// The page.
pub fn page(
    program: &str,
    header: &str,
    source: &str,
    records: &[Record],
    tree: &str,
    emitted: &str,
) -> String {
    let data: Value = json!({
        "program": program,
        "header": header,
        "source": source.lines().collect::<Vec<_>>(),
        "records": records.iter().map(record_json).collect::<Vec<_>>(),
        "tree": tree.lines().collect::<Vec<_>>(),
        "emitted": emitted.lines().collect::<Vec<_>>(),
    });
    // `</` cannot end the script element from inside the JSON.
    let data = data.to_string().replace("</", "<\\/");
    let title = program
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>vm inline: {title}</title>
<style>
body {{ font: 13px/1.35 system-ui, sans-serif; margin: 0; }}
header {{ padding: 6px 10px; background: #eee; border-bottom: 1px solid #ccc; }}
main {{ display: grid; grid-template-columns: 2fr 1fr 2fr; height: calc(100vh - 40px); }}
section {{ overflow: auto; border-right: 1px solid #ccc; }}
h2 {{ font-size: 13px; margin: 0; padding: 4px 8px; background: #f6f6f6; position: sticky; top: 0; }}
pre {{ margin: 0; padding: 4px 8px; font: 12px/1.4 ui-monospace, monospace; }}
.line {{ white-space: pre; }}
.line:target {{ background: #ffef9e; }}
.no {{ color: #999; display: inline-block; width: 3.5em; text-align: right; margin-right: 1em; }}
.ann {{ display: block; margin-left: 4.5em; font-family: system-ui, sans-serif; font-size: 12px; padding: 1px 4px; border-left: 3px solid; }}
.inline {{ border-color: #2a8c2a; background: #e8f6e8; }}
.guarded {{ border-color: #2760b8; background: #e7eefb; }}
.rejected {{ border-color: #b83227; background: #fbe9e7; }}
.refused {{ border-color: #b8860b; background: #fbf3e0; }}
.region {{ color: #2760b8; font-weight: bold; }}
.comment {{ color: #777; }}
</style></head>
<body data-rendered="no">
<header id="title"></header>
<main>
<section><h2>original (call sites annotated)</h2><pre id="source"></pre></section>
<section><h2>inlining tree</h2><pre id="tree"></pre></section>
<section><h2>emitted (inlined regions linked to their call site)</h2><pre id="emitted"></pre></section>
</main>
<script type="application/json" id="data">{data}</script>
<script>
(function () {{
  var d = JSON.parse(document.getElementById('data').textContent);
  function el(tag, cls, text) {{
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }}
  document.getElementById('title').textContent = d.header;
  var byLine = {{}};
  d.records.forEach(function (r) {{
    if (r.depth === 1) (byLine[r.line] = byLine[r.line] || []).push(r);
  }});
  var src = document.getElementById('source');
  d.source.forEach(function (text, i) {{
    var n = i + 1;
    var line = el('div', 'line');
    line.id = 'src-' + n;
    line.appendChild(el('span', 'no', String(n)));
    line.appendChild(document.createTextNode(text));
    (byLine[n] || []).forEach(function (r) {{
      var w = r.weight_pct === null ? '' : r.weight_pct.toFixed(2) + '% ';
      var a = el('span', 'ann ' + r.outcome, w + r.callee + ': ' + r.outcome + ', ' + r.reason);
      a.dataset.site = r.caller + ':' + r.line;
      line.appendChild(a);
    }});
    src.appendChild(line);
  }});
  var tree = document.getElementById('tree');
  d.tree.forEach(function (text) {{ tree.appendChild(el('div', 'line', text)); }});
  var out = document.getElementById('emitted');
  d.emitted.forEach(function (text, i) {{
    var line = el('div', 'line');
    line.id = 'out-' + (i + 1);
    var m = /^(\s*); inlined from (.+):(\d+) -> (.+)$/.exec(text);
    if (m) {{
      line.appendChild(document.createTextNode(m[1] + '; inlined from '));
      var a = el('a', 'region', m[2] + ':' + m[3] + ' -> ' + m[4]);
      a.href = '#src-' + m[3];
      a.dataset.site = m[2] + ':' + m[3];
      a.dataset.callee = m[4];
      line.appendChild(a);
    }} else if (/^\s*;/.test(text)) {{
      line.appendChild(el('span', 'comment', text));
    }} else {{
      line.textContent = text;
    }}
    out.appendChild(line);
  }});
  document.body.dataset.rendered = 'yes';
}})();
</script>
</body></html>
"#
    )
}
