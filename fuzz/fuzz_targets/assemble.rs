//! Fuzz target `assemble`: arbitrary bytes through what `vm check`,
//! `vm disasm` and `vm inline` do with a source file.
//!
//! Bytes go through `vm::verify::assemble_bytes` (UTF-8 check, lexer,
//! parser, name resolution, verifier). A rejected input has its
//! diagnostics rendered as `vm check` prints them (source line and caret,
//! which must cope with any characters). An accepted one is loaded with and
//! without yieldpoints and disassembled, and printed back to source with
//! `vm::printer::print`, whose documented contract is checked: the printed
//! text assembles again, and printing that gives the same text.
//!
//! The oracle is: no panic, and the printer round trip holds.
#![no_main]

use libfuzzer_sys::fuzz_target;
use vm::loader::Program;

fuzz_target!(|data: &[u8]| {
    match vm::verify::assemble_bytes("fuzz.bc", data) {
        Err(diags) => {
            assert!(!diags.is_empty(), "rejected without a diagnostic");
            let text = String::from_utf8_lossy(data);
            let shown = vm::diag::render("fuzz.bc", &text, &diags);
            assert!(shown.contains("error:"), "rendered: {shown}");
        }
        Ok(module) => {
            for yieldpoints in [true, false] {
                let program = Program::load(module.clone(), yieldpoints);
                let _ = vm::disasm::disassemble(&program);
            }
            let printed = vm::printer::print(&module).expect("an assembled module prints");
            let again = match vm::verify::assemble("printed.bc", &printed) {
                Ok(m) => m,
                Err(d) => panic!(
                    "printed module does not assemble:\n{}\n--- printed:\n{printed}",
                    vm::diag::render("printed.bc", &printed, &d)
                ),
            };
            let reprinted = vm::printer::print(&again).expect("a reassembled module prints");
            assert_eq!(printed, reprinted, "printing is not a fixed point");
        }
    }
});
