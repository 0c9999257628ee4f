//! Profiling never changes what a program does: every program we have (the
//! examples, the benchmarks, the Are We Fast Yet suite at its default
//! sizes, and every running test program) prints the same stdout and exits
//! with the same status under profiling as without it. Programs whose
//! threads print in a free order (header `; sort-stdout: yes`) are
//! compared as sorted lines.
//!
//! The configurations ([`PROFILES`]) are several settings of each
//! `--profile` kind, stack walks (`--walk=full|marked|incremental` into
//! `--record=cct`), the PCCT and the ACCT (with its return-address
//! trampolines), the samplers, `--tune` and `--adaptive` (recompiled code
//! installed while the program runs). Each program runs under a share of
//! them, in turn, so that every configuration meets many programs while
//! the test costs a fraction of the whole matrix: a short program under
//! every [`SHORT_EVERY`]th configuration (starting at its own index), a
//! long-running one (benchmarks, GC stress, Havlak) under a rotating
//! [`LONG_SHARE`] of [`ONE_PER_KIND`]. `DIFFERENTIAL=all` runs every
//! program under every configuration (a few minutes; do it after changing
//! the profiler, docs/TESTING.md). Random programs under every walk are in
//! `incremental.rs`.
//!
//! The reference a profiled run is compared with is a plain run, except in
//! the directories of [`PLAIN_RUNS_CHECKED`], whose tests already compare
//! each program's plain run with its `.out` file and header status: there
//! the `.out` and the status are the reference, and the plain run is not
//! made twice.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::harness::{self, run_vm_in};

/// The profiling configurations every program is run under.
const PROFILES: &[&[&str]] = &[
    &["--profile=exhaustive"],
    &["--profile=exhaustive", "--record=cct", "--no-yieldpoints"],
    &["--profile=timer", "--interval=100us"],
    // Samplers (docs/SAMPLERS.md): walks by the sampler thread on held
    // threads, and self-walks, must stay invisible to the program.
    &["--profile=timer", "--interval=100us", "--sampler=safepoint"],
    &[
        "--profile=timer",
        "--interval=100us",
        "--sampler=partial",
        "--sample-threads=1",
        "--record=cct",
        "--walk=marked",
    ],
    &[
        "--profile=timer",
        "--interval=100us",
        "--sampler=self",
        "--sample-threads=2",
        "--record=dcg,cct",
    ],
    &[
        "--profile=timer",
        "--interval=100us",
        "--sampler=self",
        "--runnable-only",
        "--no-hold",
        "--record=cct",
        "--walk=incremental",
    ],
    &["--profile=cbs"],
    &[
        "--profile=cbs",
        "--interval=100us",
        "--stride=1",
        "--samples=64",
    ],
    &[
        "--profile=cbs",
        "--clock=virtual",
        "--interval=10us",
        "--seed=3",
    ],
    &[
        "--profile=timer",
        "--clock=virtual",
        "--interval=10us",
        "--seed=3",
    ],
    &["--profile=counter", "--every=7"],
    // The SSCLI Call Context Map, both walks (marked writes mark bits),
    // and the self-tuning interval, which changes the clock or the
    // counter while the program runs.
    &[
        "--profile=counter",
        "--every=3",
        "--record=dcg,ccmap",
        "--walk=marked",
        "--tune",
    ],
    &[
        "--profile=timer",
        "--clock=virtual",
        "--interval=10us",
        "--seed=3",
        "--record=ccmap",
        "--max-walk=8",
        "--tune",
    ],
    &[
        "--profile=cbs",
        "--interval=100us",
        "--record=ccmap",
        "--tune",
    ],
    // Stack walks into a sampled calling context tree: marks written into
    // return words and slots must stay invisible to the program.
    &[
        "--profile=counter",
        "--every=3",
        "--record=dcg,cct",
        "--walk=full",
    ],
    &[
        "--profile=counter",
        "--every=5",
        "--record=cct",
        "--walk=marked",
        "--max-walk=4",
    ],
    &[
        "--profile=cbs",
        "--interval=100us",
        "--stride=1",
        "--record=cct",
        "--walk=marked",
    ],
    &[
        "--profile=timer",
        "--clock=virtual",
        "--interval=10us",
        "--seed=3",
        "--record=cct",
        "--walk=full",
        "--max-walk=8",
    ],
    // Incremental stack tracing: return words patched with trampolines,
    // returned and unwound through, restored at thread end.
    &[
        "--profile=counter",
        "--every=1",
        "--record=cct",
        "--walk=incremental",
    ],
    &[
        "--profile=counter",
        "--every=3",
        "--record=dcg,cct",
        "--walk=incremental",
    ],
    &[
        "--profile=cbs",
        "--interval=100us",
        "--stride=1",
        "--record=cct",
        "--walk=incremental",
    ],
    &[
        "--profile=timer",
        "--clock=virtual",
        "--interval=10us",
        "--seed=3",
        "--record=cct",
        "--walk=incremental",
    ],
    // Whaley's PCCT (marks, slots naming purged nodes, detached subtrees)
    // and Arnold & Sweeney's ACCT, whose return-address sampled bit
    // replaces return words by trampolines: returns and exceptions must
    // go through them unchanged.
    &[
        "--profile=counter",
        "--every=3",
        "--record=pcct",
        "--max-walk=4",
        "--purge=7",
    ],
    &[
        "--profile=counter",
        "--every=2",
        "--record=acct",
        "--sampled-bit=return-address",
    ],
    &[
        "--profile=cbs",
        "--interval=100us",
        "--stride=1",
        "--record=acct",
        "--acct-update=all-new-edges",
    ],
    &[
        "--profile=timer",
        "--clock=virtual",
        "--interval=10us",
        "--seed=3",
        "--record=acct",
        "--sampled-bit=return-address",
    ],
    // The adaptive controller: code installed while the program runs.
    &["--adaptive", "--interval=100us"],
    &["--adaptive", "--profile=counter", "--every=3"],
];

/// One configuration per profile kind: for the long-running programs
/// (benchmarks, GC stress), which would otherwise dominate the suite.
const ONE_PER_KIND: &[&[&str]] = &[
    &["--profile=exhaustive", "--record=cct"],
    &["--profile=timer"],
    &["--profile=timer", "--sampler=safepoint"],
    &["--profile=cbs"],
    &["--profile=counter"],
    &["--profile=counter", "--record=cct", "--walk=marked"],
    &["--profile=counter", "--record=cct", "--walk=incremental"],
    &[
        "--profile=counter",
        "--record=acct",
        "--sampled-bit=return-address",
    ],
    &["--adaptive"],
    &["--adaptive", "--profile=timer", "--interval=100us"],
];

/// Are We Fast Yet benchmarks that are long-running even at their default
/// size: Havlak's smallest size with a known result takes about 2 s.
const LONG_AWFY: &[&str] = &["havlak.bc"];

/// Is this one of the long-running programs?
fn is_long(path: &Path) -> bool {
    let dir = path.parent().and_then(|d| d.file_name());
    let name = path.file_name();
    dir.is_some_and(|d| d == "bench" || d == "runtime" || d == "adaptive")
        || (dir.is_some_and(|d| d == "awfy")
            && name.is_some_and(|n| LONG_AWFY.iter().any(|l| n == *l)))
}

/// A short program runs under every `SHORT_EVERY`th of [`PROFILES`],
/// starting at its index among the short programs (modulo `SHORT_EVERY`):
/// a third of them, so that each configuration still meets a third of the
/// short programs (about 60) while the test costs a third of running them
/// all (docs/PERFORMANCE.md, "Build time").
const SHORT_EVERY: usize = 3;

/// The configurations the `k`th short program runs under.
fn short_share(k: usize) -> Vec<&'static [&'static str]> {
    PROFILES
        .iter()
        .enumerate()
        .filter(|(c, _)| c % SHORT_EVERY == k % SHORT_EVERY)
        .map(|(_, p)| *p)
        .collect()
}

/// Is the whole matrix asked for (`DIFFERENTIAL=all`)?
fn whole_matrix() -> bool {
    std::env::var("DIFFERENTIAL").is_ok_and(|v| v == "all")
}

/// The configurations the `i`th of `programs` runs under.
fn configurations(programs: &[PathBuf], i: usize) -> Vec<&'static [&'static str]> {
    let long = is_long(&programs[i]);
    match (whole_matrix(), long) {
        (true, true) => ONE_PER_KIND.to_vec(),
        (true, false) => PROFILES.to_vec(),
        (false, true) => rotating(ONE_PER_KIND, long_seen(programs, i), LONG_SHARE),
        (false, false) => short_share(i - long_seen(programs, i)),
    }
}

/// How many of [`ONE_PER_KIND`] each long-running program runs under: a
/// share each, rotating (the `k`th long program starts at `k * LONG_SHARE`),
/// so that every configuration still runs several long programs while each
/// costs a fifth of running them all (docs/PERFORMANCE.md, "Build time").
const LONG_SHARE: usize = 2;

/// `share` configurations of `all`, starting at the `k * share`th, wrapping.
fn rotating<'a>(all: &[&'a [&'a str]], k: usize, share: usize) -> Vec<&'a [&'a str]> {
    (0..share.min(all.len()))
        .map(|j| all[(k * share + j) % all.len()])
        .collect()
}

/// How many long-running programs come before the `i`th of `programs`.
fn long_seen(programs: &[PathBuf], i: usize) -> usize {
    programs[..i].iter().filter(|p| is_long(p)).count()
}

fn all_programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The Are We Fast Yet suite (docs/AWFY.md) early, so that Havlak, its
    // longest, does not run last alone.
    let mut dirs = vec![
        root.join("programs/awfy"),
        root.join("programs/examples"),
        root.join("programs/bench"),
    ];
    for entry in std::fs::read_dir(root.join("tests/programs")).expect("tests/programs") {
        let p = entry.expect("dir entry").path();
        if p.is_dir()
            && p.file_name()
                .is_some_and(|n| n != "verifier" && n != "compare")
        {
            dirs.push(p);
        }
    }
    dirs.iter().flat_map(|d| harness::bc_files(d)).collect()
}

/// How many times the wall time of a program's plain run a profiled run
/// may take before it counts as a hang (and never less than the header's
/// `; timeout:` or [`harness::DEFAULT_TIMEOUT`]). Exhaustive counting with
/// a calling context tree, the slowest configuration, took Havlak from
/// 2.0 to 3.4 s of CPU (10 to 20 s of wall time at a load average of 21 on
/// 2 cores); the rest is for a machine that gets busier between the two
/// runs. A budget in the program's own time rather than a fixed minute:
/// Havlak under `--record=cct` was killed at 60 s at a load of 20-48.
const SLOWDOWN_BUDGET: u32 = 40;

/// The directories whose programs' plain runs another test compares with
/// their `.out` files and `; status:` headers (and the test that does):
/// their reference is the `.out`, not a plain run of this test's own.
const PLAIN_RUNS_CHECKED: &[(&str, &str)] = &[
    (
        "programs/examples",
        "examples::examples_match_their_out_files",
    ),
    (
        "programs/awfy",
        "awfy::awfy_benchmarks_print_their_out_files",
    ),
    ("tests/programs/contexts", "contexts (harness::check_dir)"),
    (
        "tests/programs/declarations",
        "declarations (harness::check_dir)",
    ),
    (
        "tests/programs/instructions",
        "instructions (harness::check_dir)",
    ),
    (
        "tests/programs/runtime_errors",
        "runtime_errors (harness::check_dir)",
    ),
    ("tests/programs/threads", "threads (harness::check_dir)"),
];

/// The wall time a profiled run of a long-running program whose reference
/// is its `.out` may take (no plain run here gives it a budget in the
/// program's own time, [`SLOWDOWN_BUDGET`]): Havlak, the longest, takes
/// 2 s plainly.
const LONG_BUDGET: Duration = Duration::from_secs(300);

/// stdout and status of one run, normalised for comparison.
type Outcome = (Option<i32>, String);

/// Is `path` in one of the [`PLAIN_RUNS_CHECKED`] directories?
fn plain_run_checked_elsewhere(path: &Path) -> bool {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = path.parent().expect("parent");
    PLAIN_RUNS_CHECKED.iter().any(|(d, _)| dir == root.join(d))
}

/// The header of the program at `path` (strict, else only `status` and
/// `args`, as the examples are read), or the defaults.
fn header(path: &Path) -> harness::Expect {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    harness::parse_header(&text, true)
        .or_else(|_| harness::parse_header(&text, false))
        .unwrap_or_default()
}

/// `stdout` as compared: sorted lines where the header says the threads
/// print in a free order.
fn normalised(stdout: String, e: &harness::Expect) -> String {
    if !e.sort_stdout {
        return stdout;
    }
    let mut lines: Vec<&str> = stdout.lines().collect();
    lines.sort_unstable();
    lines.join("\n")
}

/// What every profiled run of `path` must give, and the wall time each may
/// take: the `.out` and header status where another test checks the plain
/// run against them, else a plain run's outcome (the budget then in its
/// own time).
fn reference(path: &Path, long: bool) -> Result<(Outcome, Duration), String> {
    let out = path.with_extension("out");
    match std::fs::read_to_string(out) {
        Ok(expected) if plain_run_checked_elsewhere(path) => {
            let e = header(path);
            let budget = if long {
                LONG_BUDGET
            } else {
                harness::DEFAULT_TIMEOUT
            };
            Ok(((Some(e.status), normalised(expected, &e)), budget))
        }
        _ => {
            let (o, plain) = outcome(path, &[], harness::DEFAULT_TIMEOUT)?;
            Ok((o, (plain * SLOWDOWN_BUDGET).max(harness::DEFAULT_TIMEOUT)))
        }
    }
}

/// One run of `path` with `extra` options, allowed `budget` of wall time
/// (at least the header's timeout): its outcome and its wall time.
fn outcome(path: &Path, extra: &[&str], budget: Duration) -> Result<(Outcome, Duration), String> {
    let dir = path.parent().expect("parent");
    let name = path
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let e = header(path);
    let mut args = vec!["run".to_string(), name];
    args.extend(e.args.iter().cloned());
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = run_vm_in(dir, &args, e.timeout.max(budget));
    if let Some(c) = r.crash() {
        return Err(c);
    }
    Ok(((r.status, normalised(r.stdout, &e)), r.elapsed))
}

#[test]
fn profiling_never_changes_output_or_status() {
    let programs = all_programs();
    assert!(
        programs.len() > 100,
        "only {} programs found",
        programs.len()
    );
    let next = Mutex::new(0usize);
    let failures = Mutex::new(Vec::<String>::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                let Some(path) = programs.get(i) else { break };
                let shown = path.display().to_string();
                let (reference, budget) = match reference(path, is_long(path)) {
                    Ok(r) => r,
                    Err(e) => {
                        failures.lock().unwrap().push(format!("{shown}: {e}"));
                        continue;
                    }
                };
                let profiles = configurations(&programs, i);
                for profile in &profiles {
                    match outcome(path, profile, budget).map(|(o, _)| o) {
                        Ok(o) if o == reference => {}
                        Ok(o) => failures.lock().unwrap().push(format!(
                            "{shown} {}: status {:?} (reference {:?}), stdout {}",
                            profile.join(" "),
                            o.0,
                            reference.0,
                            if o.1 == reference.1 {
                                "same"
                            } else {
                                "differs from the reference"
                            }
                        )),
                        Err(e) => failures.lock().unwrap().push(format!("{shown}: {e}")),
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The short programs' shares leave no configuration of [`PROFILES`]
/// with fewer than 50 short programs, and give each short program at
/// least 9 configurations.
#[test]
fn every_configuration_still_runs_many_short_programs() {
    let programs = all_programs();
    let mut runs = vec![0usize; PROFILES.len()];
    for (i, p) in programs.iter().enumerate().filter(|(_, p)| !is_long(p)) {
        let mine = configurations(&programs, i);
        assert!(
            mine.len() >= 9,
            "{}: {} configurations",
            p.display(),
            mine.len()
        );
        for c in mine {
            runs[PROFILES.iter().position(|x| *x == c).unwrap()] += 1;
        }
    }
    assert!(
        runs.iter().all(|&n| n >= 50),
        "short programs per configuration: {runs:?}"
    );
}

/// The rotation leaves no configuration of [`ONE_PER_KIND`] without long
/// programs: each runs at least two of them, and each long program runs
/// [`LONG_SHARE`] different ones.
#[test]
fn every_configuration_still_runs_several_long_programs() {
    let programs = all_programs();
    let mut runs = vec![0usize; ONE_PER_KIND.len()];
    for (i, p) in programs.iter().enumerate().filter(|(_, p)| is_long(p)) {
        let mine = rotating(ONE_PER_KIND, long_seen(&programs, i), LONG_SHARE);
        let mut distinct = mine.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), LONG_SHARE, "{}: {mine:?}", p.display());
        for c in mine {
            runs[ONE_PER_KIND.iter().position(|x| *x == c).unwrap()] += 1;
        }
    }
    assert!(
        runs.iter().all(|&n| n >= 2),
        "long programs per configuration: {runs:?}"
    );
}

/// Each directory whose `.out` files stand for its plain runs exists, has
/// programs, and has an `.out` for every one of them (its test requires
/// them, so a program added there without one fails that test).
#[test]
fn the_directories_whose_out_files_are_trusted_have_one_per_program() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (dir, test) in PLAIN_RUNS_CHECKED {
        let programs = harness::bc_files(&root.join(dir));
        assert!(
            !programs.is_empty(),
            "{dir} (checked by {test}): no programs"
        );
        for p in programs {
            assert!(
                p.with_extension("out").is_file(),
                "{}: no .out, though {dir} is listed as checked by {test}",
                p.display()
            );
            assert!(plain_run_checked_elsewhere(&p), "{}", p.display());
        }
    }
}
