//! `vm inline PROG.bc --compare=KIND,KIND,...` (docs/INLINING.md, study
//! 1): the program run once per profile kind (same seed, virtual clock by
//! default), the policy asked under each profile, and one table of every
//! call site's weight share and decision under each, with a mark where they
//! disagree; then the simulated cycles of the program optimized under each
//! profile (with `--time`, also their wall time), and, for each
//! disagreement, the cycles with that one decision flipped, the
//! disagreements at stake most first. A summary comes first: how many sites
//! the profiles decide differently and how much the costliest ones move,
//! and a warning for a sampled profile too thin to decide on. `--log`
//! holds every profile's records, `--html` one page whose profile selector
//! switches the annotations. Everything is drawn from the decision records.

use std::fmt::Write as _;

use jit_sim::inline::{CallSite, Decision, Outcome};
use jit_sim::policy::record::{self, Record, Verdict};
use jit_sim::policy::{self, EdgeWeights, PolicyKind, Thresholds};
use profiler::config::{ClockKind, ProfileKind};
use serde_json::json;
use vm::module::Module;

use super::super::output_file::OutputFile;
use super::super::run::resolve_profile;
use super::super::{load_module, Failure};
use super::explore::{cycles_with, flipped, pct_change, run_header, run_record, signed};
use super::flip::{self, Deciding};
use super::logfile;
use super::runs::{self, Ran};
use super::{emitted_text, html, source_text, thresholds, timing, InlineArgs};

/// The fewest edge samples a sampled profile must hold for its decisions to
/// mean something (the book's checkers refuse to judge below it too): with
/// fewer, one sample moves a site's share by more than a point.
const THIN_PROFILE: u64 = 100;

/// One profile's view.
struct View {
    kind: ProfileKind,
    /// The edge samples of a sampled profile (`None`: the exact one).
    edge_samples: Option<u64>,
    records: Vec<Record>,
    /// Per record, the option values that would flip it (the page's).
    flips: Vec<Option<Vec<String>>>,
    decisions: Vec<Decision>,
    optimized: Module,
    outcomes: Vec<Outcome>,
    cycles: u64,
}

/// A row where the profiles disagree: the site, the callee's name, the
/// caller's name, the line and the callee's id.
type Disagreement = (CallSite, String, String, u32, Option<u32>);

/// A disagreement flipped under each profile: the site, and per profile the
/// line that says what the decision cost or saved; `stake` the most cycles
/// any one flip moved.
struct Flipped {
    site: String,
    lines: Vec<String>,
    stake: u64,
}

/// The profile kinds of `--compare`, checked: known, not `none`, at least
/// two different ones.
fn parse_kinds(list: &[String]) -> Result<Vec<ProfileKind>, Failure> {
    let mut kinds: Vec<ProfileKind> = Vec::new();
    for name in list {
        let k: ProfileKind = name.trim().parse().map_err(|_| {
            Failure::usage(format!(
                "vm: --compare: `{name}` is not a profile kind: exhaustive, timer, cbs or counter"
            ))
        })?;
        if k == ProfileKind::None {
            return Err(Failure::usage(
                "vm: --compare: `none` is not a profile to compare (exhaustive, timer, cbs or counter)",
            ));
        }
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    if kinds.len() < 2 {
        return Err(Failure::usage(format!(
            "vm: --compare needs at least two profile kinds to compare (got {}), e.g. \
             --compare=exhaustive,cbs,timer",
            if kinds.is_empty() {
                "none".to_string()
            } else {
                format!("only {}", kinds[0])
            }
        )));
    }
    Ok(kinds)
}

/// The options that make no sense with `--compare`: a usage error naming
/// the first one given.
fn check_clash(a: &InlineArgs) -> Result<(), Failure> {
    let clash = [
        (a.run.profile.options.profile.is_some(), "--profile"),
        (a.from_profile.is_some(), "--from-profile"),
        (a.advice.is_some(), "--advice"),
        (a.advice_out.is_some(), "--advice-out"),
        (a.explain.is_some(), "--explain"),
        (a.emit.is_some(), "--emit"),
        (a.gain, "--gain"),
        (a.suggest, "--suggest"),
        (a.tree, "--tree"),
        (a.run.profile.profile_out.is_some(), "--profile-out"),
        (a.run.profile.report.is_some(), "--report"),
        (a.run.cycles, "--cycles"),
        (a.run.stats, "--stats"),
    ];
    match clash.iter().find(|(given, _)| *given) {
        Some((_, flag)) => Err(Failure::usage(format!(
            "vm: {flag} does not apply with --compare (it runs one program per profile kind)"
        ))),
        None => Ok(()),
    }
}

/// `--compare=KIND,KIND,...`.
pub fn compare(mut a: InlineArgs) -> Result<i32, Failure> {
    let kinds = parse_kinds(&a.compare.take().unwrap_or_default())?;
    let kind = a.policy.unwrap_or(PolicyKind::Linear);
    if !kind.uses_profile() {
        return Err(Failure::usage(
            "vm: --compare does not apply to --policy=static (it reads no profile)",
        ));
    }
    check_clash(&a)?;
    let t = thresholds(&a, kind)?;
    let clock = a.run.profile.options.clock.unwrap_or(ClockKind::Virtual);
    let module = load_module(&a.run.file.program, a.run.file.limit.max_source)?;
    if jit_sim::inline::call_sites(&module).is_empty() {
        return Err(Failure::usage(format!(
            "vm: --compare: {} has no call site, so there is nothing to inline",
            a.run.file.program.display()
        )));
    }
    let log_file = a.log.as_deref().map(OutputFile::create).transpose()?;
    let html_file = a.run.html.as_deref().map(OutputFile::create).transpose()?;
    let original = runs::measure(&a.run, module.clone())?;
    let (views, seed) = run_views(&mut a, &kinds, kind, &t, &module, &original, clock)?;
    let program = a.run.file.program.display().to_string();
    let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
    let mut out = format!(
        "vm: comparing {} on {program} with --policy={} (seed {seed}, --clock={clock})\n",
        names.join(", "),
        kind.name(),
    );
    let (rows, sites, disagreements) = table(&views);
    let flipped = flips(&a, &module, &t, &original, &views, &disagreements)?;
    out.push_str(&thin_warnings(&views));
    out.push_str(&summary(
        sites,
        disagreements.len(),
        &flipped,
        original.cycles.unwrap_or(0),
    ));
    out.push_str(&rows);
    let times = match a.time {
        Some(rounds) => {
            let mut programs = vec![&module];
            programs.extend(views.iter().map(|v| &v.optimized));
            Some(timing::interleaved(&a.run, &programs, rounds)?)
        }
        None => None,
    };
    out.push_str(&cycles_section(&original, &views, times.as_deref()));
    out.push_str(&flips_section(&flipped));
    for line in out.lines() {
        vm::stdio::print(&format!("{}\n", line.trim_end()));
    }
    if let Some(file) = log_file {
        file.commit(&log_text(&program, kind, &t, &views))?;
    }
    if let Some(file) = html_file {
        file.commit(&page(&a, &program, kind, &t, &module, &views)?)?;
    }
    Ok(original.status)
}

/// Runs the program once per profile kind and decides under each; returns
/// the views and the seed they shared.
fn run_views(
    a: &mut InlineArgs,
    kinds: &[ProfileKind],
    kind: PolicyKind,
    t: &Thresholds,
    module: &Module,
    original: &Ran,
    clock: ClockKind,
) -> Result<(Vec<View>, u64), Failure> {
    // One seed for every run: the given one, or one drawn by the first.
    let mut seed = a.run.profile.options.seed;
    let mut views = Vec::new();
    for &k in kinds {
        a.run.profile.options.profile = Some(k);
        a.run.profile.options.clock =
            matches!(k, ProfileKind::Timer | ProfileKind::Cbs).then_some(clock);
        a.run.profile.options.seed = seed;
        let config = resolve_profile(&a.run.profile, a.run.no_yieldpoints)?;
        seed = Some(config.seed);
        let ran = runs::run_captured(&a.run, config, module.clone(), false)?;
        let edge_samples = ran
            .profile
            .as_ref()
            .filter(|_| k != ProfileKind::Exhaustive)
            .map(|p| p.dcg.iter().flatten().map(|e| e.weight).sum());
        let weights = ran
            .profile
            .as_ref()
            .map(|p| EdgeWeights::from_profile(module, p))
            .unwrap_or_default();
        let verdicts = policy::decide(kind, module, &weights, t);
        let decisions = policy::decisions(&verdicts);
        let (optimized, outcomes) = runs::inline_with(module, &decisions, &t.budget())?;
        let records = record::records(module, &verdicts, &outcomes, &weights, Some(t));
        let deciding = Deciding {
            kind,
            module,
            weights: &weights,
            t,
        };
        let flips = if a.run.html.is_some() {
            flip::site_flips(deciding, &records)
        } else {
            Vec::new()
        };
        let cycles =
            runs::measure_equivalent(&a.run, optimized.clone(), original, &format!("under {k}"))?;
        views.push(View {
            kind: k,
            edge_samples,
            records,
            flips,
            decisions,
            optimized,
            outcomes,
            cycles,
        });
    }
    Ok((views, seed.unwrap_or(0)))
}

/// The depth-1 record of `key` under `v`.
fn find(v: &View, key: &(CallSite, String)) -> Option<Record> {
    v.records
        .iter()
        .find(|r| r.depth == 1 && r.site == key.0 && r.callee == key.1)
        .cloned()
}

/// The table: one row per (call site, callee) seen at depth 1 under any
/// profile, in code order, each followed by the reasons; the number of
/// rows; and the rows where the profiles disagree.
fn table(views: &[View]) -> (String, usize, Vec<Disagreement>) {
    let mut keys: Vec<(CallSite, String)> = Vec::new();
    for v in views {
        for r in v.records.iter().filter(|r| r.depth == 1) {
            let key = (r.site, r.callee.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    let col = 20;
    let mut out = format!("  {:<18} {:<20} {:>5}", "caller:line", "callee", "size");
    for v in views {
        let _ = write!(out, "  {:<col$}", v.kind.name());
    }
    out.push('\n');
    let mut disagreements = Vec::new();
    for key in &keys {
        let rows: Vec<Option<Record>> = views.iter().map(|v| find(v, key)).collect();
        let any = rows
            .iter()
            .flatten()
            .next()
            .expect("a key comes from a record");
        let inlined: Vec<bool> = rows
            .iter()
            .map(|r| r.as_ref().is_some_and(|r| r.verdict.inlined()))
            .collect();
        let disagree = inlined.iter().any(|&x| x != inlined[0]);
        let size = any
            .callee_size
            .map_or_else(|| "-".into(), |n| n.to_string());
        let _ = write!(
            out,
            "{} {:<18} {:<20} {:>5}",
            if disagree { "*" } else { " " },
            format!("{}:{}", any.caller, any.line),
            any.callee,
            size
        );
        for r in &rows {
            let cell = match r {
                Some(r) => format!(
                    "{:>6.2}% {}",
                    r.weight_pct().unwrap_or(0.0),
                    r.verdict.name()
                ),
                None => "     - not seen".into(),
            };
            let _ = write!(out, "  {cell:<col$}");
        }
        out.push('\n');
        out.push_str(&reasons(views, &rows));
        if disagree {
            disagreements.push((
                key.0,
                key.1.clone(),
                any.caller.clone(),
                any.line,
                any.callee_id,
            ));
        }
    }
    (out, keys.len(), disagreements)
}

/// A warning line for each sampled profile too thin to decide on.
fn thin_warnings(views: &[View]) -> String {
    let mut out = String::new();
    for v in views {
        if let Some(n) = v.edge_samples.filter(|&n| n < THIN_PROFILE) {
            let _ = writeln!(
                out,
                "warning: the {} profile holds {n} edge samples, too few to decide on (fewer \
                 than {THIN_PROFILE}: one sample moves a site's share by more than a point); its \
                 decisions say more about chance than about the program: a longer run or a \
                 shorter --interval samples more",
                v.kind.name()
            );
        }
    }
    out
}

/// The summary: how many sites the profiles decide differently, and the
/// ones at stake most.
fn summary(sites: usize, differ: usize, flipped: &[Flipped], original: u64) -> String {
    let mut out =
        format!("summary: {sites} call sites; the profiles decide {differ} of them differently");
    match flipped.first() {
        None => out.push('\n'),
        Some(top) => {
            let big = flipped
                .iter()
                .filter(|f| original > 0 && f.stake * 100 >= original)
                .count();
            let _ = writeln!(
                out,
                "; the costliest, {}, moves {} cycles ({:.2}% of the original's); {big} move 1% \
                 or more (the disagreements below, at stake most first)",
                top.site,
                top.stake,
                if original == 0 {
                    0.0
                } else {
                    100.0 * top.stake as f64 / original as f64
                }
            );
        }
    }
    out
}

/// The reasons of one row: `all: ...` if every profile gave the same.
fn reasons(views: &[View], rows: &[Option<Record>]) -> String {
    let reasons: Vec<String> = rows
        .iter()
        .map(|r| {
            r.as_ref()
                .map_or_else(|| "not seen".into(), |r| r.reason.clone())
        })
        .collect();
    if reasons.iter().all(|x| *x == reasons[0]) {
        return format!("      all: {}\n", reasons[0]);
    }
    let mut out = String::new();
    for (v, reason) in views.iter().zip(&reasons) {
        let _ = writeln!(out, "      {}: {reason}", v.kind.name());
    }
    out
}

/// The cycles of the program optimized under each profile; with `times`
/// (the original's first, then each view's), the wall time beside them.
fn cycles_section(original: &Ran, views: &[View], times: Option<&[Vec<f64>]>) -> String {
    let before = original.cycles.unwrap_or(0);
    let head = match times {
        Some(t) => format!(
            ", and wall time: median [quartiles] of {} interleaved runs",
            t[0].len()
        ),
        None => String::new(),
    };
    let mut out =
        format!("cycles of the program optimized under each profile (original {before}){head}:\n");
    if let Some(t) = times {
        let _ = writeln!(
            out,
            "  {:<10} {before:<22} wall {}",
            "original",
            timing::summary(&t[0])
        );
    }
    for (i, v) in views.iter().enumerate() {
        let cycles = format!("{} ({})", v.cycles, pct_change(before, v.cycles));
        match times {
            Some(t) => {
                let _ = writeln!(
                    out,
                    "  {:<10} {cycles:<22} wall {} ({})",
                    v.kind.name(),
                    timing::summary(&t[i + 1]),
                    timing::median_change(&t[0], &t[i + 1])
                );
            }
            None => {
                let _ = writeln!(out, "  {:<10} {cycles}", v.kind.name());
            }
        }
    }
    out
}

/// The disagreements, at stake most first.
fn flips_section(flipped: &[Flipped]) -> String {
    if flipped.is_empty() {
        return "no disagreements: every profile made the same decisions\n".into();
    }
    let mut out = String::from(
        "disagreements (each decision flipped alone, under the profile that made it; the \
         most cycles at stake first):\n",
    );
    for f in flipped {
        for line in &f.lines {
            out.push_str(line);
        }
    }
    out
}

/// Each disagreement flipped alone, under each profile, and rerun: what
/// the decision cost or saved; sorted by the most cycles one flip moved,
/// then in code order.
fn flips(
    a: &InlineArgs,
    module: &Module,
    t: &Thresholds,
    original: &Ran,
    views: &[View],
    disagreements: &[Disagreement],
) -> Result<Vec<Flipped>, Failure> {
    let mut all = Vec::new();
    for (site, callee_name, caller, line, callee) in disagreements {
        let Some(callee) = callee else {
            continue;
        };
        let mut f = Flipped {
            site: format!("{caller}:{line} {callee_name}"),
            lines: Vec::new(),
            stake: 0,
        };
        for v in views {
            let r = find(v, &(*site, callee_name.clone()));
            let inlined = r.map_or(Verdict::Rejected, |r| r.verdict).inlined();
            let flip = flipped(module, &v.decisions, *site, *callee);
            let what = format!("under {} with {caller}:{line} flipped", v.kind);
            let c = cycles_with(&a.run, module, &flip, t, original, &what)?;
            let delta = v.cycles as i64 - c as i64;
            f.stake = f.stake.max(delta.unsigned_abs());
            let (verdict_word, flip_word) = if inlined {
                ("inlined", "not inlining it")
            } else {
                ("did not inline", "inlining it")
            };
            f.lines.push(format!(
                "  {caller}:{line} {callee_name}: {} {verdict_word} it; {flip_word}: {} -> {c} \
                 cycles ({}): the decision {} {} cycles\n",
                v.kind.name(),
                v.cycles,
                signed(c as i64 - v.cycles as i64),
                if delta > 0 { "cost" } else { "saved" },
                delta.unsigned_abs()
            ));
        }
        all.push(f);
    }
    at_stake_first(&mut all);
    Ok(all)
}

/// Sorts the flipped disagreements by the most cycles one flip moved,
/// largest first; a stable sort, so equal stakes stay in code order.
fn at_stake_first(all: &mut [Flipped]) {
    all.sort_by_key(|f| std::cmp::Reverse(f.stake));
}

/// The log: one `run` line per profile (with its cycles) followed by that
/// profile's `site` lines, each with a `profile` key.
fn log_text(program: &str, kind: PolicyKind, t: &Thresholds, views: &[View]) -> String {
    let mut text = String::new();
    for v in views {
        let dcg = v.records.iter().find_map(|r| r.dcg_weight);
        let mut run = run_record(program, Ok(kind), Some(v.kind.name().into()), dcg, t);
        run["cycles"] = json!(v.cycles);
        text.push_str(&run.to_string());
        text.push('\n');
        for r in &v.records {
            let mut j = logfile::record_json(r);
            j["profile"] = json!(v.kind.name());
            text.push_str(&j.to_string());
            text.push('\n');
        }
    }
    text
}

/// The page of `--html`: one view per profile, switched by its selector.
fn page(
    a: &InlineArgs,
    program: &str,
    kind: PolicyKind,
    t: &Thresholds,
    module: &Module,
    views: &[View],
) -> Result<String, Failure> {
    let src = source_text(&a.run);
    let mut pages = Vec::new();
    for v in views {
        let dcg = v.records.iter().find_map(|r| r.dcg_weight);
        let run = run_record(program, Ok(kind), Some(v.kind.name().into()), dcg, t);
        pages.push(html::View {
            profile: Some(v.kind.name().to_string()),
            header: format!("{} (profile {})", run_header(&run), v.kind.name()),
            thresholds: flip::thresholds_line(kind, t),
            records: &v.records,
            flips: v.flips.clone(),
            tree: record::render_tree(&v.records, module, &v.optimized, t),
            emitted: emitted_text(&src, module, &v.optimized, &v.outcomes)?,
        });
    }
    Ok(html::page(program, &src, &pages))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flipped(site: &str, stake: u64) -> Flipped {
        Flipped {
            site: site.into(),
            lines: vec![format!("  {site}: moves {stake}\n")],
            stake,
        }
    }

    #[test]
    fn disagreements_come_at_stake_most_first_and_the_summary_names_the_top() {
        // In code order: a 12-cycle one before a 986,850-cycle one.
        let mut all = vec![
            flipped("a:1 x", 12),
            flipped("b:2 y", 986_850),
            flipped("c:3 z", 12),
            flipped("d:4 w", 40_000),
        ];
        at_stake_first(&mut all);
        let order: Vec<&str> = all.iter().map(|f| f.site.as_str()).collect();
        assert_eq!(order, ["b:2 y", "d:4 w", "a:1 x", "c:3 z"]);
        let text = flips_section(&all);
        assert!(text.find("b:2 y").unwrap() < text.find("a:1 x").unwrap());
        // 1% of 2,000,000 cycles is 20,000: two disagreements move more.
        let s = summary(9, 4, &all, 2_000_000);
        assert_eq!(
            s,
            "summary: 9 call sites; the profiles decide 4 of them differently; the costliest, \
             b:2 y, moves 986850 cycles (49.34% of the original's); 2 move 1% or more (the \
             disagreements below, at stake most first)\n"
        );
        assert_eq!(
            summary(3, 0, &[], 100),
            "summary: 3 call sites; the profiles decide 0 of them differently\n"
        );
    }
}
