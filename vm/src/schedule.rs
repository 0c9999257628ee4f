//! A simulated N-core machine in virtual time (`--clock=virtual
//! --cores=N`): a deterministic scheduler that hands a baton from thread to
//! thread at yieldpoints.
//!
//! Every VM thread keeps its own OS thread, but only the thread holding the
//! baton runs VM code; all others wait on their own condition variable. So
//! one OS thread at a time executes the program, and what it does (output
//! order, globals, profiles) depends only on the program, its input and the
//! seed, never on the OS scheduler.
//!
//! The simulated machine has `cores` cores, each with the virtual time
//! (cycles of the cost model, 1 cycle = 1 ns) at which it becomes free. Each
//! thread has a *lane*: the virtual time at which it is ready to run. A
//! *slice* is one stretch of a thread on one core. The next slice is chosen
//! deterministically: the core free earliest (ties: the lower core number)
//! and, of the threads ready by then, the one in line longest (a run queue;
//! ties: the lower thread id), or if none is, the thread ready earliest; the
//! slice starts at the later of the two times. The thread runs until
//!
//! - its quantum (`--quantum` cycles of its own execution) has run out, at
//!   its next yieldpoint: it is ready again at the slice's end;
//! - it sleeps: ready again at the slice's end plus the sleep;
//! - it joins an unfinished thread: ready when that thread ends;
//! - it ends.
//!
//! The slice's end is its start plus the cycles the thread executed in it;
//! the core is free from then on. Slices run one after the other, in the
//! order they are chosen, so two slices that overlap in virtual time on two
//! cores see each other's effects at slice granularity (one slice's writes
//! are all visible to the next chosen), not instruction by instruction. See
//! docs/SAMPLERS.md, "Simulated cores".
//!
//! With a sampler ([`Scheduler::set_sampling`]), the machine also ticks
//! every `--interval` of its own time: a slice also ends at the thread's
//! first yieldpoint at or after the next tick (the thread *arrives*), and
//! once no thread can still run before the tick, [`crate::simsample`]
//! plays the safepoint's protocol over the arrived and blocked threads;
//! each sampled thread walks its own frames when it next gets the baton
//! ([`Scheduler::take_walks`]), and may not run before it is released.

use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use crate::simsample::{self, Arrival, Blocked, Draws, Sampling, SimTotals};

/// Default of `--quantum`: cycles a thread runs before it yields its core
/// (100 us of virtual time).
pub const DEFAULT_QUANTUM: u64 = 100_000;

/// Cycles of virtual time per millisecond of `sleep` (1 cycle = 1 ns).
pub const CYCLES_PER_MS: u64 = 1_000_000;

/// The simulated machine's shape (`--cores`, `--quantum`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    /// Simulated cores (at least 1).
    pub cores: usize,
    /// Cycles a thread runs before it yields its core at a yieldpoint (at
    /// least 1).
    pub quantum: u64,
}

/// Where a thread stands with the scheduler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// May run from `ready_at` on.
    Ready,
    /// Holds the baton (runs on `core`).
    Running,
    /// Waits for the thread with this id to end.
    Joining(u32),
    /// Stopped at its first yieldpoint at or after the pending tick, at
    /// `ready_at`, until the tick is resolved.
    Arrived,
    /// Done.
    Finished,
}

/// One thread's lane.
struct Lane {
    status: Status,
    /// Ready: when it may run next. Joining: when it started waiting.
    ready_at: u64,
    /// When it became ready, not counting a safepoint's hold: of two
    /// threads released together, the one that waited longer runs first.
    queued: u64,
    /// Arrived: when it reached the tick (at a yieldpoint, or, without a
    /// core, when one would have been free for it).
    arrived_at: u64,
    /// The core of the current slice.
    core: usize,
    /// Virtual time the current slice started.
    slice_start: u64,
    /// The thread's own cycle count when the current slice started (or when
    /// it last handed the baton over).
    slice_cycles: u64,
    /// When it ended (Finished).
    end_at: u64,
    /// Signalled when the thread is given the baton.
    turn: Arc<Condvar>,
    /// Its frames when it last handed the baton over.
    depth: usize,
    /// Its frames when it was last sampled (0: never).
    sampled_depth: usize,
    /// Samples a simulated safepoint took of it, to walk when it resumes.
    walks_due: u32,
}

/// The simulated sampler's state.
struct Ticking {
    sampling: Sampling,
    /// Virtual time of the next tick.
    at: u64,
    draws: Draws,
    /// Draws the ticks' jitter ([`Sampling::jitter`]), apart from `draws` so
    /// that the division of samples draws as it would without it.
    jitter: Draws,
    totals: SimTotals,
    /// Each tick's latency ([`simsample::Latencies`]), in cycles.
    latencies: Vec<u64>,
}

struct State {
    /// The thread holding the baton.
    running: Option<u32>,
    /// Per core, the virtual time it becomes free.
    core_free: Vec<u64>,
    /// Per thread id.
    lanes: Vec<Lane>,
    /// Slices started (a statistic).
    slices: u64,
    /// The simulated sampler, if any.
    ticking: Option<Ticking>,
}

/// Why a `join` could not wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NobodyToRun;

/// The deterministic scheduler of a simulated N-core machine.
pub struct Scheduler {
    machine: Machine,
    state: Mutex<State>,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler")
            .field("machine", &self.machine)
            .finish()
    }
}

impl Scheduler {
    /// A machine with nothing running.
    pub fn new(machine: Machine) -> Scheduler {
        let machine = Machine {
            cores: machine.cores.max(1),
            quantum: machine.quantum.max(1),
        };
        Scheduler {
            machine,
            state: Mutex::new(State {
                running: None,
                core_free: vec![0; machine.cores],
                lanes: Vec::new(),
                slices: 0,
                ticking: None,
            }),
        }
    }

    /// The machine simulated.
    pub fn machine(&self) -> Machine {
        self.machine
    }

    /// Registers thread `id` (ids come in order 0, 1, 2, ...), ready at
    /// virtual time `at`: `spawner`'s current time, given its id and cycle
    /// count, or 0 for `main`.
    pub fn register(&self, id: u32, spawner: Option<(u32, u64)>) {
        let mut s = self.state.lock();
        let at = spawner.map_or(0, |(sid, cycles)| now_of(&s.lanes[sid as usize], cycles));
        debug_assert_eq!(s.lanes.len(), id as usize);
        s.lanes.push(Lane {
            status: Status::Ready,
            ready_at: at,
            queued: at,
            arrived_at: 0,
            core: 0,
            slice_start: 0,
            slice_cycles: 0,
            end_at: 0,
            turn: Arc::new(Condvar::new()),
            depth: 0,
            sampled_depth: 0,
            walks_due: 0,
        });
        self.dispatch(&mut s);
    }

    /// Thread `id` never started (the OS refused it): it ends where it was
    /// to start.
    pub fn never_started(&self, id: u32) {
        let mut s = self.state.lock();
        let lane = &mut s.lanes[id as usize];
        lane.end_at = lane.ready_at;
        let was_running = lane.status == Status::Running;
        lane.status = Status::Finished;
        if was_running {
            let core = lane.core;
            let at = lane.slice_start;
            s.core_free[core] = at;
            s.running = None;
        }
        self.dispatch(&mut s);
    }

    /// Thread `id` is starting: waits for its first slice. Returns the
    /// cycle count at which its quantum ends (its count starts at 0).
    pub fn begin(&self, id: u32) -> u64 {
        let mut s = self.state.lock();
        self.wait_turn(&mut s, id)
    }

    /// Thread `id`'s slice ended at `cycles` with `depth` frames (its
    /// quantum ran out, or it reached the pending tick): it yields its core
    /// and waits for its next slice. Returns where the new slice ends.
    pub fn yield_core(&self, id: u32, cycles: u64, depth: usize) -> u64 {
        let mut s = self.state.lock();
        let end = self.end_slice(&mut s, id, cycles);
        let ticked = s.ticking.as_ref().is_some_and(|t| end >= t.at);
        let lane = &mut s.lanes[id as usize];
        lane.depth = depth;
        lane.status = if ticked {
            Status::Arrived
        } else {
            Status::Ready
        };
        lane.ready_at = end;
        lane.queued = end;
        lane.arrived_at = end;
        self.dispatch(&mut s);
        self.wait_turn(&mut s, id)
    }

    /// Thread `id` sleeps `ns` of virtual time from `cycles` on, with
    /// `depth` frames. Returns where its slice ends when it runs again.
    pub fn sleep(&self, id: u32, cycles: u64, ns: u64, depth: usize) -> u64 {
        let mut s = self.state.lock();
        let end = self.end_slice(&mut s, id, cycles);
        let lane = &mut s.lanes[id as usize];
        lane.depth = depth;
        lane.status = Status::Ready;
        lane.ready_at = end.saturating_add(ns);
        lane.queued = lane.ready_at;
        self.dispatch(&mut s);
        self.wait_turn(&mut s, id)
    }

    /// Thread `id` joins thread `target` at `cycles`. If `target` has
    /// ended, it goes on (its time moved to the target's end, if later);
    /// otherwise it waits until `target` ends. Returns where its quantum
    /// ends, or [`NobodyToRun`] if no thread could ever end the wait (every
    /// thread left is waiting in `join`).
    pub fn join(
        &self,
        id: u32,
        cycles: u64,
        target: u32,
        depth: usize,
    ) -> Result<u64, NobodyToRun> {
        let mut s = self.state.lock();
        s.lanes[id as usize].depth = depth;
        let now = now_of(&s.lanes[id as usize], cycles);
        let t = &s.lanes[target as usize];
        if t.status == Status::Finished && t.end_at <= now {
            return Ok(self.slice_limit(&s, id));
        }
        let finished_at = (t.status == Status::Finished).then_some(t.end_at);
        let end = self.end_slice(&mut s, id, cycles);
        let lane = &mut s.lanes[id as usize];
        match finished_at {
            Some(at) => {
                lane.status = Status::Ready;
                lane.ready_at = at;
                lane.queued = at;
            }
            None => {
                lane.status = Status::Joining(target);
                lane.ready_at = end;
            }
        }
        if !s
            .lanes
            .iter()
            .any(|l| matches!(l.status, Status::Ready | Status::Arrived))
        {
            // Nobody can run: take the baton back and report.
            let lane = &mut s.lanes[id as usize];
            lane.status = Status::Running;
            lane.slice_start = end;
            lane.slice_cycles = cycles;
            s.running = Some(id);
            return Err(NobodyToRun);
        }
        self.dispatch(&mut s);
        Ok(self.wait_turn(&mut s, id))
    }

    /// Thread `id` ended at `cycles`: its joiners become ready, and the
    /// next slice starts.
    pub fn finish(&self, id: u32, cycles: u64) {
        let mut s = self.state.lock();
        let end = self.end_slice(&mut s, id, cycles);
        Self::mark_finished(&mut s, id, end);
        self.dispatch(&mut s);
    }

    /// Thread `id` ended at virtual time `end`: its joiners become ready.
    fn mark_finished(s: &mut State, id: u32, end: u64) {
        s.lanes[id as usize].status = Status::Finished;
        s.lanes[id as usize].end_at = end;
        for l in s.lanes.iter_mut() {
            if l.status == Status::Joining(id) {
                l.status = Status::Ready;
                l.ready_at = l.ready_at.max(end);
                l.queued = l.ready_at;
            }
        }
    }

    /// Thread `id` panicked (see `Vm::thread_panicked`): it ends where its
    /// slice started, and, if it held the baton, hands it on. Ending an
    /// ended thread does nothing.
    pub fn abandon(&self, id: u32) {
        let mut s = self.state.lock();
        let lane = &s.lanes[id as usize];
        match lane.status {
            Status::Finished => {}
            Status::Running => {
                let cycles = lane.slice_cycles;
                drop(s);
                self.finish(id, cycles);
            }
            _ => {
                let at = lane.ready_at;
                Self::mark_finished(&mut s, id, at);
                self.dispatch(&mut s);
            }
        }
    }

    /// The program is stopping: every thread waiting in `join` becomes
    /// ready, to see the stop and end.
    pub fn stop(&self) {
        let mut s = self.state.lock();
        for l in s.lanes.iter_mut() {
            if let Status::Joining(_) = l.status {
                l.status = Status::Ready;
            }
        }
        self.dispatch(&mut s);
    }

    /// The virtual time at which the last slice so far ended (the run's
    /// length once every thread has ended).
    pub fn makespan(&self) -> u64 {
        let s = self.state.lock();
        s.lanes
            .iter()
            .filter(|l| l.status == Status::Finished)
            .map(|l| l.end_at)
            .chain(s.core_free.iter().copied())
            .max()
            .unwrap_or(0)
    }

    /// Slices started so far.
    pub fn slices(&self) -> u64 {
        self.state.lock().slices
    }

    /// Ends the running slice of `id` at its cycle count `cycles`: frees its
    /// core and the baton; returns the slice's end in virtual time.
    fn end_slice(&self, s: &mut State, id: u32, cycles: u64) -> u64 {
        debug_assert_eq!(s.running, Some(id));
        let lane = &mut s.lanes[id as usize];
        let end = now_of(lane, cycles);
        lane.slice_cycles = cycles;
        let core = lane.core;
        s.core_free[core] = end;
        s.running = None;
        end
    }

    /// If nobody holds the baton, gives it to the next slice's thread.
    fn dispatch(&self, s: &mut State) {
        if s.running.is_some() {
            return;
        }
        while self.tick_due(s) {
            self.resolve_tick(s);
        }
        let (core, free) = s
            .core_free
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|&(i, t)| (t, i))
            .expect("at least one core");
        let Some(id) = next_thread(&s.lanes, free) else {
            return;
        };
        let lane = &mut s.lanes[id];
        lane.status = Status::Running;
        lane.core = core;
        lane.slice_start = lane.ready_at.max(free);
        s.running = Some(id as u32);
        s.slices += 1;
        lane.turn.notify_one();
    }

    /// Waits until `id` holds the baton; returns where its slice ends.
    fn wait_turn(&self, s: &mut parking_lot::MutexGuard<'_, State>, id: u32) -> u64 {
        let turn = s.lanes[id as usize].turn.clone();
        while s.running != Some(id) {
            turn.wait(s);
        }
        self.slice_limit(s, id)
    }

    /// Where the running slice of `id` ends, in its own cycles: when its
    /// quantum runs out, or, with a sampler, at the pending tick.
    fn slice_limit(&self, s: &State, id: u32) -> u64 {
        let lane = &s.lanes[id as usize];
        let quantum = lane.slice_cycles + self.machine.quantum;
        match &s.ticking {
            Some(t) => quantum.min(lane.slice_cycles + t.at.saturating_sub(lane.slice_start)),
            None => quantum,
        }
    }

    /// Runs the simulated sampler `sampling` from now on (before the
    /// program starts).
    pub fn set_sampling(&self, sampling: Sampling) {
        let mut s = self.state.lock();
        let mut jitter = Draws(sampling.seed ^ 0x71C4_E12D);
        s.ticking = Some(Ticking {
            at: jittered(&sampling, &mut jitter),
            draws: Draws(sampling.seed ^ 0x5A3F_11E5),
            jitter,
            sampling,
            totals: SimTotals::default(),
            latencies: Vec::new(),
        });
    }

    /// What the simulated sampler did so far.
    pub fn sampling_totals(&self) -> Option<SimTotals> {
        self.state.lock().ticking.as_ref().map(|t| SimTotals {
            latency: simsample::Latencies::of(&t.latencies),
            ..t.totals
        })
    }

    /// The samples of `id` taken at safepoints while it was stopped, to
    /// walk now (its frames are those it stopped with): returns how many,
    /// and counts them taken if `can_walk`.
    pub fn take_walks(&self, id: u32, can_walk: bool) -> u32 {
        let mut s = self.state.lock();
        let n = std::mem::take(&mut s.lanes[id as usize].walks_due);
        if let Some(t) = s.ticking.as_mut().filter(|_| can_walk) {
            t.totals.taken += u64::from(n);
        }
        n
    }

    /// Is the pending tick due: nobody holds the baton, nobody can run
    /// before the tick any more, and some thread could run after it? A
    /// ready thread that cannot get a core before the tick stops where it
    /// is (at the yieldpoint where it lost its core): it arrives when a
    /// core would be free for it, and keeps that core while it parks.
    fn tick_due(&self, s: &mut State) -> bool {
        let Some(at) = s.ticking.as_ref().map(|t| t.at) else {
            return false;
        };
        let core = s.core_free.iter().copied().min().unwrap_or(0);
        let mut waiting: Vec<usize> = Vec::new();
        let mut someone = false;
        for (i, l) in s.lanes.iter().enumerate() {
            match l.status {
                Status::Running => return false,
                // A thread that has not started yet runs to its first
                // yieldpoint like any other.
                Status::Ready if l.ready_at < at && (l.ready_at.max(core) < at || l.depth == 0) => {
                    return false
                }
                Status::Ready if l.ready_at < at => waiting.push(i),
                Status::Ready | Status::Arrived => someone = true,
                _ => {}
            }
        }
        waiting.sort_by_key(|&i| (s.lanes[i].ready_at, s.lanes[i].queued, i));
        for i in waiting {
            let (c, free) = s
                .core_free
                .iter()
                .copied()
                .enumerate()
                .min_by_key(|&(c, t)| (t, c))
                .expect("at least one core");
            let lane = &mut s.lanes[i];
            lane.status = Status::Arrived;
            lane.arrived_at = free.max(lane.ready_at);
            s.core_free[c] = lane.arrived_at + crate::profiler_cost::PARK_CYCLES;
            someone = true;
        }
        someone
    }

    /// Resolves the pending tick (see [`crate::simsample`]) and schedules
    /// the next.
    fn resolve_tick(&self, s: &mut State) {
        let t = s.ticking.as_mut().expect("a tick is due");
        let at = t.at;
        let mut arrivals = Vec::new();
        let mut blocked = Vec::new();
        for (id, l) in s.lanes.iter().enumerate() {
            let id = id as u32;
            match l.status {
                Status::Arrived => arrivals.push(Arrival {
                    id,
                    at: l.arrived_at,
                    depth: l.depth,
                    sampled_depth: l.sampled_depth,
                }),
                Status::Ready | Status::Joining(_) => blocked.push(Blocked {
                    id,
                    wakes: if l.status == Status::Ready {
                        l.ready_at
                    } else {
                        u64::MAX
                    },
                    depth: l.depth,
                    sampled_depth: l.sampled_depth,
                }),
                _ => {}
            }
        }
        let o = simsample::resolve(&t.sampling, at, &mut arrivals, &blocked, &mut t.draws);
        t.totals.safepoints += 1;
        t.totals.requested += o.requested;
        t.totals.pause_cycles += o.pause;
        t.totals.walk_cycles += o.walk;
        t.totals.work.add(&o.work);
        t.latencies.push(o.end.saturating_sub(at));
        let gap = jittered(&t.sampling, &mut t.jitter);
        let next = at + gap;
        // Keep to the interval, counting the time the tick took (section
        // 7); if behind, start afresh from its end.
        t.at = if next < o.end { o.end + gap } else { next };
        for r in o.resume {
            let lane = &mut s.lanes[r.id as usize];
            if lane.status == Status::Arrived {
                lane.status = Status::Ready;
            }
            // `queued` stays: the hold does not move a thread back in line.
            lane.ready_at = lane.ready_at.max(r.not_before);
            if r.sampled {
                lane.walks_due += 1;
                lane.sampled_depth = lane.depth;
            }
        }
    }
}

/// The gap to the next tick of `s` (at least 1 cycle).
fn jittered(s: &Sampling, draws: &mut Draws) -> u64 {
    let interval = s.interval.max(1);
    let spread = interval.checked_div(s.jitter).unwrap_or(0);
    if spread == 0 {
        return interval;
    }
    interval - spread + draws.below(0, 2 * spread as usize + 1) as u64
}

/// The thread the core free at `free` runs next: of the threads ready by
/// then, the one in line longest (`queued`, then the lower id: a run
/// queue, first in first out); if none is, the one ready earliest. Without
/// a sampler `queued` is when a thread became ready, so this is the thread
/// ready earliest; with one, a thread held at a safepoint keeps its place
/// in line, and a thread that a partial safepoint let pass at once cannot
/// overtake the threads it was waiting behind (it would take the core at
/// every tick and starve them).
fn next_thread(lanes: &[Lane], free: u64) -> Option<usize> {
    let ready = || {
        lanes
            .iter()
            .enumerate()
            .filter(|(_, l)| l.status == Status::Ready)
    };
    ready()
        .filter(|(_, l)| l.ready_at <= free)
        .min_by_key(|(i, l)| (l.queued, l.ready_at, *i))
        .or_else(|| ready().min_by_key(|(i, l)| (l.ready_at, l.queued, *i)))
        .map(|(i, _)| i)
}

/// A running thread's current virtual time, given its cycle count.
fn now_of(lane: &Lane, cycles: u64) -> u64 {
    lane.slice_start + cycles.saturating_sub(lane.slice_cycles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::simsample::{Protocol, WalkCost};

    /// A one-thread sampler with full walks: `protocol` every `interval`
    /// cycles, `seed`, `jitter` ([`Sampling::jitter`]).
    fn sampling(protocol: Protocol, interval: u64, seed: u64, jitter: u64) -> Sampling {
        Sampling {
            protocol,
            interval,
            threads: 1,
            runnable_only: false,
            walk: WalkCost::Full(256),
            seed,
            jitter,
        }
    }

    fn machine(cores: usize) -> Scheduler {
        Scheduler::new(Machine {
            cores,
            quantum: 100,
        })
    }

    #[test]
    fn one_core_takes_turns_in_id_order() {
        let s = machine(1);
        s.register(0, None);
        assert_eq!(s.begin(0), 100);
        s.register(1, Some((0, 50)));
        // Thread 1 is ready at 50, thread 0 at 100 after its quantum.
        let st = s.state.lock();
        assert_eq!(st.lanes[1].ready_at, 50);
        drop(st);
        std::thread::scope(|sc| {
            sc.spawn(|| {
                assert_eq!(s.begin(1), 100);
                s.finish(1, 30);
            });
            assert_eq!(s.yield_core(0, 100, 1), 200);
        });
        // 0 ran 0..100, 1 ran 100..130, 0 runs from 130.
        assert_eq!(s.state.lock().lanes[0].slice_start, 130);
        s.finish(0, 110);
        assert_eq!(s.makespan(), 140);
    }

    #[test]
    fn two_cores_run_two_threads_at_the_same_virtual_time() {
        let s = machine(2);
        s.register(0, None);
        s.begin(0);
        s.register(1, Some((0, 0)));
        std::thread::scope(|sc| {
            sc.spawn(|| {
                s.begin(1);
                s.finish(1, 100);
            });
            s.sleep(0, 0, 0, 1);
            // Both started at 0 on their own cores.
            s.finish(0, 100);
        });
        assert_eq!(s.makespan(), 100);
    }

    #[test]
    fn a_tick_stops_the_thread_plays_the_protocol_and_releases_it() {
        use crate::profiler_cost::*;

        let s = machine(1);
        s.set_sampling(sampling(Protocol::Global, 50, 0, 0));
        s.register(0, None);
        // The slice ends at the tick, not at the quantum (100).
        assert_eq!(s.begin(0), 50);
        // It reaches a yieldpoint at 52 with 3 frames: held, walked by the
        // coordinator, released; its next slice ends one interval after
        // the release.
        let end = s.yield_core(0, 52, 3);
        let release = 52
            + PARK_CYCLES
            + COORDINATOR_PER_THREAD_CYCLES
            + 3 * WALK_FRAME_CYCLES
            + RELEASE_CYCLES;
        assert_eq!(s.state.lock().lanes[0].slice_start, release);
        assert_eq!(end, 52 + 50);
        assert_eq!(s.take_walks(0, true), 1);
        assert_eq!(s.take_walks(0, true), 0);
        let t = s.sampling_totals().unwrap();
        assert_eq!((t.safepoints, t.requested, t.taken), (1, 1, 1));
        assert_eq!(t.pause_cycles, release - 52);
        assert_eq!(t.walk_cycles, 3 * WALK_FRAME_CYCLES);
        // The tick's latency: from the tick (50) to the release.
        let l = t.latency.unwrap();
        assert_eq!(
            (l.p2_5, l.median, l.max),
            (release - 50, release - 50, release - 50)
        );
        s.finish(0, 60);
        assert_eq!(s.makespan(), release + 8);
    }

    #[test]
    fn jittered_ticks_spread_around_the_interval() {
        use crate::simsample::TICK_JITTER;
        let mut s = sampling(Protocol::Global, 1_000_000, 7, TICK_JITTER);
        let mut draws = Draws(7);
        let gaps: Vec<u64> = (0..1_000).map(|_| jittered(&s, &mut draws)).collect();
        let spread = 1_000_000 / TICK_JITTER;
        assert!(gaps.iter().all(|g| g.abs_diff(1_000_000) <= spread));
        let distinct: std::collections::BTreeSet<_> = gaps.iter().collect();
        assert!(distinct.len() > 900, "{} distinct gaps", distinct.len());
        let mean = gaps.iter().sum::<u64>() / gaps.len() as u64;
        assert!(mean.abs_diff(1_000_000) < spread / 10, "mean gap {mean}");
        // Exact ticks without it.
        s.jitter = 0;
        assert_eq!(jittered(&s, &mut draws), 1_000_000);
    }

    #[test]
    fn a_sleeper_is_sampled_where_it_sleeps_without_running() {
        let s = machine(1);
        s.set_sampling(sampling(Protocol::SelfThenPark, 1_000, 0, 0));
        s.register(0, None);
        s.begin(0);
        // It sleeps 10 500 cycles from 10: ticks at 1 000, ..., 10 000
        // find it blocked, each takes its sample; it wakes at 10 510.
        s.sleep(0, 10, 10_500, 2);
        assert_eq!(s.take_walks(0, true), 10);
        // Only the last tick's walk can outlast the sleep.
        use crate::profiler_cost::*;
        let walked = 10_000 + COORDINATOR_PER_THREAD_CYCLES + 2 * WALK_FRAME_CYCLES;
        let t = s.sampling_totals().unwrap();
        assert_eq!(
            (t.safepoints, t.pause_cycles),
            (10, walked.saturating_sub(10_510))
        );
        assert_eq!(s.state.lock().lanes[0].slice_start, walked.max(10_510));
    }

    #[test]
    fn a_join_with_nobody_left_to_run_is_reported() {
        let s = machine(1);
        s.register(0, None);
        s.begin(0);
        s.register(1, Some((0, 0)));
        // Pretend thread 1 waits for 0 (it never got to run here).
        s.state.lock().lanes[1].status = Status::Joining(0);
        assert_eq!(s.join(0, 10, 1, 1), Err(NobodyToRun));
    }

    #[test]
    fn a_panicked_thread_hands_the_baton_on() {
        let s = machine(1);
        s.register(0, None);
        s.begin(0);
        s.register(1, Some((0, 0)));
        std::thread::scope(|sc| {
            sc.spawn(|| {
                s.begin(1);
                // Thread 1 panics in its slice, 30 cycles after it started.
                s.state.lock().lanes[1].slice_cycles = 30;
                s.abandon(1);
                s.abandon(1);
            });
            // Thread 0 waits for 1: the abandoned thread ends the wait.
            assert!(s.join(0, 10, 1, 1).is_ok());
            s.finish(0, 20);
        });
        let st = s.state.lock();
        assert_eq!(st.lanes[1].status, Status::Finished);
        assert_eq!(st.lanes[1].end_at, st.lanes[1].slice_start);
    }

    #[test]
    fn a_thread_let_pass_does_not_overtake_the_ones_in_line() {
        let s = machine(1);
        for id in 0..3 {
            s.register(id, None);
        }
        let mut st = s.state.lock();
        // Thread 2 went on at the tick (ready at 100, in line since 100);
        // 0 and 1 were held until 103 and 106 but in line since 50 and 60.
        for (id, ready, queued) in [(0, 106, 50), (1, 103, 60), (2, 100, 100)] {
            st.lanes[id].status = Status::Ready;
            st.lanes[id].ready_at = ready;
            st.lanes[id].queued = queued;
        }
        // The core is free at 110: all three are ready, 0 has waited longest.
        assert_eq!(next_thread(&st.lanes, 110), Some(0));
        // Free at 104: 0 is not ready yet; 1 is before 2 in line.
        assert_eq!(next_thread(&st.lanes, 104), Some(1));
        // Free at 90: nobody is ready, the earliest is.
        assert_eq!(next_thread(&st.lanes, 90), Some(2));
        st.lanes[1].status = Status::Finished;
        assert_eq!(next_thread(&st.lanes, 104), Some(2));
    }
}
