//! Loading is near-linear in the source: deep class chains, many selectors,
//! many locals and long lines load in bounded time and memory (issue 16,
//! bug 5), and the structures that make them cheap (own fields only,
//! pre-order subclass tests, shared and bounded virtual-method tables)
//! give the same answers as the hierarchy they stand for.
//!
//! Memory is bounded by running `vm` under `ulimit -v` (address space), so
//! a loader that needs gigabytes fails instead of passing slowly.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::harness::{self, clip, run_vm_in, scratch, write_program};

/// Address-space limit for the bounded runs, in KB (1 GB).
const MEMORY_KB: u32 = 1_000_000;
/// Time limit for the bounded runs: generous, as the machine may be busy
/// (each of these programs loads in well under a second).
const TIME_LIMIT: Duration = Duration::from_secs(30);

/// What `vm ARGS` printed, under `ulimit -v MEMORY_KB` and `timeout`.
struct Bounded {
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

fn bounded(dir: &Path, args: &str) -> Bounded {
    let start = Instant::now();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v {MEMORY_KB}; exec timeout {} '{}' {args}",
            TIME_LIMIT.as_secs(),
            harness::VM
        ))
        .current_dir(dir)
        .output()
        .expect("bash runs");
    let b = Bounded {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    assert!(
        b.status != Some(124),
        "`vm {args}` did not finish within {TIME_LIMIT:?}"
    );
    assert!(
        !b.stderr.contains("panicked") && !b.stderr.contains("memory allocation"),
        "`vm {args}` ran out of {MEMORY_KB} KB of address space after {:?}:\n{}",
        start.elapsed(),
        clip(&b.stderr)
    );
    b
}

/// A chain `C0 <- C1 <- ... <- C(n-1)`; with `fields`, each class declares
/// a field (`f` in C0, `gI` in CI); `C0.m` returns 7.
fn chain(n: usize, fields: bool) -> String {
    let mut s = String::from(".class C0\n  .field f\n.end\n");
    for i in 1..n {
        let _ = writeln!(s, ".class C{i} : C{}", i - 1);
        if fields {
            let _ = writeln!(s, "  .field g{i}");
        }
        s.push_str(".end\n");
    }
    s
}

#[test]
fn a_deep_chain_with_a_field_per_class_loads_in_bounded_memory() {
    // Before: every class stored its inherited field names (about 11.8 GB
    // and half a minute at this depth) and one ancestor list per class.
    let n = 20_000;
    let dir = scratch("loading_deep_fields");
    let mut src = chain(n, true);
    let last = n - 1;
    let _ = write!(
        src,
        ".method C0.m(self)\n  push 7\n  ret\n.end\n\
         .method main()\n  .locals o\n  new C{last}\n  store o\n\
         load o\n  push 5\n  putfield C{last}.f\n\
         load o\n  callvirt m\n  print\n\
         load o\n  getfield C1.f\n  print\n\
         load o\n  push 9\n  putfield C{last}.g1\n\
         load o\n  getfield C{last}.g1\n  print\n\
         load o\n  instanceof C0\n  print\n\
         load o\n  instanceof C{}\n  print\n\
         new C0\n  instanceof C{last}\n  print\n\
         push 0\n  ret\n.end\n",
        n / 2
    );
    write_program(&dir, "deep.bc", &src);
    let r = bounded(&dir, "run deep.bc");
    assert_eq!(r.status, Some(0), "{}", clip(&r.stderr));
    assert_eq!(r.stdout, "7\n5\n9\n1\n1\n0\n");
    let r = bounded(&dir, "check deep.bc");
    assert_eq!(r.status, Some(0), "{}", clip(&r.stderr));
}

#[test]
fn a_deep_chain_without_fields_runs_in_bounded_memory() {
    // Before: 790 MB at 20,000 classes, quadratic in the depth.
    let n = 40_000;
    let dir = scratch("loading_deep_plain");
    let mut src = chain(n, false);
    src.push_str(".method main()\n  push 1\n  print\n  push 0\n  ret\n.end\n");
    write_program(&dir, "plain.bc", &src);
    let r = bounded(&dir, "run plain.bc");
    assert_eq!(r.status, Some(0), "{}", clip(&r.stderr));
    assert_eq!(r.stdout, "1\n");
}

#[test]
fn a_chain_defining_a_selector_per_class_dispatches_right() {
    // Class DI defines `sI` and overrides `who`: dense tables would hold
    // n²/2 entries (over the table budget), so the deepest classes
    // dispatch through their superclass chain. Before: a table of every
    // selector per class, each entry found by scanning every method.
    let n = 8_000;
    let dir = scratch("loading_many_selectors");
    let mut src = String::new();
    for i in 0..n {
        let sup = if i > 0 {
            format!(" : D{}", i - 1)
        } else {
            String::new()
        };
        let _ = write!(
            src,
            ".class D{i}{sup}\n.end\n\
             .method D{i}.s{i}(self)\n  push {i}\n  ret\n.end\n"
        );
        if i % 3 == 0 {
            let _ = write!(
                src,
                ".method D{i}.who(self)\n  push {}\n  ret\n.end\n",
                100_000 + i
            );
        }
    }
    src.push_str(".method main()\n  .locals o\n");
    let mut expected = String::new();
    // (receiver class, selector index): the selector's own class answers.
    for (c, s) in [
        (n - 1, 0),
        (n - 1, n - 1),
        (n - 1, n / 2),
        (n - 2, 1),
        (0, 0),
    ] {
        let _ = write!(src, "  new D{c}\n  callvirt s{s}\n  print\n");
        let _ = writeln!(expected, "{s}");
    }
    for c in [0, 1, 2, 3, n / 2, n - 1, n - 2] {
        let _ = write!(src, "  new D{c}\n  callvirt who\n  print\n");
        let _ = writeln!(expected, "{}", 100_000 + c - c % 3);
    }
    // A selector the class does not have: a runtime error naming both.
    let _ = write!(
        src,
        "  new D{}\n  callvirt s{}\n  print\n  push 0\n  ret\n.end\n",
        n / 2,
        n - 1
    );
    write_program(&dir, "sel.bc", &src);
    let r = bounded(&dir, "run sel.bc");
    assert_eq!(r.stdout, expected);
    assert_eq!(r.status, Some(70), "{}", clip(&r.stderr));
    let first = r.stderr.lines().next().unwrap_or("");
    assert!(
        first.contains(&format!("s{}", n - 1)) && first.contains(&format!("D{}", n / 2)),
        "{}",
        clip(&r.stderr)
    );
}

#[test]
fn many_locals_on_one_long_line_load_in_linear_time() {
    // Before: each token's column was counted from its line's start and
    // each local name was found by a scan of all of them; 200,000 locals
    // on one line and a store to each took minutes.
    let n = 200_000;
    let dir = scratch("loading_many_locals");
    let mut src = String::from(".method main()\n  .locals");
    for i in 0..n {
        let _ = write!(src, " v{i}");
    }
    src.push('\n');
    for i in 0..n {
        let _ = write!(src, "  push {i}\n  store v{i}\n");
    }
    src.push_str("  load v0\n  load v199999\n  add\n  print\n  push 0\n  ret\n.end\n");
    write_program(&dir, "locals.bc", &src);
    let r = bounded(&dir, "run locals.bc");
    assert_eq!(r.status, Some(0), "{}", clip(&r.stderr));
    assert_eq!(r.stdout, "199999\n");
}

#[test]
fn a_deep_operand_stack_loads_in_linear_time_and_keeps_its_values() {
    // Before: every `store` scanned the whole symbolic operand stack for
    // entries aliasing the local; 100,000 pushes and as many stores took
    // 3 s of CPU to load, quadratic in the depth (docs/PERFORMANCE.md,
    // "Loading"; the indexes that replace the scans are unit-tested in
    // vm/src/translate/sym_stack.rs). This checks the values: a third of
    // the pushes are `load x`, and the first `store x` must give each of
    // them the value x had when it was pushed.
    let n: i64 = 150_000;
    let dir = scratch("loading_deep_stack");
    let mut src = String::from(".method main()\n  .locals x s\n  push 5\n  store x\n");
    let mut want = 0;
    for i in 0..n {
        if i % 3 == 0 {
            src.push_str("  load x\n");
            want += 5;
        } else {
            let _ = writeln!(src, "  push {i}");
            want += i;
        }
    }
    for _ in 0..n {
        src.push_str("  store x\n  load x\n  load s\n  add\n  store s\n");
    }
    src.push_str("  load s\n  print\n  push 0\n  ret\n.end\n");
    write_program(&dir, "deep.bc", &src);
    let r = bounded(&dir, "run deep.bc");
    assert_eq!(r.status, Some(0), "{}", clip(&r.stderr));
    assert_eq!(r.stdout, format!("{want}\n"));
}

#[test]
fn positions_on_a_long_line_count_characters() {
    // One line of 100,000 tokens, strings with multi-byte characters among
    // them, then a character that starts no token at its end: the column
    // counts characters, not bytes (the line is reported, then skipped).
    let dir = scratch("loading_long_line");
    let mut line = String::from("  push");
    for i in 0..100_000 {
        let _ = write!(line, " \"é{i}\" v{i}");
    }
    let col = line.chars().count() + 2; // the `@` after a space, 1-based
    let src = format!(".method main()\n{line} @\n  push 0\n  ret\n.end\n");
    write_program(&dir, "long.bc", &src);
    let r = run_vm_in(&dir, &["check", "long.bc"], TIME_LIMIT);
    r.assert_status(65);
    let d = r.diagnostics("long.bc");
    assert_eq!(d.len(), 1, "{}", clip(&r.stderr));
    assert_eq!((d[0].line, d[0].col as usize), (2, col), "{:?}", d[0]);
}

/// The class tree of the correctness test: a chain `K0 <- ... <- K(D-1)`,
/// a sibling `SI : K(I-1)` every `SIB` levels, and a separate root `R`.
/// KI declares `kI` and SI declares `sI`; `who` answers the nearest
/// definer's number: KI defines it when I % 7 == 0, SI when I is even.
const D: usize = 3_000;
const SIB: usize = 250;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Cls {
    K(usize),
    S(usize),
    R,
}

impl Cls {
    fn name(self) -> String {
        match self {
            Cls::K(i) => format!("K{i}"),
            Cls::S(i) => format!("S{i}"),
            Cls::R => "R".into(),
        }
    }

    fn parent(self) -> Option<Cls> {
        match self {
            Cls::K(0) | Cls::R => None,
            Cls::K(i) | Cls::S(i) => Some(Cls::K(i - 1)),
        }
    }

    fn is_subclass(self, sup: Cls) -> bool {
        let mut c = Some(self);
        while let Some(k) = c {
            if k == sup {
                return true;
            }
            c = k.parent();
        }
        false
    }

    fn who(self) -> Option<i64> {
        let mut c = Some(self);
        while let Some(k) = c {
            match k {
                Cls::K(i) if i % 7 == 0 => return Some(i as i64),
                Cls::S(i) if i % 2 == 0 => return Some(-(i as i64)),
                _ => {}
            }
            c = k.parent();
        }
        None
    }
}

#[test]
fn subclass_tests_fields_and_dispatch_through_deep_chains_and_siblings() {
    let dir = scratch("loading_hierarchy");
    let mut src = String::new();
    let mut classes = vec![Cls::R];
    src.push_str(".class R\n  .field r\n.end\n");
    for i in 0..D {
        classes.push(Cls::K(i));
        let sup = if i > 0 {
            format!(" : K{}", i - 1)
        } else {
            String::new()
        };
        let _ = write!(src, ".class K{i}{sup}\n  .field k{i}\n.end\n");
        if i % 7 == 0 {
            let _ = write!(src, ".method K{i}.who(self)\n  push {i}\n  ret\n.end\n");
        }
        if i > 0 && i % SIB == 0 {
            classes.push(Cls::S(i));
            let _ = write!(src, ".class S{i} : K{}\n  .field s{i}\n.end\n", i - 1);
            if i % 2 == 0 {
                let _ = write!(src, ".method S{i}.who(self)\n  push -{i}\n  ret\n.end\n");
            }
        }
    }
    // Receivers: a spread of chain depths, every sibling, the other root.
    let receivers: Vec<Cls> = classes
        .iter()
        .copied()
        .filter(|c| match c {
            Cls::K(i) => i % 97 == 0 || *i == D - 1 || *i == 1,
            _ => true,
        })
        .collect();
    // Classes to test against: a coarser spread, every sibling, the root.
    let targets: Vec<Cls> = classes
        .iter()
        .copied()
        .filter(|c| match c {
            Cls::K(i) => i % 499 == 0 || *i == D - 1 || *i == 1,
            _ => true,
        })
        .collect();
    src.push_str(".method main()\n  .locals o\n");
    let mut expected = String::new();
    for &o in &receivers {
        let _ = write!(src, "  new {}\n  store o\n", o.name());
        for &t in &targets {
            let _ = write!(src, "  load o\n  instanceof {}\n  print\n", t.name());
            let _ = writeln!(expected, "{}", i32::from(o.is_subclass(t)));
            let _ = write!(src, "  load o\n  isclass {}\n  print\n", t.name());
            let _ = writeln!(expected, "{}", i32::from(o == t));
        }
        if let Some(w) = o.who() {
            let _ = write!(src, "  load o\n  callvirt who\n  print\n");
            let _ = writeln!(expected, "{w}");
        }
        // Fields: written through the declaring class, read through the
        // receiver's own class (a lookup up the chain), and back.
        let declared: Vec<(String, String)> = {
            let mut v = Vec::new();
            let mut c = Some(o);
            while let Some(k) = c {
                let f = match k {
                    Cls::K(i) => format!("k{i}"),
                    Cls::S(i) => format!("s{i}"),
                    Cls::R => "r".into(),
                };
                v.push((k.name(), f));
                c = k.parent();
            }
            v
        };
        for (n, (owner, f)) in declared.iter().enumerate() {
            if n % 401 != 0 && n != declared.len() - 1 {
                continue;
            }
            let v = 1000 + n;
            let _ = write!(
                src,
                "  load o\n  push {v}\n  putfield {owner}.{f}\n\
                 load o\n  getfield {}.{f}\n  print\n",
                o.name()
            );
            let _ = writeln!(expected, "{v}");
        }
    }
    src.push_str("  push 0\n  ret\n.end\n");
    write_program(&dir, "tree.bc", &src);
    let r = run_vm_in(&dir, &["run", "tree.bc"], TIME_LIMIT);
    r.assert_status(0);
    assert!(r.stdout == expected, "output differs from the model");

    // A field of a class the object is not an instance of (a sibling
    // branch): the runtime error names the field through the chain.
    let bad = format!(
        "{}\n.method main()\n  new S{SIB}\n  getfield K{SIB}.k3\n  print\n  push 0\n  ret\n.end\n",
        src.split(".method main()").next().expect("classes")
    );
    write_program(&dir, "bad.bc", &bad);
    let r = run_vm_in(&dir, &["run", "bad.bc"], TIME_LIMIT);
    r.assert_status(70);
    let first = r.stderr.lines().next().unwrap_or("");
    assert!(
        first.contains(&format!("getfield K{SIB}.k3")) && first.contains(&format!("S{SIB}")),
        "{}",
        clip(&r.stderr)
    );
    // And the disassembly names inherited fields as before.
    let r = run_vm_in(&dir, &["disasm", "bad.bc"], TIME_LIMIT);
    r.assert_status(0);
    assert!(
        r.stdout.contains(&format!("= getfield t0.K{SIB}.k3\n")),
        "{}",
        clip(&r.stdout)
    );
    assert!(
        r.stdout.contains(".class K2 : K1  ; fields: k0, k1, k2\n"),
        "{}",
        clip(&r.stdout)
    );
}

#[test]
fn field_declaration_errors_are_found_through_the_chain() {
    // A field redeclared far down a chain, in a sibling (allowed), and
    // twice in one class; an unknown field read through a deep class.
    let dir = scratch("loading_field_errors");
    let mut src = chain(2_000, true);
    src.push_str(".class T : C10\n  .field g11\n  .field g11\n  .field g5\n.end\n");
    src.push_str(".class U : C1999\n  .field g1000\n.end\n");
    src.push_str(
        ".method main()\n  new C1999\n  getfield C1999.nope\n  print\n  push 0\n  ret\n.end\n",
    );
    write_program(&dir, "f.bc", &src);
    let r = run_vm_in(&dir, &["check", "f.bc"], TIME_LIMIT);
    r.assert_status(65);
    let msgs: Vec<String> = r
        .diagnostics("f.bc")
        .into_iter()
        .map(|d| d.message)
        .collect();
    assert_eq!(
        msgs,
        [
            "field `g11` is defined twice",
            "field `g5` is already declared in a superclass of `T`",
            "field `g1000` is already declared in a superclass of `U`",
            "class `C1999` has no field `nope`",
        ],
        "{}",
        clip(&r.stderr)
    );
}
