//! The CC-Map's output: the thread root's tree as the calling context tree
//! of docs/LANGUAGE.md "Profiles", and the context accessors it walks with
//! (section 3.1.3: moving up and down a call sequence).

use super::map::CallContextMap;
use super::nodes::{CalleeId, Context};
use crate::records::cct::CallingContextTree;

impl CallContextMap {
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

    /// The callee contexts of `context` (down the sequence), grouped by
    /// call site in the order first seen.
    pub fn callee_contexts(&self, context: Context) -> Vec<Context> {
        self.sites_in_context(context)
            .iter()
            .flat_map(|sr| self.call_site_refs[sr.0 as usize].callee_refs.iter())
            .map(|&r| Context::Nested(r))
            .collect()
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

    /// The thread root's tree as a calling context tree: one node per
    /// context seen in a complete walk (or counted as a thread's entry),
    /// `calls` its edge samples with it on top ([`Self::sampled_calls_in`],
    /// the calls sampled *into* the context, as `--record=cct` counts
    /// them, so that `--profile=counter --every=1` gives the exhaustive
    /// tree's exact calls), `self` its method samples
    /// ([`Self::sampled_self_in`]). The paper's own counters (a context's
    /// `calls`: samples with the context anywhere on the stack, an
    /// inclusive count) stay in the map's nodes, unwritten. The
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
}
