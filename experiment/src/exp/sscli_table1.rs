//! `sscli-table1`: Chilingarova & Safonov 2006 (the SSCLI profiler),
//! Table 1 and the self-tuning interval of section 3.
//!
//! The paper's Table 1 gives, per test, the correlation of the methods'
//! total execution counters in the Call Context Map and the overlap of
//! whole maps, averaged over pairs of 10 runs, self-tuning off; its text
//! (section 5) says the tuned interval settles after 1-2 changes and that
//! the best correlation and overlap of fixed intervals came at the
//! interval the tuner found. This experiment runs every Are We Fast Yet
//! benchmark under `--profile=timer --clock=virtual --record=ccmap`:
//! first with `--tune` (the interval's trajectory is the profile's
//! `run.interval_trajectory`), then at fixed intervals, the tuned one
//! among them, and scores each CC-Map against the exhaustive profile
//! (`--profile=exhaustive --record=cct`): the Pearson correlation of the
//! methods' sampled and exact call counts, the correlation of their
//! `self` counts (`vm compare`'s method-correlation), and cct-overlap.
//!
//! Every run's overhead is the cost model's (`run.profiler_cycles /
//! run.cycles`, the tuner's own work included): the price of each
//! interval, beside its accuracy, and what tuning cost (the paper: at most
//! 3%).

use std::collections::BTreeMap;

use profile::{metrics, Profile};

use crate::claims::Claim;
use crate::csv::{num, Csv};
use crate::exp::{common, sscli_cost};
use crate::runner::par_map;
use crate::suite::Program;
use crate::table::Table;
use crate::{markdown, plot, stats, Context, Error};

use super::sscli_table1_reading::{self as reading, evaluated, trajectories};

/// The fixed intervals, microseconds of virtual time (`--quick`: two).
pub(crate) const FIXED_US: [u64; 5] = [10, 30, 100, 300, 1000];
const FIXED_QUICK_US: [u64; 2] = [10, 100];

/// The tuned runs' initial interval, microseconds.
pub(super) const INITIAL_US: u64 = 100;

/// A second start for the same tuned runs, microseconds (4 times the
/// first, so both walk the same ladder of doublings): whether a run
/// ends where the other does says whether the tuner found a band or a
/// bound.
pub(super) const SECOND_START_US: u64 = 400;

/// The paper's Table 1: test, correlation %, overlap %.
const PAPER: [(&str, u32, u32); 14] = [
    ("co8545int32", 99, 97),
    ("co8546int16", 99, 92),
    ("co8547sbyte", 99, 94),
    ("co8548intptr", 99, 98),
    ("co8549uint16", 99, 95),
    ("co8550uint32", 99, 95),
    ("co8551byte", 99, 97),
    ("co8552uintptr", 99, 97),
    ("co8553char", 99, 96),
    ("co8555boolean", 99, 96),
    ("co8559enum", 98, 75),
    ("co8788stringbuilder", 99, 67),
    ("co8827console", 99, 77),
    ("co8830single", 99, 98),
];

/// The CSV's columns. `run` is `tuned` (interval_us: the final one),
/// `step` (a point of the tuned run's trajectory: the examinations seen
/// and the interval from then on) or `fixed`.
const COLUMNS: [&str; 10] = [
    "program",
    "run",
    "interval_us",
    "samples",
    "changes",
    "calls_correlation_pct",
    "self_correlation_pct",
    "cct_overlap",
    "overhead_pct",
    "cycles_per_sample",
];

/// One CC-Map scored against the exact profile.
#[derive(Clone)]
pub(crate) struct Scored {
    pub(crate) samples: u64,
    pub(crate) calls_corr: f64,
    /// The calls the CC-Map holds (its edge samples, entry contexts
    /// included).
    pub(crate) sampled_calls: f64,
    pub(crate) self_corr: f64,
    pub(crate) overlap: f64,
    /// The method whose share of the calls the CC-Map misses most: its
    /// name, its share of the exact calls and of the CC-Map's, percent.
    pub(crate) worst: (String, f64, f64),
    /// The cost model's overhead, percent of the program's cycles.
    pub(crate) overhead: f64,
    /// The profiler's cycles per sample.
    pub(crate) per_sample: f64,
}

/// A tuned run: its score, trajectory (samples, interval us) and final
/// interval.
pub(crate) struct Tuned {
    pub(crate) scored: Scored,
    steps: Vec<(u64, f64)>,
    final_us: f64,
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let programs = programs(ctx)?;
    let exact = common::exact_trees(ctx, &programs)?;
    let mut csv = Csv::experiment(ctx, &format!(
                "profile=timer clock=virtual record=ccmap seed=1; tuned: --tune from {INITIAL_US}us; exact: --profile=exhaustive --record=cct"
            ),
        &COLUMNS,
    )?;
    let tuned = tuned_runs(ctx, &programs, &exact, &mut csv, INITIAL_US, "")?;
    tuned_runs(
        ctx,
        &programs,
        &exact,
        &mut csv,
        SECOND_START_US,
        &format!("-{SECOND_START_US}"),
    )?;
    let fixed = fixed_runs(ctx, &programs, &exact, &tuned, &mut csv)?;
    let figures = draw(ctx, &programs, &tuned, &fixed)?;
    let table = table(&programs, &tuned, &fixed);
    Ok(markdown::Page {
        method: format!(
            "The paper's Table 1 gives, per test, the correlation of the methods' total \
             execution counters in the Call Context Map and the overlap of whole maps, averaged \
             over pairs of 10 runs, self-tuning off; its text (section 5) says the tuned \
             interval settles after 1-2 changes and that the best correlation and overlap of \
             fixed intervals came at the interval the tuner found. Each benchmark runs under \
             `--profile=timer --clock=virtual --record=ccmap`: once with `--tune` from \
             {INITIAL_US} us (the tuner evaluates every 1000 samples, as the paper's), then at \
             fixed intervals, the tuned run's final interval among them. Scores are against the \
             exhaustive profile: the Pearson correlation (in %) of the methods' call counts (the \
             CC-Map's `calls` summed per method against the exact calls) and of their `self` \
             counts, and cct-overlap. Under the virtual clock every run of a benchmark is the \
             same, so the paper's run-against-run comparison would score 100 here; ours is \
             against the exhaustive profile, a harder test."
        ),
        results: format!(
            "At the tuned interval, beside the paper's Table 1 (SSCLI's bcl\\threadsafety \
             tests, run against run):\n\n{table}"
        ),
        discussion: format!(
            "{}\n\n{}{}",
            reading(&programs, &tuned, &fixed),
            reading::gaps(&Table::read(&ctx.out_file("csv"))?, &programs, &exact),
            reading::counters(&programs, &at_tuned(&tuned, &fixed))
        ),
        table,
        figures,
    })
}

/// Two panels: Table 1 (correlations and overlap at the tuned interval,
/// the paper's means last), and the tuner's interval over each run.
fn draw(
    ctx: &Context,
    programs: &[Program],
    tuned: &[Tuned],
    fixed: &Fixed,
) -> Result<Vec<std::path::PathBuf>, Error> {
    let mut groups: Vec<String> = programs.iter().map(|p| p.name.clone()).collect();
    groups.push("paper (mean)".into());
    let at = |pi: usize, f: fn(&Scored) -> f64| {
        fixed[pi]
            .iter()
            .find(|(us, _)| (*us as f64 - tuned[pi].final_us).abs() < 0.5)
            .map_or(f64::NAN, |r| f(&r.1))
    };
    let paper_mean = |k: usize| {
        stats::mean(
            &PAPER
                .iter()
                .map(|r| [r.1, r.2][k] as f64)
                .collect::<Vec<_>>(),
        )
    };
    let series: Vec<plot::Series> = vec![
        (
            "calls correlation".into(),
            (0..programs.len())
                .map(|pi| at(pi, |m| m.calls_corr))
                .chain([paper_mean(0)])
                .collect(),
        ),
        (
            "self correlation".into(),
            (0..programs.len())
                .map(|pi| at(pi, |m| m.self_corr))
                .chain([f64::NAN])
                .collect(),
        ),
        (
            "cct-overlap".into(),
            (0..programs.len())
                .map(|pi| at(pi, |m| m.overlap))
                .chain([paper_mean(1)])
                .collect(),
        ),
    ];
    let mut table1 = plot::Bars::new(
        "Table 1: the CC-Map against the exact profile at the tuned interval; last: the paper's mean (run against run)",
        plot::Axis::percent("correlation % / overlap"),
        groups,
        &series,
    );
    table1.x_title = "benchmark".into();
    let lines: Vec<plot::XySeries> = programs
        .iter()
        .zip(tuned)
        .map(|(p, t)| {
            let total = t.scored.samples.max(1) as f64;
            plot::XySeries {
                name: p.name.clone(),
                points: t
                    .steps
                    .iter()
                    .map(|&(s, us)| (100.0 * s as f64 / total, us))
                    .collect(),
                labels: Vec::new(),
                style: plot::Style::Steps { end: 100.0 },
            }
        })
        .collect();
    let trajectory = plot::Xy {
        title: format!("the self-tuning interval over each run (from {INITIAL_US} us)"),
        x: plot::Axis::percent("share of the run's stack samples, %"),
        y: plot::Axis::log("interval, us (log)"),
        series: lines,
        pareto: false,
    };
    plot::Figure {
        title:
            "Chilingarova & Safonov 2006: the CC-Map's Table 1, the self-tuning interval, its cost"
                .into(),
        panels: vec![
            plot::Panel::Bars(table1),
            plot::Panel::Xy(trajectory),
            plot::Panel::Bars(sscli_cost::panel(programs, tuned, fixed)),
        ],
        columns: 1,
    }
    .write(&ctx.out_file("svg"))
}

/// The paper's claims: the interval settles after 1-2 changes, the tuned
/// interval is the best fixed one, the counters correlate well.
pub fn claims(t: &Table) -> Vec<Claim> {
    let (ran, all) = evaluated(t);
    let settled = ran.iter().filter(|r| r.1 <= 2.0).count();
    let traj = trajectories(t);
    let one_way = traj.iter().filter(|x| x.2).count();
    let mut best_at_tuned = Vec::new();
    let mut corr = Vec::new();
    for p in t.distinct("program") {
        let Some(tuned) = t
            .select(&[("program", &p), ("run", "tuned")])
            .first()
            .map(|r| r.num("interval_us"))
        else {
            continue;
        };
        let fixed = t.select(&[("program", &p), ("run", "fixed")]);
        let best = fixed
            .iter()
            .map(|r| r.num("cct_overlap"))
            .filter(|v| v.is_finite())
            .fold(f64::NEG_INFINITY, f64::max);
        if let Some(r) = fixed
            .iter()
            .find(|r| (r.num("interval_us") - tuned).abs() < 0.5)
        {
            best_at_tuned.push((p.clone(), r.num("cct_overlap") >= best - 1.0));
            corr.push((p.clone(), r.num("calls_correlation_pct")));
        }
    }
    let at_best = best_at_tuned.iter().filter(|b| b.1).count();
    // A correlation is undefined where every method is called as often
    // (Mandelbrot: once each); it says nothing either way.
    let undefined: Vec<String> = corr
        .iter()
        .filter(|c| !c.1.is_finite())
        .map(|c| c.0.clone())
        .collect();
    corr.retain(|c| c.1.is_finite());
    let good = corr.iter().filter(|c| c.1 >= 95.0).count();
    let none = ran.is_empty();
    let quick = t.quick();
    vec![
        Claim::judged(
            "the tuned interval becomes stable: every change goes the same way, none undoes another",
            "\"the sample interval becomes stable\"",
            format!("on {one_way} of {} runs that reached an evaluation", traj.len()),
            !none && one_way == traj.len(),
        )
        .gap()
        .unless_small(none, "no tuned run reached 1000 samples"),
        Claim::judged(
            "it settles after 1-2 changes (runs that reached an evaluation)",
            "\"stable after 1-2 changes\" (from 50 ms)",
            format!("{settled} of {} ({} of {all} runs reached an evaluation)", ran.len(), ran.len()),
            !none && settled == ran.len(),
        )
        .unless_small(none, "no tuned run reached 1000 samples")
        .gap(),
        Claim::judged(
            "the tuned interval gives the best cct-overlap of the fixed intervals (within 1 point), on 3 of 4 benchmarks or more",
            "the best results (95-99%) at the interval the tuner found",
            format!("on {at_best} of {}", best_at_tuned.len()),
            4 * at_best >= 3 * best_at_tuned.len() && !best_at_tuned.is_empty(),
        )
        .unless_small(quick, "a --quick run: 3 programs, 2 fixed intervals")
        .gap(),
        Claim::judged(
            "the methods' execution counters correlate well (95% or more on every benchmark)",
            "98-99% on every test (run against run)",
            format!(
                "on {good} of {} (against the exact counts){}",
                corr.len(),
                if undefined.is_empty() {
                    String::new()
                } else {
                    format!("; undefined on {}", undefined.join(", "))
                }
            ),
            good == corr.len() && !corr.is_empty(),
        )
        .gap()
        .unless_small(quick, "a --quick run: 3 small programs"),
        sscli_cost::tuning_cost_claim(t),
    ]
}

/// How much longer than the suite's sizes the full runs are: 10 times
/// (about 10^9 cycles, 1 s of virtual time), so that a tuned run starting
/// at [`INITIAL_US`] sees about ten of the tuner's evaluations (one per
/// 1000 samples) where the suite's size gives it one.
const SCALE: i64 = 10;

/// The suite ([`crate::suite::AWFY`], `inner` times [`SCALE`]; CD at its
/// default and Mandelbrot at 750, the largest sizes with a known result);
/// `--quick`:
/// [`crate::suite::AWFY_QUICK`] at their default sizes.
fn programs(ctx: &Context) -> Result<Vec<Program>, Error> {
    let mut programs = ctx.suite()?;
    for p in &mut programs {
        // Mandelbrot's `inner` is its problem size, checked against known
        // results: 750 is the largest, 14 times its suite size.
        let mandelbrot = p.name == "mandelbrot";
        for (name, n) in &mut p.set {
            if name == "inner" {
                *n = if mandelbrot { 750 } else { *n * SCALE };
            }
        }
    }
    Ok(programs)
}

/// The timer's options at `interval_us`, and `--tune` when `tune`.
fn timer_args(interval_us: u64, tune: bool) -> Vec<String> {
    let mut a = vec![
        "--profile=timer".to_string(),
        "--clock=virtual".into(),
        format!("--interval={interval_us}us"),
        "--seed=1".into(),
        "--record=ccmap".into(),
    ];
    if tune {
        a.push("--tune".into());
    }
    a
}

/// The tuned run of every program from `start_us`: a `tuned{suffix}` row
/// and its `step{suffix}` rows.
fn tuned_runs(
    ctx: &Context,
    programs: &[Program],
    exact: &[Profile],
    csv: &mut Csv,
    start_us: u64,
    suffix: &str,
) -> Result<Vec<Tuned>, Error> {
    let vm = ctx.vm();
    let mut out = Vec::new();
    let mut progress = crate::progress::Progress::new(
        ctx.exp.name,
        &format!("tuned runs from {start_us} us"),
        programs.len() as u64,
    );
    let idx: Vec<usize> = (0..programs.len()).collect();
    par_map(
        ctx.opts.jobs,
        &idx,
        |&i| {
            let p = &programs[i];
            let (prof, _) = vm.profile(
                p,
                &timer_args(start_us, true),
                &format!("tuned{suffix}-{}", p.name),
            )?;
            let steps: Vec<(u64, f64)> = prof
                .run
                .interval_trajectory
                .as_deref()
                .unwrap_or_default()
                .iter()
                .map(|s| (s.samples, s.interval as f64 / 1000.0))
                .collect();
            let final_us = prof
                .run
                .final_interval_ns
                .map_or(f64::NAN, |ns| ns as f64 / 1000.0);
            Ok(Tuned {
                scored: score(&prof, &exact[i]),
                steps,
                final_us,
            })
        },
        |i, t| {
            let name = &programs[i].name;
            let changes = t.steps.len().saturating_sub(1);
            csv.row(&scored_row(
                name,
                &format!("tuned{suffix}"),
                t.final_us,
                &t.scored,
                &changes.to_string(),
            ))?;
            for &(s, us) in &t.steps {
                csv.row(&[
                    name.clone(),
                    format!("step{suffix}"),
                    num(us, 3),
                    s.to_string(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ])?;
            }
            progress.step(name);
            out.push(t);
            Ok(())
        },
    )?;
    progress.finish();
    Ok(out)
}

/// A CSV row of a scored run.
fn scored_row(
    program: &str,
    run: &str,
    interval_us: f64,
    m: &Scored,
    changes: &str,
) -> Vec<String> {
    vec![
        program.to_string(),
        run.to_string(),
        num(interval_us, 3),
        m.samples.to_string(),
        changes.to_string(),
        num(m.calls_corr, 2),
        num(m.self_corr, 2),
        num(m.overlap, 2),
        num(m.overhead, 4),
        num(m.per_sample, 1),
    ]
}

/// `fixed[program]`: (interval us, score), ascending, the tuned run's
/// final interval among them.
pub(crate) type Fixed = Vec<Vec<(u64, Scored)>>;

/// Every program at every fixed interval and at its tuned final one.
fn fixed_runs(
    ctx: &Context,
    programs: &[Program],
    exact: &[Profile],
    tuned: &[Tuned],
    csv: &mut Csv,
) -> Result<Fixed, Error> {
    let vm = ctx.vm();
    let base: &[u64] = if ctx.opts.quick {
        &FIXED_QUICK_US
    } else {
        &FIXED_US
    };
    let mut jobs = Vec::new();
    for (pi, t) in tuned.iter().enumerate() {
        let mut us: Vec<u64> = base.to_vec();
        if t.final_us.is_finite() && t.final_us >= 1.0 {
            us.push(t.final_us.round() as u64);
        }
        us.sort_unstable();
        us.dedup();
        jobs.extend(us.into_iter().map(|u| (pi, u)));
    }
    let mut out: Fixed = programs.iter().map(|_| Vec::new()).collect();
    let mut progress =
        crate::progress::Progress::new(ctx.exp.name, "fixed intervals", jobs.len() as u64);
    par_map(
        ctx.opts.jobs,
        &jobs,
        |&(pi, us)| {
            let p = &programs[pi];
            let (prof, _) =
                vm.profile(p, &timer_args(us, false), &format!("fixed-{}-{us}", p.name))?;
            Ok(score(&prof, &exact[pi]))
        },
        |i, m| {
            let (pi, us) = jobs[i];
            csv.row(&scored_row(&programs[pi].name, "fixed", us as f64, &m, ""))?;
            progress.step(&format!("{} {us}us", programs[pi].name));
            out[pi].push((us, m));
            Ok(())
        },
    )?;
    progress.finish();
    Ok(out)
}

/// Scores a CC-Map profile against the exact one.
fn score(p: &Profile, exact: &Profile) -> Scored {
    let mut calls: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
    for m in exact.methods.as_deref().unwrap_or_default() {
        calls.entry(m.name.as_str()).or_default().1 += m.calls as f64;
    }
    for n in p.cct.as_deref().unwrap_or_default() {
        if n.parent.is_some() {
            calls.entry(n.method.as_str()).or_default().0 += n.calls as f64;
        }
    }
    let (sampled, all) = calls
        .values()
        .fold((0.0, 0.0), |a, v| (a.0 + v.0, a.1 + v.1));
    let share = |x: f64, total: f64| if total > 0.0 { 100.0 * x / total } else { 0.0 };
    let worst = calls
        .iter()
        .map(|(m, v)| (m.to_string(), share(v.1, all), share(v.0, sampled)))
        .max_by(|a, b| (a.1 - a.2).abs().total_cmp(&(b.1 - b.2).abs()))
        .unwrap_or_default();
    let pairs: Vec<(f64, f64)> = calls.into_values().collect();
    let pct = |m: metrics::Metric| m.value().map_or(f64::NAN, |v| 100.0 * v);
    Scored {
        worst,
        sampled_calls: sampled,
        samples: p.run.samples,
        calls_corr: 100.0 * stats::pearson(&pairs).unwrap_or(f64::NAN),
        self_corr: pct(metrics::method_correlation(p, exact)),
        overlap: metrics::cct_overlap(p, exact).value().unwrap_or(f64::NAN),
        overhead: common::modelled_overhead(p),
        per_sample: p
            .run
            .profiler_cycles
            .map_or(f64::NAN, |c| c as f64 / p.run.samples.max(1) as f64),
    }
}

/// Per program, its name and the fixed run at its tuned final interval
/// (`None` where the tuned run ended elsewhere than a fixed one ran).
fn at_tuned<'a>(tuned: &[Tuned], fixed: &'a Fixed) -> Vec<Option<&'a Scored>> {
    tuned
        .iter()
        .zip(fixed)
        .map(|(t, f)| {
            f.iter()
                .find(|(us, _)| (*us as f64 - t.final_us).abs() < 0.5)
                .map(|r| &r.1)
        })
        .collect()
}

/// The fixed run with the best cct-overlap: (interval us, score).
fn best(runs: &[(u64, Scored)]) -> Option<&(u64, Scored)> {
    runs.iter()
        .filter(|r| r.1.overlap.is_finite())
        .max_by(|a, b| a.1.overlap.total_cmp(&b.1.overlap))
}

/// Our table beside the paper's Table 1.
fn table(programs: &[Program], tuned: &[Tuned], fixed: &Fixed) -> String {
    let mut rows = Vec::new();
    for (pi, p) in programs.iter().enumerate() {
        let t = &tuned[pi];
        let at_tuned = fixed[pi]
            .iter()
            .find(|(us, _)| (*us as f64 - t.final_us).abs() < 0.5)
            .map(|r| &r.1);
        let cell = |f: fn(&Scored) -> f64| at_tuned.map_or(String::new(), |m| num(f(m), 1));
        let b = best(&fixed[pi]);
        rows.push(vec![
            p.name.clone(),
            format!(
                "{INITIAL_US} -> {} ({} changes)",
                num(t.final_us, 0),
                t.steps.len().saturating_sub(1)
            ),
            cell(|m| m.calls_corr),
            cell(|m| m.self_corr),
            cell(|m| m.overlap),
            b.map_or(String::new(), |(us, m)| {
                format!("{:.1} at {us} us", m.overlap)
            }),
            format!(
                "{} ({} cycles a sample)",
                num(t.scored.overhead, 2),
                num(t.scored.per_sample, 0)
            ),
            "ours: against the exhaustive profile".into(),
        ]);
    }
    for (name, corr, overlap) in PAPER {
        rows.push(vec![
            format!("paper: {name}"),
            "10 ms fixed (tuning off)".into(),
            corr.to_string(),
            String::new(),
            overlap.to_string(),
            String::new(),
            String::new(),
            "paper: run against run, 10 runs".into(),
        ]);
    }
    rows.push(vec![
        "paper: overhead tests".into(),
        "tuned from 50 ms".into(),
        String::new(),
        String::new(),
        String::new(),
        String::new(),
        format!("at most {:.0}", sscli_cost::PAPER_OVERHEAD_PCT),
        "paper: against the unprofiled VM".into(),
    ]);
    markdown::table(
        &[
            "program",
            "tuned interval, us",
            "calls correlation, %",
            "self correlation, %",
            "cct-overlap",
            "best fixed cct-overlap",
            "tuned run's overhead, %",
            "compared with",
        ],
        &rows,
    )
}

/// The reading, from the numbers: runs that never reached one of the
/// tuner's evaluations are not counted as settled; "best" within a point,
/// as the claims count it.
fn reading(programs: &[Program], tuned: &[Tuned], fixed: &Fixed) -> String {
    let evaluated: Vec<usize> = tuned
        .iter()
        .filter(|t| t.scored.samples >= 1000)
        .map(|t| t.steps.len().saturating_sub(1))
        .collect();
    let settled = evaluated.iter().filter(|&&c| c <= 2).count();
    let at_best = programs
        .iter()
        .enumerate()
        .filter(|(pi, _)| {
            let Some((_, b)) = best(&fixed[*pi]) else {
                return false;
            };
            fixed[*pi]
                .iter()
                .find(|(us, _)| (*us as f64 - tuned[*pi].final_us).abs() < 0.5)
                .is_some_and(|(_, m)| m.overlap >= b.overlap - 1.0)
        })
        .count();
    let mut s = format!(
        "{} of {} tuned runs took 1000 samples or more, so reached at least one of the tuner's \
         evaluations",
        evaluated.len(),
        tuned.len()
    );
    if !evaluated.is_empty() {
        s.push_str(&format!(
            "; of those, {settled} changed the interval at most twice"
        ));
    }
    s.push_str(&format!(
        ". The tuned interval gave the best cct-overlap of the fixed intervals (within a point) \
         on {at_best} of {} benchmarks.",
        programs.len()
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_fixed_interval_is_the_highest_overlap_ignoring_undefined_ones() {
        let s = |overlap| Scored {
            samples: 1,
            calls_corr: 0.0,
            self_corr: 0.0,
            overlap,
            worst: Default::default(),
            sampled_calls: 0.0,
            overhead: 0.0,
            per_sample: 0.0,
        };
        let runs = vec![(10, s(80.0)), (30, s(f64::NAN)), (100, s(90.0))];
        assert_eq!(best(&runs).map(|r| r.0), Some(100));
        assert!(best(&[(10, s(f64::NAN))]).is_none());
    }
}
