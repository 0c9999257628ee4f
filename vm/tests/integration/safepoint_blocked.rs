//! Blocked threads in safepoints: a thread asleep or joining publishes its
//! frames, so a global safepoint (and a partial one that names it,
//! `Vm::safepoint_including`) holds and walks it; a partial safepoint that
//! does not name it leaves it alone.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use vm::loader::Program;
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};
use vm::safepoint::{Selection, Walkers};
use vm::thread::ThreadState;

const PROGRAM: &str = r#"
.method nap(ms)
  load ms
  sleep
  push 7
  ret
.end
.method main()
  push 150
  spawn nap
  join
  print
  push 0
  ret
.end
"#;

/// What one coordinator saw: (thread id, state, top method) per visit.
type Seen = Vec<(u32, ThreadState, String)>;

fn run(mut request: impl FnMut(&Vm, &mut Seen) + Send + 'static) -> (String, Seen) {
    let module = vm::verify::assemble("blocked.bc", PROGRAM).expect("valid program");
    let (output, buf) = Output::capture();
    let vm = Vm::new(
        Program::load(module, true),
        VmOptions {
            output,
            ..VmOptions::default()
        },
    );
    let done = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Seen::new()));
    let coordinator = {
        let (vm, done, seen) = (vm.clone(), done.clone(), seen.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                request(&vm, &mut seen.lock().unwrap());
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        })
    };
    assert_eq!(vm.run().status, 0);
    done.store(true, Ordering::SeqCst);
    coordinator.join().expect("coordinator");
    let out = String::from_utf8(buf.lock().clone()).unwrap();
    let seen = seen.lock().unwrap().clone();
    (out, seen)
}

fn visit_into<'a>(
    seen: &'a mut Seen,
) -> impl FnMut(
    &vm::thread::ThreadShared,
    &mut vm::hooks::ThreadCtx<'_>,
    Option<&mut dyn vm::hooks::ThreadListener>,
) + 'a {
    move |t, ctx, _| {
        let top = ctx.frames.last().expect("a held thread has frames");
        let name = ctx.program.bodies[top.body as usize].name.clone();
        seen.push((t.id, t.state(), name));
    }
}

#[test]
fn a_global_safepoint_walks_sleeping_and_joining_threads() {
    let (out, seen) = run(|vm, seen| {
        let stats = vm.safepoint(Selection::All, Walkers::Coordinator, visit_into(seen));
        assert!(!stats.timed_out);
    });
    assert_eq!(out, "7\n");
    assert!(
        seen.iter()
            .any(|(id, s, m)| *id == 1 && *s == ThreadState::Sleeping && m == "nap"),
        "the sleeping thread was never walked: {seen:?}"
    );
    assert!(
        seen.iter()
            .any(|(id, s, m)| *id == 0 && *s == ThreadState::Joining && m == "main"),
        "the joining thread was never walked: {seen:?}"
    );
}

#[test]
fn a_partial_safepoint_holds_only_the_blocked_threads_it_names() {
    // Name thread 1 (the sleeper) only: thread 0, joining, is never held.
    let (out, seen) = run(|vm, seen| {
        vm.safepoint_including(
            Selection::First(0),
            &[1],
            Walkers::Coordinator,
            visit_into(seen),
        );
    });
    assert_eq!(out, "7\n");
    assert!(seen.iter().all(|(id, _, _)| *id == 1), "{seen:?}");
    assert!(
        seen.iter()
            .any(|(_, s, m)| *s == ThreadState::Sleeping && m == "nap"),
        "the named sleeper was never walked: {seen:?}"
    );
    // Without names, a partial safepoint of no runnable thread holds none.
    let (out, seen) = run(|vm, seen| {
        vm.safepoint_including(
            Selection::First(0),
            &[],
            Walkers::Coordinator,
            visit_into(seen),
        );
    });
    assert_eq!(out, "7\n");
    assert!(seen.is_empty(), "{seen:?}");
}
