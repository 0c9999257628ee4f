//! Program output: `print` lines on stdout, never interleaved, never torn.
//!
//! All threads write through one [`Output`]: a line is added whole to its
//! buffer under its lock, and the buffer is written out only as whole
//! lines, so that however the process ends (a signal, `kill -9`) the last
//! line that reached a pipe or file is a whole one. Output is buffered
//! (written per line when stdout is a terminal) and written out when the
//! buffer is full, when the program ends, when any thread ends, and, while
//! the program runs, every [`FLUSH_PERIOD`] by the thread that waits for
//! the program to end ([`crate::runtime::Vm::run`]): a line printed by
//! `main` while another thread runs on reaches a pipe or file within a few
//! milliseconds, so killing the process does not lose it. That costs
//! nothing per `print`, where line buffering would cost a `write` system
//! call per line. Once the program is stopping (a runtime error or `halt`
//! somewhere) the output is closed: later `print`s from other threads are
//! dropped, so nothing appears after the end.
//!
//! A write to stdout that fails (its reader gone, a full disk) closes the
//! output too, and is noted in [`crate::stdio`], where the waiting thread
//! finds it and stops the program ([`crate::interrupt`]).

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

use crate::stdio::{self, Stream};

/// How often buffered output is flushed while the program runs.
pub const FLUSH_PERIOD: Duration = Duration::from_millis(5);

/// Bytes of whole lines held before they are written out.
const BUFFER: usize = 64 * 1024;

struct OutState {
    out: Box<dyn Write + Send>,
    /// Whole lines not yet written out.
    lines: Vec<u8>,
    flush_each_line: bool,
    closed: bool,
    /// `out` is the process's stdout, whose failures [`crate::stdio`]
    /// hears of.
    process: bool,
}

impl OutState {
    /// Writes out the lines held; on a failure, closes the output.
    fn write_out(&mut self) {
        if self.lines.is_empty() {
            return;
        }
        let written = self
            .out
            .write_all(&self.lines)
            .and_then(|()| self.out.flush());
        self.lines.clear();
        if let Err(e) = written {
            self.closed = true;
            if self.process {
                stdio::note(Stream::Stdout, &e);
            }
        }
    }
}

/// The program's stdout.
pub struct Output {
    state: Mutex<OutState>,
}

impl std::fmt::Debug for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Output")
    }
}

impl Output {
    /// The process's stdout (buffered; line-flushed on a terminal).
    pub fn stdout() -> Output {
        let tty = std::io::stdout().is_terminal();
        Output::new(Box::new(std::io::stdout()), tty, true)
    }

    /// Output into a shared buffer (for tests and embedding).
    pub fn capture() -> (Output, Arc<Mutex<Vec<u8>>>) {
        let buf = Arc::new(Mutex::new(Vec::new()));
        (
            Output::new(Box::new(Shared(buf.clone())), false, false),
            buf,
        )
    }

    fn new(out: Box<dyn Write + Send>, flush_each_line: bool, process: bool) -> Output {
        Output {
            state: Mutex::new(OutState {
                out,
                lines: Vec::with_capacity(BUFFER),
                flush_each_line,
                closed: false,
                process,
            }),
        }
    }

    /// Writes one line (a newline is appended). A write that fails closes
    /// the output (see the module's doc); the program's behaviour does not
    /// depend on it.
    pub fn line(&self, text: &str) {
        let mut s = self.state.lock();
        if s.closed {
            return;
        }
        if s.lines.len() + text.len() >= BUFFER {
            s.write_out();
        }
        s.lines.extend_from_slice(text.as_bytes());
        s.lines.push(b'\n');
        if s.flush_each_line || s.lines.len() >= BUFFER {
            s.write_out();
        }
    }

    /// Writes out buffered output, if any line was printed since the last
    /// flush.
    pub fn flush(&self) {
        self.state.lock().write_out();
    }

    /// Flushes and drops every later line.
    pub fn close(&self) {
        let mut s = self.state.lock();
        s.write_out();
        s.closed = true;
    }
}

struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that keeps each chunk it is handed, and fails once it
    /// has `room` bytes.
    struct Chunks {
        chunks: Arc<Mutex<Vec<Vec<u8>>>>,
        room: usize,
    }

    impl Write for Chunks {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let mut chunks = self.chunks.lock();
            let held: usize = chunks.iter().map(Vec::len).sum();
            if held + buf.len() > self.room {
                return Err(std::io::Error::other("full"));
            }
            chunks.push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn chunked(room: usize) -> (Output, Arc<Mutex<Vec<Vec<u8>>>>) {
        let chunks = Arc::new(Mutex::new(Vec::new()));
        let out = Chunks {
            chunks: chunks.clone(),
            room,
        };
        (Output::new(Box::new(out), false, false), chunks)
    }

    #[test]
    fn output_is_written_out_in_whole_lines() {
        let (o, chunks) = chunked(usize::MAX);
        for i in 0..5000 {
            // Short lines, and some longer than the buffer itself.
            let len = if i % 1000 == 999 { BUFFER + 17 } else { i % 97 };
            o.line(&"x".repeat(len));
            if i % 777 == 0 {
                o.flush();
            }
        }
        o.close();
        let chunks = chunks.lock();
        assert!(chunks.len() > 5, "{} chunks", chunks.len());
        for c in chunks.iter() {
            assert_eq!(c.last(), Some(&b'\n'), "a chunk ends inside a line");
        }
        let lines: usize = chunks
            .iter()
            .map(|c| c.iter().filter(|&&b| b == b'\n').count())
            .sum();
        assert_eq!(lines, 5000);
    }

    #[test]
    fn a_failed_write_closes_the_output() {
        let (o, chunks) = chunked(10);
        o.line("12345");
        o.flush();
        o.line("1234567890");
        o.flush();
        o.line("after");
        o.close();
        assert_eq!(*chunks.lock(), vec![b"12345\n".to_vec()]);
    }

    #[test]
    fn lines_then_close_drops_later_output() {
        let (o, buf) = Output::capture();
        o.line("a");
        o.line("b");
        o.close();
        o.line("c");
        assert_eq!(&*buf.lock(), b"a\nb\n");
    }
}
