//! What the seeded program generators of the end-to-end tests share
//! (`incremental.rs`, `inline_generated.rs`, `generated.rs`): a random
//! source that is deterministic for its seed, fresh label names, and the
//! comparison of one run's outcome with another's.

use std::path::Path;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::harness::{run_vm_in, Run, DEFAULT_TIMEOUT};

/// The random source of one generated program, and its label counter.
pub struct Base {
    /// The seeded generator every choice is drawn from.
    pub rng: StdRng,
    /// How many labels [`Base::label`] has made.
    pub labels: usize,
}

impl Base {
    /// A source deterministic for `seed`.
    pub fn new(seed: u64) -> Self {
        Base {
            rng: StdRng::seed_from_u64(seed),
            labels: 0,
        }
    }

    /// A label name not used before in this program: `what` and a number.
    pub fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("{what}{}", self.labels)
    }

    /// True with the given probability in percent.
    pub fn chance(&mut self, percent: u32) -> bool {
        self.rng.random_range(0..100) < percent
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        self.rng.random_range(lo..=hi)
    }

    /// An index below `n`.
    pub fn pick(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }
}

/// Runs `vm run NAME ARGS` in `dir` with the default time limit; a crash
/// (timeout, signal, panic) is an `Err` describing it.
pub fn run(dir: &Path, name: &str, args: &[String]) -> Result<Run, String> {
    let mut all = vec!["run", name];
    all.extend(args.iter().map(String::as_str));
    let r = run_vm_in(dir, &all, DEFAULT_TIMEOUT);
    match r.crash() {
        Some(c) => Err(c),
        None => Ok(r),
    }
}
