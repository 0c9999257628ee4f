//! The Are We Fast Yet macro benchmarks (`programs/awfy/`, docs/AWFY-macro.md):
//! each runs at its default size and prints exactly its `NAME.out` with status
//! 0; each checks its own result, so a program whose expected result is made
//! wrong exits 1 with "error: wrong result"; the committed `NAME.bc` files are
//! what `programs/awfy/build-macro.sh` generates from `src/` and `som/`; and
//! the Lua and Python peers, where their interpreters are installed, print the
//! same lines.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{clip, run_vm_in, scratch, DEFAULT_TIMEOUT};

/// Each benchmark, with a text in its `.bc` that sets its expected result and
/// a replacement that makes that expectation wrong.
const BENCHMARKS: &[(&str, &str, &str)] = &[("richards", "push 23246\n", "push 23247\n")];

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
        assert_eq!(r.stdout, expected_out(name), "{file}: stderr:\n{}", r.stderr);
        assert!(r.stdout.ends_with("ok\n"), "{file}: {}", r.stdout);
    }
}

#[test]
fn macro_benchmarks_reject_a_wrong_result() {
    let dir = scratch("awfy_macro_wrong");
    for (name, needle, wrong) in BENCHMARKS {
        let text = std::fs::read_to_string(awfy_dir().join(format!("{name}.bc"))).unwrap();
        assert_eq!(
            text.matches(needle).count(),
            1,
            "{name}.bc: the expected-result text {needle:?} must occur exactly once"
        );
        let file = format!("{name}.bc");
        std::fs::write(dir.join(&file), text.replace(needle, wrong)).unwrap();
        let r = run_vm_in(&dir, &["run", &file], DEFAULT_TIMEOUT);
        r.assert_status(1);
        assert!(
            r.stdout.contains("error: wrong result"),
            "{file} with {wrong:?}: stdout:\n{}",
            clip(&r.stdout)
        );
        assert!(!r.stdout.contains("ok\n"), "{file}: {}", r.stdout);
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
    for sub in ["som", "src"] {
        std::fs::create_dir_all(copy.join(sub)).unwrap();
        for entry in std::fs::read_dir(awfy_dir().join(sub)).unwrap() {
            let p = entry.unwrap().path();
            std::fs::copy(&p, copy.join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::copy(awfy_dir().join("build-macro.sh"), copy.join("build-macro.sh")).unwrap();
    for (name, _, _) in BENCHMARKS {
        let text = std::fs::read_to_string(awfy_dir().join(format!("{name}.bc"))).unwrap();
        std::fs::write(copy.join(format!("{name}.bc")), text).unwrap();
    }
    assert!(build_check(&copy).status.success(), "the untouched copy checks");
    let first = BENCHMARKS[0].0;
    let path = copy.join(format!("{first}.bc"));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}; edited by hand\n")).unwrap();
    let out = build_check(&copy);
    assert!(!out.status.success(), "an edited {first}.bc must fail the check");
}

/// Runs a peer if its interpreter exists; `None` if it does not.
fn run_peer(interpreter: &str, script: &Path) -> Option<std::process::Output> {
    Command::new(interpreter).arg(script).output().ok()
}

#[test]
fn macro_peers_print_the_same_lines() {
    let peers = awfy_dir().join("peers");
    let mut ran = 0;
    for (name, _, _) in BENCHMARKS {
        for (interpreter, sub, ext) in [("python3", "python", "py"), ("lua5.4", "lua", "lua")] {
            let script = peers.join(sub).join(format!("{name}.{ext}"));
            assert!(script.is_file(), "missing peer {}", script.display());
            let Some(out) = run_peer(interpreter, &script) else {
                eprintln!("note: {interpreter} not installed, {name}.{ext} not run");
                continue;
            };
            ran += 1;
            assert!(out.status.success(), "{interpreter} {name}.{ext}: {out:?}");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected_out(name),
                "{interpreter} {name}.{ext}"
            );
        }
    }
    eprintln!("{ran} peer runs compared");
}
