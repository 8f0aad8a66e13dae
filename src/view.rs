//! The view model: everything the renderers show, and exactly what
//! `data.json` serialises. Built once from the run's figures
//! (`analysis::figures`), which it places and formats; the renderers only
//! read it. Each `null` in it is a `Measured` figure's, beside its reason
//! (`measured::explained`).

use crate::figures::Measured;
pub(crate) use crate::figures::{InputIdentity, Provenance, Tool};
use crate::input::artifacts::Artifact;
use crate::input::run_json::Mode;
use crate::input::InputReport;
use crate::measure::Analysed;
use crate::measured::explained::{explained, Notes, Reasons};
use crate::model::{self, Run};
pub(crate) use crate::timefmt::human_bytes;
use crate::timefmt::{self, Micros};
use serde::Serialize;
use std::collections::BTreeMap;

mod fleet;
mod lanes;
mod mode;
mod nodes;
pub mod placement;
pub(crate) mod summary;
mod targets;

pub(crate) const SCHEMA: u32 = 1;

pub(crate) use crate::analysis::nodes::{reduce_min_max, FULL_DETAIL_NODES};

explained! {
    #[derive(Debug, Clone)]
    pub struct View {
        [plain] pub(crate) schema: u32,
        [plain] pub stamp: String,
        [measured] pub(crate) mode: Measured<Mode>,
        /// What `total` includes in this mode, said next to every total.
        [plain] pub(crate) mode_note: String,
        [measured] pub(crate) arch: Measured<String>,
        [measured] pub(crate) namespace: Measured<String>,
        [plain] pub(crate) in_flight: bool,
        /// run.json's `started_at`, which orders runs (RFC 3339).
        [measured] pub(crate) started_at: Measured<String>,
        [plain] pub(crate) tool: Tool,
        [measured] pub(crate) window: Measured<WindowView>,
        /// The report's opening sentences: what matters, in words.
        [plain] pub(crate) summary: Vec<String>,
        /// Every warning of every input, and of the analysis.
        [plain] pub warnings: Vec<String>,
        [plain] pub(crate) inputs: BTreeMap<String, InputReport>,
        /// The input the nodes' samples came from: `samples.jsonl`, or
        /// `prometheus` (a server, with `--prometheus`; its `inputs` entry has
        /// the server, queries and points); `null` when the run has neither.
        [measured] pub(crate) samples_source: Measured<&'static str>,
        [plain] pub(crate) targets: Vec<TargetView>,
        [plain] pub(crate) nodes: Vec<NodeView>,
        [plain] pub(crate) fleet: FleetView,
        /// The chain of targets that set the wall clock, earliest first;
        /// `null` while a record is open.
        [measured] pub(crate) critical_path: Measured<Vec<LinkView>>,
        [plain] pub(crate) sccache: SccacheView,
        [plain] pub(crate) zot: ZotView,
        [plain] pub(crate) artifacts: Vec<Artifact>,
        /// The balancer's costs as measured, and its rule replayed on them.
        [plain] pub(crate) placement: placement::PlacementView,
        /// What is needed to decide later whether a figure still holds.
        [plain] pub(crate) provenance: Provenance,
        /// Why a field above is `null`, keyed by field name.
        [why_null] pub(crate) why_null: Reasons,
        /// Why a chart draws nothing, keyed by chart (`cpu_mem`); absent when
        /// every chart draws. The SVG and the page both only read it.
        [skip_empty] pub(crate) why_empty: BTreeMap<&'static str, String>,
    }
}

/// The CPU and memory chart's key in `View::why_empty`.
pub(crate) const CPU_MEM: &str = "cpu_mem";

#[derive(Debug, Clone, Serialize)]
pub(crate) struct WindowView {
    pub(crate) start: String,
    pub(crate) end: String,
    pub(crate) wall_s: f64,
    /// Where the window came from: "run.json" or "events".
    pub(crate) source: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PhaseBand {
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

explained! {
    #[derive(Debug, Clone)]
    pub(crate) struct TargetView {
        [plain] pub(crate) name: String,
        [measured] pub(crate) node: Measured<String>,
        [measured] pub(crate) builder: Measured<String>,
        /// RFC 3339.
        [measured] pub(crate) start: Measured<String>,
        [measured] pub(crate) end: Measured<String>,
        /// Offsets from the window's start, for the timeline.
        [measured] pub(crate) start_s: Measured<f64>,
        [measured] pub(crate) end_s: Measured<f64>,
        [measured] pub(crate) total_s: Measured<f64>,
        [measured] pub(crate) build_s: Measured<f64>,
        [measured] pub(crate) gap_s: Measured<f64>,
        [measured] pub(crate) gap_pct: Measured<f64>,
        [measured] pub(crate) setup_s: Measured<f64>,
        [measured] pub(crate) export_s: Measured<f64>,
        [measured] pub(crate) upload_s: Measured<f64>,
        [measured] pub(crate) upload_pct: Measured<f64>,
        [measured] pub(crate) upload_bytes: Measured<u64>,
        /// `trace` (sizes on its upload spans) or `registry` (zot.jsonl writes from its node).
        [measured] pub(crate) upload_bytes_source: Measured<String>,
        /// Bytes per second of upload time, in MB/s.
        [measured] pub(crate) upload_mbps: Measured<f64>,
        [measured] pub(crate) steps_total: Measured<u64>,
        [measured] pub(crate) steps_cached: Measured<u64>,
        [measured] pub(crate) registry_calls: Measured<u64>,
        /// The balancer's estimate (placement.txt `est_s`).
        [measured] pub(crate) est_s: Measured<f64>,
        /// placement.txt's `after=`: the target it may not start before; absent
        /// when it waits for none (a declaration, not a measurement).
        [skip_none] pub(crate) after: Option<String>,
        /// How much later it could have ended without moving the run's end (0
        /// on the critical path).
        [measured] pub(crate) slack_s: Measured<f64>,
        /// Its node idle while it waited for `after`, as `[start_s, end_s]`.
        [plain] pub(crate) waiting: Vec<[f64; 2]>,
        /// Its place among its node's targets in timeline order: which shade
        /// of the builder's colour it takes, so targets on one node differ.
        [plain] pub(crate) shade: usize,
        [plain] pub(crate) phases: Vec<PhaseBand>,
        [plain] pub(crate) uploads: Vec<[f64; 2]>,
        [plain] pub(crate) steps: Vec<StepView>,
        /// Its slowest steps (at most `SLOWEST_STEPS`), longest first, each with
        /// its share of the build: where the build went, without opening the trace.
        [plain] pub(crate) slowest_steps: Vec<SlowStep>,
        /// Why a field is `null`, keyed by field name.
        [why_null] pub(crate) why_null: Reasons,
        /// The same reasons grouped for people: "`total_s`, `gap_s`: why".
        [notes] pub(crate) notes: Notes,
    }
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct SeriesView {
    /// Seconds from the window's start.
    pub(crate) t: Vec<f64>,
    /// `null` breaks the line: a gap or a dropped interval, never a zero.
    pub(crate) v: Vec<Option<f64>>,
}

explained! {
    #[derive(Debug, Clone)]
    pub(crate) struct NodeView {
        [plain] pub(crate) name: String,
        [measured] pub(crate) builder: Measured<String>,
        [measured] pub(crate) addr: Measured<String>,
        [measured] pub(crate) cores: Measured<u32>,
        [measured] pub(crate) link_mbps: Measured<f64>,
        /// Colour index shared by every chart.
        [plain] pub(crate) colour: usize,
        [plain] pub(crate) targets: Vec<String>,
        [measured] pub(crate) busy_s: Measured<f64>,
        [measured] pub(crate) idle_s: Measured<f64>,
        /// Of `idle_s`, the time its targets waited for an `after=` dependency
        /// still building elsewhere.
        [measured] pub(crate) waiting_s: Measured<f64>,
        /// The rest of `idle_s`: nothing to do.
        [measured] pub(crate) nothing_to_do_s: Measured<f64>,
        /// Idle from this node's last target's end to the end of the run.
        [measured] pub(crate) idle_after_s: Measured<f64>,
        [measured] pub(crate) finished_s: Measured<f64>,
        [measured] pub(crate) cpu_pct_mean: Measured<f64>,
        [measured] pub(crate) mem_pct_max: Measured<f64>,
        [measured] pub(crate) load1_max: Measured<f64>,
        /// The node's load at its last poll (history marks a node past its cores as loaded).
        [measured] pub(crate) load1_end: Measured<f64>,
        [plain] pub(crate) counter_resets: u64,
        [plain] pub(crate) gaps: u64,
        [plain] pub(crate) cpu: SeriesView,
        [plain] pub(crate) mem: SeriesView,
        /// True when a series was reduced to display resolution (peaks kept).
        [plain] pub(crate) reduced: bool,
        /// Why a field is `null`; `cpu.v`/`mem.v`: why a series has nulls.
        [why_null] pub(crate) why_null: Reasons,
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct CriticalView {
    pub(crate) node: String,
    pub(crate) end_s: f64,
    pub(crate) targets: Vec<String>,
    pub(crate) last_target: String,
}

explained! {
    /// One link of the critical path.
    #[derive(Debug, Clone)]
    pub(crate) struct LinkView {
        [plain] pub(crate) target: String,
        [measured] pub(crate) node: Measured<String>,
        /// RFC 3339.
        [plain] pub(crate) start: String,
        [plain] pub(crate) end: String,
        [plain] pub(crate) start_s: f64,
        [plain] pub(crate) end_s: f64,
        /// Its record, end minus start.
        [plain] pub(crate) took_s: f64,
        /// The target it could not start before, or `null` at the chain's head.
        [measured] pub(crate) waited_for: Measured<String>,
        /// `after` (its `after=` dependency) or `queue` (ahead of it on its node).
        [measured] pub(crate) waited_how: Measured<String>,
        /// From when it was otherwise ready to its start; `null` with `waited_for`.
        [measured] pub(crate) wait_s: Measured<f64>,
        [why_null] pub(crate) why_null: Reasons,
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct EstimateView {
    pub(crate) target: String,
    pub(crate) est_s: f64,
    pub(crate) actual_s: f64,
    pub(crate) ratio: f64,
}

explained! {
    #[derive(Debug, Clone)]
    pub(crate) struct FleetView {
        [measured] pub(crate) wall_s: Measured<f64>,
        /// Sum of the targets' totals.
        [measured] pub(crate) work_s: Measured<f64>,
        /// Sum of every node's idle time inside the window.
        [measured] pub(crate) idle_s: Measured<f64>,
        /// `null` while any record is still open: who finishes last is not known yet.
        [measured] pub(crate) critical: Measured<CriticalView>,
        /// Nodes with a record that has not ended.
        [plain] pub(crate) still_running: Vec<String>,
        [plain] pub(crate) estimate_misses: Vec<EstimateView>,
        [why_null] pub(crate) why_null: Reasons,
    }
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

explained! {
    #[derive(Debug, Clone, Default)]
    pub(crate) struct SccacheView {
        [plain] pub(crate) present: bool,
        /// Why the figures are `null`.
        [plain] pub(crate) why: Option<String>,
        [plain] pub(crate) hits: Option<u64>,
        [plain] pub(crate) misses: Option<u64>,
        [plain] pub(crate) writes: Option<u64>,
        [section] pub(crate) write_bytes: Option<Measured<u64>>,
        [section] pub(crate) hit_ratio: Option<Measured<f64>>,
        [plain] pub(crate) writes_unsized: Option<u64>,
        [plain] pub(crate) failed_writes: Option<u64>,
        [plain] pub(crate) overhead: Option<u64>,
        [plain] pub(crate) checks: Option<u64>,
        [plain] pub(crate) other_prefix: Option<u64>,
        [plain] pub(crate) bucket_s: i64,
        [plain] pub(crate) series: Vec<SccachePoint>,
        /// Each node's own requests (by run.json `addr`), in the view's node
        /// order; a node without an address has none.
        [plain] pub(crate) by_node: Vec<SccacheNodeLane>,
        /// Why the lane draws less than the totals above (records outside the
        /// run's window, a window too long to draw); the charts show it.
        [plain] pub(crate) lane_why: Option<String>,
        /// Why a figure is `null` while the others were measured;
        /// `series.write_bytes`: why a bucket's is.
        [why_null] pub(crate) why_null: Reasons,
    }
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct ZotPoint {
    pub(crate) t_s: f64,
    pub(crate) cache_bytes: u64,
    pub(crate) image_bytes: u64,
}

explained! {
    #[derive(Debug, Clone, Default)]
    pub(crate) struct ZotView {
        [plain] pub(crate) present: bool,
        [plain] pub(crate) why: Option<String>,
        [plain] pub(crate) requests: Option<u64>,
        [plain] pub(crate) blob_write_bytes: Option<u64>,
        /// Bytes written to layer-cache repositories or tags (blobs and manifests).
        [plain] pub(crate) cache_write_bytes: Option<u64>,
        /// Bytes written to image repositories (blobs and manifests).
        [plain] pub(crate) image_write_bytes: Option<u64>,
        [plain] pub(crate) manifest_writes: Option<u64>,
        [plain] pub(crate) blob_writes: Option<u64>,
        [plain] pub(crate) writes_unsized: Option<u64>,
        [plain] pub(crate) failed_writes: Option<u64>,
        [plain] pub(crate) reads: Option<u64>,
        /// `null` when some 200 GET carried no bodySize.
        [section] pub(crate) read_bytes: Option<Measured<u64>>,
        [plain] pub(crate) not_json: Option<u64>,
        [plain] pub(crate) by_message: BTreeMap<String, u64>,
        [plain] pub(crate) bucket_s: i64,
        [plain] pub(crate) series: Vec<ZotPoint>,
        /// Each node's own writes (by run.json `addr`), in the view's node
        /// order; a node without an address has none.
        [plain] pub(crate) by_node: Vec<ZotNodeLane>,
        /// Why the lane draws less than the totals above (writes outside the
        /// run's window, a window too long to draw); the charts show it.
        [plain] pub(crate) lane_why: Option<String>,
        /// Why a figure is `null` while the others were measured.
        [why_null] pub(crate) why_null: Reasons,
    }
}

/// Rounds for output: milliseconds are plenty, and fewer digits keep the
/// files small and stable.
fn r3(x: f64) -> f64 {
    crate::figures::ms(x)
}

fn r1(x: f64) -> f64 {
    let r = (x * 10.0).round() / 10.0;
    if r.is_finite() {
        r
    } else {
        x
    }
}

fn secs(us: Micros) -> f64 {
    crate::figures::secs_ms(us)
}

/// A series at display resolution as offsets from the window's start.
fn series(points: &[(Micros, Option<f64>)], t0: Micros) -> SeriesView {
    let mut s = SeriesView::default();
    for (t, v) in points {
        s.t.push(secs(t - t0));
        s.v.push(v.map(r1));
    }
    s
}

/// Builds the view of a run from its figures: each section by its own
/// builder, placing the figures on the run's window and formatting them.
pub fn build(run: &Run) -> View {
    of(&crate::measure::analyse(run))
}

/// The view of a run already analysed.
pub(crate) fn of(a: &Analysed) -> View {
    let (cx, f) = (&a.cx, &a.figures);
    let run = cx.run;
    let mut warnings = input_warnings(run);
    let far = cx.window.map(|w| lanes::far_records(run, w)).unwrap_or_default();
    warnings.extend(far.values().map(|f| f.warning.clone()));
    let targets = targets::build(a);
    warnings.extend(a.node_warnings.iter().cloned());
    let nodes = nodes::build(a);
    warnings.extend(a.fleet_warnings.iter().cloned());
    let fleet = fleet::build(a);
    let lanes = lanes::build(cx, f, &far, &nodes);
    warnings.extend(lanes.zot_clamped.clone());
    let mode = crate::measure::run_mode(cx);
    let mut view = View {
        schema: SCHEMA,
        stamp: run.stamp().to_string(),
        mode_note: mode::mode_note(mode.get(), &mode::uploads_seen(&targets)),
        mode,
        arch: crate::measure::run_arch(cx),
        namespace: crate::measure::run_namespace(cx),
        in_flight: run.in_flight(),
        started_at: crate::measure::run_started(cx).map(timefmt::format_rfc3339),
        tool: Tool::this(),
        window: f.window.clone().map(|w| WindowView {
            start: timefmt::format_rfc3339(w.start),
            end: timefmt::format_rfc3339(w.end),
            wall_s: secs(w.end - w.start),
            source: if w.from_run_json { "run.json" } else { "events" },
        }),
        summary: vec![],
        warnings,
        inputs: run.inputs.iter().map(|i| (i.name.clone(), i.clone())).collect(),
        samples_source: Measured::from_option(
            Some(run.samples_input()).filter(|i| run.input(i).is_some_and(|r| r.present)),
            || format!("no {} in this run", model::SAMPLES),
        ),
        provenance: a.provenance.clone(),
        targets,
        nodes,
        fleet,
        critical_path: fleet::critical_path(a),
        sccache: lanes.sccache,
        zot: lanes.zot,
        artifacts: run.artifacts.clone(),
        placement: Default::default(),
        why_null: Reasons::new(),
        why_empty: BTreeMap::new(),
    };
    view.why_empty
        .extend(nodes::why_cpu_mem_empty(run, &view.nodes).map(|w| (CPU_MEM, w)));
    lanes::warn_inputs(&mut view.inputs, lanes.zot_clamped, &far);
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
