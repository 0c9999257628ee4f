//! The self-tuning sampling interval (`--tune`) of the SSCLI profiler
//! (Chilingarova & Safonov 2006, see README.md, "Bibliography"; section 3
//! "Tuning Sampling Interval"; thresholds from section 5 "Results").
//!
//! The paper's rule: "it tracks how often the same activation records
//! appear on the top of the stack [...] CC-Map manager thread evaluates
//! actual percentage of repetitions [...] every 1000 samples [...] If
//! percentage of repetitions is lower then minimum threshold, it is
//! considered too low and sampling interval decreases. If percentage of
//! repetitions is higher than maximum threshold, the sampling interval
//! increases", with "the low threshold for repetitions [...] set to 1%,
//! high threshold for repetitions was set to 15%".
//!
//! [`IntervalTuner`] is a pure state machine: the organizer feeds it one
//! observation per sample and it answers with the new interval when, and
//! only when, the interval changes. It knows nothing of clocks: the
//! interval is a number in the unit of the trigger (nanoseconds for
//! `--profile=timer|cbs`, calls for `--profile=counter`'s `--every`).
//!
//! # Decisions the paper leaves open
//!
//! - **What a repetition is.** In the paper the walk marks the frames it
//!   visits and stops at the first marked one; a sample whose *top* frame
//!   was already marked is a repetition: the same activation record was on
//!   top at the thread's previous sample. A walk that marks frames reports
//!   exactly that ([`IntervalTuner::record_repetition`]); one that does not
//!   can hand over an identity of the top frame and its thread
//!   ([`IntervalTuner::record_top_frame`]), and a repetition is the same
//!   identity as that thread's previous sample. Repetitions are per thread:
//!   two threads sitting in the same method are not one activation.
//! - **When.** The paper evaluates "every 1000 samples (more precisely,
//!   [when the] processed samples portion is more than 1000, because the
//!   manager thread handles a bunch of samples in every pass)". We see
//!   samples one by one, so we evaluate exactly at every
//!   [`EVALUATION_PERIOD`]th sample, over the samples since the previous
//!   evaluation.
//! - **The thresholds are strict**, as the paper words them ("lower
//!   than", "higher than"): exactly 1% or exactly 15% leaves the interval
//!   alone. The comparison is done in integers.
//! - **The adjustment factor: ×2 or ÷2** ([`ADJUSTMENT_FACTOR`]). The paper
//!   gives no amount. It reports that "the sample interval becomes stable
//!   after 1-2 changes", and that "we started from interval 50ms, and for
//!   the tests, which performed bad with such an interval, the profiler
//!   made it less", its fixed-interval runs using 10 ms: two halvings take
//!   50 ms to 12.5 ms, in line with both. The repetition rate is roughly
//!   inversely proportional to the interval (sampling twice as often finds
//!   the same activation on top about twice as often), so one step scales
//!   it by about the factor; the accepted band spans a ratio of 15 (1% to
//!   15%), so any factor well below 15 cannot jump over the band and
//!   oscillate between its sides, while a factor of 2 still crosses a
//!   decade in about three evaluations. Halving and doubling also undo each
//!   other exactly on powers of two.
//! - **Bounds.** The interval stays within [`IntervalBounds`] (widened to
//!   contain the initial interval, which is the user's choice): at a bound,
//!   a step that would leave it is cut at the bound, and a step that
//!   changes nothing is not reported.

use std::collections::HashMap;

/// Samples between two evaluations (the paper's "every 1000 samples").
pub const EVALUATION_PERIOD: u64 = 1000;
/// Below this percentage of repetitions the interval shortens (the
/// paper's "low threshold", 1%).
pub const MIN_REPETITION_PERCENT: u64 = 1;
/// Above this percentage of repetitions the interval lengthens (the
/// paper's "high threshold", 15%).
pub const MAX_REPETITION_PERCENT: u64 = 15;
/// The interval is multiplied (too many repetitions) or divided (too few)
/// by this; see the module documentation for why 2.
pub const ADJUSTMENT_FACTOR: u64 = 2;

/// The least and greatest interval the tuner may choose, inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntervalBounds {
    /// The shortest interval.
    pub min: u64,
    /// The longest interval.
    pub max: u64,
}

impl IntervalBounds {
    /// For a timer period in nanoseconds: 10 µs (below that a tick costs
    /// more than the work between ticks) to 1 s (above that a run of a few
    /// seconds gives too few samples to profile).
    pub const TIMER_NS: IntervalBounds = IntervalBounds {
        min: 10_000,
        max: 1_000_000_000,
    };
    /// For `--every` (calls between samples): every call to one in a
    /// million.
    pub const COUNTER_CALLS: IntervalBounds = IntervalBounds {
        min: 1,
        max: 1_000_000,
    };
}

/// What an evaluation saw and did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evaluation {
    /// Samples since the previous evaluation ([`EVALUATION_PERIOD`]).
    pub samples: u64,
    /// Of those, repetitions of the top frame.
    pub repetitions: u64,
    /// The interval before.
    pub old_interval: u64,
    /// The interval after (equal to `old_interval` when nothing changed).
    pub new_interval: u64,
}

/// The self-tuning sampling interval: feed it one observation per sample.
#[derive(Clone, Debug)]
pub struct IntervalTuner {
    interval: u64,
    bounds: IntervalBounds,
    /// Samples recorded since the tuner was made.
    samples: u64,
    /// Repetitions since the last evaluation.
    window_repetitions: u64,
    /// Per thread, the identity of the top frame at its previous sample.
    previous_top: HashMap<u32, u64>,
    last_evaluation: Option<Evaluation>,
}

impl IntervalTuner {
    /// A tuner starting at `initial`, kept within `bounds` (widened to
    /// contain `initial`). An interval is at least 1.
    pub fn new(initial: u64, bounds: IntervalBounds) -> IntervalTuner {
        let initial = initial.max(1);
        IntervalTuner {
            interval: initial,
            bounds: IntervalBounds {
                min: bounds.min.max(1).min(initial),
                max: bounds.max.max(initial),
            },
            samples: 0,
            window_repetitions: 0,
            previous_top: HashMap::new(),
            last_evaluation: None,
        }
    }

    /// The current interval.
    pub fn interval(&self) -> u64 {
        self.interval
    }

    /// The bounds in force.
    pub fn bounds(&self) -> IntervalBounds {
        self.bounds
    }

    /// Samples recorded so far.
    pub fn samples(&self) -> u64 {
        self.samples
    }

    /// The most recent evaluation, if there was one.
    pub fn last_evaluation(&self) -> Option<Evaluation> {
        self.last_evaluation
    }

    /// Records one sample: `repeated` when its top frame is the activation
    /// that was on top of the same thread's previous sample (the walk found
    /// the top frame already marked). Returns the new interval when this
    /// sample completed an evaluation period and the interval changed.
    pub fn record_repetition(&mut self, repeated: bool) -> Option<u64> {
        self.samples += 1;
        self.window_repetitions += u64::from(repeated);
        if !self.samples.is_multiple_of(EVALUATION_PERIOD) {
            return None;
        }
        self.evaluate()
    }

    /// Records one sample of `thread` whose top frame has identity `top`
    /// (any number that tells one activation from another as well as the
    /// walk can, e.g. the frame's depth and method): a repetition when it
    /// equals the identity at that thread's previous sample. Returns as
    /// [`Self::record_repetition`].
    pub fn record_top_frame(&mut self, thread: u32, top: u64) -> Option<u64> {
        let repeated = self.previous_top.insert(thread, top) == Some(top);
        self.record_repetition(repeated)
    }

    /// Forgets `thread`'s previous top frame (the thread ended).
    pub fn forget_thread(&mut self, thread: u32) {
        self.previous_top.remove(&thread);
    }

    fn evaluate(&mut self) -> Option<u64> {
        let samples = EVALUATION_PERIOD;
        let repetitions = std::mem::take(&mut self.window_repetitions);
        let old = self.interval;
        let percent_times_samples = repetitions * 100;
        let new = if percent_times_samples > MAX_REPETITION_PERCENT * samples {
            // The same activation keeps being found on top: sampling more
            // often than the program changes; lengthen.
            old.saturating_mul(ADJUSTMENT_FACTOR).min(self.bounds.max)
        } else if percent_times_samples < MIN_REPETITION_PERCENT * samples {
            // Never the same activation twice: sampling may miss short
            // ones; shorten.
            (old / ADJUSTMENT_FACTOR).max(self.bounds.min)
        } else {
            old
        };
        self.interval = new;
        self.last_evaluation = Some(Evaluation {
            samples,
            repetitions,
            old_interval: old,
            new_interval: new,
        });
        (new != old).then_some(new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Feeds `n` samples with `per_mille` repetitions in each 1000 (spread
    /// evenly); returns (sample number, new interval) of each change.
    fn feed(t: &mut IntervalTuner, n: u64, per_mille: u64) -> Vec<(u64, u64)> {
        let mut changes = Vec::new();
        for i in 0..n {
            // Repeated when the running count of repetitions steps up.
            let repeated = (i % 1000 + 1) * per_mille / 1000 != (i % 1000) * per_mille / 1000;
            if let Some(new) = t.record_repetition(repeated) {
                changes.push((t.samples(), new));
            }
        }
        changes
    }

    #[test]
    fn fifty_percent_repetition_lengthens_at_each_thousandth_sample() {
        let mut t = IntervalTuner::new(MS, IntervalBounds::TIMER_NS);
        let changes = feed(&mut t, 3500, 500);
        assert_eq!(
            changes,
            vec![(1000, 2 * MS), (2000, 4 * MS), (3000, 8 * MS)]
        );
        assert_eq!(t.interval(), 8 * MS);
        assert_eq!(
            t.last_evaluation(),
            Some(Evaluation {
                samples: 1000,
                repetitions: 500,
                old_interval: 4 * MS,
                new_interval: 8 * MS,
            })
        );
    }

    #[test]
    fn no_repetition_shortens() {
        let mut t = IntervalTuner::new(MS, IntervalBounds::TIMER_NS);
        assert_eq!(feed(&mut t, 999, 0), vec![]);
        assert_eq!(t.interval(), MS, "nothing changes before sample 1000");
        assert_eq!(feed(&mut t, 1, 0), vec![(1000, MS / 2)]);
        assert_eq!(feed(&mut t, 1000, 0), vec![(2000, MS / 4)]);
    }

    #[test]
    fn five_percent_leaves_the_interval_alone() {
        let mut t = IntervalTuner::new(MS, IntervalBounds::TIMER_NS);
        assert_eq!(feed(&mut t, 5000, 50), vec![]);
        assert_eq!(t.interval(), MS);
        let e = t.last_evaluation().unwrap();
        assert_eq!(
            (e.repetitions, e.old_interval, e.new_interval),
            (50, MS, MS)
        );
    }

    #[test]
    fn the_thresholds_are_strict() {
        let once = |per_mille| {
            let mut t = IntervalTuner::new(MS, IntervalBounds::TIMER_NS);
            feed(&mut t, 1000, per_mille);
            assert_eq!(t.last_evaluation().unwrap().repetitions, per_mille);
            t.interval()
        };
        assert_eq!(once(150), MS, "exactly 15% stays");
        assert_eq!(once(151), 2 * MS);
        assert_eq!(once(10), MS, "exactly 1% stays");
        assert_eq!(once(9), MS / 2);
    }

    #[test]
    fn each_evaluation_sees_only_its_own_samples() {
        let mut t = IntervalTuner::new(MS, IntervalBounds::TIMER_NS);
        assert_eq!(feed(&mut t, 1000, 500), vec![(1000, 2 * MS)]);
        // Were the 500 repetitions carried over, this window would be 27.5%.
        assert_eq!(feed(&mut t, 1000, 50), vec![]);
        assert_eq!(t.last_evaluation().unwrap().repetitions, 50);
    }

    #[test]
    fn bounds_hold_and_an_unchanged_interval_is_not_reported() {
        let bounds = IntervalBounds {
            min: 300,
            max: 5000,
        };
        let mut t = IntervalTuner::new(1000, bounds);
        assert_eq!(
            feed(&mut t, 4000, 1000),
            vec![(1000, 2000), (2000, 4000), (3000, 5000)]
        );
        let mut t = IntervalTuner::new(1000, bounds);
        assert_eq!(feed(&mut t, 3000, 0), vec![(1000, 500), (2000, 300)]);
        // An initial interval outside the bounds widens them.
        let t = IntervalTuner::new(10, bounds);
        assert_eq!(t.bounds(), IntervalBounds { min: 10, max: 5000 });
        let t = IntervalTuner::new(0, IntervalBounds::COUNTER_CALLS);
        assert_eq!(t.interval(), 1);
    }

    #[test]
    fn repetitions_of_the_top_frame_are_counted_per_thread() {
        // Two threads, each always with the same top frame, alternate: no
        // two consecutive samples share a top, yet every sample but each
        // thread's first repeats its thread's previous one.
        let mut t = IntervalTuner::new(MS, IntervalBounds::TIMER_NS);
        let mut changes = Vec::new();
        for i in 0..1000u32 {
            let thread = i % 2;
            if let Some(new) = t.record_top_frame(thread, 100 + u64::from(thread)) {
                changes.push(new);
            }
        }
        assert_eq!(t.last_evaluation().unwrap().repetitions, 998);
        assert_eq!(changes, vec![2 * MS]);

        // One thread whose top alternates never repeats.
        let mut t = IntervalTuner::new(MS, IntervalBounds::TIMER_NS);
        for i in 0..1000u64 {
            t.record_top_frame(0, i % 2);
        }
        assert_eq!(t.last_evaluation().unwrap().repetitions, 0);
        assert_eq!(t.interval(), MS / 2);

        // A forgotten thread starts afresh.
        let mut t = IntervalTuner::new(MS, IntervalBounds::TIMER_NS);
        t.record_top_frame(3, 7);
        t.forget_thread(3);
        t.record_top_frame(3, 7);
        t.record_top_frame(3, 7);
        for _ in 0..997 {
            t.record_repetition(false);
        }
        assert_eq!(t.last_evaluation().unwrap().repetitions, 1);
    }
}
