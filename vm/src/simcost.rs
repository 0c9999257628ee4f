//! What the samplers' work costs on the simulated machine (`--clock=virtual
//! --cores=N`), in cycles of virtual time: one named constant per item of
//! Hofer et al. 2015's protocols (sections 2.2, 3, 4 and 5), all of them
//! here. [`crate::simsample`] charges them; the interpreter's own work is
//! charged by the cost model (docs/PERFORMANCE.md), not here.
//!
//! Every constant comes from a measurement of the real threads on this
//! machine (2 shared cores), converted at the virtual clock's documented
//! rate of 1 cycle per nanosecond ([`crate::schedule`], docs/SAMPLERS.md
//! "Simulated cores"). Two sources:
//!
//! - the walks: `bench/walk_cost.sh` (docs/PERFORMANCE.md, "Cost per
//!   sample against stack depth"): a listener's cost per sample with each
//!   walk, minus the same run with `--record=dcg` (the top frame only);
//! - the protocols: `vm experiment hofer-fig11` (docs/EXPERIMENTS.md,
//!   "hofer-fig11: pause times"), program `many-32-deep` (32 threads 50
//!   frames deep, 2 computing: a core for each running thread), its
//!   latencies per safepoint (request to release, median of 5 runs):
//!   global safepoint with full walks 36.0 us (32.8 stacks), partial 20.9
//!   us, self-sampling with incremental walks (ISPS) 6.0 us (2 stacks).
//!
//! The protocol model below is `self = TICKET + walk + PARK + RELEASE`
//! and `global = PARK + stacks x (COORDINATOR + walk) + RELEASE`; partial,
//! `PARK + 2 x (COORDINATOR + walk) + RELEASE`, then predicts 7.8 us
//! against the 20.9 measured: the model leaves out the coordinator's own
//! wake-up (docs/SAMPLERS.md says so), which makes the simulated partial
//! and global safepoints cheaper than the real ones, not dearer.

/// Cycles to decode one frame into a calling context tree: the method of
/// the frame, its call site, and the child lookup in the tree. A full walk
/// of `d` frames costs `d` times this; a marked walk, the frames above the
/// first marked one.
///
/// Source: `bench/walk_cost.sh 1000 5000`, full walk minus the top-only
/// reference: 7 293 to 8 527 ns per sample at depth 1 000 and 40 100 ns at
/// 5 000, 7.3 to 8.5 ns per frame.
pub const WALK_FRAME_CYCLES: u64 = 8;

/// Cycles of an incremental sample (section 5.2): the top frame decoded
/// into a new trace object and its caller's return word patched with a
/// trampoline.
///
/// Source: `bench/walk_cost.sh 10 100 1000`, incremental minus the
/// top-only reference: 33 to 42 ns per sample (run 2), which pays for one
/// sample and the one trampoline its leaf returns through; half of it.
pub const INCREMENTAL_SAMPLE_CYCLES: u64 = 20;

/// Cycles of one trampoline (section 5.2, "intercepting a return"): the
/// caller's frame decoded into its skeleton object and the next return
/// word patched. Charged to the sampled thread itself, not to a
/// safepoint.
///
/// Source: the other half of [`INCREMENTAL_SAMPLE_CYCLES`]'s measurement.
pub const TRAMPOLINE_CYCLES: u64 = 20;

/// Cycles a self-sampling thread spends on its ticket (section 4): taking
/// it, and reporting its sample to the coordinator (two atomic updates and
/// a counter).
///
/// Source: not separable in the latencies measured (it is in the 6.0 us
/// of ISPS with the park and the release); taken as 100 ns, two
/// cross-core atomic operations.
pub const TICKET_CYCLES: u64 = 100;

/// Cycles a thread spends parking at a safepoint: publishing its frames
/// and blocking on its condition variable (half of a futex round trip).
///
/// Source: `vm experiment hofer-fig11`, `many-32-deep`, ISPS latency 6.0
/// us = ticket 100 + incremental sample 20 + park + release, the futex
/// round trip split evenly: (6 000 - 120) / 2 = 2 940 ns.
pub const PARK_CYCLES: u64 = 2_940;

/// Cycles from the coordinator ending a safepoint to the held threads
/// running again: the wake-up of a parked thread (the other half of the
/// futex round trip). The threads are woken together.
///
/// Source: as [`PARK_CYCLES`].
pub const RELEASE_CYCLES: u64 = 2_940;

/// Cycles of the coordinator's (the sampler thread's) work per thread it
/// walks or accounts for, besides the walk: reading the thread's state
/// and published view under its lock.
///
/// Source: `vm experiment hofer-fig11`, `many-32-deep`, global safepoint
/// latency 36.0 us for 32 stacks of 50 frames = park 2 940 + 32 x (this +
/// 50 x 8) + release 2 940: (36 000 - 5 880 - 12 800) / 32 = 541 ns.
pub const COORDINATOR_PER_THREAD_CYCLES: u64 = 540;

#[cfg(test)]
mod tests {
    use super::*;

    /// The constants reproduce the latencies they were derived from.
    #[test]
    fn the_model_gives_back_the_measured_latencies() {
        let isps = TICKET_CYCLES + INCREMENTAL_SAMPLE_CYCLES + PARK_CYCLES + RELEASE_CYCLES;
        assert_eq!(isps, 6_000);
        let global = PARK_CYCLES
            + 32 * (COORDINATOR_PER_THREAD_CYCLES + 50 * WALK_FRAME_CYCLES)
            + RELEASE_CYCLES;
        assert!(global.abs_diff(36_000) < 100, "{global}");
    }
}
