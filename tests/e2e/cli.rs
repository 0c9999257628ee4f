//! The command line (docs/CLI.md and "Exit status"): `--help`, usage
//! errors (status 2), `--max-frames`, `--set`, `--no-yieldpoints`, FILE as
//! given, and `vm disasm` showing the yieldpoints.

use std::path::Path;

use crate::harness::{self, Run};

const OK: &str = ".global g\n.method main()\n  getglobal g\n  print\n  push 0\n  ret\n.end\n";

fn run_in(dir: &Path, args: &[&str]) -> Run {
    harness::run_vm_in(dir, args, harness::DEFAULT_TIMEOUT)
}

fn help_text(r: &Run) -> String {
    format!("{}{}", r.stdout, r.stderr)
}

#[test]
fn vm_help_lists_the_commands() {
    let r = harness::vm(&["--help"]);
    r.assert_status(0);
    let t = help_text(&r);
    for word in ["run", "check", "disasm"] {
        assert!(
            t.contains(word),
            "`vm --help` should mention `{word}`:\n{t}"
        );
    }
}

/// `vm --help` ends with examples, each of which runs as written from the
/// repository's root (here a scratch directory linking its `programs`),
/// in order: the later ones read the files the earlier ones wrote.
#[test]
fn vm_help_gives_examples_that_run() {
    let r = harness::vm(&["--help"]);
    r.assert_status(0);
    let t = help_text(&r);
    let examples: Vec<&str> = t
        .lines()
        .skip_while(|l| !l.starts_with("Examples"))
        .filter_map(|l| l.strip_prefix("  vm "))
        .collect();
    assert!(
        examples.len() >= 5,
        "`vm --help` should end with examples:\n{t}"
    );
    let dir = harness::scratch("help-examples");
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs");
    std::os::unix::fs::symlink(programs, dir.join("programs")).unwrap();
    for example in examples {
        let args: Vec<&str> = example.split_whitespace().collect();
        run_in(&dir, &args).assert_status(0);
    }
    assert!(dir.join("report.html").exists() && dir.join("inlined.bc").exists());
}

/// `vm run --help`: what running does first, then the profiling options,
/// then the resource limits (under their own heading, after `--profile`).
#[test]
fn run_help_lists_its_options_profiling_before_limits() {
    let r = harness::vm(&["run", "--help"]);
    r.assert_status(0);
    let t = help_text(&r);
    for opt in ["--max-frames", "--set", "--no-yieldpoints", "--cycles"] {
        assert!(
            t.contains(opt),
            "`vm run --help` should mention `{opt}`:\n{t}"
        );
    }
    let at = |s: &str| t.find(s).unwrap_or_else(|| panic!("no `{s}` in:\n{t}"));
    assert!(at("--cycles") < at("Profiling:"), "{t}");
    assert!(at("Profiling:") < at("--profile <KIND>"), "{t}");
    assert!(at("--profile <KIND>") < at("Resource limits:"), "{t}");
    for limit in [
        "--max-frames",
        "--max-threads",
        "--max-heap",
        "--max-source",
    ] {
        assert!(at("Resource limits:") < at(limit), "{limit}:\n{t}");
    }
}

/// `vm inline` refuses `--adaptive` and `--print-compilation` (it inlines
/// once, after the run), so its help does not offer them; `vm run`'s does.
#[test]
fn inline_help_does_not_list_the_options_it_refuses() {
    let run = help_text(&harness::vm(&["run", "--help"]));
    let inline = help_text(&harness::vm(&["inline", "--help"]));
    // An option's entry: a line that starts with it (after the indent).
    let lists = |help: &str, opt: &str| help.lines().any(|l| l.trim_start().starts_with(opt));
    for opt in ["--adaptive", "--print-compilation"] {
        assert!(lists(&run, opt), "`vm run --help` should list {opt}");
        assert!(
            !lists(&inline, opt),
            "`vm inline --help` lists {opt}:\n{inline}"
        );
    }
    assert!(inline.contains("--policy") && inline.contains("--profile <KIND>"));
}

#[test]
fn check_and_disasm_help() {
    for cmd in ["check", "disasm"] {
        let r = harness::vm(&[cmd, "--help"]);
        r.assert_status(0);
        let t = help_text(&r);
        assert!(
            t.to_lowercase().contains("usage") && t.contains(cmd),
            "`vm {cmd} --help` should describe its usage:\n{t}"
        );
    }
}

/// Every usage error: status 2, nothing on stdout, the program not run.
#[test]
fn usage_errors_exit_2() {
    let dir = harness::scratch("usage_errors");
    harness::write_program(&dir, "ok.bc", OK);
    let cases: &[&[&str]] = &[
        &[],
        &["frobnicate"],
        &["frobnicate", "ok.bc"],
        &["run"],
        &["check"],
        &["disasm"],
        &["run", "ok.bc", "--frobnicate"],
        &["run", "ok.bc", "-x"],
        &["run", "ok.bc", "extra.bc"],
        &["--frobnicate", "run", "ok.bc"],
        // options that do not apply to the command
        &["check", "ok.bc", "--max-frames=5"],
        &["check", "ok.bc", "--set", "g=1"],
        &["disasm", "ok.bc", "--set", "g=1"],
        &["disasm", "ok.bc", "--max-frames=5"],
        // bad --max-frames
        &["run", "ok.bc", "--max-frames=0"],
        &["run", "ok.bc", "--max-frames=abc"],
        &["run", "ok.bc", "--max-frames=-1"],
        &["run", "ok.bc", "--max-frames="],
        &["run", "ok.bc", "--max-frames=1.5"],
        // --set of a global the program lacks, and malformed --set
        &["run", "ok.bc", "--set", "nope=1"],
        &["run", "ok.bc", "--set", "g=1", "--set", "G=2"],
        &["run", "ok.bc", "--set", "g"],
        &["run", "ok.bc", "--set", "g="],
        &["run", "ok.bc", "--set", "=5"],
        &["run", "ok.bc", "--set", "g=abc"],
        &["run", "ok.bc", "--set", "g=1.5"],
        &["run", "ok.bc", "--set", "g=99999999999999999999"],
        &["run", "ok.bc", "--set"],
    ];
    let mut failures = Vec::new();
    for args in cases {
        let r = run_in(&dir, args);
        if let Some(c) = r.crash() {
            failures.push(c);
        } else if r.status != Some(2) || !r.stdout.is_empty() {
            failures.push(format!(
                "`vm {}`: expected status 2 and no stdout, got {:?}, stdout {:?}, stderr {:?}",
                args.join(" "),
                r.status,
                r.stdout,
                harness::clip(&r.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A usage error says something on stderr.
#[test]
fn usage_errors_explain_themselves() {
    let dir = harness::scratch("usage_explained");
    harness::write_program(&dir, "ok.bc", OK);
    let r = run_in(&dir, &["run", "ok.bc", "--set", "missing=3"]);
    r.assert_status(2);
    assert!(
        r.stderr.contains("missing"),
        "should name the unknown global: {}",
        r.stderr
    );
    let r = run_in(&dir, &["run", "ok.bc", "--frobnicate"]);
    r.assert_status(2);
    assert!(r.stderr.contains("--frobnicate"), "{}", r.stderr);
}

#[test]
fn set_and_max_frames_forms() {
    let dir = harness::scratch("set_forms");
    harness::write_program(&dir, "ok.bc", OK);
    for (args, out) in [
        (&["run", "ok.bc"][..], "0\n"),
        (&["run", "ok.bc", "--set", "g=5"][..], "5\n"),
        (&["run", "ok.bc", "--set", "g=-5"][..], "-5\n"),
        (
            &["run", "ok.bc", "--set", "g=7", "--max-frames=1"][..],
            "7\n",
        ),
        (
            &["run", "ok.bc", "--no-yieldpoints", "--set", "g=8"][..],
            "8\n",
        ),
    ] {
        let r = run_in(&dir, args);
        r.assert_status(0);
        assert_eq!(r.stdout, out, "`vm {}`", args.join(" "));
    }
}

#[test]
fn check_accepts_a_valid_program() {
    let dir = harness::scratch("check_valid");
    harness::write_program(&dir, "ok.bc", OK);
    let r = run_in(&dir, &["check", "ok.bc"]);
    r.assert_status(0);
    assert!(r.diagnostics("ok.bc").is_empty());
}

/// FILE in traces and diagnostics is the path as given on the command line.
#[test]
fn file_is_shown_as_given() {
    let dir = harness::scratch("file_as_given");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    harness::write_program(
        &dir,
        "t.bc",
        ".method main()\n  push 1\n  push 0\n  div\n  ret\n.end\n",
    );
    harness::write_program(&dir, "bad.bc", ".method main()\n  load x\n  ret\n.end\n");
    for path in ["t.bc", "./t.bc", "sub/../t.bc"] {
        let r = run_in(&dir, &["run", path]);
        r.assert_status(70);
        let want = format!("  at main ({path}:4)");
        assert!(
            r.stderr.lines().any(|l| l == want),
            "expected {want:?} in:\n{}",
            r.stderr
        );
    }
    let abs = dir.join("t.bc").to_string_lossy().into_owned();
    let r = harness::vm(&["run", &abs]);
    r.assert_status(70);
    let want = format!("  at main ({abs}:4)");
    assert!(r.stderr.lines().any(|l| l == want), "{}", r.stderr);

    for path in ["bad.bc", "./bad.bc", "sub/../bad.bc"] {
        let r = run_in(&dir, &["check", path]);
        r.assert_status(65);
        let d = r.diagnostics(path);
        assert_eq!(
            d.iter().map(|d| (d.line, d.col)).collect::<Vec<_>>(),
            vec![(2, 8)],
            "`vm check {path}`:\n{}",
            r.stderr
        );
    }
}

/// Program output on stdout, everything else on stderr.
#[test]
fn program_output_only_on_stdout() {
    let dir = harness::scratch("stdout_only");
    harness::write_program(
        &dir,
        "p.bc",
        ".method main()\n  push \"out\"\n  print\n  push \"err\"\n  throw\n.end\n",
    );
    let r = run_in(&dir, &["run", "p.bc"]);
    r.assert_status(70);
    assert_eq!(r.stdout, "out\n");
    assert!(
        r.stderr
            .lines()
            .any(|l| l.starts_with("uncaught exception: ")),
        "{}",
        r.stderr
    );
    assert!(!r.stdout.contains("uncaught"));
}

fn yieldpoint_lines(dir: &Path, name: &str, text: &str) -> usize {
    harness::write_program(dir, name, text);
    let r = run_in(dir, &["disasm", name]);
    r.assert_status(0);
    assert!(!r.stdout.is_empty(), "`vm disasm {name}` printed nothing");
    r.stdout
        .lines()
        .filter(|l| l.to_lowercase().contains("yield"))
        .count()
}

/// The loader puts a yieldpoint at each method entry, before each `ret`, and
/// before each jump whose target is at or before it; `vm disasm` shows
/// them. Counted as lines mentioning "yield", relative to a base program.
#[test]
fn disasm_shows_yieldpoints() {
    let dir = harness::scratch("disasm_yieldpoints");
    // Prologue + one epilogue; the forward jump gets none.
    let base = yieldpoint_lines(
        &dir,
        "base.bc",
        ".method main()\n  push 1\n  jz skip\n  push 2\n  pop\nskip:\n  push 0\n  ret\n.end\n",
    );
    assert!(base >= 2, "prologue and epilogue: {base} lines");
    // The same with a backward jump: one backedge more.
    let back = yieldpoint_lines(
        &dir,
        "back.bc",
        ".method main()\ntop:\n  push 1\n  jz top\n  push 2\n  pop\n  push 0\n  ret\n.end\n",
    );
    assert_eq!(back, base + 1, "a backward jump adds a backedge yieldpoint");
    // A second `ret`: one epilogue more.
    let two_rets = yieldpoint_lines(
        &dir,
        "rets.bc",
        ".method main()\n  push 1\n  jz skip\n  push 2\n  ret\nskip:\n  push 0\n  ret\n.end\n",
    );
    assert_eq!(two_rets, base + 1, "each ret gets an epilogue yieldpoint");
    // Another method ending in a jump to itself: prologue + backedge.
    let self_jump = yieldpoint_lines(
        &dir,
        "self.bc",
        ".method spin()\nhere:\n  jmp here\n.end\n.method main()\n  push 1\n  jz skip\n  push 2\n  pop\nskip:\n  push 0\n  ret\n.end\n",
    );
    assert_eq!(
        self_jump,
        base + 2,
        "a jump to itself is a backedge (target at the jump)"
    );
    // A conditional backward jump and a throw: backedge, no epilogue.
    let thrower = yieldpoint_lines(
        &dir,
        "throw.bc",
        ".method t()\nagain:\n  push 0\n  jnz again\n  push 1\n  throw\n.end\n.method main()\n  push 1\n  jz skip\n  push 2\n  pop\nskip:\n  push 0\n  ret\n.end\n",
    );
    assert_eq!(thrower, base + 2, "prologue + backedge of `t`");
}

#[test]
fn disasm_rejects_invalid_programs() {
    let dir = harness::scratch("disasm_invalid");
    harness::write_program(&dir, "bad.bc", ".method main()\n  jmp nowhere\n.end\n");
    let r = run_in(&dir, &["disasm", "bad.bc"]);
    r.assert_status(65);
    assert_eq!(
        r.diagnostics("bad.bc")
            .iter()
            .map(|d| (d.line, d.col))
            .collect::<Vec<_>>(),
        vec![(2, 7)]
    );
}
