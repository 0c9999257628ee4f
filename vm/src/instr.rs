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
//! they fit. The three yieldpoint instructions of SPEC "Yieldpoints" stay
//! real instructions. Every variant is `Copy` and 16 bytes (asserted in a
//! test).

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
    /// Prologue yieldpoint: taken if the control word is non-zero.
    YieldPrologue,
    /// Epilogue yieldpoint: taken if the control word is non-zero.
    YieldEpilogue,
    /// Backedge yieldpoint: taken if the control word is positive.
    YieldBackedge,
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
    /// The yieldpoint instruction of `kind`.
    pub fn yieldpoint(kind: YieldKind) -> Instr {
        match kind {
            YieldKind::Prologue => Instr::YieldPrologue,
            YieldKind::Epilogue => Instr::YieldEpilogue,
            YieldKind::Backedge => Instr::YieldBackedge,
        }
    }

    /// The kind, if this is a yieldpoint.
    pub fn yield_kind(self) -> Option<YieldKind> {
        match self {
            Instr::YieldPrologue => Some(YieldKind::Prologue),
            Instr::YieldEpilogue => Some(YieldKind::Epilogue),
            Instr::YieldBackedge => Some(YieldKind::Backedge),
            _ => None,
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
            | JgeRI { t, .. } => Some(t),
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
}
