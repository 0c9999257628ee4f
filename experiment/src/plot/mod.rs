//! The figures, drawn as SVG by our own small writer ([`svg`]), sized for
//! a slide: 1600 x 900 pixels (16:9), fonts of 16 to 28 pixels. A
//! [`Figure`] is a title and panels in a grid; a figure with more rows of
//! panels than fit on a slide is split into files (`NAME.svg`,
//! `NAME-2.svg`, ...).
//!
//! What every figure guarantees, and `tests/e2e/figures.rs` checks in
//! headless Chromium from the rendered bounding boxes: no two labels
//! overlap, no label is cut off by the figure's edge or covered by a bar,
//! the legend sits outside the plotting area (above it), and an axis of a
//! 0-100 measure or a correlation stops at 100 or 1 ([`Scale`]). Group
//! labels that do not fit side by side are turned 45 or 90 degrees about
//! their end, so that each ends under its own group. Heat maps are
//! coloured on viridis with a colour bar ([`colour`]). Box plots
//! ([`Boxes`]) stand where grouped bars would. Error bars are the
//! caller's: [`Bar::from_runs`] draws them only from more than one
//! distinct value.

mod bars;
mod boxes;
pub mod colour;
mod frame;
mod heat;
pub mod scale;
pub mod svg;
mod xy;

use std::path::{Path, PathBuf};

pub use scale::{Axis, Scale};
pub use xy::pareto;

use crate::Error;

/// The slide: its width and height in pixels.
pub const WIDTH: f64 = 1600.0;
/// The slide's height (16:9).
pub const HEIGHT: f64 = 900.0;
/// Rows of panels on one slide.
const ROWS_PER_FILE: usize = 2;
/// Height of the figure's title band.
const TITLE_BAND: f64 = 56.0;

/// One bar: its value and, from more than one distinct run, its spread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    /// The height (`NaN`: no bar).
    pub value: f64,
    /// The whisker, low to high (quartiles, a range), if any.
    pub spread: Option<(f64, f64)>,
}

impl Bar {
    /// A bar without a whisker.
    pub fn of(value: f64) -> Bar {
        Bar {
            value,
            spread: None,
        }
    }

    /// The median of `runs`, with a whisker from the lower to the upper
    /// quartile only if the runs gave more than one distinct value (ten
    /// identical runs are one measurement, not a spread of zero).
    pub fn from_runs(runs: &[f64]) -> Bar {
        let v: Vec<f64> = runs.iter().copied().filter(|v| v.is_finite()).collect();
        let m = crate::stats::median(&v);
        let distinct = v.iter().any(|&x| (x - v[0]).abs() > 1e-12);
        Bar {
            value: m,
            spread: distinct.then(|| {
                (
                    crate::stats::quantile(&v, 0.25),
                    crate::stats::quantile(&v, 0.75),
                )
            }),
        }
    }
}

/// A named series of bars, one per group.
#[derive(Clone, Debug)]
pub struct BarSeries {
    /// The legend's name for it.
    pub name: String,
    /// One bar per group.
    pub bars: Vec<Bar>,
}

impl BarSeries {
    /// A series of plain bars (`NaN`: no bar).
    pub fn plain(name: impl Into<String>, values: &[f64]) -> BarSeries {
        BarSeries {
            name: name.into(),
            bars: values.iter().map(|&v| Bar::of(v)).collect(),
        }
    }
}

/// One named series of values, one per group (`NaN`: no bar).
pub type Series = (String, Vec<f64>);

/// Grouped bars: one group per entry of `groups`, one bar per series in
/// each.
#[derive(Clone, Debug)]
pub struct Bars {
    /// The panel's title.
    pub title: String,
    /// What the groups are (written under them; may be empty).
    pub x_title: String,
    /// The value axis.
    pub y: Axis,
    /// The groups, left to right.
    pub groups: Vec<String>,
    /// The series.
    pub series: Vec<BarSeries>,
}

impl Bars {
    /// A panel of plain bars from `(name, values)` series.
    pub fn new(title: impl Into<String>, y: Axis, groups: Vec<String>, series: &[Series]) -> Bars {
        Bars {
            title: title.into(),
            x_title: String::new(),
            y,
            groups,
            series: series
                .iter()
                .map(|(name, v)| BarSeries::plain(name.clone(), v))
                .collect(),
        }
    }
}

/// A table of numbers drawn as a grid of coloured cells, each with its
/// value, and a colour bar.
#[derive(Clone, Debug)]
pub struct Heat {
    /// The panel's title.
    pub title: String,
    /// The name of the rows' parameter.
    pub row_title: String,
    /// The name of the columns' parameter.
    pub col_title: String,
    /// Row labels, top to bottom.
    pub rows: Vec<String>,
    /// Column labels, left to right.
    pub cols: Vec<String>,
    /// `values[row][col]`; `None`: an empty cell.
    pub values: Vec<Vec<Option<f64>>>,
    /// The values the colours run between (dark to light).
    pub range: (f64, f64),
    /// What the colour bar measures.
    pub measure: String,
}

/// The five numbers of one box of a box plot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxStats {
    /// The lower whisker's end.
    pub low: f64,
    /// The lower quartile: the box's bottom.
    pub q1: f64,
    /// The median: the line across the box.
    pub median: f64,
    /// The upper quartile: the box's top.
    pub q3: f64,
    /// The upper whisker's end.
    pub high: f64,
}

/// A named series of boxes, one per group (`None`: no box).
#[derive(Clone, Debug)]
pub struct BoxSeries {
    /// The legend's name for it.
    pub name: String,
    /// One box per group.
    pub boxes: Vec<Option<BoxStats>>,
}

/// Box plots grouped as [`Bars`] are: one group per entry of `groups`,
/// one box per series in each.
#[derive(Clone, Debug)]
pub struct Boxes {
    /// The panel's title (say what the whiskers are).
    pub title: String,
    /// What the groups are (written under them; may be empty).
    pub x_title: String,
    /// The value axis.
    pub y: Axis,
    /// The groups, left to right.
    pub groups: Vec<String>,
    /// The series.
    pub series: Vec<BoxSeries>,
}

/// How an [`XySeries`] is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Style {
    /// A line through the points, points marked.
    Line,
    /// Steps: each value holds until the next point's x, the last one
    /// until `end`; points marked.
    Steps {
        /// The x the last value holds to.
        end: f64,
    },
    /// Points only.
    Points,
}

/// A named series of points.
#[derive(Clone, Debug)]
pub struct XySeries {
    /// The legend's name for it.
    pub name: String,
    /// The points, `(x, y)`.
    pub points: Vec<(f64, f64)>,
    /// A label per point (used on the Pareto front), or none.
    pub labels: Vec<String>,
    /// How it is drawn.
    pub style: Style,
}

/// Points and lines on two value axes; optionally the Pareto front of all
/// the points (least x for the most y: lower cost, higher accuracy)
/// marked and its points labelled.
#[derive(Clone, Debug)]
pub struct Xy {
    /// The panel's title.
    pub title: String,
    /// The horizontal axis.
    pub x: Axis,
    /// The vertical axis.
    pub y: Axis,
    /// The series.
    pub series: Vec<XySeries>,
    /// Mark the Pareto front (least x, most y).
    pub pareto: bool,
}

/// One panel of a figure.
#[derive(Clone, Debug)]
pub enum Panel {
    /// Grouped bars.
    Bars(Bars),
    /// Grouped box plots.
    Boxes(Boxes),
    /// A heat map.
    Heat(Heat),
    /// Lines, steps or points.
    Xy(Xy),
}

/// A figure: a title and panels, `columns` to a row, rows top to bottom.
#[derive(Clone, Debug)]
pub struct Figure {
    /// The title over every file of it.
    pub title: String,
    /// The panels.
    pub panels: Vec<Panel>,
    /// Panels side by side.
    pub columns: usize,
}

impl Figure {
    /// A figure of one panel.
    pub fn one(title: impl Into<String>, panel: Panel) -> Figure {
        Figure {
            title: title.into(),
            panels: vec![panel],
            columns: 1,
        }
    }

    /// The files it takes: `path` for the first two rows of panels,
    /// `STEM-2.svg` and on for the rest.
    pub fn files(&self, path: &Path) -> Vec<PathBuf> {
        let rows = self.panels.len().div_ceil(self.columns.max(1)).max(1);
        let n = rows.div_ceil(ROWS_PER_FILE);
        (0..n).map(|k| nth_file(path, k)).collect()
    }

    /// Writes the figure; returns the files written.
    pub fn write(&self, path: &Path) -> Result<Vec<PathBuf>, Error> {
        let cols = self.columns.max(1);
        let files = self.files(path);
        for (k, (file, (panels, rows))) in files.iter().zip(self.pages()).enumerate() {
            let title = if files.len() > 1 {
                format!("{} ({} of {})", self.title, k + 1, files.len())
            } else {
                self.title.clone()
            };
            let doc = draw_page(&title, panels, cols, rows);
            crate::write_file(file, &doc)?;
        }
        Ok(files)
    }

    /// The panels of each file and its rows: each file's own, so that a
    /// last file of one row fills its slide rather than half of it.
    fn pages(&self) -> Vec<(&[Panel], usize)> {
        let cols = self.columns.max(1);
        if self.panels.is_empty() {
            return vec![(&[], 1)];
        }
        self.panels
            .chunks(cols * ROWS_PER_FILE)
            .map(|c| (c, c.len().div_ceil(cols).clamp(1, ROWS_PER_FILE)))
            .collect()
    }
}

/// The `k`th file of a figure at `path` (0: `path` itself).
fn nth_file(path: &Path, k: usize) -> PathBuf {
    if k == 0 {
        return path.to_path_buf();
    }
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("figure");
    path.with_file_name(format!("{stem}-{}.svg", k + 1))
}

/// One slide: the title band, then `panels` in a grid of `cols` x `rows`.
fn draw_page(title: &str, panels: &[Panel], cols: usize, rows: usize) -> String {
    let mut s = svg::Svg::new(WIDTH, HEIGHT);
    frame::title(
        &mut s,
        title,
        (WIDTH / 2.0, TITLE_BAND / 2.0),
        WIDTH - 40.0,
        28.0,
        "title",
    );
    let (pw, ph) = (WIDTH / cols as f64, (HEIGHT - TITLE_BAND) / rows as f64);
    for (i, p) in panels.iter().enumerate() {
        let area = frame::Area {
            x: (i % cols) as f64 * pw,
            y: TITLE_BAND + (i / cols) as f64 * ph,
            w: pw,
            h: ph,
        };
        match p {
            Panel::Bars(b) => bars::draw(&mut s, b, area),
            Panel::Boxes(b) => boxes::draw(&mut s, b, area),
            Panel::Heat(h) => heat::draw(&mut s, h, area),
            Panel::Xy(x) => xy::draw(&mut s, x, area),
        }
    }
    s.finish()
}

/// Writes a figure of one panel at `path`.
pub fn one(path: &Path, title: &str, panel: Panel) -> Result<Vec<PathBuf>, Error> {
    Figure::one(title, panel).write(path)
}

/// A file name for Markdown: the name of `p` without its directory.
pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bars_only_from_distinct_runs() {
        assert_eq!(Bar::from_runs(&[5.0, 5.0, 5.0]).spread, None);
        let b = Bar::from_runs(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(b.value, 3.0);
        assert_eq!(b.spread, Some((2.0, 4.0)));
    }

    #[test]
    fn five_panels_in_two_columns_take_two_files() {
        let p = Panel::Bars(Bars::new("p", Axis::auto("y"), vec!["a".into()], &[]));
        let f = Figure {
            title: "t".into(),
            panels: vec![p; 5],
            columns: 2,
        };
        let files = f.files(Path::new("/x/NAME.svg"));
        assert_eq!(
            files,
            vec![PathBuf::from("/x/NAME.svg"), PathBuf::from("/x/NAME-2.svg")]
        );
        // Four panels in two rows, then one in a row of its own.
        let pages: Vec<(usize, usize)> = f.pages().iter().map(|(p, r)| (p.len(), *r)).collect();
        assert_eq!(pages, vec![(4, 2), (1, 1)]);
    }
}
