//! What several experiments share: the exact profiles of the programs,
//! and overlap against them.

use profile::{metrics, Profile};

use crate::runner::par_map;
use crate::suite::Program;
use crate::{Context, Error};

/// The exact profile (`--profile=exhaustive`) of every program, and its
/// stdout, run in parallel.
pub fn exact_profiles(
    ctx: &Context,
    programs: &[Program],
) -> Result<Vec<(Profile, Vec<u8>)>, Error> {
    exact_each(ctx, programs, &[], "exact profiles", |p, out| (p, out))
}

/// The exact profile with its calling context tree (`--profile=exhaustive
/// --record=cct`) of every program, run in parallel.
pub fn exact_trees(ctx: &Context, programs: &[Program]) -> Result<Vec<Profile>, Error> {
    exact_each(ctx, programs, &["--record=cct"], "exact trees", |p, _| p)
}

/// Runs every program with `--profile=exhaustive` and the options `extra`,
/// in parallel (progress shown as `what`), and keeps `keep(profile,
/// stdout)` of each, in the programs' order.
pub fn exact_each<T, K>(
    ctx: &Context,
    programs: &[Program],
    extra: &[&str],
    what: &str,
    keep: K,
) -> Result<Vec<T>, Error>
where
    T: Send,
    K: Fn(Profile, Vec<u8>) -> T + Sync,
{
    let vm = ctx.vm();
    let mut args = vec!["--profile=exhaustive".to_string()];
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut out = Vec::new();
    let mut progress = crate::progress::Progress::new(ctx.exp.name, what, programs.len() as u64);
    par_map(
        ctx.opts.jobs,
        programs,
        |p| {
            let (profile, stdout) = vm.profile(p, &args, &format!("exact-{}", p.name))?;
            Ok(keep(profile, stdout))
        },
        |i, r| {
            progress.step(&programs[i].name);
            out.push(r);
            Ok(())
        },
    )?;
    progress.finish();
    Ok(out)
}

/// The dcg-overlap of `p` against `exact`, 0-100; a sampled profile with
/// no edge at all scores 0, two empty graphs 100.
pub fn dcg_overlap(p: &Profile, exact: &Profile) -> f64 {
    match metrics::dcg_overlap(p, exact).value() {
        Some(v) => v,
        None => {
            let empty = |q: &Profile| {
                q.dcg
                    .as_ref()
                    .is_none_or(|d| d.iter().all(|e| e.weight == 0))
            };
            if empty(p) && empty(exact) {
                100.0
            } else {
                0.0
            }
        }
    }
}

/// Total calls of an exact profile (the sum of its DCG weights).
pub fn calls(exact: &Profile) -> u64 {
    exact
        .dcg
        .as_ref()
        .map_or(0, |d| d.iter().map(|e| e.weight).sum())
}

/// The profiler's own work as a share of the program's, in percent: the
/// cost model's overhead of a run (`run.profiler_cycles / run.cycles`,
/// docs/PERFORMANCE.md, "What a profile costs"). `NaN` for a run that
/// counted no cycles (not under `--clock=virtual`, `--cycles` or the
/// exhaustive profile).
pub fn modelled_overhead(p: &Profile) -> f64 {
    match (p.run.profiler_cycles, p.run.cycles) {
        (Some(w), Some(c)) if c > 0 => 100.0 * w as f64 / c as f64,
        _ => f64::NAN,
    }
}
