//! The PCCT and the ACCT (`--record=pcct`, `--record=acct`) through the real
//! binary:
//!
//! - Arnold & Sweeney's Figure 6 with the counter trigger: `last-edge`
//!   scores a `cct-overlap` of at least 90 against the exhaustive CCT,
//!   `all-new-edges` gives the paper's wrong picture (a->b as heavy as
//!   b->c), with the sampled bit in the mark or in the return address; the
//!   PCCT, which increments all new edges as Whaley does, shows the same
//!   wrong picture;
//! - sampling every call gives exactly the exhaustive contexts and calls
//!   (every edge is new exactly once), for both records and both bits;
//! - Whaley's Figure 9 (recursion keeps full context) and Figure 10 (a walk
//!   cut by `--max-walk` is a detached subtree) for the PCCT;
//! - the hot lists in the profile and in `--report` are sorted and agree
//!   with the tree; `--purge` drops cold contexts;
//! - return-address trampolines are invisible: exceptions unwinding through
//!   them and runtime-error stack traces are unchanged;
//! - `--clock=virtual --seed` reproduces both trees; options that do not
//!   apply are usage errors.

use std::collections::BTreeMap;

use profile::Profile;

use crate::contexts::{
    assert_recursion_keeps_context, calls_by_path, cct, contexts_dir, deepest_of_figure_9,
    detached, examples, is_detached, is_tail_of_some, path_diff, profile_in, ContextPath, EXAMPLES,
};
use crate::harness::{run_vm_in, scratch, write_program, DEFAULT_TIMEOUT};

fn p(steps: &[(&str, Option<u32>)]) -> ContextPath {
    ContextPath::of(steps)
}

/// `vm compare PROFILE REF`'s `cct-overlap`.
fn cct_overlap(profile: &Profile, reference: &Profile, tag: &str) -> f64 {
    let dir = scratch(&format!("rec-compare-{tag}"));
    std::fs::write(dir.join("p.json"), profile.to_json()).unwrap();
    std::fs::write(dir.join("r.json"), reference.to_json()).unwrap();
    let r = run_vm_in(&dir, &["compare", "p.json", "r.json"], DEFAULT_TIMEOUT);
    r.assert_status(0);
    let line = r
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("cct-overlap: "))
        .unwrap_or_else(|| panic!("no cct-overlap in {}", r.stdout));
    line.trim().parse().unwrap()
}

#[test]
fn arnold_sweeney_figure_6_last_edge_is_right_and_all_new_edges_is_not() {
    let (_, exact) = profile_in(
        &examples(),
        "arnold-sweeney-fig6.bc",
        &["--profile=exhaustive", "--record=cct"],
        "rec-f6-exact",
    );
    let main = [("main", None)];
    let a = [("main", None), ("a", Some(43))];
    let ab = [("main", None), ("a", Some(43)), ("b", Some(60))];
    let abc = [
        ("main", None),
        ("a", Some(43)),
        ("b", Some(60)),
        ("c", Some(75)),
    ];
    let want = calls_by_path(&exact);
    assert_eq!(want[&p(&ab)], 1_000, "the program's shape");
    assert_eq!(want[&p(&abc)], 100_000);
    for bit in ["mark", "return-address"] {
        for seed in ["--seed=1", "--seed=2"] {
            let bit_arg = format!("--sampled-bit={bit}");
            let run = |update: &str| {
                let u = format!("--acct-update={update}");
                profile_in(
                    &examples(),
                    "arnold-sweeney-fig6.bc",
                    &[
                        "--profile=counter",
                        "--every=100",
                        seed,
                        "--record=acct",
                        &u,
                        &bit_arg,
                    ],
                    &format!("rec-f6-{update}"),
                )
            };
            let (r, last) = run("last-edge");
            assert_eq!(last.config.acct_update.as_deref(), Some("last-edge"));
            assert_eq!(last.config.sampled_bit.as_deref(), Some(bit));
            assert_eq!(last.config.walk.as_deref(), Some("marked"));
            let overlap = cct_overlap(&last, &exact, "f6-last");
            assert!(overlap >= 90.0, "{}: cct-overlap {overlap}", r.cmd);
            let got = calls_by_path(&last);
            // b->c about 100 times a->b, as in the exact tree.
            assert!(
                got[&p(&abc)] >= 50 * got.get(&p(&ab)).copied().unwrap_or(0).max(1),
                "{}: {got:?}",
                r.cmd
            );
            let (r, all) = run("all-new-edges");
            let got = calls_by_path(&all);
            let (ab_w, abc_w) = (got[&p(&ab)], got[&p(&abc)]);
            // The paper's wrong picture: both new at nearly every sample.
            assert!(abc_w > 500, "{}: {got:?}", r.cmd);
            assert!(
                ab_w * 10 >= abc_w * 9 && ab_w <= abc_w,
                "{}: a->b {ab_w}, b->c {abc_w}",
                r.cmd
            );
            assert!(got[&p(&a)] > 50, "{}: main->a is new every 10th", r.cmd);
            assert_eq!(got[&p(&main)], 1, "{}: the thread", r.cmd);
            let overlap = cct_overlap(&all, &exact, "f6-all");
            assert!(overlap < 60.0, "{}: cct-overlap {overlap}", r.cmd);
        }
    }
    // Whaley's PCCT increments all new edges: the same wrong picture.
    let (r, pcct) = profile_in(
        &examples(),
        "arnold-sweeney-fig6.bc",
        &[
            "--profile=counter",
            "--every=100",
            "--seed=3",
            "--record=pcct",
        ],
        "rec-f6-pcct",
    );
    let got = calls_by_path(&pcct);
    let (ab_w, abc_w) = (got[&p(&ab)], got[&p(&abc)]);
    assert!(ab_w * 10 >= abc_w * 9 && abc_w > 500, "{}: {got:?}", r.cmd);
}

#[test]
fn sampling_every_call_gives_the_exhaustive_cct() {
    for name in EXAMPLES {
        let (_, exact) = profile_in(
            &examples(),
            name,
            &["--profile=exhaustive", "--record=cct"],
            "rec-every-exact",
        );
        let want = calls_by_path(&exact);
        for record in [
            &["--record=pcct"][..],
            &["--record=dcg,acct"],
            &["--record=acct", "--acct-update=all-new-edges"],
            &["--record=acct", "--sampled-bit=return-address"],
            &[
                "--record=acct",
                "--sampled-bit=return-address",
                "--acct-update=all-new-edges",
            ],
        ] {
            let mut args = vec!["--profile=counter", "--every=1"];
            args.extend_from_slice(record);
            let (r, got) = profile_in(&examples(), name, &args, "rec-every");
            let got_calls = calls_by_path(&got);
            if got_calls != want {
                panic!(
                    "{}: contexts differ:\n{}",
                    r.cmd,
                    path_diff(&want, &got_calls)
                );
            }
            let selfs: u64 = cct(&got).iter().map(|n| n.self_).sum();
            assert_eq!(selfs, got.run.samples, "{}", r.cmd);
        }
    }
}

#[test]
fn pcct_recursion_keeps_full_context_whaley_figure_9() {
    let (_, exact) = profile_in(
        &examples(),
        "whaley-fig9.bc",
        &["--profile=exhaustive", "--record=cct"],
        "rec-w9-exact",
    );
    let exact = calls_by_path(&exact);
    let deepest = deepest_of_figure_9();
    for seed in ["--seed=1", "--seed=4"] {
        let (r, pcct) = profile_in(
            &examples(),
            "whaley-fig9.bc",
            &["--profile=counter", "--every=5", seed, "--record=pcct"],
            "rec-w9",
        );
        assert_recursion_keeps_context(&r.cmd, &pcct, &exact, &deepest);
    }
}

#[test]
fn pcct_cut_walks_are_detached_subtrees_whaley_figure_10() {
    let dir = contexts_dir();
    let (_, exact) = profile_in(
        &dir,
        "deep.bc",
        &["--profile=exhaustive", "--record=cct"],
        "rec-deep-exact",
    );
    let exact = calls_by_path(&exact);
    let sample = ["--profile=counter", "--every=97", "--record=dcg,pcct"];
    // A buffer deeper than the program: nothing detached, all real.
    let mut args = sample.to_vec();
    args.extend_from_slice(&["--max-walk=64", "--seed=5"]);
    let (r, uncut) = profile_in(&dir, "deep.bc", &args, "rec-deep-uncut");
    let got = calls_by_path(&uncut);
    assert!(got.keys().all(|k| exact.contains_key(k)), "{}", r.cmd);
    assert!(!got.keys().any(is_detached), "{}", r.cmd);
    // Whaley's buffer of 16 (the default): deep samples are detached.
    for seed in ["--seed=5", "--seed=6"] {
        let mut args = sample.to_vec();
        args.push(seed);
        let (r, p) = profile_in(&dir, "deep.bc", &args, "rec-deep-cut");
        let cmd = &r.cmd;
        let got = calls_by_path(&p);
        for path in got.keys().filter(|k| !is_detached(k)) {
            assert!(exact.contains_key(path), "{cmd}: {path:?} is no context");
        }
        let d = detached(&p);
        assert!(!d.roots.is_empty(), "{cmd}: no detached subtree");
        for (root, below) in &d.roots {
            assert!(root.method == "chain" || root.method == "main", "{cmd}");
            assert_eq!((root.line, root.calls, root.self_), (None, 0, 0), "{cmd}");
            for (path, node) in below {
                assert!(
                    is_tail_of_some(&exact, &root.method, path),
                    "{cmd}: {}/{path:?} is not the tail of a context",
                    root.method
                );
                // Every edge below a detached root was new when placed.
                assert!(node.calls >= 1, "{cmd}: {path:?}");
            }
            // The buffer's 16 frames, then the edge sample's frame.
            let depth = below.iter().map(|(p, _)| p.len()).max().unwrap_or(0);
            assert_eq!(depth, 17, "{cmd}");
        }
    }
}

#[test]
fn hot_lists_are_sorted_and_agree_with_the_tree() {
    for args in [
        &[
            "--profile=counter",
            "--every=3",
            "--seed=2",
            "--record=pcct",
        ][..],
        &[
            "--profile=cbs",
            "--clock=virtual",
            "--interval=200us",
            "--seed=2",
            "--record=pcct",
        ],
    ] {
        let (r, p) = profile_in(&examples(), "whaley-fig5.bc", args, "rec-hot");
        let hot = p.hot.as_ref().expect("a hot section");
        let nodes = cct(&p);
        let by_id: BTreeMap<u64, _> = nodes.iter().map(|n| (n.id, n)).collect();
        assert!(!hot.nodes.is_empty() && !hot.edges.is_empty(), "{}", r.cmd);
        // Each entry is the tree's count, hottest first.
        for h in &hot.nodes {
            assert_eq!(by_id[&h.id].self_, h.self_, "{}", r.cmd);
        }
        for h in &hot.edges {
            assert_eq!(by_id[&h.id].calls, h.calls, "{}", r.cmd);
        }
        assert!(hot.nodes.windows(2).all(|w| w[0].self_ >= w[1].self_));
        assert!(hot.edges.windows(2).all(|w| w[0].calls >= w[1].calls));
        // And the front of the list is the tree's largest counts.
        let mut selfs: Vec<u64> = nodes.iter().map(|n| n.self_).filter(|&s| s > 0).collect();
        selfs.sort_unstable_by(|a, b| b.cmp(a));
        let listed: Vec<u64> = hot.nodes.iter().map(|h| h.self_).collect();
        assert_eq!(listed, selfs[..listed.len()], "{}", r.cmd);
        let root = nodes[0].id;
        let mut calls: Vec<u64> = nodes
            .iter()
            .filter(|n| n.parent.is_some_and(|q| q != root))
            .map(|n| n.calls)
            .filter(|&c| c > 0)
            .collect();
        calls.sort_unstable_by(|a, b| b.cmp(a));
        let listed: Vec<u64> = hot.edges.iter().map(|h| h.calls).collect();
        assert_eq!(listed, calls[..listed.len()], "{}", r.cmd);
        // --report prints them, the hottest context first.
        let mut with_report = args.to_vec();
        with_report.push("--report");
        let rep = run_vm_in(
            &examples(),
            &[&["run", "whaley-fig5.bc"][..], &with_report].concat(),
            DEFAULT_TIMEOUT,
        );
        rep.assert_status(0);
        let section = rep
            .stderr
            .split("contexts by self (pcct, its own hot list; ")
            .nth(1)
            .unwrap_or_else(|| panic!("{}: {}", rep.cmd, rep.stderr));
        // The title, the column names, then the hottest context.
        let first = section.lines().nth(2).unwrap();
        let top = by_id[&hot.nodes[0].id];
        // Written caller first: `PARENT:LINE → METHOD`.
        let shown = match (top.line, top.parent.map(|q| by_id[&q])) {
            (Some(l), Some(parent)) => format!("{}:{l} \u{2192} {}", parent.method, top.method),
            _ => top.method.to_string(),
        };
        assert!(
            first.contains(&format!(" {} ", hot.nodes[0].self_)) && first.ends_with(&shown),
            "{}: {first}",
            rep.cmd
        );
        assert!(
            rep.stderr
                .contains("contexts by calls (pcct, its own hot list; "),
            "{}",
            rep.cmd
        );
    }
}

#[test]
fn purge_drops_cold_contexts() {
    // whaley-fig5 under every call: M -> A -> B is hot early and never
    // again; with a purge every 8 samples it is gone at the end.
    let base = ["--profile=counter", "--every=1", "--record=pcct"];
    let (_, whole) = profile_in(&examples(), "whaley-fig5.bc", &base, "rec-purge-no");
    let mut args = base.to_vec();
    args.push("--purge=8");
    let (r, purged) = profile_in(&examples(), "whaley-fig5.bc", &args, "rec-purge");
    assert_eq!(purged.config.purge, Some(8));
    let before = calls_by_path(&whole);
    let after = calls_by_path(&purged);
    let amb = p(&[
        ("main", None),
        ("M", Some(48)),
        ("A", Some(57)),
        ("B", Some(87)),
    ]);
    assert!(before.contains_key(&amb), "{before:?}");
    assert!(!after.contains_key(&amb), "{}: {after:?}", r.cmd);
    assert!(after.len() < before.len(), "{}", r.cmd);
    // What stays is real and keeps counts no larger than without purge.
    for (path, calls) in &after {
        assert!(before[path] >= *calls, "{}: {path:?}", r.cmd);
    }
    let ids = ContextPath::of_nodes(cct(&purged));
    assert_eq!(ids.len(), cct(&purged).len());
}

const UNWIND: &str = "\
.method main()
  push 6
  call down
  print
  push 5
  call boom
  ret
.end

; down(n) recurses to 0, which throws 42; the handlers of down(1) and
; down(2) rethrow, down(3)'s returns 100: the exception unwinds three
; frames, each with a patched return word when sampled.
.method down(n)
  .catch try done handler
  load n
  jz bottom
try:
  load n
  push 1
  sub
  call down
done:
  push 1
  add
  ret
handler:
  load n
  push 3
  jne rethrow
  pop
  push 100
  ret
rethrow:
  throw
bottom:
  push 42
  throw
.end

; boom(n) recurses to 0, which divides by zero: a runtime error whose
; stack trace reads every frame's return word.
.method boom(n)
  load n
  jz zero
  load n
  push 1
  sub
  call boom
  ret
zero:
  push 1
  push 0
  div
  ret
.end
";

#[test]
fn trampolines_are_invisible_to_exceptions_and_stack_traces() {
    let dir = scratch("rec-unwind");
    write_program(&dir, "unwind.bc", UNWIND);
    let plain = run_vm_in(&dir, &["run", "unwind.bc"], DEFAULT_TIMEOUT);
    plain.assert_status(70);
    assert_eq!(plain.stdout, "103\n");
    assert!(plain.stderr.contains("boom"), "{}", plain.stderr);
    for every in ["--every=1", "--every=2", "--every=3"] {
        for bit in ["--sampled-bit=return-address", "--sampled-bit=mark"] {
            let r = run_vm_in(
                &dir,
                &[
                    "run",
                    "unwind.bc",
                    "--profile=counter",
                    every,
                    "--record=acct",
                    bit,
                ],
                DEFAULT_TIMEOUT,
            );
            r.assert_no_crash();
            assert_eq!(
                (r.status, &r.stdout, &r.stderr),
                (plain.status, &plain.stdout, &plain.stderr),
                "{}",
                r.cmd
            );
        }
    }
}

#[test]
fn virtual_clock_with_a_seed_reproduces_pcct_and_acct() {
    for record in [
        &["--record=pcct"][..],
        &["--record=dcg,pcct", "--purge=20", "--max-walk=3"],
        &["--record=acct"],
        &[
            "--record=acct",
            "--acct-update=all-new-edges",
            "--sampled-bit=return-address",
        ],
    ] {
        for profile in ["--profile=timer", "--profile=cbs"] {
            let mut args = vec![profile, "--clock=virtual", "--interval=50us", "--seed=7"];
            args.extend_from_slice(record);
            let (r, a) = profile_in(&examples(), "whaley-fig5.bc", &args, "rec-det-a");
            let (_, b) = profile_in(&examples(), "whaley-fig5.bc", &args, "rec-det-b");
            assert_eq!(a.to_json(), b.to_json(), "{}: runs differ", r.cmd);
            assert!(cct(&a).len() > 5, "{}", r.cmd);
            assert!(a.run.samples > 50, "{}", r.cmd);
        }
    }
}

#[test]
fn pcct_and_acct_options_that_do_not_apply_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--profile=counter", "--record=pcct", "--walk=full"],
            "--walk=marked",
        ),
        (
            &["--profile=counter", "--record=acct", "--walk=full"],
            "--walk=marked",
        ),
        (
            &["--profile=counter", "--record=acct", "--max-walk=4"],
            "--max-walk",
        ),
        (
            &["--profile=counter", "--record=pcct,acct"],
            "one calling context tree",
        ),
        (
            &["--profile=counter", "--record=cct", "--purge=3"],
            "--purge",
        ),
        (
            &["--profile=counter", "--record=pcct", "--purge=0"],
            "--purge",
        ),
        (
            &["--profile=counter", "--record=pcct", "--sampled-bit=mark"],
            "--sampled-bit",
        ),
        (
            &[
                "--profile=counter",
                "--record=acct",
                "--sampled-bit=sideways",
            ],
            "sampled-bit",
        ),
        (
            &[
                "--profile=counter",
                "--record=acct",
                "--acct-update=first-edge",
            ],
            "--acct-update",
        ),
        (
            &[
                "--profile=counter",
                "--record=pcct",
                "--acct-update=last-edge",
            ],
            "--acct-update",
        ),
        (&["--profile=exhaustive", "--record=pcct"], "exhaustive"),
        (&["--record=acct"], "--record"),
        (
            &["--profile=timer", "--record=pcct", "--walk=top"],
            "--walk=top",
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
}
