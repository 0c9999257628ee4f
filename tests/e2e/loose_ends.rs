//! Issue 35, item 5: the smaller hostile inputs. Counts whose sum passes
//! 2^64 in `vm report`; a decision given twice in an advice file; an
//! output file that is the program itself; `vm inline --emit` of a method
//! with a very tall operand stack; a key given twice in a profile. (The
//! 2^28-element array limit is `tests/programs/runtime_errors/
//! newarray_over_limit.bc`; the interrupted experiment is in
//! `signals.rs`.)

use super::harness::{self, run_vm_in, DEFAULT_TIMEOUT};

/// 2^63 - 1, the largest count a profile holds (as a JSON integer).
const HUGE: &str = "9223372036854775807";

/// A profile whose three methods, edges and contexts carry counts of
/// 2^63 - 1 each, so that every total passes 2^64 (a `u64` sum wraps to
/// about half of one of them).
fn huge_profile() -> String {
    format!(
        r#"{{"format": "vm-profile/1", "program": "p.bc",
 "config": {{"profile": "cbs", "record": ["cct"]}},
 "run": {{"wall_ns": 5, "instructions": null, "samples": 3, "threads": 1}},
 "methods": [{{"name": "main", "self": 0, "calls": 1}}, {{"name": "f", "self": {HUGE}, "calls": 2}},
             {{"name": "g", "self": {HUGE}, "calls": 1}}, {{"name": "h", "self": {HUGE}, "calls": 1}}],
 "dcg": [{{"caller": "main", "line": 3, "callee": "f", "weight": {HUGE}}},
         {{"caller": "main", "line": 4, "callee": "g", "weight": {HUGE}}},
         {{"caller": "main", "line": 5, "callee": "h", "weight": {HUGE}}}],
 "cct": [
  {{"id": 0, "parent": null, "method": "<root>", "line": null, "calls": 0, "self": 0}},
  {{"id": 1, "parent": 0, "method": "main", "line": null, "calls": 1, "self": 0}},
  {{"id": 2, "parent": 1, "method": "f", "line": 3, "calls": {HUGE}, "self": {HUGE}}},
  {{"id": 3, "parent": 1, "method": "g", "line": 4, "calls": {HUGE}, "self": {HUGE}}},
  {{"id": 4, "parent": 1, "method": "h", "line": 5, "calls": {HUGE}, "self": {HUGE}}}
 ]}}"#
    )
}

/// Every percentage in `text` (`12.5%`), as numbers.
fn percentages(text: &str) -> Vec<f64> {
    let mut found = Vec::new();
    for (i, _) in text.match_indices('%') {
        let digits: String = text[..i]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == '+')
            .collect();
        let digits: String = digits.chars().rev().collect();
        if let Ok(v) = digits.parse::<f64>() {
            found.push(v);
        }
    }
    found
}

/// Totals are summed in 128 bits: three counts of 2^63 - 1 are each a
/// third of the total, never a share of 1e20%, in every format.
#[test]
fn report_shares_of_counts_past_2_to_the_64_stay_at_most_100_percent() {
    let dir = harness::scratch("loose_ends_sums");
    std::fs::write(dir.join("p.json"), huge_profile()).unwrap();
    let r = run_vm_in(&dir, &["report", "p.json"], DEFAULT_TIMEOUT);
    r.assert_status(0);
    for method in ["f", "g", "h"] {
        let row = r
            .stdout
            .lines()
            .find(|l| l.ends_with(&format!("  {method}")) && l.contains(HUGE))
            .unwrap_or_else(|| panic!("no row of {method}:\n{}", r.stdout));
        assert!(row.trim_start().starts_with("33.3%"), "{row}");
    }
    for format in ["text", "dot", "flamegraph", "html", "speedscope"] {
        let out = format!("out.{format}");
        let r = run_vm_in(
            &dir,
            &[
                "report",
                "p.json",
                &format!("--format={format}"),
                "-o",
                &out,
            ],
            DEFAULT_TIMEOUT,
        );
        r.assert_status(0);
        let text = std::fs::read_to_string(dir.join(&out)).unwrap();
        let over: Vec<f64> = percentages(&text)
            .into_iter()
            .filter(|p| *p > 100.0)
            .collect();
        assert!(over.is_empty(), "{format}: shares over 100%: {over:?}");
        if format == "speedscope" {
            let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
            let end = doc["profiles"][0]["endValue"].as_f64().unwrap();
            assert!((end / 2f64.powi(64) - 1.5).abs() < 1e-9, "endValue {end}");
        }
    }
}

/// A decision given twice in an `--advice` file is refused before the
/// program runs, with status 65 and a sentence naming it.
#[test]
fn an_advice_file_giving_a_decision_twice_is_refused_up_front() {
    let dir = harness::scratch("loose_ends_advice");
    let prog = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/programs/examples/arnold-grove-fig1.bc"
    );
    let advice = r#"{"format": "vm-inline-advice/1", "program": "p.bc", "decisions": [
        {"caller": "M", "line": 167, "callee": "call_1"},
        {"caller": "M", "line": 170, "callee": "call_2"},
        {"caller": "M", "line": 167, "callee": "call_1"}]}"#;
    std::fs::write(dir.join("a.json"), advice).unwrap();
    let r = run_vm_in(
        &dir,
        &["inline", prog, "--advice=a.json", "--emit=out.bc"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(65);
    assert_eq!(r.stdout, "", "the program ran");
    assert_eq!(
        r.stderr,
        "vm: `a.json` is not a vm-inline-advice/1 file: the decision M:167 -> call_1 is given \
         twice\n"
    );
    assert!(!dir.join("out.bc").exists());
}

/// A file to write that is the program itself is a usage error, and the
/// program is left as it was.
#[test]
fn an_output_file_naming_the_program_is_refused() {
    let dir = harness::scratch("loose_ends_self");
    let text = ".method main()\n  push 1\n  print\n  push 0\n  ret\n.end\n";
    harness::write_program(&dir, "p.bc", text);
    for args in [
        &["run", "p.bc", "--profile=cbs", "--profile-out=p.bc"][..],
        &["run", "p.bc", "--profile=cbs", "--profile-out=./p.bc"],
        &["inline", "p.bc", "--emit=p.bc"],
        &["inline", "p.bc", "--log=p.bc"],
        &["inline", "p.bc", "--advice-out=p.bc"],
        &["inline", "p.bc", "--profile-out=p.bc"],
    ] {
        let r = run_vm_in(&dir, args, DEFAULT_TIMEOUT);
        r.assert_status(2);
        let flag = args.last().unwrap();
        assert_eq!(
            r.stderr,
            format!(
                "vm: {flag} is the program itself, which it would overwrite: name another file\n"
            ),
        );
        assert_eq!(std::fs::read_to_string(dir.join("p.bc")).unwrap(), text);
    }
}

/// `vm inline --emit` of a method 200,000 pushes tall takes time linear
/// in its length (it was quadratic: 98 s at 100,000), and the emitted
/// program behaves as the original.
#[test]
fn inline_emits_a_very_tall_method() {
    let dir = harness::scratch("loose_ends_tall");
    let n = 200_000;
    let mut text = String::from(".method main()\n");
    text.push_str(&"  push 1\n".repeat(n));
    text.push_str(&"  add\n".repeat(n - 1));
    text.push_str("  print\n  push 0\n  ret\n.end\n");
    harness::write_program(&dir, "tall.bc", &text);
    let r = run_vm_in(
        &dir,
        &["inline", "tall.bc", "--emit=out.bc"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert_eq!(r.stdout, format!("{n}\n"));
    let emitted = std::fs::read_to_string(dir.join("out.bc")).unwrap();
    assert_eq!(emitted.matches("  push 1\n").count(), n);
    let again = run_vm_in(&dir, &["run", "out.bc"], DEFAULT_TIMEOUT);
    again.assert_status(0);
    assert_eq!(again.stdout, r.stdout);
}

/// A key given twice in a profile is named, `format` too (it was "not a
/// profile (a profile is one JSON object)").
#[test]
fn a_key_given_twice_in_a_profile_is_named() {
    let dir = harness::scratch("loose_ends_duplicate_key");
    let good = huge_profile();
    let cases = [
        (
            "format",
            good.replacen(
                r#""format": "vm-profile/1","#,
                r#""format": "vm-profile/1", "format": "vm-profile/1","#,
                1,
            ),
        ),
        (
            "program",
            good.replacen(
                r#""program": "p.bc","#,
                r#""program": "p.bc", "program": "q.bc","#,
                1,
            ),
        ),
        (
            "wall_ns",
            good.replacen(r#""wall_ns": 5,"#, r#""wall_ns": 5, "wall_ns": 6,"#, 1),
        ),
    ];
    for (key, text) in cases {
        assert_ne!(text, good);
        std::fs::write(dir.join("d.json"), &text).unwrap();
        for cmd in [&["report", "d.json"][..], &["compare", "d.json", "d.json"]] {
            let r = run_vm_in(&dir, cmd, DEFAULT_TIMEOUT);
            r.assert_status(65);
            let want =
                format!("vm: `d.json` is not a vm-profile/1 profile: duplicate field `{key}`");
            assert!(r.stderr.starts_with(&want), "{}:\n{}", r.cmd, r.stderr);
        }
    }
}
