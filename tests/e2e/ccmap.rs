//! The SSCLI Call Context Map (`--record=ccmap`) and the self-tuning
//! sampling interval (`--tune`), through the real binary:
//!
//! - sampling every call (`--profile=counter --every=1`) with either walk
//!   gives a `cct` section (the CC-Map's thread-root tree) whose contexts
//!   and `calls` equal the exhaustive CCT's exactly, on every example
//!   program, and `vm compare` scores it 100 (`calls` of a CC-Map context
//!   in the file are the edge samples with that context on top, i.e. the
//!   calls sampled into it; see docs/CLI.md);
//! - the marked walk (the paper's: it stops at the first frame an earlier
//!   sample visited, and the organizer rebuilds the rest of the stack)
//!   finds exactly the contexts and counts of the full walk for the same
//!   samples, timer and cbs included;
//! - Whaley's Figure 9: recursion keeps its full context;
//! - `--clock=virtual --seed` makes a ccmap profile (and a tuned one)
//!   reproducible;
//! - `--tune`: a program whose executing frame never changes lengthens the
//!   interval, a call-heavy one shortens or keeps it; the final interval
//!   and the number of changes are in the profile's `run`; every record
//!   (marks by the tuner, by a marked walk, or the ACCT's trampolines)
//!   sees the same repetitions;
//! - options that do not apply are usage errors.

use std::collections::BTreeMap;
use std::path::Path;

use profile::Profile;

use crate::contexts::{self, calls_by_path, cct, examples, path_diff, ContextPath, EXAMPLES};
use crate::harness::{run_vm_in, scratch, write_program, Run, DEFAULT_TIMEOUT};

/// Context path -> (calls, self), the root left out.
fn counts_by_path(p: &Profile) -> BTreeMap<ContextPath, (u64, u64)> {
    contexts::counts_by_path(p)
        .into_iter()
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

/// [`contexts::profile_in`], with scratch directories of this file's own.
fn profile_in(dir: &Path, name: &str, args: &[&str], tag: &str) -> (Run, Profile) {
    contexts::profile_in(dir, name, args, &format!("ccmap-{tag}"))
}

#[test]
fn sampling_every_call_into_the_ccmap_gives_the_exhaustive_cct() {
    for name in EXAMPLES {
        let (_, exact) = profile_in(
            &examples(),
            name,
            &["--profile=exhaustive", "--record=cct"],
            "exact",
        );
        let want = calls_by_path(&exact);
        assert!(want.len() > 2, "{name}: a trivial exhaustive CCT");
        for walk in ["full", "marked"] {
            let walk_arg = format!("--walk={walk}");
            let (r, p) = profile_in(
                &examples(),
                name,
                &[
                    "--profile=counter",
                    "--every=1",
                    "--record=ccmap",
                    &walk_arg,
                ],
                &format!("every1-{walk}"),
            );
            assert_eq!(p.config.walk.as_deref(), Some(walk), "{}", r.cmd);
            assert_eq!(p.config.record.as_deref(), Some(&["ccmap".to_string()][..]));
            let got = calls_by_path(&p);
            assert!(
                got == want,
                "{}: contexts differ:\n{}",
                r.cmd,
                path_diff(&want, &got)
            );
            // Every sample is one method sample: the selfs add up to them.
            let selfs: u64 = cct(&p).iter().map(|n| n.self_).sum();
            assert_eq!(selfs, p.run.samples, "{}", r.cmd);
        }
    }
}

#[test]
fn compare_scores_an_every_call_ccmap_at_100_and_a_sparse_one_lower() {
    let dir = scratch("ccmap-compare");
    let run = |args: &[&str], out: &str| {
        let mut all = vec!["run", "whaley-fig5.bc"];
        all.extend_from_slice(args);
        let o = format!("--profile-out={}", dir.join(out).display());
        all.push(&o);
        run_vm_in(&examples(), &all, DEFAULT_TIMEOUT).assert_status(0);
    };
    run(&["--profile=exhaustive", "--record=cct"], "exact.json");
    run(
        &["--profile=counter", "--every=1", "--record=ccmap"],
        "every1.json",
    );
    run(
        &[
            "--profile=timer",
            "--clock=virtual",
            "--interval=1ms",
            "--seed=2",
            "--record=ccmap",
        ],
        "timer.json",
    );
    let score = |file: &str| {
        let r = run_vm_in(&dir, &["compare", file, "exact.json"], DEFAULT_TIMEOUT);
        r.assert_status(0);
        let get = |key: &str| -> f64 {
            r.stdout
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("{}: no {key}\n{}", r.cmd, r.stdout))
        };
        (get("cct-overlap:"), get("hot-edge-coverage:"))
    };
    assert_eq!(score("every1.json"), (100.0, 100.0));
    // A timer every millisecond of virtual time sees far fewer calls: a
    // real, lower score, but contexts it found are real ones.
    let (overlap, _) = score("timer.json");
    assert!(overlap > 0.0 && overlap < 100.0, "{overlap}");
}

#[test]
fn marked_and_full_walks_fill_the_same_map_from_the_same_samples() {
    // The virtual clock makes the samples (nearly: see
    // `contexts::assert_nearly_same`) the same whatever the walk; the
    // marked walk reads only the frames pushed since a marked one and the
    // organizer rebuilds the rest from the thread's previous stack, so
    // the two must give the same contexts and counts, and every context
    // must be a real one.
    for name in [
        "whaley-fig5.bc",
        "arnold-sweeney-fig6.bc",
        "fib.bc",
        "threads.bc",
    ] {
        let (_, exact) = profile_in(
            &examples(),
            name,
            &["--profile=exhaustive", "--record=cct"],
            "same-exact",
        );
        let exact = calls_by_path(&exact);
        for profile in [&["--profile=timer"][..], &["--profile=cbs", "--stride=2"]] {
            let run = |walk: &str, tag: &str| {
                let mut args = profile.to_vec();
                let w = format!("--walk={walk}");
                args.extend_from_slice(&[
                    "--clock=virtual",
                    "--interval=20us",
                    "--seed=9",
                    "--record=ccmap",
                    "--max-walk=256",
                    &w,
                ]);
                profile_in(&examples(), name, &args, tag)
            };
            let (r, full) = run("full", "same-full");
            let (_, marked) = run("marked", "same-marked");
            let f = counts_by_path(&full);
            let m = counts_by_path(&marked);
            // As in contexts.rs: arnold-sweeney-fig6's full walks move its
            // ticks by more than the tolerance; its contexts are checked
            // to be real only.
            if name != "arnold-sweeney-fig6.bc" {
                contexts::assert_nearly_same(
                    &f,
                    &m,
                    &format!("{} {name}: walks differ:\n{}", r.cmd, path_diff(&f, &m)),
                );
            }
            assert!(f.len() > 3, "{}: {} contexts", r.cmd, f.len());
            for path in f.keys().chain(m.keys()) {
                assert!(
                    exact.contains_key(path),
                    "{}: {path:?} is no context",
                    r.cmd
                );
            }
        }
    }
}

#[test]
fn whaley_figure_9_recursion_keeps_full_context() {
    let deepest = contexts::deepest_of_figure_9();
    for walk in ["full", "marked"] {
        let w = format!("--walk={walk}");
        let (r, p) = profile_in(
            &examples(),
            "whaley-fig9.bc",
            &["--profile=counter", "--every=1", "--record=ccmap", &w],
            &format!("w9-{walk}"),
        );
        let got = calls_by_path(&p);
        assert_eq!(got.get(&deepest), Some(&10), "{}: {got:?}", r.cmd);
        // One context of A per recursion depth, each called 10 times (a
        // tree that folds recursion would have one A with 50).
        let a: Vec<u64> = cct(&p)
            .iter()
            .filter(|n| n.method == "A")
            .map(|n| n.calls)
            .collect();
        assert_eq!(a, vec![10; 5], "{}", r.cmd);
    }
}

#[test]
fn virtual_clock_with_a_seed_reproduces_the_ccmap() {
    for profile in ["timer", "cbs"] {
        for walk in ["full", "marked"] {
            for tune in [false, true] {
                let mut args = vec![
                    format!("--profile={profile}"),
                    "--clock=virtual".into(),
                    "--interval=10us".into(),
                    "--seed=7".into(),
                    "--record=dcg,ccmap".into(),
                    format!("--walk={walk}"),
                ];
                if tune {
                    args.push("--tune".into());
                }
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                let (r, a) = profile_in(&examples(), "whaley-fig5.bc", &args, "det-a");
                let (_, b) = profile_in(&examples(), "whaley-fig5.bc", &args, "det-b");
                assert_eq!(a.to_json(), b.to_json(), "{}: runs differ", r.cmd);
                assert!(cct(&a).len() > 5, "{}: {} contexts", r.cmd, cct(&a).len());
                assert!(a.run.samples > 50, "{}: {}", r.cmd, a.run.samples);
                assert_eq!(a.config.tune, tune.then_some(true), "{}", r.cmd);
                assert_eq!(a.run.final_interval_ns.is_some(), tune, "{}", r.cmd);
            }
        }
    }
}

/// A long loop in `main` alone: the executing activation is the same at
/// every sample.
const ONE_LOOP: &str = "\
.method main()
  .locals i s
top:
  load s
  load i
  add
  store s
  inc i 1
  load i
  push 3000000
  jlt top
  load s
  print
  push 0
  ret
.end
";

/// A loop in `main` calling a tiny method: at each call (where the counter
/// samples) the executing activation is the same `main`.
const LOOP_OF_CALLS: &str = "\
.method main()
  .locals i s
top:
  load i
  call f
  load s
  add
  store s
  inc i 1
  load i
  push 300000
  jlt top
  load s
  print
  push 0
  ret
.end

.method f(n)
  load n
  push 1
  add
  ret
.end
";

#[test]
fn tune_lengthens_the_interval_when_the_top_frame_does_not_change() {
    let dir = scratch("ccmap-tune-programs");
    write_program(&dir, "loop.bc", ONE_LOOP);
    write_program(&dir, "calls.bc", LOOP_OF_CALLS);
    for profile in ["timer", "cbs"] {
        for record in ["dcg", "ccmap"] {
            let p_arg = format!("--profile={profile}");
            let rec = format!("--record={record}");
            let (r, p) = profile_in(
                &dir,
                "loop.bc",
                &[
                    &p_arg,
                    "--clock=virtual",
                    "--interval=10us",
                    "--seed=1",
                    &rec,
                    "--tune",
                ],
                "tune-loop",
            );
            assert_eq!(r.stdout, "4499998500000\n", "{}", r.cmd);
            assert_eq!(p.config.interval_ns, Some(10_000), "the initial one");
            let last = p.run.final_interval_ns.expect("a final interval");
            assert!(last > 10_000, "{}: final {last}", r.cmd);
            assert!(p.run.interval_changes.unwrap() >= 1, "{}", r.cmd);
            assert_eq!(p.run.final_every, None);
            check_trajectory(&p, 10_000, last, &r.cmd);
        }
    }
    // The counter's period in calls: every sampled call is made by the
    // same main.
    let (r, p) = profile_in(
        &dir,
        "calls.bc",
        &["--profile=counter", "--every=3", "--seed=1", "--tune"],
        "tune-calls",
    );
    assert_eq!(p.config.every, Some(3));
    let last = p.run.final_every.expect("a final --every");
    assert!(last > 3, "{}: final {last}", r.cmd);
    assert_eq!(p.run.final_interval_ns, None);
    check_trajectory(&p, 3, last, &r.cmd);
}

/// `run.interval_trajectory` starts at the initial interval at sample 0,
/// has one step per change, each at a multiple of the tuner's evaluation
/// period (1000 samples) and within the run's samples, each a doubling
/// or halving of the one before (or cut at a bound), and ends at the
/// final interval.
fn check_trajectory(p: &Profile, initial: u64, last: u64, cmd: &str) {
    let steps = p.run.interval_trajectory.as_ref().expect("a trajectory");
    assert_eq!((steps[0].samples, steps[0].interval), (0, initial), "{cmd}");
    assert_eq!(
        steps.len() as u64,
        p.run.interval_changes.unwrap() + 1,
        "{cmd}"
    );
    for w in steps.windows(2) {
        let (a, b) = (w[0], w[1]);
        assert!(
            b.samples > a.samples && b.samples % 1000 == 0,
            "{cmd}: {steps:?}"
        );
        assert!(b.samples <= p.run.samples, "{cmd}: {steps:?}");
        // A doubling or halving, or a step cut at a bound (timer: 10 us
        // to 1 s; counter: 1 to 1,000,000 calls).
        let at_bound = [10_000, 1_000_000_000, 1, 1_000_000].contains(&b.interval);
        assert!(
            b.interval == a.interval * 2 || b.interval == a.interval / 2 || at_bound,
            "{cmd}: {steps:?}"
        );
    }
    assert_eq!(steps.last().unwrap().interval, last, "{cmd}");
}

#[test]
fn tune_sees_the_same_repetitions_whatever_record_marks_the_frames() {
    // Every sample of calls.bc credits the same `main`: after the first,
    // each one is a repetition, whether the tuner marks `main` itself (the
    // dcg, the full walks) or a marked walk does (cct, ccmap, pcct, acct),
    // and whether the ACCT's sampled bit is the mark or a return-address
    // trampoline. The counter's hand-over is synchronous, so every record
    // tunes the same way.
    let dir = scratch("ccmap-tune-records-programs");
    write_program(&dir, "calls.bc", LOOP_OF_CALLS);
    let mut outcomes = Vec::new();
    for extra in [
        &["--record=dcg"][..],
        &["--record=cct"],
        &["--record=cct", "--walk=marked"],
        &["--record=ccmap", "--walk=marked"],
        &["--record=pcct"],
        &["--record=acct"],
        &["--record=acct", "--sampled-bit=return-address"],
    ] {
        let mut args = vec!["--profile=counter", "--every=3", "--seed=1", "--tune"];
        args.extend_from_slice(extra);
        let (r, p) = profile_in(&dir, "calls.bc", &args, "tune-records");
        assert_eq!(r.stdout, "45000150000\n", "{}", r.cmd);
        outcomes.push((
            r.cmd.clone(),
            (p.run.final_every, p.run.interval_changes, p.run.samples),
        ));
    }
    let (first_cmd, first) = &outcomes[0];
    assert!(first.0 > Some(3), "{first_cmd}: {first:?}");
    for (cmd, o) in &outcomes[1..] {
        assert_eq!(o, first, "{cmd} against {first_cmd}");
    }
}

#[test]
fn tune_shortens_or_keeps_the_interval_of_a_call_heavy_program() {
    // fib: nearly every sample finds a different activation executing.
    for (args, initial) in [
        (
            &["--profile=timer", "--clock=virtual", "--interval=20us"][..],
            20_000,
        ),
        (
            &["--profile=cbs", "--clock=virtual", "--interval=20us"],
            20_000,
        ),
        (&["--profile=counter", "--every=50"], 50),
    ] {
        let mut all = args.to_vec();
        all.extend_from_slice(&["--seed=5", "--record=ccmap", "--tune"]);
        let (r, p) = profile_in(&examples(), "fib.bc", &all, "tune-fib");
        assert_eq!(r.stdout, "75025\n");
        let last = p
            .run
            .final_interval_ns
            .or(p.run.final_every)
            .expect("a final interval");
        assert!(last <= initial, "{}: {last} > {initial}", r.cmd);
        assert!(p.run.interval_changes.is_some());
    }
    // And where the interval shortened, sampling went on at the shorter
    // one: more samples than the fixed interval gives.
    let fixed = profile_in(
        &examples(),
        "fib.bc",
        &["--profile=counter", "--every=50", "--seed=5"],
        "tune-fib-fixed",
    )
    .1;
    let tuned = profile_in(
        &examples(),
        "fib.bc",
        &["--profile=counter", "--every=50", "--seed=5", "--tune"],
        "tune-fib-tuned",
    )
    .1;
    if tuned.run.final_every < Some(50) {
        assert!(tuned.run.samples > fixed.run.samples);
    }
}

#[test]
fn tune_with_the_wall_clock_records_its_interval() {
    // No claim on timing: only that the run works and says what it did.
    let (r, p) = profile_in(
        &examples(),
        "fib.bc",
        &[
            "--profile=timer",
            "--interval=100us",
            "--record=ccmap",
            "--tune",
        ],
        "tune-wall",
    );
    assert_eq!(r.stdout, "75025\n");
    assert!(p.run.final_interval_ns.is_some() && p.run.interval_changes.is_some());
    assert_eq!(p.config.tune, Some(true));
}

#[test]
fn ccmap_and_tune_options_that_do_not_apply_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["--profile=exhaustive", "--record=ccmap"], "ccmap"),
        (&["--record=ccmap"], "--record"),
        (
            &["--profile=timer", "--record=ccmap", "--walk=top"],
            "--walk=top",
        ),
        (
            &["--profile=counter", "--record=cct,ccmap"],
            "one calling context tree",
        ),
        (
            &["--profile=timer", "--record=ccmap,pcct"],
            "one calling context tree",
        ),
        (
            &["--profile=cbs", "--record=dcg,acct,ccmap"],
            "one calling context tree",
        ),
        (
            &["--profile=cbs", "--record=ccmap", "--walk=incremental"],
            "--record=ccmap",
        ),
        (
            &["--profile=counter", "--record=ccmap", "--max-walk=0"],
            "--max-walk",
        ),
        (&["--profile=exhaustive", "--tune"], "--tune"),
        (&["--tune"], "--tune"),
        (&["--profile=none", "--tune"], "--tune"),
        (&["--profile=timer", "--tune=yes"], "tune"),
    ];
    for (extra, says) in cases {
        let mut args = vec!["run", "fib.bc"];
        args.extend_from_slice(extra);
        let r = run_vm_in(&examples(), &args, DEFAULT_TIMEOUT);
        r.assert_no_crash();
        r.assert_status(2);
        assert!(r.stdout.is_empty(), "{}: the program must not run", r.cmd);
        assert!(r.stderr.contains(says), "{}: {}", r.cmd, r.stderr);
    }
    for ok in [
        &["--profile=timer", "--record=ccmap"][..],
        &[
            "--profile=cbs",
            "--record=dcg,ccmap",
            "--walk=marked",
            "--max-walk=4",
        ],
        &[
            "--profile=counter",
            "--record=ccmap",
            "--walk=full",
            "--max-walk=3",
        ],
        &["--profile=counter", "--tune"],
        &["--profile=cbs", "--tune", "--clock=virtual"],
    ] {
        let mut args = vec!["run", "fib.bc"];
        args.extend_from_slice(ok);
        let r = run_vm_in(&examples(), &args, DEFAULT_TIMEOUT);
        r.assert_status(0);
        assert_eq!(r.stdout, "75025\n", "{}", r.cmd);
    }
}
