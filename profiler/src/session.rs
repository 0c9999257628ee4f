//! A profiling session: the [`Profiler`] the VM is given as its hooks. It
//! owns the pieces of one run (the clock, the organizer thread, the sample
//! queue), creates each thread's listener, and at the end turns the
//! repositories into a [`Profile`].
//!
//! A session is run whole by [`run`]: start the profiler, create the VM
//! with it as hooks, give it the VM (the wall-clock timer profile's
//! sampler thread needs it: Hofer et al. 2015's safepoints), start what
//! reads the live profile ([`Beside`]: the adaptive controller), run the
//! program, stop that, finish the profile. The steps are private, so none
//! can be forgotten.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use crossbeam::channel::{unbounded, Receiver, Sender};
use parking_lot::Mutex;
use rand::rngs::StdRng;
use rand::SeedableRng;
use vm::hooks::{ExecMode, Hooks, ThreadListener};
use vm::loader::Program;
use vm::runtime::{RunOutcome, Vm, VmOptions};
use vm::thread::ThreadShared;

use crate::clock::{LiveThreads, WallTimer};
use crate::config::WalkKind;
use crate::config::{ClockKind, ProfileConfig, ProfileKind, RecordKind};
use crate::dcg::DynamicCallGraph;
use crate::exact::ExhaustiveListener;
use crate::listeners::cbs::CounterBased;
use crate::listeners::counter::MethodCounter;
use crate::listeners::recorder::SampleRecorder;
use crate::listeners::timer::Timer;
use crate::listeners::SamplingListener;
use crate::organizer::{self, Repositories, Setup};
use crate::records::cct::CallingContextTree;
use crate::records::{self, RecordMaker, RecordOutput};
use crate::sampler::{SamplerThread, SamplerTotals};
use crate::samples::{Message, Sample, SampleSink, TuneLink};
use crate::spawn::StartError;
use crate::tune::{IntervalBounds, IntervalTuner};
use profile::{IntervalStep, LatencyCycles, Profile, ProfilerCyclesByKind, RunSection, FORMAT};
use vm::profiler_cost::{CostItem, CostKind, Work};

/// What the run itself reports, for the profile's `run` section.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunFacts {
    /// Wall-clock time of the run.
    pub wall_ns: u64,
    /// Managed threads that ran.
    pub threads: u64,
    /// Cost-model cycles, summed over threads, when the run counted them.
    pub cycles: Option<u64>,
    /// The profiler work of what ran beside the program (the adaptive
    /// controller's).
    pub beside_work: Work,
}

/// One run's profiler.
pub struct Profiler {
    config: ProfileConfig,
    to_organizer: Sender<Message>,
    pool: Receiver<Vec<Sample>>,
    /// Makes each thread's half of the calling-context record, if any.
    record: Option<Box<dyn RecordMaker>>,
    /// The sampling interval: the timer period in ns (timer, cbs) or the
    /// counter's `--every`; `--tune` changes it.
    interval: Arc<AtomicU64>,
    organizer: Mutex<Option<std::thread::JoinHandle<Repositories>>>,
    live: LiveThreads,
    timer: Mutex<Option<WallTimer>>,
    /// `--profile=timer` on the wall clock: the sampler thread, started by
    /// [`Profiler::attach`] (see [`crate::sampler`]).
    sampler: Mutex<Option<SamplerThread>>,
    /// On a simulated machine, the VM whose scheduler runs the sampler
    /// ([`crate::sampler::simulate`]).
    simulated: Mutex<Option<std::sync::Weak<Vm>>>,
    /// Samples a thread buffers before handing them to the organizer
    /// ([`Profiler::hand_over_every`]).
    batch: AtomicUsize,
}

impl Profiler {
    /// Starts a session for `program` (organizer thread, and for a wall
    /// clock the timer thread). Only [`run`] starts one. If the system
    /// refuses a thread, the error; an organizer already started ends as
    /// its queue closes.
    fn start(config: ProfileConfig, program: &Program) -> Result<Arc<Profiler>, StartError> {
        let (to_organizer, inbox) = unbounded();
        let (pool_tx, pool) = unbounded();
        let (record, repository) = match records::start(&config) {
            Some(s) => (s.kind, Some(s.repository)),
            None => (None, None),
        };
        let (initial, bounds) = if config.kind == ProfileKind::Counter {
            (u64::from(config.every), IntervalBounds::COUNTER_CALLS)
        } else {
            (config.interval_ns, IntervalBounds::TIMER_NS)
        };
        let interval = Arc::new(AtomicU64::new(initial));
        let handle = organizer::spawn(
            inbox,
            pool_tx,
            Setup {
                methods: program.bodies.len(),
                record: repository,
                tune: config
                    .tune
                    .then(|| (IntervalTuner::new(initial, bounds), interval.clone())),
            },
        )?;
        let live: LiveThreads = Arc::new(Mutex::new(Vec::new()));
        let timer = (config.uses_timer()
            && config.clock == ClockKind::Wall
            && !config.uses_sampler_thread())
        .then(|| WallTimer::start(interval.clone(), live.clone()))
        .transpose()?;
        Ok(Arc::new(Profiler {
            config,
            to_organizer,
            pool,
            record,
            interval,
            organizer: Mutex::new(Some(handle)),
            live,
            timer: Mutex::new(timer),
            sampler: Mutex::new(None),
            simulated: Mutex::new(None),
            batch: AtomicUsize::new(crate::samples::BUFFER_SAMPLES),
        }))
    }

    /// Gives the session its VM, once created (before [`Vm::run`]): a
    /// `--profile=timer` on the wall clock then starts its sampler thread,
    /// which requests safepoints of `vm` (see [`crate::sampler`]). Without
    /// it such a profile takes no samples, which is why only [`run`]
    /// calls it. An error if the system refuses the sampler thread.
    fn attach(&self, vm: &Arc<Vm>) -> Result<(), StartError> {
        let c = &self.config;
        if c.simulates_sampler() && crate::sampler::simulate(vm, c) {
            *self.simulated.lock() = Some(Arc::downgrade(vm));
        }
        if c.uses_sampler_thread() {
            let mut s = self.sampler.lock();
            if s.is_none() {
                *s = Some(SamplerThread::start(
                    vm,
                    c.sampler,
                    self.interval.clone(),
                    crate::sampler::PartialOptions {
                        threads: c.sample_threads,
                        runnable_only: c.runnable_only,
                        no_hold: c.no_hold,
                    },
                    c.seed,
                )?);
            }
        }
        Ok(())
    }

    /// Makes threads started from now on hand their samples to the
    /// organizer every `samples` samples rather than every
    /// [`crate::samples::BUFFER_SAMPLES`]: for a reader of [`Self::live_dcg`]
    /// while the program runs, which otherwise sees nothing of a thread
    /// until its first buffer is full (512 samples: some 256 ticks of a
    /// timer profile). Call it before the program starts.
    pub fn hand_over_every(&self, samples: usize) {
        self.batch.store(samples, Ordering::Relaxed);
    }

    /// The configuration of this session.
    pub fn config(&self) -> &ProfileConfig {
        &self.config
    }

    /// The dynamic call graph the organizer has folded so far (samples
    /// still in a thread's buffer are not in it yet), or `None` once the
    /// session has finished. For readers while the program runs, such as
    /// an adaptive controller.
    pub fn live_dcg(&self) -> Option<DynamicCallGraph> {
        let (tx, rx) = crossbeam::channel::bounded(1);
        self.to_organizer.send(Message::Snapshot(tx)).ok()?;
        rx.recv().ok()
    }

    /// Ends the session after the run: stops the clock, lets the organizer
    /// fold what is queued, and builds the profile. Threads still stuck
    /// (a program stopped by a runtime error elsewhere) contribute what
    /// they had handed over. The calling context tree stays a tree, to be
    /// written node by node ([`FinishedProfile::write_json`]) rather than
    /// listed in memory: an exact CCT can have millions of contexts.
    fn finish_streaming(
        &self,
        program: &Program,
        program_path: &str,
        run: RunFacts,
    ) -> FinishedProfile {
        let (sampled, simulated, repos) = self.stop_threads();
        let c = &self.config;
        let counting = c.counts_instructions();
        let wall_ns = if c.uses_timer() && c.clock == ClockKind::Virtual && !c.simulates_sampler() {
            repos.max_time
        } else {
            run.wall_ns
        };
        // The threads' and the organizer's work, and on a simulated machine
        // the samplers' protocols.
        let mut total = repos.work;
        total.add(&run.beside_work);
        // The session's own start and end, and its tables per method.
        total.charge(CostItem::Session, 1);
        total.charge(CostItem::SessionMethod, program.bodies.len() as u64);
        if let Some(s) = &simulated {
            total.add(&s.work);
        }
        let work = run.cycles.map(|_| &total);
        let tune = repos.tune;
        let counter = c.kind == ProfileKind::Counter;
        // A record's tree stays a tree, to be written node by node; a
        // PCCT comes listed, with its hot lists.
        let RecordOutput { tree, listed, hot } = repos
            .record
            .map(|r| r.into_output(program))
            .unwrap_or_default();
        let profile = Profile {
            format: FORMAT.to_string(),
            program: program_path.to_string(),
            // Only the keys that apply to the profile's kind.
            config: crate::options::config_section(c),
            run: RunSection {
                wall_ns,
                instructions: counting.then_some(repos.instructions),
                samples: repos.samples,
                threads: run.threads,
                cycles: run.cycles,
                safepoints: sampled.map(|s| s.safepoints),
                samples_requested: sampled.map(|s| s.requested),
                samples_taken: sampled.map(|s| s.taken),
                held_ns: sampled.filter(|_| simulated.is_none()).map(|s| s.held_ns),
                pause_ns: sampled.filter(|_| simulated.is_none()).map(|s| s.pause_ns),
                late_ns: sampled.filter(|_| simulated.is_none()).map(|s| s.late_ns),
                pause_cycles: simulated.map(|s| s.pause_cycles),
                walk_cycles: simulated.map(|s| s.walk_cycles),
                latency_cycles: simulated.and_then(|s| s.latency).map(latency_cycles),
                final_interval_ns: tune.as_ref().filter(|_| !counter).map(|t| t.last),
                final_every: tune.as_ref().filter(|_| counter).map(|t| t.last),
                interval_changes: tune.as_ref().map(|t| t.changes),
                interval_trajectory: tune.map(|t| {
                    t.trajectory
                        .into_iter()
                        .map(|(samples, interval)| IntervalStep { samples, interval })
                        .collect()
                }),
                profiler_cycles: work.map(Work::cycles),
                profiler_cycles_by_kind: work.map(cycles_by_kind),
                profiler_work: work.map(work_counts),
                // Set by the command line, which knows why a run stopped.
                interrupted: None,
            },
            methods: Some(repos.dcg.methods(program)),
            dcg: Some(repos.dcg.edges(program)),
            cct: listed,
            hot,
        };
        FinishedProfile {
            profile,
            tree,
            names: program.bodies.iter().map(|b| b.name.clone()).collect(),
        }
    }

    /// Stops the session's threads (clock, sampler, organizer after what
    /// is queued): what the sampler did (the simulated sampler's totals
    /// also apart, for their cycle keys) and what the organizer built.
    fn stop_threads(
        &self,
    ) -> (
        Option<SamplerTotals>,
        Option<vm::simsample::SimTotals>,
        Repositories,
    ) {
        if let Some(t) = self.timer.lock().take() {
            t.stop();
        }
        let sampled = self.sampler.lock().take().map(SamplerThread::stop);
        let simulated = self
            .simulated
            .lock()
            .take()
            .and_then(|vm| vm.upgrade().and_then(|vm| vm.simulated_sampling()));
        let sampled = sampled.or_else(|| simulated.map(crate::sampler::simulated_totals));
        let _ = self.to_organizer.send(Message::Finish);
        let repos = self
            .organizer
            .lock()
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        (sampled, simulated, repos)
    }

    /// The sample recorder of `thread`: its buffer, and with a
    /// calling-context record the thread's half of it.
    fn recorder(&self, thread: &ThreadShared) -> SampleRecorder {
        let c = &self.config;
        let mut sink = self.sink();
        if c.tune {
            sink.tune = Some(TuneLink {
                interval: self.interval.clone(),
                // Reproducible runs change the interval at points that
                // depend only on the samples.
                synchronous: c.clock == ClockKind::Virtual || c.kind == ProfileKind::Counter,
                seen: self.interval.load(std::sync::atomic::Ordering::Relaxed),
            });
        }
        SampleRecorder::new(
            sink,
            self.record.as_ref().map(|r| r.thread(thread.entry)),
            // The marked walk (the PCCT's and the ACCT's only walk) marks
            // the frames it examines, the executing one included.
            c.walks_stacks() && c.walk == WalkKind::Marked,
        )
    }

    fn sink(&self) -> SampleSink {
        SampleSink::new(self.to_organizer.clone(), self.pool.clone())
            .with_batch(self.batch.load(Ordering::Relaxed))
    }

    /// The random generator of thread `id`: derived from the seed so that
    /// each thread draws its own reproducible sequence.
    fn rng_for(&self, id: u32) -> StdRng {
        StdRng::seed_from_u64(self.config.seed ^ u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
}

/// The profile's latencies of a simulated sampler's ticks.
fn latency_cycles(l: vm::simsample::Latencies) -> LatencyCycles {
    LatencyCycles {
        p2_5: l.p2_5,
        q1: l.q1,
        median: l.median,
        q3: l.q3,
        p97_5: l.p97_5,
        max: l.max,
    }
}

/// The profile's split of the profiler's cycles by kind.
fn cycles_by_kind(w: &Work) -> ProfilerCyclesByKind {
    ProfilerCyclesByKind {
        sampling: w.cycles_of(CostKind::Sampling),
        walking: w.cycles_of(CostKind::Walking),
        recording: w.cycles_of(CostKind::Recording),
        organizing: w.cycles_of(CostKind::Organizing),
        tuning: w.cycles_of(CostKind::Tuning),
        controller: w.cycles_of(CostKind::Controller),
    }
}

/// The profile's count of each item of profiler work that happened.
fn work_counts(w: &Work) -> std::collections::BTreeMap<String, u64> {
    CostItem::ALL
        .iter()
        .filter(|&&i| w.count(i) > 0)
        .map(|&i| (i.name().to_string(), w.count(i)))
        .collect()
}

/// What runs beside the program and reads the live profile (the adaptive
/// controller): started by [`run`] once the VM and its profiler exist,
/// stopped once the program has ended, before the profile is finished.
pub trait Beside {
    /// What it leaves when stopped.
    type Report;
    /// Stops it (the program has ended).
    fn stop(self) -> Self::Report;
    /// The profiler work `report` says it did (the adaptive controller's
    /// wake-ups and compilations), for the profile's `profiler_cycles`.
    fn work(_report: &Self::Report) -> Work {
        Work::default()
    }
}

/// Nothing beside the program.
impl Beside for () {
    type Report = ();
    fn stop(self) {}
}

/// Something or nothing beside the program.
impl<B: Beside> Beside for Option<B> {
    type Report = Option<B::Report>;
    fn stop(self) -> Option<B::Report> {
        self.map(B::stop)
    }
    fn work(report: &Option<B::Report>) -> Work {
        report.as_ref().map(B::work).unwrap_or_default()
    }
}

/// What [`run`] leaves.
pub struct Session<R> {
    /// How the program ended.
    pub outcome: RunOutcome,
    /// The profile, unless the configuration was `--profile=none`; it is
    /// taken however the program ended.
    pub profile: Option<FinishedProfile>,
    /// What the [`Beside`] left.
    pub beside: R,
    /// The VM that ran, with the program it loaded: for a caller about to
    /// exit, which need not pay for freeing them (`vm run` forgets it, as
    /// a plain run never frees its program either).
    pub vm: Arc<Vm>,
}

/// Runs `program` with `options` under the profile `config` (kind `none`:
/// no profiler), the session's whole life in one call: the profiler
/// started, given to the VM as its hooks and then the VM, `beside` started
/// with the VM and the profiler, the program run, `beside` stopped, the
/// profile finished (its `program` field is `program_path`). The profile
/// is taken even when the program dies.
///
/// Should the system refuse one of the profiler's threads, or `beside`
/// fail to start, the program does not run: the threads already started
/// are stopped and the error returned ([`crate::spawn`]).
pub fn run<B: Beside>(
    program: Program,
    mut options: VmOptions,
    config: ProfileConfig,
    program_path: &str,
    beside: impl FnOnce(&Arc<Vm>, Option<&Arc<Profiler>>) -> Result<B, StartError>,
) -> Result<Session<B::Report>, StartError> {
    let profiler = (config.kind != ProfileKind::None)
        .then(|| Profiler::start(config, &program))
        .transpose()?;
    if let Some(p) = &profiler {
        options.hooks = Arc::clone(p) as Arc<dyn Hooks>;
    }
    let vm = Vm::new(program, options);
    let started = match &profiler {
        Some(p) => p.attach(&vm),
        None => Ok(()),
    }
    .and_then(|()| beside(&vm, profiler.as_ref()));
    let beside = match started {
        Ok(b) => b,
        Err(e) => {
            if let Some(p) = &profiler {
                p.stop_threads();
            }
            return Err(e);
        }
    };
    let outcome = vm.run();
    let beside = beside.stop();
    let profile = profiler.map(|p| {
        let facts = RunFacts {
            // On a simulated machine, the run's length in virtual time.
            wall_ns: outcome.virtual_ns.unwrap_or(outcome.wall_ns),
            threads: outcome.threads as u64,
            cycles: outcome.cycles.map(|c| c.cycles),
            beside_work: B::work(&beside),
        };
        p.finish_streaming(&vm.program, program_path, facts)
    });
    Ok(Session {
        outcome,
        profile,
        beside,
        vm,
    })
}

/// A finished profile whose calling context tree, if any, is still a tree.
pub struct FinishedProfile {
    /// Everything but the `cct` section of a tree still to be written
    /// (a PCCT's `cct` and `hot` are already listed here).
    pub profile: Profile,
    tree: Option<CallingContextTree>,
    names: Vec<String>,
}

impl FinishedProfile {
    /// Writes the whole profile as JSON ([`Profile::to_json`]'s text),
    /// the `cct` node by node, through a buffer of its own
    /// ([`profile::WRITE_BLOCK`]).
    pub fn write_json(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        match &self.tree {
            Some(t) => self
                .profile
                .write_json_with_cct(&mut t.flat_iter(|m| self.names[m as usize].clone()), w),
            None => self.profile.write_json(w),
        }
    }

    /// The profile with its `cct` section listed, leaving `self` as it is
    /// (for `vm run --report`, which reads the contexts as well as writing
    /// the file from the tree).
    pub fn to_profile(&self) -> Profile {
        let mut p = self.profile.clone();
        if let Some(t) = &self.tree {
            p.cct = Some(t.to_flat(|m| self.names[m as usize].clone()));
        }
        p
    }

    /// The profile with its `cct` section listed.
    pub fn into_profile(self) -> Profile {
        let FinishedProfile {
            mut profile,
            tree,
            names,
        } = self;
        if let Some(t) = tree {
            profile.cct = Some(t.to_flat(|m| names[m as usize].clone()));
        }
        profile
    }
}

impl Hooks for Profiler {
    fn exec_mode(&self) -> ExecMode {
        let c = &self.config;
        match c.kind {
            ProfileKind::Exhaustive => ExecMode {
                count: true,
                trace_calls: true,
                virtual_tick: None,
                tick_seed: 0,
            },
            // The simulated machine ticks for every thread at once.
            ProfileKind::Timer if c.simulates_sampler() => ExecMode {
                count: true,
                trace_calls: false,
                virtual_tick: None,
                tick_seed: 0,
            },
            ProfileKind::Timer | ProfileKind::Cbs if c.clock == ClockKind::Virtual => ExecMode {
                count: true,
                trace_calls: false,
                virtual_tick: Some(c.interval_ns),
                tick_seed: c.seed,
            },
            _ => ExecMode::default(),
        }
    }

    fn thread_started(
        &self,
        thread: &Arc<ThreadShared>,
        program: &Program,
    ) -> Option<Box<dyn ThreadListener>> {
        let c = &self.config;
        let listener: Box<dyn ThreadListener> = match c.kind {
            ProfileKind::None => return None,
            ProfileKind::Exhaustive => Box::new(ExhaustiveListener::new(
                program.bodies.len(),
                c.record.contains(&RecordKind::Cct),
                self.sink(),
            )),
            ProfileKind::Timer => Box::new(SamplingListener::new(self.recorder(thread), Timer)),
            ProfileKind::Cbs => Box::new(SamplingListener::new(
                self.recorder(thread),
                CounterBased::new(self.rng_for(thread.id), c.stride, c.samples),
            )),
            ProfileKind::Counter => {
                // Take the first prologue; the listener keeps the word at -1.
                thread.set_control_word(-1);
                Box::new(SamplingListener::new(
                    self.recorder(thread),
                    MethodCounter::new(self.rng_for(thread.id), c.every),
                ))
            }
        };
        if c.uses_timer() && c.clock == ClockKind::Wall {
            let mut live = self.live.lock();
            live.retain(|t| t.state() != vm::thread::ThreadState::Finished);
            live.push(thread.clone());
        }
        Some(listener)
    }
}
