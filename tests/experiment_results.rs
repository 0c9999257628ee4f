//! The committed results of `vm experiment` (docs/experiments/): the full
//! runs' claims still hold as their pages say, each page's claims table is
//! what the claims code makes of its CSV, and docs/EXPERIMENTS.md is the
//! index of the pages (at most 400 lines). `UPDATE_EXPERIMENTS=1` rewrites
//! the index instead of comparing it (experiment/regenerate.sh does).

use std::path::{Path, PathBuf};

use experiment::claims;
use experiment::table::Table;

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs")
}

/// Every experiment's committed CSV, read.
fn committed() -> Vec<(&'static experiment::Experiment, Table)> {
    experiment::registry()
        .iter()
        .map(|e| {
            let path = docs().join("experiments").join(format!("{}.csv", e.name));
            let t =
                Table::read(&path).unwrap_or_else(|err| panic!("{}: {}", e.name, err.message()));
            (e, t)
        })
        .collect()
}

#[test]
fn the_full_results_keep_their_claims() {
    let mut broken = Vec::new();
    for (e, t) in committed() {
        assert!(!t.quick(), "{}: the committed CSV is a --quick run", e.name);
        let c = (e.claims)(&t);
        assert!(!c.is_empty(), "{}: no claims", e.name);
        broken.extend(
            claims::broken(&c)
                .into_iter()
                .map(|b| format!("{}: {b}", e.name)),
        );
    }
    assert!(
        broken.is_empty(),
        "claims broken by the committed results:\n{}",
        broken.join("\n")
    );
}

#[test]
fn each_page_shows_the_claims_its_csv_gives() {
    for (e, t) in committed() {
        let page =
            std::fs::read_to_string(docs().join("experiments").join(format!("{}.md", e.name)))
                .unwrap_or_else(|err| panic!("{}: no page: {err}", e.name));
        let want = claims::table(&(e.claims)(&t));
        let got = experiment::index::summarize(&page).claims;
        assert_eq!(
            got, want,
            "{}: the page's claims table is not what its CSV gives; rerun experiment/regenerate.sh",
            e.name
        );
    }
}

#[test]
fn the_index_is_generated_from_the_pages_and_short() {
    let path = docs().join("EXPERIMENTS.md");
    let current = std::fs::read_to_string(&path).unwrap();
    let want = experiment::index::rewrite(&current, &docs().join("experiments"))
        .expect("docs/EXPERIMENTS.md has no generated part (its marker line is missing)");
    if std::env::var_os("UPDATE_EXPERIMENTS").is_some() {
        std::fs::write(&path, &want).unwrap();
    } else {
        assert!(current == want, "docs/EXPERIMENTS.md is not the index of docs/experiments/*.md: run experiment/regenerate.sh --index");
    }
    let lines = want.lines().count();
    assert!(
        lines <= 400,
        "docs/EXPERIMENTS.md has {lines} lines, more than 400"
    );
}
