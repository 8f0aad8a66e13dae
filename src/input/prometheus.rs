//! `--prometheus URL`: a run's node samples read from a Prometheus-compatible
//! server (Prometheus, Thanos, Mimir, VictoriaMetrics) over the run's window,
//! instead of from samples.jsonl.
//!
//! For each node of run.json (its `instance`, else `addr:9100`) the window
//! (`started_at` to `finished_at`, or to now for a run in flight) is read
//! with `query_range` at the harness's poll step, one query per figure for
//! up to [`INSTANCES_PER_QUERY`] nodes at once, each summed by the poller's
//! rules (`queries`). The points become the very lines the harness writes
//! to samples.jsonl, one per node per scrape (a scrape seen at two steps is
//! one poll, at the scrape's own time), and those lines go through the
//! samples.jsonl parser: the figures, the charts and every rule after them
//! cannot tell the two sources apart, and `--save-samples` writes those
//! lines as the run's samples.jsonl.
//!
//! The server is an input like a file: what was asked and what came back is
//! counted (points read, polls made, points skipped or malformed), and a
//! server that cannot be reached, is slow, answers an error or too much, or
//! holds no series for a node, is said naming the server and the node; that
//! node's figures are `null` with the reason and the rest of the run is
//! reported. Every request is bounded (`http`).

mod api;
pub mod http;
mod queries;

pub use http::Server;

use super::read::RunDir;
use super::run_json::RunInfo;
use super::samples::{PollFold, Samples};
use super::InputReport;
use crate::timefmt::{self, Micros};
use queries::{Figure, FIGURES};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// The input's name in a report (`data.json` `inputs`).
pub(crate) const NAME: &str = "prometheus";
/// The harness polls every 5 s unless run.json says otherwise (`poll_s`).
pub(crate) const DEFAULT_STEP_S: f64 = 5.0;
/// Steps of one request: Prometheus refuses more than 11,000 points a
/// series, and a smaller answer keeps memory to a few MB at a time.
pub(crate) const POINTS_PER_REQUEST: u64 = 1440;
/// The most points of a series over the whole window: past it the step is
/// widened (55 hours at 5 s).
pub(crate) const MAX_POINTS: u64 = 40_000;
/// Nodes asked for in one query.
pub(crate) const INSTANCES_PER_QUERY: usize = 16;

/// What the server said of the run, for its input report and provenance.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Source {
    /// The server's base URL, without credentials.
    pub(crate) server: String,
    /// The window read and its step.
    pub(crate) start: String,
    pub(crate) end: String,
    pub(crate) step_s: f64,
    /// Every PromQL query asked (each over the window, in requests of at
    /// most `POINTS_PER_REQUEST` steps).
    pub(crate) queries: Vec<String>,
    pub(crate) requests: u64,
    /// Points read, over every series.
    pub(crate) points: u64,
    pub(crate) series: u64,
    /// Per node of run.json: what was read of it, or why nothing was.
    pub(crate) nodes: BTreeMap<String, NodeRead>,
}

/// One node's part of a read.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub(crate) struct NodeRead {
    pub(crate) instance: Option<String>,
    /// The `job` its series were taken from (the first by name, when more
    /// than one job scrapes the instance).
    pub(crate) job: Option<String>,
    pub(crate) points: u64,
    pub(crate) polls: u64,
    /// Why the node has no samples; absent when it has some.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) why: Option<String>,
}

/// What a read gives the run model.
pub(crate) struct Reading<F> {
    pub(crate) samples: Option<Samples<F>>,
    pub(crate) report: InputReport,
    /// samples.jsonl, when the run has one: present, and not read.
    pub(crate) file: Option<InputReport>,
    /// Why a node of run.json has no samples, by node.
    pub(crate) unsampled: BTreeMap<String, String>,
    /// The polls as samples.jsonl lines, in time order (when asked for).
    pub(crate) polls: Option<Vec<u8>>,
}

/// The window, its step and the nodes to ask for, in groups.
#[derive(Debug)]
struct Plan {
    /// The first step, in whole milliseconds.
    start: Micros,
    step: Micros,
    /// Steps in the window.
    steps: u64,
    groups: Vec<Vec<(String, String)>>,
    matchers: Vec<String>,
    /// Nodes that cannot be asked for, and why.
    unasked: Vec<(String, Option<String>, String)>,
    warnings: Vec<String>,
}

/// Reads the node samples of the run `info` describes from `server`;
/// `now` ends the window of a run in flight; `keep_polls` keeps the lines
/// made (for `--save-samples`).
pub(crate) fn read<F: PollFold>(
    server: &Server,
    dir: &RunDir,
    info: Option<&RunInfo>,
    now: Micros,
    keep_polls: bool,
) -> Reading<F> {
    let file = not_read(dir, server);
    let plan = match plan(server, info, now) {
        Ok(p) => p,
        Err(why) => return failed(server, info, why, file),
    };
    let mut state = ReadState::new(server, &plan, keep_polls);
    for (g, group) in plan.groups.iter().enumerate() {
        for chunk in 0..plan.steps.div_ceil(POINTS_PER_REQUEST) {
            let first = chunk * POINTS_PER_REQUEST;
            let steps = (plan.steps - first).min(POINTS_PER_REQUEST);
            let grid = Grid {
                start: plan.start + first as Micros * plan.step,
                step: plan.step,
                steps: steps as usize,
            };
            let answers = state.fetch(&plan.matchers[g], &grid);
            state.take(group, &grid, answers);
        }
    }
    state.finish(plan, file)
}

/// samples.jsonl's report when the run has one: it is not read, and says so.
fn not_read(dir: &RunDir, server: &Server) -> Option<InputReport> {
    let opened = dir.open(super::samples::FILE).ok()?;
    let mut r = InputReport::absent(super::samples::FILE);
    r.warnings.push(format!(
        "{}: in the run ({} bytes) but not read: the node samples come from the Prometheus server at {} (--prometheus)",
        super::samples::FILE,
        opened.meta.len(),
        server.shown()
    ));
    Some(r)
}

/// The window and the nodes, or why nothing can be asked.
fn plan(server: &Server, info: Option<&RunInfo>, now: Micros) -> Result<Plan, String> {
    let shown = server.shown();
    let info = info.ok_or_else(|| {
        format!("no run.json: the run's window and nodes are unknown, so nothing was asked of {shown}")
    })?;
    let started = info.started_at.ok_or_else(|| {
        format!("run.json has no `started_at`: the run's window is unknown, so nothing was asked of {shown}")
    })?;
    let end = info.finished_at.unwrap_or(now);
    if end < started {
        return Err(format!(
            "the run's window ends before it starts, so nothing was asked of {shown}"
        ));
    }
    if info.nodes.is_empty() {
        return Err(format!("run.json lists no nodes, so nothing was asked of {shown}"));
    }
    let start = started.div_euclid(1000) * 1000;
    let mut warnings = vec![];
    let wanted = ((info.poll_s.unwrap_or(DEFAULT_STEP_S) * 1000.0).round() as Micros).max(1) * 1000;
    let span = end - start;
    let mut step = wanted;
    if span / step + 1 > MAX_POINTS as Micros {
        // Whole seconds, so that the grid stays on the server's.
        step = (span / (MAX_POINTS as Micros - 1) / 1_000_000 + 1) * 1_000_000;
        warnings.push(format!(
            "{NAME}: the run's window ({}) at the poll step of {} would be more than {MAX_POINTS} points a series: read at a step of {} instead",
            timefmt::human_duration(span as f64 / 1e6),
            timefmt::human_duration(wanted as f64 / 1e6),
            timefmt::human_duration(step as f64 / 1e6)
        ));
    }
    let (asked, unasked) = nodes_to_ask(info);
    let groups: Vec<Vec<(String, String)>> = asked.chunks(INSTANCES_PER_QUERY).map(<[_]>::to_vec).collect();
    let matchers = groups
        .iter()
        .map(|g| queries::instance_matcher(g.iter().map(|(_, i)| i.as_str())))
        .collect();
    Ok(Plan {
        start,
        step,
        steps: (span / step) as u64 + 1,
        groups,
        matchers,
        unasked,
        warnings,
    })
}

/// run.json's nodes as (node, instance) to ask for, and those that cannot be
/// asked for as (node, instance, why); a node listed twice counts once.
type Unasked = Vec<(String, Option<String>, String)>;
fn nodes_to_ask(info: &RunInfo) -> (Vec<(String, String)>, Unasked) {
    let (mut asked, mut unasked) = (Vec::<(String, String)>::new(), Unasked::new());
    let mut names = BTreeSet::new();
    for n in &info.nodes {
        if !names.insert(n.name.as_str()) {
            continue;
        }
        match queries::instance_of(n.instance.as_deref(), n.addr.as_deref()) {
            None => unasked.push((
                n.name.clone(),
                None,
                "run.json gives it neither an `instance` nor an `addr`, so its series cannot be found".into(),
            )),
            Some(i) if !queries::usable_instance(&i) => unasked.push((
                n.name.clone(),
                Some(i),
                "its instance holds a control character, which no label has".into(),
            )),
            Some(i) => match asked.iter().find(|(_, other)| *other == i) {
                Some((other, _)) => unasked.push((
                    n.name.clone(),
                    Some(i.clone()),
                    format!("its instance {i} is node {other}'s too: the series are {other}'s"),
                )),
                None => asked.push((n.name.clone(), i)),
            },
        }
    }
    (asked, unasked)
}

/// A read that asked nothing: every node of the run says why.
fn failed<F>(server: &Server, info: Option<&RunInfo>, why: String, file: Option<InputReport>) -> Reading<F> {
    let mut report = InputReport::unreadable(NAME, None, why.clone());
    let nodes: BTreeMap<String, NodeRead> = info
        .iter()
        .flat_map(|i| &i.nodes)
        .map(|n| {
            let read = NodeRead {
                instance: queries::instance_of(n.instance.as_deref(), n.addr.as_deref()),
                why: Some(why.clone()),
                ..Default::default()
            };
            (n.name.clone(), read)
        })
        .collect();
    report.source = Some(Box::new(Source {
        server: server.shown().to_string(),
        start: String::new(),
        end: String::new(),
        step_s: 0.0,
        queries: vec![],
        requests: 0,
        points: 0,
        series: 0,
        nodes,
    }));
    let unsampled = info
        .iter()
        .flat_map(|i| &i.nodes)
        .map(|n| (n.name.clone(), format!("{NAME}: {why}")))
        .collect();
    Reading {
        samples: None,
        report,
        file,
        unsampled,
        polls: None,
    }
}

/// The steps of one request.
struct Grid {
    start: Micros,
    step: Micros,
    steps: usize,
}

impl Grid {
    /// The step a point's time falls on, if it is one of this request's.
    fn index(&self, secs: f64) -> Option<usize> {
        let t = timefmt::secs_to_micros(secs)?;
        let rel = t - self.start;
        let k = (rel + self.step / 2).div_euclid(self.step);
        let on_grid = (rel - k * self.step).abs() <= 1000;
        (on_grid && (0..self.steps as Micros).contains(&k)).then_some(k as usize)
    }
}

/// One node's values on a request's steps, by figure (the CPU by mode).
#[derive(Default)]
struct Cells {
    scraped: Vec<Option<f64>>,
    cpu: BTreeMap<String, Vec<Option<f64>>>,
    gauges: [Vec<Option<f64>>; 7],
}

/// Where a figure's values go among a node's cells.
fn gauge(f: Figure) -> Option<usize> {
    FIGURES[2..].iter().position(|g| *g == f)
}

mod state;
use state::ReadState;

#[cfg(test)]
mod tests;
