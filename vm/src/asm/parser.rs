//! The parser: lines of tokens to an [`Ast`], by hand.
//!
//! The language is line-oriented, so the parser is a small state machine
//! over lines (top level, inside a class, inside a method). A malformed line
//! gives one diagnostic and is skipped; parsing goes on so that every error
//! in the file is reported.

use super::ast::*;
use super::lexer::{self, Line, Tok, Token};
use crate::diag::{Diagnostic, Pos};
use crate::opcode::{Opcode, OperandKind};

/// Parses lexed lines into an [`Ast`], appending errors to `diags` (the
/// lexer's among them), one line at a time ([`lexer::lines`]).
pub fn parse(lines: impl IntoIterator<Item = Line>, diags: &mut Vec<Diagnostic>) -> Ast {
    let mut methods = Vec::new();
    let mut ast = parse_each(lines, diags, &mut |m| methods.push(m));
    ast.methods = methods;
    ast
}

/// Parses like [`parse`], but hands each method to `on_method` as soon as
/// its `.end` (or the end of the file) is read, in file order, instead of
/// keeping it: the returned [`Ast`] has no methods. A caller that resolves
/// each method as it comes holds one method's syntax tree at a time.
pub fn parse_each(
    lines: impl IntoIterator<Item = Line>,
    diags: &mut Vec<Diagnostic>,
    on_method: &mut dyn FnMut(MethodDecl),
) -> Ast {
    let mut p = Parser {
        ast: Ast::default(),
        diags,
        state: State::Top,
        eof: Pos::new(1, 1),
        on_method,
    };
    let mut count = 0u32;
    for mut line in lines {
        count += 1;
        if let Some(d) = line.error.take() {
            p.diags.push(d);
        }
        if line.bad {
            p.method_malformed();
        } else if !line.tokens.is_empty() {
            p.line(&line.tokens);
        }
    }
    p.eof = Pos::new(count, 1);
    p.finish();
    p.ast
}

enum State {
    Top,
    Class(ClassDecl, Pos),
    Method(Box<MethodDecl>),
}

struct Parser<'d> {
    ast: Ast,
    diags: &'d mut Vec<Diagnostic>,
    state: State,
    eof: Pos,
    /// Where each finished method goes ([`parse_each`]).
    on_method: &'d mut dyn FnMut(MethodDecl),
}

/// A cursor over one line's tokens.
struct Cursor<'t> {
    toks: &'t [Token],
    i: usize,
}

impl<'t> Cursor<'t> {
    fn peek(&self) -> Option<&'t Token> {
        self.toks.get(self.i)
    }
    fn next(&mut self) -> Option<&'t Token> {
        let t = self.toks.get(self.i);
        self.i += 1;
        t
    }
    /// Position just after the last token (for "expected ..." at line end).
    fn end_pos(&self) -> Pos {
        self.toks.last().map_or(Pos::default(), |t| {
            Pos::new(
                t.pos.line,
                t.pos.col + describe(&t.tok).chars().count() as u32,
            )
        })
    }
}

type Parsed<T> = Result<T, Diagnostic>;

/// How a token reads in a message.
fn describe(tok: &Tok) -> String {
    match tok {
        Tok::Newline => "\\n".into(),
        Tok::Directive(d) => format!(".{d}"),
        Tok::Qualified(s) | Tok::Ident(s) | Tok::Decimal(s) | Tok::Hex(s) => s.clone(),
        Tok::Str(s) => format!("\"{s}\""),
        Tok::Colon => ":".into(),
        Tok::Comma => ",".into(),
        Tok::LParen => "(".into(),
        Tok::RParen => ")".into(),
        Tok::Comment => ";".into(),
    }
}

fn err(pos: Pos, msg: impl Into<String>) -> Diagnostic {
    Diagnostic::new(pos, msg)
}

impl Parser<'_> {
    fn line(&mut self, toks: &[Token]) {
        let mut c = Cursor { toks, i: 0 };
        if let Err(d) = self.line_inner(&mut c) {
            self.diags.push(d);
            self.method_malformed();
        }
    }

    /// Marks the open method, if any, as having a line that was skipped.
    fn method_malformed(&mut self) {
        if let State::Method(m) = &mut self.state {
            m.malformed = true;
        }
    }

    fn line_inner(&mut self, c: &mut Cursor<'_>) -> Parsed<()> {
        // A label: `name:` at the start of the line.
        if let (
            Some(Token {
                tok: Tok::Ident(name),
                pos,
            }),
            Some(Token {
                tok: Tok::Colon, ..
            }),
        ) = (c.toks.first(), c.toks.get(1))
        {
            let State::Method(m) = &mut self.state else {
                return Err(err(*pos, format!("label `{name}:` outside a method")));
            };
            let label = Name {
                text: name.as_str().into(),
                pos: *pos,
            };
            m.labels.push((label, m.body.len()));
            c.i = 2;
            if c.peek().is_none() {
                return Ok(());
            }
        }
        let first = c.next().expect("non-empty line");
        match &first.tok {
            Tok::Directive(d) => self.directive(d, first.pos, c),
            Tok::Ident(m) => {
                let State::Method(method) = &mut self.state else {
                    return Err(err(
                        first.pos,
                        format!("instruction `{m}` outside a method"),
                    ));
                };
                let Some(opcode) = Opcode::from_mnemonic(m) else {
                    let hint = nearest_mnemonic(m)
                        .map(|near| format!("; did you mean `{near}`?"))
                        .unwrap_or_default();
                    return Err(err(first.pos, format!("unknown instruction `{m}`{hint}")));
                };
                let operand = operand(opcode, first.pos, c)?;
                expect_end(c)?;
                method.body.push(Insn {
                    opcode,
                    operand,
                    pos: first.pos,
                });
                Ok(())
            }
            other => Err(err(
                first.pos,
                format!(
                    "expected an instruction or a directive, found `{}`",
                    describe(other)
                ),
            )),
        }
    }

    fn directive(&mut self, d: &str, pos: Pos, c: &mut Cursor<'_>) -> Parsed<()> {
        match d {
            "global" => {
                self.expect_top(pos, d)?;
                let name = ident(c, "a global name")?;
                expect_end(c)?;
                self.ast.globals.push(name);
            }
            "class" => {
                self.expect_top(pos, d)?;
                let name = ident(c, "a class name")?;
                let superclass = match c.peek() {
                    Some(Token {
                        tok: Tok::Colon, ..
                    }) => {
                        c.next();
                        Some(ident(c, "a superclass name")?)
                    }
                    _ => None,
                };
                expect_end(c)?;
                self.state = State::Class(
                    ClassDecl {
                        name,
                        superclass,
                        fields: Vec::new(),
                    },
                    pos,
                );
            }
            "field" => {
                let State::Class(class, _) = &mut self.state else {
                    return Err(err(pos, "`.field` outside a class"));
                };
                let name = ident(c, "a field name")?;
                expect_end(c)?;
                class.fields.push(name);
            }
            "method" => {
                self.expect_top(pos, d)?;
                let (class, name) = match c.next() {
                    Some(Token {
                        tok: Tok::Ident(n),
                        pos,
                    }) => (
                        None,
                        Name {
                            text: n.as_str().into(),
                            pos: *pos,
                        },
                    ),
                    Some(Token {
                        tok: Tok::Qualified(q),
                        pos,
                    }) => {
                        let (cls, m) = q.split_once('.').expect("qualified name has a dot");
                        let mpos = Pos::new(pos.line, pos.col + cls.chars().count() as u32 + 1);
                        (
                            Some(Name {
                                text: cls.into(),
                                pos: *pos,
                            }),
                            Name {
                                text: m.into(),
                                pos: mpos,
                            },
                        )
                    }
                    Some(t) => {
                        return Err(err(
                            t.pos,
                            format!("expected a method name, found `{}`", describe(&t.tok)),
                        ))
                    }
                    None => return Err(err(c.end_pos(), "expected a method name")),
                };
                let params = param_list(c)?;
                expect_end(c)?;
                self.state = State::Method(Box::new(MethodDecl {
                    class,
                    name,
                    params,
                    locals: Vec::new(),
                    catches: Vec::new(),
                    body: Vec::new(),
                    labels: Vec::new(),
                    pos,
                    end: pos,
                    malformed: false,
                }));
            }
            "locals" => {
                let State::Method(m) = &mut self.state else {
                    return Err(err(pos, "`.locals` outside a method"));
                };
                if !m.body.is_empty() {
                    return Err(err(pos, "`.locals` must come before the first instruction"));
                }
                while c.peek().is_some() {
                    let name = ident(c, "a local name")?;
                    m.locals.push(name);
                }
            }
            "catch" => {
                let State::Method(m) = &mut self.state else {
                    return Err(err(pos, "`.catch` outside a method"));
                };
                let from = ident(c, "the first label of the range")?;
                let to = ident(c, "the label that ends the range")?;
                let handler = ident(c, "the handler's label")?;
                expect_end(c)?;
                m.catches.push(CatchDecl { from, to, handler });
            }
            "end" => {
                expect_end(c)?;
                match std::mem::replace(&mut self.state, State::Top) {
                    State::Top => return Err(err(pos, "`.end` without a `.class` or `.method`")),
                    State::Class(class, _) => self.ast.classes.push(class),
                    State::Method(mut m) => {
                        m.end = pos;
                        (self.on_method)(*m);
                    }
                }
            }
            other => return Err(err(pos, format!("unknown directive `.{other}`"))),
        }
        Ok(())
    }

    /// Checks that a top-level directive is not inside a class or method;
    /// if it is, reports the missing `.end` and closes the open one.
    fn expect_top(&mut self, pos: Pos, d: &str) -> Parsed<()> {
        let msg = match &self.state {
            State::Top => return Ok(()),
            State::Class(cls, _) => format!(
                "`.{d}` inside class `{}`: missing `.end` before it",
                cls.name.text
            ),
            State::Method(m) => format!(
                "`.{d}` inside method `{}`: missing `.end` before it",
                m.name.text
            ),
        };
        self.diags.push(err(pos, msg));
        self.close_open(pos);
        Ok(())
    }

    fn close_open(&mut self, at: Pos) {
        match std::mem::replace(&mut self.state, State::Top) {
            State::Top => {}
            State::Class(class, _) => self.ast.classes.push(class),
            State::Method(mut m) => {
                m.end = at;
                (self.on_method)(*m);
            }
        }
    }

    fn finish(&mut self) {
        let msg = match &self.state {
            State::Top => return,
            State::Class(cls, pos) => (*pos, format!("class `{}` has no `.end`", cls.name.text)),
            State::Method(m) => (m.pos, format!("method `{}` has no `.end`", m.name.text)),
        };
        self.diags.push(err(msg.0, msg.1));
        let eof = self.eof;
        self.close_open(eof);
    }
}

/// Names other languages give to our instructions, for "did you mean".
const SYNONYMS: &[(&str, &str)] = &[
    ("mod", "rem"),
    ("modulo", "rem"),
    ("irem", "rem"),
    ("goto", "jmp"),
    ("jump", "jmp"),
    ("br", "jmp"),
    ("return", "ret"),
    ("const", "push"),
    ("ldc", "push"),
    ("println", "print"),
    ("exit", "halt"),
    ("len", "alen"),
    ("arraylength", "alen"),
    ("invokestatic", "call"),
    ("invokevirtual", "callvirt"),
    ("getstatic", "getglobal"),
    ("putstatic", "putglobal"),
    ("lsh", "shl"),
    ("rsh", "shr"),
    ("sar", "shr"),
    ("neq", "ne"),
    ("beq", "jeq"),
    ("bne", "jne"),
    ("blt", "jlt"),
    ("ble", "jle"),
    ("bgt", "jgt"),
    ("bge", "jge"),
];

/// The instruction a user probably meant by the unknown mnemonic `m`: the
/// same letters in another case, a synonym from other languages, or the
/// mnemonic nearest by edit distance when it is close (one edit for words of
/// up to four letters, two for longer ones; a swap of neighbours is one
/// edit). `None` when nothing is close.
pub fn nearest_mnemonic(m: &str) -> Option<&'static str> {
    let lower = m.to_ascii_lowercase();
    if let Some(op) = Opcode::from_mnemonic(&lower) {
        return Some(op.mnemonic());
    }
    if let Some(&(_, meant)) = SYNONYMS.iter().find(|(s, _)| *s == lower) {
        return Some(meant);
    }
    let limit = if lower.chars().count() <= 4 { 1 } else { 2 };
    Opcode::ALL
        .iter()
        .map(|op| (edit_distance(&lower, op.mnemonic()), op.mnemonic()))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, near)| near)
}

/// Optimal-string-alignment distance: insertions, deletions, substitutions
/// and swaps of two neighbouring characters each cost one.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

fn expect_end(c: &mut Cursor<'_>) -> Parsed<()> {
    match c.peek() {
        None => Ok(()),
        Some(t) => Err(err(t.pos, format!("unexpected `{}`", describe(&t.tok)))),
    }
}

fn ident(c: &mut Cursor<'_>, what: &str) -> Parsed<Name> {
    match c.next() {
        Some(Token {
            tok: Tok::Ident(s),
            pos,
        }) => Ok(Name {
            text: s.as_str().into(),
            pos: *pos,
        }),
        Some(t) => Err(err(
            t.pos,
            format!("expected {what}, found `{}`", describe(&t.tok)),
        )),
        None => Err(err(c.end_pos(), format!("expected {what}"))),
    }
}

fn param_list(c: &mut Cursor<'_>) -> Parsed<Vec<Name>> {
    match c.next() {
        Some(Token {
            tok: Tok::LParen, ..
        }) => {}
        Some(t) => {
            return Err(err(
                t.pos,
                format!("expected `(`, found `{}`", describe(&t.tok)),
            ))
        }
        None => return Err(err(c.end_pos(), "expected `(` and a parameter list")),
    }
    let mut params = Vec::new();
    if let Some(Token {
        tok: Tok::RParen, ..
    }) = c.peek()
    {
        c.next();
        return Ok(params);
    }
    loop {
        params.push(ident(c, "a parameter name")?);
        match c.next() {
            Some(Token {
                tok: Tok::Comma, ..
            }) => continue,
            Some(Token {
                tok: Tok::RParen, ..
            }) => return Ok(params),
            Some(t) => {
                return Err(err(
                    t.pos,
                    format!("expected `,` or `)`, found `{}`", describe(&t.tok)),
                ))
            }
            None => return Err(err(c.end_pos(), "expected `)`")),
        }
    }
}

/// Parses an integer token: decimal with optional `-`, or `0x` hex; it must
/// fit in 64-bit signed.
fn integer(t: &Token) -> Parsed<Option<i64>> {
    match &t.tok {
        Tok::Decimal(s) => s.parse::<i64>().map(Some).map_err(|_| {
            err(
                t.pos,
                format!("integer `{s}` does not fit in 64-bit signed"),
            )
        }),
        Tok::Hex(s) => u64::from_str_radix(&s[2..], 16)
            .ok()
            .and_then(|v| i64::try_from(v).ok())
            .map(Some)
            .ok_or_else(|| {
                err(
                    t.pos,
                    format!("integer `{s}` does not fit in 64-bit signed"),
                )
            }),
        _ => Ok(None),
    }
}

fn local(c: &mut Cursor<'_>, mnemonic: &str) -> Parsed<LocalRef> {
    match c.next() {
        Some(Token {
            tok: Tok::Ident(s),
            pos,
        }) => Ok(LocalRef::Name(Name {
            text: s.as_str().into(),
            pos: *pos,
        })),
        Some(t) => match integer(t)? {
            Some(i) => Ok(LocalRef::Index(i, t.pos)),
            None => Err(err(
                t.pos,
                format!(
                    "`{mnemonic}` takes a local's name or index, found `{}`",
                    describe(&t.tok)
                ),
            )),
        },
        None => Err(err(
            c.end_pos(),
            format!("`{mnemonic}` needs a local's name or index"),
        )),
    }
}

fn operand(op: Opcode, pos: Pos, c: &mut Cursor<'_>) -> Parsed<Operand> {
    let m = op.mnemonic();
    let missing =
        |c: &Cursor<'_>, what: &str| err(c.end_pos().max(pos), format!("`{m}` needs {what}"));
    Ok(match op.operand() {
        OperandKind::None => Operand::None,
        OperandKind::Const => {
            let Some(t) = c.next() else {
                return Err(missing(c, "an integer or a string"));
            };
            if let Tok::Str(raw) = &t.tok {
                match lexer::unescape(raw) {
                    Ok(s) => Operand::Str(s.into()),
                    Err(at) => {
                        let p = Pos::new(t.pos.line, t.pos.col + 1 + at as u32);
                        return Err(err(
                            p,
                            "invalid escape in string (allowed: \\n \\t \\\\ \\\")",
                        ));
                    }
                }
            } else if let Some(i) = integer(t)? {
                Operand::Int(i)
            } else {
                return Err(err(
                    t.pos,
                    format!(
                        "`push` takes an integer or a string, found `{}`",
                        describe(&t.tok)
                    ),
                ));
            }
        }
        OperandKind::Local => Operand::Local(local(c, m)?),
        OperandKind::LocalInt => {
            let l = local(c, m)?;
            let Some(t) = c.next() else {
                return Err(missing(c, "a local and an integer"));
            };
            match integer(t)? {
                Some(i) => Operand::LocalInt(l, i),
                None => {
                    return Err(err(
                        t.pos,
                        format!("expected an integer, found `{}`", describe(&t.tok)),
                    ))
                }
            }
        }
        OperandKind::Global
        | OperandKind::Label
        | OperandKind::Method
        | OperandKind::Selector
        | OperandKind::Class => {
            let what = match op.operand() {
                OperandKind::Global => "a global's name",
                OperandKind::Label => "a label",
                OperandKind::Method => "a static method's name",
                OperandKind::Selector => "a virtual method's name",
                _ => "a class name",
            };
            match c.next() {
                Some(Token { tok: Tok::Ident(s), pos }) => Operand::Name(Name { text: s.as_str().into(), pos: *pos }),
                Some(Token { tok: Tok::Qualified(q), pos }) if op.operand() == OperandKind::Method => {
                    return Err(err(
                        *pos,
                        format!("`{m}` takes a static method and `{q}` is a virtual method's name (use `callvirt`)"),
                    ))
                }
                Some(t) => {
                    return Err(err(t.pos, format!("`{m}` takes {what}, found `{}`", describe(&t.tok))))
                }
                None => return Err(missing(c, what)),
            }
        }
        OperandKind::Field => match c.next() {
            Some(Token {
                tok: Tok::Qualified(q),
                pos,
            }) => {
                let (cls, f) = q.split_once('.').expect("qualified name has a dot");
                let fpos = Pos::new(pos.line, pos.col + cls.chars().count() as u32 + 1);
                Operand::Field(Box::new((
                    Name {
                        text: cls.into(),
                        pos: *pos,
                    },
                    Name {
                        text: f.into(),
                        pos: fpos,
                    },
                )))
            }
            Some(t) => {
                return Err(err(
                    t.pos,
                    format!("`{m}` takes CLASS.FIELD, found `{}`", describe(&t.tok)),
                ))
            }
            None => return Err(missing(c, "CLASS.FIELD")),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asm::lexer::lex;

    fn parse_src(src: &str) -> (Ast, Vec<Diagnostic>) {
        let (lines, mut diags) = lex(src);
        let ast = parse(lines, &mut diags);
        (ast, diags)
    }

    #[test]
    fn parses_classes_methods_labels_and_catches() {
        let src = "\
.global g
.class A
  .field x
.end
.class B : A
.end
.method A.get(this)
  load this
  getfield A.x
  ret
.end
.method main()
  .locals i
  .catch s e h
s: push 1
  store i
loop:
  inc i 1
  jmp loop
e:
h: pop
  push 0
  ret
.end
";
        let (ast, diags) = parse_src(src);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(ast.globals[0].text, "g");
        assert_eq!(ast.classes.len(), 2);
        assert_eq!(ast.classes[1].superclass.as_ref().unwrap().text, "A");
        let get = &ast.methods[0];
        assert_eq!(get.class.as_ref().unwrap().text, "A");
        assert_eq!(get.name.text, "get");
        assert_eq!(get.name.pos, Pos::new(7, 11));
        let main = &ast.methods[1];
        assert_eq!(main.locals.len(), 1);
        assert_eq!(main.catches.len(), 1);
        let labels: Vec<_> = main
            .labels
            .iter()
            .map(|(n, i)| (n.text.as_str(), *i))
            .collect();
        assert_eq!(labels, [("s", 0), ("loop", 2), ("e", 4), ("h", 4)]);
        assert_eq!(main.body.len(), 7);
    }

    #[test]
    fn reports_every_bad_line() {
        let src = ".method main()\n  frob\n  push\n  push 99999999999999999999\n  ret\n.end\n";
        let (_, diags) = parse_src(src);
        let at: Vec<_> = diags.iter().map(|d| d.pos).collect();
        assert_eq!(at, [Pos::new(2, 3), Pos::new(3, 7), Pos::new(4, 8)]);
    }

    #[test]
    fn hex_must_fit_signed() {
        let (_, d) = parse_src(
            ".method main()\n push 0x7FFFFFFFFFFFFFFF\n push 0x8000000000000000\n ret\n.end",
        );
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].pos.line, 3);
    }

    #[test]
    fn missing_end_is_reported_at_the_directive() {
        let (ast, d) = parse_src(".method main()\n  push 1\n  ret\n");
        assert_eq!(d[0].pos, Pos::new(1, 1));
        assert_eq!(ast.methods.len(), 1);
    }
}
