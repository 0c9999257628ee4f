//! Points, lines and steps on two value axes, and the Pareto front of a
//! cost-against-benefit scatter (the points no other point beats on both:
//! none has less x and more y).

use super::frame::{self, Area, Entry, Mark, TICK};
use super::scale::{self, Ticks};
use super::svg::{line_height, text_width, Anchor, Svg, Text};
use super::{colour, Style, Xy};

/// Draws `p` into `area`.
pub fn draw(s: &mut Svg, p: &Xy, area: Area) {
    let mut entries: Vec<Entry> = p
        .series
        .iter()
        .enumerate()
        .map(|(j, x)| {
            let mark = if x.style == Style::Points {
                Mark::Dot
            } else {
                Mark::Line
            };
            (x.name.clone(), colour::series(j).to_string(), mark)
        })
        .collect();
    if p.pareto {
        entries.push(("Pareto front".into(), "#000".into(), Mark::Front));
    }
    let top = frame::head(s, area, &p.title, &entries);
    let xs = p.series.iter().flat_map(|x| {
        let end = match x.style {
            Style::Steps { end } => Some(end),
            _ => None,
        };
        x.points.iter().map(|q| q.0).chain(end)
    });
    let tx: Ticks = scale::ticks(p.x.scale, xs);
    let ty: Ticks = scale::ticks(
        p.y.scale,
        p.series.iter().flat_map(|x| x.points.iter().map(|q| q.1)),
    );
    let rough_h = area.bottom() - top - 100.0;
    let left = area.x
        + 12.0
        + frame::vertical_title_width(&p.y.title, rough_h)
        + frame::tick_width(&ty)
        + 16.0;
    let last_tick = tx
        .ticks
        .last()
        .map_or(0.0, |t| text_width(&t.1, TICK) / 2.0);
    let plot = Area {
        x: left,
        y: top,
        w: area.right() - 20.0 - last_tick - left,
        h: area.bottom() - 10.0 - 32.0 - line_height(TICK) - 10.0 - top,
    };
    frame::draw_vertical_title(s, &p.y.title, area.x + 14.0, plot);
    frame::y_axis(s, &ty, &p.y, plot);
    frame::x_axis(s, &tx, plot);
    let at = |(x, y): (f64, f64)| {
        (
            plot.x + tx.frac(x) * plot.w,
            plot.bottom() - ty.frac(y) * plot.h,
        )
    };
    for (j, series) in p.series.iter().enumerate() {
        let c = colour::series(j);
        let path: Vec<(f64, f64)> = match series.style {
            Style::Line => series.points.iter().map(|&q| at(q)).collect(),
            Style::Steps { end } => series
                .points
                .iter()
                .enumerate()
                .flat_map(|(i, &(x, y))| {
                    let next = series.points.get(i + 1).map_or(end, |q| q.0);
                    [at((x, y)), at((next, y))]
                })
                .collect(),
            Style::Points => Vec::new(),
        };
        if path.len() > 1 {
            s.polyline(&path, c, 2.5, false, "line");
        }
        let r = if series.style == Style::Points {
            6.0
        } else {
            4.0
        };
        for &q in &series.points {
            s.circle(at(q), r, c, false, "mark");
        }
    }
    if p.pareto {
        front(s, p, plot, &at);
    }
    frame::plot_frame(s, plot);
    let title_at = (
        plot.x + plot.w / 2.0,
        plot.bottom() + 8.0 + line_height(TICK) + 22.0,
    );
    s.text(
        &Text::new(&p.x.title, title_at, frame::AXIS_TITLE, "axis-title").anchor(Anchor::Middle),
    );
}

/// The Pareto front of `points` (x to minimise, y to maximise): the
/// indices of the points no other point beats, by increasing x.
pub fn pareto(points: &[(f64, f64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len())
        .filter(|&i| points[i].0.is_finite() && points[i].1.is_finite())
        .collect();
    order.sort_by(|&a, &b| {
        points[a]
            .0
            .total_cmp(&points[b].0)
            .then(points[b].1.total_cmp(&points[a].1))
    });
    let mut best = f64::NEG_INFINITY;
    let mut front = Vec::new();
    for i in order {
        if points[i].1 > best {
            best = points[i].1;
            front.push(i);
        }
    }
    front
}

/// Marks the front of every point of `p`: a dashed line through it,
/// rings, and each point's label where it fits without covering another.
fn front(s: &mut Svg, p: &Xy, plot: Area, at: &dyn Fn((f64, f64)) -> (f64, f64)) {
    let mut all = Vec::new();
    let mut names = Vec::new();
    for x in &p.series {
        for (i, &q) in x.points.iter().enumerate() {
            all.push(q);
            names.push(x.labels.get(i).cloned().unwrap_or_else(|| x.name.clone()));
        }
    }
    let idx = pareto(&all);
    let path: Vec<(f64, f64)> = idx.iter().map(|&i| at(all[i])).collect();
    if path.len() > 1 {
        s.polyline(&path, "#000", 2.0, true, "front");
    }
    let mut taken: Vec<(f64, f64, f64, f64)> = Vec::new();
    for &i in &idx {
        let c = at(all[i]);
        s.circle(c, 9.0, "#000", true, "mark");
        let size = 16.0;
        let (w, h) = (text_width(&names[i], size), line_height(size));
        let tries = [
            (c.0 + 12.0, c.1, Anchor::Start, (c.0 + 12.0, c.1 - h / 2.0)),
            (
                c.0 - 12.0,
                c.1,
                Anchor::End,
                (c.0 - 12.0 - w, c.1 - h / 2.0),
            ),
            (
                c.0,
                c.1 - 14.0 - h / 2.0,
                Anchor::Middle,
                (c.0 - w / 2.0, c.1 - 14.0 - h),
            ),
            (
                c.0,
                c.1 + 14.0 + h / 2.0,
                Anchor::Middle,
                (c.0 - w / 2.0, c.1 + 14.0),
            ),
        ];
        for (x, y, anchor, (bx, by)) in tries {
            let b = (bx, by, w, h);
            let inside = bx >= plot.x + 2.0
                && by >= plot.y + 2.0
                && bx + w <= plot.right() - 2.0
                && by + h <= plot.bottom() - 2.0;
            let clear = taken.iter().all(|t| !overlap(*t, b))
                && path
                    .iter()
                    .all(|m| !overlap((m.0 - 9.0, m.1 - 9.0, 18.0, 18.0), b));
            if inside && clear {
                s.text(&Text::new(&names[i], (x, y), size, "label").anchor(anchor));
                taken.push(b);
                break;
            }
        }
    }
}

/// Whether two `(x, y, w, h)` boxes overlap.
fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_front_is_the_points_nothing_beats() {
        // (cost, accuracy): (2, 50) is beaten by (1, 60); (3, 90) is not.
        let pts = [
            (1.0, 60.0),
            (2.0, 50.0),
            (3.0, 90.0),
            (3.0, 70.0),
            (5.0, 95.0),
            (6.0, 95.0),
        ];
        assert_eq!(pareto(&pts), vec![0, 2, 4]);
        assert_eq!(pareto(&[]), Vec::<usize>::new());
    }
}
