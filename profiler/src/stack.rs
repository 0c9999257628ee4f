//! Reading a thread's frames: which method a frame runs and from which call
//! site it was called. Every listener's samples are made of these two facts.

use vm::frame::Frame;
use vm::loader::Program;

/// The method frame `frame` runs.
#[inline]
pub fn method_of(program: &Program, frame: &Frame) -> u32 {
    program.body(frame.body).method
}

/// The source line of the call instruction in `caller` that created
/// `callee` (the frame right above it). `callee`'s return word points just
/// past that call.
#[inline]
pub fn call_site_line(program: &Program, caller: &Frame, callee: &Frame) -> u32 {
    debug_assert!(
        !callee.ret.is_trampoline(),
        "resolve trampolines before reading call sites"
    );
    let return_pc = callee.ret.pc();
    program
        .body(caller.body)
        .line_at(return_pc.saturating_sub(1))
}

/// The edge from `caller` into `callee` (the frame right above it):
/// (caller, call-site line, callee). `callee`'s return word must be real.
#[inline]
pub fn edge(program: &Program, caller: &Frame, callee: &Frame) -> (u32, u32, u32) {
    (
        method_of(program, caller),
        call_site_line(program, caller, callee),
        method_of(program, callee),
    )
}

/// The edge into the top frame: (caller, call-site line, callee), or `None`
/// when the top frame is a thread's entry frame. Its return word must be
/// real (see [`edge`]).
#[inline]
pub fn top_edge(program: &Program, frames: &[Frame]) -> Option<(u32, u32, u32)> {
    let n = frames.len();
    if n < 2 {
        return None;
    }
    Some(edge(program, &frames[n - 2], &frames[n - 1]))
}
