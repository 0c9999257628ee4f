//! The loop trip's test, as a JIT compiles a backedge yieldpoint.
//!
//! A fused loop test with a backedge yieldpoint (`crate::superinstr`)
//! checks three things before it jumps back: that both operands are
//! integers, and that the loop trip ([`crate::thread::ThreadShared`]) is
//! clear. The two type tags are `or`ed into one word as they are loaded;
//! the trip joins them in the same test, so the yieldpoint needs no branch
//! of its own. The trip is 0, or while set
//! [`LOOP_TRIPPED`](crate::thread::LOOP_TRIPPED), a word no tags equal, so
//! the test is `tags == trip`: a compare, which leaves the tags' register
//! as it was (an `or` would overwrite it, and LLVM copied the tags first
//! for the slow path: one instruction more per turn).
//!
//! Written as a relaxed atomic load and a compare, that costs two machine
//! instructions, because LLVM does not fold an atomic load into the
//! instruction that uses it. On x86-64 [`tags_clear_and_untripped`] is
//! instead what Jikes RVM's compilers emit for a yieldpoint: one
//! instruction that reads the trip word from memory (`cmp` with a memory
//! operand), then the branch. The sieve kernel's backedge yieldpoints
//! went from 1.33% to 0.66% of its instructions (docs/PERFORMANCE.md,
//! "Yieldpoint cost"), and a counted loop's (`inc` and the test in one
//! instruction) from one instruction a turn to none. An epilogue yieldpoint is folded the same way into
//! the test a return makes anyway, that the frame has a caller
//! ([`above_return_floor`]: one `cmp` with the floor's word in memory).
//! Elsewhere (and under Miri, which runs no assembly) the portable forms
//! are used.

#[cfg(any(not(target_arch = "x86_64"), miri))]
use std::sync::atomic::Ordering;

use crate::thread::ThreadShared;
#[cfg(test)]
use crate::thread::LOOP_TRIPPED;

/// Are `tags` (operands' tag words `or`ed, 0 when all are integers) zero
/// and the thread's loop trip clear?
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
pub fn tags_clear_and_untripped(tags: u32, thread: &ThreadShared) -> bool {
    // The trip is addressed from the thread's shared block, which the
    // interpreter keeps in a register, rather than through a pointer of
    // its own, which it would keep on the stack (a load more).
    //
    // A compare, not an `or`: the trip is 0 or [`LOOP_TRIPPED`], which
    // no tags equal, so `tags == trip` exactly when both are 0, and the
    // compare leaves the tags' register as it was (with an `or`, LLVM
    // copied the tags first, for the slow path: one instruction more per
    // counted loop's turn; callgrind, arith_loop).
    //
    // SAFETY: the `cmp` reads the trip's aligned 32-bit word, one access
    // (on x86-64 an aligned load is atomic: it is the same `mov` a relaxed
    // `AtomicU32::load` compiles to), and writes no register; the flags
    // it sets are clobbered by default. `readonly`: it writes no memory;
    // not `pure`, so that it is never hoisted out of the interpreter's
    // loop (the trip changes under it).
    unsafe {
        std::arch::asm!(
            "cmp {tags:e}, dword ptr [{thread} + {trip}]",
            "jne {tripped}",
            tags = in(reg) tags,
            thread = in(reg) thread as *const ThreadShared,
            trip = const std::mem::offset_of!(ThreadShared, loop_trip),
            tripped = label { return false },
            options(nostack, readonly),
        );
        // SAFETY: `tags` equals the trip, so both are zero. Said so that the
        // caller's match on its operands does not test their tags again
        // (LLVM cannot see into the assembly).
        std::hint::assert_unchecked(tags == 0);
    }
    true
}

/// Are `tags` (operands' tag words `or`ed, 0 when all are integers) zero
/// and the loop trip clear?
#[cfg(any(not(target_arch = "x86_64"), miri))]
#[inline(always)]
pub fn tags_clear_and_untripped(tags: u32, thread: &ThreadShared) -> bool {
    tags == thread.loop_trip.load(Ordering::Relaxed)
}

/// Is `depth` (the frame list's length before a return) above the
/// thread's return floor ([`crate::thread`]): no epilogue yieldpoint due
/// and a caller to return to?
///
/// The same instruction as the loop trip's: a compare with the floor's
/// word in memory, where a relaxed atomic load would first copy it to a
/// register (static_calls' yieldpoints 1.03% to 0.90% of its
/// instructions, callgrind).
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
pub fn above_return_floor(depth: usize, thread: &ThreadShared) -> bool {
    // SAFETY: the `cmp` reads the floor's aligned 64-bit word, one access
    // (an aligned load is atomic on x86-64, as in
    // `tags_clear_and_untripped`), and writes only the flags, which are
    // clobbered by default. `readonly`, not `pure`, for the same reason.
    unsafe {
        std::arch::asm!(
            "cmp {depth}, qword ptr [{thread} + {floor}]",
            "jbe {at_floor}",
            depth = in(reg) depth,
            thread = in(reg) thread as *const ThreadShared,
            floor = const std::mem::offset_of!(ThreadShared, return_floor),
            at_floor = label { return false },
            options(nostack, readonly),
        );
    }
    true
}

/// Is `depth` above the thread's return floor?
#[cfg(any(not(target_arch = "x86_64"), miri))]
#[inline(always)]
pub fn above_return_floor(depth: usize, thread: &ThreadShared) -> bool {
    depth > thread.return_floor.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn clear_only_with_no_tag_and_no_trip() {
        let t = ThreadShared::new(0, 0);
        assert!(tags_clear_and_untripped(0, &t));
        assert!(!tags_clear_and_untripped(3, &t));
        t.loop_trip.store(LOOP_TRIPPED, Ordering::Relaxed);
        assert!(!tags_clear_and_untripped(0, &t));
        assert!(!tags_clear_and_untripped(2, &t));
        t.loop_trip.store(0, Ordering::Relaxed);
        assert!(tags_clear_and_untripped(0, &t));
    }

    #[test]
    fn a_trip_set_by_another_thread_is_seen() {
        let t = std::sync::Arc::new(ThreadShared::new(0, 0));
        let setter = {
            let t = t.clone();
            std::thread::spawn(move || t.loop_trip.store(LOOP_TRIPPED, Ordering::Relaxed))
        };
        while tags_clear_and_untripped(0, &t) {
            std::hint::spin_loop();
        }
        setter.join().unwrap();
        assert_eq!(t.loop_trip.load(Ordering::Relaxed), LOOP_TRIPPED);
    }

    /// What makes one compare enough: no operands' tags, `or`ed, equal a
    /// set trip.
    #[test]
    fn no_tags_equal_the_set_trip() {
        use crate::value::Value;
        let kinds = [
            Value::Int(-1),
            Value::Null,
            Value::Str(3),
            Value::Obj(1, 2),
            Value::Arr(4),
        ];
        let t = ThreadShared::new(0, 0);
        t.loop_trip.store(LOOP_TRIPPED, Ordering::Relaxed);
        for a in kinds {
            assert_ne!(a.tag_word(), LOOP_TRIPPED);
            assert!(!tags_clear_and_untripped(a.tag_word(), &t), "{a:?}");
            for b in kinds {
                assert_ne!(a.tag_word() | b.tag_word(), LOOP_TRIPPED, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn above_the_floor_only_strictly_above_it() {
        let t = ThreadShared::new(0, 0);
        for (floor, depth, above) in [
            (1, 2, true),
            (1, 1, false),
            (1, 0, false),
            (5, 6, true),
            (5, 5, false),
            (usize::MAX, usize::MAX - 1, false),
            (usize::MAX, 2, false),
        ] {
            t.return_floor.store(floor, Ordering::Relaxed);
            assert_eq!(above_return_floor(depth, &t), above, "{depth} over {floor}");
        }
    }

    #[test]
    fn a_floor_raised_by_another_thread_is_seen() {
        let t = std::sync::Arc::new(ThreadShared::new(0, 0));
        t.return_floor.store(1, Ordering::Relaxed);
        let setter = {
            let t = t.clone();
            std::thread::spawn(move || t.return_floor.store(usize::MAX, Ordering::Relaxed))
        };
        while above_return_floor(3, &t) {
            std::hint::spin_loop();
        }
        setter.join().unwrap();
    }
}
