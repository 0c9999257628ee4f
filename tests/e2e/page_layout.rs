//! The VM's HTML pages laid out in a real browser window (issue 36, item
//! 6): the adaptive controller's timeline page is no wider than the window,
//! and the columns of `vm inline --html` show their whole text: the
//! inlining tree wraps its long lines under their own indentation instead of
//! running out of its column, and no column pushes the page wider than the
//! window.
//!
//! Headless Chromium opens a copy of each page with a measuring script
//! appended (it runs after the page's own script has drawn everything):
//! the document's width against the window's, and each element asked about
//! with the width of its content against the width it shows. Without
//! Chromium the tests say so and check nothing more.

use std::path::Path;

use serde_json::Value;

use crate::harness::{run_vm_in, scratch, vm, DEFAULT_TIMEOUT};

/// The measuring script: `{"window", "page", "rendered", "elements":
/// {SELECTOR: [{"shown", "content"}]}}` into `<pre id="layout-result">`.
const MEASURE: &str = r#"
<script>
(function () {
  var ask = JSON.parse(document.getElementById('layout-ask').textContent);
  var out = {window: window.innerWidth, page: document.documentElement.scrollWidth,
             rendered: document.body.dataset.rendered || '', elements: {}};
  ask.forEach(function (sel) {
    out.elements[sel] = Array.from(document.querySelectorAll(sel)).map(function (e) {
      return {shown: e.clientWidth, content: e.scrollWidth};
    });
  });
  var pre = document.createElement('pre');
  pre.id = 'layout-result';
  pre.style.display = 'none';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"#;

/// `page` laid out in a window `width` pixels wide: the JSON the measuring
/// script wrote, asking about the elements of `selectors`; `None` without
/// Chromium.
fn layout(page: &Path, width: u32, selectors: &[&str]) -> Option<Value> {
    let html = std::fs::read_to_string(page).expect("the page is written");
    let ask = serde_json::to_string(selectors).unwrap();
    let tail = format!(
        "<script type=\"application/json\" id=\"layout-ask\">{ask}</script>{MEASURE}</body>"
    );
    let measured = html.replacen("</body>", &tail, 1);
    assert_ne!(measured, html, "the page has no </body>");
    let dir = page.parent().unwrap();
    let copy = dir.join(format!("measured-{width}.html"));
    std::fs::write(&copy, measured).unwrap();
    let size = format!("--window-size={width},900");
    let dom = crate::chromium::dump_dom(
        &dir.join("chromium"),
        &["--hide-scrollbars", &size],
        &format!("file://{}", copy.display()),
        &format!("{} (laid out)", page.display()),
    )?;
    let json =
        crate::chromium::written_into(&dom, "<pre id=\"layout-result\" style=\"display: none;\">");
    let v: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    assert_eq!(v["rendered"], "yes", "the page's script did not finish");
    assert_eq!(v["window"], width, "the window is not {width} wide: {v}");
    Some(v)
}

/// The elements of `sel` whose content is wider than what they show.
fn overflowing(v: &Value, sel: &str) -> Vec<String> {
    v["elements"][sel]
        .as_array()
        .unwrap_or_else(|| panic!("no {sel}"))
        .iter()
        .enumerate()
        .filter(|(_, e)| e["content"].as_f64().unwrap() > e["shown"].as_f64().unwrap() + 1.0)
        .map(|(i, e)| format!("{sel} #{i}: {e}"))
        .collect()
}

#[test]
fn the_adaptive_timeline_page_is_no_wider_than_the_window() {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/bench");
    let page = scratch("layout_adaptive").join("timeline.html");
    let r = run_vm_in(
        &bench,
        &[
            "run",
            "static_calls.bc",
            "--adaptive",
            "--print-compilation=1",
            "--clock=virtual",
            "--seed=5",
            &format!("--html={}", page.display()),
        ],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    // Before, the page was 1,021 px wide at any window width (the axis
    // 1,000 px, the table's unwrapped cells 978).
    for width in [800, 1280] {
        let Some(v) = layout(&page, width, &["#axis", ".scroll"]) else {
            return;
        };
        let (page_w, window) = (v["page"].as_f64().unwrap(), f64::from(width));
        assert!(
            page_w <= window,
            "the page is {page_w} px wide in a {window} px window"
        );
        // A wide window shows the whole table; a narrow one scrolls it in
        // its own box.
        if width >= 1280 {
            assert_eq!(overflowing(&v, ".scroll"), Vec::<String>::new());
        }
        let axis = &v["elements"]["#axis"][0];
        assert!(axis["shown"].as_f64().unwrap() > 0.0, "no time axis: {v}");
    }
}

#[test]
fn the_inline_pages_columns_show_their_whole_text() {
    let dir = scratch("layout_inline");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // richards: a deep inlining tree, whose lines are long.
    let page = dir.join("richards.html");
    let r = vm(&[
        "inline",
        root.join("programs/awfy/richards.bc").to_str().unwrap(),
        "--seed=1",
        &format!("--html={}", page.display()),
    ]);
    r.assert_status(0);
    let text = std::fs::read_to_string(&page).unwrap();
    // A tree line longer than its column could show unwrapped.
    let longest = text
        .split("\"tree\":[")
        .nth(1)
        .and_then(|t| t.split(']').next())
        .map_or(0, |t| t.split("\",\"").map(str::len).max().unwrap_or(0));
    assert!(longest > 60, "richards's tree has no long line ({longest})");
    for width in [1280, 1600] {
        let Some(v) = layout(&page, width, &["#tree", "#tree .line", "main"]) else {
            return;
        };
        let (page_w, window) = (v["page"].as_f64().unwrap(), f64::from(width));
        assert!(
            page_w <= window,
            "the page is {page_w} px wide in a {window} px window"
        );
        assert_eq!(overflowing(&v, "#tree"), Vec::<String>::new(), "at {width}");
        assert_eq!(
            overflowing(&v, "#tree .line"),
            Vec::<String>::new(),
            "at {width}"
        );
        assert_eq!(overflowing(&v, "main"), Vec::<String>::new(), "at {width}");
        let lines = v["elements"]["#tree .line"].as_array().unwrap().len();
        assert!(lines > 10, "the tree has {lines} lines");
    }
}
