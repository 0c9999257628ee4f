//! `hofer-fig12`: Hofer, Gnedt and Mössenböck 2015, Figure 12 (section
//! 7.3, "Stability Analysis"): how close each run's calling context tree
//! is to the average of all runs with the same technique.
//!
//! Every technique profiles every program `runs` times at 1 ms
//! (`--record=cct`, one process at a time, techniques interleaved). The
//! average CCT of a technique is built offline from its runs' profiles
//! ([`super::hofer_cct::average`]: the mean of the runs' relative weights
//! per context). Each run is then compared with its technique's average:
//! cct-overlap, and hot-edge coverage with the run as the profile and the
//! average as the reference (the share of the average's hot contexts, at
//! least a tenth of the hottest, that the run found; the paper's T = 0.1).
//! The figure shows the medians with the quartiles. On the simulated
//! machine (the default, [`crate::cores`]) the runs differ by their seeds
//! and are made in parallel; on real threads (`--cores=real`) by the
//! machine's timing too.

use profile::{metrics, Profile};

use crate::claims::Claim;
use crate::csv::num;
use crate::exp::hofer_cct;
use crate::exp::hofer_common::{self as common, mq_of, Profiles, ONE_MS, TECHNIQUES};
use crate::table::Table;
use crate::{markdown, plot, Context, Error};

/// The paper's statement (Figure 12 has no numbers in the text).
const PAPER: &str = "no numbers; the three techniques' stability very similar on every \
benchmark; overlap low only where many contexts are each under 0.05% of the time";

/// One run against its technique's average: (overlap, coverage).
type Stability = (f64, f64);

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let runs = ctx.runs(2, 10);
    let (programs, mut csv) = common::start(
        ctx,
        &common::average_settings(ctx, runs),
        &[
            "program",
            "technique",
            "run",
            "samples",
            "contexts",
            "cct_overlap",
            "hot_edge_coverage",
        ],
    )?;
    let profiles = common::profiled_runs(ctx, &programs, ONE_MS, runs, |_, _, _, _| Ok(()))?;
    let stability = against_average(&profiles);
    for (pi, prog) in programs.iter().enumerate() {
        for (t, tech) in TECHNIQUES.iter().enumerate() {
            for (run, p) in profiles[pi][t].iter().enumerate() {
                let (o, c) = stability[pi][t][run];
                csv.row(&[
                    prog.name.clone(),
                    tech.key.into(),
                    (run + 1).to_string(),
                    p.run.samples.to_string(),
                    p.cct
                        .as_ref()
                        .map_or(0, |c| c.len().saturating_sub(1))
                        .to_string(),
                    num(o, 3),
                    num(c, 3),
                ])?;
            }
        }
    }
    let figures = draw(ctx, &programs, &stability)?;
    let rows = common::technique_rows(&programs, &stability, PAPER, |s| {
        vec![mq_of(s, |x| x.0, false), mq_of(s, |x| x.1, false)]
    });
    let table = markdown::table(
        &[
            "program",
            "technique",
            "cct-overlap with the average",
            "hot-edge coverage of the average",
            "paper (Figure 12)",
        ],
        &rows,
    );
    Ok(markdown::Page {
        method: format!(
            "The paper (section 7.3, \"Stability Analysis\") compares each iteration's CCT with \
             the average CCT of its technique (the mean of the relative weights per context): \
             overlap and hot-edge coverage (T = 0.1). Here, at {ONE_MS}, on {}, {runs} run(s) \
             per technique (seeds 1 to {runs}): each run's CCT against its technique's average; \
             median, quartiles in brackets.",
            common::clock_name(ctx)
        ),
        results: table.clone(),
        discussion: "A technique that takes fewer samples per run (the partial safepoints take \
                     as many as cores per tick, the global one every thread) scatters more \
                     around its average."
            .into(),
        table,
        figures,
    })
}

/// The paper's claims on stability.
pub fn claims(t: &Table) -> Vec<Claim> {
    let mut spread = Vec::new();
    for p in t.distinct("program") {
        let medians: Vec<f64> = TECHNIQUES
            .iter()
            .map(|tech| {
                let v: Vec<f64> = t
                    .select(&[("program", &p), ("technique", tech.key)])
                    .iter()
                    .map(|r| r.num("cct_overlap"))
                    .collect();
                crate::stats::median(&v)
            })
            .collect();
        let hi = medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lo = medians.iter().copied().fold(f64::INFINITY, f64::min);
        spread.push((p, hi - lo));
    }
    let close = spread.iter().filter(|s| s.1 <= 10.0).count();
    let worst = spread.iter().fold(0f64, |a, s| a.max(s.1));
    vec![Claim::judged(
        "the techniques are about equally stable: their median overlaps with the average within 10 points, on every program",
        "\"the stability of all three sampling techniques is very similar\"",
        format!("on {close} of {} (widest gap {worst:.1} points)", spread.len()),
        close == spread.len() && !spread.is_empty(),
    )]
}

/// `[program][technique][run]`: each run against its technique's average.
fn against_average(profiles: &Profiles) -> Vec<Vec<Vec<Stability>>> {
    profiles
        .iter()
        .map(|per| {
            per.iter()
                .map(|runs| {
                    let refs: Vec<&Profile> = runs.iter().collect();
                    let avg = hofer_cct::average(&refs);
                    runs.iter()
                        .map(|p| {
                            let v = |m: metrics::Metric| m.value().unwrap_or(f64::NAN);
                            (
                                v(metrics::cct_overlap(p, &avg)),
                                v(metrics::hot_edge_coverage(p, &avg)),
                            )
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// Two panels, overlap and coverage: programs as groups, techniques as
/// bars (medians) with quartile whiskers where the runs differ.
fn draw(
    ctx: &Context,
    programs: &[crate::suite::Program],
    stability: &[Vec<Vec<Stability>>],
) -> Result<Vec<std::path::PathBuf>, Error> {
    let overlap = common::run_panel(
        programs,
        stability,
        (
            "overlap of each run's CCT with its technique's average",
            plot::Axis::percent("cct-overlap"),
        ),
        |s| s.0,
    );
    let coverage = common::run_panel(
        programs,
        stability,
        (
            "hot-edge coverage (T = 0.1) of the average's hot contexts",
            plot::Axis::percent("hot-edge coverage %"),
        ),
        |s| s.1,
    );
    plot::Figure {
        title: "Hofer et al. 2015, Figure 12: each run's CCT against its technique's average"
            .into(),
        panels: vec![plot::Panel::Bars(overlap), plot::Panel::Bars(coverage)],
        columns: 2,
    }
    .write(&ctx.out_file("svg"))
}
