//! `vm disasm PROG.bc`: the loaded code, yieldpoints included (`--exec`:
//! the plain interpreter's, with its superinstructions).

use super::args::DisasmArgs;
use super::{load_module, Failure};

pub fn disasm(a: DisasmArgs) -> Result<i32, Failure> {
    let m = load_module(&a.file.program, a.file.limit.max_source)?;
    let p = vm::loader::Program::load(m, !a.no_yieldpoints);
    vm::stdio::print(&vm::disasm::disassemble_as(&p, a.exec));
    Ok(0)
}
