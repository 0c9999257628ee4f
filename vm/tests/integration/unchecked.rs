//! The interpreter's unchecked paths on small programs, small enough to
//! run under Miri (docs/TESTING.md, "Undefined behaviour"): raw `ip` and
//! `fp` pointers, the heap accessors that skip the checks the loader
//! already made, frames pushed without a capacity check, the
//! argument-passing and field superinstructions, and the loop trip's test
//! (its portable form under Miri). Each example runs as loaded with
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
