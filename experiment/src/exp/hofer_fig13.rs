//! `hofer-fig13`: Hofer, Gnedt and Mössenböck 2015, Figure 13 (section
//! 7.3, "Comparison between Sampling Techniques"): how close the
//! techniques' average calling context trees are to each other.
//!
//! The runs are those of `hofer-fig12` (every technique, every program,
//! `runs` times at 1 ms, seeds 1 to `runs`), made again; each
//! technique's average CCT is the mean of its runs' relative weights per
//! context ([`super::hofer_cct::average`]). Every pair of averages is
//! compared: cct-overlap (symmetric) and hot-edge coverage (T = 0.1) both
//! ways. The paper has no exact CCT to compare with; this VM has one
//! (`--profile=exhaustive --record=cct`, calls counted), so each average is
//! also compared with it, the caveat being that the exact tree weighs
//! contexts by calls and a sampler by time (docs/SAMPLERS.md). On the
//! simulated machine (the default) the exact trees are made on the same
//! cores as the sampled ones.

use profile::{metrics, Profile};

use crate::claims::Claim;
use crate::csv::num;
use crate::exp::hofer_cct;
use crate::exp::hofer_common::{self as common, ONE_MS, RUNNABLE, TECHNIQUES};
use crate::table::Table;
use crate::{markdown, plot, Context, Error};

/// The paper's statements (Figure 13 has no numbers in the text).
const PAPER: &str = "overlap > 70% for all benchmarks but kiama, scalac, scaladoc; SPS covers \
> 90% of JVMTI's hot edges on every benchmark; ISPS slightly lower (deep stacks truncated at 256 \
frames by the others)";

/// One comparison: profile, reference, overlap, coverage of the
/// reference's hot contexts by the profile.
struct Pair {
    profile: String,
    reference: String,
    overlap: f64,
    coverage: f64,
}

/// A technique's short name ("global", "partial", "SPS", "ISPS").
fn short(t: usize) -> &'static str {
    TECHNIQUES[t].label.split(' ').next().unwrap_or("")
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let runs = ctx.runs(2, 10);
    let (programs, mut csv) = common::start(
        ctx,
        &format!(
            "{}; coverage: of the reference's hot contexts (T = 0.1) by the profile",
            common::average_settings(ctx, runs)
        ),
        &[
            "program",
            "profile",
            "reference",
            "cct_overlap",
            "hot_edge_coverage",
        ],
    )?;
    let exact = exact_trees(ctx, &programs)?;
    let profiles = common::profiled_runs(ctx, &programs, ONE_MS, runs, |_, _, _, _| Ok(()))?;
    let runnable = if ctx.cores().simulated() {
        common::profiled_runs_of(ctx, &programs, &RUNNABLE, ONE_MS, runs, |_, _, _, _| Ok(()))?
    } else {
        Vec::new()
    };
    let mut pairs: Vec<Vec<Pair>> = Vec::new();
    for (pi, prog) in programs.iter().enumerate() {
        let avgs: Vec<Profile> = profiles[pi]
            .iter()
            .map(|r| hofer_cct::average(&r.iter().collect::<Vec<_>>()))
            .collect();
        let mut list = Vec::new();
        for a in 0..TECHNIQUES.len() {
            for b in 0..TECHNIQUES.len() {
                if a != b {
                    list.push(compare(
                        TECHNIQUES[a].key,
                        &avgs[a],
                        TECHNIQUES[b].key,
                        &avgs[b],
                    ));
                }
            }
            list.push(compare(TECHNIQUES[a].key, &avgs[a], "exact", &exact[pi]));
        }
        // The partial techniques sampling runnable threads only, against the
        // global safepoint and the exact tree.
        if let Some(per) = runnable.get(pi) {
            for (t, r) in RUNNABLE.iter().zip(per) {
                let avg = hofer_cct::average(&r.iter().collect::<Vec<_>>());
                list.push(compare(t.key, &avg, TECHNIQUES[0].key, &avgs[0]));
                list.push(compare(t.key, &avg, "exact", &exact[pi]));
            }
        }
        for p in &list {
            csv.row(&[
                prog.name.clone(),
                p.profile.clone(),
                p.reference.clone(),
                num(p.overlap, 3),
                num(p.coverage, 3),
            ])?;
        }
        pairs.push(list);
    }
    let figures = draw(ctx, &programs, &pairs)?;
    let table = table(&programs, &pairs);
    Ok(markdown::Page {
        method: format!(
            "The paper (section 7.3, \"Comparison between Sampling Techniques\") compares the \
             average CCTs of its techniques with each other: overlap and hot-edge coverage (T = \
             0.1). Here, at {ONE_MS}, on {}, the average CCT of {runs} run(s) per technique; \
             each pair: cct-overlap / hot-edge coverage of the first one's hot contexts by the \
             second; last columns: each average against the exact CCT (calls counted, where a \
             sampler weighs contexts by time). The paper has no exact CCT to compare with.",
            common::clock_name(ctx)
        ),
        results: format!(
            "{table}\nThe paper: {PAPER}.\n\n{}",
            runnable_table(&programs, &pairs)
        ),
        discussion: discussion(&programs, &pairs),
        table,
        figures,
    })
}

/// The partial techniques with `--runnable-only`: each against the global
/// safepoint and the exact tree (empty on real threads, where they are not
/// run).
fn runnable_table(programs: &[crate::suite::Program], pairs: &[Vec<Pair>]) -> String {
    let mut rows = Vec::new();
    for (pi, prog) in programs.iter().enumerate() {
        let mut row = vec![prog.name.clone()];
        for t in &RUNNABLE {
            for reference in [TECHNIQUES[0].key, "exact"] {
                match find(&pairs[pi], t.key, reference) {
                    Some(p) => row.push(format!("{:.1}", p.overlap)),
                    None => return String::new(),
                }
            }
        }
        rows.push(row);
    }
    let mut headers = vec!["program".to_string()];
    for t in &RUNNABLE {
        headers.push(format!("{} vs global", t.label));
        headers.push(format!("{} vs exact", t.label));
    }
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    format!(
        "The partial techniques again with `--runnable-only` (waiting threads never sampled), \
         cct-overlap of their average CCTs:\n\n{}",
        markdown::table(&h, &rows)
    )
}

/// Where the techniques part, from the numbers: the programs whose
/// partial techniques overlap the global safepoint by 70 or less, and
/// what sampling only runnable threads does there.
fn discussion(programs: &[crate::suite::Program], pairs: &[Vec<Pair>]) -> String {
    let mut out = Vec::new();
    for (pi, prog) in programs.iter().enumerate() {
        let list = &pairs[pi];
        let g = TECHNIQUES[0].key;
        let with_waiting: Vec<f64> = TECHNIQUES[1..]
            .iter()
            .filter_map(|t| find(list, g, t.key).map(|p| p.overlap))
            .collect();
        let low = with_waiting.iter().copied().fold(f64::INFINITY, f64::min);
        if low > 70.0 {
            continue;
        }
        let runnable: Vec<f64> = RUNNABLE
            .iter()
            .filter_map(|t| find(list, t.key, g).map(|p| p.overlap))
            .collect();
        let partial_exact = find(list, TECHNIQUES[1].key, "exact").map_or(f64::NAN, |p| p.overlap);
        let global_exact = find(list, g, "exact").map_or(f64::NAN, |p| p.overlap);
        let among: f64 = [(1, 2), (1, 3), (2, 3)]
            .iter()
            .filter_map(|&(a, b)| {
                find(list, TECHNIQUES[b].key, TECHNIQUES[a].key).map(|p| p.overlap)
            })
            .fold(f64::INFINITY, f64::min);
        let mut s = format!(
            "On {} the partial techniques' averages overlap the global safepoint's by as \
             little as {low:.1}, and the exact tree by {partial_exact:.1} (partial) against \
             {global_exact:.1} (global), while they agree with each other at {among:.1} or more: \
             how a stack is walked does not matter, which threads a tick samples does. By \
             default (the paper's section 3.1) a partial safepoint's samples are divided \
             between waiting and runnable threads.",
            prog.name
        );
        if !runnable.is_empty() {
            let lo = runnable.iter().copied().fold(f64::INFINITY, f64::min);
            let ex = RUNNABLE
                .iter()
                .filter_map(|t| find(list, t.key, "exact").map(|p| p.overlap))
                .fold(f64::INFINITY, f64::min);
            s.push_str(&format!(
                " With `--runnable-only` (waiting threads never sampled) the same techniques \
                 overlap the global safepoint by {lo:.1} or more and the exact tree by {ex:.1} \
                 or more (the table above). The paper's benchmarks have no thirty napping \
                 threads with 50-frame stacks beside two computing ones; `many-32-deep` is \
                 built to show this division."
            ));
        }
        out.push(s);
    }
    out.join("\n\n")
}

/// The row of `profile` against `reference` on `program`.
fn pair_of(t: &Table, program: &str, profile: &str, reference: &str) -> Option<(f64, f64)> {
    t.select(&[
        ("program", program),
        ("profile", profile),
        ("reference", reference),
    ])
    .first()
    .map(|r| (r.num("cct_overlap"), r.num("hot_edge_coverage")))
}

/// The agreement claim again with the partial techniques sampling
/// runnable threads only.
fn runnable_claim(t: &Table, programs: &[String]) -> Claim {
    let mut worst = f64::INFINITY;
    let mut seen = 0;
    for p in programs {
        for r in &RUNNABLE {
            if let Some((o, _)) = pair_of(t, p, r.key, TECHNIQUES[0].key) {
                worst = worst.min(o);
                seen += 1;
            }
        }
    }
    let c = Claim::judged(
        "sampling only runnable threads, the partial techniques overlap the global safepoint by more than 70 on every program",
        "(the paper samples waiting threads too)",
        format!("lowest {worst:.1}"),
        seen > 0 && worst > 70.0,
    );
    if seen == 0 {
        c.unjudged("not run on real threads")
    } else {
        c
    }
}

/// The paper's claims on the techniques' agreement.
pub fn claims(t: &Table) -> Vec<Claim> {
    let programs = t.distinct("program");
    let mut low = Vec::new();
    let mut worst = f64::INFINITY;
    let mut covered = Vec::new();
    for p in &programs {
        for &(a, b) in &technique_pairs() {
            if let Some((o, _)) = pair_of(t, p, TECHNIQUES[a].key, TECHNIQUES[b].key) {
                worst = worst.min(o);
                if o <= 70.0 && !low.contains(p) {
                    low.push(p.clone());
                }
            }
        }
        if let Some((_, c)) = pair_of(t, p, "self-full", "safepoint-full") {
            covered.push((p.clone(), c));
        }
    }
    let cover_ok = covered.iter().filter(|c| c.1 > 90.0).count();
    vec![
        Claim::judged(
            "the techniques' average CCTs overlap by more than 70 on every program",
            "above 70% on all but kiama, scalac, scaladoc (deep recursive parsers)",
            if low.is_empty() {
                format!("on all {} (lowest {worst:.1})", programs.len())
            } else {
                format!("not on {} (lowest {worst:.1})", low.join(", "))
            },
            low.is_empty() && !programs.is_empty(),
        )
        .gap(),
        runnable_claim(t, &programs),
        Claim::judged(
            "SPS covers more than 90% of the global safepoint's hot contexts, on every program",
            "over 90% coverage for all benchmarks",
            format!("on {cover_ok} of {}", covered.len()),
            cover_ok == covered.len() && !covered.is_empty(),
        ),
    ]
}

/// The exact CCT of every program, on the machine of `--cores`.
fn exact_trees(ctx: &Context, programs: &[crate::suite::Program]) -> Result<Vec<Profile>, Error> {
    let machine = ctx.cores().run_args();
    let mut extra = vec!["--record=cct"];
    extra.extend(machine.iter().map(String::as_str));
    crate::exp::common::exact_each(ctx, programs, &extra, "exact trees", |p, _| p)
}

/// `profile` against `reference`.
fn compare(pname: &str, profile: &Profile, rname: &str, reference: &Profile) -> Pair {
    let v = |m: metrics::Metric| m.value().unwrap_or(f64::NAN);
    Pair {
        profile: pname.into(),
        reference: rname.into(),
        overlap: v(metrics::cct_overlap(profile, reference)),
        coverage: v(metrics::hot_edge_coverage(profile, reference)),
    }
}

/// The comparison of `profile` against `reference` in `list`.
fn find<'a>(list: &'a [Pair], profile: &str, reference: &str) -> Option<&'a Pair> {
    list.iter()
        .find(|p| p.profile == profile && p.reference == reference)
}

/// The technique pairs `(a, b)`, `a` before `b`.
fn technique_pairs() -> Vec<(usize, usize)> {
    let n = TECHNIQUES.len();
    (0..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .collect()
}

/// One row per program: each pair's overlap / coverage, then each average
/// against the exact CCT; the paper's statement in the last column.
fn table(programs: &[crate::suite::Program], pairs: &[Vec<Pair>]) -> String {
    let pair_names: Vec<String> = technique_pairs()
        .iter()
        .map(|&(a, b)| format!("{}/{}", short(a), short(b)))
        .collect();
    let exact_names: Vec<String> = (0..TECHNIQUES.len())
        .map(|t| format!("{} vs exact", short(t)))
        .collect();
    let mut headers: Vec<&str> = vec!["program"];
    headers.extend(pair_names.iter().map(String::as_str));
    headers.extend(exact_names.iter().map(String::as_str));
    headers.push("paper (Figure 13)");
    let cell = |p: Option<&Pair>| match p {
        Some(p) => format!("{:.1} / {:.0}", p.overlap, p.coverage),
        None => String::new(),
    };
    let rows: Vec<Vec<String>> = programs
        .iter()
        .enumerate()
        .map(|(pi, prog)| {
            let list = &pairs[pi];
            let mut row = vec![prog.name.clone()];
            for &(a, b) in &technique_pairs() {
                row.push(cell(find(list, TECHNIQUES[b].key, TECHNIQUES[a].key)));
            }
            for t in &TECHNIQUES {
                row.push(cell(find(list, t.key, "exact")));
            }
            row.push(if pi == 0 { PAPER.into() } else { String::new() });
            row
        })
        .collect();
    markdown::table(&headers, &rows)
}

/// Three panels: the pairs' overlap, the pairs' coverage (of the first
/// one's hot contexts), each average's overlap with the exact CCT; one
/// value per program (an average of every run), so no whiskers.
fn draw(
    ctx: &Context,
    programs: &[crate::suite::Program],
    pairs: &[Vec<Pair>],
) -> Result<Vec<std::path::PathBuf>, Error> {
    let pair_series = |f: fn(&Pair) -> f64| -> Vec<plot::Series> {
        technique_pairs()
            .iter()
            .map(|&(a, b)| {
                let v = pairs
                    .iter()
                    .map(|list| {
                        find(list, TECHNIQUES[b].key, TECHNIQUES[a].key).map_or(f64::NAN, f)
                    })
                    .collect();
                (format!("{}/{}", short(a), short(b)), v)
            })
            .collect()
    };
    let exact_series: Vec<plot::Series> = (0..TECHNIQUES.len())
        .map(|t| {
            let v = pairs
                .iter()
                .map(|list| find(list, TECHNIQUES[t].key, "exact").map_or(f64::NAN, |p| p.overlap))
                .collect();
            (short(t).to_string(), v)
        })
        .collect();
    let runnable_series: Vec<plot::Series> = RUNNABLE
        .iter()
        .map(|t| {
            let v = pairs
                .iter()
                .map(|list| find(list, t.key, TECHNIQUES[0].key).map_or(f64::NAN, |p| p.overlap))
                .collect();
            (t.label.to_string(), v)
        })
        .collect();
    let panel = |title: &str, y: &str, series: Vec<plot::Series>| {
        let mut b = plot::Bars::new(
            title,
            plot::Axis::percent(y),
            common::names(programs),
            &series,
        );
        b.x_title = "program".into();
        plot::Panel::Bars(b)
    };
    plot::Figure {
        title: "Hofer et al. 2015, Figure 13: the techniques' average CCTs against each other"
            .into(),
        panels: vec![
            panel(
                "overlap of the average CCTs, pair by pair",
                "cct-overlap",
                pair_series(|p| p.overlap),
            ),
            panel(
                "hot-edge coverage (T = 0.1) of the first one's hot contexts",
                "hot-edge coverage %",
                pair_series(|p| p.coverage),
            ),
            panel(
                "each average CCT against the exact CCT (calls counted)",
                "cct-overlap",
                exact_series,
            ),
            panel(
                "sampling runnable threads only: against the global safepoint's",
                "cct-overlap",
                runnable_series,
            ),
        ],
        columns: 2,
    }
    .write(&ctx.out_file("svg"))
}
