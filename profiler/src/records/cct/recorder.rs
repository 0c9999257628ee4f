//! One thread's sampled calling context tree (`--record=cct` with a
//! sampling profile) and how its samples walk into it: `--walk=full`
//! ([`super::full`]), `marked` ([`super::marked`]) or `incremental`
//! ([`super::incremental`]); see [`super`] for the counts.

use vm::frame::{Frame, ReturnWord};
use vm::instr::YieldKind;

use super::incremental::{IncrementalWalk, Weight, RETRIEVE_AT};
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
    pub fn context<S: FrameInfo + ?Sized>(&mut self, s: &S, frames: &mut [Frame]) -> u32 {
        match self.walk {
            WalkKind::Marked => marked::context(&mut self.tree, s, frames, self.max_walk),
            WalkKind::Top => full::context(&mut self.tree, s, frames, 1),
            WalkKind::Full => full::context(&mut self.tree, s, frames, self.max_walk),
            WalkKind::Incremental => {
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

    /// The tree, for the organizer (at thread end), leaving an empty one.
    pub fn take_tree(&mut self) -> CallingContextTree {
        std::mem::take(&mut self.tree)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::cct::NO_LINE;
    use crate::records::frames::testing::*;

    #[test]
    fn method_samples_at_a_prologue_credit_the_caller() {
        for walk in [WalkKind::Full, WalkKind::Marked] {
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
        let mut r = ContextRecorder::new(WalkKind::Incremental, u32::MAX, 0);
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
        let mut r = ContextRecorder::new(WalkKind::Full, 256, 3);
        let mut frames = vec![entry(3)];
        r.edge_sample(&Fake, &mut frames);
        r.method_sample(&Fake, &mut frames, YieldKind::Prologue);
        let t = r.tree();
        let e = t.child_of(CallingContextTree::ROOT, 3, NO_LINE).unwrap();
        assert_eq!((t.node(e).calls, t.node(e).self_), (1, 1));
        assert_eq!(t.len(), 2);
    }
}
