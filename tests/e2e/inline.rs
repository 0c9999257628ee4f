//! `vm inline`: every example, bench and Are We Fast Yet program emits a
//! program that passes `vm check` and prints what the original prints with
//! the same exit status, under every policy (the long-running ones under
//! one policy each, in turn, every policy still meeting some of them); the
//! log's format; usage errors.

use std::path::{Path, PathBuf};

use crate::harness::{self, run_vm_in, vm, DEFAULT_TIMEOUT};

const POLICIES: [&str; 3] = ["static", "hot-edge", "linear"];

fn sorted(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.lines().collect();
    v.sort_unstable();
    v
}

/// Inlines `name` (in `dir`) with `args`, checks and runs the emitted
/// program; returns the problems found.
fn check_one(dir: &Path, name: &str, policy: &str, extra: &[&str], out_dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let text = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    let e = harness::parse_header(&text, false).unwrap_or_else(|err| panic!("{name}: {err}"));
    let expected =
        std::fs::read_to_string(dir.join(name).with_extension("out")).expect("an .out file");
    let same = |got: &str| {
        if e.sort_stdout {
            sorted(got) == sorted(&expected)
        } else {
            got == expected
        }
    };
    let emitted: PathBuf = out_dir.join(format!("{}.{policy}.bc", name.trim_end_matches(".bc")));
    let emitted_s = emitted.display().to_string();
    let policy_arg = format!("--policy={policy}");
    let emit_arg = format!("--emit={emitted_s}");
    let mut args = vec!["inline", name];
    args.extend(e.args.iter().map(String::as_str));
    args.extend_from_slice(extra);
    args.push(&policy_arg);
    args.push(&emit_arg);
    let r = run_vm_in(dir, &args, DEFAULT_TIMEOUT);
    if let Some(c) = r.crash() {
        return vec![c];
    }
    if r.status != Some(e.status) || !same(&r.stdout) {
        problems.push(format!(
            "`{}`: status {:?} (want {}), stdout same as {name}'s .out: {}\nstderr:\n{}",
            r.cmd,
            r.status,
            e.status,
            same(&r.stdout),
            harness::clip(&r.stderr)
        ));
        return problems;
    }
    if !r.stderr.contains(&format!("with --policy={policy}")) {
        problems.push(format!("`{}`: no log header on stderr", r.cmd));
    }
    let c = run_vm_in(dir, &["check", &emitted_s], DEFAULT_TIMEOUT);
    if c.status != Some(0) {
        problems.push(format!(
            "`{}` of the emitted program: {:?}\n{}",
            c.cmd,
            c.status,
            harness::clip(&c.stderr)
        ));
        return problems;
    }
    let mut run_args = vec!["run", emitted_s.as_str()];
    run_args.extend(e.args.iter().map(String::as_str));
    let o = run_vm_in(dir, &run_args, DEFAULT_TIMEOUT);
    if o.crash().is_some() || o.status != Some(e.status) || !same(&o.stdout) {
        problems.push(format!(
            "`{}` (emitted by --policy={policy}): status {:?} (want {}), same stdout: {}\nstderr:\n{}",
            o.cmd,
            o.status,
            e.status,
            same(&o.stdout),
            harness::clip(&o.stderr)
        ));
    }
    problems
}

/// A policy and the options of its run (the profile it decides on).
type Job = (&'static str, Vec<&'static str>);

/// The jobs a program runs: every one, or for a long-running program (one
/// named in `long`), one of them, the `k`th long program's being job `k`
/// (wrapping), so that every job still meets long programs while each
/// long program costs one run of the policy cross product, not all.
fn jobs_for<'a>(name: &str, jobs: &'a [Job], long: &[&str]) -> Vec<&'a Job> {
    match long.iter().position(|l| *l == name) {
        Some(k) => vec![&jobs[k % jobs.len()]],
        None => jobs.iter().collect(),
    }
}

fn check_all(dir: &Path, jobs: &[Job], long: &[&str], scratch: &str) {
    let out_dir = harness::scratch(scratch);
    let files = harness::bc_files(dir);
    assert!(!files.is_empty(), "no programs in {}", dir.display());
    for l in long {
        assert!(
            files.iter().any(|f| f.file_name().unwrap() == *l),
            "{l} is not in {}",
            dir.display()
        );
    }
    let problems: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .iter()
            .map(|path| {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let out_dir = &out_dir;
                s.spawn(move || {
                    let mut p = Vec::new();
                    for (policy, extra) in jobs_for(&name, jobs, long) {
                        p.extend(check_one(dir, &name, policy, extra, out_dir));
                    }
                    p
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a checker thread"))
            .collect()
    });
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_example_under_every_policy_emits_an_equivalent_program() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/examples");
    // hot-edge and linear default to --profile=exhaustive: deterministic.
    let jobs: Vec<Job> = POLICIES.iter().map(|p| (*p, vec![])).collect();
    check_all(&dir, &jobs, &[], "inline-examples");
}

#[test]
fn every_bench_program_under_every_policy_emits_an_equivalent_program() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/bench");
    // The counter profile (a sample every 100th call) is deterministic and
    // cheap on these long programs. Every policy on fib (the shortest); the
    // others one policy each, in turn, so each policy meets two of them.
    let jobs = vec![
        ("static", vec![]),
        ("hot-edge", vec!["--profile=counter"]),
        ("linear", vec!["--profile=counter"]),
    ];
    let long = [
        "binary_trees.bc",
        "arith_loop.bc",
        "sieve.bc",
        "oo_small_calls.bc",
        "virtual_calls.bc",
        "static_calls.bc",
    ];
    check_all(&dir, &jobs, &long, "inline-bench");
}

/// The Are We Fast Yet suite (docs/AWFY.md) at its default sizes: classes,
/// polymorphic `callvirt`s and deep call graphs, the programs the papers'
/// inliners were measured on. Each benchmark checks its own result, so an
/// inlining that broke it would also print the suite's failure line.
#[test]
fn every_awfy_benchmark_under_every_policy_emits_an_equivalent_program() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/awfy");
    let jobs = vec![
        (
            "linear",
            vec!["--profile=cbs", "--clock=virtual", "--seed=3"],
        ),
        ("static", vec![]),
        ("hot-edge", vec!["--profile=counter"]),
        ("linear", vec!["--profile=counter"]),
    ];
    // Havlak, some forty times longer than the others, runs the first job
    // only (the sampled profile, the one most apt to mislead an inliner).
    check_all(&dir, &jobs, &["havlak.bc"], "inline-awfy");
}

const SHAPES: &str = "\
.class Shape
.end
.class Square : Shape
.end
.class Circle : Shape
.end
.method Square.area(this)
  push 4
  ret
.end
.method Circle.area(this)
  push 3
  ret
.end
.method main()
  .locals i s
loop:
  load i
  push 10
  jge done
  load i
  push 9
  jeq circle
  new Square
  jmp call
circle:
  new Circle
call:
  callvirt area
  load s
  add
  store s
  inc i 1
  jmp loop
done:
  load s
  print
  push 0
  ret
.end
";

#[test]
fn linear_guards_the_90_percent_target_and_logs_each_target() {
    let dir = harness::scratch("inline-shapes");
    harness::write_program(&dir, "shapes.bc", SHAPES);
    let r = run_vm_in(
        &dir,
        &["inline", "shapes.bc", "--emit=out.bc"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert_eq!(r.stdout, "39\n");
    let log: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        log,
        [
            "vm: inlining shapes.bc with --policy=linear, DCG weight 10",
            "main:",
            "  @ 29 Square.area (2 insns, weight 9 = 90.00%)   guarded inline (90% Square, hot)",
            "  @ 29 Circle.area (2 insns, weight 1 = 10.00%)   polymorphic (10% Circle <= 40%)",
        ]
    );
    let text = std::fs::read_to_string(dir.join("out.bc")).unwrap();
    assert!(text.contains("instanceof Square") || text.contains("isclass Square"));
    let o = run_vm_in(&dir, &["run", "out.bc"], DEFAULT_TIMEOUT);
    o.assert_status(0);
    assert_eq!(o.stdout, "39\n");
    // With a 5% guard share both targets are inlined.
    let r = run_vm_in(
        &dir,
        &["inline", "shapes.bc", "--guard-min-pct=5"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert!(
        r.stderr.contains("guarded inline (10% Circle, hot)"),
        "{}",
        r.stderr
    );
}

#[test]
fn from_profile_reads_a_profile_file_without_running() {
    let dir = harness::scratch("inline-from-profile");
    harness::write_program(&dir, "shapes.bc", SHAPES);
    let r = run_vm_in(
        &dir,
        &[
            "run",
            "shapes.bc",
            "--profile=exhaustive",
            "--profile-out=p.json",
        ],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    let r = run_vm_in(
        &dir,
        &[
            "inline",
            "shapes.bc",
            "--policy=hot-edge",
            "--from-profile=p.json",
        ],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert_eq!(r.stdout, "", "the program is not run");
    assert!(
        r.stderr.contains(
            "@ 29 Circle.area (2 insns, weight 1 = 10.00%)   guarded inline (10% Circle, hot)"
        ),
        "{}",
        r.stderr
    );
    // Unreadable and malformed profile files.
    let r = run_vm_in(
        &dir,
        &["inline", "shapes.bc", "--from-profile=nope.json"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(66);
    std::fs::write(dir.join("bad.json"), "{ not json").unwrap();
    let r = run_vm_in(
        &dir,
        &["inline", "shapes.bc", "--from-profile=bad.json"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(65);
}

#[test]
fn log_lines_are_indented_per_level_and_name_the_reason() {
    let r = vm(&[
        "inline",
        "programs/examples/fib.bc",
        "--policy=static",
        "--inline-depth=2",
    ]);
    r.assert_status(0);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(
        lines[0],
        "vm: inlining programs/examples/fib.bc with --policy=static"
    );
    for l in &lines[1..] {
        let ok = l.ends_with(':')
            || (l.starts_with("  ")
                && l.trim_start().starts_with("@ ")
                && l.contains(" insns")
                && l.contains(")   "));
        assert!(ok, "not a log line: {l:?}\n{}", r.stderr);
        let indent = l.len() - l.trim_start().len();
        assert!(indent % 2 == 0 && indent <= 2 * 3, "{l:?}");
    }
    assert!(
        r.stderr.contains("recursive inlining is too deep (max 2)"),
        "{}",
        r.stderr
    );
}

#[test]
fn bad_usage_and_bad_files() {
    let fib = "programs/examples/fib.bc";
    let cases: &[&[&str]] = &[
        &["inline", fib, "--policy=nope"],
        &["inline", fib, "--policy=static", "--inline-max-hot=50"],
        &["inline", fib, "--policy=static", "--hot-edge-pct=2"],
        &["inline", fib, "--policy=hot-edge", "--guard-min-pct=10"],
        &["inline", fib, "--policy=hot-edge", "--inline-max-cold=10"],
        &["inline", fib, "--policy=linear", "--inline-max-cold=10"],
        &["inline", fib, "--policy=hot-edge", "--inline-ramp-from=10"],
        &["inline", fib, "--policy=static", "--from-profile=x.json"],
        &["inline", fib, "--profile=none"],
        &["inline", fib, "--policy=static", "--profile=cbs"],
        &["inline", fib, "--hot-edge-pct=0"],
        &["inline", fib, "--guard-min-pct=100"],
        &["inline", fib, "--inline-depth=0"],
        &["inline", fib, "--inline-always=x"],
        &["inline", fib, "--from-profile=x.json", "--profile=cbs"],
        &["inline", fib, "--interval=1ms"],
        &["inline", fib, "--set", "nosuch=1"],
    ];
    for args in cases {
        let r = vm(args);
        r.assert_status(2);
        assert!(r.stdout.is_empty(), "`{}` printed {:?}", r.cmd, r.stdout);
    }
    vm(&["inline", "nope.bc"]).assert_status(66);
    let dir = harness::scratch("inline-bad");
    harness::write_program(&dir, "bad.bc", ".method main()\n  pop\n  ret\n.end\n");
    run_vm_in(&dir, &["inline", "bad.bc"], DEFAULT_TIMEOUT).assert_status(65);
    let r = vm(&["inline", fib, "--emit=/nonexistent/dir/out.bc"]);
    r.assert_status(66);
    assert!(
        r.stdout.is_empty(),
        "the program must not run before the emit path is checked"
    );
}
