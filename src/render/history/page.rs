//! The site's `history.html`: history.md's tables as HTML, and in place of
//! each key's static chart a panel per target drawn by `assets/history.js`
//! from compact data embedded in the page, where every point links to its
//! run's page. Self-contained (no request), so it opens from disk too; the
//! data is one number per run, target and metric, so the page stays small.

use crate::error::Result;
use crate::history::view::{HistoryView, KeyView};
use crate::render::html::{markdown_html, script_safe};
use serde::Serialize;
use std::collections::BTreeMap;

pub(crate) const FILE: &str = "history.html";
const TEMPLATE: &str = include_str!("../../../templates/history.html.tera");
const JS: &str = include_str!("../../../assets/history.js");

#[derive(Serialize)]
struct PageData<'a> {
    metrics: [crate::figures::Metric; 5],
    keys: Vec<PageKey<'a>>,
}

#[derive(Serialize)]
struct PageKey<'a> {
    label: &'a str,
    runs: &'a [String],
    /// Each run's folder under the site's `runs/`.
    dirs: &'a [String],
    /// Each run's day, for the time axis.
    days: &'a [Option<String>],
    targets: Vec<PageTarget<'a>>,
}

#[derive(Serialize)]
struct PageTarget<'a> {
    name: &'a str,
    /// Per run: `1` loaded, `0` not, `?` not known, `-` no such target.
    loaded: String,
    /// Per metric, one value per run (null: not measured), to 0.1.
    values: BTreeMap<&'a str, Vec<Option<f64>>>,
    /// Per metric, the run each change of level starts at, oldest first.
    changes: BTreeMap<&'a str, Vec<usize>>,
    /// Its most expensive step across the runs, and its seconds per run (null: not kept that run).
    slowest_step: Option<(&'a str, Vec<Option<f64>>)>,
}

fn page_key(k: &KeyView) -> PageKey<'_> {
    let targets = k
        .targets
        .iter()
        .map(|(name, metrics)| {
            let mut loaded = vec![b'-'; k.runs.len()];
            let mut values = BTreeMap::new();
            let mut changes = BTreeMap::new();
            for (m, v) in metrics {
                let mut row = vec![None; k.runs.len()];
                for p in &v.points {
                    if let Some(slot) = row.get_mut(p.run) {
                        *slot = Some((p.value * 10.0).round() / 10.0);
                    }
                    if let Some(l) = loaded.get_mut(p.run) {
                        *l = match p.loaded {
                            Some(true) => b'1',
                            Some(false) => b'0',
                            None => b'?',
                        };
                    }
                }
                values.insert(m.name(), row);
                let at: Vec<usize> = v
                    .change_points
                    .iter()
                    .filter_map(|c| k.runs.iter().position(|r| *r == c.stamp))
                    .collect();
                if !at.is_empty() {
                    changes.insert(m.name(), at);
                }
            }
            let slowest_step = k.step_durations.get(name.as_str()).and_then(|l| l.first()).map(|l| {
                let mut row = vec![None; k.runs.len()];
                for p in &l.points {
                    if let Some(slot) = row.get_mut(p.run) {
                        *slot = Some((p.value * 10.0).round() / 10.0);
                    }
                }
                (l.step.as_str(), row)
            });
            PageTarget {
                slowest_step,
                name,
                loaded: String::from_utf8_lossy(&loaded).into_owned(),
                values,
                changes,
            }
        })
        .collect();
    PageKey {
        label: &k.label,
        runs: &k.runs,
        dirs: &k.run_dirs,
        days: &k.run_days,
        targets,
    }
}

/// Replaces the paragraph holding `<img src="{src}" ...>` with `with`.
fn replace_image(body: &mut String, src: &str, with: &str) {
    let Some(img) = body.find(&format!("<img src=\"{src}\"")) else {
        return;
    };
    let start = if body[..img].ends_with("<p>") { img - 3 } else { img };
    let end = body[img..].find("/>").map_or(body.len(), |e| img + e + 2);
    let end = if body[end..].starts_with("</p>") { end + 4 } else { end };
    body.replace_range(start..end, with);
}

/// history.html from a view whose keys still name their charts (where the
/// panels go); `home` is the site's index, relative to the page.
pub(crate) fn render(view: &HistoryView) -> Result<String> {
    let mut body = markdown_html(&super::markdown(view)?);
    for (i, k) in view.keys.iter().enumerate() {
        if let Some(chart) = k.chart.value() {
            let slot = format!(
                "<div class=\"panels\" data-key=\"{i}\"><noscript><p>The charts need JavaScript; the table below holds every figure.</p></noscript></div>"
            );
            replace_image(&mut body, chart, &slot);
        }
    }
    let data = PageData {
        metrics: crate::figures::Metric::TARGET,
        keys: view.keys.iter().map(page_key).collect(),
    };
    let json = serde_json::to_string(&data).unwrap_or_else(|_| "{}".into());
    let mut t = crate::render::markdown::engine(FILE, TEMPLATE)?;
    t.autoescape_on(vec![FILE]);
    let mut ctx = tera::Context::new();
    ctx.insert("css", crate::render::ratios::CSS);
    ctx.insert("body", &body);
    ctx.insert("data", &script_safe(&json));
    ctx.insert("js", JS);
    ctx.insert("metrics", &crate::figures::Metric::TARGET);
    t.render(FILE, &ctx).map_err(|e| crate::error::Error::Template {
        name: FILE.into(),
        message: format!("{e:?}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_paragraph_becomes_the_panels() {
        let mut body =
            "<h2>k</h2>\n<p><img src=\"charts/history-a.svg\" alt=\"a &lt;b&gt;\" /></p>\n<table>".to_string();
        replace_image(&mut body, "charts/history-a.svg", "<div></div>");
        assert_eq!(body, "<h2>k</h2>\n<div></div>\n<table>");
    }
}
