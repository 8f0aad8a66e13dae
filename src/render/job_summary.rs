//! The night's verdicts as a markdown job summary, the form CI job-summary
//! files take (`$GITHUB_STEP_SUMMARY`, GitLab's and Forgejo's alike): a line
//! per gated run with its verdict, then each regression with its band and n,
//! and with a site's address a link to each run's page on it.

use super::Export;
use crate::error::Result;
use crate::gate::night::{Night, Verdict};
use crate::output::OutFile;
use crate::term::quote;

/// Markdown text and code of an input's string, its control and bidi
/// characters quoted first: a summary view must not reorder or hide a name.
fn md_text(s: &str) -> String {
    crate::escape::md_text(&quote(s))
}

fn md_code(s: &str) -> String {
    crate::escape::md_code(&quote(s))
}
use crate::timefmt::human_duration;

pub(crate) const FILE: &str = "summary.md";

/// The job summary, as `gate --summary` appends it. `page_of`: where a
/// run's page is on the published site (from its folder under the root),
/// when there is one.
pub struct JobSummary<'a> {
    pub page_of: Option<&'a dyn Fn(&str) -> String>,
}

impl Export<Night> for JobSummary<'_> {
    fn render(&self, night: &Night) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(FILE, summary(night, self.page_of))])
    }
}

/// The regressions open since an earlier night, each with its id.
fn open_list(night: &Night) -> String {
    let open: Vec<String> = night
        .runs
        .iter()
        .flat_map(|r| r.open.iter())
        .map(|o| format!("- {} ({})\n", md_text(&o.line()), md_code(&o.shift.id)))
        .collect();
    if open.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nOpen since an earlier night (red on the night each was called; accept one in perf-accepted.toml by its id):\n\n");
    s.push_str(&open.concat());
    s
}

fn summary(night: &Night, page_of: Option<&dyn Fn(&str) -> String>) -> String {
    let regressed = night.runs.iter().filter(|r| r.verdict == Verdict::Regressed).count();
    let gated = night.runs.iter().filter(|r| r.verdict != Verdict::NotGated).count();
    let headline = if night.regressions > 0 {
        format!(
            "{} in {} of {}",
            crate::fmt::counted(night.regressions as u64, "regression", "regressions"),
            regressed,
            crate::fmt::counted(gated as u64, "gated run", "gated runs")
        )
    } else if night.checked > 0 {
        format!(
            "passed, {} over {}",
            crate::fmt::counted(night.checked as u64, "check", "checks"),
            crate::fmt::counted(night.runs.len() as u64, "run", "runs")
        )
    } else {
        "nothing could be gated".to_string()
    };
    let mut s = format!(
        "### perfreport gate: {headline}\n\nThe night: the newest run of each key that started within {} of {}.\n\n",
        human_duration(night.window_s),
        night.newest.as_deref().map_or("—".into(), md_code)
    );
    for run in &night.runs {
        let mark = match run.verdict {
            Verdict::Regressed => "❌ **regressed**",
            Verdict::Passed => "✅ passed",
            Verdict::NotGated => "⚪ not gated",
        };
        let stamp = match page_of {
            Some(page_of) => format!("[{}]({})", md_text(&run.stamp), page_of(&run.dir)),
            None => md_code(&run.stamp),
        };
        let rest = match run.verdict {
            Verdict::Regressed => format!(
                ": {}",
                run.regressed_checks()
                    .iter()
                    .map(|c| format!("{} {}", md_code(&c.target), md_code(c.metric.name())))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Verdict::Passed => format!(" ({})", crate::fmt::counted(run.checked as u64, "check", "checks")),
            Verdict::NotGated => format!(": {}", md_text(run.not_gated.as_deref().unwrap_or("no check ran"))),
        };
        s.push_str(&format!("- {mark} {stamp} ({}){rest}\n", md_text(&run.key)));
    }
    let regressions: Vec<_> = night
        .runs
        .iter()
        .flat_map(|r| r.regressed_checks().into_iter().map(move |c| (r, c)))
        .collect();
    if !regressions.is_empty() {
        s.push_str(
            "\n| run | target | metric | measured | expected | change | band (n) |\n|---|---|---|---|---|---|---|\n",
        );
        for (run, c) in &regressions {
            let n = run.comparable_runs.to_string();
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} (n = {n}) |\n",
                md_code(&run.stamp),
                md_code(&c.target),
                md_code(c.metric.name()),
                c.measured
                    .map_or("—".into(), |m| crate::fmt::metric(c.metric.name(), m)),
                c.expected
                    .map_or("—".into(), |e| crate::fmt::metric(c.metric.name(), e)),
                c.drift_pct.map_or("—".into(), crate::gate::shown_drift),
                md_text(&c.band_from),
            ));
            if let Some(load) = &c.rests_on_loaded {
                s.push_str(&format!("| | ⚠ rests on a loaded run: {} | | | | | |\n", md_text(load)));
            }
        }
        // The steps behind each regression: a sentence is no table cell.
        let whys: Vec<String> = regressions
            .iter()
            .filter_map(|(run, c)| {
                let why = c.why.as_ref()?;
                let (stamp, target, metric) = (md_code(&run.stamp), md_code(&c.target), md_code(c.metric.name()));
                Some(format!("- {stamp} {target} {metric}: {}\n", why.text))
            })
            .collect();
        if !whys.is_empty() {
            s.push_str("\nWhy it moved:\n\n");
            s.push_str(&whys.concat());
        }
    }
    s.push_str(&open_list(night));
    s.push('\n');
    s
}
