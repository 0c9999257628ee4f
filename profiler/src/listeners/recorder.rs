//! What every sampling listener records into: its thread's sample buffer
//! and, with a calling-context `--record`, the thread's half of that record
//! ([`crate::records::ThreadRecord`]). The triggers decide *when* to
//! sample; this decides *what* a method or an edge sample records, for all
//! three.

use vm::frame::ReturnWord;
use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;
use vm::profiler_cost::CostItem;

use crate::records::frames::credited_depth;
use crate::records::{Examination, ThreadRecord};
use crate::samples::{Sample, SampleSink, ThreadSummary};
use crate::stack::{edge, method_of};

/// What every sampling listener has: its thread's sample buffer, and with
/// `--record=cct`, `pcct`, `acct` or `ccmap` the thread's record.
pub struct SampleRecorder {
    /// The thread's end of the sample queue.
    pub sink: SampleSink,
    /// The thread's half of the calling-context record, if any.
    pub record: Option<Box<dyn ThreadRecord>>,
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
    exam: Examination,
}

impl SampleRecorder {
    /// A recorder over `sink`, with the thread's record, if any.
    pub fn new(
        sink: SampleSink,
        record: Option<Box<dyn ThreadRecord>>,
        walk_marks: bool,
    ) -> SampleRecorder {
        SampleRecorder {
            sink,
            record,
            walk_marks,
            pending: Pending::default(),
        }
    }

    /// The frame a sample at a yieldpoint of `kind` credits as executing:
    /// at a prologue the callee has not run yet, so the caller.
    #[inline]
    fn credited(n: usize, kind: YieldKind) -> Option<usize> {
        credited_depth(n, kind).map(|depth| depth - 1)
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
            t.charge(CostItem::TuneObservation, 1);
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
        t.charge(CostItem::MethodSample, 1);
        self.pending.exam.self_at = Some((n - 1 - i) as u8);
        if let Some(r) = &mut self.record {
            r.method_sample(t, kind);
        }
    }

    /// Records the call edge into the top frame (none in an entry frame),
    /// and with a calling-context record one call of the top frame's
    /// context. The top frame's return word may be a trampoline of an
    /// incremental walk: the call site is read from the real word behind
    /// it.
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
        t.charge(CostItem::EdgeSample, 1);
        self.pending.exam.call = true;
        if let Some(r) = &mut self.record {
            r.edge_sample(t);
        }
    }

    /// Ends the examination of the stack at this yieldpoint, if samples
    /// were taken, telling the record what it sampled (with
    /// `--record=ccmap`, the walk into the thread's stack buffer happens
    /// here). Returns the tuned interval if it changed (`--tune`), for the
    /// trigger to apply.
    #[inline]
    pub fn flush(&mut self, t: &mut ThreadCtx<'_>) -> Option<u64> {
        if !self.pending.active {
            return None;
        }
        let p = std::mem::take(&mut self.pending);
        if let Some(r) = &mut self.record {
            r.flush(t, p.exam, &mut self.sink);
        }
        self.sink.new_interval()
    }

    /// Counts one examination of the stack.
    #[inline]
    pub fn count_sample(&mut self, t: &mut ThreadCtx<'_>) {
        self.sink.taken += 1;
        if let Some(r) = &mut self.record {
            r.sample_taken(t);
        }
    }

    /// A frame whose return word is the trampoline `word` was popped (or
    /// unwound): the real word. At most one record installs trampolines in
    /// a run (`--walk=incremental` is refused with pcct and acct): the ACCT
    /// with `--sampled-bit=return-address`, or an incremental walk, which
    /// also captures the frame's caller (see
    /// [`crate::records::cct::incremental`]).
    pub fn trampoline(&mut self, t: &mut ThreadCtx<'_>, word: ReturnWord) -> ReturnWord {
        match &mut self.record {
            Some(r) => r.trampoline(t, word),
            None => panic!("a trampoline word {word:?} that no recorder installed"),
        }
    }

    /// The real return word behind `word`.
    #[inline]
    pub fn resolve(&self, word: ReturnWord) -> ReturnWord {
        if !word.is_trampoline() {
            return word;
        }
        match &self.record {
            Some(r) => r.resolve(word),
            None => word,
        }
    }

    /// Sends the rest of the buffers, what the thread's record built (see
    /// [`ThreadRecord::finish`]) and the thread's totals.
    pub fn finish(&mut self, t: &mut ThreadCtx<'_>) {
        self.flush(t);
        if let Some(r) = &mut self.record {
            r.finish(t, &mut self.sink);
        }
        let samples = self.sink.taken;
        self.sink.finish(ThreadSummary {
            thread: t.thread.id,
            entry: t.thread.entry,
            instructions: t.instructions,
            cycles: t.cycles,
            time: t.cycles + t.work.cycles(),
            work: *t.work,
            samples,
            exact: None,
        });
    }
}
