//! The loaded instruction: what the interpreter dispatches on.
//!
//! One [`Instr`] per source instruction, operands resolved to indices, plus
//! the three yieldpoint instructions the loader inserts (SPEC "Yieldpoints").
//! The enum is `Copy` and 16 bytes so the dispatch loop reads one value per
//! step; the size is asserted in a test.

use crate::module::Op;
use crate::opcode::Opcode;

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

impl YieldKind {
    /// Prologue and epilogue yieldpoints are taken when the control word is
    /// non-zero; backedge yieldpoints only when it is positive (Arnold &
    /// Grove 2005, section 5.1).
    #[inline(always)]
    pub fn is_call_boundary(self) -> bool {
        !matches!(self, YieldKind::Backedge)
    }
}

/// A runnable instruction. Jump targets and catch ranges are indices into
/// the loaded code (yieldpoints included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Instr {
    /// Prologue yieldpoint: taken if the control word is non-zero.
    YieldPrologue,
    /// Epilogue yieldpoint: taken if the control word is non-zero.
    YieldEpilogue,
    /// Backedge yieldpoint: taken if the control word is positive.
    YieldBackedge,
    PushInt(i64),
    PushStr(u32),
    Null,
    Pop,
    Dup,
    Swap,
    Over,
    Load(u32),
    Store(u32),
    Inc(u32, i64),
    GetGlobal(u32),
    PutGlobal(u32),
    AddGlobal(u32),
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Neg,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Not,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Jmp(u32),
    Jz(u32),
    Jnz(u32),
    Jeq(u32),
    Jne(u32),
    Jlt(u32),
    Jle(u32),
    Jgt(u32),
    Jge(u32),
    /// Static call of a method (index of its body).
    Call(u32),
    /// Virtual call: selector and the number of values it pops.
    CallVirt {
        selector: u32,
        arity: u32,
    },
    Ret,
    New(u32),
    /// Class named in the instruction, field slot.
    GetField(u32, u32),
    PutField(u32, u32),
    InstanceOf(u32),
    IsClass(u32),
    NewArray,
    ALoad,
    AStore,
    ALen,
    Print,
    Throw,
    Spawn(u32),
    Join,
    Sleep,
    Halt,
    Nop,
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

    /// The loaded form of a source instruction; `target` maps source
    /// instruction indices to loaded pcs.
    pub fn from_op(
        op: Op,
        arity_of_selector: impl Fn(u32) -> u32,
        target: impl Fn(u32) -> u32,
    ) -> Instr {
        use Instr as I;
        match op {
            Op::PushInt(i) => I::PushInt(i),
            Op::PushStr(s) => I::PushStr(s),
            Op::Null => I::Null,
            Op::Pop => I::Pop,
            Op::Dup => I::Dup,
            Op::Swap => I::Swap,
            Op::Over => I::Over,
            Op::Load(l) => I::Load(l),
            Op::Store(l) => I::Store(l),
            Op::Inc(l, k) => I::Inc(l, k),
            Op::GetGlobal(g) => I::GetGlobal(g),
            Op::PutGlobal(g) => I::PutGlobal(g),
            Op::AddGlobal(g) => I::AddGlobal(g),
            Op::Add => I::Add,
            Op::Sub => I::Sub,
            Op::Mul => I::Mul,
            Op::Div => I::Div,
            Op::Rem => I::Rem,
            Op::Neg => I::Neg,
            Op::And => I::And,
            Op::Or => I::Or,
            Op::Xor => I::Xor,
            Op::Shl => I::Shl,
            Op::Shr => I::Shr,
            Op::Not => I::Not,
            Op::Eq => I::Eq,
            Op::Ne => I::Ne,
            Op::Lt => I::Lt,
            Op::Le => I::Le,
            Op::Gt => I::Gt,
            Op::Ge => I::Ge,
            Op::Jmp(t) => I::Jmp(target(t)),
            Op::Jz(t) => I::Jz(target(t)),
            Op::Jnz(t) => I::Jnz(target(t)),
            Op::Jeq(t) => I::Jeq(target(t)),
            Op::Jne(t) => I::Jne(target(t)),
            Op::Jlt(t) => I::Jlt(target(t)),
            Op::Jle(t) => I::Jle(target(t)),
            Op::Jgt(t) => I::Jgt(target(t)),
            Op::Jge(t) => I::Jge(target(t)),
            Op::Call(m) => I::Call(m),
            Op::CallVirt(s) => I::CallVirt {
                selector: s,
                arity: arity_of_selector(s),
            },
            Op::Ret => I::Ret,
            Op::New(c) => I::New(c),
            Op::GetField(c, f) => I::GetField(c, f),
            Op::PutField(c, f) => I::PutField(c, f),
            Op::InstanceOf(c) => I::InstanceOf(c),
            Op::IsClass(c) => I::IsClass(c),
            Op::NewArray => I::NewArray,
            Op::ALoad => I::ALoad,
            Op::AStore => I::AStore,
            Op::ALen => I::ALen,
            Op::Print => I::Print,
            Op::Throw => I::Throw,
            Op::Spawn(m) => I::Spawn(m),
            Op::Join => I::Join,
            Op::Sleep => I::Sleep,
            Op::Halt => I::Halt,
            Op::Nop => I::Nop,
        }
    }

    /// The opcode-table entry, `None` for a yieldpoint.
    pub fn opcode(self) -> Option<Opcode> {
        use Instr as I;
        Some(match self {
            I::YieldPrologue | I::YieldEpilogue | I::YieldBackedge => return None,
            I::PushInt(_) | I::PushStr(_) => Opcode::Push,
            I::Null => Opcode::Null,
            I::Pop => Opcode::Pop,
            I::Dup => Opcode::Dup,
            I::Swap => Opcode::Swap,
            I::Over => Opcode::Over,
            I::Load(_) => Opcode::Load,
            I::Store(_) => Opcode::Store,
            I::Inc(..) => Opcode::Inc,
            I::GetGlobal(_) => Opcode::GetGlobal,
            I::PutGlobal(_) => Opcode::PutGlobal,
            I::AddGlobal(_) => Opcode::AddGlobal,
            I::Add => Opcode::Add,
            I::Sub => Opcode::Sub,
            I::Mul => Opcode::Mul,
            I::Div => Opcode::Div,
            I::Rem => Opcode::Rem,
            I::Neg => Opcode::Neg,
            I::And => Opcode::And,
            I::Or => Opcode::Or,
            I::Xor => Opcode::Xor,
            I::Shl => Opcode::Shl,
            I::Shr => Opcode::Shr,
            I::Not => Opcode::Not,
            I::Eq => Opcode::Eq,
            I::Ne => Opcode::Ne,
            I::Lt => Opcode::Lt,
            I::Le => Opcode::Le,
            I::Gt => Opcode::Gt,
            I::Ge => Opcode::Ge,
            I::Jmp(_) => Opcode::Jmp,
            I::Jz(_) => Opcode::Jz,
            I::Jnz(_) => Opcode::Jnz,
            I::Jeq(_) => Opcode::Jeq,
            I::Jne(_) => Opcode::Jne,
            I::Jlt(_) => Opcode::Jlt,
            I::Jle(_) => Opcode::Jle,
            I::Jgt(_) => Opcode::Jgt,
            I::Jge(_) => Opcode::Jge,
            I::Call(_) => Opcode::Call,
            I::CallVirt { .. } => Opcode::CallVirt,
            I::Ret => Opcode::Ret,
            I::New(_) => Opcode::New,
            I::GetField(..) => Opcode::GetField,
            I::PutField(..) => Opcode::PutField,
            I::InstanceOf(_) => Opcode::InstanceOf,
            I::IsClass(_) => Opcode::IsClass,
            I::NewArray => Opcode::NewArray,
            I::ALoad => Opcode::ALoad,
            I::AStore => Opcode::AStore,
            I::ALen => Opcode::ALen,
            I::Print => Opcode::Print,
            I::Throw => Opcode::Throw,
            I::Spawn(_) => Opcode::Spawn,
            I::Join => Opcode::Join,
            I::Sleep => Opcode::Sleep,
            I::Halt => Opcode::Halt,
            I::Nop => Opcode::Nop,
        })
    }

    /// Cycles in the cost model (yieldpoints cost 1, their fast path).
    pub fn cost(self) -> u32 {
        self.opcode().map_or(1, Opcode::cost)
    }

    /// How many source instructions this stands for (0 for a yieldpoint).
    #[inline(always)]
    pub fn source_count(self) -> u32 {
        u32::from(self.yield_kind().is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instr_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Instr>(), 16);
    }
}
