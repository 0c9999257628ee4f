//! The organizer: a thread of its own that folds the application threads'
//! sample buffers into the repositories (Jikes RVM's *organizer*; the
//! SSCLI paper's CC-Map manager thread), then returns each buffer to the
//! pool for reuse. It stops on [`Message::Finish`], which the profiler
//! sends after the program has ended, and hands back what it built.
//!
//! A calling-context record's parts (each thread's tree, or with
//! `--record=ccmap` its walked stacks, which makes the organizer the SSCLI
//! paper's CC-Map manager) are folded by the record's own
//! [`Repository`] ([`crate::records`]). With `--tune` it feeds every
//! examination of a stack to the [`IntervalTuner`] and publishes a new
//! interval in an atomic that the clock (or the counter) reads.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crossbeam::channel::{Receiver, Sender};
use vm::profiler_cost::{CostItem, Work};

use crate::dcg::DynamicCallGraph;
use crate::records::Repository;
use crate::samples::{Message, Sample, ThreadSummary};
use crate::spawn::StartError;
use crate::tune::IntervalTuner;

/// What the organizer is to build.
pub struct Setup {
    /// Methods of the program.
    pub methods: usize,
    /// The calling-context record's repository, if the run has one.
    pub record: Option<Box<dyn Repository>>,
    /// `--tune`: the tuner, and where to publish its interval.
    pub tune: Option<(IntervalTuner, Arc<AtomicU64>)>,
}

/// What `--tune` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TuneOutcome {
    /// The interval at the start.
    pub initial: u64,
    /// The interval at the end.
    pub last: u64,
    /// How many times it changed.
    pub changes: u64,
    /// Examinations the tuner saw.
    pub samples: u64,
    /// The interval over the run: `(examinations seen, interval)`, first
    /// `(0, initial)`, then one entry per change.
    pub trajectory: Vec<(u64, u64)>,
}

/// Everything the organizer built.
#[derive(Default)]
pub struct Repositories {
    /// The dynamic call graph and hot methods.
    pub dcg: DynamicCallGraph,
    /// The calling-context record's repository, with every thread's part
    /// folded in.
    pub record: Option<Box<dyn Repository>>,
    /// What `--tune` did.
    pub tune: Option<TuneOutcome>,
    /// Stack samples taken, over all threads.
    pub samples: u64,
    /// Threads that reported their end.
    pub threads_done: u64,
    /// Source instructions over all threads that ended.
    pub instructions: u64,
    /// The latest end of a thread in virtual time: its cycles and the
    /// profiler's work it did (see [`vm::profiler_cost`]).
    pub max_time: u64,
    /// The profiler's work: the organizer's own and every ended thread's.
    pub work: Work,
}

/// Starts the organizer thread; an error if the system refuses it.
pub fn spawn(
    inbox: Receiver<Message>,
    pool: Sender<Vec<Sample>>,
    setup: Setup,
) -> Result<std::thread::JoinHandle<Repositories>, StartError> {
    crate::spawn::start(
        "the profiler's organizer thread",
        "vm-organizer",
        move || {
            let Setup {
                methods,
                record,
                tune,
            } = setup;
            let mut r = Repositories {
                dcg: DynamicCallGraph::new(methods),
                record,
                ..Default::default()
            };
            let mut tuner = tune.map(|(t, published)| {
                let initial = t.interval();
                (t, published, initial, vec![(0u64, initial)])
            });
            while let Ok(msg) = inbox.recv() {
                match msg {
                    Message::Samples(mut buf, reply) => {
                        r.work.charge(CostItem::OrganizerBuffer, 1);
                        for &s in &buf {
                            if let (Sample::Examined { repeated }, Some(t)) = (s, &mut tuner) {
                                if let Some(new) = t.0.record_repetition(repeated) {
                                    t.1.store(new, Ordering::Relaxed);
                                    t.3.push((t.0.samples(), new));
                                }
                            } else {
                                r.work.charge(CostItem::DcgUpdate, 1);
                                r.dcg.add_sample(s);
                            }
                        }
                        buf.clear();
                        let _ = pool.try_send(buf);
                        if let Some(reply) = reply {
                            let now = tuner.as_ref().map_or(0, |t| t.0.interval());
                            let _ = reply.send(now);
                        }
                    }
                    Message::Record { thread, part } => {
                        if let Some(rec) = &mut r.record {
                            rec.fold(thread, part, &mut r.work);
                        }
                    }
                    Message::ThreadDone(t) => thread_done(&mut r, *t),
                    Message::Snapshot(reply) => {
                        let _ = reply.send(r.dcg.clone());
                    }
                    Message::Finish => break,
                }
            }
            r.tune = tuner.map(|(t, _, initial, trajectory)| TuneOutcome {
                initial,
                last: t.interval(),
                changes: trajectory.len() as u64 - 1,
                samples: t.samples(),
                trajectory,
            });
            r
        },
    )
}

/// A thread ended: its totals, and (exhaustive profiles) its exact counts
/// and calling context tree.
fn thread_done(r: &mut Repositories, t: ThreadSummary) {
    r.samples += t.samples;
    r.threads_done += 1;
    r.instructions += t.instructions;
    r.max_time = r.max_time.max(t.time);
    r.work.add(&t.work);
    if let Some(rec) = &mut r.record {
        rec.thread_done(t.thread, t.entry);
    }
    if let Some(mut exact) = t.exact {
        r.dcg.add_exact(&exact);
        if let (Some(rec), Some(tree)) = (&mut r.record, exact.cct.take()) {
            rec.fold(t.thread, Box::new(tree), &mut r.work);
        }
    }
}
