//! The view model: everything the renderers show, and exactly what
//! `data.json` serialises. Built once from the run model and the analysis;
//! the renderers only read it.

use crate::analysis::{fleet, nodes, targets, window};
use crate::input::artifacts::Artifact;
use crate::input::run_json::Mode;
use crate::input::InputReport;
use crate::model::{self, Run};
use crate::timefmt::{self, Micros, MICROS_PER_SEC};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

pub mod placement;
pub mod summary;
mod why;

pub const SCHEMA: u32 = 1;

/// Points per chart series at most: display resolution, peaks kept.
pub const MAX_SERIES_POINTS: usize = 2000;

#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub schema: u32,
    pub stamp: String,
    pub mode: Option<Mode>,
    /// What `total` includes in this mode, said next to every total.
    pub mode_note: String,
    pub arch: Option<String>,
    pub namespace: Option<String>,
    pub in_flight: bool,
    /// run.json's `started_at`, which orders runs (RFC 3339).
    pub started_at: Option<String>,
    pub tool: Tool,
    pub window: Option<Window>,
    /// The report's opening sentences: what matters, in words.
    pub summary: Vec<String>,
    /// Every warning of every input, and of the analysis.
    pub warnings: Vec<String>,
    pub inputs: BTreeMap<String, InputReport>,
    pub targets: Vec<TargetView>,
    pub nodes: Vec<NodeView>,
    pub fleet: FleetView,
    pub sccache: SccacheView,
    pub zot: ZotView,
    pub artifacts: Vec<Artifact>,
    /// The balancer's costs as measured, and its rule replayed on them.
    pub placement: placement::PlacementView,
    /// What is needed to decide later whether a figure still holds.
    pub provenance: Provenance,
    /// Why a field above is `null`, keyed by field name.
    pub why_null: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tool {
    pub name: &'static str,
    pub version: &'static str,
    /// The commit the binary was built from (`-dirty` with local changes).
    pub commit: &'static str,
}

impl Tool {
    pub fn this() -> Tool {
        Tool {
            name: "perfreport",
            version: env!("CARGO_PKG_VERSION"),
            commit: env!("PERFREPORT_COMMIT"),
        }
    }
}

/// One input as read: enough to tell whether it changed since.
#[derive(Debug, Clone, Serialize)]
pub struct InputIdentity {
    pub bytes: Option<u64>,
    pub mtime: Option<String>,
    pub xxh3: Option<String>,
    pub read_as: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub why_null: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeCoordinate {
    pub name: String,
    pub cores: Option<u32>,
}

/// The run's coordinates: what decides what it may be compared with.
#[derive(Debug, Clone, Serialize)]
pub struct RunCoordinates {
    pub stamp: String,
    pub mode: Option<Mode>,
    pub arch: Option<String>,
    pub namespace: Option<String>,
    pub sccache_prefix: Option<String>,
    pub nodes: Vec<NodeCoordinate>,
    pub job_width: Option<u32>,
    pub why_null: BTreeMap<String, String>,
}

/// Nothing in here changes between two runs of the same tool on the same
/// inputs: no generation time, no host name.
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    pub tool: Tool,
    /// Present inputs only, by file name.
    pub inputs: BTreeMap<String, InputIdentity>,
    pub run: RunCoordinates,
}

#[derive(Debug, Clone, Serialize)]
pub struct Window {
    pub start: String,
    pub end: String,
    pub wall_s: f64,
    /// Where the window came from: "run.json" or "events".
    pub source: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Band {
    /// `setup`, `build` or `export`.
    pub phase: &'static str,
    pub start_s: f64,
    pub end_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct StepView {
    pub name: String,
    pub start_s: f64,
    pub end_s: f64,
    pub cached: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct TargetView {
    pub name: String,
    pub node: Option<String>,
    pub builder: Option<String>,
    /// RFC 3339.
    pub start: Option<String>,
    pub end: Option<String>,
    /// Offsets from the window's start, for the timeline.
    pub start_s: Option<f64>,
    pub end_s: Option<f64>,
    pub total_s: Option<f64>,
    pub build_s: Option<f64>,
    pub gap_s: Option<f64>,
    pub gap_pct: Option<f64>,
    pub setup_s: Option<f64>,
    pub export_s: Option<f64>,
    pub upload_s: Option<f64>,
    pub upload_pct: Option<f64>,
    pub upload_bytes: Option<u64>,
    /// `trace` (sizes on its upload spans) or `registry` (zot.jsonl writes from its node).
    pub upload_bytes_source: Option<&'static str>,
    /// Bytes per second of upload time, in MB/s.
    pub upload_mbps: Option<f64>,
    pub steps_total: Option<u64>,
    pub steps_cached: Option<u64>,
    pub registry_calls: Option<u64>,
    /// The balancer's estimate (placement.txt `est_s`).
    pub est_s: Option<f64>,
    pub phases: Vec<Band>,
    pub uploads: Vec<[f64; 2]>,
    pub steps: Vec<StepView>,
    /// Why a field is `null`, keyed by field name.
    pub why_null: BTreeMap<String, String>,
    /// The same reasons grouped for people: "`total_s`, `gap_s`: why".
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct Series {
    /// Seconds from the window's start.
    pub t: Vec<f64>,
    /// `null` breaks the line: a gap or a dropped interval, never a zero.
    pub v: Vec<Option<f64>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NodeView {
    pub name: String,
    pub builder: Option<String>,
    pub addr: Option<String>,
    pub cores: Option<u32>,
    pub link_mbps: Option<f64>,
    /// Colour index shared by every chart.
    pub colour: usize,
    pub targets: Vec<String>,
    pub busy_s: Option<f64>,
    pub idle_s: Option<f64>,
    /// Idle from this node's last target's end to the end of the run.
    pub idle_after_s: Option<f64>,
    pub finished_s: Option<f64>,
    pub cpu_pct_mean: Option<f64>,
    pub mem_pct_max: Option<f64>,
    pub load1_max: Option<f64>,
    /// The node's load at its last poll (history marks a node past its cores as loaded).
    pub load1_end: Option<f64>,
    pub counter_resets: u64,
    pub gaps: u64,
    pub cpu: Series,
    pub mem: Series,
    /// True when a series was reduced to display resolution (peaks kept).
    pub reduced: bool,
    pub why_null: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CriticalView {
    pub node: String,
    pub end_s: f64,
    pub targets: Vec<String>,
    pub last_target: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct EstimateView {
    pub target: String,
    pub est_s: f64,
    pub actual_s: f64,
    pub ratio: f64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct FleetView {
    pub wall_s: Option<f64>,
    /// Sum of the targets' totals.
    pub work_s: Option<f64>,
    /// Sum of every node's idle time inside the window.
    pub idle_s: Option<f64>,
    /// `null` while any record is still open: who finishes last is not known yet.
    pub critical: Option<CriticalView>,
    /// Nodes with a record that has not ended.
    pub still_running: Vec<String>,
    pub estimate_misses: Vec<EstimateView>,
    pub why_null: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct SccachePoint {
    pub t_s: f64,
    pub hits: u64,
    pub misses: u64,
    pub writes: u64,
    /// `null` when a write in the bucket carried no size.
    pub write_bytes: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct SccacheView {
    pub present: bool,
    /// Why the figures are `null`.
    pub why: Option<String>,
    pub hits: Option<u64>,
    pub misses: Option<u64>,
    pub writes: Option<u64>,
    pub write_bytes: Option<u64>,
    pub hit_ratio: Option<f64>,
    pub writes_unsized: Option<u64>,
    pub failed_writes: Option<u64>,
    pub overhead: Option<u64>,
    pub checks: Option<u64>,
    pub other_prefix: Option<u64>,
    pub bucket_s: i64,
    pub series: Vec<SccachePoint>,
    /// Why the lane draws less than the totals above (records outside the
    /// run's window, a window too long to draw); the charts show it.
    pub lane_why: Option<String>,
    /// Why a figure is `null` while the others were measured.
    pub why_null: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct ZotPoint {
    pub t_s: f64,
    pub cache_bytes: u64,
    pub image_bytes: u64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct ZotView {
    pub present: bool,
    pub why: Option<String>,
    pub requests: Option<u64>,
    pub blob_write_bytes: Option<u64>,
    /// Bytes written to layer-cache repositories or tags (blobs and manifests).
    pub cache_write_bytes: Option<u64>,
    /// Bytes written to image repositories (blobs and manifests).
    pub image_write_bytes: Option<u64>,
    pub manifest_writes: Option<u64>,
    pub blob_writes: Option<u64>,
    pub writes_unsized: Option<u64>,
    pub failed_writes: Option<u64>,
    pub reads: Option<u64>,
    /// `null` when some 200 GET carried no bodySize.
    pub read_bytes: Option<u64>,
    pub not_json: Option<u64>,
    pub by_message: BTreeMap<String, u64>,
    pub bucket_s: i64,
    pub series: Vec<ZotPoint>,
    /// Why the lane draws less than the totals above (writes outside the
    /// run's window, a window too long to draw); the charts show it.
    pub lane_why: Option<String>,
    /// Why a figure is `null` while the others were measured.
    pub why_null: BTreeMap<String, String>,
}

/// Rounds for output: milliseconds are plenty, and fewer digits keep the
/// files small and stable.
fn r3(x: f64) -> f64 {
    round_to(x, 1000.0)
}

fn r1(x: f64) -> f64 {
    round_to(x, 10.0)
}

/// `x` rounded to `1/scale`; a number too large to scale is already whole
/// enough, and is kept rather than becoming infinite.
fn round_to(x: f64, scale: f64) -> f64 {
    let r = (x * scale).round() / scale;
    if r.is_finite() {
        r
    } else {
        x
    }
}

fn secs(us: Micros) -> f64 {
    r3(us as f64 / MICROS_PER_SEC)
}

/// Reduces a series to at most `max` points, keeping each bucket's minimum
/// and maximum in time order so peaks survive; gaps (`None`) are kept.
pub fn reduce_min_max(points: &[(Micros, Option<f64>)], max: usize) -> (Vec<(Micros, Option<f64>)>, bool) {
    if points.len() <= max || max < 4 {
        return (points.to_vec(), false);
    }
    let per = points.len().div_ceil(max / 2);
    let mut out = Vec::with_capacity(max + 8);
    for bucket in points.chunks(per) {
        if bucket.iter().any(|p| p.1.is_none()) {
            // Keep the break visible: the bucket's first value, its gap, its last value.
            let first = bucket.iter().find(|p| p.1.is_some());
            let gap = bucket.iter().find(|p| p.1.is_none());
            let last = bucket.iter().rev().find(|p| p.1.is_some());
            let mut keep: Vec<(Micros, Option<f64>)> = [first, gap, last].into_iter().flatten().copied().collect();
            keep.sort_by_key(|p| p.0);
            keep.dedup();
            out.extend(keep);
            continue;
        }
        let lo = bucket
            .iter()
            .min_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
        let hi = bucket
            .iter()
            .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal));
        if let (Some(lo), Some(hi)) = (lo, hi) {
            if lo.0 <= hi.0 {
                out.push(*lo);
                if hi != lo {
                    out.push(*hi);
                }
            } else {
                out.push(*hi);
                out.push(*lo);
            }
        }
    }
    (out, true)
}

/// A node's analysis with its CPU and memory series, each with whether it was reduced.
type AnalysedNode = (nodes::NodeSeries, (Series, bool), (Series, bool));

fn analyse_node(samples: &[crate::input::samples::Sample], t0: Micros) -> AnalysedNode {
    let ns = nodes::analyse(samples);
    let (cpu, mem) = (series(&ns.cpu, t0), series(&ns.mem, t0));
    (ns, cpu, mem)
}

fn series(points: &[(Micros, Option<f64>)], t0: Micros) -> (Series, bool) {
    let (points, reduced) = reduce_min_max(points, MAX_SERIES_POINTS);
    let mut s = Series::default();
    for (t, v) in points {
        s.t.push(secs(t - t0));
        s.v.push(v.map(r1));
    }
    (s, reduced)
}

pub fn human_bytes(b: f64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"];
    let mut v = b;
    let mut i = 0;
    while v.abs() >= 1000.0 && i + 1 < units.len() {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} B")
    } else {
        format!("{v:.1} {}", units[i])
    }
}

/// Builds the view of a run: all analysis happens here or below.
pub fn build(run: &Run) -> View {
    let info = run.info.as_ref();
    let mut warnings: Vec<String> = run.inputs.iter().flat_map(|i| i.warnings.iter().cloned()).collect();
    for name in model::FIXED_INPUTS {
        if name == model::NGINX_FORMAT {
            continue;
        }
        if run.input(name).is_some_and(|i| !i.present) {
            warnings.push(format!("no {name} in this run"));
        }
    }

    // Targets from every source that names them.
    let mut names: Vec<String> = info.map(|i| i.targets.clone()).unwrap_or_default();
    names.extend(run.placements.iter().map(|p| p.target.clone()));
    names.extend(run.traces.iter().map(|t| t.target.clone()));
    names.sort();
    names.dedup();

    // A trace that yielded no span measured nothing: its target's figures
    // are null with the input's reason, never zero steps.
    let figures: BTreeMap<&str, targets::TargetFigures> = run
        .traces
        .iter()
        .filter(|t| !t.spans.is_empty())
        .map(|t| (t.target.as_str(), targets::analyse(&t.spans)))
        .collect();
    // Indexed once: a placement.txt of thousands of targets on as many nodes
    // must cost a lookup per question, not a scan (the last line wins).
    let placement_by_target: HashMap<&str, &crate::input::placement::Placement> =
        run.placements.iter().map(|p| (p.target.as_str(), p)).collect();
    let placement_of = |t: &str| placement_by_target.get(t).copied();
    let mut names_by_node: HashMap<&str, Vec<&String>> = HashMap::new();
    for t in &names {
        if let Some(p) = placement_of(t) {
            names_by_node.entry(p.node.as_str()).or_default().push(t);
        }
    }
    let names_on = |node: &str| names_by_node.get(node).map(Vec::as_slice).unwrap_or_default();

    // The window: run.json's and the traces', widened by the logs' records
    // near it; without either, every event seen.
    let mut anchors: Vec<Micros> = Vec::new();
    for f in figures.values() {
        anchors.extend(f.start);
        anchors.extend(f.end.or(f.last_step_end));
    }
    let mut events: Vec<Micros> = Vec::new();
    for v in run.samples.by_node.values() {
        events.extend(v.first().map(|s| s.ts));
        events.extend(v.last().map(|s| s.ts));
    }
    if let Some(s) = &run.sccache {
        events.extend(s.log.first);
        events.extend(s.log.last);
    }
    if let Some(z) = &run.zot {
        events.extend(z.all_writes().map(|w| w.time));
    }
    let started = info.and_then(|i| i.started_at);
    let finished = info.and_then(|i| i.finished_at);
    let window = window::run_window(started, finished, run.in_flight(), &anchors, &events);
    let far = window.map(|w| far_records(run, w)).unwrap_or_default();
    warnings.extend(far.values().map(|f| f.warning.clone()));
    let t0 = window.map(|w| w.0).unwrap_or(0);
    let off = |t: Micros| secs(t - t0);

    // Nodes from run.json, placement and samples.
    let mut node_names: Vec<String> = info
        .map(|i| i.nodes.iter().map(|n| n.name.clone()).collect())
        .unwrap_or_default();
    {
        let mut seen = std::collections::BTreeSet::new();
        for n in &node_names {
            if !seen.insert(n.clone()) {
                warnings.push(format!(
                    "run.json: node {n} is listed more than once; its first entry is used"
                ));
            }
        }
    }
    node_names.extend(run.placements.iter().map(|p| p.node.clone()));
    node_names.extend(run.samples.by_node.keys().cloned());
    node_names.sort();
    node_names.dedup();
    let node_info = |n: &str| info.and_then(|i| i.nodes.iter().find(|x| x.name == n));
    if let Some(i) = info {
        if !i.nodes.is_empty() {
            for n in run.samples.by_node.keys() {
                if node_info(n).is_none() {
                    warnings.push(format!(
                        "samples.jsonl: samples from node {n}, which run.json does not list"
                    ));
                }
            }
        }
    }

    // A record's interval: an open record (in flight) runs to the window's end.
    let window_end = window.map(|w| w.1);
    let record_of = |f: &targets::TargetFigures| -> Option<(Micros, Micros)> {
        let end = match (f.end, f.open) {
            (Some(e), _) => Some(e),
            (None, true) => window_end.or(f.last_step_end),
            (None, false) => f.last_step_end,
        };
        f.start.zip(end)
    };
    let zot = run.zot.as_ref();
    let mut target_views = Vec::new();
    for name in &names {
        let p = placement_of(name);
        let f = figures.get(name.as_str());
        let node = p.map(|p| p.node.clone());
        let builder = p
            .and_then(|p| p.builder.clone())
            .or_else(|| node.as_deref().and_then(node_info).and_then(|n| n.builder.clone()));
        let mut why: BTreeMap<String, String> = BTreeMap::new();
        let no_trace = || {
            if let Some(r) = why::no_record(run, &format!("trace-{name}.json")) {
                r
            } else if run.in_flight() {
                format!("no readable trace-{name}.json yet (the run is in flight: BuildKit writes the trace when the record ends)")
            } else {
                format!("no trace-{name}.json in this run, or it could not be read")
            }
        };
        let Some(f) = f else {
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
                why.insert(k.into(), no_trace());
            }
            target_views.push(TargetView {
                name: name.clone(),
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
                est_s: p.and_then(|p| p.est_s),
                phases: vec![],
                uploads: vec![],
                steps: vec![],
                notes: group_reasons(&why),
                why_null: why,
            });
            continue;
        };
        for (k, v) in &f.why_null {
            why.insert((*k).to_string(), v.clone());
        }
        // Upload bytes: the trace's sizes, else the registry's 2xx writes from
        // the target's node inside its record, else unknown.
        let mut upload_bytes = f.upload_bytes_traced;
        let mut source = upload_bytes.map(|_| "trace");
        if upload_bytes.is_none() {
            let addr = node.as_deref().and_then(node_info).and_then(|n| n.addr.clone());
            let record = record_of(f);
            match (zot, addr, record) {
                (None, _, _) => {
                    why.insert(
                        "upload_bytes".into(),
                        "no sizes on the trace's upload spans and no zot.jsonl".into(),
                    );
                }
                (Some(_), None, _) => {
                    why.insert(
                        "upload_bytes".into(),
                        "no sizes on the trace's upload spans, and the node's address (run.json addr) is unknown, so registry writes cannot be tied to it".into(),
                    );
                }
                (Some(_), _, None) => {
                    why.insert("upload_bytes".into(), "the record's time range is unknown".into());
                }
                (Some(z), Some(addr), Some(own)) => {
                    // Records of the node's other targets: a write where they overlap
                    // belongs to whichever target was uploading then.
                    let others: Vec<(Micros, Micros)> = node
                        .as_deref()
                        .map(names_on)
                        .unwrap_or_default()
                        .iter()
                        .filter(|o| **o != name)
                        .filter_map(|o| figures.get(o.as_str()))
                        .filter_map(record_of)
                        .collect();
                    let owns = |t| fleet::owns_write(t, own, &f.uploads, &others);
                    match z.writes_from(&addr).and_then(|ev| fleet::registry_bytes(ev, owns)) {
                        Some((bytes, 0)) => {
                            upload_bytes = Some(bytes);
                            source = Some("registry");
                        }
                        Some((bytes, no_size)) => {
                            why.insert(
                                "upload_bytes".into(),
                                format!("{no_size} registry writes from {addr} in this record had no Content-Length; the {} known are a lower bound", human_bytes(bytes as f64)),
                            );
                        }
                        // No write at all: zero only if the trace shows no upload either.
                        None if f.upload_s.unwrap_or(0.0) > 0.0 => {
                            why.insert(
                                "upload_bytes".into(),
                                format!("the trace shows uploads but the registry logged no completed write from {addr} during the record{}", if f.open { " (still uploading?)" } else { "" }),
                            );
                        }
                        None => {
                            upload_bytes = Some(0);
                            source = Some("registry");
                        }
                    }
                }
            }
        }
        let total = f.total_s;
        let pct = |x: Option<f64>| match (x, total) {
            (Some(x), Some(t)) if t > 0.0 => Some(r1(100.0 * x / t)),
            _ => None,
        };
        let mut phases = Vec::new();
        if let (Some(s), Some(fs)) = (f.start, f.first_step) {
            phases.push(Band {
                phase: "setup",
                start_s: off(s),
                end_s: off(fs),
            });
        }
        if let (Some(fs), Some(le)) = (f.first_step, f.last_step_end) {
            phases.push(Band {
                phase: "build",
                start_s: off(fs),
                end_s: off(le),
            });
        }
        if let (Some(le), Some(e)) = (f.last_step_end, f.end) {
            phases.push(Band {
                phase: "export",
                start_s: off(le),
                end_s: off(e),
            });
        }
        // A record that has not ended is still running: drawn to the window's
        // end, so the node does not look idle while it builds.
        if let (true, Some(we)) = (f.open, window_end) {
            let from = f.last_step_end.or(f.start).unwrap_or(we);
            if we > from {
                phases.push(Band {
                    phase: "running",
                    start_s: off(from),
                    end_s: off(we),
                });
            }
        }
        let upload_mbps = match (upload_bytes, f.upload_s) {
            (Some(b), Some(s)) if s > 0.0 && b > 0 => Some(r3(b as f64 / s / 1e6)),
            _ => None,
        };
        target_views.push(TargetView {
            name: name.clone(),
            node,
            builder,
            start: f.start.map(timefmt::format_rfc3339),
            end: f.end.map(timefmt::format_rfc3339),
            start_s: f.start.map(off),
            end_s: f.end.map(off),
            total_s: f.total_s.map(r3),
            build_s: f.build_s.map(r3),
            gap_s: f.gap_s.map(r3),
            gap_pct: pct(f.gap_s),
            setup_s: f.setup_s.map(r3),
            export_s: f.export_s.map(r3),
            upload_s: f.upload_s.map(r3),
            upload_pct: pct(f.upload_s),
            upload_bytes,
            upload_bytes_source: source,
            upload_mbps,
            steps_total: Some(f.steps_total),
            steps_cached: Some(f.steps_cached),
            registry_calls: Some(f.registry_calls),
            est_s: p.and_then(|p| p.est_s),
            phases,
            uploads: f.uploads.iter().map(|&(s, e)| [off(s), off(e)]).collect(),
            steps: f
                .steps
                .iter()
                .map(|s| StepView {
                    name: s.name.clone(),
                    start_s: off(s.start),
                    end_s: off(s.end),
                    cached: s.cached,
                })
                .collect(),
            notes: group_reasons(&why),
            why_null: why,
        });
    }
    // Timeline order: by start, unstarted last, then by name.
    target_views.sort_by(|a, b| {
        let ka = (a.start_s.is_none(), a.start_s.unwrap_or(0.0), &a.name);
        let kb = (b.start_s.is_none(), b.start_s.unwrap_or(0.0), &b.name);
        ka.partial_cmp(&kb).unwrap_or(std::cmp::Ordering::Equal)
    });

    // Nodes.
    let has_placement = run.input(model::PLACEMENT).is_some_and(|i| i.present);
    let mut node_views = Vec::new();
    // Each node's samples are analysed and reduced independently: one node per core.
    let mut per_node: BTreeMap<&str, AnalysedNode> = {
        use rayon::prelude::*;
        run.samples
            .by_node
            .par_iter()
            .map(|(name, samples)| (name.as_str(), analyse_node(samples, t0)))
            .collect()
    };
    for (colour, name) in node_names.iter().enumerate() {
        let ni = node_info(name);
        let mine: Vec<&TargetView> = target_views
            .iter()
            .filter(|t| t.node.as_deref() == Some(name))
            .collect();
        let records: Vec<(Micros, Micros)> = names_on(name)
            .iter()
            .filter_map(|t| figures.get(t.as_str()))
            .filter_map(record_of)
            .collect();
        let still_running = names_on(name)
            .iter()
            .filter_map(|t| figures.get(t.as_str()))
            .any(|f| f.open);
        let mut why = BTreeMap::new();
        let (busy, idle) = match window {
            Some(w) if has_placement => {
                let (b, i) = fleet::busy_idle(&records, w);
                (Some(r3(b)), Some(r3(i)))
            }
            Some(_) => {
                why.insert(
                    "busy_s".to_string(),
                    "no placement.txt: targets cannot be tied to nodes".to_string(),
                );
                (None, None)
            }
            None => {
                why.insert("busy_s".to_string(), "the run's time window is unknown".to_string());
                (None, None)
            }
        };
        let finished = records.iter().map(|r| r.1).max();
        let samples = run.samples.by_node.get(name).map(|v| v.as_slice()).unwrap_or(&[]);
        let (ns, (cpu, r1_), (mem, r2_)) = per_node
            .remove(name.as_str())
            .unwrap_or_else(|| analyse_node(samples, t0));
        if samples.is_empty() {
            why.insert("cpu_pct_mean".into(), format!("no samples from {name}"));
            why.insert("mem_pct_max".into(), format!("no samples from {name}"));
        } else if ns.cpu_pct_mean.is_none() {
            why.insert("cpu_pct_mean".into(), "fewer than two usable CPU polls".into());
        }
        if ns.counter_resets > 0 {
            warnings.push(format!(
                "samples.jsonl: {} intervals of node {name} dropped because a CPU counter went backwards",
                ns.counter_resets
            ));
        }
        node_views.push(NodeView {
            name: name.clone(),
            builder: ni
                .and_then(|n| n.builder.clone())
                .or_else(|| mine.iter().find_map(|t| t.builder.clone())),
            addr: ni.and_then(|n| n.addr.clone()),
            cores: ni.and_then(|n| n.cores),
            link_mbps: ni.and_then(|n| n.link_mbps),
            colour,
            targets: mine.iter().map(|t| t.name.clone()).collect(),
            busy_s: busy,
            idle_s: idle,
            idle_after_s: if still_running {
                None
            } else {
                finished.zip(window).map(|(f, w)| secs((w.1 - f).max(0)))
            },
            finished_s: if still_running { None } else { finished.map(off) },
            cpu_pct_mean: ns.cpu_pct_mean.map(r1),
            mem_pct_max: ns.mem_pct_max.map(r1),
            load1_max: ns.load1_max,
            load1_end: ns.load1_end,
            counter_resets: ns.counter_resets,
            gaps: ns.gaps,
            cpu,
            mem,
            reduced: r1_ || r2_,
            why_null: why,
        });
    }

    // Fleet.
    let records: Vec<fleet::Record> = names
        .iter()
        .filter_map(|t| {
            let f = figures.get(t.as_str())?;
            // An open record has no end yet: it cannot say who finished last.
            if f.open {
                return None;
            }
            let (s, e) = record_of(f)?;
            Some(fleet::Record {
                target: t,
                node: placement_of(t).map(|p| p.node.as_str()),
                start: s,
                end: e,
            })
        })
        .collect();
    let mut still_running: Vec<String> = names
        .iter()
        .filter(|t| figures.get(t.as_str()).is_some_and(|f| f.open))
        .filter_map(|t| placement_of(t).map(|p| p.node.clone()))
        .collect();
    still_running.sort();
    still_running.dedup();
    let critical = fleet::critical_path(&records)
        .filter(|_| still_running.is_empty())
        .map(|c| CriticalView {
            node: c.node,
            end_s: off(c.end),
            targets: c.targets,
            last_target: c.last_target,
        });
    // An estimate so small that actual ÷ estimate is no number is not
    // compared; said here, since the misses cannot show it.
    for t in &target_views {
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
    let totals: Vec<f64> = target_views.iter().filter_map(|t| t.total_s).collect();
    let estimate_misses = target_views
        .iter()
        .filter_map(|t| fleet::estimate_miss(&t.name, t.est_s?, t.total_s?))
        .map(|m| EstimateView {
            target: m.target,
            est_s: m.est_s,
            actual_s: m.actual_s,
            ratio: r3(m.ratio),
        })
        .collect();
    let fleet_view = FleetView {
        wall_s: window.map(|w| secs(w.1 - w.0)),
        work_s: (!totals.is_empty()).then(|| r3(totals.iter().sum())),
        idle_s: if node_views.is_empty() {
            None
        } else {
            node_views.iter().map(|n| n.idle_s).sum::<Option<f64>>().map(r3)
        },
        critical,
        still_running,
        estimate_misses,
        why_null: BTreeMap::new(),
    };

    let mut sccache = sccache_view(run, t0, window);
    let (mut zot_view, zot_clamped) = zot_view(run, t0, window);
    warnings.extend(zot_clamped.clone());
    // What a lane leaves out of its input's totals, said on the lane.
    if sccache.why.is_none() {
        sccache.lane_why = lane_reason(
            far.get(model::SCCACHE),
            !sccache.series.is_empty(),
            window,
            sccache.bucket_s,
        );
    }
    if zot_view.why.is_none() {
        zot_view.lane_why = lane_reason(
            far.get(model::ZOT),
            !zot_view.series.is_empty(),
            window,
            zot_view.bucket_s,
        );
    }
    let mode = info.and_then(|i| i.mode);
    let mode_note = mode_note(mode, &uploads_seen(&target_views));
    let provenance = provenance(run, &node_views);
    let mut view = View {
        schema: SCHEMA,
        stamp: run.stamp().to_string(),
        mode,
        mode_note,
        arch: info.and_then(|i| i.arch.clone()),
        namespace: info.and_then(|i| i.namespace.clone()),
        in_flight: run.in_flight(),
        started_at: started.map(timefmt::format_rfc3339),
        tool: Tool::this(),
        window: window.map(|(s, e)| Window {
            start: timefmt::format_rfc3339(s),
            end: timefmt::format_rfc3339(e),
            wall_s: secs(e - s),
            source: if started.is_some() && (finished.is_some() || run.in_flight()) {
                "run.json"
            } else {
                "events"
            },
        }),
        summary: vec![],
        warnings,
        inputs: run.inputs.iter().map(|i| (i.name.clone(), i.clone())).collect(),
        targets: target_views,
        nodes: node_views,
        fleet: fleet_view,
        sccache,
        zot: zot_view,
        artifacts: run.artifacts.clone(),
        placement: Default::default(),
        provenance,
        why_null: BTreeMap::new(),
    };
    if let (Some(w), Some(zot)) = (zot_clamped, view.inputs.get_mut(model::ZOT)) {
        zot.warnings.push(w);
    }
    for (name, f) in &far {
        if let Some(i) = view.inputs.get_mut(*name) {
            i.warnings.push(f.warning.clone());
        }
    }
    why::explain(&mut view, run);
    view.placement = placement::build(&view, run);
    view.summary = summary::sentences(&view);
    view
}

fn provenance(run: &Run, nodes: &[NodeView]) -> Provenance {
    let info = run.info.as_ref();
    let mut why = BTreeMap::new();
    let mut check = |field: &str, key: &str, missing: bool| {
        if missing {
            let reason = if info.is_none() {
                "no run.json in this run".to_string()
            } else {
                format!("run.json has no `{key}`")
            };
            why.insert(field.to_string(), reason);
        }
    };
    check("mode", "mode", info.and_then(|i| i.mode).is_none());
    check("arch", "arch", info.and_then(|i| i.arch.as_ref()).is_none());
    check("job_width", "max_jobs", info.and_then(|i| i.job_width).is_none());
    Provenance {
        tool: Tool::this(),
        inputs: run
            .inputs
            .iter()
            .filter(|i| i.present)
            .map(|i| {
                let id = InputIdentity {
                    bytes: i.bytes,
                    mtime: i.mtime.clone(),
                    xxh3: i.xxh3.clone(),
                    read_as: i.format.clone(),
                    why_null: BTreeMap::new(),
                };
                (i.name.clone(), id)
            })
            .collect(),
        run: RunCoordinates {
            stamp: run.stamp().to_string(),
            mode: info.and_then(|i| i.mode),
            arch: info.and_then(|i| i.arch.clone()),
            namespace: info.and_then(|i| i.namespace.clone()),
            sccache_prefix: info.and_then(|i| i.sccache_prefix.clone()),
            nodes: nodes
                .iter()
                .map(|n| NodeCoordinate {
                    name: n.name.clone(),
                    cores: n.cores,
                })
                .collect(),
            job_width: info.and_then(|i| i.job_width),
            why_null: why,
        },
    }
}

/// A target's upload as its trace shows it: `None` without a trace, else
/// its upload time and bytes.
type UploadSeen<'a> = (&'a str, Option<(f64, Option<u64>)>);

fn uploads_seen(targets: &[TargetView]) -> Vec<UploadSeen<'_>> {
    targets
        .iter()
        .map(|t| (t.name.as_str(), t.upload_s.map(|u| (u, t.upload_bytes))))
        .collect()
}

/// What `total` includes, from the traces, not from the harness's intent: a
/// cold run clears the cache export, but a cold target whose trace shows
/// uploads did not have it cleared, and its total includes them.
fn mode_note(mode: Option<Mode>, targets: &[UploadSeen]) -> String {
    match mode {
        Some(Mode::Warm) => "warm run: totals include the cache export".to_string(),
        None => "mode unknown (no run.json mode): whether totals include cache export is not known".to_string(),
        Some(Mode::Cold) => {
            let uploaded: Vec<String> = targets
                .iter()
                .filter_map(|(name, seen)| match seen {
                    Some((u, bytes)) if *u > 0.0 => {
                        let bytes = bytes.filter(|b| *b > 0).map(|b| format!(", {}", human_bytes(b as f64)));
                        Some(format!(
                            "{name} (uploaded {}{})",
                            timefmt::human_duration(*u),
                            bytes.unwrap_or_default()
                        ))
                    }
                    _ => None,
                })
                .collect();
            let clean: Vec<&str> = targets
                .iter()
                .filter(|(_, seen)| matches!(seen, Some((u, _)) if *u <= 0.0))
                .map(|(name, _)| *name)
                .collect();
            let unknown: Vec<&str> = targets.iter().filter(|(_, s)| s.is_none()).map(|(n, _)| *n).collect();
            let mut parts = vec![];
            if !uploaded.is_empty() {
                parts.push(format!(
                    "cold run, yet the traces show uploads: the cache export{} of {} {} not cleared, so {} total{} include{} it",
                    if uploaded.len() == 1 { "" } else { "s" },
                    uploaded.join(", "),
                    if uploaded.len() == 1 { "was" } else { "were" },
                    if uploaded.len() == 1 { "its" } else { "their" },
                    if uploaded.len() == 1 { "" } else { "s" },
                    if uploaded.len() == 1 { "s" } else { "" },
                ));
                if !clean.is_empty() {
                    parts.push(format!(
                        "{} showed no upload, so export is excluded there",
                        clean.join(", ")
                    ));
                }
            } else if !clean.is_empty() {
                parts.push("cold run: no trace shows an upload, so totals exclude export".to_string());
            } else {
                parts.push("cold run: no trace shows whether the cache export was cleared, so whether totals include it is not known".to_string());
            }
            if !(unknown.is_empty() || uploaded.is_empty() && clean.is_empty()) {
                parts.push(format!("for {} (no trace) it is not known", unknown.join(", ")));
            }
            parts.join("; ")
        }
    }
}

/// An input's records far outside the run's window, and what is said of them.
#[derive(Debug, Clone)]
struct FarRecords {
    /// For the lane: "3 writes (1.2 MB) lie outside ...".
    lane: String,
    warning: String,
}

/// `1204` as `1,204`: counts people read.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// An instant to the minute, as a window is read.
fn to_minute(t: Micros) -> String {
    let s = timefmt::format_rfc3339(t);
    match s.get(..16) {
        Some(m) if s.len() > 16 => format!("{m}Z"),
        _ => s,
    }
}

/// The day of an instant, or the instant where the day cannot be cut out.
fn day(t: Micros) -> String {
    let s = timefmt::format_rfc3339(t);
    s.get(..10).map(str::to_string).unwrap_or(s)
}

/// Every timed input's records far outside the window (more than
/// `window::FAR`): they cannot be this run's, so they are not drawn, not in
/// the lanes and not tied to any target. The input's totals are the whole
/// file's and still count them, which the warning says.
fn far_records(run: &Run, w: (Micros, Micros)) -> BTreeMap<&'static str, FarRecords> {
    let mut out = BTreeMap::new();
    let span = format!("{} – {}", to_minute(w.0), to_minute(w.1));
    let mut say = |input: &'static str, what: &str, o: window::Outside, bytes: Option<u64>, counted: &str| {
        let when = if day(o.first) == day(o.last) {
            format!("on {}", day(o.first))
        } else {
            format!("from {} to {}", day(o.first), day(o.last))
        };
        let (noun, verb) = if o.records == 1 {
            (what.trim_end_matches('s'), "lies")
        } else {
            (what, "lie")
        };
        let n = grouped(o.records);
        let warning = format!(
            "{input}: {n} {noun} {when} {verb} outside the run's window ({span}) by more than an hour: not drawn, not in the lanes; {counted}"
        );
        let bytes = bytes
            .map(|b| format!(" ({})", human_bytes(b as f64)))
            .unwrap_or_default();
        let lane = format!("{n} {noun}{bytes} {when} {verb} outside the run's window by more than an hour");
        out.insert(input, FarRecords { lane, warning });
    };
    let samples = run.samples.by_node.values().flat_map(|v| v.iter()).map(|s| (s.ts, 1));
    if let Some(o) = window::outside(samples, w) {
        say(
            model::SAMPLES,
            "samples",
            o,
            None,
            "the nodes' CPU and memory figures still count them",
        );
    }
    if let Some(s) = &run.sccache {
        let bucket = crate::input::sccache::BUCKET_SECS * 1_000_000;
        let timed = s
            .log
            .series
            .iter()
            .map(|(b, v)| (b.saturating_mul(bucket), v.hits + v.misses + v.writes));
        if let Some(o) = window::outside(timed, w) {
            say(
                model::SCCACHE,
                "cache requests",
                o,
                None,
                "the compiler-cache totals are the whole file's and still count them",
            );
        }
    }
    if let Some(z) = &run.zot {
        let writes = z.all_writes();
        if let Some(o) = window::outside(writes.clone().map(|e| (e.time, 1)), w) {
            let bytes = writes
                .filter(|e| window::is_far(e.time, w, false))
                .filter_map(|e| e.bytes)
                .fold(0u64, u64::saturating_add);
            say(model::ZOT, "writes", o, Some(bytes), "not tied to any target; the registry totals (and the Registry table) are the whole file's and still count them");
        }
    }
    out
}

/// Why a lane draws less than its input's totals, or `None` when it draws them all.
fn lane_reason(
    far: Option<&FarRecords>,
    drawn: bool,
    window: Option<(Micros, Micros)>,
    bucket_s: i64,
) -> Option<String> {
    let mut why = vec![];
    if let Some(f) = far {
        why.push(f.lane.clone());
    }
    if !drawn {
        if let Some(w) = window.filter(|w| (w.1 - w.0) / (bucket_s * 1_000_000) > MAX_BUCKETS) {
            why.push(format!(
                "the run's window ({}) is too long to draw in {bucket_s} s buckets",
                timefmt::human_duration(secs(w.1 - w.0))
            ));
        }
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Groups fields that are null for the same reason.
pub fn group_reasons(why: &BTreeMap<String, String>) -> Vec<String> {
    let mut by_reason: Vec<(&str, Vec<&str>)> = vec![];
    for (field, reason) in why {
        match by_reason.iter_mut().find(|(r, _)| r == reason) {
            Some((_, fields)) => fields.push(field),
            None => by_reason.push((reason, vec![field])),
        }
    }
    by_reason
        .into_iter()
        .map(|(reason, fields)| {
            let fields: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
            format!("{}: {reason}", fields.join(", "))
        })
        .collect()
}

/// Buckets at most in a dense series (12 hours of 10 s buckets is 4,320).
const MAX_BUCKETS: i64 = 100_000;

/// The buckets a lane draws: every bucket of the window (or of the data,
/// without one); `None` when there is nothing to draw or the span is too
/// wide to draw bucket by bucket.
fn drawn_buckets(data: Option<(i64, i64)>, bucket_s: i64, window: Option<(Micros, Micros)>) -> Option<(i64, i64)> {
    let width = bucket_s * 1_000_000;
    let extent = match window {
        Some((a, b)) => Some((a.div_euclid(width), b.div_euclid(width))),
        None => data,
    };
    match extent {
        Some((lo, hi)) if data.is_some() && hi - lo <= MAX_BUCKETS => Some((lo, hi)),
        _ => None,
    }
}

/// Every bucket of the window (or of the data, without one): a present log
/// with no request in a bucket measured zero there, and a chart line must
/// not jump across the empty buckets. Events outside the window still count
/// in the totals but are not drawn.
fn dense<V: Default + Clone>(
    series: &BTreeMap<i64, V>,
    bucket_s: i64,
    window: Option<(Micros, Micros)>,
) -> impl Iterator<Item = (i64, V)> + '_ {
    let data = series.keys().next().copied().zip(series.keys().next_back().copied());
    // Nothing to draw: an empty range.
    let (lo, hi) = drawn_buckets(data, bucket_s, window).unwrap_or((1, 0));
    (lo..=hi).map(move |b| (b, series.get(&b).cloned().unwrap_or_default()))
}

fn sccache_view(run: &Run, t0: Micros, window: Option<(Micros, Micros)>) -> SccacheView {
    let bucket_s = crate::input::sccache::BUCKET_SECS;
    let no_record = why::no_record(run, model::SCCACHE);
    let (Some(s), None) = (&run.sccache, &no_record) else {
        let present = run.input(model::SCCACHE).is_some_and(|i| i.present);
        return SccacheView {
            present,
            why: Some(no_record.unwrap_or_else(|| {
                if present {
                    "sccache.log could not be read"
                } else {
                    "no sccache.log in this run"
                }
                .into()
            })),
            bucket_s,
            ..Default::default()
        };
    };
    let l = &s.log;
    let reads = l.hits + l.misses;
    SccacheView {
        present: true,
        why: None,
        hits: Some(l.hits),
        misses: Some(l.misses),
        writes: Some(l.writes),
        write_bytes: (s.sizes_known && l.writes_unsized == 0).then_some(l.write_bytes),
        hit_ratio: (reads > 0).then(|| r3(l.hits as f64 / reads as f64)),
        writes_unsized: Some(l.writes_unsized),
        failed_writes: Some(l.failed_writes),
        overhead: Some(l.overhead),
        checks: Some(l.checks),
        other_prefix: Some(l.other_prefix),
        bucket_s,
        series: dense(&l.series, bucket_s, window)
            .map(|(b, v)| SccachePoint {
                t_s: secs(b * bucket_s * 1_000_000 - t0),
                hits: v.hits,
                misses: v.misses,
                writes: v.writes,
                // Without $request_length no write has a size: unknown, not 0.
                write_bytes: (s.sizes_known && v.writes_unsized == 0).then_some(v.write_bytes),
            })
            .collect(),
        lane_why: None,
        why_null: BTreeMap::new(),
    }
}

/// The registry's view, and the warning for writes that lasted beyond the
/// window (drawn only inside it).
fn zot_view(run: &Run, t0: Micros, window: Option<(Micros, Micros)>) -> (ZotView, Option<String>) {
    let bucket_s = crate::input::zot::BUCKET_SECS;
    let no_record = why::no_record(run, model::ZOT);
    let (Some(z), None) = (&run.zot, &no_record) else {
        let present = run.input(model::ZOT).is_some_and(|i| i.present);
        let view = ZotView {
            present,
            why: Some(no_record.unwrap_or_else(|| {
                if present {
                    "zot.jsonl could not be read"
                } else {
                    "no zot.jsonl in this run"
                }
                .into()
            })),
            bucket_s,
            ..Default::default()
        };
        return (view, None);
    };
    let (lane, clamped) = z.lane_within(window);
    let drawn = drawn_buckets(lane.extent(), bucket_s, window);
    let series = drawn
        .map(|(lo, hi)| {
            lane.buckets(lo, hi)
                .map(|(b, v)| ZotPoint {
                    t_s: secs(b * bucket_s * 1_000_000 - t0),
                    cache_bytes: v.cache_bytes,
                    image_bytes: v.image_bytes,
                })
                .collect()
        })
        .unwrap_or_default();
    let n = clamped.writes;
    let clamped = (n > 0).then(|| {
        format!(
            "{}: {n} write request{} lasted beyond the run's window (the longest {}): clamped to it on the registry lane",
            model::ZOT,
            if n == 1 { "" } else { "s" },
            timefmt::human_duration(clamped.longest as f64 / MICROS_PER_SEC)
        )
    });
    let view = ZotView {
        present: true,
        why: None,
        requests: Some(z.requests),
        blob_write_bytes: Some(z.blob_write_bytes),
        cache_write_bytes: Some(z.cache_write_bytes),
        image_write_bytes: Some(z.image_write_bytes),
        manifest_writes: Some(z.manifest_writes),
        blob_writes: Some(z.blob_writes),
        writes_unsized: Some(z.writes_unsized),
        failed_writes: Some(z.failed_writes),
        reads: Some(z.reads),
        read_bytes: (z.reads_unsized == 0).then_some(z.read_bytes),
        not_json: Some(z.not_json),
        by_message: z.by_message.clone(),
        bucket_s,
        series,
        lane_why: None,
        why_null: BTreeMap::new(),
    };
    (view, clamped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reduction_keeps_the_peak_and_the_gap() {
        let mut pts: Vec<(Micros, Option<f64>)> = (0..10_000).map(|i| (i, Some(10.0))).collect();
        pts[4321].1 = Some(99.0);
        pts[7000].1 = None;
        let (r, reduced) = reduce_min_max(&pts, 200);
        assert!(reduced);
        assert!(r.len() <= 210, "{}", r.len());
        assert!(r.contains(&(4321, Some(99.0))));
        assert!(r.iter().any(|p| p.1.is_none()));
        assert!(r.windows(2).all(|w| w[0].0 <= w[1].0), "time order kept");
    }

    #[test]
    fn series_are_dense_inside_the_window_only() {
        let mut series = BTreeMap::new();
        series.insert(3i64, 7u64);
        // An event two years outside the window is not drawn bucket by bucket.
        series.insert(6_000_000i64, 1u64);
        let window = Some((0, 60 * 1_000_000));
        let d: Vec<(i64, u64)> = dense(&series, 10, window).collect();
        assert_eq!(d, vec![(0, 0), (1, 0), (2, 0), (3, 7), (4, 0), (5, 0), (6, 0)]);
        // Without a window, a span too wide to draw is not drawn at all.
        assert_eq!(dense(&series, 10, None).count(), 0);
    }

    #[test]
    fn bytes_read_like_people_write_them() {
        assert_eq!(human_bytes(6.4e9), "6.4 GB");
        assert_eq!(human_bytes(512.0), "512 B");
    }
}
