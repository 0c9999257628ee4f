//! Safepoints: bringing threads to a halt at their next yieldpoint.
//!
//! A coordinator (a sampler thread, later a code installer) calls
//! [`Vm::safepoint`](crate::runtime::Vm::safepoint), which runs this
//! module's protocol over the VM's thread registry. The chosen threads are
//! asked, through their control words, to stop at their next yieldpoint;
//! each one *parks* there, publishing a view of its frames, until
//! released. Threads blocked in `sleep` or `join` are already safe: their
//! frames cannot change, and if they wake up while held they park before
//! running again (Hofer et al. 2015, section 2.2).
//!
//! Two selections:
//!
//! - [`Selection::All`], a global safepoint (the JVMTI way): every live
//!   thread must be parked or blocked before anything is inspected;
//! - [`Selection::First`]`(n)`, a partial safepoint (Hofer et al., section
//!   3): only the first `n` running threads to reach a yieldpoint are held;
//!   threads arriving late are not held at all.
//!
//! While the threads are held, the coordinator's visitor runs once per held
//! thread with a [`ThreadCtx`] over that thread's frames and its listener
//! ([`Walkers::Coordinator`]). With self-walking, each selected thread
//! instead calls its own listener's [`ThreadListener::safepoint`] when it
//! arrives (self-sampling, Hofer et al. section 4), so the coordinator only
//! waits; then it parks until released, as in the paper's Figure 4
//! ([`Walkers::ThemselvesThenPark`]), or goes on at once
//! ([`Walkers::ThemselvesAndGoOn`], an extension: nothing it did needs the
//! others).
//!
//! Invariant: a parked or held-blocked thread does not touch its frames or
//! its listener until released; only one safepoint runs at a time.
//!
//! The protocol is the methods of the VM-wide safepoint state, given what
//! they need: the thread registry and the program (the coordinator's
//! side), or the arriving thread's own parking slot (the thread's side).
//! The slots are kept here, by thread id, rather than in [`ThreadShared`]:
//! so this module uses `thread` and `hooks` and neither uses it back
//! (docs/ARCHITECTURE.md, "The VM core's layers").

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::frame::Frame;
use crate::hooks::{ThreadCtx, ThreadListener};
use crate::loader::Program;
use crate::profiler_cost::Work;
use crate::thread::{request, ThreadRegistry, ThreadShared, ThreadState};

/// Which threads a safepoint stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// Every live thread (a global safepoint).
    All,
    /// The first `n` running threads to reach a yieldpoint (a partial
    /// safepoint). Blocked threads are not included.
    First(usize),
}

/// Who walks the stacks of the threads a safepoint selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Walkers {
    /// The coordinator, through its visitor, while the threads are held.
    Coordinator,
    /// Each selected thread walks its own stack when it arrives, then
    /// parks until the coordinator releases every selected thread
    /// (self-sampling, Hofer et al. 2015, section 4 and Figure 4).
    ThemselvesThenPark,
    /// Each selected thread walks its own stack when it arrives and goes on
    /// at once, held by nobody: the paper's VM thread resumes the threads
    /// only when all have sampled, which HotSpot's safepoint protocol
    /// requires and a sample does not.
    ThemselvesAndGoOn,
}

impl Walkers {
    /// Do the selected threads walk themselves?
    pub fn by_themselves(self) -> bool {
        self != Walkers::Coordinator
    }
}

/// What a safepoint cost and whom it held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SafepointStats {
    /// Thread ids that parked at a yieldpoint and were held.
    pub parked: Vec<u32>,
    /// Thread ids held while blocked in `sleep` or `join`.
    pub blocked: Vec<u32>,
    /// Selected threads that walked their own stacks (self-walking).
    pub walked_themselves: usize,
    /// Time from the request until every selected thread was safe.
    pub wait_ns: u64,
    /// Time from the request until the threads were released.
    pub total_ns: u64,
    /// Some selected thread never reached a yieldpoint in time.
    pub timed_out: bool,
}

/// Pointers a parked or blocked thread publishes to its own state.
#[derive(Clone, Copy)]
pub(crate) struct ParkedView {
    pub frames: *mut Vec<Frame>,
    pub listener: *mut Option<Box<dyn ThreadListener>>,
    pub control_base: *mut i64,
    pub pc: u32,
    pub instructions: u64,
    pub cycles: u64,
    pub work: *mut Work,
}

// SAFETY: the pointers are dereferenced only by the safepoint coordinator
// while the owning thread is held (parked or blocked and unable to resume),
// so the owner and the coordinator never access them at the same time.
unsafe impl Send for ParkedView {}

/// What a thread's [`Parking`] holds, under its lock.
#[derive(Default)]
struct ParkSlot {
    /// The coordinator holds this thread: it may not run until released.
    held: bool,
    /// Its published state, while parked or blocked.
    view: Option<ParkedView>,
    /// The safepoint epoch this thread was last accounted for.
    epoch: u64,
}

/// A thread's part of the safepoint protocol: its slot, and the condition
/// it waits on while held. One per thread ([`SafepointState::parking`]).
#[derive(Default)]
pub(crate) struct Parking {
    slot: Mutex<ParkSlot>,
    /// Signalled when a held thread is released.
    released: Condvar,
}

/// The VM-wide safepoint state.
#[derive(Default)]
pub(crate) struct SafepointState {
    /// Serializes coordinators.
    one_at_a_time: Mutex<()>,
    inner: Mutex<Inner>,
    changed: Condvar,
    /// Every thread's [`Parking`], by thread id.
    parkings: Mutex<Vec<Arc<Parking>>>,
    /// Total nanoseconds threads spent parked (summed over threads).
    pub parked_ns: AtomicU64,
}

#[derive(Default)]
struct Inner {
    epoch: u64,
    active: bool,
    limit: usize,
    arrived: usize,
    /// Arrived threads that have walked themselves (self-walking).
    walked: usize,
    walkers: Option<Walkers>,
}

/// The decision a thread arriving at a yieldpoint with a SAFEPOINT request
/// gets.
pub(crate) enum Arrival {
    /// Not selected (stale request, or late for a partial safepoint).
    Pass,
    /// Selected: park until released.
    Park,
    /// Selected: walk your own stack, report it with
    /// [`SafepointState::walked`] (naming this epoch), then park until
    /// released, or go on at once if `then_park` is false.
    WalkYourself { epoch: u64, then_park: bool },
}

/// The thread's side of the protocol.
impl SafepointState {
    /// The [`Parking`] of thread `id` (made on first use, by whichever of
    /// the thread and a coordinator asks first).
    pub(crate) fn parking(&self, id: u32) -> Arc<Parking> {
        let mut all = self.parkings.lock();
        let i = id as usize;
        if all.len() <= i {
            all.resize_with(i + 1, Arc::default);
        }
        all[i].clone()
    }

    /// Wakes the coordinator (a thread parked, blocked or finished).
    pub(crate) fn notify(&self) {
        let _g = self.inner.lock();
        self.changed.notify_all();
    }

    /// Called by a thread (its `me`) at a yieldpoint that saw a SAFEPOINT
    /// request.
    pub(crate) fn arrive(&self, me: &Parking) -> Arrival {
        let mut inner = self.inner.lock();
        let mut slot = me.slot.lock();
        if !inner.active || slot.epoch == inner.epoch || inner.arrived >= inner.limit {
            return Arrival::Pass;
        }
        inner.arrived += 1;
        slot.epoch = inner.epoch;
        match inner.walkers {
            Some(Walkers::ThemselvesAndGoOn) => Arrival::WalkYourself {
                epoch: inner.epoch,
                then_park: false,
            },
            Some(Walkers::ThemselvesThenPark) => {
                slot.held = true;
                Arrival::WalkYourself {
                    epoch: inner.epoch,
                    then_park: true,
                }
            }
            _ => {
                slot.held = true;
                Arrival::Park
            }
        }
    }

    /// Called by a thread that walked itself for safepoint `epoch`.
    ///
    /// The coordinator is woken only when every selected thread has walked
    /// (or, in a thread that then parks, by the park): waking it once per
    /// walker would cost a context switch each, and with
    /// [`Walkers::ThemselvesAndGoOn`] on a machine with few cores that
    /// switch preempts the threads it samples. If fewer threads than
    /// selected can arrive, the coordinator learns it from a thread
    /// blocking or ending (which notifies), or from its periodic recheck.
    pub(crate) fn walked(&self, epoch: u64) {
        let mut inner = self.inner.lock();
        if inner.epoch == epoch {
            inner.walked += 1;
            if inner.walked >= inner.limit {
                self.changed.notify_all();
            }
        }
    }

    /// Thread `me` (its `parking`) publishes `view` and enters `state`
    /// (parked at a yieldpoint, or blocked in `sleep`/`join`): from now on
    /// a safepoint may inspect it. Must be followed by
    /// [`SafepointState::unpark`] before the thread touches its frames
    /// again.
    pub(crate) fn park(
        &self,
        me: &ThreadShared,
        parking: &Parking,
        view: ParkedView,
        state: ThreadState,
    ) {
        {
            let mut slot = parking.slot.lock();
            slot.view = Some(view);
            me.set_state(state);
        }
        self.notify();
    }

    /// Thread `me` leaves a parked or blocked state, first waiting while a
    /// safepoint holds it.
    pub(crate) fn unpark(&self, me: &ThreadShared, parking: &Parking) {
        let mut slot = parking.slot.lock();
        if slot.held {
            let start = Instant::now();
            while slot.held {
                parking.released.wait(&mut slot);
            }
            self.parked_ns
                .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        }
        slot.view = None;
        me.set_state(ThreadState::Running);
    }
}

/// A thread a safepoint looks at: live when it began.
struct Candidate {
    thread: Arc<ThreadShared>,
    parking: Arc<Parking>,
    /// Asked to stop (see [`SafepointState::ask`]).
    asked: bool,
}

/// The coordinator's side of the protocol.
impl SafepointState {
    /// Brings the selected threads of `threads` to a safe state, runs
    /// `visit` on each held thread (on this thread), then releases them.
    /// Also holds the threads `blocked` names if they are blocked in
    /// `sleep` or `join` when the safepoint looks at them (a partial
    /// safepoint that samples waiting threads too, Hofer et al. 2015,
    /// section 3.1); a named thread found running is treated like any other
    /// running thread.
    ///
    /// Threads that never reach a yieldpoint (code loaded without
    /// yieldpoints) cannot be stopped; after [`SAFEPOINT_TIMEOUT`] the
    /// safepoint goes ahead with the threads it has (`stats.timed_out`).
    pub(crate) fn run(
        &self,
        threads: &ThreadRegistry,
        program: &Program,
        selection: Selection,
        blocked: &[u32],
        walkers: Walkers,
        mut visit: impl FnMut(&ThreadShared, &mut ThreadCtx<'_>, Option<&mut dyn ThreadListener>),
    ) -> SafepointStats {
        let _one = self.one_at_a_time.lock();
        let start = Instant::now();
        let mut candidates: Vec<Candidate> = threads
            .all()
            .into_iter()
            .filter(|t| t.state() != ThreadState::Finished)
            .map(|thread| Candidate {
                parking: self.parking(thread.id),
                thread,
                asked: true,
            })
            .collect();
        let epoch = self.begin(selection, walkers);
        Self::ask(&mut candidates, selection);
        let mut stats =
            self.wait_until_safe(&candidates, epoch, selection, blocked, walkers, start);
        for c in &candidates {
            c.thread
                .requests
                .fetch_and(!request::SAFEPOINT, Ordering::SeqCst);
        }
        stats.wait_ns = start.elapsed().as_nanos() as u64;
        Self::visit_held(program, &candidates, epoch, &mut stats, &mut visit);
        Self::release(&candidates, epoch);
        stats.total_ns = start.elapsed().as_nanos() as u64;
        stats
    }

    /// Opens a new safepoint epoch for `selection`; returns it.
    fn begin(&self, selection: Selection, walkers: Walkers) -> u64 {
        let mut inner = self.inner.lock();
        inner.epoch += 1;
        inner.active = true;
        inner.arrived = 0;
        inner.walked = 0;
        inner.walkers = Some(walkers);
        inner.limit = match selection {
            Selection::All => usize::MAX,
            Selection::First(n) => n,
        };
        inner.epoch
    }

    /// Asks the candidates to stop at their next yieldpoint, and marks
    /// which were asked.
    fn ask(candidates: &mut [Candidate], selection: Selection) {
        for c in candidates {
            // A partial safepoint takes the first n of the threads that are
            // runnable now. A thread blocked now is not asked: when it wakes
            // it reaches a yieldpoint at once and would push out a runnable
            // thread (Hofer et al. divide the samples between runnable and
            // waiting threads up front, section 3.1; waiting threads named
            // in `blocked` are held where they are).
            if matches!(selection, Selection::First(_)) && c.thread.state().is_blocked() {
                c.asked = false;
                continue;
            }
            c.thread.request(request::SAFEPOINT);
        }
    }

    /// Waits until the selection is safe: every selected thread parked;
    /// for a global safepoint, every other thread blocked or finished (or
    /// until [`SAFEPOINT_TIMEOUT`] since `start`). Closes the epoch to
    /// arrivals.
    fn wait_until_safe(
        &self,
        candidates: &[Candidate],
        epoch: u64,
        selection: Selection,
        blocked: &[u32],
        walkers: Walkers,
        start: Instant,
    ) -> SafepointStats {
        let mut stats = SafepointStats::default();
        loop {
            let (running, parked) = Self::count(candidates, epoch, selection, blocked, walkers);
            let mut inner = self.inner.lock();
            let covered = match selection {
                Selection::All => running == 0,
                Selection::First(n) => inner.arrived >= n || running == 0,
            };
            // Every thread that arrived is done: parked, or walked and gone
            // on.
            let done = match walkers {
                Walkers::ThemselvesAndGoOn => inner.walked >= inner.arrived,
                _ => parked >= inner.arrived,
            };
            let timed_out = start.elapsed() > SAFEPOINT_TIMEOUT;
            if (covered && done) || timed_out {
                // No more arrivals, decided under the same lock as the
                // count: a thread arriving after it would be selected, but
                // neither waited for nor counted.
                inner.active = false;
                stats.walked_themselves = if walkers.by_themselves() {
                    inner.walked
                } else {
                    0
                };
                stats.timed_out = timed_out && !(covered && done);
                return stats;
            }
            self.changed.wait_for(&mut inner, Duration::from_millis(2));
        }
    }

    /// One look at the candidates: how many the safepoint still waits for
    /// (running), and how many have parked for it. Holds the blocked
    /// threads the selection includes.
    fn count(
        candidates: &[Candidate],
        epoch: u64,
        selection: Selection,
        blocked: &[u32],
        walkers: Walkers,
    ) -> (usize, usize) {
        let mut running = 0usize;
        let mut parked = 0usize;
        for Candidate {
            thread: t,
            parking,
            asked,
        } in candidates
        {
            match t.state() {
                ThreadState::Finished => {}
                // Parked for this safepoint. A thread still parked
                // from the previous one (released, not yet scheduled
                // to run again) has not arrived: it is running as far
                // as this safepoint goes.
                ThreadState::Parked => {
                    let slot = parking.slot.lock();
                    // Read the state again under the slot's lock (a
                    // thread parks and unparks under it): the state
                    // read above may be stale. A thread still parked
                    // from the previous safepoint can run between the
                    // two reads, arrive at this one and be walking
                    // itself, held but not parked yet; counted as
                    // parked, it let the safepoint end before it
                    // parked, and its sample went uncounted.
                    if t.state() == ThreadState::Parked && slot.held && slot.epoch == epoch {
                        parked += 1;
                    } else if *asked {
                        running += 1;
                    }
                }
                s if s.is_blocked() && (selection == Selection::All || blocked.contains(&t.id)) => {
                    let mut slot = parking.slot.lock();
                    if t.state().is_blocked() {
                        if slot.epoch != epoch {
                            slot.epoch = epoch;
                            slot.held = true;
                        }
                    } else {
                        running += 1;
                    }
                }
                s if s.is_blocked() => {}
                // A thread not asked (blocked when the safepoint began)
                // will not arrive: not worth waiting for.
                _ if !*asked => {}
                // A thread that walked itself and went on has arrived:
                // it will not arrive again.
                _ if walkers == Walkers::ThemselvesAndGoOn
                    && parking.slot.lock().epoch == epoch => {}
                _ => running += 1,
            }
        }
        (running, parked)
    }

    /// Runs `visit` on each thread held for safepoint `epoch`, recording
    /// in `stats` whether it was parked or blocked.
    fn visit_held(
        program: &Program,
        candidates: &[Candidate],
        epoch: u64,
        stats: &mut SafepointStats,
        visit: &mut impl FnMut(&ThreadShared, &mut ThreadCtx<'_>, Option<&mut dyn ThreadListener>),
    ) {
        for Candidate {
            thread: t, parking, ..
        } in candidates
        {
            let slot = parking.slot.lock();
            if !(slot.held && slot.epoch == epoch) {
                continue;
            }
            let Some(view) = slot.view else { continue };
            if t.state() == ThreadState::Parked {
                stats.parked.push(t.id);
            } else {
                stats.blocked.push(t.id);
            }
            // SAFETY: the thread is held (parked or blocked) and cannot
            // resume until `held` is cleared below; it published these
            // pointers before announcing it was safe (see `ParkedView`),
            // and only one coordinator runs at a time.
            unsafe {
                let mut ctx = ThreadCtx {
                    program,
                    thread: t,
                    frames: (&mut *view.frames).as_mut_slice(),
                    pc: view.pc,
                    instructions: view.instructions,
                    cycles: view.cycles,
                    work: &mut *view.work,
                    control_base: &mut *view.control_base,
                    virtual_tick: None,
                    passes: None,
                    memory: None,
                };
                let listener = (*view.listener).as_deref_mut();
                visit(t, &mut ctx, listener);
            }
        }
    }

    /// Releases the threads held for safepoint `epoch`.
    fn release(candidates: &[Candidate], epoch: u64) {
        for c in candidates {
            let mut slot = c.parking.slot.lock();
            if slot.epoch == epoch && slot.held {
                slot.held = false;
                c.parking.released.notify_all();
            }
        }
    }
}

/// How long a safepoint waits for threads before going ahead without them.
pub const SAFEPOINT_TIMEOUT: Duration = Duration::from_secs(2);
