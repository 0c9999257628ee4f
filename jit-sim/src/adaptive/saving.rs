//! What each recompilation actually saved, beside what the model
//! estimated it would (issue 24: "each recompilation's model estimate
//! beside what it actually saved").
//!
//! The model ([`super::model`], after Whaley 2000 section 1) predicts a
//! benefit in time: over a future as long as the past (`at`, the time of
//! the decision), the call overhead the inlined edges would no longer pay.
//! What the recompilation saved is measured in the cost model's cycles,
//! which the interpreter counts per compiled code version
//! ([`vm::bodycount`]): the method's old body and its new body each have
//! the invocations that ended in them and the cycles those spent, callees
//! included (so the work of the callees it inlined is on both sides).
//!
//! - **Saved cycles** = (cycles per call of the old code - cycles per call
//!   of the new code) x calls of the new code: what the calls made after
//!   the installation would have cost in the old code, less what they
//!   cost.
//! - **Actual saving** puts that in the estimate's terms. The model says
//!   which share of the time the old code would take over the next `at`
//!   (a future as long as the past) the new code saves; the measured share
//!   is `saved / (saved + cycles after)`, the saved cycles over what the
//!   program's cycles after the decision would have been in the old code,
//!   and the actual saving is that share of `at`. The cycles after the
//!   decision are the run's cycles in the proportion of its wall time
//!   after the decision (`cycles x (end - at) / end`: the interpreter
//!   executes cycles at a steady rate, which a program that sleeps or
//!   waits does not keep).
//! - **Ratio** = actual / estimated.
//!
//! Without counting (a wall-clock run without `--cycles`) nothing is
//! measured and the report says so; so it does when the new code ran no
//! call to its end (no "after": the program ended first, or every call
//! now runs inside a caller that inlined the method), or the old code none
//! (no "before"). A method is recompiled at most once (one installed body
//! per method), so a compilation always compares the method's two
//! versions.

use std::fmt::Write as _;

use vm::bodycount::BodyCount;

use super::Compilation;

/// The run as a whole, to turn cycles into the estimate's time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunClock {
    /// When the controller stopped (the program had ended), ns since it
    /// started.
    pub ended_ns: f64,
    /// Cost-model cycles every thread executed.
    pub cycles: u64,
}

/// The measured saving of one recompilation.
#[derive(Clone, Debug, PartialEq)]
pub enum Saving {
    /// Both versions ran calls to their end.
    Counted {
        /// The old code's invocations.
        before: BodyCount,
        /// The new code's invocations.
        after: BodyCount,
        /// Cycles the new code saved over its calls.
        saved_cycles: f64,
        /// The same as time, over the model's horizon, ns.
        actual_ns: f64,
        /// `actual_ns` over the estimated benefit.
        ratio: f64,
    },
    /// Nothing to compare (why, as printed: `not counted: ...`, `no after
    /// data: ...`).
    Unmeasured(String),
}

impl Saving {
    /// Compares the old code's counts with the new code's for a
    /// recompilation decided at `at_ns` that the model expected to save
    /// `benefit_ns`. `inside` names the recompiled method whose code now
    /// runs this one's calls, if any.
    pub fn of(
        benefit_ns: f64,
        at_ns: f64,
        run: RunClock,
        old: BodyCount,
        new: BodyCount,
        inside: Option<&str>,
    ) -> Saving {
        let (Some(before), Some(after)) = (old.per_call(), new.per_call()) else {
            return Saving::Unmeasured(if new.calls == 0 {
                match inside {
                    Some(outer) => format!(
                        "no after data: not called after its installation (its calls run \
                         inside {outer}, which inlined it)"
                    ),
                    None => "no after data: not called after its installation".into(),
                }
            } else {
                "no before data: no call of the old code ended".into()
            });
        };
        let saved_cycles = (before - after) * new.calls as f64;
        let after_ns = run.ended_ns - at_ns;
        let cycles_after = run.cycles as f64 * after_ns / run.ended_ns;
        // What the cycles after the decision would have been in the old code.
        let old_cycles_after = cycles_after + saved_cycles;
        if after_ns <= 0.0 || cycles_after <= 0.0 || old_cycles_after <= 0.0 {
            return Saving::Unmeasured("no after data: the run ended at the decision".into());
        }
        let actual_ns = at_ns * saved_cycles / old_cycles_after;
        Saving::Counted {
            before: old,
            after: new,
            saved_cycles,
            actual_ns,
            ratio: if benefit_ns > 0.0 {
                actual_ns / benefit_ns
            } else {
                f64::NAN
            },
        }
    }

    /// The saving without cycle counts.
    pub fn not_counted() -> Saving {
        Saving::Unmeasured(
            "not counted: cycles are counted with --clock=virtual or --cycles".into(),
        )
    }

    /// The actual saving as a time, ms (`None` if unmeasured).
    pub fn actual_ms(&self) -> Option<f64> {
        match self {
            Saving::Counted { actual_ns, .. } => Some(actual_ns / 1e6),
            Saving::Unmeasured(_) => None,
        }
    }

    /// The ratio actual / estimated (`None` if unmeasured).
    pub fn ratio(&self) -> Option<f64> {
        match self {
            Saving::Counted { ratio, .. } => Some(*ratio).filter(|r| r.is_finite()),
            Saving::Unmeasured(_) => None,
        }
    }

    /// What the counters say, as the report's last column: the cycles per
    /// call of each version and their calls, or why nothing is measured.
    pub fn detail(&self) -> String {
        match self {
            Saving::Counted {
                before,
                after,
                saved_cycles,
                ..
            } => format!(
                "{:.1} -> {:.1} cycles/call, {} -> {} calls, {:.0} cycles saved",
                before.per_call().unwrap_or(0.0),
                after.per_call().unwrap_or(0.0),
                before.calls,
                after.calls,
                saved_cycles
            ),
            Saving::Unmeasured(why) => why.clone(),
        }
    }
}

/// The final report's table: each compilation's estimated benefit beside
/// its actual saving and their ratio, then what the counters say (empty if
/// nothing was recompiled). `savings` is in the order of `compilations`.
pub fn table(compilations: &[Compilation], savings: &[Saving]) -> String {
    if compilations.is_empty() {
        return String::new();
    }
    let width = compilations
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0)
        .max("method".len());
    let mut s = format!(
        "vm: adaptive: saving  {:>3}  {:<width$}  {:>10}  {:>10}  {:>6}  measured\n",
        "#", "method", "estimated", "actual", "ratio"
    );
    for (i, c) in compilations.iter().enumerate() {
        let saving = savings.get(i);
        let actual = saving
            .and_then(Saving::actual_ms)
            .map_or_else(|| "-".to_string(), |ms| format!("{ms:.3}ms"));
        let ratio = saving
            .and_then(Saving::ratio)
            .map_or_else(|| "-".to_string(), |r| format!("{r:.2}"));
        let detail = saving.map_or_else(|| "not measured".to_string(), Saving::detail);
        let estimated = format!("{:.3}ms", c.estimate.benefit_ns / 1e6);
        let _ = writeln!(
            s,
            "vm: adaptive: saving  {:>3}  {:<width$}  {estimated:>10}  {actual:>10}  {ratio:>6}  {detail}",
            c.number, c.name,
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::time::Duration;

    use crate::adaptive::Estimate;

    fn count(calls: u64, cycles: u64) -> BodyCount {
        BodyCount { calls, cycles }
    }

    fn compilation(number: usize, name: &str) -> Compilation {
        Compilation {
            number,
            at: Duration::from_millis(10),
            method: number as u32,
            name: name.into(),
            estimate: Estimate {
                time_ns: 1e6,
                benefit_ns: 100e3,
                cost_ns: 9e3,
                size: 9,
            },
            inlined: vec!["@3 g".into()],
            size: (4, 9),
            compile_time: Duration::from_micros(50),
            installed: Ok(()),
        }
    }

    #[test]
    fn the_table_puts_the_estimate_beside_the_saving_and_says_when_there_is_none() {
        let run = RunClock {
            ended_ns: 30e6,
            cycles: 540_000,
        };
        let c = [compilation(1, "f"), compilation(2, "a_long_name")];
        let savings = [
            Saving::of(100e3, 10e6, run, count(50, 5000), count(1000, 60_000), None),
            Saving::of(100e3, 10e6, run, count(50, 5000), count(0, 0), Some("f")),
        ];
        let t = table(&c, &savings);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 3, "{t}");
        assert!(
            lines[0].contains("#  method        estimated      actual   ratio  measured"),
            "{t}"
        );
        assert!(
            lines[1].contains("1  f               0.100ms     1.000ms   10.00  100.0 -> 60.0"),
            "{t}"
        );
        assert!(
            lines[2].contains("2  a_long_name     0.100ms           -       -  no after data"),
            "{t}"
        );
        // Fewer savings than compilations (the controller stopped without
        // a last read): not measured.
        assert!(table(&c, &savings[..1]).contains("not measured"));
        assert!(table(&[], &[]).is_empty());
    }

    #[test]
    fn the_saving_is_the_share_of_the_old_cost_saved_over_the_models_horizon() {
        // Decided at 10 ms; the run ended at 30 ms having executed 540,000
        // cycles, 360,000 of them in the 20 ms after the decision. Old
        // code: 100 cycles per call; new code: 60, over 1000 calls: 40,000
        // cycles saved of the 400,000 the old code would have taken after
        // the decision, a tenth: 1 ms of the model's 10 ms.
        let run = RunClock {
            ended_ns: 30e6,
            cycles: 540_000,
        };
        let s = Saving::of(500e3, 10e6, run, count(50, 5000), count(1000, 60_000), None);
        let Saving::Counted {
            saved_cycles,
            actual_ns,
            ratio,
            ..
        } = s
        else {
            panic!("counted: {s:?}")
        };
        assert!((saved_cycles - 40_000.0).abs() < 1e-9);
        assert!((actual_ns - 1e6).abs() < 1e-6, "{actual_ns}");
        assert!((ratio - 2.0).abs() < 1e-12);
        assert!((s.actual_ms().unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(
            s.detail(),
            "100.0 -> 60.0 cycles/call, 50 -> 1000 calls, 40000 cycles saved"
        );
    }

    #[test]
    fn slower_new_code_is_a_negative_saving() {
        let run = RunClock {
            ended_ns: 2e6,
            cycles: 2_000_000,
        };
        let s = Saving::of(1e3, 1e6, run, count(10, 100), count(10, 150), None);
        assert!(s.actual_ms().unwrap() < 0.0, "{s:?}");
        assert!(s.ratio().unwrap() < 0.0);
    }

    #[test]
    fn no_call_after_the_installation_says_so_rather_than_zero() {
        let run = RunClock {
            ended_ns: 2e6,
            cycles: 2_000_000,
        };
        let s = Saving::of(1e3, 1e6, run, count(10, 100), count(0, 0), None);
        assert_eq!(s.actual_ms(), None);
        assert_eq!(s.ratio(), None);
        assert_eq!(
            s.detail(),
            "no after data: not called after its installation"
        );
        let s = Saving::of(1e3, 1e6, run, count(10, 100), count(0, 0), Some("f1"));
        assert!(s.detail().contains("inside f1, which inlined it"), "{s:?}");
        let s = Saving::of(1e3, 1e6, run, count(0, 0), count(3, 30), None);
        assert_eq!(s.detail(), "no before data: no call of the old code ended");
        // A run that ended at the decision has no after either.
        let s = Saving::of(1e3, 2e6, run, count(1, 10), count(1, 5), None);
        assert!(s.detail().starts_with("no after data"), "{s:?}");
        assert!(Saving::not_counted().detail().starts_with("not counted"));
    }
}
