//! Profiling never changes what a generated program does: a seeded
//! generator writes random programs (docs/LANGUAGE.md) that combine
//!
//! - class trees (one or two roots with a field, subclasses that override
//!   or inherit the virtual methods `val` and `bump`) and polymorphic
//!   `callvirt` sites whose receivers come from "maker" methods choosing
//!   the class from a value, one class dominant;
//! - static calls between methods that call each other and themselves,
//!   bounded by a depth parameter and by a call budget kept in a
//!   `Budget` object of the calling thread; a plain recursion 40 to 300
//!   frames deep; loops, and a hot loop in `main`;
//! - exceptions (integers, strings, and in `main`'s thread objects)
//!   thrown by static and virtual methods, caught several frames up, or
//!   escaping a worker thread (printed by it, rethrown by `join` and
//!   caught in `main`) or `main` itself (status 70);
//! - worker threads that cannot race: each computes only from its
//!   argument and objects of its own, adds to a global with `addglobal`
//!   (whose result it drops) and returns a number; `main` spawns them all,
//!   joins them all, and only then reads the global. Only `main`'s thread
//!   prints on stdout (a `loud` field of its `Budget` gates every print),
//!   so stdout has one order;
//! - sometimes a runtime error (division by zero, a `null` receiver, an
//!   index out of bounds, `add` on a string) or `halt`, also gated by
//!   `loud`, so they happen in `main`'s thread while no worker runs.
//!
//! Each program runs once plainly and then under the whole configuration
//! matrix of [`configurations`] (every seed runs every configuration;
//! the numeric settings and optional flags of each configuration are drawn
//! per seed, so that across the seeds each is hit many times). Every run
//! must end with the plain run's status, print its exact stdout, and the
//! same stderr compared as blocks (a line and the indented trace lines
//! under it) in sorted order: workers that die of an exception print their
//! blocks in an order that depends on timing. Under `--adaptive` the trace
//! lines are left out of the comparison: recompiled code has no frames
//! for the methods it inlined (docs/ADAPTIVE.md), as in
//! `inline_generated.rs`. No configuration here adds a line to stderr
//! (`--report` and `--print-compilation` are off), so nothing else is
//! filtered out.
//!
//! The matrix: `--profile=none`; exhaustive with `dcg` and `cct`; for each
//! of timer, cbs and counter every `--record` with every walk that applies
//! (`dcg` `top`; `cct` `full`, `marked`, `incremental`; `pcct` and `acct`
//! `marked`; `ccmap` `full` and `marked`), with, drawn per seed, the timer
//! on the wall clock under `--sampler=safepoint|partial|self` at
//! `--interval=100us` or on the virtual clock with `--seed`, cbs on either
//! clock, `--max-walk`, `--acct-update=all-new-edges`,
//! `--sampled-bit=return-address`, `--purge`, `--tune`, and `dcg` added
//! to a tree; and `--adaptive` with its default cbs, with timer and with
//! counter. [`flags_are_all_exercised`] checks that every one of these
//! flags is drawn for several seeds.
//!
//! A failure names the seed, the configuration and the exact command, run
//! in the seed's directory under the scratch directory
//! (`target/tmp/e2e/generated/sSEED`), where the program stays as
//! `genSEED.bc`. `VM_GEN_SEED=N cargo test --profile quicktest --test e2e generated`
//! checks only seed N (the assertions over all seeds are then skipped);
//! `VM_GEN_SEEDS=N` checks seeds 0 to N-1 instead of the default
//! [`PROGRAMS`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::gen::{self, Base};
use crate::harness::{self, scratch, write_program};

/// How many programs the test generates by default.
const PROGRAMS: u64 = 48;

/// The virtual methods every class has (defined or inherited); both take
/// a budget, a depth and a value besides the receiver.
const SELECTORS: [&str; 2] = ["val", "bump"];

/// A class of a generated program.
struct Class {
    name: String,
    parent: Option<usize>,
    /// Which of [`SELECTORS`] it defines (a root defines both).
    defines: [bool; 2],
}

/// A random program, deterministic for its seed.
struct Gen {
    b: Base,
    classes: Vec<Class>,
    statics: usize,
    makers: usize,
}

impl Gen {
    /// Two roots at most, the other classes below a random earlier one.
    fn classes(b: &mut Base) -> Vec<Class> {
        let n = b.range(2, 6) as usize;
        let mut v: Vec<Class> = Vec::new();
        for c in 0..n {
            let parent = if c == 0 || (c == 1 && b.chance(40)) {
                None
            } else {
                Some(b.pick(c))
            };
            let defines = match parent {
                None => [true, true],
                Some(_) => [b.chance(50), b.chance(50)],
            };
            v.push(Class {
                name: format!("K{c}"),
                parent,
                defines,
            });
        }
        v
    }

    /// Jumps over what follows unless `thread`'s budget is loud (`main`'s
    /// thread); returns the label to place after it.
    fn if_loud(&mut self, body: &mut String) -> String {
        let skip = self.b.label("quiet");
        let _ = write!(body, "  load b\n  getfield Budget.loud\n  jz {skip}\n");
        skip
    }

    /// Jumps over what follows unless `v + x` is a multiple of `k`;
    /// returns the label to place after it.
    fn unless_multiple(&mut self, body: &mut String, v: &str, k: u32) -> String {
        let skip = self.b.label("skip");
        let _ = write!(
            body,
            "  load {v}\n  load x\n  add\n  push {k}\n  rem\n  jnz {skip}\n"
        );
        skip
    }

    /// Takes one call from the budget `b`, or jumps to the returned label
    /// when it is spent.
    fn spend(&mut self, body: &mut String) -> String {
        let skip = self.b.label("spent");
        let _ = write!(
            body,
            "  load b\n  getfield Budget.left\n  push 0\n  jle {skip}\n  \
             load b\n  load b\n  getfield Budget.left\n  push 1\n  sub\n  putfield Budget.left\n"
        );
        skip
    }

    /// `v = (v + CALL) rem 1000003` for a budgeted static or virtual call
    /// at depth `d - 1`, the old `v` staying on the stack under the call.
    fn call(&mut self, body: &mut String, v: &str) {
        let skip = self.spend(body);
        let c = self.b.range(0, 60);
        if self.b.chance(50) {
            let m = self.b.pick(self.statics);
            let _ = write!(
                body,
                "  load {v}\n  load b\n  load d\n  push 1\n  sub\n  load x\n  push {c}\n  add\n  call m{m}\n"
            );
        } else {
            let mk = self.b.pick(self.makers);
            let sel = SELECTORS[self.b.pick(2)];
            let c2 = self.b.range(0, 60);
            let _ = write!(
                body,
                "  load {v}\n  load x\n  push {c}\n  add\n  call mk{mk}\n  load b\n  load d\n  push 1\n  sub\n  \
                 load {v}\n  push {c2}\n  add\n  callvirt {sel}\n"
            );
        }
        let _ = write!(body, "  add\n  push 1000003\n  rem\n  store {v}\n{skip}:\n");
    }

    /// A throw of an integer, a string or (in `main`'s thread only) an
    /// object when `v + x` is a multiple of a random `k`.
    fn maybe_throw(&mut self, body: &mut String, v: &str, what: &str) {
        let k = self.b.range(3, 30);
        let skip = self.unless_multiple(body, v, k);
        match self.b.pick(5) {
            0 | 1 => {
                let _ = writeln!(body, "  push \"{what}\"\n  throw");
            }
            2 | 3 => {
                let _ = writeln!(body, "  load {v}\n  throw");
            }
            _ => {
                // Objects stay in their thread: only main's throws them.
                let quiet = self.if_loud(body);
                let c = &self.classes[self.b.pick(self.classes.len())].name;
                let _ = write!(body, "  new {c}\n  throw\n{quiet}:\n");
            }
        }
        let _ = writeln!(body, "{skip}:");
    }

    /// A runtime error or a `halt` in `main`'s thread, when `a + x` is a
    /// multiple of a random `k`.
    fn maybe_die(&mut self, body: &mut String) {
        let quiet = self.if_loud(body);
        let k = self.b.range(2, 12);
        let skip = self.unless_multiple(body, "a", k);
        match self.b.pick(8) {
            0 => body.push_str("  push 1\n  push 0\n  div\n  pop\n"),
            1 => body.push_str("  null\n  load b\n  load d\n  load x\n  callvirt val\n  pop\n"),
            2 => body.push_str("  push 3\n  newarray\n  push 3\n  aload\n  pop\n"),
            3 => body.push_str("  push \"s\"\n  push 1\n  add\n  pop\n"),
            _ => {
                let _ = write!(body, "  push {}\n  halt\n", self.b.range(3, 120));
            }
        }
        let _ = write!(body, "{skip}:\n{quiet}:\n");
    }

    /// `stmt` inside a `.catch` range whose handler prints the value in
    /// `main`'s thread and adds 1 to `v`.
    fn tried(&mut self, body: &mut String, catches: &mut Vec<String>, v: &str, stmt: &str) {
        let (from, to) = (self.b.label("try"), self.b.label("tried"));
        let (handler, after) = (self.b.label("catch"), self.b.label("after"));
        let _ = write!(
            body,
            "{from}:\n{stmt}{to}:\n  jmp {after}\n{handler}:\n  store e\n"
        );
        let quiet = self.if_loud(body);
        let _ = write!(body, "  load e\n  print\n{quiet}:\n  inc {v} 1\n{after}:\n");
        catches.push(format!("  .catch {from} {to} {handler}\n"));
    }

    /// A loop of 1 to 4 iterations around `stmt`, counting in local `i`.
    fn looped(&mut self, body: &mut String, stmt: &str) {
        let (top, end) = (self.b.label("top"), self.b.label("end"));
        let n = self.b.range(1, 4);
        let _ = write!(
            body,
            "  push {n}\n  store i\n{top}:\n  load i\n  jz {end}\n  inc i -1\n{stmt}  jmp {top}\n{end}:\n"
        );
    }

    /// `mK(b, d, x)`: statements of budgeted calls (some in loops and
    /// `.catch` ranges), arithmetic, prints, throws, deaths.
    fn static_method(&mut self, k: usize) -> String {
        let mut body = String::from("  load d\n  push 0\n  jgt go\n  load x\n  ret\ngo:\n");
        let mut catches = Vec::new();
        for _ in 0..self.b.range(1, 5) {
            match self.b.pick(100) {
                0..=29 => self.call(&mut body, "a"),
                30..=44 => {
                    let mut stmt = String::new();
                    self.call(&mut stmt, "a");
                    if self.b.chance(30) {
                        let mut inner = String::new();
                        self.tried(&mut inner, &mut catches, "a", &stmt);
                        stmt = inner;
                    }
                    self.looped(&mut body, &stmt);
                }
                45..=62 => {
                    let mut stmt = String::new();
                    if self.b.chance(30) {
                        let mut call = String::new();
                        self.call(&mut call, "a");
                        self.looped(&mut stmt, &call);
                    } else {
                        self.call(&mut stmt, "a");
                    }
                    self.tried(&mut body, &mut catches, "a", &stmt);
                }
                63..=70 => body.push_str(
                    "  load a\n  load x\n  add\n  push 7\n  mul\n  push 1000\n  rem\n  store a\n",
                ),
                71..=76 => {
                    let quiet = self.if_loud(&mut body);
                    let _ = write!(body, "  load a\n  print\n{quiet}:\n");
                }
                77..=80 => {
                    let c = self.b.range(1, 9);
                    let _ = write!(
                        body,
                        "  load a\n  push {c}\n  add\n  addglobal total\n  pop\n"
                    );
                }
                81..=89 => self.maybe_throw(&mut body, "a", &format!("m{k}")),
                _ => self.maybe_die(&mut body),
            }
        }
        body.push_str("  load a\n  load x\n  add\n  push 1000003\n  rem\n  ret\n");
        format!(
            ".method m{k}(b, d, x)\n  .locals a i e\n{}{body}.end\n\n",
            catches.concat()
        )
    }

    /// `C.sel(this, b, d, x)`: reads and may write the receiver's field,
    /// may make a budgeted call, `bump` may call `val` on itself, may loop
    /// and throw.
    fn virtual_method(&mut self, class: &str, sel: usize) -> String {
        let mut body = String::new();
        let _ = write!(
            body,
            "  load this\n  getfield {class}.f\n  load x\n  add\n  push {}\n  add\n  store t\n",
            self.b.range(0, 99)
        );
        if self.b.chance(50) {
            let _ = write!(
                body,
                "  load this\n  load t\n  push 1000\n  rem\n  putfield {class}.f\n"
            );
        }
        if self.b.chance(40) {
            body.push_str("  load d\n  push 0\n  jle shallow\n");
            self.call(&mut body, "t");
            body.push_str("shallow:\n");
        }
        if sel == 1 && self.b.chance(50) {
            body.push_str(
                "  load t\n  load this\n  load b\n  load d\n  load x\n  callvirt val\n  add\n  store t\n",
            );
        }
        if self.b.chance(20) {
            let (top, end) = (self.b.label("vtop"), self.b.label("vend"));
            let n = self.b.range(1, 4);
            let _ = write!(
                body,
                "  push {n}\n  store u\n{top}:\n  load u\n  jz {end}\n  inc u -1\n  inc t 3\n  jmp {top}\n{end}:\n"
            );
        }
        if self.b.chance(30) {
            self.maybe_throw(&mut body, "t", &format!("{class}.{}", SELECTORS[sel]));
        }
        body.push_str("  load t\n  push 100000\n  rem\n  ret\n");
        format!(
            ".method {class}.{}(this, b, d, x)\n  .locals t u\n{body}.end\n\n",
            SELECTORS[sel]
        )
    }

    /// `mkK(i)`: a new object whose class depends on `i rem 10`, one class
    /// (at random) taking most of the ten values.
    fn maker(&mut self, k: usize) -> String {
        let n = self.classes.len();
        let dominant = self.b.pick(n);
        let share = self.b.range(5, 9) as usize;
        let mut table: Vec<usize> = vec![dominant; share];
        while table.len() < 10 {
            table.push(self.b.pick(n));
        }
        let mut body = String::from("  load i\n  push 10\n  rem\n  store r\n");
        for v in 1..table.len() {
            let _ = write!(body, "  load r\n  push {v}\n  jeq is{v}\n");
        }
        let _ = write!(body, "  new {}\n  ret\n", self.classes[table[0]].name);
        for (v, c) in table.iter().enumerate().skip(1) {
            let _ = write!(body, "is{v}:\n  new {}\n  ret\n", self.classes[*c].name);
        }
        format!(".method mk{k}(i)\n  .locals r\n{body}.end\n\n")
    }

    /// `deep(b, n)`: a plain recursion `n` frames deep, which may throw
    /// at the bottom (caught, if at all, in its caller's frame, `n`
    /// frames up).
    fn deep(&mut self) -> String {
        let bottom = if self.b.chance(30) {
            "  push \"bottom\"\n  throw\n"
        } else {
            "  push 0\n  ret\n"
        };
        format!(
            ".method deep(b, n)\n  load n\n  jz bottom\n  load n\n  load b\n  load n\n  push 1\n  sub\n  \
             call deep\n  add\n  ret\nbottom:\n{bottom}.end\n\n"
        )
    }

    /// `wK(x)`: a worker: a budget of its own (quiet), a loop of budgeted
    /// calls, the result added to `total` and returned.
    fn worker(&mut self, k: usize) -> String {
        let n = self.b.range(20, 300);
        let budget = self.b.range(20, 200);
        let d = self.b.range(2, 8);
        let mut catches = Vec::new();
        let mut stmt = format!("  load b\n  push {budget}\n  putfield Budget.left\n");
        let mut call = String::from("  load r\n");
        if self.b.chance(60) {
            let m = self.b.pick(self.statics);
            let _ = write!(
                call,
                "  load b\n  push {d}\n  load x\n  load i\n  add\n  call m{m}\n"
            );
        } else if self.b.chance(70) {
            let mk = self.b.pick(self.makers);
            let sel = SELECTORS[self.b.pick(2)];
            let _ = write!(
                call,
                "  load i\n  call mk{mk}\n  load b\n  push {d}\n  load x\n  load i\n  add\n  callvirt {sel}\n"
            );
        } else {
            let _ = write!(
                call,
                "  load b\n  push {}\n  call deep\n",
                self.b.range(10, 100)
            );
        }
        call.push_str("  add\n  push 1000003\n  rem\n  store r\n");
        if self.b.chance(70) {
            self.tried(&mut stmt, &mut catches, "r", &call);
        } else {
            stmt.push_str(&call);
        }
        let body = format!(
            "  new Budget\n  store b\n  push {n}\n  store i\ntop:\n  load i\n  jz end\n  inc i -1\n{stmt}  \
             jmp top\nend:\n  load r\n  addglobal total\n  pop\n  load r\n  ret\n"
        );
        format!(
            ".method w{k}(x)\n  .locals b r i e\n{}{body}.end\n\n",
            catches.concat()
        )
    }

    /// `main()`: calls and prints with a loud budget, a hot loop, a deep
    /// recursion; the workers spawned and joined; more calls.
    fn main(&mut self, workers: usize) -> String {
        let mut catches = Vec::new();
        let mut body = String::from(
            "  new Budget\n  store b\n  load b\n  push 1\n  putfield Budget.loud\n  new Budget\n  store q\nmstart:\n",
        );
        let phase = |g: &mut Gen, body: &mut String, catches: &mut Vec<String>| {
            for first in (0..g.b.range(1, 3)).map(|k| k == 0) {
                let budget = g.b.range(20, 300);
                let _ = write!(body, "  load b\n  push {budget}\n  putfield Budget.left\n");
                let d = g.b.range(2, 8);
                let x = g.b.range(0, 99);
                let hot = first && g.b.chance(70);
                match if hot { 8 } else { g.b.pick(8) } {
                    0..=3 => {
                        let m = g.b.pick(g.statics);
                        let _ = write!(
                            body,
                            "  load b\n  push {d}\n  push {x}\n  call m{m}\n  print\n"
                        );
                    }
                    4..=6 => {
                        let mk = g.b.pick(g.makers);
                        let sel = SELECTORS[g.b.pick(2)];
                        let _ = write!(
                            body,
                            "  push {x}\n  call mk{mk}\n  load b\n  push {d}\n  push {}\n  callvirt {sel}\n  print\n",
                            g.b.range(0, 99)
                        );
                    }
                    7 => {
                        let _ = write!(
                            body,
                            "  load b\n  push {}\n  call deep\n  print\n",
                            g.b.range(40, 300)
                        );
                    }
                    _ => {
                        // A hot loop, long enough in some programs for
                        // `--adaptive` to recompile what it calls.
                        let n = if g.b.chance(15) {
                            g.b.range(5000, 15000)
                        } else {
                            g.b.range(100, 1500)
                        };
                        // Its calls use the quiet budget `q` (no prints,
                        // no deaths); what they throw is caught and
                        // counted in `total`.
                        let m = g.b.pick(g.statics);
                        let (top, end) = (g.b.label("hot"), g.b.label("cold"));
                        let (from, to) = (g.b.label("hottry"), g.b.label("hottried"));
                        let (handler, next) = (g.b.label("hotcatch"), g.b.label("hotnext"));
                        let _ = write!(
                            body,
                            "  push {n}\n  store i\n{top}:\n  load i\n  jz {end}\n  inc i -1\n  \
                             load q\n  push {}\n  putfield Budget.left\n{from}:\n  load q\n  push {d}\n  load i\n  \
                             call m{m}\n  addglobal total\n  pop\n{to}:\n  jmp {next}\n{handler}:\n  pop\n  \
                             push 1000\n  addglobal total\n  pop\n{next}:\n  jmp {top}\n{end}:\n  getglobal total\n  print\n",
                            g.b.range(5, 40)
                        );
                        catches.push(format!("  .catch {from} {to} {handler}\n"));
                    }
                }
            }
        };
        phase(self, &mut body, &mut catches);
        let rethrow = self.b.chance(50);
        for k in 0..workers {
            let _ = write!(
                body,
                "  push {}\n  spawn w{k}\n  store t{k}\n",
                self.b.range(0, 99)
            );
        }
        for k in 0..workers {
            // A worker's uncaught exception is rethrown by `join`: caught
            // here, so that main joins every worker before it can die.
            let _ = write!(
                body,
                "j{k}:\n  load t{k}\n  join\n  store r{k}\nj{k}e:\n  jmp n{k}\nh{k}:\n  store r{k}\n  \
                 push \"worker {k} threw\"\n  print\n"
            );
            if rethrow {
                let _ = write!(body, "  load r{k}\n  store e\n");
            }
            let _ = writeln!(body, "n{k}:");
            catches.push(format!("  .catch j{k} j{k}e h{k}\n"));
        }
        for k in 0..workers {
            let _ = write!(body, "  load r{k}\n  print\n");
        }
        if workers > 0 {
            body.push_str("  getglobal total\n  print\n");
        }
        if rethrow {
            body.push_str("  load e\n  jz norethrow\n  load e\n  throw\nnorethrow:\n");
        }
        phase(self, &mut body, &mut catches);
        body.push_str("  getglobal total\n  print\nmend:\n  push 0\n  ret\n");
        if self.b.chance(50) {
            body.push_str("mhandler:\n  print\n  getglobal total\n  print\n  push 0\n  ret\n");
            catches.push("  .catch mstart mend mhandler\n".to_string());
        }
        let mut locals = String::from("b q e i");
        for k in 0..workers {
            let _ = write!(locals, " t{k} r{k}");
        }
        format!(
            ".method main()\n  .locals {locals}\n{}{body}.end\n",
            catches.concat()
        )
    }

    fn program(seed: u64) -> String {
        let mut b = Base::new(seed);
        let classes = Gen::classes(&mut b);
        let mut g = Gen {
            statics: b.range(2, 5) as usize,
            makers: b.range(1, 2) as usize,
            b,
            classes,
        };
        let mut out = format!(
            "; generated by tests/e2e/generated.rs, seed {seed}\n.global total\n\n\
             .class Budget\n  .field left\n  .field loud\n.end\n"
        );
        for c in &g.classes {
            match c.parent {
                None => {
                    let _ = write!(out, ".class {}\n  .field f\n.end\n", c.name);
                }
                Some(p) => {
                    let _ = write!(out, ".class {} : {}\n.end\n", c.name, g.classes[p].name);
                }
            }
        }
        out.push('\n');
        for k in 0..g.statics {
            out.push_str(&g.static_method(k));
        }
        for c in 0..g.classes.len() {
            for s in 0..2 {
                if g.classes[c].defines[s] {
                    let name = g.classes[c].name.clone();
                    out.push_str(&g.virtual_method(&name, s));
                }
            }
        }
        for k in 0..g.makers {
            out.push_str(&g.maker(k));
        }
        out.push_str(&g.deep());
        let workers = if g.b.chance(20) {
            0
        } else {
            g.b.range(1, 4) as usize
        };
        for k in 0..workers {
            out.push_str(&g.worker(k));
        }
        out.push_str(&g.main(workers));
        out
    }
}

/// The configuration matrix every program runs under (see the module
/// docs); the settings each draws are deterministic for the seed.
fn configurations(seed: u64) -> Vec<Vec<String>> {
    let mut rng = StdRng::seed_from_u64(seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut out: Vec<Vec<String>> = vec![
        vec!["--profile=none".into()],
        vec!["--profile=exhaustive".into(), "--record=dcg".into()],
        vec!["--profile=exhaustive".into(), "--record=dcg,cct".into()],
    ];
    let records: [(&str, &[&str]); 5] = [
        ("dcg", &["top"]),
        ("cct", &["full", "marked", "incremental"]),
        ("pcct", &["marked"]),
        ("acct", &["marked"]),
        ("ccmap", &["full", "marked"]),
    ];
    for profile in ["timer", "cbs", "counter"] {
        for (record, walks) in records {
            for walk in walks {
                let mut c = vec![format!("--profile={profile}")];
                let virtual_clock = profile != "counter" && rng.random_range(0..3) == 0;
                match profile {
                    "counter" => {
                        c.push(format!("--every={}", rng.random_range(1..=5)));
                        c.push(format!("--seed={seed}"));
                    }
                    _ if virtual_clock => {
                        c.push("--clock=virtual".into());
                        c.push(format!("--interval={}us", rng.random_range(2..=20)));
                        c.push(format!("--seed={seed}"));
                    }
                    _ => c.push("--interval=100us".into()),
                }
                if profile == "timer" && !virtual_clock {
                    let s = ["safepoint", "partial", "self"][rng.random_range(0..3)];
                    c.push(format!("--sampler={s}"));
                }
                if profile == "cbs" {
                    c.push(format!("--stride={}", rng.random_range(1..=3)));
                    c.push(format!("--samples={}", rng.random_range(4..=16)));
                }
                let with_dcg = record != "dcg" && rng.random_range(0..2) == 0;
                c.push(format!(
                    "--record={}{record}",
                    if with_dcg { "dcg," } else { "" }
                ));
                // The default walk is sometimes left implicit.
                let default = matches!(
                    (record, *walk),
                    ("dcg", "top") | ("pcct" | "acct", "marked") | ("cct" | "ccmap", "full")
                );
                if !default || rng.random_range(0..3) != 0 {
                    c.push(format!("--walk={walk}"));
                }
                if matches!(*walk, "full" | "marked")
                    && record != "acct"
                    && rng.random_range(0..3) == 0
                {
                    c.push(format!("--max-walk={}", rng.random_range(1..=8)));
                }
                if record == "acct" {
                    if rng.random_range(0..2) == 0 {
                        c.push("--acct-update=all-new-edges".into());
                    }
                    if rng.random_range(0..2) == 0 {
                        c.push("--sampled-bit=return-address".into());
                    }
                }
                if record == "pcct" && rng.random_range(0..2) == 0 {
                    c.push(format!("--purge={}", rng.random_range(2..=10)));
                }
                if rng.random_range(0..4) == 0 {
                    c.push("--tune".into());
                }
                out.push(c);
            }
        }
    }
    out.push(vec!["--adaptive".into()]);
    out.push(vec![
        "--adaptive".into(),
        "--profile=timer".into(),
        "--interval=100us".into(),
    ]);
    out.push(vec![
        "--adaptive".into(),
        "--profile=counter".into(),
        format!("--every={}", rng.random_range(1..=10)),
    ]);
    out
}

/// stderr as blocks (a line and the indented lines under it, a trace),
/// sorted: workers print theirs in an order that depends on timing.
/// Without `traces`, the indented lines are left out.
fn blocks(stderr: &str, traces: bool) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for line in stderr.lines() {
        match v.last_mut() {
            Some(b) if line.starts_with("  ") => {
                if traces {
                    b.push('\n');
                    b.push_str(line);
                }
            }
            _ => v.push(line.to_string()),
        }
    }
    v.sort();
    v
}

/// How the plain run of a program ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ending {
    /// Status 0, nothing on stderr.
    Clean,
    /// Status 0 after a worker died of an exception.
    WorkerThrew,
    /// Status 70: an exception escaped `main`.
    Uncaught,
    /// Status 70: a runtime error.
    RuntimeError,
    /// Another status: `halt`.
    Halt,
}

fn ending(status: Option<i32>, stderr: &str) -> Ending {
    match status {
        Some(0) if stderr.contains("uncaught exception: ") => Ending::WorkerThrew,
        Some(0) => Ending::Clean,
        Some(70) if stderr.contains("runtime error: ") => Ending::RuntimeError,
        Some(70) => Ending::Uncaught,
        _ => Ending::Halt,
    }
}

/// What one program's checks found: how it ended, and which flags its
/// configurations used.
struct Checked {
    ending: Ending,
    flags: BTreeSet<String>,
}

fn check_program(dir: &Path, seed: u64) -> Result<Checked, String> {
    let name = format!("gen{seed}.bc");
    write_program(dir, &name, &Gen::program(seed));
    let replay = format!(
        "replay: VM_GEN_SEED={seed} cargo test --profile quicktest --test e2e generated; \
         the program is {}",
        dir.join(&name).display()
    );
    let plain = gen::run(dir, &name, &[]).map_err(|e| format!("seed {seed}: {e}\n{replay}"))?;
    if plain.status == Some(65) {
        return Err(format!(
            "seed {seed}: the generator wrote an invalid program:\n{}\n{replay}",
            harness::clip(&plain.stderr)
        ));
    }
    let mut failures = Vec::new();
    let mut flags = BTreeSet::new();
    for config in configurations(seed) {
        for f in &config {
            flags.insert(f.clone());
            if let Some((name, _)) = f.split_once('=') {
                flags.insert(name.to_string());
            }
        }
        let r = match gen::run(dir, &name, &config) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("seed {seed}, {}: {e}", config.join(" ")));
                continue;
            }
        };
        // Recompiled code has no frames for the methods it inlined
        // (docs/ADAPTIVE.md): traces are compared only without it.
        let traces = !config.iter().any(|f| f == "--adaptive");
        let (got, want) = (blocks(&r.stderr, traces), blocks(&plain.stderr, traces));
        if r.status != plain.status || r.stdout != plain.stdout || got != want {
            failures.push(format!(
                "seed {seed}, configuration {}: `cd {} && {}`: status {:?} (plain {:?}); stdout {}; stderr {}",
                config.join(" "),
                dir.display(),
                r.cmd,
                r.status,
                plain.status,
                if r.stdout == plain.stdout {
                    "same".to_string()
                } else {
                    format!(
                        "differs:\n{}--- plain:\n{}",
                        harness::clip(&r.stdout),
                        harness::clip(&plain.stdout)
                    )
                },
                if got == want {
                    "same".to_string()
                } else {
                    format!(
                        "differs:\n{}--- plain:\n{}",
                        harness::clip(&r.stderr),
                        harness::clip(&plain.stderr)
                    )
                },
            ));
        }
    }
    if failures.is_empty() {
        let _ = std::fs::remove_file(dir.join(&name));
        Ok(Checked {
            ending: ending(plain.status, &plain.stderr),
            flags,
        })
    } else {
        failures.push(replay);
        Err(failures.join("\n"))
    }
}

/// A number from the environment variable `var`, if set.
fn env_number(var: &str) -> Option<u64> {
    let v = std::env::var(var).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{var}={v:?} is not a number")),
    )
}

#[test]
fn generated_programs_behave_the_same_under_every_configuration() {
    if let Some(seed) = env_number("VM_GEN_SEED") {
        let dir = scratch("generated").join(format!("s{seed}"));
        std::fs::create_dir_all(&dir).expect("scratch");
        if let Err(e) = check_program(&dir, seed) {
            panic!("{e}");
        }
        return;
    }
    let count = env_number("VM_GEN_SEEDS").unwrap_or(PROGRAMS);
    let start = std::time::Instant::now();
    let checked = harness::check_seeds("generated", count, check_program);
    let mut endings = BTreeMap::new();
    for c in &checked {
        *endings.entry(c.ending).or_insert(0u64) += 1;
    }
    eprintln!(
        "generated: {count} programs x {} configurations in {:.1?}; endings {endings:?}",
        configurations(0).len(),
        start.elapsed()
    );
    // Every kind of ending is reached (not every program quietly
    // returning), and every flag of the matrix is drawn for several seeds.
    assert!(
        endings.len() == 5 && endings.values().all(|&n| n >= 2 && n * 30 >= count),
        "endings: {endings:?}"
    );
    flags_are_all_exercised(checked.iter().flat_map(|c| c.flags.iter()), count);
}

/// Every flag (and every value of the flags whose values matter) of the
/// matrix appears for at least a tenth of the `count` seeds.
fn flags_are_all_exercised<'a>(flags: impl Iterator<Item = &'a String>, count: u64) {
    let mut seen: BTreeMap<&str, u64> = BTreeMap::new();
    for f in flags {
        *seen.entry(f.as_str()).or_insert(0) += 1;
    }
    let want = [
        "--profile=none",
        "--profile=exhaustive",
        "--profile=timer",
        "--profile=cbs",
        "--profile=counter",
        "--adaptive",
        "--clock=virtual",
        "--seed",
        "--interval",
        "--sampler=safepoint",
        "--sampler=partial",
        "--sampler=self",
        "--every",
        "--stride",
        "--samples",
        "--walk=top",
        "--walk=full",
        "--walk=marked",
        "--walk=incremental",
        "--max-walk",
        "--acct-update=all-new-edges",
        "--sampled-bit=return-address",
        "--purge",
        "--tune",
    ];
    let mut missing = Vec::new();
    for w in want {
        let n = seen.get(w).copied().unwrap_or(0);
        if n * 10 < count {
            missing.push(format!("{w}: {n}"));
        }
    }
    for r in ["dcg", "cct", "pcct", "acct", "ccmap"] {
        let n: u64 = seen
            .iter()
            .filter(|(f, _)| {
                f.strip_prefix("--record=")
                    .is_some_and(|l| l.split(',').any(|x| x == r))
            })
            .map(|(_, n)| n)
            .sum();
        if n * 10 < count {
            missing.push(format!("--record with {r}: {n}"));
        }
    }
    assert!(missing.is_empty(), "flags drawn too rarely: {missing:?}");
}

#[test]
fn generated_programs_are_deterministic_and_valid() {
    harness::assert_generator_valid("generated-valid", Gen::program);
}
