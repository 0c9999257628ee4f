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
//! and the ready thread ready earliest (ties: the lower thread id); the slice
//! starts at the later of the two times. The thread runs until
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

use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

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
    /// Done.
    Finished,
}

/// One thread's lane.
struct Lane {
    status: Status,
    /// Ready: when it may run next. Joining: when it started waiting.
    ready_at: u64,
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
            core: 0,
            slice_start: 0,
            slice_cycles: 0,
            end_at: 0,
            turn: Arc::new(Condvar::new()),
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

    /// Thread `id`'s quantum ran out at `cycles`: it yields its core and
    /// waits for its next slice. Returns where the new quantum ends.
    pub fn yield_core(&self, id: u32, cycles: u64) -> u64 {
        let mut s = self.state.lock();
        let end = self.end_slice(&mut s, id, cycles);
        let lane = &mut s.lanes[id as usize];
        lane.status = Status::Ready;
        lane.ready_at = end;
        self.dispatch(&mut s);
        self.wait_turn(&mut s, id)
    }

    /// Thread `id` sleeps `ns` of virtual time from `cycles` on. Returns
    /// where its quantum ends when it runs again.
    pub fn sleep(&self, id: u32, cycles: u64, ns: u64) -> u64 {
        let mut s = self.state.lock();
        let end = self.end_slice(&mut s, id, cycles);
        let lane = &mut s.lanes[id as usize];
        lane.status = Status::Ready;
        lane.ready_at = end.saturating_add(ns);
        self.dispatch(&mut s);
        self.wait_turn(&mut s, id)
    }

    /// Thread `id` joins thread `target` at `cycles`. If `target` has
    /// ended, it goes on (its time moved to the target's end, if later);
    /// otherwise it waits until `target` ends. Returns where its quantum
    /// ends, or [`NobodyToRun`] if no thread could ever end the wait (every
    /// thread left is waiting in `join`).
    pub fn join(&self, id: u32, cycles: u64, target: u32) -> Result<u64, NobodyToRun> {
        let mut s = self.state.lock();
        let now = now_of(&s.lanes[id as usize], cycles);
        let t = &s.lanes[target as usize];
        if t.status == Status::Finished && t.end_at <= now {
            let lane = &s.lanes[id as usize];
            return Ok(lane.slice_cycles + self.machine.quantum);
        }
        let finished_at = (t.status == Status::Finished).then_some(t.end_at);
        let end = self.end_slice(&mut s, id, cycles);
        let lane = &mut s.lanes[id as usize];
        match finished_at {
            Some(at) => {
                lane.status = Status::Ready;
                lane.ready_at = at;
            }
            None => {
                lane.status = Status::Joining(target);
                lane.ready_at = end;
            }
        }
        if !s.lanes.iter().any(|l| l.status == Status::Ready) {
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
        s.lanes[id as usize].status = Status::Finished;
        s.lanes[id as usize].end_at = end;
        for l in s.lanes.iter_mut() {
            if l.status == Status::Joining(id) {
                l.status = Status::Ready;
                l.ready_at = l.ready_at.max(end);
            }
        }
        self.dispatch(&mut s);
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
        let Some(id) = s
            .lanes
            .iter()
            .enumerate()
            .filter(|(_, l)| l.status == Status::Ready)
            .min_by_key(|(i, l)| (l.ready_at, *i))
            .map(|(i, _)| i)
        else {
            return;
        };
        let (core, free) = s
            .core_free
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|&(i, t)| (t, i))
            .expect("at least one core");
        let lane = &mut s.lanes[id];
        lane.status = Status::Running;
        lane.core = core;
        lane.slice_start = lane.ready_at.max(free);
        s.running = Some(id as u32);
        s.slices += 1;
        lane.turn.notify_one();
    }

    /// Waits until `id` holds the baton; returns where its quantum ends.
    fn wait_turn(&self, s: &mut parking_lot::MutexGuard<'_, State>, id: u32) -> u64 {
        let turn = s.lanes[id as usize].turn.clone();
        while s.running != Some(id) {
            turn.wait(s);
        }
        s.lanes[id as usize].slice_cycles + self.machine.quantum
    }
}

/// A running thread's current virtual time, given its cycle count.
fn now_of(lane: &Lane, cycles: u64) -> u64 {
    lane.slice_start + cycles.saturating_sub(lane.slice_cycles)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert_eq!(s.yield_core(0, 100), 200);
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
            s.sleep(0, 0, 0);
            // Both started at 0 on their own cores.
            s.finish(0, 100);
        });
        assert_eq!(s.makespan(), 100);
    }

    #[test]
    fn a_join_with_nobody_left_to_run_is_reported() {
        let s = machine(1);
        s.register(0, None);
        s.begin(0);
        s.register(1, Some((0, 0)));
        // Pretend thread 1 waits for 0 (it never got to run here).
        s.state.lock().lanes[1].status = Status::Joining(0);
        assert_eq!(s.join(0, 10, 1), Err(NobodyToRun));
    }
}
