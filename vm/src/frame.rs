//! Frames and return-address words: the stack layout the profilers read.
//!
//! Frames live in a `Vec<Frame>` per thread, never on the Rust stack; each
//! frame's locals and operands live in the thread's contiguous value stack
//! from `base` up. A frame holds:
//!
//! - `ret`: the **return-address word**, the place in the caller's code where
//!   execution continues when this frame returns. One bit of it is free for
//!   a mark ([`ReturnWord::MARK`]): a new frame is written with the bit clear,
//!   so "has a sampler visited this frame?" costs nothing to maintain
//!   (Whaley 2000, section 5.2; Arnold & Sweeney 2000, section 3). The word
//!   can also be replaced by a *trampoline* word ([`ReturnWord::trampoline`]):
//!   `ret` then calls the profiler, which captures the caller's frame and
//!   hands back the real address (Hofer et al. 2015, section 5.2). `ret`
//!   always returns through whatever word the frame holds.
//! - `slot`: one word owned by the profiler (a node id, a skeleton object),
//!   zero in a new frame.
//! - `body`: which code the frame runs, `base`: where its locals start.
//!
//! Invariant: the VM writes `ret` and `slot` only when it pushes a frame; the
//! profiler writes them only from a yieldpoint or trampoline callback on the
//! frame's own thread, or while the thread is parked at a safepoint.

/// The return-address word of a frame.
///
/// Layout: bit 0 is the mark; bit 63 says "this is a trampoline"; bits 1-62
/// hold the return pc (an index into the caller's code) or, for a
/// trampoline, a payload chosen by the profiler.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct ReturnWord(pub u64);

impl ReturnWord {
    /// The mark bit.
    pub const MARK: u64 = 1;
    /// The trampoline bit.
    pub const TRAMPOLINE: u64 = 1 << 63;
    /// The return pc that ends the thread (the entry frame's word).
    pub const EXIT_PC: u32 = u32::MAX;

    /// An unmarked word returning to `pc`.
    #[inline(always)]
    pub const fn to_pc(pc: u32) -> ReturnWord {
        ReturnWord((pc as u64) << 1)
    }

    /// [`ReturnWord::to_pc`] for a pc known to fit in 32 bits (the index
    /// of an instruction: the loader bounds a body's length), without the
    /// truncation to `u32` that costs the interpreter's call a mask.
    #[inline(always)]
    pub const fn to_pc_index(pc: usize) -> ReturnWord {
        ReturnWord((pc as u64) << 1)
    }

    /// The entry frame's word: returning through it ends the thread.
    pub const fn thread_exit() -> ReturnWord {
        ReturnWord::to_pc(Self::EXIT_PC)
    }

    /// A trampoline word carrying `payload` (at most 62 bits).
    pub const fn trampoline(payload: u64) -> ReturnWord {
        ReturnWord(Self::TRAMPOLINE | ((payload << 1) & !Self::TRAMPOLINE))
    }

    /// Is this a trampoline word?
    #[inline(always)]
    pub const fn is_trampoline(self) -> bool {
        self.0 & Self::TRAMPOLINE != 0
    }

    /// The return pc (meaningless for a trampoline word).
    #[inline(always)]
    pub const fn pc(self) -> u32 {
        (self.0 >> 1) as u32
    }

    /// [`ReturnWord::pc`] as an index, for a word that is not a
    /// trampoline's: one mask of the mark bit, where `pc` also truncates.
    #[inline(always)]
    pub const fn pc_index(self) -> usize {
        ((self.0 & !Self::MARK) >> 1) as usize
    }

    /// The payload of a trampoline word.
    pub const fn payload(self) -> u64 {
        (self.0 & !Self::TRAMPOLINE) >> 1
    }

    /// Is the mark bit set?
    pub const fn is_marked(self) -> bool {
        self.0 & Self::MARK != 0
    }

    /// The same word with the mark bit set.
    pub const fn marked(self) -> ReturnWord {
        ReturnWord(self.0 | Self::MARK)
    }

    /// The same word with the mark bit clear.
    pub const fn unmarked(self) -> ReturnWord {
        ReturnWord(self.0 & !Self::MARK)
    }

    /// Does this word end the thread?
    pub const fn is_thread_exit(self) -> bool {
        !self.is_trampoline() && self.pc() == Self::EXIT_PC
    }
}

/// One activation record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Where to continue in the caller (see [`ReturnWord`]).
    pub ret: ReturnWord,
    /// A word owned by the profiler; 0 in a new frame.
    pub slot: u64,
    /// Index of the code body this frame runs.
    pub body: u32,
    /// Index in the value stack of the frame's first local.
    pub base: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_is_small() {
        assert_eq!(std::mem::size_of::<Frame>(), 24);
    }

    #[test]
    fn mark_bit_is_independent_of_pc() {
        let w = ReturnWord::to_pc(41);
        assert!(!w.is_marked());
        let m = w.marked();
        assert!(m.is_marked());
        assert_eq!(m.pc(), 41);
        assert_eq!(m.unmarked(), w);
    }

    #[test]
    fn the_index_forms_agree_with_the_pc_forms() {
        for pc in [0u32, 1, 41, u32::MAX - 1, u32::MAX] {
            let w = ReturnWord::to_pc_index(pc as usize);
            assert_eq!(w, ReturnWord::to_pc(pc));
            assert_eq!(w.pc_index(), pc as usize);
            assert_eq!(w.marked().pc_index(), pc as usize);
        }
    }

    #[test]
    fn trampolines_carry_a_payload() {
        let t = ReturnWord::trampoline(12345).marked();
        assert!(t.is_trampoline());
        assert!(t.is_marked());
        assert_eq!(t.payload(), 12345);
        assert!(!ReturnWord::to_pc(7).is_trampoline());
        assert!(ReturnWord::thread_exit().is_thread_exit());
    }
}
