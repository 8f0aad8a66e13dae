//! Why a gated figure left its band: its steps against those of the run
//! nearest the band's median, and the revisions (`crate::moved` words it).

use crate::analysis::step_diff::StepChange;
use crate::moved::{sentence, Why};
use crate::render::escape::md_text;
use serde::Serialize;

/// What a gate check says of a regression: the steps behind it against the
/// run typical of the band (the one nearest its median), and the revisions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckWhy {
    /// The run the steps are compared with.
    pub against: String,
    /// The steps that moved most (at most `CHECK_STEPS`), largest first.
    pub steps: Vec<StepChange>,
    pub revision_before: Option<String>,
    pub revision_after: Option<String>,
    /// The same in a sentence (markdown).
    pub text: String,
}

/// How many steps a gate check carries.
pub const CHECK_STEPS: usize = 5;

/// Why `run`'s `target` `metric` (`measured`) left its band, against the band's typical run.
pub fn check_why(
    typical: &crate::history::bands::Typical,
    run: &crate::history::RunFigures,
    target: &str,
    metric: &str,
    measured: f64,
) -> Option<CheckWhy> {
    let t = run.targets.get(target)?;
    let mut steps = crate::analysis::step_diff::diff_kept(&typical.steps, &t.steps, typical.steps_all, t.steps_all);
    let text = sentence(&Why {
        target,
        metric,
        delta: Some(measured - typical.value),
        steps: &steps,
        beside: &[],
        moved: None,
        revision_a: typical.revision.as_deref(),
        revision_b: run.revision.as_deref(),
    });
    steps.truncate(CHECK_STEPS);
    Some(CheckWhy {
        against: typical.stamp.clone(),
        steps,
        revision_before: typical.revision.clone(),
        revision_after: run.revision.clone(),
        text: format!("against {}: {text}", md_text(&typical.stamp)),
    })
}
