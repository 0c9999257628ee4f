//! The accuracy metrics of docs/LANGUAGE.md "Accuracy metrics" (`vm compare PROFILE.json
//! REF.json`): how close one profile is to another, usually a sampled
//! profile to the exhaustive one of the same program.
//!
//! - [`dcg_overlap`] is the *overlap* metric of Arnold & Ryder, as used by
//!   Arnold & Grove ("Collecting and exploiting high-accuracy call graph
//!   profiles in virtual machines", CGO 2005, section 6.2, see
//!   see the README's bibliography):
//!   `overlap(DCG1, DCG2) = sum over the edges in both of min(Weight(e,
//!   DCG1), Weight(e, DCG2))`, each weight a percentage of its profile's
//!   total, so the result is 0 (nothing in common) to 100 (identical).
//! - [`cct_overlap`] is the same overlap over calling contexts, weighted by
//!   `calls`. Arnold & Sweeney (approximate CCTs) compare a CCT with its
//!   exact counterpart context by context, and Whaley (the partial CCT)
//!   counts two nodes as the same context when "the paths from that node to
//!   the root had nodes with the same method names in the same order"; the
//!   CC-map profiler paper uses exactly this overlap for whole trees.
//! - [`method_correlation`] is Whaley's precision measure: the Pearson
//!   correlation coefficient of the methods' `self` counts ("the
//!   covariances divided by the product of the standard deviations").
//! - [`hot_edge_coverage`]: how many of the reference's hot contexts (those
//!   with at least a tenth of the hottest context's calls) the profile found
//!   at all, the question an inliner asks of a profile.
//!
//! # Decisions the definitions leave open
//!
//! - **A missing section** (`dcg`, `cct` or `methods` absent from either
//!   file) means the metric is `None`: `vm compare` omits it.
//! - **A context is its path** of `(method, line)` pairs from the root down
//!   to it, **the root excluded**: the root is the tree's anchor, not a
//!   calling context, and its `calls` (0 by the profile format) never counts.
//!   The threads' entry methods are the first element of a path (with line
//!   `null`). Nodes with the same path are one context, their `calls`
//!   summed, before anything else (percentages, the hottest context, the
//!   threshold) is computed. Edges of `dcg` or entries of `methods` that
//!   appear twice with the same key are summed likewise.
//! - **Undefined metrics are omitted, with the reason.** Weights are
//!   normalized to percentages of their profile's total, so an overlap is
//!   undefined when either total is 0 (e.g. a program that makes no call:
//!   an empty `dcg`); a Pearson correlation is undefined when either
//!   series has no variance (one method, all methods equally hot, all
//!   zero); hot-edge coverage is undefined when the reference has no hot
//!   context (no calls at all). Such a metric is [`Metric::Undefined`]:
//!   `vm compare` leaves it out, as it leaves out a metric whose section
//!   is missing, and says on stderr why. Printing 100 or 1 for "no data"
//!   would read as a perfect score.
//! - **Hot-edge coverage.** A reference context is hot when its (summed)
//!   `calls` is > 0 and at least 0.1 × the hottest context's calls; the
//!   comparison is done in integers (`10 × calls >= hottest`), so the
//!   boundary is exact: a context with exactly a tenth of the hottest is
//!   hot. A context *exists* in the profile when its path is listed in the
//!   profile's `cct` at all, **even with `calls` 0**: a node is only written
//!   because a sample or a call passed through it (an ACCT updated with
//!   `last-edge` leaves the inner nodes of a sampled stack at 0 calls, yet
//!   the sample saw them).
//! - **A malformed tree** (a node whose parent is not listed before it:
//!   impossible for a profile that came through [`Profile::from_json`])
//!   makes the context metrics `None` rather than guessing.
//!
//! Overlaps are computed in integers as far as possible (each min is
//! `min(w1 × T2, w2 × T1)` over the common denominator `T1 × T2`), so that
//! identical profiles give exactly 100 and simple ratios exact decimals;
//! sums too large for that fall back to floating point.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::{CctNode, Profile};

/// A context is hot when `HOT_DIVISOR × calls >= hottest calls`: 0.1 × the
/// hottest (docs/LANGUAGE.md "Accuracy metrics").
pub const HOT_DIVISOR: u128 = 10;

/// One metric of one comparison.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Metric {
    /// The metric's value.
    Value(f64),
    /// A file lacks the section the metric reads (or its tree is
    /// malformed): the metric is left out without comment.
    #[default]
    Missing,
    /// Both files have the data, but the metric is not defined on it; the
    /// reason, for a note.
    Undefined(String),
}

impl Metric {
    /// The value, if the metric has one.
    pub fn value(&self) -> Option<f64> {
        match self {
            Metric::Value(v) => Some(*v),
            _ => None,
        }
    }
}

/// The four metrics of docs/LANGUAGE.md "Accuracy metrics" for one pair
/// of profiles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// [`dcg_overlap`], 0–100.
    pub dcg_overlap: Metric,
    /// [`cct_overlap`], 0–100.
    pub cct_overlap: Metric,
    /// [`method_correlation`], −1 to 1.
    pub method_correlation: Metric,
    /// [`hot_edge_coverage`], 0–100.
    pub hot_edge_coverage: Metric,
}

impl Comparison {
    /// Every metric with its documented name, in the documented order.
    fn all(&self) -> [(&'static str, &Metric); 4] {
        [
            ("dcg-overlap", &self.dcg_overlap),
            ("cct-overlap", &self.cct_overlap),
            ("method-correlation", &self.method_correlation),
            ("hot-edge-coverage", &self.hot_edge_coverage),
        ]
    }

    /// The metrics that have a value, as `(name, value)`, in the documented
    /// order.
    pub fn entries(&self) -> Vec<(&'static str, f64)> {
        self.all()
            .into_iter()
            .filter_map(|(name, m)| m.value().map(|v| (name, v)))
            .collect()
    }

    /// The metrics the files could give but that are undefined on them, as
    /// `(name, reason)`.
    pub fn undefined(&self) -> Vec<(&'static str, &str)> {
        self.all()
            .into_iter()
            .filter_map(|(name, m)| match m {
                Metric::Undefined(why) => Some((name, why.as_str())),
                _ => None,
            })
            .collect()
    }

    /// True when no metric has a value.
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// One line `name: value` per metric with a value, the value with two
    /// decimals (never `-0.00`).
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for (name, v) in self.entries() {
            let mut shown = format!("{v:.2}");
            if shown == "-0.00" {
                shown = "0.00".into();
            }
            s.push_str(name);
            s.push_str(": ");
            s.push_str(&shown);
            s.push('\n');
        }
        s
    }

    /// One JSON object (ending in a newline) with the documented names as keys
    /// and the metrics that have a value as numbers; `{}` when there is
    /// none.
    pub fn to_json(&self) -> String {
        // Written by hand to keep the documented order (a JSON map would sort).
        let fields: Vec<String> = self
            .entries()
            .into_iter()
            .map(|(name, v)| format!("\"{name}\":{}", serde_json::Value::from(v)))
            .collect();
        format!("{{{}}}\n", fields.join(","))
    }
}

/// All four metrics of `profile` against `reference`.
pub fn compare(profile: &Profile, reference: &Profile) -> Comparison {
    Comparison {
        dcg_overlap: dcg_overlap(profile, reference),
        cct_overlap: cct_overlap(profile, reference),
        method_correlation: method_correlation(profile, reference),
        hot_edge_coverage: hot_edge_coverage(profile, reference),
    }
}

/// Arnold & Ryder overlap of the two dynamic call graphs, 0–100: edges keyed
/// by `(caller, line, callee)`, weights as percentages of each profile's
/// total, the sum over the edges in both of the smaller percentage.
/// Symmetric. [`Metric::Missing`] unless both files have a `dcg` section;
/// undefined when either has no weight.
pub fn dcg_overlap(a: &Profile, b: &Profile) -> Metric {
    match (edges(a), edges(b)) {
        (Some(ea), Some(eb)) => overlap("dcg", "weight", &ea, &eb),
        _ => Metric::Missing,
    }
}

/// A profile's `dcg` weights by `(caller, line, callee)`, repeated edges
/// summed.
fn edges(p: &Profile) -> Option<BTreeMap<(&str, u32, &str), u64>> {
    let mut m: BTreeMap<(&str, u32, &str), u64> = BTreeMap::new();
    for e in p.dcg.as_ref()? {
        let w = m
            .entry((e.caller.as_str(), e.line, e.callee.as_str()))
            .or_default();
        *w = w.saturating_add(e.weight);
    }
    Some(m)
}

/// Overlap of the two calling context trees, 0–100: like [`dcg_overlap`],
/// over contexts (paths of `(method, line)` from the root, root excluded;
/// nodes with the same path summed) weighted by `calls`. Symmetric.
/// [`Metric::Missing`] unless both files have a well-formed `cct` section;
/// undefined when either has no calls.
pub fn cct_overlap(a: &Profile, b: &Profile) -> Metric {
    let trees = || {
        let (ca, cb) = (a.cct.as_ref()?, b.cct.as_ref()?);
        let mut paths = Paths::default();
        Some((paths.calls(ca)?, paths.calls(cb)?))
    };
    match trees() {
        Some((wa, wb)) => overlap("cct", "calls", &wa, &wb),
        None => Metric::Missing,
    }
}

/// Pearson correlation, −1 to 1, of the methods' `self` counts over the
/// union of the method names of both files, a method missing from one
/// counting 0 there. Symmetric. [`Metric::Missing`] unless both files
/// have a `methods` section; undefined when either series has no variance.
pub fn method_correlation(a: &Profile, b: &Profile) -> Metric {
    let (Some(ma), Some(mb)) = (a.methods.as_ref(), b.methods.as_ref()) else {
        return Metric::Missing;
    };
    let mut both: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for m in ma {
        let e = both.entry(m.name.as_str()).or_default();
        e.0 = e.0.saturating_add(m.self_);
    }
    for m in mb {
        let e = both.entry(m.name.as_str()).or_default();
        e.1 = e.1.saturating_add(m.self_);
    }
    let pairs: Vec<(u64, u64)> = both.into_values().collect();
    // No variance: every value equal (a single method or none included).
    let flat = |side: fn(&(u64, u64)) -> u64| pairs.windows(2).all(|w| side(&w[0]) == side(&w[1]));
    let (flat_a, flat_b) = (flat(|p| p.0), flat(|p| p.1));
    if flat_a || flat_b {
        let which = match (flat_a, flat_b) {
            (true, true) => "each file",
            (true, false) => "the profile",
            _ => "the reference",
        };
        return Metric::Undefined(format!(
            "in {which} the methods' self counts are all equal (no variance), so a correlation is undefined"
        ));
    }
    // Equal shares (x / ta == y / tb for every method, tested without
    // division): exactly 1, which floating point might miss by an ulp.
    let ta: u128 = pairs.iter().map(|p| p.0 as u128).sum();
    let tb: u128 = pairs.iter().map(|p| p.1 as u128).sum();
    let equal = pairs.iter().all(|&(x, y)| {
        match ((x as u128).checked_mul(tb), (y as u128).checked_mul(ta)) {
            (Some(l), Some(r)) => l == r,
            _ => false,
        }
    });
    if equal {
        return Metric::Value(1.0);
    }
    let n = pairs.len() as f64;
    let mean_a = pairs.iter().map(|p| p.0 as f64).sum::<f64>() / n;
    let mean_b = pairs.iter().map(|p| p.1 as f64).sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0f64, 0.0f64, 0.0f64);
    for &(x, y) in &pairs {
        let (dx, dy) = (x as f64 - mean_a, y as f64 - mean_b);
        sab += dx * dy;
        saa += dx * dx;
        sbb += dy * dy;
    }
    Metric::Value((sab / (saa * sbb).sqrt()).clamp(-1.0, 1.0))
}

/// Of `reference`'s hot contexts (summed `calls` > 0 and at least 0.1 × its
/// hottest context's), the percentage, 0–100, whose path is listed in
/// `profile`'s `cct` (with any `calls`, 0 included). Not symmetric.
/// [`Metric::Missing`] unless both files have a well-formed `cct` section;
/// undefined when the reference has no hot context.
pub fn hot_edge_coverage(profile: &Profile, reference: &Profile) -> Metric {
    let trees = || {
        let (cp, cr) = (profile.cct.as_ref()?, reference.cct.as_ref()?);
        let mut paths = Paths::default();
        let wr = paths.calls(cr)?;
        let present: BTreeSet<u32> = paths.contexts(cp)?.into_iter().flatten().collect();
        Some((wr, present))
    };
    let Some((wr, present)) = trees() else {
        return Metric::Missing;
    };
    let hottest = wr.values().copied().max().unwrap_or(0) as u128;
    let hot: Vec<u32> = wr
        .iter()
        .filter(|&(_, &c)| c > 0 && HOT_DIVISOR * c as u128 >= hottest)
        .map(|(&k, _)| k)
        .collect();
    if hot.is_empty() {
        return Metric::Undefined(
            "the reference's cct has no calls, so no hot context to find".into(),
        );
    }
    let found = hot.iter().filter(|k| present.contains(k)).count();
    Metric::Value(found as f64 * 100.0 / hot.len() as f64)
}

/// The overlap of two weight maps, 0–100; undefined when either total is
/// 0 (`section` and `weight` name them in the reason).
fn overlap<K: Ord>(
    section: &str,
    weight: &str,
    a: &BTreeMap<K, u64>,
    b: &BTreeMap<K, u64>,
) -> Metric {
    let ta: u128 = a.values().map(|&w| w as u128).sum();
    let tb: u128 = b.values().map(|&w| w as u128).sum();
    let empty = match (ta, tb) {
        (0, 0) => Some("each file's"),
        (0, _) => Some("the profile's"),
        (_, 0) => Some("the reference's"),
        _ => None,
    };
    if let Some(which) = empty {
        return Metric::Undefined(format!(
            "{which} {section} has a total {weight} of 0, so there are no percentages to compare"
        ));
    }
    // Exact: sum of min(wa / ta, wb / tb) = sum of min(wa × tb, wb × ta) /
    // (ta × tb).
    let exact = || -> Option<f64> {
        let mut num: u128 = 0;
        for (k, &wa) in a {
            if let Some(&wb) = b.get(k) {
                let m = (wa as u128)
                    .checked_mul(tb)?
                    .min((wb as u128).checked_mul(ta)?);
                num = num.checked_add(m)?;
            }
        }
        let den = ta.checked_mul(tb)?;
        Some(num.checked_mul(100)? as f64 / den as f64)
    };
    Metric::Value(exact().unwrap_or_else(|| {
        a.iter()
            .filter_map(|(k, &wa)| {
                b.get(k)
                    .map(|&wb| (wa as f64 / ta as f64).min(wb as f64 / tb as f64))
            })
            .sum::<f64>()
            * 100.0
    }))
}

/// Interned calling-context paths shared by the trees of one comparison:
/// two nodes, of the same tree or of two trees, get the same number exactly
/// when their paths of `(method, line)` from the root are equal. Interning
/// `(parent's number, method, line)` keeps this linear in the number of
/// nodes however deep the tree.
#[derive(Default)]
struct Paths {
    methods: HashMap<String, u32>,
    /// `(parent path, method, line)` to path number; the root's (empty)
    /// path is 0, every other path is numbered from 1.
    steps: HashMap<(u32, u32, Option<u32>), u32>,
}

impl Paths {
    /// Each node's path number, `None` for the root; `None` overall if a
    /// node's parent is not listed before it.
    fn contexts(&mut self, cct: &[CctNode]) -> Option<Vec<Option<u32>>> {
        let mut of_id: HashMap<u64, u32> = HashMap::with_capacity(cct.len());
        let mut out = Vec::with_capacity(cct.len());
        for n in cct {
            let path = match n.parent {
                None => {
                    of_id.insert(n.id, 0);
                    out.push(None);
                    continue;
                }
                Some(p) => {
                    let parent = *of_id.get(&p)?;
                    let method = match self.methods.get(n.method.as_str()) {
                        Some(&m) => m,
                        None => {
                            let m = self.methods.len() as u32;
                            self.methods.insert(n.method.to_string(), m);
                            m
                        }
                    };
                    let next = self.steps.len() as u32 + 1;
                    *self.steps.entry((parent, method, n.line)).or_insert(next)
                }
            };
            of_id.insert(n.id, path);
            out.push(Some(path));
        }
        Some(out)
    }

    /// `calls` summed by path, the root left out.
    fn calls(&mut self, cct: &[CctNode]) -> Option<BTreeMap<u32, u64>> {
        let ids = self.contexts(cct)?;
        let mut m = BTreeMap::new();
        for (n, path) in cct.iter().zip(ids) {
            if let Some(path) = path {
                let w: &mut u64 = m.entry(path).or_default();
                *w = w.saturating_add(n.calls);
            }
        }
        Some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConfigSection, DcgEdge, MethodEntry, RunSection, FORMAT};

    fn empty() -> Profile {
        Profile {
            format: FORMAT.into(),
            program: "p.bc".into(),
            config: ConfigSection {
                profile: "exhaustive".into(),
                ..Default::default()
            },
            run: RunSection::default(),
            methods: None,
            dcg: None,
            cct: None,
            hot: None,
        }
    }

    fn with_dcg(edges: &[(&str, u32, &str, u64)]) -> Profile {
        Profile {
            dcg: Some(
                edges
                    .iter()
                    .map(|&(caller, line, callee, weight)| DcgEdge {
                        caller: caller.into(),
                        line,
                        callee: callee.into(),
                        weight,
                    })
                    .collect(),
            ),
            ..empty()
        }
    }

    fn with_methods(ms: &[(&str, u64)]) -> Profile {
        Profile {
            methods: Some(
                ms.iter()
                    .map(|&(name, s)| MethodEntry {
                        name: name.into(),
                        self_: s,
                        calls: 1,
                        cycles: None,
                        total_cycles: None,
                    })
                    .collect(),
            ),
            ..empty()
        }
    }

    /// Nodes `(id, parent, method, line, calls)`; a root `0` is prepended.
    fn with_cct(nodes: &[(u64, u64, &str, Option<u32>, u64)]) -> Profile {
        let mut cct = vec![CctNode {
            id: 0,
            parent: None,
            method: "<root>".into(),
            line: None,
            calls: 0,
            self_: 0,
            cycles: None,
        }];
        cct.extend(
            nodes
                .iter()
                .map(|&(id, parent, method, line, calls)| CctNode {
                    id,
                    parent: Some(parent),
                    method: method.into(),
                    line,
                    calls,
                    self_: 0,
                    cycles: None,
                }),
        );
        Profile {
            cct: Some(cct),
            ..empty()
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn dcg_overlap_worked_example() {
        // P, total 200:          R, total 100:
        //   main:3 -> a  100 = 50%   main:3 -> a  40 = 40%
        //   main:4 -> b   60 = 30%   main:4 -> b  50 = 50%
        //   a:10   -> c   40 = 20%   main:5 -> a  10 = 10%
        // In both: (main,3,a) min(50,40) = 40 and (main,4,b) min(30,50) = 30.
        // (a,10,c) is only in P; (main,5,a) only in R: same caller and
        // callee as (main,3,a), another call site, so another edge.
        // overlap = 40 + 30 = 70.
        let p = with_dcg(&[
            ("main", 3, "a", 100),
            ("main", 4, "b", 60),
            ("a", 10, "c", 40),
        ]);
        let r = with_dcg(&[
            ("main", 3, "a", 40),
            ("main", 4, "b", 50),
            ("main", 5, "a", 10),
        ]);
        assert_eq!(dcg_overlap(&p, &r), Metric::Value(70.0));
        assert_eq!(dcg_overlap(&r, &p), Metric::Value(70.0), "symmetric");
        assert_eq!(compare(&p, &r).to_text(), "dcg-overlap: 70.00\n");
    }

    #[test]
    fn dcg_duplicate_edges_are_summed() {
        // R lists (main,3,a) twice: 30 + 30 = 60 of 100 = 60%; P has it at
        // 100%. overlap = min(100, 60) = 60.
        let p = with_dcg(&[("main", 3, "a", 7)]);
        let r = with_dcg(&[
            ("main", 3, "a", 30),
            ("main", 4, "b", 40),
            ("main", 3, "a", 30),
        ]);
        assert_eq!(dcg_overlap(&p, &r), Metric::Value(60.0));
    }

    #[test]
    fn cct_overlap_sums_contexts_with_the_same_path() {
        // P (total calls 10):            R (total calls 20):
        //   1 main            1 = 10%      1 main            2 = 10%
        //   2 main>f@5        3 \ 40%      2 main>f@5        8 = 40%
        //   3 main>f@5        1 /          3 main>f@5>g@9    6 = 30%
        //   4 main>f@5>g@9    3 = 30%      4 main>f@7        4 = 20%
        //     (child of node 2)
        //   5 main>g@6        2 = 20%
        // Nodes 2 and 3 of P are one context: 3 + 1 = 4 calls = 40%.
        // overlap = main 10 + main>f@5 40 + main>f@5>g@9 30 = 80
        // (main>g@6 and main>f@7 are in one profile only). Without the
        // summing, main>f@5 would count 30 (or 10) and give 70 (or 60).
        let p = with_cct(&[
            (1, 0, "main", None, 1),
            (2, 1, "f", Some(5), 3),
            (3, 1, "f", Some(5), 1),
            (4, 2, "g", Some(9), 3),
            (5, 1, "g", Some(6), 2),
        ]);
        let r = with_cct(&[
            (1, 0, "main", None, 2),
            (2, 1, "f", Some(5), 8),
            (3, 2, "g", Some(9), 6),
            (4, 1, "f", Some(7), 4),
        ]);
        assert_eq!(cct_overlap(&p, &r), Metric::Value(80.0));
        assert_eq!(cct_overlap(&r, &p), Metric::Value(80.0));
        // Hot-edge coverage on the same pair: R's hottest is 8, the bar
        // 0.8, so all four R contexts are hot; P lists main, main>f@5 and
        // main>f@5>g@9 but not main>f@7: 3 of 4 = 75.
        assert_eq!(hot_edge_coverage(&p, &r), Metric::Value(75.0));
        // And the other way: P's contexts 1, 4, 3, 2 calls, hottest 4, bar
        // 0.4, all hot; R lacks main>g@6: 3 of 4 = 75.
        assert_eq!(hot_edge_coverage(&r, &p), Metric::Value(75.0));
    }

    #[test]
    fn cct_paths_not_leaves_identify_contexts() {
        // Both trees have a g@9 node at depth 2 with 10 calls, but under
        // f@5 in P and under h@3 in R: different contexts. Only main is
        // shared: P main 10 of 20 = 50%, R main 10 of 20 = 50%; overlap 50.
        let p = with_cct(&[
            (1, 0, "main", None, 10),
            (2, 1, "f", Some(5), 0),
            (3, 2, "g", Some(9), 10),
        ]);
        let r = with_cct(&[
            (1, 0, "main", None, 10),
            (2, 1, "h", Some(3), 0),
            (3, 2, "g", Some(9), 10),
        ]);
        assert_eq!(cct_overlap(&p, &r), Metric::Value(50.0));
    }

    #[test]
    fn cct_root_is_not_a_context() {
        // The root's calls (0 by the profile format, 5 here) are left out of the
        // totals: both trees are main 1 = 100%, overlap 100.
        let p = with_cct(&[(1, 0, "main", None, 1)]);
        let mut r = with_cct(&[(1, 0, "main", None, 3)]);
        r.cct.as_mut().unwrap()[0].calls = 5;
        assert_eq!(cct_overlap(&p, &r), Metric::Value(100.0));
    }

    #[test]
    fn pearson_worked_example() {
        // Union of the names: a, b, c, d.
        //   P self: a 4, b 2, (c missing) 0, d 2       mean 8/4 = 2
        //   R self: a 40, b 20, c 20, (d missing) 0    mean 80/4 = 20
        //   dx = ( 2, 0, -2,   0)   sum dx^2 = 4 + 4 = 8
        //   dy = (20, 0,  0, -20)   sum dy^2 = 400 + 400 = 800
        //   sum dx*dy = 40
        //   r = 40 / sqrt(8 * 800) = 40 / 80 = 0.5
        let p = with_methods(&[("a", 4), ("b", 2), ("d", 2)]);
        let r = with_methods(&[("c", 20), ("b", 20), ("a", 40)]);
        let got = method_correlation(&p, &r).value().unwrap();
        assert!(close(got, 0.5), "{got}");
        assert!(close(method_correlation(&r, &p).value().unwrap(), 0.5));
        // Opposite shares: x = (1, 3), y = (3, 1): dx = (-1, 1), dy = (1, -1),
        // r = -2 / sqrt(2 * 2) = -1.
        let p = with_methods(&[("a", 1), ("b", 3)]);
        let r = with_methods(&[("a", 3), ("b", 1)]);
        assert_eq!(method_correlation(&p, &r), Metric::Value(-1.0));
    }

    #[test]
    fn pearson_degenerate_cases() {
        let undefined =
            |a: &Profile, b: &Profile| matches!(method_correlation(a, b), Metric::Undefined(_));
        // No variance on either side or both (one method each; uniform;
        // empty): undefined, however well the shares agree.
        let one = with_methods(&[("main", 5)]);
        let other = with_methods(&[("main", 300)]);
        assert!(undefined(&one, &other));
        let u1 = with_methods(&[("a", 2), ("b", 2)]);
        let u2 = with_methods(&[("b", 7), ("a", 7)]);
        assert!(undefined(&u1, &u2));
        let e = with_methods(&[]);
        assert!(undefined(&e, &e));
        let v = with_methods(&[("a", 1), ("b", 3)]);
        assert!(undefined(&u1, &v));
        assert!(undefined(&v, &u1));
        assert!(undefined(&e, &v));
        // Equal shares with variance: exactly 1.
        let w = with_methods(&[("a", 3), ("b", 9)]);
        assert_eq!(method_correlation(&v, &w), Metric::Value(1.0));
    }

    #[test]
    fn hot_edge_coverage_threshold_boundary() {
        // R:                                   P (any calls):
        //   1 main              1  not hot       main            1
        //   2 main>f@5         50  hottest       main>f@5        0  (listed)
        //   3 main>f@5>g@9      5  = 0.1*50 hot  main>f@5>g@9    8
        //   4 main>h@3          4  < 5 not hot   main>h@3        7
        //   5 main>h@3>g@9     20  hot           main>g@9        4
        //   6 main>k@8         10  hot
        // Hot: f@5, f@5>g@9, h@3>g@9, k@8 = 4. Found in P: f@5 (0 calls
        // still counts), f@5>g@9. Not: h@3>g@9 (P's g@9 is under main),
        // k@8. 2 of 4 = 50.
        // (Counting h@3 as hot would give 3/5 = 60; leaving the boundary
        // context out 1/3 = 33.33; ignoring 0-call nodes 1/4 = 25.)
        let r = with_cct(&[
            (1, 0, "main", None, 1),
            (2, 1, "f", Some(5), 50),
            (3, 2, "g", Some(9), 5),
            (4, 1, "h", Some(3), 4),
            (5, 4, "g", Some(9), 20),
            (6, 1, "k", Some(8), 10),
        ]);
        let p = with_cct(&[
            (1, 0, "main", None, 1),
            (2, 1, "f", Some(5), 0),
            (3, 2, "g", Some(9), 8),
            (4, 1, "h", Some(3), 7),
            (5, 1, "g", Some(9), 4),
        ]);
        assert_eq!(hot_edge_coverage(&p, &r), Metric::Value(50.0));
        // cct-overlap of the same pair: R total 90, P total 20.
        //   main       min(1/90, 1/20)  = 1/90
        //   f@5        min(50/90, 0)    = 0
        //   f@5>g@9    min(5/90, 8/20)  = 5/90
        //   h@3        min(4/90, 7/20)  = 4/90
        //   = 10/90 = 11.11%
        let got = cct_overlap(&p, &r).value().unwrap();
        assert!(close(got, 1000.0 / 90.0), "{got}");
        assert_eq!(
            compare(&p, &r).to_text(),
            "cct-overlap: 11.11\nhot-edge-coverage: 50.00\n"
        );
    }

    #[test]
    fn hot_edge_coverage_is_summed_by_path_and_undefined_without_calls() {
        // R lists main>k@8 twice (30 + 30 = 60, the hottest) and main>f@5
        // once with 7: 10 * 7 = 70 >= 60, hot. P has only main>k@8: 1 of 2.
        let r = with_cct(&[
            (1, 0, "main", None, 0),
            (2, 1, "k", Some(8), 30),
            (3, 1, "f", Some(5), 7),
            (4, 1, "k", Some(8), 30),
        ]);
        let p = with_cct(&[(1, 0, "main", None, 0), (2, 1, "k", Some(8), 1)]);
        assert_eq!(hot_edge_coverage(&p, &r), Metric::Value(50.0));
        // A reference without calls has no hot context: undefined.
        let r0 = with_cct(&[(1, 0, "main", None, 0)]);
        assert!(matches!(hot_edge_coverage(&p, &r0), Metric::Undefined(_)));
    }

    #[test]
    fn identical_profiles_give_100() {
        // Thirds and sevenths, which floating point would not sum to 100.
        let mut p = with_cct(&[
            (1, 0, "main", None, 1),
            (2, 1, "f", Some(5), 1),
            (3, 2, "g", Some(9), 1),
            (4, 1, "g", Some(6), 4),
        ]);
        p.dcg = with_dcg(&[("main", 5, "f", 1), ("f", 9, "g", 1), ("main", 6, "g", 1)]).dcg;
        p.methods = with_methods(&[("main", 3), ("f", 7), ("g", 11)]).methods;
        let c = compare(&p, &p.clone());
        assert_eq!(
            c,
            Comparison {
                dcg_overlap: Metric::Value(100.0),
                cct_overlap: Metric::Value(100.0),
                method_correlation: Metric::Value(1.0),
                hot_edge_coverage: Metric::Value(100.0),
            }
        );
        assert_eq!(
            c.to_text(),
            "dcg-overlap: 100.00\ncct-overlap: 100.00\nmethod-correlation: 1.00\nhot-edge-coverage: 100.00\n"
        );
        assert_eq!(
            c.to_json(),
            "{\"dcg-overlap\":100.0,\"cct-overlap\":100.0,\"method-correlation\":1.0,\"hot-edge-coverage\":100.0}\n"
        );
    }

    #[test]
    fn missing_sections_are_left_out_and_empty_ones_undefined() {
        let dcg = with_dcg(&[("main", 3, "a", 1)]);
        let nothing = empty();
        assert_eq!(compare(&dcg, &nothing), Comparison::default());
        assert!(compare(&dcg, &nothing).is_empty());
        assert_eq!(compare(&dcg, &nothing).to_text(), "");
        assert_eq!(compare(&dcg, &nothing).to_json(), "{}\n");
        // Present but without weight, on either side or both: undefined,
        // and said why.
        let undefined = |m: Metric| matches!(m, Metric::Undefined(_));
        let none = with_dcg(&[]);
        assert!(undefined(dcg_overlap(&none, &none)));
        assert!(undefined(dcg_overlap(&dcg, &none)));
        assert!(undefined(dcg_overlap(&none, &dcg)));
        // Only zero-weight edges: a zero total, like an empty section.
        let zero = with_dcg(&[("main", 3, "a", 0)]);
        assert!(undefined(dcg_overlap(&zero, &dcg)));
        let c = compare(&zero, &dcg);
        assert!(c.is_empty());
        assert_eq!(c.undefined().len(), 1);
        assert!(c.undefined()[0].1.contains("the profile's dcg"), "{c:?}");
        // A tree with the root only has no context.
        let root = with_cct(&[]);
        let main = with_cct(&[(1, 0, "main", None, 1)]);
        assert!(undefined(cct_overlap(&root, &root)));
        assert!(undefined(cct_overlap(&root, &main)));
        assert_eq!(hot_edge_coverage(&root, &main), Metric::Value(0.0));
        assert!(undefined(hot_edge_coverage(&main, &root)));
    }

    #[test]
    fn malformed_tree_gives_none() {
        // Node 2 names parent 3, listed after it (from_json would refuse it).
        let bad = with_cct(&[
            (1, 0, "main", None, 1),
            (2, 3, "f", Some(5), 1),
            (3, 1, "g", Some(6), 1),
        ]);
        let good = with_cct(&[(1, 0, "main", None, 1)]);
        assert_eq!(cct_overlap(&bad, &good), Metric::Missing);
        assert_eq!(hot_edge_coverage(&good, &bad), Metric::Missing);
        assert_eq!(hot_edge_coverage(&bad, &good), Metric::Missing);
    }

    #[test]
    fn deep_trees_are_linear() {
        // A 100 000-deep recursion: paths are interned, not copied.
        let mut nodes = vec![(1, 0, "main", None, 1)];
        for i in 2..=100_000u64 {
            nodes.push((i, i - 1, "f", Some(4), 1));
        }
        let p = with_cct(&nodes);
        assert_eq!(cct_overlap(&p, &p), Metric::Value(100.0));
        assert_eq!(hot_edge_coverage(&p, &p), Metric::Value(100.0));
    }

    #[test]
    fn text_never_shows_negative_zero() {
        let c = Comparison {
            method_correlation: Metric::Value(-1e-12),
            ..Default::default()
        };
        assert_eq!(c.to_text(), "method-correlation: 0.00\n");
    }
}
