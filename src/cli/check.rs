//! `vm check PROG.bc`: assemble and verify only.

use super::args::FileArg;
use super::{load_module, Failure};

pub fn check(a: FileArg) -> Result<i32, Failure> {
    let m = load_module(&a.program, a.limit.max_source)?;
    vm::stdio::eprintln(&format!(
        "{}: ok ({} method{}, {} class{})",
        a.program.display(),
        m.methods.len(),
        if m.methods.len() == 1 { "" } else { "s" },
        m.classes.len(),
        if m.classes.len() == 1 { "" } else { "es" },
    ));
    Ok(0)
}
