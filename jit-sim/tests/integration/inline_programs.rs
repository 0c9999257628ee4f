//! The inliner on whole programs: every example and benchmark with every
//! call site inlined must print the same output and end with the same exit
//! status; hand-written programs check the slow path of guards, exceptions
//! across inlined code, and recursion.

use std::path::{Path, PathBuf};

use jit_sim::inline::{
    format_outcomes, inline, Budget, CallSite, Decision, Guard, InlineError, Outcome, Refusal,
    Status, Target,
};
use vm::loader::Program;
use vm::module::{Module, Op};
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};

/// Runs a module; returns its stdout and exit status.
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

fn assemble(name: &str, src: &str) -> Module {
    vm::verify::assemble(name, src).unwrap_or_else(|d| panic!("{name} does not assemble: {d:?}"))
}

/// Inlines, checks that the printed result reassembles into the same
/// instructions, runs the result and compares its output and exit status
/// with the original's. Returns the outcomes and the printed text.
fn check_same_behaviour(
    name: &str,
    module: &Module,
    decisions: &[Decision],
    budget: &Budget,
) -> (Vec<Outcome>, String) {
    let expected = run(module.clone());
    check_against(name, module, &expected, decisions, budget)
}

/// [`check_same_behaviour`] with the original's output already known.
fn check_against(
    name: &str,
    module: &Module,
    expected: &(String, i32),
    decisions: &[Decision],
    budget: &Budget,
) -> (Vec<Outcome>, String) {
    let (inlined, outcomes) =
        inline(module, decisions, budget).unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = vm::printer::print(&inlined).unwrap_or_else(|e| panic!("{name}: {e}"));
    let reassembled = vm::verify::assemble(name, &text)
        .unwrap_or_else(|d| panic!("{name}: the printed program does not verify: {d:?}\n{text}"));
    // The printed text is the same program: same instructions (strings
    // compared by content, since the assembler numbers them anew).
    assert_eq!(
        instructions(&reassembled),
        instructions(&inlined),
        "{name}: the printed program differs\n{text}"
    );
    let got = run(inlined);
    assert_eq!(
        &got,
        expected,
        "{name}: the inlined program behaves differently\n{}\n{text}",
        format_outcomes(module, &outcomes)
    );
    (outcomes, text)
}

fn instructions(m: &Module) -> Vec<(String, Vec<String>, Vec<String>)> {
    m.methods
        .iter()
        .map(|meth| {
            let ops = meth
                .code
                .iter()
                .map(|i| match i.op {
                    Op::PushStr(s) => format!("push {:?}", m.strings[s as usize]),
                    op => format!("{op:?}"),
                })
                .collect();
            let catches = meth.catches.iter().map(|c| format!("{c:?}")).collect();
            (meth.display_name(m), ops, catches)
        })
        .collect()
}

/// How `callvirt` sites are decided in [`every_site`].
#[derive(Clone, Copy)]
enum Virtual {
    /// Guarded for the first class that defines the selector.
    FirstClass,
    /// Guarded for every class that defines the selector.
    EveryClass,
    /// Guarded for every method of the selector, as a profile names them.
    EveryMethod,
}

/// A decision for every call site: `call` inlined, `callvirt` guarded as
/// `how` says.
fn every_site(module: &Module, how: Virtual) -> Vec<Decision> {
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
                Op::CallVirt(sel) => {
                    let methods = module
                        .methods
                        .iter()
                        .enumerate()
                        .filter(|(_, x)| x.selector == Some(sel));
                    let n = match how {
                        Virtual::FirstClass => 1,
                        _ => usize::MAX,
                    };
                    for (id, x) in methods.take(n) {
                        let target = match (how, x.class) {
                            (Virtual::EveryMethod, _) => Target::Method { method: id as u32 },
                            (_, Some(c)) => Target::guarded(c),
                            (_, None) => continue,
                        };
                        out.push(Decision { site, target });
                    }
                }
                _ => {}
            }
        }
    }
    out
}

fn programs(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(dir);
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bc"))
        .collect();
    found.sort();
    found
}

/// What the program at `path` (its text `src`) prints and its exit status,
/// from its `.out` file and its `; status:` header (0 without one), if it
/// has an `.out`: the end-to-end tests compare the programs' runs with
/// those files, and the benchmarks take seconds to run again here.
fn expected_of(path: &Path, src: &str) -> Option<(String, i32)> {
    let out = std::fs::read_to_string(path.with_extension("out")).ok()?;
    let status = src
        .lines()
        .map_while(|l| l.strip_prefix(';'))
        .find_map(|l| l.trim().strip_prefix("status:"))
        .map_or(0, |v| v.trim().parse().expect("`; status:` is a number"));
    Some((out, status))
}

/// Every program of `dir`, with every call site inlined, `callvirt` sites
/// decided in each of the three ways.
fn every_program_with_every_site_inlined(dir: &str) {
    let files = programs(dir);
    assert!(files.len() >= 5, "few programs in {dir}");
    let mut inlined_somewhere = 0;
    for f in files {
        let name = f.display().to_string();
        let src = std::fs::read_to_string(&f).unwrap();
        let module = assemble(&name, &src);
        let expected = expected_of(&f, &src).unwrap_or_else(|| run(module.clone()));
        // A program without `callvirt` gets the same decisions each way:
        // the same inlined program, checked once (its runs are the cost).
        let mut checked: Vec<(Vec<Decision>, Vec<_>)> = Vec::new();
        for how in [
            Virtual::FirstClass,
            Virtual::EveryClass,
            Virtual::EveryMethod,
        ] {
            let decisions = every_site(&module, how);
            let outcomes = match checked.iter().find(|(d, _)| *d == decisions) {
                Some((_, o)) => o.clone(),
                None => {
                    let (o, _) =
                        check_against(&name, &module, &expected, &decisions, &Budget::default());
                    checked.push((decisions.clone(), o.clone()));
                    o
                }
            };
            let sites = decisions.len();
            let inlined = outcomes.iter().filter(|o| o.inlined()).count();
            if sites > 0 {
                assert!(
                    inlined > 0,
                    "{name}: nothing inlined of {sites} sites\n{}",
                    format_outcomes(&module, &outcomes)
                );
                inlined_somewhere += 1;
            }
        }
    }
    assert!(inlined_somewhere >= 15);
}

#[test]
fn examples_with_every_site_inlined_behave_the_same() {
    every_program_with_every_site_inlined("programs/examples");
}

#[test]
fn benchmarks_with_every_site_inlined_behave_the_same() {
    every_program_with_every_site_inlined("programs/bench");
}

// ---------------------------------------------------------------------
// Guards: which receivers take the fast path.

const SHAPES: &str = r#"
.class Shape
  .field size
.end
.class Square : Shape        ; inherits area
.end
.class Circle : Shape        ; overrides area
.end
.class Blob                  ; unrelated, has its own area
.end

.method Shape.area(this)
  load this
  getfield Shape.size
  dup
  mul
  ret
.end
.method Circle.area(this)
  load this
  getfield Shape.size
  dup
  mul
  push 3
  mul
  ret
.end
.method Blob.area(this)
  push 42
  ret
.end

.method make(kind)
  .locals o
  load kind
  push 0
  jne not_shape
  new Shape
  jmp sized
not_shape:
  load kind
  push 1
  jne not_square
  new Square
  jmp sized
not_square:
  load kind
  push 2
  jne not_circle
  new Circle
  jmp sized
not_circle:
  new Blob
  ret
sized:
  store o
  load o
  push 5
  putfield Shape.size
  load o
  ret
.end

.method main()
  .locals k
loop:
  load k
  call make
  callvirt area
  print
  inc k 1
  load k
  push 4
  jlt loop
  push 0
  ret
.end
"#;

/// The site `callvirt area` in main.
fn area_site(m: &Module) -> CallSite {
    let main = m.main;
    let index = m.methods[main as usize]
        .code
        .iter()
        .position(|i| matches!(i.op, Op::CallVirt(_)))
        .unwrap() as u32;
    CallSite {
        method: main,
        index,
    }
}

fn class(m: &Module, name: &str) -> u32 {
    m.classes.iter().position(|c| c.name == name).unwrap() as u32
}

/// Prints the inlined module with a marker print at the entry of each
/// real (not inlined) virtual `area` method, so the output tells which
/// receivers went through the slow path's `callvirt`.
fn mark_slow_paths(inlined: &Module) -> String {
    let text = vm::printer::print(inlined).unwrap();
    let mut out = String::new();
    let mut pending: Option<String> = None;
    for line in text.lines() {
        if let Some(marker) = &pending {
            if !line.starts_with("  .locals") && !line.starts_with("  .catch") {
                out.push_str(&format!("  push \"slow {marker}\"\n  print\n"));
                pending = None;
            }
        }
        out.push_str(line);
        out.push('\n');
        if let Some(rest) = line.strip_prefix(".method ") {
            if rest.contains(".area(") {
                pending = Some(rest.split('(').next().unwrap().to_string());
            }
        }
    }
    out
}

#[test]
fn exact_guard_takes_the_slow_path_for_other_classes_and_subclasses() {
    let m = assemble("shapes.bc", SHAPES);
    let shape = class(&m, "Shape");
    let d = [Decision {
        site: area_site(&m),
        target: Target::guarded(shape),
    }];
    let (outcomes, text) = check_same_behaviour("shapes.bc", &m, &d, &Budget::default());
    assert_eq!(outcomes.len(), 1);
    assert_eq!(outcomes[0].status, Status::GuardedInlined);
    assert!(text.contains("isclass Shape"), "{text}");
    let (inlined, _) = inline(&m, &d, &Budget::default()).unwrap();
    let marked = assemble("marked.bc", &mark_slow_paths(&inlined));
    let (out, status) = run(marked);
    assert_eq!(status, 0);
    // Shape runs the inlined copy; Square (a subclass that does not
    // override) fails the exact test and calls the real Shape.area; Circle
    // (overrides) and Blob (unrelated) run their own methods.
    assert_eq!(
        out,
        "25\nslow Shape.area\n25\nslow Circle.area\n75\nslow Blob.area\n42\n"
    );
}

#[test]
fn subclass_guard_covers_subclasses_that_run_the_same_code() {
    let m = assemble("shapes.bc", SHAPES);
    let site = area_site(&m);
    // Shape has an overriding subclass (Circle): instanceof Shape would run
    // Shape.area for circles, so the decision is refused.
    let d = [Decision {
        site,
        target: Target::Guarded {
            class: class(&m, "Shape"),
            guard: Guard::Subclasses,
        },
    }];
    let (outcomes, _) = check_same_behaviour("shapes.bc", &m, &d, &Budget::default());
    assert_eq!(
        outcomes[0].status,
        Status::Refused(Refusal::Overridden {
            by: class(&m, "Circle")
        })
    );
    // Circle has no subclasses: instanceof Circle is exact enough.
    let d = [Decision {
        site,
        target: Target::Guarded {
            class: class(&m, "Circle"),
            guard: Guard::Subclasses,
        },
    }];
    let (outcomes, text) = check_same_behaviour("shapes.bc", &m, &d, &Budget::default());
    assert_eq!(outcomes[0].status, Status::GuardedInlined);
    assert!(text.contains("instanceof Circle"), "{text}");
    let (inlined, _) = inline(&m, &d, &Budget::default()).unwrap();
    let (out, _) = run(assemble("marked.bc", &mark_slow_paths(&inlined)));
    assert_eq!(
        out,
        "slow Shape.area\n25\nslow Shape.area\n25\n75\nslow Blob.area\n42\n"
    );
}

#[test]
fn method_guard_takes_every_class_that_runs_the_method() {
    let m = assemble("shapes.bc", SHAPES);
    let shape_area = m.method_by_display_name("Shape.area").unwrap();
    let d = [Decision {
        site: area_site(&m),
        target: Target::Method { method: shape_area },
    }];
    let (outcomes, text) = check_same_behaviour("shapes.bc", &m, &d, &Budget::default());
    assert_eq!(outcomes[0].status, Status::GuardedInlined);
    assert!(
        format_outcomes(&m, &outcomes)
            .contains("guarded inline (instanceof Shape, not instanceof Circle)"),
        "{}",
        format_outcomes(&m, &outcomes)
    );
    assert!(text.contains("instanceof Circle\n  jnz"), "{text}");
    let (inlined, _) = inline(&m, &d, &Budget::default()).unwrap();
    let (out, _) = run(assemble("marked.bc", &mark_slow_paths(&inlined)));
    // Shape and Square run Shape.area inlined; Circle overrides it.
    assert_eq!(out, "25\n25\nslow Circle.area\n75\nslow Blob.area\n42\n");
    // A method target must be a virtual method of the site's selector.
    let main = m.main;
    for method in [main, 99] {
        let d = [Decision {
            site: area_site(&m),
            target: Target::Method { method },
        }];
        assert!(matches!(
            inline(&m, &d, &Budget::default()),
            Err(InlineError::WrongMethod { .. })
        ));
    }
}

#[test]
fn several_guards_at_one_site_form_a_chain() {
    let m = assemble("shapes.bc", SHAPES);
    let site = area_site(&m);
    let d: Vec<Decision> = ["Circle", "Blob", "Square"]
        .iter()
        .map(|c| Decision {
            site,
            target: Target::guarded(class(&m, c)),
        })
        .collect();
    let (outcomes, _) = check_same_behaviour("shapes.bc", &m, &d, &Budget::default());
    assert!(outcomes.iter().all(|o| o.status == Status::GuardedInlined));
    let (inlined, _) = inline(&m, &d, &Budget::default()).unwrap();
    let (out, _) = run(assemble("marked.bc", &mark_slow_paths(&inlined)));
    // Only Shape itself is left for the slow path.
    assert_eq!(out, "slow Shape.area\n25\n25\n75\n42\n");
}

#[test]
fn a_class_without_the_method_is_refused() {
    let src = SHAPES.replace(".class Blob", ".class Plain\n.end\n.class Blob");
    let m = assemble("shapes.bc", &src);
    let d = [Decision {
        site: area_site(&m),
        target: Target::guarded(class(&m, "Plain")),
    }];
    let (outcomes, _) = check_same_behaviour("shapes.bc", &m, &d, &Budget::default());
    assert!(matches!(
        outcomes[0].status,
        Status::Refused(Refusal::NotUnderstood { .. })
    ));
}

// ---------------------------------------------------------------------
// Exceptions.

const EXCEPTIONS: &str = r#"
.method thrower(x)
  load x
  jz fine
  push "boom"
  throw
fine:
  push 7
  ret
.end

; Catches what `thrower` throws and returns -1.
.method careful(x)
  .catch a b h
a:
  load x
  call thrower
b:
  ret
h:
  pop
  push -1
  ret
.end

.method main()
  .locals i
  .catch t0 t1 handler
  push 0
  call thrower
  print
  push 0
  call careful
  print
  push 1
  call careful
  print
  push 100
  push 1
  call careful
  add
  print
t0:
  push 1
  call thrower
  print
t1:
  push "not reached"
  print
  push 0
  ret
handler:
  print
  push "caught in main"
  print
  push 0
  ret
.end
"#;

#[test]
fn exceptions_thrown_in_inlined_code_reach_the_right_handler() {
    let m = assemble("exc.bc", EXCEPTIONS);
    let d = every_site(&m, Virtual::FirstClass);
    let (outcomes, text) = check_same_behaviour("exc.bc", &m, &d, &Budget::default());
    let (out, status) = run(m.clone());
    assert_eq!(
        (out.as_str(), status),
        ("7\n7\n-1\n99\nboom\ncaught in main\n", 0)
    );
    // `careful` has a .catch: inlined where main's stack is empty, and
    // under the 100 that main keeps on the stack by spilling it.
    let careful: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| {
            o.root == m.main
                && o.callee.map(|c| m.methods[c as usize].name.as_str()) == Some("careful")
        })
        .collect();
    assert_eq!(careful.len(), 3, "{}", format_outcomes(&m, &outcomes));
    assert_eq!(careful[0].status, Status::Inlined);
    assert_eq!(careful[1].status, Status::Inlined);
    assert_eq!(careful[2].status, Status::Inlined);
    assert!(
        text.contains("  store careful_spill0\n")
            && text
                .contains("  store careful_result\n  load careful_spill0\n  load careful_result\n"),
        "{text}"
    );
    // The thrower inlined under main's range throws to main's handler.
    assert!(text.contains("throw"), "{text}");
}

#[test]
fn a_throw_outside_the_callers_ranges_stays_uncaught() {
    let src = r#"
.method boom()
  push "bang"
  throw
.end
.method main()
  .catch a b h
a:
  push "protected"
  print
b:
  push "before"
  print
  call boom
  print
  push 0
  ret
h:
  pop
  push "wrongly caught"
  print
  push 0
  ret
.end
"#;
    let m = assemble("uncaught.bc", src);
    let d = every_site(&m, Virtual::FirstClass);
    let (outcomes, _) = check_same_behaviour("uncaught.bc", &m, &d, &Budget::default());
    assert!(outcomes[0].inlined());
    assert_eq!(run(m).1, 70);
}

#[test]
fn nested_handlers_are_tried_innermost_first() {
    // inner catches and rethrows a tagged value; middle's handler adds to
    // it; main's handler prints it. All inlined into main.
    let src = r#"
.method inner()
  .catch a b h
a:
  push 1
  throw
b:
  push 0
  ret
h:
  push 10
  add
  throw
.end
.method middle()
  .catch a b h
a:
  call inner
  ret
b:
h:
  push 100
  add
  ret
.end
.method main()
  .catch a b h
a:
  call middle
  print
  push 0
  ret
b:
h:
  push "main caught"
  print
  print
  push 0
  ret
.end
"#;
    let m = assemble("nested.bc", src);
    let d = every_site(&m, Virtual::FirstClass);
    let (outcomes, text) = check_same_behaviour("nested.bc", &m, &d, &Budget::default());
    assert_eq!(run(m.clone()).0, "111\n");
    let main_outcomes: Vec<_> = outcomes.iter().filter(|o| o.root == m.main).collect();
    assert_eq!(main_outcomes.len(), 2, "{}", format_outcomes(&m, &outcomes));
    assert!(main_outcomes.iter().all(|o| o.inlined()));
    assert_eq!(main_outcomes[1].depth(), 2);
    // Three .catch lines in main: inner's, middle's, main's, in that order.
    let main_text = &text[text.find(".method main()").unwrap()..];
    let catches: Vec<&str> = main_text
        .lines()
        .filter(|l| l.trim_start().starts_with(".catch"))
        .collect();
    assert_eq!(catches.len(), 3, "{main_text}");
    assert!(catches[0].contains("inner_"), "{main_text}");
    assert!(catches[1].contains("middle_"), "{main_text}");
}

// ---------------------------------------------------------------------
// Recursion and budgets.

const FIB: &str = r#"
.method fib(n)
  load n
  push 2
  jge rec
  load n
  ret
rec:
  load n
  push 1
  sub
  call fib
  load n
  push 2
  sub
  call fib
  add
  ret
.end
.method main()
  push 15
  call fib
  print
  push 0
  ret
.end
"#;

#[test]
fn recursion_is_stopped_by_the_depth_budget() {
    let m = assemble("fib.bc", FIB);
    let d = every_site(&m, Virtual::FirstClass);
    for depth in [1, 2, 3] {
        let budget = Budget {
            max_depth: depth,
            ..Budget::default()
        };
        let (outcomes, _) = check_same_behaviour("fib.bc", &m, &d, &budget);
        let in_main: Vec<_> = outcomes.iter().filter(|o| o.root == m.main).collect();
        // main's site, then two sites per inlined copy of fib.
        let inlined = in_main.iter().filter(|o| o.inlined()).count();
        assert_eq!(inlined, (1 << depth) - 1, "depth {depth}");
        assert!(in_main.iter().all(|o| o.depth() <= depth as usize + 1));
        assert!(in_main
            .iter()
            .any(|o| matches!(o.status, Status::Refused(Refusal::RecursiveTooDeep { .. }))));
        // Indentation in the log follows the depth.
        let log = format_outcomes(&m, &outcomes);
        assert!(
            log.contains("main:\n  @ 22 fib (15 insns)   inline\n    @ 12 fib"),
            "{log}"
        );
        if depth == 2 {
            // The example in docs/INLINING.md.
            let too_deep = "fib (15 insns)   recursive inlining is too deep (max 2)";
            let expected = format!(
                "main:\n  @ 22 fib (15 insns)   inline\n    @ 12 fib (15 insns)   inline\n      @ 12 {too_deep}\n      @ 16 {too_deep}\n    @ 16 fib (15 insns)   inline\n      @ 12 {too_deep}\n      @ 16 {too_deep}\n"
            );
            assert!(log.ends_with(&expected), "{log}");
        }
    }
    assert_eq!(run(m).0, "610\n");
}

#[test]
fn size_budgets_refuse_and_keep_the_call() {
    let m = assemble("fib.bc", FIB);
    let d = every_site(&m, Virtual::FirstClass);
    let budget = Budget {
        max_callee_size: 5,
        ..Budget::default()
    };
    let (outcomes, text) = check_same_behaviour("fib.bc", &m, &d, &budget);
    assert!(outcomes.iter().all(|o| matches!(
        o.status,
        Status::Refused(Refusal::CalleeTooBig { size: 15, max: 5 })
    )));
    assert_eq!(text.matches("call fib").count(), 3);
    let budget = Budget {
        max_method_size: 40,
        max_depth: 10,
        ..Budget::default()
    };
    let (inlined, outcomes) = inline(&m, &d, &budget).unwrap();
    assert!(inlined.methods.iter().all(|m| m.code.len() <= 40));
    assert!(outcomes
        .iter()
        .any(|o| matches!(o.status, Status::Refused(Refusal::CallerTooBig { .. }))));
    assert!(outcomes.iter().any(|o| o.inlined()));
    check_same_behaviour("fib.bc", &m, &d, &budget);
}

#[test]
fn a_huge_depth_budget_is_still_bounded_by_size() {
    let m = assemble("fib.bc", FIB);
    let d = every_site(&m, Virtual::FirstClass);
    let budget = Budget {
        max_depth: 1000,
        max_callee_size: usize::MAX,
        max_method_size: 3000,
    };
    let (inlined, _) = inline(&m, &d, &budget).unwrap();
    assert!(inlined.methods.iter().all(|m| m.code.len() <= 3000));
}

// ---------------------------------------------------------------------
// Stack and locals.

#[test]
fn values_below_the_arguments_and_below_the_result_are_handled() {
    // `f` returns with two extra values under its result; the caller keeps
    // a value under the arguments.
    let src = r#"
.method f(a, b)
  push 1
  push 2
  load a
  load b
  sub
  ret
.end
.method main()
  push 100
  push 10
  push 3
  call f
  add
  print
  push 0
  ret
.end
"#;
    let m = assemble("stack.bc", src);
    let (outcomes, text) = check_same_behaviour(
        "stack.bc",
        &m,
        &every_site(&m, Virtual::FirstClass),
        &Budget::default(),
    );
    assert!(outcomes[0].inlined());
    assert!(text.contains("swap"), "{text}");
    assert_eq!(run(m).0, "107\n");
}

#[test]
fn callee_locals_start_at_zero_on_every_inlined_call() {
    let src = r#"
.method count()
  .locals n
  inc n 1
  load n
  ret
.end
.method main()
  .locals i
loop:
  call count
  print
  inc i 1
  load i
  push 3
  jlt loop
  push 0
  ret
.end
"#;
    let m = assemble("locals.bc", src);
    let (outcomes, _) = check_same_behaviour(
        "locals.bc",
        &m,
        &every_site(&m, Virtual::FirstClass),
        &Budget::default(),
    );
    assert!(outcomes[0].inlined());
    assert_eq!(run(m).0, "1\n1\n1\n");
}

// ---------------------------------------------------------------------
// Bad input is an error, never a panic.

#[test]
fn bad_decisions_are_errors() {
    let m = assemble("fib.bc", FIB);
    let b = Budget::default();
    let at = |method, index, target| Decision {
        site: CallSite { method, index },
        target,
    };
    assert!(matches!(
        inline(&m, &[at(9, 0, Target::Static)], &b),
        Err(InlineError::NoSuchSite(_))
    ));
    assert!(matches!(
        inline(&m, &[at(0, 99, Target::Static)], &b),
        Err(InlineError::NoSuchSite(_))
    ));
    assert!(matches!(
        inline(&m, &[at(0, 0, Target::Static)], &b),
        Err(InlineError::WrongInstruction { .. })
    ));
    assert!(matches!(
        inline(&m, &[at(0, 9, Target::guarded(0))], &b),
        Err(InlineError::WrongInstruction { .. })
    ));
    assert!(matches!(
        inline(
            &m,
            &[at(0, 8, Target::Static), at(0, 8, Target::Static)],
            &b
        ),
        Err(InlineError::Duplicate(_))
    ));
    let s = assemble("shapes.bc", SHAPES);
    let site = area_site(&s);
    assert!(matches!(
        inline(
            &s,
            &[Decision {
                site,
                target: Target::guarded(77)
            }],
            &b
        ),
        Err(InlineError::NoSuchClass(77))
    ));
}

#[test]
fn malformed_modules_are_errors() {
    let m = assemble("fib.bc", FIB);
    let mut bad = m.clone();
    bad.methods[0].code[0].op = Op::Load(5);
    assert!(matches!(
        inline(&bad, &[], &Budget::default()),
        Err(InlineError::Malformed(_))
    ));
    let mut bad = m.clone();
    bad.methods[0].code[2].op = Op::Jge(500);
    assert!(matches!(
        inline(&bad, &[], &Budget::default()),
        Err(InlineError::Malformed(_))
    ));
    let mut bad = m.clone();
    bad.methods[0].code[0].op = Op::Call(31);
    assert!(matches!(
        inline(&bad, &[], &Budget::default()),
        Err(InlineError::Malformed(_))
    ));
    let mut bad = m;
    bad.methods[0].code.pop(); // now runs off its end
    assert!(matches!(
        inline(&bad, &[], &Budget::default()),
        Err(InlineError::Invalid(_))
    ));
}

#[test]
fn a_callee_range_that_ends_with_the_callee_does_not_cover_the_continuation() {
    // f's range runs to its end, whose last `ret` becomes a jump to the
    // continuation that the inliner drops: the range must stop before the
    // caller's next instruction (a throw f must not catch).
    let src = r#"
.method f()
  .catch a b h
  jmp a
h:
  pop
  push "caught by f"
  print
  push 0
  halt
a:
  push "thrown by main"
  ret
b:
.end
.method main()
  call f
  throw
.end
"#;
    let m = assemble("range.bc", src);
    let (outcomes, _) = check_same_behaviour(
        "range.bc",
        &m,
        &every_site(&m, Virtual::FirstClass),
        &Budget::default(),
    );
    assert!(outcomes[0].inlined());
    assert_eq!(run(m), (String::new(), 70));
}

#[test]
fn guarded_callee_with_a_handler_under_a_non_empty_stack_spills() {
    // K.safe catches what it throws; it is called with 100 under the
    // receiver. J.safe (another class) takes the slow path.
    let src = r#"
.class K
.end
.class J
.end
.method K.safe(this, x)
  .catch a b h
a:
  load x
  jz bad
  load x
  ret
bad:
  push "zero"
  throw
b:
h:
  pop
  push -1
  ret
.end
.method J.safe(this, x)
  push 1000
  ret
.end
.method main()
  push 100
  new K
  push 5
  callvirt safe
  add
  print
  push 100
  new K
  push 0
  callvirt safe
  add
  print
  push 100
  new J
  push 0
  callvirt safe
  add
  print
  push 0
  ret
.end
"#;
    let m = assemble("spill.bc", src);
    let k = class(&m, "K");
    let d: Vec<Decision> = call_sites_of(&m)
        .into_iter()
        .map(|site| Decision {
            site,
            target: Target::guarded(k),
        })
        .collect();
    let (outcomes, text) = check_same_behaviour("spill.bc", &m, &d, &Budget::default());
    assert_eq!(run(m).0, "105\n99\n1100\n");
    assert!(outcomes.iter().all(|o| o.status == Status::GuardedInlined));
    assert!(text.contains("  load safe_this\n  isclass K\n"), "{text}");
    assert!(
        text.contains("safe_restore:\n  store safe_result\n"),
        "{text}"
    );
}

fn call_sites_of(m: &Module) -> Vec<CallSite> {
    jit_sim::inline::call_sites(m)
        .into_iter()
        .filter(|s| s.method == m.main)
        .collect()
}
