//! The profiling options of `vm run`, declared once in the profiler's
//! option table: each one `vm run --help` lists is documented in
//! docs/CLI.md, and each one given without a profile it applies to is a
//! usage error worded from the table.

use crate::harness;

/// The flags of the "Profiling" section of `vm run --help`.
fn profiling_flags() -> Vec<String> {
    let r = harness::vm(&["run", "--help"]);
    r.assert_status(0);
    let section = r
        .stdout
        .split("\nProfiling:\n")
        .nth(1)
        .expect("a Profiling section");
    // The section ends at the next heading (`vm run --help` lists the
    // resource limits after it).
    section
        .lines()
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter_map(|l| l.strip_prefix("      --"))
        .map(|l| format!("--{}", l.split([' ', '[']).next().unwrap_or("")))
        .collect()
}

/// A value for each option that applies to some profiles only (`None`:
/// a switch), and the options whose rules are finer (checked elsewhere).
const GIVEN_WITH_NONE: &[(&str, Option<&str>)] = &[
    ("--interval", Some("1ms")),
    ("--stride", Some("3")),
    ("--samples", Some("3")),
    ("--every", Some("3")),
    ("--clock", Some("wall")),
    ("--seed", Some("1")),
    ("--record", Some("dcg")),
    ("--walk", Some("top")),
    ("--max-walk", Some("3")),
    ("--tune", None),
    ("--sampler", Some("self")),
    ("--sample-threads", Some("2")),
    ("--runnable-only", None),
    ("--no-hold", None),
    ("--profile-out", Some("p.json")),
    ("--report", None),
];
const FINER_RULES: &[&str] = &[
    "--profile",
    "--acct-update",
    "--sampled-bit",
    "--purge",
    "--adaptive",
    "--print-compilation",
];

#[test]
fn every_profiling_option_is_documented() {
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/CLI.md"),
    )
    .unwrap();
    let flags = profiling_flags();
    assert!(flags.len() > 10, "flags read from --help: {flags:?}");
    for f in &flags {
        assert!(doc.contains(f.as_str()), "{f} is not in docs/CLI.md");
    }
}

#[test]
fn an_option_given_without_its_profile_is_a_usage_error() {
    let mut listed: Vec<&str> = GIVEN_WITH_NONE.iter().map(|(f, _)| *f).collect();
    listed.extend(FINER_RULES);
    for f in profiling_flags() {
        assert!(listed.contains(&f.as_str()), "{f}: add it to this test");
    }
    let dir = harness::scratch("option_without_its_profile");
    let prog = harness::write_program(&dir, "p.bc", ".method main()\n  push 0\n  ret\n.end\n");
    let prog = prog.to_str().unwrap();
    for (flag, value) in GIVEN_WITH_NONE {
        let arg = match value {
            Some(v) => format!("{flag}={v}"),
            None => flag.to_string(),
        };
        let r = harness::run_vm_in(&dir, &["run", prog, &arg], harness::DEFAULT_TIMEOUT);
        r.assert_status(2);
        let said = format!("vm: {flag} does not apply to --profile=none (it applies to ");
        assert!(r.stderr.starts_with(&said), "{arg}: {}", r.stderr);
    }
}
