//! What `whaley-fig13` and `whaley-fig14` share: Whaley 2000, section 6
//! ("A Portable Sampling-Based Profiler for Java Virtual Machines", Java
//! Grande 2000): the paper's sampling intervals mapped to ours, the
//! precision measure (the correlation of two runs' profiles), and the
//! overhead: the cost model's, or with `--clock=wall` the wall-clock
//! timing of whole runs.
//!
//! **The intervals.** The paper samples every 1, 10 or 50 ms and compares
//! 10-second segments of two runs (section 6.1): 10,000, 1,000 or 200
//! samples per compared profile, at 1,000, 100 or 20 samples a second.
//! Precision depends on the samples per profile, overhead on the samples
//! per second, and our runs are 100 times shorter (about 10^8 cycles, 0.1
//! s of virtual time), so:
//!
//! - precision runs under `--clock=virtual` at 10, 100 and 500 us (the
//!   paper's sample counts per profile);
//! - overhead, by default, is the cost model's for those very runs
//!   (`run.profiler_cycles / run.cycles`, [`super::whaley_cost::modelled`]): the price of the
//!   precision measured beside it, deterministic. Those runs take their
//!   samples 100 times as often per second of (virtual) time as the
//!   paper's, so at the paper's rate the model's overhead would be a
//!   hundredth of it (a sample's cost is per sample).
//! - with `--clock=wall`, overhead is timed on the wall clock at 1, 10 and
//!   50 ms (the paper's rate per second) instead, one process at a time.
//!
//! **Different runs.** Under the virtual clock our VM is deterministic: two
//! runs with the same interval and seed take the very same samples
//! (correlation exactly 1). The paper's runs differed because a real timer
//! never ticks at the same points twice; we model that by giving run k a
//! period longer by (k - 1) thousandths of the interval ([`run_interval`]),
//! which moves every tick to another point of the program; run k also has
//! seed k, which draws its first tick's phase.

use std::collections::BTreeMap;

use profile::Profile;

use crate::csv::Csv;
use crate::runner::{par_map, time_rounds};
use crate::suite::Program;
use crate::{stats, Context, Error};

/// One of the paper's sampling intervals and its two counterparts here.
pub struct Interval {
    /// The paper's interval ("1 ms").
    pub paper: &'static str,
    /// The wall-clock `--interval` that gives the paper's rate per second.
    pub wall: &'static str,
    /// The virtual-clock interval, in ns, that gives the paper's samples
    /// per compared profile on a 0.1 s run.
    pub virtual_ns: u64,
}

/// The paper's three intervals (Figures 13 and 14).
pub const INTERVALS: [Interval; 3] = [
    Interval {
        paper: "1ms",
        wall: "1ms",
        virtual_ns: 10_000,
    },
    Interval {
        paper: "10ms",
        wall: "10ms",
        virtual_ns: 100_000,
    },
    Interval {
        paper: "50ms",
        wall: "50ms",
        virtual_ns: 500_000,
    },
];

/// `10us`, `500us`, `2ms` for an interval in ns.
pub fn show_ns(ns: u64) -> String {
    if ns.is_multiple_of(1_000_000) {
        format!("{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        format!("{}us", ns / 1_000)
    } else {
        format!("{ns}ns")
    }
}

/// The `--interval` of virtual run `run` (1-based) at `base_ns`: longer by
/// `run - 1` thousandths of it, so that each run ticks at other points.
pub fn run_interval(base_ns: u64, run: usize) -> String {
    let extra = (run.max(1) as u64 - 1) * (base_ns / 1000).max(1);
    format!("--interval={}ns", base_ns + extra)
}

/// Runs per configuration: `--runs`, else 2 (quick) or 5, at least 2 (a
/// correlation needs a pair).
pub fn runs(ctx: &Context) -> usize {
    ctx.runs(2, 5).max(2)
}

/// What both figures start with: the runs per configuration, the
/// programs (the suite), their names, and the CSV.
pub struct Start {
    /// Runs per configuration ([`runs`]).
    pub runs: usize,
    /// The programs ([`Context::suite`]).
    pub programs: Vec<Program>,
    /// Their names: the tables' rows, the plots' groups.
    pub names: Vec<String>,
    /// The CSV, its settings line naming the runs, `profile` (the options
    /// measured) and the two clocks.
    pub csv: Csv,
}

/// The [`Start`] of a figure that measures the profile `profile`.
pub fn start(ctx: &Context, profile: &str, columns: &[&str]) -> Result<Start, Error> {
    let runs = runs(ctx);
    let programs = ctx.suite()?;
    let names = programs.iter().map(|p| p.name.clone()).collect();
    let overhead = if ctx.opts.wall_clock {
        "overhead: clock=wall, interleaved rounds"
    } else {
        "overhead: cost model of the precision runs"
    };
    let settings = format!(
        "runs={runs} {profile} precision: clock=virtual, run k's interval longer by \
         (k-1)/1000; {overhead}"
    );
    let csv = Csv::experiment(ctx, &settings, columns)?;
    Ok(Start {
        runs,
        programs,
        names,
        csv,
    })
}

/// A configuration whose precision is measured under the virtual clock.
pub struct VirtualConfig {
    /// Profile options, without `--interval` and `--clock`.
    pub args: Vec<String>,
    /// The interval, in ns.
    pub base_ns: u64,
}

/// Runs every program under every configuration `runs` times under the
/// virtual clock, in parallel; returns `profiles[program][config][run]`.
/// `each(program, config, run, profile)` sees every profile in that order.
pub fn virtual_profiles<F>(
    ctx: &Context,
    programs: &[Program],
    configs: &[VirtualConfig],
    runs: usize,
    mut each: F,
) -> Result<Vec<Vec<Vec<Profile>>>, Error>
where
    F: FnMut(usize, usize, usize, &Profile) -> Result<(), Error>,
{
    let mut jobs = Vec::new();
    for pi in 0..programs.len() {
        for ci in 0..configs.len() {
            for run in 1..=runs {
                jobs.push((pi, ci, run));
            }
        }
    }
    let vm = ctx.vm();
    let mut out: Vec<Vec<Vec<Profile>>> = (0..programs.len())
        .map(|_| (0..configs.len()).map(|_| Vec::new()).collect())
        .collect();
    let mut progress = crate::progress::Progress::new(
        ctx.exp.name,
        "precision (virtual clock)",
        jobs.len() as u64,
    );
    par_map(
        ctx.opts.jobs,
        &jobs,
        |&(pi, ci, run)| {
            let c = &configs[ci];
            let mut args = c.args.clone();
            args.push("--clock=virtual".into());
            args.push(run_interval(c.base_ns, run));
            args.push(format!("--seed={run}"));
            let tag = format!("virtual-{pi}-{ci}-{run}");
            Ok(vm.profile(&programs[pi], &args, &tag)?.0)
        },
        |i, p| {
            let (pi, ci, run) = jobs[i];
            each(pi, ci, run, &p)?;
            out[pi][ci].push(p);
            progress.step(&programs[pi].name);
            Ok(())
        },
    )?;
    progress.finish();
    Ok(out)
}

/// A configuration timed on the wall clock: a name and its profile
/// options (`--profile=none` for the baseline).
pub struct Timed {
    /// Its name in the CSV.
    pub name: String,
    /// Its `vm run` options.
    pub args: Vec<String>,
}

/// What [`time_programs`] measured.
pub struct Timing {
    /// `overhead[program][config - 1]`: each round's overhead in percent
    /// against config 0 (the baseline).
    pub overhead: Vec<Vec<Vec<f64>>>,
    /// `profiles[program][config - 1][round]`: the profile each timed run
    /// wrote.
    pub profiles: Vec<Vec<Vec<Profile>>>,
}

/// Times every program under `configs` (config 0 the baseline, the others
/// profiled), one process at a time, interleaved round by round (see
/// [`time_rounds`]); writes a `wall_s` row per run through `row(program,
/// config, round, seconds)`. Each profiled run also writes its profile,
/// which is kept (a few kilobytes, written once at exit).
pub fn time_programs<R>(
    ctx: &Context,
    programs: &[Program],
    configs: &[Timed],
    rounds: usize,
    mut row: R,
) -> Result<Timing, Error>
where
    R: FnMut(usize, usize, usize, f64) -> Result<(), Error>,
{
    let vm = ctx.vm();
    let mut timing = Timing {
        overhead: Vec::new(),
        profiles: Vec::new(),
    };
    let mut progress = crate::progress::Progress::new(
        ctx.exp.name,
        "timing (one process at a time)",
        (programs.len() * rounds * configs.len()) as u64,
    );
    for (pi, prog) in programs.iter().enumerate() {
        let file = |c: usize| ctx.work.join(format!("time-{c}.json"));
        let lines: Vec<Vec<String>> = configs
            .iter()
            .enumerate()
            .map(|(c, t)| {
                let mut args = vec!["run".to_string(), prog.path.display().to_string()];
                args.extend(prog.set_args());
                args.extend(t.args.iter().cloned());
                if c > 0 {
                    args.push(format!("--profile-out={}", file(c).display()));
                }
                args
            })
            .collect();
        let mut times = vec![vec![0.0; configs.len()]; rounds];
        let mut profiles: Vec<Vec<Profile>> = vec![Vec::new(); configs.len() - 1];
        time_rounds(&vm, &lines, rounds, |round, c, secs| {
            times[round][c] = secs;
            progress.step(&format!("{} {}", prog.name, configs[c].name));
            if c > 0 {
                profiles[c - 1].push(Profile::read(&file(c)).map_err(|e| {
                    Error::Failed(format!(
                        "vm experiment: cannot read the profile of `vm {}`: {e:?}",
                        lines[c].join(" ")
                    ))
                })?);
            }
            row(pi, c, round, secs)
        })?;
        timing.overhead.push(
            (1..configs.len())
                .map(|c| times.iter().map(|t| 100.0 * (t[c] / t[0] - 1.0)).collect())
                .collect(),
        );
        timing.profiles.push(profiles);
    }
    progress.finish();
    Ok(timing)
}

/// `f` of every pair of runs `(i, j)`, `i < j`: `(i, j, value)`, `None`
/// where `f` is undefined.
pub fn pairs<T, F>(runs: &[T], f: F) -> Vec<(usize, usize, Option<f64>)>
where
    F: Fn(&T, &T) -> Option<f64>,
{
    let mut out = Vec::new();
    for i in 0..runs.len() {
        for j in i + 1..runs.len() {
            out.push((i, j, f(&runs[i], &runs[j])));
        }
    }
    out
}

/// The paper's summary of correlations, their geometric mean (section
/// 6.1), over the defined (not `NaN`) values; where one is not positive
/// (no geometric mean exists) the arithmetic mean instead; `NaN` when no
/// value is defined.
pub fn geomean(values: &[f64]) -> f64 {
    let v: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if v.is_empty() {
        f64::NAN
    } else if v.iter().any(|&x| x <= 0.0) {
        stats::mean(&v)
    } else {
        (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
    }
}

/// The [`geomean`] of the defined values of `pairs`.
pub fn pair_geomean(pairs: &[(usize, usize, Option<f64>)]) -> f64 {
    let v: Vec<f64> = pairs.iter().filter_map(|p| p.2).collect();
    geomean(&v)
}

/// The median overhead of `rounds` with its quartiles, as a cell with
/// `d` decimals: `2.1 [0.4, 3.0]` (the median alone for one round, or
/// where the quartiles are the median's, as the model's nearly always
/// are).
pub fn overhead_cell(rounds: &[f64], d: usize) -> String {
    let m = stats::median(rounds);
    let (q1, q3) = (stats::quantile(rounds, 0.25), stats::quantile(rounds, 0.75));
    let (ms, q1s, q3s) = (format!("{m:.d$}"), format!("{q1:.d$}"), format!("{q3:.d$}"));
    if rounds.len() > 1 && (q1s != ms || q3s != ms) {
        format!("{ms} [{q1s}, {q3s}]")
    } else {
        ms
    }
}

/// A correlation as the paper prints it (`.9892`), `n/a` for `NaN`.
pub fn corr_cell(v: f64) -> String {
    if v.is_nan() {
        "n/a".into()
    } else {
        format!("{v:.4}")
    }
}

/// Writes one CSV row per pair: `fields` then `i-j` (1-based runs) and the
/// value (empty when undefined).
pub fn pair_rows(
    csv: &mut Csv,
    fields: &[String],
    pairs: &[(usize, usize, Option<f64>)],
) -> Result<(), Error> {
    for &(i, j, v) in pairs {
        let mut r = fields.to_vec();
        r.push(format!("{}-{}", i + 1, j + 1));
        r.push(v.map_or(String::new(), |v| crate::csv::num(v, 6)));
        csv.row(&r)?;
    }
    Ok(())
}

/// A profile's calling contexts by path (`method:line` from the root
/// down, the root left out): `(self, calls, detached)`, contexts with the
/// same path summed; `detached` when the context hangs under `<detached>`
/// (a walk cut by the buffer). `None` without a well-formed `cct`.
pub fn contexts(p: &Profile) -> Option<BTreeMap<String, (u64, u64, bool)>> {
    let cct = p.cct.as_ref()?;
    let mut path: BTreeMap<u64, (String, bool)> = BTreeMap::new();
    let mut out: BTreeMap<String, (u64, u64, bool)> = BTreeMap::new();
    for n in cct {
        let Some(parent) = n.parent else {
            path.insert(n.id, (String::new(), false));
            continue;
        };
        let (up, det) = path.get(&parent)?.clone();
        let here = match n.line {
            Some(l) => format!("{up}/{}:{l}", n.method),
            None => format!("{up}/{}", n.method),
        };
        let det = det || n.method == "<detached>";
        let e = out.entry(here.clone()).or_insert((0, 0, det));
        e.0 += n.self_;
        e.1 += n.calls;
        path.insert(n.id, (here, det));
    }
    Some(out)
}

/// Whaley's PCCT precision (section 6.6): the correlation of two trees'
/// node counts (`self`) and edge counts (`calls`) taken together, a node
/// or edge of one matched with the other's when their paths to the root
/// are the same, a missing one counting 0.
pub fn context_correlation(a: &Profile, b: &Profile) -> Option<f64> {
    let (ca, cb) = (contexts(a)?, contexts(b)?);
    let mut both: BTreeMap<(&str, bool), (f64, f64)> = BTreeMap::new();
    for (k, v) in &ca {
        both.entry((k, false)).or_default().0 = v.0 as f64;
        both.entry((k, true)).or_default().0 = v.1 as f64;
    }
    for (k, v) in &cb {
        both.entry((k, false)).or_default().1 = v.0 as f64;
        both.entry((k, true)).or_default().1 = v.1 as f64;
    }
    let points: Vec<(f64, f64)> = both.into_values().collect();
    stats::pearson(&points)
}

/// The hot-method precision of Figure 13: `vm compare`'s
/// `method-correlation` of the two profiles.
pub fn method_correlation(a: &Profile, b: &Profile) -> Option<f64> {
    profile::metrics::method_correlation(a, b).value()
}

/// The share, in percent, of a profile's method samples (`self`) that
/// landed in detached contexts; `NaN` without samples or a `cct`.
pub fn detached_pct(p: &Profile) -> f64 {
    let Some(c) = contexts(p) else {
        return f64::NAN;
    };
    let total: u64 = c.values().map(|v| v.0).sum();
    let detached: u64 = c.values().filter(|v| v.2).map(|v| v.0).sum();
    if total == 0 {
        f64::NAN
    } else {
        100.0 * detached as f64 / total as f64
    }
}

/// Whether `precision` (at 1, 10, 50 ms) falls as the interval grows, as
/// the paper's does, in words.
pub fn trend(precision: &[f64]) -> &'static str {
    if precision.iter().any(|v| v.is_nan()) {
        "some are undefined (n/a), so no trend is read"
    } else if precision.windows(2).all(|w| w[1] <= w[0]) {
        "as in the paper it falls as the interval grows"
    } else {
        "unlike the paper's, it does not fall at every step as the interval grows"
    }
}

/// One row of the paper's Figure 13 or 14: machine, benchmark, and for
/// 1, 10 and 50 ms the overhead (percent above the unprofiled run) and
/// the precision.
pub type PaperRow = (&'static str, &'static str, [(f64, f64); 3]);

/// The paper's summary per interval: the mean overhead and the geometric
/// mean of the precisions over its rows.
pub fn paper_means(paper: &[PaperRow]) -> [(f64, f64); 3] {
    std::array::from_fn(|k| {
        let o: Vec<f64> = paper.iter().map(|r| r.2[k].0).collect();
        let p: Vec<f64> = paper.iter().map(|r| r.2[k].1).collect();
        (stats::mean(&o), geomean(&p))
    })
}

/// The paper's table as Markdown.
pub fn paper_table(title: &str, paper: &[PaperRow]) -> String {
    let rows: Vec<Vec<String>> = paper
        .iter()
        .map(|(m, b, cells)| {
            let mut r = vec![format!("{m} {b}")];
            for (o, p) in cells {
                r.push(format!("{o:.2}"));
                r.push(format!("{p:.4}"));
            }
            r
        })
        .collect();
    let mut headers = vec![title];
    headers.extend(HEADERS);
    crate::markdown::table(&headers, &rows)
}

/// The interval columns of both tables.
pub const HEADERS: [&str; 6] = [
    "1 ms: overhead %",
    "precision",
    "10 ms: overhead %",
    "precision",
    "50 ms: overhead %",
    "precision",
];

/// Our table: one row per program (median overhead with quartiles,
/// precision) at the three intervals, then our summary (mean of the
/// median overheads, geometric mean of the precisions) and the paper's.
pub fn interval_rows(
    names: &[String],
    overhead: &[Vec<Vec<f64>>],
    precision: &[Vec<f64>],
    paper: &[PaperRow],
    d: usize,
) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for (pi, name) in names.iter().enumerate() {
        let mut r = vec![name.clone()];
        for k in 0..3 {
            r.push(overhead_cell(&overhead[pi][k], d));
            r.push(corr_cell(precision[pi][k]));
        }
        rows.push(r);
    }
    let mut ours = vec!["**mean / geo. mean**".to_string()];
    let mut theirs = vec![format!("paper ({} rows)", paper.len())];
    for (k, (po, pp)) in paper_means(paper).iter().enumerate() {
        let o: Vec<f64> = overhead.iter().map(|o| stats::median(&o[k])).collect();
        let p: Vec<f64> = precision.iter().map(|p| p[k]).collect();
        ours.push(format!("{:.d$}", stats::mean(&o)));
        ours.push(corr_cell(geomean(&p)));
        theirs.push(format!("{po:.1}"));
        theirs.push(corr_cell(*pp));
    }
    rows.push(ours);
    rows.push(theirs);
    rows
}

/// Our table ([`interval_rows`] under [`HEADERS`], overheads with `d`
/// decimals) as Markdown.
pub fn interval_table(
    names: &[String],
    overhead: &[Vec<Vec<f64>>],
    precision: &[Vec<f64>],
    paper: &[PaperRow],
    d: usize,
) -> String {
    let mut headers = vec!["benchmark"];
    headers.extend(HEADERS);
    let rows = interval_rows(names, overhead, precision, paper, d);
    crate::markdown::table(&headers, &rows)
}

/// Per interval, the [`geomean`] over the programs of
/// `precision[program][interval]`.
pub fn interval_means(precision: &[Vec<f64>]) -> Vec<f64> {
    (0..INTERVALS.len())
        .map(|k| geomean(&precision.iter().map(|p| p[k]).collect::<Vec<_>>()))
        .collect()
}

/// One series of [`precision_panels`]: `values` (one per program), their
/// [`geomean`], then `paper`.
pub fn bar_series(label: String, mut values: Vec<f64>, paper: f64) -> crate::plot::Series {
    values.push(geomean(&values));
    values.push(paper);
    (label, values)
}

/// The series of [`precision_panels`] for the three intervals:
/// `precision[program][interval]` beside the paper's mean, labelled
/// `{what}paper 1ms = 10us virtual` and so on.
pub fn interval_series(
    what: &str,
    precision: &[Vec<f64>],
    paper: &[(f64, f64); 3],
) -> Vec<crate::plot::Series> {
    INTERVALS
        .iter()
        .enumerate()
        .map(|(k, iv)| {
            let label = format!(
                "{what}paper {} = {} virtual",
                iv.paper,
                show_ns(iv.virtual_ns)
            );
            bar_series(label, precision.iter().map(|p| p[k]).collect(), paper[k].1)
        })
        .collect()
}

/// Precision bars, one panel per `(title, series)`, one above the other
/// (one group per program, then the geometric mean, then the paper's; one
/// series per entry of `series`, `values[program]` with the paper's value
/// last, on a correlation axis up to 1), and `extra` panels after them.
pub fn precision_panels(
    path: &std::path::Path,
    title: &str,
    names: &[String],
    panels: &[(String, Vec<crate::plot::Series>)],
    extra: Vec<crate::plot::Panel>,
) -> Result<Vec<std::path::PathBuf>, Error> {
    let mut groups = names.to_vec();
    groups.push("geo. mean".into());
    groups.push("paper".into());
    let panels = panels
        .iter()
        .map(|(t, series)| {
            let mut bars = crate::plot::Bars::new(
                t.clone(),
                crate::plot::Axis::correlation("correlation between runs"),
                groups.clone(),
                series,
            );
            bars.x_title = "benchmark".into();
            crate::plot::Panel::Bars(bars)
        })
        .chain(extra)
        .collect();
    crate::plot::Figure {
        title: title.into(),
        panels,
        columns: 1,
    }
    .write(path)
}

/// Per program, the geometric mean over pairs of runs of `measure` at the
/// paper's interval `paper` (rows that match `extra` too).
pub fn precision_of(
    t: &crate::table::Table,
    measure: &str,
    paper: &str,
    extra: &[(&str, &str)],
) -> Vec<(String, f64)> {
    t.distinct("program")
        .into_iter()
        .filter_map(|p| {
            let mut f = vec![
                ("program", p.as_str()),
                ("measure", measure),
                ("paper_interval", paper),
            ];
            f.extend_from_slice(extra);
            let v: Vec<f64> = t
                .select(&f)
                .iter()
                .map(|r| r.num("value"))
                .filter(|v| v.is_finite())
                .collect();
            (!v.is_empty()).then(|| (p.clone(), geomean(&v)))
        })
        .collect()
}

/// The suite's geometric mean of per-program precisions.
pub fn suite_precision(per: &[(String, f64)]) -> f64 {
    geomean(&per.iter().map(|x| x.1).collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geomean_of_positive_values_else_the_mean() {
        assert!((geomean(&[0.25, 1.0]) - 0.5).abs() < 1e-12);
        assert!((geomean(&[0.25, f64::NAN, 1.0]) - 0.5).abs() < 1e-12);
        assert!((geomean(&[0.5, -0.1]) - 0.2).abs() < 1e-12);
        assert!(geomean(&[]).is_nan());
        assert!(geomean(&[f64::NAN]).is_nan());
    }

    #[test]
    fn runs_tick_at_other_periods() {
        assert_eq!(run_interval(10_000, 1), "--interval=10000ns");
        assert_eq!(run_interval(10_000, 3), "--interval=10020ns");
        assert_eq!(run_interval(500, 2), "--interval=501ns");
        assert_eq!(show_ns(10_000), "10us");
        assert_eq!(show_ns(2_000_000), "2ms");
    }

    #[test]
    fn pairs_are_every_pair_once() {
        let p = pairs(&[1.0, 2.0, 4.0], |a, b| Some(b / a));
        assert_eq!(
            p,
            vec![(0, 1, Some(2.0)), (0, 2, Some(4.0)), (1, 2, Some(2.0))]
        );
    }

    fn profile(cct: &str) -> Profile {
        let text = format!(
            r#"{{"format":"vm-profile/1","program":"p","config":{{"profile":"timer"}},
            "run":{{"wall_ns":1,"samples":1,"threads":1}},"methods":[],"dcg":[],"cct":[{cct}]}}"#
        );
        Profile::from_json(&text).unwrap()
    }

    #[test]
    fn contexts_are_matched_by_path_and_detached_ones_counted() {
        let node = |id: u64, parent: &str, m: &str, line: &str, calls: u64, s: u64| {
            format!(
                r#"{{"id":{id},"parent":{parent},"method":"{m}","line":{line},"calls":{calls},"self":{s}}}"#
            )
        };
        let a = profile(
            &[
                node(0, "null", "<root>", "null", 0, 0),
                node(1, "0", "main", "null", 1, 2),
                node(2, "1", "f", "3", 4, 6),
                node(3, "0", "<detached>", "null", 0, 0),
                node(4, "3", "g", "null", 0, 2),
            ]
            .join(","),
        );
        let c = contexts(&a).unwrap();
        assert_eq!(c["/main"], (2, 1, false));
        assert_eq!(c["/main/f:3"], (6, 4, false));
        assert_eq!(c["/<detached>/g"], (2, 0, true));
        assert!((detached_pct(&a) - 20.0).abs() < 1e-12);
        assert!((context_correlation(&a, &a).unwrap() - 1.0).abs() < 1e-12);
        let b = profile(
            &[
                node(0, "null", "<root>", "null", 0, 0),
                node(1, "0", "main", "null", 1, 6),
                node(2, "1", "f", "3", 1, 2),
            ]
            .join(","),
        );
        assert!(context_correlation(&a, &b).unwrap() < 0.5);
    }
}
