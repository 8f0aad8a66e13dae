//! The targets section: each target's figures from its trace, where it ran,
//! its upload bytes as attributed (`analysis::uploads`), its phases, in
//! timeline order.

use super::context::Context;
use super::{group_reasons, r1, r3, why, Band, SlowStep, StepView, TargetView};
use crate::analysis::join::TargetJoin;
use crate::analysis::phases::phase_bands;
use crate::analysis::targets::TargetFigures;
use crate::analysis::uploads::{attribute_upload, UploadBytes, UploadEvidence};
use crate::timefmt;
use std::collections::BTreeMap;

pub(super) fn build(cx: &Context) -> Vec<TargetView> {
    let mut views: Vec<TargetView> = cx.join.names.iter().map(|name| target(cx, name)).collect();
    // Timeline order: by start, unstarted last, then by name.
    views.sort_by(|a, b| {
        let ka = (a.start_s.is_none(), a.start_s.unwrap_or(0.0), &a.name);
        let kb = (b.start_s.is_none(), b.start_s.unwrap_or(0.0), &b.name);
        ka.partial_cmp(&kb).unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut on_node: BTreeMap<String, usize> = BTreeMap::new();
    for v in &mut views {
        if let Some(n) = &v.node {
            let k = on_node.entry(n.clone()).or_default();
            v.shade = *k;
            *k += 1;
        }
    }
    views
}

fn target(cx: &Context, name: &str) -> TargetView {
    let p = cx.join.placement(name);
    let node = p.map(|p| p.node.clone());
    let builder = p.and_then(|p| p.builder.clone()).or_else(|| {
        node.as_deref()
            .and_then(|n| cx.node_info(n))
            .and_then(|n| n.builder.clone())
    });
    let mut view = unmeasured(name, node, builder, p.and_then(|p| p.est_s));
    view.after = p.and_then(|p| p.after.clone());
    view.slack_s = cx.critical.as_ref().and_then(|c| c.slack_s.get(name)).map(|s| r3(*s));
    view.waiting = cx
        .waiting
        .get(name)
        .into_iter()
        .flatten()
        .map(|&(s, e)| [cx.off(s), cx.off(e)])
        .collect();
    match cx.join.figures(name) {
        Some(f) => measured(cx, &mut view, f),
        None => {
            let reason = no_trace(cx, name);
            for k in [
                "total_s",
                "build_s",
                "gap_s",
                "upload_s",
                "upload_bytes",
                "steps_total",
                "steps_cached",
                "registry_calls",
            ] {
                view.why_null.insert(k.into(), reason.clone());
            }
        }
    }
    view.notes = group_reasons(&view.why_null);
    view
}

fn no_trace(cx: &Context, name: &str) -> String {
    if let Some(r) = why::no_record(cx.run, &format!("trace-{name}.json")) {
        r
    } else if cx.run.in_flight() {
        format!(
            "no readable trace-{name}.json yet (the run is in flight: BuildKit writes the trace when the record ends)"
        )
    } else {
        format!("no trace-{name}.json in this run, or it could not be read")
    }
}

/// A target with nothing measured yet.
fn unmeasured(name: &str, node: Option<String>, builder: Option<String>, est_s: Option<f64>) -> TargetView {
    TargetView {
        name: name.to_string(),
        node,
        builder,
        start: None,
        end: None,
        start_s: None,
        end_s: None,
        total_s: None,
        build_s: None,
        gap_s: None,
        gap_pct: None,
        setup_s: None,
        export_s: None,
        upload_s: None,
        upload_pct: None,
        upload_bytes: None,
        upload_bytes_source: None,
        upload_mbps: None,
        steps_total: None,
        steps_cached: None,
        registry_calls: None,
        est_s,
        after: None,
        slack_s: None,
        waiting: vec![],
        shade: 0,
        phases: vec![],
        uploads: vec![],
        steps: vec![],
        slowest_steps: vec![],
        why_null: BTreeMap::new(),
        notes: vec![],
    }
}

/// Fills in what the target's trace (and the registry) measured.
fn measured(cx: &Context, t: &mut TargetView, f: &TargetFigures) {
    for (k, v) in &f.why_null {
        t.why_null.insert((*k).to_string(), v.clone());
    }
    match upload_bytes(cx, &t.name, t.node.as_deref(), f) {
        UploadBytes::Measured { bytes, source } => {
            (t.upload_bytes, t.upload_bytes_source) = (Some(bytes), Some(source))
        }
        UploadBytes::Unknown { why } => {
            t.why_null.insert("upload_bytes".into(), why);
        }
    }
    let pct = |x: Option<f64>| match (x, f.total_s) {
        (Some(x), Some(total)) if total > 0.0 => Some(r1(100.0 * x / total)),
        _ => None,
    };
    let off = |t| cx.off(t);
    t.start = f.start.map(timefmt::format_rfc3339);
    t.end = f.end.map(timefmt::format_rfc3339);
    t.start_s = f.start.map(off);
    t.end_s = f.end.map(off);
    t.total_s = f.total_s.map(r3);
    t.build_s = f.build_s.map(r3);
    t.gap_s = f.gap_s.map(r3);
    t.gap_pct = pct(f.gap_s);
    t.setup_s = f.setup_s.map(r3);
    t.export_s = f.export_s.map(r3);
    t.upload_s = f.upload_s.map(r3);
    t.upload_pct = pct(f.upload_s);
    t.upload_mbps = match (t.upload_bytes, f.upload_s) {
        (Some(b), Some(s)) if s > 0.0 && b > 0 => Some(r3(b as f64 / s / 1e6)),
        _ => None,
    };
    t.steps_total = Some(f.steps_total);
    t.steps_cached = Some(f.steps_cached);
    t.registry_calls = Some(f.registry_calls);
    t.phases = phase_bands(f, cx.window.map(|w| w.1))
        .into_iter()
        .map(|(phase, s, e)| Band {
            phase,
            start_s: off(s),
            end_s: off(e),
        })
        .collect();
    t.uploads = f.uploads.iter().map(|&(s, e)| [off(s), off(e)]).collect();
    t.steps = f
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
    // A step under half a second (a layer loaded from the cache) is not where the build went.
    let took: Vec<_> = t.step_records().into_iter().filter(|r| r.s >= 0.5).collect();
    t.slowest_steps = crate::analysis::step_diff::slowest(&took, super::SLOWEST_STEPS)
        .into_iter()
        .map(|r| SlowStep {
            build_pct: t.build_s.filter(|b| *b > 0.0).map(|b| r1(100.0 * r.s / b)),
            s: r3(r.s),
            name: r.name,
            cached: !r.ran,
        })
        .collect();
}

/// The evidence for the target's upload bytes, handed to the rule.
fn upload_bytes(cx: &Context, name: &str, node: Option<&str>, f: &TargetFigures) -> UploadBytes {
    let zot = cx.run.zot.as_ref();
    let addr = node.and_then(|n| cx.node_info(n)).and_then(|n| n.addr.as_deref());
    let join: &TargetJoin = &cx.join;
    let others = node.map(|n| join.records_on(n, Some(name))).unwrap_or_default();
    attribute_upload(&UploadEvidence {
        traced: f.upload_bytes_traced,
        registry_read: zot.is_some(),
        addr,
        writes: zot.zip(addr).and_then(|(z, a)| z.writes_from(a)),
        record: join.record(name),
        uploads: &f.uploads,
        others: &others,
        upload_s: f.upload_s,
        open: f.open,
    })
}
