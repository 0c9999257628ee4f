//! Markdown for the pages (`NAME.md`) and the terminal: tables, and the
//! page of a run ([`Page`]).

/// A table: a header row and rows of cells, right-aligned but the first
/// column.
pub fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    aligned(headers, rows, false)
}

/// A table of text: every column left-aligned.
pub fn table_left(headers: &[&str], rows: &[Vec<String>]) -> String {
    aligned(headers, rows, true)
}

fn aligned(headers: &[&str], rows: &[Vec<String>], left: bool) -> String {
    let mut s = String::new();
    s.push_str(&format!("| {} |\n", headers.join(" | ")));
    let rule: Vec<&str> = (0..headers.len())
        .map(|i| if i == 0 || left { "---" } else { "---:" })
        .collect();
    s.push_str(&format!("|{}|\n", rule.join("|")));
    for r in rows {
        let cells: Vec<String> = r.iter().map(|c| c.replace('|', "\\|")).collect();
        s.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    s
}

/// What an experiment's run hands back: the table for the terminal, the
/// figure files, and the parts of its page.
pub struct Page {
    /// The table printed on the terminal.
    pub table: String,
    /// The figure files written (`NAME.svg`, `NAME-2.svg`, ...).
    pub figures: Vec<std::path::PathBuf>,
    /// What the paper did and what the experiment runs: the method.
    pub method: String,
    /// The results: tables, each with a line saying what it holds.
    pub results: String,
    /// The discussion: what differs from the paper and why, every
    /// sentence computed from the data or about the method.
    pub discussion: String,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_table_has_a_rule_per_column() {
        let t = super::table(&["a", "b"], &[vec!["x".into(), "1".into()]]);
        assert_eq!(t, "| a | b |\n|---|---:|\n| x | 1 |\n");
        let l = super::table_left(&["a", "b"], &[vec!["x|y".into(), "1".into()]]);
        assert_eq!(l, "| a | b |\n|---|---|\n| x\\|y | 1 |\n");
    }
}
