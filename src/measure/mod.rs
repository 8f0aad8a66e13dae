//! A run's figures (`figures::Figures`), measured once from the run model
//! by the analysis's rules (`analysis`): each
//! target's from its trace, its placement and the registry; each node's from
//! its records and samples; the fleet's; the compiler cache's and the
//! registry's totals; the run's coordinates. Every figure's reason is set
//! here, beside its value, so no reader decides it again.

pub(crate) mod context;

use crate::analysis::contention;
use crate::analysis::node_time::node_time;
use crate::analysis::nodes::{self, NodeFold, NodeSeries, Point};
use crate::analysis::targets::TraceFigures;
use crate::analysis::uploads::{attribute_upload, UploadBytes, UploadEvidence};
use crate::figures::{
    secs_ms, Critical, EstimateMiss, Figures, FleetFigures, InputIdentity, Link, Load, Measured, Missing,
    NodeCoordinate, NodeFigures, Provenance, RunCoordinates, SccacheFigures, Step, TargetFigures, Tool, Value, Waited,
    Window, ZotFigures,
};
use crate::input::run_rules;
use crate::input::samples::{NodeSamples, POLL_CAP};
use crate::input::InputReport;
use crate::measured::explained::WhyNull;
use crate::model::{self, Run};
use crate::timefmt::{self, Micros, MICROS_PER_SEC};
use context::Context;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A run analysed: its figures, what they were built from (the view places
/// them by it), each node's CPU and memory series at display resolution,
/// and what analysis found worth a warning.
pub(crate) struct Analysed<'a> {
    pub(crate) cx: Context<'a>,
    pub(crate) figures: Figures,
    /// Target names in timeline order: by start, unstarted last, then by name.
    pub(crate) timeline: Vec<String>,
    /// Node names, sorted: run.json's, placement's and the samples'.
    pub(crate) node_order: Vec<String>,
    pub(crate) series: BTreeMap<String, ShownSeries>,
    /// The tool, the inputs' identities, the coordinates (also on `figures`).
    pub(crate) provenance: Provenance,
    /// Warnings of the nodes (duplicates, unlisted, counter resets, gap limits), in that order.
    pub(crate) node_warnings: Vec<String>,
    /// Warnings of the fleet (estimates too small to compare).
    pub(crate) fleet_warnings: Vec<String>,
}

/// A node's CPU and memory series, reduced to the points a chart can show
/// (peaks kept), and whether either was reduced.
#[derive(Debug, Clone, Default)]
pub(crate) struct ShownSeries {
    pub(crate) cpu: Vec<Point>,
    pub(crate) mem: Vec<Point>,
    pub(crate) reduced: bool,
}

/// Analyses a run: its figures, once.
pub(crate) fn analyse(run: &Run) -> Analysed<'_> {
    let cx = Context::new(run);
    let mut targets: BTreeMap<String, TargetFigures> = cx
        .join
        .names
        .iter()
        .map(|name| (name.clone(), target(&cx, name)))
        .collect();
    let timeline = timeline(&cx);
    let mut node_warnings = vec![];
    let node_order = node_names(&cx, &mut node_warnings);
    if let Some(info) = cx.info {
        node_warnings.extend(run_rules::samples_from_unlisted_nodes(info, run.samples.by_node.keys()));
    }
    let (nodes, series) = nodes(&cx, &node_order, &timeline, &targets, &mut node_warnings);
    for (name, t) in targets.iter_mut() {
        t.load = load(name, t, &nodes);
    }
    let fleet_warnings = estimates_too_small(&timeline, &targets);
    let fleet = fleet(&cx, &timeline, &targets, &node_order, &nodes);
    let provenance = provenance(&cx, &node_order, &nodes);
    let figures = Figures {
        stamp: run.stamp().to_string(),
        dir: String::new(),
        started: run_facts::started(&cx),
        in_flight: run.in_flight(),
        mode: run_facts::mode(&cx).map(crate::analysis::pooling::mode_word),
        arch: run_facts::arch(&cx),
        job_width: run_facts::job_width(&cx),
        revision: run_facts::revision(&cx),
        window: window(&cx),
        left_out: left_out(run),
        sccache: sccache(run),
        zot: zot(run),
        provenance: Some(provenance.clone()),
        targets,
        nodes,
        fleet,
    };
    Analysed {
        cx,
        figures,
        timeline,
        node_order,
        series,
        provenance,
        node_warnings,
        fleet_warnings,
    }
}

/// Why no figure of the run can be trusted: in flight, or every present
/// input broke its contract. History leaves such a run out.
fn left_out(run: &Run) -> Option<String> {
    if run.in_flight() {
        return Some("in flight: its figures are not final".to_string());
    }
    broken_reason(run.inputs.iter()).map(|r| format!("broken: {r}"))
}

/// Every present input broke its contract: what publish marks broken.
pub(crate) fn broken_reason<'a>(inputs: impl Iterator<Item = &'a InputReport>) -> Option<String> {
    let present: Vec<&InputReport> = inputs.filter(|i| i.present).collect();
    (!present.is_empty() && present.iter().all(|i| i.contract_broken)).then(|| {
        let first = present
            .iter()
            .map(|i| i.warnings.join("; "))
            .find(|w| !w.is_empty())
            .unwrap_or_default();
        format!("no input could be read ({first})")
    })
}

/// The reason every figure of a present input that yielded no record is
/// missing; `None` when the input is absent or gave records.
pub(crate) fn no_record(run: &Run, name: &str) -> Option<String> {
    run.input(name).and_then(InputReport::why_no_record)
}

/// Run-level facts from run.json, each with why it is missing.
mod run_facts {
    use super::{no_record, Context, Measured};
    use crate::input::run_json::Mode;
    use crate::model;
    use crate::timefmt::Micros;

    /// Why run.json does not give `key`.
    pub(super) fn lacks(cx: &Context, key: &str) -> String {
        match no_record(cx.run, model::RUN_JSON) {
            Some(r) => r,
            None if cx.info.is_none() => "no run.json in this run".to_string(),
            None => format!("run.json has no `{key}`"),
        }
    }

    pub(crate) fn mode(cx: &Context) -> Measured<Mode> {
        Measured::from_option(cx.info.and_then(|i| i.mode), || lacks(cx, "mode"))
    }

    pub(crate) fn arch(cx: &Context) -> Measured<String> {
        Measured::from_option(cx.info.and_then(|i| i.arch.clone()), || lacks(cx, "arch"))
    }

    pub(crate) fn namespace(cx: &Context) -> Measured<String> {
        Measured::from_option(cx.info.and_then(|i| i.namespace.clone()), || lacks(cx, "namespace"))
    }

    pub(super) fn sccache_prefix(cx: &Context) -> Measured<String> {
        Measured::from_option(cx.info.and_then(|i| i.sccache_prefix.clone()), || {
            lacks(cx, "sccache_prefix")
        })
    }

    pub(super) fn job_width(cx: &Context) -> Measured<u32> {
        Measured::from_option(cx.info.and_then(|i| i.job_width), || lacks(cx, "max_jobs"))
    }

    pub(super) fn revision(cx: &Context) -> Measured<String> {
        Measured::from_option(cx.info.and_then(|i| i.revision.clone()), || lacks(cx, "revision"))
    }

    pub(crate) fn started(cx: &Context) -> Measured<Micros> {
        Measured::from_option(cx.info.and_then(|i| i.started_at), || lacks(cx, "started_at"))
    }
}

pub(crate) use run_facts::{arch as run_arch, mode as run_mode, namespace as run_namespace, started as run_started};

/// The window and where it came from.
fn window(cx: &Context) -> Measured<Window> {
    let run = cx.run;
    let info = run.info.as_ref();
    let from_run_json = info.is_some_and(|i| i.started_at.is_some() && (i.finished_at.is_some() || run.in_flight()));
    Measured::from_option(
        cx.window.map(|(start, end)| Window {
            start,
            end,
            from_run_json,
        }),
        window_unknown,
    )
}

pub(crate) fn window_unknown() -> String {
    "the run's time window is unknown: run.json gives none and no input has a timed event".to_string()
}

/// Target names in timeline order: by start, unstarted last, then by name.
fn timeline(cx: &Context) -> Vec<String> {
    let mut names: Vec<(Option<Micros>, &String)> = cx
        .join
        .names
        .iter()
        .map(|n| (cx.join.figures(n).and_then(|f| f.start), n))
        .collect();
    names.sort_by(|a, b| (a.0.is_none(), a.0, a.1).cmp(&(b.0.is_none(), b.0, b.1)));
    names.into_iter().map(|(_, n)| n.clone()).collect()
}

/// One target's figures: its trace's, where it ran, its upload bytes as
/// attributed (`analysis::uploads`), its slack on the critical path.
fn target(cx: &Context, name: &str) -> TargetFigures {
    let run = cx.run;
    let p = cx.join.placement(name);
    let has_placement = run.input(model::PLACEMENT).is_some_and(|i| i.present);
    let node = Measured::from_option(p.map(|p| p.node.clone()), || match no_record(run, model::PLACEMENT) {
        Some(r) => r,
        None if has_placement => "placement.txt has no line for this target".to_string(),
        None => "no placement.txt in this run: the target's node is unknown".to_string(),
    });
    let builder = match p
        .and_then(|p| p.builder.clone())
        .or_else(|| p.and_then(|p| cx.node_info(&p.node)).and_then(|n| n.builder.clone()))
    {
        Some(b) => Value(b),
        None => node.clone().and_then(|n| {
            Measured::missing(format!(
                "neither placement.txt nor run.json names the builder of node {n}"
            ))
        }),
    };
    let est_s = node
        .clone()
        .and_then(|_| Measured::from_option(p.and_then(|p| p.est_s), || "the placement line gives no `est_s`".into()));
    let slack_s = Measured::from_option(cx.critical.as_ref().and_then(|c| c.slack_s.get(name)).copied(), || {
        "the run's end is not known until every record has ended".into()
    });
    let mut t = match cx.join.figures(name) {
        Some(f) => traced(cx, name, p.map(|p| p.node.as_str()), f),
        None => TargetFigures::unmeasured(&no_trace(cx, name)),
    };
    t.slack_s = t.end.clone().and_then(|_| slack_s);
    t.node = node;
    t.builder = builder;
    t.est_s = est_s;
    t.after = p.and_then(|p| p.after.clone());
    t
}

fn no_trace(cx: &Context, name: &str) -> String {
    if let Some(r) = no_record(cx.run, &format!("trace-{name}.json")) {
        r
    } else if cx.run.in_flight() {
        format!(
            "no readable trace-{name}.json yet (the run is in flight: BuildKit writes the trace when the record ends)"
        )
    } else {
        format!("no trace-{name}.json in this run, or it could not be read")
    }
}

/// What the target's trace (and the registry) measured.
fn traced(cx: &Context, name: &str, node: Option<&str>, f: &TraceFigures) -> TargetFigures {
    let upload_bytes = match upload_bytes(cx, name, node, f) {
        UploadBytes::Measured { bytes, source } => (Value(bytes), Value(source.to_string())),
        UploadBytes::Unknown { why } => (Measured::missing(why.clone()), Measured::missing(why)),
    };
    // The record's ends come from its root span (written when it ends).
    let start = Measured::from_option(f.start, || f.upload.why().or(f.total.why()).unwrap_or("").to_string());
    let end = Measured::from_option(f.end, || f.total.why().unwrap_or("").to_string());
    let setup = Measured::from_option(f.setup, || start.why().or(f.build.why()).unwrap_or("").to_string());
    let export = Measured::from_option(f.export, || end.why().or(f.build.why()).unwrap_or("").to_string());
    let upload_mbps = upload_bytes.0.clone().zip(f.upload.clone()).and_then(|(b, us)| {
        let s = us as f64 / MICROS_PER_SEC;
        if s > 0.0 && b > 0 {
            Value(crate::figures::ms(b as f64 / s / 1e6))
        } else {
            Measured::missing("nothing was uploaded: no rate")
        }
    });
    TargetFigures {
        node: Measured::missing(""),
        builder: Measured::missing(""),
        est_s: Measured::missing(""),
        after: None,
        start,
        end,
        total: f.total.clone(),
        build: f.build.clone(),
        gap: f.gap.clone(),
        setup,
        export,
        upload: f.upload.clone(),
        upload_bytes: upload_bytes.0,
        upload_bytes_source: upload_bytes.1,
        upload_mbps,
        steps_total: Value(f.steps_total),
        steps_cached: Value(f.steps_cached),
        registry_calls: Value(f.registry_calls),
        slack_s: Measured::missing(""),
        load: Measured::missing(""),
        steps: steps(f),
    }
}

/// Its steps, one record per step, from the trace's own microseconds.
fn steps(f: &TraceFigures) -> Vec<Step> {
    crate::analysis::step_diff::records(
        f.steps
            .iter()
            .map(|s| (s.name.as_str(), s.vertex.as_deref(), s.end - s.start, s.cached)),
    )
}

/// The evidence for the target's upload bytes, handed to the rule.
fn upload_bytes(cx: &Context, name: &str, node: Option<&str>, f: &TraceFigures) -> UploadBytes {
    let zot = cx.run.zot.as_ref();
    // A log that is there but measured nothing (no line recognised, or its
    // records all another day's) is neither no log nor a registry that saw
    // no write. Its reason is long and the registry's own (`zot.why`): each
    // target points to it.
    let unread = zot_unmeasured(cx.run).map(|_| {
        if cx.run.input(model::ZOT).is_some_and(|i| i.present) {
            "zot.jsonl measured nothing (see the registry's reason)"
        } else {
            "no zot.jsonl"
        }
    });
    let addr = node.and_then(|n| cx.node_info(n)).and_then(|n| n.addr.as_deref());
    let join = &cx.join;
    let others = node.map(|n| join.records_on(n, Some(name))).unwrap_or_default();
    attribute_upload(&UploadEvidence {
        traced: f.upload_bytes_traced,
        registry_unread: unread,
        addr,
        writes: zot.zip(addr).and_then(|(z, a)| z.writes_from(a)),
        record: join.record(name),
        uploads: &f.uploads,
        others: &others,
        upload_s: f.upload.get().map(|us| us as f64 / MICROS_PER_SEC),
        open: f.open,
    })
}

/// A target's node at the end of the run, judged (`analysis::contention`).
fn load(target: &str, t: &TargetFigures, nodes: &BTreeMap<String, NodeFigures>) -> Measured<Load> {
    let Some(name) = t.node.value() else {
        return Measured::missing(format!("no placement ties {target} to a node"));
    };
    let Some(n) = nodes.get(name) else {
        return Measured::missing(format!("node {name} is not described by the run"));
    };
    match contention::judge(name, n.load1_end.get(), n.cores.get()) {
        contention::LoadJudged::Loaded(why) => Value(Load::Loaded(why)),
        contention::LoadJudged::Clear => Value(Load::Clear),
        contention::LoadJudged::Unknown(why) => Measured::missing(why),
    }
}

/// Node names, sorted, from run.json, placement and samples; run.json's
/// duplicates are warned about.
fn node_names(cx: &Context, warnings: &mut Vec<String>) -> Vec<String> {
    let mut names: Vec<String> = cx
        .info
        .map(|i| i.nodes.iter().map(|n| n.name.clone()).collect())
        .unwrap_or_default();
    let mut seen = BTreeSet::new();
    for n in &names {
        if !seen.insert(n.clone()) {
            warnings.push(format!(
                "run.json: node {n} is listed more than once; its first entry is used"
            ));
        }
    }
    names.extend(cx.run.placements.iter().map(|p| p.node.clone()));
    names.extend(cx.run.samples.by_node.keys().cloned());
    names.sort();
    names.dedup();
    names
}

/// A node's figures: its summarised polls' fold continued over the polls
/// held, or, below the cap, all its polls at once.
fn node_series(samples: &NodeSamples<NodeFold>) -> NodeSeries {
    match &samples.summary {
        Some(m) => {
            let mut fold = m.fold.clone();
            for s in samples.polls.iter() {
                fold.add(s);
            }
            fold.finish()
        }
        None => nodes::analyse(&samples.polls),
    }
}

/// A node's analysis with its series at display resolution; the full
/// series are dropped as soon as they are reduced.
fn analyse_node(samples: &NodeSamples<NodeFold>, budget: usize) -> (NodeSeries, ShownSeries) {
    let mut ns = node_series(samples);
    let (cpu, cpu_reduced) = nodes::reduce_min_max(&ns.cpu, budget);
    let (mem, mem_reduced) = nodes::reduce_min_max(&ns.mem, budget);
    (ns.cpu, ns.mem) = (Vec::new(), Vec::new());
    let shown = ShownSeries {
        cpu,
        mem,
        reduced: cpu_reduced || mem_reduced,
    };
    (ns, shown)
}

type NodesAnalysed = (BTreeMap<String, NodeFigures>, BTreeMap<String, ShownSeries>);

/// Every node's figures and series. Each node's samples are analysed and
/// reduced independently: one node per core.
fn nodes(
    cx: &Context,
    names: &[String],
    timeline: &[String],
    targets: &BTreeMap<String, TargetFigures>,
    warnings: &mut Vec<String>,
) -> NodesAnalysed {
    let run = cx.run;
    let budget = nodes::series_budget(run.samples.by_node.len());
    let mut per_node: BTreeMap<&str, (NodeSeries, ShownSeries)> = {
        use rayon::prelude::*;
        run.samples
            .by_node
            .par_iter()
            .map(|(name, samples)| (name.as_str(), analyse_node(samples, budget)))
            .collect()
    };
    // Indexed once: a lookup per node, not a scan of every target.
    let mut targets_on: HashMap<&str, Vec<&str>> = HashMap::new();
    for t in timeline {
        if let Some(n) = targets.get(t).and_then(|f| f.node.value()) {
            targets_on.entry(n.as_str()).or_default().push(t.as_str());
        }
    }
    let placed = run.input(model::PLACEMENT).is_some_and(|i| i.present);
    let mut figures = BTreeMap::new();
    let mut series = BTreeMap::new();
    let none = NodeSamples::default();
    for name in names {
        let samples = run.samples.by_node.get(name).unwrap_or(&none);
        let (ns, shown) = per_node
            .remove(name.as_str())
            .unwrap_or_else(|| analyse_node(samples, budget));
        let mine = targets_on.get(name.as_str()).map(Vec::as_slice).unwrap_or_default();
        let n = node(cx, name, mine, targets, &ns, samples, placed);
        if ns.counter_resets > 0 {
            warnings.push(format!(
                "{}: {} intervals of node {name} dropped because a CPU counter went backwards",
                run.samples_input(),
                ns.counter_resets
            ));
        }
        warnings.extend(gap_limit_warning(run.samples_input(), name, &ns));
        figures.insert(name.clone(), n);
        series.insert(name.clone(), shown);
    }
    (figures, series)
}

/// Why run.json does not give a node's `key`.
fn node_lacks(cx: &Context, name: &str, key: &str) -> String {
    let listed = cx.info.and_then(|i| i.nodes.iter().find(|x| x.name == name));
    match (cx.info, listed) {
        (None, _) => run_facts::lacks(cx, "nodes"),
        (Some(_), None) => format!("run.json does not list node {name}"),
        (Some(_), Some(_)) => format!("run.json gives no `{key}` for node {name}"),
    }
}

fn node(
    cx: &Context,
    name: &str,
    mine: &[&str],
    targets: &BTreeMap<String, TargetFigures>,
    ns: &NodeSeries,
    samples: &NodeSamples<NodeFold>,
    placed: bool,
) -> NodeFigures {
    let run = cx.run;
    let ni = cx.node_info(name);
    let records = cx.join.records_on(name, None);
    let waits = cx.waits.get(name).map(Vec::as_slice).unwrap_or_default();
    let mut time = node_time(&records, waits, cx.join.running_on(name), cx.window, placed);
    let not_yet = cx.window_not_yet();
    if not_yet.is_some() {
        time.busy_s = None;
        time.idle_s = None;
    }
    let busy_s = Measured::from_option(time.busy_s, || {
        not_yet
            .clone()
            .unwrap_or_else(|| time.why_busy.unwrap_or("").to_string())
    });
    let idle_s = Measured::from_option(time.idle_s, || busy_s.why().unwrap_or("").to_string());
    let idle_part = |v: Option<f64>| Measured::from_option(v, || idle_s.why().unwrap_or("").to_string());
    let ended_why = || {
        if run.in_flight() && !mine.is_empty() {
            format!("a target on {name} may not have ended yet (the run is in flight)")
        } else if mine.is_empty() {
            format!("no target is placed on {name}")
        } else {
            format!("no target on {name} has a timed record")
        }
    };
    // A samples file that yielded nothing is the reason, not the node; a
    // server says of each node why it gave nothing.
    let samples_why = run
        .unsampled
        .get(name)
        .cloned()
        .or_else(|| no_record(run, run.samples_input()));
    let sampled = |v: Option<f64>, what: &str, first: Option<String>| {
        Measured::from_option(v, || {
            samples_why
                .clone()
                .or(first)
                .or_else(|| samples.is_empty().then(|| run.no_samples_from(name)))
                .unwrap_or_else(|| format!("the samples from {name} carry no {what} figures"))
        })
    };
    let cpu_first = if samples.is_empty() {
        Some(run.no_samples_from(name))
    } else {
        Some("fewer than two usable CPU polls".to_string())
    };
    let builder = ni
        .and_then(|n| n.builder.clone())
        .or_else(|| mine.iter().find_map(|t| targets.get(*t)?.builder.value().cloned()));
    NodeFigures {
        builder: Measured::from_option(builder, || {
            format!("{}, nor does any placement line", node_lacks(cx, name, "builder"))
        }),
        addr: Measured::from_option(ni.and_then(|n| n.addr.clone()), || node_lacks(cx, name, "addr")),
        cores: Measured::from_option(ni.and_then(|n| n.cores), || node_lacks(cx, name, "cores")),
        link_mbps: Measured::from_option(ni.and_then(|n| n.link_mbps), || node_lacks(cx, name, "link_mbps")),
        targets: mine.iter().map(|t| t.to_string()).collect(),
        waiting_s: idle_part(time.waiting_s),
        nothing_to_do_s: idle_part(time.nothing_to_do_s),
        busy_s,
        idle_s,
        idle_after_s: Measured::from_option(time.idle_after_s, ended_why),
        finished: Measured::from_option(time.finished, ended_why),
        cpu_pct_mean: sampled(ns.cpu_pct_mean, "CPU", cpu_first),
        mem_pct_max: sampled(ns.mem_pct_max, "memory", None),
        load1_max: sampled(ns.load1_max, "load", None),
        load1_end: sampled(ns.load1_end, "load", None),
        counter_resets: ns.counter_resets,
        gaps: ns.gaps,
    }
}

/// A summarised node whose gap limit, fixed by its first polls, counts
/// intervals otherwise than all its polls' would: said, not silent.
fn gap_limit_warning(input: &str, name: &str, ns: &NodeSeries) -> Option<String> {
    let m = ns.gap_limit_moved?;
    let s = |us: i64| timefmt::human_duration(us as f64 / MICROS_PER_SEC);
    let what = if m.used < m.all {
        "are breaks in its line, left out of its CPU mean, that the whole file's rule would keep"
    } else {
        "are kept in its line and CPU mean that the whole file's rule would count as gaps"
    };
    Some(format!(
        "{input}: node {name}'s poll interval changed after its first {POLL_CAP} polls: a gap is an interval over {} (three times their median), not over about {} (all its polls'); at least {} intervals {what}",
        s(m.used),
        s(m.all),
        m.intervals,
    ))
}

/// The fleet's figures: wall clock, work and idle in all, the critical path
/// (unknown while a record is open), and where the balancer's estimate missed.
fn fleet(
    cx: &Context,
    timeline: &[String],
    targets: &BTreeMap<String, TargetFigures>,
    node_order: &[String],
    nodes: &BTreeMap<String, NodeFigures>,
) -> FleetFigures {
    let still_running = cx.join.still_running();
    let critical = crate::analysis::fleet::critical_path(&cx.join.ended_records())
        .filter(|_| still_running.is_empty())
        .map(|c| Critical {
            node: c.node,
            end: c.end,
            targets: c.targets,
            last_target: c.last_target,
        });
    let critical = Measured::from_option(critical, || {
        if still_running.is_empty() {
            "no ended target record tied to a node (placement.txt)".to_string()
        } else {
            format!(
                "still building on {}: who finishes last is not known until every record has ended",
                still_running.join(", ")
            )
        }
    });
    let in_order = || timeline.iter().filter_map(|n| targets.get(n).map(|t| (n, t)));
    let totals: Vec<f64> = in_order().filter_map(|(_, t)| t.total.get().map(secs_ms)).collect();
    let estimate_misses = in_order()
        .filter_map(|(n, t)| crate::analysis::fleet::estimate_miss(n, t.est_s.get()?, secs_ms(t.total.get()?)))
        .map(|m| EstimateMiss {
            ratio: crate::figures::ms(m.ratio),
            ..m
        })
        .collect();
    let idle_s = match node_order
        .iter()
        .find(|n| nodes.get(*n).is_some_and(|f| f.idle_s.is_missing()))
    {
        _ if node_order.is_empty() => Measured::missing("no node is known"),
        Some(n) => Measured::missing(format!(
            "the idle time of {n} is unknown: {}",
            nodes[n].idle_s.why().unwrap_or("")
        )),
        None => Value(crate::figures::ms(
            node_order
                .iter()
                .filter_map(|n| nodes.get(n)?.idle_s.get().map(crate::figures::ms))
                .sum(),
        )),
    };
    FleetFigures {
        wall: match cx.window_not_yet() {
            Some(why) => Measured::missing(why),
            None => Measured::from_option(cx.window.map(|w| w.1 - w.0), window_unknown),
        },
        work_s: Measured::from_option(
            (!totals.is_empty()).then(|| crate::figures::ms(totals.iter().sum())),
            || "no target has a measured total".into(),
        ),
        idle_s,
        critical,
        critical_path: critical_path(cx, &still_running),
        still_running,
        estimate_misses,
    }
}

/// The chain that set the wall clock, link by link.
fn critical_path(cx: &Context, still_running: &[String]) -> Measured<Vec<Link>> {
    let Some(c) = cx.critical.as_ref() else {
        return Measured::missing(if still_running.is_empty() {
            "no target record has ended".to_string()
        } else {
            format!(
                "still building on {}: the chain that sets the wall clock is not known until every record has ended",
                still_running.join(", ")
            )
        });
    };
    let head = "the chain's head: neither an `after=` dependency nor a target ahead of it on its node had ended when it started";
    Value(
        c.chain
            .iter()
            .map(|l| Link {
                target: l.target.clone(),
                node: Measured::from_option(l.node.clone(), || "placement.txt does not place this target".into()),
                start: l.start,
                end: l.end,
                waited: Measured::from_option(
                    l.binding.as_ref().map(|b| Waited {
                        for_target: b.waited_for.clone(),
                        how: b.how.label().to_string(),
                        wait: b.wait,
                    }),
                    || head.to_string(),
                ),
            })
            .collect(),
    )
}

/// An estimate so small that actual ÷ estimate is no number is not
/// compared; said here, since the misses cannot show it.
fn estimates_too_small(timeline: &[String], targets: &BTreeMap<String, TargetFigures>) -> Vec<String> {
    let mut warnings = vec![];
    for name in timeline {
        let Some(t) = targets.get(name) else { continue };
        if let (Some(est), Some(actual)) = (t.est_s.get(), t.total.get().map(secs_ms)) {
            if est > 0.0 && crate::analysis::fleet::estimate_ratio(est, actual).is_none() {
                warnings.push(format!(
                    "{}: the estimate for {name} (est_s={est:e}) is too small to compare with its {}: actual ÷ estimate is past the largest number",
                    model::PLACEMENT,
                    timefmt::human_duration(actual)
                ));
            }
        }
    }
    warnings
}

/// The compiler cache's totals, or why there are none.
fn sccache(run: &Run) -> Measured<SccacheFigures> {
    let no_record = no_record(run, model::SCCACHE);
    let (Some(s), None) = (&run.sccache, &no_record) else {
        let present = run.input(model::SCCACHE).is_some_and(|i| i.present);
        return Measured::missing(no_record.unwrap_or_else(|| {
            if present {
                "sccache.log could not be read"
            } else {
                "no sccache.log in this run"
            }
            .into()
        }));
    };
    let l = &s.log;
    let reads = l.hits + l.misses;
    let write_bytes = if !s.sizes_known {
        Measured::missing("the log format has no $request_length, so the size of cache writes is unknown")
    } else if l.writes_unsized > 0 {
        Measured::missing(format!(
            "{} cache writes carried no size; the total is a lower bound",
            l.writes_unsized
        ))
    } else {
        Value(l.write_bytes)
    };
    Value(SccacheFigures {
        hits: l.hits,
        misses: l.misses,
        writes: l.writes,
        write_bytes,
        hit_ratio: Measured::from_option(
            (reads > 0).then(|| crate::figures::ms(l.hits as f64 / reads as f64)),
            || "no cache read (hit or miss) under this run's prefix".into(),
        ),
        writes_unsized: l.writes_unsized,
        failed_writes: l.failed_writes,
        overhead: l.overhead,
        checks: l.checks,
        other_prefix: l.other_prefix,
    })
}

/// Why the registry's log measured nothing; `None` when it measured.
fn zot_unmeasured(run: &Run) -> Option<String> {
    let no_record = no_record(run, model::ZOT);
    if run.zot.is_some() && no_record.is_none() {
        return None;
    }
    let present = run.input(model::ZOT).is_some_and(|i| i.present);
    Some(no_record.unwrap_or_else(|| {
        if present {
            "zot.jsonl could not be read"
        } else {
            "no zot.jsonl in this run"
        }
        .into()
    }))
}

/// The registry's totals, or why there are none.
fn zot(run: &Run) -> Measured<ZotFigures> {
    let z = match (&run.zot, zot_unmeasured(run)) {
        (Some(z), None) => z,
        (_, why) => return Measured::missing(why.unwrap_or_default()),
    };
    Value(ZotFigures {
        requests: z.requests,
        blob_write_bytes: z.blob_write_bytes,
        cache_write_bytes: z.cache_write_bytes,
        image_write_bytes: z.image_write_bytes,
        manifest_writes: z.manifest_writes,
        blob_writes: z.blob_writes,
        writes_unsized: z.writes_unsized,
        failed_writes: z.failed_writes,
        reads: z.reads,
        read_bytes: Measured::from_option((z.reads_unsized == 0).then_some(z.read_bytes), || {
            format!("{} successful reads carried no bodySize", z.reads_unsized)
        }),
        not_json: z.not_json,
        by_message: z.by_message.clone(),
    })
}

/// The tool, each present input's identity, the run's coordinates.
fn provenance(cx: &Context, node_order: &[String], nodes: &BTreeMap<String, NodeFigures>) -> Provenance {
    let run = cx.run;
    let coreless: Vec<&str> = node_order
        .iter()
        .filter(|n| nodes.get(*n).is_none_or(|f| f.cores.is_missing()))
        .map(String::as_str)
        .collect();
    let mut why_null = BTreeMap::new();
    if !coreless.is_empty() {
        let reason = if run.info.is_none() {
            "no run.json in this run".to_string()
        } else {
            format!("run.json gives no `cores` for {}", coreless.join(", "))
        };
        why_null.insert("nodes.cores".to_string(), reason);
    }
    Provenance {
        tool: Tool::this(),
        inputs: run
            .inputs
            .iter()
            .filter(|i| i.present)
            .map(|i| (i.name.clone(), identity(i)))
            .collect(),
        run: RunCoordinates {
            stamp: run.stamp().to_string(),
            mode: run_facts::mode(cx),
            arch: run_facts::arch(cx),
            namespace: run_facts::namespace(cx),
            sccache_prefix: run_facts::sccache_prefix(cx),
            nodes: node_order
                .iter()
                .map(|n| NodeCoordinate {
                    name: n.clone(),
                    cores: nodes.get(n).and_then(|f| f.cores.get()),
                })
                .collect(),
            job_width: run_facts::job_width(cx),
            revision: run_facts::revision(cx),
            why_null,
        },
    }
}

/// One input's identity, its missing parts said by the input's own report.
pub(crate) fn identity(i: &InputReport) -> InputIdentity {
    fn part<T: Clone>(m: &Option<Measured<T>>) -> Measured<T> {
        m.clone()
            .unwrap_or_else(|| Missing("the input's identity was not recorded".into()))
    }
    InputIdentity {
        bytes: part(&i.bytes),
        mtime: part(&i.mtime),
        xxh3: part(&i.xxh3),
        read_as: part(&i.format),
        why_null: WhyNull,
        source: i.source.as_ref().map(|s| crate::figures::provenance::ServerRead {
            server: s.server.clone(),
            start: s.start.clone(),
            end: s.end.clone(),
            step_s: s.step_s,
            queries: s.queries.clone(),
            points: s.points,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::lines::{parse_bytes, LineSink, Tail};
    use crate::model::RunSamples;

    /// Three nodes polled every 5 s, a few polls out of order, a counter
    /// reset, a gap and a duplicate poll on one node.
    fn text() -> String {
        let mut lines = vec![];
        for i in 0..3000u64 {
            for n in 0..3u64 {
                let mut ts = 1_790_000_000 + 5 * i + if i >= 2000 { 120 } else { 0 };
                if n == 0 && i == 1500 {
                    ts -= 5;
                }
                let total = if n == 1 && i == 900 { 1 } else { 40 * i + n };
                let idle = 10 * i + (i * n) % 7;
                lines.push(format!(
                    r#"{{"ts":{ts},"node":"n{n}","cpu":{{"user":{},"idle":{idle}}},"mem":{{"total":100,"available":{}}},"net":{{"tx":{}}},"load1":{}}}"#,
                    total.saturating_sub(idle),
                    (i * 13 + n) % 90,
                    i * 1000,
                    (i % 17) as f64 / 4.0
                ));
            }
        }
        // Two polls swapped across where a chunk ends.
        lines.swap(4000, 4006);
        lines.join("\n")
    }

    #[test]
    fn a_summarised_node_has_the_figures_of_all_its_polls_at_once() {
        let text = text();
        let (parts, _) = parse_bytes(text.as_bytes(), Tail::Complete, || RunSamples::with_cap(256));
        let mut folded = RunSamples::with_cap(256);
        folded.append_block(parts);
        folded.finish();
        let (mut whole, _) = parse_bytes(text.as_bytes(), Tail::Complete, || RunSamples::with_cap(usize::MAX));
        whole.finish();
        for (name, n) in &folded.by_node {
            assert!(n.summary.is_some() && n.polls.len() < 256, "{name} is summarised");
            let all = &whole.by_node[name];
            assert!(all.summary.is_none() && all.polls.len() == 3000);
            let got = node_series(n);
            // The gap rule from the first polls is the rule from all of them here.
            assert_eq!(got, nodes::analyse(&all.polls), "{name}");
            assert!(got.gaps == 1 && got.cpu_pct_mean.is_some());
        }
        assert_eq!(node_series(&folded.by_node["n1"]).counter_resets, 1);
        assert_eq!(node_series(&folded.by_node["n0"]).duplicate_polls, 1);
    }
}
