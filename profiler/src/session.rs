//! A profiling session: the [`Profiler`] the VM is given as its hooks. It
//! owns the pieces of one run (the clock, the organizer thread, the sample
//! queue), creates each thread's listener, and at the end turns the
//! repositories into a [`Profile`].

use std::sync::Arc;
use std::time::Duration;

use crossbeam::channel::{unbounded, Receiver, Sender};
use parking_lot::Mutex;
use rand::rngs::StdRng;
use rand::SeedableRng;
use vm::hooks::{ExecMode, Hooks, ThreadListener};
use vm::loader::Program;
use vm::thread::ThreadShared;

use crate::acct::AcctRecorder;
use crate::clock::{LiveThreads, WallTimer};
use crate::config::{Clock, ProfileConfig, ProfileKind, Record};
use crate::exact::ExhaustiveListener;
use crate::listeners::cbs::CounterBasedListener;
use crate::listeners::counter::MethodCounterListener;
use crate::listeners::timer::TimerListener;
use crate::listeners::SampleRecorder;
use crate::organizer::{self, Repositories};
use crate::pcct::{PcctRecorder, HOT_IN_PROFILE};
use crate::profile::{ConfigSection, Profile, RunSection, FORMAT};
use crate::samples::{Message, Sample, SampleSink};
use crate::walk::ContextRecorder;

/// What the run itself reports, for the profile's `run` section.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunFacts {
    /// Wall-clock time of the run.
    pub wall_ns: u64,
    /// Managed threads that ran.
    pub threads: u64,
}

/// One run's profiler.
pub struct Profiler {
    config: ProfileConfig,
    to_organizer: Sender<Message>,
    pool: Receiver<Vec<Sample>>,
    organizer: Mutex<Option<std::thread::JoinHandle<Repositories>>>,
    live: LiveThreads,
    timer: Mutex<Option<WallTimer>>,
}

impl Profiler {
    /// Starts a session for `program` (organizer thread, and for a wall
    /// clock the timer thread).
    pub fn start(config: ProfileConfig, program: &Program) -> Arc<Profiler> {
        let (to_organizer, inbox) = unbounded();
        let (pool_tx, pool) = unbounded();
        let build_cct = (config.kind == ProfileKind::Exhaustive
            && config.record.contains(&Record::Cct))
            || config.samples_contexts()
            || config.samples_record(Record::Acct);
        let handle = organizer::spawn(inbox, pool_tx, program.bodies.len(), build_cct);
        let live: LiveThreads = Arc::new(Mutex::new(Vec::new()));
        let timer = (config.uses_timer() && config.clock == Clock::Wall)
            .then(|| WallTimer::start(Duration::from_nanos(config.interval_ns), live.clone()));
        Arc::new(Profiler {
            config,
            to_organizer,
            pool,
            organizer: Mutex::new(Some(handle)),
            live,
            timer: Mutex::new(timer),
        })
    }

    /// The configuration of this session.
    pub fn config(&self) -> &ProfileConfig {
        &self.config
    }

    /// Ends the session after the run: stops the clock, lets the organizer
    /// fold what is queued, and builds the profile. Threads still stuck
    /// (a program stopped by a runtime error elsewhere) contribute what
    /// they had handed over.
    pub fn finish(&self, program: &Program, program_path: &str, run: RunFacts) -> Profile {
        if let Some(t) = self.timer.lock().take() {
            t.stop();
        }
        let _ = self.to_organizer.send(Message::Finish);
        let repos = self
            .organizer
            .lock()
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        let c = &self.config;
        let counting = c.counts_instructions();
        let wall_ns = if c.uses_timer() && c.clock == Clock::Virtual {
            repos.max_cycles
        } else {
            run.wall_ns
        };
        let name = |m: u32| program.bodies[m as usize].name.clone();
        let (cct, hot) = if c.samples_record(Record::Pcct) {
            let pcct = repos.pcct.unwrap_or_default();
            let (flat, ids) = pcct.to_flat(name);
            let hot = pcct.hot_lists(&ids, HOT_IN_PROFILE);
            (Some(flat), Some(hot))
        } else {
            (repos.cct.as_ref().map(|t| t.to_flat(name)), None)
        };
        Profile {
            format: FORMAT.to_string(),
            program: program_path.to_string(),
            config: config_section(c),
            run: RunSection {
                wall_ns,
                instructions: counting.then_some(repos.instructions),
                samples: repos.samples,
                threads: run.threads,
            },
            methods: Some(repos.dcg.methods(program)),
            dcg: Some(repos.dcg.edges(program)),
            cct,
            hot,
        }
    }

    /// The sample recorder of `thread`: its buffer, and with a sampled
    /// calling context tree its own tree (rooted at its entry method).
    fn recorder(&self, thread: &ThreadShared) -> SampleRecorder {
        let c = &self.config;
        SampleRecorder {
            sink: self.sink(),
            contexts: c
                .samples_contexts()
                .then(|| ContextRecorder::new(c.walk, c.max_walk, thread.entry)),
            pcct: c
                .samples_record(Record::Pcct)
                .then(|| PcctRecorder::new(c.max_walk, c.purge, thread.entry)),
            acct: c
                .samples_record(Record::Acct)
                .then(|| AcctRecorder::new(c.acct_update, c.sampled_bit, thread.entry)),
        }
    }

    fn sink(&self) -> SampleSink {
        SampleSink::new(self.to_organizer.clone(), self.pool.clone())
    }

    /// The random generator of thread `id`: derived from the seed so that
    /// each thread draws its own reproducible sequence.
    fn rng_for(&self, id: u32) -> StdRng {
        StdRng::seed_from_u64(self.config.seed ^ u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
}

/// The `config` section: only the keys that apply to the profile's kind.
fn config_section(c: &ProfileConfig) -> ConfigSection {
    let timer = c.uses_timer();
    let acct = c.samples_record(Record::Acct);
    ConfigSection {
        profile: c.kind.name().to_string(),
        interval_ns: timer.then_some(c.interval_ns),
        stride: (c.kind == ProfileKind::Cbs).then_some(u64::from(c.stride)),
        samples: (c.kind == ProfileKind::Cbs).then_some(u64::from(c.samples)),
        every: (c.kind == ProfileKind::Counter).then_some(u64::from(c.every)),
        clock: timer.then(|| c.clock.name().to_string()),
        seed: Some(c.seed),
        record: Some(c.record.iter().map(|r| r.name().to_string()).collect()),
        walk: c.walks_stacks().then(|| c.walk.name().to_string()),
        acct_update: acct.then(|| c.acct_update.name().to_string()),
        sampled_bit: acct.then(|| c.sampled_bit.name().to_string()),
        purge: c.purge,
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
            },
            ProfileKind::Timer | ProfileKind::Cbs if c.clock == Clock::Virtual => ExecMode {
                count: true,
                trace_calls: false,
                virtual_tick: Some(c.interval_ns),
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
                c.record.contains(&Record::Cct),
                self.sink(),
            )),
            ProfileKind::Timer => Box::new(TimerListener::new(self.recorder(thread))),
            ProfileKind::Cbs => Box::new(CounterBasedListener::new(
                self.recorder(thread),
                self.rng_for(thread.id),
                c.stride,
                c.samples,
            )),
            ProfileKind::Counter => {
                // Take the first prologue; the listener keeps the word at -1.
                thread
                    .control
                    .store(-1, std::sync::atomic::Ordering::SeqCst);
                Box::new(MethodCounterListener::new(
                    self.recorder(thread),
                    self.rng_for(thread.id),
                    c.every,
                ))
            }
        };
        if c.uses_timer() && c.clock == Clock::Wall {
            let mut live = self.live.lock();
            live.retain(|t| t.state() != vm::thread::ThreadState::Finished);
            live.push(thread.clone());
        }
        Some(listener)
    }
}
