//! The dynamic call graph repository (Jikes RVM's DCG, Arnold & Grove 2005
//! section 2): weighted edges keyed by (caller, call-site line, callee),
//! and per-method counts for the hot-method profile.
//!
//! Sampled profiles add one unit of weight per sample; the exhaustive
//! profile adds its exact counts. Only the organizer thread writes it.

use vm::loader::Program;

use crate::exact::ExactThreadProfile;
use crate::samples::Sample;
use profile::{DcgEdge, MethodEntry};

/// A weight per call edge, keyed by (caller, call-site line, callee).
/// Hashed by the Fx hash (`rustc-hash`): for three small integers it is a
/// few multiplications where the standard library's SipHash takes some 90
/// instructions, and this table takes every edge sample the organizer
/// folds in. Nothing iterates it in an order that shows.
pub type EdgeWeightMap = rustc_hash::FxHashMap<(u32, u32, u32), u64>;

/// Edges and hot methods.
#[derive(Clone, Debug, Default)]
pub struct DynamicCallGraph {
    /// Weight per (caller, call-site line, callee).
    pub edges: EdgeWeightMap,
    /// Per method: samples on top (exhaustive: instructions).
    pub self_: Vec<u64>,
    /// Per method: calls counted or sampled into it.
    pub calls: Vec<u64>,
    /// Exhaustive profile only, per method: (self, total) cycles.
    pub cycles: Option<Vec<(u64, u64)>>,
}

impl DynamicCallGraph {
    /// An empty graph over `methods` methods.
    pub fn new(methods: usize) -> DynamicCallGraph {
        DynamicCallGraph {
            edges: EdgeWeightMap::default(),
            self_: vec![0; methods],
            calls: vec![0; methods],
            cycles: None,
        }
    }

    /// Folds one raw sample in.
    pub fn add_sample(&mut self, s: Sample) {
        match s {
            Sample::Method { method } => self.self_[method as usize] += 1,
            Sample::Examined { .. } => {}
            Sample::Edge {
                caller,
                line,
                callee,
            } => {
                *self.edges.entry((caller, line, callee)).or_insert(0) += 1;
                self.calls[callee as usize] += 1;
            }
        }
    }

    /// Adds a thread's exact counts.
    pub fn add_exact(&mut self, e: &ExactThreadProfile) {
        for (&k, &w) in &e.edges {
            *self.edges.entry(k).or_insert(0) += w;
        }
        for (m, &v) in e.self_instructions.iter().enumerate() {
            self.self_[m] += v;
        }
        for (m, &v) in e.calls.iter().enumerate() {
            self.calls[m] += v;
        }
        let cycles = self
            .cycles
            .get_or_insert_with(|| vec![(0, 0); self.self_.len()]);
        for (sum, (&s, &t)) in cycles
            .iter_mut()
            .zip(e.self_cycles.iter().zip(&e.total_cycles))
        {
            sum.0 += s;
            sum.1 += t;
        }
    }

    /// The `methods` section: every method with a count, hottest first
    /// (ties by name).
    pub fn methods(&self, program: &Program) -> Vec<MethodEntry> {
        let mut out: Vec<MethodEntry> = (0..self.self_.len())
            .filter(|&m| self.self_[m] > 0 || self.calls[m] > 0)
            .map(|m| MethodEntry {
                name: program.bodies[m].name.clone(),
                self_: self.self_[m],
                calls: self.calls[m],
                cycles: self.cycles.as_ref().map(|c| c[m].0),
                total_cycles: self.cycles.as_ref().map(|c| c[m].1),
            })
            .collect();
        out.sort_by(|a, b| {
            (b.self_, b.calls)
                .cmp(&(a.self_, a.calls))
                .then_with(|| a.name.cmp(&b.name))
        });
        out
    }

    /// The `dcg` section: edges of positive weight, heaviest first (ties
    /// by caller, line, callee).
    pub fn edges(&self, program: &Program) -> Vec<DcgEdge> {
        let name = |m: u32| program.bodies[m as usize].name.clone();
        let mut out: Vec<DcgEdge> = self
            .edges
            .iter()
            .filter(|(_, &w)| w > 0)
            .map(|(&(caller, line, callee), &weight)| DcgEdge {
                caller: name(caller),
                line,
                callee: name(callee),
                weight,
            })
            .collect();
        out.sort_by(|a, b| {
            b.weight
                .cmp(&a.weight)
                .then_with(|| (&a.caller, a.line, &a.callee).cmp(&(&b.caller, b.line, &b.callee)))
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_fold_into_edges_and_methods() {
        let mut g = DynamicCallGraph::new(3);
        let e = Sample::Edge {
            caller: 0,
            line: 4,
            callee: 1,
        };
        g.add_sample(e);
        g.add_sample(e);
        g.add_sample(Sample::Method { method: 2 });
        assert_eq!(g.edges[&(0, 4, 1)], 2);
        assert_eq!((g.calls[1], g.self_[2], g.self_[1]), (2, 1, 0));
    }
}
