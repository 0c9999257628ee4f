//! What a profile cost: the profiler's own work in cycles of the cost model
//! (`run.profiler_cycles`, the table of vm/src/profiler_cost.rs) against
//! the program's (`run.cycles`), as `vm run --cycles` and the text report
//! print it. docs/PERFORMANCE.md, "What a profile costs", says how the
//! cycles are measured and how well they track the real machine.

use crate::RunSection;

/// The profiler's cycles as a share of the program's, in percent, when the
/// run counted both.
pub fn percent(run: &RunSection) -> Option<f64> {
    let (work, program) = (run.profiler_cycles?, run.cycles?);
    (program > 0).then(|| 100.0 * work as f64 / program as f64)
}

/// A percentage with the digits that make a small one readable:
/// `12.3%`, `1.23%`, `0.012%`.
pub fn format_percent(p: f64) -> String {
    if p >= 10.0 {
        format!("{p:.1}%")
    } else if p >= 0.1 || p == 0.0 {
        format!("{p:.2}%")
    } else {
        format!("{p:.3}%")
    }
}

/// `profiler: 41222 cycles, 0.024% of the program's 169179926 (sampling
/// 32243, recording 8619, organizing 360)`: the kinds that cost anything.
pub fn line(run: &RunSection) -> Option<String> {
    let work = run.profiler_cycles?;
    let share = percent(run)?;
    let kinds: Vec<String> = run
        .profiler_cycles_by_kind
        .iter()
        .flat_map(|k| k.entries())
        .filter(|&(_, c)| c > 0)
        .map(|(name, c)| format!("{name} {c}"))
        .collect();
    let split = if kinds.is_empty() {
        String::new()
    } else {
        format!(" ({})", kinds.join(", "))
    };
    Some(format!(
        "profiler: {work} cycles, {} of the program's {}{split}",
        format_percent(share),
        run.cycles?
    ))
}

/// `profiler work: edge_sample 2704, frame_walked 61, trampoline 58`: how
/// often each item of the cost table happened (`run.profiler_work`), by
/// name, when anything did. An incremental walk's trampolines, a marked
/// walk's marks and a simulated sampler's tickets and parks are counted
/// here, so a run shows the mechanism at work.
pub fn work_line(run: &RunSection) -> Option<String> {
    let items: Vec<String> = run
        .profiler_work
        .iter()
        .flatten()
        .filter(|&(_, &n)| n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    (!items.is_empty()).then(|| format!("profiler work: {}", items.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ProfilerCyclesByKind;

    #[test]
    fn the_line_names_the_share_and_the_kinds_that_cost() {
        let run = RunSection {
            cycles: Some(1_000_000),
            profiler_cycles: Some(2_500),
            profiler_cycles_by_kind: Some(ProfilerCyclesByKind {
                sampling: 2_000,
                walking: 500,
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(
            line(&run).unwrap(),
            "profiler: 2500 cycles, 0.25% of the program's 1000000 (sampling 2000, walking 500)"
        );
        assert_eq!(
            line(&RunSection::default()),
            None,
            "a run that did not count"
        );
    }

    #[test]
    fn small_shares_keep_their_digits() {
        assert_eq!(format_percent(12.34), "12.3%");
        assert_eq!(format_percent(1.234), "1.23%");
        assert_eq!(format_percent(0.0123), "0.012%");
        assert_eq!(format_percent(0.0), "0.00%");
    }

    #[test]
    fn the_work_line_names_each_item_that_happened() {
        let mut run = RunSection::default();
        assert_eq!(work_line(&run), None, "a run without the counts");
        run.profiler_work = Some(
            [
                ("trampoline", 58),
                ("edge_sample", 2704),
                ("frame_marked", 0),
            ]
            .into_iter()
            .map(|(k, n)| (k.to_string(), n))
            .collect(),
        );
        assert_eq!(
            work_line(&run).unwrap(),
            "profiler work: edge_sample 2704, trampoline 58"
        );
    }
}
