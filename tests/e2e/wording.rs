//! Messages read as English: a count of one takes the singular ("1 thread",
//! "every call"), and no message hedges with "(s)" or "(es)".

use crate::harness;

/// `--report` of a one-thread run says "1 thread" and, with `--every=1`,
/// "every call"; a method called once has "(1 call)".
#[test]
fn report_counts_in_english() {
    let dir = harness::scratch("report_counts_in_english");
    harness::write_program(
        &dir,
        "one.bc",
        ".method f()\n  push 1\n  ret\n.end\n.method main()\n  call f\n  print\n  push 0\n  ret\n.end\n",
    );
    let r = harness::run_vm_in(
        &dir,
        &[
            "run",
            "one.bc",
            "--profile=counter",
            "--every=1",
            "--seed=1",
            "--report",
        ],
        harness::DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert!(
        r.stderr.contains("every call,") || r.stderr.contains("every call)"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("    1 thread, "), "{}", r.stderr);
    for bad in ["1 threads", "1 samples", "every 1 calls"] {
        assert!(!r.stderr.contains(bad), "`{bad}` in:\n{}", r.stderr);
    }
    // Exhaustive: 2 calls traced (main and f), and `f` ran 2 instructions
    // in its 1 call (the calls column).
    let r = harness::run_vm_in(
        &dir,
        &["run", "one.bc", "--profile=exhaustive", "--report"],
        harness::DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert!(r.stderr.contains("(2 calls traced)"), "{}", r.stderr);
    let f = r
        .stderr
        .lines()
        .find(|l| l.ends_with("  f"))
        .unwrap_or_else(|| panic!("no row of f:\n{}", r.stderr));
    assert_eq!(
        f.split_whitespace().collect::<Vec<_>>(),
        ["33.3%", "2", "1", "f"],
        "{}",
        r.stderr
    );
    for bad in ["(1 calls)", "1 calls traced", "1 threads"] {
        assert!(!r.stderr.contains(bad), "`{bad}` in:\n{}", r.stderr);
    }
}

/// `vm disasm` counts a method's locals and slots in English.
#[test]
fn disasm_counts_in_english() {
    let dir = harness::scratch("disasm_counts_in_english");
    harness::write_program(
        &dir,
        "d.bc",
        ".method main()\n  .locals x\n  push 0\n  ret\n.end\n",
    );
    let r = harness::run_vm_in(&dir, &["disasm", "d.bc"], harness::DEFAULT_TIMEOUT);
    r.assert_status(0);
    assert!(
        r.stdout.contains("main()  ; 1 local, frame of "),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("(s)"), "{}", r.stdout);
}

/// `vm inline --from-profile` names the options that do not apply with
/// the verb agreeing: "--seed does not apply", "--clock, --seed do not apply".
#[test]
fn inline_from_profile_agrees_in_number() {
    let dir = harness::scratch("inline_from_profile_agrees");
    harness::write_program(
        &dir,
        "p.bc",
        ".method f()\n  push 1\n  ret\n.end\n.method main()\n  call f\n  print\n  push 0\n  ret\n.end\n",
    );
    let run = |args: &[&str]| harness::run_vm_in(&dir, args, harness::DEFAULT_TIMEOUT);
    run(&[
        "run",
        "p.bc",
        "--profile=exhaustive",
        "--profile-out=e.json",
    ])
    .assert_status(0);
    let one = run(&["inline", "p.bc", "--from-profile=e.json", "--seed=1"]);
    one.assert_status(2);
    assert!(
        one.stderr.contains("--seed does not apply"),
        "{}",
        one.stderr
    );
    let two = run(&[
        "inline",
        "p.bc",
        "--from-profile=e.json",
        "--seed=1",
        "--clock=virtual",
    ]);
    two.assert_status(2);
    assert!(
        two.stderr.contains("--clock, --seed do not apply")
            || two.stderr.contains("--seed, --clock do not apply"),
        "{}",
        two.stderr
    );
    assert!(!two.stderr.contains("(es)"), "{}", two.stderr);
}
