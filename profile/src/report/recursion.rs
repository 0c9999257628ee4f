//! Recursion collapsed, so that a very deep calling-context tree makes a
//! report of bounded size (issue 35, item 3). A stack overflow at the
//! default `--max-frames` leaves a tree 100,000 levels deep, and every
//! format that writes a context's whole path (folded lines, speedscope's
//! stacks, the flame graph drawn from folded lines) grows with the square
//! of the depth: 10 GB of folded lines for that one tree.
//!
//! Collapsing recursion, as flame-graph tools do with direct recursion,
//! keeps each method at most once on a path: a context whose method is
//! already on its path is merged into the nearest such ancestor (its
//! `self` and `calls` added there), and its callees hang from that
//! ancestor; siblings that come to have the same method and call-site
//! line are merged. Every weight is kept (the totals do not change), and
//! no path is longer than the number of distinct methods, so the formats
//! stay linear in the size of the tree. What is lost is which level of a
//! recursion a weight was taken at.
//!
//! `vm report` collapses a tree deeper than [`AUTO_DEPTH`] levels by
//! default (`--collapse-recursion=auto`), and says so on stderr;
//! `always` and `never` choose for every tree.

use std::collections::HashMap;

use crate::{CctNode, MethodName};

/// Trees deeper than this are collapsed under `--collapse-recursion=auto`.
pub const AUTO_DEPTH: usize = 1000;

/// The depth of the tree `cct` (a profile's list, each parent before its
/// children, the root first): the most contexts on one path below the
/// root. 0 for an empty tree or a lone root.
pub fn depth(cct: &[CctNode]) -> usize {
    let index = positions(cct);
    // u32: a tree of millions of contexts is read for every report.
    let mut level = vec![0u32; cct.len()];
    let mut deepest = 0;
    for (i, n) in cct.iter().enumerate() {
        if let Some(p) = n.parent.and_then(|p| index.get(p)) {
            level[i] = level[p].saturating_add(1);
            deepest = deepest.max(level[i]);
        }
    }
    deepest as usize
}

/// The tree `cct` with recursion collapsed (see the module's doc): a new
/// list, ids its positions, each parent before its children.
pub fn collapse(cct: &[CctNode]) -> Vec<CctNode> {
    let index = positions(cct);
    let mut out: Vec<CctNode> = Vec::with_capacity(cct.len().min(1 << 16));
    // The output context each input context went to.
    let mut went = vec![0u32; cct.len()];
    // An output context's child by (parent, method, line).
    let mut child: HashMap<(u32, MethodName, Option<u32>), u32> = HashMap::new();
    for (i, n) in cct.iter().enumerate() {
        let parent = n.parent.and_then(|p| index.get(p)).map(|p| went[p]);
        let Some(parent) = parent else {
            // The root (or a context whose parent is unknown: the root's).
            if out.is_empty() {
                out.push(CctNode {
                    id: 0,
                    parent: None,
                    ..n.clone()
                });
            } else {
                add(&mut out[0], n);
            }
            went[i] = 0;
            continue;
        };
        let target = match ancestor_with(&out, parent, &n.method) {
            Some(a) => a,
            None => *child
                .entry((parent, n.method.clone(), n.line))
                .or_insert_with(|| {
                    out.push(CctNode {
                        id: out.len() as u64,
                        parent: Some(u64::from(parent)),
                        method: n.method.clone(),
                        line: n.line,
                        calls: 0,
                        self_: 0,
                        cycles: None,
                    });
                    (out.len() - 1) as u32
                }),
        };
        add(&mut out[target as usize], n);
        went[i] = target;
    }
    out
}

/// The nearest context from `from` up (itself included, the root not)
/// whose method is `method`. Paths of the collapsed tree hold each method
/// once, so this walks at most as many steps as there are methods.
fn ancestor_with(out: &[CctNode], from: u32, method: &MethodName) -> Option<u32> {
    let mut at = from;
    loop {
        let n = &out[at as usize];
        let parent = n.parent?;
        if n.method == *method {
            return Some(at);
        }
        at = parent as u32;
    }
}

/// Adds `n`'s weights to `into`.
fn add(into: &mut CctNode, n: &CctNode) {
    into.self_ = into.self_.saturating_add(n.self_);
    into.calls = into.calls.saturating_add(n.calls);
    if let Some(c) = n.cycles {
        into.cycles = Some(into.cycles.unwrap_or(0).saturating_add(c));
    }
}

/// Where each id stands in the list.
enum Positions {
    /// Ids are the positions (as the profiler writes them).
    Sequential(usize),
    Mapped(HashMap<u64, usize>),
}

impl Positions {
    fn get(&self, id: u64) -> Option<usize> {
        match self {
            Positions::Sequential(n) => usize::try_from(id).ok().filter(|&i| i < *n),
            Positions::Mapped(m) => m.get(&id).copied(),
        }
    }
}

fn positions(cct: &[CctNode]) -> Positions {
    if cct.iter().enumerate().all(|(i, c)| c.id == i as u64) {
        Positions::Sequential(cct.len())
    } else {
        Positions::Mapped(cct.iter().enumerate().map(|(i, c)| (c.id, i)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, parent: Option<u64>, method: &str, line: u32, self_: u64) -> CctNode {
        CctNode {
            id,
            parent,
            method: method.into(),
            line: parent.map(|_| line),
            calls: 1,
            self_,
            cycles: None,
        }
    }

    /// `<root>` -> main -> f -> f -> ... (`levels` f's), each with weight 1.
    fn chain(levels: u64) -> Vec<CctNode> {
        let mut v = vec![
            node(0, None, "<root>", 0, 0),
            node(1, Some(0), "main", 0, 1),
        ];
        for i in 0..levels {
            v.push(node(i + 2, Some(i + 1), "f", 7, 1));
        }
        v
    }

    fn paths(cct: &[CctNode]) -> Vec<(String, u64, u64)> {
        let mut v: Vec<_> = cct
            .iter()
            .map(|n| {
                let mut names = vec![n.method.to_string()];
                let mut at = n.parent;
                while let Some(p) = at {
                    names.push(cct[p as usize].method.to_string());
                    at = cct[p as usize].parent;
                }
                names.reverse();
                (names.join(";"), n.self_, n.calls)
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn direct_recursion_becomes_one_context_with_every_weight() {
        let cct = chain(100_000);
        assert_eq!(depth(&cct), 100_001);
        let c = collapse(&cct);
        assert_eq!(depth(&c), 2);
        assert_eq!(
            paths(&c),
            [
                ("<root>".into(), 0, 1),
                ("<root>;main".into(), 1, 1),
                ("<root>;main;f".into(), 100_000, 100_000),
            ]
        );
    }

    #[test]
    fn mutual_recursion_keeps_each_method_once_on_a_path() {
        // main -> a -> b -> a -> b -> c, and main -> c
        let cct = vec![
            node(0, None, "<root>", 0, 0),
            node(1, Some(0), "main", 0, 1),
            node(2, Some(1), "a", 3, 2),
            node(3, Some(2), "b", 4, 3),
            node(4, Some(3), "a", 5, 4),
            node(5, Some(4), "b", 4, 5),
            node(6, Some(5), "c", 9, 6),
            node(7, Some(1), "c", 8, 7),
        ];
        let c = collapse(&cct);
        assert_eq!(
            paths(&c),
            [
                ("<root>".into(), 0, 1),
                ("<root>;main".into(), 1, 1),
                ("<root>;main;a".into(), 6, 2),
                ("<root>;main;a;b".into(), 8, 2),
                ("<root>;main;a;b;c".into(), 6, 1),
                ("<root>;main;c".into(), 7, 1),
            ]
        );
        let sum = |v: &[CctNode]| v.iter().map(|n| n.self_).sum::<u64>();
        assert_eq!(sum(&c), sum(&cct));
    }

    #[test]
    fn a_tree_without_recursion_is_unchanged() {
        let cct = vec![
            node(10, None, "<root>", 0, 0),
            node(11, Some(10), "main", 0, 1),
            node(12, Some(11), "a", 3, 2),
            node(13, Some(11), "b", 4, 3),
            node(14, Some(13), "a", 5, 4),
        ];
        let c = collapse(&cct);
        assert_eq!(depth(&cct), 3);
        let renumbered: Vec<_> = cct
            .iter()
            .map(|n| CctNode {
                id: n.id - 10,
                parent: n.parent.map(|p| p - 10),
                ..n.clone()
            })
            .collect();
        assert_eq!(paths(&c), paths(&renumbered));
    }
}
