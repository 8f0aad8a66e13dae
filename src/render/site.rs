//! The site's own pages, beside each run's report: the index listing every
//! run with its gate verdict, the run list each run page's selector reads,
//! and a run's report.md as a page. `publish` decides what goes on them.

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
