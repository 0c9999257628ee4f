//! `arnold-grove-fig1`: Arnold & Grove 2005, Figure 1.
//!
//! The figure is a program: a loop whose body is a long run of field
//! updates and then two calls to tiny methods, `call_1()` and `call_2()`.
//! Each iteration calls both once, so the exact DCG gives each edge half
//! the weight. The paper argues (section 3.3) that a timer-triggered
//! yieldpoint sampler sees `call_1` hot and `call_2` cold (the tick lands
//! in the long run of non-calls and is taken at the next prologue, which is
//! `call_1`'s), and that counter-based sampling spreads its samples over
//! the calls that follow. It prints no numbers; this experiment measures
//! the shares on `programs/examples/arnold-grove-fig1.bc` under the exact
//! profile and under `timer` and `cbs` (`--clock=virtual`, seeds 1..runs).

use crate::claims::Claim;
use crate::csv::{num, Csv};
use crate::runner::par_map;
use crate::table::Table;
use crate::{markdown, plot, stats, Context, Error};

/// The sampled profiles and their options (the exact one is `exhaustive`).
const KINDS: &[(&str, &[&str])] = &[
    ("exact", &["--profile=exhaustive"]),
    ("timer", &["--profile=timer", "--clock=virtual"]),
    ("cbs", &["--profile=cbs", "--clock=virtual"]),
];

/// The two callees of the figure.
const CALLEES: [&str; 2] = ["call_1", "call_2"];

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let runs = ctx.runs(2, 10);
    let programs = ctx.programs(&["arnold-grove-fig1"])?;
    // One job per (program, kind, seed); the exact profile once.
    let mut jobs = Vec::new();
    for (pi, _) in programs.iter().enumerate() {
        for (ki, (kind, _)) in KINDS.iter().enumerate() {
            let seeds = if *kind == "exact" { 1 } else { runs };
            for s in 1..=seeds {
                jobs.push((pi, ki, s as u64));
            }
        }
    }
    let mut csv = Csv::experiment(
        ctx,
        &format!("runs={runs} clock=virtual interval=1ms cbs=stride 3 samples 16"),
        &[
            "program",
            "profile",
            "seed",
            "callee",
            "weight",
            "share_pct",
            "samples",
        ],
    )?;
    let vm = ctx.vm();
    let mut progress = crate::progress::Progress::new(ctx.exp.name, "profiling", jobs.len() as u64);
    // shares[program][kind] = per seed, (call_1 %, call_2 %)
    let mut shares = vec![vec![Vec::<[f64; 2]>::new(); KINDS.len()]; programs.len()];
    par_map(
        ctx.opts.jobs,
        &jobs,
        |&(pi, ki, seed)| {
            let (kind, opts) = KINDS[ki];
            let mut args: Vec<String> = opts.iter().map(|s| s.to_string()).collect();
            if kind != "exact" {
                args.push(format!("--seed={seed}"));
            }
            let tag = format!("{pi}-{kind}-{seed}");
            let (p, _) = vm.profile(&programs[pi], &args, &tag)?;
            let dcg = p.dcg.unwrap_or_default();
            let total: u64 = dcg.iter().map(|e| e.weight).sum();
            let w: Vec<u64> = CALLEES
                .iter()
                .map(|c| {
                    dcg.iter()
                        .filter(|e| e.callee == *c)
                        .map(|e| e.weight)
                        .sum()
                })
                .collect();
            Ok((w, total, p.run.samples))
        },
        |i, (w, total, samples)| {
            let (pi, ki, seed) = jobs[i];
            let mut pair = [0.0; 2];
            for (c, callee) in CALLEES.iter().enumerate() {
                let share = if total == 0 {
                    0.0
                } else {
                    100.0 * w[c] as f64 / total as f64
                };
                pair[c] = share;
                csv.row(&[
                    programs[pi].name.clone(),
                    KINDS[ki].0.to_string(),
                    if KINDS[ki].0 == "exact" {
                        String::new()
                    } else {
                        seed.to_string()
                    },
                    callee.to_string(),
                    w[c].to_string(),
                    num(share, 3),
                    samples.to_string(),
                ])?;
            }
            shares[pi][ki].push(pair);
            progress.step(&format!(
                "{} {} seed {seed}",
                programs[pi].name, KINDS[ki].0
            ));
            Ok(())
        },
    )?;
    progress.finish();

    let paper = [
        "50 / 50 (one call of each per iteration)",
        "call_1 hot, call_2 cold (section 3.3, no number given)",
        "both edges seen alike (section 4, no number given)",
    ];
    let mut rows = Vec::new();
    let mut series: Vec<plot::BarSeries> = CALLEES
        .iter()
        .map(|c| plot::BarSeries {
            name: c.to_string(),
            bars: vec![],
        })
        .collect();
    let mut groups = Vec::new();
    let mut distinct = 0;
    for (pi, prog) in programs.iter().enumerate() {
        for (ki, (kind, _)) in KINDS.iter().enumerate() {
            let s = &shares[pi][ki];
            let mut kinds: Vec<[u64; 2]> =
                s.iter().map(|p| [p[0].to_bits(), p[1].to_bits()]).collect();
            kinds.sort();
            kinds.dedup();
            if *kind != "exact" {
                distinct = distinct.max(kinds.len());
            }
            let mut cell = |c: usize| {
                let v: Vec<f64> = s.iter().map(|p| p[c]).collect();
                let (m, lo, hi) = (
                    stats::mean(&v),
                    stats::quantile(&v, 0.0),
                    stats::quantile(&v, 1.0),
                );
                series[c].bars.push(plot::Bar::from_runs(&v));
                if lo < hi {
                    format!("{m:.1} [{lo:.1}-{hi:.1}]")
                } else {
                    format!("{m:.1}")
                }
            };
            let c1 = cell(0);
            let c2 = cell(1);
            let label = if programs.len() > 1 {
                format!("{} {kind}", prog.name)
            } else {
                kind.to_string()
            };
            groups.push(label.clone());
            rows.push(vec![label, c1, c2, paper[ki].to_string()]);
        }
    }
    let runs_said = if distinct <= 1 {
        format!("{runs} seeds, one distinct profile each")
    } else {
        format!("{runs} seeds, up to {distinct} distinct profiles")
    };
    let figures = plot::one(
        &ctx.out_file("svg"),
        "Arnold & Grove 2005, Figure 1: the timer's skew on the figure's program",
        plot::Panel::Bars(plot::Bars {
            title: format!("share of the DCG weight per edge ({runs_said})"),
            x_title: "profile".into(),
            y: plot::Axis::percent("% of the DCG weight"),
            groups,
            series,
        }),
    )?;
    let table = markdown::table(
        &[
            "profile",
            "call_1 % (ours)",
            "call_2 % (ours)",
            "paper (Figure 1, section 3.3)",
        ],
        &rows,
    );
    Ok(markdown::Page {
        method: format!(
            "The paper's Figure 1 is a program: a loop whose body is a long run of field \
             updates, then a call to `call_1()` and a call to `call_2()`. The paper argues \
             (section 3.3) that a timer that sets a flag checked at yieldpoints sees `call_1` \
             hot and `call_2` cold: the tick lands in the run of non-calls and is taken at the \
             next prologue, `call_1`'s; and (section 4) that counter-based sampling, which \
             samples every stride-th call after a tick, sees both. The experiment measures the \
             share of the DCG weight on the two edges of `programs/examples/arnold-grove-fig1.bc` \
             under the exact profile and under `--profile=timer` and `--profile=cbs` (stride 3, \
             16 samples per tick, the Jikes RVM setting) with `--clock=virtual` (1 ms ticks of \
             simulated time), seeds 1 to {runs}. The paper prints no numbers for this figure.",
        ),
        results: format!(
            "Share of the DCG weight on the edges M->call_1 and M->call_2, in percent: the mean \
             over the seeds, with the range in brackets where the seeds differ ({runs_said}).\n\n{table}"
        ),
        discussion: reading(&shares),
        table,
        figures,
    })
}

/// The mean share of `callee` under `profile` in the CSV.
fn share(t: &Table, profile: &str, callee: &str) -> f64 {
    let v: Vec<f64> = t
        .select(&[("profile", profile), ("callee", callee)])
        .iter()
        .map(|r| r.num("share_pct"))
        .collect();
    stats::mean(&v)
}

/// The paper's claims: the exact split, the timer's skew, cbs's balance.
pub fn claims(t: &Table) -> Vec<Claim> {
    let s = |p, c| share(t, p, c);
    let (e1, e2) = (s("exact", "call_1"), s("exact", "call_2"));
    let (t1, t2) = (s("timer", "call_1"), s("timer", "call_2"));
    let (c1, c2) = (s("cbs", "call_1"), s("cbs", "call_2"));
    vec![
        Claim::judged(
            "the exact profile splits the weight 50/50 (within 0.5 points)",
            "50 / 50: one call of each per iteration",
            format!("{e1:.1} / {e2:.1}"),
            (e1 - 50.0).abs() <= 0.5 && (e2 - 50.0).abs() <= 0.5,
        ),
        Claim::judged(
            "the timer sees call_1 hot and call_2 cold (call_1 ahead by 20 points or more)",
            "call_1 hot, call_2 cold (section 3.3, no number)",
            format!("{t1:.1} / {t2:.1}"),
            t1 >= t2 + 20.0,
        ),
        Claim::judged(
            "cbs sees both edges alike (each within 10 points of 50)",
            "both edges sampled (section 4, no number)",
            format!("{c1:.1} / {c2:.1}"),
            (c1 - 50.0).abs() <= 10.0 && (c2 - 50.0).abs() <= 10.0,
        ),
    ]
}

/// The reading of the numbers of the first program, every sentence
/// conditioned on them.
fn reading(shares: &[Vec<Vec<[f64; 2]>>]) -> String {
    let Some(s) = shares.first() else {
        return String::new();
    };
    let m = |k: usize, c: usize| stats::mean(&s[k].iter().map(|p| p[c]).collect::<Vec<_>>());
    let (t1, t2, c1, c2) = (m(1, 0), m(1, 1), m(2, 0), m(2, 1));
    let timer = if t1 > t2 + 10.0 {
        format!("The timer profile shows the skew the paper predicts: call_1 gets {t1:.0}% of the weight and call_2 {t2:.0}%, where the truth is 50/50.")
    } else {
        format!("The timer profile does not show the skew the paper predicts here (call_1 {t1:.0}%, call_2 {t2:.0}%).")
    };
    let cbs = if (c1 - 50.0).abs() < 10.0 && (c2 - 50.0).abs() < 10.0 {
        format!("Counter-based sampling (stride 3, 16 samples per tick) spreads its samples over the following calls and comes within {:.1} points of the exact split ({c1:.1}/{c2:.1}).", (c1 - 50.0).abs().max((c2 - 50.0).abs()))
    } else {
        format!("Counter-based sampling comes out at {c1:.0}/{c2:.0}, further from 50/50 than the paper's argument suggests.")
    };
    let same = |k: usize| s[k].windows(2).all(|w| w[0] == w[1]);
    let seeds = if same(1) && s[1].len() > 1 {
        " Every seed gave the same timer profile: under the virtual clock the ticks fall at the same simulated times in every run."
    } else {
        ""
    };
    format!("{timer} {cbs}{seeds}")
}
