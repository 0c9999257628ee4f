//! Grouped bars with optional whiskers, group labels under the groups:
//! side by side when they fit, else turned 45 or 90 degrees about their
//! right end so that each ends under its own group.

use super::frame::{self, Area, Entry, Mark, SMALLEST, TICK};
use super::scale::{self, Ticks};
use super::svg::{line_height, text_width, Anchor, Svg, Text};
use super::{colour, Bars};

/// How the group labels are set.
pub(super) struct Labels {
    /// Turn in degrees (0, 45, 90).
    turn: f64,
    /// Font size.
    size: f64,
    /// The labels, shortened if even the smallest size is too long.
    text: Vec<String>,
    /// The height they take under the axis.
    pub(super) height: f64,
}

/// `s` cut to at most `width` at `size`, with an ellipsis if cut.
fn shorten(s: &str, size: f64, width: f64) -> String {
    if text_width(s, size) <= width {
        return s.to_string();
    }
    let mut out: String = s.to_string();
    while !out.is_empty() && text_width(&format!("{out}…"), size) > width {
        out.pop();
    }
    format!("{out}…")
}

/// Chooses how to set `groups` in slots `slot` wide, using at most
/// `room` pixels of height.
pub(super) fn labels(groups: &[String], slot: f64, room: f64) -> Labels {
    let widest = |size: f64| {
        groups
            .iter()
            .map(|g| text_width(g, size))
            .fold(0.0, f64::max)
    };
    if widest(TICK) <= slot - 8.0 {
        return Labels {
            turn: 0.0,
            size: TICK,
            text: groups.to_vec(),
            height: line_height(TICK) + 6.0,
        };
    }
    // Turned labels: 45 degrees while neighbours stay a line apart.
    let (turn, size): (f64, f64) = if slot * std::f64::consts::FRAC_1_SQRT_2 >= line_height(TICK) {
        (45.0, TICK)
    } else {
        (90.0, (slot / 1.25).clamp(SMALLEST.min(slot / 1.17), TICK))
    };
    let (sin, cos) = (turn.to_radians().sin(), turn.to_radians().cos());
    let extent = |w: f64, size: f64| w * sin + line_height(size) * cos;
    let mut size = size;
    if extent(widest(size), size) > room {
        size = (size * room / extent(widest(size), size)).max(SMALLEST.min(size));
    }
    let longest = (room - line_height(size) * cos) / sin;
    let text: Vec<String> = groups.iter().map(|g| shorten(g, size, longest)).collect();
    let w = text.iter().map(|g| text_width(g, size)).fold(0.0, f64::max);
    Labels {
        turn,
        size,
        height: extent(w, size) + 10.0,
        text,
    }
}

/// Draws `b` into `area`.
pub fn draw(s: &mut Svg, b: &Bars, area: Area) {
    let entries: Vec<Entry> = if b.series.len() > 1 || b.series.iter().any(|x| !x.name.is_empty()) {
        b.series
            .iter()
            .enumerate()
            .map(|(j, x)| (x.name.clone(), colour::series(j).to_string(), Mark::Square))
            .collect()
    } else {
        Vec::new()
    };
    let top = frame::head(s, area, &b.title, &entries);
    let values = b.series.iter().flat_map(|x| {
        x.bars.iter().flat_map(|bar| {
            let (lo, hi) = bar.spread.unwrap_or((bar.value, bar.value));
            [bar.value, lo, hi]
        })
    });
    let t: Ticks = scale::ticks(b.y.scale, values);
    let rough_h = area.bottom() - top - 120.0;
    let left = area.x
        + 12.0
        + frame::vertical_title_width(&b.y.title, rough_h)
        + frame::tick_width(&t)
        + 16.0;
    let right = area.right() - 20.0;
    let n = b.groups.len().max(1);
    let slot = (right - left) / n as f64;
    let x_title = if b.x_title.is_empty() { 0.0 } else { 32.0 };
    let lab = labels(&b.groups, slot, (area.h * 0.35).max(40.0));
    let plot = Area {
        x: left,
        y: top,
        w: right - left,
        h: (area.bottom() - 8.0 - x_title - lab.height - top).max(40.0),
    };
    frame::draw_vertical_title(s, &b.y.title, area.x + 14.0, plot);
    frame::y_axis(s, &t, &b.y, plot);
    let y_of = |v: f64| plot.bottom() - t.frac(v) * plot.h;
    let base = y_of(t.clamp(0.0));
    let k = b.series.len().max(1);
    let bw = 0.8 * slot / k as f64;
    for (j, series) in b.series.iter().enumerate() {
        let fill = colour::series(j);
        for (i, bar) in series
            .bars
            .iter()
            .enumerate()
            .filter(|(_, x)| x.value.is_finite())
        {
            let x0 = plot.x + (i as f64 + 0.1) * slot + j as f64 * bw;
            let y = y_of(bar.value);
            s.rect((x0, y.min(base), bw * 0.92, (y - base).abs()), fill, "bar");
            if let Some((lo, hi)) = bar.spread {
                let mid = x0 + bw * 0.46;
                let (l, r) = (mid - bw * 0.25, mid + bw * 0.25);
                let (ylo, yhi) = (y_of(lo), y_of(hi));
                s.line((mid, ylo), (mid, yhi), "#000", "whisker");
                s.line((l, ylo), (r, ylo), "#000", "whisker");
                s.line((l, yhi), (r, yhi), "#000", "whisker");
            }
        }
    }
    if t.lo < 0.0 {
        s.line((plot.x, base), (plot.right(), base), "#000", "zero");
    }
    frame::plot_frame(s, plot);
    group_labels(s, &lab, plot, slot);
    if !b.x_title.is_empty() {
        let at = (plot.x + plot.w / 2.0, plot.bottom() + lab.height + 18.0);
        s.text(&Text::new(&b.x_title, at, frame::AXIS_TITLE, "axis-title").anchor(Anchor::Middle));
    }
}

/// Writes the group labels under `plot`.
pub(super) fn group_labels(s: &mut Svg, lab: &Labels, plot: Area, slot: f64) {
    s.open("axis x", "");
    for (i, g) in lab.text.iter().enumerate() {
        let cx = plot.x + (i as f64 + 0.5) * slot;
        let t = if lab.turn == 0.0 {
            let at = (cx, plot.bottom() + 6.0 + line_height(lab.size) / 2.0);
            Text::new(g, at, lab.size, "label").anchor(Anchor::Middle)
        } else {
            // Turned about its right end, which sits just under the tick.
            let at = (cx + lab.size * 0.3, plot.bottom() + 8.0);
            Text::new(g, at, lab.size, "label")
                .anchor(Anchor::End)
                .turn(lab.turn)
        };
        s.text(&t);
    }
    s.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_turn_only_when_they_do_not_fit() {
        let short = vec!["a".to_string(), "b".to_string()];
        assert_eq!(labels(&short, 100.0, 200.0).turn, 0.0);
        let long = vec!["mandelbrot".to_string(); 13];
        assert_eq!(labels(&long, 60.0, 200.0).turn, 45.0);
        assert_eq!(labels(&long, 20.0, 200.0).turn, 90.0);
    }

    #[test]
    fn labels_too_long_for_the_room_are_shortened() {
        let long = vec!["a very long name of a method in a class".to_string()];
        let l = labels(&long, 30.0, 80.0);
        assert!(l.text[0].ends_with('…'));
        assert!(l.height <= 80.0 + 10.0 + 1e-9, "{}", l.height);
    }
}
