//! The view model: everything the renderers show, and exactly what
//! `data.json` serialises. Built once from the run model and the analysis;
//! the renderers only read it.

use crate::input::artifacts::Artifact;
use crate::input::run_json::Mode;
use crate::input::InputReport;
use crate::model::{self, Run};
pub(crate) use crate::timefmt::human_bytes;
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
pub(crate) mod summary;
mod targets;
mod why;
mod window;

use context::Context;

pub(crate) const SCHEMA: u32 = 1;

/// Points per chart series at most: display resolution, peaks kept.
pub(crate) const MAX_SERIES_POINTS: usize = 2000;
/// Up to this many nodes each series keeps `MAX_SERIES_POINTS`; a larger
/// fleet shares what eight would have, so data.json and the page stay the
/// same size however many nodes poll.
pub(crate) const FULL_DETAIL_NODES: usize = 8;

/// The points one node's series may keep in a fleet of `nodes`.
pub(crate) fn series_budget(nodes: usize) -> usize {
    // Four points is the least a reduced series keeps (a bucket's extremes).
    (MAX_SERIES_POINTS * FULL_DETAIL_NODES / nodes.max(1)).clamp(4, MAX_SERIES_POINTS)
}

#[derive(Debug, Clone, Serialize)]
pub struct View {
    pub(crate) schema: u32,
    pub stamp: String,
    pub(crate) mode: Option<Mode>,
    /// What `total` includes in this mode, said next to every total.
    pub(crate) mode_note: String,
    pub(crate) arch: Option<String>,
    pub(crate) namespace: Option<String>,
    pub(crate) in_flight: bool,
    /// run.json's `started_at`, which orders runs (RFC 3339).
    pub(crate) started_at: Option<String>,
    pub(crate) tool: Tool,
    pub(crate) window: Option<Window>,
    /// The report's opening sentences: what matters, in words.
    pub(crate) summary: Vec<String>,
    /// Every warning of every input, and of the analysis.
    pub warnings: Vec<String>,
    pub(crate) inputs: BTreeMap<String, InputReport>,
    /// The input the nodes' samples came from: `samples.jsonl`, or
    /// `prometheus` (a server, with `--prometheus`; its `inputs` entry has
    /// the server, queries and points); `null` when the run has neither.
    pub(crate) samples_source: Option<&'static str>,
    pub(crate) targets: Vec<TargetView>,
    pub(crate) nodes: Vec<NodeView>,
    pub(crate) fleet: FleetView,
    /// The chain of targets that set the wall clock, earliest first;
    /// `null` while a record is open.
    pub(crate) critical_path: Option<Vec<LinkView>>,
    pub(crate) sccache: SccacheView,
    pub(crate) zot: ZotView,
    pub(crate) artifacts: Vec<Artifact>,
    /// The balancer's costs as measured, and its rule replayed on them.
    pub(crate) placement: placement::PlacementView,
    /// What is needed to decide later whether a figure still holds.
    pub(crate) provenance: Provenance,
    /// Why a field above is `null`, keyed by field name.
    pub(crate) why_null: BTreeMap<String, String>,
    /// Why a chart draws nothing, keyed by chart (`cpu_mem`); absent when
    /// every chart draws. The SVG and the page both only read it.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) why_empty: BTreeMap<&'static str, String>,
}

/// The CPU and memory chart's key in `View::why_empty`.
pub(crate) const CPU_MEM: &str = "cpu_mem";

#[derive(Debug, Clone, Serialize)]
pub struct Tool {
    pub(crate) name: &'static str,
    pub(crate) version: &'static str,
    /// The commit the binary was built from (`-dirty` with local changes).
    pub(crate) commit: &'static str,
}

/// The tool's identity, stated once: what every output, cache and
/// `--version` records of the binary that made it.
impl Tool {
    pub const NAME: &'static str = "perfreport";
    pub(crate) const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    pub(crate) const COMMIT: &'static str = env!("PERFREPORT_COMMIT");
    /// `--version`: the version with the commit it was built from.
    pub const VERSION_LINE: &'static str =
        concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("PERFREPORT_COMMIT"), ")");

    pub(crate) fn this() -> Tool {
        Tool {
            name: Self::NAME,
            version: Self::VERSION,
            commit: Self::COMMIT,
        }
    }

    /// Version and commit, `0.1.0 7d9bb3130d26`: what a cache of figures
    /// is keyed by, so another build reads every run again.
    pub(crate) fn cache_id() -> String {
        format!("{} {}", Self::VERSION, Self::COMMIT)
    }

    /// `cache_id` for figures read as `read` says: the same run read with
    /// its samples from a server is another reading.
    pub(crate) fn cache_id_of(read: &crate::model::Options) -> String {
        match read.reading_tag() {
            Some(tag) => format!("{} {tag}", Self::cache_id()),
            None => Self::cache_id(),
        }
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
pub(crate) struct InputIdentity {
    pub(crate) bytes: Option<u64>,
    pub(crate) mtime: Option<String>,
    pub(crate) xxh3: Option<String>,
    pub(crate) read_as: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) why_null: BTreeMap<String, String>,
    /// For an input read from a server: which, what was asked and how
    /// much came back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<ServerRead>,
}

/// What a server was asked for a run, and how much it gave.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ServerRead {
    /// The server's base URL, without credentials.
    pub(crate) server: String,
    pub(crate) start: String,
    pub(crate) end: String,
    pub(crate) step_s: f64,
    pub(crate) queries: Vec<String>,
    pub(crate) points: u64,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct NodeCoordinate {
    pub(crate) name: String,
    pub(crate) cores: Option<u32>,
}

/// The run's coordinates: what decides what it may be compared with.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RunCoordinates {
    pub(crate) stamp: String,
    pub(crate) mode: Option<Mode>,
    pub(crate) arch: Option<String>,
    pub(crate) namespace: Option<String>,
    pub(crate) sccache_prefix: Option<String>,
    pub(crate) nodes: Vec<NodeCoordinate>,
    pub(crate) job_width: Option<u32>,
    /// The build repository's revision the run built (run.json `revision`).
    pub(crate) revision: Option<String>,
    pub(crate) why_null: BTreeMap<String, String>,
}

/// Nothing in here changes between two runs of the same tool on the same
/// inputs: no generation time, no host name.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Provenance {
    pub(crate) tool: Tool,
    /// Present inputs only, by file name.
    pub(crate) inputs: BTreeMap<String, InputIdentity>,
    pub(crate) run: RunCoordinates,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Window {
    pub(crate) start: String,
    pub(crate) end: String,
    pub(crate) wall_s: f64,
    /// Where the window came from: "run.json" or "events".
    pub(crate) source: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Band {
    /// `setup`, `build` or `export`.
    pub(crate) phase: &'static str,
    pub(crate) start_s: f64,
    pub(crate) end_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct StepView {
    pub(crate) name: String,
    pub(crate) start_s: f64,
    pub(crate) end_s: f64,
    pub(crate) cached: bool,
    /// BuildKit's vertex digest: what matches a step across runs.
    /// `null` when the trace carries none.
    pub(crate) vertex: Option<String>,
}

/// How many of a target's slowest steps the report lists (those of at least half a second).
pub(crate) const SLOWEST_STEPS: usize = 5;

/// One of a target's slowest steps.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SlowStep {
    pub(crate) name: String,
    /// Seconds its spans took.
    pub(crate) s: f64,
    /// Its share of the target's build, in percent; `null` when the build is not measured.
    pub(crate) build_pct: Option<f64>,
    /// It came from the layer cache (only a `load cache:` span).
    pub(crate) cached: bool,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetView {
    pub(crate) name: String,
    pub(crate) node: Option<String>,
    pub(crate) builder: Option<String>,
    /// RFC 3339.
    pub(crate) start: Option<String>,
    pub(crate) end: Option<String>,
    /// Offsets from the window's start, for the timeline.
    pub(crate) start_s: Option<f64>,
    pub(crate) end_s: Option<f64>,
    pub(crate) total_s: Option<f64>,
    pub(crate) build_s: Option<f64>,
    pub(crate) gap_s: Option<f64>,
    pub(crate) gap_pct: Option<f64>,
    pub(crate) setup_s: Option<f64>,
    pub(crate) export_s: Option<f64>,
    pub(crate) upload_s: Option<f64>,
    pub(crate) upload_pct: Option<f64>,
    pub(crate) upload_bytes: Option<u64>,
    /// `trace` (sizes on its upload spans) or `registry` (zot.jsonl writes from its node).
    pub(crate) upload_bytes_source: Option<&'static str>,
    /// Bytes per second of upload time, in MB/s.
    pub(crate) upload_mbps: Option<f64>,
    pub(crate) steps_total: Option<u64>,
    pub(crate) steps_cached: Option<u64>,
    pub(crate) registry_calls: Option<u64>,
    /// The balancer's estimate (placement.txt `est_s`).
    pub(crate) est_s: Option<f64>,
    /// placement.txt's `after=`: the target it may not start before; absent
    /// when it waits for none (a declaration, not a measurement).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) after: Option<String>,
    /// How much later it could have ended without moving the run's end (0
    /// on the critical path).
    pub(crate) slack_s: Option<f64>,
    /// Its node idle while it waited for `after`, as `[start_s, end_s]`.
    pub(crate) waiting: Vec<[f64; 2]>,
    /// Its place among its node's targets in timeline order: which shade
    /// of the builder's colour it takes, so targets on one node differ.
    pub(crate) shade: usize,
    pub(crate) phases: Vec<Band>,
    pub(crate) uploads: Vec<[f64; 2]>,
    pub(crate) steps: Vec<StepView>,
    /// Its slowest steps (at most `SLOWEST_STEPS`), longest first, each with
    /// its share of the build: where the build went, without opening the trace.
    pub(crate) slowest_steps: Vec<SlowStep>,
    /// Why a field is `null`, keyed by field name.
    pub(crate) why_null: BTreeMap<String, String>,
    /// The same reasons grouped for people: "`total_s`, `gap_s`: why".
    pub(crate) notes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct Series {
    /// Seconds from the window's start.
    pub(crate) t: Vec<f64>,
    /// `null` breaks the line: a gap or a dropped interval, never a zero.
    pub(crate) v: Vec<Option<f64>>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct NodeView {
    pub(crate) name: String,
    pub(crate) builder: Option<String>,
    pub(crate) addr: Option<String>,
    pub(crate) cores: Option<u32>,
    pub(crate) link_mbps: Option<f64>,
    /// Colour index shared by every chart.
    pub(crate) colour: usize,
    pub(crate) targets: Vec<String>,
    pub(crate) busy_s: Option<f64>,
    pub(crate) idle_s: Option<f64>,
    /// Of `idle_s`, the time its targets waited for an `after=` dependency
    /// still building elsewhere.
    pub(crate) waiting_s: Option<f64>,
    /// The rest of `idle_s`: nothing to do.
    pub(crate) nothing_to_do_s: Option<f64>,
    /// Idle from this node's last target's end to the end of the run.
    pub(crate) idle_after_s: Option<f64>,
    pub(crate) finished_s: Option<f64>,
    pub(crate) cpu_pct_mean: Option<f64>,
    pub(crate) mem_pct_max: Option<f64>,
    pub(crate) load1_max: Option<f64>,
    /// The node's load at its last poll (history marks a node past its cores as loaded).
    pub(crate) load1_end: Option<f64>,
    pub(crate) counter_resets: u64,
    pub(crate) gaps: u64,
    pub(crate) cpu: Series,
    pub(crate) mem: Series,
    /// True when a series was reduced to display resolution (peaks kept).
    pub(crate) reduced: bool,
    pub(crate) why_null: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct CriticalView {
    pub(crate) node: String,
    pub(crate) end_s: f64,
    pub(crate) targets: Vec<String>,
    pub(crate) last_target: String,
}

/// One link of the critical path.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LinkView {
    pub(crate) target: String,
    pub(crate) node: Option<String>,
    /// RFC 3339.
    pub(crate) start: String,
    pub(crate) end: String,
    pub(crate) start_s: f64,
    pub(crate) end_s: f64,
    /// Its record, end minus start.
    pub(crate) took_s: f64,
    /// The target it could not start before, or `null` at the chain's head.
    pub(crate) waited_for: Option<String>,
    /// `after` (its `after=` dependency) or `queue` (ahead of it on its node).
    pub(crate) waited_how: Option<&'static str>,
    /// From when it was otherwise ready to its start; `null` with `waited_for`.
    pub(crate) wait_s: Option<f64>,
    pub(crate) why_null: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct EstimateView {
    pub(crate) target: String,
    pub(crate) est_s: f64,
    pub(crate) actual_s: f64,
    pub(crate) ratio: f64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct FleetView {
    pub(crate) wall_s: Option<f64>,
    /// Sum of the targets' totals.
    pub(crate) work_s: Option<f64>,
    /// Sum of every node's idle time inside the window.
    pub(crate) idle_s: Option<f64>,
    /// `null` while any record is still open: who finishes last is not known yet.
    pub(crate) critical: Option<CriticalView>,
    /// Nodes with a record that has not ended.
    pub(crate) still_running: Vec<String>,
    pub(crate) estimate_misses: Vec<EstimateView>,
    pub(crate) why_null: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct SccachePoint {
    pub(crate) t_s: f64,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) writes: u64,
    /// `null` when a write in the bucket carried no size.
    pub(crate) write_bytes: Option<u64>,
}

/// One node's own requests on the compiler cache's lane, bucket by bucket
/// as the lane's `series` (same length, same times).
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub(crate) struct SccacheNodeLane {
    pub(crate) node: String,
    pub(crate) hits: Vec<u64>,
    pub(crate) misses: Vec<u64>,
    pub(crate) writes: Vec<u64>,
}

/// One node's own writes on the registry's lane, bucket by bucket as the
/// lane's `series` (same length, same times).
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub(crate) struct ZotNodeLane {
    pub(crate) node: String,
    pub(crate) cache_bytes: Vec<u64>,
    pub(crate) image_bytes: Vec<u64>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct SccacheView {
    pub(crate) present: bool,
    /// Why the figures are `null`.
    pub(crate) why: Option<String>,
    pub(crate) hits: Option<u64>,
    pub(crate) misses: Option<u64>,
    pub(crate) writes: Option<u64>,
    pub(crate) write_bytes: Option<u64>,
    pub(crate) hit_ratio: Option<f64>,
    pub(crate) writes_unsized: Option<u64>,
    pub(crate) failed_writes: Option<u64>,
    pub(crate) overhead: Option<u64>,
    pub(crate) checks: Option<u64>,
    pub(crate) other_prefix: Option<u64>,
    pub(crate) bucket_s: i64,
    pub(crate) series: Vec<SccachePoint>,
    /// Each node's own requests (by run.json `addr`), in the view's node
    /// order; a node without an address has none.
    pub(crate) by_node: Vec<SccacheNodeLane>,
    /// Why the lane draws less than the totals above (records outside the
    /// run's window, a window too long to draw); the charts show it.
    pub(crate) lane_why: Option<String>,
    /// Why a figure is `null` while the others were measured.
    pub(crate) why_null: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct ZotPoint {
    pub(crate) t_s: f64,
    pub(crate) cache_bytes: u64,
    pub(crate) image_bytes: u64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct ZotView {
    pub(crate) present: bool,
    pub(crate) why: Option<String>,
    pub(crate) requests: Option<u64>,
    pub(crate) blob_write_bytes: Option<u64>,
    /// Bytes written to layer-cache repositories or tags (blobs and manifests).
    pub(crate) cache_write_bytes: Option<u64>,
    /// Bytes written to image repositories (blobs and manifests).
    pub(crate) image_write_bytes: Option<u64>,
    pub(crate) manifest_writes: Option<u64>,
    pub(crate) blob_writes: Option<u64>,
    pub(crate) writes_unsized: Option<u64>,
    pub(crate) failed_writes: Option<u64>,
    pub(crate) reads: Option<u64>,
    /// `null` when some 200 GET carried no bodySize.
    pub(crate) read_bytes: Option<u64>,
    pub(crate) not_json: Option<u64>,
    pub(crate) by_message: BTreeMap<String, u64>,
    pub(crate) bucket_s: i64,
    pub(crate) series: Vec<ZotPoint>,
    /// Each node's own writes (by run.json `addr`), in the view's node
    /// order; a node without an address has none.
    pub(crate) by_node: Vec<ZotNodeLane>,
    /// Why the lane draws less than the totals above (writes outside the
    /// run's window, a window too long to draw); the charts show it.
    pub(crate) lane_why: Option<String>,
    /// Why a figure is `null` while the others were measured.
    pub(crate) why_null: BTreeMap<String, String>,
}

/// Rounds for output: milliseconds are plenty, and fewer digits keep the
/// files small and stable.
impl TargetView {
    /// Its steps, one record per step (`analysis::step_diff::records`).
    pub(crate) fn step_records(&self) -> Vec<crate::analysis::step_diff::StepRecord> {
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
pub(crate) fn reduce_min_max(points: &[(Micros, Option<f64>)], max: usize) -> (Vec<(Micros, Option<f64>)>, bool) {
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
        samples_source: Some(run.samples_input()).filter(|i| run.input(i).is_some_and(|r| r.present)),
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
pub(crate) fn group_reasons(why: &BTreeMap<String, String>) -> Vec<String> {
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
