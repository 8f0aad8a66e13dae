//! What the figures and the view are built from: the run, its targets
//! joined once with placements and trace figures, run.json's nodes by name,
//! the window the times are offsets into, the critical path and the waits.

use crate::analysis::critical::{self, CriticalChain, OrderedRecord};
use crate::analysis::intervals;
use crate::analysis::join::TargetJoin;
use crate::analysis::targets;
use crate::input::run_json::{NodeInfo, RunInfo};
use crate::model::Run;
use crate::timefmt::Micros;
use std::collections::{BTreeMap, HashMap};

pub(crate) struct Context<'a> {
    pub(crate) run: &'a Run,
    pub(crate) info: Option<&'a RunInfo>,
    pub(crate) join: TargetJoin<'a>,
    pub(crate) window: Option<(Micros, Micros)>,
    /// The window's start: every `*_s` offset is from here.
    pub(crate) t0: Micros,
    /// The chain that set the wall clock and every target's slack; `None`
    /// while a record is open (who finishes last is not known yet).
    pub(crate) critical: Option<CriticalChain>,
    /// When each node's targets waited for a dependency, by node.
    pub(crate) waits: BTreeMap<String, Vec<(Micros, Micros)>>,
    /// The same by target: its node's idle stretches while it waited.
    pub(crate) waiting: BTreeMap<String, Vec<(Micros, Micros)>>,
    node_info: HashMap<&'a str, &'a NodeInfo>,
}

impl<'a> Context<'a> {
    pub(crate) fn new(run: &'a Run) -> Self {
        let info = run.info.as_ref();
        let join = join_targets(run);
        let window = run_window(run, &join);
        let mut node_info = HashMap::new();
        for n in info.iter().flat_map(|i| &i.nodes) {
            // A node listed twice: its first entry is used (and warned about).
            node_info.entry(n.name.as_str()).or_insert(n);
        }
        let join = join.with_window_end(window.map(|w| w.1));
        let t0 = window.map(|w| w.0).unwrap_or(0);
        let jobs = jobs(&join);
        let mut waits: BTreeMap<String, Vec<(Micros, Micros)>> = BTreeMap::new();
        let mut waiting: BTreeMap<String, Vec<(Micros, Micros)>> = BTreeMap::new();
        for w in critical::dependency_waits(&jobs, t0) {
            waits.entry(w.node.to_string()).or_default().push((w.from, w.until));
            let idle = intervals::minus(&[(w.from, w.until)], &join.records_on(w.node, None));
            waiting.entry(w.target.to_string()).or_default().extend(idle);
        }
        let critical = join
            .still_running()
            .is_empty()
            .then(|| critical::critical(&jobs, t0))
            .filter(|c| !c.chain.is_empty());
        Context {
            run,
            info,
            join,
            window,
            t0,
            critical,
            waits,
            waiting,
            node_info,
        }
    }

    /// Why the run's window has no length yet: the run is in flight and
    /// nothing of it lies after its start (its traces not yet written, its
    /// logs' records another time's), so its end, its wall clock and each
    /// node's busy and idle time are not known. A window of no length
    /// would make them all 0.
    pub(crate) fn window_not_yet(&self) -> Option<String> {
        let (from, to) = self.window?;
        let open = self.run.in_flight() && self.info.is_none_or(|i| i.finished_at.is_none());
        (open && to <= from).then(|| {
            "the run is in flight and none of its records lies in its window yet: its end, and so its wall clock, is not known"
                .to_string()
        })
    }

    /// Seconds from the window's start, to the millisecond.
    pub(crate) fn off(&self, t: Micros) -> f64 {
        crate::figures::secs_ms(t - self.t0)
    }

    /// The node as run.json lists it.
    pub(crate) fn node_info(&self, name: &str) -> Option<&'a NodeInfo> {
        self.node_info.get(name).copied()
    }
}

/// Every target with a record, where placement.txt put it and what it waits for.
fn jobs<'a>(join: &'a TargetJoin) -> Vec<OrderedRecord<'a>> {
    join.names
        .iter()
        .filter_map(|t| {
            let (start, end) = join.record(t)?;
            let p = join.placement(t);
            Some(OrderedRecord {
                target: t.as_str(),
                node: p.map(|p| p.node.as_str()),
                start,
                end,
                queue: p.and_then(|p| p.queue),
                after: p.and_then(|p| p.after.as_deref()),
            })
        })
        .collect()
}

/// A trace that yielded no span measured nothing: its target's figures are
/// null with the input's reason, never zero steps.
fn join_targets(run: &Run) -> TargetJoin<'_> {
    let figures: BTreeMap<&str, targets::TraceFigures> = run
        .traces
        .iter()
        .filter(|t| !t.spans.is_empty())
        .map(|t| (t.target.as_str(), t.figures.clone()))
        .collect();
    let announced = run.info.as_ref().map(|i| i.targets.as_slice()).unwrap_or_default();
    TargetJoin::new(
        announced,
        &run.placements,
        figures,
        run.traces.iter().map(|t| t.target.as_str()),
    )
}

/// The run's window: run.json's and the traces', widened by the logs'
/// records near it; without either, every event seen.
fn run_window(run: &Run, join: &TargetJoin) -> Option<(Micros, Micros)> {
    use crate::analysis::window;
    let anchors = window::anchors(join.figures.values());
    let mut events: Vec<Micros> = Vec::new();
    for v in run.samples.by_node.values() {
        events.extend(v.first_ts());
        events.extend(v.last_ts());
    }
    if let Some(s) = &run.sccache {
        events.extend(s.log.first);
        events.extend(s.log.last);
    }
    if let Some(z) = &run.zot {
        // A span of writes is wholly near the traces' window or wholly far.
        for w in z.all_writes() {
            events.push(w.first);
            if w.last != w.first {
                events.push(w.last);
            }
        }
    }
    let info = run.info.as_ref();
    let started = info.and_then(|i| i.started_at);
    let finished = info.and_then(|i| i.finished_at);
    window::run_window(started, finished, run.in_flight(), &anchors, &events)
}
