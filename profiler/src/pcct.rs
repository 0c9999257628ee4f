//! Whaley's partial calling context tree (`--record=pcct`): Whaley 2000,
//! "A Portable Sampling-Based Profiler for Java Virtual Machines",
//! section 5 (Java Grande 2000; see README.md, "Bibliography").
//!
//! The PCCT is a calling context tree built only from stack samples:
//! "partial" because it holds only the paths that were on a stack when a
//! sample was taken, and because a context cut by the walk's buffer may be
//! only partly known (section 5.1). This module is its repository and its
//! construction algorithm, kept apart from the sampled CCT of
//! [`crate::walk`] because the PCCT counts differently and keeps sorted
//! lists:
//!
//! - **Construction** ([`Pcct::place`], Figure 7, section 5.2). The
//!   *upward phase* reads frames from the top down, at most `--max-walk` of
//!   them (Whaley's `BUFSIZE`, 16 by default), until it meets a frame whose
//!   return word carries the mark bit: an earlier sample visited that
//!   activation, and the frame's profiler slot names its node
//!   (`get_node(m, rt)`). The *downward phase* then goes back up the
//!   buffer, finding or creating the child node of each newer frame,
//!   marking the frame and storing the node in its slot. As Whaley's
//!   implementation does, once a child had to be created, the children
//!   below it are created without searching ("it stops searching for edges
//!   from nodes once a new edge is created"), and call sites are told apart
//!   (each node is a (method, call-site line) pair).
//! - **Cut walks** (section 5.4.1, Figure 10). When the buffer fills before
//!   a marked frame or the entry frame, `allocate_node(m)` makes a new node
//!   for the method of the next frame down, not attached to the tree: the
//!   root of a detached subtree, kept under a `<detached>` child of the
//!   root. The examined frames are marked into it, so later samples in them
//!   extend it (Figure 10(b)); the frame below the cut stays unmarked.
//! - **Edge weights by increment-all-new-edges** (Figure 7, `e.time +=
//!   cputime` for every edge of the downward phase; Arnold & Sweeney 2000,
//!   section 3.1, name the strategy and show its flaw): every edge the
//!   downward phase passes, i.e. the edge into every frame pushed since the
//!   previous sample, gains 1. Every walk does this, whichever listener
//!   asked for it (method or edge sample). Edges into entry frames do not
//!   exist (docs/LANGUAGE.md "Profiles"); an entry context counts its threads instead.
//! - **Node time** (`n1.time += cputime`): a method sample adds 1 to the
//!   node of the frame it credits (the caller at a prologue, see
//!   [`crate::listeners::SampleRecorder::method_sample`]). A sample is one
//!   unit of time.
//! - **Sorted hot lists** (Figure 8's `prev`/`next` links and
//!   `update_sorted_pos`; the same trick as the hot method list of section
//!   6.5, Figure 12): nodes are kept sorted by time and edges by weight as
//!   they are incremented, so the hottest nodes and edges are read off the
//!   front of a list with no sort ([`Pcct::hottest_nodes`],
//!   [`Pcct::hottest_edges`]). See [`HotList`] for how a move stays cheap
//!   when many counts are equal.
//! - **Purge** (section 5.4, "periodically purging data"; section 6.1:
//!   the compiler "purges all old profile data" every 10 seconds). With
//!   `--purge=N`, every N samples of a thread its PCCT drops every context
//!   that no walk reached in those N samples (nor any context below it):
//!   cold contexts go, contexts still in use keep their counts. Freed
//!   nodes are reused (Whaley allocates from "a single memory buffer");
//!   a frame whose slot names a freed node is recognised by the node's
//!   generation and walked past as if unmarked.
//!
//! The flat `cct` list of docs/LANGUAGE.md "Profiles" has `calls` = the weight of the
//! edge into the node (threads, for an entry context) and `self` = the
//! node's time in samples. With `--record=pcct` the profile also has a
//! `hot` key: the front of both sorted lists ([`profile::HotLists`]).
//!
//! Each thread builds its own PCCT (no lock per sample); the organizer
//! merges them when threads end. Nothing here recurses on the Rust stack.

use std::collections::BTreeMap;

use vm::frame::Frame;
use vm::instr::YieldKind;

use crate::cct::{DETACHED_METHOD, NO_LINE, ROOT_METHOD};
use crate::walk::marked::{self, MarkedTree};
use crate::walk::{credited_depth, FrameInfo};
use profile::{CctNode, HotEdge, HotLists, HotNode};

const NONE: u32 = u32::MAX;

/// How many entries of each hot list the profile file keeps.
pub const HOT_IN_PROFILE: usize = 20;

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

/// One context of a PCCT (Figure 8's `PCCT_Node` with its incoming
/// `PCCT_Edge`: in a tree each node has exactly one, so the edge's weight
/// and list links live with the node, in [`Pcct`]'s hot lists).
#[derive(Clone, Debug)]
struct Node {
    method: u32,
    line: u32,
    parent: u32,
    first_child: u32,
    next_sibling: u32,
    /// Bumped when the node is freed, so stale frame slots are noticed.
    generation: u32,
    live: bool,
    /// The purge period in which a walk last reached this node.
    period: u32,
    /// Threads counted into an entry context.
    threads: u64,
}

/// A partial calling context tree. Node 0 is the root.
#[derive(Clone, Debug)]
pub struct Pcct {
    nodes: Vec<Node>,
    /// Nodes by time (samples with the node on top).
    time: HotList,
    /// Nodes by the weight of their incoming edge.
    weight: HotList,
    free: Vec<u32>,
    period: u32,
}

impl Default for Pcct {
    fn default() -> Self {
        Pcct::new()
    }
}

impl Pcct {
    /// The root's index.
    pub const ROOT: u32 = 0;

    /// A tree holding only the root.
    pub fn new() -> Pcct {
        Pcct {
            nodes: vec![Node {
                method: ROOT_METHOD,
                line: NO_LINE,
                parent: NONE,
                first_child: NONE,
                next_sibling: NONE,
                generation: 0,
                live: true,
                period: 0,
                threads: 0,
            }],
            time: HotList::new(),
            weight: HotList::new(),
            free: Vec::new(),
            period: 0,
        }
    }

    /// Live nodes, the root included.
    pub fn len(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    /// Only the root?
    pub fn is_empty(&self) -> bool {
        self.len() == 1
    }

    /// The (method, call-site line) of node `n`.
    pub fn key(&self, n: u32) -> (u32, u32) {
        let node = &self.nodes[n as usize];
        (node.method, node.line)
    }

    /// The parent of node `n` (`None` for the root).
    pub fn parent(&self, n: u32) -> Option<u32> {
        let p = self.nodes[n as usize].parent;
        (p != NONE).then_some(p)
    }

    /// The time of node `n`: samples with it on top.
    pub fn time(&self, n: u32) -> u64 {
        self.time.count(n)
    }

    /// The weight of the edge into node `n` (for an entry context: the
    /// threads that ran it).
    pub fn calls(&self, n: u32) -> u64 {
        self.weight.count(n) + self.nodes[n as usize].threads
    }

    /// The `k` hottest nodes by time, hottest first: read off the front
    /// of the sorted list.
    pub fn hottest_nodes(&self, k: usize) -> Vec<(u32, u64)> {
        self.time.iter().take(k).collect()
    }

    /// The `k` heaviest edges (named by the node they lead to), heaviest
    /// first.
    pub fn hottest_edges(&self, k: usize) -> Vec<(u32, u64)> {
        self.weight.iter().take(k).collect()
    }

    /// The children of `parent`, most recently looked up first.
    pub fn children(&self, parent: u32) -> impl Iterator<Item = u32> + '_ {
        let mut c = self.nodes[parent as usize].first_child;
        std::iter::from_fn(move || {
            (c != NONE).then(|| {
                let this = c;
                c = self.nodes[c as usize].next_sibling;
                this
            })
        })
    }

    /// The child of `parent` for (`method`, `line`), if any (changes
    /// nothing).
    pub fn child_of(&self, parent: u32, method: u32, line: u32) -> Option<u32> {
        self.children(parent)
            .find(|&c| self.key(c) == (method, line))
    }

    /// A new node below `parent` (`allocate_node` and `allocate_edge`),
    /// never merged with an existing child.
    pub fn fresh_child(&mut self, parent: u32, method: u32, line: u32) -> u32 {
        let first = self.nodes[parent as usize].first_child;
        let node = Node {
            method,
            line,
            parent,
            first_child: NONE,
            next_sibling: first,
            generation: 0,
            live: true,
            period: self.period,
            threads: 0,
        };
        let id = match self.free.pop() {
            Some(id) => {
                let generation = self.nodes[id as usize].generation;
                self.nodes[id as usize] = Node { generation, ..node };
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.nodes[parent as usize].first_child = id;
        id
    }

    /// The child of `parent` for (`method`, `line`) (`get_edge`), created
    /// if absent; `true` if it was created. A found child moves to the
    /// front of its siblings.
    pub fn child(&mut self, parent: u32, method: u32, line: u32) -> (u32, bool) {
        let mut prev = NONE;
        let mut c = self.nodes[parent as usize].first_child;
        while c != NONE {
            let n = &self.nodes[c as usize];
            if n.method == method && n.line == line {
                if prev != NONE {
                    let next = n.next_sibling;
                    self.nodes[prev as usize].next_sibling = next;
                    self.nodes[c as usize].next_sibling = self.nodes[parent as usize].first_child;
                    self.nodes[parent as usize].first_child = c;
                }
                return (c, false);
            }
            prev = c;
            c = n.next_sibling;
        }
        (self.fresh_child(parent, method, line), true)
    }

    /// The context of a thread's entry method, counting one more thread.
    pub fn enter_thread(&mut self, method: u32) -> u32 {
        let (e, _) = self.child(Self::ROOT, method, NO_LINE);
        self.nodes[e as usize].threads += 1;
        e
    }

    /// The `<detached>` context under the root (created if absent).
    pub fn detached(&mut self) -> u32 {
        self.child(Self::ROOT, DETACHED_METHOD, NO_LINE).0
    }

    /// Adds `k` to the time of node `n`.
    pub fn add_time(&mut self, n: u32, k: u64) {
        self.time.add(n, k);
    }

    /// Adds `k` to the weight of the edge into node `n`.
    pub fn add_weight(&mut self, n: u32, k: u64) {
        self.weight.add(n, k);
    }

    /// The value a frame's slot holds for node `n`: its generation and id.
    fn slot_of(&self, n: u32) -> u64 {
        (u64::from(self.nodes[n as usize].generation) << 32) | u64::from(n)
    }

    /// The live node a frame's slot names, if it still exists.
    fn node_of_slot(&self, slot: u64) -> Option<u32> {
        let id = slot as u32;
        let node = self.nodes.get(id as usize)?;
        (node.live && u64::from(node.generation) == slot >> 32).then_some(id)
    }

    /// Figure 7: the node of the top frame of `frames`, examining at most
    /// `max_walk` frames (at least one). Marks every frame it places and
    /// adds 1 to the weight of every edge it passes on the way down (the
    /// edges into frames pushed since the previous sample). The walk is
    /// [`crate::walk::marked::walk`]; what is the PCCT's own is in its
    /// [`MarkedTree`] impl below.
    pub fn place<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        max_walk: usize,
    ) -> u32 {
        marked::walk(self, s, frames, max_walk)
    }

    /// Purges the contexts no walk reached since the previous purge (nor
    /// any context below them): they are unlinked, leave both hot lists,
    /// and their nodes are freed for reuse. Entry contexts stay (they count
    /// threads), as does the root. Returns how many nodes were freed.
    pub fn purge(&mut self) -> usize {
        let len = self.nodes.len();
        let mut keep = vec![false; len];
        keep[Self::ROOT as usize] = true;
        for id in 0..len {
            let n = &self.nodes[id];
            if n.live && (n.period == self.period || n.threads > 0) {
                let mut x = id as u32;
                while x != NONE && !keep[x as usize] {
                    keep[x as usize] = true;
                    x = self.nodes[x as usize].parent;
                }
            }
        }
        let mut freed = 0;
        for (id, &kept) in keep.iter().enumerate().skip(1) {
            if self.nodes[id].live && !kept {
                let node = &mut self.nodes[id];
                node.live = false;
                node.generation = node.generation.wrapping_add(1);
                node.first_child = NONE;
                node.next_sibling = NONE;
                self.time.remove(id as u32);
                self.weight.remove(id as u32);
                self.free.push(id as u32);
                freed += 1;
            }
        }
        // Drop the freed children from the lists of the nodes that stay.
        for (id, &kept_node) in keep.iter().enumerate() {
            if !kept_node {
                continue;
            }
            let mut kept = Vec::new();
            let mut c = self.nodes[id].first_child;
            while c != NONE {
                if keep[c as usize] {
                    kept.push(c);
                }
                c = self.nodes[c as usize].next_sibling;
            }
            let mut next = NONE;
            for &k in kept.iter().rev() {
                self.nodes[k as usize].next_sibling = next;
                next = k;
            }
            self.nodes[id].first_child = next;
        }
        self.period = self.period.wrapping_add(1);
        freed
    }

    /// Adds every context of `other` into this tree, paths matched by
    /// (method, line), counts added through the sorted lists. Detached
    /// subtrees stay distinct (as in [`crate::cct::CallingContextTree::merge`]).
    pub fn merge(&mut self, other: &Pcct) {
        let mut stack = vec![(Self::ROOT, Self::ROOT)];
        while let Some((theirs, mine)) = stack.pop() {
            let detached = self.nodes[mine as usize].method == DETACHED_METHOD;
            for c in other.children(theirs) {
                let (method, line) = other.key(c);
                let m = if detached {
                    self.fresh_child(mine, method, line)
                } else {
                    self.child(mine, method, line).0
                };
                self.time.add(m, other.time(c));
                self.weight.add(m, other.weight.count(c));
                self.nodes[m as usize].threads += other.nodes[c as usize].threads;
                stack.push((c, m));
            }
        }
    }

    /// The tree in the flat form of docs/LANGUAGE.md "Profiles" (depth first, parents
    /// before children, children by (method name, line)), and for every
    /// node index its id in that list (`u64::MAX` for freed nodes).
    pub fn to_flat(&self, name_of: impl Fn(u32) -> String) -> (Vec<CctNode>, Vec<u64>) {
        let name_of = |m: u32| match m {
            ROOT_METHOD => "<root>".to_string(),
            DETACHED_METHOD => "<detached>".to_string(),
            m => name_of(m),
        };
        let mut ids = vec![u64::MAX; self.nodes.len()];
        let mut out = Vec::with_capacity(self.len());
        let mut stack: Vec<(u32, Option<u64>)> = vec![(Self::ROOT, None)];
        while let Some((i, parent)) = stack.pop() {
            let n = &self.nodes[i as usize];
            let id = out.len() as u64;
            ids[i as usize] = id;
            out.push(CctNode {
                id,
                parent,
                method: name_of(n.method),
                line: (n.line != NO_LINE).then_some(n.line),
                calls: self.calls(i),
                self_: self.time(i),
            });
            let mut kids: Vec<_> = self
                .children(i)
                .map(|c| {
                    (
                        name_of(self.nodes[c as usize].method),
                        self.nodes[c as usize].line,
                        c,
                    )
                })
                .collect();
            kids.sort();
            for (_, _, c) in kids.into_iter().rev() {
                stack.push((c, Some(id)));
            }
        }
        (out, ids)
    }

    /// The front of both sorted lists, at most `k` each, as ids of the
    /// flat list `ids` (from [`Pcct::to_flat`]).
    pub fn hot_lists(&self, ids: &[u64], k: usize) -> HotLists {
        HotLists {
            nodes: self
                .hottest_nodes(k)
                .into_iter()
                .map(|(n, t)| HotNode {
                    id: ids[n as usize],
                    self_: t,
                })
                .collect(),
            edges: self
                .hottest_edges(k)
                .into_iter()
                .map(|(n, w)| HotEdge {
                    id: ids[n as usize],
                    calls: w,
                })
                .collect(),
        }
    }
}

/// What the marked walk does in a PCCT: a slot carries the node's
/// generation (a purged node is walked past as if unmarked); once a child
/// had to be created, the ones below it are created without searching
/// (Whaley's "it stops searching for edges from nodes once a new edge is
/// created"); every edge passed gains 1 (increment-all-new-edges); every
/// node reached is stamped with the purge period.
impl MarkedTree for Pcct {
    const ROOT: u32 = Pcct::ROOT;

    #[inline]
    fn node_of_slot(&self, slot: u64) -> Option<u32> {
        Pcct::node_of_slot(self, slot)
    }

    #[inline]
    fn slot_of(&self, n: u32) -> u64 {
        Pcct::slot_of(self, n)
    }

    fn cut(&mut self, method: u32) -> u32 {
        // `allocate_node(m)` for the next frame down, detached.
        let d = self.detached();
        self.fresh_child(d, method, NO_LINE)
    }

    #[inline]
    fn step(&mut self, parent: u32, method: u32, line: u32, fresh: bool) -> (u32, bool) {
        if fresh {
            (self.fresh_child(parent, method, line), true)
        } else {
            self.child(parent, method, line)
        }
    }

    #[inline]
    fn reached(&mut self, node: u32) {
        self.nodes[node as usize].period = self.period;
    }

    #[inline]
    fn passed(&mut self, node: u32, edge: bool) {
        if edge {
            self.weight.add(node, 1);
        }
        self.nodes[node as usize].period = self.period;
    }
}

/// One thread's PCCT and how its samples walk into it.
pub struct PcctRecorder {
    tree: Pcct,
    max_walk: usize,
    purge: Option<u64>,
    since_purge: u64,
}

impl PcctRecorder {
    /// A recorder for a thread entering `entry`, walking at most
    /// `max_walk` frames per sample, purging every `purge` samples.
    pub fn new(max_walk: u32, purge: Option<u64>, entry: u32) -> PcctRecorder {
        let mut tree = Pcct::new();
        tree.enter_thread(entry);
        PcctRecorder {
            tree,
            max_walk: (max_walk as usize).max(1),
            purge,
            since_purge: 0,
        }
    }

    /// A sample is being taken (before its walks): with `--purge=N`, the
    /// first sample after every N purges what those N did not reach.
    pub fn sample_taken(&mut self) {
        if let Some(n) = self.purge {
            if self.since_purge == n {
                self.tree.purge();
                self.since_purge = 0;
            }
            self.since_purge += 1;
        }
    }

    /// A method sample at a yieldpoint of `kind`: a walk, and one unit of
    /// time for the node of the frame credited (the caller at a prologue).
    pub fn method_sample<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        kind: YieldKind,
    ) {
        let Some(depth) = credited_depth(frames.len(), kind) else {
            return;
        };
        let node = self.tree.place(s, &mut frames[..depth], self.max_walk);
        self.tree.add_time(node, 1);
    }

    /// An edge sample: a walk (whose new edges gain weight, as every
    /// walk's do). A lone entry frame has no edge.
    pub fn edge_sample<S: FrameInfo + ?Sized>(&mut self, s: &S, frames: &mut [Frame]) {
        if frames.len() >= 2 {
            self.tree.place(s, frames, self.max_walk);
        }
    }

    /// The tree built so far.
    pub fn tree(&self) -> &Pcct {
        &self.tree
    }

    /// The tree, for the organizer.
    pub fn into_tree(self) -> Pcct {
        self.tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::testing::{entry, frame, Fake};

    fn path(t: &Pcct, mut n: u32) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        while n != Pcct::ROOT {
            out.push(t.key(n));
            n = t.parent(n).unwrap();
        }
        out.reverse();
        out
    }

    #[test]
    fn hot_list_sorts_as_counts_grow() {
        let mut h = HotList::new();
        // Hand-worked: a=1 +3, b=2 +1, c=3 +3, b +4, a +1, d=4 +4.
        h.add(1, 3);
        h.add(2, 1);
        h.add(3, 3);
        assert_eq!(h.iter().collect::<Vec<_>>(), vec![(1, 3), (3, 3), (2, 1)]);
        h.add(2, 4); // b: 5, overtakes both
        assert_eq!(h.iter().collect::<Vec<_>>(), vec![(2, 5), (1, 3), (3, 3)]);
        h.add(1, 1); // a: 4
        h.add(4, 4); // d: 4, reached 4 after a: behind it
        assert_eq!(
            h.iter().collect::<Vec<_>>(),
            vec![(2, 5), (1, 4), (4, 4), (3, 3)]
        );
        h.remove(1);
        h.remove(9);
        assert_eq!(h.iter().collect::<Vec<_>>(), vec![(2, 5), (4, 4), (3, 3)]);
        h.add(3, 3); // c: 6, to the front
        assert_eq!(h.iter().collect::<Vec<_>>(), vec![(3, 6), (2, 5), (4, 4)]);
        assert_eq!((h.count(3), h.count(1)), (6, 0));
    }

    #[test]
    fn hot_list_stays_sorted_under_many_unit_increments() {
        // A pseudo-random workload checked against a sort after each step.
        let mut h = HotList::new();
        let mut counts = [0u64; 37];
        let mut x: u64 = 12345;
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let id = ((x >> 33) % 37) as u32;
            if (x >> 20) % 50 == 0 {
                h.remove(id);
                counts[id as usize] = 0;
            } else {
                h.add(id, 1 + (x >> 40) % 2);
                counts[id as usize] += 1 + (x >> 40) % 2;
            }
            let got: Vec<u64> = h.iter().map(|(_, c)| c).collect();
            let mut want: Vec<u64> = counts.iter().copied().filter(|&c| c > 0).collect();
            want.sort_unstable_by(|a, b| b.cmp(a));
            assert_eq!(got, want);
            assert!(h.iter().all(|(id, c)| counts[id as usize] == c));
        }
    }

    /// A worked example: Whaley's Figure 6(a)-like samples over Figure 5's
    /// program (M calls A and D; A calls B and C; D calls A and C).
    #[test]
    fn worked_example_counts_and_hot_lists() {
        // Methods: 0 main, 1 M, 2 A, 3 B, 4 C, 5 D. Lines name call sites.
        let mut r = PcctRecorder::new(16, None, 0);
        let mut st = vec![entry(0), frame(1, 3)];
        // s1: method sample in M (backedge): main->M placed, M time 1.
        r.method_sample(&Fake, &mut st, YieldKind::Backedge);
        // M calls A (line 10), A calls C (line 20): s2 in C.
        st.push(frame(2, 10));
        st.push(frame(4, 20));
        r.method_sample(&Fake, &mut st, YieldKind::Backedge);
        // s3, s4: still in the same C: nothing new, C's time grows.
        r.method_sample(&Fake, &mut st, YieldKind::Backedge);
        r.method_sample(&Fake, &mut st, YieldKind::Epilogue);
        // C returns, A returns; M calls D (line 11), D calls A (line 30).
        st.truncate(2);
        st.push(frame(5, 11));
        st.push(frame(2, 30));
        r.method_sample(&Fake, &mut st, YieldKind::Backedge); // s5 in D->A
                                                              // A returns, D calls C (line 31): s6 in M->D->C.
        st.pop();
        st.push(frame(4, 31));
        r.method_sample(&Fake, &mut st, YieldKind::Backedge);
        // s7: a new call M->A->C (A again at line 10): the same contexts
        // as s2, but new frames, so both edges gain weight.
        st.truncate(2);
        st.push(frame(2, 10));
        st.push(frame(4, 20));
        r.method_sample(&Fake, &mut st, YieldKind::Backedge);
        let t = r.tree();
        let find = |p: &[(u32, u32)]| {
            let mut n = Pcct::ROOT;
            for &(m, l) in p {
                n = t.child_of(n, m, l).unwrap_or_else(|| panic!("{p:?}"));
            }
            n
        };
        let main = find(&[(0, NO_LINE)]);
        let m = find(&[(0, NO_LINE), (1, 3)]);
        let ma = find(&[(0, NO_LINE), (1, 3), (2, 10)]);
        let mac = find(&[(0, NO_LINE), (1, 3), (2, 10), (4, 20)]);
        let md = find(&[(0, NO_LINE), (1, 3), (5, 11)]);
        let mda = find(&[(0, NO_LINE), (1, 3), (5, 11), (2, 30)]);
        let mdc = find(&[(0, NO_LINE), (1, 3), (5, 11), (4, 31)]);
        // (calls, self) by hand: every edge counted once per sample that
        // found its frame new; self = samples on top.
        let counts = |n| (t.calls(n), t.time(n));
        assert_eq!(counts(main), (1, 0), "one thread");
        assert_eq!(counts(m), (1, 1));
        assert_eq!(counts(ma), (2, 0));
        assert_eq!(counts(mac), (2, 4));
        assert_eq!(counts(md), (1, 0), "D stayed on the stack for s6");
        assert_eq!(counts(mda), (1, 1));
        assert_eq!(counts(mdc), (1, 1));
        assert_eq!(t.len(), 8, "root + 7 contexts; nothing for B");
        // Hot nodes: C under M->A (4), then the ones of time 1 in the order
        // they reached it: M (s1), D->A (s5), D->C (s6).
        assert_eq!(
            t.hottest_nodes(10),
            vec![(mac, 4), (m, 1), (mda, 1), (mdc, 1)]
        );
        // Hot edges: M->A and A->C, weight 2 (s7 passes M->A first), then
        // the weight-1 edges in the order they reached 1.
        assert_eq!(
            t.hottest_edges(10),
            vec![(ma, 2), (mac, 2), (m, 1), (md, 1), (mda, 1), (mdc, 1)]
        );
        assert_eq!(t.hottest_nodes(1), vec![(mac, 4)]);
        // The flat list: calls and self as above, ids parent-first.
        let (flat, ids) = t.to_flat(|m| ["main", "M", "A", "B", "C", "D"][m as usize].into());
        assert_eq!(flat.len(), 8);
        let hot = t.hot_lists(&ids, 2);
        let by_id = |id: u64| &flat[id as usize];
        assert_eq!(by_id(hot.nodes[0].id).method, "C");
        assert_eq!(by_id(hot.nodes[0].id).self_, 4);
        assert_eq!(by_id(hot.edges[0].id).method, "A");
        assert_eq!(by_id(hot.edges[0].id).calls, 2);
        assert_eq!((hot.nodes.len(), hot.edges.len()), (2, 2));
    }

    #[test]
    fn only_new_frames_are_placed_and_the_marks_name_their_nodes() {
        let mut t = Pcct::new();
        let mut st = vec![entry(0), frame(1, 5), frame(2, 7)];
        let c = t.place(&Fake, &mut st, 16);
        assert_eq!(path(&t, c), vec![(0, NO_LINE), (1, 5), (2, 7)]);
        assert!(st.iter().all(|f| f.ret.is_marked()));
        // Same frames again: nothing new, no weight added.
        assert_eq!(t.place(&Fake, &mut st, 16), c);
        assert_eq!((t.calls(c), t.calls(t.parent(c).unwrap())), (1, 1));
        // Recursion keeps full context (Figure 9): f called from f twice.
        st.push(frame(2, 8));
        st.push(frame(2, 8));
        let d = t.place(&Fake, &mut st, 16);
        assert_eq!(path(&t, d).len(), 5);
        assert_eq!(t.parent(t.parent(d).unwrap()), Some(c));
    }

    #[test]
    fn a_cut_walk_is_detached_figure_10() {
        let mut t = Pcct::new();
        let mut st = vec![entry(0), frame(1, 5)];
        let a = t.place(&Fake, &mut st, 4);
        for k in 0..6 {
            st.push(frame(2, 20 + k));
        }
        let c = t.place(&Fake, &mut st, 4);
        // Four frames in the buffer; the fifth (b@21) names the detached
        // root, with no line, a child of <detached>.
        let p = path(&t, c);
        assert_eq!(
            p,
            vec![
                (DETACHED_METHOD, NO_LINE),
                (2, NO_LINE),
                (2, 22),
                (2, 23),
                (2, 24),
                (2, 25)
            ]
        );
        assert!(t.child_of(a, 2, 20).is_none());
        assert!(!st[3].ret.is_marked(), "the frame below the cut is not");
        // All four edges below the detached root are new: weight 1 each.
        let mut n = c;
        for _ in 0..4 {
            assert_eq!(t.calls(n), 1);
            n = t.parent(n).unwrap();
        }
        assert_eq!(t.calls(n), 0, "the detached root has no edge");
        // Later samples in those frames extend the detached subtree.
        st.push(frame(3, 30));
        let d = t.place(&Fake, &mut st, 4);
        assert_eq!(t.parent(d), Some(c));
        // Back below the cut: the walk reaches the marked `a`.
        st.truncate(4);
        let e = t.place(&Fake, &mut st, 4);
        assert_eq!(path(&t, e), vec![(0, NO_LINE), (1, 5), (2, 20), (2, 21)]);
    }

    #[test]
    fn purge_removes_cold_contexts_and_their_marks() {
        // --purge=2: the purge runs at the start of samples 3, 5, 7, ...,
        // and drops what the walks since the previous purge did not reach.
        let mut r = PcctRecorder::new(16, Some(2), 0);
        let sample = |r: &mut PcctRecorder, st: &mut Vec<Frame>| {
            r.sample_taken();
            r.method_sample(&Fake, st, YieldKind::Backedge);
        };
        let mut st = vec![entry(0), frame(1, 5)];
        sample(&mut r, &mut st); // s1: main -> a
        st.pop();
        st.push(frame(2, 6));
        st.push(frame(3, 7));
        sample(&mut r, &mut st); // s2: main -> b -> c
        sample(&mut r, &mut st); // s3: purges nothing (s1, s2 reached all)
        assert_eq!(r.tree().len(), 5);
        sample(&mut r, &mut st); // s4: in c
        sample(&mut r, &mut st); // s5: purges `a` (cold in s3, s4)
        let t = r.tree();
        let main = t.child_of(Pcct::ROOT, 0, NO_LINE).unwrap();
        assert!(t.child_of(main, 1, 5).is_none(), "cold `a` is purged");
        let b = t.child_of(main, 2, 6).unwrap();
        let c = t.child_of(b, 3, 7).unwrap();
        assert_eq!((t.time(c), t.calls(c)), (4, 1), "hot `c` keeps its counts");
        assert_eq!(t.calls(main), 1, "entry contexts stay");
        assert_eq!(t.len(), 4);
        assert_eq!(t.hottest_nodes(5), vec![(c, 4)]);
        assert_eq!(t.hottest_edges(5), vec![(b, 1), (c, 1)]);
        // The program moves to main -> a; c's frames are kept aside, still
        // marked with c's slot.
        let mut stale = st.clone();
        st.truncate(1);
        st.push(frame(1, 5));
        sample(&mut r, &mut st); // s6
        sample(&mut r, &mut st); // s7: purges nothing (s5 reached c)
        sample(&mut r, &mut st); // s8
        sample(&mut r, &mut st); // s9: purges b and c
        let t = r.tree();
        assert!(t.child_of(main, 2, 6).is_none(), "cold `b` is purged");
        assert_eq!(t.len(), 3);
        let a = t.child_of(main, 1, 5).unwrap();
        assert_eq!((t.time(a), t.calls(a)), (4, 1));
        // A frame whose slot names a freed node is walked past: the walk
        // places b and c again from the still valid main.
        r.method_sample(&Fake, &mut stale, YieldKind::Backedge);
        let t = r.tree();
        let b2 = t.child_of(main, 2, 6).expect("placed again");
        let c2 = t.child_of(b2, 3, 7).unwrap();
        assert_eq!((t.time(c2), t.calls(c2)), (1, 1), "counts start again");
        assert_eq!(t.len(), 5);
    }

    #[test]
    fn merging_adds_counts_and_keeps_lists_sorted() {
        let mut x = PcctRecorder::new(16, None, 0);
        let mut y = PcctRecorder::new(16, None, 0);
        let mut s1 = vec![entry(0), frame(1, 5)];
        x.method_sample(&Fake, &mut s1, YieldKind::Backedge);
        let mut s2 = vec![entry(0), frame(2, 6)];
        for _ in 0..3 {
            y.method_sample(&Fake, &mut s2, YieldKind::Backedge);
        }
        let mut s3 = vec![entry(0), frame(1, 5)];
        y.method_sample(&Fake, &mut s3, YieldKind::Backedge);
        let mut all = x.into_tree();
        all.merge(&y.into_tree());
        let main = all.child_of(Pcct::ROOT, 0, NO_LINE).unwrap();
        let a = all.child_of(main, 1, 5).unwrap();
        let b = all.child_of(main, 2, 6).unwrap();
        assert_eq!(all.calls(main), 2, "two threads");
        assert_eq!((all.calls(a), all.time(a)), (2, 2));
        assert_eq!((all.calls(b), all.time(b)), (1, 3));
        assert_eq!(all.hottest_nodes(2), vec![(b, 3), (a, 2)]);
        assert_eq!(all.hottest_edges(2), vec![(a, 2), (b, 1)]);
    }

    #[test]
    fn deep_trees_need_no_recursion() {
        let mut r = PcctRecorder::new(16, Some(1000), 0);
        let mut st = vec![entry(0)];
        for _ in 0..60_000 {
            st.push(frame(1, 3));
            r.sample_taken();
            r.method_sample(&Fake, &mut st, YieldKind::Backedge);
        }
        let t = r.tree();
        assert_eq!(t.len(), 60_002);
        let (flat, _) = t.to_flat(|_| "f".into());
        assert_eq!(flat.len(), 60_002);
        assert_eq!(flat[60_001].parent, Some(60_000));
        let mut all = Pcct::new();
        all.merge(t);
        assert_eq!(all.len(), 60_002);
    }
}
