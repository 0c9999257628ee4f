//! `vm compare PROFILE.json REF.json [--json]`: the accuracy metrics of
//! docs/LANGUAGE.md "Accuracy metrics" (computed by [`profile::metrics`]) of one profile
//! against a reference.
//!
//! Output: each available metric as `name: value` (two decimals) on its own
//! line, in the order dcg-overlap, cct-overlap, method-correlation,
//! hot-edge-coverage; with `--json`, one JSON object with those keys and
//! unrounded numbers. A metric the two files cannot both give is left out;
//! so is one they give but on which it is undefined (a total weight of 0,
//! a series with no variance, a reference without hot contexts), with a
//! note on stderr saying why (`vm: note: NAME is left out: REASON`).
//! When none is left the command still succeeds (the files were read and
//! compared): stdout is empty (`{}` with `--json`, so that it stays
//! parseable) and, if no section was in common, a note on stderr says which
//! sections each file has.
//!
//! Failures: 66 when a file cannot be read (`vm: cannot read `PATH`:
//! REASON`, as for programs), 65 when it is not a valid `vm-profile/1`
//! profile (`vm: `PATH` is not a vm-profile/1 profile: REASON`), 2 when
//! the two are profiles of different programs (by file name; `vm report
//! --against` refuses such a pair the same way). PROFILE is read before
//! REF; the first failure is the one reported.

use profile::{metrics, report, Profile};

use super::args::CompareArgs;
use super::{load_profile, Failure};

pub fn compare(a: CompareArgs) -> Result<i32, Failure> {
    let profile = load_profile(&a.profile, a.limit.max_source)?;
    let reference = load_profile(&a.reference, a.limit.max_source)?;
    super::same_program(
        (&profile, &a.profile),
        (&reference, &a.reference),
        "vm compare",
    )?;
    for (p, path) in [(&profile, &a.profile), (&reference, &a.reference)] {
        if let Some(hint) = report::no_samples_hint(p) {
            vm::stdio::eprintln(&format!("vm: note: `{}`: {hint}", path.display()));
        }
    }
    let c = metrics::compare(&profile, &reference);
    for (name, why) in c.undefined() {
        vm::stdio::eprintln(&format!("vm: note: {name} is left out: {why}"));
    }
    if c.is_empty() && c.undefined().is_empty() {
        vm::stdio::eprintln(&format!(
            "vm: no metric can be computed: `{}` has {}; `{}` has {}",
            a.profile.display(),
            sections(&profile),
            a.reference.display(),
            sections(&reference),
        ));
    }
    if a.json {
        vm::stdio::print(&c.to_json());
    } else {
        vm::stdio::print(&c.to_text());
    }
    Ok(0)
}

/// need and `p` has, for the note.
fn sections(p: &Profile) -> String {
    let have: Vec<&str> = [
        ("dcg", p.dcg.is_some()),
        ("cct", p.cct.is_some()),
        ("methods", p.methods.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, has)| has.then_some(name))
    .collect();
    if have.is_empty() {
        "none of dcg, cct, methods".into()
    } else {
        have.join(", ")
    }
}
