//! docs/LANGUAGE.md stays true to the VM: its instruction table (section
//! "Instructions", one row per mnemonic, the mnemonic in backticks in the
//! first column) lists exactly the opcodes of the VM's instruction table
//! (`vm::opcode::Opcode::ALL`), each once. An instruction added to the VM
//! without a row, or a row for an instruction the VM does not have, fails
//! here.

use std::collections::BTreeSet;

use vm::opcode::Opcode;

/// The reference, read from the repository.
fn language_doc() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/LANGUAGE.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// The mnemonics of the instruction table of `doc`, in order: the first
/// cell of every body row of the tables under the `## Instructions`
/// heading, which must be one mnemonic in backticks.
fn table_mnemonics(doc: &str) -> Result<Vec<String>, String> {
    let section = doc
        .split("\n## ")
        .find(|s| s.starts_with("Instructions\n"))
        .ok_or("no `## Instructions` section")?;
    let mut rows = Vec::new();
    for line in section.lines().filter(|l| l.starts_with('|')) {
        let first = line.split('|').nth(1).unwrap_or("").trim();
        if first == "instruction" || first.chars().all(|c| c == '-' || c == ':') {
            continue; // the header and its separator
        }
        let mnemonic = first
            .strip_prefix('`')
            .and_then(|s| s.strip_suffix('`'))
            .filter(|m| !m.is_empty() && m.chars().all(|c| c.is_ascii_lowercase()))
            .ok_or_else(|| format!("a row whose first cell is not one `mnemonic`: {line}"))?;
        rows.push(mnemonic.to_string());
    }
    if rows.is_empty() {
        return Err("the Instructions section has no table rows".into());
    }
    Ok(rows)
}

/// What is wrong between the rows of a table and the VM's opcodes, one
/// line per fault; empty when they agree.
fn disagreements(rows: &[String]) -> Vec<String> {
    let vm: BTreeSet<&str> = Opcode::ALL.iter().map(|o| o.mnemonic()).collect();
    let mut faults = Vec::new();
    let mut seen = BTreeSet::new();
    for r in rows {
        if !seen.insert(r.as_str()) {
            faults.push(format!("`{r}` has more than one row"));
        }
        if !vm.contains(r.as_str()) {
            faults.push(format!(
                "`{r}` is in the table but is not an opcode of the VM"
            ));
        }
    }
    for m in &vm {
        if !seen.contains(m) {
            faults.push(format!(
                "`{m}` is an opcode of the VM but has no row in the table"
            ));
        }
    }
    faults
}

#[test]
fn instruction_table_lists_exactly_the_vms_opcodes() {
    let rows = table_mnemonics(&language_doc()).unwrap_or_else(|e| panic!("docs/LANGUAGE.md: {e}"));
    let faults = disagreements(&rows);
    assert!(
        faults.is_empty(),
        "docs/LANGUAGE.md's instruction table and vm/src/opcode.rs disagree:\n  {}",
        faults.join("\n  ")
    );
    assert_eq!(rows.len(), Opcode::ALL.len());
}

/// The check above can fail: a copy of the document with the `rem` row
/// removed and a `mod` row added is caught, both ways.
#[test]
fn a_missing_or_unknown_row_is_caught() {
    let doc = language_doc();
    let rem_row = doc
        .lines()
        .find(|l| l.starts_with("| `rem` |"))
        .expect("the table has a `rem` row");
    let doctored = doc.replace(rem_row, "| `mod` | | a b → r | not an instruction |");
    let rows = table_mnemonics(&doctored).expect("still a table");
    let faults = disagreements(&rows);
    assert!(
        faults.iter().any(|f| f.starts_with("`rem` is an opcode")),
        "{faults:?}"
    );
    assert!(
        faults
            .iter()
            .any(|f| f.starts_with("`mod` is in the table")),
        "{faults:?}"
    );
    let twice = doc.replace(rem_row, &format!("{rem_row}\n{rem_row}"));
    let faults = disagreements(&table_mnemonics(&twice).expect("still a table"));
    assert_eq!(faults, ["`rem` has more than one row"]);
}
