//! The profiling options of `vm run`, each declared once: one row of
//! [`PROFILE_OPTIONS`] per option (docs/ARCHITECTURE.md, "Options and
//! limits").
//!
//! A row says everything the rest of the program needs to know about an
//! option: its flag, how its value is written, its help text and default
//! as `vm run --help` shows them, the profiles it applies to, how it is
//! stored in [`ProfileOptions`], and the key under which the profile's
//! `config` section records it. From the rows,
//!
//! - the command line builds its clap arguments (`src/cli/profile_args.rs`),
//! - [`ProfileOptions::resolve`] reports an option given with a profile it
//!   does not apply to (the finer rules between options follow there),
//! - [`config_section`] writes the profile's `config` section.
//!
//! The table is in the style of an instruction table (wasmi's, or the
//! VM's own `opcode.rs`): plain data, read by loops.

use profile::ConfigSection;
use serde_json::Value as Json;

use crate::config::{
    parse_duration, parse_record_list, ProfileConfig, ProfileKind, ProfileOptions,
};
use crate::config::{RecordKind, SampledBitKind};
use crate::sampler::SamplerKind;

/// The sampling profiles: their samples build records through walks.
pub const SAMPLING: &[ProfileKind] = &[ProfileKind::Timer, ProfileKind::Cbs, ProfileKind::Counter];
/// The profiles driven by a timer tick.
pub const TICKING: &[ProfileKind] = &[ProfileKind::Timer, ProfileKind::Cbs];
/// Every profile but `none`.
pub const ANY_PROFILE: &[ProfileKind] = &[
    ProfileKind::Exhaustive,
    ProfileKind::Timer,
    ProfileKind::Cbs,
    ProfileKind::Counter,
];
/// Every profile, `none` included: an option whose rules are finer than a
/// list of profiles (they are checked in [`ProfileOptions::resolve`]).
pub const ALL_PROFILES: &[ProfileKind] = &[
    ProfileKind::None,
    ProfileKind::Exhaustive,
    ProfileKind::Timer,
    ProfileKind::Cbs,
    ProfileKind::Counter,
];

/// How an option's value is written on the command line.
#[derive(Clone, Copy, Debug)]
pub enum ValueKind {
    /// No value: the flag alone (`--tune`).
    Switch,
    /// A whole number that fits in `bits` bits (`--stride=N`), at least
    /// `min`: a smaller one is a usage error worded from the row
    /// ([`below_minimum`]). `get` reads the value back from
    /// [`ProfileOptions`].
    Count {
        /// 32 or 64: the type clap parses the value as.
        bits: Bits,
        /// The smallest value accepted.
        min: u64,
        /// The value given, if any.
        get: fn(&ProfileOptions) -> Option<u64>,
    },
    /// A value the row's [`OptionSpec::set`] parses as the command line is
    /// read (`--interval=1ms`): a bad one is refused there.
    Parsed,
    /// Text kept as given and checked by [`ProfileOptions::resolve`] with
    /// the other rules (`--sampler=HOW`): a bad one is one problem among
    /// the others.
    Text,
}

/// The width of a [`ValueKind::Count`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bits {
    /// A `u32`.
    B32,
    /// A `u64`.
    B64,
}

impl ValueKind {
    /// Is this the kind of a flag without a value?
    pub fn is_switch(self) -> bool {
        matches!(self, ValueKind::Switch)
    }
}

/// One profiling option: a row of [`PROFILE_OPTIONS`].
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// The flag, as `--help` and the usage errors name it.
    pub flag: &'static str,
    /// The name of its value in `--help` (`N`); empty for a switch.
    pub value_name: &'static str,
    /// How the value is written.
    pub value: ValueKind,
    /// The help text of `vm run --help`, without the default.
    pub help: &'static str,
    /// The default, as `--help` shows it (`[default: 3]`), if it shows one.
    pub default: Option<&'static str>,
    /// The profiles it applies to; given with another, it is a usage error.
    pub profiles: &'static [ProfileKind],
    /// Stores a value in [`ProfileOptions`] (a switch ignores it).
    pub set: fn(&mut ProfileOptions, &str) -> Result<(), String>,
    /// Was the option given?
    pub given: fn(&ProfileOptions) -> bool,
    /// Its entry in the profile's `config` section, if it has one.
    pub config: Option<ConfigEntry>,
}

/// How an option is recorded in the profile's `config` section.
#[derive(Clone, Copy, Debug)]
pub struct ConfigEntry {
    /// The key (docs/LANGUAGE.md, "Profiles").
    pub key: &'static str,
    /// The value a configuration records, or `None` where the option does
    /// not shape the profile (the key is then left out).
    pub value: fn(&ProfileConfig) -> Option<Json>,
}

impl OptionSpec {
    /// The option's name without the dashes (`stride`): the command
    /// line's id for it.
    pub fn name(&self) -> &'static str {
        self.flag.trim_start_matches('-')
    }

    /// The help text with its default, as `vm run --help` prints it.
    pub fn help_with_default(&self) -> String {
        match self.default {
            Some(d) => format!("{} [default: {d}]", self.help),
            None => self.help.to_string(),
        }
    }
}

/// A number of 32 bits, as clap's parser reads it.
fn u32_of(s: &str) -> Result<u32, String> {
    s.parse().map_err(|e| format!("{e}"))
}

/// A number of 64 bits, as clap's parser reads it.
fn u64_of(s: &str) -> Result<u64, String> {
    s.parse().map_err(|e| format!("{e}"))
}

/// A `config` entry: `key` and how a configuration gives its value.
const fn entry(
    key: &'static str,
    value: fn(&ProfileConfig) -> Option<Json>,
) -> Option<ConfigEntry> {
    Some(ConfigEntry { key, value })
}

/// Every profiling option, in the order of `vm run --help` and of the
/// usage errors.
pub static PROFILE_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        flag: "--profile",
        value_name: "KIND",
        value: ValueKind::Parsed,
        help: "What to profile: none, exhaustive (every call counted: the exact profile), \
               timer (Jikes RVM baseline), cbs (counter-based sampling), counter (a sample \
               every Nth call)",
        default: Some("none"),
        profiles: ALL_PROFILES,
        set: |o, s| {
            o.profile = Some(s.parse()?);
            Ok(())
        },
        given: |o| o.profile.is_some(),
        config: entry("profile", |c| Some(c.kind.name().into())),
    },
    OptionSpec {
        flag: "--interval",
        value_name: "DUR",
        value: ValueKind::Parsed,
        help: "Timer period, e.g. 10ms, 1ms, 100us (timer, cbs)",
        default: Some("1ms"),
        profiles: TICKING,
        set: |o, s| {
            o.interval_ns = Some(parse_duration(s)?);
            Ok(())
        },
        given: |o| o.interval_ns.is_some(),
        config: entry("interval_ns", |c| {
            c.uses_timer().then(|| c.interval_ns.into())
        }),
    },
    OptionSpec {
        flag: "--stride",
        value_name: "N",
        value: ValueKind::Count {
            bits: Bits::B32,
            min: 1,
            get: |o| o.stride.map(u64::from),
        },
        help: "cbs: sample every Nth prologue/epilogue yieldpoint after a tick",
        default: Some("3"),
        profiles: &[ProfileKind::Cbs],
        set: |o, s| {
            o.stride = Some(u32_of(s)?);
            Ok(())
        },
        given: |o| o.stride.is_some(),
        config: entry("stride", |c| {
            (c.kind == ProfileKind::Cbs).then(|| c.stride.into())
        }),
    },
    OptionSpec {
        flag: "--samples",
        value_name: "N",
        value: ValueKind::Count {
            bits: Bits::B32,
            min: 1,
            get: |o| o.samples.map(u64::from),
        },
        help: "cbs: samples per timer tick (the burst)",
        default: Some("16"),
        profiles: &[ProfileKind::Cbs],
        set: |o, s| {
            o.samples = Some(u32_of(s)?);
            Ok(())
        },
        given: |o| o.samples.is_some(),
        config: entry("samples", |c| {
            (c.kind == ProfileKind::Cbs).then(|| c.samples.into())
        }),
    },
    OptionSpec {
        flag: "--every",
        value_name: "N",
        value: ValueKind::Count {
            bits: Bits::B32,
            min: 1,
            get: |o| o.every.map(u64::from),
        },
        help: "counter: sample every Nth call",
        default: Some("100"),
        profiles: &[ProfileKind::Counter],
        set: |o, s| {
            o.every = Some(u32_of(s)?);
            Ok(())
        },
        given: |o| o.every.is_some(),
        config: entry("every", |c| {
            (c.kind == ProfileKind::Counter).then(|| c.every.into())
        }),
    },
    OptionSpec {
        flag: "--clock",
        value_name: "wall|virtual",
        value: ValueKind::Parsed,
        help: "Timer ticks in real time (wall), or in virtual time: cycles of the cost model, \
               1 cycle = 1 ns, deterministic (timer, cbs)",
        default: Some("wall"),
        profiles: TICKING,
        set: |o, s| {
            o.clock = Some(s.parse()?);
            Ok(())
        },
        given: |o| o.clock.is_some(),
        config: entry("clock", |c| c.uses_timer().then(|| c.clock.name().into())),
    },
    OptionSpec {
        flag: "--seed",
        value_name: "N",
        value: ValueKind::Count {
            bits: Bits::B64,
            min: 0,
            get: |o| o.seed,
        },
        help: "Seed for every random choice; the one used is recorded in the profile",
        default: Some("random"),
        profiles: ANY_PROFILE,
        set: |o, s| {
            o.seed = Some(u64_of(s)?);
            Ok(())
        },
        given: |o| o.seed.is_some(),
        config: entry("seed", |c| Some(c.seed.into())),
    },
    OptionSpec {
        flag: "--record",
        value_name: "LIST",
        value: ValueKind::Parsed,
        help: "What to build from the samples, comma-separated: dcg, cct, pcct, acct, ccmap",
        default: Some("dcg"),
        profiles: ANY_PROFILE,
        set: |o, s| {
            o.record = Some(parse_record_list(s)?);
            Ok(())
        },
        given: |o| o.record.is_some(),
        config: entry("record", |c| {
            Some(c.record.iter().map(|r| Json::from(r.name())).collect())
        }),
    },
    OptionSpec {
        flag: "--walk",
        value_name: "HOW",
        value: ValueKind::Parsed,
        help: "How a sample examines the stack, with --record including cct, pcct, acct or \
               ccmap: full (every frame down to the entry frame), marked (only the frames \
               pushed since an earlier sample, Whaley's marked frames; the only walk of pcct \
               and acct) or incremental (cct only: only the top frame; callers are captured \
               lazily when they are returned into, through return-address trampolines: \
               Hofer's incremental stack tracing); top (the top frame only) is the dcg's walk",
        default: Some("marked with pcct or acct, full with cct or ccmap, else top"),
        profiles: SAMPLING,
        set: |o, s| {
            o.walk = Some(s.parse()?);
            Ok(())
        },
        given: |o| o.walk.is_some(),
        config: entry("walk", |c| c.walks_stacks().then(|| c.walk.name().into())),
    },
    OptionSpec {
        flag: "--max-walk",
        value_name: "N",
        value: ValueKind::Count {
            bits: Bits::B32,
            min: 1,
            get: |o| o.max_walk.map(u64::from),
        },
        help: "Frames one sample may examine (cct, pcct, ccmap); a deeper walk starts a \
               detached subtree (Whaley's Figure 10); an acct walk and an incremental walk are \
               never cut",
        default: Some("marked 16, full 256"),
        profiles: SAMPLING,
        set: |o, s| {
            o.max_walk = Some(u32_of(s)?);
            Ok(())
        },
        given: |o| o.max_walk.is_some(),
        config: None,
    },
    OptionSpec {
        flag: "--acct-update",
        value_name: "STRATEGY",
        value: ValueKind::Text,
        help: "ACCT edge update strategy: last-edge or all-new-edges",
        default: Some("last-edge"),
        profiles: ALL_PROFILES,
        set: |o, s| {
            o.acct_update = Some(s.to_string());
            Ok(())
        },
        given: |o| o.acct_update.is_some(),
        config: entry("acct_update", |c| {
            c.samples_record(RecordKind::Acct)
                .then(|| c.acct_update.name().into())
        }),
    },
    OptionSpec {
        flag: "--sampled-bit",
        value_name: "mark|return-address",
        value: ValueKind::Parsed,
        help: "Extension, acct only: where a frame's sampled bit is kept: mark (the mark bit \
               of its return word) or return-address (the return word is replaced by a \
               trampoline, Arnold & Sweeney's \"known location\")",
        default: Some("mark"),
        profiles: ALL_PROFILES,
        set: |o, s| {
            o.sampled_bit = Some(s.parse::<SampledBitKind>()?);
            Ok(())
        },
        given: |o| o.sampled_bit.is_some(),
        config: entry("sampled_bit", |c| {
            c.samples_record(RecordKind::Acct)
                .then(|| c.sampled_bit.name().into())
        }),
    },
    OptionSpec {
        flag: "--purge",
        value_name: "N",
        value: ValueKind::Count {
            bits: Bits::B64,
            min: 1,
            get: |o| o.purge,
        },
        help: "Extension, pcct only: every N samples of a thread, purge the contexts no \
               sample reached since the previous purge",
        default: Some("never"),
        profiles: ALL_PROFILES,
        set: |o, s| {
            o.purge = Some(u64_of(s)?);
            Ok(())
        },
        given: |o| o.purge.is_some(),
        config: entry("purge", |c| c.purge.map(Json::from)),
    },
    OptionSpec {
        flag: "--tune",
        value_name: "",
        value: ValueKind::Switch,
        help: "Self-tuning sampling interval (timer, cbs, counter): every 1000 samples, halve \
               the interval (or --every) if under 1% of samples found the same activation \
               executing as before, double it if over 15%; the final one is recorded in the \
               profile's run section",
        default: None,
        profiles: SAMPLING,
        set: |o, _| {
            o.tune = true;
            Ok(())
        },
        given: |o| o.tune,
        config: entry("tune", |c| c.tune.then_some(Json::Bool(true))),
    },
    OptionSpec {
        flag: "--sampler",
        value_name: "HOW",
        value: ValueKind::Text,
        help: "timer: who walks the stacks of a multi-threaded program at each tick: \
               safepoint (a global safepoint; a sampler thread walks every thread), partial (a \
               partial safepoint of --sample-threads threads; the sampler thread walks them), \
               self (the same partial safepoint, each selected thread walking itself); with \
               --clock=virtual only self (docs/SAMPLERS.md)",
        default: Some("self"),
        profiles: &[ProfileKind::Timer],
        set: |o, s| {
            o.sampler = Some(s.to_string());
            Ok(())
        },
        given: |o| o.sampler.is_some(),
        config: entry("sampler", |c| {
            (c.kind == ProfileKind::Timer).then(|| c.sampler.name().into())
        }),
    },
    OptionSpec {
        flag: "--sample-threads",
        value_name: "N",
        value: ValueKind::Count {
            bits: Bits::B32,
            min: 1,
            get: |o| o.sample_threads.map(u64::from),
        },
        help: "timer with --sampler=partial|self (wall clock): how many threads one tick \
               samples",
        default: Some("cores"),
        profiles: &[ProfileKind::Timer],
        set: |o, s| {
            o.sample_threads = Some(u32_of(s)?);
            Ok(())
        },
        given: |o| o.sample_threads.is_some(),
        config: entry("sample_threads", |c| {
            (c.uses_sampler_thread() && c.sampler != SamplerKind::Safepoint)
                .then(|| c.sample_threads.into())
        }),
    },
    OptionSpec {
        flag: "--runnable-only",
        value_name: "",
        value: ValueKind::Switch,
        help: "timer with --sampler=partial|self (wall clock): sample only runnable threads, \
               never waiting ones (the paper's section 3.1 sampling of waiting threads off)",
        default: Some("waiting threads get their share"),
        profiles: &[ProfileKind::Timer],
        set: |o, _| {
            o.runnable_only = true;
            Ok(())
        },
        given: |o| o.runnable_only,
        config: entry("runnable_only", |c| {
            c.runnable_only.then_some(Json::Bool(true))
        }),
    },
    OptionSpec {
        flag: "--no-hold",
        value_name: "",
        value: ValueKind::Switch,
        help: "timer with --sampler=self (wall clock): a selected thread goes on as soon as \
               it has walked its own stack, instead of parking until every selected thread has \
               (the paper's Figure 4)",
        default: Some("it parks"),
        profiles: &[ProfileKind::Timer],
        set: |o, _| {
            o.no_hold = true;
            Ok(())
        },
        given: |o| o.no_hold,
        config: entry("no_hold", |c| c.no_hold.then_some(Json::Bool(true))),
    },
];

/// The counts given below their row's minimum, one usage error each
/// (`--stride must be at least 1`), in table order; a count given with a
/// profile it does not apply to is left to the applicability error.
pub fn below_minimum(o: &ProfileOptions) -> impl Iterator<Item = String> + '_ {
    let kind = o.profile.unwrap_or_default();
    PROFILE_OPTIONS
        .iter()
        .filter(move |row| row.profiles.contains(&kind))
        .filter_map(move |row| match row.value {
            ValueKind::Count { min, get, .. } if get(o).is_some_and(|v| v < min) => {
                Some(format!("{} must be at least {min}", row.flag))
            }
            _ => None,
        })
}

/// The profile's `config` section: each option's entry, where the
/// configuration records it.
pub fn config_section(c: &ProfileConfig) -> ConfigSection {
    let entries: serde_json::Map<String, Json> = PROFILE_OPTIONS
        .iter()
        .filter_map(|o| o.config)
        .filter_map(|e| Some((e.key.to_string(), (e.value)(c)?)))
        .collect();
    let mut section: ConfigSection = serde_json::from_value(Json::Object(entries))
        .expect("every `config` entry of PROFILE_OPTIONS is a field of ConfigSection");
    // The simulated machine (`vm run --cores`), an option of the command.
    section.cores = c.cores.map(u64::from);
    section.quantum = c.quantum;
    section
}

#[cfg(test)]
mod tests;
