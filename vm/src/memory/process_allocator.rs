//! The `vm` command's global allocator (installed by its `main.rs`; a
//! library module so that it is compiled optimized in every build, the
//! tests' included): the process's allocator
//! ([`SmallBlocksFirst`]: mimalloc for small blocks, the system's for
//! large ones) with an emergency
//! reserve, so that the operating system refusing memory (`ulimit -v`,
//! overcommit turned off) never aborts the process without a word.
//!
//! Rust's own answer to a refused allocation is to print `memory
//! allocation of N bytes failed` and abort (status 134): no trace, no
//! profile. Here, [`keep_reserve`] maps [`RESERVE`] bytes of address space
//! when the process starts (never touched, so they cost no resident
//! memory). On the first refusal the allocator unmaps them, notes the
//! refusal where the VM looks for it ([`crate::memory::note_system_refusal`])
//! and tries again, so the allocation goes through; the VM then stops the
//! program at its next safe point with the runtime error `out of memory:
//! the system refused N bytes ...` (status 70), its trace, and the profile
//! written out of the memory the reserve gave back. Should the system
//! refuse again once the reserve is spent, [`die`] prints one line with a
//! raw `write(2)`, removes the unfinished profile file, and exits with
//! status 70.
//!
//! An allocation the VM can do without (an array, a stack's growth, the
//! cell table; see [`crate::memory::fallibly`]) is simply refused: the VM
//! reports it where it happened, and the reserve stays for later.
//!
//! Some refusals end in an abort no process can turn back: glibc's
//! `Fatal glibc error: failed to register TLS destructor`, or Rust's
//! runtime failing to map a new thread's signal stack, both when a
//! thread starts with `ulimit -v` a few pages too low
//! (docs/TESTING.md). [`remove_profile_on_abort`] catches the SIGABRT
//! only to remove the unfinished profile and say so; the process still
//! dies of the signal.
//!
//! A cgroup memory limit is another matter: the kernel does not refuse the
//! allocation but kills the process (SIGKILL), which no process can catch;
//! `--max-heap` below the cgroup's limit is the defence there.
//!
//! Nothing here allocates or locks: the reserve and the profile's path
//! are atomics, the refusal path uses only system calls.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::{c_char, c_void, CString};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use super::small_blocks::SmallBlocksFirst;

/// Bytes of address space held back for the end of a run that meets the
/// system's limit (measured: docs/PERFORMANCE.md, "Memory"). Where the
/// system will not give that much at the start, the reserve is the
/// largest half of it down to [`MIN_RESERVE`] that it gives.
pub const RESERVE: usize = 16 << 20;

/// The smallest reserve worth holding.
const MIN_RESERVE: usize = 1 << 20;

/// The exit status of a run the system stopped (a runtime error's).
const STATUS: i32 = 70;

/// The reserve's mapping, null once given back (or never mapped).
static RESERVE_AT: AtomicPtr<c_void> = AtomicPtr::new(std::ptr::null_mut());

/// The reserve's size in bytes (set before [`RESERVE_AT`]).
static RESERVE_LEN: AtomicUsize = AtomicUsize::new(0);

/// The profile file being written (a leaked C string), null if none: the
/// file [`die`] removes, as it cannot be finished (the temporary file
/// beside the target, src/cli/output_file.rs).
static PROFILE: AtomicPtr<c_char> = AtomicPtr::new(std::ptr::null_mut());

/// The profile's name as the user gave it, for [`die`]'s line (a leaked C
/// string), null if none.
static PROFILE_SHOWN: AtomicPtr<c_char> = AtomicPtr::new(std::ptr::null_mut());

/// The process's allocator ([`SmallBlocksFirst`]), with the reserve's
/// second chance.
pub struct Guarded;

// SAFETY: every method forwards to `SmallBlocksFirst` with the caller's layout and
// pointer, and so upholds `GlobalAlloc`'s contract as `SmallBlocksFirst` does; the
// refusal path returns either a block `SmallBlocksFirst` gave for the same request,
// null (a refusal the caller handles), or does not return.
unsafe impl GlobalAlloc for Guarded {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout has a non-zero size, as `SmallBlocksFirst` needs.
        let p = unsafe { SmallBlocksFirst.alloc(layout) };
        if !p.is_null() {
            return p;
        }
        // SAFETY: the same request again.
        refused(layout.size(), || unsafe { SmallBlocksFirst.alloc(layout) })
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { SmallBlocksFirst.alloc_zeroed(layout) };
        if !p.is_null() {
            return p;
        }
        // SAFETY: the same request again.
        refused(layout.size(), || unsafe {
            SmallBlocksFirst.alloc_zeroed(layout)
        })
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `SmallBlocksFirst`,
        // with `layout`.
        unsafe { SmallBlocksFirst.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `SmallBlocksFirst` with `layout`; `new_size` is
        // valid as the caller guarantees.
        let p = unsafe { SmallBlocksFirst.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            return p;
        }
        // SAFETY: a failed `realloc` leaves the block as it was, so the
        // same request may be made again.
        refused(new_size, || unsafe {
            SmallBlocksFirst.realloc(ptr, layout, new_size)
        })
    }
}

/// The system refused `bytes`: fail if the caller handles it, else give
/// back the reserve and `retry`; if that fails too, [`die`].
#[cold]
#[inline(never)]
fn refused(bytes: usize, retry: impl FnOnce() -> *mut u8) -> *mut u8 {
    if crate::memory::in_fallible_allocation() {
        return std::ptr::null_mut();
    }
    crate::memory::note_system_refusal(bytes);
    give_back_reserve();
    // Retried even if another thread gave the reserve back a moment ago.
    let p = retry();
    if p.is_null() {
        die(bytes);
    }
    p
}

/// Maps the reserve (called first thing in `main`): [`RESERVE`] bytes,
/// or half as many as long as the system refuses, down to
/// [`MIN_RESERVE`]. Without one, a refusal goes straight to [`die`].
pub fn keep_reserve() {
    let mut len = RESERVE;
    while len >= MIN_RESERVE {
        // SAFETY: an anonymous private mapping at an address of the
        // kernel's choosing touches no existing memory.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p != libc::MAP_FAILED {
            RESERVE_LEN.store(len, Ordering::Release);
            RESERVE_AT.store(p, Ordering::Release);
            return;
        }
        len /= 2;
    }
}

/// Unmaps the reserve, once: true for the call that did.
fn give_back_reserve() -> bool {
    let p = RESERVE_AT.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if p.is_null() {
        return false;
    }
    // SAFETY: `p` is the reserve's mapping of `RESERVE_LEN` bytes, which
    // nothing uses and the swap above handed to this call alone.
    unsafe { libc::munmap(p, RESERVE_LEN.load(Ordering::Acquire)) };
    true
}

/// Is the reserve still held? (For tests.)
#[cfg(test)]
fn holds_reserve() -> bool {
    !RESERVE_AT.load(Ordering::Acquire).is_null()
}

/// The profile is about to be written to the file `file`, the target
/// `shown` once renamed: [`die`] removes `file` rather than leave it
/// unfinished, and names `shown`. `None` once it is complete.
pub fn writing_profile(file: Option<(&std::path::Path, &std::path::Path)>) {
    use std::os::unix::ffi::OsStrExt;
    let c_string = |p: &std::path::Path| {
        CString::new(p.as_os_str().as_bytes())
            .ok()
            .map_or(std::ptr::null_mut(), CString::into_raw)
    };
    if let Some((_, shown)) = file {
        // Never freed (a name per run): `die` may be reading the one
        // before.
        PROFILE_SHOWN.store(c_string(shown), Ordering::Release);
    }
    let old = PROFILE.swap(
        file.map_or(std::ptr::null_mut(), |f| c_string(f.0)),
        Ordering::AcqRel,
    );
    if !old.is_null() {
        // SAFETY: `old` came from `CString::into_raw` above and the swap
        // took it out of `PROFILE`, so nothing else holds it.
        drop(unsafe { CString::from_raw(old) });
    }
}

/// Catches SIGABRT (called first thing in `main`, after
/// [`keep_reserve`]): an abort removes the profile file being written, as
/// [`die`] does, then dies of the signal as it would have.
pub fn remove_profile_on_abort() {
    // SAFETY: a zeroed `sigaction` is a valid one (no flags, empty mask)
    // once its handler is set; installing it touches no memory of ours.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_abort as extern "C" fn(libc::c_int) as libc::sighandler_t;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut());
    }
}

/// The SIGABRT handler: removes the unfinished profile (one line on
/// stderr saying so), restores the default action and raises the signal
/// again, which ends the process once the handler returns. Only
/// async-signal-safe calls.
extern "C" fn on_abort(_: libc::c_int) {
    if !PROFILE.load(Ordering::Acquire).is_null() {
        write_stderr(b"vm: aborted");
        remove_unfinished_profile();
        write_stderr(b"\n");
    }
    // SAFETY: `signal` and `raise` are async-signal-safe; SIGABRT is
    // blocked while this handler runs, so the raised one is delivered, with
    // the default action, as it returns.
    unsafe {
        libc::signal(libc::SIGABRT, libc::SIG_DFL);
        libc::raise(libc::SIGABRT);
    }
}

/// The system refused `bytes` with no reserve left: one line on stderr,
/// the unfinished profile removed, status 70. Allocates nothing.
fn die(bytes: usize) -> ! {
    let mut digits = [0u8; 20];
    let n = decimal(bytes, &mut digits);
    write_stderr(b"vm: out of memory: the system refused ");
    write_stderr(&digits[..n]);
    write_stderr(b" bytes and the VM has no reserve left");
    remove_unfinished_profile();
    write_stderr(b" (raise `ulimit -v` or lower --max-heap)\n");
    // SAFETY: `_exit` ends the process at once; nothing runs after it.
    unsafe { libc::_exit(STATUS) }
}

/// Removes the profile file being written, if any, and continues the
/// line on stderr with `; the profile `FILE` was not written`. Only
/// system calls: for [`die`] and [`on_abort`].
fn remove_unfinished_profile() {
    let profile = PROFILE.swap(std::ptr::null_mut(), Ordering::AcqRel);
    if profile.is_null() {
        return;
    }
    // SAFETY: `profile` is a NUL-terminated string from
    // `CString::into_raw`, never freed while in `PROFILE`.
    unsafe { libc::unlink(profile) };
    write_stderr(b"; the profile `");
    let shown = PROFILE_SHOWN.load(Ordering::Acquire);
    let shown = if shown.is_null() { profile } else { shown };
    // SAFETY: as above (`PROFILE_SHOWN` is set with `PROFILE` and never
    // freed); `strlen` reads up to its NUL.
    let len = unsafe { libc::strlen(shown) };
    // SAFETY: `len` bytes from `shown` are the string's.
    write_stderr(unsafe { std::slice::from_raw_parts(shown.cast::<u8>(), len) });
    write_stderr(b"` was not written");
}

/// Writes `bytes` to stderr with `write(2)`, as far as it goes.
fn write_stderr(mut bytes: &[u8]) {
    while !bytes.is_empty() {
        // SAFETY: `bytes` is a valid slice for `bytes.len()` bytes.
        let n = unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

/// `n` in decimal into `buf`; the number of digits.
fn decimal(mut n: usize, buf: &mut [u8; 20]) -> usize {
    let mut tmp = [0u8; 20];
    let mut len = 0;
    loop {
        tmp[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for i in 0..len {
        buf[i] = tmp[len - 1 - i];
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_need_no_allocation() {
        let mut b = [0u8; 20];
        for n in [0usize, 7, 10, 65_536, usize::MAX] {
            let len = decimal(n, &mut b);
            assert_eq!(&b[..len], n.to_string().as_bytes());
        }
    }

    #[test]
    fn the_reserve_is_given_back_once() {
        keep_reserve();
        assert!(holds_reserve());
        assert!(give_back_reserve());
        assert!(!holds_reserve());
        assert!(!give_back_reserve());
    }
}
