//! The lexer: `.bc` text to tokens, with [`logos`].
//!
//! Tokens follow docs/LANGUAGE.md: identifiers, integers (decimal with an
//! optional `-`, or `0x` hex), strings with the escapes `\n \t \\ \"`,
//! directives (`.method`), qualified names (`Shape.area`, `Point.x`), and the
//! punctuation `: , ( )`. Newlines are tokens because the language is
//! line-oriented; `;` comments and other whitespace are skipped.
//!
//! [`lines`] hands out one line's tokens at a time, so that the parser
//! holds a line's tokens, not a whole file's: a 5 MB source took 243 MB to
//! check when every line's tokens were made first (docs/PERFORMANCE.md,
//! "Memory").

use logos::Logos;

use crate::diag::{Diagnostic, Pos};

/// A token's kind and, for names and constants, its value.
#[derive(Logos, Clone, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\f\v]+")]
pub enum Tok {
    /// End of a line.
    #[token("\n")]
    Newline,
    /// `.name`: a directive (the dot stripped).
    #[regex(r"\.[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice()[1..].to_string())]
    Directive(String),
    /// `Class.member`.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice().to_string())]
    Qualified(String),
    /// An identifier.
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice().to_string())]
    Ident(String),
    /// A decimal integer (range checked by the parser).
    #[regex(r"-?[0-9]+", |lex| lex.slice().to_string())]
    Decimal(String),
    /// A `0x` hexadecimal integer (range checked by the parser).
    #[regex(r"0x[0-9A-Fa-f]+", |lex| lex.slice().to_string())]
    Hex(String),
    /// A string literal, escapes not yet decoded (quotes stripped):
    /// `"`, then characters other than `"`, `\` and a newline, or `\`
    /// and any character but a newline, then `"` ([`string_literal`]).
    #[token("\"", string_literal)]
    Str(String),
    /// A `;` comment, to the end of its line: skipped, never produced
    /// ([`comment`]).
    #[token(";", comment)]
    Comment,
    /// `:`
    #[token(":")]
    Colon,
    /// `,`
    #[token(",")]
    Comma,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
}

// Comments and strings are scanned by hand rather than matched by
// regular expressions: logos matches a run of mixed one- and multi-byte
// characters by calls from state to state, which only an optimizing build
// turns into jumps, and an unoptimized lexer overflowed the stack on a
// comment of a few megabytes.

/// The rest of a `;` comment, up to (not including) the newline.
fn comment(lex: &mut logos::Lexer<Tok>) -> logos::Skip {
    let rest = lex.remainder();
    lex.bump(rest.find('\n').unwrap_or(rest.len()));
    logos::Skip
}

/// The rest of a string literal after its `"`: its contents, or `None`
/// (an error: "unterminated string") at a newline or the end of the
/// source. Scanning bytes is scanning characters here: no byte of a
/// multi-byte character is ASCII.
fn string_literal(lex: &mut logos::Lexer<Tok>) -> Option<String> {
    let rest = lex.remainder().as_bytes();
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            b'"' => {
                let contents = lex.remainder()[..i].to_string();
                lex.bump(i + 1);
                return Some(contents);
            }
            b'\n' => break,
            b'\\' if rest.get(i + 1).is_some_and(|&b| b != b'\n') => i += 2,
            b'\\' => break,
            _ => i += 1,
        }
    }
    None
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its first character's position.
    pub pos: Pos,
}

/// One source line's tokens.
#[derive(Clone, Debug, Default)]
pub struct Line {
    /// The tokens, in order.
    pub tokens: Vec<Token>,
    /// True if the line held characters that start no token (reported
    /// by `error`); the parser skips such lines to avoid follow-on errors.
    pub bad: bool,
    /// The line's first character that starts no token, as a diagnostic.
    pub error: Option<Diagnostic>,
}

/// Splits `src` into lines of tokens, all at once. Characters that start
/// no token become diagnostics (the first per line) and mark their line
/// bad.
pub fn lex(src: &str) -> (Vec<Line>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let lines = lines(src)
        .map(|mut l| {
            diags.extend(l.error.take());
            l
        })
        .collect();
    (lines, diags)
}

/// The lines of `src`, one at a time (each with its diagnostic, if any).
pub fn lines(src: &str) -> Lines<'_> {
    Lines {
        src,
        lexer: Tok::lexer(src),
        cursor: Cursor::default(),
        ended: false,
    }
}

/// The iterator of [`lines`]: a file of N newlines gives N + 1 lines.
pub struct Lines<'s> {
    src: &'s str,
    lexer: logos::Lexer<'s, Tok>,
    cursor: Cursor,
    ended: bool,
}

impl Iterator for Lines<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        if self.ended {
            return None;
        }
        let mut line = Line::default();
        loop {
            let Some(item) = self.lexer.next() else {
                self.ended = true;
                return Some(line);
            };
            let span = self.lexer.span();
            match item {
                Ok(Tok::Newline) => return Some(line),
                Ok(tok) => {
                    let pos = self.cursor.pos(self.src, span.start);
                    line.tokens.push(Token { tok, pos });
                }
                Err(()) => {
                    if !line.bad {
                        let pos = self.cursor.pos(self.src, span.start);
                        let msg = bad_token_message(&self.src[span.start..]);
                        line.error = Some(Diagnostic::new(pos, msg));
                        line.bad = true;
                    }
                }
            }
        }
    }
}

/// Positions of increasing byte offsets, each found from the previous one:
/// lexing a source costs time linear in its length, however long its lines
/// (counting from the line start at each token would cost tokens × length).
struct Cursor {
    /// The last offset asked for and its position.
    off: usize,
    pos: Pos,
}

impl Default for Cursor {
    fn default() -> Cursor {
        Cursor {
            off: 0,
            pos: Pos::new(1, 1),
        }
    }
}

impl Cursor {
    fn pos(&mut self, src: &str, off: usize) -> Pos {
        debug_assert!(off >= self.off, "offsets must not decrease");
        let skipped = &src[self.off..off];
        self.pos = match skipped.rfind('\n') {
            None => Pos::new(self.pos.line, self.pos.col + skipped.chars().count() as u32),
            Some(nl) => {
                let lines = skipped.bytes().filter(|&b| b == b'\n').count() as u32;
                let col = skipped[nl + 1..].chars().count() as u32 + 1;
                Pos::new(self.pos.line + lines, col)
            }
        };
        self.off = off;
        self.pos
    }
}

fn bad_token_message(rest: &str) -> String {
    let c = rest.chars().next().unwrap_or(' ');
    if c == '"' {
        "unterminated string".into()
    } else if c.is_ascii_digit() || c == '-' {
        "malformed integer".into()
    } else if c.is_control() {
        format!("unexpected character U+{:04X}", c as u32)
    } else {
        format!("unexpected character `{c}`")
    }
}

/// Decodes the escapes of a string literal's contents. Returns the offending
/// escape's character offset within the literal on error.
pub fn unescape(raw: &str) -> Result<String, usize> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().enumerate();
    while let Some((_, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some((_, 'n')) => out.push('\n'),
            Some((_, 't')) => out.push('\t'),
            Some((_, '\\')) => out.push('\\'),
            Some((_, '"')) => out.push('"'),
            Some((i, _)) => return Err(i - 1),
            None => return Err(raw.chars().count() - 1),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<Tok> {
        let (lines, diags) = lex(src);
        assert!(diags.is_empty(), "{diags:?}");
        lines
            .into_iter()
            .flat_map(|l| l.tokens)
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn lexes_a_method_header() {
        assert_eq!(
            kinds(".method Shape.area(this) ; comment"),
            vec![
                Tok::Directive("method".into()),
                Tok::Qualified("Shape.area".into()),
                Tok::LParen,
                Tok::Ident("this".into()),
                Tok::RParen,
            ]
        );
    }

    #[test]
    fn semicolon_inside_string_is_not_a_comment() {
        assert_eq!(
            kinds(r#"push "a;b" ; c"#),
            vec![Tok::Ident("push".into()), Tok::Str("a;b".into())]
        );
    }

    #[test]
    fn numbers_and_labels() {
        assert_eq!(
            kinds("loop: push -12\npush 0x1F"),
            vec![
                Tok::Ident("loop".into()),
                Tok::Colon,
                Tok::Ident("push".into()),
                Tok::Decimal("-12".into()),
                Tok::Ident("push".into()),
                Tok::Hex("0x1F".into()),
            ]
        );
    }

    #[test]
    fn positions_are_one_based() {
        let (lines, _) = lex("\n  push 1");
        assert_eq!(lines[1].tokens[0].pos, Pos::new(2, 3));
        assert_eq!(lines[1].tokens[1].pos, Pos::new(2, 8));
    }

    #[test]
    fn bad_characters_are_reported() {
        let (_, diags) = lex("push @");
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].pos, Pos::new(1, 6));
        let (_, diags) = lex("push \"abc");
        assert_eq!(diags[0].message, "unterminated string");
    }

    /// A comment or a string of a few megabytes that mixes ASCII with
    /// multi-byte characters (matched by logos' regular expressions, it
    /// overflowed an unoptimized build's stack: see [`comment`]).
    #[test]
    #[cfg_attr(miri, ignore = "megabytes of input: hours under Miri")]
    fn long_mixed_comments_and_strings_lex_without_overflowing() {
        let text = "a\u{e9} \u{1F600}".repeat(400_000);
        let (lines, diags) = lex(&format!("push 1 ;{text}\npush \"{text}\""));
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].tokens.len(), 2);
        assert_eq!(lines[1].tokens[1].tok, Tok::Str(text));
    }

    #[test]
    fn unescape_accepts_only_spec_escapes() {
        assert_eq!(unescape(r#"a\n\t\\\"b"#).unwrap(), "a\n\t\\\"b");
        assert_eq!(unescape(r"ab\q"), Err(2));
    }
}
