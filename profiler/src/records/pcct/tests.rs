//! The PCCT's unit tests: the hot lists, a worked example, cut walks,
//! purging, merging.

use super::hot::HotList;
use super::*;
use crate::records::cct::{DETACHED_METHOD, NO_LINE};
use crate::records::frames::testing::{entry, frame, Fake};

fn path(t: &Pcct, mut n: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    while n != Pcct::ROOT {
        out.push(t.key(n));
        n = t.parent(n).unwrap();
    }
    out.reverse();
    out
}

#[test]
fn hot_list_sorts_as_counts_grow() {
    let mut h = HotList::new();
    // Hand-worked: a=1 +3, b=2 +1, c=3 +3, b +4, a +1, d=4 +4.
    h.add(1, 3);
    h.add(2, 1);
    h.add(3, 3);
    assert_eq!(h.iter().collect::<Vec<_>>(), vec![(1, 3), (3, 3), (2, 1)]);
    h.add(2, 4); // b: 5, overtakes both
    assert_eq!(h.iter().collect::<Vec<_>>(), vec![(2, 5), (1, 3), (3, 3)]);
    h.add(1, 1); // a: 4
    h.add(4, 4); // d: 4, reached 4 after a: behind it
    assert_eq!(
        h.iter().collect::<Vec<_>>(),
        vec![(2, 5), (1, 4), (4, 4), (3, 3)]
    );
    h.remove(1);
    h.remove(9);
    assert_eq!(h.iter().collect::<Vec<_>>(), vec![(2, 5), (4, 4), (3, 3)]);
    h.add(3, 3); // c: 6, to the front
    assert_eq!(h.iter().collect::<Vec<_>>(), vec![(3, 6), (2, 5), (4, 4)]);
    assert_eq!((h.count(3), h.count(1)), (6, 0));
}

#[test]
fn hot_list_stays_sorted_under_many_unit_increments() {
    // A pseudo-random workload checked against a sort after each step.
    let mut h = HotList::new();
    let mut counts = [0u64; 37];
    let mut x: u64 = 12345;
    for _ in 0..5000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let id = ((x >> 33) % 37) as u32;
        if (x >> 20).is_multiple_of(50) {
            h.remove(id);
            counts[id as usize] = 0;
        } else {
            h.add(id, 1 + (x >> 40) % 2);
            counts[id as usize] += 1 + (x >> 40) % 2;
        }
        let got: Vec<u64> = h.iter().map(|(_, c)| c).collect();
        let mut want: Vec<u64> = counts.iter().copied().filter(|&c| c > 0).collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        assert_eq!(got, want);
        assert!(h.iter().all(|(id, c)| counts[id as usize] == c));
    }
}

/// A worked example: Whaley's Figure 6(a)-like samples over Figure 5's
/// program (M calls A and D; A calls B and C; D calls A and C).
#[test]
fn worked_example_counts_and_hot_lists() {
    // Methods: 0 main, 1 M, 2 A, 3 B, 4 C, 5 D. Lines name call sites.
    let mut r = PcctRecorder::new(16, None, 0);
    let mut st = vec![entry(0), frame(1, 3)];
    // s1: method sample in M (backedge): main->M placed, M time 1.
    r.method_sample(&Fake, &mut st, YieldKind::Backedge, &mut Work::default());
    // M calls A (line 10), A calls C (line 20): s2 in C.
    st.push(frame(2, 10));
    st.push(frame(4, 20));
    r.method_sample(&Fake, &mut st, YieldKind::Backedge, &mut Work::default());
    // s3, s4: still in the same C: nothing new, C's time grows.
    r.method_sample(&Fake, &mut st, YieldKind::Backedge, &mut Work::default());
    r.method_sample(&Fake, &mut st, YieldKind::Epilogue, &mut Work::default());
    // C returns, A returns; M calls D (line 11), D calls A (line 30).
    st.truncate(2);
    st.push(frame(5, 11));
    st.push(frame(2, 30));
    r.method_sample(&Fake, &mut st, YieldKind::Backedge, &mut Work::default()); // s5 in D->A
                                                                                // A returns, D calls C (line 31): s6 in M->D->C.
    st.pop();
    st.push(frame(4, 31));
    r.method_sample(&Fake, &mut st, YieldKind::Backedge, &mut Work::default());
    // s7: a new call M->A->C (A again at line 10): the same contexts
    // as s2, but new frames, so both edges gain weight.
    st.truncate(2);
    st.push(frame(2, 10));
    st.push(frame(4, 20));
    r.method_sample(&Fake, &mut st, YieldKind::Backedge, &mut Work::default());
    let t = r.tree();
    let find = |p: &[(u32, u32)]| {
        let mut n = Pcct::ROOT;
        for &(m, l) in p {
            n = t.child_of(n, m, l).unwrap_or_else(|| panic!("{p:?}"));
        }
        n
    };
    let main = find(&[(0, NO_LINE)]);
    let m = find(&[(0, NO_LINE), (1, 3)]);
    let ma = find(&[(0, NO_LINE), (1, 3), (2, 10)]);
    let mac = find(&[(0, NO_LINE), (1, 3), (2, 10), (4, 20)]);
    let md = find(&[(0, NO_LINE), (1, 3), (5, 11)]);
    let mda = find(&[(0, NO_LINE), (1, 3), (5, 11), (2, 30)]);
    let mdc = find(&[(0, NO_LINE), (1, 3), (5, 11), (4, 31)]);
    // (calls, self) by hand: every edge counted once per sample that
    // found its frame new; self = samples on top.
    let counts = |n| (t.calls(n), t.time(n));
    assert_eq!(counts(main), (1, 0), "one thread");
    assert_eq!(counts(m), (1, 1));
    assert_eq!(counts(ma), (2, 0));
    assert_eq!(counts(mac), (2, 4));
    assert_eq!(counts(md), (1, 0), "D stayed on the stack for s6");
    assert_eq!(counts(mda), (1, 1));
    assert_eq!(counts(mdc), (1, 1));
    assert_eq!(t.len(), 8, "root + 7 contexts; nothing for B");
    // Hot nodes: C under M->A (4), then the ones of time 1 in the order
    // they reached it: M (s1), D->A (s5), D->C (s6).
    assert_eq!(
        t.hottest_nodes(10),
        vec![(mac, 4), (m, 1), (mda, 1), (mdc, 1)]
    );
    // Hot edges: M->A and A->C, weight 2 (s7 passes M->A first), then
    // the weight-1 edges in the order they reached 1.
    assert_eq!(
        t.hottest_edges(10),
        vec![(ma, 2), (mac, 2), (m, 1), (md, 1), (mda, 1), (mdc, 1)]
    );
    assert_eq!(t.hottest_nodes(1), vec![(mac, 4)]);
    // The flat list: calls and self as above, ids parent-first.
    let (flat, ids) = t.to_flat(|m| ["main", "M", "A", "B", "C", "D"][m as usize].into());
    assert_eq!(flat.len(), 8);
    let hot = t.hot_lists(&ids, 2);
    let by_id = |id: u64| &flat[id as usize];
    assert_eq!(by_id(hot.nodes[0].id).method, "C");
    assert_eq!(by_id(hot.nodes[0].id).self_, 4);
    assert_eq!(by_id(hot.edges[0].id).method, "A");
    assert_eq!(by_id(hot.edges[0].id).calls, 2);
    assert_eq!((hot.nodes.len(), hot.edges.len()), (2, 2));
}

#[test]
fn only_new_frames_are_placed_and_the_marks_name_their_nodes() {
    let mut t = Pcct::new();
    let mut st = vec![entry(0), frame(1, 5), frame(2, 7)];
    let c = t.place(&Fake, &mut st, 16, &mut Work::default());
    assert_eq!(path(&t, c), vec![(0, NO_LINE), (1, 5), (2, 7)]);
    assert!(st.iter().all(|f| f.ret.is_marked()));
    // Same frames again: nothing new, no weight added.
    assert_eq!(t.place(&Fake, &mut st, 16, &mut Work::default()), c);
    assert_eq!((t.calls(c), t.calls(t.parent(c).unwrap())), (1, 1));
    // Recursion keeps full context (Figure 9): f called from f twice.
    st.push(frame(2, 8));
    st.push(frame(2, 8));
    let d = t.place(&Fake, &mut st, 16, &mut Work::default());
    assert_eq!(path(&t, d).len(), 5);
    assert_eq!(t.parent(t.parent(d).unwrap()), Some(c));
}

#[test]
fn a_cut_walk_is_detached_figure_10() {
    let mut t = Pcct::new();
    let mut st = vec![entry(0), frame(1, 5)];
    let a = t.place(&Fake, &mut st, 4, &mut Work::default());
    for k in 0..6 {
        st.push(frame(2, 20 + k));
    }
    let c = t.place(&Fake, &mut st, 4, &mut Work::default());
    // Four frames in the buffer; the fifth (b@21) names the detached
    // root, with no line, a child of <detached>.
    let p = path(&t, c);
    assert_eq!(
        p,
        vec![
            (DETACHED_METHOD, NO_LINE),
            (2, NO_LINE),
            (2, 22),
            (2, 23),
            (2, 24),
            (2, 25)
        ]
    );
    assert!(t.child_of(a, 2, 20).is_none());
    assert!(!st[3].ret.is_marked(), "the frame below the cut is not");
    // All four edges below the detached root are new: weight 1 each.
    let mut n = c;
    for _ in 0..4 {
        assert_eq!(t.calls(n), 1);
        n = t.parent(n).unwrap();
    }
    assert_eq!(t.calls(n), 0, "the detached root has no edge");
    // Later samples in those frames extend the detached subtree.
    st.push(frame(3, 30));
    let d = t.place(&Fake, &mut st, 4, &mut Work::default());
    assert_eq!(t.parent(d), Some(c));
    // Back below the cut: the walk reaches the marked `a`.
    st.truncate(4);
    let e = t.place(&Fake, &mut st, 4, &mut Work::default());
    assert_eq!(path(&t, e), vec![(0, NO_LINE), (1, 5), (2, 20), (2, 21)]);
}

#[test]
fn purge_removes_cold_contexts_and_their_marks() {
    // --purge=2: the purge runs at the start of samples 3, 5, 7, ...,
    // and drops what the walks since the previous purge did not reach.
    let mut r = PcctRecorder::new(16, Some(2), 0);
    let sample = |r: &mut PcctRecorder, st: &mut Vec<Frame>| {
        r.sample_taken(&mut Work::default());
        r.method_sample(&Fake, st, YieldKind::Backedge, &mut Work::default());
    };
    let mut st = vec![entry(0), frame(1, 5)];
    sample(&mut r, &mut st); // s1: main -> a
    st.pop();
    st.push(frame(2, 6));
    st.push(frame(3, 7));
    sample(&mut r, &mut st); // s2: main -> b -> c
    sample(&mut r, &mut st); // s3: purges nothing (s1, s2 reached all)
    assert_eq!(r.tree().len(), 5);
    sample(&mut r, &mut st); // s4: in c
    sample(&mut r, &mut st); // s5: purges `a` (cold in s3, s4)
    let t = r.tree();
    let main = t.child_of(Pcct::ROOT, 0, NO_LINE).unwrap();
    assert!(t.child_of(main, 1, 5).is_none(), "cold `a` is purged");
    let b = t.child_of(main, 2, 6).unwrap();
    let c = t.child_of(b, 3, 7).unwrap();
    assert_eq!((t.time(c), t.calls(c)), (4, 1), "hot `c` keeps its counts");
    assert_eq!(t.calls(main), 1, "entry contexts stay");
    assert_eq!(t.len(), 4);
    assert_eq!(t.hottest_nodes(5), vec![(c, 4)]);
    assert_eq!(t.hottest_edges(5), vec![(b, 1), (c, 1)]);
    // The program moves to main -> a; c's frames are kept aside, still
    // marked with c's slot.
    let mut stale = st.clone();
    st.truncate(1);
    st.push(frame(1, 5));
    sample(&mut r, &mut st); // s6
    sample(&mut r, &mut st); // s7: purges nothing (s5 reached c)
    sample(&mut r, &mut st); // s8
    sample(&mut r, &mut st); // s9: purges b and c
    let t = r.tree();
    assert!(t.child_of(main, 2, 6).is_none(), "cold `b` is purged");
    assert_eq!(t.len(), 3);
    let a = t.child_of(main, 1, 5).unwrap();
    assert_eq!((t.time(a), t.calls(a)), (4, 1));
    // A frame whose slot names a freed node is walked past: the walk
    // places b and c again from the still valid main.
    r.method_sample(&Fake, &mut stale, YieldKind::Backedge, &mut Work::default());
    let t = r.tree();
    let b2 = t.child_of(main, 2, 6).expect("placed again");
    let c2 = t.child_of(b2, 3, 7).unwrap();
    assert_eq!((t.time(c2), t.calls(c2)), (1, 1), "counts start again");
    assert_eq!(t.len(), 5);
}

#[test]
fn merging_adds_counts_and_keeps_lists_sorted() {
    let mut x = PcctRecorder::new(16, None, 0);
    let mut y = PcctRecorder::new(16, None, 0);
    let mut s1 = vec![entry(0), frame(1, 5)];
    x.method_sample(&Fake, &mut s1, YieldKind::Backedge, &mut Work::default());
    let mut s2 = vec![entry(0), frame(2, 6)];
    for _ in 0..3 {
        y.method_sample(&Fake, &mut s2, YieldKind::Backedge, &mut Work::default());
    }
    let mut s3 = vec![entry(0), frame(1, 5)];
    y.method_sample(&Fake, &mut s3, YieldKind::Backedge, &mut Work::default());
    let mut all = x.take_tree();
    all.merge(&y.take_tree());
    let main = all.child_of(Pcct::ROOT, 0, NO_LINE).unwrap();
    let a = all.child_of(main, 1, 5).unwrap();
    let b = all.child_of(main, 2, 6).unwrap();
    assert_eq!(all.calls(main), 2, "two threads");
    assert_eq!((all.calls(a), all.time(a)), (2, 2));
    assert_eq!((all.calls(b), all.time(b)), (1, 3));
    assert_eq!(all.hottest_nodes(2), vec![(b, 3), (a, 2)]);
    assert_eq!(all.hottest_edges(2), vec![(a, 2), (b, 1)]);
}

#[test]
fn deep_trees_need_no_recursion() {
    let mut r = PcctRecorder::new(16, Some(1000), 0);
    let mut st = vec![entry(0)];
    for _ in 0..60_000 {
        st.push(frame(1, 3));
        r.sample_taken(&mut Work::default());
        r.method_sample(&Fake, &mut st, YieldKind::Backedge, &mut Work::default());
    }
    let t = r.tree();
    assert_eq!(t.len(), 60_002);
    let (flat, _) = t.to_flat(|_| "f".into());
    assert_eq!(flat.len(), 60_002);
    assert_eq!(flat[60_001].parent, Some(60_000));
    let mut all = Pcct::new();
    all.merge(t);
    assert_eq!(all.len(), 60_002);
}
