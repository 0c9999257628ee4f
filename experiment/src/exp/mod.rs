//! The experiments, one module each, and the registry table.

pub mod ag_fig1;
pub mod ag_fig5;
pub mod ag_table2;
pub mod ag_table2_reading;
pub mod ag_table3;
pub mod as_fig1_5;
pub mod as_fig6;
pub mod causality;
pub mod common;
pub mod hofer_cct;
pub mod hofer_common;
pub mod hofer_fig11;
pub mod hofer_fig12;
pub mod hofer_fig13;
pub mod hofer_fig9;
pub mod hofer_fig9_sim;
pub mod hofer_latency;
pub mod independent;
pub mod record_sizes;
pub mod run_length;
pub mod sscli_cost;
pub mod sscli_table1;
pub mod sscli_table1_reading;
pub mod stack_depth_cost;
pub mod suite_chars;
pub mod whaley;
pub mod whaley_cost;
pub mod whaley_fig13;
pub mod whaley_fig14;

use crate::Experiment;

/// Every experiment.
pub static REGISTRY: &[Experiment] = &[
    Experiment {
        name: "arnold-grove-fig1",
        reproduces: "Arnold & Grove 2005, Figure 1",
        measures: "share of call_1 and call_2 in the DCG under timer and cbs, against exact",
        takes_cores: false,
        takes_wall_clock: false,
        run: ag_fig1::run,
        claims: ag_fig1::claims,
    },
    Experiment {
        name: "arnold-grove-table2",
        reproduces: "Arnold & Grove 2005, Table 2A",
        measures: "cbs stride x samples grid: dcg-overlap and overhead in the cost model (suite means)",
        takes_cores: false,
        takes_wall_clock: false,
        run: ag_table2::run,
        claims: ag_table2::claims,
    },
    Experiment {
        name: "arnold-grove-table3",
        reproduces: "Arnold & Grove 2005, Table 3",
        measures: "per benchmark: overhead (cost model; --clock=wall: wall clock) and accuracy of timer and cbs",
        takes_cores: false,
        takes_wall_clock: true,
        run: ag_table3::run,
        claims: ag_table3::claims,
    },
    Experiment {
        name: "arnold-grove-fig5",
        reproduces: "Arnold & Grove 2005, Figure 5",
        measures: "per benchmark: simulated-cycle speedup of linear inlining with timer, cbs, exact profiles",
        takes_cores: false,
        takes_wall_clock: false,
        run: ag_fig5::run,
        claims: ag_fig5::claims,
    },
    Experiment {
        name: "arnold-sweeney-fig1-5",
        reproduces: "Arnold & Sweeney 2000, Figures 1-5",
        measures: "per benchmark: cct-overlap of the ACCT sampled every 1, 59 (both strategies), 307, 1559 calls; the top 40 edges",
        takes_cores: false,
        takes_wall_clock: false,
        run: as_fig1_5::run,
        claims: as_fig1_5::claims,
    },
    Experiment {
        name: "arnold-sweeney-fig6",
        reproduces: "Arnold & Sweeney 2000, Figure 6",
        measures: "the adversary program: ACCT edge weights under all-new-edges against last-edge",
        takes_cores: false,
        takes_wall_clock: false,
        run: as_fig6::run,
        claims: as_fig6::claims,
    },
    Experiment {
        name: "whaley-fig13",
        reproduces: "Whaley 2000, Figure 13",
        measures: "hot-method counting (timer): overhead (cost model; --clock=wall: wall clock) and precision between runs at the paper's intervals",
        takes_cores: false,
        takes_wall_clock: true,
        run: whaley_fig13::run,
        claims: whaley_fig13::claims,
    },
    Experiment {
        name: "whaley-fig14",
        reproduces: "Whaley 2000, Figure 14",
        measures: "the PCCT (marked walk): overhead (cost model; --clock=wall: wall clock) and precision between runs at the paper's intervals; the buffer (--max-walk)",
        takes_cores: false,
        takes_wall_clock: true,
        run: whaley_fig14::run,
        claims: whaley_fig14::claims,
    },
    Experiment {
        name: "sscli-table1",
        reproduces: "Chilingarova & Safonov 2006, Table 1",
        measures: "per benchmark: correlation and overlap of the CC-Map with exact counts; the self-tuning interval over a run",
        takes_cores: false,
        takes_wall_clock: false,
        run: sscli_table1::run,
        claims: sscli_table1::claims,
    },
    Experiment {
        name: "hofer-fig9",
        reproduces: "Hofer et al. 2015, Figures 9-10",
        measures: "many threads, simulated cores: overhead (run length, thread time stopped) of global, partial, SPS, ISPS at 10, 1, 0.1 ms",
        takes_cores: true,
        takes_wall_clock: false,
        run: hofer_fig9::run,
        claims: hofer_fig9::claims,
    },
    Experiment {
        name: "hofer-fig11",
        reproduces: "Hofer et al. 2015, Figure 11",
        measures: "many threads, simulated cores: thread time stopped per sample and per safepoint of each sampler at 1 ms",
        takes_cores: true,
        takes_wall_clock: false,
        run: hofer_fig11::run,
        claims: hofer_fig11::claims,
    },
    Experiment {
        name: "hofer-fig12",
        reproduces: "Hofer et al. 2015, Figure 12",
        measures: "stability: each run's CCT against its technique's average CCT (overlap, hot-edge coverage)",
        takes_cores: true,
        takes_wall_clock: false,
        run: hofer_fig12::run,
        claims: hofer_fig12::claims,
    },
    Experiment {
        name: "hofer-fig13",
        reproduces: "Hofer et al. 2015, Figure 13",
        measures: "the techniques' average CCTs against each other and the exact CCT",
        takes_cores: true,
        takes_wall_clock: false,
        run: hofer_fig13::run,
        claims: hofer_fig13::claims,
    },
    Experiment {
        name: "causality",
        reproduces: "Mytkowicz et al. 2010, the causality test",
        measures: "work added to one method at a time: does each profile's share rise as the exact one does?",
        takes_cores: false,
        takes_wall_clock: false,
        run: causality::run,
        claims: causality::claims,
    },
    Experiment {
        name: "record-sizes",
        reproduces: "Arnold & Sweeney 2000, section 1; Whaley 2000, sections 3 and 5.4",
        measures: "per benchmark: contexts and bytes of the ACCT (both sampled bits) and the PCCT (with and without --purge) against the exhaustive CCT",
        takes_cores: false,
        takes_wall_clock: false,
        run: record_sizes::run,
        claims: record_sizes::claims,
    },
    Experiment {
        name: "hofer-latency",
        reproduces: "Hofer et al. 2015, Figure 11 and section 7.2",
        measures: "many threads, simulated cores: box plots of each technique's latency per tick at 1 ms; samples taken against intended at 10, 1, 0.1 ms",
        takes_cores: true,
        takes_wall_clock: false,
        run: hofer_latency::run,
        claims: hofer_latency::claims,
    },
    Experiment {
        name: "suite-characterisation",
        reproduces: "Arnold & Grove 2005, Table 1 (for our suite)",
        measures: "per program, from the exhaustive profile: methods, instructions, calls, call edges, contexts, call depth, cycles",
        takes_cores: false,
        takes_wall_clock: false,
        run: suite_chars::run,
        claims: suite_chars::claims,
    },
    Experiment {
        name: "run-length",
        reproduces: "Arnold & Grove 2005, Table 3 (small and large inputs)",
        measures: "per benchmark at 1, 4, 16, 64 repetitions of its default size: dcg-overlap of timer and cbs against exact",
        takes_cores: false,
        takes_wall_clock: false,
        run: run_length::run,
        claims: run_length::claims,
    },
    Experiment {
        name: "stack-depth-cost",
        reproduces: "Whaley 2000, section 5.2 (marked frames); Hofer et al. 2015, section 5",
        measures: "walk cycles per sample (cost model) of full, marked and incremental walks against stack depth",
        takes_cores: false,
        takes_wall_clock: false,
        run: stack_depth_cost::run,
        claims: stack_depth_cost::claims,
    },
];
