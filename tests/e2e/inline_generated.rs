//! `vm inline` on generated object-oriented programs, through the real
//! binary:
//!
//! - **the optimized program behaves the same**: a seeded generator writes
//!   about a hundred random programs (docs/LANGUAGE.md) with class trees
//!   whose subclasses override or inherit virtual methods, `callvirt` sites
//!   whose receivers are of several classes (one dominant, so that `linear`
//!   makes guarded inlines), static calls, loops, values left on the stack
//!   under calls, and exceptions thrown by virtual methods and caught
//!   several frames up (or not at all). Each is inlined with
//!   `vm inline --policy=P --emit=out.bc` for `static`, and for `hot-edge`
//!   and `linear` with exhaustive and with cbs (virtual clock, seeded)
//!   profiles; the emitted program must pass `vm check` and print the same
//!   stdout and stderr, and end with the same status, as the original.
//!   Stack-trace lines (`  at ...`) are left out of the stderr comparison:
//!   inlined methods have no frame of their own (docs/INLINING.md).
//! - **a guarded inline takes the slow path** for a receiver of an
//!   unrelated class and of a subclass that overrides the method: marker
//!   prints put into the real methods of the emitted program show which
//!   receivers reached them.
//!
//! A failing generated program is left in the scratch directory, named by
//! its seed.

use std::fmt::Write as _;
use std::path::Path;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::harness::{self, run_vm_in, scratch, write_program, DEFAULT_TIMEOUT};

/// How many programs the differential test generates.
const PROGRAMS: u64 = 100;

/// The virtual methods every class has (defined or inherited); both take
/// one argument besides the receiver.
const SELECTORS: [&str; 2] = ["val", "bump"];

/// A random program, deterministic for its seed.
struct Gen {
    rng: StdRng,
    labels: usize,
}

/// A class of a generated program.
struct Class {
    name: String,
    parent: Option<usize>,
    /// Which of [`SELECTORS`] it defines (a root defines all).
    defines: [bool; 2],
}

impl Gen {
    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("{what}{}", self.labels)
    }

    fn chance(&mut self, percent: u32) -> bool {
        self.rng.random_range(0..100) < percent
    }

    /// Two roots at most, the other classes below a random earlier one.
    fn classes(&mut self) -> Vec<Class> {
        let n = self.rng.random_range(3..=7);
        let mut v: Vec<Class> = Vec::new();
        for c in 0..n {
            let parent = if c == 0 || (c == 1 && self.chance(40)) {
                None
            } else {
                Some(self.rng.random_range(0..c))
            };
            let defines = match parent {
                None => [true, true],
                Some(_) => [self.chance(50), self.chance(50)],
            };
            v.push(Class {
                name: format!("K{c}"),
                parent,
                defines,
            });
        }
        v
    }

    /// `if (t + x) rem k == 0 { throw }`, stack-neutral.
    fn maybe_throw(&mut self, body: &mut String, what: &str) {
        let k = self.rng.random_range(4..=40);
        let skip = self.label("nothrow");
        let _ = write!(
            body,
            "  load t\n  load x\n  add\n  push {k}\n  rem\n  jnz {skip}\n"
        );
        if self.chance(50) {
            let _ = writeln!(body, "  push \"{what}\"\n  throw");
        } else {
            body.push_str("  load t\n  throw\n");
        }
        let _ = writeln!(body, "{skip}:");
    }

    /// `C.sel(this, x)`: reads and writes the receiver's field, may call a
    /// helper, may call `val` on itself (from `bump` only: no recursion),
    /// may loop, may throw. Small, so that the policies inline it.
    fn virtual_method(&mut self, class: &str, sel: usize, helpers: usize) -> String {
        let mut body = String::new();
        let _ = write!(
            body,
            "  load this\n  getfield {class}.f\n  load x\n  add\n  push {}\n  add\n  store t\n",
            self.rng.random_range(0..100)
        );
        if self.chance(40) {
            let _ = write!(
                body,
                "  load this\n  load t\n  push 1000\n  rem\n  putfield {class}.f\n"
            );
        }
        if helpers > 0 && self.chance(30) {
            let h = self.rng.random_range(0..helpers);
            let _ = write!(body, "  load t\n  load x\n  call h{h}\n  store t\n");
        }
        if sel == 1 && self.chance(50) {
            body.push_str("  load t\n  load this\n  load x\n  callvirt val\n  add\n  store t\n");
        }
        if self.chance(20) {
            let (top, end) = (self.label("vtop"), self.label("vend"));
            let n = self.rng.random_range(1..=4);
            let _ = write!(
                body,
                "  push {n}\n  store u\n{top}:\n  load u\n  jz {end}\n  inc u -1\n  inc t 3\n  jmp {top}\n{end}:\n"
            );
        }
        if self.chance(30) {
            self.maybe_throw(&mut body, &format!("{class}.{}", SELECTORS[sel]));
        }
        body.push_str("  load t\n  push 100000\n  rem\n  ret\n");
        format!(
            ".method {class}.{}(this, x)\n  .locals t u\n{body}.end\n\n",
            SELECTORS[sel]
        )
    }

    /// `hK(t, x)`: arithmetic, may call an earlier helper, may throw.
    fn helper(&mut self, k: usize) -> String {
        let mut body = String::new();
        let op = ["add", "sub", "mul", "xor"][self.rng.random_range(0..4)];
        let _ = write!(
            body,
            "  load t\n  load x\n  {op}\n  push 9973\n  rem\n  store t\n"
        );
        if k > 0 && self.chance(50) {
            let j = self.rng.random_range(0..k);
            let _ = write!(
                body,
                "  load t\n  load t\n  load x\n  call h{j}\n  add\n  store t\n"
            );
        }
        if self.chance(35) {
            self.maybe_throw(&mut body, &format!("h{k}"));
        }
        body.push_str("  load t\n  ret\n");
        format!(".method h{k}(t, x)\n{body}.end\n\n")
    }

    /// `mkK(i)`: a new object whose class depends on `i rem 10`, one class
    /// (at random) taking most of the ten values.
    fn maker(&mut self, k: usize, classes: &[Class]) -> String {
        let dominant = self.rng.random_range(0..classes.len());
        let share = self.rng.random_range(5..=9);
        let mut table: Vec<usize> = vec![dominant; share];
        while table.len() < 10 {
            table.push(self.rng.random_range(0..classes.len()));
        }
        let mut body = String::from("  load i\n  push 10\n  rem\n  store r\n");
        for v in 1..table.len() {
            let _ = write!(body, "  load r\n  push {v}\n  jeq is{v}\n");
        }
        let _ = write!(body, "  new {}\n  ret\n", classes[table[0]].name);
        for (v, c) in table.iter().enumerate().skip(1) {
            let _ = write!(body, "is{v}:\n  new {}\n  ret\n", classes[*c].name);
        }
        format!(".method mk{k}(i)\n  .locals r\n{body}.end\n\n")
    }

    /// `dK(n)`: a loop of `n` iterations over statements that make virtual
    /// calls on made objects, static calls of helpers and of earlier
    /// drivers, some inside `.catch` ranges.
    fn driver(&mut self, k: usize, helpers: usize, makers: usize) -> String {
        let mut body = String::new();
        let mut catches = Vec::new();
        let (top, end) = ("top", "end");
        let _ = write!(
            body,
            "  push 0\n  store i\n{top}:\n  load i\n  load n\n  jge {end}\n"
        );
        for _ in 0..self.rng.random_range(1..=4) {
            let mut stmt = String::new();
            match self.rng.random_range(0..10) {
                0..=5 => {
                    // acc + recv.sel(i + c): the accumulator stays on the
                    // stack under the call.
                    let m = self.rng.random_range(0..makers);
                    let sel = SELECTORS[self.rng.random_range(0..2)];
                    let c = self.rng.random_range(0..50);
                    let _ = write!(
                        stmt,
                        "  load acc\n  load i\n  call mk{m}\n  load i\n  push {c}\n  add\n  callvirt {sel}\n  add\n  push 1000003\n  rem\n  store acc\n"
                    );
                }
                6 | 7 if helpers > 0 => {
                    let h = self.rng.random_range(0..helpers);
                    let _ = write!(
                        stmt,
                        "  load acc\n  load i\n  call h{h}\n  push 1000003\n  rem\n  store acc\n"
                    );
                }
                8 if k > 0 => {
                    let j = self.rng.random_range(0..k);
                    let n = self.rng.random_range(1..=4);
                    let _ = write!(
                        stmt,
                        "  load acc\n  push {n}\n  call d{j}\n  add\n  push 1000003\n  rem\n  store acc\n"
                    );
                }
                _ => stmt.push_str("  load acc\n  print\n"),
            }
            if self.chance(40) {
                // Exceptions thrown any number of frames further up land
                // here; the handler prints the value and goes on.
                let (from, to) = (self.label("try"), self.label("tried"));
                let (handler, after) = (self.label("catch"), self.label("after"));
                let _ = write!(
                    body,
                    "{from}:\n{stmt}{to}:\n  jmp {after}\n{handler}:\n  print\n{after}:\n"
                );
                catches.push(format!("  .catch {from} {to} {handler}\n"));
            } else {
                body.push_str(&stmt);
            }
        }
        let _ = write!(body, "  inc i 1\n  jmp {top}\n{end}:\n  load acc\n  ret\n");
        format!(
            ".method d{k}(n)\n  .locals i acc\n{}{body}.end\n\n",
            catches.concat()
        )
    }

    fn program(seed: u64) -> String {
        let mut g = Gen {
            rng: StdRng::seed_from_u64(seed),
            labels: 0,
        };
        let classes = g.classes();
        let mut out = format!("; generated by tests/e2e/inline_generated.rs, seed {seed}\n\n");
        for c in &classes {
            match c.parent {
                None => {
                    let _ = write!(out, ".class {}\n  .field f\n.end\n", c.name);
                }
                Some(p) => {
                    let _ = write!(out, ".class {} : {}\n.end\n", c.name, classes[p].name);
                }
            }
        }
        out.push('\n');
        let helpers = g.rng.random_range(0..=3);
        for h in 0..helpers {
            out.push_str(&g.helper(h));
        }
        for c in &classes {
            for (s, &defined) in c.defines.iter().enumerate() {
                if defined {
                    out.push_str(&g.virtual_method(&c.name, s, helpers));
                }
            }
        }
        let makers = g.rng.random_range(1..=2);
        for m in 0..makers {
            out.push_str(&g.maker(m, &classes));
        }
        let drivers = g.rng.random_range(1..=3);
        for d in 0..drivers {
            out.push_str(&g.driver(d, helpers, makers));
        }
        let n = g.rng.random_range(20..=120);
        out.push_str(".method main()\n");
        let catch = g.chance(60);
        if catch {
            out.push_str("  .catch mstart mend mhandler\n");
        }
        let _ = write!(
            out,
            "mstart:\n  push {n}\n  call d{}\n  print\nmend:\n  push 0\n  ret\n",
            drivers - 1
        );
        if catch {
            out.push_str("mhandler:\n  print\n  push 0\n  ret\n");
        }
        out.push_str(".end\n");
        out
    }
}

/// The `vm inline` configurations every generated program is inlined
/// with.
fn configurations(seed: u64) -> Vec<Vec<String>> {
    let cbs = |policy: &str| {
        vec![
            format!("--policy={policy}"),
            "--profile=cbs".to_string(),
            "--clock=virtual".to_string(),
            "--interval=10us".to_string(),
            format!("--seed={seed}"),
        ]
    };
    vec![
        vec!["--policy=static".to_string()],
        vec![
            "--policy=hot-edge".to_string(),
            "--profile=exhaustive".to_string(),
        ],
        vec![
            "--policy=linear".to_string(),
            "--profile=exhaustive".to_string(),
        ],
        cbs("hot-edge"),
        cbs("linear"),
    ]
}

/// stderr without stack-trace lines.
fn without_traces(stderr: &str) -> String {
    stderr
        .lines()
        .filter(|l| !l.starts_with("  "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// What the checks of one program found: guarded inlines made, and how
/// it ended (0 or 70).
struct Checked {
    guarded: bool,
    status: i32,
}

fn check_program(dir: &Path, seed: u64) -> Result<Checked, String> {
    let name = format!("gen{seed}.bc");
    write_program(dir, &name, &Gen::program(seed));
    let original = run_vm_in(dir, &["run", &name], DEFAULT_TIMEOUT);
    if let Some(c) = original.crash() {
        return Err(c);
    }
    let status = original.status.unwrap_or(-1);
    if status != 0 && status != 70 {
        return Err(format!(
            "{name}: the generator wrote a program that ends with {status}:\n{}",
            harness::clip(&original.stderr)
        ));
    }
    let expected_err = without_traces(&original.stderr);
    let mut failures = Vec::new();
    let mut guarded = false;
    for (k, config) in configurations(seed).iter().enumerate() {
        let out = format!("out{k}.bc");
        let mut args = vec!["inline", name.as_str()];
        args.extend(config.iter().map(String::as_str));
        let emit = format!("--emit={out}");
        args.push(&emit);
        let r = run_vm_in(dir, &args, DEFAULT_TIMEOUT);
        if let Some(c) = r.crash() {
            failures.push(c);
            continue;
        }
        if r.status != original.status || r.stdout != original.stdout {
            failures.push(format!(
                "`{}`: status {:?} (original {status}), stdout same: {}",
                r.cmd,
                r.status,
                r.stdout == original.stdout
            ));
            continue;
        }
        guarded |= r.stderr.contains("guarded inline");
        let c = run_vm_in(dir, &["check", &out], DEFAULT_TIMEOUT);
        if c.status != Some(0) {
            failures.push(format!(
                "{name} {}: the emitted program fails `vm check`:\n{}",
                config.join(" "),
                harness::clip(&c.stderr)
            ));
            continue;
        }
        let o = run_vm_in(dir, &["run", &out], DEFAULT_TIMEOUT);
        if let Some(c) = o.crash() {
            failures.push(c);
            continue;
        }
        let got_err = without_traces(&o.stderr);
        if o.status != original.status || o.stdout != original.stdout || got_err != expected_err {
            failures.push(format!(
                "{name} {}: the emitted program: status {:?} (original {status}); stdout {}; stderr {}",
                config.join(" "),
                o.status,
                if o.stdout == original.stdout { "same" } else { "differs" },
                if got_err == expected_err {
                    "same".to_string()
                } else {
                    format!("differs:\n{got_err}--- original:\n{expected_err}")
                }
            ));
        }
    }
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(dir);
        Ok(Checked { guarded, status })
    } else {
        Err(failures.join("\n"))
    }
}

#[test]
fn generated_programs_behave_the_same_after_inlining() {
    let checked = harness::check_seeds("inline-generated", PROGRAMS, check_program);
    // The generator must exercise what it is for: guarded inlines in most
    // programs, and both clean ends and uncaught exceptions.
    let guarded = checked.iter().filter(|c| c.guarded).count();
    let mut endings = [0usize; 2];
    for c in &checked {
        endings[usize::from(c.status != 0)] += 1;
    }
    assert!(
        guarded as u64 >= PROGRAMS / 2,
        "only {guarded} programs got a guarded inline"
    );
    assert!(
        endings.iter().all(|&n| n >= 5),
        "endings (0, 70): {endings:?}"
    );
}

#[test]
fn generated_programs_are_deterministic_and_valid() {
    harness::assert_generator_valid("inline-generated-valid", Gen::program);
}

/// `Shape.area` runs for Shape and Square (which inherits it) on 18 of 20
/// calls; Circle (a subclass) overrides it, Blob (another root) has its
/// own.
const SLOW: &str = "\
.class Shape
.end
.class Square : Shape
.end
.class Circle : Shape
.end
.class Blob
.end
.method Shape.area(this)
  push 10
  ret
.end
.method Circle.area(this)
  push 30
  ret
.end
.method Blob.area(this)
  push 40
  ret
.end
.method pick(i)
  load i
  push 17
  jeq square
  load i
  push 18
  jeq circle
  load i
  push 19
  jeq blob
  new Shape
  ret
square:
  new Square
  ret
circle:
  new Circle
  ret
blob:
  new Blob
  ret
.end
.method main()
  .locals i
loop:
  load i
  call pick
  callvirt area
  print
  inc i 1
  load i
  push 20
  jlt loop
  push 0
  ret
.end
";

/// `text` with `push "slow M"` and `print` at the entry of each real
/// (not inlined) virtual `area` method `M`.
fn mark_slow_paths(text: &str) -> String {
    let mut out = String::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if let Some(m) = &pending {
            if !line.trim_start().starts_with(".locals") && !line.trim_start().starts_with(".catch")
            {
                let _ = write!(out, "  push \"slow {m}\"\n  print\n");
                pending = None;
            }
        }
        out.push_str(line);
        out.push('\n');
        if let Some(rest) = line.strip_prefix(".method ") {
            if rest.contains(".area(") {
                pending = Some(rest.split('(').next().unwrap_or_default().to_string());
            }
        }
    }
    out
}

#[test]
fn a_guarded_inline_takes_the_slow_path_for_other_classes_and_overriding_subclasses() {
    let dir = scratch("inline-slow-path");
    write_program(&dir, "slow.bc", SLOW);
    let expected: String = (0..20)
        .map(|i| match i {
            18 => "30\n",
            19 => "40\n",
            _ => "10\n",
        })
        .collect();
    let r = run_vm_in(
        &dir,
        &["inline", "slow.bc", "--emit=out.bc"],
        DEFAULT_TIMEOUT,
    );
    r.assert_status(0);
    assert_eq!(r.stdout, expected);
    assert!(
        r.stderr.contains("Shape.area") && r.stderr.contains("guarded inline (90% Shape,"),
        "{}",
        r.stderr
    );
    let emitted = std::fs::read_to_string(dir.join("out.bc")).unwrap();
    let o = run_vm_in(&dir, &["run", "out.bc"], DEFAULT_TIMEOUT);
    o.assert_status(0);
    assert_eq!(o.stdout, expected);
    // The same program with a print at the entry of every real area
    // method: only receivers that fail the guard reach one.
    write_program(&dir, "marked.bc", &mark_slow_paths(&emitted));
    let m = run_vm_in(&dir, &["run", "marked.bc"], DEFAULT_TIMEOUT);
    m.assert_status(0);
    let lines: Vec<&str> = m.stdout.lines().collect();
    let count = |s: &str| lines.iter().filter(|l| **l == s).count();
    // Shape's 17 receivers run the inlined copy (Square, which inherits,
    // may or may not, depending on the guard's test).
    assert!(count("slow Shape.area") <= 1, "{}", m.stdout);
    // The overriding subclass and the other class take the slow path, and
    // it runs their own methods.
    assert_eq!(count("slow Circle.area"), 1, "{}", m.stdout);
    assert_eq!(count("slow Blob.area"), 1, "{}", m.stdout);
    let unmarked: String = lines
        .iter()
        .filter(|l| !l.starts_with("slow "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(unmarked, expected);
    let at = |s: &str| lines.iter().position(|l| *l == s).unwrap();
    assert_eq!(lines[at("slow Circle.area") + 1], "30");
    assert_eq!(lines[at("slow Blob.area") + 1], "40");
}
