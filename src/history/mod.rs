//! History: how each target's cost moved across the runs under a root.
//!
//! Per run only a few figures are kept ([`RunFigures`]: each target's total,
//! build, gap, upload, steps cached, and whether its node ended the run
//! loaded beyond its cores). They are what publish's manifest and history's
//! own cache store, so a history of a thousand runs reads no run's logs
//! twice. Runs are pooled only at the same coordinates ([`Key`]: mode, arch,
//! job width); the analysis is `analysis::spread`, the view `view`, the
//! outputs `render::history`.

pub mod bands;
pub mod collect;
pub(crate) mod site;
pub mod view;
pub(crate) mod why;

use crate::analysis::contention::{self, Load};
use crate::analysis::pooling::Coordinates;
use crate::analysis::step_diff::{self, StepRecord};
use crate::view::View;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The metrics kept per target, in the order tables show them.
pub(crate) const METRICS: [&str; 5] = ["total_s", "build_s", "gap_s", "upload_s", "steps_cached"];

/// How many steps of a target history keeps: its slowest.
pub(crate) const STEPS_KEPT: usize = 8;
/// How many characters of a step's name history keeps.
pub(crate) const STEP_NAME_KEPT: usize = 200;

/// What history keeps of one target of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct TargetFigures {
    pub(crate) total_s: Option<f64>,
    pub(crate) build_s: Option<f64>,
    pub(crate) gap_s: Option<f64>,
    pub(crate) upload_s: Option<f64>,
    pub(crate) steps_cached: Option<f64>,
    /// Its node ended the run loaded beyond its cores; `None`: not known.
    pub(crate) loaded: Option<bool>,
    /// Why `loaded` is true (the load and cores) or unknown.
    pub(crate) load: Option<String>,
    /// Why a metric is `None`, keyed by metric (what the gate says instead of a verdict).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) why_null: BTreeMap<String, String>,
    /// Its slowest steps, longest first: at most `STEPS_KEPT`, each name at
    /// most `STEP_NAME_KEPT` characters, so a history of a thousand runs
    /// stays small. What a change of level's step diff and the step history rest on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) steps: Vec<StepRecord>,
    /// `steps` holds every step of the target (none was left out).
    #[serde(default)]
    pub(crate) steps_all: bool,
}

impl TargetFigures {
    pub(crate) fn metric(&self, metric: &str) -> Option<f64> {
        match metric {
            "total_s" => self.total_s,
            "build_s" => self.build_s,
            "gap_s" => self.gap_s,
            "upload_s" => self.upload_s,
            "steps_cached" => self.steps_cached,
            _ => None,
        }
    }
}

/// What history keeps of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunFigures {
    pub(crate) stamp: String,
    /// Where the run is: its path under the root, or its folder on a site.
    pub(crate) dir: String,
    /// run.json's `started_at` in µs since the epoch: orders the runs.
    pub(crate) started_us: Option<i64>,
    pub(crate) mode: Option<String>,
    pub(crate) arch: Option<String>,
    pub(crate) max_jobs: Option<u32>,
    /// Why the run is left out of history (in flight, broken, unreadable).
    pub(crate) left_out: Option<String>,
    /// The last target of the critical node: the run's own headline.
    pub(crate) critical_target: Option<String>,
    /// run.json's `revision`: the build repository's commit the run built.
    #[serde(default)]
    pub(crate) revision: Option<String>,
    pub(crate) targets: BTreeMap<String, TargetFigures>,
    /// What compare weighs of each node (busy, idle, CPU), keyed by node.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) nodes: BTreeMap<String, NodeFigures>,
}

/// What history keeps of one node of one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct NodeFigures {
    pub(crate) busy_s: Option<f64>,
    pub(crate) idle_s: Option<f64>,
    pub(crate) cpu_pct_mean: Option<f64>,
}

impl NodeFigures {
    pub(crate) fn metric(&self, metric: &str) -> Option<f64> {
        match metric {
            "busy_s" => self.busy_s,
            "idle_s" => self.idle_s,
            "cpu_pct_mean" => self.cpu_pct_mean,
            _ => None,
        }
    }
}

/// The coordinates runs must share to be pooled: two runs share a key
/// exactly when they pool ([`Coordinates::pools_with`], the rule stated
/// once). A run that pools with none, not even a run at its own coordinates
/// (mode or arch not recorded), is a key of its own (`lone` is its folder).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Key {
    /// Unknown keys sort after the known ones.
    pub(crate) lone: Option<String>,
    pub(crate) mode: Option<String>,
    pub(crate) arch: Option<String>,
    pub(crate) max_jobs: Option<u32>,
}

impl RunFigures {
    /// A run that could not be read at all.
    pub(crate) fn unreadable(dir: &str, reason: String) -> RunFigures {
        RunFigures {
            stamp: dir.to_string(),
            dir: dir.to_string(),
            left_out: Some(reason),
            ..Default::default()
        }
    }

    /// What history keeps of a reported run.
    pub fn from_view(dir: &str, v: &View) -> RunFigures {
        let left_out = if v.in_flight {
            Some("in flight: its figures are not final".to_string())
        } else {
            broken_reason(v).map(|r| format!("broken: {r}"))
        };
        RunFigures {
            stamp: v.stamp.clone(),
            dir: dir.to_string(),
            started_us: v.started_at.as_deref().and_then(crate::timefmt::parse_rfc3339),
            mode: v.mode.map(crate::analysis::pooling::mode_word),
            arch: v.arch.clone(),
            max_jobs: v.provenance.run.job_width,
            left_out,
            critical_target: v.fleet.critical.as_ref().map(|c| c.last_target.clone()),
            revision: v.provenance.run.revision.clone(),
            targets: v
                .targets
                .iter()
                .map(|t| (t.name.clone(), target_figures(v, t)))
                .collect(),
            nodes: v
                .nodes
                .iter()
                .map(|n| {
                    let f = NodeFigures {
                        busy_s: n.busy_s,
                        idle_s: n.idle_s,
                        cpu_pct_mean: n.cpu_pct_mean,
                    };
                    (n.name.clone(), f)
                })
                .collect(),
        }
    }

    /// The coordinates it was measured at.
    pub(crate) fn coordinates(&self) -> Coordinates {
        Coordinates {
            mode: self.mode.clone(),
            arch: self.arch.clone(),
            job_width: self.max_jobs,
        }
    }

    pub(crate) fn key(&self) -> Key {
        let c = self.coordinates();
        Key {
            lone: (!c.pools_with(&c)).then(|| self.dir.clone()),
            mode: c.mode,
            arch: c.arch,
            max_jobs: c.job_width,
        }
    }

    /// Oldest first: by run.json's start, then stamp, then folder; runs
    /// without a start sort before dated ones, as `runs::list` has them.
    pub(crate) fn order(&self) -> (Option<i64>, &str, &str) {
        (self.started_us, &self.stamp, &self.dir)
    }
}

/// Why no figure of the run can be trusted: every present input broke its
/// contract. Publish marks such a run broken; history leaves it out.
pub(crate) fn broken_reason(v: &View) -> Option<String> {
    let present: Vec<_> = v.inputs.values().filter(|i| i.present).collect();
    (!present.is_empty() && present.iter().all(|i| i.contract_broken)).then(|| {
        let first = present
            .iter()
            .map(|i| i.warnings.join("; "))
            .find(|w| !w.is_empty())
            .unwrap_or_default();
        format!("no input could be read ({first})")
    })
}

fn target_figures(v: &View, t: &crate::view::TargetView) -> TargetFigures {
    let node = t.node.as_deref().and_then(|n| v.nodes.iter().find(|x| x.name == n));
    let load = match (&t.node, node) {
        (None, _) => Load::Unknown(format!("no placement ties {} to a node", t.name)),
        (Some(n), None) => Load::Unknown(format!("node {n} is not described by the run")),
        (Some(_), Some(n)) => contention::judge(&n.name, n.load1_end, n.cores),
    };
    let all_steps = t.step_records();
    let (loaded, load) = match load {
        Load::Loaded(why) => (Some(true), Some(why)),
        Load::Clear => (Some(false), None),
        Load::Unknown(why) => (None, Some(why)),
    };
    TargetFigures {
        total_s: t.total_s,
        build_s: t.build_s,
        gap_s: t.gap_s,
        upload_s: t.upload_s,
        steps_cached: t.steps_cached.map(|x| x as f64),
        loaded,
        load,
        why_null: METRICS
            .iter()
            .filter_map(|m| Some((m.to_string(), t.why_null.get(*m)?.clone())))
            .collect(),
        steps: kept_steps(&all_steps),
        steps_all: all_steps.len() <= STEPS_KEPT,
    }
}

/// The slowest steps of a target, names cut to `STEP_NAME_KEPT` characters.
fn kept_steps(all: &[StepRecord]) -> Vec<StepRecord> {
    let mut kept = step_diff::slowest(all, STEPS_KEPT);
    for r in &mut kept {
        if r.name.chars().count() > STEP_NAME_KEPT {
            r.name = r.name.chars().take(STEP_NAME_KEPT - 1).chain(['…']).collect();
        }
        r.s = (r.s * 1000.0).round() / 1000.0;
    }
    kept
}

/// The key in words, for headings and the terminal.
pub(crate) fn key_label(k: &Key) -> String {
    let jobs = k
        .max_jobs
        .map(|j| format!("max_jobs {j}"))
        .unwrap_or_else(|| "max_jobs not recorded".into());
    match &k.lone {
        None => format!(
            "{} · {} · {jobs}",
            k.mode.as_deref().unwrap_or("?"),
            k.arch.as_deref().unwrap_or("?")
        ),
        Some(dir) => {
            let lacks: Vec<&str> = [("mode", &k.mode), ("arch", &k.arch)]
                .iter()
                .filter(|(_, v)| v.is_none())
                .map(|(n, _)| *n)
                .collect();
            format!("unknown: {dir} (run.json gives no {})", lacks.join(" or "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_runs_share_a_key_exactly_when_the_rule_pools_them() {
        let run = |dir: &str, mode: Option<&str>, arch: Option<&str>, jobs: Option<u32>| RunFigures {
            dir: dir.into(),
            mode: mode.map(str::to_string),
            arch: arch.map(str::to_string),
            max_jobs: jobs,
            ..Default::default()
        };
        let runs = [
            run("a", Some("warm"), Some("gfx1201"), Some(32)),
            run("b", Some("warm"), Some("gfx1201"), Some(32)),
            run("c", Some("warm"), Some("gfx1201"), None),
            run("d", Some("warm"), Some("gfx1201"), None),
            run("e", Some("cold"), Some("gfx1201"), None),
            run("f", None, Some("gfx1201"), None),
            run("g", None, Some("gfx1201"), None),
            run("h", Some("warm"), None, Some(32)),
        ];
        for x in &runs {
            for y in runs.iter().filter(|y| y.dir != x.dir) {
                let pools = x.coordinates().pools_with(&y.coordinates());
                assert_eq!(x.key() == y.key(), pools, "{} and {}", x.dir, y.dir);
            }
        }
        assert_eq!(runs[2].key(), runs[3].key(), "no width recorded on either: one key");
        assert_ne!(runs[0].key(), runs[2].key(), "a width on one side only: two keys");
        assert_ne!(runs[5].key(), runs[6].key(), "no mode: each run its own key");
    }
}
