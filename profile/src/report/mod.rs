//! Reports of profiles (`vm report`, `vm run --report`): one module per
//! format, all working on a [`Profile`] read back from its file, so that
//! nothing here needs the VM.
//!
//! - [`text`]: the readable summary `vm run --report` prints, and with a
//!   reference the accuracy metrics and the edges and contexts the sample
//!   over- and under-weights most.
//! - [`folded`]: collapsed stacks (`main;A;B 42`), streamed.
//! - [`flamegraph`]: an SVG flame graph (the `inferno` crate), plain or
//!   differential ([`diffscale`]: the differential's colour scale and
//!   legend).
//! - [`speedscope`]: a file for the speedscope viewer, one profile per
//!   input.
//! - [`dot`]: Graphviz DOT of the call graph or of the context tree.
//! - [`html`]: one self-contained page with all of the above that a
//!   browser shows offline.
//! - [`recursion`]: recursion collapsed, so that a tree 100,000 levels
//!   deep makes a report of bounded size.
//!
//! The formats that draw the context tree ([`flamegraph`], [`speedscope`],
//! `dot --tree`, [`html`]) draw it pruned ([`tree::Pruned`]): contexts
//! under `--min-percent` of the total are folded into one `(other)` box
//! per parent, so an exact tree of millions of contexts stays small.

pub mod diffscale;
pub mod dot;
pub mod flamegraph;
pub mod folded;
pub mod html;
pub mod recursion;
pub mod speedscope;
pub mod text;
pub mod tree;

pub use text::{no_samples_hint, summary, TOP};

use crate::Profile;

/// The default of `--min-percent`: contexts under 0.1% of the total are
/// folded into `(other)`.
pub const DEFAULT_MIN_PERCENT: f64 = 0.1;

/// The `--record` values that give a profile a calling-context tree, for
/// the message of a format that needs one; `None` when `p` has one.
pub fn missing_contexts(p: &Profile) -> Option<&'static str> {
    if p.cct.is_some() {
        return None;
    }
    Some(if p.config.profile == "exhaustive" {
        "--record=cct"
    } else {
        "--record=cct, pcct, acct or ccmap"
    })
}

/// The file name of a program path, to tell whether two profiles are of
/// one program (`programs/examples/fib.bc` and `fib.bc` are).
pub fn program_name(p: &Profile) -> &str {
    let path = p.program.as_str();
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The sum of `weights` in 128 bits, which counts of 64 bits cannot
/// overflow (two of 2^63 would wrap a `u64` sum into a share of 1e20%).
pub fn total(weights: impl IntoIterator<Item = u64>) -> u128 {
    weights.into_iter().map(u128::from).sum()
}

/// `part` as a percentage of `total` (0 when the total is 0).
pub fn share(part: u64, total: u128) -> f64 {
    if total == 0 {
        0.0
    } else {
        100.0 * part as f64 / total as f64
    }
}
