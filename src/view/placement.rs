//! What `placement.json` serialises (and data.json's `placement`): the
//! balancer's costs as this run measured them, each node's link, and the
//! balancer's rule replayed on them. Built from the rest of the view (the
//! per-target figures and upload bytes are already there) and placement.txt;
//! the rules live in `analysis::costs` and `analysis::replay`.

use super::{human_bytes, r3, TargetView, View};
use crate::analysis::costs::{self, Upload};
use crate::analysis::replay::{self, Job, Machine, Refusal};
use crate::figures::Metric;
use crate::input::placement::Placement;
use crate::input::run_json::Mode;
use crate::model::{self, Run};
use crate::timefmt::human_duration as dur;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

pub(crate) const SCHEMA: u32 = 1;

type Why = BTreeMap<String, String>;

/// Where a figure comes from, and how many measurements it rests on.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct FigureSource {
    pub(crate) from: String,
    pub(crate) n: u32,
}

fn source(from: impl Into<String>, n: u32) -> FigureSource {
    FigureSource { from: from.into(), n }
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct PlacementView {
    pub(crate) schema: u32,
    pub(crate) stamp: String,
    pub(crate) mode: Option<Mode>,
    /// What the export figures are in a run of this kind.
    pub(crate) run_kind: String,
    pub(crate) targets: Vec<TargetCost>,
    pub(crate) nodes: Vec<NodeLink>,
    pub(crate) replay: ReplayView,
    /// Whether the balancer's prices or its packing were off.
    pub(crate) verdict: BalancerVerdict,
    /// Medians over runs at the same coordinates (`placement --history`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) history: Option<CostHistory>,
    /// Bad input, each named: what could not be used, and what was done instead.
    pub(crate) problems: Vec<String>,
    pub(crate) why_null: Why,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct TargetCost {
    pub(crate) name: String,
    pub(crate) node: Option<String>,
    /// The targets it waits for (placement.txt `after=`).
    pub(crate) after: Vec<String>,
    /// Its own steps, from its trace.
    pub(crate) build_s: Option<f64>,
    /// What its export weighs: its upload bytes, where the run kind lets them say so.
    pub(crate) cache_bytes: Option<u64>,
    /// The kind of run `cache_bytes` came from.
    pub(crate) cache_bytes_run: Option<Mode>,
    /// What it uploaded in this run, which the replay prices.
    pub(crate) uploaded_bytes: Option<u64>,
    /// The balancer's estimate and its inputs (placement.txt).
    pub(crate) est_s: Option<f64>,
    pub(crate) balancer_build_s: Option<f64>,
    pub(crate) balancer_cache_bytes: Option<u64>,
    /// What it took: its whole record.
    pub(crate) took_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) history: Option<TargetHistory>,
    pub(crate) sources: BTreeMap<String, FigureSource>,
    pub(crate) why_null: Why,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct NodeLink {
    pub(crate) name: String,
    /// The fleet's declaration (run.json), else the balancer's (placement.txt).
    pub(crate) link_mbps_declared: Option<f64>,
    /// What the balancer priced uploads at on this node (placement.txt).
    pub(crate) link_mbps_balancer: Option<f64>,
    /// Bytes over upload time of its targets' uploads.
    pub(crate) link_mbps_measured: Option<f64>,
    pub(crate) link_n: u32,
    /// The link the replay prices uploads at: measured, else declared.
    pub(crate) link_mbps_priced: Option<f64>,
    /// Measured far from a declaration.
    pub(crate) far: bool,
    pub(crate) says: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) history: Option<Median>,
    pub(crate) sources: BTreeMap<String, FigureSource>,
    pub(crate) why_null: Why,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct ReplayView {
    /// Why the replay could not run (then its figures are null).
    pub(crate) why: Option<String>,
    pub(crate) estimate: String,
    pub(crate) ignores: Vec<String>,
    pub(crate) actual_wall_s: Option<f64>,
    /// The placement as it ran, priced on the measured costs.
    pub(crate) placed_wall_s: Option<f64>,
    /// The balancer's rule on the measured costs.
    pub(crate) packed_wall_s: Option<f64>,
    /// placed − packed: what the packing saves on the same prices.
    pub(crate) saved_s: Option<f64>,
    pub(crate) moves: Vec<MoveView>,
    pub(crate) packed: Vec<SlotView>,
    pub(crate) left_out: Vec<LeftOutTarget>,
    pub(crate) sources: BTreeMap<String, FigureSource>,
    pub(crate) why_null: Why,
}

/// The balancer judged on its own terms: its prices (its estimate of each
/// target against what the target took) and its packing (its own rule on
/// its own prices, against the placement it made priced the same way).
#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct BalancerVerdict {
    /// The targets whose record took more than half again, or less than
    /// two thirds, of the balancer's estimate.
    pub(crate) prices_off: Vec<String>,
    /// The targets whose estimate and record could both be compared.
    pub(crate) prices_n: u32,
    /// The placement as it ran, on the balancer's own prices.
    pub(crate) own_placed_wall_s: Option<f64>,
    /// The balancer's rule on its own prices.
    pub(crate) own_packed_wall_s: Option<f64>,
    /// Its rule on its own prices ends sooner than the placement it made.
    pub(crate) packing_off: Option<bool>,
    /// The finding in words.
    pub(crate) says: String,
    pub(crate) why_null: Why,
}

/// The packing is off when its own rule on its own prices ends this much
/// sooner (a share of the placement's makespan): list schedules tie loosely.
const PACKING_SLACK: f64 = 0.02;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct MoveView {
    pub(crate) target: String,
    pub(crate) from: String,
    pub(crate) to: String,
    /// Its price there minus its price here.
    pub(crate) saves_s: f64,
    pub(crate) cost_from_s: f64,
    pub(crate) cost_to_s: f64,
    pub(crate) bytes: u64,
    /// The move in words.
    pub(crate) says: String,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct SlotView {
    pub(crate) target: String,
    pub(crate) node: String,
    pub(crate) start_s: f64,
    pub(crate) end_s: f64,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct LeftOutTarget {
    pub(crate) target: String,
    pub(crate) why: String,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct CostHistory {
    pub(crate) root: String,
    pub(crate) mode: Option<Mode>,
    pub(crate) arch: Option<String>,
    pub(crate) max_jobs: Option<u32>,
    /// The runs the medians are over, this one included.
    pub(crate) runs: Vec<String>,
    /// Runs under the root left out, each with why.
    pub(crate) left_out: Vec<String>,
    pub(crate) why_null: Why,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct TargetHistory {
    pub(crate) build_s: Median,
    pub(crate) cache_bytes: Median,
}

#[derive(Debug, Clone, Serialize, Default)]
pub(crate) struct Median {
    pub(crate) median: Option<f64>,
    pub(crate) n: u32,
    pub(crate) why_null: Why,
}

const ESTIMATE: &str = "An estimate, not a measurement: the balancer's rule (longest target first, each on the node where build + export bytes ÷ link ends soonest, after the targets it waits for) replayed on this run's measured costs, beside the placement as it ran priced the same way";

const IGNORES: [&str; 4] = [
    "contention (targets sharing a node, uploads sharing the store)",
    "the layer and compiler cache a moved target loses on a new node",
    "node speed (build seconds are those measured on the node each target ran on)",
    "setup and the export's time other than uploading",
];

/// placement.txt's lines indexed once, the last line winning (as in the
/// report): thousands of lines must cost a lookup per question, not a scan.
struct Lines<'a> {
    by_target: BTreeMap<&'a str, &'a Placement>,
    /// The link the balancer priced each node at: the last line giving one.
    link_by_node: BTreeMap<&'a str, f64>,
}

impl<'a> Lines<'a> {
    fn of(run: &'a Run) -> Self {
        let mut link_by_node = BTreeMap::new();
        for p in &run.placements {
            if let Some(l) = p.link_mbps {
                link_by_node.insert(p.node.as_str(), l);
            }
        }
        Lines {
            by_target: run.placements.iter().map(|p| (p.target.as_str(), p)).collect(),
            link_by_node,
        }
    }

    fn get(&self, target: &str) -> Option<&'a Placement> {
        self.by_target.get(target).copied()
    }

    fn link_of(&self, node: &str) -> Option<f64> {
        self.link_by_node.get(node).copied()
    }
}

/// The placement view of a built view (everything but `history`).
pub(crate) fn build(view: &View, run: &Run) -> PlacementView {
    let lines = Lines::of(run);
    let mut problems = lines_without_costs(run);
    let mut targets: Vec<TargetCost> = view
        .targets
        .iter()
        .map(|t| target_cost(t, view.mode.get(), lines.get(&t.name)))
        .collect();
    targets.sort_by(|a, b| a.name.cmp(&b.name));
    let nodes = node_links(view, run, &lines, &mut problems);
    let replay = replay_view(view, run, &targets, &nodes, &mut problems);
    let verdict = verdict(view, run, &targets, &nodes);
    let mut why = Why::new();
    if view.mode.is_missing() {
        why.insert("mode".into(), mode_unknown(run));
    }
    PlacementView {
        schema: SCHEMA,
        stamp: view.stamp.clone(),
        mode: view.mode.get(),
        run_kind: run_kind(view.mode.get()),
        targets,
        nodes,
        replay,
        verdict,
        history: None,
        problems,
        why_null: why,
    }
}

fn mode_unknown(run: &Run) -> String {
    if run.info.is_some() {
        "run.json has no `mode`".into()
    } else {
        "no run.json in this run".into()
    }
}

fn run_kind(mode: Option<Mode>) -> String {
    match mode {
        Some(Mode::Warm) => "warm run: each export's bytes are what the balancer prices".into(),
        Some(Mode::Cold) => "cold run: the harness clears the export, so an export's bytes here are what was left of it (a warm run's are what the balancer prices)".into(),
        None => "run kind unknown (no run.json mode): whether an export's bytes are what the balancer prices is not known".into(),
    }
}

/// Placement lines that do not carry the balancer's costs, each named.
fn lines_without_costs(run: &Run) -> Vec<String> {
    run.placements
        .iter()
        .filter_map(|p| {
            let missing: Vec<&str> = [
                (Metric::Build.name(), p.build_s.is_none()),
                ("cache_bytes", p.cache_bytes.is_none()),
                ("link_mbps", p.link_mbps.is_none()),
                ("est_s", p.est_s.is_none()),
            ]
            .iter()
            .filter(|(_, m)| *m)
            .map(|(k, _)| *k)
            .collect();
            (!missing.is_empty()).then(|| {
                format!(
                    "{}: the line for {} has no {}: the balancer's cost cannot be set beside the measured one",
                    model::PLACEMENT,
                    p.target,
                    missing.join(", ")
                )
            })
        })
        .collect()
}

/// Why a figure of a target's record is not final: its record has not ended.
fn not_ended(t: &TargetView) -> Option<String> {
    // No figures at all is no trace, not a record still open.
    if !t.end.is_missing() || t.steps_total.is_missing() {
        return None;
    }
    let why = t.end.why().or(t.total_s.why());
    Some(match why {
        Some(w) => format!("its record has not ended ({w}): what it measured so far is not its cost"),
        None => "its record has not ended: what it measured so far is not its cost".into(),
    })
}

fn why_of<T>(m: &crate::figures::Measured<T>, field: &str) -> String {
    m.why()
        .map(str::to_string)
        .unwrap_or_else(|| format!("{field} was not measured"))
}

fn upload_source(t: &TargetView) -> String {
    // Said of the target, not naming it: the same source reads the same for every target.
    match t.upload_bytes_source.as_deref() {
        Some("trace") => "its trace: sizes on its upload spans".into(),
        Some("registry") => format!("{}: 2xx writes from its node's address during its record", model::ZOT),
        _ => "its upload".into(),
    }
}

fn target_cost(t: &TargetView, mode: Option<Mode>, line: Option<&Placement>) -> TargetCost {
    let mut c = TargetCost {
        name: t.name.clone(),
        node: t.node.value().cloned(),
        after: line.map(after_of).unwrap_or_default(),
        ..Default::default()
    };
    measured_costs(&mut c, t, mode);
    balancer_costs(&mut c, line);
    c
}

fn measured_costs(c: &mut TargetCost, t: &TargetView, mode: Option<Mode>) {
    let ended = not_ended(t);
    let trace = "its trace (`trace-<target>.json`)";
    match (&ended, t.build_s.get()) {
        (None, Some(b)) => {
            c.build_s = Some(b);
            let from = format!("{trace}: first step's start to last step's end");
            c.sources.insert(Metric::Build.name().into(), source(from, 1));
        }
        (Some(w), _) => {
            c.why_null.insert(Metric::Build.name().into(), w.clone());
        }
        (None, None) => {
            c.why_null
                .insert(Metric::Build.name().into(), why_of(&t.build_s, Metric::Build.name()));
        }
    }
    match (&ended, t.total_s.get()) {
        (None, Some(s)) => {
            c.took_s = Some(s);
            c.sources
                .insert("took_s".into(), source(format!("{trace}: its root span"), 1));
        }
        (Some(w), _) => {
            c.why_null.insert("took_s".into(), w.clone());
        }
        (None, None) => {
            c.why_null
                .insert("took_s".into(), why_of(&t.total_s, Metric::Total.name()));
        }
    }
    match ended {
        None => measured_export(c, t, mode),
        Some(w) => {
            for k in ["uploaded_bytes", "cache_bytes", "cache_bytes_run"] {
                c.why_null.insert(k.into(), w.clone());
            }
        }
    }
}

/// What an ended record uploaded, and what that says of its export's weight.
fn measured_export(c: &mut TargetCost, t: &TargetView, mode: Option<Mode>) {
    // A trace without a single upload span measured an upload of nothing,
    // whether or not any input could size uploads.
    let uploaded = match (t.upload_bytes.get(), t.upload_s.get()) {
        (Some(b), _) => Some((b, upload_source(t))),
        (None, Some(0.0)) => Some((0, "its trace: no upload span".to_string())),
        _ => None,
    };
    let Some((bytes, from)) = uploaded else {
        let w = why_of(&t.upload_bytes, crate::figures::Alongside::UploadBytes.name());
        for k in ["uploaded_bytes", "cache_bytes", "cache_bytes_run"] {
            c.why_null.insert(k.into(), w.clone());
        }
        return;
    };
    c.uploaded_bytes = Some(bytes);
    c.sources.insert("uploaded_bytes".into(), source(from.clone(), 1));
    match costs::export_bytes(mode, bytes) {
        Ok(b) => {
            c.cache_bytes = Some(b);
            c.cache_bytes_run = mode;
            c.sources.insert("cache_bytes".into(), source(from, 1));
            if mode.is_none() {
                c.why_null
                    .insert("cache_bytes_run".into(), "run.json gives no mode".into());
            }
        }
        Err(w) => {
            c.why_null.insert("cache_bytes".into(), w.into());
            c.why_null.insert("cache_bytes_run".into(), w.into());
        }
    }
}

fn balancer_costs(c: &mut TargetCost, line: Option<&Placement>) {
    let Some(p) = line else {
        let w = format!("{} has no line for {}", model::PLACEMENT, c.name);
        for k in ["node", "est_s", "balancer_build_s", "balancer_cache_bytes"] {
            c.why_null.insert(k.into(), w.clone());
        }
        return;
    };
    let mut put = |field: &str, key: &str, known: bool| {
        if known {
            c.sources
                .insert(field.into(), source(format!("{}: `{key}=`", model::PLACEMENT), 1));
        } else {
            c.why_null.insert(
                field.into(),
                format!("{}'s line for {} has no `{key}=`", model::PLACEMENT, c.name),
            );
        }
    };
    put("est_s", "est_s", p.est_s.is_some());
    put("balancer_build_s", Metric::Build.name(), p.build_s.is_some());
    put("balancer_cache_bytes", "cache_bytes", p.cache_bytes.is_some());
    c.est_s = p.est_s;
    c.balancer_build_s = p.build_s;
    c.balancer_cache_bytes = p.cache_bytes;
}

/// `after=`: the target a line waits for, one name as the spec writes it
/// (a name may hold a comma: it is not a list).
fn after_of(p: &Placement) -> Vec<String> {
    p.after.iter().filter(|a| !a.is_empty()).cloned().collect()
}

/// The fleet the balancer packs: run.json's nodes and placement.txt's.
fn fleet_names(run: &Run) -> Vec<String> {
    let mut names: BTreeSet<String> = run.placements.iter().map(|p| p.node.clone()).collect();
    if let Some(i) = &run.info {
        names.extend(i.nodes.iter().map(|n| n.name.clone()));
    }
    names.into_iter().collect()
}

fn node_links(view: &View, run: &Run, lines: &Lines, problems: &mut Vec<String>) -> Vec<NodeLink> {
    // run.json's first entry for a node, as the report reads it.
    let mut declared_by_node: BTreeMap<&str, Option<f64>> = BTreeMap::new();
    for n in run.info.iter().flat_map(|i| i.nodes.iter()) {
        declared_by_node.entry(n.name.as_str()).or_insert(n.link_mbps);
    }
    let declared = |name: &str| declared_by_node.get(name).copied().flatten();
    let mut by_node: BTreeMap<&str, Vec<&TargetView>> = BTreeMap::new();
    for t in &view.targets {
        if let Some(n) = t.node.value() {
            by_node.entry(n.as_str()).or_default().push(t);
        }
    }
    fleet_names(run)
        .into_iter()
        .map(|name| {
            let mine = by_node.get(name.as_str()).map(Vec::as_slice).unwrap_or_default();
            let link = node_link(name, mine, &declared, lines);
            if link.link_mbps_declared.is_none() {
                problems.push(format!(
                    "node {}: no link declared (no `link_mbps` in run.json or placement.txt){}",
                    link.name,
                    if link.link_mbps_measured.is_some() {
                        "; the replay prices it at the measured link"
                    } else {
                        "; the replay puts there only targets that upload nothing"
                    }
                ));
            }
            link
        })
        .collect()
}

fn node_link(name: String, mine: &[&TargetView], declared: &impl Fn(&str) -> Option<f64>, lines: &Lines) -> NodeLink {
    let mut n = NodeLink {
        link_mbps_balancer: lines.link_of(&name),
        ..Default::default()
    };
    match (declared(&name), n.link_mbps_balancer) {
        (Some(d), _) => {
            n.link_mbps_declared = Some(d);
            n.sources
                .insert("link_mbps_declared".into(), source("run.json: `link_mbps`", 1));
        }
        (None, Some(b)) => {
            n.link_mbps_declared = Some(b);
            n.sources.insert(
                "link_mbps_declared".into(),
                source("placement.txt: `link_mbps=` (run.json declares none)", 1),
            );
        }
        (None, None) => {
            n.why_null.insert(
                "link_mbps_declared".into(),
                "neither run.json nor placement.txt gives its `link_mbps`".into(),
            );
        }
    }
    if n.link_mbps_balancer.is_some() {
        n.sources
            .insert("link_mbps_balancer".into(), source("placement.txt: `link_mbps=`", 1));
    } else {
        n.why_null.insert(
            "link_mbps_balancer".into(),
            format!("no placement.txt line on {name} gives `link_mbps=`"),
        );
    }
    measure_link(&mut n, &name, mine);
    n.name = name;
    judge_link(&mut n);
    n
}

fn measure_link(n: &mut NodeLink, name: &str, mine: &[&TargetView]) {
    let ended: Vec<&&TargetView> = mine.iter().filter(|t| !t.end.is_missing()).collect();
    let uploads: Vec<Upload> = ended
        .iter()
        .filter_map(|t| {
            Some(Upload {
                bytes: t.upload_bytes.get()?,
                secs: t.upload_s.get()?,
            })
        })
        .collect();
    let Some(rate) = costs::link_rate(&uploads) else {
        let why = if mine.is_empty() {
            format!("no target ran on {name}")
        } else if ended.is_empty() {
            format!("no record on {name} has ended yet")
        } else {
            format!("no ended record on {name} uploaded a known number of bytes for a measurable time")
        };
        n.why_null.insert("link_mbps_measured".into(), why);
        return;
    };
    let used: Vec<&str> = ended
        .iter()
        .filter(|t| t.upload_bytes.get().is_some_and(|b| b > 0) && t.upload_s.get().is_some_and(|s| s > 0.0))
        .map(|t| t.name.as_str())
        .collect();
    n.link_mbps_measured = Some(sig6(rate.mbps));
    n.link_n = rate.n;
    n.sources.insert(
        "link_mbps_measured".into(),
        source(
            format!("uploads of {}: bytes over upload time", used.join(", ")),
            rate.n,
        ),
    );
}

/// The link the replay prices at, and whether the measurement is far from a declaration.
fn judge_link(n: &mut NodeLink) {
    n.link_mbps_priced = n.link_mbps_measured.or(n.link_mbps_declared);
    let (priced_from, count) = if n.link_mbps_measured.is_some() {
        ("measured", n.link_n)
    } else {
        ("declared", 1)
    };
    if n.link_mbps_priced.is_some() {
        n.sources.insert("link_mbps_priced".into(), source(priced_from, count));
    } else {
        n.why_null.insert(
            "link_mbps_priced".into(),
            "no link measured or declared: only targets that upload nothing can be priced here".into(),
        );
    }
    let Some(m) = n.link_mbps_measured else { return };
    let mut claims = vec![];
    if let Some(d) = n.link_mbps_declared {
        claims.push(("declared", d));
    }
    if let Some(b) = n.link_mbps_balancer.filter(|b| Some(*b) != n.link_mbps_declared) {
        claims.push(("the balancer's", b));
    }
    for (whose, d) in claims {
        if let Some(ratio) = costs::link_far(d, m) {
            n.far = true;
            n.says.push(format!(
                "measured {} over {} upload{} is {ratio:.2}× {whose} {}",
                rate(m),
                n.link_n,
                if n.link_n == 1 { "" } else { "s" },
                rate(d)
            ));
        }
    }
}

fn replay_view(
    view: &View,
    run: &Run,
    targets: &[TargetCost],
    nodes: &[NodeLink],
    problems: &mut Vec<String>,
) -> ReplayView {
    let mut r = ReplayView {
        estimate: ESTIMATE.into(),
        ignores: IGNORES.iter().map(|s| s.to_string()).collect(),
        actual_wall_s: view.fleet.wall_s.get(),
        ..Default::default()
    };
    match view.fleet.wall_s.get() {
        Some(_) => {
            r.sources
                .insert("actual_wall_s".into(), source("the run's window (see Fleet)", 1));
        }
        None => {
            r.why_null
                .insert("actual_wall_s".into(), "the run's time window is unknown".into());
        }
    }
    let names: BTreeSet<&str> = targets.iter().map(|t| t.name.as_str()).collect();
    if let Some(why) = cannot_replay(run, targets, &names, problems) {
        r.why = Some(why);
        return r;
    }
    let (jobs, left_out) = jobs_of(view, targets, nodes, &names, problems);
    r.left_out = left_out;
    if jobs.is_empty() {
        r.why = Some("no target has both a node and a measured cost".into());
        return r;
    }
    let machines: Vec<Machine> = nodes
        .iter()
        .map(|n| Machine {
            name: n.name.clone(),
            link_mbps: n.link_mbps_priced,
        })
        .collect();
    match replay::replay(&jobs, &machines) {
        Ok(out) => fill_replay(&mut r, &out, &jobs, nodes),
        Err(refusal) => r.why = Some(refused(&refusal)),
    }
    r
}

/// What the verdict says of the balancer's prices: none to judge, all
/// held, or which targets took well beyond their estimate.
fn prices_said(v: &BalancerVerdict, targets: &[TargetCost]) -> String {
    match (v.prices_off.len(), v.prices_n) {
        (_, 0) => "no estimate could be set against a record".to_string(),
        (0, n) => {
            format!("its prices held: every one of the {n} estimates was within half again of what the target took")
        }
        (k, n) => {
            let worst: Vec<String> = v
                .prices_off
                .iter()
                .filter_map(|name| targets.iter().find(|t| &t.name == name))
                .filter_map(|t| {
                    Some(format!(
                        "{} took {} for {} estimated",
                        t.name,
                        dur(t.took_s?),
                        dur(t.est_s?)
                    ))
                })
                .collect();
            format!("its prices were off for {k} of {n} targets ({})", worst.join("; "))
        }
    }
}

/// Whether the balancer's prices or its packing were off, each on its own
/// terms: its estimates against the records, and its rule replayed on its
/// own prices (placement.txt's `build_s`, `cache_bytes`, `link_mbps`).
fn verdict(view: &View, run: &Run, targets: &[TargetCost], nodes: &[NodeLink]) -> BalancerVerdict {
    let mut v = BalancerVerdict::default();
    for t in targets {
        if let (Some(est), Some(took)) = (t.est_s, t.took_s) {
            v.prices_n += 1;
            if crate::analysis::fleet::estimate_miss(&t.name, est, took).is_some() {
                v.prices_off.push(t.name.clone());
            }
        }
    }
    let packing = own_replay(view, run, targets, nodes);
    let prices = prices_said(&v, targets);
    let packing = packing_said(&mut v, packing);
    let prices_off = (v.prices_n > 0).then_some(!v.prices_off.is_empty());
    let head = match (prices_off, v.packing_off) {
        (Some(true), Some(false)) => "The balancer's prices were off, not its packing",
        (Some(false), Some(true)) => "The balancer's packing was off, not its prices",
        (Some(true), Some(true)) => "Both the balancer's prices and its packing were off",
        (Some(false), Some(false)) => "The balancer's prices and its packing both held",
        _ => "The balancer on its own terms",
    };
    v.says = format!("{head}: {prices}; {packing}.");
    v
}

/// The balancer's rule replayed on its own prices (placement.txt's
/// `build_s`, `cache_bytes`, `link_mbps`), or why it cannot be.
fn own_replay(view: &View, run: &Run, targets: &[TargetCost], nodes: &[NodeLink]) -> Result<replay::Replay, String> {
    let names: BTreeSet<&str> = targets.iter().map(|t| t.name.as_str()).collect();
    let started: BTreeMap<&str, Option<f64>> = view
        .targets
        .iter()
        .map(|t| (t.name.as_str(), t.start_s.get()))
        .collect();
    let mut jobs = vec![];
    let mut unpriced = vec![];
    for t in targets {
        match (&t.node, t.balancer_build_s, t.balancer_cache_bytes) {
            (Some(node), Some(build_s), Some(bytes)) => jobs.push(Job {
                name: t.name.clone(),
                build_s,
                bytes,
                after: t.after.iter().filter(|a| names.contains(a.as_str())).cloned().collect(),
                node: node.clone(),
                started_s: started.get(t.name.as_str()).copied().flatten(),
            }),
            _ => unpriced.push(t.name.as_str()),
        }
    }
    let machines: Vec<Machine> = nodes
        .iter()
        .map(|n| Machine {
            name: n.name.clone(),
            link_mbps: n.link_mbps_balancer,
        })
        .collect();
    if run.in_flight() {
        Err("the run is in flight: the placement is not complete".to_string())
    } else if !unpriced.is_empty() {
        Err(format!(
            "placement.txt does not price {} (`build_s=` and `cache_bytes=`)",
            unpriced.join(", ")
        ))
    } else if jobs.is_empty() {
        Err("no target is placed".to_string())
    } else {
        replay::replay(&jobs, &machines).map_err(|r| refused(&r))
    }
}

/// What the verdict says of the balancer's packing, its figures set on `v`
/// (or, when the replay could not run, why they are null).
fn packing_said(v: &mut BalancerVerdict, packing: Result<replay::Replay, String>) -> String {
    match packing {
        Ok(out) => {
            let (placed, packed) = (out.placed.makespan(), out.packed.makespan());
            v.own_placed_wall_s = Some(r3(placed));
            v.own_packed_wall_s = Some(r3(packed));
            let off = packed < placed * (1.0 - PACKING_SLACK);
            v.packing_off = Some(off);
            if off {
                format!(
                    "its packing was off: on its own prices its rule ends in {}, the placement it made in {}",
                    dur(packed),
                    dur(placed)
                )
            } else {
                format!(
                    "its packing followed its rule: on its own prices the placement it made ends in {}, its rule in {}",
                    dur(placed),
                    dur(packed)
                )
            }
        }
        Err(why) => {
            for f in ["own_placed_wall_s", "own_packed_wall_s", "packing_off"] {
                v.why_null.insert(f.into(), why.clone());
            }
            format!("its packing cannot be judged ({why})")
        }
    }
}

/// Why the whole replay cannot run: a run in flight, an `after=` cycle.
fn cannot_replay(
    run: &Run,
    targets: &[TargetCost],
    names: &BTreeSet<&str>,
    problems: &mut Vec<String>,
) -> Option<String> {
    if run.in_flight() {
        return Some(
            "the run is in flight: a target still building has no final cost yet, so the replay waits for the run's end"
                .into(),
        );
    }
    for t in targets {
        for a in t.after.iter().filter(|a| !names.contains(a.as_str())) {
            problems.push(format!(
                "{}: {} waits for {a} (`after=`), which is not a target of this run: the wait is ignored",
                model::PLACEMENT,
                t.name
            ));
        }
    }
    let edges: Vec<(String, Vec<String>)> = targets.iter().map(|t| (t.name.clone(), t.after.clone())).collect();
    let cycle = replay::find_cycle(&edges)?;
    let why = refused(&Refusal::Cycle(cycle));
    problems.push(format!("{}: {why}", model::PLACEMENT));
    Some(why)
}

fn refused(r: &Refusal) -> String {
    match r {
        Refusal::Cycle(c) => format!(
            "`after=` goes round ({} → {}): no order satisfies it, so the replay cannot run",
            c.join(" → "),
            c.first().map(String::as_str).unwrap_or_default()
        ),
        Refusal::TooLarge { jobs, machines } => format!(
            "{jobs} targets on {machines} nodes: more pairs than the replay weighs (at most {})",
            replay::MAX_PAIRS
        ),
        Refusal::Unpriced { job, node } => {
            format!("{job}'s upload cannot be priced on {node}, where it ran: its link is unknown")
        }
    }
}

/// The targets the replay can price, and the others with why.
fn jobs_of(
    view: &View,
    targets: &[TargetCost],
    nodes: &[NodeLink],
    names: &BTreeSet<&str>,
    problems: &mut Vec<String>,
) -> (Vec<Job>, Vec<LeftOutTarget>) {
    let started: BTreeMap<&str, Option<f64>> = view
        .targets
        .iter()
        .map(|t| (t.name.as_str(), t.start_s.get()))
        .collect();
    let priced: BTreeMap<&str, Option<f64>> = nodes.iter().map(|n| (n.name.as_str(), n.link_mbps_priced)).collect();
    let unpriced = |node: &str, bytes: u64| bytes > 0 && priced.get(node).copied().flatten().is_none();
    let mut jobs = vec![];
    let mut left_out = vec![];
    for t in targets {
        let why = |f: &str| t.why_null.get(f).cloned().unwrap_or_default();
        match (&t.node, t.build_s, t.uploaded_bytes) {
            (Some(node), Some(_), Some(bytes)) if unpriced(node, bytes) => left_out.push(LeftOutTarget {
                target: t.name.clone(),
                why: format!(
                    "its {} export cannot be priced on {node}, where it ran: no link measured or declared there",
                    human_bytes(bytes as f64)
                ),
            }),
            (Some(node), Some(build_s), Some(bytes)) => jobs.push(Job {
                name: t.name.clone(),
                build_s,
                bytes,
                after: t.after.iter().filter(|a| names.contains(a.as_str())).cloned().collect(),
                node: node.clone(),
                started_s: started.get(t.name.as_str()).copied().flatten(),
            }),
            (None, _, _) => left_out.push(LeftOutTarget {
                target: t.name.clone(),
                why: format!("where it ran is not known: {}", why("node")),
            }),
            (_, None, _) => left_out.push(LeftOutTarget {
                target: t.name.clone(),
                why: format!("its build is not measured: {}", why(Metric::Build.name())),
            }),
            (_, _, None) => left_out.push(LeftOutTarget {
                target: t.name.clone(),
                why: format!("its upload is not measured: {}", why("uploaded_bytes")),
            }),
        }
    }
    let kept: BTreeSet<&str> = jobs.iter().map(|j| j.name.as_str()).collect();
    for t in targets.iter().filter(|t| kept.contains(t.name.as_str())) {
        for a in t
            .after
            .iter()
            .filter(|a| names.contains(a.as_str()) && !kept.contains(a.as_str()))
        {
            problems.push(format!(
                "{} waits for {a} (`after=`), which the replay leaves out: the wait is ignored",
                t.name
            ));
        }
    }
    (jobs, left_out)
}

fn fill_replay(r: &mut ReplayView, out: &replay::Replay, jobs: &[Job], nodes: &[NodeLink]) {
    let (placed, packed) = (out.placed.makespan(), out.packed.makespan());
    r.placed_wall_s = Some(r3(placed));
    r.packed_wall_s = Some(r3(packed));
    r.saved_s = Some(r3(placed - packed));
    let n = jobs.len() as u32;
    r.sources.insert(
        "placed_wall_s".into(),
        source("the placement as it ran, priced at measured build + bytes ÷ link", n),
    );
    r.sources.insert(
        "packed_wall_s".into(),
        source("the balancer's rule on measured build + bytes ÷ link", n),
    );
    r.sources
        .insert("saved_s".into(), source("placed_wall_s − packed_wall_s", n));
    r.packed = out
        .packed
        .slots
        .iter()
        .map(|s| SlotView {
            target: s.job.clone(),
            node: s.node.clone(),
            start_s: r3(s.start_s),
            end_s: r3(s.end_s),
        })
        .collect();
    let by_node: BTreeMap<&str, &NodeLink> = nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let link = |name: &str| by_node.get(name).copied();
    let bytes_of: BTreeMap<&str, u64> = jobs.iter().map(|j| (j.name.as_str(), j.bytes)).collect();
    r.moves = out
        .moves
        .iter()
        .map(|m| {
            let bytes = bytes_of.get(m.job.as_str()).copied().unwrap_or(0);
            MoveView {
                target: m.job.clone(),
                from: m.from.clone(),
                to: m.to.clone(),
                saves_s: r3(m.saves_s()),
                cost_from_s: r3(m.cost_from_s),
                cost_to_s: r3(m.cost_to_s),
                bytes,
                says: move_says(m, bytes, link(&m.from), link(&m.to)),
            }
        })
        .collect();
}

/// A link in MB/s as people read a rate: "2.8 MB/s", "25 B/s".
pub(crate) use crate::fmt::rate_mbps as rate;

/// Six significant digits: a rate of a few bytes a second keeps its value
/// (rounding to thousandths of a MB/s would make it 0, a measured zero).
fn sig6(x: f64) -> f64 {
    format!("{x:.5e}").parse().unwrap_or(x)
}

/// How a node's priced link reads: "think's measured 2.8 MB/s".
fn link_words(n: Option<&NodeLink>, name: &str) -> String {
    match n.and_then(|n| n.link_mbps_priced.map(|l| (l, n.link_mbps_measured.is_some()))) {
        Some((l, true)) => format!("{name}'s measured {}", rate(l)),
        Some((l, false)) => format!("{name}'s declared {}", rate(l)),
        None => format!("{name}'s unknown link"),
    }
}

fn move_says(m: &replay::Move, bytes: u64, from: Option<&NodeLink>, to: Option<&NodeLink>) -> String {
    if bytes == 0 {
        return format!(
            "it uploads nothing: {} is free sooner, and its {} build is priced the same there",
            m.to,
            dur(m.cost_to_s)
        );
    }
    let upload = |n: Option<&NodeLink>| {
        n.and_then(|n| n.link_mbps_priced)
            .map(|l| bytes as f64 / (l * 1e6))
            .unwrap_or(f64::NAN)
    };
    format!(
        "its {} export takes {} at {}; at {} about {}",
        human_bytes(bytes as f64),
        dur(upload(from)),
        link_words(from, &m.from),
        link_words(to, &m.to),
        dur(upload(to))
    )
}

/// Medians over several runs' placement views (this run's first), per
/// target and per node, each with its n; a figure no run measured is null
/// with why.
pub(crate) fn apply_history(p: &mut PlacementView, runs: &[&PlacementView], header: CostHistory) {
    let targets: Vec<BTreeMap<&str, &TargetCost>> = runs
        .iter()
        .map(|r| r.targets.iter().map(|t| (t.name.as_str(), t)).collect())
        .collect();
    let nodes: Vec<BTreeMap<&str, &NodeLink>> = runs
        .iter()
        .map(|r| r.nodes.iter().map(|n| (n.name.as_str(), n)).collect())
        .collect();
    for t in &mut p.targets {
        let same: Vec<&TargetCost> = targets.iter().filter_map(|r| r.get(t.name.as_str()).copied()).collect();
        t.history = Some(TargetHistory {
            build_s: median_of(same.iter().map(|x| x.build_s), r3, "no run measured its build"),
            cache_bytes: median_of(
                same.iter().map(|x| x.cache_bytes.map(|b| b as f64)),
                f64::round,
                "no run weighed its export",
            ),
        });
    }
    for n in &mut p.nodes {
        let links = nodes
            .iter()
            .filter_map(|r| r.get(n.name.as_str()))
            .map(|x| x.link_mbps_measured);
        n.history = Some(median_of(links, sig6, "no run measured its link"));
    }
    p.history = Some(header);
}

fn median_of(values: impl Iterator<Item = Option<f64>>, round: fn(f64) -> f64, none: &str) -> Median {
    let v: Vec<f64> = values.flatten().collect();
    let mut m = Median {
        median: costs::median(&v).map(round),
        n: v.len() as u32,
        why_null: Why::new(),
    };
    if m.median.is_none() {
        m.why_null.insert("median".into(), none.into());
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_of_a_few_bytes_a_second_keeps_its_value_and_reads_as_such() {
        // 1 kB over 40 s: 25 B/s, 2.5e-5 MB/s; thousandths would make it 0.
        assert_eq!(sig6(1000.0 / 40.0 / 1e6), 2.5e-5);
        assert_eq!(sig6(7.4e9 / 2645.0 / 1e6), 2.79773);
        assert_eq!(rate(2.5e-5), "25 B/s");
        assert_eq!(rate(2.79773), "2.8 MB/s");
    }
}
