//! A thread's walked stacks on their way to the organizer: one flat frame
//! buffer and a list of sample records, each ending at an offset in it (a
//! stack has no fixed length). Full buffers travel the sample queue as a
//! [`crate::records::Part`] and come back through a pool.

use super::SampledFrame;

/// Stack samples a [`StackBuffer`] holds before it is handed over.
pub const BUFFER_STACKS: usize = 256;
/// Frames a [`StackBuffer`] holds before it is handed over (a sample is
/// never split: a buffer may exceed this by one sample's frames).
pub const BUFFER_FRAMES: usize = 16 * 1024;

/// How a walk for the CC-Map ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkEnd {
    /// It reached the thread's entry frame: the frames are the whole stack.
    Complete,
    /// It stopped at a frame marked by an earlier sample (the last frame
    /// of the sample, which is included): the frames below it are those of
    /// the thread's previous sample (`--walk=marked`).
    Marked,
    /// `--max-walk` frames were examined before either: where they sit in
    /// the thread is unknown.
    Cut,
}

/// One walked stack in a [`StackBuffer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackRecord {
    /// The sample's frames are `frames[previous end..end]`, top first.
    pub end: u32,
    /// The stack depth of the sample's last (outermost) frame: 0 for the
    /// entry frame.
    pub base: u32,
    /// How the walk ended.
    pub walk: WalkEnd,
    /// An edge sample: one call into the top frame's context.
    pub call: bool,
    /// A method sample crediting the frame this many below the top (0 the
    /// top frame, 1 its caller at a prologue); `None`: no method sample.
    pub self_at: Option<u8>,
}

/// A thread's walked stacks, flat.
#[derive(Clone, Debug, Default)]
pub struct StackBuffer {
    /// Every sample's frames, one after the other, each top first.
    pub frames: Vec<SampledFrame>,
    /// The samples, in the order taken.
    pub records: Vec<StackRecord>,
}

impl StackBuffer {
    /// The samples with their frames.
    pub fn samples(&self) -> impl Iterator<Item = (&StackRecord, &[SampledFrame])> {
        let mut start = 0usize;
        self.records.iter().map(move |r| {
            let end = (r.end as usize).min(self.frames.len()).max(start);
            let f = &self.frames[start..end];
            start = end;
            (r, f)
        })
    }

    /// Empties the buffer, keeping its memory.
    pub fn clear(&mut self) {
        self.frames.clear();
        self.records.clear();
    }

    /// Is it full enough to hand over?
    pub fn is_full(&self) -> bool {
        self.records.len() >= BUFFER_STACKS || self.frames.len() >= BUFFER_FRAMES
    }
}
