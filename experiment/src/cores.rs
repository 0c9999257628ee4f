//! `--cores`: the machine the `hofer-*` experiments run their programs on
//! (Hofer, Gnedt and Mössenböck 2015, section 7, on the simulated cores
//! of docs/SAMPLERS.md, "Simulated cores").
//!
//! By default a `hofer-*` experiment runs every program under `vm run
//! --clock=virtual --cores=N` ([`DEFAULT_CORES`] cores, the scheduler's
//! quantum [`QUANTUM`] cycles): runs are deterministic, so costs are exact
//! virtual cycles and the sweeps run in parallel. `--cores=real` asks for
//! the real threads on the wall clock, one process at a time, as before
//! the simulated machine existed.

/// The simulated cores when `--cores` is not given: the paper's machine
/// (section 7: a quad-core Core i7, hyperthreading off). On it `many-8`
/// and `many-32` have more computing threads than cores (6 and 24), and
/// `many-32-deep` a core for each of its 2 computing threads.
pub const DEFAULT_CORES: u32 = 4;

/// The scheduler's quantum the experiments ask for, in cycles: `vm run`'s
/// default (100 us of virtual time), given explicitly so that the CSV
/// header states it.
pub const QUANTUM: u64 = 100_000;

/// Where the programs run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cores {
    /// `--clock=virtual --cores=N --quantum=QUANTUM`: deterministic.
    Simulated(u32),
    /// Real threads on the wall clock (`--cores=real`).
    Real,
}

impl Default for Cores {
    fn default() -> Cores {
        Cores::Simulated(DEFAULT_CORES)
    }
}

impl Cores {
    /// Parses `--cores`'s value: a number of cores from 1 to 1024, or
    /// `real`.
    pub fn parse(s: &str) -> Result<Cores, String> {
        if s == "real" {
            return Ok(Cores::Real);
        }
        match s.parse::<u32>() {
            Ok(n) if (1..=1024).contains(&n) => Ok(Cores::Simulated(n)),
            Ok(_) => Err(format!(
                "`{s}` cores: a simulated machine has 1 to 1024 cores"
            )),
            Err(_) => Err(format!(
                "`{s}` is neither a number of cores (1 to 1024) nor `real`"
            )),
        }
    }

    /// Whether the runs are on the simulated machine.
    pub fn simulated(self) -> bool {
        matches!(self, Cores::Simulated(_))
    }

    /// The options every `vm run` of the experiment gets: the machine's
    /// (none for real threads).
    pub fn run_args(self) -> Vec<String> {
        match self {
            Cores::Simulated(n) => vec![
                "--clock=virtual".into(),
                format!("--cores={n}"),
                format!("--quantum={QUANTUM}"),
            ],
            Cores::Real => Vec::new(),
        }
    }

    /// The mode for a CSV header's settings line.
    pub fn describe(self) -> String {
        match self {
            Cores::Simulated(n) => {
                format!("mode=simulated cores={n} quantum={QUANTUM} clock=virtual")
            }
            Cores::Real => "mode=real cores=real clock=wall".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_numbers_and_real_and_refuses_the_rest() {
        assert_eq!(Cores::parse("8"), Ok(Cores::Simulated(8)));
        assert_eq!(Cores::parse("1"), Ok(Cores::Simulated(1)));
        assert_eq!(Cores::parse("real"), Ok(Cores::Real));
        for bad in ["0", "1025", "-1", "four", "", "8x"] {
            let e = Cores::parse(bad).unwrap_err();
            assert!(e.contains(&format!("`{bad}`")), "{bad}: {e}");
        }
        assert_eq!(Cores::default(), Cores::Simulated(DEFAULT_CORES));
    }

    #[test]
    fn the_simulated_machine_is_named_in_the_args_and_the_header() {
        let sim = Cores::Simulated(3);
        assert!(sim.simulated() && !Cores::Real.simulated());
        assert_eq!(
            sim.run_args(),
            ["--clock=virtual", "--cores=3", "--quantum=100000"]
        );
        assert_eq!(
            sim.describe(),
            "mode=simulated cores=3 quantum=100000 clock=virtual"
        );
        assert!(Cores::Real.run_args().is_empty());
        assert!(Cores::Real.describe().contains("clock=wall"));
    }
}
