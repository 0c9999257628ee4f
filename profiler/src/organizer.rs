//! The organizer: a thread of its own that folds the application threads'
//! sample buffers into the repositories (Jikes RVM's *organizer*; the
//! SSCLI paper's CC-Map manager thread), then returns each buffer to the
//! pool for reuse. It stops on [`Message::Finish`], which the profiler
//! sends after the program has ended, and hands back what it built.
//!
//! With `--record=ccmap` it is the SSCLI paper's CC-Map manager: it
//! rebuilds each walked stack ([`StackRebuilder`], for marked walks) and
//! inserts it into the [`CallContextMap`]. With `--tune` it feeds every
//! examination of a stack to the [`IntervalTuner`] and publishes a new
//! interval in an atomic that the clock (or the counter) reads.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crossbeam::channel::{Receiver, Sender};

use crate::ccmap::{CallContextMap, StackSample, SEQUENCE_LIMIT};
use crate::cct::CallingContextTree;
use crate::dcg::DynamicCallGraph;
use crate::pcct::Pcct;
use crate::samples::{Message, Sample, StackBuffer};
use crate::tune::IntervalTuner;
use crate::walk::stacks::StackRebuilder;

/// What the organizer is to build.
pub struct Setup {
    /// Methods of the program.
    pub methods: usize,
    /// Build a calling context tree (cct or acct, merged from the threads'
    /// trees).
    pub build_cct: bool,
    /// Build the CC-Map from walked stacks.
    pub build_ccmap: bool,
    /// `--tune`: the tuner, and where to publish its interval.
    pub tune: Option<(IntervalTuner, Arc<AtomicU64>)>,
    /// Where processed stack buffers go back to.
    pub stack_pool: Sender<StackBuffer>,
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
#[derive(Debug, Default)]
pub struct Repositories {
    /// The dynamic call graph and hot methods.
    pub dcg: DynamicCallGraph,
    /// The calling context tree, when one was recorded.
    pub cct: Option<CallingContextTree>,
    /// The partial calling context tree (`--record=pcct`), when one was
    /// recorded.
    pub pcct: Option<Pcct>,
    /// The Call Context Map, when one was recorded.
    pub ccmap: Option<CallContextMap>,
    /// What `--tune` did.
    pub tune: Option<TuneOutcome>,
    /// Stack samples taken, over all threads.
    pub samples: u64,
    /// Threads that reported their end.
    pub threads_done: u64,
    /// Source instructions over all threads that ended.
    pub instructions: u64,
    /// The longest thread's cycles.
    pub max_cycles: u64,
}

/// Starts the organizer thread.
pub fn spawn(
    inbox: Receiver<Message>,
    pool: Sender<Vec<Sample>>,
    setup: Setup,
) -> std::thread::JoinHandle<Repositories> {
    std::thread::Builder::new()
        .name("vm-organizer".into())
        .spawn(move || {
            let Setup {
                methods,
                build_cct,
                build_ccmap,
                tune,
                stack_pool,
            } = setup;
            let mut r = Repositories {
                dcg: DynamicCallGraph::new(methods),
                cct: build_cct.then(CallingContextTree::new),
                ccmap: build_ccmap.then(|| CallContextMap::with_sequence_limit(SEQUENCE_LIMIT)),
                ..Default::default()
            };
            let mut tuner = tune.map(|(t, published)| {
                let initial = t.interval();
                (t, published, initial, vec![(0u64, initial)])
            });
            let mut rebuilders: HashMap<u32, StackRebuilder> = HashMap::new();
            while let Ok(msg) = inbox.recv() {
                match msg {
                    Message::Samples(mut buf, reply) => {
                        for &s in &buf {
                            if let (Sample::Examined { repeated }, Some(t)) = (s, &mut tuner) {
                                if let Some(new) = t.0.record_repetition(repeated) {
                                    t.1.store(new, Ordering::Relaxed);
                                    t.3.push((t.0.samples(), new));
                                }
                            } else {
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
                    Message::Stacks { thread, mut buffer } => {
                        if let Some(map) = &mut r.ccmap {
                            let rb = rebuilders.entry(thread).or_default();
                            for (rec, frames) in buffer.samples() {
                                let (stack, complete) = rb.rebuild(rec, frames);
                                map.insert(StackSample {
                                    frames: stack,
                                    complete,
                                    call: rec.call,
                                    self_at: rec.self_at.map(usize::from),
                                });
                            }
                        }
                        buffer.clear();
                        let _ = stack_pool.try_send(buffer);
                    }
                    Message::Contexts(tree) => {
                        if let Some(mine) = &mut r.cct {
                            mine.merge(&tree);
                        }
                    }
                    Message::Pcct(tree) => match &mut r.pcct {
                        // The first thread's tree is taken as it is, its
                        // hot lists in the order its samples made them.
                        None => r.pcct = Some(*tree),
                        Some(mine) => mine.merge(&tree),
                    },
                    Message::ThreadDone(t) => {
                        r.samples += t.samples;
                        r.threads_done += 1;
                        r.instructions += t.instructions;
                        r.max_cycles = r.max_cycles.max(t.cycles);
                        rebuilders.remove(&t.thread);
                        if let Some(map) = &mut r.ccmap {
                            map.count_thread(t.entry);
                        }
                        if let Some(mut exact) = t.exact {
                            r.dcg.add_exact(&exact);
                            if let (Some(mine), Some(theirs)) = (&mut r.cct, exact.cct.take()) {
                                if mine.is_empty() {
                                    // The first thread's tree is taken as
                                    // it is: no copy of millions of nodes.
                                    *mine = theirs;
                                } else {
                                    mine.merge(&theirs);
                                }
                            }
                        }
                    }
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
        })
        .expect("spawn the organizer thread")
}
