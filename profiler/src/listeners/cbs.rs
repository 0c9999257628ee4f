//! Counter-based sampling (Arnold & Grove 2005, section 4 and Figure 3, as
//! implemented in Jikes RVM, section 5.1).
//!
//! A timer tick makes the next yieldpoint of any kind be taken. There the
//! listener records the executing method (the hot-method profile, as the
//! timer baseline does) and *enables* sampling by setting the control word
//! to `-1`: from now on every prologue and epilogue yieldpoint is taken
//! (backedges are not). Each taken prologue/epilogue counts down
//! `skippedInvocations`; at zero the call edge of the top frame is sampled
//! and the countdown restarts at `stride`. After `samples` samples the
//! control word goes back to `0` until the next tick.
//!
//! The first countdown is drawn at random from `[1, stride]` so that every
//! call in the profiling window has the same chance of being sampled. The
//! yieldpoint at which the tick is noticed counts as the first call of the
//! window if it is a prologue or epilogue: so `stride=1, samples=1` samples
//! exactly what the timer baseline samples whenever a tick is noticed at a
//! call boundary.
//!
//! The calls that only count down never reach this code: after each
//! callback in a window the listener hands the VM the count of calls to
//! let go by before the next sample ([`ThreadCtx::pass_yieldpoints`]), and
//! the VM's yieldpoint slow path counts them off, charging each as a taken
//! yieldpoint, as Jikes RVM's yieldpoint handler decrements the counter
//! before it calls any sampling code. A callback that comes earlier (a
//! tick, a backward jump's yieldpoint) takes the rest back first, so the
//! samples are the same as with every call counted here.

use rand::rngs::StdRng;
use rand::RngExt;
use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;
use vm::thread::request;

use super::recorder::SampleRecorder;
use super::Trigger;

/// Arnold & Grove's counter-based trigger.
pub struct CounterBased {
    rng: StdRng,
    stride: u32,
    samples: u32,
    /// Calls still to skip before the next sample (`skippedInvocations`),
    /// less those handed to the VM to let go by.
    skip: u32,
    /// Samples still to take in this window (`samplesThisTimerInterrupt`).
    left: u32,
}

impl CounterBased {
    /// A trigger taking `samples` samples `stride` calls apart per tick.
    pub fn new(rng: StdRng, stride: u32, samples: u32) -> Self {
        CounterBased {
            rng,
            stride,
            samples,
            skip: 0,
            left: 0,
        }
    }
}

impl Trigger for CounterBased {
    fn yieldpoint(
        &mut self,
        rec: &mut SampleRecorder,
        t: &mut ThreadCtx<'_>,
        kind: YieldKind,
        requests: u32,
    ) {
        // The calls the VM has not let go by yet are this countdown's.
        self.skip += t.yieldpoints_to_pass();
        self.count_down(rec, t, kind, requests);
        // All but the last call before the next sample go by in the VM.
        if self.left > 0 {
            t.pass_yieldpoints(self.skip - 1);
            self.skip = 1;
        } else {
            t.pass_yieldpoints(0);
        }
    }
}

impl CounterBased {
    /// Arnold & Grove's Figure 3: a tick opens a window; in it every call
    /// counts `skip` down, and a sample is taken at zero.
    fn count_down(
        &mut self,
        rec: &mut SampleRecorder,
        t: &mut ThreadCtx<'_>,
        kind: YieldKind,
        requests: u32,
    ) {
        if requests & request::TICK != 0 {
            // A new window (a tick during a window restarts it).
            rec.count_sample(t);
            rec.method_sample(t, kind);
            self.skip = self.rng.random_range(1..=self.stride);
            self.left = self.samples;
            t.set_control(-1);
        }
        if kind == YieldKind::Backedge || self.left == 0 {
            return;
        }
        self.skip -= 1;
        if self.skip == 0 {
            rec.count_sample(t);
            rec.edge_sample(t, kind);
            self.skip = self.stride;
            self.left -= 1;
            if self.left == 0 {
                t.set_control(0);
            }
        }
    }
}
