//! `hofer-fig11`: Hofer, Gnedt and Mössenböck 2015, Figure 11 (section
//! 7.2): pause times, how long sampling holds the program per sample, at
//! 1 ms.
//!
//! The paper box-plots the latency of every sample ("the time it takes to
//! pause threads and take samples"). A profile keeps sums, not every
//! sample's latency (docs/SAMPLERS.md, "What the profile says about the
//! cost"): `pause_ns`, from each request to each release summed over
//! safepoints, and `held_ns`, the time threads spent held, summed over
//! threads. So each run gives a mean pause per safepoint (`pause_ns /
//! safepoints`, the paper's latency) and a mean held time per safepoint
//! (`held_ns / safepoints`, the thread time each tick costs), and the
//! figure shows the median over runs with the quartiles: the spread of
//! per-run means, not of single samples. Runs are profiled one process at
//! a time, the techniques interleaved. (On the simulated machine a profile
//! also keeps the distribution of its ticks' latencies,
//! `run.latency_cycles`; `hofer-latency` draws it as the paper's box
//! plots.)

use crate::claims::Claim;
use crate::csv::num;
use crate::exp::hofer_common::{self as common, mq_of, ONE_MS, TECHNIQUES};
use crate::stats::median;
use crate::table::Table;
use crate::{markdown, plot, Context, Error};

/// The CSV's columns on real threads.
const COLUMNS: [&str; 13] = [
    "program",
    "technique",
    "run",
    "wall_ms",
    "safepoints",
    "samples_requested",
    "samples_taken",
    "held_ms",
    "pause_ms",
    "late_ms",
    "pause_us_per_safepoint",
    "held_us_per_safepoint",
    "requested_per_safepoint",
];

/// The CSV's columns on the simulated machine.
const SIM_COLUMNS: [&str; 13] = [
    "program",
    "technique",
    "run",
    "virtual_ms",
    "safepoints",
    "samples_requested",
    "samples_taken",
    "pause_cycles",
    "walk_cycles",
    "stopped_us_per_safepoint",
    "stopped_us_per_sample",
    "walk_us_per_safepoint",
    "requested_per_safepoint",
];

/// The paper's statements (Figure 11 has no numbers in the text).
const PAPER: &str = "no numbers; JVMTI's median latency high with many threads (actors, \
tradebeans, tradesoap), SPS and ISPS not higher than on other benchmarks";

/// One run's numbers from its profile's `run` section: on real threads
/// pause and held time per safepoint; simulated, the thread time stopped
/// per sample and per safepoint.
struct Pause {
    pause_us: f64,
    held_us: f64,
    requested: f64,
}

/// A `run` section's optional count, 0 when absent.
fn get(v: Option<u64>) -> f64 {
    v.unwrap_or(0) as f64
}

/// `v / n`, `NaN` when `n` is 0.
fn per(v: f64, n: f64) -> f64 {
    if n > 0.0 {
        v / n
    } else {
        f64::NAN
    }
}

/// A real-thread run's CSV row and numbers.
fn real_row(r: &profile::RunSection) -> (Vec<String>, Pause) {
    let sp = get(r.safepoints);
    let pause = Pause {
        pause_us: per(get(r.pause_ns) / 1e3, sp),
        held_us: per(get(r.held_ns) / 1e3, sp),
        requested: per(get(r.samples_requested), sp),
    };
    let row = vec![
        num(r.wall_ns as f64 / 1e6, 3),
        num(sp, 0),
        num(get(r.samples_requested), 0),
        num(get(r.samples_taken), 0),
        num(get(r.held_ns) / 1e6, 3),
        num(get(r.pause_ns) / 1e6, 3),
        num(get(r.late_ns) / 1e6, 3),
        num(pause.pause_us, 2),
        num(pause.held_us, 2),
        num(pause.requested, 3),
    ];
    (row, pause)
}

/// A simulated run's CSV row and numbers: `pause_us` is the thread time
/// stopped per sample taken, `held_us` per safepoint (virtual us).
fn sim_row(r: &profile::RunSection) -> (Vec<String>, Pause) {
    let sp = get(r.safepoints);
    let stopped_us = get(r.pause_cycles) / 1e3;
    let pause = Pause {
        pause_us: per(stopped_us, get(r.samples_taken)),
        held_us: per(stopped_us, sp),
        requested: per(get(r.samples_requested), sp),
    };
    let row = vec![
        num(r.wall_ns as f64 / 1e6, 3),
        num(sp, 0),
        num(get(r.samples_requested), 0),
        num(get(r.samples_taken), 0),
        num(get(r.pause_cycles), 0),
        num(get(r.walk_cycles), 0),
        num(pause.held_us, 2),
        num(pause.pause_us, 2),
        num(per(get(r.walk_cycles) / 1e3, sp), 2),
        num(pause.requested, 3),
    ];
    (row, pause)
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let runs = ctx.runs(2, 5);
    let sim = ctx.cores().simulated();
    let (programs, mut csv) = common::start(
        ctx,
        &format!("runs={runs} interval={ONE_MS}, {}", common::scheduling(ctx)),
        if sim { &SIM_COLUMNS } else { &COLUMNS },
    )?;
    let mut pauses: Vec<Vec<Vec<Pause>>> = programs
        .iter()
        .map(|_| TECHNIQUES.iter().map(|_| Vec::new()).collect())
        .collect();
    common::profiled_runs(ctx, &programs, ONE_MS, runs, |pi, t, run, p| {
        let (cells, pause) = if sim {
            sim_row(&p.run)
        } else {
            real_row(&p.run)
        };
        let mut row = vec![
            programs[pi].name.clone(),
            TECHNIQUES[t].key.into(),
            (run + 1).to_string(),
        ];
        row.extend(cells);
        csv.row(&row)?;
        pauses[pi][t].push(pause);
        Ok(())
    })?;
    let labels = if sim { SIM_LABELS } else { REAL_LABELS };
    let figures = draw(ctx, &programs, &pauses, &labels)?;
    let rows = common::technique_rows(&programs, &pauses, PAPER, |v| {
        vec![
            mq_of(v, |p| p.pause_us, false),
            mq_of(v, |p| p.held_us, false),
            format!(
                "{:.1}",
                median(&v.iter().map(|p| p.requested).collect::<Vec<_>>())
            ),
        ]
    });
    let table = markdown::table(
        &[
            "program",
            "technique",
            labels.pause,
            labels.held,
            "samples asked / safepoint",
            "paper (Figure 11)",
        ],
        &rows,
    );
    let caption = caption(ctx, sim, runs);
    Ok(markdown::Page {
        method: format!(
            "The paper box-plots the latency of every sample (\"the time it takes to pause \
             threads and take samples\", section 7.2) at 1 ms, for each of its techniques. A \
             profile keeps sums, not every sample's latency, so each run gives a mean per \
             safepoint and per sample, and the figure shows the median over runs with the \
             quartiles where the runs differ. {caption}"
        ),
        results: table.clone(),
        discussion: "The global safepoint asks for a sample of every live thread at every tick \
                     and holds them all until the last stack is walked; the partial safepoints \
                     ask for as many as there are cores."
            .into(),
        table,
        figures,
    })
}

/// The median over runs of `measure` for each (program, technique).
fn medians(t: &Table, measure: &str) -> Vec<(String, Vec<f64>)> {
    t.distinct("program")
        .into_iter()
        .map(|p| {
            let per: Vec<f64> = TECHNIQUES
                .iter()
                .map(|tech| {
                    let v: Vec<f64> = t
                        .select(&[("program", &p), ("technique", tech.key)])
                        .iter()
                        .map(|r| r.num(measure))
                        .collect();
                    median(&v)
                })
                .collect();
            (p, per)
        })
        .collect()
}

/// The paper's claims on latency: the global safepoint's grows with the
/// threads, the partial techniques' does not.
pub fn claims(t: &Table) -> Vec<Claim> {
    let measure = if t.col("stopped_us_per_safepoint").is_some() {
        "stopped_us_per_safepoint"
    } else {
        "held_us_per_safepoint"
    };
    let m = medians(t, measure);
    let higher = m
        .iter()
        .filter(|(_, v)| v[1..].iter().all(|&x| v[0] > x))
        .count();
    let get = |name: &str| m.iter().find(|x| x.0 == name).map(|x| x.1.clone());
    let growth = match (get("many-8"), get("many-32")) {
        (Some(a), Some(b)) => Some((
            b[0] / a[0],
            (1..a.len()).map(|k| b[k] / a[k]).fold(0f64, f64::max),
        )),
        _ => None,
    };
    vec![
        Claim::judged(
            "the global safepoint stops the threads longer per safepoint than every partial technique, on every program",
            "JVMTI's latency high with many threads; SPS and ISPS not higher than elsewhere",
            format!("on {higher} of {}", m.len()),
            higher == m.len() && !m.is_empty(),
        ),
        match growth {
            Some((g, p)) => Claim::judged(
                "more threads (many-8 -> many-32) raise the global safepoint's stop more than any partial technique's",
                "latency grows with the threads for JVMTI only",
                format!("x{g:.1} against at most x{p:.1}"),
                g > p,
            ),
            None => Claim::judged("more threads raise the global safepoint's stop more", "", "", false)
                .unjudged("needs many-8 and many-32 (not in a --quick run)"),
        },
    ]
}

/// The table's caption: what the two means are, on which machine.
fn caption(ctx: &Context, sim: bool, runs: usize) -> String {
    if sim {
        format!(
            "At {ONE_MS}, on {}, per run: the profile's `pause_cycles` (thread time stopped, \
             summed over threads) per sample taken and per safepoint, in virtual us; median of \
             {runs} run(s) (seeds 1 to {runs}), quartiles of the per-run means in brackets. The \
             paper box-plots single samples; a profile keeps only the sums, and on the \
             simulated machine no request-to-release time.",
            common::clock_name(ctx)
        )
    } else {
        format!(
            "At {ONE_MS}, per run: the profile's `pause_ns` / `safepoints` (request to release, \
             the paper's latency) and `held_ns` / `safepoints` (thread time held per tick, \
             summed over threads); median of {runs} run(s), quartiles of the per-run means in \
             brackets. The paper box-plots single samples; a profile keeps only the sums."
        )
    }
}

/// The names of the two per-run means, in the table and the plots.
struct Labels {
    pause: &'static str,
    held: &'static str,
    pause_title: &'static str,
    held_title: &'static str,
}

/// On real threads.
const REAL_LABELS: Labels = Labels {
    pause: "pause us / safepoint",
    held: "held us / safepoint",
    pause_title: "pause per safepoint (request to release)",
    held_title: "thread time held per safepoint (summed over threads)",
};

/// On the simulated machine (virtual microseconds).
const SIM_LABELS: Labels = Labels {
    pause: "stopped us / sample",
    held: "stopped us / safepoint",
    pause_title: "thread time stopped per sample (virtual)",
    held_title: "thread time stopped per safepoint (summed over threads, virtual)",
};

/// Two panels: pause and held time per safepoint, programs as groups,
/// techniques as bars with quartile whiskers where the runs differ.
fn draw(
    ctx: &Context,
    programs: &[crate::suite::Program],
    pauses: &[Vec<Vec<Pause>>],
    labels: &Labels,
) -> Result<Vec<std::path::PathBuf>, Error> {
    let pause = common::run_panel(
        programs,
        pauses,
        (labels.pause_title, plot::Axis::auto(labels.pause)),
        |p| p.pause_us,
    );
    let held = common::run_panel(
        programs,
        pauses,
        (labels.held_title, plot::Axis::auto(labels.held)),
        |p| p.held_us,
    );
    plot::Figure {
        title: "Hofer et al. 2015, Figure 11: thread time stopped at 1 ms".into(),
        panels: vec![plot::Panel::Bars(pause), plot::Panel::Bars(held)],
        columns: 2,
    }
    .write(&ctx.out_file("svg"))
}
