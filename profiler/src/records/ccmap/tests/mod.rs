//! The CC-Map's unit tests: a worked example counted node by node, the
//! links both ways, sequence limits, deep stacks.

use super::inspect::{CallStep, ContextPath, NodeCounts};
use super::*;
use crate::records::cct::CallingContextTree;

const MAIN: u32 = 0;
const A: u32 = 1;
const B: u32 = 2;
const C: u32 = 3;

fn name(m: u32) -> String {
    ["main", "a", "b", "c", "f"][m as usize].to_string()
}

/// Frames from a readable spec: `(method, line)` top first, the last
/// frame's line ignored when `complete`.
fn frames(spec: &[(u32, u32)], complete: bool) -> Vec<SampledFrame> {
    let last = spec.len() - 1;
    spec.iter()
        .enumerate()
        .map(|(i, &(method, line))| SampledFrame {
            method,
            call_line: if complete && i == last {
                None
            } else {
                Some(line)
            },
        })
        .collect()
}

fn insert(map: &mut CallContextMap, spec: &[(u32, u32)], complete: bool) {
    let f = frames(spec, complete);
    map.insert(StackSample {
        frames: &f,
        complete,
        call: true,
        self_at: Some(0),
    });
}

fn path(root: u32, calls: &[(u32, u32)]) -> ContextPath {
    ContextPath {
        root,
        calls: calls
            .iter()
            .map(|&(line, method)| CallStep { line, method })
            .collect(),
    }
}

/// Every context of the map, by path, with (calls, on_top).
fn all_contexts(map: &CallContextMap) -> Vec<(ContextPath, u64, u64)> {
    let mut out: Vec<_> = (0..map.callees.len())
        .map(|c| Context::RootCall(CalleeId(c as u32)))
        .chain((0..map.callee_refs.len()).map(|r| Context::Nested(CalleeRefId(r as u32))))
        .map(|c| (map.context_path(c), map.calls_in(c), map.on_top_in(c)))
        .collect();
    out.sort_by(|x, y| format!("{:?}", x).cmp(&format!("{:?}", y)));
    out
}

/// The methods `site` called, with their calls in any context.
fn site_callees(map: &CallContextMap, site: CallSiteId) -> Vec<(u32, u64)> {
    let callees = &map.call_site(site).callees;
    callees
        .iter()
        .map(|&c| (map.callee(c).method, map.callee(c).calls))
        .collect()
}

/// The methods the call at `line` called in `context`, with their calls
/// in that context.
fn callees_in(map: &CallContextMap, context: Context, line: u32) -> Vec<(u32, u64)> {
    map.sites_in_context(context)
        .iter()
        .map(|&sr| map.call_site_ref(sr))
        .filter(|sr| map.call_site(sr.site).line == line)
        .flat_map(|sr| sr.callee_refs.iter())
        .map(|&r| {
            let r = map.callee_ref(r);
            (map.callee(r.callee).method, r.calls)
        })
        .collect()
}

/// Checks every link of the map both ways.
fn check_links(map: &CallContextMap) {
    for (i, r) in map.callee_refs.iter().enumerate() {
        let me = CalleeRefId(i as u32);
        let sr = map.call_site_ref(r.site_ref);
        assert!(
            sr.callee_refs.contains(&me),
            "site ref lists its callee ref"
        );
        assert_eq!(sr.caller_context, r.caller_context);
        assert_eq!(sr.site, map.callee(r.callee).site);
        assert!(map.sites_in_context(r.caller_context).contains(&r.site_ref));
        assert!(map.callee(r.callee).contexts.contains(&me));
        assert!(map
            .callee_contexts(r.caller_context)
            .contains(&Context::Nested(me)));
        // The caller context calls the method this call is made from.
        assert_eq!(
            map.method_of(r.caller_context),
            map.call_site(map.callee(r.callee).site).caller
        );
    }
    for (i, c) in map.callees.iter().enumerate() {
        let me = CalleeId(i as u32);
        assert!(map.call_site(c.site).callees.contains(&me));
        assert!(map.method(c.method).unwrap().called_from.contains(&me));
        for &r in &c.contexts {
            assert_eq!(map.callee_ref(r).callee, me);
        }
    }
    for (i, s) in map.call_sites.iter().enumerate() {
        assert!(map
            .method(s.caller)
            .unwrap()
            .call_sites
            .contains(&CallSiteId(i as u32)));
    }
}

/// main -3-> a -7-> b, main -3-> a -9-> c, the first again, and an
/// incomplete walk a -7-> b whose a was called at line 5 of an
/// unknown caller.
fn worked_example() -> CallContextMap {
    let mut map = CallContextMap::new();
    insert(&mut map, &[(B, 7), (A, 3), (MAIN, 0)], true);
    insert(&mut map, &[(C, 9), (A, 3), (MAIN, 0)], true);
    insert(&mut map, &[(B, 7), (A, 3), (MAIN, 0)], true);
    insert(&mut map, &[(B, 7), (A, 5)], false);
    map
}

#[test]
fn worked_example_counts_every_node() {
    let map = worked_example();
    // Methods: main, a, b, c. Sites: <root>@-, main@3, a@7, a@9.
    // Callees: <root>->main, main@3->a, a@7->b, a@9->c.
    // CalleeRefs: under <root>->main: a (1), under it b and c (2, 3);
    // under main@3->a: b and c (4, 5).  CallSiteRefs: <root>->main's
    // main@3, (<root>,main,a)'s a@7 and a@9, main@3->a's a@7 and a@9.
    assert_eq!(
        map.node_counts(),
        NodeCounts {
            method_profiles: 4,
            call_sites: 4,
            callees: 4,
            call_site_refs: 5,
            callee_refs: 5,
        }
    );
    let exec = |m| map.method(m).unwrap().executions;
    let top = |m| map.method(m).unwrap().on_top;
    assert_eq!((exec(MAIN), exec(A), exec(B), exec(C)), (3, 4, 3, 1));
    assert_eq!((top(MAIN), top(A), top(B), top(C)), (0, 0, 3, 1));
    assert_eq!(map.method(ROOT_METHOD).unwrap().executions, 3);
    assert_eq!(all_contexts(&map), {
        let mut v = vec![
            (path(ROOT_METHOD, &[(NO_LINE, MAIN)]), 3, 0),
            (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A)]), 3, 0),
            (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A), (7, B)]), 2, 2),
            (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A), (9, C)]), 1, 1),
            (path(MAIN, &[(3, A)]), 3, 0),
            (path(MAIN, &[(3, A), (7, B)]), 2, 2),
            (path(MAIN, &[(3, A), (9, C)]), 1, 1),
            // The general nodes a->b and a->c: the incomplete walk
            // adds to a->b.
            (path(A, &[(7, B)]), 3, 3),
            (path(A, &[(9, C)]), 1, 1),
        ];
        v.sort_by(|x, y| format!("{:?}", x).cmp(&format!("{:?}", y)));
        v
    });
    check_links(&map);
}

#[test]
fn contexts_link_up_and_down_in_the_worked_example() {
    let map = worked_example();
    assert!(map.find_call_site(MAIN, 3).is_some());
    assert_eq!(map.find_call_site(A, 3), None);

    let a7 = map.find_call_site(A, 7).unwrap();
    assert_eq!(site_callees(&map, a7), vec![(B, 3)]);

    // b was called in three contexts: a->b (the general node),
    // main->a->b and <root>->main->a->b.
    let mut paths: Vec<ContextPath> = map
        .contexts_of(B)
        .into_iter()
        .map(|c| map.context_path(c))
        .collect();
    paths.sort_by_key(|p| p.calls.len());
    assert_eq!(
        paths,
        vec![
            path(A, &[(7, B)]),
            path(MAIN, &[(3, A), (7, B)]),
            path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A), (7, B)]),
        ]
    );

    // In the context main->a (tree of main), a's line 7 called b twice
    // and line 9 called c once.
    let main_a = Context::RootCall(map.call_site(map.find_call_site(MAIN, 3).unwrap()).callees[0]);
    assert_eq!(callees_in(&map, main_a, 7), vec![(B, 2)]);
    assert_eq!(callees_in(&map, main_a, 9), vec![(C, 1)]);
    assert_eq!(callees_in(&map, main_a, 4), vec![]);
    let down: Vec<u32> = map
        .callee_contexts(main_a)
        .into_iter()
        .map(|c| map.method_of(c))
        .collect();
    assert_eq!(down, vec![B, C]);
    for c in map.callee_contexts(main_a) {
        assert_eq!(map.caller_context(c), Some(main_a));
    }
    assert_eq!(map.caller_context(main_a), None);
}

#[test]
fn a_repeated_sample_adds_counts_but_no_nodes() {
    let mut map = worked_example();
    let before_nodes = map.node_counts();
    let before = all_contexts(&map);
    insert(&mut map, &[(C, 9), (A, 3), (MAIN, 0)], true);
    assert_eq!(map.node_counts(), before_nodes);
    let after = all_contexts(&map);
    // Exactly the contexts on the path c <- a <- main (in every tree)
    // gained one call; c's contexts also one on_top.
    let changed: Vec<_> = before
        .iter()
        .zip(&after)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| {
            assert_eq!(x.0, y.0);
            (y.0.clone(), y.1 - x.1, y.2 - x.2)
        })
        .collect();
    let mut want = vec![
        (path(ROOT_METHOD, &[(NO_LINE, MAIN)]), 1, 0),
        (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A)]), 1, 0),
        (path(ROOT_METHOD, &[(NO_LINE, MAIN), (3, A), (9, C)]), 1, 1),
        (path(MAIN, &[(3, A)]), 1, 0),
        (path(MAIN, &[(3, A), (9, C)]), 1, 1),
        (path(A, &[(9, C)]), 1, 1),
    ];
    want.sort_by(|x, y| format!("{:?}", x).cmp(&format!("{:?}", y)));
    assert_eq!(changed, want);
    assert_eq!(map.method(C).unwrap().executions, 2);
    check_links(&map);
}

#[test]
fn an_entry_frame_alone_is_an_entry_context_on_top() {
    let mut map = CallContextMap::new();
    insert(&mut map, &[(MAIN, 0)], true);
    insert(&mut map, &[(MAIN, 0)], true);
    // An incomplete one-frame walk records no call at all.
    insert(&mut map, &[(A, 4)], false);
    assert_eq!(map.entry_contexts().len(), 1);
    let entry = map.entry_contexts()[0];
    assert_eq!((map.calls_in(entry), map.on_top_in(entry)), (2, 2));
    assert_eq!(map.method(MAIN).unwrap().on_top, 2);
    assert_eq!(map.method(A).unwrap().executions, 1);
    assert_eq!(map.node_counts().callees, 1);
    let flat = map.to_cct_nodes(name);
    assert_eq!(flat.len(), 2);
    assert_eq!(
        (
            flat[1].method.as_str(),
            flat[1].line,
            flat[1].calls,
            flat[1].self_
        ),
        ("main", None, 2, 2)
    );
    // And nothing comes of an empty walk.
    map.insert(StackSample {
        frames: &[],
        complete: true,
        call: true,
        self_at: None,
    });
    assert_eq!(map.method(ROOT_METHOD).unwrap().executions, 2);
}

#[test]
fn threads_with_the_same_entry_share_its_context() {
    let mut map = CallContextMap::new();
    // Two threads of entry b, one of entry main calling b at 8.
    insert(&mut map, &[(B, 0)], true);
    insert(&mut map, &[(C, 2), (B, 0)], true);
    insert(&mut map, &[(B, 8), (MAIN, 0)], true);
    let flat = map.to_cct_nodes(name);
    let got: Vec<_> = flat
        .iter()
        .map(|n| (n.method.as_str(), n.line, n.calls, n.self_, n.parent))
        .collect();
    assert_eq!(
        got,
        vec![
            ("<root>", None, 0, 0, None),
            ("b", None, 1, 1, Some(0)),
            ("c", Some(2), 1, 1, Some(1)),
            ("main", None, 0, 0, Some(0)),
            ("b", Some(8), 1, 1, Some(3)),
        ]
    );
    // b's contexts: <root>->b, main->b, <root>->main->b; c's: b->c,
    // <root>->b->c.
    assert_eq!(map.contexts_of(B).len(), 3);
    assert_eq!(map.contexts_of(C).len(), 2);
    assert_eq!(map.contexts_of(A), vec![]);
}

#[test]
fn a_sequence_limit_keeps_long_sequences_out_of_method_trees_only() {
    // main -3-> a -7-> b -9-> c, limit 2 calls per sequence.
    let spec = [(C, 9), (B, 7), (A, 3), (MAIN, 0)];
    let mut limited = CallContextMap::with_sequence_limit(2);
    let mut whole = CallContextMap::new();
    insert(&mut limited, &spec, true);
    insert(&mut whole, &spec, true);
    // The thread root's tree is whole in both: the same CCT.
    assert_eq!(limited.to_cct_nodes(name), whole.to_cct_nodes(name));
    // main's tree (three calls: main->a->b->c) lost its third call;
    // a's (two calls) kept everything.
    let main_a = Context::RootCall(
        limited
            .call_site(limited.find_call_site(MAIN, 3).unwrap())
            .callees[0],
    );
    let down = limited.callee_contexts(main_a);
    assert!(down.is_empty(), "main's sequence stops at its first call");
    let a_b = Context::RootCall(
        limited
            .call_site(limited.find_call_site(A, 7).unwrap())
            .callees[0],
    );
    assert_eq!(limited.callee_contexts(a_b).len(), 1);
    // The general counters are the same.
    for m in [MAIN, A, B, C] {
        assert_eq!(
            limited.method(m).unwrap().executions,
            whole.method(m).unwrap().executions
        );
    }
    assert!(limited.node_counts().callee_refs < whole.node_counts().callee_refs);
}

#[test]
fn a_missing_line_under_a_caller_is_no_line() {
    let mut map = CallContextMap::new();
    let f = [
        SampledFrame {
            method: B,
            call_line: None,
        },
        SampledFrame {
            method: A,
            call_line: None,
        },
    ];
    map.insert(StackSample {
        frames: &f,
        complete: true,
        call: false,
        self_at: None,
    });
    assert!(map.find_call_site(A, NO_LINE).is_some());
    assert_eq!(map.node_counts().callees, 2);
}

/// A small deterministic generator (no dependency on `rand` streams).
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

mod output;
