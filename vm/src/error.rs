//! Runtime errors and stack traces.
//!
//! A runtime error (docs/LANGUAGE.md "Runtime errors") is not catchable: it stops the
//! whole program with status 70 after printing `runtime error: MESSAGE` and
//! a trace, innermost frame first, one `  at METHOD (FILE:LINE)` per frame.
//! Very deep traces keep their first and last frames and say how many they
//! left out in between.

use std::fmt;

/// Why the program must stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuntimeError {
    /// `div` or `rem` by zero.
    DivisionByZero,
    /// `null` where an object or array was needed.
    NullReference {
        /// The instruction.
        op: &'static str,
    },
    /// Array index outside `[0, len)`.
    IndexOutOfBounds {
        /// The index.
        index: i64,
        /// The array's length.
        len: usize,
    },
    /// `newarray` with a negative length.
    NegativeArrayLength(i64),
    /// `newarray` too long to allocate.
    ArrayTooLarge(i64),
    /// `getfield`/`putfield` on an object of another class.
    WrongClass {
        /// The instruction (`getfield Point.x`).
        op: String,
        /// The object's class.
        found: String,
    },
    /// `callvirt` on an object whose class has no such method.
    NoSuchMethod {
        /// The selector.
        method: String,
        /// The receiver's class.
        class: String,
    },
    /// A value of the wrong kind.
    WrongKind {
        /// The instruction.
        op: &'static str,
        /// What it needs.
        expected: &'static str,
        /// What it got.
        found: &'static str,
    },
    /// Deeper than `--max-frames`.
    StackOverflow {
        /// The limit.
        limit: usize,
    },
    /// An object or array passed across threads.
    CrossThread {
        /// How it happened.
        what: &'static str,
        /// The value as it prints.
        value: String,
    },
    /// `join` on something that is not a thread id.
    NoSuchThread(i64),
    /// `join` that would wait forever.
    Deadlock(String),
    /// The run's memory budget (`--max-heap`) is spent: `limit` bytes.
    OutOfMemory {
        /// The limit in bytes.
        limit: usize,
    },
    /// The run's memory budget is spent, and the profile's own records
    /// (the exhaustive calling context tree, its shadow stack) hold
    /// `profile` bytes of it.
    ProfileOutOfMemory {
        /// The limit in bytes.
        limit: usize,
        /// Bytes the profile's records hold.
        profile: usize,
    },
    /// The operating system refused memory before `--max-heap` was
    /// reached (`ulimit -v`, overcommit turned off).
    SystemOutOfMemory {
        /// The size of the allocation refused.
        bytes: usize,
        /// The `--max-heap` limit, in bytes.
        limit: usize,
    },
    /// `spawn` could not start a thread.
    CannotStartThread {
        /// The id the thread would have had.
        id: u32,
        /// Why: the `--max-threads` limit, or the OS refusing.
        why: ThreadRefusal,
    },
}

/// Why `spawn` could not start a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadRefusal {
    /// This many threads were running already (`--max-threads`).
    Limit(usize),
    /// The operating system refused a new thread.
    Os,
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RuntimeError::*;
        match self {
            DivisionByZero => write!(f, "division by zero"),
            NullReference { op } => write!(f, "null reference in `{op}`"),
            IndexOutOfBounds { index, len } => {
                write!(f, "array index {index} out of bounds for length {len}")
            }
            NegativeArrayLength(n) => write!(f, "negative array length {n}"),
            ArrayTooLarge(n) => write!(f, "array length {n} is too large"),
            WrongClass { op, found } => {
                write!(f, "wrong class for `{op}`: the object is a {found}")
            }
            NoSuchMethod { method, class } => write!(f, "class {class} has no method `{method}`"),
            WrongKind {
                op,
                expected,
                found,
            } => write!(f, "`{op}` expects {expected}, got {found}"),
            StackOverflow { limit } => write!(f, "stack overflow (more than {limit} frames)"),
            CrossThread { what, value } => {
                write!(f, "{what} {value}: objects and arrays cannot cross threads")
            }
            NoSuchThread(id) => write!(f, "`join` on {id}, which is not a thread id"),
            Deadlock(s) => write!(f, "deadlock: {s}"),
            OutOfMemory { limit } => write!(
                f,
                "out of memory: heap limit {} reached (--max-heap)",
                crate::memory::format_size(*limit as u64)
            ),
            ProfileOutOfMemory { limit, profile } => write!(
                f,
                "out of memory: heap limit {} reached (--max-heap), {} of it held by the \
                 profile's calling context tree",
                crate::memory::format_size(*limit as u64),
                crate::memory::format_size(*profile as u64)
            ),
            SystemOutOfMemory { bytes, limit } => write!(
                f,
                "out of memory: the system refused {} before the heap limit {} was reached \
                 (raise `ulimit -v` or lower --max-heap)",
                crate::memory::format_size(*bytes as u64),
                crate::memory::format_size(*limit as u64)
            ),
            CannotStartThread {
                id,
                why: ThreadRefusal::Limit(n),
            } => write!(
                f,
                "cannot start thread {id}: {n} threads are running (--max-threads)"
            ),
            CannotStartThread {
                id,
                why: ThreadRefusal::Os,
            } => write!(f, "cannot start thread {id}: the OS refused"),
        }
    }
}

impl std::error::Error for RuntimeError {}

/// One line of a stack trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEntry {
    /// `fib`, `Shape.area`.
    pub method: String,
    /// Source line.
    pub line: u32,
}

/// Frames kept at the top of an elided trace.
pub const TRACE_HEAD: usize = 40;
/// Frames kept at the bottom of an elided trace.
pub const TRACE_TAIL: usize = 10;

/// A stack trace, innermost frame first, as it will print: the first
/// [`TRACE_HEAD`] and the last `TRACE_TAIL + 1` entries pushed, and how
/// many fell in between. Bounded whatever the depth, so that the trace of
/// a million-frame recursion that ran out of memory costs no memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    head: Vec<TraceEntry>,
    tail: std::collections::VecDeque<TraceEntry>,
    between: usize,
}

impl Trace {
    /// Adds the next frame out.
    pub fn push(&mut self, e: TraceEntry) {
        if self.head.len() < TRACE_HEAD {
            self.head.push(e);
            return;
        }
        self.tail.push_back(e);
        if self.tail.len() > TRACE_TAIL + 1 {
            self.tail.pop_front();
            self.between += 1;
        }
    }

    /// Counts the next frame out as one the trace leaves out, without
    /// making its entry: for a caller that knows the depth and skips the
    /// frames [`Trace::push`] would drop (past the first [`TRACE_HEAD`],
    /// before the last `TRACE_TAIL + 1`).
    pub fn skip(&mut self) {
        debug_assert!(self.head.len() == TRACE_HEAD && self.tail.is_empty());
        self.between += 1;
    }

    /// Would [`Trace::push`] keep the `k`-th frame (0: the innermost) of
    /// a stack of `n`?
    pub fn keeps(k: usize, n: usize) -> bool {
        k < TRACE_HEAD || k + TRACE_TAIL + 1 >= n
    }

    /// Frames pushed.
    pub fn len(&self) -> usize {
        self.head.len() + self.between + self.tail.len()
    }

    /// No frame pushed?
    pub fn is_empty(&self) -> bool {
        self.head.is_empty()
    }
}

/// Formats a trace (innermost first) as `  at METHOD (FILE:LINE)` lines,
/// eliding the middle of very deep ones.
pub fn format_trace(file: &str, trace: &Trace) -> String {
    let mut out = String::new();
    let line = |out: &mut String, e: &TraceEntry| {
        out.push_str(&format!("  at {} ({}:{})\n", e.method, file, e.line));
    };
    trace.head.iter().for_each(|e| line(&mut out, e));
    if trace.between == 0 {
        trace.tail.iter().for_each(|e| line(&mut out, e));
    } else {
        let left_out = trace.between + 1;
        out.push_str(&format!("  ... {left_out} frames omitted ...\n"));
        trace.tail.iter().skip(1).for_each(|e| line(&mut out, e));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_traces_are_elided() {
        let trace = |n: u32| {
            let mut t = Trace::default();
            (0..n).for_each(|i| {
                t.push(TraceEntry {
                    method: "f".into(),
                    line: i,
                })
            });
            t
        };
        let t = trace(1000);
        assert_eq!(t.len(), 1000);
        let s = format_trace("p.bc", &t);
        assert_eq!(s.lines().count(), TRACE_HEAD + TRACE_TAIL + 1);
        assert!(s.contains("... 950 frames omitted ..."));
        assert!(s.starts_with("  at f (p.bc:0)\n"));
        assert!(s.ends_with("  at f (p.bc:999)\n"));
        let lines = |n: u32| format_trace("p.bc", &trace(n)).lines().count();
        // Up to head + tail + 1 frames, all print; one more elides two.
        assert_eq!(lines(51), 51);
        assert_eq!(lines(52), TRACE_HEAD + TRACE_TAIL + 1);
        assert!(format_trace("p.bc", &trace(52)).contains("... 2 frames omitted ..."));
        assert_eq!(lines(3), 3);
    }
}
