//! The commands of the documents' console blocks as a reader sees them and
//! as trycmd runs them.
//!
//! A reader pastes a command into a shell, so a long one is written as a
//! shell reads it: the line ends with ` \` and the command goes on on the
//! next line, indented by four spaces. trycmd knows no ` \`: its
//! continuation lines start with `> `, which a shell reads as a
//! redirection (pasted, the first line runs alone and `--report` becomes
//! a file). [`to_trycmd`] turns the first form into the second, line for
//! line (so trycmd's line numbers are the document's), in the copy that
//! trycmd runs; [`from_trycmd`] turns it back, for `TRYCMD=overwrite`.
//! Both check nothing else changes: `from_trycmd(to_trycmd(doc)) == doc`.

/// The indentation of a continued command's later lines.
const INDENT: &str = "    ";

/// The characters a shell reads as syntax (pipes, redirections, lists,
/// variables, quotes, globs, comments, history): trycmd runs a command
/// without a shell, so a command holding one would mean something else
/// pasted into a shell.
const SHELL_SYNTAX: &str = "|&;<>()$`\\\"'*?[]{}~#!";

/// Whether a fence's info string opens a block trycmd runs: no tag, or
/// `console` or `trycmd` without `ignore` (trycmd's own rule).
fn runs(info: &str) -> bool {
    let info = info.trim();
    let mut parts = info.split(',');
    let lang = parts.next().unwrap_or("");
    info.is_empty() || (matches!(lang, "console" | "trycmd") && !parts.any(|p| p == "ignore"))
}

/// For each line of `lines`, whether it is inside a block trycmd runs
/// (fences excluded).
fn in_console(lines: &[&str]) -> Vec<bool> {
    let mut block: Option<bool> = None;
    lines
        .iter()
        .map(|line| match (block, line.strip_prefix("```")) {
            (None, Some(info)) => {
                block = Some(runs(info));
                false
            }
            (Some(_), Some(_)) => {
                block = None;
                false
            }
            (b, None) => b == Some(true),
        })
        .collect()
}

/// The first shell syntax character of a command, if any.
fn shell_syntax(command: &str) -> Option<char> {
    command.chars().find(|c| SHELL_SYNTAX.contains(*c))
}

/// The document `text` with its continued commands in trycmd's form; an
/// error `LINE: why` for a `> ` continuation line, a continuation not
/// indented by four spaces, or a command holding shell syntax.
pub fn to_trycmd(text: &str) -> Result<String, String> {
    let lines: Vec<&str> = text.split('\n').collect();
    let console = in_console(&lines);
    let mut out = Vec::with_capacity(lines.len());
    // In a command whose previous line ended with ` \`.
    let mut continued = false;
    // The previous line was a command's (`$ ` or a continuation).
    let mut in_command = false;
    for (i, (line, &console)) in lines.iter().zip(&console).enumerate() {
        let at = i + 1;
        let (prefix, body) = if continued {
            let Some(body) = line.strip_prefix(INDENT).filter(|_| console) else {
                return Err(format!(
                    "{at}: the command of the line above ends with ` \\` but this line \
                     does not go on with it (indent it by four spaces)"
                ));
            };
            ("> ", body.trim_start())
        } else if let Some(body) = line.strip_prefix("$ ").filter(|_| console) {
            ("$ ", body)
        } else {
            if console && in_command && line.starts_with("> ") {
                return Err(format!(
                    "{at}: a command goes on on a line starting `> `, which a shell reads \
                     as a redirection: end the line above with ` \\` and indent this one \
                     by four spaces"
                ));
            }
            in_command = false;
            out.push(line.to_string());
            continue;
        };
        continued = body.ends_with(" \\");
        let body = body.strip_suffix(" \\").unwrap_or(body);
        if let Some(c) = shell_syntax(body) {
            return Err(format!(
                "{at}: `{c}` in a command: trycmd runs it without a shell, so pasted \
                 into one it would mean something else"
            ));
        }
        in_command = true;
        out.push(format!("{prefix}{body}"));
    }
    if continued {
        return Err("the last command ends with ` \\`".into());
    }
    Ok(out.join("\n"))
}

/// The document back from trycmd's form (see the module docs).
pub fn from_trycmd(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let console = in_console(&lines);
    let goes_on = |i: usize| console.get(i).copied() == Some(true) && lines[i].starts_with("> ");
    let mut out = Vec::with_capacity(lines.len());
    let mut in_command = false;
    for (i, line) in lines.iter().enumerate() {
        let (prefix, body) = match (line.strip_prefix("$ "), line.strip_prefix("> ")) {
            (Some(body), _) if console[i] => ("$ ", body),
            (_, Some(body)) if console[i] && in_command => (INDENT, body),
            _ => {
                in_command = false;
                out.push(line.to_string());
                continue;
            }
        };
        in_command = true;
        let end = if goes_on(i + 1) { " \\" } else { "" };
        out.push(format!("{prefix}{body}{end}"));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHOWN: &str = "text\n```console\n$ vm run a.bc --profile=cbs \\\n    --report \\\n    --seed=1\nout\n$ vm compare a b\n0\n```\n> quoted prose\n";
    const RUN: &str = "text\n```console\n$ vm run a.bc --profile=cbs\n> --report\n> --seed=1\nout\n$ vm compare a b\n0\n```\n> quoted prose\n";

    #[test]
    fn a_continued_command_runs_as_trycmds_continuation_and_comes_back() {
        assert_eq!(to_trycmd(SHOWN).unwrap(), RUN);
        assert_eq!(from_trycmd(RUN), SHOWN);
    }

    #[test]
    fn a_command_that_would_not_paste_is_refused() {
        let gt = "```console\n$ vm run a.bc\n>     --report\n```\n";
        assert!(to_trycmd(gt)
            .unwrap_err()
            .starts_with("3: a command goes on"));
        let unindented = "```console\n$ vm run a.bc \\\n--report\n```\n";
        assert!(to_trycmd(unindented)
            .unwrap_err()
            .starts_with("3: the command"));
        let pipe = "```console\n$ vm report p.json --format=dot | dot -Tsvg\n```\n";
        assert!(to_trycmd(pipe).unwrap_err().contains("`|`"));
        // Outside console blocks anything goes.
        let sh = "```sh\nvm report p.json --format=dot | dot -Tsvg > x.svg\n```\n";
        assert_eq!(to_trycmd(sh).unwrap(), sh);
    }
}
