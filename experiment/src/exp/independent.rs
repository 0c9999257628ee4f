//! What `n` samples could score at best: the dcg-overlap of `n` calls
//! drawn independently and uniformly from every call the program made.
//!
//! Arnold & Grove (section 4) give the stride one job: to spread a tick's
//! samples over a longer window, so that they are no longer the calls
//! that happen to follow a tick ("the skew that can occur from samples
//! taken immediately after a timer interrupt"). The best a spread can do
//! is to make each sample an independent draw from all the calls; what
//! is then still missing from the profile is the noise of having only
//! `n` samples, which no stride cures and only more samples do. So the
//! score of `n` independent draws splits a cell's gap to 100 in two: the
//! skew (the bound minus the cell's score), the stride's to close, and
//! the noise (100 minus the bound).

use profile::Profile;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeMap;

/// Draws averaged per bound: enough that the mean moves by less than a
/// tenth of a point from one seed to another on the suite's programs.
pub const DRAWS: u32 = 30;

/// The mean dcg-overlap (0-100) with `exact` of [`DRAWS`] sampled DCGs,
/// each `n` calls drawn at random (with replacement) in proportion to
/// the exact DCG's weights; `NaN` when there is no call or `n` is 0. The
/// draws are seeded by `seed`, so the bound of a run is the same on every
/// machine.
pub fn dcg_overlap_bound(exact: &Profile, n: u64, seed: u64) -> f64 {
    let weights: Vec<u64> = edge_weights(exact).into_values().collect();
    let total: u64 = weights.iter().sum();
    if total == 0 || n == 0 {
        return f64::NAN;
    }
    let cumulative: Vec<u64> = weights
        .iter()
        .scan(0, |s, w| {
            *s += w;
            Some(*s)
        })
        .collect();
    let mut rng = StdRng::seed_from_u64(seed);
    let mut sum = 0.0;
    for _ in 0..DRAWS {
        let mut counts = vec![0u64; weights.len()];
        for _ in 0..n {
            let call = rng.random_range(0..total);
            counts[cumulative.partition_point(|&c| c <= call)] += 1;
        }
        sum += overlap(&counts, n, &weights, total);
    }
    sum / f64::from(DRAWS)
}

/// The exact DCG's weights by edge (caller, line, callee), repeated edges
/// summed, as `vm compare`'s dcg-overlap matches them.
fn edge_weights(p: &Profile) -> BTreeMap<(&str, u32, &str), u64> {
    let mut m = BTreeMap::new();
    for e in p.dcg.as_deref().unwrap_or_default() {
        *m.entry((e.caller.as_str(), e.line, e.callee.as_str()))
            .or_default() += e.weight;
    }
    m
}

/// Overlap of two weightings of the same edges, 0-100: the sum over the
/// edges of the smaller of the two shares.
fn overlap(a: &[u64], a_total: u64, b: &[u64], b_total: u64) -> f64 {
    100.0
        * a.iter()
            .zip(b)
            .map(|(&x, &y)| (x as f64 / a_total as f64).min(y as f64 / b_total as f64))
            .sum::<f64>()
}

/// The calls a sampled profile's DCG holds: the `n` of its bound.
pub fn dcg_samples(p: &Profile) -> u64 {
    p.dcg
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|e| e.weight)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use profile::DcgEdge;

    fn dcg(weights: &[u64]) -> Profile {
        Profile {
            format: String::new(),
            program: String::new(),
            config: Default::default(),
            run: Default::default(),
            methods: None,
            cct: None,
            hot: None,
            dcg: Some(
                weights
                    .iter()
                    .enumerate()
                    .map(|(i, &w)| DcgEdge {
                        caller: "main".into(),
                        line: i as u32,
                        callee: format!("f{i}"),
                        weight: w,
                    })
                    .collect(),
            ),
        }
    }

    #[test]
    fn one_edge_is_always_found_and_many_samples_approach_100() {
        assert_eq!(dcg_overlap_bound(&dcg(&[7]), 1, 1), 100.0);
        let even = dcg(&[1; 10]);
        let few = dcg_overlap_bound(&even, 10, 1);
        let many = dcg_overlap_bound(&even, 10_000, 1);
        assert!(few < 80.0, "10 draws over 10 equal edges: {few}");
        assert!(many > 98.0, "10,000 draws: {many}");
    }

    #[test]
    fn no_call_or_no_sample_has_no_bound() {
        assert!(dcg_overlap_bound(&dcg(&[]), 5, 1).is_nan());
        assert!(dcg_overlap_bound(&dcg(&[3]), 0, 1).is_nan());
    }
}
