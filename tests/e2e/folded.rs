//! `vm report --format=folded` (docs/REPORTS.md) streams its lines from
//! the profile's list of contexts when the list is depth first, as the
//! profiler writes it, and walks the indexed tree otherwise. Both must
//! give the same bytes: checked here through the real binary, against the
//! tree's walk (`profile::report::tree::Full::write_folded`, what the
//! format was made with before it streamed), on real profiles of every
//! calling-context record (`cct`, `pcct`, `acct`, `ccmap`, and the
//! exhaustive `cct`), with threads, and on each profile's list reordered
//! breadth first (still each parent before its children), which only the
//! tree's walk can write.

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use profile::report::tree::Full;
use profile::{CctNode, Profile};

use crate::harness;

/// The programs: threads (several entry methods, one shared by several
/// threads), the paper example, and a recursive Fibonacci from two call
/// sites (written to the scratch directory) for a deep, bushy tree.
const PROGRAMS: [&str; 3] = [
    "programs/examples/threads.bc",
    "programs/examples/arnold-grove-fig1.bc",
    "fib.bc",
];

const FIB: &str = "\
.method main()
  push 12
  call fib
  print
  push 0
  ret
.end
.method fib(n)
  load n
  push 2
  jlt small
  load n
  push 1
  sub
  call fib
  load n
  push 2
  sub
  call fib
  add
  ret
small:
  load n
  ret
.end
";

/// The runs, each writing a profile with a calling-context tree.
const RUNS: [&[&str]; 5] = [
    &["--profile=exhaustive", "--record=cct"],
    &["--profile=cbs", "--interval=10us", "--record=cct"],
    &["--profile=cbs", "--interval=10us", "--record=pcct"],
    &["--profile=cbs", "--interval=10us", "--record=acct"],
    &["--profile=timer", "--interval=10us", "--record=ccmap"],
];

/// What the tree's walk writes of `cct`.
fn walked(cct: &[CctNode]) -> String {
    let mut out = Vec::new();
    Full::new(cct).write_folded(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The lines of `cct` in the list's order, each context's stack made from
/// its parent's (what streaming would write of a list in any order).
fn in_list_order(cct: &[CctNode]) -> String {
    let mut stack_of: HashMap<u64, String> = HashMap::new();
    let mut out = String::new();
    for n in cct {
        let stack = match n.parent.map(|p| &stack_of[&p]) {
            None => {
                stack_of.insert(n.id, String::new());
                continue;
            }
            Some(above) if above.is_empty() => n.method.to_string(),
            Some(above) => format!("{above};{}", n.method),
        };
        if n.self_ > 0 {
            out.push_str(&format!("{stack} {}\n", n.self_));
        }
        stack_of.insert(n.id, stack);
    }
    out
}

/// `cct` breadth first, each node's children kept in their order.
fn breadth_first(cct: &[CctNode]) -> Vec<CctNode> {
    let mut kids: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, n) in cct.iter().enumerate() {
        if let Some(p) = n.parent {
            kids.entry(p).or_default().push(i);
        }
    }
    let mut out = Vec::with_capacity(cct.len());
    let mut queue = VecDeque::from([0usize]);
    while let Some(i) = queue.pop_front() {
        out.push(cct[i].clone());
        queue.extend(kids.get(&cct[i].id).into_iter().flatten());
    }
    out
}

/// `vm report FILE --format=folded` in `dir`, its stdout; checked to be
/// what `-o` writes (streamed as read from the file when it can be).
fn folded(dir: &Path, file: &str) -> String {
    let r = harness::run_vm_in(
        dir,
        &["report", file, "--format=folded"],
        harness::DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    let o = harness::run_vm_in(
        dir,
        &["report", file, "--format=folded", "-o", "out.folded"],
        harness::DEFAULT_TIMEOUT,
    );
    o.assert_status(0);
    assert_eq!(o.stdout, "");
    let written = std::fs::read_to_string(dir.join("out.folded")).unwrap();
    assert_eq!(written, r.stdout, "{file}: -o and stdout");
    std::fs::remove_file(dir.join("out.folded")).unwrap();
    r.stdout
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn streamed_folded_stacks_are_the_tree_walks_bytes_on_every_record() {
    let dir = harness::scratch("folded_streamed");
    let fib = harness::write_program(&dir, "fib.bc", FIB);
    let fib = fib.to_str().unwrap();
    let mut reordered = 0;
    for (pi, program) in PROGRAMS.iter().enumerate() {
        let program = if *program == "fib.bc" { fib } else { program };
        for (ri, run) in RUNS.iter().enumerate() {
            let name = format!("p{pi}-{ri}.json");
            let out = format!("--profile-out={}", dir.join(&name).display());
            let mut args = vec!["run", program, "--seed=1", &out];
            if !run[0].contains("exhaustive") {
                args.push("--clock=virtual");
            }
            args.extend_from_slice(run);
            harness::vm(&args).assert_status(0);
            let what = format!("{program} {run:?}");
            let p = Profile::read(&dir.join(&name)).expect("a profile");
            let cct = p.cct.clone().expect("a cct");
            assert!(cct.len() > 2, "{what}: contexts to write");
            let expected = walked(&cct);
            assert!(!expected.is_empty(), "{what}: weights to write");
            assert_eq!(folded(&dir, &name), expected, "{what}");
            assert_eq!(in_list_order(&cct), expected, "{what}: depth first");
            // The same tree listed breadth first: another order of lines
            // if written in list order, the same bytes from `vm report`.
            let bfs = breadth_first(&cct);
            assert_eq!(bfs.len(), cct.len(), "{what}");
            if in_list_order(&bfs) != expected {
                reordered += 1;
            }
            let other = format!("bfs-{name}");
            let mut q = p.clone();
            q.cct = Some(bfs);
            std::fs::write(dir.join(&other), q.to_json()).unwrap();
            assert_eq!(folded(&dir, &other), expected, "{what}, breadth first");
        }
    }
    // fib's exact tree, at least, read breadth first gives other lines.
    assert!(reordered >= 1, "no list was reordered");
}

/// A bad profile given `-o FILE`: the message and status of every format,
/// FILE left as it was, no partial file left beside it, whether the
/// profile goes bad before its contexts, among them or after them.
#[test]
fn a_bad_profile_leaves_the_output_file_alone() {
    let dir = harness::scratch("folded_bad");
    harness::vm(&[
        "run",
        "programs/examples/arnold-grove-fig1.bc",
        "--profile=exhaustive",
        "--record=cct",
        &format!("--profile-out={}", dir.join("good.json").display()),
    ])
    .assert_status(0);
    let good = std::fs::read_to_string(dir.join("good.json")).unwrap();
    let cct = good.find("\"cct\"").unwrap();
    let bad = [
        good.replace("vm-profile/1", "vm-profile/9"),
        format!("{}\"method\": 7{}", &good[..cct], &good[cct..]),
        {
            let last = good.rfind("\"self\": ").unwrap() + 8;
            format!("{}-{}", &good[..last], &good[last..])
        },
        good.replace("\"parent\": 2,", "\"parent\": 9,"),
        good[..good.len() / 2].to_string(),
        good.trim_end().to_string() + " x",
    ];
    for (i, text) in bad.iter().enumerate() {
        std::fs::write(dir.join("bad.json"), text).unwrap();
        std::fs::write(dir.join("out.folded"), "before\n").unwrap();
        let before = listing(&dir);
        let to_stdout = harness::run_vm_in(
            &dir,
            &["report", "bad.json", "--format=folded"],
            harness::DEFAULT_TIMEOUT,
        );
        let to_file = harness::run_vm_in(
            &dir,
            &["report", "bad.json", "--format=folded", "-o", "out.folded"],
            harness::DEFAULT_TIMEOUT,
        );
        assert_eq!(to_stdout.status, Some(65), "{i}: {}", to_stdout.stderr);
        assert_eq!(to_file.status, to_stdout.status, "{i}");
        assert_eq!(to_file.stderr, to_stdout.stderr, "{i}");
        assert_eq!(to_stdout.stdout, "", "{i}");
        assert_eq!(
            std::fs::read_to_string(dir.join("out.folded")).unwrap(),
            "before\n",
            "{i}"
        );
        assert_eq!(listing(&dir), before, "{i}: a partial file is left");
    }
}
