//! The average calling context tree of several runs (Hofer et al. 2015,
//! section 7.3), built offline from the profiles.
//!
//! The paper merges the CCTs of all iterations of a benchmark into one:
//! "This merged CCT contains all edges that exist in any of the CCTs, with
//! edge weights that are the sum of the relative edge weights from all
//! CCTs. The merged CCT is thus really the average over all individual
//! CCTs." Here a context is what the `profile` crate's metrics call one: its
//! path of `(method, line)` from the root. Each run's `calls` are divided by
//! that run's total (its relative weights, summing to 1), the relative
//! weights of a context are summed over the runs and divided by the number
//! of runs, and the result is written as `calls` in parts per
//! [`SCALE`] (integers, as the profile format wants). A run whose tree has
//! no calls at all has no relative weights and is left out of the average
//! (and of its count). Every context of every run is in the average, with
//! 0 calls if its share rounds to nothing, so the metrics' "listed at all"
//! still sees it.

use std::collections::HashMap;

use profile::{CctNode, ConfigSection, Profile, RunSection, FORMAT};

/// The average's `calls` are shares in parts per `SCALE`.
pub const SCALE: f64 = 1e9;

/// The average CCT of `runs` (see the module's documentation); its
/// `config.profile` is `average`, `run.samples` the number of runs that
/// went into it.
pub fn average(runs: &[&Profile]) -> Profile {
    let mut tree = Tree::default();
    let mut counted = 0u64;
    for p in runs {
        if tree.add(p.cct.as_deref().unwrap_or_default()) {
            counted += 1;
        }
    }
    let div = counted.max(1) as f64;
    let cct = tree
        .nodes
        .iter()
        .zip(&tree.weight)
        .map(|(n, &(calls, self_))| CctNode {
            calls: (calls / div * SCALE).round() as u64,
            self_: (self_ / div * SCALE).round() as u64,
            ..n.clone()
        })
        .collect();
    Profile {
        format: FORMAT.into(),
        program: runs.first().map(|p| p.program.clone()).unwrap_or_default(),
        config: ConfigSection {
            profile: "average".into(),
            ..Default::default()
        },
        run: RunSection {
            samples: counted,
            ..Default::default()
        },
        methods: None,
        dcg: None,
        cct: Some(cct),
        hot: None,
    }
}

/// The merged tree being built: nodes (root first, parents before
/// children) and each node's summed relative `calls` and `self`.
struct Tree {
    nodes: Vec<CctNode>,
    weight: Vec<(f64, f64)>,
    /// `(parent index, method, line)` to node index.
    index: HashMap<(usize, String, Option<u32>), usize>,
}

/// A tree's root: node 0, `<root>`, no calls.
fn root() -> CctNode {
    CctNode {
        id: 0,
        parent: None,
        method: "<root>".into(),
        line: None,
        calls: 0,
        self_: 0,
        cycles: None,
    }
}

impl Default for Tree {
    fn default() -> Tree {
        Tree {
            nodes: vec![root()],
            weight: vec![(0.0, 0.0)],
            index: HashMap::new(),
        }
    }
}

impl Tree {
    /// Adds one run's relative weights; false (and nothing added) when it
    /// has no calls. A node whose parent is not listed before it (never in
    /// a profile that was read) is skipped with its subtree.
    fn add(&mut self, cct: &[CctNode]) -> bool {
        let total: u64 = cct
            .iter()
            .filter(|n| n.parent.is_some())
            .map(|n| n.calls)
            .sum();
        if total == 0 {
            return false;
        }
        let total_self: u64 = cct
            .iter()
            .filter(|n| n.parent.is_some())
            .map(|n| n.self_)
            .sum();
        let mut of_id: HashMap<u64, usize> = HashMap::with_capacity(cct.len());
        for n in cct {
            let at = match n.parent {
                None => 0,
                Some(p) => {
                    let Some(&parent) = of_id.get(&p) else {
                        continue;
                    };
                    let at = self.node(parent, &n.method, n.line);
                    self.weight[at].0 += n.calls as f64 / total as f64;
                    if total_self > 0 {
                        self.weight[at].1 += n.self_ as f64 / total_self as f64;
                    }
                    at
                }
            };
            of_id.insert(n.id, at);
        }
        true
    }

    /// The index of the node `(parent, method, line)`, made if new.
    fn node(&mut self, parent: usize, method: &str, line: Option<u32>) -> usize {
        let key = (parent, method.to_string(), line);
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.nodes.len();
        self.nodes.push(CctNode {
            id: i as u64,
            parent: Some(parent as u64),
            method: method.into(),
            line,
            calls: 0,
            self_: 0,
            cycles: None,
        });
        self.weight.push((0.0, 0.0));
        self.index.insert(key, i);
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use profile::metrics::{cct_overlap, hot_edge_coverage, Metric};

    /// A profile with nodes `(id, parent, method, line, calls)` under a
    /// root 0.
    fn tree(nodes: &[(u64, u64, &str, Option<u32>, u64)]) -> Profile {
        let mut p = average(&[]);
        p.cct = Some(
            std::iter::once(root())
                .chain(
                    nodes
                        .iter()
                        .map(|&(id, parent, method, line, calls)| CctNode {
                            id,
                            parent: Some(parent),
                            method: method.into(),
                            line,
                            calls,
                            self_: calls,
                            cycles: None,
                        }),
                )
                .collect(),
        );
        p
    }

    fn calls_of(p: &Profile, method: &str) -> u64 {
        p.cct
            .as_ref()
            .unwrap()
            .iter()
            .filter(|n| n.method == method)
            .map(|n| n.calls)
            .sum()
    }

    #[test]
    fn the_average_is_the_mean_of_the_relative_weights() {
        // A: main 1, main>f@5 3 (total 4): 0.25, 0.75.
        // B: main 2, main>g@6 2 (total 4): 0.5, 0.5; and a duplicate
        // main>g@6 node with 0 calls, merged by path.
        // Average: main 0.375, f 0.375, g 0.25.
        let a = tree(&[(1, 0, "main", None, 1), (2, 1, "f", Some(5), 3)]);
        let b = tree(&[
            (7, 0, "main", None, 2),
            (8, 7, "g", Some(6), 2),
            (9, 7, "g", Some(6), 0),
        ]);
        let avg = average(&[&a, &b]);
        assert_eq!(calls_of(&avg, "main"), 375_000_000);
        assert_eq!(calls_of(&avg, "f"), 375_000_000);
        assert_eq!(calls_of(&avg, "g"), 250_000_000);
        assert_eq!(avg.cct.as_ref().unwrap().len(), 4, "root, main, f, g");
        assert_eq!(avg.run.samples, 2);
        // Against A: min(.375, .25) + min(.375, .75) = 62.5.
        assert_eq!(cct_overlap(&avg, &a), Metric::Value(62.5));
        // The average lists every context of every run: it covers each
        // run's hot contexts completely.
        assert_eq!(hot_edge_coverage(&avg, &a), Metric::Value(100.0));
        assert_eq!(hot_edge_coverage(&avg, &b), Metric::Value(100.0));
        // A finds main and f of the average's hot contexts, not g: 2 of 3.
        let got = hot_edge_coverage(&a, &avg).value().unwrap();
        assert!((got - 200.0 / 3.0).abs() < 1e-9, "{got}");
    }

    #[test]
    fn identical_runs_average_to_themselves_and_empty_runs_do_not_count() {
        let a = tree(&[(1, 0, "main", None, 3), (2, 1, "f", Some(5), 7)]);
        let empty = tree(&[(1, 0, "main", None, 0)]);
        let avg = average(&[&a, &a.clone(), &empty]);
        assert_eq!(avg.run.samples, 2);
        assert_eq!(cct_overlap(&avg, &a), Metric::Value(100.0));
        assert_eq!(calls_of(&avg, "f"), 700_000_000);
        // Root, main, f: the empty run added nothing.
        assert_eq!(avg.cct.as_ref().unwrap().len(), 3);
    }

    #[test]
    fn contexts_are_paths_not_methods() {
        // g under f and g under main are two contexts.
        let a = tree(&[
            (1, 0, "main", None, 0),
            (2, 1, "f", Some(5), 0),
            (3, 2, "g", Some(9), 1),
            (4, 1, "g", Some(9), 1),
        ]);
        let avg = average(&[&a]);
        let nodes = avg.cct.as_ref().unwrap();
        assert_eq!(nodes.len(), 5);
        let gs: Vec<&CctNode> = nodes.iter().filter(|n| n.method == "g").collect();
        assert_eq!(gs.len(), 2);
        assert_ne!(gs[0].parent, gs[1].parent);
        assert!(gs.iter().all(|n| n.calls == 500_000_000));
    }
}
