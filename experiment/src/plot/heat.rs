//! A heat map: a table of numbers as a grid of cells coloured on viridis,
//! each with its value written in black or white (whichever reads better
//! on its colour), and a colour bar with ticks on the right.

use super::frame::{self, Area, TICK};
use super::scale::{self, Scale};
use super::svg::{line_height, text_width, Anchor, Svg, Text};
use super::{colour, Heat};

/// The colour bar's width and the room right of it.
const BAR_W: f64 = 24.0;

/// Draws `h` into `area`.
pub fn draw(s: &mut Svg, h: &Heat, area: Area) {
    let top = frame::head(s, area, &h.title, &[]);
    let (nr, nc) = (h.rows.len().max(1), h.cols.len().max(1));
    let bar_ticks = scale::ticks(Scale::Fixed(h.range.0, h.range.1), [h.range.0, h.range.1]);
    let bar_room = 16.0
        + BAR_W
        + 10.0
        + frame::tick_width(&bar_ticks)
        + 8.0
        + line_height(frame::AXIS_TITLE)
        + 10.0;
    let row_w = h
        .rows
        .iter()
        .map(|r| text_width(r, TICK))
        .fold(0.0, f64::max);
    let rough_h = area.bottom() - top - 80.0;
    let left = area.x + 12.0 + frame::vertical_title_width(&h.row_title, rough_h) + row_w + 12.0;
    let right = area.right() - bar_room;
    let cw = (right - left) / nc as f64;
    let col_w = h
        .cols
        .iter()
        .map(|c| text_width(c, TICK))
        .fold(0.0, f64::max);
    let turn = col_w > cw - 6.0;
    let col_h = if turn {
        col_w + 12.0
    } else {
        line_height(TICK) + 8.0
    };
    let plot = Area {
        x: left,
        y: top,
        w: right - left,
        h: area.bottom() - 10.0 - 30.0 - col_h - top,
    };
    let ch = plot.h / nr as f64;
    frame::draw_vertical_title(s, &h.row_title, area.x + 14.0, plot);
    cells(s, h, plot, (cw, ch));
    frame::plot_frame(s, plot);
    s.open("axis y", "");
    for (r, label) in h.rows.iter().enumerate() {
        let at = (plot.x - 8.0, plot.y + (r as f64 + 0.5) * ch);
        s.text(&Text::new(label, at, TICK, "tick").anchor(Anchor::End));
    }
    s.close();
    s.open("axis x", "");
    for (c, label) in h.cols.iter().enumerate() {
        let cx = plot.x + (c as f64 + 0.5) * cw;
        let t = if turn {
            Text::new(label, (cx + TICK * 0.3, plot.bottom() + 8.0), TICK, "tick")
                .anchor(Anchor::End)
                .turn(90.0)
        } else {
            let at = (cx, plot.bottom() + 6.0 + line_height(TICK) / 2.0);
            Text::new(label, at, TICK, "tick").anchor(Anchor::Middle)
        };
        s.text(&t);
    }
    s.close();
    let at = (plot.x + plot.w / 2.0, plot.bottom() + col_h + 20.0);
    s.text(&Text::new(&h.col_title, at, frame::AXIS_TITLE, "axis-title").anchor(Anchor::Middle));
    colour_bar(
        s,
        h,
        &bar_ticks,
        Area {
            x: right + 16.0,
            y: plot.y,
            w: BAR_W,
            h: plot.h,
        },
    );
}

/// The cells, each a group of its rectangle and its value.
fn cells(s: &mut Svg, h: &Heat, plot: Area, (cw, ch): (f64, f64)) {
    let (lo, hi) = h.range;
    for (r, row) in h.values.iter().enumerate() {
        for (c, v) in row.iter().enumerate() {
            let (x, y) = (plot.x + c as f64 * cw, plot.y + r as f64 * ch);
            let Some(v) = v else {
                s.rect((x, y, cw, ch), "#f2f2f2", "empty-cell");
                continue;
            };
            let rgb = colour::viridis((v - lo) / (hi - lo));
            let text = format!("{v:.0}");
            let size = (ch * 0.55)
                .min(16.0)
                .min((cw - 6.0) / text_width(&text, 1.0));
            s.open("cell", "");
            s.rect((x, y, cw, ch), &colour::hex(rgb), "cell-fill");
            let at = (x + cw / 2.0, y + ch / 2.0);
            s.text(
                &Text::new(&text, at, size, "value")
                    .anchor(Anchor::Middle)
                    .fill(colour::ink_on(rgb)),
            );
            s.close();
        }
    }
}

/// The colour bar in `bar`: the scale from `lo` (bottom) to `hi` (top),
/// ticked, with the measure's name beside it.
fn colour_bar(s: &mut Svg, h: &Heat, t: &scale::Ticks, bar: Area) {
    const STEPS: usize = 64;
    s.open("colour-bar", "");
    for k in 0..STEPS {
        let f = (k as f64 + 0.5) / STEPS as f64;
        let y = bar.bottom() - (k + 1) as f64 * bar.h / STEPS as f64;
        s.rect(
            (bar.x, y, bar.w, bar.h / STEPS as f64 + 0.5),
            &colour::hex(colour::viridis(f)),
            "colour-step",
        );
    }
    s.frame(bar.tuple(), "#000", "colour-frame");
    for (v, label) in &t.ticks {
        let y = bar.bottom() - t.frac(*v) * bar.h;
        s.line(
            (bar.right(), y),
            (bar.right() + 5.0, y),
            "#000",
            "tick-mark",
        );
        s.text(&Text::new(label, (bar.right() + 8.0, y), TICK, "tick"));
    }
    s.close();
    let x = bar.right() + 8.0 + frame::tick_width(t) + 8.0 + line_height(frame::AXIS_TITLE) / 2.0;
    frame::draw_vertical_title(s, &h.measure, x, bar);
}
