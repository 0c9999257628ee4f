//! Program output: `print` lines on stdout, never interleaved.
//!
//! All threads write through one [`Output`]: a line is written whole under
//! its lock. Output is buffered (flushed per line when stdout is a terminal)
//! and flushed when the program ends, when any thread ends, and, while the
//! program runs, every [`FLUSH_PERIOD`] by the thread that waits for the
//! program to end ([`crate::runtime::Vm::run`]): a line printed by `main`
//! while another thread runs on reaches a pipe or file within a few
//! milliseconds, so killing the process does not lose it. That costs
//! nothing per `print`, where line buffering would cost a `write` system
//! call per line. Once the program is stopping (a
//! runtime error or `halt` somewhere) the output is closed: later `print`s
//! from other threads are dropped, so nothing appears after the end.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

/// How often buffered output is flushed while the program runs.
pub const FLUSH_PERIOD: Duration = Duration::from_millis(5);

struct OutState {
    out: Box<dyn Write + Send>,
    flush_each_line: bool,
    /// Lines written since the last flush.
    dirty: bool,
    closed: bool,
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
        Output::new(
            Box::new(std::io::BufWriter::with_capacity(
                64 * 1024,
                std::io::stdout(),
            )),
            tty,
        )
    }

    /// Output into a shared buffer (for tests and embedding).
    pub fn capture() -> (Output, Arc<Mutex<Vec<u8>>>) {
        let buf = Arc::new(Mutex::new(Vec::new()));
        (Output::new(Box::new(Shared(buf.clone())), false), buf)
    }

    fn new(out: Box<dyn Write + Send>, flush_each_line: bool) -> Output {
        Output {
            state: Mutex::new(OutState {
                out,
                flush_each_line,
                dirty: false,
                closed: false,
            }),
        }
    }

    /// Writes one line (a newline is appended). Write errors such as a
    /// closed pipe are ignored: the program's behaviour does not depend on
    /// who reads its output.
    pub fn line(&self, text: &str) {
        let mut s = self.state.lock();
        if s.closed {
            return;
        }
        let _ = s.out.write_all(text.as_bytes());
        let _ = s.out.write_all(b"\n");
        if s.flush_each_line {
            let _ = s.out.flush();
        } else {
            s.dirty = true;
        }
    }

    /// Flushes buffered output, if any line was written since the last
    /// flush.
    pub fn flush(&self) {
        let mut s = self.state.lock();
        if s.dirty {
            let _ = s.out.flush();
            s.dirty = false;
        }
    }

    /// Flushes and drops every later line.
    pub fn close(&self) {
        let mut s = self.state.lock();
        let _ = s.out.flush();
        s.dirty = false;
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
