//! Arnold & Sweeney's approximate calling context tree (`--record=acct`):
//! Arnold & Sweeney 2000, "Approximating the Calling Context Tree via
//! Sampling" (IBM Research Report; see README.md, "Bibliography").
//!
//! A sample (section 3) has two steps:
//!
//! 1. **Examining the call stack**: from the top frame (SF_last) upward
//!    until a frame whose *sampled-bit* is on (SF_old): the frames above it
//!    were created since the last sample. A walk is never cut: the paper
//!    (section 5) criticises the PCCT's limit K for leaving a sample
//!    without a place to splice, so `--max-walk` does not apply.
//! 2. **Splicing**: the recorder keeps P_acct, the node of the top frame
//!    at the previous sample (N_last). SF_old is still on the stack, so its
//!    node N_old is an ancestor of N_last, found "by following parent
//!    pointers upward from N_last": the frame's depth in the stack says how
//!    many (a frame at index d has its node at depth d + 1 in the tree,
//!    below the root). From N_old the new frames are added as a PCCT would,
//!    "simulating a call for each new stack frame", setting their sampled
//!    bits; P_acct ends at SF_last's node. Unlike the PCCT, no node id is
//!    stored in the frames.
//!
//! **Edge weights** (section 3.1, `--acct-update`):
//!
//! - `last-edge` (increment-the-last-edge-only, the default): an edge
//!   sample adds one call to the top frame's context, the edge "between the
//!   stack frame before SF_last and SF_last". Method samples add `self`.
//! - `all-new-edges` (increment-all-new-edges, Whaley's strategy): every
//!   walk adds one call to every context it spliced in for a new frame.
//!   Figure 6 shows why this is wrong: sampling every 100th call of
//!   a() -> 10 x b() -> 100 x c(), both b and c are new at nearly every
//!   sample, so a->b weighs as much as b->c although it runs 100 times
//!   less often (`tests/e2e/records.rs` checks both pictures).
//!
//! **The sampled-bit** (section 3), `--sampled-bit` (an extension):
//!
//! - `mark` (the default, `--walk=marked`): "the low order bit of the
//!   return address", the mark bit of the frame's return word. The VM
//!   pushes every frame with it clear, so it costs nothing.
//! - `return-address`: "replacing [the return address] with the return
//!   address of a known location": a sampled frame's return word becomes a
//!   trampoline word ([`vm::frame::ReturnWord::trampoline`]) whose payload
//!   is the frame's depth, and the real word goes to a list the recorder
//!   keeps ("the code at this known location keeps a list of the true
//!   return addresses"). A frame is sampled if and only if its word is that
//!   trampoline. When the frame returns, or an exception unwinds it, the VM
//!   calls the listener ([`vm::hooks::ThreadListener::trampoline`]), which
//!   hands back the real word and forgets it; stack traces read it through
//!   [`vm::hooks::ThreadListener::resolve`]. Sampled frames are always a
//!   prefix of the stack (every walk marks everything down to an already
//!   sampled frame), so the list is a stack indexed by depth. Frames that
//!   were never sampled return at no cost.
//!
//! The tree is a [`CallingContextTree`](crate::records::cct::CallingContextTree); each thread builds its own and the
//! organizer merges them. Nothing here recurses on the Rust stack.

pub mod recorder;

use vm::frame::ReturnWord;
use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;

use super::cct::CctRepository;
use super::{RecordMaker, Started, ThreadRecord};
use crate::config::{AcctUpdateKind, ProfileConfig, SampledBitKind};
use crate::samples::SampleSink;
pub use recorder::AcctRecorder;

/// `--record=acct`: each thread splices into its own ACCT, the organizer
/// merges them as calling context trees.
pub fn start(c: &ProfileConfig) -> Started {
    Started {
        kind: Some(Box::new(AcctMaker {
            update: c.acct_update,
            bit: c.sampled_bit,
        })),
        repository: Box::new(CctRepository::merging()),
    }
}

struct AcctMaker {
    update: AcctUpdateKind,
    bit: SampledBitKind,
}

impl RecordMaker for AcctMaker {
    fn thread(&self, entry: u32) -> Box<dyn ThreadRecord> {
        Box::new(AcctRecorder::new(self.update, self.bit, entry))
    }
}

impl ThreadRecord for AcctRecorder {
    #[inline]
    fn method_sample(&mut self, t: &mut ThreadCtx<'_>, kind: YieldKind) {
        AcctRecorder::method_sample(self, t.program, t.frames, kind, t.work);
    }

    #[inline]
    fn edge_sample(&mut self, t: &mut ThreadCtx<'_>) {
        AcctRecorder::edge_sample(self, t.program, t.frames, t.work);
    }

    /// `--sampled-bit=return-address`: the real word of a sampled frame.
    fn trampoline(&mut self, t: &mut ThreadCtx<'_>, word: ReturnWord) -> ReturnWord {
        AcctRecorder::trampoline(self, t.frames.len(), word)
    }

    fn resolve(&self, word: ReturnWord) -> ReturnWord {
        AcctRecorder::resolve(self, word)
    }

    /// Sends the tree; the recorder stays, as it still knows the real
    /// return words of frames a late stack trace may read.
    fn finish(&mut self, t: &mut ThreadCtx<'_>, sink: &mut SampleSink) {
        sink.send_part(t.thread.id, Box::new(self.take_tree()));
    }
}
