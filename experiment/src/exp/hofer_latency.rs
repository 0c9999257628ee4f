//! `hofer-latency`: Hofer, Gnedt and Mössenböck 2015, Figure 11 and
//! section 7.2 as the paper draws them: box plots of the latency of every
//! sample, and the samples actually taken at each interval against those
//! intended.
//!
//! The paper's latency is "the time it takes to pause threads and take
//! samples": per tick, from the request to the end of the safepoint. On
//! the simulated machine (`--clock=virtual --cores=N`, [`crate::cores`])
//! the profile keeps its distribution over the ticks
//! (`run.latency_cycles`: quartiles, the 2.5th and 97.5th percentiles the
//! paper's whiskers mark, and the largest; docs/SAMPLERS.md), so one run
//! per technique gives the box. Each technique of
//! [`super::hofer_common::TECHNIQUES`] profiles each program once (seed 1) at
//! each of the paper's intervals (10, 1, 0.1 ms); the box plots are of the
//! 1 ms runs, as the paper's are. The paper also observes that long
//! latencies make a shorter interval take *fewer* samples; so each run
//! also says what it took against what it intended: ticks made against
//! the run's length over the interval, and thread samples taken against
//! those ticks times the threads each tick means to sample (every thread
//! for the global safepoint, as many as cores for the partial ones).
//! Real threads keep no per-tick latency, so `--cores=real` is refused
//! (status 2).

use profile::Profile;

use crate::claims::Claim;
use crate::csv::num;
use crate::exp::hofer_common::{self as common, INTERVALS, ONE_MS, TECHNIQUES};
use crate::plot::{self, BoxSeries, BoxStats};
use crate::suite::Program;
use crate::table::Table;
use crate::{markdown, Context, Error};

/// The CSV's columns.
const COLUMNS: [&str; 15] = [
    "program",
    "technique",
    "interval",
    "virtual_ms",
    "ticks_intended",
    "safepoints",
    "samples_intended",
    "samples_requested",
    "samples_taken",
    "latency_p2_5_us",
    "latency_q1_us",
    "latency_median_us",
    "latency_q3_us",
    "latency_p97_5_us",
    "latency_max_us",
];

/// One run: what it took and its latencies.
#[derive(Clone, Debug)]
struct Taken {
    virtual_ms: f64,
    ticks_intended: f64,
    safepoints: u64,
    samples_intended: f64,
    requested: u64,
    taken: u64,
    /// p2.5, q1, median, q3, p97.5, max in virtual us (1 cycle = 1 ns).
    latency: Option<[f64; 6]>,
}

impl Taken {
    /// Samples taken per 100 intended.
    fn taken_pct(&self) -> f64 {
        100.0 * self.taken as f64 / self.samples_intended
    }
}

/// The interval's length in ns: `10ms`, `1ms`, `100us`.
fn interval_ns(interval: &str) -> f64 {
    let (digits, unit) = interval.split_at(interval.find(|c: char| c.is_alphabetic()).unwrap_or(0));
    let n: f64 = digits.parse().unwrap_or(f64::NAN);
    match unit {
        "ms" => n * 1e6,
        "us" => n * 1e3,
        _ => n,
    }
}

/// What a run of `technique` at `interval` with `cores` took.
fn taken(p: &Profile, technique: usize, interval: &str, cores: u32) -> Taken {
    // The whole intervals in the run: a tick falls in each.
    let ticks = (p.run.wall_ns as f64 / interval_ns(interval)).floor();
    // Every thread per tick for the global safepoint, as many as cores
    // for a partial one.
    let per_tick = if technique == 0 {
        p.run.threads as f64
    } else {
        f64::from(cores).min(p.run.threads as f64)
    };
    let us = |c: u64| c as f64 / 1000.0;
    Taken {
        virtual_ms: p.run.wall_ns as f64 / 1e6,
        ticks_intended: ticks,
        safepoints: p.run.safepoints.unwrap_or(0),
        samples_intended: ticks * per_tick,
        requested: p.run.samples_requested.unwrap_or(0),
        taken: p.run.samples_taken.unwrap_or(0),
        latency: p
            .run
            .latency_cycles
            .map(|l| [l.p2_5, l.q1, l.median, l.q3, l.p97_5, l.max].map(us)),
    }
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let crate::cores::Cores::Simulated(cores) = ctx.cores() else {
        return Err(Error::Usage(
            "vm experiment: hofer-latency runs on simulated cores only (--cores=N): real \
             threads keep no latency per tick"
                .into(),
        ));
    };
    let (programs, mut csv) = common::start(
        ctx,
        &format!("runs=1 seed=1, {}", common::scheduling(ctx)),
        &COLUMNS,
    )?;
    // results[interval][program][technique]
    let mut results: Vec<Vec<Vec<Taken>>> = Vec::new();
    for (name, interval) in INTERVALS {
        let profiles = common::profiled_runs(ctx, &programs, interval, 1, |_, _, _, _| Ok(()))?;
        let per: Vec<Vec<Taken>> = profiles
            .iter()
            .map(|per| {
                per.iter()
                    .enumerate()
                    .map(|(t, runs)| taken(&runs[0], t, interval, cores))
                    .collect()
            })
            .collect();
        for (prog, row) in programs.iter().zip(&per) {
            for (tech, r) in TECHNIQUES.iter().zip(row) {
                let l = r.latency.unwrap_or([f64::NAN; 6]);
                let mut fields = vec![
                    prog.name.clone(),
                    tech.key.into(),
                    name.into(),
                    num(r.virtual_ms, 3),
                    num(r.ticks_intended, 1),
                    r.safepoints.to_string(),
                    num(r.samples_intended, 1),
                    r.requested.to_string(),
                    r.taken.to_string(),
                ];
                fields.extend(l.iter().map(|v| num(*v, 3)));
                csv.row(&fields)?;
            }
        }
        results.push(per);
    }
    let one = INTERVALS.iter().position(|i| i.0 == "1ms").unwrap_or(0);
    let figures = draw(ctx, &programs, &results, one)?;
    let table = results_table(&programs, &results);
    Ok(markdown::Page {
        method: format!(
            "The paper (section 7.2, Figure 11) box-plots the latency of every sample, \"the \
             time it takes to pause threads and take samples\", at 1 ms, whiskers at the 2.5th \
             and 97.5th percentiles, and notes that where latencies are long a shorter \
             interval can take fewer samples. Here each technique profiles each program once \
             (seed 1) at 10, 1 and 0.1 ms on {}; the profile's `latency_cycles` gives each \
             run's distribution of the ticks' latencies (from the tick to the release of the \
             threads it held, or to the last one's own walk; 1 cycle = 1 ns). Intended: the \
             whole intervals in the run's virtual length (ticks), times the threads a tick means \
             to sample (every thread for the global safepoint, {cores} for the partial ones: \
             one per core).",
            common::clock_name(ctx)
        ),
        results: format!(
            "Latency per tick at 1 ms in virtual us (median [quartiles], 97.5th percentile), \
             and per interval the samples taken per 100 intended:\n\n{table}"
        ),
        discussion: discussion(&programs, &results, one),
        table,
        figures,
    })
}

/// The table: per program and technique, the 1 ms latencies and the
/// samples taken per 100 intended at each interval.
fn results_table(programs: &[Program], results: &[Vec<Vec<Taken>>]) -> String {
    let one = INTERVALS.iter().position(|i| i.0 == "1ms").unwrap_or(0);
    let mut rows = Vec::new();
    for (pi, prog) in programs.iter().enumerate() {
        for (t, tech) in TECHNIQUES.iter().enumerate() {
            let l = results[one][pi][t].latency.unwrap_or([f64::NAN; 6]);
            let mut row = vec![
                if t == 0 {
                    prog.name.clone()
                } else {
                    String::new()
                },
                tech.label.into(),
                format!("{:.1} [{:.1}, {:.1}]", l[2], l[1], l[3]),
                format!("{:.1}", l[4]),
            ];
            row.extend(
                results
                    .iter()
                    .map(|r| format!("{:.0}", r[pi][t].taken_pct())),
            );
            rows.push(row);
        }
    }
    let mut headers = vec![
        "program",
        "technique",
        "latency at 1 ms, us",
        "97.5th pct, us",
    ];
    let names: Vec<String> = INTERVALS
        .iter()
        .map(|i| format!("taken % at {}", i.0))
        .collect();
    headers.extend(names.iter().map(String::as_str));
    markdown::table(&headers, &rows)
}

/// What the numbers say, computed from them.
fn discussion(programs: &[Program], results: &[Vec<Vec<Taken>>], one: usize) -> String {
    let mut s = String::new();
    for (pi, prog) in programs.iter().enumerate() {
        let med: Vec<String> = TECHNIQUES
            .iter()
            .enumerate()
            .map(|(t, tech)| {
                let m = results[one][pi][t].latency.map_or(f64::NAN, |l| l[2]);
                format!("{} {m:.1} us", tech.label)
            })
            .collect();
        s.push_str(&format!(
            "On {}, the median latency at 1 ms: {}. ",
            prog.name,
            med.join(", ")
        ));
    }
    let longest = results
        .iter()
        .flatten()
        .flatten()
        .filter_map(|r| r.latency.map(|l| l[5]))
        .fold(0f64, f64::max);
    let least = results
        .iter()
        .flatten()
        .flatten()
        .map(Taken::taken_pct)
        .fold(f64::INFINITY, f64::min);
    s.push_str(&format!(
        "The longest tick of any run took {longest:.1} us, under the shortest interval \
         (100 us): no tick delays the next, and every technique takes about what it intends \
         (at least {least:.0} thread samples per 100 intended, at every interval). The \
         paper's shorter interval that takes fewer samples comes from JVMTI latencies above \
         10 ms. "
    ));
    s.push_str(
        "A global safepoint waits for every running thread to reach a yieldpoint and then \
         walks every stack, so its latency grows with the threads and their depth; a partial \
         one waits for as many threads as cores, and self-sampling lets each walk its own \
         stack at once. The simulated machine has no compiler that removes yieldpoints from \
         hot loops, the cause of the paper's long JVMTI latencies on lusearch, sunflow and \
         xalan, so no run here shows that tail. Nor does it have an operating system's \
         noise: a tick's latency depends only on which threads run and how deep their stacks \
         are at the tick, so most boxes are narrow.",
    );
    s
}

/// A technique's column of `col` per program at `interval`.
fn values(t: &Table, tech: &str, interval: &str, col: &str) -> Vec<(String, f64)> {
    t.select(&[("technique", tech), ("interval", interval)])
        .iter()
        .map(|r| (r.get("program").to_string(), r.num(col)))
        .collect()
}

/// The paper's claims on latency, judged on the CSV.
pub fn claims(t: &Table) -> Vec<Claim> {
    let small = t.quick();
    let why = "a --quick run has one program and few ticks";
    let global = values(t, "safepoint-full", ONE_MS, "latency_median_us");
    let lower = |tech: &str| {
        let other = values(t, tech, ONE_MS, "latency_median_us");
        let n = other.iter().zip(&global).filter(|(o, g)| o.1 < g.1).count();
        (n, other.len())
    };
    let mut out = Vec::new();
    for (tech, label) in [("self-full", "SPS"), ("self-incremental", "ISPS")] {
        let (n, of) = lower(tech);
        out.push(
            Claim::judged(
                format!("{label}'s median latency at 1 ms is below the global safepoint's, on every program"),
                "\"SPS and ISPS have slightly lower latencies\" than JVMTI (section 7.2)",
                format!("lower on {n} of {of}"),
                n == of && of > 0,
            )
            .unless_small(small, why),
        );
    }
    // With many threads the global safepoint's median is high, the
    // partial ones' not: many-32 against many-8.
    let at = |v: &[(String, f64)], p: &str| v.iter().find(|x| x.0 == p).map(|x| x.1);
    let sps = values(t, "self-full", ONE_MS, "latency_median_us");
    let grow = |v: &[(String, f64)]| match (at(v, "many-8"), at(v, "many-32")) {
        (Some(a), Some(b)) if a > 0.0 => Some(b / a),
        _ => None,
    };
    let (g, s) = (grow(&global), grow(&sps));
    let claim = Claim::judged(
        "from 8 to 32 threads the global safepoint's median latency grows more than SPS's",
        "\"a large number of threads ... the median latency with JVMTI sampling is high\"; \
         SPS and ISPS \"not higher\" (section 7.2)",
        match (g, s) {
            (Some(g), Some(s)) => format!("x{g:.2} against x{s:.2}"),
            _ => "no many-8 and many-32 runs".into(),
        },
        matches!((g, s), (Some(g), Some(s)) if g > s),
    );
    out.push(match (g, s) {
        (Some(_), Some(_)) => claim,
        _ => claim.unjudged("needs many-8 and many-32"),
    });
    // Shorter intervals: does the global safepoint take fewer samples at
    // 0.1 ms than at 1 ms, as the paper saw on CPU-intensive programs?
    let fast = values(t, "safepoint-full", "0.1ms", "samples_taken");
    let slow = values(t, "safepoint-full", ONE_MS, "samples_taken");
    let fewer = fast.iter().zip(&slow).filter(|(f, s)| f.1 < s.1).count();
    out.push(
        Claim::judged(
            "at 0.1 ms the global safepoint takes fewer samples than at 1 ms, on some program",
            "\"a shorter sampling interval can then yield fewer total samples\" (section 7.2, \
             on lusearch, sunflow, xalan)",
            format!("fewer on {fewer} of {}", fast.len()),
            fewer > 0,
        )
        .unless_small(small, why)
        .gap(),
    );
    out
}

/// Two panels: the 1 ms latencies as box plots; the samples taken per 100
/// intended at each interval.
fn draw(
    ctx: &Context,
    programs: &[Program],
    results: &[Vec<Vec<Taken>>],
    one: usize,
) -> Result<Vec<std::path::PathBuf>, Error> {
    let series: Vec<BoxSeries> = TECHNIQUES
        .iter()
        .enumerate()
        .map(|(t, tech)| BoxSeries {
            name: tech.label.into(),
            boxes: results[one]
                .iter()
                .map(|per| {
                    per[t].latency.map(|l| BoxStats {
                        low: l[0],
                        q1: l[1],
                        median: l[2],
                        q3: l[3],
                        high: l[4],
                    })
                })
                .collect(),
        })
        .collect();
    let boxes = plot::Boxes {
        title: "latency per tick at 1 ms (box: quartiles and median; whiskers: 2.5th, 97.5th percentiles)".into(),
        x_title: "program".into(),
        y: plot::Axis::log("latency, virtual us (log)"),
        groups: common::names(programs),
        series,
    };
    let mut groups = Vec::new();
    let mut pct: Vec<Vec<f64>> = vec![Vec::new(); TECHNIQUES.len()];
    for (k, (name, _)) in INTERVALS.iter().enumerate() {
        for (pi, prog) in programs.iter().enumerate() {
            groups.push(format!("{} {name}", prog.name));
            for (t, v) in pct.iter_mut().enumerate() {
                v.push(results[k][pi][t].taken_pct());
            }
        }
    }
    let taken = plot::Bars::new(
        "thread samples taken per 100 intended, per interval",
        plot::Axis::auto("taken per 100 intended"),
        groups,
        &TECHNIQUES
            .iter()
            .zip(pct)
            .map(|(tech, v)| (tech.label.to_string(), v))
            .collect::<Vec<_>>(),
    );
    plot::Figure {
        title: "Hofer et al. 2015, Figure 11: latency per tick, and the samples taken".into(),
        panels: vec![plot::Panel::Boxes(boxes), plot::Panel::Bars(taken)],
        columns: 1,
    }
    .write(&ctx.out_file("svg"))
}
