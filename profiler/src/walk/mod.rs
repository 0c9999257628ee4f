//! Stack walks: how a sample finds its *calling context* (the path of
//! (method, call-site line) from the thread's entry method to a frame), and
//! the per-thread calling context tree the sampling profiles build with
//! `--record=cct`.
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
//! [`crate::listeners::SampleRecorder::method_sample`]). Each thread's entry
//! context counts one call per thread, as in the exhaustive CCT. The tree
//! lives on its thread (no lock per sample) and goes to the organizer when
//! the thread ends.
//!
//! No walk recurses on the Rust stack: trees and stacks may be thousands of
//! levels deep.

pub mod full;
pub mod incremental;
pub mod marked;
pub mod stacks;

use vm::frame::{Frame, ReturnWord};
use vm::instr::YieldKind;
use vm::loader::Program;

use crate::cct::{CallingContextTree, NO_LINE};
use crate::config::Walk;
use crate::stack::{call_site_line, method_of};
use incremental::{IncrementalWalk, Weight, RETRIEVE_AT};

/// What a walk needs to know about frames: which method each runs and
/// from which call-site line it was called. [`Program`] is the real one;
/// unit tests use a stand-in.
pub trait FrameInfo {
    /// The method frame `f` runs.
    fn method(&self, f: &Frame) -> u32;
    /// The source line of the call in `caller` that created `callee`.
    fn line(&self, caller: &Frame, callee: &Frame) -> u32;
}

impl FrameInfo for Program {
    #[inline]
    fn method(&self, f: &Frame) -> u32 {
        method_of(self, f)
    }

    #[inline]
    fn line(&self, caller: &Frame, callee: &Frame) -> u32 {
        call_site_line(self, caller, callee)
    }
}

/// The call-site line of `frames[j]` (none for the entry frame).
#[inline]
fn line_of<S: FrameInfo + ?Sized>(s: &S, frames: &[Frame], j: usize) -> u32 {
    if j == 0 {
        NO_LINE
    } else {
        s.line(&frames[j - 1], &frames[j])
    }
}

/// One thread's calling context tree, built from its samples.
pub struct ContextRecorder {
    tree: CallingContextTree,
    walk: Walk,
    max_walk: usize,
    /// `--walk=incremental`: the traces not yet folded into `tree`.
    incremental: Option<IncrementalWalk>,
}

impl ContextRecorder {
    /// A recorder walking with `walk`, examining at most `max_walk` frames
    /// per sample, for a thread whose entry method is `entry` (its context
    /// counts the thread as one call).
    pub fn new(walk: Walk, max_walk: u32, entry: u32) -> ContextRecorder {
        let mut tree = CallingContextTree::new();
        let e = tree.child(CallingContextTree::ROOT, entry, NO_LINE);
        tree.node_mut(e).calls += 1;
        ContextRecorder {
            tree,
            walk,
            max_walk: (max_walk as usize).max(1),
            incremental: (walk == Walk::Incremental).then(IncrementalWalk::new),
        }
    }

    /// The context of the top frame of `frames` (found or created), for
    /// the walks that find it at once. An incremental walk cannot: it
    /// retrieves what it has (completing every trace, restoring the stack)
    /// and then walks the whole stack as `full` does.
    pub fn context<S: FrameInfo + ?Sized>(&mut self, s: &S, frames: &mut [Frame]) -> u32 {
        match self.walk {
            Walk::Marked => marked::context(&mut self.tree, s, frames, self.max_walk),
            Walk::Top => full::context(&mut self.tree, s, frames, 1),
            Walk::Full => full::context(&mut self.tree, s, frames, self.max_walk),
            Walk::Incremental => {
                self.retrieve(s, frames);
                full::context(&mut self.tree, s, frames, usize::MAX)
            }
        }
    }

    /// An incremental sample of `frames[..depth]` with `weight`, retrieving
    /// first if many traces are pending (`frames` is the whole stack).
    fn incremental_sample<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        depth: usize,
        weight: Weight,
    ) {
        let Some(w) = &mut self.incremental else {
            return;
        };
        if w.len() >= RETRIEVE_AT {
            w.retrieve(s, frames, &mut self.tree);
        }
        w.sample(&mut frames[..depth], weight);
    }

    /// An edge sample into the top frame: one call of its context. A lone
    /// entry frame has no edge (as in the DCG).
    pub fn edge_sample<S: FrameInfo + ?Sized>(&mut self, s: &S, frames: &mut [Frame]) {
        if frames.len() < 2 {
            return;
        }
        if self.incremental.is_some() {
            let n = frames.len();
            return self.incremental_sample(s, frames, n, Weight::Call);
        }
        let c = self.context(s, frames);
        self.tree.node_mut(c).calls += 1;
    }

    /// A method sample at a yieldpoint of `kind`: one `self` of the
    /// context of the frame credited (the caller at a prologue).
    pub fn method_sample<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        kind: YieldKind,
    ) {
        let Some(depth) = credited_depth(frames.len(), kind) else {
            return;
        };
        if self.incremental.is_some() {
            return self.incremental_sample(s, frames, depth, Weight::Self_);
        }
        let c = self.context(s, &mut frames[..depth]);
        self.tree.node_mut(c).self_ += 1;
    }

    /// A frame whose return word is the trampoline `word` was just popped;
    /// `frames` is what remains (see [`IncrementalWalk::trampoline`]).
    /// Returns the real return word.
    pub fn trampoline(&mut self, frames: &mut [Frame], word: ReturnWord) -> ReturnWord {
        match &mut self.incremental {
            Some(w) => w.trampoline(frames, word),
            None => panic!("trampoline {word:?} without an incremental walk"),
        }
    }

    /// The real return word behind `word` (for stack traces).
    pub fn resolve(&self, word: ReturnWord) -> ReturnWord {
        match &self.incremental {
            Some(w) => w.resolve(word),
            None => word,
        }
    }

    /// Folds every pending incremental trace into the tree, decoding the
    /// frames of `frames` they still wait for and restoring the patched
    /// return words (nothing to do for the other walks). Called when the
    /// thread ends, with whatever frames remain.
    pub fn retrieve<S: FrameInfo + ?Sized>(&mut self, s: &S, frames: &mut [Frame]) {
        if let Some(w) = &mut self.incremental {
            w.retrieve(s, frames, &mut self.tree);
        }
    }

    /// The incremental walk, if this recorder uses one.
    pub fn incremental(&self) -> Option<&IncrementalWalk> {
        self.incremental.as_ref()
    }

    /// The tree built so far (for an incremental walk: from the traces
    /// retrieved so far).
    pub fn tree(&self) -> &CallingContextTree {
        &self.tree
    }

    /// The tree, for the organizer.
    pub fn into_tree(self) -> CallingContextTree {
        self.tree
    }
}

/// How many frames, from the bottom, a method sample at a yieldpoint of
/// `kind` credits with its unit of time: all of them, but at a prologue the
/// callee has not run yet, so the caller is credited (as Jikes RVM's method
/// listener does). `None` for an empty stack.
pub fn credited_depth(frames: usize, kind: YieldKind) -> Option<usize> {
    let depth = if kind == YieldKind::Prologue && frames >= 2 {
        frames - 1
    } else {
        frames
    };
    (depth > 0).then_some(depth)
}

#[cfg(test)]
pub(crate) mod testing {
    //! A stand-in for a program: frame `body` is the method, the return
    //! word's pc is the call-site line.

    use super::FrameInfo;
    use crate::cct::CallingContextTree;
    use vm::frame::{Frame, ReturnWord};

    pub struct Fake;

    impl FrameInfo for Fake {
        fn method(&self, f: &Frame) -> u32 {
            f.body
        }
        fn line(&self, _caller: &Frame, callee: &Frame) -> u32 {
            callee.ret.pc()
        }
    }

    /// A new (unmarked) frame running `method`, called from `line`.
    pub fn frame(method: u32, line: u32) -> Frame {
        Frame {
            ret: ReturnWord::to_pc(line),
            slot: 0,
            body: method,
            base: 0,
        }
    }

    /// The entry frame running `method`.
    pub fn entry(method: u32) -> Frame {
        Frame {
            ret: ReturnWord::thread_exit(),
            slot: 0,
            body: method,
            base: 0,
        }
    }

    /// The path of node `n` from the root, as (method, line), root excluded.
    pub fn path(t: &CallingContextTree, mut n: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        while n != CallingContextTree::ROOT {
            out.push((t.method_of(n), t.line_of(n)));
            n = t.node(n).parent;
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::cct::NO_LINE;

    #[test]
    fn method_samples_at_a_prologue_credit_the_caller() {
        for walk in [Walk::Full, Walk::Marked] {
            let mut r = ContextRecorder::new(walk, 16, 0);
            let mut frames = vec![entry(0), frame(1, 10), frame(2, 20)];
            r.method_sample(&Fake, &mut frames, YieldKind::Prologue);
            r.edge_sample(&Fake, &mut frames);
            r.method_sample(&Fake, &mut frames, YieldKind::Epilogue);
            let t = r.tree();
            let main = t.child_of(CallingContextTree::ROOT, 0, NO_LINE).unwrap();
            let a = t.child_of(main, 1, 10).unwrap();
            let b = t.child_of(a, 2, 20).unwrap();
            assert_eq!((t.node(main).calls, t.node(main).self_), (1, 0));
            assert_eq!((t.node(a).calls, t.node(a).self_), (0, 1), "{walk:?}");
            assert_eq!((t.node(b).calls, t.node(b).self_), (1, 1), "{walk:?}");
            assert_eq!(t.len(), 4);
        }
    }

    #[test]
    fn incremental_samples_fold_into_the_same_tree_when_retrieved() {
        let mut r = ContextRecorder::new(Walk::Incremental, u32::MAX, 0);
        let mut frames = vec![entry(0), frame(1, 10), frame(2, 20)];
        r.method_sample(&Fake, &mut frames, YieldKind::Prologue);
        r.edge_sample(&Fake, &mut frames);
        r.method_sample(&Fake, &mut frames, YieldKind::Epilogue);
        assert_eq!(r.tree().len(), 2, "nothing folded before retrieval");
        assert!(frames[1].ret.is_trampoline() && frames[2].ret.is_trampoline());
        assert_eq!(r.resolve(frames[2].ret), ReturnWord::to_pc(20));
        r.retrieve(&Fake, &mut frames);
        assert!(frames.iter().all(|f| !f.ret.is_trampoline()));
        let t = r.tree();
        let main = t.child_of(CallingContextTree::ROOT, 0, NO_LINE).unwrap();
        let a = t.child_of(main, 1, 10).unwrap();
        let b = t.child_of(a, 2, 20).unwrap();
        assert_eq!((t.node(main).calls, t.node(main).self_), (1, 0));
        assert_eq!((t.node(a).calls, t.node(a).self_), (0, 1));
        assert_eq!((t.node(b).calls, t.node(b).self_), (1, 1));
        assert_eq!(t.len(), 4);
        // `context` retrieves, then finds the context at once.
        frames.push(frame(3, 30));
        r.edge_sample(&Fake, &mut frames);
        let c = r.context(&Fake, &mut frames);
        assert_eq!(r.tree().node(c).calls, 1);
        assert_eq!(r.tree().node(c).parent, b);
    }

    #[test]
    fn an_entry_frame_alone_has_no_edge() {
        let mut r = ContextRecorder::new(Walk::Full, 256, 3);
        let mut frames = vec![entry(3)];
        r.edge_sample(&Fake, &mut frames);
        r.method_sample(&Fake, &mut frames, YieldKind::Prologue);
        let t = r.tree();
        let e = t.child_of(CallingContextTree::ROOT, 3, NO_LINE).unwrap();
        assert_eq!((t.node(e).calls, t.node(e).self_), (1, 1));
        assert_eq!(t.len(), 2);
    }
}
