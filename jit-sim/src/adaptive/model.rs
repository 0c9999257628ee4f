//! The controller's cost-benefit model (Whaley 2000, section 1; the model
//! of Jikes RVM's controller).
//!
//! For a method `m` the controller may recompile with inlining:
//!
//! - **past time** of a callee `c`: its share of the method samples times
//!   the time elapsed, `T(c) = elapsed * self(c) / samples`;
//! - **future time = past time**: Whaley's (and Jikes RVM's) assumption
//!   that a program will run about as long again as it has run, so the time
//!   `c` will take through an edge `m -> c` is `T(c) * w(m -> c) / calls(c)`
//!   (the edge's share of the sampled calls into `c`);
//! - **speedup of an inlined edge**, from the cost model (the cycles of
//!   [`vm::opcode::Opcode::cost`], the virtual clock's): a call costs `O`
//!   cycles of overhead that inlining removes (the `call` or `callvirt`,
//!   the `ret`, the two yieldpoints, less the stores of the arguments and
//!   the jump that replace them, and the guard of a virtual call), on top
//!   of the callee's own `B` cycles (the sum of its instructions' costs),
//!   so a share `O / (O + B)` of the time spent through that edge is saved;
//! - **benefit** of recompiling `m`: the future time saved over the edges
//!   the inlining policy would inline in `m`;
//! - **cost**: compile time proportional to the size of the code produced
//!   (`m` with its callees inlined, nested inlines included: the controller
//!   runs the bytecode inliner to know it, which is cheap here where a real
//!   JIT would estimate it), [`Model::compile_ns_per_instr`] per
//!   instruction;
//! - recompile when the benefit exceeds the cost.
//!
//! Everything is a plain function of the profile and the program, so a
//! decision can be explained line by line (and is, by `--print-compilation`).

use vm::module::{MethodId, Module};
use vm::opcode::Opcode;

/// Cycles of the cost model charged for a yieldpoint's fast path (the
/// translator's `YIELD_COST`: a prologue and an epilogue per call).
const YIELDPOINT_CYCLES: u32 = 1;

/// The constants of the model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// Estimated compile time per instruction of the code produced, in ns.
    pub compile_ns_per_instr: f64,
    /// Method samples the profile must hold before any decision (fewer say
    /// too little about where time goes).
    pub min_samples: u64,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            // Measured: the inliner, verifier and loader take well under
            // 1 us per instruction on the example programs (see
            // docs/ADAPTIVE.md); 1 us keeps the controller conservative.
            compile_ns_per_instr: 1000.0,
            // A sample buffer reaches the organizer when full (512
            // entries, some 30 method samples with cbs defaults): decide
            // from the first one.
            min_samples: 16,
        }
    }
}

/// One edge the policy would inline into the method being considered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InlinedEdge {
    /// The callee.
    pub callee: MethodId,
    /// The edge's weight (samples).
    pub weight: u64,
    /// Whether the call is a `callvirt` (guarded inline).
    pub virtual_call: bool,
}

/// What the model says about recompiling one method.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Past time of the method's inlined callees through these edges, ns.
    pub time_ns: f64,
    /// Expected time saved in the future, ns.
    pub benefit_ns: f64,
    /// Expected compile time, ns.
    pub cost_ns: f64,
    /// Size of the recompiled code, instructions.
    pub size: usize,
}

impl Estimate {
    /// Should the method be recompiled?
    pub fn worth_it(&self) -> bool {
        self.benefit_ns > self.cost_ns
    }
}

/// Cycles one call of `callee` spends on the call itself, which inlining
/// removes (at least 1).
pub fn call_overhead_cycles(module: &Module, callee: MethodId, virtual_call: bool) -> u32 {
    let params = module.methods[callee as usize].arity();
    let call = if virtual_call {
        Opcode::CallVirt.cost()
    } else {
        Opcode::Call.cost()
    };
    let removed = call + Opcode::Ret.cost() + 2 * YIELDPOINT_CYCLES;
    // Each argument is stored into a local, `ret` becomes a jump; a guard
    // is `dup; isclass C; jz`.
    let mut added = params * Opcode::Store.cost() + Opcode::Jmp.cost();
    if virtual_call {
        added += Opcode::Dup.cost() + Opcode::IsClass.cost() + Opcode::Jz.cost();
    }
    removed.saturating_sub(added).max(1)
}

/// Cycles of the method's own instructions, each counted once.
pub fn body_cycles(module: &Module, method: MethodId) -> u32 {
    module.methods[method as usize]
        .code
        .iter()
        .map(|i| i.op.opcode().cost())
        .sum()
}

impl Model {
    /// The estimate for recompiling a method into `size` instructions with
    /// `edges` inlined at its own call sites, given per-method samples on
    /// top (`self_samples`), sampled calls into each method (`calls`) and
    /// the time elapsed so far.
    pub fn estimate(
        &self,
        module: &Module,
        size: usize,
        edges: &[InlinedEdge],
        self_samples: &[u64],
        calls: &[u64],
        elapsed_ns: f64,
    ) -> Estimate {
        let samples: u64 = self_samples.iter().sum();
        let mut time_ns = 0.0;
        let mut benefit_ns = 0.0;
        for e in edges {
            let c = e.callee as usize;
            if samples == 0 || calls[c] == 0 {
                continue;
            }
            let past = elapsed_ns * self_samples[c] as f64 / samples as f64;
            let through_edge = past * (e.weight.min(calls[c]) as f64 / calls[c] as f64);
            let o = f64::from(call_overhead_cycles(module, e.callee, e.virtual_call));
            let b = f64::from(body_cycles(module, e.callee));
            time_ns += through_edge;
            // Future time = past time: the same time again, a share
            // O / (O + B) of it saved.
            benefit_ns += through_edge * o / (o + b);
        }
        Estimate {
            time_ns,
            benefit_ns,
            cost_ns: self.compile_ns_per_instr * size as f64,
            size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vm::verify::assemble;

    const PROGRAM: &str = "\
.method main()
  push 1
  call get
  print
  push 0
  ret
.end
.method get(x)
  load x
  ret
.end
";

    fn module() -> Module {
        assemble("t.bc", PROGRAM).expect("assembles")
    }

    #[test]
    fn overhead_is_the_call_sequence_less_what_replaces_it() {
        let m = module();
        // call 10 + ret 5 + two yieldpoints 2 = 17; minus one store (1)
        // and the jump (1).
        assert_eq!(call_overhead_cycles(&m, 1, false), 15);
        // callvirt 14 + 5 + 2 = 21; minus store, jmp and the guard
        // (dup 1, isclass 2, jz 1).
        assert_eq!(call_overhead_cycles(&m, 1, true), 21 - 2 - 4);
        assert_eq!(body_cycles(&m, 1), 1 + 5);
    }

    #[test]
    fn benefit_is_the_saved_share_of_the_callee_time_through_the_edge() {
        let m = module();
        let model = Model::default();
        // 1 ms elapsed; `get` has half of the 100 samples, and all of its
        // sampled calls come through the edge: 0.5 ms through it, of which
        // 15 / (15 + 6) is call overhead.
        let e = model.estimate(
            &m,
            7,
            &[InlinedEdge {
                callee: 1,
                weight: 40,
                virtual_call: false,
            }],
            &[50, 50],
            &[0, 40],
            1e6,
        );
        assert!((e.time_ns - 5e5).abs() < 1e-6);
        assert!((e.benefit_ns - 5e5 * 15.0 / 21.0).abs() < 1e-6);
        assert_eq!(e.size, 7);
        assert!((e.cost_ns - 7000.0).abs() < 1e-9);
        assert!(e.worth_it());
        // A quarter of the calls through this edge: a quarter of the time.
        let q = model.estimate(
            &m,
            7,
            &[InlinedEdge {
                callee: 1,
                weight: 10,
                virtual_call: false,
            }],
            &[50, 50],
            &[0, 40],
            1e6,
        );
        assert!((q.time_ns - 1.25e5).abs() < 1e-6);
    }

    #[test]
    fn nothing_elapsed_is_not_worth_a_compile() {
        let m = module();
        let e = Model::default().estimate(
            &m,
            7,
            &[InlinedEdge {
                callee: 1,
                weight: 1,
                virtual_call: false,
            }],
            &[0, 0],
            &[0, 0],
            0.0,
        );
        assert_eq!(e.benefit_ns, 0.0);
        assert!(!e.worth_it());
    }
}
