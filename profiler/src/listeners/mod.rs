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
//! VM's trampoline callbacks on to it.
//!
//! The exhaustive profile's listener is in [`crate::exact`].

pub mod cbs;
pub mod counter;
pub mod timer;

use vm::frame::ReturnWord;
use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;

use crate::acct::AcctRecorder;
use crate::pcct::PcctRecorder;
use crate::samples::{Sample, SampleSink, ThreadSummary};
use crate::stack::{edge, method_of};
use crate::walk::ContextRecorder;

/// What every sampling listener has: its thread's sample buffer, and with
/// `--record=cct` its calling context tree.
pub struct SampleRecorder {
    /// The thread's end of the sample queue.
    pub sink: SampleSink,
    /// The thread's calling context tree and how to walk to it.
    pub contexts: Option<ContextRecorder>,
    /// `--record=pcct`: the thread's partial calling context tree.
    pub pcct: Option<PcctRecorder>,
    /// `--record=acct`: the thread's approximate calling context tree.
    pub acct: Option<AcctRecorder>,
}

impl SampleRecorder {
    /// Records the method that was executing when the yieldpoint of
    /// `kind` was reached. At a prologue the callee has not run yet, so, as
    /// in Jikes RVM's method listener ("the method that was executing
    /// prior to the yield", Arnold & Grove 2005, section 3.3), the sample
    /// goes to the caller; at an epilogue or a backedge, to the top frame.
    #[inline]
    pub fn method_sample(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind) {
        let n = t.frames.len();
        let frame = if kind == YieldKind::Prologue && n >= 2 {
            t.frames.get(n - 2)
        } else {
            t.frames.last()
        };
        if let Some(f) = frame {
            self.sink.push(Sample::Method {
                method: method_of(t.program, f),
            });
        }
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
    pub fn edge_sample(&mut self, t: &mut ThreadCtx<'_>) {
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

    /// Sends the rest of the buffer, the thread's calling context tree and
    /// its totals. An incremental walk first retrieves its traces, decoding
    /// the frames still on the stack (after a runtime error or `halt`) and
    /// restoring their return words (Hofer et al. 2015, section 5.3: "the
    /// agent must retrieve the samples of a thread before the thread
    /// exits").
    pub fn finish(&mut self, t: &mut ThreadCtx<'_>) {
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
        let samples = self.sink.taken;
        self.sink.finish(ThreadSummary {
            thread: t.thread.id,
            instructions: t.instructions,
            cycles: t.cycles,
            samples,
            exact: None,
        });
    }
}
