//! The nodes section: every node run.json, placement.txt or the samples
//! name, with its busy and idle time (`analysis::node_time`) and its CPU and
//! memory series at display resolution.

use super::context::Context;
use super::{r1, r3, series, series_budget, NodeView, Series, TargetView};
use crate::analysis::node_time::node_time;
use crate::analysis::nodes::{self, NodeFold, NodeSeries};
use crate::input::run_rules;
use crate::input::samples::{NodeSamples, POLL_CAP};
use crate::model::{self, Run};
use crate::timefmt;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A node's analysis with its CPU and memory series, each with whether it was reduced.
type AnalysedNode = (NodeSeries, (Series, bool), (Series, bool));

/// A node's figures: its summarised polls' fold continued over the polls
/// held, or, below the cap, all its polls at once.
fn node_series(samples: &NodeSamples<NodeFold>) -> NodeSeries {
    match &samples.summary {
        Some(m) => {
            let mut fold = m.fold.clone();
            for s in samples.polls.iter() {
                fold.add(s);
            }
            fold.finish()
        }
        None => nodes::analyse(&samples.polls),
    }
}

/// A node's analysis; its series share the fleet's point budget.
fn analyse_node(samples: &NodeSamples<NodeFold>, cx: &Context) -> AnalysedNode {
    let mut ns = node_series(samples);
    let budget = series_budget(cx.run.samples.by_node.len());
    let (cpu, mem) = (series(&ns.cpu, cx.t0, budget), series(&ns.mem, cx.t0, budget));
    // Every node's analysis is held until the nodes are assembled: only
    // the reduced series are, not each node's full ones.
    (ns.cpu, ns.mem) = (Vec::new(), Vec::new());
    (ns, cpu, mem)
}

/// Node names, sorted, from run.json, placement and samples; run.json's
/// duplicates are warned about.
fn node_names(cx: &Context, warnings: &mut Vec<String>) -> Vec<String> {
    let mut names: Vec<String> = cx
        .info
        .map(|i| i.nodes.iter().map(|n| n.name.clone()).collect())
        .unwrap_or_default();
    let mut seen = BTreeSet::new();
    for n in &names {
        if !seen.insert(n.clone()) {
            warnings.push(format!(
                "run.json: node {n} is listed more than once; its first entry is used"
            ));
        }
    }
    names.extend(cx.run.placements.iter().map(|p| p.node.clone()));
    names.extend(cx.run.samples.by_node.keys().cloned());
    names.sort();
    names.dedup();
    names
}

pub(super) fn build(cx: &Context, targets: &[TargetView], warnings: &mut Vec<String>) -> Vec<NodeView> {
    let names = node_names(cx, warnings);
    if let Some(info) = cx.info {
        warnings.extend(run_rules::samples_from_unlisted_nodes(
            info,
            cx.run.samples.by_node.keys(),
        ));
    }
    // Each node's samples are analysed and reduced independently: one node per core.
    let mut per_node: BTreeMap<&str, AnalysedNode> = {
        use rayon::prelude::*;
        cx.run
            .samples
            .by_node
            .par_iter()
            .map(|(name, samples)| (name.as_str(), analyse_node(samples, cx)))
            .collect()
    };
    // Indexed once: a lookup per node, not a scan of every target.
    let mut targets_on: HashMap<&str, Vec<&TargetView>> = HashMap::new();
    for t in targets {
        if let Some(n) = &t.node {
            targets_on.entry(n.as_str()).or_default().push(t);
        }
    }
    let placed = cx.run.input(model::PLACEMENT).is_some_and(|i| i.present);
    names
        .iter()
        .enumerate()
        .map(|(colour, name)| {
            let analysed = per_node.remove(name.as_str());
            let mine = targets_on.get(name.as_str()).map(Vec::as_slice).unwrap_or_default();
            node(cx, name, colour, mine, analysed, placed, warnings)
        })
        .collect()
}

fn node(
    cx: &Context,
    name: &str,
    colour: usize,
    mine: &[&TargetView],
    analysed: Option<AnalysedNode>,
    placed: bool,
    warnings: &mut Vec<String>,
) -> NodeView {
    let ni = cx.node_info(name);
    let records = cx.join.records_on(name, None);
    let waits = cx.waits.get(name).map(Vec::as_slice).unwrap_or_default();
    let time = node_time(&records, waits, cx.join.running_on(name), cx.window, placed);
    let mut why = BTreeMap::new();
    if let Some(w) = time.why_busy {
        why.insert("busy_s".to_string(), w.to_string());
    }
    let none = NodeSamples::default();
    let samples = cx.run.samples.by_node.get(name).unwrap_or(&none);
    let (ns, (cpu, cpu_reduced), (mem, mem_reduced)) = analysed.unwrap_or_else(|| analyse_node(samples, cx));
    if samples.is_empty() {
        why.insert("cpu_pct_mean".into(), cx.run.no_samples_from(name));
        why.insert("mem_pct_max".into(), cx.run.no_samples_from(name));
    } else if ns.cpu_pct_mean.is_none() {
        why.insert("cpu_pct_mean".into(), "fewer than two usable CPU polls".into());
    }
    if ns.counter_resets > 0 {
        warnings.push(format!(
            "{}: {} intervals of node {name} dropped because a CPU counter went backwards",
            cx.run.samples_input(),
            ns.counter_resets
        ));
    }
    warnings.extend(gap_limit_warning(cx.run.samples_input(), name, &ns));
    NodeView {
        name: name.to_string(),
        builder: ni
            .and_then(|n| n.builder.clone())
            .or_else(|| mine.iter().find_map(|t| t.builder.clone())),
        addr: ni.and_then(|n| n.addr.clone()),
        cores: ni.and_then(|n| n.cores),
        link_mbps: ni.and_then(|n| n.link_mbps),
        colour,
        targets: mine.iter().map(|t| t.name.clone()).collect(),
        busy_s: time.busy_s.map(r3),
        idle_s: time.idle_s.map(r3),
        waiting_s: time.waiting_s.map(r3),
        nothing_to_do_s: time.nothing_to_do_s.map(r3),
        idle_after_s: time.idle_after_s.map(r3),
        finished_s: time.finished.map(|f| cx.off(f)),
        cpu_pct_mean: ns.cpu_pct_mean.map(r1),
        mem_pct_max: ns.mem_pct_max.map(r1),
        load1_max: ns.load1_max,
        load1_end: ns.load1_end,
        counter_resets: ns.counter_resets,
        gaps: ns.gaps,
        cpu,
        mem,
        reduced: cpu_reduced || mem_reduced,
        why_null: why,
    }
}

/// A summarised node whose gap limit, fixed by its first polls, counts
/// intervals otherwise than all its polls' would: said, not silent.
fn gap_limit_warning(input: &str, name: &str, ns: &NodeSeries) -> Option<String> {
    let m = ns.gap_limit_moved?;
    let s = |us: i64| timefmt::human_duration(us as f64 / timefmt::MICROS_PER_SEC);
    let what = if m.used < m.all {
        "are breaks in its line, left out of its CPU mean, that the whole file's rule would keep"
    } else {
        "are kept in its line and CPU mean that the whole file's rule would count as gaps"
    };
    Some(format!(
        "{input}: node {name}'s poll interval changed after its first {POLL_CAP} polls: a gap is an interval over {} (three times their median), not over about {} (all its polls'); at least {} intervals {what}",
        s(m.used),
        s(m.all),
        m.intervals,
    ))
}

/// Why the CPU and memory chart draws nothing: no node has a point of either.
pub(super) fn why_cpu_mem_empty(run: &Run, nodes: &[NodeView]) -> Option<String> {
    if nodes.iter().any(|n| !n.cpu.t.is_empty() || !n.mem.t.is_empty()) {
        return None;
    }
    let input = run.samples_input();
    Some(if let Some(why) = super::why::no_record(run, input) {
        why
    } else if run.input(input).is_some_and(|i| i.present) {
        format!("{input} holds no usable node samples")
    } else {
        "no samples.jsonl in this run".into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::lines::{parse_bytes, LineSink, Tail};
    use crate::model::Samples;

    /// Three nodes polled every 5 s, a few polls out of order, a counter
    /// reset, a gap and a duplicate poll on one node.
    fn text() -> String {
        let mut lines = vec![];
        for i in 0..3000u64 {
            for n in 0..3u64 {
                let mut ts = 1_790_000_000 + 5 * i + if i >= 2000 { 120 } else { 0 };
                if n == 0 && i == 1500 {
                    ts -= 5;
                }
                let total = if n == 1 && i == 900 { 1 } else { 40 * i + n };
                let idle = 10 * i + (i * n) % 7;
                lines.push(format!(
                    r#"{{"ts":{ts},"node":"n{n}","cpu":{{"user":{},"idle":{idle}}},"mem":{{"total":100,"available":{}}},"net":{{"tx":{}}},"load1":{}}}"#,
                    total.saturating_sub(idle),
                    (i * 13 + n) % 90,
                    i * 1000,
                    (i % 17) as f64 / 4.0
                ));
            }
        }
        // Two polls swapped across where a chunk ends.
        lines.swap(4000, 4006);
        lines.join("\n")
    }

    #[test]
    fn a_summarised_node_has_the_figures_of_all_its_polls_at_once() {
        let text = text();
        let (parts, _) = parse_bytes(text.as_bytes(), Tail::Complete, || Samples::with_cap(256));
        let mut folded = Samples::with_cap(256);
        folded.append_block(parts);
        folded.finish();
        let (mut whole, _) = parse_bytes(text.as_bytes(), Tail::Complete, || Samples::with_cap(usize::MAX));
        whole.finish();
        for (name, n) in &folded.by_node {
            assert!(n.summary.is_some() && n.polls.len() < 256, "{name} is summarised");
            let all = &whole.by_node[name];
            assert!(all.summary.is_none() && all.polls.len() == 3000);
            let got = node_series(n);
            // The gap rule from the first polls is the rule from all of them here.
            assert_eq!(got, nodes::analyse(&all.polls), "{name}");
            assert!(got.gaps == 1 && got.cpu_pct_mean.is_some());
        }
        assert_eq!(node_series(&folded.by_node["n1"]).counter_resets, 1);
        assert_eq!(node_series(&folded.by_node["n0"]).duplicate_polls, 1);
    }
}
