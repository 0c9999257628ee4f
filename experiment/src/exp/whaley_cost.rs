//! The overhead side of `whaley-fig13` and `whaley-fig14` (Whaley 2000,
//! sections 6.5 and 6.6): by default the cost model's overhead of the
//! very runs whose precision [`super::whaley`] measures
//! (`run.profiler_cycles / run.cycles`), with `--clock=wall` the
//! wall-clock rounds of [`super::whaley::time_programs`]; the overhead
//! panel of both figures, and the paper's claims on overhead.

use profile::Profile;

use crate::exp::whaley::{show_ns, INTERVALS};
use crate::stats;

/// The cost model's overhead of each run, in percent of its cycles
/// ([`crate::exp::common::modelled_overhead`]).
pub fn modelled(runs: &[Profile]) -> Vec<f64> {
    runs.iter()
        .map(crate::exp::common::modelled_overhead)
        .collect()
}

/// Decimals an overhead is shown with: the wall clock's noise is a
/// percent or more; the model's overheads are exact and some are small.
pub fn overhead_digits(wall: bool) -> usize {
    if wall {
        1
    } else {
        3
    }
}

/// Per interval, the mean over the programs of the median overhead of
/// `overhead[program][interval][run]`.
pub fn mean_overheads(overhead: &[Vec<Vec<f64>>]) -> Vec<f64> {
    (0..INTERVALS.len())
        .map(|k| {
            let v: Vec<f64> = overhead.iter().map(|o| stats::median(&o[k])).collect();
            stats::mean(&v)
        })
        .collect()
}

/// The overhead series of a figure: per interval, each program's median
/// overhead (`overhead[program][interval][run]`), their mean, the
/// paper's mean; labelled as [`super::whaley::interval_series`]' are.
pub fn overhead_series(
    overhead: &[Vec<Vec<f64>>],
    paper: &[(f64, f64); 3],
) -> Vec<crate::plot::Series> {
    let means = mean_overheads(overhead);
    INTERVALS
        .iter()
        .enumerate()
        .map(|(k, iv)| {
            let mut v: Vec<f64> = overhead.iter().map(|o| stats::median(&o[k])).collect();
            v.push(means[k]);
            v.push(paper[k].0);
            let label = format!("paper {} = {} virtual", iv.paper, show_ns(iv.virtual_ns));
            (label, v)
        })
        .collect()
}

/// The overhead panel: one group per program, then the mean, then the
/// paper's; `wall` says which clock measured it.
pub fn overhead_panel(
    names: &[String],
    series: &[crate::plot::Series],
    wall: bool,
) -> crate::plot::Panel {
    let mut groups = names.to_vec();
    groups.push("mean".into());
    groups.push("paper".into());
    let title = if wall {
        "overhead on the wall clock at the paper's intervals (median of the rounds); last: the paper's mean"
    } else {
        "overhead in the cost model of the same runs (100 times the paper's samples per second); last: the paper's mean"
    };
    let mut bars = crate::plot::Bars::new(
        title,
        crate::plot::Axis::auto("overhead, % of the program's time"),
        groups,
        series,
    );
    bars.x_title = "benchmark".into();
    crate::plot::Panel::Bars(bars)
}

/// Per program, the median over its runs of the model's overhead
/// (`overhead_pct` rows) at the paper's interval `paper` (rows that match
/// `extra` too); empty where the overhead was timed on the wall clock.
pub fn overhead_of(
    t: &crate::table::Table,
    paper: &str,
    extra: &[(&str, &str)],
) -> Vec<(String, f64)> {
    t.distinct("program")
        .into_iter()
        .filter_map(|p| {
            let mut f = vec![
                ("program", p.as_str()),
                ("measure", "overhead_pct"),
                ("paper_interval", paper),
            ];
            f.extend_from_slice(extra);
            let v: Vec<f64> = t.select(&f).iter().map(|r| r.num("value")).collect();
            (!v.is_empty()).then(|| (p.clone(), stats::median(&v)))
        })
        .collect()
}

/// The mean over the programs of [`overhead_of`]'s medians; `NaN` when
/// there are none.
pub fn suite_overhead(per: &[(String, f64)]) -> f64 {
    if per.is_empty() {
        f64::NAN
    } else {
        stats::mean(&per.iter().map(|x| x.1).collect::<Vec<_>>())
    }
}

/// The paper's claim that overhead falls as the interval grows, on the
/// suite means `ours` (1, 10, 50 ms) against the paper's `paper`, for
/// `what` ("the hot-method counter"); unjudged for `why` where a mean is
/// missing (the wall clock measured it).
pub fn falls_claim(what: &str, ours: &[f64], paper: &[(f64, f64); 3]) -> crate::claims::Claim {
    crate::claims::Claim::judged(
        format!("{what}'s overhead falls at every step as the interval grows (1 -> 10 -> 50 ms, suite mean)"),
        format!("{:.2} -> {:.2} -> {:.2}%", paper[0].0, paper[1].0, paper[2].0),
        format!("{:.3} -> {:.3} -> {:.3}%", ours[0], ours[1], ours[2]),
        ours.windows(2).all(|w| w[1] < w[0]),
    )
}

/// Why a claim on overhead is left unjudged under `--clock=wall`.
pub const WALL_UNJUDGED: &str =
    "overhead timed on the wall clock (--clock=wall): noise of a few percent on a shared machine";
