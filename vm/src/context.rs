//! What an interpreter may use of the VM it runs in: a narrow context
//! rather than the whole [`Vm`](crate::runtime::Vm).
//!
//! An interpreter ([`crate::interp`]) needs the program, the state its
//! thread shares with the others (globals, output, the memory budget, the
//! thread registry, the safepoint state, the simulated machine's
//! scheduler) and two things only the runtime can do: start a thread
//! (`spawn`) and say whether the program is stopping. The runtime hands
//! each interpreter a [`VmContext`] with references to the first and a
//! [`Runtime`] for the second, so the interpreter does not name the `Vm`
//! and the VM core's modules form a chain without a circle
//! (docs/ARCHITECTURE.md, "The VM core's layers").

use std::sync::atomic::AtomicI64;
use std::sync::Arc;

use crate::error::RuntimeError;
use crate::loader::Program;
use crate::memory::MemoryBudget;
use crate::module::MethodId;
use crate::output::Output;
use crate::safepoint::SafepointState;
use crate::schedule::Scheduler;
use crate::thread::{SharedValue, ThreadRegistry};

/// What only the runtime can do for an interpreter.
pub(crate) trait Runtime: Sync {
    /// Starts a thread running `method` with `args`; its id, or why it
    /// could not start. `spawner` is the spawning thread's id and cycle
    /// count (its virtual time on a simulated machine).
    fn spawn(
        &self,
        method: MethodId,
        args: Vec<SharedValue>,
        spawner: (u32, u64),
    ) -> Result<u32, RuntimeError>;

    /// Is the program stopping (runtime error or `halt`)?
    fn is_stopping(&self) -> bool;
}

/// An interpreter's view of its VM (see the module docs).
pub(crate) struct VmContext<'vm> {
    /// The program.
    pub program: &'vm Program,
    /// Frame limit per thread (`--max-frames`).
    pub max_frames: usize,
    /// The virtual clock's tick period, in cycles, if the run has one.
    pub virtual_tick: Option<u64>,
    /// Seeds the phase of each thread's first tick ([`crate::hooks::ExecMode::tick_seed`]).
    pub tick_seed: u64,
    /// The memory budget every thread's heap and frames take from.
    pub memory: &'vm Arc<MemoryBudget>,
    /// Global integers.
    pub globals: &'vm [AtomicI64],
    /// Program output.
    pub output: &'vm Output,
    /// Every thread that ever started.
    pub threads: &'vm ThreadRegistry,
    /// The safepoint protocol's state.
    pub safepoints: &'vm SafepointState,
    /// The simulated machine's scheduler, if any.
    pub sched: Option<&'vm Scheduler>,
    /// Starting threads, and whether the program stops.
    pub runtime: &'vm dyn Runtime,
}

impl VmContext<'_> {
    /// See [`Runtime::spawn`].
    pub(crate) fn spawn(
        &self,
        method: MethodId,
        args: Vec<SharedValue>,
        spawner: (u32, u64),
    ) -> Result<u32, RuntimeError> {
        self.runtime.spawn(method, args, spawner)
    }

    /// See [`Runtime::is_stopping`].
    pub(crate) fn is_stopping(&self) -> bool {
        self.runtime.is_stopping()
    }
}
