//! `vm inline`'s study modes (issue 24): the decision log (`--log`, format
//! `vm-inline-log/1`) and the text rendered from it, `--compare` on Arnold
//! & Grove's Figure 1 program, `--explain`, `--advice-out`/`--advice`,
//! `--suggest`, `--gain`, and their bad input. Every number checked here is
//! checked against a second, independent run of the binary (`vm run
//! --profile-out`, `vm run --cycles` on an emitted program), not against a
//! number copied from the output under test.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

use crate::harness::{self, run_vm_in, vm, DEFAULT_TIMEOUT};

const FIG1: &str = "programs/examples/arnold-grove-fig1.bc";
/// The old Jikes RVM inliner with a hot threshold of 25% and no
/// always-inline size: on Figure 1 an edge is inlined only if its profile
/// weight says it is hot.
const HOT25: [&str; 3] = [
    "--policy=hot-edge",
    "--hot-edge-pct=25",
    "--inline-always=1",
];

/// `vm inline FIG1 --compare=exhaustive,cbs,timer --seed=1` under [`HOT25`],
/// with its page (`--html`) and its log (`--log`): run once (2 s of CPU)
/// and read by each test that looks at it.
struct Fig1Compare {
    run: harness::Run,
    page: PathBuf,
    log: PathBuf,
}

fn fig1_compare() -> &'static Fig1Compare {
    static COMPARE: OnceLock<Fig1Compare> = OnceLock::new();
    COMPARE.get_or_init(|| {
        let dir = harness::scratch("inline_compare_fig1");
        let (page, log) = (dir.join("cmp.html"), dir.join("cmp.jsonl"));
        let mut args = vec!["inline", FIG1, "--compare=exhaustive,cbs,timer", "--seed=1"];
        args.extend(HOT25);
        let html_arg = format!("--html={}", page.display());
        let log_arg = format!("--log={}", log.display());
        args.extend([html_arg.as_str(), log_arg.as_str()]);
        let run = vm(&args);
        run.assert_status(0);
        Fig1Compare { run, page, log }
    })
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn lines_json(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {e}: {l}")))
        .collect()
}

/// `vm: cycles: N instructions: M` -> N.
fn cycles_of(stderr: &str) -> u64 {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("vm: cycles:"))
        .unwrap_or_else(|| panic!("no cycles line in:\n{stderr}"));
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

#[test]
fn the_log_has_one_record_per_site_and_the_text_is_drawn_from_it() {
    let dir = harness::scratch("inline_log");
    let log = dir.join("classes.jsonl");
    let prof = dir.join("classes.json");
    let program = root().join("programs/examples/classes.bc");
    let r = vm(&[
        "inline",
        program.to_str().unwrap(),
        &format!("--log={}", log.display()),
        &format!("--profile-out={}", prof.display()),
    ]);
    r.assert_status(0);
    let recs = lines_json(&std::fs::read_to_string(&log).unwrap());
    let run = &recs[0];
    assert_eq!(run["format"], "vm-inline-log/1");
    assert_eq!(run["type"], "run");
    assert_eq!(run["policy"], "linear");
    assert_eq!(run["profile"], "exhaustive");
    let sites = &recs[1..];
    assert!(sites.len() >= 4, "{sites:?}");
    // The profile of the same run, read independently.
    let profile: Value = serde_json::from_str(&std::fs::read_to_string(&prof).unwrap()).unwrap();
    let dcg = profile["dcg"].as_array().unwrap();
    let total: u64 = dcg.iter().map(|e| e["weight"].as_u64().unwrap()).sum();
    assert_eq!(run["dcg_weight"].as_u64(), Some(total));
    for s in sites {
        assert_eq!(s["format"], "vm-inline-log/1");
        assert_eq!(s["type"], "site");
        let (caller, line, callee) = (
            s["caller"].as_str().unwrap(),
            s["line"].as_u64().unwrap(),
            s["callee"].as_str().unwrap(),
        );
        let edge: u64 = dcg
            .iter()
            .filter(|e| e["caller"] == caller && e["line"] == line && e["callee"] == callee)
            .map(|e| e["weight"].as_u64().unwrap())
            .sum();
        assert_eq!(s["weight"].as_u64(), Some(edge), "{s}");
        let rules = s["rules"].as_array().unwrap();
        assert!(!rules.is_empty(), "{s}");
        for rule in rules {
            assert!(
                rule["rule"].is_string() && rule["passed"].is_boolean(),
                "{rule}"
            );
        }
        let outcome = s["outcome"].as_str().unwrap();
        let all_passed = rules.iter().all(|r| r["passed"] == true);
        match outcome {
            "inline" | "guarded" => assert!(all_passed, "{s}"),
            "rejected" | "refused" => assert!(!all_passed, "{s}"),
            o => panic!("outcome {o}"),
        }
        // A rule with numbers is consistent with its own verdict.
        for rule in rules.iter().filter(|r| r["value"].is_number()) {
            let (v, t) = (
                rule["value"].as_f64().unwrap(),
                rule["threshold"].as_f64().unwrap(),
            );
            let holds = match rule["cmp"].as_str().unwrap() {
                "<" => v < t,
                "<=" => v <= t,
                ">" => v > t,
                ">=" => v >= t,
                _ => v == t,
            };
            assert_eq!(rule["passed"].as_bool(), Some(holds), "{rule}");
        }
        if s["call"] == "callvirt" && edge > 0 {
            let rs = s["receivers"].as_array().unwrap();
            let share: f64 = rs.iter().map(|x| x["share"].as_f64().unwrap()).sum();
            assert!((share - 100.0).abs() < 0.01, "{s}");
            assert!(rs.iter().any(|x| x["method"] == callee), "{s}");
        }
    }
    // The polymorphic speak site: three receivers, none above 40%.
    let speak: Vec<&Value> = sites
        .iter()
        .filter(|s| s["callee"].as_str().unwrap().ends_with(".speak") && s["depth"] == 1)
        .collect();
    assert_eq!(speak.len(), 3);
    for s in &speak {
        assert_eq!(s["outcome"], "rejected");
        let last = s["rules"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["rule"], "guard share");
        assert_eq!(last["option"], "--guard-min-pct");
        assert_eq!(last["threshold"].as_f64(), Some(40.0));
    }
    // The text: the header, then per root a `NAME:` line and one line per
    // record, in order, indented by depth.
    let text: Vec<&str> = r
        .stderr
        .lines()
        .skip(1)
        .filter(|l| l.starts_with(' '))
        .collect();
    assert_eq!(text.len(), sites.len(), "{}", r.stderr);
    for (line, s) in text.iter().zip(sites) {
        let depth = s["depth"].as_u64().unwrap() as usize;
        let want_start = format!(
            "{}@ {} {} (",
            " ".repeat(2 * depth),
            s["line"],
            s["callee"].as_str().unwrap()
        );
        assert!(line.starts_with(&want_start), "{line:?} vs {s}");
        assert!(
            line.ends_with(s["reason"].as_str().unwrap()),
            "{line:?} vs {s}"
        );
        if let Some(n) = s["callee_size"].as_u64() {
            assert!(line.contains(&format!("({n} insns")), "{line:?}");
        }
    }
}

/// The table row of `M:170 call_2` etc.: (disagree mark, cells).
fn row<'a>(out: &'a str, site: &str) -> (bool, Vec<(f64, &'a str)>) {
    let line = out
        .lines()
        .find(|l| l.get(2..).is_some_and(|x| x.starts_with(site)))
        .unwrap_or_else(|| panic!("no row {site} in:\n{out}"));
    let cells: Vec<(f64, &str)> = line
        .split_whitespace()
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0].ends_with('%'))
        .map(|w| (w[0].trim_end_matches('%').parse().unwrap(), w[1]))
        .collect();
    (line.starts_with('*'), cells)
}

#[test]
fn compare_on_figure_1_shows_the_timer_under_weighting_call_2_and_what_it_cost() {
    let dir = harness::scratch("inline_compare");
    let compare = fig1_compare();
    let out = &compare.run.stdout;
    assert!(
        !out.contains("4500000\n"),
        "the program's output is not printed"
    );
    // call_1 and call_2 are called equally often; the timer sees call_2
    // far less (its samples land at call_1's prologue).
    let (d1, c1) = row(out, "M:167");
    let (d2, c2) = row(out, "M:170");
    assert!(!d1, "call_1: every profile inlines it:\n{out}");
    assert!(d2, "call_2 is a disagreement:\n{out}");
    assert_eq!(c2.len(), 3);
    let (exh, cbs, timer) = (c2[0], c2[1], c2[2]);
    assert!((exh.0 - 50.0).abs() < 0.01, "{out}");
    assert!((cbs.0 - 50.0).abs() < 5.0, "{out}");
    assert!(timer.0 < 25.0 && timer.0 < exh.0 / 2.0, "{out}");
    assert!(c1[2].0 > 75.0, "the timer over-weights call_1:\n{out}");
    assert_eq!((exh.1, cbs.1, timer.1), ("inline", "inline", "rejected"));
    // The cycles of each optimized program, against `vm run --cycles` of
    // the program the same profile makes `vm inline` emit.
    let cycles_line = |kind: &str| -> u64 {
        let l = out
            .lines()
            .find(|l| l.trim_start().starts_with(kind) && !l.contains(':'))
            .unwrap_or_else(|| panic!("no cycles for {kind}:\n{out}"));
        l.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    for kind in ["exhaustive", "timer"] {
        let emitted = dir.join(format!("{kind}.bc"));
        let mut a = vec![
            "inline".to_string(),
            FIG1.to_string(),
            format!("--profile={kind}"),
            "--seed=1".into(),
            format!("--emit={}", emitted.display()),
        ];
        if kind == "timer" {
            a.push("--clock=virtual".into());
        }
        a.extend(HOT25.iter().map(|s| s.to_string()));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        vm(&a).assert_status(0);
        let run = vm(&["run", emitted.to_str().unwrap(), "--cycles"]);
        run.assert_status(0);
        assert_eq!(cycles_of(&run.stderr), cycles_line(kind), "{kind}:\n{out}");
    }
    assert!(cycles_line("timer") > cycles_line("exhaustive"), "{out}");
    // Flipping the timer's decision (inlining call_2) goes the way the
    // table says: fewer cycles, by what the timer's choice cost.
    let flip = out
        .lines()
        .find(|l| l.contains("M:170 call_2: timer did not inline it"))
        .unwrap_or_else(|| panic!("no flip line:\n{out}"));
    let nums: Vec<u64> = flip
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    // M:170 ... A -> B cycles (-D) ... cost D cycles
    let (a, b) = (nums[2], nums[3]);
    assert_eq!(a, cycles_line("timer"), "{flip}");
    assert_eq!(b, cycles_line("exhaustive"), "{flip}");
    assert!(b < a && flip.contains("the decision cost"), "{flip}");
    let exh_flip = out
        .lines()
        .find(|l| l.contains("M:170 call_2: exhaustive inlined it"))
        .unwrap();
    assert!(exh_flip.contains("the decision saved"), "{exh_flip}");
    // The log of a compare holds every profile's records.
    let recs = lines_json(&std::fs::read_to_string(&compare.log).unwrap());
    let timer_call2: Vec<&Value> = recs
        .iter()
        .filter(|v| v["profile"] == "timer" && v["callee"] == "call_2")
        .collect();
    assert_eq!(timer_call2.len(), 1);
    assert_eq!(timer_call2[0]["outcome"], "rejected");
    assert!((timer_call2[0]["weight_pct"].as_f64().unwrap() - timer.0).abs() < 0.01);
}

/// Each disagreement's site and the cycles its flips moved, from the
/// `disagreements` section of a compare, in the order printed.
fn stakes(out: &str) -> Vec<(String, u64)> {
    let mut sites: Vec<(String, u64)> = Vec::new();
    for l in out
        .lines()
        .skip_while(|l| !l.starts_with("disagreements ("))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
    {
        let (site, rest) = l.trim_start().split_once(": ").unwrap();
        let moved: u64 = rest
            .rsplit(' ')
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no cycles in {l}"));
        match sites.last_mut() {
            Some((s, m)) if s == site => *m = (*m).max(moved),
            _ => sites.push((site.to_string(), moved)),
        }
    }
    sites
}

#[test]
fn compare_summarizes_orders_by_cycles_at_stake_and_warns_of_a_thin_profile() {
    // At a 20 ms tick the timer takes 23 edge samples of this program;
    // cbs, at every call, thousands.
    let args = [
        "inline",
        "programs/bench/virtual_calls.bc",
        "--compare=cbs,timer",
        "--seed=1",
        "--interval=20ms",
        "--policy=hot-edge",
        "--hot-edge-pct=25",
        "--inline-always=1",
    ];
    let r = vm(&args);
    r.assert_status(0);
    let out = &r.stdout;
    // The timer's edge samples, counted in the profile it makes alone.
    let dir = harness::scratch("inline_compare_thin");
    let profile = dir.join("timer.json");
    vm(&[
        "run",
        "programs/bench/virtual_calls.bc",
        "--profile=timer",
        "--clock=virtual",
        "--seed=1",
        "--interval=20ms",
        &format!("--profile-out={}", profile.display()),
    ])
    .assert_status(0);
    let p: Value = serde_json::from_str(&std::fs::read_to_string(&profile).unwrap()).unwrap();
    let edges: u64 = p["dcg"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["weight"].as_u64().unwrap())
        .sum();
    assert!(edges < 100, "{edges}");
    assert!(
        out.contains(&format!(
            "warning: the timer profile holds {edges} edge samples, too few to decide on"
        )),
        "{out}"
    );
    assert!(!out.contains("warning: the cbs profile"), "{out}");
    // The summary, before the table, counts the rows marked `*` and names
    // the disagreement at stake most, first in the list below.
    let summary = out
        .lines()
        .find(|l| l.starts_with("summary: "))
        .unwrap_or_else(|| panic!("no summary:\n{out}"));
    let table_at = out.find("  caller:line").unwrap();
    assert!(out.find("summary: ").unwrap() < table_at, "{out}");
    let marked = out.lines().filter(|l| l.starts_with("* ")).count();
    assert!(marked >= 2, "{out}");
    assert!(
        summary.contains(&format!("decide {marked} of them differently")),
        "{summary}"
    );
    let sites = stakes(out);
    assert_eq!(sites.len(), marked, "{out}");
    for w in sites.windows(2) {
        assert!(w[0].1 >= w[1].1, "not at stake most first: {sites:?}");
    }
    let (top, moved) = &sites[0];
    assert!(
        summary.contains(&format!("the costliest, {top}, moves {moved} cycles")),
        "{summary}\n{sites:?}"
    );
}

/// `12.34ms` -> 12.34.
fn millis(word: &str) -> f64 {
    word.trim_matches(|c| c == '[' || c == ']')
        .strip_suffix("ms")
        .unwrap_or_else(|| panic!("not a time: {word}"))
        .parse()
        .unwrap()
}

#[test]
fn compare_with_time_prints_medians_and_quartiles_beside_the_cycles() {
    let mut args = vec!["inline", FIG1, "--compare=exhaustive,timer", "--seed=1"];
    args.extend(HOT25);
    let plain = vm(&args);
    plain.assert_status(0);
    args.push("--time=3");
    let timed = vm(&args);
    timed.assert_status(0);
    let out = &timed.stdout;
    let head = out
        .lines()
        .find(|l| l.starts_with("cycles of the program optimized"))
        .unwrap_or_else(|| panic!("no cycles header:\n{out}"));
    assert!(
        head.ends_with(", and wall time: median [quartiles] of 3 interleaved runs:"),
        "{head}"
    );
    // One row per program, the original first: its cycles as without
    // --time, then `wall MEDIAN [LOWER UPPER]`, the median between its
    // quartiles, and for an optimized program the median's change.
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| *l != head)
        .skip(1)
        .take(3)
        .collect();
    let plain_rows: Vec<&str> = plain
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("cycles of the program optimized"))
        .skip(1)
        .take(2)
        .collect();
    for (i, (row, kind)) in rows
        .iter()
        .zip(["original", "exhaustive", "timer"])
        .enumerate()
    {
        let (cycles, wall) = row
            .split_once(" wall ")
            .unwrap_or_else(|| panic!("no wall time in {row:?}:\n{out}"));
        assert_eq!(cycles.split_whitespace().next(), Some(kind), "{row}");
        if i > 0 {
            assert_eq!(cycles.trim_end(), plain_rows[i - 1], "{out}");
        } else {
            assert!(head.contains(&format!(
                "(original {})",
                cycles.split_whitespace().nth(1).unwrap()
            )));
        }
        let w: Vec<&str> = wall.split_whitespace().collect();
        assert_eq!(w.len(), if i == 0 { 3 } else { 4 }, "{row}");
        let (median, lower, upper) = (millis(w[0]), millis(w[1]), millis(w[2]));
        assert!(lower <= median && median <= upper && lower > 0.0, "{row}");
        if i > 0 {
            assert!(w[3].starts_with("(+") || w[3].starts_with("(-"), "{row}");
            assert!(w[3].ends_with("%)"), "{row}");
        }
    }
    // Everything else is as without --time.
    let strip = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.contains(" wall ") && !l.starts_with("cycles of"))
            .map(String::from)
            .collect()
    };
    let plain_lines: Vec<String> = strip(&plain.stdout)
        .into_iter()
        .filter(|l| !plain_rows.contains(&l.as_str()))
        .collect();
    assert_eq!(strip(out), plain_lines);
    // --time belongs to --compare, and N is 1 to 1000.
    for (extra, words) in [
        (&["--time"][..], "--time=5 applies only with --compare"),
        (&["--compare=cbs,timer", "--time=0"][..], "--time"),
    ] {
        let mut a = vec!["inline", FIG1];
        a.extend_from_slice(extra);
        let r = run_vm_in(root(), &a, DEFAULT_TIMEOUT);
        r.assert_status(2);
        assert!(r.stderr.contains(words), "{}", r.stderr);
    }
}

/// `vm inline FIG1 --profile=timer` with `extra`; returns the run.
fn timer_run(extra: &[&str]) -> harness::Run {
    let mut a = vec![
        "inline",
        FIG1,
        "--profile=timer",
        "--clock=virtual",
        "--seed=1",
    ];
    a.extend(HOT25);
    a.extend_from_slice(extra);
    vm(&a)
}

#[test]
fn explain_names_the_rule_and_the_option_values_that_flip_it() {
    let r = timer_run(&["--explain=M:170"]);
    r.assert_status(0);
    let e = &r.stderr;
    assert!(e.contains("decided by: hot edge"), "{e}");
    assert!(e.contains("outcome: rejected: too cold to inline"), "{e}");
    let flips = e
        .lines()
        .find_map(|l| l.trim().strip_prefix("to flip it: "))
        .unwrap_or_else(|| panic!("no flip line:\n{e}"));
    let values: Vec<&str> = flips.split(" or ").collect();
    assert!(
        values.iter().any(|v| v.starts_with("--hot-edge-pct=")),
        "{flips}"
    );
    // Each value really flips the decision when given.
    for v in values {
        let r2 = {
            let mut a = vec![
                "inline",
                FIG1,
                "--profile=timer",
                "--clock=virtual",
                "--seed=1",
            ];
            let option = v.split('=').next().unwrap();
            a.extend(HOT25.iter().filter(|h| !h.starts_with(option)));
            a.push(v);
            vm(&a)
        };
        r2.assert_status(0);
        let line = r2
            .stderr
            .lines()
            .find(|l| l.contains("@ 170 call_2"))
            .unwrap();
        assert!(
            line.ends_with("inline (hot)") || line.contains("inline (tiny"),
            "{v}: {line}"
        );
    }
    // The cycles after the flip are the inlined program's.
    let cyc = e.lines().find(|l| l.trim().starts_with("cycles:")).unwrap();
    let nums: Vec<u64> = cyc
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(nums[1] < nums[0], "{cyc}");
    // Bad sites are usage errors.
    let bad = timer_run(&["--explain=M:171"]);
    bad.assert_status(2);
    assert!(bad.stderr.contains("167, 170"), "{}", bad.stderr);
    timer_run(&["--explain=nosuch:1"]).assert_status(2);
}

#[test]
fn advice_replays_exactly_the_decisions_of_another_run() {
    let dir = harness::scratch("inline_advice");
    let advice = dir.join("timer.advice");
    let first = dir.join("first.bc");
    let second = dir.join("second.bc");
    timer_run(&[
        &format!("--advice-out={}", advice.display()),
        &format!("--emit={}", first.display()),
    ])
    .assert_status(0);
    let a: Value = serde_json::from_str(&std::fs::read_to_string(&advice).unwrap()).unwrap();
    assert_eq!(a["format"], "vm-inline-advice/1");
    assert_eq!(a["decisions"].as_array().unwrap().len(), 1, "{a}");
    // Applied to an exhaustive run (which alone would inline call_2 too).
    let r = vm(&[
        "inline",
        FIG1,
        "--profile=exhaustive",
        &format!("--advice={}", advice.display()),
        &format!("--emit={}", second.display()),
    ]);
    r.assert_status(0);
    assert!(
        r.stderr
            .contains("@ 170 call_2 (8 insns, weight 1500000 = 50.00%)   not in the advice"),
        "{}",
        r.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&first).unwrap(),
        std::fs::read_to_string(&second).unwrap()
    );
    // A changed program: a decision whose call moved is skipped, loudly.
    let src = std::fs::read_to_string(root().join(FIG1)).unwrap();
    let moved = harness::write_program(&dir, "moved.bc", &format!("; one more line\n{src}"));
    let r = run_vm_in(
        &dir,
        &[
            "inline",
            moved.to_str().unwrap(),
            &format!("--advice={}", advice.display()),
        ],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert!(
        r.stderr
            .contains("vm: advice: M:167 -> call_1: the program has no such call, skipped"),
        "{}",
        r.stderr
    );
    // Not with a policy.
    let r = vm(&[
        "inline",
        FIG1,
        "--policy=linear",
        &format!("--advice={}", advice.display()),
    ]);
    r.assert_status(2);
}

#[test]
fn suggest_and_gain_report_the_rejected_hot_site_and_the_cycles() {
    let r = timer_run(&["--suggest", "--gain"]);
    r.assert_status(0);
    let e = &r.stderr;
    let s = e
        .lines()
        .find(|l| l.trim_start().starts_with("1. M:170 -> call_2"))
        .unwrap_or_else(|| panic!("{e}"));
    assert!(
        s.contains("stopped by hot edge") && s.contains("--hot-edge-pct="),
        "{s}"
    );
    let g = e
        .lines()
        .find(|l| l.starts_with("vm: gain: cycles"))
        .unwrap();
    let nums: Vec<u64> = g
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    let before = vm(&["run", FIG1, "--cycles"]);
    assert_eq!(nums[0], cycles_of(&before.stderr), "{g}");
    assert!(nums[1] < nums[0], "{g}");
    assert!(e.contains("    call_1: 12000000 -> 0"), "{e}");
}

#[test]
fn bad_input_is_one_line_and_leaves_no_file() {
    let dir = harness::scratch("inline_explorer_bad");
    let fig1 = root().join(FIG1);
    let fig1 = fig1.to_str().unwrap();
    let one = |args: &[&str], status: i32, words: &str| {
        let r = run_vm_in(&dir, args, DEFAULT_TIMEOUT);
        r.assert_status(status);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(r.stderr.contains(words), "{}", r.stderr);
    };
    one(
        &["inline", fig1, "--compare=exhaustive,fast"],
        2,
        "`fast` is not a profile kind",
    );
    one(
        &["inline", fig1, "--compare=cbs"],
        2,
        "at least two profile kinds",
    );
    one(
        &["inline", fig1, "--compare=cbs,cbs"],
        2,
        "at least two profile kinds",
    );
    let nocall = harness::write_program(
        &dir,
        "nocall.bc",
        ".method main()\n  push 1\n  print\n  push 0\n  ret\n.end\n",
    );
    one(
        &["inline", nocall.to_str().unwrap(), "--compare=cbs,timer"],
        2,
        "has no call site",
    );
    one(
        &[
            "inline",
            fig1,
            "--log=no/such/dir/log.jsonl",
            "--emit=out.bc",
        ],
        66,
        "cannot write `no/such/dir/log.jsonl`",
    );
    one(
        &[
            "inline",
            fig1,
            "--compare=cbs,timer",
            "--log=no/such/dir/log.jsonl",
        ],
        66,
        "cannot write",
    );
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "nocall.bc")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

/// The `; inlined from CALLER:LINE -> CALLEE` marks of an emitted program.
fn region_marks(text: &str) -> Vec<(String, u64, String)> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("; inlined from "))
        .map(|rest| {
            let (site, callee) = rest.split_once(" -> ").unwrap();
            let (caller, line) = site.rsplit_once(':').unwrap();
            (
                caller.to_string(),
                line.parse().unwrap(),
                callee.to_string(),
            )
        })
        .collect()
}

#[test]
fn the_emitted_program_keeps_the_comments_and_marks_each_inlined_region() {
    let dir = harness::scratch("inline_annotate");
    for (program, extra) in [
        ("programs/bench/fib.bc", &["--inline-depth=2"][..]),
        ("programs/examples/classes.bc", &[][..]),
        (FIG1, &[][..]),
    ] {
        let emitted = dir.join("out.bc");
        let log = dir.join("out.jsonl");
        let mut a = vec![
            "inline".to_string(),
            program.to_string(),
            format!("--emit={}", emitted.display()),
            format!("--log={}", log.display()),
            "--tree".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let r = vm(&a);
        r.assert_status(0);
        let text = std::fs::read_to_string(&emitted).unwrap();
        let source = std::fs::read_to_string(root().join(program)).unwrap();
        // Every whole-line comment of the source is in the emitted text.
        for c in source.lines().map(str::trim).filter(|l| l.starts_with(';')) {
            assert!(text.contains(c), "{program}: lost comment {c:?}");
        }
        // Each region mark names a site the log says was inlined, once
        // per inlined record, and each has its end mark.
        let recs = lines_json(&std::fs::read_to_string(&log).unwrap());
        let mut inlined: Vec<(String, u64, String)> = recs[1..]
            .iter()
            .filter(|s| s["outcome"] == "inline" || s["outcome"] == "guarded")
            .map(|s| {
                (
                    s["caller"].as_str().unwrap().to_string(),
                    s["line"].as_u64().unwrap(),
                    s["callee"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let mut marks = region_marks(&text);
        assert!(!marks.is_empty(), "{program}: no region marked:\n{text}");
        inlined.sort();
        marks.sort();
        assert_eq!(marks, inlined, "{program}");
        let ends = text
            .lines()
            .filter(|l| l.trim().starts_with("; end of "))
            .count();
        assert_eq!(ends, marks.len(), "{program}");
        // The tree lists the same inlined copies.
        let tree: Vec<&str> = r
            .stderr
            .lines()
            .skip_while(|l| *l != "vm: inlining tree:")
            .filter(|l| l.contains(" <- "))
            .collect();
        assert_eq!(tree.len(), inlined.len(), "{program}:\n{}", r.stderr);
        // Still a program that prints what the original prints.
        let c = vm(&["check", emitted.to_str().unwrap()]);
        c.assert_status(0);
        let want = vm(&["run", program]);
        let got = vm(&["run", emitted.to_str().unwrap()]);
        assert_eq!(got.stdout, want.stdout, "{program}");
    }
}

/// The values of `attr="..."` on elements whose text starts with `class="CLASS`.
fn attrs_of(dom: &str, class_prefix: &str, attr: &str) -> Vec<String> {
    dom.match_indices(&format!("class=\"{class_prefix}"))
        .map(|(i, _)| {
            let tag = &dom[i..i + dom[i..].find('>').unwrap()];
            let key = format!("{attr}=\"");
            let start = tag
                .find(&key)
                .unwrap_or_else(|| panic!("no {attr} in {tag}"))
                + key.len();
            tag[start..start + tag[start..].find('"').unwrap()].to_string()
        })
        .collect()
}

/// The DOM of `url` after its script ran, in headless Chromium (checked
/// to have finished: `data-rendered="yes"`); `None`, with a note, if no
/// Chromium is installed.
fn dump_dom(dir: &Path, url: &str) -> Option<String> {
    let dom =
        crate::chromium::dump_dom(&dir.join("chromium-profile"), &[], url, "the inline page")?;
    assert!(
        dom.contains("data-rendered=\"yes\""),
        "the page's script did not finish: {url}"
    );
    Some(dom)
}

/// The (caller:line, callee) of the `site` records of `profile` (any
/// profile if `None`) that the log says were inlined.
fn inlined_in_log(recs: &[Value], profile: Option<&str>) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = recs
        .iter()
        .filter(|s| s["type"] == "site")
        .filter(|s| profile.is_none_or(|p| s["profile"] == p))
        .filter(|s| s["outcome"] == "inline" || s["outcome"] == "guarded")
        .map(|s| {
            (
                format!("{}:{}", s["caller"].as_str().unwrap(), s["line"]),
                s["callee"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The regions of the emitted column: (data-site, data-callee), sorted.
fn regions_of(dom: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = attrs_of(dom, "region", "data-site")
        .into_iter()
        .zip(attrs_of(dom, "region", "data-callee"))
        .collect();
    v.sort();
    v
}

#[test]
fn the_compare_page_switches_its_annotations_with_the_profile_selector() {
    let dir = harness::scratch("inline_compare_html");
    let Fig1Compare { run: r, page, log } = fig1_compare();
    assert!(r.stdout.contains("* M:170"), "{}", r.stdout);
    let text = std::fs::read_to_string(page).unwrap();
    for bad in ["<link", "src=\"http", "@import", "url(http"] {
        assert!(!text.contains(bad), "{bad} in the page");
    }
    let recs = lines_json(&std::fs::read_to_string(log).unwrap());
    let url = format!("file://{}", page.display());
    // Opened plain, the page shows the first profile; `#profile=timer`
    // makes its script set the selector and fire its change event.
    let Some(first) = dump_dom(&dir, &url) else {
        return;
    };
    let timer = dump_dom(&dir, &format!("{url}#profile=timer")).unwrap();
    assert_eq!(first.matches("<option").count(), 3, "{first}");
    assert!(first.contains("data-profile=\"exhaustive\""));
    assert!(
        timer.contains("data-profile=\"timer\""),
        "the selector did not switch"
    );
    // call_2 at M:170: inlined under the exhaustive profile, rejected
    // under the timer's, in the annotations of the source column.
    let call2 = "M:170".to_string();
    assert!(attrs_of(&first, "ann inline", "data-site").contains(&call2));
    assert!(!attrs_of(&first, "ann rejected", "data-site").contains(&call2));
    assert!(attrs_of(&timer, "ann rejected", "data-site").contains(&call2));
    assert!(!attrs_of(&timer, "ann inline", "data-site").contains(&call2));
    // The other columns switch too: each view's emitted regions are the
    // sites its profile's log records say were inlined.
    for (dom, profile) in [(&first, "exhaustive"), (&timer, "timer")] {
        let want = inlined_in_log(&recs, Some(profile));
        assert!(!want.is_empty());
        assert_eq!(regions_of(dom), want, "{profile}");
        let tree = &dom[dom.find("id=\"tree\"").unwrap()..dom.find("id=\"emitted\"").unwrap()];
        assert_eq!(
            tree.matches(" &lt;- ").count(),
            want.len(),
            "{profile}: {tree}"
        );
    }
    assert_ne!(regions_of(&first), regions_of(&timer));
    // The sites the profiles decide differently are marked, in every view:
    // the rows --compare's table stars.
    let starred: Vec<String> = r
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("* "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(starred, ["M:170"], "{}", r.stdout);
    for dom in [&first, &timer] {
        assert_eq!(differing_sites(dom), starred);
        assert!(
            dom.contains("the profiles decide 1 of 3 call sites differently"),
            "{dom}"
        );
    }
    // The timer's annotation of call_2 says what `--explain` says: the
    // rule that decided, its value and threshold, and the values that
    // would flip it.
    let explained = timer_run(&["--explain=M:170"]);
    explained.assert_status(0);
    let said = |prefix: &str| {
        explained
            .stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no `{prefix}`: {}", explained.stderr))
            .to_string()
    };
    let ann = annotation(&timer, "M:170");
    let decided = said("decided by: ");
    assert!(decided.starts_with("hot edge: ") && decided.contains("(--hot-edge-pct) no"));
    assert!(
        ann.contains(&text_of(&format!("decided by {decided}"))),
        "{ann}"
    );
    assert!(
        ann.contains(&text_of(&format!("to flip it: {}", said("to flip it: ")))),
        "{ann}"
    );
    assert!(ann.contains("all 2 rules, in order"), "{ann}");
    assert!(
        ann.contains("exhaustive 50.00% inline") && ann.contains("rejected"),
        "{ann}"
    );
    // The thresholds the run used head the page.
    assert!(
        timer.contains(
            "--inline-always=1 --inline-max-hot=119 --hot-edge-pct=25.00 --inline-depth=5"
        ),
        "{timer}"
    );
}

/// `s` as a text node of the DOM Chromium dumps (`<`, `>`, `&` escaped).
fn text_of(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The data-site of each annotation marked as decided differently by the
/// profiles, in page order.
fn differing_sites(dom: &str) -> Vec<String> {
    dom.match_indices("class=\"ann ")
        .map(|(i, _)| &dom[i..i + dom[i..].find('>').unwrap()])
        .filter(|tag| {
            tag.split('"')
                .nth(1)
                .unwrap()
                .split(' ')
                .any(|c| c == "differ")
        })
        .map(|tag| {
            let from = tag.find("data-site=\"").unwrap() + "data-site=\"".len();
            tag[from..from + tag[from..].find('"').unwrap()].to_string()
        })
        .collect()
}

/// The text of the annotation of `site` (its markup, up to the next
/// source line).
fn annotation<'a>(dom: &'a str, site: &str) -> &'a str {
    let at = dom
        .find(&format!("data-site=\"{site}\""))
        .unwrap_or_else(|| panic!("no annotation of {site}"));
    let rest = &dom[at..];
    &rest[..rest.find("<div class=\"line\"").unwrap_or(rest.len())]
}

#[test]
fn the_html_page_has_three_columns_that_agree_in_a_real_browser() {
    let dir = harness::scratch("inline_html");
    let page = dir.join("page.html");
    let log = dir.join("page.jsonl");
    let r = vm(&[
        "inline",
        "programs/bench/fib.bc",
        "--inline-depth=2",
        &format!("--html={}", page.display()),
        &format!("--log={}", log.display()),
    ]);
    r.assert_status(0);
    let text = std::fs::read_to_string(&page).unwrap();
    for bad in ["<link", "src=\"http", "@import", "url(http"] {
        assert!(!text.contains(bad), "{bad} in the page");
    }
    // An unwritable page: 66, one line, nothing left.
    let bad = run_vm_in(
        &dir,
        &[
            "inline",
            root().join(FIG1).to_str().unwrap(),
            "--html=no/such/dir/p.html",
        ],
        DEFAULT_TIMEOUT,
    );
    bad.assert_status(66);
    assert_eq!(bad.stderr.lines().count(), 1, "{}", bad.stderr);
    let Some(dom) = dump_dom(&dir, &format!("file://{}", page.display())) else {
        return;
    };
    for id in ["id=\"source\"", "id=\"tree\"", "id=\"emitted\""] {
        assert!(dom.contains(id), "{id} missing");
    }
    // Every region link of the emitted column goes to a call site whose
    // annotation in the source column (and whose log record) says inlined.
    let regions = attrs_of(&dom, "region", "data-site");
    let hrefs = attrs_of(&dom, "region", "href");
    let inlined_anns: Vec<String> = attrs_of(&dom, "ann inline", "data-site")
        .into_iter()
        .chain(attrs_of(&dom, "ann guarded", "data-site"))
        .collect();
    let recs = lines_json(&std::fs::read_to_string(&log).unwrap());
    let inlined_recs = recs[1..]
        .iter()
        .filter(|s| s["outcome"] == "inline" || s["outcome"] == "guarded")
        .count();
    assert_eq!(regions.len(), inlined_recs, "{regions:?}");
    assert!(!regions.is_empty());
    for (site, href) in regions.iter().zip(&hrefs) {
        assert!(
            inlined_anns.contains(site),
            "{site} is linked but not annotated as inlined"
        );
        let line = site.rsplit_once(':').unwrap().1;
        assert_eq!(href, &format!("#src-{line}"));
        assert!(
            dom.contains(&format!("id=\"src-{line}\"")),
            "no source line {line}"
        );
    }
    // The tree column lists the inlined copies.
    let tree = &dom[dom.find("id=\"tree\"").unwrap()..dom.find("id=\"emitted\"").unwrap()];
    assert_eq!(tree.matches(" &lt;- ").count(), inlined_recs, "{tree}");
    // Each call site written in a method says which rule decided it and
    // what would flip it; the page is of one run, so nothing is marked as
    // decided differently.
    let sites = recs[1..].iter().filter(|s| s["depth"] == 1).count();
    assert!(sites > 0);
    // (Counted in the drawn markup: the script, in the DOM too, holds the words.)
    let drawn = |text: &str| dom.matches(text).count();
    assert_eq!(drawn("<span class=\"rule\">decided by "), sites, "{dom}");
    assert_eq!(drawn("<span class=\"flip\">to flip it: "), sites, "{dom}");
    assert!(differing_sites(&dom).is_empty());
}
