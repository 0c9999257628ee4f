//! The running VM: globals, threads, output, and how a program ends.
//!
//! [`Vm::run`] starts `main` on a managed thread and waits, on the calling
//! thread, until the program ends: when `main` has returned and every thread
//! has finished, or when something stops it (a runtime error in any thread,
//! or `halt`). Stopping closes the output, asks every thread to stop at its
//! next yieldpoint and wakes those blocked in `sleep` or `join`; a thread
//! that never reaches a yieldpoint (a loop loaded with `--no-yieldpoints`)
//! is abandoned after a grace period, so `run` always returns. A signal
//! or an output that cannot be written stops a program the same way, from
//! outside ([`crate::interrupt`]).
//!
//! The `Vm` is the top of the VM core (see the crate docs): it owns the
//! thread registry, the safepoint state and the rest, and wires them
//! together. Every `impl Vm` is in this file; the safepoint protocol
//! ([`Vm::safepoint`]) and code installation ([`Vm::install`]) are thin
//! calls into [`crate::safepoint`] and [`crate::install`], and each
//! interpreter gets a `VmContext` rather than the `Vm`.

use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::bodycount::BodyCount;
use crate::context::{Runtime, VmContext};
use crate::error::{format_trace, RuntimeError, ThreadRefusal};
use crate::hooks::{ExecMode, Hooks, NoHooks, ThreadCtx, ThreadListener};
use crate::install::InstallError;
use crate::interp::{Counting, Exhaustive, Exit, Interp, Plain};
use crate::interrupt::Interruption;
use crate::loader::{Body, Program};
use crate::memory::MemoryBudget;
use crate::module::{GlobalId, MethodId};
use crate::output::{Output, FLUSH_PERIOD};
use crate::safepoint::{SafepointState, SafepointStats, Selection, Walkers};
use crate::schedule::{Machine, Scheduler};
use crate::stdio;
use crate::thread::{request, SharedValue, ThreadRegistry, ThreadResult, ThreadShared};
use crate::value::Value;

/// Exit status of a runtime error or an uncaught exception in `main`'s thread.
pub const STATUS_RUNTIME_ERROR: i32 = 70;

/// Exit status of a run one of whose VM threads panicked (a bug of the VM
/// or of a profiler): Rust's own status for a panic.
pub const STATUS_INTERNAL_ERROR: i32 = 101;

/// Default of [`VmOptions::max_threads`] (`--max-threads`).
pub const DEFAULT_MAX_THREADS: usize = 4096;

/// How long a stopping program waits for its threads to reach a yieldpoint.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// Options of a run.
pub struct VmOptions {
    /// Frame limit per thread (`--max-frames`; `main` counts as one).
    pub max_frames: usize,
    /// Limit of threads running at once (`--max-threads`; `main` counts
    /// as one).
    pub max_threads: usize,
    /// Limit of the bytes held by all threads' heaps and frames
    /// (`--max-heap`); see [`crate::memory`].
    pub max_heap: usize,
    /// Where `print` writes.
    pub output: Output,
    /// The profiler's hooks.
    pub hooks: Arc<dyn Hooks>,
    /// Initial values of globals (`--set`).
    pub globals: Vec<(GlobalId, i64)>,
    /// Count instructions and cost-model cycles even if the hooks do not
    /// ask for it (`--cycles`); [`RunOutcome::cycles`] then has them.
    pub count: bool,
    /// Run on a simulated machine in virtual time (`--clock=virtual
    /// --cores=N`): one thread at a time, deterministically (see
    /// [`crate::schedule`]). Implies [`VmOptions::count`].
    pub machine: Option<Machine>,
}

impl Default for VmOptions {
    fn default() -> Self {
        VmOptions {
            max_frames: 100_000,
            max_threads: DEFAULT_MAX_THREADS,
            max_heap: crate::memory::default_limit(),
            output: Output::stdout(),
            hooks: Arc::new(NoHooks),
            globals: Vec::new(),
            count: false,
            machine: None,
        }
    }
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RunOutcome {
    /// The process exit status docs/LANGUAGE.md prescribes.
    pub status: i32,
    /// Threads that ran (main included).
    pub threads: usize,
    /// Garbage collections, summed over threads.
    pub collections: u64,
    /// Wall-clock time of the run: the program's own, from its first
    /// thread's first instruction to its last thread's end (not the VM's
    /// start, the threads' creation, or the wait for the end to be seen,
    /// which on a busy machine can take far longer than a short program).
    pub wall_ns: u64,
    /// Cost-model cycles and source instructions executed, summed over the
    /// threads that ended, when the run counted them (a profile that counts,
    /// or [`VmOptions::count`]); `None` for a plain run, which pays nothing
    /// for counting.
    pub cycles: Option<Counted>,
    /// On a simulated machine ([`VmOptions::machine`]), the run's length in
    /// virtual time (cycles, 1 cycle = 1 ns): when the last thread ended.
    pub virtual_ns: Option<u64>,
    /// Why the program was stopped from outside before its end (a signal,
    /// an output that cannot be written: [`crate::interrupt`]); `None` if
    /// it ended on its own. `status` is then the interruption's.
    pub interrupted: Option<Interruption>,
}

/// What a counting run executed (see [`RunOutcome::cycles`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counted {
    /// Cost-model cycles (`crate::opcode::Opcode::cost`, yieldpoints
    /// included).
    pub cycles: u64,
    /// Source instructions (yieldpoints not included).
    pub instructions: u64,
}

/// A loaded program and its running state.
pub struct Vm {
    /// The program.
    pub program: Program,
    /// Frame limit per thread.
    pub max_frames: usize,
    /// Limit of threads running at once.
    pub max_threads: usize,
    /// Threads started and not yet ended.
    running: AtomicUsize,
    /// The memory budget every thread's heap and frames take from.
    pub memory: Arc<MemoryBudget>,
    /// Global integers.
    pub globals: Box<[AtomicI64]>,
    /// Every thread that ever started.
    pub threads: ThreadRegistry,
    /// Program output.
    pub output: Output,
    /// The profiler's hooks.
    pub hooks: Arc<dyn Hooks>,
    pub(crate) safepoints: SafepointState,
    collections: AtomicU64,
    /// The interpreter variant every thread runs.
    mode: ExecMode,
    instructions: AtomicU64,
    cycles: AtomicU64,
    /// Per body id, what the ended threads' invocations spent (counting
    /// modes only).
    body_counts: Mutex<Vec<BodyCount>>,
    stopping: Mutex<Option<i32>>,
    /// Why the program was stopped from outside, if it was (set by the
    /// waiting thread, which alone reads it).
    interrupted: Mutex<Option<Interruption>>,
    file: String,
    /// When `run` started the program.
    started_at: std::sync::OnceLock<Instant>,
    /// When the program's first instruction ran, and when its last thread
    /// ended (the span of `RunOutcome::wall_ns`).
    program_span: Mutex<(Option<Instant>, Option<Instant>)>,
    /// The simulated machine's scheduler, if any.
    pub(crate) sched: Option<Scheduler>,
}

impl Vm {
    /// When `run` started the program (`None` before `run`): before its
    /// first thread is created.
    pub fn started_at(&self) -> Option<Instant> {
        self.started_at.get().copied()
    }

    /// A VM ready to run `program`.
    pub fn new(program: Program, options: VmOptions) -> Arc<Vm> {
        let globals: Box<[AtomicI64]> = (0..program.module.globals.len())
            .map(|_| AtomicI64::new(0))
            .collect();
        for (g, v) in options.globals {
            globals[g as usize].store(v, Ordering::SeqCst);
        }
        let file = program.module.file.clone();
        let mut mode = options.hooks.exec_mode();
        mode.count |= options.count || options.machine.is_some();
        Arc::new(Vm {
            program,
            max_frames: options.max_frames.max(1),
            max_threads: options.max_threads.max(1),
            running: AtomicUsize::new(0),
            memory: Arc::new(MemoryBudget::new(options.max_heap)),
            globals,
            threads: ThreadRegistry::default(),
            output: options.output,
            hooks: options.hooks,
            safepoints: SafepointState::default(),
            collections: AtomicU64::new(0),
            mode,
            instructions: AtomicU64::new(0),
            cycles: AtomicU64::new(0),
            body_counts: Mutex::new(Vec::new()),
            stopping: Mutex::new(None),
            interrupted: Mutex::new(None),
            file,
            started_at: std::sync::OnceLock::new(),
            program_span: Mutex::new((None, None)),
            sched: options.machine.map(Scheduler::new),
        })
    }

    /// Runs the program to its end and returns its exit status.
    pub fn run(self: &Arc<Self>) -> RunOutcome {
        let started = *self.started_at.get_or_init(Instant::now);
        let main = match self.start_thread(self.program.module.main, Vec::new(), None) {
            Ok(main) => main,
            Err(e) => {
                // Not even `main` could start: the program never ran.
                stdio::eprintln(&format!("runtime error: {e}"));
                self.stop(STATUS_RUNTIME_ERROR);
                self.hooks.program_ending(STATUS_RUNTIME_ERROR);
                return RunOutcome {
                    status: STATUS_RUNTIME_ERROR,
                    threads: 0,
                    collections: 0,
                    wall_ns: 0,
                    cycles: None,
                    virtual_ns: self.sched.as_ref().map(|_| 0),
                    interrupted: None,
                };
            }
        };
        let mut stop_seen: Option<Instant> = None;
        let mut refusal_seen: Option<Instant> = None;
        loop {
            if self.threads.all_finished() {
                break;
            }
            self.check_system_refusal(&mut refusal_seen);
            self.check_interrupt();
            if self.is_stopping() {
                let since = *stop_seen.get_or_insert_with(Instant::now);
                if since.elapsed() > STOP_GRACE {
                    break;
                }
            }
            self.threads.wait_change(FLUSH_PERIOD);
            self.output.flush();
        }
        let status = match *self.stopping.lock() {
            Some(s) => s,
            None => match main.result() {
                Some(ThreadResult::Threw(_)) => STATUS_RUNTIME_ERROR,
                _ => 0,
            },
        };
        let wall_ns = self.program_ns(started);
        self.output.close();
        self.hooks.program_ending(status);
        RunOutcome {
            status,
            threads: self.threads.count(),
            collections: self.collections.load(Ordering::Relaxed),
            wall_ns,
            cycles: self.counted(),
            virtual_ns: self.sched.as_ref().map(Scheduler::makespan),
            interrupted: *self.interrupted.lock(),
        }
    }

    /// The waiting thread's look at [`crate::interrupt::pending`]: a
    /// signal, or an output that cannot be written, stops the program as
    /// `halt` would, with the interruption's status, unless it is already
    /// stopping.
    fn check_interrupt(&self) {
        if let Some(why) = crate::interrupt::pending() {
            if self.stop(why.status()) {
                *self.interrupted.lock() = Some(why);
            }
        }
    }

    /// The program's wall time (`RunOutcome::wall_ns`): from its first
    /// instruction to its last thread's end, or to now if a thread is still
    /// stuck (a stopped run gives up waiting for it); from `started` if no
    /// thread ran.
    fn program_ns(&self, started: Instant) -> u64 {
        let (first, last) = *self.program_span.lock();
        let from = first.unwrap_or(started);
        let to = match last {
            Some(last) if self.threads.all_finished() => last,
            _ => Instant::now(),
        };
        to.saturating_duration_since(from).as_nanos() as u64
    }

    /// Cycles and instructions the threads that ended executed, if the run
    /// counts them (else `None`, and a plain run pays nothing for it).
    pub fn counted(&self) -> Option<Counted> {
        self.mode.count.then(|| Counted {
            cycles: self.cycles.load(Ordering::Relaxed),
            instructions: self.instructions.load(Ordering::Relaxed),
        })
    }

    /// Per body id (see [`crate::install`]: `method` for the code loaded
    /// at start, `methods + method` for the code installed later), the
    /// invocations the threads that ended ran in it and the cycles they
    /// spent, callees included ([`crate::bodycount`]). `None` if the run
    /// does not count cycles.
    pub fn body_counts(&self) -> Option<Vec<BodyCount>> {
        self.mode.count.then(|| {
            let mut counts = self.body_counts.lock().clone();
            counts.resize(2 * self.program.bodies.len(), BodyCount::default());
            counts
        })
    }

    /// The waiting thread's periodic look at [`crate::memory`]: once the
    /// system has refused memory, every thread is asked to take its next
    /// yieldpoint, where it stops with the runtime error and its trace. A
    /// program none of whose threads reaches one in [`STOP_GRACE`] (all
    /// blocked, or loaded without yieldpoints and not allocating) is
    /// stopped here, with the error and no trace.
    fn check_system_refusal(&self, seen: &mut Option<Instant>) {
        let Some(bytes) = crate::memory::system_refusal() else {
            return;
        };
        if self.is_stopping() {
            return;
        }
        match seen {
            None => {
                *seen = Some(Instant::now());
                for t in self.threads.all() {
                    t.request(request::MEMORY);
                }
            }
            Some(since) if since.elapsed() > STOP_GRACE => {
                if self.stop(STATUS_RUNTIME_ERROR) {
                    let e = RuntimeError::SystemOutOfMemory {
                        bytes,
                        limit: self.memory.limit(),
                    };
                    stdio::eprintln(&format!("runtime error: {e}"));
                }
            }
            Some(_) => {}
        }
    }

    /// Is the program stopping (runtime error or `halt`)?
    pub fn is_stopping(&self) -> bool {
        self.stopping.lock().is_some()
    }

    /// Stops the program with `status` (the first request wins): closes the
    /// output, asks every thread to stop at its next yieldpoint and wakes
    /// blocked ones. True for the request that won, which is the one that
    /// reports why the program stopped: a storm of failing threads prints
    /// one error, not one per thread.
    pub fn stop(&self, status: i32) -> bool {
        {
            let mut s = self.stopping.lock();
            if s.is_some() {
                return false;
            }
            *s = Some(status);
        }
        self.output.close();
        for t in self.threads.all() {
            t.request(request::STOP);
            t.wake_up();
        }
        if let Some(s) = &self.sched {
            s.stop();
        }
        self.threads.notify_change();
        true
    }

    /// Starts a thread running `method` with `args`; returns it, or why it
    /// could not start (`--max-threads`, or the OS refusing). `spawner` is
    /// the spawning thread's id and cycle count (its virtual time on a
    /// simulated machine); `None` for `main`.
    fn start_thread(
        self: &Arc<Self>,
        method: MethodId,
        args: Vec<SharedValue>,
        spawner: Option<(u32, u64)>,
    ) -> Result<Arc<ThreadShared>, RuntimeError> {
        let running = self.running.fetch_add(1, Ordering::SeqCst);
        let refuse = |why| {
            self.running.fetch_sub(1, Ordering::SeqCst);
            let id = self.threads.count() as u32;
            Err(RuntimeError::CannotStartThread { id, why })
        };
        if running >= self.max_threads {
            return refuse(ThreadRefusal::Limit(running));
        }
        let shared = self.threads.register(method);
        if let Some(s) = &self.sched {
            s.register(shared.id, spawner);
        }
        if self.is_stopping() {
            shared.request(request::STOP);
        }
        let vm = self.clone();
        let t = shared.clone();
        // Under `ulimit -v`, a thread the OS would refuse only once started
        // is refused here instead (see `memory::address_space`).
        let spawned = crate::memory::address_space::room_for_a_thread()
            && std::thread::Builder::new()
                .name(format!("vm-thread-{}", shared.id))
                .spawn(move || vm.thread_main(&t, method, args))
                .is_ok();
        if !spawned {
            shared.finish(ThreadResult::Stopped);
            if let Some(s) = &self.sched {
                s.never_started(shared.id);
            }
            self.threads.notify_change();
            self.running.fetch_sub(1, Ordering::SeqCst);
            return Err(RuntimeError::CannotStartThread {
                id: shared.id,
                why: ThreadRefusal::Os,
            });
        }
        self.threads.notify_change();
        Ok(shared)
    }

    fn thread_main(
        self: &Arc<Self>,
        shared: &Arc<ThreadShared>,
        method: MethodId,
        args: Vec<SharedValue>,
    ) {
        // A panic below ends the thread as stopped and the run with
        // STATUS_INTERNAL_ERROR rather than leaving it waiting for this
        // thread (or, on a simulated machine, for its baton) forever.
        let _guard = PanicGuard { vm: self, shared };
        // On a simulated machine, nothing runs before the thread's first
        // slice (creating its listener included).
        let slice_end = self.sched.as_ref().map(|s| s.begin(shared.id));
        let listener = self.hooks.thread_started(shared, &self.program);
        let context = self.context();
        let mut it = Interp::new(&context, shared, listener);
        if let Some(end) = slice_end {
            it.set_slice_end(end);
        }
        let args: Vec<Value> = args
            .into_iter()
            .map(|a| match a {
                SharedValue::Int(i) => Value::Int(i),
                SharedValue::Str(s) => Value::Str(s),
                SharedValue::Null | SharedValue::Unshareable(_) => Value::Null,
            })
            .collect();
        it.enter(method, &args);
        self.program_span.lock().0.get_or_insert_with(Instant::now);
        let mode = self.mode;
        let exit = if mode.trace_calls {
            it.run::<Exhaustive>()
        } else if mode.count {
            it.run::<Counting>()
        } else {
            it.run::<Plain>()
        };
        let result = match exit {
            Exit::Returned(v) => ThreadResult::Returned(it.share(v)),
            Exit::Threw(v, trace) => {
                stdio::eprint(&format!(
                    "uncaught exception: {}\n{}",
                    it.display(v),
                    format_trace(&self.file, &trace)
                ));
                ThreadResult::Threw(it.share(v))
            }
            Exit::Error(e, trace) => {
                if self.stop(STATUS_RUNTIME_ERROR) {
                    stdio::eprint(&format!(
                        "runtime error: {e}\n{}",
                        format_trace(&self.file, &trace)
                    ));
                }
                ThreadResult::Stopped
            }
            Exit::Halt(code) => {
                self.stop(code);
                ThreadResult::Stopped
            }
            Exit::Stopped => ThreadResult::Stopped,
        };
        it.end();
        self.collections
            .fetch_add(it.collections(), Ordering::Relaxed);
        let (instructions, cycles) = it.counted();
        let time = it.now();
        if mode.count {
            self.instructions.fetch_add(instructions, Ordering::Relaxed);
            self.cycles.fetch_add(cycles, Ordering::Relaxed);
            it.body_counters().add_to(&mut self.body_counts.lock());
        }
        drop(it);
        let now = Instant::now();
        let mut span = self.program_span.lock();
        span.1 = Some(span.1.map_or(now, |last| last.max(now)));
        drop(span);
        self.output.flush();
        self.running.fetch_sub(1, Ordering::SeqCst);
        shared.finish(result);
        // The result is out before the baton passes: a joiner given the
        // next slice finds it.
        if let Some(s) = &self.sched {
            s.finish(shared.id, time);
        }
        self.safepoints.notify();
        self.threads.notify_change();
    }

    /// What an interpreter of this VM may use of it.
    fn context(self: &Arc<Self>) -> VmContext<'_> {
        VmContext {
            program: &self.program,
            max_frames: self.max_frames,
            virtual_tick: self.mode.virtual_tick,
            tick_seed: self.mode.tick_seed,
            memory: &self.memory,
            globals: &self.globals,
            output: &self.output,
            threads: &self.threads,
            safepoints: &self.safepoints,
            sched: self.sched.as_ref(),
            runtime: self,
        }
    }

    /// Brings the selected threads to a safe state, runs `visit` on each
    /// held thread (on this thread), then releases them (see
    /// [`crate::safepoint`]).
    ///
    /// Threads that never reach a yieldpoint (code loaded without
    /// yieldpoints) cannot be stopped; after
    /// [`crate::safepoint::SAFEPOINT_TIMEOUT`] the safepoint goes ahead
    /// with the threads it has (`stats.timed_out`).
    pub fn safepoint(
        &self,
        selection: Selection,
        walkers: Walkers,
        visit: impl FnMut(&ThreadShared, &mut ThreadCtx<'_>, Option<&mut dyn ThreadListener>),
    ) -> SafepointStats {
        self.safepoint_including(selection, &[], walkers, visit)
    }

    /// [`Vm::safepoint`], also holding the threads `blocked` names if they
    /// are blocked in `sleep` or `join` when the safepoint looks at them (a
    /// partial safepoint that samples waiting threads too, Hofer et al.
    /// 2015, section 3.1). A named thread found running is treated like any
    /// other running thread.
    pub fn safepoint_including(
        &self,
        selection: Selection,
        blocked: &[u32],
        walkers: Walkers,
        visit: impl FnMut(&ThreadShared, &mut ThreadCtx<'_>, Option<&mut dyn ThreadListener>),
    ) -> SafepointStats {
        self.safepoints.run(
            &self.threads,
            &self.program,
            selection,
            blocked,
            walkers,
            visit,
        )
    }

    /// A VM thread is unwinding from a panic (a VM or profiler bug, whose
    /// message the panic hook has printed): stops the program with
    /// [`STATUS_INTERNAL_ERROR`] and ends the thread as stopped, releasing
    /// its simulated core, so that the run ends instead of hanging.
    fn thread_panicked(&self, shared: &ThreadShared) {
        if self.stop(STATUS_INTERNAL_ERROR) {
            stdio::eprintln(&format!(
                "vm: internal error: thread {} panicked (a bug of the VM or its profiler)",
                shared.id
            ));
        }
        self.output.flush();
        if shared.result().is_none() {
            self.running.fetch_sub(1, Ordering::SeqCst);
            shared.finish(ThreadResult::Stopped);
        }
        if let Some(s) = &self.sched {
            s.abandon(shared.id);
        }
        self.safepoints.notify();
        self.threads.notify_change();
    }

    /// On a simulated machine, runs the many-thread sampler `sampling`
    /// in virtual time ([`crate::simsample`]); call before [`Vm::run`].
    /// Returns false (and does nothing) without a simulated machine.
    pub fn simulate_sampling(&self, sampling: crate::simsample::Sampling) -> bool {
        match &self.sched {
            Some(s) => {
                s.set_sampling(sampling);
                true
            }
            None => false,
        }
    }

    /// What the simulated sampler did, if one runs.
    pub fn simulated_sampling(&self) -> Option<crate::simsample::SimTotals> {
        self.sched.as_ref().and_then(Scheduler::sampling_totals)
    }

    /// Total time threads have spent parked at safepoints, summed over
    /// threads.
    pub fn parked_ns(&self) -> u64 {
        self.safepoints.parked_ns.load(Ordering::Relaxed)
    }

    /// Installs `body` (from [`Program::recompiled_body`]) as the code new
    /// invocations of its method run, in every thread, from each thread's
    /// next yieldpoint on (see [`crate::install`]). Safe while threads run:
    /// nothing already running changes code.
    pub fn install(&self, body: Body) -> Result<(), InstallError> {
        self.program.install(body)?;
        for t in self.threads.all() {
            t.request(request::CODE);
        }
        Ok(())
    }
}

/// The runtime's services to its interpreters ([`VmContext::runtime`]).
impl Runtime for Arc<Vm> {
    fn spawn(
        &self,
        method: MethodId,
        args: Vec<SharedValue>,
        spawner: (u32, u64),
    ) -> Result<u32, RuntimeError> {
        self.start_thread(method, args, Some(spawner)).map(|t| t.id)
    }

    fn is_stopping(&self) -> bool {
        Vm::is_stopping(self)
    }
}

/// Calls [`Vm::thread_panicked`] if its VM thread unwinds from a panic.
struct PanicGuard<'a> {
    vm: &'a Vm,
    shared: &'a ThreadShared,
}

impl Drop for PanicGuard<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.vm.thread_panicked(self.shared);
        }
    }
}
