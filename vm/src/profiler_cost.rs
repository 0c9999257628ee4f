//! What the profiler's work costs, in cycles of the cost model: the one
//! table of it. Under `--clock=virtual` (and with `--cycles`) every piece of
//! work a profile does is *charged*: counted in a [`Work`] ledger, and, when
//! an application thread does it, added to that thread's virtual time, so
//! that a sample taken on a thread delays that thread's next tick exactly
//! as it would on a real machine. The profile reports the total
//! (`run.profiler_cycles`), its split by [`CostKind`], and the count of
//! every item (docs/LANGUAGE.md, "Profiles"); `vm run --cycles` prints the
//! overhead, `profiler_cycles / cycles`.
//!
//! The papers this measures: the overhead columns of Arnold & Grove 2005
//! (Tables 2 and 3), Whaley 2000 (Figures 13 and 14), the SSCLI profiler's
//! self-tuning (section 5, "Results") and Hofer et al. 2015 (Figures 9 to
//! 11). Each row of `cost_table!` below says where its number comes
//! from:
//!
//! - **callgrind** (most rows): `bench/profiler_costs.sh` runs two
//!   programs or configurations that differ in how often the operation
//!   happens, counts their machine instructions under callgrind, divides
//!   the difference by the difference of the operation's count (which the
//!   profile reports), and converts instructions to cycles at
//!   [`INSTRUCTIONS_PER_CYCLE`]. Its last output is kept in
//!   `bench/profiler_costs.txt`; a test checks that this table says what
//!   that file says.
//! - **latency** (the many-thread protocols, Hofer et al. 2015 sections
//!   2.2 to 4): blocking and waking threads is time, not instructions;
//!   those rows come from the latencies `vm experiment hofer-fig11`
//!   measured on the real threads, converted at the virtual clock's rate
//!   of 1 cycle per nanosecond.
//!
//! The interpreter's own work is not here: it is `Opcode::cost`
//! (docs/CLI.md, "Simulated cycles").

/// What a cycle of profiler work is spent on: the split of
/// `run.profiler_cycles` in the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CostKind {
    /// Deciding to sample and taking the sample: taken yieldpoints, method
    /// and edge samples, the exhaustive profile's call hooks and
    /// instruction counting, the many-thread samplers' safepoints.
    Sampling,
    /// Reading the stack: frames decoded, marks set, trampolines installed
    /// and taken.
    Walking,
    /// Updating a record: tree steps, the PCCT's weights and hot lists,
    /// the ACCT's splice, the CC-Map's copies and inserts, the DCG.
    Recording,
    /// The organizer's own work: receiving buffers, merging the threads'
    /// trees.
    Organizing,
    /// `--tune`: observing each examination, deciding.
    Tuning,
    /// The adaptive controller (`--adaptive`): waking, estimating,
    /// compiling.
    Controller,
}

impl CostKind {
    /// Every kind, in the order the profile lists them.
    pub const ALL: [CostKind; 6] = [
        CostKind::Sampling,
        CostKind::Walking,
        CostKind::Recording,
        CostKind::Organizing,
        CostKind::Tuning,
        CostKind::Controller,
    ];

    /// The kind's key in the profile (`run.profiler_cycles_by_kind`).
    pub const fn name(self) -> &'static str {
        match self {
            CostKind::Sampling => "sampling",
            CostKind::Walking => "walking",
            CostKind::Recording => "recording",
            CostKind::Organizing => "organizing",
            CostKind::Tuning => "tuning",
            CostKind::Controller => "controller",
        }
    }
}

/// Machine instructions of this interpreter per cycle of the cost model:
/// the rate at which `bench/profiler_costs.sh` turns an operation's
/// measured instructions into cycles, so that an operation charged `c`
/// cycles costs about what `c` cycles of a plain run of a program do. It
/// is callgrind's instructions for a plain `vm run P` divided by the cycles
/// `vm run P --cycles` prints, which differs from program to program (7 to
/// 12.5 over the validation programs: the cost model prices a call at 10
/// cycles and a `mul` at 3, this interpreter spends other proportions);
/// the rate is the geometric mean of the lowest and the highest, which
/// keeps the worst ratio between a program's rate and it smallest.
pub const INSTRUCTIONS_PER_CYCLE: u64 = 9;

/// Declares the cost table: one row per item of profiler work, with its
/// doc comment (what it is, and the measurement its number comes from),
/// its key in the profile, its [`CostKind`] and its cost in cycles (a
/// decimal: many items cost less than a cycle of the model).
macro_rules! cost_table {
    ($( $(#[doc = $doc:literal])* $item:ident = $name:literal, $kind:ident, $cycles:literal; )*) => {
        /// One item of profiler work (a row of the cost table).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum CostItem {
            $( $(#[doc = $doc])* $item, )*
        }

        impl CostItem {
            /// Every item, in table order.
            pub const ALL: &'static [CostItem] = &[$(CostItem::$item),*];

            /// The item's key in the profile (`run.profiler_work`).
            pub const fn name(self) -> &'static str {
                match self { $(CostItem::$item => $name,)* }
            }

            /// What the item's work is spent on.
            pub const fn kind(self) -> CostKind {
                match self { $(CostItem::$item => CostKind::$kind,)* }
            }

            /// Hundredths of a cycle one occurrence costs.
            pub const fn centicycles(self) -> u64 {
                match self { $(CostItem::$item => centi($cycles),)* }
            }
        }
    };
}

/// `cycles` in hundredths of a cycle, rounded.
const fn centi(cycles: f64) -> u64 {
    (cycles * 100.0 + 0.5) as u64
}

cost_table! {
    /// A yieldpoint taken for a sampling listener: the interpreter's slow
    /// path, the request bits, the listener's call and its trigger's
    /// decision (cbs counting down its stride, the counter its period).
    /// Measured: `--profile=counter` with a period no run reaches (every
    /// prologue and epilogue taken, no sample) against the same program
    /// without a profile.
    YieldpointTaken = "yieldpoint_taken", Sampling, 23.12;
    /// A method sample: the executing method found and pushed into the
    /// thread's sample buffer (its hand-over to the organizer is
    /// [`CostItem::OrganizerBuffer`], its fold [`CostItem::DcgUpdate`]).
    /// Measured: a timer profile of a loop without calls (each tick one
    /// yieldpoint and one method sample), a tick every 2 us.
    MethodSample = "method_sample", Sampling, 2.36;
    /// An edge sample: the top frame's caller, call site and callee
    /// decoded and pushed into the buffer. Measured: cbs at stride 1 with
    /// two bursts.
    EdgeSample = "edge_sample", Sampling, 25.00;
    /// The exhaustive profile, per call and its return: the call-tracing
    /// interpreter's two hooks, the edge counted in a hash map, the
    /// callee's calls, the instructions attributed. Measured: exhaustive
    /// against a plain run of a program of small calls, per call, less the
    /// counting of [`CostItem::ExactInstruction`].
    ExactCall = "exact_call", Sampling, 71.15;
    /// The exhaustive profile, per source instruction: counting it and its
    /// cycles, which the plain interpreter does not (the exact `self` counts
    /// instructions). A sampling profile on the virtual clock counts too,
    /// but only to keep the simulated time, which a real timer does not
    /// need: it is not charged there. Measured: `--cycles` against a plain
    /// run of a loop, per instruction.
    ExactInstruction = "exact_instruction", Sampling, 1.17;
    /// The exhaustive profile with `--record=cct`, per call: the child
    /// context found or created and counted. Measured: exhaustive with and
    /// without `--record=cct`, per call.
    ExactContext = "exact_context", Recording, 29.67;
    /// One frame walked into a calling context tree: its method and call
    /// site decoded, its child context found (move-to-front list) or
    /// created. A full walk pays it for every frame, a marked walk and the
    /// ACCT for each frame they place, an incremental walk for each frame
    /// object it folds. Measured: a full walk at two stack depths, per
    /// frame.
    FrameWalked = "frame_walked", Walking, 7.91;
    /// One frame marked by a walk and its node written into its slot
    /// (Whaley's downward phase; the ACCT's sampled bit). Measured: a
    /// marked walk against a full walk of the same frames.
    FrameMarked = "frame_marked", Walking, 3.73;
    /// A trampoline: a return word saved and patched (Hofer et al.'s
    /// incremental walk; the ACCT's return-address sampled bit), and later
    /// the return through it (the interpreter's detour, the listener
    /// handing back the real word and capturing the caller) or its
    /// restoration at a retrieve. Measured: an incremental walk, per
    /// trampoline, less the frames it folds.
    Trampoline = "trampoline", Walking, 36.33;
    /// What a PCCT adds to a frame walked and marked: the edge's weight and
    /// the node's time incremented and kept sorted in the hot lists
    /// (Whaley 2000, Figure 7's `update_sorted_pos`). Measured: the PCCT
    /// against the marked CCT, per frame placed, on the eight programs of
    /// the rate at the densest cbs (400 to 998 instructions: the hot lists
    /// of a real tree); the geometric mean.
    PcctStep = "pcct_step", Recording, 67.85;
    /// A PCCT purge (`--purge`), per node of the tree it looks at.
    /// Measured: `--purge` at two periods, per node looked at.
    PcctPurge = "pcct_purge", Recording, 17.19;
    /// The ACCT's splice, per sample: from the last sample's node up by
    /// the difference in depth to the last sampled frame's node (Arnold &
    /// Sweeney 2000, section 3). Measured: the ACCT against the marked CCT,
    /// per sample, less the frames placed.
    AcctSplice = "acct_splice", Recording, 43.30;
    /// The CC-Map, on the thread: one frame walked and copied into the
    /// stack buffer (its method and call site). Measured: a full walk into
    /// the CC-Map of deep stacks, less its inserts (the same run counted
    /// by callgrind inside the repository's fold alone), per frame copied.
    CcmapCopy = "ccmap_copy", Recording, 7.06;
    /// The CC-Map, in the organizer (the paper's CC-Map manager): one node
    /// an insert finds or adds (one per frame of the stack, then one per
    /// call of each frame's sequence down to the top, section 3.1.4; for
    /// a marked walk, rebuilding the stack from the previous one is part
    /// of it). Measured: callgrind counting only inside the repository's
    /// fold, per node, on the eight programs of the rate (119 to 192
    /// instructions: the map's size matters); the geometric mean.
    CcmapInsert = "ccmap_insert", Recording, 16.26;
    /// The organizer folding one sample into the dynamic call graph (its
    /// hot methods or its edges). Measured: the organizer alone, full
    /// buffers against buffers of one sample.
    DcgUpdate = "dcg_update", Recording, 10.98;
    /// The organizer receiving one buffer of samples from a thread and
    /// returning it to the pool (a thread hands one over every 512
    /// samples). Measured: the organizer alone, per buffer of one sample.
    OrganizerBuffer = "organizer_buffer", Organizing, 11.40;
    /// The organizer merging one node of a thread's tree into the
    /// repository's (at the thread's end). Measured: the organizer alone,
    /// trees of two sizes.
    MergeNode = "merge_node", Organizing, 47.10;
    /// A profiling session's fixed cost, once per run: starting the
    /// organizer (and its channels and buffer pool), stopping it, and
    /// assembling the profile in memory at the end (writing its file is not
    /// the profiler's work, as in the papers, whose profiles stay in
    /// memory). Measured with [`CostItem::SessionMethod`]: a timer profile
    /// of a program that returns at once, with one method and with a
    /// thousand uncalled ones, against the same runs unprofiled; the two
    /// runs' equations give both.
    Session = "session", Organizing, 7597.92;
    /// A profiling session's cost per method of the program: the
    /// organizer's per-method tables, and each method's entry in the
    /// profile. Measured with [`CostItem::Session`].
    SessionMethod = "session_method", Organizing, 31.97;
    /// `--tune`, per examination of the stack: the thread checking whether
    /// the executing activation was seen before and reporting it, the
    /// organizer's count and, every 1000 examinations, its decision (SSCLI
    /// section 3). Measured: cbs with `--tune` on a program of small calls,
    /// per examination.
    TuneObservation = "tune_observation", Tuning, 15.86;
    /// `--adaptive`: one wake-up of the controller, with its copy of the
    /// live DCG and its cost-benefit estimates (Whaley's model). Measured:
    /// cbs with `--adaptive` on a loop without calls (nothing to inline),
    /// per wake-up.
    ControllerWakeup = "controller_wakeup", Controller, 989.83;
    /// `--adaptive`: one instruction of the module the controller's inliner
    /// produces (the simulated compilation: inlined, verified, loaded).
    /// Measured: `vm inline --policy=linear --emit` (which prints the
    /// module rather than loading it) against its profiling run alone, per
    /// instruction emitted.
    CompileInstruction = "compile_instruction", Controller, 1212.82;
    /// A self-sampling thread's ticket (Hofer et al. 2015, section 4):
    /// taking it and reporting its sample, two atomic updates and a
    /// counter. Latency: not separable in what hofer-fig11 measured; taken
    /// as two cross-core atomic operations, 100 ns.
    Ticket = "ticket", Sampling, 100.0;
    /// A thread parking at a safepoint: publishing its frames and blocking
    /// (half of a futex round trip). Latency: `vm experiment hofer-fig11`,
    /// `many-32-deep`, self-sampling with incremental walks 6.0 us =
    /// ticket 100 + incremental sample 20 + park + release, the round trip
    /// split evenly: (6 000 - 120) / 2 = 2 940 ns.
    Park = "park", Sampling, 2940.0;
    /// From the coordinator ending a safepoint to the held threads running
    /// again (the other half of the futex round trip). Latency: as
    /// [`CostItem::Park`].
    Release = "release", Sampling, 2940.0;
    /// The coordinator's (sampler thread's) work per thread it walks or
    /// accounts for, besides the walk: reading the thread's state and
    /// published view under its lock. Latency: hofer-fig11,
    /// `many-32-deep`, global safepoint 36.0 us for 32 stacks of 50 frames
    /// = park 2 940 + 32 x (this + 50 x 8) + release 2 940: 541 ns.
    Coordinator = "coordinator", Sampling, 540.0;
}

impl CostItem {
    /// Cycles one occurrence costs (rounded down; a ledger keeps the
    /// hundredths).
    pub const fn cycles(self) -> u64 {
        self.centicycles() / 100
    }
}

/// Items whose cost `bench/profiler_costs.sh` measures with callgrind
/// (the others come from latencies, see the module documentation).
pub fn measured_by_callgrind(item: CostItem) -> bool {
    !matches!(
        item,
        CostItem::Ticket | CostItem::Park | CostItem::Release | CostItem::Coordinator
    )
}

/// Cycles to walk one frame into a calling context tree: what the
/// simulated samplers charge a full walk per frame.
pub const WALK_FRAME_CYCLES: u64 = CostItem::FrameWalked.centicycles().div_ceil(100);

/// Cycles of an incremental sample (Hofer et al. 2015, section 5.2): the
/// top frame decoded and its return word patched with a trampoline.
pub const INCREMENTAL_SAMPLE_CYCLES: u64 =
    (CostItem::FrameWalked.centicycles() + CostItem::Trampoline.centicycles()).div_ceil(100);

/// Cycles of one trampoline taken by an incremental walk: the return
/// intercepted, the caller decoded and its own return word patched.
pub const TRAMPOLINE_CYCLES: u64 = INCREMENTAL_SAMPLE_CYCLES;

/// [`CostItem::Ticket`]'s cycles.
pub const TICKET_CYCLES: u64 = CostItem::Ticket.cycles();
/// [`CostItem::Park`]'s cycles.
pub const PARK_CYCLES: u64 = CostItem::Park.cycles();
/// [`CostItem::Release`]'s cycles.
pub const RELEASE_CYCLES: u64 = CostItem::Release.cycles();
/// [`CostItem::Coordinator`]'s cycles.
pub const COORDINATOR_PER_THREAD_CYCLES: u64 = CostItem::Coordinator.cycles();

/// A ledger of profiler work: how often each [`CostItem`] happened, and
/// the cycles that makes. One per application thread (reached through
/// [`crate::hooks::ThreadCtx::work`]), one in the organizer, one in the
/// controller; the profile sums them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Work {
    counts: [u64; ITEMS],
    /// Hundredths of a cycle.
    centi: u64,
}

const ITEMS: usize = CostItem::ALL.len();

impl Default for Work {
    fn default() -> Work {
        Work {
            counts: [0; ITEMS],
            centi: 0,
        }
    }
}

impl Work {
    /// Charges `n` occurrences of `item`.
    #[inline]
    pub fn charge(&mut self, item: CostItem, n: u64) {
        self.counts[item as usize] += n;
        self.centi += n * item.centicycles();
    }

    /// Occurrences of `item` charged so far.
    pub fn count(&self, item: CostItem) -> u64 {
        self.counts[item as usize]
    }

    /// Cycles charged so far (the hundredths summed, then rounded down).
    pub fn cycles(&self) -> u64 {
        self.centi / 100
    }

    /// Cycles charged so far to items of `kind` (rounded down).
    pub fn cycles_of(&self, kind: CostKind) -> u64 {
        CostItem::ALL
            .iter()
            .filter(|i| i.kind() == kind)
            .map(|&i| self.count(i) * i.centicycles())
            .sum::<u64>()
            / 100
    }

    /// Adds `other`'s counts to these.
    pub fn add(&mut self, other: &Work) {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
        self.centi += other.centi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The latency rows reproduce the latencies they were derived from.
    #[test]
    fn the_protocol_rows_give_back_the_measured_latencies() {
        let isps = TICKET_CYCLES + 20 + PARK_CYCLES + RELEASE_CYCLES;
        assert_eq!(isps, 6_000);
        let global = PARK_CYCLES + 32 * (COORDINATOR_PER_THREAD_CYCLES + 50 * 8) + RELEASE_CYCLES;
        assert!(global.abs_diff(36_000) < 100, "{global}");
    }

    #[test]
    fn a_ledger_sums_counts_and_cycles_by_kind() {
        let mut w = Work::default();
        w.charge(CostItem::YieldpointTaken, 10);
        w.charge(CostItem::FrameWalked, 4);
        w.charge(CostItem::FrameWalked, 1);
        assert_eq!(w.count(CostItem::FrameWalked), 5);
        let sampling_centi = 10 * CostItem::YieldpointTaken.centicycles();
        let walking_centi = 5 * CostItem::FrameWalked.centicycles();
        assert_eq!(w.cycles_of(CostKind::Sampling), sampling_centi / 100);
        assert_eq!(w.cycles_of(CostKind::Walking), walking_centi / 100);
        // The hundredths are summed before rounding down.
        let centi = sampling_centi + walking_centi;
        assert_eq!(w.cycles(), centi / 100);
        let mut sum = Work::default();
        sum.add(&w);
        sum.add(&w);
        assert_eq!(sum.cycles(), 2 * centi / 100);
        assert_eq!(sum.count(CostItem::YieldpointTaken), 20);
    }

    /// The committed table is what `bench/profiler_costs.sh` measured last
    /// (its output, kept in `bench/profiler_costs.txt`): every row measured
    /// with callgrind has the cycles recorded there, at the recorded rate.
    #[test]
    fn the_table_is_what_bench_profiler_costs_measured_last() {
        let recorded = include_str!("../../bench/profiler_costs.txt");
        let mut rows = std::collections::HashMap::new();
        let mut rate = None;
        for line in recorded.lines().filter(|l| !l.starts_with('#')) {
            let w: Vec<&str> = line.split_whitespace().collect();
            if w[0] == "rate" {
                rate = Some(w[1].parse::<f64>().unwrap());
            } else {
                assert_eq!(w.len(), 3, "{line}");
                rows.insert(w[0], w[2].to_string());
            }
        }
        let rate = rate.expect("a rate line");
        assert_eq!(
            INSTRUCTIONS_PER_CYCLE,
            rate.round() as u64,
            "INSTRUCTIONS_PER_CYCLE is the measured rate, rounded"
        );
        for &item in CostItem::ALL.iter().filter(|&&i| measured_by_callgrind(i)) {
            let cycles = item.centicycles();
            let committed = format!("{}.{:02}", cycles / 100, cycles % 100);
            assert_eq!(
                rows.get(item.name()),
                Some(&committed),
                "{}: the table says {committed} cycles (bench/profiler_costs.txt)",
                item.name()
            );
        }
        assert!(
            rows.keys()
                .all(|k| CostItem::ALL.iter().any(|i| i.name() == *k)),
            "a recorded row names no item of the table"
        );
    }

    #[test]
    fn names_are_unique_snake_case_keys() {
        let mut names: Vec<&str> = CostItem::ALL.iter().map(|i| i.name()).collect();
        assert!(names
            .iter()
            .all(|n| n.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CostItem::ALL.len());
    }
}
