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

use std::collections::HashMap;

use vm::hooks::{ThreadCtx, ThreadListener};
use vm::instr::YieldKind;
use vm::profiler_cost::CostItem;

use crate::records::cct::{CallingContextTree, NO_LINE};
use crate::samples::{SampleSink, ThreadSummary};
use crate::stack::{call_site_line, method_of};

/// One thread's exact counts.
#[derive(Debug, Default)]
pub struct ExactThreadProfile {
    /// Calls per (caller, call-site line, callee).
    pub edges: HashMap<(u32, u32, u32), u64>,
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
