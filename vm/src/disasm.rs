//! `vm disasm`: the loaded code, yieldpoints included, in readable form.
//!
//! The loader translates stack code into a register form (see
//! [`crate::instr`]), so the listing names frame slots: locals by their
//! names, operand-stack temporaries as `t0`, `t1`, ... (`t0` is depth 0).
//! Each line shows the pc, the source line, and the instruction, e.g.
//!
//! ```text
//!      4  line 9    t0 = sub n, 1
//!      5  line 10   t0 = call fib(t0)
//! ```
//!
//! Every yieldpoint shows as `yieldpoint KIND`: the prologue on a line of
//! its own (pc 0), a yieldpoint fused into a jump or `ret` (see
//! [`crate::instr`]) in front of it on the same line, since it runs first:
//!
//! ```text
//!      0  line 12   yieldpoint prologue
//!      9  line 35   yieldpoint backedge; jmp -> 2
//!     14  line 42   yieldpoint epilogue; ret t0
//! ```

use std::fmt::Write as _;

use crate::instr::operand::{Arity, Base, ClassId, FieldRef, Global, MethodId, SelectorId, StrId};
use crate::instr::{ArgMoves, Instr, Slot};
use crate::loader::Program;

/// Renders every method's loaded code.
pub fn disassemble(p: &Program) -> String {
    disassemble_as(p, false)
}

/// Renders every method's loaded code (`exec` false), or the code the
/// plain interpreter runs (`exec` true: `vm disasm --exec`), where each
/// superinstruction ([`crate::superinstr`]) stands at its first
/// instruction's pc and the instructions it stands for stay after it:
///
/// ```text
///      1  line 273  t1 = this; t2 = from_pile; t1 = callvirt pop_disk_from(t1, t2)
///      2  line 273  t2 = from_pile; t1 = callvirt pop_disk_from(t1, t2)
///      3  line 273  t1 = callvirt pop_disk_from(t1, t2)
/// ```
///
/// A field superinstruction, which runs the next pc's instruction too
/// where it can, shows as both, joined by `; then `:
///
/// ```text
///      1  line 218  t0 = getfield this.Towers.piles; then top = aload t0[pile]
///      2  line 220  top = aload t0[pile]
/// ```
pub fn disassemble_as(p: &Program, exec: bool) -> String {
    let m = &p.module;
    let mut out = String::new();
    for g in &m.globals {
        let _ = writeln!(out, ".global {g}");
    }
    for (i, c) in m.classes.iter().enumerate() {
        let sup = c
            .superclass
            .map(|s| format!(" : {}", m.classes[s as usize].name))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            ".class {}{}  ; fields: {}",
            c.name,
            sup,
            m.all_fields(i as u32).join(", ")
        );
    }
    for body in &p.bodies {
        let method = &m.methods[body.method as usize];
        let _ = writeln!(
            out,
            "\n{}({})  ; {}, frame of {}",
            body.name,
            method.params.join(", "),
            crate::diag::count(body.nlocals as u64, "local", "locals"),
            crate::diag::count(body.frame_size as u64, "slot", "slots")
        );
        for c in body.catches.iter() {
            let _ = writeln!(out, "    .catch [{}, {}) -> {}", c.from, c.to, c.handler);
        }
        for (pc, &instr) in body.code.iter().enumerate() {
            let shown = if !exec {
                render(p, body.method, instr)
            } else if crate::superinstr::fuses_next(body.exec[pc]) {
                let next = body.code[pc + 1];
                format!(
                    "{}; then {}",
                    render(p, body.method, instr),
                    render(p, body.method, next)
                )
            } else {
                render(p, body.method, body.exec[pc])
            };
            let _ = writeln!(out, "  {pc:4}  line {:<4} {shown}", body.lines[pc]);
        }
    }
    out
}

/// One instruction with its slots and operands named; a fused yieldpoint
/// shows in front of the instruction it is fused into.
pub fn render(p: &Program, method: u32, i: Instr) -> String {
    i.render(&Names::new(p, method))
}

/// What the operands of one method's instructions denote: the names
/// [`Instr::render`] shows instead of numbers.
pub struct Names<'a> {
    p: &'a Program,
    method: u32,
}

impl<'a> Names<'a> {
    /// The names of method `method` of `p`.
    pub fn new(p: &'a Program, method: u32) -> Names<'a> {
        Names { p, method }
    }

    /// A frame slot: a local by its name, an operand-stack slot as `tK`
    /// (`t0` is depth 0).
    pub fn slot(&self, slot: Slot) -> String {
        let meth = &self.p.module.methods[self.method as usize];
        let nlocals = meth.frame_locals();
        if slot < nlocals {
            meth.params
                .iter()
                .chain(&meth.locals)
                .nth(slot as usize)
                .cloned()
                .unwrap_or_else(|| format!("l{slot}"))
        } else {
            format!("t{}", slot - nlocals)
        }
    }

    /// A global's name.
    pub fn global(&self, g: Global) -> &str {
        &self.p.module.globals[g as usize]
    }

    /// A field reference as `Class.field`.
    pub fn field(&self, f: FieldRef) -> String {
        let m = &self.p.module;
        let (c, slot) = self.p.field_refs[f as usize];
        let class = &m.classes[c as usize];
        format!("{}.{}", class.name, m.field_name(c, slot).unwrap_or("?"))
    }

    /// A class's name.
    pub fn class(&self, c: ClassId) -> &str {
        &self.p.module.classes[c as usize].name
    }

    /// A string constant, quoted and escaped.
    pub fn string(&self, s: StrId) -> String {
        format!("{:?}", self.p.string(s))
    }

    /// `base = MNEMONIC callee(args)`, for a static call or a spawn.
    pub fn call(&self, mnemonic: &str, callee: MethodId, base: Base) -> String {
        let body = &self.p.bodies[callee as usize];
        format!(
            "{} = {mnemonic} {}({})",
            self.slot(base),
            body.name,
            self.window(base, body.nparams)
        )
    }

    /// `base = callvirt selector(args)`.
    pub fn call_virt(&self, selector: SelectorId, base: Base, arity: Arity) -> String {
        format!(
            "{} = callvirt {}({})",
            self.slot(base),
            self.p.module.selectors[selector as usize].name,
            self.window(base, arity)
        )
    }

    /// `base = callvirt selector(args)`, the window as long as the
    /// selector's arity.
    pub fn call_virt_of(&self, selector: SelectorId, base: Base) -> String {
        self.call_virt(
            selector,
            base,
            self.p.module.selectors[selector as usize].arity,
        )
    }

    /// The moves of an argument-passing superinstruction, as `vm disasm`
    /// shows moves (`t1 = this; t2 = x`).
    pub fn arg_moves(&self, args: ArgMoves) -> String {
        args.moves()
            .map(|(d, s)| format!("{} = {}", self.slot(d), self.slot(s)))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The `n` slots from `base`, comma-separated.
    fn window(&self, base: Slot, n: u32) -> String {
        (base..base + n)
            .map(|s| self.slot(s))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
