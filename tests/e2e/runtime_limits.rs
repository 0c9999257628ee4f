//! Runtime limits through the real binary: garbage collection keeps memory
//! small (measured by the kernel's peak-RSS figure that `--stats` reports),
//! `addglobal` is atomic under contention, and many threads start, sleep,
//! spawn, join and end correctly.

use std::path::PathBuf;
use std::process::Command;

fn program(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/programs/runtime")
        .join(name)
}

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn vm(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_vm"))
        .args(args)
        .output()
        .expect("vm runs");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `name` with `--stats` and returns (stdout, peak RSS in KB, collections).
fn run_with_stats(name: &str) -> (String, u64, u64) {
    let p = program(name);
    let r = vm(&["run", p.to_str().unwrap(), "--stats"]);
    assert_eq!(r.status, 0, "{name}: {}", r.stderr);
    let line = r
        .stderr
        .lines()
        .find(|l| l.starts_with("vm: stats:"))
        .expect("a stats line");
    let field = |key: &str| -> u64 {
        let mut words = line.split_whitespace();
        words.find(|w| *w == key).expect(key);
        words.next().unwrap().parse().expect("a number")
    };
    (r.stdout, field("peak-rss-kb"), field("gc"))
}

const LIMIT_KB: u64 = 200 * 1024;

#[test]
fn fifty_million_short_lived_objects_run_in_small_memory() {
    let (out, rss, gcs) = run_with_stats("gc_churn.bc");
    assert_eq!(out, "25000000\n");
    assert!(gcs > 10, "expected many collections, got {gcs}");
    assert!(
        rss < LIMIT_KB,
        "peak RSS {rss} KB is not under {LIMIT_KB} KB"
    );
}

#[test]
fn deep_live_structures_survive_collection_amid_churn() {
    let (out, rss, gcs) = run_with_stats("gc_deep.bc");
    assert_eq!(out, "1000000\n");
    assert!(gcs > 0);
    assert!(
        rss < LIMIT_KB,
        "peak RSS {rss} KB is not under {LIMIT_KB} KB"
    );
}

#[test]
fn addglobal_is_atomic_fifty_times() {
    let p = program("add4x10000.bc");
    for i in 0..50 {
        let r = vm(&["run", p.to_str().unwrap()]);
        assert_eq!(
            (r.status, r.stdout.as_str()),
            (0, "40000\n"),
            "run {i}: {}",
            r.stderr
        );
    }
}

#[test]
fn sixty_four_threads_start_sleep_spawn_join_and_end() {
    let p = program("threads64.bc");
    for _ in 0..5 {
        let r = vm(&["run", p.to_str().unwrap(), "--stats"]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        // 64 workers sum 0..999 each; workers k = 0, 3, ..., 63 add 2k
        // from a child thread: 64 * 499500 + 2 * 693.
        assert_eq!(r.stdout, "31969386\n64\n");
        assert!(r.stderr.contains("threads 87"), "{}", r.stderr);
    }
}
