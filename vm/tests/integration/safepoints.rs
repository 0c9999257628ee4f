//! Safepoints under stress: threads compute, sleep, join, throw and end
//! while a coordinator keeps requesting global and partial safepoints. No
//! run may deadlock, lose output, or see a torn stack.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use vm::loader::Program;
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};
use vm::safepoint::{Selection, Walkers};

const PROGRAM: &str = r#"
.global counter
.method work(n)
  .locals i
loop:
  push 1
  addglobal counter
  pop
  call leaf
  pop
  inc i 1
  load i
  load n
  jlt loop
  load n
  ret
.end
.method leaf()
  push 1
  ret
.end
.method nap(ms)
  load ms
  sleep
  push 7
  ret
.end
.method fail(x)
  push "boom"
  throw
.end
.method waiter(t)
  load t
  join
  ret
.end
.method main()
  .locals a b c d e
  .catch s e2 h
  push 3000
  spawn work
  store a
  push 3
  spawn nap
  store b
  push 0
  spawn fail
  store c
  load a
  spawn waiter
  store d
  push 2000
  spawn work
  store e
  load a
  join
  print
  load b
  join
  print
  load d
  join
  print
  load e
  join
  print
s:
  load c
  join
  pop
e2:
  push 0
  ret
h:
  print
  getglobal counter
  print
  push 0
  ret
.end
"#;

const EXPECTED: &str = "3000\n7\n3000\n2000\nboom\n5000\n";

fn run_once(selection: Selection, walkers: Walkers) -> (String, i32, usize) {
    let module = vm::verify::assemble("stress.bc", PROGRAM).expect("valid program");
    let (output, buf) = Output::capture();
    let vm = Vm::new(
        Program::load(module, true),
        VmOptions {
            output,
            ..VmOptions::default()
        },
    );
    let done = Arc::new(AtomicBool::new(false));
    let visited = Arc::new(AtomicUsize::new(0));
    let coordinator = {
        let (vm, done, visited) = (vm.clone(), done.clone(), visited.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                let stats = vm.safepoint(selection, walkers, |t, ctx, _listener| {
                    // A held thread's stack is stable: every frame's body is
                    // a real method and the entry frame is at the bottom.
                    assert!(!ctx.frames.is_empty(), "thread {} has no frames", t.id);
                    assert!(ctx.frames[0].ret.is_thread_exit());
                    for f in ctx.frames.iter() {
                        assert!((f.body as usize) < ctx.program.bodies.len());
                    }
                    visited.fetch_add(1, Ordering::SeqCst);
                });
                assert!(!stats.timed_out, "safepoint timed out: {stats:?}");
                if walkers == Walkers::ThemselvesAndGoOn {
                    // Nobody is held: the threads walked themselves.
                    assert!(stats.parked.is_empty(), "{stats:?}");
                }
                visited.fetch_add(stats.walked_themselves, Ordering::SeqCst);
                std::thread::sleep(Duration::from_micros(200));
            }
        })
    };
    let status = vm.run().status;
    done.store(true, Ordering::SeqCst);
    coordinator.join().expect("coordinator did not panic");
    let out = String::from_utf8(buf.lock().clone()).unwrap();
    (out, status, visited.load(Ordering::SeqCst))
}

fn stress(selection: Selection, walkers: Walkers) {
    let start = Instant::now();
    let mut visits = 0;
    for _ in 0..40 {
        let (out, status, v) = run_once(selection, walkers);
        assert_eq!(out, EXPECTED);
        assert_eq!(status, 0);
        visits += v;
    }
    assert!(visits > 0, "no thread was ever held or walked itself");
    assert!(start.elapsed() < Duration::from_secs(120));
}

#[test]
fn global_safepoints_never_deadlock() {
    stress(Selection::All, Walkers::Coordinator);
}

#[test]
fn partial_safepoints_never_deadlock() {
    stress(Selection::First(2), Walkers::Coordinator);
}

#[test]
fn self_walking_partial_safepoints_never_deadlock() {
    stress(Selection::First(1), Walkers::ThemselvesThenPark);
}

#[test]
fn self_walking_threads_that_go_on_never_deadlock() {
    stress(Selection::First(2), Walkers::ThemselvesAndGoOn);
}

/// A partial safepoint takes the first threads *runnable when it begins*
/// (Hofer et al. divide runnable and waiting threads up front): a thread
/// asleep then is not asked, so that waking it cannot make it one of the
/// first to arrive. A global safepoint asks every thread.
#[test]
fn a_partial_safepoint_does_not_ask_a_sleeping_thread() {
    let module = vm::verify::assemble(
        "sleeper.bc",
        ".method main()\n  push 400\n  sleep\n  push 0\n  ret\n.end\n",
    )
    .expect("valid program");
    let vm = Vm::new(Program::load(module, true), VmOptions::default());
    let runner = {
        let vm = vm.clone();
        std::thread::spawn(move || vm.run().status)
    };
    let start = Instant::now();
    let main = loop {
        if let Some(t) = vm.threads.all().into_iter().next() {
            if t.state() == vm::thread::ThreadState::Sleeping {
                break t;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(5), "main never slept");
        std::thread::sleep(Duration::from_millis(1));
    };
    let stats = vm.safepoint(Selection::First(1), Walkers::Coordinator, |_, _, _| {});
    assert!(stats.parked.is_empty(), "{stats:?}");
    assert_eq!(main.state(), vm::thread::ThreadState::Sleeping);
    assert_eq!(
        main.control_word(),
        0,
        "the sleeping thread was asked to stop"
    );
    vm.safepoint(Selection::All, Walkers::Coordinator, |_, _, _| {});
    assert_eq!(main.state(), vm::thread::ThreadState::Sleeping);
    assert_eq!(
        main.control_word(),
        1,
        "a global safepoint asks every thread"
    );
    assert_eq!(runner.join().unwrap(), 0);
}
