//! `perfreport check`: does each producer still agree with its consumer?
//! The failures this catches are the predecessor's: a log format changed,
//! the parser silently matched nothing, and the report said 0.

use crate::input::run_rules;
use crate::input::sccache::LogFormat;
use crate::model::{self, Run};
use crate::timefmt::{self, Micros};
use serde::Serialize;

/// Trace spans further than this outside the samples' window mean skewed clocks.
pub(crate) const SKEW: Micros = 60_000_000;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Finding {
    /// The input the finding is about.
    pub(crate) input: String,
    pub(crate) ok: bool,
    /// What was read, in a few words.
    pub(crate) summary: String,
    pub(crate) problems: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CheckReport {
    pub(crate) run: String,
    pub ok: bool,
    pub(crate) findings: Vec<Finding>,
}

/// The contract's verdict on one present input, as the report and
/// `--strict` read it; an input that kept its contract but none of whose
/// records is this run's (all outside its window) is not ok either.
fn input_finding(i: &crate::input::InputReport) -> Finding {
    let mut problems = i.breaches.clone();
    problems.extend(i.not_measured.iter().cloned());
    if i.contract_broken {
        let said = |w: &String| problems.iter().any(|b| w.ends_with(b.as_str()));
        let more: Vec<String> = i.warnings.iter().filter(|w| !said(w)).take(3).cloned().collect();
        problems.extend(more);
    }
    Finding {
        input: i.name.clone(),
        ok: !i.contract_broken && i.not_measured.is_none(),
        summary: format!(
            "{} records from {} lines, {} skipped, {} malformed",
            i.records, i.lines, i.skipped, i.malformed
        ),
        problems,
    }
}

pub fn check(run: &Run) -> CheckReport {
    let mut findings: Vec<Finding> = vec![];
    let info = run.info.as_ref();
    findings.extend(run.inputs.iter().filter(|i| i.present).map(input_finding));
    // nginx: when the lines do not fit the format the server says it
    // writes, show the expected shape beside a line that does not.
    if let Some(s) = run
        .input(model::SCCACHE)
        .filter(|s| s.contract_broken && s.malformed > 0)
    {
        let format = model::RunDir::new(&run.dir, model::Links::StayInside)
            .read_at_most(model::NGINX_FORMAT, model::NGINX_FORMAT_MAX)
            .and_then(|t| LogFormat::from_directive(&String::from_utf8_lossy(&t)).ok())
            .unwrap_or_else(LogFormat::combined);
        if let Some(f) = findings.iter_mut().find(|f| f.input == model::SCCACHE) {
            f.problems
                .push(format!("expected shape ({}): {}", format.name, format.expected_shape()));
            if let Some(sample) = s.warnings.iter().find(|w| w.contains("the line:")) {
                f.problems.push(format!("a line that does not fit: {sample}"));
            }
        }
    }
    // The run-level rules, in the report's words. A present trace that
    // cannot be read fails its own finding below.
    let mut run_level = vec![];
    if let Some(i) = info {
        let present = |file: &str| run.input(file).is_some_and(|r| r.present);
        run_level.extend(
            run_rules::announced_without_trace(i, present)
                .into_iter()
                .map(|(_, w)| w),
        );
        run_level.extend(run_rules::samples_from_unlisted_nodes(i, run.samples.by_node.keys()));
    }
    let window = sample_window(run);
    for tr in &run.traces {
        let f = &tr.figures;
        let name = format!("trace-{}.json", tr.target);
        let mut problems = vec![];
        // A finished run's records have all ended: each has a root span with an end.
        if !run.in_flight() {
            match f.root {
                crate::analysis::targets::Root::Missing => {
                    problems.push("no root span: the record's total cannot be measured".to_string())
                }
                crate::analysis::targets::Root::Unended => {
                    problems.push("the root span has not ended: the record's total cannot be measured".to_string())
                }
                crate::analysis::targets::Root::Ended => {}
            }
        }
        if f.steps_total == 0 {
            problems.push("no step spans (`[stage n/m] ...`): the build time cannot be measured".to_string());
        }
        if let (Some((lo, hi)), Some(start)) = (window, f.start) {
            let end = f.end.or(f.last_step_end).unwrap_or(start);
            if start < lo - SKEW || end > hi + SKEW {
                problems.push(format!(
                    "spans from {} to {} lie outside the samples' window {} to {} by more than a minute: clocks may be skewed",
                    timefmt::format_rfc3339(start),
                    timefmt::format_rfc3339(end),
                    timefmt::format_rfc3339(lo),
                    timefmt::format_rfc3339(hi)
                ));
            }
        }
        if let Some(existing) = findings.iter_mut().find(|x| x.input == name) {
            existing.ok &= problems.is_empty();
            existing.problems.extend(problems);
        }
    }
    if !run_level.is_empty() {
        findings.push(Finding {
            input: "(run)".into(),
            ok: false,
            summary: "the inputs together".into(),
            problems: run_level,
        });
    }
    CheckReport {
        run: run.dir.display().to_string(),
        ok: findings.iter().all(|f| f.ok),
        findings,
    }
}

/// The time the samples cover, over every node.
fn sample_window(run: &Run) -> Option<(Micros, Micros)> {
    let first = run.samples.by_node.values().filter_map(|v| v.first_ts()).min()?;
    let last = run.samples.by_node.values().filter_map(|v| v.last_ts()).max()?;
    Some((first, last))
}
