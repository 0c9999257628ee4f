//! Source positions and compile-time diagnostics.
//!
//! Every error the assembler or the verifier finds is a [`Diagnostic`]: a
//! position and a message. [`render`] prints them in the documented form,
//!
//! ```text
//! prog.bc:3:5: error: unknown local `x`
//!     3 |     load x
//!       |          ^
//! ```
//!
//! the first line exactly `FILE:LINE:COL: error: MESSAGE`, then the source
//! line and a caret under the fault. Diagnostics are sorted by position and
//! all of them are reported, not just the first.

use std::fmt::Write as _;

/// A 1-based line and column in the source text (columns count characters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, in characters.
    pub col: u32,
}

impl Pos {
    /// A position from a line and a column, both 1-based.
    pub const fn new(line: u32, col: u32) -> Pos {
        Pos { line, col }
    }
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// One error found before the program runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Where the fault is.
    pub pos: Pos,
    /// What is wrong, in one sentence without a trailing period.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at `pos`.
    pub fn new(pos: Pos, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            pos,
            message: message.into(),
        }
    }
}

/// Sorts diagnostics by position (stable, so equal positions keep the order
/// in which they were found) and removes exact duplicates.
pub fn sort(diags: &mut Vec<Diagnostic>) {
    diags.sort_by_key(|d| d.pos);
    diags.dedup();
}

/// Renders diagnostics for a file: per error the documented first line, then the
/// source line and a caret. `source` may be lossy-decoded text of the file.
pub fn render(file: &str, source: &str, diags: &[Diagnostic]) -> String {
    let lines: Vec<&str> = source.split('\n').collect();
    let mut out = String::new();
    for d in diags {
        let _ = writeln!(
            out,
            "{}:{}:{}: error: {}",
            file, d.pos.line, d.pos.col, d.message
        );
        let idx = d.pos.line.saturating_sub(1) as usize;
        if let Some(text) = lines.get(idx) {
            let text = text.strip_suffix('\r').unwrap_or(text);
            // Very long lines (a 10 MB one-line file) are cut around the caret.
            let (shown, caret_col) = clip_line(text, d.pos.col as usize);
            let num = d.pos.line.to_string();
            let pad = " ".repeat(num.len());
            let _ = writeln!(out, " {num} | {shown}");
            let lead: String = shown
                .chars()
                .take(caret_col.saturating_sub(1))
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = writeln!(out, " {pad} | {lead}^");
        }
    }
    out
}

/// Returns at most ~120 characters of `text` around column `col`, and the
/// caret's column within the returned text.
fn clip_line(text: &str, col: usize) -> (String, usize) {
    const WIDTH: usize = 120;
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= WIDTH {
        return (text.to_string(), col);
    }
    let start = col.saturating_sub(WIDTH / 2).min(chars.len());
    let end = (start + WIDTH).min(chars.len());
    let shown: String = chars[start..end]
        .iter()
        .map(|c| {
            if c.is_control() && *c != '\t' {
                '?'
            } else {
                *c
            }
        })
        .collect();
    (shown, col - start)
}

/// `n` and a noun that agrees with it: `count(1, "value", "values")` is
/// `1 value`, `count(2, ...)` is `2 values` (for messages in English).
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Converts byte offsets into [`Pos`] for one source text.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes the line starts of `src`.
    pub fn new(src: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The position of byte offset `off` in `src` (which must be the text
    /// this index was built from).
    pub fn pos(&self, src: &str, off: usize) -> Pos {
        let line = match self.starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line];
        let col = src[start..off.min(src.len())].chars().count() + 1;
        Pos::new(line as u32 + 1, col as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_spec_first_line_and_caret() {
        let src = ".method main()\n  load x\n.end\n";
        let d = [Diagnostic::new(Pos::new(2, 8), "unknown local `x`")];
        let out = render("p.bc", src, &d);
        let mut lines = out.lines();
        assert_eq!(lines.next(), Some("p.bc:2:8: error: unknown local `x`"));
        assert_eq!(lines.next(), Some(" 2 |   load x"));
        assert_eq!(lines.next(), Some("   |        ^"));
    }

    #[test]
    fn counts_agree_with_their_noun() {
        assert_eq!(count(1u32, "value", "values"), "1 value");
        assert_eq!(count(0u32, "value", "values"), "0 values");
        assert_eq!(count(3u64, "class", "classes"), "3 classes");
    }

    #[test]
    fn line_index_counts_characters() {
        let src = "ab\n\u{e9}x y\n";
        let idx = LineIndex::new(src);
        assert_eq!(idx.pos(src, 0), Pos::new(1, 1));
        assert_eq!(idx.pos(src, 3), Pos::new(2, 1));
        // 'é' is two bytes but one column.
        assert_eq!(idx.pos(src, 6), Pos::new(2, 3));
    }

    #[test]
    fn sorting_orders_by_position_and_dedups() {
        let mut v = vec![
            Diagnostic::new(Pos::new(3, 1), "b"),
            Diagnostic::new(Pos::new(1, 4), "a"),
            Diagnostic::new(Pos::new(3, 1), "b"),
        ];
        sort(&mut v);
        assert_eq!(v.len(), 2);
        assert_eq!(v[0].pos, Pos::new(1, 4));
    }
}
