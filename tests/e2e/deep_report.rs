//! Issue 35, item 3: `vm report` of a calling-context tree 100,000 levels
//! deep, the tree a stack overflow at the default `--max-frames` leaves.
//! Every format writing a context's whole path grew with the square of
//! the depth (folded lines: 10 GB; flamegraph, html and speedscope did not
//! end in 120 s). Above 1,000 levels the report collapses recursion
//! (docs/CLI.md, `--collapse-recursion`) and says so on stderr: every
//! format then ends with a small output whose weights are the tree's.
//! No time is asserted; a quadratic report meets the harness's timeout.

use std::path::Path;

use serde_json::Value;

use crate::harness::{self, DEFAULT_TIMEOUT};

/// Recursion until the frame limit: a runtime error (70), the profile of
/// what ran written.
const OVERFLOW: &str = "\
.method down(n)
  load n
  push 1
  add
  call down
  ret
.end
.method main()
  push 0
  call down
  print
  push 0
  ret
.end
";

/// Recursion `depth` levels deep (`--set depth=N`), then back.
const DEEP: &str = "\
.global depth
.method down(n)
  load n
  jz bottom
  load n
  push 1
  sub
  call down
  ret
bottom:
  push 0
  ret
.end
.method main()
  getglobal depth
  call down
  print
  push 0
  ret
.end
";

/// The sum of the `self` weights of the profile's contexts.
fn self_sum(profile: &Path) -> u64 {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(profile).unwrap()).unwrap();
    v["cct"]
        .as_array()
        .expect("a cct")
        .iter()
        .map(|n| n["self"].as_u64().unwrap())
        .sum()
}

/// The weights of folded lines, by stack.
fn folded(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .map(|l| {
            let (stack, n) = l.rsplit_once(' ').expect("stack weight");
            (stack.to_string(), n.parse().expect("a weight"))
        })
        .collect()
}

#[test]
fn every_format_of_a_100000_level_tree_ends_small_and_says_recursion_was_collapsed() {
    let dir = harness::scratch("deep_report_overflow");
    harness::write_program(&dir, "overflow.bc", OVERFLOW);
    let run = harness::run_vm_in(
        &dir,
        &[
            "run",
            "overflow.bc",
            "--profile=exhaustive",
            "--record=cct",
            "--profile-out=deep.json",
        ],
        DEFAULT_TIMEOUT,
    );
    run.assert_status(70);
    let total = self_sum(&dir.join("deep.json"));
    let formats: &[&[&str]] = &[
        &["--format=text"],
        &["--format=folded"],
        &["--format=flamegraph"],
        &["--format=speedscope"],
        &["--format=dot", "--tree"],
        &["--format=html"],
    ];
    for format in formats {
        let out = dir.join("out");
        let mut args = vec!["report", "deep.json", "-o", "out"];
        args.extend_from_slice(format);
        let r = harness::run_vm_in(&dir, &args, DEFAULT_TIMEOUT);
        r.assert_status(0);
        assert_eq!(
            r.stderr,
            "vm report: `deep.json`: the calling-context tree is 100000 levels deep: recursion \
             collapsed to 2 levels (each method at most once on a path; \
             --collapse-recursion=never keeps every level)\n",
            "{}",
            r.cmd
        );
        let size = std::fs::metadata(&out).unwrap().len();
        assert!(size < 1 << 20, "{}: {size} bytes", r.cmd);
        if format[0] == "--format=folded" {
            let lines = folded(&std::fs::read_to_string(&out).unwrap());
            assert_eq!(lines.len(), 2, "{lines:?}");
            assert_eq!(lines[1].0, "main;down");
            assert_eq!(lines.iter().map(|l| l.1).sum::<u64>(), total);
        }
    }
    // To stdout (a pipe: not streamed), the same lines.
    let r = harness::run_vm_in(
        &dir,
        &["report", "deep.json", "--format=folded"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert_eq!(folded(&r.stdout).len(), 2);
    // `vm run --report=folded` collapses too.
    let r = harness::run_vm_in(
        &dir,
        &[
            "run",
            "overflow.bc",
            "--profile=exhaustive",
            "--record=cct",
            "--report=folded",
        ],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(70);
    assert!(
        r.stderr
            .contains("vm: --report=folded: the calling-context tree is 100000 levels deep"),
        "{}",
        harness::clip(&r.stderr)
    );
    assert!(
        r.stderr.contains("\nmain;down "),
        "{}",
        harness::clip(&r.stderr)
    );
}

#[test]
fn collapsing_is_chosen_by_depth_unless_told() {
    let dir = harness::scratch("deep_report_choice");
    harness::write_program(&dir, "deep.bc", DEEP);
    for (depth, file) in [("1200", "deep.json"), ("900", "shallow.json")] {
        let out = format!("--profile-out={file}");
        let r = harness::run_vm_in(
            &dir,
            &[
                "run",
                "deep.bc",
                "--set",
                &format!("depth={depth}"),
                "--profile=exhaustive",
                "--record=cct",
                &out,
            ],
            DEFAULT_TIMEOUT,
        );
        r.assert_status(0);
    }
    let lines = |args: &[&str]| {
        let r = harness::run_vm_in(&dir, args, DEFAULT_TIMEOUT);
        r.assert_status(0);
        (folded(&r.stdout), r.stderr)
    };
    // main, then down 1,201 times: 1,202 levels, a line each.
    let (deep, said) = lines(&["report", "deep.json", "--format=folded"]);
    assert_eq!(deep.len(), 2);
    assert!(said.contains("is 1202 levels deep"), "{said}");
    let (kept, said) = lines(&[
        "report",
        "deep.json",
        "--format=folded",
        "--collapse-recursion=never",
    ]);
    assert_eq!(kept.len(), 1202);
    assert_eq!(said, "");
    assert_eq!(
        kept.iter().map(|l| l.1).sum::<u64>(),
        deep.iter().map(|l| l.1).sum::<u64>()
    );
    // 902 levels: kept under auto, collapsed (quietly) when asked.
    let (shallow, said) = lines(&["report", "shallow.json", "--format=folded"]);
    assert_eq!((shallow.len(), said.as_str()), (902, ""));
    let (collapsed, said) = lines(&[
        "report",
        "shallow.json",
        "--format=folded",
        "--collapse-recursion=always",
    ]);
    assert_eq!((collapsed.len(), said.as_str()), (2, ""));
}
