//! `vm inline --compare=... --time[=N]`: the wall time of the original and
//! of each optimized program, N runs of each, interleaved round by round
//! (round r runs the programs in an order rotated by r) and one at a time,
//! so that a slow minute of the machine falls on every program alike. The
//! runs count no cycles and take no profile; the summary is the median
//! with its quartiles, as in `vm experiment`'s timing sweeps.

use std::time::Instant;

use experiment::stats;
use vm::module::Module;

use super::super::args::RunArgs;
use super::super::Failure;
use super::runs;

/// Wall times in seconds, `times[p][round]` for program `p` of `programs`.
pub fn interleaved(
    a: &RunArgs,
    programs: &[&Module],
    rounds: u32,
) -> Result<Vec<Vec<f64>>, Failure> {
    let none = profiler::config::ProfileOptions::default()
        .resolve(0)
        .map_err(|e| Failure::usage(format!("vm: {e}")))?;
    let n = programs.len();
    let mut times = vec![Vec::with_capacity(rounds as usize); n];
    for round in 0..rounds as usize {
        for k in 0..n {
            let p = (k + round) % n;
            let module = programs[p].clone();
            let start = Instant::now();
            runs::run_captured(a, none.clone(), module, false)?;
            times[p].push(start.elapsed().as_secs_f64());
        }
    }
    Ok(times)
}

/// Milliseconds with two decimals.
fn ms(seconds: f64) -> String {
    format!("{:.2}ms", seconds * 1e3)
}

/// `median [lower quartile, upper quartile]` of `times`, in milliseconds.
pub fn summary(times: &[f64]) -> String {
    format!(
        "{} [{} {}]",
        ms(stats::median(times)),
        ms(stats::quantile(times, 0.25)),
        ms(stats::quantile(times, 0.75))
    )
}

/// The change of `after`'s median against `before`'s, in percent.
pub fn median_change(before: &[f64], after: &[f64]) -> String {
    let b = stats::median(before);
    let a = stats::median(after);
    if b.is_nan() || b <= 0.0 {
        return "n/a".into();
    }
    format!("{:+.2}%", 100.0 * (a - b) / b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_is_the_median_between_its_quartiles() {
        let t = [0.004, 0.001, 0.003, 0.002, 0.005];
        assert_eq!(summary(&t), "3.00ms [2.00ms 4.00ms]");
        assert_eq!(median_change(&t, &[0.0015, 0.0015]), "-50.00%");
        assert_eq!(median_change(&[], &t), "n/a");
    }
}
