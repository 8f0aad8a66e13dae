//! `index.html`: one self-contained page (CSS, JS and data inlined), so it
//! opens from `file://`, from a static host or a CI artifact with no request
//! to anything. The page draws its charts from the embedded view model; the
//! markdown report with its static SVG charts is kept inside `<noscript>`.

use super::Export;
use crate::error::{Error, Result};
use crate::output::OutFile;
use crate::view::View;

/// Embeds JSON inside `<script>` (see `escape::script_json`).
pub(crate) use crate::escape::script_json as script_safe;

pub(crate) const FILE: &str = "index.html";
const TEMPLATE: &str = include_str!("../../templates/index.html.tera");
const CSS: &str = include_str!("../../assets/report.css");
const JS: &str = include_str!("../../assets/page.js");

/// The base64 SHA-256 of each inline script the page runs, as a content
/// security policy names them (`'sha256-…'`): the page's only executable
/// inline script is page.js, the same text in every page; the data blocks
/// (`type="application/json"`) are not run.
pub(crate) fn inline_script_hashes() -> Vec<String> {
    use base64::Engine;
    let digest = ring::digest::digest(&ring::digest::SHA256, JS.as_bytes());
    vec![base64::engine::general_purpose::STANDARD.encode(digest.as_ref())]
}

/// The page is built from what the other renderers made of the same view.
pub(crate) struct Html<'a> {
    pub(crate) charts: &'a [OutFile],
    pub(crate) markdown: &'a [OutFile],
    pub(crate) json: &'a [OutFile],
    /// On a published site: the path to the site's root, for the run selector
    /// (which reads the list of runs from `runs.js` there, so adding a run
    /// does not rewrite every run page).
    pub(crate) site_root: Option<&'a str>,
}

/// Markdown to HTML with raw HTML shown as text, not written as markup:
/// whatever an input string smuggles past the escaping is displayed, never
/// run. Every page perfreport renders from markdown goes through here.
pub(crate) fn markdown_html(md: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser};
    let parser = Parser::new_ext(md, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        other => other,
    });
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, parser);
    body
}

/// Markdown rendered to HTML, each `![..](charts/x.svg)` replaced by the
/// chart itself, so the result requests nothing.
pub(crate) fn markdown_with_inline_charts(md: &str, charts: &[OutFile]) -> String {
    let mut body = markdown_html(md);
    for chart in charts {
        let path = chart.path.to_string_lossy().replace('\\', "/");
        let svg = String::from_utf8_lossy(&chart.bytes);
        let svg = match svg.find("<svg") {
            Some(i) => &svg[i..],
            None => &svg[..],
        };
        let figure = format!("<figure class=\"chart\" data-chart=\"{path}\">{svg}</figure>");
        // pulldown-cmark writes <p><img src="charts/x.svg" alt="..." /></p>
        if let Some(start) = body.find(&format!("<img src=\"{path}\"")) {
            let end = body[start..].find("/>").map(|e| start + e + 2).unwrap_or(body.len());
            body.replace_range(start..end, &figure);
        }
    }
    body.replace("<p><figure", "<figure")
        .replace("</figure></p>", "</figure>")
}

impl Export for Html<'_> {
    fn render(&self, view: &View) -> Result<Vec<OutFile>> {
        let md = self
            .markdown
            .first()
            .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
            .unwrap_or_default();
        let body = markdown_with_inline_charts(&md, self.charts);
        let json = self
            .json
            .first()
            .map(|f| String::from_utf8_lossy(&f.bytes).into_owned())
            .unwrap_or_else(|| "{}".into());
        let mut t = super::markdown::engine(FILE, TEMPLATE)?;
        t.autoescape_on(vec![FILE]);
        let mut ctx = tera::Context::new();
        ctx.insert("stamp", &view.stamp);
        ctx.insert("in_flight", &view.in_flight);
        ctx.insert("css", CSS);
        ctx.insert("js", JS);
        ctx.insert("body", &body);
        ctx.insert("data", &script_safe(json.trim_end()));
        // The page's colours come from the same constants as the SVG charts.
        ctx.insert("style", &script_safe(&super::page_style().to_string()));
        ctx.insert("version", crate::view::Tool::VERSION);
        ctx.insert("site_root", &self.site_root);
        let page = t.render(FILE, &ctx).map_err(|e| Error::Template {
            name: FILE.into(),
            message: format!("{e:?}"),
        })?;
        Ok(vec![OutFile::new(FILE, page)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The policy `serve` sends allows the page's inline scripts by hash:
    /// every script the page runs must be one hashed, byte for byte.
    #[test]
    fn every_inline_script_the_page_runs_is_one_its_policy_hashes() {
        use base64::Engine;
        let run = crate::model::load(std::path::Path::new("sample-runs/20261021T020000Z")).unwrap();
        let view = crate::view::build(&run);
        let files = crate::render::render_all(&view).unwrap();
        let page = files.iter().find(|f| f.path == std::path::Path::new(FILE)).unwrap();
        let page = String::from_utf8_lossy(&page.bytes);
        let hashes = inline_script_hashes();
        let mut run = 0;
        for part in page.split("<script").skip(1) {
            let (attrs, rest) = part.split_once('>').unwrap();
            if attrs.contains("application/json") || attrs.contains("src=") {
                continue;
            }
            let body = rest.split_once("</script>").unwrap().0;
            let digest = ring::digest::digest(&ring::digest::SHA256, body.as_bytes());
            let hash = base64::engine::general_purpose::STANDARD.encode(digest.as_ref());
            assert!(hashes.contains(&hash), "an inline script not hashed: {attrs}");
            run += 1;
        }
        assert_eq!(run, hashes.len(), "each hash is of a script the page has");
    }

    #[test]
    fn a_closing_script_tag_in_the_data_cannot_end_the_script() {
        assert_eq!(
            script_safe(r#"{"w":"</script><b>"}"#),
            r#"{"w":"\u003c/script\u003e\u003cb\u003e"}"#
        );
    }

    #[test]
    fn raw_html_in_markdown_is_shown_as_text() {
        let html = markdown_html("<script>alert(1)</script>\n\na <img src=x onerror=alert(1)> b\n");
        assert!(!html.contains("<script") && !html.contains("<img"), "{html}");
        assert!(
            html.contains("&lt;script&gt;") && html.contains("&lt;img src=x"),
            "{html}"
        );
    }
}
