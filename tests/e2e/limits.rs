//! What a hostile or runaway program can do to the machine, bounded
//! (docs/CLI.md, "Limits"): input files too large to read, and (as they
//! land) memory, threads and output that must not be lost.

use std::time::{Duration, Instant};

use crate::harness::{self, run_vm_in, DEFAULT_TIMEOUT};

/// `vm check /dev/zero` used to read forever. Every command that reads a
/// program or a profile refuses, with status 66 and one clear line, an
/// input larger than `--max-source`: a device at once when the limit is
/// reached, a regular file by its size before reading it.
#[test]
fn max_source_refuses_endless_and_oversized_inputs() {
    let dir = harness::scratch("limits-max-source");
    harness::write_program(&dir, "small.bc", ".method main()\n  push 0\n  ret\n.end\n");
    let cases: &[&[&str]] = &[
        &["check", "/dev/zero"],
        &["run", "/dev/zero", "--max-source=1M"],
        &["disasm", "/dev/zero", "--max-source=1M"],
        &["inline", "/dev/zero", "--max-source=1M"],
        &["compare", "/dev/zero", "small.bc", "--max-source=1M"],
        &["check", "small.bc", "--max-source=10"],
        &["run", "small.bc", "--max-source=10"],
    ];
    for args in cases {
        let start = Instant::now();
        let r = run_vm_in(&dir, args, DEFAULT_TIMEOUT);
        r.assert_status(66);
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "`{}` took {:?}",
            r.cmd,
            start.elapsed()
        );
        let lines = r.stderr_lines();
        assert_eq!(lines.len(), 1, "`{}`:\n{}", r.cmd, r.stderr);
        assert!(
            lines[0].starts_with("vm: cannot read `")
                && lines[0].contains("larger than the limit of")
                && lines[0].contains("--max-source"),
            "`{}`: {}",
            r.cmd,
            lines[0]
        );
        assert_eq!(r.stdout, "", "`{}` printed on stdout", r.cmd);
    }
    // At the limit exactly, the file is read.
    let size = std::fs::metadata(dir.join("small.bc")).unwrap().len();
    let r = run_vm_in(
        &dir,
        &["run", "small.bc", &format!("--max-source={size}")],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    // A size that is not one is a usage error.
    for bad in ["--max-source=0", "--max-source=12X", "--max-source=lots"] {
        let r = run_vm_in(&dir, &["check", "small.bc", bad], DEFAULT_TIMEOUT);
        r.assert_status(2);
    }
}
