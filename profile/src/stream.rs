//! The fast reader of `cct` (the `fast` module) over a stream: a profile
//! file read in blocks, so that the text of a big profile (946 MB of JSON
//! for the exact CCT of `programs/bench/fib.bc`) never sits in memory as a
//! whole, and neither its copy nor its page faults are paid.
//!
//! [`parse`] reads the keys before `cct` byte by byte, keeping their text;
//! parses the nodes of `cct` from a window of the stream that holds at
//! least [`WINDOW`] bytes (or the rest of the file), one node at a time,
//! with the fast module's parser; then keeps the rest of the file. The
//! kept text, `cct` replaced by `null`, goes to serde, as in the fast
//! module. It gives up on what the fast module gives up on, and on a node
//! longer than the window: the caller then reads the file again with the
//! general parser, which reads it or says what is wrong. So, as there,
//! streaming changes no result and no message.
//!
//! [`each`] reads the same way but hands each node to its caller as it is
//! read, keeping none: a report that needs only one pass over the
//! contexts (`crate::report::folded`) then holds no list of millions.

use std::io::{self, Read};

use crate::fast::{Cursor, Seen};
use crate::{CctNode, Profile};

/// Bytes asked of the reader at a time.
const BLOCK: usize = 1 << 20;

/// The fewest bytes a node is parsed from, unless the file ends first.
const WINDOW: usize = 64 << 10;

/// Why reading stopped: the fast reader gave up, or the reader failed.
enum Stop {
    GiveUp,
    Io(io::Error),
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Stop {
        Stop::Io(e)
    }
}

/// `Some(x)` as `Ok(x)`, `None` as giving up.
fn or_give_up<T>(o: Option<T>) -> Result<T, Stop> {
    o.ok_or(Stop::GiveUp)
}

/// The profile read from `r` to its end, `Ok(None)` when the fast path
/// gives up (or the file is not a good profile); `size` is the file's
/// length if known, to reserve the list of nodes once.
pub fn parse(r: impl Read, size: Option<u64>) -> io::Result<Option<Profile>> {
    parse_with(r, size, BLOCK, WINDOW)
}

/// [`parse`] with the block and window sizes given (the tests' small ones
/// make nodes cross blocks).
fn parse_with(
    r: impl Read,
    size: Option<u64>,
    block: usize,
    window: usize,
) -> io::Result<Option<Profile>> {
    // Room for every node at once (a written node takes more than 100
    // bytes), as in the fast module.
    let mut nodes = Vec::with_capacity(size.map_or(0, |s| s / 100) as usize);
    let p = each_with(r, block, window, |n| {
        nodes.push(n);
        true
    })?;
    Ok(p.map(|p| Profile {
        cct: Some(nodes),
        ..p
    }))
}

/// The profile read from `r` to its end as [`parse`] reads it, but each
/// node of `cct` handed to `each` as it is read and not kept: the
/// profile's `cct` is an empty list when the file has one. `Ok(None)`
/// when the fast path gives up, when `each` returns false, and when the
/// nodes' ids are not their positions or a parent's id is not smaller
/// than its child's (the order `crate::check_cct` accepts without a set
/// of ids; the profiler numbers nodes so).
pub fn each(r: impl Read, each: impl FnMut(CctNode) -> bool) -> io::Result<Option<Profile>> {
    let mut at = 0u64;
    let mut each = each;
    each_with(r, BLOCK, WINDOW, |n| {
        let placed = n.id == at && n.parent.map_or(at == 0, |p| p < at);
        at += 1;
        placed && each(n)
    })
}

/// [`each`] with the block and window sizes given, and no check of ids.
fn each_with(
    r: impl Read,
    block: usize,
    window: usize,
    each: impl FnMut(CctNode) -> bool,
) -> io::Result<Option<Profile>> {
    let mut s = Stream {
        r,
        buf: vec![0; block.max(window)],
        pos: 0,
        end: 0,
        eof: false,
        window,
    };
    match s.profile(each) {
        Ok(p) => Ok(Some(p)),
        Err(Stop::GiveUp) => Ok(None),
        Err(Stop::Io(e)) => Err(e),
    }
}

/// A reader and the bytes read from it not yet consumed,
/// `buf[pos..end]`.
struct Stream<R> {
    r: R,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    window: usize,
}

impl<R: Read> Stream<R> {
    /// Reads until at least `want` bytes are unconsumed or the file ends.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        if self.end - self.pos >= want || self.eof {
            return Ok(());
        }
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        while self.end < want && !self.eof {
            match self.r.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The next byte without consuming it; `None` at the end.
    fn peek(&mut self) -> Result<Option<u8>, Stop> {
        self.fill(1)?;
        Ok(self.buf[self.pos..self.end].first().copied())
    }

    /// The next byte, consumed and kept in `kept`; giving up at the end.
    fn keep(&mut self, kept: &mut Vec<u8>) -> Result<u8, Stop> {
        let c = or_give_up(self.peek()?)?;
        self.pos += 1;
        kept.push(c);
        Ok(c)
    }

    /// The whole profile: the keys before `cct` kept, the nodes parsed
    /// and handed to `each`, the rest kept; the kept text, with `null` for
    /// `cct`, parsed by serde. Its `cct` is an empty list.
    fn profile(&mut self, each: impl FnMut(CctNode) -> bool) -> Result<Profile, Stop> {
        let mut kept = Vec::new();
        self.head(&mut kept)?;
        self.nodes(each)?;
        kept.extend_from_slice(b"null");
        kept.extend_from_slice(&self.buf[self.pos..self.end]);
        self.pos = self.end;
        self.r.read_to_end(&mut kept)?;
        // As text: serde skips an unknown key's string without checking
        // its UTF-8, which the general reader refuses (found by
        // fuzz/fuzz_targets/profile_stream.rs).
        let text = or_give_up(std::str::from_utf8(&kept).ok())?;
        let mut p: Profile = or_give_up(serde_json::from_str(text).ok())?;
        if p.cct.is_some() {
            return Err(Stop::GiveUp); // two `cct` keys: serde's complaint
        }
        p.cct = Some(Vec::new());
        Ok(p)
    }

    /// The text up to the value of the top-level `cct` key, kept.
    fn head(&mut self, kept: &mut Vec<u8>) -> Result<(), Stop> {
        self.ws(kept)?;
        self.expect(b'{', kept)?;
        loop {
            self.ws(kept)?;
            let is_cct = self.key(kept)?;
            self.ws(kept)?;
            self.expect(b':', kept)?;
            self.ws(kept)?;
            if is_cct {
                return Ok(());
            }
            self.skip_value(kept)?;
            self.ws(kept)?;
            // `}` without a cct: nothing to gain.
            self.expect(b',', kept)?;
        }
    }

    /// Whitespace, kept.
    fn ws(&mut self, kept: &mut Vec<u8>) -> Result<(), Stop> {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek()? {
            self.keep(kept)?;
        }
        Ok(())
    }

    /// The byte `want`, kept; giving up on any other.
    fn expect(&mut self, want: u8, kept: &mut Vec<u8>) -> Result<(), Stop> {
        match self.keep(kept)? {
            c if c == want => Ok(()),
            _ => Err(Stop::GiveUp),
        }
    }

    /// A key without escapes, kept: whether it is `cct`.
    fn key(&mut self, kept: &mut Vec<u8>) -> Result<bool, Stop> {
        self.expect(b'"', kept)?;
        let start = kept.len();
        loop {
            match self.keep(kept)? {
                b'"' => return Ok(&kept[start..kept.len() - 1] == b"cct"),
                b'\\' => return Err(Stop::GiveUp),
                c if c < 0x20 => return Err(Stop::GiveUp),
                _ => {}
            }
        }
    }

    /// One JSON value, kept, as the fast module skips one: strings with
    /// their escapes, nested arrays and objects, and a scalar up to the
    /// next `,` or `}` (serde checks them all later).
    fn skip_value(&mut self, kept: &mut Vec<u8>) -> Result<(), Stop> {
        let mut depth = 0usize;
        loop {
            match self.keep(kept)? {
                b'"' => loop {
                    match self.keep(kept)? {
                        b'\\' => {
                            self.keep(kept)?;
                        }
                        b'"' => break,
                        _ => {}
                    }
                },
                b'[' | b'{' => depth += 1,
                b']' | b'}' => depth = or_give_up(depth.checked_sub(1))?,
                _ => {}
            }
            if depth == 0 {
                while !matches!(self.peek()?, None | Some(b',' | b'}')) {
                    self.keep(kept)?;
                }
                return Ok(());
            }
        }
    }

    /// The `cct` array, parsed a node at a time from a window of at least
    /// `self.window` bytes (or the rest of the file), each node handed to
    /// `each` (giving up when it returns false), the text not kept.
    fn nodes(&mut self, mut each: impl FnMut(CctNode) -> bool) -> Result<(), Stop> {
        self.fill(self.window)?;
        let mut c = Cursor::new(&self.buf[self.pos..self.end]);
        if c.next() != Some(b'[') {
            return Err(Stop::GiveUp);
        }
        c.ws();
        let empty = self.buf.get(self.pos + c.i) == Some(&b']');
        self.pos += c.i + usize::from(empty);
        if empty {
            return Ok(());
        }
        let mut seen = Seen::default();
        loop {
            self.fill(self.window)?;
            let mut c = Cursor::new(&self.buf[self.pos..self.end]);
            c.ws();
            let node = or_give_up(c.node(&mut seen))?;
            c.ws();
            let sep = c.next();
            self.pos += c.i;
            if !each(node) {
                return Err(Stop::GiveUp);
            }
            match sep {
                Some(b',') => {}
                Some(b']') => return Ok(()),
                _ => return Err(Stop::GiveUp),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands out at most `n` bytes a call.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(out.len()).min(self.0.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    fn profile_text(cct: &str) -> String {
        format!(
            r#"{{"format": "vm-profile/1", "program": "p.bc",
               "config": {{"profile": "exhaustive", "record": ["cct"]}},
               "run": {{"wall_ns": 5, "instructions": null, "samples": 2, "threads": 1}},
               "methods": [{{"name": "main", "self": 3, "calls": 1}}],
               "dcg": [],
               "cct": {cct},
               "hot": {{"nodes": [{{"id": 1, "self": 7}}], "edges": []}},
               "extra": {{"a": [1, "x\"]}}"]}}}}"#
        )
    }

    const CCT: &str = r#"[
        {"id": 0, "parent": null, "method": "<root>", "line": null, "calls": 0, "self": 0},
        {"self": 7, "calls": 1, "line": null, "method": "main", "parent": 0, "id": 1},
        {"id": 2, "parent": 1, "method": "f", "line": 12, "calls": 18446744073709551615, "self": 0},
        {"id": 3, "parent": 2, "method": "f", "line": 12, "calls": 4, "self": 9}
    ]"#;

    /// What every reader makes of `text`: serde's, the fast module's, and
    /// the streaming one's with big and with small blocks fed a byte at a
    /// time (nodes then cross blocks).
    fn readings(text: &[u8]) -> [Option<Profile>; 4] {
        [
            serde_json::from_slice(text).ok(),
            crate::fast::parse(text),
            parse(text, Some(text.len() as u64)).unwrap(),
            parse_with(Trickle(text, 1), None, 200, 128).unwrap(),
        ]
    }

    #[test]
    fn streaming_reads_what_serde_reads() {
        for cct in [CCT, "[]", " [ ] "] {
            let text = profile_text(cct);
            let [slow, fast, stream, small] = readings(text.as_bytes());
            assert!(slow.is_some(), "{cct}");
            assert_eq!(stream, slow, "{cct}");
            assert_eq!(small, slow, "{cct}");
            assert_eq!(fast, slow, "{cct}");
        }
        let text = profile_text(CCT);
        let p = parse(text.as_bytes(), None).unwrap().unwrap();
        assert_eq!(p.cct.unwrap().len(), 4);
    }

    #[test]
    fn each_hands_out_the_nodes_parse_lists() {
        let text = profile_text(CCT);
        let listed = parse(text.as_bytes(), None).unwrap().unwrap();
        let mut handed = Vec::new();
        let p = each(text.as_bytes(), |n| {
            handed.push(n);
            true
        })
        .unwrap()
        .unwrap();
        assert_eq!(Some(handed), listed.cct);
        assert_eq!(p.cct, Some(Vec::new()));
        assert_eq!(
            Profile { cct: None, ..p },
            Profile {
                cct: None,
                ..listed
            }
        );
        // The caller stops it; ids that are not positions stop it.
        let mut seen = 0;
        let stopped = each(text.as_bytes(), |_| {
            seen += 1;
            seen < 2
        });
        assert_eq!((stopped.unwrap(), seen), (None, 2));
        let renumbered = text.replace("\"id\": 2", "\"id\": 7");
        assert_eq!(each(renumbered.as_bytes(), |_| true).unwrap(), None);
        let backwards = text.replace("\"parent\": 1", "\"parent\": 3");
        assert_eq!(each(backwards.as_bytes(), |_| true).unwrap(), None);
        let two_roots = text.replace("\"parent\": 0", "\"parent\": null");
        assert_eq!(each(two_roots.as_bytes(), |_| true).unwrap(), None);
        assert!(each(profile_text("[]").as_bytes(), |_| true)
            .unwrap()
            .is_some());
    }

    #[test]
    fn a_node_longer_than_the_window_is_given_up() {
        let text = profile_text(CCT);
        assert_eq!(parse_with(text.as_bytes(), None, 64, 40).unwrap(), None);
        assert!(parse_with(text.as_bytes(), None, 64, 128)
            .unwrap()
            .is_some());
    }

    #[test]
    fn truncated_files_are_given_up() {
        let text = profile_text(CCT);
        let b = text.as_bytes();
        for n in 0..b.len() {
            let [slow, _, stream, small] = readings(&b[..n]);
            assert_eq!(stream, slow, "{n} bytes");
            assert_eq!(small, slow, "{n} bytes");
        }
    }

    #[test]
    fn malformed_files_are_given_up() {
        let good = profile_text(CCT);
        let variants = [
            good.replace("\"main\", \"parent\"", "\"m\\u0041\", \"parent\""),
            good.replace("\"self\": 9", "\"self\": -1"),
            good.replace("\"self\": 9", "\"self\": 9.5"),
            good.replace("\"self\": 9", "\"self\": 9, \"more\": 1"),
            good.replace("\"self\": 9", "\"self\": 9, \"self\": 1"),
            good.replace(
                "\"line\": 12, \"calls\": 4",
                "\"line\": 4294967296, \"calls\": 4",
            ),
            good.replace("\"calls\": 4,", "\"calls\": 4,,"),
            good.replace("\"self\": 9}", "\"self\": 9}}"),
            good.replace("\"dcg\": []", "\"dcg\": [}"),
            good.replace("\"dcg\": []", "\"dcg\": [], \"cct\": []"),
            good.replace("\"hot\"", "\"cct\": [], \"hot\""),
            good.replace("\"extra\"", "\"extra\": 1, \"extra2\""),
            good.replace("\"program\"", "\"pro\\\"gram\""),
            good.replace("\"format\"", "\"format\" :: "),
            good.replace("\"cct\": [", "\"cct\": null, \"x\": ["),
            good.clone() + " x",
            good.clone() + "\n\n",
            good.replace("vm-profile/1", "vm-profile/2"),
            good.replace(
                "\"f\", \"line\": 12, \"calls\": 4",
                "\"f\u{e9}\", \"line\": 12, \"calls\": 4",
            ),
        ];
        for text in &variants {
            let [slow, fast, stream, small] = readings(text.as_bytes());
            if fast.is_some() {
                // The fast paths read all that serde reads, or give up.
                assert_eq!(fast, slow, "{text}");
            }
            if stream.is_some() || small.is_some() {
                assert_eq!(stream, slow, "{text}");
                assert_eq!(small, slow, "{text}");
            }
        }
        // Bytes that are not UTF-8, in a method name and elsewhere.
        let mut bad = good.clone().into_bytes();
        let at = good.find("\"main\", \"parent\"").unwrap() + 1;
        bad[at] = 0xff;
        assert_eq!(parse(&bad[..], None).unwrap(), None);
        let mut bad = good.clone().into_bytes();
        bad[good.find("p.bc").unwrap() + 1] = 0xff;
        assert_eq!(parse(&bad[..], None).unwrap(), None);
        // In a key no field reads (serde skips its value unchecked).
        let unknown = good.replacen("{", "{\"zz\": \"ab\", ", 1);
        assert!(parse(unknown.as_bytes(), None).unwrap().is_some());
        let mut bad = unknown.clone().into_bytes();
        bad[unknown.find("ab").unwrap()] = 0xdf;
        assert_eq!(parse(&bad[..], None).unwrap(), None);
        assert_eq!(crate::fast::parse(&bad), None);
    }

    #[test]
    fn a_failing_reader_is_an_error() {
        struct Fails;
        impl Read for Fails {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let e = parse(Fails, None).unwrap_err();
        assert_eq!(e.to_string(), "disk on fire");
    }
}
