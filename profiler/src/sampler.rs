//! Who walks the stacks of a multi-threaded program (`--sampler`): the
//! comparison at the core of Hofer, Gnedt & Mössenböck 2015, "Lightweight
//! Java Profiling with Partial Safepoints and Incremental Stack Tracing"
//! (ICPE 2015, sections 2.2, 3, 3.1, 4 and 7; see README.md,
//! "Bibliography").
//!
//! With `--profile=timer` and the wall clock, a *sampler thread* (the
//! paper's agent thread and VM thread in one) wakes every `--interval` and
//! asks the VM for a safepoint ([`vm::runtime::Vm::safepoint_including`]):
//!
//! - [`SamplerKind::Safepoint`] (the JVMTI baseline, section 2.2): a
//!   *global* safepoint. Every live thread must park at a yieldpoint or be
//!   blocked in `sleep`/`join`; then the sampler thread walks every stack
//!   itself, one after the other, while all of them wait; then it releases
//!   them all.
//! - [`SamplerKind::Partial`] (section 3): a *partial* safepoint. Only the
//!   first `--sample-threads` runnable threads to reach a yieldpoint are
//!   held; threads arriving later are not held at all. Waiting threads are
//!   sampled too, the samples divided between runnable and waiting threads
//!   in proportion to their numbers (section 3.1, [`divide`]); the waiting
//!   ones are drawn at random. The sampler thread walks the held stacks.
//! - [`SamplerKind::SelfSampling`] (section 4): the same partial safepoint,
//!   but each selected runnable thread takes a ticket and walks its *own*
//!   stack before it parks ([`vm::hooks::ThreadListener::safepoint`]); the
//!   sampler thread only waits for them, and walks the selected waiting
//!   threads, which cannot walk themselves.
//!
//! The walk itself is the listener's (`--walk=full|marked`, into the
//! thread's own recorder and calling context tree), whoever runs it: the
//! sampler thread calls the held thread's listener, which is safe because a
//! held thread touches neither its frames nor its listener until released.
//!
//! `--sampler=self` under `--clock=virtual` has no sampler thread: every
//! thread samples itself at each tick of its own virtual clock, held by
//! nobody (the behaviour of `--profile=timer` before samplers existed, and
//! still that of `--profile=cbs`). The other two samplers need a real clock
//! and are a usage error with `--clock=virtual` ([`crate::config`]),
//! except on a simulated machine (`--clock=virtual --cores=N`): there all
//! three run their protocols in the machine's virtual time ([`simulate`],
//! [`vm::simsample`]), ticked by the scheduler instead of a thread.
//!
//! The counters ([`SamplerTotals`]) go into the profile's `run` section:
//! samples requested and taken, safepoints, and the time threads spent
//! held (`held_ns`), so that each sampler's cost is in the profile itself.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use vm::hooks::{ThreadCtx, ThreadListener};
use vm::instr::YieldKind;
use vm::runtime::Vm;
use vm::safepoint::{Selection, Walkers};
use vm::thread::{ThreadShared, ThreadState};

use crate::stop::StopSignal;

/// `--sampler`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SamplerKind {
    /// Selected threads walk their own stacks in a partial safepoint.
    #[default]
    SelfSampling,
    /// A global safepoint; the sampler thread walks every stack.
    Safepoint,
    /// A partial safepoint; the sampler thread walks the held stacks.
    Partial,
}

impl SamplerKind {
    /// The name used on the command line and in profiles.
    pub fn name(self) -> &'static str {
        match self {
            SamplerKind::SelfSampling => "self",
            SamplerKind::Safepoint => "safepoint",
            SamplerKind::Partial => "partial",
        }
    }
}

impl FromStr for SamplerKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "self" => Ok(SamplerKind::SelfSampling),
            "safepoint" => Ok(SamplerKind::Safepoint),
            "partial" => Ok(SamplerKind::Partial),
            _ => Err(format!(
                "--sampler: `{s}` is not one of: self, safepoint, partial"
            )),
        }
    }
}

impl fmt::Display for SamplerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The default `--sample-threads`: the number of cores (the paper's
/// choice, section 7).
pub fn default_sample_threads() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
}

/// Section 3.1: how `n` samples are divided between `runnable` and
/// `waiting` threads (shared with the simulated machine's samplers).
pub use vm::simsample::divide;

/// How a partial safepoint (`partial`, `self`) chooses its threads and
/// holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialOptions {
    /// `--sample-threads`: threads one tick samples.
    pub threads: u32,
    /// `--runnable-only`: no share for waiting threads (section 3.1 off).
    pub runnable_only: bool,
    /// `--no-hold`: a self-sampling thread goes on as soon as it has
    /// walked itself, instead of parking until all selected threads have
    /// ([`Walkers::ThemselvesAndGoOn`]).
    pub no_hold: bool,
}

/// What a sampler did over a run (the profile's `run` counters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SamplerTotals {
    /// Safepoints requested (ticks).
    pub safepoints: u64,
    /// Thread samples asked for: every live thread per tick (`safepoint`),
    /// or the runnable and waiting threads chosen (`partial`, `self`).
    pub requested: u64,
    /// Thread samples taken (stacks walked), by the sampler thread or by
    /// the threads themselves.
    pub taken: u64,
    /// Nanoseconds threads spent held at a yieldpoint, summed over threads.
    pub held_ns: u64,
    /// Nanoseconds the sampler thread spent from requests to releases.
    pub pause_ns: u64,
    /// Nanoseconds the ticks came late (the sampler thread woke after its
    /// time), summed over ticks: a busy machine stretches the interval.
    pub late_ns: u64,
    /// Safepoints that gave up waiting for a thread.
    pub timed_out: u64,
}

#[derive(Default)]
struct Counters {
    safepoints: AtomicU64,
    requested: AtomicU64,
    taken: AtomicU64,
    pause_ns: AtomicU64,
    late_ns: AtomicU64,
    timed_out: AtomicU64,
}

/// Runs this profile's sampler on the simulated machine of `vm`
/// (`--clock=virtual --cores=N`), in virtual time, with the protocol,
/// interval, selection and walk `c` asks for (see [`vm::simsample`]).
/// Returns false if `vm` simulates no machine.
pub fn simulate(vm: &Vm, c: &crate::config::ProfileConfig) -> bool {
    use crate::config::WalkKind as Walk;
    use vm::simsample::{Protocol, Sampling, WalkCost};
    let protocol = match c.sampler {
        SamplerKind::Safepoint => Protocol::Global,
        SamplerKind::Partial => Protocol::Partial,
        SamplerKind::SelfSampling if c.no_hold => Protocol::SelfAndGoOn,
        SamplerKind::SelfSampling => Protocol::SelfThenPark,
    };
    let max = c.max_walk as usize;
    let walk = match c.walk {
        Walk::Top => WalkCost::Full(1),
        Walk::Full => WalkCost::Full(max),
        Walk::Marked => WalkCost::Marked(max),
        Walk::Incremental => WalkCost::Incremental,
    };
    vm.simulate_sampling(Sampling {
        protocol,
        interval: c.interval_ns.max(1),
        threads: c.sample_threads.max(1) as usize,
        runnable_only: c.runnable_only,
        walk,
        seed: c.seed,
        jitter: vm::simsample::TICK_JITTER,
    })
}

/// The profile's `run` counters of a simulated sampler (its pause and
/// walk cycles have keys of their own).
pub fn simulated_totals(t: vm::simsample::SimTotals) -> SamplerTotals {
    SamplerTotals {
        safepoints: t.safepoints,
        requested: t.requested,
        taken: t.taken,
        ..SamplerTotals::default()
    }
}

/// The yieldpoint a thread is stopped at: from the instruction at its pc
/// if it is parked at a yieldpoint (or about to park, self-sampling);
/// `None` for a thread blocked in `sleep` or `join`, whose top frame is
/// sampled as at a backedge (the method, no call edge).
pub fn stopped_at(t: &ThreadCtx<'_>) -> Option<YieldKind> {
    if t.thread.state().is_blocked() {
        return None;
    }
    let top = t.frames.last()?;
    let body = t.program.body(top.body);
    body.code.get(t.pc as usize).and_then(|i| i.yield_kind())
}

/// Walks one held thread for the sampler thread: calls its listener's
/// [`ThreadListener::safepoint`], as the thread itself does when it
/// samples itself. Returns whether a sample was taken.
pub fn sample_held(t: &mut ThreadCtx<'_>, listener: Option<&mut dyn ThreadListener>) -> bool {
    match listener {
        Some(l) if !t.frames.is_empty() => {
            l.safepoint(t);
            true
        }
        _ => false,
    }
}

/// The sampler thread of one run.
pub struct SamplerThread {
    stop: Arc<StopSignal>,
    handle: Option<std::thread::JoinHandle<()>>,
    counters: Arc<Counters>,
    vm: Weak<Vm>,
    held_at_start: u64,
}

impl SamplerThread {
    /// Starts sampling `vm` every `interval` nanoseconds (read again each
    /// period: `--tune` changes it) with `kind`; `partial` says how a
    /// partial safepoint chooses and holds threads; `seed` draws the
    /// waiting threads. An error if the system refuses the thread.
    pub fn start(
        vm: &Arc<Vm>,
        kind: SamplerKind,
        interval_ns: Arc<AtomicU64>,
        partial: PartialOptions,
        seed: u64,
    ) -> Result<SamplerThread, crate::spawn::StartError> {
        let stop = Arc::new(StopSignal::default());
        let stopped = stop.clone();
        let counters = Arc::new(Counters::default());
        let weak = Arc::downgrade(vm);
        let held_at_start = vm.parked_ns();
        let handle = {
            let (counters, weak) = (counters.clone(), weak.clone());
            crate::spawn::start("the profiler's sampler thread", "vm-sampler", move || {
                crate::priority::run_ahead_of_the_application();
                let mut rng = StdRng::seed_from_u64(seed ^ 0x5A3F_11E5);
                let interval = || Duration::from_nanos(interval_ns.load(Ordering::Relaxed).max(1));
                let mut next = Instant::now() + interval();
                loop {
                    if stopped.sleep_until(next) {
                        return;
                    }
                    let Some(vm) = weak.upgrade() else { return };
                    // Late from when the tick was due, or from when the
                    // program started if it was due before (nothing is
                    // late before the program starts): a sampler that
                    // oversleeps while the program loads is not late
                    // for the run.
                    let late = vm.started_at().map_or(Duration::ZERO, |start| {
                        Instant::now().saturating_duration_since(start.max(next))
                    });
                    // A wake-up that oversleeps past the program's end
                    // (a loaded machine) is no late tick of the run.
                    if vm.threads.count() > 0 && vm.threads.all_finished() {
                        return;
                    }
                    counters
                        .late_ns
                        .fetch_add(late.as_nanos() as u64, Ordering::Relaxed);
                    tick(&vm, kind, partial, &mut rng, &counters);
                    drop(vm);
                    // Keep to the interval, counting the time the last
                    // sample took (section 7); if behind, start afresh.
                    next += interval();
                    let now = Instant::now();
                    if next < now {
                        next = now + interval();
                    }
                }
            })?
        };
        Ok(SamplerThread {
            stop,
            handle: Some(handle),
            counters,
            vm: weak,
            held_at_start,
        })
    }

    /// Stops the sampler thread and returns what it did.
    pub fn stop(mut self) -> SamplerTotals {
        self.stop_now();
        let c = &self.counters;
        let held_ns = self
            .vm
            .upgrade()
            .map_or(0, |vm| vm.parked_ns().saturating_sub(self.held_at_start));
        SamplerTotals {
            safepoints: c.safepoints.load(Ordering::Relaxed),
            requested: c.requested.load(Ordering::Relaxed),
            taken: c.taken.load(Ordering::Relaxed),
            held_ns,
            pause_ns: c.pause_ns.load(Ordering::Relaxed),
            late_ns: c.late_ns.load(Ordering::Relaxed),
            timed_out: c.timed_out.load(Ordering::Relaxed),
        }
    }

    fn stop_now(&mut self) {
        self.stop.stop();
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

impl Drop for SamplerThread {
    fn drop(&mut self) {
        self.stop_now();
    }
}

/// One tick: choose, request the safepoint, walk, release.
fn tick(
    vm: &Vm,
    kind: SamplerKind,
    partial: PartialOptions,
    rng: &mut StdRng,
    counters: &Counters,
) {
    let live: Vec<Arc<ThreadShared>> = vm
        .threads
        .all()
        .into_iter()
        .filter(|t| t.state() != ThreadState::Finished)
        .collect();
    if live.is_empty() {
        return;
    }
    let mut taken = 0u64;
    let stats = match kind {
        SamplerKind::Safepoint => {
            counters
                .requested
                .fetch_add(live.len() as u64, Ordering::Relaxed);
            vm.safepoint(Selection::All, Walkers::Coordinator, |_, ctx, l| {
                taken += u64::from(sample_held(ctx, l));
            })
        }
        SamplerKind::Partial | SamplerKind::SelfSampling => {
            let mut waiting: Vec<u32> = live
                .iter()
                .filter(|t| t.state().is_blocked())
                .map(|t| t.id)
                .collect();
            let runnable = live.len() - waiting.len();
            let n = partial.threads as usize;
            let (r, w) = if partial.runnable_only {
                (n.min(runnable), 0)
            } else {
                divide(n, runnable, waiting.len(), rng.random::<f64>())
            };
            // Draw w waiting threads at random (a partial Fisher-Yates).
            for i in 0..w {
                let j = rng.random_range(i..waiting.len());
                waiting.swap(i, j);
            }
            waiting.truncate(w);
            waiting.sort_unstable();
            counters
                .requested
                .fetch_add((r + w) as u64, Ordering::Relaxed);
            let walkers = match kind {
                SamplerKind::SelfSampling if partial.no_hold => Walkers::ThemselvesAndGoOn,
                SamplerKind::SelfSampling => Walkers::ThemselvesThenPark,
                _ => Walkers::Coordinator,
            };
            let stats =
                vm.safepoint_including(Selection::First(r), &waiting, walkers, |t, ctx, l| {
                    // A thread parked here after walking itself is counted
                    // below; the waiting ones are the sampler thread's to walk.
                    if !(walkers.by_themselves() && t.state() == ThreadState::Parked) {
                        taken += u64::from(sample_held(ctx, l));
                    }
                });
            taken += stats.walked_themselves as u64;
            stats
        }
    };
    counters.safepoints.fetch_add(1, Ordering::Relaxed);
    counters.taken.fetch_add(taken, Ordering::Relaxed);
    counters
        .pause_ns
        .fetch_add(stats.total_ns, Ordering::Relaxed);
    if stats.timed_out {
        counters.timed_out.fetch_add(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in [
            SamplerKind::SelfSampling,
            SamplerKind::Safepoint,
            SamplerKind::Partial,
        ] {
            assert_eq!(k.name().parse::<SamplerKind>(), Ok(k));
        }
        assert!("jvmti".parse::<SamplerKind>().is_err());
        assert_eq!(SamplerKind::default(), SamplerKind::SelfSampling);
    }

    #[test]
    fn options_resolve_only_where_they_apply() {
        use crate::config::{ClockKind, ProfileKind, ProfileOptions};
        let timer = |sampler: Option<&str>, threads: Option<u32>, clock: Option<ClockKind>| {
            ProfileOptions {
                profile: Some(ProfileKind::Timer),
                sampler: sampler.map(str::to_string),
                sample_threads: threads,
                clock,
                ..Default::default()
            }
            .resolve(1)
        };
        // Defaults: self, the number of cores, a sampler thread on the
        // wall clock only.
        let c = timer(None, None, None).unwrap();
        assert_eq!(c.sampler, SamplerKind::SelfSampling);
        assert_eq!(c.sample_threads, default_sample_threads());
        assert!(c.uses_sampler_thread());
        let c = timer(Some("partial"), Some(3), None).unwrap();
        assert_eq!((c.sampler, c.sample_threads), (SamplerKind::Partial, 3));
        let c = timer(Some("self"), None, Some(ClockKind::Virtual)).unwrap();
        assert!(!c.uses_sampler_thread());
        assert!(timer(Some("safepoint"), None, None).is_ok());
        // Usage errors.
        for (s, n, clock, needle) in [
            (Some("jvmti"), None, None, "--sampler"),
            (Some("partial"), Some(0), None, "at least 1"),
            (Some("safepoint"), Some(2), None, "--sample-threads"),
            (
                Some("safepoint"),
                None,
                Some(ClockKind::Virtual),
                "--clock=wall",
            ),
            (
                Some("partial"),
                None,
                Some(ClockKind::Virtual),
                "--clock=wall",
            ),
            (None, Some(2), Some(ClockKind::Virtual), "--sample-threads"),
        ] {
            let e = timer(s, n, clock).unwrap_err();
            assert!(e.contains(needle), "{s:?} {n:?} {clock:?}: {e}");
        }
        for kind in [
            ProfileKind::Cbs,
            ProfileKind::Counter,
            ProfileKind::Exhaustive,
            ProfileKind::None,
        ] {
            let e = ProfileOptions {
                profile: Some(kind),
                sampler: Some("self".into()),
                ..Default::default()
            }
            .resolve(1)
            .unwrap_err();
            assert!(e.contains("--sampler does not apply"), "{kind}: {e}");
        }
    }

    #[test]
    fn runnable_only_resolves_for_partial_safepoints_only() {
        use crate::config::{ClockKind, ProfileKind, ProfileOptions};
        let resolve = |profile, sampler: &str, clock| {
            ProfileOptions {
                profile: Some(profile),
                sampler: (profile == ProfileKind::Timer).then(|| sampler.to_string()),
                clock: Some(clock),
                runnable_only: true,
                ..Default::default()
            }
            .resolve(1)
        };
        for s in ["partial", "self"] {
            let c = resolve(ProfileKind::Timer, s, ClockKind::Wall).unwrap();
            assert!(c.runnable_only, "{s}");
        }
        let off = ProfileOptions {
            profile: Some(ProfileKind::Timer),
            ..Default::default()
        };
        assert!(!off.resolve(1).unwrap().runnable_only);
        for (profile, s, clock) in [
            (ProfileKind::Timer, "safepoint", ClockKind::Wall),
            (ProfileKind::Timer, "self", ClockKind::Virtual),
            (ProfileKind::Cbs, "", ClockKind::Wall),
            (ProfileKind::Exhaustive, "", ClockKind::Wall),
        ] {
            let e = resolve(profile, s, clock).unwrap_err();
            assert!(
                e.contains("--runnable-only"),
                "{profile} {s} {clock:?}: {e}"
            );
        }
    }

    #[test]
    fn no_hold_resolves_for_self_sampling_only() {
        use crate::config::{ClockKind, ProfileKind, ProfileOptions};
        let resolve = |profile, sampler: Option<&str>, clock| {
            ProfileOptions {
                profile: Some(profile),
                sampler: sampler.map(str::to_string),
                clock: Some(clock),
                no_hold: true,
                ..Default::default()
            }
            .resolve(1)
        };
        assert!(
            resolve(ProfileKind::Timer, None, ClockKind::Wall)
                .unwrap()
                .no_hold
        );
        assert!(
            resolve(ProfileKind::Timer, Some("self"), ClockKind::Wall)
                .unwrap()
                .no_hold
        );
        for (profile, s, clock) in [
            (ProfileKind::Timer, Some("partial"), ClockKind::Wall),
            (ProfileKind::Timer, Some("safepoint"), ClockKind::Wall),
            (ProfileKind::Timer, None, ClockKind::Virtual),
            (ProfileKind::Cbs, None, ClockKind::Wall),
        ] {
            let e = resolve(profile, s, clock).unwrap_err();
            assert!(e.contains("--no-hold"), "{profile} {s:?} {clock:?}: {e}");
        }
    }

    #[test]
    fn samples_are_divided_as_in_section_3_1() {
        // Whole shares need no draw: 4 samples for 6 runnable and 2
        // waiting threads is exactly 1 waiting sample; enough samples for
        // everyone, or only one kind of thread, is no division at all.
        for u in [0.0, 0.5, 0.999] {
            assert_eq!(divide(4, 6, 2, u), (3, 1));
            assert_eq!(divide(8, 3, 2, u), (3, 2));
            assert_eq!(divide(2, 0, 0, u), (0, 0));
            assert_eq!(divide(2, 0, 5, u), (0, 2));
            assert_eq!(divide(2, 5, 0, u), (2, 0));
        }
        // The paper's example: 4 samples, 15 runnable, 6 waiting is 1.14
        // waiting samples: rounded up when the draw is below 0.14.
        assert_eq!(divide(4, 15, 6, 0.5), (3, 1));
        assert_eq!(divide(4, 15, 6, 0.1), (2, 2));
        // Half a sample: a coin toss, not always the waiting threads'.
        assert_eq!(divide(2, 6, 2, 0.25), (1, 1));
        assert_eq!(divide(2, 6, 2, 0.75), (2, 0));
        // Never more than asked for, never more than there are.
        for n in 1..10 {
            for r in 0..12 {
                for w in 0..12 {
                    for u in [0.0, 0.3, 0.7, 0.999] {
                        let (a, b) = divide(n, r, w, u);
                        assert!(a <= r && b <= w, "{n} {r} {w}");
                        assert_eq!(a + b, n.min(r + w), "{n} {r} {w}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_division_is_proportional_on_average() {
        // Draws spread evenly over [0, 1) give the exact share on average.
        for (n, r, w) in [(2, 6, 2), (2, 24, 8), (4, 15, 6), (3, 3, 1), (2, 2, 30)] {
            let draws = 1000;
            let waiting: usize = (0..draws)
                .map(|i| divide(n, r, w, (i as f64 + 0.5) / draws as f64).1)
                .sum();
            let exact = (n * w) as f64 / (r + w) as f64;
            let mean = waiting as f64 / draws as f64;
            assert!(
                (mean - exact).abs() < 0.01,
                "{n} {r} {w}: {mean} vs {exact}"
            );
        }
    }
}
