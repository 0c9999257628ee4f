//! `vm disasm`: the loaded code, yieldpoints included, in readable form.

use std::fmt::Write as _;

use crate::instr::{Instr, YieldKind};
use crate::loader::Program;

/// Renders every method's loaded code.
pub fn disassemble(p: &Program) -> String {
    let m = &p.module;
    let mut out = String::new();
    for g in &m.globals {
        let _ = writeln!(out, ".global {g}");
    }
    for c in &m.classes {
        let sup = c
            .superclass
            .map(|s| format!(" : {}", m.classes[s as usize].name))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            ".class {}{}  ; fields: {}",
            c.name,
            sup,
            c.fields.join(", ")
        );
    }
    for body in &p.bodies {
        let method = &m.methods[body.method as usize];
        let _ = writeln!(
            out,
            "\n{}({})  ; locals {}, max stack {}",
            body.name,
            method.params.join(", "),
            body.nlocals,
            body.max_stack
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

/// One instruction with its operands named.
pub fn render(p: &Program, method: u32, i: Instr) -> String {
    let m = &p.module;
    let local = |l: u32| {
        let meth = &m.methods[method as usize];
        meth.params
            .iter()
            .chain(&meth.locals)
            .nth(l as usize)
            .cloned()
            .unwrap_or_else(|| l.to_string())
    };
    let field = |c: u32, f: u32| {
        let class = &m.classes[c as usize];
        format!("{}.{}", class.name, class.fields[f as usize])
    };
    let Some(op) = i.opcode() else {
        let k = i.yield_kind().expect("only yieldpoints lack an opcode");
        return match k {
            YieldKind::Prologue => "yieldpoint prologue".into(),
            YieldKind::Epilogue => "yieldpoint epilogue".into(),
            YieldKind::Backedge => "yieldpoint backedge".into(),
        };
    };
    let mn = op.mnemonic();
    match i {
        Instr::PushInt(v) => format!("{mn} {v}"),
        Instr::PushStr(s) => format!("{mn} {:?}", p.string(s)),
        Instr::Load(l) | Instr::Store(l) => format!("{mn} {}", local(l)),
        Instr::Inc(l, k) => format!("{mn} {} {k}", local(l)),
        Instr::GetGlobal(g) | Instr::PutGlobal(g) | Instr::AddGlobal(g) => {
            format!("{mn} {}", m.globals[g as usize])
        }
        Instr::Jmp(t)
        | Instr::Jz(t)
        | Instr::Jnz(t)
        | Instr::Jeq(t)
        | Instr::Jne(t)
        | Instr::Jlt(t)
        | Instr::Jle(t)
        | Instr::Jgt(t)
        | Instr::Jge(t) => format!("{mn} -> {t}"),
        Instr::Call(b) | Instr::Spawn(b) => format!("{mn} {}", p.bodies[b as usize].name),
        Instr::CallVirt { selector, .. } => format!("{mn} {}", m.selectors[selector as usize].name),
        Instr::New(c) | Instr::InstanceOf(c) | Instr::IsClass(c) => {
            format!("{mn} {}", m.classes[c as usize].name)
        }
        Instr::GetField(c, f) | Instr::PutField(c, f) => format!("{mn} {}", field(c, f)),
        _ => mn.to_string(),
    }
}
