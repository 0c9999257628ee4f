//! Which of a callee's `.locals` an inlined copy must reset to 0.
//!
//! A method's locals start as 0 on every call (docs/LANGUAGE.md). An inlined
//! copy's locals are locals of the caller's frame and keep their values
//! from the previous time the copy ran (in a loop, say), so the inliner
//! writes `push 0; store L` at the top of the copy, the work a real call's
//! frame setup does. That is needed only for a local the callee may *read*
//! before writing it: a forward "definitely assigned" dataflow (as in Java's
//! definite assignment rule) finds the locals every path writes before any
//! `load` or `inc` reads them, and their reset is left out.
//!
//! Paths include the jump to a `.catch` handler from any instruction of its
//! range: the handler can only count on what was assigned before every
//! instruction of the range.

use vm::module::{Method, Op};
use vm::opcode::Flow;

/// For each of `m`'s `.locals` (parameters excluded): may it be read before
/// it is written on some path, so that an inlined copy must reset it to 0?
pub fn needs_reset(m: &Method) -> Vec<bool> {
    let n = m.code.len();
    let nparams = m.params.len();
    let nlocals = nparams + m.locals.len();
    if m.locals.is_empty() || n == 0 {
        return vec![false; m.locals.len()];
    }
    // in_state[i][l]: local l is assigned on every path reaching i. None:
    // no path reaches i yet (the top of the lattice).
    let mut in_state: Vec<Option<Vec<bool>>> = vec![None; n];
    let entry: Vec<bool> = (0..nlocals).map(|l| l < nparams).collect();
    let mut work = vec![0usize];
    in_state[0] = Some(entry);
    // Meet `state` into instruction `to`; queue it if it changed.
    fn meet(to: usize, state: &[bool], in_state: &mut [Option<Vec<bool>>], work: &mut Vec<usize>) {
        let Some(slot) = in_state.get_mut(to) else {
            return;
        };
        match slot {
            None => {
                *slot = Some(state.to_vec());
                work.push(to);
            }
            Some(old) => {
                let mut changed = false;
                for (o, s) in old.iter_mut().zip(state) {
                    if *o && !*s {
                        *o = false;
                        changed = true;
                    }
                }
                if changed {
                    work.push(to);
                }
            }
        }
    }
    while let Some(i) = work.pop() {
        let Some(before) = in_state[i].clone() else {
            continue;
        };
        for c in &m.catches {
            if (c.from as usize..c.to as usize).contains(&i) {
                meet(c.handler as usize, &before, &mut in_state, &mut work);
            }
        }
        let op = m.code[i].op;
        let mut after = before;
        if let Op::Store(l) = op {
            if let Some(a) = after.get_mut(l as usize) {
                *a = true;
            }
        }
        match op.opcode().flow() {
            Flow::Next => meet(i + 1, &after, &mut in_state, &mut work),
            Flow::Jump => meet(
                op.target().unwrap_or(0) as usize,
                &after,
                &mut in_state,
                &mut work,
            ),
            Flow::Branch => {
                meet(
                    op.target().unwrap_or(0) as usize,
                    &after,
                    &mut in_state,
                    &mut work,
                );
                meet(i + 1, &after, &mut in_state, &mut work);
            }
            Flow::End => {}
        }
    }
    let mut reset = vec![false; m.locals.len()];
    for (i, insn) in m.code.iter().enumerate() {
        let (Op::Load(l) | Op::Inc(l, _)) = insn.op else {
            continue;
        };
        let l = l as usize;
        if l < nparams {
            continue;
        }
        let assigned = in_state[i]
            .as_ref()
            .is_none_or(|s| s.get(l).copied().unwrap_or(false));
        if !assigned {
            if let Some(r) = reset.get_mut(l - nparams) {
                *r = true;
            }
        }
    }
    reset
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(body: &str) -> Method {
        let src = format!(".method f(p)\n{body}\n.end\n.method main()\n  push 0\n  ret\n.end\n");
        let m = vm::verify::assemble("t.bc", &src).unwrap_or_else(|d| panic!("{d:?}"));
        m.methods[0].clone()
    }

    #[test]
    fn written_first_needs_no_reset() {
        let m = method("  .locals a b\n  push 1\n  store a\n  load a\n  load b\n  add\n  ret");
        assert_eq!(needs_reset(&m), [false, true]);
    }

    #[test]
    fn inc_reads() {
        let m = method("  .locals n\n  inc n 1\n  load n\n  ret");
        assert_eq!(needs_reset(&m), [true]);
    }

    #[test]
    fn a_write_on_one_branch_only_is_not_enough() {
        let m =
            method("  .locals a\n  load p\n  jz skip\n  push 5\n  store a\nskip:\n  load a\n  ret");
        assert_eq!(needs_reset(&m), [true]);
        let m = method(
            "  .locals a\n  load p\n  jz other\n  push 5\n  store a\n  jmp join\nother:\n  push 6\n  store a\njoin:\n  load a\n  ret",
        );
        assert_eq!(needs_reset(&m), [false]);
    }

    #[test]
    fn a_loop_that_reads_before_its_first_write() {
        let m = method(
            "  .locals s i\n  push 0\n  store i\ntop:\n  load s\n  load i\n  add\n  store s\n  inc i 1\n  load i\n  push 3\n  jlt top\n  load s\n  ret",
        );
        assert_eq!(needs_reset(&m), [true, false]);
    }

    #[test]
    fn a_handler_sees_only_what_the_whole_range_assigned() {
        // `a` is written inside the range, after an instruction that may
        // throw: the handler may run with `a` unwritten.
        let m = method(
            "  .locals a\n  .catch s e h\ns:\n  load p\n  throw\n  push 1\n  store a\ne:\n  push 0\n  ret\nh:\n  pop\n  load a\n  ret",
        );
        assert_eq!(needs_reset(&m), [true]);
        let m = method(
            "  .locals a\n  .catch s e h\n  push 1\n  store a\ns:\n  load p\n  throw\ne:\n  push 0\n  ret\nh:\n  pop\n  load a\n  ret",
        );
        assert_eq!(needs_reset(&m), [false]);
    }
}
