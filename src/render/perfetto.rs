//! The run as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and
//! chrome://tracing open: a process per node, a track per target with its
//! phases, steps on tracks of their own where they overlap (parallel stages),
//! uploads as async slices (they overlap the phases), counter tracks for CPU
//! and memory, and the compiler cache's activity as instants.

use crate::view::View;
use serde_json::{json, Value};

fn us(s: f64) -> i64 {
    (s * 1e6).round() as i64
}

/// Greedy lanes so that slices on one track never overlap.
fn lanes(intervals: &[(f64, f64)]) -> Vec<usize> {
    let mut ends: Vec<f64> = vec![];
    intervals
        .iter()
        .map(|&(s, e)| match ends.iter().position(|end| *end <= s) {
            Some(i) => {
                ends[i] = e;
                i
            }
            None => {
                ends.push(e);
                ends.len() - 1
            }
        })
        .collect()
}

pub fn render(v: &View) -> String {
    let mut events: Vec<Value> = vec![];
    let meta = |pid: usize, tid: Option<usize>, name: &str, value: &str| {
        let mut e = json!({"ph": "M", "pid": pid, "name": name, "args": {"name": value}});
        if let Some(t) = tid {
            e["tid"] = json!(t);
        }
        e
    };
    let node_pid = |node: Option<&str>| -> usize {
        node.and_then(|n| v.nodes.iter().position(|x| x.name == n))
            .map(|i| i + 1)
            .unwrap_or(v.nodes.len() + 1)
    };
    for (i, n) in v.nodes.iter().enumerate() {
        let label = match &n.builder {
            Some(b) => format!("{} ({b})", n.name),
            None => n.name.clone(),
        };
        events.push(meta(i + 1, None, "process_name", &label));
        events.push(json!({"ph": "M", "pid": i + 1, "name": "process_sort_index", "args": {"sort_index": i}}));
        for (series, name) in [(&n.cpu, "CPU busy %"), (&n.mem, "memory used %")] {
            for (t, val) in series.t.iter().zip(&series.v) {
                if let Some(val) = val {
                    events.push(json!({"ph": "C", "pid": i + 1, "name": name, "ts": us(*t), "args": {"percent": val}}));
                }
            }
        }
    }
    if v.targets.iter().any(|t| t.node.is_none()) {
        events.push(meta(v.nodes.len() + 1, None, "process_name", "(no placement)"));
    }
    for (ti, t) in v.targets.iter().enumerate() {
        let pid = node_pid(t.node.as_deref());
        // Track ids: 1000 per target, the phases on the first, steps after.
        let base = (ti + 1) * 1000;
        events.push(meta(pid, Some(base), "thread_name", &t.name));
        for p in &t.phases {
            events.push(
                json!({"ph": "X", "pid": pid, "tid": base, "name": p.phase, "cat": "phase",
                "ts": us(p.start_s), "dur": us(p.end_s - p.start_s).max(0), "args": {"target": t.name}}),
            );
        }
        let iv: Vec<(f64, f64)> = t.steps.iter().map(|s| (s.start_s, s.end_s)).collect();
        let lane = lanes(&iv);
        for (k, s) in t.steps.iter().enumerate() {
            let tid = base + 1 + lane[k];
            events.push(json!({"ph": "X", "pid": pid, "tid": tid, "name": s.name, "cat": if s.cached { "cached step" } else { "step" },
                "ts": us(s.start_s), "dur": us(s.end_s - s.start_s).max(0), "args": {"target": t.name, "cached": s.cached}}));
        }
        for l in 0..lane.iter().max().map_or(0, |m| m + 1) {
            events.push(meta(
                pid,
                Some(base + 1 + l),
                "thread_name",
                &format!("{} steps {}", t.name, l + 1),
            ));
        }
        for (k, u) in t.uploads.iter().enumerate() {
            let id = format!("{}-upload-{k}", t.name);
            events.push(json!({"ph": "b", "pid": pid, "tid": base, "cat": "upload", "name": format!("{} upload", t.name), "id": id, "ts": us(u[0])}));
            events.push(json!({"ph": "e", "pid": pid, "tid": base, "cat": "upload", "name": format!("{} upload", t.name), "id": id, "ts": us(u[1])}));
        }
    }
    let caches = v.nodes.len() + 2;
    events.push(meta(caches, None, "process_name", "caches"));
    for p in v.sccache.series.iter().filter(|p| p.hits + p.misses + p.writes > 0) {
        events.push(
            json!({"ph": "i", "s": "p", "pid": caches, "tid": 1, "name": "sccache", "ts": us(p.t_s),
            "args": {"hits": p.hits, "misses": p.misses, "writes": p.writes, "write_bytes": p.write_bytes}}),
        );
    }
    for p in v.zot.series.iter().filter(|p| p.cache_bytes + p.image_bytes > 0) {
        events.push(
            json!({"ph": "i", "s": "p", "pid": caches, "tid": 2, "name": "registry writes", "ts": us(p.t_s),
            "args": {"cache_bytes": p.cache_bytes, "image_bytes": p.image_bytes}}),
        );
    }
    let doc = json!({
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "metadata": {"stamp": v.stamp, "tool": format!("perfreport {} ({})", v.tool.version, v.tool.commit),
                     "time_origin": v.window.as_ref().map(|w| w.start.clone())},
    });
    serde_json::to_string(&doc).unwrap_or_else(|_| "{}".into()) + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_intervals_get_separate_lanes() {
        assert_eq!(
            lanes(&[(0.0, 10.0), (5.0, 8.0), (10.0, 12.0), (6.0, 20.0)]),
            vec![0, 1, 0, 2]
        );
    }
}
