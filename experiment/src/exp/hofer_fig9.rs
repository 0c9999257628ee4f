//! `hofer-fig9`: Hofer, Gnedt and Mössenböck 2015, Figures 9 and 10
//! (section 7.1): the overhead of sampling a multi-threaded program with a
//! global safepoint and full walks (their JVMTI sampling), a partial
//! safepoint, self-sampling in partial safepoints (SPS) and the same with
//! incremental walks (ISPS), at 10, 1 and 0.1 ms.
//!
//! Per program and interval, the plain run (`--profile=none`) and the four
//! techniques are timed one process at a time, interleaved round by round
//! (the order rotated), on the wall clock, with the CPU time of all threads
//! (`getrusage` of the children). The overhead is the median over rounds of
//! each round's ratio to the plain run, with its quartiles, as the paper's
//! bars and error bars; the "G.Mean" group is the geometric mean of the
//! programs' medians, as the paper's. That is the real-thread mode
//! (`--cores=real`); on the simulated machine, the default, the runs and
//! the two measures are those of [`super::hofer_fig9_sim`].

use crate::claims::Claim;
use crate::csv::num;
use crate::exp::hofer_common::{
    self as common, gmean_pct, mq, quartiles, time_rounds_cpu, INTERVALS, TECHNIQUES,
};
use crate::progress::Progress;
use crate::stats::median;
use crate::suite::Program;
use crate::table::Table;
use crate::{markdown, plot, Context, Error};

/// The paper's statements about the overheads (its figures give no
/// numbers): (interval, text).
pub const PAPER: [(&str, &str); 3] = [
    (
        "10ms",
        "DaCapo G.Mean: JVMTI > 10%, SPS < 3%, ISPS about 2% (Fig. 9); Scala: JVMTI about 5% (Fig. 10)",
    ),
    ("1ms", "Scala: JVMTI about 25%, ISPS < 10% (Fig. 10)"),
    (
        "0.1ms",
        "no average stated; JVMTI lower than at 1 ms on lusearch, sunflow, xalan (Fig. 9)",
    ),
];

/// Per-round overheads of one (program, interval): `[technique][round]`,
/// in percent, on the two clocks ([`Clocks`]): wall and CPU on real
/// threads, run length and thread time stopped on the simulated machine.
pub struct Overheads {
    /// The first clock's.
    pub wall: Vec<Vec<f64>>,
    /// The second clock's.
    pub cpu: Vec<Vec<f64>>,
    /// The plain run's length in ms (wall, or virtual).
    pub plain_ms: f64,
    /// On the simulated machine, `[technique][seed]`: the cycles spent
    /// walking stacks (`run.walk_cycles`, trampolines included); empty on
    /// real threads, which do not count them.
    pub walk: Vec<Vec<f64>>,
}

/// A measurement: the programs, `[program][interval]` overheads, and the
/// measures' names.
pub type Measurement = (Vec<Program>, Vec<Vec<Overheads>>, Clocks);

/// What the two measures of [`Overheads`] are called in the table and
/// the plots, and what the runs were.
pub struct Clocks {
    /// The first measure's name.
    pub first: &'static str,
    /// The second measure's name.
    pub second: &'static str,
    /// The table's caption.
    pub caption: String,
    /// The reading's closing sentences.
    pub note: &'static str,
}

/// Which of [`Overheads`]' clocks: [`wall`] or [`cpu`].
type Clock = fn(&Overheads) -> &Vec<Vec<f64>>;

/// The wall-clock overheads.
fn wall(o: &Overheads) -> &Vec<Vec<f64>> {
    &o.wall
}

/// The CPU-time overheads.
fn cpu(o: &Overheads) -> &Vec<Vec<f64>> {
    &o.cpu
}

/// The G.Mean of technique `k` at interval `ii` on `clock`: the
/// geometric mean of the programs' medians.
fn gmean(results: &[Vec<Overheads>], ii: usize, k: usize, clock: Clock) -> f64 {
    let medians: Vec<f64> = results
        .iter()
        .map(|r| quartiles(&clock(&r[ii])[k]).0)
        .collect();
    gmean_pct(&medians)
}

/// Runs the experiment: on the simulated machine
/// ([`super::hofer_fig9_sim`]) or on real threads.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let (programs, results, clocks) = if ctx.cores().simulated() {
        super::hofer_fig9_sim::measure(ctx)?
    } else {
        measure_real(ctx)?
    };
    let figures = draw(ctx, &programs, &results, &clocks)?;
    let table = table(&programs, &results);
    let walks = walk_table(&programs, &results);
    Ok(markdown::Page {
        method: format!(
            "The paper (section 7.1) times its benchmarks with each technique at 10, 1 and 0.1 \
             ms against no sampling: median overheads with quartiles, and the geometric mean \
             (G.Mean) per interval. Here the programs run with a global safepoint and full walks \
             (the paper's JVMTI sampling), a partial safepoint, self-sampling in partial \
             safepoints (SPS) and the same with incremental walks (ISPS). {}",
            clocks.caption
        ),
        results: if walks.is_empty() {
            table.clone()
        } else {
            format!(
                "{table}\nThe cycles spent walking stacks (`run.walk_cycles`: frames decoded, \
                 trampolines installed and taken), per program by the depth of its threads' \
                 stacks, SPS against ISPS (the same samples, walked in full or \
                 incrementally):\n\n{walks}"
            )
        },
        discussion: format!(
            "{}{}",
            reading(&results, &clocks),
            walk_reading(&programs, &results)
        ),
        table,
        figures,
    })
}

/// Per (program, interval, technique), the median overhead in percent on
/// the first measure (run length; wall clock on real threads).
fn overheads_of(t: &Table) -> Vec<(String, String, String, f64)> {
    let (col, by) = if t.col("virtual_ns").is_some() {
        ("virtual_ns", "seed")
    } else {
        ("wall_s", "round")
    };
    let mut out = Vec::new();
    for p in t.distinct("program") {
        let plain_rows = t.select(&[("program", &p), ("technique", "none")]);
        for (iname, _) in INTERVALS {
            for tech in &TECHNIQUES {
                let rows = t.select(&[
                    ("program", &p),
                    ("interval", iname),
                    ("technique", tech.key),
                ]);
                let v: Vec<f64> = rows
                    .iter()
                    .filter_map(|r| {
                        // Real threads: the plain run of the same interval and round.
                        let plain = plain_rows.iter().find(|q| {
                            by == "seed" || (q.get("interval") == iname && q.get(by) == r.get(by))
                        })?;
                        Some(100.0 * (r.num(col) / plain.num(col) - 1.0))
                    })
                    .collect();
                out.push((
                    p.clone(),
                    iname.to_string(),
                    tech.key.to_string(),
                    crate::stats::median(&v),
                ));
            }
        }
    }
    out
}

/// The paper's claims on the overheads' order (the costs themselves are
/// issue 33's).
pub fn claims(t: &Table) -> Vec<Claim> {
    let o = overheads_of(t);
    let g = |iname: &str, key: &str| {
        gmean_pct(
            &o.iter()
                .filter(|x| x.1 == iname && x.2 == key)
                .map(|x| x.3)
                .collect::<Vec<_>>(),
        )
    };
    let mut costliest = Vec::new();
    let mut isps = Vec::new();
    for (iname, _) in INTERVALS {
        let v: Vec<f64> = TECHNIQUES.iter().map(|tech| g(iname, tech.key)).collect();
        costliest.push((iname, v[0], v[1..].iter().all(|&x| v[0] > x)));
        isps.push((iname, v[2], v[3], v[3] <= v[2] + 0.05));
    }
    let said = |v: &[(&str, f64, bool)]| {
        v.iter()
            .map(|x| format!("{} {:+.1}%", x.0, x.1))
            .collect::<Vec<_>>()
            .join(", ")
    };
    vec![
        Claim::judged(
            "the global safepoint costs the most at every interval (G.Mean of run length)",
            "JVMTI > 10% at 10 ms where SPS < 3%, ISPS about 2%",
            format!("global: {}", said(&costliest)),
            costliest.iter().all(|x| x.2),
        ),
        Claim::judged(
            "ISPS costs no more than SPS at any interval (G.Mean of run length, 0.05 points' slack)",
            "\"ISPS achieves significantly lower overheads than SPS\"",
            isps.iter().map(|x| format!("{}: {:+.2}% vs {:+.2}%", x.0, x.2, x.1)).collect::<Vec<_>>().join(", "),
            isps.iter().all(|x| x.3),
        )
        // Incremental walks charge their trampolines: on these shallow
        // stacks they cost more than the full walks they replace (the
        // paper's saving is on deep stacks); the page shows it by depth.
        .gap(),
        deep_walk_claim(t),
    ]
}

/// The saving incremental walks are for, in the walk cycles (simulated
/// machine only): on the deepest stacks, at 1 and 0.1 ms, ISPS walks for
/// at most half of SPS's cycles.
fn deep_walk_claim(t: &Table) -> Claim {
    let claim = "on the deepest stacks sampled at 1 and 0.1 ms, ISPS walks for at most half of SPS's cycles";
    let paper = "incremental stack tracing \"examines each stack frame only once\"";
    if t.col("walk_cycles").is_none() {
        return Claim::judged(claim, paper, "", false)
            .unjudged("real threads do not count walk cycles (--cores=real)");
    }
    let deepest = t
        .distinct("depth")
        .iter()
        .map(|d| d.parse::<i64>().unwrap_or(0))
        .max()
        .unwrap_or(0);
    let depth = deepest.to_string();
    let walk = |iname: &str, key: &str| -> f64 {
        t.select(&[("depth", &depth), ("interval", iname), ("technique", key)])
            .iter()
            .map(|r| r.num("walk_cycles"))
            .sum()
    };
    let ratios: Vec<(&str, f64)> = ["1ms", "0.1ms"]
        .into_iter()
        .map(|i| {
            (
                i,
                walk(i, TECHNIQUES[ISPS].key) / walk(i, TECHNIQUES[SPS].key),
            )
        })
        .collect();
    Claim::judged(
        claim,
        paper,
        format!(
            "depth {deepest}: ISPS / SPS = {}",
            ratios
                .iter()
                .map(|(i, r)| format!("{r:.2} at {i}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        deepest > 0 && ratios.iter().all(|r| r.1 <= 0.5),
    )
    .unless_small(deepest == 0, "no program with deep stacks")
}

/// The real-thread measurement: every configuration timed one process at
/// a time, interleaved round by round, wall clock and CPU time.
fn measure_real(ctx: &Context) -> Result<Measurement, Error> {
    let rounds = ctx.runs(1, 5);
    let (programs, mut csv) = common::start(
        ctx,
        &format!("rounds={rounds}, one process at a time, interleaved rounds"),
        &[
            "program",
            "interval",
            "technique",
            "round",
            "wall_s",
            "cpu_s",
        ],
    )?;
    let vm = ctx.vm();
    let configs_per = TECHNIQUES.len() + 1;
    let mut progress = Progress::new(
        ctx.exp.name,
        "timing (one process at a time)",
        (programs.len() * INTERVALS.len() * rounds * configs_per) as u64,
    );
    // results[program][interval]
    let mut results: Vec<Vec<Overheads>> = Vec::new();
    for prog in &programs {
        let mut per_interval = Vec::new();
        for (iname, iarg) in INTERVALS {
            let mut configs = Vec::new();
            for k in 0..configs_per {
                let mut args = vec!["run".to_string(), prog.path.display().to_string()];
                args.extend(prog.set_args());
                if k == 0 {
                    args.push("--profile=none".into());
                } else {
                    args.extend(common::timer_args(&TECHNIQUES[k - 1], iarg));
                }
                configs.push(args);
            }
            let key = |c: usize| {
                if c == 0 {
                    "none"
                } else {
                    TECHNIQUES[c - 1].key
                }
            };
            let mut times = vec![vec![(0.0, 0.0); configs_per]; rounds];
            time_rounds_cpu(&vm, &configs, rounds, |round, c, wall, cpu| {
                times[round][c] = (wall, cpu);
                progress.step(&format!("{} {iname} {}", prog.name, key(c)));
                csv.row(&[
                    prog.name.clone(),
                    iname.into(),
                    key(c).into(),
                    (round + 1).to_string(),
                    num(wall, 6),
                    num(cpu, 6),
                ])
            })?;
            let ratio = |k: usize, f: fn(&(f64, f64)) -> f64| -> Vec<f64> {
                times
                    .iter()
                    .map(|t| 100.0 * (f(&t[k + 1]) / f(&t[0]) - 1.0))
                    .collect()
            };
            per_interval.push(Overheads {
                wall: (0..TECHNIQUES.len()).map(|k| ratio(k, |t| t.0)).collect(),
                cpu: (0..TECHNIQUES.len()).map(|k| ratio(k, |t| t.1)).collect(),
                plain_ms: 1000.0
                    * crate::stats::median(&times.iter().map(|t| t[0].0).collect::<Vec<_>>()),
                walk: Vec::new(),
            });
        }
        results.push(per_interval);
    }
    progress.finish();
    let clocks = Clocks {
        first: "wall clock",
        second: "CPU time, all threads",
        caption: format!(
            "Overhead against `--profile=none` in percent, wall clock / CPU time of all \
             threads (real threads): median of {rounds} interleaved round(s) with quartiles in \
             brackets; G.Mean is the geometric mean of the programs' medians. The paper's \
             column quotes its text (its figures give no numbers)."
        ),
        note: "On a shared 2-core machine the wall clock mostly measures the other jobs (the \
               quartile ranges show it) and the CPU time of all threads is the steadier measure; \
               the default, simulated cores, measures the same in exact virtual cycles.",
    };
    Ok((programs, results, clocks))
}

/// The table: one row per (program, interval) and a G.Mean row per
/// interval with the paper's statement.
fn table(programs: &[Program], results: &[Vec<Overheads>]) -> String {
    let mut headers = vec!["program", "interval", "plain ms"];
    headers.extend(TECHNIQUES.iter().map(|t| t.label));
    headers.push("paper (section 7.1)");
    let mut rows = Vec::new();
    for (ii, (iname, _)) in INTERVALS.iter().enumerate() {
        for (pi, prog) in programs.iter().enumerate() {
            let o = &results[pi][ii];
            let mut row = vec![
                prog.name.clone(),
                iname.to_string(),
                format!("{:.0}", o.plain_ms),
            ];
            for k in 0..TECHNIQUES.len() {
                row.push(format!(
                    "{} / {}",
                    mq(&o.wall[k], true),
                    mq(&o.cpu[k], true)
                ));
            }
            row.push(String::new());
            rows.push(row);
        }
        let mut row = vec!["**G.Mean**".to_string(), iname.to_string(), String::new()];
        for k in 0..TECHNIQUES.len() {
            let g = |f: Clock| gmean(results, ii, k, f);
            row.push(format!("{:+.1} / {:+.1}", g(wall), g(cpu)));
        }
        row.push(PAPER[ii].1.to_string());
        rows.push(row);
    }
    markdown::table(&headers, &rows)
}

/// Six panels, one per interval for the first clock, then one per
/// interval for the second: the programs (and G.Mean) as groups, the
/// techniques as bars (median overhead) with quartile whiskers where the
/// runs differ.
fn draw(
    ctx: &Context,
    programs: &[Program],
    results: &[Vec<Overheads>],
    clocks: &Clocks,
) -> Result<Vec<std::path::PathBuf>, Error> {
    let mut groups = common::names(programs);
    groups.push("G.Mean".into());
    let panel = |ii: usize, what: &str, f: Clock| {
        let series: Vec<plot::BarSeries> = TECHNIQUES
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let mut bars: Vec<plot::Bar> = results
                    .iter()
                    .map(|r| plot::Bar::from_runs(&f(&r[ii])[k]))
                    .collect();
                bars.push(plot::Bar::of(gmean(results, ii, k, f)));
                plot::BarSeries {
                    name: t.label.to_string(),
                    bars,
                }
            })
            .collect();
        plot::Panel::Bars(plot::Bars {
            title: format!("{}: {what}", INTERVALS[ii].0),
            x_title: String::new(),
            y: plot::Axis::auto(format!("{what} overhead %")),
            groups: groups.clone(),
            series,
        })
    };
    let mut panels = Vec::new();
    for ii in 0..INTERVALS.len() {
        panels.push(panel(ii, clocks.first, wall));
    }
    for ii in 0..INTERVALS.len() {
        panels.push(panel(ii, clocks.second, cpu));
    }
    if results.iter().all(|r| r.iter().all(|o| !o.walk.is_empty())) {
        panels.extend((0..INTERVALS.len()).map(|ii| walk_panel(programs, results, ii)));
    }
    plot::Figure {
        title: "Hofer et al. 2015, Figures 9-10: overhead of the samplers at 10, 1 and 0.1 ms"
            .into(),
        panels,
        columns: 3,
    }
    .write(&ctx.out_file("svg"))
}

/// The stack depth a program's threads compute at (its `depth` setting;
/// 0 when it has none).
pub fn stack_depth(p: &Program) -> i64 {
    p.set.iter().find(|s| s.0 == "depth").map_or(0, |s| s.1)
}

/// A program's name with its stack depth, for the walk cycles' groups and
/// rows.
fn with_depth(p: &Program) -> String {
    format!("{} (depth {})", p.name, stack_depth(p))
}

/// The walk cycles at interval `ii`: programs (with their stack depth) as
/// groups, techniques as bars (median over the seeds), on a log axis (the
/// global safepoint's deep walks and ISPS's shallow ones are four decades
/// apart).
fn walk_panel(programs: &[Program], results: &[Vec<Overheads>], ii: usize) -> plot::Panel {
    let series: Vec<plot::BarSeries> = TECHNIQUES
        .iter()
        .enumerate()
        .map(|(k, t)| plot::BarSeries {
            name: t.label.to_string(),
            bars: results
                .iter()
                .map(|r| plot::Bar::from_runs(&r[ii].walk[k]))
                .collect(),
        })
        .collect();
    plot::Panel::Bars(plot::Bars {
        title: format!("{}: cycles walking stacks", INTERVALS[ii].0),
        x_title: String::new(),
        y: plot::Axis::log("walk cycles (log)"),
        groups: programs.iter().map(with_depth).collect(),
        series,
    })
}

/// Index of SPS and ISPS in [`TECHNIQUES`].
const SPS: usize = 2;
const ISPS: usize = 3;

/// Per program (by stack depth) and interval: SPS's and ISPS's walk cycles
/// and their ratio. Empty without walk cycles (real threads).
fn walk_table(programs: &[Program], results: &[Vec<Overheads>]) -> String {
    if results.iter().any(|r| r.iter().any(|o| o.walk.is_empty())) {
        return String::new();
    }
    let mut headers = vec!["program (stack depth)".to_string()];
    for (iname, _) in INTERVALS {
        headers.push(format!("{iname}: SPS / ISPS walk cycles"));
        headers.push("ISPS / SPS".into());
    }
    let rows: Vec<Vec<String>> = programs
        .iter()
        .zip(results)
        .map(|(p, r)| {
            let mut row = vec![with_depth(p)];
            for o in r {
                let (sps, isps) = (median(&o.walk[SPS]), median(&o.walk[ISPS]));
                row.push(format!("{sps:.0} / {isps:.0}"));
                row.push(format!("{:.2}", isps / sps));
            }
            row
        })
        .collect();
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    markdown::table(&h, &rows)
}

/// Where incremental walks save and where they cost more, from the walk
/// cycles: per program, ISPS's walk cycles against SPS's at each interval.
fn walk_reading(programs: &[Program], results: &[Vec<Overheads>]) -> String {
    if results.iter().any(|r| r.iter().any(|o| o.walk.is_empty())) {
        return String::new();
    }
    let parts: Vec<String> = programs
        .iter()
        .zip(results)
        .map(|(p, r)| {
            let by: Vec<String> = INTERVALS
                .iter()
                .zip(r)
                .map(|((iname, _), o)| {
                    let (sps, isps) = (median(&o.walk[SPS]), median(&o.walk[ISPS]));
                    format!("{iname} {:+.0}%", 100.0 * (isps / sps - 1.0))
                })
                .collect();
            format!("{}: {}", with_depth(p), by.join(", "))
        })
        .collect();
    format!(
        "\n\n**Where incremental walks save.** ISPS's cycles walking stacks against SPS's \
         (the third row of panels, and the table above), per program: {}. A full walk decodes \
         every frame at every sample, so its cost grows with the depth; an incremental walk \
         decodes the top frame and patches its return with a trampoline, and pays again only \
         for the frames that return through one. On a deep stack sampled faster than it \
         changes (1 and 0.1 ms) the incremental walk spares most of the frames; on a shallow \
         stack there are few frames to spare, and the trampolines (installed, taken, \
         restored: docs/PERFORMANCE.md, \"What a profile costs\") cost more than the \
         frames they spare; so do they at a long interval, where most frames have returned \
         through their trampolines between two samples. The run-length claim counts \
         every program, shallow ones included: that is why ISPS does not come out cheaper \
         than SPS overall here, while on deep stacks at short intervals it walks for a \
         fraction of SPS's cycles.",
        parts.join("; "),
    )
}

/// The reading: the G.Mean of every technique at each interval, on both
/// clocks.
fn reading(results: &[Vec<Overheads>], clocks: &Clocks) -> String {
    let parts: Vec<String> = INTERVALS
        .iter()
        .enumerate()
        .map(|(ii, (iname, _))| {
            let cell = |k: usize| {
                format!(
                    "{} {:+.1}% / {:+.1}%",
                    TECHNIQUES[k].label,
                    gmean(results, ii, k, wall),
                    gmean(results, ii, k, cpu)
                )
            };
            format!(
                "{iname}: {}",
                (0..TECHNIQUES.len())
                    .map(cell)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    format!(
        "Geometric means of the medians, {} / {}: {}. The paper's ordering (the global \
         safepoint costliest, growing fastest as the interval shrinks; ISPS cheapest) is what \
         to look for. {}\n",
        clocks.first,
        clocks.second,
        parts.join("; "),
        clocks.note
    )
}
