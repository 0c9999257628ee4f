//! The figures pass a check, not a glance (docs/EXPERIMENTS.md): every SVG
//! an experiment writes (its `--quick` run, in `experiment.rs`) and every
//! committed one in `docs/experiments/` is rendered in headless Chromium,
//! and `figures.js` measures the rendered boxes: no two labels overlap, no
//! label is cut off by the figure's edge or covered by a bar, no legend
//! lies on a plotting area, an axis of a 0-100 measure or a correlation
//! stops at its maximum, no text is under 14 px, and the figure fits a
//! 1600 x 900 slide. Without Chromium the checks are skipped with a note,
//! as the other Chromium tests are.

use std::path::{Path, PathBuf};

use crate::harness::scratch;

/// The checker run in the page.
const SCRIPT: &str = include_str!("figures.js");

/// One figure's result: its name, texts and plotting areas checked, and
/// what is wrong with it.
#[derive(Debug)]
pub struct Checked {
    pub name: String,
    pub texts: u64,
    pub panels: u64,
    pub problems: Vec<String>,
}

/// Renders `svgs` (name, SVG text) on one page and returns what the check
/// found in each; `None` without Chromium.
pub fn check(tag: &str, svgs: &[(String, String)]) -> Option<Vec<Checked>> {
    let dir = scratch(&format!("figures-{tag}"));
    let mut page =
        String::from("<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body>\n");
    for (name, svg) in svgs {
        let body = svg.trim_start_matches(|c| c != '<');
        let body = body
            .strip_prefix("<?xml")
            .map_or(body, |r| &r[r.find("?>").map_or(0, |i| i + 2)..]);
        page.push_str(&format!(
            "<div class=\"figure\" data-name=\"{name}\">\n{body}\n</div>\n"
        ));
    }
    page.push_str("<pre id=\"result\"></pre>\n<script>\n");
    page.push_str(SCRIPT);
    page.push_str("\n</script></body></html>\n");
    let file = dir.join("figures.html");
    std::fs::write(&file, page).unwrap();
    let dom = crate::chromium::dump_dom(
        &dir.join("profile"),
        &[],
        &format!("file://{}", file.display()),
        &format!("the figures ({tag})"),
    )?;
    let json = crate::chromium::written_into(&dom, "<pre id=\"result\">");
    let v: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let figures = v["figures"].as_array().expect("figures");
    assert_eq!(figures.len(), svgs.len(), "every figure checked");
    Some(
        figures
            .iter()
            .map(|f| Checked {
                name: f["name"].as_str().unwrap_or("").to_string(),
                texts: f["texts"].as_u64().unwrap_or(0),
                panels: f["panels"].as_u64().unwrap_or(0),
                problems: f["problems"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|p| p.as_str().unwrap_or("").to_string())
                            .collect()
                    })
                    .unwrap_or_default(),
            })
            .collect(),
    )
}

/// Every `.svg` in `dir`, sorted, as (file name, text).
pub fn svgs_in(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(p).unwrap(),
            )
        })
        .collect()
}

/// Checks `svgs` and fails, listing every problem of every figure, if any
/// has one; each figure must have had labels and a plotting area to check.
pub fn assert_pass(tag: &str, svgs: &[(String, String)]) {
    let Some(results) = check(tag, svgs) else {
        return;
    };
    let mut bad = Vec::new();
    for r in &results {
        assert!(
            r.texts >= 5 && r.panels >= 1,
            "{}: nothing to check ({} texts, {} plotting areas)",
            r.name,
            r.texts,
            r.panels
        );
        for p in &r.problems {
            bad.push(format!("{}: {p}", r.name));
        }
    }
    assert!(
        bad.is_empty(),
        "{} problem(s):\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_committed_figures_pass_the_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/experiments");
    let svgs = svgs_in(&dir);
    assert!(
        svgs.len() >= 14,
        "fewer figures than experiments in {}",
        dir.display()
    );
    assert_pass("committed", &svgs);
}

/// A figure with every fault the check looks for: the check must name
/// each, so that it can fail.
#[test]
fn the_check_finds_every_fault_it_looks_for() {
    let bad = r##"<svg xmlns="http://www.w3.org/2000/svg" width="1700" height="900" viewBox="0 0 1700 900" font-family="DejaVu Sans">
<rect class="plot-area" x="100" y="100" width="800" height="600" fill="none" stroke="#000"/>
<rect class="bar" x="200" y="300" width="100" height="400" fill="#00f"/>
<text x="210" y="500" font-size="18">under a bar</text>
<text x="1000" y="50" font-size="18">one label</text>
<text x="1010" y="55" font-size="18">another label</text>
<text x="1690" y="300" font-size="18">cut off at the edge</text>
<text x="1000" y="400" font-size="9">tiny</text>
<g class="legend"><rect x="700" y="150" width="20" height="20" fill="#f00"/><text x="730" y="165" font-size="18">legend</text></g>
<g class="axis y" data-title="cct-overlap" data-max="100">
<line class="tick-mark" x1="94" y1="100" x2="100" y2="100" stroke="#000"/>
<text class="tick" x="90" y="700" font-size="18" text-anchor="end">0</text>
<text class="tick" x="90" y="220" font-size="18" text-anchor="end">100</text>
<text class="tick" x="90" y="100" font-size="18" text-anchor="end">120</text>
</g>
<g class="axis y" data-title="accuracy"><text class="tick" x="1200" y="700" font-size="18">0</text></g>
</svg>"##;
    let Some(r) = check("faults", &[("bad.svg".into(), bad.into())]) else {
        return;
    };
    let problems = r[0].problems.join("\n");
    for want in [
        "not within a 1600 x 900 slide",
        "labels \"one label\" and \"another label\" overlap",
        "\"cut off at the edge\" is cut off",
        "\"under a bar\" is covered by a bar",
        "\"tiny\" is set at 9 px",
        "a legend lies on a plotting area",
        "runs to 120, not to its maximum 100",
        "\"accuracy\" measures a bounded quantity but declares no maximum",
    ] {
        assert!(problems.contains(want), "missing {want:?} in:\n{problems}");
    }
}
