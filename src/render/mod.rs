//! Renderers: one module per output format behind one trait. They read the
//! view model and nothing else.

pub mod charts;
pub mod escape;
pub mod filters;
pub mod html;
pub mod json;
pub mod markdown;
pub mod metrics;
pub mod perfetto;
pub mod ratios;
pub mod summary;

use crate::error::Result;
use crate::output::OutFile;
use crate::view::View;

/// One output format.
pub trait Export {
    fn render(&self, view: &View) -> Result<Vec<OutFile>>;
}

/// The colours of nodes, shared by every chart and the page (Tableau 10:
/// distinguishable, and readable on light and dark backgrounds).
pub const PALETTE: [(u8, u8, u8); 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

pub fn colour(i: usize) -> (u8, u8, u8) {
    PALETTE[i % PALETTE.len()]
}

/// Everything a report consists of: data.json, charts, report.md, index.html.
pub fn render_all(view: &View) -> Result<Vec<OutFile>> {
    render_all_for(view, None)
}

/// As `render_all`; `site_root` is set for a run page of a published site.
pub fn render_all_for(view: &View, site_root: Option<&str>) -> Result<Vec<OutFile>> {
    // The page embeds the other three; those are independent of each other.
    let (charts, (markdown, json)) = rayon::join(
        || charts::Charts.render(view),
        || rayon::join(|| markdown::Markdown.render(view), || json::Json.render(view)),
    );
    let (charts, markdown, json) = (charts?, markdown?, json?);
    let html = html::Html {
        charts: &charts,
        markdown: &markdown,
        json: &json,
        site_root,
    }
    .render(view)?;
    Ok([json, markdown, charts, html].concat())
}
