//! `hofer-fig9` on the simulated machine (the default; `vm run
//! --clock=virtual --cores=N`, docs/SAMPLERS.md, "Simulated cores"):
//! Hofer, Gnedt and Mössenböck 2015, Figures 9 and 10 (section 7.1), in
//! virtual cycles.
//!
//! Per program, the plain run (`--profile=none`, its length from `--stats`'
//! `virtual-ns` and its thread cycles from `--cycles`), and per interval
//! and seed (`--runs`, default 1: every run is exact) each technique's run,
//! its numbers from the profile's `run` section. Two measures per run:
//!
//! - **run length**: `run.wall_ns` (when the last thread ended, in virtual
//!   time) against the plain run's: what the samplers cost the program's
//!   critical path, as the paper's wall-clock bars;
//! - **thread time stopped**: `run.pause_cycles` (the cycles threads stood
//!   stopped by the sampler, summed over threads) per 100 thread cycles of
//!   the plain run: what they cost the threads, as the paper's CPU time.
//!
//! All runs are deterministic, so they run in parallel (`--jobs`).

use profile::Profile;

use crate::exp::hofer_common::{self as common, INTERVALS, TECHNIQUES};
use crate::exp::hofer_fig9::{Clocks, Measurement, Overheads};
use crate::progress::Progress;
use crate::runner::{par_map, Vm};
use crate::suite::Program;
use crate::{Context, Error};

/// The CSV's columns.
const COLUMNS: [&str; 10] = [
    "program",
    "interval",
    "technique",
    "seed",
    "virtual_ns",
    "thread_cycles",
    "pause_cycles",
    "walk_cycles",
    "safepoints",
    "depth",
];

/// One run's numbers (the plain run: no pause, walk or safepoint).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Measured {
    virtual_ns: u64,
    thread_cycles: u64,
    pause_cycles: u64,
    walk_cycles: u64,
    safepoints: u64,
}

/// One run to make: the program, and for a technique its interval,
/// technique and seed (`None`: the plain run).
type Item = (usize, Option<(usize, usize, usize)>);

/// Measures every program, plain and profiled; returns the programs and
/// `results[program][interval]`, and the measures' names.
pub fn measure(ctx: &Context) -> Result<Measurement, Error> {
    let seeds = ctx.runs(1, 1);
    let (programs, mut csv) = common::start(
        ctx,
        &format!(
            "seeds={seeds}, runs in parallel; overhead: run length (virtual ns) against \
             --profile=none on the same cores, and pause_cycles per plain thread cycle"
        ),
        &COLUMNS,
    )?;
    let items = items(programs.len(), seeds);
    let mut progress = Progress::new(
        ctx.exp.name,
        "simulated runs (in parallel)",
        items.len() as u64,
    );
    let vm = ctx.vm();
    let mut got: Vec<Measured> = Vec::with_capacity(items.len());
    par_map(
        ctx.opts.jobs,
        &items,
        |&(pi, what)| one(ctx, &vm, &programs[pi], what),
        |i, m| {
            let (pi, what) = items[i];
            let (interval, key, seed) = match what {
                None => ("", "none", String::new()),
                Some((ii, t, s)) => (INTERVALS[ii].0, TECHNIQUES[t].key, (s + 1).to_string()),
            };
            progress.step(&format!("{} {interval} {key}", programs[pi].name));
            csv.row(&[
                programs[pi].name.clone(),
                interval.into(),
                key.into(),
                seed,
                m.virtual_ns.to_string(),
                m.thread_cycles.to_string(),
                m.pause_cycles.to_string(),
                m.walk_cycles.to_string(),
                m.safepoints.to_string(),
                crate::exp::hofer_fig9::stack_depth(&programs[pi]).to_string(),
            ])?;
            got.push(m);
            Ok(())
        },
    )?;
    progress.finish();
    let results = overheads(&items, &got, programs.len());
    Ok((programs, results, clocks(ctx, seeds)))
}

/// The runs, in the CSV's order: per program its plain run, then per
/// interval, technique and seed the profiled ones.
fn items(programs: usize, seeds: usize) -> Vec<Item> {
    let mut v = Vec::new();
    for pi in 0..programs {
        v.push((pi, None));
        for ii in 0..INTERVALS.len() {
            for t in 0..TECHNIQUES.len() {
                for s in 0..seeds {
                    v.push((pi, Some((ii, t, s))));
                }
            }
        }
    }
    v
}

/// Makes one run on the simulated machine.
fn one(
    ctx: &Context,
    vm: &Vm,
    prog: &Program,
    what: Option<(usize, usize, usize)>,
) -> Result<Measured, Error> {
    let machine = ctx.cores().run_args();
    let Some((ii, t, s)) = what else {
        return plain(vm, prog, &machine);
    };
    let mut args = common::timer_args(&TECHNIQUES[t], INTERVALS[ii].1);
    args.extend(machine);
    args.push(format!("--seed={}", s + 1));
    let tag = format!(
        "{}-{}-{}-{s}",
        prog.name, INTERVALS[ii].0, TECHNIQUES[t].key
    );
    let (p, _) = vm.profile(prog, &args, &tag)?;
    Ok(from_profile(&p))
}

/// A profiled run's numbers from its profile's `run` section.
fn from_profile(p: &Profile) -> Measured {
    let r = &p.run;
    Measured {
        virtual_ns: r.wall_ns,
        thread_cycles: r.cycles.unwrap_or(0),
        pause_cycles: r.pause_cycles.unwrap_or(0),
        walk_cycles: r.walk_cycles.unwrap_or(0),
        safepoints: r.safepoints.unwrap_or(0),
    }
}

/// The plain run: `--profile=none --stats --cycles`, its length and thread
/// cycles read from stderr.
fn plain(vm: &Vm, prog: &Program, machine: &[String]) -> Result<Measured, Error> {
    let mut args = vec!["run".to_string(), prog.path.display().to_string()];
    args.extend(prog.set_args());
    args.push("--profile=none".into());
    args.extend(machine.iter().cloned());
    args.extend(["--stats".into(), "--cycles".into()]);
    let out = vm.run(&args)?;
    let err = String::from_utf8_lossy(&out.stderr);
    let (ns, cycles) = parse_plain(&err).ok_or_else(|| {
        Error::Failed(format!(
            "vm experiment: no `virtual-ns` or `vm: cycles:` from `vm {}`",
            args.join(" ")
        ))
    })?;
    Ok(Measured {
        virtual_ns: ns,
        thread_cycles: cycles,
        ..Measured::default()
    })
}

/// `(virtual-ns, cycles)` from the stderr of `vm run --stats --cycles`.
fn parse_plain(stderr: &str) -> Option<(u64, u64)> {
    let after = |key: &str| -> Option<u64> {
        stderr.lines().find_map(|l| {
            let rest = &l[l.find(key)? + key.len()..];
            rest.split_whitespace().next()?.parse().ok()
        })
    };
    Some((after(" virtual-ns ")?, after("vm: cycles: ")?))
}

/// `[program][interval]`: each technique's overheads over the seeds.
fn overheads(items: &[Item], got: &[Measured], programs: usize) -> Vec<Vec<Overheads>> {
    let nt = TECHNIQUES.len();
    let mut out: Vec<Vec<Overheads>> = (0..programs)
        .map(|_| {
            (0..INTERVALS.len())
                .map(|_| Overheads {
                    wall: vec![Vec::new(); nt],
                    cpu: vec![Vec::new(); nt],
                    plain_ms: f64::NAN,
                    walk: vec![Vec::new(); nt],
                })
                .collect()
        })
        .collect();
    let mut base = Measured::default();
    for (&(pi, what), m) in items.iter().zip(got) {
        let Some((ii, t, _)) = what else {
            base = *m;
            for o in &mut out[pi] {
                o.plain_ms = m.virtual_ns as f64 / 1e6;
            }
            continue;
        };
        let o = &mut out[pi][ii];
        o.wall[t].push(100.0 * (m.virtual_ns as f64 / base.virtual_ns as f64 - 1.0));
        o.cpu[t].push(100.0 * m.pause_cycles as f64 / base.thread_cycles as f64);
        o.walk[t].push(m.walk_cycles as f64);
    }
    out
}

/// The measures' names and the table's caption.
fn clocks(ctx: &Context, seeds: usize) -> Clocks {
    Clocks {
        first: "run length, virtual time",
        second: "thread time stopped",
        caption: format!(
            "Per program and interval, on {}: the run's length against `--profile=none` \
             on the same cores in percent / the thread cycles threads stood stopped \
             (`pause_cycles`) per 100 thread cycles of the plain run; median of {seeds} \
             seed(s) with quartiles in brackets (each run is exact); G.Mean is the geometric \
             mean of the programs' medians; plain ms is virtual. The paper's column quotes \
             its text (its figures give no numbers).",
            common::clock_name(ctx)
        ),
        note: "Every number is exact and the same on every run and machine. A program with \
               napping threads ends when the last nap after the last computing thread ends, \
               so its run length moves in steps of up to a nap (1 ms): the thread time stopped \
               is the finer measure.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_run_is_read_from_stats_and_cycles() {
        let err = "vm: cycles: 2585448 instructions: 852222\n\
                   vm: stats: wall-ms 161.9 threads 5 gc 0 peak-rss-kb 5616 virtual-ns 2210560\n";
        assert_eq!(parse_plain(err), Some((2_210_560, 2_585_448)));
        assert_eq!(parse_plain("vm: cycles: 5 instructions: 1\n"), None);
    }

    #[test]
    fn overheads_are_against_the_programs_own_plain_run() {
        let items = items(2, 1);
        // Per program: plain, then 3 intervals x 4 techniques.
        assert_eq!(items.len(), 2 * (1 + INTERVALS.len() * TECHNIQUES.len()));
        let got: Vec<Measured> = items
            .iter()
            .map(|&(pi, what)| {
                let base = 1_000_000 * (pi as u64 + 1);
                match what {
                    None => Measured {
                        virtual_ns: base,
                        thread_cycles: 4 * base,
                        ..Measured::default()
                    },
                    Some((_, t, _)) => Measured {
                        virtual_ns: base + base / 100 * t as u64,
                        pause_cycles: 4 * base / 10,
                        ..Measured::default()
                    },
                }
            })
            .collect();
        let o = overheads(&items, &got, 2);
        for per in &o {
            assert!((per[1].wall[3][0] - 3.0).abs() < 1e-9);
            assert!((per[2].cpu[0][0] - 10.0).abs() < 1e-9);
        }
        assert_eq!(o[1][0].plain_ms, 2.0);
    }
}
