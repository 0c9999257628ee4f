//! `vm run PROG.bc [OPTIONS]`.

use vm::loader::Program;
use vm::runtime::{Vm, VmOptions};

use super::args::RunArgs;
use super::{load_module, Failure};

pub fn run(a: RunArgs) -> Result<i32, Failure> {
    let module = load_module(&a.program)?;
    let mut globals = Vec::new();
    for (name, value) in &a.set {
        match module.globals.iter().position(|g| g == name) {
            Some(g) => globals.push((g as u32, *value)),
            None => {
                return Err(Failure::usage(format!(
                    "vm: --set {name}={value}: the program has no global `{name}`"
                )))
            }
        }
    }
    let program = Program::load(module, !a.no_yieldpoints);
    let vm = Vm::new(
        program,
        VmOptions {
            max_frames: a.max_frames as usize,
            globals,
            ..VmOptions::default()
        },
    );
    let outcome = vm.run();
    if a.stats {
        eprintln!("{}", stats_line(&outcome));
    }
    Ok(outcome.status)
}

/// `--stats`: one line a script can parse.
fn stats_line(o: &vm::runtime::RunOutcome) -> String {
    let rss = peak_rss_kb().map_or("unknown".to_string(), |kb| kb.to_string());
    format!(
        "vm: stats: wall-ms {:.1} threads {} gc {} peak-rss-kb {}",
        o.wall_ns as f64 / 1e6,
        o.threads,
        o.collections,
        rss
    )
}

/// The process's peak resident set size, as the kernel reports it.
fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
