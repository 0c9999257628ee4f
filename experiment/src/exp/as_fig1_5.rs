//! `arnold-sweeney-fig1-5`: Arnold & Sweeney 2000, Figures 1-5.
//!
//! The paper (section 4) builds the approximate CCT (ACCT) of one program
//! with a global call counter as trigger and draws, for the 40 hottest
//! edges of the exhaustive CCT, each edge's weight in the CCT beside its
//! weight in the ACCT, both as a percentage of the hottest edge: sampling
//! every call (Figure 1, a perfect match), every 59th call with
//! increment-all-new-edges (Figure 2, no correlation) and with
//! increment-the-last-edge-only (Figure 3, close), every 307th and every
//! 1559th call with last-edge (Figures 4 and 5, degrading but acceptable).
//! This experiment builds the ACCT (`--record=acct`) of every Are We Fast
//! Yet benchmark under the same five settings (`--profile=counter
//! --every=N --acct-update=...`, seeds 1..runs: the seed draws the
//! counter's first countdown), scores each against the exhaustive CCT
//! (`--record=cct`) with `vm compare`'s cct-overlap, and draws the
//! paper's five panels for one benchmark.

use std::collections::HashMap;

use profile::{metrics, CctNode, Profile};

use crate::claims::Claim;
use crate::csv::{num, Csv};
use crate::exp::common;
use crate::runner::par_map;
use crate::suite::Program;
use crate::table::Table;
use crate::{markdown, plot, Context, Error};

/// One of the paper's figures: the counter's period and the strategy.
struct Setting {
    figure: u32,
    every: u64,
    strategy: &'static str,
    /// What the paper's text says of the figure.
    paper: &'static str,
}

const SETTINGS: [Setting; 5] = [
    Setting {
        figure: 1,
        every: 1,
        strategy: "last-edge",
        paper: "perfect correlation",
    },
    Setting {
        figure: 2,
        every: 59,
        strategy: "all-new-edges",
        paper: "no apparent correlation",
    },
    Setting {
        figure: 3,
        every: 59,
        strategy: "last-edge",
        paper: "much stronger; deviates a small amount",
    },
    Setting {
        figure: 4,
        every: 307,
        strategy: "last-edge",
        paper: "degrades",
    },
    Setting {
        figure: 5,
        every: 1559,
        strategy: "last-edge",
        paper: "degrades; still better than Figure 2",
    },
];

/// The edges each figure shows.
const TOP: usize = 40;

/// The benchmark whose five panels are drawn (the first program when it
/// is not run): JSON, a parser like the paper's javap, whose calls spread
/// over many contexts (DeltaBlue's two hottest edges dwarf the rest).
const DRAWN: &str = "json";

/// The full runs' benchmarks: the suite ([`crate::suite::AWFY`], at its
/// sizes, about 10^8 cycles) but Mandelbrot and Sieve, which make 9 and
/// 1,326 calls: too few for a call counter to sample every 59th call
/// (`--programs` adds them; their scores are then empty).
///
/// The suite's sizes suit the exact CCT: a tree's contexts are fixed by
/// the program's call paths, not by its iterations, and the largest of
/// these is 32,777 contexts (Towers, whose recursion makes a context per
/// path; List 5,703, the others at most 2,628).
const PROGRAMS: [&str; 11] = [
    "bounce",
    "cd",
    "deltablue",
    "json",
    "list",
    "nbody",
    "permute",
    "queens",
    "richards",
    "storage",
    "towers",
];

/// The programs: [`PROGRAMS`], `--quick`: [`crate::suite::AWFY_QUICK`]
/// at their default sizes.
fn programs(ctx: &Context) -> Result<Vec<Program>, Error> {
    ctx.programs(if ctx.opts.quick {
        crate::suite::AWFY_QUICK
    } else {
        &PROGRAMS
    })
}

/// The contexts of a CCT as paths interned to small numbers: a context is
/// its parent's path and its (method, line); the root is path 0.
#[derive(Default)]
pub struct Paths {
    ids: HashMap<(u32, String, Option<u32>), u32>,
}

impl Paths {
    /// The path id of every node of `nodes`, in order (the root: `None`),
    /// interning the paths not seen before.
    pub fn intern(&mut self, nodes: &[CctNode]) -> Vec<Option<u32>> {
        walk(nodes, |parent, n| {
            let next = self.ids.len() as u32 + 1;
            Some(
                *self
                    .ids
                    .entry((parent, n.method.to_string(), n.line))
                    .or_insert(next),
            )
        })
    }

    /// As [`Paths::intern`], but a path not seen before (and every path
    /// below it) is `None`.
    pub fn lookup(&self, nodes: &[CctNode]) -> Vec<Option<u32>> {
        walk(nodes, |parent, n| {
            self.ids
                .get(&(parent, n.method.to_string(), n.line))
                .copied()
        })
    }
}

/// The path of each node, parents listed before their children: `id_of`
/// gives a node's path from its parent's.
fn walk(
    nodes: &[CctNode],
    mut id_of: impl FnMut(u32, &CctNode) -> Option<u32>,
) -> Vec<Option<u32>> {
    let mut by_node: HashMap<u64, u32> = HashMap::new();
    let mut out = Vec::with_capacity(nodes.len());
    for n in nodes {
        let id = match n.parent {
            None => {
                by_node.insert(n.id, 0);
                out.push(None);
                continue;
            }
            Some(p) => by_node.get(&p).copied().and_then(|parent| id_of(parent, n)),
        };
        if let Some(id) = id {
            by_node.insert(n.id, id);
        }
        out.push(id);
    }
    out
}

/// The exact CCT of a program, ready to score sampled trees against.
struct Exact {
    profile: Profile,
    paths: Paths,
    /// The top edges: path id, caller -> callee label, calls.
    top: Vec<(u32, String, u64)>,
}

impl Exact {
    fn new(profile: Profile) -> Exact {
        let mut paths = Paths::default();
        let nodes = profile.cct.as_deref().unwrap_or_default();
        let ids = paths.intern(nodes);
        let method: HashMap<u64, &str> = nodes.iter().map(|n| (n.id, n.method.as_str())).collect();
        let mut calls: HashMap<u32, (String, u64)> = HashMap::new();
        for (n, id) in nodes.iter().zip(&ids) {
            // The root and the threads' entries (no call site) are no
            // sampled edges: an entry counts one call per thread.
            let (Some(id), Some(_)) = (id, n.line) else {
                continue;
            };
            let caller = n.parent.and_then(|p| method.get(&p)).unwrap_or(&"");
            let e = calls
                .entry(*id)
                .or_insert_with(|| (format!("{caller}->{}", n.method), 0));
            e.1 += n.calls;
        }
        let mut top: Vec<(u32, String, u64)> =
            calls.into_iter().map(|(id, (l, c))| (id, l, c)).collect();
        // Hottest first; ties by path id (the tree's order) so that the
        // figure is the same on every run.
        top.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        top.truncate(TOP);
        Exact {
            profile,
            paths,
            top,
        }
    }

    /// The contexts of the exact tree.
    fn contexts(&self) -> usize {
        self.profile.cct.as_ref().map_or(0, |c| c.len())
    }
}

/// One ACCT scored against the exact tree.
struct Scored {
    samples: u64,
    contexts: usize,
    overlap: f64,
    /// Per top edge: (exact, sampled) as % of each tree's hottest edge.
    bars: Vec<(f64, f64)>,
}

impl Scored {
    /// The mean distance, in percentage points, between the exact and the
    /// sampled bars.
    fn bar_error(&self) -> f64 {
        let d: Vec<f64> = self.bars.iter().map(|(e, s)| (e - s).abs()).collect();
        crate::stats::mean(&d)
    }
}

/// Scores the ACCT `p` against `exact`.
fn score(p: &Profile, exact: &Exact) -> Scored {
    let nodes = p.cct.as_deref().unwrap_or_default();
    let ids = exact.paths.lookup(nodes);
    let mut calls: HashMap<u32, u64> = HashMap::new();
    // The hottest edge: contexts the exact tree has (summed by path) and
    // those it has not (one node each); entries are no edges, as above.
    let mut unknown_max = 0;
    for (n, id) in nodes.iter().zip(&ids) {
        match (n.line, id) {
            (None, _) => {}
            (Some(_), Some(id)) => *calls.entry(*id).or_default() += n.calls,
            (Some(_), None) => unknown_max = unknown_max.max(n.calls),
        }
    }
    let max_exact = exact.top.first().map_or(0, |t| t.2);
    let max_sampled = calls.values().copied().max().unwrap_or(0).max(unknown_max);
    let pct = |v: u64, max: u64| {
        if max == 0 {
            f64::NAN
        } else {
            100.0 * v as f64 / max as f64
        }
    };
    let bars = exact
        .top
        .iter()
        .map(|(id, _, c)| {
            (
                pct(*c, max_exact),
                pct(calls.get(id).copied().unwrap_or(0), max_sampled),
            )
        })
        .collect();
    Scored {
        samples: p.run.samples,
        contexts: nodes.len(),
        overlap: metrics::cct_overlap(p, &exact.profile)
            .value()
            .unwrap_or(f64::NAN),
        bars,
    }
}

/// The CSV's columns: a row per exact tree, one per ACCT (its score), and
/// for seed 1 one per top edge (its two bars).
const COLUMNS: [&str; 13] = [
    "program",
    "figure",
    "every",
    "strategy",
    "seed",
    "samples",
    "contexts",
    "cct_overlap",
    "bar_error_pts",
    "rank",
    "edge",
    "exact_pct",
    "acct_pct",
];

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let runs = ctx.runs(1, 5);
    let programs = programs(ctx)?;
    let exact = common::exact_each(ctx, &programs, &["--record=cct"], "exact trees", |p, _| {
        Exact::new(p)
    })?;
    let mut csv = Csv::experiment(ctx, &format!(
                "runs={runs} record=acct trigger=--profile=counter --every=N; exact: --profile=exhaustive --record=cct; bars: % of each tree's hottest edge, top {TOP} exact edges"
            ),
        &COLUMNS,
    )?;
    for (p, e) in programs.iter().zip(&exact) {
        let mut row = vec![String::new(); COLUMNS.len()];
        row[0] = p.name.clone();
        row[1] = "exact".into();
        row[5] = e.profile.run.samples.to_string();
        row[6] = e.contexts().to_string();
        row[7] = num(100.0, 2);
        csv.row(&row)?;
    }
    let results = sample_trees(ctx, &programs, &exact, runs, &mut csv)?;
    let figures = draw(ctx, &programs, &exact, &results)?;
    let table = table(&programs, &exact, &results);
    Ok(markdown::Page {
        method: format!(
            "Arnold & Sweeney build an approximate calling context tree (ACCT) from call-stack \
             samples triggered by a global call counter, and compare it with the exhaustive CCT \
             of one program (javap, a Java parser): their Figures 1-5 draw the 40 hottest edges \
             of the CCT, each as a pair of bars (its weight in the CCT and in the ACCT, each a \
             percentage of that tree's hottest edge), for five settings. The experiment builds \
             the ACCT (`--record=acct`, `--profile=counter --every=N --acct-update=...`, seeds \
             1 to {runs}: the seed draws the counter's first countdown) of {} benchmarks and \
             scores each with `vm compare`'s cct-overlap against the exhaustive CCT \
             (`--profile=exhaustive --record=cct`); the figure is the paper's five panels for \
             {DRAWN}, a parser like javap (seed 1). Mandelbrot and Sieve are left out of the \
             default list: they make 9 and 1,326 calls, too few for a counter sampling every \
             59th call or more rarely.",
            programs.len()
        ),
        results: format!(
            "cct-overlap (0-100) of the ACCT with the exhaustive CCT, the mean over seeds \
             1..{runs}, per benchmark and setting. The paper measured one program and prints no \
             numbers; its row quotes what its text says of each figure. The bar error is the \
             mean distance, in points, between the exact and the sampled bar over the top \
             {TOP} edges.\n\n{table}"
        ),
        discussion: reading(&results),
        table,
        figures,
    })
}

/// The mean over programs (and seeds) of the overlap of figure `fig`.
fn mean_overlap(t: &Table, fig: &str) -> (f64, Vec<(String, f64)>) {
    let per: Vec<(String, f64)> = t
        .distinct("program")
        .into_iter()
        .map(|p| {
            let v: Vec<f64> = t
                .select(&[("program", &p), ("figure", fig), ("rank", "")])
                .iter()
                .map(|r| r.num("cct_overlap"))
                .filter(|v| v.is_finite())
                .collect();
            (p, crate::stats::mean(&v))
        })
        .filter(|x| x.1.is_finite())
        .collect();
    (
        crate::stats::mean(&per.iter().map(|x| x.1).collect::<Vec<_>>()),
        per,
    )
}

/// The paper's claims on Figures 1-5, over every benchmark.
pub fn claims(t: &Table) -> Vec<Claim> {
    let m: Vec<(f64, Vec<(String, f64)>)> =
        (1..=5).map(|f| mean_overlap(t, &f.to_string())).collect();
    let worse = m[1]
        .1
        .iter()
        .zip(&m[2].1)
        .filter(|(a, b)| a.1 < b.1)
        .count();
    let n = m[1].1.len();
    let small = t.quick();
    let why = "a --quick run of 3 small programs";
    vec![
        Claim::judged(
            "sampling every call, the ACCT is the CCT (cct-overlap 99.9 or more)",
            "Figure 1: perfect correlation",
            format!("{:.1}", m[0].0),
            m[0].0 >= 99.9,
        ),
        Claim::judged(
            "every 59th call, all-new-edges is far worse than last-edge (lower on every benchmark, by 20 points on average)",
            "Figure 2: no apparent correlation; Figure 3: much stronger",
            format!("{:.1} against {:.1}; lower on {worse} of {n}", m[1].0, m[2].0),
            worse == n && m[2].0 - m[1].0 >= 20.0,
        ),
        Claim::judged(
            "every 59th call, last-edge deviates a small amount (cct-overlap 90 or more)",
            "Figure 3: deviates only a small amount",
            format!("{:.1}", m[2].0),
            m[2].0 >= 90.0,
        )
        .unless_small(small, why),
        Claim::judged(
            "with last-edge the ACCT degrades as samples get rarer (59 > 307 > 1559)",
            "Figures 4 and 5: degrades",
            format!("{:.1} > {:.1} > {:.1}", m[2].0, m[3].0, m[4].0),
            m[2].0 > m[3].0 && m[3].0 > m[4].0,
        ),
        Claim::judged(
            "every 1559th call with last-edge still beats every 59th with all-new-edges",
            "Figure 5 acceptable against Figure 2",
            format!("{:.1} against {:.1}", m[4].0, m[1].0),
            m[4].0 > m[1].0,
        ),
    ]
}

/// `results[program][setting]`: one scored ACCT per seed.
type Results = Vec<Vec<Vec<Scored>>>;

/// Every ACCT: each program under each setting and seed, in parallel; a
/// CSV row each, and the bars of seed 1.
fn sample_trees(
    ctx: &Context,
    programs: &[Program],
    exact: &[Exact],
    runs: usize,
    csv: &mut Csv,
) -> Result<Results, Error> {
    let vm = ctx.vm();
    let mut jobs = Vec::new();
    for pi in 0..programs.len() {
        for si in 0..SETTINGS.len() {
            for seed in 1..=runs as u64 {
                jobs.push((pi, si, seed));
            }
        }
    }
    let mut results: Results = programs
        .iter()
        .map(|_| SETTINGS.iter().map(|_| Vec::new()).collect())
        .collect();
    let mut progress = crate::progress::Progress::new(ctx.exp.name, "ACCTs", jobs.len() as u64);
    par_map(
        ctx.opts.jobs,
        &jobs,
        |&(pi, si, seed)| {
            let s = &SETTINGS[si];
            let args = [
                "--profile=counter".to_string(),
                format!("--every={}", s.every),
                format!("--seed={seed}"),
                "--record=acct".into(),
                format!("--acct-update={}", s.strategy),
            ];
            let tag = format!("{}-{si}-{seed}", programs[pi].name);
            let (p, _) = vm.profile(&programs[pi], &args, &tag)?;
            Ok(score(&p, &exact[pi]))
        },
        |i, m| {
            let (pi, si, seed) = jobs[i];
            let s = &SETTINGS[si];
            let mut row = vec![String::new(); COLUMNS.len()];
            row[0] = programs[pi].name.clone();
            row[1] = s.figure.to_string();
            row[2] = s.every.to_string();
            row[3] = s.strategy.to_string();
            row[4] = seed.to_string();
            csv.row(&{
                let mut r = row.clone();
                r[5] = m.samples.to_string();
                r[6] = m.contexts.to_string();
                r[7] = num(m.overlap, 2);
                r[8] = num(m.bar_error(), 2);
                r
            })?;
            if seed == 1 {
                for (k, ((_, edge, _), (e, a))) in exact[pi].top.iter().zip(&m.bars).enumerate() {
                    let mut r = row.clone();
                    r[9] = (k + 1).to_string();
                    r[10] = edge.clone();
                    r[11] = num(*e, 3);
                    r[12] = num(*a, 3);
                    csv.row(&r)?;
                }
            }
            progress.step(&format!(
                "{} fig. {} seed {seed}",
                programs[pi].name, s.figure
            ));
            results[pi][si].push(m);
            Ok(())
        },
    )?;
    progress.finish();
    Ok(results)
}

/// The paper's five panels for one benchmark, seed 1, two to a row.
fn draw(
    ctx: &Context,
    programs: &[Program],
    exact: &[Exact],
    results: &Results,
) -> Result<Vec<std::path::PathBuf>, Error> {
    let pi = programs.iter().position(|p| p.name == DRAWN).unwrap_or(0);
    let n = exact[pi].top.len();
    let panels: Vec<plot::Panel> = SETTINGS
        .iter()
        .enumerate()
        .map(|(si, s)| {
            let m = &results[pi][si][0];
            let mut b = plot::Bars::new(
                format!(
                    "Fig. {}: every {} calls, {} (cct-overlap {:.1})",
                    s.figure, s.every, s.strategy, m.overlap
                ),
                plot::Axis::percent("% of the hottest edge"),
                (1..=n).map(|k| k.to_string()).collect(),
                &[
                    ("CCT (exact)".into(), m.bars.iter().map(|b| b.0).collect()),
                    ("ACCT".into(), m.bars.iter().map(|b| b.1).collect()),
                ],
            );
            b.x_title = "edge rank in the exact CCT".into();
            plot::Panel::Bars(b)
        })
        .collect();
    plot::Figure {
        title: format!(
            "Arnold & Sweeney 2000, Figures 1-5: {}'s top {n} CCT edges, exact against sampled",
            programs[pi].name
        ),
        panels,
        columns: 2,
    }
    .write(&ctx.out_file("svg"))
}

/// The mean of a measure over the seeds (`NaN`s left out).
fn mean_of(ms: &[Scored], f: impl Fn(&Scored) -> f64) -> f64 {
    let v: Vec<f64> = ms.iter().map(f).filter(|x| !x.is_nan()).collect();
    crate::stats::mean(&v)
}

/// Our table: cct-overlap per program and setting, the means, the bar
/// error, and the paper's row.
fn table(programs: &[Program], exact: &[Exact], results: &Results) -> String {
    let mut headers = vec!["program".to_string(), "exact contexts".to_string()];
    headers.extend(
        SETTINGS
            .iter()
            .map(|s| format!("Fig. {}: every {}, {}", s.figure, s.every, s.strategy)),
    );
    let mut rows = Vec::new();
    for (pi, p) in programs.iter().enumerate() {
        let mut row = vec![p.name.clone(), exact[pi].contexts().to_string()];
        row.extend((0..SETTINGS.len()).map(|si| num(mean_of(&results[pi][si], |m| m.overlap), 1)));
        rows.push(row);
    }
    let over_all = |si: usize, f: &dyn Fn(&Scored) -> f64| {
        let v: Vec<f64> = results.iter().map(|r| mean_of(&r[si], f)).collect();
        crate::stats::mean(&v)
    };
    let mut mean = vec!["mean cct-overlap".to_string(), String::new()];
    mean.extend((0..SETTINGS.len()).map(|si| num(over_all(si, &|m| m.overlap), 1)));
    rows.push(mean);
    let mut err = vec!["mean bar error (pts)".to_string(), String::new()];
    err.extend((0..SETTINGS.len()).map(|si| num(over_all(si, &|m| m.bar_error()), 1)));
    rows.push(err);
    let mut paper = vec!["paper (javap, text)".to_string(), String::new()];
    paper.extend(SETTINGS.iter().map(|s| s.paper.to_string()));
    rows.push(paper);
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    markdown::table(&headers, &rows)
}

/// The honest reading, from the numbers.
fn reading(results: &Results) -> String {
    let mean = |si: usize| {
        let v: Vec<f64> = results
            .iter()
            .map(|r| mean_of(&r[si], |m| m.overlap))
            .collect();
        crate::stats::mean(&v)
    };
    let worse = results
        .iter()
        .filter(|r| mean_of(&r[1], |m| m.overlap) < mean_of(&r[2], |m| m.overlap))
        .count();
    format!(
        "Sampling every call, the ACCT is the exact tree (mean cct-overlap {:.1}), as in Figure 1. \
         At every 59th call all-new-edges scores {:.1} on average against {:.1} for last-edge, \
         lower on {worse} of {} benchmarks: the paper's Figures 2 and 3. With last-edge the \
         overlap falls as samples get rarer ({:.1} at every 307th call, {:.1} at every 1559th), \
         the degradation of Figures 4 and 5.",
        mean(0),
        mean(1),
        mean(2),
        results.len(),
        mean(3),
        mean(4),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, parent: Option<u64>, method: &str, line: Option<u32>, calls: u64) -> CctNode {
        CctNode {
            id,
            parent,
            method: method.into(),
            line,
            calls,
            self_: 0,
            cycles: None,
        }
    }

    #[test]
    fn paths_name_contexts_by_their_call_path_whatever_the_node_ids() {
        let exact = [
            node(0, None, "<root>", None, 0),
            node(1, Some(0), "main", None, 1),
            node(2, Some(1), "a", Some(3), 10),
            node(3, Some(2), "b", Some(7), 100),
            node(4, Some(1), "b", Some(4), 5),
        ];
        let mut paths = Paths::default();
        let ids = paths.intern(&exact);
        assert_eq!(ids[0], None);
        assert_ne!(ids[3], ids[4], "b under a and b under main differ");
        // Another tree: other node ids, one context the exact tree lacks.
        let sampled = [
            node(9, None, "<root>", None, 0),
            node(7, Some(9), "main", None, 1),
            node(8, Some(7), "a", Some(3), 2),
            node(5, Some(8), "b", Some(7), 20),
            node(6, Some(8), "c", Some(9), 1),
        ];
        let found = paths.lookup(&sampled);
        assert_eq!(&found[1..4], &ids[1..4]);
        assert_eq!(found[4], None);
    }

    #[test]
    fn bars_are_shares_of_each_trees_hottest_edge_entries_left_out() {
        let tree = |a: u64, b: u64| Profile {
            format: profile::FORMAT.into(),
            program: "p".into(),
            config: Default::default(),
            run: Default::default(),
            methods: None,
            dcg: None,
            cct: Some(vec![
                node(0, None, "<root>", None, 0),
                node(1, Some(0), "main", None, 1000),
                node(2, Some(1), "a", Some(3), a),
                node(3, Some(2), "b", Some(7), b),
            ]),
            hot: None,
        };
        let exact = Exact::new(tree(10, 100));
        let labels: Vec<&str> = exact.top.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["a->b", "main->a"], "hottest first, no entry");
        let s = score(&tree(1, 20), &exact);
        assert_eq!(s.bars, vec![(100.0, 100.0), (10.0, 5.0)]);
        assert_eq!(s.bar_error(), 2.5);
        assert!(s.overlap > 90.0 && s.overlap < 100.0, "{}", s.overlap);
    }
}
