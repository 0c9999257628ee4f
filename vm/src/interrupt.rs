//! Stopping a run from outside the program: a signal the front end caught
//! ([`request`]: SIGINT, SIGTERM, SIGHUP), or an output stream that can no
//! longer be written ([`crate::stdio`]: stdout full or closed, stderr
//! closed).
//!
//! Nothing of this is in the interpreter. The thread that waits for the
//! program to end ([`crate::runtime::Vm::run`]) looks at [`pending`] each
//! time it flushes the program's output (every
//! [`crate::output::FLUSH_PERIOD`]) and stops the program as `halt` or a
//! runtime error does: the STOP request on every thread, which each serves
//! at its next yieldpoint, and a wake-up for threads blocked in `sleep` or
//! `join`; a thread that never reaches a yieldpoint (`--no-yieldpoints`) is
//! abandoned after the stop's grace period. The run's outcome then says
//! why it was cut short ([`crate::runtime::RunOutcome::interrupted`]).

use std::sync::atomic::{AtomicI32, Ordering};

use crate::stdio::{self, Stream, WriteFailure};

/// Exit status of a run whose output's reader went away: 128 + SIGPIPE,
/// what a shell reports for a tool killed by the signal.
pub const STATUS_BROKEN_PIPE: i32 = 128 + 13;

/// Exit status of a command whose output could not be written (sysexits'
/// `EX_IOERR`).
pub const STATUS_WRITE_ERROR: i32 = 74;

/// The first signal asked for, 0 for none.
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// Asks every program of this process, running or still to run, to stop
/// because of the signal `sig` (the first request wins). One atomic
/// store: a signal handler may call it.
pub fn request(sig: i32) {
    let _ = SIGNAL.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
}

/// The signal [`request`] was given, if any.
pub fn requested() -> Option<i32> {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Why a run was stopped from outside the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interruption {
    /// A signal, by number.
    Signal(i32),
    /// The reader of stdout or stderr went away (EPIPE).
    BrokenPipe(Stream),
    /// Stdout could not be written for another reason (a full disk).
    WriteError(WriteFailure),
}

impl Interruption {
    /// The exit status it ends the command with: 128 + the signal's
    /// number, [`STATUS_BROKEN_PIPE`], [`STATUS_WRITE_ERROR`].
    pub fn status(self) -> i32 {
        match self {
            Interruption::Signal(s) => 128 + s,
            Interruption::BrokenPipe(_) => STATUS_BROKEN_PIPE,
            Interruption::WriteError(_) => STATUS_WRITE_ERROR,
        }
    }

    /// What the profile's `run.interrupted` says: the signal's name
    /// (`SIGINT`), `broken pipe` or `write error`.
    pub fn cause(self) -> String {
        match self {
            Interruption::Signal(s) => signal_name(s),
            Interruption::BrokenPipe(_) => "broken pipe".into(),
            Interruption::WriteError(_) => "write error".into(),
        }
    }
}

/// Why a run should stop now, if it should: a signal [`request`]ed,
/// stdout that cannot be written, or stderr whose reader went away. (A
/// stderr that is full stops nothing: the program's output is still
/// written; the command ends with [`STATUS_WRITE_ERROR`].)
pub fn pending() -> Option<Interruption> {
    if let Some(s) = requested() {
        return Some(Interruption::Signal(s));
    }
    if let Some(f) = stdio::failure(Stream::Stdout) {
        return Some(if f.broken_pipe {
            Interruption::BrokenPipe(Stream::Stdout)
        } else {
            Interruption::WriteError(f)
        });
    }
    stdio::failure(Stream::Stderr)
        .filter(|f| f.broken_pipe)
        .map(|_| Interruption::BrokenPipe(Stream::Stderr))
}

/// The name of signal `sig`: `SIGINT`, `SIGTERM`, `SIGHUP` (the ones the
/// command line catches, numbered alike on every POSIX system), else
/// `signal N`.
pub fn signal_name(sig: i32) -> String {
    match sig {
        1 => "SIGHUP".into(),
        2 => "SIGINT".into(),
        13 => "SIGPIPE".into(),
        15 => "SIGTERM".into(),
        n => format!("signal {n}"),
    }
}
