//! The programs experiments run, and their sizes.
//!
//! A name is looked up as a path first, then as `programs/awfy/NAME.bc`,
//! `programs/bench/NAME.bc` and `programs/examples/NAME.bc` under the
//! repository. The Are We Fast Yet benchmarks run at a size set with
//! `--set inner=N` ([`awfy_inner`]): about 10^8 simulated cycles (0.1 s of
//! virtual time, a hundred ticks of the 1 ms timer) for a full run, their
//! default size (milliseconds) for `--quick`.

use std::path::{Path, PathBuf};

use crate::Error;

/// One program to run.
#[derive(Clone, Debug)]
pub struct Program {
    /// Its short name (the file stem).
    pub name: String,
    /// Its path.
    pub path: PathBuf,
    /// `--set NAME=INT` options every run of it gets.
    pub set: Vec<(String, i64)>,
}

impl Program {
    /// The `--set` options as arguments.
    pub fn set_args(&self) -> Vec<String> {
        self.set
            .iter()
            .flat_map(|(k, v)| ["--set".to_string(), format!("{k}={v}")])
            .collect()
    }
}

/// The Are We Fast Yet benchmarks of the full runs. Havlak is left out: its
/// smallest size (`inner=1`) is 1.3 x 10^9 cycles, 2.5 s a run, too long for
/// a sweep of hundreds of runs on two cores; `--programs havlak` adds it.
pub const AWFY: &[&str] = &[
    "bounce",
    "cd",
    "deltablue",
    "json",
    "list",
    "mandelbrot",
    "nbody",
    "permute",
    "queens",
    "richards",
    "sieve",
    "storage",
    "towers",
];

/// The subset `--quick` runs (a few milliseconds each).
pub const AWFY_QUICK: &[&str] = &["deltablue", "richards", "towers"];

/// The `inner` of an Are We Fast Yet benchmark for a full run: about 10^8
/// cycles (`vm run --cycles`), a size with a known result where the
/// benchmark checks one. `None`: the default (CD: its default of 10
/// aircraft, 4 x 10^7 cycles, is the largest size below 10^8 with a known
/// result; NBody's 10000 steps, 5 x 10^7 cycles, likewise, the next known
/// size being 100000).
pub fn awfy_inner(name: &str) -> Option<i64> {
    Some(match name {
        "bounce" => 200,
        "deltablue" => 4000,
        "json" => 14,
        "list" => 240,
        "mandelbrot" => 200,
        "nbody" => 10000,
        "permute" => 120,
        "queens" => 175,
        "richards" => 5,
        "sieve" => 330,
        "storage" => 160,
        "towers" => 75,
        _ => return None,
    })
}

/// Resolves program names (or paths); a missing one is status 66.
pub fn resolve(root: &Path, names: &[String], quick: bool) -> Result<Vec<Program>, Error> {
    let mut out = Vec::new();
    for name in names {
        let as_path = PathBuf::from(name);
        let stem = as_path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| name.clone());
        let candidates = [
            as_path.clone(),
            root.join("programs/awfy").join(format!("{name}.bc")),
            root.join("programs/bench").join(format!("{name}.bc")),
            root.join("programs/examples").join(format!("{name}.bc")),
        ];
        let Some(path) = candidates.iter().find(|p| p.is_file()) else {
            return Err(Error::NoInput(format!(
                "vm experiment: no such program `{name}` (looked for the file, and for {name}.bc in programs/awfy, programs/bench and programs/examples under {})",
                root.display()
            )));
        };
        let in_awfy = path.parent().is_some_and(|d| d.ends_with("programs/awfy"));
        let set = match (in_awfy && !quick, awfy_inner(&stem)) {
            (true, Some(n)) => vec![("inner".to_string(), n)],
            _ => vec![],
        };
        out.push(Program {
            name: stem,
            path: path.clone(),
            set,
        });
    }
    Ok(out)
}
