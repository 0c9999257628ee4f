//! The priority of the profiler's own threads: the `--sampler` thread
//! ([`crate::sampler`]) and the wall-clock timer ([`crate::clock`]) must
//! tick on time even when the application keeps every core busy, or every
//! interval silently stretches and every profile looks cheaper and less
//! accurate than it is.

/// Asks the kernel to run the calling thread (a sampler or timer thread)
/// ahead of the application's threads, so that its ticks come on time when
/// every core is busy with application threads, as a timer signal would;
/// HotSpot, too, runs its VM thread at a raised priority.
///
/// First choice: the real-time class `SCHED_FIFO` at its lowest priority.
/// The thread sleeps between ticks and blocks while it waits for a
/// safepoint, so it takes a core only for the microseconds a tick needs,
/// and the kernel runs it the moment its timer fires. Fallback, without
/// the privilege: nice -10. Measured on 2 cores (docs/PERFORMANCE.md,
/// "Sampling many threads"): at normal priority the 1 ms ticks came some
/// 140 times a second with 6 computing threads; at nice -10 a tick was
/// still a median 0.25 ms late with 6 computing threads and 2.2 ms late
/// with 24, so that a 0.8 s run took 275 ticks; with `SCHED_FIFO` the
/// median is 25 us in both. Without either privilege the thread keeps its
/// priority.
pub fn run_ahead_of_the_application() {
    // SAFETY: `pthread_self` has no preconditions and
    // `pthread_setschedparam` on the calling thread only changes its
    // scheduling class, reporting failure through its return value;
    // `gettid` has no preconditions and `setpriority` on our own thread id
    // only changes its nice value (failure ignored on purpose: the thread
    // then keeps its priority).
    unsafe {
        let lowest_real_time = libc::sched_param { sched_priority: 1 };
        if libc::pthread_setschedparam(libc::pthread_self(), libc::SCHED_FIFO, &lowest_real_time)
            == 0
        {
            return;
        }
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, -10);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_thread_gets_real_time_or_nice_minus_ten_when_privileged() {
        let (policy, nice, privileged) = std::thread::spawn(|| {
            run_ahead_of_the_application();
            // SAFETY: plain queries about the calling thread and process.
            unsafe {
                let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
                (
                    libc::sched_getscheduler(0),
                    libc::getpriority(libc::PRIO_PROCESS, tid),
                    libc::geteuid() == 0,
                )
            }
        })
        .join()
        .unwrap();
        assert!(
            policy == libc::SCHED_FIFO || nice == -10 || !privileged,
            "policy {policy}, nice {nice}"
        );
    }
}
