//! The marked walk: Whaley 2000, section 5.2 and Figure 7 (the same
//! technique as Arnold & Sweeney 2000, section 3, "sampled-bit").
//!
//! Every frame's return word has a mark bit, clear in a new frame at no
//! cost (the VM writes a fresh word when it pushes a frame), and a
//! profiler-owned `slot`. A sample:
//!
//! 1. **Upward phase**: examines frames from the top down, stopping at the
//!    first *marked* frame, which an earlier sample visited: that
//!    activation is still the same one, and its `slot` holds its context
//!    node in this thread's tree. An unmarked entry frame also ends the
//!    walk (its context is the root's child for its method).
//! 2. **Downward phase**: from that node back to the top, finds or creates
//!    the child context of each newer frame, sets the frame's mark and
//!    stores the node id in its slot.
//!
//! So a sample costs the number of frames pushed since the previous one
//! (plus one), not the depth of the stack.
//!
//! **Cut walks** (Whaley 2000, section 5.4.1, Figure 10): the upward phase
//! examines at most `max_walk` frames (Whaley's `BUFSIZE`, 16 by default),
//! the marked frame it stops at included. When the buffer is full before a
//! marked or entry frame was reached, the walk does what Figure 7 does
//! (`if (!n1) n1 = allocate_node(m)`): a *new* node for the method `m` of
//! the next frame down (known from the last examined frame's return word),
//! not attached to the thread's tree: it becomes the root of a detached
//! subtree, kept under `<detached>`. The examined frames are marked and
//! placed below it, so a later sample whose walk stops in one of them
//! extends the detached subtree, as in Figure 10(b). The frame below the
//! cut is neither marked nor given a slot: a sample taken after the stack
//! has returned into it walks on past it to find its real context.

use vm::frame::Frame;

use super::{line_of, FrameInfo};
use crate::cct::{CallingContextTree, NO_LINE};

/// A tree the marked walk builds: how a frame's slot names one of its
/// nodes, how it finds or creates a context, and what it does with the
/// nodes a walk passes. The sampled CCT ([`CallingContextTree`]) and
/// Whaley's PCCT ([`crate::pcct::Pcct`]) are the two; [`walk`] is the one
/// walk over both.
pub trait MarkedTree {
    /// The root's index.
    const ROOT: u32;
    /// The node a marked frame's `slot` names, if it is (still) a node of
    /// this tree; `None` makes the walk go on as if the frame were unmarked.
    fn node_of_slot(&self, slot: u64) -> Option<u32>;
    /// The value a frame's `slot` holds for node `n`.
    fn slot_of(&self, n: u32) -> u64;
    /// A cut walk's new node for `method`: the root of a detached subtree,
    /// kept under `<detached>`.
    fn cut(&mut self, method: u32) -> u32;
    /// The child of `parent` for (`method`, `line`), found or created, and
    /// whether it was created. `fresh` says a node above it on this walk
    /// was created, so no child can exist yet.
    fn step(&mut self, parent: u32, method: u32, line: u32, fresh: bool) -> (u32, bool);
    /// The upward phase stopped at `node`.
    fn reached(&mut self, _node: u32) {}
    /// The downward phase placed a frame in `node`; `edge` is false for the
    /// entry frame (no call edge leads into it).
    fn passed(&mut self, _node: u32, _edge: bool) {}
}

impl MarkedTree for CallingContextTree {
    const ROOT: u32 = CallingContextTree::ROOT;

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

/// The marked walk: the node of the top frame of `frames`, examining at
/// most `max_walk` frames (at least one); marks every frame it places and
/// stores its node in the frame's slot.
pub fn walk<T: MarkedTree, S: FrameInfo + ?Sized>(
    tree: &mut T,
    s: &S,
    frames: &mut [Frame],
    max_walk: usize,
) -> u32 {
    let n = frames.len();
    if n == 0 {
        return T::ROOT;
    }
    let max_walk = max_walk.max(1);
    // Upward phase: frames[i..n] are examined and unmarked.
    let mut i = n;
    let mut examined = 0;
    let mut fresh = false;
    let mut node = loop {
        if examined == max_walk {
            // Cut (i >= 1 here: i == 0 ends the loop below).
            fresh = true;
            break tree.cut(s.method(&frames[i - 1]));
        }
        let f = &frames[i - 1];
        examined += 1;
        if f.ret.is_marked() {
            if let Some(id) = tree.node_of_slot(f.slot) {
                break id;
            }
        }
        i -= 1;
        if i == 0 {
            break T::ROOT;
        }
    };
    tree.reached(node);
    // Downward phase.
    for j in i..n {
        let (c, created) = tree.step(node, s.method(&frames[j]), line_of(s, frames, j), fresh);
        fresh |= created;
        tree.passed(c, j > 0);
        let f = &mut frames[j];
        f.ret = f.ret.marked();
        f.slot = tree.slot_of(c);
        node = c;
    }
    node
}

/// The context of the top frame of `frames` in a sampled CCT, examining
/// at most `max_walk` frames (at least one); marks the frames it places.
pub fn context<S: FrameInfo + ?Sized>(
    tree: &mut CallingContextTree,
    s: &S,
    frames: &mut [Frame],
    max_walk: usize,
) -> u32 {
    walk(tree, s, frames, max_walk)
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::cct::DETACHED_METHOD;

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
        let c = context(&mut t, &Fake, &mut frames, 16);
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
        let c2 = context(&mut t, &counting, &mut frames, 16);
        assert_eq!(counting.0.get(), 2, "only the new frames are placed");
        assert_eq!(
            path(&t, c2),
            vec![(0, NO_LINE), (1, 5), (2, 7), (3, 11), (3, 12)]
        );
        // Return and call again from another line: a new activation.
        frames.truncate(3);
        frames.push(frame(3, 13));
        let c3 = context(&mut t, &Fake, &mut frames, 16);
        assert_eq!(t.node(c3).parent, c);
    }

    #[test]
    fn a_cut_walk_starts_a_detached_subtree_figure_10() {
        let mut t = CallingContextTree::new();
        // First sample on the left branch: main -> a (marked).
        let mut frames = vec![entry(0), frame(1, 5)];
        let a = context(&mut t, &Fake, &mut frames, 4);
        // A long string of calls between two samples: a -> b -> b ... (6).
        for k in 0..6 {
            frames.push(frame(2, 20 + k));
        }
        let c = context(&mut t, &Fake, &mut frames, 4);
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
        let d = context(&mut t, &Fake, &mut frames, 4);
        assert_eq!(t.node(d).parent, c);
        // Back below the cut: that frame's walk reaches the marked `a`.
        frames.truncate(4);
        let e = context(&mut t, &Fake, &mut frames, 4);
        assert_eq!(path(&t, e), vec![(0, NO_LINE), (1, 5), (2, 20), (2, 21)]);
        // A second cut makes a second, distinct detached root.
        for k in 0..6 {
            frames.push(frame(2, 40 + k));
        }
        let f = context(&mut t, &Fake, &mut frames, 4);
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
        let c = context(&mut t, &Fake, &mut frames, 1);
        // The entry frame was not examined: detached.
        assert_eq!(
            path(&t, c),
            vec![(DETACHED_METHOD, NO_LINE), (0, NO_LINE), (1, 5)]
        );
        let mut alone = vec![entry(0)];
        let e = context(&mut t, &Fake, &mut alone, 1);
        assert_eq!(path(&t, e), vec![(0, NO_LINE)]);
    }

    #[test]
    fn deep_recursion_is_walked_incrementally_without_recursion() {
        let mut t = CallingContextTree::new();
        let mut frames = vec![entry(0)];
        let mut last = context(&mut t, &Fake, &mut frames, 16);
        for _ in 0..50_000 {
            frames.push(frame(1, 3));
            let c = context(&mut t, &Fake, &mut frames, 16);
            assert_eq!(t.node(c).parent, last);
            last = c;
        }
        assert_eq!(t.len(), 50_002);
    }
}
