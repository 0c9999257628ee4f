//! `vm report PROFILE.json... [--against REF.json] --format=FORMAT [-o
//! FILE]`: the reports of [`profile::report`] made from profile files.
//!
//! Profiles are read with [`load_profile`], as `vm compare` reads them
//! (66 unreadable, 65 not a `vm-profile/1` profile), PROFILEs first, then
//! REF. Usage errors (status 2), each one line saying what to do: several
//! PROFILEs for a format other than speedscope; `--against` with a format
//! that does not use it, or naming a profile of another program (compared
//! by file name, so `programs/examples/fib.bc` and `fib.bc` agree);
//! `--tree` without `--format=dot`; a format that draws calling contexts
//! given a profile without a `cct`; flamegraph or html to a terminal.
//!
//! `--format=folded` to `-o FILE` or to a stdout that is a regular file
//! is first tried streaming ([`report_folded`]), which falls back to the
//! path of every format.

use std::io::{IsTerminal, Write};
use std::path::Path;

use profile::report::{self, dot, flamegraph, folded, html, recursion, speedscope, text};
use profile::Profile;

use super::args::{CollapseRecursion, ReportArgs, ReportKind};
use super::output_file::{cannot_write, OutputFile};
use super::{load_profile, report_folded, Failure};

fn name(f: ReportKind) -> &'static str {
    match f {
        ReportKind::Text => "text",
        ReportKind::Folded => "folded",
        ReportKind::Flamegraph => "flamegraph",
        ReportKind::Speedscope => "speedscope",
        ReportKind::Dot => "dot",
        ReportKind::Html => "html",
    }
}

/// `vm report: `PATH``, for a message about a profile.
fn shown(path: &Path) -> String {
    format!("vm report: `{}`", path.display())
}

pub fn report(a: ReportArgs) -> Result<i32, Failure> {
    let format = a.format;
    let fname = name(format);
    if a.profiles.len() > 1 && format != ReportKind::Speedscope {
        return Err(Failure::usage(format!(
            "vm: {} profiles given, but only --format=speedscope puts several in one report; \
             give one profile for --format={fname}",
            a.profiles.len()
        )));
    }
    if a.tree && format != ReportKind::Dot {
        return Err(Failure::usage(format!(
            "vm: --tree applies to --format=dot only, not --format={fname}"
        )));
    }
    let uses_against = matches!(
        format,
        ReportKind::Text | ReportKind::Flamegraph | ReportKind::Html
    );
    if a.against.is_some() && !uses_against {
        return Err(Failure::usage(format!(
            "vm: --against applies to --format=text, flamegraph or html, not --format={fname}"
        )));
    }
    if a.output.is_none()
        && matches!(format, ReportKind::Flamegraph | ReportKind::Html)
        && std::io::stdout().is_terminal()
    {
        return Err(Failure::usage(format!(
            "vm: --format={fname} writes {} meant for a browser, not a terminal: add -o FILE \
             (or redirect stdout to a file)",
            if format == ReportKind::Html {
                "a page"
            } else {
                "an SVG picture"
            }
        )));
    }
    if let (ReportKind::Folded, [path]) = (format, &a.profiles[..]) {
        let max_depth = match a.collapse_recursion {
            CollapseRecursion::Auto => recursion::AUTO_DEPTH,
            CollapseRecursion::Always => 0,
            CollapseRecursion::Never => usize::MAX,
        };
        let streamed = match &a.output {
            Some(out) => report_folded::stream_to_file(path, out, a.max_source, max_depth)?,
            None => report_folded::stream_to_stdout(path, a.max_source, max_depth)?,
        };
        if streamed {
            return Ok(0);
        }
    }
    let mut profiles = Vec::new();
    for path in &a.profiles {
        let mut p = load_profile(path, a.max_source)?;
        collapse_recursion(&mut p, &shown(path), a.collapse_recursion);
        profiles.push(p);
    }
    let reference = match &a.against {
        Some(path) => {
            let mut r = load_profile(path, a.max_source)?;
            collapse_recursion(&mut r, &shown(path), a.collapse_recursion);
            Some(r)
        }
        None => None,
    };
    if let (Some(r), Some(rpath)) = (&reference, &a.against) {
        for (p, path) in profiles.iter().zip(&a.profiles) {
            super::same_program((p, path), (r, rpath), "--against")?;
        }
    }
    let needs_contexts = match format {
        ReportKind::Folded | ReportKind::Speedscope => true,
        ReportKind::Flamegraph => true,
        ReportKind::Dot => a.tree,
        ReportKind::Text | ReportKind::Html => false,
    };
    if needs_contexts {
        let mut all: Vec<(&Profile, &Path)> = profiles
            .iter()
            .zip(a.profiles.iter().map(|p| p.as_path()))
            .collect();
        if let (Some(r), Some(rpath)) = (&reference, &a.against) {
            all.push((r, rpath.as_path()));
        }
        for (p, path) in all {
            if let Some(records) = report::missing_contexts(p) {
                let what = if format == ReportKind::Dot {
                    "--format=dot --tree".to_string()
                } else {
                    format!("--format={fname}")
                };
                return Err(Failure::usage(format!(
                    "vm: `{}` has no calling-context tree (it was recorded with --record={}), \
                     and {what} needs one: profile again with {records}",
                    path.display(),
                    p.config
                        .record
                        .as_ref()
                        .map_or("dcg".into(), |r| r.join(","))
                )));
            }
        }
    }
    let p = &profiles[0];
    let against_name = a
        .against
        .as_ref()
        .map(|r| r.display().to_string())
        .unwrap_or_default();
    // `-o FILE` is written beside FILE and renamed into place when whole
    // (a path that cannot be written: 66, before the report is made).
    let file = a.output.as_deref().map(OutputFile::create).transpose()?;
    let render = |mut out: &mut dyn Write| -> std::io::Result<()> {
        match format {
            ReportKind::Text => {
                let mut s = text::summary(p);
                if let Some(r) = &reference {
                    s.push_str(&text::against(p, r, &against_name));
                }
                out.write_all(s.as_bytes())
            }
            ReportKind::Folded => folded::write(p.cct.as_deref().unwrap_or(&[]), &mut out),
            ReportKind::Flamegraph => match &reference {
                Some(r) => flamegraph::differential(p, r, a.min_percent, true),
                None => flamegraph::svg(p, a.min_percent, true),
            }
            .and_then(|svg| out.write_all(&svg)),
            ReportKind::Speedscope => {
                let named: Vec<(&Profile, String)> = profiles
                    .iter()
                    .zip(&a.profiles)
                    .map(|(p, path)| {
                        let shown = path.file_name().map_or(path.display().to_string(), |f| {
                            f.to_string_lossy().into_owned()
                        });
                        (p, shown)
                    })
                    .collect();
                let doc = speedscope::document(&named, a.min_percent);
                serde_json::to_writer(&mut out, &doc)
                    .map_err(std::io::Error::other)
                    .and_then(|()| out.write_all(b"\n"))
            }
            ReportKind::Dot => out.write_all(
                if a.tree {
                    dot::tree(p, a.min_percent)
                } else {
                    dot::dcg(p)
                }
                .as_bytes(),
            ),
            ReportKind::Html => html::page(
                p,
                reference.as_ref().map(|r| (r, against_name.as_str())),
                a.min_percent,
            )
            .and_then(|page| out.write_all(page.as_bytes())),
        }
    };
    let result = match file {
        Some(file) => {
            let path = file.path().to_path_buf();
            file.commit_with(|w| render(w))
                .map_err(|e| cannot_write(&path, &e))
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            // A closed pipe or a full disk ends the command as it ends
            // every command (super::finish).
            if let Err(e) = render(&mut out).and_then(|()| out.flush()) {
                vm::stdio::note(vm::stdio::Stream::Stdout, &e);
            }
            Ok(())
        }
    };
    // The process ends here: freeing millions of contexts one by one
    // would only make it end later.
    std::mem::forget(profiles);
    std::mem::forget(reference);
    result.map(|()| 0)
}

/// Collapses the recursion of `p`'s calling-context tree when `when`
/// says so ([`recursion`]; `auto`: deeper than [`recursion::AUTO_DEPTH`]
/// levels); under `auto`, says so on stderr, `vm report: `p.json`: the
/// calling-context tree is 100001 levels deep: recursion collapsed to 2
/// levels (...)`, `shown` standing for the profile.
pub(super) fn collapse_recursion(p: &mut Profile, shown: &str, when: CollapseRecursion) {
    let Some(cct) = p.cct.as_deref() else {
        return;
    };
    let depth = recursion::depth(cct);
    let collapse = match when {
        CollapseRecursion::Auto => depth > recursion::AUTO_DEPTH,
        CollapseRecursion::Always => true,
        CollapseRecursion::Never => false,
    };
    if !collapse {
        return;
    }
    let collapsed = recursion::collapse(cct);
    let now = recursion::depth(&collapsed);
    // The deep tree is dropped by the process's end (see `report`).
    std::mem::forget(p.cct.replace(collapsed));
    if when == CollapseRecursion::Auto {
        vm::stdio::eprintln(&format!(
            "{shown}: the calling-context tree is {depth} levels deep: recursion collapsed to \
             {now} levels (each method at most once on a path; --collapse-recursion=never \
             keeps every level)"
        ));
    }
}
