//! `sscli-table1`'s reading of the tuner and the counters: where each
//! tuned run ends and why (a band, the tuner's bound, the run's end, or
//! an activation length the factor of 2 jumps across), and which method
//! the CC-Map's counts miss most; every number from the run.

use profile::Profile;

use super::sscli_table1::{Scored, FIXED_US, INITIAL_US, SECOND_START_US};
use crate::suite::Program;
use crate::table::Table;

/// The tuner's shortest interval for a timer, microseconds
/// (`IntervalBounds::TIMER_NS`, profiler/src/tune.rs).
const TUNER_MIN_US: f64 = 10.0;

/// Samples between two of the tuner's evaluations (profiler/src/tune.rs).
const EVALUATION: f64 = 1000.0;

/// The tuned runs of the CSV that reached at least one of the tuner's
/// evaluations (one per 1000 samples): (program, changes).
pub(super) fn evaluated(t: &Table) -> (Vec<(String, f64)>, usize) {
    let tuned = t.select(&[("run", "tuned")]);
    let ran: Vec<(String, f64)> = tuned
        .iter()
        .filter(|r| r.num("samples") >= 1000.0)
        .map(|r| (r.get("program").to_string(), r.num("changes")))
        .collect();
    (ran, tuned.len())
}

/// Per evaluated tuned run: (program, changes, whether every change went
/// the same way, the changes a straight walk from the start to the final
/// interval takes: |log2(final / start)|).
pub(super) fn trajectories(t: &Table) -> Vec<(String, usize, bool, f64)> {
    let (ran, _) = evaluated(t);
    ran.iter()
        .map(|(p, changes)| {
            let steps: Vec<f64> = t
                .select(&[("program", p), ("run", "step")])
                .iter()
                .map(|r| r.num("interval_us"))
                .collect();
            let ups = steps.windows(2).filter(|w| w[1] > w[0]).count();
            let downs = steps.windows(2).filter(|w| w[1] < w[0]).count();
            let straight = steps
                .last()
                .zip(steps.first())
                .map_or(0.0, |(l, f)| (l / f).log2().abs());
            (
                p.clone(),
                *changes as usize,
                ups == 0 || downs == 0,
                straight,
            )
        })
        .collect()
}

/// Per program, whether the fixed intervals' cct-overlap never rises (by
/// more than a point) as the interval grows, and the best fixed interval.
fn shortest_best(t: &Table) -> Vec<(String, bool, f64)> {
    t.distinct("program")
        .into_iter()
        .map(|p| {
            let mut fixed: Vec<(f64, f64)> = t
                .select(&[("program", &p), ("run", "fixed")])
                .iter()
                .map(|r| (r.num("interval_us"), r.num("cct_overlap")))
                .filter(|x| x.1.is_finite())
                .collect();
            fixed.sort_by(|a, b| a.0.total_cmp(&b.0));
            let falls = fixed.windows(2).all(|w| w[1].1 <= w[0].1 + 1.0);
            let best = fixed
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(f64::NAN, |x| x.0);
            (p, falls, best)
        })
        .collect()
}

/// Why the tuner's numbers differ from the paper's, from the data.
pub(super) fn gaps(t: &Table, programs: &[Program], exact: &[Profile]) -> String {
    let traj = trajectories(t);
    let straight = traj
        .iter()
        .filter(|x| x.2 && (x.1 as f64 - x.3).abs() < 0.01)
        .count();
    let sb = shortest_best(t);
    let falls = sb.iter().filter(|x| x.1).count();
    let shortest = sb.iter().filter(|x| x.2 == FIXED_US[0] as f64).count();
    let mut s = endings(t) + &turned_back(t, programs, exact);
    if let Some(first) = traj.first() {
        // A command to paste: the first such program, from eight times
        // the start.
        let shown = programs.iter().find(|p| p.name == first.0);
        let command = shown.map_or(String::new(), |p| {
            format!(
                " `vm run {} {} --profile=timer --clock=virtual --tune --interval={}us \
                 --profile-out=p.json` (the profile's `run.interval_changes`) shows the count \
                 follow the start.",
                p.path.display(),
                p.set_args().join(" "),
                INITIAL_US * 8
            )
        });
        s.push_str(&format!(
            "**The number of changes.** On {straight} of {} runs that reached an evaluation the \
             tuner walked straight from {INITIAL_US} us to its final interval, one doubling or \
             halving per change and none undone: the count of changes is the distance from the \
             start to the repetition band (1% to 15%), in factors of 2, not a property of the \
             tuner. The paper started from 50 ms and took 1-2 halvings; ours start at \
             {INITIAL_US} us, and each program's band lies where its own call pattern puts \
             it.{command}\n\n",
            traj.len()
        ));
    }
    s.push_str(&super::sscli_cost::reading(t));
    if !sb.is_empty() {
        s.push_str(&format!(
            "**The best interval.** The cct-overlap of the fixed intervals never rises (by more \
             than a point) as the interval grows on {falls} of {} benchmarks, and the shortest, \
             {} us, is the best on {shortest}. Under the virtual clock more samples only help \
             the accuracy (their cost is overhead, not error); the tuner aims at a band of \
             repetitions, which says when samples start to repeat each other, not where the \
             profile is most accurate.",
            sb.len(),
            FIXED_US[0]
        ));
    }
    s
}

/// How a tuned run ended.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ending {
    /// Fewer samples than one evaluation.
    NoEvaluation,
    /// The interval went up and down.
    TurnedBack,
    /// Halved down to the tuner's shortest interval.
    AtBound,
    /// Changed at its last evaluation: the run ended before another.
    Moving,
    /// At least one evaluation after its last change left it alone.
    Settled,
}

/// How the tuned run `run` ("tuned" or "tuned-400") of `program` ended.
fn ending(t: &Table, program: &str, run: &str) -> Option<Ending> {
    let row = t.select(&[("program", program), ("run", run)]);
    let row = row.first()?;
    let step = run.replacen("tuned", "step", 1);
    let steps: Vec<(f64, f64)> = t
        .select(&[("program", program), ("run", &step)])
        .iter()
        .map(|r| (r.num("samples"), r.num("interval_us")))
        .collect();
    let (samples, last) = (row.num("samples"), row.num("interval_us"));
    let ups = steps.windows(2).any(|w| w[1].1 > w[0].1);
    let downs = steps.windows(2).any(|w| w[1].1 < w[0].1);
    let changed_at = steps.last().map_or(0.0, |s| s.0);
    Some(if samples < EVALUATION {
        Ending::NoEvaluation
    } else if ups && downs {
        Ending::TurnedBack
    } else if downs && last <= TUNER_MIN_US + 1e-9 {
        Ending::AtBound
    } else if steps.len() > 1 && changed_at + EVALUATION > samples {
        Ending::Moving
    } else {
        Ending::Settled
    })
}

/// Where the tuned runs from each start end, program by program.
fn endings(t: &Table) -> String {
    let mut out = Vec::new();
    for (start, run) in [
        (INITIAL_US, "tuned".to_string()),
        (SECOND_START_US, format!("tuned-{SECOND_START_US}")),
    ] {
        let of = |e: Ending| -> Vec<String> {
            t.distinct("program")
                .into_iter()
                .filter(|p| ending(t, p, &run) == Some(e))
                .collect()
        };
        let parts: Vec<String> = [
            (Ending::Settled, "settled"),
            (Ending::AtBound, "at the 10 us bound"),
            (Ending::Moving, "still changing when the run ended"),
            (Ending::TurnedBack, "turned back"),
            (Ending::NoEvaluation, "no evaluation"),
        ]
        .iter()
        .filter_map(|&(e, what)| {
            let names = of(e);
            (!names.is_empty()).then(|| format!("{what}: {}", names.join(", ")))
        })
        .collect();
        if !parts.is_empty() {
            out.push(format!("From {start} us: {}.", parts.join("; ")));
        }
    }
    if out.is_empty() {
        return String::new();
    }
    format!(
        "**Where the tuner ends.** The same tuned runs from two starts. {} A run that settles \
         has found an interval inside the band, and its count of changes is the distance from \
         its start, in factors of 2; a run at the bound found no interval of 10 us or more \
         with as many as 1% repetitions, and its count is the distance to the bound; a run \
         still changing at its end says only that the run was too short. The paper's 1-2 \
         changes from 50 ms are the distance from its start to its programs' band.\n\n",
        out.join(" ")
    )
}

/// Why a run turned back: the intervals it alternates between, and the
/// activation of its hottest method (the most cycles on top, exact
/// profile), which a factor of 2 jumps across.
fn turned_back(t: &Table, programs: &[Program], exact: &[Profile]) -> String {
    let mut out = Vec::new();
    for (pi, p) in programs.iter().enumerate() {
        let steps: Vec<f64> = t
            .select(&[("program", &p.name), ("run", "step")])
            .iter()
            .map(|r| r.num("interval_us"))
            .collect();
        if ending(t, &p.name, "tuned") != Some(Ending::TurnedBack) || steps.len() < 2 {
            continue;
        }
        let (a, b) = (steps[steps.len() - 2], steps[steps.len() - 1]);
        let (lo, hi) = (a.min(b), a.max(b));
        let Some(m) = exact[pi]
            .methods
            .as_deref()
            .unwrap_or_default()
            .iter()
            .filter(|m| m.calls > 0)
            .max_by_key(|m| m.cycles.unwrap_or(0))
        else {
            continue;
        };
        let us = m.cycles.unwrap_or(0) as f64 / m.calls as f64 / 1000.0;
        let set: Vec<String> = p
            .set
            .iter()
            .map(|(k, v)| format!("--set {k}={v}"))
            .collect();
        let mut s = format!(
            "{} alternates between {lo:.0} and {hi:.0} us; its hottest method, {}, runs {:.0} us \
             per activation ({} cycles over {} calls in the exact profile, a cycle being 1 ns \
             of virtual time)",
            p.name,
            m.name,
            us,
            m.cycles.unwrap_or(0),
            m.calls
        );
        if lo < us && us < hi {
            s.push_str(
                ": at the shorter interval two samples in a row often fall in the same \
                 activation (more than 15% repetitions), at the longer one almost never (under \
                 1%), so the band lies between two steps of the factor of 2 and the tuner \
                 alternates. That is the paper's rule meeting a program made of one activation \
                 length repeated, not a fault of ours",
            );
        }
        s.push_str(&format!(
            " (`vm run programs/awfy/{}.bc {} --profile=timer --clock=virtual --tune \
             --interval={hi:.0}us --profile-out=t.json`: `run.interval_trajectory`)",
            p.name,
            set.join(" ")
        ));
        out.push(s);
    }
    if out.is_empty() {
        String::new()
    } else {
        format!("**The run that turned back.** {}.\n\n", out.join("; "))
    }
}

/// Why the counters correlate less than the paper's: per program below
/// 95%, the method whose share of the calls the CC-Map misses most.
pub(super) fn counters(programs: &[Program], at_tuned: &[Option<&Scored>]) -> String {
    let low: Vec<String> = programs
        .iter()
        .zip(at_tuned)
        .filter_map(|(p, s)| {
            let s = (*s)?;
            (s.calls_corr < 95.0).then(|| {
                format!(
                    "{} {:.1}% ({:.0} calls in {} samples; {}: {:.1}% of the calls, {:.1}% of \
                     the CC-Map's)",
                    p.name,
                    s.calls_corr,
                    s.sampled_calls,
                    s.samples,
                    s.worst.0,
                    s.worst.1,
                    s.worst.2
                )
            })
        })
        .collect();
    let undefined: Vec<&str> = programs
        .iter()
        .zip(at_tuned)
        .filter(|(_, s)| s.is_some_and(|s| !s.calls_corr.is_finite()))
        .map(|(p, _)| p.name.as_str())
        .collect();
    let mut s = String::new();
    if !low.is_empty() {
        s.push_str(&format!(
            "\n\n**The counters.** Below 95%, with the calls the CC-Map holds and the method \
             whose share of them it misses most: {}. The CC-Map's `calls` are its edge samples \
             (docs/CLI.md, \"The SSCLI Call Context Map\"): a tick noticed at a call's prologue \
             or epilogue samples that call, one noticed at a loop's backedge samples none. A \
             program whose time is spent in loops gets few calls for its samples, and the calls \
             it gets are those of the methods where the ticks land, weighted by the time spent \
             there rather than by their number: the timer's skew of Arnold & Grove's Figure 1. \
             The paper compares one run's counters with another's, which share that skew; ours \
             are compared with the exact counts. ",
            low.join("; ")
        ));
    }
    if !undefined.is_empty() {
        s.push_str(&format!(
            "\n\nThe correlation is undefined on {}: every method is called as often as every \
             other, so the exact counts have no variance.",
            undefined.join(", ")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tuned run: program, final us, samples, steps as (samples, us).
    type Run<'a> = (&'a str, f64, u64, &'a [(u64, f64)]);

    /// A table of tuned runs.
    fn runs(rows: &[Run]) -> Table {
        let mut text = String::from(
            "program,run,interval_us,samples,changes,calls_correlation_pct,self_correlation_pct,cct_overlap\n",
        );
        for (p, last, samples, steps) in rows {
            text += &format!("{p},tuned,{last},{samples},{},,,\n", steps.len() - 1);
            for (s, us) in *steps {
                text += &format!("{p},step,{us},{s},,,,\n");
            }
        }
        Table::parse(&text)
    }

    #[test]
    fn a_run_ends_settled_at_the_bound_still_moving_or_turned_back() {
        let t = runs(&[
            ("settled", 100.0, 9000, &[(0, 100.0)]),
            (
                "floor",
                10.0,
                9000,
                &[
                    (0, 100.0),
                    (1000, 50.0),
                    (2000, 25.0),
                    (3000, 12.5),
                    (4000, 10.0),
                ],
            ),
            (
                "moving",
                800.0,
                4200,
                &[(0, 100.0), (2000, 200.0), (3000, 400.0), (4000, 800.0)],
            ),
            (
                "back",
                200.0,
                4400,
                &[(0, 100.0), (1000, 200.0), (2000, 400.0), (3000, 200.0)],
            ),
            ("short", 100.0, 400, &[(0, 100.0)]),
        ]);
        let e = |p| ending(&t, p, "tuned");
        assert!(e("settled") == Some(Ending::Settled));
        assert!(e("floor") == Some(Ending::AtBound));
        assert!(e("moving") == Some(Ending::Moving));
        assert!(e("back") == Some(Ending::TurnedBack));
        assert!(e("short") == Some(Ending::NoEvaluation));
        assert!(e("absent").is_none());
    }
}
