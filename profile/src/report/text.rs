//! The text report: a readable summary of a profile (`vm run --report`
//! on stderr after the run, `vm report --format=text`; one implementation
//! for both). It says what every number counts, since a sampled profile
//! counts two things apart: *method samples* (what was executing: `self`)
//! and *edge samples* (a call being made: call-edge weights and `calls`).
//! Then a confidence line (samples taken, distinct edges seen, and the
//! standard error of the top shares, [`std_error`]), the hottest methods
//! and call edges, and, when the profile has a calling-context tree
//! (`--record=cct`, `pcct`, `acct` or `ccmap`), its hottest contexts by
//! `self` and by `calls` (for `pcct`, the front of the PCCT's own sorted
//! hot lists, read as they are kept). Call sites and contexts are written
//! caller first, `M:48 → A` being `A` called from line 48 of `M`.
//! [`against`] adds what a reference profile tells about the sample: the
//! accuracy metrics and the edges and contexts it over- and under-weights
//! most.

use std::fmt::Write;

use std::collections::HashMap;

use crate::{metrics, CctNode, MethodName, Profile};

/// How many methods, edges and contexts each list of the summary shows.
pub const TOP: usize = 10;

/// The standard error of a share `p` (0 to 1) estimated from `n`
/// independent samples, in percentage points: `100 * sqrt(p (1 - p) / n)`
/// (the binomial proportion's). It measures sampling noise only: a sampler
/// that is biased (the timer of `arnold-grove-fig1.bc`) can be further off,
/// and samples taken in bursts (cbs) are not independent, so for them it is
/// a lower bound. `None` for `n = 0`.
pub fn std_error(p: f64, n: u128) -> Option<f64> {
    (n > 0).then(|| 100.0 * (p * (1.0 - p) / n as f64).sqrt())
}

/// The summary text (several lines, ending in a newline).
pub fn summary(p: &Profile) -> String {
    let mut s = String::new();
    let c = &p.config;
    let exact = c.profile == "exhaustive";
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
        "    {}, {}",
        count(p.run.threads, "thread", "threads"),
        duration(p.run.wall_ns)
    );
    if let Some(i) = p.run.instructions {
        let _ = write!(run, ", {}", count(i, "instruction", "instructions"));
    }
    let _ = writeln!(s, "{run}");
    if let Some(line) = crate::overhead::line(&p.run) {
        let _ = writeln!(s, "    {line}");
    }
    if let Some(line) = sampler_line(&p.run) {
        let _ = writeln!(s, "    {line}");
    }
    let method_samples = super::total(p.methods.iter().flatten().map(|m| m.self_));
    let edge_samples = super::total(p.dcg.iter().flatten().map(|e| e.weight));
    if exact {
        let _ = writeln!(
            s,
            "    exact: every call counted ({} traced); self counts the instructions executed",
            count(p.run.samples, "call", "calls")
        );
    } else {
        let _ = writeln!(
            s,
            "    {} taken: {} (they count self) and {} (they count calls and call-edge \
             weights), counted apart",
            count(p.run.samples, "sample", "samples"),
            count(method_samples, "method sample", "method samples"),
            count(edge_samples, "edge sample", "edge samples"),
        );
        if let Some(what) = what_a_sample_is(p) {
            let _ = writeln!(s, "    ({what})");
        }
    }
    if let Some(hint) = no_samples_hint(p) {
        let _ = writeln!(s, "    {hint}");
    } else if let Some(line) = confidence(p, method_samples, edge_samples) {
        let _ = writeln!(s, "{line}");
    }
    let sampled = !exact;
    // A counter samples at calls, and its method sample is the caller's:
    // its `self` counts the calls a method makes, not its time.
    let counter = p.config.profile == "counter";
    if let Some(methods) = &p.methods {
        let _ = writeln!(
            s,
            "hot methods ({}):",
            if exact {
                "self: instructions executed in the method; calls: every call into it"
            } else if counter {
                "calls made: method samples, which a counter takes of the caller at each \
                 call it samples, so they count the calls a method makes, not its time (a \
                 method that calls nothing is not here: --profile=timer or exhaustive \
                 measures time); sampled calls: edge samples into it, not all its calls"
            } else {
                "self: method samples with the method on top; sampled calls: edge samples \
                 into it, not all its calls"
            }
        );
        let mut ms: Vec<_> = methods.iter().filter(|m| m.self_ > 0).collect();
        ms.sort_by(|a, b| b.self_.cmp(&a.self_).then_with(|| a.name.cmp(&b.name)));
        if ms.is_empty() {
            let _ = writeln!(s, "  (none)");
        } else {
            let calls = if exact { "calls" } else { "sampled calls" };
            let _ = writeln!(
                s,
                "  {:>6}{}  {:>12}  {calls:>13}  method",
                "share",
                se_head(sampled),
                if counter { "calls made" } else { "self" }
            );
        }
        for m in ms.iter().take(TOP) {
            let _ = writeln!(
                s,
                "  {:>6}{}  {:>12}  {:>13}  {}",
                percent(m.self_, method_samples),
                se_cell(sampled, m.self_, method_samples),
                m.self_,
                m.calls,
                m.name
            );
        }
    }
    if let Some(dcg) = &p.dcg {
        let _ = writeln!(
            s,
            "call edges (caller:line \u{2192} callee; weight: {}):",
            if exact {
                "calls made at the call site"
            } else {
                "edge samples of the call"
            }
        );
        let mut es: Vec<_> = dcg.iter().collect();
        es.sort_by_key(|e| std::cmp::Reverse(e.weight));
        if es.is_empty() {
            let _ = writeln!(s, "  (none)");
        } else {
            let _ = writeln!(
                s,
                "  {:>6}{}  {:>12}  edge",
                "share",
                se_head(sampled),
                "weight"
            );
        }
        for e in es.iter().take(TOP) {
            let _ = writeln!(
                s,
                "  {:>6}{}  {:>12}  {}",
                percent(e.weight, edge_samples),
                se_cell(sampled, e.weight, edge_samples),
                e.weight,
                site(&e.caller, e.line, &e.callee)
            );
        }
    }
    if let Some(cct) = &p.cct {
        contexts(&mut s, p, cct);
    }
    s
}

/// A call site and its callee, caller first: `M:48 → A`.
pub fn site(caller: &str, line: u32, callee: &str) -> String {
    format!("{caller}:{line} \u{2192} {callee}")
}

/// The header of the standard-error column (sampled profiles only).
fn se_head(sampled: bool) -> String {
    if sampled {
        format!("  {:>6}", "\u{b1}s.e.")
    } else {
        String::new()
    }
}

/// A share's standard error in percentage points, as a column.
fn se_cell(sampled: bool, part: u64, n: u128) -> String {
    if !sampled {
        return String::new();
    }
    match std_error(fraction(part, n), n) {
        Some(e) => format!("  {e:>6.1}"),
        None => format!("  {:>6}", "-"),
    }
}

fn fraction(part: u64, total: u128) -> f64 {
    if total == 0 {
        0.0
    } else {
        part as f64 / total as f64
    }
}

/// What one sample of `p`'s kind records, for the reader who wonders why
/// method samples and edge samples do not add up to the samples taken.
fn what_a_sample_is(p: &Profile) -> Option<String> {
    let c = &p.config;
    Some(match c.profile.as_str() {
        "timer" => "timer: each tick samples the method executing, and, when the tick is \
                    noticed at a call or a return, that call's edge too"
            .to_string(),
        "cbs" => format!(
            "cbs: each tick samples the method executing, then the edges of up to {} calls, \
             {} apart",
            c.samples.unwrap_or(0),
            c.stride.unwrap_or(0)
        ),
        "counter" => match c.every {
            Some(1) => "counter: every call samples its edge and the caller, executing".into(),
            e => format!(
                "counter: every {}th call samples its edge and the caller, executing",
                e.unwrap_or(0)
            ),
        },
        _ => return None,
    })
}

/// The confidence line of a profile with samples: how many were taken,
/// how many distinct call edges they saw, and the standard error of the
/// top method's and the top edge's shares ([`std_error`]). The exact
/// profile has no sampling error and says so.
fn confidence(p: &Profile, method_samples: u128, edge_samples: u128) -> Option<String> {
    if p.config.profile == "exhaustive" {
        return Some(
            "confidence: exact (every call and instruction counted), no sampling error".into(),
        );
    }
    if p.run.samples == 0 {
        return None;
    }
    let edges = p.dcg.as_ref().map_or(0, |d| d.len() as u64);
    let mut tops = Vec::new();
    let top_method = p
        .methods
        .iter()
        .flatten()
        .max_by(|a, b| a.self_.cmp(&b.self_).then_with(|| b.name.cmp(&a.name)));
    if let Some(m) = top_method.filter(|m| m.self_ > 0) {
        let f = fraction(m.self_, method_samples);
        if let Some(e) = std_error(f, method_samples) {
            tops.push(format!(
                "method {} {:.1}% \u{b1}{e:.1} (n = {method_samples})",
                m.name,
                100.0 * f
            ));
        }
    }
    // The first of the heaviest, as the edges table lists them.
    let top_edge =
        p.dcg
            .iter()
            .flatten()
            .fold(None, |best: Option<&crate::DcgEdge>, e| match best {
                Some(b) if b.weight >= e.weight => Some(b),
                _ => Some(e),
            });
    if let Some(e) = top_edge.filter(|e| e.weight > 0) {
        let f = fraction(e.weight, edge_samples);
        if let Some(se) = std_error(f, edge_samples) {
            tops.push(format!(
                "edge {} {:.1}% \u{b1}{se:.1} (n = {edge_samples})",
                site(&e.caller, e.line, &e.callee),
                100.0 * f
            ));
        }
    }
    let mut line = format!(
        "confidence: {} taken, {} seen",
        count(p.run.samples, "sample", "samples"),
        count(edges, "distinct call edge", "distinct call edges")
    );
    if !tops.is_empty() {
        let _ = write!(
            line,
            "; standard error of the top shares, sqrt(p(1-p)/n) in points: {} (sampling \
             noise only, not bias)",
            tops.join(", ")
        );
    }
    Some(line)
}

/// The hottest contexts of `p`'s `cct`, by `self` and by `calls` (entry
/// contexts, whose `calls` count threads, left out), each with its share
/// of the tree's total; a PCCT's come from its own hot lists.
fn contexts(s: &mut String, p: &Profile, cct: &[CctNode]) {
    let exact = p.config.profile == "exhaustive";
    let record = p
        .config
        .record
        .iter()
        .flatten()
        .find(|r| *r != "dcg")
        .map_or("cct", |r| r.as_str());
    let lookup = Lookup::new(cct);
    let root = cct.first().filter(|n| n.parent.is_none()).map(|n| n.id);
    let is_edge = |n: &CctNode| n.parent.is_some() && n.parent != root;
    let total_self = super::total(cct.iter().map(|n| n.self_));
    let total_calls = super::total(cct.iter().filter(|n| is_edge(n)).map(|n| n.calls));
    let (by_self, by_calls): (Rows, Rows) = match &p.hot {
        Some(hot) => (
            hot.nodes
                .iter()
                .filter_map(|h| lookup.get(h.id).map(|i| (i, h.self_)))
                .take(TOP)
                .collect(),
            hot.edges
                .iter()
                .filter_map(|h| lookup.get(h.id).map(|i| (i, h.calls)))
                .take(TOP)
                .collect(),
        ),
        None => (
            top(cct.iter().map(|n| n.self_)),
            top(cct.iter().map(|n| if is_edge(n) { n.calls } else { 0 })),
        ),
    };
    let from = if p.hot.is_some() {
        format!("{record}, its own hot list")
    } else {
        record.to_string()
    };
    let self_unit = if exact {
        "instructions executed"
    } else {
        "method samples"
    };
    let calls_unit = match (exact, record) {
        (true, _) => "calls into the context",
        (false, "pcct") => "new-edge samples: each walk adds 1 to every context it finds new",
        (false, "acct") if p.config.acct_update.as_deref() == Some("all-new-edges") => {
            "new-edge samples: each walk adds 1 to every context it splices in"
        }
        _ => "edge samples into the context",
    };
    let _ = writeln!(
        s,
        "contexts by self ({from}; self: {self_unit} with the context on top):"
    );
    list(s, "self", &by_self, total_self, cct, &lookup);
    let _ = writeln!(
        s,
        "contexts by calls ({from}; calls: {calls_unit}; entry contexts left out):"
    );
    list(s, "calls", &by_calls, total_calls, cct, &lookup);
}

/// Contexts to list: (position in `cct`, weight), hottest first.
type Rows = Vec<(usize, u64)>;

/// One list of [`contexts`]: a header and a row per context.
fn list(
    s: &mut String,
    what: &str,
    rows: &[(usize, u64)],
    total: u128,
    cct: &[CctNode],
    lookup: &Lookup,
) {
    if rows.is_empty() {
        let _ = writeln!(s, "  (none)");
        return;
    }
    let _ = writeln!(s, "  {:>6}  {what:>12}  context", "share");
    for &(i, w) in rows {
        let _ = writeln!(
            s,
            "  {:>6}  {:>12}  {}",
            percent(w, total),
            w,
            context(cct, lookup, i)
        );
    }
}

/// The positions of the [`TOP`] largest non-zero weights, largest first,
/// ties in list order; one pass, no sort of the whole list.
fn top(weights: impl Iterator<Item = u64>) -> Vec<(usize, u64)> {
    let mut best: Vec<(usize, u64)> = Vec::with_capacity(TOP + 1);
    for (i, w) in weights.enumerate() {
        if w == 0 || (best.len() == TOP && best[TOP - 1].1 >= w) {
            continue;
        }
        let at = best.partition_point(|&(_, b)| b >= w);
        best.insert(at, (i, w));
        best.truncate(TOP);
    }
    best
}

/// A node's position in `cct` by id: the id itself when ids are the
/// positions (as the profiler writes them), a map otherwise.
struct Lookup {
    map: Option<HashMap<u64, usize>>,
    len: usize,
}

impl Lookup {
    fn new(cct: &[CctNode]) -> Lookup {
        let sequential = cct.iter().enumerate().all(|(i, n)| n.id == i as u64);
        Lookup {
            map: (!sequential).then(|| cct.iter().enumerate().map(|(i, n)| (n.id, i)).collect()),
            len: cct.len(),
        }
    }

    fn get(&self, id: u64) -> Option<usize> {
        match &self.map {
            Some(m) => m.get(&id).copied(),
            None => usize::try_from(id).ok().filter(|&i| i < self.len),
        }
    }
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
                Some("virtual") => format!("it ran {} cycles of virtual time", p.run.wall_ns),
                // `wall_ns` is the program's own time, first instruction to
                // last thread's end, not the process's (the VM's runtime measures it).
                _ => format!("it ran {}", duration(p.run.wall_ns)),
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
                "no samples: no tick came while the program ran ({length}, a tick every {every}); \
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
                        names.push(site(&e.caller, e.line, &e.callee));
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
    let ts = super::total(sample.values().copied());
    let te = super::total(exact.values().copied());
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
    keys: HashMap<(u32, MethodName, Option<u32>), u32>,
    parts: Vec<(u32, MethodName, Option<u32>)>,
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
                None => method.to_string(),
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

/// The context of node `i` as `main:57 \u{2192} M:167 \u{2192} call_1`
/// (each method with the line it calls the next one at), its innermost
/// levels only (`\u{2026} \u{2192} ` in front when cut); found by
/// following parents, no recursion.
fn context(cct: &[CctNode], lookup: &Lookup, i: usize) -> String {
    let mut parts = Vec::new();
    let mut cur = Some(i);
    let mut line_below: Option<u32> = None;
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
        parts.push(match line_below {
            Some(l) => format!("{}:{l}", n.method),
            None => n.method.to_string(),
        });
        line_below = n.line;
        cur = n.parent.and_then(|p| lookup.get(p));
    }
    parts.reverse();
    let path = parts.join(" \u{2192} ");
    if cut {
        format!("\u{2026} \u{2192} {path}")
    } else {
        path
    }
}

/// What a sampler thread did (`--profile=timer` on the wall clock, or on
/// a simulated machine with `--cores`): `sampler: 244 safepoints, 488 thread
/// samples taken of 488 asked for (2.0 a safepoint); threads held 1.4 ms
/// in all`, or on a simulated machine `threads stopped 91234 cycles in
/// all, stacks walked in 2048`. The profile's `run.safepoints`,
/// `samples_taken`, `samples_requested`, `held_ns`, `pause_cycles` and
/// `walk_cycles` (docs/LANGUAGE.md, "Profiles").
fn sampler_line(run: &crate::RunSection) -> Option<String> {
    let safepoints = run.safepoints?;
    let taken = run.samples_taken.unwrap_or(0);
    let mut line = format!(
        "sampler: {}, {} taken of {} asked for",
        count(safepoints, "safepoint", "safepoints"),
        count(taken, "thread sample", "thread samples"),
        run.samples_requested.unwrap_or(0)
    );
    if safepoints > 0 {
        let _ = write!(
            line,
            " ({:.1} a safepoint)",
            taken as f64 / safepoints as f64
        );
    }
    if let Some(held) = run.held_ns {
        let _ = write!(line, "; threads held {} in all", duration(held));
    }
    if let (Some(pause), Some(walk)) = (run.pause_cycles, run.walk_cycles) {
        let _ = write!(
            line,
            "; threads stopped {pause} cycles in all, stacks walked in {walk}"
        );
    }
    Some(line)
}

fn percent(part: u64, total: u128) -> String {
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
fn count(n: impl Into<u128>, one: &str, many: &str) -> String {
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

    /// A counter's method samples are the caller's at each sampled call:
    /// the column says "calls made", not "self", and the header says that a
    /// method that calls nothing is not there.
    #[test]
    fn a_counter_profile_names_its_methods_column_by_what_it_counts() {
        let methods =
            r#"[{"name": "M", "self": 90, "calls": 1}, {"name": "leaf", "self": 0, "calls": 90}]"#;
        let mut counter = profile(
            r#"{"profile": "counter", "every": 1}"#,
            r#"{"wall_ns": 1000, "samples": 90, "threads": 1}"#,
        );
        counter.methods = Some(serde_json::from_str(methods).unwrap());
        let text = summary(&counter);
        assert!(text.contains("hot methods (calls made: "), "{text}");
        assert!(
            text.contains("not its time") && text.contains("calls nothing"),
            "{text}"
        );
        assert!(
            text.contains("  calls made  sampled calls  method"),
            "{text}"
        );
        let mut timer = counter.clone();
        timer.config =
            serde_json::from_str(r#"{"profile": "timer", "interval_ns": 1000000}"#).unwrap();
        let text = summary(&timer);
        assert!(
            text.contains("hot methods (self: ") && !text.contains("calls made"),
            "{text}"
        );
    }

    /// A sampler thread's counters, on the wall clock and on a simulated
    /// machine; a profile without a sampler thread has no sampler line.
    #[test]
    fn the_sampler_line_says_what_each_safepoint_took() {
        let wall = profile(
            r#"{"profile": "timer", "interval_ns": 1000000}"#,
            r#"{"wall_ns": 1000, "samples": 9, "threads": 9, "safepoints": 4,
                "samples_requested": 9, "samples_taken": 8, "held_ns": 2500000}"#,
        );
        assert!(
            summary(&wall).contains(
                "\n    sampler: 4 safepoints, 8 thread samples taken of 9 asked for \
                 (2.0 a safepoint); threads held 2.5 ms in all\n"
            ),
            "{}",
            summary(&wall)
        );
        let simulated = profile(
            r#"{"profile": "timer", "interval_ns": 1000000}"#,
            r#"{"wall_ns": 1000, "samples": 3, "threads": 3, "safepoints": 1,
                "samples_requested": 3, "samples_taken": 3, "pause_cycles": 700,
                "walk_cycles": 90}"#,
        );
        assert!(
            summary(&simulated).contains(
                "sampler: 1 safepoint, 3 thread samples taken of 3 asked for (3.0 a \
                 safepoint); threads stopped 700 cycles in all, stacks walked in 90\n"
            ),
            "{}",
            summary(&simulated)
        );
        let none = profile(
            r#"{"profile": "cbs", "interval_ns": 1000000}"#,
            r#"{"wall_ns": 1000, "samples": 3, "threads": 1}"#,
        );
        assert!(!summary(&none).contains("sampler:"));
    }

    #[test]
    fn an_empty_sampled_profile_says_why_and_what_to_try() {
        let wall = profile(
            r#"{"profile": "cbs", "interval_ns": 1000000, "clock": "wall"}"#,
            r#"{"wall_ns": 214599, "samples": 0, "threads": 1}"#,
        );
        let hint = no_samples_hint(&wall).expect("a hint");
        assert!(
            hint.contains(
                "no tick came while the program ran (it ran 214.6 us, a tick every 1.0 ms)"
            ),
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
            .contains("(it ran 725 cycles of virtual time"));
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
    fn the_standard_error_is_the_binomial_one_in_points() {
        // p = 0.5 over 100 samples: sqrt(0.25 / 100) = 0.05, 5 points.
        assert!((std_error(0.5, 100).unwrap() - 5.0).abs() < 1e-9);
        assert!((std_error(0.1, 900).unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(std_error(1.0, 10), Some(0.0));
        assert_eq!(std_error(0.5, 0), None);
    }

    #[test]
    fn top_keeps_the_largest_first_ties_in_list_order() {
        let w = [3, 0, 9, 3, 12, 1, 9, 2, 2, 2, 2, 2, 2, 5];
        let t = top(w.into_iter());
        assert_eq!(t.len(), TOP);
        assert_eq!(&t[..5], &[(4, 12), (2, 9), (6, 9), (13, 5), (0, 3)]);
        assert!(t.iter().all(|&(_, w)| w > 0));
        assert_eq!(top([0, 0].into_iter()), vec![]);
    }

    fn node(id: u64, parent: Option<u64>, method: &str, line: Option<u32>) -> CctNode {
        CctNode {
            id,
            parent,
            method: method.into(),
            line,
            calls: 1,
            self_: 1,
            cycles: None,
        }
    }

    #[test]
    fn a_context_is_written_caller_first_and_cut_in_front() {
        let mut cct = vec![
            node(10, None, "<root>", None),
            node(11, Some(10), "main", None),
            node(12, Some(11), "M", Some(57)),
            node(13, Some(12), "A", Some(48)),
        ];
        let lookup = Lookup::new(&cct);
        assert!(lookup.map.is_some(), "ids are not positions");
        assert_eq!(
            context(&cct, &lookup, 3),
            "main:57 \u{2192} M:48 \u{2192} A"
        );
        assert_eq!(context(&cct, &lookup, 1), "main");
        for i in 0..6u64 {
            cct.push(node(14 + i, Some(13 + i), "r", Some(i as u32)));
        }
        let lookup = Lookup::new(&cct);
        let deep = context(&cct, &lookup, cct.len() - 1);
        assert_eq!(
            deep,
            "\u{2026} \u{2192} r:2 \u{2192} r:3 \u{2192} r:4 \u{2192} r:5 \u{2192} r"
        );
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
