//! The translator's symbolic operand stack, with the indexes that keep
//! translation linear in the method's size however deep its operand stack
//! grows.
//!
//! The translator asks three questions of the stack at every `store` and
//! branch: does any entry alias local `x`; does any entry still name
//! temporary slot `s`; which entries are not yet in their canonical slots.
//! Answered by scanning, each costs the stack's depth, and a method that
//! pushes 100 000 values and stores them took seconds to load. Here each is
//! answered from counts kept as entries come and go: reference counts per
//! slot and per local, the depths where each local was pushed, and a
//! watermark below which every entry is canonical.

use super::Opnd;
use crate::instr::Slot;

/// The symbolic operand stack of one method being translated.
pub(super) struct SymStack {
    entries: Vec<Opnd>,
    /// Frame slots `0..nlocals` are locals; depth `k` lives in `nlocals + k`.
    nlocals: u32,
    /// How many entries are `Opnd::Slot(s)`, indexed by `s`.
    slot_refs: Vec<u32>,
    /// How many entries are `Opnd::Local(x)`, indexed by `x`.
    local_refs: Vec<u32>,
    /// Depths at which an `Opnd::Local(x)` was written, indexed by `x`.
    /// Entries may be stale (popped or overwritten since): readers check.
    local_at: Vec<Vec<u32>>,
    /// Every entry below this depth is in its canonical slot.
    canonical_below: usize,
}

impl SymStack {
    pub(super) fn new(nlocals: u32) -> Self {
        SymStack {
            entries: Vec::new(),
            nlocals,
            slot_refs: Vec::new(),
            local_refs: Vec::new(),
            local_at: Vec::new(),
            canonical_below: 0,
        }
    }

    fn canon(&self, k: usize) -> Slot {
        self.nlocals + k as u32
    }

    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn get(&self, k: usize) -> Opnd {
        self.entries[k]
    }

    pub(super) fn last(&self) -> Opnd {
        *self.entries.last().expect("verified stack height")
    }

    fn count(counts: &mut Vec<u32>, i: Slot) -> &mut u32 {
        let i = i as usize;
        if counts.len() <= i {
            counts.resize(i + 1, 0);
        }
        &mut counts[i]
    }

    /// Accounts for `op` entering the stack at depth `k`.
    fn enter(&mut self, k: usize, op: Opnd) {
        match op {
            Opnd::Slot(s) => *Self::count(&mut self.slot_refs, s) += 1,
            Opnd::Local(x) => {
                *Self::count(&mut self.local_refs, x) += 1;
                let x = x as usize;
                if self.local_at.len() <= x {
                    self.local_at.resize_with(x + 1, Vec::new);
                }
                self.local_at[x].push(k as u32);
            }
            _ => {}
        }
        if op != Opnd::Slot(self.canon(k)) {
            self.canonical_below = self.canonical_below.min(k);
        }
    }

    /// Accounts for `op` leaving the stack.
    fn leave(&mut self, op: Opnd) {
        match op {
            Opnd::Slot(s) => self.slot_refs[s as usize] -= 1,
            Opnd::Local(x) => self.local_refs[x as usize] -= 1,
            _ => {}
        }
    }

    pub(super) fn push(&mut self, op: Opnd) {
        let k = self.entries.len();
        self.entries.push(op);
        self.enter(k, op);
        if self.canonical_below == k && op == Opnd::Slot(self.canon(k)) {
            self.canonical_below = k + 1;
        }
    }

    pub(super) fn pop(&mut self) -> Opnd {
        let op = self.entries.pop().expect("verified stack height");
        self.leave(op);
        self.canonical_below = self.canonical_below.min(self.entries.len());
        op
    }

    /// Replaces entry `k`.
    pub(super) fn set(&mut self, k: usize, op: Opnd) {
        let old = std::mem::replace(&mut self.entries[k], op);
        self.leave(old);
        self.enter(k, op);
    }

    pub(super) fn truncate(&mut self, n: usize) {
        while self.entries.len() > n {
            self.pop();
        }
    }

    pub(super) fn swap(&mut self, a: usize, b: usize) {
        let (x, y) = (self.entries[a], self.entries[b]);
        self.set(a, y);
        self.set(b, x);
    }

    /// Makes the stack `h` entries deep, each in its canonical slot (the
    /// state at a block leader). Every entry must already be canonical.
    pub(super) fn reset_canonical(&mut self, h: usize) {
        debug_assert_eq!(self.first_noncanonical(0), self.len());
        self.truncate(h);
        while self.entries.len() < h {
            let k = self.entries.len();
            self.push(Opnd::Slot(self.canon(k)));
        }
    }

    /// Does any entry alias local `x`?
    pub(super) fn aliases(&self, x: Slot) -> bool {
        self.local_refs.get(x as usize).is_some_and(|&n| n > 0)
    }

    /// Does any entry name slot `s`?
    pub(super) fn names_slot(&self, s: Slot) -> bool {
        self.slot_refs.get(s as usize).is_some_and(|&n| n > 0)
    }

    /// The depths of the entries that alias local `x`, lowest first; the
    /// record is cleared (the caller overwrites every one of them).
    pub(super) fn take_aliases(&mut self, x: Slot) -> Vec<usize> {
        if !self.aliases(x) {
            return Vec::new();
        }
        let mut at: Vec<usize> = std::mem::take(&mut self.local_at[x as usize])
            .into_iter()
            .map(|k| k as usize)
            .filter(|&k| k < self.entries.len() && self.entries[k] == Opnd::Local(x))
            .collect();
        at.sort_unstable();
        at.dedup();
        at
    }

    /// The lowest depth at or above `from` whose entry is not canonical, or
    /// the stack's length.
    pub(super) fn first_noncanonical(&self, from: usize) -> usize {
        let start = from.max(self.canonical_below);
        (start..self.entries.len())
            .find(|&k| self.entries[k] != Opnd::Slot(self.canon(k)))
            .unwrap_or(self.entries.len())
    }

    /// Records that every entry at or above `from` is now canonical.
    pub(super) fn mark_canonical_from(&mut self, from: usize) {
        if self.canonical_below >= from {
            self.canonical_below = self.entries.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The answers a plain scan of the entries gives, to hold the indexes to.
    fn check(s: &SymStack) {
        let scan_alias = |x: Slot| s.entries.contains(&Opnd::Local(x));
        let scan_slot = |v: Slot| s.entries.contains(&Opnd::Slot(v));
        for x in 0..8 {
            assert_eq!(s.aliases(x), scan_alias(x), "local {x}");
            assert_eq!(s.names_slot(x), scan_slot(x), "slot {x}");
        }
        let first = (0..s.len())
            .find(|&k| s.entries[k] != Opnd::Slot(s.canon(k)))
            .unwrap_or(s.len());
        assert_eq!(s.first_noncanonical(0), first);
    }

    #[test]
    fn counts_follow_pushes_pops_sets_and_swaps() {
        let mut s = SymStack::new(2);
        s.push(Opnd::Local(0));
        check(&s);
        s.push(Opnd::Slot(3));
        s.push(Opnd::Int(7));
        s.push(Opnd::Local(1));
        check(&s);
        s.swap(2, 3);
        check(&s);
        s.set(0, Opnd::Slot(2));
        check(&s);
        assert_eq!(s.pop(), Opnd::Int(7));
        check(&s);
        s.truncate(1);
        check(&s);
        assert!(!s.aliases(0) && !s.aliases(1));
    }

    #[test]
    fn aliases_come_lowest_first_without_stale_depths() {
        let mut s = SymStack::new(1);
        s.push(Opnd::Local(0)); // depth 0
        s.push(Opnd::Int(1)); // depth 1
        s.push(Opnd::Local(0)); // depth 2
        s.pop(); // depth 2 is stale now
        s.push(Opnd::Int(2)); // depth 2 again, not an alias
        s.push(Opnd::Local(0)); // depth 3
        s.swap(1, 3); // depths 1 and 3 trade places
        assert_eq!(s.take_aliases(0), vec![0, 1]);
        check(&s);
    }

    #[test]
    fn the_watermark_skips_what_is_canonical() {
        let mut s = SymStack::new(1);
        s.reset_canonical(3);
        assert_eq!(s.first_noncanonical(0), 3);
        s.push(Opnd::Int(5));
        assert_eq!(s.first_noncanonical(0), 3);
        s.set(3, Opnd::Slot(4));
        s.mark_canonical_from(3);
        assert_eq!(s.first_noncanonical(0), 4);
        s.swap(0, 1);
        check(&s);
        assert_eq!(s.first_noncanonical(0), 0);
        assert_eq!(s.first_noncanonical(1), 1);
    }
}
