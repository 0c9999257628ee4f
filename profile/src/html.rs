//! The HTML machinery shared by the three pages of the VM: `vm report
//! --format=html` ([`crate::report`]), `vm inline --html` and `vm run
//! --adaptive --html` (both in other crates, which depend on this one).
//!
//! Every page is one self-contained file: the style and the script are
//! inline, nothing is fetched, so it works offline and can be mailed. Its
//! data is one JSON object in `<script type="application/json"
//! id="data">`, which the page's script reads and lays out; when the
//! script is done it marks `<body data-rendered="yes">`, which the browser
//! tests check (a broken script leaves `no`). This module gives the
//! escaping, the skeleton with the common style, and the one piece of
//! script the pages share: a table sorted by clicking its column heads.

use std::fmt::Write as _;

/// Text with `&`, `<`, `>` and `"` escaped, for element text and
/// attribute values.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JSON text made safe inside a `<script>` element: `<`, `>` and `&`
/// (which JSON has only inside strings) become `\u003c`, `\u003e` and
/// `\u0026`, so no string can close the element or open a comment.
pub fn script_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

/// The style every page starts from; each adds its own after it.
pub const BASE_STYLE: &str = "\
body{font-family:system-ui,sans-serif;color:#222}\
table{border-collapse:collapse}\
td.n,th.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\
code{background:#f4f4f4;padding:0 .2em}\
th.sortable{cursor:pointer;user-select:none;background:#f4f4f4}\
th.sorted::after{content:\" \\25BE\"}th.sorted.asc::after{content:\" \\25B4\"}\n";

/// The shared script: `vmSortable(table, rows, cells, key, asc)` fills
/// `table`'s body with one `<tr>` per element of `rows` (an array of
/// objects), sorted by the property `key`; `cells(row)` gives the row's
/// `[text, class]` pairs and `cells.rowClass` its class. A click on a
/// `<th data-key="K">` sorts by `K` (again: the other way round).
pub const SORTABLE_SCRIPT: &str = r#"
function vmSortable(table, rows, cells, key, asc) {
  var body = table.querySelector("tbody");
  var heads = table.querySelectorAll("th[data-key]");
  function render() {
    var sorted = rows.slice();
    sorted.sort(function (a, b) {
      var x = a[key], y = b[key];
      var c = (typeof x === "string") ? x.localeCompare(y) : x - y;
      return asc ? c : -c;
    });
    body.innerHTML = "";
    sorted.forEach(function (r) {
      var tr = document.createElement("tr");
      tr.className = cells.rowClass || "";
      cells(r).forEach(function (c) {
        var td = document.createElement("td");
        td.textContent = c[0];
        td.className = c[1];
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
    heads.forEach(function (th) {
      th.classList.toggle("sorted", th.dataset.key === key);
      th.classList.toggle("asc", th.dataset.key === key && asc);
    });
  }
  heads.forEach(function (th) {
    th.classList.add("sortable");
    th.addEventListener("click", function () {
      if (key === th.dataset.key) { asc = !asc; } else { key = th.dataset.key; asc = rows.length > 0 && typeof rows[0][key] === "string"; }
      render();
    });
  });
  render();
}
"#;

/// One page to put together.
pub struct Page<'a> {
    /// The `<title>` (escaped here).
    pub title: &'a str,
    /// The page's own style, after [`BASE_STYLE`].
    pub style: &'a str,
    /// The body's static HTML (already escaped by the caller).
    pub body: &'a str,
    /// The data, as JSON text (made safe here with [`script_json`]).
    pub data: &'a str,
    /// The page's script; [`SORTABLE_SCRIPT`] is put before it when
    /// `sortable` is set.
    pub script: &'a str,
    /// Whether the script uses `vmSortable`.
    pub sortable: bool,
}

impl Page<'_> {
    /// The whole file.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = write!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <title>{}</title>\n<style>\n{BASE_STYLE}{}\n</style>\n</head>\n\
             <body data-rendered=\"no\">\n{}\n\
             <script type=\"application/json\" id=\"data\">{}</script>\n<script>{}{}</script>\n\
             </body>\n</html>\n",
            esc(self.title),
            self.style,
            self.body,
            script_json(self.data),
            if self.sortable { SORTABLE_SCRIPT } else { "" },
            self.script
        );
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_cannot_close_the_script_or_break_the_markup() {
        let json = serde_json::json!({"p": "a</script><!--&"}).to_string();
        let safe = script_json(&json);
        assert_eq!(safe, r#"{"p":"a\u003c/script\u003e\u003c!--\u0026"}"#);
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back["p"], "a</script><!--&");
        assert_eq!(
            esc("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }

    #[test]
    fn a_page_holds_its_parts_and_fetches_nothing() {
        let page = Page {
            title: "p<1>.bc",
            style: "h1{color:red}",
            body: "<h1>hi</h1>",
            data: "{\"x\":\"</script>\"}",
            script: "document.body.dataset.rendered = 'yes';",
            sortable: true,
        }
        .render();
        assert!(page.contains("<title>p&lt;1&gt;.bc</title>"), "{page}");
        assert!(page.contains("h1{color:red}") && page.contains("<h1>hi</h1>"));
        assert!(page.contains("function vmSortable("));
        assert_eq!(page.matches("</script>").count(), 2, "{page}");
        assert!(page.contains("data-rendered=\"no\""));
        for bad in ["<link", "src=\"http", "@import", "url(http"] {
            assert!(!page.contains(bad), "{bad}");
        }
    }
}
