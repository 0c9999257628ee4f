//! What the four `hofer-*` experiments share (Hofer, Gnedt and
//! Mössenböck 2015, section 7): the sampling techniques compared, the
//! multi-threaded programs, timed runs that also measure the CPU time of
//! all threads, and the profiled runs the pause and accuracy figures read.
//!
//! The techniques are the paper's three and the partial safepoint of its
//! section 3 (docs/SAMPLERS.md): a global safepoint walked by the sampler
//! thread with full walks (the paper's JVMTI sampling), a partial safepoint
//! walked by the sampler thread, self-sampling in partial safepoints with
//! full walks (SPS) and with incremental walks (ISPS). All run the wall-clock
//! timer with the paper's settings, which are the defaults here: waiting
//! threads sampled too (section 3.1), as many threads per partial
//! safepoint as cores, selected threads held until all have walked.
//!
//! Every run is made on the machine `--cores` names ([`crate::cores`]): by
//! default the simulated one (`--clock=virtual --cores=N`), where runs are
//! deterministic and made in parallel; with `--cores=real` on the real
//! threads and the wall clock, one process at a time.

use profile::Profile;

use crate::cores::Cores;
use crate::csv::Csv;
use crate::plot::{Axis, Bar, BarSeries, Bars};
use crate::progress::Progress;
use crate::runner::Vm;
use crate::suite::Program;
use crate::{Context, Error};

/// One sampling technique: a short key (CSV), a label (plots, tables),
/// the paper's name for it, and the `vm run` options.
pub struct Technique {
    /// The CSV's name for it.
    pub key: &'static str,
    /// The plots' and tables' name for it.
    pub label: &'static str,
    /// The options beside `--profile=timer --interval=I --record=cct`.
    pub args: &'static [&'static str],
}

/// The partial techniques again, sampling only runnable threads
/// (`--runnable-only`: the paper's section 3.1 sampling of waiting threads
/// off), for `hofer-fig13`'s look at why they part from the global
/// safepoint.
pub const RUNNABLE: [Technique; 3] = [
    Technique {
        key: "partial-full-runnable",
        label: "partial, runnable only",
        args: &["--sampler=partial", "--walk=full", "--runnable-only"],
    },
    Technique {
        key: "self-full-runnable",
        label: "SPS, runnable only",
        args: &["--sampler=self", "--walk=full", "--runnable-only"],
    },
    Technique {
        key: "self-incremental-runnable",
        label: "ISPS, runnable only",
        args: &["--sampler=self", "--walk=incremental", "--runnable-only"],
    },
];

/// The techniques, in the paper's order (partial safepoints walked by the
/// sampler thread added after the global one).
pub const TECHNIQUES: [Technique; 4] = [
    Technique {
        key: "safepoint-full",
        label: "global (JVMTI)",
        args: &["--sampler=safepoint", "--walk=full"],
    },
    Technique {
        key: "partial-full",
        label: "partial",
        args: &["--sampler=partial", "--walk=full"],
    },
    Technique {
        key: "self-full",
        label: "SPS",
        args: &["--sampler=self", "--walk=full"],
    },
    Technique {
        key: "self-incremental",
        label: "ISPS",
        args: &["--sampler=self", "--walk=incremental"],
    },
];

/// The paper's sampling intervals: its name, and `--interval`'s.
pub const INTERVALS: [(&str, &str); 3] = [("10ms", "10ms"), ("1ms", "1ms"), ("0.1ms", "100us")];

/// The interval of the pause and accuracy figures (the paper's, section
/// 7.2 and 7.3).
pub const ONE_MS: &str = "1ms";

/// `vm run` options of technique `t` at `interval`.
pub fn timer_args(t: &Technique, interval: &str) -> Vec<String> {
    let mut v = vec![
        "--profile=timer".to_string(),
        format!("--interval={interval}"),
        "--record=cct".into(),
    ];
    v.extend(t.args.iter().map(|s| s.to_string()));
    v
}

/// Iterations all computing threads make together. On real threads: about
/// 0.5 s on a quiet 2-core machine for a full run (half the size the old
/// `bench/samplers.sh` used, so that the four experiments take minutes, not
/// hours), 0.1 s for `--quick`. On the simulated machine a fifth of that
/// (about 120 ms of virtual time on 4 cores for `many-8`, 25 ms for
/// `--quick`; a hundred and twenty and twenty-five 1 ms ticks): a virtual
/// cycle is exact, so a run need not be long to be measured, and every
/// hand-over between two simulated threads costs a wake-up in real time.
fn total_work(quick: bool, cores: Cores) -> i64 {
    let real = if quick { 1_200_000 } else { 6_000_000 };
    if cores.simulated() {
        real / 5
    } else {
        real
    }
}

/// The programs: `--programs`, else `tests/programs/samplers/many.bc` in
/// three settings (one for `--quick`):
///
/// - `many-8`: 8 threads, 6 computing and 2 sleeping 1 ms at a time;
/// - `many-32`: 32 threads, 24 computing (far more than cores);
/// - `many-32-deep`: 32 threads, 2 computing (a core each) and 30
///   sleeping, every thread 50 frames deep (deep stacks for the full walks).
///
/// The computing threads share the same total work in each.
pub fn programs(ctx: &Context) -> Result<Vec<Program>, Error> {
    if ctx.opts.programs.is_some() {
        return ctx.programs(&[]);
    }
    let path = ctx.opts.root.join("tests/programs/samplers/many.bc");
    if !path.is_file() {
        return Err(Error::NoInput(format!(
            "vm experiment: no such program `{}`",
            path.display()
        )));
    }
    let w = total_work(ctx.opts.quick, ctx.cores());
    let many = |name: &str, threads: i64, busy: i64, depth: i64, computing: i64| Program {
        name: name.into(),
        path: path.clone(),
        set: vec![
            ("threads".into(), threads),
            ("work".into(), w / computing),
            ("busy".into(), busy),
            ("depth".into(), depth),
        ],
    };
    let mut out = vec![many("many-8", 8, 0, 0, 6)];
    if !ctx.opts.quick {
        out.push(many("many-32", 32, 0, 0, 24));
        out.push(many("many-32-deep", 32, 2, 50, 2));
    }
    Ok(out)
}

/// The programs' settings for a CSV header: `name(k=v ...)` each.
pub fn describe(programs: &[Program]) -> String {
    programs
        .iter()
        .map(|p| {
            let set: Vec<String> = p.set.iter().map(|(k, v)| format!("{k}={v}")).collect();
            format!("{}({})", p.name, set.join(" "))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The programs ([`programs`]) and the CSV every `hofer-*` experiment
/// writes: its header comments say the machine (`mode=... cores=...
/// clock=...`, [`Cores::describe`]), `settings`, then the programs'.
pub fn start(
    ctx: &Context,
    settings: &str,
    columns: &[&str],
) -> Result<(Vec<Program>, Csv), Error> {
    let programs = programs(ctx)?;
    let settings = format!(
        "{} {settings}; programs: {}",
        ctx.cores().describe(),
        describe(&programs)
    );
    let csv = Csv::experiment(ctx, &settings, columns)?;
    Ok((programs, csv))
}

/// How the runs are made, for a CSV header: in parallel on the simulated
/// machine, one process at a time on real threads.
pub fn scheduling(ctx: &Context) -> &'static str {
    if ctx.cores().simulated() {
        "runs in parallel"
    } else {
        "one process at a time"
    }
}

/// The CSV settings of the figures that average each technique's calling
/// context trees over `runs` runs at [`ONE_MS`].
pub fn average_settings(ctx: &Context, runs: usize) -> String {
    format!(
        "runs={runs} interval={ONE_MS}, {}; average CCT: mean of the runs' relative weights \
         per context",
        scheduling(ctx)
    )
}

/// The clock a table names: virtual time on the simulated machine (1
/// cycle = 1 ns), the wall clock on real threads.
pub fn clock_name(ctx: &Context) -> String {
    match ctx.cores() {
        Cores::Simulated(n) => format!("virtual time on {n} simulated cores"),
        Cores::Real => "the wall clock, real threads".into(),
    }
}

/// CPU seconds (user and system, all threads) of every child process
/// waited for so far.
fn children_cpu() -> f64 {
    // SAFETY: getrusage writes into the struct it is given, nothing else.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut r) } == 0;
    if !ok {
        return f64::NAN;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(r.ru_utime) + secs(r.ru_stime)
}

/// [`crate::runner::time_rounds`] (one process at a time, `rounds`
/// rounds, the order rotated by one each round) that also measures each
/// run's CPU time: `done(round, config, wall seconds, CPU seconds)`.
pub fn time_rounds_cpu<D>(
    vm: &Vm,
    configs: &[Vec<String>],
    rounds: usize,
    mut done: D,
) -> Result<(), Error>
where
    D: FnMut(usize, usize, f64, f64) -> Result<(), Error>,
{
    // Only a run's child is waited for between two readings: the
    // difference is that run's CPU time.
    let mut cpu = children_cpu();
    crate::runner::time_rounds(vm, configs, rounds, |round, c, wall| {
        let now = children_cpu();
        let used = now - cpu;
        cpu = now;
        done(round, c, wall, used)
    })
}

/// `profiles[program][technique][run]`.
pub type Profiles = Vec<Vec<Vec<Profile>>>;

/// Profiles of every technique on every program at `interval`, `runs`
/// each (seeds 1..=runs), on the machine of `--cores`: on the simulated
/// one in parallel (every run is deterministic); on real threads one
/// process at a time, since every sampler then runs on the wall clock and
/// parallel runs would disturb each other, the techniques interleaved run
/// by run, the order rotated. Calls `done(program, technique, run,
/// profile)` for each, in the order of the real-thread runs.
pub fn profiled_runs<D>(
    ctx: &Context,
    programs: &[Program],
    interval: &str,
    runs: usize,
    done: D,
) -> Result<Profiles, Error>
where
    D: FnMut(usize, usize, usize, &Profile) -> Result<(), Error>,
{
    profiled_runs_of(ctx, programs, &TECHNIQUES, interval, runs, done)
}

/// [`profiled_runs`] of the techniques `techniques` instead of
/// [`TECHNIQUES`].
pub fn profiled_runs_of<D>(
    ctx: &Context,
    programs: &[Program],
    techniques: &[Technique],
    interval: &str,
    runs: usize,
    mut done: D,
) -> Result<Profiles, Error>
where
    D: FnMut(usize, usize, usize, &Profile) -> Result<(), Error>,
{
    let vm = ctx.vm();
    let nt = techniques.len();
    // (program, run, technique), in the order the real threads run them.
    let mut items = Vec::new();
    for pi in 0..programs.len() {
        for run in 0..runs {
            for k in 0..nt {
                items.push((pi, run, (k + run) % nt));
            }
        }
    }
    let mut progress = Progress::new(
        ctx.exp.name,
        &format!("profiled runs ({})", scheduling(ctx)),
        items.len() as u64,
    );
    let jobs = if ctx.cores().simulated() {
        ctx.opts.jobs
    } else {
        1
    };
    let machine = ctx.cores().run_args();
    let mut out: Profiles = vec![vec![Vec::new(); nt]; programs.len()];
    crate::runner::par_map(
        jobs,
        &items,
        |&(pi, run, t)| {
            let mut args = timer_args(&techniques[t], interval);
            args.extend(machine.iter().cloned());
            args.push(format!("--seed={}", run + 1));
            let tag = format!("{}-{}-{run}", programs[pi].name, techniques[t].key);
            Ok(vm.profile(&programs[pi], &args, &tag)?.0)
        },
        |i, p| {
            let (pi, run, t) = items[i];
            done(pi, t, run, &p)?;
            progress.step(&format!("{} {}", programs[pi].name, techniques[t].label));
            out[pi][t].push(p);
            Ok(())
        },
    )?;
    progress.finish();
    Ok(out)
}

/// The geometric mean of overheads in percent: of the ratios `1 + o/100`,
/// back in percent; `NaN` for none.
pub fn gmean_pct(overheads: &[f64]) -> f64 {
    let ok: Vec<f64> = overheads
        .iter()
        .copied()
        .filter(|o| o.is_finite())
        .collect();
    if ok.is_empty() {
        return f64::NAN;
    }
    let logs: f64 = ok.iter().map(|o| (1.0 + o / 100.0).ln()).sum();
    100.0 * ((logs / ok.len() as f64).exp() - 1.0)
}

/// A median with its quartiles: `m [q1, q3]`, one decimal, signed when
/// `signed`.
pub fn mq(values: &[f64], signed: bool) -> String {
    let (m, q1, q3) = quartiles(values);
    if signed {
        format!("{m:+.1} [{q1:+.1}, {q3:+.1}]")
    } else {
        format!("{m:.1} [{q1:.1}, {q3:.1}]")
    }
}

/// Median, first and third quartile.
pub fn quartiles(values: &[f64]) -> (f64, f64, f64) {
    use crate::stats::{median, quantile};
    (
        median(values),
        quantile(values, 0.25),
        quantile(values, 0.75),
    )
}

/// One bar series per technique: for each program (the outer index of
/// `per_program`, then the technique, then the runs), the median of `f`
/// over the runs, with its quartiles when the runs differ.
pub fn technique_series<T>(per_program: &[Vec<Vec<T>>], f: fn(&T) -> f64) -> Vec<BarSeries> {
    TECHNIQUES
        .iter()
        .enumerate()
        .map(|(t, tech)| BarSeries {
            name: tech.label.to_string(),
            bars: per_program
                .iter()
                .map(|per| Bar::from_runs(&per[t].iter().map(f).collect::<Vec<_>>()))
                .collect(),
        })
        .collect()
}

/// The programs' names: the figures' groups.
pub fn names(programs: &[Program]) -> Vec<String> {
    programs.iter().map(|p| p.name.clone()).collect()
}

/// A panel of a number measured once per run (`f` of each run's entry in
/// `per_program`): programs as groups, techniques as bars (medians) with
/// quartile whiskers where the runs differ, on the axis `y`.
pub fn run_panel<T>(
    programs: &[Program],
    per_program: &[Vec<Vec<T>>],
    (title, y): (&str, Axis),
    f: fn(&T) -> f64,
) -> Bars {
    Bars {
        title: title.into(),
        x_title: "program".into(),
        y,
        groups: names(programs),
        series: technique_series(per_program, f),
    }
}

/// The table rows of a number measured once per run: one row per program
/// and technique, its `cells` from the technique's runs, and last the
/// paper's statement, in the first row only.
pub fn technique_rows<T>(
    programs: &[Program],
    per_program: &[Vec<Vec<T>>],
    paper: &str,
    cells: impl Fn(&[T]) -> Vec<String>,
) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for (pi, prog) in programs.iter().enumerate() {
        for (t, tech) in TECHNIQUES.iter().enumerate() {
            let mut row = vec![prog.name.clone(), tech.label.to_string()];
            row.extend(cells(&per_program[pi][t]));
            let first = pi == 0 && t == 0;
            row.push(if first { paper.into() } else { String::new() });
            rows.push(row);
        }
    }
    rows
}

/// [`mq`] of `f` over `runs`.
pub fn mq_of<T>(runs: &[T], f: fn(&T) -> f64, signed: bool) -> String {
    mq(&runs.iter().map(f).collect::<Vec<_>>(), signed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gmean_of_overheads() {
        // Ratios 1.21 and 1.0: geometric mean 1.1.
        assert!((gmean_pct(&[21.0, 0.0]) - 10.0).abs() < 1e-9);
        assert!(gmean_pct(&[]).is_nan());
        assert_eq!(mq(&[1.0, 2.0, 3.0], true), "+2.0 [+1.5, +2.5]");
    }

    #[test]
    fn every_technique_is_a_timer_profile_with_a_cct() {
        for t in &TECHNIQUES {
            let a = timer_args(t, "1ms");
            assert!(a.contains(&"--profile=timer".to_string()));
            assert!(a.contains(&"--record=cct".to_string()));
            assert!(a.iter().any(|s| s.starts_with("--sampler=")));
            assert!(a.iter().any(|s| s.starts_with("--walk=")));
        }
    }
}
