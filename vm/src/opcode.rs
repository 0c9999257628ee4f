//! The opcode table: the one place every instruction of docs/LANGUAGE.md is
//! listed, with its mnemonic, its operand, its stack effect and its cost.
//!
//! The assembler reads mnemonics and operand kinds from it, the verifier the
//! stack effects, the disassembler and the `.bc` printer the mnemonics, and
//! the virtual clock and the inliner's cost model the cycle costs. Adding an
//! instruction starts here.

/// What follows a mnemonic on its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandKind {
    /// Nothing.
    None,
    /// An integer or a string constant (`push`).
    Const,
    /// A local or parameter, by name or 0-based index.
    Local,
    /// A local and an integer (`inc L INT`).
    LocalInt,
    /// A global's name.
    Global,
    /// A label of the same method.
    Label,
    /// A static method's name.
    Method,
    /// A virtual method's name, without a class (`callvirt NAME`).
    Selector,
    /// A class name.
    Class,
    /// `CLASS.FIELD`.
    Field,
}

/// How an instruction changes the operand stack's height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StackEffect {
    /// Needs `pops` values, leaves `pushes` in their place.
    Fixed {
        /// Values consumed (the stack must hold at least this many).
        pops: u8,
        /// Values produced.
        pushes: u8,
    },
    /// A call: pops the callee's arity (receiver included), pushes one result.
    Call,
}

/// How control leaves an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Falls through to the next instruction.
    Next,
    /// Always jumps to its label.
    Jump,
    /// Jumps to its label or falls through.
    Branch,
    /// Ends the path (`ret`, `throw`, `halt`).
    End,
}

macro_rules! opcodes {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $mnem:literal, $operand:ident, [$($effect:tt)*], $flow:ident, $cost:literal;
    )*) => {
        /// One instruction of the language, without its operand.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Opcode {
            $( $(#[doc = $doc])* $name, )*
        }

        impl Opcode {
            /// Every opcode, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name),*];

            /// The assembler mnemonic.
            pub fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$name => $mnem,)* }
            }

            /// What operand follows the mnemonic.
            pub fn operand(self) -> OperandKind {
                match self { $(Opcode::$name => OperandKind::$operand,)* }
            }

            /// The change to the operand stack.
            pub fn effect(self) -> StackEffect {
                match self { $(Opcode::$name => opcodes!(@effect $($effect)*),)* }
            }

            /// How control leaves the instruction.
            pub fn flow(self) -> Flow {
                match self { $(Opcode::$name => Flow::$flow,)* }
            }

            /// Cycles this instruction costs in the cost model shared by the
            /// virtual clock and the inliner (1 cycle = 1 ns of virtual time).
            pub fn cost(self) -> u32 {
                match self { $(Opcode::$name => $cost,)* }
            }

            /// The opcode spelled `mnemonic`, if any.
            pub fn from_mnemonic(mnemonic: &str) -> Option<Opcode> {
                match mnemonic { $($mnem => Some(Opcode::$name),)* _ => None }
            }
        }
    };
    (@effect call) => { StackEffect::Call };
    (@effect $pops:literal -> $pushes:literal) => {
        StackEffect::Fixed { pops: $pops, pushes: $pushes }
    };
}

opcodes! {
    /// `push INT` / `push "STR"`: → v, a constant.
    Push = "push", Const, [0 -> 1], Next, 1;
    /// `null`: → null.
    Null = "null", None, [0 -> 1], Next, 1;
    /// `pop`: v →.
    Pop = "pop", None, [1 -> 0], Next, 1;
    /// `dup`: v → v v.
    Dup = "dup", None, [1 -> 2], Next, 1;
    /// `swap`: a b → b a.
    Swap = "swap", None, [2 -> 2], Next, 1;
    /// `over`: a b → a b a.
    Over = "over", None, [2 -> 3], Next, 1;
    /// `load L`: → v, a local or parameter.
    Load = "load", Local, [0 -> 1], Next, 1;
    /// `store L`: v →.
    Store = "store", Local, [1 -> 0], Next, 1;
    /// `inc L INT`: integer local += INT.
    Inc = "inc", LocalInt, [0 -> 0], Next, 1;
    /// `getglobal G`: → i.
    GetGlobal = "getglobal", Global, [0 -> 1], Next, 2;
    /// `putglobal G`: i →, integers only.
    PutGlobal = "putglobal", Global, [1 -> 0], Next, 2;
    /// `addglobal G`: i → old, atomic fetch-and-add.
    AddGlobal = "addglobal", Global, [1 -> 1], Next, 20;
    /// `add`: a b → a+b (wrapping).
    Add = "add", None, [2 -> 1], Next, 1;
    /// `sub`: a b → a-b (wrapping).
    Sub = "sub", None, [2 -> 1], Next, 1;
    /// `mul`: a b → a*b (wrapping).
    Mul = "mul", None, [2 -> 1], Next, 3;
    /// `div`: a b → a/b, truncating toward zero; `MIN div -1` is `MIN`.
    Div = "div", None, [2 -> 1], Next, 20;
    /// `rem`: a b → a rem b, with the dividend's sign.
    Rem = "rem", None, [2 -> 1], Next, 20;
    /// `neg`: a → -a.
    Neg = "neg", None, [1 -> 1], Next, 1;
    /// `and`: a b → a&b.
    And = "and", None, [2 -> 1], Next, 1;
    /// `or`: a b → a|b.
    Or = "or", None, [2 -> 1], Next, 1;
    /// `xor`: a b → a^b.
    Xor = "xor", None, [2 -> 1], Next, 1;
    /// `shl`: a b → a << (b & 63).
    Shl = "shl", None, [2 -> 1], Next, 1;
    /// `shr`: a b → a >> (b & 63), arithmetic.
    Shr = "shr", None, [2 -> 1], Next, 1;
    /// `not`: v → 1 if v is 0 or null, else 0.
    Not = "not", None, [1 -> 1], Next, 1;
    /// `eq`: a b → 0/1; integers by value, strings by content, references by identity.
    Eq = "eq", None, [2 -> 1], Next, 1;
    /// `ne`: a b → 0/1.
    Ne = "ne", None, [2 -> 1], Next, 1;
    /// `lt`: a b → 0/1, integers.
    Lt = "lt", None, [2 -> 1], Next, 1;
    /// `le`: a b → 0/1, integers.
    Le = "le", None, [2 -> 1], Next, 1;
    /// `gt`: a b → 0/1, integers.
    Gt = "gt", None, [2 -> 1], Next, 1;
    /// `ge`: a b → 0/1, integers.
    Ge = "ge", None, [2 -> 1], Next, 1;
    /// `jmp L`: → , always jumps.
    Jmp = "jmp", Label, [0 -> 0], Jump, 1;
    /// `jz L`: v →, jumps if v is 0 or null.
    Jz = "jz", Label, [1 -> 0], Branch, 1;
    /// `jnz L`: v →, jumps if v is neither 0 nor null.
    Jnz = "jnz", Label, [1 -> 0], Branch, 1;
    /// `jeq L`: a b →, jumps if `a eq b`.
    Jeq = "jeq", Label, [2 -> 0], Branch, 1;
    /// `jne L`: a b →, jumps if `a ne b`.
    Jne = "jne", Label, [2 -> 0], Branch, 1;
    /// `jlt L`: a b →, jumps if a < b.
    Jlt = "jlt", Label, [2 -> 0], Branch, 1;
    /// `jle L`: a b →, jumps if a <= b.
    Jle = "jle", Label, [2 -> 0], Branch, 1;
    /// `jgt L`: a b →, jumps if a > b.
    Jgt = "jgt", Label, [2 -> 0], Branch, 1;
    /// `jge L`: a b →, jumps if a >= b.
    Jge = "jge", Label, [2 -> 0], Branch, 1;
    /// `call M`: a1..an → r, a static call.
    Call = "call", Method, [call], Next, 10;
    /// `callvirt NAME`: recv a1..an → r, dispatched on the receiver's class.
    CallVirt = "callvirt", Selector, [call], Next, 14;
    /// `ret`: v →, returns v to the caller.
    Ret = "ret", None, [1 -> 0], End, 5;
    /// `new C`: → ref, a new object with all fields 0.
    New = "new", Class, [0 -> 1], Next, 20;
    /// `getfield C.F`: ref → v.
    GetField = "getfield", Field, [1 -> 1], Next, 2;
    /// `putfield C.F`: ref v →.
    PutField = "putfield", Field, [2 -> 0], Next, 2;
    /// `instanceof C`: v → 0/1, v is an object of C or of a subclass.
    InstanceOf = "instanceof", Class, [1 -> 1], Next, 2;
    /// `isclass C`: v → 0/1, v is an object whose class is exactly C.
    IsClass = "isclass", Class, [1 -> 1], Next, 2;
    /// `newarray`: n → ref, n elements all 0.
    NewArray = "newarray", None, [1 -> 1], Next, 20;
    /// `aload`: ref i → v.
    ALoad = "aload", None, [2 -> 1], Next, 2;
    /// `astore`: ref i v →.
    AStore = "astore", None, [3 -> 0], Next, 2;
    /// `alen`: ref → n.
    ALen = "alen", None, [1 -> 1], Next, 1;
    /// `print`: v →, writes v and a newline to stdout.
    Print = "print", None, [1 -> 0], Next, 200;
    /// `throw`: v →, throws v.
    Throw = "throw", None, [1 -> 0], End, 50;
    /// `spawn M`: a1..an → t, starts a thread running static method M.
    Spawn = "spawn", Method, [call], Next, 10000;
    /// `join`: t → r, waits for thread t and pushes its result.
    Join = "join", None, [1 -> 1], Next, 100;
    /// `sleep`: ms →, the thread waits ms milliseconds.
    Sleep = "sleep", None, [1 -> 0], Next, 100;
    /// `halt`: code →, ends the whole program with exit status code & 255.
    Halt = "halt", None, [1 -> 0], End, 1;
    /// `nop`: does nothing.
    Nop = "nop", None, [0 -> 0], Next, 1;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mnemonics_round_trip() {
        for &op in Opcode::ALL {
            assert_eq!(Opcode::from_mnemonic(op.mnemonic()), Some(op));
        }
        assert_eq!(Opcode::from_mnemonic("yieldpoint"), None);
    }

    #[test]
    fn spec_has_fifty_eight_mnemonics() {
        // docs/LANGUAGE.md lists these mnemonics; `push` covers both forms.
        assert_eq!(Opcode::ALL.len(), 58);
    }

    #[test]
    fn path_enders_are_ret_throw_halt() {
        let enders: Vec<_> = Opcode::ALL
            .iter()
            .filter(|o| o.flow() == Flow::End)
            .map(|o| o.mnemonic())
            .collect();
        assert_eq!(enders, ["ret", "throw", "halt"]);
    }
}
