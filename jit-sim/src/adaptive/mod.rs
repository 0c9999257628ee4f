//! The adaptive controller (`vm run --adaptive`): recompiles hot methods
//! with profile-directed inlining while the program runs.
//!
//! This is the *controller* of Jikes RVM's adaptive optimization system
//! (Arnold et al.; its roles are kept apart here as there): the profiler's
//! listeners take samples and its organizer folds them into the dynamic
//! call graph; the controller, a thread of its own, wakes every
//! [`AdaptiveOptions::period`], reads a copy of that live graph
//! ([`Profiler::live_dcg`]), and decides:
//!
//! 1. what the `linear` inlining policy ([`crate::policy`], Arnold & Grove
//!    2005 section 5.1) would inline, given the profile so far;
//! 2. for each method with edges to inline, whether recompiling it pays:
//!    Whaley's cost-benefit model ([`model`]: future time equals past time,
//!    compile cost proportional to size);
//! 3. if so, it inlines ([`crate::inline`]), loads the method's new code and
//!    installs it ([`vm::install`]): each thread switches to it for *new*
//!    invocations at its next yieldpoint, while invocations already running
//!    finish in the old code. There is no on-stack replacement, so a method
//!    that is never called again (`main`) cannot profit and is not
//!    considered.
//!
//! Each method is recompiled at most once. What was decided, when and why
//! is kept in a [`Compilation`] log, printed with `--print-compilation` in
//! the spirit of HotSpot's `-XX:+PrintCompilation`.

pub mod model;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam::channel::{bounded, RecvTimeoutError, Sender};
use profiler::dcg::DynamicCallGraph;
use profiler::Profiler;
use vm::module::{MethodId, Module, Op};
use vm::runtime::Vm;

use crate::inline::{self, Target};
use crate::policy::{self, EdgeWeights, PolicyKind, SiteDecision, Thresholds};
pub use model::{Estimate, InlinedEdge, Model};

/// How the controller works.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdaptiveOptions {
    /// The inlining thresholds of the `linear` policy it applies.
    pub thresholds: Thresholds,
    /// The cost-benefit model.
    pub model: Model,
    /// How often the controller reads the profile.
    pub period: Duration,
}

impl Default for AdaptiveOptions {
    fn default() -> Self {
        AdaptiveOptions {
            thresholds: Thresholds::default(),
            model: Model::default(),
            period: Duration::from_millis(10),
        }
    }
}

/// One recompilation: what, when, why, and what it cost.
#[derive(Clone, Debug)]
pub struct Compilation {
    /// Order of the decision (1, 2, ...).
    pub number: usize,
    /// Time since the program started, when it was decided.
    pub at: Duration,
    /// The method recompiled.
    pub method: MethodId,
    /// Its display name.
    pub name: String,
    /// The model's figures.
    pub estimate: Estimate,
    /// The edges inlined at the method's own call sites, as
    /// `@LINE callee` (guarded ones marked).
    pub inlined: Vec<String>,
    /// Instructions before and after.
    pub size: (usize, usize),
    /// Time the inlining, verification and loading took.
    pub compile_time: Duration,
    /// Whether the code was installed (else why not).
    pub installed: Result<(), String>,
}

impl Compilation {
    /// One line in the spirit of `-XX:+PrintCompilation`.
    pub fn line(&self) -> String {
        let ms = |ns: f64| ns / 1e6;
        let mut s = format!(
            "{:>9.1}ms {:>3}  {} ({} -> {} instrs)  benefit {:.3}ms > cost {:.3}ms  inlines {}",
            self.at.as_secs_f64() * 1e3,
            self.number,
            self.name,
            self.size.0,
            self.size.1,
            ms(self.estimate.benefit_ns),
            ms(self.estimate.cost_ns),
            self.inlined.join(", "),
        );
        match &self.installed {
            Ok(()) => {
                let _ = write!(
                    s,
                    "  [compiled in {:.3}ms]",
                    self.compile_time.as_secs_f64() * 1e3
                );
            }
            Err(why) => {
                let _ = write!(s, "  [not installed: {why}]");
            }
        }
        s
    }
}

/// A method the controller looked at last and did not recompile.
#[derive(Clone, Debug)]
pub struct Declined {
    /// The method's display name.
    pub name: String,
    /// Why (with the model's figures where it applies).
    pub reason: String,
}

/// What the controller did over a run.
#[derive(Clone, Debug, Default)]
pub struct AdaptiveReport {
    /// Recompilations in order.
    pub compilations: Vec<Compilation>,
    /// Methods with something to inline that were, at the last look, not
    /// worth recompiling.
    pub declined: Vec<Declined>,
    /// How many times the controller read the profile.
    pub looks: u64,
}

impl AdaptiveReport {
    /// The whole log: one line per compilation, then the [`summary`].
    ///
    /// [`summary`]: AdaptiveReport::summary
    pub fn text(&self) -> String {
        let mut s = String::new();
        for c in &self.compilations {
            let _ = writeln!(s, "vm: adaptive: {}", c.line());
        }
        s + &self.summary()
    }

    /// What was declined, and the totals.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        for d in &self.declined {
            let _ = writeln!(s, "vm: adaptive: not recompiled: {}: {}", d.name, d.reason);
        }
        let _ = writeln!(
            s,
            "vm: adaptive: {} recompiled, {} profile reads",
            self.compilations.len(),
            self.looks
        );
        s
    }
}

/// The running controller thread.
pub struct AdaptiveController {
    stop: Sender<()>,
    handle: std::thread::JoinHandle<AdaptiveReport>,
}

impl AdaptiveController {
    /// Starts the controller for `vm`, reading `profiler`'s live profile.
    /// With `print`, each compilation is printed on stderr as it happens.
    pub fn start(
        vm: &Arc<Vm>,
        profiler: &Arc<Profiler>,
        options: AdaptiveOptions,
        print: bool,
    ) -> AdaptiveController {
        let (stop, stopped) = bounded::<()>(1);
        let vm = Arc::clone(vm);
        let profiler = Arc::clone(profiler);
        let handle = std::thread::Builder::new()
            .name("vm-controller".into())
            .spawn(move || {
                let start = Instant::now();
                let mut c = Controller::new(&vm, options, print);
                // Wake every period until told to stop (or the VM is gone).
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(options.period) {
                    let Some(dcg) = profiler.live_dcg() else {
                        break;
                    };
                    c.look(&dcg, start.elapsed());
                }
                c.report
            })
            .expect("spawn the controller thread");
        AdaptiveController { stop, handle }
    }

    /// Stops the controller (the program has ended) and returns its report.
    pub fn finish(self) -> AdaptiveReport {
        let _ = self.stop.send(());
        self.handle.join().unwrap_or_default()
    }
}

/// The controller's state between looks.
struct Controller<'a> {
    vm: &'a Vm,
    module: &'a Module,
    options: AdaptiveOptions,
    print: bool,
    report: AdaptiveReport,
}

impl<'a> Controller<'a> {
    fn new(vm: &'a Vm, options: AdaptiveOptions, print: bool) -> Self {
        Controller {
            vm,
            module: &vm.program.module,
            options,
            print,
            report: AdaptiveReport::default(),
        }
    }

    /// One look at the profile: decide, and recompile what pays.
    fn look(&mut self, dcg: &DynamicCallGraph, elapsed: Duration) {
        self.report.looks += 1;
        let samples: u64 = dcg.self_.iter().sum();
        if samples < self.options.model.min_samples {
            return;
        }
        let weights = EdgeWeights::from_dcg(self.module, dcg);
        let t = &self.options.thresholds;
        // The linear policy's verdicts, less direct recursion: inlining a
        // method into itself only unrolls the recursion, multiplying the
        // code (two recursive sites, five levels: 2^5 copies) and the
        // locals every call must clear, for little gain.
        let verdicts: Vec<SiteDecision> =
            policy::decide(PolicyKind::Linear, self.module, &weights, t)
                .into_iter()
                .filter(|v| v.inline() && v.callee != Some(v.site.method))
                .collect();
        let mut per_method: BTreeMap<MethodId, Vec<&SiteDecision>> = BTreeMap::new();
        for v in &verdicts {
            per_method.entry(v.site.method).or_default().push(v);
        }
        let mut declined = Vec::new();
        let mut candidates = Vec::new();
        for (&m, sites) in &per_method {
            if self.vm.program.is_installed(m) {
                continue;
            }
            let name = self.module.methods[m as usize].display_name(self.module);
            if dcg.calls[m as usize] == 0 {
                declined.push(Declined {
                    name,
                    reason: "no sampled calls into it: new invocations are all a \
                             recompilation changes (no on-stack replacement)"
                        .into(),
                });
                continue;
            }
            candidates.push((m, name, sites));
        }
        if candidates.is_empty() {
            self.report.declined = declined;
            return;
        }
        // One inlining of the whole program serves every candidate: the
        // decisions of all sites, so that sites inside inlined callees are
        // inlined too where the policy says so. It gives each candidate's
        // real size, which the cost is proportional to.
        let began = Instant::now();
        let decisions = policy::decisions(&verdicts);
        let inlined = match inline::inline(self.module, &decisions, &t.budget()) {
            Ok((module, _)) => module,
            Err(e) => {
                for (_, name, _) in candidates {
                    declined.push(Declined {
                        name,
                        reason: format!("the inliner refused: {e}"),
                    });
                }
                self.report.declined = declined;
                return;
            }
        };
        let inline_time = began.elapsed();
        for (m, name, sites) in candidates {
            let edges: Vec<InlinedEdge> = sites
                .iter()
                .filter_map(|v| {
                    let callee = v.callee?;
                    let op = self.module.methods[m as usize].code[v.site.index as usize].op;
                    Some(InlinedEdge {
                        callee,
                        weight: weights.edge(v.site, callee),
                        virtual_call: matches!(op, Op::CallVirt(_)),
                    })
                })
                .collect();
            let size_after = inlined.methods[m as usize].code.len();
            let estimate = self.options.model.estimate(
                self.module,
                size_after,
                &edges,
                &dcg.self_,
                &dcg.calls,
                elapsed.as_nanos() as f64,
            );
            if !estimate.worth_it() {
                declined.push(Declined {
                    name,
                    reason: format!(
                        "benefit {:.3}ms <= cost {:.3}ms ({} instrs)",
                        estimate.benefit_ns / 1e6,
                        estimate.cost_ns / 1e6,
                        size_after
                    ),
                });
                continue;
            }
            let loading = Instant::now();
            let installed = self
                .vm
                .program
                .recompiled_body(&inlined, m)
                .and_then(|body| self.vm.install(body))
                .map_err(|e| e.to_string());
            let c = Compilation {
                number: self.report.compilations.len() + 1,
                at: elapsed,
                method: m,
                name,
                size: (self.module.methods[m as usize].code.len(), size_after),
                inlined: sites.iter().map(|v| self.describe(v)).collect(),
                estimate,
                compile_time: inline_time + loading.elapsed(),
                installed,
            };
            if self.print {
                eprintln!("vm: adaptive: {}", c.line());
            }
            self.report.compilations.push(c);
        }
        self.report.declined = declined;
    }

    /// `@LINE callee`, `(guarded)` for a guarded inline.
    fn describe(&self, v: &SiteDecision) -> String {
        let line = self.module.methods[v.site.method as usize].code[v.site.index as usize]
            .pos
            .line;
        let callee = v.callee.map_or_else(
            || "?".to_string(),
            |c| self.module.methods[c as usize].display_name(self.module),
        );
        match v.target {
            Some(Target::Static) | None => format!("@{line} {callee}"),
            Some(_) => format!("@{line} {callee} (guarded)"),
        }
    }
}
