//! The nodes section: every node run.json, placement.txt or the samples
//! name, with its figures and its CPU and memory series at display
//! resolution, as offsets from the window's start.

use super::{r1, r3, series, NodeView};
use crate::figures::NodeFigures;
use crate::measure::{no_record, Analysed};
use crate::measured::explained::Reasons;
use crate::model::Run;

pub(super) fn build(a: &Analysed) -> Vec<NodeView> {
    a.node_order
        .iter()
        .enumerate()
        .filter_map(|(colour, name)| Some(node(a, name, colour, a.figures.nodes.get(name)?)))
        .collect()
}

fn node(a: &Analysed, name: &str, colour: usize, f: &NodeFigures) -> NodeView {
    let cx = &a.cx;
    let shown = a.series.get(name).cloned().unwrap_or_default();
    let (cpu, mem) = (series(&shown.cpu, cx.t0), series(&shown.mem, cx.t0));
    let mut why_null = Reasons::new();
    for (field, s) in [("cpu.v", &cpu), ("mem.v", &mem)] {
        if s.v.iter().any(Option::is_none) {
            why_null.insert(
                field.to_string(),
                format!("a null breaks the line: polls of {name} more than three median intervals apart, or an interval dropped because a counter went backwards"),
            );
        }
    }
    NodeView {
        name: name.to_string(),
        builder: f.builder.clone(),
        addr: f.addr.clone(),
        cores: f.cores.clone(),
        link_mbps: f.link_mbps.clone(),
        colour,
        targets: f.targets.clone(),
        busy_s: f.busy_s.clone().map(r3),
        idle_s: f.idle_s.clone().map(r3),
        waiting_s: f.waiting_s.clone().map(r3),
        nothing_to_do_s: f.nothing_to_do_s.clone().map(r3),
        idle_after_s: f.idle_after_s.clone().map(r3),
        finished_s: f.finished.clone().map(|t| cx.off(t)),
        cpu_pct_mean: f.cpu_pct_mean.clone().map(r1),
        mem_pct_max: f.mem_pct_max.clone().map(r1),
        load1_max: f.load1_max.clone(),
        load1_end: f.load1_end.clone(),
        counter_resets: f.counter_resets,
        gaps: f.gaps,
        cpu,
        mem,
        reduced: shown.reduced,
        why_null,
    }
}

/// Why the CPU and memory chart draws nothing: no node has a point of either.
pub(super) fn why_cpu_mem_empty(run: &Run, nodes: &[NodeView]) -> Option<String> {
    if nodes.iter().any(|n| !n.cpu.t.is_empty() || !n.mem.t.is_empty()) {
        return None;
    }
    let input = run.samples_input();
    Some(if let Some(why) = no_record(run, input) {
        why
    } else if run.input(input).is_some_and(|i| i.present) {
        format!("{input} holds no usable node samples")
    } else {
        "no samples.jsonl in this run".into()
    })
}
