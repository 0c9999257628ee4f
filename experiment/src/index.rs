//! The index of the experiments (`docs/EXPERIMENTS.md`): a hand-written
//! introduction, then, generated from the committed pages
//! (`docs/experiments/NAME.md`, each written by its run), one short
//! section per experiment: what it reproduces, its figure, its claims
//! table and the command with its run time. The generated part starts at
//! [`MARKER`]; `tests/experiment_results.rs` checks that it is what
//! [`generate`] makes of the pages, and rewrites it when asked to
//! (`UPDATE_EXPERIMENTS=1`, which `experiment/regenerate.sh` sets).

use std::path::Path;

/// The line after which the index is generated.
pub const MARKER: &str = "<!-- Generated from docs/experiments/NAME.md by experiment/regenerate.sh: do not edit below. -->";

/// The parts of a page the index shows.
#[derive(Debug, Default, PartialEq)]
pub struct Summary {
    /// The command line and its run time (the page's line that starts
    /// with `` `vm experiment``).
    pub command: String,
    /// The figure files, in order.
    pub figures: Vec<String>,
    /// The claims table.
    pub claims: String,
}

/// Reads the parts of a page the index shows.
pub fn summarize(page: &str) -> Summary {
    let mut s = Summary::default();
    let mut in_claims = false;
    for line in page.lines() {
        if line.starts_with("`vm experiment") && s.command.is_empty() {
            s.command = line.to_string();
        } else if let Some(rest) = line.strip_prefix("![") {
            if let Some(file) = rest.split("](").nth(1).and_then(|r| r.strip_suffix(')')) {
                s.figures.push(file.to_string());
            }
        } else if line == "## Claims" {
            in_claims = true;
        } else if line.starts_with("## ") {
            in_claims = false;
        } else if in_claims && line.starts_with('|') {
            s.claims.push_str(line);
            s.claims.push('\n');
        }
    }
    s
}

/// The generated part of the index, from the pages in `dir` (an
/// experiment without a page says so).
pub fn generate(dir: &Path) -> String {
    let mut out = String::new();
    for e in crate::registry() {
        out.push_str(&format!("\n## {}\n\n", e.name));
        out.push_str(&format!(
            "{}: {}. The full page: [experiments/{n}.md](experiments/{n}.md).\n\n",
            e.reproduces,
            e.measures,
            n = e.name
        ));
        let Ok(page) = std::fs::read_to_string(dir.join(format!("{}.md", e.name))) else {
            out.push_str("No committed run yet.\n");
            continue;
        };
        let s = summarize(&page);
        if let Some(f) = s.figures.first() {
            out.push_str(&format!("![{}](experiments/{f})\n\n", e.name));
        }
        out.push_str(&s.claims);
        out.push_str(&format!("\n{}\n", s.command));
    }
    out
}

/// The whole index: `current` up to and including [`MARKER`] (the
/// hand-written introduction), then [`generate`]'s part.
pub fn rewrite(current: &str, dir: &Path) -> Option<String> {
    let head = current.split_once(MARKER)?.0;
    Some(format!("{head}{MARKER}\n{}", generate(dir)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_gives_its_command_figures_and_claims() {
        let page = "# x: y\n\nWhat.\n\n`vm experiment x` (3 s on cores=2 cpu=c).\n\n![x](x.svg)\n\n![x](x-2.svg)\n\n## Claims\n\n| claim | paper | ours | holds? |\n|---|---|---|---|\n| a | b | c | yes |\n\nA note.\n\n## Method\n\n| not | this |\n";
        let s = summarize(page);
        assert_eq!(s.command, "`vm experiment x` (3 s on cores=2 cpu=c).");
        assert_eq!(s.figures, vec!["x.svg", "x-2.svg"]);
        assert_eq!(s.claims.lines().count(), 3);
        assert!(s.claims.contains("| a | b | c | yes |"));
    }
}
