//! The calling-context tree of a profile's `cct`, indexed for walking
//! without recursion (trees thousands of levels deep are no problem), and
//! its pruned form for the formats that draw it.
//!
//! A context's *weight* is its `self` (samples, or instructions for an
//! exhaustive profile, with the context on top); its *total* adds the
//! weights of every context below it. Pruning keeps a context when its
//! total is at least `min_percent` of the whole tree's and its parent is
//! kept; the totals of a kept context's children that are not kept become
//! one `(other)` child, so every box still adds up.

use std::collections::HashMap;
use std::io::{self, Write};

use crate::CctNode;

/// The name of the box that stands for a parent's pruned children.
pub const OTHER: &str = "(other)";

/// A `cct` section with each node's children and total weight.
pub struct Full<'a> {
    /// The nodes as listed in the profile (the root first).
    pub cct: &'a [CctNode],
    /// `kids[offsets[i]..offsets[i + 1]]` are node `i`'s children, in file
    /// order.
    offsets: Vec<u32>,
    kids: Vec<u32>,
    /// Each node's own weight (its `self`, or its `calls` for
    /// [`Full::by_calls`]).
    pub own: Vec<u64>,
    /// Each node's own weight plus that of all its descendants.
    pub total: Vec<u64>,
}

impl<'a> Full<'a> {
    /// Indexes `cct`, which must list each parent before its children, the
    /// root first (as [`crate::Profile::from_json`] checks); a node whose
    /// parent is unknown is treated as a child of the root.
    pub fn new(cct: &'a [CctNode]) -> Full<'a> {
        Full::build(cct, |c| c.self_)
    }

    /// As [`Full::new`], each context weighted by its `calls` instead (the
    /// weight the context metrics compare: where a sample's call counts
    /// are wrong).
    pub fn by_calls(cct: &'a [CctNode]) -> Full<'a> {
        Full::build(cct, |c| if c.parent.is_some() { c.calls } else { 0 })
    }

    fn build(cct: &'a [CctNode], weight: impl Fn(&CctNode) -> u64) -> Full<'a> {
        let n = cct.len();
        // Ids are usually the positions: no map needed then.
        let sequential = cct.iter().enumerate().all(|(i, c)| c.id == i as u64);
        let map: HashMap<u64, u32> = if sequential {
            HashMap::new()
        } else {
            cct.iter()
                .enumerate()
                .map(|(i, c)| (c.id, i as u32))
                .collect()
        };
        let index = |id: u64| -> u32 {
            if sequential {
                if (id as usize) < n {
                    id as u32
                } else {
                    0
                }
            } else {
                map.get(&id).copied().unwrap_or(0)
            }
        };
        let parent: Vec<Option<u32>> = cct.iter().map(|c| c.parent.map(index)).collect();
        let mut offsets = vec![0u32; n + 1];
        for p in parent.iter().flatten() {
            offsets[*p as usize + 1] += 1;
        }
        for i in 0..n {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut kids = vec![0u32; offsets[n] as usize];
        for (i, p) in parent.iter().enumerate() {
            if let Some(p) = p {
                kids[fill[*p as usize] as usize] = i as u32;
                fill[*p as usize] += 1;
            }
        }
        let own: Vec<u64> = cct.iter().map(weight).collect();
        let mut total = own.clone();
        // Children come after their parents: one backward pass adds up.
        for i in (0..n).rev() {
            if let Some(p) = parent[i] {
                if p as usize != i {
                    total[p as usize] = total[p as usize].saturating_add(total[i]);
                }
            }
        }
        Full {
            cct,
            offsets,
            kids,
            own,
            total,
        }
    }

    /// The children of node `i`.
    pub fn children(&self, i: usize) -> &[u32] {
        &self.kids[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// The weight of the whole tree.
    pub fn grand_total(&self) -> u64 {
        if self.cct.is_empty() {
            0
        } else {
            self.total[0]
        }
    }

    /// Writes one collapsed-stack line (`main;A;B 42`) per context whose
    /// self weight is not 0, depth first, as it goes: nothing but the
    /// current path is held.
    pub fn write_folded(&self, w: &mut dyn Write) -> io::Result<()> {
        if self.cct.is_empty() {
            return Ok(());
        }
        let mut path: Vec<u8> = Vec::new();
        let mut stack: Vec<(u32, usize)> = self
            .children(0)
            .iter()
            .rev()
            .map(|&c| (c, 0usize))
            .collect();
        while let Some((i, len)) = stack.pop() {
            let node = &self.cct[i as usize];
            path.truncate(len);
            if len > 0 {
                path.push(b';');
            }
            path.extend_from_slice(node.method.as_bytes());
            let own = self.own[i as usize];
            if own > 0 {
                super::folded::line(w, &path, own)?;
            }
            let here = path.len();
            stack.extend(self.children(i as usize).iter().rev().map(|&c| (c, here)));
        }
        Ok(())
    }

    /// The tree pruned at `min_percent` (0 keeps every context with weight).
    pub fn prune(&self, min_percent: f64) -> Pruned {
        let grand = self.grand_total();
        let keep = |t: u64| t > 0 && t as f64 * 100.0 >= min_percent * grand as f64;
        let mut nodes = vec![PNode {
            method: "<root>".into(),
            line: None,
            self_: self.own.first().copied().unwrap_or(0),
            total: grand,
            calls: 0,
            children: Vec::new(),
            other: false,
        }];
        let mut pruned_contexts = 0u64;
        if self.cct.is_empty() {
            return Pruned {
                nodes,
                pruned_contexts,
            };
        }
        // (index in `cct`, index in `nodes`)
        let mut stack = vec![(0usize, 0usize)];
        while let Some((i, pi)) = stack.pop() {
            let mut other = 0u64;
            for &c in self.children(i) {
                let c = c as usize;
                let t = self.total[c];
                if keep(t) {
                    let n = &self.cct[c];
                    let id = nodes.len();
                    nodes.push(PNode {
                        method: n.method.to_string(),
                        line: n.line,
                        self_: self.own[c],
                        total: t,
                        calls: n.calls,
                        children: Vec::new(),
                        other: false,
                    });
                    nodes[pi].children.push(id);
                    stack.push((c, id));
                } else if t > 0 {
                    other += t;
                    pruned_contexts += 1;
                }
            }
            if other > 0 {
                let id = nodes.len();
                nodes.push(PNode {
                    method: OTHER.into(),
                    line: None,
                    self_: other,
                    total: other,
                    calls: 0,
                    children: Vec::new(),
                    other: true,
                });
                nodes[pi].children.push(id);
            }
        }
        Pruned {
            nodes,
            pruned_contexts,
        }
    }
}

/// One box of a [`Pruned`] tree.
#[derive(Clone, Debug, PartialEq)]
pub struct PNode {
    /// The method, [`OTHER`] for pruned children, `<root>` for the root.
    pub method: String,
    /// The call-site line in the parent's method.
    pub line: Option<u32>,
    /// The context's own weight (`self`, or `calls` for
    /// [`Full::by_calls`]; for `(other)`: the pruned totals).
    pub self_: u64,
    /// `self_` plus everything below.
    pub total: u64,
    /// Calls into the context, as in the profile (0 for `(other)`).
    pub calls: u64,
    /// Indexes of the children in [`Pruned::nodes`].
    pub children: Vec<usize>,
    /// This box stands for pruned contexts.
    pub other: bool,
}

/// A context tree cut at a share of its total; node 0 is the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Pruned {
    /// The kept contexts, parents before children.
    pub nodes: Vec<PNode>,
    /// How many subtrees were folded into `(other)` boxes.
    pub pruned_contexts: u64,
}

impl Pruned {
    /// Visits every node but the root depth first, with its path of
    /// methods from the entry method down (root excluded).
    pub fn walk(&self, mut f: impl FnMut(usize, &[usize])) {
        let mut path: Vec<usize> = Vec::new();
        let mut stack: Vec<(usize, usize)> = self.nodes[0]
            .children
            .iter()
            .rev()
            .map(|&c| (c, 0))
            .collect();
        while let Some((i, depth)) = stack.pop() {
            path.truncate(depth);
            path.push(i);
            f(i, &path);
            let d = path.len();
            stack.extend(self.nodes[i].children.iter().rev().map(|&c| (c, d)));
        }
    }

    /// Collapsed stacks of the pruned tree, one line per box with weight.
    pub fn folded(&self) -> String {
        let mut out = String::new();
        self.walk(|i, path| {
            let n = &self.nodes[i];
            if n.self_ > 0 {
                let names: Vec<&str> = path
                    .iter()
                    .map(|&j| self.nodes[j].method.as_str())
                    .collect();
                out.push_str(&names.join(";"));
                out.push(' ');
                out.push_str(&n.self_.to_string());
                out.push('\n');
            }
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, parent: Option<u64>, method: &str, self_: u64) -> CctNode {
        CctNode {
            id,
            parent,
            method: method.into(),
            line: parent.map(|_| 3),
            calls: 1,
            self_,
            cycles: None,
        }
    }

    fn sample() -> Vec<CctNode> {
        vec![
            node(0, None, "<root>", 0),
            node(1, Some(0), "main", 10),
            node(2, Some(1), "A", 880),
            node(3, Some(2), "B", 100),
            node(4, Some(1), "C", 5),
            node(5, Some(4), "D", 5),
        ]
    }

    #[test]
    fn folded_lines_name_the_path_and_the_self_weight() {
        let cct = sample();
        let full = Full::new(&cct);
        assert_eq!(full.grand_total(), 1000);
        assert_eq!(full.total[1], 1000);
        assert_eq!(full.total[4], 10);
        let mut out = Vec::new();
        full.write_folded(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "main 10\nmain;A 880\nmain;A;B 100\nmain;C 5\nmain;C;D 5\n"
        );
    }

    #[test]
    fn pruning_folds_small_subtrees_into_one_other_box_per_parent() {
        let cct = sample();
        let full = Full::new(&cct);
        // C's subtree is 1% of the total (D alone 0.5%): cut at 2%, kept at 0.5%.
        let p = full.prune(2.0);
        assert_eq!(
            p.folded(),
            "main 10\nmain;A 880\nmain;A;B 100\nmain;(other) 10\n"
        );
        assert_eq!(p.pruned_contexts, 1);
        let p = full.prune(0.5);
        assert_eq!(p.pruned_contexts, 0);
        assert!(p.folded().contains("main;C;D 5"));
        // Weighted by calls (1 each, the root none): A's and C's subtrees
        // are 2 of 5 each, cut at 50%, kept at 40% (B and D, 1 of 5, not).
        let calls = Full::by_calls(&cct);
        assert_eq!(calls.grand_total(), 5);
        assert_eq!(calls.prune(50.0).folded(), "main 1\nmain;(other) 4\n");
        assert_eq!(
            calls.prune(40.0).folded(),
            "main 1\nmain;A 1\nmain;A;(other) 1\nmain;C 1\nmain;C;(other) 1\n"
        );
        // Every weight is still there.
        let sum: u64 = p.nodes.iter().skip(1).map(|n| n.self_).sum();
        assert_eq!(sum, 1000);
    }

    #[test]
    fn ids_that_are_not_positions_are_mapped() {
        let mut cct = sample();
        for n in &mut cct {
            n.id += 100;
            n.parent = n.parent.map(|p| p + 100);
        }
        let full = Full::new(&cct);
        assert_eq!(full.total[2], 980);
        assert_eq!(full.children(1), &[2, 4]);
    }
}
