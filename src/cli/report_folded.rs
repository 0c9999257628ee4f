//! `vm report PROFILE --format=folded -o FILE`, streamed: each context's
//! line is written as the context is read from the profile
//! ([`profile::Profile::read_streaming_each`] into
//! [`profile::report::folded::Streamer`]), so that the exact tree of a
//! long run (7 million contexts for `programs/bench/fib.bc`) is never a
//! list or a tree in memory.
//!
//! The lines go to a file beside FILE that replaces it only when the whole
//! profile was read and found good: a profile the streaming reader gives
//! up on (one in an order other than the profiler's, one not good) leaves
//! FILE as it was, and [`super::report`] then reads the profile whole and
//! writes FILE, or says what is wrong, as it does for every format. So
//! streaming changes no output, no message and no status. Only a regular
//! file (or a new one) is written this way; stdout, a device or a symbolic
//! link is left to the general path.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use profile::report::folded::Streamer;
use profile::Profile;

use super::{limits, Failure, EXIT_NO_INPUT};

/// Writes the folded stacks of `profile` to `out`, streaming: `Ok(true)`
/// when done, `Ok(false)` when the general path must do it (nothing was
/// written then), an error when `out` could not be written.
pub fn stream_to_file(profile: &Path, out: &Path, max_source: u64) -> Result<bool, Failure> {
    let Ok((file, Some(_))) = limits::open_bounded(profile, max_source) else {
        return Ok(false);
    };
    let Some(partial) = partial_path(out) else {
        return Ok(false);
    };
    let Ok(w) = File::create(&partial) else {
        return Ok(false);
    };
    let mut bounded = file.take(max_source.saturating_add(1));
    let mut lines = Streamer::new(w);
    let read = Profile::read_streaming_each(&mut bounded, |n| lines.push(&n));
    let whole = matches!(read, Ok(Some(_))) && bounded.limit() > 0;
    let done = match lines.finish() {
        Ok(()) if whole => std::fs::rename(&partial, out).map(|()| true),
        Ok(()) => Ok(false),
        Err(e) if e.kind() == io::ErrorKind::InvalidData => Ok(false),
        Err(e) => Err(e),
    };
    if !matches!(done, Ok(true)) {
        let _ = std::fs::remove_file(&partial);
    }
    done.map_err(|e| Failure {
        status: EXIT_NO_INPUT,
        message: format!("vm: cannot write `{}`: {e}", out.display()),
    })
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
