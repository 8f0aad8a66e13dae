//! The site's own pages, beside each run's report: the index listing every
//! run with its gate verdict, the run list each run page's selector reads,
//! a run's report.md as a page, and the sections publish adds to a run's
//! pages (its night first, its neighbours' comparisons after). `publish`
//! decides what goes on them and writes them.

use crate::error::{Error, Result};
use crate::render;
use serde::Serialize;

const SITE_TEMPLATE: &str = include_str!("../../templates/site.html.tera");

/// The index page: every run (newest first) with its verdict.
pub(crate) fn index_page(runs: &impl Serialize, verdicts: &impl Serialize, bench: bool) -> Result<String> {
    let mut t = render::markdown::engine("site.html", SITE_TEMPLATE)?;
    t.autoescape_on(vec!["site.html"]);
    let mut ctx = tera::Context::new();
    ctx.insert("css", render::ratios::CSS);
    ctx.insert("runs", runs);
    ctx.insert("verdicts", verdicts);
    ctx.insert("bench", &bench);
    t.render("site.html", &ctx).map_err(|e| Error::Template {
        name: "site.html".into(),
        message: format!("{e:?}"),
    })
}

/// `runs.js`: the runs of the site, newest first, as each run page's selector reads them.
pub(crate) fn runs_script(runs: &[serde_json::Value]) -> String {
    format!(
        "// The runs of this site, newest first: read by each run page's selector.\nwindow.PERF_RUNS = {};\n",
        render::html::script_safe(&serde_json::to_string(runs).unwrap_or_else(|_| "[]".into()))
    )
}

/// report.md as a page: its markdown with raw HTML shown as text, the
/// charts as images beside it.
pub(crate) fn markdown_page(title: &str, md: &str) -> String {
    markdown_page_led(title, "", "", md)
}

/// A published page whose markdown `head` (its title) is followed by a lead
/// section (a run's night, in `<section class="night">`) and then `md`.
pub(crate) fn markdown_page_led(title: &str, head: &str, lead: &str, md: &str) -> String {
    let lead = if lead.is_empty() {
        String::new()
    } else {
        format!(
            "<section class=\"night\" aria-label=\"This night\">\n{}</section>\n",
            render::html::markdown_html(lead)
        )
    };
    let body = format!(
        "{}{lead}{}",
        render::html::markdown_html(head),
        render::html::markdown_html(md)
    );
    let body = format!(
        "<p><a href=\"index.html\">Interactive page</a> · <a href=\"../../index.html\">All runs</a> · <a href=\"../../history.html\">History</a></p>\n{body}"
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

/// Where a run's night section ends in its report.md.
const NIGHT_END: &str = "\n---\n\n";

/// report.html from a run's report.md: its night (when it leads with one)
/// in a section of its own, then the rest.
pub(crate) fn report_page(stamp: &str, md: &str) -> String {
    let title = format!("run {stamp}");
    let (head, rest) = md.split_once('\n').unwrap_or((md, ""));
    let rest = rest.trim_start_matches('\n');
    match rest
        .strip_prefix("## This night:")
        .and_then(|r| r.split_once(NIGHT_END))
    {
        Some((night, after)) => markdown_page_led(&title, head, &format!("## This night:{night}\n"), after),
        None => markdown_page(&title, md),
    }
}

/// A run's report.md led by `night` (markdown from `render::night`), in
/// place of the night it led with before.
pub(crate) fn led_report_md(md: &str, night: &str) -> String {
    let (title, rest) = md.split_once('\n').unwrap_or((md, ""));
    let rest = rest.trim_start_matches('\n');
    let rest = match rest.strip_prefix("## This night:") {
        Some(old) => old.split_once(NIGHT_END).map_or(rest, |(_, after)| after),
        None => rest,
    };
    format!("{title}\n\n{night}{}{rest}", NIGHT_END.trim_start_matches('\n'))
}

/// A run's interactive index.html led by `night`: first in its header,
/// under the run's title and status, in place of the night it led with.
pub(crate) fn led_index_page(page: &str, night: &str) -> String {
    let block = format!(
        "<section id=\"night\" class=\"night\" aria-label=\"This night\">\n{}</section>\n",
        render::html::markdown_html(night)
    );
    match (page.find("<section id=\"night\""), page.find("  <ul id=\"summary\">")) {
        (Some(a), _) => match page[a..].find("</section>\n") {
            Some(e) => format!("{}{block}{}", &page[..a], &page[a + e + "</section>\n".len()..]),
            None => page.to_string(),
        },
        (None, Some(m)) => format!("{}{block}{}", &page[..m], &page[m..]),
        (None, None) => page.to_string(),
    }
}

/// A comparison with a neighbouring run as a section of a run's page
/// ("Since the previous run (STAMP)"), its headings one level down.
pub(crate) fn compare_section(heading: &str, stamp: &str, c: &crate::compare::CompareView) -> Result<String> {
    let body = render::printed(&render::markdown::Markdown, c)?;
    Ok(format!(
        "\n\n## {heading} ({})\n\n{}",
        crate::escape::md_text(stamp),
        demote(&body)
    ))
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
