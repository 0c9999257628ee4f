//! What every record's walk needs to know about a thread's frames: which
//! method each runs, from which call-site line it was called, and which
//! frame a method sample credits. [`Program`] is the real source of
//! answers; unit tests use a stand-in (`testing::Fake`).

use vm::frame::Frame;
use vm::instr::YieldKind;
use vm::loader::Program;

use crate::records::cct::NO_LINE;
use crate::stack::{call_site_line, method_of};

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
pub fn line_of<S: FrameInfo + ?Sized>(s: &S, frames: &[Frame], j: usize) -> u32 {
    if j == 0 {
        NO_LINE
    } else {
        s.line(&frames[j - 1], &frames[j])
    }
}

/// How many frames, from the bottom, a method sample at a yieldpoint of
/// `kind` credits with its unit of time: all of them, but at a prologue the
/// callee has not run yet, so the caller is credited (as Jikes RVM's method
/// listener does). `None` for an empty stack.
#[inline]
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
    use crate::records::cct::CallingContextTree;
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
