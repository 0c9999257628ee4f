//! The checks of the inliner's thresholds (`vm inline`'s `--inline-*`,
//! `--hot-edge-pct`, `--guard-min-pct`): which policy reads which
//! threshold (Arnold & Grove 2005, sections 5.1 and 5.2: only `static`
//! has a cold threshold, only `linear` a ramp and a guard), and the range
//! of each value.

use super::{PolicyKind, Thresholds};

/// The threshold options that only some policies read, with those
/// policies, in the order their usage errors are reported. The others
/// (`--inline-always`, `--inline-depth`) apply to every policy.
pub const POLICY_OPTIONS: &[(&str, &[PolicyKind])] = &[
    ("--inline-max-cold", &[PolicyKind::Static]),
    (
        "--inline-max-hot",
        &[PolicyKind::HotEdge, PolicyKind::Linear],
    ),
    ("--inline-ramp-from", &[PolicyKind::Linear]),
    ("--hot-edge-pct", &[PolicyKind::HotEdge, PolicyKind::Linear]),
    ("--guard-min-pct", &[PolicyKind::Linear]),
];

impl Thresholds {
    /// What is wrong with these thresholds under `policy`, one line each:
    /// an option of `given` (flags, as the command line names them) that
    /// `policy` does not read, then each value out of its range. Empty if
    /// they are fine.
    pub fn validate(&self, policy: PolicyKind, given: &[&str]) -> Vec<String> {
        let mut problems: Vec<String> = POLICY_OPTIONS
            .iter()
            .filter(|(flag, policies)| given.contains(flag) && !policies.contains(&policy))
            .map(|(flag, policies)| {
                let names: Vec<&str> = policies.iter().map(|p| p.name()).collect();
                format!(
                    "{flag} does not apply to --policy={} (only {})",
                    policy.name(),
                    names.join(", ")
                )
            })
            .collect();
        let f = self.hot_pct;
        if !(f > 0.0 && f <= 100.0) {
            problems.push(format!(
                "--hot-edge-pct={f}: must be above 0 and at most 100"
            ));
        }
        let f = self.guard_min_pct;
        if !(0.0..100.0).contains(&f) {
            problems.push(format!(
                "--guard-min-pct={f}: must be at least 0 and below 100"
            ));
        }
        if !(1..=64).contains(&self.depth) {
            problems.push(format!("--inline-depth={}: must be 1 to 64", self.depth));
        }
        if self.ramp_from > self.max_hot {
            problems.push(format!(
                "--inline-ramp-from={} is above --inline-max-hot={}",
                self.ramp_from, self.max_hot
            ));
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_valid_under_every_policy() {
        for p in [PolicyKind::Static, PolicyKind::HotEdge, PolicyKind::Linear] {
            assert_eq!(Thresholds::default().validate(p, &[]), Vec::<String>::new());
        }
    }

    #[test]
    fn an_option_the_policy_does_not_read_is_refused() {
        let t = Thresholds::default();
        let e = t.validate(PolicyKind::Linear, &["--inline-max-cold"]);
        assert_eq!(
            e,
            ["--inline-max-cold does not apply to --policy=linear (only static)"]
        );
        assert!(t
            .validate(PolicyKind::Static, &["--inline-max-cold"])
            .is_empty());
        let e = t.validate(PolicyKind::Static, &["--guard-min-pct", "--inline-max-hot"]);
        assert_eq!(e.len(), 2);
        assert!(e[0].starts_with("--inline-max-hot") && e[0].ends_with("(only hot-edge, linear)"));
        assert!(e[1].starts_with("--guard-min-pct"));
    }

    #[test]
    fn values_out_of_range_are_refused() {
        let bad = |t: Thresholds| t.validate(PolicyKind::Linear, &[]);
        let d = Thresholds::default;
        assert!(bad(Thresholds {
            hot_pct: 0.0,
            ..d()
        })[0]
            .contains("above 0"));
        assert!(bad(Thresholds {
            hot_pct: 100.0,
            ..d()
        })
        .is_empty());
        assert!(bad(Thresholds {
            guard_min_pct: 100.0,
            ..d()
        })[0]
            .contains("below 100"));
        assert!(bad(Thresholds { depth: 0, ..d() })[0].contains("1 to 64"));
        assert!(bad(Thresholds { depth: 65, ..d() })[0].contains("1 to 64"));
        let e = bad(Thresholds {
            ramp_from: 200,
            ..d()
        });
        assert_eq!(e, ["--inline-ramp-from=200 is above --inline-max-hot=119"]);
    }
}
