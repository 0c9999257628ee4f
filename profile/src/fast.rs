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
            // As text: serde skips an unknown key's string without
            // checking its UTF-8, which the general reader refuses.
            let rest = std::str::from_utf8(&rest).ok()?;
            let mut p: Profile = serde_json::from_str(rest).ok()?;
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

/// What a reader of nodes keeps from one node to the next: the names
/// handed out, and the text between the values of the last node read
/// in the profiler's order of keys (the profiler writes the same text
/// between them in every node, so it is compared, not parsed).
#[derive(Default)]
pub(crate) struct Seen {
    names: Interner,
    between: [Between; 7],
}

/// Up to [`Between::MAX`] bytes, compared with the start of a text a
/// word at a time, without a call or a loop; none at first (and when the
/// text to keep was longer), which nothing starts with.
#[derive(Default)]
struct Between {
    words: [u64; 4],
    /// All ones in the bytes of `words` that are kept, zero in the rest.
    mask: [u64; 4],
    len: usize,
}

impl Between {
    const MAX: usize = 32;

    /// `text`, kept if it is short enough.
    fn new(text: &[u8]) -> Between {
        let mut b = Between::default();
        if text.is_empty() || text.len() > Between::MAX {
            return b;
        }
        let (mut bytes, mut mask) = ([0u8; Between::MAX], [0u8; Between::MAX]);
        bytes[..text.len()].copy_from_slice(text);
        mask[..text.len()].fill(0xff);
        for k in 0..4 {
            b.words[k] = word(&bytes, k);
            b.mask[k] = word(&mask, k);
        }
        b.len = text.len();
        b
    }

    /// The length of the bytes kept if `text` starts with them.
    #[inline]
    fn starts(&self, text: &[u8]) -> Option<usize> {
        let text = text.first_chunk::<{ Between::MAX }>()?;
        let differ = (0..4).fold(0, |d, k| {
            d | ((word(text, k) ^ self.words[k]) & self.mask[k])
        });
        (differ == 0 && self.len > 0).then_some(self.len)
    }
}

/// The `k`th eight bytes of `b`.
#[inline]
fn word(b: &[u8; Between::MAX], k: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[8 * k..8 * k + 8]);
    u64::from_le_bytes(w)
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

    /// Skips JSON whitespace: spaces eight bytes at a time (a pretty
    /// printer's indentation), the other bytes one at a time.
    #[inline]
    pub(crate) fn ws(&mut self) {
        const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
        while let Some(chunk) = self.b[self.i..].first_chunk::<8>() {
            // The bytes that are not spaces, as nonzero bytes: the
            // lowest one is the first of them.
            let other = u64::from_le_bytes(*chunk) ^ SPACES;
            let spaces = (other.trailing_zeros() / 8) as usize;
            self.i += spaces;
            if spaces < 8 {
                if !matches!(chunk[spaces], b'\n' | b'\r' | b'\t') {
                    return;
                }
                self.i += 1;
            }
        }
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
    /// exponent, no leading zero). Up to seven digits followed by another
    /// byte are found and added up eight bytes at once ([`short_uint`]);
    /// longer numbers, and those at the end of the bytes, a digit at a
    /// time ([`long_uint`]).
    #[inline(always)]
    fn uint(&mut self) -> Option<u64> {
        let rest = &self.b[self.i..];
        let (v, len) = match rest.first_chunk::<8>().and_then(|c| short_uint(*c)) {
            Some(short) => short,
            None => long_uint(rest)?,
        };
        if len == 0 || (len > 1 && rest[0] == b'0') {
            return None;
        }
        match rest.get(len) {
            Some(b'.' | b'e' | b'E') => None,
            _ => {
                self.i += len;
                Some(v)
            }
        }
    }

    #[inline]
    fn null_or_uint(&mut self) -> Option<Option<u64>> {
        if self.b[self.i..].first_chunk::<4>() == Some(b"null") {
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
        let mut seen = Seen::default();
        loop {
            self.ws();
            out.push(self.node(&mut seen)?);
            self.ws();
            match self.next()? {
                b',' => {}
                b']' => return Some(out),
                _ => return None,
            }
        }
    }

    /// One node of `cct`, `None` if it is not of the profiler's shape (or
    /// the bytes end first). Its method name comes from `seen.names`,
    /// shared with the other nodes that name it.
    ///
    /// Tried first with its keys in the order the profiler writes them
    /// ([`Cursor::node_in_order`]); any other order is read from the
    /// start again.
    pub(crate) fn node(&mut self, seen: &mut Seen) -> Option<CctNode> {
        let start = self.i;
        if let Some(n) = self.node_in_order(seen) {
            return Some(n);
        }
        self.i = start;
        self.node_any_order(&mut seen.names)
    }

    /// A node whose keys come in the profiler's order: `id`, `parent`,
    /// `method`, `line`, `calls`, `self`; `None` otherwise. The text
    /// between two values (whitespace, a comma, the next key) is compared
    /// whole with that of the node before, and read only when it differs.
    #[inline]
    fn node_in_order(&mut self, seen: &mut Seen) -> Option<CctNode> {
        let [open, to_parent, to_method, to_line, to_calls, to_self, close] = &mut seen.between;
        self.between(open, |c| {
            c.eat(b'{')?;
            c.key(b"\"id\":")
        })?;
        let id = self.uint()?;
        self.between(to_parent, |c| c.next_key(b"\"parent\":"))?;
        let parent = self.null_or_uint()?;
        self.between(to_method, |c| c.next_key(b"\"method\":"))?;
        let method = seen.names.intern(self.raw_string()?)?;
        self.between(to_line, |c| c.next_key(b"\"line\":"))?;
        let line = match self.null_or_uint()? {
            Some(l) => Some(u32::try_from(l).ok()?),
            None => None,
        };
        self.between(to_calls, |c| c.next_key(b"\"calls\":"))?;
        let calls = self.uint()?;
        self.between(to_self, |c| c.next_key(b"\"self\":"))?;
        let self_ = self.uint()?;
        let cycles = self.trailing_cycles()?;
        self.between(close, |c| {
            c.ws();
            c.eat(b'}')
        })?;
        Some(CctNode {
            id,
            parent,
            method,
            line,
            calls,
            self_,
            cycles,
        })
    }

    /// The text between two values: the same bytes as `last` (what `read`
    /// accepted before), or else read by `read` and kept in `last`.
    #[inline]
    fn between(
        &mut self,
        last: &mut Between,
        read: impl FnOnce(&mut Self) -> Option<()>,
    ) -> Option<()> {
        if let Some(len) = last.starts(&self.b[self.i..]) {
            self.i += len;
            return Some(());
        }
        let start = self.i;
        read(self)?;
        *last = Between::new(&self.b[start..self.i]);
        Some(())
    }

    /// `key` (its quotes and colon) between whitespace.
    #[inline]
    fn key<const N: usize>(&mut self, key: &[u8; N]) -> Option<()> {
        self.ws();
        if self.b[self.i..].first_chunk::<N>() != Some(key) {
            return None;
        }
        self.i += N;
        self.ws();
        Some(())
    }

    /// The comma after a value, then [`Cursor::key`].
    #[inline]
    fn next_key<const N: usize>(&mut self, key: &[u8; N]) -> Option<()> {
        self.ws();
        self.eat(b',')?;
        self.key(key)
    }

    /// The exhaustive profile's `, "cycles": N` after `self`, if there.
    #[inline]
    fn trailing_cycles(&mut self) -> Option<Option<u64>> {
        let start = self.i;
        self.ws();
        if self.b.get(self.i) != Some(&b',') {
            self.i = start;
            return Some(None);
        }
        self.next_key(b"\"cycles\":")?;
        Some(Some(self.uint()?))
    }

    /// A node with its keys in any order.
    fn node_any_order(&mut self, names: &mut Interner) -> Option<CctNode> {
        self.eat(b'{')?;
        let (mut id, mut parent, mut method, mut line, mut calls, mut self_) =
            (None, None, None, None, None, None);
        let mut cycles = None;
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
                b"cycles" => cycles.replace(self.uint()?).is_none(),
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
            cycles,
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

/// The digits at the start of `bytes` and their value, when fewer than
/// eight (a byte among the eight is not a digit), without a loop: the
/// digits are found a word at a time, and more than two are added up so
/// too (the way simdjson's `parse_eight_digits_unrolled` adds eight).
#[inline(always)]
fn short_uint(bytes: [u8; 8]) -> Option<(u64, usize)> {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = 0xf0 * ONES;
    let w = u64::from_le_bytes(bytes);
    // A byte is a digit when its high half is 3 and stays 3 when 6 is
    // added (0x30..=0x39). A carry out of a byte that is not a digit can
    // only spoil the bytes after it, which are not looked at.
    const THREES: u64 = 0x30 * ONES;
    let other = ((w & HIGH) ^ THREES) | ((w.wrapping_add(6 * ONES) & HIGH) ^ THREES);
    if other == 0 {
        return None;
    }
    let len = (other.trailing_zeros() / 8) as usize;
    let digit = |k: usize| u64::from(bytes[k] - b'0');
    let v = match len {
        0 => 0,
        1 => digit(0),
        2 => digit(0) * 10 + digit(1),
        _ => {
            // The digits' values moved to the top bytes, the bytes below
            // being leading zeros of an eight-digit number whose first
            // digit is in the lowest byte. Each multiplication adds every
            // lane, times 10, 100 or 10,000, to the next one up; each
            // shift takes the sums down a lane.
            let kept = u64::MAX >> (64 - 8 * len);
            let digits = ((w & kept) - (THREES & kept)) << (64 - 8 * len);
            let pairs = (digits * 10 + (digits >> 8)) & 0x00ff_00ff_00ff_00ff;
            let fours = (pairs.wrapping_mul(1 + (100 << 16)) >> 16) & 0x0000_ffff_0000_ffff;
            fours.wrapping_mul(1 + (10_000 << 32)) >> 32
        }
    };
    Some((v, len))
}

/// The digits at the start of `bytes` and their value, a digit at a
/// time; `None` when the value does not fit in 64 bits.
fn long_uint(bytes: &[u8]) -> Option<(u64, usize)> {
    let len = bytes.iter().take_while(|c| c.is_ascii_digit()).count();
    let v = bytes[..len].iter().try_fold(0u64, |v, &c| {
        v.checked_mul(10)?.checked_add(u64::from(c - b'0'))
    })?;
    Some((v, len))
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
    fn an_exhaustive_profiles_cycles_are_read_by_the_fast_reader() {
        for every in [1, 2, 3] {
            let nodes: Vec<CctNode> = (0..50u64)
                .map(|i| CctNode {
                    id: i,
                    parent: i.checked_sub(1),
                    method: "main".into(),
                    line: None,
                    calls: i,
                    self_: i * 3,
                    cycles: (i % every == 0).then_some(i * 1_000_003),
                })
                .collect();
            let text = profile_text(&serde_json::to_string_pretty(&nodes).unwrap());
            let fast = parse(text.as_bytes()).expect("the fast path reads it");
            assert_eq!(fast.cct.as_deref(), Some(&nodes[..]));
            // Through a `Value` the keys come sorted (`calls`, `cycles`,
            // `id`, ...): the any-order reader reads them all the same.
            let sorted = serde_json::to_value(&nodes).unwrap().to_string();
            assert!(
                sorted.starts_with(r#"[{"calls":0,"cycles":0,"id":0"#),
                "{sorted}"
            );
            let fast = parse(profile_text(&sorted).as_bytes()).expect("read in any order");
            assert_eq!(fast.cct.as_deref(), Some(&nodes[..]));
        }
    }

    /// `n` nodes as the profiler writes them (pretty-printed), each the
    /// child of the one before, numbers of every length.
    fn pretty_nodes(n: u64) -> String {
        let nodes: Vec<CctNode> = (0..n)
            .map(|i| CctNode {
                id: i,
                parent: i.checked_sub(1),
                method: if i % 3 == 0 { "f" } else { "main" }.into(),
                line: (i % 4 > 0).then_some(i as u32 * 7),
                calls: 10u64.pow(i as u32 % 20) - 1 + i % 2,
                self_: i * i * i,
                cycles: None,
            })
            .collect();
        serde_json::to_string_pretty(&nodes).unwrap()
    }

    #[test]
    fn the_text_between_values_is_compared_not_trusted() {
        let base = pretty_nodes(40);
        let read = |cct: &str| {
            let text = profile_text(cct);
            let slow = serde_json::from_str::<Profile>(&text).ok();
            assert_eq!(parse(text.as_bytes()), slow, "{cct}");
            slow.is_some()
        };
        assert!(read(&base));
        // Node 20 written otherwise, after 20 nodes written alike, and 19
        // more written alike after it.
        let at = base.find("\"id\": 20,").unwrap();
        let node = |from: &str, to: &str| {
            let (head, tail) = base.split_at(at);
            assert!(tail.contains(from), "{from}");
            format!("{head}{}", tail.replacen(from, to, 1))
        };
        let indent = " ".repeat(40);
        for (good, text) in [
            (true, node("\"id\": 20", "\"id\":  20")),
            (true, node("\"id\": 20", "\"id\" : 20")),
            (true, node("\"id\": 20,\n", "\"id\": 20,\n ")),
            (true, node(",\n    \"method\"", ",\t\"method\"")),
            (
                true,
                node(",\n    \"method\"", &format!(",\n{indent}\"method\"")),
            ),
            (true, node("\n  }", "}")),
            (
                true,
                node("\"id\": 20,", "\"self\": 8000, \"id\": 20,").replacen(
                    ",\n    \"self\": 8000",
                    "",
                    1,
                ),
            ),
            (false, node("\"id\": 20", "\"id\": 020")),
            (false, node("\"id\": 20", "\"id\"  20")),
            (false, node("\"id\": 20,", "\"id\": 20")),
            (false, node("\"method\"", "\"methods\"")),
            (false, node("\"method\"", "\"Method\"")),
            (false, node("\n  }", "\n  ,}")),
        ] {
            assert_eq!(read(&text), good, "{text}");
        }
    }

    #[test]
    fn numbers_are_read_as_serde_reads_them() {
        let mut values: Vec<u64> = (0..2000).chain([u64::MAX, u64::MAX - 1]).collect();
        for digits in 1..20 {
            let p = 10u64.pow(digits);
            values.extend([p - 1, p, p + 1, p / 3, p / 7 * 6]);
        }
        let after: [&[u8]; 11] = [
            b"",
            b",",
            b"}",
            b"\n",
            b" ",
            b"        ",
            b"\xfa\xfa\xfa\xfa\xfa\xfa\xfa\xfa",
            b",\xff\xfa5\xfa5\xfa5",
            b".5",
            b"e3",
            b"E3",
        ];
        for v in values {
            for tail in after {
                let text = [v.to_string().as_bytes(), tail].concat();
                let mut c = Cursor::new(&text);
                let number = !matches!(tail.first(), Some(b'.' | b'e' | b'E'));
                assert_eq!(c.uint(), number.then_some(v), "{v} {tail:?}");
                if number {
                    assert_eq!(c.i, v.to_string().len(), "{v} {tail:?}");
                }
            }
        }
        for bad in [
            "",
            "x",
            "01",
            "00",
            "007,",
            "18446744073709551616",
            "99999999999999999999,",
            "-1",
        ] {
            assert_eq!(Cursor::new(bad.as_bytes()).uint(), None, "{bad}");
        }
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
