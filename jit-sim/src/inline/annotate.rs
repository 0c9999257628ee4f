//! The emitted program, made readable: the printed `.bc` of the optimized
//! module with the original's comments put back and every inlined region
//! marked.
//!
//! - A comment at the end of an instruction's source line is appended to
//!   every printed instruction that came from that line (in the method's
//!   own code and in each inlined copy).
//! - A block of whole-line comments above an instruction is printed above
//!   it in its own method (not in inlined copies, where it would repeat);
//!   one above a `.method`, `.class` or `.global` is printed above the
//!   same declaration; the comments before the first declaration head the
//!   file.
//! - Each inlined copy starts with `; inlined from CALLER:LINE -> CALLEE`
//!   and ends with `; end of CALLEE inlined from CALLER:LINE`, indented
//!   two more spaces per inline level, so the text can be read without
//!   any other tool.
//!
//! Only comment lines are added: the annotated text assembles to the same
//! module as the printed one.

use std::collections::{BTreeMap, HashMap};

use vm::module::{MethodId, Module};

use super::Outcome;

/// Splits a source line into its code and its comment (`;` outside a
/// string), both trimmed.
fn split_comment(line: &str) -> (&str, Option<&str>) {
    let mut in_str = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
        } else if c == '"' {
            in_str = true;
        } else if c == ';' {
            return (line[..i].trim(), Some(line[i..].trim_end()));
        }
    }
    (line.trim(), None)
}

/// The key of a declaration line (`.method NAME`, `.class NAME`,
/// `.global NAME`), as printed and as written.
fn declaration_key(code: &str) -> Option<String> {
    let mut words = code.split_whitespace();
    let kind = words.next()?;
    if !matches!(kind, ".method" | ".class" | ".global") {
        return None;
    }
    let name = words.next()?;
    let name = name.split('(').next().unwrap_or(name);
    Some(format!("{kind} {name}"))
}

/// What the original source says around its lines.
struct SourceComments {
    /// Line number -> the comment at its end.
    trailing: HashMap<u32, String>,
    /// Line number of an instruction -> the whole-line comments above it.
    above: HashMap<u32, Vec<String>>,
    /// Declaration key -> the whole-line comments above it.
    above_decl: HashMap<String, Vec<String>>,
    /// The comments before the first declaration.
    header: Vec<String>,
}

fn read_source(src: &str, code_lines: &std::collections::HashSet<u32>) -> SourceComments {
    let mut s = SourceComments {
        trailing: HashMap::new(),
        above: HashMap::new(),
        above_decl: HashMap::new(),
        header: Vec::new(),
    };
    let mut block: Vec<String> = Vec::new();
    let mut seen_decl = false;
    for (i, line) in src.lines().enumerate() {
        let n = i as u32 + 1;
        let (code, comment) = split_comment(line);
        if code.is_empty() {
            match comment {
                Some(c) => block.push(c.to_string()),
                // A blank line ends the file's header block.
                None if !seen_decl && !block.is_empty() => {
                    s.header.append(&mut block);
                    s.header.push(String::new());
                }
                None => {}
            }
            continue;
        }
        if let Some(c) = comment {
            s.trailing.insert(n, c.to_string());
        }
        if let Some(key) = declaration_key(code) {
            seen_decl = true;
            if !block.is_empty() {
                s.above_decl.insert(key, std::mem::take(&mut block));
            }
        } else if code_lines.contains(&n) {
            if !block.is_empty() {
                s.above.insert(n, std::mem::take(&mut block));
            }
        } else if !code.ends_with(':') {
            // `.locals`, `.catch`, `.field`, `.end`: the block stays
            // where it was written, above the next instruction.
        }
    }
    s
}

/// The printed text of `optimized` (from [`vm::printer::print`]) with the
/// comments of `src` (the source of `original`) and the inlined regions of
/// `outcomes` marked.
pub fn annotate(
    src: &str,
    original: &Module,
    printed: &str,
    optimized: &Module,
    outcomes: &[Outcome],
) -> String {
    let code_lines = original
        .methods
        .iter()
        .flat_map(|m| m.code.iter().map(|i| i.pos.line))
        .collect();
    let comments = read_source(src, &code_lines);
    let name = |m: MethodId| original.methods[m as usize].display_name(original);
    // Per root method: instruction index -> comments to put before it,
    // and after it (region ends).
    let mut before: HashMap<MethodId, BTreeMap<u32, Vec<String>>> = HashMap::new();
    let mut after: HashMap<MethodId, BTreeMap<u32, Vec<String>>> = HashMap::new();
    for o in outcomes {
        let (Some((start, end)), Some(callee)) = (o.code, o.callee) else {
            continue;
        };
        let n = optimized
            .methods
            .get(o.root as usize)
            .map_or(0, |m| m.code.len() as u32);
        let end = end.min(n);
        let site = o.site();
        let line = o.line(original);
        let indent = "  ".repeat(o.depth() - 1);
        let from = format!("{}:{line}", name(site.method));
        before
            .entry(o.root)
            .or_default()
            .entry(start)
            .or_default()
            .push(format!("{indent}; inlined from {from} -> {}", name(callee)));
        let ends = after.entry(o.root).or_default().entry(end).or_default();
        ends.insert(
            0,
            format!("{indent}; end of {} inlined from {from}", name(callee)),
        );
    }
    let mut out = String::new();
    for c in &comments.header {
        out.push_str(c);
        out.push('\n');
    }
    let mut method: Option<MethodId> = None;
    let mut index = 0u32;
    let mut next_method = 0 as MethodId;
    let mut own_lines_done: std::collections::HashSet<u32> = Default::default();
    // The source lines of each original method's own code, looked up once
    // per instruction (a scan of the method per instruction was quadratic
    // in its length: 8 s for 50,000 pushes).
    let own_lines: Vec<std::collections::HashSet<u32>> = original
        .methods
        .iter()
        .map(|m| m.code.iter().map(|i| i.pos.line).collect())
        .collect();
    // Region ends are printed once, before the labels at their index.
    let mut ended: Option<(MethodId, u32)> = None;
    let mut flush_ends = |out: &mut String, method: Option<MethodId>, at: u32| {
        let Some(m) = method else {
            return;
        };
        if ended == Some((m, at)) {
            return;
        }
        ended = Some((m, at));
        if let Some(list) = after.get(&m).and_then(|a| a.get(&at)) {
            for c in list {
                out.push_str("  ");
                out.push_str(c);
                out.push('\n');
            }
        }
    };
    for line in printed.lines() {
        let trimmed = line.trim_start();
        if let Some(key) = declaration_key(trimmed) {
            if let Some(block) = comments.above_decl.get(&key) {
                for c in block {
                    out.push_str(c);
                    out.push('\n');
                }
            }
            if key.starts_with(".method") {
                method = Some(next_method);
                next_method += 1;
                index = 0;
                own_lines_done.clear();
            }
        }
        if trimmed == ".end" {
            flush_ends(&mut out, method, index);
            method = None;
        }
        let is_insn = method.is_some()
            && line.starts_with("  ")
            && !trimmed.starts_with('.')
            && !trimmed.starts_with(';');
        if method.is_some() && !line.starts_with(' ') && trimmed.ends_with(':') {
            flush_ends(&mut out, method, index);
        }
        if !is_insn {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let m = method.expect("inside a method");
        flush_ends(&mut out, method, index);
        if let Some(list) = before.get(&m).and_then(|b| b.get(&index)) {
            for c in list {
                out.push_str("  ");
                out.push_str(c);
                out.push('\n');
            }
        }
        let insn = optimized
            .methods
            .get(m as usize)
            .and_then(|x| x.code.get(index as usize));
        let src_line = insn.map(|i| i.pos.line);
        // Whole-line comments: only where the instruction is the method's
        // own (its source line lies in the method's own code).
        if let Some(l) = src_line {
            let own = own_lines.get(m as usize).is_some_and(|ls| ls.contains(&l));
            if own && own_lines_done.insert(l) {
                if let Some(block) = comments.above.get(&l) {
                    for c in block {
                        out.push_str("  ");
                        out.push_str(c);
                        out.push('\n');
                    }
                }
            }
        }
        out.push_str(line);
        if let Some(c) = src_line.and_then(|l| comments.trailing.get(&l)) {
            out.push_str("   ");
            out.push_str(c);
        }
        out.push('\n');
        index += 1;
    }
    out
}
