//! The run as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and
//! chrome://tracing open: a process per node, a track per target with its
//! phases, steps on tracks of their own where they overlap (parallel stages)
//! or would otherwise nest (a cached step with no length), uploads as async
//! slices scoped to their node's process (they overlap the phases), counter
//! tracks for CPU and memory, and the compiler cache's activity as instants.

use super::Export;
use crate::error::Result;
use crate::output::OutFile;
use crate::view::View;
use serde_json::{json, Value};
use std::collections::BTreeSet;

/// The trace's name as a file; `perfreport trace` writes it where `-o` says, else to standard output.
pub(crate) const FILE: &str = "trace.json";

/// The trace-event JSON, on its own.
pub struct Perfetto;

impl Export for Perfetto {
    fn render(&self, view: &View) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(FILE, render(view))])
    }
}

fn us(s: f64) -> i64 {
    (s * 1e6).round() as i64
}

/// A slice's start and duration in microseconds, as written; a slice that
/// ends before it starts is written with no length.
fn span(start_s: f64, end_s: f64) -> (i64, i64) {
    let ts = us(start_s);
    (ts, us(end_s).saturating_sub(ts).max(0))
}

/// Greedy lanes so that slices on one track neither overlap nor share a
/// start where one of them has no length: importers order slices that start
/// together longest first, so a zero-length (cached) step starting with
/// another would be drawn as its child. Input and lanes are `(ts, dur)` in µs.
fn lanes(slices: &[(i64, i64)]) -> Vec<usize> {
    // Each lane's last slice, as (start, end).
    let mut last: Vec<(i64, i64)> = vec![];
    slices
        .iter()
        .map(|&(ts, dur)| {
            let end = ts.saturating_add(dur);
            // Free when its last slice ended before, or ended at this start
            // having had a length (intervals are closed on the left, open on the right).
            let free = |&(s, e): &(i64, i64)| e < ts || (e == ts && s < e);
            match last.iter().position(free) {
                Some(i) => {
                    last[i] = (ts, end);
                    i
                }
                None => {
                    last.push((ts, end));
                    last.len() - 1
                }
            }
        })
        .collect()
}

/// The metadata events naming processes (pid, name, sort index) and tracks
/// (pid, tid, name), for those only where an event of `events` landed.
fn declarations(
    processes: Vec<(usize, String, Option<usize>)>,
    tracks: Vec<(usize, usize, String)>,
    events: &[Value],
) -> Vec<Value> {
    let used_pids: BTreeSet<u64> = events.iter().filter_map(|e| e["pid"].as_u64()).collect();
    let used_tids: BTreeSet<(u64, u64)> = events
        .iter()
        .filter_map(|e| Some((e["pid"].as_u64()?, e["tid"].as_u64()?)))
        .collect();
    let mut meta: Vec<Value> = vec![];
    for (pid, name, sort) in processes {
        if !used_pids.contains(&(pid as u64)) {
            continue;
        }
        meta.push(json!({"ph": "M", "pid": pid, "name": "process_name", "args": {"name": name}}));
        if let Some(i) = sort {
            meta.push(json!({"ph": "M", "pid": pid, "name": "process_sort_index", "args": {"sort_index": i}}));
        }
    }
    for (pid, tid, name) in tracks {
        if used_tids.contains(&(pid as u64, tid as u64)) {
            meta.push(json!({"ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": name}}));
        }
    }
    meta
}

/// A node's process name: the node, with its builder when known.
fn node_label(n: &crate::view::NodeView) -> String {
    match n.builder.value() {
        Some(b) => format!("{} ({b})", n.name),
        None => n.name.clone(),
    }
}

/// A node's CPU and memory as counters of process `pid`.
fn node_counters(n: &crate::view::NodeView, pid: usize, events: &mut Vec<Value>) {
    // Perfetto names a counter track "<name> <arg>": the arg carries the unit.
    for (series, name) in [(&n.cpu, "CPU busy"), (&n.mem, "memory used")] {
        for (t, val) in series.t.iter().zip(&series.v) {
            if let Some(val) = val {
                events.push(json!({"ph": "C", "pid": pid, "name": name, "ts": us(*t), "args": {"percent": val}}));
            }
        }
    }
}

/// Target `ti`'s phases, steps and uploads under its node's process `pid`,
/// with the tracks they land on.
fn target_events(
    t: &crate::view::TargetView,
    (pid, ti): (usize, usize),
    events: &mut Vec<Value>,
    tracks: &mut Vec<(usize, usize, String)>,
) {
    // Track ids: 1000 per target, the phases on the first, steps after.
    let base = (ti + 1) * 1000;
    tracks.push((pid, base, t.name.clone()));
    for p in &t.phases {
        let (ts, dur) = span(p.start_s, p.end_s);
        // A phase that took no time has nothing to draw, and drawn it
        // would nest under the phase starting at the same microsecond.
        if dur == 0 {
            continue;
        }
        events.push(
            json!({"ph": "X", "pid": pid, "tid": base, "name": p.phase, "cat": "phase",
            "ts": ts, "dur": dur, "args": {"target": t.name}}),
        );
    }
    let spans: Vec<(i64, i64)> = t.steps.iter().map(|s| span(s.start_s, s.end_s)).collect();
    let lane = lanes(&spans);
    for ((s, (ts, dur)), l) in t.steps.iter().zip(&spans).zip(&lane) {
        events.push(json!({"ph": "X", "pid": pid, "tid": base + 1 + l, "name": s.name, "cat": if s.cached { "cached step" } else { "step" },
            "ts": ts, "dur": dur, "args": {"target": t.name, "cached": s.cached}}));
    }
    for l in 0..lane.iter().max().map_or(0, |m| m + 1) {
        tracks.push((pid, base + 1 + l, format!("{} steps {}", t.name, l + 1)));
    }
    for (k, u) in t.uploads.iter().enumerate() {
        // `id2.local` scopes the async slice to its process (the node);
        // a bare `id` is global and lands under "Global Legacy Events".
        let id = json!({"local": format!("{ti}.{k}")});
        let name = format!("{} upload", t.name);
        events.push(
            json!({"ph": "b", "pid": pid, "tid": base, "cat": "upload", "name": name, "id2": id, "ts": us(u[0]),
            "args": {"target": t.name}}),
        );
        events.push(
            json!({"ph": "e", "pid": pid, "tid": base, "cat": "upload", "name": name, "id2": id, "ts": us(u[1])}),
        );
    }
}

/// The cache server's and the registry's activity as instants of process
/// `pid` (the caches), one a bucket that saw any.
fn cache_events(v: &View, pid: usize, events: &mut Vec<Value>) {
    for p in v.sccache.series.iter().filter(|p| p.hits + p.misses + p.writes > 0) {
        events.push(
            json!({"ph": "i", "s": "p", "pid": pid, "tid": 1, "name": "sccache", "ts": us(p.t_s),
            "args": {"hits": p.hits, "misses": p.misses, "writes": p.writes, "write_bytes": p.write_bytes}}),
        );
    }
    for p in v.zot.series.iter().filter(|p| p.cache_bytes + p.image_bytes > 0) {
        events.push(
            json!({"ph": "i", "s": "p", "pid": pid, "tid": 2, "name": "registry writes", "ts": us(p.t_s),
            "args": {"cache_bytes": p.cache_bytes, "image_bytes": p.image_bytes}}),
        );
    }
}

/// The run as Chrome trace-event JSON: a process per node (its counters,
/// its targets' tracks), one for targets with no placement, one for the caches.
pub(crate) fn render(v: &View) -> String {
    let mut events: Vec<Value> = vec![];
    // Names of processes (pid, name, sort index) and tracks (pid, tid, name),
    // declared at the end only where events landed: a declared process or
    // track with nothing in it is an empty row that says nothing.
    let mut processes: Vec<(usize, String, Option<usize>)> = vec![];
    let mut tracks: Vec<(usize, usize, String)> = vec![];
    let node_pid = |node: Option<&str>| -> usize {
        node.and_then(|n| v.nodes.iter().position(|x| x.name == n))
            .map(|i| i + 1)
            .unwrap_or(v.nodes.len() + 1)
    };
    for (i, n) in v.nodes.iter().enumerate() {
        processes.push((i + 1, node_label(n), Some(i)));
        node_counters(n, i + 1, &mut events);
    }
    processes.push((v.nodes.len() + 1, "(no placement)".into(), None));
    for (ti, t) in v.targets.iter().enumerate() {
        target_events(t, (node_pid(t.node.as_deref()), ti), &mut events, &mut tracks);
    }
    let caches = v.nodes.len() + 2;
    processes.push((caches, "caches".into(), None));
    cache_events(v, caches, &mut events);
    let mut meta = declarations(processes, tracks, &events);
    meta.append(&mut events);
    let doc = json!({
        "traceEvents": meta,
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
        assert_eq!(lanes(&[(0, 10), (5, 3), (10, 2), (6, 14)]), vec![0, 1, 0, 2]);
    }

    #[test]
    fn a_zero_length_slice_shares_its_start_with_no_other_slice_of_its_lane() {
        // A cached step with no length, then a step starting at the same
        // microsecond, then another zero-length one there: three lanes.
        assert_eq!(lanes(&[(5, 0), (5, 7), (5, 0)]), vec![0, 1, 2]);
        // After a slice with a length, one may start where it ends.
        assert_eq!(lanes(&[(0, 5), (5, 0), (6, 1)]), vec![0, 0, 0]);
    }
}
