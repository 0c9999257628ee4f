//! The policies on hand-built profiles: worked examples of the thresholds.

use profile::{ConfigSection, DcgEdge, Profile, RunSection, FORMAT};

use super::*;

/// `mid` has 60 instructions, `big` 90, `tiny` 3, `Square.area` and
/// `Circle.area` 3 each. Call lines: 31 f, 32 g, 33 h (all `mid`), 34 `big`,
/// 35 `tiny`, 38 the virtual `area`, 40 the filler `other`.
fn program() -> String {
    let nops = |n: usize| "  nop\n".repeat(n);
    format!(
        "\
.class Shape
.end
.class Square : Shape
.end
.class Circle : Shape
.end
.method Square.area(this)
  push 4
  ret
.end
.method Circle.area(this)
  push 3
  ret
.end
.method mid()
{}  push 1
  ret
.end
.method big()
{}  push 2
  ret
.end
.method tiny()
  push 3
  ret
.end
.method other()
  push 0
  ret
.end
.method main()
  call mid
  call mid
  call mid
  call big
  call tiny
  add
  new Square
  callvirt area
  add
  call other
  add
  add
  add
  print
  push 0
  ret
.end
",
        nops(58),
        nops(88)
    )
}

fn module() -> Module {
    let m = vm::verify::assemble("p.bc", &program()).unwrap();
    assert_eq!(size(&m, m.method_by_display_name("mid").unwrap()), 60);
    assert_eq!(size(&m, m.method_by_display_name("big").unwrap()), 90);
    m
}

/// The line of the first `call`/`callvirt` in main; the rest follow.
fn main_line(m: &Module, k: usize) -> u32 {
    crate::inline::call_sites(m)
        .iter()
        .filter(|s| s.method == m.main)
        .map(|s| m.methods[s.method as usize].code[s.index as usize].pos.line)
        .nth(k)
        .unwrap()
}

fn profile(m: &Module, edges: &[(usize, &str, u64)]) -> Profile {
    Profile {
        format: FORMAT.into(),
        program: "p.bc".into(),
        config: ConfigSection::default(),
        run: RunSection::default(),
        methods: None,
        dcg: Some(
            edges
                .iter()
                .map(|&(k, callee, weight)| DcgEdge {
                    caller: "main".into(),
                    line: main_line(m, k),
                    callee: callee.into(),
                    weight,
                })
                .collect(),
        ),
        cct: None,
        hot: None,
    }
}

/// The three `mid` sites at 0.5%, 1% and 5% of a total of 1000; `big` at
/// 0.5%; `tiny` never seen; `area` 90% Square, 10% Circle; `other` the rest.
fn worked() -> (Module, EdgeWeights) {
    let m = module();
    let p = profile(
        &m,
        &[
            (0, "mid", 5),
            (1, "mid", 10),
            (2, "mid", 50),
            (3, "big", 5),
            (5, "Square.area", 90),
            (5, "Circle.area", 10),
            (6, "other", 830),
        ],
    );
    let w = EdgeWeights::from_profile(&m, &p);
    assert_eq!(w.total, 1000);
    (m, w)
}

fn verdict<'a>(vs: &'a [SiteDecision], m: &Module, k: usize, callee: &str) -> &'a SiteDecision {
    let line = main_line(m, k);
    let id = m.method_by_display_name(callee).unwrap();
    vs.iter()
        .find(|v| {
            v.site.method == m.main
                && m.methods[m.main as usize].code[v.site.index as usize]
                    .pos
                    .line
                    == line
                && v.callee == Some(id)
        })
        .unwrap_or_else(|| panic!("no verdict for {callee} at site {k}: {vs:#?}"))
}

#[test]
fn linear_ramp_is_jikes_numbers() {
    let t = Thresholds::default();
    assert_eq!(t.linear_max(0.5), 82); // 46 + 73 * 0.5
    assert_eq!(t.linear_max(0.01), 46);
    assert_eq!(t.linear_max(1.0), 119);
    assert_eq!(t.linear_max(5.0), 119);
}

#[test]
fn linear_grows_the_threshold_with_the_weight() {
    let (m, w) = worked();
    let vs = decide(PolicyKind::Linear, &m, &w, &Thresholds::default());
    let at_half = verdict(&vs, &m, 0, "mid");
    assert!(at_half.inline(), "{at_half:?}");
    assert_eq!(at_half.reason, "inline (warm: max 82)");
    assert_eq!(at_half.weight, Some(5));
    assert_eq!(verdict(&vs, &m, 1, "mid").reason, "inline (hot)");
    assert_eq!(verdict(&vs, &m, 2, "mid").reason, "inline (hot)");
    let big = verdict(&vs, &m, 3, "big");
    assert!(!big.inline());
    assert_eq!(big.reason, "too big for its weight (90 > 82)");
    // A site the profile never saw is not inlined, however small.
    let tiny = verdict(&vs, &m, 4, "tiny");
    assert!(!tiny.inline());
    assert_eq!(tiny.reason, "too cold to inline");
}

#[test]
fn linear_guards_the_90_percent_target_and_not_the_10_percent_one() {
    let (m, w) = worked();
    let vs = decide(PolicyKind::Linear, &m, &w, &Thresholds::default());
    let square = verdict(&vs, &m, 5, "Square.area");
    assert_eq!(
        square.target,
        Some(Target::Method {
            method: m.method_by_display_name("Square.area").unwrap()
        })
    );
    assert_eq!(square.reason, "guarded inline (90% Square, hot)");
    let circle = verdict(&vs, &m, 5, "Circle.area");
    assert!(!circle.inline());
    assert_eq!(circle.reason, "polymorphic (10% Circle <= 40%)");
    // Only the Square target reaches the inliner at that site.
    let ds = decisions(&vs);
    assert_eq!(ds.iter().filter(|d| d.site == square.site).count(), 1);
}

#[test]
fn guard_min_pct_is_an_option() {
    let (m, w) = worked();
    let t = Thresholds {
        guard_min_pct: 5.0,
        ..Thresholds::default()
    };
    let vs = decide(PolicyKind::Linear, &m, &w, &t);
    assert!(verdict(&vs, &m, 5, "Circle.area").inline());
}

#[test]
fn hot_edge_inlines_only_above_one_percent_and_ignores_cold_edges() {
    let (m, w) = worked();
    let vs = decide(PolicyKind::HotEdge, &m, &w, &Thresholds::default());
    let half = verdict(&vs, &m, 0, "mid");
    assert!(!half.inline());
    assert_eq!(half.reason, "too cold to inline");
    // Exactly 1% is not *above* 1%.
    assert!(!verdict(&vs, &m, 1, "mid").inline());
    let five = verdict(&vs, &m, 2, "mid");
    assert!(five.inline());
    assert_eq!(five.reason, "inline (hot)");
    // Cold, but below the always-inline size: inlined without profile.
    let tiny = verdict(&vs, &m, 4, "tiny");
    assert!(tiny.inline());
    assert_eq!(tiny.reason, "inline (tiny: < 11)");
    // Both area targets are hot edges (9% and 1%... only 9% is above 1%).
    assert!(verdict(&vs, &m, 5, "Square.area").inline());
    assert!(!verdict(&vs, &m, 5, "Circle.area").inline());
}

#[test]
fn hot_edge_says_hot_method_too_big() {
    let (m, w) = worked();
    let t = Thresholds {
        max_hot: 50,
        ..Thresholds::default()
    };
    let vs = decide(PolicyKind::HotEdge, &m, &w, &t);
    assert_eq!(
        verdict(&vs, &m, 2, "mid").reason,
        "hot method too big (60 > 50)"
    );
}

#[test]
fn static_uses_sizes_and_the_class_hierarchy_only() {
    let m = module();
    let vs = decide(
        PolicyKind::Static,
        &m,
        &EdgeWeights::default(),
        &Thresholds::default(),
    );
    let mid = verdict(&vs, &m, 0, "mid");
    assert_eq!(mid.reason, "too big (60 > 23)");
    assert_eq!(mid.weight, None);
    assert!(verdict(&vs, &m, 4, "tiny").inline());
    let area: Vec<_> = vs
        .iter()
        .filter(|v| {
            m.methods[m.main as usize].code[v.site.index as usize]
                .pos
                .line
                == main_line(&m, 5)
        })
        .collect();
    assert_eq!(area.len(), 1);
    assert_eq!(area[0].reason, "polymorphic (2 implementations)");
    let t = Thresholds {
        max_cold: 60,
        ..Thresholds::default()
    };
    let vs = decide(PolicyKind::Static, &m, &EdgeWeights::default(), &t);
    assert_eq!(verdict(&vs, &m, 0, "mid").reason, "inline (size)");
}

#[test]
fn decisions_run_through_the_inliner_and_log_in_code_order() {
    let (m, w) = worked();
    let t = Thresholds::default();
    let vs = decide(PolicyKind::Linear, &m, &w, &t);
    let (out, outcomes) = crate::inline::inline(&m, &decisions(&vs), &t.budget()).unwrap();
    assert!(outcomes.iter().all(|o| o.inlined()));
    // The optimized main no longer calls mid, but still calls big.
    let main = &out.methods[out.main as usize];
    let mid = m.method_by_display_name("mid").unwrap();
    assert!(!main.code.iter().any(|i| i.op == Op::Call(mid)));
    let text = log(&m, &vs, &outcomes, &w);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "main:");
    let l = main_line(&m, 0);
    assert_eq!(
        lines[1],
        format!("  @ {l} mid (60 insns, weight 5 = 0.50%)   inline (warm: max 82)")
    );
    assert!(
        lines.iter().any(|x| x.ends_with(
            "Circle.area (2 insns, weight 10 = 1.00%)   polymorphic (10% Circle <= 40%)"
        )),
        "{text}"
    );
    assert_eq!(lines.len(), 1 + 8);
}

#[test]
fn recursion_is_stopped_by_the_depth_and_logged_nested() {
    let src = "\
.method f(n)
  load n
  jz done
  load n
  push 1
  sub
  call f
  ret
done:
  push 0
  ret
.end
.method main()
  push 3
  call f
  print
  push 0
  ret
.end
";
    let m = vm::verify::assemble("r.bc", src).unwrap();
    let t = Thresholds {
        depth: 2,
        ..Thresholds::default()
    };
    let vs = decide(PolicyKind::Static, &m, &EdgeWeights::default(), &t);
    let (_, outcomes) = crate::inline::inline(&m, &decisions(&vs), &t.budget()).unwrap();
    let text = log(&m, &vs, &outcomes, &EdgeWeights::default());
    assert!(
        text.contains(
            "main:\n  @ 15 f (9 insns)   inline (tiny: < 11)\n    @ 7 f (9 insns)   inline (tiny: < 11)\n      @ 7 f (9 insns)   recursive inlining is too deep (max 2)\n"
        ),
        "{text}"
    );
}

#[test]
fn profiles_of_other_programs_are_ignored_not_fatal() {
    let m = module();
    let mut p = profile(&m, &[(0, "mid", 5)]);
    p.dcg.as_mut().unwrap().push(DcgEdge {
        caller: "nosuch".into(),
        line: 9999,
        callee: "mid".into(),
        weight: 5,
    });
    let w = EdgeWeights::from_profile(&m, &p);
    assert_eq!(w.total, 10);
    assert_eq!(w.edges.len(), 1);
}
