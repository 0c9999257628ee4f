//! `vm report PROFILE --format=folded`, streamed to `-o FILE` or to a
//! stdout that is a regular file: each context's line is written as the
//! context is read from the profile ([`profile::Profile::read_streaming_each`]
//! into [`profile::report::folded::Streamer`]), so that the exact tree of
//! a long run (7 million contexts for `programs/bench/fib.bc`) is never a
//! list or a tree in memory.
//!
//! Streaming changes no output, no message and no status: a profile the
//! streaming reader gives up on (one in an order other than the
//! profiler's, one not good) leaves the output as it was, and
//! [`super::report`] then reads the profile whole and writes the output,
//! or says what is wrong, as it does for every format.
//!
//! - `-o FILE`: the lines go to a file beside FILE that replaces it only
//!   when the whole profile was read and found good. Only a regular file
//!   (or a new one) is written this way; a device or a symbolic link is
//!   left to the general path.
//! - stdout (`> out.folded`, `>> out.folded`): the lines go straight into
//!   the file at its end (where `>>` appends, or where `>` left the
//!   offset), and when the profile turns out bad the file is cut back to
//!   its earlier length and the offset put back, before the general path
//!   runs. Only a regular file opened for writing whose offset is its end
//!   (or that appends) is written this way: one opened at another offset
//!   (`1<> FILE`) would lose the bytes the lines overwrote.
//! - A pipe or a terminal is left to the general path, which reads the
//!   whole profile before it prints a line: bytes sent down a pipe cannot
//!   be taken back, so streaming there would print part of a bad
//!   profile's stacks, and spooling them to a file first would put the
//!   whole output (692 MB for `fib.bc`) on a disk the user did not name.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use profile::report::folded::Streamer;
use profile::Profile;

use super::{limits, Failure, EXIT_NO_INPUT};

/// Writes the folded stacks of `profile` to `out`, streaming: `Ok(true)`
/// when done, `Ok(false)` when the general path must do it (nothing was
/// written then), an error when `out` could not be written.
/// `max_depth`: streaming gives up at a context deeper than this (the
/// general path then collapses the tree's recursion first).
pub fn stream_to_file(
    profile: &Path,
    out: &Path,
    max_source: u64,
    max_depth: usize,
) -> Result<bool, Failure> {
    let Ok((file, Some(_))) = limits::open_bounded(profile, max_source) else {
        return Ok(false);
    };
    let Some(partial) = partial_path(out) else {
        return Ok(false);
    };
    // Removed should a signal end the process first (`super::signals`).
    let _removal = super::signals::Removal::file(&partial);
    let Ok(mut w) = File::create(&partial) else {
        return Ok(false);
    };
    let done = stream(file, max_source, max_depth, &mut w).and_then(|whole| {
        if whole {
            std::fs::rename(&partial, out).map(|()| true)
        } else {
            Ok(false)
        }
    });
    if !matches!(done, Ok(true)) {
        let _ = std::fs::remove_file(&partial);
    }
    done.map_err(|e| cannot_write(&out.display().to_string(), e))
}

/// Writes the folded stacks of `profile` to stdout when it is a regular
/// file (see the module's doc), streaming: `Ok(true)` when done,
/// `Ok(false)` when the general path must do it (the file is then as it
/// was, its offset too), an error when what was written could not be
/// taken back.
pub fn stream_to_stdout(
    profile: &Path,
    max_source: u64,
    max_depth: usize,
) -> Result<bool, Failure> {
    let Ok((file, Some(_))) = limits::open_bounded(profile, max_source) else {
        return Ok(false);
    };
    let Some((out, start)) = stdout_file() else {
        return Ok(false);
    };
    // What could not be taken back ends the command as a failed write to
    // stdout ends every command (super::finish).
    Ok(
        stream_or_take_back(file, (max_source, max_depth), &out, start).unwrap_or_else(|e| {
            vm::stdio::note(vm::stdio::Stream::Stdout, &e);
            true
        }),
    )
}

/// Streams the folded stacks of the profile read from `file` into `out`,
/// whose lines start at offset `start` (its end), giving up at a context
/// deeper than `max_depth`: `Ok(true)` when done;
/// else `out` is cut back to `start`, its offset put there, and
/// `Ok(false)`. A write that failed is taken back too: the general path
/// then meets the same fault and says so as it always did. An error only
/// when taking back failed.
fn stream_or_take_back(
    file: File,
    (max_source, max_depth): (u64, usize),
    out: &File,
    start: u64,
) -> io::Result<bool> {
    if let Ok(true) = stream(file, max_source, max_depth, &mut &*out) {
        return Ok(true);
    }
    out.set_len(start)?;
    let mut out = out;
    out.seek(SeekFrom::Start(start))?;
    Ok(false)
}

/// Streams the folded stacks of the profile read from `file` (at most
/// `max_source` bytes) into `w`: `Ok(true)` when the whole profile was
/// read, found good and written; `Ok(false)` when the streaming reader
/// gave up (or met a context deeper than `max_depth`); an error when
/// writing failed.
fn stream(file: File, max_source: u64, max_depth: usize, w: &mut dyn Write) -> io::Result<bool> {
    let mut bounded = file.take(max_source.saturating_add(1));
    let mut lines = Streamer::new(w).max_depth(max_depth);
    let read = Profile::read_streaming_each(&mut bounded, &mut |n| lines.push(&n));
    let whole = matches!(read, Ok(Some(_))) && bounded.limit() > 0;
    match lines.finish() {
        Ok(()) => Ok(whole),
        Err(e) if e.kind() == io::ErrorKind::InvalidData => Ok(false),
        Err(e) => Err(e),
    }
}

/// The general path's message when `what` cannot be written.
fn cannot_write(what: &str, e: io::Error) -> Failure {
    Failure {
        status: EXIT_NO_INPUT,
        message: format!("vm: cannot write `{what}`: {e}"),
    }
}

/// A second handle on stdout and the offset the lines start at, when
/// stdout is a regular file opened for writing whose offset is its end or
/// that appends (`O_APPEND`: writes go to the end, whatever the offset).
#[cfg(unix)]
fn stdout_file() -> Option<(File, u64)> {
    use std::os::fd::{AsFd, AsRawFd};
    let file = File::from(io::stdout().as_fd().try_clone_to_owned().ok()?);
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    // SAFETY: F_GETFL only reads the flags of `file`'s descriptor, which
    // is open for as long as `file` lives; no memory is passed.
    let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 || flags & libc::O_ACCMODE == libc::O_RDONLY {
        return None;
    }
    let end = meta.len();
    if flags & libc::O_APPEND != 0 {
        return Some((file, end));
    }
    let at = (&file).stream_position().ok()?;
    (at == end).then_some((file, end))
}

/// Elsewhere stdout is left to the general path.
#[cfg(not(unix))]
fn stdout_file() -> Option<(File, u64)> {
    None
}

/// The file the lines are written to before they replace `out`: hidden,
/// beside it, named for this process. `None` when `out` is not a regular
/// file this process may write, or a new one.
fn partial_path(out: &Path) -> Option<PathBuf> {
    match std::fs::symlink_metadata(out) {
        // One this process may not write is left to the general path's
        // message.
        Ok(m) if !m.is_file() || std::fs::OpenOptions::new().write(true).open(out).is_err() => {
            return None
        }
        Err(e) if e.kind() != io::ErrorKind::NotFound => return None,
        _ => {}
    }
    let name = out.file_name()?.to_str()?;
    Some(out.with_file_name(format!(".{name}.{}.partial", std::process::id())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile with a calling-context tree listed as the profiler lists
    /// it, its `cct` being `cct`.
    fn profile_text(format: &str, cct: &str) -> String {
        format!(
            r#"{{"format": "{format}", "program": "p.bc",
               "config": {{"profile": "exhaustive", "record": ["cct"]}},
               "run": {{"wall_ns": 5, "instructions": null, "samples": 2, "threads": 1}},
               "methods": [{{"name": "main", "self": 3, "calls": 1}}],
               "dcg": [],
               "cct": {cct},
               "hot": {{"nodes": [], "edges": []}}}}"#
        )
    }

    const CCT: &str = r#"[
        {"id": 0, "parent": null, "method": "<root>", "line": null, "calls": 0, "self": 0},
        {"id": 1, "parent": 0, "method": "main", "line": null, "calls": 1, "self": 7},
        {"id": 2, "parent": 1, "method": "f", "line": 12, "calls": 2, "self": 0},
        {"id": 3, "parent": 2, "method": "f", "line": 12, "calls": 4, "self": 9},
        {"id": 4, "parent": 1, "method": "g", "line": 13, "calls": 1, "self": 5}
    ]"#;

    /// A scratch file of this process named for `name`, holding `text`.
    fn scratch(name: &str, text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("vm-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path
    }

    /// What streaming `profile` into a file holding `earlier` (its offset
    /// at the end) returns, the file's text after it, and its offset.
    fn stream_after(name: &str, profile: &str, earlier: &str) -> (bool, String, u64) {
        let source = scratch(&format!("{name}.json"), profile);
        let target = scratch(&format!("{name}.folded"), earlier);
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .unwrap();
        let start = out.seek(SeekFrom::End(0)).unwrap();
        let file = File::open(&source).unwrap();
        let done = stream_or_take_back(file, (u64::MAX, usize::MAX), &out, start).unwrap();
        let at = out.stream_position().unwrap();
        let text = std::fs::read_to_string(&target).unwrap();
        let _ = std::fs::remove_file(source);
        let _ = std::fs::remove_file(target);
        (done, text, at)
    }

    #[test]
    fn a_good_profile_is_streamed_after_what_was_there() {
        let (done, text, at) = stream_after("good", &profile_text("vm-profile/1", CCT), "old\n");
        assert!(done);
        assert_eq!(text, "old\nmain 7\nmain;f;f 9\nmain;g 5\n");
        assert_eq!(at, text.len() as u64);
    }

    #[test]
    fn what_a_bad_profile_streamed_is_taken_back() {
        // Found bad after all its lines were written: the format tag is
        // checked when the whole file was read.
        let (done, text, at) = stream_after("newer", &profile_text("vm-profile/9", CCT), "old\n");
        assert_eq!((done, text.as_str(), at), (false, "old\n", 4));
        // A good profile given up among its contexts, after some lines
        // were written: the second f is main's child, and g, listed after
        // it, the first f's (the general path writes it through the tree).
        let jumbled = CCT
            .replace(r#""id": 3, "parent": 2"#, r#""id": 3, "parent": 1"#)
            .replace(
                r#""parent": 1, "method": "g""#,
                r#""parent": 2, "method": "g""#,
            );
        assert_ne!(jumbled, CCT);
        let (done, text, at) = stream_after("order", &profile_text("vm-profile/1", &jumbled), "");
        assert_eq!((done, text.as_str(), at), (false, "", 0));
        // Cut short.
        let whole = profile_text("vm-profile/1", CCT);
        let (done, text, at) = stream_after("short", &whole[..whole.len() - 60], "x");
        assert_eq!((done, text.as_str(), at), (false, "x", 1));
    }
}
