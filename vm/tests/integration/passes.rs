//! `ThreadCtx::pass_yieldpoints`: the prologue and epilogue yieldpoints a
//! listener lets go by are taken and charged by the VM without calling it
//! (counter-based sampling's countdown, `profiler::listeners::cbs`).
//!
//! A listener that keeps every prologue and epilogue yieldpoint taken and,
//! at each callback, asks the VM to pass the next `n` sees one in `n + 1`
//! of them; at its last callback the VM has charged every yieldpoint taken,
//! passed or not, as a taken yieldpoint; and a callback that comes before
//! the passes ran out (a backward jump's yieldpoint, taken too) sees what
//! is left of them.

use std::sync::{Arc, Mutex};

use vm::hooks::{Hooks, ThreadCtx, ThreadListener};
use vm::instr::YieldKind;
use vm::loader::Program;
use vm::output::Output;
use vm::profiler_cost::CostItem;
use vm::runtime::{Vm, VmOptions};
use vm::thread::ThreadShared;

/// What the listener saw.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
struct Seen {
    /// Prologue and epilogue callbacks.
    calls: u64,
    /// Backward-jump callbacks.
    backedges: u64,
    /// Taken yieldpoints charged by the listener's last callback (its own
    /// charge included).
    charged: u64,
    /// Backward-jump callbacks that found passes left.
    with_passes_left: u64,
}

struct PassEvery {
    n: u32,
    /// 1: every yieldpoint taken, backward jumps included; -1: prologues
    /// and epilogues only.
    control: i64,
    seen: Arc<Mutex<Seen>>,
}

struct Passer {
    n: u32,
    control: i64,
    seen: Arc<Mutex<Seen>>,
}

impl Hooks for PassEvery {
    fn thread_started(
        &self,
        thread: &Arc<ThreadShared>,
        _: &Program,
    ) -> Option<Box<dyn ThreadListener>> {
        thread.set_control_word(self.control);
        Some(Box::new(Passer {
            n: self.n,
            control: self.control,
            seen: self.seen.clone(),
        }))
    }
}

impl ThreadListener for Passer {
    fn yieldpoint(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind, _: u32) {
        t.charge(CostItem::YieldpointTaken, 1);
        // The word the thread goes back to after each yieldpoint.
        t.set_control(self.control);
        let mut seen = self.seen.lock().unwrap();
        seen.charged = t.work.count(CostItem::YieldpointTaken);
        if kind == YieldKind::Backedge {
            seen.backedges += 1;
            if t.yieldpoints_to_pass() > 0 {
                seen.with_passes_left += 1;
            }
            // Leave the count as it is: the passes go on after this.
            return;
        }
        seen.calls += 1;
        t.pass_yieldpoints(self.n);
    }
}

/// Forty calls of a leaf from a loop: 81 prologues and epilogues after
/// `main`'s own prologue (`main`'s epilogue ends the thread).
const PROGRAM: &str = r#"
.method main()
  .locals i
top:
  load i
  push 40
  jge done
  call leaf
  pop
  inc i 1
  jmp top
done:
  push 0
  ret
.end
.method leaf()
  push 1
  ret
.end
"#;

fn run(n: u32, control: i64) -> Seen {
    let module = vm::verify::assemble("p.bc", PROGRAM).expect("a valid program");
    let (output, _buf) = Output::capture();
    let seen = Arc::new(Mutex::new(Seen::default()));
    let vm = Vm::new(
        Program::load(module, true),
        VmOptions {
            output,
            hooks: Arc::new(PassEvery {
                n,
                control,
                seen: seen.clone(),
            }),
            ..VmOptions::default()
        },
    );
    assert_eq!(vm.run().status, 0);
    let seen = *seen.lock().unwrap();
    seen
}

#[test]
fn the_listener_sees_one_call_in_n_plus_one_and_every_one_is_charged() {
    let every = run(0, -1);
    assert!(every.calls >= 80, "{every:?}");
    assert_eq!(every.backedges, 0, "{every:?}");
    for n in [1, 2, 3, 7] {
        let some = run(n, -1);
        assert_eq!(
            some.calls,
            every.calls.div_ceil(u64::from(n) + 1),
            "n = {n}: {some:?} against {every:?}"
        );
        // The yieldpoints after the last callback are charged too, but
        // after it: at the last callback, all before it are.
        let last = (some.calls - 1) * (u64::from(n) + 1) + 1;
        assert_eq!(some.charged, last, "n = {n}: {some:?}");
    }
}

#[test]
fn a_backward_jump_does_not_count_and_finds_the_passes_left() {
    let every = run(0, 1);
    let some = run(3, 1);
    assert_eq!(some.backedges, every.backedges, "{some:?} {every:?}");
    assert!(some.backedges >= 40, "{some:?}");
    assert_eq!(some.calls, every.calls.div_ceil(4), "{some:?} {every:?}");
    assert!(some.with_passes_left > 0, "{some:?}");
}
