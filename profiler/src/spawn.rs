//! Starting the VM's own service threads (the profiler's organizer, timer
//! and sampler threads, the adaptive controller's thread) without a
//! panic when the operating system refuses a thread.
//!
//! A refused thread (`ulimit -v` too low for one more stack, the process
//! or user thread limit reached) is a failure of the VM's resources, not
//! of the program: [`spawn_service`] turns it into a [`StartError`] that
//! travels up to the command line, which prints it as one line and exits
//! with status 70, the profile file removed rather than left empty
//! (docs/CLI.md, "Exit statuses"; docs/TESTING.md, "Memory").
//!
//! Threads the program itself spawns are the VM's business
//! (`runtime error: cannot start thread N`, vm/src/runtime.rs).

use std::thread::{Builder, JoinHandle};

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

/// Starts `body` on a thread named `name` (as debuggers and `top -H` show
/// it); `what` says which thread it is in the error, should the system
/// refuse it.
pub fn spawn_service<T, F>(
    name: &str,
    what: &'static str,
    body: F,
) -> Result<JoinHandle<T>, StartError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    spawn_with(Builder::new().name(name.to_string()), what, body)
}

/// [`spawn_service`] with the thread's `builder` given.
fn spawn_with<T, F>(
    builder: Builder,
    what: &'static str,
    body: F,
) -> Result<JoinHandle<T>, StartError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    builder
        .spawn(body)
        .map_err(|source| StartError { what, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_started_thread_runs_and_is_joined() {
        let h = spawn_service("vm-test", "a test thread", || 6 * 7).expect("starts");
        assert_eq!(h.thread().name(), Some("vm-test"));
        assert_eq!(h.join().ok(), Some(42));
    }

    #[test]
    fn a_stack_the_system_cannot_map_is_an_error_naming_the_thread() {
        // 1 EiB of stack: no system maps that much address space.
        let refused = spawn_with(Builder::new().stack_size(1 << 60), "a test thread", || ());
        let e = refused.expect_err("no such stack");
        let line = e.to_string();
        assert!(line.starts_with("cannot start a test thread: "), "{line}");
        assert!(e.source.raw_os_error().is_some(), "{:?}", e.source);
    }
}
