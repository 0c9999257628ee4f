//! `vm experiment` (docs/EXPERIMENTS.md, docs/CLI.md): every experiment
//! runs with `--quick` into a scratch directory; its CSV has the documented
//! `#` header and columns, its SVG is well-formed XML with an `<svg>` root,
//! its Markdown sets our table beside the paper's; the deterministic ones
//! give the CSV an earlier run recorded (its fingerprint, beside the
//! committed results). Bad input: an unknown
//! name (status 2, the names listed), an output directory that cannot be
//! created and a missing program (66).

use std::path::Path;
use std::time::Duration;

use crate::harness::{run_vm_in, scratch, Run};

/// Every experiment `--list` must name: its CSV columns, and whether its
/// CSV is deterministic.
const EXPERIMENTS: &[(&str, &[&str], bool)] = &[
    (
        "arnold-grove-fig1",
        &[
            "program",
            "profile",
            "seed",
            "callee",
            "weight",
            "share_pct",
            "samples",
        ],
        true,
    ),
    (
        "arnold-grove-table2",
        &[
            "program",
            "samples",
            "stride",
            "seed",
            "dcg_overlap",
            "samples_taken",
            "exact_calls",
            "virtual_ms",
            "interval_ns",
            "profiler_cycles",
            "cycles",
            "dcg_samples",
            "independent_overlap",
        ],
        true,
    ),
    (
        "arnold-grove-table3",
        &["program", "measure", "profile", "run", "value"],
        true,
    ),
    (
        "arnold-grove-fig5",
        &[
            "program",
            "variant",
            "seed",
            "cycles",
            "speedup_vs_static_pct",
        ],
        true,
    ),
    (
        "arnold-sweeney-fig1-5",
        &[
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
        ],
        true,
    ),
    (
        "arnold-sweeney-fig6",
        &[
            "trigger",
            "strategy",
            "seed",
            "samples",
            "main_a",
            "a_b",
            "b_c",
            "a_b_share_pct",
            "cct_overlap",
        ],
        true,
    ),
    (
        "whaley-fig13",
        &[
            "program",
            "measure",
            "paper_interval",
            "our_interval",
            "run",
            "value",
        ],
        true,
    ),
    (
        "whaley-fig14",
        &[
            "program",
            "measure",
            "paper_interval",
            "our_interval",
            "buffer",
            "run",
            "value",
        ],
        true,
    ),
    (
        "sscli-table1",
        &[
            "program",
            "run",
            "interval_us",
            "samples",
            "changes",
            "calls_correlation_pct",
            "self_correlation_pct",
            "cct_overlap",
            "overhead_pct",
            "cycles_per_sample",
        ],
        true,
    ),
    // The hofer-* experiments run on the simulated machine by default:
    // deterministic.
    ("hofer-fig9", HOFER_FIG9_SIM, true),
    ("hofer-fig11", HOFER_FIG11_SIM, true),
    (
        "hofer-fig12",
        &[
            "program",
            "technique",
            "run",
            "samples",
            "contexts",
            "cct_overlap",
            "hot_edge_coverage",
        ],
        true,
    ),
    (
        "hofer-fig13",
        &[
            "program",
            "profile",
            "reference",
            "cct_overlap",
            "hot_edge_coverage",
        ],
        true,
    ),
    (
        "causality",
        &[
            "program",
            "method",
            "iterations",
            "profile",
            "base_share_pct",
            "share_pct",
            "rise_pts",
            "exact_rise_pts",
            "error_pts",
            "samples",
        ],
        true,
    ),
    (
        "record-sizes",
        &[
            "program",
            "record",
            "samples",
            "nodes",
            "bytes",
            "cct_overlap",
        ],
        true,
    ),
    (
        "hofer-latency",
        &[
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
        ],
        true,
    ),
    (
        "suite-characterisation",
        &[
            "program",
            "inner",
            "methods",
            "instructions",
            "calls",
            "edges",
            "top_edge_pct",
            "contexts",
            "max_depth",
            "mean_depth",
            "cycles",
            "calls_per_ms",
            "contexts_per_method",
            "timer_dcg_overlap",
            "cbs_dcg_overlap",
        ],
        true,
    ),
    (
        "run-length",
        &[
            "program",
            "iterations",
            "cycles",
            "calls",
            "profile",
            "seed",
            "samples",
            "dcg_overlap",
        ],
        true,
    ),
    (
        "stack-depth-cost",
        &[
            "walk",
            "depth",
            "stack_depth",
            "samples",
            "frames_walked",
            "walking_cycles",
            "walk_cycles_per_sample",
            "profiler_cycles_per_sample",
        ],
        true,
    ),
];

/// `hofer-fig9`'s columns on the simulated machine (the default).
const HOFER_FIG9_SIM: &[&str] = &[
    "program",
    "interval",
    "technique",
    "seed",
    "virtual_ns",
    "thread_cycles",
    "pause_cycles",
    "walk_cycles",
    "safepoints",
    "depth",
];

/// `hofer-fig11`'s columns on the simulated machine (the default).
const HOFER_FIG11_SIM: &[&str] = &[
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

/// `hofer-fig11`'s columns on real threads (`--cores=real`).
const HOFER_FIG11_REAL: &[&str] = &[
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

/// The simulated cores of the `hofer-*` experiments without `--cores`.
const HOFER_DEFAULT_CORES: usize = 4;

/// The sampling techniques of the `hofer-*` experiments, as their CSVs
/// name them.
const HOFER_TECHNIQUES: [&str; 4] = [
    "safepoint-full",
    "partial-full",
    "self-full",
    "self-incremental",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn experiment(args: &[&str]) -> Run {
    let mut all = vec!["experiment"];
    all.extend_from_slice(args);
    run_vm_in(root(), &all, Duration::from_secs(300))
}

/// The comment lines and the rows (header first) of a CSV file.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut comments = Vec::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        if let Some(c) = line.strip_prefix("# ") {
            assert!(
                rows.is_empty(),
                "a comment after the header in {}",
                path.display()
            );
            comments.push(c.to_string());
        } else {
            // The experiments write no quoted fields with commas in these columns.
            rows.push(line.split(',').map(str::to_string).collect());
        }
    }
    (comments, rows)
}

/// Parses `path` as XML to the end; returns the root element's name.
fn svg_root(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut root = None;
    let mut depth = 0i64;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(e)) => {
                if root.is_none() {
                    root = Some(String::from_utf8_lossy(e.name().as_ref()).into_owned());
                }
                depth += 1;
            }
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("{} is not well-formed XML: {e}", path.display()),
        }
        assert!(
            depth >= 0,
            "{}: more end tags than start tags",
            path.display()
        );
    }
    assert_eq!(depth, 0, "{}: unclosed elements", path.display());
    root.unwrap_or_default()
}

/// Runs `name --quick EXTRA` into `dir`, checks the three files; returns
/// the CSV's comment lines and rows (header first).
fn run_quick_with(
    name: &str,
    extra: &[&str],
    columns: &[&str],
    dir: &Path,
) -> (Vec<String>, Vec<Vec<String>>) {
    let out = dir.display().to_string();
    let mut args = vec![name, "--quick", "--out", &out];
    args.extend_from_slice(extra);
    let r = experiment(&args);
    r.assert_status(0);
    assert!(
        r.stdout.contains("| "),
        "{name}: no table printed:\n{}",
        r.stdout
    );
    let (comments, rows) = read_csv(&dir.join(format!("{name}.csv")));
    assert!(
        comments
            .iter()
            .any(|c| c.starts_with(&format!("vm experiment {name}: "))),
        "{name}: no experiment line in {comments:?}"
    );
    assert!(
        comments
            .iter()
            .any(|c| c.starts_with("machine: cores=") && c.contains(" cpu=")),
        "{name}: no machine line in {comments:?}"
    );
    assert_eq!(rows[0], columns, "{name}: CSV columns");
    assert!(rows.len() > 1, "{name}: no measurement rows");
    for row in &rows[1..] {
        assert_eq!(row.len(), columns.len(), "{name}: row {row:?}");
    }
    assert_eq!(
        svg_root(&dir.join(format!("{name}.svg"))),
        "svg",
        "{name}: SVG root"
    );
    let md = std::fs::read_to_string(dir.join(format!("{name}.md"))).unwrap();
    assert!(
        md.contains("paper"),
        "{name}: the Markdown has no paper column:\n{md}"
    );
    assert!(
        !dir.join(format!(".{name}.work")).exists(),
        "{name}: the scratch directory was left behind"
    );
    (comments, rows)
}

#[test]
fn list_names_every_experiment_and_nothing_else() {
    let r = experiment(&["--list"]);
    r.assert_status(0);
    let names: Vec<&str> = r
        .stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    let want: Vec<&str> = EXPERIMENTS.iter().map(|e| e.0).collect();
    assert_eq!(names, want);
}

#[test]
fn every_experiment_runs_quick_and_the_deterministic_ones_repeat_exactly() {
    let mut figures = Vec::new();
    let mut fingerprints = Vec::new();
    for &(name, columns, deterministic) in EXPERIMENTS {
        let dir = scratch(&format!("experiment-{name}"));
        let (comments, rows) = run_quick_with(name, &[], columns, &dir);
        figures.extend(crate::figures::svgs_in(&dir));
        let csv = std::fs::read_to_string(dir.join(format!("{name}.csv"))).unwrap();
        fingerprints.push((name.to_string(), fingerprint(&csv)));
        if name.starts_with("hofer-") {
            let want = format!(
                "quick=true mode=simulated cores={HOFER_DEFAULT_CORES} quantum=100000 clock=virtual"
            );
            assert!(settings(&comments).starts_with(&want), "{comments:?}");
        }
        match name {
            "arnold-grove-fig1" => check_fig1(&rows),
            "arnold-grove-table2" => check_table2(&rows),
            "arnold-grove-table3" => check_table3(&rows),
            "arnold-grove-fig5" => check_fig5(&rows),
            "arnold-sweeney-fig6" => check_as_fig6(&rows),
            "causality" => check_causality(&rows),
            "whaley-fig13" => check_whaley_fig13(&rows),
            "whaley-fig14" => check_whaley_fig14(&rows),
            "hofer-fig9" => check_hofer_fig9(&rows),
            "hofer-fig11" => check_hofer_fig11_sim(&rows, HOFER_DEFAULT_CORES),
            "hofer-fig12" => check_hofer_fig12(&rows),
            "hofer-fig13" => check_hofer_fig13(&rows),
            "arnold-sweeney-fig1-5" => check_as_fig1_5(&rows),
            "sscli-table1" => check_sscli_table1(&rows),
            "record-sizes" => check_record_sizes(&rows),
            "hofer-latency" => check_hofer_latency(&rows),
            "suite-characterisation" => check_suite(&rows),
            "run-length" => check_run_length(&rows),
            "stack-depth-cost" => check_stack_depth_cost(&rows),
            _ => {}
        }
        // A deterministic CSV has nothing the fingerprint leaves out but
        // the machine's line, so that its fingerprint being the one
        // recorded by an earlier run (check_fingerprints below) says that
        // it repeats exactly: one run, not two.
        if deterministic {
            let unfingerprinted: Vec<&str> = csv
                .lines()
                .filter(|l| !l.starts_with("# machine:") && left_out_of_fingerprint(l))
                .collect();
            assert!(
                unfingerprinted.is_empty(),
                "{name}: a deterministic CSV with wall-clock fields: {unfingerprinted:?}"
            );
        }
    }
    // Every figure of every quick run passes the rendered check.
    crate::figures::assert_pass("quick", &figures);
    check_fingerprints(&fingerprints);
}

/// Where the fingerprints of the quick runs that go with the committed
/// full results are kept.
const FINGERPRINTS: &str = "docs/experiments/quick-fingerprints.txt";

/// The fingerprint of a quick run's CSV: FNV-1a (64 bits) of its lines but
/// the machine's and those of wall-clock measures (any field starting with
/// `wall`), which differ from run to run.
fn fingerprint(csv: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for line in csv.lines() {
        if line.starts_with("# machine:") || left_out_of_fingerprint(line) {
            continue;
        }
        for b in line.bytes().chain([b'\n']) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// A line of a wall-clock measure (a field starting with `wall`), which
/// differs from run to run.
fn left_out_of_fingerprint(line: &str) -> bool {
    line.split(',').any(|f| f.starts_with("wall"))
}

/// The committed full results were made by the code that makes these
/// quick runs: each experiment's quick CSV has the fingerprint recorded
/// beside its full results when they were made (docs/EXPERIMENTS.md, "How
/// the results are kept current"). `UPDATE_FINGERPRINTS=NAME,...` (or
/// `all`) records the current ones instead, as experiment/regenerate.sh
/// does for the experiments it reran.
fn check_fingerprints(got: &[(String, String)]) {
    let path = root().join(FINGERPRINTS);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let mut recorded: std::collections::BTreeMap<String, String> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            l.split_once(' ')
                .map(|(n, f)| (n.to_string(), f.trim().to_string()))
        })
        .collect();
    if let Ok(update) = std::env::var("UPDATE_FINGERPRINTS") {
        let names: Vec<&str> = update.split(',').collect();
        for (name, f) in got {
            if names.contains(&"all") || names.contains(&name.as_str()) {
                recorded.insert(name.clone(), f.clone());
            }
        }
        let mut out = String::from(
            "# The fingerprint of each experiment's --quick CSV, made by the code that made the\n\
             # committed full results beside it (experiment/regenerate.sh writes it).\n",
        );
        for (n, f) in &recorded {
            out.push_str(&format!("{n} {f}\n"));
        }
        std::fs::write(&path, out).unwrap();
        return;
    }
    let stale: Vec<String> = got
        .iter()
        .filter(|(n, f)| recorded.get(n) != Some(f))
        .map(|(n, f)| {
            format!(
                "{n} (quick run {f}, recorded {})",
                recorded.get(n).map_or("none", |s| s.as_str())
            )
        })
        .collect();
    assert!(
        stale.is_empty(),
        "the committed results of these experiments were made by other code than this: \
         rerun experiment/regenerate.sh NAME for each:\n{}",
        stale.join("\n")
    );
}

/// The suite's traits: the quick programs at their default sizes, each
/// with calls, contexts at least as many as its call edges (every edge
/// enters a context of its own), a deepest context no shallower than the
/// mean call, calls per ms that are calls over cycles, and overlaps in
/// 0..=100.
fn check_suite(rows: &[Vec<String>]) {
    let names: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["deltablue", "richards", "towers"]);
    let n = |r: &Vec<String>, c: usize| -> f64 { r[c].parse().unwrap() };
    for r in &rows[1..] {
        assert_eq!(r[1], "default", "{r:?}");
        let (methods, calls, edges, contexts) = (n(r, 2), n(r, 4), n(r, 5), n(r, 7));
        assert!(methods > 1.0 && calls > 0.0 && edges > 0.0, "{r:?}");
        assert!(contexts >= edges, "fewer contexts than edges: {r:?}");
        assert!(n(r, 8) >= n(r, 9) && n(r, 9) >= 1.0, "depths: {r:?}");
        let per_ms = calls * 1e6 / n(r, 10);
        assert!((n(r, 11) - per_ms).abs() < 0.1, "calls per ms: {r:?}");
        for c in [13, 14] {
            assert!((0.0..=100.0).contains(&n(r, c)), "{r:?}");
        }
    }
    // Towers recurses through two call sites: a context per call.
    let towers = &rows[3];
    assert!(n(towers, 7) > 1000.0 * n(towers, 2), "{towers:?}");
}

/// The quick run: three programs at 1 and 4 repetitions; four times the
/// repetitions is four times the cycles and the calls, more samples, and cbs
/// takes more samples than the timer; overlaps in 0..=100.
fn check_run_length(rows: &[Vec<String>]) {
    let f = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap() };
    let get = |p: &str, k: &str, profile: &str| {
        rows[1..]
            .iter()
            .find(|r| r[0] == p && r[1] == k && r[4] == profile)
            .unwrap_or_else(|| panic!("no {p} x{k} {profile} row"))
    };
    for p in ["deltablue", "richards", "towers"] {
        let (one, four) = (get(p, "1", "timer"), get(p, "4", "timer"));
        let ratio = f(four, 2) / f(one, 2);
        assert!((3.9..=4.01).contains(&ratio), "{p}: cycles x{ratio}");
        for profile in ["timer", "cbs"] {
            let (a, b) = (get(p, "1", profile), get(p, "4", profile));
            assert!(f(b, 6) > f(a, 6), "{p} {profile}: samples {a:?} {b:?}");
        }
        assert!(f(get(p, "4", "cbs"), 6) > f(get(p, "4", "timer"), 6), "{p}");
        let calls = f(four, 3) / f(one, 3);
        assert!((3.99..=4.01).contains(&calls), "{p}: calls x{calls}");
    }
    for r in &rows[1..] {
        assert!((0.0..=100.0).contains(&f(r, 7)), "{r:?}");
    }
}

/// The quick run: three walks at depths 1, 10 and 50; the stack is the
/// recursion plus three frames; a full walk reads at least the stack per
/// sample, a marked one about a frame; the cycles per sample are the
/// walking cycles over the samples.
fn check_stack_depth_cost(rows: &[Vec<String>]) {
    let f = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap() };
    assert_eq!(rows.len(), 1 + 9, "{rows:?}");
    for r in &rows[1..] {
        assert_eq!(f(r, 2), f(r, 1) + 3.0, "{r:?}");
        assert!(f(r, 3) > 100.0, "{r:?}");
        let per = f(r, 5) / f(r, 3);
        assert!((f(r, 6) - per).abs() < 0.01, "{r:?}");
        let frames = f(r, 4) / f(r, 3);
        match r[0].as_str() {
            "full" => assert!(frames >= f(r, 2), "{r:?}"),
            "marked" => assert!(frames < 2.0, "{r:?}"),
            "incremental" => assert!(frames < 4.0, "{r:?}"),
            w => panic!("unknown walk {w}"),
        }
    }
    let at = |w: &str, d: &str| {
        let r = rows[1..].iter().find(|r| r[0] == w && r[1] == d).unwrap();
        f(r, 6)
    };
    assert!(at("full", "50") > 10.0 * at("marked", "50"));
    assert!(at("full", "50") > 5.0 * at("full", "1"));
}

/// Figure 1's point: exact 50/50; the timer sees call_1 hot.
fn check_fig1(rows: &[Vec<String>]) {
    let share = |profile: &str, callee: &str| -> f64 {
        let r = rows
            .iter()
            .find(|r| r[1] == profile && r[3] == callee)
            .unwrap_or_else(|| panic!("no {profile} {callee} row"));
        r[5].parse().unwrap()
    };
    assert_eq!(share("exact", "call_1"), 50.0);
    assert_eq!(share("exact", "call_2"), 50.0);
    assert!(share("timer", "call_1") > share("timer", "call_2") + 20.0);
    assert!((share("cbs", "call_1") - 50.0).abs() < 10.0);
}

/// The quick grid: 3 x 3 cells per program at the 1 ms tick, and four
/// cells again at two other ticks; overlaps in 0..=100, more samples per
/// tick never fewer samples taken.
fn check_table2(rows: &[Vec<String>]) {
    let data: Vec<&Vec<String>> = rows[1..].iter().filter(|r| r[8] == "1000000").collect();
    let programs: std::collections::BTreeSet<&str> = data.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(data.len(), 9 * programs.len(), "a 3 x 3 grid per program");
    let moved = rows[1..].len() - data.len();
    assert_eq!(
        moved,
        8 * programs.len(),
        "4 cells at 2 other ticks per program"
    );
    for r in &rows[1..] {
        let overlap: f64 = r[4].parse().unwrap();
        assert!((0.0..=100.0).contains(&overlap), "{r:?}");
        assert!(r[6].parse::<u64>().unwrap() > 0, "no exact calls: {r:?}");
    }
    for p in &programs {
        let taken = |samples: &str, stride: &str| -> u64 {
            data.iter()
                .find(|r| r[0] == *p && r[1] == samples && r[2] == stride)
                .unwrap_or_else(|| panic!("no cell {samples}/{stride} for {p}"))[5]
                .parse()
                .unwrap()
        };
        assert!(taken("16", "1") >= taken("1", "1"), "{p}");
        assert!(taken("256", "1") >= taken("16", "1"), "{p}");
        // The profiler's work in the cost model: every cell charged some,
        // and more samples per tick charge more.
        let cost = |samples: &str, stride: &str| -> f64 {
            let r = data
                .iter()
                .find(|r| r[0] == *p && r[1] == samples && r[2] == stride)
                .unwrap();
            r[9].parse::<f64>().unwrap() / r[10].parse::<f64>().unwrap()
        };
        assert!(cost("1", "1") > 0.0, "{p}: no profiler cycles");
        assert!(cost("256", "1") > cost("1", "1"), "{p}");
    }
}

/// Accuracy and wall time of every profile, times of `none` too.
fn check_table3(rows: &[Vec<String>]) {
    let cost = |profile: &str| -> f64 {
        let v: Vec<f64> = rows
            .iter()
            .filter(|r| r[1] == "overhead_pct" && r[2] == profile)
            .map(|r| r[4].parse().unwrap())
            .collect();
        assert!(!v.is_empty(), "no overhead of {profile}");
        v.iter().sum::<f64>() / v.len() as f64
    };
    for profile in ["timer", "cbs 3/16", "cbs 7/16"] {
        assert!(
            rows.iter()
                .any(|r| r[1] == "dcg_overlap" && r[2] == profile),
            "no accuracy of {profile}"
        );
        assert!(cost(profile) > 0.0, "{profile} charged nothing");
    }
    // Sixteen samples a tick cost more than the timer's one, in the model.
    assert!(cost("cbs 3/16") > cost("timer"));
    assert!(
        !rows.iter().any(|r| r[1] == "wall_s"),
        "wall-clock timing without --clock=wall"
    );
}

/// `--clock=wall`: arnold-grove-table3 times whole processes on the wall
/// clock (rows `wall_s`, `none` included) instead of the cost model.
#[test]
fn clock_wall_times_table3_on_the_wall_clock() {
    let dir = scratch("experiment-table3-wall");
    let (comments, rows) = run_quick_with(
        "arnold-grove-table3",
        &["--clock=wall", "--runs=1"],
        &["program", "measure", "profile", "run", "value"],
        &dir,
    );
    assert!(settings(&comments).contains("clock=wall"), "{comments:?}");
    for profile in ["none", "timer", "cbs 3/16", "cbs 7/16"] {
        assert!(
            rows.iter().any(|r| r[1] == "wall_s" && r[2] == profile),
            "no time of {profile}"
        );
    }
    for r in rows[1..].iter().filter(|r| r[1] == "wall_s") {
        assert!(r[4].parse::<f64>().unwrap() > 0.0, "{r:?}");
    }
    assert!(!rows.iter().any(|r| r[1] == "overhead_pct"));
}

/// `--clock=wall`: whaley-fig13 and whaley-fig14 time whole processes on
/// the wall clock instead of the cost model, and say so in their settings.
/// A check of an experiment's CSV rows.
type RowsCheck = fn(&[Vec<String>]);

#[test]
fn clock_wall_times_whaley_on_the_wall_clock() {
    let wall: [(&str, RowsCheck); 2] = [
        ("whaley-fig13", check_whaley_fig13_wall),
        ("whaley-fig14", check_whaley_fig14_wall),
    ];
    for (name, check) in wall {
        let columns = EXPERIMENTS.iter().find(|e| e.0 == name).unwrap().1;
        let dir = scratch(&format!("experiment-{name}-wall"));
        let (comments, rows) = run_quick_with(name, &["--clock=wall", "--runs=2"], columns, &dir);
        assert!(
            settings(&comments).contains("overhead: clock=wall"),
            "{comments:?}"
        );
        check(&rows);
        let md = std::fs::read_to_string(dir.join(format!("{name}.md"))).unwrap();
        assert!(
            md.contains("`--clock=wall`"),
            "{name}: the page names its clock"
        );
    }
}

/// Every variant counted; speedups only for the profiled ones, and they
/// agree with the cycle counts.
fn check_fig5(rows: &[Vec<String>]) {
    for r in &rows[1..] {
        let cycles: f64 = r[3].parse().unwrap();
        assert!(cycles > 0.0, "{r:?}");
        let stat: f64 = rows
            .iter()
            .find(|s| s[0] == r[0] && s[1] == "static")
            .expect("a static row")[3]
            .parse()
            .unwrap();
        match r[1].as_str() {
            "original" | "static" => assert_eq!(r[4], "", "{r:?}"),
            _ => {
                let speedup: f64 = r[4].parse().unwrap();
                assert!(
                    (speedup - 100.0 * (stat / cycles - 1.0)).abs() < 0.01,
                    "{r:?}"
                );
            }
        }
    }
    for v in ["original", "static", "timer", "cbs", "exhaustive"] {
        assert!(rows.iter().any(|r| r[1] == v), "no {v} row");
    }
}

/// Figure 6's point: the exact tree has b->c 100 times a->b; sampling
/// every 100th call, all-new-edges gives the two edges about the same
/// weight and last-edge keeps the ratio; every trigger has both
/// strategies for every seed.
fn check_as_fig6(rows: &[Vec<String>]) {
    let num = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap() };
    let exact = rows.iter().find(|r| r[0] == "exact").expect("an exact row");
    assert_eq!(
        (num(exact, 4), num(exact, 5), num(exact, 6)),
        (100.0, 1000.0, 100000.0)
    );
    assert_eq!(num(exact, 8), 100.0);
    let at = |strategy: &str| -> Vec<&Vec<String>> {
        rows.iter()
            .filter(|r| r[0] == "every 100" && r[1] == strategy)
            .collect()
    };
    let (last, all) = (at("last-edge"), at("all-new-edges"));
    assert!(
        !last.is_empty() && last.len() == all.len(),
        "every 100 rows"
    );
    for r in &all {
        let (ab, bc) = (num(r, 5), num(r, 6));
        assert!(
            ab > 0.0 && (bc / ab - 1.0).abs() < 0.1,
            "all-new-edges: {r:?}"
        );
        assert!(num(r, 8) < 60.0, "all-new-edges overlap: {r:?}");
    }
    for r in &last {
        let (ab, bc) = (num(r, 5), num(r, 6));
        assert!(
            ab > 0.0 && (bc / ab - 100.0).abs() < 20.0,
            "last-edge: {r:?}"
        );
        assert!(num(r, 8) > 95.0, "last-edge overlap: {r:?}");
    }
    for t in ["every 10", "every 1009", "timer 100us", "cbs 100us"] {
        for s in ["last-edge", "all-new-edges"] {
            assert_eq!(
                rows.iter().filter(|r| r[0] == t && r[1] == s).count(),
                last.len(),
                "rows of {t} {s}"
            );
        }
    }
}

/// The exact profile's own error is 0 and its share rises (the added loop
/// runs in the method); every profile has a row per method.
fn check_causality(rows: &[Vec<String>]) {
    let exact: Vec<&Vec<String>> = rows.iter().filter(|r| r[3] == "exact").collect();
    assert!(!exact.is_empty(), "no exact rows");
    for r in &exact {
        assert_eq!(r[8].parse::<f64>().unwrap(), 0.0, "{r:?}");
        assert!(
            r[6].parse::<f64>().unwrap() > 0.0,
            "the exact share did not rise: {r:?}"
        );
    }
    for p in ["timer 1ms", "cbs 3/16", "counter 101"] {
        assert_eq!(
            rows.iter().filter(|r| r[3] == p).count(),
            exact.len(),
            "rows of {p}"
        );
    }
    // The exact share is of time: the added loop's cycles, not its
    // instructions, so the exact rise is not the instruction rise. Every
    // sampled row says how many samples its method had.
    for r in rows[1..].iter().filter(|r| r[3] != "exact") {
        assert!(r[9].parse::<u64>().is_ok(), "{r:?}");
    }
}

/// Figures 1-5: sampling every call reproduces the exact tree, bar for
/// bar; at every 59th call all-new-edges scores below last-edge on every
/// benchmark with at least 10 calls per context; the top edges are the
/// exact tree's hottest, in order.
fn check_as_fig1_5(rows: &[Vec<String>]) {
    let f = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap_or(f64::NAN) };
    let programs: Vec<&str> = rows[1..]
        .iter()
        .filter(|r| r[1] == "exact")
        .map(|r| r[0].as_str())
        .collect();
    assert!(!programs.is_empty(), "no exact rows");
    let scores = |p: &str, fig: &str| -> Vec<f64> {
        rows.iter()
            .filter(|r| r[0] == p && r[1] == fig && r[9].is_empty())
            .map(|r| f(r, 7))
            .collect()
    };
    for p in &programs {
        let exact = rows.iter().find(|r| r[0] == *p && r[1] == "exact").unwrap();
        assert!(f(exact, 6) > 1.0 && f(exact, 5) > 0.0, "{exact:?}");
        for fig in ["1", "2", "3", "4", "5"] {
            let s = scores(p, fig);
            assert!(!s.is_empty(), "{p}: no figure {fig} rows");
            for v in &s {
                assert!((0.0..=100.0).contains(v), "{p} figure {fig}: {v}");
            }
        }
        assert!(
            scores(p, "1").iter().all(|&v| v == 100.0),
            "{p}: every call is not exact"
        );
        // The paper's claim needs contexts that are called again: with
        // about one call per context (Towers at its quick size: 32,802
        // calls, 32,777 contexts) every sample finds new frames, and
        // all-new-edges may score higher.
        let mean = |v: Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
        let (all, last) = (mean(scores(p, "2")), mean(scores(p, "3")));
        if f(exact, 5) >= 10.0 * f(exact, 6) {
            assert!(
                all < last,
                "{p}: all-new-edges {all} not below last-edge {last}"
            );
        }
        // The bars: ranks 1.., the exact ones descending from 100; with
        // every call sampled the ACCT's bars are the exact ones.
        for fig in ["1", "2", "3", "4", "5"] {
            let bars: Vec<&Vec<String>> = rows
                .iter()
                .filter(|r| r[0] == *p && r[1] == fig && !r[9].is_empty())
                .collect();
            assert!(!bars.is_empty() && bars.len() <= 40, "{p} figure {fig}");
            assert_eq!(f(bars[0], 11), 100.0, "{p} figure {fig}");
            for (k, b) in bars.iter().enumerate() {
                assert_eq!(b[9], (k + 1).to_string(), "{b:?}");
                assert!(b[10].contains("->"), "{b:?}");
                if fig == "1" {
                    assert!((f(b, 11) - f(b, 12)).abs() < 1e-3, "{b:?}");
                }
            }
            for w in bars.windows(2) {
                assert!(f(w[0], 11) >= f(w[1], 11), "{p} figure {fig}: {w:?}");
            }
        }
    }
}

/// Table 1 and the tuned interval: each tuned run's trajectory starts at
/// the initial interval, steps by doubling or halving (or to a bound) at
/// multiples of 1000 samples, and ends at the final interval, which is also run fixed;
/// scores are in range; a shorter fixed interval takes more samples.
fn check_sscli_table1(rows: &[Vec<String>]) {
    let f = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap_or(f64::NAN) };
    let tuned: Vec<&Vec<String>> = rows.iter().filter(|r| r[1] == "tuned").collect();
    assert!(!tuned.is_empty(), "no tuned rows");
    for t in &tuned {
        let p = &t[0];
        let steps: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| &r[0] == p && r[1] == "step")
            .collect();
        assert_eq!(steps.len() as f64, f(t, 4) + 1.0, "{p}: steps");
        assert_eq!((f(steps[0], 3), f(steps[0], 2)), (0.0, 100.0), "{p}");
        for w in steps.windows(2) {
            let (a, b) = (w[0], w[1]);
            assert!(f(b, 3) > f(a, 3) && f(b, 3) % 1000.0 == 0.0, "{p}: {w:?}");
            // A halving or doubling, or a step cut at the timer's bounds
            // (10 us, 1 s).
            let ratio = f(b, 2) / f(a, 2);
            let at_bound = f(b, 2) == 10.0 || f(b, 2) == 1e6;
            assert!(ratio == 2.0 || ratio == 0.5 || at_bound, "{p}: {w:?}");
        }
        assert_eq!(f(steps.last().unwrap(), 2), f(t, 2), "{p}: final interval");
        let fixed: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| &r[0] == p && r[1] == "fixed")
            .collect();
        assert!(
            fixed.iter().any(|r| (f(r, 2) - f(t, 2)).abs() < 0.5),
            "{p}: the tuned interval was not run fixed"
        );
        let at = |us: f64, i: usize| f(fixed.iter().find(|r| f(r, 2) == us).unwrap(), i);
        assert!(at(10.0, 3) > at(100.0, 3), "{p}: samples");
        // Every run is charged its profiler's work: more samples, more cost.
        assert!(at(10.0, 8) > at(100.0, 8), "{p}: overhead");
        for r in fixed.iter().chain([t]) {
            assert!(f(r, 8) > 0.0 && f(r, 9) > 0.0, "no cost: {r:?}");
        }
        for r in fixed.iter().chain([t]) {
            assert!((0.0..=100.0).contains(&f(r, 7)), "{r:?}");
            for i in [5, 6] {
                let v = f(r, i);
                assert!(v.is_nan() || (-100.0..=100.0).contains(&v), "{r:?}");
            }
        }
    }
}

/// The rows of `measure` (column 1), each with its value parsed (the last
/// column; `None` when empty: an undefined correlation).
fn measured<'a>(rows: &'a [Vec<String>], measure: &str) -> Vec<(&'a Vec<String>, Option<f64>)> {
    rows.iter()
        .filter(|r| r[1] == measure)
        .map(|r| {
            (
                r,
                r.last()
                    .filter(|v| !v.is_empty())
                    .map(|v| v.parse().unwrap()),
            )
        })
        .collect()
}

/// Whaley's intervals: the paper's (column 2) and the virtual ones (column 3).
const WHALEY_INTERVALS: [(&str, &str); 3] = [("1ms", "10us"), ("10ms", "100us"), ("50ms", "500us")];

/// Correlations in -1..=1, at least one defined per interval (a quick
/// program's few samples at the longest interval can all fall in one
/// method, where a correlation is undefined: towers at 500 us); a shorter
/// interval never takes fewer samples in the same run.
fn check_whaley_precision(rows: &[Vec<String>], measure: &str, buffer: Option<&str>) {
    let programs: std::collections::BTreeSet<&str> =
        rows[1..].iter().map(|r| r[0].as_str()).collect();
    let in_buffer = |r: &Vec<String>| buffer.is_none_or(|b| r[4] == b);
    for (paper, ours) in WHALEY_INTERVALS {
        assert!(
            measured(rows, measure)
                .iter()
                .any(|(r, v)| r[2] == paper && r[3] == ours && in_buffer(r) && v.is_some()),
            "{paper}: no {measure} of any program"
        );
    }
    for p in &programs {
        let mut samples = Vec::new();
        for (paper, ours) in WHALEY_INTERVALS {
            let at = |m: &str| -> Vec<(&Vec<String>, Option<f64>)> {
                measured(rows, m)
                    .into_iter()
                    .filter(|(r, _)| r[0] == *p && r[2] == paper && r[3] == ours && in_buffer(r))
                    .collect()
            };
            let corr = at(measure);
            assert!(!corr.is_empty(), "{p} {paper}: no {measure} row");
            for (r, v) in &corr {
                assert!(v.is_none_or(|v| (-1.0..=1.0).contains(&v)), "{r:?}");
                assert!(r[r.len() - 2].contains('-'), "a pair of runs: {r:?}");
            }
            let s: Vec<f64> = at("samples").iter().map(|s| s.1.unwrap()).collect();
            assert!(
                !s.is_empty() && s.iter().all(|&n| n > 0.0),
                "{p} {paper}: {s:?}"
            );
            samples.push(s);
        }
        for w in samples.windows(2) {
            for (short, long) in w[0].iter().zip(&w[1]) {
                assert!(
                    short >= long,
                    "{p}: {short} samples at the shorter interval, {long} at the longer"
                );
            }
        }
    }
}

/// Every timed configuration has positive wall times, `none` included.
fn check_whaley_times(rows: &[Vec<String>], configs: &[(&str, &str)], buffer_col: Option<usize>) {
    let times = measured(rows, "wall_s");
    for &(paper, buffer) in configs {
        let n = times
            .iter()
            .filter(|(r, _)| r[2] == paper && buffer_col.is_none_or(|i| r[i] == buffer))
            .inspect(|(r, v)| assert!(v.unwrap() > 0.0, "{r:?}"))
            .count();
        assert!(n > 0, "no wall time of {paper} {buffer}");
    }
}

fn check_whaley_fig13(rows: &[Vec<String>]) {
    check_whaley_precision(rows, "method_correlation", None);
    check_whaley_model(rows, &[""], None);
}

/// The default overhead, the cost model's (rows `overhead_pct`): for every
/// program, every interval and every buffer of `buffers` (column
/// `buffer_col`), a positive overhead per run, and less at 50 ms than at
/// 1 ms; no wall-clock rows.
fn check_whaley_model(rows: &[Vec<String>], buffers: &[&str], buffer_col: Option<usize>) {
    let cost = measured(rows, "overhead_pct");
    let programs: std::collections::BTreeSet<&str> =
        rows[1..].iter().map(|r| r[0].as_str()).collect();
    for p in &programs {
        for b in buffers {
            let at = |paper: &str| -> Vec<f64> {
                cost.iter()
                    .filter(|(r, _)| {
                        r[0] == *p && r[2] == paper && buffer_col.is_none_or(|i| r[i] == *b)
                    })
                    .map(|(_, v)| v.unwrap())
                    .collect()
            };
            for (paper, _) in WHALEY_INTERVALS {
                let v = at(paper);
                assert!(!v.is_empty(), "{p} {paper} buffer {b}: no overhead_pct");
                assert!(v.iter().all(|&x| x > 0.0), "{p} {paper} buffer {b}: {v:?}");
            }
            let (fast, slow) = (at("1ms"), at("50ms"));
            assert!(
                fast.iter().sum::<f64>() > slow.iter().sum::<f64>(),
                "{p} buffer {b}: 1 ms {fast:?} against 50 ms {slow:?}"
            );
        }
    }
    assert!(
        !rows.iter().any(|r| r[1].starts_with("wall")),
        "wall-clock rows without --clock=wall"
    );
}

/// With `--clock=wall`: the wall-clock times of every configuration
/// (rows `wall_s`, `none` included) and the precision between the timed
/// runs; not the model's overhead.
fn check_whaley_fig13_wall(rows: &[Vec<String>]) {
    check_whaley_times(
        rows,
        &[("none", ""), ("1ms", ""), ("10ms", ""), ("50ms", "")],
        None,
    );
    assert!(!measured(rows, "wall_method_correlation").is_empty());
    assert!(measured(rows, "overhead_pct").is_empty());
}

/// Also the buffer: a larger buffer never leaves more samples detached.
fn check_whaley_fig14(rows: &[Vec<String>]) {
    check_whaley_precision(rows, "context_correlation", Some("16"));
    check_whaley_precision(rows, "method_correlation", Some("16"));
    check_whaley_model(rows, &["16"], Some(4));
    // The hot-method counter alone (no buffer) at 1 ms, beside the PCCT.
    let timer: Vec<f64> = measured(rows, "overhead_pct")
        .iter()
        .filter(|(r, _)| r[2] == "1ms" && r[4].is_empty())
        .map(|(_, v)| v.unwrap())
        .collect();
    assert!(!timer.is_empty(), "no overhead of the counter alone");
    let detached = measured(rows, "detached_pct");
    let at = |p: &str, b: &str, run: &str| -> f64 {
        detached
            .iter()
            .find(|(r, _)| r[0] == p && r[2] == "1ms" && r[4] == b && r[5] == run)
            .unwrap_or_else(|| panic!("no detached_pct of {p} buffer {b} run {run}"))
            .1
            .unwrap()
    };
    for (r, v) in &detached {
        assert!((0.0..=100.0).contains(&v.unwrap()), "{r:?}");
    }
    for (r, _) in detached.iter().filter(|(r, _)| r[4] == "1") {
        let (p, run) = (r[0].as_str(), r[5].as_str());
        assert!(at(p, "1", run) >= at(p, "16", run), "{p} run {run}");
        assert!(at(p, "16", run) >= at(p, "64", run), "{p} run {run}");
    }
}

/// With `--clock=wall`: every timed configuration, the precision between
/// the timed runs; not the model's overhead.
fn check_whaley_fig14_wall(rows: &[Vec<String>]) {
    check_whaley_times(
        rows,
        &[
            ("none", ""),
            ("1ms", ""),
            ("1ms", "16"),
            ("10ms", "16"),
            ("50ms", "16"),
            ("1ms", "1"),
            ("1ms", "64"),
        ],
        Some(4),
    );
    assert!(!measured(rows, "wall_context_correlation").is_empty());
    assert!(measured(rows, "overhead_pct").is_empty());
}

/// On the simulated machine: one plain run per program (its length and
/// thread cycles), every technique at every interval once per seed, every
/// profiled run with at least one safepoint.
fn check_hofer_fig9(rows: &[Vec<String>]) {
    let data = &rows[1..];
    let num = |r: &Vec<String>, i: usize| -> u64 { r[i].parse().unwrap() };
    let programs: std::collections::BTreeSet<&str> = data.iter().map(|r| r[0].as_str()).collect();
    for p in &programs {
        let plain: Vec<&Vec<String>> = data
            .iter()
            .filter(|r| r[0] == *p && r[2] == "none")
            .collect();
        assert_eq!(plain.len(), 1, "plain runs of {p}");
        assert!(
            num(plain[0], 4) > 0 && num(plain[0], 5) > 0,
            "{:?}",
            plain[0]
        );
        let seeds = data
            .iter()
            .filter(|r| r[0] == *p && r[1] == "1ms" && r[2] == HOFER_TECHNIQUES[0])
            .count();
        assert!(seeds > 0, "no run of {p}");
        for i in ["10ms", "1ms", "0.1ms"] {
            for t in HOFER_TECHNIQUES {
                let runs: Vec<&Vec<String>> = data
                    .iter()
                    .filter(|r| r[0] == *p && r[1] == i && r[2] == t)
                    .collect();
                assert_eq!(runs.len(), seeds, "runs of {p} {i} {t}");
                for r in runs {
                    assert!(num(r, 4) > 0 && num(r, 5) > 0, "{r:?}");
                    assert!(num(r, 8) >= 1, "no safepoint: {r:?}");
                    assert!(num(r, 6) > 0, "nothing stopped: {r:?}");
                    assert!(num(r, 7) > 0, "no walk cycles: {r:?}");
                    assert_eq!(r[9], plain[0][9], "one depth per program: {r:?}");
                }
            }
        }
    }
}

/// The sampler counters on the simulated machine of `cores` cores:
/// safepoints taken, no more stacks walked than asked for, partial
/// safepoints ask for at most one thread per simulated core, the global
/// one for every live thread (8 threads here); sampling stops threads.
fn check_hofer_fig11_sim(rows: &[Vec<String>], cores: usize) {
    let num = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap() };
    for t in HOFER_TECHNIQUES {
        assert!(rows.iter().any(|r| r[1] == t), "no run of {t}");
    }
    for r in &rows[1..] {
        assert!(num(r, 4) >= 1.0, "no safepoint: {r:?}");
        assert!(num(r, 6) <= num(r, 5), "more walked than asked: {r:?}");
        assert!(num(r, 7) > 0.0, "nothing stopped: {r:?}");
        let per = num(r, 12);
        if r[1] == "safepoint-full" {
            assert!(per > 2.0, "a global safepoint asks for every thread: {r:?}");
        } else {
            assert!(
                per <= cores as f64 + 1e-9,
                "more than a thread per core: {r:?}"
            );
        }
    }
}

/// The sampler counters on real threads: safepoints taken, no more
/// stacks walked than asked for, partial safepoints ask for at most one
/// thread per core, the global one for every live thread (8 threads
/// here).
fn check_hofer_fig11_real(rows: &[Vec<String>]) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let num = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap() };
    for t in HOFER_TECHNIQUES {
        assert!(rows.iter().any(|r| r[1] == t), "no run of {t}");
    }
    for r in &rows[1..] {
        assert!(num(r, 4) >= 1.0, "no safepoint: {r:?}");
        assert!(num(r, 6) <= num(r, 5), "more walked than asked: {r:?}");
        let per = num(r, 12);
        if r[1] == "safepoint-full" {
            assert!(per > 2.0, "a global safepoint asks for every thread: {r:?}");
        } else {
            assert!(per <= cores + 1e-9, "more than a thread per core: {r:?}");
        }
        assert!(num(r, 7) >= 0.0 && num(r, 8) >= 0.0, "{r:?}");
    }
}

/// Overlap and coverage are percentages; a run's overlap with the average
/// of n runs is at least 100/n (each of its relative weights is at most n
/// times its share in the average); every technique has every run.
fn check_hofer_fig12(rows: &[Vec<String>]) {
    let data = &rows[1..];
    let num = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap() };
    let runs = data
        .iter()
        .filter(|r| r[1] == HOFER_TECHNIQUES[0] && r[0] == data[0][0])
        .count();
    assert!(runs > 0);
    for t in HOFER_TECHNIQUES {
        assert_eq!(
            data.iter()
                .filter(|r| r[1] == t && r[0] == data[0][0])
                .count(),
            runs,
            "runs of {t}"
        );
    }
    for r in data {
        assert!(num(r, 3) > 0.0 && num(r, 4) > 0.0, "no samples: {r:?}");
        let (o, c) = (num(r, 5), num(r, 6));
        assert!((0.0..=100.0).contains(&c), "{r:?}");
        assert!(
            o <= 100.0 && o >= 100.0 / runs as f64 - 0.01,
            "overlap with the average of {runs}: {r:?}"
        );
    }
}

/// Every ordered pair of techniques and each against the exact CCT;
/// overlap is symmetric, coverage a percentage.
fn check_hofer_fig13(rows: &[Vec<String>]) {
    let data = &rows[1..];
    let num = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap() };
    let program = data[0][0].as_str();
    let find = |p: &str, q: &str| {
        data.iter()
            .find(|r| r[0] == program && r[1] == p && r[2] == q)
            .unwrap_or_else(|| panic!("no row {p} against {q}"))
    };
    for a in HOFER_TECHNIQUES {
        let e = find(a, "exact");
        assert!((0.0..=100.0).contains(&num(e, 3)), "{e:?}");
        for b in HOFER_TECHNIQUES.iter().filter(|&&b| b != a) {
            let (ab, ba) = (find(a, b), find(b, a));
            assert_eq!(ab[3], ba[3], "overlap is symmetric");
            assert!((0.0..=100.0).contains(&num(ab, 3)), "{ab:?}");
            assert!((0.0..=100.0).contains(&num(ab, 4)), "{ab:?}");
        }
    }
}

#[test]
fn an_unknown_name_lists_the_names() {
    let r = experiment(&["no-such-study"]);
    r.assert_status(2);
    for (name, _, _) in EXPERIMENTS {
        assert!(r.stderr.contains(name), "{name} not in: {}", r.stderr);
    }
}

#[test]
fn an_output_directory_that_cannot_be_made_is_66() {
    let dir = scratch("experiment-bad-out");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = file.join("sub").display().to_string();
    let r = experiment(&["arnold-grove-fig1", "--quick", "--out", &out]);
    r.assert_status(66);
    assert!(r.stderr.contains("cannot create"), "{}", r.stderr);
}

#[test]
fn a_missing_program_is_66_before_anything_runs() {
    let dir = scratch("experiment-missing-program");
    let out = dir.display().to_string();
    let r = experiment(&[
        "arnold-grove-fig1",
        "--quick",
        "--out",
        &out,
        "--programs",
        "no_such_prog",
    ]);
    r.assert_status(66);
    assert!(r.stderr.contains("no_such_prog"), "{}", r.stderr);
    assert!(!dir.join("arnold-grove-fig1.csv").exists());
}

/// The settings line of a CSV's comments.
fn settings(comments: &[String]) -> &str {
    comments
        .iter()
        .find_map(|c| c.strip_prefix("settings: "))
        .unwrap_or_else(|| panic!("no settings line in {comments:?}"))
}

#[test]
fn hofer_with_cores_says_its_machine_and_repeats_exactly() {
    // --cores=2: two runs with the same seeds write the same CSV, which
    // says cores=2; a partial safepoint asks for at most 2 threads.
    let mut csvs = Vec::new();
    for k in 0..2 {
        let dir = scratch(&format!("experiment-hofer-cores-2-{k}"));
        let (comments, rows) = run_quick_with("hofer-fig11", &["--cores=2"], HOFER_FIG11_SIM, &dir);
        assert!(
            settings(&comments).contains("mode=simulated cores=2 quantum=100000 clock=virtual"),
            "{comments:?}"
        );
        check_hofer_fig11_sim(&rows, 2);
        csvs.push(std::fs::read(dir.join("hofer-fig11.csv")).unwrap());
    }
    assert!(
        csvs[0] == csvs[1],
        "hofer-fig11 --cores=2: the two CSVs differ"
    );
}

#[test]
fn cores_real_runs_the_old_wall_clock_mode() {
    let dir = scratch("experiment-hofer-real");
    let (comments, rows) = run_quick_with(
        "hofer-fig11",
        &["--cores=real", "--runs=1"],
        HOFER_FIG11_REAL,
        &dir,
    );
    assert!(
        settings(&comments).contains("mode=real cores=real clock=wall"),
        "{comments:?}"
    );
    check_hofer_fig11_real(&rows);
}

#[test]
fn cores_is_refused_where_it_does_not_apply_and_for_bad_values() {
    let dir = scratch("experiment-bad-cores");
    let out = dir.display().to_string();
    let cases: &[(&[&str], &str)] = &[
        (
            &["arnold-grove-fig1", "--cores=4"],
            "--cores does not apply to arnold-grove-fig1",
        ),
        (&["hofer-fig9", "--cores=0"], "`0` cores"),
        (&["hofer-fig9", "--cores=four"], "neither a number of cores"),
        (&["hofer-fig9", "--cores="], "--cores"),
        (&["--list", "--cores=4"], "--cores"),
        (
            &["arnold-grove-fig1", "--clock=wall"],
            "--clock=wall does not apply to arnold-grove-fig1",
        ),
        (&["arnold-grove-table3", "--clock=cpu"], "--clock"),
    ];
    for (args, want) in cases {
        let mut all = args.to_vec();
        all.extend(["--quick", "--out", &out]);
        if all[0] == "--list" {
            all.truncate(2);
        }
        let r = experiment(&all);
        r.assert_status(2);
        assert!(r.stderr.contains(want), "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{args:?}: {}", r.stderr);
    }
    assert!(
        !dir.join("arnold-grove-fig1.csv").exists(),
        "the experiment ran"
    );
}

/// Record sizes: per program, the exhaustive CCT scores 100 against
/// itself and has at least the ACCT's contexts (an ACCT's are real
/// contexts; a PCCT may add detached ones); both sampled-bit variants
/// build the same tree; bytes are nodes times the record's node size.
fn check_record_sizes(rows: &[Vec<String>]) {
    let f = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap_or(f64::NAN) };
    let node_bytes = |record: &str| match record {
        "cct" => 40.0,
        r if r.starts_with("acct") => 32.0,
        _ => 72.0,
    };
    let programs: Vec<&str> = rows[1..]
        .iter()
        .filter(|r| r[1] == "cct")
        .map(|r| r[0].as_str())
        .collect();
    assert!(!programs.is_empty(), "no exhaustive rows");
    for p in programs {
        let get = |record: &str| {
            rows.iter()
                .find(|r| r[0] == p && r[1] == record)
                .unwrap_or_else(|| panic!("{p}: no {record} row"))
        };
        let cct = get("cct");
        assert_eq!(f(cct, 5), 100.0, "{cct:?}");
        for r in rows.iter().filter(|r| r[0] == p) {
            assert_eq!(f(r, 4), f(r, 3) * node_bytes(&r[1]), "{r:?}");
            assert!(f(r, 3) >= 1.0, "{r:?}");
            if r[1].starts_with("acct") {
                assert!(f(r, 3) <= f(cct, 3), "{r:?} against {cct:?}");
            }
            assert!((0.0..=100.0).contains(&f(r, 5)), "{r:?}");
        }
        assert_eq!(get("acct-mark")[3], get("acct-return-address")[3], "{p}");
        for purged in ["pcct", "pcct-purge-100", "pcct-purge-20"] {
            get(purged);
        }
    }
}

/// Latencies: every technique at every interval on every program, each
/// run's quantiles in order, no more samples taken than requested.
fn check_hofer_latency(rows: &[Vec<String>]) {
    let f = |r: &Vec<String>, i: usize| -> f64 { r[i].parse().unwrap_or(f64::NAN) };
    for t in HOFER_TECHNIQUES {
        for i in ["10ms", "1ms", "0.1ms"] {
            assert!(rows.iter().any(|r| r[1] == t && r[2] == i), "no {t} at {i}");
        }
    }
    for r in &rows[1..] {
        assert!(f(r, 5) > 0.0 && f(r, 4) > 0.0, "no tick: {r:?}");
        assert!(f(r, 8) <= f(r, 7) && f(r, 8) > 0.0, "{r:?}");
        let q: Vec<f64> = (9..15).map(|i| f(r, i)).collect();
        assert!(q.iter().all(|v| v.is_finite() && *v >= 0.0), "{r:?}");
        assert!(
            q.windows(2).all(|w| w[0] <= w[1]),
            "quantiles out of order: {r:?}"
        );
    }
}
