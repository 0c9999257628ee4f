//! Whaley's partial calling context tree (`--record=pcct`): Whaley 2000,
//! "A Portable Sampling-Based Profiler for Java Virtual Machines",
//! section 5 (Java Grande 2000; see README.md, "Bibliography").
//!
//! The PCCT is a calling context tree built only from stack samples:
//! "partial" because it holds only the paths that were on a stack when a
//! sample was taken, and because a context cut by the walk's buffer may be
//! only partly known (section 5.1). This folder is its repository
//! ([`tree`], with the sorted lists of [`hot`]) and its construction
//! algorithm, kept apart from the sampled CCT of [`crate::records::cct`]
//! because the PCCT counts differently and keeps sorted lists:
//!
//! - **Construction** ([`Pcct::place`], Figure 7, section 5.2). The
//!   *upward phase* reads frames from the top down, at most `--max-walk` of
//!   them (Whaley's `BUFSIZE`, 16 by default), until it meets a frame whose
//!   return word carries the mark bit: an earlier sample visited that
//!   activation, and the frame's profiler slot names its node
//!   (`get_node(m, rt)`). The *downward phase* then goes back up the
//!   buffer, finding or creating the child node of each newer frame,
//!   marking the frame and storing the node in its slot. As Whaley's
//!   implementation does, once a child had to be created, the children
//!   below it are created without searching ("it stops searching for edges
//!   from nodes once a new edge is created"), and call sites are told apart
//!   (each node is a (method, call-site line) pair).
//! - **Cut walks** (section 5.4.1, Figure 10). When the buffer fills before
//!   a marked frame or the entry frame, `allocate_node(m)` makes a new node
//!   for the method of the next frame down, not attached to the tree: the
//!   root of a detached subtree, kept under a `<detached>` child of the
//!   root. The examined frames are marked into it, so later samples in them
//!   extend it (Figure 10(b)); the frame below the cut stays unmarked.
//! - **Edge weights by increment-all-new-edges** (Figure 7, `e.time +=
//!   cputime` for every edge of the downward phase; Arnold & Sweeney 2000,
//!   section 3.1, name the strategy and show its flaw): every edge the
//!   downward phase passes, i.e. the edge into every frame pushed since the
//!   previous sample, gains 1. Every walk does this, whichever listener
//!   asked for it (method or edge sample). Edges into entry frames do not
//!   exist (docs/LANGUAGE.md "Profiles"); an entry context counts its threads instead.
//! - **Node time** (`n1.time += cputime`): a method sample adds 1 to the
//!   node of the frame it credits (the caller at a prologue, see
//!   [`crate::listeners::recorder::SampleRecorder::method_sample`]). A sample is one
//!   unit of time.
//! - **Sorted hot lists** (Figure 8's `prev`/`next` links and
//!   `update_sorted_pos`; the same trick as the hot method list of section
//!   6.5, Figure 12): nodes are kept sorted by time and edges by weight as
//!   they are incremented, so the hottest nodes and edges are read off the
//!   front of a list with no sort ([`Pcct::hottest_nodes`],
//!   [`Pcct::hottest_edges`]). See [`hot::HotList`] for how a move stays cheap
//!   when many counts are equal.
//! - **Purge** (section 5.4, "periodically purging data"; section 6.1:
//!   the compiler "purges all old profile data" every 10 seconds). With
//!   `--purge=N`, every N samples of a thread its PCCT drops every context
//!   that no walk reached in those N samples (nor any context below it):
//!   cold contexts go, contexts still in use keep their counts. Freed
//!   nodes are reused (Whaley allocates from "a single memory buffer");
//!   a frame whose slot names a freed node is recognised by the node's
//!   generation and walked past as if unmarked.
//!
//! The flat `cct` list of docs/LANGUAGE.md "Profiles" has `calls` = the weight of the
//! edge into the node (threads, for an entry context) and `self` = the
//! node's time in samples. With `--record=pcct` the profile also has a
//! `hot` key: the front of both sorted lists ([`profile::HotLists`]).
//!
//! Each thread builds its own PCCT (no lock per sample); the organizer
//! merges them when threads end. Nothing here recurses on the Rust stack.

pub mod hot;
pub mod tree;

use vm::frame::Frame;
use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;
use vm::loader::Program;
use vm::profiler_cost::{CostItem, Work};

use super::{Part, RecordMaker, RecordOutput, Repository, Started, ThreadRecord};
use crate::config::ProfileConfig;
use crate::records::frames::{credited_depth, FrameInfo};
use crate::samples::SampleSink;
pub use tree::Pcct;

/// How many entries of each hot list the profile file keeps.
pub const HOT_IN_PROFILE: usize = 20;

/// `--record=pcct`: each thread walks into its own PCCT, the organizer
/// merges them.
pub fn start(c: &ProfileConfig) -> Started {
    Started {
        kind: Some(Box::new(PcctMaker {
            max_walk: c.max_walk,
            purge: c.purge,
        })),
        repository: Box::new(PcctRepository { tree: None }),
    }
}

struct PcctMaker {
    max_walk: u32,
    purge: Option<u64>,
}

impl RecordMaker for PcctMaker {
    fn thread(&self, entry: u32) -> Box<dyn ThreadRecord> {
        Box::new(PcctRecorder::new(self.max_walk, self.purge, entry))
    }
}

/// One thread's PCCT and how its samples walk into it.
pub struct PcctRecorder {
    tree: Pcct,
    max_walk: usize,
    purge: Option<u64>,
    since_purge: u64,
}

impl PcctRecorder {
    /// A recorder for a thread entering `entry`, walking at most
    /// `max_walk` frames per sample, purging every `purge` samples.
    pub fn new(max_walk: u32, purge: Option<u64>, entry: u32) -> PcctRecorder {
        let mut tree = Pcct::new();
        tree.enter_thread(entry);
        PcctRecorder {
            tree,
            max_walk: (max_walk as usize).max(1),
            purge,
            since_purge: 0,
        }
    }

    /// A sample is being taken (before its walks): with `--purge=N`, the
    /// first sample after every N purges what those N did not reach.
    pub fn sample_taken(&mut self, work: &mut Work) {
        if let Some(n) = self.purge {
            if self.since_purge == n {
                // A purge looks at every node of the tree.
                work.charge(CostItem::PcctPurge, self.tree.len() as u64);
                self.tree.purge();
                self.since_purge = 0;
            }
            self.since_purge += 1;
        }
    }

    /// A method sample at a yieldpoint of `kind`: a walk, and one unit of
    /// time for the node of the frame credited (the caller at a prologue).
    pub fn method_sample<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        kind: YieldKind,
        work: &mut Work,
    ) {
        let Some(depth) = credited_depth(frames.len(), kind) else {
            return;
        };
        let node = self
            .tree
            .place(s, &mut frames[..depth], self.max_walk, work);
        self.tree.add_time(node, 1);
    }

    /// An edge sample: a walk (whose new edges gain weight, as every
    /// walk's do). A lone entry frame has no edge.
    pub fn edge_sample<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        work: &mut Work,
    ) {
        if frames.len() >= 2 {
            self.tree.place(s, frames, self.max_walk, work);
        }
    }

    /// The tree built so far.
    pub fn tree(&self) -> &Pcct {
        &self.tree
    }

    /// The tree, for the organizer (at thread end), leaving an empty one.
    pub fn take_tree(&mut self) -> Pcct {
        std::mem::take(&mut self.tree)
    }
}

impl ThreadRecord for PcctRecorder {
    #[inline]
    fn sample_taken(&mut self, t: &mut ThreadCtx<'_>) {
        PcctRecorder::sample_taken(self, t.work);
    }

    #[inline]
    fn method_sample(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind) {
        PcctRecorder::method_sample(self, t.program, t.frames, kind, t.work);
    }

    #[inline]
    fn edge_sample(&mut self, t: &mut ThreadCtx<'_>) {
        PcctRecorder::edge_sample(self, t.program, t.frames, t.work);
    }

    fn finish(&mut self, t: &mut ThreadCtx<'_>, sink: &mut SampleSink) {
        sink.send_part(t.thread.id, Box::new(self.take_tree()));
    }
}

/// The organizer's PCCT: the first thread's tree taken as it is (its hot
/// lists in the order its samples made them), the others merged into it.
struct PcctRepository {
    tree: Option<Pcct>,
}

impl Repository for PcctRepository {
    fn fold(&mut self, _thread: u32, part: Part, work: &mut Work) {
        let Ok(theirs) = part.downcast::<Pcct>() else {
            return;
        };
        match &mut self.tree {
            None => self.tree = Some(*theirs),
            Some(mine) => {
                work.charge(CostItem::MergeNode, theirs.len() as u64);
                mine.merge(&theirs);
            }
        }
    }

    /// The PCCT is listed here, with its hot lists (their ids are those
    /// of its flat list).
    fn into_output(self: Box<Self>, program: &Program) -> RecordOutput {
        let pcct = self.tree.unwrap_or_default();
        let (flat, ids) = pcct.to_flat(|m| program.bodies[m as usize].name.clone());
        let hot = pcct.hot_lists(&ids, HOT_IN_PROFILE);
        RecordOutput {
            tree: None,
            listed: Some(flat),
            hot: Some(hot),
        }
    }
}

#[cfg(test)]
mod tests;
