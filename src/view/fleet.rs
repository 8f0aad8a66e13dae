//! The fleet section: wall clock, work and idle in all, the critical path
//! (unknown while a record is open), and where the balancer's estimate missed.

use super::context::Context;
use super::{r3, secs, CriticalView, EstimateView, FleetView, LinkView, NodeView, TargetView};
use crate::analysis::fleet;
use crate::model;
use crate::timefmt;
use std::collections::BTreeMap;

pub(super) fn build(cx: &Context, targets: &[TargetView], nodes: &[NodeView], warnings: &mut Vec<String>) -> FleetView {
    let still_running = cx.join.still_running();
    let critical = fleet::critical_path(&cx.join.ended_records())
        .filter(|_| still_running.is_empty())
        .map(|c| CriticalView {
            node: c.node,
            end_s: cx.off(c.end),
            targets: c.targets,
            last_target: c.last_target,
        });
    warnings.extend(estimates_too_small(targets));
    let totals: Vec<f64> = targets.iter().filter_map(|t| t.total_s).collect();
    let estimate_misses = targets
        .iter()
        .filter_map(|t| fleet::estimate_miss(&t.name, t.est_s?, t.total_s?))
        .map(|m| EstimateView {
            target: m.target,
            est_s: m.est_s,
            actual_s: m.actual_s,
            ratio: r3(m.ratio),
        })
        .collect();
    FleetView {
        wall_s: cx.window.map(|w| secs(w.1 - w.0)),
        work_s: (!totals.is_empty()).then(|| r3(totals.iter().sum())),
        idle_s: if nodes.is_empty() {
            None
        } else {
            nodes.iter().map(|n| n.idle_s).sum::<Option<f64>>().map(r3)
        },
        critical,
        still_running,
        estimate_misses,
        why_null: BTreeMap::new(),
    }
}

/// The chain that set the wall clock, as data.json gives it.
pub(super) fn critical_path(cx: &Context) -> Option<Vec<LinkView>> {
    let c = cx.critical.as_ref()?;
    Some(
        c.chain
            .iter()
            .map(|l| LinkView {
                target: l.target.clone(),
                node: l.node.clone(),
                start: timefmt::format_rfc3339(l.start),
                end: timefmt::format_rfc3339(l.end),
                start_s: cx.off(l.start),
                end_s: cx.off(l.end),
                took_s: secs(l.end - l.start),
                waited_for: l.binding.as_ref().map(|b| b.waited_for.clone()),
                waited_how: l.binding.as_ref().map(|b| b.how.label()),
                wait_s: l.binding.as_ref().map(|b| secs(b.wait)),
                why_null: link_why(l),
            })
            .collect(),
    )
}

/// Why a link's fields are `null`: the chain's head waited for nothing; a
/// target no placement line names has no node.
fn link_why(l: &crate::analysis::critical::Link) -> BTreeMap<String, String> {
    let mut why = BTreeMap::new();
    if l.binding.is_none() {
        let head = "the chain's head: neither an `after=` dependency nor a target ahead of it on its node had ended when it started";
        for f in ["waited_for", "waited_how", "wait_s"] {
            why.insert(f.to_string(), head.to_string());
        }
    }
    if l.node.is_none() {
        why.insert("node".into(), "placement.txt does not place this target".into());
    }
    why
}

/// An estimate so small that actual ÷ estimate is no number is not
/// compared; said here, since the misses cannot show it.
fn estimates_too_small(targets: &[TargetView]) -> Vec<String> {
    let mut warnings = vec![];
    for t in targets {
        if let (Some(est), Some(actual)) = (t.est_s, t.total_s) {
            if est > 0.0 && fleet::estimate_ratio(est, actual).is_none() {
                warnings.push(format!(
                    "{}: the estimate for {} (est_s={est:e}) is too small to compare with its {}: actual ÷ estimate is past the largest number",
                    model::PLACEMENT,
                    t.name,
                    timefmt::human_duration(actual)
                ));
            }
        }
    }
    warnings
}
