//! Arnold & Sweeney's global method counter (Arnold & Sweeney 2000,
//! sections 3.2 and 4): a sample every `every` calls, with no timer at
//! all. The control word stays at `-1` for the whole run, so every
//! prologue and epilogue yieldpoint is taken; each prologue counts down,
//! and at zero the listener samples the edge into the method just entered
//! (and, for the hot-method profile, the caller that was executing).
//!
//! The paper's counter is global; ours is per thread, so that application
//! threads share nothing and a run is reproducible for a given seed. The
//! first countdown is drawn from `[1, every]`, later ones are `every`.

use rand::rngs::StdRng;
use rand::RngExt;
use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;

use super::recorder::SampleRecorder;
use super::Trigger;

/// Samples every Nth call.
pub struct MethodCounter {
    every: u32,
    countdown: u32,
}

impl MethodCounter {
    /// A trigger sampling every `every` calls. Its thread's control word
    /// must start at `-1` (see [`crate::Profiler`]).
    pub fn new(mut rng: StdRng, every: u32) -> Self {
        MethodCounter {
            every,
            countdown: rng.random_range(1..=every),
        }
    }
}

impl Trigger for MethodCounter {
    fn yieldpoint(
        &mut self,
        rec: &mut SampleRecorder,
        t: &mut ThreadCtx<'_>,
        kind: YieldKind,
        _requests: u32,
    ) {
        t.set_control(-1);
        if kind != YieldKind::Prologue {
            return;
        }
        self.countdown -= 1;
        if self.countdown == 0 {
            self.countdown = self.every;
            rec.count_sample(t);
            rec.method_sample(t, kind);
            rec.edge_sample(t, kind);
        }
    }

    /// `--tune`: the next countdown uses the new period.
    fn retune(&mut self, _t: &mut ThreadCtx<'_>, every: u64) {
        self.every = u32::try_from(every).unwrap_or(u32::MAX).max(1);
        self.countdown = self.every;
    }
}
