//! `causality`: the causality test of Mytkowicz, Diwan, Hauswirth and
//! Sweeney, "Evaluating the accuracy of Java profilers" (PLDI 2010).
//!
//! A profiler is right about where time goes if adding known work to a
//! method raises that method's share by as much as the work weighs. For
//! each program and each of its hottest methods (by exact self count), the
//! experiment writes a copy of the program whose method runs an extra
//! empty loop of N iterations on entry (N chosen so that the added
//! instructions are about a fifth of the program's), and measures the
//! method's share of the profile before and after: of its samples with the
//! method on top under each sampling profile, of the run's cycles (the
//! cost model's time, `methods[].cycles`) under the exact profile, so that
//! time is compared with time. The error is the sampled rise minus the
//! exact rise, in percentage points; a profile passes where every method
//! it has at least [`MIN_SAMPLES`] samples of rises within
//! [`TOLERANCE`] of the exact rise.
//!
//! All runs are deterministic (`--clock=virtual`; the counter profile
//! needs no clock) and run in parallel.

use profile::Profile;

use crate::claims::Claim;
use crate::csv::{num, Csv};
use crate::runner::par_map;
use crate::suite::Program;
use crate::table::Table;
use crate::{markdown, plot, stats, Context, Error};

/// The profiles: name and options.
const PROFILES: [(&str, &[&str]); 6] = [
    ("exact", &["--profile=exhaustive"]),
    ("timer 1ms", &["--profile=timer", "--clock=virtual"]),
    (
        "timer 100us",
        &["--profile=timer", "--clock=virtual", "--interval=100us"],
    ),
    (
        "cbs 1/1",
        &[
            "--profile=cbs",
            "--clock=virtual",
            "--stride=1",
            "--samples=1",
        ],
    ),
    (
        "cbs 3/16",
        &[
            "--profile=cbs",
            "--clock=virtual",
            "--stride=3",
            "--samples=16",
        ],
    ),
    ("counter 101", &["--profile=counter", "--every=101"]),
];

/// The added work as a share of the program's instructions.
const ADDED_SHARE: f64 = 0.2;

/// The pass criterion: a profile's rise within this share of the exact
/// rise...
pub const TOLERANCE: f64 = 0.2;
/// ...for every method of which it has at least this many samples after
/// the work is added (fewer cannot resolve a rise of a few points).
pub const MIN_SAMPLES: u64 = 100;

/// A method's weight in a profile: its cycles where the profile has them
/// (the exact profile's time), else its `self` samples.
fn weight(m: &profile::MethodEntry) -> u64 {
    m.cycles.unwrap_or(m.self_)
}

/// `method`'s share of the profile's total weight, in percent.
fn share(p: &Profile, method: &str) -> f64 {
    let methods = p.methods.as_deref().unwrap_or_default();
    let total: u64 = methods.iter().map(weight).sum();
    let own: u64 = methods
        .iter()
        .filter(|m| m.name == method)
        .map(weight)
        .sum();
    if total == 0 {
        0.0
    } else {
        100.0 * own as f64 / total as f64
    }
}

/// `source` with an empty loop of `n` iterations at the entry of
/// `method`, counting down a new local. `None` if the method is not found.
pub fn add_work(source: &str, method: &str, n: u64) -> Option<String> {
    let lines: Vec<&str> = source.lines().collect();
    let header = format!(".method {method}(");
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&header))?;
    // The directives, comments and blank lines before the first instruction.
    let mut first = start + 1;
    let mut locals_line = None;
    while first < lines.len() {
        let t = lines[first].trim();
        if t.starts_with(".locals") {
            locals_line = Some(first);
        } else if !(t.is_empty() || t.starts_with(';') || t.starts_with(".catch")) {
            break;
        }
        first += 1;
    }
    let mut out = Vec::with_capacity(lines.len() + 10);
    for (i, l) in lines.iter().enumerate() {
        if i == first {
            out.push(format!("  push {n}"));
            out.push("  store __cz_n".into());
            out.push("__cz_loop:".into());
            out.push("  load __cz_n".into());
            out.push("  jz __cz_done".into());
            out.push("  inc __cz_n -1".into());
            out.push("  jmp __cz_loop".into());
            out.push("__cz_done:".into());
        }
        if Some(i) == locals_line {
            // Before a comment on the line, if any.
            let (code, comment) = match l.find(';') {
                Some(k) => (&l[..k], &l[k..]),
                None => (*l, ""),
            };
            out.push(format!("{} __cz_n {comment}", code.trim_end()));
        } else {
            out.push(l.to_string());
        }
        if i == start && locals_line.is_none() {
            out.push("  .locals __cz_n".into());
        }
    }
    Some(out.join("\n") + "\n")
}

/// Runs the experiment.
pub fn run(ctx: &Context) -> Result<markdown::Page, Error> {
    let quick = ctx.opts.quick;
    let per_program = if quick { 2 } else { 4 };
    let mut programs = ctx.programs(if quick {
        &["towers"]
    } else {
        &["richards", "deltablue", "towers", "json"]
    })?;
    if quick && ctx.opts.programs.is_none() {
        // Towers at its default size runs 1.3 ms of virtual time: one tick.
        // At inner=20 (2.7 x 10^7 cycles) the 1 ms timer ticks 27 times.
        programs[0].set = vec![("inner".into(), 20)];
    }
    let vm = ctx.vm();
    // Baselines: every profile of every program.
    let mut base_jobs = Vec::new();
    for pi in 0..programs.len() {
        for k in 0..PROFILES.len() {
            base_jobs.push((pi, k));
        }
    }
    let run_profile = |prog: &Program, k: usize, tag: &str| -> Result<Profile, Error> {
        let mut args: Vec<String> = PROFILES[k].1.iter().map(|s| s.to_string()).collect();
        if k > 0 {
            args.push("--seed=1".into());
        }
        Ok(vm.profile(prog, &args, tag)?.0)
    };
    let mut base: Vec<Vec<Option<Profile>>> = vec![vec![None; PROFILES.len()]; programs.len()];
    let mut progress =
        crate::progress::Progress::new(ctx.exp.name, "baselines", base_jobs.len() as u64);
    par_map(
        ctx.opts.jobs,
        &base_jobs,
        |&(pi, k)| run_profile(&programs[pi], k, &format!("base-{pi}-{k}")),
        |i, p| {
            let (pi, k) = base_jobs[i];
            base[pi][k] = Some(p);
            progress.step(&format!("{} {}", programs[pi].name, PROFILES[k].0));
            Ok(())
        },
    )?;
    progress.finish();
    // The targets: each program's hottest methods by exact self, and the
    // variants with work added.
    let mut variants: Vec<(usize, String, u64, Program)> = Vec::new();
    for (pi, prog) in programs.iter().enumerate() {
        let exact = base[pi][0].as_ref().expect("baseline");
        let instructions = exact.run.instructions.unwrap_or(0) as f64;
        let mut methods = exact.methods.clone().unwrap_or_default();
        methods.sort_by(|a, b| b.self_.cmp(&a.self_).then(a.name.cmp(&b.name)));
        let source = std::fs::read_to_string(&prog.path).map_err(|e| {
            Error::NoInput(format!(
                "vm experiment: cannot read `{}`: {e}",
                prog.path.display()
            ))
        })?;
        for m in methods.iter().filter(|m| m.calls > 0).take(per_program) {
            let n = ((ADDED_SHARE * instructions / (4.0 * m.calls as f64)).round() as u64).max(1);
            let text = add_work(&source, &m.name, n).ok_or_else(|| {
                Error::Failed(format!(
                    "vm experiment: no `.method {}(` in {}",
                    m.name,
                    prog.path.display()
                ))
            })?;
            let path = ctx
                .work
                .join(format!("{}-{}.bc", prog.name, m.name.replace('.', "_")));
            crate::write_file(&path, &text)?;
            let variant = Program {
                name: prog.name.clone(),
                path,
                set: prog.set.clone(),
            };
            variants.push((pi, m.name.clone(), n, variant));
        }
    }
    let mut jobs = Vec::new();
    for v in 0..variants.len() {
        for k in 0..PROFILES.len() {
            jobs.push((v, k));
        }
    }
    let mut csv = Csv::experiment(
        ctx,
        &format!(
            "added={:.0}% of instructions; clock=virtual seed=1",
            ADDED_SHARE * 100.0
        ),
        &[
            "program",
            "method",
            "iterations",
            "profile",
            "base_share_pct",
            "share_pct",
            "rise_pts",
            "exact_rise_pts",
            "error_pts",
            "samples",
        ],
    )?;
    let mut progress =
        crate::progress::Progress::new(ctx.exp.name, "with work added", jobs.len() as u64);
    // rises[v][k]
    let mut rises = vec![vec![f64::NAN; PROFILES.len()]; variants.len()];
    par_map(
        ctx.opts.jobs,
        &jobs,
        |&(v, k)| run_profile(&variants[v].3, k, &format!("var-{v}-{k}")),
        |i, p| {
            let (v, k) = jobs[i];
            let (pi, method, n, _) = &variants[v];
            let before = share(base[*pi][k].as_ref().expect("baseline"), method);
            let after = share(&p, method);
            let samples: u64 = p
                .methods
                .as_deref()
                .unwrap_or_default()
                .iter()
                .filter(|m| &m.name == method)
                .map(|m| m.self_)
                .sum();
            let rise = after - before;
            rises[v][k] = rise;
            // The exact profile runs first for each variant (job order).
            let exact_rise = rises[v][0];
            csv.row(&[
                programs[*pi].name.clone(),
                method.clone(),
                n.to_string(),
                PROFILES[k].0.into(),
                num(before, 3),
                num(after, 3),
                num(rise, 3),
                num(exact_rise, 3),
                num(rise - exact_rise, 3),
                samples.to_string(),
            ])?;
            progress.step(&format!(
                "{} {method} {}",
                programs[*pi].name, PROFILES[k].0
            ));
            Ok(())
        },
    )?;
    progress.finish();

    let mut groups = Vec::new();
    let mut series: Vec<plot::Series> =
        PROFILES.iter().map(|p| (p.0.to_string(), vec![])).collect();
    let mut detail = Vec::new();
    for (v, (pi, method, n, _)) in variants.iter().enumerate() {
        groups.push(format!("{}:{}", programs[*pi].name, short(method)));
        let mut row = vec![format!("{} {method}", programs[*pi].name), n.to_string()];
        for k in 0..PROFILES.len() {
            series[k].1.push(rises[v][k]);
            row.push(num(rises[v][k], 1));
        }
        detail.push(row);
    }
    let mut summary = Vec::new();
    for (k, (name, _)) in PROFILES.iter().enumerate().skip(1) {
        let errs: Vec<f64> = rises.iter().map(|r| r[k] - r[0]).collect();
        let abs: Vec<f64> = errs.iter().map(|e| e.abs()).collect();
        let ratio: Vec<f64> = rises
            .iter()
            .filter(|r| r[0].abs() > 1e-9)
            .map(|r| r[k] / r[0])
            .collect();
        let verdict = criterion(&written_rows(ctx)?, name);
        summary.push(vec![
            name.to_string(),
            num(stats::mean(&abs), 1),
            num(stats::quantile(&abs, 1.0), 1),
            num(stats::median(&ratio), 2),
            verdict.cell(),
        ]);
    }
    let mut bars = plot::Bars::new(
        "rise of the method's share of self when work is added, points (first: exact)",
        plot::Axis::auto("rise of the method's share, points"),
        groups,
        &series,
    );
    bars.x_title = "program:method".into();
    let figures = plot::one(
        &ctx.out_file("svg"),
        "The causality test (Mytkowicz et al. 2010): does each profile follow added work?",
        plot::Panel::Bars(bars),
    )?;
    let table = markdown::table(
        &[
            "profile",
            "mean abs error (points)",
            "worst abs error",
            "median rise / exact rise",
            "passes?",
        ],
        &summary,
    );
    let mut headers = vec!["program method", "N"];
    headers.extend(PROFILES.iter().map(|p| p.0));
    let detail_table = markdown::table(&headers, &detail);
    Ok(markdown::Page {
        method: format!(
            "Mytkowicz, Diwan, Hauswirth and Sweeney (\"Evaluating the accuracy of Java \
             profilers\", PLDI 2010) test a profiler by cause and effect: make one method slower \
             by a known amount, and its share of the profile must rise by that amount. The \
             experiment adds an empty counted loop at the entry of one method at a time (N \
             iterations, N chosen so that the added instructions are about {:.0}% of the \
             program's), in the hottest methods (by exact self count) of each program, and \
             measures the method's share of the profile before and after: {} method(s). The \
             sampled profiles' share is of their samples with the method on top; the exact \
             profile's is of the run's cycles in the cost model (`methods[].cycles`: the time \
             spent with the method on top), so that time is compared with time. **The \
             criterion:** a profile passes if, for every method of which it has at least \
             {MIN_SAMPLES} samples after the work is added, its rise is within {:.0}% of the \
             exact rise. That paper is not in the project's reference set, so no numbers of \
             theirs are quoted.",
            ADDED_SHARE * 100.0,
            variants.len(),
            TOLERANCE * 100.0
        ),
        results: format!(
            "The error is the rise of the method's share under each profile minus the rise under \
             the exact profile, in percentage points.\n\n{table}\nThe rises (points) per \
             method:\n\n{detail_table}"
        ),
        discussion: discussion(&written_rows(ctx)?),
        table,
        figures,
    })
}

/// The CSV written so far, read back.
fn written_rows(ctx: &Context) -> Result<Table, Error> {
    Table::read(&ctx.out_file("csv"))
}

/// A profile's verdict under the criterion.
struct Verdict {
    /// Methods with enough samples to judge.
    judged: usize,
    /// Of those, the ones whose rise is off by more than the tolerance.
    failed: Vec<String>,
    /// The largest relative error among the judged, `|rise - exact| / |exact|`.
    worst: f64,
}

impl Verdict {
    fn passes(&self) -> bool {
        self.judged > 0 && self.failed.is_empty()
    }

    fn cell(&self) -> String {
        if self.judged == 0 {
            format!("cannot say (no method with {MIN_SAMPLES} samples)")
        } else if self.passes() {
            format!(
                "yes ({} methods, worst {:.0}%)",
                self.judged,
                100.0 * self.worst
            )
        } else {
            format!(
                "no ({} of {} off by more than {:.0}%, worst {:.0}%)",
                self.failed.len(),
                self.judged,
                100.0 * TOLERANCE,
                100.0 * self.worst
            )
        }
    }
}

/// Judges `profile`'s rows of `t` by the criterion.
fn criterion(t: &Table, profile: &str) -> Verdict {
    let mut v = Verdict {
        judged: 0,
        failed: Vec::new(),
        worst: 0.0,
    };
    for r in t.select(&[("profile", profile)]) {
        let (rise, exact) = (r.num("rise_pts"), r.num("exact_rise_pts"));
        if r.num("samples") < MIN_SAMPLES as f64 || exact.abs() < 1e-9 {
            continue;
        }
        v.judged += 1;
        let off = (rise - exact).abs() / exact.abs();
        v.worst = v.worst.max(off);
        if off > TOLERANCE {
            v.failed
                .push(format!("{} {}", r.get("program"), r.get("method")));
        }
    }
    v
}

/// The reading: which profiles pass, from the data.
fn discussion(t: &Table) -> String {
    let mut lines = Vec::new();
    for (name, _) in PROFILES.iter().skip(1) {
        let v = criterion(t, name);
        lines.push(format!("- {name}: {}", v.cell()));
    }
    format!(
        "Against the criterion (a rise within {:.0}% of the exact time's, for every method \
         with {MIN_SAMPLES} samples or more):\n\n{}\n\nThe counter profile samples at \
         prologues only, so added work inside a method never shows in it: it is a \
         call-frequency profile, the test's control.",
        100.0 * TOLERANCE,
        lines.join("\n")
    )
}

/// Per profile, the rises of every method.
fn rises(t: &Table, profile: &str) -> Vec<f64> {
    t.select(&[("profile", profile)])
        .iter()
        .map(|r| r.num("rise_pts"))
        .collect()
}

/// The causality test's claims, as its paper states the test.
pub fn claims(t: &Table) -> Vec<Claim> {
    let exact = rises(t, "exact");
    let fast = rises(t, "timer 100us");
    let up = fast.iter().filter(|&&r| r > 0.0).count();
    let ratio: Vec<f64> = fast
        .iter()
        .zip(&exact)
        .filter(|(_, e)| e.abs() > 1e-9)
        .map(|(f, e)| f / e)
        .collect();
    let m = stats::median(&ratio);
    let counter = rises(t, "counter 101");
    vec![
        Claim::judged(
            "a time profile follows added work: the 100 us timer's share rises for every method",
            "the causality test (no numbers quoted)",
            format!("rises for {up} of {}", fast.len()),
            up == fast.len() && !fast.is_empty(),
        ),
        Claim::judged(
            "the sampled rise equals the exact rise (median ratio 0.8 to 1.25, 100 us timer)",
            "a correct profiler's rise equals the added work's share",
            format!("median ratio {m:.2}"),
            (0.8..=1.25).contains(&m),
        )
        .gap(),
        Claim::judged(
            "a call-counter profile records no time (rise 0 for every method)",
            "(our control: samples at prologues only)",
            format!(
                "largest rise {:.1}",
                counter.iter().fold(0f64, |a, b| a.max(b.abs()))
            ),
            counter.iter().all(|r| r.abs() < 0.05),
        ),
    ]
}

/// The method name without its class, for plot labels.
fn short(method: &str) -> &str {
    method.rsplit('.').next().unwrap_or(method)
}

#[cfg(test)]
mod tests {
    use super::add_work;

    #[test]
    fn work_goes_after_the_directives_and_gets_its_own_local() {
        let src =
            ".method f(a)\n  .locals x ; comment\n  .catch t0 t1 h\nt0: load a\n  ret\n.end\n";
        let out = add_work(src, "f", 7).unwrap();
        assert!(out.contains("  .locals x __cz_n ; comment\n"), "{out}");
        let push = out.find("push 7").unwrap();
        assert!(push > out.find(".catch").unwrap() && push < out.find("t0: load a").unwrap());
        let src = ".method C.g(this)\n  ret\n.end\n";
        let out = add_work(src, "C.g", 3).unwrap();
        assert!(
            out.starts_with(".method C.g(this)\n  .locals __cz_n\n  push 3\n"),
            "{out}"
        );
        assert!(add_work(src, "C.h", 3).is_none());
    }
}
