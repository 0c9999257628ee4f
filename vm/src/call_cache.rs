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
//! of a chain that starts at the receiver. With it the site's entry is
//! read at once, since its address depends on nothing but the call
//! instruction's own address, which the interpreter holds (`ip`), and a
//! compare with the receiver's class confirms one: the processor goes on
//! into the callee as for a static call while the compare resolves, and
//! only a class the entry does not hold (a miss) takes the table walk,
//! then refills it. A site of more than two classes in turn misses every
//! time (virtual_calls' four shapes), and the miss costs a few
//! instructions more than the table walk alone. (awfy-queens, whose calls
//! go to one method per site: the same program with static calls ran 17%
//! faster than with virtual ones; docs/PERFORMANCE.md, "Inline caches".)
//!
//! Each thread has its own [`CallCache`]: a table of [`SITES`] entries,
//! direct-mapped by the call instruction's address, each holding the
//! address it is for and two (class, method) pairs. Two sites that map to
//! one entry take it from each other (a miss, never a wrong answer: the
//! entry names its site). A miss moves the first pair to the second and
//! writes the new pair first. An instruction's address names one call
//! for the whole run: the code of a body, loaded or installed, lives as
//! long as the program and never moves. A method is a method index, which
//! each thread maps to its own current code, so installing compiled code
//! never makes a pair stale.

use crate::instr::Instr;

/// Entries in a thread's table (a power of two): 8 KiB a thread.
pub const SITES: usize = 256;

/// A pair no class matches: class ids are below `u32::MAX`.
const EMPTY: u64 = u64::MAX;

/// One site's entry: 32 bytes, so that an entry never straddles two cache
/// lines.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Entry {
    /// The call instruction's address; 0 for an unused entry.
    site: usize,
    /// (class, method) pairs: the class in the low half, the method in the
    /// high half; the most recently found first.
    pairs: [u64; 2],
}

const UNUSED: Entry = Entry {
    site: 0,
    pairs: [EMPTY; 2],
};

/// One thread's inline caches of its virtual calls.
pub struct CallCache {
    entries: Box<[Entry; SITES]>,
}

impl Default for CallCache {
    fn default() -> CallCache {
        CallCache::new()
    }
}

impl CallCache {
    /// Empty caches.
    pub fn new() -> CallCache {
        CallCache {
            entries: Box::new([UNUSED; SITES]),
        }
    }

    /// The entry of the call at `site`. Instructions are 16 bytes apart,
    /// so the address's low four bits say nothing.
    #[inline(always)]
    fn index(site: *const Instr) -> usize {
        (site as usize >> 4) & (SITES - 1)
    }

    /// The method the virtual call at `site` found for receivers of
    /// `class`, if its entry holds that.
    #[inline(always)]
    pub fn hit(&self, site: *const Instr, class: u32) -> Option<u32> {
        let e = &self.entries[Self::index(site)];
        if e.site != site as usize {
            return None;
        }
        let first = e.pairs[0];
        if first as u32 == class {
            return Some((first >> 32) as u32);
        }
        let second = e.pairs[1];
        (second as u32 == class).then_some((second >> 32) as u32)
    }

    /// Records that the virtual call at `site` runs `method` for receivers
    /// of `class`.
    pub fn fill(&mut self, site: *const Instr, class: u32, method: u32) {
        let pair = u64::from(class) | (u64::from(method) << 32);
        let e = &mut self.entries[Self::index(site)];
        if e.site == site as usize {
            e.pairs = [pair, e.pairs[0]];
        } else {
            *e = Entry {
                site: site as usize,
                pairs: [pair, EMPTY],
            };
        }
    }
}

impl std::fmt::Debug for CallCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let used = self.entries.iter().filter(|e| e.site != 0).count();
        write!(f, "CallCache({used} of {SITES} entries)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sites() -> Vec<Instr> {
        vec![Instr::Nop; SITES + 2]
    }

    #[test]
    fn an_entry_is_32_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 32);
    }

    #[test]
    fn a_site_answers_for_the_last_two_classes_it_was_filled_with() {
        let code = sites();
        let (s, other) = (&code[1] as *const Instr, &code[0] as *const Instr);
        let mut c = CallCache::new();
        assert_eq!(c.hit(s, 7), None, "empty at first");
        c.fill(s, 7, 42);
        assert_eq!(c.hit(s, 7), Some(42));
        assert_eq!(c.hit(s, 8), None, "another class misses");
        c.fill(s, 8, 43);
        assert_eq!(c.hit(s, 7), Some(42), "the first kept second");
        assert_eq!(c.hit(s, 8), Some(43));
        c.fill(s, 9, 44);
        assert_eq!(c.hit(s, 7), None, "the oldest went");
        assert_eq!(c.hit(s, 8), Some(43));
        assert_eq!(c.hit(s, 9), Some(44));
        assert_eq!(c.hit(other, 9), None, "another site has its own");
    }

    #[test]
    fn two_sites_of_one_entry_miss_rather_than_answer_for_each_other() {
        let code = sites();
        // `SITES` instructions apart: the same entry.
        let (a, b) = (&code[1] as *const Instr, &code[1 + SITES] as *const Instr);
        assert_eq!(CallCache::index(a), CallCache::index(b));
        let mut c = CallCache::new();
        c.fill(a, 7, 42);
        assert_eq!(c.hit(b, 7), None, "b's entry names a");
        c.fill(b, 7, 50);
        assert_eq!(c.hit(b, 7), Some(50));
        assert_eq!(c.hit(a, 7), None, "b took the entry");
    }

    #[test]
    fn class_zero_and_method_zero_are_cached_like_any_other() {
        let code = sites();
        let s = &code[3] as *const Instr;
        let mut c = CallCache::new();
        assert_eq!(c.hit(s, 0), None);
        c.fill(s, 0, 0);
        assert_eq!(c.hit(s, 0), Some(0));
        assert_eq!(c.hit(s, u32::MAX - 1), None);
    }
}
