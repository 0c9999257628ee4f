//! How the profiler's periodic threads (the wall-clock timer,
//! [`crate::clock`], and the sampler thread, [`crate::sampler`]) sleep until
//! their next tick and learn that they must stop.
//!
//! They sleep on a condition variable, which blocks at once. A channel's
//! receive with a timeout (crossbeam's) spins and yields a little before it
//! blocks; for a thread in `SCHED_FIFO` ([`crate::priority`]) yielding does
//! nothing, so every tick began with a few microseconds of busy waiting on a
//! core the application needed: at 100 us, 3-4% of all the CPU time of an
//! 8-thread run (measured with `perf`, docs/PERFORMANCE.md).

use std::time::Instant;

use parking_lot::{Condvar, Mutex};

/// A flag one thread raises to stop another that sleeps between ticks.
#[derive(Default)]
pub struct StopSignal {
    stopped: Mutex<bool>,
    raised: Condvar,
}

impl StopSignal {
    /// Sleeps until `deadline`, or until [`StopSignal::stop`] is called;
    /// returns whether it was (then at once, if it already was).
    pub fn sleep_until(&self, deadline: Instant) -> bool {
        let mut stopped = self.stopped.lock();
        while !*stopped {
            if self.raised.wait_until(&mut stopped, deadline).timed_out() {
                break;
            }
        }
        *stopped
    }

    /// Wakes the sleeper for good.
    pub fn stop(&self) {
        *self.stopped.lock() = true;
        self.raised.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn sleeps_until_the_deadline_when_not_stopped() {
        let s = StopSignal::default();
        let deadline = Instant::now() + Duration::from_millis(5);
        assert!(!s.sleep_until(deadline));
        assert!(Instant::now() >= deadline);
    }

    #[test]
    fn a_stop_wakes_the_sleeper_and_stays_raised() {
        let s = Arc::new(StopSignal::default());
        let sleeper = {
            let s = s.clone();
            std::thread::spawn(move || s.sleep_until(Instant::now() + Duration::from_secs(600)))
        };
        s.stop();
        assert!(sleeper.join().unwrap(), "woken by the stop");
        // Raised for good: no more sleeping.
        assert!(s.sleep_until(Instant::now() + Duration::from_secs(600)));
    }
}
