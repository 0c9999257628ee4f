//! Inline caches of virtual calls: per call site, the two receiver classes
//! the site last saw and the methods `callvirt` found for them (Deutsch &
//! Schiffman's inline cache, kept beside the code rather than in it, with
//! a second entry as in Hölzle, Chambers & Ungar's polymorphic caches: a
//! site whose receivers are of a class and its subclass, as
//! oo_small_calls' `p.get_x()` over particles and heavy particles, would
//! miss at every change of class with one entry).
//!
//! Without it a virtual call reads the receiver's class, then the class's
//! record, its method table, the method, and the method's code, each load
//! waiting for the one before: the call's target is known only at the end
//! of a chain that starts at the receiver. With it the site's words
//! (class, method) are read at once, since they depend on nothing but the
//! call's pc, and a compare with the receiver's class confirms one: the
//! processor goes on into the callee as for a static call while the
//! compare resolves, and only a class the words do not hold (a miss) takes
//! the table walk, then refills them. A site of more than two classes in
//! turn misses every time (virtual_calls' four shapes), and the miss costs
//! a few instructions more than the table walk alone. (awfy-queens, whose
//! calls go to one method per site: the same program with static calls
//! ran 17% faster than with virtual ones; docs/PERFORMANCE.md, "Inline
//! caches".)
//!
//! A body's cache has two words per instruction when the body has a
//! virtual call, indexed by the call's pc (the same in `code` and `exec`),
//! else none; a miss moves the first word to the second and writes the
//! new pair first. The words are shared by every thread that runs the
//! body and are written with relaxed atomics: a word is one load or one
//! store, so a reader sees a pair that some thread found, and any pair
//! found at that site is right for its class (a site's selector never
//! changes). A method is a method index, which each thread maps to its
//! own current code, so installing compiled code never makes a word
//! stale.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::instr::Instr;

/// A word no class matches: class ids are below `u32::MAX`.
const EMPTY: u64 = u64::MAX;

/// The inline caches of one body's virtual calls.
pub struct CallCache {
    words: Box<[AtomicU64]>,
}

impl CallCache {
    /// Empty caches for `code`: two words per instruction if it has a
    /// virtual call, else none.
    pub fn for_code(code: &[Instr]) -> CallCache {
        let calls = code
            .iter()
            .any(|i| matches!(i, Instr::CallVirt { .. } | Instr::CallVirtArgs { .. }));
        let n = if calls { 2 * code.len() } else { 0 };
        CallCache {
            words: (0..n).map(|_| AtomicU64::new(EMPTY)).collect(),
        }
    }

    /// The method the virtual call at `pc` found for receivers of `class`,
    /// if that is what its word holds.
    ///
    /// # Safety
    /// `pc` is the pc of a virtual call of the body whose cache this is.
    #[inline(always)]
    pub unsafe fn hit(&self, pc: usize, class: u32) -> Option<u32> {
        debug_assert!(2 * pc + 1 < self.words.len(), "a virtual call's pc");
        // SAFETY: a virtual call's body has two words per instruction (the
        // caller's contract).
        let first = unsafe { self.words.get_unchecked(2 * pc) }.load(Ordering::Relaxed);
        if first as u32 == class {
            return Some((first >> 32) as u32);
        }
        // SAFETY: as above.
        let second = unsafe { self.words.get_unchecked(2 * pc + 1) }.load(Ordering::Relaxed);
        (second as u32 == class).then_some((second >> 32) as u32)
    }

    /// Records that the virtual call at `pc` runs `method` for receivers
    /// of `class`.
    pub fn fill(&self, pc: usize, class: u32, method: u32) {
        if let (Some(first), Some(second)) = (self.words.get(2 * pc), self.words.get(2 * pc + 1)) {
            second.store(first.load(Ordering::Relaxed), Ordering::Relaxed);
            first.store(
                u64::from(class) | (u64::from(method) << 32),
                Ordering::Relaxed,
            );
        }
    }

    /// Words in this cache (two per instruction; 0 for a body without
    /// virtual calls).
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the body has no virtual call to cache.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

/// A copy starts empty: the caches are a speed-up, never a meaning.
impl Clone for CallCache {
    fn clone(&self) -> CallCache {
        CallCache {
            words: (0..self.words.len())
                .map(|_| AtomicU64::new(EMPTY))
                .collect(),
        }
    }
}

impl std::fmt::Debug for CallCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CallCache({} words)", self.words.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instr::Instr;

    fn code_with_call() -> Vec<Instr> {
        vec![
            Instr::Nop,
            Instr::CallVirt {
                selector: 0,
                base: 0,
                arity: 1,
            },
            Instr::Ret { a: 0 },
        ]
    }

    #[test]
    fn a_body_without_virtual_calls_has_no_words() {
        let c = CallCache::for_code(&[Instr::Nop, Instr::Ret { a: 0 }]);
        assert!(c.is_empty());
        assert_eq!(CallCache::for_code(&code_with_call()).len(), 6);
    }

    #[test]
    fn a_site_answers_for_the_last_two_classes_it_was_filled_with() {
        let c = CallCache::for_code(&code_with_call());
        // SAFETY: pc 1 is the virtual call.
        assert_eq!(unsafe { c.hit(1, 7) }, None, "empty at first");
        c.fill(1, 7, 42);
        assert_eq!(unsafe { c.hit(1, 7) }, Some(42));
        assert_eq!(unsafe { c.hit(1, 8) }, None, "another class misses");
        c.fill(1, 8, 43);
        assert_eq!(unsafe { c.hit(1, 7) }, Some(42), "the first kept second");
        assert_eq!(unsafe { c.hit(1, 8) }, Some(43));
        c.fill(1, 9, 44);
        assert_eq!(unsafe { c.hit(1, 7) }, None, "the oldest went");
        assert_eq!(unsafe { c.hit(1, 8) }, Some(43));
        assert_eq!(unsafe { c.hit(1, 9) }, Some(44));
        assert_eq!(unsafe { c.clone().hit(1, 9) }, None, "a copy starts empty");
        assert_eq!(unsafe { c.hit(0, 9) }, None, "another pc has its own");
    }

    #[test]
    fn class_zero_and_method_zero_are_cached_like_any_other() {
        let c = CallCache::for_code(&code_with_call());
        assert_eq!(unsafe { c.hit(1, 0) }, None);
        c.fill(1, 0, 0);
        assert_eq!(unsafe { c.hit(1, 0) }, Some(0));
        assert_eq!(unsafe { c.hit(1, u32::MAX - 1) }, None);
    }
}
