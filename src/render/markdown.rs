//! Markdown: `report.md`, from `templates/report.md.tera`, and compare's
//! report (`compare.md`: what the command prints and the site's run pages
//! carry). Every name from the runs is escaped as markdown text.

use super::Export;
use crate::compare::{CompareView, MetricChange};
use crate::error::{Error, Result};
use crate::escape::md_text as md;
use crate::output::OutFile;
use crate::view::View;

pub const FILE: &str = "report.md";
pub(crate) const COMPARE: &str = "compare.md";
const TEMPLATE: &str = include_str!("../../templates/report.md.tera");

pub struct Markdown;

/// A markdown template: every `{{ value }}` is escaped as markdown text
/// (`escape::md_text`) unless a filter made it safe, so no input string
/// becomes a block, a link, an image or HTML.
pub(crate) fn markdown_engine(name: &'static str, template: &str) -> Result<tera::Tera> {
    let mut t = engine(name, template)?;
    t.set_escape_fn(crate::escape::md_text);
    t.autoescape_on(vec![name]);
    Ok(t)
}

/// A template with escaping off; an HTML page turns tera's HTML escaping on.
pub(crate) fn engine(name: &str, template: &str) -> Result<tera::Tera> {
    let mut t = tera::Tera::default();
    t.autoescape_on(vec![]);
    super::filters::register(&mut t);
    t.add_raw_template(name, template).map_err(|e| Error::Template {
        name: name.into(),
        message: format!("{e:?}"),
    })?;
    Ok(t)
}

impl Export for Markdown {
    fn render(&self, view: &View) -> Result<Vec<OutFile>> {
        let mut t = markdown_engine(FILE, TEMPLATE)?;
        super::placement::add_section(&mut t)?;
        t.autoescape_on(vec![FILE, super::placement::SECTION]);
        let ctx = tera::Context::from_serialize(view).map_err(|e| Error::Template {
            name: FILE.into(),
            message: e.to_string(),
        })?;
        let text = t.render(FILE, &ctx).map_err(|e| Error::Template {
            name: FILE.into(),
            message: format!("{e:?}"),
        })?;
        Ok(vec![OutFile::new(FILE, tidy(&text))])
    }
}

impl Export<CompareView> for Markdown {
    fn render(&self, c: &CompareView) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(COMPARE, compare(c))])
    }
}

/// Collapses runs of blank lines the template's control tags leave behind.
pub(crate) fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// A metric's value as the report writes it (`38m52s`, not `2332.0`).
fn num(metric: &str, v: Option<f64>) -> String {
    v.map(|x| crate::fmt::metric(metric, x)).unwrap_or_else(|| "—".into())
}

/// Who compared what: the tool and both runs' coordinates and input hashes.
fn provenance_footer(c: &CompareView) -> String {
    let run = |p: &crate::view::Provenance| {
        let hashes: Vec<String> = p
            .inputs
            .iter()
            .map(|(n, i)| format!("{} {}", md(n), md(i.xxh3.as_deref().unwrap_or("—"))))
            .collect();
        format!(
            "- {}: mode {}, arch {}, job width {}, made by perfreport {} ({}); inputs: {}\n",
            md(&p.run.stamp),
            p.run
                .mode
                .get()
                .map(|m| format!("{m:?}").to_lowercase())
                .unwrap_or_else(|| "—".into()),
            md(p.run.arch.as_deref().unwrap_or("—")),
            p.run
                .job_width
                .get()
                .map(|w| w.to_string())
                .unwrap_or_else(|| "—".into()),
            p.tool.version,
            p.tool.commit,
            hashes.join(", ")
        )
    };
    format!(
        "\n## Provenance\n\nCompared by {}.\n\n{}{}",
        c.tool,
        run(&c.provenance_a),
        run(&c.provenance_b)
    )
}

/// A change's band with what it rests on: "±4.2% (3 earlier runs)", or assumed.
fn band_cell(ch: &MetricChange) -> String {
    let from = match ch.band_runs {
        0 => "assumed".to_string(),
        n => crate::fmt::counted(n as u64, "earlier run", "earlier runs"),
    };
    format!("±{}% ({from})", crate::fmt::fixed(ch.band_pct, 1))
}

/// The comparison as markdown; every name from the runs is escaped as
/// markdown text (it lands in the published report page too).
fn compare(c: &CompareView) -> String {
    let mut s = format!("# {} → {}\n\n", md(&c.a), md(&c.b));
    if !c.comparable {
        s.push_str("**Not comparable**: no ranking is given.\n\n");
        for r in &c.reasons {
            s.push_str(&format!("- {}\n", md(r)));
        }
        s.push_str(&provenance_footer(c));
        return s;
    }
    for w in &c.warnings {
        s.push_str(&format!("- ⚠ {}\n", md(w)));
    }
    let whys: Vec<&str> = c.targets.iter().filter_map(|t| t.why.as_deref()).collect();
    if !whys.is_empty() {
        s.push_str("\n## Why\n\n");
        for w in whys {
            s.push_str(&format!("- {w}\n"));
        }
    }
    if c.revision_a.is_some() || c.revision_b.is_some() {
        let r = |x: &Option<String>| x.as_deref().map(md).unwrap_or_else(|| "not recorded".into());
        if c.revision_a == c.revision_b {
            s.push_str(&format!("\nRevision: {} (both runs)\n", r(&c.revision_a)));
        } else {
            s.push_str(&format!("\nRevision: {} → {}\n", r(&c.revision_a), r(&c.revision_b)));
        }
    }
    s.push_str(&compare_targets(c));
    s.push_str(&compare_nodes(c));
    s.push_str(&provenance_footer(c));
    s
}

/// The comparison's targets: each metric's change against its band, and a
/// target that moved to another node.
fn compare_targets(c: &CompareView) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "\n## Targets\n\nA change inside its band is noise. A band is {}× the metric's robust spread over the newest {} comparable runs of the history root that started before B (how many, beside it); with fewer than {} it is ±{}%, assumed. Nodes are banded the same way.\n\n| target | metric | A | B | change | band | verdict |\n|---|---|--:|--:|--:|--:|---|\n",
        crate::analysis::spread::BAND_SPREADS,
        crate::analysis::spread::WINDOW,
        crate::analysis::spread::MIN_SPREAD_N,
        crate::compare::DEFAULT_BAND_PCT,
    ));
    for t in &c.targets {
        for (i, ch) in t.changes.iter().enumerate() {
            let name = if i == 0 { md(&t.target) } else { String::new() };
            let pct = ch
                .delta_pct
                .map(|p| crate::fmt::change(p, 1))
                .unwrap_or_else(|| "—".into());
            s.push_str(&format!(
                "| {name} | {} | {} | {} | {pct} | {} | {} |\n",
                ch.metric,
                num(ch.metric.name(), ch.a),
                num(ch.metric.name(), ch.b),
                band_cell(ch),
                ch.verdict
            ));
        }
        if let Some(m) = &t.moved {
            s.push_str(&format!(
                "| | placement | {} | {} | | | {} |\n",
                md(t.node_a.as_deref().unwrap_or("—")),
                md(t.node_b.as_deref().unwrap_or("—")),
                md(m)
            ));
        }
    }
    s
}

/// The comparison's nodes: each metric's change against its band.
fn compare_nodes(c: &CompareView) -> String {
    let mut s = String::new();
    s.push_str("\n## Nodes\n\n| node | metric | A | B | change | band | verdict |\n|---|---|--:|--:|--:|--:|---|\n");
    for n in &c.nodes {
        for ch in &n.changes {
            let pct = ch
                .delta_pct
                .map(|p| crate::fmt::change(p, 1))
                .unwrap_or_else(|| "—".into());
            s.push_str(&format!(
                "| {} | {} | {} | {} | {pct} | {} | {} |\n",
                md(&n.target),
                ch.metric,
                num(ch.metric.name(), ch.a),
                num(ch.metric.name(), ch.b),
                band_cell(ch),
                ch.verdict
            ));
        }
    }
    s
}
