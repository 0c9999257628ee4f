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

pub mod html;
pub mod measure;
pub mod model;
pub mod saving;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam::channel::{bounded, RecvTimeoutError, Sender};
use profiler::dcg::DynamicCallGraph;
use profiler::{Profiler, StartError};
use vm::module::{MethodId, Module, Op};
use vm::runtime::Vm;

use crate::inline::{self, Target};
use crate::policy::{self, EdgeWeights, PolicyKind, SiteDecision, Thresholds};
pub use measure::{InlinedTree, Measured};
pub use model::{Estimate, InlinedEdge, Model};
pub use saving::{RunClock, Saving};

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

/// How much `--print-compilation` prints (docs/ADAPTIVE.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum PrintLevel {
    /// Nothing (`--print-compilation=0`, and without the flag).
    #[default]
    Nothing = 0,
    /// The final report only.
    Report = 1,
    /// Each recompilation as it is decided, then the report (the bare
    /// flag).
    Decisions = 2,
    /// Also every estimate the model makes, and each wake-up that did
    /// nothing, with why.
    Estimates = 3,
}

impl PrintLevel {
    /// The level of `--print-compilation=N` (0 to 3).
    pub fn from_number(n: u8) -> Option<PrintLevel> {
        Some(match n {
            0 => PrintLevel::Nothing,
            1 => PrintLevel::Report,
            2 => PrintLevel::Decisions,
            3 => PrintLevel::Estimates,
            _ => return None,
        })
    }
}

/// What one wake-up of the controller came to.
#[derive(Clone, Debug, PartialEq)]
pub enum LookOutcome {
    /// The profile held fewer method samples than the model needs.
    TooFewSamples(u64),
    /// The policy would inline nothing in a method not yet recompiled.
    NothingToInline,
    /// Methods had something to inline; none was worth recompiling.
    NotWorthIt,
    /// The inliner refused the decisions.
    Refused,
    /// This many methods were recompiled.
    Recompiled(usize),
}

/// What the controller did over a run.
#[derive(Clone, Debug, Default)]
pub struct AdaptiveReport {
    /// Recompilations in order.
    pub compilations: Vec<Compilation>,
    /// Methods with something to inline that were, at the last look, not
    /// worth recompiling.
    pub declined: Vec<Declined>,
    /// How many times the controller read the profile (its wake-ups).
    pub looks: u64,
    /// Instructions of the modules the controller's inliner produced,
    /// summed over its compilations (the simulated compilation's work).
    pub compiled_instructions: u64,
    /// What each wake-up came to, in order.
    pub outcomes: Vec<LookOutcome>,
    /// When each wake-up read the profile, since the program started
    /// (same order as `outcomes`).
    pub look_times: Vec<Duration>,
    /// When the controller stopped (the program had ended).
    pub ended: Duration,
    /// The method samples the last read held.
    pub last_samples: u64,
    /// Every method the model was asked about, by name.
    pub considered: std::collections::BTreeSet<String>,
    /// What the profile says of each compilation after it (same order as
    /// `compilations`; filled in when the controller stops).
    pub measured: Vec<Measured>,
    /// What each compilation saved, counted in cycles (same order as
    /// `compilations`; filled in when the controller stops).
    pub savings: Vec<Saving>,
    /// The model's minimum of method samples.
    pub min_samples: u64,
    /// The controller's period.
    pub period: Duration,
}

impl AdaptiveReport {
    /// The whole log: one line per compilation, then the [`report`].
    ///
    /// [`report`]: AdaptiveReport::report
    pub fn text(&self) -> String {
        let mut s = String::new();
        for c in &self.compilations {
            let _ = writeln!(s, "vm: adaptive: {}", c.line());
        }
        s + &self.report()
    }

    /// Wake-ups that decided nothing.
    pub fn idle(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|o| !matches!(o, LookOutcome::Recompiled(_)))
            .count()
    }

    /// The final report, in the spirit of Jikes RVM's: wake-ups, those
    /// that did nothing and why, methods considered and chosen, each
    /// compilation's estimate beside what it measurably saved, what was
    /// declined, and the totals (with, when nothing was recompiled, why).
    pub fn report(&self) -> String {
        let mut s = String::new();
        let count = |f: fn(&LookOutcome) -> bool| self.outcomes.iter().filter(|o| f(o)).count();
        let few = count(|o| matches!(o, LookOutcome::TooFewSamples(_)));
        let nothing = count(|o| matches!(o, LookOutcome::NothingToInline));
        let not_worth = count(|o| matches!(o, LookOutcome::NotWorthIt));
        let refused = count(|o| matches!(o, LookOutcome::Refused));
        let mut why = Vec::new();
        for (n, what) in [
            (few, "too few samples"),
            (nothing, "nothing to inline"),
            (not_worth, "nothing worth it"),
            (refused, "inliner refused"),
        ] {
            if n > 0 {
                why.push(format!("{n} {what}"));
            }
        }
        let _ = writeln!(
            s,
            "vm: adaptive: wake-ups {} (every {}ms), did nothing {}{}",
            self.looks,
            self.period.as_millis(),
            self.idle(),
            if why.is_empty() {
                String::new()
            } else {
                format!(" ({})", why.join(", "))
            }
        );
        let considered: Vec<&str> = self.considered.iter().map(String::as_str).collect();
        let _ = writeln!(
            s,
            "vm: adaptive: methods considered {}{}, chosen {}",
            considered.len(),
            if considered.is_empty() {
                String::new()
            } else {
                format!(" ({})", considered.join(", "))
            },
            self.compilations.len()
        );
        for (i, c) in self.compilations.iter().enumerate() {
            let measured = self
                .measured
                .get(i)
                .map_or_else(|| "not measured".to_string(), Measured::text);
            let _ = writeln!(
                s,
                "vm: adaptive: {:>3}  {}: estimated to save {:.3}ms of {:.3}ms over the next {:.1}ms; {}",
                c.number,
                c.name,
                c.estimate.benefit_ns / 1e6,
                c.estimate.time_ns / 1e6,
                c.at.as_secs_f64() * 1e3,
                measured
            );
        }
        s.push_str(&saving::table(&self.compilations, &self.savings));
        for d in &self.declined {
            let _ = writeln!(s, "vm: adaptive: not recompiled: {}: {}", d.name, d.reason);
        }
        let _ = write!(
            s,
            "vm: adaptive: {} recompiled, {} profile reads",
            self.compilations.len(),
            self.looks
        );
        if self.compilations.is_empty() {
            let _ = write!(s, ": {}", self.why_nothing());
        }
        s.push('\n');
        s
    }

    /// Why nothing was recompiled, from the last wake-up.
    pub fn why_nothing(&self) -> String {
        match self.outcomes.last() {
            None => format!(
                "the program ended before the controller's first wake-up ({}ms)",
                self.period.as_millis()
            ),
            Some(LookOutcome::TooFewSamples(n)) => format!(
                "the profile never held the {} method samples a decision needs \
                 (the last read held {n})",
                self.min_samples
            ),
            Some(LookOutcome::NothingToInline) => {
                "the policy found no call site worth inlining".into()
            }
            Some(LookOutcome::NotWorthIt) => {
                "no method was worth recompiling (see `not recompiled` above)".into()
            }
            Some(LookOutcome::Refused) => "the inliner refused the decisions".into(),
            Some(LookOutcome::Recompiled(_)) => "none installed".into(),
        }
    }

    /// The `not recompiled` lines and the totals (the report without its
    /// first lines; kept for callers that printed the rest themselves).
    pub fn summary(&self) -> String {
        self.report()
            .lines()
            .filter(|l| l.contains("not recompiled:") || l.contains(" recompiled, "))
            .map(|l| format!("{l}\n"))
            .collect()
    }
}

/// Samples a thread hands to the organizer at a time while the controller
/// reads the profile: a full buffer (512) would keep a timer profile's
/// first samples from the controller for some 256 ticks, longer than many
/// programs run (docs/ADAPTIVE.md, "When nothing is recompiled").
pub const LIVE_BATCH: usize = 32;

/// The running controller thread.
pub struct AdaptiveController {
    stop: Sender<()>,
    handle: std::thread::JoinHandle<AdaptiveReport>,
}

impl AdaptiveController {
    /// Starts the controller for `vm`, reading `profiler`'s live profile
    /// (and asking it to hand samples over in batches of [`LIVE_BATCH`]).
    /// Printing on stderr as it goes follows `print`. An error if the
    /// system refuses the thread.
    pub fn start(
        vm: &Arc<Vm>,
        profiler: &Arc<Profiler>,
        options: AdaptiveOptions,
        print: PrintLevel,
    ) -> Result<AdaptiveController, StartError> {
        profiler.hand_over_every(LIVE_BATCH);
        let (stop, stopped) = bounded::<()>(1);
        let vm = Arc::clone(vm);
        let profiler = Arc::clone(profiler);
        let handle = profiler::spawn::start(
            "the adaptive controller's thread",
            "vm-controller",
            move || {
                let start = Instant::now();
                let mut c = Controller::new(&vm, options, print);
                // Wake every period until told to stop (or the VM is gone).
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(options.period) {
                    let Some(dcg) = profiler.live_dcg() else {
                        break;
                    };
                    c.look(dcg, start.elapsed());
                }
                // The program has ended: every thread has handed its last
                // samples over; measure what each compilation saved.
                if let Some(end) = profiler.live_dcg() {
                    c.measure(&end, start.elapsed());
                }
                c.report
            },
        )?;
        Ok(AdaptiveController { stop, handle })
    }

    /// Stops the controller (the program has ended) and returns its report.
    pub fn finish(self) -> AdaptiveReport {
        let _ = self.stop.send(());
        self.handle.join().unwrap_or_default()
    }
}

/// The profile as it was when a compilation was installed.
struct Baseline {
    dcg: Arc<DynamicCallGraph>,
    at: Duration,
    tree: Arc<InlinedTree>,
}

/// The controller's state between looks.
struct Controller<'a> {
    vm: &'a Vm,
    module: &'a Module,
    options: AdaptiveOptions,
    print: PrintLevel,
    report: AdaptiveReport,
    baselines: Vec<Baseline>,
}

impl<'a> Controller<'a> {
    fn new(vm: &'a Vm, options: AdaptiveOptions, print: PrintLevel) -> Self {
        Controller {
            vm,
            module: &vm.program.module,
            options,
            print,
            report: AdaptiveReport {
                min_samples: options.model.min_samples,
                period: options.period,
                ..AdaptiveReport::default()
            },
            baselines: Vec::new(),
        }
    }

    /// One look at the profile: decide, recompile what pays, and note what
    /// the look came to.
    fn look(&mut self, dcg: DynamicCallGraph, elapsed: Duration) {
        self.report.looks += 1;
        let dcg = Arc::new(dcg);
        let outcome = self.decide(&dcg, elapsed);
        if self.print >= PrintLevel::Estimates && !matches!(outcome, LookOutcome::Recompiled(_)) {
            let why = match &outcome {
                LookOutcome::TooFewSamples(n) => format!(
                    "{n} method samples, fewer than the {} a decision needs",
                    self.options.model.min_samples
                ),
                LookOutcome::NothingToInline => {
                    "nothing to inline in a method not yet recompiled".into()
                }
                LookOutcome::NotWorthIt => "nothing worth recompiling".into(),
                LookOutcome::Refused => "the inliner refused".into(),
                LookOutcome::Recompiled(_) => unreachable!(),
            };
            vm::stdio::eprintln(&format!(
                "vm: adaptive: {:>9.1}ms wake-up {}: did nothing: {why}",
                elapsed.as_secs_f64() * 1e3,
                self.report.looks
            ));
        }
        self.report.outcomes.push(outcome);
        self.report.look_times.push(elapsed);
    }

    /// Measures each compilation against the profile at the end.
    fn measure(&mut self, end: &DynamicCallGraph, elapsed: Duration) {
        self.report.ended = elapsed;
        let compiled: Vec<(MethodId, String, usize)> = self
            .report
            .compilations
            .iter()
            .enumerate()
            .map(|(i, c)| (c.method, c.name.clone(), i))
            .collect();
        self.report.measured = compiled
            .iter()
            .map(|&(m, _, i)| {
                let b = &self.baselines[i];
                // Inside the region of a method recompiled no later?
                let outer = compiled.iter().find(|&&(o, _, j)| {
                    o != m
                        && self.baselines[j].at <= b.at
                        && measure::in_region(&self.baselines[j].tree, o, m)
                });
                if let Some((_, name, _)) = outer {
                    return Measured::Inside(name.clone());
                }
                Measured::of(
                    self.module,
                    &b.tree,
                    m,
                    &b.dcg,
                    end,
                    elapsed.saturating_sub(b.at).as_nanos() as f64,
                )
            })
            .collect();
        self.report.savings = self.savings(elapsed);
    }

    /// What each compilation saved, from the VM's cycles per body (the
    /// program has ended: every thread's counts are in).
    fn savings(&self, elapsed: Duration) -> Vec<Saving> {
        let counts = self.vm.body_counts();
        let run = RunClock {
            ended_ns: elapsed.as_nanos() as f64,
            cycles: self.vm.counted().map_or(0, |c| c.cycles),
        };
        let methods = self.module.methods.len();
        self.report
            .compilations
            .iter()
            .zip(&self.report.measured)
            .map(|(c, measured)| {
                let Some(counts) = &counts else {
                    return Saving::not_counted();
                };
                if let Err(why) = &c.installed {
                    return Saving::Unmeasured(format!("not installed: {why}"));
                }
                let inside = match measured {
                    Measured::Inside(outer) => Some(outer.as_str()),
                    _ => None,
                };
                let body = |id: usize| counts.get(id).copied().unwrap_or_default();
                Saving::of(
                    c.estimate.benefit_ns,
                    c.at.as_nanos() as f64,
                    run,
                    body(c.method as usize),
                    body(methods + c.method as usize),
                    inside,
                )
            })
            .collect()
    }

    /// The decisions of one look.
    fn decide(&mut self, dcg: &Arc<DynamicCallGraph>, elapsed: Duration) -> LookOutcome {
        let samples: u64 = dcg.self_.iter().sum();
        self.report.last_samples = samples;
        if samples < self.options.model.min_samples {
            return LookOutcome::TooFewSamples(samples);
        }
        let weights = EdgeWeights::from_dcg(self.module, dcg);
        let t = &self.options.thresholds;
        // The linear policy's verdicts, less direct recursion: inlining a
        // method into itself only unrolls the recursion, multiplying the
        // code (two recursive sites, five levels: 2^5 copies) and the
        // locals every call must clear, for little gain.
        let (verdicts, recursive): (Vec<SiteDecision>, Vec<SiteDecision>) =
            policy::decide(PolicyKind::Linear, self.module, &weights, t)
                .into_iter()
                .filter(SiteDecision::inline)
                .partition(|v| v.callee != Some(v.site.method));
        let mut tree = InlinedTree::new();
        for v in &verdicts {
            if let Some(c) = v.callee {
                tree.entry(v.site.method).or_default().push((v.site, c));
            }
        }
        let tree = Arc::new(tree);
        let mut per_method: BTreeMap<MethodId, Vec<&SiteDecision>> = BTreeMap::new();
        for v in &verdicts {
            per_method.entry(v.site.method).or_default().push(v);
        }
        let mut declined = self.only_recursive(&recursive, &per_method);
        for d in &declined {
            self.report.considered.insert(d.name.clone());
        }
        let mut candidates = Vec::new();
        for (&m, sites) in &per_method {
            if self.vm.program.is_installed(m) {
                continue;
            }
            let name = self.module.methods[m as usize].display_name(self.module);
            self.report.considered.insert(name.clone());
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
            let outcome = if declined.is_empty() {
                LookOutcome::NothingToInline
            } else {
                LookOutcome::NotWorthIt
            };
            self.note_declined(&declined, elapsed);
            self.report.declined = declined;
            return outcome;
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
                self.note_declined(&declined, elapsed);
                self.report.declined = declined;
                return LookOutcome::Refused;
            }
        };
        let inline_time = began.elapsed();
        self.report.compiled_instructions += inlined
            .methods
            .iter()
            .map(|m| m.code.len() as u64)
            .sum::<u64>();
        let mut recompiled = 0;
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
            if self.print >= PrintLevel::Estimates {
                vm::stdio::eprintln(&format!(
                    "vm: adaptive: {:>9.1}ms estimate {name}: past time {:.3}ms, benefit {:.3}ms {} cost {:.3}ms ({} -> {size_after} instrs, {samples} samples)",
                    elapsed.as_secs_f64() * 1e3,
                    estimate.time_ns / 1e6,
                    estimate.benefit_ns / 1e6,
                    if estimate.worth_it() { ">" } else { "<=" },
                    estimate.cost_ns / 1e6,
                    self.module.methods[m as usize].code.len(),
                ));
            }
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
            if self.print >= PrintLevel::Decisions {
                vm::stdio::eprintln(&format!("vm: adaptive: {}", c.line()));
            }
            self.report.compilations.push(c);
            self.baselines.push(Baseline {
                dcg: Arc::clone(dcg),
                at: elapsed,
                tree: Arc::clone(&tree),
            });
            recompiled += 1;
        }
        self.note_declined(&declined, elapsed);
        self.report.declined = declined;
        if recompiled > 0 {
            LookOutcome::Recompiled(recompiled)
        } else {
            LookOutcome::NotWorthIt
        }
    }

    /// The methods whose only calls the policy would inline are calls to
    /// themselves (`recursive`, dropped by the recursion rule), not yet
    /// recompiled and without another site in `per_method`: declined, so
    /// the report says why they were left alone.
    fn only_recursive(
        &self,
        recursive: &[SiteDecision],
        per_method: &BTreeMap<MethodId, Vec<&SiteDecision>>,
    ) -> Vec<Declined> {
        let mut methods: Vec<MethodId> = recursive.iter().map(|v| v.site.method).collect();
        methods.sort_unstable();
        methods.dedup();
        let mut out = Vec::new();
        for m in methods {
            if per_method.contains_key(&m) || self.vm.program.is_installed(m) {
                continue;
            }
            out.push(Declined {
                name: self.module.methods[m as usize].display_name(self.module),
                reason: "its only calls worth inlining are to itself, and direct recursion \
                         is not inlined (it would only unroll the recursion)"
                    .into(),
            });
        }
        out
    }

    /// At level 3, each method declined at this look, as it is declined.
    fn note_declined(&self, declined: &[Declined], elapsed: Duration) {
        if self.print >= PrintLevel::Estimates {
            for d in declined {
                vm::stdio::eprintln(&format!(
                    "vm: adaptive: {:>9.1}ms declined {}: {}",
                    elapsed.as_secs_f64() * 1e3,
                    d.name,
                    d.reason
                ));
            }
        }
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
