//! Command dispatch and the steps every command shares (reading and
//! assembling a program file).

mod args;
mod check;
mod compare;
mod disasm;
mod experiment;
mod inline;
mod limits;
mod profile_args;
mod report;
mod run;

use std::path::Path;

use profile::{Profile, ReadError, FORMAT};

use clap::Parser;

pub use args::{Cli, Command};

/// Exit status: bad command-line usage.
pub const EXIT_USAGE: i32 = 2;
/// Exit status: the program does not assemble or verify.
pub const EXIT_INVALID: i32 = 65;
/// Exit status: a file cannot be read.
pub const EXIT_NO_INPUT: i32 = 66;

/// A command's failure: what to print on stderr and the exit status.
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
}

/// Parses the command line and runs the command; returns the exit status.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { 0 };
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
    match result {
        Ok(status) => status,
        Err(f) => {
            if !f.message.is_empty() {
                eprintln!("{}", f.message.trim_end());
            }
            f.status
        }
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

/// Reads a profile file (`vm compare`, `vm inline --from-profile`: one
/// reader, one set of messages): 66 if it cannot be read, 65 if it is not a
/// `vm-profile/1` profile (bytes that are not UTF-8 included).
pub fn load_profile(path: &Path, max_source: u64) -> Result<Profile, Failure> {
    let shown = path.display().to_string();
    let unreadable = |reason: String| Failure {
        status: EXIT_NO_INPUT,
        message: format!("vm: cannot read `{shown}`: {reason}"),
    };
    let invalid = |reason: String| Failure {
        status: EXIT_INVALID,
        message: format!("vm: `{shown}` is not a {FORMAT} profile: {reason}"),
    };
    // Bytes, not text: the fast reader of a big `cct` takes them as they
    // are, and says `it is not UTF-8 text` of bytes that are not.
    let bytes = limits::read_bounded(path, max_source)?;
    Profile::from_bytes(&bytes).map_err(|e| match e {
        ReadError::Io(e) => unreadable(io_reason(&e)),
        ReadError::Malformed(m) => invalid(m),
    })
}

/// The sections that the metrics of docs/LANGUAGE.md "Accuracy metrics"
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}
