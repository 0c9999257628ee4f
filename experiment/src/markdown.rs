//! Markdown tables for `NAME.md` and the terminal.

/// A table: a header row and rows of cells, right-aligned but the first
/// column.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = String::new();
    s.push_str(&format!("| {} |\n", headers.join(" | ")));
    let rule: Vec<&str> = (0..headers.len())
        .map(|i| if i == 0 { "---" } else { "---:" })
        .collect();
    s.push_str(&format!("|{}|\n", rule.join("|")));
    for r in rows {
        s.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    s
}

/// The `NAME.md` file: a title, the table, the reading.
pub fn document(title: &str, source: &str, table: &str, reading: &str) -> String {
    format!("# {title}\n\n{source}\n\n{table}\n{reading}\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_table_has_a_rule_per_column() {
        let t = super::table(&["a", "b"], &[vec!["x".into(), "1".into()]]);
        assert_eq!(t, "| a | b |\n|---|---:|\n| x | 1 |\n");
    }
}
