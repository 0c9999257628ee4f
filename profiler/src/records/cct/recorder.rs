//! One thread's sampled calling context tree (`--record=cct` with a
//! sampling profile) and how its samples walk into it: `--walk=full`
//! ([`super::full`]), `marked` ([`super::marked`]) or `incremental`
//! ([`super::incremental`]); see [`super`] for the counts. Every walk
//! charges its work to the thread's ledger ([`vm::profiler_cost`]).

use vm::frame::{Frame, ReturnWord};
use vm::instr::YieldKind;
use vm::profiler_cost::{CostItem, Work};

use super::incremental::{IncrementalWalk, WalkStats, Weight, RETRIEVE_AT};
use super::tree::CallingContextTree;
use super::{full, marked};
use crate::config::WalkKind;
use crate::records::frames::{credited_depth, FrameInfo};

/// One thread's calling context tree, built from its samples.
pub struct ContextRecorder {
    tree: CallingContextTree,
    walk: WalkKind,
    max_walk: usize,
    /// `--walk=incremental`: the traces not yet folded into `tree`.
    incremental: Option<IncrementalWalk>,
}

impl ContextRecorder {
    /// A recorder walking with `walk`, examining at most `max_walk` frames
    /// per sample, for a thread whose entry method is `entry` (its context
    /// counts the thread as one call).
    pub fn new(walk: WalkKind, max_walk: u32, entry: u32) -> ContextRecorder {
        let tree = CallingContextTree::for_thread(entry);
        ContextRecorder {
            tree,
            walk,
            max_walk: (max_walk as usize).max(1),
            incremental: (walk == WalkKind::Incremental).then(IncrementalWalk::new),
        }
    }

    /// The context of the top frame of `frames` (found or created), for
    /// the walks that find it at once. An incremental walk cannot: it
    /// retrieves what it has (completing every trace, restoring the stack)
    /// and then walks the whole stack as `full` does.
    pub fn context<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        work: &mut Work,
    ) -> u32 {
        let tree = &mut self.tree;
        match self.walk {
            WalkKind::Marked => marked::context(tree, s, frames, self.max_walk, work),
            WalkKind::Top => full::context(tree, s, frames, 1, work),
            WalkKind::Full => full::context(tree, s, frames, self.max_walk, work),
            WalkKind::Incremental => {
                self.retrieve(s, frames, work);
                full::context(&mut self.tree, s, frames, usize::MAX, work)
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
        work: &mut Work,
    ) {
        let Some(w) = &mut self.incremental else {
            return;
        };
        let before = w.stats();
        if w.len() >= RETRIEVE_AT {
            w.retrieve(s, frames, &mut self.tree);
        }
        w.sample(&mut frames[..depth], weight);
        charge_incremental(before, w.stats(), work);
    }

    /// An edge sample into the top frame: one call of its context. A lone
    /// entry frame has no edge (as in the DCG).
    pub fn edge_sample<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        work: &mut Work,
    ) {
        if frames.len() < 2 {
            return;
        }
        if self.incremental.is_some() {
            let n = frames.len();
            return self.incremental_sample(s, frames, n, Weight::Call, work);
        }
        let c = self.context(s, frames, work);
        self.tree.node_mut(c).calls += 1;
    }

    /// A method sample at a yieldpoint of `kind`: one `self` of the
    /// context of the frame credited (the caller at a prologue).
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
        if self.incremental.is_some() {
            return self.incremental_sample(s, frames, depth, Weight::Self_, work);
        }
        let c = self.context(s, &mut frames[..depth], work);
        self.tree.node_mut(c).self_ += 1;
    }

    /// A frame whose return word is the trampoline `word` was just popped;
    /// `frames` is what remains (see [`IncrementalWalk::trampoline`]).
    /// Returns the real return word.
    pub fn trampoline(
        &mut self,
        frames: &mut [Frame],
        word: ReturnWord,
        work: &mut Work,
    ) -> ReturnWord {
        let Some(w) = &mut self.incremental else {
            panic!("trampoline {word:?} without an incremental walk")
        };
        let before = w.stats();
        let real = w.trampoline(frames, word);
        charge_incremental(before, w.stats(), work);
        real
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
    pub fn retrieve<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        work: &mut Work,
    ) {
        if let Some(w) = &mut self.incremental {
            let before = w.stats();
            w.retrieve(s, frames, &mut self.tree);
            charge_incremental(before, w.stats(), work);
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

    /// The tree, for the organizer (at thread end), leaving an empty one.
    pub fn take_tree(&mut self) -> CallingContextTree {
        std::mem::take(&mut self.tree)
    }
}

/// Charges what an incremental walk did between `before` and `after`:
/// each trampoline it installed (to be taken when its frame returns, or
/// restored at a retrieve), and each frame object it folded into the tree
/// (decoded when sampled, captured at a trampoline or at the retrieve,
/// placed in the tree when folded: one frame walked, in two halves).
fn charge_incremental(before: WalkStats, after: WalkStats, work: &mut Work) {
    work.charge(CostItem::Trampoline, after.patched - before.patched);
    work.charge(CostItem::FrameWalked, after.folded - before.folded);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::cct::NO_LINE;
    use crate::records::frames::testing::*;

    #[test]
    fn method_samples_at_a_prologue_credit_the_caller() {
        for walk in [WalkKind::Full, WalkKind::Marked] {
            let mut w = Work::default();
            let mut r = ContextRecorder::new(walk, 16, 0);
            let mut frames = vec![entry(0), frame(1, 10), frame(2, 20)];
            r.method_sample(&Fake, &mut frames, YieldKind::Prologue, &mut w);
            r.edge_sample(&Fake, &mut frames, &mut w);
            r.method_sample(&Fake, &mut frames, YieldKind::Epilogue, &mut w);
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
        let mut w = Work::default();
        let mut r = ContextRecorder::new(WalkKind::Incremental, u32::MAX, 0);
        let mut frames = vec![entry(0), frame(1, 10), frame(2, 20)];
        r.method_sample(&Fake, &mut frames, YieldKind::Prologue, &mut w);
        r.edge_sample(&Fake, &mut frames, &mut w);
        r.method_sample(&Fake, &mut frames, YieldKind::Epilogue, &mut w);
        assert_eq!(r.tree().len(), 2, "nothing folded before retrieval");
        assert!(frames[1].ret.is_trampoline() && frames[2].ret.is_trampoline());
        assert_eq!(r.resolve(frames[2].ret), ReturnWord::to_pc(20));
        r.retrieve(&Fake, &mut frames, &mut w);
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
        r.edge_sample(&Fake, &mut frames, &mut w);
        let c = r.context(&Fake, &mut frames, &mut w);
        assert_eq!(r.tree().node(c).calls, 1);
        assert_eq!(r.tree().node(c).parent, b);
    }

    #[test]
    fn an_entry_frame_alone_has_no_edge() {
        let mut w = Work::default();
        let mut r = ContextRecorder::new(WalkKind::Full, 256, 3);
        let mut frames = vec![entry(3)];
        r.edge_sample(&Fake, &mut frames, &mut w);
        r.method_sample(&Fake, &mut frames, YieldKind::Prologue, &mut w);
        let t = r.tree();
        let e = t.child_of(CallingContextTree::ROOT, 3, NO_LINE).unwrap();
        assert_eq!((t.node(e).calls, t.node(e).self_), (1, 1));
        assert_eq!(t.len(), 2);
    }
}
