//! The syntax tree: a `.bc` file as written, names unresolved.
//!
//! The parser produces it; the resolver (`verify::resolve`) turns it into a
//! [`crate::module::Module`] whose operands are indices.

use crate::diag::Pos;
use crate::opcode::Opcode;

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    /// The identifier.
    pub text: String,
    /// Its first character.
    pub pos: Pos,
}

/// A whole file.
#[derive(Clone, Debug, Default)]
pub struct Ast {
    /// `.global NAME` declarations, in order.
    pub globals: Vec<Name>,
    /// `.class` declarations, in order.
    pub classes: Vec<ClassDecl>,
    /// `.method` declarations, in order.
    pub methods: Vec<MethodDecl>,
}

/// `.class NAME [: SUPER]` with its `.field`s.
#[derive(Clone, Debug)]
pub struct ClassDecl {
    /// The class name.
    pub name: Name,
    /// The superclass, if any.
    pub superclass: Option<Name>,
    /// Fields declared in this class (not inherited ones).
    pub fields: Vec<Name>,
}

/// `.method [CLASS.]NAME(PARAMS)` ... `.end`.
#[derive(Clone, Debug)]
pub struct MethodDecl {
    /// For a virtual method, the class it belongs to.
    pub class: Option<Name>,
    /// The method's own name (without the class).
    pub name: Name,
    /// Parameter names; for a virtual method the first is the receiver.
    pub params: Vec<Name>,
    /// Names from `.locals`.
    pub locals: Vec<Name>,
    /// `.catch` ranges, in the order written.
    pub catches: Vec<CatchDecl>,
    /// The instructions.
    pub body: Vec<Insn>,
    /// Labels and the index of the instruction each stands before
    /// (`body.len()` for a label after the last instruction).
    pub labels: Vec<(Name, usize)>,
    /// Position of the `.method` directive.
    pub pos: Pos,
    /// Position of the `.end` directive (or of the end of the file).
    pub end: Pos,
    /// A line of the body did not lex or parse and was skipped: the stack
    /// heights of what is left would only report follow-on errors, so the
    /// verifier does not check them.
    pub malformed: bool,
}

impl MethodDecl {
    /// The method without its body (instructions, labels, catches): what
    /// name resolution needs to know of a method before any body is resolved.
    pub fn header(self) -> MethodDecl {
        MethodDecl {
            body: Vec::new(),
            labels: Vec::new(),
            catches: Vec::new(),
            ..self
        }
    }
}

/// `.catch FROM TO HANDLER`.
#[derive(Clone, Debug)]
pub struct CatchDecl {
    /// First label of the protected range.
    pub from: Name,
    /// Label just past the protected range.
    pub to: Name,
    /// Label of the handler.
    pub handler: Name,
}

/// One instruction as written.
#[derive(Clone, Debug)]
pub struct Insn {
    /// Which instruction.
    pub opcode: Opcode,
    /// Its operand.
    pub operand: Operand,
    /// Position of the mnemonic.
    pub pos: Pos,
}

/// A local named or numbered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LocalRef {
    /// By name.
    Name(Name),
    /// By 0-based index (parameters first, then `.locals`).
    Index(i64, Pos),
}

impl LocalRef {
    /// Where the reference was written.
    pub fn pos(&self) -> Pos {
        match self {
            LocalRef::Name(n) => n.pos,
            LocalRef::Index(_, p) => *p,
        }
    }
}

/// An instruction's operand as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operand {
    /// No operand.
    None,
    /// An integer constant.
    Int(i64),
    /// A string constant (escapes decoded).
    Str(Box<str>),
    /// A local.
    Local(LocalRef),
    /// `inc L INT`.
    LocalInt(LocalRef, i64),
    /// A global, label, method, selector or class name.
    Name(Name),
    /// `CLASS.FIELD`.
    Field(Box<(Name, Name)>),
}
