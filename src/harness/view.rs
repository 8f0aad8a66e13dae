//! The view model of the ratios report (what ratios.json serialises); the
//! renderers in `render::ratios` only read it.

use super::ratios::RatiosReport;
use crate::input::InputReport;
use crate::view::{InputIdentity, Tool};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize)]
pub struct RatiosView {
    #[serde(flatten)]
    pub report: RatiosReport,
    /// bench.jsonl as read: lines, rows, malformed with their line numbers.
    pub input: InputReport,
    /// The fleet file that gave core counts, if any.
    pub fleet: Option<String>,
    pub provenance: RatiosProvenance,
}

#[derive(Debug, Clone, Serialize)]
pub struct RatiosProvenance {
    pub tool: Tool,
    pub inputs: BTreeMap<String, InputIdentity>,
}
