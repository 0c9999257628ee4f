//! A fast reader for the one big section of a profile file, `cct`: the
//! exact calling-context tree of a long run has millions of contexts (946
//! MB of JSON for `programs/bench/fib.bc`), and serde_json's general
//! parser spends most of a report's time on them.
//!
//! [`parse`] finds the top-level `cct` key, reads its array with a parser
//! that knows only the shape the profiler writes (objects with the six
//! keys of [`CctNode`], in any order, unsigned integers, `null`, strings
//! without escapes), and hands the rest of the file, `cct` replaced by
//! `null`, to serde. Anything else (an escape, a number that is not a
//! small unsigned integer, an unknown or repeated key, a syntax error)
//! makes it give up: the caller then parses the whole text with serde,
//! which reads it or says what is wrong. So the fast path changes no
//! result and no message, only the time.

use crate::name::Interner;
use crate::{CctNode, Profile};

/// `text` parsed as a profile, `None` when the fast path gives up (or the
/// file is not a good profile: the caller's general parse says why).
pub fn parse(text: &[u8]) -> Option<Profile> {
    let mut c = Cursor { b: text, i: 0 };
    c.ws();
    c.eat(b'{')?;
    loop {
        c.ws();
        let key = c.string()?;
        c.ws();
        c.eat(b':')?;
        c.ws();
        if key == "cct" {
            let start = c.i;
            let nodes = c.nodes()?;
            let end = c.i;
            let mut rest = Vec::with_capacity(text.len() - (end - start) + 4);
            rest.extend_from_slice(&text[..start]);
            rest.extend_from_slice(b"null");
            rest.extend_from_slice(&text[end..]);
            let mut p: Profile = serde_json::from_slice(&rest).ok()?;
            if p.cct.is_some() {
                return None;
            }
            p.cct = Some(nodes);
            return Some(p);
        }
        c.skip_value()?;
        c.ws();
        match c.next()? {
            b',' => {}
            _ => return None, // `}` without a cct: nothing to gain
        }
    }
}

/// A position in bytes being parsed (the whole file here; a window of
/// it in the streaming reader, `crate::stream`).
pub(crate) struct Cursor<'a> {
    b: &'a [u8],
    /// Bytes consumed.
    pub(crate) i: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `b`.
    pub(crate) fn new(b: &'a [u8]) -> Cursor<'a> {
        Cursor { b, i: 0 }
    }

    /// Skips JSON whitespace.
    #[inline]
    pub(crate) fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if !matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                break;
            }
            self.i += 1;
        }
    }

    /// The next byte, consumed.
    #[inline]
    pub(crate) fn next(&mut self) -> Option<u8> {
        let c = *self.b.get(self.i)?;
        self.i += 1;
        Some(c)
    }

    #[inline]
    fn eat(&mut self, want: u8) -> Option<()> {
        (self.next()? == want).then_some(())
    }

    /// A string without escapes or control characters, valid UTF-8.
    #[inline]
    fn string(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.raw_string()?).ok()
    }

    /// The bytes of a string without escapes or control characters, in
    /// one pass, not yet checked to be UTF-8 (a key is only compared).
    #[inline]
    fn raw_string(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let rest = &self.b[self.i..];
        let len = rest
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        if rest[len] != b'"' {
            return None;
        }
        self.i += len + 1;
        Some(&rest[..len])
    }

    /// An unsigned integer that fits in 64 bits (no sign, fraction or
    /// exponent, no leading zero).
    #[inline]
    fn uint(&mut self) -> Option<u64> {
        let start = self.i;
        let mut v: u64 = 0;
        while let Some(&c) = self.b.get(self.i) {
            if !c.is_ascii_digit() {
                break;
            }
            v = v.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
            self.i += 1;
        }
        let len = self.i - start;
        if len == 0 || (len > 1 && self.b[start] == b'0') {
            return None;
        }
        match self.b.get(self.i) {
            Some(b'.' | b'e' | b'E') => None,
            _ => Some(v),
        }
    }

    #[inline]
    fn null_or_uint(&mut self) -> Option<Option<u64>> {
        if self.b[self.i..].starts_with(b"null") {
            self.i += 4;
            Some(None)
        } else {
            self.uint().map(Some)
        }
    }

    /// The `cct` array.
    fn nodes(&mut self) -> Option<Vec<CctNode>> {
        self.eat(b'[')?;
        // Room for every node at once, estimated from the bytes left (a
        // written node takes more than 100): growing by doubling copied
        // the list over and over, and pages reserved but never touched
        // cost neither time nor memory.
        let mut out = Vec::with_capacity((self.b.len() - self.i) / 100);
        self.ws();
        if self.b.get(self.i) == Some(&b']') {
            self.i += 1;
            return Some(out);
        }
        // Contexts share a few method names: one copy of each.
        let mut names = Interner::default();
        loop {
            self.ws();
            out.push(self.node(&mut names)?);
            self.ws();
            match self.next()? {
                b',' => {}
                b']' => return Some(out),
                _ => return None,
            }
        }
    }

    /// One node of `cct`, `None` if it is not of the profiler's shape (or
    /// the bytes end first). Its method name comes from `names`, shared
    /// with the other nodes that name it.
    pub(crate) fn node(&mut self, names: &mut Interner) -> Option<CctNode> {
        self.eat(b'{')?;
        let (mut id, mut parent, mut method, mut line, mut calls, mut self_) =
            (None, None, None, None, None, None);
        loop {
            self.ws();
            let key = self.raw_string()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            let fresh = match key {
                b"id" => id.replace(self.uint()?).is_none(),
                b"parent" => parent.replace(self.null_or_uint()?).is_none(),
                b"method" => {
                    // Checked to be UTF-8 only when first seen.
                    let m = names.intern(self.raw_string()?)?;
                    method.replace(m).is_none()
                }
                b"line" => {
                    let l = match self.null_or_uint()? {
                        Some(l) => Some(u32::try_from(l).ok()?),
                        None => None,
                    };
                    line.replace(l).is_none()
                }
                b"calls" => calls.replace(self.uint()?).is_none(),
                b"self" => self_.replace(self.uint()?).is_none(),
                _ => false,
            };
            if !fresh {
                return None;
            }
            self.ws();
            match self.next()? {
                b',' => {}
                b'}' => break,
                _ => return None,
            }
        }
        Some(CctNode {
            id: id?,
            parent: parent?,
            method: method?,
            line: line?,
            calls: calls?,
            self_: self_?,
        })
    }

    /// Skips one JSON value of the (small) rest of the file: strings,
    /// with their escapes, and nested arrays and objects.
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.next()? {
                b'"' => loop {
                    match self.next()? {
                        b'\\' => {
                            self.next()?;
                        }
                        b'"' => break,
                        _ => {}
                    }
                },
                b'[' | b'{' => depth += 1,
                b']' | b'}' => depth = depth.checked_sub(1)?,
                _ => {}
            }
            if depth == 0 {
                // A scalar runs to the next `,` or `}` of the object.
                while let Some(&c) = self.b.get(self.i) {
                    if matches!(c, b',' | b'}') {
                        break;
                    }
                    self.i += 1;
                }
                return Some(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile_text(cct: &str) -> String {
        format!(
            r#"{{"format": "vm-profile/1", "program": "p.bc",
               "config": {{"profile": "exhaustive", "record": ["cct"]}},
               "run": {{"wall_ns": 5, "instructions": null, "samples": 2, "threads": 1}},
               "methods": [{{"name": "main", "self": 3, "calls": 1}}],
               "dcg": [],
               "cct": {cct},
               "extra": {{"a": [1, "x\"]"]}}}}"#
        )
    }

    #[test]
    fn the_fast_path_reads_what_serde_reads() {
        let cct = r#"[
            {"id": 0, "parent": null, "method": "<root>", "line": null, "calls": 0, "self": 0},
            {"self": 7, "calls": 1, "line": null, "method": "main", "parent": 0, "id": 1},
            {"id": 2, "parent": 1, "method": "f", "line": 12, "calls": 18446744073709551615, "self": 0}
        ]"#;
        let text = profile_text(cct);
        let fast = parse(text.as_bytes()).expect("the fast path reads it");
        let slow: Profile = serde_json::from_str(&text).unwrap();
        assert_eq!(fast, slow);
        assert_eq!(fast.cct.as_ref().unwrap().len(), 3);
        let empty = profile_text("[]");
        assert_eq!(parse(empty.as_bytes()), serde_json::from_str(&empty).ok());
    }

    #[test]
    fn the_fast_path_gives_up_on_what_it_does_not_know() {
        let node = |fields: &str| profile_text(&format!("[{{{fields}}}]"));
        let good = r#""id": 0, "parent": null, "method": "m", "line": null, "calls": 0, "self": 0"#;
        assert!(parse(node(good).as_bytes()).is_some());
        for bad in [
            good.replace("\"m\"", "\"m\\u0041\""),       // an escape
            good.replace("\"self\": 0", "\"self\": -1"), // a sign
            good.replace("\"self\": 0", "\"self\": 1.5"),
            good.replace("\"self\": 0", "\"self\": 1e3"),
            good.replace("\"self\": 0", "\"self\": 01"),
            good.replace("\"self\": 0", "\"self\": 0, \"more\": 1"), // unknown key
            good.replace("\"self\": 0", "\"self\": 0, \"self\": 1"), // repeated key
            good.replace(", \"self\": 0", ""),                       // missing key
            good.replace("\"line\": null", "\"line\": 4294967296"),  // not a u32
            good.replace("\"self\": 0", "\"self\": 99999999999999999999"),
        ] {
            assert_eq!(parse(node(&bad).as_bytes()), None, "{bad}");
        }
        assert_eq!(parse(b"[1, 2]"), None);
        assert_eq!(parse(b"{\"format\": \"vm-profile/1\"}"), None);
        assert_eq!(parse(profile_text("[").as_bytes()), None);
        // Two cct keys: serde's complaint, not the fast path's choice.
        let twice = profile_text("[]").replace("\"extra\"", "\"cct\": [], \"extra\"");
        assert_eq!(parse(twice.as_bytes()), None);
    }
}
