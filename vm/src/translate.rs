//! Stack code to register code: the loader's translation of one verified
//! method into [`Instr`]s (see [`crate::instr`] for the register form).
//!
//! The translator walks the method once, simulating the operand stack
//! *symbolically*: an entry is a frame slot holding a computed value, an
//! alias of a local (`load x`), or a constant (`push 5`, `push "s"`,
//! `null`). Loads and constants cost nothing until an instruction consumes
//! them, which then reads the local or takes the constant as an immediate;
//! a `store` right after the instruction that computed its value makes that
//! instruction write the local directly. The symbolic stack is written out
//! to its canonical slots (`nlocals + depth`) where control flow requires:
//! at the end of a basic block, for call arguments, and before a local that
//! an alias refers to is overwritten.
//!
//! Yieldpoints go where docs/LANGUAGE.md "Yieldpoints" puts them: a prologue at entry
//! (the instruction [`Instr::YieldPrologue`] at pc 0), an epilogue before
//! each `ret` (fused: [`Instr::RetY`]), a backedge before each jump to an
//! earlier (or the same) instruction (fused: the jump's `…Y` variant). A
//! fused yieldpoint adds its cycle to the instruction it is fused into.
//!
//! Each emitted instruction carries the number of source instructions and
//! cost-model cycles since the previous one, so counting profiles (the
//! virtual clock, exhaustive `self` counts) see exactly the source program's
//! instructions, in order.

use crate::instr::{BinOp, Cmp, Instr, Slot, YieldKind};
use crate::module::{Catch, ClassId, MethodId, Module, Op, StrId};

mod sym_stack;
use sym_stack::SymStack;

/// One method translated.
#[derive(Clone, Debug, Default)]
pub struct Translated {
    /// The instructions.
    pub code: Vec<Instr>,
    /// Source line of each instruction.
    pub lines: Vec<u32>,
    /// Source instruction each instruction was emitted for.
    pub source_index: Vec<u32>,
    /// Source instructions each instruction accounts for.
    pub counts: Vec<u32>,
    /// Cost-model cycles each instruction accounts for.
    pub costs: Vec<u32>,
    /// Instructions whose `counts`/`costs` include a `store` folded in
    /// *after* their own operation, in increasing instruction order: if
    /// the instruction faults, that part did not run.
    pub folded_stores: Vec<FoldedStore>,
    /// `.catch` ranges in instruction indices.
    pub catches: Vec<Catch>,
    /// Slots a frame needs: locals, then one per stack depth.
    pub frame_size: u32,
}

/// The part of an instruction's count that runs after its operation: a
/// `store` the translator folded into it (`div; store x` is one `x = a / b`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FoldedStore {
    /// The instruction the store was folded into.
    pub at: u32,
    /// Source instructions of the folded part.
    pub count: u32,
    /// Cost-model cycles of the folded part.
    pub cost: u32,
}

/// A symbolic operand-stack entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opnd {
    /// The value is in this frame slot (a temporary).
    Slot(Slot),
    /// The value is local `x` (valid until `x` is written).
    Local(Slot),
    /// An integer constant.
    Int(i64),
    /// A string constant.
    Str(StrId),
    /// `null`.
    Null,
}

/// Cycles charged for a yieldpoint's fast path.
const YIELD_COST: u32 = 1;

struct Tx<'a> {
    module: &'a Module,
    nlocals: u32,
    yieldpoints: bool,
    out: Translated,
    sym: SymStack,
    pend_count: u32,
    pend_cost: u32,
    line: u32,
    src: u32,
    /// Index of the last emitted instruction if it computed the top entry.
    last_result: Option<usize>,
    /// Jumps to patch: (instruction index, source target), in index order.
    fixups: Vec<(usize, u32)>,
    /// The index of the first instruction emitted for each source pc so far.
    group_start: Vec<u32>,
}

/// Translates method `id` of `module`; `field_ref` interns a (class, field
/// slot) pair into the program's field-reference table.
pub fn translate(
    module: &Module,
    id: MethodId,
    yieldpoints: bool,
    field_ref: &mut dyn FnMut(ClassId, u32) -> u32,
) -> Translated {
    let m = &module.methods[id as usize];
    let nlocals = m.frame_locals();
    let n = m.code.len();
    let mut tx = Tx {
        module,
        nlocals,
        yieldpoints,
        out: Translated {
            frame_size: nlocals + m.max_stack,
            ..Translated::default()
        },
        sym: SymStack::new(nlocals),
        pend_count: 0,
        pend_cost: 0,
        line: m.pos.line,
        src: 0,
        last_result: None,
        fixups: Vec::new(),
        group_start: vec![0; n + 1],
    };
    // Block leaders: jump targets and handlers start with a canonical stack.
    let mut leader = vec![false; n + 1];
    for insn in &m.code {
        if let Some(t) = insn.op.target() {
            leader[t as usize] = true;
        }
    }
    for c in &m.catches {
        leader[c.handler as usize] = true;
    }
    if yieldpoints {
        tx.pend_cost += YIELD_COST;
        tx.emit(Instr::YieldPrologue);
    }
    for (i, insn) in m.code.iter().enumerate() {
        let height = m.heights.get(i).copied().flatten();
        let Some(h) = height else {
            // Unreachable: never runs, emits nothing.
            tx.group_start[i] = tx.out.code.len() as u32;
            continue;
        };
        if leader[i] {
            tx.end_block();
            tx.sym.reset_canonical(h as usize);
        }
        debug_assert_eq!(tx.sym.len() as u32, h, "symbolic height at {i}");
        tx.group_start[i] = tx.out.code.len() as u32;
        tx.line = insn.pos.line;
        tx.src = i as u32;
        tx.pend_count += 1;
        tx.pend_cost += insn.op.opcode().cost();
        tx.op(insn.op, i as u32, field_ref);
    }
    tx.group_start[n] = tx.out.code.len() as u32;
    let group_start = std::mem::take(&mut tx.group_start);
    debug_assert_eq!(tx.pend_count, 0, "every path ends in an instruction");
    for (at, t) in std::mem::take(&mut tx.fixups) {
        tx.out.code[at] = tx.out.code[at].with_target(group_start[t as usize]);
    }
    tx.out.catches = m
        .catches
        .iter()
        .map(|c| Catch {
            from: group_start[c.from as usize],
            to: group_start[c.to as usize],
            handler: group_start[c.handler as usize],
        })
        .collect();
    tx.out
}

fn imm32(v: i64) -> Option<i32> {
    i32::try_from(v).ok()
}

impl Tx<'_> {
    /// The canonical slot of stack depth `k`.
    fn canon(&self, k: u32) -> Slot {
        self.nlocals + k
    }

    fn emit(&mut self, i: Instr) -> usize {
        self.out.code.push(i);
        self.out.lines.push(self.line);
        self.out.source_index.push(self.src);
        self.out.counts.push(std::mem::take(&mut self.pend_count));
        self.out.costs.push(std::mem::take(&mut self.pend_cost));
        self.last_result = None;
        self.out.code.len() - 1
    }

    /// Emits `i`, with the yieldpoint of `kind` fused in if yieldpoints
    /// are on.
    fn emit_with_yield(&mut self, kind: YieldKind, i: Instr) -> usize {
        if self.yieldpoints {
            self.pend_cost += YIELD_COST;
            self.emit(i.with_yieldpoint(kind).expect("a fused form"))
        } else {
            self.emit(i)
        }
    }

    /// Emits `i`, which writes the new top of stack to its canonical slot.
    fn push_result(&mut self, make: impl FnOnce(Slot) -> Instr) {
        let d = self.canon(self.sym.len() as u32);
        let at = self.emit(make(d));
        self.sym.push(Opnd::Slot(d));
        self.last_result = Some(at);
    }

    fn pop(&mut self) -> Opnd {
        self.sym.pop()
    }

    /// A slot holding `op`, which sat at stack depth `depth`: constants are
    /// written to that depth's canonical slot (free once `op` is consumed).
    fn reg(&mut self, op: Opnd, depth: usize) -> Slot {
        let d = self.canon(depth as u32);
        match op {
            Opnd::Slot(s) | Opnd::Local(s) => s,
            Opnd::Int(v) => {
                self.emit(Instr::ConstInt { d, v });
                d
            }
            Opnd::Str(s) => {
                self.emit(Instr::ConstStr { d, s });
                d
            }
            Opnd::Null => {
                self.emit(Instr::ConstNull { d });
                d
            }
        }
    }

    /// Writes entry `k` to its canonical slot.
    fn materialize(&mut self, k: usize) {
        let d = self.canon(k as u32);
        let i = match self.sym.get(k) {
            Opnd::Slot(s) if s == d => return,
            Opnd::Slot(a) | Opnd::Local(a) => Instr::Move { d, a },
            Opnd::Int(v) => Instr::ConstInt { d, v },
            Opnd::Str(s) => Instr::ConstStr { d, s },
            Opnd::Null => Instr::ConstNull { d },
        };
        self.emit(i);
        self.sym.set(k, Opnd::Slot(d));
    }

    /// Writes entries from depth `from` up to their canonical slots (in
    /// increasing depth: an alias only ever points at a lower, already
    /// canonical slot, so no write clobbers a value still needed).
    fn materialize_from(&mut self, from: usize) {
        for k in self.sym.first_noncanonical(from)..self.sym.len() {
            self.materialize(k);
        }
        self.sym.mark_canonical_from(from);
    }

    /// Before local `x` is written, entries that alias it get their value.
    fn materialize_aliases_of(&mut self, x: Slot) {
        for k in self.sym.take_aliases(x) {
            self.materialize(k);
        }
    }

    /// Ends a basic block on a fall-through edge.
    fn end_block(&mut self) {
        self.materialize_from(0);
        if self.pend_count > 0 || self.pend_cost > 0 {
            self.emit(Instr::Nop);
        }
        self.last_result = None;
    }

    fn jump(&mut self, i: Instr, target: u32, at: u32) {
        let idx = if target <= at {
            self.emit_with_yield(YieldKind::Backedge, i)
        } else {
            self.emit(i)
        };
        self.fixups.push((idx, target));
    }

    /// After a loop's backward jump to `head`: where the loop's test (the
    /// first instruction at `head`, an integer compare-and-branch) leaves
    /// the loop to somewhere other than the instruction after the jump
    /// (`while (r < 8) { ... return 1 ... }` then `return 0`), a jump there
    /// follows the backward jump. The loaded code never runs it (the
    /// backward jump goes to the test, which leaves by its own target;
    /// it counts no source instruction and costs no cycle), but the
    /// plain interpreter's rotated loop test ([`crate::superinstr`]),
    /// which falls through where the test would have left, goes on
    /// through it, so that such a loop is rotated too.
    fn loop_exit(&mut self, head: u32, at: u32) {
        let test = self.group_start[head as usize] as usize;
        let Some(&test_instr) = self.out.code.get(test) else {
            return;
        };
        if crate::superinstr::rotated_compare(test_instr, head).is_none() {
            return;
        }
        let Ok(k) = self.fixups.binary_search_by_key(&test, |&(i, _)| i) else {
            return;
        };
        let exit = self.fixups[k].1;
        if exit > at + 1 {
            debug_assert_eq!((self.pend_count, self.pend_cost), (0, 0));
            self.jump(Instr::Jmp { t: 0 }, exit, at);
        }
    }

    fn store(&mut self, x: Slot) {
        let top = self.pop();
        let aliased = self.sym.aliases(x);
        if let Opnd::Slot(s) = top {
            let own = s == self.canon(self.sym.len() as u32);
            let last = self.out.code.len().checked_sub(1);
            if !aliased
                && own
                && self.last_result.is_some()
                && self.last_result == last
                && !self.sym.names_slot(s)
            {
                let at = last.expect("checked");
                if self.out.code[at].dest() == Some(s) {
                    // The instruction that computed the value writes `x`.
                    self.out.code[at] = self.out.code[at].with_dest(x);
                    // Its count already covers the computation; the store
                    // itself is folded in, and remembered as running after
                    // it (a fault in the computation skips it).
                    let count = std::mem::take(&mut self.pend_count);
                    let cost = std::mem::take(&mut self.pend_cost);
                    self.out.counts[at] += count;
                    self.out.costs[at] += cost;
                    self.out.folded_stores.push(FoldedStore {
                        at: at as u32,
                        count,
                        cost,
                    });
                    self.last_result = None;
                    return;
                }
            }
        }
        self.materialize_aliases_of(x);
        let i = match top {
            Opnd::Local(y) if y == x => {
                // `load x; store x`: nothing to do, but keep the count.
                if self.pend_count > 0 {
                    self.emit(Instr::Nop);
                }
                return;
            }
            Opnd::Slot(a) | Opnd::Local(a) => Instr::Move { d: x, a },
            Opnd::Int(v) => Instr::ConstInt { d: x, v },
            Opnd::Str(s) => Instr::ConstStr { d: x, s },
            Opnd::Null => Instr::ConstNull { d: x },
        };
        self.emit(i);
    }

    fn binary(&mut self, op: BinOp) {
        let rb = self.pop();
        let ra = self.pop();
        let depth = self.sym.len();
        let imm_b = match rb {
            Opnd::Int(v) => imm32(v),
            _ => None,
        };
        let imm_a = match ra {
            Opnd::Int(v) => imm32(v),
            _ => None,
        };
        if let (Some(v), Some(_)) = (imm_b, Instr::bin_ri(op, 0, 0, 0)) {
            let a = self.reg(ra, depth);
            self.push_result(|d| Instr::bin_ri(op, d, a, v).expect("has an RI form"));
            return;
        }
        if let (Some(v), true) = (imm_a, op.commutes()) {
            let b = self.reg(rb, depth + 1);
            self.push_result(|d| Instr::bin_ri(op, d, b, v).expect("has an RI form"));
            return;
        }
        let a = self.reg(ra, depth);
        let b = self.reg(rb, depth + 1);
        self.push_result(|d| Instr::bin_rr(op, d, a, b));
    }

    fn equality(&mut self, eq: bool) {
        let rb = self.pop();
        let ra = self.pop();
        let depth = self.sym.len();
        let (x, imm) = match (ra, rb) {
            (_, Opnd::Int(v)) if imm32(v).is_some() => (ra, imm32(v)),
            (Opnd::Int(v), _) if imm32(v).is_some() => (rb, imm32(v)),
            _ => (ra, None),
        };
        if let Some(v) = imm {
            let a = self.reg(x, depth);
            self.push_result(|d| {
                if eq {
                    Instr::EqRI { d, a, imm: v }
                } else {
                    Instr::NeRI { d, a, imm: v }
                }
            });
        } else {
            let a = self.reg(ra, depth);
            let b = self.reg(rb, depth + 1);
            self.push_result(|d| {
                if eq {
                    Instr::EqRR { d, a, b }
                } else {
                    Instr::NeRR { d, a, b }
                }
            });
        }
    }

    fn unary(&mut self, make: impl FnOnce(Slot, Slot) -> Instr) {
        let ra = self.pop();
        let depth = self.sym.len();
        let a = self.reg(ra, depth);
        self.push_result(|d| make(d, a));
    }

    /// Materializes the top `n` entries (call arguments) and returns the
    /// slot of the first.
    ///
    /// Constant arguments are written first, so that the moves of locals
    /// come last, next to the call, where the plain interpreter runs them
    /// and the call in one dispatch ([`crate::superinstr`], argument
    /// passing): `set(this, r, c, 0)` loads as `t3 = 0; t0 = this; t1 = r;
    /// t2 = c; call`. No move reads a constant's slot: an entry names
    /// only a lower slot that is already canonical, and a constant's entry
    /// is not. The order changes nothing else: these instructions are one
    /// source instruction's, straight-line and unable to fail.
    fn args(&mut self, n: u32) -> Slot {
        let from = self.sym.len() - n as usize;
        for k in from..self.sym.len() {
            if matches!(self.sym.get(k), Opnd::Int(_) | Opnd::Str(_) | Opnd::Null) {
                debug_assert!(!self.sym.names_slot(self.canon(k as u32)));
                self.materialize(k);
            }
        }
        self.materialize_from(from);
        self.sym.truncate(from);
        self.canon(from as u32)
    }

    fn compare_jump(&mut self, c: Cmp, t: u32, at: u32) {
        let rb = self.pop();
        let ra = self.pop();
        self.materialize_from(0);
        let depth = self.sym.len();
        let flipped = match c {
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
        };
        let i = match (ra, rb) {
            (_, Opnd::Int(v)) if imm32(v).is_some() => {
                let a = self.reg(ra, depth);
                Instr::jcmp_ri(c, a, imm32(v).expect("fits"), 0)
            }
            (Opnd::Int(v), _) if imm32(v).is_some() => {
                let b = self.reg(rb, depth + 1);
                Instr::jcmp_ri(flipped, b, imm32(v).expect("fits"), 0)
            }
            _ => {
                let a = self.reg(ra, depth);
                let b = self.reg(rb, depth + 1);
                Instr::jcmp_rr(c, a, b, 0)
            }
        };
        self.jump(i, t, at);
    }

    fn equality_jump(&mut self, eq: bool, t: u32, at: u32) {
        let rb = self.pop();
        let ra = self.pop();
        self.materialize_from(0);
        let depth = self.sym.len();
        let imm = match (ra, rb) {
            (_, Opnd::Int(v)) if imm32(v).is_some() => Some((ra, imm32(v).expect("fits"))),
            (Opnd::Int(v), _) if imm32(v).is_some() => Some((rb, imm32(v).expect("fits"))),
            _ => None,
        };
        let i = match imm {
            Some((x, v)) => {
                let a = self.reg(x, depth);
                if eq {
                    Instr::JeqRI { a, imm: v, t: 0 }
                } else {
                    Instr::JneRI { a, imm: v, t: 0 }
                }
            }
            None => {
                let a = self.reg(ra, depth);
                let b = self.reg(rb, depth + 1);
                if eq {
                    Instr::JeqRR { a, b, t: 0 }
                } else {
                    Instr::JneRR { a, b, t: 0 }
                }
            }
        };
        self.jump(i, t, at);
    }

    fn op(&mut self, op: Op, at: u32, field_ref: &mut dyn FnMut(ClassId, u32) -> u32) {
        use Op::*;
        match op {
            PushInt(v) => self.sym.push(Opnd::Int(v)),
            PushStr(s) => self.sym.push(Opnd::Str(s)),
            Null => self.sym.push(Opnd::Null),
            Pop => {
                self.pop();
            }
            Dup => {
                let top = self.sym.last();
                self.sym.push(top);
            }
            Over => {
                let v = self.sym.get(self.sym.len() - 2);
                self.sym.push(v);
            }
            Swap => {
                let n = self.sym.len();
                let (a, b) = (self.sym.get(n - 2), self.sym.get(n - 1));
                if matches!(a, Opnd::Slot(_)) || matches!(b, Opnd::Slot(_)) {
                    self.materialize_from(n - 2);
                    let (x, y) = (self.canon(n as u32 - 2), self.canon(n as u32 - 1));
                    self.emit(Instr::Swap { a: x, b: y });
                } else {
                    self.sym.swap(n - 2, n - 1);
                }
            }
            Load(x) => self.sym.push(Opnd::Local(x)),
            Store(x) => self.store(x),
            Inc(x, v) => {
                self.materialize_aliases_of(x);
                self.emit(Instr::Inc { a: x, v });
            }
            GetGlobal(g) => self.push_result(|d| Instr::GetGlobal { d, g }),
            PutGlobal(g) => {
                let ra = self.pop();
                let a = self.reg(ra, self.sym.len());
                self.emit(Instr::PutGlobal { g, a });
            }
            AddGlobal(g) => self.unary(|d, a| Instr::AddGlobal { d, g, a }),
            Add => self.binary(BinOp::Add),
            Sub => self.binary(BinOp::Sub),
            Mul => self.binary(BinOp::Mul),
            Div => self.binary(BinOp::Div),
            Rem => self.binary(BinOp::Rem),
            And => self.binary(BinOp::And),
            Or => self.binary(BinOp::Or),
            Xor => self.binary(BinOp::Xor),
            Shl => self.binary(BinOp::Shl),
            Shr => self.binary(BinOp::Shr),
            Lt => self.binary(BinOp::Lt),
            Le => self.binary(BinOp::Le),
            Gt => self.binary(BinOp::Gt),
            Ge => self.binary(BinOp::Ge),
            Eq => self.equality(true),
            Ne => self.equality(false),
            Neg => self.unary(|d, a| Instr::Neg { d, a }),
            Not => self.unary(|d, a| Instr::Not { d, a }),
            Jmp(t) => {
                self.materialize_from(0);
                self.jump(Instr::Jmp { t: 0 }, t, at);
                if t <= at {
                    self.loop_exit(t, at);
                }
            }
            Jz(t) | Jnz(t) => {
                let ra = self.pop();
                self.materialize_from(0);
                let a = self.reg(ra, self.sym.len());
                let i = if matches!(op, Jz(_)) {
                    Instr::Jz { a, t: 0 }
                } else {
                    Instr::Jnz { a, t: 0 }
                };
                self.jump(i, t, at);
            }
            Jeq(t) => self.equality_jump(true, t, at),
            Jne(t) => self.equality_jump(false, t, at),
            Jlt(t) => self.compare_jump(Cmp::Lt, t, at),
            Jle(t) => self.compare_jump(Cmp::Le, t, at),
            Jgt(t) => self.compare_jump(Cmp::Gt, t, at),
            Jge(t) => self.compare_jump(Cmp::Ge, t, at),
            Call(m) => {
                let base = self.args(self.module.methods[m as usize].arity());
                self.emit(Instr::Call { m, base });
                self.sym.push(Opnd::Slot(base));
            }
            CallVirt(selector) => {
                let arity = self.module.selectors[selector as usize].arity;
                let base = self.args(arity);
                self.emit(Instr::CallVirt {
                    selector,
                    base,
                    arity,
                });
                self.sym.push(Opnd::Slot(base));
            }
            Spawn(m) => {
                let base = self.args(self.module.methods[m as usize].arity());
                self.emit(Instr::Spawn { m, base });
                self.sym.push(Opnd::Slot(base));
            }
            Ret => {
                let ra = self.pop();
                let a = self.reg(ra, self.sym.len());
                self.emit_with_yield(YieldKind::Epilogue, Instr::Ret { a });
            }
            New(class) => self.push_result(|d| Instr::New { d, class }),
            GetField(c, slot) => {
                let f = field_ref(c, slot);
                self.unary(|d, obj| Instr::GetField { d, obj, f });
            }
            PutField(c, slot) => {
                let f = field_ref(c, slot);
                let rv = self.pop();
                let ro = self.pop();
                let depth = self.sym.len();
                let obj = self.reg(ro, depth);
                let v = self.reg(rv, depth + 1);
                self.emit(Instr::PutField { obj, v, f });
            }
            InstanceOf(class) => self.unary(|d, a| Instr::InstanceOf { d, a, class }),
            IsClass(class) => self.unary(|d, a| Instr::IsClass { d, a, class }),
            NewArray => self.unary(|d, n| Instr::NewArray { d, n }),
            ALoad => {
                let ri = self.pop();
                let ra = self.pop();
                let depth = self.sym.len();
                let arr = self.reg(ra, depth);
                let i = self.reg(ri, depth + 1);
                self.push_result(|d| Instr::ALoad { d, arr, i });
            }
            AStore => {
                let rv = self.pop();
                let ri = self.pop();
                let ra = self.pop();
                let depth = self.sym.len();
                let arr = self.reg(ra, depth);
                let i = self.reg(ri, depth + 1);
                let v = self.reg(rv, depth + 2);
                self.emit(Instr::AStore { arr, i, v });
            }
            ALen => self.unary(|d, arr| Instr::ALen { d, arr }),
            Print => {
                let ra = self.pop();
                let a = self.reg(ra, self.sym.len());
                self.emit(Instr::Print { a });
            }
            Throw => {
                let ra = self.pop();
                let a = self.reg(ra, self.sym.len());
                self.emit(Instr::Throw { a });
            }
            Join => self.unary(|d, a| Instr::Join { d, a }),
            Sleep => {
                let ra = self.pop();
                let a = self.reg(ra, self.sym.len());
                self.emit(Instr::Sleep { a });
            }
            Halt => {
                let ra = self.pop();
                let a = self.reg(ra, self.sym.len());
                self.emit(Instr::Halt { a });
            }
            Nop => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::assemble;

    /// The loaded code of `main`, whose body is `main` (then `push 0;
    /// ret`), in a program with a method `f` of four parameters.
    fn main_code(main: &str) -> Vec<Instr> {
        let src = format!(
            ".method f(a, b, c, d)\n  push 0\n  ret\n.end\n.method main()\n  .locals x y\n{main}  push 0\n  ret\n.end\n"
        );
        let module = assemble("t.bc", &src).unwrap();
        let main_id = module
            .methods
            .iter()
            .position(|m| m.name == "main")
            .unwrap();
        translate(&module, main_id as MethodId, false, &mut |_, _| 0).code
    }

    #[test]
    fn constant_arguments_are_written_before_the_moves_next_to_the_call() {
        // f(x, 7, y, null): x and y are locals 0 and 1, the window t0..t3
        // slots 2 to 5.
        let code = main_code("  load x\n  push 7\n  load y\n  null\n  call f\n  pop\n");
        assert_eq!(
            &code[..5],
            &[
                Instr::ConstInt { d: 3, v: 7 },
                Instr::ConstNull { d: 5 },
                Instr::Move { d: 2, a: 0 },
                Instr::Move { d: 4, a: 1 },
                Instr::Call { m: 0, base: 2 },
            ]
        );
        // So the plain interpreter passes both locals with the call.
        let exec = crate::superinstr::exec_code(&code);
        assert!(matches!(exec[2], Instr::CallArgs { args, m: 0 } if args.count == 2));
    }

    #[test]
    fn a_loop_that_leaves_elsewhere_gets_a_jump_to_its_exit_after_its_backedge() {
        // while x < 8 { if y != 0 { return 1 }; x += 1 }; return 0
        let src = ".method main()\n  .locals x y\nhead:\n  load x\n  push 8\n  jge none\n  load y\n  jnz found\n  inc x 1\n  jmp head\nfound:\n  push 1\n  ret\nnone:\n  push 0\n  ret\n.end\n";
        let module = assemble("t.bc", src).unwrap();
        let t = translate(&module, 0, true, &mut |_, _| 0);
        let none = t.code.len() as u32 - 2; // `t = 0; ret t`
        assert_eq!(
            t.code[1],
            Instr::JgeRI {
                a: 0,
                imm: 8,
                t: none
            }
        );
        assert_eq!(t.code[4], Instr::JmpY { t: 1 });
        assert_eq!(t.code[5], Instr::Jmp { t: none });
        // It counts nothing and costs nothing: the loaded code never runs it.
        assert_eq!((t.counts[5], t.costs[5]), (0, 0));
        assert_eq!(t.counts.iter().sum::<u32>(), 11);
        // The plain interpreter's code rotates the loop through it.
        let exec = crate::superinstr::exec_code(&t.code);
        assert_eq!(exec[4], Instr::LoopGeRIY { a: 0, imm: 8, t: 1 });
        // A loop that leaves to the instruction after its backedge gets none.
        let src = ".method main()\n  .locals x\nhead:\n  load x\n  push 8\n  jge done\n  inc x 1\n  jmp head\ndone:\n  push 0\n  ret\n.end\n";
        let module = assemble("t.bc", src).unwrap();
        let t = translate(&module, 0, true, &mut |_, _| 0);
        assert!(!t.code.iter().any(|i| matches!(i, Instr::Jmp { .. })));
    }
}
