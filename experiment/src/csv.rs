//! The raw measurements as CSV, each row flushed as it is written.
//!
//! A file starts with `#` comment lines, then the column names, then one
//! row per measurement:
//!
//! ```text
//! # vm experiment arnold-grove-fig1: Arnold & Grove 2005, Figure 1
//! # machine: cores=2 cpu=AMD EPYC
//! # settings: runs=10 quick=false
//! profile,seed,callee,weight,share_pct
//! exact,0,call_1,1500000,50.000
//! ```
//!
//! The header holds nothing that changes from run to run on one machine
//! (no date, no durations), so a deterministic experiment's file is the
//! same byte for byte.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::Error;

/// An open CSV file.
pub struct Csv {
    out: BufWriter<File>,
    columns: usize,
    path: String,
}

impl Csv {
    /// Creates `path` and writes the comment lines and the column names.
    pub fn create(path: &Path, comments: &[String], columns: &[&str]) -> Result<Csv, Error> {
        let shown = path.display().to_string();
        let file = File::create(path).map_err(|e| {
            Error::NoInput(format!(
                "vm experiment: cannot create `{shown}`: {}",
                crate::io_reason(&e)
            ))
        })?;
        let mut csv = Csv {
            out: BufWriter::new(file),
            columns: columns.len(),
            path: shown,
        };
        let mut head = String::new();
        for c in comments {
            head.push_str("# ");
            head.push_str(c);
            head.push('\n');
        }
        head.push_str(&columns.join(","));
        head.push('\n');
        csv.write(&head)?;
        Ok(csv)
    }

    /// Creates the CSV of the experiment being run (`DIR/NAME.csv`) with
    /// the standard comment lines ([`comments`]).
    pub fn experiment(
        ctx: &crate::Context,
        settings: &str,
        columns: &[&str],
    ) -> Result<Csv, Error> {
        Csv::create(&ctx.out_file("csv"), &comments(ctx, settings), columns)
    }

    /// Appends one row (as many fields as columns) and flushes it.
    pub fn row(&mut self, fields: &[String]) -> Result<(), Error> {
        assert_eq!(fields.len(), self.columns, "a CSV row of the wrong width");
        let line: Vec<String> = fields.iter().map(|f| quote(f)).collect();
        self.write(&(line.join(",") + "\n"))
    }

    fn write(&mut self, text: &str) -> Result<(), Error> {
        self.out
            .write_all(text.as_bytes())
            .and_then(|_| self.out.flush())
            .map_err(|e| {
                Error::NoInput(format!("vm experiment: cannot write `{}`: {e}", self.path))
            })
    }
}

/// A field, quoted if it holds a comma, a quote or a newline.
fn quote(field: &str) -> String {
    if field.contains([',', '"', '\n']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// The standard comment lines: the experiment, the machine, the settings.
pub fn comments(ctx: &crate::Context, settings: &str) -> Vec<String> {
    vec![
        format!("vm experiment {}: {}", ctx.exp.name, ctx.exp.reproduces),
        format!("machine: {}", crate::machine::describe()),
        format!("settings: quick={} {settings}", ctx.opts.quick),
    ]
}

/// A number with `digits` decimals.
pub fn num(v: f64, digits: usize) -> String {
    if v.is_nan() {
        String::new()
    } else {
        format!("{v:.digits$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_what_needs_it() {
        assert_eq!(quote("plain"), "plain");
        assert_eq!(quote("a,b"), "\"a,b\"");
        assert_eq!(quote("say \"x\""), "\"say \"\"x\"\"\"");
    }
}
