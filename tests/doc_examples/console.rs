//! The console blocks of a document: the commands they show, the output
//! each must print, and how to compare and rewrite it.
//!
//! A console block is a fenced block tagged `console`, or not tagged at
//! all. In it a line `$ COMMAND` is a command; a long one ends its line
//! with ` \` and goes on on the next line, indented by four spaces, as a
//! shell reads it, so that a reader can paste it as it is. An optional
//! line `? N` after the command is its exit status (0 when absent). The
//! lines after that, up to the next command or the end of the block, are
//! what it prints, stdout and stderr together as a terminal shows them,
//! followed by one empty line (the separation, not part of the output).
//! In them a line `...` stands for any number of lines, and `[..]` for any
//! text within a line.
//!
//! A command holds no shell syntax (pipes, redirections, variables,
//! quotes, globs: [`SHELL_SYNTAX`]): it is run without a shell, its words
//! split at spaces, so it must mean the same as it does pasted into one.
//! A line starting `> ` right after a command is refused: that is how
//! trycmd, which ran these blocks before, continued a command, and a shell
//! reads it as a redirection (pasted, the first line runs alone and
//! `> --report` makes a file).

use std::ops::Range;

/// The indentation of a continued command's later lines.
const INDENT: &str = "    ";

/// The characters a shell reads as syntax.
pub const SHELL_SYNTAX: &str = "|&;<>()$`\\\"'*?[]{}~#!";

/// One command of a console block and what it must print.
#[derive(Debug, PartialEq)]
pub struct Step {
    /// The document's line of the `$ ` (from 1), for messages.
    pub line: usize,
    /// The command's words.
    pub argv: Vec<String>,
    /// The exit status it must end with.
    pub status: i32,
    /// The index of its `? N` line, if it has one.
    status_at: Option<usize>,
    /// The indices of the lines of its expected output (the empty line
    /// after it included).
    output: Range<usize>,
    /// Its expected output.
    pub expected: String,
}

/// Whether a fence's info string opens a console block: no tag, or
/// `console` (or trycmd's `trycmd`) without `ignore`.
fn is_console(info: &str) -> bool {
    let info = info.trim();
    let mut parts = info.split(',');
    let lang = parts.next().unwrap_or("");
    info.is_empty() || (matches!(lang, "console" | "trycmd") && !parts.any(|p| p == "ignore"))
}

/// The console blocks of `lines`: for each, the indices of its lines
/// (fences excluded).
fn console_blocks(lines: &[&str]) -> Vec<Range<usize>> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, bool)> = None;
    for (i, line) in lines.iter().enumerate() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        match open.take() {
            None => open = Some((i + 1, is_console(info))),
            Some((start, console)) => {
                if console {
                    blocks.push(start..i);
                }
            }
        }
    }
    blocks
}

/// The steps of every console block of `text`, in order; an error
/// `LINE: why` for a command a shell would read otherwise, or a block that
/// does not start with a command.
pub fn parse(text: &str) -> Result<Vec<Step>, String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut steps = Vec::new();
    for block in console_blocks(&lines) {
        let mut i = block.start;
        while i < block.end {
            let at = i + 1;
            let Some(first) = lines[i].strip_prefix("$ ") else {
                return Err(format!(
                    "{at}: a console block must start with a `$ ` command"
                ));
            };
            let mut command = first.to_string();
            i += 1;
            while let Some(head) = command.strip_suffix(" \\") {
                let Some(next) = lines[i..block.end]
                    .first()
                    .and_then(|l| l.strip_prefix(INDENT))
                else {
                    return Err(format!(
                        "{}: the command of line {at} ends with ` \\` but this line does not \
                         go on with it (indent it by four spaces)",
                        i + 1
                    ));
                };
                command = format!("{head} {}", next.trim_start());
                i += 1;
            }
            if lines[i..block.end]
                .first()
                .is_some_and(|l| l.starts_with("> "))
            {
                return Err(format!(
                    "{}: the command of line {at} goes on on a line starting `> `, which a \
                     shell reads as a redirection: end the line above with ` \\` and indent \
                     this one by four spaces",
                    i + 1
                ));
            }
            if let Some(c) = command.chars().find(|c| SHELL_SYNTAX.contains(*c)) {
                return Err(format!(
                    "{at}: `{c}` in a command: it runs without a shell, so pasted into one \
                     it would mean something else"
                ));
            }
            let mut status = 0;
            let mut status_at = None;
            if let Some(n) = lines[i..block.end]
                .first()
                .and_then(|l| l.strip_prefix("? "))
            {
                status = n
                    .trim()
                    .parse()
                    .map_err(|_| format!("{}: `? {n}` is not an exit status", i + 1))?;
                status_at = Some(i);
                i += 1;
            }
            let start = i;
            while i < block.end && !lines[i].starts_with("$ ") {
                i += 1;
            }
            let mut expected: String = lines[start..i].iter().map(|l| format!("{l}\n")).collect();
            // The empty line that ends an output is the separation.
            expected.pop();
            steps.push(Step {
                line: at,
                argv: command.split_whitespace().map(str::to_string).collect(),
                status,
                status_at,
                output: start..i,
                expected,
            });
        }
    }
    Ok(steps)
}

/// Whether `actual` is what `expected` shows, its wildcards (`...` lines,
/// `[..]` within a line) standing for whatever is there.
pub fn matches(expected: &str, actual: &str) -> bool {
    let e: Vec<&str> = expected.split('\n').collect();
    let a: Vec<&str> = actual.split('\n').collect();
    lines_match(&e, &a)
}

fn lines_match(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((line, rest)) => actual
            .split_first()
            .is_some_and(|(a, more)| line_matches(line, a) && lines_match(rest, more)),
    }
}

/// One line against a line that may hold `[..]`s.
fn line_matches(expected: &str, actual: &str) -> bool {
    let mut parts = expected.split("[..]");
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = actual.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// `text` with the expected output (and exit status) of each step of
/// `steps` that `results` (the actual output and status of each, `None`
/// where it matched) replaced by what it printed: for
/// `DOC_EXAMPLES=overwrite`. A rewritten output loses its wildcards.
pub fn rewrite(text: &str, steps: &[Step], results: &[Option<(String, i32)>]) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    // From the last step up, so that the earlier indices stay right.
    for (step, result) in steps.iter().zip(results).rev() {
        let Some((output, status)) = result else {
            continue;
        };
        let mut new: Vec<String> = format!("{output}\n")
            .split('\n')
            .map(str::to_string)
            .collect();
        new.pop();
        let mut range = step.output.clone();
        match (step.status_at, *status) {
            (Some(at), 0) => range.start = at,
            (Some(at), s) => {
                range.start = at;
                new.insert(0, format!("? {s}"));
            }
            (None, 0) => {}
            (None, s) => new.insert(0, format!("? {s}")),
        }
        lines.splice(range, new);
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "text\n```console\n$ vm run a.bc --profile=cbs \\\n    --report \\\n    --seed=1\n42\nvm: a.bc\n\n$ vm compare a b\n? 2\nvm: no\n\n```\n> quoted prose\n```sh\nvm x | y\n```\n";

    #[test]
    fn a_continued_command_is_one_command_with_its_output_and_status() {
        let steps = parse(DOC).unwrap();
        assert_eq!(steps.len(), 2);
        let s = &steps[0];
        assert_eq!(s.line, 3);
        assert_eq!(
            s.argv,
            ["vm", "run", "a.bc", "--profile=cbs", "--report", "--seed=1"]
        );
        assert_eq!((s.status, s.expected.as_str()), (0, "42\nvm: a.bc\n"));
        assert_eq!(steps[1].argv, ["vm", "compare", "a", "b"]);
        assert_eq!(
            (steps[1].status, steps[1].expected.as_str()),
            (2, "vm: no\n")
        );
    }

    #[test]
    fn a_command_that_would_not_paste_is_refused() {
        let gt = "```console\n$ vm run a.bc\n>     --report\n```\n";
        assert!(parse(gt)
            .unwrap_err()
            .starts_with("3: the command of line 2 goes on"));
        let unindented = "```console\n$ vm run a.bc \\\n--report\n```\n";
        assert!(parse(unindented)
            .unwrap_err()
            .starts_with("3: the command of line 2"));
        let pipe = "```console\n$ vm report p.json --format=dot | dot -Tsvg\n```\n";
        assert!(parse(pipe).unwrap_err().contains("`|`"));
        let output_first = "```\n42\n```\n";
        assert!(parse(output_first)
            .unwrap_err()
            .starts_with("2: a console block"));
    }

    #[test]
    fn wildcards_stand_for_lines_and_text() {
        assert!(matches("a\n...\nz\n", "a\nb\nc\nz\n"));
        assert!(matches("a\n...\nz\n", "a\nz\n"));
        assert!(!matches("a\n...\nz\n", "a\nb\n"));
        assert!(matches(
            "took [..] ms [compiled in [..]]\n",
            "took 3.1 ms [compiled in 0.2ms]\n"
        ));
        assert!(!matches("took [..] ms\n", "took 3.1 s\n"));
        assert!(!matches("42\n", "42\n43\n"));
        assert!(matches("", ""));
    }

    #[test]
    fn a_rewrite_puts_the_actual_output_and_status_in_place() {
        let steps = parse(DOC).unwrap();
        let results = [
            Some(("43\n".to_string(), 0)),
            Some(("vm: yes\n".to_string(), 0)),
        ];
        let new = rewrite(DOC, &steps, &results);
        let want = DOC
            .replace("42\nvm: a.bc\n\n", "43\n\n")
            .replace("? 2\nvm: no\n", "vm: yes\n");
        assert_eq!(new, want);
        let results = [None, Some(("".to_string(), 1))];
        assert_eq!(
            rewrite(DOC, &steps, &results),
            DOC.replace("? 2\nvm: no\n", "? 1\n")
        );
        // Nothing to rewrite: the same text.
        assert_eq!(rewrite(DOC, &steps, &[None, None]), DOC);
    }
}
