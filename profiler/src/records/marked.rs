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
//! (plus one), not the depth of the stack: in the cost model of
//! [`vm::profiler_cost`], the walk charges each frame it places as walked
//! ([`CostItem::FrameWalked`]: decoded, its child found or created) and
//! marked ([`CostItem::FrameMarked`]), and what the tree adds per step
//! ([`MarkedTree::STEP_EXTRA`]); the marked frame it stops at is part of the
//! sample's own cost.
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
//!
//! Written once, for the two records whose frames' slots name their nodes:
//! the sampled CCT (`--record=cct --walk=marked`, [`crate::records::cct`])
//! and the PCCT ([`crate::records::pcct`]), each a [`MarkedTree`]. The
//! ACCT's and the CC-Map's walks set the same mark bit but keep no node in
//! the frame: they splice from the last sample's node
//! ([`crate::records::acct`]) or copy the frames ([`crate::records::ccmap`]).

use vm::frame::Frame;
use vm::profiler_cost::{CostItem, Work};

use crate::records::frames::{line_of, FrameInfo};

/// A tree the marked walk builds: how a frame's slot names one of its
/// nodes, how it finds or creates a context, and what it does with the
/// nodes a walk passes. The sampled CCT
/// ([`crate::records::cct::CallingContextTree`]) and Whaley's PCCT
/// ([`crate::records::pcct::Pcct`]) are the two; [`walk`] is the one
/// walk over both.
pub trait MarkedTree {
    /// The root's index.
    const ROOT: u32;
    /// What one step down this tree costs beyond a frame walked and
    /// marked (the PCCT's weights and hot lists), if anything.
    const STEP_EXTRA: Option<CostItem>;
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

/// The marked walk: the node of the top frame of `frames`, examining at
/// most `max_walk` frames (at least one); marks every frame it places and
/// stores its node in the frame's slot. Charges its work to `work`.
pub fn walk<T: MarkedTree, S: FrameInfo + ?Sized>(
    tree: &mut T,
    s: &S,
    frames: &mut [Frame],
    max_walk: usize,
    work: &mut Work,
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
    let placed = (n - i) as u64;
    work.charge(CostItem::FrameWalked, placed);
    work.charge(CostItem::FrameMarked, placed);
    if let Some(extra) = T::STEP_EXTRA {
        work.charge(extra, placed);
    }
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
