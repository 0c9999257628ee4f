//! How samples travel from the application threads to the organizer.
//!
//! This is the buffering scheme of the SSCLI profiler
//! (Chilingarova & Safonov 2006, see README.md, "Bibliography"; "Profiling
//! Algorithm"): each thread appends raw samples to its own small buffer; a
//! full buffer is handed to a global queue (a crossbeam channel) and the
//! thread takes an empty buffer back from a pool of recycled ones. The
//! organizer thread ([`crate::organizer`], the paper's "CC-Map manager")
//! folds the buffers into the repositories and returns them to the pool. An
//! application thread therefore never takes a global lock per sample: the
//! only synchronisation is one channel operation per [`BUFFER_SAMPLES`]
//! samples. (The paper hands a processed buffer back to the thread that
//! filled it; a shared pool does the same job with less bookkeeping, since
//! our buffers all have one size.)
//!
//! A calling-context record ([`crate::records`]) sends what its thread
//! built through the same queue ([`Message::Record`]): a tree when the
//! thread ends, or with `--record=ccmap` each full buffer of walked stacks.
//!
//! With `--tune` the organizer owns the interval ([`crate::tune`]); the
//! sink learns a new one when it hands a buffer over ([`TuneLink`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crossbeam::channel::{bounded, Receiver, Sender};

use crate::dcg::DynamicCallGraph;
use crate::exact::ExactThreadProfile;
use crate::records::Part;

/// Samples a buffer holds before it is handed to the organizer.
pub const BUFFER_SAMPLES: usize = 512;

/// A sink's link to the tuned interval (`--tune`).
pub struct TuneLink {
    /// The current interval, which the organizer writes.
    pub interval: Arc<AtomicU64>,
    /// Wait, at each hand-over, until the organizer has folded the buffer
    /// and answers with the interval: the interval then changes at points
    /// that depend only on the samples, as `--clock=virtual` and the
    /// counter's reproducibility need.
    pub synchronous: bool,
    /// The last interval this thread saw.
    pub seen: u64,
}

/// One raw sample, as a listener records it (method and body indices, not
/// names: names are looked up once, when the profile is written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
    /// `--tune`: one examination of the stack; `repeated` when the frame
    /// it credits (the executing one) is an activation an earlier sample of
    /// the thread already saw.
    Examined {
        /// Whether the executing activation was seen before.
        repeated: bool,
    },
    /// `method` was on top of the stack.
    Method {
        /// The method on top.
        method: u32,
    },
    /// The call edge from `caller` (at source line `line`) into `callee`
    /// was active.
    Edge {
        /// The calling method.
        caller: u32,
        /// The source line of the call instruction.
        line: u32,
        /// The called method.
        callee: u32,
    },
}

/// What the organizer receives.
pub enum Message {
    /// A buffer of samples to fold (then recycle); with a reply channel,
    /// the organizer answers with the tuned interval once it is folded.
    Samples(Vec<Sample>, Option<Sender<u64>>),
    /// What a thread's calling-context record sent, for the record's
    /// repository to fold ([`crate::records::Repository::fold`]).
    Record {
        /// The thread's id.
        thread: u32,
        /// The record's part (a tree, a buffer of walked stacks).
        part: Part,
    },
    /// A thread ended: its totals, and (exhaustive profiles) its exact
    /// counts.
    ThreadDone(Box<ThreadSummary>),
    /// A copy of the dynamic call graph folded so far, for a reader while
    /// the program runs (the adaptive controller: Jikes RVM's controller
    /// reads the organizers' repositories).
    Snapshot(Sender<DynamicCallGraph>),
    /// The run is over: fold what is queued and stop.
    Finish,
}

/// What a thread reports when it ends.
pub struct ThreadSummary {
    /// The thread's id.
    pub thread: u32,
    /// The thread's entry method.
    pub entry: u32,
    /// Source instructions it executed (counting runs only, else 0).
    pub instructions: u64,
    /// Cost-model cycles it ran (counting runs only, else 0).
    pub cycles: u64,
    /// Its virtual time at its end: `cycles` and the profiler's work it
    /// did (counting runs only, else 0).
    pub time: u64,
    /// The profiler's work on the thread ([`vm::profiler_cost`]).
    pub work: vm::profiler_cost::Work,
    /// Samples it took (exhaustive: calls it traced).
    pub samples: u64,
    /// Exhaustive profiles: the thread's exact call counts.
    pub exact: Option<Box<ExactThreadProfile>>,
}

/// A thread's end of the sample queue: its current buffer, the queue to the
/// organizer, and the pool of recycled buffers.
pub struct SampleSink {
    buffer: Vec<Sample>,
    to_organizer: Sender<Message>,
    pool: Receiver<Vec<Sample>>,
    /// Samples this thread has recorded.
    pub taken: u64,
    /// `--tune`: where the interval comes from.
    pub tune: Option<TuneLink>,
    /// Samples the buffer holds before it is handed over
    /// ([`BUFFER_SAMPLES`] unless [`SampleSink::with_batch`] says less).
    batch: usize,
}

impl SampleSink {
    /// A sink sending to `to_organizer` and drawing empty buffers from
    /// `pool`.
    pub fn new(to_organizer: Sender<Message>, pool: Receiver<Vec<Sample>>) -> SampleSink {
        SampleSink {
            buffer: Vec::with_capacity(BUFFER_SAMPLES),
            to_organizer,
            pool,
            taken: 0,
            tune: None,
            batch: BUFFER_SAMPLES,
        }
    }

    /// The same sink handing its buffer over every `batch` samples (1 to
    /// [`BUFFER_SAMPLES`]): for a profile read while the program runs,
    /// whose reader must not wait for a full buffer.
    pub fn with_batch(mut self, batch: usize) -> SampleSink {
        self.batch = batch.clamp(1, BUFFER_SAMPLES);
        self
    }

    /// With `--tune`: the interval, if it changed since the last call.
    pub fn new_interval(&mut self) -> Option<u64> {
        let link = self.tune.as_mut()?;
        let now = link.interval.load(Ordering::Relaxed);
        (now != link.seen).then(|| {
            link.seen = now;
            now
        })
    }

    /// Records one sample.
    #[inline]
    pub fn push(&mut self, s: Sample) {
        self.buffer.push(s);
        if self.buffer.len() >= self.batch {
            self.hand_over();
        }
    }

    /// Hands the current buffer to the organizer and takes an empty one.
    #[cold]
    fn hand_over(&mut self) {
        let fresh = self
            .pool
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(BUFFER_SAMPLES));
        let full = std::mem::replace(&mut self.buffer, fresh);
        // The organizer outlives every thread that can still send; if it is
        // gone the run is being torn down and the samples do not matter.
        match &self.tune {
            Some(link) if link.synchronous => {
                let (reply, answer) = bounded(1);
                if self
                    .to_organizer
                    .send(Message::Samples(full, Some(reply)))
                    .is_ok()
                {
                    // The organizer folds in order; an error means it is
                    // gone (the run is ending) and the interval is moot.
                    if let Ok(v) = answer.recv() {
                        link.interval.store(v, Ordering::Relaxed);
                    }
                }
            }
            _ => {
                let _ = self.to_organizer.send(Message::Samples(full, None));
            }
        }
    }

    /// Sends `part` of thread `thread`'s calling-context record to the
    /// organizer.
    pub fn send_part(&mut self, thread: u32, part: Part) {
        let _ = self.to_organizer.send(Message::Record { thread, part });
    }

    /// Sends what is buffered, then the thread's summary.
    pub fn finish(&mut self, summary: ThreadSummary) {
        if !self.buffer.is_empty() {
            let rest = std::mem::take(&mut self.buffer);
            let _ = self.to_organizer.send(Message::Samples(rest, None));
        }
        let _ = self
            .to_organizer
            .send(Message::ThreadDone(Box::new(summary)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam::channel::unbounded;

    #[test]
    fn a_synchronous_hand_over_learns_the_interval_from_the_reply() {
        let (tx, rx) = unbounded();
        let (_pool_tx, pool_rx) = unbounded();
        let mut sink = SampleSink::new(tx, pool_rx);
        let interval = Arc::new(AtomicU64::new(1000));
        sink.tune = Some(TuneLink {
            interval: interval.clone(),
            synchronous: true,
            seen: 1000,
        });
        // A stand-in organizer answering 2000 to the first buffer.
        let organizer = std::thread::spawn(move || match rx.recv() {
            Ok(Message::Samples(buf, Some(reply))) => {
                reply.send(2000).unwrap();
                buf.len()
            }
            _ => panic!("expected a buffer with a reply channel"),
        });
        assert_eq!(sink.new_interval(), None);
        for _ in 0..BUFFER_SAMPLES {
            sink.push(Sample::Examined { repeated: true });
        }
        // The hand-over waited for the answer: the change is seen at once.
        assert_eq!(organizer.join().unwrap(), BUFFER_SAMPLES);
        assert_eq!(sink.new_interval(), Some(2000));
        assert_eq!(sink.new_interval(), None, "reported once");
        assert_eq!(interval.load(Ordering::Relaxed), 2000);
    }

    #[test]
    fn full_buffers_go_to_the_organizer_and_come_back() {
        let (tx, rx) = unbounded();
        let (pool_tx, pool_rx) = unbounded();
        let mut sink = SampleSink::new(tx, pool_rx);
        for i in 0..BUFFER_SAMPLES as u32 {
            sink.push(Sample::Method { method: i });
        }
        let Ok(Message::Samples(full, None)) = rx.try_recv() else {
            panic!("a full buffer was not handed over")
        };
        assert_eq!(full.len(), BUFFER_SAMPLES);
        assert_eq!(full[7], Sample::Method { method: 7 });
        // The organizer recycles it; the next hand-over reuses it.
        let ptr = full.as_ptr();
        let mut recycled = full;
        recycled.clear();
        pool_tx.send(recycled).unwrap();
        for _ in 0..BUFFER_SAMPLES {
            sink.push(Sample::Method { method: 1 });
        }
        let Ok(Message::Samples(_, None)) = rx.try_recv() else {
            panic!("second buffer missing")
        };
        assert_eq!(sink.buffer.as_ptr(), ptr, "the recycled buffer is in use");
        sink.push(Sample::Method { method: 2 });
        sink.finish(ThreadSummary {
            thread: 0,
            entry: 0,
            instructions: 0,
            cycles: 0,
            time: 0,
            work: Default::default(),
            samples: 0,
            exact: None,
        });
        assert!(matches!(rx.try_recv(), Ok(Message::Samples(v, None)) if v.len() == 1));
        assert!(matches!(rx.try_recv(), Ok(Message::ThreadDone(_))));
    }

    #[test]
    fn a_smaller_batch_is_handed_over_sooner() {
        let (tx, rx) = unbounded();
        let (_pool_tx, pool_rx) = unbounded();
        let mut sink = SampleSink::new(tx, pool_rx).with_batch(32);
        for i in 0..31 {
            sink.push(Sample::Method { method: i });
        }
        assert!(rx.try_recv().is_err(), "31 samples stay in the buffer");
        sink.push(Sample::Method { method: 31 });
        let Ok(Message::Samples(batch, None)) = rx.try_recv() else {
            panic!("a batch of 32 was not handed over")
        };
        assert_eq!(batch.len(), 32);
        // Out of range: at least one, at most a full buffer.
        let (tx, _rx) = unbounded();
        let (_p, pool_rx) = unbounded();
        assert_eq!(SampleSink::new(tx, pool_rx).with_batch(0).batch, 1);
    }
}
