//! The stack-height dataflow check (docs/LANGUAGE.md "Checks before running").
//!
//! Each reachable instruction gets one operand-stack height: 0 at the method
//! entry, 1 at each `.catch` handler (the thrown value). Heights flow along
//! fall-through and jump edges; the method is rejected if a path could pop
//! more than the stack holds, if two paths reach one instruction with
//! different heights (reported where they meet), or if a path runs off the
//! end of the method (reported at its last instruction). `ret`, `throw`,
//! `jmp` and `halt` end a path. The check is about heights, not kinds: a
//! value of the wrong kind is a runtime error.
//!
//! The deepest height reached is recorded as [`Method::max_stack`], which the
//! loader uses to size frames.

use crate::diag::{Diagnostic, Pos};
use crate::module::{Method, Module, Op};
use crate::opcode::{Flow, StackEffect};
use crate::value::SLOT_BYTES;

/// Values an instruction pops and pushes, calls resolved against `module`.
pub fn effect(module: &Module, op: Op) -> (u32, u32) {
    match op.opcode().effect() {
        StackEffect::Fixed { pops, pushes } => (pops as u32, pushes as u32),
        StackEffect::Call => {
            let arity = match op {
                Op::Call(m) | Op::Spawn(m) => module.methods[m as usize].arity(),
                Op::CallVirt(s) => module.selectors[s as usize].arity,
                other => unreachable!("{other:?} has a call effect"),
            };
            (arity, 1)
        }
    }
}

/// What the stack check learns about a method that passes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heights {
    /// The deepest operand stack any path reaches.
    pub max: u32,
    /// Operand-stack height before each instruction; `None` if unreachable.
    pub at: Vec<Option<u32>>,
}

/// Checks one method; returns its stack heights if it passes.
pub fn check_method(module: &Module, m: &Method, diags: &mut Vec<Diagnostic>) -> Option<Heights> {
    let n = m.code.len();
    let name = m.display_name(module);
    if n == 0 {
        diags.push(Diagnostic::new(
            m.end,
            format!("method `{name}` has no instructions and runs off its end"),
        ));
        return None;
    }
    let before = diags.len();
    let mut heights: Vec<Option<u32>> = vec![None; n];
    let mut reported_meet = vec![false; n];
    let mut off_end = false;
    let mut max = 0u32;
    let mut work: Vec<(usize, u32)> = vec![(0, 0)];
    for c in &m.catches {
        work.push((c.handler as usize, 1));
    }
    // Seed entry points with their heights, then propagate.
    let mut seeds = std::mem::take(&mut work);
    seeds.reverse();
    let mut flow_into = |at: usize,
                         h: u32,
                         work: &mut Vec<(usize, u32)>,
                         diags: &mut Vec<Diagnostic>| {
        if at >= n {
            if !off_end {
                off_end = true;
                diags.push(Diagnostic::new(
                    m.code[n - 1].pos,
                    format!("method `{name}` can run off its end (every path must end in ret, throw, jmp or halt)"),
                ));
            }
            return;
        }
        match heights[at] {
            None => {
                heights[at] = Some(h);
                work.push((at, h));
            }
            Some(old) if old != h && !reported_meet[at] => {
                reported_meet[at] = true;
                diags.push(Diagnostic::new(
                    m.code[at].pos,
                    format!(
                        "stack height differs between paths into this instruction ({old} and {h})"
                    ),
                ));
            }
            Some(_) => {}
        }
    };
    for (at, h) in seeds.drain(..) {
        flow_into(at, h, &mut work, diags);
    }
    while let Some((i, h)) = work.pop() {
        let insn = m.code[i];
        let (pops, pushes) = effect(module, insn.op);
        if h < pops {
            diags.push(Diagnostic::new(
                insn.pos,
                format!(
                    "stack underflow: `{}` needs {} but the stack holds {h}",
                    insn.op.opcode().mnemonic(),
                    crate::diag::count(pops, "value", "values")
                ),
            ));
            continue;
        }
        let after = h - pops + pushes;
        max = max.max(h).max(after);
        match insn.op.opcode().flow() {
            Flow::Next => flow_into(i + 1, after, &mut work, diags),
            Flow::Jump => flow_into(
                insn.op.target().expect("jump") as usize,
                after,
                &mut work,
                diags,
            ),
            Flow::Branch => {
                flow_into(
                    insn.op.target().expect("branch") as usize,
                    after,
                    &mut work,
                    diags,
                );
                flow_into(i + 1, after, &mut work, diags);
            }
            Flow::End => {}
        }
    }
    check_frame_size(&name, m.frame_locals(), max, m.end, diags);
    (diags.len() == before).then_some(Heights { max, at: heights })
}

/// The most slots a frame may have (locals and operand depths): the
/// interpreter names a slot by its byte offset in the frame, a `u32`, and a
/// slot is [`SLOT_BYTES`] bytes.
pub const MAX_FRAME_SLOTS: u32 = u32::MAX / SLOT_BYTES;

/// Rejects a method whose frame, `locals` plus the `max_stack` operand
/// depths, has more than [`MAX_FRAME_SLOTS`] slots (reported at its
/// `.end`).
fn check_frame_size(
    name: &str,
    locals: u32,
    max_stack: u32,
    end: Pos,
    diags: &mut Vec<Diagnostic>,
) {
    let slots = u64::from(locals) + u64::from(max_stack);
    if slots > u64::from(MAX_FRAME_SLOTS) {
        diags.push(Diagnostic::new(
            end,
            format!(
                "method `{name}` needs {slots} frame slots ({locals} locals and a stack {max_stack} deep); at most {MAX_FRAME_SLOTS}"
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_diags(locals: u32, max_stack: u32) -> Vec<Diagnostic> {
        let mut diags = Vec::new();
        check_frame_size("m", locals, max_stack, Pos::default(), &mut diags);
        diags
    }

    #[test]
    fn a_frame_whose_last_slot_offset_fits_a_u32_passes() {
        assert!(frame_diags(MAX_FRAME_SLOTS - 5, 5).is_empty());
        let last_offset = u64::from(MAX_FRAME_SLOTS - 1) * u64::from(SLOT_BYTES);
        assert!(last_offset <= u64::from(u32::MAX));
    }

    #[test]
    fn a_frame_one_slot_larger_is_rejected_with_its_size() {
        let diags = frame_diags(MAX_FRAME_SLOTS - 5, 6);
        assert_eq!(diags.len(), 1);
        assert!(
            diags[0].message.contains("needs 268435456 frame slots"),
            "{}",
            diags[0].message
        );
        assert_eq!(frame_diags(u32::MAX, u32::MAX).len(), 1);
    }
}
