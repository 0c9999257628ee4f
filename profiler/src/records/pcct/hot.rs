//! Whaley's sorted lists (Whaley 2000, section 5.2, Figure 8's
//! `prev`/`next` links and `update_sorted_pos`): counts kept in order as
//! they grow, so that the PCCT's hottest nodes and edges are read off the
//! front with no sort.

use std::collections::BTreeMap;

const NONE: u32 = u32::MAX;

/// Counts kept sorted, largest first, as they grow (Whaley's sorted node
/// and edge lists). Elements are small integers (node ids); an element
/// with count 0 is not in the list.
///
/// The list is one doubly linked list plus, for every count value present,
/// the first and last element with that count (a *group*). Adding to an
/// element unlinks it and links it in at the end of the group of its new
/// count, or, if there is none, just before the first element of the next
/// smaller count: O(log g) for g distinct counts, however many elements
/// share a count (a plain "bubble towards the front" would pass every
/// element of equal count). Among equal counts, the element that reached
/// the count first comes first.
#[derive(Clone, Debug, Default)]
pub struct HotList {
    count: Vec<u64>,
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    groups: BTreeMap<u64, (u32, u32)>,
}

impl HotList {
    /// An empty list.
    pub fn new() -> HotList {
        HotList {
            head: NONE,
            ..Default::default()
        }
    }

    fn cover(&mut self, id: u32) {
        let need = id as usize + 1;
        if self.count.len() < need {
            self.count.resize(need, 0);
            self.prev.resize(need, NONE);
            self.next.resize(need, NONE);
        }
    }

    /// The count of `id` (0 if absent).
    pub fn count(&self, id: u32) -> u64 {
        self.count.get(id as usize).copied().unwrap_or(0)
    }

    /// Adds `k` to the count of `id` and moves it to its sorted place.
    pub fn add(&mut self, id: u32, k: u64) {
        if k == 0 {
            return;
        }
        self.cover(id);
        if self.count[id as usize] > 0 {
            self.unlink(id);
        }
        self.count[id as usize] += k;
        self.link(id);
    }

    /// Removes `id` (its count becomes 0).
    pub fn remove(&mut self, id: u32) {
        if self.count(id) > 0 {
            self.unlink(id);
            self.count[id as usize] = 0;
        }
    }

    /// Elements from the largest count down, with their counts.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        let mut c = self.head;
        std::iter::from_fn(move || {
            (c != NONE).then(|| {
                let this = c;
                c = self.next[c as usize];
                (this, self.count[this as usize])
            })
        })
    }

    fn unlink(&mut self, id: u32) {
        let i = id as usize;
        let c = self.count[i];
        let (p, n) = (self.prev[i], self.next[i]);
        if let Some(g) = self.groups.get_mut(&c) {
            match (g.0 == id, g.1 == id) {
                (true, true) => {
                    self.groups.remove(&c);
                }
                (true, false) => g.0 = n,
                (false, true) => g.1 = p,
                (false, false) => {}
            }
        }
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.head = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
        self.prev[i] = NONE;
        self.next[i] = NONE;
    }

    fn link(&mut self, id: u32) {
        let c = self.count[id as usize];
        if let Some(g) = self.groups.get_mut(&c) {
            let last = g.1;
            g.1 = id;
            self.insert_after(last, id);
            return;
        }
        match self.groups.range(..c).next_back().map(|(_, g)| g.0) {
            Some(first_smaller) => self.insert_before(first_smaller, id),
            None => match self.groups.iter().next().map(|(_, g)| g.1) {
                // No smaller count: after the last element of all.
                Some(tail) => self.insert_after(tail, id),
                None => self.head = id,
            },
        }
        self.groups.insert(c, (id, id));
    }

    fn insert_before(&mut self, at: u32, id: u32) {
        let p = self.prev[at as usize];
        self.prev[id as usize] = p;
        self.next[id as usize] = at;
        self.prev[at as usize] = id;
        if p != NONE {
            self.next[p as usize] = id;
        } else {
            self.head = id;
        }
    }

    fn insert_after(&mut self, at: u32, id: u32) {
        let n = self.next[at as usize];
        self.prev[id as usize] = at;
        self.next[id as usize] = n;
        self.next[at as usize] = id;
        if n != NONE {
            self.prev[n as usize] = id;
        }
    }
}
