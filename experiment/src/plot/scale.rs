//! Value axes: where an axis starts and stops, its ticks, and how a value
//! maps to a pixel.
//!
//! A percentage of 0-100 stops at 100 and a correlation at 1, whatever the
//! data: their maximum is part of what the reader must see. Other axes
//! stop at the first "nice" tick (1, 2 or 5 times a power of ten) at or
//! above the largest value.

/// What a value axis measures, which sets its range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scale {
    /// Fitted to the values, 0 included.
    Auto,
    /// A 0-100 measure: the axis stops at 100.
    Percent,
    /// A correlation: the axis stops at 1.
    Correlation,
    /// Exactly this range.
    Fixed(f64, f64),
    /// Logarithmic, fitted to whole decades around the values.
    Log,
}

impl Scale {
    /// The largest value the measure can take (100, 1), if it has one.
    pub fn bound(self) -> Option<f64> {
        match self {
            Scale::Percent => Some(100.0),
            Scale::Correlation => Some(1.0),
            _ => None,
        }
    }
}

/// A value axis: its title and what it measures.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The title written along it.
    pub title: String,
    /// How its range is chosen.
    pub scale: Scale,
}

impl Axis {
    /// An axis fitted to the values.
    pub fn auto(title: impl Into<String>) -> Axis {
        Axis {
            title: title.into(),
            scale: Scale::Auto,
        }
    }

    /// A 0-100 axis.
    pub fn percent(title: impl Into<String>) -> Axis {
        Axis {
            title: title.into(),
            scale: Scale::Percent,
        }
    }

    /// A correlation axis, up to 1.
    pub fn correlation(title: impl Into<String>) -> Axis {
        Axis {
            title: title.into(),
            scale: Scale::Correlation,
        }
    }

    /// A logarithmic axis.
    pub fn log(title: impl Into<String>) -> Axis {
        Axis {
            title: title.into(),
            scale: Scale::Log,
        }
    }

    /// An axis from `lo` to `hi`.
    pub fn fixed(title: impl Into<String>, lo: f64, hi: f64) -> Axis {
        Axis {
            title: title.into(),
            scale: Scale::Fixed(lo, hi),
        }
    }
}

/// A laid-out axis: its range and ticks, linear or logarithmic.
#[derive(Clone, Debug)]
pub struct Ticks {
    /// The lowest value on the axis.
    pub lo: f64,
    /// The highest value on the axis.
    pub hi: f64,
    /// Where ticks go, with their labels.
    pub ticks: Vec<(f64, String)>,
    /// Logarithmic.
    pub log: bool,
}

impl Ticks {
    /// The position of `v` from 0 (at `lo`) to 1 (at `hi`), clamped.
    pub fn frac(&self, v: f64) -> f64 {
        let f = if self.log {
            (v.max(1e-300).log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        f.clamp(0.0, 1.0)
    }

    /// `v` clamped into the axis.
    pub fn clamp(&self, v: f64) -> f64 {
        v.clamp(self.lo, self.hi)
    }
}

/// 1, 2 or 5 times a power of ten, the smallest at or above `x`.
fn nice_step(x: f64) -> f64 {
    let p = 10f64.powf(x.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * p >= x * 0.999_999 {
            return m * p;
        }
    }
    10.0 * p
}

/// A tick label: as few decimals as the step needs to be exact.
pub fn label(v: f64, step: f64) -> String {
    let digits = (0..6)
        .find(|&d| {
            let x = step * 10f64.powi(d);
            (x - x.round()).abs() < 1e-6 * x.abs().max(1.0)
        })
        .unwrap_or(6) as usize;
    let s = format!("{v:.digits$}");
    if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
        s[1..].to_string()
    } else {
        s
    }
}

/// Linear ticks from `lo` to `hi` every `step`.
fn linear(lo: f64, hi: f64, step: f64) -> Ticks {
    let mut ticks = Vec::new();
    let mut k = (lo / step).round() as i64;
    while (k as f64) * step <= hi + step * 1e-6 {
        let v = k as f64 * step;
        ticks.push((v, label(v, step)));
        k += 1;
    }
    Ticks {
        lo,
        hi,
        ticks,
        log: false,
    }
}

/// The axis for `values` (non-finite ones ignored) on `scale`.
pub fn ticks(scale: Scale, values: impl IntoIterator<Item = f64>) -> Ticks {
    let v: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    match scale {
        Scale::Percent => {
            let lo = if min < 0.0 {
                (min / 20.0).floor() * 20.0
            } else {
                0.0
            };
            linear(lo.max(-100.0), 100.0, 20.0)
        }
        Scale::Correlation => {
            let lo = if min < 0.0 {
                ((min / 0.2).floor() * 0.2).max(-1.0)
            } else {
                0.0
            };
            linear(lo, 1.0, 0.2)
        }
        Scale::Fixed(lo, hi) => {
            let step = nice_step((hi - lo) / 5.0);
            let mut t = linear(lo, hi, step);
            t.ticks.retain(|&(x, _)| x >= lo - 1e-9 && x <= hi + 1e-9);
            t
        }
        Scale::Log => {
            let lo = if min.is_finite() && min > 0.0 {
                min
            } else {
                1.0
            };
            let hi = if max.is_finite() && max > lo {
                max
            } else {
                lo * 10.0
            };
            let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
            let b = b.max(a + 1);
            let ticks = (a..=b)
                .map(|e| {
                    let v = 10f64.powi(e);
                    (
                        v,
                        if e >= 0 {
                            format!("{v:.0}")
                        } else {
                            label(v, v)
                        },
                    )
                })
                .collect();
            Ticks {
                lo: 10f64.powi(a),
                hi: 10f64.powi(b),
                ticks,
                log: true,
            }
        }
        Scale::Auto => {
            let (lo, hi) = if min.is_finite() {
                (min.min(0.0), max.max(0.0))
            } else {
                (0.0, 1.0)
            };
            let hi = if hi - lo < 1e-12 { lo + 1.0 } else { hi };
            let step = nice_step((hi - lo) / 5.0);
            linear((lo / step).floor() * step, (hi / step).ceil() * step, step)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_percentage_stops_at_100_and_a_correlation_at_1() {
        let t = ticks(Scale::Percent, [3.0, 99.0]);
        assert_eq!((t.lo, t.hi), (0.0, 100.0));
        assert_eq!(t.ticks.last().unwrap().1, "100");
        let c = ticks(Scale::Correlation, [0.3, 0.99]);
        assert_eq!(c.hi, 1.0);
        assert_eq!(c.ticks.last().unwrap().1, "1.0");
        let neg = ticks(Scale::Correlation, [-0.3, 0.9]);
        assert!((neg.lo + 0.4).abs() < 1e-9, "{neg:?}");
    }

    #[test]
    fn an_auto_axis_stops_at_a_nice_tick_above_the_data() {
        let t = ticks(Scale::Auto, [-3.0, 17.0]);
        assert_eq!((t.lo, t.hi), (-5.0, 20.0));
        assert_eq!(t.ticks.first().unwrap().1, "-5");
        let tiny = ticks(Scale::Auto, [0.0, 0.034]);
        assert!(tiny.hi >= 0.034 && tiny.hi <= 0.05, "{tiny:?}");
        let flat = ticks(Scale::Auto, [0.0, 0.0]);
        assert_eq!(flat.hi, 1.0);
    }

    #[test]
    fn a_log_axis_covers_whole_decades() {
        let t = ticks(Scale::Log, [7.0, 1500.0]);
        assert_eq!((t.lo, t.hi), (1.0, 10000.0));
        assert_eq!(t.ticks.len(), 5);
        assert!((t.frac(100.0) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn labels_have_the_decimals_the_step_needs() {
        assert_eq!(label(0.4, 0.2), "0.4");
        assert_eq!(label(0.25, 0.05), "0.25");
        assert_eq!(label(20.0, 20.0), "20");
        assert_eq!(label(-0.0, 0.2), "0.0");
        assert_eq!(label(7.5, 2.5), "7.5");
    }
}
