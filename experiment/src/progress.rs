//! Progress on stderr: an `indicatif` bar on a terminal, plain lines
//! (`vm experiment NAME: 12/40 ...`) otherwise, about ten per sweep.

use std::io::{IsTerminal, Write};

/// Progress of one sweep.
pub struct Progress {
    bar: Option<indicatif::ProgressBar>,
    name: String,
    total: u64,
    done: u64,
    last_line: u64,
}

impl Progress {
    /// A sweep of `total` steps of experiment `name`, doing `what`.
    pub fn new(name: &str, what: &str, total: u64) -> Progress {
        let bar = if std::io::stderr().is_terminal() {
            let bar = indicatif::ProgressBar::new(total);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{prefix} [{bar:30}] {pos}/{len} {elapsed_precise} (eta {eta}) {msg}",
            ) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(format!("{name}: {what}"));
            Some(bar)
        } else {
            line(&format!("vm experiment {name}: {what}, {total} steps"));
            None
        };
        Progress {
            bar,
            name: name.to_string(),
            total,
            done: 0,
            last_line: 0,
        }
    }

    /// One step done; `msg` says which.
    pub fn step(&mut self, msg: &str) {
        self.done += 1;
        match &self.bar {
            Some(bar) => {
                bar.set_message(msg.to_string());
                bar.inc(1);
            }
            None => {
                // About ten lines per sweep, and the last one.
                if self.done == self.total || self.done * 10 / self.total.max(1) > self.last_line {
                    self.last_line = self.done * 10 / self.total.max(1);
                    line(&format!(
                        "vm experiment {}: {}/{} ({msg})",
                        self.name, self.done, self.total
                    ));
                }
            }
        }
    }

    /// The sweep is over.
    pub fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Writes a progress line on stderr, never panicking: a stderr whose
/// reader went away stops the experiment ([`crate::children::stop`]), as a
/// closed pipe ends any Unix tool; a full one loses the line (the command
/// line's own last line meets the same fault and reports it).
pub fn line(text: &str) {
    let written = writeln!(std::io::stderr().lock(), "{text}");
    if matches!(written, Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe) {
        crate::children::stop();
    }
}
