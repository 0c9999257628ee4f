//! `whaley-fig14`: Whaley 2000, Figure 14 (section 6.6), the partial
//! calling context tree: its overhead and its precision at the paper's
//! three sampling intervals, and the effect of the walk's buffer.
//!
//! The profile is `--profile=timer --record=pcct`: at every tick the
//! marked walk of Figure 7 places the sample in the thread's PCCT
//! (profiler/src/pcct.rs). Whaley's method buffer (`BUFSIZE`, 16 in the
//! paper) is our `--max-walk`: the most frames one walk may examine before
//! it is cut and its frames start a detached subtree (section 5.4.1).
//!
//! - Precision, as the paper defines it for the PCCT: Pearson's
//!   correlation of two trees' node counts (`self`) and edge counts
//!   (`calls`) together, matched by their paths to the root
//!   ([`whaley::context_correlation`]), between every pair of runs under
//!   the virtual clock at 10, 100 and 500 us (see [`super::whaley`] for the
//!   mapping), summarised by the geometric mean. The hot-method precision
//!   of the same runs (`method_correlation`) is beside it.
//! - The buffer: at the 1 ms setting, `--max-walk` 1 to 64: the share of
//!   samples that land in detached contexts, the precision, the number of
//!   contexts; and the overhead of the smallest and largest buffer.
//! - Overhead: the cost model's of the same runs (`overhead_pct`,
//!   `run.profiler_cycles / run.cycles`), median over the runs, with the
//!   hot-method counter (`timer` alone) at the 1 ms setting beside it:
//!   deterministic. With `--clock=wall`: wall-clock time against
//!   `--profile=none` at 1, 10 and 50 ms, with the hot-method counter at 1
//!   ms in the same rounds, one process at a time.

use crate::claims::Claim;
use crate::csv::{num, Csv};
use crate::exp::common;
use crate::exp::whaley::{self, PaperRow, Timed, VirtualConfig, INTERVALS};
use crate::exp::whaley_cost;
use crate::table::Table;
use crate::{markdown, stats, suite, Context, Error};

/// Figure 14: machine, benchmark, then (overhead %, precision) at 1, 10
/// and 50 ms (the paper's 104.71% is 4.71 here). (3.14 is the paper's
/// overhead, not an approximation of pi.)
#[allow(clippy::approx_constant)]
pub const PAPER: [PaperRow; 15] = [
    (
        "P3-550-S",
        "spec",
        [(4.71, 0.9347), (3.74, 0.8715), (3.46, 0.8422)],
    ),
    (
        "P3-550-S",
        "cm30",
        [(5.90, 0.9989), (2.25, 0.9950), (1.42, 0.9887)],
    ),
    (
        "P3-550-S",
        "pbob",
        [(5.83, 0.9146), (4.37, 0.8832), (2.24, 0.8428)],
    ),
    (
        "P3-500-D",
        "spec",
        [(3.13, 0.9368), (2.28, 0.8765), (2.01, 0.8336)],
    ),
    (
        "P3-500-D",
        "cm30",
        [(2.25, 0.9998), (1.56, 0.9930), (1.12, 0.9858)],
    ),
    (
        "P3-500-D",
        "pbob",
        [(3.89, 0.8802), (2.49, 0.8696), (2.62, 0.8201)],
    ),
    (
        "P-150-S",
        "spec",
        [(4.04, 0.9105), (3.26, 0.8948), (3.08, 0.8809)],
    ),
    (
        "P-150-S",
        "cm30",
        [(41.92, 0.9997), (6.19, 0.9916), (2.04, 0.9881)],
    ),
    (
        "P-150-S",
        "pbob",
        [(5.81, 0.9091), (4.81, 0.8911), (3.94, 0.8249)],
    ),
    (
        "P604e-D",
        "spec",
        [(6.36, 0.8691), (5.99, 0.8689), (4.45, 0.8170)],
    ),
    (
        "P604e-D",
        "cm30",
        [(3.05, 0.9946), (3.14, 0.9963), (2.20, 0.9803)],
    ),
    (
        "P604e-D",
        "pbob",
        [(6.51, 0.8697), (6.81, 0.8561), (4.53, 0.7800)],
    ),
    (
        "P3-D",
        "spec",
        [(6.81, 0.8589), (4.55, 0.8541), (4.74, 0.8112)],
    ),
    (
        "P3-D",
        "cm30",
        [(3.10, 0.9995), (3.91, 0.9901), (2.08, 0.9892)],
    ),
    (
        "P3-D",
        "pbob",
        [(6.09, 0.8603), (6.14, 0.8599), (3.23, 0.7847)],
    ),
];

/// The paper's buffer.
pub const PAPER_BUFFER: u32 = 16;

/// The buffers (`--max-walk`) of the sweep at the 1 ms setting.
pub const BUFFERS: [u32; 6] = [1, 2, 4, 8, 16, 64];

/// A buffer deep enough for every walk of the suite to reach a marked
/// frame: the precision at every interval is measured with it too.
pub const DEEP_BUFFER: u32 = 64;

/// The buffers whose overhead is timed at 1 ms besides the paper's.
const TIMED_BUFFERS: [u32; 2] = [1, 64];

/// The CSV's columns.
const COLUMNS: [&str; 7] = [
    "program",
    "measure",
    "paper_interval",
    "our_interval",
    "buffer",
    "run",
    "value",
];

/// The PCCT's profile options with buffer `b`.
fn pcct(b: u32) -> Vec<String> {
    vec![
        "--profile=timer".into(),
        "--record=pcct".into(),
        format!("--max-walk={b}"),
    ]
}

/// One measured configuration: interval index, buffer (`None`: no PCCT).
type Setting = (usize, Option<u32>);

/// What the experiment measured, per program.
struct Measured {
    /// `[program][interval]`: context precision at the paper's buffer.
    context: Vec<Vec<f64>>,
    /// `[program][interval]`: hot-method precision of the same runs.
    method: Vec<Vec<f64>>,
    /// `[program][interval]`: context precision with [`DEEP_BUFFER`].
    deep: Vec<Vec<f64>>,
    /// `[program]`: per buffer at 1 ms, ascending: (buffer, median
    /// detached %, context precision, median number of contexts).
    buffers: Vec<Vec<(u32, f64, f64, f64)>>,
    /// `[program][config]`: overhead of each run (or round), the configs
    /// those of [`timed`] without `none`: the hot-method counter at 1 ms,
    /// the PCCT at the three intervals, the PCCT at 1 ms with the
    /// [`TIMED_BUFFERS`].
    overhead: Vec<Vec<Vec<f64>>>,
    /// `[interval]`: geometric mean over the programs of the context
    /// precision between the timed wall-clock runs.
    wall: Vec<f64>,
}

/// The first five fields of a row: program, measure, the paper's
/// interval (`none` without a setting), ours, the buffer (empty without a
/// PCCT).
fn head(name: &str, measure: &str, s: Option<Setting>, our: String) -> [String; 5] {
    let paper = s.map_or("none", |s| INTERVALS[s.0].paper);
    let b = s.and_then(|s| s.1).map_or(String::new(), |b| b.to_string());
    [name.into(), measure.into(), paper.into(), our, b]
}

/// Writes one CSV row: `head`, the run, the value.
fn row(csv: &mut Csv, head: [String; 5], run: String, v: String) -> Result<(), Error> {
    let [a, b, c, d, e] = head;
    csv.row(&[a, b, c, d, e, run, v])
}

/// The virtual-clock interval of interval `k`, shown.
fn our(k: usize) -> String {
    whaley::show_ns(INTERVALS[k].virtual_ns)
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let whaley::Start {
        runs,
        programs,
        names,
        mut csv,
    } = whaley::start(ctx, "profile=timer record=pcct", &COLUMNS)?;
    let mut m = precision(ctx, &programs, &names, runs, &mut csv)?;
    if ctx.opts.wall_clock {
        time(ctx, &programs, &names, runs, &mut csv, &mut m)?;
    }
    report(ctx, &names, &m, runs)
}

/// The precision sweep under the virtual clock: the three intervals at the
/// paper's buffer, then the other buffers at 1 ms, the deep buffer at the
/// other intervals; and, for the model's overhead (without
/// `--clock=wall`), the hot-method counter alone at 1 ms.
fn precision(
    ctx: &Context,
    programs: &[suite::Program],
    names: &[String],
    runs: usize,
    csv: &mut Csv,
) -> Result<Measured, Error> {
    let mut settings: Vec<Setting> = (0..3).map(|k| (k, Some(PAPER_BUFFER))).collect();
    settings.extend(
        BUFFERS
            .iter()
            .filter(|&&b| b != PAPER_BUFFER)
            .map(|&b| (0, Some(b))),
    );
    settings.extend((1..3).map(|k| (k, Some(DEEP_BUFFER))));
    let model = !ctx.opts.wall_clock;
    if model {
        settings.push((0, None));
    }
    let configs: Vec<VirtualConfig> = settings
        .iter()
        .map(|&(k, b)| VirtualConfig {
            args: b.map_or(vec!["--profile=timer".into()], pcct),
            base_ns: INTERVALS[k].virtual_ns,
        })
        .collect();
    let profiles = whaley::virtual_profiles(ctx, programs, &configs, runs, |p, c, run, prof| {
        let (s, n) = (Some(settings[c]), &names[p]);
        let h = |m: &str| head(n, m, s, our(settings[c].0));
        let contexts = whaley::contexts(prof).map_or(0, |c| c.len());
        let run = run.to_string();
        row(csv, h("samples"), run.clone(), prof.run.samples.to_string())?;
        if model {
            let o = num(common::modelled_overhead(prof), 6);
            row(csv, h("overhead_pct"), run.clone(), o)?;
        }
        if settings[c].1.is_none() {
            return Ok(());
        }
        row(csv, h("contexts"), run.clone(), contexts.to_string())?;
        row(
            csv,
            h("detached_pct"),
            run,
            num(whaley::detached_pct(prof), 3),
        )
    })?;
    let mut m = Measured {
        context: vec![vec![f64::NAN; 3]; programs.len()],
        method: vec![vec![f64::NAN; 3]; programs.len()],
        deep: vec![vec![f64::NAN; 3]; programs.len()],
        buffers: vec![Vec::new(); programs.len()],
        overhead: Vec::new(),
        wall: Vec::new(),
    };
    for p in 0..programs.len() {
        if model {
            m.overhead.push(
                timed()
                    .iter()
                    .filter_map(|t| t.1)
                    .map(|want| {
                        let c = settings.iter().position(|&s| s == want).unwrap_or(0);
                        whaley_cost::modelled(&profiles[p][c])
                    })
                    .collect(),
            );
        }
        for (c, &s) in settings.iter().enumerate() {
            if s.1.is_none() {
                continue;
            }
            let runs = &profiles[p][c];
            let fields = |what: &str| head(&names[p], what, Some(s), our(s.0));
            let pairs = whaley::pairs(runs, whaley::context_correlation);
            whaley::pair_rows(csv, &fields("context_correlation"), &pairs)?;
            let prec = whaley::pair_geomean(&pairs);
            if c < 3 {
                m.context[p][c] = prec;
                let pairs = whaley::pairs(runs, whaley::method_correlation);
                whaley::pair_rows(csv, &fields("method_correlation"), &pairs)?;
                m.method[p][c] = whaley::pair_geomean(&pairs);
            }
            if s.1 == Some(DEEP_BUFFER) {
                m.deep[p][s.0] = prec;
            }
            if s.0 == 0 {
                let det: Vec<f64> = runs.iter().map(whaley::detached_pct).collect();
                let n: Vec<f64> = runs
                    .iter()
                    .map(|r| whaley::contexts(r).map_or(f64::NAN, |c| c.len() as f64))
                    .collect();
                let buffer = s.1.unwrap_or(PAPER_BUFFER);
                m.buffers[p].push((buffer, stats::median(&det), prec, stats::median(&n)));
            }
        }
        m.buffers[p].sort_by_key(|b| b.0);
    }
    Ok(m)
}

/// The timed configurations: none, the hot-method counter at 1 ms, the
/// PCCT at the three intervals, the PCCT at 1 ms with the other buffers;
/// each with its setting (`None` for `none`).
fn timed() -> Vec<(Timed, Option<Setting>)> {
    let mut t = vec![(
        Timed {
            name: "none".into(),
            args: vec!["--profile=none".into()],
        },
        None,
    )];
    t.push((
        Timed {
            name: "timer 1ms".into(),
            args: vec!["--profile=timer".into(), "--interval=1ms".into()],
        },
        Some((0, None)),
    ));
    let settings = (0..3)
        .map(|k| (k, PAPER_BUFFER))
        .chain(TIMED_BUFFERS.iter().map(|&b| (0, b)));
    for (k, b) in settings {
        let mut args = pcct(b);
        args.push(format!("--interval={}", INTERVALS[k].wall));
        let name = format!("pcct {} buffer {b}", INTERVALS[k].wall);
        t.push((Timed { name, args }, Some((k, Some(b)))));
    }
    t
}

/// The wall-clock timing, one process at a time; the context precision
/// between its PCCT runs at the paper's buffer.
fn time(
    ctx: &Context,
    programs: &[suite::Program],
    names: &[String],
    runs: usize,
    csv: &mut Csv,
    m: &mut Measured,
) -> Result<(), Error> {
    let (timed, settings): (Vec<Timed>, Vec<Option<Setting>>) = timed().into_iter().unzip();
    let timing = whaley::time_programs(ctx, programs, &timed, runs, |p, c, round, secs| {
        let s = settings[c];
        let our = s.map_or("none".to_string(), |s| INTERVALS[s.0].wall.to_string());
        let h = head(&names[p], "wall_s", s, our);
        row(csv, h, (round + 1).to_string(), num(secs, 6))
    })?;
    for (k, iv) in INTERVALS.iter().enumerate() {
        let mut v = Vec::new();
        for (p, name) in names.iter().enumerate() {
            let pairs = whaley::pairs(&timing.profiles[p][1 + k], whaley::context_correlation);
            let s = Some((k, Some(PAPER_BUFFER)));
            let fields = head(name, "wall_context_correlation", s, iv.wall.into());
            whaley::pair_rows(csv, &fields, &pairs)?;
            v.push(whaley::pair_geomean(&pairs));
        }
        m.wall.push(whaley::geomean(&v));
    }
    m.overhead = timing.overhead;
    Ok(())
}

/// The buffer table: per program and buffer, detached % / precision /
/// contexts; then the mean overhead at 1 ms of the timed buffers, with `d`
/// decimals.
fn buffer_table(names: &[String], m: &Measured, d: usize) -> String {
    let mut headers = vec!["benchmark".to_string()];
    headers.extend(BUFFERS.iter().map(|b| format!("buffer {b}")));
    let mut rows: Vec<Vec<String>> = names
        .iter()
        .zip(&m.buffers)
        .map(|(name, bs)| {
            let cells = bs.iter().map(|(_, det, prec, n)| {
                format!("{det:.1}% / {} / {n:.0}", whaley::corr_cell(*prec))
            });
            std::iter::once(name.clone()).chain(cells).collect()
        })
        .collect();
    // Timed configs: 1 timer, 2..=4 the intervals, then TIMED_BUFFERS.
    let mean_ovh = |i: usize| {
        let v: Vec<f64> = m.overhead.iter().map(|o| stats::median(&o[i])).collect();
        format!("{:.d$}", stats::mean(&v))
    };
    let mut ovh = vec!["**overhead % at 1 ms (mean)**".to_string()];
    for b in BUFFERS {
        ovh.push(match (b, TIMED_BUFFERS.iter().position(|&t| t == b)) {
            (PAPER_BUFFER, _) => mean_ovh(1),
            (_, Some(i)) => mean_ovh(4 + i),
            _ => "-".into(),
        });
    }
    rows.push(ovh);
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    markdown::table(&h, &rows)
}

/// Writes the SVG; returns the page.
fn report(
    ctx: &Context,
    names: &[String],
    m: &Measured,
    runs: usize,
) -> Result<markdown::Page, Error> {
    let on_wall = ctx.opts.wall_clock;
    let d = whaley_cost::overhead_digits(on_wall);
    let paper = whaley::paper_means(&PAPER);
    let paper13 = whaley::paper_means(&super::whaley_fig13::PAPER);
    let mut series = whaley::interval_series("", &m.context, &paper);
    series.push(whaley::bar_series(
        "hot methods of the same runs, 1 ms".into(),
        m.method.iter().map(|p| p[0]).collect(),
        paper13[0].1,
    ));
    let deep = whaley::interval_series("", &m.deep, &paper);
    let pcct_ovh: Vec<Vec<Vec<f64>>> = m.overhead.iter().map(|o| o[1..4].to_vec()).collect();
    let timer_ovh: Vec<f64> = m.overhead.iter().map(|o| stats::median(&o[0])).collect();
    let mut costs = whaley_cost::overhead_series(&pcct_ovh, &paper);
    let mut timer_bars = timer_ovh.clone();
    timer_bars.push(stats::mean(&timer_ovh));
    timer_bars.push(paper13[0].0);
    costs.push(("hot methods alone, 1 ms (Figure 13)".into(), timer_bars));
    let figures = whaley::precision_panels(
        &ctx.out_file("svg"),
        "Whaley 2000, Figure 14: PCCT precision (nodes and edges) and overhead per benchmark",
        names,
        &[
            (format!("precision with the paper's buffer, {PAPER_BUFFER} frames"), series),
            (
                format!("precision with a buffer of {DEEP_BUFFER} frames: every walk reaches a marked frame"),
                deep,
            ),
        ],
        vec![whaley_cost::overhead_panel(names, &costs, on_wall)],
    )?;
    let table = whaley::interval_table(names, &pcct_ovh, &m.context, &PAPER, d);
    let buffers = buffer_table(names, m, d);
    let ctx_prec = whaley::interval_means(&m.context);
    let meth_prec = whaley::interval_means(&m.method);
    let pcct_means = whaley_cost::mean_overheads(&pcct_ovh);
    let timer_1ms = stats::mean(&timer_ovh);
    let c = whaley::corr_cell;
    let (overhead_method, clock_name) = if on_wall {
        (
            format!(
                "Overhead is the wall-clock time against `--profile=none` at the paper's \
                 intervals (`--clock=wall`), median of {runs} interleaved round(s), quartiles in \
                 brackets."
            ),
            "on the wall clock",
        )
    } else {
        (
            "Overhead is the cost model's for the same runs: the profiler's work as a \
             percentage of the program's cycles (`run.profiler_cycles / run.cycles`; \
             docs/PERFORMANCE.md, \"What a profile costs\"), the median over the runs, with \
             the hot-method counter alone (`--profile=timer`) at the 1 ms setting beside it; \
             `--clock=wall` times whole processes on the wall clock at the paper's intervals \
             instead."
                .to_string(),
            "in the cost model",
        )
    };
    let wall_precision = if m.wall.len() == 3 {
        format!(
            " Between the timed wall-clock runs the context precision is {} / {} / {}.",
            c(m.wall[0]),
            c(m.wall[1]),
            c(m.wall[2])
        )
    } else {
        String::new()
    };
    let cost_reading = format!(
        "{} the PCCT costs {:.d$} / {:.d$} / {:.d$}% at the three settings (the paper: {:.2} / \
         {:.2} / {:.2}%), and at 1 ms the hot-method counter alone {:.d$}%: the PCCT costs {:.1} \
         times the counter (the paper: {:.1} times).",
        capitalised(clock_name),
        pcct_means[0],
        pcct_means[1],
        pcct_means[2],
        paper[0].0,
        paper[1].0,
        paper[2].0,
        timer_1ms,
        pcct_means[0] / timer_1ms,
        paper[0].0 / paper13[0].0,
    );
    let model_note = if on_wall {
        String::new()
    } else {
        " The PCCT's extra cost is the marked walk's: each frame pushed since the last sample \
         is walked, marked and placed, its edge's weight incremented in the hot lists. Our runs \
         take a hundred times the paper's samples per second (see Figure 13's page); at the \
         paper's rate the model's overheads would be a hundredth of these."
            .to_string()
    };
    Ok(markdown::Page {
        method: format!(
            "The PCCT (`--profile=timer --record=pcct`, buffer `--max-walk={PAPER_BUFFER}` as in \
             the paper): at every tick the marked walk of the paper's Figure 7 places the sample \
             in the thread's PCCT. Precision, as the paper defines it for the PCCT: the \
             correlation of two trees' node and edge counts matched by their paths to the root, \
             between every pair of {runs} runs under `--clock=virtual` at 10, 100 and 500 us \
             (the paper's samples per compared profile; run k's period longer by (k-1)/1000), \
             the geometric mean (the arithmetic one where a correlation is not positive). \
             {overhead_method}"
        ),
        results: format!(
            "Per benchmark, overhead % and context precision at each interval:\n\n{table}\nThe \
             paper's Figure 14:\n\n{}\nThe buffer (`--max-walk`) at the 1 ms setting (10 us \
             virtual): per benchmark the median share of samples placed in detached contexts \
             (walks cut by the buffer), the precision, and the median number of contexts; the \
             last row is the mean overhead {clock_name} at 1 ms:\n\n{buffers}",
            whaley::paper_table("paper, Figure 14", &PAPER),
        ),
        discussion: format!(
            "Context precision here is {} / {} / {} against the paper's {} / {} / {}; {}. {}The \
             hot-method precision of the same runs is {} / {} / {} (Figure 13: {} / {} / {}). \
             {cost_reading}{model_note}{wall_precision}",
            c(ctx_prec[0]),
            c(ctx_prec[1]),
            c(ctx_prec[2]),
            c(paper[0].1),
            c(paper[1].1),
            c(paper[2].1),
            whaley::trend(&ctx_prec),
            detached_reading(names, m, &Table::read(&ctx.out_file("csv"))?),
            c(meth_prec[0]),
            c(meth_prec[1]),
            c(meth_prec[2]),
            c(paper13[0].1),
            c(paper13[1].1),
            c(paper13[2].1),
        ),
        table: format!("{table}\n{buffers}"),
        figures,
    })
}

/// `s` with its first letter capitalised.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// Why the paper's buffer loses precision on some programs, from the
/// numbers: the programs whose walks are cut, their pairs of runs, their
/// precision with a deeper buffer.
fn detached_reading(names: &[String], m: &Measured, t: &Table) -> String {
    let mut cut = Vec::new();
    let mut pairs = Vec::new();
    for (p, n) in names.iter().enumerate() {
        let Some(det) = m.buffers[p]
            .iter()
            .find(|b| b.0 == PAPER_BUFFER)
            .map(|b| b.1)
        else {
            continue;
        };
        let (k, low) =
            m.context[p]
                .iter()
                .copied()
                .enumerate()
                .fold(
                    (0, f64::INFINITY),
                    |a, (k, v)| if v < a.1 { (k, v) } else { a },
                );
        if det < 10.0 || low >= 0.85 {
            continue;
        }
        let deep = m.deep[p].iter().copied().fold(f64::INFINITY, f64::min);
        cut.push(n.clone());
        let buffer = PAPER_BUFFER.to_string();
        let v: Vec<f64> = t
            .select(&[
                ("program", n),
                ("measure", "context_correlation"),
                ("paper_interval", INTERVALS[k].paper),
                ("buffer", &buffer),
            ])
            .iter()
            .map(|r| r.num("value"))
            .collect();
        let hi = v.iter().filter(|&&x| x > 0.8).count();
        let lo = v.iter().filter(|&&x| x < 0.2).count();
        pairs.push(format!(
            "{n}: {det:.0}% of its samples detached at 1 ms; at {} its {} pairs of runs \
             correlate above 0.8 {hi} times and below 0.2 {lo} times; lowest precision {low:.2} \
             with {PAPER_BUFFER} frames, {deep:.2} with {DEEP_BUFFER}",
            INTERVALS[k].paper,
            v.len()
        ));
    }
    if cut.is_empty() {
        return String::new();
    }
    format!(
        "Where precision falls short, the walks are cut ({}). A sample's new frames outnumber \
         the {PAPER_BUFFER} the buffer holds, so the walk stops before a marked frame and the \
         sample starts a detached subtree rooted where the walk was cut (the paper's section \
         5.4.1, Figure 10). Where that cut falls depends on where the first deep walk \
         happened, so two runs file the same calls under different detached paths, and their \
         largest edge counts match nowhere: two runs correlate near 0 unless their cuts \
         coincide, and the precision of such a program swings with the few pairs that do. With \
         {DEEP_BUFFER} frames every walk reaches a marked frame and the same programs are as \
         precise as the others (the second panel; `vm experiment whaley-fig14 --programs {}` \
         shows both). ",
        pairs.join("; "),
        cut.join(",")
    )
}

/// The paper's claims on the PCCT's precision and, where the overhead is
/// the cost model's, on its overhead (a wall-clock run's are left
/// unjudged: noise of a few percent on a shared machine).
pub fn claims(t: &Table) -> Vec<Claim> {
    let buffer = PAPER_BUFFER.to_string();
    let extra = [("buffer", buffer.as_str())];
    let per: Vec<Vec<(String, f64)>> = INTERVALS
        .iter()
        .map(|iv| whaley::precision_of(t, "context_correlation", iv.paper, &extra))
        .collect();
    let p: Vec<f64> = per.iter().map(|x| whaley::suite_precision(x)).collect();
    let m1 = whaley::suite_precision(&whaley::precision_of(
        t,
        "method_correlation",
        "1ms",
        &extra,
    ));
    let deep_buffer = DEEP_BUFFER.to_string();
    let d: Vec<f64> = INTERVALS
        .iter()
        .map(|iv| {
            whaley::suite_precision(&whaley::precision_of(
                t,
                "context_correlation",
                iv.paper,
                &[("buffer", deep_buffer.as_str())],
            ))
        })
        .collect();
    let paper = whaley::paper_means(&PAPER);
    let small = t.quick();
    let why = "a --quick run: 3 small programs, 2 runs";
    vec![
        Claim::judged(
            "with context, precision stays around 0.9 (0.85 or more at every interval)",
            format!("{:.3} / {:.3} / {:.3}", paper[0].1, paper[1].1, paper[2].1),
            format!("{:.3} / {:.3} / {:.3}", p[0], p[1], p[2]),
            p.iter().all(|&v| v >= 0.85),
        )
        .unless_small(small, why)
        .gap(),
        Claim::judged(
            format!("with a buffer every walk fits in ({DEEP_BUFFER} frames), precision is 0.85 or more at every interval"),
            format!("{:.3} / {:.3} / {:.3} (16 frames, the paper's programs)", paper[0].1, paper[1].1, paper[2].1),
            format!("{:.3} / {:.3} / {:.3}", d[0], d[1], d[2]),
            d.iter().all(|&v| v >= 0.85),
        )
        .unless_small(small, why),
        Claim::judged(
            "the context costs precision: the PCCT's is below the hot methods' of the same runs (1 ms)",
            format!("{:.3} against {:.3} (Figure 13)", paper[0].1, whaley::paper_means(&super::whaley_fig13::PAPER)[0].1),
            format!("{:.3} against {m1:.3}", p[0]),
            p[0] <= m1,
        )
        .unless_small(small, why),
    ]
    .into_iter()
    .chain(overhead_claims(t, small, why))
    .collect()
}

/// The paper's claims on the PCCT's overhead: it falls with the interval,
/// it costs more than the hot-method counter, a few percent at most.
fn overhead_claims(t: &Table, small: bool, why: &str) -> Vec<Claim> {
    let buffer = PAPER_BUFFER.to_string();
    let o: Vec<f64> = INTERVALS
        .iter()
        .map(|iv| {
            whaley_cost::suite_overhead(&whaley_cost::overhead_of(
                t,
                iv.paper,
                &[("buffer", buffer.as_str())],
            ))
        })
        .collect();
    let timer = whaley_cost::suite_overhead(&whaley_cost::overhead_of(t, "1ms", &[("buffer", "")]));
    let paper = whaley::paper_means(&PAPER);
    let paper13 = whaley::paper_means(&super::whaley_fig13::PAPER);
    let judge = |c: Claim| {
        if o.iter().any(|v| v.is_nan()) || timer.is_nan() {
            c.unjudged(whaley_cost::WALL_UNJUDGED)
        } else {
            c.unless_small(small, why)
        }
    };
    vec![
        judge(whaley_cost::falls_claim("the PCCT", &o, &paper)),
        judge(Claim::judged(
            "the PCCT costs more than the hot-method counter at the same rate (1 ms, suite mean)",
            format!(
                "{:.2} against {:.2}%: \"slightly more expensive\"",
                paper[0].0, paper13[0].0
            ),
            format!("{:.3} against {timer:.3}%", o[0]),
            o[0] > timer,
        )),
        judge(Claim::judged(
            "the PCCT costs under 5% of the program's time at every interval (suite mean)",
            "\"around 2-4% for most applications\"",
            format!(
                "{:.3} / {:.3} / {:.3}% (the first at 100 times the paper's samples per second)",
                o[0], o[1], o[2]
            ),
            o.iter().all(|&v| v < 5.0),
        )),
    ]
}
