//! Issue 35, item 1: SIGINT, SIGTERM and SIGHUP (docs/CLI.md, "Signals
//! and write errors"). The first signal stops the program at its next
//! yieldpoint, the profile of what ran is written (marked
//! `run.interrupted`), stdout ends on a whole line, and the status is
//! 128 plus the signal's number; a second signal ends the process at once, leaving no
//! partial file; a file being written is never left empty or cut off.
//!
//! Each test starts a program that runs until it is stopped, waits for its
//! first line (so the program is running), sends the signal with
//! `kill(2)`, and waits for the end with a generous timeout: nothing here
//! depends on timing beyond "eventually".

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use profile::Profile;

use super::harness::{self, DEFAULT_TIMEOUT, VM};

/// Prints 1, then counts up forever, printing each number.
const COUNTER: &str = ".method main()\n  .locals i\n  push 1\n  print\ntop:\n  load i\n  print\n  \
                       inc i 1\n  jmp top\n.end\n";

/// Prints 1, then loops forever calling a method (no output).
const SPINNER: &str = ".method f(x)\n  load x\n  ret\n.end\n.method main()\n  .locals i\n  \
                       push 1\n  print\ntop:\n  load i\n  call f\n  store i\n  inc i 1\n  \
                       jmp top\n.end\n";

/// Prints 1, then sleeps for a day.
const SLEEPER: &str =
    ".method main()\n  push 1\n  print\n  push 86400000\n  sleep\n  push 0\n  ret\n.end\n";

/// Starts a thread that sleeps for a day, prints 1, joins it.
const JOINER: &str = ".method worker()\n  push 86400000\n  sleep\n  push 0\n  ret\n.end\n\
                      .method main()\n  spawn worker\n  push 1\n  print\n  join\n  ret\n.end\n";

/// A `vm` process being run, its stdout and stderr read as they come.
pub struct Running {
    child: std::process::Child,
    /// Told when stdout has a whole first line.
    first_line: mpsc::Receiver<()>,
    stdout: Arc<Mutex<Vec<u8>>>,
    out_reader: std::thread::JoinHandle<()>,
    err_reader: std::thread::JoinHandle<Vec<u8>>,
    cmd: String,
}

/// How a [`Running`] process ended.
#[derive(Debug)]
pub struct Ended {
    /// Its exit status, `None` if a signal killed it.
    pub status: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
}

impl Running {
    /// Starts `vm ARGS` in `dir`, stdin empty, stdout and stderr read,
    /// the signals sent here at their default disposition: a test run
    /// started as a shell's background job ignores SIGINT, and `vm` keeps
    /// a signal it was started with ignored (docs/CLI.md).
    pub fn start(dir: &Path, args: &[&str]) -> Running {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new(VM);
        command
            .args(args)
            .current_dir(dir)
            .env_remove("RUST_BACKTRACE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // SAFETY: `signal` is async-signal-safe, as code between fork and
        // exec must be.
        unsafe {
            command.pre_exec(|| {
                for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                    libc::signal(sig, libc::SIG_DFL);
                }
                Ok(())
            });
        }
        let mut child = command.spawn().expect("vm starts");
        let mut out = child.stdout.take().expect("stdout");
        let mut err = child.stderr.take().expect("stderr");
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let (tell, first_line) = mpsc::channel();
        let seen = stdout.clone();
        let out_reader = std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            let mut told = false;
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut all = seen.lock().unwrap();
                all.extend_from_slice(&buf[..n]);
                if !told && all.contains(&b'\n') {
                    told = true;
                    let _ = tell.send(());
                }
            }
        });
        let err_reader = std::thread::spawn(move || {
            let mut v = Vec::new();
            let _ = err.read_to_end(&mut v);
            v
        });
        Running {
            child,
            first_line,
            stdout,
            out_reader,
            err_reader,
            cmd: format!("vm {}", args.join(" ")),
        }
    }

    /// Waits until the program has printed its first line.
    pub fn wait_first_line(&mut self) {
        if self.first_line.recv_timeout(DEFAULT_TIMEOUT).is_err() {
            let _ = self.child.kill();
            panic!("`{}` printed no line", self.cmd);
        }
    }

    /// Sends `sig` to the process.
    pub fn signal(&self, sig: libc::c_int) {
        // SAFETY: a plain system call on our own child.
        let sent = unsafe { libc::kill(self.child.id() as libc::pid_t, sig) };
        assert_eq!(sent, 0, "kill: {}", std::io::Error::last_os_error());
    }

    /// Waits for the end (killing it and failing after a generous
    /// timeout).
    pub fn finish(mut self) -> Ended {
        let start = Instant::now();
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("wait") {
                break s;
            }
            if start.elapsed() > DEFAULT_TIMEOUT {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("`{}` did not end after the signal", self.cmd);
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        self.out_reader.join().expect("stdout reader");
        let stderr = self.err_reader.join().expect("stderr reader");
        let stdout = std::mem::take(&mut *self.stdout.lock().unwrap());
        let ended = Ended {
            status: status.code(),
            stdout,
            stderr: String::from_utf8_lossy(&stderr).into_owned(),
        };
        for bad in ["panicked", "RUST_BACKTRACE"] {
            assert!(!ended.stderr.contains(bad), "{}: {ended:?}", self.cmd);
        }
        ended
    }
}

/// The name `vm` gives signal `sig`.
fn name(sig: libc::c_int) -> &'static str {
    match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => unreachable!(),
    }
}

/// Stdout is whole lines of integers, the first `1`.
fn whole_lines_of_numbers(out: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(out).map_err(|e| e.to_string())?;
    if !text.ends_with('\n') {
        return Err(format!(
            "stdout ends in a torn line: {:?}",
            &text[text.len().saturating_sub(40)..]
        ));
    }
    if !text.starts_with("1\n") {
        return Err("stdout does not start with the first line".into());
    }
    match text.lines().find(|l| l.parse::<i64>().is_err()) {
        Some(l) => Err(format!("a line that is not a number: {l:?}")),
        None => Ok(()),
    }
}

/// The profile at `path`, which must be a whole one.
fn profile_at(path: &Path) -> Profile {
    Profile::read(path).unwrap_or_else(|e| panic!("{}: not a profile: {e:?}", path.display()))
}

/// Every signal, on a program running its loop, one blocked in `sleep`
/// and one whose `main` is blocked in `join`, under a sampling profile and
/// the exact one: the program stops, the profile of what ran is written
/// whole and says why, stderr says so, stdout is whole lines, the status
/// is 128 + the signal.
#[test]
fn a_signal_stops_the_program_and_its_profile_is_written() {
    let dir = harness::scratch("signals_stop");
    let programs = [
        ("counter.bc", COUNTER, "--profile=cbs"),
        ("sleeper.bc", SLEEPER, "--profile=exhaustive"),
        ("joiner.bc", JOINER, "--profile=timer"),
    ];
    for (file, text, profile) in programs {
        harness::write_program(&dir, file, text);
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            let _ = std::fs::remove_file(dir.join("p.json"));
            let mut run = Running::start(
                &dir,
                &["run", file, profile, "--record=cct", "--profile-out=p.json"],
            );
            run.wait_first_line();
            run.signal(sig);
            let ended = run.finish();
            let what = format!("{file} {profile} {}: {ended:?}", name(sig));
            assert_eq!(ended.status, Some(128 + sig), "{what}");
            assert_eq!(
                ended.stderr,
                format!(
                    "vm: interrupted by {}: the program was stopped; the profile of what ran \
                     is in `p.json` (run.interrupted)\n",
                    name(sig)
                ),
                "{what}"
            );
            whole_lines_of_numbers(&ended.stdout).unwrap_or_else(|e| panic!("{e}: {what}"));
            let p = profile_at(&dir.join("p.json"));
            assert_eq!(p.run.interrupted.as_deref(), Some(name(sig)), "{what}");
            assert!(p.cct.is_some_and(|c| !c.is_empty()), "{what}");
        }
    }
}

/// A program loaded without yieldpoints cannot be stopped at one: it
/// still ends (after the stop's grace period) with the profile of what
/// ran, marked.
#[test]
fn a_program_without_yieldpoints_still_stops() {
    let dir = harness::scratch("signals_no_yieldpoints");
    harness::write_program(&dir, "spin.bc", SPINNER);
    let mut run = Running::start(
        &dir,
        &[
            "run",
            "spin.bc",
            "--no-yieldpoints",
            "--profile=exhaustive",
            "--profile-out=p.json",
        ],
    );
    run.wait_first_line();
    run.signal(libc::SIGTERM);
    let ended = run.finish();
    assert_eq!(ended.status, Some(143), "{ended:?}");
    assert_eq!(ended.stdout, b"1\n");
    let p = profile_at(&dir.join("p.json"));
    assert_eq!(p.run.interrupted.as_deref(), Some("SIGTERM"));
}

/// Stdout is never torn: a program printing long lines as fast as it can
/// into a pipe, stopped by SIGTERM, leaves only whole lines.
#[test]
fn stdout_ends_on_a_whole_line() {
    let dir = harness::scratch("signals_whole_lines");
    let line = "x".repeat(1000);
    let text = format!(
        ".method main()\n  push 1\n  print\ntop:\n  push \"{line}\"\n  print\n  jmp top\n.end\n"
    );
    harness::write_program(&dir, "long.bc", &text);
    for _ in 0..5 {
        let mut run = Running::start(&dir, &["run", "long.bc"]);
        run.wait_first_line();
        run.signal(libc::SIGTERM);
        let ended = run.finish();
        assert_eq!(ended.status, Some(143), "{ended:?}");
        let out = String::from_utf8(ended.stdout).expect("utf-8");
        assert!(out.ends_with('\n'), "a torn last line");
        for l in out.lines().skip(1) {
            assert_eq!(l, line, "a torn line");
        }
    }
}

/// A second signal ends the process at once: the profile being written
/// is not finished, and the file it would replace keeps its earlier
/// contents (nothing partial: no hidden temporary left either). The first
/// signal starts the stop's grace period of a program without
/// yieldpoints, so the second surely comes before the end.
#[test]
fn a_second_signal_exits_at_once_and_leaves_no_partial_file() {
    let dir = harness::scratch("signals_second");
    harness::write_program(&dir, "spin.bc", SPINNER);
    std::fs::write(dir.join("p.json"), "earlier").unwrap();
    let mut run = Running::start(
        &dir,
        &[
            "run",
            "spin.bc",
            "--no-yieldpoints",
            "--profile=exhaustive",
            "--profile-out=p.json",
        ],
    );
    run.wait_first_line();
    run.signal(libc::SIGINT);
    run.signal(libc::SIGTERM);
    let ended = run.finish();
    // Whichever of the two came second ended the process.
    assert!(matches!(ended.status, Some(130 | 143)), "{ended:?}");
    assert!(!ended.stderr.contains("interrupted"), "{ended:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("p.json")).unwrap(),
        "earlier"
    );
    assert_eq!(files_in(&dir), ["p.json", "spin.bc"]);
}

/// A run killed (SIGKILL: nothing can be done) leaves the profile file it
/// would have replaced as it was: the profile is written to a file beside
/// it, never to the target itself (which `File::create` used to empty at
/// the start).
#[test]
fn a_killed_run_leaves_the_earlier_profile_whole() {
    let dir = harness::scratch("signals_killed");
    harness::write_program(&dir, "counter.bc", COUNTER);
    std::fs::write(dir.join("p.json"), "earlier").unwrap();
    let mut run = Running::start(
        &dir,
        &["run", "counter.bc", "--profile=cbs", "--profile-out=p.json"],
    );
    run.wait_first_line();
    run.signal(libc::SIGKILL);
    let ended = run.finish();
    assert_eq!(ended.status, None, "{ended:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("p.json")).unwrap(),
        "earlier"
    );
}

/// Prints 1, then fib(24) called from two sites: an exact tree of
/// about 75,000 contexts, a profile of some megabytes to write.
const FIB: &str = ".method fib(n)\n  load n\n  push 2\n  jlt small\n  load n\n  push 1\n  \
                   sub\n  call fib\n  load n\n  push 2\n  sub\n  call fib\n  add\n  ret\n\
                   small:\n  load n\n  ret\n.end\n.method main()\n  push 1\n  print\n  \
                   push 24\n  call fib\n  pop\n  push 0\n  ret\n.end\n";

/// SIGTERM while the profile is being written (its hidden file has
/// begun to grow; issue 35 saw truncated JSON in 3 of 5 tries): the
/// profile is finished, renamed into place whole, and the status is 143.
#[test]
fn a_signal_while_the_profile_is_written_leaves_it_whole() {
    let dir = harness::scratch("signals_writing");
    harness::write_program(&dir, "fib.bc", FIB);
    for _ in 0..3 {
        let _ = std::fs::remove_file(dir.join("p.json"));
        let mut run = Running::start(
            &dir,
            &[
                "run",
                "fib.bc",
                "--profile=exhaustive",
                "--record=cct",
                "--profile-out=p.json",
            ],
        );
        let partial = dir.join(format!(".p.json.{}.partial", run.child.id()));
        run.wait_first_line();
        let start = Instant::now();
        // Sent once the profile has begun to be written, or once it is
        // done (a fast machine): the file must be whole either way.
        while std::fs::metadata(&partial).is_ok_and(|m| m.len() == 0) {
            assert!(
                start.elapsed() < DEFAULT_TIMEOUT,
                "the profile was not written"
            );
            std::thread::sleep(Duration::from_micros(200));
        }
        run.signal(libc::SIGTERM);
        let ended = run.finish();
        assert!(matches!(ended.status, Some(0 | 143)), "{ended:?}");
        let p = profile_at(&dir.join("p.json"));
        assert!(p.cct.is_some_and(|c| c.len() > 10_000));
        assert!(p.run.interrupted.is_none(), "the program had ended");
        assert_eq!(files_in(&dir), ["fib.bc", "p.json"]);
    }
}

/// A signal to `vm inline` stops its run, and nothing is inlined or
/// written.
#[test]
fn an_interrupted_inline_writes_nothing() {
    let dir = harness::scratch("signals_inline");
    harness::write_program(&dir, "spin.bc", SPINNER);
    let mut run = Running::start(
        &dir,
        &["inline", "spin.bc", "--emit=out.bc", "--log=log.jsonl"],
    );
    run.wait_first_line();
    run.signal(libc::SIGINT);
    let ended = run.finish();
    assert_eq!(ended.status, Some(130), "{ended:?}");
    assert!(
        ended
            .stderr
            .ends_with("vm: inline: interrupted: nothing inlined or written\n"),
        "{ended:?}"
    );
    assert_eq!(files_in(&dir), ["spin.bc"]);
}

/// An interrupted experiment kills its measurements, ends with 128 + the
/// signal, and leaves no scratch directory (`DIR/.NAME.work/`) behind.
#[test]
fn an_interrupted_experiment_leaves_no_scratch_directory() {
    let dir = harness::scratch("signals_experiment");
    let root = env!("CARGO_MANIFEST_DIR");
    let out = dir.join("out");
    let out_arg = format!("--out={}", out.display());
    let run = Running::start(
        Path::new(root),
        &[
            "experiment",
            "arnold-grove-fig1",
            "--quick",
            "--jobs=1",
            &out_arg,
        ],
    );
    // The sweep has started when its first progress line is out; the
    // scratch directory exists then.
    let start = Instant::now();
    let work = out.join(".arnold-grove-fig1.work");
    while !work.is_dir() {
        assert!(start.elapsed() < DEFAULT_TIMEOUT, "no scratch directory");
        std::thread::sleep(Duration::from_millis(2));
    }
    run.signal(libc::SIGINT);
    let ended = run.finish();
    assert_eq!(ended.status, Some(130), "{ended:?}");
    assert!(
        ended.stderr.contains(&format!(
            "vm experiment arnold-grove-fig1: interrupted by SIGINT; {}/arnold-grove-fig1.csv has \
             the rows measured",
            out.display()
        )),
        "{ended:?}"
    );
    assert!(!work.exists(), "{} left behind", work.display());
}

/// The names of the files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
