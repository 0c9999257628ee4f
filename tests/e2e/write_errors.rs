//! Issue 35, item 2: write errors on stdout and stderr, for every
//! command (docs/CLI.md, "Signals and write errors"). A closed pipe ends
//! the command quietly with 141 (a running program is stopped, its profile
//! written and marked); a stream that cannot be written (`/dev/full`) is
//! status 74, with one line on stderr for stdout; never a panic (101) or
//! an abort (134).
//!
//! A closed pipe is made deterministic by closing its reading end before
//! the command writes anything: every write then meets EPIPE.

use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use profile::Profile;

use super::harness::{self, clip, DEFAULT_TIMEOUT, VM};

/// Where one standard stream of the command goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum To {
    /// A pipe read by the test.
    Read,
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose reader is already gone.
    Closed,
}

/// How a command ended.
#[derive(Debug)]
struct Ended {
    cmd: String,
    status: Option<i32>,
    stdout: String,
    stderr: String,
}

/// A pipe whose reading end is closed: its writing end, as a `Stdio`.
fn closed_pipe() -> Stdio {
    let mut fds = [0; 2];
    // SAFETY: `pipe` writes two new descriptors into `fds`.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors are new and owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Stdio::from(write)
}

fn stdio(to: To) -> Stdio {
    match to {
        To::Read => Stdio::piped(),
        To::Full => Stdio::from(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .expect("/dev/full"),
        ),
        To::Closed => closed_pipe(),
    }
}

/// Runs `vm ARGS` in `dir` with stdout and stderr sent where asked, to
/// its end (a generous timeout fails the test).
fn run(dir: &Path, args: &[&str], out: To, err: To) -> Ended {
    let cmd = format!("vm {}", args.join(" "));
    let mut child = Command::new(VM)
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(stdio(out))
        .stderr(stdio(err))
        .spawn()
        .expect("vm starts");
    let read = |r: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut v);
            }
            String::from_utf8_lossy(&v).into_owned()
        })
    };
    let out_reader = read(child.stdout.take().map(|o| Box::new(o) as _));
    let err_reader = read(child.stderr.take().map(|e| Box::new(e) as _));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > DEFAULT_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{cmd}` did not end");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let ended = Ended {
        cmd,
        status: status.code(),
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    };
    for bad in ["panicked", "RUST_BACKTRACE"] {
        assert!(!ended.stderr.contains(bad), "{ended:?}");
    }
    ended
}

/// The repository's root, where `programs/` is.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Two profiles of one example, for `compare` and `report`.
fn profiles(dir: &Path) {
    for (kind, file) in [
        ("exhaustive", "exact.json"),
        ("cbs --clock=virtual", "cbs.json"),
    ] {
        let out = format!("--profile-out={}", dir.join(file).display());
        let line = format!(
            "run programs/examples/arnold-grove-fig1.bc --profile={kind} --record=cct --seed=1"
        );
        let mut args: Vec<&str> = line.split_whitespace().collect();
        args.push(&out);
        let r = run(&root(), &args, To::Read, To::Read);
        assert_eq!(r.status, Some(0), "{r:?}");
    }
}

/// Every command that writes to stdout, as a command line run from the
/// repository's root (`DIR` stands for the scratch directory).
const STDOUT_COMMANDS: &[&str] = &[
    "run programs/examples/arnold-grove-fig1.bc",
    "disasm programs/examples/arnold-grove-fig1.bc",
    "compare DIR/cbs.json DIR/exact.json",
    "compare DIR/cbs.json DIR/exact.json --json",
    "report DIR/exact.json",
    "report DIR/exact.json --format=folded",
    "report DIR/exact.json --format=speedscope",
    "inline programs/examples/arnold-grove-fig1.bc",
    "inline programs/examples/arnold-grove-fig1.bc --compare=exhaustive,cbs",
    "experiment --list",
    "experiment arnold-sweeney-fig6 --quick --out=DIR/exp",
    "--help",
    "run --help",
];

/// The arguments of `line` with `DIR` replaced.
fn args_of(line: &str, dir: &Path) -> Vec<String> {
    let d = dir.display().to_string();
    line.split_whitespace()
        .map(|a| a.replace("DIR", &d))
        .collect()
}

/// Stdout into `/dev/full`, for every command: status 74 and, as the
/// last line of stderr, `vm: cannot write to stdout: REASON`.
#[test]
fn stdout_that_cannot_be_written_is_status_74_for_every_command() {
    let dir = harness::scratch("write_errors_full");
    profiles(&dir);
    for line in STDOUT_COMMANDS {
        let args = args_of(line, &dir);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run(&root(), &args, To::Full, To::Read);
        assert_eq!(r.status, Some(74), "{r:?}");
        assert_eq!(
            r.stderr.lines().last(),
            Some("vm: cannot write to stdout: No space left on device (os error 28)"),
            "`{}`:\n{}",
            r.cmd,
            clip(&r.stderr)
        );
    }
}

/// Stdout a closed pipe, for every command: status 141, and nothing on
/// stderr about it.
#[test]
fn a_closed_stdout_ends_every_command_quietly_with_141() {
    let dir = harness::scratch("write_errors_closed");
    profiles(&dir);
    for line in STDOUT_COMMANDS {
        let args = args_of(line, &dir);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run(&root(), &args, To::Closed, To::Read);
        assert_eq!(r.status, Some(141), "{r:?}");
        assert!(!r.stderr.contains("stdout"), "{r:?}");
    }
}

/// Commands that write to stderr: into `/dev/full`, status 74; into a
/// closed pipe, 141. `check` writes only there; `inline` its log.
#[test]
fn stderr_that_cannot_be_written_ends_with_74_or_141() {
    for line in [
        "check programs/examples/arnold-grove-fig1.bc",
        "inline programs/examples/arnold-grove-fig1.bc",
        "run programs/examples/arnold-grove-fig1.bc --profile=cbs --report",
    ] {
        let args: Vec<&str> = line.split_whitespace().collect();
        let full = run(&root(), &args, To::Read, To::Full);
        assert_eq!(full.status, Some(74), "{full:?}");
        let closed = run(&root(), &args, To::Read, To::Closed);
        assert_eq!(closed.status, Some(141), "{closed:?}");
    }
}

/// A program that prints forever, its stdout a closed pipe (`vm run P |
/// head -1`): it is stopped, its profile written and marked, 141.
#[test]
fn a_program_printing_forever_into_a_closed_pipe_ends() {
    let dir = harness::scratch("write_errors_forever");
    harness::write_program(
        &dir,
        "forever.bc",
        ".method main()\n  .locals i\ntop:\n  load i\n  print\n  inc i 1\n  jmp top\n.end\n",
    );
    for (to, cause, status) in [
        (To::Closed, "broken pipe", 141),
        (To::Full, "write error", 74),
    ] {
        let r = run(
            &dir,
            &["run", "forever.bc", "--profile=cbs", "--profile-out=p.json"],
            to,
            To::Read,
        );
        assert_eq!(r.status, Some(status), "{r:?}");
        let p = Profile::read(&dir.join("p.json")).expect("a whole profile");
        assert_eq!(p.run.interrupted.as_deref(), Some(cause), "{r:?}");
    }
}

/// An uncaught exception in a spawned thread with stderr full: no abort,
/// the program's output all there, status 74. And 500 threads throwing
/// with stdout and stderr into one closed pipe (`2>&1 | head -1`): 141,
/// no abort.
#[test]
fn uncaught_exceptions_with_stderr_full_or_closed_do_not_abort() {
    let dir = harness::scratch("write_errors_threads");
    harness::write_program(
        &dir,
        "throw_join.bc",
        ".method worker(v)\n  load v\n  throw\n.end\n.method main()\n  .catch a b h\n  \
         push 7\n  spawn worker\na:\n  join\n  print\n  push 0\n  ret\nb:\nh:\n  \
         push \"caught\"\n  print\n  print\n  push 0\n  ret\n.end\n",
    );
    let r = run(&dir, &["run", "throw_join.bc"], To::Read, To::Full);
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (Some(74), "caught\n7\n"),
        "{r:?}"
    );

    harness::write_program(
        &dir,
        "throwers.bc",
        ".method worker()\n  push \"bad\"\n  throw\n.end\n.method main()\n  .locals i\n\
         top:\n  load i\n  push 500\n  jge done\n  spawn worker\n  pop\n  inc i 1\n  jmp top\n\
         done:\n  push 1\n  print\n  push 0\n  ret\n.end\n",
    );
    let mut fds = [0; 2];
    // SAFETY: `pipe` writes two new descriptors into `fds`.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both are new and owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    let both = write.try_clone().expect("dup");
    let mut child = Command::new(VM)
        .args(["run", "throwers.bc"])
        .current_dir(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write))
        .stderr(Stdio::from(both))
        .spawn()
        .expect("vm starts");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        assert!(start.elapsed() < DEFAULT_TIMEOUT, "did not end");
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(status.code(), Some(141), "{status:?}");
}
