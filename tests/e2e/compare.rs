//! `vm compare PROFILE.json REF.json [--json]` (docs/CLI.md and docs/LANGUAGE.md),
//! through the real binary, on the hand-made profiles of
//! `tests/programs/compare/`.
//!
//! The worked examples (every value worked out by hand from docs/LANGUAGE.md "Accuracy metrics"):
//!
//! `sample.json` against `exact.json`:
//!
//! - dcg-overlap. sample (total 200): main:5->f 100 = 50%, main:6->g 60 =
//!   30%, f:9->g 40 = 20%. exact (total 100): main:5->f 40%, main:6->g 50%,
//!   main:7->f 10% (same caller and callee as main:5->f, another call site:
//!   another edge). In both: min(50, 40) + min(30, 50) = 40 + 30 = **70**.
//! - cct-overlap. sample (calls, total 10): main 1 = 10%; main>f@5 twice,
//!   3 + 1 = 4 = 40% (the same path: one context); main>f@5>g@9 3 = 30%;
//!   main>g@6 2 = 20%. exact (total 20): main 2 = 10%, main>f@5 8 = 40%,
//!   main>f@5>g@9 6 = 30%, main>f@7 4 = 20%. Overlap 10 + 40 + 30 = **80**.
//! - method-correlation. Union main, f, g, h; sample self (4, 2, 0, 2),
//!   mean 2, deviations (2, 0, -2, 0); exact (40, 20, 20, 0), mean 20,
//!   deviations (20, 0, 0, -20). r = 40 / sqrt(8 × 800) = 40 / 80 =
//!   **0.50**.
//! - hot-edge-coverage. exact's hottest context has 8 calls, the bar 0.8,
//!   so all four are hot; sample lacks main>f@7: 3 of 4 = **75**. (The
//!   other way round, all of sample's four are hot too and exact lacks
//!   main>g@6: 75 again; the other three are symmetric.)
//!
//! `hot_profile.json` against `hot_ref.json` (no `dcg`, no `methods`: only
//! the two context metrics are printed):
//!
//! - hot-edge-coverage. hot_ref: main 1, main>f@5 50 (the hottest),
//!   main>f@5>g@9 5 (exactly 0.1 × 50: hot), main>h@3 4 (below 5: not
//!   hot), main>h@3>g@9 20, main>k@8 10. Hot: f@5, f@5>g@9, h@3>g@9, k@8.
//!   hot_profile lists main>f@5 with 0 calls (still present),
//!   main>f@5>g@9, main>h@3 and main>g@9 (not under h@3): 2 of 4 = **50**.
//! - cct-overlap. hot_ref total 90, hot_profile total 20 (node ids differ
//!   from hot_ref's: contexts are matched by path). Shared: main min(1/90,
//!   1/20) = 1/90, f@5 min(50/90, 0) = 0, f@5>g@9 min(5/90, 8/20) = 5/90,
//!   h@3 min(4/90, 7/20) = 4/90; 10/90 = **11.11**.
//! - The other way round: hot_profile's hottest is 8, so every context
//!   with at least 0.8 calls is hot: main, f@5>g@9, h@3, main>g@9 (not
//!   f@5, with 0 calls); hot_ref has all but main>g@9: **75**.

use std::path::{Path, PathBuf};

use crate::harness::{self, Run};

fn dir() -> PathBuf {
    harness::programs_dir("compare")
}

fn compare_in(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["compare"];
    all.extend_from_slice(args);
    harness::run_vm_in(dir, &all, harness::DEFAULT_TIMEOUT)
}

fn compare(args: &[&str]) -> Run {
    compare_in(&dir(), args)
}

const SAMPLE_VS_EXACT: &str = "dcg-overlap: 70.00\n\
                               cct-overlap: 80.00\n\
                               method-correlation: 0.50\n\
                               hot-edge-coverage: 75.00\n";

#[test]
fn worked_examples_print_the_expected_lines() {
    let cases: &[(&[&str], &str)] = &[
        (&["sample.json", "exact.json"], SAMPLE_VS_EXACT),
        (&["exact.json", "sample.json"], SAMPLE_VS_EXACT),
        (
            &["hot_profile.json", "hot_ref.json"],
            "cct-overlap: 11.11\nhot-edge-coverage: 50.00\n",
        ),
        (
            &["hot_ref.json", "hot_profile.json"],
            "cct-overlap: 11.11\nhot-edge-coverage: 75.00\n",
        ),
        (
            &["exact.json", "exact.json"],
            "dcg-overlap: 100.00\ncct-overlap: 100.00\n\
             method-correlation: 1.00\nhot-edge-coverage: 100.00\n",
        ),
        (
            &["hot_profile.json", "hot_profile.json"],
            "cct-overlap: 100.00\nhot-edge-coverage: 100.00\n",
        ),
    ];
    let mut failures = Vec::new();
    for (args, want) in cases {
        let r = compare(args);
        r.assert_no_crash();
        if r.status != Some(0) || r.stdout != *want || !r.stderr.is_empty() {
            failures.push(format!(
                "`{}`: status {:?}\n--- stdout:\n{}--- expected:\n{}--- stderr:\n{}",
                r.cmd, r.status, r.stdout, want, r.stderr
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_profile_without_cct_gives_only_dcg_overlap_and_method_correlation() {
    for args in [
        ["sample_nocct.json", "exact.json"],
        ["exact.json", "sample_nocct.json"],
    ] {
        let r = compare(&args);
        r.assert_status(0);
        assert_eq!(
            r.stdout, "dcg-overlap: 70.00\nmethod-correlation: 0.50\n",
            "`{}`",
            r.cmd
        );
        assert_eq!(r.stderr, "", "`{}`", r.cmd);
    }
}

/// A flat JSON object of numbers, `{"k": 1.5, ...}`, parsed by hand (the
/// binary's package has no JSON library): its keys in order and values.
/// Panics on anything else.
fn parse_flat_json(text: &str) -> Vec<(String, f64)> {
    let body = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .unwrap_or_else(|| panic!("not one JSON object: {text:?}"));
    if body.trim().is_empty() {
        return Vec::new();
    }
    body.split(',')
        .map(|pair| {
            let (k, v) = pair
                .split_once(':')
                .unwrap_or_else(|| panic!("not `\"key\": number`: {pair:?} in {text:?}"));
            let k = k
                .trim()
                .strip_prefix('"')
                .and_then(|k| k.strip_suffix('"'))
                .unwrap_or_else(|| panic!("key not a string: {k:?} in {text:?}"));
            let v: f64 = v
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("value not a number: {v:?} in {text:?}"));
            (k.to_string(), v)
        })
        .collect()
}

fn assert_json(args: &[&str], want: &[(&str, f64)]) {
    let r = compare(args);
    r.assert_status(0);
    assert_eq!(
        r.stdout.matches('\n').count(),
        1,
        "`{}`: one line of JSON expected:\n{}",
        r.cmd,
        r.stdout
    );
    let got = parse_flat_json(&r.stdout);
    let keys: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
    let want_keys: Vec<&str> = want.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, want_keys, "`{}`: {}", r.cmd, r.stdout);
    for ((k, v), (_, w)) in got.iter().zip(want) {
        assert!(
            (v - w).abs() < 1e-9,
            "`{}`: {k} is {v}, expected {w}",
            r.cmd
        );
    }
}

#[test]
fn json_output_has_the_metrics_as_numbers() {
    assert_json(
        &["sample.json", "exact.json", "--json"],
        &[
            ("dcg-overlap", 70.0),
            ("cct-overlap", 80.0),
            ("method-correlation", 0.5),
            ("hot-edge-coverage", 75.0),
        ],
    );
    // The values are not rounded to two decimals.
    assert_json(
        &["--json", "hot_profile.json", "hot_ref.json"],
        &[("cct-overlap", 1000.0 / 90.0), ("hot-edge-coverage", 50.0)],
    );
    assert_json(
        &["sample_nocct.json", "exact.json", "--json"],
        &[("dcg-overlap", 70.0), ("method-correlation", 0.5)],
    );
    // Identical profiles: exactly 100 and 1.
    let r = compare(&["exact.json", "exact.json", "--json"]);
    r.assert_status(0);
    for (k, v) in parse_flat_json(&r.stdout) {
        let want = if k == "method-correlation" {
            1.0
        } else {
            100.0
        };
        assert_eq!(v, want, "{k} in {}", r.stdout);
    }
}

#[test]
fn no_section_in_common_is_a_note_not_an_error() {
    let r = compare(&["sample_nocct.json", "hot_ref.json"]);
    r.assert_status(0);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.contains("no metric")
            && r.stderr.contains("sample_nocct.json")
            && r.stderr.contains("hot_ref.json"),
        "stderr should say that no metric can be computed and name both files:\n{}",
        r.stderr
    );
    let r = compare(&["sample_nocct.json", "hot_ref.json", "--json"]);
    r.assert_status(0);
    assert_eq!(r.stdout, "{}\n");
    assert!(r.stderr.contains("no metric"), "{}", r.stderr);
}

#[test]
fn a_file_that_cannot_be_read_exits_66() {
    let scratch = harness::scratch("compare_unreadable");
    let exact = std::fs::read_to_string(dir().join("exact.json")).unwrap();
    harness::write_program(&scratch, "exact.json", &exact);
    std::fs::create_dir_all(scratch.join("adir")).unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["nope.json", "exact.json"],
            "vm: cannot read `nope.json`: no such file",
        ),
        (
            &["exact.json", "nope.json"],
            "vm: cannot read `nope.json`: no such file",
        ),
        (
            &["exact.json", "adir", "--json"],
            "vm: cannot read `adir`: it is a directory",
        ),
        // PROFILE is read first.
        (
            &["gone.json", "nope.json"],
            "vm: cannot read `gone.json`: no such file",
        ),
    ];
    for (args, line) in cases {
        let r = compare_in(&scratch, args);
        r.assert_status(66);
        assert_eq!(r.stdout, "", "`{}`", r.cmd);
        assert_eq!(r.stderr.trim_end(), *line, "`{}`", r.cmd);
    }
}

#[test]
fn a_file_that_is_not_a_profile_exits_65() {
    let scratch = harness::scratch("compare_invalid");
    let exact = std::fs::read_to_string(dir().join("exact.json")).unwrap();
    harness::write_program(&scratch, "exact.json", &exact);
    let bad: &[(&str, String, &str)] = &[
        ("truncated.json", exact[..exact.len() / 2].to_string(), ""),
        ("notjson.json", "fib: 3\n".into(), ""),
        ("empty.json", String::new(), ""),
        ("array.json", "[]".into(), ""),
        (
            "format.json",
            exact.replace("vm-profile/1", "vm-profile/2"),
            "vm-profile/2",
        ),
        (
            "noformat.json",
            exact.replace("\"format\": \"vm-profile/1\",", ""),
            "format",
        ),
        (
            "weight.json",
            exact.replace("\"weight\": 40", "\"weight\": -40"),
            "",
        ),
        (
            // Node 3 (g, child of 2) moved before node 2.
            "order.json",
            exact.replace(
                "{\"id\": 2, \"parent\": 1, \"method\": \"f\", \"line\": 5, \"calls\": 8, \"self\": 10},\n          \
                 {\"id\": 3, \"parent\": 2, \"method\": \"g\", \"line\": 9, \"calls\": 6, \"self\": 20},",
                "{\"id\": 3, \"parent\": 2, \"method\": \"g\", \"line\": 9, \"calls\": 6, \"self\": 20},\n          \
                 {\"id\": 2, \"parent\": 1, \"method\": \"f\", \"line\": 5, \"calls\": 8, \"self\": 10},",
            ),
            "parent 2",
        ),
    ];
    for (name, text, _) in bad {
        assert_ne!(text, &exact, "{name}: the replacement did not apply");
        harness::write_program(&scratch, name, text);
    }
    std::fs::write(
        scratch.join("latin1.json"),
        b"{\"format\": \"vm-profile/1\xe9\"}",
    )
    .unwrap();
    let mut all: Vec<(&str, &str)> = bad.iter().map(|(n, _, why)| (*n, *why)).collect();
    all.push(("latin1.json", "UTF-8"));
    for (name, why) in all {
        for args in [[name, "exact.json"], ["exact.json", name]] {
            let r = compare_in(&scratch, &args);
            r.assert_status(65);
            assert_eq!(r.stdout, "", "`{}`", r.cmd);
            let prefix = format!("vm: `{name}` is not a vm-profile/1 profile: ");
            let line = r.stderr.trim_end();
            assert!(
                line.starts_with(&prefix) && line.len() > prefix.len() && !line.contains('\n'),
                "`{}`: expected one line starting {prefix:?}, got:\n{}",
                r.cmd,
                r.stderr
            );
            assert!(
                line[prefix.len()..].contains(why),
                "`{}`: the reason should mention {why:?}: {line}",
                r.cmd
            );
        }
    }
}

/// Profiles of two different programs are not compared (their methods and
/// edges cannot match, and a 0.00 would read as the profiler's failure):
/// status 2, as `vm report --against` refuses them. One program named by
/// two paths is one program.
#[test]
fn profiles_of_two_programs_are_refused_as_report_against_refuses_them() {
    let scratch = harness::scratch("compare-two-programs");
    let sample = std::fs::read_to_string(dir().join("sample.json")).unwrap();
    let exact = std::fs::read_to_string(dir().join("exact.json")).unwrap();
    let renamed =
        |text: &str, program: &str| text.replace("\"prog.bc\"", &format!("\"{program}\""));
    std::fs::write(scratch.join("other.json"), renamed(&sample, "other.bc")).unwrap();
    std::fs::write(scratch.join("exact.json"), renamed(&exact, "tests/prog.bc")).unwrap();
    std::fs::write(scratch.join("sample.json"), &sample).unwrap();
    let r = compare_in(&scratch, &["other.json", "exact.json"]);
    r.assert_status(2);
    assert_eq!(r.stdout, "", "{}", r.cmd);
    let line = "vm: `other.json` is a profile of `other.bc` but `exact.json` is one of \
                `tests/prog.bc`: vm compare needs a profile of the same program\n";
    assert_eq!(r.stderr, line);
    let r = harness::run_vm_in(
        &scratch,
        &["report", "other.json", "--against", "exact.json"],
        harness::DEFAULT_TIMEOUT,
    );
    r.assert_status(2);
    assert_eq!(r.stderr, line.replace("vm compare", "--against"));
    // `prog.bc` and `tests/prog.bc` are one program: compared as before.
    let r = compare_in(&scratch, &["sample.json", "exact.json"]);
    r.assert_status(0);
    assert_eq!(r.stdout, SAMPLE_VS_EXACT);
}

#[test]
fn usage_errors_exit_2() {
    let cases: &[&[&str]] = &[
        &[],
        &["exact.json"],
        &["exact.json", "exact.json", "sample.json"],
        &["exact.json", "exact.json", "--frobnicate"],
        &["exact.json", "exact.json", "--json=yes"],
        &["exact.json", "exact.json", "--profile=cbs"],
    ];
    for args in cases {
        let r = compare(args);
        r.assert_status(2);
        assert_eq!(r.stdout, "", "`{}`", r.cmd);
        assert!(!r.stderr.is_empty(), "`{}`: no message", r.cmd);
    }
}

#[test]
fn help_describes_compare() {
    let r = harness::vm(&["--help"]);
    r.assert_status(0);
    assert!(r.stdout.contains("compare"), "{}", r.stdout);
    let r = harness::vm(&["compare", "--help"]);
    r.assert_status(0);
    for word in [
        "PROFILE.json",
        "REF.json",
        "--json",
        "dcg-overlap",
        "cct-overlap",
        "method-correlation",
        "hot-edge-coverage",
        "66",
        "65",
    ] {
        assert!(
            r.stdout.contains(word),
            "`vm compare --help` should mention {word}:\n{}",
            r.stdout
        );
    }
}

/// Issue 16, bug 8: two real profiles of a program that makes no call and
/// has one method. Every section is there, but each metric is undefined on
/// it (no dcg weight, no cct calls below `main`... no variance of one
/// `self`): nothing is printed as a score, and stderr says why for each.
#[test]
fn undefined_metrics_are_left_out_with_the_reason() {
    let dir = harness::scratch("compare-undefined");
    harness::write_program(
        &dir,
        "flat.bc",
        ".method main()\n  push 1\n  push 2\n  add\n  print\n  push 0\n  ret\n.end\n",
    );
    for (out, profile) in [("a.json", "exhaustive"), ("b.json", "exhaustive")] {
        let r = harness::run_vm_in(
            &dir,
            &[
                "run",
                "flat.bc",
                &format!("--profile={profile}"),
                &format!("--profile-out={out}"),
            ],
            harness::DEFAULT_TIMEOUT,
        );
        r.assert_status(0);
    }
    let r = compare_in(&dir, &["a.json", "b.json"]);
    r.assert_status(0);
    assert!(
        !r.stdout.contains("dcg-overlap") && !r.stdout.contains("method-correlation"),
        "an undefined metric printed as a score:\n{}",
        r.stdout
    );
    for name in ["dcg-overlap", "method-correlation"] {
        assert!(
            r.stderr
                .lines()
                .any(|l| l.starts_with(&format!("vm: note: {name} is left out: "))),
            "no reason for {name}:\n{}",
            r.stderr
        );
    }
    let j = compare_in(&dir, &["a.json", "b.json", "--json"]);
    j.assert_status(0);
    assert!(!j.stdout.contains("dcg-overlap"), "{}", j.stdout);
    assert!(j.stdout.trim_end().starts_with('{'), "{}", j.stdout);
}
