//! The invariants of docs/ARCHITECTURE.md ("Invariants of the layers"),
//! each checked on the sources, so that breaking one fails a test:
//!
//! - the crates are layered: the binary over `jit-sim` over `profiler`
//!   over `vm`, `profile` and `experiment` beside them, and no crate
//!   depends on one above it (checked on each `Cargo.toml`);
//! - the profiler reaches into the VM only through the modules it is
//!   allowed, and holds the `Vm` itself in two modules only;
//! - `jit-sim` works on modules and installs code, never touching frames,
//!   threads or the interpreter;
//! - the binary creates no VM: every run goes through the session
//!   (`jit_sim::session::run`);
//! - the VM core's modules (`thread`, `hooks`, `safepoint`, `context`,
//!   `interp`, `runtime`) are layered in that order, with no circle
//!   between them (checked on the `crate::` paths of `vm/src`).
//!
//! tests/e2e/architecture.rs checks the offline `profile` and `experiment`
//! crates' own rules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace crates, as their manifests name them.
const CRATES: &[&str] = &["vm", "profile", "profiler", "jit-sim", "experiment"];

/// The workspace crates `manifest` depends on, in any dependency table
/// (`[dependencies]`, `[dev-dependencies]`, `[build-dependencies]`).
fn workspace_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut in_deps = false;
    let mut out = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line.ends_with("dependencies]");
            continue;
        }
        let name = line.split(['=', '.']).next().unwrap_or("").trim();
        if in_deps && CRATES.contains(&name) {
            out.insert(name.to_string());
        }
    }
    out
}

fn manifest(dir: &str) -> String {
    std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap()
}

#[test]
fn each_crate_depends_only_on_crates_below_it() {
    // The layers, bottom up: what each crate may use.
    let allowed: &[(&str, &[&str])] = &[
        ("vm", &[]),
        ("profile", &[]),
        ("profiler", &["vm", "profile"]),
        ("jit-sim", &["vm", "profile", "profiler"]),
        ("experiment", &["profile"]),
        (".", CRATES),
    ];
    for (dir, may) in allowed {
        let deps = workspace_dependencies(&manifest(dir));
        for d in &deps {
            assert!(
                may.contains(&d.as_str()),
                "{dir}/Cargo.toml depends on `{d}`, above it or beside it (allowed: {may:?})"
            );
        }
    }
    // The reader sees real dependencies (it would see these).
    let jit = workspace_dependencies(&manifest("jit-sim"));
    assert!(jit.contains("profiler") && jit.contains("vm"), "{jit:?}");
    assert_eq!(workspace_dependencies(&manifest(".")).len(), CRATES.len());
}

/// Every `.rs` file under `dir`.
fn sources(dir: &str) -> Vec<PathBuf> {
    let mut dirs = vec![root().join(dir)];
    let mut files = Vec::new();
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 3, "no sources found under {dir}");
    files
}

/// The modules of crate `krate` that the code (comments left out) of
/// `path` names, as `krate::module`.
fn modules_used(path: &Path, krate: &str) -> BTreeSet<String> {
    modules_named(&std::fs::read_to_string(path).unwrap(), krate)
}

/// The modules of crate `krate` (or, for `crate`, of the crate itself)
/// that `text` names as `krate::module`, comments left out.
fn modules_named(text: &str, krate: &str) -> BTreeSet<String> {
    let needle = format!("{krate}::");
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find(&needle) {
            let before = rest[..i].chars().last();
            rest = &rest[i + needle.len()..];
            // `jit_vm::` or `self.vm::` are not the crate.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                continue;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                .collect();
            out.insert(name);
        }
    }
    out
}

#[test]
fn the_profiler_uses_only_the_vm_modules_it_is_allowed() {
    // Everywhere: the extension points (hooks), what a listener reads of
    // a thread and its frames, the loaded code it names, the cost
    // table its work is charged from (`profiler_cost`), and the memory
    // budget its growing records are counted in (`memory`).
    let anywhere = [
        "hooks",
        "frame",
        "thread",
        "instr",
        "loader",
        "profiler_cost",
        "memory",
    ];
    // The many-thread samplers request safepoints of the VM (or, on a
    // simulated machine, hand it their protocol: `simsample`), and the
    // session creates it: only there is the `Vm` held.
    let holders = ["sampler.rs", "session.rs"];
    let mut seen = BTreeSet::new();
    for path in sources("profiler/src") {
        let file = path.file_name().unwrap().to_str().unwrap();
        for m in modules_used(&path, "vm") {
            let ok = anywhere.contains(&m.as_str())
                || (holders.contains(&file)
                    && ["runtime", "safepoint", "simsample"].contains(&m.as_str()))
                // The profile's config records the simulated machine's
                // default quantum.
                || (file == "config.rs" && m == "schedule");
            assert!(ok, "{} uses vm::{m}", path.display());
            seen.insert(m);
        }
    }
    assert!(
        seen.contains("hooks") && seen.contains("runtime"),
        "the scan reads the profiler's imports: {seen:?}"
    );
}

#[test]
fn jit_sim_works_on_modules_and_installs_code() {
    // Bytecode: modules, their verification, printing and costs; the
    // controller's loading and installing of recompiled code, and the
    // cycles each code version spent (what a recompilation saved), and the
    // cost table its decisions and compilations are charged from.
    let allowed = [
        "profiler_cost",
        "module",
        "verify",
        "diag",
        "opcode",
        "printer",
        "loader",
        "install",
        "runtime",
        "bodycount",
        // Its lines on stderr (--print-compilation), never a panic.
        "stdio",
    ];
    let mut seen = BTreeSet::new();
    for path in sources("jit-sim/src") {
        for m in modules_used(&path, "vm") {
            assert!(
                allowed.contains(&m.as_str()),
                "{} uses vm::{m}: jit-sim works on modules, never on frames, threads \
                 or the interpreter",
                path.display()
            );
            seen.insert(m);
        }
    }
    assert!(seen.contains("module"), "{seen:?}");
}

#[test]
fn the_vm_names_none_of_its_clients() {
    for path in sources("vm/src") {
        for client in ["profiler", "jit_sim", "experiment", "profile"] {
            assert!(
                modules_used(&path, client).is_empty(),
                "{} names `{client}::`",
                path.display()
            );
        }
    }
}

#[test]
fn the_binary_runs_programs_only_through_the_session() {
    let mut calls = 0;
    for path in sources("src") {
        let text: String = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        for forbidden in [
            "Vm::new",
            "Profiler::start",
            ".attach(",
            "AdaptiveController::start",
        ] {
            assert!(
                !text.contains(forbidden),
                "{} calls {forbidden}: run programs with jit_sim::session::run",
                path.display()
            );
        }
        calls += text.matches("jit_sim::session::run(").count();
    }
    // `vm run` (and `vm inline`'s runs) and the study modes' captured runs.
    assert!(calls >= 2, "the session is called {calls} times");
}

/// The VM core's modules, bottom up: each may use only those before it.
const VM_CORE: &[&str] = &[
    "thread",
    "hooks",
    "safepoint",
    "context",
    "interp",
    "runtime",
];

/// The top-level module of `vm/src` that `path` belongs to (`interp` for
/// `vm/src/interp.rs`, `verify` for `vm/src/verify/stack.rs`).
fn vm_module(path: &Path) -> String {
    let rel = path.strip_prefix(root().join("vm/src")).unwrap();
    let first = rel.components().next().unwrap().as_os_str();
    first.to_str().unwrap().trim_end_matches(".rs").to_string()
}

/// Which top-level modules of `vm/src` each one uses in its production
/// code (the lines before its `#[cfg(test)]`): what `crate::` paths name.
fn vm_module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in sources("vm/src") {
        let text = std::fs::read_to_string(&path).unwrap();
        let production = text.split("#[cfg(test)]").next().unwrap();
        let me = vm_module(&path);
        let uses = modules_named(production, "crate");
        let entry = graph.entry(me.clone()).or_default();
        entry.extend(uses.into_iter().filter(|m| *m != me));
    }
    graph
}

/// A path of `graph` from `from` back to `from` (a circle), if any.
fn circle_through(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut todo = vec![from];
    while let Some(m) = todo.pop() {
        for next in graph.get(m).into_iter().flatten() {
            if next == from {
                let mut path = vec![from.to_string(), m.to_string()];
                let mut at = m;
                while let Some(&p) = came_from.get(at) {
                    path.push(p.to_string());
                    at = p;
                }
                path.reverse();
                return Some(path);
            }
            if !came_from.contains_key(next.as_str()) {
                came_from.insert(next, m);
                todo.push(next);
            }
        }
    }
    None
}

#[test]
fn the_vm_core_is_layered_without_a_circle() {
    let graph = vm_module_graph();
    // Each core module uses only the core modules below it.
    for (i, m) in VM_CORE.iter().enumerate() {
        let uses = graph
            .get(*m)
            .unwrap_or_else(|| panic!("no vm/src module `{m}`"));
        for u in uses.iter().filter(|u| VM_CORE.contains(&u.as_str())) {
            assert!(
                VM_CORE[..i].contains(&u.as_str()),
                "vm/src/{m}.rs uses crate::{u}, which is not below it in the VM core's \
                 layers {VM_CORE:?} (docs/ARCHITECTURE.md, \"The VM core's layers\")"
            );
        }
    }
    // Nor does a circle close through the other modules.
    for m in VM_CORE {
        if let Some(circle) = circle_through(&graph, m) {
            panic!("a circle of imports in vm/src: {}", circle.join(" -> "));
        }
    }
    // The scan reads the real imports.
    for (m, u) in [
        ("runtime", "interp"),
        ("interp", "context"),
        ("safepoint", "hooks"),
    ] {
        assert!(
            graph[m].contains(u),
            "vm/src/{m}.rs uses crate::{u}: {graph:?}"
        );
    }
}
