//! The text report: a readable summary of a profile (`vm run --report`
//! on stderr after the run, `vm report --format=text`): the hottest
//! methods and the heaviest call edges, each with its share of the
//! profile's total; with `--record=pcct`, also the front of the PCCT's
//! sorted hot lists (hottest contexts and edges, read as they are kept,
//! not sorted here), each named by its calling context. [`against`] adds
//! what a reference profile tells about the sample: the accuracy metrics
//! and the edges and contexts it over- and under-weights most.

use std::fmt::Write;

use std::collections::HashMap;

use crate::{metrics, CctNode, Profile};

/// How many methods and edges the summary lists.
pub const TOP: usize = 10;

/// The summary text (several lines, ending in a newline).
pub fn summary(p: &Profile) -> String {
    let mut s = String::new();
    let c = &p.config;
    let mut how = vec![format!("profile {}", c.profile)];
    if let Some(i) = c.interval_ns {
        how.push(format!("interval {}", duration(i)));
    }
    if let (Some(st), Some(sa)) = (c.stride, c.samples) {
        how.push(format!("stride {st}, samples {sa}"));
    }
    if let Some(e) = c.every {
        how.push(if e == 1 {
            "every call".to_string()
        } else {
            format!("every {e} calls")
        });
    }
    if let Some(clock) = &c.clock {
        how.push(format!("{clock} clock"));
    }
    if let Some(seed) = c.seed {
        how.push(format!("seed {seed}"));
    }
    let _ = writeln!(s, "vm: {} ({})", p.program, how.join(", "));
    let mut run = format!(
        "    {}, {}, {}",
        count(p.run.threads, "thread", "threads"),
        count(p.run.samples, "sample", "samples"),
        duration(p.run.wall_ns)
    );
    if let Some(i) = p.run.instructions {
        let _ = write!(run, ", {}", count(i, "instruction", "instructions"));
    }
    let _ = writeln!(s, "{run}");
    if let Some(hint) = no_samples_hint(p) {
        let _ = writeln!(s, "    {hint}");
    }
    let unit = if c.profile == "exhaustive" {
        "instructions"
    } else {
        "samples"
    };
    if let Some(methods) = &p.methods {
        let total: u64 = methods.iter().map(|m| m.self_).sum();
        let _ = writeln!(s, "hot methods (self, in {unit}):");
        let mut ms: Vec<_> = methods.iter().filter(|m| m.self_ > 0).collect();
        ms.sort_by(|a, b| b.self_.cmp(&a.self_).then_with(|| a.name.cmp(&b.name)));
        for m in ms.iter().take(TOP) {
            let _ = writeln!(
                s,
                "  {:>6}  {:>12}  {}  ({})",
                percent(m.self_, total),
                m.self_,
                m.name,
                count(m.calls, "call", "calls")
            );
        }
        if ms.is_empty() {
            let _ = writeln!(s, "  (none)");
        }
    }
    if let Some(dcg) = &p.dcg {
        let total: u64 = dcg.iter().map(|e| e.weight).sum();
        let what = if c.profile == "exhaustive" {
            "calls"
        } else {
            "samples"
        };
        let _ = writeln!(s, "call edges (weight, in {what}):");
        for e in dcg.iter().take(TOP) {
            let _ = writeln!(
                s,
                "  {:>6}  {:>12}  {} (line {}) -> {}",
                percent(e.weight, total),
                e.weight,
                e.caller,
                e.line,
                e.callee
            );
        }
        if dcg.is_empty() {
            let _ = writeln!(s, "  (none)");
        }
    }
    if let (Some(hot), Some(cct)) = (&p.hot, &p.cct) {
        let total_self: u64 = cct.iter().map(|n| n.self_).sum();
        let index: HashMap<u64, usize> = cct.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
        let _ = writeln!(s, "pcct hot contexts (self, in samples):");
        for h in hot.nodes.iter().take(TOP) {
            let _ = writeln!(
                s,
                "  {:>6}  {:>12}  {}",
                percent(h.self_, total_self),
                h.self_,
                context(cct, &index, h.id)
            );
        }
        if hot.nodes.is_empty() {
            let _ = writeln!(s, "  (none)");
        }
        // Every edge's weight (entry contexts count threads, not edges).
        let root = cct.first().map(|n| n.id);
        let total_calls: u64 = cct
            .iter()
            .filter(|n| n.parent.is_some() && n.parent != root)
            .map(|n| n.calls)
            .sum();
        let _ = writeln!(s, "pcct hot edges (weight, in new-edge samples):");
        for h in hot.edges.iter().take(TOP) {
            let _ = writeln!(
                s,
                "  {:>6}  {:>12}  {}",
                percent(h.calls, total_calls),
                h.calls,
                context(cct, &index, h.id)
            );
        }
        if hot.edges.is_empty() {
            let _ = writeln!(s, "  (none)");
        }
    }
    s
}

/// Below this `--interval` a wall-clock timer does not tick faster (about
/// 35 us a tick was measured on a loaded 2-core machine; docs/CLI.md).
const WALL_TIMER_FLOOR_NS: u64 = 100_000;

/// Why a sampled profile is empty, and what to try, when it took no
/// sample at all: a program shorter than one `--interval` gets no tick
/// (the example programs run well under 1 ms), one that makes fewer calls
/// than `--every` gets no counter sample. `None` for a profile with
/// samples, and for `exhaustive` and `none`, which do not sample.
pub fn no_samples_hint(p: &Profile) -> Option<String> {
    if p.run.samples > 0 {
        return None;
    }
    let c = &p.config;
    match c.profile.as_str() {
        "timer" | "cbs" => {
            // Under the virtual clock every thread ticks on its own cycles,
            // and `wall_ns` is the longest thread's (the sum over threads,
            // `cycles`, can pass an interval with no thread reaching one).
            let length = match c.clock.as_deref() {
                Some("virtual") if p.run.threads > 1 => format!(
                    "the longest of its {} threads ran {} cycles of virtual time",
                    p.run.threads, p.run.wall_ns
                ),
                Some("virtual") => format!("{} cycles of virtual time", p.run.wall_ns),
                _ => duration(p.run.wall_ns),
            };
            let every = c.interval_ns.map_or("one interval".into(), duration);
            // Under the virtual clock any interval is kept exactly; a
            // wall-clock timer thread cannot wake much more often than
            // every few tens of microseconds (docs/CLI.md, "--interval"),
            // so below that a shorter --interval does not help.
            let what_works = match c.clock.as_deref() {
                Some("virtual") => "a shorter --interval sees it",
                _ if c.interval_ns.is_some_and(|i| i > WALL_TIMER_FLOOR_NS) => {
                    "a shorter --interval (down to about 100us: the wall-clock timer cannot \
                     tick much faster) or --clock=virtual (ticks in virtual time, at any \
                     --interval) sees it"
                }
                _ => {
                    "the wall-clock timer cannot tick that fast, so a shorter --interval does \
                     not help: --clock=virtual (ticks in virtual time, at any --interval) or \
                     --profile=counter (a sample every N calls) sees it"
                }
            };
            Some(format!(
                "no samples: no tick came during the run ({length}, a tick every {every}); \
                 {what_works}, --profile=exhaustive counts it exactly"
            ))
        }
        "counter" => Some(format!(
            "no samples: the run made fewer calls than --every={}; a smaller --every sees \
             it, --profile=exhaustive counts it exactly",
            c.every.unwrap_or(0)
        )),
        _ => None,
    }
}

/// What `reference` (usually the exhaustive profile of the same program)
/// tells about the sample `p`: the four accuracy metrics (those the two
/// files cannot give are left out, those undefined on them say why), then
/// the [`TOP`] call edges and calling contexts whose share the sample
/// over-weights most and under-weights most, each as `sampled %`,
/// `exact %` and their difference in percentage points.
pub fn against(p: &Profile, reference: &Profile, reference_name: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "accuracy against {reference_name} (profile {}):",
        reference.config.profile
    );
    let c = metrics::compare(p, reference);
    let entries = c.entries();
    for (name, value) in &entries {
        let _ = writeln!(s, "  {name}: {value:.2}");
    }
    for (name, why) in c.undefined() {
        let _ = writeln!(s, "  {name}: left out ({why})");
    }
    if entries.is_empty() && c.undefined().is_empty() {
        let _ = writeln!(s, "  (no metric: the two files have no section in common)");
    }
    if let (Some(a), Some(b)) = (&p.dcg, &reference.dcg) {
        let mut names: Vec<String> = Vec::new();
        let mut ids: HashMap<(&str, u32, &str), u32> = HashMap::new();
        let mut w: [HashMap<u32, u64>; 2] = Default::default();
        for (side, edges) in [a, b].into_iter().enumerate() {
            for e in edges {
                let k = *ids
                    .entry((e.caller.as_str(), e.line, e.callee.as_str()))
                    .or_insert_with(|| {
                        names.push(format!("{}:{} \u{2192} {}", e.caller, e.line, e.callee));
                        (names.len() - 1) as u32
                    });
                *w[side].entry(k).or_default() += e.weight;
            }
        }
        let [wa, wb] = w;
        differences(&mut s, "call edges", "weight", &wa, &wb, |k| {
            names[k as usize].clone()
        });
    }
    if let (Some(a), Some(b)) = (&p.cct, &reference.cct) {
        let mut paths = Paths::default();
        let (wa, wb) = (paths.calls(a), paths.calls(b));
        differences(&mut s, "calling contexts", "calls", &wa, &wb, |k| {
            paths.name(k)
        });
    }
    s
}

/// The two lists of [`against`] for one kind of item (keys interned by
/// the caller, `name` spelling one out): the sample's share against the
/// reference's, largest differences first.
fn differences(
    s: &mut String,
    what: &str,
    weight: &str,
    sample: &HashMap<u32, u64>,
    exact: &HashMap<u32, u64>,
    name: impl Fn(u32) -> String,
) {
    let ts: u64 = sample.values().sum();
    let te: u64 = exact.values().sum();
    let mut rows: Vec<(f64, f64, u32)> = sample
        .keys()
        .chain(exact.keys().filter(|k| !sample.contains_key(*k)))
        .map(|&k| {
            let ps = super::share(sample.get(&k).copied().unwrap_or(0), ts);
            let pe = super::share(exact.get(&k).copied().unwrap_or(0), te);
            (ps, pe, k)
        })
        .collect();
    // Ties in key order, which is first-seen order: reproducible.
    rows.sort_by(|a, b| {
        (b.0 - b.1)
            .partial_cmp(&(a.0 - a.1))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.2.cmp(&b.2))
    });
    for (title, over) in [("over", true), ("under", false)] {
        let _ = writeln!(
            s,
            "{what} the sample {title}-weights most ({weight}: sampled %, exact %, difference):"
        );
        let picked: Vec<&(f64, f64, u32)> = if over {
            rows.iter()
                .filter(|r| r.0 - r.1 >= 0.05)
                .take(TOP)
                .collect()
        } else {
            rows.iter()
                .rev()
                .filter(|r| r.1 - r.0 >= 0.05)
                .take(TOP)
                .collect()
        };
        for r in &picked {
            let _ = writeln!(
                s,
                "  {:>6.1}%  {:>6.1}%  {:>+7.1}  {}",
                r.0,
                r.1,
                r.0 - r.1,
                name(r.2)
            );
        }
        if picked.is_empty() {
            let _ = writeln!(s, "  (none)");
        }
    }
}

/// Calling contexts of one or more trees, interned in one table so that
/// the same path in two profiles has the same key: a context is its path
/// of `(method, line)` from the root (root excluded, equal paths summed, as
/// [`metrics::cct_overlap`] counts them).
#[derive(Default)]
struct Paths {
    keys: HashMap<(u32, String, Option<u32>), u32>,
    parts: Vec<(u32, String, Option<u32>)>,
}

const NO_PARENT: u32 = u32::MAX;

impl Paths {
    /// Calls per context of `cct`.
    fn calls(&mut self, cct: &[CctNode]) -> HashMap<u32, u64> {
        let mut node_key: HashMap<u64, u32> = HashMap::new();
        let mut out: HashMap<u32, u64> = HashMap::new();
        for n in cct {
            let Some(parent) = n.parent else { continue };
            let pk = node_key.get(&parent).copied().unwrap_or(NO_PARENT);
            let probe = (pk, n.method.clone(), n.line);
            let k = match self.keys.get(&probe) {
                Some(&k) => k,
                None => {
                    let k = self.parts.len() as u32;
                    self.parts.push(probe.clone());
                    self.keys.insert(probe, k);
                    k
                }
            };
            if n.calls > 0 {
                *out.entry(k).or_default() += n.calls;
            }
            node_key.insert(n.id, k);
        }
        out
    }

    /// A context as `main:14 \u{2192} fib:5 \u{2192} fib` (each method with
    /// the line it calls the next one at), its innermost levels only.
    fn name(&self, k: u32) -> String {
        let mut names: Vec<String> = Vec::new();
        let mut cur = k;
        let mut line_below: Option<u32> = None;
        let mut cut = false;
        while cur != NO_PARENT {
            if names.len() == CONTEXT_LEVELS {
                cut = true;
                break;
            }
            let (pk, method, line) = &self.parts[cur as usize];
            names.push(match line_below {
                Some(l) => format!("{method}:{l}"),
                None => method.clone(),
            });
            line_below = *line;
            cur = *pk;
        }
        names.reverse();
        let path = names.join(" \u{2192} ");
        if cut {
            format!("\u{2026} \u{2192} {path}")
        } else {
            path
        }
    }
}

/// How many innermost levels of a context `--report` shows.
const CONTEXT_LEVELS: usize = 5;

/// A context as `main > M (38) > A (51)`, its innermost levels only
/// (`... ` in front when cut); found by following parents, no recursion.
fn context(cct: &[CctNode], index: &HashMap<u64, usize>, id: u64) -> String {
    let mut parts = Vec::new();
    let mut cur = index.get(&id).copied();
    let mut cut = false;
    while let Some(i) = cur {
        let n = &cct[i];
        if n.parent.is_none() {
            break;
        }
        if parts.len() == CONTEXT_LEVELS {
            cut = true;
            break;
        }
        parts.push(match n.line {
            Some(l) => format!("{} ({l})", n.method),
            None => n.method.clone(),
        });
        cur = n.parent.and_then(|p| index.get(&p).copied());
    }
    parts.reverse();
    let path = parts.join(" > ");
    if cut {
        format!("... > {path}")
    } else {
        path
    }
}

fn percent(part: u64, total: u64) -> String {
    if total == 0 {
        "-".into()
    } else {
        format!("{:.1}%", 100.0 * part as f64 / total as f64)
    }
}

fn duration(ns: u64) -> String {
    if ns >= 1_000_000 {
        format!("{:.1} ms", ns as f64 / 1e6)
    } else if ns >= 1_000 {
        format!("{:.1} us", ns as f64 / 1e3)
    } else {
        format!("{ns} ns")
    }
}

/// `n` and a noun that agrees with it: `1 sample`, `2 samples`.
fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_profile_names_what_works_for_its_clock_and_interval() {
        let empty = |clock: &str, interval_ns: u64| {
            let mut p = crate::Profile {
                format: crate::FORMAT.into(),
                program: "p.bc".into(),
                config: crate::ConfigSection {
                    profile: "timer".into(),
                    clock: Some(clock.into()),
                    interval_ns: Some(interval_ns),
                    ..Default::default()
                },
                run: crate::RunSection::default(),
                methods: None,
                dcg: None,
                cct: None,
                hot: None,
            };
            p.run.wall_ns = 5_000;
            no_samples_hint(&p).expect("a hint")
        };
        // Wall clock below the timer's resolution: a shorter interval does
        // not help; the virtual clock and the counter do.
        let fast = empty("wall", 10_000);
        assert!(fast.contains("--clock=virtual") && fast.contains("--profile=counter"));
        assert!(!fast.contains("a shorter --interval sees it"), "{fast}");
        // Wall clock above it: a shorter interval is still worth trying.
        let slow = empty("wall", 1_000_000_000);
        assert!(
            slow.contains("a shorter --interval (down to about 100us"),
            "{slow}"
        );
        // Virtual clock: any interval is kept.
        let virt = empty("virtual", 10_000);
        assert!(virt.contains("a shorter --interval sees it"), "{virt}");
    }

    fn profile(config: &str, run: &str) -> Profile {
        Profile {
            format: crate::FORMAT.into(),
            program: "p.bc".into(),
            config: serde_json::from_str(config).unwrap(),
            run: serde_json::from_str(run).unwrap(),
            methods: None,
            dcg: None,
            cct: None,
            hot: None,
        }
    }

    #[test]
    fn an_empty_sampled_profile_says_why_and_what_to_try() {
        let wall = profile(
            r#"{"profile": "cbs", "interval_ns": 1000000, "clock": "wall"}"#,
            r#"{"wall_ns": 214599, "samples": 0, "threads": 1}"#,
        );
        let hint = no_samples_hint(&wall).expect("a hint");
        assert!(
            hint.contains("no tick came during the run (214.6 us, a tick every 1.0 ms)"),
            "{hint}"
        );
        assert!(
            hint.contains("--interval") && hint.contains("--profile=exhaustive"),
            "{hint}"
        );
        assert!(summary(&wall).contains(&hint));
        let virt = profile(
            r#"{"profile": "timer", "interval_ns": 1000000, "clock": "virtual"}"#,
            r#"{"wall_ns": 725, "samples": 0, "threads": 1, "cycles": 725}"#,
        );
        assert!(no_samples_hint(&virt)
            .unwrap()
            .contains("(725 cycles of virtual time"));
        // Seven threads, 1.5 M cycles in all but none reaching 1 ms: the
        // hint names the longest thread's time, which decides the ticks.
        let threads = profile(
            r#"{"profile": "cbs", "interval_ns": 1000000, "clock": "virtual"}"#,
            r#"{"wall_ns": 360013, "samples": 0, "threads": 7, "cycles": 1502460}"#,
        );
        let hint = no_samples_hint(&threads).unwrap();
        assert!(
            hint.contains("(the longest of its 7 threads ran 360013 cycles of virtual time"),
            "{hint}"
        );
        assert!(!hint.contains("1502460"), "{hint}");
        let counter = profile(
            r#"{"profile": "counter", "every": 100}"#,
            r#"{"wall_ns": 5, "samples": 0, "threads": 1}"#,
        );
        assert!(no_samples_hint(&counter)
            .unwrap()
            .contains("fewer calls than --every=100"));
    }

    #[test]
    fn profiles_with_samples_or_that_do_not_sample_get_no_hint() {
        let sampled = profile(
            r#"{"profile": "cbs", "interval_ns": 1000000}"#,
            r#"{"wall_ns": 5, "samples": 3, "threads": 1}"#,
        );
        assert_eq!(no_samples_hint(&sampled), None);
        assert!(!summary(&sampled).contains("no samples"));
        for kind in ["exhaustive", "none"] {
            let p = profile(
                &format!(r#"{{"profile": "{kind}"}}"#),
                r#"{"wall_ns": 5, "samples": 0, "threads": 1}"#,
            );
            assert_eq!(no_samples_hint(&p), None, "{kind}");
        }
    }
}
