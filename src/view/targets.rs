//! The targets section: each target's figures placed on the run's window
//! (its record, phases, uploads and steps as offsets), in timeline order.

use super::{r1, r3, PhaseBand, SlowStep, StepView, TargetView};
use crate::analysis::phases::phase_bands;
use crate::figures::{secs_ms, Measured, TargetFigures};
use crate::measure::Analysed;
use crate::measured::explained::{Notes, Reasons};
use crate::timefmt;
use std::collections::BTreeMap;

pub(super) fn build(a: &Analysed) -> Vec<TargetView> {
    let mut views: Vec<TargetView> = a
        .timeline
        .iter()
        .filter_map(|name| Some(target(a, name, a.figures.targets.get(name)?)))
        .collect();
    let mut on_node: BTreeMap<String, usize> = BTreeMap::new();
    for v in &mut views {
        if let Some(n) = v.node.value() {
            let k = on_node.entry(n.clone()).or_default();
            v.shade = *k;
            *k += 1;
        }
    }
    views
}

/// A share of the total in percent, or why there is none.
fn share(x: &Measured<i64>, total: &Measured<i64>) -> Measured<f64> {
    x.clone().zip(total.clone()).and_then(|(x, total)| {
        if total > 0 {
            Measured::Value(r1(100.0 * x as f64 / total as f64))
        } else {
            Measured::missing("the total is zero: no share of it")
        }
    })
}

fn target(a: &Analysed, name: &str, f: &TargetFigures) -> TargetView {
    let cx = &a.cx;
    let off = |t| cx.off(t);
    let trace = cx.join.figures(name);
    let time = |m: &Measured<i64>| m.clone().map(secs_ms);
    let mut view = TargetView {
        name: name.to_string(),
        node: f.node.clone(),
        builder: f.builder.clone(),
        start: f.start.clone().map(timefmt::format_rfc3339),
        end: f.end.clone().map(timefmt::format_rfc3339),
        start_s: f.start.clone().map(off),
        end_s: f.end.clone().map(off),
        total_s: time(&f.total),
        build_s: time(&f.build),
        gap_s: time(&f.gap),
        gap_pct: share(&f.gap, &f.total),
        setup_s: time(&f.setup),
        export_s: time(&f.export),
        upload_s: time(&f.upload),
        upload_pct: share(&f.upload, &f.total),
        upload_bytes: f.upload_bytes.clone(),
        upload_bytes_source: f.upload_bytes_source.clone(),
        upload_mbps: f.upload_mbps.clone(),
        steps_total: f.steps_total.clone(),
        steps_cached: f.steps_cached.clone(),
        registry_calls: f.registry_calls.clone(),
        est_s: f.est_s.clone(),
        after: f.after.clone(),
        slack_s: f.slack_s.clone().map(r3),
        waiting: cx
            .waiting
            .get(name)
            .into_iter()
            .flatten()
            .map(|&(s, e)| [off(s), off(e)])
            .collect(),
        shade: 0,
        phases: vec![],
        uploads: vec![],
        steps: vec![],
        slowest_steps: slowest(f),
        why_null: Reasons::new(),
        notes: Notes,
    };
    if let Some(t) = trace {
        view.phases = phase_bands(t, cx.window.map(|w| w.1))
            .into_iter()
            .map(|(phase, s, e)| PhaseBand {
                phase,
                start_s: off(s),
                end_s: off(e),
            })
            .collect();
        view.uploads = t.uploads.iter().map(|&(s, e)| [off(s), off(e)]).collect();
        view.steps = t
            .steps
            .iter()
            .map(|s| StepView {
                name: s.name.clone(),
                start_s: off(s.start),
                end_s: off(s.end),
                cached: s.cached,
                vertex: s.vertex.clone(),
            })
            .collect();
    }
    view
}

/// Its slowest steps, each with its share of the build. A step under half a
/// second (a layer loaded from the cache) is not where the build went.
fn slowest(f: &TargetFigures) -> Vec<SlowStep> {
    let took: Vec<_> = f.steps.iter().filter(|r| r.s() >= 0.5).cloned().collect();
    let build_s = f.build.get().map(secs_ms);
    crate::analysis::step_diff::slowest(&took, super::SLOWEST_STEPS)
        .into_iter()
        .map(|r| SlowStep {
            build_pct: build_s.filter(|b| *b > 0.0).map(|b| r1(100.0 * secs_ms(r.us) / b)),
            s: secs_ms(r.us),
            name: r.name,
            cached: !r.ran,
        })
        .collect()
}
