//! The machinery shared by the end-to-end tests: running the real `vm`
//! binary, and checking the table-driven test programs.
//!
//! # Test program convention
//!
//! Test programs live in `tests/programs/CATEGORY/NAME.bc`. A table-driven
//! test walks one directory and checks every `.bc` file in it; it reports
//! every failing file by name (it does not stop at the first) and also fails
//! if the directory holds no program or an `.out` file without its `.bc`.
//!
//! Every program is run with the program's directory as the working
//! directory and `NAME.bc` as the path, so traces read `at main (NAME.bc:7)`
//! and diagnostics `NAME.bc:3:5: error: ...`.
//!
//! Expectations are header comments: the lines at the top of the file that
//! start with `;`. A header line `; KEY: VALUE` (KEY lower-case letters and
//! `-`) is a directive; any other comment line is free text. An unknown KEY is
//! an error, so that a misspelt directive cannot silently test nothing.
//!
//! Programs that run (every category except `verifier`):
//!
//! - `NAME.out` next to the program holds the exact expected stdout (it may
//!   be empty). It is required.
//! - `; status: N` the expected exit status of `vm run`; default `0`.
//! - `; args: A B ...` extra arguments after `vm run NAME.bc`.
//! - `; stderr: TEXT` this exact line appears on stderr (repeatable). One
//!   space after the colon is dropped; the rest, leading spaces included, is
//!   the line.
//! - `; runtime-error: K1, K2|K3` stderr has a line `runtime error: MESSAGE`
//!   whose MESSAGE contains (case-insensitively) every comma-separated group,
//!   a group matching if any of its `|`-separated alternatives occurs. Used
//!   where the language reference fixes the kind of error but not the wording. Without this
//!   directive, stderr must have no `runtime error:` line.
//! - `; uncaught: VALUE` stderr has the exact line `uncaught exception: VALUE`.
//!   Without this directive or a `stderr:` line naming one, stderr must have no
//!   `uncaught exception:` line.
//! - `; trace: M1:L1 M2:L2 ...` the lines right after the FIRST
//!   `runtime error:` / `uncaught exception:` line on stderr that start with
//!   two spaces are exactly `  at M1 (NAME.bc:L1)`, `  at M2 (NAME.bc:L2)`,
//!   ... (innermost frame first).
//! - `; sort-stdout: yes` compare stdout and `NAME.out` as sorted lines (for
//!   threads, whose relative order is free).
//! - `; timeout: SECONDS` the run must end within this time (default 60).
//! - `; covers: M1 M2 ...` (instructions only) the mnemonics this program is
//!   the test of; `instructions.rs` checks that all 58 are covered.
//!
//! Such a program must also pass `vm check NAME.bc` (status 0): the verifier
//! checks stack heights, not kinds, so runtime errors are not its business.
//!
//! Programs that must be rejected (`tests/programs/verifier`):
//!
//! - `; error-at: POS` `vm check NAME.bc` exits 65 and its FIRST diagnostic
//!   (a stderr line `NAME.bc:LINE:COL: error: MESSAGE`) is at POS. POS is
//!   `LINE:COL`, or `LINE` alone where the language reference fixes no column, or `any`
//!   where it fixes no position; alternatives the language reference allows equally are
//!   joined with ` or ` (e.g. `8:12 or 8:14` for `C.F` versus `F`).
//! - `; errors: L:C L:C ...` the diagnostics are exactly these, in this order.
//!
//! For every rejected program the table also checks that the diagnostics are
//! sorted by position, that each is followed by the source line and a caret
//! line whose `^` stands under the reported column, and that `vm run
//! NAME.bc` also exits 65, prints nothing on stdout and reports the same
//! positions.
//!
//! Every run, in every test, must end on its own (no timeout), with an exit
//! status (not killed by a signal: no abort), and without "panicked" or
//! "RUST_BACKTRACE" on stderr.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `vm` binary under test.
pub const VM: &str = env!("CARGO_BIN_EXE_vm");

/// Default time limit of one run.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// `tests/programs/CATEGORY`.
pub fn programs_dir(category: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("programs")
        .join(category)
}

/// A fresh, empty scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = scratch_path(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

/// Where [`scratch`] makes the directory `name` (without touching it).
pub fn scratch_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("e2e")
        .join(name)
}

/// What one run of `vm` did.
#[derive(Debug)]
pub struct Run {
    /// The command line, for messages.
    pub cmd: String,
    /// Exit status; `None` if killed by a signal (or by the timeout).
    pub status: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    pub timed_out: bool,
}

impl Run {
    pub fn stderr_lines(&self) -> Vec<&str> {
        self.stderr.lines().collect()
    }

    /// Why this run counts as a crash (timeout, signal, panic), if it does.
    pub fn crash(&self) -> Option<String> {
        if self.timed_out {
            return Some(format!(
                "`{}` did not finish within {:?} (killed)",
                self.cmd, self.elapsed
            ));
        }
        if self.status.is_none() {
            return Some(format!(
                "`{}` was killed by a signal (abort or crash); stderr:\n{}",
                self.cmd,
                clip(&self.stderr)
            ));
        }
        for bad in ["panicked", "RUST_BACKTRACE"] {
            if self.stderr.contains(bad) {
                return Some(format!(
                    "`{}` printed {bad:?} on stderr (a Rust panic):\n{}",
                    self.cmd,
                    clip(&self.stderr)
                ));
            }
        }
        None
    }

    /// Panics if the run crashed.
    pub fn assert_no_crash(&self) {
        if let Some(c) = self.crash() {
            panic!("{c}");
        }
    }

    /// Panics unless the run exited with `status` (and did not crash).
    pub fn assert_status(&self, status: i32) {
        self.assert_no_crash();
        assert_eq!(
            self.status,
            Some(status),
            "`{}`: expected exit status {status}, got {:?}\nstdout:\n{}\nstderr:\n{}",
            self.cmd,
            self.status,
            clip(&self.stdout),
            clip(&self.stderr)
        );
    }

    /// Diagnostics `FILE:LINE:COL: error: MESSAGE` on stderr, for `file`.
    pub fn diagnostics(&self, file: &str) -> Vec<Diag> {
        parse_diagnostics(&self.stderr, file)
    }
}

/// Shortens long output for failure messages.
pub fn clip(s: &str) -> String {
    const MAX: usize = 3000;
    if s.len() <= MAX {
        s.to_string()
    } else {
        let mut end = MAX;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}\n... ({} bytes in all)", &s[..end], s.len())
    }
}

/// Runs `vm ARGS` in `dir`, killing it after `timeout`.
pub fn run_vm_in(dir: &Path, args: &[&str], timeout: Duration) -> Run {
    run_vm_with(dir, args, Stdio::piped(), timeout)
}

/// Runs `vm ARGS` in `dir` with `stdout` as its standard output (a file,
/// as a shell's `> FILE` gives it; the run's `stdout` is then empty),
/// killing it after `timeout`.
pub fn run_vm_with(dir: &Path, args: &[&str], stdout: Stdio, timeout: Duration) -> Run {
    let cmd = format!("vm {}", args.join(" "));
    let start = Instant::now();
    let mut child = Command::new(VM)
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {VM}: {e}"));
    let out = child.stdout.take();
    let mut err = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        if let Some(mut out) = out {
            let _ = out.read_to_end(&mut v);
        }
        v
    });
    let err_reader = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait().expect("wait for vm") {
            Some(s) => break s,
            None if start.elapsed() > timeout => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().expect("wait for killed vm");
            }
            None => std::thread::sleep(Duration::from_millis(2)),
        }
    };
    let elapsed = start.elapsed();
    let stdout = out_reader.join().expect("stdout reader");
    let stderr = err_reader.join().expect("stderr reader");
    Run {
        cmd,
        status: if timed_out { None } else { status.code() },
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        elapsed,
        timed_out,
    }
}

/// Runs `vm ARGS` in the package root with the default time limit.
pub fn vm(args: &[&str]) -> Run {
    run_vm_in(Path::new(env!("CARGO_MANIFEST_DIR")), args, DEFAULT_TIMEOUT)
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write_program(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write program");
    p
}

/// One diagnostic line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    pub line: u32,
    pub col: u32,
    pub message: String,
    /// Index of the diagnostic's line in the text it came from.
    pub at: usize,
}

/// Finds `FILE:LINE:COL: error: MESSAGE` lines in `text`.
pub fn parse_diagnostics(text: &str, file: &str) -> Vec<Diag> {
    let prefix = format!("{file}:");
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let Some(rest) = l.strip_prefix(&prefix) else {
            continue;
        };
        let mut parts = rest.splitn(3, ':');
        let (Some(a), Some(b), Some(tail)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (Ok(line), Ok(col)) = (a.parse::<u32>(), b.parse::<u32>()) else {
            continue;
        };
        let Some(message) = tail.strip_prefix(" error: ") else {
            continue;
        };
        out.push(Diag {
            line,
            col,
            message: message.to_string(),
            at: i,
        });
    }
    out
}

/// Checks that each diagnostic in `stderr` is followed by the source line
/// and a caret under its column. Returns the problems found.
pub fn check_carets(stderr: &str, diags: &[Diag], source: &str) -> Vec<String> {
    let err_lines: Vec<&str> = stderr.lines().collect();
    let src_lines: Vec<&str> = source.split('\n').collect();
    let mut problems = Vec::new();
    for (k, d) in diags.iter().enumerate() {
        let Some(src) = src_lines.get(d.line as usize - 1) else {
            problems.push(format!(
                "diagnostic at {}:{} names a line past the end of the file",
                d.line, d.col
            ));
            continue;
        };
        let src = src.strip_suffix('\r').unwrap_or(src);
        if src.trim().is_empty() || src.contains('\t') {
            continue; // nothing sensible to look for
        }
        let end = diags.get(k + 1).map_or(err_lines.len(), |n| n.at);
        let block = &err_lines[d.at + 1..end];
        let Some(pos) = block.iter().position(|l| l.ends_with(src)) else {
            problems.push(format!(
                "diagnostic at {}:{} is not followed by its source line {src:?}",
                d.line, d.col
            ));
            continue;
        };
        let shown = block[pos];
        let start = shown.chars().count() - src.chars().count();
        let want = start + d.col as usize - 1;
        let caret_ok = block
            .get(pos + 1)
            .map(|c| {
                let chars: Vec<char> = c.chars().collect();
                chars.get(want) == Some(&'^')
            })
            .unwrap_or(false);
        if !caret_ok {
            problems.push(format!(
                "diagnostic at {}:{}: no caret under column {} after the source line:\n{}\n{}",
                d.line,
                d.col,
                d.col,
                shown,
                block.get(pos + 1).copied().unwrap_or("<no line>")
            ));
        }
    }
    problems
}

/// A position pattern of `; error-at:`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PosPat {
    Exact(u32, u32),
    Line(u32),
    Any,
}

impl PosPat {
    fn matches(&self, line: u32, col: u32) -> bool {
        match *self {
            PosPat::Exact(l, c) => l == line && c == col,
            PosPat::Line(l) => l == line,
            PosPat::Any => true,
        }
    }
}

/// The expectations of one test program (see the module docs).
#[derive(Clone, Debug)]
pub struct Expect {
    pub status: i32,
    pub args: Vec<String>,
    pub stderr_lines: Vec<String>,
    pub runtime_error: Option<Vec<Vec<String>>>,
    pub uncaught: Option<String>,
    pub trace: Option<Vec<(String, u32)>>,
    pub sort_stdout: bool,
    pub timeout: Duration,
    pub covers: Vec<String>,
    pub error_at: Option<Vec<PosPat>>,
    pub errors: Option<Vec<(u32, u32)>>,
}

impl Default for Expect {
    fn default() -> Self {
        Expect {
            status: 0,
            args: Vec::new(),
            stderr_lines: Vec::new(),
            runtime_error: None,
            uncaught: None,
            trace: None,
            sort_stdout: false,
            timeout: DEFAULT_TIMEOUT,
            covers: Vec::new(),
            error_at: None,
            errors: None,
        }
    }
}

fn parse_pos(s: &str) -> Result<(u32, u32), String> {
    let (l, c) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}` is not LINE:COL"))?;
    Ok((
        l.parse().map_err(|_| format!("bad line in `{s}`"))?,
        c.parse().map_err(|_| format!("bad column in `{s}`"))?,
    ))
}

/// Reads the header directives of `text`. With `strict`, unknown keys and
/// malformed values are errors; otherwise (the examples, written by others)
/// only `status` and `args` are read and everything else is ignored.
pub fn parse_header(text: &str, strict: bool) -> Result<Expect, String> {
    let mut e = Expect::default();
    for line in text.lines() {
        let Some(body) = line.strip_prefix(';') else {
            break;
        };
        let body = body.strip_prefix(' ').unwrap_or(body);
        let Some((key, value)) = body.split_once(':') else {
            continue;
        };
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
            continue;
        }
        let raw = value.strip_prefix(' ').unwrap_or(value);
        let v = value.trim();
        if !strict && key != "status" && key != "args" {
            continue;
        }
        match key {
            "status" => {
                e.status = v
                    .parse()
                    .map_err(|_| format!("`; status: {v}` is not an integer"))?
            }
            "args" => e.args = v.split_whitespace().map(String::from).collect(),
            "stderr" => e.stderr_lines.push(raw.to_string()),
            "runtime-error" => {
                e.runtime_error = Some(
                    v.split(',')
                        .map(|g| {
                            g.split('|')
                                .map(|a| a.trim().to_lowercase())
                                .filter(|a| !a.is_empty())
                                .collect()
                        })
                        .collect(),
                )
            }
            "uncaught" => e.uncaught = Some(raw.to_string()),
            "trace" => {
                let mut t = Vec::new();
                for item in v.split_whitespace() {
                    let (m, l) = item
                        .rsplit_once(':')
                        .ok_or_else(|| format!("trace item `{item}` is not METHOD:LINE"))?;
                    t.push((
                        m.to_string(),
                        l.parse()
                            .map_err(|_| format!("trace item `{item}` has a bad line"))?,
                    ));
                }
                e.trace = Some(t);
            }
            "sort-stdout" => e.sort_stdout = v == "yes",
            "timeout" => {
                e.timeout = Duration::from_secs(
                    v.parse()
                        .map_err(|_| format!("`; timeout: {v}` is not a number of seconds"))?,
                )
            }
            "covers" => e.covers = v.split_whitespace().map(String::from).collect(),
            "error-at" => {
                let mut alts = Vec::new();
                for a in v.split(" or ") {
                    let a = a.trim();
                    alts.push(if a == "any" {
                        PosPat::Any
                    } else if a.contains(':') {
                        let (l, c) = parse_pos(a)?;
                        PosPat::Exact(l, c)
                    } else {
                        PosPat::Line(a.parse().map_err(|_| format!("bad error-at `{a}`"))?)
                    });
                }
                e.error_at = Some(alts);
            }
            "errors" => {
                e.errors = Some(
                    v.split_whitespace()
                        .map(parse_pos)
                        .collect::<Result<_, _>>()?,
                )
            }
            other => return Err(format!("unknown header directive `; {other}:`")),
        }
    }
    Ok(e)
}

/// The `.bc` files of a directory, sorted by name.
pub fn bc_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "bc"))
        .collect();
    v.sort();
    v
}

/// `.out` files without a `.bc` next to them.
pub fn orphan_outs(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("list dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "out"))
        .filter(|p| !p.with_extension("bc").exists())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn file_name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

fn sorted_lines(s: &str) -> Vec<&str> {
    let mut v: Vec<&str> = s.lines().collect();
    v.sort_unstable();
    v
}

/// The lines that start with two spaces right after the first
/// `runtime error:` / `uncaught exception:` line of `stderr`.
pub fn trace_after_first_error(stderr: &str) -> Option<Vec<&str>> {
    let lines: Vec<&str> = stderr.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.starts_with("runtime error: ") || l.starts_with("uncaught exception: "))?;
    Some(
        lines[i + 1..]
            .iter()
            .take_while(|l| l.starts_with("  "))
            .copied()
            .collect(),
    )
}

/// Checks a program that runs (see the module docs); returns the failures.
pub fn check_running_program(path: &Path, e: &Expect, extra_args: &[&str]) -> Vec<String> {
    let dir = path.parent().expect("program dir");
    let name = file_name(path);
    let mut f = Vec::new();
    let out_path = path.with_extension("out");
    let Ok(expected) = std::fs::read_to_string(&out_path) else {
        return vec![format!("missing {}", file_name(&out_path))];
    };

    // It must verify: the verifier checks heights, not kinds.
    let check = run_vm_in(dir, &["check", &name], e.timeout);
    if let Some(c) = check.crash() {
        f.push(c);
    } else if check.status != Some(0) {
        f.push(format!(
            "`vm check` should accept it (status 0), got {:?}:\n{}",
            check.status,
            clip(&check.stderr)
        ));
    }

    let mut args: Vec<&str> = vec!["run", &name];
    args.extend(e.args.iter().map(String::as_str));
    args.extend(extra_args);
    let r = run_vm_in(dir, &args, e.timeout);
    if let Some(c) = r.crash() {
        f.push(c);
        return f;
    }
    if r.status != Some(e.status) {
        f.push(format!(
            "exit status: expected {}, got {:?}",
            e.status, r.status
        ));
    }
    let stdout_ok = if e.sort_stdout {
        sorted_lines(&r.stdout) == sorted_lines(&expected)
            && r.stdout.ends_with('\n') == expected.ends_with('\n')
    } else {
        r.stdout == expected
    };
    if !stdout_ok {
        f.push(format!(
            "stdout differs{}\n--- expected\n{}--- got\n{}---",
            if e.sort_stdout {
                " (as sorted lines)"
            } else {
                ""
            },
            clip(&expected),
            clip(&r.stdout)
        ));
    }
    let lines = r.stderr_lines();
    for want in &e.stderr_lines {
        if !lines.iter().any(|l| l == want) {
            f.push(format!("stderr lacks the line {want:?}"));
        }
    }
    let rt: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("runtime error: "))
        .collect();
    match &e.runtime_error {
        Some(groups) => match rt.first() {
            None => f.push("stderr has no `runtime error: ` line".into()),
            Some(msg) => {
                let lower = msg.to_lowercase();
                for g in groups {
                    if !g.iter().any(|alt| lower.contains(alt.as_str())) {
                        f.push(format!(
                            "runtime error message {msg:?} mentions none of {}",
                            g.join(" | ")
                        ));
                    }
                }
            }
        },
        None => {
            if let Some(msg) = rt.first() {
                f.push(format!("unexpected `runtime error: {msg}`"));
            }
        }
    }
    let expects_uncaught = e.uncaught.is_some()
        || e.stderr_lines
            .iter()
            .any(|l| l.starts_with("uncaught exception: "));
    match &e.uncaught {
        Some(v) => {
            let want = format!("uncaught exception: {v}");
            if !lines.iter().any(|l| *l == want) {
                f.push(format!("stderr lacks the line {want:?}"));
            }
        }
        None if !expects_uncaught => {
            if let Some(l) = lines.iter().find(|l| l.starts_with("uncaught exception: ")) {
                f.push(format!("unexpected {l:?}"));
            }
        }
        None => {}
    }
    if let Some(trace) = &e.trace {
        let want: Vec<String> = trace
            .iter()
            .map(|(m, l)| format!("  at {m} ({name}:{l})"))
            .collect();
        match trace_after_first_error(&r.stderr) {
            None => f.push(
                "no trace: stderr has no `runtime error:` or `uncaught exception:` line".into(),
            ),
            Some(got) => {
                if got != want {
                    f.push(format!(
                        "trace differs\n--- expected\n{}\n--- got\n{}\n---",
                        want.join("\n"),
                        got.join("\n")
                    ));
                }
            }
        }
    }
    if !f.is_empty() {
        f.push(format!(
            "(full stderr of `{}`:)\n{}",
            r.cmd,
            clip(&r.stderr)
        ));
    }
    f
}

/// Checks a program the verifier must reject; returns the failures.
pub fn check_rejected_program(path: &Path, e: &Expect) -> Vec<String> {
    let dir = path.parent().expect("program dir");
    let name = file_name(path);
    let source = std::fs::read_to_string(path).expect("read program");
    let mut f = Vec::new();
    if e.error_at.is_none() && e.errors.is_none() {
        return vec!["a verifier test needs `; error-at:` or `; errors:`".into()];
    }
    let check = run_vm_in(dir, &["check", &name], e.timeout);
    if let Some(c) = check.crash() {
        return vec![c];
    }
    if check.status != Some(65) {
        f.push(format!(
            "`vm check`: expected status 65, got {:?}",
            check.status
        ));
    }
    let diags = check.diagnostics(&name);
    let positions: Vec<(u32, u32)> = diags.iter().map(|d| (d.line, d.col)).collect();
    if diags.is_empty() {
        f.push("`vm check` printed no `FILE:LINE:COL: error: ` line on stderr".into());
    } else {
        let mut sorted = positions.clone();
        sorted.sort();
        if sorted != positions {
            f.push(format!(
                "diagnostics are not sorted by position: {positions:?}"
            ));
        }
        if let Some(alts) = &e.error_at {
            let (l, c) = positions[0];
            if !alts.iter().any(|a| a.matches(l, c)) {
                f.push(format!(
                    "first diagnostic at {l}:{c}, expected {}",
                    alts.iter()
                        .map(|a| match a {
                            PosPat::Exact(l, c) => format!("{l}:{c}"),
                            PosPat::Line(l) => format!("line {l}"),
                            PosPat::Any => "anywhere".into(),
                        })
                        .collect::<Vec<_>>()
                        .join(" or ")
                ));
            }
        }
        if let Some(all) = &e.errors {
            if *all != positions {
                f.push(format!(
                    "diagnostics at {:?}, expected exactly {:?}",
                    positions, all
                ));
            }
        }
        f.extend(check_carets(&check.stderr, &diags, &source));
    }
    let run = run_vm_in(dir, &["run", &name], e.timeout);
    if let Some(c) = run.crash() {
        f.push(c);
    } else {
        if run.status != Some(65) {
            f.push(format!(
                "`vm run`: expected status 65, got {:?}",
                run.status
            ));
        }
        if !run.stdout.is_empty() {
            f.push(format!(
                "`vm run` of a rejected program wrote to stdout:\n{}",
                clip(&run.stdout)
            ));
        }
        let run_pos: Vec<(u32, u32)> = run
            .diagnostics(&name)
            .iter()
            .map(|d| (d.line, d.col))
            .collect();
        if run_pos != positions {
            f.push(format!(
                "`vm run` reports {run_pos:?}, `vm check` {positions:?}"
            ));
        }
    }
    if !f.is_empty() {
        f.push(format!(
            "(full stderr of `{}`:)\n{}",
            check.cmd,
            clip(&check.stderr)
        ));
    }
    f
}

/// How the programs of a directory are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Programs that run: `check_running_program`.
    Run,
    /// Programs the verifier rejects: `check_rejected_program`.
    Reject,
}

/// Checks every program of `tests/programs/CATEGORY`; panics listing every
/// failing file. `extra_args` are appended to every `vm run`.
pub fn check_dir(category: &str, mode: Mode, extra_args: &[&str]) {
    let dir = programs_dir(category);
    let files = bc_files(&dir);
    assert!(!files.is_empty(), "no programs in {}", dir.display());
    let mut report = String::new();
    let mut failed = 0;
    for path in &files {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                failed += 1;
                let _ = writeln!(report, "\n=== {}: cannot read: {e}", file_name(path));
                continue;
            }
        };
        let failures = match parse_header(&text, true) {
            Err(e) => vec![format!("bad header: {e}")],
            Ok(e) => match mode {
                Mode::Run if e.error_at.is_some() || e.errors.is_some() => {
                    vec!["`error-at`/`errors` belong in tests/programs/verifier".into()]
                }
                Mode::Run => check_running_program(path, &e, extra_args),
                Mode::Reject => check_rejected_program(path, &e),
            },
        };
        if !failures.is_empty() {
            failed += 1;
            let _ = writeln!(report, "\n=== {}", file_name(path));
            for x in failures {
                let _ = writeln!(report, "  - {}", x.replace('\n', "\n    "));
            }
        }
    }
    let orphans = orphan_outs(&dir);
    if !orphans.is_empty() {
        failed += 1;
        let _ = writeln!(report, "\n=== .out files without a program: {orphans:?}");
    }
    if failed > 0 {
        panic!(
            "{failed} of {} programs in tests/programs/{category} failed{}:\n{report}",
            files.len(),
            if extra_args.is_empty() {
                String::new()
            } else {
                format!(" (with {})", extra_args.join(" "))
            }
        );
    }
}

/// Runs `check(dir, seed)` for every seed below `count` on two threads,
/// each seed in its own fresh directory `scratch(name)/s{seed}`, and fails
/// the test listing every failure; returns the successes' values (in no
/// particular order). For the tests of seeded program generators.
pub fn check_seeds<T: Send>(
    name: &str,
    count: u64,
    check: impl Fn(&Path, u64) -> Result<T, String> + Sync,
) -> Vec<T> {
    let dir = scratch(name);
    let next = std::sync::Mutex::new(0u64);
    let results = std::sync::Mutex::new(Vec::new());
    let failures = std::sync::Mutex::new(Vec::<String>::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let seed = {
                    let mut n = next.lock().unwrap();
                    *n += 1;
                    *n - 1
                };
                if seed >= count {
                    break;
                }
                let sub = dir.join(format!("s{seed}"));
                std::fs::create_dir_all(&sub).expect("scratch");
                match check(&sub, seed) {
                    Ok(v) => results.lock().unwrap().push(v),
                    Err(e) => failures.lock().unwrap().push(e),
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} programs differ:\n{}",
        failures.len(),
        clip(&failures.join("\n\n"))
    );
    results.into_inner().unwrap()
}

/// A seeded program generator is deterministic, gives different programs
/// for different seeds, and its programs pass `vm check`.
pub fn assert_generator_valid(name: &str, program: impl Fn(u64) -> String) {
    assert_eq!(program(7), program(7));
    assert_ne!(program(7), program(8));
    let dir = scratch(name);
    for seed in 0..20 {
        let file = format!("gen{seed}.bc");
        write_program(&dir, &file, &program(seed));
        let r = run_vm_in(&dir, &["check", &file], DEFAULT_TIMEOUT);
        r.assert_status(0);
    }
}

/// The peak resident memory, in KiB, that `vm ... --stats` printed on
/// `stderr` (`peak-rss-kb N`).
pub fn peak_rss_kb(stderr: &str) -> u64 {
    stderr
        .split("peak-rss-kb ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("--stats gives the peak resident memory:\n{}", clip(stderr)))
}
