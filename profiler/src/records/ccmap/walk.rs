//! The walks that feed the SSCLI Call Context Map (`--record=ccmap`;
//! Chilingarova & Safonov 2006, section 3.1.4; see README.md, "Bibliography"):
//! the application thread only copies frames, top first, into its flat
//! [`StackBuffer`]; the organizer (the paper's "CC-Map manager") folds
//! them into the map ([`super::map`]) "without hurry".
//!
//! - `--walk=full` (the default): every frame from the top down to the
//!   entry frame, at most `--max-walk` (256); a deeper stack is a
//!   [`WalkEnd::Cut`] sample.
//! - `--walk=marked`: the paper's walk, "from the top of the stack and
//!   ends at the outermost frame or at the first managed method activation
//!   record that has already been visited by profiler", which "records
//!   this frame data [...] and stops". Every frame examined gets the mark
//!   bit of its return word (new frames are pushed unmarked at no cost), so
//!   a sample costs the frames pushed since the previous one. The paper
//!   then folds only those frames; we want whole calling contexts for the
//!   the profile's `cct`, so the sample also says at which depth the marked frame
//!   sits ([`StackRecord::base`]), and the organizer, which keeps each
//!   thread's previous stack, takes the frames below it from there: the
//!   marked activation has stayed on the stack since an earlier sample,
//!   and so have all the frames below it, so the previous sample had the
//!   same frames at those depths. The application thread pays for the new
//!   frames only; the organizer rebuilds the rest. At most `--max-walk`
//!   (16) frames are examined, the marked one included; a cut walk is a
//!   [`WalkEnd::Cut`] sample (its frames are marked, so the next samples
//!   stopping in them are placed relative to it, never in the thread's
//!   whole context).
//!
//! The `slot` of a frame is not used: only the mark bit.

use vm::frame::Frame;

use super::buffer::{StackBuffer, StackRecord, WalkEnd};
use super::SampledFrame;
use crate::config::WalkKind;
use crate::records::frames::FrameInfo;

/// Copies the stack of `frames` (bottom first) into `buffer`, top first,
/// as one sample. `call` and `self_at` are the sample's counts (see
/// [`StackRecord`]). Returns how many frames were examined.
pub fn record<S: FrameInfo + ?Sized>(
    buffer: &mut StackBuffer,
    s: &S,
    frames: &mut [Frame],
    walk: WalkKind,
    max_walk: usize,
    call: bool,
    self_at: Option<u8>,
) -> usize {
    let n = frames.len();
    if n == 0 {
        return 0;
    }
    let max_walk = max_walk.max(1);
    let marking = walk == WalkKind::Marked;
    let mut i = n;
    let mut examined = 0;
    let end = loop {
        if examined == max_walk {
            break WalkEnd::Cut;
        }
        i -= 1;
        examined += 1;
        let f = &frames[i];
        let marked = marking && f.ret.is_marked();
        buffer.frames.push(SampledFrame {
            method: s.method(f),
            call_line: (i > 0).then(|| s.line(&frames[i - 1], f)),
        });
        if marking {
            let f = &mut frames[i];
            f.ret = f.ret.marked();
        }
        if i == 0 {
            break WalkEnd::Complete;
        }
        if marked {
            break WalkEnd::Marked;
        }
    };
    buffer.records.push(StackRecord {
        end: u32::try_from(buffer.frames.len()).unwrap_or(u32::MAX),
        base: u32::try_from(i).unwrap_or(u32::MAX),
        walk: end,
        call,
        self_at,
    });
    examined
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::ccmap::rebuild::StackRebuilder;
    use crate::records::frames::testing::*;

    fn walk_and_rebuild(
        rb: &mut StackRebuilder,
        frames: &mut [Frame],
        walk: WalkKind,
        max_walk: usize,
    ) -> (Vec<(u32, Option<u32>)>, bool, usize, WalkEnd) {
        let mut buf = StackBuffer::default();
        let examined = record(&mut buf, &Fake, frames, walk, max_walk, true, Some(0));
        let (r, f) = buf.samples().next().unwrap();
        let r = *r;
        let (stack, complete) = rb.rebuild(&r, f);
        (
            stack.iter().map(|f| (f.method, f.call_line)).collect(),
            complete,
            examined,
            r.walk,
        )
    }

    #[test]
    fn a_full_walk_copies_the_whole_stack_top_first() {
        let mut rb = StackRebuilder::default();
        let mut frames = vec![entry(0), frame(1, 5), frame(2, 7)];
        let (s, complete, examined, end) =
            walk_and_rebuild(&mut rb, &mut frames, WalkKind::Full, 256);
        assert_eq!(s, vec![(2, Some(7)), (1, Some(5)), (0, None)]);
        assert!(complete);
        assert_eq!((examined, end), (3, WalkEnd::Complete));
        assert!(
            frames.iter().all(|f| !f.ret.is_marked()),
            "full never marks"
        );
        // Cut at two frames.
        let (s, complete, _, end) = walk_and_rebuild(&mut rb, &mut frames, WalkKind::Full, 2);
        assert_eq!(s, vec![(2, Some(7)), (1, Some(5))]);
        assert!(!complete);
        assert_eq!(end, WalkEnd::Cut);
    }

    #[test]
    fn a_marked_walk_reads_only_new_frames_and_the_organizer_rebuilds_the_rest() {
        let mut rb = StackRebuilder::default();
        let mut frames = vec![entry(0), frame(1, 5), frame(2, 7)];
        let (s, complete, examined, _) =
            walk_and_rebuild(&mut rb, &mut frames, WalkKind::Marked, 16);
        assert_eq!((s.len(), complete, examined), (3, true, 3));
        assert!(frames.iter().all(|f| f.ret.is_marked()));
        // Return from 2, call 3 then 4: the walk examines 4, 3 and the
        // marked 1 (three frames), and the rebuilt stack is whole.
        frames.truncate(2);
        frames.push(frame(3, 6));
        frames.push(frame(4, 9));
        let (s, complete, examined, end) =
            walk_and_rebuild(&mut rb, &mut frames, WalkKind::Marked, 16);
        assert_eq!(s, vec![(4, Some(9)), (3, Some(6)), (1, Some(5)), (0, None)]);
        assert!(complete);
        assert_eq!((examined, end), (3, WalkEnd::Marked));
        // The same stack again: only the (marked) top frame is examined.
        let (s2, complete, examined, _) =
            walk_and_rebuild(&mut rb, &mut frames, WalkKind::Marked, 16);
        assert_eq!((s2, complete, examined), (s, true, 1));
    }

    #[test]
    fn a_cut_marked_walk_is_incomplete_and_so_are_those_stopping_above_it() {
        let mut rb = StackRebuilder::default();
        let mut frames = vec![entry(0)];
        for k in 0..6 {
            frames.push(frame(1, 10 + k));
        }
        let (s, complete, examined, end) =
            walk_and_rebuild(&mut rb, &mut frames, WalkKind::Marked, 3);
        assert_eq!(
            (s.len(), complete, examined, end),
            (3, false, 3, WalkEnd::Cut)
        );
        assert!(!frames[3].ret.is_marked(), "below the cut stays unmarked");
        frames.push(frame(2, 20));
        let (s, complete, _, end) = walk_and_rebuild(&mut rb, &mut frames, WalkKind::Marked, 3);
        assert_eq!(end, WalkEnd::Marked);
        assert_eq!(s.len(), 4);
        assert!(!complete);
        // Back below the cut: the walk goes on past unmarked frames down
        // to the marked entry frame, and the stack is whole again.
        frames.truncate(3);
        let (s, complete, _, _) = walk_and_rebuild(&mut rb, &mut frames, WalkKind::Marked, 16);
        assert_eq!(s.len(), 3);
        assert!(complete);
    }

    #[test]
    fn deep_stacks_need_no_recursion() {
        let mut rb = StackRebuilder::default();
        let mut frames = vec![entry(0)];
        for _ in 0..100_000 {
            frames.push(frame(1, 3));
        }
        let (s, complete, _, _) =
            walk_and_rebuild(&mut rb, &mut frames, WalkKind::Full, usize::MAX);
        assert_eq!(s.len(), 100_001);
        assert!(complete);
    }
}
