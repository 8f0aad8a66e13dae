//! `perfreport trace`: the run as Chrome trace-event JSON for Perfetto.

use crate::util::*;
use serde_json::Value;

#[test]
fn perfetto_trace_is_valid_trace_event_json_whose_slices_nest_per_track() {
    let o = perfreport(&["trace", sample(COLD).to_str().unwrap()]);
    assert!(o.status.success());
    let d: Value = serde_json::from_slice(&o.stdout).unwrap();
    let events = d["traceEvents"].as_array().unwrap();
    let mut tracks: std::collections::BTreeMap<(u64, u64), Vec<(i64, i64)>> = Default::default();
    for e in events {
        let ph = e["ph"].as_str().unwrap();
        assert!(["X", "M", "C", "b", "e", "i"].contains(&ph), "{e}");
        if ph == "X" {
            let (ts, dur) = (e["ts"].as_i64().unwrap(), e["dur"].as_i64().unwrap());
            assert!(dur >= 0, "{e}");
            tracks
                .entry((e["pid"].as_u64().unwrap(), e["tid"].as_u64().unwrap()))
                .or_default()
                .push((ts, ts + dur));
        }
    }
    for (track, mut slices) in tracks {
        slices.sort_by_key(|s| (s.0, std::cmp::Reverse(s.1)));
        // Properly nested: each slice is inside the one it starts in, or after it.
        let mut open: Vec<i64> = vec![];
        for (s, e) in slices {
            while open.last().is_some_and(|end| *end <= s) {
                open.pop();
            }
            if let Some(end) = open.last() {
                assert!(
                    e <= *end,
                    "track {track:?}: a slice {s}-{e} crosses its parent's end {end}"
                );
            }
            open.push(e);
        }
    }
    // Every target has its track; uploads open and close in pairs; CPU counters are there.
    let names: Vec<&str> = events
        .iter()
        .filter(|e| e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    for t in ["pytorch", "triton-wheel", "rocm-base"] {
        assert!(names.contains(&t), "{t}");
    }
    let count = |ph: &str| events.iter().filter(|e| e["ph"] == ph).count();
    assert_eq!(count("b"), count("e"));
    assert!(count("b") > 0);
    assert!(events.iter().any(|e| e["ph"] == "C" && e["name"] == "CPU busy"));
}
