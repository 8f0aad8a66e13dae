//! `perfreport publish`: a static site over every run under a root, with a
//! selector from run to run. Incremental: a manifest of each run's inputs
//! (names, sizes, modification times) and of the tool decides what to
//! rebuild, so adding one run to a site of 200 costs that run's report and
//! the index.

use crate::error::{Error, Result};
use crate::output::{write_all, write_atomic, OutFile};
use crate::{model, render, view};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const SITE_TEMPLATE: &str = include_str!("../templates/site.html.tera");
pub const MANIFEST: &str = "manifest.json";

/// One run as the site index lists it; display-ready.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunEntry {
    /// The run's folder under `runs/` (its path under the root).
    pub dir: String,
    pub stamp: String,
    /// complete, in flight or broken.
    pub status: String,
    pub reason: Option<String>,
    pub mode: String,
    pub arch: String,
    pub wall: String,
    pub targets: usize,
    pub critical: String,
    pub started: String,
    /// Sort key: run.json's started_at, else the folder name.
    pub order: (Option<String>, String),
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct ManifestRun {
    /// (file name, bytes, modification time in ns) of every file in the run folder.
    inputs: Vec<(String, u64, i128)>,
    entry: RunEntry,
}

#[derive(Debug, Clone, Serialize, Deserialize, Default)]
struct Manifest {
    /// A different tool rebuilds everything: its figures may differ.
    tool: String,
    runs: BTreeMap<String, ManifestRun>,
}

/// (folder, path, fingerprint, the entry to keep when nothing changed)
type Plan = (String, PathBuf, Vec<(String, u64, i128)>, Option<RunEntry>);

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
}

fn tool_id() -> String {
    format!("{} {}", env!("CARGO_PKG_VERSION"), env!("PERFREPORT_COMMIT"))
}

/// The run folders under `root`, found with walkdir: symlinks followed,
/// loops reported and skipped, the site itself left out.
pub fn discover(root: &Path, site: &Path, warnings: &mut Vec<String>) -> Vec<(String, PathBuf)> {
    let site = site.canonicalize().ok();
    let mut found = vec![];
    let mut walk = walkdir::WalkDir::new(root)
        .follow_links(true)
        .min_depth(1)
        .max_depth(3)
        .sort_by_file_name()
        .into_iter();
    while let Some(entry) = walk.next() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let what = if e.loop_ancestor().is_some() {
                    "symlink loop"
                } else {
                    "unreadable"
                };
                let at = e.path().map(|p| p.display().to_string()).unwrap_or_default();
                warnings.push(format!("{what} at {at}: skipped"));
                continue;
            }
        };
        if !entry.file_type().is_dir() {
            continue;
        }
        if site.is_some() && entry.path().canonicalize().ok() == site {
            walk.skip_current_dir();
            continue;
        }
        if model::is_run_dir(entry.path()) {
            let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
            let dir = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("--");
            found.push((dir, entry.path().to_path_buf()));
            walk.skip_current_dir();
        }
    }
    found
}

/// What identifies the state of a run folder: its input files' names, sizes
/// and modification times (publish's manifest, serve's change detection).
pub(crate) fn fingerprint(dir: &Path) -> Vec<(String, u64, i128)> {
    let mut files: Vec<(String, u64, i128)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| {
                    let m = e.metadata().ok()?;
                    if !m.is_file() {
                        return None;
                    }
                    let ns = m
                        .modified()
                        .ok()?
                        .duration_since(std::time::UNIX_EPOCH)
                        .ok()?
                        .as_nanos() as i128;
                    let name = e.file_name().to_string_lossy().into_owned();
                    // Our own outputs, when a report was written into the run folder, are not inputs.
                    let output =
                        ["report.md", "index.html", "data.json"].contains(&name.as_str()) || name.starts_with('.');
                    (!output).then_some((name, m.len(), ns))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn entry_of(dir: &str, v: &view::View, broken: Option<String>) -> RunEntry {
    let status = match (&broken, v.in_flight) {
        (Some(_), _) => "broken",
        (None, true) => "in flight",
        (None, false) => "complete",
    };
    RunEntry {
        dir: dir.to_string(),
        stamp: v.stamp.clone(),
        status: status.into(),
        reason: broken,
        mode: v
            .mode
            .map(|m| format!("{m:?}").to_lowercase())
            .unwrap_or_else(|| "—".into()),
        arch: v.arch.clone().unwrap_or_else(|| "—".into()),
        wall: v
            .fleet
            .wall_s
            .map(crate::timefmt::human_duration)
            .unwrap_or_else(|| "—".into()),
        targets: v.targets.len(),
        critical: v
            .fleet
            .critical
            .as_ref()
            .map(|c| c.node.clone())
            .unwrap_or_else(|| "—".into()),
        started: v.window.as_ref().map(|w| w.start.clone()).unwrap_or_else(|| "—".into()),
        order: (v.started_at.clone(), dir.to_string()),
    }
}

/// Reports one run into `site/runs/<dir>/`; a run that cannot be reported
/// becomes a broken entry with the reason, never a failed publish.
fn build_run(dir: &str, path: &Path, site: &Path) -> (RunEntry, Result<()>) {
    let out = site.join("runs").join(dir);
    let broken_entry = |reason: String| RunEntry {
        dir: dir.to_string(),
        stamp: dir.to_string(),
        status: "broken".into(),
        reason: Some(reason),
        mode: "—".into(),
        arch: "—".into(),
        wall: "—".into(),
        targets: 0,
        critical: "—".into(),
        started: "—".into(),
        order: (None, dir.to_string()),
    };
    let reported = std::panic::catch_unwind(|| crate::report(path)).unwrap_or_else(|_| {
        Err(Error::NotARun {
            path: path.to_path_buf(),
            reason: "perfreport panicked on this run (a bug: please report it)".into(),
        })
    });
    let report = match reported {
        Ok(r) => r,
        Err(e) => return (broken_entry(e.to_string()), Ok(())),
    };
    // Every present input broke its contract: nothing in the report can be trusted.
    let present: Vec<_> = report.view.inputs.values().filter(|i| i.present).collect();
    let broken = (!present.is_empty() && present.iter().all(|i| i.contract_broken)).then(|| {
        let first = present
            .iter()
            .map(|i| i.warnings.join("; "))
            .find(|w| !w.is_empty())
            .unwrap_or_default();
        format!("no input could be read ({first})")
    });
    let entry = entry_of(dir, &report.view, broken);
    let files = match render::render_all_for(&report.view, Some("../../")) {
        Ok(f) => f,
        Err(e) => return (broken_entry(e.to_string()), Ok(())),
    };
    let md = files
        .iter()
        .find(|f| f.path == Path::new("report.md"))
        .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
        .unwrap_or_default();
    let html = markdown_page(&format!("run {}", report.view.stamp), &md);
    let mut files = files;
    files.push(OutFile::new("report.html", html));
    let written = write_all(&out, &files).map(|_| ());
    (entry, written)
}

/// With `--compare-previous`: each run's report page gets a section on what
/// changed since the run before it, and that run's page one on the run after.
/// Pairs that are not comparable say why instead of ranking anything.
fn compare_neighbours(opts: &PublishOptions, plans: &[Plan], runs: &[RunEntry]) -> Result<()> {
    let usable: Vec<&RunEntry> = runs.iter().filter(|r| r.status != "broken").collect();
    let load = |dir: &str| -> Option<view::View> {
        let path = &plans.iter().find(|p| p.0 == dir)?.1;
        model::load(path).ok().map(|r| view::build(&r))
    };
    let views: BTreeMap<&str, view::View> = usable
        .iter()
        .filter_map(|r| Some((r.dir.as_str(), load(&r.dir)?)))
        .collect();
    for r in &usable {
        let Some(v) = views.get(r.dir.as_str()) else { continue };
        let mut sections = String::new();
        // `usable` is newest first: the previous run is the next entry.
        let at = usable.iter().position(|x| x.dir == r.dir).unwrap_or(0);
        if let Some(prev) = usable.get(at + 1).and_then(|p| views.get(p.dir.as_str())) {
            let c = crate::compare::compare(prev, v, &[]);
            sections.push_str(&format!(
                "\n\n## Since the previous run ({})\n\n",
                render::escape::md_text(&prev.stamp)
            ));
            sections.push_str(&demote(&crate::compare::render_markdown(&c)));
        }
        if let Some(next) = at
            .checked_sub(1)
            .and_then(|i| usable.get(i))
            .and_then(|n| views.get(n.dir.as_str()))
        {
            let c = crate::compare::compare(v, next, &[]);
            sections.push_str(&format!(
                "\n\n## Until the next run ({})\n\n",
                render::escape::md_text(&next.stamp)
            ));
            sections.push_str(&demote(&crate::compare::render_markdown(&c)));
        }
        let out = opts.site.join("runs").join(&r.dir);
        let md = std::fs::read_to_string(out.join("report.md")).unwrap_or_default();
        let page = markdown_page(&format!("run {}", v.stamp), &format!("{md}{sections}"));
        write_atomic(&out.join("report.html"), page.as_bytes())?;
    }
    Ok(())
}

/// Headings one level down, so a compare report nests under a section.
fn demote(md: &str) -> String {
    md.lines()
        .map(|l| {
            if l.starts_with('#') {
                format!("##{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// report.md as a page: its markdown with raw HTML shown as text, the
/// charts as images beside it.
fn markdown_page(title: &str, md: &str) -> String {
    let body = render::html::markdown_html(md);
    let body = format!(
        "<p><a href=\"index.html\">Interactive page</a> · <a href=\"../../index.html\">All runs</a></p>\n{body}"
    );
    let render = || -> Result<String> {
        let mut t = render::markdown::engine("page", render::ratios::PAGE)?;
        t.autoescape_on(vec!["page"]);
        let mut ctx = tera::Context::new();
        ctx.insert("css", render::ratios::CSS);
        ctx.insert("title", title);
        ctx.insert("body", &body);
        t.render("page", &ctx).map_err(|e| Error::Template {
            name: "page".into(),
            message: format!("{e:?}"),
        })
    };
    render().unwrap_or(body)
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
        source,
    })?;
    let found = discover(opts.root, opts.site, &mut out.warnings);
    let manifest_path = opts.site.join(MANIFEST);
    let old: Manifest = std::fs::read(&manifest_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let tool_changed = old.tool != tool_id();

    let plans: Vec<Plan> = found
        .into_iter()
        .map(|(dir, path)| {
            let fp = fingerprint(&path);
            let pages_exist = opts.site.join("runs").join(&dir).join("index.html").exists();
            let unchanged = old
                .runs
                .get(&dir)
                .filter(|m| m.inputs == fp && pages_exist && !tool_changed && !opts.force);
            let keep = unchanged.map(|m| m.entry.clone());
            (dir, path, fp, keep)
        })
        .collect();
    // The runs to rebuild, in parallel across runs.
    let built: Vec<(String, RunEntry, Result<()>)> = plans
        .par_iter()
        .filter(|p| p.3.is_none())
        .map(|(dir, path, _, _)| {
            let (entry, written) = build_run(dir, path, opts.site);
            (dir.clone(), entry, written)
        })
        .collect();
    let mut manifest = Manifest {
        tool: tool_id(),
        runs: BTreeMap::new(),
    };
    for (dir, _path, fp, keep) in &plans {
        let entry = match keep {
            Some(e) => e.clone(),
            None => {
                let Some((_, e, written)) = built.iter().find(|b| &b.0 == dir) else {
                    continue;
                };
                written.as_ref().map_err(|e| Error::Write {
                    path: opts.site.join("runs").join(dir),
                    source: std::io::Error::other(e.to_string()),
                })?;
                out.rebuilt.push(dir.clone());
                e.clone()
            }
        };
        manifest.runs.insert(
            dir.clone(),
            ManifestRun {
                inputs: fp.clone(),
                entry: entry.clone(),
            },
        );
        out.runs.push(entry);
    }
    // Runs gone from the root leave the site too.
    for gone in old.runs.keys().filter(|d| !manifest.runs.contains_key(*d)) {
        let _ = std::fs::remove_dir_all(opts.site.join("runs").join(gone));
    }
    // Newest first: by started_at, else by folder name.
    out.runs.sort_by(|a, b| b.order.cmp(&a.order));

    if let Some(bench) = opts.bench {
        let (_, files) = crate::bench::ratios_report(bench, None)?;
        write_all(&opts.site.join("bench"), &files)?;
    }
    if opts.compare_previous {
        compare_neighbours(opts, &plans, &out.runs)?;
    }
    let runs_js: Vec<serde_json::Value> = out
        .runs
        .iter()
        .map(|r| serde_json::json!({"dir": r.dir, "stamp": r.stamp, "mode": r.mode, "status": r.status}))
        .collect();
    let js = format!(
        "// The runs of this site, newest first: read by each run page's selector.\nwindow.PERF_RUNS = {};\n",
        render::html::script_safe(&serde_json::to_string(&runs_js).unwrap_or_else(|_| "[]".into()))
    );
    write_atomic(&opts.site.join("runs.js"), js.as_bytes())?;
    let mut t = render::markdown::engine("site.html", SITE_TEMPLATE)?;
    t.autoescape_on(vec!["site.html"]);
    let mut ctx = tera::Context::new();
    ctx.insert("css", render::ratios::CSS);
    ctx.insert("runs", &out.runs);
    ctx.insert("bench", &opts.bench.is_some());
    let index = t.render("site.html", &ctx).map_err(|e| Error::Template {
        name: "site.html".into(),
        message: format!("{e:?}"),
    })?;
    write_atomic(&opts.site.join("index.html"), index.as_bytes())?;
    let mut m = serde_json::to_vec_pretty(&manifest).unwrap_or_default();
    m.push(b'\n');
    write_atomic(&manifest_path, &m)?;
    Ok(out)
}
