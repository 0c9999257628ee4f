//! `stack-depth-cost`: what one sample's stack walk costs as the stack
//! gets deeper, with each walk: Whaley's reason for marked frames.
//!
//! Whaley 2000 (section 5.2) marks the frames a sample has visited, so
//! that the next sample stops at the first marked frame instead of
//! walking the entire stack, as Hall and Goldberg's profiler and HPROF do
//! on every sample (section 2); Hofer et al. 2015 (section 5) decode each
//! frame once, when the program returns into it (incremental stack
//! tracing). The claim of both: a full walk costs in proportion to the
//! stack's depth, theirs do not on a stack that stays put.
//!
//! The method is that of docs/PERFORMANCE.md, "Cost per sample against
//! stack depth" (`bench/walk_cost.sh`), in the cost model instead of the
//! wall clock: the program `tests/programs/contexts/walk_cost.bc`
//! recurses `DEPTH` frames deep and makes `CALLS` calls to a leaf from
//! there, so every sample is taken on a stack `DEPTH + 3` frames deep; it
//! runs under `--profile=counter --every=10 --record=cct --cycles` with
//! `--walk=full`, `--walk=marked` (both `--max-walk=100000`: no walk is
//! cut) and `--walk=incremental`. A walk's cost per sample is the
//! profile's walking cycles (`run.profiler_cycles_by_kind.walking`: frames
//! decoded, marks set, trampolines) over its samples (`run.samples`). A
//! counter with a fixed seed and the cost model make the CSV the same on
//! every run.

use profile::Profile;

use crate::claims::Claim;
use crate::csv::{num, Csv};
use crate::runner::par_map;
use crate::suite::Program;
use crate::table::Table;
use crate::{markdown, plot, stats, Context, Error};

/// The program, under the repository.
const PROGRAM: &str = "tests/programs/contexts/walk_cost.bc";

/// Frames on the stack besides the recursion: `main`, `spin`, `leaf`.
const EXTRA_FRAMES: i64 = 3;

/// One sample per this many calls.
const EVERY: u64 = 10;

/// The walks: CSV key, label, options.
pub const WALKS: [(&str, &str, &[&str]); 3] = [
    ("full", "full walk", &["--walk=full", "--max-walk=100000"]),
    (
        "marked",
        "marked walk (Whaley)",
        &["--walk=marked", "--max-walk=100000"],
    ),
    (
        "incremental",
        "incremental walk (Hofer et al.)",
        &["--walk=incremental"],
    ),
];

/// The recursion depths of a full run and of `--quick`.
const DEPTHS: [i64; 9] = [1, 2, 5, 10, 20, 50, 100, 150, 200];
const DEPTHS_QUICK: [i64; 3] = [1, 10, 50];

/// The CSV's columns.
const COLUMNS: [&str; 8] = [
    "walk",
    "depth",
    "stack_depth",
    "samples",
    "frames_walked",
    "walking_cycles",
    "walk_cycles_per_sample",
    "profiler_cycles_per_sample",
];

/// One run's numbers.
#[derive(Clone, Copy, Debug, Default)]
struct Cost {
    samples: u64,
    frames: u64,
    walking: u64,
    profiler: u64,
}

impl Cost {
    /// From a profile's `run` section.
    fn of(p: &Profile) -> Cost {
        let r = &p.run;
        Cost {
            samples: r.samples,
            frames: r
                .profiler_work
                .as_ref()
                .and_then(|w| w.get("frame_walked").copied())
                .unwrap_or(0),
            walking: r.profiler_cycles_by_kind.map_or(0, |k| k.walking),
            profiler: r.profiler_cycles.unwrap_or(0),
        }
    }

    /// Cycles per sample of `cycles`.
    fn per_sample(&self, cycles: u64) -> f64 {
        cycles as f64 / self.samples.max(1) as f64
    }
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let (depths, calls): (&[i64], i64) = if ctx.opts.quick {
        (&DEPTHS_QUICK, 10_000)
    } else {
        (&DEPTHS, 100_000)
    };
    let mut csv = Csv::experiment(
        ctx,
        &format!(
            "program={PROGRAM} CALLS={calls} profile=counter every={EVERY} seed=1 record=cct \
             cost: cycles of the cost model"
        ),
        &COLUMNS,
    )?;
    let jobs: Vec<(usize, usize)> = (0..WALKS.len())
        .flat_map(|w| (0..depths.len()).map(move |d| (w, d)))
        .collect();
    let vm = ctx.vm();
    let path = ctx.opts.root.join(PROGRAM);
    let mut costs = vec![vec![Cost::default(); depths.len()]; WALKS.len()];
    let mut progress = crate::progress::Progress::new(ctx.exp.name, "walks", jobs.len() as u64);
    par_map(
        ctx.opts.jobs,
        &jobs,
        |&(w, d)| {
            let prog = Program {
                name: "walk_cost".into(),
                path: path.clone(),
                set: vec![("DEPTH".into(), depths[d]), ("CALLS".into(), calls)],
            };
            let mut args: Vec<String> = [
                "--profile=counter",
                &format!("--every={EVERY}"),
                "--seed=1",
                "--record=cct",
                "--cycles",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            args.extend(WALKS[w].2.iter().map(|s| s.to_string()));
            let tag = format!("{}-{}", WALKS[w].0, depths[d]);
            Ok(Cost::of(&vm.profile(&prog, &args, &tag)?.0))
        },
        |i, c| {
            let (w, d) = jobs[i];
            progress.step(&format!("{} depth {}", WALKS[w].0, depths[d]));
            costs[w][d] = c;
            csv.row(&[
                WALKS[w].0.into(),
                depths[d].to_string(),
                (depths[d] + EXTRA_FRAMES).to_string(),
                c.samples.to_string(),
                c.frames.to_string(),
                c.walking.to_string(),
                num(c.per_sample(c.walking), 2),
                num(c.per_sample(c.profiler), 2),
            ])
        },
    )?;
    progress.finish();
    let figures = draw(ctx, depths, &costs)?;
    let table = results_table(depths, &costs);
    Ok(markdown::Page {
        method: method(calls),
        results: format!(
            "Walk cycles per sample (frames walked per sample in brackets), per stack depth \
             and walk:\n\n{table}"
        ),
        discussion: discussion(depths, &costs),
        table,
        figures,
    })
}

/// The method, in words.
fn method(calls: i64) -> String {
    format!(
        "Whaley (section 5.2) marks each frame a sample visits, so that the next sample \
         stops at the first marked frame instead of walking the entire stack; Hofer et al. \
         (section 5) decode each frame once, when the program returns into it. Here the \
         program `{PROGRAM}` recurses DEPTH frames deep and then makes {calls} calls to a \
         leaf, so that every sample is taken on a stack DEPTH + {EXTRA_FRAMES} frames deep \
         that stays put below the leaf; it runs under `--profile=counter --every={EVERY} \
         --seed=1 --record=cct --cycles` (a sample every {EVERY} calls) with `--walk=full` \
         and `--walk=marked` (both `--max-walk=100000`, so that no walk is cut) and \
         `--walk=incremental`. This is the method of docs/PERFORMANCE.md, \"Cost per sample \
         against stack depth\", in the cost model instead of the wall clock: a walk's cost \
         per sample is the profile's walking cycles (`run.profiler_cycles_by_kind.walking`: \
         frames decoded, marks set, trampolines installed and taken, priced by \
         vm/src/profiler_cost.rs) over its samples. The runs are deterministic."
    )
}

/// Per depth: each walk's cycles and frames per sample.
fn results_table(depths: &[i64], costs: &[Vec<Cost>]) -> String {
    let rows: Vec<Vec<String>> = depths
        .iter()
        .enumerate()
        .map(|(d, depth)| {
            let mut row = vec![(depth + EXTRA_FRAMES).to_string()];
            for per in costs {
                let c = per[d];
                row.push(format!(
                    "{:.1} ({:.1})",
                    c.per_sample(c.walking),
                    c.per_sample(c.frames)
                ));
            }
            row
        })
        .collect();
    let mut headers = vec!["stack depth"];
    headers.extend(WALKS.iter().map(|w| w.1));
    markdown::table(&headers, &rows)
}

/// `(stack depth, walk cycles per sample)` of walk `key`, by depth.
fn points(t: &Table, key: &str) -> Vec<(f64, f64)> {
    t.select(&[("walk", key)])
        .iter()
        .map(|r| (r.num("stack_depth"), r.num("walk_cycles_per_sample")))
        .collect()
}

/// The least-squares slope of `pts`.
fn slope(pts: &[(f64, f64)]) -> f64 {
    let mx = stats::mean(&pts.iter().map(|p| p.0).collect::<Vec<_>>());
    let my = stats::mean(&pts.iter().map(|p| p.1).collect::<Vec<_>>());
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    sxy / sxx
}

/// The largest value of `pts` over the smallest.
fn spread(pts: &[(f64, f64)]) -> f64 {
    let hi = pts.iter().fold(f64::NEG_INFINITY, |a, p| a.max(p.1));
    let lo = pts.iter().fold(f64::INFINITY, |a, p| a.min(p.1));
    hi / lo
}

/// How much a flat walk's cost may vary over the depths: 10%.
const FLAT: f64 = 1.1;

/// The papers' claims on walk cost, judged on the CSV.
pub fn claims(t: &Table) -> Vec<Claim> {
    let small = t.quick();
    let why = "a --quick run has three depths";
    let full = points(t, "full");
    let r = stats::pearson(&full).unwrap_or(0.0);
    let range = |p: &[(f64, f64)]| match (p.first(), p.last()) {
        (Some(a), Some(b)) => format!(
            "{:.1} -> {:.1} cycles from depth {} to {}",
            a.1, b.1, a.0, b.0
        ),
        _ => "no data".into(),
    };
    let mut out = vec![Claim::judged(
        "a full walk's cost per sample grows linearly with the stack's depth (r^2 >= 0.99)",
        "other profilers \"walk the entire stack on every sample\" (Whaley, section 2.1.2)",
        format!(
            "{}; {:.2} cycles per frame, r^2 = {:.4}",
            range(&full),
            slope(&full),
            r * r
        ),
        full.len() > 2 && r * r >= 0.99 && slope(&full) > 0.0,
    )
    .unless_small(small, why)];
    for (key, paper) in [
        (
            "marked",
            "a walk stops at the first marked frame (Whaley, section 5.2)",
        ),
        (
            "incremental",
            "\"examines each stack frame only once\" (Hofer et al., section 1)",
        ),
    ] {
        let p = points(t, key);
        out.push(
            Claim::judged(
                format!(
                    "the {key} walk's cost per sample stays flat on a steady stack (within {:.0}% over the depths)",
                    100.0 * (FLAT - 1.0)
                ),
                paper,
                format!("{}; largest / smallest {:.3}", range(&p), spread(&p)),
                p.len() > 1 && spread(&p) <= FLAT,
            )
            .unless_small(small, why),
        );
    }
    let (f, m) = (full.last(), points(t, "marked").last().copied());
    let ratio = match (f, m) {
        (Some(f), Some(m)) if m.1 > 0.0 => f.1 / m.1,
        _ => f64::NAN,
    };
    out.push(
        Claim::judged(
            "on the deepest stack a marked walk costs under a tenth of a full walk",
            "marking frames is \"able to avoid walking the entire stack\" (Whaley, section 2.2)",
            format!(
                "full / marked = {ratio:.0} at depth {}",
                f.map_or(0.0, |f| f.0)
            ),
            ratio > 10.0,
        )
        .unless_small(small, why),
    );
    out
}

/// What the numbers say, computed from them.
fn discussion(depths: &[i64], costs: &[Vec<Cost>]) -> String {
    let last = depths.len() - 1;
    let per = |w: usize, d: usize| costs[w][d].per_sample(costs[w][d].walking);
    let frames = |w: usize, d: usize| costs[w][d].per_sample(costs[w][d].frames);
    format!(
        "**Full walks.** A counter sample records the call edge into the top frame and a \
         `self` of the caller (the method sample at a prologue), and a full walk looks up \
         each one's context from the entry frame: {:.1} frames walked per sample at stack \
         depth {}, {:.1} at {}, about two per frame of the stack. Its cycles per sample \
         grow by two frames' cost with every frame ({:.1} -> {:.1}).\n\n\
         **Marked walks.** On this steady stack a marked walk decodes the frames pushed since \
         the last sample and stops at the first marked one: {:.2} frames per sample at \
         depth {} and {:.2} at {} ({:.1} and {:.1} cycles); only the first sample walks the \
         whole stack, once per run. A stack that changes between samples costs a \
         marked walk the frames pushed since the last one, up to `--max-walk`: the bound is \
         the frames above the first marked frame, not the depth.\n\n\
         **Incremental walks.** An incremental walk decodes the top frame and patches its \
         return word with a trampoline; the leaf's return through it decodes its caller: \
         {:.2} frames and {:.1} cycles per sample at depth {}, {:.2} and {:.1} at {}. It is \
         flat too, and here dearer than the marked walk: each sample pays a trampoline \
         installed and taken. Hofer et al. argue for it on stacks that change between \
         samples, where it still decodes each frame once; this program's stack does not \
         change, so that case is not measured here.",
        frames(0, 0),
        depths[0] + EXTRA_FRAMES,
        frames(0, last),
        depths[last] + EXTRA_FRAMES,
        per(0, 0),
        per(0, last),
        frames(1, 0),
        depths[0] + EXTRA_FRAMES,
        frames(1, last),
        depths[last] + EXTRA_FRAMES,
        per(1, 0),
        per(1, last),
        frames(2, 0),
        per(2, 0),
        depths[0] + EXTRA_FRAMES,
        frames(2, last),
        per(2, last),
        depths[last] + EXTRA_FRAMES,
    )
}

/// Two panels, walk cycles per sample against stack depth: a linear axis
/// (the full walk's line) and a log axis (the flat walks, decades below).
fn draw(
    ctx: &Context,
    depths: &[i64],
    costs: &[Vec<Cost>],
) -> Result<Vec<std::path::PathBuf>, Error> {
    let series: Vec<plot::XySeries> = WALKS
        .iter()
        .zip(costs)
        .map(|(w, per)| plot::XySeries {
            name: w.1.into(),
            points: depths
                .iter()
                .zip(per)
                .map(|(d, c)| ((d + EXTRA_FRAMES) as f64, c.per_sample(c.walking)))
                .collect(),
            labels: Vec::new(),
            style: plot::Style::Line,
        })
        .collect();
    let panel = |title: &str, y: plot::Axis| {
        plot::Panel::Xy(plot::Xy {
            title: title.into(),
            x: plot::Axis::auto("stack depth (frames)"),
            y,
            series: series.clone(),
            pareto: false,
        })
    };
    plot::Figure {
        title: "Cost per sample against stack depth: full, marked and incremental walks".into(),
        panels: vec![
            panel("linear axis", plot::Axis::auto("walk cycles per sample")),
            panel("log axis", plot::Axis::log("walk cycles per sample (log)")),
        ],
        columns: 2,
    }
    .write(&ctx.out_file("svg"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full CSV of the given walk cycles per sample at stack depths 4,
    /// 53 and 203.
    fn csv(full: [f64; 3], marked: [f64; 3]) -> Table {
        let mut text = String::from("# settings: quick=false\n");
        text.push_str(&COLUMNS.join(","));
        text.push('\n');
        for (walk, v) in [("full", full), ("marked", marked), ("incremental", marked)] {
            for (d, c) in [1, 50, 200].iter().zip(v) {
                text.push_str(&format!("{walk},{d},{},1000,0,0,{c},0\n", d + 3));
            }
        }
        Table::parse(&text)
    }

    #[test]
    fn a_line_is_linear_and_a_flat_walk_is_flat() {
        let t = csv([60.0, 900.0, 3480.0], [13.3, 13.4, 13.5]);
        let c = claims(&t);
        assert!(c.iter().all(|c| c.holds()), "{c:?}");
        assert!((slope(&points(&t, "full")) - 17.1).abs() < 0.1);
    }

    #[test]
    fn a_walk_that_grows_is_not_flat_and_a_curve_is_not_a_line() {
        let t = csv([60.0, 70.0, 3480.0], [13.3, 30.0, 400.0]);
        let c = claims(&t);
        assert!(!c[0].holds(), "{:?}", c[0]);
        assert!(!c[1].holds() && !c[2].holds(), "{c:?}");
        assert!(!c[3].holds(), "{:?}", c[3]);
    }
}
