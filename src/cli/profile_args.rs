//! The profiling options of `vm run` and `vm inline`: clap's arguments
//! built from the profiler's option table
//! ([`profiler::options::PROFILE_OPTIONS`], one row per option), then the
//! options only the command line has (`--adaptive`, `--profile-out`, ...).
//!
//! Adding a profiling option means adding a row to the table: its flag,
//! help, applicability and `config` entry all come from there.

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use profiler::config::{Applicability, ProfileKind, ProfileOptions};
use profiler::options::{Bits, OptionSpec, ValueKind, ANY_PROFILE, PROFILE_OPTIONS};

use super::args::ReportKind;

/// The profiling options of `vm run` (docs/CLI.md explains each). An
/// option that does not apply to the chosen `--profile` is a usage error,
/// never silently ignored.
#[derive(Args, Debug, Default)]
#[command(next_help_heading = "Profiling")]
pub struct ProfileArgs {
    /// The options of the profiler's table, as given.
    #[command(flatten)]
    pub options: TableOptions,
    /// Recompile hot methods with profile-directed inlining while running
    /// (the `linear` policy, Whaley's cost-benefit model); the profile is
    /// cbs unless --profile names timer, cbs or counter
    #[arg(long)]
    pub adaptive: bool,
    /// With --adaptive: what the controller prints on stderr. LEVEL 0:
    /// nothing; 1: a final report (wake-ups, methods considered and
    /// chosen, each recompilation's estimate beside its code's share of
    /// the samples before and after, what was not recompiled and why);
    /// 2 (the bare flag): also
    /// each recompilation as it happens; 3: also every estimate and each
    /// wake-up that did nothing
    #[arg(
        long,
        value_name = "LEVEL",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "2",
        value_parser = clap::value_parser!(u8).range(0..=3)
    )]
    pub print_compilation: Option<u8>,
    /// Write the profile as JSON to FILE; written even if the program fails,
    /// or is interrupted by a signal (the profile of what ran)
    #[arg(long, value_name = "FILE")]
    pub profile_out: Option<PathBuf>,
    /// Print a report of the profile on stderr after the run: `text` (the
    /// default, what `vm report --format=text` prints), `folded` or `dot`
    /// (as `vm report` writes them); flamegraph, speedscope and html are
    /// for a browser: write the profile with --profile-out and use
    /// `vm report`
    #[arg(long, value_name = "FORMAT", num_args = 0..=1, require_equals = true, default_missing_value = "text")]
    pub report: Option<ReportKind>,
}

impl ProfileArgs {
    /// The options of the command line only that were given and apply to
    /// some profiles only, for [`ProfileOptions::resolve_with`] (with
    /// `--no-yieldpoints`, an option of `vm run` itself).
    pub fn given_for_resolve(&self, no_yieldpoints: bool) -> Vec<Applicability> {
        const WITHOUT_PROFILER: &[ProfileKind] = &[ProfileKind::None, ProfileKind::Exhaustive];
        [
            (self.profile_out.is_some(), "--profile-out", ANY_PROFILE),
            (self.report.is_some(), "--report", ANY_PROFILE),
            (no_yieldpoints, "--no-yieldpoints", WITHOUT_PROFILER),
        ]
        .into_iter()
        .filter(|(given, ..)| *given)
        .map(|(_, flag, profiles)| Applicability { flag, profiles })
        .collect()
    }
}

/// The options of [`PROFILE_OPTIONS`] as the command line gave them: clap
/// arguments built from the table's rows, read back into
/// [`ProfileOptions`] by each row's `set`.
#[derive(Clone, Debug, Default)]
pub struct TableOptions(pub ProfileOptions);

impl Deref for TableOptions {
    type Target = ProfileOptions;
    fn deref(&self) -> &ProfileOptions {
        &self.0
    }
}

impl DerefMut for TableOptions {
    fn deref_mut(&mut self) -> &mut ProfileOptions {
        &mut self.0
    }
}

/// The clap argument of one row: `--flag <VALUE>` (or a switch), its help
/// with the default, and a parser that refuses what the row's `set` does.
fn arg(o: &'static OptionSpec) -> Arg {
    let arg = Arg::new(o.name())
        .long(o.name())
        .help(o.help_with_default())
        .required(false);
    if o.value.is_switch() {
        return arg.action(ArgAction::SetTrue);
    }
    let arg = arg.value_name(o.value_name).action(ArgAction::Set);
    match o.value {
        ValueKind::Count {
            bits: Bits::B32, ..
        } => arg.value_parser(clap::value_parser!(u32)),
        ValueKind::Count {
            bits: Bits::B64, ..
        } => arg.value_parser(clap::value_parser!(u64)),
        ValueKind::Parsed => arg.value_parser(move |s: &str| {
            (o.set)(&mut ProfileOptions::default(), s).map(|()| s.to_string())
        }),
        ValueKind::Switch | ValueKind::Text => arg.value_parser(clap::value_parser!(String)),
    }
}

impl Args for TableOptions {
    fn augment_args(cmd: Command) -> Command {
        cmd.args(PROFILE_OPTIONS.iter().map(arg))
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for TableOptions {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut options = TableOptions::default();
        options.update_from_arg_matches(m)?;
        Ok(options)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for o in PROFILE_OPTIONS {
            let id = o.name();
            let value = match o.value {
                ValueKind::Switch => m.get_flag(id).then(String::new),
                ValueKind::Count {
                    bits: Bits::B32, ..
                } => m.get_one::<u32>(id).map(u32::to_string),
                ValueKind::Count {
                    bits: Bits::B64, ..
                } => m.get_one::<u64>(id).map(u64::to_string),
                ValueKind::Parsed | ValueKind::Text => m.get_one::<String>(id).cloned(),
            };
            if let Some(v) = value {
                (o.set)(&mut self.0, &v)
                    .map_err(|e| clap::Error::raw(ErrorKind::ValueValidation, e))?;
            }
        }
        Ok(())
    }
}
