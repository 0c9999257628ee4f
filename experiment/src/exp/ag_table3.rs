//! `arnold-grove-table3`: Arnold & Grove 2005, Table 3.
//!
//! Per benchmark, the overhead and the accuracy of the timer profile (the
//! paper's "Base": Jikes RVM's timer-triggered yieldpoint sampler) and of
//! counter-based sampling at the settings the paper chose (stride 3, 16
//! samples for Jikes RVM; stride 7, 16 samples for J9).
//!
//! - Accuracy: dcg-overlap with the exact DCG, `--clock=virtual`, seeds
//!   1..N, the median (deterministic, run in parallel).
//! - Overhead: the profiler's work in the cost model, as a share of the
//!   program's cycles (`run.profiler_cycles / run.cycles` of the same
//!   runs), the median over the seeds: deterministic, the same on every
//!   machine. With `--clock=wall`: the wall-clock time of `vm run` with
//!   the profile against `--profile=none`, one process at a time, the
//!   configurations interleaved round by round; the overhead is the median
//!   over rounds of each round's ratio, with its quartiles.

use crate::claims::{self, Claim};
use crate::csv::{num, Csv};
use crate::exp::common;
use crate::runner::{par_map, time_rounds};
use crate::table::Table;
use crate::{markdown, plot, stats, Context, Error};

/// The profiles compared: name and options.
const PROFILES: [(&str, &[&str]); 3] = [
    ("timer", &["--profile=timer"]),
    ("cbs 3/16", &["--profile=cbs", "--stride=3", "--samples=16"]),
    ("cbs 7/16", &["--profile=cbs", "--stride=7", "--samples=16"]),
];

/// The paper's averages (Table 3, "Average Small / Large / All"):
/// (row, Jikes Base, Jikes cbs 3/16, J9 cbs 1/1, J9 cbs 7/16), each
/// (overhead %, accuracy).
pub const PAPER: [(&str, [(f64, f64); 4]); 3] = [
    (
        "Average Small",
        [(0.0, 26.0), (0.3, 55.0), (0.0, 27.0), (0.2, 51.0)],
    ),
    (
        "Average Large",
        [(0.0, 50.0), (0.0, 69.0), (0.2, 46.0), (0.4, 74.0)],
    ),
    (
        "Average All",
        [(0.0, 38.0), (0.2, 62.0), (0.1, 37.0), (0.3, 64.0)],
    ),
];

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let seeds = if ctx.opts.quick { 1 } else { 3 };
    let rounds = ctx.runs(1, 5);
    let wall = ctx.opts.wall_clock;
    let programs = ctx.suite()?;
    let exact = common::exact_profiles(ctx, &programs)?;
    let timing = if wall {
        format!("rounds={rounds} overhead: clock=wall, interleaved rounds")
    } else {
        "overhead: cost model".to_string()
    };
    let mut csv = Csv::experiment(
        ctx,
        &format!("seeds={seeds} accuracy: clock=virtual; {timing}"),
        &["program", "measure", "profile", "run", "value"],
    )?;
    // Accuracy, in parallel.
    let mut jobs = Vec::new();
    for pi in 0..programs.len() {
        for k in 0..PROFILES.len() {
            for seed in 1..=seeds as u64 {
                jobs.push((pi, k, seed));
            }
        }
    }
    let vm = ctx.vm();
    let mut acc = vec![vec![Vec::new(); PROFILES.len()]; programs.len()];
    let mut ovh = vec![vec![Vec::new(); PROFILES.len()]; programs.len()];
    let mut progress = crate::progress::Progress::new(ctx.exp.name, "accuracy", jobs.len() as u64);
    par_map(
        ctx.opts.jobs,
        &jobs,
        |&(pi, k, seed)| {
            let mut args: Vec<String> = PROFILES[k].1.iter().map(|s| s.to_string()).collect();
            args.push("--clock=virtual".into());
            args.push(format!("--seed={seed}"));
            let (p, _) = vm.profile(&programs[pi], &args, &format!("acc-{pi}-{k}-{seed}"))?;
            Ok((
                common::dcg_overlap(&p, &exact[pi].0),
                common::modelled_overhead(&p),
            ))
        },
        |i, (overlap, cost)| {
            let (pi, k, seed) = jobs[i];
            acc[pi][k].push(overlap);
            csv.row(&[
                programs[pi].name.clone(),
                "dcg_overlap".into(),
                PROFILES[k].0.into(),
                seed.to_string(),
                num(overlap, 3),
            ])?;
            if !wall {
                ovh[pi][k].push(cost);
                csv.row(&[
                    programs[pi].name.clone(),
                    "overhead_pct".into(),
                    PROFILES[k].0.into(),
                    seed.to_string(),
                    num(cost, 4),
                ])?;
            }
            progress.step(&format!("{} {}", programs[pi].name, PROFILES[k].0));
            Ok(())
        },
    )?;
    progress.finish();

    if wall {
        wall_overheads(ctx, &programs, rounds, &mut csv, &mut ovh)?;
    }
    page(ctx, &programs, &acc, &ovh, seeds, rounds)
}

/// With `--clock=wall`: each profile's wall-clock overhead per program,
/// one program at a time, its configurations interleaved round by round
/// (rows `wall_s`); `ovh[program][profile]` gets each round's ratio.
fn wall_overheads(
    ctx: &Context,
    programs: &[crate::suite::Program],
    rounds: usize,
    csv: &mut Csv,
    ovh: &mut [Vec<Vec<f64>>],
) -> Result<(), Error> {
    let vm = ctx.vm();
    let mut progress = crate::progress::Progress::new(
        ctx.exp.name,
        "timing (one process at a time)",
        (programs.len() * rounds * (PROFILES.len() + 1)) as u64,
    );
    for (pi, prog) in programs.iter().enumerate() {
        let mut configs = Vec::new();
        let names: Vec<&str> = std::iter::once("none")
            .chain(PROFILES.iter().map(|p| p.0))
            .collect();
        for k in 0..=PROFILES.len() {
            let mut args = vec!["run".to_string(), prog.path.display().to_string()];
            args.extend(prog.set_args());
            if k == 0 {
                args.push("--profile=none".into());
            } else {
                args.extend(PROFILES[k - 1].1.iter().map(|s| s.to_string()));
            }
            configs.push(args);
        }
        let mut times = vec![vec![0.0; configs.len()]; rounds];
        time_rounds(&vm, &configs, rounds, |round, c, secs| {
            times[round][c] = secs;
            progress.step(&format!("{} {}", prog.name, names[c]));
            csv.row(&[
                prog.name.clone(),
                "wall_s".into(),
                names[c].into(),
                (round + 1).to_string(),
                num(secs, 6),
            ])
        })?;
        for k in 0..PROFILES.len() {
            ovh[pi][k] = times
                .iter()
                .map(|t| 100.0 * (t[k + 1] / t[0] - 1.0))
                .collect();
        }
    }
    progress.finish();
    Ok(())
}

/// The figure and the page, from the accuracies and overheads.
fn page(
    ctx: &Context,
    programs: &[crate::suite::Program],
    acc: &[Vec<Vec<f64>>],
    ovh: &[Vec<Vec<f64>>],
    seeds: usize,
    rounds: usize,
) -> Result<markdown::Page, Error> {
    let wall = ctx.opts.wall_clock;
    let mut rows = Vec::new();
    let mut series: Vec<plot::Series> =
        PROFILES.iter().map(|p| (p.0.to_string(), vec![])).collect();
    let mut groups = Vec::new();
    let mut means = vec![(Vec::new(), Vec::new()); PROFILES.len()];
    for (pi, prog) in programs.iter().enumerate() {
        let mut row = vec![prog.name.clone()];
        for k in 0..PROFILES.len() {
            let a = stats::median(&acc[pi][k]);
            let o = &ovh[pi][k];
            let (m, q1, q3) = (
                stats::median(o),
                stats::quantile(o, 0.25),
                stats::quantile(o, 0.75),
            );
            means[k].0.push(m);
            means[k].1.push(a);
            series[k].1.push(a);
            row.push(if wall && o.len() > 1 {
                format!("{m:.1} [{q1:.1}, {q3:.1}] / {a:.0}")
            } else if wall {
                format!("{m:.1} / {a:.0}")
            } else {
                format!("{m:.2} / {a:.0}")
            });
        }
        groups.push(prog.name.clone());
        rows.push(row);
    }
    let mut avg = vec!["**average**".to_string()];
    for (k, (o, a)) in means.iter().enumerate() {
        avg.push(if wall {
            format!("{:.1} / {:.0}", stats::mean(o), stats::mean(a))
        } else {
            format!("{:.2} / {:.0}", stats::mean(o), stats::mean(a))
        });
        series[k].1.push(stats::mean(a));
    }
    groups.push("mean".into());
    rows.push(avg);
    // The paper's overall averages as a last group: Jikes Base, Jikes 3/16, J9 7/16.
    let all = PAPER[2].1;
    groups.push("paper".into());
    series[0].1.push(all[0].1);
    series[1].1.push(all[1].1);
    series[2].1.push(all[3].1);
    rows.push(vec![
        "paper, Average All".into(),
        format!("{:.1} / {:.0} (Jikes Base)", all[0].0, all[0].1),
        format!("{:.1} / {:.0} (Jikes)", all[1].0, all[1].1),
        format!("{:.1} / {:.0} (J9)", all[3].0, all[3].1),
    ]);
    let mut bars = plot::Bars::new(
        format!(
            "accuracy per benchmark (median of {seeds} seed(s)); last: the paper's Average All"
        ),
        plot::Axis::percent("dcg-overlap with the exact DCG"),
        groups,
        &series,
    );
    bars.x_title = "benchmark".into();
    // The overhead beside it: per benchmark, the mean, the paper's.
    let paper_cost = [all[0].0, all[1].0, all[3].0];
    let cost_series: Vec<plot::Series> = PROFILES
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let mut v = means[k].0.clone();
            v.push(stats::mean(&means[k].0));
            v.push(paper_cost[k]);
            (p.0.to_string(), v)
        })
        .collect();
    let mut costs = plot::Bars::new(
        if wall {
            "overhead per benchmark, wall clock (median of the rounds); last: the paper's"
                .to_string()
        } else {
            "overhead per benchmark, the cost model; last: the paper's Average All".to_string()
        },
        plot::Axis::auto("overhead, % of the program's time"),
        bars.groups.clone(),
        &cost_series,
    );
    costs.x_title = "benchmark".into();
    let figures = plot::Figure {
        title: "Arnold & Grove 2005, Table 3: accuracy and overhead of the timer and of cbs".into(),
        panels: vec![plot::Panel::Bars(bars), plot::Panel::Bars(costs)],
        columns: 1,
    }
    .write(&ctx.out_file("svg"))?;
    let table = markdown::table(
        &[
            "benchmark",
            "timer: overhead % / accuracy",
            "cbs 3/16",
            "cbs 7/16",
        ],
        &rows,
    );
    let paper_rows: Vec<Vec<String>> = PAPER
        .iter()
        .map(|(name, cells)| {
            std::iter::once(name.to_string())
                .chain(cells.iter().map(|(o, a)| format!("{o:.1} / {a:.0}")))
                .collect()
        })
        .collect();
    let paper_table = markdown::table(
        &[
            "paper, Table 3",
            "Jikes Base (timer)",
            "Jikes cbs 3/16",
            "J9 cbs 1/1",
            "J9 cbs 7/16",
        ],
        &paper_rows,
    );
    let (ta, ca) = (stats::mean(&means[0].1), stats::mean(&means[1].1));
    let (to, co) = (stats::mean(&means[0].0), stats::mean(&means[1].0));
    let overhead_method = if wall {
        format!(
            "overhead is the wall-clock time against `--profile=none` (`--clock=wall`), the \
             median of {rounds} interleaved round(s) of each round's ratio, quartiles in brackets"
        )
    } else {
        "overhead is the profiler's work in the cost model as a percentage of the program's \
         cycles (`run.profiler_cycles / run.cycles` of the same runs; docs/PERFORMANCE.md, \
         \"What a profile costs\"), the median over the seeds; `--clock=wall` measures wall-clock \
         time instead"
            .to_string()
    };
    let overhead_reading = if wall {
        "The overheads are wall-clock times of whole processes: differences of a few percent \
         are within the noise (the quartiles show it)."
            .to_string()
    } else {
        format!(
            "The cost model charges the timer {to:.2}% and cbs 3/16 {co:.2}% of the programs' \
             cycles on average, against the paper's 0.0 and 0.2: the same on every run."
        )
    };
    Ok(markdown::Page {
        method: format!(
            "Per benchmark, the timer profile (the paper's \"Base\", Jikes RVM's timer-triggered \
             yieldpoint sampler) and counter-based sampling at the two settings the paper chose: \
             stride 3, 16 samples (Jikes RVM) and stride 7, 16 samples (J9). Accuracy is the \
             dcg-overlap with the exact DCG under `--clock=virtual`, the median of {seeds} \
             seed(s); {overhead_method}."
        ),
        results: format!(
            "Overhead % / accuracy per benchmark:\n\n{table}\nThe paper's averages (its \
             benchmarks are SPECjvm98 and others, so only the averages compare):\n\n{paper_table}"
        ),
        discussion: format!(
            "On average the timer scores {ta:.0} and cbs 3/16 {ca:.0} here, against the paper's 38 \
             and 62 (Jikes RVM). {overhead_reading}"
        ),
        table,
        figures,
    })
}

/// Per program, the median accuracy over the seeds of `profile`.
fn accuracy(t: &Table, profile: &str) -> Vec<(String, f64)> {
    per_program(t, "dcg_overlap", profile)
}

/// Per program, the median of `measure` over the runs of `profile`.
fn per_program(t: &Table, measure: &str, profile: &str) -> Vec<(String, f64)> {
    t.distinct("program")
        .into_iter()
        .map(|p| {
            let v: Vec<f64> = t
                .select(&[("program", &p), ("measure", measure), ("profile", profile)])
                .iter()
                .map(|r| r.num("value"))
                .collect();
            (p, stats::median(&v))
        })
        .collect()
}

/// The paper's claims on accuracy and, where the overhead is the cost
/// model's, on overhead (a wall-clock run's overheads are left unjudged:
/// noise of a few percent on a shared machine).
pub fn claims(t: &Table) -> Vec<Claim> {
    let mean = |v: &[(String, f64)]| stats::mean(&v.iter().map(|x| x.1).collect::<Vec<_>>());
    let timer = accuracy(t, "timer");
    let small = t.quick() || timer.len() < 5;
    let why = "a --quick run of 3 programs";
    let mut out = Vec::new();
    for (profile, paper, base) in [("cbs 3/16", 62.0, 38.0), ("cbs 7/16", 64.0, 37.0)] {
        let cbs = accuracy(t, profile);
        let (a, b) = (mean(&timer), mean(&cbs));
        out.push(
            Claim::judged(
                format!(
                    "{profile} is more accurate than the timer on average, by 10 points or more"
                ),
                format!("{base:.0} -> {paper:.0}"),
                claims::arrow(a, b, 0),
                b >= a + 10.0,
            )
            .unless_small(small, why),
        );
    }
    let cbs = accuracy(t, "cbs 3/16");
    let worse: Vec<&str> = timer
        .iter()
        .zip(&cbs)
        .filter(|(a, b)| b.1 < a.1 - 2.0)
        .map(|(a, _)| a.0.as_str())
        .collect();
    out.push(
        Claim::judged(
            "cbs 3/16 is at least as accurate as the timer on every benchmark (within 2 points)",
            "on 25 of 26 inputs (compress-large: 83 -> 81)",
            if worse.is_empty() {
                format!("on all {}", timer.len())
            } else {
                format!("not on {}", worse.join(", "))
            },
            worse.is_empty(),
        )
        .unless_small(small, why),
    );
    let cost = |profile| mean(&per_program(t, "overhead_pct", profile));
    let (timer_cost, cbs_cost) = (cost("timer"), cost("cbs 3/16"));
    let unmodelled = timer_cost.is_nan() || cbs_cost.is_nan();
    let cost_why = "overhead measured on the wall clock (--clock=wall)";
    let judge = |c: Claim| {
        if unmodelled {
            c.unjudged(cost_why)
        } else {
            c.unless_small(small, why)
        }
    };
    out.push(judge(Claim::judged(
        "cbs 3/16 costs under 1% of the program's time on average",
        "0.2%",
        format!("{cbs_cost:.2}%"),
        cbs_cost < 1.0,
    )));
    out.push(judge(Claim::judged(
        "the timer costs less than cbs 3/16 on average",
        "0.0 against 0.2%",
        format!("{timer_cost:.2} against {cbs_cost:.2}%"),
        timer_cost < cbs_cost,
    )));
    out
}
