//! The run model: every input of one run directory, parsed (in parallel),
//! with the statistics of each parse. The rest of analysis reads only this.
//!
//! Loading runs one analysis itself: each trace's figures
//! (`analysis::targets`), computed once here and kept on its `TargetTrace`,
//! because the window they give with run.json decides which of the logs'
//! records are the run's before the logs are read (`read_logs`).

mod logs;
mod traces;
mod window;

use crate::error::{Error, Result};
use crate::input::artifacts::Artifact;
use crate::input::placement::Placement;
use crate::input::read::read_open_at_most;
pub use crate::input::read::Links;
pub(crate) use crate::input::read::RunDir;
pub(crate) use crate::input::read::{mtime_of, read_at_most};
use crate::input::run_json::{self, RunInfo};
use crate::input::run_rules;
use crate::input::samples;
use crate::input::sccache::{LogFormat, SccacheLog};
use crate::input::trace::{self, Span};
use crate::input::zot::ZotLog;
use crate::input::{InputReport, ParseStats};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
pub(crate) use traces::TraceCache;
use traces::TraceRead;
use window::AnchoredWindow;

/// The samples of a run: a node's oldest polls summarised by the analysis's fold.
pub type RunSamples = samples::Samples<crate::analysis::nodes::NodeFold>;
/// What a live view keeps of a run between refreshes: its big logs' parse
/// state, and each trace as decoded.
#[derive(Default)]
pub(crate) struct RunCache {
    pub(crate) logs: Vec<logs::LogSlot>,
    pub(crate) traces: TraceCache,
}

pub(crate) const RUN_JSON: &str = run_json::FILE;
pub(crate) const PLACEMENT: &str = "placement.txt";
pub(crate) const SAMPLES: &str = crate::input::samples::FILE;
pub(crate) const SCCACHE: &str = crate::input::sccache::FILE;
pub(crate) const NGINX_FORMAT: &str = "nginx-log-format";
pub(crate) const ZOT: &str = crate::input::zot::FILE;
pub(crate) const ARTIFACTS: &str = "artifacts.txt";
/// The node samples' input when they are read from a server (`--prometheus`).
pub(crate) const PROMETHEUS: &str = crate::input::prometheus::NAME;

/// How a run is read: whether an input whose real path leaves the run
/// directory is read, and where the node samples come from.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub links: Links,
    /// The root the run was found under (`publish`, `history`, `gate`, the
    /// newest run for `report` and `serve`): the run folder, as opened for
    /// the read, must lie inside the root's real path, at every load. A
    /// folder re-pointed out of the root after the walk checked it is not
    /// read.
    pub root: Option<std::path::PathBuf>,
    /// Read the node samples from this Prometheus-compatible server
    /// instead of samples.jsonl.
    pub prometheus: Option<std::sync::Arc<crate::input::prometheus::Server>>,
    /// Keep what the server gave as samples.jsonl lines (`--save-samples`).
    pub keep_polls: bool,
}

impl Options {
    /// What sets figures read this way apart from those read from the
    /// files alone (a cache of one is not the other's); `None` for the files.
    pub(crate) fn reading_tag(&self) -> Option<String> {
        self.prometheus.as_ref().map(|p| p.tag())
    }

    /// The tool's `cache_id` for figures read this way: the same run read
    /// with its samples from a server is another reading.
    pub(crate) fn cache_id(&self) -> String {
        let tool = crate::figures::Tool::cache_id();
        match self.reading_tag() {
            Some(tag) => format!("{tool} {tag}"),
            None => tool,
        }
    }
}

/// The fixed inputs, in the order the report lists them.
pub(crate) const FIXED_INPUTS: [&str; 7] = [RUN_JSON, PLACEMENT, SAMPLES, SCCACHE, NGINX_FORMAT, ZOT, ARTIFACTS];

/// One target's trace as read, and its figures: analysed once, when the
/// run is loaded, as the window they give decides which of the logs'
/// records are the run's (see `read_logs`).
#[derive(Debug, Clone)]
pub(crate) struct TargetTrace {
    pub(crate) target: String,
    pub(crate) spans: Vec<Span>,
    pub(crate) figures: crate::analysis::targets::TraceFigures,
}

#[derive(Debug, Clone)]
pub(crate) struct SccacheInput {
    pub(crate) log: SccacheLog,
    /// False when the log format has no `$request_length`: write sizes unknown.
    pub(crate) sizes_known: bool,
}

/// Everything read from one run directory.
#[derive(Debug, Default)]
pub struct Run {
    pub(crate) dir: PathBuf,
    /// The directory's own name: the stamp when run.json has none.
    pub(crate) dir_name: String,
    pub(crate) info: Option<RunInfo>,
    pub(crate) placements: Vec<Placement>,
    pub(crate) artifacts: Vec<Artifact>,
    pub(crate) samples: RunSamples,
    /// Shared with a live view's cache (`TraceCache`), which keeps them
    /// between refreshes.
    pub(crate) traces: Vec<std::sync::Arc<TargetTrace>>,
    pub(crate) sccache: Option<SccacheInput>,
    pub(crate) zot: Option<ZotLog>,
    /// Every input, present or not, sorted by name.
    pub(crate) inputs: Vec<InputReport>,
    /// The node samples were read from a server (`--prometheus`), not samples.jsonl.
    pub(crate) samples_from_server: bool,
    /// Why a node has no samples, where its source says (a server's answer).
    pub(crate) unsampled: std::collections::BTreeMap<String, String>,
    /// What the server gave, as samples.jsonl lines (`Options::keep_polls`).
    pub(crate) polls: Option<Vec<u8>>,
}

impl Run {
    pub(crate) fn stamp(&self) -> &str {
        self.info
            .as_ref()
            .and_then(|i| i.stamp.as_deref())
            .unwrap_or(&self.dir_name)
    }

    pub(crate) fn in_flight(&self) -> bool {
        self.info.as_ref().is_some_and(|i| i.in_flight)
    }

    pub(crate) fn input(&self, name: &str) -> Option<&InputReport> {
        self.inputs.iter().find(|i| i.name == name)
    }

    /// The input the node samples came from: samples.jsonl, or the server.
    pub(crate) fn samples_input(&self) -> &'static str {
        if self.samples_from_server {
            PROMETHEUS
        } else {
            SAMPLES
        }
    }

    /// Why a node has no samples.
    pub(crate) fn no_samples_from(&self, node: &str) -> String {
        match self.unsampled.get(node) {
            Some(why) => why.clone(),
            None => format!("no samples from {node}"),
        }
    }
}

/// Whether `dir` looks like a run directory: it holds at least one known input.
pub(crate) fn is_run_dir(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|e| is_input_name(&e.file_name()))
}

/// Whether a file name is one a run's inputs go by.
fn is_input_name(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    FIXED_INPUTS.contains(&name.as_ref()) || trace::target_of_file(&name).is_some()
}

/// What a run folder re-pointed out of its root is called.
pub(crate) const LEFT_THE_ROOT: &str = "a link leading out of the root: not read";

fn xxh3(data: &[u8]) -> u64 {
    twox_hash::XxHash3_64::oneshot(data)
}

/// The most bytes of the inputs read whole (run.json's is its parser's). A
/// trace is held whole while it is decoded (one span at a time), and the
/// traces of a run are decoded at once: a BuildKit record of a large build
/// is a few MB (thousands of steps and registry calls), so 256 MiB is fifty
/// times that. The nginx directive is one line.
pub(crate) const RUN_JSON_MAX: u64 = run_json::MAX_BYTES;
pub(crate) const TRACE_MAX: u64 = 256 << 20;
pub(crate) const NGINX_FORMAT_MAX: u64 = 1 << 20;

/// The limit on a whole-file input, by file name.
fn most_bytes(name: &str) -> u64 {
    match name {
        RUN_JSON => RUN_JSON_MAX,
        NGINX_FORMAT => NGINX_FORMAT_MAX,
        _ => TRACE_MAX,
    }
}

/// A small whole-file input as read: its bytes and modification time.
struct Small {
    data: Vec<u8>,
    mtime: Option<String>,
}

/// Reads a small whole-file input, reporting absence, I/O errors and a file
/// too large to be what it says it is.
fn read_small(run: &RunDir, name: &str) -> std::result::Result<Option<Small>, Box<InputReport>> {
    let opened = match run.open(name) {
        Ok(o) => o,
        Err(crate::input::read::NotOpened::Absent) => return Ok(None),
        Err(not) => return Err(Box::new(not.report(name))),
    };
    read_opened(name, opened).map(Some)
}

/// `read_small` of an input already opened.
fn read_opened(name: &str, opened: crate::input::read::Opened) -> std::result::Result<Small, Box<InputReport>> {
    let unreadable = |bytes, reason| Box::new(InputReport::unreadable(name, bytes, reason));
    let mtime = opened.mtime();
    match read_open_at_most(opened.file, opened.meta.len(), most_bytes(name)) {
        Ok(Ok(data)) => Ok(Small { data, mtime }),
        Ok(Err(size)) => Err(unreadable(
            Some(size),
            format!(
                "{size} bytes, more than the {} MiB this file may be: not read, and the rest of the run is reported without it",
                most_bytes(name) >> 20
            ),
        )),
        Err(e) => Err(unreadable(None, format!("cannot read: {e}"))),
    }
}

/// The most targets and nodes a report takes (each is a row, a bar, a
/// legend entry, a series on the page), and the most placement lines:
/// time, memory and output grow with them, so past these the run is
/// reported with the first (those with the most to show, then by name), and
/// a warning says how many more there were (they are counted, not drawn).
/// A real fleet has tens of each.
pub(crate) const MAX_TARGETS: usize = 2_000;
pub(crate) const MAX_NODES: usize = 2_000;
pub(crate) const MAX_PLACEMENT_LINES: usize = 20_000;

/// What a bound left out, for its warning: `what` (e.g. "targets"), how
/// many there were, and the first few left out.
fn over_bound(what: &str, total: usize, max: usize, kept: &str, left_out: &[&str]) -> String {
    let shown: Vec<&str> = left_out.iter().take(3).copied().collect();
    let more = if left_out.len() > shown.len() { ", …" } else { "" };
    format!(
        "{total} {what}, more than the {max} a report takes: {kept} are reported, \
         the other {} are left out and only counted ({}{more})",
        total - max,
        shown.join(", ")
    )
}

/// Keeps at most `max` distinct names, taking `groups` in order (those with
/// the most to show first), each by name; the warning when some were left out.
fn bounded_names(what: &str, groups: Vec<Vec<String>>, max: usize, kept: &str) -> (BTreeSet<String>, Option<String>) {
    let mut keep = BTreeSet::new();
    let mut left = BTreeSet::new();
    for mut group in groups {
        group.sort();
        for name in group {
            if keep.contains(&name) {
                continue;
            }
            if keep.len() < max {
                keep.insert(name);
            } else {
                left.insert(name);
            }
        }
    }
    if left.is_empty() {
        return (keep, None);
    }
    let left: Vec<&str> = left.iter().map(String::as_str).collect();
    let warning = over_bound(what, keep.len() + left.len(), max, kept, &left);
    (keep, Some(warning))
}

/// Holds the run to `MAX_TARGETS`, `MAX_NODES` and `MAX_PLACEMENT_LINES`,
/// each bound's warning on the input it came from (targets and nodes on
/// run.json's).
fn bound(run: &mut Run, inputs: &mut [InputReport], traces_left_out: Option<String>) {
    let mut warn = |name: &str, w: String| {
        if let Some(r) = inputs.iter_mut().find(|r| r.name == name) {
            r.warnings.push(format!("{name}: {w}"));
        }
    };
    if run.placements.len() > MAX_PLACEMENT_LINES {
        let total = run.placements.len();
        run.placements.truncate(MAX_PLACEMENT_LINES);
        warn(
            PLACEMENT,
            format!(
                "{total} placement lines, more than the {MAX_PLACEMENT_LINES} a report takes: the first {MAX_PLACEMENT_LINES} are reported, the other {} only counted",
                total - MAX_PLACEMENT_LINES
            ),
        );
    }
    if let Some(w) = traces_left_out {
        warn(RUN_JSON, w);
    }
    let info = run.info.as_ref();
    let targets = vec![
        run.traces.iter().map(|t| t.target.clone()).collect(),
        info.iter().flat_map(|i| i.targets.iter().cloned()).collect(),
        run.placements.iter().map(|p| p.target.clone()).collect(),
    ];
    let (targets, targets_warning) = bounded_names(
        "targets",
        targets,
        MAX_TARGETS,
        "those with a trace, then those run.json announces, then placed ones, each by name,",
    );
    let nodes = vec![
        info.iter()
            .flat_map(|i| i.nodes.iter().map(|n| n.name.clone()))
            .collect(),
        run.placements.iter().map(|p| p.node.clone()).collect(),
        run.samples.by_node.keys().cloned().collect(),
        // Left out while samples.jsonl was read: counted and named, never
        // before a node whose polls were held.
        run.samples.nodes_left_out().cloned().collect(),
    ];
    let (nodes, nodes_warning) = bounded_names(
        "nodes",
        nodes,
        MAX_NODES,
        "run.json's nodes, then placed ones, then those only sampled, each by name,",
    );
    if let Some(w) = targets_warning {
        warn(RUN_JSON, w);
        run.traces.retain(|t| targets.contains(&t.target));
        run.placements.retain(|p| targets.contains(&p.target));
        if let Some(i) = run.info.as_mut() {
            i.targets.retain(|t| targets.contains(t));
        }
    }
    if let Some(w) = nodes_warning {
        warn(RUN_JSON, w);
        run.placements.retain(|p| nodes.contains(&p.node));
        run.samples.by_node.retain(|n, _| nodes.contains(n));
        if let Some(i) = run.info.as_mut() {
            i.nodes.retain(|n| nodes.contains(&n.name));
        }
    }
}

/// Loads and parses a run directory. Fails only when `dir` is not a run.
pub fn load(dir: &Path) -> Result<Run> {
    load_with(dir, None, Links::StayInside)
}

/// As `load`; with a cache, the big logs are parsed only from where the
/// previous load stopped (see `input::incremental`). `links` says whether an
/// input whose real path leaves the run directory is read.
pub(crate) fn load_with(dir: &Path, cache: Option<&mut RunCache>, links: Links) -> Result<Run> {
    let opts = Options {
        links,
        ..Default::default()
    };
    load_from(dir, cache, &opts)
}

/// As `load`, read as `opts` says (the root its folder must stay in).
pub fn load_with_options(dir: &Path, opts: &Options) -> Result<Run> {
    load_from(dir, None, opts)
}

/// As `load_with`, read as `opts` says.
pub(crate) fn load_from(dir: &Path, cache: Option<&mut RunCache>, opts: &Options) -> Result<Run> {
    let links = opts.links;
    // Opened once: every input below is read relative to this handle, and
    // the root's bound is checked on it, not on the name.
    let inside = RunDir::new(dir, links);
    if let Some(root) = &opts.root {
        let real_root = root.canonicalize().ok();
        if !real_root.is_some_and(|r| inside.lies_within(&r)) {
            return Err(Error::NotARun {
                path: dir.to_path_buf(),
                reason: LEFT_THE_ROOT.into(),
            });
        }
    }
    let mut trace_files = trace_files_of(&inside)?;
    // Traces past the bound are not even read.
    let traces_left_out = (trace_files.len() > MAX_TARGETS).then(|| {
        let left: Vec<&str> = trace_files[MAX_TARGETS..].iter().map(|(_, f)| f.as_str()).collect();
        let w = over_bound(
            "trace files",
            trace_files.len(),
            MAX_TARGETS,
            "the first by name",
            &left,
        );
        trace_files.truncate(MAX_TARGETS);
        w
    });
    let mut run = Run {
        dir: dir.to_path_buf(),
        dir_name: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string()),
        ..Default::default()
    };
    let mut inputs = Vec::new();
    // run.json first: the others need to know whether the run is in flight
    // and which sccache prefix is this run's. It is tiny.
    let (info, report) = read_run_json(&inside);
    run.info = info;
    inputs.push(report);
    // The log format decides how sccache.log is read.
    let (format, report) = read_log_format(&inside);
    inputs.push(report);
    let logs = read_logs(&inside, &run, &format, &trace_files, (cache, opts));
    let window = logs.window;
    logs.into_run(&mut run, &mut inputs);
    bound(&mut run, &mut inputs, traces_left_out);
    window::keep_to_window(&mut run, &mut inputs, window);
    if let Some(note) = run
        .info
        .as_ref()
        .and_then(|i| stamp_disagrees(i.stamp.as_deref().unwrap_or(&run.dir_name), i.started_at))
    {
        if let Some(r) = inputs.iter_mut().find(|r| r.name == RUN_JSON) {
            r.warnings.push(note);
        }
    }
    // A target the harness announced but whose trace is missing.
    if let Some(info) = &run.info {
        let missing = run_rules::announced_without_trace(info, |file| inputs.iter().any(|i| i.name == file));
        for (file, warning) in missing {
            let mut r = InputReport::absent(&file);
            r.warnings.push(warning);
            inputs.push(r);
        }
    }
    inputs.sort_by(|a, b| a.name.cmp(&b.name));
    run.inputs = inputs;
    Ok(run)
}

/// A note when the stamp's date (its leading `YYYYMMDD`) is more than a
/// day from run.json's `started_at`: one of them is not this run's.
fn stamp_disagrees(stamp: &str, started: Option<crate::timefmt::Micros>) -> Option<String> {
    let started = started?;
    let digits = stamp.get(..8).filter(|d| d.bytes().all(|b| b.is_ascii_digit()))?;
    let day = crate::timefmt::parse_rfc3339(&format!(
        "{}-{}-{}T00:00:00Z",
        &digits[..4],
        &digits[4..6],
        &digits[6..8]
    ))?;
    const DAY: crate::timefmt::Micros = 24 * 3600 * 1_000_000;
    // The stamp names a day: it agrees with any start within that day, give or take a day.
    let off = if started < day {
        day - started
    } else {
        (started - day - DAY).max(0)
    };
    (off > DAY).then(|| {
        format!(
            "{RUN_JSON}: the stamp names {}-{}-{}, more than a day from `started_at` ({}): one of them is not this run's",
            &digits[..4],
            &digits[4..6],
            &digits[6..8],
            crate::timefmt::format_rfc3339(started)
        )
    })
}

/// The traces of a run directory as (target, file), sorted; an error when
/// `dir` is not a run.
fn trace_files_of(run: &RunDir) -> Result<Vec<(String, String)>> {
    let dir = run.path();
    let not_a_run = |reason: String| Error::NotARun {
        path: dir.to_path_buf(),
        reason,
    };
    let meta = std::fs::metadata(dir).map_err(|e| not_a_run(format!("cannot open: {e}")))?;
    if !meta.is_dir() {
        return Err(not_a_run("not a directory".into()));
    }
    let listing = run.names().map_err(|e| not_a_run(format!("cannot list: {e}")))?;
    let mut trace_files: Vec<(String, String)> = listing
        .iter()
        .filter_map(|name| {
            // A trace is named in UTF-8 (`trace-<target>.json`); another
            // name is no trace, and is never opened under a lossy spelling.
            let file = name.to_str()?;
            trace::target_of_file(file).map(|t| (t.to_string(), file.to_string()))
        })
        .collect();
    trace_files.sort();
    if !listing.iter().any(|n| is_input_name(n)) {
        return Err(not_a_run(format!(
            "no run inputs here (expected some of {} or trace-<target>.json)",
            FIXED_INPUTS.join(", ")
        )));
    }
    Ok(trace_files)
}

fn read_run_json(run: &RunDir) -> (Option<RunInfo>, InputReport) {
    match read_small(run, RUN_JSON) {
        Ok(None) => (None, InputReport::absent(RUN_JSON)),
        Err(r) => (None, *r),
        Ok(Some(Small { data, mtime })) => {
            let (info, stats) = run_json::parse(&data);
            let report = InputReport::from_parse(RUN_JSON, data.len() as u64, Some("run.json".into()), &stats)
                .with_identity(mtime, xxh3(&data));
            (info, report)
        }
    }
}

/// The nginx `log_format` sccache.log is written in: the directive in the
/// run, else nginx's `combined`.
fn read_log_format(run: &RunDir) -> (LogFormat, InputReport) {
    let Small { data, mtime } = match read_small(run, NGINX_FORMAT) {
        Ok(None) => return (LogFormat::combined(), InputReport::absent(NGINX_FORMAT)),
        Err(r) => return (LogFormat::combined(), *r),
        Ok(Some(read)) => read,
    };
    let text = String::from_utf8_lossy(&data);
    let mut stats = ParseStats {
        lines: text.lines().count() as u64,
        ..Default::default()
    };
    let (format, read_as) = match LogFormat::from_directive(&text) {
        Ok(f) => {
            stats.records = 1;
            (f, Some("nginx log_format directive".into()))
        }
        Err(e) => {
            stats.note_malformed(1, format!("{e}; reading sccache.log as nginx `combined` instead"));
            (LogFormat::combined(), None)
        }
    };
    let report =
        InputReport::from_parse(NGINX_FORMAT, data.len() as u64, read_as, &stats).with_identity(mtime, xxh3(&data));
    (format, report)
}

/// What the logs and traces gave, with their reports.
struct Logs {
    traces: Vec<TraceRead>,
    logs: Vec<logs::LogRead>,
    /// The window run.json and the traces make, and whether its end is
    /// open (see `anchored_window`).
    window: Option<AnchoredWindow>,
}

/// Reads every input but run.json and the log format: the traces, then
/// every log at once (the big ones are themselves parsed in parallel
/// chunks, incrementally with a cache).
fn read_logs(
    dir: &RunDir,
    run: &Run,
    format: &LogFormat,
    trace_files: &[(String, String)],
    (cache, opts): (Option<&mut RunCache>, &Options),
) -> Logs {
    let (cache, trace_cache) = match cache {
        Some(c) => (Some(&mut c.logs), Some(&mut c.traces)),
        None => (None, None),
    };
    // The traces first (they are small): with run.json they make the run's
    // window, which the logs' records must lie in, and tell how finely the
    // registry's writes need keeping.
    let traces = traces::read_traces(dir, trace_files, trace_cache);
    let figures: Vec<&crate::analysis::targets::TraceFigures> = traces
        .iter()
        .filter_map(|(t, _)| t.as_ref())
        .filter(|t| !t.spans.is_empty())
        .map(|t| &t.figures)
        .collect();
    let window = window::anchored_window(run, &figures);
    let info = run.info.as_ref();
    // A live view keeps every write, as its traces grow.
    let write_cuts = match cache {
        Some(_) => None,
        None => crate::analysis::write_cuts::write_cuts(
            info.and_then(|i| i.started_at),
            info.and_then(|i| i.finished_at),
            figures.iter().copied(),
        )
        .map(std::sync::Arc::new),
    };
    let records = window.map(|(core, open)| crate::analysis::window::record_window(core, open));
    let cx = logs::ReadContext::new((dir, run, format, opts), records, write_cuts);
    let logs = logs::read_all(&cx, cache);
    Logs { traces, logs, window }
}

impl Logs {
    /// Hands each input to the run, with its report and its own warnings.
    fn into_run(self, run: &mut Run, inputs: &mut Vec<InputReport>) {
        for log in self.logs {
            log.into_run(run, inputs);
        }
        for (t, r) in self.traces {
            run.traces.extend(t);
            inputs.push(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_bound_keeps_the_earlier_groups_first_then_by_name_and_counts_the_rest() {
        let groups = vec![
            names(&["think", "strix"]),
            names(&["a3", "a1", "think"]),
            names(&["a2", "a0"]),
        ];
        let (kept, warning) = bounded_names("nodes", groups.clone(), 4, "these");
        assert_eq!(kept, names(&["a1", "a3", "strix", "think"]).into_iter().collect());
        assert_eq!(
            warning.as_deref(),
            Some("6 nodes, more than the 4 a report takes: these are reported, the other 2 are left out and only counted (a0, a2)")
        );
        let (kept, warning) = bounded_names("nodes", groups, 6, "these");
        assert_eq!(kept.len(), 6);
        assert_eq!(warning, None, "at the bound nothing is left out");
    }

    /// A root with the run `r1` and, outside it, another run holding a
    /// secret line in its registry log.
    fn root_and_elsewhere() -> (tempfile::TempDir, tempfile::TempDir) {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("r1")).unwrap();
        std::fs::write(root.path().join("r1/zot.jsonl"), "inside-line\n").unwrap();
        std::fs::write(elsewhere.path().join("zot.jsonl"), "secret-line-5d2c\n").unwrap();
        (root, elsewhere)
    }

    /// Found by attacking serve and publish: the walk checked that a run
    /// folder's real path stays in the root, then the load resolved the
    /// name again; `mv root/r1 root/.away; ln -s /elsewhere root/r1` in
    /// between had the outside run read. The folder is opened once and read
    /// through that handle, and the root's bound is checked on it at load.
    #[test]
    fn a_run_folder_swapped_for_a_link_out_of_the_root_after_the_walk_is_not_read() {
        let (root, elsewhere) = root_and_elsewhere();
        let r1 = root.path().join("r1");
        let opened = RunDir::new(&r1, Links::StayInside);
        std::fs::rename(&r1, root.path().join(".away")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), &r1).unwrap();
        let read = opened.read_at_most(ZOT, 1 << 20).unwrap();
        assert_eq!(read, b"inside-line\n", "the folder opened is the one read");
        let opts = Options {
            root: Some(root.path().to_path_buf()),
            ..Default::default()
        };
        match load_from(&r1, None, &opts) {
            Err(Error::NotARun { reason, .. }) => assert_eq!(reason, LEFT_THE_ROOT),
            Err(e) => panic!("{e}"),
            Ok(run) => panic!("read from outside the root: {:?}", run.inputs),
        }
        // A run read without a root (named by its user) is read where it leads.
        assert!(load_from(&r1, None, &Options::default()).is_ok());
        // A link that stays in the root is a run like any.
        std::fs::remove_file(&r1).unwrap();
        std::os::unix::fs::symlink(root.path().join(".away"), &r1).unwrap();
        assert!(load_from(&r1, None, &opts).is_ok());
    }
}
