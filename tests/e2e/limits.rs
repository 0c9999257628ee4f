//! What a hostile or runaway program can do to the machine, bounded
//! (docs/CLI.md, "Limits"): input files too large to read, and (as they
//! land) memory, threads and output that must not be lost.

use std::time::{Duration, Instant};

use crate::harness::{self, run_vm_in, DEFAULT_TIMEOUT};

/// `vm check /dev/zero` used to read forever. Every command that reads a
/// program or a profile refuses, with status 66 and one clear line, an
/// input larger than `--max-source`: a device at once when the limit is
/// reached, a regular file by its size before reading it.
#[test]
fn max_source_refuses_endless_and_oversized_inputs() {
    let dir = harness::scratch("limits-max-source");
    harness::write_program(&dir, "small.bc", ".method main()\n  push 0\n  ret\n.end\n");
    let cases: &[&[&str]] = &[
        &["check", "/dev/zero"],
        &["run", "/dev/zero", "--max-source=1M"],
        &["disasm", "/dev/zero", "--max-source=1M"],
        &["inline", "/dev/zero", "--max-source=1M"],
        &["compare", "/dev/zero", "small.bc", "--max-source=1M"],
        &["check", "small.bc", "--max-source=10"],
        &["run", "small.bc", "--max-source=10"],
    ];
    for args in cases {
        let start = Instant::now();
        let r = run_vm_in(&dir, args, DEFAULT_TIMEOUT);
        r.assert_status(66);
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "`{}` took {:?}",
            r.cmd,
            start.elapsed()
        );
        let lines = r.stderr_lines();
        assert_eq!(lines.len(), 1, "`{}`:\n{}", r.cmd, r.stderr);
        assert!(
            lines[0].starts_with("vm: cannot read `")
                && lines[0].contains("larger than the limit of")
                && lines[0].contains("--max-source"),
            "`{}`: {}",
            r.cmd,
            lines[0]
        );
        assert_eq!(r.stdout, "", "`{}` printed on stdout", r.cmd);
    }
    // At the limit exactly, the file is read.
    let size = std::fs::metadata(dir.join("small.bc")).unwrap().len();
    let r = run_vm_in(
        &dir,
        &["run", "small.bc", &format!("--max-source={size}")],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    // A size that is not one is a usage error.
    for bad in ["--max-source=0", "--max-source=12X", "--max-source=lots"] {
        let r = run_vm_in(&dir, &["check", "small.bc", bad], DEFAULT_TIMEOUT);
        r.assert_status(2);
    }
}

/// A program that spawns threads that never end. With `--max-threads` it
/// meets one runtime error at the `spawn` that would exceed the limit:
/// printed once (not once per thread), status 70, a trace, and the
/// profile still written.
#[test]
fn max_threads_is_one_runtime_error() {
    let dir = harness::scratch("limits-max-threads");
    harness::write_program(
        &dir,
        "storm.bc",
        ".method forever(n)\nloop:\n  push 1000\n  sleep\n  jmp loop\n.end\n\
         .method spawner(n)\nloop:\n  push 0\n  spawn forever\n  pop\n  jmp loop\n.end\n\
         .method main()\n  push 0\n  spawn spawner\n  pop\n  push 0\n  spawn spawner\n  pop\n\
         loop:\n  push 0\n  spawn forever\n  pop\n  jmp loop\n.end\n",
    );
    let r = run_vm_in(
        &dir,
        &[
            "run",
            "storm.bc",
            "--max-threads=40",
            "--profile=exhaustive",
            "--profile-out=p.json",
        ],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(70);
    let errors: Vec<&str> = r
        .stderr_lines()
        .into_iter()
        .filter(|l| l.starts_with("runtime error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{}", r.stderr);
    assert!(
        errors[0].contains("cannot start thread")
            && errors[0].contains("40 threads are running (--max-threads)"),
        "{}",
        errors[0]
    );
    assert!(r.stderr.contains("  at "), "no trace:\n{}", r.stderr);
    let p = profile::Profile::read(&dir.join("p.json")).expect("profile written");
    assert!(p
        .methods
        .is_some_and(|m| m.iter().any(|m| m.name == "forever")));
    // When the OS refuses a thread first (here: address space for thread
    // stacks runs out under `ulimit -v`), the storm of spawning threads
    // still makes one runtime error, not one per refused thread.
    // `MALLOC_ARENA_MAX=1` keeps glibc from reserving a 64 MiB malloc arena
    // per thread: with it, the reservations could exhaust the address space
    // between a thread's start and its first allocation (glibc then aborts
    // the process), instead of at the next thread's stack, where the VM
    // sees the refusal.
    let out = std::process::Command::new("bash")
        .env("MALLOC_ARENA_MAX", "1")
        .arg("-c")
        .arg(format!(
            "ulimit -v 400000; exec timeout 60 '{}' run storm.bc --max-threads=1000000",
            harness::VM
        ))
        .current_dir(&dir)
        .output()
        .expect("bash runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(70), "{stderr}");
    let errors: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("runtime error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    assert!(errors[0].contains("the OS refused"), "{stderr}");
    // The default is documented in --help.
    let help = run_vm_in(&dir, &["run", "--help"], DEFAULT_TIMEOUT);
    assert!(help.stdout.contains("--max-threads"), "{}", help.stdout);
}

/// Issue 16, bug 2: `main` prints and returns while a thread runs on
/// forever. With stdout a file, the line must reach it in bounded time,
/// so that killing the process does not lose it; likewise a line printed
/// by the thread itself while it runs.
#[test]
fn output_reaches_a_file_while_a_thread_runs_on() {
    let dir = harness::scratch("limits-output-flush");
    harness::write_program(
        &dir,
        "runs_on.bc",
        ".method spin(n)\n  push \"from the thread\"\n  print\nloop:\n  jmp loop\n.end\n\
         .method main()\n  push \"from main\"\n  print\n  push 0\n  spawn spin\n  pop\n  push 0\n  ret\n.end\n",
    );
    let out_path = dir.join("out.txt");
    let out = std::fs::File::create(&out_path).expect("create out.txt");
    let mut child = std::process::Command::new(harness::VM)
        .args(["run", "runs_on.bc"])
        .current_dir(&dir)
        .stdout(out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("vm starts");
    // Poll for the lines rather than sleep a fixed time: bounded, and
    // quick when it works.
    let start = Instant::now();
    let mut text = String::new();
    while start.elapsed() < Duration::from_secs(10) {
        text = std::fs::read_to_string(&out_path).unwrap_or_default();
        if text.contains("from main") && text.contains("from the thread") {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let still_running = child.try_wait().expect("try_wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(still_running, "the program should still be running");
    let text = std::fs::read_to_string(&out_path).unwrap_or(text);
    assert_eq!(
        {
            let mut l: Vec<&str> = text.lines().collect();
            l.sort();
            l
        },
        ["from main", "from the thread"],
        "lines lost: {text:?}"
    );
}

/// Runs `vm ARGS` in `dir` under `ulimit -v` of `kib`: a limit that does
/// not hold shows as a different failure (an abort, a refused allocation).
pub(crate) fn run_under_ulimit(
    dir: &std::path::Path,
    kib: u64,
    args: &str,
) -> (Option<i32>, String) {
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib}; exec timeout 120 '{}' {args}",
            harness::VM
        ))
        .current_dir(dir)
        .output()
        .expect("bash runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const GROWS_FOREVER: &str = ".class Node\n  .field next\n  .field pad\n.end\n\
    .method main()\n  .locals head n\n  null\n  store head\nloop:\n  new Node\n  store n\n\
    load n\n  load head\n  putfield Node.next\n  load n\n  push 1000\n  newarray\n\
    putfield Node.pad\n  load n\n  store head\n  jmp loop\n.end\n";

/// Issue 16, bugs 3 and 4: live data that grows forever, and a recursion
/// allowed a hundred million frames, meet `--max-heap` as a runtime
/// error: status 70, the message, a trace, the profile written; and the
/// process stays within its limit (under a `ulimit -v` far below what the
/// program would take, it still ends with the VM's own error).
#[test]
fn max_heap_is_a_runtime_error_with_the_profile_written() {
    let dir = harness::scratch("limits-max-heap");
    harness::write_program(&dir, "grow.bc", GROWS_FOREVER);
    harness::write_program(
        &dir,
        "deep.bc",
        ".method f(n)\n  .locals a b c d\n  load n\n  push 1\n  add\n  call f\n  ret\n.end\n\
         .method main()\n  push 0\n  call f\n  ret\n.end\n",
    );
    for (args, line) in [
        (
            "run grow.bc --max-heap=64M --profile=exhaustive --profile-out=grow.json",
            "grow.bc:17",
        ),
        (
            "run deep.bc --max-frames=100000000 --max-heap=64M --profile=exhaustive --profile-out=deep.json",
            "deep.bc:6",
        ),
    ] {
        let (status, stderr) = run_under_ulimit(&dir, 1_500_000, args);
        assert_eq!(status, Some(70), "`{args}`:\n{}", harness::clip(&stderr));
        assert!(
            stderr.starts_with("runtime error: out of memory: heap limit 64 MiB reached (--max-heap)\n"),
            "`{args}`:\n{}",
            harness::clip(&stderr)
        );
        assert!(stderr.contains(line), "no trace at {line}:\n{}", harness::clip(&stderr));
    }
    for file in ["grow.json", "deep.json"] {
        let p = profile::Profile::read(&dir.join(file)).expect("profile written");
        assert!(p.methods.is_some_and(|m| !m.is_empty()), "{file} is empty");
    }
}

/// The limit is on live data, not on what a program allocates over its
/// run: garbage is collected and the program goes on, in every thread.
#[test]
fn max_heap_leaves_programs_with_small_live_data_alone() {
    let dir = harness::scratch("limits-max-heap-garbage");
    harness::write_program(
        &dir,
        "garbage.bc",
        ".method churn(n)\nloop:\n  load n\n  jz done\n  push 10000\n  newarray\n  pop\n\
         inc n -1\n  jmp loop\ndone:\n  push 0\n  ret\n.end\n\
         .method main()\n  .locals a b\n  push 3000\n  spawn churn\n  store a\n  push 3000\n  spawn churn\n\
         store b\n  push 3000\n  call churn\n  load a\n  join\n  load b\n  join\n  add\n  add\n  print\n\
         push 0\n  ret\n.end\n",
    );
    // 9000 arrays of 160 KB: 1.4 GB allocated in all, a few MB live.
    let r = run_vm_in(
        &dir,
        &["run", "garbage.bc", "--max-heap=48M"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert_eq!(r.stdout, "0\n");
}

/// Issue 16, bug 5: a file with thousands of errors prints the first 100
/// diagnostics, then "... and N more", then the count; quickly.
#[test]
fn diagnostics_are_capped_at_100() {
    let dir = harness::scratch("limits-diagnostics");
    let mut text = String::from(".method main()\n");
    for i in 0..5000 {
        text.push_str(&format!("  load nosuch{i}\n"));
    }
    text.push_str("  push 0\n  ret\n.end\n");
    harness::write_program(&dir, "many.bc", &text);
    let start = Instant::now();
    let r = run_vm_in(&dir, &["check", "many.bc"], DEFAULT_TIMEOUT);
    r.assert_status(65);
    assert!(start.elapsed() < Duration::from_secs(20));
    let diags = r.diagnostics("many.bc");
    assert_eq!(diags.len(), 100, "{}", harness::clip(&r.stderr));
    let lines = r.stderr_lines();
    let n = lines.len();
    assert!(n >= 2, "{}", r.stderr);
    assert!(
        lines[n - 2].starts_with("... and ") && lines[n - 2].ends_with(" more"),
        "{}",
        lines[n - 2]
    );
    let more: usize = lines[n - 2]["... and ".len()..lines[n - 2].len() - " more".len()]
        .parse()
        .expect("a count");
    assert_eq!(lines[n - 1], format!("{} errors in many.bc", 100 + more));
    assert!(100 + more >= 5000, "{}", lines[n - 1]);
}

/// [`GROWS_FOREVER`] in a spawned thread that `main` joins.
const GROWS_IN_A_THREAD: &str = ".class Node\n  .field next\n  .field pad\n.end\n\
    .method grow(x)\n  .locals head n\n  null\n  store head\nloop:\n  new Node\n  store n\n\
    load n\n  load head\n  putfield Node.next\n  load n\n  push 1000\n  newarray\n\
    putfield Node.pad\n  load n\n  store head\n  jmp loop\n.end\n\
    .method main()\n  push 0\n  spawn grow\n  join\n  ret\n.end\n";

/// Objects of 501 fields (8 KB each) in a list that grows forever: the
/// allocation the system refuses is an object's fields, which the VM cannot
/// do without, so the run goes on out of the allocator's reserve until the
/// next allocation site sees the refusal (where [`GROWS_FOREVER`]'s arrays
/// are refused at the `newarray` itself).
fn big_objects_forever() -> String {
    let fields: String = (0..500).map(|i| format!("  .field f{i}\n")).collect();
    format!(
        ".class Big\n  .field next\n{fields}.end\n\
         .method main()\n  .locals head n\n  null\n  store head\nloop:\n  new Big\n  store n\n\
         load n\n  load head\n  putfield Big.next\n  load n\n  store head\n  jmp loop\n.end\n"
    )
}

/// The `ulimit -v` (KiB) of the tests where the system, not `--max-heap`,
/// refuses memory: room for the VM to start (its threads' stacks and
/// allocator arenas, the allocator's 16 MiB reserve) and a few hundred MB
/// of heap, so that the program is well under way when it is refused.
const SYSTEM_LIMIT_KIB: u64 = 700_000;

/// Issue 16, item 3's last sentence: when the system refuses memory
/// before `--max-heap` is reached (here `ulimit -v` far below it), the run
/// does not abort: status 70, the runtime error saying what to do, a
/// trace, and a complete profile; with every kind of profile the run can
/// write, and when the thread that allocates is not `main`.
#[test]
fn the_system_refusing_memory_is_a_runtime_error_with_the_profile_written() {
    let dir = harness::scratch("limits-system-oom");
    harness::write_program(&dir, "grow.bc", GROWS_FOREVER);
    harness::write_program(&dir, "thread.bc", GROWS_IN_A_THREAD);
    harness::write_program(&dir, "big.bc", &big_objects_forever());
    for (args, line, file, method) in [
        (
            "run big.bc --max-heap=64G --profile=exhaustive --profile-out=big.json",
            // At the next `new` (line 509), or the loop's yieldpoint (516)
            // if the waiting thread's request comes first.
            "at main (big.bc:",
            "big.json",
            "main",
        ),
        (
            "run grow.bc --max-heap=64G --profile=exhaustive --profile-out=exh.json",
            "at main (grow.bc:",
            "exh.json",
            "main",
        ),
        (
            "run grow.bc --max-heap=64G --profile=cbs --profile-out=cbs.json",
            "at main (grow.bc:",
            "cbs.json",
            "main",
        ),
        (
            "run thread.bc --max-heap=64G --profile=cbs --profile-out=thread.json",
            "at grow (thread.bc:",
            "thread.json",
            "grow",
        ),
    ] {
        let (status, stderr) = run_under_ulimit(&dir, SYSTEM_LIMIT_KIB, args);
        assert_eq!(status, Some(70), "`{args}`:\n{}", harness::clip(&stderr));
        let first = stderr.lines().next().unwrap_or("");
        assert!(
            first.starts_with("runtime error: out of memory: the system refused ")
                && first.ends_with(
                    "before the heap limit 64.0 GiB was reached (raise `ulimit -v` or lower --max-heap)"
                ),
            "`{args}`:\n{}",
            harness::clip(&stderr)
        );
        assert!(
            stderr.contains(line),
            "no trace at {line}:\n{}",
            harness::clip(&stderr)
        );
        let p = profile::Profile::read(&dir.join(file))
            .unwrap_or_else(|e| panic!("`{args}`: {file} unreadable: {e:?}"));
        let methods = p.methods.unwrap_or_default();
        assert!(
            methods.iter().any(|m| m.name == method),
            "`{args}`: {file} has no {method}"
        );
    }
}

/// Under any `ulimit -v`, from too little for the VM to start to enough
/// for the run to get going, the process never aborts: it ends with status
/// 70 and a line saying the system refused memory (the runtime error, a
/// thread the OS refused, the profiler's own thread that could not start,
/// or the allocator's own last word once its reserve is spent: which one
/// depends on the binary's size, docs/TESTING.md), and leaves either a complete profile or none, never
/// an empty or a partial one. A limit under which the binary cannot even
/// be loaded (the dynamic loader's error, before any code of ours runs:
/// the debug binary, 100 MB, at 20,000 KiB) is left out, and at least all
/// but one limit must be tried.
#[test]
fn no_ulimit_makes_the_vm_abort() {
    let dir = harness::scratch("limits-system-oom-sweep");
    harness::write_program(&dir, "grow.bc", GROWS_FOREVER);
    let limits = [20_000, 60_000, 100_000, 150_000, 200_000, 300_000, 500_000];
    let mut tried = 0;
    for kib in limits {
        if !loads_under_ulimit(&dir, kib) {
            eprintln!("note: ulimit -v {kib} is below what loading the binary takes; left out");
            continue;
        }
        tried += 1;
        let _ = std::fs::remove_file(dir.join("p.json"));
        let args = "run grow.bc --max-heap=64G --profile=exhaustive --profile-out=p.json";
        let (status, stderr) = run_under_ulimit(&dir, kib, args);
        assert_eq!(
            status,
            Some(70),
            "ulimit -v {kib}:\n{}",
            harness::clip(&stderr)
        );
        assert!(
            stderr.contains("out of memory: the system refused")
                || stderr.contains("the OS refused")
                || stderr.contains("vm: cannot start the profiler's "),
            "ulimit -v {kib}:\n{}",
            harness::clip(&stderr)
        );
        assert!(
            !stderr.contains("memory allocation of"),
            "ulimit -v {kib}: Rust's abort message:\n{}",
            harness::clip(&stderr)
        );
        if dir.join("p.json").exists() {
            profile::Profile::read(&dir.join("p.json"))
                .unwrap_or_else(|e| panic!("ulimit -v {kib}: a broken profile: {e:?}"));
        } else {
            assert!(
                stderr.contains("was not written"),
                "ulimit -v {kib}: the profile vanished without a word:\n{}",
                harness::clip(&stderr)
            );
        }
    }
    assert!(
        tried + 1 >= limits.len(),
        "only {tried} of the limits could load the binary"
    );
}

/// Can the binary be loaded at all under `ulimit -v kib` (`vm --version`
/// runs)? The dynamic loader maps the binary and its libraries before any
/// code of ours, and fails with status 127 where they do not fit.
fn loads_under_ulimit(dir: &std::path::Path, kib: u64) -> bool {
    run_under_ulimit(dir, kib, "--version").0 == Some(0)
}

/// Prints a line, sleeps 2 s, then grows forever: objects of `fields`
/// fields, each with an array of 100 elements when `arrays`. With
/// `arrays`, `main` first calls 400 methods once each, so that its
/// exhaustive profile is large: writing it after the first refusal needs
/// more memory than the free fragments a run leaves (a profile of a few
/// hundred bytes may fit them, or not, by where the allocator happened to
/// put things).
fn ready_then_grow(fields: usize, arrays: bool) -> String {
    let decl: String = (0..fields).map(|i| format!("  .field f{i}\n")).collect();
    let (pad, methods, calls) = if arrays {
        (
            "  load n\n  push 100\n  newarray\n  putfield Big.f0\n",
            (0..400)
                .map(|i| format!(".method m{i}()\n  push 0\n  ret\n.end\n"))
                .collect::<String>(),
            (0..400)
                .map(|i| format!("  call m{i}\n  pop\n"))
                .collect::<String>(),
        )
    } else {
        ("", String::new(), String::new())
    };
    format!(
        ".class Big\n  .field next\n{decl}.end\n{methods}\
         .method main()\n  .locals head n\n{calls}  push 1\n  print\n  push 2000\n  sleep\n\
         null\n  store head\nloop:\n  new Big\n  store n\n  load n\n  load head\n\
         putfield Big.next\n{pad}  load n\n  store head\n  jmp loop\n.end\n"
    )
}

/// Runs `vm run PROG --profile=exhaustive --profile-out=p.json` in `dir`;
/// once it has printed its first line, lowers its address-space limit
/// (`RLIMIT_AS`, as `prlimit --pid` does) far below what it already uses,
/// so that every allocation needing more memory from the system is
/// refused, before and after the reserve is given back. Status and stderr.
fn run_then_starve(dir: &std::path::Path, prog: &str) -> (Option<i32>, String) {
    use std::io::{BufRead, Read};
    let mut child = std::process::Command::new(harness::VM)
        .args(["run", prog, "--max-heap=1G", "--profile=exhaustive"])
        .arg("--profile-out=p.json")
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("vm starts");
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("read stdout");
    assert_eq!(first, "1\n", "the program did not start");
    let limit = libc::rlimit {
        rlim_cur: 1 << 20,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: a plain system call on our own child, with a valid struct.
    let set = unsafe {
        libc::prlimit(
            child.id() as libc::pid_t,
            libc::RLIMIT_AS,
            &limit,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(set, 0, "prlimit: {}", std::io::Error::last_os_error());
    let mut stderr = String::new();
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let _ = err.read_to_string(&mut stderr);
        stderr
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > DEFAULT_TIMEOUT {
            let _ = child.kill();
            panic!("`vm run {prog}` did not end after its memory was taken away");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), reader.join().expect("stderr reader"))
}

/// Issue 16, item 3: the allocator's last word (vm/src/memory/process_allocator.rs). When the
/// system refuses memory again after the 16 MiB reserve has been given
/// back, the process prints one last line (what was refused, that the
/// reserve is spent, that the profile was not written, what to do),
/// removes the unfinished profile file, and exits with status 70: no
/// abort, no Rust message, no empty or partial profile left behind.
/// Reached here by taking the process's address space away under it
/// (the limit below what it already uses, so giving back the reserve
/// cannot bring it under): refused in the middle of the run (an object's
/// fields, which the VM cannot do without), and refused first where the
/// VM can do without (an array: the runtime error), then again while the
/// profile is written.
#[test]
fn the_system_refusing_memory_past_the_reserve_is_the_last_line() {
    let dir = harness::scratch("limits-past-the-reserve");
    harness::write_program(&dir, "objects.bc", &ready_then_grow(500, false));
    harness::write_program(&dir, "arrays.bc", &ready_then_grow(1, true));
    for prog in ["objects.bc", "arrays.bc"] {
        let _ = std::fs::remove_file(dir.join("p.json"));
        let (status, stderr) = run_then_starve(&dir, prog);
        assert_eq!(status, Some(70), "{prog}:\n{}", harness::clip(&stderr));
        let last = stderr.lines().last().unwrap_or("");
        assert!(
            last.starts_with("vm: out of memory: the system refused ")
                && last.ends_with(
                    " bytes and the VM has no reserve left; the profile `p.json` was not \
                     written (raise `ulimit -v` or lower --max-heap)"
                ),
            "{prog}: the last line is not the allocator's:\n{}",
            harness::clip(&stderr)
        );
        assert!(stderr.ends_with('\n'), "{prog}: {stderr:?}");
        for rust in ["memory allocation of", "panicked", "backtrace", "Aborted"] {
            assert!(
                !stderr.contains(rust),
                "{prog}: `{rust}` on stderr:\n{}",
                harness::clip(&stderr)
            );
        }
        assert!(
            !dir.join("p.json").exists(),
            "{prog}: the unfinished profile was left behind"
        );
    }
}
