//! `--sampler=safepoint|partial|self` and `--sample-threads` (docs/CLI.md
//! and docs/SAMPLERS.md): multi-threaded programs whose threads start, end,
//! sleep, join and throw, and programs stopped by `halt` or a runtime error,
//! while a sampler keeps requesting safepoints every 100 us. Each run must end (no deadlock: every run has a time limit),
//! print exactly its `.out`, and account for every sample: the samples the
//! sampler took are the samples recorded, every sample credits one method
//! and (with `--record=cct`) one calling context.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use profile::Profile;

use crate::harness::{self, run_vm_in, vm};

/// The sampler configurations every program runs under.
const SAMPLERS: &[&[&str]] = &[
    &["--sampler=safepoint"],
    &["--sampler=safepoint", "--record=dcg,cct", "--walk=marked"],
    &["--sampler=partial", "--sample-threads=1"],
    &["--sampler=partial", "--sample-threads=2", "--record=cct"],
    &[
        "--sampler=partial",
        "--sample-threads=3",
        "--record=dcg,cct",
        "--walk=marked",
    ],
    &["--sampler=self", "--sample-threads=1", "--record=dcg,cct"],
    &[
        "--sampler=self",
        "--sample-threads=2",
        "--record=cct",
        "--walk=marked",
    ],
    &["--sampler=self"],
    &[
        "--sampler=self",
        "--sample-threads=2",
        "--runnable-only",
        "--record=cct",
        "--walk=incremental",
    ],
    &[
        "--sampler=self",
        "--no-hold",
        "--record=dcg,cct",
        "--walk=incremental",
    ],
];

/// How many times each program runs under each configuration. A rare
/// hang needs more: `bench/soak.sh` runs each program thousands of times
/// under each sampler (docs/TESTING.md).
const REPEAT: usize = 8;

fn programs() -> Vec<PathBuf> {
    let files = harness::bc_files(&harness::programs_dir("samplers"));
    assert!(files.len() >= 7, "too few sampler programs: {files:?}");
    files
}

/// Checks one profile's books; returns the samples taken.
fn check_books(p: &Profile, sampler: &str, what: &str) -> Result<u64, String> {
    let samples = p.run.samples;
    let taken = p
        .run
        .samples_taken
        .ok_or(format!("{what}: no run.samples_taken"))?;
    let requested = p
        .run
        .samples_requested
        .ok_or(format!("{what}: no run.samples_requested"))?;
    let safepoints = p
        .run
        .safepoints
        .ok_or(format!("{what}: no run.safepoints"))?;
    p.run.held_ns.ok_or(format!("{what}: no run.held_ns"))?;
    let late = p.run.late_ns.ok_or(format!("{what}: no run.late_ns"))?;
    // Each tick is late by at most the time since the previous one's
    // time: the late spans do not overlap, and all fall in the run.
    if late > p.run.wall_ns {
        return Err(format!(
            "{what}: ticks {late} ns late in all, in a {} ns run",
            p.run.wall_ns
        ));
    }
    if p.config.sampler.as_deref() != Some(sampler) {
        return Err(format!("{what}: config.sampler is {:?}", p.config.sampler));
    }
    if taken != samples {
        return Err(format!(
            "{what}: the sampler took {taken} samples but {samples} were recorded"
        ));
    }
    if sampler != "safepoint" && taken > requested {
        return Err(format!(
            "{what}: {taken} samples taken, only {requested} requested"
        ));
    }
    if taken > 0 && safepoints == 0 {
        return Err(format!("{what}: samples without a safepoint"));
    }
    // Every sample credits exactly one method...
    let selfs: u64 = p.methods.iter().flatten().map(|m| m.self_).sum();
    if selfs != samples {
        return Err(format!(
            "{what}: methods[].self sums to {selfs}, run.samples is {samples}"
        ));
    }
    // ... and, with a calling context tree, exactly one context.
    if let Some(cct) = &p.cct {
        let cself: u64 = cct.iter().map(|c| c.self_).sum();
        if cself != samples {
            return Err(format!(
                "{what}: cct self sums to {cself}, run.samples is {samples}"
            ));
        }
    }
    Ok(taken)
}

fn run_one(path: &Path, config: &[&str], i: usize) -> Result<u64, String> {
    let dir = path.parent().expect("dir");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let expected = std::fs::read_to_string(path.with_extension("out")).expect(".out");
    let text = std::fs::read_to_string(path).expect(".bc");
    let status = harness::parse_header(&text, false)
        .map(|e| e.status)
        .unwrap_or(0);
    let out = harness::scratch(&format!(
        "samplers-{}-{}-{i}",
        name.trim_end_matches(".bc"),
        config.join("").replace(['-', '=', ','], "")
    ))
    .join("p.json");
    let out_s = out.display().to_string();
    let mut args = vec![
        "run",
        &name,
        "--profile=timer",
        "--interval=100us",
        "--profile-out",
        &out_s,
    ];
    args.extend_from_slice(config);
    let r = run_vm_in(dir, &args, Duration::from_secs(60));
    let what = format!("{} (run {i})", r.cmd);
    if let Some(c) = r.crash() {
        return Err(c);
    }
    if r.status != Some(status) || r.stdout != expected {
        return Err(format!(
            "{what}: status {:?} (expected {status}), stdout {:?} (expected {expected:?})\n{}",
            r.status,
            r.stdout,
            harness::clip(&r.stderr)
        ));
    }
    let p = Profile::read(&out).map_err(|e| format!("{what}: {e}"))?;
    let sampler = config[0].trim_start_matches("--sampler=");
    check_books(&p, sampler, &what)
}

#[test]
fn samplers_never_deadlock_lose_samples_or_change_output() {
    let mut jobs: Vec<(PathBuf, &[&str], usize)> = Vec::new();
    for p in programs() {
        for c in SAMPLERS {
            for i in 0..REPEAT {
                jobs.push((p.clone(), c, i));
            }
        }
    }
    let next = Mutex::new(0usize);
    let failures = Mutex::new(Vec::<String>::new());
    let taken = Mutex::new(std::collections::BTreeMap::<String, u64>::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some((path, config, k)) = jobs.get(i) else {
                    break;
                };
                match run_one(path, config, *k) {
                    Ok(t) => {
                        *taken
                            .lock()
                            .unwrap()
                            .entry(config[0].to_string())
                            .or_default() += t;
                    }
                    Err(e) => failures.lock().unwrap().push(e),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} failing runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Each sampler sampled something over all its runs.
    let taken = taken.into_inner().unwrap();
    for s in ["--sampler=safepoint", "--sampler=partial", "--sampler=self"] {
        assert!(
            taken.get(s).copied().unwrap_or(0) > 0,
            "{s} took no sample at all: {taken:?}"
        );
    }
}

#[test]
fn a_global_safepoint_samples_sleeping_and_joining_threads() {
    // joiners.bc keeps six threads blocked in `join` and one in `sleep`
    // for most of its run: a global safepoint holds and walks them too
    // (as at a backedge: the method, no edge), so `chain` gets samples in
    // which it is blocked in `join`.
    let dir = harness::programs_dir("samplers");
    let scratch = harness::scratch("samplers-blocked");
    let mut blocked_seen = false;
    for i in 0..20 {
        let out = scratch.join(format!("p{i}.json"));
        let out_s = out.display().to_string();
        let r = run_vm_in(
            &dir,
            &[
                "run",
                "joiners.bc",
                "--profile=timer",
                "--interval=100us",
                "--sampler=safepoint",
                "--record=cct",
                "--profile-out",
                &out_s,
            ],
            Duration::from_secs(60),
        );
        r.assert_status(0);
        let p = Profile::read(&out).unwrap();
        let taken = check_books(&p, "safepoint", &r.cmd).unwrap();
        let requested = p.run.samples_requested.unwrap();
        // A global safepoint asks for every live thread.
        assert!(taken <= requested + 7, "{taken} > {requested}");
        let chain_self = p
            .methods
            .iter()
            .flatten()
            .find(|m| m.name == "chain")
            .map_or(0, |m| m.self_);
        if chain_self > 0 {
            blocked_seen = true;
            break;
        }
    }
    assert!(blocked_seen, "no sample of a thread blocked in join");
}

/// Runs many.bc with `--set` for each of `sets` and `--profile=timer
/// --interval=100us --record=cct` and `flags`, writing the profile to
/// `out`; checks the exit status and the profile's books.
fn run_many(out: &Path, sets: &[&str], flags: &[&str]) -> Profile {
    let out_s = out.display().to_string();
    let mut args = vec!["run", "many.bc"];
    for s in sets {
        args.extend(["--set", s]);
    }
    args.extend(["--profile=timer", "--interval=100us", "--record=cct"]);
    args.extend_from_slice(flags);
    args.extend(["--profile-out", &out_s]);
    let r = run_vm_in(
        &harness::programs_dir("samplers"),
        &args,
        Duration::from_secs(60),
    );
    r.assert_status(0);
    let p = Profile::read(out).unwrap();
    let sampler = p.config.sampler.clone().unwrap();
    check_books(&p, &sampler, &r.cmd).unwrap();
    p
}

#[test]
fn runnable_only_keeps_waiting_threads_out_of_partial_safepoints() {
    // many.bc with one computing thread, seven sleepers and main blocked in
    // `join`; 16 samples a tick are enough for every thread. By default
    // (section 3.1) a partial safepoint then samples all nine live threads
    // at each tick; with --runnable-only only the runnable ones: the
    // computing thread, and a sleeper in the microseconds it is awake.
    let scratch = harness::scratch("samplers-runnable-only");
    for sampler in ["partial", "self"] {
        let mut per_tick = Vec::new();
        for extra in [None, Some("--runnable-only")] {
            let out = scratch.join(format!("{sampler}-{}.json", extra.is_some()));
            let s = format!("--sampler={sampler}");
            let mut flags = vec![s.as_str(), "--sample-threads=16"];
            flags.extend(extra);
            let sets = ["threads=8", "busy=1", "work=150000"];
            let p = run_many(&out, &sets, &flags);
            assert_eq!(p.config.runnable_only, extra.map(|_| true), "{flags:?}");
            let safepoints = p.run.safepoints.unwrap();
            assert!(safepoints >= 20, "{flags:?}: {safepoints} ticks");
            per_tick.push(p.run.samples_requested.unwrap() as f64 / safepoints as f64);
        }
        let (all, runnable) = (per_tick[0], per_tick[1]);
        assert!(
            all >= 5.0,
            "{sampler}: {all} samples a tick with waiting threads"
        );
        assert!(
            runnable <= 2.0,
            "{sampler}: {runnable} samples a tick, runnable only"
        );
    }
}

#[test]
fn no_hold_lets_self_sampling_threads_go_on() {
    // Two computing threads, --runnable-only: every sample is a thread
    // walking itself. The paper's self-sampling parks each one until both
    // have walked (held_ns > 0); with --no-hold nobody is ever held, and
    // every sample is still counted.
    let scratch = harness::scratch("samplers-no-hold");
    let mut held = Vec::new();
    for extra in [None, Some("--no-hold")] {
        let out = scratch.join(format!("p-{}.json", extra.is_some()));
        let mut flags = vec!["--sampler=self", "--runnable-only", "--walk=incremental"];
        flags.extend(extra);
        let p = run_many(&out, &["threads=2", "busy=2", "work=150000"], &flags);
        assert_eq!(p.config.no_hold, extra.map(|_| true), "{flags:?}");
        assert!(p.run.samples >= 20, "{flags:?}: {} samples", p.run.samples);
        held.push(p.run.held_ns.unwrap());
    }
    assert!(held[0] > 0, "the paper's self-sampling held nobody");
    assert_eq!(held[1], 0, "--no-hold held threads");
}

#[test]
fn sampler_options_that_do_not_apply_are_usage_errors() {
    let prog = harness::programs_dir("samplers").join("churn.bc");
    let prog = prog.to_str().unwrap();
    for bad in [
        &["--profile=cbs", "--sampler=self"][..],
        &["--profile=counter", "--sampler=partial"],
        &["--profile=exhaustive", "--sample-threads=2"],
        &["--sampler=self"],
        &["--profile=timer", "--sampler=jvmti"],
        &["--profile=timer", "--sampler=partial", "--sample-threads=0"],
        &[
            "--profile=timer",
            "--sampler=safepoint",
            "--sample-threads=2",
        ],
        &["--profile=timer", "--sampler=safepoint", "--clock=virtual"],
        &["--profile=timer", "--sampler=partial", "--clock=virtual"],
        &["--profile=timer", "--clock=virtual", "--sample-threads=2"],
        &["--profile=cbs", "--runnable-only"],
        &["--profile=timer", "--sampler=safepoint", "--runnable-only"],
        &["--profile=timer", "--clock=virtual", "--runnable-only"],
        &["--profile=cbs", "--no-hold"],
        &["--profile=timer", "--sampler=partial", "--no-hold"],
        &["--profile=timer", "--sampler=safepoint", "--no-hold"],
        &["--profile=timer", "--clock=virtual", "--no-hold"],
    ] {
        let mut args = vec!["run", prog];
        args.extend_from_slice(bad);
        let r = vm(&args);
        r.assert_status(2);
        assert!(r.stdout.is_empty(), "{}: the program ran", r.cmd);
        assert!(
            [
                "--sampler",
                "--sample-threads",
                "--runnable-only",
                "--no-hold"
            ]
            .iter()
            .any(|o| r.stderr.contains(o)),
            "{}: {}",
            r.cmd,
            r.stderr
        );
    }
    // Allowed: self under the virtual clock (every thread samples itself).
    vm(&[
        "run",
        prog,
        "--profile=timer",
        "--sampler=self",
        "--clock=virtual",
    ])
    .assert_status(0);
}

#[test]
fn the_profile_names_its_sampler() {
    let dir = harness::programs_dir("samplers");
    let scratch = harness::scratch("samplers-config");
    let out = scratch.join("p.json");
    let out_s = out.display().to_string();
    let cases: &[(&[&str], &str, Option<u64>)] = &[
        (&[], "self", None),
        (
            &["--sampler=partial", "--sample-threads=3"],
            "partial",
            Some(3),
        ),
        (&["--sampler=safepoint"], "safepoint", None),
    ];
    for (extra, name, threads) in cases {
        let mut args = vec![
            "run",
            "churn.bc",
            "--profile=timer",
            "--profile-out",
            &out_s,
        ];
        args.extend_from_slice(extra);
        let r = run_vm_in(&dir, &args, Duration::from_secs(60));
        r.assert_status(0);
        let p = Profile::read(&out).unwrap();
        assert_eq!(p.config.sampler.as_deref(), Some(*name), "{}", r.cmd);
        if let Some(n) = threads {
            assert_eq!(p.config.sample_threads, Some(*n), "{}", r.cmd);
        } else if *name == "safepoint" {
            assert_eq!(p.config.sample_threads, None);
        } else {
            // The default: the number of cores.
            assert!(p.config.sample_threads.unwrap() >= 1);
        }
        check_books(&p, name, &r.cmd).unwrap();
    }
    // The virtual clock has no sampler thread: no sampler counters.
    let r = run_vm_in(
        &dir,
        &[
            "run",
            "churn.bc",
            "--profile=timer",
            "--clock=virtual",
            "--profile-out",
            &out_s,
        ],
        Duration::from_secs(60),
    );
    r.assert_status(0);
    let p = Profile::read(&out).unwrap();
    assert_eq!(p.config.sampler.as_deref(), Some("self"));
    assert!(p.run.samples_taken.is_none() && p.run.held_ns.is_none());
    assert!(p.run.late_ns.is_none());
}

/// Method name to self samples of a wall-clock timer profile of `text`
/// (`main` calling `ENTRY`, which the caller names).
fn timer_selfs(name: &str, text: &str) -> std::collections::BTreeMap<String, u64> {
    let dir = harness::scratch(&format!("samplers-hot-{name}"));
    harness::write_program(&dir, "hot.bc", text);
    let out = dir.join("p.json").display().to_string();
    let args = [
        "run",
        "hot.bc",
        "--profile=timer",
        "--interval=100us",
        "--profile-out",
        &out,
    ];
    let r = run_vm_in(&dir, &args, Duration::from_secs(120));
    r.assert_status(0);
    let p = Profile::read(Path::new(&out)).expect("a profile");
    p.methods
        .iter()
        .flatten()
        .map(|m| (m.name.clone(), m.self_))
        .collect()
}

#[test]
fn timer_ticks_stop_hot_loops_at_their_backedges_and_hot_calls_at_theirs() {
    // A loop whose only yieldpoint in the loop is its backward jump, run
    // as the plain interpreter's fused counted loop (`inc` and the
    // rotated test in one dispatch, which notices a tick through the loop
    // trip): ticks land in `spin`, not only at its prologue and epilogue.
    let spin = r#"
.method spin()
  .locals i n
  push 200000000
  store n
loop:
  load i
  load n
  jge done
  inc i 1
  jmp loop
done:
  load i
  ret
.end
.method main()
  call spin
  print
  push 0
  ret
.end
"#;
    let selfs = timer_selfs("spin", spin);
    let in_spin = selfs.get("spin").copied().unwrap_or(0);
    assert!(in_spin >= 20, "ticks in the loop: {selfs:?}");
    // A loop of calls to a leaf: the leaf's prologue and epilogue
    // yieldpoints (the frame limit) take ticks too.
    let calls = r#"
.method leaf(x)
  load x
  ret
.end
.method calls()
  .locals i n
  push 20000000
  store n
loop:
  load i
  load n
  jge done
  load i
  call leaf
  pop
  inc i 1
  jmp loop
done:
  load i
  ret
.end
.method main()
  call calls
  print
  push 0
  ret
.end
"#;
    let selfs = timer_selfs("calls", calls);
    let in_leaf = selfs.get("leaf").copied().unwrap_or(0);
    assert!(in_leaf >= 5, "ticks in the leaf: {selfs:?}");
}
