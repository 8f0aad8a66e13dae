//! A read in progress: the requests of each group of nodes and stretch of
//! the window, their answers placed on the steps, and the polls they make.

use super::api::{self, ApiSeries};
use super::http::{Server, IN_FLIGHT};
use super::queries::{Figure, FIGURES, INSTANCE, JOB, MODE};
use super::{gauge, Cells, Grid, NodeRead, Plan, Reading, Source, NAME};
use crate::input::lines::{LineSink, Outcome};
use crate::input::samples::{PollFold, Samples};
use crate::input::{hex_hash, InputReport, ParseStats};
use crate::measured::explained::WhyNull;
use crate::measured::{Missing, Value};
use crate::timefmt::{self, Micros};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// One request's outcome.
pub(super) enum Answer {
    Body(Vec<u8>),
    /// Failed, and why.
    Failed(String),
    /// Not sent, and why (the server could not be reached, or the deadline passed).
    NotSent(String),
}

/// What the requests share across the threads that send them.
struct Asker<'a> {
    server: &'a Server,
    deadline_at: Instant,
    /// Once set, no more requests are sent: the reason.
    stop: Mutex<Option<String>>,
}

impl Asker<'_> {
    fn ask(&self, query: &str, range: (f64, f64, f64)) -> Answer {
        let stopped = |s: &Mutex<Option<String>>| s.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(why) = stopped(&self.stop) {
            return Answer::NotSent(why);
        }
        let past_deadline = || {
            format!(
                "the read took longer than its deadline of {} (--prometheus-deadline): the requests left were not sent to {}",
                timefmt::human_duration(self.server.deadline.as_secs_f64()),
                self.server.shown()
            )
        };
        let left = self.deadline_at.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let why = past_deadline();
            self.stop_with(&why);
            return Answer::NotSent(why);
        }
        match self.server.query_range(query, range, left) {
            Ok(body) => Answer::Body(body),
            // Cut short by the deadline rather than by its own timeout.
            Err(f) if f.final_ && left < self.server.timeout && Instant::now() >= self.deadline_at => {
                let why = past_deadline();
                self.stop_with(&why);
                Answer::Failed(why)
            }
            Err(f) => {
                if f.final_ {
                    // The requests left are not sent: the same failure.
                    self.stop_with(&f.what);
                }
                Answer::Failed(f.what)
            }
        }
    }

    fn stop_with(&self, why: &str) {
        let mut stop = self.stop.lock().unwrap_or_else(|p| p.into_inner());
        stop.get_or_insert_with(|| why.to_string());
    }
}

/// One node's read so far.
#[derive(Default)]
struct NodeState {
    instance: String,
    /// The job its series are taken from, once one was seen.
    job: Option<Option<String>>,
    other_jobs: BTreeSet<String>,
    points: u64,
    polls: u64,
    last_ts: Option<Micros>,
}

pub(super) struct ReadState<'a, F> {
    asker: Asker<'a>,
    samples: Samples<F>,
    /// `lines` points read; `records` those in a poll; `skipped` those
    /// another point stood for (the same scrape at a later step, another
    /// job's, one no node asked for); `malformed` those unusable.
    stats: ParseStats,
    bytes: u64,
    hashes: Vec<u8>,
    requests: u64,
    series: u64,
    nodes: BTreeMap<String, NodeState>,
    /// Each failure's words, with the queries it hit and the nodes it
    /// cost figures of.
    failures: BTreeMap<String, (Vec<&'static str>, BTreeSet<String>)>,
    server_warnings: BTreeSet<String>,
    strays: u64,
    polls: Option<Vec<(Micros, String, String)>>,
    queries: BTreeSet<String>,
}

impl<'a, F: PollFold> ReadState<'a, F> {
    pub(super) fn new(server: &'a Server, plan: &Plan, keep_polls: bool) -> Self {
        let nodes = plan
            .groups
            .iter()
            .flatten()
            .map(|(name, instance)| {
                let n = NodeState {
                    instance: instance.clone(),
                    ..Default::default()
                };
                (name.clone(), n)
            })
            .collect();
        ReadState {
            asker: Asker {
                server,
                deadline_at: Instant::now() + server.deadline,
                stop: Mutex::new(None),
            },
            samples: Samples::default(),
            stats: ParseStats::default(),
            bytes: 0,
            hashes: vec![],
            requests: 0,
            series: 0,
            nodes,
            failures: BTreeMap::new(),
            server_warnings: BTreeSet::new(),
            strays: 0,
            polls: keep_polls.then(Vec::new),
            queries: BTreeSet::new(),
        }
    }

    /// Every figure's request for one group of nodes over `grid`, a few at once.
    pub(super) fn fetch(&mut self, matcher: &str, grid: &Grid) -> Vec<Answer> {
        let secs = |t: Micros| t as f64 / 1e6;
        let end = grid.start + (grid.steps as Micros - 1) * grid.step;
        let range = (secs(grid.start), secs(end), secs(grid.step));
        let queries: Vec<String> = FIGURES.iter().map(|f| f.query(matcher)).collect();
        let next = AtomicUsize::new(0);
        let answers: Vec<Mutex<Option<Answer>>> = queries.iter().map(|_| Mutex::new(None)).collect();
        let asker = &self.asker;
        std::thread::scope(|s| {
            for _ in 0..IN_FLIGHT.min(queries.len()) {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(q) = queries.get(i) else { break };
                    let a = asker.ask(q, range);
                    *answers[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(a);
                });
            }
        });
        let answers: Vec<Answer> = answers
            .into_iter()
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(|p| p.into_inner())
                    .unwrap_or_else(|| Answer::NotSent("not sent".into()))
            })
            .collect();
        self.requests += answers.iter().filter(|a| !matches!(a, Answer::NotSent(_))).count() as u64;
        self.queries.extend(queries);
        answers
    }

    /// Places a group's answers on the steps and makes its polls.
    pub(super) fn take(&mut self, group: &[(String, String)], grid: &Grid, answers: Vec<Answer>) {
        let mut cells: Vec<Cells> = group.iter().map(|_| Cells::new(grid.steps)).collect();
        let index: HashMap<&str, usize> = group
            .iter()
            .enumerate()
            .map(|(i, (_, inst))| (inst.as_str(), i))
            .collect();
        let server = self.asker.server.shown().to_string();
        for (f, answer) in FIGURES.iter().zip(answers) {
            let why = match answer {
                Answer::Body(body) => {
                    self.bytes += body.len() as u64;
                    self.hashes.extend(twox_hash::XxHash3_64::oneshot(&body).to_le_bytes());
                    match api::matrix(&body) {
                        Ok(m) => {
                            self.server_warnings.extend(m.warnings);
                            for s in m.series {
                                self.place(*f, s, grid, (&index, group), &mut cells);
                            }
                            continue;
                        }
                        Err(why) => format!("{server}: {why}"),
                    }
                }
                Answer::Failed(why) | Answer::NotSent(why) => why,
            };
            let (queries, nodes) = self.failures.entry(why).or_default();
            if !queries.contains(&f.words()) {
                queries.push(f.words());
            }
            nodes.extend(group.iter().map(|(n, _)| n.clone()));
        }
        self.make_polls(group, grid, &cells);
    }

    /// One series' points, on its node's cells.
    fn place(
        &mut self,
        f: Figure,
        s: ApiSeries,
        grid: &Grid,
        (index, group): (&HashMap<&str, usize>, &[(String, String)]),
        cells: &mut [Cells],
    ) {
        self.series += 1;
        let n = s.values.len() as u64;
        self.stats.lines += n;
        let Some(&at) = s.metric.get(INSTANCE).and_then(|i| index.get(i.as_str())) else {
            self.stats.skipped += n;
            self.strays += n;
            return;
        };
        let Some(node) = self.nodes.get_mut(&group[at].0) else {
            return;
        };
        let job = s.metric.get(JOB).cloned();
        if node.job.get_or_insert_with(|| job.clone()) != &job {
            node.other_jobs.insert(job.unwrap_or_default());
            self.stats.skipped += n;
            return;
        }
        let c = &mut cells[at];
        let column = match (f, gauge(f)) {
            (Figure::Scraped, _) => &mut c.scraped,
            (Figure::Cpu, _) => match s.metric.get(MODE) {
                Some(mode) => c.cpu.entry(mode.clone()).or_insert_with(|| vec![None; grid.steps]),
                None => {
                    self.stats.malformed += n;
                    self.stats
                        .note_problem(0, "a CPU series without a `mode` label: left out");
                    return;
                }
            },
            (_, Some(g)) => &mut c.gauges[g],
            (_, None) => return,
        };
        for (t, v) in &s.values {
            let value = v.parse::<f64>().ok().filter(|x| x.is_finite());
            match (grid.index(*t), value) {
                (None, _) => self
                    .stats
                    .note_malformed(0, format!("a point at {t} is not on the query's steps")),
                (_, None) => self
                    .stats
                    .note_malformed(0, format!("a value of the {} query is not a finite number", f.words())),
                (Some(k), Some(_)) if column[k].is_some() => self.stats.skipped += 1,
                (Some(k), Some(x)) => {
                    column[k] = Some(x);
                    node.points += 1;
                }
            }
        }
    }

    /// Each node's polls over `grid`, through the samples.jsonl parser.
    fn make_polls(&mut self, group: &[(String, String)], grid: &Grid, cells: &[Cells]) {
        let mut sink = Samples::<F>::default();
        for ((name, _), c) in group.iter().zip(cells) {
            let Some(node) = self.nodes.get_mut(name) else { continue };
            for k in 0..grid.steps {
                let held = c.held_at(k);
                if held == 0 {
                    continue;
                }
                let on_step = grid.start + k as Micros * grid.step;
                // The scrape's own time, to the millisecond the server keeps.
                let ts = c.scraped[k]
                    .and_then(timefmt::secs_to_micros)
                    .map(|t| (t + 500).div_euclid(1000) * 1000)
                    .unwrap_or(on_step);
                if node.last_ts.is_some_and(|last| ts <= last) {
                    // The same scrape, seen again at a later step.
                    self.stats.skipped += held;
                    continue;
                }
                node.last_ts = Some(ts);
                let line = c.line(ts, name, k);
                match sink.line(line.as_bytes()) {
                    Outcome::Record => {
                        self.stats.records += held;
                        node.polls += 1;
                        if let Some(p) = &mut self.polls {
                            p.push((ts, name.clone(), line));
                        }
                    }
                    Outcome::Malformed(e) => {
                        self.stats.malformed += held;
                        self.stats
                            .note_problem(0, format!("a poll of node {name} makes no sample ({e})"));
                    }
                    _ => self.stats.skipped += held,
                }
            }
        }
        self.samples.append_block(sink);
    }

    /// What was read of each node asked for, and why nothing of one.
    fn node_reads(&self, server: &str, (start, end): (&str, &str)) -> NodesRead {
        let mut warnings = vec![];
        let mut nodes = BTreeMap::new();
        let mut unsampled = BTreeMap::new();
        let mut no_series = vec![];
        for (name, n) in &self.nodes {
            // A node with nothing read is told the first failure as it is.
            let cost = self
                .failures
                .iter()
                .find(|(_, (_, on))| on.contains(name))
                .map(|(w, _)| w.clone());
            let why = (n.polls == 0).then(|| match &cost {
                Some(w) => w.clone(),
                None => {
                    no_series.push(format!("{name} ({})", n.instance));
                    format!(
                        "no series for instance {} on {server} from {start} to {end}: its CPU, memory, disk, network and load are not measured",
                        n.instance
                    )
                }
            });
            if let Some(w) = &why {
                unsampled.insert(name.clone(), format!("{NAME}: {w}"));
            }
            if !n.other_jobs.is_empty() {
                warnings.push(format!(
                    "{NAME}: instance {} of node {name} is scraped by more than one job: its series are job {}'s, those of {} are left out",
                    n.instance,
                    n.job.clone().flatten().unwrap_or_default(),
                    n.other_jobs.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
            let read = NodeRead {
                instance: Some(n.instance.clone()),
                job: n.job.clone().flatten(),
                points: n.points,
                polls: n.polls,
                why,
            };
            nodes.insert(name.clone(), read);
        }
        NodesRead {
            nodes,
            unsampled,
            no_series,
            warnings,
        }
    }

    /// The reading: the samples, the input's report and each node's reason.
    pub(super) fn finish(self, plan: Plan, file: Option<InputReport>) -> Reading<F> {
        let server = self.asker.server.shown().to_string();
        let (start, end) = (
            timefmt::format_rfc3339(plan.start),
            timefmt::format_rfc3339(plan.start + (plan.steps as Micros - 1) * plan.step),
        );
        let mut breaches = vec![];
        let failures: Vec<(String, &BTreeSet<String>)> = self
            .failures
            .iter()
            .map(|(why, (queries, on))| (failure_words(why, queries), on))
            .collect();
        let NodesRead {
            mut nodes,
            mut unsampled,
            no_series,
            mut warnings,
        } = self.node_reads(&server, (&start, &end));
        warnings.splice(0..0, plan.warnings.iter().cloned());
        for (name, instance, why) in &plan.unasked {
            breaches.push(format!("node {name}: {why}"));
            unsampled.insert(name.clone(), format!("{NAME}: {why}"));
            let read = NodeRead {
                instance: instance.clone(),
                why: Some(why.clone()),
                ..Default::default()
            };
            nodes.insert(name.clone(), read);
        }
        for (why, on) in &failures {
            breaches.push(format!(
                "{why}: {} {}",
                nodes_word(on.len()),
                listed(on.iter().map(String::as_str))
            ));
        }
        if !no_series.is_empty() {
            breaches.push(format!(
                "no series on {server} from {start} to {end} for {} {}: not measured",
                nodes_word(no_series.len()),
                listed(no_series.iter().map(String::as_str))
            ));
        }
        if self.strays > 0 {
            warnings.push(format!(
                "{NAME}: {} of series whose instance no node of run.json has: skipped",
                crate::fmt::counted(self.strays, "point", "points")
            ));
        }
        for w in &self.server_warnings {
            warnings.push(format!("{NAME}: {server} warned: {w}"));
        }
        let source = Source {
            server,
            start,
            end,
            step_s: plan.step as f64 / 1e6,
            queries: self.queries.iter().cloned().collect(),
            requests: self.requests,
            points: self.stats.lines,
            series: self.series,
            nodes,
        };
        let report = report_of(&self.stats, self.bytes, &self.hashes, source, breaches, warnings);
        let polls = self.polls.map(|mut p| {
            p.sort();
            p.into_iter()
                .flat_map(|(_, _, line)| (line + "\n").into_bytes())
                .collect()
        });
        Reading {
            samples: Some(self.samples),
            report,
            file,
            unsampled,
            polls,
        }
    }
}

/// What was read of each node, for the input's report.
struct NodesRead {
    nodes: BTreeMap<String, NodeRead>,
    unsampled: BTreeMap<String, String>,
    /// Nodes (with their instance) no series was found for.
    no_series: Vec<String>,
    warnings: Vec<String>,
}

/// A failure with the queries it hit.
fn failure_words(why: &str, queries: &[&str]) -> String {
    if queries.len() == FIGURES.len() {
        format!("{why} (every query)")
    } else {
        let q = if queries.len() == 1 { "query" } else { "queries" };
        format!("{why} (the {} {q})", queries.join(", "))
    }
}

fn nodes_word(n: usize) -> &'static str {
    if n == 1 {
        "node"
    } else {
        "nodes"
    }
}

/// The first few names, and how many more.
fn listed<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let n = names.len();
    let shown: Vec<&str> = names.take(5).collect();
    let more = n - shown.len();
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The input's report: its statistics, each breach also the first of its warnings.
fn report_of(
    stats: &ParseStats,
    bytes: u64,
    hashes: &[u8],
    source: Source,
    mut breaches: Vec<String>,
    mut warnings: Vec<String>,
) -> InputReport {
    let format = format!(
        "Prometheus query_range, step {}",
        timefmt::human_duration(source.step_s)
    );
    if stats.records > 0 {
        breaches.extend(crate::input::contract::breaches(&crate::input::contract::Observed {
            bytes: Some(bytes),
            lines: stats.lines,
            records: stats.records,
            skipped: stats.skipped,
            malformed: stats.malformed,
            format: Some(&format),
            first_problem: stats.problems.first(),
            unfit: None,
        }));
    }
    for p in &stats.problems {
        warnings.push(format!("{NAME}: {}", p.reason));
    }
    if stats.problems_dropped > 0 {
        warnings.push(format!(
            "{NAME}: {} more problem points not listed",
            stats.problems_dropped
        ));
    }
    for (i, b) in breaches.iter().enumerate() {
        warnings.insert(i, format!("{NAME}: {b}"));
    }
    InputReport {
        name: NAME.to_string(),
        present: true,
        bytes: Some(Value(bytes)),
        format: Some(Value(format)),
        mtime: Some(Missing("read from a server, not a file".into())),
        xxh3: Some(Value(hex_hash(twox_hash::XxHash3_64::oneshot(hashes)))),
        lines: stats.lines,
        records: stats.records,
        skipped: stats.skipped,
        malformed: stats.malformed,
        warnings,
        contract_broken: !breaches.is_empty(),
        breaches,
        why_null: WhyNull,
        source: Some(Box::new(source)),
        not_measured: None,
    }
}

impl Cells {
    pub(super) fn new(steps: usize) -> Self {
        Cells {
            scraped: vec![None; steps],
            cpu: BTreeMap::new(),
            gauges: std::array::from_fn(|_| vec![None; steps]),
        }
    }

    /// How many points this node has at step `k`.
    fn held_at(&self, k: usize) -> u64 {
        let some = |v: &Vec<Option<f64>>| u64::from(v[k].is_some());
        some(&self.scraped) + self.cpu.values().map(some).sum::<u64>() + self.gauges.iter().map(some).sum::<u64>()
    }

    /// The poll at step `k`, as the harness writes it to samples.jsonl.
    pub(super) fn line(&self, ts: Micros, node: &str, k: usize) -> String {
        let g = |f: Figure| gauge(f).and_then(|i| self.gauges[i][k]);
        let both = |a: Option<f64>, b: Option<f64>| (a.is_some() || b.is_some()).then_some((a, b));
        let line = Line {
            ts: timefmt::format_rfc3339(ts),
            node,
            cpu: self
                .cpu
                .iter()
                .filter_map(|(mode, v)| Some((mode.as_str(), v[k]?)))
                .collect(),
            mem: both(g(Figure::MemTotal), g(Figure::MemAvailable)).map(|(total, available)| Mem { total, available }),
            disk: both(g(Figure::DiskRead), g(Figure::DiskWritten)).map(|(read, written)| Disk { read, written }),
            net: both(g(Figure::NetRx), g(Figure::NetTx)).map(|(rx, tx)| Net { rx, tx }),
            load1: g(Figure::Load1),
        };
        serde_json::to_string(&line).unwrap_or_default()
    }
}

/// One line of samples.jsonl, as the spec gives it (the harness's poller
/// writes these; perfreport's parser of them reads the polls made here).
#[derive(Serialize)]
struct Line<'a> {
    ts: String,
    node: &'a str,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    cpu: BTreeMap<&'a str, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    mem: Option<Mem>,
    #[serde(skip_serializing_if = "Option::is_none")]
    disk: Option<Disk>,
    #[serde(skip_serializing_if = "Option::is_none")]
    net: Option<Net>,
    #[serde(skip_serializing_if = "Option::is_none")]
    load1: Option<f64>,
}

#[derive(Serialize)]
struct Mem {
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    available: Option<f64>,
}

#[derive(Serialize)]
struct Disk {
    #[serde(skip_serializing_if = "Option::is_none")]
    read: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    written: Option<f64>,
}

#[derive(Serialize)]
struct Net {
    #[serde(skip_serializing_if = "Option::is_none")]
    rx: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tx: Option<f64>,
}
