//! The nodes of the Call Context Map (Chilingarova & Safonov 2006,
//! section 3.1.2, Figure 3): method profiles, call sites, callees, and the
//! reference nodes that spell out each calling context.

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
    /// The method ([`super::ROOT_METHOD`] for the virtual thread root).
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
    pub(super) fn new(method: u32) -> MethodProfile {
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
    /// The source line of the call ([`super::NO_LINE`] for the thread root's
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
