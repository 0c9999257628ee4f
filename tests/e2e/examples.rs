//! The example programs (`programs/examples/*.bc`): each must have a
//! `NAME.out` next to it with its exact expected stdout, and may say
//! `; status: N` (and `; args: ...`) in its header comments; other header
//! comments are free text. Every example is run and compared; a `.bc`
//! without its `.out` is a failure.

use std::fmt::Write as _;
use std::path::Path;

use crate::harness;

#[test]
fn examples_match_their_out_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/examples");
    if !dir.is_dir() {
        return; // no examples directory: nothing to check
    }
    let mut report = String::new();
    let files = harness::bc_files(&dir);
    let mut failed = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let out = path.with_extension("out");
        let Ok(expected) = std::fs::read_to_string(&out) else {
            failed += 1;
            let _ = writeln!(
                report,
                "=== {name}: missing {} with its expected stdout",
                out.file_name().unwrap().to_string_lossy()
            );
            continue;
        };
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let e = match harness::parse_header(&text, false) {
            Ok(e) => e,
            Err(err) => {
                failed += 1;
                let _ = writeln!(report, "=== {name}: bad header: {err}");
                continue;
            }
        };
        let mut args = vec!["run", name.as_str()];
        args.extend(e.args.iter().map(String::as_str));
        let r = harness::run_vm_in(&dir, &args, harness::DEFAULT_TIMEOUT);
        let mut problems = Vec::new();
        if let Some(c) = r.crash() {
            problems.push(c);
        } else {
            if r.status != Some(e.status) {
                problems.push(format!(
                    "exit status: expected {}, got {:?}",
                    e.status, r.status
                ));
            }
            if r.stdout != expected {
                problems.push(format!(
                    "stdout differs\n--- expected\n{}--- got\n{}---",
                    harness::clip(&expected),
                    harness::clip(&r.stdout)
                ));
            }
        }
        if !problems.is_empty() {
            failed += 1;
            let _ = writeln!(report, "=== {name}");
            for p in problems {
                let _ = writeln!(report, "  - {}", p.replace('\n', "\n    "));
            }
            let _ = writeln!(report, "  stderr:\n{}", harness::clip(&r.stderr));
        }
    }
    assert!(
        failed == 0,
        "{failed} of {} examples failed:\n{report}",
        files.len()
    );
}
