//! The verified program: every name resolved to an index.
//!
//! A [`Module`] is what the assembler and verifier produce from text and what
//! the loader turns into runnable code. It is still the program the student
//! wrote (one [`Insn`] per source instruction, no yieldpoints), so the
//! inliner in `jit-sim` transforms modules and prints them back as `.bc`
//! text ([`crate::printer`]).

use crate::diag::Pos;
use crate::opcode::Opcode;

/// Index of a method in [`Module::methods`].
pub type MethodId = u32;
/// Index of a class in [`Module::classes`].
pub type ClassId = u32;
/// Index of a global in [`Module::globals`].
pub type GlobalId = u32;
/// Index of a virtual method name in [`Module::selectors`].
pub type SelectorId = u32;
/// Index of a string constant in [`Module::strings`].
pub type StrId = u32;

/// A whole verified program.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The file name as given on the command line (used in traces).
    pub file: String,
    /// String constants, deduplicated.
    pub strings: Vec<String>,
    /// Global names.
    pub globals: Vec<String>,
    /// Classes, in declaration order.
    pub classes: Vec<Class>,
    /// Methods, in declaration order.
    pub methods: Vec<Method>,
    /// Virtual method names (what `callvirt` names), with their arity.
    pub selectors: Vec<Selector>,
    /// The static method `main()`.
    pub main: MethodId,
}

/// A class and its field layout.
#[derive(Clone, Debug)]
pub struct Class {
    /// The class name.
    pub name: String,
    /// The superclass.
    pub superclass: Option<ClassId>,
    /// The fields this class declares, in layout order. Their slots follow
    /// the inherited ones: `own_fields[i]` is slot `inherited_fields + i`.
    /// Inherited names are found through the superclass chain
    /// ([`Module::field_name`], [`Module::all_fields`]), so a deep hierarchy
    /// costs memory linear in the fields written, not in depth × fields.
    pub own_fields: Vec<String>,
    /// How many field slots the superclass chain occupies (the superclass's
    /// [`Class::nfields`], 0 for a root class).
    pub inherited_fields: usize,
    /// Where the class was declared.
    pub pos: Pos,
}

impl Class {
    /// Number of field slots of an instance, inherited ones included.
    pub fn nfields(&self) -> usize {
        self.inherited_fields + self.own_fields.len()
    }
}

/// A pre-order numbering of a class forest, for O(1) subclass tests.
///
/// `pre[c]` numbers class `c` in a depth-first pre-order walk of the forest
/// given by the superclass links (roots and children in class order), and
/// `span[c]` is the number of its proper descendants, so the classes of
/// `c`'s subtree are exactly those numbered `pre[c] ..= pre[c] + span[c]`.
#[derive(Clone, Debug, Default)]
pub struct ClassOrder {
    /// Pre-order number of each class.
    pub pre: Vec<u32>,
    /// Number of proper descendants of each class.
    pub span: Vec<u32>,
}

impl ClassOrder {
    /// Numbers the forest whose class `i` has superclass `supers[i]`. The
    /// links must be acyclic (the resolver cuts cycles first); a link to a
    /// class that does not exist is treated as none.
    pub fn new(supers: &[Option<ClassId>]) -> ClassOrder {
        let n = supers.len();
        // Children lists in compressed form: first[c]..first[c + 1] indexes
        // `kids`, in class order.
        let mut first = vec![0u32; n + 1];
        for s in supers.iter().flatten() {
            if (*s as usize) < n {
                first[*s as usize + 1] += 1;
            }
        }
        for i in 0..n {
            first[i + 1] += first[i];
        }
        let mut fill = first.clone();
        let mut kids = vec![0u32; first[n] as usize];
        for (c, s) in supers.iter().enumerate() {
            if let Some(s) = s.filter(|&s| (s as usize) < n) {
                kids[fill[s as usize] as usize] = c as u32;
                fill[s as usize] += 1;
            }
        }
        let mut pre = vec![u32::MAX; n];
        let mut span = vec![0u32; n];
        let mut next = 0u32;
        // (class, index of the next child to visit)
        let mut stack: Vec<(u32, u32)> = Vec::new();
        for root in 0..n {
            if supers[root].is_some_and(|s| (s as usize) < n) {
                continue;
            }
            pre[root] = next;
            next += 1;
            stack.push((root as u32, first[root]));
            while let Some(top) = stack.last_mut() {
                let (c, k) = *top;
                if k < first[c as usize + 1] {
                    top.1 += 1;
                    let child = kids[k as usize];
                    pre[child as usize] = next;
                    next += 1;
                    stack.push((child, first[child as usize]));
                } else {
                    span[c as usize] = next - 1 - pre[c as usize];
                    stack.pop();
                }
            }
        }
        debug_assert!(pre.iter().all(|&p| p != u32::MAX), "cyclic class links");
        ClassOrder { pre, span }
    }

    /// Is `sub` the class `sup` or one of its subclasses?
    #[inline]
    pub fn is_subclass(&self, sub: ClassId, sup: ClassId) -> bool {
        let (s, p) = (self.pre[sub as usize], self.pre[sup as usize]);
        s.wrapping_sub(p) <= self.span[sup as usize]
    }
}

/// A virtual method name and its arity (the receiver included).
#[derive(Clone, Debug)]
pub struct Selector {
    /// The name used by `callvirt`.
    pub name: String,
    /// Number of values `callvirt` pops: the receiver and the arguments.
    pub arity: u32,
}

/// A method: static (`fib`) or virtual (`Shape.area`).
#[derive(Clone, Debug)]
pub struct Method {
    /// The method's own name (`area`).
    pub name: String,
    /// The class of a virtual method.
    pub class: Option<ClassId>,
    /// The selector of a virtual method.
    pub selector: Option<SelectorId>,
    /// Parameter names (the receiver first, for a virtual method).
    pub params: Vec<String>,
    /// Extra local names from `.locals`.
    pub locals: Vec<String>,
    /// `.catch` ranges in the order written, as instruction indices.
    pub catches: Vec<Catch>,
    /// The instructions.
    pub code: Vec<Insn>,
    /// Label names and the instruction index each stands before, kept so
    /// that a printed module reads like its source.
    pub labels: Vec<(String, u32)>,
    /// Position of the `.method` directive.
    pub pos: Pos,
    /// Position of the `.end` directive.
    pub end: Pos,
    /// Deepest operand stack any path reaches (set by the verifier).
    pub max_stack: u32,
    /// Operand-stack height before each instruction, `None` where
    /// unreachable (set by the verifier; the loader's register translation
    /// relies on it).
    pub heights: Vec<Option<u32>>,
}

impl Method {
    /// Records what the stack check found.
    pub fn set_heights(&mut self, h: crate::verify::stack::Heights) {
        self.max_stack = h.max;
        self.heights = h.at;
    }

    /// Number of parameters (the receiver included).
    pub fn arity(&self) -> u32 {
        self.params.len() as u32
    }

    /// Number of locals, parameters included.
    pub fn frame_locals(&self) -> u32 {
        (self.params.len() + self.locals.len()) as u32
    }

    /// The name used in traces and profiles: `CLASS.NAME` for a virtual
    /// method (the class that defines the code), `NAME` for a static one.
    pub fn display_name(&self, module: &Module) -> String {
        match self.class {
            Some(c) => format!("{}.{}", module.classes[c as usize].name, self.name),
            None => self.name.clone(),
        }
    }
}

/// `.catch FROM TO HANDLER` resolved: a throw at an instruction index in
/// `[from, to)` jumps to `handler`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Catch {
    /// First protected instruction.
    pub from: u32,
    /// One past the last protected instruction.
    pub to: u32,
    /// The handler's first instruction.
    pub handler: u32,
}

/// One source instruction with resolved operands.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Insn {
    /// The operation.
    pub op: Op,
    /// Where it was written (line = the call site line in profiles).
    pub pos: Pos,
}

/// A source instruction with its operand resolved to an index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Op {
    PushInt(i64),
    PushStr(StrId),
    Null,
    Pop,
    Dup,
    Swap,
    Over,
    /// Local index (parameters first).
    Load(u32),
    Store(u32),
    Inc(u32, i64),
    GetGlobal(GlobalId),
    PutGlobal(GlobalId),
    AddGlobal(GlobalId),
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
    /// Jump targets are instruction indices.
    Jmp(u32),
    Jz(u32),
    Jnz(u32),
    Jeq(u32),
    Jne(u32),
    Jlt(u32),
    Jle(u32),
    Jgt(u32),
    Jge(u32),
    Call(MethodId),
    CallVirt(SelectorId),
    Ret,
    New(ClassId),
    /// The class named in the instruction and the field's layout slot.
    GetField(ClassId, u32),
    PutField(ClassId, u32),
    InstanceOf(ClassId),
    IsClass(ClassId),
    NewArray,
    ALoad,
    AStore,
    ALen,
    Print,
    Throw,
    Spawn(MethodId),
    Join,
    Sleep,
    Halt,
    Nop,
}

impl Op {
    /// The table entry for this operation.
    pub fn opcode(self) -> Opcode {
        use Op::*;
        match self {
            PushInt(_) | PushStr(_) => Opcode::Push,
            Null => Opcode::Null,
            Pop => Opcode::Pop,
            Dup => Opcode::Dup,
            Swap => Opcode::Swap,
            Over => Opcode::Over,
            Load(_) => Opcode::Load,
            Store(_) => Opcode::Store,
            Inc(..) => Opcode::Inc,
            GetGlobal(_) => Opcode::GetGlobal,
            PutGlobal(_) => Opcode::PutGlobal,
            AddGlobal(_) => Opcode::AddGlobal,
            Add => Opcode::Add,
            Sub => Opcode::Sub,
            Mul => Opcode::Mul,
            Div => Opcode::Div,
            Rem => Opcode::Rem,
            Neg => Opcode::Neg,
            And => Opcode::And,
            Or => Opcode::Or,
            Xor => Opcode::Xor,
            Shl => Opcode::Shl,
            Shr => Opcode::Shr,
            Not => Opcode::Not,
            Eq => Opcode::Eq,
            Ne => Opcode::Ne,
            Lt => Opcode::Lt,
            Le => Opcode::Le,
            Gt => Opcode::Gt,
            Ge => Opcode::Ge,
            Jmp(_) => Opcode::Jmp,
            Jz(_) => Opcode::Jz,
            Jnz(_) => Opcode::Jnz,
            Jeq(_) => Opcode::Jeq,
            Jne(_) => Opcode::Jne,
            Jlt(_) => Opcode::Jlt,
            Jle(_) => Opcode::Jle,
            Jgt(_) => Opcode::Jgt,
            Jge(_) => Opcode::Jge,
            Call(_) => Opcode::Call,
            CallVirt(_) => Opcode::CallVirt,
            Ret => Opcode::Ret,
            New(_) => Opcode::New,
            GetField(..) => Opcode::GetField,
            PutField(..) => Opcode::PutField,
            InstanceOf(_) => Opcode::InstanceOf,
            IsClass(_) => Opcode::IsClass,
            NewArray => Opcode::NewArray,
            ALoad => Opcode::ALoad,
            AStore => Opcode::AStore,
            ALen => Opcode::ALen,
            Print => Opcode::Print,
            Throw => Opcode::Throw,
            Spawn(_) => Opcode::Spawn,
            Join => Opcode::Join,
            Sleep => Opcode::Sleep,
            Halt => Opcode::Halt,
            Nop => Opcode::Nop,
        }
    }

    /// The jump target of a jump or branch.
    pub fn target(self) -> Option<u32> {
        use Op::*;
        match self {
            Jmp(t) | Jz(t) | Jnz(t) | Jeq(t) | Jne(t) | Jlt(t) | Jle(t) | Jgt(t) | Jge(t) => {
                Some(t)
            }
            _ => None,
        }
    }

    /// The same operation with its jump target replaced (no-op for others).
    pub fn with_target(self, t: u32) -> Op {
        use Op::*;
        match self {
            Jmp(_) => Jmp(t),
            Jz(_) => Jz(t),
            Jnz(_) => Jnz(t),
            Jeq(_) => Jeq(t),
            Jne(_) => Jne(t),
            Jlt(_) => Jlt(t),
            Jle(_) => Jle(t),
            Jgt(_) => Jgt(t),
            Jge(_) => Jge(t),
            other => other,
        }
    }
}

impl Module {
    /// The method called `name` as it appears in profiles and traces
    /// (`fib`, `Shape.area`).
    pub fn method_by_display_name(&self, name: &str) -> Option<MethodId> {
        self.methods
            .iter()
            .position(|m| m.display_name(self) == name)
            .map(|i| i as MethodId)
    }

    /// Is `sub` the class `sup` or one of its subclasses?
    pub fn is_subclass(&self, sub: ClassId, sup: ClassId) -> bool {
        let mut c = Some(sub);
        while let Some(k) = c {
            if k == sup {
                return true;
            }
            c = self.classes[k as usize].superclass;
        }
        false
    }

    /// The name of field slot `slot` of class `class`: declared by the class
    /// itself or by the superclass whose slots cover it. `None` if the
    /// class or slot does not exist (or the superclass links are broken).
    pub fn field_name(&self, class: ClassId, slot: u32) -> Option<&str> {
        let slot = slot as usize;
        let mut c = Some(class);
        // At most one step per class, even on a malformed (cyclic) module.
        for _ in 0..=self.classes.len() {
            let k = self.classes.get(c? as usize)?;
            if slot >= k.inherited_fields {
                return k
                    .own_fields
                    .get(slot - k.inherited_fields)
                    .map(String::as_str);
            }
            c = k.superclass;
        }
        None
    }

    /// Every field name of class `class` in slot order, inherited ones
    /// first (takes time proportional to the depth of the class).
    pub fn all_fields(&self, class: ClassId) -> Vec<&str> {
        let mut chain = Vec::new();
        let mut c = Some(class);
        while let Some(k) = c.and_then(|k| self.classes.get(k as usize)) {
            if chain.len() > self.classes.len() {
                break;
            }
            chain.push(k);
            c = k.superclass;
        }
        chain
            .iter()
            .rev()
            .flat_map(|k| k.own_fields.iter().map(String::as_str))
            .collect()
    }

    /// The method `callvirt sel` runs for a receiver of class `class`: the
    /// definition in the class itself or its nearest superclass.
    pub fn resolve_virtual(&self, class: ClassId, sel: SelectorId) -> Option<MethodId> {
        let mut c = Some(class);
        while let Some(k) = c {
            let found = self
                .methods
                .iter()
                .position(|m| m.class == Some(k) && m.selector == Some(sel));
            if let Some(m) = found {
                return Some(m as MethodId);
            }
            c = self.classes[k as usize].superclass;
        }
        None
    }
}
