//! Return-address trampolines as a VM mechanism (Hofer et al. 2015,
//! sections 5.2 and 6), tested with a listener far greedier than any
//! profiler: at every prologue and epilogue yieldpoint it patches the
//! return word of *every* frame above the entry frame. So every `ret`,
//! every frame an exception unwinds (several patched frames in one throw),
//! and every frame left on the stack by `halt`, a runtime error, a stack
//! overflow or the end of a thread goes through the trampoline machinery.
//!
//! Each program must print the same and end with the same status as
//! without the listener; every patched word must come back exactly once,
//! through `ret` (`unwinding == false`), through unwinding (`true`), or
//! still on the stack when the thread ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use vm::frame::ReturnWord;
use vm::hooks::{Hooks, ThreadCtx, ThreadListener};
use vm::instr::YieldKind;
use vm::loader::Program;
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};
use vm::thread::ThreadShared;

#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
struct Counts {
    patched: u64,
    returned: u64,
    unwound: u64,
    left_at_end: u64,
    /// A trampoline whose top frame was not the expected caller.
    misplaced: u64,
}

struct PatchAll {
    counts: Arc<Mutex<Counts>>,
}

/// Saved words by payload, with the depth of the frame patched.
struct Patcher {
    counts: Arc<Mutex<Counts>>,
    saved: HashMap<u64, (ReturnWord, usize)>,
    next: u64,
}

impl Hooks for PatchAll {
    fn thread_started(
        &self,
        thread: &Arc<ThreadShared>,
        _: &Program,
    ) -> Option<Box<dyn ThreadListener>> {
        thread.set_control_word(-1);
        Some(Box::new(Patcher {
            counts: self.counts.clone(),
            saved: HashMap::new(),
            next: 1,
        }))
    }
}

impl ThreadListener for Patcher {
    fn yieldpoint(&mut self, t: &mut ThreadCtx<'_>, _: YieldKind, _: u32) {
        t.set_control(-1);
        for (i, f) in t.frames.iter_mut().enumerate().skip(1) {
            if !f.ret.is_trampoline() {
                self.saved.insert(self.next, (f.ret, i));
                f.ret = ReturnWord::trampoline(self.next);
                self.next += 1;
                self.counts.lock().unwrap().patched += 1;
            }
        }
    }

    fn trampoline(
        &mut self,
        t: &mut ThreadCtx<'_>,
        word: ReturnWord,
        unwinding: bool,
    ) -> ReturnWord {
        let (real, depth) = self
            .saved
            .remove(&word.payload())
            .expect("a trampoline this listener installed, returned once");
        let mut c = self.counts.lock().unwrap();
        if t.frames.len() != depth {
            c.misplaced += 1;
        }
        if unwinding {
            c.unwound += 1;
        } else {
            c.returned += 1;
        }
        real
    }

    fn resolve(&self, word: ReturnWord) -> ReturnWord {
        self.saved.get(&word.payload()).map_or(word, |s| s.0)
    }

    fn thread_ending(&mut self, t: &mut ThreadCtx<'_>) {
        let mut c = self.counts.lock().unwrap();
        for f in t.frames.iter_mut() {
            if f.ret.is_trampoline() {
                f.ret = self.saved.remove(&f.ret.payload()).expect("saved").0;
                c.left_at_end += 1;
            }
        }
        assert!(self.saved.is_empty(), "a patched word was lost");
    }
}

/// Runs `src` with `hooks`: (stdout, status).
fn run(src: &str, hooks: Arc<dyn Hooks>, max_frames: usize) -> (String, i32) {
    let module = vm::verify::assemble("t.bc", src).expect("a valid program");
    let (output, buf) = Output::capture();
    let vm = Vm::new(
        Program::load(module, true),
        VmOptions {
            output,
            hooks,
            max_frames,
            ..VmOptions::default()
        },
    );
    let status = vm.run().status;
    let out = String::from_utf8(buf.lock().clone()).expect("utf-8 output");
    (out, status)
}

/// Runs `src` plainly and under the patching listener; checks that they
/// agree and that every patch came back once. Returns the counts.
fn check(src: &str, max_frames: usize) -> (Counts, i32) {
    let plain = run(src, Arc::new(vm::hooks::NoHooks), max_frames);
    let counts = Arc::new(Mutex::new(Counts::default()));
    let patched = run(
        src,
        Arc::new(PatchAll {
            counts: counts.clone(),
        }),
        max_frames,
    );
    assert_eq!(patched, plain, "the trampolines were visible");
    let c = *counts.lock().unwrap();
    assert!(c.patched > 0, "nothing was patched: {c:?}");
    assert_eq!(c.misplaced, 0, "{c:?}");
    assert_eq!(
        c.returned + c.unwound + c.left_at_end,
        c.patched,
        "every patched word comes back once: {c:?}"
    );
    (c, plain.1)
}

/// `depth` recursive frames, then `body` in the deepest one.
fn recursion(body: &str, catch_in_main: bool) -> String {
    let catch = if catch_in_main { ".catch s e h" } else { "" };
    format!(
        r#"
.method main()
  {catch}
s:
  push 6
  call f
  print
  push 1
  call f
  print
e:
  push 0
  ret
h:
  print
  push 0
  ret
.end
.method f(n)
  load n
  jz bottom
  load n
  push 1
  sub
  call f
  push 1
  add
  ret
bottom:
{body}
.end
"#
    )
}

#[test]
fn returns_go_through_every_patched_frame() {
    let (c, status) = check(&recursion("  push 100\n  ret", false), 1000);
    assert_eq!(status, 0);
    assert_eq!(c.left_at_end, 0);
    assert_eq!(c.unwound, 0);
    assert!(c.returned >= 7, "{c:?}");
}

#[test]
fn an_exception_unwinds_several_patched_frames() {
    // Thrown seven frames up, caught in main: each frame popped by the
    // unwinding is a patched one.
    let (c, status) = check(&recursion("  push \"up\"\n  throw", true), 1000);
    assert_eq!(status, 0);
    assert!(c.unwound >= 6, "{c:?}");
    assert_eq!(c.left_at_end, 0);
}

#[test]
fn an_uncaught_exception_unwinds_them_all() {
    let (c, status) = check(&recursion("  push \"out\"\n  throw", false), 1000);
    assert_eq!(status, 70);
    assert!(c.unwound >= 6, "{c:?}");
    assert_eq!(c.left_at_end, 0);
}

#[test]
fn halt_leaves_patched_frames_to_the_thread_end() {
    let (c, status) = check(&recursion("  push 3\n  halt", false), 1000);
    assert_eq!(status, 3);
    assert!(c.left_at_end >= 6, "{c:?}");
}

#[test]
fn a_runtime_error_leaves_patched_frames_to_the_thread_end() {
    let (c, status) = check(&recursion("  push 1\n  push 0\n  div\n  ret", false), 1000);
    assert_eq!(status, 70);
    assert!(c.left_at_end >= 6, "{c:?}");
}

#[test]
fn a_stack_overflow_with_patched_frames() {
    let src = r#"
.method main()
  push 0
  call f
  ret
.end
.method f(n)
  load n
  push 1
  add
  call f
  ret
.end
"#;
    let (c, status) = check(src, 200);
    assert_eq!(status, 70);
    assert!(c.left_at_end >= 190, "{c:?}");
}

#[test]
fn threads_and_a_rethrowing_join() {
    let src = r#"
.method main()
  .locals t
  .catch s e h
  push 4
  spawn f
  join
  print
s:
  push 0
  spawn g
  join
  pop
e:
  push 0
  ret
h:
  print
  push 0
  ret
.end
.method f(n)
  load n
  jz bottom
  load n
  push 1
  sub
  call f
  push 2
  mul
  ret
bottom:
  push 1
  ret
.end
.method g(n)
  load n
  call h
  ret
.end
.method h(n)
  push "from a thread"
  throw
.end
"#;
    let (c, status) = check(src, 1000);
    assert_eq!(status, 0);
    assert!(c.unwound >= 1 && c.returned >= 4, "{c:?}");
}
