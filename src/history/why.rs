//! Why a target's figure moved, in one sentence: the steps behind the change
//! (`analysis::step_diff`), what moved beside them (setup, export, upload,
//! node, link) and the revisions built. Compare, gate and history say it the
//! same way.
//!
//! The sentence is markdown: step names are code spans (`escape::md_code`,
//! its fence longer than any backtick run inside, so backticks cannot pair
//! across two names); a terminal caller quotes it with `term::quote`.

use crate::analysis::spread::TIME_RESOLUTION_S;
use crate::analysis::step_diff::StepChange;
use crate::escape::{md_code, md_text};
use crate::figures::{secs_ms, Alongside, Metric, TargetFigures};
use crate::timefmt::human_duration;
use serde::Serialize;

/// How many steps a sentence names.
pub(crate) const TOP: usize = 3;

/// A figure beside the steps that moved: setup, export, upload, bytes, link.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Beside {
    pub(crate) what: Alongside,
    pub(crate) a: Option<f64>,
    pub(crate) b: Option<f64>,
}

impl Beside {
    /// Each figure beside the steps, in A and in B.
    pub(crate) fn all(a: &TargetFigures, b: &TargetFigures) -> Vec<Beside> {
        let of = |t: &TargetFigures, what| match what {
            Alongside::Setup => t.setup.get().map(secs_ms),
            Alongside::Export => t.export.get().map(secs_ms),
            Alongside::Upload => t.upload.get().map(secs_ms),
            Alongside::UploadBytes => t.upload_bytes.get().map(|x| x as f64),
            Alongside::UploadRate => t.upload_mbps.get(),
        };
        Alongside::ALL
            .into_iter()
            .map(|what| Beside {
                what,
                a: of(a, what),
                b: of(b, what),
            })
            .collect()
    }

    fn moved(&self) -> Option<String> {
        let (a, b) = (self.a?, self.b?);
        let (shown_a, shown_b, enough) = match self.what {
            Alongside::UploadBytes => (
                crate::timefmt::human_bytes(a),
                crate::timefmt::human_bytes(b),
                (b - a).abs() > 0.1 * a.max(b),
            ),
            Alongside::UploadRate => (
                format!("{a:.1} MB/s"),
                format!("{b:.1} MB/s"),
                (b - a).abs() > 0.1 * a.max(b),
            ),
            _ => (human_duration(a), human_duration(b), (b - a).abs() > TIME_RESOLUTION_S),
        };
        enough.then(|| format!("{} {shown_a} → {shown_b}", self.what.label()))
    }
}

/// The revisions of A and B, when they differ: "revision 3f9c2e1a → 8d01b6c5".
pub(crate) fn revision_change(a: Option<&str>, b: Option<&str>) -> Option<String> {
    let short = |r: &str| md_text(&r.chars().take(12).collect::<String>());
    match (a, b) {
        (Some(a), Some(b)) if a != b => Some(format!("revision {} → {}", short(a), short(b))),
        (None, Some(b)) => Some(format!("revision not recorded → {}", short(b))),
        (Some(a), None) => Some(format!("revision {} → not recorded", short(a))),
        _ => None,
    }
}

/// One step's change: "`[builder 8/11] RUN make` 7m00s → 9m20s (vertex changed)".
pub(crate) fn step_phrase(s: &StepChange, extra: Option<&str>) -> String {
    let side = |x: Option<f64>, st: crate::analysis::step_diff::StepState| match x {
        Some(x) if st == crate::analysis::step_diff::StepState::Cached => format!("{} (cached)", human_duration(x)),
        Some(x) => human_duration(x),
        None => "absent".into(),
    };
    let cause = match &s.command_was {
        Some(was) => Some(format!("command changed, was {}", md_code(was))),
        None => s.cause().map(str::to_string),
    };
    let why: Vec<String> = cause.into_iter().chain(extra.map(str::to_string)).collect();
    let why = if why.is_empty() {
        String::new()
    } else {
        format!(" ({})", why.join("; "))
    };
    format!("{} {} → {}{why}", md_code(&s.step), side(s.a_s, s.a), side(s.b_s, s.b))
}

/// What a sentence explains.
pub(crate) struct Why<'a> {
    pub(crate) target: &'a str,
    pub(crate) metric: Metric,
    /// The metric's change, B − A.
    pub(crate) delta: Option<f64>,
    pub(crate) steps: &'a [StepChange],
    pub(crate) beside: &'a [Beside],
    /// "moved from strix to kiln: ...".
    pub(crate) moved: Option<&'a str>,
    pub(crate) revision_a: Option<&'a str>,
    pub(crate) revision_b: Option<&'a str>,
}

/// "pytorch build_s +140 s: `[builder 8/11] RUN ...` 7m00s → 9m20s (vertex
/// changed; revision 3f9c2e1a → 8d01b6c5); no other step moved more than 5 s."
pub(crate) fn sentence(w: &Why) -> String {
    // A time in seconds; steps cached as the count of steps it is.
    let delta = match (w.metric, w.delta) {
        (_, None) => " (change not measured)".to_string(),
        (Metric::StepsCached, Some(d)) => format!(", {}", cached_steps_moved(d)),
        (_, Some(d)) => format!(" {d:+.0} s"),
    };
    let mut revision = revision_change(w.revision_a, w.revision_b);
    let named: Vec<&StepChange> = w
        .steps
        .iter()
        .take(TOP)
        .filter(|s| s.delta_s.abs() > TIME_RESOLUTION_S)
        .collect();
    let mut parts: Vec<String> = named
        .iter()
        .map(|s| {
            // The revision goes beside the first step whose inputs changed, else the first named.
            let takes = s.vertex_changed == Some(true) || s.cause() == Some("new step");
            let extra = if takes { revision.take() } else { None };
            step_phrase(s, extra.as_deref())
        })
        .collect();
    let rest = w
        .steps
        .iter()
        .skip(named.len())
        .map(|s| s.delta_s.abs())
        .fold(0.0_f64, f64::max)
        .max(TIME_RESOLUTION_S);
    let other = if named.is_empty() { "no" } else { "no other" };
    if w.steps.is_empty() {
        parts.push("no steps to compare".into());
    } else {
        parts.push(format!("{other} step moved more than {rest:.0} s"));
    }
    parts.extend(w.beside.iter().filter_map(Beside::moved));
    if let Some(m) = w.moved {
        parts.push(md_text(m));
    }
    if let Some(r) = revision {
        parts.push(r);
    }
    format!(
        "{} {}{delta}: {}.",
        md_text(w.target),
        md_text(w.metric.name()),
        parts.join("; ")
    )
}

/// A change of steps cached in words: "1 step no longer cached", "2 more steps cached".
pub(crate) fn cached_steps_moved(d: f64) -> String {
    let n = d.abs().round() as u64;
    let steps = crate::fmt::counted(n, "step", "steps");
    if d < 0.0 {
        format!("{steps} no longer cached")
    } else if d > 0.0 {
        format!("{n} more {} cached", if n == 1 { "step" } else { "steps" })
    } else {
        "no step more or fewer cached".to_string()
    }
}

/// What a gate check says of a regression: the steps behind it against the
/// run typical of the band (the one nearest its median), and the revisions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct CheckWhy {
    /// The run the steps are compared with.
    pub(crate) against: String,
    /// The steps that moved most (at most `CHECK_STEPS`), largest first.
    pub(crate) steps: Vec<StepChange>,
    pub(crate) revision_before: Option<String>,
    pub(crate) revision_after: Option<String>,
    /// The same in a sentence (markdown).
    pub(crate) text: String,
}

/// How many steps a gate check carries.
pub(crate) const CHECK_STEPS: usize = 5;

/// Why `run`'s `target` `metric` (`measured`) left its band, against the band's typical run.
pub(crate) fn check_why(
    typical: &crate::history::bands::Typical,
    run: &crate::figures::Figures,
    target: &str,
    metric: Metric,
    measured: f64,
) -> Option<CheckWhy> {
    let t = run.targets.get(target)?;
    let mut steps = crate::analysis::step_diff::diff(&typical.steps, &t.steps);
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
        revision_after: run.revision.value().cloned(),
        text: format!("against {}: {text}", md_text(&typical.stamp)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::step_diff::{diff, StepRecord};

    fn rec(name: &str, vertex: &str, s: f64, ran: bool) -> StepRecord {
        StepRecord {
            name: name.into(),
            vertex: Some(vertex.into()),
            us: (s * 1e6) as i64,
            ran,
        }
    }

    #[test]
    fn the_sentence_names_the_step_its_cause_and_the_revision() {
        let a = [
            rec(
                "[builder 8/11] RUN MAX_JOBS=10 python setup.py bdist_wheel",
                "v1",
                420.0,
                true,
            ),
            rec("[builder 9/11] RUN strip", "s", 30.0, true),
        ];
        let b = [
            rec(
                "[builder 8/11] RUN MAX_JOBS=10 python setup.py bdist_wheel",
                "v2",
                560.0,
                true,
            ),
            rec("[builder 9/11] RUN strip", "s", 32.0, true),
        ];
        let steps = diff(&a, &b);
        let s = sentence(&Why {
            target: "pytorch",
            metric: Metric::Build,
            delta: Some(140.0),
            steps: &steps,
            beside: &[],
            moved: None,
            revision_a: Some("3f9c2e1a77"),
            revision_b: Some("8d01b6c5"),
        });
        assert_eq!(
            s,
            "pytorch build_s +140 s: `[builder 8/11] RUN MAX_JOBS=10 python setup.py bdist_wheel` 7m00s → 9m20s (vertex changed; revision 3f9c2e1a77 → 8d01b6c5); no other step moved more than 5 s."
        );
    }

    #[test]
    fn a_cache_miss_is_called_one_and_what_moved_beside_is_said() {
        let steps = diff(
            &[rec("[b 1/1] RUN pip", "v", 0.0, false)],
            &[rec("[b 1/1] RUN pip", "v", 300.0, true)],
        );
        let beside = [
            Beside {
                what: Alongside::Upload,
                a: Some(60.0),
                b: Some(180.0),
            },
            Beside {
                what: Alongside::Setup,
                a: Some(10.0),
                b: Some(11.0),
            },
        ];
        let s = sentence(&Why {
            target: "vllm",
            metric: Metric::Total,
            delta: Some(420.0),
            steps: &steps,
            beside: &beside,
            moved: None,
            revision_a: Some("abc"),
            revision_b: Some("abc"),
        });
        assert_eq!(
            s,
            "vllm total_s +420 s: `[b 1/1] RUN pip` 0s (cached) → 5m00s (layer-cache miss); no other step moved more than 5 s; upload 1m00s → 3m00s."
        );
        // A count has no unit.
        let s = sentence(&Why {
            target: "vllm",
            metric: Metric::StepsCached,
            delta: Some(-1.0),
            steps: &steps,
            beside: &[],
            moved: None,
            revision_a: None,
            revision_b: None,
        });
        assert!(s.starts_with("vllm steps_cached, 1 step no longer cached: "), "{s}");
    }

    #[test]
    fn backticks_in_step_names_cannot_pair_across_names() {
        let steps = diff(
            &[
                rec("[b 1/2] RUN echo `a", "v", 0.0, true),
                rec("[b 2/2] RUN b`", "w", 0.0, true),
            ],
            &[
                rec("[b 1/2] RUN echo `a", "v", 60.0, true),
                rec("[b 2/2] RUN b`", "w", 50.0, true),
            ],
        );
        let s = sentence(&Why {
            target: "t",
            metric: Metric::Build,
            delta: Some(110.0),
            steps: &steps,
            beside: &[],
            moved: None,
            revision_a: None,
            revision_b: None,
        });
        assert!(s.contains("``[b 1/2] RUN echo `a``"), "{s}");
        assert!(s.contains("`` [b 2/2] RUN b` ``"), "{s}");
    }
}
