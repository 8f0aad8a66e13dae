//! A run's figures, built once by analysis (`analysis::figures`) and read by
//! everything after it: the view places and formats them; compare, the gate,
//! history and publish's manifest weigh them. Each figure is a [`Measured`]:
//! its value, or why it has none, set where the value is computed. Each
//! compared figure is named once, by [`Metric`]. Durations are kept in the
//! trace's own microseconds; a metric's value is read in seconds to the
//! millisecond, as every output shows it.

pub(crate) mod metric;
pub(crate) mod provenance;

pub(crate) use crate::measured::{Measured, Missing, Value};
pub(crate) use metric::Alongside;
pub use metric::Metric;
pub use provenance::Tool;
pub(crate) use provenance::{InputIdentity, NodeCoordinate, Provenance, RunCoordinates};

use crate::timefmt::{Micros, MICROS_PER_SEC};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How many characters of a step's name history keeps (what a cache or a
/// site's manifest stores), so a history of a thousand runs stays small.
pub(crate) const STEP_NAME_KEPT: usize = 200;

/// One step of a target: its spans of one vertex (else one name) summed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Step {
    /// The step's name as the trace spells it (cut to `STEP_NAME_KEPT`
    /// characters where it is stored).
    #[serde(serialize_with = "kept_name")]
    pub(crate) name: String,
    /// Its vertex digest; `None` when the trace carries none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) vertex: Option<String>,
    /// Microseconds its spans took (a cached step: its `load cache:` spans).
    pub(crate) us: Micros,
    /// It ran; `false`: it only came from the layer cache.
    pub(crate) ran: bool,
}

fn kept_name<S: serde::Serializer>(name: &str, s: S) -> Result<S::Ok, S::Error> {
    if name.chars().count() > STEP_NAME_KEPT {
        let cut: String = name.chars().take(STEP_NAME_KEPT - 1).chain(['…']).collect();
        s.serialize_str(&cut)
    } else {
        s.serialize_str(name)
    }
}

impl Step {
    /// Its seconds.
    pub(crate) fn s(&self) -> f64 {
        self.us as f64 / MICROS_PER_SEC
    }
}

/// A node's load at the end of the run, judged (`analysis::contention`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) enum Load {
    /// Loaded beyond its cores, in words.
    Loaded(String),
    Clear,
}

/// Seconds to the millisecond: what every output shows, so what compare,
/// the gate and history weigh is what a person reads.
pub(crate) fn ms(s: f64) -> f64 {
    let r = (s * 1000.0).round() / 1000.0;
    if r.is_finite() {
        r
    } else {
        s
    }
}

/// Microseconds as seconds to the millisecond.
pub(crate) fn secs_ms(us: Micros) -> f64 {
    ms(us as f64 / MICROS_PER_SEC)
}

/// What one target's record and its placement say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TargetFigures {
    pub(crate) node: Measured<String>,
    pub(crate) builder: Measured<String>,
    /// The balancer's estimate (placement.txt `est_s`): a declaration.
    pub(crate) est_s: Measured<f64>,
    /// placement.txt's `after=`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) after: Option<String>,
    pub(crate) start: Measured<Micros>,
    pub(crate) end: Measured<Micros>,
    pub(crate) total: Measured<Micros>,
    pub(crate) build: Measured<Micros>,
    pub(crate) gap: Measured<Micros>,
    pub(crate) setup: Measured<Micros>,
    pub(crate) export: Measured<Micros>,
    pub(crate) upload: Measured<Micros>,
    pub(crate) upload_bytes: Measured<u64>,
    /// `trace` (sizes on its upload spans) or `registry` (zot.jsonl writes from its node).
    pub(crate) upload_bytes_source: Measured<String>,
    /// Upload bytes over upload time, in MB/s.
    pub(crate) upload_mbps: Measured<f64>,
    pub(crate) steps_total: Measured<u64>,
    pub(crate) steps_cached: Measured<u64>,
    pub(crate) registry_calls: Measured<u64>,
    /// How much later it could have ended without moving the run's end, in seconds.
    pub(crate) slack_s: Measured<f64>,
    /// Its node at the end of the run: loaded beyond its cores, or not.
    pub(crate) load: Measured<Load>,
    /// Every step, in order of first appearance.
    #[serde(default)]
    pub(crate) steps: Vec<Step>,
}

impl TargetFigures {
    /// A target of which nothing was measured, every figure for `why`.
    pub(crate) fn unmeasured(why: &str) -> TargetFigures {
        TargetFigures {
            node: Measured::missing(why),
            builder: Measured::missing(why),
            est_s: Measured::missing(why),
            after: None,
            start: Measured::missing(why),
            end: Measured::missing(why),
            total: Measured::missing(why),
            build: Measured::missing(why),
            gap: Measured::missing(why),
            setup: Measured::missing(why),
            export: Measured::missing(why),
            upload: Measured::missing(why),
            upload_bytes: Measured::missing(why),
            upload_bytes_source: Measured::missing(why),
            upload_mbps: Measured::missing(why),
            steps_total: Measured::missing(why),
            steps_cached: Measured::missing(why),
            registry_calls: Measured::missing(why),
            slack_s: Measured::missing(why),
            load: Measured::missing(why),
            steps: vec![],
        }
    }

    /// Sets a metric from seconds (a count as it is): how tests make a target.
    #[cfg(test)]
    pub(crate) fn set(&mut self, m: Metric, v: f64) -> &mut Self {
        let us = Value((v * MICROS_PER_SEC).round() as Micros);
        match m {
            Metric::Total => self.total = us,
            Metric::Build => self.build = us,
            Metric::Gap => self.gap = us,
            Metric::Upload => self.upload = us,
            Metric::StepsCached => self.steps_cached = Value(v as u64),
            _ => {}
        }
        self
    }

    /// A compared metric in seconds to the millisecond (a count as it is).
    pub(crate) fn metric(&self, m: Metric) -> Measured<f64> {
        let time = |t: &Measured<Micros>| t.clone().map(secs_ms);
        match m {
            Metric::Total => time(&self.total),
            Metric::Build => time(&self.build),
            Metric::Gap => time(&self.gap),
            Metric::Upload => time(&self.upload),
            Metric::StepsCached => self.steps_cached.clone().map(|c| c as f64),
            _ => Measured::missing(format!("{m} is a node's figure, not a target's")),
        }
    }

    /// Its node ended the run loaded beyond its cores (`None`: not known).
    pub(crate) fn loaded(&self) -> Option<bool> {
        self.load.value().map(|l| matches!(l, Load::Loaded(_)))
    }
}

/// What one node's records and samples say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct NodeFigures {
    pub(crate) builder: Measured<String>,
    pub(crate) addr: Measured<String>,
    pub(crate) cores: Measured<u32>,
    pub(crate) link_mbps: Measured<f64>,
    /// Its targets in timeline order.
    pub(crate) targets: Vec<String>,
    pub(crate) busy_s: Measured<f64>,
    pub(crate) idle_s: Measured<f64>,
    pub(crate) waiting_s: Measured<f64>,
    pub(crate) nothing_to_do_s: Measured<f64>,
    pub(crate) idle_after_s: Measured<f64>,
    /// When its last target ended.
    pub(crate) finished: Measured<Micros>,
    pub(crate) cpu_pct_mean: Measured<f64>,
    pub(crate) mem_pct_max: Measured<f64>,
    pub(crate) load1_max: Measured<f64>,
    pub(crate) load1_end: Measured<f64>,
    pub(crate) counter_resets: u64,
    pub(crate) gaps: u64,
}

impl NodeFigures {
    /// A compared node metric, to the millisecond or the tenth of a percent, as shown.
    pub(crate) fn metric(&self, m: Metric) -> Measured<f64> {
        match m {
            Metric::Busy => self.busy_s.clone().map(ms),
            Metric::Idle => self.idle_s.clone().map(ms),
            Metric::CpuMean => self.cpu_pct_mean.clone().map(|p| (p * 10.0).round() / 10.0),
            _ => Measured::missing(format!("{m} is a target's figure, not a node's")),
        }
    }
}

/// The node whose last target ended last, and its targets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Critical {
    pub(crate) node: String,
    pub(crate) end: Micros,
    pub(crate) targets: Vec<String>,
    pub(crate) last_target: String,
}

/// How a link of the critical path waited.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Waited {
    pub(crate) for_target: String,
    /// `after` (its `after=` dependency) or `queue` (ahead of it on its node).
    pub(crate) how: String,
    pub(crate) wait: Micros,
}

/// One link of the chain that set the wall clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Link {
    pub(crate) target: String,
    pub(crate) node: Measured<String>,
    pub(crate) start: Micros,
    pub(crate) end: Micros,
    pub(crate) waited: Measured<Waited>,
}

/// Where the balancer's estimate missed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct EstimateMiss {
    pub(crate) target: String,
    pub(crate) est_s: f64,
    pub(crate) actual_s: f64,
    pub(crate) ratio: f64,
}

/// The fleet's figures: wall clock, work, idle, the chain that set the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct FleetFigures {
    pub(crate) wall: Measured<Micros>,
    /// Sum of the targets' totals, in seconds.
    pub(crate) work_s: Measured<f64>,
    /// Sum of every node's idle time inside the window, in seconds.
    pub(crate) idle_s: Measured<f64>,
    pub(crate) critical: Measured<Critical>,
    pub(crate) critical_path: Measured<Vec<Link>>,
    /// Nodes with a record that has not ended.
    pub(crate) still_running: Vec<String>,
    pub(crate) estimate_misses: Vec<EstimateMiss>,
}

/// The compiler cache's totals under this run's prefix.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SccacheFigures {
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) writes: u64,
    pub(crate) write_bytes: Measured<u64>,
    pub(crate) hit_ratio: Measured<f64>,
    pub(crate) writes_unsized: u64,
    pub(crate) failed_writes: u64,
    pub(crate) overhead: u64,
    pub(crate) checks: u64,
    pub(crate) other_prefix: u64,
}

/// The registry's totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ZotFigures {
    pub(crate) requests: u64,
    pub(crate) blob_write_bytes: u64,
    pub(crate) cache_write_bytes: u64,
    pub(crate) image_write_bytes: u64,
    pub(crate) manifest_writes: u64,
    pub(crate) blob_writes: u64,
    pub(crate) writes_unsized: u64,
    pub(crate) failed_writes: u64,
    pub(crate) reads: u64,
    pub(crate) read_bytes: Measured<u64>,
    pub(crate) not_json: u64,
    pub(crate) by_message: BTreeMap<String, u64>,
}

/// The run's window and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Window {
    pub(crate) start: Micros,
    pub(crate) end: Micros,
    /// "run.json" or "events".
    pub(crate) from_run_json: bool,
}

/// Why a run that could not be read has no figure.
const UNREADABLE: &str = "the run could not be read";

/// Every figure of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    pub(crate) stamp: String,
    /// Where the run is: its path under the root, or its folder on a site
    /// (set by whoever found it; empty for a run read on its own).
    #[serde(default)]
    pub(crate) dir: String,
    pub(crate) started: Measured<Micros>,
    pub(crate) in_flight: bool,
    /// `cold` or `warm`.
    pub(crate) mode: Measured<String>,
    pub(crate) arch: Measured<String>,
    /// run.json's `max_jobs`.
    pub(crate) job_width: Measured<u32>,
    /// run.json's `revision`: the build repository's commit the run built.
    pub(crate) revision: Measured<String>,
    pub(crate) window: Measured<Window>,
    /// Why no figure of the run can be trusted, when none can (in flight,
    /// every input broken, unreadable): history leaves such a run out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) left_out: Option<String>,
    pub(crate) targets: BTreeMap<String, TargetFigures>,
    pub(crate) nodes: BTreeMap<String, NodeFigures>,
    pub(crate) fleet: FleetFigures,
    pub(crate) sccache: Measured<SccacheFigures>,
    pub(crate) zot: Measured<ZotFigures>,
    /// The tool, the inputs' identities and the coordinates with their
    /// reasons, as data.json and compare state them; not kept where figures
    /// are stored (a history's cache, a site's manifest).
    #[serde(skip)]
    pub(crate) provenance: Option<Provenance>,
}

impl Figures {
    /// A run that could not be read at all: only its folder and why.
    pub(crate) fn unreadable(dir: &str, reason: String) -> Figures {
        Figures {
            stamp: dir.to_string(),
            dir: dir.to_string(),
            started: Measured::missing(UNREADABLE),
            in_flight: false,
            mode: Measured::missing(UNREADABLE),
            arch: Measured::missing(UNREADABLE),
            job_width: Measured::missing(UNREADABLE),
            revision: Measured::missing(UNREADABLE),
            window: Measured::missing(UNREADABLE),
            left_out: Some(reason),
            targets: BTreeMap::new(),
            nodes: BTreeMap::new(),
            fleet: FleetFigures {
                wall: Measured::missing(UNREADABLE),
                work_s: Measured::missing(UNREADABLE),
                idle_s: Measured::missing(UNREADABLE),
                critical: Measured::missing(UNREADABLE),
                critical_path: Measured::missing(UNREADABLE),
                still_running: vec![],
                estimate_misses: vec![],
            },
            sccache: Measured::missing(UNREADABLE),
            zot: Measured::missing(UNREADABLE),
            provenance: None,
        }
    }

    /// The run's stamp (run.json's, else its folder's name).
    pub fn stamp(&self) -> &str {
        &self.stamp
    }

    /// run.json's `started_at` in µs since the epoch: orders the runs.
    pub(crate) fn started_us(&self) -> Option<Micros> {
        self.started.get()
    }

    /// A dated gfx1201 run at max_jobs 32 of `day` (days since the epoch),
    /// with no target yet: how tests make a history.
    #[cfg(test)]
    pub(crate) fn dated(stamp: &str, day: i64, mode: Option<&str>) -> Figures {
        let mut f = Figures::unreadable(stamp, String::new());
        f.left_out = None;
        f.started = Value(day * 86_400_000_000);
        f.mode = Measured::from_option(mode.map(str::to_string), || "run.json has no `mode`".into());
        f.arch = Value("gfx1201".into());
        f.job_width = Value(32);
        f.revision = Measured::missing("run.json has no `revision`");
        f
    }
}
