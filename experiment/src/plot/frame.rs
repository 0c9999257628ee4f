//! What every panel has: a title, a legend above the plotting area, a
//! value axis with its ticks and title, and the plotting area's frame.

use super::scale::{Axis, Ticks};
use super::svg::{line_height, text_width, Anchor, Svg, Text};

/// Font sizes (pixels on a 1600-pixel-wide slide).
pub const PANEL_TITLE: f64 = 22.0;
/// Axis titles.
pub const AXIS_TITLE: f64 = 20.0;
/// Tick labels, group labels, legend entries.
pub const TICK: f64 = 18.0;
/// The smallest font any label is shrunk to.
pub const SMALLEST: f64 = 14.0;

/// A rectangle of the slide.
#[derive(Clone, Copy, Debug)]
pub struct Area {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Area {
    /// Right edge.
    pub fn right(&self) -> f64 {
        self.x + self.w
    }
    /// Bottom edge.
    pub fn bottom(&self) -> f64 {
        self.y + self.h
    }
    /// `(x, y, w, h)`.
    pub fn tuple(&self) -> (f64, f64, f64, f64) {
        (self.x, self.y, self.w, self.h)
    }
}

/// The font size at most `size` (and at least [`SMALLEST`]) at which
/// `text` fits in `width`.
pub fn fit(text: &str, size: f64, width: f64) -> f64 {
    let w = text_width(text, size);
    if w <= width {
        size
    } else {
        (size * width / w).max(SMALLEST)
    }
}

/// `text` in at most two lines of at most `width` at `size` (split at the
/// space nearest the middle), or one line if it fits.
pub fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    if text_width(text, size) <= width {
        return vec![text.to_string()];
    }
    let mid = text.len() / 2;
    let split = text
        .char_indices()
        .filter(|&(_, c)| c == ' ')
        .map(|(i, _)| i)
        .min_by_key(|&i| i.abs_diff(mid));
    match split {
        Some(i) => vec![text[..i].to_string(), text[i + 1..].to_string()],
        None => vec![text.to_string()],
    }
}

/// A title centred at `at`, shrunk to fit `width`, wrapped to two lines
/// if even the smallest size does not fit.
pub fn title(s: &mut Svg, text: &str, at: (f64, f64), width: f64, size: f64, class: &str) {
    let lines = if text_width(text, SMALLEST) > width {
        wrap(text, SMALLEST, width)
    } else {
        vec![text.to_string()]
    };
    let size = lines
        .iter()
        .map(|l| fit(l, size, width))
        .fold(size, f64::min);
    let step = line_height(size);
    let top = at.1 - step * (lines.len() as f64 - 1.0) / 2.0;
    for (i, l) in lines.iter().enumerate() {
        let t = Text::new(l, (at.0, top + step * i as f64), size, class).anchor(Anchor::Middle);
        s.text(&if class == "title" { t.bold() } else { t });
    }
}

/// How a legend entry is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A filled square (bars).
    Square,
    /// A short line with a dot (lines and steps).
    Line,
    /// A dot (points).
    Dot,
    /// A dashed line with a ring (the Pareto front).
    Front,
}

/// One legend entry: its name, colour and mark.
pub type Entry = (String, String, Mark);

const SWATCH: f64 = 26.0;
const ENTRY_GAP: f64 = 28.0;
const LEGEND_ROW: f64 = 28.0;

/// The rows of a legend of `entries` in `width` (entry indices per row).
fn legend_rows(entries: &[Entry], width: f64) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = Vec::new();
    let mut used = f64::INFINITY;
    for (i, e) in entries.iter().enumerate() {
        let w = SWATCH + 6.0 + text_width(&e.0, TICK);
        if used + ENTRY_GAP + w > width {
            rows.push(Vec::new());
            used = -ENTRY_GAP;
        }
        used += ENTRY_GAP + w;
        rows.last_mut().expect("a row").push(i);
    }
    rows
}

/// The height a legend of `entries` takes in `width` (0 for none).
pub fn legend_height(entries: &[Entry], width: f64) -> f64 {
    if entries.is_empty() {
        0.0
    } else {
        legend_rows(entries, width).len() as f64 * LEGEND_ROW + 6.0
    }
}

/// Draws a legend of `entries`, rows centred in `width` from `(x, y)`
/// (its top).
pub fn legend(s: &mut Svg, entries: &[Entry], (x, y): (f64, f64), width: f64) {
    if entries.is_empty() {
        return;
    }
    s.open("legend", "");
    for (r, row) in legend_rows(entries, width).iter().enumerate() {
        let total: f64 = row
            .iter()
            .map(|&i| SWATCH + 6.0 + text_width(&entries[i].0, TICK))
            .sum::<f64>()
            + ENTRY_GAP * (row.len() as f64 - 1.0);
        let mut cx = x + (width - total) / 2.0;
        let cy = y + LEGEND_ROW * (r as f64 + 0.5);
        for &i in row {
            let (name, colour, mark) = &entries[i];
            match mark {
                Mark::Square => s.rect((cx + 4.0, cy - 9.0, 18.0, 18.0), colour, "swatch"),
                Mark::Line => {
                    s.polyline(&[(cx, cy), (cx + SWATCH, cy)], colour, 3.0, false, "swatch");
                    s.circle((cx + SWATCH / 2.0, cy), 4.0, colour, false, "swatch");
                }
                Mark::Dot => s.circle((cx + SWATCH / 2.0, cy), 6.0, colour, false, "swatch"),
                Mark::Front => {
                    s.polyline(&[(cx, cy), (cx + SWATCH, cy)], colour, 2.0, true, "swatch");
                    s.circle((cx + SWATCH / 2.0, cy), 6.0, colour, true, "swatch");
                }
            }
            s.text(&Text::new(name, (cx + SWATCH + 6.0, cy), TICK, "legend"));
            cx += SWATCH + 6.0 + text_width(name, TICK) + ENTRY_GAP;
        }
    }
    s.close();
}

/// The width the tick labels of `t` take.
pub fn tick_width(t: &Ticks) -> f64 {
    t.ticks
        .iter()
        .map(|(_, l)| text_width(l, TICK))
        .fold(0.0, f64::max)
}

/// The lines of a vertical axis title of `text` along `height`, and its
/// font size.
pub fn vertical_title(text: &str, height: f64) -> (Vec<String>, f64) {
    let lines = wrap(text, AXIS_TITLE, height);
    let size = lines
        .iter()
        .map(|l| fit(l, AXIS_TITLE, height))
        .fold(AXIS_TITLE, f64::min);
    (lines, size)
}

/// The width a vertical axis title takes beside the ticks.
pub fn vertical_title_width(text: &str, height: f64) -> f64 {
    if text.is_empty() {
        return 0.0;
    }
    let (lines, size) = vertical_title(text, height);
    lines.len() as f64 * line_height(size) + 6.0
}

/// Draws a vertical axis title, turned 90 degrees, its first line's
/// middle at `x`, centred on `plot`'s height.
pub fn draw_vertical_title(s: &mut Svg, text: &str, x: f64, plot: Area) {
    if text.is_empty() {
        return;
    }
    let (lines, size) = vertical_title(text, plot.h);
    for (i, l) in lines.iter().enumerate() {
        let at = (x + line_height(size) * i as f64, plot.y + plot.h / 2.0);
        s.text(
            &Text::new(l, at, size, "axis-title")
                .anchor(Anchor::Middle)
                .turn(90.0),
        );
    }
}

/// Draws a value axis on the left of `plot`: grid lines, ticks, their
/// labels, in a group `axis y` that carries its title (`data-title`) and
/// the measure's maximum (`data-max`) when it has one.
pub fn y_axis(s: &mut Svg, t: &Ticks, axis: &Axis, plot: Area) {
    let mut attrs = format!(" data-title=\"{}\"", super::svg::escape(&axis.title));
    if let Some(b) = axis.scale.bound() {
        attrs.push_str(&format!(" data-max=\"{b}\""));
    }
    s.open("axis y", &attrs);
    for (v, label) in &t.ticks {
        let y = plot.bottom() - t.frac(*v) * plot.h;
        s.line((plot.x, y), (plot.right(), y), "#ddd", "grid");
        s.line((plot.x - 6.0, y), (plot.x, y), "#000", "tick-mark");
        s.text(&Text::new(label, (plot.x - 10.0, y), TICK, "tick").anchor(Anchor::End));
    }
    s.close();
}

/// Draws a value axis under `plot` (for x values): ticks and labels.
pub fn x_axis(s: &mut Svg, t: &Ticks, plot: Area) {
    s.open("axis x", "");
    for (v, label) in &t.ticks {
        let x = plot.x + t.frac(*v) * plot.w;
        s.line((x, plot.y), (x, plot.bottom()), "#eee", "grid");
        s.line(
            (x, plot.bottom()),
            (x, plot.bottom() + 6.0),
            "#000",
            "tick-mark",
        );
        let at = (x, plot.bottom() + 8.0 + TICK * 0.6);
        s.text(&Text::new(label, at, TICK, "tick").anchor(Anchor::Middle));
    }
    s.close();
}

/// The plotting area's frame (the test's reference for "inside the
/// plot").
pub fn plot_frame(s: &mut Svg, plot: Area) {
    s.frame(plot.tuple(), "#000", "plot-area");
}

/// The top part of a panel in `area`: its title and legend. Returns the
/// y where the plot may start.
pub fn head(s: &mut Svg, area: Area, text: &str, entries: &[Entry]) -> f64 {
    let mut y = area.y + 6.0;
    if !text.is_empty() {
        title(
            s,
            text,
            (area.x + area.w / 2.0, y + 16.0),
            area.w - 24.0,
            PANEL_TITLE,
            "panel-title",
        );
        y += 36.0;
    }
    legend(s, entries, (area.x + 12.0, y), area.w - 24.0);
    y + legend_height(entries, area.w - 24.0) + 8.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_title_wraps_at_a_space_near_the_middle() {
        let lines = wrap("one two three four", 20.0, 100.0);
        assert_eq!(lines, vec!["one two", "three four"]);
        assert_eq!(wrap("short", 20.0, 1000.0), vec!["short"]);
    }

    #[test]
    fn a_legend_wraps_into_rows() {
        let e: Vec<Entry> = (0..6)
            .map(|i| (format!("series number {i}"), "#000".into(), Mark::Square))
            .collect();
        assert_eq!(legend_rows(&e, 10_000.0).len(), 1);
        assert!(legend_rows(&e, 500.0).len() >= 3);
    }
}
