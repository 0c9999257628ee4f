//! The organizer's half of a marked walk for the CC-Map: each thread's
//! last known stack, from which a sample that stopped at a marked frame
//! gets the frames below it (see [`super::walk`]).

use super::buffer::{StackRecord, WalkEnd};
use super::SampledFrame;

/// The organizer's side: each thread's last whole (or partly known)
/// stack, to rebuild the samples of a marked walk.
#[derive(Debug, Default)]
pub struct StackRebuilder {
    /// The frames known, outermost first, the first at depth `base`.
    known: Vec<SampledFrame>,
    base: u32,
    /// Scratch: the rebuilt sample, top first.
    out: Vec<SampledFrame>,
}

impl StackRebuilder {
    /// The stack of one sample, top first, and whether it is the whole
    /// stack down to the entry frame. `frames` are the sample's frames as
    /// walked (top first).
    pub fn rebuild(&mut self, r: &StackRecord, frames: &[SampledFrame]) -> (&[SampledFrame], bool) {
        let len = frames.len() as u32;
        match r.walk {
            WalkEnd::Marked
                if r.base >= self.base
                    && (r.base - self.base) < self.known.len() as u32
                    && len >= 1 =>
            {
                // Keep the frames below the marked one; the sample brings
                // the marked frame itself and the newer ones.
                self.known.truncate((r.base - self.base) as usize);
                self.known.extend(frames.iter().rev());
            }
            WalkEnd::Complete => {
                self.known.clear();
                self.known.extend(frames.iter().rev());
                self.base = 0;
            }
            // A cut walk, or a marked one whose base is not known (which
            // the walk never produces): known from its own outermost frame.
            _ => {
                self.known.clear();
                self.known.extend(frames.iter().rev());
                self.base = r.base;
            }
        }
        self.out.clear();
        self.out.extend(self.known.iter().rev());
        (&self.out, self.base == 0)
    }
}
