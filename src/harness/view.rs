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
    pub(crate) report: RatiosReport,
    /// bench.jsonl as read: lines, rows, malformed with their line numbers.
    pub input: InputReport,
    /// The fleet file that gave core counts, if any.
    pub(crate) fleet: Option<String>,
    pub(crate) provenance: RatiosProvenance,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct RatiosProvenance {
    pub(crate) tool: Tool,
    pub(crate) inputs: BTreeMap<String, InputIdentity>,
}
