//! The Are We Fast Yet macro benchmarks (`programs/awfy/`, docs/AWFY-macro.md):
//! each runs at its default size and prints exactly its `NAME.out` with status
//! 0; each checks its own result, so a run told to expect a wrong value
//! (`--set expected=N`) prints "Benchmark failed with incorrect result" and
//! exits 1; the committed `NAME.bc` files are what
//! `programs/awfy/build-macro.sh` generates from `src/` and `som/`; and the
//! Lua and Python peers, where their interpreters are installed, print the
//! same lines and fail the same way.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{clip, run_vm_in, scratch, DEFAULT_TIMEOUT};

/// Each macro benchmark, a wrong value for its `expected` global, and
/// whether its peers are also run with that wrong value (not for Havlak,
/// whose peers take seconds per run).
const BENCHMARKS: &[(&str, &str, bool)] = &[
    ("richards", "23247", true),
    ("deltablue", "1171", true),
    ("json", "157", true),
    ("havlak", "1606", false),
    ("cd", "391", true),
];

const FAILED: &str = "Benchmark failed with incorrect result";

fn awfy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs/awfy")
}

fn expected_out(name: &str) -> String {
    let path = awfy_dir().join(format!("{name}.out"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn macro_benchmarks_print_their_out_files() {
    let dir = awfy_dir();
    for (name, _, _) in BENCHMARKS {
        let file = format!("{name}.bc");
        let r = run_vm_in(&dir, &["run", &file], DEFAULT_TIMEOUT);
        r.assert_status(0);
        assert_eq!(
            r.stdout,
            expected_out(name),
            "{file}: stderr:\n{}",
            r.stderr
        );
        assert!(!r.stdout.contains(FAILED), "{file}: {}", r.stdout);
    }
}

#[test]
fn macro_benchmarks_reject_a_wrong_result() {
    let dir = awfy_dir();
    for (name, wrong, _) in BENCHMARKS {
        let file = format!("{name}.bc");
        let set = format!("expected={wrong}");
        let r = run_vm_in(&dir, &["run", &file, "--set", &set], DEFAULT_TIMEOUT);
        r.assert_status(1);
        assert!(
            r.stdout.ends_with(&format!("{FAILED}\n")),
            "{file} --set {set}: stdout:\n{}",
            clip(&r.stdout)
        );
    }
}

fn build_check(dir: &Path) -> std::process::Output {
    Command::new("bash")
        .arg(dir.join("build-macro.sh"))
        .arg("--check")
        .output()
        .expect("run bash build-macro.sh --check")
}

#[test]
fn macro_benchmarks_are_generated_by_the_build_script() {
    let out = build_check(&awfy_dir());
    assert!(
        out.status.success(),
        "build-macro.sh --check failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The check can fail: a copy whose generated file was edited by hand.
    let copy = scratch("awfy_macro_build");
    for sub in ["som", "src", "data"] {
        std::fs::create_dir_all(copy.join(sub)).unwrap();
        for entry in std::fs::read_dir(awfy_dir().join(sub)).unwrap() {
            let p = entry.unwrap().path();
            std::fs::copy(&p, copy.join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(
        awfy_dir().join("build-macro.sh"),
        copy.join("build-macro.sh"),
    )
    .unwrap();
    for (name, _, _) in BENCHMARKS {
        let file = format!("{name}.bc");
        std::fs::copy(awfy_dir().join(&file), copy.join(&file)).unwrap();
    }
    let out = build_check(&copy);
    assert!(
        out.status.success(),
        "the untouched copy must check: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = BENCHMARKS[0].0;
    let path = copy.join(format!("{first}.bc"));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}; edited by hand\n")).unwrap();
    let out = build_check(&copy);
    assert!(
        !out.status.success(),
        "an edited {first}.bc must fail the check"
    );
}

#[test]
fn macro_peers_print_the_same_lines() {
    let peers = awfy_dir().join("peers");
    let mut ran = 0;
    for (name, wrong, peers_fail) in BENCHMARKS {
        for (interpreter, sub, ext) in [("python3", "python", "py"), ("lua5.4", "lua", "lua")] {
            let script = peers.join(sub).join(format!("{name}.{ext}"));
            assert!(script.is_file(), "missing peer {}", script.display());
            let Ok(out) = Command::new(interpreter).arg(&script).output() else {
                eprintln!("note: {interpreter} is not installed; {name}.{ext} not run");
                continue;
            };
            ran += 1;
            assert!(out.status.success(), "{interpreter} {name}.{ext}: {out:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected_out(name),
                "{interpreter} {name}.{ext}"
            );
            if !peers_fail {
                continue;
            }
            let out = Command::new(interpreter)
                .arg(&script)
                .args(["1", "0", wrong])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(1),
                "{interpreter} {name}.{ext} 1 0 {wrong}"
            );
            assert!(String::from_utf8_lossy(&out.stdout).ends_with(&format!("{FAILED}\n")));
        }
    }
    eprintln!("{ran} peer runs compared");
}
