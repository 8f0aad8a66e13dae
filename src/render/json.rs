//! JSON, as other tools read it: `data.json` (the report's view model),
//! `history.json`, and what `--json` prints of any command's view.

use super::Export;
use crate::error::Result;
use crate::output::OutFile;
use crate::view::View;
use serde::Serialize;

pub(crate) const FILE: &str = "data.json";

/// What a command's `--json` prints (the name of its one file).
pub(crate) const PRINTED: &str = "printed.json";

/// The report's `data.json`.
pub(crate) struct Json;

impl Export for Json {
    fn render(&self, view: &View) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(FILE, compact(view))])
    }
}

/// Any view, pretty-printed: what `--json` prints for a person to read and
/// a script to parse.
pub struct Pretty;

impl<V: Serialize + ?Sized> Export<V> for Pretty {
    fn render(&self, view: &V) -> Result<Vec<OutFile>> {
        // As in `compact`: plain structs and maps do not fail to serialise.
        let mut bytes = serde_json::to_vec_pretty(view).unwrap_or_else(|_| b"{}".to_vec());
        bytes.push(b'\n');
        Ok(vec![OutFile::new(PRINTED, bytes)])
    }
}

/// Any view as one line of JSON: what `history --json` prints, the same
/// text as the history.json it writes.
pub struct Compact;

impl<V: Serialize + ?Sized> Export<V> for Compact {
    fn render(&self, view: &V) -> Result<Vec<OutFile>> {
        Ok(vec![OutFile::new(PRINTED, compact(view))])
    }
}

/// A view as one line of JSON and a newline. Compact: a 12-hour run's
/// series would double in size pretty-printed, and the page embeds this
/// same text.
pub(crate) fn compact<V: Serialize + ?Sized>(view: &V) -> Vec<u8> {
    // Serialising plain structs and maps cannot fail; if it ever did, an
    // empty object is better than a panic.
    let mut bytes = serde_json::to_vec(view).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}
