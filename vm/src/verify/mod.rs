//! The verifier: every rule of docs/LANGUAGE.md "Checks before running".
//!
//! [`assemble`] is the whole front end: lex, parse, resolve names
//! ([`resolve`]) and check stack heights ([`stack`]). Either the program is
//! accepted as a [`Module`] or every error found is returned, sorted by
//! position. [`verify_module`] re-checks a module built by a program (the
//! inliner's output) before it may run: the interpreter runs only verified
//! code.

pub mod resolve;
pub mod stack;

use crate::asm;
use crate::diag::{self, Diagnostic, Pos};
use crate::module::Module;

/// Sources from this size on are read in two passes ([`two_passes`]); smaller
/// ones in one ([`one_pass`]). Both give the same module and the same
/// diagnostics (a test checks it on every program); the two passes hold one
/// method's syntax tree at a time rather than the file's, for twice the
/// parsing, which a program of a few kilobytes would pay on every run
/// (+0.5% of richards' instructions).
pub const TWO_PASSES_FROM: usize = 1 << 20;

/// Assembles and verifies `src` (the text of `file`).
pub fn assemble(file: &str, src: &str) -> Result<Module, Vec<Diagnostic>> {
    let (mut module, clean, mut diags) = if src.len() < TWO_PASSES_FROM {
        one_pass(file, src)
    } else {
        two_passes(file, src)
    };
    for (i, ok) in clean.iter().enumerate() {
        if *ok {
            if let Some(h) = stack::check_method(&module, &module.methods[i], &mut diags) {
                module.methods[i].set_heights(h);
            }
        }
    }
    if diags.is_empty() {
        Ok(module)
    } else {
        diag::sort(&mut diags);
        Err(diags)
    }
}

/// A module, whether each method resolved cleanly, and the diagnostics.
type Resolved = (Module, Vec<bool>, Vec<Diagnostic>);

/// Parses the whole file, then resolves it: the file's syntax tree is held
/// whole until each method is resolved.
fn one_pass(file: &str, src: &str) -> Resolved {
    let mut diags = Vec::new();
    let ast = asm::parser::parse(asm::lexer::lines(src), &mut diags);
    let (module, clean) = resolve::resolve(file, ast, &mut diags);
    (module, clean, diags)
}

/// Reads the text twice, so that the syntax tree of the whole file is
/// never held at once (a method calls methods declared after it). The
/// first pass keeps the declarations: each method's body is parsed and
/// dropped at its `.end`. Its diagnostics are left to the second pass,
/// which parses the same lines again and resolves each body as soon as it
/// is parsed.
fn two_passes(file: &str, src: &str) -> Resolved {
    let mut diags = Vec::new();
    let mut headers = Vec::new();
    let mut first_pass = Vec::new();
    let mut decls = asm::parser::parse_each(asm::lexer::lines(src), &mut first_pass, &mut |m| {
        headers.push(m.header())
    });
    decls.methods = headers;
    let mut declared = resolve::Declared::new(file, &decls, &mut diags);
    drop(decls);
    let mut parse_diags = Vec::new();
    asm::parser::parse_each(asm::lexer::lines(src), &mut parse_diags, &mut |m| {
        declared.body(m)
    });
    let (module, clean) = declared.finish();
    // The parse's diagnostics first, as one pass reports them.
    parse_diags.extend(diags);
    (module, clean, parse_diags)
}

/// Assembles bytes that may not be program text: a binary file (see
/// [`binary_file`]) gives one diagnostic saying so.
pub fn assemble_bytes(file: &str, bytes: &[u8]) -> Result<Module, Vec<Diagnostic>> {
    if let Some(d) = binary_file(bytes) {
        return Err(vec![d]);
    }
    assemble(file, std::str::from_utf8(bytes).expect("checked above"))
}

/// If `bytes` are not program text (they hold a NUL byte, or are not
/// UTF-8), the one diagnostic that says so, at the first offending byte.
/// Its message names the file as binary; a caller should not echo the
/// file's line under it (it is not text).
pub fn binary_file(bytes: &[u8]) -> Option<Diagnostic> {
    let utf8_end = std::str::from_utf8(bytes).err().map(|e| e.valid_up_to());
    let nul = bytes.iter().position(|&b| b == 0);
    let (at, what) = match (nul, utf8_end) {
        (Some(n), Some(u)) if n < u => (n, "a NUL byte"),
        (_, Some(u)) => (u, "a byte that is not UTF-8"),
        (Some(n), None) => (n, "a NUL byte"),
        (None, None) => return None,
    };
    let good = std::str::from_utf8(&bytes[..at]).expect("valid prefix");
    let line = good.matches('\n').count() as u32 + 1;
    let col = good.rsplit('\n').next().map_or(0, |l| l.chars().count()) as u32 + 1;
    Some(Diagnostic::new(
        Pos::new(line, col),
        format!(
            "{what} here: this is a binary file, not a program (a program is a UTF-8 text file)"
        ),
    ))
}

/// Re-verifies a module built in memory (names are already resolved, so
/// only the structural checks apply). Sets the stack heights of every method.
pub fn verify_module(module: &mut Module) -> Result<(), Vec<Diagnostic>> {
    let mut diags = Vec::new();
    for i in 0..module.methods.len() {
        if let Some(h) = stack::check_method(module, &module.methods[i], &mut diags) {
            module.methods[i].set_heights(h);
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        diag::sort(&mut diags);
        Err(diags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(src: &str) -> Vec<(u32, u32, String)> {
        match assemble("t.bc", src) {
            Ok(_) => vec![],
            Err(d) => d
                .into_iter()
                .map(|d| (d.pos.line, d.pos.col, d.message))
                .collect(),
        }
    }

    fn first(src: &str) -> (u32, u32) {
        let e = errors(src);
        assert!(!e.is_empty(), "expected an error in:\n{src}");
        (e[0].0, e[0].1)
    }

    /// One pass and two give the same module, the same clean methods and
    /// the same diagnostics, on every program of the repository (those
    /// with errors among them) and on a few malformed files.
    #[test]
    fn one_pass_and_two_passes_agree_on_every_program() {
        let files = crate::test_programs::all();
        assert!(files.len() > 100, "found only {} programs", files.len());
        let malformed = [
            ".method main()\n  push 1\n done: .end\n.method f(a\n  ret\n",
            ".class A\n  push 1\n.method g()\n.end\n  load x\n.end\n",
            "x: .method main()\n  call later\n  ret\n.end\n.method later()\n  push \"a.b\"\n  ret\n",
            "  .global g\n.method main()\n  getglobal g\n  ret\n.end\n.global g\n",
        ];
        let texts = files
            .iter()
            .map(|f| (f.display().to_string(), std::fs::read_to_string(f).unwrap()))
            .chain(
                malformed
                    .iter()
                    .map(|t| ("t.bc".to_string(), t.to_string())),
            );
        let mut with_errors = 0;
        for (name, src) in texts {
            let (one, two) = (one_pass(&name, &src), two_passes(&name, &src));
            let sorted = |mut d: Vec<Diagnostic>| {
                diag::sort(&mut d);
                format!("{d:?}")
            };
            assert_eq!(sorted(one.2.clone()), sorted(two.2), "{name}: diagnostics");
            assert_eq!(one.1, two.1, "{name}: clean methods");
            assert_eq!(
                format!("{:?}", one.0),
                format!("{:?}", two.0),
                "{name}: module"
            );
            with_errors += usize::from(!one.2.is_empty());
        }
        assert!(with_errors > 10, "only {with_errors} files with errors");
    }

    #[test]
    fn accepts_a_small_program() {
        let src = ".method main()\n  push 1\n  print\n  push 0\n  ret\n.end\n";
        assert!(errors(src).is_empty());
        let m = assemble("t.bc", src).unwrap();
        assert_eq!(m.methods[0].max_stack, 1);
    }

    #[test]
    fn missing_main_is_at_1_1() {
        assert_eq!(first(".method f()\n push 0\n ret\n.end\n"), (1, 1));
    }

    #[test]
    fn underflow_is_at_the_instruction() {
        assert_eq!(
            first(".method main()\n  push 1\n  add\n  ret\n.end\n"),
            (3, 3)
        );
    }

    #[test]
    fn height_mismatch_is_where_paths_meet() {
        let src = "\
.method main()
  push 1
  jz skip
  push 7
skip:
  push 0
  ret
.end
";
        assert_eq!(first(src), (6, 3));
    }

    #[test]
    fn running_off_the_end_is_at_the_last_instruction() {
        assert_eq!(first(".method main()\n  push 1\n  pop\n.end\n"), (3, 3));
    }

    #[test]
    fn second_definition_is_reported() {
        assert_eq!(
            first(".global g\n.global g\n.method main()\n push 0\n ret\n.end\n"),
            (2, 9)
        );
    }

    #[test]
    fn arity_disagreement_at_later_method() {
        let src = "\
.class A
.end
.class B
.end
.method A.f(this)
  push 0
  ret
.end
.method B.f(this, x)
  push 0
  ret
.end
.method main()
  push 0
  ret
.end
";
        assert_eq!(first(src), (9, 11));
    }

    #[test]
    fn each_class_on_a_cycle_is_reported() {
        let src = ".class A : B\n.end\n.class B : A\n.end\n.method main()\n push 0\n ret\n.end\n";
        let e = errors(src);
        let at: Vec<_> = e.iter().map(|e| (e.0, e.1)).collect();
        assert_eq!(at, [(1, 8), (3, 8)]);
    }

    #[test]
    fn all_errors_sorted() {
        let src = ".method main()\n  load nope\n  call nothing\n  ret\n.end\n";
        let e = errors(src);
        assert_eq!(e.len(), 2);
        assert!(e[0].0 < e[1].0);
    }

    #[test]
    fn catch_handler_starts_with_one_value() {
        let src = "\
.method main()
  .catch a b h
a: push 1
  throw
b:
h: print
  push 0
  ret
.end
";
        assert!(errors(src).is_empty(), "{:?}", errors(src));
    }

    #[test]
    fn invalid_utf8_is_reported_with_position() {
        let e = assemble_bytes("t.bc", b"ab\n\xffcd").unwrap_err();
        assert_eq!(e[0].pos, Pos::new(2, 1));
        assert!(e[0].message.contains("binary file"), "{}", e[0].message);
    }

    #[test]
    fn the_first_nul_or_bad_byte_names_a_binary_file() {
        let e = assemble_bytes("t.bc", b"a\n bc\0\xff").unwrap_err();
        assert_eq!((e.len(), e[0].pos), (1, Pos::new(2, 4)));
        assert!(e[0].message.contains("a NUL byte"), "{}", e[0].message);
        assert!(binary_file(b".method main()\n").is_none());
    }
}
