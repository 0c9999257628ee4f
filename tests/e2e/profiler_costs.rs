//! What a profile costs: the profiler's own work in cycles of the cost
//! model (vm/src/profiler_cost.rs), reported as `run.profiler_cycles`, its
//! split by kind and the count of each item, and printed by `vm run
//! --cycles` (docs/LANGUAGE.md "Profiles", docs/CLI.md "Simulated cycles").

use std::collections::BTreeMap;

use profile::Profile;
use vm::profiler_cost::CostItem;

use crate::harness::{self, run_vm_in, DEFAULT_TIMEOUT};

/// Two static calls from a loop of three iterations.
const CALLS: &str = "\
.method f(x)
  load x
  push 1
  add
  ret
.end
.method main()
  .locals i s
loop:
  load i
  call f
  store s
  inc i 1
  load i
  push 3
  jlt loop
  load s
  print
  push 0
  ret
.end
";

fn profile_of(dir: &std::path::Path, args: &[&str]) -> (Profile, String) {
    let mut all = vec!["run", "calls.bc", "--profile-out=p.json", "--cycles"];
    all.extend_from_slice(args);
    let r = run_vm_in(dir, &all, DEFAULT_TIMEOUT);
    r.assert_status(0);
    (Profile::read(&dir.join("p.json")).unwrap(), r.stderr)
}

/// The cycles a profile's work counts come to, from the cost table.
fn cycles_of(work: &BTreeMap<String, u64>) -> u64 {
    let centi: u64 = work
        .iter()
        .map(|(name, &n)| {
            let item = CostItem::ALL
                .iter()
                .find(|i| i.name() == name)
                .unwrap_or_else(|| panic!("`{name}` is no item of the cost table"));
            n * item.centicycles()
        })
        .sum();
    centi / 100
}

#[test]
fn the_exhaustive_profile_pays_per_call_and_per_instruction_as_the_table_says() {
    let dir = harness::scratch("costs-exact");
    harness::write_program(&dir, "calls.bc", CALLS);
    let (p, stderr) = profile_of(&dir, &["--profile=exhaustive"]);
    // main's entry and three calls of f; every instruction counted; the
    // session, once, and its two methods.
    let work = p.run.profiler_work.clone().expect("profiler_work");
    let instructions = p.run.instructions.unwrap();
    let expected: BTreeMap<String, u64> = [
        ("exact_call".to_string(), 4),
        ("exact_instruction".to_string(), instructions),
        ("session".to_string(), 1),
        ("session_method".to_string(), 2),
    ]
    .into();
    assert_eq!(work, expected);
    let sampling = (4 * CostItem::ExactCall.centicycles()
        + instructions * CostItem::ExactInstruction.centicycles())
        / 100;
    let organizing =
        (CostItem::Session.centicycles() + 2 * CostItem::SessionMethod.centicycles()) / 100;
    let cycles = p.run.profiler_cycles.unwrap();
    assert!(cycles.abs_diff(sampling + organizing) <= 1, "{cycles}");
    let by_kind = p.run.profiler_cycles_by_kind.unwrap();
    assert_eq!(
        (by_kind.sampling, by_kind.organizing),
        (sampling, organizing)
    );
    // `--cycles` prints it as a share of the program's cycles.
    let line = stderr.lines().nth(1).expect("a second line");
    let program = p.run.cycles.unwrap();
    assert!(
        line.starts_with(&format!("vm: profiler: {cycles} cycles, "))
            && line.contains(&format!("of the program's {program} (sampling {sampling}")),
        "{stderr}"
    );
}

#[test]
fn a_virtual_clock_profile_is_reproducible_and_its_cycles_are_its_counts_times_the_table() {
    let prog = "programs/bench/fib.bc";
    for config in [
        &["--profile=cbs"][..],
        &[
            "--profile=timer",
            "--record=cct",
            "--walk=full",
            "--interval=100us",
        ],
        &["--profile=cbs", "--record=pcct"],
        &[
            "--profile=cbs",
            "--record=acct",
            "--sampled-bit=return-address",
        ],
        &["--profile=cbs", "--record=cct", "--walk=incremental"],
        &["--profile=cbs", "--record=ccmap", "--tune"],
    ] {
        let dir = harness::scratch("costs-repro");
        let run = |out: &str| {
            let mut args = vec!["run", prog, "--clock=virtual", "--seed=7"];
            args.extend_from_slice(config);
            let out = dir.join(out);
            let out_arg = format!("--profile-out={}", out.display());
            args.push(&out_arg);
            harness::vm(&args).assert_status(0);
            std::fs::read(&out).unwrap()
        };
        let (a, b) = (run("a.json"), run("b.json"));
        assert!(a == b, "{config:?}: two runs differ");
        let p = Profile::from_json(std::str::from_utf8(&a).unwrap()).unwrap();
        let work = p.run.profiler_work.clone().unwrap();
        let cycles = p.run.profiler_cycles.unwrap();
        assert!(cycles > 0, "{config:?}");
        assert_eq!(cycles, cycles_of(&work), "{config:?}: {work:?}");
        let by_kind: u64 = p
            .run
            .profiler_cycles_by_kind
            .unwrap()
            .entries()
            .iter()
            .map(|e| e.1)
            .sum();
        assert!(
            by_kind <= cycles && cycles - by_kind < 6,
            "{by_kind} vs {cycles}"
        );
    }
}

#[test]
fn a_samples_work_delays_the_threads_next_tick() {
    // A timer profile ticks every interval of the thread's virtual time,
    // which runs on while the thread samples: with a costly walk (the full
    // stack of a deep recursion at every tick) the run is longer in virtual
    // time than the program's cycles, and the ticks fill that time.
    let dir = harness::scratch("costs-ticks");
    let (p, _) = {
        harness::write_program(&dir, "calls.bc", CALLS);
        let args = [
            "run",
            "programs/bench/fib.bc",
            "--profile=timer",
            "--clock=virtual",
            "--interval=10us",
            "--record=cct",
            "--walk=full",
            "--seed=1",
        ];
        let out = dir.join("p.json");
        let out_arg = format!("--profile-out={}", out.display());
        let mut all = args.to_vec();
        all.push(&out_arg);
        harness::vm(&all).assert_status(0);
        (Profile::read(&out).unwrap(), ())
    };
    let cycles = p.run.cycles.unwrap();
    let work = p.run.profiler_cycles.unwrap();
    let wall = p.run.wall_ns;
    assert!(wall > cycles, "virtual time {wall} includes the work");
    assert!(wall <= cycles + work, "{wall} > {cycles} + {work}");
    // One examination per tick; ticks every 10 us of the whole time.
    let ticks = wall / 10_000;
    assert!(
        p.run.samples.abs_diff(ticks) <= 1,
        "{} samples for {ticks} ticks of {wall} ns ({cycles} of them the program's)",
        p.run.samples
    );
}

#[test]
fn charging_the_profiler_changes_neither_the_program_nor_its_counts() {
    let dir = harness::scratch("costs-same");
    harness::write_program(&dir, "calls.bc", CALLS);
    let plain = run_vm_in(&dir, &["run", "calls.bc", "--cycles"], DEFAULT_TIMEOUT);
    plain.assert_status(0);
    let first = plain.stderr.lines().next().unwrap().to_string();
    for config in [
        &["--profile=exhaustive", "--record=cct"][..],
        &[
            "--profile=cbs",
            "--clock=virtual",
            "--interval=10us",
            "--record=pcct",
        ],
        &[
            "--profile=timer",
            "--clock=virtual",
            "--interval=10us",
            "--record=ccmap",
        ],
    ] {
        let (p, stderr) = profile_of(&dir, config);
        assert_eq!(stderr.lines().next().unwrap(), first, "{config:?}");
        assert!(p.run.profiler_cycles.is_some(), "{config:?}");
        let r = run_vm_in(
            &dir,
            &[&["run", "calls.bc"][..], config].concat(),
            DEFAULT_TIMEOUT,
        );
        assert_eq!(
            (r.status, r.stdout.as_str()),
            (plain.status, plain.stdout.as_str())
        );
    }
}
