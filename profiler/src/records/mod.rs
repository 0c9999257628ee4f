//! Calling-context records: what `--record` builds, besides the dynamic
//! call graph, from the samples of a sampling profile.
//!
//! A *record* is one way of turning stack samples into calling contexts.
//! It has two halves, each a trait:
//!
//! - on every application thread, a [`ThreadRecord`]: what it does with a
//!   method sample and an edge sample (usually a walk of the stack into a
//!   tree of the thread's own), when the examination of the stack at a
//!   yieldpoint ends ([`ThreadRecord::flush`]), when a frame it patched
//!   with a trampoline word returns ([`ThreadRecord::trampoline`]), and
//!   when the thread ends ([`ThreadRecord::finish`]: it sends what it
//!   built to the organizer as a [`Part`]);
//! - in the organizer, a [`Repository`]: how it folds the threads' parts
//!   ([`Repository::fold`]) and what it finally gives the profile
//!   ([`Repository::into_output`]: a tree to write node by node, or a
//!   listed `cct` with hot lists).
//!
//! The sampling listeners ([`crate::listeners`]) and the organizer
//! ([`crate::organizer`]) know only these traits. A run has at most one
//! record ([`crate::config`] refuses two), chosen by [`start`]. The four,
//! one folder each:
//!
//! - [`cct`]: the sampled calling context tree (Ammons, Ball & Larus'
//!   structure; the walks of Whaley 2000, section 5, and the incremental
//!   walk of Hofer et al. 2015). Its tree is also the exhaustive profile's.
//! - [`pcct`]: Whaley's partial calling context tree (Whaley 2000,
//!   section 5): increment-all-new-edges weights, sorted hot lists, purge.
//! - [`acct`]: Arnold & Sweeney's approximate calling context tree
//!   (Arnold & Sweeney 2000, section 3): splice below the last sampled
//!   frame, `last-edge` or `all-new-edges` weights.
//! - [`ccmap`]: the SSCLI profiler's Call Context Map (Chilingarova &
//!   Safonov 2006, section 3.1): the thread only copies stacks, the
//!   organizer builds the map.
//!
//! Shared by the records: [`frames`] (what a walk asks of a frame) and
//! [`marked`] (Whaley's marked walk, written once for the CCT and the
//! PCCT).
//!
//! **Adding a record**: a folder here with its two halves and a `start`
//! function, a name in [`crate::config::RecordKind`], and an arm in [`start`].

pub mod acct;
pub mod ccmap;
pub mod cct;
pub mod frames;
pub mod marked;
pub mod pcct;

use std::any::Any;

use vm::frame::ReturnWord;
use vm::hooks::ThreadCtx;
use vm::instr::YieldKind;
use vm::loader::Program;
use vm::profiler_cost::Work;

use crate::config::{ProfileConfig, ProfileKind, RecordKind};
use crate::samples::SampleSink;
use cct::CallingContextTree;
use profile::{CctNode, HotLists};

/// What a thread's record sends the organizer: each record downcasts its
/// own type (a tree, a buffer of stacks).
pub type Part = Box<dyn Any + Send>;

/// What one examination of the stack sampled (between its first sample
/// and [`ThreadRecord::flush`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Examination {
    /// An edge sample was taken: one call into the top frame's context.
    pub call: bool,
    /// A method sample credited the frame this many below the top (0 the
    /// top frame, 1 its caller at a prologue).
    pub self_at: Option<u8>,
}

/// A record's half on an application thread.
pub trait ThreadRecord: Send {
    /// An examination of the stack begins (before its samples).
    fn sample_taken(&mut self, _t: &mut ThreadCtx<'_>) {}

    /// A method sample at a yieldpoint of `kind` (at a prologue it credits
    /// the caller).
    fn method_sample(&mut self, _t: &mut ThreadCtx<'_>, _kind: YieldKind) {}

    /// An edge sample: one call into the top frame.
    fn edge_sample(&mut self, _t: &mut ThreadCtx<'_>) {}

    /// The examination of the stack at this yieldpoint ended, having
    /// sampled `exam`.
    fn flush(&mut self, _t: &mut ThreadCtx<'_>, _exam: Examination, _sink: &mut SampleSink) {}

    /// A frame whose return word is the trampoline `word` was popped (or
    /// unwound); `t.frames` is what remains. Returns the real word. Only a
    /// record that installs trampolines has any.
    fn trampoline(&mut self, _t: &mut ThreadCtx<'_>, word: ReturnWord) -> ReturnWord {
        panic!("a trampoline word {word:?} that no recorder installed")
    }

    /// The real return word behind the trampoline `word` (for stack
    /// traces).
    fn resolve(&self, word: ReturnWord) -> ReturnWord {
        word
    }

    /// The thread is ending (`t.frames` holds what remains): send what was
    /// built to the organizer. The record stays, for late
    /// [`ThreadRecord::resolve`] calls.
    fn finish(&mut self, t: &mut ThreadCtx<'_>, sink: &mut SampleSink);
}

/// What a record gives the profile.
#[derive(Default)]
pub struct RecordOutput {
    /// A calling context tree, to be written node by node.
    pub tree: Option<CallingContextTree>,
    /// Or the `cct` section already listed.
    pub listed: Option<Vec<CctNode>>,
    /// The `hot` section, with a listed `cct`.
    pub hot: Option<HotLists>,
}

/// A record's half in the organizer.
pub trait Repository: Send {
    /// Folds a part a thread (`thread`) sent, charging the organizer's
    /// work to `work`.
    fn fold(&mut self, thread: u32, part: Part, work: &mut Work);

    /// Thread `thread`, which started in method `entry`, ended.
    fn thread_done(&mut self, _thread: u32, _entry: u32) {}

    /// What the profile gets, once every thread is folded.
    fn into_output(self: Box<Self>, program: &Program) -> RecordOutput;
}

/// One run's record: makes each thread's half.
pub trait RecordMaker: Send + Sync {
    /// The record of a thread whose entry method is `entry`.
    fn thread(&self, entry: u32) -> Box<dyn ThreadRecord>;
}

/// The record a configuration chose, started: the maker of its threads'
/// halves and the organizer's repository.
pub struct Started {
    /// Makes each thread's half for a sampling profile's listeners (none
    /// for the exhaustive profile, whose listener builds its own tree).
    pub kind: Option<Box<dyn RecordMaker>>,
    /// The organizer's half.
    pub repository: Box<dyn Repository>,
}

/// The calling-context record `c` asks for, if any: with a sampling
/// profile the one tree of `--record` (built from samples), with the
/// exhaustive profile `cct` (built from every call, see
/// [`crate::exact`]).
pub fn start(c: &ProfileConfig) -> Option<Started> {
    if c.kind == ProfileKind::Exhaustive {
        return c
            .record
            .contains(&RecordKind::Cct)
            .then(cct::start_exhaustive);
    }
    let r = [
        RecordKind::Cct,
        RecordKind::Pcct,
        RecordKind::Acct,
        RecordKind::Ccmap,
    ]
    .into_iter()
    .find(|&r| c.samples_record(r))?;
    Some(match r {
        RecordKind::Cct => cct::start(c),
        RecordKind::Pcct => pcct::start(c),
        RecordKind::Acct => acct::start(c),
        RecordKind::Ccmap => ccmap::start(c),
        RecordKind::Dcg => unreachable!("the DCG is not a calling-context record"),
    })
}
