//! The experiments, one module each, and the registry table.

pub mod ag_fig1;

use crate::Experiment;

/// Every experiment.
pub static REGISTRY: &[Experiment] = &[Experiment {
    name: "arnold-grove-fig1",
    reproduces: "Arnold & Grove 2005, Figure 1",
    measures: "share of call_1 and call_2 in the DCG under timer and cbs, against exact",
    deterministic: true,
    run: ag_fig1::run,
}];
