//! The Are We Fast Yet benchmarks in `programs/awfy/` (docs/AWFY.md),
//! through the real binary:
//!
//! - **every benchmark passes its own check** at its default size: `vm run
//!   NAME.bc` exits 0 and prints exactly `NAME.out`; with `--set
//!   iterations=2 --set inner=3` it prints the parameters and one result
//!   line per outer iteration.
//! - **a wrong result fails**: with `--set expected=N` for a value the
//!   benchmark does not compute, its `verify_result` says no, and the
//!   program prints `Benchmark failed with incorrect result` and exits 1.
//!   Mandelbrot and NBody, whose inner iterations are the problem size, also
//!   fail (printing their result) at a size whose result they do not know.
//! - **the generated files are up to date**: `programs/awfy/build.sh OUTDIR`
//!   regenerates every `NAME.bc` from its parts, and each must equal the
//!   committed file; the header's line ranges must name where each part
//!   really is.
//! - **the som Vector fragment works**: `som/vector.bc` with a test `main`
//!   appending, growing, removing, iterating with blocks and sorting.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{self, run_vm_in, scratch, write_program, DEFAULT_TIMEOUT};

/// The micro benchmarks that must exist (the suite's order).
const MICRO: [&str; 9] = [
    "sieve",
    "towers",
    "permute",
    "queens",
    "list",
    "storage",
    "bounce",
    "mandelbrot",
    "nbody",
];

/// Benchmarks whose inner iterations are their problem size.
const SIZED: [&str; 2] = ["mandelbrot", "nbody"];

fn awfy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/awfy")
}

/// Every benchmark: the names of `programs/awfy/src/*.bc`.
fn benchmarks() -> Vec<String> {
    let names: Vec<String> = harness::bc_files(&awfy_dir().join("src"))
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    for m in MICRO {
        assert!(
            names.iter().any(|n| n == m),
            "programs/awfy/src/{m}.bc is missing"
        );
    }
    names
}

fn run(name: &str, args: &[&str]) -> harness::Run {
    let file = format!("{name}.bc");
    let mut all = vec!["run", file.as_str()];
    all.extend_from_slice(args);
    run_vm_in(&awfy_dir(), &all, DEFAULT_TIMEOUT)
}

#[test]
fn awfy_benchmarks_print_their_out_files() {
    let mut report = String::new();
    for name in benchmarks() {
        let out = awfy_dir().join(format!("{name}.out"));
        let Ok(expected) = std::fs::read_to_string(&out) else {
            let _ = writeln!(report, "=== {name}: missing {name}.out");
            continue;
        };
        let r = run(&name, &[]);
        r.assert_no_crash();
        if r.status != Some(0) || r.stdout != expected {
            let _ = writeln!(
                report,
                "=== {name}: status {:?}\n--- expected\n{expected}--- got\n{}--- stderr\n{}",
                r.status,
                r.stdout,
                harness::clip(&r.stderr)
            );
            continue;
        }
        // The layout of the output: name, iterations, inner, one result.
        let lines: Vec<&str> = expected.lines().collect();
        if lines.len() != 4 || lines[1] != "1" {
            let _ = writeln!(report, "=== {name}: {name}.out is not NAME/1/INNER/RESULT");
            continue;
        }
        // Two outer iterations print the result twice; for the benchmarks
        // of fixed size, three inner iterations compute the same result.
        let inner = if SIZED.contains(&name.as_str()) {
            lines[2]
        } else {
            "3"
        };
        let r = run(
            &name,
            &["--set", "iterations=2", "--set", &format!("inner={inner}")],
        );
        r.assert_no_crash();
        let want = format!("{}\n2\n{inner}\n{}\n{}\n", lines[0], lines[3], lines[3]);
        if r.status != Some(0) || r.stdout != want {
            let _ = writeln!(
                report,
                "=== {name} with iterations=2 inner={inner}: status {:?}\n--- expected\n{want}--- got\n{}",
                r.status, r.stdout
            );
        }
    }
    assert!(report.is_empty(), "{report}");
}

#[test]
fn awfy_wrong_result_fails_the_check() {
    let mut report = String::new();
    for name in benchmarks() {
        let r = run(&name, &["--set", "expected=987654321"]);
        r.assert_no_crash();
        let last = r.stdout.lines().last().unwrap_or("");
        if r.status != Some(1) || last != "Benchmark failed with incorrect result" {
            let _ = writeln!(
                report,
                "=== {name} with expected=987654321: status {:?} (want 1), stdout:\n{}",
                r.status, r.stdout
            );
        }
    }
    for name in SIZED {
        // 7 is a size whose result neither benchmark knows.
        let r = run(name, &["--set", "inner=7"]);
        r.assert_no_crash();
        let lines: Vec<&str> = r.stdout.lines().collect();
        let ok = r.status == Some(1)
            && lines.len() == 6
            && lines[3] == "No verification result for this size; the result is:"
            && lines[4].parse::<i64>().is_ok()
            && lines[5] == "Benchmark failed with incorrect result";
        if !ok {
            let _ = writeln!(
                report,
                "=== {name} with inner=7: status {:?} (want 1), stdout:\n{}",
                r.status, r.stdout
            );
            continue;
        }
        // ... and that result, given as the expected one, passes.
        let result = lines[4].to_string();
        let r = run(
            name,
            &["--set", "inner=7", "--set", &format!("expected={result}")],
        );
        r.assert_status(0);
        assert_eq!(
            r.stdout.lines().last(),
            Some(result.as_str()),
            "{name}: inner=7 expected={result}"
        );
    }
    assert!(report.is_empty(), "{report}");
}

/// The part files and line ranges a generated file's header names.
fn header_parts(text: &str) -> Vec<(usize, usize, String)> {
    let mut parts = Vec::new();
    for line in text.lines() {
        if !line.starts_with(';') {
            break;
        }
        let body = line.trim_start_matches(';').trim();
        let mut words = body.split_whitespace();
        let (Some(range), Some(part), None) = (words.next(), words.next(), words.next()) else {
            continue;
        };
        let Some((a, b)) = range.split_once('-') else {
            continue;
        };
        if let (Ok(a), Ok(b)) = (a.parse(), b.parse()) {
            parts.push((a, b, part.to_string()));
        }
    }
    parts
}

#[test]
fn awfy_generated_files_match_the_build_script() {
    let dir = awfy_dir();
    let out = scratch("awfy_build");
    let status = Command::new("bash")
        .arg(dir.join("build.sh"))
        .arg(&out)
        .status()
        .expect("run bash programs/awfy/build.sh");
    assert!(status.success(), "build.sh failed: {status}");

    let generated: Vec<String> = harness::bc_files(&out)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let committed: Vec<String> = harness::bc_files(&dir)
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        generated, committed,
        "build.sh generates other files than programs/awfy/*.bc holds"
    );
    assert_eq!(generated.len(), benchmarks().len());

    let mut report = String::new();
    for name in &generated {
        let want = std::fs::read_to_string(out.join(name)).unwrap();
        let have = std::fs::read_to_string(dir.join(name)).unwrap();
        if want != have {
            let _ = writeln!(
                report,
                "programs/awfy/{name} differs from what build.sh generates: run programs/awfy/build.sh"
            );
            continue;
        }
        // The header names lib/harness.bc first, src/NAME.bc last, and each
        // part's text sits at the lines it names.
        let lines: Vec<&str> = have.lines().collect();
        let parts = header_parts(&have);
        if parts.first().map(|p| p.2.as_str()) != Some("lib/harness.bc")
            || parts.last().map(|p| p.2.clone()) != Some(format!("src/{name}"))
        {
            let _ = writeln!(report, "{name}: header names the parts {parts:?}");
            continue;
        }
        let mut next = parts[0].0;
        for (a, b, part) in &parts {
            let text = std::fs::read_to_string(dir.join(part)).unwrap();
            let got = lines.get(a - 1..*b).map(|l| l.join("\n") + "\n");
            if *a != next || got.as_deref() != Some(text.as_str()) {
                let _ = writeln!(report, "{name}: lines {a}-{b} are not {part}");
            }
            next = b + 1;
        }
        if next != lines.len() + 1 {
            let _ = writeln!(
                report,
                "{name}: the parts end at line {}, the file at {}",
                next - 1,
                lines.len()
            );
        }
    }
    assert!(report.is_empty(), "{report}");
}

/// A test `main` for som/vector.bc, and what it prints.
const VECTOR_MAIN: &str = r#"
.class Sum : Block
  .field total
.end
.method Sum.apply(this, e)
  load this
  load this
  getfield Sum.total
  load e
  add
  putfield Sum.total
  push 0
  ret
.end
.class Above : Block
  .field limit
.end
.method Above.test(this, e)
  load e
  load this
  getfield Above.limit
  gt
  ret
.end
.class Ascending : Comparator
.end
.method Ascending.compare(this, a, b)
  load a
  load b
  sub
  ret
.end
; prints v's elements from index 0 to size - 1 on one line each
.method show(v)
  .locals i
next:
  load i
  load v
  callvirt size
  jge done
  load v
  load i
  callvirt at
  print
  inc i 1
  jmp next
done:
  push 0
  ret
.end
.method main()
  .locals v i s a bad
  push 2
  call vector_with_size
  store v
fill:                   ; 0 7 4 1 8 5 2 9 6 3: grows from 2 to 16
  load i
  push 10
  jge filled
  load v
  load i
  push 7
  mul
  push 10
  rem
  callvirt append
  pop
  inc i 1
  jmp fill
filled:
  load v
  callvirt size
  print
  load v
  callvirt capacity
  print
  new Sum
  store s
  load v
  load s
  callvirt for_each
  pop
  load s
  getfield Sum.total
  print
  new Above
  store a
  load a
  push 8
  putfield Above.limit
  load v
  load a
  callvirt has_some
  print
  load v
  load a
  callvirt get_one
  print
  load a
  push 9
  putfield Above.limit
  load v
  load a
  callvirt has_some
  print
  load v
  load a
  callvirt get_one
  print
  load v
  callvirt remove_first
  print
  load v
  callvirt first
  print
  load v
  push 4
  callvirt remove
  print
  load v
  push 4
  callvirt remove
  print
  load v
  new Ascending
  callvirt sort
  pop
  load v
  call show
  pop
  load v
  push 40
  push 99
  callvirt at_put
  pop
  load v
  callvirt capacity
  print
  load v
  push 40
  callvirt at
  print
  load v
  push 39
  callvirt at
  print
  load v
  push 1000
  callvirt at
  print
  load v
  callvirt remove_all
  pop
  load v
  callvirt is_empty
  print
  load v
  callvirt remove_first
  print
  load v
  callvirt first
  print
  push 5
  call vector_with
  callvirt first
  print
  call vector_new       ; sort 300 values with duplicates: count inversions
  store v
  push 0
  store i
big:
  load i
  push 300
  jge big_done
  load v
  load i
  push 37
  mul
  push 101
  rem
  callvirt append
  pop
  inc i 1
  jmp big
big_done:
  load v
  new Ascending
  callvirt sort
  pop
  push 1
  store i
check:
  load i
  load v
  callvirt size
  jge checked
  load v
  load i
  push 1
  sub
  callvirt at
  load v
  load i
  callvirt at
  jle in_order
  inc bad 1
in_order:
  load s
  load v
  load i
  callvirt at
  callvirt apply
  pop
  inc i 1
  jmp check
checked:
  load bad
  print
  load s                ; 45 before, plus every element but the first
  getfield Sum.total
  load v
  push 0
  callvirt at
  add
  print
  push 0
  ret
.end
"#;

#[test]
fn awfy_som_vector_works() {
    let dir = scratch("awfy_vector");
    let vector = std::fs::read_to_string(awfy_dir().join("som/vector.bc")).unwrap();
    write_program(&dir, "vector_test.bc", &format!("{vector}{VECTOR_MAIN}"));
    let r = run_vm_in(&dir, &["run", "vector_test.bc"], DEFAULT_TIMEOUT);
    r.assert_status(0);
    // The sum of (i * 37) % 101 over i < 300, plus the 45 of the first sum.
    let big_sum: i64 = 45 + (0..300).map(|i: i64| i * 37 % 101).sum::<i64>();
    let want = [
        "10", "16", "45", "1", "9", "0", "null", "0", "7", "1", "0", "1", "2", "3", "5", "6", "7",
        "8", "9", "64", "99", "null", "null", "1", "null", "null", "5", "0",
    ]
    .join("\n")
        + &format!("\n{big_sum}\n");
    assert_eq!(r.stdout, want, "stderr:\n{}", r.stderr);
}
