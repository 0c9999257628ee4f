//! Superinstructions: the copy of a body's code that the plain interpreter
//! runs.
//!
//! The loader keeps two copies of each method's register code
//! ([`crate::loader::Body`]): `code`, which `vm disasm` shows and the
//! counting interpreters (virtual clock, exhaustive profiles, `--cycles`)
//! run, and `exec`, made here from it, which the plain interpreter runs.
//! `exec` has the same length and the same instruction at every pc except
//! where a pair of instructions that the benchmarks execute back to back is
//! replaced, at the first one's pc, by a superinstruction that does both in
//! one dispatch (the technique of Ertl and Gregg's superinstructions, chosen
//! from `--profile=exhaustive` counts and callgrind profiles of
//! `programs/bench/` and `programs/awfy/`: docs/ARCHITECTURE.md, "The
//! interpreter"). Every other instruction stays, so pcs, return addresses,
//! catch ranges, source lines and the pcs of the yieldpoints are those of
//! `code`: a sample, a trace or an error reports what it would have without
//! superinstructions.
//!
//! The first superinstruction is the **rotated loop test**. A loop
//! whose test is at its top loads as
//!
//! ```text
//! t:     jge i, n -> x        ; the test: leave the loop
//! t+1:   ...                  ; the body
//! x-1:   yieldpoint backedge; jmp -> t
//! x:     ...                  ; after the loop
//! ```
//!
//! so each iteration dispatches the `jmp` and then the test. In `exec` the
//! `jmp` becomes `yieldpoint backedge; loop jge i, n -> t` (the
//! `Instr::Loop…` rows of [`crate::instr`]): the yieldpoint, then the test,
//! going on at `t + 1` unless it would leave the loop, else falling through
//! to `x`, where the test would have jumped. It is the job of Lua's
//! `FORLOOP`, one dispatch per iteration fewer. If an operand is not an
//! integer it jumps to `t` instead, whose test then fails as before.
//! Where the test leaves to somewhere else than `x` (a loop whose body
//! returns its result, followed by the return for "not found"), the loader
//! puts a `jmp` to that place at `x`, which only the rotated test reaches
//! (`Tx::loop_exit` in [`crate::translate`]), and the loop rotates all
//! the same: a dispatch more once, when the loop ends.
//!
//! A loop whose test is `jz a -> x` or `jnz a -> x` (a `while` over a
//! list: `jz node -> exit`) rotates the same way, wherever `x` is: its
//! jump becomes `loop jz a -> x at t` (`Instr::LoopZ`, `Instr::LoopNz`),
//! on at `t + 1`, or to `x` where the test would leave. A zero test takes
//! any value, so it has no slow path to `t`; with a backedge yieldpoint
//! (`…Y`) the yieldpoint's test comes first, as in the jump it replaces.
//!
//! The second is the **counted loop**: where the body ends with `inc i 1`
//! and the test is `jgt i, _` or `jge i, _` (a loop counting up), the
//! `inc` becomes `inc i 1; loop jCC i, _ -> t` (the `Instr::CountLoop…`
//! rows): step and test in one dispatch, all of Lua's `FORLOOP`. The
//! rotated jump stays after it, and the superinstruction goes on there
//! when the bound is not an integer or the jump's backedge yieldpoint is
//! to be taken, so those slow paths are the jump's own.
//!
//! The forms with a backedge yieldpoint (`…Y`) test it without a branch
//! of their own: the loop trip, which a request sets ([`crate::thread`]),
//! is ORed into the type test of the loop's counter, and the slow path
//! that follows (the trip set, or the counter not an integer) does the
//! yieldpoint's real test and then what the loaded code does: the rotated
//! test goes on at `t`, the counted loop at its jump. So a loop iteration
//! pays for its yieldpoint one load.
//!
//! The third is the **constant's return**: `d = v; ret d` (a method
//! returning `0`, `1`, a flag) becomes `Instr::RetInt` at the constant's
//! pc, which returns `v` at once. With an epilogue yieldpoint
//! (`Instr::RetIntY`) it goes on at the `ret`, after writing `d`, when its
//! depth is not above the return floor (`crate::thread`), so the yieldpoint is taken at the `ret`'s pc as
//! before.
//!
//! The fourth is the **field pair**: `t = getfield o.f` followed by an
//! `add` or `sub` that takes `t` (`Instr::GetFieldAddRI`, ...), or by an
//! element access of the array `t` holds (`Instr::GetFieldALoad`,
//! `Instr::GetFieldAStore`: `piles[i]`), becomes a superinstruction at the
//! `getfield`'s pc: the field read, then the next pc's instruction done in
//! the same dispatch, whose operands the superinstruction reads from that
//! next instruction (the row has room for the `getfield`'s only). The
//! second instruction stays where it is and runs on its own, at its own
//! pc, where the fast path does not apply (an operand not an integer, an
//! index out of range): it then fails as it would have. An error of the
//! field read is the `getfield`'s, at its pc. `t` is still written, so
//! nothing else needs to know the pair was fused; a jump into the second
//! instruction runs it alone. The same way, `t = K` followed by the
//! `astore` that stores `t` (`flags[k] = 0`) is `Instr::ConstIntAStore`.
//! LuaJIT runs each of these pairs as two bytecodes (`TGETS; ADDVN`,
//! `TGETS; TGETV`, `KPRI; TSETV`). A field read into a conditional jump
//! (`TGETS; ISLT`) was fused the same way and taken out: its twelve arms
//! made LLVM keep the thread's yieldpoint words in a stack slot instead of
//! a register, one load more per loop iteration (arith_loop's yieldpoints
//! +0.66% to +1.33%, over item 3's 1%; callgrind, per address).
//!
//! The same way again, a `mul` or an `add` of two slots followed by the
//! `shr` by a constant that shifts its result (a fixed-point product, a
//! mean `(lo + hi) shr 1`) is `Instr::MulRRShrRI` or `Instr::AddRRShrRI`:
//! the shift needs no test of its operand, which the first half has just
//! made an integer. A product shifted back into its own slot (`t = mul x,
//! y; t = shr t, 24`, every fixed-point product of awfy-nbody) is
//! `Instr::MulRRShrRIInPlace`, which writes the slot once. And an `add` or `sub` followed by the `putfield` that
//! stores its result (`b.x = b.x + d`, where something else comes between
//! the field read and the arithmetic) is `Instr::AddRRPutField`, ...: the
//! store is done in the same dispatch where the object is of the field's
//! class, else at its own pc, failing there. LuaJIT runs these as two
//! bytecodes too (`ADDVV; TSETS`); in its floats a product is one.
//!
//! The fifth is **argument passing**: the moves that fill a call's window
//! (`t0 = this; t1 = x; t0 = callvirt m(t0, t1)`, a local passed as an
//! argument) become, at the first move's pc, `Instr::CallArgs` or
//! `Instr::CallVirtArgs`: up to three moves, in their order, then the
//! call, in one dispatch. The call runs as if dispatched at its own pc,
//! the superinstruction stepping over the moves first, so its return
//! address, its errors and the frames a sample walks are the call's own.
//! The moves and the call stay at their pcs, for a jump into them (each
//! later move is a shorter superinstruction of its own). Slots are bytes
//! in the row, so a frame of more than 256 slots keeps its moves. LuaJIT
//! moves its arguments one bytecode each (`MOV`); here a call naming
//! locals costs one dispatch however many it passes.

use crate::instr::{ArgMoves, Instr, SlotUse, YieldKind};

/// The code the plain interpreter runs for `code` (see the module docs).
pub fn exec_code(code: &[Instr]) -> Box<[Instr]> {
    let mut exec: Vec<Instr> = code
        .iter()
        .enumerate()
        .map(|(pc, &i)| {
            counted_loop_step(code, pc as u32, i)
                .or_else(|| rotated_loop_test(code, pc as u32, i))
                .or_else(|| constant_return(code, pc as u32, i))
                .or_else(|| argument_moves(code, pc as u32, i))
                .or_else(|| field_pair(code, pc as u32, i))
                .or_else(|| constant_store(code, pc as u32, i))
                .or_else(|| fixed_point_product(code, pc as u32, i))
                .or_else(|| arithmetic_store(code, pc as u32, i))
                .unwrap_or(i)
        })
        .collect();
    // A superinstruction that finishes the next instruction stays where
    // `exec` has that instruction at the next pc, not a superinstruction
    // made of it (`t = getfield o.f; t = add u, t; putfield o.g, t`: the
    // add and the store are fused, so the field read stays alone): the
    // interpreter runs the second half without testing its kind. From
    // the end, so that each test sees its next pc as it stays.
    for pc in (0..exec.len()).rev() {
        let next = exec.get(pc + 1).copied();
        if fuses_next(exec[pc]) && !next.is_some_and(|n| finishes(exec[pc], n)) {
            exec[pc] = code[pc];
        }
    }
    exec.into_boxed_slice()
}

/// `i`, the instruction at `pc`, as a rotated loop test, if it is a
/// backward jump to a loop test that leaves the loop to `pc + 1`.
fn rotated_loop_test(code: &[Instr], pc: u32, i: Instr) -> Option<Instr> {
    let (t, yieldpoint) = match i {
        Instr::Jmp { t } => (t, false),
        Instr::JmpY { t } => (t, true),
        _ => return None,
    };
    if t >= pc {
        return None;
    }
    let test = code[t as usize];
    let leaves_anywhere = match test {
        Instr::Jz { a, t: x } => Some(Instr::LoopZ { a, t, x }),
        Instr::Jnz { a, t: x } => Some(Instr::LoopNz { a, t, x }),
        _ => None,
    };
    if let Some(rotated) = leaves_anywhere {
        return with_backedge(rotated, yieldpoint);
    }
    // The test leaves to the next instruction, or to where the jump there
    // goes (the loader puts one there when the test leaves elsewhere).
    let next = code.get(pc as usize + 1).copied();
    let leaves_to_next = test.target() == Some(pc + 1)
        || matches!(next, Some(Instr::Jmp { t: x }) if Some(x) == test.target());
    if !leaves_to_next {
        return None;
    }
    with_backedge(rotated_compare(test, t)?, yieldpoint)
}

/// The rotated form of the loop test `test` at `t`, an integer
/// compare-and-branch that leaves the loop where it jumps, if it has one.
pub(crate) fn rotated_compare(test: Instr, t: u32) -> Option<Instr> {
    Some(match test {
        Instr::JltRR { a, b, .. } => Instr::LoopLtRR { a, b, t },
        Instr::JltRI { a, imm, .. } => Instr::LoopLtRI { a, imm, t },
        Instr::JleRR { a, b, .. } => Instr::LoopLeRR { a, b, t },
        Instr::JleRI { a, imm, .. } => Instr::LoopLeRI { a, imm, t },
        Instr::JgtRR { a, b, .. } => Instr::LoopGtRR { a, b, t },
        Instr::JgtRI { a, imm, .. } => Instr::LoopGtRI { a, imm, t },
        Instr::JgeRR { a, b, .. } => Instr::LoopGeRR { a, b, t },
        Instr::JgeRI { a, imm, .. } => Instr::LoopGeRI { a, imm, t },
        _ => return None,
    })
}

/// `i`, the instruction at `pc`, as a counted loop's step and test, if it
/// is `inc a 1` just before a loop's backward jump that rotates into a
/// `jgt a, _` or `jge a, _` test of the same slot.
fn counted_loop_step(code: &[Instr], pc: u32, i: Instr) -> Option<Instr> {
    let Instr::Inc { a, v: 1 } = i else {
        return None;
    };
    let jump = *code.get(pc as usize + 1)?;
    let rotated = rotated_loop_test(code, pc + 1, jump)?;
    let yieldpoint = rotated.yield_kind().is_some();
    let fused = match rotated.without_yieldpoint() {
        Instr::LoopGtRR { a: x, b, t } if x == a => Instr::CountLoopGtRR { a, b, t },
        Instr::LoopGtRI { a: x, imm, t } if x == a => Instr::CountLoopGtRI { a, imm, t },
        Instr::LoopGeRR { a: x, b, t } if x == a => Instr::CountLoopGeRR { a, b, t },
        Instr::LoopGeRI { a: x, imm, t } if x == a => Instr::CountLoopGeRI { a, imm, t },
        _ => return None,
    };
    with_backedge(fused, yieldpoint)
}

/// `i` with the backedge yieldpoint of the jump it replaces, if that jump
/// had one.
fn with_backedge(i: Instr, yieldpoint: bool) -> Option<Instr> {
    if yieldpoint {
        i.with_yieldpoint(YieldKind::Backedge)
    } else {
        Some(i)
    }
}

/// `i`, the instruction at `pc`, as a constant's return, if it loads an
/// integer that fits an immediate into the slot the next instruction
/// returns.
fn constant_return(code: &[Instr], pc: u32, i: Instr) -> Option<Instr> {
    let Instr::ConstInt { d, v } = i else {
        return None;
    };
    let v = i32::try_from(v).ok()?;
    match *code.get(pc as usize + 1)? {
        Instr::Ret { a } if a == d => Some(Instr::RetInt { d, v }),
        Instr::RetY { a } if a == d => Some(Instr::RetIntY { d, v }),
        _ => None,
    }
}

/// `i`, the instruction at `pc`, as an argument-passing call, if it is
/// the first of up to [`ArgMoves::MAX`] moves that a call follows at once
/// (each of them a `Move`, every slot and the call's window below 256).
/// The moves run in their order, so they may name any slots.
fn argument_moves(code: &[Instr], pc: u32, i: Instr) -> Option<Instr> {
    let Instr::Move { .. } = i else {
        return None;
    };
    let mut args = ArgMoves {
        base: 0,
        count: 0,
        dst: [0; ArgMoves::MAX],
        src: [0; ArgMoves::MAX],
    };
    for &next in &code[pc as usize..] {
        let base = match next {
            Instr::Move { d, a } if usize::from(args.count) < ArgMoves::MAX => {
                let j = usize::from(args.count);
                args.dst[j] = u8::try_from(d).ok()?;
                args.src[j] = u8::try_from(a).ok()?;
                args.count += 1;
                continue;
            }
            Instr::Call { base, .. } | Instr::CallVirt { base, .. } => base,
            _ => return None,
        };
        args.base = u8::try_from(base).ok()?;
        return match next {
            Instr::Call { m, .. } => Some(Instr::CallArgs { args, m }),
            Instr::CallVirt { selector, .. } => Some(Instr::CallVirtArgs { args, selector }),
            _ => None,
        };
    }
    None
}

/// `i`, the instruction at `pc`, as a field superinstruction, if it is a
/// `getfield` whose result the next instruction, a forward conditional
/// jump, tests, or an `add` or `sub` takes. A backward jump has its yieldpoint fused in (a `…Y` form)
/// and stays a dispatch of its own, so every yieldpoint stays where it is.
fn field_pair(code: &[Instr], pc: u32, i: Instr) -> Option<Instr> {
    let Instr::GetField { d, obj, f } = i else {
        return None;
    };
    let next = *code.get(pc as usize + 1)?;
    if !next.slot_uses().contains(&(d, SlotUse::Read)) {
        return None;
    }
    Some(match next {
        Instr::AddRI { .. } => Instr::GetFieldAddRI { d, obj, f },
        Instr::SubRI { .. } => Instr::GetFieldSubRI { d, obj, f },
        Instr::AddRR { .. } => Instr::GetFieldAddRR { d, obj, f },
        Instr::SubRR { .. } => Instr::GetFieldSubRR { d, obj, f },
        Instr::ALoad { .. } => Instr::GetFieldALoad { d, obj, f },
        Instr::AStore { .. } => Instr::GetFieldAStore { d, obj, f },
        _ => return None,
    })
}

/// `i`, the instruction at `pc`, as a constant's store, if it is an
/// integer constant that the next instruction, an element store, stores.
fn constant_store(code: &[Instr], pc: u32, i: Instr) -> Option<Instr> {
    let Instr::ConstInt { d, v } = i else {
        return None;
    };
    match *code.get(pc as usize + 1)? {
        Instr::AStore { v: stored, .. } if stored == d => Some(Instr::ConstIntAStore { d, v }),
        _ => None,
    }
}

/// `i`, the instruction at `pc`, as a fixed-point product or a mean, if
/// it is a `mul` or an `add` of two slots whose result the next
/// instruction, a `shr` by a constant, shifts.
fn fixed_point_product(code: &[Instr], pc: u32, i: Instr) -> Option<Instr> {
    let Instr::ShrRI {
        a: shifted,
        d: into,
        ..
    } = *code.get(pc as usize + 1)?
    else {
        return None;
    };
    match i {
        Instr::MulRR { d, a, b } if shifted == d && into == d => {
            Some(Instr::MulRRShrRIInPlace { d, a, b })
        }
        Instr::MulRR { d, a, b } if shifted == d => Some(Instr::MulRRShrRI { d, a, b }),
        Instr::AddRR { d, a, b } if shifted == d => Some(Instr::AddRRShrRI { d, a, b }),
        _ => None,
    }
}

/// `i`, the instruction at `pc`, as arithmetic into a field store, if it
/// is an `add` or `sub` whose result the next instruction, a `putfield`,
/// stores.
fn arithmetic_store(code: &[Instr], pc: u32, i: Instr) -> Option<Instr> {
    let Instr::PutField { v, .. } = *code.get(pc as usize + 1)? else {
        return None;
    };
    match i {
        Instr::AddRR { d, a, b } if d == v => Some(Instr::AddRRPutField { d, a, b }),
        Instr::SubRR { d, a, b } if d == v => Some(Instr::SubRRPutField { d, a, b }),
        Instr::AddRI { d, a, imm } if d == v => Some(Instr::AddRIPutField { d, a, imm }),
        _ => None,
    }
}

/// Does `i` (an instruction of `exec`) run the instruction at the next pc
/// in its own dispatch where it can (a field superinstruction)?
pub fn fuses_next(i: Instr) -> bool {
    matches!(
        i,
        Instr::GetFieldAddRI { .. }
            | Instr::GetFieldSubRI { .. }
            | Instr::GetFieldAddRR { .. }
            | Instr::GetFieldSubRR { .. }
            | Instr::GetFieldALoad { .. }
            | Instr::GetFieldAStore { .. }
            | Instr::ConstIntAStore { .. }
            | Instr::MulRRShrRI { .. }
            | Instr::MulRRShrRIInPlace { .. }
            | Instr::AddRRShrRI { .. }
            | Instr::AddRRPutField { .. }
            | Instr::SubRRPutField { .. }
            | Instr::AddRIPutField { .. }
    )
}

/// Is `next` the instruction that `first`, which finishes the instruction
/// at the next pc ([`fuses_next`]), finishes: of the kind its rule fused,
/// and, for a product's or a sum's second half, taking its result? What
/// the interpreter relies on to run the second half without a test of
/// its kind ([`exec_code`] keeps it true).
pub fn finishes(first: Instr, next: Instr) -> bool {
    use Instr::*;
    match (first, next) {
        (GetFieldAddRI { .. }, AddRI { .. })
        | (GetFieldSubRI { .. }, SubRI { .. })
        | (GetFieldAddRR { .. }, AddRR { .. })
        | (GetFieldSubRR { .. }, SubRR { .. })
        | (GetFieldALoad { .. }, ALoad { .. })
        | (GetFieldAStore { .. } | ConstIntAStore { .. }, AStore { .. }) => true,
        (MulRRShrRI { d, .. } | AddRRShrRI { d, .. }, ShrRI { a, .. }) => a == d,
        (MulRRShrRIInPlace { d, .. }, ShrRI { a, d: into, .. }) => a == d && into == d,
        (
            AddRRPutField { d, .. } | SubRRPutField { d, .. } | AddRIPutField { d, .. },
            PutField { v, .. },
        ) => v == d,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `i = 0; while i < n { i += 1 }` as the loader lays it out.
    fn count_up(jump: Instr) -> Vec<Instr> {
        vec![
            Instr::YieldPrologue,
            Instr::JgeRR { a: 0, b: 1, t: 4 },
            Instr::Inc { a: 0, v: 1 },
            jump,
            Instr::Ret { a: 0 },
        ]
    }

    #[test]
    fn a_loops_backward_jump_becomes_its_test() {
        // Stepping by 2, so that the step is not fused too.
        let mut code = count_up(Instr::JmpY { t: 1 });
        code[2] = Instr::Inc { a: 0, v: 2 };
        let exec = exec_code(&code);
        assert_eq!(exec.len(), 5);
        assert_eq!(exec[3], Instr::LoopGeRRY { a: 0, b: 1, t: 1 });
        assert_eq!(exec[3].yield_kind(), Some(YieldKind::Backedge));
        // Everything else is as loaded.
        for pc in [0, 1, 2, 4] {
            assert_eq!(exec[pc], code[pc]);
        }
        code[3] = Instr::Jmp { t: 1 };
        assert_eq!(exec_code(&code)[3], Instr::LoopGeRR { a: 0, b: 1, t: 1 });
    }

    #[test]
    fn a_loop_that_leaves_elsewhere_rotates_through_the_loaders_jump() {
        // while i < 8 { if f(i) { return 1 }; i += 1 }; return 0
        let code = [
            Instr::YieldPrologue,
            Instr::JgeRI { a: 0, imm: 8, t: 6 },
            Instr::Jnz { a: 1, t: 5 },
            Instr::Inc { a: 0, v: 1 },
            Instr::JmpY { t: 1 },
            Instr::Jmp { t: 6 }, // the loader's: where the test leaves
            Instr::Ret { a: 0 },
        ];
        let exec = exec_code(&code);
        assert_eq!(exec[4], Instr::LoopGeRIY { a: 0, imm: 8, t: 1 });
        assert_eq!(exec[3], Instr::CountLoopGeRIY { a: 0, imm: 8, t: 1 });
        assert_eq!(exec[5], code[5]);
        // A jump after it that goes elsewhere than the test's exit does not.
        let mut other = code;
        other[5] = Instr::Jmp { t: 2 };
        assert_eq!(exec_code(&other)[4], code[4]);
    }

    #[test]
    fn a_counted_loops_step_becomes_step_and_test() {
        let code = count_up(Instr::JmpY { t: 1 });
        let exec = exec_code(&code);
        assert_eq!(exec[2], Instr::CountLoopGeRRY { a: 0, b: 1, t: 1 });
        assert_eq!(exec[2].yield_kind(), Some(YieldKind::Backedge));
        // The jump stays rotated, for the slow paths that go on there.
        assert_eq!(exec[3], Instr::LoopGeRRY { a: 0, b: 1, t: 1 });
        for pc in [0, 1, 4] {
            assert_eq!(exec[pc], code[pc]);
        }
        let plain = exec_code(&count_up(Instr::Jmp { t: 1 }));
        assert_eq!(plain[2], Instr::CountLoopGeRR { a: 0, b: 1, t: 1 });
        // `jgt` and immediate bounds too.
        let mut code = count_up(Instr::JmpY { t: 1 });
        code[1] = Instr::JgtRI { a: 0, imm: 9, t: 4 };
        assert_eq!(
            exec_code(&code)[2],
            Instr::CountLoopGtRIY { a: 0, imm: 9, t: 1 }
        );
    }

    #[test]
    fn every_form_that_finishes_the_next_instruction_is_a_superinstruction() {
        let code = [
            Instr::GetField { d: 2, obj: 0, f: 5 },
            Instr::AddRI { d: 2, a: 2, imm: 1 },
            Instr::GetField { d: 2, obj: 0, f: 5 },
            Instr::ALoad { d: 1, arr: 2, i: 1 },
            Instr::ConstInt { d: 3, v: 0 },
            Instr::AStore { arr: 0, i: 1, v: 3 },
            Instr::Move { d: 4, a: 0 },
            Instr::Call { m: 1, base: 4 },
        ];
        let exec = exec_code(&code);
        for pc in [0, 2, 4, 6] {
            assert!(exec[pc].is_superinstruction(), "{:?}", exec[pc]);
            assert_eq!(fuses_next(exec[pc]), pc != 6, "{:?}", exec[pc]);
        }
    }

    /// `d = shr a, 24`.
    fn shr(d: u32, a: u32) -> Instr {
        Instr::ShrRI { d, a, imm: 24 }
    }

    #[test]
    fn a_fixed_point_product_is_one_instruction() {
        let code = [
            Instr::MulRR { d: 3, a: 0, b: 1 },
            shr(2, 3),
            // The shift does not shift the product: it stays.
            Instr::MulRR { d: 3, a: 0, b: 1 },
            shr(2, 1),
            // A product by a constant.
            Instr::MulRI { d: 3, a: 0, imm: 7 },
            shr(2, 3),
        ];
        only_the_first_fused(&code, Instr::MulRRShrRI { d: 3, a: 0, b: 1 });
    }

    /// `exec_code(code)` is `first` at pc 0, a superinstruction that
    /// finishes the next instruction, and `code` at every other pc.
    fn only_the_first_fused(code: &[Instr], first: Instr) {
        let exec = exec_code(code);
        assert_eq!(exec[0], first);
        assert!(fuses_next(exec[0]));
        for pc in 1..code.len() {
            assert_eq!(exec[pc], code[pc], "pc {pc}");
        }
    }

    #[test]
    fn a_product_shifted_into_its_own_slot_is_written_once() {
        let code = [Instr::MulRR { d: 3, a: 0, b: 1 }, shr(3, 3)];
        only_the_first_fused(&code, Instr::MulRRShrRIInPlace { d: 3, a: 0, b: 1 });
    }

    #[test]
    fn a_mean_is_one_instruction() {
        let code = [
            Instr::AddRR { d: 3, a: 0, b: 1 },
            Instr::ShrRI { d: 2, a: 3, imm: 1 },
            // The shift does not shift the sum: it stays.
            Instr::AddRR { d: 3, a: 0, b: 1 },
            Instr::ShrRI { d: 2, a: 1, imm: 1 },
        ];
        only_the_first_fused(&code, Instr::AddRRShrRI { d: 3, a: 0, b: 1 });
    }

    #[test]
    fn arithmetic_stored_into_a_field_is_one_instruction() {
        let store = Instr::PutField { obj: 0, v: 3, f: 5 };
        let cases = [
            (Instr::AddRR { d: 3, a: 1, b: 2 }, "AddRRPutField"),
            (Instr::SubRR { d: 3, a: 1, b: 2 }, "SubRRPutField"),
            (Instr::AddRI { d: 3, a: 1, imm: 7 }, "AddRIPutField"),
        ];
        for (arith, name) in cases {
            let exec = exec_code(&[arith, store]);
            assert_eq!(exec[0].name(), name);
            assert!(fuses_next(exec[0]));
            // The arithmetic's operands; the store stays at the next pc.
            assert_eq!(exec[0].slot_uses(), arith.slot_uses());
            assert_eq!(exec[1], store);
        }
        let alone = |code: &[Instr]| exec_code(code)[0] == code[0];
        // The store stores something else.
        let other = Instr::PutField { obj: 0, v: 1, f: 5 };
        assert!(alone(&[Instr::AddRR { d: 3, a: 1, b: 2 }, other]));
        // Arithmetic without a form of its own here.
        assert!(alone(&[Instr::MulRR { d: 3, a: 1, b: 2 }, store]));
        assert!(alone(&[Instr::SubRI { d: 3, a: 1, imm: 7 }, store]));
        // No store after it.
        assert!(alone(&[Instr::AddRR { d: 3, a: 1, b: 2 }]));
    }

    #[test]
    fn a_constant_stored_into_an_array_is_one_instruction() {
        let code = [
            Instr::ConstInt { d: 3, v: 0 },
            Instr::AStore { arr: 0, i: 1, v: 3 },
            // The store does not store the constant: it stays.
            Instr::ConstInt { d: 3, v: 0 },
            Instr::AStore { arr: 3, i: 1, v: 2 },
            // No store after it.
            Instr::ConstInt { d: 3, v: 0 },
            Instr::Nop,
        ];
        only_the_first_fused(&code, Instr::ConstIntAStore { d: 3, v: 0 });
    }

    #[test]
    fn a_constant_returned_is_one_instruction() {
        let code = [
            Instr::ConstInt { d: 2, v: 7 },
            Instr::RetY { a: 2 },
            Instr::ConstInt { d: 2, v: -1 },
            Instr::Ret { a: 2 },
            // Another slot is returned; a constant too large for an
            // immediate.
            Instr::ConstInt { d: 2, v: 7 },
            Instr::RetY { a: 3 },
            Instr::ConstInt {
                d: 2,
                v: i64::from(i32::MAX) + 1,
            },
            Instr::RetY { a: 2 },
        ];
        let exec = exec_code(&code);
        assert_eq!(exec[0], Instr::RetIntY { d: 2, v: 7 });
        assert_eq!(exec[0].yield_kind(), Some(YieldKind::Epilogue));
        assert_eq!(exec[2], Instr::RetInt { d: 2, v: -1 });
        for pc in [1, 3, 4, 5, 6, 7] {
            assert_eq!(exec[pc], code[pc]);
        }
    }

    #[test]
    fn only_a_step_of_one_of_the_tested_slot_upward_is_fused() {
        let fused = |code: &[Instr]| exec_code(code)[2].name().starts_with("CountLoop");
        assert!(fused(&count_up(Instr::JmpY { t: 1 })));
        // Another slot is stepped.
        let mut code = count_up(Instr::JmpY { t: 1 });
        code[2] = Instr::Inc { a: 1, v: 1 };
        assert!(!fused(&code));
        // A step other than 1.
        code[2] = Instr::Inc { a: 0, v: -1 };
        assert!(!fused(&code));
        // A test that leaves a counting-down loop.
        let mut code = count_up(Instr::JmpY { t: 1 });
        code[1] = Instr::JltRR { a: 0, b: 1, t: 4 };
        assert!(!fused(&code));
        // The jump after the step is not the loop's.
        code = count_up(Instr::JmpY { t: 1 });
        code[3] = Instr::Jmp { t: 4 };
        assert!(!fused(&code));
        // A step at the end of the code.
        let last = [Instr::Nop, Instr::Nop, Instr::Inc { a: 0, v: 1 }];
        assert_eq!(&*exec_code(&last), &last[..]);
    }

    #[test]
    fn only_a_test_that_leaves_to_after_the_jump_is_rotated() {
        // The test leaves elsewhere: the jump stays.
        let mut code = count_up(Instr::JmpY { t: 1 });
        code[1] = Instr::JgeRI { a: 0, imm: 9, t: 3 };
        assert_eq!(exec_code(&code)[3], Instr::JmpY { t: 1 });
        // Not a comparison of integers (`jeq` compares any values).
        code[1] = Instr::JeqRR { a: 0, b: 1, t: 4 };
        assert_eq!(exec_code(&code)[3], Instr::JmpY { t: 1 });
        // A forward jump is not a loop's.
        let fwd = vec![
            Instr::Jmp { t: 2 },
            Instr::Nop,
            Instr::JltRI { a: 0, imm: 1, t: 1 },
            Instr::Ret { a: 0 },
        ];
        assert_eq!(&*exec_code(&fwd), &fwd[..]);
    }

    #[test]
    fn a_zero_test_rotates_wherever_it_leaves() {
        // `while x != null { ... }` whose exit is not after the jump (a
        // second test in the body leaves elsewhere).
        let code = |test: Instr, jump: Instr| {
            vec![
                Instr::YieldPrologue,
                test,
                Instr::Nop,
                jump,
                Instr::Ret { a: 0 },
                Instr::Ret { a: 1 },
            ]
        };
        let z = Instr::Jz { a: 2, t: 5 };
        let nz = Instr::Jnz { a: 2, t: 5 };
        let want = [
            (z, Instr::Jmp { t: 1 }, Instr::LoopZ { a: 2, t: 1, x: 5 }),
            (z, Instr::JmpY { t: 1 }, Instr::LoopZY { a: 2, t: 1, x: 5 }),
            (nz, Instr::Jmp { t: 1 }, Instr::LoopNz { a: 2, t: 1, x: 5 }),
            (
                nz,
                Instr::JmpY { t: 1 },
                Instr::LoopNzY { a: 2, t: 1, x: 5 },
            ),
        ];
        for (test, jump, rotated) in want {
            let exec = exec_code(&code(test, jump));
            assert_eq!(exec[3], rotated, "{test:?} {jump:?}");
            // Only the jump is replaced.
            assert_eq!(exec[1], test);
        }
        // A jump that is not backward stays.
        let fwd = code(z, Instr::Jmp { t: 4 });
        assert_eq!(&*exec_code(&fwd), &fwd[..]);
    }

    #[test]
    fn every_comparison_rotates_with_its_operands() {
        let tests = [
            Instr::JltRR { a: 2, b: 3, t: 4 },
            Instr::JltRI {
                a: 2,
                imm: -7,
                t: 4,
            },
            Instr::JleRR { a: 2, b: 3, t: 4 },
            Instr::JleRI {
                a: 2,
                imm: -7,
                t: 4,
            },
            Instr::JgtRR { a: 2, b: 3, t: 4 },
            Instr::JgtRI {
                a: 2,
                imm: -7,
                t: 4,
            },
            Instr::JgeRR { a: 2, b: 3, t: 4 },
            Instr::JgeRI {
                a: 2,
                imm: -7,
                t: 4,
            },
        ];
        let mut seen = std::collections::HashSet::new();
        for test in tests {
            let code = vec![
                Instr::Nop,
                test,
                Instr::Nop,
                Instr::JmpY { t: 1 },
                Instr::Nop,
            ];
            let r = exec_code(&code)[3];
            assert!(
                r.name().starts_with("Loop") && r.name().ends_with('Y'),
                "{r:?}"
            );
            assert_eq!(r.target(), Some(1));
            // The test's comparison and operands, the loop's test as target.
            let plain = r.without_yieldpoint();
            let n = test.name();
            assert_eq!(
                plain.name(),
                format!("Loop{}{}", n[1..2].to_uppercase(), &n[2..])
            );
            assert_eq!(plain.slot_uses(), test.slot_uses());
            assert_eq!(
                format!("{plain:?}"),
                format!("{test:?}")
                    .replace(n, plain.name())
                    .replace("t: 4", "t: 1")
            );
            seen.insert(r.name());
        }
        assert_eq!(seen.len(), 8);
    }
    #[test]
    fn moves_into_a_call_are_one_instruction_with_it() {
        let code = [
            Instr::Move { d: 4, a: 0 },
            Instr::Move { d: 6, a: 2 },
            Instr::CallVirt {
                selector: 3,
                base: 4,
                arity: 3,
            },
            Instr::Move { d: 5, a: 1 },
            Instr::Call { m: 9, base: 5 },
            Instr::Ret { a: 4 },
        ];
        let exec = exec_code(&code);
        let args = |base, moves: &[(u8, u8)]| {
            let mut a = ArgMoves {
                base,
                count: moves.len() as u8,
                dst: [0; ArgMoves::MAX],
                src: [0; ArgMoves::MAX],
            };
            for (j, &(d, s)) in moves.iter().enumerate() {
                a.dst[j] = d;
                a.src[j] = s;
            }
            a
        };
        assert_eq!(
            exec[0],
            Instr::CallVirtArgs {
                args: args(4, &[(4, 0), (6, 2)]),
                selector: 3
            }
        );
        // From the second move on: what a jump there would run.
        assert_eq!(
            exec[1],
            Instr::CallVirtArgs {
                args: args(4, &[(6, 2)]),
                selector: 3
            }
        );
        assert_eq!(
            exec[3],
            Instr::CallArgs {
                args: args(5, &[(5, 1)]),
                m: 9
            }
        );
        // The calls stay, for jumps to them.
        for pc in [2, 4, 5] {
            assert_eq!(exec[pc], code[pc]);
        }
        // Its slot uses are the moves', in order, then the window.
        assert_eq!(
            exec[0].slot_uses(),
            [
                (0, SlotUse::Read),
                (4, SlotUse::Write),
                (2, SlotUse::Read),
                (6, SlotUse::Write),
                (4, SlotUse::Window)
            ]
        );
    }

    #[test]
    fn only_moves_right_before_a_call_that_fit_are_fused() {
        let call = Instr::Call { m: 1, base: 3 };
        let unchanged = |code: &[Instr]| assert_eq!(&*exec_code(code), code);
        // Something else between the moves and the call.
        unchanged(&[Instr::Move { d: 3, a: 0 }, Instr::Nop, call]);
        // No call after the moves.
        unchanged(&[Instr::Move { d: 3, a: 0 }, Instr::Ret { a: 3 }]);
        unchanged(&[Instr::Move { d: 3, a: 0 }]);
        // A slot or a window past 255.
        unchanged(&[
            Instr::Move { d: 300, a: 0 },
            Instr::Call { m: 1, base: 300 },
        ]);
        unchanged(&[Instr::Move { d: 3, a: 256 }, call]);
        unchanged(&[Instr::Move { d: 3, a: 0 }, Instr::Call { m: 1, base: 256 }]);
        // Four moves: the first stays, the last three are fused.
        let mut four: Vec<Instr> = (0..4).map(|j| Instr::Move { d: 3 + j, a: j }).collect();
        four.push(call);
        let exec = exec_code(&four);
        assert_eq!(exec[0], four[0]);
        let Instr::CallArgs { args, m: 1 } = exec[1] else {
            panic!("{:?}", exec[1]);
        };
        assert_eq!(args.moves().collect::<Vec<_>>(), [(4, 1), (5, 2), (6, 3)]);
    }

    /// `t = o.f; jCC t, ... -> 3` as the loader lays it out.
    fn field_test(next: Instr) -> Vec<Instr> {
        vec![
            Instr::GetField { d: 2, obj: 0, f: 5 },
            next,
            Instr::Ret { a: 1 },
            Instr::Ret { a: 2 },
        ]
    }

    #[test]
    fn a_field_read_and_its_arithmetic_or_element_access_become_one_instruction() {
        let cases = [
            (Instr::AddRI { d: 2, a: 2, imm: 1 }, "GetFieldAddRI"),
            (Instr::SubRI { d: 1, a: 2, imm: 1 }, "GetFieldSubRI"),
            (Instr::AddRR { d: 2, a: 1, b: 2 }, "GetFieldAddRR"),
            (Instr::SubRR { d: 2, a: 2, b: 1 }, "GetFieldSubRR"),
            (Instr::ALoad { d: 1, arr: 2, i: 1 }, "GetFieldALoad"),
            (Instr::AStore { arr: 2, i: 1, v: 0 }, "GetFieldAStore"),
        ];
        for (next, name) in cases {
            let code = field_test(next);
            let exec = exec_code(&code);
            assert_eq!(exec[0].name(), name);
            assert!(fuses_next(exec[0]));
            // The getfield's operands; the next instruction stays at the
            // next pc, for the slow path and for jumps into it.
            assert_eq!(exec[0].slot_uses(), code[0].slot_uses());
            assert_eq!(&exec[1..], &code[1..]);
        }
    }

    #[test]
    fn a_field_read_stays_alone_unless_an_add_or_an_element_access_of_it_follows() {
        let alone = |code: &[Instr]| exec_code(code)[0] == code[0];
        // A test of the field (its fusion cost the loops' yieldpoints a
        // register: see the module docs).
        assert!(alone(&field_test(Instr::JltRI { a: 2, imm: 7, t: 3 })));
        assert!(alone(&field_test(Instr::Jz { a: 2, t: 3 })));
        // The arithmetic does not read the field's value.
        assert!(alone(&field_test(Instr::AddRI { d: 2, a: 1, imm: 7 })));
        // Arithmetic without an add or sub form of its own here.
        assert!(alone(&field_test(Instr::MulRI { d: 2, a: 2, imm: 7 })));
        // A move, a return.
        assert!(alone(&field_test(Instr::Move { d: 1, a: 2 })));
        assert!(alone(&field_test(Instr::Ret { a: 2 })));
        // The last instruction of the code.
        assert!(alone(&[Instr::GetField { d: 2, obj: 0, f: 5 }]));
        assert!(!fuses_next(Instr::GetField { d: 2, obj: 0, f: 5 }));
    }

    #[test]
    fn a_field_read_whose_arithmetic_is_fused_with_its_store_stays_alone() {
        // t = o.x; t = add u, t; putfield o.x, t: the add and the store
        // are one instruction, so the field read does not finish the add.
        let code = [
            Instr::GetField { d: 2, obj: 0, f: 5 },
            Instr::AddRR { d: 2, a: 1, b: 2 },
            Instr::PutField { obj: 0, v: 2, f: 5 },
            Instr::Ret { a: 1 },
        ];
        let exec = exec_code(&code);
        assert_eq!(exec[0], code[0]);
        assert_eq!(exec[1].name(), "AddRRPutField");
        // Without the store, the field read finishes the add.
        let mut no_store = code;
        no_store[2] = Instr::Nop;
        assert_eq!(exec_code(&no_store)[0].name(), "GetFieldAddRR");
    }
}
