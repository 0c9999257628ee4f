//! The interpreter: one per managed thread.
//!
//! A `loop { match }` over [`Instr`] with the hot state (pc, the current
//! code slice, the frame's base) in locals. Frames live in `frames`, locals
//! and operands of all frames in one contiguous `stack` (a frame's locals
//! start at its `base`): the VM's frames never live on the Rust stack, so a
//! deep recursion is a `--max-frames` runtime error, not a crash.
//!
//! The loop is generic over a [`Mode`] so that a plain run pays nothing for
//! instrumentation: counting of instructions and cycles (virtual clock,
//! exhaustive profiles) and call tracing (exhaustive profiles) are compiled
//! in only where asked for.
//!
//! No yieldpoint has a test of its own on a fast path; each rides on a
//! test its instruction makes anyway, against a per-thread word that a
//! request changes (see [`crate::thread`]), and everything else
//! ([`Interp::yieldpoint_taken`]) is out of line:
//!
//! - a call's prologue yieldpoint on its depth check, against the frame
//!   limit, which a request lowers to 0 (V8's stack guard); the call does
//!   the prologue inline and enters past it, instead of dispatching to it;
//! - a return's epilogue yieldpoint on its test for a frame and a caller:
//!   a plain `ret` goes on at once if `depth > 1`, a `RetY` if `depth >
//!   return_floor`, the floor 1 but `usize::MAX` once a request asks for
//!   epilogues; one compare either way, plus the floor's load;
//! - a fused loop test's backedge yieldpoint (the plain interpreter's
//!   `Loop…Y` and `CountLoop…Y`, [`crate::superinstr`]) on the type test
//!   of its operands: `tags == loop_trip` ([`crate::trip`]), the loop
//!   trip set by a request to a word no tags equal, so an iteration pays
//!   the trip's compare from memory and no branch. A
//!   backward jump that is not a fused loop test (and every backedge of
//!   the counting interpreters) loads the control word and branches.
//!
//! Backedge and epilogue yieldpoints are fused into their jump or `ret`
//! (see [`crate::instr`]), so no yieldpoint costs a dispatch.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::bodycount::BodyCounters;
use crate::call_cache::CallCache;
use crate::context::VmContext;
use crate::elements::OutOfBounds;
use crate::error::{RuntimeError, Trace, TraceEntry};
use crate::frame::{Frame, ReturnWord};
use crate::heap::{array_bytes, object_bytes, AllocPressure, Heap, MAX_ARRAY};
use crate::hooks::{ListenerMemory, ThreadCtx, ThreadListener};
use crate::instr::{ArgMoves, Instr, YieldKind};
use crate::loader::{Body, Program, NO_METHOD};
use crate::profiler_cost::{CostItem, Work};
use crate::safepoint::{Arrival, ParkedView, Parking};
use crate::thread::{request, SharedValue, ThreadResult, ThreadShared, ThreadState};
use crate::value::{copy_words, write_int, write_words, Value, SLOT_BYTES};

/// Value slots a thread's stack starts with (charged to `--max-heap`).
const FIRST_SLOTS: usize = 256;
/// Frames a thread's frame list starts with (charged likewise).
const FIRST_FRAMES: usize = 64;

/// Compile-time choice of instrumentation.
pub(crate) trait Mode {
    /// Count source instructions and cost-model cycles.
    const COUNT: bool;
    /// Report every call and return to the listener.
    const TRACE_CALLS: bool;
}

/// No instrumentation.
pub(crate) struct Plain;
impl Mode for Plain {
    const COUNT: bool = false;
    const TRACE_CALLS: bool = false;
}

/// Counting (virtual clock).
pub(crate) struct Counting;
impl Mode for Counting {
    const COUNT: bool = true;
    const TRACE_CALLS: bool = false;
}

/// Counting and call tracing (exhaustive profiles).
pub(crate) struct Exhaustive;
impl Mode for Exhaustive {
    const COUNT: bool = true;
    const TRACE_CALLS: bool = true;
}

/// How a thread's interpreter stopped.
#[derive(Debug)]
pub(crate) enum Exit {
    /// The entry method returned.
    Returned(Value),
    /// An exception escaped the entry method; the trace is innermost first.
    Threw(Value, Trace),
    /// A runtime error.
    Error(RuntimeError, Trace),
    /// `halt` with this exit status.
    Halt(i32),
    /// The program is stopping.
    Stopped,
}

/// One thread's interpreter state.
pub(crate) struct Interp<'vm> {
    /// What this interpreter uses of its VM.
    vm: &'vm VmContext<'vm>,
    prog: &'vm Program,
    shared: &'vm ThreadShared,
    /// This thread's part of the safepoint protocol.
    parking: Arc<Parking>,
    /// The value stack: the slots (locals, then operand depths) of every
    /// frame. All of it is initialized; each frame is guaranteed
    /// `frame_size` slots from its base when it is pushed.
    stack: Vec<Value>,
    frames: Vec<Frame>,
    heap: Heap,
    /// Per method, the code new invocations run: the loaded body, or the
    /// recompiled one once installed (refreshed at a yieldpoint on a
    /// `CODE` request; see [`crate::install`]).
    code: Vec<&'vm Body>,
    /// Per body id, its code: what a return reads to find its caller's
    /// code without the bounds test and the branch to installed code of
    /// [`Program::body`]. An installed body's slot is filled when the
    /// thread refreshes `code` to call it (until then no frame can name
    /// it, and the slot holds the loaded body of the same method).
    by_id: Vec<&'vm Body>,
    /// Per body id, the start of the code the plain interpreter runs
    /// (`by_id[i].run_exec`): a return finds its caller's code in one load
    /// from here, not two through the body.
    exec_by_id: Vec<*const Instr>,
    /// This thread's inline caches of virtual calls, by call site.
    call_cache: CallCache,
    listener: Option<Box<dyn ThreadListener>>,
    /// The control word the thread returns to after serving requests.
    control_base: i64,
    /// Prologue and epilogue yieldpoints still to take without calling
    /// the listener ([`ThreadCtx::pass_yieldpoints`]).
    passes: u32,
    /// pc of the top frame, synced whenever the loop calls out.
    pc: u32,
    instructions: u64,
    cycles: u64,
    next_tick: u64,
    tick: u64,
    /// On a simulated machine, the cycle count at which this thread's
    /// quantum ends (else `u64::MAX`; see [`crate::schedule`]).
    slice_end: u64,
    /// `min(next_tick, slice_end)` less `charged`: the cycle count at
    /// which a counting yieldpoint stops for the next event.
    next_event: u64,
    /// The profiler's work on this thread ([`crate::profiler_cost`]).
    work: Work,
    /// Cycles of that work that advanced this thread's virtual time: the
    /// thread's time is `cycles + charged` ([`Interp::now`]), and
    /// `next_tick` and `slice_end` are times, not cycle counts.
    charged: u64,
    /// Bytes of the memory budget the value stack and frames hold.
    stack_charged: usize,
    /// A runtime error the listener asked for (a profile's record that
    /// could not grow: [`ThreadCtx::take_memory`]), taken after the
    /// callback.
    listener_error: Option<RuntimeError>,
    /// Cycles per body (counting modes only; see [`crate::bodycount`]).
    bodies: BodyCounters,
}

impl<'vm> Interp<'vm> {
    pub(crate) fn new(
        vm: &'vm VmContext<'vm>,
        shared: &'vm ThreadShared,
        listener: Option<Box<dyn ThreadListener>>,
    ) -> Self {
        let tick = vm.virtual_tick.unwrap_or(0);
        let first_tick = crate::simsample::first_tick(tick, vm.tick_seed, shared.id);
        let mut interp = Interp {
            vm,
            prog: vm.program,
            shared,
            parking: vm.safepoints.parking(shared.id),
            // Both grow (charged to the budget) from the entry frame on.
            stack: Vec::new(),
            frames: Vec::new(),
            heap: Heap::with_budget(vm.memory.clone()),
            code: Vec::new(),
            by_id: Vec::new(),
            exec_by_id: Vec::new(),
            call_cache: CallCache::new(),
            listener,
            control_base: 0,
            passes: 0,
            pc: 0,
            instructions: 0,
            cycles: 0,
            next_tick: first_tick,
            tick,
            slice_end: u64::MAX,
            next_event: first_tick,
            work: Work::default(),
            charged: 0,
            stack_charged: 0,
            listener_error: None,
            bodies: BodyCounters::default(),
        };
        interp.refresh_code();
        interp
    }

    /// Reads the code new calls run and returns find (`code`, then
    /// `by_id` from it) from the program's slots: at the start, and at a
    /// yieldpoint after a code swap ([`crate::install`]).
    fn refresh_code(&mut self) {
        self.code = current_code(self.prog);
        self.by_id = bodies_by_id(self.prog, &self.code);
        self.exec_by_id = self.by_id.iter().map(|b| b.run_exec.as_ptr()).collect();
    }

    /// On a simulated machine: the thread's quantum ends at cycle count
    /// `end`.
    pub(crate) fn set_slice_end(&mut self, end: u64) {
        self.slice_end = end;
        self.rearm_events();
    }

    /// The thread's virtual time: the cycles it executed and the cycles
    /// of profiler work it did (counting modes; else 0).
    pub(crate) fn now(&self) -> u64 {
        self.cycles + self.charged
    }

    /// Sets `next_event`, the cycle count at which a counting yieldpoint
    /// stops, from the next tick and the slice's end (times).
    fn rearm_events(&mut self) {
        self.next_event = self
            .next_tick
            .min(self.slice_end)
            .saturating_sub(self.charged);
    }

    /// Pushes the entry frame of `method` with `args`.
    pub(crate) fn enter(&mut self, method: u32, args: &[Value]) {
        let body = self.code[method as usize];
        let slots = (body.frame_size as usize).max(FIRST_SLOTS);
        if self.ensure_stack(slots).is_err() || self.grow_frames(FIRST_FRAMES).is_err() {
            // The entry frame goes in whatever the budget says: the
            // thread's first allocation or call meets the limit instead.
            let n = (body.frame_size as usize).max(self.stack.len());
            self.stack.resize(n, Value::Int(0));
        }
        self.stack[..args.len()].copy_from_slice(args);
        self.stack[args.len()..body.nlocals as usize].fill(Value::Int(0));
        self.frames.push(Frame {
            ret: ReturnWord::thread_exit(),
            slot: 0,
            body: body.id,
            base: 0,
        });
        self.pc = 0;
    }

    /// Grows the value stack to at least `need` slots, charging the growth
    /// to the memory budget: the error if the budget (`--max-heap`) or the
    /// system refuses.
    #[cold]
    fn ensure_stack(&mut self, need: usize) -> Result<(), RuntimeError> {
        if self.stack.len() < need {
            let size = need.max(self.stack.len() * 2);
            let extra = size - self.stack.len();
            self.charge_stack(extra.saturating_mul(std::mem::size_of::<Value>()))?;
            if crate::memory::fallibly(|| self.stack.try_reserve_exact(extra)).is_err() {
                return Err(self.system_refused(extra * std::mem::size_of::<Value>()));
            }
            self.stack.resize(size, Value::Int(0));
        }
        Ok(())
    }

    /// Makes room for `more` frames in the frame list beyond those it
    /// holds, charged to the memory budget: the error if the budget or the
    /// system refuses. (Frames need not take value slots: a method without
    /// arguments or locals called at an empty operand stack has its frame
    /// start where its caller's does, so the frame list grows on its own.)
    #[cold]
    #[inline(never)]
    fn grow_frames(&mut self, more: usize) -> Result<(), RuntimeError> {
        let bytes = more.saturating_mul(std::mem::size_of::<Frame>());
        self.charge_stack(bytes)?;
        if crate::memory::fallibly(|| self.frames.try_reserve_exact(more)).is_err() {
            return Err(self.system_refused(bytes));
        }
        Ok(())
    }

    /// Takes `bytes` of the memory budget for the value stack or the frame
    /// list: the error if the budget or the system (earlier, anywhere in
    /// the process) refuses.
    fn charge_stack(&mut self, bytes: usize) -> Result<(), RuntimeError> {
        if let Some(refused) = crate::memory::system_refusal() {
            return Err(self.system_refused(refused));
        }
        if !self.vm.memory.try_take(bytes) {
            return Err(RuntimeError::OutOfMemory {
                limit: self.vm.memory.limit(),
            });
        }
        self.stack_charged += bytes;
        Ok(())
    }

    /// The runtime error for the system refusing `bytes`.
    #[cold]
    fn system_refused(&self, bytes: usize) -> RuntimeError {
        RuntimeError::SystemOutOfMemory {
            bytes,
            limit: self.vm.memory.limit(),
        }
    }

    /// Runs until the thread's entry method returns or something stops it.
    pub(crate) fn run<M: Mode>(&mut self) -> Exit {
        if M::TRACE_CALLS {
            self.notify(|l, t| l.called(t));
            if let Some(e) = self.listener_error.take() {
                return self.runtime_error(e);
            }
        }
        if M::COUNT {
            self.bodies.start(2 * self.prog.bodies.len());
        }
        let prog = self.prog;
        let control = &self.shared.control;
        let frame_limit = &self.shared.frame_limit;
        let shared: &'vm ThreadShared = self.shared;
        let max_frames = self.vm.max_frames;
        // Where a call enters its callee, in bytes from the code's start
        // (added to it as is): past the prologue yieldpoint, which every
        // body of a program loaded with yieldpoints has at pc 0
        // (`crate::translate`) and which the call does inline. One value
        // for both uses (`entry_bytes != 0`: loaded with yieldpoints), as
        // one more live across the loop made the counting interpreter
        // spill five registers at every dispatch.
        let entry_bytes = usize::from(prog.yieldpoints) * std::mem::size_of::<Instr>();
        let top = *self.frames.last().expect("entry frame");
        let mut body: &'vm Body = prog.body(top.body);

        // The hot state lives in raw pointers: `ip` points at the
        // instruction of `body` being executed (the loop steps it to the
        // next pc after an arm that falls through), `fp` at the current
        // frame's first slot. (With `ip` one past the instruction, LLVM
        // kept both pointers live in every arm and copied one into the
        // other at every dispatch: 2-3 more machine instructions each,
        // 8% of fib's; docs/PERFORMANCE.md.)
        //
        // SAFETY (the invariants every `unsafe` below relies on):
        // 1. `ip` stays inside `body.code`: the code ran the verifier, so
        //    every jump target is an instruction of the method and no path
        //    runs off its end; the translator maps jump targets, catch
        //    handlers and return pcs to instructions of the same body. A
        //    superinstruction that reads and may step past the instruction
        //    after it (a field pair, a constant store) or over its moves to
        //    the call (argument passing) is made only where that
        //    instruction or call follows it, and a path goes on after it
        //    (`crate::superinstr`).
        // 2. The value stack holds at least `base + frame_size` slots for
        //    the current frame (`ensure_stack` at every frame push), and
        //    every slot operand an instruction names is below `frame_size`
        //    (locals below `nlocals`, temporaries below `nlocals +
        //    max_stack`, as the verifier bounds stack heights). The code
        //    run names a slot by its byte offset, `SLOT_BYTES` times its
        //    index (`Body::run_code`), an argument move by its index.
        // 3. `self.stack` is reallocated only by `ensure_stack`; after it,
        //    and after any out-of-line call, `fp` is re-derived (`resync!`).
        // 4. A reference the program reads (from a slot, or a field or
        //    element of an object or array it reached) names a live cell of
        //    this thread's heap of its kind, an object's with its class
        //    (`Value::Obj`, `Heap::fields_unchecked`), and
        //    the operands naming the program's tables are in range: a
        //    method (a call's, a table's entry, an inline cache's) is a
        //    body of `self.code`, a class a class of `prog.classes`, a
        //    field reference one of
        //    `prog.field_refs`, whose slot is below the field count of its
        //    class and so of every subclass (the loader built the tables
        //    from the verified module, and the code from the same tables).
        // 5. A superinstruction that finishes the instruction after it has
        //    that instruction at the next pc of `exec`, of the kind its
        //    rule fused, taking its result where it is a product's, a
        //    sum's or a store's second half (`superinstr::finishes`, which
        //    `superinstr::exec_code` keeps true), so `next!` reads it
        //    without a test of its kind.
        // The code this mode runs: the plain interpreter runs `exec`, with
        // its superinstructions; the counting ones run `code`, whose
        // instructions are the ones counted (see `crate::superinstr`). The
        // two have the same length and agree on every pc's meaning.
        macro_rules! code_of {
            ($body:expr) => {
                if M::COUNT {
                    $body.run_code.as_ptr()
                } else {
                    $body.run_exec.as_ptr()
                }
            };
        }
        let mut code_start: *const Instr = code_of!(body);
        // SAFETY: `self.pc` is an instruction of the body (1) and the top
        // frame's base is inside the stack (2).
        let mut ip: *const Instr = unsafe { code_start.add(self.pc as usize) };
        let mut fp: *mut Value = unsafe { self.stack.as_mut_ptr().add(top.base as usize) };

        // The pc of the instruction being executed (`ip` points at it).
        macro_rules! cur_pc {
            () => {
                // SAFETY: `ip` is inside the body (1).
                (unsafe { ip.offset_from(code_start) }) as u32
            };
        }
        // The slot at byte offset `$s` from `fp`: a slot operand of the
        // code run (`Body::run_code`, `Body::run_exec`).
        macro_rules! slot {
            ($s:expr) => {
                // SAFETY: slot operands are within the frame (2).
                unsafe { &mut *fp.byte_add($s as usize) }
            };
        }
        // The slot at index `$s`: an argument move's (`ArgMoves`, whose
        // slots are bytes and stay indices).
        macro_rules! slot_at {
            ($s:expr) => {
                // SAFETY: as for `slot!` (2).
                unsafe { &mut *fp.add(usize::from($s)) }
            };
        }
        macro_rules! get {
            ($s:expr) => {
                *slot!($s)
            };
        }
        macro_rules! set {
            // In words (`crate::value`), an integer's tag word whole.
            ($s:expr, Value::Int($x:expr)) => {{
                let x: i64 = $x;
                let p: *mut Value = slot!($s);
                // SAFETY: a slot of the frame (2).
                unsafe { write_int(p, x) };
            }};
            ($s:expr, $v:expr) => {{
                let v: Value = $v;
                let p: *mut Value = slot!($s);
                // SAFETY: a slot of the frame (2).
                unsafe { write_words(p, v) };
            }};
        }
        // To the instruction at `$t`: the loop's next dispatch runs it
        // (past the step to the next pc at the end of an arm).
        macro_rules! jump {
            ($t:expr) => {{
                // SAFETY: jump targets are instructions of the body (1).
                ip = unsafe { code_start.add($t as usize) };
                continue;
            }};
        }
        macro_rules! resync {
            () => {
                let top = self.frames.last().expect("a frame");
                // SAFETY: the top frame's base is within the stack (2, 3).
                fp = unsafe { self.stack.as_mut_ptr().add(top.base as usize) };
            };
        }
        macro_rules! fail {
            ($e:expr) => {{
                let e = $e;
                self.pc = cur_pc!();
                if M::COUNT {
                    self.uncount_folded_store();
                }
                return self.runtime_error(e);
            }};
        }
        macro_rules! int {
            ($v:expr, $op:expr) => {
                match $v {
                    Value::Int(i) => i,
                    other => fail!(RuntimeError::WrongKind {
                        op: $op,
                        expected: "an integer",
                        found: other.kind()
                    }),
                }
            };
        }
        macro_rules! ints {
            ($a:expr, $b:expr, $op:expr) => {{
                let (x, y): (Value, Value) = ($a, $b);
                // One test of both kinds: an integer's tag is 0.
                if x.tag_word() | y.tag_word() != 0 {
                    fail!(not_integers($op, x, y));
                }
                match (x, y) {
                    (Value::Int(x), Value::Int(y)) => (x, y),
                    // SAFETY: both tags are `Value::Int`'s.
                    _ => unsafe { std::hint::unreachable_unchecked() },
                }
            }};
        }
        macro_rules! rr {
            ($d:expr, $a:expr, $b:expr, $op:expr, |$x:ident, $y:ident| $e:expr) => {{
                let ($x, $y) = ints!(get!($a), get!($b), $op);
                set!($d, Value::Int($e));
            }};
        }
        macro_rules! ri {
            ($d:expr, $a:expr, $imm:expr, $op:expr, |$x:ident, $y:ident| $e:expr) => {{
                let $x = int!(get!($a), $op);
                let $y = i64::from($imm);
                set!($d, Value::Int($e));
            }};
        }
        macro_rules! jrr {
            ($a:expr, $b:expr, $t:expr, $op:expr, |$x:ident, $y:ident| $cond:expr) => {{
                let ($x, $y) = ints!(get!($a), get!($b), $op);
                if $cond {
                    jump!($t);
                }
            }};
        }
        macro_rules! jri {
            ($a:expr, $imm:expr, $t:expr, $op:expr, |$x:ident, $y:ident| $cond:expr) => {{
                let $x = int!(get!($a), $op);
                let $y = i64::from($imm);
                if $cond {
                    jump!($t);
                }
            }};
        }
        // A rotated loop test at the backward jump of a loop whose test is
        // at `t` (`crate::superinstr`): on to the loop's body at `t + 1`
        // unless the test leaves the loop (then on to the next instruction,
        // where the test jumps); if an operand is not an integer, to the
        // test itself, which reports the error as it would have.
        macro_rules! loop_test {
            ($a:expr, $b:expr, $t:expr, |$x:ident, $y:ident| $leave:expr) => {{
                debug_assert!(!M::COUNT, "superinstructions are not counted");
                match ($a, $b) {
                    (Value::Int($x), Value::Int($y)) => {
                        // Leaving is the rare side (`loop_left`): without
                        // saying so, LLVM may write the jump as a
                        // conditional move, and then the next dispatch's
                        // loads wait on the compare every iteration, where
                        // a predicted branch lets them run ahead (the test
                        // with its yieldpoint as a select: awfy-nbody 16%
                        // slower in wall time than as a branch, for 0.7%
                        // fewer instructions; hyperfine, callgrind).
                        if $leave {
                            loop_left();
                        } else {
                            // `t` is before this jump (1), so `t + 1` is
                            // an instruction of the body too.
                            jump!($t + 1);
                        }
                    }
                    _ => jump!($t),
                }
            }};
        }
        // A rotated zero test (`crate::superinstr`): to the test's own
        // target `x` where it leaves the loop, else on to the body at
        // `t + 1`. Any value can be tested, so there is no slow path.
        macro_rules! zero_loop {
            ($leave:expr, $t:expr, $x:expr) => {{
                if $leave {
                    jump!($x);
                } else {
                    jump!($t + 1);
                }
            }};
        }
        // A rotated loop test with the backward jump's yieldpoint: the loop
        // trip and the counter's type tag in one test (`tag | trip == 0`,
        // `crate::thread`), the fast path as `loop_test!`. Else (the trip
        // set, or the counter not an integer) the yieldpoint's real test,
        // then on to the loop's test at `t`, which does the rest.
        macro_rules! loop_test_y {
            ($a:expr, $b:expr, $t:expr, |$x:ident, $y:ident| $leave:expr) => {{
                // Both tags and the trip in one test: an operand that is not
                // an integer takes the slow path too, and the test at `t`
                // reports it. The operands' tags are read before the test
                // and their values after it, as the plain loop test reads
                // them (a value loaded before the test cost a load more
                // where the compare would read it from its slot: sieve's
                // yieldpoints +1.9% of its instructions, not +0.7%).
                if crate::trip::tags_clear_and_untripped($a.tag_word() | $b.tag_word(), shared) {
                    loop_test!($a, $b, $t, |$x, $y| $leave)
                } else {
                    if self.loop_tripped() {
                        self.pc = cur_pc!();
                        if let Some(exit) = self.yieldpoint_taken::<M>(YieldKind::Backedge) {
                            return exit;
                        }
                        resync!();
                    }
                    // `t` is before this jump (1).
                    jump!($t);
                }
            }};
        }
        // A counted loop's `inc a 1` and its rotated loop test in one
        // dispatch (`crate::superinstr`). The loop's jump is the next
        // instruction: the fast path skips it, or goes on at `t + 1`; if
        // the test's operand is not an integer, or (`$yieldpoint`) the
        // loop trip is set, it goes on at the jump, which does the rest as
        // it would have after the `inc`. The trip is tested with the
        // counter's type tag, in one test (`crate::thread`).
        macro_rules! count_loop {
            ($a:expr, $b:expr, $t:expr, $yieldpoint:expr, |$x:ident, $y:ident| $leave:expr) => {{
                debug_assert!(!M::COUNT, "superinstructions are not counted");
                let v: Value = get!($a);
                let fast = if $yieldpoint {
                    crate::trip::tags_clear_and_untripped(v.tag_word(), shared)
                } else {
                    matches!(v, Value::Int(_))
                };
                if fast {
                    let $x = int!(v, "inc").wrapping_add(1);
                    set!($a, Value::Int($x));
                    if let Value::Int($y) = $b {
                        if $leave {
                            loop_left();
                            // SAFETY: the jump is not the body's last
                            // instruction: a loop's exit follows it (1).
                            ip = unsafe { ip.add(1) };
                        } else {
                            // `t` is the loop's test, before the jump (1).
                            jump!($t + 1);
                        }
                    }
                } else {
                    let $x = int!(v, "inc").wrapping_add(1);
                    set!($a, Value::Int($x));
                }
            }};
        }
        macro_rules! get_field {
            ($d:expr, $obj:expr, $f:expr) => {{
                // SAFETY: a field reference of the code (4).
                let (c, field) = unsafe { *prog.field_refs.get_unchecked($f as usize) };
                let (r, class) = match get!($obj) {
                    Value::Obj(r, class) => (r, class as u32),
                    other => fail!(self.not_an_object("getfield", other)),
                };
                // SAFETY: a reference the program read (4).
                let fields = unsafe { self.heap.fields_unchecked(r, class) };
                if class != c && !prog.is_subclass(class, c) {
                    fail!(self.wrong_class("getfield", c, field, class));
                }
                debug_assert!((field as usize) < fields.len());
                // SAFETY: the object is of class `c` or a subclass (4).
                set!($d, unsafe { *fields.get_unchecked(field as usize) });
            }};
        }
        // The instruction at the next pc, the second half of the
        // superinstruction being run, bound to `$p`: its kind is not tested
        // (5).
        macro_rules! next {
            ($p:pat) => {
                // SAFETY: a superinstruction that finishes the next
                // instruction is never its body's last (1), and the next
                // pc holds `$p` (5).
                let $p = (unsafe { *ip.add(1) }) else {
                    unsafe { std::hint::unreachable_unchecked() }
                };
            };
        }
        // The second half of a field superinstruction (`crate::superinstr`):
        // the arithmetic at the next pc (`ip + 1`), which is `$p`, done here
        // (`$d = $e`) if its operands `$v` are integers (`$q`): `ip` steps
        // to it, as if it were being executed. Else nothing more, and it runs at its own pc, failing
        // there if it fails.
        macro_rules! then_arith {
            ($p:pat, $v:expr => $q:pat, $d:ident, $e:expr) => {{
                next!($p);
                if let $q = $v {
                    // SAFETY: a path goes on after the second half (1).
                    ip = unsafe { ip.add(1) };
                    set!($d, Value::Int($e));
                }
            }};
        }
        // The `shr` by a constant at the next pc, which shifts the first
        // half's result, the integer `$p`: done here, with no test of its
        // operand's kind (the product or the sum it shifts is an integer).
        macro_rules! then_shr {
            ($p:expr) => {{
                // The shift's operand is the first half's result (5).
                next!(Instr::ShrRI { d, imm, .. });
                // SAFETY: as in `then_arith!` (1).
                ip = unsafe { ip.add(1) };
                set!(d, Value::Int($p >> (imm & 63)));
            }};
        }
        // The same for an element access at the next pc: done here where
        // the array is one and the index in range, else at its own pc.
        macro_rules! then_aload {
            () => {{
                next!(Instr::ALoad { d, arr, i });
                if let (Value::Arr(a), Value::Int(i)) = (get!(arr), get!(i)) {
                    // SAFETY: a reference the program read (4).
                    let elems = unsafe { self.heap.array_unchecked(a) };
                    // SAFETY (both steps): as in `then_arith!` (1).
                    if let Some(&v) = elems.value(i) {
                        ip = unsafe { ip.add(1) };
                        set!(d, v);
                    } else if let Some(n) = elems.integer(i) {
                        ip = unsafe { ip.add(1) };
                        set!(d, Value::Int(n));
                    }
                }
            }};
        }
        macro_rules! then_astore {
            () => {{
                next!(Instr::AStore { arr, i, v });
                if let (Value::Arr(a), Value::Int(i)) = (get!(arr), get!(i)) {
                    let v = get!(v);
                    // Out of range: not done here, but at its pc.
                    // SAFETY: a reference the program read (4).
                    if unsafe { self.heap.array_mut_unchecked(a) }
                        .set(i, v)
                        .is_ok()
                    {
                        // SAFETY: as in `then_arith!` (1).
                        ip = unsafe { ip.add(1) };
                    }
                }
            }};
        }
        // `$v` into field `$field` of object `$r`, whose class `$class` is
        // the field's or a subclass of it: a `putfield`'s store, once its
        // tests have passed.
        macro_rules! store_field {
            ($r:expr, $class:expr, $field:expr, $v:expr) => {{
                let v = $v;
                // SAFETY: a reference the program read (4).
                let fields = unsafe { self.heap.fields_mut_unchecked($r, $class) };
                debug_assert!(($field as usize) < fields.len());
                // SAFETY: the object is of the field's class or a subclass (4).
                unsafe { write_words(fields.as_mut_ptr().add($field as usize), v) };
            }};
        }
        // The same for a field store at the next pc that stores the
        // result: done here where the object is of the field's class.
        macro_rules! then_putfield {
            () => {{
                next!(Instr::PutField { obj, v, f });
                // SAFETY: a field reference of the code (4).
                let (c, field) = unsafe { *prog.field_refs.get_unchecked(f as usize) };
                if let Value::Obj(r, class) = get!(obj) {
                    let class = class as u32;
                    if class == c || prog.is_subclass(class, c) {
                        store_field!(r, class, field, get!(v));
                        // SAFETY: as in `then_arith!` (1).
                        ip = unsafe { ip.add(1) };
                    }
                }
            }};
        }
        macro_rules! yieldpoint {
            ($kind:expr, $taken:expr) => {{
                let cw = control.load(Ordering::Relaxed);
                if $taken(cw) || (M::COUNT && self.cycles >= self.next_event) {
                    self.pc = cur_pc!();
                    if let Some(exit) = self.yieldpoint_taken::<M>($kind) {
                        return exit;
                    }
                    resync!();
                }
            }};
        }
        // A call's frame for `callee` with its window at `base`: pushed,
        // entered (past its prologue yieldpoint, which the caller of the
        // macro tests), and its locals zeroed.
        macro_rules! push_frame {
            ($callee:expr, $base:expr) => {{
                let callee: &'vm Body = $callee;
                // The pc after the call (`ip` points at it; an
                // argument-passing superinstruction stepped it to the
                // call, as if dispatched there).
                // SAFETY: `ip` is inside the body (1).
                let return_pc = unsafe { ip.offset_from(code_start) } as usize + 1;
                // The window's index in the stack, from `fp` rather than
                // from the caller's frame; `$base` is its byte offset.
                // SAFETY: `fp` is the top frame's first slot in the stack
                // (3), and the window lies in that frame (2).
                let window = unsafe { fp.byte_add($base as usize) };
                let new_base = unsafe { window.offset_from(self.stack.as_ptr()) } as usize;
                let need = new_base + callee.frame_size as usize;
                if need > self.stack.len() {
                    if let Err(e) = self.ensure_stack(need) {
                        fail!(e);
                    }
                }
                // SAFETY: the callee's frame, `new_base..need`, is inside
                // the stack (just ensured: 2).
                let callee_fp = unsafe { self.stack.as_mut_ptr().add(new_base) };
                // The callee's own locals start at 0, written in words
                // (`crate::value`). Most methods have none, one or two:
                // those are stored straight, and only a longer list loops
                // (a `fill`'s loop, unrolled by eight with its remainder
                // loop first, cost about 20 instructions for a single
                // local: callgrind, awfy-towers).
                // SAFETY: `nparams <= nlocals <= frame_size` (2).
                unsafe {
                    let locals = callee_fp.add(callee.nparams as usize);
                    let n = callee.own_locals as usize;
                    if n != 0 {
                        write_int(locals, 0);
                        if n > 1 {
                            write_int(locals.add(1), 0);
                            for k in 2..n {
                                write_int(locals.add(k), 0);
                            }
                        }
                    }
                }
                let frame = Frame {
                    ret: ReturnWord::to_pc_index(return_pc),
                    slot: 0,
                    body: callee.id,
                    base: new_base as u32,
                };
                // The depth was below the frame limit, which is at most the
                // list's capacity (`armed_frame_limit`), or the slow path
                // made room: the limit's compare is the capacity check.
                let depth = self.frames.len();
                debug_assert!(depth < self.frames.capacity(), "room for a frame");
                // SAFETY: `depth < capacity` (above), and the slot at
                // `depth` is written before the length covers it.
                unsafe {
                    self.frames.as_mut_ptr().add(depth).write(frame);
                    self.frames.set_len(depth + 1);
                }
                body = callee;
                code_start = code_of!(body);
                fp = callee_fp;
                if M::COUNT {
                    self.bodies.entered(self.frames.len() - 1, self.cycles);
                }
                if M::TRACE_CALLS {
                    self.pc = 0;
                    self.notify(|l, t| l.called(t));
                    if let Some(e) = self.listener_error.take() {
                        // The profile could not record the call: the run
                        // stops in the callee, before its first instruction.
                        return self.runtime_error(e);
                    }
                    resync!();
                }
                // The prologue yieldpoint, done here rather than dispatched:
                // enter past it, as if it had just run (`enter_body!` goes
                // on at `ip` without the step to the next pc).
                debug_assert_eq!(
                    matches!(body.code[0], Instr::YieldPrologue),
                    entry_bytes != 0,
                    "a prologue at pc 0 exactly when loaded with yieldpoints"
                );
                // SAFETY: the prologue is never the last instruction (1).
                ip = unsafe { code_start.byte_add(entry_bytes) };
                if M::COUNT && entry_bytes != 0 {
                    self.cycles += u64::from(body.costs[0]);
                    self.instructions += u64::from(body.counts[0]);
                }
            }};
        }
        // A counting mode's prologue yieldpoint due on the cycle count.
        macro_rules! prologue_due {
            () => {
                M::COUNT && entry_bytes != 0 && self.cycles >= self.next_event
            };
        }
        macro_rules! prologue_taken {
            () => {
                // The prologue, at pc 0 (`ip` is past it).
                self.pc = 0;
                if let Some(exit) = self.yieldpoint_taken::<M>(YieldKind::Prologue) {
                    return exit;
                }
                resync!();
            };
        }
        macro_rules! enter_body {
            ($target:expr, $base:expr) => {{
                let target = $target;
                debug_assert!((target as usize) < self.code.len());
                // SAFETY: a method of the code or a class's table (4).
                let callee: &'vm Body = unsafe { self.code.get_unchecked(target as usize) };
                // The stack guard: one compare is the overflow check, the
                // frame list's capacity check and the prologue yieldpoint's
                // test (see `crate::thread`).
                // The slow path has a copy of the frame's push of its own,
                // so that the fast one carries no flag to test after it.
                if self.frames.len() >= frame_limit.load(Ordering::Relaxed) {
                    let take = match self.call_tripped(max_frames) {
                        Ok(t) => t,
                        Err(e) => fail!(e),
                    };
                    push_frame!(callee, $base);
                    if take || prologue_due!() {
                        prologue_taken!();
                    }
                } else {
                    push_frame!(callee, $base);
                    if prologue_due!() {
                        prologue_taken!();
                    }
                }
                // On in the callee, at `ip`.
                continue;
            }};
        }
        // A virtual call of `selector` with its window at `base` (`ip` at
        // the call): the receiver's class, its method from the site's
        // inline cache (`crate::call_cache`) or else from the class's
        // table, then the call.
        macro_rules! call_virt {
            ($selector:expr, $base:expr) => {{
                let (selector, base) = ($selector, $base);
                let class = match get!(base) {
                    // The class is in the reference: no look at its cell.
                    Value::Obj(_, class) => class as u32,
                    Value::Null => fail!(RuntimeError::NullReference { op: "callvirt" }),
                    other => fail!(RuntimeError::WrongKind {
                        op: "callvirt",
                        expected: "an object receiver",
                        found: other.kind()
                    }),
                };
                // The site's entry is found from `ip`, the call's own
                // address: no load waits for the caller's body.
                let target = match self.call_cache.hit(ip, class) {
                    Some(t) => t,
                    None => {
                        // SAFETY: an object's class is one of the program's (4).
                        let info = unsafe { prog.classes.get_unchecked(class as usize) };
                        let target = match info.vtable.get(selector as usize) {
                            Some(&t) => t,
                            None => prog.lookup_virtual(class, selector),
                        };
                        if target == NO_METHOD {
                            fail!(RuntimeError::NoSuchMethod {
                                method: prog.module.selectors[selector as usize].name.clone(),
                                class: prog.classes[class as usize].name.clone(),
                            });
                        }
                        self.call_cache.fill(ip, class, target);
                        target
                    }
                };
                enter_body!(target, base)
            }};
        }
        // The moves of an argument-passing superinstruction, in order; then
        // `ip` points at the call, `count` instructions on, as if it had
        // been dispatched there.
        macro_rules! arg_moves {
            ($args:expr) => {{
                let args: ArgMoves = $args;
                let count = usize::from(args.count);
                // Unrolled (`1 <= count <= 3`): an iterator's loop cost
                // more than the dispatches saved (callgrind, awfy-towers).
                // Each move copies in words (`crate::value`): the value
                // was most often computed just before.
                macro_rules! arg_move {
                    ($k:expr) => {{
                        let (dst, src): (*mut Value, *mut Value) =
                            (slot_at!(args.dst[$k]), slot_at!(args.src[$k]));
                        // SAFETY: two slots of the frame (2).
                        unsafe { copy_words(dst, src) };
                    }};
                }
                arg_move!(0);
                if count > 1 {
                    arg_move!(1);
                    if count > 2 {
                        arg_move!(2);
                    }
                }
                // SAFETY: the call follows the `count` moves in the body (1).
                ip = unsafe { ip.add(count) };
            }};
        }
        macro_rules! backedge {
            () => {
                yieldpoint!(YieldKind::Backedge, |cw: i64| cw > 0)
            };
        }
        macro_rules! ret {
            ($a:expr, $pop:expr) => {
                ret_value!(get!($a), $pop)
            };
        }
        // Returns `$v` from the frame `$pop` pops. `$caller_known`: the
        // frame list still holds a caller after the pop (tested before it),
        // so the test for the thread's last return is skipped. `$v` reads
        // the returning frame (a slot, or a constant) and is evaluated
        // only where the value is stored, after the pop: nothing between
        // writes a slot, and a value read first would be kept in memory
        // across the trampoline's out-of-line call on every return.
        macro_rules! ret_value {
            ($v:expr, $pop:expr) => {
                ret_value!($v, $pop, false)
            };
            ($v:expr, $pop:expr, $caller_known:expr) => {{
                if M::TRACE_CALLS {
                    self.pc = cur_pc!();
                    self.notify(|l, t| l.returning(t));
                }
                let frame: Frame = $pop;
                if M::COUNT {
                    self.bodies.left(frame.body, self.frames.len(), self.cycles);
                }
                let mut ret = frame.ret;
                if ret.is_trampoline() {
                    ret = self.through_trampoline(ret, false);
                }
                let caller = if $caller_known {
                    debug_assert!(!self.frames.is_empty(), "a caller");
                    // SAFETY: the list held a caller below the popped
                    // frame, and a listener (`through_trampoline`) sees
                    // the frames as a slice, which it cannot shorten.
                    unsafe { self.frames.last().unwrap_unchecked() }
                } else {
                    let Some(caller) = self.frames.last() else {
                        return Exit::Returned($v);
                    };
                    caller
                };
                let v: Value = $v;
                let stack = self.stack.as_mut_ptr();
                // The result lands where the call's arguments began,
                // which is where the callee's frame began.
                // SAFETY: the returning frame's base is inside the stack (2).
                unsafe { write_words(stack.add(frame.base as usize), v) };
                debug_assert!(std::ptr::eq(
                    self.by_id[caller.body as usize],
                    prog.body(caller.body)
                ));
                // SAFETY: a frame names a body that exists (4), and
                // `by_id` has a slot for every id.
                body = unsafe { *self.by_id.get_unchecked(caller.body as usize) };
                code_start = if M::COUNT {
                    code_of!(body)
                } else {
                    // SAFETY: as for `by_id`, of the same length.
                    unsafe { *self.exec_by_id.get_unchecked(caller.body as usize) }
                };
                // SAFETY: a return word holds the pc after a call
                // instruction of the caller's body (1); the real word
                // behind a trampoline is checked by `through_trampoline`.
                ip = unsafe { code_start.add(ret.pc_index()) };
                // SAFETY: the caller's base is inside the stack (2).
                fp = unsafe { stack.add(caller.base as usize) };
                // On in the caller, at `ip`.
                continue;
            }};
        }
        // The frame a return pops when the frame list holds `depth >= 2`
        // frames (tested by the caller of the macro).
        macro_rules! pop_to_caller {
            ($depth:expr) => {{
                let depth: usize = $depth;
                debug_assert!(
                    depth >= 2 && depth == self.frames.len(),
                    "a frame and a caller"
                );
                // SAFETY: the list holds `depth >= 2` frames: pop the last.
                unsafe {
                    self.frames.set_len(depth - 1);
                    *self.frames.as_ptr().add(depth - 1)
                }
            }};
        }
        // A return without an epilogue yieldpoint of `$v`: the fast path
        // when a caller is there (`depth >= 2`, one test for both rare
        // cases), else the general pop.
        macro_rules! ret_plain {
            ($v:expr) => {{
                let depth = self.frames.len();
                if depth >= 2 {
                    ret_value!($v, pop_to_caller!(depth), true)
                } else {
                    ret_value!($v, self.frames.pop().expect("a frame to return from"))
                }
            }};
        }
        macro_rules! reload {
            () => {{
                let top = *self.frames.last().expect("a frame");
                body = prog.body(top.body);
                code_start = code_of!(body);
                // SAFETY: `self.pc` is an instruction of the body (1).
                ip = unsafe { code_start.add(self.pc as usize) };
                resync!();
                // On at `self.pc`.
                continue;
            }};
        }
        // Before an allocation of `bytes`: the memory budget must cover
        // it, after a collection if need be; else the run is out of memory.
        macro_rules! room {
            ($bytes:expr) => {{
                let bytes = $bytes;
                if !self.heap.reserve(bytes) {
                    self.pc = cur_pc!();
                    if let Err(e) = self.make_room(bytes) {
                        fail!(e);
                    }
                }
            }};
        }
        macro_rules! alloc_pressure {
            ($p:expr) => {
                match $p {
                    AllocPressure::None => {}
                    // A program loaded without yieldpoints has no place to
                    // honour a request: collect at once, so that it collects
                    // as often as with yieldpoints (a fair `--no-yieldpoints`
                    // comparison).
                    AllocPressure::Request if prog.yieldpoints => self.shared.request(request::GC),
                    AllocPressure::Request | AllocPressure::CollectNow => {
                        self.pc = cur_pc!();
                        self.collect_garbage();
                    }
                }
            };
        }

        // Each turn runs the instruction at `ip`, then steps to the next
        // pc; an arm that goes elsewhere (a jump, a call, a return) sets
        // `ip` and `continue`s, past the step.
        loop {
            // SAFETY: `ip` is inside the body (1).
            let instr = unsafe { *ip };
            if M::COUNT {
                let pc = cur_pc!() as usize;
                debug_assert!(pc < body.costs.len() && pc < body.counts.len());
                // SAFETY: `pc` is an instruction of the body (1), and a
                // body has a cost and a count per instruction.
                unsafe {
                    self.cycles += u64::from(*body.costs.get_unchecked(pc));
                    self.instructions += u64::from(*body.counts.get_unchecked(pc));
                }
                if instr.is_superinstruction() {
                    // SAFETY: the counting modes run `code`, which holds
                    // no superinstruction (`crate::superinstr` makes them
                    // in `exec` only). Said here, so that their arms are
                    // left out of the counting interpreters' loop.
                    unsafe { std::hint::unreachable_unchecked() }
                }
            }
            match instr {
                // Run only when a thread starts (calls do it inline).
                Instr::YieldPrologue => yieldpoint!(YieldKind::Prologue, |cw: i64| cw != 0),
                Instr::Nop => {}
                Instr::Move { d, a } => set!(d, get!(a)),
                Instr::Swap { a, b } => {
                    let (x, y) = (get!(a), get!(b));
                    set!(a, y);
                    set!(b, x);
                }
                Instr::ConstInt { d, v } => set!(d, Value::Int(v)),
                Instr::ConstStr { d, s } => set!(d, Value::Str(s)),
                Instr::ConstNull { d } => set!(d, Value::Null),
                Instr::AddRR { d, a, b } => rr!(d, a, b, "add", |x, y| x.wrapping_add(y)),
                Instr::AddRI { d, a, imm } => ri!(d, a, imm, "add", |x, y| x.wrapping_add(y)),
                Instr::SubRR { d, a, b } => rr!(d, a, b, "sub", |x, y| x.wrapping_sub(y)),
                Instr::SubRI { d, a, imm } => ri!(d, a, imm, "sub", |x, y| x.wrapping_sub(y)),
                Instr::MulRR { d, a, b } => rr!(d, a, b, "mul", |x, y| x.wrapping_mul(y)),
                // A fixed-point product (the plain interpreter's `exec`
                // only, `crate::superinstr`): the `shr` of the product at
                // the next pc done here too (`then_shr!`).
                Instr::MulRRShrRI { d, a, b } => {
                    let (x, y) = ints!(get!(a), get!(b), "mul");
                    let p = x.wrapping_mul(y);
                    set!(d, Value::Int(p));
                    then_shr!(p)
                }
                // The same where the shift writes the product's slot: the
                // product is not stored before it is shifted.
                Instr::MulRRShrRIInPlace { a, b, .. } => {
                    let (x, y) = ints!(get!(a), get!(b), "mul");
                    then_shr!(x.wrapping_mul(y))
                }
                // A mean, the same way.
                Instr::AddRRShrRI { d, a, b } => {
                    let (x, y) = ints!(get!(a), get!(b), "add");
                    let p = x.wrapping_add(y);
                    set!(d, Value::Int(p));
                    then_shr!(p)
                }
                Instr::MulRI { d, a, imm } => ri!(d, a, imm, "mul", |x, y| x.wrapping_mul(y)),
                Instr::DivRR { d, a, b } => {
                    let (x, y) = ints!(get!(a), get!(b), "div");
                    if y == 0 {
                        fail!(RuntimeError::DivisionByZero);
                    }
                    set!(d, Value::Int(x.wrapping_div(y)));
                }
                Instr::RemRR { d, a, b } => {
                    let (x, y) = ints!(get!(a), get!(b), "rem");
                    if y == 0 {
                        fail!(RuntimeError::DivisionByZero);
                    }
                    set!(d, Value::Int(x.wrapping_rem(y)));
                }
                Instr::AndRR { d, a, b } => rr!(d, a, b, "and", |x, y| x & y),
                Instr::AndRI { d, a, imm } => ri!(d, a, imm, "and", |x, y| x & y),
                Instr::OrRR { d, a, b } => rr!(d, a, b, "or", |x, y| x | y),
                Instr::OrRI { d, a, imm } => ri!(d, a, imm, "or", |x, y| x | y),
                Instr::XorRR { d, a, b } => rr!(d, a, b, "xor", |x, y| x ^ y),
                Instr::XorRI { d, a, imm } => ri!(d, a, imm, "xor", |x, y| x ^ y),
                Instr::ShlRR { d, a, b } => {
                    rr!(d, a, b, "shl", |x, y| x.wrapping_shl((y & 63) as u32))
                }
                Instr::ShlRI { d, a, imm } => {
                    ri!(d, a, imm, "shl", |x, y| x.wrapping_shl((y & 63) as u32))
                }
                Instr::ShrRR { d, a, b } => rr!(d, a, b, "shr", |x, y| x >> (y & 63)),
                Instr::ShrRI { d, a, imm } => ri!(d, a, imm, "shr", |x, y| x >> (y & 63)),
                Instr::LtRR { d, a, b } => rr!(d, a, b, "lt", |x, y| i64::from(x < y)),
                Instr::LtRI { d, a, imm } => ri!(d, a, imm, "lt", |x, y| i64::from(x < y)),
                Instr::LeRR { d, a, b } => rr!(d, a, b, "le", |x, y| i64::from(x <= y)),
                Instr::LeRI { d, a, imm } => ri!(d, a, imm, "le", |x, y| i64::from(x <= y)),
                Instr::GtRR { d, a, b } => rr!(d, a, b, "gt", |x, y| i64::from(x > y)),
                Instr::GtRI { d, a, imm } => ri!(d, a, imm, "gt", |x, y| i64::from(x > y)),
                Instr::GeRR { d, a, b } => rr!(d, a, b, "ge", |x, y| i64::from(x >= y)),
                Instr::GeRI { d, a, imm } => ri!(d, a, imm, "ge", |x, y| i64::from(x >= y)),
                Instr::EqRR { d, a, b } => set!(d, Value::Int(i64::from(get!(a) == get!(b)))),
                Instr::EqRI { d, a, imm } => {
                    set!(
                        d,
                        Value::Int(i64::from(get!(a) == Value::Int(i64::from(imm))))
                    )
                }
                Instr::NeRR { d, a, b } => set!(d, Value::Int(i64::from(get!(a) != get!(b)))),
                Instr::NeRI { d, a, imm } => {
                    set!(
                        d,
                        Value::Int(i64::from(get!(a) != Value::Int(i64::from(imm))))
                    )
                }
                Instr::Neg { d, a } => {
                    let x = int!(get!(a), "neg");
                    set!(d, Value::Int(x.wrapping_neg()));
                }
                Instr::Not { d, a } => set!(d, Value::Int(i64::from(get!(a).is_falsy()))),
                Instr::Inc { a, v } => {
                    let x = int!(get!(a), "inc");
                    set!(a, Value::Int(x.wrapping_add(v)));
                }
                Instr::GetGlobal { d, g } => {
                    set!(
                        d,
                        Value::Int(self.vm.globals[g as usize].load(Ordering::SeqCst))
                    );
                }
                Instr::PutGlobal { g, a } => {
                    let x = int!(get!(a), "putglobal");
                    self.vm.globals[g as usize].store(x, Ordering::SeqCst);
                }
                Instr::AddGlobal { d, g, a } => {
                    let x = int!(get!(a), "addglobal");
                    let old = self.vm.globals[g as usize].fetch_add(x, Ordering::SeqCst);
                    set!(d, Value::Int(old));
                }
                Instr::Jmp { t } => jump!(t),
                Instr::Jz { a, t } => {
                    if falsy(get!(a)) {
                        jump!(t);
                    }
                }
                Instr::Jnz { a, t } => {
                    if !falsy(get!(a)) {
                        jump!(t);
                    }
                }
                Instr::JeqRR { a, b, t } => {
                    if get!(a) == get!(b) {
                        jump!(t);
                    }
                }
                Instr::JeqRI { a, imm, t } => {
                    if get!(a) == Value::Int(i64::from(imm)) {
                        jump!(t);
                    }
                }
                Instr::JneRR { a, b, t } => {
                    if get!(a) != get!(b) {
                        jump!(t);
                    }
                }
                Instr::JneRI { a, imm, t } => {
                    if get!(a) != Value::Int(i64::from(imm)) {
                        jump!(t);
                    }
                }
                Instr::JltRR { a, b, t } => jrr!(a, b, t, "jlt", |x, y| x < y),
                Instr::JltRI { a, imm, t } => jri!(a, imm, t, "jlt", |x, y| x < y),
                Instr::JleRR { a, b, t } => jrr!(a, b, t, "jle", |x, y| x <= y),
                Instr::JleRI { a, imm, t } => jri!(a, imm, t, "jle", |x, y| x <= y),
                Instr::JgtRR { a, b, t } => jrr!(a, b, t, "jgt", |x, y| x > y),
                Instr::JgtRI { a, imm, t } => jri!(a, imm, t, "jgt", |x, y| x > y),
                Instr::JgeRR { a, b, t } => jrr!(a, b, t, "jge", |x, y| x >= y),
                Instr::JgeRI { a, imm, t } => jri!(a, imm, t, "jge", |x, y| x >= y),
                // Backward jumps: the backedge yieldpoint, then the jump.
                Instr::JmpY { t } => {
                    backedge!();
                    jump!(t)
                }
                Instr::JzY { a, t } => {
                    backedge!();
                    if get!(a).is_falsy() {
                        jump!(t);
                    }
                }
                Instr::JnzY { a, t } => {
                    backedge!();
                    if !get!(a).is_falsy() {
                        jump!(t);
                    }
                }
                Instr::JeqRRY { a, b, t } => {
                    backedge!();
                    if get!(a) == get!(b) {
                        jump!(t);
                    }
                }
                Instr::JeqRIY { a, imm, t } => {
                    backedge!();
                    if get!(a) == Value::Int(i64::from(imm)) {
                        jump!(t);
                    }
                }
                Instr::JneRRY { a, b, t } => {
                    backedge!();
                    if get!(a) != get!(b) {
                        jump!(t);
                    }
                }
                Instr::JneRIY { a, imm, t } => {
                    backedge!();
                    if get!(a) != Value::Int(i64::from(imm)) {
                        jump!(t);
                    }
                }
                Instr::JltRRY { a, b, t } => {
                    backedge!();
                    jrr!(a, b, t, "jlt", |x, y| x < y)
                }
                Instr::JltRIY { a, imm, t } => {
                    backedge!();
                    jri!(a, imm, t, "jlt", |x, y| x < y)
                }
                Instr::JleRRY { a, b, t } => {
                    backedge!();
                    jrr!(a, b, t, "jle", |x, y| x <= y)
                }
                Instr::JleRIY { a, imm, t } => {
                    backedge!();
                    jri!(a, imm, t, "jle", |x, y| x <= y)
                }
                Instr::JgtRRY { a, b, t } => {
                    backedge!();
                    jrr!(a, b, t, "jgt", |x, y| x > y)
                }
                Instr::JgtRIY { a, imm, t } => {
                    backedge!();
                    jri!(a, imm, t, "jgt", |x, y| x > y)
                }
                Instr::JgeRRY { a, b, t } => {
                    backedge!();
                    jrr!(a, b, t, "jge", |x, y| x >= y)
                }
                Instr::JgeRIY { a, imm, t } => {
                    backedge!();
                    jri!(a, imm, t, "jge", |x, y| x >= y)
                }
                // Rotated loop tests (the plain interpreter's `exec` only).
                Instr::LoopZ { a, t, x } => zero_loop!(get!(a).is_falsy(), t, x),
                Instr::LoopNz { a, t, x } => zero_loop!(!get!(a).is_falsy(), t, x),
                Instr::LoopZY { a, t, x } => {
                    backedge!();
                    zero_loop!(get!(a).is_falsy(), t, x)
                }
                Instr::LoopNzY { a, t, x } => {
                    backedge!();
                    zero_loop!(!get!(a).is_falsy(), t, x)
                }
                Instr::LoopLtRR { a, b, t } => loop_test!(get!(a), get!(b), t, |x, y| x < y),
                Instr::LoopLtRI { a, imm, t } => {
                    loop_test!(get!(a), Value::Int(i64::from(imm)), t, |x, y| x < y)
                }
                Instr::LoopLtRRY { a, b, t } => {
                    loop_test_y!(get!(a), get!(b), t, |x, y| x < y)
                }
                Instr::LoopLtRIY { a, imm, t } => {
                    loop_test_y!(get!(a), Value::Int(i64::from(imm)), t, |x, y| x < y)
                }
                Instr::LoopLeRR { a, b, t } => loop_test!(get!(a), get!(b), t, |x, y| x <= y),
                Instr::LoopLeRI { a, imm, t } => {
                    loop_test!(get!(a), Value::Int(i64::from(imm)), t, |x, y| x <= y)
                }
                Instr::LoopLeRRY { a, b, t } => {
                    loop_test_y!(get!(a), get!(b), t, |x, y| x <= y)
                }
                Instr::LoopLeRIY { a, imm, t } => {
                    loop_test_y!(get!(a), Value::Int(i64::from(imm)), t, |x, y| x <= y)
                }
                Instr::LoopGtRR { a, b, t } => loop_test!(get!(a), get!(b), t, |x, y| x > y),
                Instr::LoopGtRI { a, imm, t } => {
                    loop_test!(get!(a), Value::Int(i64::from(imm)), t, |x, y| x > y)
                }
                Instr::LoopGtRRY { a, b, t } => {
                    loop_test_y!(get!(a), get!(b), t, |x, y| x > y)
                }
                Instr::LoopGtRIY { a, imm, t } => {
                    loop_test_y!(get!(a), Value::Int(i64::from(imm)), t, |x, y| x > y)
                }
                Instr::LoopGeRR { a, b, t } => loop_test!(get!(a), get!(b), t, |x, y| x >= y),
                Instr::LoopGeRI { a, imm, t } => {
                    loop_test!(get!(a), Value::Int(i64::from(imm)), t, |x, y| x >= y)
                }
                Instr::LoopGeRRY { a, b, t } => {
                    loop_test_y!(get!(a), get!(b), t, |x, y| x >= y)
                }
                Instr::LoopGeRIY { a, imm, t } => {
                    loop_test_y!(get!(a), Value::Int(i64::from(imm)), t, |x, y| x >= y)
                }
                // Counted loops (the plain interpreter's `exec` only).
                Instr::CountLoopGtRR { a, b, t } => {
                    count_loop!(a, get!(b), t, false, |x, y| x > y)
                }
                Instr::CountLoopGtRRY { a, b, t } => {
                    count_loop!(a, get!(b), t, true, |x, y| x > y)
                }
                Instr::CountLoopGtRI { a, imm, t } => {
                    count_loop!(a, Value::Int(i64::from(imm)), t, false, |x, y| x > y)
                }
                Instr::CountLoopGtRIY { a, imm, t } => {
                    count_loop!(a, Value::Int(i64::from(imm)), t, true, |x, y| x > y)
                }
                Instr::CountLoopGeRR { a, b, t } => {
                    count_loop!(a, get!(b), t, false, |x, y| x >= y)
                }
                Instr::CountLoopGeRRY { a, b, t } => {
                    count_loop!(a, get!(b), t, true, |x, y| x >= y)
                }
                Instr::CountLoopGeRI { a, imm, t } => {
                    count_loop!(a, Value::Int(i64::from(imm)), t, false, |x, y| x >= y)
                }
                Instr::CountLoopGeRIY { a, imm, t } => {
                    count_loop!(a, Value::Int(i64::from(imm)), t, true, |x, y| x >= y)
                }
                Instr::Call { m, base } => enter_body!(m, base),
                Instr::CallVirt {
                    selector,
                    base,
                    arity,
                } => {
                    let _ = arity;
                    call_virt!(selector, base)
                }
                // Argument passing (the plain interpreter's `exec` only):
                // the moves, then the call at the pc after them.
                Instr::CallArgs { args, m } => {
                    arg_moves!(args);
                    enter_body!(m, u32::from(args.base) * SLOT_BYTES)
                }
                Instr::CallVirtArgs { args, selector } => {
                    arg_moves!(args);
                    call_virt!(selector, u32::from(args.base) * SLOT_BYTES)
                }
                // Every return tests its rare cases at once: no frame, or
                // no caller (the thread's last return), and with an
                // epilogue yieldpoint one that may be due. The fast path
                // knows a caller is there.
                Instr::Ret { a } => ret_plain!(get!(a)),
                // A constant's return (the plain interpreter's `exec`
                // only, `crate::superinstr`): the `ret` follows at the
                // next pc, and the one with a yieldpoint goes on there
                // when its depth is not above the return floor.
                Instr::RetInt { d, v } => {
                    let _ = d;
                    ret_plain!(Value::Int(i64::from(v)))
                }
                Instr::RetIntY { d, v } => {
                    let depth = self.frames.len();
                    if crate::trip::above_return_floor(depth, shared) {
                        ret_value!(Value::Int(i64::from(v)), pop_to_caller!(depth), true)
                    } else {
                        // On at the `ret`, which does the rest.
                        set!(d, Value::Int(i64::from(v)));
                    }
                }
                Instr::RetY { a } => {
                    // One test for the rare cases: an epilogue yieldpoint
                    // may be due (a request raised the return floor to
                    // `usize::MAX`), the frame is the thread's last, or
                    // there is none (see `crate::thread`).
                    let depth = self.frames.len();
                    let rare = !crate::trip::above_return_floor(depth, shared)
                        || (M::COUNT && self.cycles >= self.next_event);
                    if !rare {
                        ret_value!(get!(a), pop_to_caller!(depth), true)
                    } else {
                        // Whether the yieldpoint is to be taken (the word
                        // non-zero), else the floor and limit re-armed.
                        let take = self.return_tripped();
                        if take || (M::COUNT && self.cycles >= self.next_event) {
                            self.pc = cur_pc!();
                            if let Some(exit) = self.yieldpoint_taken::<M>(YieldKind::Epilogue) {
                                return exit;
                            }
                            resync!();
                        }
                        ret!(a, self.frames.pop().expect("a frame to return from"))
                    }
                }
                Instr::New { d, class } => {
                    let nfields = prog.classes[class as usize].nfields as usize;
                    room!(object_bytes(nfields));
                    match self.heap.new_object(class, nfields) {
                        Ok((v, p)) => {
                            set!(d, v);
                            alloc_pressure!(p);
                        }
                        Err(bytes) => fail!(self.system_refused(bytes)),
                    }
                }
                // A field access looks at the object's cell once, and
                // tries the exact class before the subclass test.
                Instr::GetField { d, obj, f } => get_field!(d, obj, f),
                // Field superinstructions (the plain interpreter's `exec`
                // only, `crate::superinstr`): the first instruction, then
                // the one at the next pc where its fast path applies.
                Instr::GetFieldAddRI { d, obj, f } => {
                    get_field!(d, obj, f);
                    then_arith!(Instr::AddRI { d, a, imm }, get!(a) => Value::Int(x), d, x.wrapping_add(i64::from(imm)))
                }
                Instr::GetFieldSubRI { d, obj, f } => {
                    get_field!(d, obj, f);
                    then_arith!(Instr::SubRI { d, a, imm }, get!(a) => Value::Int(x), d, x.wrapping_sub(i64::from(imm)))
                }
                Instr::GetFieldAddRR { d, obj, f } => {
                    get_field!(d, obj, f);
                    then_arith!(Instr::AddRR { d, a, b }, (get!(a), get!(b)) => (Value::Int(x), Value::Int(y)), d, x.wrapping_add(y))
                }
                Instr::GetFieldSubRR { d, obj, f } => {
                    get_field!(d, obj, f);
                    then_arith!(Instr::SubRR { d, a, b }, (get!(a), get!(b)) => (Value::Int(x), Value::Int(y)), d, x.wrapping_sub(y))
                }
                // An array held in a field: the element access at the
                // next pc, where the array is one and the index in range.
                Instr::GetFieldALoad { d, obj, f } => {
                    get_field!(d, obj, f);
                    then_aload!()
                }
                Instr::GetFieldAStore { d, obj, f } => {
                    get_field!(d, obj, f);
                    then_astore!()
                }
                // A constant, then the element store at the next pc that
                // stores it (`flags[k] = 0`).
                Instr::ConstIntAStore { d, v } => {
                    set!(d, Value::Int(v));
                    then_astore!()
                }
                // Arithmetic, then the field store at the next pc that
                // stores its result.
                Instr::AddRRPutField { d, a, b } => {
                    rr!(d, a, b, "add", |x, y| x.wrapping_add(y));
                    then_putfield!()
                }
                Instr::SubRRPutField { d, a, b } => {
                    rr!(d, a, b, "sub", |x, y| x.wrapping_sub(y));
                    then_putfield!()
                }
                Instr::AddRIPutField { d, a, imm } => {
                    ri!(d, a, imm, "add", |x, y| x.wrapping_add(y));
                    then_putfield!()
                }
                Instr::PutField { obj, v, f } => {
                    // SAFETY: a field reference of the code (4).
                    let (c, field) = unsafe { *prog.field_refs.get_unchecked(f as usize) };
                    let (r, class) = match get!(obj) {
                        Value::Obj(r, class) => (r, class as u32),
                        other => fail!(self.not_an_object("putfield", other)),
                    };
                    if class != c && !prog.is_subclass(class, c) {
                        fail!(self.wrong_class("putfield", c, field, class));
                    }
                    store_field!(r, class, field, get!(v));
                }
                Instr::InstanceOf { d, a, class } => {
                    let yes =
                        matches!(get!(a), Value::Obj(_, c) if prog.is_subclass(c as u32, class));
                    set!(d, Value::Int(i64::from(yes)));
                }
                Instr::IsClass { d, a, class } => {
                    let yes = matches!(get!(a), Value::Obj(_, c) if c == u64::from(class));
                    set!(d, Value::Int(i64::from(yes)));
                }
                Instr::NewArray { d, n } => {
                    let n = int!(get!(n), "newarray");
                    if n < 0 {
                        fail!(RuntimeError::NegativeArrayLength(n));
                    }
                    if n > MAX_ARRAY {
                        fail!(RuntimeError::ArrayTooLarge(n));
                    }
                    room!(array_bytes(n as usize));
                    match self.heap.new_array(n as usize) {
                        Ok((v, p)) => {
                            set!(d, v);
                            alloc_pressure!(p);
                        }
                        // Within the budget, yet the system said no.
                        Err(bytes) => fail!(self.system_refused(bytes)),
                    }
                }
                Instr::ALoad { d, arr, i } => {
                    let a = match get!(arr) {
                        Value::Arr(a) => a,
                        other => fail!(self.not_an_array("aload", other)),
                    };
                    let i = int!(get!(i), "aload");
                    // SAFETY: a reference the program read (4).
                    let elems = unsafe { self.heap.array_unchecked(a) };
                    if let Some(&v) = elems.value(i) {
                        set!(d, v);
                    } else if let Some(n) = elems.integer(i) {
                        set!(d, Value::Int(n));
                    } else {
                        fail!(RuntimeError::IndexOutOfBounds {
                            index: i,
                            len: elems.len()
                        });
                    }
                }
                Instr::AStore { arr, i, v } => {
                    let a = match get!(arr) {
                        Value::Arr(a) => a,
                        other => fail!(self.not_an_array("astore", other)),
                    };
                    let i = int!(get!(i), "astore");
                    let v = get!(v);
                    // SAFETY: a reference the program read (4).
                    if let Err(OutOfBounds { len }) =
                        unsafe { self.heap.array_mut_unchecked(a) }.set(i, v)
                    {
                        fail!(RuntimeError::IndexOutOfBounds { index: i, len });
                    }
                }
                Instr::ALen { d, arr } => match get!(arr) {
                    // SAFETY: a reference the program read (4).
                    Value::Arr(a) => set!(
                        d,
                        Value::Int(unsafe { self.heap.array_unchecked(a) }.len() as i64)
                    ),
                    other => fail!(self.not_an_array("alen", other)),
                },
                Instr::Print { a } => {
                    let text = display(prog, &self.heap, get!(a));
                    self.vm.output.line(&text);
                }
                Instr::Throw { a } => {
                    let v = get!(a);
                    self.pc = cur_pc!();
                    if let Err(exit) = self.unwind::<M>(v) {
                        return exit;
                    }
                    reload!();
                }
                Instr::Spawn { m, base } => {
                    let n = prog.bodies[m as usize].nparams as usize;
                    let first = self.frames.last().expect("a frame").base as usize
                        + (base / SLOT_BYTES) as usize;
                    let args = &self.stack[first..first + n];
                    if let Some(bad) = args.iter().find(|v| !v.is_shareable()) {
                        let value = display(prog, &self.heap, *bad);
                        fail!(RuntimeError::CrossThread {
                            what: "spawn argument",
                            value
                        });
                    }
                    let shared: Vec<SharedValue> = args.iter().map(|v| to_shared(*v, "")).collect();
                    let id = match self.vm.spawn(m, shared, (self.shared.id, self.now())) {
                        Ok(id) => id,
                        Err(e) => fail!(e),
                    };
                    self.stack[first] = Value::Int(i64::from(id));
                }
                Instr::Join { d, a } => {
                    let t = int!(get!(a), "join");
                    self.pc = cur_pc!();
                    match self.join(t) {
                        Ok(JoinOutcome::Value(v)) => {
                            resync!();
                            set!(d, v);
                        }
                        Ok(JoinOutcome::Rethrow(v)) => {
                            if let Err(exit) = self.unwind::<M>(v) {
                                return exit;
                            }
                            reload!();
                        }
                        Err(exit) => {
                            if M::COUNT {
                                self.uncount_folded_store();
                            }
                            return exit;
                        }
                    }
                }
                Instr::Sleep { a } => {
                    let ms = int!(get!(a), "sleep");
                    self.pc = cur_pc!();
                    if self.sleep(ms) {
                        return Exit::Stopped;
                    }
                    resync!();
                }
                Instr::Halt { a } => {
                    let c = int!(get!(a), "halt");
                    return Exit::Halt((c & 255) as i32);
                }
            }
            // SAFETY: a path goes on after every instruction that falls
            // through (1).
            ip = unsafe { ip.add(1) };
        }
    }

    /// Charges one `item` of profiler work, as a listener would
    /// ([`Interp::notify`]): it advances the thread's virtual time.
    fn charge(&mut self, item: CostItem) {
        self.timed(|s| s.work.charge(item, 1));
    }

    /// Calls `f` on the listener, if any, with a view of the thread. The
    /// profiler work it charges advances the thread's virtual time.
    fn notify<R: Default>(
        &mut self,
        f: impl FnOnce(&mut dyn ThreadListener, &mut ThreadCtx<'_>) -> R,
    ) -> R {
        self.timed(|s| s.notify_untimed(f))
    }

    /// Runs `f`, then advances the thread's virtual time by the profiler
    /// work it charged.
    fn timed<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let before = self.work.cycles();
        let r = f(self);
        let spent = self.work.cycles() - before;
        if spent != 0 {
            self.charged += spent;
            self.rearm_events();
        }
        r
    }

    /// [`Interp::notify`] without advancing the thread's time by the work
    /// charged: for the walks a simulated safepoint already placed in
    /// virtual time ([`crate::simsample`]).
    fn notify_untimed<R: Default>(
        &mut self,
        f: impl FnOnce(&mut dyn ThreadListener, &mut ThreadCtx<'_>) -> R,
    ) -> R {
        let Some(mut l) = self.listener.take() else {
            return R::default();
        };
        let old_tick = self.tick;
        let r = {
            let mut ctx = ThreadCtx {
                program: self.prog,
                thread: self.shared,
                frames: &mut self.frames,
                pc: self.pc,
                instructions: self.instructions,
                cycles: self.cycles,
                work: &mut self.work,
                control_base: &mut self.control_base,
                virtual_tick: Some(&mut self.tick),
                passes: Some(&mut self.passes),
                memory: Some(ListenerMemory {
                    budget: self.vm.memory,
                    heap: &mut self.heap,
                    stack: &self.stack,
                    error: &mut self.listener_error,
                }),
            };
            f(&mut *l, &mut ctx)
        };
        if self.tick != old_tick {
            // The listener changed the virtual clock's period (--tune): the
            // next tick comes one new period from now.
            self.next_tick = self.now().saturating_add(self.tick);
            self.rearm_events();
        }
        self.listener = Some(l);
        r
    }

    /// A call's slow path, taken when its depth reached the frame limit
    /// (see [`crate::thread`]): the overflow error at `max_frames` frames;
    /// else, with room made for one more frame (the list doubles, fallibly
    /// and charged, if it is full), whether the callee's prologue
    /// yieldpoint is to be taken.
    #[cold]
    #[inline(never)]
    fn call_tripped(&mut self, max_frames: usize) -> Result<bool, RuntimeError> {
        let depth = self.frames.len();
        if depth >= max_frames {
            return Err(RuntimeError::StackOverflow { limit: max_frames });
        }
        if depth == self.frames.capacity() {
            self.grow_frames(depth.max(1))?;
        }
        Ok(self.limit_tripped())
    }

    /// The frame limit the thread arms: `--max-frames`, or the frame
    /// list's capacity if that is lower, so that the one compare a call
    /// makes against the limit is also the list's capacity check. Only the
    /// thread raises the limit, and the capacity never shrinks, so any
    /// limit a call reads is at most the capacity.
    fn armed_frame_limit(&self) -> usize {
        self.vm.max_frames.min(self.frames.capacity())
    }

    /// A loop test's slow path, taken when the loop trip was set or the
    /// loop's counter is not an integer (see [`crate::thread`]): whether
    /// the backedge yieldpoint is to be taken (the control word is
    /// positive); else a trip set late is cleared.
    #[cold]
    #[inline(never)]
    fn loop_tripped(&self) -> bool {
        if self.shared.control.load(Ordering::SeqCst) > 0 {
            return true;
        }
        if self.shared.loop_trip.load(Ordering::SeqCst) != 0 {
            self.shared.rearm_loops();
        }
        false
    }

    /// A `RetY`'s slow path, taken when its depth was not above the return
    /// floor (see [`crate::thread`]): whether the epilogue yieldpoint is
    /// to be taken (else the floor and the limit are re-armed).
    #[cold]
    #[inline(never)]
    fn return_tripped(&self) -> bool {
        assert!(!self.frames.is_empty(), "a frame to return from");
        self.limit_tripped()
    }

    /// The frame limit or the return floor tripped: the yieldpoint is to
    /// be taken if the program has yieldpoints and the control word is
    /// non-zero (taking it restores both); else both are re-armed.
    fn limit_tripped(&self) -> bool {
        let limit = self.armed_frame_limit();
        if !self.prog.yieldpoints {
            // No yieldpoint will serve a request: the limit is only the
            // overflow check.
            self.shared.frame_limit.store(limit, Ordering::SeqCst);
            self.shared.return_floor.store(1, Ordering::SeqCst);
            return false;
        }
        if self.shared.control_word() != 0 {
            return true;
        }
        self.shared.rearm(limit);
        false
    }

    /// The slow path of a yieldpoint: serve the VM's requests, then give the
    /// listener its turn, then restore the control word.
    #[cold]
    #[inline(never)]
    fn yieldpoint_taken<M: Mode>(&mut self, kind: YieldKind) -> Option<Exit> {
        if self.passes != 0 && kind != YieldKind::Backedge && self.only_a_pass_due::<M>() {
            // A yieldpoint the listener lets go by (a counter-based
            // sampler's stride), and nothing else to do: its charge, as
            // below, and the control word left as it is, which is what
            // `restore_control` would write back.
            self.take_pass();
            if M::COUNT && self.now() >= self.slice_end {
                return self.yieldpoint_end::<M>();
            }
            return None;
        }
        let mut req = self.shared.requests.swap(0, Ordering::SeqCst);
        if let Some(bytes) = crate::memory::system_refusal() {
            // The system refused memory (request::MEMORY, or noticed on the
            // way): the program stops here with the error and its trace.
            return Some(self.runtime_error(self.system_refused(bytes)));
        }
        if M::COUNT && self.now() >= self.next_tick {
            req |= request::TICK;
            // Ticks that fell between two yieldpoints coalesce, as timer
            // interrupts setting one flag do.
            let behind = self.now() - self.next_tick;
            self.next_tick += self.tick * (behind / self.tick + 1);
        }
        if req & request::STOP != 0 {
            // Keep the STOP bit so later checks still see it.
            self.shared
                .requests
                .fetch_or(request::STOP, Ordering::SeqCst);
            return Some(Exit::Stopped);
        }
        if req & request::GC != 0 {
            self.collect_garbage();
        }
        if req & request::CODE != 0 {
            self.refresh_code();
        }
        if req & request::SAFEPOINT != 0 {
            match self.vm.safepoints.arrive(&self.parking) {
                Arrival::Pass => {}
                Arrival::Park => {
                    self.park(ThreadState::Parked);
                    self.unpark();
                }
                Arrival::WalkYourself { epoch, then_park } => {
                    self.notify(|l, t| l.safepoint(t));
                    self.vm.safepoints.walked(epoch);
                    if then_park {
                        self.park(ThreadState::Parked);
                        self.unpark();
                    }
                }
            }
        }
        let profiler_bits = req & !request::VM_MASK;
        if self.passes != 0 && profiler_bits == 0 && kind != YieldKind::Backedge {
            // A yieldpoint the listener let go by: its charge, no call.
            self.take_pass();
        } else if self.listener.is_some() {
            self.notify(|l, t| l.yieldpoint(t, kind, profiler_bits));
            if let Some(e) = self.listener_error.take() {
                return Some(self.runtime_error(e));
            }
        }
        self.yieldpoint_end::<M>()
    }

    /// One of the yieldpoints the listener lets go by (`passes`), taken:
    /// counted off and charged, without a call to the listener.
    fn take_pass(&mut self) {
        self.passes -= 1;
        self.charge(CostItem::YieldpointTaken);
    }

    /// Nothing but a pass to do at a yieldpoint: no request, no memory
    /// refused, no tick due, and the control word at the base the thread
    /// returns to. (A request that comes after these loads sets the word
    /// again, and the next yieldpoint serves it.)
    fn only_a_pass_due<M: Mode>(&self) -> bool {
        self.shared.requests.load(Ordering::SeqCst) == 0
            && crate::memory::system_refusal().is_none()
            && !(M::COUNT && self.now() >= self.next_tick)
            && self.shared.control_word() == self.control_base
    }

    /// How every yieldpoint the thread goes on from ends: the end of its
    /// quantum on a simulated machine, then its events and its control
    /// word rearmed.
    fn yieldpoint_end<M: Mode>(&mut self) -> Option<Exit> {
        if M::COUNT && self.now() >= self.slice_end {
            // The quantum ran out: the simulated core goes to the next
            // thread, and this one waits for its next slice.
            if let Some(s) = &self.vm.sched {
                let end = s.yield_core(self.shared.id, self.now(), self.frames.len());
                self.slice_end = end;
                self.simulated_walks();
            }
            if self.shared.requests.load(Ordering::SeqCst) & request::STOP != 0 {
                return Some(Exit::Stopped);
            }
        }
        self.rearm_events();
        self.shared
            .restore_control(self.control_base, self.armed_frame_limit());
        None
    }

    /// Takes the samples the simulated machine's safepoints asked of this
    /// thread while it was stopped ([`crate::schedule`]): its frames are
    /// still those it stopped with, so its own listener walks them now.
    fn simulated_walks(&mut self) {
        let Some(s) = &self.vm.sched else { return };
        let can_walk = self.listener.is_some() && !self.frames.is_empty();
        for _ in 0..s.take_walks(self.shared.id, can_walk) {
            if can_walk {
                self.notify_untimed(|l, t| l.safepoint(t));
            }
        }
    }

    /// The pointers a parked or blocked thread publishes (see
    /// [`crate::safepoint`]).
    fn view(&mut self) -> ParkedView {
        ParkedView {
            frames: &mut self.frames,
            listener: &mut self.listener,
            control_base: &mut self.control_base,
            pc: self.pc,
            instructions: self.instructions,
            cycles: self.cycles,
            work: &mut self.work,
        }
    }

    /// Publishes this thread's state and enters `state` (parked at a
    /// yieldpoint, or blocked in `sleep`/`join`): from now on a safepoint
    /// may inspect it. Must be followed by [`Interp::unpark`] before the
    /// thread touches its frames again.
    fn park(&mut self, state: ThreadState) {
        let view = self.view();
        self.vm
            .safepoints
            .park(self.shared, &self.parking, view, state);
    }

    /// Leaves a parked or blocked state, first waiting while a safepoint
    /// holds this thread.
    fn unpark(&mut self) {
        self.vm.safepoints.unpark(self.shared, &self.parking);
    }

    /// Collects this thread's heap. The roots are every frame's slots:
    /// frames are contiguous, so that is the stack up to the end of the top
    /// frame. (Dead temporaries of the top frame may keep a stale reference
    /// alive until the next collection; the heap ignores stale references
    /// to freed cells.)
    /// The memory budget refused `bytes`: collects this heap and, if that
    /// is not enough, asks every other thread to collect its own (their
    /// garbage holds budget too) and waits a little for them. The error if
    /// the live data really fills the budget, or if the system has refused
    /// memory (see [`crate::memory`]).
    #[cold]
    fn make_room(&mut self, bytes: usize) -> Result<(), RuntimeError> {
        if let Some(refused) = crate::memory::system_refusal() {
            return Err(self.system_refused(refused));
        }
        let full = RuntimeError::OutOfMemory {
            limit: self.heap.budget_limit(),
        };
        self.collect_garbage();
        if self.heap.reserve(bytes) {
            return Ok(());
        }
        let others: Vec<_> = self
            .vm
            .threads
            .all()
            .into_iter()
            .filter(|t| t.id != self.shared.id && t.state() != ThreadState::Finished)
            .collect();
        if others.is_empty() {
            return Err(full);
        }
        for t in &others {
            t.request(request::GC);
        }
        for _ in 0..20 {
            std::thread::sleep(std::time::Duration::from_millis(1));
            if self.heap.reserve(bytes) {
                return Ok(());
            }
        }
        match crate::memory::system_refusal() {
            Some(refused) => Err(self.system_refused(refused)),
            None => Err(full),
        }
    }

    fn collect_garbage(&mut self) {
        let top = self.frames.last().expect("a frame");
        let end = top.base as usize + self.prog.body(top.body).frame_size as usize;
        self.heap.collect([&self.stack[..end]]);
    }

    /// Returns through a trampoline word: the listener captures what it
    /// wants and gives back the real word.
    ///
    /// `ret` jumps to the word's pc and `unwind` looks up handlers at it
    /// without further checks (invariant 1 of [`Interp::run`]), so the
    /// listener's word is checked here, on the cold path: a profiler that
    /// hands back a trampoline or a pc outside the caller's code is a bug
    /// that stops the run with a panic, never undefined behaviour.
    #[cold]
    fn through_trampoline(&mut self, word: ReturnWord, unwinding: bool) -> ReturnWord {
        let real = self
            .notify(|l, t| Some(l.trampoline(t, word, unwinding)))
            .expect("a trampoline word implies a listener");
        if let Some(caller) = self.frames.last() {
            let len = self.prog.body(caller.body).code.len();
            assert!(
                !real.is_trampoline() && real.pc() >= 1 && (real.pc() as usize) < len,
                "the listener resolved trampoline {word:?} to {real:?}, not a return pc"
            );
        }
        real
    }

    /// The real return word behind `w` (resolving trampolines).
    fn resolve(&self, w: ReturnWord) -> ReturnWord {
        match (&self.listener, w.is_trampoline()) {
            (Some(l), true) => l.resolve(w),
            _ => w,
        }
    }

    /// Throws `v` from the instruction at `self.pc`: finds the innermost
    /// matching `.catch`, popping frames (and passing their trampolines to
    /// the listener) on the way. `Err` if the exception escapes the thread.
    fn unwind<M: Mode>(&mut self, v: Value) -> Result<(), Exit> {
        if M::COUNT {
            self.uncount_folded_store();
        }
        let mut trace = Trace::default();
        loop {
            let frame = *self.frames.last().expect("a frame");
            let body = self.prog.body(frame.body);
            let pc = self.pc;
            if let Some(c) = body.catches.iter().find(|c| c.from <= pc && pc < c.to) {
                // The handler starts with just the thrown value on the
                // stack: operand depth 0, the first slot after the locals.
                self.stack[frame.base as usize + body.nlocals as usize] = v;
                self.pc = c.handler;
                return Ok(());
            }
            trace.push(TraceEntry {
                method: body.name.clone(),
                line: body.line_at(pc),
            });
            if M::TRACE_CALLS {
                self.notify(|l, t| l.returning(t));
            }
            self.frames.pop();
            if M::COUNT {
                self.bodies.left(frame.body, self.frames.len(), self.cycles);
            }
            let mut ret = frame.ret;
            if ret.is_trampoline() {
                ret = self.through_trampoline(ret, true);
            }
            if self.frames.is_empty() {
                return Err(Exit::Threw(v, trace));
            }
            self.pc = ret.pc() - 1;
        }
    }

    /// The current stack as a trace, innermost first.
    pub(crate) fn trace(&self) -> Trace {
        let mut out = Trace::default();
        let n = self.frames.len();
        // Only the entries the trace prints are made: a million-frame
        // stack that ran out of memory costs no memory to report.
        for (k, f) in self.frames.iter().rev().enumerate() {
            if !Trace::keeps(k, n) {
                out.skip();
                continue;
            }
            let i = n - 1 - k;
            let pc = match self.frames.get(i + 1) {
                Some(callee) => self.resolve(callee.ret).pc().wrapping_sub(1),
                None => self.pc,
            };
            let body = self.prog.body(f.body);
            out.push(TraceEntry {
                method: body.name.clone(),
                line: body.line_at(pc),
            });
        }
        out
    }

    /// The instruction at `self.pc` of the top frame faulted: a `store`
    /// folded into it after its operation did not run, so its source
    /// instructions and cycles come off the counts (the profile format, docs/LANGUAGE.md: the
    /// faulting instruction counts, nothing after it). Counting modes only.
    #[cold]
    fn uncount_folded_store(&mut self) {
        let Some(top) = self.frames.last() else {
            return;
        };
        if let Some(f) = self.prog.body(top.body).folded_store_at(self.pc) {
            self.instructions -= u64::from(f.count);
            self.cycles -= u64::from(f.cost);
        }
    }

    #[cold]
    fn runtime_error(&mut self, e: RuntimeError) -> Exit {
        Exit::Error(e, self.trace())
    }

    fn not_an_object(&self, op: &'static str, v: Value) -> RuntimeError {
        match v {
            Value::Null => RuntimeError::NullReference { op },
            other => RuntimeError::WrongKind {
                op,
                expected: "an object",
                found: other.kind(),
            },
        }
    }

    fn not_an_array(&self, op: &'static str, v: Value) -> RuntimeError {
        match v {
            Value::Null => RuntimeError::NullReference { op },
            other => RuntimeError::WrongKind {
                op,
                expected: "an array",
                found: other.kind(),
            },
        }
    }

    fn wrong_class(&self, op: &str, c: u32, slot: u32, found: u32) -> RuntimeError {
        let class = &self.prog.module.classes[c as usize];
        RuntimeError::WrongClass {
            op: format!(
                "{op} {}.{}",
                class.name,
                self.prog.module.field_name(c, slot).unwrap_or("?")
            ),
            found: self.prog.classes[found as usize].name.clone(),
        }
    }

    /// How `print` writes a value.
    pub(crate) fn display(&self, v: Value) -> String {
        display(self.prog, &self.heap, v)
    }

    /// A value leaving this thread (result or uncaught exception).
    pub(crate) fn share(&self, v: Value) -> SharedValue {
        to_shared(v, &self.display(v))
    }

    /// Waits in `sleep`; returns true if the program is stopping.
    fn sleep(&mut self, ms: i64) -> bool {
        if let Some(s) = &self.vm.sched {
            // Virtual time: the core goes to the next thread, and this one
            // is ready `ms` later.
            let ns = (ms.max(0) as u64).saturating_mul(crate::schedule::CYCLES_PER_MS);
            self.park(ThreadState::Sleeping);
            let end = s.sleep(self.shared.id, self.now(), ns, self.frames.len());
            self.simulated_walks();
            self.unpark();
            self.set_slice_end(end);
            return self.vm.is_stopping();
        }
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_millis(ms.max(0) as u64);
        // Publish the frames: a safepoint may hold and inspect a sleeper.
        self.park(ThreadState::Sleeping);
        let mut g = self.shared.wake_lock.lock();
        let stopping = loop {
            if self.vm.is_stopping() {
                break true;
            }
            if self.shared.wake.wait_until(&mut g, deadline).timed_out() {
                break self.vm.is_stopping();
            }
        };
        drop(g);
        self.unpark();
        stopping
    }

    /// Waits for thread `t`.
    fn join(&mut self, t: i64) -> Result<JoinOutcome, Exit> {
        let Some(target) = self.vm.threads.get(t) else {
            return Err(self.runtime_error(RuntimeError::NoSuchThread(t)));
        };
        if target.id == self.shared.id {
            return Err(
                self.runtime_error(RuntimeError::Deadlock(format!("thread {} joins itself", t)))
            );
        }
        // Deadlock detection: follow the chain of joins from the target.
        self.shared.waiting_on.store(t, Ordering::SeqCst);
        let mut cur = target.clone();
        let mut steps = 0;
        loop {
            let next = cur.waiting_on.load(Ordering::SeqCst);
            if next < 0 || cur.state() == ThreadState::Finished || steps > 100_000 {
                break;
            }
            if next == i64::from(self.shared.id) {
                self.shared.waiting_on.store(-1, Ordering::SeqCst);
                return Err(self.runtime_error(RuntimeError::Deadlock(format!(
                    "thread {} and thread {} wait for each other in `join`",
                    self.shared.id, t
                ))));
            }
            match self.vm.threads.get(next) {
                Some(n) => cur = n,
                None => break,
            }
            steps += 1;
        }
        self.park(ThreadState::Joining);
        if let Some(s) = &self.vm.sched {
            // Waits (in virtual time) until the target has ended; then
            // `wait_finished` below returns at once.
            match s.join(self.shared.id, self.now(), target.id, self.frames.len()) {
                Ok(end) => {
                    self.set_slice_end(end);
                    self.simulated_walks();
                }
                Err(crate::schedule::NobodyToRun) => {
                    self.shared.waiting_on.store(-1, Ordering::SeqCst);
                    self.unpark();
                    return Err(self.runtime_error(RuntimeError::Deadlock(format!(
                        "thread {} joins thread {t}, and every other thread is waiting in `join`",
                        self.shared.id
                    ))));
                }
            }
        }
        let vm = self.vm;
        let result = target.wait_finished(|| vm.is_stopping());
        self.shared.waiting_on.store(-1, Ordering::SeqCst);
        self.unpark();
        let from_shared = |sv: SharedValue, what: &'static str| match sv {
            SharedValue::Int(i) => Ok(Value::Int(i)),
            SharedValue::Str(s) => Ok(Value::Str(s)),
            SharedValue::Null => Ok(Value::Null),
            SharedValue::Unshareable(text) => Err(RuntimeError::CrossThread { what, value: text }),
        };
        match result {
            None | Some(ThreadResult::Stopped) => Err(Exit::Stopped),
            Some(ThreadResult::Returned(sv)) => match from_shared(sv, "join result") {
                Ok(v) => Ok(JoinOutcome::Value(v)),
                Err(e) => Err(self.runtime_error(e)),
            },
            Some(ThreadResult::Threw(sv)) => match from_shared(sv, "exception rethrown by join") {
                Ok(v) => Ok(JoinOutcome::Rethrow(v)),
                Err(e) => Err(self.runtime_error(e)),
            },
        }
    }

    /// Tells the listener the thread is ending.
    pub(crate) fn end(&mut self) {
        if self.listener.is_some() {
            self.notify(|l, t| l.thread_ending(t));
        }
    }

    /// Garbage collections of this thread's heap.
    pub(crate) fn collections(&self) -> u64 {
        self.heap.collections()
    }

    /// Source instructions and cost-model cycles executed (counting modes
    /// only, else zeros).
    pub(crate) fn counted(&self) -> (u64, u64) {
        (self.instructions, self.cycles)
    }

    /// The cycles per body (counting modes only, else empty).
    pub(crate) fn body_counters(&self) -> &BodyCounters {
        &self.bodies
    }
}

enum JoinOutcome {
    Value(Value),
    Rethrow(Value),
}

/// How `print` writes `v`.
impl Drop for Interp<'_> {
    fn drop(&mut self) {
        self.vm.memory.give_back(self.stack_charged);
    }
}

/// How `print` writes a value (free of `Interp`, for the loop's arms,
/// which hold parts of it borrowed).
fn display(prog: &Program, heap: &Heap, v: Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Null => "null".to_string(),
        Value::Str(s) => prog.string(s).to_string(),
        Value::Obj(_, c) => format!("<{}>", prog.classes[c as usize].name),
        Value::Arr(r) => format!("<array {}>", heap.array(r).len()),
    }
}

fn to_shared(v: Value, text: &str) -> SharedValue {
    match v {
        Value::Int(i) => SharedValue::Int(i),
        Value::Str(s) => SharedValue::Str(s),
        Value::Null => SharedValue::Null,
        Value::Obj(..) | Value::Arr(_) => SharedValue::Unshareable(text.to_string()),
    }
}

/// Per method, the body new invocations run now (see [`crate::install`]).
fn current_code(prog: &Program) -> Vec<&Body> {
    (0..prog.bodies.len())
        .map(|m| prog.current_body(m as u32))
        .collect()
}

/// The table `Interp::by_id`: body `i` of `prog`, then the thread's
/// method-to-code table `code` (per method its installed body, or its
/// loaded one while it has none).
fn bodies_by_id<'p>(prog: &'p Program, code: &[&'p Body]) -> Vec<&'p Body> {
    prog.bodies.iter().chain(code.iter().copied()).collect()
}

/// [`Value::is_falsy`] with the integer's case first: one tag test, then
/// the compare. Without the hint LLVM tested for `null` first in some
/// builds, three instructions more on every integer test (the Queens and
/// sieve benchmarks: +0.8% of their instructions, callgrind). Only the
/// conditional jumps use it: with the mark in `Value::is_falsy` itself,
/// for every test, List ran 0.6% more instructions (its `null` tests).
#[inline(always)]
fn falsy(v: Value) -> bool {
    match v {
        Value::Int(i) => i == 0,
        other => {
            not_an_integer();
            matches!(other, Value::Null)
        }
    }
}

/// The error of an operation `op` on two operands `x` and `y` that are
/// not both integers. Out of line, so that an arithmetic arm tests both
/// kinds with one branch to one place, and keeps the error's text out of
/// its fast path (it was set up before the tests: two instructions more
/// per `add`, callgrind).
#[cold]
#[inline(never)]
fn not_integers(op: &'static str, x: Value, y: Value) -> RuntimeError {
    RuntimeError::WrongKind {
        op,
        expected: "integers",
        found: if matches!(x, Value::Int(_)) {
            y.kind()
        } else {
            x.kind()
        },
    }
}

/// The rarer path of [`falsy`] (see [`loop_left`]).
#[cold]
#[inline]
fn not_an_integer() {}

/// Marks the path it is called on as rarely taken: a loop's exit, against
/// its iterations. `#[cold]` on an empty function is the stable form of
/// `std::hint::cold_path` (Rust 1.95); without it LLVM laid out a counted
/// loop's fast path with the exit as the fall-through and the loop's
/// continuation behind an extra `jmp`, one instruction more per iteration
/// (arith_loop's yieldpoints 0.66% -> 1.32% of its instructions,
/// callgrind).
#[cold]
#[inline]
fn loop_left() {}
