//! Listeners: the profiler's agents on the application threads (Jikes RVM's
//! term). A listener is called at taken yieldpoints, looks at the top of
//! its thread's stack and appends raw [`crate::samples::Sample`]s to the
//! thread's buffer; it never touches a shared repository.
//!
//! Every sampling listener is one [`SamplingListener`], parameterised by
//! its [`Trigger`], which decides when to take a method or an edge sample:
//!
//! - [`timer::Timer`]: the Jikes RVM baseline (Arnold & Grove 2005,
//!   section 3.3);
//! - [`cbs::CounterBased`]: counter-based sampling, a burst of samples per
//!   tick separated by a stride (section 4, Figure 3);
//! - [`counter::MethodCounter`]: Arnold & Sweeney's sample every Nth
//!   call, without a timer.
//!
//! What a sample records is the [`recorder::SampleRecorder`]'s job: the
//! sample itself, and with a calling-context `--record` the thread's half
//! of the record ([`crate::records`]), which the listener also asks for
//! the real word behind a trampoline it installed.
//!
//! The exhaustive profile's listener is in [`crate::exact`].

pub mod cbs;
pub mod counter;
pub mod recorder;
pub mod timer;

use vm::frame::ReturnWord;
use vm::hooks::{ThreadCtx, ThreadListener};
use vm::instr::YieldKind;
use vm::profiler_cost::CostItem;

use recorder::SampleRecorder;

/// When a sampling listener samples.
pub trait Trigger: Send {
    /// A yieldpoint of `kind` was taken with `requests` pending: take this
    /// trigger's samples into `rec`.
    fn yieldpoint(
        &mut self,
        rec: &mut SampleRecorder,
        t: &mut ThreadCtx<'_>,
        kind: YieldKind,
        requests: u32,
    );

    /// `--tune` changed the interval to `interval` (under the virtual
    /// clock the thread's tick; the wall timer thread reads the interval
    /// itself).
    fn retune(&mut self, t: &mut ThreadCtx<'_>, interval: u64) {
        t.set_virtual_tick(interval);
    }

    /// A sampler's safepoint selected this thread (`--sampler`, see
    /// [`crate::sampler`]); only the timer samples there.
    fn safepoint(&mut self, _rec: &mut SampleRecorder, _t: &mut ThreadCtx<'_>) {}
}

/// A sampling listener: a trigger over a [`SampleRecorder`].
pub struct SamplingListener<T> {
    rec: SampleRecorder,
    trigger: T,
}

impl<T: Trigger> SamplingListener<T> {
    /// A listener sampling into `rec` when `trigger` says.
    pub fn new(rec: SampleRecorder, trigger: T) -> Self {
        SamplingListener { rec, trigger }
    }
}

impl<T: Trigger> ThreadListener for SamplingListener<T> {
    fn yieldpoint(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind, requests: u32) {
        t.charge(CostItem::YieldpointTaken, 1);
        self.trigger.yieldpoint(&mut self.rec, t, kind, requests);
        if let Some(interval) = self.rec.flush(t) {
            self.trigger.retune(t, interval);
        }
    }

    fn trampoline(&mut self, t: &mut ThreadCtx<'_>, word: ReturnWord, _: bool) -> ReturnWord {
        self.rec.trampoline(t, word)
    }

    fn resolve(&self, word: ReturnWord) -> ReturnWord {
        self.rec.resolve(word)
    }

    fn safepoint(&mut self, t: &mut ThreadCtx<'_>) {
        self.trigger.safepoint(&mut self.rec, t);
        // The wall-clock sampler thread reads a tuned interval itself.
        let _ = self.rec.flush(t);
    }

    fn thread_ending(&mut self, t: &mut ThreadCtx<'_>) {
        self.rec.finish(t);
    }
}
