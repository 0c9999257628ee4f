//! One malformed program per verifier rule (`tests/programs/verifier`):
//! `vm check` and `vm run` exit 65, the first diagnostic is where the language reference
//! puts it, all diagnostics are sorted and each shows its source line with
//! a caret under the fault.

use crate::harness::{self, Mode};

#[test]
fn rejected_programs() {
    harness::check_dir("verifier", Mode::Reject, &[]);
}

/// "Every error is reported as `FILE:LINE:COL: error: MESSAGE`": a message
/// is there, and the line has nothing before FILE.
#[test]
fn diagnostic_lines_have_a_message() {
    let dir = harness::scratch("diagnostic_lines_have_a_message");
    harness::write_program(
        &dir,
        "p.bc",
        ".method main()\n  load nothing\n  ret\n.end\n",
    );
    let r = harness::run_vm_in(&dir, &["check", "p.bc"], harness::DEFAULT_TIMEOUT);
    r.assert_status(65);
    let first = r
        .stderr_lines()
        .into_iter()
        .find(|l| l.contains(": error: "))
        .expect("a diagnostic line")
        .to_string();
    let msg = first
        .strip_prefix("p.bc:2:8: error: ")
        .unwrap_or_else(|| panic!("expected `p.bc:2:8: error: MESSAGE`, got {first:?}"));
    assert!(!msg.trim().is_empty(), "empty message in {first:?}");
}

/// The verifier checks heights, not kinds: wrong kinds pass `vm check` and
/// fail only when run.
#[test]
fn heights_not_kinds() {
    let dir = harness::scratch("heights_not_kinds");
    harness::write_program(
        &dir,
        "k.bc",
        ".class C\n.end\n.method main()\n  push \"a\"\n  new C\n  add\n  print\n  push 0\n  ret\n.end\n",
    );
    let check = harness::run_vm_in(&dir, &["check", "k.bc"], harness::DEFAULT_TIMEOUT);
    check.assert_status(0);
    let run = harness::run_vm_in(&dir, &["run", "k.bc"], harness::DEFAULT_TIMEOUT);
    run.assert_status(70);
    assert!(
        run.stderr.lines().any(|l| l.starts_with("runtime error: ")),
        "{}",
        run.stderr
    );
}

/// "If a method can run off its end": a method whose every path ends (in
/// `ret`, `throw` or `halt`) is fine even if unreachable code follows.
#[test]
fn a_method_whose_paths_all_end_is_accepted() {
    let dir = harness::scratch("paths_all_end");
    harness::write_program(
        &dir,
        "e.bc",
        ".method f(x)\n  load x\n  jz a\n  push 1\n  ret\na:\n  push 2\n  throw\n.end\n.method main()\nloop:\n  push 0\n  call f\n  print\n  push 0\n  halt\n  push 5\n.end\n",
    );
    let check = harness::run_vm_in(&dir, &["check", "e.bc"], harness::DEFAULT_TIMEOUT);
    check.assert_status(0);
}

/// The first diagnostic message of `vm check NAME` on `src`.
fn first_message(name: &str, src: &str) -> String {
    let dir = harness::scratch(&format!("first_message_{}", name.replace('.', "_")));
    harness::write_program(&dir, name, src);
    let r = harness::run_vm_in(&dir, &["check", name], harness::DEFAULT_TIMEOUT);
    r.assert_status(65);
    r.stderr_lines()
        .into_iter()
        .find_map(|l| l.split_once(": error: ").map(|(_, m)| m.to_string()))
        .unwrap_or_else(|| panic!("no diagnostic:\n{}", r.stderr))
}

/// An unknown instruction names the nearest one when it is close: a
/// synonym from other languages (`mod`), a typo (`pirnt`, `ad`), the wrong
/// case (`ADD`); and nothing when nothing is close.
#[test]
fn unknown_instruction_offers_the_nearest() {
    let prog = |m: &str| {
        format!(".method main()\n  push 7\n  push 2\n  {m}\n  print\n  push 0\n  ret\n.end\n")
    };
    for (written, meant) in [
        ("mod", "rem"),
        ("pirnt", "print"),
        ("ad", "add"),
        ("ADD", "add"),
        ("goto", "jmp"),
        ("calvirt", "callvirt"),
    ] {
        let msg = first_message("near.bc", &prog(written));
        assert_eq!(
            msg,
            format!("unknown instruction `{written}`; did you mean `{meant}`?"),
            "for `{written}`"
        );
    }
    let msg = first_message("far.bc", &prog("frobnicate"));
    assert_eq!(msg, "unknown instruction `frobnicate`");
}

/// Counts read as English: "1 value", "2 values", "1 parameter".
#[test]
fn verifier_messages_count_in_english() {
    let msg = first_message("one.bc", ".method main()\n  ret\n.end\n");
    assert_eq!(
        msg,
        "stack underflow: `ret` needs 1 value but the stack holds 0"
    );
    let msg = first_message("two.bc", ".method main()\n  push 1\n  add\n  ret\n.end\n");
    assert_eq!(
        msg,
        "stack underflow: `add` needs 2 values but the stack holds 1"
    );
    let msg = first_message("idx.bc", ".method main()\n  load 1\n  ret\n.end\n");
    assert_eq!(msg, "unknown local: index 1 but the method has 0 locals");
    let msg = first_message(
        "arity.bc",
        ".class A\n.end\n.method A.f(this)\n  push 0\n  ret\n.end\n.method A.g(this)\n  push 0\n  ret\n.end\n.class B\n.end\n.method B.f(this, x)\n  push 0\n  ret\n.end\n.method main()\n  push 0\n  ret\n.end\n",
    );
    assert!(
        msg.contains("takes 2 parameters here but 1 elsewhere"),
        "{msg}"
    );
    assert!(!msg.contains("(s)"), "{msg}");
}
