//! Safepoints: bringing threads to a halt at their next yieldpoint.
//!
//! A coordinator (a sampler thread, later a code installer) calls
//! [`Vm::safepoint`]. The VM asks the chosen threads, through their control
//! words, to stop at their next yieldpoint; each one *parks* there,
//! publishing a view of its frames, until released. Threads blocked in
//! `sleep` or `join` are already safe: their frames cannot change, and if
//! they wake up while held they park before running again (Hofer et al.
//! 2015, section 2.2).
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

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::frame::Frame;
use crate::hooks::{ThreadCtx, ThreadListener};
use crate::runtime::Vm;
use crate::thread::{request, ThreadShared, ThreadState};

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
}

// SAFETY: the pointers are dereferenced only by the safepoint coordinator
// while the owning thread is held (parked or blocked and unable to resume),
// so the owner and the coordinator never access them at the same time.
unsafe impl Send for ParkedView {}

/// A thread's part of the safepoint protocol (in [`ThreadShared`]).
#[derive(Default)]
pub(crate) struct ParkSlot {
    /// The coordinator holds this thread: it may not run until released.
    pub held: bool,
    /// Its published state, while parked or blocked.
    pub view: Option<ParkedView>,
    /// The safepoint epoch this thread was last accounted for.
    pub epoch: u64,
}

/// The VM-wide safepoint state.
#[derive(Default)]
pub(crate) struct SafepointState {
    /// Serializes coordinators.
    one_at_a_time: Mutex<()>,
    inner: Mutex<Inner>,
    changed: Condvar,
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

impl SafepointState {
    /// Wakes the coordinator (a thread parked, blocked or finished).
    pub(crate) fn notify(&self) {
        let _g = self.inner.lock();
        self.changed.notify_all();
    }
}

/// The decision a thread arriving at a yieldpoint with a SAFEPOINT request
/// gets.
pub(crate) enum Arrival {
    /// Not selected (stale request, or late for a partial safepoint).
    Pass,
    /// Selected: park until released.
    Park,
    /// Selected: walk your own stack, report it with
    /// [`Vm::safepoint_walked`] (naming this epoch), then park until
    /// released, or go on at once if `then_park` is false.
    WalkYourself { epoch: u64, then_park: bool },
}

impl Vm {
    /// Called by a thread at a yieldpoint that saw a SAFEPOINT request.
    pub(crate) fn safepoint_arrive(&self, me: &ThreadShared) -> Arrival {
        let mut inner = self.safepoints.inner.lock();
        let mut slot = me.park.lock();
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
    pub(crate) fn safepoint_walked(&self, epoch: u64) {
        let mut inner = self.safepoints.inner.lock();
        if inner.epoch == epoch {
            inner.walked += 1;
            if inner.walked >= inner.limit {
                self.safepoints.changed.notify_all();
            }
        }
    }

    /// Brings the selected threads to a safe state, runs `visit` on each
    /// held thread (on this thread), then releases them.
    ///
    /// Threads that never reach a yieldpoint (code loaded without
    /// yieldpoints) cannot be stopped; after [`SAFEPOINT_TIMEOUT`] the
    /// safepoint goes ahead with the threads it has (`stats.timed_out`).
    pub fn safepoint(
        &self,
        selection: Selection,
        walkers: Walkers,
        visit: impl FnMut(&ThreadShared, &mut ThreadCtx<'_>, Option<&mut dyn ThreadListener>),
    ) -> SafepointStats {
        self.safepoint_including(selection, &[], walkers, visit)
    }

    /// [`Vm::safepoint`], also holding the threads `blocked` names if they
    /// are blocked in `sleep` or `join` when the safepoint looks at them (a
    /// partial safepoint that samples waiting threads too, Hofer et al.
    /// 2015, section 3.1). A named thread found running is treated like any
    /// other running thread.
    pub fn safepoint_including(
        &self,
        selection: Selection,
        blocked: &[u32],
        walkers: Walkers,
        mut visit: impl FnMut(&ThreadShared, &mut ThreadCtx<'_>, Option<&mut dyn ThreadListener>),
    ) -> SafepointStats {
        let _one = self.safepoints.one_at_a_time.lock();
        let start = Instant::now();
        let candidates: Vec<Arc<ThreadShared>> = self
            .threads
            .all()
            .into_iter()
            .filter(|t| t.state() != ThreadState::Finished)
            .collect();
        let epoch = {
            let mut inner = self.safepoints.inner.lock();
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
        };
        // Which candidates were asked to stop (see below).
        let mut asked = vec![true; candidates.len()];
        for (t, asked) in candidates.iter().zip(asked.iter_mut()) {
            // A partial safepoint takes the first n of the threads that are
            // runnable now. A thread blocked now is not asked: when it wakes
            // it reaches a yieldpoint at once and would push out a runnable
            // thread (Hofer et al. divide the samples between runnable and
            // waiting threads up front, section 3.1; waiting threads named
            // in `blocked` are held where they are).
            if matches!(selection, Selection::First(_)) && t.state().is_blocked() {
                *asked = false;
                continue;
            }
            t.request(request::SAFEPOINT);
        }
        let mut stats = SafepointStats::default();
        // Wait until the selection is safe: every selected thread parked;
        // for a global safepoint, every other thread blocked or finished.
        loop {
            let mut running = 0usize;
            let mut parked = 0usize;
            for (t, &asked) in candidates.iter().zip(&asked) {
                match t.state() {
                    ThreadState::Finished => {}
                    // Parked for this safepoint. A thread still parked
                    // from the previous one (released, not yet scheduled
                    // to run again) has not arrived: it is running as far
                    // as this safepoint goes.
                    ThreadState::Parked => {
                        let slot = t.park.lock();
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
                        } else if asked {
                            running += 1;
                        }
                    }
                    s if s.is_blocked()
                        && (selection == Selection::All || blocked.contains(&t.id)) =>
                    {
                        let mut slot = t.park.lock();
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
                    _ if !asked => {}
                    // A thread that walked itself and went on has arrived:
                    // it will not arrive again.
                    _ if walkers == Walkers::ThemselvesAndGoOn && t.park.lock().epoch == epoch => {}
                    _ => running += 1,
                }
            }
            let mut inner = self.safepoints.inner.lock();
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
                break;
            }
            self.safepoints
                .changed
                .wait_for(&mut inner, Duration::from_millis(2));
        }
        for t in &candidates {
            t.requests.fetch_and(!request::SAFEPOINT, Ordering::SeqCst);
        }
        stats.wait_ns = start.elapsed().as_nanos() as u64;
        // Visit the held threads.
        for t in &candidates {
            let slot = t.park.lock();
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
                    program: &self.program,
                    thread: t,
                    frames: (&mut *view.frames).as_mut_slice(),
                    pc: view.pc,
                    instructions: view.instructions,
                    cycles: view.cycles,
                    control_base: &mut *view.control_base,
                    virtual_tick: None,
                };
                let listener = (*view.listener).as_deref_mut();
                visit(t, &mut ctx, listener);
            }
        }
        // Release.
        for t in &candidates {
            let mut slot = t.park.lock();
            if slot.epoch == epoch && slot.held {
                slot.held = false;
                t.park_cv.notify_all();
            }
        }
        stats.total_ns = start.elapsed().as_nanos() as u64;
        stats
    }
}

/// How long a safepoint waits for threads before going ahead without them.
pub const SAFEPOINT_TIMEOUT: Duration = Duration::from_secs(2);
