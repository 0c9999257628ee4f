//! `run-length`: accuracy against run length (Arnold & Grove 2005,
//! section 6.2 and Table 3: each benchmark at a small and a large input).
//!
//! The paper explains the low accuracy of its small inputs by "the short
//! running nature of the applications": a timer-triggered profile takes
//! its samples at the ticks, and a short run has few ticks. Its Table 3
//! shows accuracy rising from the small to the large inputs for the timer
//! (26 -> 50 on Jikes RVM) and for cbs (55 -> 69). Under the virtual clock
//! a run's length is exact and costs no noise, so this experiment runs
//! every program of the suite at its default size (`--quick`'s, the Are
//! We Fast Yet default `inner`) repeated 1, 4, 16 and 64 times (`--set
//! iterations=K`, the suite's outer loop: the same calls in the same
//! proportions, K times as many ticks), and scores the timer profile
//! (`--profile=timer`, 1 ms) and cbs at the paper's Jikes RVM setting
//! (`--stride=3 --samples=16`), both `--clock=virtual`, seeds 1..3, with
//! dcg-overlap against the exhaustive profile of the same run.

use crate::claims::{self, Claim};
use crate::csv::{num, Csv};
use crate::exp::common;
use crate::runner::par_map;
use crate::suite::Program;
use crate::table::Table;
use crate::{markdown, plot, stats, Context, Error};

/// The repetitions of a full run and of `--quick`.
const ITERATIONS: [i64; 4] = [1, 4, 16, 64];
const ITERATIONS_QUICK: [i64; 2] = [1, 4];

/// The profiles scored: CSV key, options.
pub const PROFILES: [(&str, &[&str]); 2] = [
    ("timer", &["--profile=timer", "--clock=virtual"]),
    (
        "cbs",
        &[
            "--profile=cbs",
            "--stride=3",
            "--samples=16",
            "--clock=virtual",
        ],
    ),
];

/// The paper's Table 3 averages, small -> large inputs: (profile, Jikes
/// RVM, J9).
const PAPER: [(&str, &str); 2] = [
    (
        "timer",
        "26 -> 50 (Jikes RVM), 27 -> 46 (J9), small -> large inputs",
    ),
    ("cbs", "55 -> 69 (Jikes RVM, 3/16), 51 -> 74 (J9, 7/16)"),
];

/// The paper's per-benchmark count (Table 3, Jikes RVM): on how many of
/// its 13 benchmarks the large input is the more accurate.
const PAPER_COUNT: [(&str, &str); 2] = [
    ("timer", "higher on 13 of 13 (Jikes RVM)"),
    (
        "cbs",
        "higher on 10 of 13; lower on db and xerces (Jikes RVM)",
    ),
];

/// The CSV's columns.
const COLUMNS: [&str; 8] = [
    "program",
    "iterations",
    "cycles",
    "calls",
    "profile",
    "seed",
    "samples",
    "dcg_overlap",
];

/// One scored run.
#[derive(Clone, Copy, Debug)]
struct Scored {
    samples: u64,
    overlap: f64,
}

/// The program at `k` repetitions of its default size, named
/// `NAME-xK` (its runs' scratch files differ from the other sizes').
fn sized(p: &Program, k: i64) -> Program {
    Program {
        name: format!("{}-x{k}", p.name),
        path: p.path.clone(),
        set: vec![("iterations".into(), k)],
    }
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let iterations: &[i64] = if ctx.opts.quick {
        &ITERATIONS_QUICK
    } else {
        &ITERATIONS
    };
    let seeds = if ctx.opts.quick { 1 } else { 3 };
    // Every program at its default size: `--quick`'s resolution.
    let names: Vec<String> = ctx.suite()?.into_iter().map(|p| p.name).collect();
    let base = crate::suite::resolve(&ctx.opts.root, &names, true)?;
    let programs: Vec<Program> = base
        .iter()
        .flat_map(|p| iterations.iter().map(move |&k| sized(p, k)))
        .collect();
    let exact = common::exact_profiles(ctx, &programs)?;
    let mut csv = Csv::experiment(
        ctx,
        &format!(
            "iterations={} seeds={seeds} timer: --profile=timer --clock=virtual (1 ms); \
             cbs: --stride=3 --samples=16 --clock=virtual; accuracy: dcg-overlap with the \
             exhaustive profile",
            iterations
                .iter()
                .map(|k| k.to_string())
                .collect::<Vec<_>>()
                .join(",")
        ),
        &COLUMNS,
    )?;
    let jobs: Vec<(usize, usize, u64)> = (0..programs.len())
        .flat_map(|p| {
            (0..PROFILES.len()).flat_map(move |k| (1..=seeds as u64).map(move |s| (p, k, s)))
        })
        .collect();
    let vm = ctx.vm();
    let mut progress = crate::progress::Progress::new(ctx.exp.name, "profiles", jobs.len() as u64);
    par_map(
        ctx.opts.jobs,
        &jobs,
        |&(p, k, seed)| {
            let mut args: Vec<String> = PROFILES[k].1.iter().map(|s| s.to_string()).collect();
            args.push(format!("--seed={seed}"));
            let tag = format!("{}-{p}-{}-{seed}", programs[p].name, PROFILES[k].0);
            let (prof, _) = vm.profile(&programs[p], &args, &tag)?;
            Ok(Scored {
                samples: prof.run.samples,
                overlap: common::dcg_overlap(&prof, &exact[p].0),
            })
        },
        |i, s| {
            let (p, k, seed) = jobs[i];
            progress.step(&programs[p].name);
            csv.row(&[
                base[p / iterations.len()].name.clone(),
                programs[p].set[0].1.to_string(),
                exact[p].0.run.cycles.unwrap_or(0).to_string(),
                common::calls(&exact[p].0).to_string(),
                PROFILES[k].0.into(),
                seed.to_string(),
                s.samples.to_string(),
                num(s.overlap, 3),
            ])
        },
    )?;
    progress.finish();
    let t = Table::read(&ctx.out_file("csv"))?;
    let figures = draw(ctx, &t)?;
    let table = results_table(&t);
    Ok(markdown::Page {
        method: method(&base, iterations, seeds),
        results: format!(
            "Per program and repetitions: the run's length in cycles, and each profile's \
             samples and dcg-overlap (medians over the seeds):\n\n{table}\n\
             Suite means:\n\n{}",
            means_table(&t)
        ),
        discussion: discussion(&t),
        table,
        figures,
    })
}

/// The method, in words.
fn method(base: &[Program], iterations: &[i64], seeds: usize) -> String {
    format!(
        "Arnold & Grove run each benchmark at a small and a large input (their Table 1: \
         0.5-4.5 s and 5-82 s on Jikes RVM) and report the accuracy of each profile at both \
         (Table 3). Here each of the {} programs runs at its default size (the Are We Fast \
         Yet `inner` of `--quick`) repeated K = {} times (`--set iterations=K`: the same \
         calls in the same proportions, K times as many timer ticks), so that only the run \
         length changes. Each run is profiled exhaustively, with the timer \
         (`--profile=timer`, one sample per 1 ms tick) and with cbs at the paper's Jikes \
         RVM setting (`--profile=cbs --stride=3 --samples=16`), both under \
         `--clock=virtual`, seeds 1 to {seeds}; accuracy is dcg-overlap with the exhaustive \
         profile of the same run, the median over the seeds. The virtual clock ticks every \
         10^6 cycles of the cost model, so a run of C cycles gives the timer about C / 10^6 \
         samples and cbs 16 times as many.",
        base.len(),
        iterations
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    )
}

/// The medians over the seeds: `[(program, iterations, cycles, [(samples,
/// overlap) per profile])]`, in the CSV's order.
type Medians = Vec<Median>;

/// One program at one length: its name, repetitions, cycles and per
/// profile (samples, overlap).
type Median = (String, i64, f64, Vec<(f64, f64)>);

/// The CSV's medians per program, repetitions and profile.
fn medians(t: &Table) -> Medians {
    let mut out: Medians = Vec::new();
    for r in t.all() {
        let (name, k) = (r.get("program").to_string(), r.num("iterations") as i64);
        if !out.iter().any(|m| m.0 == name && m.1 == k) {
            out.push((name, k, r.num("cycles"), Vec::new()));
        }
    }
    for m in &mut out {
        let k = m.1.to_string();
        m.3 = PROFILES
            .iter()
            .map(|(key, _)| {
                let rows = t.select(&[("program", &m.0), ("iterations", &k), ("profile", key)]);
                let col =
                    |c: &str| stats::median(&rows.iter().map(|r| r.num(c)).collect::<Vec<_>>());
                (col("samples"), col("dcg_overlap"))
            })
            .collect();
    }
    out
}

/// The repetitions of the CSV, in order.
fn repetitions(t: &Table) -> Vec<i64> {
    let mut v: Vec<i64> = t
        .distinct("iterations")
        .iter()
        .filter_map(|s| s.parse().ok())
        .collect();
    v.sort();
    v
}

/// The suite's mean (samples, dcg-overlap) of profile `k` at each
/// repetition count.
fn suite_means(m: &Medians, reps: &[i64], k: usize) -> Vec<(f64, f64)> {
    reps.iter()
        .map(|&n| {
            let at: Vec<&(f64, f64)> = m.iter().filter(|x| x.1 == n).map(|x| &x.3[k]).collect();
            (
                stats::mean(&at.iter().map(|x| x.0).collect::<Vec<_>>()),
                stats::mean(&at.iter().map(|x| x.1).collect::<Vec<_>>()),
            )
        })
        .collect()
}

/// Per program and repetitions: cycles, each profile's samples and
/// overlap.
fn results_table(t: &Table) -> String {
    let rows: Vec<Vec<String>> = medians(t)
        .iter()
        .map(|(name, k, cycles, per)| {
            let mut row = vec![name.clone(), k.to_string(), format!("{cycles:.3e}")];
            for (s, o) in per {
                row.push(format!("{s:.0}"));
                row.push(num(*o, 1));
            }
            row
        })
        .collect();
    markdown::table(
        &[
            "program",
            "x",
            "cycles",
            "timer samples",
            "timer dcg-overlap",
            "cbs samples",
            "cbs dcg-overlap",
        ],
        &rows,
    )
}

/// Per repetition count: each profile's mean samples and overlap.
fn means_table(t: &Table) -> String {
    let (m, reps) = (medians(t), repetitions(t));
    let per: Vec<Vec<(f64, f64)>> = (0..PROFILES.len())
        .map(|k| suite_means(&m, &reps, k))
        .collect();
    let rows: Vec<Vec<String>> = reps
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut row = vec![n.to_string()];
            for p in &per {
                row.push(format!("{:.0}", p[i].0));
                row.push(num(p[i].1, 1));
            }
            row
        })
        .collect();
    markdown::table(
        &[
            "x",
            "timer samples",
            "timer dcg-overlap",
            "cbs samples",
            "cbs dcg-overlap",
        ],
        &rows,
    )
}

/// Per program: profile `k`'s overlap at the fewest and the most
/// repetitions.
fn ends(m: &Medians, reps: &[i64], k: usize) -> Vec<(String, f64, f64)> {
    let (Some(lo), Some(hi)) = (reps.first(), reps.last()) else {
        return Vec::new();
    };
    let at = |name: &str, n: i64| {
        m.iter()
            .find(|x| x.0 == name && x.1 == n)
            .map_or(f64::NAN, |x| x.3[k].1)
    };
    let mut names: Vec<String> = m.iter().map(|x| x.0.clone()).collect();
    names.dedup();
    names
        .into_iter()
        .map(|n| {
            let (a, b) = (at(&n, *lo), at(&n, *hi));
            (n, a, b)
        })
        .collect()
}

/// A program's accuracy counts as not lower if it is within this many
/// points of the shortest run's.
const SAME: f64 = 1.0;

/// The paper's claims on run length, judged on the CSV.
pub fn claims(t: &Table) -> Vec<Claim> {
    let small = t.quick();
    let why = "a --quick run has three programs at two lengths";
    let (m, reps) = (medians(t), repetitions(t));
    let mut out = Vec::new();
    for (k, (key, _)) in PROFILES.iter().enumerate() {
        let means = suite_means(&m, &reps, k);
        let (first, last) = (
            means.first().map_or(f64::NAN, |x| x.1),
            means.last().map_or(f64::NAN, |x| x.1),
        );
        out.push(
            Claim::judged(
                format!("{key}: the suite's mean accuracy rises with run length"),
                PAPER[k].1,
                format!(
                    "{} from x{} to x{} ({})",
                    claims::arrow(first, last, 1),
                    reps.first().unwrap_or(&0),
                    reps.last().unwrap_or(&0),
                    means
                        .iter()
                        .map(|x| format!("{:.1}", x.1))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                last > first,
            )
            .unless_small(small, why),
        );
        let e = ends(&m, &reps, k);
        let lower: Vec<&str> = e
            .iter()
            .filter(|x| x.2 < x.1 - SAME)
            .map(|x| x.0.as_str())
            .collect();
        let higher = e.iter().filter(|x| x.2 > x.1 + SAME).count();
        out.push(
            Claim::judged(
                format!(
                    "{key}: the longest run is not less accurate than the shortest (within {SAME} point) on most programs"
                ),
                PAPER_COUNT[k].1,
                format!(
                    "higher on {higher}, lower on {} of {} ({})",
                    lower.len(),
                    e.len(),
                    if lower.is_empty() { "none".into() } else { lower.join(", ") }
                ),
                2 * lower.len() < e.len(),
            )
            .unless_small(small, why),
        );
    }
    let (timer, cbs) = (suite_means(&m, &reps, 0), suite_means(&m, &reps, 1));
    let better = timer.iter().zip(&cbs).filter(|(a, b)| b.1 > a.1).count();
    out.push(
        Claim::judged(
            "cbs is more accurate than the timer at every run length (suite means)",
            "55 vs 26 small, 69 vs 50 large (Jikes RVM)",
            format!(
                "at {better} of {} lengths: {}",
                reps.len(),
                timer
                    .iter()
                    .zip(&cbs)
                    .zip(&reps)
                    .map(|((a, b), n)| format!("x{n} {:.1} vs {:.1}", b.1, a.1))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            better == reps.len() && !reps.is_empty(),
        )
        .unless_small(small, why),
    );
    out
}

/// What the numbers say, computed from them.
fn discussion(t: &Table) -> String {
    let (m, reps) = (medians(t), repetitions(t));
    let (timer, cbs) = (suite_means(&m, &reps, 0), suite_means(&m, &reps, 1));
    let (Some(lo), Some(hi)) = (reps.first(), reps.last()) else {
        return String::new();
    };
    let none_at = |k: usize| -> String {
        let v: Vec<&str> = m
            .iter()
            .filter(|x| x.1 == *lo && x.3[k].0 == 0.0)
            .map(|x| x.0.as_str())
            .collect();
        if v.is_empty() {
            "none".into()
        } else {
            v.join(", ")
        }
    };
    let fell = |k: usize| -> String {
        let v: Vec<String> = ends(&m, &reps, k)
            .iter()
            .filter(|x| x.2 < x.1 - SAME)
            .map(|x| format!("{} ({:.1} -> {:.1})", x.0, x.1, x.2))
            .collect();
        if v.is_empty() {
            "none".into()
        } else {
            v.join(", ")
        }
    };
    let never_text = timer_blind(t, &m, *hi);
    format!(
        "**More samples.** A run repeated {hi} times takes {hi} times the ticks: the timer's \
         mean samples go from {:.0} at x{lo} to {:.0} at x{hi}, cbs's from {:.0} to {:.0}. Runs \
         that end before the first tick take no sample at all and score 0; at x{lo}: the \
         timer on {}, cbs on {}. This is the paper's first source of inaccuracy (section \
         3.3: \"for short running programs not enough samples are taken\"), with nothing \
         else changed: the same calls in the same proportions.\n\n\
         **Where the longest run is less accurate** than the shortest (by more than {SAME} \
         point): timer {}; cbs {}.{} The paper's large inputs are other inputs, with other \
         calls, so its per-benchmark changes mix run length with program behaviour (db's cbs \
         accuracy falls from 46 to 25); here only the length changes.",
        timer.first().map_or(0.0, |x| x.0),
        timer.last().map_or(0.0, |x| x.0),
        cbs.first().map_or(0.0, |x| x.0),
        cbs.last().map_or(0.0, |x| x.0),
        none_at(0),
        none_at(1),
        fell(0),
        fell(1),
        never_text,
    )
}

/// The programs the timer scores 0 on at every length, with their calls
/// per tick and cbs's score at the longest (empty if there are none).
fn timer_blind(t: &Table, m: &Medians, hi: i64) -> String {
    let rows: Vec<&Median> = m
        .iter()
        .filter(|x| x.1 == hi && m.iter().filter(|y| y.0 == x.0).all(|y| y.3[0].1 == 0.0))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = rows.iter().map(|x| x.0.as_str()).collect();
    let cbs: Vec<String> = rows
        .iter()
        .map(|x| format!("{:.1} ({})", x.3[1].1, x.0))
        .collect();
    let per_tick: Vec<(&str, f64)> = rows
        .iter()
        .map(|x| {
            let calls = t
                .select(&[("program", &x.0), ("iterations", &hi.to_string())])
                .first()
                .map_or(f64::NAN, |r| r.num("calls"));
            (x.0.as_str(), calls / (x.2 / 1e6))
        })
        .collect();
    let listed: Vec<String> = per_tick
        .iter()
        .map(|(n, c)| format!("{n} {c:.1}"))
        .collect();
    let few = if per_tick.iter().all(|x| x.1 < 48.0) {
        ", fewer than cbs's window of 48 calls after a tick"
    } else {
        ""
    };
    format!(
        " **Where more ticks do not help the timer:** it scores 0 at every length on {}, whose \
         samples find none of the calls. Their calls per 1 ms tick: {}{few}; a program that \
         calls this seldom is seldom in a call when it ticks, however many ticks there are; \
         cbs, which samples the calls after a tick, reaches {} on them at x{hi}.",
        names.join(", "),
        listed.join(", "),
        cbs.join(", ")
    )
}

/// Two panels: the suite's mean accuracy against repetitions (log axis),
/// and per program the change of accuracy from the fewest to the most
/// repetitions (the same colour per profile in both).
fn draw(ctx: &Context, t: &Table) -> Result<Vec<std::path::PathBuf>, Error> {
    let (m, reps) = (medians(t), repetitions(t));
    let series: Vec<plot::XySeries> = PROFILES
        .iter()
        .enumerate()
        .map(|(k, (key, _))| plot::XySeries {
            name: key.to_string(),
            points: reps
                .iter()
                .zip(suite_means(&m, &reps, k))
                .map(|(n, x)| (*n as f64, x.1))
                .collect(),
            labels: Vec::new(),
            style: plot::Style::Line,
        })
        .collect();
    let mean = plot::Panel::Xy(plot::Xy {
        title: "suite mean accuracy against run length".into(),
        x: plot::Axis::log("run length: repetitions of the default size (log)"),
        y: plot::Axis::percent("dcg-overlap"),
        series,
        pareto: false,
    });
    let (lo, hi) = (
        reps.first().copied().unwrap_or(1),
        reps.last().copied().unwrap_or(1),
    );
    let mut groups = Vec::new();
    let mut bars: Vec<plot::Series> = Vec::new();
    for (k, (key, _)) in PROFILES.iter().enumerate() {
        let e = ends(&m, &reps, k);
        groups = e.iter().map(|x| x.0.clone()).collect();
        bars.push((key.to_string(), e.iter().map(|x| x.2 - x.1).collect()));
    }
    let least = bars
        .iter()
        .flat_map(|b| b.1.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0f64, f64::min);
    let low = ((least / 50.0).floor() * 50.0).max(-100.0);
    let per = plot::Panel::Bars(plot::Bars::new(
        format!("per program: dcg-overlap at x{hi} minus at x{lo}"),
        // A change of a 0-100 measure: at most 100 points.
        plot::Axis::fixed("change in dcg-overlap (points)", low, 100.0),
        groups,
        &bars,
    ));
    plot::Figure {
        title: "Accuracy against run length (Arnold & Grove 2005, small and large inputs)".into(),
        panels: vec![mean, per],
        columns: 1,
    }
    .write(&ctx.out_file("svg"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full CSV of two programs at 1 and 64 repetitions, with the given
    /// (timer, cbs) overlaps per program and length.
    fn csv(acc: [[(f64, f64); 2]; 2]) -> Table {
        let mut text = String::from("# settings: quick=false\n");
        text.push_str(&COLUMNS.join(","));
        text.push('\n');
        for (p, per) in ["a", "b"].iter().zip(acc) {
            for (k, (timer, cbs)) in [1, 64].iter().zip(per) {
                for (profile, v) in [("timer", timer), ("cbs", cbs)] {
                    text.push_str(&format!(
                        "{p},{k},{},{},{profile},1,10,{v}\n",
                        k * 1000,
                        k * 10
                    ));
                }
            }
        }
        Table::parse(&text)
    }

    #[test]
    fn rising_accuracy_holds_and_falling_accuracy_does_not() {
        let up = claims(&csv([
            [(20.0, 60.0), (50.0, 90.0)],
            [(30.0, 70.0), (60.0, 95.0)],
        ]));
        assert!(up.iter().all(|c| c.holds()), "{up:?}");
        let down = claims(&csv([
            [(50.0, 90.0), (20.0, 60.0)],
            [(60.0, 95.0), (30.0, 70.0)],
        ]));
        for c in &down[..4] {
            assert!(!c.holds(), "{c:?}");
        }
        assert!(
            down[4].holds(),
            "cbs is still above the timer: {:?}",
            down[4]
        );
    }
}
