//! Collapsed stacks, the input of flame-graph tools: one line per calling
//! context with weight, `main;A;B 42`, the methods from the thread's entry
//! method down to the context and its `self` weight (samples, or
//! instructions for an exhaustive profile). Written as the tree is walked,
//! so an exact tree of millions of contexts is never a string in memory.

use std::io::{self, Write};

use super::tree::Full;
use crate::CctNode;

/// Writes the collapsed stacks of `cct` to `w`.
pub fn write(cct: &[CctNode], w: &mut impl Write) -> io::Result<()> {
    Full::new(cct).write_folded(w)
}
