//! Managed threads: the per-thread control word and the thread registry.
//!
//! Every managed thread is an OS thread running its own interpreter over its
//! own heap. What other threads may touch is in [`ThreadShared`]:
//!
//! - the **yieldpoint control word** ([`ThreadShared::control`]), overloaded
//!   as in Arnold & Grove 2005, section 5.1: `0` means take no yieldpoint,
//!   `-1` take prologue and epilogue yieldpoints, `1` take every yieldpoint.
//!   Backedge yieldpoints are taken for `> 0`: a backward jump tests the
//!   word (one load and one branch), a fused loop test the loop trip below;
//! - the **frame limit** ([`ThreadShared::frame_limit`]), V8's *stack
//!   guard*: whoever makes the control word non-zero also lowers the limit
//!   to 0, so the depth check a call makes anyway (frames against
//!   `--max-frames`) trips, and the call's slow path tells a real overflow
//!   from a request and takes the prologue yieldpoint. Its companion for
//!   returns is the **return floor** ([`ThreadShared::return_floor`]): 1
//!   while the word is 0, raised to `usize::MAX` with the limit; a `ret`
//!   with its epilogue yieldpoint goes on at once if its depth is above
//!   it, the one test a plain `ret` makes anyway against 1 (a frame to pop
//!   and a caller to return to). So the
//!   prologue and epilogue yieldpoints (`!= 0`) cost no test of their own.
//!   Only the thread raises the limit again (to `--max-frames`, which only
//!   it knows, or to its frame list's capacity if that is lower, so that
//!   the same compare is the list's capacity check), when it restores the
//!   control word to 0;
//! - the **loop trip** ([`ThreadShared::loop_trip`]), the same trick for
//!   backedges: whoever makes the control word positive also sets the trip
//!   to [`LOOP_TRIPPED`], and a loop's fused test (`crate::superinstr`)
//!   tests it in one test with the type tags of the operands it reads
//!   anyway (`tags == trip`, `crate::trip`), so its backedge yieldpoint costs one
//!   instruction, which reads the trip, and no branch of its own. Only the
//!   thread clears the trip, when it restores the word to a value that is
//!   not positive, or when it finds the trip set with the word not
//!   positive (a requester's late store);
//! - the **request bits** ([`ThreadShared::requests`]) saying *why* the
//!   thread should stop at its next yieldpoint (a sample tick, a safepoint,
//!   a collection, the program stopping). A requester sets its bit and then
//!   sets the control word to 1; the thread clears the bits when it takes
//!   the yieldpoint and serves them out of line;
//! - its state (running, sleeping, joining, parked, finished) and, once it
//!   has finished, its result.
//!
//! The [`ThreadRegistry`] lists every thread that ever started; profilers
//! and safepoints walk it.
//!
//! This module is the bottom of the VM core: it uses none of `hooks`,
//! `safepoint`, `interp` or `runtime` (a thread's part of the safepoint
//! protocol is kept by [`crate::safepoint`]).

use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use crate::module::MethodId;

/// Request bits: why a thread should stop at its next yieldpoint.
pub mod request {
    /// The program is ending: unwind and finish.
    pub const STOP: u32 = 1 << 0;
    /// Collect this thread's heap.
    pub const GC: u32 = 1 << 1;
    /// Park for a safepoint.
    pub const SAFEPOINT: u32 = 1 << 2;
    /// Recompiled code was installed: refresh the table of the code new
    /// invocations run (see [`crate::install`]).
    pub const CODE: u32 = 1 << 3;
    /// The system refused memory (see [`crate::memory`]): stop with the
    /// runtime error at this yieldpoint.
    pub const MEMORY: u32 = 1 << 4;
    /// Bits the VM serves itself; the rest go to the profiler's listener.
    pub const VM_MASK: u32 = 0xff;
    /// A sampling timer tick (first profiler bit).
    pub const TICK: u32 = 1 << 8;
}

/// What a thread is doing, as other threads see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ThreadState {
    /// Executing code.
    Running = 0,
    /// Blocked in `sleep`.
    Sleeping = 1,
    /// Blocked in `join`.
    Joining = 2,
    /// Parked at a yieldpoint for a safepoint.
    Parked = 3,
    /// Done.
    Finished = 4,
}

impl ThreadState {
    fn from_u8(v: u8) -> ThreadState {
        match v {
            0 => ThreadState::Running,
            1 => ThreadState::Sleeping,
            2 => ThreadState::Joining,
            3 => ThreadState::Parked,
            _ => ThreadState::Finished,
        }
    }

    /// Blocked threads count as safe for a safepoint without running.
    pub fn is_blocked(self) -> bool {
        matches!(self, ThreadState::Sleeping | ThreadState::Joining)
    }
}

/// A value that may cross threads: the result of a thread, or its uncaught
/// exception.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SharedValue {
    /// An integer.
    Int(i64),
    /// A string constant (pool index).
    Str(u32),
    /// `null`.
    Null,
    /// An object or array, which may not cross threads; the text is how it
    /// prints (`<Point>`, `<array 3>`).
    Unshareable(String),
}

/// How a thread ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ThreadResult {
    /// Its entry method returned this value.
    Returned(SharedValue),
    /// It died of an uncaught exception.
    Threw(SharedValue),
    /// It was stopped (runtime error, `halt`, or the program ending).
    Stopped,
}

/// The loop trip's value while it is set: a word no operands' type tags
/// `or`ed together equal (they are small), so that a fused loop test
/// checks the tags and the trip with one compare, `tags == trip`
/// ([`crate::trip`]).
pub(crate) const LOOP_TRIPPED: u32 = u32::MAX;

/// The part of a thread other threads may see and touch.
pub struct ThreadShared {
    /// Thread id: 0 for the main thread, then 1, 2, ... in spawn order.
    pub id: u32,
    /// The method the thread started in.
    pub entry: MethodId,
    /// The yieldpoint control word (see the module docs): set it with
    /// [`ThreadShared::set_control_word`], which keeps the frame limit in
    /// step.
    pub(crate) control: AtomicI64,
    /// The depth at which a call leaves its fast path: the thread's
    /// `--max-frames` while the control word is 0, else 0 (see the module
    /// docs). Starts at 0, so the thread's first call sets it.
    pub(crate) frame_limit: AtomicUsize,
    /// The depth above which a `ret` with its epilogue yieldpoint goes on
    /// at once: 1 while the control word is 0, else `usize::MAX` (see the
    /// module docs). Starts at `usize::MAX`, like the limit at 0.
    pub(crate) return_floor: AtomicUsize,
    /// [`LOOP_TRIPPED`] whenever the control word is positive (a backedge
    /// yieldpoint is to be taken), and 0 while the thread is not asked to
    /// take one, bar a requester's late store (see the module docs).
    pub(crate) loop_trip: AtomicU32,
    /// Pending request bits (see [`request`]).
    pub requests: AtomicU32,
    state: AtomicU8,
    /// The thread this one is joining, or -1 (deadlock detection).
    pub(crate) waiting_on: AtomicI64,
    result: Mutex<Option<ThreadResult>>,
    done: Condvar,
    /// Used to wake a sleeping thread early (program stopping).
    pub(crate) wake: Condvar,
    pub(crate) wake_lock: Mutex<()>,
}

impl std::fmt::Debug for ThreadShared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadShared")
            .field("id", &self.id)
            .field("entry", &self.entry)
            .field("state", &self.state())
            .finish()
    }
}

impl ThreadShared {
    /// A new thread record in state `Running`.
    pub fn new(id: u32, entry: MethodId) -> ThreadShared {
        ThreadShared {
            id,
            entry,
            control: AtomicI64::new(0),
            frame_limit: AtomicUsize::new(0),
            return_floor: AtomicUsize::new(usize::MAX),
            loop_trip: AtomicU32::new(0),
            requests: AtomicU32::new(0),
            state: AtomicU8::new(ThreadState::Running as u8),
            waiting_on: AtomicI64::new(-1),
            result: Mutex::new(None),
            done: Condvar::new(),
            wake: Condvar::new(),
            wake_lock: Mutex::new(()),
        }
    }

    /// Asks the thread to take its next yieldpoint to serve `bits`.
    pub fn request(&self, bits: u32) {
        self.requests.fetch_or(bits, Ordering::SeqCst);
        self.set_control_word(1);
    }

    /// The control word now.
    pub fn control_word(&self) -> i64 {
        self.control.load(Ordering::SeqCst)
    }

    /// Sets the control word (another thread, or a hook before the thread
    /// runs; a listener uses [`crate::hooks::ThreadCtx::set_control`]). A
    /// non-zero word lowers the frame limit, so that the thread's next call
    /// or return notices it, and a positive one sets the loop trip, so
    /// that its next loop test notices it; 0 leaves both to the thread.
    pub fn set_control_word(&self, value: i64) {
        self.control.store(value, Ordering::SeqCst);
        if value != 0 {
            self.frame_limit.store(0, Ordering::SeqCst);
            self.return_floor.store(usize::MAX, Ordering::SeqCst);
        }
        if value > 0 {
            self.loop_trip.store(LOOP_TRIPPED, Ordering::SeqCst);
        }
    }

    /// The thread itself, after a yieldpoint: the control word back to
    /// `base`, the frame limit back to `max_frames` if that is 0, the loop
    /// trip cleared unless `base` is positive, and all asking again if
    /// requests came in meanwhile. (A requester sets its
    /// bits before the word and the limit: either this load sees the bits,
    /// or the requester's stores come after these.)
    pub(crate) fn restore_control(&self, base: i64, max_frames: usize) {
        self.control.store(base, Ordering::SeqCst);
        let (limit, floor) = if base == 0 {
            (max_frames, 1)
        } else {
            (0, usize::MAX)
        };
        self.frame_limit.store(limit, Ordering::SeqCst);
        self.return_floor.store(floor, Ordering::SeqCst);
        let trip = if base > 0 { LOOP_TRIPPED } else { 0 };
        self.loop_trip.store(trip, Ordering::SeqCst);
        if self.requests.load(Ordering::SeqCst) != 0 {
            self.set_control_word(1);
        }
    }

    /// The thread itself, when a call or return found the frame limit
    /// lowered or the return floor raised but the control word 0 (a
    /// requester's late store after the thread had served its request, or
    /// the thread's first call): raises the limit to `max_frames` and
    /// lowers the floor to 1, unless the word changed meanwhile.
    pub(crate) fn rearm(&self, max_frames: usize) {
        self.frame_limit.store(max_frames, Ordering::SeqCst);
        self.return_floor.store(1, Ordering::SeqCst);
        if self.control.load(Ordering::SeqCst) != 0 {
            self.frame_limit.store(0, Ordering::SeqCst);
            self.return_floor.store(usize::MAX, Ordering::SeqCst);
        }
    }

    /// The thread itself, when a loop test found the loop trip set but the
    /// control word not positive (a requester's late store of the trip
    /// after the thread had served its request): clears the trip, unless
    /// the word became positive meanwhile.
    pub(crate) fn rearm_loops(&self) {
        self.loop_trip.store(0, Ordering::SeqCst);
        if self.control.load(Ordering::SeqCst) > 0 {
            self.loop_trip.store(LOOP_TRIPPED, Ordering::SeqCst);
        }
    }

    /// The thread's current state.
    pub fn state(&self) -> ThreadState {
        ThreadState::from_u8(self.state.load(Ordering::SeqCst))
    }

    pub(crate) fn set_state(&self, s: ThreadState) {
        self.state.store(s as u8, Ordering::SeqCst);
    }

    /// Records the thread's result and wakes its joiners.
    pub(crate) fn finish(&self, r: ThreadResult) {
        let mut g = self.result.lock();
        *g = Some(r);
        self.set_state(ThreadState::Finished);
        self.done.notify_all();
    }

    /// The result, once finished.
    pub fn result(&self) -> Option<ThreadResult> {
        self.result.lock().clone()
    }

    /// Waits until the thread finished or `give_up()` says to stop waiting.
    pub(crate) fn wait_finished(&self, give_up: impl Fn() -> bool) -> Option<ThreadResult> {
        let mut g = self.result.lock();
        loop {
            if let Some(r) = g.as_ref() {
                return Some(r.clone());
            }
            if give_up() {
                return None;
            }
            self.done
                .wait_for(&mut g, std::time::Duration::from_millis(50));
        }
    }

    /// Wakes the thread if it waits in `sleep` or `join`.
    pub(crate) fn wake_up(&self) {
        {
            let _g = self.wake_lock.lock();
            self.wake.notify_all();
        }
        let _g = self.result.lock();
        self.done.notify_all();
    }
}

/// Every thread that ever started, in id order.
#[derive(Debug, Default)]
pub struct ThreadRegistry {
    threads: Mutex<Vec<Arc<ThreadShared>>>,
    changed: Condvar,
}

impl ThreadRegistry {
    /// Registers a new thread with the next id.
    pub fn register(&self, entry: MethodId) -> Arc<ThreadShared> {
        let mut list = self.threads.lock();
        let t = Arc::new(ThreadShared::new(list.len() as u32, entry));
        list.push(t.clone());
        t
    }

    /// The thread with id `id`.
    pub fn get(&self, id: i64) -> Option<Arc<ThreadShared>> {
        let list = self.threads.lock();
        usize::try_from(id).ok().and_then(|i| list.get(i).cloned())
    }

    /// A snapshot of all threads.
    pub fn all(&self) -> Vec<Arc<ThreadShared>> {
        self.threads.lock().clone()
    }

    /// Number of threads that ever started.
    pub fn count(&self) -> usize {
        self.threads.lock().len()
    }

    /// Wakes whoever waits in [`ThreadRegistry::wait_change`].
    pub fn notify_change(&self) {
        let _g = self.threads.lock();
        self.changed.notify_all();
    }

    /// Waits (at most `timeout`) for a thread to start or finish; returns
    /// at once if every thread has already finished. The check and the wait
    /// are under one lock, and [`ThreadRegistry::notify_change`] takes that
    /// lock, so a thread finishing between a caller's own check and this
    /// wait cannot be missed (which would cost the whole timeout).
    pub fn wait_change(&self, timeout: std::time::Duration) {
        let mut g = self.threads.lock();
        if g.iter().all(|t| t.state() == ThreadState::Finished) {
            return;
        }
        self.changed.wait_for(&mut g, timeout);
    }

    /// Are all registered threads finished?
    pub fn all_finished(&self) -> bool {
        self.threads
            .lock()
            .iter()
            .all(|t| t.state() == ThreadState::Finished)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_sets_bits_and_control_word() {
        let t = ThreadShared::new(0, 0);
        t.rearm(100);
        assert_eq!(t.control_word(), 0);
        assert_eq!(t.frame_limit.load(Ordering::SeqCst), 100);
        t.request(request::TICK);
        assert_eq!(t.control_word(), 1);
        assert_eq!(t.frame_limit.load(Ordering::SeqCst), 0, "limit lowered");
        assert_eq!(t.requests.load(Ordering::SeqCst), request::TICK);
    }

    #[test]
    fn restoring_opens_the_limit_only_for_a_zero_word_without_requests() {
        let t = ThreadShared::new(0, 0);
        let word_and_limit =
            |t: &ThreadShared| (t.control_word(), t.frame_limit.load(Ordering::SeqCst));
        t.restore_control(0, 50);
        assert_eq!(word_and_limit(&t), (0, 50));
        t.restore_control(-1, 50);
        assert_eq!(word_and_limit(&t), (-1, 0));
        t.requests.fetch_or(request::GC, Ordering::SeqCst);
        t.restore_control(0, 50);
        assert_eq!(word_and_limit(&t), (1, 0));
    }

    #[test]
    fn rearming_keeps_the_limit_low_while_the_word_asks() {
        let t = ThreadShared::new(0, 0);
        t.set_control_word(-1);
        t.rearm(50);
        assert_eq!(t.frame_limit.load(Ordering::SeqCst), 0);
        t.set_control_word(0);
        assert_eq!(
            t.frame_limit.load(Ordering::SeqCst),
            0,
            "0 leaves the limit"
        );
        t.rearm(50);
        assert_eq!(t.frame_limit.load(Ordering::SeqCst), 50);
    }

    #[test]
    fn the_return_floor_moves_with_the_limit() {
        let t = ThreadShared::new(0, 0);
        let floor = |t: &ThreadShared| t.return_floor.load(Ordering::SeqCst);
        assert_eq!(floor(&t), usize::MAX, "a new thread's first return trips");
        t.rearm(50);
        assert_eq!(floor(&t), 1);
        t.set_control_word(-1);
        assert_eq!(floor(&t), usize::MAX, "epilogues asked for");
        t.rearm(50);
        assert_eq!(floor(&t), usize::MAX, "kept while the word asks");
        t.restore_control(0, 50);
        assert_eq!(floor(&t), 1);
        t.restore_control(-1, 50);
        assert_eq!(floor(&t), usize::MAX);
        t.requests.fetch_or(request::TICK, Ordering::SeqCst);
        t.restore_control(0, 50);
        assert_eq!(floor(&t), usize::MAX, "requests came in meanwhile");
    }

    #[test]
    fn the_loop_trip_follows_a_positive_word_and_only_the_thread_clears_it() {
        let t = ThreadShared::new(0, 0);
        let trip = |t: &ThreadShared| t.loop_trip.load(Ordering::SeqCst);
        assert_eq!(trip(&t), 0);
        // Prologue and epilogue yieldpoints only: loops go on.
        t.set_control_word(-1);
        assert_eq!(trip(&t), 0);
        t.request(request::TICK);
        assert_eq!(trip(&t), LOOP_TRIPPED, "a request trips the loops");
        // A requester's word of 0 leaves the trip to the thread.
        t.set_control_word(0);
        assert_eq!(trip(&t), LOOP_TRIPPED);
        t.rearm_loops();
        assert_eq!(trip(&t), 0, "cleared once the word is not positive");
        t.set_control_word(1);
        t.rearm_loops();
        assert_eq!(trip(&t), LOOP_TRIPPED, "kept while the word asks");
        // Served: back to a base of -1 or 0 clears it, unless requests
        // came in meanwhile.
        t.requests.store(0, Ordering::SeqCst);
        t.restore_control(-1, 50);
        assert_eq!(trip(&t), 0);
        t.restore_control(1, 50);
        assert_eq!(trip(&t), LOOP_TRIPPED);
        t.requests.fetch_or(request::GC, Ordering::SeqCst);
        t.restore_control(0, 50);
        assert_eq!((t.control_word(), trip(&t)), (1, LOOP_TRIPPED));
    }

    #[test]
    fn registry_numbers_threads_in_order() {
        let r = ThreadRegistry::default();
        assert_eq!(r.register(0).id, 0);
        assert_eq!(r.register(3).id, 1);
        assert_eq!(r.get(1).unwrap().entry, 3);
        assert!(r.get(-1).is_none() && r.get(7).is_none());
        assert!(!r.all_finished());
        for t in r.all() {
            t.finish(ThreadResult::Stopped);
        }
        assert!(r.all_finished());
    }
}
