//! How samples travel from the application threads to the organizer.
//!
//! This is the buffering scheme of the SSCLI profiler
//! (../shared/papers/sscli-cc-map-self-tuning-profiler.txt, "Profiling
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

use crossbeam::channel::{Receiver, Sender};

use crate::cct::CallingContextTree;
use crate::exact::ExactThreadProfile;
use crate::pcct::Pcct;

/// Samples a buffer holds before it is handed to the organizer.
pub const BUFFER_SAMPLES: usize = 512;

/// One raw sample, as a listener records it (method and body indices, not
/// names: names are looked up once, when the profile is written).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sample {
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
    /// A buffer of samples to fold (then recycle).
    Samples(Vec<Sample>),
    /// A thread's calling context tree, built from its samples
    /// (`--record=cct` with a sampling profile), sent when it ends.
    Contexts(Box<CallingContextTree>),
    /// A thread's partial calling context tree (`--record=pcct`), sent
    /// when it ends.
    Pcct(Box<Pcct>),
    /// A thread ended: its totals, and (exhaustive profiles) its exact
    /// counts.
    ThreadDone(ThreadSummary),
    /// The run is over: fold what is queued and stop.
    Finish,
}

/// What a thread reports when it ends.
pub struct ThreadSummary {
    /// The thread's id.
    pub thread: u32,
    /// Source instructions it executed (counting runs only, else 0).
    pub instructions: u64,
    /// Cost-model cycles it ran (counting runs only, else 0).
    pub cycles: u64,
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
        }
    }

    /// Records one sample.
    #[inline]
    pub fn push(&mut self, s: Sample) {
        self.buffer.push(s);
        if self.buffer.len() == BUFFER_SAMPLES {
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
        let _ = self.to_organizer.send(Message::Samples(full));
    }

    /// Sends the thread's calling context tree to the organizer.
    pub fn send_contexts(&mut self, tree: CallingContextTree) {
        let _ = self.to_organizer.send(Message::Contexts(Box::new(tree)));
    }

    /// Sends the thread's partial calling context tree to the organizer.
    pub fn send_pcct(&mut self, tree: Pcct) {
        let _ = self.to_organizer.send(Message::Pcct(Box::new(tree)));
    }

    /// Sends what is buffered, then the thread's summary.
    pub fn finish(&mut self, summary: ThreadSummary) {
        if !self.buffer.is_empty() {
            let rest = std::mem::take(&mut self.buffer);
            let _ = self.to_organizer.send(Message::Samples(rest));
        }
        let _ = self.to_organizer.send(Message::ThreadDone(summary));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam::channel::unbounded;

    #[test]
    fn full_buffers_go_to_the_organizer_and_come_back() {
        let (tx, rx) = unbounded();
        let (pool_tx, pool_rx) = unbounded();
        let mut sink = SampleSink::new(tx, pool_rx);
        for i in 0..BUFFER_SAMPLES as u32 {
            sink.push(Sample::Method { method: i });
        }
        let Ok(Message::Samples(full)) = rx.try_recv() else {
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
        let Ok(Message::Samples(_)) = rx.try_recv() else {
            panic!("second buffer missing")
        };
        assert_eq!(sink.buffer.as_ptr(), ptr, "the recycled buffer is in use");
        sink.push(Sample::Method { method: 2 });
        sink.finish(ThreadSummary {
            thread: 0,
            instructions: 0,
            cycles: 0,
            samples: 0,
            exact: None,
        });
        assert!(matches!(rx.try_recv(), Ok(Message::Samples(v)) if v.len() == 1));
        assert!(matches!(rx.try_recv(), Ok(Message::ThreadDone(_))));
    }
}
