//! Cycles per compiled code version: for each body (the code loaded at
//! start, or the code a recompilation installed; see [`crate::install`]),
//! how many invocations of it ended and the cost-model cycles they spent,
//! callees included.
//!
//! This is what tells the adaptive controller what a recompilation
//! actually saved (its cost-benefit model, after Whaley 2000 section 1,
//! predicts the saving; these counters measure it): a method's old body
//! and its new body are counted apart, so the cycles per call of each
//! version can be compared.
//!
//! Counted only in the interpreter's counting modes (`--cycles`,
//! `--clock=virtual`, exhaustive profiles): a plain run never touches
//! these counters. An invocation counts when it ends, by `ret` or by an
//! exception unwinding its frame, with the thread's cycles at that moment
//! less its cycles when the frame was pushed (its prologue included, the
//! caller's `call` not). Invocations still running when the thread ends
//! (`main`'s) are not counted. A recursive method's invocations each count
//! their own callees, so its cycles include the inner invocations' too.

/// What the invocations of one body spent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BodyCount {
    /// Invocations that ended (returned or were unwound).
    pub calls: u64,
    /// Cycles those invocations spent from entry to end, callees included.
    pub cycles: u64,
}

impl BodyCount {
    /// Cycles per ended invocation (`None` if none ended).
    pub fn per_call(&self) -> Option<f64> {
        (self.calls > 0).then(|| self.cycles as f64 / self.calls as f64)
    }
}

/// One thread's counters (kept by its interpreter).
#[derive(Debug, Default)]
pub(crate) struct BodyCounters {
    /// The thread's cycle count when the frame at each depth was pushed
    /// (a slot is rewritten by the next push at that depth, so frames
    /// unwound or abandoned need no bookkeeping).
    entry: Vec<u64>,
    /// Per body id.
    per_body: Vec<BodyCount>,
}

impl BodyCounters {
    /// Ready to count `bodies` body ids, the entry frame pushed at cycle 0.
    pub(crate) fn start(&mut self, bodies: usize) {
        self.per_body = vec![BodyCount::default(); bodies];
        self.entry = vec![0; 64];
    }

    /// The frame at `depth` (0 is the entry frame) was pushed at `cycles`.
    #[inline]
    pub(crate) fn entered(&mut self, depth: usize, cycles: u64) {
        match self.entry.get_mut(depth) {
            Some(e) => *e = cycles,
            None => self.grow(depth, cycles),
        }
    }

    #[cold]
    fn grow(&mut self, depth: usize, cycles: u64) {
        self.entry.resize((depth + 1).max(self.entry.len() * 2), 0);
        self.entry[depth] = cycles;
    }

    /// The frame at `depth`, running `body`, ended at `cycles`.
    #[inline]
    pub(crate) fn left(&mut self, body: u32, depth: usize, cycles: u64) {
        let began = self.entry.get(depth).copied().unwrap_or(cycles);
        if let Some(c) = self.per_body.get_mut(body as usize) {
            c.calls += 1;
            c.cycles += cycles.saturating_sub(began);
        }
    }

    /// Adds this thread's counts to `total` (per body id).
    pub(crate) fn add_to(&self, total: &mut Vec<BodyCount>) {
        if total.len() < self.per_body.len() {
            total.resize(self.per_body.len(), BodyCount::default());
        }
        for (t, c) in total.iter_mut().zip(&self.per_body) {
            t.calls += c.calls;
            t.cycles += c.cycles;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invocation_counts_its_callees_and_ends_when_its_frame_goes() {
        let mut c = BodyCounters::default();
        c.start(3);
        // Entry frame (body 0) at 0; body 1 pushed at depth 1 at cycle 10,
        // body 2 at depth 2 at 15, returns at 25; body 1 returns at 40.
        c.entered(1, 10);
        c.entered(2, 15);
        c.left(2, 2, 25);
        c.left(1, 1, 40);
        // Body 1 again, from 50 to 55.
        c.entered(1, 50);
        c.left(1, 1, 55);
        let mut total = Vec::new();
        c.add_to(&mut total);
        assert_eq!(total[0], BodyCount::default());
        assert_eq!(
            total[1],
            BodyCount {
                calls: 2,
                cycles: 35
            }
        );
        assert_eq!(
            total[2],
            BodyCount {
                calls: 1,
                cycles: 10
            }
        );
        assert_eq!(total[1].per_call(), Some(17.5));
        assert_eq!(total[0].per_call(), None);
        // Two threads add up.
        c.add_to(&mut total);
        assert_eq!(
            total[1],
            BodyCount {
                calls: 4,
                cycles: 70
            }
        );
    }

    #[test]
    fn deep_frames_grow_the_entry_table() {
        let mut c = BodyCounters::default();
        c.start(2);
        c.entered(1000, 7);
        c.left(1, 1000, 9);
        let mut total = Vec::new();
        c.add_to(&mut total);
        assert_eq!(
            total[1],
            BodyCount {
                calls: 1,
                cycles: 2
            }
        );
    }
}
