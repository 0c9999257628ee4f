//! The VM library's integration tests, in one test binary: one module per
//! file. (Each test binary is linked on its own, so five binaries cost five
//! links of the whole VM; docs/PERFORMANCE.md, "Build time".)

mod body_counts;
mod call_cache;
mod hot_yieldpoints;
mod panics;
mod passes;
mod safepoint_blocked;
mod safepoints;
mod trampolines;
mod unchecked;

use vm::loader::Program;
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};

/// Runs the program `src` (named `name` in diagnostics) as loaded with
/// yieldpoints, plain or counting (`count`): its exit status and what it
/// printed.
fn run_source(name: &str, src: &str, count: bool) -> (i32, String) {
    let module = vm::verify::assemble(name, src).expect("assembles");
    let (output, buf) = Output::capture();
    let vm = Vm::new(
        Program::load(module, true),
        VmOptions {
            output,
            count,
            ..VmOptions::default()
        },
    );
    let status = vm.run().status;
    let out = String::from_utf8(buf.lock().clone()).expect("UTF-8 output");
    (status, out)
}
