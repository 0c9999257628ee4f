//! Hot loops and hot calls stop where their yieldpoints are: the plain
//! interpreter's fused loop tests notice a request through the loop trip
//! folded into their counter's type test, and calls and returns through
//! the frame limit (docs/ARCHITECTURE.md, "The interpreter"). A safepoint
//! requested while a thread runs nothing but one loop must hold it at the
//! loop's backward jump, each time it is asked, and a stop must end it.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use vm::instr::Instr;
use vm::loader::Program;
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};
use vm::safepoint::{Selection, Walkers};

/// Loops that run for seconds unless stopped (so that a thread that misses
/// its yieldpoints fails the test when it ends, instead of hanging it): a
/// counted loop (`inc i 1` and the rotated `jge` fused), a loop
/// stepping by 2 (the rotated test alone), and a loop of calls to a method
/// returning a constant and one returning its argument, and a loop of
/// calls to a method of 400 straight-line instructions, where a request
/// mostly finds the thread on its way to the epilogue.
const PROGRAM: &str = r#"
.method count_up()
  .locals i n
  push 2000000000
  store n
loop:
  load i
  load n
  jge done
  inc i 1
  jmp loop
done:
  load i
  ret
.end
.method step_two()
  .locals i n
  push 2000000000
  store n
loop:
  load i
  load n
  jge done
  load i
  push 2
  add
  store i
  jmp loop
done:
  load i
  ret
.end
.method one()
  push 1
  ret
.end
.method same(x)
  load x
  ret
.end
.method calls()
  .locals i n
  push 2000000000
  store n
loop:
  load i
  load n
  jge done
  call one
  call same
  pop
  inc i 1
  jmp loop
done:
  load i
  ret
.end
.method long()
  .locals x
LONG_BODY  load x
  ret
.end
.method calls_long()
  .locals i n
  push 2000000000
  store n
loop:
  load i
  load n
  jge done
  call long
  pop
  inc i 1
  jmp loop
done:
  load i
  ret
.end
.method main()
  call ENTRY
  print
  push 0
  ret
.end
"#;

/// `long`'s body: [`LONG_STEPS`] times `x = x + 1`, straight-line.
const LONG_STEP: &str = "  load x\n  push 1\n  add\n  store x\n";
const LONG_STEPS: usize = 100;

/// The loaded program whose `main` calls `entry`.
fn program(entry: &str) -> Program {
    let text = PROGRAM
        .replace("ENTRY", entry)
        .replace("LONG_BODY", &LONG_STEP.repeat(LONG_STEPS));
    let module = vm::verify::assemble("hot.bc", &text).expect("valid program");
    Program::load(module, true)
}

/// The body of the method called `name`.
fn body<'p>(p: &'p Program, name: &str) -> &'p vm::loader::Body {
    let m = p
        .module
        .methods
        .iter()
        .position(|m| m.name == name)
        .expect("a method of the program");
    &p.bodies[m]
}

/// The pcs of `name`'s instructions that `keep` selects in the loaded code.
fn pcs(p: &Program, name: &str, keep: impl Fn(Instr) -> bool) -> BTreeSet<u32> {
    let b = body(p, name);
    (0..b.code.len() as u32)
        .filter(|&pc| keep(b.code[pc as usize]))
        .collect()
}

/// Runs `main` calling `entry` with nothing but safepoints asked of it,
/// `rounds` times, then stops it: the (method, pc) each safepoint held the
/// thread at. Fails if a safepoint times out (the thread never reached a
/// yieldpoint) or the stop does not end the run.
fn held_at(entry: &str, rounds: usize) -> Vec<(String, u32)> {
    let p = program(entry);
    let names: Vec<String> = p.module.methods.iter().map(|m| m.name.clone()).collect();
    let (output, _buf) = Output::capture();
    let vm = Vm::new(
        p,
        VmOptions {
            output,
            ..VmOptions::default()
        },
    );
    let coordinator = {
        let vm: Arc<Vm> = vm.clone();
        let entry = entry.to_string();
        std::thread::spawn(move || {
            let mut seen = Vec::new();
            for _ in 0..rounds {
                // Let the thread run its loop at full speed first.
                std::thread::sleep(Duration::from_millis(20));
                let stats = vm.safepoint(Selection::All, Walkers::Coordinator, |_, ctx, _| {
                    let top = ctx.frames.last().expect("a frame");
                    seen.push((names[top.body as usize].clone(), ctx.pc));
                });
                if stats.timed_out {
                    return Err(format!("{entry}: the safepoint timed out"));
                }
            }
            vm.stop(0);
            Ok(seen)
        })
    };
    let status = vm.run().status;
    let seen = coordinator
        .join()
        .expect("coordinator did not panic")
        .unwrap();
    assert_eq!(status, 0, "{entry}: stopped with status 0");
    assert_eq!(seen.len(), rounds, "{entry}: one thread held each time");
    seen
}

#[test]
fn the_hot_loops_run_their_fused_tests() {
    // The tests below are about these forms: check that they are there.
    let p = program("count_up");
    let exec = |name: &str| {
        body(&p, name)
            .exec
            .iter()
            .map(|i| i.name())
            .collect::<Vec<_>>()
    };
    assert!(
        exec("count_up").contains(&"CountLoopGeRRY"),
        "{:?}",
        exec("count_up")
    );
    assert!(
        exec("step_two").contains(&"LoopGeRRY"),
        "{:?}",
        exec("step_two")
    );
    assert!(!exec("step_two").contains(&"CountLoopGeRRY"));
    assert!(exec("one").contains(&"RetIntY"), "{:?}", exec("one"));
    assert!(exec("same").contains(&"RetY"), "{:?}", exec("same"));
}

/// `entry`'s loop has one backward jump (`is_backedge`), and each of 5
/// requests holds the thread there.
fn held_only_at_the_backedge(entry: &str, is_backedge: impl Fn(Instr) -> bool) {
    let p = program(entry);
    let backedges = pcs(&p, entry, is_backedge);
    assert_eq!(backedges.len(), 1, "one backward jump to the test");
    for (method, pc) in held_at(entry, 5) {
        assert_eq!(method, entry);
        assert!(
            backedges.contains(&pc),
            "held at pc {pc}, not {backedges:?}"
        );
    }
}

#[test]
fn a_counted_loop_stops_at_its_backedge_each_time() {
    held_only_at_the_backedge("count_up", |i| i == Instr::JmpY { t: 2 });
}

#[test]
fn a_rotated_loop_stops_at_its_backedge_each_time() {
    held_only_at_the_backedge("step_two", |i| matches!(i, Instr::JmpY { .. }));
}

#[test]
fn hot_calls_stop_at_prologues_epilogues_and_the_backedge() {
    let p = program("calls");
    let yieldpoints = |name: &str| pcs(&p, name, |i| i.yield_kind().is_some());
    let mut kinds = BTreeSet::new();
    // Sixty requests: the call into `one` takes about three in four (its
    // prologue is where most requests land first, 74 of 100 in one run),
    // so twenty left a few percent of loaded runs seeing prologues only.
    for (method, pc) in held_at("calls", 60) {
        assert!(
            yieldpoints(&method).contains(&pc),
            "held in {method} at pc {pc}, not a yieldpoint: {:?}",
            yieldpoints(&method)
        );
        kinds.insert(format!(
            "{:?}",
            body(&p, &method).code[pc as usize].yield_kind()
        ));
    }
    // Most of the time goes to the calls: both of their yieldpoints hold it.
    assert!(kinds.len() >= 2, "held only at {kinds:?}");
}

#[test]
fn a_long_method_stops_at_its_epilogue() {
    let p = program("calls_long");
    let epilogue = pcs(&p, "long", |i| {
        i.yield_kind() == Some(vm::instr::YieldKind::Epilogue)
    });
    assert_eq!(epilogue.len(), 1);
    let held = held_at("calls_long", 10);
    let at_epilogue = held
        .iter()
        .filter(|(m, pc)| m == "long" && epilogue.contains(pc))
        .count();
    // Most of the time goes to `long`'s body, whose next yieldpoint is its
    // epilogue (the return floor).
    assert!(at_epilogue >= 3, "held at {held:?}");
}
