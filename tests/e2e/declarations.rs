//! Programs for each declaration and piece of syntax
//! (`tests/programs/declarations`): `.global` (and `--set`), `.class` with
//! and without a super declared anywhere, inherited fields, static and
//! virtual methods, `.locals` by name and index, `.catch` (order of trying,
//! `[FROM, TO)`, unwinding through frames, rethrowing), labels, comments,
//! and paths that end in `ret`/`throw`/`jmp`/`halt`.

use crate::harness::{self, Mode};

#[test]
fn declaration_programs() {
    harness::check_dir("declarations", Mode::Run, &[]);
}

#[test]
fn declaration_programs_without_yieldpoints() {
    harness::check_dir("declarations", Mode::Run, &["--no-yieldpoints"]);
}
