//! Fuzz target `profile_stream`: arbitrary bytes through the streaming
//! profile reader that `vm report` and `vm compare` use
//! (`profile::Profile::read_streaming`, the `profile/src/stream.rs`
//! module), against the general reader `Profile::from_json`.
//!
//! The bytes are handed over by a reader that returns them in short,
//! uneven pieces (sizes taken from the input, so an input replays the same
//! way), so that the stream's refills happen in the middle of keys,
//! strings, numbers and nodes.
//!
//! The oracle, as the modules document ("streaming changes no result and
//! no message"):
//! - no panic;
//! - a profile the streaming reader accepts, the general reader accepts
//!   too, from the same bytes (which must then be UTF-8), and the two
//!   profiles are equal;
//! - its answer is the same whether the bytes come in pieces or at once;
//! - what `vm report` and `vm compare` read (`load_profile` in
//!   `src/cli/mod.rs`: streaming, and `Profile::from_bytes` when that
//!   gives up) is what `from_bytes` alone reads;
//! - `from_bytes` reads UTF-8 text as `from_json` does, and refuses bytes
//!   that are not UTF-8;
//! - `Profile::read` (streaming, then serde's reader, then the text: the
//!   library's reader of a file) reads UTF-8 text as `from_json` does.
//!
//! Where the readers may differ, by design: the streaming reader gives up
//! (`Ok(None)`) on what its fast path does not handle (escapes in a
//! `cct` string, a node longer than its window, keys it does not expect,
//! ...) even when the profile is good; the caller then reads the bytes
//! with the general reader. So "`from_json` accepts" does not imply
//! "streaming accepts": it implies that the whole chain accepts, with the
//! same result, which is asserted instead. And `Profile::read` of bytes
//! that are not UTF-8 is not checked: serde's reader, its second step,
//! skips the value of a key a profile does not have without looking at
//! its bytes, so a file with such bytes only there is read (found by this
//! target in its first minutes; `vm report` and `vm compare`, which read
//! through `from_bytes`, refuse it as "not UTF-8 text").
#![no_main]

use std::io::{self, Read};

use libfuzzer_sys::fuzz_target;
use profile::Profile;

/// A reader of `data` that returns at most a few bytes per call, the
/// counts cycling through `steps` (all at least 1).
struct Trickle<'a> {
    data: &'a [u8],
    steps: Vec<usize>,
    turn: usize,
}

impl<'a> Trickle<'a> {
    /// Pieces of 1 to 64 bytes, from the input's first and last bytes.
    fn new(data: &'a [u8]) -> Trickle<'a> {
        let a = data.first().copied().unwrap_or(1) as usize;
        let b = data.last().copied().unwrap_or(7) as usize;
        let steps = vec![1 + a % 64, 1 + b % 7, 1 + (a ^ b) % 13, 64];
        Trickle {
            data,
            steps,
            turn: 0,
        }
    }
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let step = self.steps[self.turn % self.steps.len()];
        self.turn += 1;
        let n = step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// What `Profile::read` does with a file of these bytes, without the file.
fn read_like_a_file(data: &[u8], streamed: Option<Profile>) -> Option<Profile> {
    if let Some(p) = streamed {
        return Some(p);
    }
    match Profile::from_reader(data) {
        Ok(p) => Some(p),
        Err(_) => std::str::from_utf8(data)
            .ok()
            .and_then(|t| Profile::from_json(t).ok()),
    }
}

fuzz_target!(|data: &[u8]| {
    let streamed = Profile::read_streaming(&mut Trickle::new(data), Some(data.len() as u64))
        .expect("reading from a slice cannot fail");
    let general = std::str::from_utf8(data)
        .ok()
        .and_then(|t| Profile::from_json(t).ok());
    if let Some(s) = &streamed {
        let Some(g) = &general else {
            panic!(
                "the streaming reader accepts what from_json refuses (UTF-8: {})",
                std::str::from_utf8(data).is_ok()
            );
        };
        assert_eq!(s, g, "the streaming reader reads another profile");
    }
    // Also whole, in one read: the same answer as in pieces.
    let whole = Profile::read_streaming(&mut &data[..], None).expect("reading from a slice cannot fail");
    assert_eq!(
        whole, streamed,
        "the streaming reader's answer depends on how the bytes arrive"
    );
    let bytes = Profile::from_bytes(data).ok();
    let cli = streamed.clone().or_else(|| bytes.clone());
    assert_eq!(
        cli, bytes,
        "vm report reads another profile with the streaming reader than without"
    );
    if std::str::from_utf8(data).is_ok() {
        assert_eq!(
            bytes, general,
            "from_bytes and from_json disagree on this text"
        );
        let read = read_like_a_file(data, streamed);
        assert_eq!(
            read, general,
            "Profile::read and from_json disagree on this text"
        );
    } else {
        assert!(
            bytes.is_none(),
            "from_bytes accepts bytes that are not UTF-8"
        );
    }
});
