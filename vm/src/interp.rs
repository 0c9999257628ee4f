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
//! A yieldpoint's fast path is one load of the control word and one branch;
//! everything else ([`Interp::yieldpoint_taken`]) is out of line.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::error::{RuntimeError, TraceEntry};
use crate::frame::{Frame, ReturnWord};
use crate::heap::{AllocPressure, Heap, MAX_ARRAY};
use crate::hooks::{ThreadCtx, ThreadListener};
use crate::instr::{Instr, YieldKind};
use crate::loader::{Program, NO_METHOD};
use crate::runtime::Vm;
use crate::safepoint::{Arrival, ParkedView};
use crate::thread::{request, SharedValue, ThreadResult, ThreadShared, ThreadState};
use crate::value::Value;

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
    Threw(Value, Vec<TraceEntry>),
    /// A runtime error.
    Error(RuntimeError, Vec<TraceEntry>),
    /// `halt` with this exit status.
    Halt(i32),
    /// The program is stopping.
    Stopped,
}

/// One thread's interpreter state.
pub(crate) struct Interp<'vm> {
    vm: &'vm Arc<Vm>,
    prog: &'vm Program,
    shared: &'vm ThreadShared,
    /// The value stack: locals and operands of every frame. All of it is
    /// initialized; `sp` is the first free slot. Each frame is guaranteed
    /// `nlocals + max_stack` slots from its base when it is pushed.
    stack: Vec<Value>,
    sp: usize,
    frames: Vec<Frame>,
    heap: Heap,
    listener: Option<Box<dyn ThreadListener>>,
    /// The control word the thread returns to after serving requests.
    control_base: i64,
    /// pc of the top frame, synced whenever the loop calls out.
    pc: u32,
    instructions: u64,
    cycles: u64,
    next_tick: u64,
    tick: u64,
}

impl<'vm> Interp<'vm> {
    pub(crate) fn new(
        vm: &'vm Arc<Vm>,
        shared: &'vm ThreadShared,
        listener: Option<Box<dyn ThreadListener>>,
    ) -> Self {
        let tick = vm.hooks.exec_mode().virtual_tick.unwrap_or(0);
        Interp {
            vm,
            prog: &vm.program,
            shared,
            stack: vec![Value::Int(0); 1024],
            sp: 0,
            frames: Vec::with_capacity(64),
            heap: Heap::new(),
            listener,
            control_base: 0,
            pc: 0,
            instructions: 0,
            cycles: 0,
            next_tick: if tick == 0 { u64::MAX } else { tick },
            tick,
        }
    }

    /// Pushes the entry frame of `method` with `args`.
    pub(crate) fn enter(&mut self, method: u32, args: &[Value]) {
        let body = &self.prog.bodies[method as usize];
        self.ensure_stack((body.nlocals + body.max_stack) as usize + 1);
        self.stack[..args.len()].copy_from_slice(args);
        self.stack[args.len()..body.nlocals as usize].fill(Value::Int(0));
        self.sp = body.nlocals as usize;
        self.frames.push(Frame {
            ret: ReturnWord::thread_exit(),
            slot: 0,
            body: method,
            base: 0,
        });
        self.pc = 0;
    }

    /// Grows the value stack to at least `need` slots.
    #[cold]
    fn ensure_stack(&mut self, need: usize) {
        if self.stack.len() < need {
            let size = need.max(self.stack.len() * 2);
            self.stack.resize(size, Value::Int(0));
        }
    }

    /// Runs until the thread's entry method returns or something stops it.
    pub(crate) fn run<M: Mode>(&mut self) -> Exit {
        if M::TRACE_CALLS {
            self.notify(|l, t| l.called(t));
        }
        let prog = self.prog;
        let control = &self.shared.control;
        let max_frames = self.vm.max_frames;
        let top = *self.frames.last().expect("entry frame");

        // The hot state lives in raw pointers:
        //
        // - `ip` points at the next instruction, `code_start` at the first
        //   instruction of the current body;
        // - `fp` points at the current frame's first local, `sp` at the
        //   first free slot of the value stack.
        //
        // SAFETY (the invariants every `unsafe` below relies on):
        // 1. `ip` stays inside the current body's code: the code ran the
        //    verifier, so every jump target is an instruction of the method
        //    and no path runs off its end (the loader maps targets, catch
        //    handlers and return pcs to loaded pcs inside the same body).
        // 2. The value stack has at least `base + nlocals + max_stack + 1`
        //    slots for the current frame (`ensure_stack` at every frame
        //    push), and the verifier bounds every operand-stack height to
        //    `[0, max_stack]`, so `sp` stays in `[fp + nlocals, fp + nlocals
        //    + max_stack]` and every pop reads a slot that was pushed.
        // 3. `self.stack` is reallocated only by `ensure_stack`; after it
        //    (and after any out-of-line call) the pointers are re-derived
        //    with `resync!`.
        // 4. Local indices are below `nlocals` (checked by the resolver).
        let mut code_start: *const Instr = prog.bodies[top.body as usize].code.as_ptr();
        // SAFETY: `self.pc` is an instruction of the body (1); `top.base`
        // and `self.sp` are within the stack (2).
        let mut ip: *const Instr = unsafe { code_start.add(self.pc as usize) };
        let mut fp: *mut Value = unsafe { self.stack.as_mut_ptr().add(top.base as usize) };
        let mut sp: *mut Value = unsafe { self.stack.as_mut_ptr().add(self.sp) };

        // The pc of the instruction being executed (`ip` is one past it).
        macro_rules! cur_pc {
            () => {
                // SAFETY: `ip` is inside the body (1).
                (unsafe { ip.offset_from(code_start) } - 1) as u32
            };
        }
        macro_rules! pop {
            () => {{
                // SAFETY: the verifier guarantees the slot was pushed (2).
                unsafe {
                    sp = sp.sub(1);
                    let v: Value = *sp;
                    v
                }
            }};
        }
        macro_rules! push {
            ($v:expr) => {{
                let v = $v;
                // SAFETY: room for max_stack operands was ensured (2).
                unsafe {
                    *sp = v;
                    sp = sp.add(1);
                }
            }};
        }
        macro_rules! peek {
            ($depth:expr) => {
                // SAFETY: the verifier guarantees `$depth` values are on the stack (2).
                unsafe { *sp.sub($depth) }
            };
        }
        macro_rules! local {
            ($l:expr) => {
                // SAFETY: local indices are below nlocals (4) and the frame's
                // locals are inside the stack (2).
                unsafe { &mut *fp.add($l as usize) }
            };
        }
        macro_rules! jump {
            ($t:expr) => {
                // SAFETY: jump targets are instructions of the body (1).
                ip = unsafe { code_start.add($t as usize) }
            };
        }
        macro_rules! sync {
            () => {
                // SAFETY: `sp` points into the stack (2).
                self.sp = unsafe { sp.offset_from(self.stack.as_ptr()) } as usize;
            };
        }
        macro_rules! resync {
            () => {
                let top = self.frames.last().expect("a frame");
                // SAFETY: `self.sp` and the top frame's base are within the
                // stack (2, 3).
                unsafe {
                    sp = self.stack.as_mut_ptr().add(self.sp);
                    fp = self.stack.as_mut_ptr().add(top.base as usize);
                }
            };
        }
        macro_rules! yieldpoint {
            ($kind:expr, $taken:expr) => {{
                let cw = control.load(Ordering::Relaxed);
                if $taken(cw) || (M::COUNT && self.cycles >= self.next_tick) {
                    sync!();
                    self.pc = cur_pc!();
                    if let Some(exit) = self.yieldpoint_taken::<M>($kind) {
                        return exit;
                    }
                    resync!();
                }
            }};
        }
        macro_rules! fail {
            ($e:expr) => {{
                let e = $e;
                sync!();
                self.pc = cur_pc!();
                return self.runtime_error(e);
            }};
        }
        macro_rules! int {
            ($v:expr, $op:literal) => {
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
        macro_rules! binop {
            ($op:literal, |$a:ident, $b:ident| $e:expr) => {{
                let b = pop!();
                let a = pop!();
                match (a, b) {
                    (Value::Int($a), Value::Int($b)) => push!($e),
                    (a, b) => fail!(RuntimeError::WrongKind {
                        op: $op,
                        expected: "integers",
                        found: if matches!(a, Value::Int(_)) {
                            b.kind()
                        } else {
                            a.kind()
                        }
                    }),
                }
            }};
        }
        macro_rules! cmp_jump {
            ($op:literal, $t:expr, |$a:ident, $b:ident| $cond:expr) => {{
                let b = pop!();
                let a = pop!();
                match (a, b) {
                    (Value::Int($a), Value::Int($b)) => {
                        if $cond {
                            jump!($t);
                        }
                    }
                    (a, b) => fail!(RuntimeError::WrongKind {
                        op: $op,
                        expected: "integers",
                        found: if matches!(a, Value::Int(_)) {
                            b.kind()
                        } else {
                            a.kind()
                        }
                    }),
                }
            }};
        }
        macro_rules! enter_body {
            ($target:expr) => {{
                let target = $target;
                let callee = &prog.bodies[target as usize];
                if self.frames.len() >= max_frames {
                    fail!(RuntimeError::StackOverflow { limit: max_frames });
                }
                let return_pc = cur_pc!() + 1;
                sync!();
                let new_base = self.sp - callee.nparams as usize;
                let locals_end = new_base + callee.nlocals as usize;
                if locals_end + callee.max_stack as usize >= self.stack.len() {
                    self.ensure_stack(locals_end + callee.max_stack as usize + 1);
                }
                if self.sp < locals_end {
                    self.stack[self.sp..locals_end].fill(Value::Int(0));
                }
                self.sp = locals_end;
                self.frames.push(Frame {
                    ret: ReturnWord::to_pc(return_pc),
                    slot: 0,
                    body: target,
                    base: new_base as u32,
                });
                code_start = callee.code.as_ptr();
                ip = code_start;
                if M::TRACE_CALLS {
                    self.pc = 0;
                    self.notify(|l, t| l.called(t));
                }
                resync!();
            }};
        }
        macro_rules! reload {
            () => {{
                let top = *self.frames.last().expect("a frame");
                code_start = prog.bodies[top.body as usize].code.as_ptr();
                // SAFETY: `self.pc` is an instruction of the body (1).
                ip = unsafe { code_start.add(self.pc as usize) };
                resync!();
            }};
        }
        macro_rules! alloc_pressure {
            ($p:expr) => {
                match $p {
                    AllocPressure::None => {}
                    AllocPressure::Request => self.shared.request(request::GC),
                    AllocPressure::CollectNow => {
                        sync!();
                        self.collect_garbage();
                        resync!();
                    }
                }
            };
        }

        loop {
            // SAFETY: `ip` is inside the body (1).
            let instr = unsafe { *ip };
            ip = unsafe { ip.add(1) };
            if M::COUNT {
                self.cycles += u64::from(instr.cost());
                self.instructions += u64::from(instr.source_count());
            }
            match instr {
                Instr::YieldPrologue => yieldpoint!(YieldKind::Prologue, |cw: i64| cw != 0),
                Instr::YieldEpilogue => yieldpoint!(YieldKind::Epilogue, |cw: i64| cw != 0),
                Instr::YieldBackedge => yieldpoint!(YieldKind::Backedge, |cw: i64| cw > 0),
                Instr::PushInt(i) => push!(Value::Int(i)),
                Instr::PushStr(s) => push!(Value::Str(s)),
                Instr::Null => push!(Value::Null),
                Instr::Pop => {
                    pop!();
                }
                Instr::Dup => push!(peek!(1)),
                Instr::Swap => {
                    let b = pop!();
                    let a = pop!();
                    push!(b);
                    push!(a);
                }
                Instr::Over => push!(peek!(2)),
                Instr::Load(l) => push!(*local!(l)),
                Instr::Store(l) => {
                    let v = pop!();
                    *local!(l) = v;
                }
                Instr::Inc(l, k) => {
                    let i = int!(*local!(l), "inc");
                    *local!(l) = Value::Int(i.wrapping_add(k));
                }
                Instr::GetGlobal(g) => {
                    push!(Value::Int(
                        self.vm.globals[g as usize].load(Ordering::SeqCst)
                    ));
                }
                Instr::PutGlobal(g) => {
                    let v = pop!();
                    let i = int!(v, "putglobal");
                    self.vm.globals[g as usize].store(i, Ordering::SeqCst);
                }
                Instr::AddGlobal(g) => {
                    let v = pop!();
                    let i = int!(v, "addglobal");
                    let old = self.vm.globals[g as usize].fetch_add(i, Ordering::SeqCst);
                    push!(Value::Int(old));
                }
                Instr::Add => binop!("add", |a, b| Value::Int(a.wrapping_add(b))),
                Instr::Sub => binop!("sub", |a, b| Value::Int(a.wrapping_sub(b))),
                Instr::Mul => binop!("mul", |a, b| Value::Int(a.wrapping_mul(b))),
                Instr::Div => {
                    let b = pop!();
                    let a = pop!();
                    let (a, b) = (int!(a, "div"), int!(b, "div"));
                    if b == 0 {
                        fail!(RuntimeError::DivisionByZero);
                    }
                    push!(Value::Int(a.wrapping_div(b)));
                }
                Instr::Rem => {
                    let b = pop!();
                    let a = pop!();
                    let (a, b) = (int!(a, "rem"), int!(b, "rem"));
                    if b == 0 {
                        fail!(RuntimeError::DivisionByZero);
                    }
                    push!(Value::Int(a.wrapping_rem(b)));
                }
                Instr::Neg => {
                    let v = pop!();
                    push!(Value::Int(int!(v, "neg").wrapping_neg()));
                }
                Instr::And => binop!("and", |a, b| Value::Int(a & b)),
                Instr::Or => binop!("or", |a, b| Value::Int(a | b)),
                Instr::Xor => binop!("xor", |a, b| Value::Int(a ^ b)),
                Instr::Shl => binop!("shl", |a, b| Value::Int(a.wrapping_shl((b & 63) as u32))),
                Instr::Shr => binop!("shr", |a, b| Value::Int(a >> (b & 63))),
                Instr::Not => {
                    let v = pop!();
                    push!(Value::Int(i64::from(v.is_falsy())));
                }
                Instr::Eq => {
                    let b = pop!();
                    let a = pop!();
                    push!(Value::Int(i64::from(a == b)));
                }
                Instr::Ne => {
                    let b = pop!();
                    let a = pop!();
                    push!(Value::Int(i64::from(a != b)));
                }
                Instr::Lt => binop!("lt", |a, b| Value::Int(i64::from(a < b))),
                Instr::Le => binop!("le", |a, b| Value::Int(i64::from(a <= b))),
                Instr::Gt => binop!("gt", |a, b| Value::Int(i64::from(a > b))),
                Instr::Ge => binop!("ge", |a, b| Value::Int(i64::from(a >= b))),
                Instr::Jmp(t) => jump!(t),
                Instr::Jz(t) => {
                    if pop!().is_falsy() {
                        jump!(t);
                    }
                }
                Instr::Jnz(t) => {
                    if !pop!().is_falsy() {
                        jump!(t);
                    }
                }
                Instr::Jeq(t) => {
                    let b = pop!();
                    let a = pop!();
                    if a == b {
                        jump!(t);
                    }
                }
                Instr::Jne(t) => {
                    let b = pop!();
                    let a = pop!();
                    if a != b {
                        jump!(t);
                    }
                }
                Instr::Jlt(t) => cmp_jump!("jlt", t, |a, b| a < b),
                Instr::Jle(t) => cmp_jump!("jle", t, |a, b| a <= b),
                Instr::Jgt(t) => cmp_jump!("jgt", t, |a, b| a > b),
                Instr::Jge(t) => cmp_jump!("jge", t, |a, b| a >= b),
                Instr::Call(m) => enter_body!(m),
                Instr::CallVirt { selector, arity } => {
                    let recv = peek!(arity as usize);
                    let class = match recv {
                        Value::Obj(r) => self.heap.class_of(r),
                        Value::Null => fail!(RuntimeError::NullReference { op: "callvirt" }),
                        other => fail!(RuntimeError::WrongKind {
                            op: "callvirt",
                            expected: "an object receiver",
                            found: other.kind()
                        }),
                    };
                    let target = prog.classes[class as usize].vtable[selector as usize];
                    if target == NO_METHOD {
                        fail!(RuntimeError::NoSuchMethod {
                            method: prog.module.selectors[selector as usize].name.clone(),
                            class: prog.classes[class as usize].name.clone(),
                        });
                    }
                    enter_body!(target)
                }
                Instr::Ret => {
                    let v = pop!();
                    if M::TRACE_CALLS {
                        sync!();
                        self.pc = cur_pc!();
                        self.notify(|l, t| l.returning(t));
                    }
                    let frame = self.frames.pop().expect("a frame to return from");
                    // The callee's locals and operands are dropped.
                    self.sp = frame.base as usize;
                    let mut ret = frame.ret;
                    if ret.is_trampoline() {
                        ret = self.through_trampoline(ret, false);
                    }
                    let Some(caller) = self.frames.last() else {
                        return Exit::Returned(v);
                    };
                    code_start = prog.bodies[caller.body as usize].code.as_ptr();
                    // SAFETY: a return word holds the pc after a call
                    // instruction of the caller's code (1).
                    ip = unsafe { code_start.add(ret.pc() as usize) };
                    resync!();
                    push!(v);
                }
                Instr::New(c) => {
                    let (v, p) = self
                        .heap
                        .new_object(c, prog.classes[c as usize].nfields as usize);
                    push!(v);
                    alloc_pressure!(p);
                }
                Instr::GetField(c, slot) => {
                    let r = pop!();
                    let r = match r {
                        Value::Obj(r) => r,
                        other => fail!(self.not_an_object("getfield", other)),
                    };
                    if !prog.is_subclass(self.heap.class_of(r), c) {
                        fail!(self.wrong_class("getfield", c, slot, r));
                    }
                    push!(self.heap.fields(r)[slot as usize]);
                }
                Instr::PutField(c, slot) => {
                    let v = pop!();
                    let r = pop!();
                    let r = match r {
                        Value::Obj(r) => r,
                        other => fail!(self.not_an_object("putfield", other)),
                    };
                    if !prog.is_subclass(self.heap.class_of(r), c) {
                        fail!(self.wrong_class("putfield", c, slot, r));
                    }
                    self.heap.fields_mut(r)[slot as usize] = v;
                }
                Instr::InstanceOf(c) => {
                    let v = pop!();
                    let yes =
                        matches!(v, Value::Obj(r) if prog.is_subclass(self.heap.class_of(r), c));
                    push!(Value::Int(i64::from(yes)));
                }
                Instr::IsClass(c) => {
                    let v = pop!();
                    let yes = matches!(v, Value::Obj(r) if self.heap.class_of(r) == c);
                    push!(Value::Int(i64::from(yes)));
                }
                Instr::NewArray => {
                    let n = pop!();
                    let n = int!(n, "newarray");
                    if n < 0 {
                        fail!(RuntimeError::NegativeArrayLength(n));
                    }
                    if n > MAX_ARRAY {
                        fail!(RuntimeError::ArrayTooLarge(n));
                    }
                    match self.heap.new_array(n as usize) {
                        Some((v, p)) => {
                            push!(v);
                            alloc_pressure!(p);
                        }
                        None => fail!(RuntimeError::ArrayTooLarge(n)),
                    }
                }
                Instr::ALoad => {
                    let i = pop!();
                    let a = pop!();
                    let a = match a {
                        Value::Arr(a) => a,
                        other => fail!(self.not_an_array("aload", other)),
                    };
                    let i = int!(i, "aload");
                    let arr = self.heap.array(a);
                    match usize::try_from(i).ok().and_then(|i| arr.get(i)) {
                        Some(v) => push!(*v),
                        None => fail!(RuntimeError::IndexOutOfBounds {
                            index: i,
                            len: arr.len()
                        }),
                    }
                }
                Instr::AStore => {
                    let v = pop!();
                    let i = pop!();
                    let a = pop!();
                    let a = match a {
                        Value::Arr(a) => a,
                        other => fail!(self.not_an_array("astore", other)),
                    };
                    let i = int!(i, "astore");
                    let arr = self.heap.array_mut(a);
                    let len = arr.len();
                    match usize::try_from(i).ok().and_then(|i| arr.get_mut(i)) {
                        Some(slot) => *slot = v,
                        None => fail!(RuntimeError::IndexOutOfBounds { index: i, len }),
                    }
                }
                Instr::ALen => {
                    let a = pop!();
                    match a {
                        Value::Arr(a) => push!(Value::Int(self.heap.array(a).len() as i64)),
                        other => fail!(self.not_an_array("alen", other)),
                    }
                }
                Instr::Print => {
                    let v = pop!();
                    let text = display(prog, &self.heap, v);
                    self.vm.output.line(&text);
                }
                Instr::Throw => {
                    let v = pop!();
                    sync!();
                    self.pc = cur_pc!();
                    if let Err(exit) = self.unwind::<M>(v) {
                        return exit;
                    }
                    reload!();
                }
                Instr::Spawn(m) => {
                    let n = prog.bodies[m as usize].nparams as usize;
                    sync!();
                    self.sp -= n;
                    let args = &self.stack[self.sp..self.sp + n];
                    if let Some(bad) = args.iter().find(|v| !v.is_shareable()) {
                        let value = display(prog, &self.heap, *bad);
                        fail!(RuntimeError::CrossThread {
                            what: "spawn argument",
                            value
                        });
                    }
                    let shared: Vec<SharedValue> = args.iter().map(|v| to_shared(*v, "")).collect();
                    let id = self.vm.spawn(m, shared);
                    resync!();
                    push!(Value::Int(i64::from(id)));
                }
                Instr::Join => {
                    let t = pop!();
                    let t = int!(t, "join");
                    sync!();
                    self.pc = cur_pc!();
                    match self.join(t) {
                        Ok(JoinOutcome::Value(v)) => {
                            resync!();
                            push!(v);
                        }
                        Ok(JoinOutcome::Rethrow(v)) => {
                            if let Err(exit) = self.unwind::<M>(v) {
                                return exit;
                            }
                            reload!();
                        }
                        Err(exit) => return exit,
                    }
                }
                Instr::Sleep => {
                    let ms = pop!();
                    let ms = int!(ms, "sleep");
                    sync!();
                    if self.sleep(ms) {
                        return Exit::Stopped;
                    }
                    resync!();
                }
                Instr::Halt => {
                    let c = pop!();
                    let c = int!(c, "halt");
                    sync!();
                    return Exit::Halt((c & 255) as i32);
                }
                Instr::Nop => {}
            }
        }
    }

    /// Calls `f` on the listener, if any, with a view of the thread.
    fn notify<R: Default>(
        &mut self,
        f: impl FnOnce(&mut dyn ThreadListener, &mut ThreadCtx<'_>) -> R,
    ) -> R {
        let Some(mut l) = self.listener.take() else {
            return R::default();
        };
        let r = {
            let mut ctx = ThreadCtx {
                program: self.prog,
                thread: self.shared,
                frames: &mut self.frames,
                pc: self.pc,
                instructions: self.instructions,
                cycles: self.cycles,
                control_base: &mut self.control_base,
            };
            f(&mut *l, &mut ctx)
        };
        self.listener = Some(l);
        r
    }

    /// The slow path of a yieldpoint: serve the VM's requests, then give the
    /// listener its turn, then restore the control word.
    #[cold]
    #[inline(never)]
    fn yieldpoint_taken<M: Mode>(&mut self, kind: YieldKind) -> Option<Exit> {
        let mut req = self.shared.requests.swap(0, Ordering::SeqCst);
        if M::COUNT && self.cycles >= self.next_tick {
            req |= request::TICK;
            // Ticks that fell between two yieldpoints coalesce, as timer
            // interrupts setting one flag do.
            let behind = self.cycles - self.next_tick;
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
        if req & request::SAFEPOINT != 0 {
            if let Arrival::Park { self_walk } = self.vm.safepoint_arrive(self.shared) {
                if self_walk {
                    self.notify(|l, t| l.safepoint(t));
                }
                self.park(ThreadState::Parked);
                self.unpark();
            }
        }
        let profiler_bits = req & !request::VM_MASK;
        if self.listener.is_some() {
            self.notify(|l, t| l.yieldpoint(t, kind, profiler_bits));
        }
        self.shared
            .control
            .store(self.control_base, Ordering::SeqCst);
        if self.shared.requests.load(Ordering::SeqCst) != 0 {
            self.shared.control.store(1, Ordering::SeqCst);
        }
        None
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
        }
    }

    /// Publishes this thread's state and enters `state` (parked at a
    /// yieldpoint, or blocked in `sleep`/`join`): from now on a safepoint
    /// may inspect it. Must be followed by [`Interp::unpark`] before the
    /// thread touches its frames again.
    fn park(&mut self, state: ThreadState) {
        let view = self.view();
        {
            let mut slot = self.shared.park.lock();
            slot.view = Some(view);
            self.shared.set_state(state);
        }
        self.vm.safepoints.notify();
    }

    /// Leaves a parked or blocked state, first waiting while a safepoint
    /// holds this thread.
    fn unpark(&mut self) {
        let mut slot = self.shared.park.lock();
        if slot.held {
            let start = std::time::Instant::now();
            while slot.held {
                self.shared.park_cv.wait(&mut slot);
            }
            self.vm
                .safepoints
                .parked_ns
                .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
        slot.view = None;
        self.shared.set_state(ThreadState::Running);
    }

    /// Collects this thread's heap; the value stack is the root set.
    fn collect_garbage(&mut self) {
        self.heap.collect([&self.stack[..self.sp]]);
    }

    /// Returns through a trampoline word: the listener captures what it
    /// wants and gives back the real word.
    #[cold]
    fn through_trampoline(&mut self, word: ReturnWord, unwinding: bool) -> ReturnWord {
        let real = self.notify(|l, t| Some(l.trampoline(t, word, unwinding)));
        real.expect("a trampoline word implies a listener")
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
        let mut trace = Vec::new();
        loop {
            let frame = *self.frames.last().expect("a frame");
            let body = &self.prog.bodies[frame.body as usize];
            let pc = self.pc;
            if let Some(c) = body.catches.iter().find(|c| c.from <= pc && pc < c.to) {
                // The handler starts with just the thrown value on the stack
                // (there is room: the verifier counted it in max_stack).
                self.sp = frame.base as usize + body.nlocals as usize;
                self.stack[self.sp] = v;
                self.sp += 1;
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
            self.sp = frame.base as usize;
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

    /// The current stack as trace entries, innermost first.
    pub(crate) fn trace(&self) -> Vec<TraceEntry> {
        let mut out = Vec::with_capacity(self.frames.len());
        let mut pc = self.pc;
        for (i, f) in self.frames.iter().enumerate().rev() {
            let body = &self.prog.bodies[f.body as usize];
            out.push(TraceEntry {
                method: body.name.clone(),
                line: body.line_at(pc),
            });
            if i > 0 {
                pc = self.resolve(f.ret).pc().wrapping_sub(1);
            }
        }
        out
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

    fn wrong_class(&self, op: &str, c: u32, slot: u32, r: u32) -> RuntimeError {
        let class = &self.prog.module.classes[c as usize];
        RuntimeError::WrongClass {
            op: format!("{op} {}.{}", class.name, class.fields[slot as usize]),
            found: self.prog.classes[self.heap.class_of(r) as usize]
                .name
                .clone(),
        }
    }

    /// How `print` writes a value.
    pub(crate) fn display(&self, v: Value) -> String {
        match v {
            Value::Int(i) => i.to_string(),
            Value::Null => "null".to_string(),
            Value::Str(s) => self.prog.string(s).to_string(),
            Value::Obj(r) => format!(
                "<{}>",
                self.prog.classes[self.heap.class_of(r) as usize].name
            ),
            Value::Arr(r) => format!("<array {}>", self.heap.array(r).len()),
        }
    }

    /// A value leaving this thread (result or uncaught exception).
    pub(crate) fn share(&self, v: Value) -> SharedValue {
        to_shared(v, &self.display(v))
    }

    /// Waits in `sleep`; returns true if the program is stopping.
    fn sleep(&mut self, ms: i64) -> bool {
        let deadline =
            std::time::Instant::now() + std::time::Duration::from_millis(ms.max(0) as u64);
        self.shared.set_state(ThreadState::Sleeping);
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
}

enum JoinOutcome {
    Value(Value),
    Rethrow(Value),
}

/// How `print` writes `v`.
fn display(prog: &Program, heap: &Heap, v: Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Null => "null".to_string(),
        Value::Str(s) => prog.string(s).to_string(),
        Value::Obj(r) => format!("<{}>", prog.classes[heap.class_of(r) as usize].name),
        Value::Arr(r) => format!("<array {}>", heap.array(r).len()),
    }
}

fn to_shared(v: Value, text: &str) -> SharedValue {
    match v {
        Value::Int(i) => SharedValue::Int(i),
        Value::Str(s) => SharedValue::Str(s),
        Value::Null => SharedValue::Null,
        Value::Obj(_) | Value::Arr(_) => SharedValue::Unshareable(text.to_string()),
    }
}
