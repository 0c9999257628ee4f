//! Box plots: per group, one box per series, drawn where grouped bars
//! would stand (the same axis, slots and group labels as [`super::bars`]):
//! the box from the lower to the upper quartile, a line at the median,
//! whiskers to the two outer quantiles the caller chose (Hofer et al.
//! 2015, Figure 11: the 2.5th and 97.5th percentiles).

use super::bars::{group_labels, labels};
use super::frame::{self, Area, Entry, Mark};
use super::scale::{self, Ticks};
use super::svg::{Anchor, Svg, Text};
use super::{colour, Boxes};

/// Draws `b` into `area`.
pub fn draw(s: &mut Svg, b: &Boxes, area: Area) {
    let entries: Vec<Entry> = b
        .series
        .iter()
        .enumerate()
        .map(|(j, x)| (x.name.clone(), colour::series(j).to_string(), Mark::Square))
        .collect();
    let top = frame::head(s, area, &b.title, &entries);
    let values = b
        .series
        .iter()
        .flat_map(|x| x.boxes.iter().flatten().flat_map(|f| [f.low, f.high]));
    let t: Ticks = scale::ticks(b.y.scale, values);
    let rough_h = area.bottom() - top - 120.0;
    let left = area.x
        + 12.0
        + frame::vertical_title_width(&b.y.title, rough_h)
        + frame::tick_width(&t)
        + 16.0;
    let right = area.right() - 20.0;
    let slot = (right - left) / b.groups.len().max(1) as f64;
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
    let y_of = |v: f64| plot.bottom() - t.frac(t.clamp(v)) * plot.h;
    let bw = 0.8 * slot / b.series.len().max(1) as f64;
    for (j, series) in b.series.iter().enumerate() {
        let fill = colour::series(j);
        for (i, f) in series.boxes.iter().enumerate() {
            let Some(f) = f else { continue };
            let x0 = plot.x + (i as f64 + 0.1) * slot + j as f64 * bw;
            let (w, mid) = (bw * 0.8, x0 + bw * 0.4);
            let (q1, q3) = (y_of(f.q1), y_of(f.q3));
            s.line((mid, y_of(f.low)), (mid, q1), "#000", "whisker");
            s.line((mid, q3), (mid, y_of(f.high)), "#000", "whisker");
            for end in [f.low, f.high] {
                let y = y_of(end);
                s.line((mid - w / 4.0, y), (mid + w / 4.0, y), "#000", "whisker");
            }
            // At least 6 pixels tall about the median, so that a box of
            // equal quartiles still shows its colour.
            let m = y_of(f.median);
            let (top, bottom) = (q3.min(m - 3.0), q1.max(m + 3.0));
            s.rect((x0, top, w, bottom - top), fill, "bar");
            s.line((x0, m), (x0 + w, m), "#000", "median");
        }
    }
    frame::plot_frame(s, plot);
    group_labels(s, &lab, plot, slot);
    if !b.x_title.is_empty() {
        let at = (plot.x + plot.w / 2.0, plot.bottom() + lab.height + 18.0);
        s.text(&Text::new(&b.x_title, at, frame::AXIS_TITLE, "axis-title").anchor(Anchor::Middle));
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Axis, BoxSeries, BoxStats, Boxes};
    use super::*;

    /// The lines of the SVG drawing a `tag` of class `class`.
    fn attrs<'a>(svg: &'a str, tag: &str, class: &str) -> Vec<&'a str> {
        svg.lines()
            .filter(|l| {
                l.starts_with(&format!("<{tag}")) && l.contains(&format!("class=\"{class}\""))
            })
            .collect()
    }

    #[test]
    fn a_box_spans_its_quartiles_and_a_missing_one_is_not_drawn() {
        let f = BoxStats {
            low: 1.0,
            q1: 20.0,
            median: 50.0,
            q3: 80.0,
            high: 100.0,
        };
        let b = Boxes {
            title: "t".into(),
            x_title: String::new(),
            y: Axis::fixed("y", 0.0, 100.0),
            groups: vec!["a".into(), "b".into()],
            series: vec![BoxSeries {
                name: "s".into(),
                boxes: vec![Some(f), None],
            }],
        };
        let mut s = Svg::new(800.0, 600.0);
        draw(
            &mut s,
            &b,
            Area {
                x: 0.0,
                y: 0.0,
                w: 800.0,
                h: 600.0,
            },
        );
        let svg = s.finish();
        let boxes = attrs(&svg, "rect", "bar");
        assert_eq!(boxes.len(), 1, "{svg}");
        assert_eq!(attrs(&svg, "line", "median").len(), 1);
        // Two whiskers and their two caps.
        assert_eq!(attrs(&svg, "line", "whisker").len(), 4);
        // The box is 60% of the axis tall, as q3 - q1 is of 0-100.
        let num = |l: &str, k: &str| -> f64 {
            let at = l.find(&format!(" {k}=\"")).unwrap() + k.len() + 3;
            l[at..].split('"').next().unwrap().parse().unwrap()
        };
        let frame = attrs(&svg, "rect", "plot-area")[0];
        let ratio = num(boxes[0], "height") / num(frame, "height");
        assert!((ratio - 0.6).abs() < 0.01, "{ratio}");
    }
}
