//! What the samplers' work costs on the simulated machine (`--clock=virtual
//! --cores=N`), in cycles of virtual time (1 cycle = 1 ns): one named
//! constant per item of Hofer et al. 2015's protocols (sections 2.2, 3, 4
//! and 5), all of them here. [`crate::simsample`] charges them; the
//! interpreter's own work is charged by the cost model
//! (docs/PERFORMANCE.md), not here.
//!
//! The sources are this VM's own measurements on real threads (a 2-core
//! virtual machine): docs/SAMPLERS.md, "Simulated cores", lists them with
//! the command behind each. They are deliberately round: the simulation is
//! meant to rank the samplers the way the real machine would with enough
//! cores, not to predict a machine's microseconds.

/// Cycles to decode one frame into a calling context tree: the method of
/// the frame, its call site, and the child lookup in the tree. A full walk
/// of `d` frames costs `d` times this; a marked walk, the frames above the
/// first marked one.
pub const WALK_FRAME_CYCLES: u64 = 40;

/// Cycles of an incremental sample (section 5.2): the top frame decoded
/// into a new trace object and its caller's return word patched with a
/// trampoline.
pub const INCREMENTAL_SAMPLE_CYCLES: u64 = 120;

/// Cycles of one trampoline (section 5.2, "intercepting a return"): the
/// caller's frame decoded into its skeleton object and the next return
/// word patched. Charged to the sampled thread itself, not to a
/// safepoint.
pub const TRAMPOLINE_CYCLES: u64 = 80;

/// Cycles a thread spends parking at a safepoint: publishing its frames
/// and blocking on its condition variable (a futex wait and its wake-up,
/// the larger part of a context switch).
pub const PARK_CYCLES: u64 = 5_000;

/// Cycles from the coordinator ending a safepoint to the held threads
/// running again: the wake-up of a parked thread (the other part of a
/// context switch). The threads are woken together.
pub const RELEASE_CYCLES: u64 = 5_000;

/// Cycles of the coordinator's (the sampler thread's) work per thread it
/// walks or accounts for: reading the thread's state and published view
/// under its lock.
pub const COORDINATOR_PER_THREAD_CYCLES: u64 = 300;

/// Cycles a self-sampling thread spends on its ticket (section 4): taking
/// it, and reporting its sample to the coordinator.
pub const TICKET_CYCLES: u64 = 200;
