//! A VM thread that panics (a bug of the VM or of a profiler, here a
//! listener that panics on purpose) ends the run with the internal-error
//! status, on real threads and on a simulated machine of 1 and 2 cores
//! (`vm::schedule`): never a hang waiting for the thread or its baton.

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use vm::hooks::{Hooks, ThreadCtx, ThreadListener};
use vm::instr::YieldKind;
use vm::loader::Program;
use vm::output::Output;
use vm::runtime::{Vm, VmOptions, STATUS_INTERNAL_ERROR};
use vm::schedule::Machine;
use vm::thread::ThreadShared;

/// Thread 1 panics at its 50th yieldpoint.
struct PanicInThread1;

struct Countdown(u32);

impl Hooks for PanicInThread1 {
    fn thread_started(
        &self,
        thread: &Arc<ThreadShared>,
        _: &Program,
    ) -> Option<Box<dyn ThreadListener>> {
        if thread.id != 1 {
            return None;
        }
        thread.set_control_word(1);
        Some(Box::new(Countdown(50)))
    }
}

impl ThreadListener for Countdown {
    fn yieldpoint(&mut self, t: &mut ThreadCtx<'_>, _: YieldKind, _: u32) {
        t.set_control(1);
        self.0 -= 1;
        assert!(self.0 > 0, "a listener bug, on purpose");
    }
}

/// `main` spawns a looping thread, loops itself, then joins it.
const PROGRAM: &str = r#"
.method main()
  push 100000
  spawn spin
  push 200
  call spin
  pop
  join
  print
  push 0
  ret
.end
.method spin(n)
top:
  load n
  jz done
  load n
  push 1
  sub
  store n
  jmp top
done:
  push 7
  ret
.end
"#;

/// Runs [`PROGRAM`] on `machine` (None: real threads): its status, or
/// None if it did not end within a minute (a hang).
fn status(machine: Option<Machine>) -> Option<i32> {
    let module = vm::verify::assemble("p.bc", PROGRAM).expect("a valid program");
    let (output, _buf) = Output::capture();
    let vm = Vm::new(
        Program::load(module, true),
        VmOptions {
            output,
            hooks: Arc::new(PanicInThread1),
            count: machine.is_some(),
            machine,
            ..VmOptions::default()
        },
    );
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(vm.run().status);
    });
    rx.recv_timeout(Duration::from_secs(60)).ok()
}

#[test]
fn a_panicking_thread_ends_the_run_with_the_internal_error_status() {
    let machines = [
        None,
        Some(Machine {
            cores: 1,
            quantum: 10,
        }),
        Some(Machine {
            cores: 2,
            quantum: 1000,
        }),
    ];
    for m in machines {
        assert_eq!(status(m), Some(STATUS_INTERNAL_ERROR), "{m:?}");
    }
}
