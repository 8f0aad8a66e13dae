//! What kept a night from being judged in full, one item per run, target or
//! input: a run that could not be gated as it should (broken, unreadable,
//! undated), a target the runs before measured and this run did not, and a
//! run left out of the night because it is dated after the clock. The lane
//! exits 2 on any of them (unless a regression makes it 1), and every
//! artifact names each one: the terminal, the job summary's first line and
//! JUnit's errors.

use super::night::{GatedRun, Night};

/// One thing the night could not judge.
#[derive(Debug, Clone)]
pub(crate) struct Unjudged<'a> {
    /// The gated run it belongs to; `None` for a run left out of the night.
    pub(crate) run: Option<&'a GatedRun>,
    /// The run's folder under the root.
    pub(crate) dir: &'a str,
    /// The target not measured, when it is one.
    pub(crate) target: Option<&'a str>,
    /// Why, in words.
    pub(crate) why: String,
}

impl Night {
    /// Each run, target and input that kept the night from being judged in
    /// full, in the night's order, the runs left out for their date last.
    pub(crate) fn unjudged(&self) -> Vec<Unjudged<'_>> {
        let mut out = vec![];
        for run in self.runs.iter().filter(|r| r.unusable) {
            if run.checks.is_empty() && run.unmeasured.is_empty() {
                out.push(Unjudged {
                    run: Some(run),
                    dir: &run.dir,
                    target: None,
                    why: run.not_gated.clone().unwrap_or_else(|| "not gated".into()),
                });
            }
            for what in &run.unmeasured {
                out.push(Unjudged {
                    run: Some(run),
                    dir: &run.dir,
                    target: Some(&what.target),
                    why: format!("not measured in this run: {what}"),
                });
            }
        }
        for dir in &self.dated_in_future {
            out.push(Unjudged {
                run: None,
                dir,
                target: None,
                why: DATED_IN_FUTURE.into(),
            });
        }
        out
    }
}

/// Why a run dated after the clock is not in the night.
pub(crate) const DATED_IN_FUTURE: &str =
    "left out of the night: it started more than an hour after this machine's clock (a clock's error?)";
