//! The simulated machine (`vm run --clock=virtual --cores=N`,
//! docs/SAMPLERS.md, "Simulated cores"): every program that starts threads
//! prints one of its legal outputs on 1, 2 and 8 simulated cores, under
//! every profile; two runs with the same seed print the same output and
//! write the same profile; virtual time is what the cores make of the
//! cycles (one core: the cycles summed; `sleep` costs no real time); the
//! quantum decides the interleaving; bad options are usage errors.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use vm::profiler_cost::CostItem;

use crate::harness;

const CORES: [&str; 3] = ["--cores=1", "--cores=2", "--cores=8"];
const PROFILES: [&str; 4] = [
    "--profile=exhaustive",
    "--profile=counter",
    "--profile=cbs",
    "--profile=timer",
];

/// Every test program (tests/programs, the verifier's excepted) and every
/// program under programs/ whose code spawns a thread.
fn thread_programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs = Vec::new();
    for top in ["tests/programs", "programs"] {
        let Ok(entries) = std::fs::read_dir(root.join(top)) else {
            continue;
        };
        for e in entries.flatten() {
            if e.path().is_dir() && e.file_name() != "verifier" {
                dirs.push(e.path());
            }
        }
    }
    let mut out = Vec::new();
    for d in dirs {
        for p in harness::bc_files(&d) {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            let spawns = text.lines().any(|l| {
                let code = l.split(';').next().unwrap_or("");
                code.split_whitespace().next() == Some("spawn")
            });
            if spawns {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Checks one program run with `extra` arguments: a test program with an
/// `.out` file against it and its header, as the table-driven tests do;
/// an example (programs/) by its exit status and exact stdout, as
/// `examples.rs` does; any other program against its run on real threads
/// (the same status, the same lines in any order).
fn check_program(p: &Path, extra: &[&str]) -> Vec<String> {
    let mut text = std::fs::read_to_string(p).unwrap_or_default();
    let out = p.with_extension("out");
    let test_program = p.to_string_lossy().contains("tests/programs");
    // The samplers' programs have directives of their own (read by
    // samplers.rs): leave those out, keep every other one.
    let e = loop {
        match harness::parse_header(&text, test_program) {
            Ok(e) => break e,
            Err(e) => match e.split('`').nth(1) {
                Some(key) if e.starts_with("unknown header directive") => {
                    let key = key.to_string();
                    text = text
                        .lines()
                        .filter(|l| !l.starts_with(&key))
                        .map(|l| format!("{l}\n"))
                        .collect();
                }
                _ => return vec![format!("bad header: {e}")],
            },
        }
    };
    if test_program && out.exists() {
        return harness::check_running_program(p, &e, extra);
    }
    let dir = p.parent().expect("a directory");
    let name = p.file_name().unwrap().to_str().unwrap();
    let mut args = vec!["run", name];
    args.extend(e.args.iter().map(String::as_str));
    let plain = args.clone();
    args.extend_from_slice(extra);
    let r = harness::run_vm_in(dir, &args, e.timeout);
    if let Some(c) = r.crash() {
        return vec![c];
    }
    let mut f = Vec::new();
    if out.exists() {
        let expected = std::fs::read_to_string(&out).unwrap();
        if r.status != Some(e.status) {
            f.push(format!(
                "exit status: expected {}, got {:?}",
                e.status, r.status
            ));
        }
        if r.stdout != expected {
            f.push(format!(
                "stdout differs\n--- expected\n{}--- got\n{}---",
                harness::clip(&expected),
                harness::clip(&r.stdout)
            ));
        }
    } else {
        let real = harness::run_vm_in(dir, &plain, e.timeout);
        if r.status != real.status {
            f.push(format!(
                "exit status: {:?} on real threads, {:?} here",
                real.status, r.status
            ));
        }
        let mut want: Vec<&str> = real.stdout.lines().collect();
        let mut got: Vec<&str> = r.stdout.lines().collect();
        want.sort_unstable();
        got.sort_unstable();
        if want != got {
            f.push(format!(
                "stdout (sorted) differs from the run on real threads\n--- real\n{}--- here\n{}---",
                harness::clip(&real.stdout),
                harness::clip(&r.stdout)
            ));
        }
    }
    f
}

/// Runs every thread program with `extra` arguments (see
/// [`check_program`]); panics listing every failure. `small` keeps only
/// the short programs (tests/programs/threads and the examples).
fn check_thread_programs(extra: &[&str], small: bool) {
    let mut programs = thread_programs();
    assert!(
        programs.len() >= 30,
        "expected the thread programs of tests/programs and programs/, found {}",
        programs.len()
    );
    if small {
        programs.retain(|p| {
            let s = p.to_string_lossy();
            s.contains("/threads/") || s.contains("/examples/")
        });
    }
    let mut report = String::new();
    for p in &programs {
        let failures = check_program(p, extra);
        if !failures.is_empty() {
            let _ = writeln!(report, "\n=== {} ({})", p.display(), extra.join(" "));
            for f in failures {
                let _ = writeln!(report, "  - {}", f.replace('\n', "\n    "));
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn thread_programs_print_a_legal_output_on_1_2_and_8_cores() {
    for cores in CORES {
        check_thread_programs(&["--clock=virtual", cores], false);
    }
}

#[test]
fn thread_programs_under_every_profile() {
    for profile in PROFILES {
        for cores in ["--cores=1", "--cores=8"] {
            check_thread_programs(&["--clock=virtual", cores, profile, "--seed=3"], false);
        }
    }
}

/// Single-threaded programs print exactly what they print on real threads
/// (their `.out` files, compared unsorted).
#[test]
fn single_threaded_programs_are_unchanged() {
    for cores in ["--cores=1", "--cores=2"] {
        harness::check_dir(
            "instructions",
            harness::Mode::Run,
            &["--clock=virtual", cores],
        );
        harness::check_dir(
            "runtime_errors",
            harness::Mode::Run,
            &["--clock=virtual", cores],
        );
    }
}

/// A quantum of 1 cycle switches threads at every yieldpoint (on the short
/// programs: every switch is a hand-over between two OS threads), one of
/// 10 ms of virtual time rarely: both are legal. (A quantum longer than
/// a program's run is legal too, but a thread that spins until another
/// stops the program then keeps its core for the whole quantum:
/// `samplers/crash.bc` with 2 cores and 10^12 cycles runs for minutes.)
#[test]
fn thread_programs_with_extreme_quanta() {
    check_thread_programs(&["--clock=virtual", "--cores=2", "--quantum=1"], true);
    check_thread_programs(
        &["--clock=virtual", "--cores=2", "--quantum=10000000"],
        false,
    );
}

/// Without yieldpoints a thread keeps its core until it blocks or ends:
/// the thread programs, which all end or block, print the same.
#[test]
fn without_yieldpoints_threads_switch_where_they_block() {
    harness::check_dir(
        "threads",
        harness::Mode::Run,
        &["--no-yieldpoints", "--clock=virtual", "--cores=2"],
    );
}

fn run_in(dir: &Path, args: &[&str]) -> harness::Run {
    let r = harness::run_vm_in(dir, args, harness::DEFAULT_TIMEOUT);
    assert!(r.crash().is_none(), "{}: {:?}", r.cmd, r.crash());
    r
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).expect("profile written");
    serde_json::from_str(&text).expect("profile is JSON")
}

/// Two runs with the same seed: the same stdout, stderr and status, and a
/// byte-identical profile.
#[test]
fn same_seed_same_output_and_profile() {
    let dir = harness::scratch("cores_same_seed");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let programs: [(&str, &[&str]); 5] = [
        ("tests/programs/samplers/many.bc", &["--set", "threads=8"]),
        ("tests/programs/samplers/joiners.bc", &[]),
        ("tests/programs/samplers/churn.bc", &[]),
        ("tests/programs/threads/print_no_interleave.bc", &[]),
        ("programs/examples/threads.bc", &[]),
    ];
    let mut sampled = 0;
    for (program, set) in programs {
        let path = root.join(program);
        let path = path.to_str().expect("utf-8 path");
        for profile in PROFILES {
            for cores in ["--cores=2", "--cores=8"] {
                let mut runs = Vec::new();
                for i in 0..2 {
                    let out = dir.join(format!("p{i}.json"));
                    let mut args = vec![
                        "run",
                        path,
                        "--clock=virtual",
                        cores,
                        profile,
                        "--seed=11",
                        "--record=cct",
                        "--profile-out",
                        out.to_str().unwrap(),
                    ];
                    args.extend_from_slice(set);
                    let r = run_in(&dir, &args);
                    let bytes = std::fs::read(&out).expect("profile written");
                    runs.push((r, bytes));
                }
                let (a, b) = (&runs[0], &runs[1]);
                assert_eq!(a.0.stdout, b.0.stdout, "stdout of {}", a.0.cmd);
                assert_eq!(a.0.stderr, b.0.stderr, "stderr of {}", a.0.cmd);
                assert_eq!(a.0.status, b.0.status, "status of {}", a.0.cmd);
                assert!(a.1 == b.1, "the profiles of two runs of {} differ", a.0.cmd);
                let p: serde_json::Value = serde_json::from_slice(&a.1).unwrap();
                if p["run"]["samples"].as_u64().unwrap_or(0) > 0 {
                    sampled += 1;
                }
            }
        }
    }
    // The profiles compared were not empty ones (16 of the 24 sampling
    // profiles have samples; the others' programs are short).
    assert!(sampled >= 12, "only {sampled} profiles had samples");
}

/// Two threads printing in loops, joined by main.
const TWO_PRINTERS: &str = "\
.method talk(s, n)
loop:
  load n
  jz done
  load s
  print
  inc n -1
  jmp loop
done:
  push 0
  ret
.end
.method main()
  .locals a b
  push \"a\"
  push 100
  spawn talk
  store a
  push \"b\"
  push 100
  spawn talk
  store b
  load a
  join
  load b
  join
  add
  pop
  push 0
  ret
.end
";

/// How many times consecutive lines change between `a` and `b`.
fn switches(stdout: &str) -> usize {
    let lines: Vec<&str> = stdout.lines().collect();
    lines.windows(2).filter(|w| w[0] != w[1]).count()
}

/// On one core a thread runs until its quantum is spent: with a huge
/// quantum the first thread prints all its lines before the second starts;
/// with a quantum of a few instructions they alternate.
#[test]
fn the_quantum_decides_the_interleaving() {
    let dir = harness::scratch("cores_quantum");
    harness::write_program(&dir, "p.bc", TWO_PRINTERS);
    let whole = run_in(
        &dir,
        &[
            "run",
            "p.bc",
            "--clock=virtual",
            "--cores=1",
            "--quantum=1000000000",
        ],
    );
    whole.assert_status(0);
    assert_eq!(
        whole.stdout,
        format!("{}{}", "a\n".repeat(100), "b\n".repeat(100))
    );
    let fine = run_in(
        &dir,
        &[
            "run",
            "p.bc",
            "--clock=virtual",
            "--cores=1",
            "--quantum=20",
        ],
    );
    fine.assert_status(0);
    assert_eq!(fine.stdout.lines().filter(|l| *l == "a").count(), 100);
    assert_eq!(fine.stdout.lines().filter(|l| *l == "b").count(), 100);
    assert!(
        switches(&fine.stdout) > 50,
        "with a 20-cycle quantum the threads should alternate:\n{}",
        fine.stdout
    );
}

/// Two threads computing, joined by main.
const TWO_WORKERS: &str = "\
.method work(n)
  .locals s
loop:
  load n
  jz done
  load s
  load n
  add
  store s
  inc n -1
  jmp loop
done:
  load s
  ret
.end
.method main()
  .locals a b
  push 200000
  spawn work
  store a
  push 200000
  spawn work
  store b
  load a
  join
  load b
  join
  add
  print
  push 0
  ret
.end
";

/// The run's length in virtual time (`run.wall_ns` of the profile): on
/// one core, exactly the cycles of all threads (the core never idles);
/// on two cores, two equal workers take about half as long.
#[test]
fn virtual_time_is_what_the_cores_make_of_the_cycles() {
    let dir = harness::scratch("cores_makespan");
    harness::write_program(&dir, "p.bc", TWO_WORKERS);
    let mut length = Vec::new();
    for cores in ["--cores=1", "--cores=2", "--cores=8"] {
        let r = run_in(
            &dir,
            &[
                "run",
                "p.bc",
                "--clock=virtual",
                cores,
                "--profile=exhaustive",
                "--profile-out",
                "p.json",
            ],
        );
        r.assert_status(0);
        assert_eq!(r.stdout, "40000200000\n");
        let p = json(&dir.join("p.json"));
        let wall = p["run"]["wall_ns"].as_u64().expect("wall_ns");
        // The profiler's work (here the exhaustive profile's counting)
        // takes the threads' time too; the session's own start and end
        // (`session`, `session_method`) run on no program thread.
        let work = &p["run"]["profiler_work"];
        let count = |item: CostItem| work[item.name()].as_u64().unwrap_or(0);
        let session = (count(CostItem::Session) * CostItem::Session.centicycles()
            + count(CostItem::SessionMethod) * CostItem::SessionMethod.centicycles())
            / 100;
        assert!(session > 0, "{work}");
        let cycles = p["run"]["cycles"].as_u64().expect("cycles")
            + p["run"]["profiler_cycles"]
                .as_u64()
                .expect("profiler_cycles")
            - session;
        length.push((wall, cycles));
    }
    let (one, cycles) = length[0];
    // Within a cycle per thread: each thread's charged work is rounded
    // down to whole cycles on its own.
    assert!(
        one.abs_diff(cycles) <= 3,
        "one core: the run takes every thread's cycles and the profiler's work: {one} against {cycles}"
    );
    let (two, _) = length[1];
    assert!(
        two * 10 < one * 6 && two * 10 > one * 4,
        "two cores: about half of {one}, got {two}"
    );
    // On 8 cores main has a core of its own too: at most a little shorter.
    assert!(
        length[2].0 <= two && length[2].0 * 100 > two * 99,
        "8 cores: about as long as 2 for 2 workers ({two}), got {}",
        length[2].0
    );
}

/// `sleep` advances virtual time and costs no real time.
#[test]
fn sleep_advances_virtual_time_only() {
    let dir = harness::scratch("cores_sleep");
    harness::write_program(
        &dir,
        "s.bc",
        ".method main()\n  push 30000\n  sleep\n  push \"woke\"\n  print\n  push 0\n  ret\n.end\n",
    );
    let r = run_in(
        &dir,
        &[
            "run",
            "s.bc",
            "--clock=virtual",
            "--cores=1",
            "--profile=counter",
            "--profile-out",
            "p.json",
        ],
    );
    r.assert_status(0);
    assert_eq!(r.stdout, "woke\n");
    assert!(r.elapsed < Duration::from_secs(20), "took {:?}", r.elapsed);
    let wall = json(&dir.join("p.json"))["run"]["wall_ns"]
        .as_u64()
        .expect("wall_ns");
    assert!(wall >= 30_000_000_000, "virtual length {wall}");
}

/// Two threads joining each other: the deadlock is reported as on real
/// threads (status 70, `runtime error: deadlock: ...`).
#[test]
fn a_deadlock_is_reported_as_on_real_threads() {
    let dir = harness::scratch("cores_deadlock");
    harness::write_program(
        &dir,
        "d.bc",
        ".method other()\n  push 0\n  join\n  ret\n.end\n.method main()\n  .locals t\n  spawn other\n  store t\n  push 5\n  sleep\n  load t\n  join\n  print\n  push 0\n  ret\n.end\n",
    );
    let real = run_in(&dir, &["run", "d.bc"]);
    for cores in CORES {
        let r = run_in(&dir, &["run", "d.bc", "--clock=virtual", cores]);
        r.assert_status(70);
        assert_eq!(r.status, real.status);
        assert!(
            r.stderr
                .contains("runtime error: deadlock: thread 0 and thread 1 wait for each other"),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn bad_machines_are_usage_errors() {
    let dir = harness::scratch("cores_bad");
    harness::write_program(
        &dir,
        "p.bc",
        ".method main()\n  push 1\n  print\n  push 0\n  ret\n.end\n",
    );
    let cases: [(&[&str], &str); 7] = [
        (&["--cores=2"], "--cores needs --clock=virtual"),
        (
            &["--cores=2", "--clock=wall"],
            "--cores needs --clock=virtual",
        ),
        (&["--cores=0", "--clock=virtual"], "--cores=0"),
        (&["--cores=100000", "--clock=virtual"], "--cores=100000"),
        (
            &["--cores=2", "--clock=virtual", "--quantum=0"],
            "--quantum=0",
        ),
        (&["--quantum=10"], "--quantum applies only with --cores"),
        (
            &["--cores=2", "--clock=virtual", "--adaptive"],
            "--cores does not apply with --adaptive",
        ),
    ];
    for (args, message) in cases {
        let mut all = vec!["run", "p.bc"];
        all.extend_from_slice(args);
        let r = run_in(&dir, &all);
        r.assert_status(2);
        assert!(r.stdout.is_empty(), "{}: the program ran", r.cmd);
        assert!(r.stderr.contains(message), "{}: {}", r.cmd, r.stderr);
    }
    // And the good ones run.
    for args in [
        &["--cores=1", "--clock=virtual"][..],
        &["--cores=3", "--clock=virtual", "--quantum=7"][..],
    ] {
        let mut all = vec!["run", "p.bc"];
        all.extend_from_slice(args);
        let r = run_in(&dir, &all);
        r.assert_status(0);
        assert_eq!(r.stdout, "1\n");
    }
}

/// The many-thread samplers on the simulated machine, as `vm run` names
/// them (docs/SAMPLERS.md, "Simulated cores").
const SAMPLERS: [&[&str]; 6] = [
    &["--sampler=safepoint"],
    &["--sampler=partial"],
    &["--sampler=self"],
    &["--sampler=self", "--walk=marked", "--record=cct"],
    &["--sampler=self", "--walk=incremental", "--record=cct"],
    &["--sampler=safepoint", "--walk=incremental", "--record=cct"],
];

/// Every sampler on 1, 2 and 8 simulated cores, ticking every 100 us of
/// virtual time, leaves the output of the threads' and samplers' programs
/// as it is on real threads (sorted, where their order is free).
#[test]
fn every_sampler_leaves_the_output_on_1_2_and_8_cores() {
    let mut programs = thread_programs();
    programs.retain(|p| {
        let s = p.to_string_lossy();
        s.contains("/threads/") || s.contains("/samplers/")
    });
    assert!(programs.len() >= 10, "found {} programs", programs.len());
    let mut report = String::new();
    for sampler in SAMPLERS {
        for cores in CORES {
            let mut extra = vec![
                "--clock=virtual",
                cores,
                "--profile=timer",
                "--interval=100us",
                "--seed=5",
            ];
            extra.extend_from_slice(sampler);
            for p in &programs {
                for f in check_program(p, &extra) {
                    let _ = writeln!(report, "\n=== {} ({})", p.display(), extra.join(" "));
                    let _ = writeln!(report, "  - {}", f.replace('\n', "\n    "));
                }
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// One run of `tests/programs/samplers/many.bc` (`threads` threads, all
/// computing) on `cores` simulated cores with `profile`: its
/// profile (None for `--profile=none`) and its length in virtual time.
fn many_run(
    dir: &Path,
    threads: u32,
    cores: u32,
    profile: &[&str],
) -> (Option<serde_json::Value>, u64) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let prog = root.join("tests/programs/samplers/many.bc");
    let out = dir.join("many.json");
    let _ = std::fs::remove_file(&out);
    // Every thread computes: a sleeper would end the run at the end of
    // its sleep, whatever the samplers cost the computing threads.
    let busy = format!("busy={threads}");
    let (threads, cores) = (format!("threads={threads}"), format!("--cores={cores}"));
    let mut args = vec![
        "run",
        prog.to_str().unwrap(),
        "--set",
        &threads,
        "--set",
        &busy,
        "--set",
        "work=20000",
        "--clock=virtual",
        &cores,
        "--stats",
    ];
    args.extend_from_slice(profile);
    let sampled = profile.contains(&"--profile=timer");
    let out_arg = format!("--profile-out={}", out.display());
    if sampled {
        args.push(&out_arg);
        args.push("--seed=9");
    }
    let r = run_in(dir, &args);
    r.assert_status(0);
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("vm: stats:"))
        .unwrap_or_else(|| panic!("{}: no stats line in {}", r.cmd, r.stderr));
    let ns = line
        .split_whitespace()
        .skip_while(|w| *w != "virtual-ns")
        .nth(1)
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("{}: no virtual-ns in {line}", r.cmd));
    (sampled.then(|| json(&out)), ns)
}

/// What the model implies: a global safepoint holds every thread while
/// the sampler thread walks every stack, a partial one holds a few, and
/// self-sampling threads walk themselves in parallel; so on the same run
/// the thread-cycles paused are strictly ordered (and the global
/// safepoint's ticks take longest), every sampler makes the run longer
/// than `--profile=none` on the same cores, and the profile's
/// `run.wall_ns` is that length.
#[test]
fn pause_and_walk_cycles_follow_the_protocols() {
    let dir = harness::scratch("cores_pause");
    for (threads, cores) in [(8, 8), (8, 2)] {
        let (_, plain) = many_run(&dir, threads, cores, &["--profile=none"]);
        let (mut pauses, mut medians) = (Vec::new(), Vec::new());
        for sampler in ["safepoint", "partial", "self"] {
            let s = format!("--sampler={sampler}");
            let (p, ns) = many_run(
                &dir,
                threads,
                cores,
                &["--profile=timer", "--interval=100us", "--record=cct", &s],
            );
            let p = p.expect("a profile");
            let run = &p["run"];
            let what = format!("{sampler} on {threads} threads, {cores} cores");
            let pause = run["pause_cycles"].as_u64().expect("pause_cycles");
            let walk = run["walk_cycles"].as_u64().expect("walk_cycles");
            assert!(pause > 0 && walk > 0, "{what}: {run}");
            assert!(ns > plain, "{what}: {ns} cycles, plain {plain}");
            assert_eq!(run["wall_ns"].as_u64(), Some(ns), "{what}");
            assert!(
                run["safepoints"].as_u64().unwrap_or(0) > 10,
                "{what}: {run}"
            );
            assert_eq!(run["samples_taken"], run["samples"], "{what}: {run}");
            assert_eq!(p["config"]["cores"].as_u64(), Some(u64::from(cores)));
            assert_eq!(p["config"]["quantum"].as_u64(), Some(100_000));
            assert!(run.get("held_ns").is_none(), "{what}: a real-time key");
            // The ticks' latencies: quantiles in order, none zero (every
            // tick stops someone).
            let l = &run["latency_cycles"];
            let q: Vec<u64> = ["p2_5", "q1", "median", "q3", "p97_5", "max"]
                .iter()
                .map(|k| {
                    l[k].as_u64()
                        .unwrap_or_else(|| panic!("{what}: {k} in {run}"))
                })
                .collect();
            assert!(
                q[0] > 0 && q.windows(2).all(|w| w[0] <= w[1]),
                "{what}: {q:?}"
            );
            pauses.push(pause);
            medians.push(q[2]);
        }
        assert!(
            pauses[0] > pauses[1] && pauses[0] > pauses[2],
            "{threads} threads, {cores} cores: pauses safepoint, partial, self {pauses:?}"
        );
        // The global safepoint walks every stack before it releases: its
        // median tick is the longest.
        assert!(
            medians[0] > medians[1] && medians[0] > medians[2],
            "{threads} threads, {cores} cores: median latencies safepoint, partial, self {medians:?}"
        );
    }
}

/// The samplers with their options, twice with the same seed: the same
/// output and byte for byte the same profile.
#[test]
fn simulated_samplers_are_deterministic() {
    let dir = harness::scratch("cores_sampler_seed");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let prog = root.join("tests/programs/samplers/many.bc");
    let prog = prog.to_str().unwrap();
    let extras: [&[&str]; 7] = [
        &["--sampler=safepoint"],
        &["--sampler=partial", "--sample-threads=3"],
        &["--sampler=self", "--walk=full"],
        &["--sampler=self", "--walk=incremental"],
        &[
            "--sampler=safepoint",
            "--walk=incremental",
            "--set",
            "depth=6",
        ],
        &["--sampler=self", "--no-hold", "--walk=marked"],
        &["--sampler=partial", "--runnable-only"],
    ];
    for extra in extras {
        let mut runs = Vec::new();
        for i in 0..2 {
            let out = dir.join(format!("s{i}.json"));
            let out_arg = format!("--profile-out={}", out.display());
            let mut args = vec![
                "run",
                prog,
                "--set",
                "threads=12",
                "--set",
                "work=20000",
                "--clock=virtual",
                "--cores=4",
                "--profile=timer",
                "--interval=200us",
                "--record=cct",
                "--seed=4",
                &out_arg,
            ];
            args.extend_from_slice(extra);
            let r = run_in(&dir, &args);
            r.assert_status(0);
            runs.push((r.stdout, std::fs::read(&out).expect("profile written")));
        }
        assert_eq!(runs[0].0, runs[1].0, "{extra:?}: stdout");
        assert!(runs[0].1 == runs[1].1, "{extra:?}: the profiles differ");
        let p: serde_json::Value = serde_json::from_slice(&runs[0].1).unwrap();
        assert!(p["run"]["samples"].as_u64().unwrap_or(0) > 0, "{extra:?}");
    }
}

/// The sampler options that shape a partial safepoint apply on the
/// simulated machine; what still does not apply is a usage error.
#[test]
fn sampler_options_on_the_simulated_machine() {
    let dir = harness::scratch("cores_sampler_options");
    harness::write_program(
        &dir,
        "p.bc",
        ".method main()\n  push 1\n  print\n  push 0\n  ret\n.end\n",
    );
    let sim = [
        "run",
        "p.bc",
        "--clock=virtual",
        "--cores=2",
        "--profile=timer",
    ];
    for good in [
        &["--sampler=safepoint"][..],
        &["--sampler=partial", "--sample-threads=2", "--runnable-only"],
        &["--sampler=self", "--no-hold"],
    ] {
        let mut all = sim.to_vec();
        all.extend_from_slice(good);
        let r = run_in(&dir, &all);
        r.assert_status(0);
        assert_eq!(r.stdout, "1\n", "{}", r.cmd);
    }
    let cases: [(&[&str], &str); 5] = [
        (
            &["--sampler=safepoint", "--sample-threads=2"],
            "--sample-threads",
        ),
        (&["--sampler=partial", "--no-hold"], "--no-hold"),
        (
            &["--sampler=safepoint", "--runnable-only"],
            "--runnable-only",
        ),
        (&["--tune"], "--tune does not apply with --cores"),
        (&["--sampler=partial", "--sample-threads=0"], "at least 1"),
    ];
    for (args, message) in cases {
        let mut all = sim.to_vec();
        all.extend_from_slice(args);
        let r = run_in(&dir, &all);
        r.assert_status(2);
        assert!(r.stdout.is_empty(), "{}: the program ran", r.cmd);
        assert!(r.stderr.contains(message), "{}: {}", r.cmd, r.stderr);
    }
    // Without --cores the virtual clock still has no sampler thread.
    let r = run_in(
        &dir,
        &[
            "run",
            "p.bc",
            "--clock=virtual",
            "--profile=timer",
            "--sampler=partial",
        ],
    );
    r.assert_status(2);
    assert!(r.stderr.contains("--clock=wall"), "{}", r.stderr);
}
