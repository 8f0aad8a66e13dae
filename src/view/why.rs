//! Every `null` of the view says why. The figures are built by the section
//! builders beside this file; this pass gives each field left `null` there
//! its reason in the `why_null` of the object that holds it, from what the
//! run shows (a missing input, a record not ended, a figure it is derived from). The
//! generic walker in `tests/trust/nulls.rs` checks that none is forgotten.

use super::{FleetView, NodeView, SccacheView, TargetView, View, ZotView};
use crate::input::InputReport;
use crate::model::{self, Run};
use std::collections::BTreeMap;

type Why = BTreeMap<String, String>;

/// Gives `field` the reason of the first of `from` that has one, unless it
/// already has its own.
fn derive(why: &mut Why, field: &str, from: &[&str]) {
    if why.contains_key(field) {
        return;
    }
    if let Some(r) = from.iter().find_map(|f| why.get(*f)).cloned() {
        why.insert(field.to_string(), r);
    }
}

fn say(why: &mut Why, field: &str, reason: impl Into<String>) {
    why.entry(field.to_string()).or_insert_with(|| reason.into());
}

/// The reason every figure of a present input that yielded no record is
/// `null`; `None` when the input is absent or gave records.
pub(super) fn no_record(run: &Run, name: &str) -> Option<String> {
    run.input(name).and_then(InputReport::why_no_record)
}

/// Why run.json does not give `key`.
fn run_json_lacks(run: &Run, key: &str) -> String {
    match no_record(run, model::RUN_JSON) {
        Some(r) => r,
        None if run.info.is_none() => "no run.json in this run".to_string(),
        None => format!("run.json has no `{key}`"),
    }
}

fn window_unknown() -> String {
    "the run's time window is unknown: run.json gives none and no input has a timed event".to_string()
}

pub(super) fn explain(view: &mut View, run: &Run) {
    let mut why = Why::new();
    if view.mode.is_none() {
        say(&mut why, "mode", run_json_lacks(run, "mode"));
    }
    if view.arch.is_none() {
        say(&mut why, "arch", run_json_lacks(run, "arch"));
    }
    if view.namespace.is_none() {
        say(&mut why, "namespace", run_json_lacks(run, "namespace"));
    }
    if view.started_at.is_none() {
        say(&mut why, "started_at", run_json_lacks(run, "started_at"));
    }
    if view.window.is_none() {
        say(&mut why, "window", window_unknown());
    }
    if view.critical_path.is_none() {
        let reason = if view.fleet.still_running.is_empty() {
            "no target record has ended".to_string()
        } else {
            format!(
                "still building on {}: the chain that sets the wall clock is not known until every record has ended",
                view.fleet.still_running.join(", ")
            )
        };
        say(&mut why, "critical_path", reason);
    }
    if view.samples_source.is_none() {
        say(&mut why, "samples_source", format!("no {} in this run", model::SAMPLES));
    }
    view.why_null = why;
    for t in &mut view.targets {
        target(t, run);
    }
    for n in &mut view.nodes {
        node(n, run);
    }
    fleet(&mut view.fleet, &view.nodes, view.window.is_some());
    sccache(&mut view.sccache, run);
    zot(&mut view.zot, run);
    let p = &mut view.provenance;
    if p.run.namespace.is_none() {
        say(&mut p.run.why_null, "namespace", run_json_lacks(run, "namespace"));
    }
    if p.run.sccache_prefix.is_none() {
        say(
            &mut p.run.why_null,
            "sccache_prefix",
            run_json_lacks(run, "sccache_prefix"),
        );
    }
    let coreless: Vec<&str> = p
        .run
        .nodes
        .iter()
        .filter(|n| n.cores.is_none())
        .map(|n| n.name.as_str())
        .collect();
    if !coreless.is_empty() {
        let reason = if run.info.is_none() {
            "no run.json in this run".to_string()
        } else {
            format!("run.json gives no `cores` for {}", coreless.join(", "))
        };
        say(&mut p.run.why_null, "nodes.cores", reason);
    }
    for (name, id) in &mut p.inputs {
        if let Some(i) = view.inputs.get(name) {
            for (field, reason) in &i.why_null {
                let field = if field == "format" { "read_as" } else { field.as_str() };
                say(&mut id.why_null, field, reason.clone());
            }
        }
    }
}

fn target(t: &mut TargetView, run: &Run) {
    let why = &mut t.why_null;
    let has_placement = run.input(model::PLACEMENT).is_some_and(|i| i.present);
    if t.node.is_none() {
        let reason = match no_record(run, model::PLACEMENT) {
            Some(r) => r,
            None if has_placement => "placement.txt has no line for this target".to_string(),
            None => "no placement.txt in this run: the target's node is unknown".to_string(),
        };
        say(why, "node", reason);
    }
    if t.builder.is_none() {
        derive(why, "builder", &["node"]);
        if let Some(n) = &t.node {
            say(
                why,
                "builder",
                format!("neither placement.txt nor run.json names the builder of node {n}"),
            );
        }
    }
    if t.est_s.is_none() {
        derive(why, "est_s", &["node"]);
        say(why, "est_s", "the placement line gives no `est_s`");
    }
    // The record's ends come from its root span (written when it ends).
    for (field, null) in [("start", t.start.is_none()), ("start_s", t.start_s.is_none())] {
        if null {
            derive(why, field, &["upload_s", "total_s"]);
        }
    }
    for (field, null) in [("end", t.end.is_none()), ("end_s", t.end_s.is_none())] {
        if null {
            derive(why, field, &["total_s"]);
        }
    }
    if t.setup_s.is_none() {
        derive(why, "setup_s", &["start", "build_s"]);
    }
    if t.export_s.is_none() {
        derive(why, "export_s", &["end", "build_s"]);
    }
    let zero_total = t.total_s.is_some_and(|x| x <= 0.0);
    if t.gap_pct.is_none() {
        derive(why, "gap_pct", &["gap_s", "total_s"]);
        if zero_total {
            say(why, "gap_pct", "the total is zero: no share of it");
        }
    }
    if t.upload_pct.is_none() {
        derive(why, "upload_pct", &["upload_s", "total_s"]);
        if zero_total {
            say(why, "upload_pct", "the total is zero: no share of it");
        }
    }
    if t.upload_bytes_source.is_none() {
        derive(why, "upload_bytes_source", &["upload_bytes"]);
    }
    if t.upload_mbps.is_none() {
        derive(why, "upload_mbps", &["upload_bytes", "upload_s"]);
        if t.upload_bytes == Some(0) || t.upload_s.is_some_and(|s| s <= 0.0) {
            say(why, "upload_mbps", "nothing was uploaded: no rate");
        }
    }
    if t.registry_calls.is_none() {
        derive(why, "registry_calls", &["steps_total"]);
    }
    if t.slack_s.is_none() {
        derive(why, "slack_s", &["end"]);
        say(
            why,
            "slack_s",
            "the run's end is not known until every record has ended",
        );
    }
    t.notes = super::group_reasons(why);
}

fn node(n: &mut NodeView, run: &Run) {
    let name = n.name.clone();
    let listed = run.info.as_ref().and_then(|i| i.nodes.iter().find(|x| x.name == name));
    let lacks = |key: &str| match (&run.info, listed) {
        (None, _) => run_json_lacks(run, "nodes"),
        (Some(_), None) => format!("run.json does not list node {name}"),
        (Some(_), Some(_)) => format!("run.json gives no `{key}` for node {name}"),
    };
    let why = &mut n.why_null;
    if n.builder.is_none() {
        say(
            why,
            "builder",
            format!("{}, nor does any placement line", lacks("builder")),
        );
    }
    if n.addr.is_none() {
        say(why, "addr", lacks("addr"));
    }
    if n.cores.is_none() {
        say(why, "cores", lacks("cores"));
    }
    if n.link_mbps.is_none() {
        say(why, "link_mbps", lacks("link_mbps"));
    }
    if n.idle_s.is_none() {
        derive(why, "idle_s", &["busy_s"]);
    }
    for (field, null) in [
        ("waiting_s", n.waiting_s.is_none()),
        ("nothing_to_do_s", n.nothing_to_do_s.is_none()),
    ] {
        if null {
            derive(why, field, &["idle_s"]);
        }
    }
    if n.finished_s.is_none() || n.idle_after_s.is_none() {
        let reason = if run.in_flight() && !n.targets.is_empty() {
            format!("a target on {name} may not have ended yet (the run is in flight)")
        } else if n.targets.is_empty() {
            format!("no target is placed on {name}")
        } else {
            format!("no target on {name} has a timed record")
        };
        for (field, null) in [
            ("finished_s", n.finished_s.is_none()),
            ("idle_after_s", n.idle_after_s.is_none()),
        ] {
            if null {
                say(why, field, reason.clone());
            }
        }
    }
    let samples = no_record(run, run.samples_input());
    let has_samples = run.samples.by_node.get(&name).is_some_and(|v| !v.is_empty());
    for (field, null, what) in [
        ("cpu_pct_mean", n.cpu_pct_mean.is_none(), "CPU"),
        ("mem_pct_max", n.mem_pct_max.is_none(), "memory"),
        ("load1_max", n.load1_max.is_none(), "load"),
        ("load1_end", n.load1_end.is_none(), "load"),
    ] {
        if !null {
            continue;
        }
        // A samples file that yielded nothing is the reason, not the node;
        // a server says of each node why it gave nothing.
        if let Some(r) = run.unsampled.get(&name).or(samples.as_ref()) {
            why.insert(field.to_string(), r.clone());
        }
        if !has_samples {
            say(why, field, run.no_samples_from(&name));
        }
        say(why, field, format!("the samples from {name} carry no {what} figures"));
    }
    for (field, series) in [("cpu.v", &n.cpu), ("mem.v", &n.mem)] {
        if series.v.iter().any(Option::is_none) {
            say(
                why,
                field,
                format!("a null breaks the line: polls of {name} more than three median intervals apart, or an interval dropped because a counter went backwards"),
            );
        }
    }
}

fn fleet(f: &mut FleetView, nodes: &[NodeView], has_window: bool) {
    let why = &mut f.why_null;
    if f.wall_s.is_none() && !has_window {
        say(why, "wall_s", window_unknown());
    }
    if f.work_s.is_none() {
        say(why, "work_s", "no target has a measured total");
    }
    if f.idle_s.is_none() {
        match nodes.iter().find(|n| n.idle_s.is_none()) {
            Some(n) => {
                let r = n.why_null.get("idle_s").cloned().unwrap_or_default();
                say(why, "idle_s", format!("the idle time of {} is unknown: {r}", n.name));
            }
            None => say(why, "idle_s", "no node is known"),
        }
    }
    if f.critical.is_none() {
        if f.still_running.is_empty() {
            say(why, "critical", "no ended target record tied to a node (placement.txt)");
        } else {
            say(
                why,
                "critical",
                format!(
                    "still building on {}: who finishes last is not known until every record has ended",
                    f.still_running.join(", ")
                ),
            );
        }
    }
}

fn sccache(s: &mut SccacheView, run: &Run) {
    if s.why.is_some() {
        return;
    }
    let Some(input) = &run.sccache else {
        return;
    };
    let l = &input.log;
    let why = &mut s.why_null;
    if s.write_bytes.is_none() {
        if !input.sizes_known {
            say(
                why,
                "write_bytes",
                "the log format has no $request_length, so the size of cache writes is unknown",
            );
        } else {
            say(
                why,
                "write_bytes",
                format!(
                    "{} cache writes carried no size; the total is a lower bound",
                    l.writes_unsized
                ),
            );
        }
    }
    if s.hit_ratio.is_none() {
        say(why, "hit_ratio", "no cache read (hit or miss) under this run's prefix");
    }
    if s.series.iter().any(|p| p.write_bytes.is_none()) {
        let r = why.get("write_bytes").cloned().unwrap_or_default();
        say(
            why,
            "series.write_bytes",
            format!("a write in the bucket carried no size: {r}"),
        );
    }
}

fn zot(z: &mut ZotView, run: &Run) {
    if z.why.is_some() {
        return;
    }
    let Some(log) = &run.zot else {
        return;
    };
    if z.read_bytes.is_none() {
        say(
            &mut z.why_null,
            "read_bytes",
            format!("{} successful reads carried no bodySize", log.reads_unsized),
        );
    }
}
