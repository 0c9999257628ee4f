//! The calling context tree record (`--record=cct`): the tree itself
//! ([`tree`], Ammons, Ball & Larus' structure, which the exhaustive profile
//! also builds), the stack walks by which a sample finds its *calling
//! context* (the path of (method, call-site line) from the thread's entry
//! method to a frame), each thread's tree ([`recorder`]) and the
//! organizer's merge of them ([`CctRepository`]).
//!
//! - [`full`]: read every frame from the top down to the entry frame (at
//!   most `--max-walk`, default 256), the classic stack-sampling walk
//!   (Whaley 2000, section 5.1, Figure 6(a): "a copy of the call stack at
//!   every sample"), then find the path in the tree from the root.
//! - [`marked`]: Whaley 2000, section 5.2 and Figure 7 (also Arnold &
//!   Sweeney 2000, section 3): walk up only to the first frame marked by an
//!   earlier sample, whose `slot` holds its context, then back down marking
//!   the new frames (at most `--max-walk` frames examined, default 16,
//!   Whaley's buffer).
//! - [`incremental`]: Hofer et al. 2015, sections 5 and 6: take only the
//!   top frame, patch its return word with a trampoline, and capture each
//!   caller lazily when the program returns into it; the traces are folded
//!   into the tree when retrieved (at thread end, and whenever many are
//!   pending). Never cut by `--max-walk`.
//! - `top` (the `dcg`'s walk) examines only the top frame: the DCG needs
//!   nothing more. It cannot place a context, so `--record=cct` with
//!   `--walk=top` is a usage error ([`crate::config`]); if asked anyway,
//!   [`ContextRecorder`] treats it as a full walk of one frame.
//!
//! **A walk cut by `--max-walk`** (Whaley 2000, section 5.4.1, Figure 10):
//! when the walk examined `max-walk` frames without reaching a marked frame
//! (`marked`) or the entry frame, it does not know where in the tree the
//! examined frames belong. As in Figure 7's `allocate_node(m)`, it then
//! starts a *detached subtree*: a new node for the method of the frame just
//! below the examined ones (known from the last examined frame's return
//! word, with no call-site line), not attached to the thread's tree but
//! kept under a `<detached>` context, a child of the root, so that the flat
//! `cct` list of docs/LANGUAGE.md "Profiles" still has one root. The examined frames
//! become a path below that node. Later samples whose marked walk stops in
//! one of those frames attach to the detached subtree, exactly as in
//! Figure 10(b). A marked walk allocates a fresh detached root per cut;
//! a full walk (which has no marks to tell activations apart) reuses the
//! detached path of an identical truncated stack on the same thread, so a
//! deep recursion sampled often does not grow the tree by `max-walk` nodes
//! per sample. Detached subtrees are never merged with each other when the
//! threads' trees are merged ([`CallingContextTree::merge`]).
//!
//! **Counts** (docs/LANGUAGE.md "Profiles"): an edge sample (the moment a listener
//! records [`crate::samples::Sample::Edge`]) adds one to `calls` of the
//! context of the top frame; a method sample adds one to `self` of the
//! context of the frame it credits (at a prologue the caller, see
//! [`crate::listeners::recorder::SampleRecorder::method_sample`]). Each thread's entry
//! context counts one call per thread, as in the exhaustive CCT. The tree
//! lives on its thread (no lock per sample) and goes to the organizer when
//! the thread ends.
//!
//! No walk recurses on the Rust stack: trees and stacks may be thousands of
//! levels deep.

pub mod full;
pub mod incremental;
pub mod marked;
pub mod recorder;
pub mod tree;

use vm::frame::ReturnWord;
use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;
use vm::loader::Program;
use vm::profiler_cost::{CostItem, Work};

use super::{Part, RecordMaker, RecordOutput, Repository, Started, ThreadRecord};
use crate::config::{ProfileConfig, WalkKind};
use crate::samples::SampleSink;
pub use recorder::ContextRecorder;
pub use tree::{CallingContextTree, DETACHED_METHOD, NO_LINE, ROOT_METHOD};

/// `--record=cct` with a sampling profile: each thread walks into its own
/// tree, the organizer merges them.
pub fn start(c: &ProfileConfig) -> Started {
    Started {
        kind: Some(Box::new(CctMaker {
            walk: c.walk,
            max_walk: c.max_walk,
        })),
        repository: Box::new(CctRepository::merging()),
    }
}

/// `--record=cct` with the exhaustive profile: each thread's exact tree
/// arrives with its end ([`crate::exact`]); the first is taken as it is
/// (no copy of millions of nodes), the others merged into it.
pub fn start_exhaustive() -> Started {
    Started {
        kind: None,
        repository: Box::new(CctRepository {
            tree: CallingContextTree::new(),
            take_first: true,
        }),
    }
}

struct CctMaker {
    walk: WalkKind,
    max_walk: u32,
}

impl RecordMaker for CctMaker {
    fn thread(&self, entry: u32) -> Box<dyn ThreadRecord> {
        Box::new(ContextRecorder::new(self.walk, self.max_walk, entry))
    }
}

impl ThreadRecord for ContextRecorder {
    #[inline]
    fn method_sample(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind) {
        ContextRecorder::method_sample(self, t.program, t.frames, kind, t.work);
    }

    #[inline]
    fn edge_sample(&mut self, t: &mut ThreadCtx<'_>) {
        ContextRecorder::edge_sample(self, t.program, t.frames, t.work);
    }

    fn trampoline(&mut self, t: &mut ThreadCtx<'_>, word: ReturnWord) -> ReturnWord {
        ContextRecorder::trampoline(self, t.frames, word, t.work)
    }

    fn resolve(&self, word: ReturnWord) -> ReturnWord {
        ContextRecorder::resolve(self, word)
    }

    /// An incremental walk first retrieves its traces, decoding the frames
    /// still on the stack (after a runtime error or `halt`) and restoring
    /// their return words (Hofer et al. 2015, section 5.3: "the agent must
    /// retrieve the samples of a thread before the thread exits").
    fn finish(&mut self, t: &mut ThreadCtx<'_>, sink: &mut SampleSink) {
        self.retrieve(t.program, t.frames, t.work);
        sink.send_part(t.thread.id, Box::new(self.take_tree()));
    }
}

/// The organizer's calling context tree: the threads' trees merged
/// ([`CallingContextTree::merge`]). The ACCT's repository too.
pub struct CctRepository {
    tree: CallingContextTree,
    /// Take the first tree as it is rather than merging it into an empty
    /// one (the exhaustive trees).
    take_first: bool,
}

impl CctRepository {
    /// A repository merging every thread's tree into one.
    pub fn merging() -> CctRepository {
        CctRepository {
            tree: CallingContextTree::new(),
            take_first: false,
        }
    }
}

impl Repository for CctRepository {
    fn fold(&mut self, _thread: u32, part: Part, work: &mut Work) {
        let Ok(theirs) = part.downcast::<CallingContextTree>() else {
            return;
        };
        if self.take_first && self.tree.is_empty() {
            self.tree = *theirs;
        } else {
            work.charge(CostItem::MergeNode, theirs.len() as u64);
            self.tree.merge(&theirs);
        }
    }

    fn into_output(self: Box<Self>, _program: &Program) -> RecordOutput {
        RecordOutput {
            tree: Some(self.tree),
            ..RecordOutput::default()
        }
    }
}
