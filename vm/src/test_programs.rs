//! The `.bc` files of the repository (examples, benchmarks, test
//! programs), for unit tests that check a property over every program.

use std::path::{Path, PathBuf};

/// Every `.bc` file under programs/examples, programs/bench and
/// tests/programs, sorted.
pub(crate) fn all() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut found = Vec::new();
    let mut dirs = vec![
        root.join("programs/examples"),
        root.join("programs/bench"),
        root.join("tests/programs"),
    ];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "bc") {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}
