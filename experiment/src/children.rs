//! The `vm` processes an experiment has running, so that an interrupted
//! experiment ends them rather than leave them running behind it.
//!
//! [`stop`] is what the command line's signal handler calls on the first
//! SIGINT, SIGTERM or SIGHUP (docs/CLI.md, "Signals and write errors"): no
//! run starts after it, and every running child is killed (SIGKILL: it
//! writes nothing more). The measurement waiting for that child then
//! fails, the experiment ends with that failure, and its scratch
//! directory is removed as after any failure.
//!
//! [`stop`] does only what a signal handler may: atomic loads and stores
//! and `kill(2)`. A child's process id is in the table from just after it
//! starts until it has exited, and taken out before the child is reaped
//! (the wait is [`waitid`]'s `WNOWAIT`), so that the id `stop` kills is
//! never one the system has given to another process since.
//!
//! [`waitid`]: libc::waitid

use std::process::{Child, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// Children running at once, at most: `--jobs` is at most 256.
const SLOTS: usize = 1024;

/// The running children's process ids (0: a free slot).
static RUNNING: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];

/// Set by [`stop`].
static STOPPED: AtomicBool = AtomicBool::new(false);

/// Stops the experiment: no run starts after this, and the running ones
/// are killed. Async-signal-safe.
pub fn stop() {
    STOPPED.store(true, Ordering::SeqCst);
    for slot in &RUNNING {
        let pid = slot.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: `kill` takes no memory of ours; `pid` is a child not
            // yet reaped (see the module's doc), so no other process.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Has [`stop`] been called?
pub fn stopped() -> bool {
    STOPPED.load(Ordering::SeqCst)
}

/// Waits for `child` to exit, killed if [`stop`] is called meanwhile,
/// and reaps it.
pub fn wait(child: &mut Child) -> std::io::Result<ExitStatus> {
    let pid = child.id() as i32;
    let slot = RUNNING.iter().position(|s| {
        s.compare_exchange(0, pid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    });
    // A stop that came before the child was in the table.
    if stopped() {
        let _ = child.kill();
    }
    if let Some(i) = slot {
        exited(pid);
        RUNNING[i].store(0, Ordering::SeqCst);
    }
    child.wait()
}

/// Blocks until process `pid` (a child) has exited, without reaping it.
fn exited(pid: i32) {
    loop {
        // SAFETY: a zeroed `siginfo_t` is a valid out-parameter, written
        // by the call; `pid` is our child.
        let r = unsafe {
            let mut info: libc::siginfo_t = std::mem::zeroed();
            libc::waitid(
                libc::P_PID,
                pid as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}
