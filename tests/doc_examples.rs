//! Every console example of the documentation is run, and its output
//! compared.
//!
//! A console example is a fenced block tagged `console` in `docs/*.md` or
//! `docs/book/src/**/*.md`: lines `$ vm ...` (a command; a long one ends
//! its line with ` \` and goes on on the next, indented by four spaces, so
//! that it pastes into a shell as it is), an optional `? N` (the expected
//! exit status, `0` when absent), then the expected output, stdout and
//! stderr together as a terminal shows them. `...` on a line of its own
//! stands for any number of lines, `[..]` for any text within a line (used
//! only where output varies from run to run, such as wall-clock times). A
//! fenced block with no tag is read as a console block too, so every other
//! block names its language (`text`, `bc`, `json`, `sh`, ...).
//! `doc_examples/console.rs` reads the blocks, and refuses a command a
//! shell would read otherwise than the test runs it.
//!
//! The examples run from the repository's root, as the docs say: their
//! paths are like `programs/examples/fib.bc`. So that the files they write
//! (`--profile-out=exact.json`) do not land in the checkout, each document
//! runs in its own scratch directory under `target/tmp` that holds a
//! symbolic link to every top-level entry of the repository (`programs`,
//! `tests`, `docs`, ...). The blocks of one document run in order, so a
//! later block can read what an earlier one wrote.
//!
//! A program shown in a document is given to its examples by naming the
//! file in the block's info string: a block opened with ```` ```bc file=small.bc ````
//! is written to `small.bc` in the scratch root before the examples run,
//! so `$ vm run small.bc` runs exactly the text the reader sees.
//!
//! To see what the binary prints now, run
//! `DOC_EXAMPLES=overwrite cargo test --profile quicktest --test doc_examples`: it
//! rewrites the expected output of every example that differs (losing its
//! wildcards) and its exit status. Read the diff before committing it: a
//! changed output is either a doc fix or a bug.
//!
//! The second test runs the book's exercise checkers
//! (`docs/book/checkers/NAME.sh`) on the worked solution
//! (`docs/book/solutions/NAME.bc`, must pass) and on the wrong attempts
//! (`docs/book/solutions/NAME.wrong.bc` and any `NAME.wrong-WHY.bc`, must
//! fail; a header line `; checker: TEXT` of an attempt is a text the
//! checker's output must hold, such as why it refused).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[path = "doc_examples/console.rs"]
mod console;

/// The repository's root (the root package's directory).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documents whose console blocks are run: `docs/*.md` and every
/// `.md` under `docs/book/src`, sorted.
fn documents() -> Vec<PathBuf> {
    let mut docs = Vec::new();
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(path);
        }
    }
    let book = root().join("docs/book/src");
    let mut stack = vec![book];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                docs.push(path);
            }
        }
    }
    docs.sort();
    docs
}

/// A fresh directory that looks like the repository's root: a symbolic link
/// to each of its top-level entries except `target` and `.git`, and the
/// programs `doc` shows with `file=NAME`.
fn scratch_root(doc: &Path) -> PathBuf {
    let rel = doc.strip_prefix(root()).unwrap();
    let name = rel.to_string_lossy().replace(['/', '.'], "_");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("doc-examples")
        .join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(root()).unwrap() {
        let entry = entry.unwrap();
        let file_name = entry.file_name();
        if file_name == "target" || file_name == ".git" {
            continue;
        }
        std::os::unix::fs::symlink(entry.path(), dir.join(&file_name)).unwrap();
    }
    let text = std::fs::read_to_string(doc).unwrap();
    for (name, body) in shown_files(&text) {
        assert!(
            !name.contains('/') && !name.starts_with('.'),
            "{}: file={name} must be a plain file name",
            rel.display()
        );
        std::fs::write(dir.join(&name), body).unwrap();
    }
    dir
}

/// The blocks of `text` opened with an info string holding `file=NAME`,
/// as (NAME, the block's text).
fn shown_files(text: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        match &mut current {
            Some(_) if line.starts_with("```") => files.extend(current.take()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    if let Some(name) = info
                        .split_whitespace()
                        .find_map(|w| w.strip_prefix("file="))
                    {
                        current = Some((name.to_string(), String::new()));
                    }
                }
            }
        }
    }
    assert!(current.is_none(), "a file= block is not closed");
    files
}

/// Runs a console example's command in `dir`: `vm` is the test's binary,
/// `sh` the system's (the book runs its checkers with it; they find `vm`
/// first on the `PATH`). Returns stdout and stderr together, in the order
/// they were written (one pipe for both, as a terminal shows them), and the
/// exit status.
fn run_example(argv: &[String], dir: &Path) -> Result<(String, i32), String> {
    let program = match argv.first().map(String::as_str) {
        Some("vm") => PathBuf::from(env!("CARGO_BIN_EXE_vm")),
        Some("sh") => PathBuf::from("/bin/sh"),
        other => {
            return Err(format!(
                "only `vm` and `sh` commands are run, not {other:?}"
            ))
        }
    };
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" 2>&1")
        .arg(program)
        .args(&argv[1..])
        .current_dir(dir)
        .env("PATH", path_with_vm())
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run it: {e}"))?;
    let status = out
        .status
        .code()
        .ok_or_else(|| format!("killed by a signal ({})", out.status))?;
    Ok((String::from_utf8_lossy(&out.stdout).into_owned(), status))
}

#[test]
fn every_console_example_in_the_docs_prints_what_it_shows() {
    let docs = documents();
    assert!(
        docs.iter().any(|d| d.ends_with("docs/CLI.md")),
        "docs/CLI.md not found among {docs:?}"
    );
    let overwrite = std::env::var("DOC_EXAMPLES").is_ok_and(|v| v == "overwrite");
    let mut failed = Vec::new();
    let mut examples = 0;
    // One document at a time, in its own scratch root, its examples in
    // order (a later one may read what an earlier one wrote).
    for doc in &docs {
        let rel = doc.strip_prefix(root()).unwrap().display().to_string();
        let text = std::fs::read_to_string(doc).unwrap();
        let steps = match console::parse(&text) {
            Ok(steps) => steps,
            Err(e) => {
                failed.push(format!("{rel}:{e}"));
                continue;
            }
        };
        if steps.is_empty() {
            continue;
        }
        let dir = scratch_root(doc);
        let mut results = Vec::new();
        for step in &steps {
            examples += 1;
            let command = step.argv.join(" ");
            let result = match run_example(&step.argv, &dir) {
                Ok((out, status))
                    if status == step.status && console::matches(&step.expected, &out) =>
                {
                    None
                }
                Ok((out, status)) => {
                    eprintln!(
                        "{rel}:{}: $ {command}\n--- expected (status {}):\n{}--- printed (status {status}):\n{out}---",
                        step.line, step.status, step.expected
                    );
                    failed.push(format!("{rel}:{}: {command}", step.line));
                    Some((out, status))
                }
                Err(e) => {
                    failed.push(format!("{rel}:{}: {command}: {e}", step.line));
                    None
                }
            };
            results.push(result);
        }
        if overwrite && results.iter().any(Option::is_some) {
            eprintln!("{rel}: rewritten with what the binary printed");
            std::fs::write(doc, console::rewrite(&text, &steps, &results)).unwrap();
        }
    }
    assert!(examples > 100, "only {examples} console examples found");
    assert!(
        overwrite || failed.is_empty(),
        "console examples that do not print what they show (details above):\n{}",
        failed.join("\n")
    );
}

/// The README's quick start: exactly two commands for a fresh machine, one
/// that builds `vm` and runs an example (`cargo run --release -- ARGS`),
/// one that runs all tests (the one `.ci/run` runs), and between them the
/// `export` line that puts the binary the first one built on the `PATH`.
/// Past the build, `vm ARGS` runs after the `export` line, from the
/// repository's root, with nothing else on the `PATH` that could answer to
/// `vm` (the line points at this test's `vm`: the same code, built in the
/// test profile rather than the release one).
#[test]
fn the_readmes_quick_start_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme.find("## Quick start").expect("a quick start");
    let end = start + readme[start..].find("\n## ").expect("a section after it");
    let blocks: Vec<&str> = readme[start..end]
        .split("```sh\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap().trim_end())
        .collect();
    assert_eq!(blocks.len(), 3, "{blocks:#?}");
    let args = blocks[0]
        .strip_prefix("cargo run --release -- ")
        .filter(|a| !a.contains('\n'))
        .unwrap_or_else(|| panic!("not one `cargo run --release -- ` line: {}", blocks[0]));
    assert_eq!(blocks[1], r#"export PATH="$PWD/target/release:$PATH""#);
    assert_eq!(blocks[2], "cargo test --workspace --profile quicktest");
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    assert!(
        ci.lines().any(|l| l.trim() == blocks[2]),
        ".ci/run does not run the README's test command"
    );
    // The quick start's `vm` is the release build's; this test's is the
    // test profile's, built from the same code: run the quick start's line
    // with the test's `vm` first on the `PATH` the README's line sets.
    let path_line = blocks[1].replace("$PWD/target/release", &vm_dir());
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("set -e\n{path_line}\nvm {args}"))
        .current_dir(root())
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("(profile cbs,"), "{stderr}");
}

/// The checkers of the book's exercises: each name `NAME` has
/// `docs/book/checkers/NAME.sh`, `docs/book/solutions/NAME.bc` and
/// `docs/book/solutions/NAME.wrong.bc`.
fn checkers() -> Vec<String> {
    let dir = root().join("docs/book/checkers");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "sh"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The directory of the test's `vm` binary.
fn vm_dir() -> String {
    let vm = PathBuf::from(env!("CARGO_BIN_EXE_vm"));
    vm.parent().unwrap().display().to_string()
}

/// The `PATH` with the directory of the test's `vm` binary first.
fn path_with_vm() -> String {
    format!("{}:{}", vm_dir(), std::env::var("PATH").unwrap_or_default())
}

/// Runs checker `name` on `program` from the repository's root, with the
/// test's `vm` binary first on the `PATH`; returns its success and output.
fn run_checker(name: &str, program: &Path) -> (bool, String) {
    let path = path_with_vm();
    let out = Command::new("sh")
        .arg(root().join(format!("docs/book/checkers/{name}.sh")))
        .arg(program)
        .current_dir(root())
        .env("PATH", path)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The wrong attempts at exercise `name`: `NAME.wrong.bc` (required) and
/// every `NAME.wrong-WHY.bc`, sorted.
fn wrong_attempts(name: &str) -> Vec<PathBuf> {
    let dir = root().join("docs/book/solutions");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let file = p.file_name().unwrap().to_string_lossy();
            file == format!("{name}.wrong.bc")
                || (file.starts_with(&format!("{name}.wrong-")) && file.ends_with(".bc"))
        })
        .collect();
    found.sort();
    assert!(
        found.contains(&dir.join(format!("{name}.wrong.bc"))),
        "docs/book/solutions/{name}.wrong.bc is missing"
    );
    found
}

/// The texts an attempt's header lines `; checker: TEXT` ask of its
/// checker's output.
fn expected_by(program: &Path) -> Vec<String> {
    std::fs::read_to_string(program)
        .unwrap()
        .lines()
        .take_while(|l| l.starts_with(';'))
        .filter_map(|l| l.strip_prefix("; checker: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_exercise_checker_passes_its_solution_and_fails_the_wrong_attempts() {
    let names = checkers();
    assert!(!names.is_empty(), "docs/book/checkers has no checker");
    let mut wrong = Vec::new();
    for name in &names {
        let solution = root().join(format!("docs/book/solutions/{name}.bc"));
        let attempts = wrong_attempts(name).into_iter().map(|a| (a, false));
        for (program, should_pass) in std::iter::once((solution, true)).chain(attempts) {
            let program = &program;
            assert!(program.exists(), "{} is missing", program.display());
            let (passed, text) = run_checker(name, program);
            for expected in expected_by(program) {
                if !text.contains(&expected) {
                    wrong.push(format!(
                        "{name} on {}: the checker did not say `{expected}`\n{text}",
                        program.display()
                    ));
                }
            }
            if passed != should_pass {
                wrong.push(format!(
                    "{name} on {}: expected {}, got {}\n{text}",
                    program.display(),
                    if should_pass { "pass" } else { "fail" },
                    if passed { "pass" } else { "fail" },
                ));
            } else if !text.contains(if should_pass { "PASS" } else { "FAIL" }) {
                wrong.push(format!(
                    "{name} on {}: the checker did not say {}\n{text}",
                    program.display(),
                    if should_pass { "PASS" } else { "FAIL" }
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The anchor mdBook gives a heading: lower case, spaces to `-`, other
/// punctuation dropped.
fn anchor_of(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The relative links `[text](target)` of a Markdown text, outside code
/// blocks and code spans: (line number, target).
fn relative_links(text: &str) -> Vec<(usize, String)> {
    let mut links = Vec::new();
    let mut in_code = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        // Drop code spans, whose brackets are not links.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                links.push((i + 1, target.to_string()));
            }
            rest = &rest[end..];
        }
    }
    links
}

#[test]
fn every_link_of_the_book_leads_to_a_chapter_and_a_heading_that_exist() {
    let src = root().join("docs/book/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let mut broken = Vec::new();
    let mut chapters = 0;
    for doc in documents().iter().filter(|d| d.starts_with(&src)) {
        chapters += 1;
        let name = doc.file_name().unwrap().to_string_lossy().into_owned();
        if name != "SUMMARY.md" && !summary.contains(&format!("]({name})")) {
            broken.push(format!("{name} is not listed in SUMMARY.md"));
        }
        let text = std::fs::read_to_string(doc).unwrap();
        for (line, target) in relative_links(&text) {
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() {
                doc.clone()
            } else {
                doc.parent().unwrap().join(file)
            };
            // The book is a web site of its own: links stay inside src/
            // (a file there may be a symbolic link to a picture committed
            // elsewhere: mdbook copies what it points to).
            let inside = path.exists()
                && path
                    .parent()
                    .and_then(|d| d.canonicalize().ok())
                    .is_some_and(|d| d.starts_with(src.canonicalize().unwrap()));
            if !inside {
                broken.push(format!(
                    "{name}:{line}: `{target}`: no such file in the book"
                ));
                continue;
            }
            if !anchor.is_empty() {
                let target_text = std::fs::read_to_string(&path).unwrap();
                let found = target_text
                    .lines()
                    .filter_map(|l| l.strip_prefix('#'))
                    .any(|h| anchor_of(h.trim_start_matches('#')) == anchor);
                if !found {
                    broken.push(format!("{name}:{line}: `{target}`: no such heading"));
                }
            }
        }
    }
    assert!(chapters > 1, "no book under {}", src.display());
    assert!(
        broken.is_empty(),
        "broken links in the book:\n{}",
        broken.join("\n")
    );
}
