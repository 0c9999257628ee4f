//! The colours of the differential flame graph on one absolute scale, and
//! its legend.
//!
//! inferno colours a differential box by its difference over the largest
//! difference of the graph, so every graph has a box of the deepest colour:
//! a cbs profile off by 0.65 points was as deep a blue as a timer off by
//! 7.9 points was red, and two graphs could not be compared by eye. Here a
//! box's colour depends on its difference alone, in points of share (the
//! sample's share of all calls minus the reference's, as its tooltip says),
//! the deepest at [`FULL_SCALE_POINTS`] and beyond, and a legend under the
//! graph says so. The page of `vm report --format=html` shows the same SVG.

use std::fmt::Write;

/// The difference, in points of share, drawn in the deepest colour (and
/// any larger one too).
pub const FULL_SCALE_POINTS: f64 = 20.0;

/// Height added under the graph for the legend, in pixels.
const LEGEND_HEIGHT: u32 = 48;

/// The colour of a difference of `points` points of share: near white
/// for none, red the more the sample over-weights, blue the more it
/// under-weights (inferno's two hues), the deepest at
/// [`FULL_SCALE_POINTS`].
pub fn colour(points: f64) -> String {
    let depth = (points.abs() / FULL_SCALE_POINTS).min(1.0);
    let pale = (250.0 - 150.0 * depth).round() as u8;
    if points > 0.0 {
        format!("rgb(255,{pale},{pale})")
    } else if points < 0.0 {
        format!("rgb({pale},{pale},255)")
    } else {
        "rgb(250,250,250)".into()
    }
}

/// The difference a differential box's tooltip gives: the `+X.XX%` or
/// `-X.XX%` after the last `; ` of `title` (inferno writes
/// `NAME (N calls, P%; +D%)`), in points.
fn difference(title: &str) -> Option<f64> {
    let (_, tail) = title.rsplit_once("; ")?;
    tail.strip_suffix("%)")?.parse().ok()
}

/// `svg`, a differential flame graph drawn by inferno, with every box
/// recoloured on the absolute scale and a legend added under the graph.
pub fn rescale(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() + 2048);
    let mut rest = svg;
    // Each box is `<g><title>TITLE</title><rect ... fill="rgb(...)" .../>`.
    while let Some(at) = rest.find("<title>") {
        let (head, tail) = rest.split_at(at + "<title>".len());
        out.push_str(head);
        let Some(end) = tail.find("</title>") else {
            rest = tail;
            break;
        };
        let title = &tail[..end];
        let after = &tail[end..];
        match (difference(title), box_fill(after)) {
            (Some(points), Some((from, to))) => {
                out.push_str(&tail[..end]);
                out.push_str(&after[..from]);
                out.push_str(&colour(points));
                rest = &after[to..];
            }
            _ => {
                out.push_str(title);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    with_legend(&out)
}

/// Where the fill of the `<rect>` right after a `</title>` is, as byte
/// offsets of its value in `after`.
fn box_fill(after: &str) -> Option<(usize, usize)> {
    let rect = after.strip_prefix("</title><rect ")?;
    let end = rect.find("/>")?;
    let from = rect[..end].find("fill=\"")? + "fill=\"".len();
    let len = rect[from..end].find('"')?;
    let skip = after.len() - rect.len();
    Some((skip + from, skip + from + len))
}

/// `svg` made [`LEGEND_HEIGHT`] taller, the legend drawn in the new strip
/// at its bottom: a row of swatches from the deepest blue through white to
/// the deepest red, labelled in points.
fn with_legend(svg: &str) -> String {
    let Some(height) = attribute(svg, "<svg ", "height") else {
        return svg.to_string();
    };
    let Ok(old) = height.parse::<u32>() else {
        return svg.to_string();
    };
    let new = old + LEGEND_HEIGHT;
    let mut s = svg.replacen(
        &format!("height=\"{old}\""),
        &format!("height=\"{new}\""),
        1,
    );
    if let Some(view) = attribute(&s, "<svg ", "viewBox") {
        let grown: Vec<String> = view
            .split(' ')
            .enumerate()
            .map(|(i, v)| {
                if i == 3 {
                    new.to_string()
                } else {
                    v.to_string()
                }
            })
            .collect();
        s = s.replacen(
            &format!("viewBox=\"{view}\""),
            &format!("viewBox=\"{}\"", grown.join(" ")),
            1,
        );
    }
    let Some(close) = s.rfind("</svg>") else {
        return s;
    };
    s.insert_str(close, &legend(old + 4));
    s
}

/// The value of attribute `name` of the first element that starts with
/// `open`.
fn attribute<'a>(svg: &'a str, open: &str, name: &str) -> Option<&'a str> {
    let start = svg.find(open)?;
    let tag = &svg[start..start + svg[start..].find('>')?];
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = tag[at..].find('"')?;
    Some(&tag[at..at + len])
}

/// The legend, its top at `y`: a line of text, and under it the swatches
/// with their labels.
fn legend(y: u32) -> String {
    let steps: [f64; 9] = [-20.0, -15.0, -10.0, -5.0, 0.0, 5.0, 10.0, 15.0, 20.0];
    let mut g = format!(
        "<g id=\"legend\"><text x=\"10\" y=\"{}\" font-size=\"12\" font-family=\"Verdana\">\
         colour: the sample's share minus the reference's, in points (the same scale in every \
         graph; {FULL_SCALE_POINTS} and more at the deepest)</text>",
        y + 12
    );
    let top = y + 18;
    for (i, points) in steps.iter().enumerate() {
        let x = 10 + 52 * i as u32;
        let _ = write!(
            g,
            "<rect x=\"{x}\" y=\"{top}\" width=\"50\" height=\"12\" fill=\"{}\" stroke=\"#999\" \
             stroke-width=\"0.5\"/><text x=\"{}\" y=\"{}\" font-size=\"10\" \
             font-family=\"Verdana\" text-anchor=\"middle\">{}</text>",
            colour(*points),
            x + 25,
            top + 23,
            label(*points)
        );
    }
    g.push_str("</g>");
    g
}

/// A legend label: `-15`, `0`, `+5`, and `≤-20`, `≥+20` at the ends of
/// the scale (a larger difference is drawn as deep).
fn label(points: f64) -> String {
    if points <= -FULL_SCALE_POINTS {
        format!("≤{points}")
    } else if points >= FULL_SCALE_POINTS {
        format!("≥+{points}")
    } else if points > 0.0 {
        format!("+{points}")
    } else {
        format!("{points}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_colour_depends_on_the_difference_alone_in_points() {
        // cbs off by 0.65 points: nearly white; a timer off by 7.9: well
        // coloured; 20 and more: the deepest.
        assert_eq!(colour(-0.65), "rgb(245,245,255)");
        assert_eq!(colour(7.9), "rgb(255,191,191)");
        assert_eq!(colour(20.0), "rgb(255,100,100)");
        assert_eq!(colour(31.9), colour(20.0));
        assert_eq!(colour(-31.9), "rgb(100,100,255)");
        assert_eq!(colour(0.0), "rgb(250,250,250)");
    }

    #[test]
    fn boxes_are_recoloured_from_their_titles_and_a_legend_is_added() {
        let svg = "<svg version=\"1.1\" width=\"1200\" height=\"158\" viewBox=\"0 0 1200 158\">\
                   <g><title>call_1 (189 calls, 81.47%; +31.90%)</title><rect x=\"0\" y=\"61\" \
                   fill=\"rgb(255,100,100)\" fg:w=\"189\"/></g>\
                   <g><title>call_2 (42 calls, 18.10%; -0.65%)</title><rect x=\"1\" y=\"61\" \
                   fill=\"rgb(100,100,255)\" fg:w=\"42\"/></g>\
                   <g><title>all (232 calls, 100%)</title><rect x=\"0\" y=\"9\" \
                   fill=\"rgb(250,250,250)\"/></g></svg>";
        let out = rescale(svg);
        assert!(out.contains("+31.90%)</title><rect x=\"0\" y=\"61\" fill=\"rgb(255,100,100)\""));
        assert!(out.contains("-0.65%)</title><rect x=\"1\" y=\"61\" fill=\"rgb(245,245,255)\""));
        assert!(out.contains(
            "all (232 calls, 100%)</title><rect x=\"0\" y=\"9\" fill=\"rgb(250,250,250)\""
        ));
        assert!(out.contains("height=\"206\" viewBox=\"0 0 1200 206\""));
        assert!(out.contains("<g id=\"legend\">") && out.contains("in points"));
        assert!(
            out.contains(">≤-20</text>")
                && out.contains(">≥+20</text>")
                && out.contains(">+5</text>")
        );
        assert!(out.ends_with("</g></svg>"));
    }
}
