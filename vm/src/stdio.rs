//! The process's standard streams, written without panicking.
//!
//! Rust's `print!` and `eprint!` panic when a write fails: a pipe whose
//! reader went away (the Rust runtime ignores SIGPIPE, so the write gets
//! EPIPE), a full disk (`> /dev/full`). A panic in a VM thread that is
//! already unwinding aborts the process, and the program's buffered output
//! is lost with it. So everything the VM, the adaptive controller and the
//! command line write to stdout and stderr goes through here (or, for the
//! program's own `print`s, through [`crate::output::Output`], which notes
//! its failures here): a failed write is remembered, the first one of each
//! stream, and never panics.
//!
//! What a failure does is decided by those who read it: a running program
//! is stopped when stdout cannot be written, or stderr's reader is gone
//! ([`crate::interrupt::pending`]); the command line ends with the status
//! docs/CLI.md gives ("Signals and write errors").

use std::io::{self, Write};
use std::sync::OnceLock;

/// One of the two standard output streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output: the program's `print`s, the commands' results.
    Stdout,
    /// Standard error: diagnostics, runtime errors, reports.
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn name(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }
}

/// The first write to a stream that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteFailure {
    /// The stream.
    pub stream: Stream,
    /// The reader went away (EPIPE): not an error to report, the end of
    /// the output, as for any Unix tool.
    pub broken_pipe: bool,
    /// The system's error number, if it gave one.
    pub os_error: Option<i32>,
    kind: io::ErrorKind,
}

impl WriteFailure {
    /// Why the write failed, in the system's words: `No space left on
    /// device (os error 28)`.
    pub fn reason(&self) -> String {
        match self.os_error {
            Some(code) => io::Error::from_raw_os_error(code).to_string(),
            None => io::Error::from(self.kind).to_string(),
        }
    }
}

/// The first failure of stdout and of stderr.
static FAILED: [OnceLock<WriteFailure>; 2] = [OnceLock::new(), OnceLock::new()];

fn slot(stream: Stream) -> &'static OnceLock<WriteFailure> {
    &FAILED[stream as usize]
}

/// Notes that a write to `stream` failed with `e` (only the first failure
/// of each stream is kept).
pub fn note(stream: Stream, e: &io::Error) {
    let _ = slot(stream).set(WriteFailure {
        stream,
        broken_pipe: e.kind() == io::ErrorKind::BrokenPipe,
        os_error: e.raw_os_error(),
        kind: e.kind(),
    });
}

/// The first failed write to `stream`, if one failed.
pub fn failure(stream: Stream) -> Option<WriteFailure> {
    slot(stream).get().copied()
}

/// Writes `text` to stdout whole, under stdout's lock; a failure is
/// noted, never a panic. Stdout is line-buffered by Rust: a last line
/// without its newline waits for [`flush_stdout`].
pub fn print(text: &str) {
    if let Err(e) = io::stdout().lock().write_all(text.as_bytes()) {
        note(Stream::Stdout, &e);
    }
}

/// Writes `text` to stderr whole, under stderr's lock (so that lines of
/// two threads do not interleave); a failure is noted, never a panic.
pub fn eprint(text: &str) {
    if let Err(e) = io::stderr().lock().write_all(text.as_bytes()) {
        note(Stream::Stderr, &e);
    }
}

/// [`eprint()`] of `text` and a newline, in one write.
pub fn eprintln(text: &str) {
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    line.push('\n');
    eprint(&line);
}

/// Flushes what Rust's stdout holds; a failure is noted.
pub fn flush_stdout() {
    if let Err(e) = io::stdout().lock().flush() {
        note(Stream::Stdout, &e);
    }
}

/// Stderr, locked, for code that writes with `write!`: a failed write is
/// noted (and returned, as any writer's).
pub struct NotedStderr(io::StderrLock<'static>);

/// Locks stderr for [`NotedStderr`]'s writes.
pub fn stderr() -> NotedStderr {
    NotedStderr(io::stderr().lock())
}

impl Write for NotedStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).inspect_err(|e| note(Stream::Stderr, e))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().inspect_err(|e| note(Stream::Stderr, e))
    }
}
