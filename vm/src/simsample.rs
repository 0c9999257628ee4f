//! The many-thread samplers on the simulated machine (`--clock=virtual
//! --cores=N`): one sampler tick resolved in virtual time, after Hofer,
//! Gnedt & Mössenböck 2015 (global safepoints, section 2.2; partial
//! safepoints, section 3 and 3.1; self-sampling, section 4; incremental
//! stack tracing, section 5).
//!
//! The scheduler ([`crate::schedule`]) stops every thread that runs at the
//! tick's time `at` at its first yieldpoint from then on (its *arrival*),
//! and knows which threads are blocked (`sleep`, `join`) at `at`. With all
//! of that known, [`resolve`] plays the protocol: who is held, when the
//! coordinator (the sampler thread, on a core of its own) has walked what,
//! when each thread runs again, and what it cost, from the constants of
//! [`crate::profiler_cost`]. The walks themselves are the threads' listeners'
//! (the scheduler has each sampled thread take them when it resumes, with
//! the frames it stopped with), so the calling context trees are the real
//! ones.

use crate::profiler_cost::*;

/// Which safepoint a tick requests, and who walks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `--sampler=safepoint`: every live thread held, the coordinator
    /// walks them one after the other (section 2.2).
    Global,
    /// `--sampler=partial`: the first arrivals held, the coordinator walks
    /// them (section 3).
    Partial,
    /// `--sampler=self`: the first arrivals walk themselves, then park
    /// until all have (section 4, Figure 4).
    SelfThenPark,
    /// `--sampler=self --no-hold`: they walk themselves and go on.
    SelfAndGoOn,
}

/// How a walk examines the stack (`--walk`), for its cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkCost {
    /// Every frame, up to this many.
    Full(usize),
    /// The frames above the first marked one, up to this many.
    Marked(usize),
    /// The top frame and a patch; the frames below are decoded by
    /// trampolines when they are returned into.
    Incremental,
}

/// A sampler on the simulated machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sampling {
    /// The safepoint and who walks.
    pub protocol: Protocol,
    /// `--interval`, in cycles of virtual time.
    pub interval: u64,
    /// `--sample-threads` (partial safepoints).
    pub threads: usize,
    /// `--runnable-only`: no share for waiting threads.
    pub runnable_only: bool,
    /// `--walk`.
    pub walk: WalkCost,
    /// Seeds the draw of waiting threads and the ticks' jitter.
    pub seed: u64,
    /// The ticks' jitter: each gap between two ticks is the interval plus
    /// or minus up to `1 / jitter` of it, drawn from the seed
    /// ([`TICK_JITTER`] in profiled runs); 0 for exact
    /// ticks.
    pub jitter: u64,
}

/// The ticks' jitter in profiled runs ([`Sampling::jitter`], drawn by
/// [`crate::schedule`]): each gap between two ticks is the interval plus
/// or minus up to `1 / TICK_JITTER` of it (5%), drawn uniformly from the
/// seed.
///
/// A real timer wakes the sampler thread some microseconds late, a
/// different amount every time, so its ticks fall at every point of a
/// program's loops. Exact ticks on the simulated machine would not: every
/// thread runs the same cycles between two ticks, so a thread's samples
/// step through its loop by a fixed amount and can see only a few of its
/// points (aliasing). On `many.bc` with 32 threads on 32 cores, exact ticks
/// at 1 ms gave a cct-overlap of 85.7 to the global safepoint and 76.7 to
/// self-sampling, whose shorter pauses step differently (docs/SAMPLERS.md).
/// The mean gap stays the interval.
pub const TICK_JITTER: u64 = 20;

/// The cycle count of thread `thread`'s first tick under the virtual clock
/// of period `period` (`--clock=virtual` without `--cores`, where each
/// thread ticks on its own cycles; `u64::MAX` for no clock): a phase drawn
/// from `seed`, uniformly in `1..=period`.
///
/// A real timer's first tick lands anywhere within its period, so two runs
/// sample different points of a program's loops. Ticks every `period`
/// cycles from cycle `period` would not: every seed would give the timer
/// the same samples. The draw is the same generator as the jitter's
/// ([`Draws`]), drawn once per thread and never on the interpreter's hot
/// path.
pub(crate) fn first_tick(period: u64, seed: u64, thread: u32) -> u64 {
    if period == 0 {
        return u64::MAX;
    }
    let mut draws =
        Draws(seed ^ 0x3C6E_F372 ^ u64::from(thread).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    1 + draws.draw() % period
}

/// What the simulated sampler did over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimTotals {
    /// Ticks (safepoints requested).
    pub safepoints: u64,
    /// Thread samples asked for.
    pub requested: u64,
    /// Thread samples taken (walks done).
    pub taken: u64,
    /// Thread-cycles threads stood stopped at a safepoint (from arriving
    /// or waking to running again), summed over threads.
    pub pause_cycles: u64,
    /// Cycles of stack walking, by the coordinator or the threads.
    pub walk_cycles: u64,
    /// The protocols' work (tickets, parks, releases, the coordinator's
    /// visits) in the cost table's items; the walks are the listeners'.
    pub work: Work,
    /// The ticks' latencies ([`Latencies`]), `None` before the first tick.
    pub latency: Option<Latencies>,
}

/// The distribution of the ticks' latencies, in cycles of virtual time:
/// from a tick to the end of its safepoint (the release of the held
/// threads, or the last thread's own walk), Hofer et al.'s "time it takes
/// to pause threads and take samples" (section 7.2). Quantiles by nearest
/// rank over the ticks: the paper's box plot (quartiles, whiskers at the
/// 2.5th and 97.5th percentiles) and the largest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Latencies {
    /// The 2.5th percentile.
    pub p2_5: u64,
    /// The lower quartile.
    pub q1: u64,
    /// The median.
    pub median: u64,
    /// The upper quartile.
    pub q3: u64,
    /// The 97.5th percentile.
    pub p97_5: u64,
    /// The largest.
    pub max: u64,
}

impl Latencies {
    /// The quantiles of `ticks` (one latency per tick, in any order);
    /// `None` for no tick.
    pub fn of(ticks: &[u64]) -> Option<Latencies> {
        let mut v = ticks.to_vec();
        v.sort_unstable();
        let last = v.len().checked_sub(1)?;
        // Nearest rank: the smallest value with at least q of the ticks at
        // or below it.
        let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
        Some(Latencies {
            p2_5: at(0.025),
            q1: at(0.25),
            median: at(0.5),
            q3: at(0.75),
            p97_5: at(0.975),
            max: v[last],
        })
    }
}

/// A running thread that reached a yieldpoint at or after the tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    pub id: u32,
    /// Virtual time it reached the yieldpoint.
    pub at: u64,
    /// Its frames.
    pub depth: usize,
    /// Its depth when it was last sampled (0: never).
    pub sampled_depth: usize,
}

/// A thread blocked in `sleep` or `join` at the tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Blocked {
    pub id: u32,
    /// When it would run again (`u64::MAX`: when a joined thread ends).
    pub wakes: u64,
    pub depth: usize,
    pub sampled_depth: usize,
}

/// What becomes of one thread after a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Resume {
    pub id: u32,
    /// It may not run before this virtual time.
    pub not_before: u64,
    /// It was sampled (walks its own stack when it resumes).
    pub sampled: bool,
}

/// A tick's outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub resume: Vec<Resume>,
    pub requested: u64,
    pub pause: u64,
    pub walk: u64,
    /// When the tick's work ended (the coordinator's release).
    pub end: u64,
    /// The protocol's work ([`SimTotals::work`]).
    pub work: Work,
}

/// Section 3.1: how `n` samples are divided between `runnable` and
/// `waiting` threads. Returns (runnable samples, waiting samples).
///
/// With enough samples for every thread, every thread is sampled.
/// Otherwise the waiting threads' share is `n × waiting / (runnable +
/// waiting)` samples, in proportion to their numbers as the paper asks,
/// and its fraction is rounded up with that probability (`u` is a uniform
/// draw from [0, 1)): the division is exact on average.
pub fn divide(n: usize, runnable: usize, waiting: usize, u: f64) -> (usize, usize) {
    let total = runnable + waiting;
    if total <= n {
        return (runnable, waiting);
    }
    let share = (n * waiting) as f64 / total as f64;
    let w = share.floor() as usize + usize::from(u < share.fract());
    let w = w.min(waiting).min(n);
    let r = (n - w).min(runnable);
    (r, w)
}

/// A small deterministic generator (SplitMix64) for the draws of waiting
/// threads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Draws(pub u64);

impl Draws {
    fn draw(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.draw() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..hi` (`lo < hi`).
    pub(crate) fn below(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.draw() % (hi - lo) as u64) as usize
    }
}

impl WalkCost {
    /// Cycles of one sample of a stack of `depth` frames last sampled at
    /// `sampled_depth`: (during the safepoint, later by trampolines).
    ///
    /// The simulation does not see the returns between two samples, so a
    /// marked walk and the trampolines are charged the frames above the
    /// depth of the last sample, at least one: a lower bound of the frames
    /// that changed.
    pub fn cycles(self, depth: usize, sampled_depth: usize) -> (u64, u64) {
        let changed = (depth.saturating_sub(sampled_depth) + 1).min(depth.max(1)) as u64;
        match self {
            WalkCost::Full(max) => (depth.min(max).max(1) as u64 * WALK_FRAME_CYCLES, 0),
            WalkCost::Marked(max) => (changed.min(max as u64) * WALK_FRAME_CYCLES, 0),
            WalkCost::Incremental => (INCREMENTAL_SAMPLE_CYCLES, (changed - 1) * TRAMPOLINE_CYCLES),
        }
    }
}

/// Resolves the tick at virtual time `at`. `arrivals` are the threads that
/// ran at `at`, `blocked` those blocked then.
pub(crate) fn resolve(
    s: &Sampling,
    at: u64,
    arrivals: &mut [Arrival],
    blocked: &[Blocked],
    draws: &mut Draws,
) -> Outcome {
    arrivals.sort_by_key(|a| (a.at, a.id));
    match s.protocol {
        Protocol::Global => global(s, at, arrivals, blocked),
        _ => partial(s, at, arrivals, blocked, draws),
    }
}

/// Section 2.2: every thread parks; then the coordinator walks each stack
/// in turn; then it releases them all.
fn global(s: &Sampling, at: u64, arrivals: &[Arrival], blocked: &[Blocked]) -> Outcome {
    let mut o = Outcome {
        requested: (arrivals.len() + blocked.len()) as u64,
        ..Outcome::default()
    };
    let safe = arrivals
        .iter()
        .map(|a| a.at + PARK_CYCLES)
        .fold(at, u64::max);
    let held = arrivals.len() as u64;
    o.work.charge(CostItem::Park, held);
    o.work.charge(CostItem::Release, held);
    o.work.charge(CostItem::Coordinator, o.requested);
    let mut t = safe;
    let mut later = Vec::new();
    let stacks = arrivals
        .iter()
        .map(|a| (a.id, a.depth, a.sampled_depth))
        .chain(blocked.iter().map(|b| (b.id, b.depth, b.sampled_depth)));
    for (id, depth, sampled) in stacks {
        let (now, after) = s.walk.cycles(depth, sampled);
        t += COORDINATOR_PER_THREAD_CYCLES + now;
        o.walk += now + after;
        later.push((id, after));
    }
    let release = t + release_cycles(!arrivals.is_empty());
    for (a, &(_, after)) in arrivals.iter().zip(&later) {
        o.pause += release - a.at;
        o.resume.push(resume(a.id, release + after, true));
    }
    for (b, &(_, after)) in blocked.iter().zip(&later[arrivals.len()..]) {
        o.pause += release.saturating_sub(b.wakes);
        o.resume.push(resume(b.id, release + after, true));
    }
    o.end = release;
    o
}

/// Sections 3, 3.1 and 4: the first arrivals (and a share of the blocked
/// threads) are sampled; the others are not held at all.
fn partial(
    s: &Sampling,
    at: u64,
    arrivals: &[Arrival],
    blocked: &[Blocked],
    draws: &mut Draws,
) -> Outcome {
    let (r, w) = if s.runnable_only {
        (s.threads.min(arrivals.len()), 0)
    } else {
        divide(s.threads, arrivals.len(), blocked.len(), draws.unit())
    };
    let mut chosen: Vec<usize> = (0..blocked.len()).collect();
    for i in 0..w {
        let j = draws.below(i, chosen.len());
        chosen.swap(i, j);
    }
    chosen.truncate(w);
    chosen.sort_unstable();
    let mut o = Outcome {
        requested: (r + w) as u64,
        ..Outcome::default()
    };
    let (selected, passed) = arrivals.split_at(r);
    // The coordinator walks the chosen blocked threads from the request on
    // (self-sampling), or every held stack once the selection is safe.
    let by_themselves = matches!(s.protocol, Protocol::SelfThenPark | Protocol::SelfAndGoOn);
    let (held, visited) = (selected.len() as u64, chosen.len() as u64);
    if by_themselves {
        o.work.charge(CostItem::Ticket, held);
        o.work.charge(CostItem::Coordinator, visited);
    } else {
        o.work.charge(CostItem::Coordinator, held + visited);
    }
    if s.protocol != Protocol::SelfAndGoOn {
        o.work.charge(CostItem::Park, held);
        o.work.charge(CostItem::Release, held);
    }
    let mut coordinator = if by_themselves {
        at
    } else {
        selected
            .iter()
            .map(|a| a.at + PARK_CYCLES)
            .fold(at, u64::max)
    };
    let mut own_done = Vec::new();
    let mut later = Vec::new();
    for a in selected {
        let (now, after) = s.walk.cycles(a.depth, a.sampled_depth);
        o.walk += now + after;
        later.push(after);
        if by_themselves {
            own_done.push(a.at + TICKET_CYCLES + now);
        } else {
            coordinator += COORDINATOR_PER_THREAD_CYCLES + now;
        }
    }
    let mut blocked_after = Vec::new();
    for &i in &chosen {
        let b = &blocked[i];
        let (now, after) = s.walk.cycles(b.depth, b.sampled_depth);
        o.walk += now + after;
        coordinator += COORDINATOR_PER_THREAD_CYCLES + now;
        blocked_after.push(after);
    }
    let held_until = match s.protocol {
        // Each parks after its walk; all are released together.
        Protocol::SelfThenPark => {
            own_done
                .iter()
                .map(|d| d + PARK_CYCLES)
                .fold(coordinator, u64::max)
                + release_cycles(!selected.is_empty())
        }
        Protocol::SelfAndGoOn => coordinator,
        Protocol::Partial | Protocol::Global => coordinator + release_cycles(!selected.is_empty()),
    };
    for (i, a) in selected.iter().enumerate() {
        let go = match s.protocol {
            Protocol::SelfAndGoOn => own_done[i],
            _ => held_until,
        };
        o.pause += go - a.at;
        o.resume.push(resume(a.id, go + later[i], true));
    }
    for a in passed {
        o.resume.push(resume(a.id, a.at, false));
    }
    for (k, &i) in chosen.iter().enumerate() {
        let b = &blocked[i];
        o.pause += held_until.saturating_sub(b.wakes);
        o.resume
            .push(resume(b.id, held_until + blocked_after[k], true));
    }
    o.end = own_done.iter().copied().fold(held_until, u64::max);
    o
}

/// The release costs a wake-up if some thread parked (a thread blocked in
/// `sleep` or `join` is not woken by it).
fn release_cycles(someone_parked: bool) -> u64 {
    if someone_parked {
        RELEASE_CYCLES
    } else {
        0
    }
}

fn resume(id: u32, not_before: u64, sampled: bool) -> Resume {
    Resume {
        id,
        not_before,
        sampled,
    }
}

#[cfg(test)]
mod tests;
