//! Exhaustive profiling: the exact profile every sampled one is scored
//! against (Arnold & Grove 2005, section 3.1, "exhaustive instrumentation").
//!
//! The VM runs its call-tracing interpreter variant and calls
//! [`ExhaustiveListener::called`] and [`ExhaustiveListener::returning`] on
//! every call and return (exceptions unwinding included). The listener
//! counts, on its own thread and without any synchronisation, every call
//! edge, every method's calls and the source instructions executed with
//! each method (and, with `--record=cct`, each calling context) on top. At
//! thread end the counts go to the organizer, which sums the threads.
//!
//! It also keeps each method's time in the cost model's cycles: its self
//! cycles (with the method on top) and its total cycles (with the method
//! anywhere on the stack, a recursive method's outermost activation only),
//! the time reference the `causality` experiment compares profiles with,
//! and with `--record=cct` each calling context's cycles on top (a
//! context's time is the sum over its subtree).
//!
//! The records that grow with the run, the calling context tree (a node
//! per context: a binary recursion of depth 26 makes a hundred million)
//! and the stack of open activations (an entry per frame), are counted in
//! the run's memory budget (`--max-heap`): when the budget cannot hold
//! the next doubling of either, the program stops with the runtime error
//! `out of memory`, its trace, and the profile of what ran written.

use vm::hooks::{ThreadCtx, ThreadListener};
use vm::instr::YieldKind;
use vm::memory::{fallibly, Charge};
use vm::profiler_cost::CostItem;

use crate::dcg::EdgeWeightMap;
use crate::records::cct::{CallingContextTree, NO_LINE};
use crate::samples::{SampleSink, ThreadSummary};
use crate::stack::{call_site_line, method_of};

/// One thread's exact counts.
#[derive(Debug, Default)]
pub struct ExactThreadProfile {
    /// Calls per (caller, call-site line, callee).
    pub edges: EdgeWeightMap,
    /// Source instructions executed with each method on top.
    pub self_instructions: Vec<u64>,
    /// Cycles (the cost model's) with each method on top.
    pub self_cycles: Vec<u64>,
    /// Cycles with each method anywhere on the stack.
    pub total_cycles: Vec<u64>,
    /// Calls into each method (a thread's entry counts as one call).
    pub calls: Vec<u64>,
    /// The exact calling context tree, when asked for.
    pub cct: Option<CallingContextTree>,
    /// Calls traced.
    pub traced: u64,
}

/// The exhaustive profile's agent on one thread.
pub struct ExhaustiveListener {
    exact: Box<ExactThreadProfile>,
    sink: SampleSink,
    /// The context on top of the stack (when building the CCT).
    context: u32,
    /// Instructions already attributed.
    attributed: u64,
    /// Cycles already attributed.
    attributed_cycles: u64,
    /// The open activations: method and the cycle count at its entry.
    open: Vec<(u32, u64)>,
    /// Per method, its activations now on the stack.
    active: Vec<u32>,
    /// What `open` holds of the memory budget (made at the first call).
    open_charge: Option<Charge>,
}

/// Entries a record starts with when it first grows.
const FIRST_ENTRIES: usize = 1024;

/// Makes room for one more context in `cct`, charged to the memory budget
/// (the arena doubles): false if the budget or the system refused, and
/// the VM stops the run (see [`ThreadCtx::take_memory`]).
fn room_for_a_context(cct: &mut CallingContextTree, t: &mut ThreadCtx<'_>) -> bool {
    if !cct.is_full() {
        return true;
    }
    let more = cct.len().max(FIRST_ENTRIES);
    let bytes = more * cct.node_bytes();
    let charge = cct.charge_mut().get_or_insert_with(|| t.new_charge());
    if !t.take_memory(charge, bytes) {
        return false;
    }
    if fallibly(|| cct.try_grow(more)).is_err() {
        t.system_refused(bytes);
        return false;
    }
    true
}

/// Makes room for one more entry in `v`, charged to `charge` (made on
/// first use) likewise.
fn room_for_one<T>(v: &mut Vec<T>, charge: &mut Option<Charge>, t: &mut ThreadCtx<'_>) -> bool {
    if v.len() < v.capacity() {
        return true;
    }
    let more = v.len().max(FIRST_ENTRIES);
    let bytes = more * std::mem::size_of::<T>();
    let charge = charge.get_or_insert_with(|| t.new_charge());
    if !t.take_memory(charge, bytes) {
        return false;
    }
    if fallibly(|| v.try_reserve_exact(more)).is_err() {
        t.system_refused(bytes);
        return false;
    }
    true
}

impl ExhaustiveListener {
    /// A listener for a program of `methods` methods.
    pub fn new(methods: usize, build_cct: bool, sink: SampleSink) -> ExhaustiveListener {
        ExhaustiveListener {
            exact: Box::new(ExactThreadProfile {
                self_instructions: vec![0; methods],
                self_cycles: vec![0; methods],
                total_cycles: vec![0; methods],
                calls: vec![0; methods],
                cct: build_cct.then(|| CallingContextTree::new().keeping_cycles()),
                ..Default::default()
            }),
            sink,
            context: CallingContextTree::ROOT,
            attributed: 0,
            attributed_cycles: 0,
            open: Vec::new(),
            active: vec![0; methods],
            open_charge: None,
        }
    }

    /// Gives the instructions executed since the last event to the frame
    /// (and context) that was on top meanwhile.
    fn attribute(&mut self, t: &ThreadCtx<'_>, top: Option<u32>) {
        let delta = t.instructions - self.attributed;
        self.attributed = t.instructions;
        let cycles = t.cycles - self.attributed_cycles;
        self.attributed_cycles = t.cycles;
        if delta == 0 && cycles == 0 {
            return;
        }
        if let Some(top) = top {
            self.exact.self_instructions[top as usize] += delta;
            self.exact.self_cycles[top as usize] += cycles;
        }
        if let Some(cct) = &mut self.exact.cct {
            cct.node_mut(self.context).self_ += delta;
            cct.add_cycles(self.context, cycles);
        }
    }
}

impl ExhaustiveListener {
    /// Ends the innermost open activation at cycle `now`: its time goes to
    /// its method's total unless an outer activation of it is still open.
    fn close(&mut self, now: u64) {
        if let Some((m, entered)) = self.open.pop() {
            let active = &mut self.active[m as usize];
            *active -= 1;
            if *active == 0 {
                self.exact.total_cycles[m as usize] += now - entered;
            }
        }
    }
}

impl ThreadListener for ExhaustiveListener {
    fn yieldpoint(&mut self, _t: &mut ThreadCtx<'_>, _kind: YieldKind, _requests: u32) {}

    fn called(&mut self, t: &mut ThreadCtx<'_>) {
        // The call instruction itself belongs to the caller.
        let n = t.frames.len();
        let callee_frame = t.frames[n - 1];
        let callee = method_of(t.program, &callee_frame);
        let caller_method = (n >= 2).then(|| method_of(t.program, &t.frames[n - 2]));
        self.attribute(t, caller_method);
        if !room_for_one(&mut self.open, &mut self.open_charge, t) {
            return; // the VM stops the run
        }
        self.open.push((callee, t.cycles));
        self.active[callee as usize] += 1;
        let line = if n >= 2 {
            let caller = &t.frames[n - 2];
            let line = call_site_line(t.program, caller, &callee_frame);
            *self
                .exact
                .edges
                .entry((method_of(t.program, caller), line, callee))
                .or_insert(0) += 1;
            line
        } else {
            NO_LINE
        };
        self.exact.calls[callee as usize] += 1;
        self.exact.traced += 1;
        t.charge(CostItem::ExactCall, 1);
        if let Some(cct) = &mut self.exact.cct {
            if !room_for_a_context(cct, t) {
                return; // the VM stops the run, the call not in the tree
            }
            t.work.charge(CostItem::ExactContext, 1);
            self.context = cct.child(self.context, callee, line);
            cct.node_mut(self.context).calls += 1;
        }
    }

    fn returning(&mut self, t: &mut ThreadCtx<'_>) {
        let top = t.frames.last().map(|f| method_of(t.program, f));
        self.attribute(t, top);
        self.close(t.cycles);
        if let Some(cct) = &self.exact.cct {
            self.context = cct.node(self.context).parent;
        }
    }

    fn thread_ending(&mut self, t: &mut ThreadCtx<'_>) {
        let top = t.frames.last().map(|f| method_of(t.program, f));
        self.attribute(t, top);
        while !self.open.is_empty() {
            self.close(t.cycles);
        }
        // Counting every instruction is what the exact self counts cost.
        t.charge(CostItem::ExactInstruction, t.instructions);
        let exact = std::mem::take(&mut self.exact);
        self.sink.taken = exact.traced;
        self.sink.finish(ThreadSummary {
            thread: t.thread.id,
            entry: t.thread.entry,
            instructions: t.instructions,
            cycles: t.cycles,
            time: t.cycles + t.work.cycles(),
            work: *t.work,
            samples: exact.traced,
            exact: Some(exact),
        });
    }
}
