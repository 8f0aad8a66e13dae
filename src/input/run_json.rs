//! `run.json`: the harness's description of the run.

use super::ParseStats;
use crate::timefmt::{self, Micros};
use serde::Deserialize;

/// Its name in a run directory.
pub(crate) const FILE: &str = "run.json";

/// The most bytes read of it: a run.json is a few kB, and 16 MiB is
/// thousands of nodes and targets.
pub(crate) const MAX_BYTES: u64 = 16 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Mode {
    Cold,
    Warm,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NodeInfo {
    pub(crate) name: String,
    pub(crate) builder: Option<String>,
    pub(crate) addr: Option<String>,
    pub(crate) cores: Option<u32>,
    pub(crate) mem_bytes: Option<u64>,
    /// Upload throughput to the store, MB/s.
    pub(crate) link_mbps: Option<f64>,
    /// The node's `instance` label in the fleet's Prometheus, where it is
    /// not `addr:9100` (see `input::prometheus`).
    pub(crate) instance: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RunInfo {
    pub(crate) stamp: Option<String>,
    pub(crate) mode: Option<Mode>,
    pub(crate) arch: Option<String>,
    pub(crate) targets: Vec<String>,
    pub(crate) namespace: Option<String>,
    pub(crate) sccache_prefix: Option<String>,
    pub(crate) started_at: Option<Micros>,
    /// `None` with `in_flight` means the harness has not finished the run.
    pub(crate) finished_at: Option<Micros>,
    pub(crate) in_flight: bool,
    pub(crate) nodes: Vec<NodeInfo>,
    /// The fleet's job width (`max_jobs`), when the harness records it.
    pub(crate) job_width: Option<u32>,
    /// The build repository's revision (a commit), when the harness records it.
    pub(crate) revision: Option<String>,
    /// Seconds between the harness's polls of each node (`poll_s`), when it
    /// records them: the step the node samples are read from Prometheus at.
    pub(crate) poll_s: Option<f64>,
}

// The wire shape, lenient on purpose: a field of the wrong type is reported
// and dropped instead of losing the whole file.
#[derive(Deserialize)]
struct Wire {
    stamp: Option<serde_json::Value>,
    mode: Option<serde_json::Value>,
    arch: Option<serde_json::Value>,
    targets: Option<serde_json::Value>,
    namespace: Option<serde_json::Value>,
    sccache_prefix: Option<serde_json::Value>,
    started_at: Option<serde_json::Value>,
    finished_at: Option<serde_json::Value>,
    nodes: Option<serde_json::Value>,
    max_jobs: Option<serde_json::Value>,
    revision: Option<serde_json::Value>,
    poll_s: Option<serde_json::Value>,
}

pub(crate) fn parse(data: &[u8]) -> (Option<RunInfo>, ParseStats) {
    let mut stats = ParseStats {
        lines: bytecount_lines(data),
        ..Default::default()
    };
    let wire: Wire = match serde_json::from_slice(data) {
        Ok(w) => w,
        Err(e) => {
            stats.note_malformed(e.line() as u64, format!("not a run description: {e}"));
            return (None, stats);
        }
    };
    let mut bad = |field: &str, why: &str| stats.note_problem(0, format!("field `{field}` {why}; ignored"));
    let string = |v: &Option<serde_json::Value>| v.as_ref().and_then(|v| v.as_str()).map(str::to_string);
    let mut info = RunInfo {
        stamp: string(&wire.stamp),
        arch: string(&wire.arch),
        namespace: string(&wire.namespace),
        sccache_prefix: string(&wire.sccache_prefix),
        revision: string(&wire.revision),
        ..Default::default()
    };
    info.mode = mode(&wire.mode, &mut bad);
    info.job_width = wire
        .max_jobs
        .as_ref()
        .and_then(|v| v.as_u64())
        .and_then(|v| u32::try_from(v).ok());
    info.poll_s = poll_s(&wire.poll_s, &mut bad);
    if let Some(serde_json::Value::Array(items)) = &wire.targets {
        info.targets = items.iter().filter_map(|t| t.as_str().map(str::to_string)).collect();
    }
    match &wire.started_at {
        None | Some(serde_json::Value::Null) => {}
        Some(v) => {
            info.started_at = timefmt::from_json(v);
            if info.started_at.is_none() {
                bad("started_at", "is not a timestamp");
            }
        }
    }
    match &wire.finished_at {
        None | Some(serde_json::Value::Null) => info.in_flight = true,
        Some(v) => {
            info.finished_at = timefmt::from_json(v);
            if info.finished_at.is_none() {
                bad("finished_at", "is not a timestamp");
            }
        }
    }
    if let Some(serde_json::Value::Array(nodes)) = &wire.nodes {
        info.nodes = nodes.iter().filter_map(|n| node(n, &mut bad)).collect();
    }
    stats.records = 1;
    (Some(info), stats)
}

/// `mode`: cold or warm; anything else is noted and ignored.
fn mode(v: &Option<serde_json::Value>, bad: &mut impl FnMut(&str, &str)) -> Option<Mode> {
    match v.as_ref().and_then(|v| v.as_str()) {
        Some("cold") => Some(Mode::Cold),
        Some("warm") => Some(Mode::Warm),
        None => None,
        Some(_) => {
            bad("mode", "is neither cold nor warm");
            None
        }
    }
}

/// `poll_s`: a positive number of seconds; anything else but null is noted and ignored.
fn poll_s(v: &Option<serde_json::Value>, bad: &mut impl FnMut(&str, &str)) -> Option<f64> {
    match v {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => {
            let s = v.as_f64().filter(|s| s.is_finite() && *s > 0.0);
            if s.is_none() {
                bad("poll_s", "is not a positive number of seconds");
            }
            s
        }
    }
}

/// One of `nodes`: a node without a name is noted and left out; a field
/// of the wrong type is dropped.
fn node(n: &serde_json::Value, bad: &mut impl FnMut(&str, &str)) -> Option<NodeInfo> {
    let Some(name) = n.get("name").and_then(|v| v.as_str()) else {
        bad("nodes[].name", "is missing");
        return None;
    };
    Some(NodeInfo {
        name: name.to_string(),
        builder: n.get("builder").and_then(|v| v.as_str()).map(str::to_string),
        addr: n.get("addr").and_then(|v| v.as_str()).map(str::to_string),
        cores: n
            .get("cores")
            .and_then(|v| v.as_u64())
            .and_then(|c| u32::try_from(c).ok()),
        mem_bytes: n.get("mem_bytes").and_then(|v| v.as_u64()),
        link_mbps: n
            .get("link_mbps")
            .and_then(|v| v.as_f64())
            .filter(|v| v.is_finite() && *v > 0.0),
        instance: n.get("instance").and_then(|v| v.as_str()).map(str::to_string),
    })
}

fn bytecount_lines(data: &[u8]) -> u64 {
    let n = memchr::memchr_iter(b'\n', data).count() as u64;
    if data.last().is_some_and(|b| *b != b'\n') {
        n + 1
    } else {
        n
    }
}

/// The `started_at` of a run directory's run.json, used to order runs.
pub(crate) fn started_at_of(dir: &std::path::Path) -> Option<Micros> {
    let data = super::read::RunDir::new(dir, super::read::Links::StayInside).read_at_most(FILE, MAX_BYTES)?;
    parse(&data).0?.started_at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_example_reads_whole() {
        let text = br#"{"stamp": "20261020T020000Z", "mode": "cold", "arch": "gfx1201",
 "targets": ["pytorch", "triton-wheel", "aiter-wheel"],
 "namespace": "rocm-coldrun", "sccache_prefix": "perf-20261020T020000Z",
 "started_at": "2026-10-20T02:00:00Z", "finished_at": null,
 "nodes": [{"name": "strix", "builder": "snoc-strix", "addr": "10.0.3.12",
            "cores": 32, "mem_bytes": 137438953472, "link_mbps": 112.5}]}"#;
        let (info, stats) = parse(text);
        let info = info.unwrap();
        assert_eq!(stats.records, 1);
        assert_eq!(info.mode, Some(Mode::Cold));
        assert!(info.in_flight);
        assert_eq!(info.targets.len(), 3);
        assert_eq!(info.nodes[0].addr.as_deref(), Some("10.0.3.12"));
        assert_eq!(info.nodes[0].cores, Some(32));
        assert_eq!(info.started_at, timefmt::parse_rfc3339("2026-10-20T02:00:00Z"));
        assert_eq!((info.nodes[0].instance.as_deref(), info.poll_s), (None, None));
    }

    #[test]
    fn a_nodes_prometheus_instance_and_the_poll_interval_are_read_when_given() {
        let (info, stats) = parse(
            br#"{"poll_s": 2.5, "nodes": [{"name": "strix", "addr": "10.0.3.12", "instance": "strix.lab:9100"}]}"#,
        );
        let info = info.unwrap();
        assert_eq!(info.nodes[0].instance.as_deref(), Some("strix.lab:9100"));
        assert_eq!(info.poll_s, Some(2.5));
        assert!(stats.problems.is_empty());
        let (info, stats) = parse(br#"{"poll_s": -5}"#);
        assert_eq!(info.unwrap().poll_s, None);
        assert!(stats.problems[0].reason.contains("poll_s"), "{:?}", stats.problems);
    }

    #[test]
    fn a_wrong_mode_is_reported_not_fatal() {
        let (info, stats) = parse(br#"{"mode": "lukewarm", "finished_at": "2026-10-20T03:00:00Z"}"#);
        let info = info.unwrap();
        assert_eq!(info.mode, None);
        assert!(!info.in_flight);
        assert!(stats.problems[0].reason.contains("mode"));
    }

    #[test]
    fn a_document_cut_in_half_names_its_line() {
        let (info, stats) = parse(b"{\"stamp\": \"x\",\n \"mode\": ");
        assert!(info.is_none());
        assert_eq!(stats.malformed, 1);
        assert_eq!(stats.problems[0].line, 2);
    }
}
