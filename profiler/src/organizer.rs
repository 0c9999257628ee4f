//! The organizer: a thread of its own that folds the application threads'
//! sample buffers into the repositories (Jikes RVM's *organizer*; the
//! SSCLI paper's CC-Map manager thread), then returns each buffer to the
//! pool for reuse. It stops on [`Message::Finish`], which the profiler
//! sends after the program has ended, and hands back what it built.

use crossbeam::channel::{Receiver, Sender};

use crate::cct::CallingContextTree;
use crate::dcg::DynamicCallGraph;
use crate::pcct::Pcct;
use crate::samples::{Message, Sample};

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
    methods: usize,
    build_cct: bool,
) -> std::thread::JoinHandle<Repositories> {
    std::thread::Builder::new()
        .name("vm-organizer".into())
        .spawn(move || {
            let mut r = Repositories {
                dcg: DynamicCallGraph::new(methods),
                cct: build_cct.then(CallingContextTree::new),
                ..Default::default()
            };
            while let Ok(msg) = inbox.recv() {
                match msg {
                    Message::Samples(mut buf) => {
                        for &s in &buf {
                            r.dcg.add_sample(s);
                        }
                        buf.clear();
                        let _ = pool.try_send(buf);
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
                        if let Some(exact) = t.exact {
                            r.dcg.add_exact(&exact);
                            if let (Some(mine), Some(theirs)) = (&mut r.cct, &exact.cct) {
                                mine.merge(theirs);
                            }
                        }
                    }
                    Message::Finish => break,
                }
            }
            r
        })
        .expect("spawn the organizer thread")
}
