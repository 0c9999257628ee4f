//! `--walk=incremental` (Hofer et al. 2015, sections 5 and 6) through the
//! real binary, on programs made to stress it:
//!
//! - **trampolines are invisible**: a seeded generator writes a few hundred
//!   random programs (docs/LANGUAGE.md) whose methods call each other and
//!   themselves to a bounded depth, in loops, throw exceptions caught
//!   several frames up or not at all, sometimes `halt`, die of a runtime
//!   error, or run in a spawned thread whose exception a `join` rethrows.
//!   Each must print the same stdout and stderr (stack traces included:
//!   a trace shows real return addresses, never a trampoline) and exit with
//!   the same status under every walk (`top`, `full`, `marked`,
//!   `incremental`) of the counter and cbs profiles as with no profile;
//! - on a quarter of them, sampling every call with the incremental walk
//!   gives exactly the exhaustive CCT (frames still on the stack when a
//!   thread dies of a runtime error or `halt` are captured at its end);
//! - the incremental walk keeps every level of a recursion thousands of
//!   frames deep (it is never cut by `--max-walk`, unlike the others).
//!
//! A failing generated program is left in the scratch directory, named by
//! its seed, with the command that failed.

use std::fmt::Write as _;
use std::path::Path;

use profile::Profile;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::contexts::{calls_by_path, is_detached, path_diff};
use crate::harness::{self, run_vm_in, scratch, write_program, DEFAULT_TIMEOUT};

/// How many programs the differential test generates.
const PROGRAMS: u64 = 240;

/// A random program of docs/LANGUAGE.md, deterministic for its seed.
struct Gen {
    rng: StdRng,
    labels: usize,
}

impl Gen {
    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("{what}{}", self.labels)
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.rng.random_range(0..100) < percent
    }

    /// A call of a random method with `d - 1`, if the global call budget
    /// allows; its result is added to local `a`.
    fn guarded_call(&mut self, body: &mut String, methods: usize, budget: u32) {
        let skip = self.label("nocall");
        let callee = self.rng.random_range(0..methods);
        let c = self.rng.random_range(0..20);
        let _ = write!(
            body,
            "  getglobal calls\n  push {budget}\n  jge {skip}\n  push 1\n  addglobal calls\n  pop\n  \
             load d\n  push 1\n  sub\n  load x\n  push {c}\n  add\n  call m{callee}\n  load a\n  add\n  \
             store a\n{skip}:\n"
        );
    }

    /// Jumps to a fresh label unless `a + x` is a multiple of `k`; returns
    /// the label, which the caller places after what it guards.
    fn unless_multiple(&mut self, body: &mut String, k: u32) -> String {
        let skip = self.label("skip");
        let _ = write!(
            body,
            "  load a\n  load x\n  add\n  push {k}\n  rem\n  jnz {skip}\n"
        );
        skip
    }

    fn method(&mut self, k: usize, methods: usize, budget: u32) -> String {
        let mut catches = Vec::new();
        let mut body = String::new();
        body.push_str("  load d\n  push 0\n  jgt go\n  load x\n  ret\ngo:\n");
        for _ in 0..self.rng.random_range(1..=5) {
            match self.rng.random_range(0..100) {
                0..=29 => self.guarded_call(&mut body, methods, budget),
                30..=44 => {
                    // A loop of calls (backedge yieldpoints included).
                    let (top, end) = (self.label("top"), self.label("end"));
                    let n = self.rng.random_range(1..=3);
                    let _ = write!(
                        body,
                        "  push {n}\n  store b\n{top}:\n  load b\n  jz {end}\n  inc b -1\n"
                    );
                    self.guarded_call(&mut body, methods, budget);
                    let _ = write!(body, "  jmp {top}\n{end}:\n");
                }
                45..=62 => {
                    // A call inside a .catch range: exceptions thrown any
                    // number of frames further up land here.
                    let (from, to) = (self.label("try"), self.label("tried"));
                    let (handler, after) = (self.label("catch"), self.label("after"));
                    let _ = writeln!(body, "{from}:");
                    self.guarded_call(&mut body, methods, budget);
                    let _ = write!(
                        body,
                        "{to}:\n  jmp {after}\n{handler}:\n  print\n{after}:\n"
                    );
                    catches.push(format!("  .catch {from} {to} {handler}"));
                }
                63..=72 => {
                    body.push_str(
                        "  load a\n  load x\n  add\n  push 7\n  mul\n  push 1000\n  rem\n  store a\n",
                    );
                }
                73..=80 => body.push_str("  load a\n  print\n"),
                81..=93 => {
                    let k = self.rng.random_range(2..=7);
                    let skip = self.unless_multiple(&mut body, k);
                    if self.chance(50) {
                        let _ = writeln!(body, "  push \"e{k}m{k}\"\n  throw");
                    } else {
                        body.push_str("  load a\n  throw\n");
                    }
                    let _ = writeln!(body, "{skip}:");
                }
                94..=96 => {
                    let k = self.rng.random_range(5..=40);
                    let skip = self.unless_multiple(&mut body, k);
                    let _ = write!(body, "  push 1\n  push 0\n  div\n  pop\n{skip}:\n");
                }
                _ => {
                    let k = self.rng.random_range(5..=40);
                    let skip = self.unless_multiple(&mut body, k);
                    let _ = write!(body, "  push {}\n  halt\n{skip}:\n", 3 + k);
                }
            }
        }
        body.push_str("  load a\n  load x\n  add\n  ret\n");
        let mut out = format!(".method m{k}(d, x)\n  .locals a b\n");
        for c in catches {
            out.push_str(&c);
            out.push('\n');
        }
        out.push_str(&body);
        out.push_str(".end\n\n");
        out
    }

    fn program(seed: u64) -> String {
        let mut g = Gen {
            rng: StdRng::seed_from_u64(seed),
            labels: 0,
        };
        let methods = g.rng.random_range(2..=6);
        let budget = g.rng.random_range(20..=400);
        let depth = if g.chance(20) {
            g.rng.random_range(40..=150)
        } else {
            g.rng.random_range(2..=12)
        };
        let x = g.rng.random_range(0..50);
        let mut out =
            format!("; generated by tests/e2e/incremental.rs, seed {seed}\n.global calls\n\n");
        let catch = g.chance(50);
        out.push_str(".method main()\n  .locals r\n");
        if catch {
            out.push_str("  .catch mstart mend mhandler\n");
        }
        out.push_str("mstart:\n");
        if g.chance(25) {
            // In a spawned thread: an exception it does not catch is
            // printed by it and rethrown in main by `join`.
            let _ = write!(out, "  push {depth}\n  push {x}\n  spawn m0\n  join\n");
        } else {
            let _ = write!(out, "  push {depth}\n  push {x}\n  call m0\n");
        }
        out.push_str("  print\n  getglobal calls\n  print\nmend:\n  push 0\n  ret\n");
        if catch {
            out.push_str("mhandler:\n  print\n  push 0\n  ret\n");
        }
        out.push_str(".end\n\n");
        for k in 0..methods {
            out.push_str(&g.method(k, methods, budget));
        }
        out
    }
}

/// The walk configurations every generated program runs under.
fn configurations(seed: u64) -> Vec<Vec<String>> {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
    let every = rng.random_range(1..=5);
    let max_walk = rng.random_range(2..=8);
    let interval = rng.random_range(1..=5);
    let stride = rng.random_range(1..=3);
    let counter = vec![
        "--profile=counter".to_string(),
        format!("--every={every}"),
        format!("--seed={seed}"),
    ];
    let cbs = vec![
        "--profile=cbs".to_string(),
        "--clock=virtual".to_string(),
        format!("--interval={interval}us"),
        format!("--stride={stride}"),
        "--samples=8".to_string(),
        format!("--seed={seed}"),
    ];
    let mut out = Vec::new();
    for base in [counter, cbs] {
        let with = |extra: &[&str]| {
            let mut v = base.clone();
            v.extend(extra.iter().map(|s| s.to_string()));
            v
        };
        let cut = format!("--max-walk={max_walk}");
        out.push(with(&["--record=dcg", "--walk=top"]));
        out.push(with(&["--record=cct", "--walk=full", &cut]));
        out.push(with(&["--record=dcg,cct", "--walk=marked", &cut]));
        out.push(with(&["--record=cct", "--walk=incremental"]));
    }
    out
}

/// (status, stdout, stderr) of `vm run NAME ARGS` in `dir`.
fn outcome(
    dir: &Path,
    name: &str,
    args: &[String],
) -> Result<(Option<i32>, String, String), String> {
    let mut all = vec!["run", name];
    all.extend(args.iter().map(String::as_str));
    let r = run_vm_in(dir, &all, DEFAULT_TIMEOUT);
    match r.crash() {
        Some(c) => Err(c),
        None => Ok((r.status, r.stdout, r.stderr)),
    }
}

/// Runs `name` with `args` and `--profile-out`; the profile.
fn profile(dir: &Path, name: &str, args: &[&str], out: &str) -> Result<Profile, String> {
    let file = dir.join(out);
    let o = format!("--profile-out={}", file.display());
    let mut all = vec!["run", name];
    all.extend_from_slice(args);
    all.push(&o);
    let r = run_vm_in(dir, &all, DEFAULT_TIMEOUT);
    if let Some(c) = r.crash() {
        return Err(c);
    }
    Profile::read(&file).map_err(|e| format!("{}: no profile: {e}", r.cmd))
}

/// How a generated program ends without a profile (see [`ending`]).
fn ending(status: Option<i32>, stderr: &str) -> usize {
    match status {
        Some(0) if stderr.contains("uncaught exception") => 1,
        Some(0) => 0,
        Some(70) => 2,
        _ => 3,
    }
}

/// The checks of one generated program: `Ok` with how it ends
/// ([`ending`]), or `Err` describing the failures.
fn check_program(dir: &Path, seed: u64) -> Result<usize, String> {
    let name = format!("gen{seed}.bc");
    write_program(dir, &name, &Gen::program(seed));
    let reference = outcome(dir, &name, &[])?;
    if reference.0 == Some(65) {
        return Err(format!(
            "{name}: the generator wrote an invalid program:\n{}",
            reference.2
        ));
    }
    let mut failures = Vec::new();
    for config in configurations(seed) {
        match outcome(dir, &name, &config) {
            Ok(o) if o == reference => {}
            Ok(o) => failures.push(format!(
                "{name} {}: status {:?} (plain {:?}); stdout {}; stderr {}",
                config.join(" "),
                o.0,
                reference.0,
                if o.1 == reference.1 {
                    "same"
                } else {
                    "differs"
                },
                if o.2 == reference.2 {
                    "same".to_string()
                } else {
                    format!("differs:\n{}\n--- plain:\n{}", o.2, reference.2)
                },
            )),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    if seed.is_multiple_of(4) {
        // Every call sampled: the incremental CCT is the exhaustive one,
        // however the run ends.
        let exact = profile(
            dir,
            &name,
            &["--profile=exhaustive", "--record=cct"],
            "exact.json",
        );
        let sampled = profile(
            dir,
            &name,
            &[
                "--profile=counter",
                "--every=1",
                "--record=cct",
                "--walk=incremental",
            ],
            "incr.json",
        );
        match (exact, sampled) {
            (Ok(e), Ok(s)) => {
                let (e, s) = (calls_by_path(&e), calls_by_path(&s));
                if e != s {
                    failures.push(format!(
                        "{name}: every-call CCT differs (want: exhaustive, got: incremental):\n{}",
                        path_diff(&e, &s)
                    ));
                }
            }
            (e, s) => failures.extend(e.err().into_iter().chain(s.err())),
        }
    }
    if failures.is_empty() {
        let _ = std::fs::remove_file(dir.join(&name));
        Ok(ending(reference.0, &reference.2))
    } else {
        Err(failures.join("\n"))
    }
}

#[test]
fn generated_programs_behave_the_same_under_every_walk() {
    let endings = harness::check_seeds("incremental-generated", PROGRAMS, check_program);
    // The generator must reach every kind of ending (not every program
    // quietly returning): clean, a spawned thread's uncaught exception,
    // a runtime error or an uncaught exception in main, and halt.
    let mut k = [0usize; 4];
    for kind in endings {
        k[kind] += 1;
    }
    assert!(
        k.iter().all(|&n| n >= 5),
        "endings (ok, thread threw, 70, halt): {k:?}"
    );
}

#[test]
fn generated_programs_are_deterministic_and_valid() {
    harness::assert_generator_valid("incremental-valid", Gen::program);
}

#[test]
fn a_recursion_thousands_deep_keeps_every_level() {
    let dir = harness::programs_dir("contexts");
    let out = scratch("incremental-deep");
    // 30000 calls sampled every one make about 90000 frame objects: at
    // least one retrieval happens in the middle of the run (at 65536),
    // reading the 3000 frames below and taking back every trampoline.
    let args = ["--set", "DEPTH=3000", "--set", "CALLS=30000"];
    let run = |extra: &[&str], file: &str| {
        let mut a = args.to_vec();
        a.extend_from_slice(extra);
        profile(
            &dir,
            "walk_cost.bc",
            &a,
            &out.join(file).display().to_string(),
        )
        .unwrap()
    };
    let exact = calls_by_path(&run(
        &["--profile=exhaustive", "--record=cct"],
        "exact.json",
    ));
    assert!(
        exact.keys().any(|k| k.len() == 3002),
        "main, 3000 down, spin, leaf"
    );
    let incr = run(
        &[
            "--profile=counter",
            "--every=1",
            "--record=cct",
            "--walk=incremental",
        ],
        "incr.json",
    );
    assert_eq!(calls_by_path(&incr), exact);
    // Sparser samples: every context found is a real one, the deepest
    // included; nothing is detached.
    let sparse = run(
        &[
            "--profile=counter",
            "--every=7",
            "--seed=3",
            "--record=cct",
            "--walk=incremental",
        ],
        "sparse.json",
    );
    let got = calls_by_path(&sparse);
    assert!(got.keys().any(|k| k.len() == 3002));
    for k in got.keys() {
        assert!(exact.contains_key(k), "{k:?} is no context");
    }
    // The default full walk is cut at 256 frames and detaches them.
    let full = calls_by_path(&run(
        &["--profile=counter", "--every=7", "--record=cct"],
        "full.json",
    ));
    assert!(full.keys().any(is_detached));
}
