//! Test-only views of a Call Context Map: its nodes, their counters and
//! their paths, which the unit tests read to check what
//! [`CallContextMap::insert`] built.

use profile::CctNode;

use super::map::CallContextMap;
use super::nodes::{
    CallSite, CallSiteId, CallSiteRef, CallSiteRefId, Callee, CalleeId, CalleeRef, CalleeRefId,
    Context, MethodProfile,
};
use super::ROOT_METHOD;

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

impl CallContextMap {
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

    /// Times the call was seen in `context`.
    pub fn calls_in(&self, context: Context) -> u64 {
        match context {
            Context::RootCall(c) => self.callees[c.0 as usize].calls,
            Context::Nested(r) => self.callee_refs[r.0 as usize].calls,
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

    /// [`Self::to_cct`] as the flat `cct` list of a profile file, each
    /// parent before its children; `name_of` names methods.
    pub fn to_cct_nodes(&self, name_of: impl Fn(u32) -> String) -> Vec<CctNode> {
        self.to_cct().to_flat(name_of)
    }
}
