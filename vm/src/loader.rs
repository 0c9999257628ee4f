//! The loader: a verified [`Module`] to a runnable [`Program`].
//!
//! It lays out classes (a subclass's fields after its superclass's, already
//! computed by the resolver), numbers the class forest for O(1) subclass
//! tests ([`ClassOrder`]), builds virtual-method tables (indexed by
//! selector; see [`Program::load`] for how their size is bounded), and
//! turns each method into a [`Body`] of [`Instr`]s with the yieldpoints
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

use std::collections::HashMap;
use std::sync::Arc;

use crate::instr::Instr;
use crate::module::{Catch, ClassId, ClassOrder, MethodId, Module, SelectorId};
use crate::translate::{translate, FoldedStore};
use crate::value::SLOT_BYTES;

/// Marks "no method" in a virtual-method table.
pub const NO_METHOD: u32 = u32::MAX;

/// A class as the interpreter sees it.
#[derive(Clone, Debug)]
pub struct ClassInfo {
    /// The class name.
    pub name: String,
    /// Number of fields, inherited ones included.
    pub nfields: u32,
    /// Pre-order number in the class forest (see [`ClassOrder`]).
    pub pre: u32,
    /// Number of proper subclasses: they are numbered `pre + 1 ..= pre + span`.
    pub span: u32,
    /// Per selector, the body `callvirt` runs for this class, or
    /// [`NO_METHOD`]; selectors past its end have no method, unless the
    /// table is not `complete`. A class that defines no method shares its
    /// superclass's table.
    pub vtable: Arc<[u32]>,
    /// False for a class whose table was not built because the tables
    /// would have exceeded [`VTABLE_BUDGET`]: `callvirt` on it looks the
    /// method up through the superclass chain ([`Program::lookup_virtual`]).
    pub complete: bool,
}

/// The most virtual-method table entries a program's classes may hold
/// together (64 MB of entries); classes past it dispatch through
/// [`Program::lookup_virtual`].
pub const VTABLE_BUDGET: usize = 1 << 24;

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
    /// What the plain interpreter runs: `code` with superinstructions in
    /// place ([`crate::superinstr`]), the same length, pc for pc.
    pub exec: Box<[Instr]>,
    /// `code` as the counting interpreters run it: each slot operand is
    /// the slot's byte offset in the frame ([`Instr::slots_scaled`]), so
    /// that reading a slot is one addressing mode, not a shift and a load.
    pub run_code: Box<[Instr]>,
    /// `exec` as the plain interpreter runs it, slots in bytes likewise.
    pub run_exec: Box<[Instr]>,
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
    /// `nlocals - nparams`: the slots after the parameters that a call
    /// zeroes (kept so that a call tests it without a subtraction).
    pub own_locals: u32,
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
    /// The virtual methods each class defines itself, by class and selector.
    pub own_methods: HashMap<(ClassId, SelectorId), MethodId>,
    /// Whether yieldpoints were inserted.
    pub yieldpoints: bool,
}

impl Program {
    /// Loads `module`, inserting yieldpoints if `yieldpoints` is true.
    ///
    /// Loading takes time and memory near-linear in the module's size, but
    /// for the virtual-method tables: a class's table is its superclass's
    /// with the class's own methods written over it (shared outright when
    /// it defines none), as long as the selectors the chain defines, and
    /// all tables together hold at most [`VTABLE_BUDGET`] entries; classes
    /// past the budget look methods up through their superclass chain.
    pub fn load(module: Module, yieldpoints: bool) -> Program {
        let own_methods = own_methods(&module);
        let classes = layout_classes(&module, &own_methods, VTABLE_BUDGET);
        let mut field_refs = FieldRefs::default();
        let bodies = (0..module.methods.len())
            .map(|m| load_body(&module, m as MethodId, yieldpoints, &mut field_refs))
            .collect();
        let field_refs = field_refs.refs;
        let installed = (0..module.methods.len())
            .map(|_| Default::default())
            .collect();
        Program {
            module,
            bodies,
            installed,
            classes,
            field_refs,
            own_methods,
            yieldpoints,
        }
    }

    /// The body `callvirt sel` runs for a receiver of class `class`, or
    /// [`NO_METHOD`]. The interpreter reads the class's table first; this
    /// is its slow path for a class past the table budget.
    #[cold]
    pub fn lookup_virtual(&self, class: ClassId, sel: SelectorId) -> u32 {
        let mut c = Some(class);
        while let Some(k) = c {
            let info = &self.classes[k as usize];
            if info.complete {
                return info.vtable.get(sel as usize).copied().unwrap_or(NO_METHOD);
            }
            if let Some(&m) = self.own_methods.get(&(k, sel)) {
                return m;
            }
            c = self.module.classes[k as usize].superclass;
        }
        NO_METHOD
    }

    /// The text of string constant `s`.
    pub fn string(&self, s: u32) -> &str {
        &self.module.strings[s as usize]
    }

    /// Is class `sub` the class `sup` or a subclass of it?
    #[inline]
    pub fn is_subclass(&self, sub: u32, sup: u32) -> bool {
        let (sub, sup) = (&self.classes[sub as usize], &self.classes[sup as usize]);
        sub.pre.wrapping_sub(sup.pre) <= sup.span
    }
}

/// The virtual methods each class defines, by (class, selector).
fn own_methods(module: &Module) -> HashMap<(ClassId, SelectorId), MethodId> {
    let mut map = HashMap::new();
    for (i, m) in module.methods.iter().enumerate() {
        if let (Some(c), Some(s)) = (m.class, m.selector) {
            // The first definition wins, as in `Module::resolve_virtual`.
            map.entry((c, s)).or_insert(i as MethodId);
        }
    }
    map
}

/// Builds each class's info, superclasses first (pre-order), with at most
/// `budget` table entries in all.
fn layout_classes(
    module: &Module,
    own: &HashMap<(ClassId, SelectorId), MethodId>,
    budget: usize,
) -> Vec<ClassInfo> {
    let supers: Vec<Option<ClassId>> = module.classes.iter().map(|c| c.superclass).collect();
    let order = ClassOrder::new(&supers);
    let n = module.classes.len();
    let mut by_pre = vec![0usize; n];
    for (c, &p) in order.pre.iter().enumerate() {
        by_pre[p as usize] = c;
    }
    // Own methods per class, as (selector, method).
    let mut defines: Vec<Vec<(SelectorId, MethodId)>> = vec![Vec::new(); n];
    for (&(c, s), &m) in own {
        defines[c as usize].push((s, m));
    }
    let empty: Arc<[u32]> = Arc::from(Vec::new());
    let mut tables: Vec<Option<Arc<[u32]>>> = vec![None; n];
    let mut used = 0usize;
    for &k in &by_pre {
        let parent = match supers[k] {
            Some(s) => tables[s as usize].clone(),
            None => Some(empty.clone()),
        };
        // A class past the budget leaves its subclasses past it too.
        let Some(parent) = parent else { continue };
        let mine = &defines[k];
        if mine.is_empty() {
            tables[k] = Some(parent);
            continue;
        }
        let len = mine
            .iter()
            .map(|&(s, _)| s as usize + 1)
            .max()
            .unwrap_or(0)
            .max(parent.len());
        if used + len > budget {
            continue;
        }
        used += len;
        let mut t = parent.to_vec();
        t.resize(len, NO_METHOD);
        for &(s, m) in mine {
            t[s as usize] = m;
        }
        tables[k] = Some(Arc::from(t));
    }
    module
        .classes
        .iter()
        .enumerate()
        .map(|(i, c)| ClassInfo {
            name: c.name.clone(),
            nfields: c.nfields() as u32,
            pre: order.pre[i],
            span: order.span[i],
            complete: tables[i].is_some(),
            vtable: tables[i].take().unwrap_or_else(|| empty.clone()),
        })
        .collect()
}

/// The field-reference table being built: `getfield`/`putfield` operands
/// interned as (class, slot) pairs.
#[derive(Clone, Debug, Default)]
pub struct FieldRefs {
    /// The pairs, in order of first use.
    pub refs: Vec<(ClassId, u32)>,
    index: HashMap<(ClassId, u32), u32>,
}

impl FieldRefs {
    /// A table holding `refs` (as loaded).
    pub fn new(refs: &[(ClassId, u32)]) -> FieldRefs {
        let index = refs
            .iter()
            .enumerate()
            .map(|(i, &r)| (r, i as u32))
            .collect();
        FieldRefs {
            refs: refs.to_vec(),
            index,
        }
    }

    /// The index of pair (`class`, `slot`), added if new.
    pub fn intern(&mut self, class: ClassId, slot: u32) -> u32 {
        let next = self.refs.len() as u32;
        let i = *self.index.entry((class, slot)).or_insert(next);
        if i == next {
            self.refs.push((class, slot));
        }
        i
    }
}

/// Builds the loaded code of method `id` (see [`crate::translate`]).
pub fn load_body(
    module: &Module,
    id: MethodId,
    yieldpoints: bool,
    field_refs: &mut FieldRefs,
) -> Body {
    let m = &module.methods[id as usize];
    let mut intern = |c: ClassId, slot: u32| -> u32 { field_refs.intern(c, slot) };
    let t = translate(module, id, yieldpoints, &mut intern);
    let exec = crate::superinstr::exec_code(&t.code);
    Body {
        method: id,
        id,
        name: m.display_name(module),
        run_code: slots_in_bytes(&t.code),
        run_exec: slots_in_bytes(&exec),
        exec,
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
        own_locals: m.frame_locals() - m.arity(),
    }
}

/// `code` with its slot operands as byte offsets, the form the interpreter
/// runs. Every offset fits: the verifier bounds a frame to
/// [`MAX_FRAME_SLOTS`](crate::verify::stack::MAX_FRAME_SLOTS) slots.
fn slots_in_bytes(code: &[Instr]) -> Box<[Instr]> {
    code.iter()
        .map(|i| {
            i.slots_scaled(SLOT_BYTES)
                .expect("a verified frame's offsets fit a u32")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    /// A forest: A, B : A, C : B, D : A, E (a second root), F : E; methods
    /// A.m, C.m, D.n, F.m. With `budget` table entries in all.
    fn forest(budget: usize) -> (Module, Vec<ClassInfo>, HashMap<(u32, u32), u32>) {
        let src = "\
.class A
.end
.class B : A
.end
.class C : B
.end
.class D : A
.end
.class E
.end
.class F : E
.end
.method A.m(s)
  push 1
  ret
.end
.method C.m(s)
  push 2
  ret
.end
.method D.n(s)
  push 3
  ret
.end
.method F.m(s)
  push 4
  ret
.end
.method main()
  push 0
  ret
.end
";
        let module = assemble("t.bc", src).unwrap();
        let own = own_methods(&module);
        let classes = layout_classes(&module, &own, budget);
        (module, classes, own)
    }

    #[test]
    fn subclass_tests_follow_the_forest() {
        let p = Program::load(forest(VTABLE_BUDGET).0, false);
        let (a, b, c, d, e, f) = (0, 1, 2, 3, 4, 5);
        let yes = [
            (a, a),
            (b, a),
            (c, a),
            (c, b),
            (d, a),
            (f, e),
            (e, e),
            (c, c),
        ];
        for sub in 0..6 {
            for sup in 0..6 {
                let expect = yes.contains(&(sub, sup)) || sub == sup;
                assert_eq!(p.is_subclass(sub, sup), expect, "{sub} <: {sup}");
                assert_eq!(p.module.is_subclass(sub, sup), expect);
            }
        }
    }

    #[test]
    fn tables_are_shared_and_the_budget_falls_back_to_the_chain() {
        let (module, classes, _) = forest(VTABLE_BUDGET);
        // B defines nothing: it shares A's table.
        assert!(Arc::ptr_eq(&classes[0].vtable, &classes[1].vtable));
        assert!(!Arc::ptr_eq(&classes[1].vtable, &classes[2].vtable));
        // Every class dispatches as `resolve_virtual` says, with any budget.
        for budget in [VTABLE_BUDGET, 3, 2, 1, 0] {
            let mut p = Program::load(module.clone(), false);
            let own = own_methods(&module);
            p.classes = layout_classes(&module, &own, budget);
            let used: usize = {
                let mut seen: Vec<*const u32> = Vec::new();
                p.classes
                    .iter()
                    .filter(|c| !c.vtable.is_empty())
                    .filter(|c| {
                        let ptr = c.vtable.as_ptr();
                        let new = !seen.contains(&ptr);
                        seen.push(ptr);
                        new
                    })
                    .map(|c| c.vtable.len())
                    .sum()
            };
            assert!(used <= budget, "budget {budget}: {used} entries");
            for class in 0..6 {
                for sel in 0..module.selectors.len() as u32 {
                    let want = module.resolve_virtual(class, sel).unwrap_or(NO_METHOD);
                    let fast = p.classes[class as usize].vtable.get(sel as usize).copied();
                    let got = fast.unwrap_or_else(|| p.lookup_virtual(class, sel));
                    assert_eq!(got, want, "budget {budget}, class {class}, selector {sel}");
                }
            }
        }
        let p = {
            let mut p = Program::load(module.clone(), false);
            p.classes = layout_classes(&module, &own_methods(&module), 0);
            p
        };
        assert!(p.classes.iter().any(|c| !c.complete));
    }

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
        assert_eq!(a.vtable.get(1), None); // past A's table: no method
        assert_eq!(p.lookup_virtual(0, 1), NO_METHOD);
        assert_eq!(b.vtable[1], 1);
        assert!(p.is_subclass(1, 0));
        assert!(!p.is_subclass(0, 1));
        assert!(a.complete && b.complete);
    }
}
