//! The run's figures for node_exporter's textfile collector, named per
//! Prometheus' conventions (base units as the suffix: seconds, bytes, and
//! ratios 0-1 rather than percent; `_total` only on counters, and these are
//! all gauges): gauges labelled by target, node and builder, a HELP/TYPE
//! block only for names with at least one sample, no timestamps, and no
//! sample at all for a figure that was not measured (never a 0 in its
//! place). A label whose value is not known is left out, never written empty.

use super::Export;
use crate::error::Result;
use crate::output::OutFile;
use crate::view::View;
use std::fmt::Write as _;

pub(crate) const FILE: &str = "rocm_perf.prom";

/// `rocm_perf.prom`, on its own: `perfreport metrics` writes it to the collector's directory.
pub struct Metrics;

impl Export for Metrics {
    fn render(&self, view: &View) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(FILE, render(view))])
    }
}

fn escape(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

struct Family {
    name: &'static str,
    help: &'static str,
    samples: Vec<(Vec<(&'static str, String)>, f64)>,
}

impl Family {
    fn new(name: &'static str, help: &'static str) -> Self {
        Family {
            name,
            help,
            samples: vec![],
        }
    }
    /// A label given as `None` (or empty) is not known: left out, since an
    /// empty value reads as a real one to every query that matches on it.
    fn add(&mut self, labels: Vec<(&'static str, Option<String>)>, value: Option<f64>) {
        if let Some(v) = value.filter(|v| v.is_finite()) {
            let labels = labels
                .into_iter()
                .filter_map(|(k, v)| Some((k, v.filter(|v| !v.is_empty())?)))
                .collect();
            self.samples.push((labels, v));
        }
    }
}

/// A percent figure as a ratio 0-1; the view rounds percents to 0.1, so
/// three decimals keep it exact (and print without float noise).
fn ratio(pct: Option<f64>) -> Option<f64> {
    pct.map(|p| (p * 10.0).round() / 1000.0)
}

pub(crate) fn render(v: &View) -> String {
    let families = [target_families(v), node_families(v), run_families(v)]
        .into_iter()
        .flatten();
    let mut out = String::new();
    for f in families.filter(|f| !f.samples.is_empty()) {
        let _ = writeln!(out, "# HELP {} {}", f.name, f.help);
        let _ = writeln!(out, "# TYPE {} gauge", f.name);
        for (labels, value) in &f.samples {
            let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{}\"", escape(v))).collect();
            let _ = writeln!(out, "{}{{{}}} {}", f.name, labels.join(","), value);
        }
    }
    out
}

/// A family's name, help, and its figure of one target or node.
type Figure<T> = (&'static str, &'static str, fn(&T) -> Option<f64>);

fn target_families(v: &View) -> Vec<Family> {
    let mut families = vec![];
    let target_figures: [Figure<crate::view::TargetView>; 7] = [
        (
            "rocm_perf_target_total_seconds",
            "The whole build record of the target (its root span).",
            |t| t.total_s.get(),
        ),
        (
            "rocm_perf_target_build_seconds",
            "First step's start to last step's end, cached steps included.",
            |t| t.build_s.get(),
        ),
        (
            "rocm_perf_target_gap_seconds",
            "Total minus build: setup plus export.",
            |t| t.gap_s.get(),
        ),
        (
            "rocm_perf_target_upload_seconds",
            "Union of the target's upload spans.",
            |t| t.upload_s.get(),
        ),
        (
            "rocm_perf_target_upload_bytes",
            "Bytes the target uploaded (trace sizes, else registry writes).",
            |t| t.upload_bytes.get().map(|b| b as f64),
        ),
        // Not `_steps_total`: promtool rejects that suffix on a gauge (it means a counter).
        ("rocm_perf_target_steps", "Distinct steps of the target.", |t| {
            t.steps_total.get().map(|s| s as f64)
        }),
        (
            "rocm_perf_target_steps_cached",
            "Steps served from the layer cache.",
            |t| t.steps_cached.get().map(|s| s as f64),
        ),
    ];
    for (name, help, get) in target_figures {
        let mut f = Family::new(name, help);
        for t in &v.targets {
            // The node and the builder each under its own name: a node's name
            // is not a builder's.
            f.add(
                vec![
                    ("target", Some(t.name.clone())),
                    ("node", t.node.value().cloned()),
                    ("builder", t.builder.value().cloned()),
                ],
                get(t),
            );
        }
        families.push(f);
    }
    families
}

fn node_families(v: &View) -> Vec<Family> {
    let mut families = vec![];
    let node_figures: [Figure<crate::view::NodeView>; 4] = [
        (
            "rocm_perf_node_busy_seconds",
            "Union of the node's target records inside the run.",
            |n| n.busy_s.get(),
        ),
        ("rocm_perf_node_idle_seconds", "The rest of the run's window.", |n| {
            n.idle_s.get()
        }),
        // The statistic in the name, before the unit, not in a `stat` label:
        // averaging a mean with a maximum across a label means nothing.
        (
            "rocm_perf_node_cpu_busy_mean_ratio",
            "Time-weighted mean share of CPU time busy (0-1).",
            |n| ratio(n.cpu_pct_mean.get()),
        ),
        (
            "rocm_perf_node_memory_used_max_ratio",
            "Highest share of memory used (0-1).",
            |n| ratio(n.mem_pct_max.get()),
        ),
    ];
    for (name, help, get) in node_figures {
        let mut f = Family::new(name, help);
        for n in &v.nodes {
            f.add(
                vec![("node", Some(n.name.clone())), ("builder", n.builder.value().cloned())],
                get(n),
            );
        }
        families.push(f);
    }
    families
}

/// The run's own gauges, labelled by stamp, mode and arch.
fn run_families(v: &View) -> Vec<Family> {
    let run_labels = || {
        vec![
            ("stamp", Some(v.stamp.clone())),
            ("mode", v.mode.get().map(|m| format!("{m:?}").to_lowercase())),
            ("arch", v.arch.value().cloned()),
        ]
    };
    let mut families = vec![];
    let mut run = |name: &'static str, help: &'static str, value: Option<f64>| {
        let mut f = Family::new(name, help);
        f.add(run_labels(), value);
        families.push(f);
    };
    run(
        "rocm_perf_run_wall_seconds",
        "The run's wall clock.",
        v.fleet.wall_s.get(),
    );
    run(
        "rocm_perf_run_in_flight",
        "1 while the run has not finished.",
        Some(if v.in_flight { 1.0 } else { 0.0 }),
    );
    run(
        "rocm_perf_run_idle_seconds",
        "Node time idle inside the run, all nodes.",
        v.fleet.idle_s.get(),
    );
    run(
        "rocm_perf_sccache_hits",
        "Compiler-cache hits of this run's prefix.",
        v.sccache.hits.map(|x| x as f64),
    );
    run(
        "rocm_perf_sccache_misses",
        "Compiler-cache misses of this run's prefix.",
        v.sccache.misses.map(|x| x as f64),
    );
    run(
        "rocm_perf_sccache_write_bytes",
        "Bytes written to the compiler cache.",
        v.sccache.write_bytes.as_ref().and_then(|m| m.get()).map(|x| x as f64),
    );
    run(
        "rocm_perf_registry_cache_write_bytes",
        "Bytes written to layer-cache repositories.",
        v.zot.cache_write_bytes.map(|x| x as f64),
    );
    run(
        "rocm_perf_registry_image_write_bytes",
        "Bytes written to image repositories.",
        v.zot.image_write_bytes.map(|x| x as f64),
    );
    let broken = v.inputs.values().filter(|i| i.contract_broken).count() as f64;
    run(
        "rocm_perf_inputs_broken",
        "Inputs that broke their contract (see perfreport check).",
        Some(broken),
    );
    families
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
