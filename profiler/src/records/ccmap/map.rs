//! The Call Context Map itself and its filling (Chilingarova & Safonov
//! 2006, section 3.1.4; see [`super`] for the structure and the decisions
//! the paper leaves open).

use std::collections::HashMap;

use super::nodes::{
    CallSite, CallSiteId, CallSiteRef, CallSiteRefId, Callee, CalleeId, CalleeRef, CalleeRefId,
    Context, MethodProfile,
};
use super::{SampledFrame, NO_LINE, ROOT_METHOD};

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

/// The Call Context Map. Only the organizer thread writes it.
#[derive(Clone, Debug)]
pub struct CallContextMap {
    /// The MethodProfile table, indexed by method.
    pub(super) methods: Vec<Option<MethodProfile>>,
    /// The virtual thread root's profile.
    pub(super) thread_root: MethodProfile,
    pub(super) call_sites: Vec<CallSite>,
    /// (caller, line) to its call site.
    pub(super) call_site_index: HashMap<(u32, u32), CallSiteId>,
    pub(super) callees: Vec<Callee>,
    pub(super) call_site_refs: Vec<CallSiteRef>,
    pub(super) callee_refs: Vec<CalleeRef>,
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

    /// Folds one walked stack into the map (section 3.1.4's pseudocode;
    /// see the module documentation). An empty sample changes nothing.
    /// Returns the nodes it found or added: what the insert costs.
    pub fn insert(&mut self, sample: StackSample<'_>) -> u64 {
        let frames = sample.frames;
        if frames.is_empty() {
            return 0;
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
        // Nodes found or added: one per frame, then one per CalleeRef of
        // each sequence (the cost of an insert, see `vm::profiler_cost`).
        let mut steps = n as u64;
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
            steps += (i - 1) as u64;
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
        steps
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

    /// The call sites reached in `context`, each with its callee contexts.
    pub fn sites_in_context(&self, context: Context) -> &[CallSiteRefId] {
        match context {
            Context::RootCall(c) => &self.callees[c.0 as usize].sites_in_context,
            Context::Nested(r) => &self.callee_refs[r.0 as usize].sites_in_context,
        }
    }
}
