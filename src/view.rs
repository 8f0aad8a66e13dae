//! The view model: everything the renderers show, and exactly what
//! `data.json` serialises. Built once from the run model and the analysis;
//! the renderers only read it.

use crate::input::artifacts::Artifact;
use crate::input::run_json::Mode;
use crate::input::InputReport;
use crate::model::{self, Run};
pub use crate::timefmt::human_bytes;
use crate::timefmt::{self, Micros, MICROS_PER_SEC};
use serde::Serialize;
use std::collections::BTreeMap;

mod context;
mod fleet;
mod lanes;
mod mode;
mod nodes;
pub mod placement;
mod provenance;
pub mod summary;
mod targets;
mod why;
mod window;

use context::Context;

pub const SCHEMA: u32 = 1;

/// Points per chart series at most: display resolution, peaks kept.
pub const MAX_SERIES_POINTS: usize = 2000;
/// Up to this many nodes each series keeps `MAX_SERIES_POINTS`; a larger
/// fleet shares what eight would have, so data.json and the page stay the
/// same size however many nodes poll.
pub const FULL_DETAIL_NODES: usize = 8;

/// The points one node's series may keep in a fleet of `nodes`.
pub fn series_budget(nodes: usize) -> usize {
    // Four points is the least a reduced series keeps (a bucket's extremes).
    (MAX_SERIES_POINTS * FULL_DETAIL_NODES / nodes.max(1)).clamp(4, MAX_SERIES_POINTS)
}

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
    /// The chain of targets that set the wall clock, earliest first;
    /// `null` while a record is open.
    pub critical_path: Option<Vec<LinkView>>,
    pub sccache: SccacheView,
    pub zot: ZotView,
    pub artifacts: Vec<Artifact>,
    /// The balancer's costs as measured, and its rule replayed on them.
    pub placement: placement::PlacementView,
    /// What is needed to decide later whether a figure still holds.
    pub provenance: Provenance,
    /// Why a field above is `null`, keyed by field name.
    pub why_null: BTreeMap<String, String>,
    /// Why a chart draws nothing, keyed by chart (`cpu_mem`); absent when
    /// every chart draws. The SVG and the page both only read it.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub why_empty: BTreeMap<&'static str, String>,
}

/// The CPU and memory chart's key in `View::why_empty`.
pub const CPU_MEM: &str = "cpu_mem";

#[derive(Debug, Clone, Serialize)]
pub struct Tool {
    pub name: &'static str,
    pub version: &'static str,
    /// The commit the binary was built from (`-dirty` with local changes).
    pub commit: &'static str,
}

/// The tool's identity, stated once: what every output, cache and
/// `--version` records of the binary that made it.
impl Tool {
    pub const NAME: &'static str = "perfreport";
    pub const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    pub const COMMIT: &'static str = env!("PERFREPORT_COMMIT");
    /// `--version`: the version with the commit it was built from.
    pub const VERSION_LINE: &'static str =
        concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("PERFREPORT_COMMIT"), ")");

    pub fn this() -> Tool {
        Tool {
            name: Self::NAME,
            version: Self::VERSION,
            commit: Self::COMMIT,
        }
    }

    /// Version and commit, `0.1.0 7d9bb3130d26`: what a cache of figures
    /// is keyed by, so another build reads every run again.
    pub fn cache_id() -> String {
        format!("{} {}", Self::VERSION, Self::COMMIT)
    }
}

/// `perfreport 0.1.0 (commit 7d9bb3130d26)`: who made a report, in its text.
impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} (commit {})", self.name, self.version, self.commit)
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
    /// The build repository's revision the run built (run.json `revision`).
    pub revision: Option<String>,
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
    /// BuildKit's vertex digest: what matches a step across runs.
    /// `null` when the trace carries none.
    pub vertex: Option<String>,
}

/// How many of a target's slowest steps the report lists (those of at least half a second).
pub const SLOWEST_STEPS: usize = 5;

/// One of a target's slowest steps.
#[derive(Debug, Clone, Serialize)]
pub struct SlowStep {
    pub name: String,
    /// Seconds its spans took.
    pub s: f64,
    /// Its share of the target's build, in percent; `null` when the build is not measured.
    pub build_pct: Option<f64>,
    /// It came from the layer cache (only a `load cache:` span).
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
    /// placement.txt's `after=`: the target it may not start before; absent
    /// when it waits for none (a declaration, not a measurement).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// How much later it could have ended without moving the run's end (0
    /// on the critical path).
    pub slack_s: Option<f64>,
    /// Its node idle while it waited for `after`, as `[start_s, end_s]`.
    pub waiting: Vec<[f64; 2]>,
    /// Its place among its node's targets in timeline order: which shade
    /// of the builder's colour it takes, so targets on one node differ.
    pub shade: usize,
    pub phases: Vec<Band>,
    pub uploads: Vec<[f64; 2]>,
    pub steps: Vec<StepView>,
    /// Its slowest steps (at most `SLOWEST_STEPS`), longest first, each with
    /// its share of the build: where the build went, without opening the trace.
    pub slowest_steps: Vec<SlowStep>,
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
    /// Of `idle_s`, the time its targets waited for an `after=` dependency
    /// still building elsewhere.
    pub waiting_s: Option<f64>,
    /// The rest of `idle_s`: nothing to do.
    pub nothing_to_do_s: Option<f64>,
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

/// One link of the critical path.
#[derive(Debug, Clone, Serialize)]
pub struct LinkView {
    pub target: String,
    pub node: Option<String>,
    /// RFC 3339.
    pub start: String,
    pub end: String,
    pub start_s: f64,
    pub end_s: f64,
    /// Its record, end minus start.
    pub took_s: f64,
    /// The target it could not start before, or `null` at the chain's head.
    pub waited_for: Option<String>,
    /// `after` (its `after=` dependency) or `queue` (ahead of it on its node).
    pub waited_how: Option<&'static str>,
    /// From when it was otherwise ready to its start; `null` with `waited_for`.
    pub wait_s: Option<f64>,
    pub why_null: BTreeMap<String, String>,
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

/// One node's own requests on the compiler cache's lane, bucket by bucket
/// as the lane's `series` (same length, same times).
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct SccacheNodeLane {
    pub node: String,
    pub hits: Vec<u64>,
    pub misses: Vec<u64>,
    pub writes: Vec<u64>,
}

/// One node's own writes on the registry's lane, bucket by bucket as the
/// lane's `series` (same length, same times).
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct ZotNodeLane {
    pub node: String,
    pub cache_bytes: Vec<u64>,
    pub image_bytes: Vec<u64>,
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
    /// Each node's own requests (by run.json `addr`), in the view's node
    /// order; a node without an address has none.
    pub by_node: Vec<SccacheNodeLane>,
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
    /// Each node's own writes (by run.json `addr`), in the view's node
    /// order; a node without an address has none.
    pub by_node: Vec<ZotNodeLane>,
    /// Why the lane draws less than the totals above (writes outside the
    /// run's window, a window too long to draw); the charts show it.
    pub lane_why: Option<String>,
    /// Why a figure is `null` while the others were measured.
    pub why_null: BTreeMap<String, String>,
}

/// Rounds for output: milliseconds are plenty, and fewer digits keep the
/// files small and stable.
impl TargetView {
    /// Its steps, one record per step (`analysis::step_diff::records`).
    pub fn step_records(&self) -> Vec<crate::analysis::step_diff::StepRecord> {
        crate::analysis::step_diff::records(
            self.steps
                .iter()
                .map(|s| (s.name.as_str(), s.vertex.as_deref(), s.end_s - s.start_s, s.cached)),
        )
    }
}

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
        crate::analysis::nodes::reduce_bucket(bucket, &mut out);
    }
    (out, true)
}

fn series(points: &[(Micros, Option<f64>)], t0: Micros, budget: usize) -> (Series, bool) {
    let (points, reduced) = reduce_min_max(points, budget);
    let mut s = Series::default();
    for (t, v) in points {
        s.t.push(secs(t - t0));
        s.v.push(v.map(r1));
    }
    (s, reduced)
}

/// Builds the view of a run: each section by its own builder, over the
/// targets joined once (`context`); the rules are in `analysis`.
pub fn build(run: &Run) -> View {
    let cx = Context::new(run);
    let info = cx.info;
    let mut warnings = input_warnings(run);
    let far = cx.window.map(|w| lanes::far_records(run, w)).unwrap_or_default();
    warnings.extend(far.values().map(|f| f.warning.clone()));
    let targets = targets::build(&cx);
    let nodes = nodes::build(&cx, &targets, &mut warnings);
    let fleet = fleet::build(&cx, &targets, &nodes, &mut warnings);
    let lanes = lanes::build(&cx, &far, &nodes);
    warnings.extend(lanes.zot_clamped.clone());
    let mode = info.and_then(|i| i.mode);
    let mut view = View {
        schema: SCHEMA,
        stamp: run.stamp().to_string(),
        mode,
        mode_note: mode::mode_note(mode, &mode::uploads_seen(&targets)),
        arch: info.and_then(|i| i.arch.clone()),
        namespace: info.and_then(|i| i.namespace.clone()),
        in_flight: run.in_flight(),
        started_at: info.and_then(|i| i.started_at).map(timefmt::format_rfc3339),
        tool: Tool::this(),
        window: window::window_view(run, cx.window),
        summary: vec![],
        warnings,
        inputs: run.inputs.iter().map(|i| (i.name.clone(), i.clone())).collect(),
        provenance: provenance::build(run, &nodes),
        targets,
        nodes,
        fleet,
        critical_path: fleet::critical_path(&cx),
        sccache: lanes.sccache,
        zot: lanes.zot,
        artifacts: run.artifacts.clone(),
        placement: Default::default(),
        why_null: BTreeMap::new(),
        why_empty: BTreeMap::new(),
    };
    view.why_empty
        .extend(nodes::why_cpu_mem_empty(run, &view.nodes).map(|w| (CPU_MEM, w)));
    lanes::warn_inputs(&mut view.inputs, lanes.zot_clamped, &far);
    why::explain(&mut view, run);
    view.placement = placement::build(&view, run);
    view.summary = summary::sentences(&view);
    view
}

/// Every input's warnings, then each fixed input the run lacks.
fn input_warnings(run: &Run) -> Vec<String> {
    let mut warnings: Vec<String> = run.inputs.iter().flat_map(|i| i.warnings.iter().cloned()).collect();
    for name in model::FIXED_INPUTS {
        if name != model::NGINX_FORMAT && run.input(name).is_some_and(|i| !i.present) {
            warnings.push(format!("no {name} in this run"));
        }
    }
    warnings
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
    fn bytes_read_like_people_write_them() {
        assert_eq!(human_bytes(6.4e9), "6.4 GB");
        assert_eq!(human_bytes(512.0), "512 B");
    }
}
