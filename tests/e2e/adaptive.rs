//! `vm run --adaptive` (jit-sim's controller, docs/ADAPTIVE.md) through the
//! real binary: recompiled code is installed while threads run it and the
//! program's output never changes; the log names what was recompiled; the
//! options that do not apply are usage errors.
//!
//! When the controller decides depends on wall-clock time, so the tests
//! assert what must hold on every run (output, status, the log's form) and
//! that recompilation happened in at least one of several runs.

use crate::harness::{programs_dir, run_vm_in, scratch, vm, DEFAULT_TIMEOUT};

/// Lines of the log that report a recompilation.
fn compilations(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| {
            l.starts_with("vm: adaptive: ")
                && l.contains(" instrs)")
                && !l.contains("not recompiled")
        })
        .collect()
}

#[test]
fn code_swapped_under_running_threads_keeps_the_output() {
    let dir = programs_dir("adaptive");
    let expected = std::fs::read_to_string(dir.join("swap_threads.out")).unwrap();
    let mut recompiled = 0;
    for profile in [
        &["--adaptive", "--print-compilation"][..],
        &["--adaptive", "--print-compilation", "--interval=100us"],
        &[
            "--adaptive",
            "--print-compilation",
            "--profile=counter",
            "--every=20",
        ],
        &[
            "--adaptive",
            "--print-compilation",
            "--profile=timer",
            "--interval=100us",
        ],
    ] {
        for _ in 0..2 {
            let mut args = vec!["run", "swap_threads.bc"];
            args.extend_from_slice(profile);
            let r = run_vm_in(&dir, &args, DEFAULT_TIMEOUT);
            r.assert_status(0);
            assert_eq!(r.stdout, expected, "{profile:?}: {}", r.stderr);
            let lines = compilations(&r.stderr);
            for l in &lines {
                assert!(
                    l.contains("benefit ") && l.contains("> cost ") && l.contains("inlines @"),
                    "log line: {l}"
                );
                assert!(l.contains("[compiled in "), "installed: {l}");
            }
            recompiled += lines.len();
            let last = r.stderr.lines().last().unwrap_or_default();
            assert!(
                last.starts_with("vm: adaptive: ") && last.contains(" recompiled, "),
                "summary line last: {}",
                r.stderr
            );
        }
    }
    assert!(recompiled > 0, "no run recompiled anything");
}

#[test]
fn a_long_static_call_chain_is_recompiled_and_prints_the_same() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/bench");
    let expected = std::fs::read_to_string(dir.join("static_calls.out")).unwrap();
    let r = run_vm_in(
        &dir,
        &[
            "run",
            "static_calls.bc",
            "--adaptive",
            "--print-compilation",
        ],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert_eq!(r.stdout, expected);
    // main is never called again, so it is never recompiled, and says so.
    assert!(
        r.stderr
            .contains("vm: adaptive: not recompiled: main: no sampled calls into it"),
        "{}",
        r.stderr
    );
    assert!(
        compilations(&r.stderr)
            .iter()
            .all(|l| !l.contains(" main (")),
        "{}",
        r.stderr
    );
}

#[test]
fn the_profile_is_still_written() {
    let dir = scratch("adaptive_profile");
    let out = dir.join("p.json");
    let prog = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/bench/fib.bc");
    let r = vm(&[
        "run",
        prog.to_str().unwrap(),
        "--adaptive",
        "--profile-out",
        out.to_str().unwrap(),
    ]);
    r.assert_status(0);
    let p = profile::Profile::read(&out).unwrap();
    assert_eq!(p.config.profile, "cbs", "cbs by default");
    assert!(p.dcg.is_some_and(|d| !d.is_empty()));
}

#[test]
fn options_that_do_not_apply_are_usage_errors() {
    let prog = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/examples/fib.bc");
    let p = prog.to_str().unwrap();
    for (args, says) in [
        (
            vec!["run", p, "--adaptive", "--profile=exhaustive"],
            "--adaptive needs a sampling profile",
        ),
        (
            vec!["run", p, "--adaptive", "--profile=none"],
            "--adaptive needs a sampling profile",
        ),
        (
            vec!["run", p, "--print-compilation"],
            "--print-compilation applies only with --adaptive",
        ),
        (
            vec!["inline", p, "--adaptive"],
            "--adaptive does not apply to vm inline",
        ),
        (
            vec!["run", p, "--adaptive", "--no-yieldpoints"],
            "--no-yieldpoints",
        ),
    ] {
        let r = vm(&args);
        r.assert_status(2);
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?} ran the program");
    }
}

#[test]
fn code_swaps_mix_with_every_walk_and_record() {
    // Trampolines and marks live in return words and frame slots, which
    // a frame keeps while its method is recompiled under it: returning
    // into old code through a trampoline must still find the old code.
    let dir = programs_dir("adaptive");
    let expected = std::fs::read_to_string(dir.join("swap_threads.out")).unwrap();
    for extra in [
        &["--record=cct", "--walk=incremental"][..],
        &["--record=cct", "--walk=marked"],
        &["--record=pcct"],
        &["--record=acct", "--sampled-bit=return-address"],
        &["--record=ccmap", "--tune"],
        &["--profile=timer", "--sampler=safepoint", "--record=cct"],
        &["--clock=virtual", "--seed=3", "--interval=100us"],
    ] {
        let mut args = vec!["run", "swap_threads.bc", "--adaptive"];
        args.extend_from_slice(extra);
        let r = run_vm_in(&dir, &args, DEFAULT_TIMEOUT);
        r.assert_status(0);
        assert_eq!(r.stdout, expected, "{extra:?}: {}", r.stderr);
    }
}
