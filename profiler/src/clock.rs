//! The wall clock: a timer thread that, every `--interval`, asks each
//! running managed thread to take its next yieldpoint (the timer interrupt
//! of Jikes RVM setting the threadswitch flag; Arnold & Grove 2005, section
//! 3.3). It only sets bits through [`ThreadShared::request`]: the sampling
//! itself happens on the application thread, at the yieldpoint. The
//! timer thread runs ahead of the application's threads
//! ([`crate::priority`]), as a timer interrupt would.
//!
//! The virtual clock needs no thread: the interpreter raises the same
//! request itself every `--interval` of cost-model cycles (see
//! `vm::hooks::ExecMode::virtual_tick`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use vm::thread::{request, ThreadShared, ThreadState};

use crate::spawn::StartError;
use crate::stop::StopSignal;

/// The threads a timer ticks.
pub type LiveThreads = Arc<Mutex<Vec<Arc<ThreadShared>>>>;

/// A running timer thread; dropping it stops the thread.
pub struct WallTimer {
    stop: Arc<StopSignal>,
    handle: Option<std::thread::JoinHandle<u64>>,
}

impl WallTimer {
    /// Starts ticking `threads` every `interval_ns` nanoseconds, read
    /// again at every tick (`--tune` changes it while the timer runs); an
    /// error if the system refuses the thread.
    pub fn start(
        interval_ns: Arc<AtomicU64>,
        threads: LiveThreads,
    ) -> Result<WallTimer, StartError> {
        let stop = Arc::new(StopSignal::default());
        let stopped = stop.clone();
        let period = move || Duration::from_nanos(interval_ns.load(Ordering::Relaxed).max(1));
        let handle = crate::spawn::start("the profiler's timer thread", "vm-timer", move || {
            crate::priority::run_ahead_of_the_application();
            let mut ticks = 0u64;
            let mut next = Instant::now() + period();
            loop {
                if stopped.sleep_until(next) {
                    return ticks;
                }
                for t in threads.lock().iter() {
                    if t.state() == ThreadState::Running {
                        t.request(request::TICK);
                    }
                }
                ticks += 1;
                let interval = period();
                next += interval;
                let now = Instant::now();
                if next < now {
                    // Fell behind (the machine was busy): ticks coalesce,
                    // as timer interrupts setting one flag do.
                    next = now + interval;
                }
            }
        })?;
        Ok(WallTimer {
            stop,
            handle: Some(handle),
        })
    }

    /// Stops the timer; returns how many ticks it issued.
    pub fn stop(mut self) -> u64 {
        self.stop_now()
    }

    fn stop_now(&mut self) -> u64 {
        self.stop.stop();
        self.handle.take().map_or(0, |h| h.join().unwrap_or(0))
    }
}

impl Drop for WallTimer {
    fn drop(&mut self) {
        self.stop_now();
    }
}
