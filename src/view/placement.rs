//! What `placement.json` serialises (and data.json's `placement`): the
//! balancer's costs as this run measured them, each node's link, and the
//! balancer's rule replayed on them. Built from the rest of the view (the
//! per-target figures and upload bytes are already there) and placement.txt;
//! the rules live in `analysis::costs` and `analysis::replay`.

use super::{human_bytes, r3, TargetView, View};
use crate::analysis::costs::{self, Upload};
use crate::analysis::replay::{self, Job, Machine, Refusal};
use crate::figures::{Measured, Metric, Missing, Value};
use crate::input::placement::Placement;
use crate::input::run_json::Mode;
use crate::measured::explained::{explained, WhyNull};
use crate::model::{self, Run};
use crate::timefmt::human_duration as dur;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

pub(crate) const SCHEMA: u32 = 1;

/// Where a figure comes from, and how many measurements it rests on.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct FigureSource {
    pub(crate) from: String,
    pub(crate) n: u32,
}

/// Each figure's source, keyed by field name.
type Sources = BTreeMap<String, FigureSource>;

fn source(from: impl Into<String>, n: u32) -> FigureSource {
    FigureSource { from: from.into(), n }
}

explained! {
    #[derive(Debug, Clone)]
    pub struct PlacementView {
        [plain] pub(crate) schema: u32,
        [plain] pub(crate) stamp: String,
        [measured] pub(crate) mode: Measured<Mode>,
        /// What the export figures are in a run of this kind.
        [plain] pub(crate) run_kind: String,
        [plain] pub(crate) targets: Vec<TargetCost>,
        [plain] pub(crate) nodes: Vec<NodeLink>,
        [plain] pub(crate) replay: ReplayView,
        /// Whether the balancer's prices or its packing were off.
        [plain] pub(crate) verdict: BalancerVerdict,
        /// Medians over runs at the same coordinates (`placement --history`).
        [skip_none] pub(crate) history: Option<CostHistory>,
        /// Bad input, each named: what could not be used, and what was done instead.
        [plain] pub(crate) problems: Vec<String>,
        [reasons] pub(crate) why_null: WhyNull,
    }
}

/// The view holds a placement from the start; `build` replaces this one.
impl Default for PlacementView {
    fn default() -> Self {
        PlacementView {
            schema: SCHEMA,
            stamp: String::new(),
            mode: Missing("the placement view was not built".into()),
            run_kind: String::new(),
            targets: vec![],
            nodes: vec![],
            replay: ReplayView::new(Missing("the placement view was not built".into())),
            verdict: BalancerVerdict::default(),
            history: None,
            problems: vec![],
            why_null: WhyNull,
        }
    }
}

explained! {
    #[derive(Debug, Clone)]
    pub(crate) struct TargetCost {
        [plain] pub(crate) name: String,
        [measured] pub(crate) node: Measured<String>,
        /// The targets it waits for (placement.txt `after=`).
        [plain] pub(crate) after: Vec<String>,
        /// Its own steps, from its trace.
        [measured] pub(crate) build_s: Measured<f64>,
        /// What its export weighs: its upload bytes, where the run kind lets them say so.
        [measured] pub(crate) cache_bytes: Measured<u64>,
        /// The kind of run `cache_bytes` came from.
        [measured] pub(crate) cache_bytes_run: Measured<Mode>,
        /// What it uploaded in this run, which the replay prices.
        [measured] pub(crate) uploaded_bytes: Measured<u64>,
        /// The balancer's estimate and its inputs (placement.txt).
        [measured] pub(crate) est_s: Measured<f64>,
        [measured] pub(crate) balancer_build_s: Measured<f64>,
        [measured] pub(crate) balancer_cache_bytes: Measured<u64>,
        /// What it took: its whole record.
        [measured] pub(crate) took_s: Measured<f64>,
        [skip_none] pub(crate) history: Option<TargetHistory>,
        [plain] pub(crate) sources: Sources,
        [reasons] pub(crate) why_null: WhyNull,
    }
}

explained! {
    #[derive(Debug, Clone)]
    pub(crate) struct NodeLink {
        [plain] pub(crate) name: String,
        /// The fleet's declaration (run.json), else the balancer's (placement.txt).
        [measured] pub(crate) link_mbps_declared: Measured<f64>,
        /// What the balancer priced uploads at on this node (placement.txt).
        [measured] pub(crate) link_mbps_balancer: Measured<f64>,
        /// Bytes over upload time of its targets' uploads.
        [measured] pub(crate) link_mbps_measured: Measured<f64>,
        [plain] pub(crate) link_n: u32,
        /// The link the replay prices uploads at: measured, else declared.
        [measured] pub(crate) link_mbps_priced: Measured<f64>,
        /// Measured far from a declaration.
        [plain] pub(crate) far: bool,
        [plain] pub(crate) says: Vec<String>,
        [skip_none] pub(crate) history: Option<Median>,
        [plain] pub(crate) sources: Sources,
        [reasons] pub(crate) why_null: WhyNull,
    }
}

explained! {
    #[derive(Debug, Clone)]
    pub(crate) struct ReplayView {
        /// Why the replay could not run (then its figures are null).
        [plain] pub(crate) why: Option<String>,
        [plain] pub(crate) estimate: String,
        [plain] pub(crate) ignores: Vec<String>,
        [measured] pub(crate) actual_wall_s: Measured<f64>,
        /// The placement as it ran, priced on the measured costs.
        [measured] pub(crate) placed_wall_s: Measured<f64>,
        /// The balancer's rule on the measured costs.
        [measured] pub(crate) packed_wall_s: Measured<f64>,
        /// placed − packed: what the packing saves on the same prices.
        [measured] pub(crate) saved_s: Measured<f64>,
        [plain] pub(crate) moves: Vec<MoveView>,
        [plain] pub(crate) packed: Vec<SlotView>,
        [plain] pub(crate) left_out: Vec<LeftOutTarget>,
        [plain] pub(crate) sources: Sources,
        [reasons] pub(crate) why_null: WhyNull,
    }
}

impl ReplayView {
    /// A replay not yet run: its figures are null for `why` until it is.
    fn new(actual_wall_s: Measured<f64>) -> ReplayView {
        let not_run = || Missing("the replay has not run".into());
        ReplayView {
            why: None,
            estimate: ESTIMATE.into(),
            ignores: IGNORES.iter().map(|s| s.to_string()).collect(),
            actual_wall_s,
            placed_wall_s: not_run(),
            packed_wall_s: not_run(),
            saved_s: not_run(),
            moves: vec![],
            packed: vec![],
            left_out: vec![],
            sources: BTreeMap::new(),
            why_null: WhyNull,
        }
    }

    /// The replay cannot run, for `why`: its figures are null for it.
    fn refuse(&mut self, why: String) {
        for f in [&mut self.placed_wall_s, &mut self.packed_wall_s, &mut self.saved_s] {
            *f = Missing(why.clone());
        }
        self.why = Some(why);
    }
}

explained! {
    /// The balancer judged on its own terms: its prices (its estimate of each
    /// target against what the target took) and its packing (its own rule on
    /// its own prices, against the placement it made priced the same way).
    #[derive(Debug, Clone)]
    pub(crate) struct BalancerVerdict {
        /// The targets whose record took more than half again, or less than
        /// two thirds, of the balancer's estimate.
        [plain] pub(crate) prices_off: Vec<String>,
        /// The targets whose estimate and record could both be compared.
        [plain] pub(crate) prices_n: u32,
        /// The placement as it ran, on the balancer's own prices.
        [measured] pub(crate) own_placed_wall_s: Measured<f64>,
        /// The balancer's rule on its own prices.
        [measured] pub(crate) own_packed_wall_s: Measured<f64>,
        /// Its rule on its own prices ends sooner than the placement it made.
        [measured] pub(crate) packing_off: Measured<bool>,
        /// The finding in words.
        [plain] pub(crate) says: String,
        [reasons] pub(crate) why_null: WhyNull,
    }
}

/// A verdict not yet reached: its packing figures are null until judged.
impl Default for BalancerVerdict {
    fn default() -> Self {
        fn not_judged<T>() -> Measured<T> {
            Missing("the packing has not been judged".into())
        }
        BalancerVerdict {
            prices_off: vec![],
            prices_n: 0,
            own_placed_wall_s: not_judged(),
            own_packed_wall_s: not_judged(),
            packing_off: not_judged(),
            says: String::new(),
            why_null: WhyNull,
        }
    }
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

explained! {
    #[derive(Debug, Clone)]
    pub(crate) struct CostHistory {
        [plain] pub(crate) root: String,
        [measured] pub(crate) mode: Measured<Mode>,
        [measured] pub(crate) arch: Measured<String>,
        [measured] pub(crate) max_jobs: Measured<u32>,
        /// The runs the medians are over, this one included.
        [plain] pub(crate) runs: Vec<String>,
        /// Runs under the root left out, each with why.
        [plain] pub(crate) left_out: Vec<String>,
        [reasons] pub(crate) why_null: WhyNull,
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetHistory {
    pub(crate) build_s: Median,
    pub(crate) cache_bytes: Median,
}

explained! {
    #[derive(Debug, Clone)]
    pub(crate) struct Median {
        [measured] pub(crate) median: Measured<f64>,
        [plain] pub(crate) n: u32,
        [reasons] pub(crate) why_null: WhyNull,
    }
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
    problems.extend(repeated_lines(run));
    let mut targets: Vec<TargetCost> = view
        .targets
        .iter()
        .map(|t| target_cost(t, view.mode.get(), lines.get(&t.name)))
        .collect();
    targets.sort_by(|a, b| a.name.cmp(&b.name));
    let nodes = node_links(view, run, &lines, &mut problems);
    let replay = replay_view(view, run, &targets, &nodes, &mut problems);
    let verdict = verdict(view, run, &targets, &nodes);
    PlacementView {
        schema: SCHEMA,
        stamp: view.stamp.clone(),
        mode: Measured::from_option(view.mode.get(), || mode_unknown(run)),
        run_kind: run_kind(view.mode.get()),
        targets,
        nodes,
        replay,
        verdict,
        history: None,
        problems,
        why_null: WhyNull,
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

/// Targets placement.txt places more than once: the last line is the one
/// read (as the report reads it), which the others' reader should know.
fn repeated_lines(run: &Run) -> Vec<String> {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &run.placements {
        *count.entry(p.target.as_str()).or_default() += 1;
    }
    count
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(target, n)| format!("{}: {n} lines for {target}: the last one is read", model::PLACEMENT))
        .collect()
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
            let said: Vec<String> = missing
                .iter()
                .map(|k| match p.unusable(k) {
                    Some(bad) => format!("usable {k} (`{k}={bad}`)"),
                    None => k.to_string(),
                })
                .collect();
            (!missing.is_empty()).then(|| {
                format!(
                    "{}: the line for {} has no {}: the balancer's cost cannot be set beside the measured one",
                    model::PLACEMENT,
                    p.target,
                    said.join(", ")
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
    let mut sources = Sources::new();
    let ended = not_ended(t);
    let (build_s, took_s) = record_costs(&mut sources, t, ended.as_deref());
    let export = match ended {
        None => measured_export(&mut sources, t, mode),
        Some(w) => Export::unknown(&w),
    };
    let (est_s, balancer_build_s, balancer_cache_bytes) = balancer_costs(&mut sources, &t.name, line);
    TargetCost {
        name: t.name.clone(),
        node: t.node.clone(),
        after: line.map(after_of).unwrap_or_default(),
        build_s,
        cache_bytes: export.cache_bytes,
        cache_bytes_run: export.cache_bytes_run,
        uploaded_bytes: export.uploaded_bytes,
        est_s,
        balancer_build_s,
        balancer_cache_bytes,
        took_s,
        history: None,
        sources,
        why_null: WhyNull,
    }
}

/// Its build and its whole record from its trace, unless the record is
/// still open (`ended` says why not).
fn record_costs(sources: &mut Sources, t: &TargetView, ended: Option<&str>) -> (Measured<f64>, Measured<f64>) {
    let trace = "its trace (`trace-<target>.json`)";
    let build_s = match (ended, t.build_s.get()) {
        (None, Some(b)) => {
            let from = format!("{trace}: first step's start to last step's end");
            sources.insert(Metric::Build.name().into(), source(from, 1));
            Value(b)
        }
        (Some(w), _) => Missing(w.into()),
        (None, None) => Missing(why_of(&t.build_s, Metric::Build.name())),
    };
    let took_s = match (ended, t.total_s.get()) {
        (None, Some(s)) => {
            sources.insert("took_s".into(), source(format!("{trace}: its root span"), 1));
            Value(s)
        }
        (Some(w), _) => Missing(w.into()),
        (None, None) => Missing(why_of(&t.total_s, Metric::Total.name())),
    };
    (build_s, took_s)
}

/// What a target's export uploaded and weighs, and the kind of run it was weighed in.
struct Export {
    uploaded_bytes: Measured<u64>,
    cache_bytes: Measured<u64>,
    cache_bytes_run: Measured<Mode>,
}

impl Export {
    /// Not known, for `why`.
    fn unknown(why: &str) -> Export {
        Export {
            uploaded_bytes: Missing(why.into()),
            cache_bytes: Missing(why.into()),
            cache_bytes_run: Missing(why.into()),
        }
    }
}

/// What an ended record uploaded, and what that says of its export's weight.
fn measured_export(sources: &mut Sources, t: &TargetView, mode: Option<Mode>) -> Export {
    // A trace without a single upload span measured an upload of nothing,
    // whether or not any input could size uploads.
    let uploaded = match (t.upload_bytes.get(), t.upload_s.get()) {
        (Some(b), _) => Some((b, upload_source(t))),
        (None, Some(0.0)) => Some((0, "its trace: no upload span".to_string())),
        _ => None,
    };
    let Some((bytes, from)) = uploaded else {
        return Export::unknown(&why_of(&t.upload_bytes, crate::figures::Alongside::UploadBytes.name()));
    };
    sources.insert("uploaded_bytes".into(), source(from.clone(), 1));
    let (cache_bytes, cache_bytes_run) = match costs::export_bytes(mode, bytes) {
        Ok(b) => {
            sources.insert("cache_bytes".into(), source(from, 1));
            (
                Value(b),
                Measured::from_option(mode, || "run.json gives no mode".into()),
            )
        }
        Err(w) => (Missing(w.into()), Missing(w.into())),
    };
    Export {
        uploaded_bytes: Value(bytes),
        cache_bytes,
        cache_bytes_run,
    }
}

/// The balancer's estimate and its prices of `target` (est_s, build_s,
/// cache_bytes), from its placement.txt line.
fn balancer_costs(
    sources: &mut Sources,
    target: &str,
    line: Option<&Placement>,
) -> (Measured<f64>, Measured<f64>, Measured<u64>) {
    let Some(p) = line else {
        let w = format!("{} has no line for {target}", model::PLACEMENT);
        return (Missing(w.clone()), Missing(w.clone()), Missing(w));
    };
    (
        from_line(sources, p, "est_s", "est_s", p.est_s),
        from_line(sources, p, "balancer_build_s", Metric::Build.name(), p.build_s),
        from_line(sources, p, "balancer_cache_bytes", "cache_bytes", p.cache_bytes),
    )
}

/// A cost the target's placement.txt line `p` gives as `key=`, its source
/// noted as `field`'s; or why the line does not give it.
fn from_line<T>(sources: &mut Sources, p: &Placement, field: &str, key: &str, value: Option<T>) -> Measured<T> {
    let line = format!("{}'s line for {}", model::PLACEMENT, p.target);
    match (value, p.unusable(key)) {
        (Some(v), _) => {
            sources.insert(field.into(), source(format!("{}: `{key}=`", model::PLACEMENT), 1));
            Value(v)
        }
        (None, Some(bad)) => Missing(format!("{line} gives `{key}={bad}`, not a usable number")),
        (None, None) => Missing(format!("{line} has no `{key}=`")),
    }
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
            if link.link_mbps_declared.is_missing() {
                problems.push(format!(
                    "node {}: no link declared (no `link_mbps` in run.json or placement.txt){}",
                    link.name,
                    if !link.link_mbps_measured.is_missing() {
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
    let mut sources = BTreeMap::new();
    let balancer = lines.link_of(&name);
    let link_mbps_declared = match (declared(&name), balancer) {
        (Some(d), _) => {
            sources.insert("link_mbps_declared".into(), source("run.json: `link_mbps`", 1));
            Value(d)
        }
        (None, Some(b)) => {
            sources.insert(
                "link_mbps_declared".into(),
                source("placement.txt: `link_mbps=` (run.json declares none)", 1),
            );
            Value(b)
        }
        (None, None) => Missing("neither run.json nor placement.txt gives its `link_mbps`".into()),
    };
    if balancer.is_some() {
        sources.insert("link_mbps_balancer".into(), source("placement.txt: `link_mbps=`", 1));
    }
    let link_mbps_balancer = Measured::from_option(balancer, || {
        format!("no placement.txt line on {name} gives `link_mbps=`")
    });
    let (link_mbps_measured, link_n) = measure_link(&mut sources, &name, mine);
    let link_mbps_priced = priced_link(&mut sources, &link_mbps_measured, link_n, &link_mbps_declared);
    let mut n = NodeLink {
        name,
        link_mbps_declared,
        link_mbps_balancer,
        link_mbps_measured,
        link_n,
        link_mbps_priced,
        far: false,
        says: vec![],
        history: None,
        sources,
        why_null: WhyNull,
    };
    judge_link(&mut n);
    n
}

/// The node's link measured over its ended records' uploads, with the
/// number of uploads it rests on (its source noted in `sources`).
fn measure_link(sources: &mut Sources, name: &str, mine: &[&TargetView]) -> (Measured<f64>, u32) {
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
        return (Missing(why), 0);
    };
    let used: Vec<&str> = ended
        .iter()
        .filter(|t| t.upload_bytes.get().is_some_and(|b| b > 0) && t.upload_s.get().is_some_and(|s| s > 0.0))
        .map(|t| t.name.as_str())
        .collect();
    sources.insert(
        "link_mbps_measured".into(),
        source(
            format!("uploads of {}: bytes over upload time", used.join(", ")),
            rate.n,
        ),
    );
    (Value(sig6(rate.mbps)), rate.n)
}

/// The link the replay prices at: measured (over `n` uploads), else declared.
fn priced_link(sources: &mut Sources, measured: &Measured<f64>, n: u32, declared: &Measured<f64>) -> Measured<f64> {
    let (link, from, count) = match (measured.get(), declared.get()) {
        (Some(m), _) => (m, "measured", n),
        (None, Some(d)) => (d, "declared", 1),
        (None, None) => {
            return Missing("no link measured or declared: only targets that upload nothing can be priced here".into())
        }
    };
    sources.insert("link_mbps_priced".into(), source(from, count));
    Value(link)
}

/// Whether the measured link is far from a declaration.
fn judge_link(n: &mut NodeLink) {
    let Some(m) = n.link_mbps_measured.get() else { return };
    let declared = n.link_mbps_declared.get();
    let mut claims = vec![];
    if let Some(d) = declared {
        claims.push(("declared", d));
    }
    if let Some(b) = n.link_mbps_balancer.get().filter(|b| Some(*b) != declared) {
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
    let wall = view.fleet.wall_s.get();
    let mut r = ReplayView::new(Measured::from_option(wall, || {
        "the run's time window is unknown".into()
    }));
    if wall.is_some() {
        r.sources
            .insert("actual_wall_s".into(), source("the run's window (see Fleet)", 1));
    }
    let names: BTreeSet<&str> = targets.iter().map(|t| t.name.as_str()).collect();
    if let Some(why) = cannot_replay(run, targets, &names, problems) {
        r.refuse(why);
        return r;
    }
    let (jobs, left_out) = jobs_of(view, targets, nodes, &names, problems);
    r.left_out = left_out;
    if jobs.is_empty() {
        r.refuse("no target has both a node and a measured cost".into());
        return r;
    }
    let machines: Vec<Machine> = nodes
        .iter()
        .map(|n| Machine {
            name: n.name.clone(),
            link_mbps: n.link_mbps_priced.get(),
        })
        .collect();
    match replay::replay(&jobs, &machines).map_err(|e| refused(&e)) {
        Ok(out) => match finite_makespans(out, "the measured costs") {
            Ok(out) => fill_replay(&mut r, &out, &jobs, nodes),
            Err(why) => r.refuse(why),
        },
        Err(why) => r.refuse(why),
    }
    r
}

/// A replay whose makespans are numbers: costs past the largest number
/// (a placement.txt price of 1e308 s) sum to infinity, which is no figure.
fn finite_makespans(out: replay::Replay, prices: &str) -> Result<replay::Replay, String> {
    if out.placed.makespan().is_finite() && out.packed.makespan().is_finite() {
        Ok(out)
    } else {
        Err(format!(
            "on {prices} the placement ends past the largest number: a cost is too large to add up"
        ))
    }
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
                        dur(t.took_s.get()?),
                        dur(t.est_s.get()?)
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
        if let (Some(est), Some(took)) = (t.est_s.get(), t.took_s.get()) {
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
    let head = match (prices_off, v.packing_off.get()) {
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
        match (t.node.value(), t.balancer_build_s.get(), t.balancer_cache_bytes.get()) {
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
            link_mbps: n.link_mbps_balancer.get(),
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
    let packing = packing.and_then(|out| finite_makespans(out, "its own prices"));
    match packing {
        Ok(out) => {
            let (placed, packed) = (out.placed.makespan(), out.packed.makespan());
            v.own_placed_wall_s = Value(r3(placed));
            v.own_packed_wall_s = Value(r3(packed));
            let off = packed < placed * (1.0 - PACKING_SLACK);
            v.packing_off = Value(off);
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
            v.own_placed_wall_s = Missing(why.clone());
            v.own_packed_wall_s = Missing(why.clone());
            v.packing_off = Missing(why.clone());
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
    let priced: BTreeMap<&str, Option<f64>> = nodes
        .iter()
        .map(|n| (n.name.as_str(), n.link_mbps_priced.get()))
        .collect();
    let unpriced = |node: &str, bytes: u64| bytes > 0 && priced.get(node).copied().flatten().is_none();
    let mut jobs = vec![];
    let mut left_out = vec![];
    for t in targets {
        let why = |m: Option<&str>| m.unwrap_or_default().to_string();
        match (t.node.value(), t.build_s.get(), t.uploaded_bytes.get()) {
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
                why: format!("where it ran is not known: {}", why(t.node.why())),
            }),
            (_, None, _) => left_out.push(LeftOutTarget {
                target: t.name.clone(),
                why: format!("its build is not measured: {}", why(t.build_s.why())),
            }),
            (_, _, None) => left_out.push(LeftOutTarget {
                target: t.name.clone(),
                why: format!("its upload is not measured: {}", why(t.uploaded_bytes.why())),
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
    r.placed_wall_s = Value(r3(placed));
    r.packed_wall_s = Value(r3(packed));
    r.saved_s = Value(r3(placed - packed));
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
    match n.and_then(|n| {
        n.link_mbps_priced
            .get()
            .map(|l| (l, !n.link_mbps_measured.is_missing()))
    }) {
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
        n.and_then(|n| n.link_mbps_priced.get())
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
            build_s: median_of(same.iter().map(|x| x.build_s.get()), r3, "no run measured its build"),
            cache_bytes: median_of(
                same.iter().map(|x| x.cache_bytes.get().map(|b| b as f64)),
                f64::round,
                "no run weighed its export",
            ),
        });
    }
    for n in &mut p.nodes {
        let links = nodes
            .iter()
            .filter_map(|r| r.get(n.name.as_str()))
            .map(|x| x.link_mbps_measured.get());
        n.history = Some(median_of(links, sig6, "no run measured its link"));
    }
    p.history = Some(header);
}

fn median_of(values: impl Iterator<Item = Option<f64>>, round: fn(f64) -> f64, none: &str) -> Median {
    let v: Vec<f64> = values.flatten().collect();
    Median {
        median: Measured::from_option(costs::median(&v).map(round), || none.into()),
        n: v.len() as u32,
        why_null: WhyNull,
    }
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
