//! Issue 35, item 4: what `--max-heap` bounds (docs/CLI.md). The
//! exhaustive profile's calling context tree, the frame list and the value
//! stack count in it; a thread holds little more than its live data; a
//! deep recursion that the system refuses memory to keeps its trace and its
//! profile; and the trace of a million frames costs no memory.

use crate::harness::{self, run_vm_in, DEFAULT_TIMEOUT};
use crate::limits::run_under_ulimit;

/// A binary recursion of depth `depth` through two call sites (`t:LINE`
/// and `u`): every call is a new calling context, 3 * 2^depth of them.
fn binary_tree(depth: u32) -> String {
    format!(
        ".method main()\n  push {depth}\n  call t\n  print\n  push 0\n  ret\n.end\n\
         .method t(n)\n  load n\n  jz leaf\n  load n\n  push 1\n  sub\n  call t\n  load n\n\
         push 1\n  sub\n  call u\n  add\n  ret\nleaf:\n  push 1\n  ret\n.end\n\
         .method u(n)\n  load n\n  call t\n  ret\n.end\n"
    )
}

/// The first line of `stderr`, and whether a trace line `at WHERE`
/// follows it.
fn first_line_and_trace<'a>(stderr: &'a str, at: &str) -> (&'a str, bool) {
    let first = stderr.lines().next().unwrap_or("");
    (
        first,
        stderr
            .lines()
            .skip(1)
            .any(|l| l.starts_with(&format!("  at {at}"))),
    )
}

/// The exhaustive calling context tree of a depth-18 binary recursion
/// (790,000 contexts, 30 MB of tree, a 118 MB profile) under
/// `--max-heap=8M`: it used to grow past the limit unchecked (at depth 26,
/// 2.1 GB for a 512 MB limit, then the system's refusal and no profile).
/// Now the tree is counted: the run stops with the runtime error saying
/// how much the tree holds, the trace, and the profile of what ran, within
/// the limit.
#[test]
fn the_exhaustive_calling_context_tree_is_bounded_by_max_heap() {
    let dir = harness::scratch("memory-limits-cct");
    harness::write_program(&dir, "tree.bc", &binary_tree(18));
    let args = "run tree.bc --max-heap=8M --profile=exhaustive --record=cct \
                --profile-out=p.json --stats";
    let (status, stderr) = run_under_ulimit(&dir, 1_500_000, args);
    assert_eq!(status, Some(70), "`{args}`:\n{}", harness::clip(&stderr));
    let (first, traced) = first_line_and_trace(&stderr, "t (tree.bc:");
    assert!(
        first.starts_with("runtime error: out of memory: heap limit 8 MiB reached (--max-heap), ")
            && first.ends_with(" of it held by the profile's calling context tree"),
        "{}",
        harness::clip(&stderr)
    );
    assert!(traced, "no trace:\n{}", harness::clip(&stderr));
    let p = profile::Profile::read(&dir.join("p.json")).expect("the profile is written");
    let contexts = p.cct.expect("a cct").len();
    assert!(
        contexts > 1000 && contexts < 8 << 20 >> 5,
        "{contexts} contexts: more than 8 MiB of 32-byte nodes"
    );
    let rss_kb = harness::peak_rss_kb(&stderr);
    assert!(rss_kb < 64 << 10, "peak resident memory {rss_kb} KiB");
}

/// A program of sixteen threads, each keeping a list of 100 objects live
/// while it churns through 20,000 arrays of garbage.
fn sixteen_threads() -> String {
    ".class Node\n  .field next\n.end\n\
     .method work(k)\n  .locals head n i\n  null\n  store head\nbuild:\n  load i\n  push 100\n\
     jge churn\n  new Node\n  store n\n  load n\n  load head\n  putfield Node.next\n  load n\n\
     store head\n  inc i 1\n  jmp build\nchurn:\n  push 0\n  store i\nagain:\n  load i\n\
     push 20000\n  jge done\n  push 10\n  newarray\n  pop\n  inc i 1\n  jmp again\ndone:\n\
     push 0\n  ret\n.end\n\
     .method main()\n  .locals tids i\n  push 16\n  newarray\n  store tids\nstart:\n  load i\n\
     push 16\n  jge joined\n  load tids\n  load i\n  load i\n  spawn work\n  astore\n  inc i 1\n\
     jmp start\njoined:\n  push 0\n  store i\nnext:\n  load i\n  push 16\n  jge end\n  load tids\n\
     load i\n  aload\n  join\n  pop\n  inc i 1\n  jmp next\nend:\n  push 7\n  print\n  push 0\n\
     ret\n.end\n"
        .to_string()
}

/// Sixteen threads with 100 live objects each (100 KB of live data in
/// all) used to fail at `--max-heap=4M` every time, each thread holding a
/// 1 MiB step of the budget: the limit bounded per-thread reserves, not
/// live data. Now a thread holds little more than its live data, and the
/// program runs in 1 MiB, as its one-thread version does; every time.
#[test]
fn sixteen_threads_of_little_live_data_run_in_a_small_heap() {
    let dir = harness::scratch("memory-limits-threads");
    harness::write_program(&dir, "threads.bc", &sixteen_threads());
    for _ in 0..5 {
        let r = run_vm_in(
            &dir,
            &["run", "threads.bc", "--max-heap=1M"],
            DEFAULT_TIMEOUT,
        );
        r.assert_status(0);
        assert_eq!(r.stdout, "7\n");
    }
}

/// A recursion allowed a hundred million frames, under a `ulimit -v`
/// far below `--max-heap`: the growth of the frame list, the value stack
/// and the exhaustive profile's stack of open activations is fallible, so
/// the system's refusal is the documented runtime error with its trace and
/// the profile written (it used to spend the allocator's reserve, then end
/// with "no reserve left" and no profile). A method without arguments or
/// locals adds frames without value slots: its frames are counted too
/// (they used to grow past `--max-heap=64M` to 1.5 GB).
#[test]
fn deep_recursion_meets_its_limits_with_the_trace_and_the_profile() {
    let dir = harness::scratch("memory-limits-deep");
    harness::write_program(
        &dir,
        "deep.bc",
        ".method f(n)\n  .locals a b c d\n  load n\n  push 1\n  add\n  call f\n  ret\n.end\n\
         .method main()\n  push 0\n  call f\n  ret\n.end\n",
    );
    harness::write_program(
        &dir,
        "flat.bc",
        ".method f()\n  call f\n  ret\n.end\n.method main()\n  call f\n  ret\n.end\n",
    );
    for (kib, args, first, at) in [
        (
            400_000,
            "run deep.bc --max-frames=100000000 --max-heap=64G --profile=exhaustive \
             --profile-out=deep.json",
            "runtime error: out of memory: the system refused ",
            "f (deep.bc:6)",
        ),
        (
            1_000_000,
            "run flat.bc --max-frames=100000000 --max-heap=64M --profile=exhaustive \
             --profile-out=flat.json",
            "runtime error: out of memory: heap limit 64 MiB reached (--max-heap)",
            "f (flat.bc:2)",
        ),
    ] {
        let (status, stderr) = run_under_ulimit(&dir, kib, args);
        assert_eq!(status, Some(70), "`{args}`:\n{}", harness::clip(&stderr));
        let (line, traced) = first_line_and_trace(&stderr, at);
        assert!(
            line.starts_with(first),
            "`{args}`:\n{}",
            harness::clip(&stderr)
        );
        assert!(
            traced,
            "`{args}`: no trace at {at}:\n{}",
            harness::clip(&stderr)
        );
        assert!(
            stderr.contains(" frames omitted ..."),
            "{}",
            harness::clip(&stderr)
        );
    }
    for file in ["deep.json", "flat.json"] {
        let p = profile::Profile::read(&dir.join(file)).expect("profile written");
        assert!(
            p.methods.is_some_and(|m| m.iter().any(|m| m.name == "f")),
            "{file}"
        );
    }
}

/// A recursion of one-slot frames meeting `--max-heap=64M`: the process's
/// peak resident memory stays near the limit (it was 1.7 times the limit:
/// the runtime error's trace listed every one of the 2.8 million frames
/// before printing 51 of them).
#[test]
fn deep_recursion_stays_near_its_limit() {
    let dir = harness::scratch("memory-limits-rss");
    harness::write_program(
        &dir,
        "deep1.bc",
        ".method f(n)\n  load n\n  call f\n  ret\n.end\n.method main()\n  push 0\n  call f\n  ret\n.end\n",
    );
    let r = run_vm_in(
        &dir,
        &[
            "run",
            "deep1.bc",
            "--max-frames=100000000",
            "--max-heap=64M",
            "--stats",
        ],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(70);
    let rss_kb = harness::peak_rss_kb(&r.stderr);
    // The limit, and the binary, the loaded program and the threads'
    // own stacks (docs/CLI.md, `--max-heap`: what is not counted).
    assert!(
        rss_kb < (64 + 16) << 10,
        "peak resident memory {rss_kb} KiB"
    );
}

/// Loading a 4 MB source of long method bodies holds one method's syntax
/// tree at a time (from 1 MiB on, `verify::assemble` reads the
/// declarations first, then resolves each body as soon as it is parsed),
/// so the peak of `vm run` above that of an empty program (the binary's
/// own, which depends on the build: 5 MiB for the release binary, 11 for
/// the debug one) is about 6.3 times the source: the source, the module
/// and the loaded code. With the binary it was 48 times the source when
/// every line's tokens and the whole tree were held at once, and 10.5
/// times when the tree was.
#[test]
fn loading_a_source_takes_a_small_multiple_of_its_size() {
    let dir = harness::scratch("memory-limits-loading");
    let mut text = String::new();
    let mut i = 0;
    while text.len() < 4_000_000 {
        text.push_str(&format!(".method m{i}(a, b)\n  .locals x y\n"));
        for j in 0..40 {
            text.push_str(&format!("  load a\n  push {j}\n  add\n  store x\n"));
        }
        text.push_str("  load x\n  ret\n.end\n");
        i += 1;
    }
    text.push_str(".method main()\n  push 0\n  ret\n.end\n");
    harness::write_program(&dir, "big.bc", &text);
    harness::write_program(&dir, "empty.bc", ".method main()\n  push 0\n  ret\n.end\n");
    let peak_kb = |program: &str| {
        let r = run_vm_in(&dir, &["run", program, "--stats"], DEFAULT_TIMEOUT);
        r.assert_status(0);
        harness::peak_rss_kb(&r.stderr)
    };
    let (rss_kb, empty_kb) = (peak_kb("big.bc"), peak_kb("empty.bc"));
    let ratio = rss_kb.saturating_sub(empty_kb) as f64 * 1024.0 / text.len() as f64;
    assert!(
        ratio < 8.0,
        "peak resident memory {rss_kb} KiB, {empty_kb} KiB for an empty program: \
         {ratio:.1} times the source"
    );
}
