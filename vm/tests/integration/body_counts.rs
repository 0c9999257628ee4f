//! Cycles per compiled code version (`vm::bodycount`): each invocation of
//! a body counts once when it ends, with the cycles from its entry to its
//! end, callees included; the code installed for a method is counted apart
//! from the code loaded at start; a plain run counts nothing.

use vm::bodycount::BodyCount;
use vm::loader::Program;
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};

/// `main` calls `f` three times; `f` calls `g` once; `boom` throws through
/// `thrower`'s frame to a handler in `main`.
fn source(f_extra: &str) -> String {
    format!(
        ".method main()\n  call f\n  call f\n  add\n  call f\n  add\n  print\n\
         try:\n  call thrower\n  pop\n  jmp done\nhandler:\n  pop\ndone:\n  push 0\n  ret\n\
         .catch try done handler\n.end\n\
         .method f()\n{f_extra}  call g\n  push 1\n  add\n  ret\n.end\n\
         .method g()\n  push 2\n  ret\n.end\n\
         .method thrower()\n  call boom\n  ret\n.end\n\
         .method boom()\n  push \"x\"\n  throw\n.end\n"
    )
}

const F: usize = 1;
const G: usize = 2;
const THROWER: usize = 3;
const BOOM: usize = 4;

fn run(program: Program, install: Option<&str>, count: bool) -> Option<Vec<BodyCount>> {
    let (output, buf) = Output::capture();
    let new = install.map(|extra| {
        let module = vm::verify::assemble("t.bc", &source(extra)).expect("assembles");
        program
            .recompiled_body(&module, F as u32)
            .expect("same tables")
    });
    let vm = Vm::new(
        program,
        VmOptions {
            output,
            count,
            ..VmOptions::default()
        },
    );
    if let Some(body) = new {
        vm.install(body).expect("installs");
    }
    assert_eq!(vm.run().status, 0);
    assert_eq!(String::from_utf8(buf.lock().clone()).unwrap(), "9\n");
    vm.body_counts()
}

fn program() -> Program {
    let module = vm::verify::assemble("t.bc", &source("")).expect("assembles");
    Program::load(module, true)
}

/// The cycles of a body that runs straight through: each instruction once.
fn straight(p: &Program, body: usize) -> u64 {
    p.body(body as u32)
        .costs
        .iter()
        .map(|&c| u64::from(c))
        .sum()
}

#[test]
fn each_invocation_counts_its_cycles_callees_included() {
    let p = program();
    let (f, g) = (straight(&p, F), straight(&p, G));
    let methods = p.bodies.len();
    let counts = run(p, None, true).expect("a counting run counts");
    assert_eq!(counts.len(), 2 * methods, "loaded and installed ids");
    assert_eq!(
        counts[G],
        BodyCount {
            calls: 3,
            cycles: 3 * g
        }
    );
    assert_eq!(
        counts[F],
        BodyCount {
            calls: 3,
            cycles: 3 * (f + g)
        }
    );
    // The entry frame's return counts too.
    assert_eq!(counts[0].calls, 1);
    // Frames unwound by the exception count, up to the throw.
    assert_eq!(counts[BOOM].calls, 1);
    assert_eq!(counts[THROWER].calls, 1);
    assert!(counts[THROWER].cycles > counts[BOOM].cycles);
    // Nothing was installed.
    assert!(counts[methods..].iter().all(|c| c.calls == 0));
}

#[test]
fn installed_code_is_counted_apart_from_the_loaded_code() {
    let p = program();
    let g = straight(&p, G);
    let methods = p.bodies.len();
    // The new `f` does two more instructions.
    let counts = run(p, Some("  push 5\n  pop\n"), true).expect("counted");
    assert_eq!(counts[F], BodyCount::default(), "the old code never ran");
    let new = counts[methods + F];
    assert_eq!(new.calls, 3);
    let per_call = new.per_call().unwrap();
    assert!(per_call > g as f64, "{new:?}");
    assert_eq!(counts[G].calls, 3);
}

#[test]
fn a_plain_run_counts_nothing() {
    assert_eq!(run(program(), None, false), None);
}
