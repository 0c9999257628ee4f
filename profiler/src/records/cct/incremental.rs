//! The incremental walk: Hofer, Gnedt & Mössenböck 2015, *Lightweight
//! Java Profiling with Partial Safepoints and Incremental Stack Tracing*,
//! section 5 (incremental stack tracing) and section 6 ("Exceptions").
//!
//! A sample examines **only the top frame**. The frames below it are
//! captured later, lazily, one at a time, when the program returns into
//! them: the sample patches the top frame's return word with a
//! *trampoline* ([`ReturnWord::trampoline`], the VM's mechanism, see
//! `vm::frame`), so that when the top frame returns the VM calls the
//! profiler ([`IncrementalWalk::trampoline`]), which decodes the caller,
//! patches the caller's own return word, and hands back the real return
//! word. An unchanged frame is examined once, however many samples are
//! taken above it, so a sample costs O(1) whatever the depth of the stack.
//!
//! **Data structures (section 5.1).** Samples share their frames in a tree
//! of *frame objects* (an arena, [`FrameObject`]); each has a `parent` (the
//! caller's frame object), the method (here the frame's code `body`), and
//! the position in it (the paper's `bci`; here the real return word of the
//! callee, whose pc is the call instruction: [`FrameObject::saved`]), plus
//! the bookkeeping of the paper: `filled` (decoded, or still an empty
//! *skeleton*), the *frame address* (here the frame's index in the
//! thread's frame stack, [`FrameObject::depth`]) and the *saved return
//! address* of the callee whose return word was patched (the same
//! [`FrameObject::saved`]: the saved return word *is* the caller's position
//! once the callee returns). The paper's list of *stack trace objects*
//! becomes a weight on each sample's *top frame object* (TFO): every
//! sample creates its own TFO, so the TFO is the trace, and its weight says
//! what the sample counts (a call or a `self` sample, see [`Weight`]).
//!
//! **Capturing frames (section 5.2)**, with the thread-local *current
//! skeleton object* (CSO), the skeleton of the next frame to be filled:
//!
//! - *taking a sample* ([`IncrementalWalk::sample`]): a new TFO for the top
//!   frame, filled at once. If the CSO is the skeleton of the top frame's
//!   caller (same frame address), it becomes the TFO's parent and nothing
//!   is patched (the top frame already returns through a trampoline).
//!   Otherwise (no CSO, or the CSO is deeper down) a new skeleton for the
//!   caller is created between the TFO and the former CSO, becomes the CSO,
//!   and the top frame's return word is saved in it and patched.
//! - *intercepting a return* ([`IncrementalWalk::trampoline`]): the CSO is
//!   always the skeleton of the frame returned into, which is decoded into
//!   it. Then its parent: none, or one for some deeper frame: a new
//!   skeleton for the caller's caller is inserted, becomes the CSO, and the
//!   caller's return word is saved and patched; the caller's caller's
//!   skeleton: it becomes the CSO (that frame's callee is already patched).
//!   The entry frame has no caller: filling it ends the chain (no CSO).
//!
//! The invariant behind these rules: the skeletons on the chain from the
//! CSO up through its parents are exactly the live frames whose callee's
//! return word is patched, deepest first (frame addresses strictly
//! decreasing), and each holds the saved word of that callee. So a
//! trampoline always finds its frame in the CSO, and a sample's caller is
//! the CSO or is above it.
//!
//! **Exceptions (section 6).** The VM calls the same hook when unwinding
//! pops a frame whose return word is a trampoline (`unwinding == true`):
//! the frame's caller is captured at the call through which the exception
//! passes, and its own return word is patched, so that unwinding through
//! several patched frames captures each of them. The real return word
//! comes back to the VM, whose trace of an uncaught exception therefore
//! shows real positions; [`IncrementalWalk::resolve`] gives the real word
//! behind a patched one for the traces of runtime errors.
//!
//! **Sample and retrieve (section 5.3).** Taking a sample is
//! [`IncrementalWalk::sample`]; [`IncrementalWalk::retrieve`] completes the
//! stack traces still waiting for frames by decoding the remaining frames
//! of the stack, from the CSO's frame down to the entry frame, restores
//! every patched return word, folds all traces into the thread's calling
//! context tree and empties the arena. It runs when the thread ends (frames
//! still on the stack after a runtime error, `halt`, or a program stopped
//! elsewhere are captured then; after a normal return or an uncaught
//! exception every frame has already been captured on its way out), and,
//! to keep memory bounded, whenever the arena has grown past
//! [`RETRIEVE_AT`] objects (the paper's profiler retrieves "infrequently").
//! Retrieval examines the stack once: amortized over the samples since the
//! last one it costs a fraction of a frame per sample.
//!
//! Incremental traces are complete: unlike the full and marked walks, an
//! incremental walk is never cut by `--max-walk` (the paper's section 7.3:
//! "ISPS always provides complete stack traces").
//!
//! Nothing here recurses: the chain walks and the fold loop over arena
//! indices with an explicit stack, so stacks 100 000 frames deep are fine.

use vm::frame::{Frame, ReturnWord};

use super::tree::{CallingContextTree, NO_LINE};
use crate::records::frames::FrameInfo;

const NONE: u32 = u32::MAX;

/// The arena size at which a sample first retrieves what is pending.
pub const RETRIEVE_AT: usize = 1 << 16;

/// What a stack trace counts in the calling context tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// Not a trace (a skeleton or a decoded caller).
    None,
    /// An edge sample: one call of the top frame's context.
    Call,
    /// A method sample: one `self` of the top frame's context.
    Self_,
}

/// A frame object (section 5.1).
#[derive(Clone, Copy, Debug)]
pub struct FrameObject {
    /// The caller's frame object (`u32::MAX`: none yet, or the entry frame).
    pub parent: u32,
    /// The frame address: the frame's index in the thread's frame stack.
    pub depth: u32,
    /// The code the frame runs (decoded when filled).
    pub body: u32,
    /// Decoded, or still a skeleton?
    pub filled: bool,
    /// The trace's weight, for a top frame object.
    pub weight: Weight,
    /// The saved return word of the callee whose return word was patched:
    /// once the frame is filled, its position (the pc after the call it is
    /// in). Unused in a top frame object.
    pub saved: ReturnWord,
}

impl FrameObject {
    /// The object as a frame, for [`FrameInfo`]: its body, and as return
    /// word its position.
    fn as_frame(&self) -> Frame {
        Frame {
            ret: self.saved,
            slot: 0,
            body: self.body,
            base: 0,
        }
    }
}

/// Counts of what an incremental walk did, for tests and measurements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkStats {
    /// Samples taken.
    pub samples: u64,
    /// Return words patched with a trampoline.
    pub patched: u64,
    /// Frames decoded at a trampoline (a return or an unwinding).
    pub captured: u64,
    /// Frames decoded by a retrieve.
    pub retrieved: u64,
    /// Retrieves done.
    pub retrieves: u64,
    /// Frame objects folded into the tree by the retrieves.
    pub folded: u64,
}

/// One thread's incremental stack tracer.
#[derive(Debug, Default)]
pub struct IncrementalWalk {
    objects: Vec<FrameObject>,
    /// The current skeleton object (`NONE`: none).
    cso: u32,
    stats: WalkStats,
}

impl IncrementalWalk {
    /// A tracer with no traces and no patched frames.
    pub fn new() -> IncrementalWalk {
        IncrementalWalk {
            objects: Vec::new(),
            cso: NONE,
            stats: WalkStats::default(),
        }
    }

    /// Frame objects held (traces not yet retrieved).
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    /// No frame objects held?
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Frame object `i`.
    pub fn object(&self, i: u32) -> &FrameObject {
        &self.objects[i as usize]
    }

    /// The current skeleton object.
    pub fn cso(&self) -> Option<u32> {
        (self.cso != NONE).then_some(self.cso)
    }

    /// What the walk has done so far.
    pub fn stats(&self) -> WalkStats {
        self.stats
    }

    fn push(&mut self, o: FrameObject) -> u32 {
        let id = self.objects.len() as u32;
        self.objects.push(o);
        id
    }

    /// A new skeleton for the frame at `depth` (below the callee whose
    /// real return word is `saved`), with `parent`.
    fn skeleton(&mut self, depth: usize, parent: u32, saved: ReturnWord) -> u32 {
        debug_assert!(!saved.is_trampoline(), "a patched word saved twice");
        self.push(FrameObject {
            parent,
            depth: depth as u32,
            body: NONE,
            filled: false,
            weight: Weight::None,
            saved,
        })
    }

    /// Patches the return word of `frames[callee]` with a trampoline to
    /// `skeleton`, whose saved word it must already hold.
    fn patch(&mut self, frames: &mut [Frame], callee: usize, skeleton: u32) {
        frames[callee].ret = ReturnWord::trampoline(u64::from(skeleton));
        self.stats.patched += 1;
    }

    /// Takes a sample of the stack `frames` (its top frame is the one
    /// sampled) with `weight`: the top frame is decoded into a new top
    /// frame object, its caller gets a skeleton (or shares the current
    /// one), and the top frame's return word is patched (section 5.2,
    /// "Taking a sample"). Costs O(1).
    pub fn sample(&mut self, frames: &mut [Frame], weight: Weight) {
        let Some(top) = frames.len().checked_sub(1) else {
            return;
        };
        self.stats.samples += 1;
        let tfo = self.push(FrameObject {
            parent: NONE,
            depth: top as u32,
            body: frames[top].body,
            filled: true,
            weight,
            saved: ReturnWord::default(),
        });
        if top == 0 {
            // The entry frame: a complete trace of one frame.
            return;
        }
        let caller = top - 1;
        let (above, below) = self.chain_around(caller);
        if below != NONE && self.objects[below as usize].depth as usize == caller {
            // The same activation of the caller: the top frame already
            // returns through that skeleton's trampoline.
            debug_assert!(frames[top].ret.is_trampoline());
            self.objects[tfo as usize].parent = below;
            return;
        }
        // No skeleton for the caller: a new one on the chain, between the
        // skeletons of the frames above and below it.
        let skel = self.skeleton(caller, below, frames[top].ret);
        self.patch(frames, top, skel);
        self.objects[tfo as usize].parent = skel;
        match above {
            NONE => self.cso = skel,
            a => self.objects[a as usize].parent = skel,
        }
    }

    /// Where the frame at `depth` falls on the chain of skeletons from the
    /// CSO down: the last skeleton of a frame above it (`NONE`: none) and
    /// the first at or below it (`NONE`: none).
    ///
    /// Usually the CSO is at or below `depth` (the sample's top frame is
    /// the stack's) and this costs nothing. It is above when a thread is
    /// sampled twice where it stopped at a prologue: the first sample's
    /// edge patched the callee, whose caller the second sample's method
    /// sample credits (the simulated machine samples a thread waiting for
    /// a core at every tick, see `vm::simsample`). Patching that frame's
    /// return word again would lose its real one.
    fn chain_around(&self, depth: usize) -> (u32, u32) {
        let (mut above, mut at) = (NONE, self.cso);
        while at != NONE && self.objects[at as usize].depth as usize > depth {
            above = at;
            at = self.objects[at as usize].parent;
        }
        (above, at)
    }

    /// The frame above the top of `frames` has just been popped, by `ret`
    /// or by unwinding an exception, and its return word was the
    /// trampoline `word`: decodes the frame returned into (the new top) into
    /// the CSO, moves the CSO to its caller, patching the new top frame's
    /// return word if need be (section 5.2, "Intercepting a return"), and
    /// gives back the real return word.
    ///
    /// # Panics
    ///
    /// If `word` is not a trampoline this walk installed (a VM or profiler
    /// bug: every trampoline is restored before its object is dropped).
    pub fn trampoline(&mut self, frames: &mut [Frame], word: ReturnWord) -> ReturnWord {
        let id = word.payload();
        let obj = *usize::try_from(id)
            .ok()
            .and_then(|i| self.objects.get(i))
            .unwrap_or_else(|| panic!("trampoline {word:?} is not one of this walk's"));
        let id = id as u32;
        debug_assert_eq!(id, self.cso, "a trampoline always returns into the CSO");
        let saved = obj.saved;
        let Some(d) = frames.len().checked_sub(1) else {
            return saved;
        };
        debug_assert_eq!(obj.depth as usize, d, "the CSO's frame address");
        {
            let o = &mut self.objects[id as usize];
            o.body = frames[d].body;
            o.filled = true;
        }
        self.stats.captured += 1;
        if d == 0 {
            // The entry frame has no caller: the chain is complete.
            self.cso = NONE;
            return saved;
        }
        let parent = obj.parent;
        if parent != NONE && self.objects[parent as usize].depth as usize == d - 1 {
            // The caller's caller already has its skeleton, and this frame
            // already returns through it.
            debug_assert!(frames[d].ret.is_trampoline());
            self.cso = parent;
        } else {
            // No parent, or one for a frame further down: insert a new
            // skeleton for the caller's caller.
            let skel = self.skeleton(d - 1, parent, frames[d].ret);
            self.patch(frames, d, skel);
            self.objects[id as usize].parent = skel;
            self.cso = skel;
        }
        saved
    }

    /// The real return word behind `word` (itself if it is no trampoline
    /// of this walk). Changes nothing: for stack traces.
    pub fn resolve(&self, word: ReturnWord) -> ReturnWord {
        if !word.is_trampoline() {
            return word;
        }
        usize::try_from(word.payload())
            .ok()
            .and_then(|i| self.objects.get(i))
            .map_or(word, |o| o.saved)
    }

    /// Retrieves every trace taken (section 5.3): decodes the frames of
    /// `frames` still waiting (from the CSO's frame down to the entry
    /// frame), restores every patched return word, adds each trace's weight
    /// to its context in `tree` (found or created), and empties the walk.
    pub fn retrieve<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        tree: &mut CallingContextTree,
    ) {
        self.stats.retrieves += 1;
        self.complete(frames);
        self.fold(s, tree);
        self.stats.folded += self.objects.len() as u64;
        self.objects.clear();
        self.cso = NONE;
    }

    /// Decodes the frames from the CSO's down to the entry frame into the
    /// skeleton chain (creating the skeletons missing from it), restoring
    /// the patched return words on the way.
    fn complete(&mut self, frames: &mut [Frame]) {
        let mut cur = self.cso;
        while cur != NONE {
            let o = self.objects[cur as usize];
            let d = o.depth as usize;
            if d >= frames.len() {
                // Cannot happen (the CSO's frame is live); leave the chain
                // unfilled rather than guess (its traces go to <detached>).
                debug_assert!(false, "CSO at {d} above a stack of {}", frames.len());
                break;
            }
            if let Some(callee) = frames.get_mut(d + 1) {
                if callee.ret.is_trampoline() && callee.ret.payload() == u64::from(cur) {
                    callee.ret = o.saved;
                }
            }
            {
                let m = &mut self.objects[cur as usize];
                m.body = frames[d].body;
                m.filled = true;
            }
            self.stats.retrieved += 1;
            if d == 0 {
                break;
            }
            let parent = o.parent;
            if parent != NONE && self.objects[parent as usize].depth as usize == d - 1 {
                cur = parent;
            } else {
                // This frame's word is real: a patched one would have its
                // skeleton as the parent.
                let word = self.resolve(frames[d].ret);
                let skel = self.skeleton(d - 1, parent, word);
                self.objects[cur as usize].parent = skel;
                cur = skel;
            }
        }
        self.cso = NONE;
    }

    /// Adds every trace to `tree`: each frame object's context is its
    /// parent's context's child for (its method, the line of the parent's
    /// position); an entry frame's is the root's child for its method.
    fn fold<S: FrameInfo + ?Sized>(&self, s: &S, tree: &mut CallingContextTree) {
        let n = self.objects.len();
        let mut ctx = vec![NONE; n];
        let mut path = Vec::new();
        for i in 0..n {
            if ctx[i] != NONE {
                continue;
            }
            // Up to a resolved object or a root (parents may have been
            // created after their children: no single forward pass).
            let mut j = i as u32;
            loop {
                path.push(j);
                let p = self.objects[j as usize].parent;
                if p == NONE || ctx[p as usize] != NONE {
                    break;
                }
                j = p;
            }
            while let Some(j) = path.pop() {
                let o = &self.objects[j as usize];
                let node = if !o.filled {
                    // Only an incomplete chain (never after `complete`).
                    tree.detached()
                } else if o.parent == NONE {
                    if o.depth == 0 {
                        tree.child(CallingContextTree::ROOT, s.method(&o.as_frame()), NO_LINE)
                    } else {
                        let d = tree.detached();
                        tree.child(d, s.method(&o.as_frame()), NO_LINE)
                    }
                } else {
                    let p = &self.objects[o.parent as usize];
                    let parent_ctx = ctx[o.parent as usize];
                    if p.filled {
                        // The parent's position is the return word of the
                        // call it made: the call-site line.
                        let pos = p.as_frame();
                        let line = s.line(&pos, &pos);
                        tree.child(parent_ctx, s.method(&o.as_frame()), line)
                    } else {
                        tree.child(parent_ctx, s.method(&o.as_frame()), NO_LINE)
                    }
                };
                ctx[j as usize] = node;
                match o.weight {
                    Weight::None => {}
                    Weight::Call => tree.node_mut(node).calls += 1,
                    Weight::Self_ => tree.node_mut(node).self_ += 1,
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "incremental_tests.rs"]
mod tests;
