//! The papers' claims, checked over an experiment's own results.
//!
//! Each experiment declares what its paper claims as a list of
//! [`Claim`]s computed from its CSV ([`crate::table::Table`]): what the
//! paper says, what our data show, and whether the claim holds within a
//! tolerance the claim states. The page of a run prints them as a table
//! (claim / paper / ours / holds?), and `experiment/tests/claims.rs`
//! computes them again over the committed full results: a claim the
//! project reproduces ([`Claim::expect`] true) that stops holding fails
//! the test by name, and so does a gap the page explains that closes.

/// Whether a claim holds on our data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It holds, within the stated tolerance.
    Holds,
    /// It does not.
    Fails,
    /// The data cannot say (a `--quick` run too small, a measure missing):
    /// the reason.
    Unjudged(String),
}

/// One claim of a paper, judged on our results.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The claim, in a few words, with its tolerance ("cbs within 10
    /// points of 50/50").
    pub claim: String,
    /// What the paper reports.
    pub paper: String,
    /// What our data show.
    pub ours: String,
    /// Whether it holds.
    pub verdict: Verdict,
    /// Whether the project reproduces it on its full results: `false` for
    /// a known gap, which the experiment's page explains.
    pub expect: bool,
}

impl Claim {
    /// A claim judged `holds` (true or false) on the data.
    pub fn judged(
        claim: impl Into<String>,
        paper: impl Into<String>,
        ours: impl Into<String>,
        holds: bool,
    ) -> Claim {
        Claim {
            claim: claim.into(),
            paper: paper.into(),
            ours: ours.into(),
            verdict: if holds {
                Verdict::Holds
            } else {
                Verdict::Fails
            },
            expect: true,
        }
    }

    /// The same claim marked as a known gap: its page says why it does
    /// not hold on the full results.
    pub fn gap(self) -> Claim {
        Claim {
            expect: false,
            ..self
        }
    }

    /// The same claim left unjudged for `reason` (kept unless it is
    /// already unjudged).
    pub fn unjudged(self, reason: &str) -> Claim {
        Claim {
            verdict: Verdict::Unjudged(reason.into()),
            ..self
        }
    }

    /// Unjudged with `reason` when `small` (a `--quick` run, too few
    /// programs or samples to say).
    pub fn unless_small(self, small: bool, reason: &str) -> Claim {
        if small {
            self.unjudged(reason)
        } else {
            self
        }
    }

    /// Whether it holds.
    pub fn holds(&self) -> bool {
        self.verdict == Verdict::Holds
    }
}

/// The claims as a Markdown table.
pub fn table(claims: &[Claim]) -> String {
    let rows: Vec<Vec<String>> = claims
        .iter()
        .map(|c| {
            let holds = match &c.verdict {
                Verdict::Holds => "yes".to_string(),
                Verdict::Fails => "**no**".to_string(),
                Verdict::Unjudged(why) => format!("cannot say: {why}"),
            };
            vec![c.claim.clone(), c.paper.clone(), c.ours.clone(), holds]
        })
        .collect();
    crate::markdown::table_left(&["claim", "paper", "ours", "holds?"], &rows)
}

/// The claims the full results break: a reproduced one that does not
/// hold, or a gap that no longer fails (its page's explanation is out of
/// date). Empty when the results are what the project says.
pub fn broken(claims: &[Claim]) -> Vec<String> {
    claims
        .iter()
        .filter_map(|c| match (&c.verdict, c.expect) {
            (Verdict::Holds, true) | (Verdict::Fails, false) => None,
            (Verdict::Fails, true) => {
                Some(format!("`{}` no longer holds: ours {}", c.claim, c.ours))
            }
            (Verdict::Holds, false) => Some(format!(
                "`{}` now holds (ours {}): the page still explains it as a gap",
                c.claim, c.ours
            )),
            (Verdict::Unjudged(why), _) => Some(format!("`{}` cannot be judged: {why}", c.claim)),
        })
        .collect()
}

/// `a -> b` with `digits` decimals (a change the claim is about).
pub fn arrow(a: f64, b: f64, digits: usize) -> String {
    format!("{a:.digits$} -> {b:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_names_reproduced_claims_that_fail_and_gaps_that_close() {
        let ok = Claim::judged("a", "p", "o", true);
        let bad = Claim::judged("b", "p", "o", false);
        let gap = Claim::judged("c", "p", "o", false).gap();
        let closed = Claim::judged("d", "p", "o", true).gap();
        let b = broken(&[ok, bad, gap, closed]);
        assert_eq!(b.len(), 2);
        assert!(b[0].contains("`b` no longer holds"));
        assert!(b[1].contains("`d` now holds"));
    }

    #[test]
    fn the_table_says_yes_no_or_why_not() {
        let t = table(&[
            Claim::judged("x", "p", "o", true),
            Claim::judged("y", "p", "o", false),
            Claim::judged("z", "p", "o", true).unless_small(true, "3 programs"),
        ]);
        assert!(t.contains("| x | p | o | yes |"));
        assert!(t.contains("| y | p | o | **no** |"));
        assert!(t.contains("cannot say: 3 programs"));
    }
}
