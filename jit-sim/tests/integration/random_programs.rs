//! Generated programs with static and virtual calls, subclass overrides,
//! loops, exceptions caught at various depths and values left on the stack
//! under calls: with every call site inlined (every class guarded), each
//! must print the same output and end with the same status.
//!
//! The generator is a seeded xorshift, so a failure names its seed and
//! reproduces.

use jit_sim::inline::{format_outcomes, inline, Budget, CallSite, Decision, Target};
use vm::loader::Program;
use vm::module::{Module, Op};
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

struct Gen {
    rng: Rng,
    out: String,
    labels: u32,
    /// Static methods that may be called from the one being generated.
    callable: usize,
    /// The current method's `.locals` and `.catch` ranges, collected while
    /// its body is written.
    locals: Vec<String>,
    catches: Vec<(String, String, String)>,
}

const LOCALS: [&str; 4] = ["a", "b", "t", "u"];

impl Gen {
    fn line(&mut self, s: &str) {
        self.out.push_str("  ");
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels)
    }

    /// Pushes one value (stack +1).
    fn expr(&mut self, depth: u32) {
        let r = if depth == 0 {
            self.rng.below(2)
        } else {
            self.rng.below(8)
        };
        match r {
            0 => {
                let l = LOCALS[self.rng.below(4) as usize];
                self.line(&format!("load {l}"));
            }
            1 => {
                let k = self.rng.below(21) as i64 - 10;
                self.line(&format!("push {k}"));
            }
            2 | 3 => {
                self.expr(depth - 1);
                self.expr(depth - 1);
                let op = ["add", "sub", "mul", "xor"][self.rng.below(4) as usize];
                self.line(op);
            }
            4 | 5 if self.callable > 0 => {
                let j = self.rng.below(self.callable as u64);
                self.expr(depth - 1);
                self.expr(depth - 1);
                self.line(&format!("call m{j}"));
            }
            6 => {
                // A virtual call on a fresh object of a class chosen at run
                // time.
                self.expr(depth - 1);
                self.line("call mk");
                self.expr(depth - 1);
                let sel = ["val", "twice"][self.rng.below(2) as usize];
                self.line(&format!("callvirt {sel}"));
            }
            _ => {
                self.expr(depth - 1);
                self.line("push 7");
                self.line("rem");
            }
        }
    }

    /// A stack-neutral statement.
    fn stmt(&mut self, depth: u32) {
        match self.rng.below(if depth == 0 { 3 } else { 7 }) {
            0 => {
                self.expr(2);
                let l = ["t", "u"][self.rng.below(2) as usize];
                self.line(&format!("store {l}"));
            }
            1 => {
                self.expr(2);
                self.line("print");
            }
            2 => {
                // Throw when an expression is divisible by 5.
                let skip = self.label();
                self.expr(2);
                self.line("push 5");
                self.line("rem");
                self.line(&format!("jnz {skip}"));
                let k = self.rng.below(100);
                self.line(&format!("push \"boom {k}\""));
                self.line("throw");
                self.out.push_str(&format!("{skip}:\n"));
            }
            3 => {
                let (els, end) = (self.label(), self.label());
                self.expr(1);
                self.line(&format!("jz {els}"));
                self.stmt(depth - 1);
                self.line(&format!("jmp {end}"));
                self.out.push_str(&format!("{els}:\n"));
                self.stmt(depth - 1);
                self.out.push_str(&format!("{end}:\n"));
            }
            4 => {
                // A short loop on its own counter (a fresh local, so the
                // body cannot reset it).
                let top = self.label();
                let c = format!("c{}", self.labels);
                self.locals.push(c.clone());
                self.line("push 0");
                self.line(&format!("store {c}"));
                self.out.push_str(&format!("{top}:\n"));
                self.stmt(depth - 1);
                self.line(&format!("inc {c} 1"));
                self.line(&format!("load {c}"));
                let n = 1 + self.rng.below(3);
                self.line(&format!("push {n}"));
                self.line(&format!("jlt {top}"));
            }
            _ => {
                // try { stmt } catch (e) { print e }
                let (s, e, h, after) = (self.label(), self.label(), self.label(), self.label());
                self.catches.push((s.clone(), e.clone(), h.clone()));
                self.out.push_str(&format!("{s}:\n"));
                self.stmt(depth - 1);
                self.stmt(depth - 1);
                self.out.push_str(&format!("{e}:\n"));
                self.line(&format!("jmp {after}"));
                self.out.push_str(&format!("{h}:\n"));
                self.line("print");
                self.out.push_str(&format!("{after}:\n"));
            }
        }
    }
}

// The generator collects each method's extra locals and catches while
// writing its body, then puts the header in front.
impl Gen {
    fn method(&mut self, name: &str, index: usize) -> String {
        self.callable = index;
        self.locals = vec!["t".into(), "u".into()];
        self.catches.clear();
        let body_start = self.out.len();
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            self.stmt(2);
        }
        // Return with 0-2 extra values under the result.
        for _ in 0..self.rng.below(3) {
            self.line("push 1");
        }
        self.line("load t");
        self.line("load u");
        self.line("add");
        self.line("ret");
        let body = self.out.split_off(body_start);
        let mut header = format!(
            ".method {name}(a, b)\n  .locals {}\n",
            self.locals.join(" ")
        );
        for (s, e, h) in &self.catches {
            header.push_str(&format!("  .catch {s} {e} {h}\n"));
        }
        format!("{header}{body}.end\n\n")
    }
}

const PRELUDE: &str = r#"
.class Base
.end
.class Mid : Base          ; inherits val and twice
.end
.class Leaf : Mid          ; overrides val
.end
.class Other               ; unrelated, its val may throw
.end

.method mk(k)
  load k
  push 3
  and
  dup
  jz base
  dup
  push 1
  jeq mid
  push 2
  jeq leaf
  new Other
  ret
base:
  pop
  new Base
  ret
mid:
  pop
  new Mid
  ret
leaf:
  new Leaf
  ret
.end

.method Base.val(this, x)
  load x
  push 1
  add
  ret
.end
.method Leaf.val(this, x)
  load x
  push 3
  mul
  ret
.end
.method Other.val(this, x)
  load x
  push 5
  rem
  jnz ok
  push "other"
  throw
ok:
  load x
  push 1
  sub
  ret
.end
.method Base.twice(this, x)
  load this
  load x
  callvirt val
  load this
  load x
  callvirt val
  add
  ret
.end
.method Other.twice(this, x)
  push 2
  load x
  mul
  ret
.end
"#;

fn generate(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        out: String::new(),
        labels: 0,
        callable: 0,
        locals: Vec::new(),
        catches: Vec::new(),
    };
    let mut src = PRELUDE.to_string();
    let n = 3 + g.rng.below(4) as usize;
    for i in 0..n {
        let m = g.method(&format!("m{i}"), i);
        src.push_str(&m);
    }
    // main calls the last methods; with a catch-all or not.
    let caught = g.rng.chance(70);
    src.push_str(".method main()\n");
    if caught {
        src.push_str("  .catch s e h\n");
    }
    src.push_str("s:\n");
    for _ in 0..3 {
        let j = n - 1 - g.rng.below(2) as usize;
        let (x, y) = (g.rng.below(13), g.rng.below(13));
        src.push_str(&format!("  push {x}\n  push {y}\n  call m{j}\n  print\n"));
    }
    src.push_str("  push 0\n  ret\ne:\nh:\n  print\n  push 0\n  ret\n.end\n");
    src
}

fn run(module: Module) -> (String, i32) {
    let (output, buf) = Output::capture();
    let vm = Vm::new(
        Program::load(module, true),
        VmOptions {
            output,
            ..VmOptions::default()
        },
    );
    let status = vm.run().status;
    let out = String::from_utf8_lossy(&buf.lock()).into_owned();
    (out, status)
}

/// Every call site inlined; `callvirt` guarded for every class that
/// understands it, or for every method of its selector.
fn every_site(module: &Module, by_method: bool) -> Vec<Decision> {
    let mut out = Vec::new();
    for (mi, m) in module.methods.iter().enumerate() {
        for (i, insn) in m.code.iter().enumerate() {
            let site = CallSite {
                method: mi as u32,
                index: i as u32,
            };
            match insn.op {
                Op::Call(_) => out.push(Decision {
                    site,
                    target: Target::Static,
                }),
                Op::CallVirt(sel) if by_method => {
                    for (id, x) in module.methods.iter().enumerate() {
                        if x.selector == Some(sel) {
                            out.push(Decision {
                                site,
                                target: Target::Method { method: id as u32 },
                            });
                        }
                    }
                }
                Op::CallVirt(sel) => {
                    for c in 0..module.classes.len() as u32 {
                        if module.resolve_virtual(c, sel).is_some() {
                            out.push(Decision {
                                site,
                                target: Target::guarded(c),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    out
}

#[test]
fn generated_programs_behave_the_same_inlined() {
    let mut statuses = [0usize; 2];
    let mut inlined_total = 0;
    let mut spilled = 0;
    for seed in 1..=120u64 {
        let src = generate(seed);
        let module = vm::verify::assemble("gen.bc", &src)
            .unwrap_or_else(|d| panic!("seed {seed}: generated program invalid: {d:?}\n{src}"));
        let expected = run(module.clone());
        statuses[(expected.1 != 0) as usize] += 1;
        let small = Budget {
            max_depth: 2,
            max_callee_size: 60,
            max_method_size: 400,
        };
        let runs = [
            (false, Budget::default()),
            (true, Budget::default()),
            (false, small),
            (true, small),
        ];
        for (by_method, budget) in runs {
            let decisions = every_site(&module, by_method);
            let (inlined, outcomes) = inline(&module, &decisions, &budget)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{src}"));
            inlined_total += outcomes.iter().filter(|o| o.inlined()).count();
            let text = vm::printer::print(&inlined).unwrap();
            spilled += text.matches("_spill0\n").count();
            let got = run(inlined);
            assert_eq!(
                got,
                expected,
                "seed {seed}, {budget:?}: behaves differently\n{}\n--- original\n{src}\n--- inlined\n{text}",
                format_outcomes(&module, &outcomes)
            );
            let again = vm::verify::assemble("gen.bc", &text)
                .unwrap_or_else(|d| panic!("seed {seed}: printed text invalid: {d:?}\n{text}"));
            assert_eq!(run(again), expected, "seed {seed}: printed program differs");
        }
    }
    // The generator exercises what it should: programs that end normally
    // and by an uncaught exception, many inlines, and callees with handlers
    // inlined under a non-empty stack (values spilled).
    assert!(statuses[0] > 10 && statuses[1] > 3, "statuses {statuses:?}");
    assert!(inlined_total > 1000, "only {inlined_total} inlines");
    assert!(spilled > 0);
}
