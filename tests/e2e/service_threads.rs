//! The VM's own threads (the profiler's organizer, timer and sampler, the
//! adaptive controller) refused by the system (issue 16): one clear line,
//! status 70, and no empty profile file, never a Rust panic
//! (docs/CLI.md, "Exit statuses"; docs/TESTING.md, "End-to-end tests").
//!
//! The refusal is made deterministic, one thread at a time, with two real
//! limits and no test hook: `RUST_MIN_STACK` gives every thread the VM
//! starts a 1 GiB stack, and `ulimit -v` leaves address space for `k`
//! such stacks and half a GiB more (the binary, the allocator's arenas
//! and reserve: some 300 MiB at most here). The first `k` threads start
//! and the next one is refused. The threads start in a fixed order
//! before the program runs: organizer, then timer (`cbs`) or sampler
//! (`timer`), then the controller (`--adaptive`), then `main`'s thread.

use std::process::Command;
use std::time::Instant;

use crate::harness::{self, Run};

/// The stack each thread asks for: 1 GiB.
const STACK: u64 = 1 << 30;

/// Runs `vm ARGS` in `dir` with room for `k` threads' stacks.
fn run_with_room_for(dir: &std::path::Path, k: u64, args: &str) -> Run {
    let kib = (k * STACK + STACK / 2) >> 10;
    let start = Instant::now();
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib}; exec timeout 60 '{}' {args}",
            harness::VM
        ))
        .current_dir(dir)
        .env("RUST_MIN_STACK", STACK.to_string())
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("bash runs");
    Run {
        cmd: format!("RUST_MIN_STACK={STACK} ulimit -v {kib} (room for {k}): vm {args}"),
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: start.elapsed(),
        timed_out: false,
    }
}

const FIB: &str = ".method main()\n  push 20\n  call fib\n  print\n  push 0\n  ret\n.end\n\
    .method fib(n)\n  load n\n  push 2\n  jlt base\n  load n\n  push 1\n  sub\n  call fib\n\
    load n\n  push 2\n  sub\n  call fib\n  add\n  ret\nbase:\n  load n\n  ret\n.end\n";

/// Each of the VM's own threads, refused in its turn: the program never
/// runs (nothing on stdout), one line names the thread and says the
/// profile was not written, status 70, and neither the profile nor the
/// controller's page is left behind, empty or not.
#[test]
fn a_refused_service_thread_is_one_line_and_status_70_without_a_profile() {
    let dir = harness::scratch("service-threads-refused");
    harness::write_program(&dir, "fib.bc", FIB);
    let out = "--profile-out=p.json";
    for (room, args, what) in [
        (
            0,
            format!("run fib.bc --profile=cbs {out}"),
            "the profiler's organizer thread",
        ),
        (
            0,
            format!("run fib.bc --profile=exhaustive {out}"),
            "the profiler's organizer thread",
        ),
        (
            1,
            format!("run fib.bc --profile=cbs {out}"),
            "the profiler's timer thread",
        ),
        (
            1,
            format!("run fib.bc --profile=timer {out}"),
            "the profiler's sampler thread",
        ),
        (
            1,
            format!("run fib.bc --profile=timer --sampler=safepoint {out}"),
            "the profiler's sampler thread",
        ),
        (
            2,
            format!("run fib.bc --adaptive --html=h.html {out}"),
            "the adaptive controller's thread",
        ),
        (
            1,
            format!("inline fib.bc --profile=cbs {out}"),
            "the profiler's timer thread",
        ),
    ] {
        let _ = std::fs::remove_file(dir.join("p.json"));
        let r = run_with_room_for(&dir, room, &args);
        r.assert_status(70);
        assert_eq!(r.stdout, "", "`{}`: the program ran", r.cmd);
        let lines = r.stderr_lines();
        let line = lines.first().copied().unwrap_or("");
        assert!(
            lines.len() == 1
                && line.starts_with(&format!("vm: cannot start {what}: "))
                && line.ends_with("; the profile `p.json` was not written"),
            "`{}`:\n{}",
            r.cmd,
            r.stderr
        );
        for file in ["p.json", "h.html"] {
            assert!(!dir.join(file).exists(), "`{}` left {file}", r.cmd);
        }
    }
}

/// The same limits let the service threads start when there is room for
/// them: then `main`'s own thread is refused (the program's runtime
/// error, with a complete profile), and with room for it too the run
/// succeeds. Shows the room counts threads as the test above assumes.
#[test]
fn with_room_for_the_service_threads_the_program_meets_the_limit_itself() {
    let dir = harness::scratch("service-threads-room");
    harness::write_program(&dir, "fib.bc", FIB);
    let args = "run fib.bc --profile=cbs --profile-out=p.json";
    let r = run_with_room_for(&dir, 2, args);
    r.assert_status(70);
    assert!(
        r.stderr
            .starts_with("runtime error: cannot start thread 0: the OS refused"),
        "`{}`:\n{}",
        r.cmd,
        r.stderr
    );
    let p = profile::Profile::read(&dir.join("p.json")).expect("a complete profile");
    assert_eq!(p.run.threads, 0, "`{}`: a thread ran", r.cmd);
    let r = run_with_room_for(&dir, 3, args);
    r.assert_status(0);
    assert_eq!(r.stdout, "6765\n", "`{}`", r.cmd);
    let p = profile::Profile::read(&dir.join("p.json")).expect("a complete profile");
    assert_eq!(p.run.threads, 1, "`{}`", r.cmd);
}

/// What no process can catch: glibc or Rust's runtime aborting while a
/// thread starts (`ulimit -v` a few pages short of a thread's TLS or
/// signal stack; docs/TESTING.md). The process dies of SIGABRT, but the
/// unfinished profile is removed rather than left behind, with a line
/// saying so. Reached here by sending SIGABRT to a run that is sleeping.
#[test]
fn an_abort_removes_the_unfinished_profile() {
    use std::io::BufRead;
    use std::os::unix::process::ExitStatusExt;
    let dir = harness::scratch("service-threads-abort");
    harness::write_program(
        &dir,
        "sleeps.bc",
        ".method main()\n  push 1\n  print\n  push 30000\n  sleep\n  push 0\n  ret\n.end\n",
    );
    let mut child = Command::new(harness::VM)
        .args(["run", "sleeps.bc", "--profile=cbs", "--profile-out=p.json"])
        .current_dir(&dir)
        .env_remove("RUST_BACKTRACE")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("vm starts");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("read stdout");
    assert_eq!(first, "1\n", "the program did not start");
    // The profile is opened first: a hidden file beside p.json, renamed
    // into place once written (docs/CLI.md, "Signals and write errors").
    let partial = dir.join(format!(".p.json.{}.partial", child.id()));
    assert!(partial.exists(), "the profile is opened first");
    // SAFETY: a plain system call on our own child.
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGABRT) };
    assert_eq!(sent, 0, "kill: {}", std::io::Error::last_os_error());
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.signal(), Some(libc::SIGABRT), "{stderr}");
    assert_eq!(
        stderr, "vm: aborted; the profile `p.json` was not written\n",
        "stderr"
    );
    assert!(!dir.join("p.json").exists(), "a profile was left");
    assert!(!partial.exists(), "the unfinished profile was left");
}
