//! Listeners: the profiler's agents on the application threads (Jikes RVM's
//! term). A listener is called at taken yieldpoints, looks at the top of
//! its thread's stack and appends raw [`Sample`]s to the thread's buffer;
//! it never touches a shared repository.
//!
//! - [`timer::TimerListener`]: the Jikes RVM baseline (Arnold & Grove 2005,
//!   section 3.3);
//! - [`cbs::CounterBasedListener`]: counter-based sampling, a burst of
//!   samples per tick separated by a stride (section 4, Figure 3);
//! - [`counter::MethodCounterListener`]: Arnold & Sweeney's sample every
//!   Nth call, without a timer.
//!
//! With `--record=cct`, every method and edge sample also walks the stack
//! ([`crate::walk`]) into the thread's own calling context tree, which
//! goes to the organizer when the thread ends; with `--record=pcct` into
//! the thread's partial calling context tree ([`crate::pcct`]), with
//! `--record=acct` into its approximate one ([`crate::acct`]). The ACCT
//! may replace return words by trampolines; every listener passes the
//! VM's trampoline callbacks on to it. With `--record=ccmap`, each
//! examination of the stack is walked once, at [`SampleRecorder::flush`],
//! into the thread's flat stack buffer ([`crate::walk::stacks`]), which
//! goes to the organizer's CC-Map when full.
//!
//! The exhaustive profile's listener is in [`crate::exact`].

pub mod cbs;
pub mod counter;
pub mod timer;

use crossbeam::channel::Receiver;
use vm::frame::ReturnWord;
use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;

use crate::acct::AcctRecorder;
use crate::config::Walk;
use crate::pcct::PcctRecorder;
use crate::samples::{Sample, SampleSink, StackBuffer, ThreadSummary};
use crate::stack::{edge, method_of};
use crate::walk::{stacks, ContextRecorder};

/// With `--record=ccmap`: the thread's walked stacks, on their way to the
/// organizer's CC-Map ([`crate::walk::stacks`]).
pub struct StackRecorder {
    /// How to walk.
    pub walk: Walk,
    /// Frames one walk may examine.
    pub max_walk: u32,
    /// The thread's flat buffer.
    pub buffer: StackBuffer,
    /// Recycled buffers.
    pub pool: Receiver<StackBuffer>,
}

/// What every sampling listener has: its thread's sample buffer, and with
/// `--record=cct`, `pcct` or `acct` its calling context tree, with
/// `--record=ccmap` its stack buffer.
pub struct SampleRecorder {
    /// The thread's end of the sample queue.
    pub sink: SampleSink,
    /// The thread's calling context tree and how to walk to it.
    pub contexts: Option<ContextRecorder>,
    /// `--record=pcct`: the thread's partial calling context tree.
    pub pcct: Option<PcctRecorder>,
    /// `--record=acct`: the thread's approximate calling context tree.
    pub acct: Option<AcctRecorder>,
    /// The thread's walked stacks for the CC-Map.
    pub stacks: Option<StackRecorder>,
    /// Does a walk mark the frames it examines (`--walk=marked`, and the
    /// PCCT's and the ACCT's walks)? If not, `--tune` marks the executing
    /// frame itself.
    pub walk_marks: bool,
    /// The current examination of the stack (between the first sample of a
    /// yieldpoint and [`SampleRecorder::flush`]).
    pending: Pending,
}

#[derive(Clone, Copy, Default)]
struct Pending {
    active: bool,
    call: bool,
    self_at: Option<u8>,
}

impl SampleRecorder {
    /// A recorder over `sink`, with the optional repositories of the thread.
    pub fn new(
        sink: SampleSink,
        contexts: Option<ContextRecorder>,
        pcct: Option<PcctRecorder>,
        acct: Option<AcctRecorder>,
        stacks: Option<StackRecorder>,
        walk_marks: bool,
    ) -> SampleRecorder {
        SampleRecorder {
            sink,
            contexts,
            pcct,
            acct,
            stacks,
            walk_marks,
            pending: Pending::default(),
        }
    }

    /// The frame a sample at a yieldpoint of `kind` credits as executing:
    /// at a prologue the callee has not run yet, so the caller.
    fn credited(n: usize, kind: YieldKind) -> Option<usize> {
        match n {
            0 => None,
            _ if kind == YieldKind::Prologue && n >= 2 => Some(n - 2),
            _ => Some(n - 1),
        }
    }

    /// The first sample of an examination: with `--tune`, is the executing
    /// activation one an earlier sample saw (its frame marked)? Checked
    /// before any walk marks frames. The ACCT's
    /// `--sampled-bit=return-address` keeps its sampled bit as a trampoline
    /// word instead of the mark.
    fn begin(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind) {
        if self.pending.active {
            return;
        }
        self.pending.active = true;
        if self.sink.tune.is_some() {
            if let Some(i) = Self::credited(t.frames.len(), kind) {
                let ret = t.frames[i].ret;
                let repeated = ret.is_marked() || ret.is_trampoline();
                self.sink.push(Sample::Examined { repeated });
                if !self.walk_marks && !ret.is_trampoline() {
                    // No walk will mark it: mark the executing frame, so
                    // that a later sample can tell it was seen.
                    let f = &mut t.frames[i];
                    f.ret = f.ret.marked();
                }
            }
        }
    }

    /// Records the method that was executing when the yieldpoint of
    /// `kind` was reached. At a prologue the callee has not run yet, so, as
    /// in Jikes RVM's method listener ("the method that was executing
    /// prior to the yield", Arnold & Grove 2005, section 3.3), the sample
    /// goes to the caller; at an epilogue or a backedge, to the top frame.
    #[inline]
    pub fn method_sample(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind) {
        self.begin(t, kind);
        let n = t.frames.len();
        let Some(i) = Self::credited(n, kind) else {
            return;
        };
        self.sink.push(Sample::Method {
            method: method_of(t.program, &t.frames[i]),
        });
        self.pending.self_at = Some((n - 1 - i) as u8);
        if let Some(c) = &mut self.contexts {
            c.method_sample(t.program, t.frames, kind);
        }
        if let Some(p) = &mut self.pcct {
            p.method_sample(t.program, t.frames, kind);
        }
        if let Some(a) = &mut self.acct {
            a.method_sample(t.program, t.frames, kind);
        }
    }

    /// Records the call edge into the top frame (none in an entry frame),
    /// and with a calling context tree one call of the top frame's context.
    /// The top frame's return word may be a trampoline of an incremental
    /// walk: the call site is read from the real word behind it.
    #[inline]
    pub fn edge_sample(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind) {
        self.begin(t, kind);
        let n = t.frames.len();
        if n < 2 {
            return;
        }
        let mut callee = t.frames[n - 1];
        callee.ret = self.resolve(callee.ret);
        let (caller, line, callee) = edge(t.program, &t.frames[n - 2], &callee);
        self.sink.push(Sample::Edge {
            caller,
            line,
            callee,
        });
        self.pending.call = true;
        if let Some(c) = &mut self.contexts {
            c.edge_sample(t.program, t.frames);
        }
        if let Some(p) = &mut self.pcct {
            p.edge_sample(t.program, t.frames);
        }
        if let Some(a) = &mut self.acct {
            a.edge_sample(t.program, t.frames);
        }
    }

    /// Ends the examination of the stack at this yieldpoint, if samples
    /// were taken: with `--record=ccmap`, walks the stack into the
    /// thread's stack buffer. Returns the tuned interval if it changed
    /// (`--tune`), for the listener to apply.
    #[inline]
    pub fn flush(&mut self, t: &mut ThreadCtx<'_>) -> Option<u64> {
        if !self.pending.active {
            return None;
        }
        let p = std::mem::take(&mut self.pending);
        if let Some(st) = &mut self.stacks {
            if p.call || p.self_at.is_some() {
                stacks::record(
                    &mut st.buffer,
                    t.program,
                    t.frames,
                    st.walk,
                    st.max_walk as usize,
                    p.call,
                    p.self_at,
                );
                if st.buffer.is_full() {
                    self.sink.send_stacks(t.thread.id, &mut st.buffer, &st.pool);
                }
            }
        }
        self.sink.new_interval()
    }

    /// Counts one examination of the stack.
    #[inline]
    pub fn count_sample(&mut self) {
        self.sink.taken += 1;
        if let Some(p) = &mut self.pcct {
            p.sample_taken();
        }
    }

    /// A frame whose return word is the trampoline `word` was popped (or
    /// unwound): the real word. At most one recorder installs trampolines
    /// in a run (`--walk=incremental` is refused with pcct and acct): the
    /// ACCT with `--sampled-bit=return-address`, or an incremental walk,
    /// which also captures the frame's caller (see
    /// [`crate::walk::incremental`]).
    pub fn trampoline(&mut self, t: &mut ThreadCtx<'_>, word: ReturnWord) -> ReturnWord {
        if let Some(a) = &mut self.acct {
            return a.trampoline(t.frames.len(), word);
        }
        match &mut self.contexts {
            Some(c) => c.trampoline(t.frames, word),
            None => panic!("a trampoline word {word:?} that no recorder installed"),
        }
    }

    /// The real return word behind `word`.
    #[inline]
    pub fn resolve(&self, word: ReturnWord) -> ReturnWord {
        if !word.is_trampoline() {
            return word;
        }
        match (&self.acct, &self.contexts) {
            (Some(a), _) => a.resolve(word),
            (None, Some(c)) => c.resolve(word),
            (None, None) => word,
        }
    }

    /// Sends the rest of the buffers, the thread's calling context tree and
    /// its totals. An incremental walk first retrieves its traces, decoding
    /// the frames still on the stack (after a runtime error or `halt`) and
    /// restoring their return words (Hofer et al. 2015, section 5.3: "the
    /// agent must retrieve the samples of a thread before the thread
    /// exits").
    pub fn finish(&mut self, t: &mut ThreadCtx<'_>) {
        self.flush(t);
        if let Some(mut c) = self.contexts.take() {
            c.retrieve(t.program, t.frames);
            self.sink.send_contexts(c.into_tree());
        }
        if let Some(p) = self.pcct.take() {
            self.sink.send_pcct(p.into_tree());
        }
        if let Some(a) = &mut self.acct {
            // The recorder stays: it still knows the real return words.
            let tree = a.take_tree();
            self.sink.send_contexts(tree);
        }
        if let Some(mut st) = self.stacks.take() {
            if !st.buffer.records.is_empty() {
                self.sink.send_stacks(t.thread.id, &mut st.buffer, &st.pool);
            }
        }
        let samples = self.sink.taken;
        self.sink.finish(ThreadSummary {
            thread: t.thread.id,
            entry: t.thread.entry,
            instructions: t.instructions,
            cycles: t.cycles,
            samples,
            exact: None,
        });
    }
}
