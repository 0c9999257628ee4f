//! `--report`: a readable summary of a profile, printed on stderr after the
//! run: the hottest methods and the heaviest call edges, each with its
//! share of the profile's total.

use std::fmt::Write;

use crate::profile::Profile;

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
        how.push(format!("every {e} calls"));
    }
    if let Some(clock) = &c.clock {
        how.push(format!("{clock} clock"));
    }
    if let Some(seed) = c.seed {
        how.push(format!("seed {seed}"));
    }
    let _ = writeln!(s, "vm: {} ({})", p.program, how.join(", "));
    let mut run = format!(
        "    {} threads, {} samples, {}",
        p.run.threads,
        p.run.samples,
        duration(p.run.wall_ns)
    );
    if let Some(i) = p.run.instructions {
        let _ = write!(run, ", {i} instructions");
    }
    let _ = writeln!(s, "{run}");
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
                "  {:>6}  {:>12}  {}  ({} calls)",
                percent(m.self_, total),
                m.self_,
                m.name,
                m.calls
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
    s
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
