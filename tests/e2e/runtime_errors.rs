//! One program per runtime error (`tests/programs/runtime_errors`): status 70, the
//! `runtime error:` line (its key words, where the language reference does not fix the
//! wording) and the exact `  at METHOD (FILE:LINE)` trace; uncaught
//! exceptions in `main`'s thread; runtime errors not being catchable. Also
//! very deep traces (elided in the middle) and the frame limit.

use crate::harness::{self, Mode};

#[test]
fn runtime_error_programs() {
    harness::check_dir("runtime_errors", Mode::Run, &[]);
}

const DEEP: &str = "\
.method down(n)
  load n
  push 1
  add
  call down
  ret
.end
.method main()
  push 0
  call down
  ret
.end
";

/// A very deep trace may elide its middle, "saying how many frames it left
/// out": the frames shown plus the number left out are all the frames.
#[test]
fn deep_trace_is_elided_with_a_count() {
    let dir = harness::scratch("deep_trace");
    harness::write_program(&dir, "deep.bc", DEEP);
    let r = harness::run_vm_in(
        &dir,
        &["run", "deep.bc", "--max-frames=5000"],
        harness::DEFAULT_TIMEOUT,
    );
    r.assert_status(70);
    let lines = r.stderr_lines();
    let err = lines
        .iter()
        .position(|l| l.starts_with("runtime error: "))
        .unwrap_or_else(|| panic!("no runtime error line:\n{}", harness::clip(&r.stderr)));
    assert!(
        lines[err].to_lowercase().contains("overflow"),
        "{}",
        lines[err]
    );
    let block: Vec<&str> = lines[err + 1..]
        .iter()
        .take_while(|l| l.starts_with("  "))
        .copied()
        .collect();
    let at: Vec<&str> = block
        .iter()
        .filter(|l| l.starts_with("  at "))
        .copied()
        .collect();
    let others: Vec<&str> = block
        .iter()
        .filter(|l| !l.starts_with("  at "))
        .copied()
        .collect();
    assert!(
        at.len() < 5000,
        "a 5000-frame trace should be elided, got {} lines",
        at.len()
    );
    assert_eq!(
        others.len(),
        1,
        "expected one line saying how many frames were left out, got {others:?}"
    );
    let numbers: Vec<usize> = others[0]
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        numbers.contains(&(5000 - at.len())),
        "{:?} should say {} frames were left out ({} shown of 5000)",
        others[0],
        5000 - at.len(),
        at.len()
    );
    assert_eq!(at[0], "  at down (deep.bc:5)");
    assert_eq!(*at.last().unwrap(), "  at main (deep.bc:10)");
    assert!(at[..at.len() - 1]
        .iter()
        .all(|l| *l == "  at down (deep.bc:5)"));
    // The elision line stands between frames, not at either end.
    let gap = block.iter().position(|l| !l.starts_with("  at ")).unwrap();
    assert!(gap > 0 && gap < block.len() - 1, "{block:?}");
}

/// The default frame limit (100000) is a limit of the VM, not of the Rust
/// stack: a recursion 90000 deep works, one without end is a clean stack
/// overflow (status 70, no crash).
#[test]
fn default_frame_limit() {
    let dir = harness::scratch("default_frame_limit");
    harness::write_program(
        &dir,
        "deep.bc",
        ".method sum(n)\n  load n\n  jz base\n  load n\n  load n\n  push 1\n  sub\n  call sum\n  add\n  ret\nbase:\n  push 0\n  ret\n.end\n.method main()\n  push 90000\n  call sum\n  print\n  push 0\n  ret\n.end\n",
    );
    let r = harness::run_vm_in(&dir, &["run", "deep.bc"], harness::DEFAULT_TIMEOUT);
    r.assert_status(0);
    assert_eq!(r.stdout, "4050045000\n");

    harness::write_program(&dir, "endless.bc", DEEP);
    let r = harness::run_vm_in(&dir, &["run", "endless.bc"], harness::DEFAULT_TIMEOUT);
    r.assert_status(70);
    let line = r
        .stderr_lines()
        .into_iter()
        .find(|l| l.starts_with("runtime error: "))
        .unwrap_or_else(|| panic!("no runtime error line:\n{}", harness::clip(&r.stderr)))
        .to_lowercase();
    assert!(line.contains("overflow"), "{line}");
    assert!(
        r.stderr.lines().filter(|l| l.starts_with("  at ")).count() < 1000,
        "a 100000-frame trace should be elided"
    );
}

/// `--max-frames=N` allows exactly N frames, `main` counting as one.
#[test]
fn max_frames_is_exact() {
    let dir = harness::scratch("max_frames_exact");
    // depth(n) nests n calls below main: n + 1 frames in all.
    harness::write_program(
        &dir,
        "d.bc",
        ".global n\n.method depth(k)\n  load k\n  jz done\n  load k\n  push 1\n  sub\n  call depth\n  ret\ndone:\n  push 0\n  ret\n.end\n.method main()\n  getglobal n\n  call depth\n  print\n  push 0\n  ret\n.end\n",
    );
    for (n, limit, status) in [
        ("8", "10", 0),
        ("9", "10", 70),
        ("0", "1", 70),
        ("0", "2", 0),
    ] {
        let set = format!("n={n}");
        let max = format!("--max-frames={limit}");
        let r = harness::run_vm_in(
            &dir,
            &["run", "d.bc", "--set", &set, &max],
            harness::DEFAULT_TIMEOUT,
        );
        r.assert_no_crash();
        assert_eq!(
            r.status,
            Some(status),
            "{} frames with {max}: {}",
            n.parse::<u32>().unwrap() + 2,
            r.stderr
        );
    }
}

/// The same errors and traces without yieldpoints.
#[test]
fn runtime_error_programs_without_yieldpoints() {
    harness::check_dir("runtime_errors", Mode::Run, &["--no-yieldpoints"]);
}

/// Moves into a call's window and the call run as one superinstruction in
/// a plain run (`vm disasm --exec` shows it), and as separate instructions
/// in a counting run (`--cycles`). An error at the call (a null receiver,
/// the frame limit) reports the same message, trace and status either way,
/// and the moved arguments arrive.
#[test]
fn an_error_at_a_call_with_fused_argument_moves_reports_as_unfused() {
    const FUSED: &str = "\
.global k
.class A
.end
.method A.m(this, x, y)
  load x
  load y
  sub
  ret
.end
.method deep(n)
  load n
  call deep
  ret
.end
.method main()
  .locals o x y
  new A
  store o
  push 7
  store x
  push 2
  store y
  getglobal k
  push 1
  jne not_null
  null
  store o
not_null:
  getglobal k
  push 2
  jne call
  load x
  call deep
  pop
call:
  load o
  load x
  load y
  callvirt m
  print
  push 0
  ret
.end
";
    let dir = harness::scratch("fused_argument_moves");
    harness::write_program(&dir, "fused.bc", FUSED);
    assert_fused(
        &dir,
        &[
            "t0 = o; t1 = x; t2 = y; t0 = callvirt m(t0, t1, t2)",
            "t0 = n; t0 = call deep(t0)",
        ],
    );
    // (k, stdout, the error's key word and the trace's first frame)
    for (k, out, error) in [
        ("0", "5\n", None),
        ("1", "", Some(("null", "main (fused.bc:39)"))),
        ("2", "", Some(("frame", "deep (fused.bc:12)"))),
    ] {
        let run = fused_and_counted(&dir, k, &["--max-frames=50"]);
        expect_run(&run, k, out, error);
    }
}

/// A field read and the arithmetic that takes it run as one
/// superinstruction in a plain run (`vm disasm --exec` shows it), and as
/// two instructions in a counting run (`--cycles`). An error in either
/// half (a null object or one of another class at the `getfield`, a string
/// at the `sub` or the `add`) reports
/// the same message, line and status either way.
#[test]
fn an_error_inside_a_fused_field_pair_reports_as_unfused() {
    const FUSED: &str = "\
.global k
.class A
  .field f
.end
.class B
  .field g
.end
.method test(o)
  load o
  getfield A.f
  push 0
  sub
  ret
.end
.method main()
  new A
  call test
  print
  getglobal k
  push 1
  jne other
  null
  call test
  ret
other:
  getglobal k
  push 2
  jne string
  new B
  call test
  ret
string:
  new A
  dup
  push \"ten\"
  putfield A.f
  getglobal k
  push 3
  jne arith
  call test
  ret
arith:
  call bump
  ret
.end
.method bump(o)
  load o
  getfield A.f
  push 1
  add
  ret
.end
";
    let dir = harness::scratch("fused_field_errors");
    harness::write_program(&dir, "fused.bc", FUSED);
    assert_fused(&dir, &["t0 = getfield o.A.f; then t0 = sub t0, 0"]);
    // (k, the error's key word, the trace's first frame: the getfield's
    // line for the object, the arithmetic's for the value)
    for (k, word, at) in [
        ("1", "null", "test (fused.bc:10)"),
        ("2", "class", "test (fused.bc:10)"),
        ("3", "integer", "test (fused.bc:12)"),
        ("4", "integer", "bump (fused.bc:50)"),
    ] {
        let run = fused_and_counted(&dir, k, &[]);
        expect_run(&run, k, "0\n", Some((word, at)));
    }
}

/// An array held in a field and the element access at the next pc run as
/// one superinstruction in a plain run, and so does a constant and the
/// element store that stores it; an error of the access (an index
/// out of range, a field that holds no array) reports the same message,
/// trace and status as the counting run, and the fast path reads and
/// writes the element.
#[test]
fn an_error_at_an_element_of_a_fused_field_array_reports_as_unfused() {
    const FUSED: &str = "\
.global k
.class A
  .field xs
.end
.method main()
  .locals o i
  new A
  store o
  load o
  push 3
  newarray
  putfield A.xs
  getglobal k
  store i
  getglobal k
  push 9
  jne array
  load o
  push 5
  putfield A.xs
array:
  load o
  getfield A.xs
  load i
  push 7
  astore
  load o
  getfield A.xs
  load i
  load i
  astore
  load o
  getfield A.xs
  load i
  aload
  print
  push 0
  ret
.end
";
    let dir = harness::scratch("fused_field_arrays");
    harness::write_program(&dir, "fused.bc", FUSED);
    assert_fused(
        &dir,
        &[
            "t2 = 7; then astore t0[i], t2",
            "; then astore t0[i], i",
            "; then t0 = aload t0[i]",
        ],
    );
    // (k, stdout, the error's key word and the trace's first frame)
    for (k, out, error) in [
        ("2", "2\n", None),
        ("3", "", Some(("index", "main (fused.bc:26)"))),
        ("9", "", Some(("array", "main (fused.bc:26)"))),
    ] {
        let run = fused_and_counted(&dir, k, &[]);
        expect_run(&run, k, out, error);
    }
}

/// Arithmetic and the field store that stores its result run as one
/// superinstruction in a plain run, and so do a product or a sum and the
/// `shr` that shifts it; an error in either half (a string at the `add`
/// or the `mul`, a null object or one of an unrelated class at the
/// `putfield`) reports the same message, trace and status as the counting
/// run, and the fast path stores into an object of a subclass too.
#[test]
fn an_error_inside_fused_arithmetic_and_its_store_reports_as_unfused() {
    const FUSED: &str = "\
.global k
.class A
  .field f
.end
.class C : A
.end
.class B
  .field g
.end
.method main()
  .locals o x
  new C
  store o
  push 40
  store x
  getglobal k
  push 2
  jne not_null
  null
  store o
not_null:
  getglobal k
  push 3
  jne not_b
  new B
  store o
not_b:
  getglobal k
  push 4
  jne stored
  push \"ten\"
  store x
stored:
  load o
  load x
  push 2
  add
  putfield A.f
  load x
  load x
  mul
  push 3
  shr
  print
  load x
  load o
  getfield A.f
  add
  push 1
  shr
  print
  push 0
  ret
.end
";
    let dir = harness::scratch("fused_arithmetic_stores");
    harness::write_program(&dir, "fused.bc", FUSED);
    assert_fused(
        &dir,
        &[
            "t1 = add x, 2; then putfield o.A.f, t1",
            "t0 = mul x, x; then t0 = shr t0, 3",
            "; then t0 = shr t0, 1",
        ],
    );
    // (k, stdout, the error's key word and the trace's first frame: the
    // putfield's line for the object, the add's for the value)
    for (k, out, error) in [
        ("1", "200\n41\n", None),
        ("2", "", Some(("null", "main (fused.bc:38)"))),
        ("3", "", Some(("class", "main (fused.bc:38)"))),
        ("4", "", Some(("integer", "main (fused.bc:37)"))),
    ] {
        let run = fused_and_counted(&dir, k, &[]);
        expect_run(&run, k, out, error);
    }
}

/// `vm disasm --exec fused.bc` in `dir` shows each of `fused`.
fn assert_fused(dir: &std::path::Path, fused: &[&str]) {
    let listing = harness::run_vm_in(
        dir,
        &["disasm", "--exec", "fused.bc"],
        harness::DEFAULT_TIMEOUT,
    );
    listing.assert_status(0);
    for f in fused {
        assert!(
            listing.stdout.contains(f),
            "not fused: {f}\n{}",
            listing.stdout
        );
    }
}

/// How a run ended: its status, its stdout, and its runtime error with
/// the trace (the `runtime error:` line and the `  at` lines after it).
type Ending = (Option<i32>, String, Vec<String>);

/// `vm run fused.bc --set k=K FLAGS` in `dir`, as a plain run (with the
/// superinstructions) and as a counting run (`--cycles`: without): they
/// must end the same way, which is returned.
fn fused_and_counted(dir: &std::path::Path, k: &str, flags: &[&str]) -> Ending {
    let mut seen: Vec<Ending> = Vec::new();
    for extra in [&[][..], &["--cycles"][..]] {
        let set = format!("k={k}");
        let mut args = vec!["run", "fused.bc", "--set", &set];
        args.extend_from_slice(flags);
        args.extend_from_slice(extra);
        let r = harness::run_vm_in(dir, &args, harness::DEFAULT_TIMEOUT);
        let error: Vec<String> = r
            .stderr_lines()
            .into_iter()
            .skip_while(|l| !l.starts_with("runtime error: "))
            .take_while(|l| l.starts_with("runtime error: ") || l.starts_with("  "))
            .map(str::to_owned)
            .collect();
        seen.push((r.status, r.stdout.clone(), error));
    }
    assert_eq!(seen[0], seen[1], "k={k}: plain and counting runs differ");
    seen.remove(0)
}

/// `run` printed `out` and, if `error` is `(word, frame)`, died of a
/// runtime error (status 70) whose message has `word` and whose trace
/// starts at `frame`; else it ended well (status 0).
fn expect_run(run: &Ending, k: &str, out: &str, error: Option<(&str, &str)>) {
    let (status, stdout, lines) = run;
    assert_eq!(stdout, out, "k={k}");
    match error {
        Some((word, frame)) => {
            assert_eq!(*status, Some(70), "k={k}: {lines:?}");
            assert!(lines[0].contains(word), "k={k}: {}", lines[0]);
            assert!(lines[1].contains(frame), "k={k}: {lines:?}");
        }
        None => {
            assert_eq!(*status, Some(0), "k={k}");
            assert!(lines.is_empty(), "k={k}: {lines:?}");
        }
    }
}
