//! The full walk: every sample reads the stack from the top frame down to
//! the entry frame and looks the whole path up in the tree from the root
//! (the "copy of the call stack at every sample" of Whaley 2000, section
//! 5.1 and Figure 6(a), folded into a CCT as it is taken).
//!
//! It examines at most `max_walk` frames. A deeper stack is cut as Whaley
//! 2000, section 5.4.1 and Figure 10 describe for his buffer: the examined
//! frames hang below a detached root for the method of the frame just
//! below them, under `<detached>` (see [`super`]). Without marks a full
//! walk cannot tell one activation from another, so a cut walk *looks up*
//! its detached root by method rather than allocating a new one each time:
//! identical truncated stacks share one detached path.
//!
//! Cost: `min(depth, max_walk)` frames walked per sample, each decoded and
//! found in the tree ([`CostItem::FrameWalked`]); no frame is written.

use vm::frame::Frame;
use vm::profiler_cost::{CostItem, Work};

use super::tree::{CallingContextTree, NO_LINE};
use crate::records::frames::{line_of, FrameInfo};

/// The context of the top frame of `frames`, examining at most `max_walk`
/// frames (at least one). Charges its work to `work`.
pub fn context<S: FrameInfo + ?Sized>(
    tree: &mut CallingContextTree,
    s: &S,
    frames: &[Frame],
    max_walk: usize,
    work: &mut Work,
) -> u32 {
    let n = frames.len();
    if n == 0 {
        return CallingContextTree::ROOT;
    }
    let examined = n.min(max_walk.max(1));
    work.charge(CostItem::FrameWalked, examined as u64);
    let low = n - examined;
    let mut node = if low == 0 {
        CallingContextTree::ROOT
    } else {
        // Cut: the frame below the examined ones names the detached root.
        let d = tree.detached();
        tree.child(d, s.method(&frames[low - 1]), NO_LINE)
    };
    for j in low..n {
        node = tree.child(node, s.method(&frames[j]), line_of(s, frames, j));
    }
    node
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::cct::DETACHED_METHOD;
    use crate::records::frames::testing::*;

    #[test]
    fn the_whole_path_from_the_entry_frame() {
        let mut t = CallingContextTree::new();
        let frames = [entry(0), frame(1, 5), frame(2, 7), frame(2, 9)];
        let c = context(&mut t, &Fake, &frames, 256, &mut Work::default());
        assert_eq!(
            path(&t, c),
            vec![(0, NO_LINE), (1, 5), (2, 7), (2, 9)],
            "recursion keeps every level"
        );
        // The same stack again finds the same context, creating nothing.
        let len = t.len();
        assert_eq!(
            context(&mut t, &Fake, &frames, 256, &mut Work::default()),
            c
        );
        assert_eq!(t.len(), len);
        // A walk of exactly the stack's depth is not cut.
        assert_eq!(context(&mut t, &Fake, &frames, 4, &mut Work::default()), c);
        // Frames are only read: nothing is marked.
        assert!(frames.iter().all(|f| !f.ret.is_marked() && f.slot == 0));
    }

    #[test]
    fn a_cut_walk_hangs_below_a_detached_root() {
        let mut t = CallingContextTree::new();
        let mut frames = vec![entry(0)];
        for i in 0..10 {
            frames.push(frame(1, 100 + i));
        }
        let c = context(&mut t, &Fake, &frames, 3, &mut Work::default());
        // Examined: the top three frames; the one below names the root.
        assert_eq!(
            path(&t, c),
            vec![
                (DETACHED_METHOD, NO_LINE),
                (1, NO_LINE),
                (1, 107),
                (1, 108),
                (1, 109)
            ]
        );
        // Nothing was attached under the entry context.
        assert!(t.child_of(CallingContextTree::ROOT, 0, NO_LINE).is_none());
        // An identical truncated stack shares the detached path.
        let len = t.len();
        assert_eq!(context(&mut t, &Fake, &frames, 3, &mut Work::default()), c);
        assert_eq!(t.len(), len);
    }

    #[test]
    fn deep_stacks_need_no_recursion() {
        let mut t = CallingContextTree::new();
        let mut frames = vec![entry(0)];
        for _ in 0..100_000 {
            frames.push(frame(1, 3));
        }
        let c = context(&mut t, &Fake, &frames, usize::MAX, &mut Work::default());
        assert_eq!(t.len(), 100_002);
        assert_eq!(path(&t, c).len(), 100_001);
    }
}
