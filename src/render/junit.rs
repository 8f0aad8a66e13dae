//! The night's verdicts as JUnit XML, the report format CI test views read,
//! valid against the Jenkins/Ant `junit-10.xsd` (tests/tools/junit/).
//!
//! A `testsuite` per gated run, named by its coordinate key
//! (`gfx1201.warm.j32`: arch, mode, job width), so a CI view follows it from
//! night to night; a `testcase` per target and metric, its classname the
//! key and the target (`gfx1201.warm.j32.pytorch`), its name the metric
//! (`build_s`). The night's stamp, folder and verdict are the suite's
//! properties, each named after its suite (`gfx1201.warm.j32.stamp`): some
//! parsers (xunitparser) merge every suite's properties into one map and
//! refuse a name twice.
//!
//! `failure` for a regression; `error` for each run, target and input that
//! kept the night from being judged (the lane's exit 2: a broken or undated
//! run, a target not measured, a run dated after the clock); `skipped` with
//! the reason for a metric that is not gateable or a run with no history.
//! Text is plain (a why's markdown read as its words), every input's
//! control, bidi and invisible character shown as the terminal shows it and
//! every character XML cannot carry replaced the same way (`escape::xml`).

use super::Export;
use crate::error::Result;
use crate::escape::{md_plain, xml};
use crate::gate::night::{GatedRun, Night};
use crate::gate::unjudged::DATED_IN_FUTURE;
use crate::gate::Check;
use crate::output::OutFile;
use std::fmt::Write;

pub(crate) const FILE: &str = "junit.xml";

/// The suite of the runs left out of the night (dated after the clock).
const LEFT_OUT_SUITE: &str = "perfreport.night";

/// JUnit XML, as `gate --junit` writes it.
pub struct Junit<'a> {
    /// Each run's page on the published site, by folder (`gate --site-url`):
    /// a suite's `page` property, and the last line of each failure.
    pub page_of: Option<&'a dyn Fn(&str) -> String>,
}

impl Export<Night> for Junit<'_> {
    fn render(&self, night: &Night) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(FILE, document(night, self.page_of))])
    }
}

/// A run's key as a dotted id: `gfx1201.warm.j32`, `?` where run.json does
/// not say.
fn key_id(run: &GatedRun) -> String {
    format!(
        "{}.{}.j{}",
        run.arch.as_deref().unwrap_or("?"),
        run.mode.as_deref().unwrap_or("?"),
        run.max_jobs.map_or("?".into(), |j| j.to_string())
    )
}

/// What one result of a case is.
enum Outcome {
    Passed(String),
    Failure { message: String, body: String },
    Error { kind: &'static str, message: String },
    Skipped(String),
}

struct Case {
    classname: String,
    name: String,
    outcome: Outcome,
}

struct Suite {
    name: String,
    timestamp: Option<String>,
    properties: Vec<(&'static str, String)>,
    cases: Vec<Case>,
}

impl Suite {
    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.cases.iter().filter(|c| f(&c.outcome)).count()
    }
    fn failures(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Failure { .. }))
    }
    fn errors(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Error { .. }))
    }
    fn skipped(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Skipped(_)))
    }
}

/// The suites of `night`: one per run (the first run of a key takes the
/// key's name, a later one of the same key adds its folder), then one for
/// the runs left out of the night.
fn suites(night: &Night, page_of: Option<&dyn Fn(&str) -> String>) -> Vec<Suite> {
    let mut out: Vec<Suite> = vec![];
    let mut taken = std::collections::BTreeSet::new();
    for run in &night.runs {
        let key = key_id(run);
        let name = if taken.insert(key.clone()) {
            key
        } else {
            format!("{key}@{}", run.dir)
        };
        out.push(run_suite(run, name, page_of.map(|p| p(&run.dir))));
    }
    if !night.dated_in_future.is_empty() {
        out.push(Suite {
            name: LEFT_OUT_SUITE.into(),
            timestamp: None,
            properties: vec![],
            cases: night
                .dated_in_future
                .iter()
                .map(|dir| Case {
                    classname: format!("{LEFT_OUT_SUITE}.dated_after_the_clock"),
                    name: dir.clone(),
                    outcome: Outcome::Error {
                        kind: "dated_in_future",
                        message: format!("{dir}: {DATED_IN_FUTURE}"),
                    },
                })
                .collect(),
        });
    }
    out
}

fn run_suite(run: &GatedRun, name: String, page: Option<String>) -> Suite {
    let unknown = || "not recorded".to_string();
    let mut properties = vec![
        ("stamp", run.stamp.clone()),
        ("dir", run.dir.clone()),
        ("mode", run.mode.clone().unwrap_or_else(unknown)),
        ("arch", run.arch.clone().unwrap_or_else(unknown)),
        ("job_width", run.max_jobs.map(|j| j.to_string()).unwrap_or_else(unknown)),
        ("verdict", run.verdict_line()),
    ];
    if !run.against.is_empty() {
        properties.push(("against", run.against.clone()));
    }
    if let Some(page) = &page {
        properties.push(("page", page.clone()));
    }
    let mut cases: Vec<Case> = vec![];
    if run.checks.is_empty() && run.unmeasured.is_empty() {
        let why = run.not_gated.clone().unwrap_or_else(|| "no check ran".into());
        cases.push(Case {
            classname: name.clone(),
            name: "gate".into(),
            outcome: if run.unusable {
                Outcome::Error {
                    kind: "unusable",
                    message: format!("{}: could not be judged: {why}", run.stamp),
                }
            } else {
                Outcome::Skipped(format!("not gated: {why}"))
            },
        });
    }
    for c in &run.checks {
        let outcome = if c.is_regression() {
            Outcome::Failure {
                message: c.regression_line(),
                body: match &page {
                    Some(page) => format!("{}\nthe night's page: {page}", detail(c)),
                    None => detail(c),
                },
            }
        } else if !c.checked() {
            Outcome::Skipped(c.verdict.clone())
        } else {
            Outcome::Passed(detail(c))
        };
        cases.push(Case {
            classname: format!("{name}.{}", c.target),
            name: c.metric.name().into(),
            outcome,
        });
    }
    for what in &run.unmeasured {
        cases.push(Case {
            classname: format!("{name}.{}", what.target),
            name: "measured".into(),
            outcome: Outcome::Error {
                kind: "unmeasured",
                message: format!("{}: not measured in this run: {what}", run.stamp),
            },
        });
    }
    Suite {
        name,
        timestamp: run.started_at.as_deref().map(|t| t.trim_end_matches('Z').to_string()),
        properties,
        cases,
    }
}

/// The JUnit document for `night`.
fn document(night: &Night, page_of: Option<&dyn Fn(&str) -> String>) -> String {
    let suites = suites(night, page_of);
    let sum = |f: fn(&Suite) -> usize| suites.iter().map(f).sum::<usize>();
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        "<testsuites name=\"perfreport gate\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
        sum(|s| s.cases.len()),
        sum(Suite::failures),
        sum(Suite::errors),
    );
    for suite in &suites {
        write_suite(&mut s, suite);
    }
    s.push_str("</testsuites>\n");
    s
}

fn write_suite(s: &mut String, suite: &Suite) {
    let _ = writeln!(
        s,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"{}>",
        xml(&suite.name),
        suite.cases.len(),
        suite.failures(),
        suite.errors(),
        suite.skipped(),
        suite
            .timestamp
            .as_deref()
            .map(|t| format!(" timestamp=\"{}\"", xml(t)))
            .unwrap_or_default()
    );
    if !suite.properties.is_empty() {
        s.push_str("    <properties>\n");
        for (name, value) in &suite.properties {
            let _ = writeln!(
                s,
                "      <property name=\"{}.{name}\" value=\"{}\"/>",
                xml(&suite.name),
                xml(value)
            );
        }
        s.push_str("    </properties>\n");
    }
    for case in &suite.cases {
        let _ = write!(
            s,
            "    <testcase classname=\"{}\" name=\"{}\">\n      ",
            xml(&case.classname),
            xml(&case.name)
        );
        let _ = match &case.outcome {
            Outcome::Passed(detail) => write!(s, "<system-out>{}</system-out>", xml(detail)),
            Outcome::Failure { message, body } => write!(
                s,
                "<failure message=\"{}\" type=\"regression\">{}</failure>",
                xml(message),
                xml(body)
            ),
            Outcome::Error { kind, message } => {
                write!(s, "<error message=\"{}\" type=\"{kind}\"/>", xml(message))
            }
            Outcome::Skipped(why) => write!(s, "<skipped message=\"{}\"/>", xml(why)),
        };
        s.push_str("\n    </testcase>\n");
    }
    s.push_str("  </testsuite>\n");
}

/// A check in a plain sentence: what was measured against what, and its verdict.
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
        // The why is markdown (step names as code spans): its words, plain.
        let _ = write!(d, "; why: {}", md_plain(&why.text));
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_reads_plain_without_markdown_escapes() {
        let md = format!(
            "against {}: {} build_s +150 s: {} 16m40s → 19m10s.",
            crate::escape::md_text("_nightly_"),
            crate::escape::md_text("*vision*"),
            crate::escape::md_code("RUN python setup.py bdist_wheel")
        );
        assert!(md.contains("\\_") && md.contains('`'), "{md}");
        assert_eq!(
            md_plain(&md),
            "against _nightly_: *vision* build_s +150 s: RUN python setup.py bdist_wheel 16m40s → 19m10s."
        );
    }
}
