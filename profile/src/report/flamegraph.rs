//! SVG flame graphs of the calling-context tree, drawn by the `inferno`
//! crate from the pruned tree's collapsed stacks: each box a context, as
//! wide as its total weight, its callees stacked on it.
//!
//! The differential flame graph ([`differential`]) weighs each context by
//! its *calls*, the weight `cct-overlap` compares (a timer sample's error
//! is in how often it thinks a call happens, not in where the time goes),
//! draws the sample's tree and colours each box by how its share differs
//! from the reference's (inferno's differential mode, the reference
//! normalized to the sample's total first): red where the sample
//! over-weights the context, blue where it under-weights it, the deeper
//! the colour the larger the difference, on one scale in points of share
//! for every graph, with a legend ([`super::diffscale`]).

use std::io;

use inferno::flamegraph::{self, Options};

use super::tree::Full;
use crate::Profile;

fn options(title: String, subtitle: String, count_name: &str, scripted: bool) -> Options<'static> {
    let mut o = Options::default();
    o.title = title;
    o.subtitle = Some(subtitle);
    o.count_name = count_name.to_string();
    o.deterministic = true;
    o.hash = true;
    o.no_javascript = !scripted;
    o
}

/// What a profile's weights count, for the tooltips.
fn unit(p: &Profile) -> &'static str {
    if p.config.profile == "exhaustive" {
        "instructions"
    } else {
        "samples"
    }
}

fn title(p: &Profile) -> String {
    format!("{} ({} profile)", p.program, p.config.profile)
}

/// The flame graph of `p` (which must have a `cct`) as SVG text, contexts
/// under `min_percent` of the total pruned into `(other)` boxes.
/// `scripted` keeps inferno's script (search, zoom): a standalone file
/// wants it, a page that holds several graphs does not.
pub fn svg(p: &Profile, min_percent: f64, scripted: bool) -> io::Result<Vec<u8>> {
    let cct = p.cct.as_deref().unwrap_or(&[]);
    let pruned = Full::new(cct).prune(min_percent);
    let (folded, divided) = fit(pruned.folded());
    let mut opt = options(
        title(p),
        format!(
            "box width: {} with the context on the stack; contexts under {min_percent}% in (other){}",
            unit(p),
            divided_note(divided)
        ),
        unit(p),
        scripted,
    );
    render(&mut opt, &folded)
}

/// The differential flame graph of the sample `p` against `reference`
/// (both with a `cct`), contexts weighted by calls: the sample's boxes,
/// red where it over-weights a context, blue where it under-weights it.
pub fn differential(
    p: &Profile,
    reference: &Profile,
    min_percent: f64,
    scripted: bool,
) -> io::Result<Vec<u8>> {
    let (before, _) = fit(Full::by_calls(reference.cct.as_deref().unwrap_or(&[]))
        .prune(min_percent)
        .folded());
    let (after, divided) = fit(Full::by_calls(p.cct.as_deref().unwrap_or(&[]))
        .prune(min_percent)
        .folded());
    let mut both = Vec::new();
    inferno::differential::from_readers(
        inferno::differential::Options {
            normalize: true,
            strip_hex: false,
        },
        before.as_bytes(),
        after.as_bytes(),
        &mut both,
    )?;
    let both = String::from_utf8_lossy(&both).into_owned();
    let mut opt = options(
        format!(
            "{}: {} profile against {}",
            p.program, p.config.profile, reference.config.profile
        ),
        format!(
            "box width: calls in the context and below, as sampled; red: the sample over-weights \
             the context, blue: under-weights it (scale below){}",
            divided_note(divided)
        ),
        "calls",
        scripted,
    );
    let svg = render(&mut opt, &both)?;
    if both.trim().is_empty() {
        return Ok(svg);
    }
    Ok(super::diffscale::rescale(&String::from_utf8_lossy(&svg)).into_bytes())
}

/// Folded lines whose counts inferno can add up: it sums them in a
/// `usize`, which two counts of 2^63 overflow. When their sum reaches
/// 2^62, every count is divided by one factor, returned: the boxes keep
/// their proportions, and the subtitle says that the counts the tooltips
/// show are divided ([`divided_note`]).
fn fit(folded: String) -> (String, Option<u128>) {
    fn split(l: &str) -> Option<(&str, u64)> {
        let (stack, n) = l.rsplit_once(' ')?;
        Some((stack, n.parse().ok()?))
    }
    let total = super::total(folded.lines().filter_map(|l| Some(split(l)?.1)));
    if total < 1 << 62 {
        return (folded, None);
    }
    let factor = total / (1 << 62) + 1;
    let mut out = String::with_capacity(folded.len());
    for (stack, n) in folded.lines().filter_map(split) {
        let n = u128::from(n) / factor;
        if n > 0 {
            out.push_str(&format!("{stack} {n}\n"));
        }
    }
    (out, Some(factor))
}

/// The subtitle's note on counts divided by [`fit`].
fn divided_note(divided: Option<u128>) -> String {
    divided.map_or(String::new(), |f| {
        format!(" (counts divided by {f}: their sum is past what the drawing adds up)")
    })
}

fn render(opt: &mut Options<'_>, folded: &str) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    if folded.trim().is_empty() {
        // inferno refuses an empty input; say so in a picture.
        out.extend_from_slice(
            br#"<?xml version="1.0" standalone="no"?>
<svg version="1.1" width="600" height="60" xmlns="http://www.w3.org/2000/svg"><text x="10" y="30" font-family="Verdana" font-size="14">no context has any weight: nothing to draw</text></svg>
"#,
        );
        return Ok(out);
    }
    flamegraph::from_lines(opt, folded.lines(), &mut out)?;
    if opt.no_javascript {
        // inferno keeps the call of its script when it leaves the script
        // out: a page would log `init is not defined` for every graph.
        let text = String::from_utf8_lossy(&out).replacen(" onload=\"init(evt)\"", "", 1);
        out = text.into_bytes();
    }
    Ok(out)
}
