//! The timer-based sampler of Jikes RVM, the baseline of Arnold & Grove 2005
//! (section 3.3): a timer tick sets the thread's control word to `1`, so the
//! next yieldpoint of *any* kind is taken. There the listener records the
//! executing method (the hot-method profile: at a prologue that is the
//! caller, see [`super::recorder::SampleRecorder::method_sample`]), and, if the
//! yieldpoint is a prologue or an epilogue, the caller-to-callee edge of
//! the top frame.
//!
//! Its weakness is the paper's Figure 1: a tick that falls in a long run of
//! non-call instructions is noticed at the *next* call's prologue, so the
//! call after a long stretch looks hot and the one after it looks cold.

use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;
use vm::thread::request;

use super::recorder::SampleRecorder;
use super::Trigger;

/// Takes one sample per timer tick.
pub struct Timer;

impl Trigger for Timer {
    fn yieldpoint(
        &mut self,
        rec: &mut SampleRecorder,
        t: &mut ThreadCtx<'_>,
        kind: YieldKind,
        requests: u32,
    ) {
        if requests & request::TICK == 0 {
            return;
        }
        crate::trace::sample(t, Some(kind));
        rec.count_sample(t);
        rec.method_sample(t, kind);
        if kind != YieldKind::Backedge {
            rec.edge_sample(t, kind);
        }
    }

    /// A sampler's safepoint selected this thread (`--sampler`, see
    /// [`crate::sampler`]): one sample where the thread is stopped, the
    /// same sample a tick noticed at that yieldpoint takes. Called on the
    /// thread itself (self-sampling) or on the sampler thread while this
    /// thread is held; a thread blocked in `sleep` or `join` is sampled as
    /// at a backedge (its method, no call edge).
    fn safepoint(&mut self, rec: &mut SampleRecorder, t: &mut ThreadCtx<'_>) {
        let kind = crate::sampler::stopped_at(t);
        crate::trace::sample(t, kind);
        rec.count_sample(t);
        let at = kind.unwrap_or(YieldKind::Backedge);
        rec.method_sample(t, at);
        if at != YieldKind::Backedge {
            rec.edge_sample(t, at);
        }
    }
}
