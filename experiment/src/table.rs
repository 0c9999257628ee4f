//! An experiment's CSV read back ([`crate::csv`] writes it): its comment
//! lines, columns and rows, with look-ups by column name. The claims
//! ([`crate::claims`]) are computed from it, so that the same code judges
//! a run as it finishes and the committed full results in the tests.

use std::path::Path;

use crate::Error;

/// A CSV file read back.
#[derive(Clone, Debug)]
pub struct Table {
    /// The `#` comment lines, without the `# `.
    pub comments: Vec<String>,
    /// The column names.
    pub columns: Vec<String>,
    /// The rows, one string per column.
    pub rows: Vec<Vec<String>>,
}

/// The fields of one CSV line (fields with commas are quoted, quotes
/// doubled).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

impl Table {
    /// Parses the text of a CSV file.
    pub fn parse(text: &str) -> Table {
        let mut t = Table {
            comments: Vec::new(),
            columns: Vec::new(),
            rows: Vec::new(),
        };
        for line in text.lines() {
            if let Some(c) = line.strip_prefix("# ") {
                t.comments.push(c.to_string());
            } else if t.columns.is_empty() {
                t.columns = fields(line);
            } else if !line.is_empty() {
                t.rows.push(fields(line));
            }
        }
        t
    }

    /// Reads `path`.
    pub fn read(path: &Path) -> Result<Table, Error> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::NoInput(format!(
                "vm experiment: cannot read `{}`: {}",
                path.display(),
                crate::io_reason(&e)
            ))
        })?;
        Ok(Table::parse(&text))
    }

    /// The index of column `name`, if there is one.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c == name)
    }

    /// Whether the run was `--quick` (its settings line says `quick=true`).
    pub fn quick(&self) -> bool {
        self.setting("quick") == Some("true")
    }

    /// The value of `key=VALUE` on the settings line.
    pub fn setting(&self, key: &str) -> Option<&str> {
        let line = self
            .comments
            .iter()
            .find_map(|c| c.strip_prefix("settings: "))?;
        line.split([' ', ';'])
            .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
    }

    /// The rows whose columns have the given values.
    pub fn select(&self, filter: &[(&str, &str)]) -> Vec<Row<'_>> {
        let idx: Vec<(Option<usize>, &str)> =
            filter.iter().map(|(c, v)| (self.col(c), *v)).collect();
        self.rows
            .iter()
            .filter(|r| {
                idx.iter()
                    .all(|(i, v)| i.is_some_and(|i| r.get(i).is_some_and(|x| x == v)))
            })
            .map(|r| Row {
                table: self,
                cells: r,
            })
            .collect()
    }

    /// Every row.
    pub fn all(&self) -> Vec<Row<'_>> {
        self.select(&[])
    }

    /// The distinct values of column `name`, in the order they first appear.
    pub fn distinct(&self, name: &str) -> Vec<String> {
        let Some(i) = self.col(name) else {
            return Vec::new();
        };
        let mut out: Vec<String> = Vec::new();
        for r in &self.rows {
            if let Some(v) = r.get(i) {
                if !out.contains(v) {
                    out.push(v.clone());
                }
            }
        }
        out
    }
}

/// One row of a [`Table`].
#[derive(Clone, Copy, Debug)]
pub struct Row<'a> {
    table: &'a Table,
    cells: &'a [String],
}

impl<'a> Row<'a> {
    /// The text in column `name` (empty if there is no such column).
    pub fn get(&self, name: &str) -> &'a str {
        self.table
            .col(name)
            .and_then(|i| self.cells.get(i))
            .map_or("", |s| s.as_str())
    }

    /// The number in column `name`; `NaN` if empty or not a number.
    pub fn num(&self, name: &str) -> f64 {
        self.get(name).parse().unwrap_or(f64::NAN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_comments_columns_quoted_fields_and_settings() {
        let t = Table::parse(
            "# vm experiment x: y\n# settings: quick=true runs=3; clock=virtual\na,b,c\n1,\"x,y\",2.5\n2,z,\n",
        );
        assert!(t.quick());
        assert_eq!(t.setting("runs"), Some("3"));
        assert_eq!(t.setting("clock"), Some("virtual"));
        assert_eq!(t.rows[0], vec!["1", "x,y", "2.5"]);
        let r = t.select(&[("b", "z")]);
        assert_eq!(r.len(), 1);
        assert!(r[0].num("c").is_nan());
        assert_eq!(t.all()[0].num("c"), 2.5);
        assert_eq!(t.distinct("a"), vec!["1", "2"]);
        assert!(t.select(&[("nope", "1")]).is_empty());
    }
}
