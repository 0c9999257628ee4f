//! The loader: a verified [`Module`] to a runnable [`Program`].
//!
//! It lays out classes (a subclass's fields after its superclass's, already
//! computed by the resolver), builds one virtual-method table per class
//! (indexed by selector) and an ancestor display for O(1) subclass tests,
//! and turns each method into a [`Body`] of [`Instr`]s with the yieldpoints
//! of docs/LANGUAGE.md "Yieldpoints" inserted:
//!
//! - a prologue yieldpoint at entry (an instruction at pc 0),
//! - an epilogue yieldpoint before each `ret` (fused into it),
//! - a backedge yieldpoint before each jump whose target is at or before it
//!   (fused into the jump).
//!
//! A jump to an instruction lands on that instruction's own yieldpoint (if it
//! has one) but never on the prologue: the prologue runs once per call.
//! `--no-yieldpoints` loads the same code without them.

use crate::instr::Instr;
use crate::module::{Catch, ClassId, MethodId, Module};
use crate::translate::{translate, FoldedStore};

/// Marks "no method" in a virtual-method table.
pub const NO_METHOD: u32 = u32::MAX;

/// A class as the interpreter sees it.
#[derive(Clone, Debug)]
pub struct ClassInfo {
    /// The class name.
    pub name: String,
    /// Number of fields, inherited ones included.
    pub nfields: u32,
    /// The class's ancestors from the root down to itself.
    pub ancestors: Box<[u32]>,
    /// Per selector, the body `callvirt` runs for this class, or [`NO_METHOD`].
    pub vtable: Box<[u32]>,
}

impl ClassInfo {
    /// Depth in the hierarchy (a root class has depth 0).
    #[inline]
    pub fn depth(&self) -> usize {
        self.ancestors.len() - 1
    }
}

/// One method's runnable code.
#[derive(Clone, Debug)]
pub struct Body {
    /// The method this is the code of.
    pub method: MethodId,
    /// This body's id, the one frames record: the method's index for the
    /// code loaded at start, `methods + method` for code installed while
    /// the program runs ([`crate::install`]).
    pub id: u32,
    /// `fib` or `Shape.area`: the name in traces and profiles.
    pub name: String,
    /// The instructions (register form, yieldpoints included).
    pub code: Box<[Instr]>,
    /// Source line of each instruction.
    pub lines: Box<[u32]>,
    /// Index of the source instruction each instruction was emitted for.
    pub source_index: Box<[u32]>,
    /// Source instructions each instruction accounts for (counting modes).
    pub counts: Box<[u32]>,
    /// Cost-model cycles each instruction accounts for (counting modes).
    pub costs: Box<[u32]>,
    /// The `store`s folded into instructions after their operation, by
    /// instruction (counting modes: a fault takes them back).
    pub folded_stores: Box<[FoldedStore]>,
    /// `.catch` ranges in instruction indices, in the order written.
    pub catches: Box<[Catch]>,
    /// Parameters (receiver included).
    pub nparams: u32,
    /// Parameters plus `.locals`.
    pub nlocals: u32,
    /// Slots a frame of this body occupies: locals, then operand depths.
    pub frame_size: u32,
}

impl Body {
    /// Source line of the instruction at `pc`.
    pub fn line_at(&self, pc: u32) -> u32 {
        self.lines.get(pc as usize).copied().unwrap_or(0)
    }

    /// The `store` folded into the instruction at `pc` after its
    /// operation, if any.
    pub fn folded_store_at(&self, pc: u32) -> Option<FoldedStore> {
        let i = self
            .folded_stores
            .binary_search_by_key(&pc, |f| f.at)
            .ok()?;
        Some(self.folded_stores[i])
    }
}

/// A loaded program.
#[derive(Debug)]
pub struct Program {
    /// The verified module: names, strings, source positions.
    pub module: Module,
    /// Code bodies as loaded; body `i` is the code of method `i`. Frames
    /// name their code by body id: look it up with [`Program::body`].
    pub bodies: Vec<Body>,
    /// Recompiled code installed while the program runs, one slot per
    /// method (body id `methods + i` is slot `i`); see [`crate::install`].
    pub installed: Box<[std::sync::OnceLock<Body>]>,
    /// Classes with their tables.
    pub classes: Vec<ClassInfo>,
    /// Field references of `getfield`/`putfield`: the class named in the
    /// instruction and the field's slot.
    pub field_refs: Vec<(ClassId, u32)>,
    /// Whether yieldpoints were inserted.
    pub yieldpoints: bool,
}

impl Program {
    /// Loads `module`, inserting yieldpoints if `yieldpoints` is true.
    pub fn load(module: Module, yieldpoints: bool) -> Program {
        let classes = layout_classes(&module);
        let mut field_refs: Vec<(ClassId, u32)> = Vec::new();
        let bodies = (0..module.methods.len())
            .map(|m| load_body(&module, m as MethodId, yieldpoints, &mut field_refs))
            .collect();
        let installed = (0..module.methods.len())
            .map(|_| Default::default())
            .collect();
        Program {
            module,
            bodies,
            installed,
            classes,
            field_refs,
            yieldpoints,
        }
    }

    /// The text of string constant `s`.
    pub fn string(&self, s: u32) -> &str {
        &self.module.strings[s as usize]
    }

    /// Is class `sub` the class `sup` or a subclass of it?
    #[inline]
    pub fn is_subclass(&self, sub: u32, sup: u32) -> bool {
        let depth = self.classes[sup as usize].depth();
        self.classes[sub as usize].ancestors.get(depth) == Some(&sup)
    }
}

fn layout_classes(module: &Module) -> Vec<ClassInfo> {
    module
        .classes
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut ancestors = vec![i as u32];
            let mut s = c.superclass;
            while let Some(k) = s {
                ancestors.push(k);
                s = module.classes[k as usize].superclass;
            }
            ancestors.reverse();
            let vtable = (0..module.selectors.len() as u32)
                .map(|sel| module.resolve_virtual(i as u32, sel).unwrap_or(NO_METHOD))
                .collect();
            ClassInfo {
                name: c.name.clone(),
                nfields: c.fields.len() as u32,
                ancestors: ancestors.into_boxed_slice(),
                vtable,
            }
        })
        .collect()
}

/// Builds the loaded code of method `id` (see [`crate::translate`]).
pub fn load_body(
    module: &Module,
    id: MethodId,
    yieldpoints: bool,
    field_refs: &mut Vec<(ClassId, u32)>,
) -> Body {
    let m = &module.methods[id as usize];
    let mut intern = |c: ClassId, slot: u32| -> u32 {
        match field_refs.iter().position(|&r| r == (c, slot)) {
            Some(i) => i as u32,
            None => {
                field_refs.push((c, slot));
                (field_refs.len() - 1) as u32
            }
        }
    };
    let t = translate(module, id, yieldpoints, &mut intern);
    Body {
        method: id,
        id,
        name: m.display_name(module),
        code: t.code.into_boxed_slice(),
        lines: t.lines.into_boxed_slice(),
        source_index: t.source_index.into_boxed_slice(),
        counts: t.counts.into_boxed_slice(),
        costs: t.costs.into_boxed_slice(),
        folded_stores: t.folded_stores.into_boxed_slice(),
        catches: t.catches.into_boxed_slice(),
        nparams: m.arity(),
        nlocals: m.frame_locals(),
        frame_size: t.frame_size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::assemble;

    const LOOP: &str = "\
.method main()
  .locals i
top:
  inc i 1
  load i
  push 10
  jlt top
  push 0
  ret
.end
";

    #[test]
    fn inserts_prologue_backedge_and_epilogue() {
        let p = Program::load(assemble("t.bc", LOOP).unwrap(), true);
        let code = &p.bodies[0].code;
        // inc i 1 / load i; push 10; jlt top / push 0; ret
        assert_eq!(
            &code[..],
            &[
                Instr::YieldPrologue,
                Instr::Inc { a: 0, v: 1 },
                Instr::JltRIY {
                    a: 0,
                    imm: 10,
                    t: 1
                },
                Instr::ConstInt { d: 1, v: 0 },
                Instr::RetY { a: 1 },
            ]
        );
        // Every source instruction is accounted for exactly once.
        assert_eq!(p.bodies[0].counts.iter().sum::<u32>(), 6);
        // Each yieldpoint adds one cycle to the instruction it is in.
        let plain = Program::load(assemble("t.bc", LOOP).unwrap(), false);
        assert_eq!(
            p.bodies[0].costs.iter().sum::<u32>(),
            plain.bodies[0].costs.iter().sum::<u32>() + 3
        );
        // A yieldpoint keeps the source line of what it guards.
        assert_eq!(p.bodies[0].lines[2], plain.bodies[0].lines[1]);
    }

    #[test]
    fn no_yieldpoints_loads_plain_code() {
        let p = Program::load(assemble("t.bc", LOOP).unwrap(), false);
        let code = &p.bodies[0].code;
        assert!(code.iter().all(|i| i.yield_kind().is_none()));
        assert_eq!(
            code[1],
            Instr::JltRI {
                a: 0,
                imm: 10,
                t: 0
            }
        );
    }

    #[test]
    fn vtables_and_subclass_tests() {
        let src = "\
.class A
  .field x
.end
.class B : A
  .field y
.end
.method A.f(this)
  push 1
  ret
.end
.method B.g(this)
  push 2
  ret
.end
.method main()
  push 0
  ret
.end
";
        let p = Program::load(assemble("t.bc", src).unwrap(), true);
        let (a, b) = (&p.classes[0], &p.classes[1]);
        assert_eq!(b.nfields, 2);
        assert_eq!(a.vtable[0], 0); // A.f
        assert_eq!(b.vtable[0], 0); // inherited
        assert_eq!(a.vtable[1], NO_METHOD);
        assert_eq!(b.vtable[1], 1);
        assert!(p.is_subclass(1, 0));
        assert!(!p.is_subclass(0, 1));
    }
}
