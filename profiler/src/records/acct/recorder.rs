//! One thread's ACCT and its splice state: the examination of the call
//! stack up to the last sampled frame, the splice below its node, the
//! sampled bit (a mark, or a trampoline return word), and the two update
//! strategies (see [`super`]).

use vm::frame::{Frame, ReturnWord};
use vm::instr::YieldKind;
use vm::profiler_cost::{CostItem, Work};

use crate::config::{AcctUpdateKind, SampledBitKind};
use crate::records::cct::{CallingContextTree, NO_LINE};
use crate::records::frames::{credited_depth, FrameInfo};

/// One thread's ACCT and its splice state.
pub struct AcctRecorder {
    tree: CallingContextTree,
    update: AcctUpdateKind,
    bit: SampledBitKind,
    /// P_acct: the node of the top frame at the previous walk, and that
    /// frame's index in the stack.
    last: Option<(u32, usize)>,
    /// `return-address`: the real return word of sampled frame `i`.
    saved: Vec<ReturnWord>,
}

impl AcctRecorder {
    /// A recorder for a thread entering `entry` (its context counts the
    /// thread as one call).
    pub fn new(update: AcctUpdateKind, bit: SampledBitKind, entry: u32) -> AcctRecorder {
        let tree = CallingContextTree::for_thread(entry);
        AcctRecorder {
            tree,
            update,
            bit,
            last: None,
            saved: Vec::new(),
        }
    }

    /// Is frame `f`, at index `i`, sampled?
    #[inline]
    fn is_sampled(&self, f: &Frame, i: usize) -> bool {
        match self.bit {
            SampledBitKind::Mark => f.ret.is_marked(),
            SampledBitKind::ReturnAddress => {
                f.ret.is_trampoline() && f.ret.payload() == i as u64 && i < self.saved.len()
            }
        }
    }

    /// Turns the sampled bit of frame `f`, at index `i`, on.
    fn set_sampled(&mut self, f: &mut Frame, i: usize, work: &mut Work) {
        match self.bit {
            SampledBitKind::Mark => {
                f.ret = f.ret.marked();
                work.charge(CostItem::FrameMarked, 1);
            }
            SampledBitKind::ReturnAddress => {
                if f.ret.is_trampoline() {
                    return;
                }
                work.charge(CostItem::Trampoline, 1);
                // Sampled frames are a prefix of the stack: frame i's
                // entry goes at index i.
                self.saved.truncate(i);
                self.saved.resize(i, ReturnWord::thread_exit());
                self.saved.push(f.ret);
                f.ret = ReturnWord::trampoline(i as u64);
            }
        }
    }

    /// The real return word behind `w`.
    pub fn resolve(&self, w: ReturnWord) -> ReturnWord {
        if w.is_trampoline() {
            self.saved.get(w.payload() as usize).copied().unwrap_or(w)
        } else {
            w
        }
    }

    /// Frame `f` with its real return word.
    fn real(&self, f: &Frame) -> Frame {
        Frame {
            ret: self.resolve(f.ret),
            ..*f
        }
    }

    /// A trampolined frame at index `depth` (the stack now holds `depth`
    /// frames) returned or was unwound: its real return word, forgotten.
    pub fn trampoline(&mut self, depth: usize, word: ReturnWord) -> ReturnWord {
        let i = word.payload() as usize;
        debug_assert_eq!(i, depth, "trampolines are popped in stack order");
        let real = *self
            .saved
            .get(i)
            .expect("a trampoline word names a saved return word");
        self.saved.truncate(i);
        real
    }

    /// Does any frame hold a trampoline word of this recorder?
    pub fn has_trampolines(&self) -> bool {
        !self.saved.is_empty()
    }

    /// Section 3: walk up to the last sampled frame, splice the new frames
    /// below its node, and return the top frame's node.
    pub fn place<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        work: &mut Work,
    ) -> u32 {
        let n = frames.len();
        if n == 0 {
            return CallingContextTree::ROOT;
        }
        // Examining the call stack: frames[i..n] are new.
        let mut i = n;
        while i > 0 && !self.is_sampled(&frames[i - 1], i - 1) {
            i -= 1;
        }
        // N_old: up from N_last by the difference in depth.
        let mut node = CallingContextTree::ROOT;
        if i > 0 {
            match self.last {
                Some((mut up, depth)) if depth >= i - 1 => {
                    work.charge(CostItem::AcctSplice, 1);
                    for _ in 0..depth - (i - 1) {
                        up = self.tree.node(up).parent;
                    }
                    node = up;
                }
                // Cannot happen (SF_old was on the stack at the previous
                // walk); if it did, placing every frame from the root is
                // still right.
                _ => i = 0,
            }
        }
        // Splicing: a simulated call per new frame.
        for j in i..n {
            let line = if j == 0 {
                NO_LINE
            } else {
                s.line(&self.real(&frames[j - 1]), &self.real(&frames[j]))
            };
            node = self.tree.child(node, s.method(&frames[j]), line);
            work.charge(CostItem::FrameWalked, 1);
            if self.update == AcctUpdateKind::AllNewEdges && j > 0 {
                self.tree.node_mut(node).calls += 1;
            }
            let mut f = frames[j];
            self.set_sampled(&mut f, j, work);
            frames[j] = f;
        }
        self.last = Some((node, n - 1));
        node
    }

    /// A method sample at a yieldpoint of `kind`: one `self` of the node of
    /// the frame credited (the caller at a prologue).
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
        let node = self.place(s, &mut frames[..depth], work);
        self.tree.node_mut(node).self_ += 1;
    }

    /// An edge sample into the top frame: with `last-edge`, one call of
    /// its context. A lone entry frame has no edge.
    pub fn edge_sample<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        work: &mut Work,
    ) {
        if frames.len() < 2 {
            return;
        }
        let node = self.place(s, frames, work);
        if self.update == AcctUpdateKind::LastEdge {
            self.tree.node_mut(node).calls += 1;
        }
    }

    /// The tree built so far.
    pub fn tree(&self) -> &CallingContextTree {
        &self.tree
    }

    /// Hands the tree over (at thread end), keeping the saved return words
    /// so that a late stack trace can still read them.
    pub fn take_tree(&mut self) -> CallingContextTree {
        std::mem::take(&mut self.tree)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::frames::testing::{entry, frame, path, Fake};

    /// Fake's call-site line is the callee's return pc: resolve it first,
    /// as the real program does through [`AcctRecorder::real`].
    fn both_bits() -> [SampledBitKind; 2] {
        [SampledBitKind::Mark, SampledBitKind::ReturnAddress]
    }

    #[test]
    fn splices_below_the_last_sampled_frame() {
        for bit in both_bits() {
            let mut r = AcctRecorder::new(AcctUpdateKind::LastEdge, bit, 0);
            let mut st = vec![entry(0), frame(1, 5), frame(2, 7)];
            let c = r.place(&Fake, &mut st, &mut Work::default());
            assert_eq!(path(r.tree(), c), vec![(0, NO_LINE), (1, 5), (2, 7)]);
            for (i, f) in st.iter().enumerate() {
                assert!(r.is_sampled(f, i), "{bit:?}");
            }
            // Return to depth 1, call two more: N_old is found by going up
            // one parent from N_last (depth 2 -> frame 1).
            st.truncate(2);
            st.push(frame(3, 8));
            st.push(frame(4, 9));
            let d = r.place(&Fake, &mut st, &mut Work::default());
            assert_eq!(
                path(r.tree(), d),
                vec![(0, NO_LINE), (1, 5), (3, 8), (4, 9)],
                "{bit:?}"
            );
            // Deeper again, from a shallower N_last: frame 3 is sampled.
            st.push(frame(2, 10));
            let e = r.place(&Fake, &mut st, &mut Work::default());
            assert_eq!(r.tree().node(e).parent, d);
        }
    }

    #[test]
    fn return_address_replacement_keeps_the_real_words() {
        let mut r = AcctRecorder::new(AcctUpdateKind::LastEdge, SampledBitKind::ReturnAddress, 0);
        let mut st = vec![entry(0), frame(1, 5), frame(2, 7)];
        let words: Vec<ReturnWord> = st.iter().map(|f| f.ret).collect();
        r.place(&Fake, &mut st, &mut Work::default());
        for (i, f) in st.iter().enumerate() {
            assert!(f.ret.is_trampoline());
            assert_eq!(f.ret.payload(), i as u64);
            assert_eq!(r.resolve(f.ret), words[i], "resolve gives the real word");
        }
        assert!(r.has_trampolines());
        // The top frame returns through its trampoline: the real word back.
        let top = st.pop().unwrap();
        assert_eq!(r.trampoline(st.len(), top.ret), words[2]);
        // A new frame is not sampled; the next walk stops at frame 1.
        st.push(frame(3, 9));
        assert!(!r.is_sampled(&st[2], 2));
        let c = r.place(&Fake, &mut st, &mut Work::default());
        assert_eq!(path(r.tree(), c), vec![(0, NO_LINE), (1, 5), (3, 9)]);
        assert_eq!(r.resolve(st[2].ret), ReturnWord::to_pc(9));
        // Unwinding two frames, then the entry frame returning.
        for expect in [9, 5] {
            let f = st.pop().unwrap();
            assert_eq!(r.trampoline(st.len(), f.ret), ReturnWord::to_pc(expect));
        }
        let f = st.pop().unwrap();
        assert_eq!(r.trampoline(0, f.ret), ReturnWord::thread_exit());
        assert!(!r.has_trampolines());
    }

    /// Figure 6 by hand: a() calls b() twice, each b() calls c() three
    /// times; a sample on every call of c (the frames of a and b are new
    /// only at the first c of each b).
    #[test]
    fn update_strategies_figure_6_by_hand() {
        let run = |update| {
            let mut r = AcctRecorder::new(update, SampledBitKind::Mark, 0);
            let mut st = vec![entry(0), frame(1, 2)]; // main -> a
            for _ in 0..2 {
                st.push(frame(2, 3)); // a -> b
                for _ in 0..3 {
                    st.push(frame(3, 4)); // b -> c
                    r.method_sample(&Fake, &mut st, YieldKind::Prologue, &mut Work::default());
                    r.edge_sample(&Fake, &mut st, &mut Work::default());
                    st.pop();
                }
                st.pop();
            }
            let t = r.tree();
            let main = t.child_of(CallingContextTree::ROOT, 0, NO_LINE).unwrap();
            let a = t.child_of(main, 1, 2).unwrap();
            let b = t.child_of(a, 2, 3).unwrap();
            let c = t.child_of(b, 3, 4).unwrap();
            let calls = |n| t.node(n).calls;
            (calls(main), calls(a), calls(b), calls(c), t.node(b).self_)
        };
        // last-edge: only b -> c, once per sample: 6. b is credited the
        // six prologue method samples.
        assert_eq!(run(AcctUpdateKind::LastEdge), (1, 0, 0, 6, 6));
        // all-new-edges: main -> a new once, a -> b new at the first
        // sample of each b (2), b -> c new at every sample (6).
        assert_eq!(run(AcctUpdateKind::AllNewEdges), (1, 1, 2, 6, 6));
    }

    #[test]
    fn deep_stacks_need_no_recursion() {
        for bit in both_bits() {
            let mut r = AcctRecorder::new(AcctUpdateKind::AllNewEdges, bit, 0);
            let mut st = vec![entry(0)];
            for _ in 0..100_000 {
                st.push(frame(1, 3));
            }
            let c = r.place(&Fake, &mut st, &mut Work::default());
            assert_eq!(path(r.tree(), c).len(), 100_001);
            // Return half-way and sample: up 50,000 parents from N_last.
            st.truncate(50_001);
            st.push(frame(2, 4));
            let d = r.place(&Fake, &mut st, &mut Work::default());
            assert_eq!(path(r.tree(), d).len(), 50_002);
        }
    }
}
