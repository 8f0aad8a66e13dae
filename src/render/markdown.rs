//! `report.md`, from `templates/report.md.tera`.

use super::Export;
use crate::error::{Error, Result};
use crate::output::OutFile;
use crate::view::View;

pub const FILE: &str = "report.md";
const TEMPLATE: &str = include_str!("../../templates/report.md.tera");

pub struct Markdown;

/// A markdown template: every `{{ value }}` is escaped as markdown text
/// (`escape::md_text`) unless a filter made it safe, so no input string
/// becomes a block, a link, an image or HTML.
pub fn markdown_engine(name: &'static str, template: &str) -> Result<tera::Tera> {
    let mut t = engine(name, template)?;
    t.set_escape_fn(crate::escape::md_text);
    t.autoescape_on(vec![name]);
    Ok(t)
}

/// A template with escaping off; an HTML page turns tera's HTML escaping on.
pub fn engine(name: &str, template: &str) -> Result<tera::Tera> {
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
