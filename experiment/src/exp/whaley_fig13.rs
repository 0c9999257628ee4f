//! `whaley-fig13`: Whaley 2000, Figure 13 (section 6.5), the hot method
//! counting profiler: its overhead and its precision at the paper's three
//! sampling intervals.
//!
//! Whaley's hot method counter takes the program counter of each thread at
//! every tick and adds one to its method's counter (Figure 12). Ours is the
//! `timer` profile: at each tick the thread samples itself at the next
//! yieldpoint and adds 1 to the executing method's `self`
//! (`methods[].self` of the profile; docs/CLI.md "What each profile
//! records").
//!
//! - Precision: `vm compare`'s `method-correlation` (Pearson's correlation
//!   of the methods' `self`) between every pair of runs, under the virtual
//!   clock at 10, 100 and 500 us (the paper's 10,000, 1,000 and 200
//!   samples per compared profile; see [`super::whaley`]), summarised by the
//!   geometric mean as in the paper. The same correlation between the
//!   timed wall-clock runs is in the CSV (`wall_method_correlation`,
//!   `--clock=wall`).
//! - Overhead: the cost model's of the same runs (`overhead_pct`,
//!   `run.profiler_cycles / run.cycles`), median over the runs:
//!   deterministic. With `--clock=wall`: wall-clock time of `vm run
//!   --profile=timer` at 1, 10 and 50 ms against `--profile=none`, one
//!   process at a time, interleaved rounds, median and quartiles of each
//!   round's ratio.

use crate::claims::{self, Claim};
use crate::csv::{num, Csv};
use crate::exp::common;
use crate::exp::whaley::{self, PaperRow, Timed, VirtualConfig, INTERVALS};
use crate::exp::whaley_cost;
use crate::table::Table;
use crate::{markdown, Context, Error};

/// Figure 13: machine, benchmark, then (overhead %, precision) at 1, 10
/// and 50 ms. The paper prints the overhead as a run time in percent of
/// the unprofiled one (102.52%); here 2.52.
pub const PAPER: [PaperRow; 15] = [
    (
        "P3-550-S",
        "spec",
        [(2.52, 0.9892), (0.55, 0.9611), (0.36, 0.9113)],
    ),
    (
        "P3-550-S",
        "cm30",
        [(3.71, 0.9995), (0.29, 0.9991), (-0.55, 0.9973)],
    ),
    (
        "P3-550-S",
        "pbob",
        [(1.34, 0.9987), (0.88, 0.9959), (0.19, 0.9904)],
    ),
    (
        "P3-500-D",
        "spec",
        [(1.10, 0.9962), (0.46, 0.9617), (0.30, 0.8934)],
    ),
    (
        "P3-500-D",
        "cm30",
        [(1.65, 0.9999), (0.40, 0.9990), (0.48, 0.9983)],
    ),
    (
        "P3-500-D",
        "pbob",
        [(1.03, 0.9955), (0.90, 0.9952), (0.46, 0.9453)],
    ),
    (
        "P-150-S",
        "spec",
        [(1.45, 0.9895), (0.74, 0.9928), (0.35, 0.9846)],
    ),
    (
        "P-150-S",
        "cm30",
        [(33.15, 0.9998), (2.49, 0.9993), (0.65, 0.9989)],
    ),
    (
        "P-150-S",
        "pbob",
        [(1.14, 0.9945), (0.60, 0.9920), (0.20, 0.9850)],
    ),
    (
        "P604e-D",
        "spec",
        [(3.80, 0.9140), (3.81, 0.9210), (1.76, 0.8818)],
    ),
    (
        "P604e-D",
        "cm30",
        [(1.07, 0.9979), (1.26, 0.9976), (0.18, 0.9945)],
    ),
    (
        "P604e-D",
        "pbob",
        [(3.40, 0.9495), (3.10, 0.9480), (1.05, 0.8742)],
    ),
    (
        "P3-D",
        "spec",
        [(3.53, 0.9201), (3.09, 0.9096), (0.69, 0.8718)],
    ),
    (
        "P3-D",
        "cm30",
        [(1.34, 0.9994), (0.98, 0.9969), (0.15, 0.9954)],
    ),
    (
        "P3-D",
        "pbob",
        [(4.18, 0.9520), (4.01, 0.9535), (1.98, 0.8954)],
    ),
];

/// The CSV's columns.
const COLUMNS: [&str; 6] = [
    "program",
    "measure",
    "paper_interval",
    "our_interval",
    "run",
    "value",
];

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let whaley::Start {
        runs,
        programs,
        names,
        mut csv,
    } = whaley::start(ctx, "profile=timer", &COLUMNS)?;
    let row = |csv: &mut Csv,
               p: usize,
               m: &str,
               k: Option<usize>,
               our: String,
               run: String,
               v: String| {
        let paper = k.map_or("none", |k| INTERVALS[k].paper);
        let r = [names[p].clone(), m.into(), paper.into(), our, run, v];
        csv.row(&r)
    };

    // Precision under the virtual clock, in parallel.
    let configs: Vec<VirtualConfig> = INTERVALS
        .iter()
        .map(|iv| VirtualConfig {
            args: vec!["--profile=timer".into()],
            base_ns: iv.virtual_ns,
        })
        .collect();
    let wall_clock = ctx.opts.wall_clock;
    let profiles = whaley::virtual_profiles(ctx, &programs, &configs, runs, |p, k, run, prof| {
        let our = whaley::show_ns(configs[k].base_ns);
        let n = prof.run.samples.to_string();
        row(
            &mut csv,
            p,
            "samples",
            Some(k),
            our.clone(),
            run.to_string(),
            n,
        )?;
        if wall_clock {
            return Ok(());
        }
        let o = num(common::modelled_overhead(prof), 6);
        row(
            &mut csv,
            p,
            "overhead_pct",
            Some(k),
            our,
            run.to_string(),
            o,
        )
    })?;
    let mut precision = vec![vec![f64::NAN; 3]; programs.len()];
    for p in 0..programs.len() {
        for k in 0..3 {
            let pairs = whaley::pairs(&profiles[p][k], whaley::method_correlation);
            let our = whaley::show_ns(INTERVALS[k].virtual_ns);
            let fields = [
                names[p].clone(),
                "method_correlation".into(),
                INTERVALS[k].paper.into(),
                our,
            ];
            whaley::pair_rows(&mut csv, &fields, &pairs)?;
            precision[p][k] = whaley::pair_geomean(&pairs);
        }
    }

    if !wall_clock {
        let overhead: Vec<Vec<Vec<f64>>> = profiles
            .iter()
            .map(|per| per.iter().map(|runs| whaley_cost::modelled(runs)).collect())
            .collect();
        return report(ctx, &names, &overhead, &precision, &[], runs);
    }
    // With --clock=wall: overhead on the wall clock, one process at a time.
    let mut timed = vec![Timed {
        name: "none".into(),
        args: vec!["--profile=none".into()],
    }];
    for iv in &INTERVALS {
        timed.push(Timed {
            name: iv.wall.into(),
            args: vec!["--profile=timer".into(), format!("--interval={}", iv.wall)],
        });
    }
    let timing = whaley::time_programs(ctx, &programs, &timed, runs, |p, c, round, secs| {
        let k = c.checked_sub(1);
        let our = timed[c].name.clone();
        row(
            &mut csv,
            p,
            "wall_s",
            k,
            our,
            (round + 1).to_string(),
            num(secs, 6),
        )
    })?;
    let mut wall = Vec::new();
    for (name, profiles) in names.iter().zip(&timing.profiles) {
        for (k, iv) in INTERVALS.iter().enumerate() {
            let pairs = whaley::pairs(&profiles[k], whaley::method_correlation);
            let fields = [
                name.clone(),
                "wall_method_correlation".into(),
                iv.paper.into(),
                iv.wall.into(),
            ];
            whaley::pair_rows(&mut csv, &fields, &pairs)?;
            wall.push((k, whaley::pair_geomean(&pairs)));
        }
    }
    report(ctx, &names, &timing.overhead, &precision, &wall, runs)
}

/// Writes the SVG; returns the page. `wall` holds the precision between
/// the timed wall-clock runs (empty without `--clock=wall`).
fn report(
    ctx: &Context,
    names: &[String],
    overhead: &[Vec<Vec<f64>>],
    precision: &[Vec<f64>],
    wall: &[(usize, f64)],
    runs: usize,
) -> Result<markdown::Page, Error> {
    let on_wall = ctx.opts.wall_clock;
    let d = whaley_cost::overhead_digits(on_wall);
    let paper = whaley::paper_means(&PAPER);
    let series = whaley::interval_series("", precision, &paper);
    let costs = whaley_cost::overhead_series(overhead, &paper);
    let figures = whaley::precision_panels(
        &ctx.out_file("svg"),
        "Whaley 2000, Figure 13: hot-method precision and overhead (timer) per benchmark",
        names,
        &[(
            "precision: correlation between every pair of runs (geometric mean); last: the paper's mean".into(),
            series,
        )],
        vec![whaley_cost::overhead_panel(names, &costs, on_wall)],
    )?;
    let table = whaley::interval_table(names, overhead, precision, &PAPER, d);
    let wall_mean = |k: usize| {
        let v: Vec<f64> = wall.iter().filter(|w| w.0 == k).map(|w| w.1).collect();
        whaley::corr_cell(whaley::geomean(&v))
    };
    let ours = whaley::interval_means(precision);
    let cost = whaley_cost::mean_overheads(overhead);
    let overhead_method = if on_wall {
        format!(
            "Overhead is the wall-clock time against `--profile=none` at the paper's intervals \
             (`--clock=wall`), median of {runs} interleaved round(s), quartiles in brackets."
        )
    } else {
        "Overhead is the cost model's for the same runs: the profiler's work as a percentage \
         of the program's cycles (`run.profiler_cycles / run.cycles`; docs/PERFORMANCE.md, \
         \"What a profile costs\"), the median over the runs; `--clock=wall` times whole \
         processes on the wall clock at the paper's intervals instead."
            .to_string()
    };
    let overhead_reading = if on_wall {
        format!(
            "Between the timed wall-clock runs themselves (the paper's intervals on whole runs, \
             far fewer samples than the paper's 10 s segments) the geometric means of the \
             precision are {} / {} / {}; their overheads are whole processes timed on the wall \
             clock, where differences of a few percent are noise.",
            wall_mean(0),
            wall_mean(1),
            wall_mean(2),
        )
    } else {
        format!(
            "The model charges the counter {:.3} / {:.3} / {:.3}% of the programs' cycles at \
             the three settings (the paper: {:.2} / {:.2} / {:.2}%): a sample is a taken \
             yieldpoint, the executing method pushed into a buffer and folded into the counts, \
             so the overhead is the sampling rate times that cost. Our runs take the paper's \
             samples per profile in a hundredth of its time, a hundred times its samples per \
             second, so at the paper's own rate the model's overhead would be a hundredth of \
             these. The model charges the profiler's own work only; a sample on the paper's \
             machines also paid for the operating system's timer and a thread switch, which it \
             leaves out.",
            cost[0], cost[1], cost[2], paper[0].0, paper[1].0, paper[2].0,
        )
    };
    Ok(markdown::Page {
        method: format!(
            "Whaley's hot-method counter takes each thread's program counter at every tick and \
             adds one to its method's counter (Figure 12); ours is `--profile=timer`'s \
             `methods[].self`. Precision is the paper's: the correlation between runs, here \
             `method-correlation` (Pearson's, of the methods' `self`) between every pair of \
             {runs} runs under `--clock=virtual` at 10, 100 and 500 us, which give a 0.1 s run \
             the paper's 10,000, 1,000 and 200 samples per compared 10 s segment; run k's \
             period is longer by (k-1)/1000, so that runs tick at other points as a real \
             timer's do. {overhead_method}"
        ),
        results: format!(
            "Per benchmark, overhead % and precision at each interval:\n\n{table}\nThe paper's \
             Figure 13 (overhead in percent above the unprofiled run; the paper prints 100% + \
             it):\n\n{}",
            whaley::paper_table("paper, Figure 13", &PAPER),
        ),
        discussion: format!(
            "Precision here is {} / {} / {} at the three intervals against the paper's {} / {} \
             / {} (geometric means); {}. {overhead_reading}",
            whaley::corr_cell(ours[0]),
            whaley::corr_cell(ours[1]),
            whaley::corr_cell(ours[2]),
            whaley::corr_cell(paper[0].1),
            whaley::corr_cell(paper[1].1),
            whaley::corr_cell(paper[2].1),
            whaley::trend(&ours),
        ),
        table,
        figures,
    })
}

/// The paper's claims on the hot-method counter's precision and, where
/// the overhead is the cost model's, on its overhead (a wall-clock run's
/// are left unjudged: noise of a few percent on a shared machine).
pub fn claims(t: &Table) -> Vec<Claim> {
    let p: Vec<f64> = INTERVALS
        .iter()
        .map(|iv| {
            whaley::suite_precision(&whaley::precision_of(
                t,
                "method_correlation",
                iv.paper,
                &[],
            ))
        })
        .collect();
    let paper = whaley::paper_means(&PAPER);
    let small = t.quick();
    let why = "a --quick run: 3 small programs, 2 runs";
    vec![
        Claim::judged(
            "sampling every 1 ms, hot-method precision is 0.9 or more",
            format!("{:.3} (geometric mean of 15 runs)", paper[0].1),
            format!("{:.3}", p[0]),
            p[0] >= 0.9,
        )
        .unless_small(small, why),
        Claim::judged(
            "even every 50 ms precision stays high (0.9 or more)",
            format!("{:.3}: \"very accurate results\"", paper[2].1),
            format!("{:.3}", p[2]),
            p[2] >= 0.9,
        )
        .unless_small(small, why),
        Claim::judged(
            "sampling more slowly loses little precision (1 -> 50 ms: down by 0.1 or less)",
            claims::arrow(paper[0].1, paper[2].1, 3),
            claims::arrow(p[0], p[2], 3),
            p[0] - p[2] <= 0.1,
        )
        .unless_small(small, why),
        overhead_claim(t, "falls", small, why),
        overhead_claim(t, "under 3%", small, why),
    ]
}

/// The paper's claims on the counter's overhead: it falls with the
/// interval (`falls`), and at the fastest setting it is a few percent.
fn overhead_claim(t: &Table, which: &str, small: bool, why: &str) -> Claim {
    let o: Vec<f64> = INTERVALS
        .iter()
        .map(|iv| whaley_cost::suite_overhead(&whaley_cost::overhead_of(t, iv.paper, &[])))
        .collect();
    let paper = whaley::paper_means(&PAPER);
    let c = if which == "falls" {
        whaley_cost::falls_claim("the hot-method counter", &o, &paper)
    } else {
        Claim::judged(
            "at the fastest setting the counter costs under 3% of the program's time (suite mean)",
            "\"typically around 1.5-2% [...] and 2-2.5%\" at 1 ms",
            format!("{:.3}% (at 100 times the paper's samples per second)", o[0]),
            o[0] < 3.0,
        )
    };
    if o.iter().any(|v| v.is_nan()) {
        c.unjudged(whaley_cost::WALL_UNJUDGED)
    } else {
        c.unless_small(small, why)
    }
}
