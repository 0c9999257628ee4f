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
//!
//! Every instruction is one row of the table at the `instrs!` invocation
//! below: its doc line, its operands and their [`operand`] kinds (which say
//! the slots it reads and writes, [`Instr::slot_uses`]), its roles
//! (retargetable destination, jump target, fused yieldpoint) and its
//! `vm disasm` rendering. The helpers the loader uses ([`Instr::dest`],
//! [`Instr::with_target`], [`Instr::with_yieldpoint`], ...) and
//! [`Instr::render`] are generated from it. Adding an instruction means a
//! row there, its arm in the interpreter's `match` (`crate::interp`), and
//! the code in [`crate::translate`] that emits it.

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

impl YieldKind {
    /// The name `vm disasm` shows (`prologue`, `epilogue`, `backedge`).
    pub fn name(self) -> &'static str {
        match self {
            YieldKind::Prologue => "prologue",
            YieldKind::Epilogue => "epilogue",
            YieldKind::Backedge => "backedge",
        }
    }
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

/// The kinds of an instruction's operands. Each is an alias of the integer
/// type it is stored as; in the table of [`Instr`] the kind also says how
/// the operand is used (read or written, for slots) and how `vm disasm`
/// names it.
pub mod operand {
    pub use crate::module::{ClassId, MethodId, SelectorId, StrId};

    use super::Slot;

    /// A slot the instruction reads.
    pub type Src = Slot;
    /// A slot the instruction writes.
    pub type Dst = Slot;
    /// A slot the instruction reads and then writes (`swap`, `inc`).
    pub type InOut = Slot;
    /// The first slot of a call's window: the arguments are in
    /// `base..base + arity`, and the result (or thread id) lands in `base`.
    pub type Base = Slot;
    /// An `i32` immediate (the right operand of an `RI` form).
    pub type Imm = i32;
    /// A full integer constant (`push INT`, `inc L INT`).
    pub type Int = i64;
    /// A global, by index into [`crate::module::Module::globals`].
    pub type Global = u32;
    /// A field, by index into [`crate::loader::Program::field_refs`].
    pub type FieldRef = u32;
    /// A jump target: an index into the method's body.
    pub type Target = u32;
    /// The number of slots in a virtual call's window, receiver included.
    pub type Arity = u32;
    /// A call's window and the moves into it that precede the call (the
    /// argument-passing superinstructions).
    pub use super::ArgMoves;
}

/// The moves `dst[j] = src[j]` (`j < count`, in order) that fill a call's
/// window before the call, and the window's first slot: the operand of the
/// superinstructions [`Instr::CallArgs`] and [`Instr::CallVirtArgs`] that
/// do the moves and the call in one dispatch ([`crate::superinstr`]).
/// Slots are bytes, so that the operand and a method or selector fit an
/// instruction's 16 bytes: a call whose slots do not fit is not fused. The
/// operand is aligned as a `u32` so that no variant has bytes in the tag's
/// word: the dispatch loads every instruction's tag word, and a byte field
/// beside the tag cost three loads more per dispatch (callgrind, fib).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C, align(4))]
pub struct ArgMoves {
    /// The call window's first slot.
    pub base: u8,
    /// How many moves (1 to [`ArgMoves::MAX`]): also how many instructions
    /// the superinstruction stands for before the call.
    pub count: u8,
    /// The slots written, in the moves' order.
    pub dst: [u8; ArgMoves::MAX],
    /// The slots read, in the moves' order.
    pub src: [u8; ArgMoves::MAX],
}

impl ArgMoves {
    /// The most moves one superinstruction does.
    pub const MAX: usize = 3;

    /// The moves, `(dst, src)` in order.
    pub fn moves(self) -> impl Iterator<Item = (Slot, Slot)> {
        (0..usize::from(self.count))
            .map(move |j| (Slot::from(self.dst[j]), Slot::from(self.src[j])))
    }

    /// The slots the moves name, as [`Instr::slot_uses`] lists them, then
    /// the window.
    fn slot_uses(self, uses: &mut Vec<(Slot, SlotUse)>) {
        for (d, s) in self.moves() {
            uses.push((s, SlotUse::Read));
            uses.push((d, SlotUse::Write));
        }
        uses.push((Slot::from(self.base), SlotUse::Window));
    }
}

/// How an instruction uses a frame slot it names: the register form's
/// stack effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotUse {
    /// Read ([`operand::Src`]).
    Read,
    /// Written ([`operand::Dst`]).
    Write,
    /// Read, then written ([`operand::InOut`]).
    ReadWrite,
    /// The first slot of a call window ([`operand::Base`]): the callee's
    /// arguments are read from it on, its result is written to it.
    Window,
}

/// The instruction table: every [`Instr`] with its doc line, its operands
/// (name and [`operand`] kind, in memory order), its roles and how
/// `vm disasm` renders it. A row is
///
/// ```text
/// /// doc
/// Name { field: Kind, ... } [roles] => render;
/// ```
///
/// Roles (each optional): `dest(d)` marks `d` as a destination that may be
/// retargeted (the instruction writes it and reads nothing afterwards);
/// `target(t)` the jump target; `yieldpoint(Prologue)` the prologue
/// instruction; `fuses(Kind, Base)` a `Base` instruction with the
/// yieldpoint of `Kind` fused in, which has `Base`'s operands and renders
/// as `yieldpoint kind; ` and `Base`'s rendering (such a row has no render
/// of its own). A render is a format string naming the operands (each
/// shown by its kind: slots by name, globals, fields, classes and strings
/// by what they denote), or `{ |c| expr }` with the raw operands and the
/// [`Names`](crate::disasm::Names) `c`.
///
/// The variants' order is the enum's discriminant order, which the
/// interpreter's `match` compiles to a jump table over: keep it.
macro_rules! instrs {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident $({ $($f:ident : $kind:ident),* $(,)? })? [$($role:tt)*] $(=> $render:tt)?;
    )*) => {
        /// A runnable instruction. `d` is the destination slot; `a`, `b`
        /// operand slots; `imm` an immediate; `t` a jump target (an index
        /// into the body). The operands' types are the kinds of [`operand`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Instr {
            $(
                $(#[doc = $doc])*
                $name $({ $(
                    #[doc = instrs!(@field_doc $kind)]
                    $f: operand::$kind
                ),* })?,
            )*
        }

        impl Instr {
            /// Every instruction's name, in table order.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// The instruction's name (its variant).
            pub fn name(self) -> &'static str {
                match self { $(Instr::$name { .. } => stringify!($name),)* }
            }

            /// The yieldpoint this instruction does first, if any: the
            /// prologue instruction, a backward jump with its backedge
            /// yieldpoint fused in, or a `ret` with its epilogue yieldpoint.
            pub fn yield_kind(self) -> Option<YieldKind> {
                match self { $(Instr::$name { .. } => instrs!(@yield_kind [$($role)*]),)* }
            }

            /// The same instruction with the yieldpoint of `kind` fused in:
            /// a jump with a backedge yieldpoint, a `ret` with an epilogue
            /// yieldpoint. `None` if this instruction has no such form.
            pub fn with_yieldpoint(self, kind: YieldKind) -> Option<Instr> {
                let this = self;
                $(instrs!(@fuse this, kind, $name [$($($f)*)?] [$($role)*]);)*
                None
            }

            /// The same instruction without a fused yieldpoint (unchanged
            /// if it has none; the prologue instruction is only a
            /// yieldpoint and stays).
            pub fn without_yieldpoint(self) -> Instr {
                let this = self;
                $(instrs!(@unfuse this, $name [$($($f)*)?] [$($role)*]);)*
                self
            }

            /// The jump target, for jumps.
            pub fn target(self) -> Option<u32> {
                let this = self;
                $(instrs!(@get this, target, $name [$($role)*]);)*
                None
            }

            /// The same instruction jumping to `new` (unchanged if not a
            /// jump).
            pub fn with_target(self, new: u32) -> Instr {
                let this = self;
                $(instrs!(@set this, new, target, $name [$($($f)*)?] [$($role)*]);)*
                self
            }

            /// The destination slot of an instruction that writes one value
            /// and reads nothing after writing it (so it may be retargeted).
            pub fn dest(self) -> Option<Slot> {
                let this = self;
                $(instrs!(@get this, dest, $name [$($role)*]);)*
                None
            }

            /// The same instruction writing its result to `new` instead.
            pub fn with_dest(self, new: Slot) -> Instr {
                let this = self;
                $(instrs!(@set this, new, dest, $name [$($($f)*)?] [$($role)*]);)*
                self
            }

            /// The frame slots this instruction names, in operand order,
            /// with how it uses each.
            pub fn slot_uses(self) -> Vec<(Slot, SlotUse)> {
                #[allow(unused_mut)]
                let mut uses = Vec::new();
                match self {
                    $(Instr::$name $({ $($f),* })? => {
                        $($(instrs!(@slot_use uses, $kind, $f);)*)?
                    })*
                }
                uses
            }

            /// The instruction as the interpreter runs it: each slot operand
            /// ([`operand::Src`], [`operand::Dst`], [`operand::InOut`],
            /// [`operand::Base`]) multiplied by `bytes`, the size of a slot,
            /// so that it is the slot's byte offset from the frame's first
            /// slot (see [`Body::run_code`](crate::loader::Body::run_code)).
            /// An [`ArgMoves`]' slots are bytes and stay indices. `None` if
            /// an offset does not fit a slot operand.
            pub fn slots_scaled(self, bytes: u32) -> Option<Instr> {
                Some(match self {
                    $(Instr::$name $({ $($f),* })? => Instr::$name $({ $(
                        $f: instrs!(@scale bytes, $kind, $f)
                    ),* })?,)*
                })
            }

            /// The instruction as `vm disasm` shows it, operands named by `c`.
            pub fn render(self, c: &crate::disasm::Names<'_>) -> String {
                match self {
                    $(Instr::$name $({ $($f),* })? => instrs!(
                        @render c, [$($role)*] [$($($f : $kind)*)?] $($render)?
                    ),)*
                }
            }
        }
    };

    (@field_doc Src) => { "A slot read." };
    (@field_doc Dst) => { "The slot written." };
    (@field_doc InOut) => { "A slot read and written." };
    (@field_doc Base) => { "The call window's first slot." };
    (@field_doc Imm) => { "An immediate." };
    (@field_doc Int) => { "An integer constant." };
    (@field_doc Global) => { "A global." };
    (@field_doc FieldRef) => { "A field reference." };
    (@field_doc Target) => { "The jump target." };
    (@field_doc Arity) => { "The call window's size." };
    (@field_doc StrId) => { "A string constant." };
    (@field_doc ClassId) => { "A class." };
    (@field_doc MethodId) => { "The static method called." };
    (@field_doc SelectorId) => { "The virtual method's selector." };
    (@field_doc ArgMoves) => { "The moves into the call's window, and the window." };

    (@yield_kind []) => { None };
    (@yield_kind [yieldpoint($k:ident) $($rest:tt)*]) => { Some(YieldKind::$k) };
    (@yield_kind [fuses($k:ident, $base:ident) $($rest:tt)*]) => { Some(YieldKind::$k) };
    (@yield_kind [$r:ident $a:tt $($rest:tt)*]) => { instrs!(@yield_kind [$($rest)*]) };

    (@fuse $this:ident, $kind:ident, $name:ident [$($f:ident)*] []) => {};
    (@fuse $this:ident, $kind:ident, $name:ident [$($f:ident)*]
        [fuses($k:ident, $base:ident) $($rest:tt)*]) => {
        if let (YieldKind::$k, Instr::$base { $($f),* }) = ($kind, $this) {
            return Some(Instr::$name { $($f),* });
        }
    };
    (@fuse $this:ident, $kind:ident, $name:ident [$($f:ident)*]
        [$r:ident $a:tt $($rest:tt)*]) => {
        instrs!(@fuse $this, $kind, $name [$($f)*] [$($rest)*])
    };

    (@unfuse $this:ident, $name:ident [$($f:ident)*] []) => {};
    (@unfuse $this:ident, $name:ident [$($f:ident)*]
        [fuses($k:ident, $base:ident) $($rest:tt)*]) => {
        if let Instr::$name { $($f),* } = $this {
            return Instr::$base { $($f),* };
        }
    };
    (@unfuse $this:ident, $name:ident [$($f:ident)*] [$r:ident $a:tt $($rest:tt)*]) => {
        instrs!(@unfuse $this, $name [$($f)*] [$($rest)*])
    };

    (@get $this:ident, $role:ident, $name:ident []) => {};
    (@get $this:ident, target, $name:ident [target($x:ident) $($rest:tt)*]) => {
        if let Instr::$name { $x, .. } = $this {
            return Some($x);
        }
    };
    (@get $this:ident, dest, $name:ident [dest($x:ident) $($rest:tt)*]) => {
        if let Instr::$name { $x, .. } = $this {
            return Some($x);
        }
    };
    (@get $this:ident, $role:ident, $name:ident [$r:ident $a:tt $($rest:tt)*]) => {
        instrs!(@get $this, $role, $name [$($rest)*])
    };

    (@set $this:ident, $new:ident, $role:ident, $name:ident [$($f:ident)*] []) => {};
    (@set $this:ident, $new:ident, target, $name:ident [$($f:ident)*]
        [target($x:ident) $($rest:tt)*]) => {
        if let Instr::$name { $($f),* } = $this {
            let _ = $x;
            let $x = $new;
            return Instr::$name { $($f),* };
        }
    };
    (@set $this:ident, $new:ident, dest, $name:ident [$($f:ident)*]
        [dest($x:ident) $($rest:tt)*]) => {
        if let Instr::$name { $($f),* } = $this {
            let _ = $x;
            let $x = $new;
            return Instr::$name { $($f),* };
        }
    };
    (@set $this:ident, $new:ident, $role:ident, $name:ident [$($f:ident)*]
        [$r:ident $a:tt $($rest:tt)*]) => {
        instrs!(@set $this, $new, $role, $name [$($f)*] [$($rest)*])
    };

    (@scale $b:ident, Src, $f:ident) => { $f.checked_mul($b)? };
    (@scale $b:ident, Dst, $f:ident) => { $f.checked_mul($b)? };
    (@scale $b:ident, InOut, $f:ident) => { $f.checked_mul($b)? };
    (@scale $b:ident, Base, $f:ident) => { $f.checked_mul($b)? };
    (@scale $b:ident, $other:ident, $f:ident) => { $f };

    (@slot_use $uses:ident, Src, $f:ident) => { $uses.push(($f, SlotUse::Read)) };
    (@slot_use $uses:ident, Dst, $f:ident) => { $uses.push(($f, SlotUse::Write)) };
    (@slot_use $uses:ident, InOut, $f:ident) => { $uses.push(($f, SlotUse::ReadWrite)) };
    (@slot_use $uses:ident, Base, $f:ident) => { $uses.push(($f, SlotUse::Window)) };
    (@slot_use $uses:ident, ArgMoves, $f:ident) => { $f.slot_uses(&mut $uses) };
    (@slot_use $uses:ident, $other:ident, $f:ident) => { let _ = $f; };

    // A fused row: the yieldpoint, then its base instruction.
    (@render $c:ident, [fuses($k:ident, $base:ident) $($rest:tt)*] [$($f:ident : $kind:ident)*]) => {
        format!("yieldpoint {}; {}", YieldKind::$k.name(), Instr::$base { $($f),* }.render($c))
    };
    (@render $c:ident, [$r:ident $a:tt $($rest:tt)*] [$($f:ident : $kind:ident)*]) => {
        instrs!(@render $c, [$($rest)*] [$($f : $kind)*])
    };
    // A format string: each operand shown by its kind.
    (@render $c:ident, [$($role:tt)*] [$($f:ident : $kind:ident)*] $fmt:literal) => {{
        $(let $f = instrs!(@show $c, $kind, $f);)*
        format!($fmt)
    }};
    // An expression over the raw operands and the names.
    (@render $c:ident, [$($role:tt)*] [$($f:ident : $kind:ident)*] { |$n:ident| $e:expr }) => {{
        let $n = $c;
        $e
    }};

    (@show $c:ident, Src, $v:ident) => { $c.slot($v) };
    (@show $c:ident, Dst, $v:ident) => { $c.slot($v) };
    (@show $c:ident, InOut, $v:ident) => { $c.slot($v) };
    (@show $c:ident, Base, $v:ident) => { $c.slot($v) };
    (@show $c:ident, Global, $v:ident) => { $c.global($v) };
    (@show $c:ident, FieldRef, $v:ident) => { $c.field($v) };
    (@show $c:ident, ClassId, $v:ident) => { $c.class($v) };
    (@show $c:ident, StrId, $v:ident) => { $c.string($v) };
    (@show $c:ident, $kind:ident, $v:ident) => { $v };
}

instrs! {
    /// Prologue yieldpoint: taken if the control word is non-zero. Always
    /// at pc 0; calls do it inline and enter at pc 1.
    YieldPrologue [yieldpoint(Prologue)] => "yieldpoint prologue";
    /// Does nothing (carries the count of source instructions that left no
    /// other trace, such as `nop` or `push 1; pop`).
    Nop [] => "nop";
    /// `d = a`: copies a slot (a `load`, `store` or `dup` left over).
    Move { d: Dst, a: Src } [dest(d)] => "{d} = {a}";
    /// Exchanges two slots (`swap`).
    Swap { a: InOut, b: InOut } [] => "swap {a}, {b}";
    /// `d = v`: an integer constant.
    ConstInt { d: Dst, v: Int } [dest(d)] => "{d} = {v}";
    /// `d = "s"`: a string constant.
    ConstStr { d: Dst, s: StrId } [dest(d)] => "{d} = {s}";
    /// `d = null`.
    ConstNull { d: Dst } [dest(d)] => "{d} = null";
    /// `d = a + b`, wrapping.
    AddRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = add {a}, {b}";
    /// `d = a + imm`, wrapping.
    AddRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = add {a}, {imm}";
    /// `d = a - b`, wrapping.
    SubRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = sub {a}, {b}";
    /// `d = a - imm`, wrapping.
    SubRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = sub {a}, {imm}";
    /// `d = a * b`, wrapping.
    MulRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = mul {a}, {b}";
    /// `d = a * imm`, wrapping.
    MulRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = mul {a}, {imm}";
    /// `d = a / b`, truncating; the divisor is checked at run time.
    DivRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = div {a}, {b}";
    /// `d = a rem b`; the divisor is checked at run time.
    RemRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = rem {a}, {b}";
    /// `d = a & b`.
    AndRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = and {a}, {b}";
    /// `d = a & imm`.
    AndRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = and {a}, {imm}";
    /// `d = a | b`.
    OrRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = or {a}, {b}";
    /// `d = a | imm`.
    OrRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = or {a}, {imm}";
    /// `d = a ^ b`.
    XorRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = xor {a}, {b}";
    /// `d = a ^ imm`.
    XorRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = xor {a}, {imm}";
    /// `d = a << (b & 63)`.
    ShlRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = shl {a}, {b}";
    /// `d = a << (imm & 63)`.
    ShlRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = shl {a}, {imm}";
    /// `d = a >> (b & 63)`, arithmetic.
    ShrRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = shr {a}, {b}";
    /// `d = a >> (imm & 63)`, arithmetic.
    ShrRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = shr {a}, {imm}";
    /// `d = a < b` as 0/1.
    LtRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = lt {a}, {b}";
    /// `d = a < imm` as 0/1.
    LtRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = lt {a}, {imm}";
    /// `d = a <= b` as 0/1.
    LeRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = le {a}, {b}";
    /// `d = a <= imm` as 0/1.
    LeRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = le {a}, {imm}";
    /// `d = a > b` as 0/1.
    GtRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = gt {a}, {b}";
    /// `d = a > imm` as 0/1.
    GtRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = gt {a}, {imm}";
    /// `d = a >= b` as 0/1.
    GeRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = ge {a}, {b}";
    /// `d = a >= imm` as 0/1.
    GeRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = ge {a}, {imm}";
    /// `eq` on any kinds.
    EqRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = eq {a}, {b}";
    /// `eq` against an integer.
    EqRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = eq {a}, {imm}";
    /// `ne` on any kinds.
    NeRR { d: Dst, a: Src, b: Src } [dest(d)] => "{d} = ne {a}, {b}";
    /// `ne` against an integer.
    NeRI { d: Dst, a: Src, imm: Imm } [dest(d)] => "{d} = ne {a}, {imm}";
    /// `d = -a`, wrapping.
    Neg { d: Dst, a: Src } [dest(d)] => "{d} = neg {a}";
    /// `d = 1` if `a` is 0 or null, else 0.
    Not { d: Dst, a: Src } [dest(d)] => "{d} = not {a}";
    /// `inc`: integer local += v.
    Inc { a: InOut, v: Int } [] => "inc {a} {v}";
    /// `d = ` global `g`.
    GetGlobal { d: Dst, g: Global } [dest(d)] => "{d} = getglobal {g}";
    /// Global `g = a`, integers only.
    PutGlobal { g: Global, a: Src } [] => "putglobal {g}, {a}";
    /// Atomic fetch-and-add: `d = g; g += a`.
    AddGlobal { d: Dst, g: Global, a: Src } [dest(d)] => "{d} = addglobal {g}, {a}";
    /// Always jumps.
    Jmp { t: Target } [target(t)] => "jmp -> {t}";
    /// Jumps if `a` is 0 or null.
    Jz { a: Src, t: Target } [target(t)] => "jz {a} -> {t}";
    /// Jumps if `a` is neither 0 nor null.
    Jnz { a: Src, t: Target } [target(t)] => "jnz {a} -> {t}";
    /// Jumps if `a eq b`.
    JeqRR { a: Src, b: Src, t: Target } [target(t)] => "jeq {a}, {b} -> {t}";
    /// Jumps if `a eq imm`.
    JeqRI { a: Src, imm: Imm, t: Target } [target(t)] => "jeq {a}, {imm} -> {t}";
    /// Jumps if `a ne b`.
    JneRR { a: Src, b: Src, t: Target } [target(t)] => "jne {a}, {b} -> {t}";
    /// Jumps if `a ne imm`.
    JneRI { a: Src, imm: Imm, t: Target } [target(t)] => "jne {a}, {imm} -> {t}";
    /// Jumps if `a < b`.
    JltRR { a: Src, b: Src, t: Target } [target(t)] => "jlt {a}, {b} -> {t}";
    /// Jumps if `a < imm`.
    JltRI { a: Src, imm: Imm, t: Target } [target(t)] => "jlt {a}, {imm} -> {t}";
    /// Jumps if `a <= b`.
    JleRR { a: Src, b: Src, t: Target } [target(t)] => "jle {a}, {b} -> {t}";
    /// Jumps if `a <= imm`.
    JleRI { a: Src, imm: Imm, t: Target } [target(t)] => "jle {a}, {imm} -> {t}";
    /// Jumps if `a > b`.
    JgtRR { a: Src, b: Src, t: Target } [target(t)] => "jgt {a}, {b} -> {t}";
    /// Jumps if `a > imm`.
    JgtRI { a: Src, imm: Imm, t: Target } [target(t)] => "jgt {a}, {imm} -> {t}";
    /// Jumps if `a >= b`.
    JgeRR { a: Src, b: Src, t: Target } [target(t)] => "jge {a}, {b} -> {t}";
    /// Jumps if `a >= imm`.
    JgeRI { a: Src, imm: Imm, t: Target } [target(t)] => "jge {a}, {imm} -> {t}";
    // Backward jumps with their backedge yieldpoint fused in: the
    // yieldpoint (taken if the control word is positive), then the jump.
    /// [`Instr::Jmp`] after a backedge yieldpoint.
    JmpY { t: Target } [target(t) fuses(Backedge, Jmp)];
    /// [`Instr::Jz`] after a backedge yieldpoint.
    JzY { a: Src, t: Target } [target(t) fuses(Backedge, Jz)];
    /// [`Instr::Jnz`] after a backedge yieldpoint.
    JnzY { a: Src, t: Target } [target(t) fuses(Backedge, Jnz)];
    /// [`Instr::JeqRR`] after a backedge yieldpoint.
    JeqRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, JeqRR)];
    /// [`Instr::JeqRI`] after a backedge yieldpoint.
    JeqRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, JeqRI)];
    /// [`Instr::JneRR`] after a backedge yieldpoint.
    JneRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, JneRR)];
    /// [`Instr::JneRI`] after a backedge yieldpoint.
    JneRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, JneRI)];
    /// [`Instr::JltRR`] after a backedge yieldpoint.
    JltRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, JltRR)];
    /// [`Instr::JltRI`] after a backedge yieldpoint.
    JltRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, JltRI)];
    /// [`Instr::JleRR`] after a backedge yieldpoint.
    JleRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, JleRR)];
    /// [`Instr::JleRI`] after a backedge yieldpoint.
    JleRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, JleRI)];
    /// [`Instr::JgtRR`] after a backedge yieldpoint.
    JgtRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, JgtRR)];
    /// [`Instr::JgtRI`] after a backedge yieldpoint.
    JgtRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, JgtRI)];
    /// [`Instr::JgeRR`] after a backedge yieldpoint.
    JgeRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, JgeRR)];
    /// [`Instr::JgeRI`] after a backedge yieldpoint.
    JgeRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, JgeRI)];
    /// Static call; the arguments are in slots `base..base + arity`, the
    /// callee's frame starts at `base` and its result lands in `base`.
    Call { m: MethodId, base: Base } [] => { |c| c.call("call", m, base) };
    /// Virtual call; the receiver is in `base`.
    CallVirt { selector: SelectorId, base: Base, arity: Arity } [] => {
        |c| c.call_virt(selector, base, arity)
    };
    /// Returns `a` to the caller.
    Ret { a: Src } [] => "ret {a}";
    /// `ret` with its epilogue yieldpoint fused in: the yieldpoint (taken
    /// if the control word is non-zero), then the return.
    RetY { a: Src } [fuses(Epilogue, Ret)];
    /// A new object of `class`, all fields 0.
    New { d: Dst, class: ClassId } [dest(d)] => "{d} = new {class}";
    /// `d = obj.f`.
    GetField { d: Dst, obj: Src, f: FieldRef } [dest(d)] => "{d} = getfield {obj}.{f}";
    /// `obj.f = v`.
    PutField { obj: Src, v: Src, f: FieldRef } [] => "putfield {obj}.{f}, {v}";
    /// `d = 1` if `a` is an object of `class` or a subclass, else 0.
    InstanceOf { d: Dst, a: Src, class: ClassId } [dest(d)] => "{d} = instanceof {a}, {class}";
    /// `d = 1` if `a` is an object of exactly `class`, else 0.
    IsClass { d: Dst, a: Src, class: ClassId } [dest(d)] => "{d} = isclass {a}, {class}";
    /// A new array of `n` elements, all 0.
    NewArray { d: Dst, n: Src } [dest(d)] => "{d} = newarray {n}";
    /// `d = arr[i]`.
    ALoad { d: Dst, arr: Src, i: Src } [dest(d)] => "{d} = aload {arr}[{i}]";
    /// `arr[i] = v`.
    AStore { arr: Src, i: Src, v: Src } [] => "astore {arr}[{i}], {v}";
    /// `d` = the length of `arr`.
    ALen { d: Dst, arr: Src } [dest(d)] => "{d} = alen {arr}";
    /// Writes `a` and a newline to stdout.
    Print { a: Src } [] => "print {a}";
    /// Throws `a`.
    Throw { a: Src } [] => "throw {a}";
    /// Starts a thread; arguments in `base..`, the thread id lands in `base`.
    Spawn { m: MethodId, base: Base } [] => { |c| c.call("spawn", m, base) };
    /// Waits for thread `a`; its result lands in `d`.
    Join { d: Dst, a: Src } [] => "{d} = join {a}";
    /// The thread waits `a` milliseconds.
    Sleep { a: Src } [] => "sleep {a}";
    /// Ends the program with exit status `a & 255`.
    Halt { a: Src } [] => "halt {a}";
    // Superinstructions: only in a body's `exec` copy of its code, the one
    // the plain interpreter runs (see `crate::superinstr`); `vm disasm`,
    // the profiles and the counting interpreters see `code`, without them.
    // A rotated loop test replaces a loop's backward `jmp -> t` whose
    // target `t` is the loop's test `jCC a, b -> (the instruction after
    // the jmp)`: it runs the test in place of the jump, going on at `t + 1`
    // (the loop's body) unless the test jumps, else falling through to the
    // loop's exit; if an operand is not an integer it jumps to `t` instead,
    // whose test then reports the error as before.
    /// A rotated loop test `jlt a, b` at `t`.
    LoopLtRR { a: Src, b: Src, t: Target } [target(t)] => "loop jlt {a}, {b} -> {t}";
    /// A rotated loop test `jlt a, imm` at `t`.
    LoopLtRI { a: Src, imm: Imm, t: Target } [target(t)] => "loop jlt {a}, {imm} -> {t}";
    /// A rotated loop test `jle a, b` at `t`.
    LoopLeRR { a: Src, b: Src, t: Target } [target(t)] => "loop jle {a}, {b} -> {t}";
    /// A rotated loop test `jle a, imm` at `t`.
    LoopLeRI { a: Src, imm: Imm, t: Target } [target(t)] => "loop jle {a}, {imm} -> {t}";
    /// A rotated loop test `jgt a, b` at `t`.
    LoopGtRR { a: Src, b: Src, t: Target } [target(t)] => "loop jgt {a}, {b} -> {t}";
    /// A rotated loop test `jgt a, imm` at `t`.
    LoopGtRI { a: Src, imm: Imm, t: Target } [target(t)] => "loop jgt {a}, {imm} -> {t}";
    /// A rotated loop test `jge a, b` at `t`.
    LoopGeRR { a: Src, b: Src, t: Target } [target(t)] => "loop jge {a}, {b} -> {t}";
    /// A rotated loop test `jge a, imm` at `t`.
    LoopGeRI { a: Src, imm: Imm, t: Target } [target(t)] => "loop jge {a}, {imm} -> {t}";
    // A rotated zero test: the same for a loop whose test at `t` is `jz
    // a -> x` or `jnz a -> x`, whatever `x` is (no operand can fail).
    /// A rotated loop test `jz a -> x` at `t`: on at `t + 1`, or to `x`
    /// where `a` is falsy.
    LoopZ { a: Src, t: Target, x: Target } [target(t)] => "loop jz {a} -> {x} at {t}";
    /// A rotated loop test `jnz a -> x` at `t`.
    LoopNz { a: Src, t: Target, x: Target } [target(t)] => "loop jnz {a} -> {x} at {t}";
    /// [`Instr::LoopZ`] after a backedge yieldpoint.
    LoopZY { a: Src, t: Target, x: Target } [target(t) fuses(Backedge, LoopZ)];
    /// [`Instr::LoopNz`] after a backedge yieldpoint.
    LoopNzY { a: Src, t: Target, x: Target } [target(t) fuses(Backedge, LoopNz)];
    /// [`Instr::LoopLtRR`] after a backedge yieldpoint.
    LoopLtRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, LoopLtRR)];
    /// [`Instr::LoopLtRI`] after a backedge yieldpoint.
    LoopLtRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, LoopLtRI)];
    /// [`Instr::LoopLeRR`] after a backedge yieldpoint.
    LoopLeRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, LoopLeRR)];
    /// [`Instr::LoopLeRI`] after a backedge yieldpoint.
    LoopLeRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, LoopLeRI)];
    /// [`Instr::LoopGtRR`] after a backedge yieldpoint.
    LoopGtRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, LoopGtRR)];
    /// [`Instr::LoopGtRI`] after a backedge yieldpoint.
    LoopGtRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, LoopGtRI)];
    /// [`Instr::LoopGeRR`] after a backedge yieldpoint.
    LoopGeRRY { a: Src, b: Src, t: Target } [target(t) fuses(Backedge, LoopGeRR)];
    /// [`Instr::LoopGeRI`] after a backedge yieldpoint.
    LoopGeRIY { a: Src, imm: Imm, t: Target } [target(t) fuses(Backedge, LoopGeRI)];
    // A counted loop's step and test: `inc a 1` just before a loop's
    // backward jump that rotates into a `jgt`/`jge` test of `a` (above),
    // at the `inc`'s pc: the increment, then the rotated test, one
    // dispatch for both. The jump stays at the next pc: the superinstruction
    // goes on there when the test's operand is not an integer or a backedge
    // yieldpoint is to be taken, and skips it otherwise.
    /// `inc a 1`, then the rotated loop test `jgt a, b` at `t`.
    CountLoopGtRR { a: InOut, b: Src, t: Target } [target(t)] => "inc {a} 1; loop jgt {a}, {b} -> {t}";
    /// `inc a 1`, then the rotated loop test `jgt a, imm` at `t`.
    CountLoopGtRI { a: InOut, imm: Imm, t: Target } [target(t)] => "inc {a} 1; loop jgt {a}, {imm} -> {t}";
    /// `inc a 1`, then the rotated loop test `jge a, b` at `t`.
    CountLoopGeRR { a: InOut, b: Src, t: Target } [target(t)] => "inc {a} 1; loop jge {a}, {b} -> {t}";
    /// `inc a 1`, then the rotated loop test `jge a, imm` at `t`.
    CountLoopGeRI { a: InOut, imm: Imm, t: Target } [target(t)] => "inc {a} 1; loop jge {a}, {imm} -> {t}";
    /// [`Instr::CountLoopGtRR`] with the jump's backedge yieldpoint.
    CountLoopGtRRY { a: InOut, b: Src, t: Target } [target(t) fuses(Backedge, CountLoopGtRR)];
    /// [`Instr::CountLoopGtRI`] with the jump's backedge yieldpoint.
    CountLoopGtRIY { a: InOut, imm: Imm, t: Target } [target(t) fuses(Backedge, CountLoopGtRI)];
    /// [`Instr::CountLoopGeRR`] with the jump's backedge yieldpoint.
    CountLoopGeRRY { a: InOut, b: Src, t: Target } [target(t) fuses(Backedge, CountLoopGeRR)];
    /// [`Instr::CountLoopGeRI`] with the jump's backedge yieldpoint.
    CountLoopGeRIY { a: InOut, imm: Imm, t: Target } [target(t) fuses(Backedge, CountLoopGeRI)];
    // A constant's return: `d = v` just before `ret d`, at the constant's
    // pc; the `ret` stays at the next pc.
    /// `d = v`, then `ret d`: the constant returned without a dispatch of
    /// its own (`d` is written only where the `ret` is to run after all).
    RetInt { d: Dst, v: Imm } [] => "{d} = {v}; ret {d}";
    /// [`Instr::RetInt`] with the `ret`'s epilogue yieldpoint: where its
    /// depth is not above the return floor (`crate::thread`), it writes
    /// `d` and goes on at the `ret`.
    RetIntY { d: Dst, v: Imm } [fuses(Epilogue, RetInt)];
    // Argument passing: the moves that fill a call's window, at the first
    // move's pc, then the call at the pc after the last move (`count`
    // instructions on), in one dispatch: the call runs as if dispatched
    // there, so its return address, its errors and the frames a sample
    // sees are the call's own. The moves and the call stay at their pcs,
    // for jumps into them.
    /// The moves of `args`, then `call m` with its window at `args.base`.
    CallArgs { args: ArgMoves, m: MethodId } [] => {
        |c| format!("{}; {}", c.arg_moves(args), c.call("call", m, args.base.into()))
    };
    /// The moves of `args`, then the virtual call of `selector` with its
    /// window at `args.base` (the receiver first).
    CallVirtArgs { args: ArgMoves, selector: SelectorId } [] => {
        |c| format!("{}; {}", c.arg_moves(args), c.call_virt_of(selector, args.base.into()))
    };
    // Field superinstructions (`crate::superinstr`, the plain
    // interpreter's `exec` only): a field read and the arithmetic or the
    // element access at the next pc that takes it, in one dispatch. The
    // row holds the first instruction's operands; the second stays at the
    // next pc, where its operands are read, and runs there on its own
    // (reporting any error at its own pc) wherever the fast path does not
    // apply.
    /// `d = obj.f`, then the [`Instr::AddRI`] at the next pc.
    GetFieldAddRI { d: Dst, obj: Src, f: FieldRef } [] => "{d} = getfield {obj}.{f}; add next";
    /// `d = obj.f`, then the [`Instr::SubRI`] at the next pc.
    GetFieldSubRI { d: Dst, obj: Src, f: FieldRef } [] => "{d} = getfield {obj}.{f}; sub next";
    /// `d = obj.f`, then the [`Instr::AddRR`] at the next pc.
    GetFieldAddRR { d: Dst, obj: Src, f: FieldRef } [] => "{d} = getfield {obj}.{f}; add next";
    /// `d = obj.f`, then the [`Instr::SubRR`] at the next pc.
    GetFieldSubRR { d: Dst, obj: Src, f: FieldRef } [] => "{d} = getfield {obj}.{f}; sub next";
    /// `d = obj.f`, then the [`Instr::ALoad`] at the next pc (an array
    /// held in a field, read: `piles[i]`).
    GetFieldALoad { d: Dst, obj: Src, f: FieldRef } [] => "{d} = getfield {obj}.{f}; aload next";
    /// `d = obj.f`, then the [`Instr::AStore`] at the next pc.
    GetFieldAStore { d: Dst, obj: Src, f: FieldRef } [] => "{d} = getfield {obj}.{f}; astore next";
    /// `d = a * b`, then the [`Instr::ShrRI`] at the next pc that shifts
    /// it (a fixed-point product).
    MulRRShrRI { d: Dst, a: Src, b: Src } [] => "{d} = mul {a}, {b}; shr next";
    /// `d = a * b`, then the [`Instr::ShrRI`] at the next pc that shifts
    /// it into `d` again (`t = mul x, y; t = shr t, 24`): `d` is written
    /// once, with the shifted product.
    MulRRShrRIInPlace { d: Dst, a: Src, b: Src } [] => "{d} = mul {a}, {b}; shr next, in place";
    /// `d = a + b`, then the [`Instr::ShrRI`] at the next pc that shifts
    /// it (a mean: `(lo + hi) shr 1`, a Newton step's `(x + n / x) shr 1`).
    AddRRShrRI { d: Dst, a: Src, b: Src } [] => "{d} = add {a}, {b}; shr next";
    /// `d = v`, then the [`Instr::AStore`] at the next pc that stores it
    /// (`flags[k] = 0`).
    ConstIntAStore { d: Dst, v: Int } [] => "{d} = {v}; astore next";
    // Arithmetic into a field store: an `add` or `sub`, then the
    // `putfield` at the next pc that stores its result (`b.x = b.x + v`
    // where the field read is not just before), done there where the
    // object is of the field's class.
    /// `d = a + b`, then the [`Instr::PutField`] at the next pc that stores `d`.
    AddRRPutField { d: Dst, a: Src, b: Src } [] => "{d} = add {a}, {b}; putfield next";
    /// `d = a - b`, then the [`Instr::PutField`] at the next pc that stores `d`.
    SubRRPutField { d: Dst, a: Src, b: Src } [] => "{d} = sub {a}, {b}; putfield next";
    /// `d = a + imm`, then the [`Instr::PutField`] at the next pc that stores `d`.
    AddRIPutField { d: Dst, a: Src, imm: Imm } [] => "{d} = add {a}, {imm}; putfield next";
}

impl Instr {
    /// Is this a superinstruction, made only in a body's `exec` copy of its
    /// code ([`crate::superinstr`]), never in the `code` that the loader
    /// makes and the counting interpreters run?
    pub fn is_superinstruction(self) -> bool {
        use Instr::*;
        matches!(
            self,
            LoopLtRR { .. }
                | LoopLtRI { .. }
                | LoopLeRR { .. }
                | LoopLeRI { .. }
                | LoopGtRR { .. }
                | LoopGtRI { .. }
                | LoopGeRR { .. }
                | LoopGeRI { .. }
                | LoopZ { .. }
                | LoopNz { .. }
                | LoopZY { .. }
                | LoopNzY { .. }
                | LoopLtRRY { .. }
                | LoopLtRIY { .. }
                | LoopLeRRY { .. }
                | LoopLeRIY { .. }
                | LoopGtRRY { .. }
                | LoopGtRIY { .. }
                | LoopGeRRY { .. }
                | LoopGeRIY { .. }
                | CountLoopGtRR { .. }
                | CountLoopGtRI { .. }
                | CountLoopGeRR { .. }
                | CountLoopGeRI { .. }
                | CountLoopGtRRY { .. }
                | CountLoopGtRIY { .. }
                | CountLoopGeRRY { .. }
                | CountLoopGeRIY { .. }
                | RetInt { .. }
                | RetIntY { .. }
                | CallArgs { .. }
                | CallVirtArgs { .. }
                | GetFieldAddRI { .. }
                | GetFieldSubRI { .. }
                | GetFieldAddRR { .. }
                | GetFieldSubRR { .. }
                | GetFieldALoad { .. }
                | GetFieldAStore { .. }
                | ConstIntAStore { .. }
                | MulRRShrRI { .. }
                | MulRRShrRIInPlace { .. }
                | AddRRShrRI { .. }
                | AddRRPutField { .. }
                | SubRRPutField { .. }
                | AddRIPutField { .. }
        )
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instr_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Instr>(), 16);
    }

    #[test]
    fn the_table_names_every_variant_once() {
        assert_eq!(Instr::NAMES.len(), 137);
        let mut names = Instr::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Instr::NAMES.len());
        assert_eq!(Instr::Nop.name(), "Nop");
        assert_eq!(Instr::JgeRIY { a: 0, imm: 1, t: 2 }.name(), "JgeRIY");
        assert_eq!(
            Instr::AddGlobal { d: 1, g: 0, a: 2 }.slot_uses(),
            [(1, SlotUse::Write), (2, SlotUse::Read)]
        );
        assert_eq!(
            Instr::Swap { a: 3, b: 4 }.slot_uses(),
            [(3, SlotUse::ReadWrite), (4, SlotUse::ReadWrite)]
        );
        assert_eq!(
            Instr::Call { m: 7, base: 2 }.slot_uses(),
            [(2, SlotUse::Window)]
        );
        assert!(Instr::Jmp { t: 1 }.slot_uses().is_empty());
    }

    /// `run` is `i` with each slot operand in bytes: every slot it names
    /// `SLOT_BYTES` times `i`'s, but an argument move's (an index), and
    /// nothing else changed.
    fn assert_slots_in_bytes(i: Instr, run: Instr, at: &str) {
        use crate::value::SLOT_BYTES;
        let moves = match i {
            Instr::CallArgs { args, .. } | Instr::CallVirtArgs { args, .. } => {
                2 * usize::from(args.count) + 1
            }
            _ => 0,
        };
        let (plain, scaled) = (i.slot_uses(), run.slot_uses());
        assert_eq!(plain.len(), scaled.len(), "{at}");
        for (k, (&(s, u), &(r, v))) in plain.iter().zip(&scaled).enumerate() {
            let want = if k < moves { s } else { s * SLOT_BYTES };
            assert_eq!((r, v), (want, u), "{at}: run {run:?}");
        }
        assert_eq!(
            (run.name(), run.target(), run.yield_kind()),
            (i.name(), i.target(), i.yield_kind()),
            "{at}"
        );
    }

    #[test]
    fn slots_scaled_scales_slots_only_and_refuses_an_overflow() {
        let add = Instr::AddRI { d: 1, a: 2, imm: 3 };
        assert_eq!(
            add.slots_scaled(16),
            Some(Instr::AddRI {
                d: 16,
                a: 32,
                imm: 3
            })
        );
        let get = Instr::GetField { d: 0, obj: 4, f: 9 };
        assert_eq!(
            get.slots_scaled(16),
            Some(Instr::GetField {
                d: 0,
                obj: 64,
                f: 9
            })
        );
        let jump = Instr::JltRR { a: 5, b: 6, t: 7 };
        assert_eq!(
            jump.slots_scaled(16),
            Some(Instr::JltRR { a: 80, b: 96, t: 7 })
        );
        assert_eq!(
            Instr::Move {
                d: 1,
                a: u32::MAX / 8
            }
            .slots_scaled(16),
            None
        );
    }

    /// Every program in programs/ loads into code that keeps the table's
    /// promises: slots inside the frame, a destination is a written slot,
    /// targets inside the body, each fused yieldpoint splits off and back,
    /// each superinstruction that finishes the next instruction has it.
    #[test]
    fn loaded_programs_keep_the_tables_promises() {
        use crate::loader::Program;
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../programs");
        let mut files = Vec::new();
        for dir in ["examples", "bench", "awfy"] {
            for e in std::fs::read_dir(format!("{root}/{dir}")).expect("programs/") {
                let path = e.expect("an entry").path();
                if path.extension().is_some_and(|x| x == "bc") {
                    files.push(path);
                }
            }
        }
        assert!(files.len() >= 20, "{} programs", files.len());
        let mut seen = std::collections::HashSet::new();
        for path in &files {
            let src = std::fs::read_to_string(path).expect("readable");
            let module = crate::verify::assemble("p.bc", &src).expect("assembles");
            for yieldpoints in [true, false] {
                let p = Program::load(module.clone(), yieldpoints);
                for body in &p.bodies {
                    for (pc, &i) in body.code.iter().enumerate() {
                        let at = format!("{}: {} pc {pc}: {i:?}", path.display(), body.name);
                        seen.insert(i.name());
                        // The counting interpreters rely on `code` holding
                        // no superinstruction; `exec` differs from it only
                        // by superinstructions.
                        assert!(!i.is_superinstruction(), "{at}");
                        let e = body.exec[pc];
                        assert!(e == i || e.is_superinstruction(), "{at}: exec {e:?}");
                        // The interpreter runs both with slots in bytes.
                        assert_slots_in_bytes(i, body.run_code[pc], &at);
                        assert_slots_in_bytes(e, body.run_exec[pc], &at);
                        // The plain interpreter runs a second half without
                        // testing its kind.
                        if crate::superinstr::fuses_next(e) {
                            let next = body.exec.get(pc + 1).copied();
                            assert!(
                                next.is_some_and(|n| crate::superinstr::finishes(e, n)),
                                "{at}: exec {e:?} then {next:?}"
                            );
                        }
                        for (slot, used) in i.slot_uses() {
                            let end = match (used, i) {
                                (SlotUse::Window, Instr::CallVirt { arity, .. }) => slot + arity,
                                (
                                    SlotUse::Window,
                                    Instr::Call { m, .. } | Instr::Spawn { m, .. },
                                ) => slot + p.bodies[m as usize].nparams.max(1),
                                _ => slot + 1,
                            };
                            assert!(end <= body.frame_size, "{at}: slots up to {end}");
                        }
                        if let Some(d) = i.dest() {
                            assert!(i.slot_uses().contains(&(d, SlotUse::Write)), "{at}");
                        }
                        if let Some(t) = i.target() {
                            assert!((t as usize) < body.code.len(), "{at}");
                        }
                        match i.yield_kind() {
                            None => assert_eq!(i.without_yieldpoint(), i, "{at}"),
                            Some(YieldKind::Prologue) => {
                                assert!(yieldpoints && pc == 0, "{at}");
                                assert_eq!(
                                    i.render(&crate::disasm::Names::new(&p, body.method)),
                                    "yieldpoint prologue"
                                );
                            }
                            Some(kind) => {
                                assert!(yieldpoints, "{at}");
                                let plain = i.without_yieldpoint();
                                assert_eq!(plain.yield_kind(), None, "{at}");
                                assert_eq!(plain.with_yieldpoint(kind), Some(i), "{at}");
                                let names = crate::disasm::Names::new(&p, body.method);
                                assert_eq!(
                                    i.render(&names),
                                    format!("yieldpoint {}; {}", kind.name(), plain.render(&names)),
                                    "{at}"
                                );
                            }
                        }
                    }
                }
            }
        }
        // The programs exercise most of the table's rows that `code` holds
        // (the superinstructions are only in `exec`).
        assert!(
            seen.len() >= 70,
            "{} of {} rows used",
            seen.len(),
            Instr::NAMES.len()
        );
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
