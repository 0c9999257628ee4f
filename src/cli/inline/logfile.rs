//! The files of `vm inline`: the decision log (`--log=FILE.jsonl`,
//! format `vm-inline-log/1`) and the advice file (`--advice-out`,
//! `--advice`, format `vm-inline-advice/1`). Both are described in
//! docs/INLINING.md.
//!
//! A file is written to a temporary name beside it and renamed into place
//! once complete (`src/cli/output_file.rs`), so a failed run leaves no
//! partial file behind.

use std::path::Path;

use jit_sim::inline::{CallSite, Decision, Target};
use jit_sim::policy::record::Record;
use jit_sim::policy::Rule;
use serde_json::{json, Value};
use vm::module::{Module, Op};

use super::super::{Failure, EXIT_INVALID};

/// The decision log's format name.
pub const LOG_FORMAT: &str = "vm-inline-log/1";
/// The advice file's format name.
pub const ADVICE_FORMAT: &str = "vm-inline-advice/1";

fn rule_json(r: &Rule) -> Value {
    json!({
        "rule": r.name,
        "option": r.option,
        "value": r.value,
        "cmp": r.cmp,
        "threshold": r.threshold,
        "passed": r.passed,
    })
}

/// One record as a JSON object.
pub fn record_json(r: &Record) -> Value {
    json!({
        "format": LOG_FORMAT,
        "type": "site",
        "root": r.root,
        "depth": r.depth,
        "path": r.path.iter().map(|(m, l)| json!({"method": m, "line": l})).collect::<Vec<_>>(),
        "caller": r.caller,
        "line": r.line,
        "call": r.call,
        "callee": r.callee,
        "callee_size": r.callee_size,
        "weight": r.weight,
        "weight_pct": r.weight_pct(),
        "site_weight": r.site_weight,
        "receivers": r.receivers.iter().map(|x| json!({
            "method": x.method,
            "classes": x.classes,
            "weight": x.weight,
            "share": x.share,
        })).collect::<Vec<_>>(),
        "rules": r.rules.iter().map(rule_json).collect::<Vec<_>>(),
        "outcome": r.verdict.name(),
        "reason": r.reason,
    })
}

/// The log file: a `run` line, then one `site` line per record.
pub fn log_text(run: &Value, records: &[Record]) -> String {
    let mut out = String::new();
    out.push_str(&run.to_string());
    out.push('\n');
    for r in records {
        out.push_str(&record_json(r).to_string());
        out.push('\n');
    }
    out
}

/// The advice file: the decisions handed to the inliner, by source name
/// and line.
pub fn advice_text(module: &Module, program: &str, decisions: &[Decision]) -> String {
    let name = |m: u32| module.methods[m as usize].display_name(module);
    let items: Vec<Value> = decisions
        .iter()
        .map(|d| {
            let line = module.methods[d.site.method as usize].code[d.site.index as usize]
                .pos
                .line;
            let callee = match (
                d.target,
                module.methods[d.site.method as usize].code[d.site.index as usize].op,
            ) {
                (Target::Method { method }, _) => name(method),
                (_, Op::Call(m)) => name(m),
                _ => "?".into(),
            };
            json!({"caller": name(d.site.method), "line": line, "callee": callee})
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&json!({
        "format": ADVICE_FORMAT,
        "program": program,
        "decisions": items,
    }))
    .expect("JSON values print");
    text.push('\n');
    text
}

/// Reads an advice file against `module`: the decisions it names, and a
/// line for each one the program no longer has (skipped).
pub fn read_advice(
    path: &Path,
    text: &str,
    module: &Module,
) -> Result<(Vec<Decision>, Vec<String>), Failure> {
    let invalid = |why: String| Failure {
        status: EXIT_INVALID,
        message: format!(
            "vm: `{}` is not a {ADVICE_FORMAT} file: {why}",
            path.display()
        ),
    };
    let v: Value = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
    match v.get("format").and_then(Value::as_str) {
        Some(ADVICE_FORMAT) => {}
        Some(other) => return Err(invalid(format!("its format is `{other}`"))),
        None => return Err(invalid("no `format`".into())),
    }
    let items = v
        .get("decisions")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("no `decisions` list".into()))?;
    let mut decisions = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut skipped = Vec::new();
    for item in items {
        let caller = item.get("caller").and_then(Value::as_str);
        let line = item.get("line").and_then(Value::as_u64);
        let callee = item.get("callee").and_then(Value::as_str);
        let (Some(caller), Some(line), Some(callee)) = (caller, line, callee) else {
            return Err(invalid(format!(
                "a decision without caller, line and callee: {item}"
            )));
        };
        let found = resolve(module, caller, line as u32, callee);
        match found {
            // The inliner takes each decision once: refused here, before
            // the run, rather than by the inliner after it.
            Some(d) if !seen.insert(d) => {
                return Err(invalid(format!(
                    "the decision {caller}:{line} -> {callee} is given twice"
                )))
            }
            Some(d) => decisions.push(d),
            None => skipped.push(format!(
                "vm: advice: {caller}:{line} -> {callee}: the program has no such call, skipped"
            )),
        }
    }
    Ok((decisions, skipped))
}

/// The decision to inline `callee` at `caller:line`, if the module has
/// that call and the callee can run there.
pub fn resolve(module: &Module, caller: &str, line: u32, callee: &str) -> Option<Decision> {
    let site: CallSite = jit_sim::inline::site_at_line(module, caller, line)?;
    let callee = module.method_by_display_name(callee)?;
    let op = module.methods[site.method as usize].code[site.index as usize].op;
    let target = match op {
        Op::Call(m) if m == callee => Target::Static,
        Op::CallVirt(sel) if module.methods[callee as usize].selector == Some(sel) => {
            Target::Method { method: callee }
        }
        _ => return None,
    };
    Some(Decision { site, target })
}
