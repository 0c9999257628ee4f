//! `vm run PROG.bc [OPTIONS]`.

use vm::loader::Program;
use vm::runtime::{Vm, VmOptions};

use super::args::RunArgs;
use super::{load_module, Failure};

pub fn run(a: RunArgs) -> Result<i32, Failure> {
    let module = load_module(&a.program)?;
    let mut globals = Vec::new();
    for (name, value) in &a.set {
        match module.globals.iter().position(|g| g == name) {
            Some(g) => globals.push((g as u32, *value)),
            None => {
                return Err(Failure::usage(format!(
                    "vm: --set {name}={value}: the program has no global `{name}`"
                )))
            }
        }
    }
    let program = Program::load(module, !a.no_yieldpoints);
    let vm = Vm::new(
        program,
        VmOptions {
            max_frames: a.max_frames as usize,
            globals,
            ..VmOptions::default()
        },
    );
    Ok(vm.run().status)
}
