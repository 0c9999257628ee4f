//! The marked walk in a sampled CCT (`--record=cct --walk=marked`):
//! Whaley 2000, section 5.2 and Figure 7. The walk itself is
//! [`crate::records::marked::walk`], shared with the PCCT; here is only
//! what a CCT does at each step: a slot holds the node id, a cut makes a
//! fresh detached root.

use vm::frame::Frame;
use vm::profiler_cost::{CostItem, Work};

use super::tree::{CallingContextTree, NO_LINE};
use crate::records::frames::FrameInfo;
use crate::records::marked::{walk, MarkedTree};

impl MarkedTree for CallingContextTree {
    const ROOT: u32 = CallingContextTree::ROOT;
    const STEP_EXTRA: Option<CostItem> = None;

    #[inline]
    fn node_of_slot(&self, slot: u64) -> Option<u32> {
        // Only this walk marks, on this thread; the bound check keeps a bad
        // slot from ever indexing out of the tree.
        ((slot as usize) < self.len()).then_some(slot as u32)
    }

    #[inline]
    fn slot_of(&self, n: u32) -> u64 {
        u64::from(n)
    }

    fn cut(&mut self, method: u32) -> u32 {
        let d = self.detached();
        self.fresh_child(d, method, NO_LINE)
    }

    #[inline]
    fn step(&mut self, parent: u32, method: u32, line: u32, _fresh: bool) -> (u32, bool) {
        (self.child(parent, method, line), false)
    }
}

/// The context of the top frame of `frames` in a sampled CCT, examining
/// at most `max_walk` frames (at least one); marks the frames it places.
pub fn context<S: FrameInfo + ?Sized>(
    tree: &mut CallingContextTree,
    s: &S,
    frames: &mut [Frame],
    max_walk: usize,
    work: &mut Work,
) -> u32 {
    walk(tree, s, frames, max_walk, work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::cct::DETACHED_METHOD;
    use crate::records::frames::testing::*;

    /// A counting stand-in: how many frames a walk asked about.
    struct Counting(std::cell::Cell<usize>);

    impl FrameInfo for Counting {
        fn method(&self, f: &Frame) -> u32 {
            self.0.set(self.0.get() + 1);
            f.body
        }
        fn line(&self, c: &Frame, f: &Frame) -> u32 {
            Fake.line(c, f)
        }
    }

    #[test]
    fn walks_stop_at_the_first_marked_frame() {
        let mut t = CallingContextTree::new();
        let mut frames = vec![entry(0), frame(1, 5), frame(2, 7)];
        let c = context(&mut t, &Fake, &mut frames, 16, &mut Work::default());
        assert_eq!(path(&t, c), vec![(0, NO_LINE), (1, 5), (2, 7)]);
        for f in &frames {
            assert!(f.ret.is_marked());
            let line = if f.ret.is_thread_exit() {
                NO_LINE
            } else {
                f.ret.pc()
            };
            assert_eq!(path(&t, f.slot as u32).last(), Some(&(f.body, line)));
        }
        assert!(frames[0].ret.is_thread_exit(), "the mark keeps the word");
        // Two new frames: the walk reads them and stops at the marked one.
        frames.push(frame(3, 11));
        frames.push(frame(3, 12));
        let counting = Counting(Default::default());
        let c2 = context(&mut t, &counting, &mut frames, 16, &mut Work::default());
        assert_eq!(counting.0.get(), 2, "only the new frames are placed");
        assert_eq!(
            path(&t, c2),
            vec![(0, NO_LINE), (1, 5), (2, 7), (3, 11), (3, 12)]
        );
        // Return and call again from another line: a new activation.
        frames.truncate(3);
        frames.push(frame(3, 13));
        let c3 = context(&mut t, &Fake, &mut frames, 16, &mut Work::default());
        assert_eq!(t.node(c3).parent, c);
    }

    #[test]
    fn a_cut_walk_starts_a_detached_subtree_figure_10() {
        let mut t = CallingContextTree::new();
        // First sample on the left branch: main -> a (marked).
        let mut frames = vec![entry(0), frame(1, 5)];
        let a = context(&mut t, &Fake, &mut frames, 4, &mut Work::default());
        // A long string of calls between two samples: a -> b -> b ... (6).
        for k in 0..6 {
            frames.push(frame(2, 20 + k));
        }
        let c = context(&mut t, &Fake, &mut frames, 4, &mut Work::default());
        // Four frames examined (b@22..b@25), none marked: the root of the
        // detached subtree is the next frame down (b@21), with no line.
        assert_eq!(
            path(&t, c),
            vec![
                (DETACHED_METHOD, NO_LINE),
                (2, NO_LINE),
                (2, 22),
                (2, 23),
                (2, 24),
                (2, 25)
            ]
        );
        assert!(t.child_of(a, 2, 20).is_none(), "not attached to the tree");
        assert!(!frames[3].ret.is_marked(), "the frame below the cut is not");
        assert!(frames[4..].iter().all(|f| f.ret.is_marked()));
        // A later sample a little deeper extends the detached subtree.
        frames.push(frame(3, 30));
        let d = context(&mut t, &Fake, &mut frames, 4, &mut Work::default());
        assert_eq!(t.node(d).parent, c);
        // Back below the cut: that frame's walk reaches the marked `a`.
        frames.truncate(4);
        let e = context(&mut t, &Fake, &mut frames, 4, &mut Work::default());
        assert_eq!(path(&t, e), vec![(0, NO_LINE), (1, 5), (2, 20), (2, 21)]);
        // A second cut makes a second, distinct detached root.
        for k in 0..6 {
            frames.push(frame(2, 40 + k));
        }
        let f = context(&mut t, &Fake, &mut frames, 4, &mut Work::default());
        assert_eq!(
            path(&t, f)[..3],
            [(DETACHED_METHOD, NO_LINE), (2, NO_LINE), (2, 42)]
        );
        let det = t.detached();
        assert_eq!(t.children(det).count(), 2, "one detached root per cut");
    }

    #[test]
    fn a_walk_of_one_frame() {
        let mut t = CallingContextTree::new();
        let mut frames = vec![entry(0), frame(1, 5)];
        let c = context(&mut t, &Fake, &mut frames, 1, &mut Work::default());
        // The entry frame was not examined: detached.
        assert_eq!(
            path(&t, c),
            vec![(DETACHED_METHOD, NO_LINE), (0, NO_LINE), (1, 5)]
        );
        let mut alone = vec![entry(0)];
        let e = context(&mut t, &Fake, &mut alone, 1, &mut Work::default());
        assert_eq!(path(&t, e), vec![(0, NO_LINE)]);
    }

    #[test]
    fn deep_recursion_is_walked_incrementally_without_recursion() {
        let mut t = CallingContextTree::new();
        let mut frames = vec![entry(0)];
        let mut last = context(&mut t, &Fake, &mut frames, 16, &mut Work::default());
        for _ in 0..50_000 {
            frames.push(frame(1, 3));
            let c = context(&mut t, &Fake, &mut frames, 16, &mut Work::default());
            assert_eq!(t.node(c).parent, last);
            last = c;
        }
        assert_eq!(t.len(), 50_002);
    }
}
