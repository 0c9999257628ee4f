//! Installing recompiled code while the program runs (the code swap of an
//! adaptive system: Jikes RVM's controller hands a method to the compiler
//! in the background and installs the result for *new* invocations).
//!
//! The mechanism, in three parts:
//!
//! - **Body ids.** A frame names its code by a body id, never by method:
//!   ids `0..methods` are the code loaded at start (body `i` is method
//!   `i`), and id `methods + i` is the recompiled code of method `i`, held
//!   in [`Program::installed`]. A slot is written once and never freed while
//!   the program lives, so a frame still running the old code keeps running
//!   it, and returning into it finds it ([`Program::body`]).
//! - **Who runs what.** Each thread keeps its own table from method to the
//!   body that new invocations run (`Interp::code`), read on every call
//!   without any synchronization, and one from body id to body
//!   (`Interp::by_id`), which its returns read instead of
//!   [`Program::body`]: refreshed together, so no frame of the thread names
//!   an installed body its `by_id` lacks.
//! - **The swap.** [`Vm::install`](crate::runtime::Vm::install) fills the
//!   method's slot, then asks every thread, through its control word, to
//!   refresh its table at its next yieldpoint (docs/LANGUAGE.md "Yieldpoints": a yieldpoint is where a thread checks
//!   for "a code swap"). A thread that starts later reads the slots when it
//!   builds its table. So a thread switches between two yieldpoints, never
//!   in the middle of a call sequence, and a method's invocations already on
//!   some stack finish in the code they started in.
//!
//! What makes a body acceptable is checked by [`Program::recompiled_body`]:
//! the replacement comes from a module with the same methods, classes,
//! selectors, strings and globals (an inliner's output: only method bodies
//! change), and it must not name a field reference the loaded program
//! lacks (the table of field references is fixed at load).

use std::fmt;

use crate::loader::{load_body, Body, FieldRefs, Program};
use crate::module::{MethodId, Module};

/// Why recompiled code was not installed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InstallError {
    /// No such method.
    NoSuchMethod(MethodId),
    /// The method was already recompiled once (one recompilation per
    /// method: the slot is never overwritten).
    AlreadyInstalled(MethodId),
    /// The module the code comes from does not match the program's tables
    /// (what differs).
    Mismatch(&'static str),
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InstallError::NoSuchMethod(m) => write!(f, "no method #{m}"),
            InstallError::AlreadyInstalled(m) => write!(f, "method #{m} is already recompiled"),
            InstallError::Mismatch(what) => {
                write!(
                    f,
                    "the recompiled module's {what} differ from the program's"
                )
            }
        }
    }
}

impl std::error::Error for InstallError {}

impl Program {
    /// The code of body `id` (see the module docs: loaded, or installed).
    ///
    /// # Panics
    /// If `id` names no body: frames only ever hold ids of bodies that exist.
    #[inline]
    pub fn body(&self, id: u32) -> &Body {
        match self.bodies.get(id as usize) {
            Some(b) => b,
            None => self.installed_body(id),
        }
    }

    /// [`Program::body`] for an installed body: out of line, so that the
    /// interpreter's return path stays as small as without installation.
    #[cold]
    #[inline(never)]
    fn installed_body(&self, id: u32) -> &Body {
        self.installed[id as usize - self.bodies.len()]
            .get()
            .expect("a frame names an installed body")
    }

    /// The body new invocations of `method` run now: its installed
    /// recompiled code if any, else the code loaded at start.
    pub fn current_body(&self, method: MethodId) -> &Body {
        self.installed[method as usize]
            .get()
            .unwrap_or(&self.bodies[method as usize])
    }

    /// Has `method` been recompiled and installed?
    pub fn is_installed(&self, method: MethodId) -> bool {
        self.installed
            .get(method as usize)
            .is_some_and(|s| s.get().is_some())
    }

    /// Loads method `method` of `module` (a verified rewrite of this
    /// program's module, e.g. by an inliner) as this program's recompiled
    /// code for it, ready for [`Vm::install`](crate::runtime::Vm::install).
    /// Yieldpoints are inserted as in the rest of the program.
    pub fn recompiled_body(&self, module: &Module, method: MethodId) -> Result<Body, InstallError> {
        let mine = &self.module;
        if method as usize >= mine.methods.len() {
            return Err(InstallError::NoSuchMethod(method));
        }
        if module.methods.len() != mine.methods.len() {
            return Err(InstallError::Mismatch("methods"));
        }
        if module.classes.len() != mine.classes.len()
            || module.selectors.len() != mine.selectors.len()
        {
            return Err(InstallError::Mismatch("classes"));
        }
        if module.strings != mine.strings {
            return Err(InstallError::Mismatch("strings"));
        }
        if module.globals != mine.globals {
            return Err(InstallError::Mismatch("globals"));
        }
        if module.methods[method as usize].arity() != mine.methods[method as usize].arity() {
            return Err(InstallError::Mismatch("parameters"));
        }
        let mut field_refs = FieldRefs::new(&self.field_refs);
        let mut body = load_body(module, method, self.yieldpoints, &mut field_refs);
        if field_refs.refs.len() != self.field_refs.len() {
            return Err(InstallError::Mismatch("field references"));
        }
        body.id = (self.bodies.len() + method as usize) as u32;
        Ok(body)
    }

    /// Fills the slot of `body`'s method (see the module docs), once: the
    /// first half of [`Vm::install`](crate::runtime::Vm::install), which
    /// then asks every thread to refresh its table.
    pub(crate) fn install(&self, body: Body) -> Result<(), InstallError> {
        let method = body.method;
        let slot = self
            .installed
            .get(method as usize)
            .ok_or(InstallError::NoSuchMethod(method))?;
        if body.id as usize != self.bodies.len() + method as usize {
            return Err(InstallError::Mismatch("body ids"));
        }
        slot.set(body)
            .map_err(|_| InstallError::AlreadyInstalled(method))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Output;
    use crate::runtime::{Vm, VmOptions};
    use crate::verify::assemble;

    fn source(f_returns: i64, extra_string: bool) -> String {
        let s = if extra_string {
            "  push \"x\"\n  pop\n"
        } else {
            ""
        };
        format!(
            ".method main()\n  call f\n  print\n  call f\n  print\n  push 0\n  ret\n.end\n\
             .method f()\n{s}  push {f_returns}\n  ret\n.end\n"
        )
    }

    fn program() -> Program {
        Program::load(assemble("t.bc", &source(1, false)).unwrap(), true)
    }

    #[test]
    fn installed_code_runs_for_new_invocations_and_old_ids_stay_valid() {
        let p = program();
        let new = assemble("t.bc", &source(2, false)).unwrap();
        let body = p.recompiled_body(&new, 1).unwrap();
        assert_eq!(body.id, 3, "methods + method");
        let (output, buf) = Output::capture();
        let vm = Vm::new(
            p,
            VmOptions {
                output,
                ..VmOptions::default()
            },
        );
        vm.install(body).unwrap();
        assert!(vm.program.is_installed(1));
        assert_eq!(
            vm.program.body(1).code.len(),
            vm.program.bodies[1].code.len()
        );
        assert_eq!(vm.program.body(3).method, 1);
        assert_eq!(vm.program.current_body(1).id, 3);
        let outcome = vm.run();
        assert_eq!(outcome.status, 0);
        assert_eq!(String::from_utf8(buf.lock().clone()).unwrap(), "2\n2\n");
    }

    #[test]
    fn a_method_is_installed_once() {
        let p = program();
        let new = assemble("t.bc", &source(2, false)).unwrap();
        let (a, b) = (
            p.recompiled_body(&new, 1).unwrap(),
            p.recompiled_body(&new, 1).unwrap(),
        );
        let vm = Vm::new(p, VmOptions::default());
        vm.install(a).unwrap();
        assert_eq!(vm.install(b), Err(InstallError::AlreadyInstalled(1)));
    }

    #[test]
    fn code_from_another_program_is_refused() {
        let p = program();
        let other = assemble("t.bc", &source(2, true)).unwrap();
        assert_eq!(
            p.recompiled_body(&other, 1).map(|_| ()),
            Err(InstallError::Mismatch("strings"))
        );
        assert_eq!(
            p.recompiled_body(&other, 7).map(|_| ()),
            Err(InstallError::NoSuchMethod(7))
        );
    }
}
