//! Name resolution: an [`Ast`] to a [`Module`], checking the documented rules on
//! names: every label, local, global, class, field and method must be known
//! and defined once; same-named virtual methods agree on arity; class
//! hierarchies are acyclic; inherited fields are not redeclared; a virtual
//! method has a receiver; `main()` exists.
//!
//! Where a fault has no single token the language reference fixes the position: the second
//! definition (defined twice), the later method (arity), each class on the
//! cycle, line 1 column 1 (no `main`).

use std::collections::{HashMap, HashSet};

use crate::asm::ast::{self, Ast, LocalRef, Name, Operand};
use crate::diag::{Diagnostic, Pos};
use crate::module::{Catch, Class, ClassId, ClassOrder, Insn, Method, Module, Op, Selector};
use crate::opcode::Opcode;

/// Resolves `ast`. Returns the module and whether each method resolved
/// cleanly (the stack check runs only on those).
pub fn resolve(file: &str, ast: Ast, diags: &mut Vec<Diagnostic>) -> (Module, Vec<bool>) {
    let mut declared = Declared::new(file, &ast, diags);
    // Each method's syntax tree is dropped once resolved.
    for decl in ast.methods {
        declared.body(decl);
    }
    declared.finish()
}

/// A file's declarations resolved (globals, classes and their fields, method
/// headers), ready to resolve method bodies one at a time, in file order.
///
/// This is what lets a big file load without its whole syntax tree:
/// `verify::assemble` reads the declarations in a first pass, then parses
/// the file again and resolves each body as soon as it is parsed.
pub struct Declared<'d> {
    r: Resolver<'d>,
    names: Names,
    /// Per method resolved so far: whether it resolved cleanly.
    clean: Vec<bool>,
}

impl<'d> Declared<'d> {
    /// Resolves the declarations of `ast`; its methods' bodies are not
    /// looked at (they may be empty: only the headers are needed).
    pub fn new(file: &str, ast: &Ast, diags: &'d mut Vec<Diagnostic>) -> Self {
        let mut r = Resolver {
            diags,
            module: Module {
                file: file.to_string(),
                ..Module::default()
            },
            strings: HashMap::new(),
            order: ClassOrder::default(),
            field_decls: HashMap::new(),
        };
        let globals = r.globals(&ast.globals);
        let classes = r.classes(&ast.classes);
        let (statics, selectors) = r.method_headers(&ast.methods, &classes);
        let clean = Vec::with_capacity(ast.methods.len());
        let names = Names {
            globals,
            classes,
            statics,
            selectors,
        };
        Declared { r, names, clean }
    }

    /// Resolves the body of the next method (the methods come in the order
    /// of the declarations given to [`Declared::new`]).
    pub fn body(&mut self, decl: ast::MethodDecl) {
        let i = self.clean.len();
        // A method with a skipped line is resolved (its unknown names are
        // real errors) but not height-checked (see `MethodDecl::malformed`).
        let resolved = self.r.body(i, &decl, &self.names);
        self.clean.push(resolved && !decl.malformed);
    }

    /// The module, and whether each method resolved cleanly.
    pub fn finish(mut self) -> (Module, Vec<bool>) {
        assert_eq!(
            self.clean.len(),
            self.r.module.methods.len(),
            "every declared method's body is resolved"
        );
        self.r.main(&self.names);
        (self.r.module, self.clean)
    }
}

struct Resolver<'d> {
    diags: &'d mut Vec<Diagnostic>,
    module: Module,
    strings: HashMap<String, u32>,
    /// The class forest's numbering (set by `classes`).
    order: ClassOrder,
    /// Per field name, the classes declaring it, in pre-order.
    field_decls: HashMap<String, Vec<FieldDecl>>,
}

/// A field declaration: the declaring class and the field's slot.
struct FieldDecl {
    /// The class's pre-order number.
    pre: u32,
    class: ClassId,
    slot: u32,
}

impl Resolver<'_> {
    /// The slot of field `name` in instances of `class`: declared by the
    /// class or its nearest superclass that declares it.
    fn field_slot(&self, class: ClassId, name: &str) -> Option<u32> {
        let list = self.field_decls.get(name)?;
        let p = self.order.pre[class as usize];
        let i = list.partition_point(|d| d.pre <= p);
        let d = list.get(i.checked_sub(1)?)?;
        self.order.is_subclass(class, d.class).then_some(d.slot)
    }
}

/// Name tables built before method bodies are resolved.
struct Names {
    globals: HashMap<String, u32>,
    classes: HashMap<String, u32>,
    statics: HashMap<String, u32>,
    selectors: HashMap<String, u32>,
}

impl Resolver<'_> {
    fn error(&mut self, pos: Pos, msg: impl Into<String>) {
        self.diags.push(Diagnostic::new(pos, msg));
    }

    /// Builds a name-to-index map, reporting second definitions.
    fn unique(&mut self, names: &[Name], what: &str) -> HashMap<String, u32> {
        let mut map = HashMap::new();
        for (i, n) in names.iter().enumerate() {
            if map.contains_key(&n.text) {
                self.error(n.pos, format!("{what} `{}` is defined twice", n.text));
            } else {
                map.insert(n.text.clone(), i as u32);
            }
        }
        map
    }

    fn globals(&mut self, globals: &[Name]) -> HashMap<String, u32> {
        let map = self.unique(globals, "global");
        self.module.globals = globals.iter().map(|g| g.text.clone()).collect();
        map
    }

    fn classes(&mut self, decls: &[ast::ClassDecl]) -> HashMap<String, u32> {
        let names: Vec<Name> = decls.iter().map(|c| c.name.clone()).collect();
        let map = self.unique(&names, "class");
        // Superclasses.
        let mut supers: Vec<Option<ClassId>> = Vec::with_capacity(decls.len());
        for d in decls {
            let s = d.superclass.as_ref().and_then(|s| match map.get(&s.text) {
                Some(&id) => Some(id),
                None => {
                    self.error(s.pos, format!("unknown class `{}`", s.text));
                    None
                }
            });
            supers.push(s);
        }
        // Cycles: report each class on a cycle, then cut the cycle so that
        // layout can proceed. Each class is walked once: a walk stops at a
        // class an earlier walk finished, or finds a cycle when it meets a
        // class of its own walk.
        let n = decls.len();
        let mut on_cycle = vec![false; n];
        let mut walk_of = vec![usize::MAX; n];
        for start in 0..n {
            if walk_of[start] != usize::MAX {
                continue;
            }
            let mut c = Some(start as u32);
            while let Some(k) = c {
                let k = k as usize;
                if walk_of[k] == start {
                    // Back on this walk: k and the classes after it form a cycle.
                    let mut x = k;
                    loop {
                        on_cycle[x] = true;
                        x = supers[x].expect("on a cycle") as usize;
                        if x == k {
                            break;
                        }
                    }
                    break;
                }
                if walk_of[k] != usize::MAX {
                    break;
                }
                walk_of[k] = start;
                c = supers[k];
            }
        }
        for (i, d) in decls.iter().enumerate() {
            if on_cycle[i] {
                self.error(
                    d.name.pos,
                    format!(
                        "class `{}` is its own superclass (cyclic hierarchy)",
                        d.name.text
                    ),
                );
                supers[i] = None;
            }
        }
        // Layout, superclasses first (in pre-order of the class forest). A
        // class stores only its own fields; a field name maps to the classes
        // that declare it, in pre-order, so that a lookup through the
        // superclass chain is a binary search (see `field_slot`).
        let order = ClassOrder::new(&supers);
        let mut by_pre = vec![0usize; n];
        for (c, &p) in order.pre.iter().enumerate() {
            by_pre[p as usize] = c;
        }
        let mut own: Vec<Vec<String>> = vec![Vec::new(); n];
        let mut inherited = vec![0usize; n];
        let mut declarers: HashMap<String, Vec<FieldDecl>> = HashMap::new();
        for &k in &by_pre {
            inherited[k] = supers[k].map_or(0, |s| inherited[s as usize] + own[s as usize].len());
            for f in &decls[k].fields {
                let list = declarers.entry(f.text.clone()).or_default();
                // Declarations accepted so far of one name are never each
                // other's ancestors, so their subtrees are disjoint: only the
                // latest one (in pre-order) can contain k.
                match list.last() {
                    Some(d) if d.class != k as u32 && order.is_subclass(k as u32, d.class) => {
                        self.error(
                            f.pos,
                            format!(
                                "field `{}` is already declared in a superclass of `{}`",
                                f.text, decls[k].name.text
                            ),
                        );
                    }
                    Some(d) if d.class == k as u32 => {
                        self.error(f.pos, format!("field `{}` is defined twice", f.text));
                    }
                    _ => {
                        list.push(FieldDecl {
                            pre: order.pre[k],
                            class: k as u32,
                            slot: (inherited[k] + own[k].len()) as u32,
                        });
                        own[k].push(f.text.clone());
                    }
                }
            }
        }
        self.module.classes = decls
            .iter()
            .enumerate()
            .map(|(i, d)| Class {
                name: d.name.text.clone(),
                superclass: supers[i],
                own_fields: std::mem::take(&mut own[i]),
                inherited_fields: inherited[i],
                pos: d.name.pos,
            })
            .collect();
        self.order = order;
        self.field_decls = declarers;
        map
    }

    /// Creates a [`Method`] per declaration (bodies empty) and the static
    /// method and selector tables.
    fn method_headers(
        &mut self,
        decls: &[ast::MethodDecl],
        classes: &HashMap<String, u32>,
    ) -> (HashMap<String, u32>, HashMap<String, u32>) {
        let mut statics: HashMap<String, u32> = HashMap::new();
        let mut virtuals: HashSet<(u32, String)> = HashSet::new();
        let mut selectors: HashMap<String, u32> = HashMap::new();
        self.module.methods.reserve_exact(decls.len());
        for (i, d) in decls.iter().enumerate() {
            let mut class = None;
            let mut selector = None;
            match &d.class {
                None => {
                    if statics.contains_key(&d.name.text) {
                        self.error(
                            d.name.pos,
                            format!("method `{}` is defined twice", d.name.text),
                        );
                    } else {
                        statics.insert(d.name.text.clone(), i as u32);
                    }
                }
                Some(cname) => match classes.get(&cname.text) {
                    None => self.error(cname.pos, format!("unknown class `{}`", cname.text)),
                    Some(&cid) => {
                        class = Some(cid);
                        if !virtuals.insert((cid, d.name.text.clone())) {
                            self.error(
                                d.name.pos,
                                format!("method `{}.{}` is defined twice", cname.text, d.name.text),
                            );
                        }
                        if d.params.is_empty() {
                            self.error(
                                d.name.pos,
                                format!(
                                    "virtual method `{}.{}` needs a receiver as its first parameter",
                                    cname.text, d.name.text
                                ),
                            );
                        }
                        let arity = d.params.len() as u32;
                        match selectors.get(&d.name.text) {
                            Some(&s) => {
                                let expected = self.module.selectors[s as usize].arity;
                                if expected != arity && !d.params.is_empty() {
                                    self.error(
                                        d.name.pos,
                                        format!(
                                            "virtual method `{}` takes {} here but {} elsewhere; same-named virtual methods must agree",
                                            d.name.text,
                                            crate::diag::count(arity, "parameter", "parameters"),
                                            expected
                                        ),
                                    );
                                }
                                selector = Some(s);
                            }
                            None if !d.params.is_empty() => {
                                let s = self.module.selectors.len() as u32;
                                self.module.selectors.push(Selector {
                                    name: d.name.text.clone(),
                                    arity,
                                });
                                selectors.insert(d.name.text.clone(), s);
                                selector = Some(s);
                            }
                            None => {}
                        }
                    }
                },
            }
            // Parameters and locals share one namespace.
            let all: Vec<Name> = d.params.iter().chain(&d.locals).cloned().collect();
            self.unique(&all, "local");
            self.module.methods.push(Method {
                name: d.name.text.clone(),
                class,
                selector,
                params: d.params.iter().map(|p| p.text.clone()).collect(),
                locals: d.locals.iter().map(|p| p.text.clone()).collect(),
                catches: Vec::new(),
                code: Vec::new(),
                labels: Vec::new(),
                pos: d.pos,
                end: d.end,
                max_stack: 0,
                heights: Vec::new(),
            });
        }
        (statics, selectors)
    }

    /// Resolves one method's labels, catches and instructions. Returns true
    /// if everything resolved.
    fn body(&mut self, id: usize, d: &ast::MethodDecl, names: &Names) -> bool {
        let before = self.diags.len();
        // Labels.
        let mut labels: HashMap<&str, u32> = HashMap::new();
        for (name, at) in &d.labels {
            if labels.contains_key(name.text.as_str()) {
                self.error(name.pos, format!("label `{}` is defined twice", name.text));
            } else {
                labels.insert(&name.text, *at as u32);
            }
        }
        let label = |r: &mut Self, n: &Name| -> Option<u32> {
            let t = labels.get(n.text.as_str()).copied();
            if t.is_none() {
                r.error(n.pos, format!("unknown label `{}`", n.text));
            }
            t
        };
        // Locals.
        let nlocals = d.params.len() + d.locals.len();
        let mut local_index: HashMap<&str, u32> = HashMap::with_capacity(nlocals);
        for (i, n) in d.params.iter().chain(&d.locals).enumerate() {
            // A name defined twice (reported already) means its first slot.
            local_index.entry(n.text.as_str()).or_insert(i as u32);
        }
        let local = |r: &mut Self, l: &LocalRef| -> Option<u32> {
            match l {
                LocalRef::Name(n) => {
                    let i = local_index.get(n.text.as_str()).copied();
                    if i.is_none() {
                        r.error(n.pos, format!("unknown local `{}`", n.text));
                    }
                    i
                }
                LocalRef::Index(i, pos) => {
                    if *i >= 0 && (*i as usize) < nlocals {
                        Some(*i as u32)
                    } else {
                        r.error(
                            *pos,
                            format!(
                                "unknown local: index {i} but the method has {}",
                                crate::diag::count(nlocals as u64, "local", "locals")
                            ),
                        );
                        None
                    }
                }
            }
        };
        let lookup =
            |r: &mut Self, map: &HashMap<String, u32>, n: &Name, what: &str| -> Option<u32> {
                let v = map.get(&n.text).copied();
                if v.is_none() {
                    r.error(n.pos, format!("unknown {what} `{}`", n.text));
                }
                v
            };

        let mut catches = Vec::new();
        for c in &d.catches {
            let (f, t, h) = (
                label(self, &c.from),
                label(self, &c.to),
                label(self, &c.handler),
            );
            if let (Some(from), Some(to), Some(handler)) = (f, t, h) {
                catches.push(Catch { from, to, handler });
            }
        }

        let mut code = Vec::with_capacity(d.body.len());
        for insn in &d.body {
            let op = self.op(insn, names, &label, &local, &lookup);
            if let Some(op) = op {
                code.push(Insn { op, pos: insn.pos });
            }
        }
        let m = &mut self.module.methods[id];
        m.catches = catches;
        m.code = code;
        m.labels = d
            .labels
            .iter()
            .map(|(n, i)| (n.text.clone(), *i as u32))
            .collect();
        self.diags.len() == before
    }

    #[allow(clippy::type_complexity)]
    fn op(
        &mut self,
        insn: &ast::Insn,
        names: &Names,
        label: &dyn Fn(&mut Self, &Name) -> Option<u32>,
        local: &dyn Fn(&mut Self, &LocalRef) -> Option<u32>,
        lookup: &dyn Fn(&mut Self, &HashMap<String, u32>, &Name, &str) -> Option<u32>,
    ) -> Option<Op> {
        use Opcode as O;
        let name = || match &insn.operand {
            Operand::Name(n) => n,
            other => unreachable!("parser gives names to {:?}, got {other:?}", insn.opcode),
        };
        Some(match insn.opcode {
            O::Push => match &insn.operand {
                Operand::Int(i) => Op::PushInt(*i),
                Operand::Str(s) => Op::PushStr(self.intern(s)),
                other => unreachable!("push operand {other:?}"),
            },
            O::Load | O::Store => {
                let Operand::Local(l) = &insn.operand else {
                    unreachable!()
                };
                let i = local(self, l)?;
                if insn.opcode == O::Load {
                    Op::Load(i)
                } else {
                    Op::Store(i)
                }
            }
            O::Inc => {
                let Operand::LocalInt(l, k) = &insn.operand else {
                    unreachable!()
                };
                Op::Inc(local(self, l)?, *k)
            }
            O::GetGlobal | O::PutGlobal | O::AddGlobal => {
                let g = lookup(self, &names.globals, name(), "global")?;
                match insn.opcode {
                    O::GetGlobal => Op::GetGlobal(g),
                    O::PutGlobal => Op::PutGlobal(g),
                    _ => Op::AddGlobal(g),
                }
            }
            O::Jmp | O::Jz | O::Jnz | O::Jeq | O::Jne | O::Jlt | O::Jle | O::Jgt | O::Jge => {
                let t = label(self, name())?;
                match insn.opcode {
                    O::Jmp => Op::Jmp(t),
                    O::Jz => Op::Jz(t),
                    O::Jnz => Op::Jnz(t),
                    O::Jeq => Op::Jeq(t),
                    O::Jne => Op::Jne(t),
                    O::Jlt => Op::Jlt(t),
                    O::Jle => Op::Jle(t),
                    O::Jgt => Op::Jgt(t),
                    _ => Op::Jge(t),
                }
            }
            O::Call | O::Spawn => {
                let m = lookup(self, &names.statics, name(), "method")?;
                if insn.opcode == O::Call {
                    Op::Call(m)
                } else {
                    Op::Spawn(m)
                }
            }
            O::CallVirt => Op::CallVirt(lookup(self, &names.selectors, name(), "virtual method")?),
            O::New | O::InstanceOf | O::IsClass => {
                let c = lookup(self, &names.classes, name(), "class")?;
                match insn.opcode {
                    O::New => Op::New(c),
                    O::InstanceOf => Op::InstanceOf(c),
                    _ => Op::IsClass(c),
                }
            }
            O::GetField | O::PutField => {
                let Operand::Field(field) = &insn.operand else {
                    unreachable!()
                };
                let (cname, fname) = &**field;
                let c = lookup(self, &names.classes, cname, "class")?;
                let Some(slot) = self.field_slot(c, &fname.text) else {
                    let msg = format!("class `{}` has no field `{}`", cname.text, fname.text);
                    self.error(fname.pos, msg);
                    return None;
                };
                if insn.opcode == O::GetField {
                    Op::GetField(c, slot)
                } else {
                    Op::PutField(c, slot)
                }
            }
            O::Null => Op::Null,
            O::Pop => Op::Pop,
            O::Dup => Op::Dup,
            O::Swap => Op::Swap,
            O::Over => Op::Over,
            O::Add => Op::Add,
            O::Sub => Op::Sub,
            O::Mul => Op::Mul,
            O::Div => Op::Div,
            O::Rem => Op::Rem,
            O::Neg => Op::Neg,
            O::And => Op::And,
            O::Or => Op::Or,
            O::Xor => Op::Xor,
            O::Shl => Op::Shl,
            O::Shr => Op::Shr,
            O::Not => Op::Not,
            O::Eq => Op::Eq,
            O::Ne => Op::Ne,
            O::Lt => Op::Lt,
            O::Le => Op::Le,
            O::Gt => Op::Gt,
            O::Ge => Op::Ge,
            O::Ret => Op::Ret,
            O::NewArray => Op::NewArray,
            O::ALoad => Op::ALoad,
            O::AStore => Op::AStore,
            O::ALen => Op::ALen,
            O::Print => Op::Print,
            O::Throw => Op::Throw,
            O::Join => Op::Join,
            O::Sleep => Op::Sleep,
            O::Halt => Op::Halt,
            O::Nop => Op::Nop,
        })
    }

    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.strings.get(s) {
            return id;
        }
        let id = self.module.strings.len() as u32;
        self.module.strings.push(s.to_string());
        self.strings.insert(s.to_string(), id);
        id
    }

    fn main(&mut self, names: &Names) {
        match names.statics.get("main") {
            None => self.error(Pos::new(1, 1), "the program has no `.method main()`"),
            Some(&m) => {
                let method = &self.module.methods[m as usize];
                if !method.params.is_empty() {
                    let pos = method.pos;
                    self.error(pos, "`main` must take no parameters: `.method main()`");
                }
                self.module.main = m;
            }
        }
    }
}
