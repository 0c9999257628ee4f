//! Extension points: how a profiler attaches to the VM without the VM
//! knowing anything about it.
//!
//! A [`Hooks`] object is given to the VM at start. For each managed thread it
//! creates a [`ThreadListener`] that lives on that thread (Jikes RVM's
//! *listener*: it takes samples and does as little as possible). The VM calls
//! the listener:
//!
//! - when a yieldpoint is taken ([`ThreadListener::yieldpoint`]), i.e. when
//!   the thread's control word asked for it;
//! - in exhaustive mode, on every call and return;
//! - when `ret` or exception unwinding meets a trampoline return word;
//! - when the thread ends.
//!
//! The listener sees the thread's frames through a [`ThreadCtx`] and may
//! change exactly two things in them: return-address words (marks and
//! trampolines) and profiler slots. Both are invisible to the program.

use std::sync::Arc;

use crate::error::RuntimeError;
use crate::frame::{Frame, ReturnWord};
use crate::heap::Heap;
use crate::instr::YieldKind;
use crate::loader::Program;
use crate::memory::{Charge, MemoryBudget};
use crate::profiler_cost::{CostItem, Work};
use crate::thread::ThreadShared;
use crate::value::Value;

/// Which instrumented variant of the interpreter a run needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExecMode {
    /// Count executed source instructions and cost-model cycles (needed by
    /// the virtual clock and by exhaustive profiles). Off, the interpreter
    /// pays nothing for counting.
    pub count: bool,
    /// Call [`ThreadListener::called`] / [`ThreadListener::returning`] on
    /// every call and return (exhaustive profiling).
    pub trace_calls: bool,
    /// Virtual clock: raise [`crate::thread::request::TICK`] every this many
    /// cycles of a thread's virtual time (requires `count`).
    pub virtual_tick: Option<u64>,
    /// Seeds the phase of each thread's first virtual tick: it falls at a
    /// cycle count drawn uniformly from one to `virtual_tick`, as a real
    /// timer's first tick lands anywhere within its period, so that runs
    /// with different seeds sample different points of a program's loops
    /// (and runs with one seed the same ones).
    pub tick_seed: u64,
}

/// What a profiler gives the VM.
pub trait Hooks: Send + Sync {
    /// The interpreter variant to run.
    fn exec_mode(&self) -> ExecMode {
        ExecMode::default()
    }

    /// A managed thread is starting (called on that thread). Returns the
    /// listener that will live on it, if any.
    fn thread_started(
        &self,
        thread: &Arc<ThreadShared>,
        program: &Program,
    ) -> Option<Box<dyn ThreadListener>>;

    /// The program is about to end with `status`; every listener has been
    /// dropped or its thread is stuck (runtime error elsewhere).
    fn program_ending(&self, _status: i32) {}
}

/// A profiler's agent on one thread.
pub trait ThreadListener: Send {
    /// A yieldpoint of `kind` was taken. `requests` are the request bits
    /// that were pending (the VM's own bits already handled and cleared).
    fn yieldpoint(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind, requests: u32);

    /// Exhaustive mode: a call just pushed the top frame.
    fn called(&mut self, _t: &mut ThreadCtx<'_>) {}

    /// Exhaustive mode: the top frame is about to be popped, by `ret` or
    /// by an exception unwinding it.
    fn returning(&mut self, _t: &mut ThreadCtx<'_>) {}

    /// A frame whose return word is the trampoline `word` was just popped
    /// (by `ret`, or by unwinding if `unwinding`). The top frame of `t` is
    /// its caller; `t.pc` is not meaningful here (the caller's position is
    /// the real word, which only the listener knows). Returns the real
    /// return word to continue at: the VM checks that it is a pc in the
    /// caller's code and panics otherwise (a profiler bug). The listener
    /// may patch the caller's own return word before returning (Hofer et
    /// al. 2015, section 5.2: capture the caller, patch its caller); when
    /// unwinding, the VM pops that frame through its trampoline too if it
    /// has no handler (section 6, "Exceptions").
    fn trampoline(
        &mut self,
        _t: &mut ThreadCtx<'_>,
        word: ReturnWord,
        _unwinding: bool,
    ) -> ReturnWord {
        unreachable!("listener installed a trampoline {word:?} but does not handle it")
    }

    /// The real return word behind trampoline `word`, without consuming it
    /// (used to print stack traces).
    fn resolve(&self, word: ReturnWord) -> ReturnWord {
        word
    }

    /// A self-walking safepoint selected this thread: walk your own stack
    /// now (called on this thread, just before it parks).
    fn safepoint(&mut self, _t: &mut ThreadCtx<'_>) {}

    /// The thread is ending; `t.frames` holds whatever frames remain (none
    /// after a normal return, all of them after a runtime error).
    fn thread_ending(&mut self, _t: &mut ThreadCtx<'_>) {}
}

/// A listener's view of its thread at a callback.
pub struct ThreadCtx<'a> {
    /// The running program.
    pub program: &'a Program,
    /// The thread's shared state (id, control word).
    pub thread: &'a ThreadShared,
    /// The frames, bottom (entry) first, top last.
    pub frames: &'a mut [Frame],
    /// The loaded pc of the top frame's current instruction.
    pub pc: u32,
    /// Source instructions executed so far (counting mode only, else 0).
    pub instructions: u64,
    /// Cost-model cycles so far (counting mode only, else 0).
    pub cycles: u64,
    /// The profiler's work on this thread so far
    /// ([`crate::profiler_cost`]): what a listener does is charged here
    /// ([`ThreadCtx::charge`]), and on the virtual clock it advances the
    /// thread's time.
    pub work: &'a mut Work,
    /// The control word this thread returns to after the callback.
    pub(crate) control_base: &'a mut i64,
    /// The virtual clock's tick period of this thread, in cycles, when the
    /// run has a virtual clock and the callback may change it.
    pub(crate) virtual_tick: Option<&'a mut u64>,
    /// The prologue and epilogue yieldpoints the thread is to take
    /// without calling its listener ([`ThreadCtx::pass_yieldpoints`]),
    /// when the callback is at one of the thread's own yieldpoints.
    pub(crate) passes: Option<&'a mut u32>,
    /// The memory budget and what a callback on the thread itself may do
    /// with it (`None` when a safepoint's coordinator visits the thread).
    pub(crate) memory: Option<ListenerMemory<'a>>,
}

/// What [`ThreadCtx::take_memory`] needs of the thread: the run's memory
/// budget (`--max-heap`), the heap and value stack (a collection gives
/// back budget that garbage held), and where the runtime error goes that
/// the VM stops the program with once the callback returns.
pub(crate) struct ListenerMemory<'a> {
    pub(crate) budget: &'a Arc<MemoryBudget>,
    pub(crate) heap: &'a mut Heap,
    pub(crate) stack: &'a [Value],
    pub(crate) error: &'a mut Option<RuntimeError>,
}

impl ThreadCtx<'_> {
    /// Sets the control word the thread keeps between requests: `0` takes
    /// no yieldpoint, `-1` takes prologue and epilogue yieldpoints, `1`
    /// takes every yieldpoint (Arnold & Grove's overloaded flag).
    pub fn set_control(&mut self, value: i64) {
        *self.control_base = value;
    }

    /// The control word the thread keeps between requests.
    pub fn control(&self) -> i64 {
        *self.control_base
    }

    /// Lets the next `n` prologue and epilogue yieldpoints that the thread
    /// takes with no profiler request pending go by without calling the
    /// listener, each charged as the listener would charge it
    /// ([`CostItem::YieldpointTaken`]); replaces what an earlier call left.
    /// Counter-based sampling's countdown between samples (Arnold &
    /// Grove's `skippedInvocations`), done in the yieldpoint's slow path as
    /// Jikes RVM's handler does it, before any listener code runs: a
    /// yieldpoint that only counts down costs the VM's slow path and
    /// nothing more. Backward-jump yieldpoints do not count and still call
    /// the listener. Does nothing where a safepoint's coordinator visits a
    /// parked thread (no yieldpoint of this callback's to go on from).
    pub fn pass_yieldpoints(&mut self, n: u32) {
        if let Some(p) = self.passes.as_deref_mut() {
            *p = n;
        }
    }

    /// How many of the yieldpoints of [`ThreadCtx::pass_yieldpoints`] are
    /// still to go by: a listener called before they all did (a request
    /// came, or a backward jump's yieldpoint was taken) counts on from
    /// here.
    pub fn yieldpoints_to_pass(&self) -> u32 {
        self.passes.as_deref().copied().unwrap_or(0)
    }

    /// The virtual clock's tick period of this thread, in cycles (`None`
    /// without a virtual clock).
    pub fn virtual_tick(&self) -> Option<u64> {
        self.virtual_tick.as_deref().copied()
    }

    /// Changes the virtual clock's tick period of this thread to `cycles`
    /// (at least 1): the next tick comes `cycles` after now. Does nothing
    /// without a virtual clock, or where the period cannot change (a
    /// safepoint's visit). Returns whether it changed.
    pub fn set_virtual_tick(&mut self, cycles: u64) -> bool {
        match self.virtual_tick.as_deref_mut() {
            Some(t) if *t != 0 => {
                *t = cycles.max(1);
                true
            }
            _ => false,
        }
    }

    /// Charges `n` occurrences of the profiler work `item` to this thread
    /// (see [`crate::profiler_cost`]).
    #[inline]
    pub fn charge(&mut self, item: CostItem, n: u64) {
        self.work.charge(item, n);
    }

    /// The method index of frame `i`.
    pub fn method_of(&self, i: usize) -> u32 {
        self.program.body(self.frames[i].body).method
    }

    /// A new, empty charge on the run's memory budget (`--max-heap`), for
    /// a record of the profile that grows with the run (on an unlimited
    /// budget when a safepoint's coordinator visits the thread).
    pub fn new_charge(&self) -> Charge {
        match &self.memory {
            Some(m) => Charge::new(m.budget.clone()),
            None => Charge::new(Arc::new(MemoryBudget::unlimited())),
        }
    }

    /// Takes `bytes` more of the budget for `charge`: true if they fit,
    /// after a collection of this thread's heap if need be (its garbage
    /// holds budget too). Else false: the listener must not grow the
    /// record, and (in a callback on the thread itself) the VM stops the
    /// program when the callback returns, with the runtime error `out of
    /// memory: heap limit ... reached (--max-heap), N of it held by the
    /// profile's calling context tree`, its trace and the profile written.
    pub fn take_memory(&mut self, charge: &mut Charge, bytes: usize) -> bool {
        let Some(m) = &mut self.memory else {
            return charge.try_grow(bytes);
        };
        if let Some(refused) = crate::memory::system_refusal() {
            self.system_refused(refused);
            return false;
        }
        if charge.try_grow(bytes) {
            return true;
        }
        if let Some(top) = self.frames.last() {
            let end = top.base as usize + self.program.body(top.body).frame_size as usize;
            m.heap.collect([&m.stack[..end.min(m.stack.len())]]);
        }
        if charge.try_grow(bytes) {
            return true;
        }
        m.error.get_or_insert(RuntimeError::ProfileOutOfMemory {
            limit: charge.limit(),
            profile: charge.bytes(),
        });
        false
    }

    /// The system refused `bytes` that a record of the profile asked for
    /// (inside [`crate::memory::fallibly`]): in a callback on the thread
    /// itself, the VM stops the program when the callback returns, with
    /// the runtime error `out of memory: the system refused ...`.
    pub fn system_refused(&mut self, bytes: usize) {
        if let Some(m) = &mut self.memory {
            m.error.get_or_insert(RuntimeError::SystemOutOfMemory {
                bytes,
                limit: m.budget.limit(),
            });
        }
    }
}

/// Hooks that attach nothing: a plain run.
pub struct NoHooks;

impl Hooks for NoHooks {
    fn thread_started(
        &self,
        _: &Arc<ThreadShared>,
        _: &Program,
    ) -> Option<Box<dyn ThreadListener>> {
        None
    }
}
