//! Collapsed stacks, the input of flame-graph tools: one line per calling
//! context with weight, `main;A;B 42`, the methods from the thread's entry
//! method down to the context and its `self` weight (samples, or
//! instructions for an exhaustive profile), depth first, children in the
//! order of the profile's list.
//!
//! Streamed ([`Streamer`]): a context's stack is its parent's stack and
//! its own method, so when the list is depth first (as the profiler
//! writes it: each context right after its parent or after the subtree of
//! an earlier sibling), each line is written as its context comes, with
//! nothing held but the current path; `vm report -o FILE` feeds it the
//! contexts as they are read from the file
//! ([`crate::Profile::read_streaming_each`]), so that neither the list nor
//! a tree is built. The format promises only that each parent comes
//! before its children: a list in another order is written through the
//! indexed tree ([`Full::write_folded`]), in the same order, so the output
//! does not depend on which way it was made.

use std::io::{self, BufWriter, Write};

use super::tree::Full;
use crate::CctNode;

/// The output is written in blocks of this many bytes (the exact tree of
/// `programs/bench/fib.bc` gives 692 MB of lines).
const BLOCK: usize = 1 << 20;

/// Writes the collapsed stacks of `cct` (a profile's list, each parent
/// before its children, the root first) to `w`.
pub fn write(cct: &[CctNode], w: &mut dyn Write) -> io::Result<()> {
    if depth_first(cct) {
        let mut s = Streamer::new(w);
        for n in cct {
            s.push(n);
        }
        s.finish()
    } else {
        let mut w = BufWriter::with_capacity(BLOCK, w);
        Full::new(cct).write_folded(&mut w)?;
        w.flush()
    }
}

/// Whether `cct` lists its contexts depth first: every context's parent is
/// the one before it or one of that one's ancestors. Then the list's order
/// is the order of a depth-first walk that takes children in list order.
fn depth_first(cct: &[CctNode]) -> bool {
    let Some((root, rest)) = cct.split_first() else {
        return true;
    };
    if root.parent.is_some() {
        return false;
    }
    let mut path = vec![root.id];
    for n in rest {
        let Some(parent) = n.parent else {
            return false;
        };
        loop {
            match path.last() {
                Some(&top) if top == parent => break,
                Some(_) => {
                    path.pop();
                }
                None => return false,
            }
        }
        path.push(n.id);
    }
    true
}

/// Writes the lines of contexts handed to it one at a time in the order
/// of a depth-first list, the root first, through a buffer of [`BLOCK`]
/// bytes. Holds the path from the root to the last context: a stack of
/// (context id, length of its stack's text).
pub struct Streamer<'w> {
    out: BufWriter<&'w mut dyn Write>,
    stack: Vec<(u64, usize)>,
    path: Vec<u8>,
    failed: Option<io::Error>,
    /// A context came whose parent is not on the path.
    out_of_order: bool,
    /// Paths deeper than this are not written ([`Streamer::max_depth`]).
    max_depth: usize,
    /// A context came deeper than `max_depth`.
    too_deep: bool,
}

impl<'w> Streamer<'w> {
    /// A streamer writing to `w`. Not generic: its code is compiled here,
    /// optimized, whatever the caller's build.
    pub fn new(w: &'w mut dyn Write) -> Streamer<'w> {
        Streamer {
            out: BufWriter::with_capacity(BLOCK, w),
            stack: Vec::new(),
            path: Vec::new(),
            failed: None,
            out_of_order: false,
            max_depth: usize::MAX,
            too_deep: false,
        }
    }

    /// Gives up (as for a list out of order) at a context more than
    /// `depth` levels below the root: its caller then collapses the
    /// recursion of the whole tree first ([`super::recursion`]).
    pub fn max_depth(mut self, depth: usize) -> Streamer<'w> {
        self.max_depth = depth;
        self
    }

    /// Writes `n`'s line, if it has weight. False (and nothing more is
    /// written) once writing failed or a context came out of depth-first
    /// order (see [`Streamer::finish`]).
    pub fn push(&mut self, n: &CctNode) -> bool {
        if self.failed.is_some() || self.out_of_order || self.too_deep {
            return false;
        }
        let Some(parent) = n.parent else {
            // The root: its own weight is no context's.
            self.out_of_order = !self.stack.is_empty();
            self.stack.push((n.id, 0));
            return !self.out_of_order;
        };
        while self.stack.last().is_some_and(|&(id, _)| id != parent) {
            self.stack.pop();
        }
        let Some(&(_, len)) = self.stack.last() else {
            self.out_of_order = true;
            return false;
        };
        // The stack holds the root and the path down to the parent.
        if self.stack.len() > self.max_depth {
            self.too_deep = true;
            return false;
        }
        self.path.truncate(len);
        if len > 0 {
            self.path.push(b';');
        }
        self.path.extend_from_slice(n.method.as_bytes());
        if n.self_ > 0 {
            if let Err(e) = line(&mut self.out, &self.path, n.self_) {
                self.failed = Some(e);
                return false;
            }
        }
        self.stack.push((n.id, self.path.len()));
        true
    }

    /// Flushes the lines. An error if writing failed, or (kind
    /// `InvalidData`) if a context came out of depth-first order: the
    /// lines written are then not the whole, and not in the tree's order.
    pub fn finish(mut self) -> io::Result<()> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        if self.out_of_order {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the contexts are not listed depth first",
            ));
        }
        if self.too_deep {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "the tree is deeper than the streamer's limit",
            ));
        }
        self.out.flush()
    }
}

/// One line, `stack weight`, without formatting machinery or allocation.
pub(super) fn line(w: &mut (impl Write + ?Sized), stack: &[u8], weight: u64) -> io::Result<()> {
    let mut digits = [0u8; 22];
    let mut at = digits.len() - 1;
    digits[at] = b'\n';
    let mut v = weight;
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    at -= 1;
    digits[at] = b' ';
    w.write_all(stack)?;
    w.write_all(&digits[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: u64, parent: Option<u64>, method: &str, self_: u64) -> CctNode {
        CctNode {
            id,
            parent,
            method: method.into(),
            line: parent.map(|_| 3),
            calls: 1,
            self_,
            cycles: None,
        }
    }

    /// What the streamed path and the tree's walk write of `cct`.
    fn both(cct: &[CctNode]) -> (String, String) {
        let mut streamed = Vec::new();
        write(cct, &mut streamed).unwrap();
        let mut walked = Vec::new();
        Full::new(cct).write_folded(&mut walked).unwrap();
        (
            String::from_utf8(streamed).unwrap(),
            String::from_utf8(walked).unwrap(),
        )
    }

    #[test]
    fn a_depth_first_list_is_written_in_its_order() {
        let cct = vec![
            node(0, None, "<root>", 5),
            node(1, Some(0), "main", 10),
            node(2, Some(1), "A", 880),
            node(3, Some(2), "B", 100),
            node(4, Some(1), "C", 0),
            node(5, Some(4), "D", u64::MAX),
            node(6, Some(0), "worker", 7),
            node(7, Some(6), "", 1),
            node(8, Some(7), "E", 2),
        ];
        assert!(depth_first(&cct));
        let (streamed, walked) = both(&cct);
        assert_eq!(
            streamed,
            format!(
                "main 10\nmain;A 880\nmain;A;B 100\nmain;C;D {}\nworker 7\nworker; 1\nworker;;E 2\n",
                u64::MAX
            )
        );
        assert_eq!(streamed, walked);
    }

    #[test]
    fn other_orders_are_written_as_the_tree_walks_them() {
        // Breadth first: C's child D comes after B, A's child.
        let cct = vec![
            node(10, None, "<root>", 0),
            node(11, Some(10), "main", 1),
            node(12, Some(11), "A", 2),
            node(14, Some(11), "C", 3),
            node(13, Some(12), "B", 4),
            node(15, Some(14), "D", 5),
        ];
        assert!(!depth_first(&cct));
        let (streamed, walked) = both(&cct);
        assert_eq!(
            streamed,
            "main 1\nmain;A 2\nmain;A;B 4\nmain;C 3\nmain;C;D 5\n"
        );
        assert_eq!(streamed, walked);
        // A parent that is not listed, a second root: the tree's choices.
        for cct in [
            vec![node(0, None, "<root>", 0), node(1, Some(7), "main", 1)],
            vec![node(0, None, "<root>", 0), node(1, None, "main", 1)],
        ] {
            assert!(!depth_first(&cct));
            let (streamed, walked) = both(&cct);
            assert_eq!(streamed, walked);
        }
        assert_eq!(both(&[]), (String::new(), String::new()));
    }

    #[test]
    fn a_streamer_refuses_contexts_out_of_depth_first_order() {
        let mut out = Vec::new();
        let mut s = Streamer::new(&mut out);
        assert!(s.push(&node(0, None, "<root>", 0)));
        assert!(s.push(&node(1, Some(0), "main", 1)));
        assert!(s.push(&node(2, Some(1), "A", 2)));
        assert!(s.push(&node(3, Some(2), "B", 3)));
        assert!(s.push(&node(4, Some(1), "C", 4)), "back up to main");
        assert!(!s.push(&node(5, Some(3), "D", 5)), "B's subtree was left");
        assert!(!s.push(&node(6, Some(4), "E", 6)), "and nothing more");
        let e = s.finish().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        let mut out = Vec::new();
        let mut s = Streamer::new(&mut out);
        assert!(s.push(&node(0, None, "<root>", 0)));
        assert!(!s.push(&node(1, None, "<root>", 0)), "a second root");
        assert!(s.finish().is_err());
    }

    #[test]
    fn a_streamer_says_when_writing_failed() {
        struct DiskFull;
        impl Write for DiskFull {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::other("disk full"))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut disk = DiskFull;
        let mut s = Streamer::new(&mut disk);
        assert!(s.push(&node(0, None, "<root>", 0)));
        assert!(s.push(&node(1, Some(0), "main", 1)));
        assert_eq!(s.finish().unwrap_err().to_string(), "disk full");
    }
}
