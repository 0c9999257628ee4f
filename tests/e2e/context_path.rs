//! Calling contexts as the tests compare them: a path of `(method, line)`
//! from the root of a CCT (the root left out), the identity `vm compare`
//! uses (docs/LANGUAGE.md "Accuracy metrics").
//!
//! A path is interned: every path the tests meet gets a number, one per
//! `(parent path, method, line)`, in one table for the whole test run, so
//! that two contexts, of one tree or of two, are equal exactly when their
//! numbers are. Numbering a tree is then linear in its nodes however deep
//! it is, and comparing or sorting two paths is comparing two numbers.
//! Held as lists of strings instead, the exact CCT of `fib.bc` (about
//! 300,000 contexts, 25 deep) took seconds to number and sort per profile,
//! most of the context tests' time. (`vm compare` numbers paths the same
//! way, privately in `profile::metrics`, for one comparison at a time;
//! the tests need one numbering across many profiles, and the frames back
//! for their messages.)

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard, OnceLock};

use profile::CctNode;

/// One frame of a path: the method, and the line of the call in the
/// caller (`None` for the first frame).
pub(crate) type Frame = (String, Option<u32>);

/// A calling context: an interned path of frames from the root. Ordered
/// by the order paths were first seen, not by their frames.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ContextPath(u32);

/// A path's last step: its parent path, its method's number and the line.
type Step = (u32, u32, Option<u32>);

/// The one table of paths. Path 0 is the empty path (the root's).
#[derive(Default)]
struct Table {
    method_number: HashMap<String, u32>,
    method_name: Vec<String>,
    number: HashMap<Step, u32>,
    /// Path `n`'s last step `(parent, method, line)` and depth, at `n - 1`.
    step: Vec<(Step, u32)>,
}

fn table() -> MutexGuard<'static, Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    let t = TABLE.get_or_init(Mutex::default).lock();
    // A test that panicked holding the table left it whole: every insert
    // completes before the guard drops.
    t.unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Table {
    fn child(&mut self, parent: u32, method: &str, line: Option<u32>) -> u32 {
        let m = match self.method_number.get(method) {
            Some(&m) => m,
            None => {
                let m = self.method_name.len() as u32;
                self.method_number.insert(method.to_string(), m);
                self.method_name.push(method.to_string());
                m
            }
        };
        let next = self.step.len() as u32 + 1;
        let n = *self.number.entry((parent, m, line)).or_insert(next);
        if n == next {
            let depth = self.depth(parent) + 1;
            self.step.push(((parent, m, line), depth));
        }
        n
    }

    fn depth(&self, path: u32) -> u32 {
        match path {
            0 => 0,
            n => self.step[n as usize - 1].1,
        }
    }

    fn frames(&self, mut path: u32) -> Vec<Frame> {
        let mut out = Vec::with_capacity(self.depth(path) as usize);
        while path != 0 {
            let ((parent, m, line), _) = self.step[path as usize - 1];
            out.push((self.method_name[m as usize].clone(), line));
            path = parent;
        }
        out.reverse();
        out
    }
}

impl ContextPath {
    /// The root's path, with no frame.
    pub(crate) const ROOT: ContextPath = ContextPath(0);

    /// The path of these frames, from the root.
    pub(crate) fn of(frames: &[(&str, Option<u32>)]) -> ContextPath {
        let mut t = table();
        ContextPath(
            frames
                .iter()
                .fold(0, |parent, &(m, line)| t.child(parent, m, line)),
        )
    }

    /// The path of each node of a CCT listed parents first (as profiles
    /// list them), by index; the root's is [`ContextPath::ROOT`].
    pub(crate) fn of_nodes(nodes: &[CctNode]) -> Vec<ContextPath> {
        let position: HashMap<u64, usize> =
            nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
        let mut t = table();
        let mut out: Vec<u32> = Vec::with_capacity(nodes.len());
        for n in nodes {
            out.push(match n.parent {
                None => 0,
                Some(parent) => {
                    let parent = out[position[&parent]];
                    t.child(parent, &n.method, n.line)
                }
            });
        }
        out.into_iter().map(ContextPath).collect()
    }

    /// The frames, from the root.
    pub(crate) fn frames(self) -> Vec<Frame> {
        table().frames(self.0)
    }

    /// The number of frames.
    pub(crate) fn len(self) -> usize {
        table().depth(self.0) as usize
    }

    pub(crate) fn is_empty(self) -> bool {
        self == ContextPath::ROOT
    }
}

impl fmt::Debug for ContextPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.frames().fmt(f)
    }
}

#[test]
fn equal_frames_are_one_path_and_frames_come_back() {
    let a = ContextPath::of(&[("main", None), ("f", Some(3)), ("g", Some(7))]);
    let b = ContextPath::of(&[("main", None), ("f", Some(3)), ("g", Some(7))]);
    let c = ContextPath::of(&[("main", None), ("f", Some(4)), ("g", Some(7))]);
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(a.len(), 3);
    assert!(ContextPath::of(&[]).is_empty());
    assert_eq!(
        a.frames(),
        vec![
            ("main".to_string(), None),
            ("f".to_string(), Some(3)),
            ("g".to_string(), Some(7))
        ]
    );
    assert_eq!(
        format!("{c:?}"),
        r#"[("main", None), ("f", Some(4)), ("g", Some(7))]"#
    );
}
