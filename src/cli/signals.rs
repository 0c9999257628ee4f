//! SIGINT, SIGTERM and SIGHUP (docs/CLI.md, "Signals and write errors").
//!
//! The first signal, while a command runs programs (`vm run`, `vm inline`
//! and `vm experiment` call [`finish_on_signal`] when they start them),
//! asks the program to stop at its next yieldpoint
//! ([`vm::interrupt::request`]; the VM's waiting thread serves it) and the
//! experiment's child processes to end ([`experiment::children::stop`]).
//! The command then writes what it has (the profile of what ran, marked
//! `run.interrupted`) and ends with status 128 + the signal's number. At
//! any other moment the first signal ends the command at once.
//!
//! Ending at once, as a second signal always does, removes the files
//! being written ([`Removal`]: the temporary files beside their targets,
//! an experiment's scratch directory) and exits with 128 + the signal:
//! nothing partial is left, and the targets are as they were.
//!
//! The handler does only what a signal handler may: atomic loads and
//! stores, `kill`, `unlink`, `rmdir`, `getdents64`, `_exit`. The paths to
//! remove are C strings in a fixed table of atomic slots.

use std::ffi::{c_char, CString};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, Ordering};

/// The signals caught.
const CAUGHT: [libc::c_int; 3] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP];

/// The first signal received, 0 before.
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// Does the first signal let the command finish ([`finish_on_signal`])?
static FINISH: AtomicBool = AtomicBool::new(false);

/// Files and directories being written that an exit at once removes.
const SLOTS: usize = 16;
static FILES: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
static DIRS: [AtomicPtr<c_char>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];

/// Installs the handler of SIGINT, SIGTERM and SIGHUP (first thing in
/// `main`). A signal the process ignores (`nohup` ignores SIGHUP) stays
/// ignored.
pub fn install() {
    for sig in CAUGHT {
        // SAFETY: a zeroed `sigaction` is a valid one once its handler is
        // set; the calls read and write only the structs given.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) == 0
                && old.sa_sigaction == libc::SIG_IGN
            {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(sig, &action, std::ptr::null_mut());
        }
    }
}

/// From now on the first signal stops the program and lets the command
/// finish (see the module's doc), instead of ending it at once.
pub fn finish_on_signal() {
    FINISH.store(true, Ordering::SeqCst);
}

/// The first signal received, if any.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// The handler.
extern "C" fn on_signal(sig: libc::c_int) {
    let first = RECEIVED
        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    if first && FINISH.load(Ordering::SeqCst) {
        vm::interrupt::request(sig);
        experiment::children::stop();
        return;
    }
    exit_now(sig);
}

/// Ends the process at once: the experiment's children killed, the files
/// and directories being written removed, status 128 + `sig`.
fn exit_now(sig: libc::c_int) -> ! {
    experiment::children::stop();
    for slot in &FILES {
        let path = slot.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !path.is_null() {
            // SAFETY: `path` is a NUL-terminated string from
            // `CString::into_raw`, which the swap took out of the table.
            unsafe { libc::unlink(path) };
        }
    }
    for slot in &DIRS {
        let path = slot.swap(std::ptr::null_mut(), Ordering::SeqCst);
        if !path.is_null() {
            remove_dir(path);
        }
    }
    // SAFETY: `_exit` ends the process at once; nothing runs after it.
    unsafe { libc::_exit(128 + sig) }
}

/// Removes the directory `path` and the files in it (its children
/// killed a moment ago may still be creating one: a few tries).
fn remove_dir(path: *const c_char) {
    for _ in 0..5 {
        remove_files_in(path);
        // SAFETY: `path` is a NUL-terminated string (see `exit_now`).
        if unsafe { libc::rmdir(path) } == 0 {
            return;
        }
    }
}

/// Unlinks the files of directory `path`, reading it with `getdents64`
/// (`readdir` may allocate, which a signal handler must not).
#[cfg(target_os = "linux")]
fn remove_files_in(path: *const c_char) {
    // SAFETY: `path` is a NUL-terminated string; the directory's entries
    // are read into `buf`, each `linux_dirent64` record (inode 8 bytes,
    // offset 8, record length 2, type 1, then the NUL-terminated name)
    // lying within the bytes the call says it wrote.
    unsafe {
        let fd = libc::open(path, libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC);
        if fd < 0 {
            return;
        }
        let mut buf = [0u8; 4096];
        loop {
            let n = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len());
            if n <= 0 {
                break;
            }
            let mut at = 0usize;
            while at + 19 < n as usize {
                let len = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
                let name = buf.as_ptr().add(at + 19).cast::<c_char>();
                let dot = *name == b'.' as c_char;
                let dots = dot
                    && (*name.add(1) == 0 || (*name.add(1) == b'.' as c_char && *name.add(2) == 0));
                if !dots {
                    libc::unlinkat(fd, name, 0);
                }
                if len == 0 {
                    break;
                }
                at += len;
            }
        }
        libc::close(fd);
    }
}

/// Elsewhere the directory is removed only if it is empty.
#[cfg(not(target_os = "linux"))]
fn remove_files_in(_: *const c_char) {}

/// A file or directory being written, removed if the process ends at
/// once (a second signal) before this is dropped. Dropping it only takes
/// it out of the table.
pub struct Removal {
    table: &'static [AtomicPtr<c_char>; SLOTS],
    slot: Option<usize>,
}

impl Removal {
    /// A file being written.
    pub fn file(path: &Path) -> Removal {
        Removal::put(&FILES, path)
    }

    /// A scratch directory of files.
    pub fn dir(path: &Path) -> Removal {
        Removal::put(&DIRS, path)
    }

    fn put(table: &'static [AtomicPtr<c_char>; SLOTS], path: &Path) -> Removal {
        use std::os::unix::ffi::OsStrExt;
        let slot = CString::new(path.as_os_str().as_bytes())
            .ok()
            .and_then(|c| {
                let raw = c.into_raw();
                let slot = table.iter().position(|s| {
                    s.compare_exchange(
                        std::ptr::null_mut(),
                        raw,
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    )
                    .is_ok()
                });
                if slot.is_none() {
                    // SAFETY: `raw` came from `into_raw` above, not stored.
                    drop(unsafe { CString::from_raw(raw) });
                }
                slot
            });
        Removal { table, slot }
    }
}

impl Drop for Removal {
    fn drop(&mut self) {
        if let Some(i) = self.slot {
            let raw = self.table[i].swap(std::ptr::null_mut(), Ordering::SeqCst);
            if !raw.is_null() {
                // SAFETY: `raw` came from `CString::into_raw` in `put`, and
                // the swap took it out of the table.
                drop(unsafe { CString::from_raw(raw) });
            }
        }
    }
}
