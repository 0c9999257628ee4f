//! Calling contexts of the sampling profiles (`--record=cct` with
//! `--walk=full|marked|incremental`), through the real binary:
//!
//! - sampling every call (`--profile=counter --every=1`) gives exactly the
//!   exhaustive CCT's contexts and `calls`, under every walk, on every
//!   example program;
//! - Whaley's Figure 9: recursion keeps its full context (one context per
//!   recursion depth, not one per method);
//! - Whaley's Figure 10: a walk cut by `--max-walk` starts a detached
//!   subtree under `<detached>` instead of attaching to the tree, and what
//!   it holds is right, only unattached;
//! - `--clock=virtual --seed` makes a CCT profile reproducible;
//! - walk options that do not apply are usage errors.
//!
//! Contexts are compared as paths of (method, line) from the root, the
//! identity `vm compare` uses (docs/LANGUAGE.md "Accuracy metrics"),
//! interned ([`ContextPath`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use profile::{CctNode, Profile};

pub(crate) use crate::context_path::{ContextPath, Frame};
use crate::harness::{self, run_vm_in, scratch, Mode, Run, DEFAULT_TIMEOUT};

pub(crate) fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/examples")
}

pub(crate) fn contexts_dir() -> PathBuf {
    harness::programs_dir("contexts")
}

/// Runs `name` in `dir` with `args` and `--profile-out`; returns the run
/// and the profile.
pub(crate) fn profile_in(dir: &Path, name: &str, args: &[&str], tag: &str) -> (Run, Profile) {
    let out = scratch(&format!("contexts-{tag}")).join("p.json");
    let out_arg = format!("--profile-out={}", out.display());
    let mut all = vec!["run", name];
    all.extend_from_slice(args);
    all.push(&out_arg);
    let r = run_vm_in(dir, &all, DEFAULT_TIMEOUT);
    r.assert_no_crash();
    r.assert_status(0);
    let p = Profile::read(&out).unwrap_or_else(|e| panic!("{}: no profile: {e}", r.cmd));
    (r, p)
}

pub(crate) fn cct(p: &Profile) -> &[CctNode] {
    p.cct.as_deref().expect("a cct section")
}

/// Context path -> calls (contexts with one path summed; the root left
/// out).
pub(crate) fn calls_by_path(p: &Profile) -> BTreeMap<ContextPath, u64> {
    counts_by_path(p)
        .into_iter()
        .filter(|(k, _)| !k.is_empty())
        .map(|(k, (calls, _))| (k, calls))
        .collect()
}

/// The first few contexts whose counts differ, one per line, for a
/// failure message.
pub(crate) fn path_diff<V: std::fmt::Debug + PartialEq>(
    want: &BTreeMap<ContextPath, V>,
    got: &BTreeMap<ContextPath, V>,
) -> String {
    want.keys()
        .chain(got.keys())
        .filter(|k| want.get(*k) != got.get(*k))
        .take(5)
        .map(|k| format!("{k:?}: want {:?}, got {:?}", want.get(k), got.get(k)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whaley's Figure 9 in a sampled tree `p` (run `cmd`): the deepest
/// recursion's context is there, every context is a real one (in
/// `exact`), and `A` has one context per recursion depth, five, where a
/// tree that folds recursion has one.
pub(crate) fn assert_recursion_keeps_context(
    cmd: &str,
    p: &Profile,
    exact: &BTreeMap<ContextPath, u64>,
    deepest: &ContextPath,
) {
    let got = calls_by_path(p);
    assert!(got.contains_key(deepest), "{cmd}: {got:?}");
    for path in got.keys() {
        assert!(exact.contains_key(path), "{cmd}: {path:?} is no context");
    }
    let a_nodes = cct(p).iter().filter(|n| n.method == "A").count();
    assert_eq!(a_nodes, 5, "{cmd}");
}

/// main -> M (38) -> A (51) -> A (78) x4 -> B (82): the deepest context
/// of whaley-fig9.bc.
pub(crate) fn deepest_of_figure_9() -> ContextPath {
    let mut frames = vec![("main", None), ("M", Some(38)), ("A", Some(51))];
    frames.extend(std::iter::repeat_n(("A", Some(78)), 4));
    frames.push(("B", Some(82)));
    ContextPath::of(&frames)
}

pub(crate) fn is_detached(path: &ContextPath) -> bool {
    path.frames()
        .first()
        .is_some_and(|(m, _)| m == "<detached>")
}

pub(crate) const EXAMPLES: &[&str] = &[
    "whaley-fig5.bc",
    "whaley-fig9.bc",
    "arnold-sweeney-fig6.bc",
    "arnold-grove-fig1.bc",
    "fib.bc",
    "classes.bc",
    "exceptions.bc",
    "threads.bc",
    "arrays.bc",
    "strings.bc",
    "loops.bc",
];

#[test]
fn sampling_every_call_gives_the_exhaustive_cct() {
    for name in EXAMPLES {
        let (_, exact) = profile_in(
            &examples(),
            name,
            &["--profile=exhaustive", "--record=cct"],
            "exact",
        );
        let want = calls_by_path(&exact);
        assert!(want.len() > 2, "{name}: a trivial exhaustive CCT");
        for walk in ["full", "marked", "incremental"] {
            let walk_arg = format!("--walk={walk}");
            let (r, p) = profile_in(
                &examples(),
                name,
                &[
                    "--profile=counter",
                    "--every=1",
                    "--record=dcg,cct",
                    &walk_arg,
                ],
                &format!("every1-{walk}"),
            );
            assert_eq!(p.config.walk.as_deref(), Some(walk), "{}", r.cmd);
            let got = calls_by_path(&p);
            if got != want {
                panic!("{}: contexts differ:\n{}", r.cmd, path_diff(&want, &got));
            }
            // Every sample is one method sample: the selfs add up to them.
            let selfs: u64 = cct(&p).iter().map(|n| n.self_).sum();
            assert_eq!(selfs, p.run.samples, "{}", r.cmd);
        }
    }
}

/// Context path -> (calls, self), contexts with one path summed (the
/// root's path is empty).
pub(crate) fn counts_by_path(p: &Profile) -> BTreeMap<ContextPath, (u64, u64)> {
    let nodes = cct(p);
    let mut out = BTreeMap::new();
    for (n, path) in nodes.iter().zip(ContextPath::of_nodes(nodes)) {
        let e = out.entry(path).or_insert((0, 0));
        e.0 += n.calls;
        e.1 += n.self_;
    }
    out
}

/// Two trees of nearly the same samples are the same where it counts:
/// every context with 1% of the samples or more is in both, with counts
/// within 2% (and 2); rarer contexts may differ. The virtual clock would
/// make the samples of two walks the same but for the profiler's own work,
/// which it charges: a full walk costs more cycles than a marked one, so
/// the ticks after the first walk land a few cycles apart.
pub(crate) fn assert_nearly_same(
    a: &BTreeMap<ContextPath, (u64, u64)>,
    b: &BTreeMap<ContextPath, (u64, u64)>,
    what: &str,
) {
    let total: u64 = a.values().map(|v| v.0 + v.1).sum();
    let near = |x: u64, y: u64| x.abs_diff(y) <= 2 + x.max(y) / 50;
    for (path, &(calls, own)) in a.iter().chain(b.iter()) {
        if (calls + own) * 100 < total {
            continue;
        }
        let (x, y) = (a.get(path), b.get(path));
        assert!(
            matches!((x, y), (Some(x), Some(y)) if near(x.0, y.0) && near(x.1, y.1)),
            "{what}: {path:?}: {x:?} against {y:?} ({total} in all)"
        );
    }
}

#[test]
fn marked_and_full_walks_find_the_same_contexts_for_the_same_samples() {
    // The virtual clock makes the samples (nearly: see
    // `assert_nearly_same`) the same whatever the walk, so without cuts
    // the two walks must build the same tree; and under timer and cbs,
    // with many frames pushed and popped between samples, every context
    // either finds is a real one (a stale mark would attach a frame to a
    // dead activation's context).
    for name in [
        "whaley-fig5.bc",
        "arnold-sweeney-fig6.bc",
        "fib.bc",
        "threads.bc",
    ] {
        let (_, exact) = profile_in(
            &examples(),
            name,
            &["--profile=exhaustive", "--record=cct"],
            "same-exact",
        );
        let exact = calls_by_path(&exact);
        for profile in [&["--profile=timer"][..], &["--profile=cbs", "--stride=2"]] {
            let run = |walk: &[&str], tag: &str| {
                let mut args = profile.to_vec();
                args.extend_from_slice(&[
                    "--clock=virtual",
                    "--interval=20us",
                    "--seed=9",
                    "--record=cct",
                ]);
                args.extend_from_slice(walk);
                profile_in(&examples(), name, &args, tag)
            };
            let (r, full) = run(&["--walk=full"], "same-full");
            let (_, marked) = run(&["--walk=marked", "--max-walk=64"], "same-marked");
            let (_, incremental) = run(&["--walk=incremental"], "same-incremental");
            let f = counts_by_path(&full);
            let (m, i) = (counts_by_path(&marked), counts_by_path(&incremental));
            // arnold-sweeney-fig6's deep, regular recursion makes a full
            // walk's charged cycles move later ticks onto other phases of
            // it: its samples differ by more than the tolerance, and only
            // the contexts' reality is checked.
            if name != "arnold-sweeney-fig6.bc" {
                assert_nearly_same(&f, &m, &format!("{}: the marked walk", r.cmd));
                assert_nearly_same(&f, &i, &format!("{}: the incremental walk", r.cmd));
            }
            for path in f
                .keys()
                .chain(m.keys())
                .chain(i.keys())
                .filter(|p| !p.is_empty())
            {
                assert!(
                    exact.contains_key(path),
                    "{}: {path:?} is no context",
                    r.cmd
                );
            }
        }
    }
}

#[test]
fn compare_scores_an_every_call_cct_at_100() {
    let dir = scratch("contexts-compare");
    let run = |args: &[&str], out: &str| {
        let mut all = vec!["run", "whaley-fig5.bc"];
        all.extend_from_slice(args);
        let o = format!("--profile-out={}", dir.join(out).display());
        all.push(&o);
        run_vm_in(&examples(), &all, DEFAULT_TIMEOUT).assert_status(0);
    };
    run(&["--profile=exhaustive", "--record=cct"], "exact.json");
    run(
        &[
            "--profile=counter",
            "--every=1",
            "--record=cct",
            "--walk=marked",
        ],
        "marked.json",
    );
    let r = run_vm_in(
        &dir,
        &["compare", "marked.json", "exact.json"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert!(r.stdout.contains("cct-overlap: 100.00"), "{}", r.stdout);
    assert!(
        r.stdout.contains("hot-edge-coverage: 100.00"),
        "{}",
        r.stdout
    );
}

#[test]
fn whaley_figure_9_recursion_keeps_full_context() {
    let (_, exact) = profile_in(
        &examples(),
        "whaley-fig9.bc",
        &["--profile=exhaustive", "--record=cct"],
        "w9-exact",
    );
    let exact = calls_by_path(&exact);
    let deepest = deepest_of_figure_9();
    assert!(exact.contains_key(&deepest));
    // A period of 5 against a pattern of 6 calls (5 A, 1 B) per round
    // samples every call position, whatever the first countdown.
    for walk in ["full", "marked", "incremental"] {
        for seed in ["--seed=1", "--seed=4"] {
            let w = format!("--walk={walk}");
            let (r, p) = profile_in(
                &examples(),
                "whaley-fig9.bc",
                &["--profile=counter", "--every=5", seed, "--record=cct", &w],
                &format!("w9-{walk}"),
            );
            assert_recursion_keeps_context(&r.cmd, &p, &exact, &deepest);
        }
    }
}

/// The nodes below a detached root, each with its path from it.
pub(crate) type Below<'a> = Vec<(Vec<Frame>, &'a CctNode)>;

/// A profile's detached subtrees: each detached root (a child of
/// `<detached>`) with the nodes below it and their paths from it (root
/// excluded).
pub(crate) struct Detached<'a> {
    pub(crate) roots: Vec<(&'a CctNode, Below<'a>)>,
}

pub(crate) fn detached(p: &Profile) -> Detached<'_> {
    let nodes = cct(p);
    let all = ContextPath::of_nodes(nodes);
    let index: BTreeMap<u64, usize> = nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
    // For each node under a detached root: that root's position in `roots`.
    let mut root_of: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut roots: Vec<(&CctNode, Below)> = Vec::new();
    for (i, (n, path)) in nodes.iter().zip(&all).enumerate() {
        if path.len() < 2 || !is_detached(path) {
            continue;
        }
        if path.len() == 2 {
            root_of[i] = Some(roots.len());
            roots.push((n, Vec::new()));
        } else {
            let r = root_of[index[&n.parent.unwrap()]].expect("parents come first");
            root_of[i] = Some(r);
            roots[r].1.push((path.frames().split_off(2), n));
        }
    }
    Detached { roots }
}

/// Is the detached path `root_method` + `below` the tail of some exact
/// context (right, only not attached)?
pub(crate) fn is_tail_of_some(
    exact: &BTreeMap<ContextPath, u64>,
    root_method: &str,
    below: &[Frame],
) -> bool {
    exact.keys().any(|ctx| {
        let ctx = ctx.frames();
        ctx.len() > below.len()
            && ctx.ends_with(below)
            && ctx[ctx.len() - below.len() - 1].0 == root_method
    })
}

#[test]
fn whaley_figure_10_a_cut_walk_is_a_detached_subtree() {
    let dir = contexts_dir();
    let (_, exact) = profile_in(
        &dir,
        "deep.bc",
        &["--profile=exhaustive", "--record=cct"],
        "deep-exact",
    );
    let exact = calls_by_path(&exact);
    // Walks never cut: everything attached, every context a real one.
    let sample = ["--profile=counter", "--every=97", "--record=dcg,cct"];
    for (walk, max) in [("marked", "--max-walk=64"), ("full", "--max-walk=64")] {
        let w = format!("--walk={walk}");
        let mut args = sample.to_vec();
        args.extend_from_slice(&[&w, max, "--seed=5"]);
        let (r, p) = profile_in(&dir, "deep.bc", &args, "deep-uncut");
        let got = calls_by_path(&p);
        assert!(got.keys().all(|k| exact.contains_key(k)), "{}", r.cmd);
        assert!(!got.keys().any(is_detached), "{}", r.cmd);
    }
    for (walk, max_walk) in [("marked", 16usize), ("full", 8)] {
        for seed in ["--seed=5", "--seed=6"] {
            let w = format!("--walk={walk}");
            let m = format!("--max-walk={max_walk}");
            let mut args = sample.to_vec();
            args.extend_from_slice(&[&w, &m, seed]);
            let (r, p) = profile_in(&dir, "deep.bc", &args, "deep-cut");
            let cmd = &r.cmd;
            let got = calls_by_path(&p);
            // What is attached is right.
            for path in got.keys().filter(|k| !is_detached(k)) {
                assert!(exact.contains_key(path), "{cmd}: {path:?} is no context");
            }
            assert!(
                got.keys()
                    .any(|k| !is_detached(k) && k.frames().iter().any(|(m, _)| m == "chain")),
                "{cmd}: shallow samples attach"
            );
            // No sample is lost: every edge sample is a call somewhere,
            // the entry context counting the thread.
            let edge_samples: u64 = p.dcg.as_ref().unwrap().iter().map(|e| e.weight).sum();
            assert_eq!(got.values().sum::<u64>(), edge_samples + 1, "{cmd}");
            // The deep samples are detached.
            let d = detached(&p);
            assert!(!d.roots.is_empty(), "{cmd}: no detached subtree");
            for (root, below) in &d.roots {
                // The root names the frame below the examined ones, with
                // no call-site line (Figure 7's allocate_node(m)).
                assert!(root.method == "chain" || root.method == "main", "{cmd}");
                assert_eq!(root.line, None, "{cmd}");
                assert_eq!((root.calls, root.self_), (0, 0), "{cmd}");
                for (path, _) in below {
                    assert!(
                        is_tail_of_some(&exact, &root.method, path),
                        "{cmd}: {}/{path:?} is not the tail of a context",
                        root.method
                    );
                }
                let depth = below.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
                if walk == "marked" {
                    // One fresh root per cut; below it the max-walk
                    // frames the method sample examined and marked, then
                    // the edge sample's frame, found through the marks.
                    assert_eq!(below.len(), max_walk + 1, "{cmd}: a single chain");
                    assert_eq!(depth, max_walk + 1, "{cmd}");
                    let (_, leaf) = below.iter().find(|(p, _)| p.len() == depth).unwrap();
                    assert_eq!(leaf.calls, 1, "{cmd}: the edge sample");
                    let (_, caller) = below.iter().find(|(p, _)| p.len() == max_walk).unwrap();
                    assert_eq!(caller.self_, 1, "{cmd}: the method sample");
                } else {
                    // Each full walk examines exactly max-walk frames.
                    assert!(
                        below
                            .iter()
                            .all(|(p, n)| (n.calls == 0 && n.self_ == 0) || p.len() == max_walk),
                        "{cmd}: counts only at depth {max_walk}"
                    );
                    assert_eq!(depth, max_walk, "{cmd}");
                }
            }
            if walk == "full" {
                // Identical truncated stacks share their detached path.
                let keys: BTreeSet<_> = d.roots.iter().map(|(r, _)| &r.method).collect();
                assert_eq!(keys.len(), d.roots.len(), "{cmd}");
            }
        }
    }
}

#[test]
fn context_test_programs_run() {
    harness::check_dir("contexts", Mode::Run, &[]);
}

#[test]
fn virtual_clock_with_a_seed_reproduces_the_cct() {
    for profile in ["timer", "cbs"] {
        for walk in ["full", "marked", "incremental"] {
            let args = [
                &format!("--profile={profile}")[..],
                "--clock=virtual",
                "--interval=50us",
                "--seed=7",
                "--record=dcg,cct",
                &format!("--walk={walk}")[..],
            ];
            let (_, a) = profile_in(&examples(), "whaley-fig5.bc", &args, "det-a");
            let (_, b) = profile_in(&examples(), "whaley-fig5.bc", &args, "det-b");
            assert_eq!(a.to_json(), b.to_json(), "{profile} {walk}: runs differ");
            let nodes = cct(&a);
            assert!(
                nodes.len() > 5,
                "{profile} {walk}: {} contexts",
                nodes.len()
            );
            assert!(a.run.samples > 50, "{profile} {walk}: {}", a.run.samples);
            assert_eq!(a.config.walk.as_deref(), Some(walk));
        }
    }
}

#[test]
fn walk_options_that_do_not_apply_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--profile=timer", "--record=cct", "--walk=top"],
            "--walk=top",
        ),
        (&["--profile=counter", "--walk=full"], "--record"),
        (
            &["--profile=cbs", "--record=dcg", "--walk=marked"],
            "--record",
        ),
        (&["--profile=counter", "--max-walk=3"], "--max-walk"),
        (
            &["--profile=counter", "--record=cct", "--max-walk=0"],
            "--max-walk",
        ),
        (
            &[
                "--profile=timer",
                "--record=cct",
                "--walk=incremental",
                "--max-walk=16",
            ],
            "never cut",
        ),
        (
            &["--profile=cbs", "--record=pcct,ccmap"],
            "one calling context tree",
        ),
        (&["--profile=counter", "--walk=incremental"], "--record"),
        (
            &["--profile=cbs", "--record=ccmap", "--walk=incremental"],
            "--record=ccmap",
        ),
        (
            &["--profile=counter", "--record=cct,acct"],
            "one calling context tree",
        ),
        // At most one recorder owns trampolines: the PCCT and the ACCT are
        // built by the marked walk only.
        (
            &["--profile=counter", "--record=pcct", "--walk=incremental"],
            "--walk=marked",
        ),
        (
            &["--profile=counter", "--record=acct", "--walk=incremental"],
            "--walk=marked",
        ),
        (
            &[
                "--profile=counter",
                "--record=acct",
                "--sampled-bit=return-address",
                "--walk=incremental",
            ],
            "--walk=marked",
        ),
        (
            &["--profile=exhaustive", "--record=cct", "--walk=full"],
            "--walk",
        ),
        (&["--record=cct", "--walk=full"], "--walk"),
        (
            &["--profile=counter", "--record=cct", "--walk=sideways"],
            "walk",
        ),
    ];
    for (extra, says) in cases {
        let mut args = vec!["run", "fib.bc"];
        args.extend_from_slice(extra);
        let r = run_vm_in(&examples(), &args, DEFAULT_TIMEOUT);
        r.assert_status(2);
        assert!(r.stdout.is_empty(), "{}: the program must not run", r.cmd);
        assert!(r.stderr.contains(says), "{}: {}", r.cmd, r.stderr);
    }
    // And what does apply runs.
    for ok in [
        &["--profile=timer", "--walk=top"][..],
        &[
            "--profile=cbs",
            "--record=cct",
            "--walk=marked",
            "--max-walk=4",
        ],
        &["--profile=counter", "--record=dcg,cct", "--max-walk=300"],
        &["--profile=timer", "--record=cct", "--walk=incremental"],
    ] {
        let mut args = vec!["run", "fib.bc"];
        args.extend_from_slice(ok);
        let r = run_vm_in(&examples(), &args, DEFAULT_TIMEOUT);
        r.assert_status(0);
        assert_eq!(r.stdout, "75025\n", "{}", r.cmd);
    }
}
