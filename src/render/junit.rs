//! The night's verdicts as JUnit XML, the report format CI test views read:
//! a `testsuite` per gated run (its stamp; mode, arch and job width as
//! properties), a `testcase` per target and metric (classname the target,
//! name the metric), `failure` for a regression, `skipped` with the reason
//! for a metric that is not gateable. A run that could not be gated is a
//! suite with one skipped case saying why, so the view shows it too.

use super::Export;
use crate::error::Result;
use crate::escape::xml;
use crate::gate::night::{GatedRun, Night};
use crate::gate::Check;
use crate::output::OutFile;
use std::fmt::Write;

pub(crate) const FILE: &str = "junit.xml";

/// JUnit XML, as `gate --junit` writes it.
pub struct Junit;

impl Export<Night> for Junit {
    fn render(&self, night: &Night) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(FILE, document(night))])
    }
}

/// The JUnit document for `night`.
fn document(night: &Night) -> String {
    let tests: usize = night.runs.iter().map(|r| cases(r).len() + r.unmeasured.len()).sum();
    let failures: usize = night.runs.iter().map(failures_in).sum();
    let skipped: usize = night.runs.iter().map(skipped_in).sum();
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        "<testsuites name=\"perfreport gate\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">"
    );
    for run in &night.runs {
        // Suites are named by stamp; two runs of one stamp (nested roots) by folder.
        let shared = night.runs.iter().filter(|r| r.stamp == run.stamp).count() > 1;
        suite(&mut s, run, if shared { &run.dir } else { &run.stamp });
    }
    s.push_str("</testsuites>\n");
    s
}

/// A run's cases: (classname, name, check) — a run not gated has one of its own.
fn cases(run: &GatedRun) -> Vec<(&str, &str, Option<&Check>)> {
    if run.checks.is_empty() {
        return vec![(run.stamp.as_str(), "gate", None)];
    }
    run.checks
        .iter()
        .map(|c| (c.target.as_str(), c.metric.name(), Some(c)))
        .collect()
}

/// Regressions, and each target the runs before measured and this one did not.
fn failures_in(run: &GatedRun) -> usize {
    run.regressions + run.unmeasured.len()
}

fn skipped_in(run: &GatedRun) -> usize {
    cases(run)
        .iter()
        .filter(|(_, _, c)| c.is_none_or(|c| !c.checked()))
        .count()
}

fn suite(s: &mut String, run: &GatedRun, name: &str) {
    let cases = cases(run);
    let _ = writeln!(
        s,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\"{}>",
        xml(name),
        cases.len() + run.unmeasured.len(),
        failures_in(run),
        skipped_in(run),
        run.started_at
            .as_deref()
            .map(|t| format!(" timestamp=\"{}\"", xml(t.trim_end_matches('Z'))))
            .unwrap_or_default()
    );
    s.push_str("    <properties>\n");
    let unknown = || "not recorded".to_string();
    let props = [
        ("mode", run.mode.clone().unwrap_or_else(unknown)),
        ("arch", run.arch.clone().unwrap_or_else(unknown)),
        ("job_width", run.max_jobs.map(|j| j.to_string()).unwrap_or_else(unknown)),
        ("dir", run.dir.clone()),
        ("verdict", run.verdict_line()),
        ("against", run.against.clone()),
    ];
    for (name, value) in props {
        let _ = writeln!(s, "      <property name=\"{name}\" value=\"{}\"/>", xml(&value));
    }
    s.push_str("    </properties>\n");
    for (class, name, check) in cases {
        let _ = write!(s, "    <testcase classname=\"{}\" name=\"{}\"", xml(class), xml(name));
        match check {
            None => {
                let why = run.not_gated.as_deref().unwrap_or("not gated");
                let _ = writeln!(
                    s,
                    ">\n      <skipped message=\"not gated: {}\"/>\n    </testcase>",
                    xml(why)
                );
            }
            Some(c) if c.is_regression() => {
                let _ = writeln!(
                    s,
                    ">\n      <failure message=\"{}\" type=\"regression\">{}</failure>\n    </testcase>",
                    xml(&c.regression_line()),
                    xml(&detail(c))
                );
            }
            Some(c) if !c.checked() => {
                let _ = writeln!(
                    s,
                    ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                    xml(&c.verdict)
                );
            }
            Some(c) => {
                let _ = writeln!(
                    s,
                    ">\n      <system-out>{}</system-out>\n    </testcase>",
                    xml(&detail(c))
                );
            }
        }
    }
    for what in &run.unmeasured {
        let target = what.split(" (").next().unwrap_or(what);
        let _ = writeln!(
            s,
            "    <testcase classname=\"{}\" name=\"measured\">\n      <failure message=\"not measured in this run: {}\" type=\"unmeasured\"/>\n    </testcase>",
            xml(target),
            xml(what)
        );
    }
    s.push_str("  </testsuite>\n");
}

/// A check in a sentence: what was measured against what, and its verdict.
fn detail(c: &Check) -> String {
    let mut d = format!(
        "{} {}: measured {}, expected {} ({}); {}",
        c.target,
        c.metric,
        c.measured
            .map_or("not measured".into(), |m| crate::fmt::metric(c.metric.name(), m)),
        c.expected
            .map_or("nothing".into(), |e| crate::fmt::metric(c.metric.name(), e)),
        c.band_from,
        c.verdict
    );
    if let Some(load) = &c.rests_on_loaded {
        let _ = write!(d, "; it rests on a loaded run: {load}");
    }
    if let Some(why) = &c.why {
        let _ = write!(d, "; why: {}", why.text);
    }
    d
}
