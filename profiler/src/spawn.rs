//! The error of a VM service thread (the profiler's organizer, timer and
//! sampler threads, the adaptive controller's thread) that the operating
//! system refuses to start: an error, not a panic.
//!
//! A refused thread (`ulimit -v` too low for one more stack, the process
//! or user thread limit reached) is a failure of the VM's resources, not
//! of the program: [`StartError::refused`] turns it into an error that
//! travels up to the command line, which prints it as one line and exits
//! with status 70, the profile file removed rather than left empty
//! (docs/CLI.md, "Exit statuses"; docs/TESTING.md, "End-to-end tests").
//!
//! Threads the program itself spawns are the VM's business
//! (`runtime error: cannot start thread N`, vm/src/runtime.rs).

/// A service thread of the VM that the operating system would not start.
#[derive(Debug)]
pub struct StartError {
    /// Which thread: "the profiler's timer thread".
    pub what: &'static str,
    /// What the operating system said.
    pub source: std::io::Error,
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot start {}: {}", self.what, self.source)
    }
}

impl std::error::Error for StartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

impl StartError {
    /// What a failed [`std::thread::Builder::spawn`] of `what` becomes:
    /// `builder.spawn(body).map_err(StartError::refused("the profiler's
    /// timer thread"))`.
    pub fn refused(what: &'static str) -> impl FnOnce(std::io::Error) -> StartError {
        move |source| StartError { what, source }
    }
}

/// Starts the service thread `what` (named `name` for debuggers) running
/// `body`, or says why it could not: the system refused it, or (under
/// `ulimit -v`) too little address space is left for it to start without
/// the risk of an abort inside it (`vm::memory::address_space`).
pub fn start<T: Send + 'static>(
    what: &'static str,
    name: &str,
    body: impl FnOnce() -> T + Send + 'static,
) -> Result<std::thread::JoinHandle<T>, StartError> {
    if !vm::memory::address_space::room_for_a_thread() {
        return Err(StartError {
            what,
            source: std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                "too little address space left for its stack (ulimit -v)",
            ),
        });
    }
    std::thread::Builder::new()
        .name(name.into())
        .spawn(body)
        .map_err(StartError::refused(what))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::thread::Builder;

    #[test]
    fn a_stack_the_system_cannot_map_is_an_error_naming_the_thread() {
        // 1 EiB of stack: no system maps that much address space.
        let refused = Builder::new()
            .stack_size(1 << 60)
            .spawn(|| ())
            .map_err(StartError::refused("a test thread"));
        let e = refused.expect_err("no such stack");
        let line = e.to_string();
        assert!(line.starts_with("cannot start a test thread: "), "{line}");
        assert!(e.source.raw_os_error().is_some(), "{:?}", e.source);
    }
}
