//! The organizer alone, for `bench/profiler_costs.sh`: the profiler's own
//! thread fed synthetic messages of one kind, so that callgrind
//! (`--toggle-collect` on the organizer's thread function) counts what
//! one piece of its work costs, with nothing of the interpreter around it
//! (docs/PERFORMANCE.md, "What a profile costs").
//!
//! ```text
//! organizer_probe buffers N SIZE   N buffers of SIZE samples (DCG updates)
//! organizer_probe merge N NODES    N trees of NODES contexts merged
//! ```
//!
//! It prints the organizer's work counts (`item count` lines), which the
//! script divides the instructions by.

use crossbeam::channel::unbounded;
use profiler::config::{ProfileKind, ProfileOptions, RecordKind};
use profiler::organizer::{self, Setup};
use profiler::records::cct::CallingContextTree;
use profiler::records::{self, Repository};
use profiler::samples::{Message, Sample};
use vm::profiler_cost::CostItem;

/// Methods of the synthetic program.
const METHODS: u32 = 64;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |i: usize| -> usize {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| usage())
    };
    let (what, n, size) = (args.first().map(String::as_str), number(1), number(2));
    let (record, messages) = match what {
        Some("buffers") => (None, buffers(n, size)),
        Some("merge") => (Some(repository(RecordKind::Cct)), trees(n, size)),
        _ => usage(),
    };
    let (to, inbox) = unbounded();
    let (pool, _pooled) = unbounded();
    let handle = organizer::spawn(
        inbox,
        pool,
        Setup {
            methods: METHODS as usize,
            record,
            tune: None,
        },
    )
    .expect("the organizer thread");
    for m in messages {
        to.send(m).expect("the organizer runs");
    }
    to.send(Message::Finish).expect("the organizer runs");
    let repos = handle.join().expect("the organizer ends");
    for &item in CostItem::ALL {
        let count = repos.work.count(item);
        if count > 0 {
            println!("{} {count}", item.name());
        }
    }
}

fn usage() -> ! {
    eprintln!("usage: organizer_probe buffers|merge N SIZE");
    std::process::exit(2)
}

/// The repository of a cbs profile recording `record`.
fn repository(record: RecordKind) -> Box<dyn Repository> {
    let options = ProfileOptions {
        profile: Some(ProfileKind::Cbs),
        record: Some(vec![record]),
        ..ProfileOptions::default()
    };
    let config = options.resolve(1).expect("a valid configuration");
    records::start(&config)
        .expect("a calling-context record")
        .repository
}

/// `n` buffers of `size` samples, alternating method and edge samples.
fn buffers(n: usize, size: usize) -> Vec<Message> {
    (0..n)
        .map(|b| {
            let samples = (0..size)
                .map(|i| {
                    let m = ((b * 7 + i) % METHODS as usize) as u32;
                    if i % 2 == 0 {
                        Sample::Method { method: m }
                    } else {
                        Sample::Edge {
                            caller: m,
                            line: 10 + m % 5,
                            callee: (m + 1) % METHODS,
                        }
                    }
                })
                .collect();
            Message::Samples(samples, None)
        })
        .collect()
}

/// `n` trees of `nodes` contexts each (every thread a different shape, so
/// that merging finds and creates children), one thread each.
fn trees(n: usize, nodes: usize) -> Vec<Message> {
    (0..n)
        .map(|t| {
            let mut tree = CallingContextTree::for_thread(0);
            let mut parent = tree.child(CallingContextTree::ROOT, 0, u32::MAX);
            for i in 1..nodes {
                let m = ((i * 13 + t) % METHODS as usize) as u32;
                let c = tree.child(parent, m, (i % 7) as u32);
                tree.node_mut(c).calls += 1;
                // Go deeper most of the time, back to the top now and then.
                parent = if i % 9 == 0 {
                    CallingContextTree::ROOT
                } else {
                    c
                };
            }
            Message::Record {
                thread: t as u32,
                part: Box::new(tree),
            }
        })
        .collect()
}
