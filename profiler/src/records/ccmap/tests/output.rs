//! The CC-Map's output: its thread-root tree as a calling context tree,
//! against hand-built trees, on deep stacks.

use super::*;

#[test]
fn the_worked_example_as_a_cct() {
    let flat = worked_example().to_cct_nodes(name);
    let got: Vec<_> = flat
        .iter()
        .map(|n| (n.id, n.parent, n.method.as_str(), n.line, n.calls, n.self_))
        .collect();
    // The incomplete walk (a called at 5 from somewhere) is not in it.
    assert_eq!(
        got,
        vec![
            (0, None, "<root>", None, 0, 0),
            (1, Some(0), "main", None, 0, 0),
            (2, Some(1), "a", Some(3), 0, 0),
            (3, Some(2), "b", Some(7), 2, 2),
            (4, Some(2), "c", Some(9), 1, 1),
        ]
    );
}

#[test]
fn sampled_counts_go_to_the_top_and_the_credited_frame_in_every_tree() {
    let mut map = CallContextMap::new();
    // A prologue sample: b just called from a, the method sample
    // credits a (self_at 1).
    let f = frames(&[(B, 7), (A, 3), (MAIN, 0)], true);
    map.insert(StackSample {
        frames: &f,
        complete: true,
        call: true,
        self_at: Some(1),
    });
    // A backedge sample in a: self only.
    let f = frames(&[(A, 3), (MAIN, 0)], true);
    map.insert(StackSample {
        frames: &f,
        complete: true,
        call: false,
        self_at: Some(0),
    });
    map.count_thread(MAIN);
    let got: Vec<_> = map
        .to_cct_nodes(name)
        .iter()
        .map(|n| (n.method.to_string(), n.calls, n.self_))
        .collect();
    assert_eq!(
        got,
        vec![
            ("<root>".to_string(), 0, 0),
            ("main".to_string(), 1, 0),
            ("a".to_string(), 0, 2),
            ("b".to_string(), 1, 0),
        ]
    );
    // In main's tree too: main->a credited twice, main->a->b one call.
    let main_a = Context::RootCall(map.call_site(map.find_call_site(MAIN, 3).unwrap()).callees[0]);
    assert_eq!(map.sampled_self_in(main_a), 2);
    let b = map.callee_contexts(main_a)[0];
    assert_eq!((map.sampled_calls_in(b), map.sampled_self_in(b)), (1, 0));
    // The paper's counters are untouched by the thread count.
    assert_eq!(map.method(MAIN).unwrap().executions, 2);
}

#[test]
fn to_cct_equals_the_tree_of_the_complete_walks() {
    let mut rng = Lcg(7);
    let mut map = CallContextMap::new();
    let mut expected = CallingContextTree::new();
    for _ in 0..300 {
        let depth = 1 + rng.below(8) as usize;
        // Outermost first: an entry (main or f), then calls.
        let mut outer_first: Vec<(u32, u32)> = vec![(if rng.below(4) == 0 { 4 } else { MAIN }, 0)];
        for _ in 1..depth {
            outer_first.push((rng.below(5) as u32, 1 + rng.below(3) as u32));
        }
        let complete = rng.below(3) != 0;
        let spec: Vec<(u32, u32)> = outer_first.iter().rev().copied().collect();
        insert(&mut map, &spec, complete);
        if complete {
            let mut node = CallingContextTree::ROOT;
            for (k, &(m, line)) in outer_first.iter().enumerate() {
                let line = if k == 0 { NO_LINE } else { line };
                node = expected.child(node, m, line);
            }
            // The sampled call and self go to the top context only.
            expected.node_mut(node).calls += 1;
            expected.node_mut(node).self_ += 1;
        }
    }
    let got = map.to_cct_nodes(name);
    assert_eq!(got, expected.to_flat(name));
    assert!(got.len() > 50, "the walks made a real tree: {}", got.len());
    // Parents before children, as a profile file requires.
    let profile = profile::Profile {
        format: profile::FORMAT.into(),
        program: "p.bc".into(),
        config: Default::default(),
        run: Default::default(),
        methods: None,
        dcg: None,
        cct: Some(got.clone()),
        hot: None,
    };
    let back = profile::Profile::from_json(&profile.to_json()).unwrap();
    assert_eq!(back.cct.unwrap(), got);
    check_links(&map);
}

#[test]
fn a_5000_frame_stack_needs_no_recursion() {
    // On a 256 KiB stack, so that anything recursing once per frame
    // would overflow it.
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(deep_stack)
        .unwrap()
        .join()
        .unwrap();
}

fn deep_stack() {
    const F: u32 = 4;
    const DEPTH: usize = 5000;
    // main calls f at 2; f calls itself at 5; 4999 frames of f.
    let mut spec = vec![(F, 5); DEPTH - 2];
    spec.push((F, 2));
    spec.push((MAIN, 0));
    let mut map = CallContextMap::new();
    insert(&mut map, &spec, true);
    insert(&mut map, &spec, true);
    let fs = (DEPTH - 1) as u64;
    assert_eq!(map.method(F).unwrap().executions, 2 * fs);
    let f5 = map.find_call_site(F, 5).unwrap();
    assert_eq!(site_callees(&map, f5), vec![(F, 2 * (fs - 1))]);
    // Trees: <root> (4999 nested f's under main), main (4998 nested
    // under main->f), f (4997 nested under f->f).
    let counts = map.node_counts();
    assert_eq!(counts.callees, 3);
    assert_eq!(counts.callee_refs, 4999 + 4998 + 4997);
    assert_eq!(counts.call_site_refs, counts.callee_refs);
    // In f's tree the k-th call of the chain is seen from 4998 - k + 1
    // roots per sample.
    let mut context = Context::RootCall(map.call_site(f5).callees[0]);
    let mut k = 1;
    loop {
        assert_eq!(map.calls_in(context), 2 * (fs - 1 - k + 1), "call {k}");
        match map.callee_contexts(context).as_slice() {
            [] => break,
            [next] => context = *next,
            more => panic!("a chain, not {} children", more.len()),
        }
        k += 1;
    }
    assert_eq!(k, fs - 1);
    assert_eq!(map.on_top_in(context), 2);
    // The deepest whole context, spelled out without recursion.
    let deepest = *map
        .contexts_of(F)
        .iter()
        .max_by_key(|&&c| map.context_path(c).calls.len())
        .unwrap();
    let p = map.context_path(deepest);
    assert_eq!(p.root, ROOT_METHOD);
    assert_eq!(p.calls.len(), DEPTH);
    let flat = map.to_cct_nodes(name);
    assert_eq!(flat.len(), DEPTH + 1);
    assert!(flat.iter().skip(1).take(DEPTH - 1).all(|n| n.calls == 0));
    assert_eq!(flat[DEPTH].calls, 2);
    assert_eq!(flat[DEPTH].parent, Some(DEPTH as u64 - 1));
    assert_eq!(flat[DEPTH].self_, 2);
    assert_eq!(flat[DEPTH - 1].self_, 0);
}
