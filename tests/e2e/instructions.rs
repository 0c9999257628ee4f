//! One small program per instruction (`tests/programs/instructions`), with
//! its exact expected stdout: semantics details such as wrapping arithmetic,
//! `MIN div -1`, the sign of `rem`, shifts by `b & 63`, equality across
//! kinds, truthiness of `0` and `null`, and the print formats.

use crate::harness::{self, Mode};

/// Every mnemonic of the documented instruction table.
const MNEMONICS: [&str; 58] = [
    "push",
    "null",
    "pop",
    "dup",
    "swap",
    "over",
    "load",
    "store",
    "inc",
    "getglobal",
    "putglobal",
    "addglobal",
    "add",
    "sub",
    "mul",
    "div",
    "rem",
    "neg",
    "and",
    "or",
    "xor",
    "shl",
    "shr",
    "not",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "jmp",
    "jz",
    "jnz",
    "jeq",
    "jne",
    "jlt",
    "jle",
    "jgt",
    "jge",
    "call",
    "callvirt",
    "ret",
    "new",
    "getfield",
    "putfield",
    "instanceof",
    "isclass",
    "newarray",
    "aload",
    "astore",
    "alen",
    "print",
    "throw",
    "spawn",
    "join",
    "sleep",
    "halt",
    "nop",
];

#[test]
fn instruction_programs() {
    harness::check_dir("instructions", Mode::Run, &[]);
}

/// Yieldpoints are invisible to program semantics: the same programs give
/// the same results when loaded without them.
#[test]
fn instruction_programs_without_yieldpoints() {
    harness::check_dir("instructions", Mode::Run, &["--no-yieldpoints"]);
}

/// The mnemonic of an instruction line (after an optional label), if any.
fn mnemonic(line: &str) -> Option<&str> {
    let code = line.split(';').next().unwrap_or("");
    let mut words = code.split_whitespace();
    let mut first = words.next()?;
    if first.ends_with(':') {
        first = words.next()?; // a label in front of the instruction
    }
    (!first.starts_with('.')).then_some(first)
}

/// Every one of the 58 mnemonics is the declared subject (`; covers:`) of a
/// program that really uses it, and both forms of `push` are tested.
#[test]
fn every_mnemonic_has_a_program() {
    let dir = harness::programs_dir("instructions");
    let mut covered: Vec<(String, String)> = Vec::new();
    let mut problems = Vec::new();
    for path in harness::bc_files(&dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let e = harness::parse_header(&text, true).unwrap_or_default();
        let used: Vec<&str> = text.lines().filter_map(mnemonic).collect();
        if e.covers.is_empty() {
            problems.push(format!("{name} has no `; covers:` line"));
        }
        for m in &e.covers {
            if !MNEMONICS.contains(&m.as_str()) {
                problems.push(format!("{name} covers `{m}`, which is not an instruction"));
            } else if !used.contains(&m.as_str()) {
                problems.push(format!("{name} covers `{m}` but never uses it"));
            }
            covered.push((m.clone(), name.clone()));
        }
    }
    for m in MNEMONICS {
        if !covered.iter().any(|(c, _)| c == m) {
            problems.push(format!("no program covers `{m}`"));
        }
    }
    let int_form = std::fs::read_to_string(dir.join("push_int.bc")).unwrap_or_default();
    let str_form = std::fs::read_to_string(dir.join("push_str.bc")).unwrap_or_default();
    if !int_form
        .lines()
        .any(|l| l.trim_start().starts_with("push -"))
    {
        problems.push("push_int.bc should push a negative integer".into());
    }
    if !str_form
        .lines()
        .any(|l| l.trim_start().starts_with("push \""))
    {
        problems.push("push_str.bc should push a string".into());
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
