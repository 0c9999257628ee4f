//! Threads (`tests/programs/threads`): spawn/join results, strings crossing
//! threads, `join` rethrowing a thread's exception, a thread's uncaught
//! exception leaving the exit status alone, the program waiting for every
//! thread, `print` lines never interleaving, atomic `addglobal`, and a runtime
//! error or `halt` in any thread ending the whole program. Also `sleep`.

use std::time::Duration;

use crate::harness::{self, Mode};

#[test]
fn thread_programs() {
    harness::check_dir("threads", Mode::Run, &[]);
}

/// `sleep` makes the thread wait at least the given milliseconds.
#[test]
fn sleep_waits() {
    let dir = harness::scratch("sleep_waits");
    harness::write_program(
        &dir,
        "s.bc",
        ".method main()\n  push 400\n  sleep\n  push \"woke\"\n  print\n  push 0\n  ret\n.end\n",
    );
    let r = harness::run_vm_in(&dir, &["run", "s.bc"], harness::DEFAULT_TIMEOUT);
    r.assert_status(0);
    assert_eq!(r.stdout, "woke\n");
    assert!(
        r.elapsed >= Duration::from_millis(400),
        "finished after {:?}",
        r.elapsed
    );
}

/// Threads run at the same time: four threads sleeping 500 ms each take
/// well under the 2 s they would take one after another.
#[test]
fn threads_sleep_at_the_same_time() {
    let dir = harness::scratch("threads_sleep_at_the_same_time");
    harness::write_program(
        &dir,
        "p.bc",
        ".method nap(ms)\n  load ms\n  sleep\n  load ms\n  ret\n.end\n.method main()\n  .locals a b c d\n  push 500\n  spawn nap\n  store a\n  push 500\n  spawn nap\n  store b\n  push 500\n  spawn nap\n  store c\n  push 500\n  spawn nap\n  store d\n  load a\n  join\n  load b\n  join\n  load c\n  join\n  load d\n  join\n  add\n  add\n  add\n  print\n  push 0\n  ret\n.end\n",
    );
    let r = harness::run_vm_in(&dir, &["run", "p.bc"], harness::DEFAULT_TIMEOUT);
    r.assert_status(0);
    assert_eq!(r.stdout, "2000\n");
    assert!(
        r.elapsed >= Duration::from_millis(500) && r.elapsed < Duration::from_millis(1800),
        "finished after {:?}",
        r.elapsed
    );
}

/// Yieldpoints are invisible to program semantics, also with threads.
#[test]
fn thread_programs_without_yieldpoints() {
    harness::check_dir("threads", Mode::Run, &["--no-yieldpoints"]);
}
