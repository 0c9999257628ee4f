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

use crate::instr::{Instr, Slot, YieldKind};
use crate::loader::Program;

/// Renders every method's loaded code.
pub fn disassemble(p: &Program) -> String {
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
        for (pc, instr) in body.code.iter().enumerate() {
            let _ = writeln!(
                out,
                "  {pc:4}  line {:<4} {}",
                body.lines[pc],
                render(p, body.method, *instr)
            );
        }
    }
    out
}

/// One instruction with its slots and operands named.
pub fn render(p: &Program, method: u32, i: Instr) -> String {
    match i.yield_kind() {
        Some(kind) if i != Instr::YieldPrologue => format!(
            "yieldpoint {}; {}",
            kind_name(kind),
            render_plain(p, method, i.without_yieldpoint())
        ),
        _ => render_plain(p, method, i),
    }
}

fn kind_name(kind: YieldKind) -> &'static str {
    match kind {
        YieldKind::Prologue => "prologue",
        YieldKind::Epilogue => "epilogue",
        YieldKind::Backedge => "backedge",
    }
}

/// An instruction without a fused yieldpoint.
fn render_plain(p: &Program, method: u32, i: Instr) -> String {
    let m = &p.module;
    let meth = &m.methods[method as usize];
    let nlocals = meth.frame_locals();
    let s = |slot: Slot| -> String {
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
    };
    let args =
        |base: Slot, n: u32| -> String { (base..base + n).map(s).collect::<Vec<_>>().join(", ") };
    let field = |f: u32| {
        let (c, slot) = p.field_refs[f as usize];
        let class = &m.classes[c as usize];
        format!("{}.{}", class.name, m.field_name(c, slot).unwrap_or("?"))
    };
    let class = |c: u32| m.classes[c as usize].name.clone();
    use Instr::*;
    match i {
        YieldPrologue => "yieldpoint prologue".into(),
        Nop => "nop".into(),
        Move { d, a } => format!("{} = {}", s(d), s(a)),
        Swap { a, b } => format!("swap {}, {}", s(a), s(b)),
        ConstInt { d, v } => format!("{} = {v}", s(d)),
        ConstStr { d, s: id } => format!("{} = {:?}", s(d), p.string(id)),
        ConstNull { d } => format!("{} = null", s(d)),
        AddRR { d, a, b } => format!("{} = add {}, {}", s(d), s(a), s(b)),
        AddRI { d, a, imm } => format!("{} = add {}, {imm}", s(d), s(a)),
        SubRR { d, a, b } => format!("{} = sub {}, {}", s(d), s(a), s(b)),
        SubRI { d, a, imm } => format!("{} = sub {}, {imm}", s(d), s(a)),
        MulRR { d, a, b } => format!("{} = mul {}, {}", s(d), s(a), s(b)),
        MulRI { d, a, imm } => format!("{} = mul {}, {imm}", s(d), s(a)),
        DivRR { d, a, b } => format!("{} = div {}, {}", s(d), s(a), s(b)),
        RemRR { d, a, b } => format!("{} = rem {}, {}", s(d), s(a), s(b)),
        AndRR { d, a, b } => format!("{} = and {}, {}", s(d), s(a), s(b)),
        AndRI { d, a, imm } => format!("{} = and {}, {imm}", s(d), s(a)),
        OrRR { d, a, b } => format!("{} = or {}, {}", s(d), s(a), s(b)),
        OrRI { d, a, imm } => format!("{} = or {}, {imm}", s(d), s(a)),
        XorRR { d, a, b } => format!("{} = xor {}, {}", s(d), s(a), s(b)),
        XorRI { d, a, imm } => format!("{} = xor {}, {imm}", s(d), s(a)),
        ShlRR { d, a, b } => format!("{} = shl {}, {}", s(d), s(a), s(b)),
        ShlRI { d, a, imm } => format!("{} = shl {}, {imm}", s(d), s(a)),
        ShrRR { d, a, b } => format!("{} = shr {}, {}", s(d), s(a), s(b)),
        ShrRI { d, a, imm } => format!("{} = shr {}, {imm}", s(d), s(a)),
        LtRR { d, a, b } => format!("{} = lt {}, {}", s(d), s(a), s(b)),
        LtRI { d, a, imm } => format!("{} = lt {}, {imm}", s(d), s(a)),
        LeRR { d, a, b } => format!("{} = le {}, {}", s(d), s(a), s(b)),
        LeRI { d, a, imm } => format!("{} = le {}, {imm}", s(d), s(a)),
        GtRR { d, a, b } => format!("{} = gt {}, {}", s(d), s(a), s(b)),
        GtRI { d, a, imm } => format!("{} = gt {}, {imm}", s(d), s(a)),
        GeRR { d, a, b } => format!("{} = ge {}, {}", s(d), s(a), s(b)),
        GeRI { d, a, imm } => format!("{} = ge {}, {imm}", s(d), s(a)),
        EqRR { d, a, b } => format!("{} = eq {}, {}", s(d), s(a), s(b)),
        EqRI { d, a, imm } => format!("{} = eq {}, {imm}", s(d), s(a)),
        NeRR { d, a, b } => format!("{} = ne {}, {}", s(d), s(a), s(b)),
        NeRI { d, a, imm } => format!("{} = ne {}, {imm}", s(d), s(a)),
        Neg { d, a } => format!("{} = neg {}", s(d), s(a)),
        Not { d, a } => format!("{} = not {}", s(d), s(a)),
        Inc { a, v } => format!("inc {} {v}", s(a)),
        GetGlobal { d, g } => format!("{} = getglobal {}", s(d), m.globals[g as usize]),
        PutGlobal { g, a } => format!("putglobal {}, {}", m.globals[g as usize], s(a)),
        AddGlobal { d, g, a } => {
            format!("{} = addglobal {}, {}", s(d), m.globals[g as usize], s(a))
        }
        Jmp { t } => format!("jmp -> {t}"),
        Jz { a, t } => format!("jz {} -> {t}", s(a)),
        Jnz { a, t } => format!("jnz {} -> {t}", s(a)),
        JeqRR { a, b, t } => format!("jeq {}, {} -> {t}", s(a), s(b)),
        JeqRI { a, imm, t } => format!("jeq {}, {imm} -> {t}", s(a)),
        JneRR { a, b, t } => format!("jne {}, {} -> {t}", s(a), s(b)),
        JneRI { a, imm, t } => format!("jne {}, {imm} -> {t}", s(a)),
        JltRR { a, b, t } => format!("jlt {}, {} -> {t}", s(a), s(b)),
        JltRI { a, imm, t } => format!("jlt {}, {imm} -> {t}", s(a)),
        JleRR { a, b, t } => format!("jle {}, {} -> {t}", s(a), s(b)),
        JleRI { a, imm, t } => format!("jle {}, {imm} -> {t}", s(a)),
        JgtRR { a, b, t } => format!("jgt {}, {} -> {t}", s(a), s(b)),
        JgtRI { a, imm, t } => format!("jgt {}, {imm} -> {t}", s(a)),
        JgeRR { a, b, t } => format!("jge {}, {} -> {t}", s(a), s(b)),
        JgeRI { a, imm, t } => format!("jge {}, {imm} -> {t}", s(a)),
        Call { m: callee, base } => {
            let n = p.bodies[callee as usize].nparams;
            format!(
                "{} = call {}({})",
                s(base),
                p.bodies[callee as usize].name,
                args(base, n)
            )
        }
        CallVirt {
            selector,
            base,
            arity,
        } => format!(
            "{} = callvirt {}({})",
            s(base),
            m.selectors[selector as usize].name,
            args(base, arity)
        ),
        Ret { a } => format!("ret {}", s(a)),
        New { d, class: c } => format!("{} = new {}", s(d), class(c)),
        GetField { d, obj, f } => format!("{} = getfield {}.{}", s(d), s(obj), field(f)),
        PutField { obj, v, f } => format!("putfield {}.{}, {}", s(obj), field(f), s(v)),
        InstanceOf { d, a, class: c } => format!("{} = instanceof {}, {}", s(d), s(a), class(c)),
        IsClass { d, a, class: c } => format!("{} = isclass {}, {}", s(d), s(a), class(c)),
        NewArray { d, n } => format!("{} = newarray {}", s(d), s(n)),
        ALoad { d, arr, i } => format!("{} = aload {}[{}]", s(d), s(arr), s(i)),
        AStore { arr, i, v } => format!("astore {}[{}], {}", s(arr), s(i), s(v)),
        ALen { d, arr } => format!("{} = alen {}", s(d), s(arr)),
        Print { a } => format!("print {}", s(a)),
        Throw { a } => format!("throw {}", s(a)),
        Spawn { m: callee, base } => {
            let n = p.bodies[callee as usize].nparams;
            format!(
                "{} = spawn {}({})",
                s(base),
                p.bodies[callee as usize].name,
                args(base, n)
            )
        }
        Join { d, a } => format!("{} = join {}", s(d), s(a)),
        Sleep { a } => format!("sleep {}", s(a)),
        Halt { a } => format!("halt {}", s(a)),
        // Fused yieldpoints are split off by `render`.
        RetY { .. }
        | JmpY { .. }
        | JzY { .. }
        | JnzY { .. }
        | JeqRRY { .. }
        | JeqRIY { .. }
        | JneRRY { .. }
        | JneRIY { .. }
        | JltRRY { .. }
        | JltRIY { .. }
        | JleRRY { .. }
        | JleRIY { .. }
        | JgtRRY { .. }
        | JgtRIY { .. }
        | JgeRRY { .. }
        | JgeRIY { .. } => render(p, method, i),
    }
}
