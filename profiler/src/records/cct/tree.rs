//! The calling context tree (Ammons, Ball & Larus; the structure Whaley's
//! PCCT and Arnold & Sweeney's ACCT approximate): one node per distinct
//! path of (method, call-site line) from a thread's entry method.
//!
//! Nodes live in one arena (`Vec<Node>`) and name each other by index, so
//! trees thousands of levels deep cost no recursion to build, merge or
//! write. Children are kept as a singly linked sibling list: most contexts
//! have few children, and the hottest child is moved to the front on lookup.
//!
//! A node is 32 bytes: an exact CCT can have millions of contexts
//! (recursive fib(32): 7 million; docs/PERFORMANCE.md). Its (method,
//! call-site line) pair is not stored in it but interned: the node holds
//! the index of the pair in a small table of the distinct pairs (one per
//! call site and callee, a few hundred in a program), which a lookup
//! compares by index.

use std::collections::{HashMap, TryReserveError};

use profile::{CctNode, MethodName};
use vm::memory::Charge;

/// "No line": the root and the threads' entry methods.
pub const NO_LINE: u32 = u32::MAX;
/// The method index of the root.
pub const ROOT_METHOD: u32 = u32::MAX;
/// The method index of the `<detached>` context: a child of the root whose
/// children are the detached subtrees of walks cut short by `--max-walk`
/// (Whaley 2000, section 5.4.1 and Figure 10; see [`crate::records::cct`]).
pub const DETACHED_METHOD: u32 = u32::MAX - 1;
const NONE: u32 = u32::MAX;

/// One calling context (32 bytes).
#[derive(Clone, Debug)]
pub struct Node {
    /// Calls into this context (or the weight recorded into it).
    pub calls: u64,
    /// Samples (or instructions) with this context on top.
    pub self_: u64,
    /// The parent node ([`u32::MAX`] for the root).
    pub parent: u32,
    /// The (method, line) pair, an index into the tree's table.
    key: u32,
    first_child: u32,
    next_sibling: u32,
}

/// A calling context tree. Node 0 is the root.
#[derive(Debug)]
pub struct CallingContextTree {
    nodes: Vec<Node>,
    /// The distinct (method, call-site line) pairs of the nodes.
    keys: Vec<(u32, u32)>,
    key_index: HashMap<(u32, u32), u32>,
    /// Per node, the cost model's cycles with the context on top: kept by
    /// the exhaustive profile only ([`Self::keeping_cycles`]), beside the
    /// nodes so that a sampled tree's node stays 32 bytes.
    cycles: Option<Vec<u64>>,
    /// What the arena holds of the run's memory budget (`--max-heap`),
    /// when the tree is counted there (the exhaustive profile's tree,
    /// grown through [`Self::try_grow`]).
    charge: Option<Charge>,
}

impl Clone for CallingContextTree {
    /// A copy of the tree, not counted in the budget.
    fn clone(&self) -> Self {
        CallingContextTree {
            nodes: self.nodes.clone(),
            keys: self.keys.clone(),
            key_index: self.key_index.clone(),
            cycles: self.cycles.clone(),
            charge: None,
        }
    }
}

impl Default for CallingContextTree {
    fn default() -> Self {
        CallingContextTree::new()
    }
}

impl CallingContextTree {
    /// The root node's index.
    pub const ROOT: u32 = 0;

    /// A tree holding only the root.
    pub fn new() -> CallingContextTree {
        CallingContextTree {
            nodes: vec![Node {
                key: 0,
                parent: NONE,
                calls: 0,
                self_: 0,
                first_child: NONE,
                next_sibling: NONE,
            }],
            keys: vec![(ROOT_METHOD, NO_LINE)],
            key_index: HashMap::from([((ROOT_METHOD, NO_LINE), 0)]),
            cycles: None,
            charge: None,
        }
    }

    /// Would the next new node make the arena grow?
    #[inline]
    pub fn is_full(&self) -> bool {
        self.nodes.len() == self.nodes.capacity()
    }

    /// Bytes one node costs in the arena (its cycles included, if kept).
    pub fn node_bytes(&self) -> usize {
        std::mem::size_of::<Node>() + if self.cycles.is_some() { 8 } else { 0 }
    }

    /// Bytes the arena holds, by its capacity.
    pub fn arena_bytes(&self) -> usize {
        self.nodes.capacity() * self.node_bytes()
    }

    /// The charge the arena is counted by, if any.
    pub fn charge_mut(&mut self) -> &mut Option<Charge> {
        &mut self.charge
    }

    /// Makes room for `more` nodes beyond those the arena holds
    /// (fallibly: run it inside [`vm::memory::fallibly`]). The caller has
    /// charged them.
    pub fn try_grow(&mut self, more: usize) -> Result<(), TryReserveError> {
        let spare = self.nodes.capacity() - self.nodes.len();
        self.nodes.try_reserve_exact(spare + more)?;
        if let Some(c) = &mut self.cycles {
            c.try_reserve_exact(self.nodes.capacity() - c.len())?;
        }
        Ok(())
    }

    /// The tree keeping each context's cycles as well (the exhaustive
    /// profile's time reference, [`Self::add_cycles`]).
    pub fn keeping_cycles(mut self) -> CallingContextTree {
        self.cycles.get_or_insert_with(|| vec![0; self.nodes.len()]);
        self
    }

    /// Adds `cycles` to context `i`'s time on top (a tree made by
    /// [`Self::keeping_cycles`]; others ignore it).
    #[inline]
    pub fn add_cycles(&mut self, i: u32, cycles: u64) {
        if let Some(c) = &mut self.cycles {
            c[i as usize] += cycles;
        }
    }

    /// Context `i`'s cycles on top, if the tree keeps them.
    pub fn cycles_of(&self, i: u32) -> Option<u64> {
        self.cycles.as_ref().map(|c| c[i as usize])
    }

    /// A thread's tree before its first sample: the root and the entry
    /// context of `entry`, which counts the thread as one call (as the
    /// exhaustive CCT does).
    pub fn for_thread(entry: u32) -> CallingContextTree {
        let mut tree = CallingContextTree::new();
        let e = tree.child(Self::ROOT, entry, NO_LINE);
        tree.node_mut(e).calls += 1;
        tree
    }

    /// The key of (`method`, `line`), if a node has it.
    #[inline]
    fn key_of(&self, method: u32, line: u32) -> Option<u32> {
        self.key_index.get(&(method, line)).copied()
    }

    /// The key of (`method`, `line`), added if new.
    fn intern(&mut self, method: u32, line: u32) -> u32 {
        if let Some(k) = self.key_of(method, line) {
            return k;
        }
        let k = self.keys.len() as u32;
        self.keys.push((method, line));
        self.key_index.insert((method, line), k);
        k
    }

    /// The method of node `i`.
    #[inline]
    pub fn method_of(&self, i: u32) -> u32 {
        self.keys[self.nodes[i as usize].key as usize].0
    }

    /// The call-site line of node `i` in its parent ([`NO_LINE`] for the
    /// root and entry contexts).
    #[inline]
    pub fn line_of(&self, i: u32) -> u32 {
        self.keys[self.nodes[i as usize].key as usize].1
    }

    /// Number of nodes, the root included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Only the root?
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1
    }

    /// Node `i`.
    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    /// Node `i`, mutably.
    pub fn node_mut(&mut self, i: u32) -> &mut Node {
        &mut self.nodes[i as usize]
    }

    /// The child of `parent` for (`method`, `line`), created if absent.
    pub fn child(&mut self, parent: u32, method: u32, line: u32) -> u32 {
        let mut c = self.nodes[parent as usize].first_child;
        if c == NONE {
            return self.fresh_child(parent, method, line);
        }
        // The hot case: the first child (moved to front on lookup).
        let first = &self.nodes[c as usize];
        if self.keys[first.key as usize] == (method, line) {
            return c;
        }
        let Some(key) = self.key_of(method, line) else {
            // A pair no node has: no child can have it.
            return self.fresh_child(parent, method, line);
        };
        let mut prev = NONE;
        while c != NONE {
            let n = &self.nodes[c as usize];
            if n.key == key {
                if prev != NONE {
                    // Move to front: the next lookup of a hot child is quick.
                    let next = n.next_sibling;
                    self.nodes[prev as usize].next_sibling = next;
                    self.nodes[c as usize].next_sibling = self.nodes[parent as usize].first_child;
                    self.nodes[parent as usize].first_child = c;
                }
                return c;
            }
            prev = c;
            c = n.next_sibling;
        }
        self.fresh_child(parent, method, line)
    }

    /// The child of `parent` for (`method`, `line`), if there is one
    /// (a lookup that changes nothing).
    pub fn child_of(&self, parent: u32, method: u32, line: u32) -> Option<u32> {
        let key = self.key_of(method, line)?;
        self.children(parent)
            .find(|&c| self.nodes[c as usize].key == key)
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

    /// A new child of `parent` for (`method`, `line`), never merged with an
    /// existing one: the root of a detached subtree (Whaley's
    /// `allocate_node`, Figure 7, when the upward walk found no mark).
    pub fn fresh_child(&mut self, parent: u32, method: u32, line: u32) -> u32 {
        let id = self.nodes.len() as u32;
        let key = self.intern(method, line);
        let first = self.nodes[parent as usize].first_child;
        self.nodes.push(Node {
            key,
            parent,
            calls: 0,
            self_: 0,
            first_child: NONE,
            next_sibling: first,
        });
        if let Some(c) = &mut self.cycles {
            c.push(0);
        }
        self.nodes[parent as usize].first_child = id;
        id
    }

    /// The `<detached>` context under the root (created if absent): the
    /// parent of every detached subtree.
    pub fn detached(&mut self) -> u32 {
        self.child(Self::ROOT, DETACHED_METHOD, NO_LINE)
    }

    /// Adds every context of `other` into this tree (paths matched by
    /// (method, line), counts summed). Detached subtrees (the children of
    /// `<detached>`) stay distinct: each was cut from an unknown context,
    /// so two of them are never assumed to be the same context.
    pub fn merge(&mut self, other: &CallingContextTree) {
        if other.cycles.is_some() && self.cycles.is_none() {
            self.cycles = Some(vec![0; self.nodes.len()]);
        }
        // other's node index -> this tree's node index. Parents come before
        // children in the arena, so one forward pass suffices.
        let mut map = vec![0u32; other.nodes.len()];
        for (i, n) in other.nodes.iter().enumerate().skip(1) {
            let parent = map[n.parent as usize];
            let (method, line) = other.keys[n.key as usize];
            let mine = if self.method_of(parent) == DETACHED_METHOD {
                self.fresh_child(parent, method, line)
            } else {
                self.child(parent, method, line)
            };
            let m = &mut self.nodes[mine as usize];
            m.calls += n.calls;
            m.self_ += n.self_;
            map[i] = mine;
        }
        self.nodes[0].calls += other.nodes[0].calls;
        self.nodes[0].self_ += other.nodes[0].self_;
        if let Some(theirs) = &other.cycles {
            for (i, &c) in theirs.iter().enumerate() {
                self.add_cycles(map[i], c);
            }
        }
        // A counted tree stays counted for what it holds now (the other
        // tree gives its own charge back when dropped).
        let bytes = self.arena_bytes();
        if let Some(c) = &mut self.charge {
            c.set(bytes);
        }
    }

    /// The tree in the flat form of docs/LANGUAGE.md "Profiles": depth-first, each
    /// parent before its children, children by (method name, line), ids
    /// renumbered in that order so the output does not depend on the order
    /// in which contexts were discovered.
    pub fn to_flat(&self, name_of: impl Fn(u32) -> String) -> Vec<CctNode> {
        let mut out = Vec::with_capacity(self.nodes.len());
        out.extend(self.flat_iter(name_of));
        out
    }

    /// [`Self::to_flat`] one node at a time, so that a tree of millions of
    /// contexts can be written without a list of them in memory.
    pub fn flat_iter(&self, name_of: impl Fn(u32) -> String) -> FlatIter<'_> {
        let name_of = |m: u32| match m {
            ROOT_METHOD => "<root>".to_string(),
            DETACHED_METHOD => "<detached>".to_string(),
            m => name_of(m),
        };
        // Names once per distinct pair, and the order of pairs by (name,
        // line), so that sorting children compares two integers.
        let names: Vec<MethodName> = self.keys.iter().map(|&(m, _)| name_of(m).into()).collect();
        let mut by_name: Vec<u32> = (0..self.keys.len() as u32).collect();
        by_name.sort_by(|&a, &b| {
            (&names[a as usize], self.keys[a as usize].1)
                .cmp(&(&names[b as usize], self.keys[b as usize].1))
        });
        let mut rank = vec![0u32; self.keys.len()];
        for (r, &k) in by_name.iter().enumerate() {
            rank[k as usize] = r as u32;
        }
        FlatIter {
            tree: self,
            names,
            rank,
            stack: vec![(Self::ROOT, None)],
            kids: Vec::new(),
            next_id: 0,
        }
    }
}

/// The nodes of a tree in the flat order of docs/LANGUAGE.md "Profiles" (see
/// [`CallingContextTree::flat_iter`]). Depth-first with an explicit stack.
pub struct FlatIter<'a> {
    tree: &'a CallingContextTree,
    names: Vec<MethodName>,
    rank: Vec<u32>,
    stack: Vec<(u32, Option<u64>)>,
    kids: Vec<(u32, u32)>,
    next_id: u64,
}

impl Iterator for FlatIter<'_> {
    type Item = CctNode;

    fn next(&mut self) -> Option<CctNode> {
        let (i, parent) = self.stack.pop()?;
        let t = self.tree;
        let n = &t.nodes[i as usize];
        let id = self.next_id;
        self.next_id += 1;
        let (_, line) = t.keys[n.key as usize];
        self.kids.clear();
        let mut c = n.first_child;
        while c != NONE {
            let k = &t.nodes[c as usize];
            self.kids.push((self.rank[k.key as usize], c));
            c = k.next_sibling;
        }
        self.kids.sort_unstable();
        // Reverse so that the first in order is popped first.
        for &(_, c) in self.kids.iter().rev() {
            self.stack.push((c, Some(id)));
        }
        Some(CctNode {
            id,
            parent,
            method: self.names[n.key as usize].clone(),
            line: (line != NO_LINE).then_some(line),
            calls: n.calls,
            self_: n.self_,
            cycles: t.cycles_of(i),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(m: u32) -> String {
        ["main", "a", "b"][m as usize].to_string()
    }

    #[test]
    fn a_node_is_32_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 32);
    }

    #[test]
    fn contexts_are_distinguished_by_path_and_line() {
        let mut t = CallingContextTree::new();
        let main = t.child(CallingContextTree::ROOT, 0, NO_LINE);
        let a1 = t.child(main, 1, 3);
        let a2 = t.child(main, 1, 4);
        assert_ne!(a1, a2);
        assert_eq!(t.child(main, 1, 3), a1);
        let b = t.child(a1, 2, 9);
        t.node_mut(b).calls += 5;
        assert_eq!(t.node(b).parent, a1);
        assert_eq!(t.len(), 5);
    }

    #[test]
    fn merge_sums_matching_paths() {
        let mut x = CallingContextTree::new();
        let m = x.child(0, 0, NO_LINE);
        let a = x.child(m, 1, 3);
        x.node_mut(a).calls = 2;
        let mut y = CallingContextTree::new();
        let m2 = y.child(0, 0, NO_LINE);
        let b = y.child(m2, 2, 5);
        y.node_mut(b).calls = 7;
        let a2 = y.child(m2, 1, 3);
        y.node_mut(a2).calls = 1;
        x.merge(&y);
        let flat = x.to_flat(names);
        let calls: Vec<_> = flat
            .iter()
            .map(|n| (n.method.as_str(), n.line, n.calls, n.parent))
            .collect();
        assert_eq!(
            calls,
            vec![
                ("<root>", None, 0, None),
                ("main", None, 0, Some(0)),
                ("a", Some(3), 3, Some(1)),
                ("b", Some(5), 7, Some(1)),
            ]
        );
    }

    #[test]
    fn detached_subtrees_stay_distinct_when_merged() {
        let mut x = CallingContextTree::new();
        let d = x.detached();
        let r1 = x.fresh_child(d, 1, NO_LINE);
        let r2 = x.fresh_child(d, 1, NO_LINE);
        assert_ne!(r1, r2, "a fresh child is never looked up");
        assert_eq!(x.detached(), d);
        let b = x.child(r1, 2, 5);
        x.node_mut(b).calls = 3;
        let mut run = CallingContextTree::new();
        run.merge(&x);
        run.merge(&x);
        let flat = run.to_flat(names);
        let shape: Vec<_> = flat
            .iter()
            .map(|n| (n.method.as_str(), n.calls, n.parent))
            .collect();
        // Two merges of two detached roots each: four roots under one
        // <detached>; the b below each r1 keeps its own count.
        assert_eq!(shape[1], ("<detached>", 0, Some(0)));
        assert_eq!(shape.iter().filter(|s| s.0 == "a").count(), 4);
        assert_eq!(
            shape
                .iter()
                .filter(|s| s.0 == "b")
                .map(|s| s.1)
                .sum::<u64>(),
            6
        );
        assert!(shape.iter().filter(|s| s.0 == "a").all(|s| s.2 == Some(1)));
    }

    #[test]
    fn deep_trees_flatten_without_recursion() {
        let mut t = CallingContextTree::new();
        let mut cur = t.child(0, 0, NO_LINE);
        for _ in 0..200_000 {
            cur = t.child(cur, 1, 7);
        }
        let flat = t.to_flat(names);
        assert_eq!(flat.len(), 200_002);
        assert_eq!(flat[200_001].parent, Some(200_000));
    }
}
