//! The Call Context Map (CC-Map) of the SSCLI profiler (Chilingarova &
//! Safonov 2006, see README.md, "Bibliography"): section 3.1.2
//! "Call Context Map Structure", section 3.1.4 "CC-Map filling and
//! updating", and section 3.1.3 "Advantages of CC-Map structure" for
//! moving along a call sequence. The map is built by the
//! organizer thread (the paper's "CC-Map manager", section 3 "Profiling
//! Algorithm") from walked stacks; it is written to a profile as the `cct`
//! list of docs/LANGUAGE.md "Profiles" by [`CallContextMap::to_cct`].
//!
//! The folder: [`walk`] (the application thread's walk, which only copies
//! frames into a [`buffer`]), [`rebuild`] (the organizer's side of a marked
//! walk), [`nodes`] and [`map`] (the structure and its filling),
//! [`to_cct`] (the output), and here the record's two halves:
//! [`StackRecorder`] on each thread and the organizer's repository.
//!
//! # The structure (section 3.1.2, Figure 3)
//!
//! - **[`MethodProfile`]**, one per method: "a total counter for the method
//!   executions and references to the nodes representing information about
//!   calls from this method to the others". The paper keeps them in a hash
//!   table keyed by method metadata; our methods are dense indices, so the
//!   table is a vector indexed by method.
//! - **[`CallSite`]**, one per call instruction: "general information about
//!   the call site – offset, reference to the caller profile"; our offset
//!   is the source line of the call (docs/LANGUAGE.md: `line` names the call site).
//! - **[`Callee`]**, one per (call site, called method): "the total number
//!   of calls from the concrete caller to the concrete callee, in any
//!   context", and a reference to the callee's profile.
//! - **[`CallSiteRef`]** and **[`CalleeRef`]**: "the tree of reference
//!   nodes is constructed for every call sequence. These Ref nodes contain
//!   counters for calls done in the given context and references to the
//!   nodes, which store general information about the call." A
//!   [`CalleeRef`] is one calling context; it links up to its caller
//!   context and down (through [`CallSiteRef`]s) to its callee contexts.
//! - **Context references**: "Every node representing general call
//!   information has Context references to the nodes, which describe a
//!   context of the call" ([`Callee::contexts`]), giving the bi-directional
//!   association of Figure 4 between a general node and "nodes
//!   representing the same call in the different contexts".
//!
//! "The roots of the trees are MethodProfile nodes" (Figure 4): the tree of
//! a method M holds the call sequences that start in M. Its first level is
//! M's own [`Callee`] nodes (the pseudocode below updates `Callee` for the
//! first call of a sequence and `CalleeRef` only from the second on; the
//! paper's "nodes don't store duplicate data"), so a context is either a
//! [`Context::RootCall`] (a [`Callee`] seen as the first call of its
//! caller's tree) or a [`Context::Nested`] ([`CalleeRef`]).
//!
//! # Filling (section 3.1.4)
//!
//! A sample is a walked stack, top frame first ("at the start of the buffer
//! we have a reference to the method correspondent to the activation
//! record at the top of the stack [...] and at the end of the buffer – the
//! outer caller"). [`CallContextMap::insert`] runs the paper's pseudocode:
//!
//! ```text
//! for i in 0..end_of_sample:
//!     update MethodProfile(buf[i])
//!     if i > 0: update Callee(buf[i], buf[i-1])
//!     for j = i-2 down to 0: update CalleeRef(buf[j])
//! ```
//!
//! that is, every frame of the sample is the root of one call sequence
//! (its tree gets the chain from it up to the top frame), so the map holds
//! both the totals of a call sequence "at any place" and its counts in each
//! longer context: the "combination of the described approaches" section
//! 3.1.1 asks for. A sample of depth *d* updates *d(d-1)/2* context nodes
//! (and a first sample through *d* distinct call sites creates as many;
//! a recursion creates only *O(d)*, its trees sharing one chain); the paper
//! accepts the cost because the organizer, not the application thread,
//! pays it ("proceeds with processing samples without hurry").
//!
//! # Decisions the paper leaves open
//!
//! - **The thread root.** A walk that reached the thread's entry frame
//!   ([`StackSample::complete`]) gets one more frame at its outer end: the
//!   virtual method `<root>` ([`ROOT_METHOD`]), whose tree is then exactly
//!   the calling context tree of docs/LANGUAGE.md "Profiles" (its first level the entry
//!   methods, line [`NO_LINE`]). [`CallContextMap::to_cct`] writes that tree.
//!   An incomplete walk (cut by `--max-walk`, or stopped at an already
//!   visited frame as in the paper) feeds every tree but `<root>`'s: where
//!   its outermost frame sits in the thread is unknown.
//! - **Counters.** Every counter counts samples: a [`MethodProfile`] the
//!   frames of the method seen (a recursive method counts once per frame,
//!   as in the pseudocode), a [`Callee`] or [`CalleeRef`] the times its
//!   call was seen in its context. With the paper's walk, which stops at the
//!   first already visited frame, each activation is seen about once and
//!   the counters estimate calls; the visited frame that ends such a walk
//!   is in the sample "as it is needed to register a new call from the
//!   frame", and, as in the pseudocode, its method's counter counts it
//!   again. With a walk of the whole stack every sample counts every
//!   frame: the counters are then inclusive sample counts. We add an
//!   `on_top` counter to the nodes
//!   (samples with that method or context on top of the stack), which the
//!   paper does not keep, so that `--record=ccmap` can give the documented
//!   `self` counts.
//! - **Lines.** A frame's `call_line` is the line of the call in the frame
//!   below it; a missing line where a caller is present (which a correct
//!   walk never produces) is taken as [`NO_LINE`].
//! - **Sequence length.** A sample of depth *d* costs *d(d-1)/2* updates,
//!   which a stack thousands of frames deep makes prohibitive (the paper
//!   allows long samples but "define\[s\] some rather high limit for the
//!   cases of incredibly deep stack"). A map made
//!   [`CallContextMap::with_sequence_limit`]`(k)` gives the trees of real
//!   methods only the call sequences of at most *k* calls (the sequence
//!   from a frame more than *k* frames below the top is not recorded in
//!   that frame's method's tree; its general [`Callee`] and
//!   [`MethodProfile`] counters still count); the thread root's tree always
//!   gets the whole context. A sample then costs *O(k·d)*. The organizer
//!   uses [`SEQUENCE_LIMIT`]; [`CallContextMap::new`] has no limit.
//! - **No recursion.** Every traversal uses explicit work lists: contexts
//!   may be thousands of calls deep.

pub mod buffer;
pub mod map;
pub mod nodes;
pub mod rebuild;
pub mod to_cct;
pub mod walk;

#[cfg(test)]
mod inspect;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crossbeam::channel::{unbounded, Receiver, Sender};
use vm::hooks::ThreadCtx;
use vm::loader::Program;
use vm::profiler_cost::{CostItem, Work};

use super::{Examination, Part, RecordMaker, RecordOutput, Repository, Started, ThreadRecord};
use crate::config::{ProfileConfig, WalkKind};
pub use crate::records::cct::{NO_LINE, ROOT_METHOD};
use crate::samples::SampleSink;
use buffer::StackBuffer;
pub use map::{CallContextMap, StackSample};
pub use nodes::{
    CallSite, CallSiteId, CallSiteRef, CallSiteRefId, Callee, CalleeId, CalleeRef, CalleeRefId,
    Context, MethodProfile,
};
use rebuild::StackRebuilder;

/// The longest call sequence the organizer records in the tree of a real
/// method (see the module documentation, "Sequence length").
pub const SEQUENCE_LIMIT: usize = 64;

/// One frame of a walked stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SampledFrame {
    /// The method the frame runs.
    pub method: u32,
    /// The source line of the call instruction, in the frame below (the
    /// caller), that created this frame; `None` for a thread's entry frame.
    pub call_line: Option<u32>,
}

/// `--record=ccmap`: each thread copies its walked stacks into a buffer,
/// the organizer rebuilds them and fills the map.
pub fn start(c: &ProfileConfig) -> Started {
    let (pool_tx, pool) = unbounded();
    Started {
        kind: Some(Box::new(CcmapMaker {
            walk: c.walk,
            max_walk: c.max_walk,
            pool,
        })),
        repository: Box::new(CcmapRepository {
            map: CallContextMap::with_sequence_limit(SEQUENCE_LIMIT),
            rebuilders: HashMap::new(),
            pool: pool_tx,
        }),
    }
}

struct CcmapMaker {
    walk: WalkKind,
    max_walk: u32,
    pool: Receiver<StackBuffer>,
}

impl RecordMaker for CcmapMaker {
    fn thread(&self, _entry: u32) -> Box<dyn ThreadRecord> {
        Box::new(StackRecorder {
            walk: self.walk,
            max_walk: self.max_walk,
            buffer: StackBuffer::default(),
            pool: self.pool.clone(),
        })
    }
}

/// A thread's walked stacks, on their way to the organizer's CC-Map.
pub struct StackRecorder {
    /// How to walk.
    pub walk: WalkKind,
    /// Frames one walk may examine.
    pub max_walk: u32,
    /// The thread's flat buffer.
    pub buffer: StackBuffer,
    /// Recycled buffers.
    pub pool: Receiver<StackBuffer>,
}

impl StackRecorder {
    /// Hands the buffer to the organizer, taking a recycled one (or a new
    /// one) in its place.
    fn send(&mut self, thread: u32, sink: &mut SampleSink) {
        let fresh = self.pool.try_recv().unwrap_or_default();
        let full = std::mem::replace(&mut self.buffer, fresh);
        sink.send_part(thread, Box::new(full));
    }
}

impl ThreadRecord for StackRecorder {
    /// Each examination of the stack is walked once, when it ends, into
    /// the thread's buffer, with what it sampled.
    fn flush(&mut self, t: &mut ThreadCtx<'_>, exam: Examination, sink: &mut SampleSink) {
        if !exam.call && exam.self_at.is_none() {
            return;
        }
        let examined = walk::record(
            &mut self.buffer,
            t.program,
            t.frames,
            self.walk,
            self.max_walk as usize,
            exam.call,
            exam.self_at,
        ) as u64;
        t.charge(CostItem::CcmapCopy, examined);
        if self.walk == WalkKind::Marked {
            t.charge(CostItem::FrameMarked, examined);
        }
        if self.buffer.is_full() {
            self.send(t.thread.id, sink);
        }
    }

    fn finish(&mut self, t: &mut ThreadCtx<'_>, sink: &mut SampleSink) {
        if !self.buffer.records.is_empty() {
            self.send(t.thread.id, sink);
        }
    }
}

/// The organizer's half (the paper's CC-Map manager): each thread's last
/// stack, to rebuild marked walks, and the map.
struct CcmapRepository {
    map: CallContextMap,
    rebuilders: HashMap<u32, StackRebuilder>,
    /// Where processed buffers go back to.
    pool: Sender<StackBuffer>,
}

impl Repository for CcmapRepository {
    fn fold(&mut self, thread: u32, part: Part, work: &mut Work) {
        let Ok(mut buffer) = part.downcast::<StackBuffer>() else {
            return;
        };
        let rb = self.rebuilders.entry(thread).or_default();
        for (rec, frames) in buffer.samples() {
            let (stack, complete) = rb.rebuild(rec, frames);
            let steps = self.map.insert(StackSample {
                frames: stack,
                complete,
                call: rec.call,
                self_at: rec.self_at.map(usize::from),
            });
            work.charge(CostItem::CcmapInsert, steps);
        }
        buffer.clear();
        let _ = self.pool.try_send(*buffer);
    }

    fn thread_done(&mut self, thread: u32, entry: u32) {
        self.rebuilders.remove(&thread);
        self.map.count_thread(entry);
    }

    fn into_output(self: Box<Self>, _program: &Program) -> RecordOutput {
        RecordOutput {
            tree: Some(self.map.to_cct()),
            ..RecordOutput::default()
        }
    }
}
