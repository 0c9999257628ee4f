//! The plots, drawn with `plotters` into SVG: grouped bars, a grid of
//! cells (a table drawn as a heat map), lines.

use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::Error;

/// Series colours, in order.
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

fn fail<E: std::fmt::Debug>(path: &Path) -> impl Fn(E) -> Error + '_ {
    move |e| {
        Error::Failed(format!(
            "vm experiment: cannot draw `{}`: {e:?}",
            path.display()
        ))
    }
}

/// The label of integer position `x` among `labels` (empty between them).
fn label_at(labels: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() > 1e-6 || i < 0.0 || i as usize >= labels.len() {
        return String::new();
    }
    labels[i as usize].clone()
}

/// The largest `f` of `panels`, at least 1 (the positions a set of panels
/// needs).
fn most<T>(panels: &[T], f: impl Fn(&T) -> usize) -> usize {
    panels.iter().map(f).max().unwrap_or(1).max(1)
}

/// The whole drawing: an SVG canvas of `size` at `path`, white, handed to
/// `draw`, then written.
fn svg<F>(path: &Path, size: (u32, u32), draw: F) -> Result<(), Error>
where
    F: FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), Error>,
{
    // Drawn in memory, then written whole (crate::write_file).
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(fail(path))?;
        draw(&root)?;
        root.present().map_err(fail(path))?;
    }
    crate::write_file(path, &text)
}

/// A chart on linear axes.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Bars of series `j` of `k`: the bar of `values[i]` in the group at `first
/// + i`, from `base` to the value (`NaN`: no bar), named in the legend.
fn bar_series(
    chart: &mut Chart,
    path: &Path,
    (j, k): (usize, usize),
    (first, base): (f64, f64),
    (name, values): (&str, &[f64]),
) -> Result<(), Error> {
    let color = PALETTE[j % PALETTE.len()];
    let w = 0.8 / k.max(1) as f64;
    let bars = values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .map(|(i, &v)| {
            let x0 = first + i as f64 - 0.4 + j as f64 * w;
            Rectangle::new([(x0, base), (x0 + w * 0.9, v)], color.filled())
        });
    chart
        .draw_series(bars)
        .map_err(fail(path))?
        .label(name)
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
    Ok(())
}

/// A line through `line` with `points` marked, named in the legend.
fn line_series<'a, 'b: 'a, CT>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    path: &Path,
    (name, color): (&str, RGBColor),
    line: Vec<(f64, f64)>,
    points: &[(f64, f64)],
) -> Result<(), Error>
where
    CT: CoordTranslate<From = (f64, f64)>,
{
    chart
        .draw_series(LineSeries::new(line, color.stroke_width(2)))
        .map_err(fail(path))?
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color));
    chart
        .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
        .map_err(fail(path))?;
    Ok(())
}

/// The legend of a chart's named series, at `position`.
fn legend<'a, 'b: 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    path: &Path,
    position: SeriesLabelPosition,
) -> Result<(), Error> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(fail(path))
}

/// One named series of values, one per group (`NaN`: no bar).
pub type Series = (String, Vec<f64>);

/// A y range for [`grouped_bars`] that holds every value of `series`,
/// with 0 in it and room above the tallest bar for the legend.
pub fn bar_range(series: &[Series]) -> (f64, f64) {
    let values = || series.iter().flat_map(|s| s.1.iter());
    let lo = values().fold(0f64, |a, &b| a.min(b));
    let hi = values().fold(1f64, |a, &b| a.max(b));
    (lo.min(0.0) - 2.0, hi * 1.3 + 2.0)
}

/// Grouped bars: one group per entry of `groups`, one bar per series in
/// each, a legend naming the series. `y` is the value axis's range.
pub fn grouped_bars(
    path: &Path,
    title: &str,
    y_desc: &str,
    groups: &[String],
    series: &[Series],
    y: (f64, f64),
) -> Result<(), Error> {
    let n = groups.len().max(1);
    let width = (160 + 70 * n as u32).max(640);
    // Long group names are written downwards, so that they do not overlap.
    let longest = groups.iter().map(|g| g.chars().count()).max().unwrap_or(0) as u32;
    let turn = longest * 7 > 70;
    let height = if turn { 420 + 7 * longest } else { 440 };
    let label_area = if turn { 20 + 7 * longest } else { 40 };
    let mut x_style = TextStyle::from(("sans-serif", 12).into_font());
    if turn {
        x_style = x_style.transform(FontTransform::Rotate90);
    }
    svg(path, (width, height), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(label_area)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), y.0..y.1)
            .map_err(fail(path))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_style(x_style)
            .x_label_formatter(&|x| label_at(groups, *x))
            .y_desc(y_desc)
            .draw()
            .map_err(fail(path))?;
        let base = 0f64.clamp(y.0, y.1);
        for (j, (name, values)) in series.iter().enumerate() {
            let bars = (name.as_str(), values.as_slice());
            bar_series(&mut chart, path, (j, series.len()), (0.0, base), bars)?;
        }
        legend(&mut chart, path, SeriesLabelPosition::UpperRight)
    })
}

/// One panel of [`bar_panels`]: a title, bars at positions 1..=n (one
/// per value of each series, `NaN`: no bar), and the value axis's range.
pub struct BarPanel {
    /// The panel's title.
    pub title: String,
    /// The series, each with one value per position.
    pub series: Vec<Series>,
    /// The value axis's range.
    pub y: (f64, f64),
}

/// Panels of grouped bars stacked top to bottom, positions numbered from
/// 1 on the x axis (`x_desc`), one legend per panel (Arnold & Sweeney's
/// Figures 1-5: the top edges, exact against sampled).
pub fn bar_panels(
    path: &Path,
    x_desc: &str,
    y_desc: &str,
    panels: &[BarPanel],
) -> Result<(), Error> {
    let n = most(panels, |p| {
        p.series.iter().map(|s| s.1.len()).max().unwrap_or(0)
    });
    let width = (160 + 22 * n as u32).max(640);
    let height = 250 * panels.len().max(1) as u32;
    svg(path, (width, height), |root| {
        let areas = root.split_evenly((panels.len().max(1), 1));
        for (panel, area) in panels.iter().zip(areas.iter()) {
            let mut chart = ChartBuilder::on(area)
                .caption(&panel.title, ("sans-serif", 14))
                .margin(8)
                .x_label_area_size(32)
                .y_label_area_size(52)
                .build_cartesian_2d(0.5f64..(n as f64 + 0.5), panel.y.0..panel.y.1)
                .map_err(fail(path))?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(n.min(20))
                .x_label_formatter(&|x| format!("{x:.0}"))
                .x_desc(x_desc)
                .y_desc(y_desc)
                .label_style(("sans-serif", 11))
                .draw()
                .map_err(fail(path))?;
            let base = 0f64.clamp(panel.y.0, panel.y.1);
            let k = panel.series.len();
            for (j, (name, values)) in panel.series.iter().enumerate() {
                let bars = (name.as_str(), values.as_slice());
                bar_series(&mut chart, path, (j, k), (1.0, base), bars)?;
            }
            legend(&mut chart, path, SeriesLabelPosition::UpperRight)?;
        }
        Ok(())
    })
}

/// A table of numbers drawn as a grid of shaded cells, each with its value.
pub struct Grid {
    /// The panel's title.
    pub title: String,
    /// The name of the rows' parameter.
    pub row_desc: String,
    /// The name of the columns' parameter.
    pub col_desc: String,
    /// Row labels, top to bottom.
    pub rows: Vec<String>,
    /// Column labels, left to right.
    pub cols: Vec<String>,
    /// `values[row][col]`; `None`: an empty cell.
    pub values: Vec<Vec<Option<f64>>>,
    /// The values the shading runs between (lightest to darkest).
    pub range: (f64, f64),
}

/// Grids side by side, one panel each (ours beside the paper's).
pub fn grids(path: &Path, panels: &[Grid]) -> Result<(), Error> {
    let cols = most(panels, |g| g.cols.len());
    let rows = most(panels, |g| g.rows.len());
    let pw = (110 + 48 * cols as u32).max(360);
    let ph = 120 + 28 * rows as u32;
    svg(path, (pw * panels.len().max(1) as u32, ph), |root| {
        let areas = root.split_evenly((1, panels.len().max(1)));
        for (g, area) in panels.iter().zip(areas.iter()) {
            grid(path, g, area)?;
        }
        Ok(())
    })
}

/// Draws one [`Grid`] into `area`.
fn grid(path: &Path, g: &Grid, area: &DrawingArea<SVGBackend, Shift>) -> Result<(), Error> {
    let (nr, nc) = (g.rows.len().max(1), g.cols.len().max(1));
    let mut chart = ChartBuilder::on(area)
        .caption(&g.title, ("sans-serif", 14))
        .margin(8)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(nc as f64 - 0.5), -0.5f64..(nr as f64 - 0.5))
        .map_err(fail(path))?;
    // Row 0 at the top.
    let row_labels: Vec<String> = g.rows.iter().rev().cloned().collect();
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(nc)
        .y_labels(nr)
        .x_label_formatter(&|x| label_at(&g.cols, *x))
        .y_label_formatter(&|y| label_at(&row_labels, *y))
        .x_desc(g.col_desc.as_str())
        .y_desc(g.row_desc.as_str())
        .label_style(("sans-serif", 11))
        .draw()
        .map_err(fail(path))?;
    let (lo, hi) = g.range;
    let mut cells = Vec::new();
    let mut texts = Vec::new();
    for (r, row) in g.values.iter().enumerate() {
        let y = (nr - 1 - r) as f64;
        for (c, v) in row.iter().enumerate() {
            let x = c as f64;
            let Some(v) = v else { continue };
            let t = ((v - lo) / (hi - lo)).clamp(0.0, 1.0);
            let shade = RGBColor(
                (255.0 - t * 200.0) as u8,
                (255.0 - t * 140.0) as u8,
                (255.0 - t * 40.0) as u8,
            );
            cells.push(Rectangle::new(
                [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                shade.filled(),
            ));
            let style = TextStyle::from(("sans-serif", 10).into_font())
                .pos(Pos::new(HPos::Center, VPos::Center))
                .color(if t > 0.6 { &WHITE } else { &BLACK });
            texts.push(Text::new(format!("{v:.0}"), (x, y), style));
        }
    }
    chart.draw_series(cells).map_err(fail(path))?;
    chart.draw_series(texts).map_err(fail(path))?;
    Ok(())
}

/// One named step line: its points, and the x its last value holds to.
pub type Steps = (String, Vec<(f64, f64)>, f64);

/// Step lines on a logarithmic y axis, one per series, points marked,
/// with a legend: each value holds until the next point's x, and the last
/// one until its series' `end` (a self-tuning interval over a run).
pub fn log_steps(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Steps],
    x: (f64, f64),
    y: (f64, f64),
) -> Result<(), Error> {
    // Twelve colours: a line per benchmark of the suite.
    const MORE: [RGBColor; 6] = [
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
        RGBColor(0, 0, 0),
        RGBColor(255, 187, 120),
    ];
    svg(path, (860, 500), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x.0..x.1, (y.0..y.1).log_scale())
            .map_err(fail(path))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()
            .map_err(fail(path))?;
        for (j, (name, points, end)) in series.iter().enumerate() {
            let color = match j % 12 {
                k if k < 6 => PALETTE[k],
                k => MORE[k - 6],
            };
            let mut steps = Vec::new();
            for (i, &(px, py)) in points.iter().enumerate() {
                let next = points.get(i + 1).map_or(*end, |p| p.0);
                steps.push((px, py));
                steps.push((next, py));
            }
            line_series(&mut chart, path, (name, color), steps, points)?;
        }
        legend(&mut chart, path, SeriesLabelPosition::MiddleRight)
    })
}

/// One named line: its points.
pub type Line = (String, Vec<(f64, f64)>);

/// Lines, one per series, with points marked and a legend.
pub fn lines(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Line],
    x: (f64, f64),
    y: (f64, f64),
) -> Result<(), Error> {
    svg(path, (760, 460), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)
            .map_err(fail(path))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()
            .map_err(fail(path))?;
        for (j, (name, points)) in series.iter().enumerate() {
            let color = PALETTE[j % PALETTE.len()];
            line_series(&mut chart, path, (name, color), points.clone(), points)?;
        }
        legend(&mut chart, path, SeriesLabelPosition::MiddleRight)
    })
}

/// One named series of bars with whiskers: per group `(value, low, high)`
/// (a median and its quartiles, say); a `NaN` value draws no bar, a `NaN`
/// low or high no whisker.
pub type WhiskerSeries = (String, Vec<(f64, f64, f64)>);

/// One panel of [`whisker_panels`]: grouped bars with whiskers.
pub struct WhiskerPanel {
    /// The panel's title.
    pub title: String,
    /// The value axis's description.
    pub y_desc: String,
    /// The groups, left to right.
    pub groups: Vec<String>,
    /// The series: one bar per group each.
    pub series: Vec<WhiskerSeries>,
    /// The value axis's range.
    pub y: (f64, f64),
}

impl WhiskerPanel {
    /// A panel whose value axis holds every bar and whisker
    /// ([`whisker_range`]).
    pub fn new(
        title: impl Into<String>,
        y_desc: impl Into<String>,
        groups: Vec<String>,
        series: Vec<WhiskerSeries>,
    ) -> WhiskerPanel {
        WhiskerPanel {
            title: title.into(),
            y_desc: y_desc.into(),
            groups,
            y: whisker_range(&series),
            series,
        }
    }

    /// The same panel with its value axis from 0 to `top` (a percentage
    /// and room for the legend).
    pub fn up_to(self, top: f64) -> WhiskerPanel {
        WhiskerPanel {
            y: (0.0, top),
            ..self
        }
    }
}

/// A y range for a [`WhiskerPanel`] that holds every bar and whisker, with
/// 0 in it and room above for the legend.
pub fn whisker_range(series: &[WhiskerSeries]) -> (f64, f64) {
    let values = || {
        series
            .iter()
            .flat_map(|s| s.1.iter().flat_map(|&(v, lo, hi)| [v, lo, hi]))
            .filter(|v| v.is_finite())
    };
    let lo = values().fold(0f64, f64::min);
    let hi = values().fold(1f64, f64::max);
    (lo.min(0.0) * 1.1 - 2.0, hi * 1.35 + 2.0)
}

/// Panels of grouped bars with whiskers, one above the other (the form of
/// the overhead and accuracy figures of Hofer et al. 2015).
pub fn whisker_panels(path: &Path, panels: &[WhiskerPanel]) -> Result<(), Error> {
    let n = most(panels, |p| p.groups.len());
    let width = (160 + 90 * n as u32).max(720);
    let ph = 380u32;
    svg(path, (width, ph * panels.len().max(1) as u32), |root| {
        let areas = root.split_evenly((panels.len().max(1), 1));
        for (p, area) in panels.iter().zip(areas.iter()) {
            whisker_panel(path, p, area)?;
        }
        Ok(())
    })
}

/// Draws one [`WhiskerPanel`] into `area`.
fn whisker_panel(
    path: &Path,
    p: &WhiskerPanel,
    area: &DrawingArea<SVGBackend, Shift>,
) -> Result<(), Error> {
    let n = p.groups.len().max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), p.y.0..p.y.1)
        .map_err(fail(path))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| label_at(&p.groups, *x))
        .y_desc(p.y_desc.as_str())
        .draw()
        .map_err(fail(path))?;
    let k = p.series.len();
    let w = 0.8 / k.max(1) as f64;
    let base = 0f64.clamp(p.y.0, p.y.1);
    let clamp = |v: f64| v.clamp(p.y.0, p.y.1);
    for (j, (name, values)) in p.series.iter().enumerate() {
        let bars: Vec<f64> = values
            .iter()
            .map(|v| {
                if v.0.is_finite() {
                    clamp(v.0)
                } else {
                    f64::NAN
                }
            })
            .collect();
        bar_series(&mut chart, path, (j, k), (0.0, base), (name, &bars))?;
        let x0 = |i: usize| i as f64 - 0.4 + j as f64 * w;
        let whiskers = values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.1.is_finite() && v.2.is_finite())
            .flat_map(|(i, v)| {
                let (l, r) = (x0(i) + w * 0.2, x0(i) + w * 0.7);
                let mid = x0(i) + w * 0.45;
                let (lo, hi) = (clamp(v.1), clamp(v.2));
                [
                    PathElement::new(vec![(mid, lo), (mid, hi)], BLACK),
                    PathElement::new(vec![(l, lo), (r, lo)], BLACK),
                    PathElement::new(vec![(l, hi), (r, hi)], BLACK),
                ]
            });
        chart.draw_series(whiskers).map_err(fail(path))?;
    }
    legend(&mut chart, path, SeriesLabelPosition::UpperRight)
}
