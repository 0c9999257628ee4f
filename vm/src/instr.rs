//! The loaded instruction set: a register form of the verified stack code.
//!
//! The verifier knows the operand-stack height before every instruction, so
//! the operand at depth `k` of a method with `L` locals always lives in frame
//! slot `L + k`. The loader ([`crate::translate`]) therefore rewrites the
//! stack code into instructions that name frame slots directly: `load`,
//! `push` and `dup` usually vanish into the instruction that consumes their
//! value (`load i; push 10; jlt top` becomes one `jlt i, 10 -> top`), and no
//! stack pointer exists at run time. This is the layout wasmi and Lua use;
//! it cuts the number of dispatches per source instruction roughly in half.
//!
//! A [`Slot`] is an index into the current frame: locals first (parameters,
//! then `.locals`), then one slot per operand-stack depth, then one scratch
//! slot. Integer operands written as constants become `i32` immediates where
//! they fit. Every variant is `Copy` and 16 bytes (asserted in a test).
//!
//! The yieldpoints of docs/LANGUAGE.md "Yieldpoints" are part of the instruction
//! stream, but only the prologue is an instruction of its own
//! ([`Instr::YieldPrologue`], at pc 0); the others are *fused* into the
//! instruction they guard, so that a yieldpoint costs one load and one
//! branch but no dispatch of its own:
//!
//! - a backedge yieldpoint and its backward jump are one instruction, the
//!   jump's `…Y` variant ([`Instr::JmpY`], [`Instr::JltRIY`], ...): it first
//!   does the yieldpoint, then the jump;
//! - an epilogue yieldpoint and its `ret` are one [`Instr::RetY`].
//!
//! A call enters its callee *after* the prologue instruction, doing the
//! prologue yieldpoint inline (the instruction itself runs only when a
//! thread starts at pc 0). A fused yieldpoint is reported at the pc of the
//! instruction it is fused into, which has the same source line.
//! [`Instr::yield_kind`] tells which yieldpoint an instruction contains, and
//! `vm disasm` shows it (`yieldpoint backedge; jmp -> 2`).

use crate::module::{ClassId, MethodId, StrId};

/// A frame slot: an index from the frame's first local.
pub type Slot = u32;

/// Where a yieldpoint sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum YieldKind {
    /// At method entry.
    Prologue,
    /// Before a `ret`.
    Epilogue,
    /// Before a jump to an earlier (or the same) instruction.
    Backedge,
}

/// Integer binary operations (the `RR` and `RI` instruction forms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
}

impl BinOp {
    /// The source mnemonic.
    pub fn mnemonic(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::Div => "div",
            BinOp::Rem => "rem",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::Shr => "shr",
            BinOp::Lt => "lt",
            BinOp::Le => "le",
            BinOp::Gt => "gt",
            BinOp::Ge => "ge",
        }
    }

    /// `a OP b == b OP a`.
    pub fn commutes(self) -> bool {
        matches!(
            self,
            BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
        )
    }
}

/// Integer comparisons of the conditional jumps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    /// The source mnemonic of the jump.
    pub fn mnemonic(self) -> &'static str {
        match self {
            Cmp::Lt => "jlt",
            Cmp::Le => "jle",
            Cmp::Gt => "jgt",
            Cmp::Ge => "jge",
        }
    }
}

/// A runnable instruction. `d` is the destination slot; `a`, `b` operand
/// slots; `imm` an immediate; `t` a jump target (an index into the body).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Instr {
    /// Prologue yieldpoint: taken if the control word is non-zero. Always
    /// at pc 0; calls do it inline and enter at pc 1.
    YieldPrologue,
    /// Does nothing (carries the count of source instructions that left no
    /// other trace, such as `nop` or `push 1; pop`).
    Nop,
    Move {
        d: Slot,
        a: Slot,
    },
    Swap {
        a: Slot,
        b: Slot,
    },
    ConstInt {
        d: Slot,
        v: i64,
    },
    ConstStr {
        d: Slot,
        s: StrId,
    },
    ConstNull {
        d: Slot,
    },
    // Integer arithmetic and comparison producing 0/1.
    AddRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    AddRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    SubRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    SubRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    MulRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    MulRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    DivRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    RemRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    AndRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    AndRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    OrRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    OrRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    XorRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    XorRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    ShlRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    ShlRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    ShrRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    ShrRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    LtRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    LtRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    LeRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    LeRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    GtRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    GtRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    GeRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    GeRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    /// `eq` on any kinds.
    EqRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    /// `eq` against an integer.
    EqRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    NeRR {
        d: Slot,
        a: Slot,
        b: Slot,
    },
    NeRI {
        d: Slot,
        a: Slot,
        imm: i32,
    },
    Neg {
        d: Slot,
        a: Slot,
    },
    Not {
        d: Slot,
        a: Slot,
    },
    /// `inc`: integer local += v.
    Inc {
        a: Slot,
        v: i64,
    },
    GetGlobal {
        d: Slot,
        g: u32,
    },
    PutGlobal {
        g: u32,
        a: Slot,
    },
    AddGlobal {
        d: Slot,
        g: u32,
        a: Slot,
    },
    Jmp {
        t: u32,
    },
    Jz {
        a: Slot,
        t: u32,
    },
    Jnz {
        a: Slot,
        t: u32,
    },
    JeqRR {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JeqRI {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JneRR {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JneRI {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JltRR {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JltRI {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JleRR {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JleRI {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JgtRR {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JgtRI {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JgeRR {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JgeRI {
        a: Slot,
        imm: i32,
        t: u32,
    },
    // Backward jumps with their backedge yieldpoint fused in: the
    // yieldpoint (taken if the control word is positive), then the jump.
    JmpY {
        t: u32,
    },
    JzY {
        a: Slot,
        t: u32,
    },
    JnzY {
        a: Slot,
        t: u32,
    },
    JeqRRY {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JeqRIY {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JneRRY {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JneRIY {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JltRRY {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JltRIY {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JleRRY {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JleRIY {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JgtRRY {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JgtRIY {
        a: Slot,
        imm: i32,
        t: u32,
    },
    JgeRRY {
        a: Slot,
        b: Slot,
        t: u32,
    },
    JgeRIY {
        a: Slot,
        imm: i32,
        t: u32,
    },
    /// Static call; the arguments are in slots `base..base + arity`, the
    /// callee's frame starts at `base` and its result lands in `base`.
    Call {
        m: MethodId,
        base: Slot,
    },
    /// Virtual call; the receiver is in `base`.
    CallVirt {
        selector: u32,
        base: Slot,
        arity: u32,
    },
    Ret {
        a: Slot,
    },
    /// `ret` with its epilogue yieldpoint fused in: the yieldpoint (taken
    /// if the control word is non-zero), then the return.
    RetY {
        a: Slot,
    },
    New {
        d: Slot,
        class: ClassId,
    },
    /// `f` indexes [`crate::loader::Program::field_refs`].
    GetField {
        d: Slot,
        obj: Slot,
        f: u32,
    },
    PutField {
        obj: Slot,
        v: Slot,
        f: u32,
    },
    InstanceOf {
        d: Slot,
        a: Slot,
        class: ClassId,
    },
    IsClass {
        d: Slot,
        a: Slot,
        class: ClassId,
    },
    NewArray {
        d: Slot,
        n: Slot,
    },
    ALoad {
        d: Slot,
        arr: Slot,
        i: Slot,
    },
    AStore {
        arr: Slot,
        i: Slot,
        v: Slot,
    },
    ALen {
        d: Slot,
        arr: Slot,
    },
    Print {
        a: Slot,
    },
    Throw {
        a: Slot,
    },
    /// Starts a thread; arguments in `base..`, the thread id lands in `base`.
    Spawn {
        m: MethodId,
        base: Slot,
    },
    Join {
        d: Slot,
        a: Slot,
    },
    Sleep {
        a: Slot,
    },
    Halt {
        a: Slot,
    },
}

impl Instr {
    /// The yieldpoint this instruction does first, if any: the prologue
    /// instruction, a backward jump with its backedge yieldpoint fused in,
    /// or a `ret` with its epilogue yieldpoint.
    pub fn yield_kind(self) -> Option<YieldKind> {
        use Instr::*;
        match self {
            YieldPrologue => Some(YieldKind::Prologue),
            RetY { .. } => Some(YieldKind::Epilogue),
            JmpY { .. }
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
            | JgeRIY { .. } => Some(YieldKind::Backedge),
            _ => None,
        }
    }

    /// The same instruction with the yieldpoint of `kind` fused in: a jump
    /// with a backedge yieldpoint, a `ret` with an epilogue yieldpoint.
    /// `None` if this instruction has no such form.
    pub fn with_yieldpoint(self, kind: YieldKind) -> Option<Instr> {
        use Instr::*;
        Some(match (kind, self) {
            (YieldKind::Epilogue, Ret { a }) => RetY { a },
            (YieldKind::Backedge, Jmp { t }) => JmpY { t },
            (YieldKind::Backedge, Jz { a, t }) => JzY { a, t },
            (YieldKind::Backedge, Jnz { a, t }) => JnzY { a, t },
            (YieldKind::Backedge, JeqRR { a, b, t }) => JeqRRY { a, b, t },
            (YieldKind::Backedge, JeqRI { a, imm, t }) => JeqRIY { a, imm, t },
            (YieldKind::Backedge, JneRR { a, b, t }) => JneRRY { a, b, t },
            (YieldKind::Backedge, JneRI { a, imm, t }) => JneRIY { a, imm, t },
            (YieldKind::Backedge, JltRR { a, b, t }) => JltRRY { a, b, t },
            (YieldKind::Backedge, JltRI { a, imm, t }) => JltRIY { a, imm, t },
            (YieldKind::Backedge, JleRR { a, b, t }) => JleRRY { a, b, t },
            (YieldKind::Backedge, JleRI { a, imm, t }) => JleRIY { a, imm, t },
            (YieldKind::Backedge, JgtRR { a, b, t }) => JgtRRY { a, b, t },
            (YieldKind::Backedge, JgtRI { a, imm, t }) => JgtRIY { a, imm, t },
            (YieldKind::Backedge, JgeRR { a, b, t }) => JgeRRY { a, b, t },
            (YieldKind::Backedge, JgeRI { a, imm, t }) => JgeRIY { a, imm, t },
            _ => return None,
        })
    }

    /// The same instruction without a fused yieldpoint (unchanged if it has
    /// none; the prologue instruction is only a yieldpoint and stays).
    pub fn without_yieldpoint(self) -> Instr {
        use Instr::*;
        match self {
            RetY { a } => Ret { a },
            JmpY { t } => Jmp { t },
            JzY { a, t } => Jz { a, t },
            JnzY { a, t } => Jnz { a, t },
            JeqRRY { a, b, t } => JeqRR { a, b, t },
            JeqRIY { a, imm, t } => JeqRI { a, imm, t },
            JneRRY { a, b, t } => JneRR { a, b, t },
            JneRIY { a, imm, t } => JneRI { a, imm, t },
            JltRRY { a, b, t } => JltRR { a, b, t },
            JltRIY { a, imm, t } => JltRI { a, imm, t },
            JleRRY { a, b, t } => JleRR { a, b, t },
            JleRIY { a, imm, t } => JleRI { a, imm, t },
            JgtRRY { a, b, t } => JgtRR { a, b, t },
            JgtRIY { a, imm, t } => JgtRI { a, imm, t },
            JgeRRY { a, b, t } => JgeRR { a, b, t },
            JgeRIY { a, imm, t } => JgeRI { a, imm, t },
            other => other,
        }
    }

    /// An integer binary operation in register-register form.
    pub fn bin_rr(op: BinOp, d: Slot, a: Slot, b: Slot) -> Instr {
        use BinOp::*;
        match op {
            Add => Instr::AddRR { d, a, b },
            Sub => Instr::SubRR { d, a, b },
            Mul => Instr::MulRR { d, a, b },
            Div => Instr::DivRR { d, a, b },
            Rem => Instr::RemRR { d, a, b },
            And => Instr::AndRR { d, a, b },
            Or => Instr::OrRR { d, a, b },
            Xor => Instr::XorRR { d, a, b },
            Shl => Instr::ShlRR { d, a, b },
            Shr => Instr::ShrRR { d, a, b },
            Lt => Instr::LtRR { d, a, b },
            Le => Instr::LeRR { d, a, b },
            Gt => Instr::GtRR { d, a, b },
            Ge => Instr::GeRR { d, a, b },
        }
    }

    /// An integer binary operation with an immediate right operand, if the
    /// operation has that form (`div` and `rem` do not: their divisor is
    /// checked at run time).
    pub fn bin_ri(op: BinOp, d: Slot, a: Slot, imm: i32) -> Option<Instr> {
        use BinOp::*;
        Some(match op {
            Add => Instr::AddRI { d, a, imm },
            Sub => Instr::SubRI { d, a, imm },
            Mul => Instr::MulRI { d, a, imm },
            And => Instr::AndRI { d, a, imm },
            Or => Instr::OrRI { d, a, imm },
            Xor => Instr::XorRI { d, a, imm },
            Shl => Instr::ShlRI { d, a, imm },
            Shr => Instr::ShrRI { d, a, imm },
            Lt => Instr::LtRI { d, a, imm },
            Le => Instr::LeRI { d, a, imm },
            Gt => Instr::GtRI { d, a, imm },
            Ge => Instr::GeRI { d, a, imm },
            Div | Rem => return None,
        })
    }

    /// A conditional jump comparing two slots.
    pub fn jcmp_rr(c: Cmp, a: Slot, b: Slot, t: u32) -> Instr {
        match c {
            Cmp::Lt => Instr::JltRR { a, b, t },
            Cmp::Le => Instr::JleRR { a, b, t },
            Cmp::Gt => Instr::JgtRR { a, b, t },
            Cmp::Ge => Instr::JgeRR { a, b, t },
        }
    }

    /// A conditional jump comparing a slot with an immediate.
    pub fn jcmp_ri(c: Cmp, a: Slot, imm: i32, t: u32) -> Instr {
        match c {
            Cmp::Lt => Instr::JltRI { a, imm, t },
            Cmp::Le => Instr::JleRI { a, imm, t },
            Cmp::Gt => Instr::JgtRI { a, imm, t },
            Cmp::Ge => Instr::JgeRI { a, imm, t },
        }
    }

    /// The jump target, for jumps.
    pub fn target(self) -> Option<u32> {
        use Instr::*;
        match self {
            Jmp { t }
            | Jz { t, .. }
            | Jnz { t, .. }
            | JeqRR { t, .. }
            | JeqRI { t, .. }
            | JneRR { t, .. }
            | JneRI { t, .. }
            | JltRR { t, .. }
            | JltRI { t, .. }
            | JleRR { t, .. }
            | JleRI { t, .. }
            | JgtRR { t, .. }
            | JgtRI { t, .. }
            | JgeRR { t, .. }
            | JgeRI { t, .. }
            | JmpY { t }
            | JzY { t, .. }
            | JnzY { t, .. }
            | JeqRRY { t, .. }
            | JeqRIY { t, .. }
            | JneRRY { t, .. }
            | JneRIY { t, .. }
            | JltRRY { t, .. }
            | JltRIY { t, .. }
            | JleRRY { t, .. }
            | JleRIY { t, .. }
            | JgtRRY { t, .. }
            | JgtRIY { t, .. }
            | JgeRRY { t, .. }
            | JgeRIY { t, .. } => Some(t),
            _ => None,
        }
    }

    /// The same instruction jumping to `t` (unchanged if not a jump).
    pub fn with_target(self, new: u32) -> Instr {
        use Instr::*;
        match self {
            Jmp { .. } => Jmp { t: new },
            Jz { a, .. } => Jz { a, t: new },
            Jnz { a, .. } => Jnz { a, t: new },
            JeqRR { a, b, .. } => JeqRR { a, b, t: new },
            JeqRI { a, imm, .. } => JeqRI { a, imm, t: new },
            JneRR { a, b, .. } => JneRR { a, b, t: new },
            JneRI { a, imm, .. } => JneRI { a, imm, t: new },
            JltRR { a, b, .. } => JltRR { a, b, t: new },
            JltRI { a, imm, .. } => JltRI { a, imm, t: new },
            JleRR { a, b, .. } => JleRR { a, b, t: new },
            JleRI { a, imm, .. } => JleRI { a, imm, t: new },
            JgtRR { a, b, .. } => JgtRR { a, b, t: new },
            JgtRI { a, imm, .. } => JgtRI { a, imm, t: new },
            JgeRR { a, b, .. } => JgeRR { a, b, t: new },
            JgeRI { a, imm, .. } => JgeRI { a, imm, t: new },
            JmpY { .. } => JmpY { t: new },
            JzY { a, .. } => JzY { a, t: new },
            JnzY { a, .. } => JnzY { a, t: new },
            JeqRRY { a, b, .. } => JeqRRY { a, b, t: new },
            JeqRIY { a, imm, .. } => JeqRIY { a, imm, t: new },
            JneRRY { a, b, .. } => JneRRY { a, b, t: new },
            JneRIY { a, imm, .. } => JneRIY { a, imm, t: new },
            JltRRY { a, b, .. } => JltRRY { a, b, t: new },
            JltRIY { a, imm, .. } => JltRIY { a, imm, t: new },
            JleRRY { a, b, .. } => JleRRY { a, b, t: new },
            JleRIY { a, imm, .. } => JleRIY { a, imm, t: new },
            JgtRRY { a, b, .. } => JgtRRY { a, b, t: new },
            JgtRIY { a, imm, .. } => JgtRIY { a, imm, t: new },
            JgeRRY { a, b, .. } => JgeRRY { a, b, t: new },
            JgeRIY { a, imm, .. } => JgeRIY { a, imm, t: new },
            other => other,
        }
    }

    /// The destination slot of an instruction that writes one value and
    /// reads nothing after writing it (so it may be retargeted).
    pub fn dest(self) -> Option<Slot> {
        use Instr::*;
        match self {
            Move { d, .. }
            | ConstInt { d, .. }
            | ConstStr { d, .. }
            | ConstNull { d }
            | AddRR { d, .. }
            | AddRI { d, .. }
            | SubRR { d, .. }
            | SubRI { d, .. }
            | MulRR { d, .. }
            | MulRI { d, .. }
            | DivRR { d, .. }
            | RemRR { d, .. }
            | AndRR { d, .. }
            | AndRI { d, .. }
            | OrRR { d, .. }
            | OrRI { d, .. }
            | XorRR { d, .. }
            | XorRI { d, .. }
            | ShlRR { d, .. }
            | ShlRI { d, .. }
            | ShrRR { d, .. }
            | ShrRI { d, .. }
            | LtRR { d, .. }
            | LtRI { d, .. }
            | LeRR { d, .. }
            | LeRI { d, .. }
            | GtRR { d, .. }
            | GtRI { d, .. }
            | GeRR { d, .. }
            | GeRI { d, .. }
            | EqRR { d, .. }
            | EqRI { d, .. }
            | NeRR { d, .. }
            | NeRI { d, .. }
            | Neg { d, .. }
            | Not { d, .. }
            | GetGlobal { d, .. }
            | AddGlobal { d, .. }
            | New { d, .. }
            | GetField { d, .. }
            | InstanceOf { d, .. }
            | IsClass { d, .. }
            | NewArray { d, .. }
            | ALoad { d, .. }
            | ALen { d, .. } => Some(d),
            _ => None,
        }
    }

    /// The same instruction writing its result to `d` instead.
    pub fn with_dest(self, new: Slot) -> Instr {
        use Instr::*;
        match self {
            Move { a, .. } => Move { d: new, a },
            ConstInt { v, .. } => ConstInt { d: new, v },
            ConstStr { s, .. } => ConstStr { d: new, s },
            ConstNull { .. } => ConstNull { d: new },
            AddRR { a, b, .. } => AddRR { d: new, a, b },
            AddRI { a, imm, .. } => AddRI { d: new, a, imm },
            SubRR { a, b, .. } => SubRR { d: new, a, b },
            SubRI { a, imm, .. } => SubRI { d: new, a, imm },
            MulRR { a, b, .. } => MulRR { d: new, a, b },
            MulRI { a, imm, .. } => MulRI { d: new, a, imm },
            DivRR { a, b, .. } => DivRR { d: new, a, b },
            RemRR { a, b, .. } => RemRR { d: new, a, b },
            AndRR { a, b, .. } => AndRR { d: new, a, b },
            AndRI { a, imm, .. } => AndRI { d: new, a, imm },
            OrRR { a, b, .. } => OrRR { d: new, a, b },
            OrRI { a, imm, .. } => OrRI { d: new, a, imm },
            XorRR { a, b, .. } => XorRR { d: new, a, b },
            XorRI { a, imm, .. } => XorRI { d: new, a, imm },
            ShlRR { a, b, .. } => ShlRR { d: new, a, b },
            ShlRI { a, imm, .. } => ShlRI { d: new, a, imm },
            ShrRR { a, b, .. } => ShrRR { d: new, a, b },
            ShrRI { a, imm, .. } => ShrRI { d: new, a, imm },
            LtRR { a, b, .. } => LtRR { d: new, a, b },
            LtRI { a, imm, .. } => LtRI { d: new, a, imm },
            LeRR { a, b, .. } => LeRR { d: new, a, b },
            LeRI { a, imm, .. } => LeRI { d: new, a, imm },
            GtRR { a, b, .. } => GtRR { d: new, a, b },
            GtRI { a, imm, .. } => GtRI { d: new, a, imm },
            GeRR { a, b, .. } => GeRR { d: new, a, b },
            GeRI { a, imm, .. } => GeRI { d: new, a, imm },
            EqRR { a, b, .. } => EqRR { d: new, a, b },
            EqRI { a, imm, .. } => EqRI { d: new, a, imm },
            NeRR { a, b, .. } => NeRR { d: new, a, b },
            NeRI { a, imm, .. } => NeRI { d: new, a, imm },
            Neg { a, .. } => Neg { d: new, a },
            Not { a, .. } => Not { d: new, a },
            GetGlobal { g, .. } => GetGlobal { d: new, g },
            AddGlobal { g, a, .. } => AddGlobal { d: new, g, a },
            New { class, .. } => New { d: new, class },
            GetField { obj, f, .. } => GetField { d: new, obj, f },
            InstanceOf { a, class, .. } => InstanceOf { d: new, a, class },
            IsClass { a, class, .. } => IsClass { d: new, a, class },
            NewArray { n, .. } => NewArray { d: new, n },
            ALoad { arr, i, .. } => ALoad { d: new, arr, i },
            ALen { arr, .. } => ALen { d: new, arr },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instr_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Instr>(), 16);
    }

    #[test]
    fn retargeting_keeps_operands() {
        let i = Instr::AddRI { d: 5, a: 1, imm: 3 };
        assert_eq!(i.with_dest(0), Instr::AddRI { d: 0, a: 1, imm: 3 });
        assert_eq!(i.dest(), Some(5));
        let j = Instr::JltRI { a: 1, imm: 9, t: 0 };
        assert_eq!(j.with_target(7).target(), Some(7));
    }

    #[test]
    fn fused_yieldpoints_round_trip() {
        let jumps = [
            Instr::Jmp { t: 3 },
            Instr::Jz { a: 1, t: 3 },
            Instr::Jnz { a: 1, t: 3 },
            Instr::JeqRR { a: 1, b: 2, t: 3 },
            Instr::JeqRI {
                a: 1,
                imm: -4,
                t: 3,
            },
            Instr::JneRR { a: 1, b: 2, t: 3 },
            Instr::JneRI {
                a: 1,
                imm: -4,
                t: 3,
            },
            Instr::JltRR { a: 1, b: 2, t: 3 },
            Instr::JltRI {
                a: 1,
                imm: -4,
                t: 3,
            },
            Instr::JleRR { a: 1, b: 2, t: 3 },
            Instr::JleRI {
                a: 1,
                imm: -4,
                t: 3,
            },
            Instr::JgtRR { a: 1, b: 2, t: 3 },
            Instr::JgtRI {
                a: 1,
                imm: -4,
                t: 3,
            },
            Instr::JgeRR { a: 1, b: 2, t: 3 },
            Instr::JgeRI {
                a: 1,
                imm: -4,
                t: 3,
            },
        ];
        for j in jumps {
            assert_eq!(j.yield_kind(), None);
            assert_eq!(j.with_yieldpoint(YieldKind::Epilogue), None);
            let y = j.with_yieldpoint(YieldKind::Backedge).expect("a jump");
            assert_ne!(y, j);
            assert_eq!(y.yield_kind(), Some(YieldKind::Backedge));
            assert_eq!(y.without_yieldpoint(), j);
            assert_eq!(y.target(), Some(3));
            let moved = y.with_target(9);
            assert_eq!(moved.target(), Some(9));
            assert_eq!(moved.yield_kind(), Some(YieldKind::Backedge));
            assert_eq!(moved.without_yieldpoint(), j.with_target(9));
        }
        let r = Instr::Ret { a: 2 };
        let ry = r.with_yieldpoint(YieldKind::Epilogue).expect("ret");
        assert_eq!(ry, Instr::RetY { a: 2 });
        assert_eq!(ry.yield_kind(), Some(YieldKind::Epilogue));
        assert_eq!(ry.without_yieldpoint(), r);
        assert_eq!(r.with_yieldpoint(YieldKind::Backedge), None);
        assert_eq!(Instr::YieldPrologue.yield_kind(), Some(YieldKind::Prologue));
        assert_eq!(
            Instr::YieldPrologue.without_yieldpoint(),
            Instr::YieldPrologue
        );
        assert_eq!(Instr::Nop.with_yieldpoint(YieldKind::Prologue), None);
    }
}
