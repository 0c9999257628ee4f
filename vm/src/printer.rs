//! The `.bc` printer: a [`Module`] back to source text the assembler
//! accepts.
//!
//! The inliner in `jit-sim` transforms modules; this module turns its output
//! into a program a student can open, read and run. The printed text
//! declares, in this order: the globals, the classes (superclass and the
//! class's own fields, inherited ones left to the superclass), then the
//! methods in the module's order, each with its parameters, `.locals`,
//! `.catch` ranges and instructions. Operands are symbolic: locals by name,
//! jump targets and `.catch` bounds by label, methods, selectors, classes,
//! globals and fields by name, strings quoted with the documented escapes
//! (`\n \t \\ \"`).
//!
//! Declaration order is kept, so assembling the printed text gives back the
//! same method, class, global and selector indices: printing is a fixed
//! point (`print ∘ assemble ∘ print = print`) and the reassembled module has
//! the same instructions (the tests check this on every program of the
//! repository). Only string constants may be numbered differently, since
//! the assembler numbers them in order of first use.
//!
//! Labels: every label the module records ([`Method::labels`]) is printed
//! where it stands; an instruction that is a jump target or a `.catch`
//! bound but has no label gets a fresh one (`L12` for index 12). Local and
//! label names that are not identifiers or that repeat are renamed (a
//! module built by a program may have such names); names of globals,
//! classes, fields and methods are printed as they are and must be
//! identifiers, otherwise [`print()`] reports a [`PrintError`].

use std::collections::{BTreeMap, HashSet};
use std::fmt::{self, Write as _};

use crate::module::{Method, Module, Op};

/// Why a module could not be printed: it refers to something it does not
/// have, or a name could not be written as an identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PrintError {
    /// An instruction or a `.catch` refers to an index out of range.
    BadIndex {
        /// The method (its display name, or its index if even that fails).
        method: String,
        /// What kind of thing the index names (`local`, `class`, ...).
        what: &'static str,
        /// The index.
        index: u64,
    },
    /// A global, class, field or method name is not an identifier.
    BadName {
        /// What kind of name.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// `call` or `spawn` names a virtual method.
    NotStatic {
        /// The method containing the instruction.
        method: String,
        /// The virtual method it names.
        callee: String,
    },
}

impl fmt::Display for PrintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrintError::BadIndex {
                method,
                what,
                index,
            } => write!(f, "in `{method}`: no {what} with index {index}"),
            PrintError::BadName { what, name } => {
                write!(f, "{what} name `{name}` is not an identifier")
            }
            PrintError::NotStatic { method, callee } => write!(
                f,
                "in `{method}`: `call`/`spawn` names `{callee}`, which is a virtual method"
            ),
        }
    }
}

impl std::error::Error for PrintError {}

/// Is `s` an identifier of the language (`[A-Za-z_][A-Za-z0-9_]*`)?
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A string constant as a `.bc` literal, quotes included.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Prints `module` as `.bc` text.
pub fn print(module: &Module) -> Result<String, PrintError> {
    let mut out = String::new();
    for g in &module.globals {
        check_name("global", g)?;
        let _ = writeln!(out, ".global {g}");
    }
    if !module.globals.is_empty() {
        out.push('\n');
    }
    for c in &module.classes {
        check_name("class", &c.name)?;
        match c.superclass {
            None => {
                let _ = writeln!(out, ".class {}", c.name);
            }
            Some(s) => {
                let sup = module
                    .classes
                    .get(s as usize)
                    .ok_or_else(|| PrintError::BadIndex {
                        method: format!("class {}", c.name),
                        what: "class",
                        index: s as u64,
                    })?;
                let _ = writeln!(out, ".class {} : {}", c.name, sup.name);
            }
        }
        for f in &c.own_fields {
            check_name("field", f)?;
            let _ = writeln!(out, "  .field {f}");
        }
        out.push_str(".end\n\n");
    }
    for (i, m) in module.methods.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        print_method(module, m, &mut out)?;
    }
    Ok(out)
}

fn check_name(what: &'static str, name: &str) -> Result<(), PrintError> {
    if is_identifier(name) {
        Ok(())
    } else {
        Err(PrintError::BadName {
            what,
            name: name.to_string(),
        })
    }
}

/// Gives every name in `names` a distinct identifier: names that are
/// identifiers and not yet taken keep their text, the rest get `BASE_K`.
/// `taken` starts with names that must not be reused.
fn distinct_names<'a>(
    names: impl Iterator<Item = &'a str>,
    fallback: &str,
    taken: &mut HashSet<String>,
) -> Vec<String> {
    let names: Vec<&str> = names.collect();
    let mut out: Vec<Option<String>> = vec![None; names.len()];
    for (i, n) in names.iter().enumerate() {
        if is_identifier(n) && taken.insert(n.to_string()) {
            out[i] = Some(n.to_string());
        }
    }
    for (i, n) in names.iter().enumerate() {
        if out[i].is_none() {
            let base = if is_identifier(n) { n } else { fallback };
            let mut k = 2;
            let name = loop {
                let candidate = format!("{base}_{k}");
                if !taken.contains(&candidate) {
                    break candidate;
                }
                k += 1;
            };
            taken.insert(name.clone());
            out[i] = Some(name);
        }
    }
    out.into_iter().map(|n| n.unwrap_or_default()).collect()
}

fn print_method(module: &Module, m: &Method, out: &mut String) -> Result<(), PrintError> {
    let display = match m.class.and_then(|c| module.classes.get(c as usize)) {
        Some(c) => format!("{}.{}", c.name, m.name),
        None => m.name.clone(),
    };
    let bad = |what: &'static str, index: u64| PrintError::BadIndex {
        method: display.clone(),
        what,
        index,
    };
    check_name("method", &m.name)?;
    if let Some(c) = m.class {
        let class = module
            .classes
            .get(c as usize)
            .ok_or_else(|| bad("class", c as u64))?;
        check_name("class", &class.name)?;
    }

    // Locals: parameters first, then `.locals`.
    let mut taken = HashSet::new();
    let locals = distinct_names(
        m.params.iter().chain(&m.locals).map(String::as_str),
        "local",
        &mut taken,
    );
    let (params, extra) = locals.split_at(m.params.len());

    // Labels: the recorded ones, then one for every unlabeled target.
    let n = m.code.len() as u32;
    let recorded: Vec<(String, u32)> = m
        .labels
        .iter()
        .filter(|(_, at)| *at <= n)
        .cloned()
        .collect();
    let mut taken = HashSet::new();
    let names = distinct_names(
        recorded.iter().map(|(l, _)| l.as_str()),
        "label",
        &mut taken,
    );
    let mut labels: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for ((_, at), name) in recorded.iter().zip(names) {
        labels.entry(*at).or_default().push(name);
    }
    let mut targets: Vec<u32> = Vec::new();
    for c in &m.catches {
        targets.extend([c.from, c.to, c.handler]);
    }
    targets.extend(m.code.iter().filter_map(|i| i.op.target()));
    for t in targets {
        if t > n {
            return Err(bad("instruction", t as u64));
        }
        labels.entry(t).or_insert_with(|| {
            let mut name = format!("L{t}");
            let mut k = 2;
            while taken.contains(&name) {
                name = format!("L{t}_{k}");
                k += 1;
            }
            taken.insert(name.clone());
            vec![name]
        });
    }
    let label = |t: u32| -> &str { labels.get(&t).and_then(|v| v.first()).map_or("", |s| s) };
    // Where a range ends and its handler starts (`end:` then `handler:`),
    // the handler reads better with the last of the labels.
    let handler_label =
        |t: u32| -> &str { labels.get(&t).and_then(|v| v.last()).map_or("", |s| s) };

    let _ = writeln!(out, ".method {display}({})", params.join(", "));
    if !extra.is_empty() {
        let _ = writeln!(out, "  .locals {}", extra.join(" "));
    }
    for c in &m.catches {
        let _ = writeln!(
            out,
            "  .catch {} {} {}",
            label(c.from),
            label(c.to),
            handler_label(c.handler)
        );
    }
    let local = |i: u32| -> Result<&str, PrintError> {
        locals
            .get(i as usize)
            .map(String::as_str)
            .ok_or_else(|| bad("local", i as u64))
    };
    let global = |g: u32| -> Result<&str, PrintError> {
        let name = module
            .globals
            .get(g as usize)
            .ok_or_else(|| bad("global", g as u64))?;
        check_name("global", name)?;
        Ok(name)
    };
    let class = |c: u32| -> Result<&str, PrintError> {
        let class = module
            .classes
            .get(c as usize)
            .ok_or_else(|| bad("class", c as u64))?;
        check_name("class", &class.name)?;
        Ok(&class.name)
    };
    let static_method = |id: u32| -> Result<&str, PrintError> {
        let callee = module
            .methods
            .get(id as usize)
            .ok_or_else(|| bad("method", id as u64))?;
        if callee.class.is_some() {
            return Err(PrintError::NotStatic {
                method: display.clone(),
                callee: callee.display_name(module),
            });
        }
        check_name("method", &callee.name)?;
        Ok(&callee.name)
    };
    let field = |c: u32, slot: u32| -> Result<String, PrintError> {
        let cname = class(c)?;
        let f = module
            .field_name(c, slot)
            .ok_or_else(|| bad("field", slot as u64))?;
        check_name("field", f)?;
        Ok(format!("{cname}.{f}"))
    };

    for at in 0..=n {
        if let Some(names) = labels.get(&at) {
            for l in names {
                let _ = writeln!(out, "{l}:");
            }
        }
        let Some(insn) = m.code.get(at as usize) else {
            break;
        };
        let mnemonic = insn.op.opcode().mnemonic();
        let operand: String = match insn.op {
            Op::PushInt(v) => v.to_string(),
            Op::PushStr(s) => quote(
                module
                    .strings
                    .get(s as usize)
                    .ok_or_else(|| bad("string", s as u64))?,
            ),
            Op::Load(l) | Op::Store(l) => local(l)?.to_string(),
            Op::Inc(l, k) => format!("{} {k}", local(l)?),
            Op::GetGlobal(g) | Op::PutGlobal(g) | Op::AddGlobal(g) => global(g)?.to_string(),
            Op::Jmp(t)
            | Op::Jz(t)
            | Op::Jnz(t)
            | Op::Jeq(t)
            | Op::Jne(t)
            | Op::Jlt(t)
            | Op::Jle(t)
            | Op::Jgt(t)
            | Op::Jge(t) => label(t).to_string(),
            Op::Call(id) | Op::Spawn(id) => static_method(id)?.to_string(),
            Op::CallVirt(s) => {
                let sel = module
                    .selectors
                    .get(s as usize)
                    .ok_or_else(|| bad("selector", s as u64))?;
                check_name("method", &sel.name)?;
                sel.name.clone()
            }
            Op::New(c) | Op::InstanceOf(c) | Op::IsClass(c) => class(c)?.to_string(),
            Op::GetField(c, slot) | Op::PutField(c, slot) => field(c, slot)?,
            Op::Null
            | Op::Pop
            | Op::Dup
            | Op::Swap
            | Op::Over
            | Op::Add
            | Op::Sub
            | Op::Mul
            | Op::Div
            | Op::Rem
            | Op::Neg
            | Op::And
            | Op::Or
            | Op::Xor
            | Op::Shl
            | Op::Shr
            | Op::Not
            | Op::Eq
            | Op::Ne
            | Op::Lt
            | Op::Le
            | Op::Gt
            | Op::Ge
            | Op::Ret
            | Op::NewArray
            | Op::ALoad
            | Op::AStore
            | Op::ALen
            | Op::Print
            | Op::Throw
            | Op::Join
            | Op::Sleep
            | Op::Halt
            | Op::Nop => String::new(),
        };
        if operand.is_empty() {
            let _ = writeln!(out, "  {mnemonic}");
        } else {
            let _ = writeln!(out, "  {mnemonic} {operand}");
        }
    }
    out.push_str(".end\n");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Pos;
    use crate::module::{Catch, Insn};
    use crate::verify::assemble;

    /// The instructions of a module with string operands spelled out (the
    /// assembler numbers strings in order of first use).
    fn shape(m: &Module) -> Vec<String> {
        let mut out = Vec::new();
        for c in &m.classes {
            out.push(format!(
                "class {} {:?} {:?} {}",
                c.name, c.superclass, c.own_fields, c.inherited_fields
            ));
        }
        out.push(format!("globals {:?}", m.globals));
        out.push(format!(
            "selectors {:?}",
            m.selectors
                .iter()
                .map(|s| (&s.name, s.arity))
                .collect::<Vec<_>>()
        ));
        out.push(format!("main {}", m.main));
        for meth in &m.methods {
            out.push(format!(
                "method {:?} {:?} {:?} {:?} {:?} {:?}",
                meth.name, meth.class, meth.selector, meth.params, meth.locals, meth.catches
            ));
            for i in &meth.code {
                out.push(match i.op {
                    Op::PushStr(s) => format!("  push {:?}", m.strings[s as usize]),
                    op => format!("  {op:?}"),
                });
            }
        }
        out
    }

    fn round_trip(name: &str, src: &str) -> Option<String> {
        let original = assemble(name, src).ok()?;
        let text = print(&original).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = assemble(name, &text).unwrap_or_else(|d| {
            panic!("{name}: the printed text does not assemble: {d:?}\n{text}")
        });
        assert_eq!(shape(&original), shape(&again), "{name}:\n{text}");
        let text2 = print(&again).unwrap();
        assert_eq!(text, text2, "{name}: printing is not a fixed point");
        Some(text)
    }

    #[test]
    fn every_program_round_trips() {
        let files = crate::test_programs::all();
        assert!(files.len() > 20, "found only {} programs", files.len());
        let mut verified = 0;
        for f in &files {
            let Ok(src) = std::fs::read_to_string(f) else {
                continue;
            };
            if round_trip(&f.display().to_string(), &src).is_some() {
                verified += 1;
            }
        }
        // The examples and benchmarks all verify, and many tests do.
        assert!(verified >= 25, "only {verified} programs verified");
    }

    #[test]
    fn prints_declarations_and_symbolic_operands() {
        let src = "\
.global count
.class A
  .field x
.end
.class B : A
  .field y
.end
.method A.get(this)
  load this
  getfield B.x
  ret
.end
.method main()
  .locals i s
  .catch try done handler
try:
  new B
  callvirt get
  pop
  push \"a\\\"b\\\\c\\n\\td;e\"
  store s
  inc i -3
top:
  load i
  push 0x10
  jlt top
  push 1
  addglobal count
  pop
  call helper
  ret
done:
handler:
  print
  push 0
  ret
.end
.method helper()
  push -9223372036854775808
  ret
.end
";
        let text = round_trip("t.bc", src).expect("verifies");
        let expected = "\
.global count

.class A
  .field x
.end

.class B : A
  .field y
.end

.method A.get(this)
  load this
  getfield B.x
  ret
.end

.method main()
  .locals i s
  .catch try done handler
try:
  new B
  callvirt get
  pop
  push \"a\\\"b\\\\c\\n\\td;e\"
  store s
  inc i -3
top:
  load i
  push 16
  jlt top
  push 1
  addglobal count
  pop
  call helper
  ret
done:
handler:
  print
  push 0
  ret
.end

.method helper()
  push -9223372036854775808
  ret
.end
";
        assert_eq!(text, expected);
    }

    fn tiny(code: Vec<Op>) -> Module {
        let mut m = assemble("t.bc", ".method main()\n  push 0\n  ret\n.end\n").unwrap();
        m.methods[0].code = code
            .into_iter()
            .map(|op| Insn {
                op,
                pos: Pos::new(1, 1),
            })
            .collect();
        m.methods[0].labels.clear();
        m
    }

    #[test]
    fn unlabeled_targets_get_fresh_labels() {
        let mut m = tiny(vec![
            Op::PushInt(1),
            Op::Jnz(3),
            Op::Jmp(0),
            Op::PushInt(0),
            Op::Ret,
        ]);
        // A recorded label that clashes with a generated name, a duplicate
        // name and a name that is not an identifier.
        m.methods[0].labels = vec![
            ("L0".into(), 2),
            ("x".into(), 4),
            ("x".into(), 4),
            ("not a label".into(), 5),
        ];
        m.methods[0].catches = vec![Catch {
            from: 0,
            to: 5,
            handler: 4,
        }];
        m.methods[0].locals = vec!["a".into(), "a".into(), "9".into()];
        let text = print(&m).unwrap();
        let again = assemble("t.bc", &text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
        let main = &again.methods[0];
        assert_eq!(main.locals, ["a", "a_2", "local_2"]);
        let ops: Vec<Op> = main.code.iter().map(|i| i.op).collect();
        assert_eq!(
            ops,
            [
                Op::PushInt(1),
                Op::Jnz(3),
                Op::Jmp(0),
                Op::PushInt(0),
                Op::Ret
            ]
        );
        assert_eq!(main.catches, m.methods[0].catches);
        assert!(text.contains("L0_2:\n  push 1"), "{text}");
        assert!(text.contains("L3:\n  push 0"), "{text}");
    }

    #[test]
    fn dangling_references_are_errors_not_panics() {
        let bad: Vec<(Op, &str)> = vec![
            (Op::Load(7), "local"),
            (Op::PushStr(99), "string"),
            (Op::GetGlobal(3), "global"),
            (Op::Call(42), "method"),
            (Op::CallVirt(5), "selector"),
            (Op::New(8), "class"),
            (Op::Jmp(17), "instruction"),
        ];
        for (op, what) in bad {
            let m = tiny(vec![op, Op::Ret]);
            match print(&m) {
                Err(PrintError::BadIndex { what: w, .. }) => assert_eq!(w, what),
                other => panic!("{op:?}: {other:?}"),
            }
        }
        let mut m = tiny(vec![Op::PushInt(0), Op::Ret]);
        m.globals.push("no good".into());
        assert!(matches!(print(&m), Err(PrintError::BadName { .. })));
    }

    #[test]
    fn call_of_a_virtual_method_is_an_error() {
        let mut m = assemble(
            "t.bc",
            ".class A\n.end\n.method A.f(this)\n  push 0\n  ret\n.end\n.method main()\n  push 0\n  ret\n.end\n",
        )
        .unwrap();
        m.methods[1].code.insert(
            0,
            Insn {
                op: Op::Call(0),
                pos: Pos::new(1, 1),
            },
        );
        assert!(matches!(print(&m), Err(PrintError::NotStatic { .. })));
    }

    #[test]
    fn quoting_uses_only_spec_escapes() {
        assert_eq!(quote("a\"b\\c\nd\te;f"), r#""a\"b\\c\nd\te;f""#);
        assert!(is_identifier("_x9"));
        assert!(!is_identifier("9x"));
        assert!(!is_identifier(""));
        assert!(!is_identifier("a.b"));
    }
}
