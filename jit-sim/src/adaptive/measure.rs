//! What the profile says after a recompilation.
//!
//! The model ([`super::model`]) predicts a saving before the method is
//! recompiled. Afterwards the profile can be asked where the samples went.
//! The *region* of a recompiled method `m` is `m` itself and every callee
//! the inliner folded into it (nested inlines too), each callee counted by
//! the share of its calls that came through the inlined edges. The report
//! gives the region's share of the method samples before the installation
//! (the profile as the controller read it then) and after it (what the
//! profile grew by until the end).
//!
//! That share is what is measured, not the time saved: which method a
//! sample is credited to follows the profile's rules (a timer tick is
//! noticed at the next yieldpoint, and at a prologue it is the caller's),
//! and inlining removes the callees' yieldpoints, so the share moves for
//! that reason too. What a recompilation saved in time is measured from
//! the cycles each version of the method's code spent per call, which the
//! VM counts when it counts cycles ([`super::saving`]).

use std::collections::{BTreeMap, HashMap};

use profiler::dcg::{DynamicCallGraph, EdgeWeightMap};
use vm::module::{MethodId, Module};

use crate::inline::CallSite;
use crate::policy::EdgeWeights;

/// Inlined edges per calling method: `(site, callee)`.
pub type InlinedTree = BTreeMap<MethodId, Vec<(CallSite, MethodId)>>;

/// How deep nested inlines are followed (the inliner's own depth limit is
/// lower).
const MAX_DEPTH: usize = 16;

/// Samples of `dcg` spent in the region of `root`: its own samples, and
/// those of each callee inlined into it, through the inlined edges, in the
/// share of the callee's calls that came through them.
pub fn region_samples(
    module: &Module,
    tree: &InlinedTree,
    root: MethodId,
    dcg: &DynamicCallGraph,
) -> f64 {
    let weights = EdgeWeights::from_dcg(module, dcg);
    let mut frac: HashMap<MethodId, f64> = HashMap::new();
    let mut path = vec![root];
    spread(tree, root, 1.0, dcg, &weights, &mut frac, &mut path);
    frac.iter()
        .map(|(&m, &f)| f * dcg.self_.get(m as usize).copied().unwrap_or(0) as f64)
        .sum()
}

fn spread(
    tree: &InlinedTree,
    m: MethodId,
    share: f64,
    dcg: &DynamicCallGraph,
    weights: &EdgeWeights,
    frac: &mut HashMap<MethodId, f64>,
    path: &mut Vec<MethodId>,
) {
    *frac.entry(m).or_insert(0.0) += share;
    if path.len() > MAX_DEPTH {
        return;
    }
    for &(site, callee) in tree.get(&m).map_or(&[][..], Vec::as_slice) {
        if path.contains(&callee) {
            continue;
        }
        let calls = dcg.calls.get(callee as usize).copied().unwrap_or(0);
        if calls == 0 {
            continue;
        }
        let through = weights.edge(site, callee).min(calls) as f64 / calls as f64;
        if through > 0.0 {
            path.push(callee);
            spread(tree, callee, share * through, dcg, weights, frac, path);
            path.pop();
        }
    }
}

/// Is `inner` inside the region of `outer` (reachable over inlined edges)?
pub fn in_region(tree: &InlinedTree, outer: MethodId, inner: MethodId) -> bool {
    let mut stack = vec![(outer, 0usize)];
    let mut seen = vec![outer];
    while let Some((m, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            continue;
        }
        for &(_, c) in tree.get(&m).map_or(&[][..], Vec::as_slice) {
            if c == inner && outer != inner {
                return true;
            }
            if !seen.contains(&c) {
                seen.push(c);
                stack.push((c, depth + 1));
            }
        }
    }
    false
}

/// What the profile grew by between two reads (`later` minus `earlier`).
pub fn delta(later: &DynamicCallGraph, earlier: &DynamicCallGraph) -> DynamicCallGraph {
    let sub = |a: &[u64], b: &[u64]| -> Vec<u64> {
        a.iter()
            .enumerate()
            .map(|(i, &x)| x.saturating_sub(b.get(i).copied().unwrap_or(0)))
            .collect()
    };
    let mut edges = EdgeWeightMap::default();
    for (&k, &w) in &later.edges {
        let d = w.saturating_sub(earlier.edges.get(&k).copied().unwrap_or(0));
        if d > 0 {
            edges.insert(k, d);
        }
    }
    DynamicCallGraph {
        edges,
        self_: sub(&later.self_, &earlier.self_),
        calls: sub(&later.calls, &earlier.calls),
        cycles: None,
    }
}

/// The measured outcome of one recompilation.
#[derive(Clone, Debug, PartialEq)]
pub enum Measured {
    /// The region's share of the method samples, percent, before the
    /// installation and after it, over `over_ns` of running.
    Share {
        /// Share before, percent.
        before: f64,
        /// Share after, percent.
        after: f64,
        /// How long the program ran after the installation, ns.
        over_ns: f64,
    },
    /// The method's code now runs inside another recompiled method's
    /// (named), where it is measured.
    Inside(String),
    /// Nothing to compare (why).
    Unknown(String),
}

impl Measured {
    /// Compares the region of `root` before (`before`, read at the
    /// installation) and after (`after`, read at the end, `over_ns`
    /// later).
    pub fn of(
        module: &Module,
        tree: &InlinedTree,
        root: MethodId,
        before: &DynamicCallGraph,
        after: &DynamicCallGraph,
        over_ns: f64,
    ) -> Measured {
        let grown = delta(after, before);
        let s0: u64 = before.self_.iter().sum();
        let s1: u64 = grown.self_.iter().sum();
        if s0 == 0 || s1 == 0 {
            return Measured::Unknown("no samples after it was installed".into());
        }
        Measured::Share {
            before: 100.0 * region_samples(module, tree, root, before) / s0 as f64,
            after: 100.0 * region_samples(module, tree, root, &grown) / s1 as f64,
            over_ns,
        }
    }

    /// As printed in the report.
    pub fn text(&self) -> String {
        match self {
            Measured::Share {
                before,
                after,
                over_ns,
            } => format!(
                "its samples {before:.1}% -> {after:.1}% of the program's (over the {:.1}ms after)",
                over_ns / 1e6
            ),
            Measured::Inside(outer) => format!("now runs inside {outer}, which inlined it"),
            Measured::Unknown(why) => format!("not measured: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vm::verify::assemble;

    const PROGRAM: &str = "\
.method main()
  push 1
  call a
  print
  push 0
  ret
.end
.method a(x)
  load x
  call b
  ret
.end
.method b(x)
  load x
  ret
.end
";

    fn setup() -> (Module, InlinedTree, CallSite, CallSite) {
        let m = assemble("t.bc", PROGRAM).expect("assembles");
        let sites = crate::inline::call_sites(&m);
        let to_a = sites[0];
        let to_b = sites[1];
        let mut tree = InlinedTree::new();
        tree.entry(1).or_default().push((to_b, 2));
        (m, tree, to_a, to_b)
    }

    fn dcg(self_: [u64; 3], calls: [u64; 3], a_to_b: u64) -> DynamicCallGraph {
        let mut d = DynamicCallGraph::new(3);
        d.self_ = self_.to_vec();
        d.calls = calls.to_vec();
        if a_to_b > 0 {
            // `call b` is on line 10.
            d.edges.insert((1, 10, 2), a_to_b);
        }
        d
    }

    #[test]
    fn the_region_counts_inlined_callees_by_their_share_through_the_edge() {
        let (m, tree, _, _) = setup();
        // Half of b's calls come through a's inlined site.
        let d = dcg([10, 20, 40], [0, 8, 8], 4);
        assert!((region_samples(&m, &tree, 1, &d) - (20.0 + 20.0)).abs() < 1e-9);
        assert!(in_region(&tree, 1, 2));
        assert!(!in_region(&tree, 2, 1));
    }

    #[test]
    fn the_share_before_and_after_compares_the_region_with_the_whole() {
        let (m, tree, _, _) = setup();
        // Before: the region (a, and b through a) 60 of 70 samples.
        let before = dcg([10, 20, 40], [0, 8, 8], 8);
        // After: 10 more samples of main, 30 more of a (b's code now in
        // a): 30 of 40.
        let after = dcg([20, 50, 40], [0, 16, 8], 8);
        let Measured::Share {
            before: b,
            after: a,
            over_ns,
        } = Measured::of(&m, &tree, 1, &before, &after, 40e6)
        else {
            panic!("measured")
        };
        assert!((b - 100.0 * 60.0 / 70.0).abs() < 1e-9, "{b}");
        assert!((a - 75.0).abs() < 1e-9, "{a}");
        assert_eq!(over_ns, 40e6);
        // Nothing after: nothing to say.
        assert!(matches!(
            Measured::of(&m, &tree, 1, &before, &before, 1e6),
            Measured::Unknown(_)
        ));
    }
}
