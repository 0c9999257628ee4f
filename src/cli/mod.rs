//! Command dispatch and the steps every command shares (reading and
//! assembling a program file).

mod args;
mod check;
mod compare;
mod disasm;
mod experiment;
mod inline;
mod limits;
mod output_file;
mod profile_args;
mod report;
mod report_folded;
mod run;
mod signals;

use std::path::Path;

use profile::{Profile, ReadError, FORMAT};
use vm::stdio::Stream;

use clap::Parser;

pub use args::{Cli, Command};

/// Exit status: bad command-line usage.
pub const EXIT_USAGE: i32 = 2;
/// Exit status: the program does not assemble or verify.
pub const EXIT_INVALID: i32 = 65;
/// Exit status: a file cannot be read.
pub const EXIT_NO_INPUT: i32 = 66;
/// Exit status: a runtime error of the program, and a failure of the
/// VM's own resources (memory past the reserve, a thread of the profiler
/// or the controller that the system refuses).
pub const EXIT_RUNTIME: i32 = vm::runtime::STATUS_RUNTIME_ERROR;

/// A command's failure: what to print on stderr and the exit status.
#[derive(Debug)]
pub struct Failure {
    pub status: i32,
    pub message: String,
}

impl Failure {
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            status: EXIT_USAGE,
            message: message.into(),
        }
    }

    /// A thread of the VM's own that the system would not start, so the
    /// program never ran: `vm: cannot start the profiler's timer thread:
    /// ...`, status 70.
    pub fn not_started(e: &profiler::StartError) -> Failure {
        Failure {
            status: EXIT_RUNTIME,
            message: format!("vm: {e}"),
        }
    }
}

/// Parses the command line and runs the command; returns the exit status
/// ([`finish`]).
pub fn main() -> i32 {
    signals::install();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let (stream, status) = if e.use_stderr() {
                (Stream::Stderr, EXIT_USAGE)
            } else {
                (Stream::Stdout, 0)
            };
            if let Err(err) = e.print() {
                vm::stdio::note(stream, &err);
            }
            return finish(status);
        }
    };
    let result = match cli.command {
        Command::Run(a) => run::run(*a),
        Command::Check(a) => check::check(a),
        Command::Disasm(a) => disasm::disasm(a),
        Command::Compare(a) => compare::compare(a),
        Command::Inline(a) => inline::inline(*a),
        Command::Report(a) => report::report(a),
        Command::Experiment(a) => experiment::experiment(a),
    };
    let status = match result {
        Ok(status) => status,
        Err(f) => {
            if !f.message.is_empty() {
                vm::stdio::eprintln(f.message.trim_end());
            }
            f.status
        }
    };
    finish(status)
}

/// The status a command ends with, `status` being its own, once stdout is
/// flushed (docs/CLI.md, "Signals and write errors"): 128 + the signal
/// that interrupted it; else 141 if stdout's or stderr's reader went away
/// (quietly, as for any Unix tool); else 74 if either could not be written
/// (with one line on stderr for stdout); else `status`.
fn finish(status: i32) -> i32 {
    use vm::interrupt::{STATUS_BROKEN_PIPE, STATUS_WRITE_ERROR};
    vm::stdio::flush_stdout();
    if let Some(sig) = signals::received() {
        return 128 + sig;
    }
    let failed = [Stream::Stdout, Stream::Stderr].map(vm::stdio::failure);
    let failed = failed.iter().flatten();
    if failed.clone().any(|f| f.broken_pipe) {
        return STATUS_BROKEN_PIPE;
    }
    match failed.clone().next() {
        Some(f) => {
            if f.stream == Stream::Stdout {
                vm::stdio::eprintln(&format!("vm: cannot write to stdout: {}", f.reason()));
            }
            STATUS_WRITE_ERROR
        }
        None => status,
    }
}

/// Diagnostics printed for one file; the rest are counted ("... and N
/// more"), so that a mangled or generated file cannot flood the terminal.
pub const MAX_DIAGNOSTICS: usize = 100;

/// Reads and assembles `path`: 66 if it cannot be read or is larger than
/// `max_source` bytes, 65 with every diagnostic if it does not assemble or
/// verify.
pub fn load_module(path: &Path, max_source: u64) -> Result<vm::module::Module, Failure> {
    let shown = path.display().to_string();
    let bytes = limits::read_bounded(path, max_source)?;
    if let Some(d) = vm::verify::binary_file(&bytes) {
        // One line, without the usual source line: the bytes are not text.
        return Err(Failure {
            status: EXIT_INVALID,
            message: format!("{shown}:{}: error: {}", d.pos, d.message),
        });
    }
    vm::verify::assemble_bytes(&shown, &bytes).map_err(|diags| {
        let text = String::from_utf8_lossy(&bytes);
        let shown_diags = &diags[..diags.len().min(MAX_DIAGNOSTICS)];
        let mut message = vm::diag::render(&shown, &text, shown_diags);
        let n = diags.len();
        if n > shown_diags.len() {
            message.push_str(&format!("... and {} more\n", n - shown_diags.len()));
        }
        message.push_str(&format!(
            "{n} error{} in {shown}\n",
            if n == 1 { "" } else { "s" }
        ));
        Failure {
            status: EXIT_INVALID,
            message,
        }
    })
}

/// A usage error unless `profile` (read from `path`) and `reference`
/// (from `ref_path`) are profiles of the same program (by file name, as
/// [`profile::report::program_name`] tells): `what` says which command
/// needs it (`--against`, `vm compare`).
pub fn same_program(
    (profile, path): (&Profile, &Path),
    (reference, ref_path): (&Profile, &Path),
    what: &str,
) -> Result<(), Failure> {
    if profile::report::program_name(profile) == profile::report::program_name(reference) {
        return Ok(());
    }
    Err(Failure::usage(format!(
        "vm: `{}` is a profile of `{}` but `{}` is one of `{}`: {what} needs a \
         profile of the same program",
        path.display(),
        profile.program,
        ref_path.display(),
        reference.program
    )))
}

/// Reads a profile file (`vm compare`, `vm inline --from-profile`: one
/// reader, one set of messages): 66 if it cannot be read or is larger than
/// `max_source` bytes, 65 if it is not a `vm-profile/1` profile (bytes
/// that are not UTF-8 included).
///
/// A regular file is read streaming ([`Profile::read_streaming`]): the
/// text of a big profile is never in memory whole. When that gives up (a
/// file not of the profiler's shape, or not a good profile), and for a
/// pipe, the file is read whole and parsed by [`Profile::from_bytes`],
/// which reads it or says what is wrong: the messages are the same either
/// way.
pub fn load_profile(path: &Path, max_source: u64) -> Result<Profile, Failure> {
    let (file, size) = limits::open_bounded(path, max_source)?;
    if size.is_some() {
        let mut bounded = std::io::Read::take(file, max_source.saturating_add(1));
        match Profile::read_streaming(&mut bounded, size) {
            // All of it came and no more than the limit: a file that grew
            // past it is refused below.
            Ok(Some(p)) if bounded.limit() > 0 => return Ok(p),
            Err(e) => return Err(limits::cannot(path, io_reason(&e))),
            _ => {}
        }
    }
    load_whole(path, max_source)
}

/// [`load_profile`] of the file read whole first: the general path, and
/// what the streaming one must agree with.
fn load_whole(path: &Path, max_source: u64) -> Result<Profile, Failure> {
    // Bytes, not text: the fast reader of a big `cct` takes them as they
    // are, and says `it is not UTF-8 text` of bytes that are not.
    let bytes = limits::read_bounded(path, max_source)?;
    Profile::from_bytes(&bytes).map_err(|e| match e {
        ReadError::Io(e) => limits::cannot(path, io_reason(&e)),
        ReadError::Malformed(m) => Failure {
            status: EXIT_INVALID,
            message: format!("vm: `{}` is not a {FORMAT} profile: {m}", path.display()),
        },
    })
}

/// Why a file cannot be read, in words.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{"format": "vm-profile/1", "program": "p.bc",
        "config": {"profile": "exhaustive", "record": ["cct"]},
        "run": {"wall_ns": 5, "instructions": null, "samples": 2, "threads": 1},
        "methods": [{"name": "main", "self": 3, "calls": 1}],
        "cct": [
          {"id": 0, "parent": null, "method": "<root>", "line": null, "calls": 0, "self": 0},
          {"id": 1, "parent": 0, "method": "main", "line": null, "calls": 1, "self": 3}
        ]}"#;

    /// What a load gave: the profile, or the status and message.
    fn outcome(r: Result<Profile, Failure>) -> Result<Profile, (i32, String)> {
        r.map_err(|f| (f.status, f.message))
    }

    #[test]
    fn streaming_loads_agree_with_whole_ones() {
        let dir = std::env::temp_dir().join(format!("vm-load-profile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.json");
        let mut cases: Vec<Vec<u8>> = vec![
            GOOD.into(),
            GOOD.replace("\"parent\": 0", "\"parent\": 1").into(),
            GOOD.replace("vm-profile/1", "vm-profile/3").into(),
            GOOD.replace("\"self\": 3}", "\"self\": -3}").into(),
            b"[1, 2]".to_vec(),
            b"".to_vec(),
        ];
        let mut not_utf8 = GOOD.as_bytes().to_vec();
        not_utf8[GOOD.find("main\", \"line").unwrap()] = 0xff;
        cases.push(not_utf8);
        for n in (0..GOOD.len()).step_by(7) {
            cases.push(GOOD.as_bytes()[..n].to_vec());
        }
        for bytes in &cases {
            std::fs::write(&file, bytes).unwrap();
            let shown = String::from_utf8_lossy(bytes);
            let streamed = outcome(load_profile(&file, 1 << 20));
            assert_eq!(streamed, outcome(load_whole(&file, 1 << 20)), "{shown}");
            if bytes.as_slice() == GOOD.as_bytes() {
                assert_eq!(streamed.unwrap(), Profile::from_json(GOOD).unwrap());
            } else {
                let (status, message) = streamed.unwrap_err();
                assert_eq!(status, EXIT_INVALID, "{shown}");
                assert!(
                    message.contains("is not a vm-profile/1 profile: "),
                    "{message}"
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_over_the_limit_is_refused_before_it_is_read() {
        let dir = std::env::temp_dir().join(format!("vm-load-limit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("p.json");
        std::fs::write(&file, GOOD).unwrap();
        let limit = GOOD.len() as u64 - 1;
        let (status, message) = outcome(load_profile(&file, limit)).unwrap_err();
        assert_eq!(status, EXIT_NO_INPUT);
        assert_eq!(
            message,
            format!(
                "vm: cannot read `{}`: it is larger than the limit of {} (--max-source=SIZE raises it)",
                file.display(),
                limits::format_size(limit)
            )
        );
        assert!(load_profile(&file, limit + 1).is_ok());
        let (status, message) = outcome(load_profile(&dir, limit)).unwrap_err();
        assert_eq!(
            (status, message.ends_with("it is a directory")),
            (EXIT_NO_INPUT, true)
        );
        let (status, message) = outcome(load_profile(&dir.join("none"), limit)).unwrap_err();
        assert_eq!(
            (status, message.ends_with("no such file")),
            (EXIT_NO_INPUT, true)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
