//! `vm report` (docs/CLI.md "report", docs/REPORTS.md) through the real
//! binary, on real profiles of `programs/examples/arnold-grove-fig1.bc`
//! (exhaustive, timer, cbs, each with a calling-context tree, and a
//! DCG-only cbs one) and of a small recursive Fibonacci, all under
//! `--clock=virtual --seed=1` so that every sampled profile is the same on
//! every run.
//!
//! What is checked against what: the text report against `vm run
//! --report` (one implementation) and `vm compare` (the metrics); the
//! folded stacks, speedscope stacks and flame-graph boxes against the
//! `cct` of the profile they were made from (weights add up, every stack
//! is a path of the tree); the differential flame graph against the
//! paper's point (the timer over-weights `call_1`, under-weights
//! `call_2`); DOT by Graphviz itself and HTML by a headless Chromium when
//! they are installed (each test prints a note and checks the rest when
//! they are not).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

use crate::harness::{self, Run};

const AG: &str = "programs/examples/arnold-grove-fig1.bc";

/// A fib(16) that recurses from two call sites: a CCT of 1,973 contexts,
/// most of them tiny, to prune.
const FIB: &str = "\
.method main()
  push 16
  call fib
  print
  push 0
  ret
.end
.method fib(n)
  load n
  push 2
  jlt small
  load n
  push 1
  sub
  call fib
  load n
  push 2
  sub
  call fib
  add
  ret
small:
  load n
  ret
.end
";

/// The scratch directory holding the profiles, made once.
fn profiles() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = harness::scratch("report_profiles");
        let out = |name: &str| format!("--profile-out={}", dir.join(name).display());
        let runs: Vec<Vec<String>> = vec![
            vec![
                "--profile=exhaustive".into(),
                "--record=cct".into(),
                out("exact.json"),
            ],
            vec![
                "--profile=timer".into(),
                "--record=cct".into(),
                out("timer.json"),
            ],
            vec![
                "--profile=cbs".into(),
                "--record=cct".into(),
                out("cbs.json"),
            ],
            vec!["--profile=cbs".into(), out("dcg.json")],
        ];
        for extra in runs {
            let mut args: Vec<String> = vec!["run".into(), AG.into()];
            if !extra[0].contains("exhaustive") {
                args.extend(["--clock=virtual".into(), "--seed=1".into()]);
            }
            args.extend(extra);
            let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
            harness::vm(&args).assert_status(0);
        }
        harness::write_program(&dir, "fib.bc", FIB);
        harness::run_vm_in(
            &dir,
            &[
                "run",
                "fib.bc",
                "--profile=exhaustive",
                "--record=cct",
                "--profile-out=fib.json",
            ],
            harness::DEFAULT_TIMEOUT,
        )
        .assert_status(0);
        dir
    })
}

/// `vm report ARGS` run in the profiles' directory.
fn report(args: &[&str]) -> Run {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    let r = harness::run_vm_in(profiles(), &all, harness::DEFAULT_TIMEOUT);
    r.assert_no_crash();
    r
}

fn ok(args: &[&str]) -> String {
    let r = report(args);
    r.assert_status(0);
    r.stdout
}

fn json(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(profiles().join(name)).unwrap()).unwrap()
}

/// `path -> self` of every context of a profile's `cct` with self > 0, the
/// path its methods from the entry method down, `;`-joined (equal paths
/// summed).
fn cct_paths(p: &Value, weight: &str) -> BTreeMap<String, u64> {
    let mut path_of: HashMap<u64, String> = HashMap::new();
    let mut out = BTreeMap::new();
    for n in p["cct"].as_array().expect("a cct") {
        let id = n["id"].as_u64().unwrap();
        let Some(parent) = n["parent"].as_u64() else {
            path_of.insert(id, String::new());
            continue;
        };
        let above = &path_of[&parent];
        let method = n["method"].as_str().unwrap();
        let path = if above.is_empty() {
            method.to_string()
        } else {
            format!("{above};{method}")
        };
        let w = n[weight].as_u64().unwrap();
        if w > 0 {
            *out.entry(path.clone()).or_default() += w;
        }
        path_of.insert(id, path);
    }
    out
}

/// Lines `STACK N` summed by stack.
fn folded_lines(text: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let (stack, n) = line
            .rsplit_once(' ')
            .unwrap_or_else(|| panic!("bad line {line:?}"));
        *out.entry(stack.to_string()).or_default() += n.parse::<u64>().unwrap();
    }
    out
}

/// The one line of a failure: status, empty stdout, one stderr line that
/// contains every one of `words`.
fn fails(args: &[&str], status: i32, words: &[&str]) {
    let r = report(args);
    r.assert_status(status);
    assert_eq!(r.stdout, "", "`{}`", r.cmd);
    let line = r.stderr.trim_end();
    assert!(
        !line.is_empty() && !line.contains('\n'),
        "`{}`: expected one line, got:\n{}",
        r.cmd,
        r.stderr
    );
    for w in words {
        assert!(
            line.contains(w),
            "`{}`: {line:?} should mention {w:?}",
            r.cmd
        );
    }
}

#[test]
fn text_is_what_vm_run_report_prints() {
    for (kind, file) in [("timer", "timer.json"), ("cbs", "cbs.json")] {
        let run = harness::vm(&[
            "run",
            AG,
            &format!("--profile={kind}"),
            "--record=cct",
            "--clock=virtual",
            "--seed=1",
            "--report",
        ]);
        run.assert_status(0);
        let text = ok(&[file, "--format=text"]);
        assert!(
            text.starts_with("vm: programs/examples/arnold-grove-fig1.bc ("),
            "{text}"
        );
        assert_eq!(run.stderr, text, "{kind}");
        // text is the default format.
        assert_eq!(ok(&[file]), text);
    }
}

#[test]
fn text_against_adds_the_metrics_and_the_most_wrong_edges() {
    let plain = ok(&["timer.json"]);
    let text = ok(&["timer.json", "--against", "exact.json"]);
    assert!(text.starts_with(&plain), "the summary comes first:\n{text}");
    let compare = harness::run_vm_in(
        profiles(),
        &["compare", "timer.json", "exact.json"],
        harness::DEFAULT_TIMEOUT,
    );
    compare.assert_status(0);
    assert_eq!(compare.stdout.lines().count(), 4, "{}", compare.stdout);
    for line in compare.stdout.lines() {
        assert!(
            text.contains(&format!("\n  {line}\n")),
            "{line:?} missing:\n{text}"
        );
    }
    // The paper's point: a yieldpoint timer takes its samples at call_1's
    // prologue, so it over-weights M -> call_1 and under-weights M -> call_2,
    // whose exact shares are equal (50% each).
    let section = |title: &str| -> Vec<String> {
        let start = text
            .find(title)
            .unwrap_or_else(|| panic!("no {title:?}:\n{text}"));
        text[start..]
            .lines()
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(str::to_string)
            .collect()
    };
    let over = section("call edges the sample over-weights most");
    let under = section("call edges the sample under-weights most");
    assert!(
        over[0].contains("50.0%") && over[0].ends_with("\u{2192} call_1"),
        "{over:?}"
    );
    assert!(
        under[0].contains("50.0%") && under[0].ends_with("\u{2192} call_2"),
        "{under:?}"
    );
    assert!(over[0].contains(" +"), "{over:?}");
    assert!(under[0].contains(" -"), "{under:?}");
    let over = section("calling contexts the sample over-weights most");
    assert!(over[0].ends_with(" \u{2192} call_1"), "{over:?}");
    assert!(
        over[0].starts_with("  ") && over[0].contains("main:"),
        "{over:?}"
    );
}

/// The rows of the text report's section whose title starts with
/// `title`: the column names first, then one row per line indented by
/// two spaces, up to the next title.
fn rows<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    let start = text
        .find(&format!("\n{title}"))
        .unwrap_or_else(|| panic!("no section {title:?}:\n{text}"));
    text[start + 1..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect()
}

fn total(p: &Value, section: &str, key: &str) -> u64 {
    p[section]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x[key].as_u64().unwrap())
        .sum()
}

/// Every context of a profile's `cct` as the text report writes it, caller
/// first (`main:57 → M:167 → call_1`), with its `self`, its `calls` and
/// whether it is an entry context (a child of the root), in file order.
fn arrow_contexts(p: &Value) -> Vec<(String, u64, u64, bool)> {
    let nodes = p["cct"].as_array().expect("a cct");
    let root = nodes[0]["id"].as_u64().unwrap();
    // id -> (path of the parent's chain with the parent's method last, method)
    let mut path_of: HashMap<u64, String> = HashMap::new();
    let mut out = Vec::new();
    for n in nodes {
        let id = n["id"].as_u64().unwrap();
        let Some(parent) = n["parent"].as_u64() else {
            path_of.insert(id, String::new());
            continue;
        };
        let method = n["method"].as_str().unwrap();
        let above = &path_of[&parent];
        let path = match n["line"].as_u64() {
            Some(l) if !above.is_empty() => format!("{above}:{l} \u{2192} {method}"),
            _ if !above.is_empty() => format!("{above} \u{2192} {method}"),
            _ => method.to_string(),
        };
        out.push((
            path.clone(),
            n["self"].as_u64().unwrap(),
            n["calls"].as_u64().unwrap(),
            parent == root,
        ));
        path_of.insert(id, path);
    }
    out
}

#[test]
fn text_says_what_every_number_counts() {
    for file in ["timer.json", "cbs.json"] {
        let p = json(file);
        let text = ok(&[file]);
        let taken = p["run"]["samples"].as_u64().unwrap();
        let method = total(&p, "methods", "self");
        let edge = total(&p, "dcg", "weight");
        // The samples taken are not the method samples (cbs takes edge
        // samples in bursts), and the report says which counts what.
        assert!(
            method > 0 && edge > 0 && (method != taken || edge != taken),
            "{file}"
        );
        assert!(
            text.contains(&format!(
                "\n    {taken} samples taken: {method} method samples (they count self) and \
                 {edge} edge samples (they count calls and call-edge weights), counted apart\n"
            )),
            "{file}:\n{text}"
        );
        let methods = rows(
            &text,
            "hot methods (self: method samples with the method on top; sampled calls: edge \
             samples into it, not all its calls):",
        );
        assert_eq!(
            methods[0].split_whitespace().collect::<Vec<_>>(),
            ["share", "\u{b1}s.e.", "self", "sampled", "calls", "method"],
            "{file}"
        );
        // Each row is the method's share of the method samples, its
        // standard error, its self and its sampled calls, as in the file.
        for row in &methods[1..] {
            let cols: Vec<&str> = row.split_whitespace().collect();
            let m = p["methods"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["name"] == cols[4])
                .unwrap_or_else(|| panic!("{row}"));
            let own = m["self"].as_u64().unwrap();
            assert_eq!(cols[2], own.to_string(), "{row}");
            assert_eq!(cols[3], m["calls"].as_u64().unwrap().to_string(), "{row}");
            let share = own as f64 / method as f64;
            assert_eq!(cols[0], format!("{:.1}%", 100.0 * share), "{row}");
            let se = 100.0 * (share * (1.0 - share) / method as f64).sqrt();
            assert_eq!(cols[1], format!("{se:.1}"), "{row}");
        }
        assert!(text.contains(
            "call edges (caller:line \u{2192} callee; weight: edge samples of the call):"
        ));
    }
    let p = json("exact.json");
    let text = ok(&["exact.json"]);
    assert!(
        text.contains(&format!(
            "\n    exact: every call counted ({} calls traced); self counts the instructions \
             executed\n",
            p["run"]["samples"]
        )),
        "{text}"
    );
    let methods = rows(
        &text,
        "hot methods (self: instructions executed in the method; calls:",
    );
    assert_eq!(
        methods[0].split_whitespace().collect::<Vec<_>>(),
        ["share", "self", "calls", "method"]
    );
    assert!(
        !text.contains("\u{b1}s.e."),
        "no sampling error column:\n{text}"
    );
    assert!(
        text.contains("weight: calls made at the call site"),
        "{text}"
    );
}

#[test]
fn text_writes_call_sites_caller_first() {
    for file in ["timer.json", "exact.json", "fib.json"] {
        let p = json(file);
        let text = ok(&[file]);
        let edges = rows(&text, "call edges (caller:line");
        let mut dcg: Vec<&Value> = p["dcg"].as_array().unwrap().iter().collect();
        dcg.sort_by_key(|e| std::cmp::Reverse(e["weight"].as_u64().unwrap()));
        assert_eq!(edges.len() - 1, dcg.len().min(10), "{file}:\n{text}");
        for (row, e) in edges[1..].iter().zip(dcg) {
            let site = format!(
                "{}:{} \u{2192} {}",
                e["caller"].as_str().unwrap(),
                e["line"],
                e["callee"].as_str().unwrap()
            );
            assert!(
                row.ends_with(&format!("  {site}")),
                "{file}: {row:?} is not {site}"
            );
            assert!(
                row.contains(&format!("  {}  ", e["weight"])),
                "{file}: {row}"
            );
        }
        // The old forms are gone: `M (48) > A (57)` and `M (line 48) -> A`.
        for old in [" > ", "(line ", " -> "] {
            assert!(!text.contains(old), "{file}: {old:?} in\n{text}");
        }
    }
}

/// `vm run --report` with each calling-context record shows the hottest
/// contexts by self and by calls, caller first, the same as `vm report`
/// makes of the profile written by that run.
#[test]
fn text_shows_the_contexts_of_every_record() {
    let dir = harness::scratch("report_records");
    for record in ["cct", "pcct", "acct", "ccmap"] {
        let out = dir.join(format!("{record}.json"));
        let run = harness::vm(&[
            "run",
            AG,
            "--profile=cbs",
            "--clock=virtual",
            "--seed=7",
            &format!("--record={record}"),
            "--report",
            &format!("--profile-out={}", out.display()),
        ]);
        run.assert_status(0);
        let text = &run.stderr;
        let p: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let contexts = arrow_contexts(&p);
        let total_self: u64 = contexts.iter().map(|c| c.1).sum();
        let total_calls: u64 = contexts.iter().filter(|c| !c.3).map(|c| c.2).sum();
        // The hottest first (the first of equals, as the file lists them;
        // the PCCT's hot list keeps the order its counts were reached).
        let by_self = rows(text, &format!("contexts by self ({record}"));
        assert_eq!(
            by_self[0].split_whitespace().collect::<Vec<_>>(),
            ["share", "self", "context"],
            "{record}"
        );
        let max_self = contexts.iter().map(|c| c.1).max().unwrap();
        let row = by_self[1];
        assert!(
            contexts
                .iter()
                .any(|c| c.1 == max_self && row.ends_with(&format!("  {}", c.0))),
            "{record}: {row:?}, hottest self {max_self}:\n{text}"
        );
        assert!(row.trim_start().starts_with(&format!(
            "{:.1}%  ",
            100.0 * max_self as f64 / total_self as f64
        )));
        let by_calls = rows(text, &format!("contexts by calls ({record}"));
        let max_calls = contexts.iter().filter(|c| !c.3).map(|c| c.2).max().unwrap();
        let row = by_calls[1];
        assert!(
            contexts
                .iter()
                .any(|c| !c.3 && c.2 == max_calls && row.ends_with(&format!("  {}", c.0))),
            "{record}: {row:?}, hottest calls {max_calls}:\n{text}"
        );
        assert!(row.trim_start().starts_with(&format!(
            "{:.1}%  ",
            100.0 * max_calls as f64 / total_calls as f64
        )));
        // Every row names a context of the tree, caller first.
        for row in by_self[1..].iter().chain(&by_calls[1..]) {
            assert!(
                contexts
                    .iter()
                    .any(|c| row.ends_with(&format!("  {}", c.0))),
                "{record}: {row:?}"
            );
        }
        assert!(by_self.len() > 2 && by_calls.len() > 2, "{record}:\n{text}");
        let from_file = harness::run_vm_in(
            &dir,
            &["report", &format!("{record}.json")],
            harness::DEFAULT_TIMEOUT,
        );
        from_file.assert_status(0);
        assert_eq!(&from_file.stdout, text, "{record}");
    }
}

#[test]
fn text_gives_each_sampled_profile_a_confidence_line() {
    for file in ["timer.json", "cbs.json"] {
        let p = json(file);
        let text = ok(&[file]);
        let line = text
            .lines()
            .find(|l| l.starts_with("confidence: "))
            .unwrap_or_else(|| panic!("{file}: no confidence line:\n{text}"));
        let dcg = p["dcg"].as_array().unwrap();
        assert!(
            line.starts_with(&format!(
                "confidence: {} samples taken, {} distinct call edges seen; ",
                p["run"]["samples"],
                dcg.len()
            )),
            "{file}: {line}"
        );
        // The top method's and the top edge's shares, each with its
        // standard error sqrt(p(1-p)/n), n its kind of samples.
        let n = total(&p, "methods", "self");
        let m = p["methods"]
            .as_array()
            .unwrap()
            .iter()
            .max_by_key(|m| m["self"].as_u64().unwrap())
            .unwrap();
        let share = m["self"].as_u64().unwrap() as f64 / n as f64;
        let se = 100.0 * (share * (1.0 - share) / n as f64).sqrt();
        assert!(
            se > 0.5,
            "{file}: a standard error this test can tell from 0"
        );
        let want = format!(
            "method {} {:.1}% \u{b1}{se:.1} (n = {n})",
            m["name"].as_str().unwrap(),
            100.0 * share
        );
        assert!(line.contains(&want), "{file}: {line} lacks {want}");
        let n = total(&p, "dcg", "weight");
        let e = dcg
            .iter()
            .max_by_key(|e| e["weight"].as_u64().unwrap())
            .unwrap();
        let share = e["weight"].as_u64().unwrap() as f64 / n as f64;
        let se = 100.0 * (share * (1.0 - share) / n as f64).sqrt();
        assert!(
            line.contains(&format!("{:.1}% \u{b1}{se:.1} (n = {n})", 100.0 * share)),
            "{file}: {line}"
        );
        assert!(line.contains("sqrt(p(1-p)/n)"), "{line}");
    }
    assert!(ok(&["exact.json"])
        .contains("\nconfidence: exact (every call and instruction counted), no sampling error\n"));
}

/// `vm run --report=FORMAT` prints text, folded or dot on stderr, as
/// `vm report` makes them of the profile the run wrote; the formats for a
/// browser are refused before the program runs, naming `vm report`.
#[test]
fn run_report_prints_the_terminal_formats_and_refuses_the_others() {
    let dir = harness::scratch("report_run_formats");
    let out = dir.join("p.json");
    let out_arg = format!("--profile-out={}", out.display());
    let base = [
        "run",
        AG,
        "--profile=timer",
        "--clock=virtual",
        "--seed=1",
        "--record=cct",
        &out_arg,
    ];
    let run = |extra: &[&str]| harness::vm(&[&base[..], extra].concat());
    let plain = run(&[]);
    plain.assert_status(0);
    assert!(!plain.stdout.is_empty());
    for format in ["text", "folded", "dot"] {
        let r = run(&[&format!("--report={format}")]);
        r.assert_status(0);
        assert_eq!(r.stdout, plain.stdout, "{format}: the program's output");
        let from_file = harness::run_vm_in(
            &dir,
            &["report", "p.json", &format!("--format={format}")],
            harness::DEFAULT_TIMEOUT,
        );
        from_file.assert_status(0);
        assert_eq!(r.stderr, from_file.stdout, "{format}");
    }
    assert!(run(&["--report=folded"]).stderr.contains("main;M;call_1 "));
    assert!(run(&["--report=dot"]).stderr.starts_with("digraph"));
    // --report alone is text.
    let text = run(&["--report"]);
    assert_eq!(text.stderr, run(&["--report=text"]).stderr);
    assert!(text
        .stderr
        .starts_with("vm: programs/examples/arnold-grove-fig1.bc ("));
    for format in ["flamegraph", "speedscope", "html"] {
        let r = run(&[&format!("--report={format}")]);
        r.assert_status(2);
        assert_eq!(r.stdout, "", "{format}: the program must not run");
        let line = r.stderr.trim_end();
        assert!(!line.contains('\n'), "{format}: one line:\n{line}");
        for w in [
            "for a browser",
            "vm report",
            &format!("--format={format}"),
            "--profile-out",
        ] {
            assert!(line.contains(w), "{format}: {line:?} should mention {w:?}");
        }
    }
    // folded needs a calling-context record.
    let r = harness::vm(&[
        "run",
        AG,
        "--profile=timer",
        "--clock=virtual",
        "--report=folded",
    ]);
    r.assert_status(2);
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("--record=cct"), "{}", r.stderr);
    let r = harness::vm(&["run", AG, "--profile=timer", "--report=pdf"]);
    r.assert_status(2);
}

#[test]
fn folded_has_one_line_per_context_weighted_by_self() {
    for file in ["timer.json", "exact.json", "fib.json"] {
        let text = ok(&[file, "--format=folded"]);
        let lines = folded_lines(&text);
        let expected = cct_paths(&json(file), "self");
        assert_eq!(lines, expected, "{file}");
        assert!(text.lines().all(|l| l.starts_with("main")), "{file}");
    }
    let text = ok(&["timer.json", "--format=folded"]);
    let m = folded_lines(&text);
    assert!(
        m.contains_key("main;M;call_1") && m.contains_key("main;M;call_2"),
        "{text}"
    );
}

#[test]
fn a_dcg_only_profile_is_told_which_record_gives_contexts() {
    for format in ["folded", "flamegraph", "speedscope"] {
        fails(
            &["dcg.json", &format!("--format={format}")],
            2,
            &[
                "dcg.json",
                "no calling-context tree",
                "--record=cct",
                &format!("--format={format}"),
            ],
        );
    }
    fails(
        &["dcg.json", "--format=dot", "--tree"],
        2,
        &["--record=cct"],
    );
    // The formats that do not need one work.
    assert!(ok(&["dcg.json", "--format=dot"]).starts_with("digraph"));
    assert!(ok(&["dcg.json"]).contains("call edges"));
}

#[test]
fn output_goes_to_the_file_named_by_o() {
    let dir = harness::scratch("report_output");
    for format in ["text", "folded", "flamegraph", "dot", "speedscope", "html"] {
        let out = dir.join(format!("out.{format}"));
        let out_arg = out.display().to_string();
        let r = report(&["timer.json", &format!("--format={format}"), "-o", &out_arg]);
        r.assert_status(0);
        assert_eq!(r.stdout, "", "{format}");
        let written = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            written,
            ok(&["timer.json", &format!("--format={format}")]),
            "{format}"
        );
        assert!(!written.is_empty());
    }
    fails(
        &["timer.json", "-o", "/nonexistent-dir/x.txt"],
        66,
        &["cannot write", "/nonexistent-dir/x.txt"],
    );
}

#[test]
fn bad_inputs_get_one_clear_line_and_compare_s_status() {
    let dir = profiles();
    let exact = std::fs::read_to_string(dir.join("exact.json")).unwrap();
    std::fs::write(dir.join("notjson.json"), "fib: 3\n").unwrap();
    std::fs::write(dir.join("array.json"), "[1, 2]").unwrap();
    std::fs::write(
        dir.join("newer.json"),
        exact.replace("vm-profile/1", "vm-profile/7"),
    )
    .unwrap();
    fails(&["notjson.json"], 65, &["notjson.json", "not JSON"]);
    fails(&["array.json"], 65, &["array.json", "not a profile"]);
    fails(&["newer.json"], 65, &["vm-profile/7", "newer"]);
    fails(&["missing.json"], 66, &["missing.json", "no such file"]);
    fails(
        &["timer.json", "--against", "missing.json"],
        66,
        &["missing.json"],
    );
    fails(
        &["timer.json", "--against", "notjson.json"],
        65,
        &["notjson.json"],
    );
    // Usage errors.
    let r = report(&["timer.json", "--format=pdf"]);
    r.assert_status(2);
    assert!(
        r.stderr.contains("pdf") && r.stderr.contains("flamegraph"),
        "{}",
        r.stderr
    );
    fails(
        &["timer.json", "--against", "fib.json"],
        2,
        &["same program", "fib.bc", "arnold-grove-fig1.bc"],
    );
    fails(&["timer.json", "cbs.json"], 2, &["speedscope"]);
    fails(&["timer.json", "--tree"], 2, &["--tree", "dot"]);
    fails(
        &["timer.json", "--format=folded", "--against", "exact.json"],
        2,
        &["--against"],
    );
    let r = report(&["timer.json", "--min-percent=101"]);
    r.assert_status(2);
}

/// Each box of an inferno SVG: (function name, title text, fill).
fn boxes(svg: &str) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for part in svg.split("<g><title>").skip(1) {
        let title = &part[..part.find("</title>").unwrap()];
        let name = title[..title.rfind(" (").unwrap()].to_string();
        let fill = part
            .split("fill=\"")
            .nth(1)
            .map(|f| f[..f.find('"').unwrap()].to_string())
            .unwrap_or_default();
        out.push((name, title.to_string(), fill));
    }
    out
}

fn rgb(fill: &str) -> (u32, u32, u32) {
    let inner = fill.trim_start_matches("rgb(").trim_end_matches(')');
    let v: Vec<u32> = inner
        .split(',')
        .map(|x| x.trim().parse().unwrap())
        .collect();
    (v[0], v[1], v[2])
}

#[test]
fn flamegraph_draws_every_context_of_the_tree() {
    let svg = ok(&["exact.json", "--format=flamegraph"]);
    assert!(
        svg.starts_with("<?xml") && svg.contains("<svg"),
        "{}",
        &svg[..200]
    );
    assert!(
        svg.contains("<script"),
        "the standalone graph keeps inferno's search and zoom"
    );
    let b = boxes(&svg);
    let names: Vec<&str> = b.iter().map(|x| x.0.as_str()).collect();
    for m in ["all", "main", "M", "call_1", "call_2"] {
        assert!(names.contains(&m), "{m} missing: {names:?}");
    }
    // call_1's box carries its self weight from the profile.
    let expected = cct_paths(&json("exact.json"), "self")["main;M;call_1"];
    let title = &b.iter().find(|x| x.0 == "call_1").unwrap().1;
    let shown: String = expected.to_string();
    let count = title[title.rfind(" (").unwrap() + 2..]
        .split(' ')
        .next()
        .unwrap();
    assert!(
        count.replace(',', "") == shown,
        "{title} should show {expected} (commas aside)"
    );
}

#[test]
fn the_differential_flamegraph_shows_the_timer_bias() {
    let svg = ok(&[
        "timer.json",
        "--against",
        "exact.json",
        "--format=flamegraph",
    ]);
    let b = boxes(&svg);
    let fill = |name: &str| {
        rgb(&b
            .iter()
            .find(|x| x.0 == name)
            .unwrap_or_else(|| panic!("{name}"))
            .2)
    };
    let (r1, _, b1) = fill("call_1");
    let (r2, _, b2) = fill("call_2");
    assert!(
        r1 > b1,
        "call_1 over-weighted: red, got {:?}",
        fill("call_1")
    );
    assert!(
        b2 > r2,
        "call_2 under-weighted: blue, got {:?}",
        fill("call_2")
    );
    let title = &b.iter().find(|x| x.0 == "call_1").unwrap().1;
    assert!(title.contains("; +"), "{title}");
    // A plain graph of the same profile has no such signs.
    let plain = ok(&["timer.json", "--format=flamegraph"]);
    assert!(!boxes(&plain).iter().any(|x| x.1.contains("; +")));
}

/// The difference a differential box's title gives (`...; +7.90%)`), in
/// points of share.
fn difference(title: &str) -> Option<f64> {
    title.rsplit_once("; ")?.1.strip_suffix("%)")?.parse().ok()
}

/// How deep a differential box's colour is: 0 for white, up to 150 (the
/// palest channel's distance from 250).
fn depth(fill: &str) -> u32 {
    let (r, g, b) = rgb(fill);
    250u32.saturating_sub(r.min(g).min(b))
}

#[test]
fn differential_flamegraphs_share_one_colour_scale_with_a_legend() {
    // The timer is off by many points, cbs by few: on one absolute scale
    // cbs's boxes are paler, and a box's colour follows its difference
    // alone, the same in both graphs (inferno scaled each graph to its
    // own largest difference, so both had a box of the deepest colour).
    let mut seen: Vec<(f64, u32)> = Vec::new();
    let mut deepest = Vec::new();
    for sample in ["timer.json", "cbs.json"] {
        let svg = ok(&[sample, "--against", "exact.json", "--format=flamegraph"]);
        assert!(
            svg.contains("<g id=\"legend\">") && svg.contains("in points"),
            "{sample}: no legend"
        );
        let mut most = 0;
        for (name, title, fill) in boxes(&svg) {
            let Some(d) = difference(&title) else {
                continue;
            };
            let deep = depth(&fill);
            assert!(
                d != 0.0 || deep == 0,
                "{sample}: {name} off by nothing drawn {fill}"
            );
            seen.push((d.abs(), deep));
            most = most.max(deep);
        }
        deepest.push(most);
    }
    // Depth never falls as the difference grows, across both graphs.
    seen.sort_by(|a, b| a.0.total_cmp(&b.0));
    for w in seen.windows(2) {
        assert!(w[0].1 <= w[1].1, "a larger difference drawn paler: {w:?}");
    }
    assert!(
        deepest[1] < deepest[0],
        "cbs's worst box as deep as the timer's: {deepest:?}"
    );
}

#[test]
fn pruning_folds_small_contexts_into_other_and_keeps_the_weight() {
    let p = json("fib.json");
    let contexts = p["cct"].as_array().unwrap().len();
    assert!(contexts > 1500, "{contexts}");
    let total: u64 = cct_paths(&p, "self").values().sum();
    let count = |svg: &str| boxes(svg).len();
    let pruned = ok(&["fib.json", "--format=flamegraph"]);
    let b = boxes(&pruned);
    assert!(b.iter().any(|x| x.0 == "(other)"), "no (other) box");
    assert!(
        count(&pruned) < contexts / 4,
        "{} boxes of {contexts}",
        count(&pruned)
    );
    // The root box still holds the whole weight.
    let all = &b.iter().find(|x| x.0 == "all").unwrap().1;
    let digits: String = all
        .chars()
        .take_while(|c| *c != 'i')
        .filter(|c| c.is_ascii_digit())
        .collect();
    assert_eq!(digits, total.to_string(), "{all}");
    // A larger cut draws fewer boxes, 0 draws every context with weight.
    let coarse = ok(&["fib.json", "--format=flamegraph", "--min-percent=5"]);
    assert!(count(&coarse) < count(&pruned));
    let full = ok(&["fib.json", "--format=flamegraph", "--min-percent=0"]);
    assert!(!boxes(&full).iter().any(|x| x.0 == "(other)"));
}

/// Checks the speedscope file-format schema's required fields, and that
/// every stack indexes existing frames; returns the profiles.
fn check_speedscope(doc: &Value) -> Vec<Value> {
    assert_eq!(
        doc["$schema"],
        "https://www.speedscope.app/file-format-schema.json"
    );
    let frames = doc["shared"]["frames"].as_array().expect("shared.frames");
    assert!(!frames.is_empty());
    for f in frames {
        assert!(f["name"].is_string(), "{f}");
        assert!(f["file"].is_string(), "{f}");
        assert!(f.get("line").is_none() || f["line"].is_u64(), "{f}");
    }
    let profiles = doc["profiles"].as_array().expect("profiles").clone();
    for p in &profiles {
        assert_eq!(p["type"], "sampled");
        assert!(p["name"].is_string());
        assert!(p["unit"].is_string());
        let samples = p["samples"].as_array().unwrap();
        let weights = p["weights"].as_array().unwrap();
        assert_eq!(samples.len(), weights.len());
        let mut sum = 0;
        for (s, w) in samples.iter().zip(weights) {
            let w = w.as_u64().unwrap();
            assert!(w > 0, "zero weight");
            sum += w;
            let s = s.as_array().unwrap();
            assert!(!s.is_empty());
            for i in s {
                assert!(
                    (i.as_u64().unwrap() as usize) < frames.len(),
                    "frame {i} of {}",
                    frames.len()
                );
            }
        }
        assert_eq!(p["startValue"], 0);
        assert_eq!(p["endValue"].as_u64(), Some(sum));
    }
    profiles
}

#[test]
fn speedscope_puts_several_profiles_in_one_file() {
    // Unpruned, to compare with every context.
    let text = ok(&[
        "timer.json",
        "cbs.json",
        "exact.json",
        "--format=speedscope",
        "--min-percent=0",
    ]);
    let doc: Value = serde_json::from_str(&text).unwrap();
    let profiles = check_speedscope(&doc);
    assert_eq!(profiles.len(), 3);
    let frames = doc["shared"]["frames"].as_array().unwrap();
    for (p, file) in profiles
        .iter()
        .zip(["timer.json", "cbs.json", "exact.json"])
    {
        assert!(
            p["name"].as_str().unwrap().starts_with(file),
            "{}",
            p["name"]
        );
        // Stacks root first, as the cct's paths with their self weights.
        let mut got: BTreeMap<String, u64> = BTreeMap::new();
        for (s, w) in p["samples"]
            .as_array()
            .unwrap()
            .iter()
            .zip(p["weights"].as_array().unwrap())
        {
            let names: Vec<&str> = s
                .as_array()
                .unwrap()
                .iter()
                .map(|i| {
                    frames[i.as_u64().unwrap() as usize]["name"]
                        .as_str()
                        .unwrap()
                })
                .collect();
            *got.entry(names.join(";")).or_default() += w.as_u64().unwrap();
        }
        assert_eq!(got, cct_paths(&json(file), "self"), "{file}");
    }
    // One frame per method: `main` is one root frame, not one per line it
    // calls from (speedscope totals by frame).
    let mut names: Vec<&str> = frames.iter().map(|f| f["name"].as_str().unwrap()).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(
        names.len(),
        before,
        "a method in several frames: {frames:?}"
    );
    assert!(names.contains(&"main") && names.contains(&"M"));
    // Pruned at 1%: fib's tree of thousands becomes a few stacks.
    let doc: Value =
        serde_json::from_str(&ok(&["fib.json", "--format=speedscope", "--min-percent=1"])).unwrap();
    let fib = check_speedscope(&doc);
    let n = fib[0]["samples"].as_array().unwrap().len();
    assert!(n < 500, "{n} stacks");
}

fn graphviz(dot: &str, name: &str) {
    let dir = harness::scratch(name);
    let input = dir.join("in.dot");
    std::fs::write(&input, dot).unwrap();
    match Command::new("dot").arg("-Tsvg").arg(&input).output() {
        Err(_) => {
            eprintln!("note: `dot` (Debian package graphviz) is not installed: DOT not rendered")
        }
        Ok(o) => {
            assert!(
                o.status.success(),
                "dot -Tsvg failed: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let svg = String::from_utf8_lossy(&o.stdout);
            assert!(svg.contains("<svg"), "{svg}");
            assert!(
                o.stderr.is_empty(),
                "dot warned: {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
    }
}

#[test]
fn dot_draws_the_call_graph_and_the_tree() {
    let dot = ok(&["exact.json", "--format=dot"]);
    assert!(dot.starts_with("digraph"));
    let p = json("exact.json");
    for e in p["dcg"].as_array().unwrap() {
        let caller = e["caller"].as_str().unwrap();
        let callee = e["callee"].as_str().unwrap();
        let line = format!(
            "\"{caller}\" -> \"{callee}\" [label=\"    line {}\\l    {} (",
            e["line"], e["weight"]
        );
        assert!(dot.contains(&line), "{line} missing:\n{dot}");
    }
    assert!(dot.contains("\"M\" [label=\"M\\nself "), "{dot}");
    assert!(
        dot.contains("penwidth=8.00"),
        "the heaviest edge is widest:\n{dot}"
    );
    graphviz(&dot, "report_dot_dcg");
    // The tree's edges: the label gives the calls, and the pen's width
    // follows them (the widest edge has the most calls).
    let small = ok(&["exact.json", "--format=dot", "--tree"]);
    let edges: Vec<(u64, f64)> = small
        .lines()
        .filter(|l| l.contains(" -> "))
        .map(|l| {
            let calls = l
                .split(" calls")
                .next()
                .and_then(|h| h.rsplit(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no calls in {l}"));
            let width = l.split("penwidth=").nth(1).unwrap();
            let width: f64 = width[..width.find(']').unwrap()].parse().unwrap();
            (calls, width)
        })
        .collect();
    assert!(edges.len() >= 4, "{small}");
    for a in &edges {
        for b in &edges {
            assert!(
                (a.0 < b.0) == (a.1 < b.1),
                "width not by calls: {a:?} {b:?}\n{small}"
            );
        }
    }
    assert!(
        small.contains("label=\"    line 167\\l    1500000 calls\\l\""),
        "{small}"
    );
    graphviz(&small, "report_dot_small_tree");
    let tree = ok(&["fib.json", "--format=dot", "--tree", "--min-percent=1"]);
    assert!(tree.contains("(other)"), "pruned");
    assert!(
        tree.lines().count() < 1000,
        "{} lines",
        tree.lines().count()
    );
    graphviz(&tree, "report_dot_tree");
}

#[test]
fn html_is_one_self_contained_page() {
    let page = ok(&["timer.json", "--against", "exact.json", "--format=html"]);
    assert!(page.starts_with("<!DOCTYPE html>"));
    for needle in [
        "id=\"methods\"",
        "id=\"metrics\"",
        "id=\"flame\"",
        "id=\"diff-flame\"",
        "dcg-overlap",
        "<svg",
    ] {
        assert!(page.contains(needle), "{needle} missing");
    }
    // Nothing fetched: no external script, style, image or frame.
    for bad in ["<link", "src=\"http", "src='http", "@import", "url(http"] {
        assert!(!page.contains(bad), "{bad} in the page");
    }
    chromium_check(&page);
}

/// Renders the page in headless Chromium and checks the DOM after the
/// page's script ran: the hot methods table it builds, the metrics, the
/// flame graphs.
fn chromium_check(page: &str) {
    let Some(browser) = crate::chromium::browser() else {
        eprintln!("note: chromium is not installed: the HTML report was not rendered");
        return;
    };
    let dir = harness::scratch("report_html");
    let file = dir.join("report.html");
    std::fs::write(&file, page).unwrap();
    let url = format!("file://{}", file.display());
    // The page's console messages go to stderr, as `...:CONSOLE...`.
    let out = crate::chromium::run(
        browser,
        &dir.join("chromium-profile"),
        &["--enable-logging=stderr", "--v=0", "--dump-dom"],
        &url,
    );
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("data-rendered=\"yes\""),
        "the page's script did not finish"
    );
    // No script error: inferno's `onload="init(evt)"` kept on a graph
    // whose script was left out logged `init is not defined`.
    let log = String::from_utf8_lossy(&out.stderr);
    let errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(":CONSOLE") && (l.contains("Uncaught") || l.contains("Error")))
        .collect();
    assert!(errors.is_empty(), "the page logs errors:\n{errors:#?}");
    for m in ["M", "call_1", "call_2"] {
        assert!(
            dom.contains(&format!("<tr class=\"method\"><td class=\"\">{m}</td>")),
            "hot method {m} not in the rendered table"
        );
    }
    assert!(dom.contains("<th>dcg-overlap</th>"));
    assert!(
        dom.contains("<svg") && dom.contains("call_1 ("),
        "flame graph missing"
    );
    // A screenshot of a blank 1200x1600 page is 9 KB, of a heading and a
    // line of text 12 KB (measured with Debian's chromium 2026); the
    // report's tables, bars and flame graphs make it far larger.
    let shot = dir.join("report.png");
    let screenshot = format!("--screenshot={}", shot.display());
    crate::chromium::run(
        browser,
        &dir.join("chromium-shot"),
        &["--hide-scrollbars", "--window-size=1200,1600", &screenshot],
        &url,
    );
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "not a PNG");
    assert!(
        png.len() > 40_000,
        "the screenshot looks blank: {} bytes",
        png.len()
    );
}
