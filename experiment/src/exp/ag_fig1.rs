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

use crate::csv::{num, Csv};
use crate::runner::par_map;
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
pub fn run(ctx: &Context) -> Result<String, Error> {
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
    let mut series: Vec<plot::Series> = CALLEES.iter().map(|c| (c.to_string(), vec![])).collect();
    let mut groups = Vec::new();
    for (pi, prog) in programs.iter().enumerate() {
        for (ki, (kind, _)) in KINDS.iter().enumerate() {
            let s = &shares[pi][ki];
            let mut cell = |c: usize| {
                let v: Vec<f64> = s.iter().map(|p| p[c]).collect();
                let (m, lo, hi) = (
                    stats::mean(&v),
                    stats::quantile(&v, 0.0),
                    stats::quantile(&v, 1.0),
                );
                series[c].1.push(m);
                if v.len() > 1 {
                    format!("{m:.1} [{lo:.1}-{hi:.1}]")
                } else {
                    format!("{m:.1}")
                }
            };
            let c1 = cell(0);
            let c2 = cell(1);
            groups.push(if programs.len() > 1 {
                format!("{} {kind}", prog.name)
            } else {
                kind.to_string()
            });
            rows.push(vec![
                if programs.len() > 1 {
                    format!("{} {kind}", prog.name)
                } else {
                    kind.to_string()
                },
                c1,
                c2,
                paper[ki].to_string(),
            ]);
        }
    }
    plot::grouped_bars(
        &ctx.out_file("svg"),
        &format!("Arnold & Grove Fig. 1: share of the DCG weight per edge ({runs} seeds)"),
        "% of DCG weight",
        &groups,
        &series,
        (0.0, 100.0),
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
    let reading = reading(&shares);
    let doc = markdown::document(
        "arnold-grove-fig1: Arnold & Grove 2005, Figure 1",
        &format!(
            "Share of the DCG weight on the edges M->call_1 and M->call_2, in percent; \
             sampled profiles under `--clock=virtual` (1 ms ticks of simulated time), mean over \
             seeds 1..{runs} with the range in brackets. The paper gives the program and the argument, \
             not a measurement."
        ),
        &table,
        &reading,
    );
    crate::write_file(&ctx.out_file("md"), &doc)?;
    Ok(table)
}

/// The honest reading of the numbers of the first program.
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
        format!("Counter-based sampling (stride 3, 16 samples per tick) spreads its samples over the following calls and comes within {:.0} points of the exact split ({c1:.0}/{c2:.0}).", (c1 - 50.0).abs().max((c2 - 50.0).abs()))
    } else {
        format!("Counter-based sampling comes out at {c1:.0}/{c2:.0}, further from 50/50 than the paper's argument suggests.")
    };
    format!("{timer} {cbs} The ticks are in simulated time, so every run with the same seed gives the same profile; on the wall clock the skew is the same in kind (the tick still lands in the run of non-calls).")
}
