//! The offline half of profiling: the profile file of docs/LANGUAGE.md
//! "Profiles" (`--profile-out`, format `vm-profile/1`), its data model,
//! writing and reading ([`Profile`]), the accuracy metrics of `vm compare`
//! ([`metrics`]) and the readable summaries ([`report`]).
//!
//! This crate depends on neither the VM nor the live profiler: anything
//! that only reads profiles (`vm compare`, `vm inline --from-profile`, a
//! report, a notebook) needs nothing else.
//!
//! Every profile kind produces the same [`Profile`]; `vm compare` reads two
//! of them back. Reading tolerates keys it does not know ("more keys may be
//! added") and sections that are absent (a file without `cct` simply cannot
//! give the context metrics).

// The crate's documentation is written to be read with its private items
// (docs/ARCHITECTURE.md: `cargo doc --document-private-items`), where a
// public item's link to a private one resolves.
#![allow(rustdoc::private_intra_doc_links)]

use serde::{Deserialize, Serialize};

mod fast;
pub mod html;
pub mod metrics;
mod name;
pub mod overhead;
pub mod report;
mod stream;

pub use name::MethodName;

/// The format tag every profile carries.
pub const FORMAT: &str = "vm-profile/1";

/// One profile file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// Always [`FORMAT`].
    pub format: String,
    /// The program path as given on the command line.
    pub program: String,
    /// The configuration that produced the profile: only the keys that
    /// apply to its kind.
    pub config: ConfigSection,
    /// Facts about the run.
    pub run: RunSection,
    /// Hot methods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub methods: Option<Vec<MethodEntry>>,
    /// The dynamic call graph.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dcg: Option<Vec<DcgEdge>>,
    /// A calling context tree, flat, each parent before its children.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cct: Option<Vec<CctNode>>,
    /// `--record=pcct`: the front of Whaley's sorted hot lists (an
    /// extension of docs/LANGUAGE.md "Profiles").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot: Option<HotLists>,
}

/// The hottest contexts and edges of a PCCT, read off the front of its
/// incrementally sorted lists (Whaley 2000, section 5.3), hottest first.
/// Ids are those of the profile's `cct` list; an edge is named by the
/// context it leads to (its parent is the caller's context).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HotLists {
    /// Contexts by `self` (samples with the context on top).
    pub nodes: Vec<HotNode>,
    /// Edges by weight (`calls` of the context they lead to).
    pub edges: Vec<HotEdge>,
}

/// One entry of [`HotLists::nodes`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HotNode {
    /// The context's id in `cct`.
    pub id: u64,
    /// Its samples on top.
    #[serde(rename = "self")]
    pub self_: u64,
}

/// One entry of [`HotLists::edges`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HotEdge {
    /// The id in `cct` of the context the edge leads to.
    pub id: u64,
    /// The edge's weight.
    pub calls: u64,
}

/// `config`: the options of docs/CLI.md that shaped the profile.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfigSection {
    /// `none`, `exhaustive`, `timer`, `cbs` or `counter`.
    pub profile: String,
    /// Timer period in nanoseconds (timer, cbs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_ns: Option<u64>,
    /// cbs stride.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stride: Option<u64>,
    /// cbs samples per tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
    /// counter: calls between samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub every: Option<u64>,
    /// `wall` or `virtual` (timer, cbs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
    /// The seed of every random choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// What was built.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<Vec<String>>,
    /// How samples walked the stack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walk: Option<String>,
    /// `--tune` was given (the self-tuning interval; `interval_ns` or
    /// `every` is then the initial interval, `run` holds the final one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune: Option<bool>,
    /// `--record=acct`: the edge update strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acct_update: Option<String>,
    /// `--record=acct`: where the sampled bit is kept (`mark` or
    /// `return-address`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled_bit: Option<String>,
    /// `--record=pcct --purge=N`: samples between purges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purge: Option<u64>,
    /// Who walked the stacks (`--profile=timer`): `self`, `safepoint` or
    /// `partial`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampler: Option<String>,
    /// Threads one partial safepoint samples (`partial`, `self` on the
    /// wall clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_threads: Option<u64>,
    /// `--runnable-only` was given: waiting threads were never sampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runnable_only: Option<bool>,
    /// `--no-hold` was given: self-sampling threads went on after walking
    /// themselves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_hold: Option<bool>,
    /// `vm run --cores=N`: the run's simulated machine had N cores
    /// (docs/SAMPLERS.md, "Simulated cores").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cores: Option<u64>,
    /// With `cores`: the scheduler's quantum in cycles (`--quantum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantum: Option<u64>,
}

/// `run`: facts about the run that produced the profile.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSection {
    /// Elapsed time in nanoseconds; under `--clock=virtual`, virtual time
    /// (the longest thread's cycles), so that the file is reproducible.
    pub wall_ns: u64,
    /// Source instructions executed, when the run counted them (exhaustive,
    /// virtual clock); `null` otherwise.
    pub instructions: Option<u64>,
    /// Stack samples taken (exhaustive: calls traced).
    pub samples: u64,
    /// Managed threads that ran.
    pub threads: u64,
    /// Cost-model cycles executed, summed over threads, when the run
    /// counted them (exhaustive, virtual clock, `--cycles`); absent
    /// otherwise. Yieldpoints cost one cycle each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
    /// Sampler thread (`--profile=timer`, wall clock): safepoints requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safepoints: Option<u64>,
    /// Sampler thread: thread samples asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_requested: Option<u64>,
    /// Sampler thread: thread samples taken (stacks walked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples_taken: Option<u64>,
    /// Sampler thread: nanoseconds threads spent held at yieldpoints,
    /// summed over threads (the cost of stopping them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_ns: Option<u64>,
    /// Sampler thread: nanoseconds from each request to each release,
    /// summed over safepoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_ns: Option<u64>,
    /// Sampler thread: nanoseconds its ticks came late, summed over ticks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_ns: Option<u64>,
    /// Simulated machine (`--cores`, `--profile=timer`): cycles of virtual
    /// time threads stood stopped at the sampler's safepoints, from
    /// arriving (or waking) to running again, summed over threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause_cycles: Option<u64>,
    /// Simulated machine: cycles of stack walking, by the sampler thread
    /// or the threads themselves (trampolines included).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub walk_cycles: Option<u64>,
    /// Simulated machine: the distribution of the safepoints' latencies,
    /// in cycles of virtual time from each tick to the end of its
    /// safepoint (an extension of docs/LANGUAGE.md "Profiles").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_cycles: Option<LatencyCycles>,
    /// `--tune` with timer or cbs: the timer period at the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_interval_ns: Option<u64>,
    /// `--tune` with counter: the sampling period in calls at the end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_every: Option<u64>,
    /// `--tune`: how many times the interval changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_changes: Option<u64>,
    /// `--tune`: the interval over the run, the initial one first, then one
    /// step per change (an extension of docs/LANGUAGE.md "Profiles").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_trajectory: Option<Vec<IntervalStep>>,
    /// Why the program was stopped before its end from outside it, when it
    /// was: the signal (`SIGINT`, `SIGTERM`, `SIGHUP`), `broken pipe` or
    /// `write error` (docs/CLI.md, "Signals and write errors"); absent when
    /// the program ran to its own end. The profile is then of what ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// Cycles of the profiler's own work, in the cost model of `cycles`
    /// (a counting run with a profile): the overhead is
    /// `profiler_cycles / cycles` (an extension of docs/LANGUAGE.md
    /// "Profiles").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiler_cycles: Option<u64>,
    /// `profiler_cycles` split by what the work was for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiler_cycles_by_kind: Option<ProfilerCyclesByKind>,
    /// How often each item of profiler work happened (the items of the
    /// cost table; only those that did), by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profiler_work: Option<std::collections::BTreeMap<String, u64>>,
}

/// [`RunSection::latency_cycles`]: quantiles, by nearest rank, of the
/// latency of every tick of a simulated sampler (Hofer et al. 2015,
/// section 7.2: "the time it takes to pause threads and take samples").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatencyCycles {
    /// The 2.5th percentile.
    pub p2_5: u64,
    /// The lower quartile.
    pub q1: u64,
    /// The median.
    pub median: u64,
    /// The upper quartile.
    pub q3: u64,
    /// The 97.5th percentile.
    pub p97_5: u64,
    /// The largest.
    pub max: u64,
}

/// [`RunSection::profiler_cycles_by_kind`]: the profiler's cycles by what
/// they were spent on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfilerCyclesByKind {
    /// Deciding to sample and taking samples: taken yieldpoints, method
    /// and edge samples, the exhaustive profile's hooks and counting, the
    /// many-thread samplers' safepoints.
    pub sampling: u64,
    /// Reading stacks: frames decoded, marked, trampolines.
    pub walking: u64,
    /// Updating the records: trees, the PCCT's hot lists, the ACCT's
    /// splices, the CC-Map, the DCG.
    pub recording: u64,
    /// The organizer's own work: buffers received, trees merged.
    pub organizing: u64,
    /// `--tune`'s observations and decisions.
    pub tuning: u64,
    /// The adaptive controller's decisions and compilations.
    pub controller: u64,
}

impl ProfilerCyclesByKind {
    /// The kinds and their cycles, in the order of the profile.
    pub fn entries(&self) -> [(&'static str, u64); 6] {
        [
            ("sampling", self.sampling),
            ("walking", self.walking),
            ("recording", self.recording),
            ("organizing", self.organizing),
            ("tuning", self.tuning),
            ("controller", self.controller),
        ]
    }
}

/// One step of [`RunSection::interval_trajectory`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IntervalStep {
    /// Stack examinations the tuner had seen when the interval took this
    /// value (0 for the initial interval).
    pub samples: u64,
    /// The interval from then on, in the unit of `final_interval_ns`
    /// (timer, cbs: nanoseconds) or `final_every` (counter: calls).
    pub interval: u64,
}

/// One entry of `methods`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MethodEntry {
    /// The method's name (`Class.method` for methods of a class).
    pub name: String,
    /// Samples with the method on top (exhaustive: instructions executed in
    /// it).
    #[serde(rename = "self")]
    pub self_: u64,
    /// Calls counted or sampled into it.
    pub calls: u64,
    /// Exhaustive profile only: cycles of the cost model (`vm run
    /// --cycles`) spent with the method on top.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
    /// Exhaustive profile only: cycles spent with the method anywhere on
    /// the stack (a recursive method's outermost activation counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_cycles: Option<u64>,
}

/// One edge of `dcg`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DcgEdge {
    /// The calling method.
    pub caller: String,
    /// The source line of the call instruction in the caller.
    pub line: u32,
    /// The called method.
    pub callee: String,
    /// Calls (exhaustive) or samples attributed to the edge.
    pub weight: u64,
}

/// One calling context of `cct`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CctNode {
    /// The node's id, unique in the file.
    pub id: u64,
    /// The parent's id; `null` for the root.
    pub parent: Option<u64>,
    /// The method, `<root>` for the root (shared with the other contexts
    /// of the method: see [`MethodName`]).
    pub method: MethodName,
    /// The call-site line in the parent; `null` for the root and the
    /// threads' entry methods.
    pub line: Option<u32>,
    /// Calls in this context (or the recorded edge weight into it).
    pub calls: u64,
    /// Samples (exhaustive: instructions) with this context on top.
    #[serde(rename = "self")]
    pub self_: u64,
    /// Exhaustive profile only: cycles of the cost model (`vm run
    /// --cycles`) spent with this context on top. A context's total time
    /// is the sum over its subtree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
}

/// Why a profile file could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be read at all.
    Io(std::io::Error),
    /// The file is not a `vm-profile/1` profile.
    Malformed(String),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Malformed(m) => f.write_str(m),
        }
    }
}

/// The buffer [`Profile::write_json`] writes through: the file is written
/// in blocks of this many bytes.
pub const WRITE_BLOCK: usize = 1 << 20;

impl Profile {
    /// The profile as pretty-printed JSON text (ending in a newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a profile serializes");
        s.push('\n');
        s
    }

    /// Writes the profile as [`Profile::to_json`] does, streaming (a CCT of
    /// millions of contexts is not built as one string first), through a
    /// buffer of its own of [`WRITE_BLOCK`] bytes: hand it an unbuffered
    /// writer. Not generic, so that the serializer is compiled here,
    /// optimized, whatever the caller's build (the tests' build leaves the
    /// `vm` command's own crate unoptimized: Cargo.toml, `quicktest`).
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut w = std::io::BufWriter::with_capacity(WRITE_BLOCK, w);
        serde_json::to_writer_pretty(&mut w, self).map_err(std::io::Error::other)?;
        std::io::Write::write_all(&mut w, b"\n")?;
        std::io::Write::flush(&mut w)
    }

    /// Writes the profile as [`Profile::write_json`] would with `cct` as
    /// its `cct` section (in place of `self.cct`), taking the nodes one at
    /// a time from the iterator: an exact CCT of millions of contexts is
    /// never a list in memory.
    pub fn write_json_with_cct(
        &self,
        cct: &mut dyn Iterator<Item = CctNode>,
        w: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        let mut w = std::io::BufWriter::with_capacity(WRITE_BLOCK, w);
        let out = ProfileOut {
            format: &self.format,
            program: &self.program,
            config: &self.config,
            run: &self.run,
            methods: self.methods.as_ref(),
            dcg: self.dcg.as_ref(),
            cct: Some(Streamed(std::cell::RefCell::new(Some(cct)))),
            hot: self.hot.as_ref(),
        };
        serde_json::to_writer_pretty(&mut w, &out).map_err(std::io::Error::other)?;
        std::io::Write::write_all(&mut w, b"\n")?;
        std::io::Write::flush(&mut w)
    }

    /// Parses a profile from JSON text.
    pub fn from_json(text: &str) -> Result<Profile, ReadError> {
        // One pass when the file is good; a second one only to say what
        // is wrong with a bad one.
        let p: Profile = serde_json::from_str(text).map_err(|e| diagnose(text, e))?;
        p.checked()
    }

    /// Parses a profile from the bytes of a file: as [`Profile::from_json`]
    /// does (the same result, the same complaints), but first trying a
    /// fast reader of the `cct` section, the bulk of a big profile (see
    /// the `fast` module). Bytes that are not UTF-8 are malformed.
    pub fn from_bytes(bytes: &[u8]) -> Result<Profile, ReadError> {
        if let Some(p) = fast::parse(bytes) {
            if let Ok(p) = p.checked() {
                return Ok(p);
            }
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => Profile::from_json(text),
            Err(_) => Err(ReadError::Malformed("it is not UTF-8 text".into())),
        }
    }

    /// Reads a profile from `r` to its end, in blocks, with the fast
    /// reader of `cct` of [`Profile::from_bytes`] (see the `stream`
    /// module): the text is never in memory as a whole. Give it the file
    /// itself (it buffers) and the file's length if known, `size`, to
    /// reserve the list of contexts once. `Ok(None)` when the fast reader
    /// gives up or the profile is not good: read the same bytes with
    /// [`Profile::from_bytes`] then, which reads it or says what is wrong
    /// (the same result and messages as if this had not been tried).
    pub fn read_streaming(
        r: &mut dyn std::io::Read,
        size: Option<u64>,
    ) -> std::io::Result<Option<Profile>> {
        Ok(stream::parse(r, size)?.and_then(|p| p.checked().ok()))
    }

    /// Reads a profile as [`Profile::read_streaming`] does, but hands each
    /// context of its `cct` to `each` as it is read instead of listing
    /// them (see the `stream` module): the profile comes back with an
    /// empty `cct` when the file has one. For a report that needs one pass
    /// over the contexts in the file's order and no list of millions.
    /// `Ok(None)` when `read_streaming` would give up, when `each` returns
    /// false, and when the contexts' ids are not their positions in the
    /// list (as the profiler numbers them) or a parent's is not smaller
    /// than its child's; a caller then reads the file another way. `each`
    /// may have been handed contexts before a file is given up.
    pub fn read_streaming_each(
        r: &mut dyn std::io::Read,
        each: &mut dyn FnMut(CctNode) -> bool,
    ) -> std::io::Result<Option<Profile>> {
        Ok(stream::each(r, each)?.and_then(|p| p.checked().ok()))
    }

    /// Parses a profile from JSON read from `r`, streaming: the text is
    /// never in memory as a whole (the exact CCT of a long run is a file
    /// of a gigabyte; reading it whole first costs more than parsing it).
    /// Give it a buffered reader. A bad file gets serde's complaint only:
    /// [`Profile::from_json`] of the same text says better what is wrong,
    /// as [`Profile::read`] does.
    pub fn from_reader(r: impl std::io::Read) -> Result<Profile, ReadError> {
        let p: Profile = serde_json::from_reader(r).map_err(|e| {
            if e.is_io() {
                ReadError::Io(std::io::Error::other(e.to_string()))
            } else {
                ReadError::Malformed(e.to_string())
            }
        })?;
        p.checked()
    }

    /// The parsed profile if its format tag and its `cct` are good.
    fn checked(self) -> Result<Profile, ReadError> {
        if self.format != FORMAT {
            return Err(ReadError::Malformed(wrong_format(&self.format)));
        }
        if let Some(cct) = &self.cct {
            check_cct(cct).map_err(ReadError::Malformed)?;
        }
        Ok(self)
    }

    /// Reads a profile file: streaming ([`Profile::read_streaming`], then
    /// [`Profile::from_reader`] if that gives up) and, only when that
    /// fails, again as text, to say what is wrong ([`Profile::from_json`]).
    pub fn read(path: &std::path::Path) -> Result<Profile, ReadError> {
        let file = std::fs::File::open(path).map_err(ReadError::Io)?;
        let size = file.metadata().ok().map(|m| m.len());
        if let Some(p) = Profile::read_streaming(&mut &file, size).map_err(ReadError::Io)? {
            return Ok(p);
        }
        let file = std::fs::File::open(path).map_err(ReadError::Io)?;
        match Profile::from_reader(std::io::BufReader::with_capacity(1 << 20, file)) {
            Err(ReadError::Malformed(_)) => {
                let text = std::fs::read_to_string(path).map_err(ReadError::Io)?;
                Profile::from_json(&text)
            }
            done => done,
        }
    }
}

/// Why `text` is not a profile, `e` being serde's complaint: not JSON,
/// not an object, no `format` key, another format (a newer one told so),
/// or else `e` itself.
fn diagnose(text: &str, e: serde_json::Error) -> ReadError {
    let not_object = || {
        ReadError::Malformed("it is JSON but not a profile (a profile is one JSON object)".into())
    };
    if !text.trim_start().starts_with('{') {
        return match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Ok(_) => not_object(),
            Err(e) => ReadError::Malformed(format!("it is not JSON ({e})")),
        };
    }
    #[derive(Deserialize)]
    struct Tag {
        format: Option<serde_json::Value>,
    }
    match serde_json::from_str::<Tag>(text) {
        // A key given twice names the key (`format`, the one key read here).
        Err(t) if t.to_string().starts_with("duplicate field") => {
            ReadError::Malformed(t.to_string())
        }
        Err(t) if t.classify() == serde_json::error::Category::Data => not_object(),
        Err(t) => ReadError::Malformed(format!("it is not JSON ({t})")),
        Ok(Tag { format: None }) => ReadError::Malformed(
            "it has no `format` key (profiles are written by `vm run --profile-out`)".into(),
        ),
        Ok(Tag {
            format: Some(serde_json::Value::String(f)),
        }) if f != FORMAT => ReadError::Malformed(wrong_format(&f)),
        Ok(_) => ReadError::Malformed(e.to_string()),
    }
}

/// The complaint about a format tag other than [`FORMAT`].
fn wrong_format(f: &str) -> String {
    let newer = f
        .strip_prefix("vm-profile/")
        .and_then(|v| v.parse::<u64>().ok())
        .is_some_and(|v| v > 1);
    if newer {
        format!("format is `{f}`, newer than this vm reads (`{FORMAT}`): use the vm that wrote it")
    } else {
        format!("format is `{f}`, expected `{FORMAT}`")
    }
}

/// [`Profile`] with its `cct` streamed (same keys, same order).
#[derive(Serialize)]
struct ProfileOut<'a, C: Serialize> {
    format: &'a str,
    program: &'a str,
    config: &'a ConfigSection,
    run: &'a RunSection,
    #[serde(skip_serializing_if = "Option::is_none")]
    methods: Option<&'a Vec<MethodEntry>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dcg: Option<&'a Vec<DcgEdge>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cct: Option<C>,
    #[serde(skip_serializing_if = "Option::is_none")]
    hot: Option<&'a HotLists>,
}

/// A sequence serialized from an iterator, once.
struct Streamed<I>(std::cell::RefCell<Option<I>>);

impl<I: Iterator<Item = CctNode>> Serialize for Streamed<I> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        if let Some(nodes) = self.0.borrow_mut().take() {
            for n in nodes {
                seq.serialize_element(&n)?;
            }
        }
        seq.end()
    }
}

/// A flat CCT must list each parent before its children and have one root.
fn check_cct(cct: &[CctNode]) -> Result<(), String> {
    // The profiler numbers nodes by their position: then a parent is
    // listed before its child exactly when its id is smaller, and no id
    // repeats, with no set of millions of ids to build.
    if cct.iter().enumerate().all(|(i, n)| n.id == i as u64) {
        for n in cct {
            match n.parent {
                None if n.id != 0 => {
                    return Err(format!(
                        "cct node {} has no parent but is not the first",
                        n.id
                    ))
                }
                Some(p) if p >= n.id => {
                    return Err(format!(
                        "cct node {} names parent {p}, which is not listed before it",
                        n.id
                    ))
                }
                _ => {}
            }
        }
        return Ok(());
    }
    let mut seen = std::collections::HashSet::new();
    for n in cct {
        match n.parent {
            None if !seen.is_empty() => {
                return Err(format!(
                    "cct node {} has no parent but is not the first",
                    n.id
                ))
            }
            Some(p) if !seen.contains(&p) => {
                return Err(format!(
                    "cct node {} names parent {p}, which is not listed before it",
                    n.id
                ))
            }
            _ => {}
        }
        if !seen.insert(n.id) {
            return Err(format!("cct node id {} appears twice", n.id));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Profile {
        Profile {
            format: FORMAT.into(),
            program: "prog.bc".into(),
            config: ConfigSection {
                profile: "cbs".into(),
                interval_ns: Some(1_000_000),
                stride: Some(3),
                samples: Some(16),
                clock: Some("wall".into()),
                seed: Some(42),
                record: Some(vec!["dcg".into()]),
                ..Default::default()
            },
            run: RunSection {
                wall_ns: 5,
                instructions: None,
                samples: 3,
                threads: 1,
                ..Default::default()
            },
            methods: Some(vec![MethodEntry {
                name: "fib".into(),
                self_: 3,
                calls: 2,
                cycles: None,
                total_cycles: None,
            }]),
            dcg: Some(vec![DcgEdge {
                caller: "main".into(),
                line: 14,
                callee: "fib".into(),
                weight: 2,
            }]),
            cct: None,
            hot: None,
        }
    }

    #[test]
    fn a_streamed_cct_writes_the_same_bytes() {
        let mut p = sample_profile_for_streaming();
        let nodes = vec![
            CctNode {
                id: 0,
                parent: None,
                method: "<root>".into(),
                line: None,
                calls: 0,
                self_: 0,
                cycles: None,
            },
            CctNode {
                id: 1,
                parent: Some(0),
                method: "main".into(),
                line: None,
                calls: 1,
                self_: 7,
                cycles: None,
            },
        ];
        let mut streamed = Vec::new();
        p.write_json_with_cct(&mut nodes.clone().into_iter(), &mut streamed)
            .unwrap();
        p.cct = Some(nodes);
        let mut written = Vec::new();
        p.write_json(&mut written).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), p.to_json());
        assert_eq!(String::from_utf8(written).unwrap(), p.to_json());
    }

    fn sample_profile_for_streaming() -> Profile {
        Profile {
            format: FORMAT.into(),
            program: "p.bc".into(),
            config: ConfigSection {
                profile: "exhaustive".into(),
                ..Default::default()
            },
            run: RunSection::default(),
            methods: Some(vec![]),
            dcg: None,
            cct: None,
            hot: Some(HotLists {
                nodes: vec![HotNode { id: 1, self_: 7 }],
                edges: vec![],
            }),
        }
    }

    #[test]
    fn round_trips_and_uses_the_spec_key_names() {
        let p = sample();
        let text = p.to_json();
        assert!(text.contains("\"self\": 3"));
        assert!(text.contains("\"instructions\": null"));
        assert!(
            !text.contains("every"),
            "keys that do not apply are left out"
        );
        assert!(!text.contains("cct"));
        assert_eq!(Profile::from_json(&text).unwrap(), p);
    }

    #[test]
    fn unknown_keys_are_tolerated_and_bad_files_rejected() {
        let mut v: serde_json::Value = serde_json::from_str(&sample().to_json()).unwrap();
        v["extra"] = serde_json::json!({"anything": [1, 2]});
        assert!(Profile::from_json(&v.to_string()).is_ok());
        v["format"] = "other/2".into();
        assert!(Profile::from_json(&v.to_string()).is_err());
        assert!(Profile::from_json("{").is_err());
        assert!(Profile::from_json("[]").is_err());
    }

    #[test]
    fn a_bad_file_is_told_what_is_wrong_with_it() {
        let why = |text: &str| match Profile::from_json(text) {
            Err(ReadError::Malformed(m)) => m,
            other => panic!("{text}: {other:?}"),
        };
        assert!(why("fib: 3").starts_with("it is not JSON ("));
        assert!(why("{\"format\": ").starts_with("it is not JSON ("));
        assert!(why("[1, 2]").contains("JSON but not a profile"));
        assert!(why("{\"a\": 1}").contains("no `format` key"));
        let mut v: serde_json::Value = serde_json::from_str(&sample().to_json()).unwrap();
        v["format"] = "vm-profile/2".into();
        assert!(why(&v.to_string()).contains("`vm-profile/2`, newer than"));
        v["format"] = "perf-script".into();
        assert_eq!(
            why(&v.to_string()),
            "format is `perf-script`, expected `vm-profile/1`"
        );
        assert!(why("{\"format\": \"vm-profile/1\"}").contains("missing field"));
    }

    #[test]
    fn cct_order_is_checked() {
        let node = |id, parent| CctNode {
            id,
            parent,
            method: "m".into(),
            line: None,
            calls: 1,
            self_: 0,
            cycles: None,
        };
        assert!(check_cct(&[node(0, None), node(1, Some(0)), node(2, Some(1))]).is_ok());
        assert!(check_cct(&[node(0, None), node(2, Some(1)), node(1, Some(0))]).is_err());
        assert!(check_cct(&[node(0, None), node(1, None)]).is_err());
        assert!(check_cct(&[node(0, None), node(0, Some(0))]).is_err());
        // Ids that are positions (the fast check) and ids that are not say
        // the same.
        assert!(check_cct(&[node(0, None), node(1, Some(1))]).is_err());
        assert!(check_cct(&[node(0, None), node(1, Some(0)), node(2, None)]).is_err());
        assert_eq!(
            check_cct(&[node(0, None), node(1, Some(2)), node(2, Some(0))]),
            check_cct(&[node(5, None), node(1, Some(2)), node(2, Some(5))])
                .map_err(|e| e.replace('5', "0"))
        );
        assert!(check_cct(&[node(5, None), node(7, Some(5)), node(6, Some(7))]).is_ok());
    }

    #[test]
    fn reading_streamed_gives_the_same_profile_and_the_same_complaints() {
        let dir = std::env::temp_dir().join(format!("profile-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.json");
        let mut p = sample();
        p.cct = Some(vec![
            CctNode {
                id: 0,
                parent: None,
                method: "<root>".into(),
                line: None,
                calls: 0,
                self_: 0,
                cycles: None,
            },
            CctNode {
                id: 1,
                parent: Some(0),
                method: "main".into(),
                line: None,
                calls: 1,
                self_: 3,
                cycles: None,
            },
        ]);
        std::fs::write(&good, p.to_json()).unwrap();
        assert_eq!(Profile::read(&good).unwrap(), p);
        let text = p.to_json();
        assert_eq!(
            Profile::read_streaming(&mut text.as_bytes(), None).unwrap(),
            Some(p.clone())
        );
        // Good JSON but a bad tree: given up, from_bytes says why.
        let backwards = text.replace("\"parent\": 0", "\"parent\": 1");
        assert_eq!(
            Profile::read_streaming(&mut backwards.as_bytes(), None).unwrap(),
            None
        );
        assert!(matches!(Profile::from_bytes(backwards.as_bytes()),
            Err(ReadError::Malformed(m)) if m == "cct node 1 names parent 1, which is not listed before it"));
        assert_eq!(Profile::from_reader(p.to_json().as_bytes()).unwrap(), p);
        for bad in [
            "fib: 3",
            "[1, 2]",
            "{\"a\": 1}",
            "{\"format\": \"vm-profile/9\"}",
        ] {
            let path = dir.join("bad.json");
            std::fs::write(&path, bad).unwrap();
            let (Err(ReadError::Malformed(read)), Err(ReadError::Malformed(text))) =
                (Profile::read(&path), Profile::from_json(bad))
            else {
                panic!("{bad} was read");
            };
            assert_eq!(read, text, "{bad}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
