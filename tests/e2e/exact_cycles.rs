//! The exhaustive profile's time reference: each method's self and total
//! cycles of the cost model (`methods[].cycles`, `methods[].total_cycles`;
//! docs/LANGUAGE.md "Profiles"), which the `causality` experiment compares
//! the sampling profiles with.

use profile::{MethodEntry, Profile};

use crate::harness::{self, run_vm_in, DEFAULT_TIMEOUT};

/// `main` calls `outer` twice; `outer` loops and calls `leaf` three times;
/// `down` recurses five levels and calls nothing else.
const PROGRAM: &str = "\
.method leaf(x)
  load x
  push 2
  mul
  ret
.end
.method outer(n)
  .locals i s
loop:
  load i
  call leaf
  store s
  inc i 1
  load i
  push 3
  jlt loop
  load s
  ret
.end
.method down(n)
  load n
  push 0
  jle base
  load n
  push 1
  sub
  call down
  ret
base:
  push 0
  ret
.end
.method main()
  push 1
  call outer
  pop
  push 2
  call outer
  pop
  push 5
  call down
  print
  push 0
  ret
.end
";

/// The profile of a run of PROGRAM with `options`, in a scratch directory
/// named `name`.
fn profile_of(name: &str, options: &[&str]) -> Profile {
    let dir = harness::scratch(name);
    harness::write_program(&dir, "p.bc", PROGRAM);
    let args: Vec<&str> = ["run", "p.bc", "--profile-out=p.json"]
        .into_iter()
        .chain(options.iter().copied())
        .collect();
    run_vm_in(&dir, &args, DEFAULT_TIMEOUT).assert_status(0);
    Profile::read(&dir.join("p.json")).unwrap()
}

fn method<'a>(p: &'a Profile, name: &str) -> &'a MethodEntry {
    p.methods
        .as_ref()
        .and_then(|m| m.iter().find(|m| m.name == name))
        .unwrap_or_else(|| panic!("no method {name}"))
}

fn cycles(m: &MethodEntry) -> (u64, u64) {
    (
        m.cycles.expect("self cycles"),
        m.total_cycles.expect("total cycles"),
    )
}

#[test]
fn the_exhaustive_profile_splits_the_runs_cycles_over_its_methods() {
    let p = profile_of("exact-cycles", &["--profile=exhaustive"]);
    let run_cycles = p.run.cycles.expect("the exhaustive run counts cycles");
    // Self cycles partition the run; main is on the stack throughout.
    let all: u64 = p
        .methods
        .as_ref()
        .unwrap()
        .iter()
        .map(|m| cycles(m).0)
        .sum();
    assert_eq!(all, run_cycles);
    assert_eq!(cycles(method(&p, "main")).1, run_cycles);
    // A method's total is its self and its callees' totals.
    let (leaf_self, leaf_total) = cycles(method(&p, "leaf"));
    assert_eq!(leaf_self, leaf_total, "leaf calls nothing");
    let (outer_self, outer_total) = cycles(method(&p, "outer"));
    assert_eq!(outer_total, outer_self + leaf_total);
    // Recursion counts once: five nested activations, one total.
    let (down_self, down_total) = cycles(method(&p, "down"));
    assert!(down_self > 0);
    assert_eq!(down_total, down_self);
    let (main_self, _) = cycles(method(&p, "main"));
    assert_eq!(run_cycles, main_self + outer_total + down_total);
    // The instruction counts (`self`) are unchanged beside them.
    assert!(method(&p, "leaf").self_ < leaf_self);
    // A sampled profile has no time reference.
    let s = profile_of("exact-cycles-sampled", &["--profile=cbs"]);
    assert!(s
        .methods
        .unwrap()
        .iter()
        .all(|m| m.cycles.is_none() && m.total_cycles.is_none()));
}

#[test]
fn the_exhaustive_cct_splits_the_runs_cycles_over_its_contexts() {
    let p = profile_of(
        "exact-cct-cycles",
        &["--profile=exhaustive", "--record=cct"],
    );
    let cct = p.cct.as_ref().expect("a cct");
    let on_top = |n: &profile::CctNode| n.cycles.expect("every context has its cycles");
    // Contexts partition the run's cycles as methods do.
    assert_eq!(cct.iter().map(on_top).sum::<u64>(), p.run.cycles.unwrap());
    // A method's self cycles are the sum over its contexts.
    for m in p.methods.as_ref().unwrap() {
        let contexts: u64 = cct
            .iter()
            .filter(|n| &*n.method == m.name.as_str())
            .map(on_top)
            .sum();
        assert_eq!(contexts, cycles(m).0, "{}", m.name);
    }
    // outer's two contexts (called from two lines of main) each have
    // their own time: the second call does the same work as the first.
    let outer: Vec<u64> = cct
        .iter()
        .filter(|n| &*n.method == "outer")
        .map(on_top)
        .collect();
    assert_eq!(outer.len(), 2);
    assert!(outer.iter().all(|&c| c > 0));
    // Recursion: five nested contexts of down, each with its own time.
    assert_eq!(cct.iter().filter(|n| &*n.method == "down").count(), 6);
    // A sampled CCT has no cycles.
    let s = profile_of(
        "exact-cct-cycles-sampled",
        &["--profile=cbs", "--record=cct"],
    );
    assert!(s.cct.unwrap().iter().all(|n| n.cycles.is_none()));
}
