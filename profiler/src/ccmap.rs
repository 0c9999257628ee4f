//! The Call Context Map (CC-Map) of the SSCLI profiler (Chilingarova &
//! Safonov 2006, see README.md, "Bibliography"): section 3.1.2
//! "Call Context Map Structure", section 3.1.4 "CC-Map filling and
//! updating", with the queries section 3.1.3 "Advantages of CC-Map
//! structure" promises a compilation controller. The map is built by the
//! organizer thread (the paper's "CC-Map manager", section 3 "Profiling
//! Algorithm") from walked stacks; it is written to a profile as the `cct`
//! list of docs/LANGUAGE.md "Profiles" by [`CallContextMap::to_cct`].
//!
//! # The structure (section 3.1.2, Figure 3)
//!
//! - **[`MethodProfile`]**, one per method: "a total counter for the method
//!   executions and references to the nodes representing information about
//!   calls from this method to the others". The paper keeps them in a hash
//!   table keyed by method metadata; our methods are dense indices, so the
//!   table is a vector indexed by method.
//! - **[`CallSite`]**, one per call instruction: "general information about
//!   the call site – offset, reference to the caller profile"; our offset
//!   is the source line of the call (docs/LANGUAGE.md: `line` names the call site).
//! - **[`Callee`]**, one per (call site, called method): "the total number
//!   of calls from the concrete caller to the concrete callee, in any
//!   context", and a reference to the callee's profile.
//! - **[`CallSiteRef`]** and **[`CalleeRef`]**: "the tree of reference
//!   nodes is constructed for every call sequence. These Ref nodes contain
//!   counters for calls done in the given context and references to the
//!   nodes, which store general information about the call." A
//!   [`CalleeRef`] is one calling context; it links up to its caller
//!   context and down (through [`CallSiteRef`]s) to its callee contexts.
//! - **Context references**: "Every node representing general call
//!   information has Context references to the nodes, which describe a
//!   context of the call" ([`Callee::contexts`]), giving the bi-directional
//!   association of Figure 4 between a general node and "nodes
//!   representing the same call in the different contexts".
//!
//! "The roots of the trees are MethodProfile nodes" (Figure 4): the tree of
//! a method M holds the call sequences that start in M. Its first level is
//! M's own [`Callee`] nodes (the pseudocode below updates `Callee` for the
//! first call of a sequence and `CalleeRef` only from the second on; the
//! paper's "nodes don't store duplicate data"), so a context is either a
//! [`Context::RootCall`] (a [`Callee`] seen as the first call of its
//! caller's tree) or a [`Context::Nested`] ([`CalleeRef`]).
//!
//! # Filling (section 3.1.4)
//!
//! A sample is a walked stack, top frame first ("at the start of the buffer
//! we have a reference to the method correspondent to the activation
//! record at the top of the stack [...] and at the end of the buffer – the
//! outer caller"). [`CallContextMap::insert`] runs the paper's pseudocode:
//!
//! ```text
//! for i in 0..end_of_sample:
//!     update MethodProfile(buf[i])
//!     if i > 0: update Callee(buf[i], buf[i-1])
//!     for j = i-2 down to 0: update CalleeRef(buf[j])
//! ```
//!
//! that is, every frame of the sample is the root of one call sequence
//! (its tree gets the chain from it up to the top frame), so the map holds
//! both the totals of a call sequence "at any place" and its counts in each
//! longer context: the "combination of the described approaches" section
//! 3.1.1 asks for. A sample of depth *d* updates *d(d-1)/2* context nodes
//! (and a first sample through *d* distinct call sites creates as many;
//! a recursion creates only *O(d)*, its trees sharing one chain); the paper
//! accepts the cost because the organizer, not the application thread,
//! pays it ("proceeds with processing samples without hurry").
//!
//! # Decisions the paper leaves open
//!
//! - **The thread root.** A walk that reached the thread's entry frame
//!   ([`StackSample::complete`]) gets one more frame at its outer end: the
//!   virtual method `<root>` ([`ROOT_METHOD`]), whose tree is then exactly
//!   the calling context tree of docs/LANGUAGE.md "Profiles" (its first level the entry
//!   methods, line [`NO_LINE`]). [`CallContextMap::to_cct`] writes that tree.
//!   An incomplete walk (cut by `--max-walk`, or stopped at an already
//!   visited frame as in the paper) feeds every tree but `<root>`'s: where
//!   its outermost frame sits in the thread is unknown.
//! - **Counters.** Every counter counts samples: a [`MethodProfile`] the
//!   frames of the method seen (a recursive method counts once per frame,
//!   as in the pseudocode), a [`Callee`] or [`CalleeRef`] the times its
//!   call was seen in its context. With the paper's walk, which stops at the
//!   first already visited frame, each activation is seen about once and
//!   the counters estimate calls; the visited frame that ends such a walk
//!   is in the sample "as it is needed to register a new call from the
//!   frame", and, as in the pseudocode, its method's counter counts it
//!   again. With a walk of the whole stack every sample counts every
//!   frame: the counters are then inclusive sample counts. We add an
//!   `on_top` counter to the nodes
//!   (samples with that method or context on top of the stack), which the
//!   paper does not keep, so that `--record=ccmap` can give the documented
//!   `self` counts.
//! - **Lines.** A frame's `call_line` is the line of the call in the frame
//!   below it; a missing line where a caller is present (which a correct
//!   walk never produces) is taken as [`NO_LINE`].
//! - **Sequence length.** A sample of depth *d* costs *d(d-1)/2* updates,
//!   which a stack thousands of frames deep makes prohibitive (the paper
//!   allows long samples but "define[s] some rather high limit for the
//!   cases of incredibly deep stack"). A map made
//!   [`CallContextMap::with_sequence_limit`]`(k)` gives the trees of real
//!   methods only the call sequences of at most *k* calls (the sequence
//!   from a frame more than *k* frames below the top is not recorded in
//!   that frame's method's tree; its general [`Callee`] and
//!   [`MethodProfile`] counters still count); the thread root's tree always
//!   gets the whole context. A sample then costs *O(k·d)*. The organizer
//!   uses [`SEQUENCE_LIMIT`]; [`CallContextMap::new`] has no limit.
//! - **No recursion.** Every traversal uses explicit work lists: contexts
//!   may be thousands of calls deep.

use std::collections::HashMap;

use crate::cct::CallingContextTree;
pub use crate::cct::{NO_LINE, ROOT_METHOD};
use profile::CctNode;

/// The longest call sequence the organizer records in the tree of a real
/// method (see the module documentation, "Sequence length").
pub const SEQUENCE_LIMIT: usize = 64;

/// One frame of a walked stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SampledFrame {
    /// The method the frame runs.
    pub method: u32,
    /// The source line of the call instruction, in the frame below (the
    /// caller), that created this frame; `None` for a thread's entry frame.
    pub call_line: Option<u32>,
}

/// One sample: a walked stack.
#[derive(Clone, Copy, Debug)]
pub struct StackSample<'a> {
    /// The frames walked, the top frame (innermost call) first.
    pub frames: &'a [SampledFrame],
    /// Whether the walk reached the thread's entry frame (the last of
    /// `frames`), so that the sample is a whole calling context.
    pub complete: bool,
    /// The sample is an edge sample: the call into the top frame was
    /// sampled (adds to the top frame's contexts' `sampled_calls`).
    pub call: bool,
    /// The sample is a method sample crediting `frames[self_at]` as the
    /// executing frame (adds to its contexts' `sampled_self`).
    pub self_at: Option<usize>,
}

/// Index of a [`CallSite`] in its map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallSiteId(pub u32);
/// Index of a [`Callee`] in its map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CalleeId(pub u32);
/// Index of a [`CallSiteRef`] in its map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallSiteRefId(pub u32);
/// Index of a [`CalleeRef`] in its map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CalleeRefId(pub u32);

/// One calling context: a node of the tree of some root method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    /// The first call of a sequence: the [`Callee`] node of the tree's
    /// root method is its own context there.
    RootCall(CalleeId),
    /// A call made in the context of an earlier call of the sequence.
    Nested(CalleeRefId),
}

/// The profile of one method (section 3.1.2): its total counter and its
/// call sites.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodProfile {
    /// The method ([`ROOT_METHOD`] for the virtual thread root).
    pub method: u32,
    /// Frames of this method seen in samples (the paper's "total counter
    /// for the method executions").
    pub executions: u64,
    /// Samples with this method on top of the stack (our addition).
    pub on_top: u64,
    /// The call sites in this method that were seen calling, in the order
    /// they were first seen; the roots of this method's tree.
    pub call_sites: Vec<CallSiteId>,
    /// The [`Callee`] nodes calling this method (the reverse of
    /// [`Callee::method`]).
    pub called_from: Vec<CalleeId>,
}

impl MethodProfile {
    fn new(method: u32) -> MethodProfile {
        MethodProfile {
            method,
            executions: 0,
            on_top: 0,
            call_sites: Vec::new(),
            called_from: Vec::new(),
        }
    }
}

/// One call instruction: the general information about a call site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// The calling method (its [`MethodProfile`]).
    pub caller: u32,
    /// The source line of the call ([`NO_LINE`] for the thread root's
    /// calls of entry methods).
    pub line: u32,
    /// The methods called from here, in the order first seen.
    pub callees: Vec<CalleeId>,
}

/// One (call site, called method) pair: the calls from a concrete caller to
/// a concrete callee, in any context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Callee {
    /// The call site.
    pub site: CallSiteId,
    /// The called method (its [`MethodProfile`]).
    pub method: u32,
    /// Times this call was seen in samples, in any context.
    pub calls: u64,
    /// Samples with this call on top of the stack (our addition).
    pub on_top: u64,
    /// Edge samples of this call, as the first of its sequence, on top
    /// (our addition: the `calls` of the documented CCT).
    pub sampled_calls: u64,
    /// Method samples crediting this context (our addition: `self`).
    pub sampled_self: u64,
    /// The Context references: the [`CalleeRef`]s describing this call in
    /// longer contexts (the [`Context::RootCall`] of this node is not
    /// listed: it is the node itself).
    pub contexts: Vec<CalleeRefId>,
    /// As a [`Context::RootCall`]: the call sites of the callee reached in
    /// this context (its callee contexts, grouped by call site).
    pub sites_in_context: Vec<CallSiteRefId>,
}

/// A call site in a given context: groups the callee contexts of one
/// caller context by call site, so that a controller sees which targets a
/// site had in that context ("CallSiteRef – only for calls done in a given
/// context", section 3.1.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSiteRef {
    /// The general call site.
    pub site: CallSiteId,
    /// The caller context the site was reached in.
    pub caller_context: Context,
    /// The calls made from the site in that context.
    pub callee_refs: Vec<CalleeRefId>,
}

/// A call in a given context (not the first of its sequence).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CalleeRef {
    /// The general node of the call (same call site, same callee).
    pub callee: CalleeId,
    /// The [`CallSiteRef`] this context hangs under.
    pub site_ref: CallSiteRefId,
    /// The caller context: the link up the call sequence.
    pub caller_context: Context,
    /// Times the call was seen in this context.
    pub calls: u64,
    /// Samples with this context on top of the stack (our addition).
    pub on_top: u64,
    /// Edge samples with this context on top (our addition: the `calls`
    /// of the documented CCT).
    pub sampled_calls: u64,
    /// Method samples crediting this context (our addition: `self`).
    pub sampled_self: u64,
    /// The call sites of the callee reached in this context: the links down
    /// the call sequence.
    pub sites_in_context: Vec<CallSiteRefId>,
}

/// One call of a [`ContextPath`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CallStep {
    /// The line of the call in the previous method of the path.
    pub line: u32,
    /// The method called.
    pub method: u32,
}

/// A context spelled out: its tree's root method, then each call.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ContextPath {
    /// The method whose tree holds the context ([`ROOT_METHOD`]: the
    /// thread root, the path is a whole calling context).
    pub root: u32,
    /// The calls from the root to the context, outermost first.
    pub calls: Vec<CallStep>,
}

/// How many nodes of each kind a map holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeCounts {
    /// [`MethodProfile`]s of real methods (the thread root excluded).
    pub method_profiles: usize,
    /// [`CallSite`]s, the thread root's one included.
    pub call_sites: usize,
    /// [`Callee`]s.
    pub callees: usize,
    /// [`CallSiteRef`]s.
    pub call_site_refs: usize,
    /// [`CalleeRef`]s.
    pub callee_refs: usize,
}

/// The Call Context Map. Only the organizer thread writes it.
#[derive(Clone, Debug)]
pub struct CallContextMap {
    /// The MethodProfile table, indexed by method.
    methods: Vec<Option<MethodProfile>>,
    /// The virtual thread root's profile.
    thread_root: MethodProfile,
    call_sites: Vec<CallSite>,
    /// (caller, line) to its call site.
    call_site_index: HashMap<(u32, u32), CallSiteId>,
    callees: Vec<Callee>,
    call_site_refs: Vec<CallSiteRef>,
    callee_refs: Vec<CalleeRef>,
    /// Scratch for [`CallContextMap::insert`]: the sample's call edges.
    edges: Vec<CalleeId>,
    /// The longest call sequence recorded in a real method's tree.
    sequence_limit: usize,
}

impl Default for CallContextMap {
    fn default() -> Self {
        CallContextMap::new()
    }
}

/// The index the next node of an arena of `len` nodes gets.
fn next_id(len: usize) -> u32 {
    u32::try_from(len).expect("fewer than 2^32 CC-Map nodes")
}

impl CallContextMap {
    /// An empty map.
    pub fn new() -> CallContextMap {
        CallContextMap {
            methods: Vec::new(),
            thread_root: MethodProfile::new(ROOT_METHOD),
            call_sites: Vec::new(),
            call_site_index: HashMap::new(),
            callees: Vec::new(),
            call_site_refs: Vec::new(),
            callee_refs: Vec::new(),
            edges: Vec::new(),
            sequence_limit: usize::MAX,
        }
    }

    /// An empty map whose real methods' trees hold call sequences of at
    /// most `calls` calls (at least 1); the thread root's tree is whole.
    pub fn with_sequence_limit(calls: usize) -> CallContextMap {
        CallContextMap {
            sequence_limit: calls.max(1),
            ..CallContextMap::new()
        }
    }

    // ----- filling (section 3.1.4) -----

    /// Folds one walked stack into the map (section 3.1.4's pseudocode;
    /// see the module documentation). An empty sample changes nothing.
    pub fn insert(&mut self, sample: StackSample<'_>) {
        let frames = sample.frames;
        if frames.is_empty() {
            return;
        }
        // The buffer of the pseudocode: the frames, then the thread root
        // when the walk was complete. `method_at(i)` is buf[i].
        let n = frames.len() + usize::from(sample.complete);
        let method_at = |i: usize| {
            if i < frames.len() {
                frames[i].method
            } else {
                ROOT_METHOD
            }
        };
        // The general Callee nodes of the sample's calls, found once:
        // edges[k] is the call buf[k+1] -> buf[k].
        let mut edges = std::mem::take(&mut self.edges);
        edges.clear();
        for (k, frame) in frames.iter().enumerate().take(n - 1) {
            let line = frame.call_line.unwrap_or(NO_LINE);
            let site = self.find_or_add_call_site(method_at(k + 1), line);
            edges.push(self.find_or_add_callee(site, frame.method));
        }
        for i in 0..n {
            let profile = self.profile_mut(method_at(i));
            profile.executions += 1;
            if i == 0 {
                profile.on_top += 1;
                continue;
            }
            // The sequence rooted at buf[i]: its first call is a Callee...
            let first = &mut self.callees[edges[i - 1].0 as usize];
            first.calls += 1;
            if i == 1 {
                first.on_top += 1;
                first.sampled_calls += u64::from(sample.call);
            }
            if sample.self_at == Some(i - 1) {
                first.sampled_self += 1;
            }
            // ...and the rest CalleeRefs, down to the top frame (a long
            // sequence only in the thread root's tree).
            if i > self.sequence_limit && !(sample.complete && i == n - 1) {
                continue;
            }
            let mut context = Context::RootCall(edges[i - 1]);
            for j in (0..i - 1).rev() {
                let r = self.find_or_add_callee_ref(context, edges[j]);
                let node = &mut self.callee_refs[r.0 as usize];
                node.calls += 1;
                if j == 0 {
                    node.on_top += 1;
                    node.sampled_calls += u64::from(sample.call);
                }
                if sample.self_at == Some(j) {
                    node.sampled_self += 1;
                }
                context = Context::Nested(r);
            }
        }
        self.edges = edges;
    }

    /// Counts one thread that started in `entry`: one call of the entry
    /// context (as the exhaustive CCT counts it), whether or not a sample
    /// was taken in it.
    pub fn count_thread(&mut self, entry: u32) {
        let site = self.find_or_add_call_site(ROOT_METHOD, NO_LINE);
        let c = self.find_or_add_callee(site, entry);
        self.callees[c.0 as usize].sampled_calls += 1;
    }

    fn profile_mut(&mut self, method: u32) -> &mut MethodProfile {
        if method == ROOT_METHOD {
            return &mut self.thread_root;
        }
        let m = method as usize;
        if m >= self.methods.len() {
            self.methods.resize(m + 1, None);
        }
        self.methods[m].get_or_insert_with(|| MethodProfile::new(method))
    }

    /// The call site (`caller`, `line`), created if absent.
    fn find_or_add_call_site(&mut self, caller: u32, line: u32) -> CallSiteId {
        if let Some(&s) = self.call_site_index.get(&(caller, line)) {
            return s;
        }
        let s = CallSiteId(next_id(self.call_sites.len()));
        self.call_sites.push(CallSite {
            caller,
            line,
            callees: Vec::new(),
        });
        self.call_site_index.insert((caller, line), s);
        self.profile_mut(caller).call_sites.push(s);
        s
    }

    /// The Callee node of `method` at `site`, created if absent.
    fn find_or_add_callee(&mut self, site: CallSiteId, method: u32) -> CalleeId {
        let found = self.call_sites[site.0 as usize]
            .callees
            .iter()
            .copied()
            .find(|c| self.callees[c.0 as usize].method == method);
        if let Some(c) = found {
            return c;
        }
        let c = CalleeId(next_id(self.callees.len()));
        self.callees.push(Callee {
            site,
            method,
            calls: 0,
            on_top: 0,
            sampled_calls: 0,
            sampled_self: 0,
            contexts: Vec::new(),
            sites_in_context: Vec::new(),
        });
        self.call_sites[site.0 as usize].callees.push(c);
        self.profile_mut(method).called_from.push(c);
        c
    }

    /// The context of call `callee` made in `caller_context`, created (with
    /// its CallSiteRef and both-way links) if absent.
    fn find_or_add_callee_ref(&mut self, caller_context: Context, callee: CalleeId) -> CalleeRefId {
        let site = self.callees[callee.0 as usize].site;
        let site_ref = {
            let found = self
                .sites_in_context(caller_context)
                .iter()
                .copied()
                .find(|sr| self.call_site_refs[sr.0 as usize].site == site);
            match found {
                Some(sr) => sr,
                None => {
                    let sr = CallSiteRefId(next_id(self.call_site_refs.len()));
                    self.call_site_refs.push(CallSiteRef {
                        site,
                        caller_context,
                        callee_refs: Vec::new(),
                    });
                    match caller_context {
                        Context::RootCall(c) => &mut self.callees[c.0 as usize].sites_in_context,
                        Context::Nested(r) => &mut self.callee_refs[r.0 as usize].sites_in_context,
                    }
                    .push(sr);
                    sr
                }
            }
        };
        let found = self.call_site_refs[site_ref.0 as usize]
            .callee_refs
            .iter()
            .copied()
            .find(|r| self.callee_refs[r.0 as usize].callee == callee);
        if let Some(r) = found {
            return r;
        }
        let r = CalleeRefId(next_id(self.callee_refs.len()));
        self.callee_refs.push(CalleeRef {
            callee,
            site_ref,
            caller_context,
            calls: 0,
            on_top: 0,
            sampled_calls: 0,
            sampled_self: 0,
            sites_in_context: Vec::new(),
        });
        self.call_site_refs[site_ref.0 as usize].callee_refs.push(r);
        self.callees[callee.0 as usize].contexts.push(r);
        r
    }

    // ----- the nodes -----

    /// The profile of `method`, if it was ever seen. [`ROOT_METHOD`] gives
    /// the virtual thread root (its `executions` count the complete walks).
    pub fn method(&self, method: u32) -> Option<&MethodProfile> {
        if method == ROOT_METHOD {
            return Some(&self.thread_root);
        }
        self.methods.get(method as usize)?.as_ref()
    }

    /// Every method seen, by method index (the thread root excluded).
    pub fn methods(&self) -> impl Iterator<Item = &MethodProfile> {
        self.methods.iter().flatten()
    }

    /// Call site `id`.
    pub fn call_site(&self, id: CallSiteId) -> &CallSite {
        &self.call_sites[id.0 as usize]
    }

    /// The call site at `line` of `caller`, if it was seen calling.
    pub fn find_call_site(&self, caller: u32, line: u32) -> Option<CallSiteId> {
        self.call_site_index.get(&(caller, line)).copied()
    }

    /// Callee node `id`.
    pub fn callee(&self, id: CalleeId) -> &Callee {
        &self.callees[id.0 as usize]
    }

    /// CallSiteRef node `id`.
    pub fn call_site_ref(&self, id: CallSiteRefId) -> &CallSiteRef {
        &self.call_site_refs[id.0 as usize]
    }

    /// CalleeRef node `id`.
    pub fn callee_ref(&self, id: CalleeRefId) -> &CalleeRef {
        &self.callee_refs[id.0 as usize]
    }

    /// How many nodes of each kind the map holds.
    pub fn node_counts(&self) -> NodeCounts {
        NodeCounts {
            method_profiles: self.methods().count(),
            call_sites: self.call_sites.len(),
            callees: self.callees.len(),
            call_site_refs: self.call_site_refs.len(),
            callee_refs: self.callee_refs.len(),
        }
    }

    // ----- contexts: moving up and down a call sequence (section 3.1.3) -----

    /// The general Callee node of a context (the call it describes).
    pub fn call_of(&self, context: Context) -> CalleeId {
        match context {
            Context::RootCall(c) => c,
            Context::Nested(r) => self.callee_refs[r.0 as usize].callee,
        }
    }

    /// The method called in `context`.
    pub fn method_of(&self, context: Context) -> u32 {
        self.callees[self.call_of(context).0 as usize].method
    }

    /// The source line of the call of `context`.
    pub fn line_of(&self, context: Context) -> u32 {
        let site = self.callees[self.call_of(context).0 as usize].site;
        self.call_sites[site.0 as usize].line
    }

    /// Times the call was seen in `context`.
    pub fn calls_in(&self, context: Context) -> u64 {
        match context {
            Context::RootCall(c) => self.callees[c.0 as usize].calls,
            Context::Nested(r) => self.callee_refs[r.0 as usize].calls,
        }
    }

    /// Edge samples with `context` on top, and the threads counted into it
    /// ([`Self::count_thread`]).
    pub fn sampled_calls_in(&self, context: Context) -> u64 {
        match context {
            Context::RootCall(c) => self.callees[c.0 as usize].sampled_calls,
            Context::Nested(r) => self.callee_refs[r.0 as usize].sampled_calls,
        }
    }

    /// Method samples crediting `context`.
    pub fn sampled_self_in(&self, context: Context) -> u64 {
        match context {
            Context::RootCall(c) => self.callees[c.0 as usize].sampled_self,
            Context::Nested(r) => self.callee_refs[r.0 as usize].sampled_self,
        }
    }

    /// Samples with `context` on top of the stack.
    pub fn on_top_in(&self, context: Context) -> u64 {
        match context {
            Context::RootCall(c) => self.callees[c.0 as usize].on_top,
            Context::Nested(r) => self.callee_refs[r.0 as usize].on_top,
        }
    }

    /// The caller context (up the sequence); `None` for a first call,
    /// whose caller is the tree's root method.
    pub fn caller_context(&self, context: Context) -> Option<Context> {
        match context {
            Context::RootCall(_) => None,
            Context::Nested(r) => Some(self.callee_refs[r.0 as usize].caller_context),
        }
    }

    /// The call sites reached in `context`, each with its callee contexts.
    pub fn sites_in_context(&self, context: Context) -> &[CallSiteRefId] {
        match context {
            Context::RootCall(c) => &self.callees[c.0 as usize].sites_in_context,
            Context::Nested(r) => &self.callee_refs[r.0 as usize].sites_in_context,
        }
    }

    /// The callee contexts of `context` (down the sequence), grouped by
    /// call site in the order first seen.
    pub fn callee_contexts(&self, context: Context) -> Vec<Context> {
        self.sites_in_context(context)
            .iter()
            .flat_map(|sr| self.call_site_refs[sr.0 as usize].callee_refs.iter())
            .map(|&r| Context::Nested(r))
            .collect()
    }

    /// The method whose tree holds `context`, and the calls from it down
    /// to `context`. Walks up iteratively.
    pub fn context_path(&self, context: Context) -> ContextPath {
        let mut calls = Vec::new();
        let mut at = context;
        loop {
            calls.push(CallStep {
                line: self.line_of(at),
                method: self.method_of(at),
            });
            match self.caller_context(at) {
                Some(up) => at = up,
                None => break,
            }
        }
        calls.reverse();
        let first_site = self.callees[self.call_of(at).0 as usize].site;
        ContextPath {
            root: self.call_sites[first_site.0 as usize].caller,
            calls,
        }
    }

    /// Every context in which `method` was called, in every tree: for each
    /// Callee node into it, the node itself and then its Context references.
    pub fn contexts_of(&self, method: u32) -> Vec<Context> {
        let Some(profile) = self.method(method) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for &c in &profile.called_from {
            out.push(Context::RootCall(c));
            out.extend(
                self.callees[c.0 as usize]
                    .contexts
                    .iter()
                    .map(|&r| Context::Nested(r)),
            );
        }
        out
    }

    /// The whole calling contexts of the threads' entry methods: the first
    /// level of the thread root's tree.
    pub fn entry_contexts(&self) -> Vec<Context> {
        self.thread_root
            .call_sites
            .iter()
            .flat_map(|s| self.call_sites[s.0 as usize].callees.iter())
            .map(|&c| Context::RootCall(c))
            .collect()
    }

    // ----- what a controller asks (section 3.1.3) -----

    /// The `n` hottest methods by their total counter, ties by fewer
    /// method index first.
    pub fn hottest_methods(&self, n: usize) -> Vec<&MethodProfile> {
        let mut all: Vec<&MethodProfile> = self.methods().collect();
        all.sort_by_key(|p| (std::cmp::Reverse(p.executions), p.method));
        all.truncate(n);
        all
    }

    /// Calls seen from `site`, over all its callees and contexts.
    pub fn site_calls(&self, site: CallSiteId) -> u64 {
        self.call_sites[site.0 as usize]
            .callees
            .iter()
            .map(|c| self.callees[c.0 as usize].calls)
            .sum()
    }

    /// The `n` hottest call sites of real methods (the thread root's
    /// excluded) with their calls, ties by (caller, line).
    pub fn hottest_call_sites(&self, n: usize) -> Vec<(CallSiteId, u64)> {
        let mut all: Vec<(CallSiteId, u64)> = (0..self.call_sites.len())
            .map(|i| CallSiteId(i as u32))
            .filter(|&s| self.call_site(s).caller != ROOT_METHOD)
            .map(|s| (s, self.site_calls(s)))
            .collect();
        all.sort_by_key(|&(s, calls)| {
            let site = self.call_site(s);
            (std::cmp::Reverse(calls), site.caller, site.line)
        });
        all.truncate(n);
        all
    }

    /// Which methods `site` called and how often, in any context, hottest
    /// first (ties by method index): one entry means a probably
    /// monomorphic site, a candidate for devirtualization.
    pub fn callee_distribution(&self, site: CallSiteId) -> Vec<(u32, u64)> {
        let mut out: Vec<(u32, u64)> = self.call_sites[site.0 as usize]
            .callees
            .iter()
            .map(|c| {
                let c = &self.callees[c.0 as usize];
                (c.method, c.calls)
            })
            .collect();
        out.sort_by_key(|&(m, calls)| (std::cmp::Reverse(calls), m));
        out
    }

    /// Which methods the call at `line` of the method called in `context`
    /// called in that context, and how often, hottest first (the
    /// CallSiteRef view of section 3.1.3).
    pub fn callee_distribution_in(&self, context: Context, line: u32) -> Vec<(u32, u64)> {
        let mut out = Vec::new();
        for sr in self.sites_in_context(context) {
            let sr = &self.call_site_refs[sr.0 as usize];
            if self.call_sites[sr.site.0 as usize].line != line {
                continue;
            }
            for r in &sr.callee_refs {
                let r = &self.callee_refs[r.0 as usize];
                out.push((self.callees[r.callee.0 as usize].method, r.calls));
            }
        }
        out.sort_by_key(|&(m, calls)| (std::cmp::Reverse(calls), m));
        out
    }

    // ----- output (docs/LANGUAGE.md "Profiles") -----

    /// The thread root's tree as a calling context tree: one node per
    /// context seen in a complete walk (or counted as a thread's entry),
    /// `calls` its edge samples with it on top ([`Self::sampled_calls_in`],
    /// the calls sampled *into* the context, as `--record=cct` counts
    /// them, so that `--profile=counter --every=1` gives the exhaustive
    /// tree's exact calls), `self` its method samples
    /// ([`Self::sampled_self_in`]). The paper's own counters (a context's
    /// `calls_in`: samples with the context anywhere on the stack, an
    /// inclusive count) stay in the map for a controller's queries. The
    /// root's counts stay 0 (docs/LANGUAGE.md "Profiles"). Iterative.
    pub fn to_cct(&self) -> CallingContextTree {
        let mut tree = CallingContextTree::new();
        let mut work: Vec<(Context, u32)> = Vec::new();
        for context in self.entry_contexts() {
            work.push((context, CallingContextTree::ROOT));
        }
        while let Some((context, parent)) = work.pop() {
            let node = tree.child(parent, self.method_of(context), self.line_of(context));
            let n = tree.node_mut(node);
            n.calls += self.sampled_calls_in(context);
            n.self_ += self.sampled_self_in(context);
            for callee in self.callee_contexts(context) {
                work.push((callee, node));
            }
        }
        tree
    }

    /// [`Self::to_cct`] as the flat `cct` list of a profile file, each
    /// parent before its children; `name_of` names methods.
    pub fn to_cct_nodes(&self, name_of: impl Fn(u32) -> String) -> Vec<CctNode> {
        self.to_cct().to_flat(name_of)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAIN: u32 = 0;
    const A: u32 = 1;
    const B: u32 = 2;
    const C: u32 = 3;

    fn name(m: u32) -> String {
        ["main", "a", "b", "c", "f"][m as usize].to_string()
    }

    /// Frames from a readable spec: `(method, line)` top first, the last
    /// frame's line ignored when `complete`.
    fn frames(spec: &[(u32, u32)], complete: bool) -> Vec<SampledFrame> {
        let last = spec.len() - 1;
        spec.iter()
            .enumerate()
            .map(|(i, &(method, line))| SampledFrame {
                method,
                call_line: if complete && i == last {
                    None
                } else {
                    Some(line)
                },
            })
            .collect()
    }

    fn insert(map: &mut CallContextMap, spec: &[(u32, u32)], complete: bool) {
        let f = frames(spec, complete);
        map.insert(StackSample {
            frames: &f,
            complete,
            call: true,
            self_at: Some(0),
        });
    }

    fn path(root: u32, calls: &[(u32, u32)]) -> ContextPath {
        ContextPath {
            root,
            calls: calls
                .iter()
                .map(|&(line, method)| CallStep { line, method })
                .collect(),
        }
    }

    /// Every context of the map, by path, with (calls, on_top).
    fn all_contexts(map: &CallContextMap) -> Vec<(ContextPath, u64, u64)> {
        let mut out: Vec<_> = (0..map.callees.len())
            .map(|c| Context::RootCall(CalleeId(c as u32)))
            .chain((0..map.callee_refs.len()).map(|r| Context::Nested(CalleeRefId(r as u32))))
            .map(|c| (map.context_path(c), map.calls_in(c), map.on_top_in(c)))
            .collect();
        out.sort_by(|x, y| format!("{:?}", x).cmp(&format!("{:?}", y)));
        out
    }

    /// Checks every link of the map both ways.
    fn check_links(map: &CallContextMap) {
        for (i, r) in map.callee_refs.iter().enumerate() {
            let me = CalleeRefId(i as u32);
            let sr = map.call_site_ref(r.site_ref);
            assert!(
                sr.callee_refs.contains(&me),
                "site ref lists its callee ref"
            );
            assert_eq!(sr.caller_context, r.caller_context);
            assert_eq!(sr.site, map.callee(r.callee).site);
            assert!(map.sites_in_context(r.caller_context).contains(&r.site_ref));
            assert!(map.callee(r.callee).contexts.contains(&me));
            assert!(map
                .callee_contexts(r.caller_context)
                .contains(&Context::Nested(me)));
            // The caller context calls the method this call is made from.
            assert_eq!(
                map.method_of(r.caller_context),
                map.call_site(map.callee(r.callee).site).caller
            );
        }
        for (i, c) in map.callees.iter().enumerate() {
            let me = CalleeId(i as u32);
            assert!(map.call_site(c.site).callees.contains(&me));
            assert!(map.method(c.method).unwrap().called_from.contains(&me));
            for &r in &c.contexts {
                assert_eq!(map.callee_ref(r).callee, me);
            }
        }
        for (i, s) in map.call_sites.iter().enumerate() {
            assert!(map
                .method(s.caller)
                .unwrap()
                .call_sites
                .contains(&CallSiteId(i as u32)));
        }
    }

    /// main -3-> a -7-> b, main -3-> a -9-> c, the first again, and an
    /// incomplete walk a -7-> b whose a was called at line 5 of an
    /// unknown caller.
    fn worked_example() -> CallContextMap {
        let mut map = CallContextMap::new();
        insert(&mut map, &[(B, 7), (A, 3), (MAIN, 0)], true);
        insert(&mut map, &[(C, 9), (A, 3), (MAIN, 0)], true);
        insert(&mut map, &[(B, 7), (A, 3), (MAIN, 0)], true);
        insert(&mut map, &[(B, 7), (A, 5)], false);
        map
    }

    #[test]
    fn worked_example_counts_every_node() {
        let map = worked_example();
        // Methods: main, a, b, c. Sites: <root>@-, main@3, a@7, a@9.
        // Callees: <root>->main, main@3->a, a@7->b, a@9->c.
        // CalleeRefs: under <root>->main: a (1), under it b and c (2, 3);
        // under main@3->a: b and c (4, 5).  CallSiteRefs: <root>->main's
        // main@3, (<root>,main,a)'s a@7 and a@9, main@3->a's a@7 and a@9.
        assert_eq!(
            map.node_counts(),
            NodeCounts {
                method_profiles: 4,
                call_sites: 4,
                callees: 4,
                call_site_refs: 5,
                callee_refs: 5,
            }
        );
        let exec = |m| map.method(m).unwrap().executions;
        let top = |m| map.method(m).unwrap().on_top;
        assert_eq!((exec(MAIN), exec(A), exec(B), exec(C)), (3, 4, 3, 1));
        assert_eq!((top(MAIN), top(A), top(B), top(C)), (0, 0, 3, 1));
        assert_eq!(map.method(ROOT_METHOD).unwrap().executions, 3);
        assert_eq!(all_contexts(&map), {
            let mut v = vec![
                (path(ROOT_METHOD, &[(NO_LINE, MAIN)]), 3, 0),
                (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A)]), 3, 0),
                (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A), (7, B)]), 2, 2),
                (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A), (9, C)]), 1, 1),
                (path(MAIN, &[(3, A)]), 3, 0),
                (path(MAIN, &[(3, A), (7, B)]), 2, 2),
                (path(MAIN, &[(3, A), (9, C)]), 1, 1),
                // The general nodes a->b and a->c: the incomplete walk
                // adds to a->b.
                (path(A, &[(7, B)]), 3, 3),
                (path(A, &[(9, C)]), 1, 1),
            ];
            v.sort_by(|x, y| format!("{:?}", x).cmp(&format!("{:?}", y)));
            v
        });
        check_links(&map);
    }

    #[test]
    fn queries_answer_from_the_worked_example() {
        let map = worked_example();
        let hot: Vec<(u32, u64)> = map
            .hottest_methods(2)
            .iter()
            .map(|p| (p.method, p.executions))
            .collect();
        assert_eq!(hot, vec![(A, 4), (MAIN, 3)]);

        let sites: Vec<(u32, u32, u64)> = map
            .hottest_call_sites(10)
            .into_iter()
            .map(|(s, calls)| (map.call_site(s).caller, map.call_site(s).line, calls))
            .collect();
        // Every real call site (a's unknown caller at 5 was never seen).
        assert_eq!(sites, vec![(MAIN, 3, 3), (A, 7, 3), (A, 9, 1)]);
        assert_eq!(
            map.find_call_site(MAIN, 3),
            Some(map.hottest_call_sites(1)[0].0)
        );
        assert_eq!(map.find_call_site(A, 3), None);

        let a7 = map.find_call_site(A, 7).unwrap();
        assert_eq!(map.callee_distribution(a7), vec![(B, 3)]);

        // b was called in three contexts: a->b (the general node),
        // main->a->b and <root>->main->a->b.
        let mut paths: Vec<ContextPath> = map
            .contexts_of(B)
            .into_iter()
            .map(|c| map.context_path(c))
            .collect();
        paths.sort_by_key(|p| p.calls.len());
        assert_eq!(
            paths,
            vec![
                path(A, &[(7, B)]),
                path(MAIN, &[(3, A), (7, B)]),
                path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A), (7, B)]),
            ]
        );

        // In the context main->a (tree of main), a's line 7 called b twice
        // and line 9 called c once.
        let main_a =
            Context::RootCall(map.call_site(map.find_call_site(MAIN, 3).unwrap()).callees[0]);
        assert_eq!(map.callee_distribution_in(main_a, 7), vec![(B, 2)]);
        assert_eq!(map.callee_distribution_in(main_a, 9), vec![(C, 1)]);
        assert_eq!(map.callee_distribution_in(main_a, 4), vec![]);
        let down: Vec<u32> = map
            .callee_contexts(main_a)
            .into_iter()
            .map(|c| map.method_of(c))
            .collect();
        assert_eq!(down, vec![B, C]);
        for c in map.callee_contexts(main_a) {
            assert_eq!(map.caller_context(c), Some(main_a));
        }
        assert_eq!(map.caller_context(main_a), None);
    }

    #[test]
    fn a_repeated_sample_adds_counts_but_no_nodes() {
        let mut map = worked_example();
        let before_nodes = map.node_counts();
        let before = all_contexts(&map);
        insert(&mut map, &[(C, 9), (A, 3), (MAIN, 0)], true);
        assert_eq!(map.node_counts(), before_nodes);
        let after = all_contexts(&map);
        // Exactly the contexts on the path c <- a <- main (in every tree)
        // gained one call; c's contexts also one on_top.
        let changed: Vec<_> = before
            .iter()
            .zip(&after)
            .filter(|(x, y)| x != y)
            .map(|(x, y)| {
                assert_eq!(x.0, y.0);
                (y.0.clone(), y.1 - x.1, y.2 - x.2)
            })
            .collect();
        let mut want = vec![
            (path(ROOT_METHOD, &[(NO_LINE, MAIN)]), 1, 0),
            (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A)]), 1, 0),
            (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A), (9, C)]), 1, 1),
            (path(MAIN, &[(3, A)]), 1, 0),
            (path(MAIN, &[(3, A), (9, C)]), 1, 1),
            (path(A, &[(9, C)]), 1, 1),
        ];
        want.sort_by(|x, y| format!("{:?}", x).cmp(&format!("{:?}", y)));
        assert_eq!(changed, want);
        assert_eq!(map.method(C).unwrap().executions, 2);
        check_links(&map);
    }

    #[test]
    fn an_entry_frame_alone_is_an_entry_context_on_top() {
        let mut map = CallContextMap::new();
        insert(&mut map, &[(MAIN, 0)], true);
        insert(&mut map, &[(MAIN, 0)], true);
        // An incomplete one-frame walk records no call at all.
        insert(&mut map, &[(A, 4)], false);
        assert_eq!(map.entry_contexts().len(), 1);
        let entry = map.entry_contexts()[0];
        assert_eq!((map.calls_in(entry), map.on_top_in(entry)), (2, 2));
        assert_eq!(map.method(MAIN).unwrap().on_top, 2);
        assert_eq!(map.method(A).unwrap().executions, 1);
        assert_eq!(map.node_counts().callees, 1);
        let flat = map.to_cct_nodes(name);
        assert_eq!(flat.len(), 2);
        assert_eq!(
            (
                flat[1].method.as_str(),
                flat[1].line,
                flat[1].calls,
                flat[1].self_
            ),
            ("main", None, 2, 2)
        );
        // And nothing comes of an empty walk.
        map.insert(StackSample {
            frames: &[],
            complete: true,
            call: true,
            self_at: None,
        });
        assert_eq!(map.method(ROOT_METHOD).unwrap().executions, 2);
    }

    #[test]
    fn threads_with_the_same_entry_share_its_context() {
        let mut map = CallContextMap::new();
        // Two threads of entry b, one of entry main calling b at 8.
        insert(&mut map, &[(B, 0)], true);
        insert(&mut map, &[(C, 2), (B, 0)], true);
        insert(&mut map, &[(B, 8), (MAIN, 0)], true);
        let flat = map.to_cct_nodes(name);
        let got: Vec<_> = flat
            .iter()
            .map(|n| (n.method.as_str(), n.line, n.calls, n.self_, n.parent))
            .collect();
        assert_eq!(
            got,
            vec![
                ("<root>", None, 0, 0, None),
                ("b", None, 1, 1, Some(0)),
                ("c", Some(2), 1, 1, Some(1)),
                ("main", None, 0, 0, Some(0)),
                ("b", Some(8), 1, 1, Some(3)),
            ]
        );
        // b's contexts: <root>->b, main->b, <root>->main->b; c's: b->c,
        // <root>->b->c.
        assert_eq!(map.contexts_of(B).len(), 3);
        assert_eq!(map.contexts_of(C).len(), 2);
        assert_eq!(map.contexts_of(A), vec![]);
    }

    #[test]
    fn the_worked_example_as_a_cct() {
        let flat = worked_example().to_cct_nodes(name);
        let got: Vec<_> = flat
            .iter()
            .map(|n| (n.id, n.parent, n.method.as_str(), n.line, n.calls, n.self_))
            .collect();
        // The incomplete walk (a called at 5 from somewhere) is not in it.
        assert_eq!(
            got,
            vec![
                (0, None, "<root>", None, 0, 0),
                (1, Some(0), "main", None, 0, 0),
                (2, Some(1), "a", Some(3), 0, 0),
                (3, Some(2), "b", Some(7), 2, 2),
                (4, Some(2), "c", Some(9), 1, 1),
            ]
        );
    }

    #[test]
    fn sampled_counts_go_to_the_top_and_the_credited_frame_in_every_tree() {
        let mut map = CallContextMap::new();
        // A prologue sample: b just called from a, the method sample
        // credits a (self_at 1).
        let f = frames(&[(B, 7), (A, 3), (MAIN, 0)], true);
        map.insert(StackSample {
            frames: &f,
            complete: true,
            call: true,
            self_at: Some(1),
        });
        // A backedge sample in a: self only.
        let f = frames(&[(A, 3), (MAIN, 0)], true);
        map.insert(StackSample {
            frames: &f,
            complete: true,
            call: false,
            self_at: Some(0),
        });
        map.count_thread(MAIN);
        let got: Vec<_> = map
            .to_cct_nodes(name)
            .iter()
            .map(|n| (n.method.clone(), n.calls, n.self_))
            .collect();
        assert_eq!(
            got,
            vec![
                ("<root>".to_string(), 0, 0),
                ("main".to_string(), 1, 0),
                ("a".to_string(), 0, 2),
                ("b".to_string(), 1, 0),
            ]
        );
        // In main's tree too: main->a credited twice, main->a->b one call.
        let main_a =
            Context::RootCall(map.call_site(map.find_call_site(MAIN, 3).unwrap()).callees[0]);
        assert_eq!(map.sampled_self_in(main_a), 2);
        let b = map.callee_contexts(main_a)[0];
        assert_eq!((map.sampled_calls_in(b), map.sampled_self_in(b)), (1, 0));
        // The paper's counters are untouched by the thread count.
        assert_eq!(map.method(MAIN).unwrap().executions, 2);
    }

    #[test]
    fn a_sequence_limit_keeps_long_sequences_out_of_method_trees_only() {
        // main -3-> a -7-> b -9-> c, limit 2 calls per sequence.
        let spec = [(C, 9), (B, 7), (A, 3), (MAIN, 0)];
        let mut limited = CallContextMap::with_sequence_limit(2);
        let mut whole = CallContextMap::new();
        insert(&mut limited, &spec, true);
        insert(&mut whole, &spec, true);
        // The thread root's tree is whole in both: the same CCT.
        assert_eq!(limited.to_cct_nodes(name), whole.to_cct_nodes(name));
        // main's tree (three calls: main->a->b->c) lost its third call;
        // a's (two calls) kept everything.
        let main_a = Context::RootCall(
            limited
                .call_site(limited.find_call_site(MAIN, 3).unwrap())
                .callees[0],
        );
        let down = limited.callee_contexts(main_a);
        assert!(down.is_empty(), "main's sequence stops at its first call");
        let a_b = Context::RootCall(
            limited
                .call_site(limited.find_call_site(A, 7).unwrap())
                .callees[0],
        );
        assert_eq!(limited.callee_contexts(a_b).len(), 1);
        // The general counters are the same.
        for m in [MAIN, A, B, C] {
            assert_eq!(
                limited.method(m).unwrap().executions,
                whole.method(m).unwrap().executions
            );
        }
        assert!(limited.node_counts().callee_refs < whole.node_counts().callee_refs);
    }

    #[test]
    fn a_missing_line_under_a_caller_is_no_line() {
        let mut map = CallContextMap::new();
        let f = [
            SampledFrame {
                method: B,
                call_line: None,
            },
            SampledFrame {
                method: A,
                call_line: None,
            },
        ];
        map.insert(StackSample {
            frames: &f,
            complete: true,
            call: false,
            self_at: None,
        });
        assert!(map.find_call_site(A, NO_LINE).is_some());
        assert_eq!(map.node_counts().callees, 2);
    }

    /// A small deterministic generator (no dependency on `rand` streams).
    struct Lcg(u64);
    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    #[test]
    fn to_cct_equals_the_tree_of_the_complete_walks() {
        let mut rng = Lcg(7);
        let mut map = CallContextMap::new();
        let mut expected = CallingContextTree::new();
        for _ in 0..300 {
            let depth = 1 + rng.below(8) as usize;
            // Outermost first: an entry (main or f), then calls.
            let mut outer_first: Vec<(u32, u32)> =
                vec![(if rng.below(4) == 0 { 4 } else { MAIN }, 0)];
            for _ in 1..depth {
                outer_first.push((rng.below(5) as u32, 1 + rng.below(3) as u32));
            }
            let complete = rng.below(3) != 0;
            let spec: Vec<(u32, u32)> = outer_first.iter().rev().copied().collect();
            insert(&mut map, &spec, complete);
            if complete {
                let mut node = CallingContextTree::ROOT;
                for (k, &(m, line)) in outer_first.iter().enumerate() {
                    let line = if k == 0 { NO_LINE } else { line };
                    node = expected.child(node, m, line);
                }
                // The sampled call and self go to the top context only.
                expected.node_mut(node).calls += 1;
                expected.node_mut(node).self_ += 1;
            }
        }
        let got = map.to_cct_nodes(name);
        assert_eq!(got, expected.to_flat(name));
        assert!(got.len() > 50, "the walks made a real tree: {}", got.len());
        // Parents before children, as a profile file requires.
        let profile = profile::Profile {
            format: profile::FORMAT.into(),
            program: "p.bc".into(),
            config: Default::default(),
            run: Default::default(),
            methods: None,
            dcg: None,
            cct: Some(got.clone()),
            hot: None,
        };
        let back = profile::Profile::from_json(&profile.to_json()).unwrap();
        assert_eq!(back.cct.unwrap(), got);
        check_links(&map);
    }

    #[test]
    fn a_5000_frame_stack_needs_no_recursion() {
        // On a 256 KiB stack, so that anything recursing once per frame
        // would overflow it.
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(deep_stack)
            .unwrap()
            .join()
            .unwrap();
    }

    fn deep_stack() {
        const F: u32 = 4;
        const DEPTH: usize = 5000;
        // main calls f at 2; f calls itself at 5; 4999 frames of f.
        let mut spec = vec![(F, 5); DEPTH - 2];
        spec.push((F, 2));
        spec.push((MAIN, 0));
        let mut map = CallContextMap::new();
        insert(&mut map, &spec, true);
        insert(&mut map, &spec, true);
        let fs = (DEPTH - 1) as u64;
        assert_eq!(map.method(F).unwrap().executions, 2 * fs);
        let f5 = map.find_call_site(F, 5).unwrap();
        assert_eq!(map.callee_distribution(f5), vec![(F, 2 * (fs - 1))]);
        // Trees: <root> (4999 nested f's under main), main (4998 nested
        // under main->f), f (4997 nested under f->f).
        let counts = map.node_counts();
        assert_eq!(counts.callees, 3);
        assert_eq!(counts.callee_refs, 4999 + 4998 + 4997);
        assert_eq!(counts.call_site_refs, counts.callee_refs);
        // In f's tree the k-th call of the chain is seen from 4998 - k + 1
        // roots per sample.
        let mut context = Context::RootCall(map.call_site(f5).callees[0]);
        let mut k = 1;
        loop {
            assert_eq!(map.calls_in(context), 2 * (fs - 1 - k + 1), "call {k}");
            match map.callee_contexts(context).as_slice() {
                [] => break,
                [next] => context = *next,
                more => panic!("a chain, not {} children", more.len()),
            }
            k += 1;
        }
        assert_eq!(k, fs - 1);
        assert_eq!(map.on_top_in(context), 2);
        // The deepest whole context, spelled out without recursion.
        let deepest = *map
            .contexts_of(F)
            .iter()
            .max_by_key(|&&c| map.context_path(c).calls.len())
            .unwrap();
        let p = map.context_path(deepest);
        assert_eq!(p.root, ROOT_METHOD);
        assert_eq!(p.calls.len(), DEPTH);
        let flat = map.to_cct_nodes(name);
        assert_eq!(flat.len(), DEPTH + 1);
        assert!(flat.iter().skip(1).take(DEPTH - 1).all(|n| n.calls == 0));
        assert_eq!(flat[DEPTH].calls, 2);
        assert_eq!(flat[DEPTH].parent, Some(DEPTH as u64 - 1));
        assert_eq!(flat[DEPTH].self_, 2);
        assert_eq!(flat[DEPTH - 1].self_, 0);
    }
}
