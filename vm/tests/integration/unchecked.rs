//! The interpreter's unchecked paths on small programs, small enough to
//! run under Miri (docs/TESTING.md, "Undefined behaviour"): raw `ip` and
//! `fp` pointers, the heap accessors that skip the checks the loader
//! already made, frames pushed without a capacity check, the
//! argument-passing, field and arithmetic superinstructions, and the loop
//! trip's test (its portable form under Miri). Each example runs as loaded with
//! yieldpoints, in the plain interpreter and counting its cycles, and its
//! output must be the example's `.out`.

use super::run_source;

/// `programs/examples/NAME.bc` and its `.out`, built in (Miri's isolation
/// keeps a test from reading files).
macro_rules! example {
    ($name:literal) => {
        (
            $name,
            include_str!(concat!("../../../programs/examples/", $name, ".bc")),
            include_str!(concat!("../../../programs/examples/", $name, ".out")),
        )
    };
}

/// Runs an example, plain or counting, and checks what it printed.
fn run((name, src, expected): (&str, &str, &str), count: bool) {
    let (status, out) = run_source(&format!("{name}.bc"), src, count);
    assert_eq!(status, 0, "{name}");
    assert_eq!(out, expected, "{name}");
}

#[test]
fn objects_arrays_calls_exceptions_and_loops_run_as_their_outputs_say() {
    let examples = [
        example!("classes"),
        example!("arrays"),
        example!("exceptions"),
        example!("loops"),
    ];
    for e in examples {
        for count in [false, true] {
            run(e, count);
        }
    }
}

/// The arithmetic superinstructions (`crate::superinstr`): a field store
/// of an `add` or `sub` (into an object of the field's class and of a
/// subclass), and the `shr` of a product and of a sum, each in a loop so
/// that the fused forms run many times, plain and counting.
#[test]
fn fused_arithmetic_and_its_stores_run_as_unfused() {
    const SRC: &str = "\
.class A
  .field f
.end
.class C : A
.end
.method main()
  .locals a c i x k
  push 3
  store k
  new A
  store a
  new C
  store c
  push 3
  store x
next:
  load i
  push 20
  jge done
  load a
  load a
  getfield A.f
  load x
  load i
  add
  push 1
  shr
  add
  putfield A.f
  load c
  load c
  getfield A.f
  push 2
  add
  putfield A.f
  load c
  push 100
  load x
  sub
  putfield A.f
  load x
  load k
  mul
  push 1
  shr
  store x
  inc i 1
  jmp next
done:
  load a
  getfield A.f
  print
  load c
  getfield A.f
  print
  load x
  print
  push 0
  ret
.end
";
    let mut expected = (0i64, 0i64, 3i64);
    for i in 0..20 {
        expected.0 += (expected.2 + i) >> 1;
        expected.1 = 100 - expected.2;
        expected.2 = (expected.2 * 3) >> 1;
    }
    let out = format!("{}\n{}\n{}\n", expected.0, expected.1, expected.2);
    for count in [false, true] {
        let (status, printed) = run_source("fused.bc", SRC, count);
        assert_eq!(status, 0, "count {count}");
        assert_eq!(printed, out, "count {count}");
    }
}
