//! `vm experiment` (docs/EXPERIMENTS.md, docs/CLI.md): every experiment
//! runs with `--quick` into a scratch directory; its CSV has the documented
//! `#` header and columns, its SVG is well-formed XML with an `<svg>` root,
//! its Markdown sets our table beside the paper's; the deterministic ones
//! give the same CSV byte for byte on a second run. Bad input: an unknown
//! name (status 2, the names listed), an output directory that cannot be
//! created and a missing program (66).

use std::path::Path;
use std::time::Duration;

use crate::harness::{run_vm_in, scratch, Run};

/// Every experiment `--list` must name: its CSV columns, and whether its
/// CSV is deterministic.
const EXPERIMENTS: &[(&str, &[&str], bool)] = &[(
    "arnold-grove-fig1",
    &[
        "program",
        "profile",
        "seed",
        "callee",
        "weight",
        "share_pct",
        "samples",
    ],
    true,
)];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn experiment(args: &[&str]) -> Run {
    let mut all = vec!["experiment"];
    all.extend_from_slice(args);
    run_vm_in(root(), &all, Duration::from_secs(300))
}

/// The comment lines and the rows (header first) of a CSV file.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut comments = Vec::new();
    let mut rows = Vec::new();
    for line in text.lines() {
        if let Some(c) = line.strip_prefix("# ") {
            assert!(
                rows.is_empty(),
                "a comment after the header in {}",
                path.display()
            );
            comments.push(c.to_string());
        } else {
            // The experiments write no quoted fields with commas in these columns.
            rows.push(line.split(',').map(str::to_string).collect());
        }
    }
    (comments, rows)
}

/// Parses `path` as XML to the end; returns the root element's name.
fn svg_root(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut root = None;
    let mut depth = 0i64;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Start(e)) => {
                if root.is_none() {
                    root = Some(String::from_utf8_lossy(e.name().as_ref()).into_owned());
                }
                depth += 1;
            }
            Ok(quick_xml::events::Event::End(_)) => depth -= 1,
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("{} is not well-formed XML: {e}", path.display()),
        }
        assert!(
            depth >= 0,
            "{}: more end tags than start tags",
            path.display()
        );
    }
    assert_eq!(depth, 0, "{}: unclosed elements", path.display());
    root.unwrap_or_default()
}

/// Runs `name --quick` into `dir`, checks the three files; returns the
/// CSV rows (header first).
fn run_quick(name: &str, columns: &[&str], dir: &Path) -> Vec<Vec<String>> {
    let out = dir.display().to_string();
    let r = experiment(&[name, "--quick", "--out", &out]);
    r.assert_status(0);
    assert!(
        r.stdout.contains("| "),
        "{name}: no table printed:\n{}",
        r.stdout
    );
    let (comments, rows) = read_csv(&dir.join(format!("{name}.csv")));
    assert!(
        comments
            .iter()
            .any(|c| c.starts_with(&format!("vm experiment {name}: "))),
        "{name}: no experiment line in {comments:?}"
    );
    assert!(
        comments
            .iter()
            .any(|c| c.starts_with("machine: cores=") && c.contains(" cpu=")),
        "{name}: no machine line in {comments:?}"
    );
    assert_eq!(rows[0], columns, "{name}: CSV columns");
    assert!(rows.len() > 1, "{name}: no measurement rows");
    for row in &rows[1..] {
        assert_eq!(row.len(), columns.len(), "{name}: row {row:?}");
    }
    assert_eq!(
        svg_root(&dir.join(format!("{name}.svg"))),
        "svg",
        "{name}: SVG root"
    );
    let md = std::fs::read_to_string(dir.join(format!("{name}.md"))).unwrap();
    assert!(
        md.contains("paper"),
        "{name}: the Markdown has no paper column:\n{md}"
    );
    assert!(
        !dir.join(format!(".{name}.work")).exists(),
        "{name}: the scratch directory was left behind"
    );
    rows
}

#[test]
fn list_names_every_experiment_and_nothing_else() {
    let r = experiment(&["--list"]);
    r.assert_status(0);
    let names: Vec<&str> = r
        .stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or(""))
        .collect();
    let want: Vec<&str> = EXPERIMENTS.iter().map(|e| e.0).collect();
    assert_eq!(names, want);
}

#[test]
fn every_experiment_runs_quick_and_the_deterministic_ones_repeat_exactly() {
    for &(name, columns, deterministic) in EXPERIMENTS {
        let dir = scratch(&format!("experiment-{name}"));
        let rows = run_quick(name, columns, &dir);
        if name == "arnold-grove-fig1" {
            check_fig1(&rows);
        }
        if deterministic {
            let again = scratch(&format!("experiment-{name}-again"));
            let out = again.display().to_string();
            experiment(&[name, "--quick", "--out", &out]).assert_status(0);
            let a = std::fs::read(dir.join(format!("{name}.csv"))).unwrap();
            let b = std::fs::read(again.join(format!("{name}.csv"))).unwrap();
            assert!(a == b, "{name}: the two CSVs differ");
        }
    }
}

/// Figure 1's point: exact 50/50; the timer sees call_1 hot.
fn check_fig1(rows: &[Vec<String>]) {
    let share = |profile: &str, callee: &str| -> f64 {
        let r = rows
            .iter()
            .find(|r| r[1] == profile && r[3] == callee)
            .unwrap_or_else(|| panic!("no {profile} {callee} row"));
        r[5].parse().unwrap()
    };
    assert_eq!(share("exact", "call_1"), 50.0);
    assert_eq!(share("exact", "call_2"), 50.0);
    assert!(share("timer", "call_1") > share("timer", "call_2") + 20.0);
    assert!((share("cbs", "call_1") - 50.0).abs() < 10.0);
}

#[test]
fn an_unknown_name_lists_the_names() {
    let r = experiment(&["no-such-study"]);
    r.assert_status(2);
    for (name, _, _) in EXPERIMENTS {
        assert!(r.stderr.contains(name), "{name} not in: {}", r.stderr);
    }
}

#[test]
fn an_output_directory_that_cannot_be_made_is_66() {
    let dir = scratch("experiment-bad-out");
    let file = dir.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let out = file.join("sub").display().to_string();
    let r = experiment(&["arnold-grove-fig1", "--quick", "--out", &out]);
    r.assert_status(66);
    assert!(r.stderr.contains("cannot create"), "{}", r.stderr);
}

#[test]
fn a_missing_program_is_66_before_anything_runs() {
    let dir = scratch("experiment-missing-program");
    let out = dir.display().to_string();
    let r = experiment(&[
        "arnold-grove-fig1",
        "--quick",
        "--out",
        &out,
        "--programs",
        "no_such_prog",
    ]);
    r.assert_status(66);
    assert!(r.stderr.contains("no_such_prog"), "{}", r.stderr);
    assert!(!dir.join("arnold-grove-fig1.csv").exists());
}
