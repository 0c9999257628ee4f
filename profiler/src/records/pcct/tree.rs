//! The PCCT itself (Whaley 2000, section 5, Figure 8): an arena of
//! nodes, two sorted hot lists, purging, merging, and what the marked walk
//! ([`crate::records::marked`]) does in it.

use vm::frame::Frame;
use vm::profiler_cost::{CostItem, Work};

use super::hot::HotList;
use crate::records::cct::{DETACHED_METHOD, NO_LINE, ROOT_METHOD};
use crate::records::frames::FrameInfo;
use crate::records::marked::{self, MarkedTree};
use profile::{CctNode, HotEdge, HotLists, HotNode};

const NONE: u32 = u32::MAX;

/// One context of a PCCT, 40 bytes (Figure 8's `PCCT_Node` with its incoming
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
    /// [`crate::records::marked::walk`]; what is the PCCT's own is in its
    /// [`MarkedTree`] impl below.
    pub fn place<S: FrameInfo + ?Sized>(
        &mut self,
        s: &S,
        frames: &mut [Frame],
        max_walk: usize,
        work: &mut Work,
    ) -> u32 {
        marked::walk(self, s, frames, max_walk, work)
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
    /// subtrees stay distinct (as in [`crate::records::cct::CallingContextTree::merge`]).
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
                method: name_of(n.method).into(),
                line: (n.line != NO_LINE).then_some(n.line),
                calls: self.calls(i),
                self_: self.time(i),
                cycles: None,
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
    const STEP_EXTRA: Option<CostItem> = Some(CostItem::PcctStep);

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

#[cfg(test)]
mod size_tests {
    /// The size `record-sizes` (experiment/src/exp/record_sizes.rs) counts
    /// per PCCT context: this node, and an entry of a count and two links
    /// in each of the two hot lists.
    #[test]
    fn a_node_is_40_bytes() {
        assert_eq!(std::mem::size_of::<super::Node>(), 40);
    }
}
