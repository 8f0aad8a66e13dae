//! `data.json`: the view model as other tools read it.

use super::Export;
use crate::error::Result;
use crate::output::OutFile;
use crate::view::View;

pub(crate) const FILE: &str = "data.json";

pub(crate) struct Json;

impl Export for Json {
    fn render(&self, view: &View) -> Result<Vec<OutFile>> {
        // Serialising plain structs and maps cannot fail; if it ever did, an
        // empty object is better than a panic.
        // Compact: a 12-hour run's series would double in size pretty-printed,
        // and the page embeds this same text.
        let mut bytes = serde_json::to_vec(view).unwrap_or_else(|_| b"{}".to_vec());
        bytes.push(b'\n');
        Ok(vec![OutFile::new(FILE, bytes)])
    }
}
