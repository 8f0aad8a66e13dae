//! What every section builder of the view reads: the run, its targets
//! joined once with placements and figures, run.json's nodes by name, and
//! the window the times are offsets into.

use super::secs;
use crate::analysis::join::TargetJoin;
use crate::analysis::targets;
use crate::input::run_json::{NodeInfo, RunInfo};
use crate::model::Run;
use crate::timefmt::Micros;
use std::collections::{BTreeMap, HashMap};

pub(super) struct Context<'a> {
    pub run: &'a Run,
    pub info: Option<&'a RunInfo>,
    pub join: TargetJoin<'a>,
    pub window: Option<(Micros, Micros)>,
    /// The window's start: every `*_s` offset is from here.
    pub t0: Micros,
    node_info: HashMap<&'a str, &'a NodeInfo>,
}

impl<'a> Context<'a> {
    pub fn new(run: &'a Run) -> Self {
        let info = run.info.as_ref();
        let join = join_targets(run);
        let window = super::window::run_window(run, &join);
        let mut node_info = HashMap::new();
        for n in info.iter().flat_map(|i| &i.nodes) {
            // A node listed twice: its first entry is used (and warned about).
            node_info.entry(n.name.as_str()).or_insert(n);
        }
        Context {
            run,
            info,
            join: join.with_window_end(window.map(|w| w.1)),
            window,
            t0: window.map(|w| w.0).unwrap_or(0),
            node_info,
        }
    }

    /// Seconds from the window's start.
    pub fn off(&self, t: Micros) -> f64 {
        secs(t - self.t0)
    }

    /// The node as run.json lists it.
    pub fn node_info(&self, name: &str) -> Option<&'a NodeInfo> {
        self.node_info.get(name).copied()
    }
}

/// A trace that yielded no span measured nothing: its target's figures are
/// null with the input's reason, never zero steps.
fn join_targets(run: &Run) -> TargetJoin<'_> {
    let figures: BTreeMap<&str, targets::TargetFigures> = run
        .traces
        .iter()
        .filter(|t| !t.spans.is_empty())
        .map(|t| (t.target.as_str(), targets::analyse(&t.spans)))
        .collect();
    let announced = run.info.as_ref().map(|i| i.targets.as_slice()).unwrap_or_default();
    TargetJoin::new(
        announced,
        &run.placements,
        figures,
        run.traces.iter().map(|t| t.target.as_str()),
    )
}
