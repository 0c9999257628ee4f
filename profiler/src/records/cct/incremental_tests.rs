//! The incremental walk's unit tests: Hofer et al.'s Figure 8 step by
//! step, unwinding, retrieval, and random runs against the full walk.

use super::*;
use crate::records::cct::full;
use crate::records::frames::testing::*;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use vm::profiler_cost::Work;

/// Pops the top frame as the VM's `ret` (or unwinding) does: through
/// the trampoline if its word is one. Returns the real word.
fn pop(w: &mut IncrementalWalk, frames: &mut Vec<Frame>) -> ReturnWord {
    let f = frames.pop().unwrap();
    if f.ret.is_trampoline() {
        w.trampoline(frames, f.ret)
    } else {
        f.ret
    }
}

/// A node of a flattened tree: (method, line, calls, self, parent).
type FlatNode = (String, Option<u32>, u64, u64, Option<u64>);

fn flat(t: &CallingContextTree) -> Vec<FlatNode> {
    t.to_flat(|m| format!("m{m}"))
        .into_iter()
        .map(|n| (n.method.into(), n.line, n.calls, n.self_, n.parent))
        .collect()
}

#[test]
fn hofer_figure_8_step_by_step() {
    // main(0) -> a(1) -> b(2) -> c(3), lines 10, 20, 30.
    let mut w = IncrementalWalk::new();
    let mut frames = vec![entry(0), frame(1, 10), frame(2, 20), frame(3, 30)];
    // (1) A sample in c: TFO c, a skeleton for b, c's word patched.
    w.sample(&mut frames, Weight::Call);
    let b = w.cso().unwrap();
    assert_eq!((w.object(b).depth, w.object(b).filled), (2, false));
    assert!(frames[3].ret.is_trampoline());
    assert_eq!(w.resolve(frames[3].ret), ReturnWord::to_pc(30));
    assert_eq!(w.object(0).parent, b, "the TFO's parent is the CSO");
    // (2) c returns: b is decoded, a skeleton for a, b's word patched.
    assert_eq!(pop(&mut w, &mut frames), ReturnWord::to_pc(30));
    assert!(w.object(b).filled);
    let a = w.cso().unwrap();
    assert_eq!((w.object(a).depth, w.object(b).parent), (1, a));
    assert!(frames[2].ret.is_trampoline());
    // (3) b calls u (line 21), u calls v (line 40); a sample in v: the
    // CSO (a) is not v's caller: a new CSO u between v and a.
    frames.push(frame(4, 21));
    frames.push(frame(5, 40));
    w.sample(&mut frames, Weight::Call);
    let u = w.cso().unwrap();
    assert_eq!((w.object(u).depth, w.object(u).parent), (3, a));
    // (4) v returns: u decoded; its parent a is not u's caller's: a new
    // CSO b' between u and a, u's word patched.
    assert_eq!(pop(&mut w, &mut frames), ReturnWord::to_pc(40));
    let b2 = w.cso().unwrap();
    assert_ne!(b2, b);
    assert_eq!((w.object(b2).depth, w.object(u).parent), (2, b2));
    assert_eq!(w.object(b2).parent, a);
    // (5) u returns: b' decoded; its parent a is b's caller: a becomes
    // the CSO and nothing new is patched (b's word still is).
    let patched = w.stats().patched;
    assert_eq!(pop(&mut w, &mut frames), ReturnWord::to_pc(21));
    assert_eq!(w.cso(), Some(a));
    assert_eq!(w.stats().patched, patched);
    // (6) A sample in b: the CSO is b's caller: the TFO shares it.
    let before = w.len();
    w.sample(&mut frames, Weight::Self_);
    assert_eq!(w.len(), before + 1, "only the TFO is new");
    assert_eq!(w.object(before as u32).parent, a);
    assert_eq!(w.stats().patched, patched);
    // (7) b returns: a decoded, a skeleton for main.
    assert_eq!(pop(&mut w, &mut frames), ReturnWord::to_pc(20));
    assert!(w.object(a).filled);
    // Every frame was decoded once: c, v by samples; b, u, b', a by
    // returns.
    assert_eq!(w.stats().captured, 4);
    // The thread ends with main and a on the stack: retrieve decodes
    // main and restores a's word.
    let mut t = CallingContextTree::new();
    w.retrieve(&Fake, &mut frames, &mut t);
    assert_eq!(frames[1].ret, ReturnWord::to_pc(10), "restored");
    assert_eq!(w.stats().retrieved, 1);
    assert!(w.is_empty() && w.cso().is_none());
    let ctx = |path: &[(u32, u32)]| {
        let mut n = CallingContextTree::ROOT;
        for &(m, l) in path {
            n = t.child_of(n, m, l).unwrap_or_else(|| panic!("{path:?}"));
        }
        (t.node(n).calls, t.node(n).self_)
    };
    let main = (0, NO_LINE);
    assert_eq!(ctx(&[main, (1, 10), (2, 20), (3, 30)]), (1, 0));
    assert_eq!(ctx(&[main, (1, 10), (2, 20), (4, 21), (5, 40)]), (1, 0));
    assert_eq!(ctx(&[main, (1, 10), (2, 20)]), (0, 1));
    assert_eq!(t.len(), 7);
}

#[test]
fn unwinding_through_patched_frames_captures_each() {
    // A sample at depth 6, then an exception unwinds four frames, each
    // patched by the capture of the one above.
    let mut w = IncrementalWalk::new();
    let mut frames = vec![entry(0)];
    for i in 1..=6 {
        frames.push(frame(i, 100 + i));
    }
    let original: Vec<_> = frames.iter().map(|f| f.ret).collect();
    w.sample(&mut frames, Weight::Call);
    for k in (3..=6).rev() {
        assert!(frames[k].ret.is_trampoline(), "frame {k} is patched");
        assert_eq!(pop(&mut w, &mut frames), original[k]);
    }
    assert_eq!(w.stats().captured, 4);
    // The handler's frame (depth 2) returns through its trampoline too.
    assert!(frames[2].ret.is_trampoline());
    let mut t = CallingContextTree::new();
    w.retrieve(&Fake, &mut frames, &mut t);
    let restored: Vec<_> = frames.iter().map(|f| f.ret).collect();
    assert_eq!(restored, original[..3]);
    let mut expect = CallingContextTree::new();
    let mut stack = vec![entry(0)];
    for i in 1..=6 {
        stack.push(frame(i, 100 + i));
    }
    let c = full::context(&mut expect, &Fake, &stack, usize::MAX, &mut Work::default());
    expect.node_mut(c).calls += 1;
    assert_eq!(flat(&t), flat(&expect));
}

#[test]
fn retrieval_restores_every_patched_word() {
    let mut w = IncrementalWalk::new();
    let mut frames = vec![entry(0), frame(1, 5)];
    w.sample(&mut frames, Weight::Call);
    frames.push(frame(2, 6));
    frames.push(frame(3, 7));
    w.sample(&mut frames, Weight::Self_);
    frames.push(frame(4, 8));
    w.sample(&mut frames, Weight::Call);
    assert_eq!(frames.iter().filter(|f| f.ret.is_trampoline()).count(), 3);
    let mut t = CallingContextTree::new();
    w.retrieve(&Fake, &mut frames, &mut t);
    let words: Vec<_> = frames.iter().map(|f| f.ret).collect();
    let lines = [5, 6, 7, 8].map(ReturnWord::to_pc);
    assert_eq!(words[1..], lines);
    assert_eq!(t.len(), 6);
}

#[test]
fn a_sample_costs_one_frame_whatever_the_depth() {
    let mut w = IncrementalWalk::new();
    let mut frames = vec![entry(0)];
    for _ in 0..100_000 {
        frames.push(frame(1, 3));
    }
    // Samples at the top of a 100 001-frame stack, with calls and
    // returns in between: only the frames returned into are decoded.
    for i in 0..1000 {
        frames.push(frame(2, 4));
        w.sample(&mut frames, Weight::Call);
        pop(&mut w, &mut frames);
        if i % 2 == 0 {
            w.sample(&mut frames, Weight::Self_);
        }
    }
    assert_eq!(w.stats().captured, 1000);
    assert!(w.len() < 3100, "{} objects", w.len());
    let mut t = CallingContextTree::new();
    w.retrieve(&Fake, &mut frames, &mut t);
    // One retrieve decodes the rest of the stack once (all but the top
    // frame, decoded by its last return), without recursion.
    assert_eq!(w.stats().retrieved, 100_000);
    assert_eq!(t.len(), 100_003);
    assert!(frames.iter().all(|f| !f.ret.is_trampoline()));
}

/// A random run of calls, returns, unwinding and samples: the
/// incremental walk builds exactly the tree the full walk builds from
/// the same samples, and every return sees its real word.
fn random_run(seed: u64, retrieve_every: usize) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut w = IncrementalWalk::new();
    let mut t = CallingContextTree::new();
    let mut expect = CallingContextTree::new();
    let mut frames = vec![entry(0)];
    // The real words, as the VM pushed them.
    let mut real: Vec<ReturnWord> = vec![frames[0].ret];
    for step in 0..4000 {
        match rng.random_range(0..10) {
            0..=3 if frames.len() < 60 => {
                let f = frame(rng.random_range(1..5), rng.random_range(1..4));
                real.push(f.ret);
                frames.push(f);
            }
            0..=5 if frames.len() > 1 => {
                // A return, or an unwinding of several frames.
                let n = if rng.random_range(0..4) == 0 {
                    rng.random_range(1..frames.len())
                } else {
                    1
                };
                for _ in 0..n {
                    assert_eq!(pop(&mut w, &mut frames), real.pop().unwrap());
                }
            }
            _ => {
                let kind = if rng.random_range(0..2) == 0 {
                    Weight::Call
                } else {
                    Weight::Self_
                };
                // The reference reads a clean copy of the stack.
                let clean: Vec<Frame> = frames
                    .iter()
                    .zip(&real)
                    .map(|(f, r)| Frame { ret: *r, ..*f })
                    .collect();
                // Sometimes the caller of the top frame, as a method
                // sample at a prologue credits it.
                let depth = (frames.len() - rng.random_range(0..2)).max(1);
                let c = full::context(
                    &mut expect,
                    &Fake,
                    &clean[..depth],
                    usize::MAX,
                    &mut Work::default(),
                );
                match kind {
                    Weight::Call => expect.node_mut(c).calls += 1,
                    _ => expect.node_mut(c).self_ += 1,
                }
                w.sample(&mut frames[..depth], kind);
            }
        }
        if retrieve_every > 0 && step % retrieve_every == 0 {
            w.retrieve(&Fake, &mut frames, &mut t);
            let words: Vec<_> = frames.iter().map(|f| f.ret).collect();
            assert_eq!(words, real, "retrieve restores the stack");
        }
    }
    w.retrieve(&Fake, &mut frames, &mut t);
    assert_eq!(flat(&t), flat(&expect), "seed {seed}");
}

#[test]
fn random_runs_build_the_full_walks_tree() {
    for seed in 0..40 {
        random_run(seed, 0);
        random_run(seed, 97);
    }
}

#[test]
fn the_entry_frame_alone_is_a_complete_trace() {
    let mut w = IncrementalWalk::new();
    let mut frames = vec![entry(7)];
    w.sample(&mut frames, Weight::Self_);
    assert!(w.cso().is_none());
    assert!(frames[0].ret.is_thread_exit());
    let mut t = CallingContextTree::new();
    w.retrieve(&Fake, &mut frames, &mut t);
    let e = t.child_of(CallingContextTree::ROOT, 7, NO_LINE).unwrap();
    assert_eq!(t.node(e).self_, 1);
    // A call made after the entry frame was filled starts a new chain.
    let mut frames = vec![entry(7), frame(1, 2)];
    w.sample(&mut frames, Weight::Call);
    pop(&mut w, &mut frames);
    assert!(w.cso().is_none(), "filling the entry frame ends the chain");
}

#[test]
fn sampling_twice_at_a_prologue_patches_each_word_once() {
    // A thread stopped at a prologue and sampled at two ticks, as the
    // simulated machine samples a thread waiting for a core: each sample
    // credits the caller (a prefix of the stack) and then takes the edge
    // into the new callee (the whole stack).
    let mut w = IncrementalWalk::new();
    let mut frames = vec![entry(0), frame(1, 5), frame(2, 6), frame(3, 7)];
    let real: Vec<ReturnWord> = frames.iter().map(|f| f.ret).collect();
    for _ in 0..2 {
        w.sample(&mut frames[..3], Weight::Self_);
        w.sample(&mut frames, Weight::Call);
    }
    assert_eq!(w.stats().patched, 2, "frames 2 and 3 patched once each");
    // Returning through every frame gives back the real words.
    let mut popped = Vec::new();
    while frames.len() > 1 {
        popped.push(pop(&mut w, &mut frames));
    }
    popped.reverse();
    assert_eq!(popped, real[1..]);
    let mut t = CallingContextTree::new();
    w.retrieve(&Fake, &mut frames, &mut t);
    let m1 = t.child_of(CallingContextTree::ROOT, 0, NO_LINE).unwrap();
    let m2 = t.child_of(m1, 1, 5).unwrap();
    let m3 = t.child_of(m2, 2, 6).unwrap();
    let m4 = t.child_of(m3, 3, 7).unwrap();
    assert_eq!((t.node(m3).self_, t.node(m4).calls), (2, 2));
}
