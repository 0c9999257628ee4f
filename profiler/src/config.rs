//! Profile configuration: the options of docs/CLI.md that choose and tune
//! a profile, their defaults, and which options apply to which profile.
//!
//! Each option is declared once, in [`crate::options::PROFILE_OPTIONS`];
//! the command line fills [`ProfileOptions`] from it, and
//! [`ProfileOptions::resolve`] fills in defaults and rejects an option that
//! does not apply to the chosen `--profile` (a usage error, exit status 2),
//! so that nothing is ever silently ignored: first the table's list of
//! profiles for each option, then the finer rules between options, here.

use std::fmt;
use std::str::FromStr;

use crate::options::{ANY_PROFILE, PROFILE_OPTIONS, SAMPLING};

/// `--profile=KIND`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ProfileKind {
    /// No profiling.
    #[default]
    None,
    /// Every call counted: the exact profile.
    Exhaustive,
    /// The Jikes RVM baseline: a timer tick makes the next yieldpoint of
    /// any kind take a sample.
    Timer,
    /// Counter-based sampling (Arnold & Grove 2005): a tick starts a burst
    /// of samples, one every `stride` prologue/epilogue yieldpoints.
    Cbs,
    /// Arnold & Sweeney's method counter: a sample every `every` calls.
    Counter,
}

/// `--clock`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ClockKind {
    /// A real timer thread.
    #[default]
    Wall,
    /// Ticks in virtual time, counted in cost-model cycles (deterministic).
    Virtual,
}

/// What `--record` builds from the samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RecordKind {
    /// The dynamic call graph and hot methods.
    Dcg,
    /// A calling context tree.
    Cct,
    /// Whaley's partial calling context tree.
    Pcct,
    /// Arnold & Sweeney's approximate calling context tree.
    Acct,
    /// The SSCLI call context map.
    Ccmap,
}

/// `--walk`: how a sample examines the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WalkKind {
    /// The current edge only.
    Top,
    /// Every frame, up to `--max-walk`.
    Full,
    /// Up to the first frame marked by an earlier sample.
    Marked,
    /// Lazily, through return-address trampolines.
    Incremental,
}

/// `--acct-update`: how an ACCT sample updates edge weights (Arnold &
/// Sweeney 2000, section 3.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AcctUpdateKind {
    /// increment-the-last-edge-only: one call of the top frame's context
    /// per edge sample.
    #[default]
    LastEdge,
    /// increment-all-new-edges: one call of every context a walk placed
    /// for a frame pushed since the previous sample.
    AllNewEdges,
}

/// `--sampled-bit` (an extension): where the ACCT keeps a frame's
/// "sampled" bit (Arnold & Sweeney 2000, section 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SampledBitKind {
    /// The mark bit of the frame's return word (`--walk=marked`).
    #[default]
    Mark,
    /// Return-address replacement: a sampled frame's return word is
    /// replaced by a trampoline word (the paper's "known location"), and
    /// the real word is kept by the profiler until the frame returns.
    ReturnAddress,
}

macro_rules! names {
    ($ty:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        impl $ty {
            /// The name used on the command line and in profiles.
            pub fn name(self) -> &'static str {
                match self { $($ty::$variant => $name,)* }
            }
        }
        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s {
                    $($name => Ok($ty::$variant),)*
                    _ => Err(format!(
                        "`{s}` is not one of: {}",
                        [$($name),*].join(", ")
                    )),
                }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

names!(ProfileKind { None = "none", Exhaustive = "exhaustive", Timer = "timer", Cbs = "cbs", Counter = "counter" });
names!(ClockKind { Wall = "wall", Virtual = "virtual" });
names!(RecordKind { Dcg = "dcg", Cct = "cct", Pcct = "pcct", Acct = "acct", Ccmap = "ccmap" });
names!(WalkKind { Top = "top", Full = "full", Marked = "marked", Incremental = "incremental" });
names!(AcctUpdateKind { LastEdge = "last-edge", AllNewEdges = "all-new-edges" });
names!(SampledBitKind { Mark = "mark", ReturnAddress = "return-address" });

/// Parses a duration such as `10ms`, `1ms`, `100us`, `50000ns` or `1s`
/// into nanoseconds.
pub fn parse_duration(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let (num, mult) = if let Some(n) = s.strip_suffix("ns") {
        (n, 1)
    } else if let Some(n) = s.strip_suffix("us") {
        (n, 1_000)
    } else if let Some(n) = s.strip_suffix("ms") {
        (n, 1_000_000)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1_000_000_000)
    } else {
        return Err(format!(
            "`{s}` needs a unit: ns, us, ms or s (e.g. 1ms, 100us)"
        ));
    };
    let v: u64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number of {}", &s[num.len()..]))?;
    let ns = v
        .checked_mul(mult)
        .ok_or_else(|| format!("`{s}` is too long"))?;
    if ns == 0 {
        return Err("a duration must be greater than zero".into());
    }
    Ok(ns)
}

/// Parses `--record=LIST` (comma-separated, no duplicates).
pub fn parse_record_list(s: &str) -> Result<Vec<RecordKind>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        let r: RecordKind = part.trim().parse()?;
        if out.contains(&r) {
            return Err(format!("`{r}` is listed twice"));
        }
        out.push(r);
    }
    out.sort();
    Ok(out)
}

/// The profiling options as given on the command line (`None` = not
/// given): one field per row of [`PROFILE_OPTIONS`], which fills them.
#[derive(Clone, Debug, Default)]
pub struct ProfileOptions {
    /// `--profile`.
    pub profile: Option<ProfileKind>,
    /// `--interval`, in nanoseconds.
    pub interval_ns: Option<u64>,
    /// `--stride`.
    pub stride: Option<u32>,
    /// `--samples`.
    pub samples: Option<u32>,
    /// `--every`.
    pub every: Option<u32>,
    /// `--clock`.
    pub clock: Option<ClockKind>,
    /// `--seed`.
    pub seed: Option<u64>,
    /// `--record`.
    pub record: Option<Vec<RecordKind>>,
    /// `--walk`.
    pub walk: Option<WalkKind>,
    /// `--max-walk`.
    pub max_walk: Option<u32>,
    /// `--acct-update` (as given; parsed by [`ProfileOptions::resolve`]).
    pub acct_update: Option<String>,
    /// `--sampled-bit` (an extension, acct only).
    pub sampled_bit: Option<SampledBitKind>,
    /// `--purge=N` (an extension, pcct only): purge cold contexts every N
    /// samples of a thread.
    pub purge: Option<u64>,
    /// `--tune`.
    pub tune: bool,
    /// `--sampler`.
    pub sampler: Option<String>,
    /// `--sample-threads`.
    pub sample_threads: Option<u32>,
    /// `--runnable-only` (an extension: section 3.1 off).
    pub runnable_only: bool,
    /// `--no-hold` (an extension: self-sampling threads are not held).
    pub no_hold: bool,
    /// `vm run --cores` (with `--clock=virtual`): the simulated machine's
    /// cores, set by the command, not a row of [`PROFILE_OPTIONS`].
    pub cores: Option<u32>,
    /// `vm run --quantum`, with `cores`.
    pub quantum: Option<u64>,
}

/// A complete, valid profile configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileConfig {
    /// Which profile.
    pub kind: ProfileKind,
    /// Timer period (timer, cbs).
    pub interval_ns: u64,
    /// Prologue/epilogue yieldpoints between cbs samples.
    pub stride: u32,
    /// Samples per cbs burst.
    pub samples: u32,
    /// Calls between counter samples.
    pub every: u32,
    /// Wall or virtual clock (timer, cbs).
    pub clock: ClockKind,
    /// The seed of every random choice.
    pub seed: u64,
    /// What to build.
    pub record: Vec<RecordKind>,
    /// How a sample examines the stack: `top` unless a calling context
    /// record (`cct`) needs more.
    pub walk: WalkKind,
    /// Frames one sample may examine (`top`: 1; `acct` and `incremental`,
    /// never cut: `u32::MAX`).
    pub max_walk: u32,
    /// `--tune`: the self-tuning sampling interval.
    pub tune: bool,
    /// The ACCT's edge update strategy.
    pub acct_update: AcctUpdateKind,
    /// Where the ACCT keeps a frame's sampled bit.
    pub sampled_bit: SampledBitKind,
    /// PCCT: purge cold contexts every this many samples of a thread.
    pub purge: Option<u64>,
    /// Who walks the stacks (`--profile=timer`; see [`crate::sampler`]).
    pub sampler: crate::sampler::SamplerKind,
    /// Threads one partial safepoint samples (`partial`, `self`).
    pub sample_threads: u32,
    /// `--runnable-only`: a partial safepoint samples runnable threads
    /// only, waiting threads never (section 3.1 off).
    pub runnable_only: bool,
    /// `--no-hold`: a self-sampling thread goes on as soon as it has walked
    /// itself.
    pub no_hold: bool,
    /// The simulated machine's cores (`--cores`), if the run simulates one.
    pub cores: Option<u32>,
    /// Its quantum in cycles (`--quantum`, or the default), with `cores`.
    pub quantum: Option<u64>,
}

/// Default `--interval`: 1 ms.
pub const DEFAULT_INTERVAL_NS: u64 = 1_000_000;
/// Default `--stride`.
pub const DEFAULT_STRIDE: u32 = 3;
/// Default `--samples`.
pub const DEFAULT_SAMPLES: u32 = 16;
/// Default `--every`.
pub const DEFAULT_EVERY: u32 = 100;
/// Default `--max-walk` of `--walk=marked`: Whaley's buffer of 16 methods.
pub const DEFAULT_MAX_WALK_MARKED: u32 = 16;
/// Default `--max-walk` of `--walk=full`.
pub const DEFAULT_MAX_WALK_FULL: u32 = 256;

/// An option of the command line only (`--profile-out`, say) that applies
/// to some profiles only: [`ProfileOptions::resolve_with`] checks it with
/// the rows of [`PROFILE_OPTIONS`], after them.
#[derive(Clone, Copy, Debug)]
pub struct Applicability {
    /// The flag, as the usage error names it.
    pub flag: &'static str,
    /// The `--profile` kinds it applies to.
    pub profiles: &'static [ProfileKind],
}

/// How a usage error names a set of profiles: `--profile=timer|cbs`, or
/// `every --profile but none`.
fn describe(profiles: &[ProfileKind]) -> String {
    if profiles == ANY_PROFILE {
        "every --profile but none".into()
    } else {
        let names: Vec<&str> = profiles.iter().map(|k| k.name()).collect();
        format!("--profile={}", names.join("|"))
    }
}

impl ProfileOptions {
    /// Fills in defaults and checks that every option given applies to the
    /// chosen profile ([`PROFILE_OPTIONS`], then the rules between
    /// options). `random_seed` is used when `--seed` is absent.
    pub fn resolve(&self, random_seed: u64) -> Result<ProfileConfig, String> {
        self.resolve_with(&[], random_seed)
    }

    /// [`ProfileOptions::resolve`], with `command_line`, the options of the
    /// command line only that were given, checked after the table's.
    pub fn resolve_with(
        &self,
        command_line: &[Applicability],
        random_seed: u64,
    ) -> Result<ProfileConfig, String> {
        let kind = self.profile.unwrap_or_default();
        let sampling = SAMPLING.contains(&kind);
        let given = PROFILE_OPTIONS
            .iter()
            .filter(|o| (o.given)(self))
            .map(|o| (o.flag, o.profiles));
        let mut problems: Vec<String> = given
            .chain(command_line.iter().map(|a| (a.flag, a.profiles)))
            .filter(|(_, profiles)| !profiles.contains(&kind))
            .map(|(flag, profiles)| {
                format!(
                    "{flag} does not apply to --profile={kind} (it applies to {})",
                    describe(profiles)
                )
            })
            .collect();
        if self.acct_update.is_some()
            && !self
                .record
                .as_ref()
                .is_some_and(|r| r.contains(&RecordKind::Acct))
        {
            problems.push("--acct-update applies only with --record including acct".into());
        }
        problems.extend(crate::options::below_minimum(self));
        let record = self.resolve_record(kind, &mut problems);
        let pcct = sampling && record.contains(&RecordKind::Pcct);
        let acct = sampling && record.contains(&RecordKind::Acct);
        let (walk, max_walk) = self.resolve_walk(sampling, &record, &mut problems);
        let acct_update = self.resolve_record_extensions(pcct, acct, &mut problems);
        let (sampler, sample_threads, runnable_only) = self.resolve_sampler(kind, &mut problems);
        let no_hold = self.no_hold && kind == ProfileKind::Timer;
        if !problems.is_empty() {
            return Err(problems.join("\n"));
        }
        Ok(ProfileConfig {
            kind,
            interval_ns: self.interval_ns.unwrap_or(DEFAULT_INTERVAL_NS),
            stride: self.stride.unwrap_or(DEFAULT_STRIDE),
            samples: self.samples.unwrap_or(DEFAULT_SAMPLES),
            every: self.every.unwrap_or(DEFAULT_EVERY),
            clock: self.clock.unwrap_or_default(),
            seed: self.seed.unwrap_or(random_seed),
            record,
            walk,
            max_walk,
            tune: self.tune,
            acct_update,
            sampled_bit: self.sampled_bit.unwrap_or_default(),
            purge: self.purge,
            sampler,
            sample_threads,
            runnable_only,
            no_hold,
            cores: self.cores,
            quantum: self
                .cores
                .map(|_| self.quantum.unwrap_or(vm::schedule::DEFAULT_QUANTUM)),
        })
    }

    /// `--record` (default `dcg`): the exhaustive profile records only what
    /// it counts (dcg, cct); a profile has one calling-context tree.
    fn resolve_record(&self, kind: ProfileKind, problems: &mut Vec<String>) -> Vec<RecordKind> {
        let record = self.record.clone().unwrap_or_else(|| vec![RecordKind::Dcg]);
        if kind == ProfileKind::Exhaustive {
            if let Some(r) = record
                .iter()
                .find(|r| !matches!(r, RecordKind::Dcg | RecordKind::Cct))
            {
                problems.push(format!(
                    "--record={r} builds from samples; --profile=exhaustive records dcg and cct"
                ));
            }
        }
        // One calling context tree per profile: the file has one `cct`
        // section, and two marked walks would share the frames' marks.
        let trees: Vec<&str> = record
            .iter()
            .filter(|r| **r != RecordKind::Dcg)
            .map(|r| r.name())
            .collect();
        if trees.len() > 1 {
            problems.push(format!(
                "--record may name one calling context tree (cct, pcct, acct or ccmap), not {}: \
                 the profile has one cct section",
                trees.join(" and ")
            ));
        }
        record
    }

    /// `--walk` and `--max-walk`: only a calling-context record needs more
    /// than the top frame; the dcg's walk is `top`. The PCCT and the ACCT
    /// are built by the marked walk (Whaley's Figure 7; Arnold & Sweeney's
    /// sampled-bit walk), which is their default and only walk; the CCT and
    /// the ccmap default to the full walk. Returns the walk and its cut.
    fn resolve_walk(
        &self,
        sampling: bool,
        record: &[RecordKind],
        problems: &mut Vec<String>,
    ) -> (WalkKind, u32) {
        let pcct = sampling && record.contains(&RecordKind::Pcct);
        let acct = sampling && record.contains(&RecordKind::Acct);
        let contexts = sampling
            && (record.contains(&RecordKind::Cct)
                || record.contains(&RecordKind::Ccmap)
                || pcct
                || acct);
        if sampling {
            match self.walk {
                Some(WalkKind::Top) if contexts => problems.push(
                    "--walk=top examines only the top frame, which names the call edge but not \
                     its calling context; --record=cct needs --walk=full, marked or incremental, \
                     --record=ccmap --walk=full or marked, --record=pcct|acct --walk=marked"
                        .into(),
                ),
                Some(w @ (WalkKind::Full | WalkKind::Marked | WalkKind::Incremental))
                    if !contexts =>
                {
                    problems.push(format!(
                        "--walk={w} applies only when --record includes cct, pcct, acct or ccmap \
                         (the dcg needs only the top frame)"
                    ))
                }
                Some(w @ (WalkKind::Full | WalkKind::Incremental)) if pcct || acct => problems
                    .push(format!(
                        "--record={} is built by the marked walk, which tells new frames from \
                         old ones; --walk={w} does not apply to it: use --walk=marked (its \
                         default)",
                        if pcct { "pcct" } else { "acct" }
                    )),
                Some(WalkKind::Incremental) if record.contains(&RecordKind::Ccmap) => problems
                    .push(
                    "--walk=incremental does not apply to --record=ccmap: the CC-Map folds whole \
                     stacks walked at each sample; use --walk=full or --walk=marked"
                        .into(),
                ),
                _ => {}
            }
            if self.max_walk.is_some() && self.walk == Some(WalkKind::Incremental) {
                problems.push(
                    "--max-walk does not apply to --walk=incremental, which is never cut \
                     (it captures every frame, lazily)"
                        .into(),
                );
            } else if self.max_walk.is_some() && (!contexts || self.walk == Some(WalkKind::Top)) {
                problems.push(
                    "--max-walk applies only when --record includes cct, pcct or ccmap, with \
                     --walk=full or marked"
                        .into(),
                );
            } else if self.max_walk.is_some() && acct {
                problems.push(
                    "--max-walk does not apply to --record=acct: an ACCT walk always goes up to \
                     the last sampled frame (Arnold & Sweeney 2000, section 5)"
                        .into(),
                );
            }
        }
        let walk = match self.walk {
            Some(w) if sampling => w,
            _ if pcct || acct => WalkKind::Marked,
            _ if contexts => WalkKind::Full,
            _ => WalkKind::Top,
        };
        let max_walk = match walk {
            WalkKind::Top => 1,
            WalkKind::Marked if acct => u32::MAX,
            WalkKind::Marked => self.max_walk.unwrap_or(DEFAULT_MAX_WALK_MARKED),
            WalkKind::Full => self.max_walk.unwrap_or(DEFAULT_MAX_WALK_FULL),
            // Never cut (docs/CLI.md).
            WalkKind::Incremental => u32::MAX,
        };
        (walk, max_walk)
    }

    /// The records' own options: `--acct-update` and `--sampled-bit`
    /// (acct), `--purge` (pcct). Returns the ACCT update strategy.
    fn resolve_record_extensions(
        &self,
        pcct: bool,
        acct: bool,
        problems: &mut Vec<String>,
    ) -> AcctUpdateKind {
        let acct_update = match &self.acct_update {
            Some(s) => match s.parse::<AcctUpdateKind>() {
                Ok(u) => u,
                Err(e) => {
                    problems.push(format!("--acct-update: {e}"));
                    AcctUpdateKind::default()
                }
            },
            None => AcctUpdateKind::default(),
        };
        if self.sampled_bit.is_some() && !acct {
            problems.push(
                "--sampled-bit applies only with --record including acct and a sampling --profile"
                    .into(),
            );
        }
        if self.purge.is_some() && !pcct {
            problems.push(
                "--purge applies only with --record including pcct and a sampling --profile".into(),
            );
        }
        acct_update
    }

    /// `--sampler`, `--sample-threads` and `--runnable-only` (see
    /// [`crate::sampler`]): only `--profile=timer` has them; `safepoint`
    /// and `partial` need a sampler thread on the wall clock;
    /// `--sample-threads` bounds a partial safepoint (`partial`, and `self`
    /// on the wall clock), and `--runnable-only` keeps waiting threads out
    /// of it.
    fn resolve_sampler(
        &self,
        kind: ProfileKind,
        problems: &mut Vec<String>,
    ) -> (crate::sampler::SamplerKind, u32, bool) {
        use crate::sampler::SamplerKind;
        let sampler = match self.sampler.as_deref().map(str::parse::<SamplerKind>) {
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                problems.push(e);
                SamplerKind::default()
            }
            None => SamplerKind::default(),
        };
        if kind != ProfileKind::Timer {
            return (sampler, 1, false);
        }
        let clock = self.clock.unwrap_or_default();
        // On a simulated machine (`--cores`) the samplers tick in its
        // virtual time: every option applies as on the wall clock.
        let simulated = clock == ClockKind::Virtual && self.cores.is_some();
        let clock = if simulated { ClockKind::Wall } else { clock };
        if simulated && self.tune {
            problems.push(
                "--tune does not apply with --cores (the simulated machine's sampler ticks at a \
                 fixed --interval)"
                    .into(),
            );
        }
        if clock == ClockKind::Virtual && sampler != SamplerKind::SelfSampling {
            problems.push(format!(
                "--sampler={sampler} needs --clock=wall: its sampler thread ticks in real time \
                 (under --clock=virtual each thread samples itself, --sampler=self)"
            ));
        }
        if self.sample_threads.is_some() {
            partial_safepoint_option("--sample-threads", sampler, clock, problems);
        }
        if self.runnable_only {
            partial_safepoint_option("--runnable-only", sampler, clock, problems);
        }
        if self.no_hold {
            if sampler != SamplerKind::SelfSampling {
                problems.push(format!(
                    "--no-hold does not apply to --sampler={sampler} (the sampler thread walks \
                     the threads it holds); it applies to --sampler=self"
                ));
            } else if clock == ClockKind::Virtual {
                problems.push(
                    "--no-hold does not apply with --clock=virtual (every thread samples itself \
                     at its own virtual ticks, held by nobody)"
                        .into(),
                );
            }
        }
        let n = self
            .sample_threads
            .or(self.cores.filter(|_| simulated))
            .unwrap_or_else(crate::sampler::default_sample_threads)
            .max(1);
        (sampler, n, self.runnable_only)
    }
}

/// `flag` shapes the partial safepoint of a sampler thread
/// (`--sampler=partial|self` on the wall clock): with a global safepoint or
/// under the virtual clock it would do nothing, a usage error.
fn partial_safepoint_option(
    flag: &str,
    sampler: crate::sampler::SamplerKind,
    clock: ClockKind,
    problems: &mut Vec<String>,
) {
    if sampler == crate::sampler::SamplerKind::Safepoint {
        problems.push(format!(
            "{flag} does not apply to --sampler=safepoint (a global safepoint samples every \
             thread); it applies to --sampler=partial|self"
        ));
    } else if clock == ClockKind::Virtual {
        problems.push(format!(
            "{flag} does not apply with --clock=virtual (every thread samples itself at its \
             own virtual ticks)"
        ));
    }
}

impl ProfileConfig {
    /// Does this run count instructions (virtual clock or exhaustive)?
    pub fn counts_instructions(&self) -> bool {
        self.kind == ProfileKind::Exhaustive
            || (self.uses_timer() && self.clock == ClockKind::Virtual)
    }

    /// Does a sampling profile build a calling context tree (`--record=cct`)
    /// from walks?
    pub fn samples_contexts(&self) -> bool {
        self.samples_record(RecordKind::Cct)
    }

    /// Does a sampling profile build `record` from its samples?
    pub fn samples_record(&self, record: RecordKind) -> bool {
        matches!(
            self.kind,
            ProfileKind::Timer | ProfileKind::Cbs | ProfileKind::Counter
        ) && self.record.contains(&record)
    }

    /// Does a sampling profile build the SSCLI Call Context Map from walks?
    pub fn samples_ccmap(&self) -> bool {
        self.samples_record(RecordKind::Ccmap)
    }

    /// Does a sample walk the stack into a calling context record (`cct`,
    /// `pcct`, `acct` or `ccmap`)?
    pub fn walks_stacks(&self) -> bool {
        [
            RecordKind::Cct,
            RecordKind::Pcct,
            RecordKind::Acct,
            RecordKind::Ccmap,
        ]
        .into_iter()
        .any(|r| self.samples_record(r))
    }

    /// Does a sampler thread take this profile's samples in safepoints
    /// (`--profile=timer` on the wall clock; see [`crate::sampler`])?
    pub fn uses_sampler_thread(&self) -> bool {
        self.kind == ProfileKind::Timer && self.clock == ClockKind::Wall
    }

    /// Does the simulated machine run this profile's sampler in virtual
    /// time (`--profile=timer --clock=virtual --cores=N`; see
    /// [`vm::simsample`])?
    pub fn simulates_sampler(&self) -> bool {
        self.kind == ProfileKind::Timer && self.clock == ClockKind::Virtual && self.cores.is_some()
    }

    /// Is this profile driven by a timer tick?
    pub fn uses_timer(&self) -> bool {
        matches!(self.kind, ProfileKind::Timer | ProfileKind::Cbs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1ms"), Ok(1_000_000));
        assert_eq!(parse_duration("100us"), Ok(100_000));
        assert_eq!(parse_duration("10ms"), Ok(10_000_000));
        assert_eq!(parse_duration("2s"), Ok(2_000_000_000));
        assert_eq!(parse_duration("250ns"), Ok(250));
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("0ms").is_err());
        assert!(parse_duration("1.5ms").is_err());
        assert!(parse_duration("ms").is_err());
    }

    #[test]
    fn defaults_follow_the_spec() {
        let o = ProfileOptions {
            profile: Some(ProfileKind::Cbs),
            ..Default::default()
        };
        let c = o.resolve(7).unwrap();
        assert_eq!(
            (c.interval_ns, c.stride, c.samples, c.every),
            (1_000_000, 3, 16, 100)
        );
        assert_eq!(c.clock, ClockKind::Wall);
        assert_eq!(c.seed, 7);
        assert_eq!(c.record, vec![RecordKind::Dcg]);
    }

    #[test]
    fn options_that_do_not_apply_are_errors() {
        let bad = |o: ProfileOptions| o.resolve(1).unwrap_err();
        let timer = || ProfileOptions {
            profile: Some(ProfileKind::Timer),
            ..Default::default()
        };
        assert!(bad(ProfileOptions {
            stride: Some(3),
            ..timer()
        })
        .contains("--stride"));
        assert!(bad(ProfileOptions {
            every: Some(3),
            profile: Some(ProfileKind::Cbs),
            ..Default::default()
        })
        .contains("--every"));
        assert!(bad(ProfileOptions {
            interval_ns: Some(1),
            ..Default::default()
        })
        .contains("--profile=none"));
        // The command line's own options (here as `vm run` declares two of
        // them) are checked with the table's.
        let no_yieldpoints = Applicability {
            flag: "--no-yieldpoints",
            profiles: &[ProfileKind::None, ProfileKind::Exhaustive],
        };
        let profile_out = Applicability {
            flag: "--profile-out",
            profiles: ANY_PROFILE,
        };
        assert!(timer()
            .resolve_with(&[no_yieldpoints], 1)
            .unwrap_err()
            .contains("--no-yieldpoints"));
        assert!(ProfileOptions::default()
            .resolve_with(&[profile_out], 1)
            .unwrap_err()
            .contains("--profile-out"));
        assert!(ProfileOptions {
            profile: Some(ProfileKind::Exhaustive),
            ..Default::default()
        }
        .resolve_with(&[no_yieldpoints], 1)
        .is_ok());
    }

    #[test]
    fn walks_and_their_defaults() {
        let with = |profile, record: Option<Vec<RecordKind>>, walk, max_walk| ProfileOptions {
            profile: Some(profile),
            record,
            walk,
            max_walk,
            ..Default::default()
        };
        let cct = || Some(vec![RecordKind::Dcg, RecordKind::Cct]);
        let ok = |o: ProfileOptions| {
            let c = o.resolve(1).unwrap();
            (c.walk, c.max_walk)
        };
        // The dcg alone walks only the top frame.
        assert_eq!(
            ok(with(ProfileKind::Timer, None, None, None)),
            (WalkKind::Top, 1)
        );
        assert_eq!(
            ok(with(ProfileKind::Cbs, None, Some(WalkKind::Top), None)),
            (WalkKind::Top, 1)
        );
        // A CCT: full by default (256), marked 16.
        for kind in [ProfileKind::Timer, ProfileKind::Cbs, ProfileKind::Counter] {
            assert_eq!(ok(with(kind, cct(), None, None)), (WalkKind::Full, 256));
            assert_eq!(
                ok(with(kind, cct(), Some(WalkKind::Marked), None)),
                (WalkKind::Marked, 16)
            );
            assert_eq!(
                ok(with(
                    kind,
                    Some(vec![RecordKind::Cct]),
                    Some(WalkKind::Full),
                    Some(9)
                )),
                (WalkKind::Full, 9)
            );
            let c = with(kind, cct(), None, None).resolve(1).unwrap();
            assert!(c.samples_contexts());
        }
        let c = with(ProfileKind::Exhaustive, cct(), None, None)
            .resolve(1)
            .unwrap();
        assert!(!c.samples_contexts());
        // Usage errors.
        let bad = |o: ProfileOptions| o.resolve(1).unwrap_err();
        assert!(
            bad(with(ProfileKind::Counter, cct(), Some(WalkKind::Top), None))
                .contains("--walk=top")
        );
        assert!(
            bad(with(ProfileKind::Counter, None, Some(WalkKind::Full), None)).contains("--record")
        );
        assert!(bad(with(ProfileKind::Counter, None, None, Some(16))).contains("--max-walk"));
        assert!(bad(with(
            ProfileKind::Counter,
            cct(),
            Some(WalkKind::Full),
            Some(0)
        ))
        .contains("at least 1"));
        for kind in [ProfileKind::Timer, ProfileKind::Cbs, ProfileKind::Counter] {
            assert_eq!(
                ok(with(kind, cct(), Some(WalkKind::Incremental), None)),
                (WalkKind::Incremental, u32::MAX)
            );
            assert!(
                bad(with(kind, cct(), Some(WalkKind::Incremental), Some(16))).contains("never cut")
            );
            assert!(bad(with(kind, None, Some(WalkKind::Incremental), None)).contains("--record"));
            // The PCCT and the ACCT are built by the marked walk: at most one
            // recorder (the incremental walk or the ACCT) owns trampolines.
            for tree in [RecordKind::Pcct, RecordKind::Acct] {
                for walk in [WalkKind::Incremental, WalkKind::Full] {
                    assert!(bad(with(kind, Some(vec![tree]), Some(walk), None))
                        .contains("--walk=marked"));
                }
            }
        }
        assert!(bad(with(
            ProfileKind::Exhaustive,
            cct(),
            Some(WalkKind::Full),
            None
        ))
        .contains("does not apply"));
        assert!(bad(with(ProfileKind::Exhaustive, cct(), None, Some(3))).contains("--max-walk"));
        // ccmap: full by default, marked allowed, top refused; one
        // calling context tree at a time.
        let ccmap = || Some(vec![RecordKind::Ccmap]);
        for kind in [ProfileKind::Timer, ProfileKind::Cbs, ProfileKind::Counter] {
            assert_eq!(ok(with(kind, ccmap(), None, None)), (WalkKind::Full, 256));
            assert_eq!(
                ok(with(kind, ccmap(), Some(WalkKind::Marked), None)),
                (WalkKind::Marked, 16)
            );
            let c = with(kind, ccmap(), None, None).resolve(1).unwrap();
            assert!(c.samples_ccmap() && !c.samples_contexts() && c.walks_stacks());
        }
        assert!(
            bad(with(ProfileKind::Timer, ccmap(), Some(WalkKind::Top), None)).contains("ccmap")
        );
        for other in [RecordKind::Cct, RecordKind::Pcct, RecordKind::Acct] {
            let e = bad(with(
                ProfileKind::Timer,
                Some(vec![other, RecordKind::Ccmap]),
                None,
                None,
            ));
            assert!(e.contains("one calling context tree"), "{e}");
        }
        assert!(bad(with(ProfileKind::Exhaustive, ccmap(), None, None)).contains("ccmap"));
    }

    #[test]
    fn pcct_and_acct_options() {
        let with = |record: Vec<RecordKind>| ProfileOptions {
            profile: Some(ProfileKind::Counter),
            record: Some(record),
            ..Default::default()
        };
        // Both default to the marked walk; pcct with Whaley's buffer of
        // 16, acct never cut; last-edge and the mark bit by default.
        let c = with(vec![RecordKind::Pcct]).resolve(1).unwrap();
        assert_eq!((c.walk, c.max_walk, c.purge), (WalkKind::Marked, 16, None));
        assert!(c.walks_stacks() && !c.samples_contexts());
        let c = with(vec![RecordKind::Dcg, RecordKind::Acct])
            .resolve(1)
            .unwrap();
        assert_eq!((c.walk, c.max_walk), (WalkKind::Marked, u32::MAX));
        assert_eq!(
            (c.acct_update, c.sampled_bit),
            (AcctUpdateKind::LastEdge, SampledBitKind::Mark)
        );
        let c = ProfileOptions {
            acct_update: Some("all-new-edges".into()),
            sampled_bit: Some(SampledBitKind::ReturnAddress),
            ..with(vec![RecordKind::Acct])
        }
        .resolve(1)
        .unwrap();
        assert_eq!(
            (c.acct_update, c.sampled_bit),
            (AcctUpdateKind::AllNewEdges, SampledBitKind::ReturnAddress)
        );
        let c = ProfileOptions {
            purge: Some(50),
            max_walk: Some(4),
            ..with(vec![RecordKind::Pcct])
        }
        .resolve(1)
        .unwrap();
        assert_eq!((c.max_walk, c.purge), (4, Some(50)));
        // Usage errors.
        let bad = |o: ProfileOptions| o.resolve(1).unwrap_err();
        assert!(
            bad(with(vec![RecordKind::Cct, RecordKind::Pcct])).contains("one calling context tree")
        );
        assert!(bad(with(vec![RecordKind::Acct, RecordKind::Pcct]))
            .contains("one calling context tree"));
        assert!(bad(ProfileOptions {
            walk: Some(WalkKind::Full),
            ..with(vec![RecordKind::Pcct])
        })
        .contains("--walk=marked"));
        assert!(bad(ProfileOptions {
            max_walk: Some(4),
            ..with(vec![RecordKind::Acct])
        })
        .contains("--max-walk"));
        assert!(bad(ProfileOptions {
            acct_update: Some("sideways".into()),
            ..with(vec![RecordKind::Acct])
        })
        .contains("--acct-update"));
        assert!(bad(ProfileOptions {
            acct_update: Some("last-edge".into()),
            ..with(vec![RecordKind::Pcct])
        })
        .contains("--acct-update"));
        assert!(bad(ProfileOptions {
            sampled_bit: Some(SampledBitKind::Mark),
            ..with(vec![RecordKind::Pcct])
        })
        .contains("--sampled-bit"));
        assert!(bad(ProfileOptions {
            purge: Some(5),
            ..with(vec![RecordKind::Acct])
        })
        .contains("--purge"));
        assert!(bad(ProfileOptions {
            purge: Some(0),
            ..with(vec![RecordKind::Pcct])
        })
        .contains("at least 1"));
        assert!(bad(ProfileOptions {
            profile: Some(ProfileKind::Exhaustive),
            ..with(vec![RecordKind::Pcct])
        })
        .contains("exhaustive"));
    }

    #[test]
    fn tune_applies_to_sampling_profiles() {
        for kind in [ProfileKind::Timer, ProfileKind::Cbs, ProfileKind::Counter] {
            let c = ProfileOptions {
                profile: Some(kind),
                tune: true,
                ..Default::default()
            }
            .resolve(1)
            .unwrap();
            assert!(c.tune);
        }
        for kind in [ProfileKind::None, ProfileKind::Exhaustive] {
            let e = ProfileOptions {
                profile: Some(kind),
                tune: true,
                ..Default::default()
            }
            .resolve(1)
            .unwrap_err();
            assert!(e.contains("--tune does not apply"), "{e}");
        }
    }

    #[test]
    fn record_lists() {
        assert_eq!(
            parse_record_list("cct,dcg"),
            Ok(vec![RecordKind::Dcg, RecordKind::Cct])
        );
        assert!(parse_record_list("dcg,dcg").is_err());
        assert!(parse_record_list("tree").is_err());
    }
}
