//! `--cycles`: the simulated cycles of a run (the cost model of
//! `vm/src/opcode.rs`, shared with the virtual clock), printed on stderr as
//! `vm: cycles: N instructions: M` and added to the profile's `run` section
//! whenever the run counted them.

use std::path::Path;

use profile::Profile;

use crate::harness::{self, run_vm_in, vm, DEFAULT_TIMEOUT};

/// A loop of three iterations, a static call and a print.
const TINY: &str = "\
.method f(x)
  load x
  push 1
  add
  ret
.end
.method main()
  .locals i
loop:
  inc i 1
  load i
  push 3
  jlt loop
  push 2
  call f
  print
  push 0
  ret
.end
";

/// The cycles and instructions of `TINY`, worked out by hand from the
/// costs of `vm/src/opcode.rs` (a yieldpoint costs 1 and is no source
/// instruction):
///
/// - main's prologue yieldpoint: 1
/// - the loop, 3 times: inc 1, load 1, push 1, jlt 1 and its backedge
///   yieldpoint 1 (fused into the jump, paid taken or not): 3 x 5 = 15;
///   3 x 4 = 12 instructions
/// - push 2: 1; call f: 10
/// - f: prologue 1, load 1, push 1, add 1, epilogue 1, ret 5: 10 cycles,
///   4 instructions
/// - print 200, push 0 1, epilogue 1, ret 5
///
/// 1 + 15 + 1 + 10 + 10 + 200 + 1 + 1 + 5 = 244 cycles; 12 + 5 + 4 = 21
/// instructions.
const TINY_LINE: &str = "vm: cycles: 244 instructions: 21";

/// The `vm: cycles:` line of a run's stderr, as (cycles, instructions).
fn cycles_of(r: &harness::Run) -> (u64, u64) {
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("vm: cycles:"))
        .collect();
    assert_eq!(lines.len(), 1, "`{}`: stderr:\n{}", r.cmd, r.stderr);
    let w: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(w.len(), 5, "{:?}", lines[0]);
    assert_eq!((w[0], w[1], w[3]), ("vm:", "cycles:", "instructions:"));
    (w[2].parse().unwrap(), w[4].parse().unwrap())
}

#[test]
fn the_cycles_of_a_tiny_program_are_those_computed_by_hand() {
    let dir = harness::scratch("cycles-tiny");
    harness::write_program(&dir, "tiny.bc", TINY);
    for extra in [
        &[][..],
        &["--profile=none"],
        &["--profile=exhaustive"],
        &["--profile=cbs", "--clock=virtual", "--seed=1"],
        &["--profile=timer"],
        &["--profile=counter", "--every=1"],
    ] {
        let mut args = vec!["run", "tiny.bc", "--cycles"];
        args.extend_from_slice(extra);
        let r = run_vm_in(&dir, &args, DEFAULT_TIMEOUT);
        r.assert_status(0);
        assert_eq!(r.stdout, "3\n");
        let lines: Vec<&str> = r.stderr.lines().collect();
        assert_eq!(lines[0], TINY_LINE, "`{}`", r.cmd);
        // With a profile, what it cost (tests/e2e/profiler_costs.rs).
        let profiled = extra
            .iter()
            .any(|a| a.starts_with("--profile=") && *a != "--profile=none");
        // and how often each item of its work happened, when any did.
        let work = lines.iter().skip(2).collect::<Vec<_>>();
        assert!(
            work.is_empty() || (work.len() == 1 && work[0].starts_with("vm: profiler work: ")),
            "`{}`: {lines:?}",
            r.cmd
        );
        assert_eq!(
            lines.len(),
            1 + usize::from(profiled) + work.len(),
            "`{}`: {lines:?}",
            r.cmd
        );
        if profiled {
            assert!(lines[1].starts_with("vm: profiler: "), "{lines:?}");
        }
        // The exhaustive profile counts every call and every instruction:
        // tiny.bc's 2 calls and the 21 instructions of the first line;
        // and the session, once, and its 2 methods.
        if extra == ["--profile=exhaustive"] {
            assert_eq!(
                lines.get(2),
                Some(
                    &"vm: profiler work: exact_call 2, exact_instruction 21, session 1, session_method 2"
                ),
                "{lines:?}"
            );
            assert!(lines[0].ends_with("instructions: 21"), "{lines:?}");
        }
    }
    // Without --cycles nothing is printed, whatever the profile counts.
    for extra in [&[][..], &["--profile=exhaustive"]] {
        let mut args = vec!["run", "tiny.bc"];
        args.extend_from_slice(extra);
        let r = run_vm_in(&dir, &args, DEFAULT_TIMEOUT);
        r.assert_status(0);
        assert_eq!(r.stderr, "", "`{}`", r.cmd);
    }
}

#[test]
fn profiles_record_cycles_whenever_the_run_counted_them() {
    let dir = harness::scratch("cycles-profile");
    harness::write_program(&dir, "tiny.bc", TINY);
    let profile = |args: &[&str]| {
        let mut all = vec!["run", "tiny.bc", "--profile-out=p.json"];
        all.extend_from_slice(args);
        run_vm_in(&dir, &all, DEFAULT_TIMEOUT).assert_status(0);
        Profile::read(&dir.join("p.json")).unwrap()
    };
    // Counting profiles count cycles anyway.
    for args in [
        &["--profile=exhaustive"][..],
        &["--profile=cbs", "--clock=virtual", "--seed=3"],
        &["--profile=timer", "--cycles"],
        &["--profile=counter", "--cycles"],
    ] {
        let p = profile(args);
        assert_eq!(p.run.cycles, Some(244), "{args:?}");
    }
    // A wall-clock profile without --cycles does not count: no key.
    profile(&["--profile=timer"]);
    let text = std::fs::read_to_string(dir.join("p.json")).unwrap();
    assert!(!text.contains("\"cycles\""), "{text}");
    let text = {
        profile(&["--profile=exhaustive"]);
        std::fs::read_to_string(dir.join("p.json")).unwrap()
    };
    assert!(text.contains("\"cycles\": 244"), "{text}");
}

#[test]
fn cycles_are_the_same_with_and_without_a_profile_and_across_runs() {
    for prog in [
        "programs/examples/classes.bc",
        "programs/examples/exceptions.bc",
        "programs/examples/fib.bc",
        "programs/bench/virtual_calls.bc",
    ] {
        let runs: Vec<(u64, u64)> = [
            &["--profile=none"][..],
            &["--profile=none"],
            &["--profile=exhaustive"],
            &["--profile=exhaustive", "--record=cct"],
            &["--profile=cbs", "--clock=virtual", "--seed=5"],
        ]
        .iter()
        .map(|extra| {
            let mut args = vec!["run", prog, "--cycles"];
            args.extend_from_slice(extra);
            let r = vm(&args);
            r.assert_no_crash();
            cycles_of(&r)
        })
        .collect();
        assert!(runs[0].0 > 0 && runs[0].1 > 0, "{prog}: {runs:?}");
        assert!(runs.iter().all(|c| *c == runs[0]), "{prog}: {runs:?}");
    }
}

#[test]
fn linear_inlining_of_oo_small_calls_saves_cycles() {
    let out = harness::scratch("cycles-inline");
    let emitted = out.join("oo.bc").display().to_string();
    let prog = "programs/bench/oo_small_calls.bc";
    // vm inline takes --cycles too: the cycles of its profiling run, which
    // are those of the original program.
    let r = vm(&[
        "inline",
        prog,
        "--policy=linear",
        "--cycles",
        &format!("--emit={emitted}"),
    ]);
    r.assert_status(0);
    let during = cycles_of(&r);
    let before = vm(&["run", prog, "--cycles"]);
    before.assert_status(0);
    let after = run_vm_in(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["run", &emitted, "--cycles"],
        DEFAULT_TIMEOUT,
    );
    after.assert_status(0);
    assert_eq!(after.stdout, before.stdout);
    let (before, after) = (cycles_of(&before), cycles_of(&after));
    assert_eq!(during, before);
    assert!(
        after.0 < before.0,
        "cycles before {} after {}",
        before.0,
        after.0
    );
}

#[test]
fn cycles_need_a_run() {
    let r = vm(&[
        "inline",
        "programs/examples/fib.bc",
        "--from-profile=x.json",
        "--cycles",
    ]);
    r.assert_status(2);
    assert!(r.stderr.contains("--cycles"), "{}", r.stderr);
}
