//! The machine a measurement ran on: cores and CPU model, for the CSV
//! header.

/// Cores the process may use (`available_parallelism`).
pub fn cores() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

/// The CPU model: the first `model name` line of `/proc/cpuinfo`, or
/// `unknown`.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// The header comment: `# machine: cores=N cpu=MODEL`.
pub fn describe() -> String {
    format!("cores={} cpu={}", cores(), cpu_model())
}
