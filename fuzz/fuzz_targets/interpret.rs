//! Fuzz target `interpret`: programs that pass the verifier, run under the
//! plain interpreter and under `--profile=cbs --clock=virtual --seed=N`.
//!
//! Inputs that do not assemble are dropped (the `assemble` target covers
//! them). An assembled program runs twice in this process: plain, and with
//! a cbs profiler on the virtual clock (seed, interval and record derived
//! from the input, so an input always replays the same way). The oracle:
//!
//! - no panic, no abort, no hang (libFuzzer's `-timeout` reports one);
//! - the profile the cbs run writes reads back with the reader of
//!   `vm compare`;
//! - for a program without `spawn`, both runs print the same output and
//!   end with the same status. Programs with threads are run but not
//!   compared: the order of their lines and of their global updates may
//!   legitimately differ between runs.
//!
//! Bounds, so that generated programs cannot take the machine:
//!
//! - time: a watchdog thread stops a run (`Vm::stop`, honoured at the next
//!   yieldpoint) once it has run [`BUDGET`] of wall time; a run it stopped
//!   is not compared, since where it stopped depends on speed;
//! - depth and threads: small `max_frames` and `max_threads`;
//! - memory: the target's global allocator refuses any allocation that
//!   would take the live Rust heap past [`HEAP_LIMIT`]. `newarray` reserves
//!   with `try_reserve`, so a huge array becomes a runtime error; any other
//!   refused allocation aborts, which libFuzzer reports as a crash (a
//!   program that can exhaust memory without a runtime error).
#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, Weak};
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use profile::Profile;
use profiler::config::{ClockKind, ProfileKind, ProfileOptions, RecordKind};
use profiler::session::{self, Beside};
use vm::loader::Program;
use vm::module::{Module, Op};
use vm::output::Output;
use vm::runtime::{Vm, VmOptions};

/// Wall time one run may take before the watchdog stops it.
const BUDGET: Duration = Duration::from_millis(10);

/// Largest live Rust heap (all threads) the target allows.
const HEAP_LIMIT: usize = 1 << 30;

/// Status the watchdog stops a run with (never compared).
const STOPPED: i32 = 124;

/// The system allocator, refusing what would exceed [`HEAP_LIMIT`].
struct Bounded;

static LIVE: AtomicUsize = AtomicUsize::new(0);

impl Bounded {
    fn reserve(size: usize) -> bool {
        let before = LIVE.fetch_add(size, Ordering::Relaxed);
        if before.saturating_add(size) > HEAP_LIMIT {
            LIVE.fetch_sub(size, Ordering::Relaxed);
            return false;
        }
        true
    }
}

// SAFETY: every call is forwarded to `System` with the caller's layout; the
// only addition is a counter, and a refusal is a null pointer, which the
// `GlobalAlloc` contract allows.
unsafe impl GlobalAlloc for Bounded {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !Self::reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = System.alloc(layout);
        if p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !Self::reserve(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = System.alloc_zeroed(layout);
        if p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !Self::reserve(new_size - old) {
            return std::ptr::null_mut();
        }
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() {
            if new_size > old {
                LIVE.fetch_sub(new_size - old, Ordering::Relaxed);
            }
        } else if new_size < old {
            LIVE.fetch_sub(old - new_size, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Bounded = Bounded;

/// The run the watchdog guards: the VM, when it must stop, and whether it
/// stopped it.
struct Watch {
    vm: Option<Weak<Vm>>,
    deadline: Option<Instant>,
    fired: bool,
}

static WATCH: Mutex<Watch> = Mutex::new(Watch {
    vm: None,
    deadline: None,
    fired: false,
});

/// Starts (once) the watchdog thread: every millisecond it stops the
/// guarded VM if its deadline has passed.
fn start_watchdog() {
    static START: Once = Once::new();
    START.call_once(|| {
        std::thread::Builder::new()
            .name("fuzz-watchdog".into())
            .spawn(|| loop {
                std::thread::sleep(Duration::from_millis(1));
                let mut w = WATCH.lock().unwrap();
                let due = w.deadline.is_some_and(|d| Instant::now() >= d);
                if due && !w.fired {
                    w.fired = true;
                    if let Some(vm) = w.vm.as_ref().and_then(Weak::upgrade) {
                        vm.stop(STOPPED);
                    }
                }
            })
            .expect("watchdog thread");
    });
}

/// Guards `vm` for [`BUDGET`] from now.
fn arm(vm: &Arc<Vm>) {
    let mut w = WATCH.lock().unwrap();
    w.vm = Some(Arc::downgrade(vm));
    w.deadline = Some(Instant::now() + BUDGET);
    w.fired = false;
}

/// Stops guarding; true if the watchdog stopped the run.
fn disarm() -> bool {
    let mut w = WATCH.lock().unwrap();
    w.vm = None;
    w.deadline = None;
    std::mem::take(&mut w.fired)
}

/// FNV-1a of the input: the seed and choices of the profiled run.
fn hash(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The watchdog's guard over one run: armed when the run starts; its
/// report says whether the watchdog stopped the run.
struct Guard;

impl Beside for Guard {
    type Report = bool;
    fn stop(self) -> bool {
        disarm()
    }
}

/// What a run printed and its status; `None` if the watchdog stopped it.
fn run(module: Module, profile: Option<ProfileOptions>, seed: u64) -> Option<(Vec<u8>, i32)> {
    let config = profile
        .unwrap_or_default()
        .resolve(seed)
        .expect("a valid cbs configuration");
    let (output, printed) = Output::capture();
    let options = VmOptions {
        max_frames: 64,
        max_threads: 8,
        max_heap: 256 << 20,
        output,
        ..VmOptions::default()
    };
    let ran = session::run(
        Program::load(module, true),
        options,
        config,
        "fuzz.bc",
        |vm, _| {
            arm(vm);
            Guard
        },
    );
    if let Some(finished) = ran.profile {
        let mut json = Vec::new();
        finished.write_json(&mut json).expect("writes to memory");
        let text = String::from_utf8(json).expect("the profile is UTF-8");
        if let Err(e) = Profile::from_json(&text) {
            panic!("the profile written does not read back: {e:?}\n{text}");
        }
    }
    let out = printed.lock().clone();
    (!ran.beside).then_some((out, ran.outcome.status))
}

fuzz_target!(|data: &[u8]| {
    start_watchdog();
    let Ok(module) = vm::verify::assemble_bytes("fuzz.bc", data) else {
        return;
    };
    let threads = module
        .methods
        .iter()
        .any(|m| m.code.iter().any(|i| matches!(i.op, Op::Spawn(_))));
    let h = hash(data);
    let records = [
        RecordKind::Dcg,
        RecordKind::Cct,
        RecordKind::Pcct,
        RecordKind::Acct,
        RecordKind::Ccmap,
    ];
    let cbs = ProfileOptions {
        profile: Some(ProfileKind::Cbs),
        clock: Some(ClockKind::Virtual),
        seed: Some(h >> 11),
        // 10 µs of virtual time: even a short program is sampled.
        interval_ns: Some(10_000),
        record: Some(vec![records[(h % records.len() as u64) as usize]]),
        ..ProfileOptions::default()
    };
    let plain = run(module.clone(), None, 0);
    let profiled = run(module, Some(cbs), h >> 11);
    if threads {
        return;
    }
    if let (Some((out_a, status_a)), Some((out_b, status_b))) = (plain, profiled) {
        assert_eq!(
            (String::from_utf8_lossy(&out_a), status_a),
            (String::from_utf8_lossy(&out_b), status_b),
            "plain run (left) and cbs run on the virtual clock (right) differ"
        );
    }
});
