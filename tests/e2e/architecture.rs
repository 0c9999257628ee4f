//! The layering of docs/ARCHITECTURE.md, checked on the sources: the
//! offline `profile` crate depends on neither the VM nor the live
//! profiler, so anything that only reads profiles needs nothing else.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The crate names in the `[dependencies]` table of `manifest`.
fn dependencies(manifest: &str) -> Vec<String> {
    let mut in_deps = false;
    let mut out = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.']).next().unwrap_or("").trim();
            out.push(name.to_string());
        }
    }
    out
}

#[test]
fn the_profile_crate_needs_neither_the_vm_nor_the_profiler() {
    let manifest = std::fs::read_to_string(root().join("profile/Cargo.toml")).unwrap();
    let deps = dependencies(&manifest);
    assert!(
        !deps.is_empty(),
        "no [dependencies] read from profile/Cargo.toml"
    );
    for d in &deps {
        // inferno draws the flame graphs of `vm report` (it needs no VM).
        assert!(
            d == "serde" || d == "serde_json" || d == "inferno",
            "profile/ depends on `{d}`: it must stay offline"
        );
    }
    let mut dirs = vec![root().join("profile/src")];
    let mut files = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    assert!(
        files.iter().any(|f| f.ends_with("report/text.rs")),
        "the walk reaches the report modules"
    );
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        for forbidden in ["vm::", "profiler::", "jit_sim::"] {
            assert!(
                !text.contains(forbidden),
                "{} names `{forbidden}`",
                path.display()
            );
        }
    }
    // The parser sees a real dependency table (it would see `vm` here).
    let profiler = std::fs::read_to_string(root().join("profiler/Cargo.toml")).unwrap();
    assert!(dependencies(&profiler).contains(&"vm".to_string()));
}

#[test]
fn the_experiment_crate_runs_the_vm_binary_and_reads_profiles_offline() {
    // `vm experiment` measures through the `vm` binary (a child process per
    // run) and reads what it writes with the offline `profile` crate: it
    // sits above the other crates and needs none of the VM's internals.
    let manifest = std::fs::read_to_string(root().join("experiment/Cargo.toml")).unwrap();
    let deps = dependencies(&manifest);
    assert!(deps.contains(&"profile".to_string()), "{deps:?}");
    for d in ["vm", "profiler", "jit-sim"] {
        assert!(
            !deps.contains(&d.to_string()),
            "experiment/ depends on `{d}`"
        );
    }
    let root_manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(
        dependencies(&root_manifest).contains(&"experiment".to_string()),
        "the `vm` binary links the experiment crate"
    );
}
