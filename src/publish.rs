//! `perfreport publish`: a static site over every run under a root, with a
//! selector from run to run. Incremental: a manifest of each run's inputs
//! (names, sizes, modification times) and of the tool decides what to
//! rebuild, so adding one run to a site of 200 costs that run's report and
//! the index.

use crate::error::{Error, Result};
use crate::output::{real_dir_inside, write_all_inside, write_atomic, OutFile};
use crate::runs::fingerprint;
use crate::{model, render};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

pub(crate) const MANIFEST: &str = "manifest.json";

/// One run as the site index lists it; display-ready.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunEntry {
    /// The run's folder under `runs/`: its path under the root, as [`folder_name`] writes it.
    pub(crate) dir: String,
    pub(crate) stamp: String,
    /// complete, in flight or broken.
    pub status: String,
    pub(crate) reason: Option<String>,
    /// The present inputs that broke their contract (a run whose every
    /// input did is `broken` itself).
    #[serde(default)]
    pub broken_inputs: Vec<String>,
    pub(crate) mode: String,
    pub(crate) arch: String,
    pub(crate) wall: String,
    pub(crate) targets: usize,
    pub(crate) critical: String,
    pub(crate) started: String,
    /// Sort key: run.json's started_at, else the folder name.
    pub(crate) order: (Option<String>, String),
}

/// One run in the manifest: read owned, written borrowed from what publish
/// holds (so writing it copies no run's figures).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct ManifestRun<'a> {
    /// The run folder's fingerprint (`runs::fingerprint`): a digest, so the
    /// published manifest names none of the run folder's files.
    #[serde(default)]
    fingerprint: Cow<'a, str>,
    /// The files of the run's pages under `runs/<folder>/`: one gone, and
    /// the run is reported again.
    #[serde(default)]
    pages: Cow<'a, [String]>,
    entry: Cow<'a, RunEntry>,
    /// What history keeps of the run, so the history page reads no run again.
    #[serde(default)]
    figures: Option<Cow<'a, crate::figures::Figures>>,
}

/// `manifest.json`, each run's value `R`: read as the text it was written
/// as, written as a [`Written`].
#[derive(Debug, Serialize, Deserialize)]
struct Manifest<R> {
    /// A different tool rebuilds everything: its figures may differ.
    tool: String,
    runs: BTreeMap<String, R>,
}

/// A run as the manifest writes it: the text the last publish wrote for a
/// run that did not change (the same tool wrote it, so it is the text the run
/// would serialise to; most of a site's runs, every time), else the run.
#[derive(Serialize)]
#[serde(untagged)]
enum Written<'a> {
    Unchanged(&'a RawValue),
    Run(Box<ManifestRun<'a>>),
}

/// The manifest the last publish left: each run read, and the text it was
/// written as.
#[derive(Default)]
struct Previous<'b> {
    tool: String,
    runs: BTreeMap<String, ManifestRun<'static>>,
    text: BTreeMap<String, &'b RawValue>,
}

/// One run of the site as this publish leaves it.
struct Row<'a> {
    fingerprint: &'a str,
    pages: Vec<String>,
    entry: RunEntry,
    figures: Option<crate::figures::Figures>,
    /// Its text in the old manifest, when it did not change.
    text: Option<&'a RawValue>,
}

/// A run reported again: (folder, entry, figures, the pages written or why not).
type Built = (String, RunEntry, crate::figures::Figures, Result<Vec<String>>);

/// (folder, path, fingerprint (empty: none), the entry and pages to keep
/// when nothing changed)
type Plan = (String, PathBuf, String, Option<(RunEntry, Vec<String>)>);

#[derive(Debug, Default)]
pub struct PublishOutcome {
    pub runs: Vec<RunEntry>,
    /// Runs whose pages were (re)built.
    pub rebuilt: Vec<String>,
    pub warnings: Vec<String>,
}

pub struct PublishOptions<'a> {
    pub root: &'a Path,
    pub site: &'a Path,
    pub force: bool,
    pub bench: Option<&'a Path>,
    /// Compare each run with the one before it: a section on both runs' report pages.
    pub compare_previous: bool,
    /// How each run is read (where its node samples come from); inputs
    /// that leave a run directory are never read.
    pub read: crate::model::Options,
}

fn discover_walked(walked: crate::runs::Walked, warnings: &mut Vec<String>) -> Vec<(String, PathBuf)> {
    for (at, what) in &walked.unreadable {
        warnings.push(format!("{what} at {}: skipped", at.display()));
    }
    let mut found = vec![];
    for (rel, path) in walked.runs {
        match folder_name(&rel) {
            Some(dir) => found.push((dir, path)),
            None => warnings.push(format!(
                "{}: its folder name would be longer than {FOLDER_NAME_MAX} bytes: skipped",
                path.display()
            )),
        }
    }
    found
}

/// The longest folder name a file system takes.
const FOLDER_NAME_MAX: usize = 255;
/// Written before two hex digits of a byte that cannot stand for itself.
const ESCAPE: char = '~';
/// Joins the components of a run's path under the root.
const JOIN: &str = "--";

/// A site folder as a link's path segment (what the gate's summary and JUnit
/// link a run's page by).
pub use crate::escape::url_segment;

/// A run's folder under `runs/`, derived from its path under the root (`rel`):
/// the components joined by `--`. Injective, so two runs never share a
/// folder: within a component `~`, separators, control and bidi characters,
/// bytes that are not UTF-8, a `-` at either end or beside another `-`, and
/// a name of only dots are written `~` and two hex digits per byte. So no
/// component holds `--`, and `a/b` (`a--b`) and `a--b` (`a~2d~2db`) differ.
/// An ordinary stamp (`20261020T020000Z`, `20261019T020000Z-broken`) is its
/// own name, so links stay stable. `None` when the name would be too long
/// (or `rel` is not plain).
pub fn folder_name(rel: &Path) -> Option<String> {
    let parts = rel
        .components()
        .map(|c| match c {
            Component::Normal(c) => Some(c.as_encoded_bytes()),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    join_components(&parts)
}

fn join_components(parts: &[&[u8]]) -> Option<String> {
    if parts.is_empty() || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let name = parts.iter().map(|p| encode_component(p)).collect::<Vec<_>>().join(JOIN);
    (name.len() <= FOLDER_NAME_MAX).then_some(name)
}

fn encode_component(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len());
    let escape = |out: &mut String, raw: &[u8]| {
        for b in raw {
            let _ = write!(out, "{ESCAPE}{b:02x}");
        }
    };
    if bytes.iter().all(|b| *b == b'.') {
        escape(&mut out, bytes);
        return out;
    }
    let mut at = 0;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            let hyphen_at_edge = c == '-'
                && (at == 0 || at + 1 == bytes.len() || bytes[at - 1] == b'-' || bytes.get(at + 1) == Some(&b'-'));
            if hyphen_at_edge || c == ESCAPE || c == '/' || c == '\\' || crate::term::is_unsafe(c) {
                escape(&mut out, c.encode_utf8(&mut [0; 4]).as_bytes());
            } else {
                out.push(c);
            }
            at += c.len_utf8();
        }
        escape(&mut out, chunk.invalid());
        at += chunk.invalid().len();
    }
    out
}

/// Whether `name` is a folder name [`folder_name`] derives: it must read
/// back into components that write it again, byte for byte, and be one plain
/// path component. What `manifest.json` says is checked with this before
/// publish removes anything by it.
pub(crate) fn is_folder_name(name: &str) -> bool {
    let mut one = Path::new(name).components();
    if !matches!((one.next(), one.next()), (Some(Component::Normal(_)), None)) {
        return false;
    }
    let decoded = name.split(JOIN).map(decode_component).collect::<Option<Vec<_>>>();
    decoded.is_some_and(|parts| {
        let parts: Vec<&[u8]> = parts.iter().map(Vec::as_slice).collect();
        join_components(&parts).as_deref() == Some(name)
    })
}

fn decode_component(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len());
    let mut rest = s.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        if b == ESCAPE as u8 {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            out.push(b);
            rest = tail;
        }
    }
    Some(out)
}

/// Removes the folder of a run gone from the root, `site/runs/<name>`, only
/// when `name` is a folder name perfreport derives (one plain component)
/// and the folder a real directory: a symlink there is left alone, and said.
fn remove_run_folder(site: &Path, name: &str, warnings: &mut Vec<String>) {
    let runs = site.join("runs");
    if !is_folder_name(name) || !std::fs::symlink_metadata(&runs).is_ok_and(|m| m.is_dir()) {
        return;
    }
    let folder = runs.join(name);
    match std::fs::symlink_metadata(&folder) {
        Ok(m) if m.is_dir() => {
            if let Err(e) = std::fs::remove_dir_all(&folder) {
                warnings.push(format!(
                    "{}: cannot remove the folder of a gone run: {e}",
                    folder.display()
                ));
            }
        }
        Ok(_) => warnings.push(format!(
            "{}: the folder of a gone run is not a directory (a symlink is not followed): left alone",
            folder.display()
        )),
        Err(_) => {}
    }
}

fn entry_of(dir: &str, f: &crate::figures::Figures, broken_inputs: &[String], broken: Option<String>) -> RunEntry {
    let status = match (&broken, f.in_flight) {
        (Some(_), _) => "broken",
        (None, true) => "in flight",
        (None, false) => "complete",
    };
    RunEntry {
        dir: dir.to_string(),
        stamp: f.stamp.clone(),
        status: status.into(),
        reason: broken,
        broken_inputs: broken_inputs.to_vec(),
        mode: f.mode.value().cloned().unwrap_or_else(|| "—".into()),
        arch: f.arch.value().cloned().unwrap_or_else(|| "—".into()),
        wall: f
            .fleet
            .wall
            .get()
            .map(|w| crate::timefmt::human_duration(crate::figures::secs_ms(w)))
            .unwrap_or_else(|| "—".into()),
        targets: f.targets.len(),
        critical: f
            .fleet
            .critical
            .value()
            .map(|c| c.node.clone())
            .unwrap_or_else(|| "—".into()),
        started: f
            .window
            .value()
            .map(|w| crate::timefmt::format_rfc3339(w.start))
            .unwrap_or_else(|| "—".into()),
        order: (f.started_us().map(crate::timefmt::format_rfc3339), dir.to_string()),
    }
}

/// Reports one run into `site/runs/<dir>/`; a run that cannot be reported
/// becomes a broken entry with the reason, never a failed publish.
fn build_run(
    dir: &str,
    path: &Path,
    opts: &PublishOptions,
) -> (RunEntry, crate::figures::Figures, Result<Vec<String>>) {
    let site = opts.site;
    let read = crate::model::Options {
        links: crate::model::Links::StayInside,
        root: Some(opts.root.to_path_buf()),
        ..opts.read.clone()
    };
    let unreadable = |reason: String| crate::figures::Figures::unreadable(dir, format!("broken: {reason}"));
    let broken_entry = |reason: String| RunEntry {
        dir: dir.to_string(),
        stamp: dir.to_string(),
        status: "broken".into(),
        reason: Some(reason),
        broken_inputs: vec![],
        mode: "—".into(),
        arch: "—".into(),
        wall: "—".into(),
        targets: 0,
        critical: "—".into(),
        started: "—".into(),
        order: (None, dir.to_string()),
    };
    let reported = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| crate::report_with(path, &read)))
        .unwrap_or_else(|_| {
            Err(Error::NotARun {
                path: path.to_path_buf(),
                reason: "perfreport panicked on this run (a bug: please report it)".into(),
            })
        });
    let report = match reported {
        Ok(r) => r,
        Err(e) => return (broken_entry(e.to_string()), unreadable(e.to_string()), Ok(vec![])),
    };
    // Every present input broke its contract: nothing in the report can be trusted.
    let entry = entry_of(dir, &report.figures, &report.broken_inputs, report.broken.clone());
    let mut figures = report.figures;
    figures.dir = dir.to_string();
    let files = match render::render_all_for(&report.view, Some("../../")) {
        Ok(f) => f,
        Err(e) => return (broken_entry(e.to_string()), unreadable(e.to_string()), Ok(vec![])),
    };
    let md = files
        .iter()
        .find(|f| f.path == Path::new("report.md"))
        .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
        .unwrap_or_default();
    let html = render::site::markdown_page(&format!("run {}", report.view.stamp), &md);
    let mut files = files;
    files.push(OutFile::new("report.html", html));
    let pages = files
        .iter()
        .map(|f| f.path.to_string_lossy().replace('\\', "/"))
        .collect();
    let written = write_all_inside(site, &Path::new("runs").join(dir), &files).map(|_| pages);
    (entry, figures, written)
}

/// With `--compare-previous`: each run's report page gets a section on what
/// changed since the run before it, and that run's page one on the run after.
/// Pairs that are not comparable say why instead of ranking anything.
fn compare_neighbours(opts: &PublishOptions, plans: &[Plan], runs: &[RunEntry]) -> Result<()> {
    let usable: Vec<&RunEntry> = runs.iter().filter(|r| r.status != "broken").collect();
    let load = |dir: &str| -> Option<crate::figures::Figures> {
        let path = &plans.iter().find(|p| p.0 == dir)?.1;
        let read = model::Options {
            links: model::Links::StayInside,
            root: Some(opts.root.to_path_buf()),
            ..opts.read.clone()
        };
        model::load_from(path, None, &read)
            .ok()
            .map(|r| crate::measure::analyse(&r).figures)
    };
    let views: BTreeMap<&str, crate::figures::Figures> = usable
        .iter()
        .filter_map(|r| Some((r.dir.as_str(), load(&r.dir)?)))
        .collect();
    // Bands from the comparable runs before each pair's newer run, never assumed when runs exist.
    let history: Vec<crate::figures::Figures> = views.values().cloned().collect();
    for r in &usable {
        let Some(v) = views.get(r.dir.as_str()) else { continue };
        let mut sections = String::new();
        // `usable` is newest first: the previous run is the next entry.
        let at = usable.iter().position(|x| x.dir == r.dir).unwrap_or(0);
        if let Some(prev) = usable.get(at + 1).and_then(|p| views.get(p.dir.as_str())) {
            let c = crate::compare::compare(prev, v, &history);
            sections.push_str(&render::site::compare_section(
                "Since the previous run",
                &prev.stamp,
                &c,
            )?);
        }
        if let Some(next) = at
            .checked_sub(1)
            .and_then(|i| usable.get(i))
            .and_then(|n| views.get(n.dir.as_str()))
        {
            let c = crate::compare::compare(v, next, &history);
            sections.push_str(&render::site::compare_section("Until the next run", &next.stamp, &c)?);
        }
        let out = real_dir_inside(opts.site, &Path::new("runs").join(&r.dir))?;
        let md = std::fs::read_to_string(out.join("report.md")).unwrap_or_default();
        let page = render::site::report_page(&v.stamp, &format!("{md}{sections}"));
        write_atomic(&out.join("report.html"), page.as_bytes())?;
    }
    Ok(())
}

/// Each run page rebuilt now leads with its night (`render::night`), and so
/// does the page of the comparable run before it, which gains its "next"
/// link; no other run's page is written.
fn lead_pages(
    opts: &PublishOptions,
    built: &[Built],
    judged: &[crate::history::regressions::KeyJudged],
    gate: &crate::gate::judge::GateOptions,
) -> Result<()> {
    if built.is_empty() {
        return Ok(());
    }
    let wanted: Vec<&str> = built.iter().map(|b| b.0.as_str()).collect();
    for (dir, night) in crate::gate::page::run_nights(judged, &wanted, gate) {
        lead_page(opts.site, &dir, &night)?;
    }
    Ok(())
}

/// Puts `night` first on one run's pages (report.md, report.html and the
/// interactive index.html), in place of the night they led with before.
fn lead_page(site: &Path, dir: &str, night: &crate::gate::page::RunNight) -> Result<()> {
    let out = real_dir_inside(site, &Path::new("runs").join(dir))?;
    let section = render::night::markdown(night);
    let Ok(md) = std::fs::read_to_string(out.join("report.md")) else {
        return Ok(());
    };
    let md = render::site::led_report_md(&md, &section);
    write_atomic(&out.join("report.md"), md.as_bytes())?;
    write_atomic(
        &out.join("report.html"),
        render::site::report_page(&night.gated.stamp, &md).as_bytes(),
    )?;
    if let Ok(page) = std::fs::read_to_string(out.join("index.html")) {
        write_atomic(
            &out.join("index.html"),
            render::site::led_index_page(&page, &section).as_bytes(),
        )?;
    }
    Ok(())
}

/// The site-wide pages: the run list the selectors read, the history from
/// the manifest's figures, and the index with each run's gate verdict.
fn write_site_pages(
    opts: &PublishOptions,
    runs: &[RunEntry],
    figures: &[crate::figures::Figures],
    unreadable: &[(String, String)],
    gate: &crate::gate::judge::GateOptions,
    verdicts: &BTreeMap<String, crate::gate::index::IndexVerdict>,
) -> Result<()> {
    let runs_js: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| serde_json::json!({"dir": r.dir, "stamp": r.stamp, "mode": r.mode, "status": r.status}))
        .collect();
    write_atomic(
        &opts.site.join("runs.js"),
        render::site::runs_script(&runs_js).as_bytes(),
    )?;
    let history = crate::history::site::view(
        &opts.root.display().to_string(),
        figures,
        unreadable,
        &crate::gate::index::history_verdicts(verdicts),
        &gate.accepted,
    );
    for f in render::history::site_files(history)? {
        write_atomic(&opts.site.join(&f.path), &f.bytes)?;
    }
    let index = render::site::index_page(&runs, verdicts, opts.bench.is_some())?;
    write_atomic(&opts.site.join("index.html"), index.as_bytes())?;
    Ok(())
}

/// The manifest the last publish left, from its bytes (empty when there is
/// none). Its keys name folders publish may remove: only names perfreport
/// derives count, any other is ignored with a warning. A manifest, or one
/// run in it, that cannot be read is said and its runs reported again.
fn previous_manifest<'b>(bytes: &'b [u8], warnings: &mut Vec<String>) -> Previous<'b> {
    if bytes.is_empty() {
        return Previous::default();
    }
    let raw: Manifest<&RawValue> = match serde_json::from_slice(bytes) {
        Ok(raw) => raw,
        Err(e) => {
            warnings.push(format!(
                "{MANIFEST} cannot be read (line {} column {}): every run is reported again",
                e.line(),
                e.column()
            ));
            return Previous::default();
        }
    };
    // Each run read on its own, so in parallel.
    let read: Vec<(&String, serde_json::Result<ManifestRun>)> = raw
        .runs
        .par_iter()
        .map(|(key, text)| (key, serde_json::from_str(text.get())))
        .collect();
    let mut runs = BTreeMap::new();
    for (key, run) in read {
        if !is_folder_name(key) {
            warnings.push(format!(
                "{MANIFEST}: entry {key:?} is not a run folder name perfreport derives: ignored"
            ));
            continue;
        }
        match run {
            Ok(run) => {
                runs.insert(key.clone(), run);
            }
            Err(_) => warnings.push(format!(
                "{MANIFEST}: entry {key:?} cannot be read: its run is reported again"
            )),
        }
    }
    Previous {
        tool: raw.tool,
        runs,
        text: raw.runs,
    }
}

/// A manifest larger than this is not read (a site of 1,000 runs keeps
/// about 2 MB of figures).
const MAX_MANIFEST_BYTES: u64 = 256 << 20;

/// The bytes of the manifest the last publish wrote, read as the history
/// cache is: only a regular file, not through a link, without blocking (a
/// FIFO planted at its name would hang publish), under a size bound (a link
/// to `/dev/zero` would fill memory). One that cannot be read is said, and
/// every run is reported again.
fn read_manifest(path: &Path, warnings: &mut Vec<String>) -> Vec<u8> {
    match crate::input::read_named(path, crate::input::ReadLinks::Refuse, MAX_MANIFEST_BYTES) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => vec![],
        Err(e) => {
            warnings.push(format!("{MANIFEST}: {e}: every run is reported again"));
            vec![]
        }
    }
}

pub fn publish(opts: &PublishOptions) -> Result<PublishOutcome> {
    let mut out = PublishOutcome::default();
    if !opts.root.is_dir() {
        return Err(Error::NotARun {
            path: opts.root.to_path_buf(),
            reason: "the runs root is not a directory".into(),
        });
    }
    std::fs::create_dir_all(opts.site).map_err(|source| Error::Write {
        path: opts.site.to_path_buf(),
        error: source,
    })?;
    let walked = crate::runs::walk(opts.root, Some(opts.site));
    let unreadable: Vec<(String, String)> = walked
        .unreadable
        .iter()
        .map(|(at, what)| (at.display().to_string(), what.clone()))
        .collect();
    let found = discover_walked(walked, &mut out.warnings);
    let manifest_path = opts.site.join(MANIFEST);
    let old_bytes = read_manifest(&manifest_path, &mut out.warnings);
    let mut old = previous_manifest(&old_bytes, &mut out.warnings);
    let plans = plan(opts, found, &old);
    // The runs to rebuild, in parallel across runs.
    let built: Vec<Built> = plans
        .par_iter()
        .filter(|p| p.3.is_none())
        .map(|(dir, path, _, _)| {
            let (entry, figures, written) = build_run(dir, path, opts);
            (dir.clone(), entry, figures, written)
        })
        .collect();
    let rows = gather_rows(opts, &plans, &built, &mut old, &mut out)?;
    // Runs gone from the root leave the site too, those whose entry could
    // not be read as well (`remove_run_folder` takes only derived names).
    for gone in old.text.keys().filter(|d| !rows.contains_key(d.as_str())) {
        remove_run_folder(opts.site, gone, &mut out.warnings);
    }
    // Newest first: by started_at, else by folder name.
    out.runs.sort_by(|a, b| b.order.cmp(&a.order));

    if let Some(bench) = opts.bench {
        let files = render::ratios::render(&crate::harness::ratios_view(bench, None)?)?;
        write_all_inside(opts.site, Path::new("bench"), &files)?;
    }
    let mut figures = vec![];
    let rows: Vec<(&str, Row, Option<usize>)> = rows
        .into_iter()
        .map(|(dir, mut row)| {
            let at = row.figures.take().map(|f| {
                figures.push(f);
                figures.len() - 1
            });
            (dir, row, at)
        })
        .collect();
    let gate = crate::gate::judge::GateOptions::with_accepted(&opts.root.join(crate::gate::judge::ACCEPTED_FILE))
        .map_err(Error::Accepted)?;
    // The history judged once, for the run pages' nights and the index.
    let judged = crate::history::regressions::judge_all(&figures);
    lead_pages(opts, &built, &judged, &gate)?;
    if opts.compare_previous {
        compare_neighbours(opts, &plans, &out.runs)?;
    }
    let verdicts = crate::gate::index::index_verdicts_judged(&figures, &judged, &gate);
    write_site_pages(opts, &out.runs, &figures, &unreadable, &gate, &verdicts)?;
    write_manifest(&manifest_path, &opts.read.cache_id(), &rows, &figures)?;
    Ok(out)
}

/// Each run's fingerprint, entry, figures and unchanged text, by folder
/// (the manifest's order, which history and the gate see the runs in). The
/// figures kept are moved out of the old manifest, never copied: there is
/// one per run.
fn gather_rows<'a>(
    opts: &PublishOptions,
    plans: &'a [Plan],
    built: &[Built],
    old: &mut Previous<'a>,
    out: &mut PublishOutcome,
) -> Result<BTreeMap<&'a str, Row<'a>>> {
    let mut rows: BTreeMap<&str, Row> = BTreeMap::new();
    for (dir, _path, fp, keep) in plans {
        let (entry, figures, text, pages) = match keep {
            Some((e, pages)) => {
                let m = old.runs.get_mut(dir);
                // Its text stands when it names the folder as derived now.
                let same = m
                    .as_ref()
                    .is_some_and(|m| m.entry.as_ref() == e && m.figures.as_ref().is_some_and(|f| f.dir == *dir));
                let figures = m.and_then(|m| m.figures.take()).map(Cow::into_owned);
                let text = old.text.get(dir).copied().filter(|_| same);
                (e.clone(), figures, text, pages.clone())
            }
            None => {
                let Some((_, e, figures, written)) = built.iter().find(|b| &b.0 == dir) else {
                    continue;
                };
                let pages = written.as_ref().map_err(|e| Error::Write {
                    path: opts.site.join("runs").join(dir),
                    error: std::io::Error::other(e.to_string()),
                })?;
                out.rebuilt.push(dir.clone());
                (e.clone(), Some(figures.clone()), None, pages.clone())
            }
        };
        // The folder is the one derived now, as for the entry.
        let figures = figures.map(|f| crate::figures::Figures { dir: dir.clone(), ..f });
        out.runs.push(entry.clone());
        rows.insert(
            dir,
            Row {
                fingerprint: fp,
                pages,
                entry,
                figures,
                text,
            },
        );
    }
    Ok(rows)
}

/// Each run found with its fingerprint, and its entry when its pages stand
/// as they are (same inputs, same tool, every page present, no `--force`).
/// A run whose inputs cannot be fingerprinted is always reported again.
fn plan(opts: &PublishOptions, found: Vec<(String, PathBuf)>, old: &Previous) -> Vec<Plan> {
    let tool_changed = old.tool != opts.read.cache_id();
    found
        .into_iter()
        .map(|(dir, path)| {
            let fp = fingerprint(&path).unwrap_or_default();
            let folder = opts.site.join("runs").join(&dir);
            // Each page a regular file where it was written (a link there is not ours).
            let pages_stand = |pages: &[String]| {
                !pages.is_empty()
                    && pages
                        .iter()
                        .all(|p| std::fs::symlink_metadata(folder.join(p)).is_ok_and(|m| m.is_file()))
            };
            let unchanged = old.runs.get(&dir).filter(|m| {
                !fp.is_empty()
                    && *m.fingerprint == *fp
                    && m.figures.is_some()
                    && !tool_changed
                    && !opts.force
                    && pages_stand(&m.pages)
            });
            // The folder is the one derived now, never the entry's own `dir`.
            let keep = unchanged.map(|m| {
                let entry = RunEntry {
                    dir: dir.clone(),
                    order: (m.entry.order.0.clone(), dir.clone()),
                    ..m.entry.as_ref().clone()
                };
                (entry, m.pages.to_vec())
            });
            (dir, path, fp, keep)
        })
        .collect()
}

/// manifest.json: each run with its fingerprint, entry and figures (`at` in
/// `figures`), an unchanged one as the text it was read as.
fn write_manifest(
    path: &Path,
    tool: &str,
    rows: &[(&str, Row, Option<usize>)],
    figures: &[crate::figures::Figures],
) -> Result<()> {
    let manifest = Manifest {
        tool: tool.to_string(),
        runs: rows
            .iter()
            .map(|(dir, row, at)| {
                let run = match row.text {
                    Some(text) => Written::Unchanged(text),
                    None => Written::Run(Box::new(ManifestRun {
                        fingerprint: Cow::Borrowed(row.fingerprint),
                        pages: Cow::Borrowed(&row.pages),
                        entry: Cow::Borrowed(&row.entry),
                        figures: at.map(|i| Cow::Borrowed(&figures[i])),
                    })),
                };
                (dir.to_string(), run)
            })
            .collect(),
    };
    let mut m = serde_json::to_vec_pretty(&manifest).unwrap_or_default();
    m.push(b'\n');
    write_atomic(path, &m).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    /// A run's path under the root, one byte string per component.
    type RelPath<'a> = &'a [&'a [u8]];

    fn name(parts: RelPath) -> String {
        let rel: PathBuf = parts.iter().map(|p| OsStr::from_bytes(p)).collect();
        folder_name(&rel).unwrap()
    }

    #[test]
    fn run_folder_names_are_injective_and_ordinary_stamps_keep_theirs() {
        assert_eq!(name(&[b"20261020T020000Z"]), "20261020T020000Z");
        assert_eq!(name(&[b"20261019T020000Z-broken"]), "20261019T020000Z-broken");
        assert_eq!(name(&[b"nightly", b"20261020T020000Z"]), "nightly--20261020T020000Z");
        // Pairs a plain join (`--`, lossy UTF-8) would give one folder.
        let pairs: &[(RelPath, RelPath)] = &[
            (&[b"a", b"b"], &[b"a--b"]),
            (&[b"a-", b"b"], &[b"a", b"-b"]),
            (&[b"a", b"-", b"b"], &[b"a---b"]),
            (&[b"x\xff"], &[b"x\xfe"]),
            (&[b"x\xff"], &["x\u{fffd}".as_bytes()]),
            (&[b"a~2db"], &[b"a-b"]),
        ];
        for (one, other) in pairs {
            assert_ne!(name(one), name(other), "{one:?} vs {other:?}");
        }
        for parts in pairs.iter().flat_map(|(a, b)| [*a, *b]).chain([
            &[b"..." as &[u8]] as RelPath,
            &[b"run\x1b]0;t\x07", b"\xe2\x80\xae"],
            &[b"-"],
            &[b"~"],
            &[b"a\\b"],
        ]) {
            let n = name(parts);
            assert!(is_folder_name(&n), "{parts:?} -> {n}");
            let mut c = Path::new(&n).components();
            assert!(
                matches!((c.next(), c.next()), (Some(Component::Normal(_)), None)),
                "{n}"
            );
            assert!(!n.chars().any(crate::term::is_unsafe), "{n:?}");
        }
        assert_eq!(
            folder_name(&PathBuf::from("a".repeat(300))),
            None,
            "too long for a file system"
        );
        for unplain in ["..", ".", "/etc", "a/../b", ""] {
            assert_eq!(folder_name(Path::new(unplain)), None, "{unplain}");
        }
    }

    #[test]
    fn manifest_keys_that_are_not_derived_folder_names_are_refused() {
        for key in [
            "",
            ".",
            "..",
            "../../victim",
            "/etc",
            "a/b",
            "a/",
            "a---b",
            "-a",
            "a~zz",
            "a~2D",
            "a~+1",
            "~2e~2e/x",
            "a\x1b",
            "x----y",
        ] {
            assert!(!is_folder_name(key), "{key:?}");
        }
        for key in ["20261020T020000Z", "a--b", "a~2d~2db", "~2e~2e", "run x"] {
            assert!(is_folder_name(key), "{key:?}");
        }
    }

    /// A run as a previous publish wrote it into the manifest.
    fn written(dir: &str) -> String {
        let entry = RunEntry {
            dir: dir.into(),
            stamp: dir.into(),
            status: "complete".into(),
            reason: None,
            broken_inputs: vec![],
            mode: "cold".into(),
            arch: "x86_64".into(),
            wall: "1m".into(),
            targets: 1,
            critical: "—".into(),
            started: "—".into(),
            order: (None, dir.into()),
        };
        let run = ManifestRun {
            fingerprint: Cow::Owned("ab".into()),
            pages: Cow::Owned(vec!["index.html".into()]),
            entry: Cow::Owned(entry),
            figures: Some(Cow::Owned(crate::figures::Figures::unreadable(dir, "x".into()))),
        };
        serde_json::to_string(&run).unwrap()
    }

    #[test]
    fn one_manifest_run_that_cannot_be_read_is_named_and_the_others_still_count() {
        let text = format!(
            r#"{{"tool":"t","runs":{{"a":{},"b":[1],"c":{},"d":{{"pages":"x"}}}}}}"#,
            written("a"),
            written("c")
        );
        let mut warnings = vec![];
        let old = previous_manifest(text.as_bytes(), &mut warnings);
        assert_eq!(
            old.runs.keys().collect::<Vec<_>>(),
            ["a", "c"],
            "the readable runs are kept"
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].contains("\"b\"") && warnings[1].contains("\"d\""),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_manifest_that_cannot_be_read_is_said_not_silently_dropped() {
        let whole = format!(r#"{{"tool":"t","runs":{{"a":{}}}}}"#, written("a"));
        let nested = format!(r#"{{"tool":"t","runs":{{"a":{}}}}}"#, "[".repeat(100_000));
        for bad in [
            &whole.as_bytes()[..whole.len() / 2],
            b"[]",
            b"\xff\xfe",
            nested.as_bytes(),
        ] {
            let mut warnings = vec![];
            let old = previous_manifest(bad, &mut warnings);
            assert!(old.runs.is_empty());
            assert!(
                warnings.len() == 1 && warnings[0].contains("cannot be read"),
                "{warnings:?}"
            );
        }
        // No manifest yet (a new site): nothing to say.
        let mut warnings = vec![];
        previous_manifest(b"", &mut warnings);
        assert!(warnings.is_empty());
    }
}
