//! Running the `vm` binary: one measurement per child process, accuracy
//! sweeps in parallel with results delivered in order, timing sweeps one
//! process at a time.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use profile::Profile;

use crate::suite::Program;
use crate::Error;

/// The `vm` binary and a scratch directory for the files its runs write.
pub struct Vm<'a> {
    /// The binary.
    pub bin: &'a Path,
    /// The scratch directory.
    pub work: &'a Path,
}

impl Vm<'_> {
    /// Runs `vm ARGS`; an exit status other than 0 is a failure that
    /// quotes the command and the first lines of its stderr.
    /// The run is killed if the experiment is interrupted
    /// ([`crate::children::stop`]), which fails it.
    pub fn run(&self, args: &[String]) -> Result<Output, Error> {
        let cannot = |e: std::io::Error| {
            Error::Failed(format!(
                "vm experiment: cannot run `{}`: {e}",
                self.bin.display()
            ))
        };
        let interrupted = || Error::Failed("vm experiment: interrupted".into());
        if crate::children::stopped() {
            return Err(interrupted());
        }
        // Its stdout and stderr go to scratch files rather than pipes, so
        // that waiting for it reads nothing (crate::children::wait).
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let n = RUNS.fetch_add(1, Ordering::Relaxed);
        let files = [".out", ".err"].map(|ext| self.work.join(format!("run-{n}{ext}")));
        let status = (|| {
            let out = std::fs::File::create(&files[0])?;
            let err = std::fs::File::create(&files[1])?;
            let mut child = Command::new(self.bin)
                .args(args)
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err)
                .spawn()?;
            crate::children::wait(&mut child)
        })();
        let [stdout, stderr] = files
            .each_ref()
            .map(|f| std::fs::read(f).unwrap_or_default());
        for f in &files {
            let _ = std::fs::remove_file(f);
        }
        let status = status.map_err(cannot)?;
        if crate::children::stopped() {
            return Err(interrupted());
        }
        let out = Output {
            status,
            stdout,
            stderr,
        };
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let mut head: Vec<&str> = err.lines().take(5).collect();
            let stdout = String::from_utf8_lossy(&out.stdout);
            if head.is_empty() {
                // A benchmark that fails its own check says so on stdout.
                head.extend(stdout.lines().rev().take(2));
            }
            return Err(Error::Failed(format!(
                "vm experiment: `vm {}` failed ({}): {}",
                args.join(" "),
                out.status,
                head.join(" / ")
            )));
        }
        Ok(out)
    }

    /// Runs `prog` with the profile options `opts` and returns the profile
    /// it wrote (to a scratch file named after `tag`, removed afterwards)
    /// and the program's stdout.
    pub fn profile(
        &self,
        prog: &Program,
        opts: &[String],
        tag: &str,
    ) -> Result<(Profile, Vec<u8>), Error> {
        let file = self.work.join(format!("{tag}.json"));
        let mut args = vec!["run".to_string(), prog.path.display().to_string()];
        args.extend(prog.set_args());
        args.extend(opts.iter().cloned());
        args.push(format!("--profile-out={}", file.display()));
        let out = self.run(&args)?;
        let p = Profile::read(&file).map_err(|e| {
            Error::Failed(format!(
                "vm experiment: cannot read the profile of `vm {}`: {e:?}",
                args.join(" ")
            ))
        })?;
        let _ = std::fs::remove_file(&file);
        Ok((p, out.stdout))
    }

    /// The simulated cycles of `vm run FILE --cycles` (with `prog`'s
    /// `--set` options) and its stdout.
    pub fn cycles(&self, file: &Path, prog: &Program) -> Result<(u64, Vec<u8>), Error> {
        let mut args = vec!["run".to_string(), file.display().to_string()];
        args.extend(prog.set_args());
        args.push("--cycles".into());
        let out = self.run(&args)?;
        let err = String::from_utf8_lossy(&out.stderr);
        let cycles = err
            .lines()
            .find_map(|l| l.strip_prefix("vm: cycles: "))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| {
                Error::Failed(format!(
                    "vm experiment: no `vm: cycles:` line from `vm {}`",
                    args.join(" ")
                ))
            })?;
        Ok((cycles, out.stdout))
    }
}

/// Runs `f` on every item on `jobs` threads and hands the results to
/// `done` in the items' order, each as soon as it and every earlier one
/// are finished (so a CSV written from `done` is the same whatever order
/// the jobs finish in, and holds every finished prefix if interrupted).
/// The first error stops the sweep (jobs already running finish). Fewer
/// workers run if the system refuses some of the threads; none is an
/// error.
pub fn par_map<T, R, F, D>(jobs: usize, items: &[T], f: F, mut done: D) -> Result<(), Error>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> Result<R, Error> + Sync,
    D: FnMut(usize, R) -> Result<(), Error>,
{
    let next = AtomicUsize::new(0);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Result<R, Error>)>();
    std::thread::scope(|s| {
        let (mut workers, mut refused) = (0, None);
        for _ in 0..jobs.max(1).min(items.len().max(1)) {
            let tx = tx.clone();
            let (next, failed, f) = (&next, &failed, &f);
            let worker = std::thread::Builder::new().spawn_scoped(s, move || loop {
                if failed.load(Ordering::Relaxed) {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                if r.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                if tx.send((i, r)).is_err() {
                    break;
                }
            });
            match worker {
                Ok(_) => workers += 1,
                Err(e) => {
                    refused = Some(e);
                    break;
                }
            }
        }
        drop(tx);
        if let Some(e) = refused.filter(|_| workers == 0) {
            return Err(Error::Failed(format!(
                "vm experiment: cannot start a worker thread: {e}"
            )));
        }
        let mut pending: BTreeMap<usize, R> = BTreeMap::new();
        let mut want = 0;
        for (i, r) in rx {
            match r {
                Ok(r) => {
                    pending.insert(i, r);
                }
                Err(e) => {
                    failed.store(true, Ordering::Relaxed);
                    return Err(e);
                }
            }
            while let Some(r) = pending.remove(&want) {
                done(want, r)?;
                want += 1;
            }
        }
        Ok(())
    })
}

/// Times `configs` (each a `vm` command line), one process at a time:
/// `rounds` rounds, every configuration once per round, the order rotated
/// by one each round so that no configuration always runs first. Calls
/// `done(round, config, seconds)` after each run.
pub fn time_rounds<D>(
    vm: &Vm,
    configs: &[Vec<String>],
    rounds: usize,
    mut done: D,
) -> Result<(), Error>
where
    D: FnMut(usize, usize, f64) -> Result<(), Error>,
{
    let n = configs.len();
    for round in 0..rounds {
        for k in 0..n {
            let c = (k + round) % n;
            let start = Instant::now();
            vm.run(&configs[c])?;
            done(round, c, start.elapsed().as_secs_f64())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_arrive_in_order_whatever_the_jobs_do() {
        let items: Vec<u64> = (0..50).collect();
        let mut seen = Vec::new();
        par_map(
            4,
            &items,
            |&i| {
                // Later items finish first.
                std::thread::sleep(std::time::Duration::from_micros((50 - i) * 20));
                Ok(i * i)
            },
            |i, r| {
                seen.push((i, r));
                Ok(())
            },
        )
        .unwrap();
        let want: Vec<(usize, u64)> = (0..50).map(|i| (i as usize, i * i)).collect();
        assert_eq!(seen, want);
    }

    #[test]
    fn an_error_stops_the_sweep() {
        let items: Vec<u64> = (0..20).collect();
        let r = par_map(
            2,
            &items,
            |&i| {
                if i == 3 {
                    Err(Error::Failed("three".into()))
                } else {
                    Ok(i)
                }
            },
            |_, _| Ok(()),
        );
        assert!(matches!(r, Err(Error::Failed(m)) if m == "three"));
    }
}
