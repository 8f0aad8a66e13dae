//! The night's verdicts as a markdown job summary, the form CI job-summary
//! files take (`$GITHUB_STEP_SUMMARY`, GitLab's and Forgejo's alike): a line
//! per gated run with its verdict, then each regression with its band and n,
//! and with a site URL a link to each run's page on the published site.

use super::night::{Night, Verdict};
use crate::render::escape::{md_code, md_text};
use crate::timefmt::human_duration;

/// The summary of `night`; `site_url`, the published site's address.
pub fn render(night: &Night, site_url: Option<&str>) -> String {
    let regressed = night.runs.iter().filter(|r| r.verdict == Verdict::Regressed).count();
    let headline = if night.regressions > 0 {
        format!(
            "{} in {} of {}",
            crate::fmt::counted(night.regressions as u64, "regression", "regressions"),
            regressed,
            crate::fmt::counted(night.runs.len() as u64, "gated run", "gated runs")
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
        let stamp = match site_url {
            Some(url) => format!("[{}]({})", md_text(&run.stamp), run_url(url, &run.dir)),
            None => md_code(&run.stamp),
        };
        let rest = match run.verdict {
            Verdict::Regressed => format!(
                ": {}",
                run.regressed_checks()
                    .iter()
                    .map(|c| format!("{} {}", md_code(&c.target), md_code(&c.metric)))
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
        for (run, c) in regressions {
            let n = run.comparable_runs.to_string();
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} (n = {n}) |\n",
                md_code(&run.stamp),
                md_code(&c.target),
                md_code(&c.metric),
                c.measured.map_or("—".into(), |m| super::shown_value(&c.metric, m)),
                super::shown_value(&c.metric, c.expected),
                c.drift_pct.map_or("—".into(), |d| format!("{d:+.1}%")),
                md_text(&c.band_from),
            ));
            if let Some(load) = &c.rests_on_loaded {
                s.push_str(&format!("| | ⚠ rests on a loaded run: {} | | | | | |\n", md_text(load)));
            }
        }
    }
    s.push('\n');
    s
}

/// A run's page on the published site: `runs/<folder>/`, the folder as
/// publish names it (characters that need it percent-encoded for the link).
pub fn run_url(site_url: &str, dir: &str) -> String {
    let folder = crate::publish::folder_name(std::path::Path::new(dir)).unwrap_or_default();
    let mut url = format!("{}/runs/{folder}/", site_url.trim_end_matches('/'));
    for (c, e) in [(' ', "%20"), ('(', "%28"), (')', "%29"), ('<', "%3C"), ('>', "%3E")] {
        url = url.replace(c, e);
    }
    url
}
