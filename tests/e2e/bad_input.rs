//! Bad input as a new user would give it: empty and comment-only files,
//! binary garbage, a directory, a missing file, 10 MB of random tokens,
//! huge but valid programs. Never a panic, an abort or a hang.

use std::time::Duration;

use crate::harness::{self, Run};

fn run_in(dir: &std::path::Path, args: &[&str]) -> Run {
    harness::run_vm_in(dir, args, harness::DEFAULT_TIMEOUT)
}

/// `vm check` and `vm run` both reject `file` with status 65 and at least
/// one `FILE:LINE:COL: error:` line; returns the diagnostics of `check`.
fn rejected_by_both(dir: &std::path::Path, file: &str) -> Vec<harness::Diag> {
    let check = run_in(dir, &["check", file]);
    check.assert_status(65);
    let diags = check.diagnostics(file);
    assert!(
        !diags.is_empty(),
        "no `{file}:LINE:COL: error:` line:\n{}",
        harness::clip(&check.stderr)
    );
    let run = run_in(dir, &["run", file]);
    run.assert_status(65);
    assert_eq!(run.stdout, "", "a rejected program must not run");
    diags
}

#[test]
fn empty_file_has_no_main() {
    let dir = harness::scratch("empty_file");
    harness::write_program(&dir, "empty.bc", "");
    let d = rejected_by_both(&dir, "empty.bc");
    assert_eq!(
        (d[0].line, d[0].col),
        (1, 1),
        "no `main` is reported at 1:1"
    );
}

#[test]
fn comments_only_has_no_main() {
    let dir = harness::scratch("comments_only");
    harness::write_program(&dir, "c.bc", "; just a comment\n\n   ; another\n");
    let d = rejected_by_both(&dir, "c.bc");
    assert_eq!((d[0].line, d[0].col), (1, 1));
    assert_eq!(d.len(), 1, "only `main` is missing: {d:?}");
}

#[test]
fn binary_garbage_is_rejected() {
    let dir = harness::scratch("binary_garbage");
    let mut bytes = b"\x7fELF\x02\x01\x01\x00\x00\x00".to_vec();
    let mut x: u32 = 12345;
    for _ in 0..4096 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        bytes.push((x >> 16) as u8);
    }
    bytes.extend_from_slice(b"\xff\xfe\xc0\x80");
    std::fs::write(dir.join("garbage.bc"), &bytes).unwrap();
    rejected_by_both(&dir, "garbage.bc");
}

/// A program is one UTF-8 text file: one bad byte, even in a comment,
/// makes it invalid (status 65, not a crash and not "unreadable").
#[test]
fn invalid_utf8_in_a_comment_is_rejected() {
    let dir = harness::scratch("invalid_utf8_comment");
    let mut bytes = b".method main() ; caf".to_vec();
    bytes.push(0xe9); // Latin-1 e-acute: not UTF-8
    bytes.extend_from_slice(b"\n  push 0\n  ret\n.end\n");
    std::fs::write(dir.join("latin1.bc"), &bytes).unwrap();
    rejected_by_both(&dir, "latin1.bc");
}

#[test]
fn nul_bytes_are_rejected() {
    let dir = harness::scratch("nul_bytes");
    harness::write_program(
        &dir,
        "nul.bc",
        ".method main()\n  push\u{0} 0\n  ret\n.end\n",
    );
    rejected_by_both(&dir, "nul.bc");
}

#[test]
fn a_directory_cannot_be_read() {
    let dir = harness::scratch("a_directory");
    std::fs::create_dir_all(dir.join("prog.bc")).unwrap();
    for cmd in ["run", "check", "disasm"] {
        let r = run_in(&dir, &[cmd, "prog.bc"]);
        r.assert_status(66);
        assert_eq!(r.stdout, "");
        assert!(
            r.stderr.contains("prog.bc"),
            "`vm {cmd}` should name the file: {}",
            r.stderr
        );
    }
}

#[test]
fn a_missing_file_cannot_be_read() {
    let dir = harness::scratch("a_missing_file");
    for cmd in ["run", "check", "disasm"] {
        let r = run_in(&dir, &[cmd, "no_such_file.bc"]);
        r.assert_status(66);
        assert_eq!(r.stdout, "");
        assert!(
            r.stderr.contains("no_such_file.bc"),
            "`vm {cmd}` should name the file: {}",
            r.stderr
        );
    }
    let r = run_in(&dir, &["run", "missing_dir/x.bc"]);
    r.assert_status(66);
}

/// A fixed-seed generator (xorshift64*), so the random files are the same
/// on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: [&str; 40] = [
    ".method",
    ".class",
    ".end",
    ".field",
    ".global",
    ".locals",
    ".catch",
    "main()",
    "f(a, b)",
    "A.m(this)",
    "push",
    "pop",
    "load",
    "store",
    "inc",
    "call",
    "callvirt",
    "jmp",
    "jz",
    "ret",
    "add",
    "div",
    "new",
    "getfield",
    "A.x",
    "print",
    "throw",
    "spawn",
    "join",
    "halt",
    "loop:",
    ":",
    ",",
    "(",
    ")",
    "; comment",
    "\"str\\n\"",
    "\"bad\\q\"",
    "\"open",
    "é",
];

/// Roughly `size` bytes of random tokens of the language.
fn random_tokens(seed: u64, size: usize, newlines: bool) -> String {
    let mut rng = Rng(seed);
    let mut s = String::with_capacity(size + 64);
    while s.len() < size {
        match rng.below(10) {
            0..=5 => s.push_str(WORDS[rng.below(WORDS.len())]),
            6 => {
                let n = rng.next() as i64;
                s.push_str(&n.to_string());
                if rng.below(4) == 0 {
                    s.push_str("999999999999");
                }
            }
            7 => {
                let len = 1 + rng.below(12);
                for _ in 0..len {
                    s.push((b'a' + rng.below(26) as u8) as char);
                }
            }
            8 => s.push_str(&format!("0x{:X}", rng.next())),
            _ => s.push_str(["@", "#", "{", "}", "\t", "\\", "\u{1F600}"][rng.below(7)]),
        }
        if newlines && rng.below(6) == 0 {
            s.push('\n');
        } else {
            s.push(' ');
        }
    }
    s
}

/// 10 MB of random tokens: rejected with status 65 in a few seconds.
#[test]
fn ten_megabytes_of_random_tokens() {
    let dir = harness::scratch("ten_megabytes");
    std::fs::write(dir.join("big.bc"), random_tokens(42, 10 << 20, true)).unwrap();
    for cmd in ["check", "run"] {
        let r = harness::run_vm_in(&dir, &[cmd, "big.bc"], Duration::from_secs(60));
        r.assert_status(65);
        assert_eq!(r.stdout, "", "`vm {cmd}`");
        assert!(
            r.elapsed < Duration::from_secs(10),
            "`vm {cmd}` of a 10 MB file took {:?}",
            r.elapsed
        );
        let d = r.diagnostics("big.bc");
        assert!(!d.is_empty(), "no diagnostics");
        let pos: Vec<(u32, u32)> = d.iter().map(|d| (d.line, d.col)).collect();
        assert!(pos.windows(2).all(|w| w[0] <= w[1]), "not sorted");
    }
}

/// 10 MB on a single line.
#[test]
fn ten_megabytes_on_one_line() {
    let dir = harness::scratch("ten_megabytes_one_line");
    std::fs::write(dir.join("line.bc"), random_tokens(7, 10 << 20, false)).unwrap();
    let r = harness::run_vm_in(&dir, &["check", "line.bc"], Duration::from_secs(60));
    r.assert_status(65);
    assert!(r.elapsed < Duration::from_secs(10), "took {:?}", r.elapsed);
}

/// A large valid program (200,000 instructions in one method) loads and
/// runs.
#[test]
fn a_huge_valid_program_runs() {
    let dir = harness::scratch("huge_valid");
    let mut s = String::from(".method main()\n  .locals acc\n");
    for _ in 0..100_000 {
        s.push_str("  inc acc 3\n  nop\n");
    }
    s.push_str("  load acc\n  print\n  push 0\n  ret\n.end\n");
    harness::write_program(&dir, "huge.bc", &s);
    let r = harness::run_vm_in(&dir, &["run", "huge.bc"], Duration::from_secs(60));
    r.assert_status(0);
    assert_eq!(r.stdout, "300000\n");
}

/// A 1 MB string constant is printed as it is.
#[test]
fn a_long_string_constant() {
    let dir = harness::scratch("long_string");
    let text: String = "abcdefghij".repeat(100_000);
    harness::write_program(
        &dir,
        "s.bc",
        &format!(".method main()\n  push \"{text}\"\n  print\n  push 0\n  ret\n.end\n"),
    );
    let r = run_in(&dir, &["run", "s.bc"]);
    r.assert_status(0);
    assert!(
        r.stdout == format!("{text}\n"),
        "the string was not printed as it is"
    );
}

/// A binary file (a NUL byte, or bytes that are not UTF-8) is rejected with
/// one line that names it as binary and echoes none of its bytes.
#[test]
fn a_binary_file_is_named_in_one_line() {
    let dir = harness::scratch("binary_one_line");
    let mut elf = b"\x7fELF\x02\x01\x01\x00\x00\x00".to_vec();
    elf.extend((0..2000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    std::fs::write(dir.join("a.out"), &elf).unwrap();
    let mut latin1 = b".method main() ; caf".to_vec();
    latin1.push(0xe9);
    latin1.extend_from_slice(b"\n  push 0\n  ret\n.end\n");
    std::fs::write(dir.join("latin1.bc"), &latin1).unwrap();
    std::fs::write(
        dir.join("nul.bc"),
        b".method main()\n  push\x00 0\n  ret\n.end\n",
    )
    .unwrap();
    for (file, at) in [("a.out", "1:8"), ("latin1.bc", "1:21"), ("nul.bc", "2:7")] {
        for cmd in ["check", "run", "disasm"] {
            let r = run_in(&dir, &[cmd, file]);
            r.assert_status(65);
            assert_eq!(r.stdout, "", "`vm {cmd} {file}`");
            let lines = r.stderr_lines();
            assert_eq!(lines.len(), 1, "`vm {cmd} {file}`: one line:\n{}", r.stderr);
            let line = lines[0];
            assert!(
                line.starts_with(&format!("{file}:{at}: error: ")) && line.contains("binary file"),
                "`vm {cmd} {file}`: {line:?}"
            );
            assert!(
                line.chars()
                    .all(|c| c == '\t' || (!c.is_control() && c != '\u{fffd}'))
                    && !line.contains("ELF"),
                "`vm {cmd} {file}` echoes the file's bytes: {line:?}"
            );
        }
    }
}
