//! What is needed to decide later whether a figure still holds: the tool
//! that made it, each input's identity, the run's coordinates. Facts of the
//! run, below every output that states them.

use super::Measured;
use crate::input::run_json::Mode;
use crate::measured::explained::{explained, Reasons, WhyNull};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Tool {
    pub(crate) name: &'static str,
    pub(crate) version: &'static str,
    /// The commit the binary was built from (`-dirty` with local changes).
    pub(crate) commit: &'static str,
}

/// The tool's identity, stated once: what every output, cache and
/// `--version` records of the binary that made it.
impl Tool {
    pub const NAME: &'static str = "perfreport";
    pub(crate) const VERSION: &'static str = env!("CARGO_PKG_VERSION");
    pub(crate) const COMMIT: &'static str = env!("PERFREPORT_COMMIT");
    /// `--version`: the version with the commit it was built from.
    pub const VERSION_LINE: &'static str =
        concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("PERFREPORT_COMMIT"), ")");

    pub(crate) fn this() -> Tool {
        Tool {
            name: Self::NAME,
            version: Self::VERSION,
            commit: Self::COMMIT,
        }
    }

    /// Version and commit, `0.1.0 7d9bb3130d26`: what a cache of figures
    /// is keyed by, so another build reads every run again.
    pub(crate) fn cache_id() -> String {
        format!("{} {}", Self::VERSION, Self::COMMIT)
    }
}

/// `perfreport 0.1.0 (commit 7d9bb3130d26)`: who made a report, in its text.
impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} (commit {})", self.name, self.version, self.commit)
    }
}

explained! {
    /// One input as read: enough to tell whether it changed since.
    #[derive(Debug, Clone, PartialEq)]
    pub(crate) struct InputIdentity {
        [measured] pub(crate) bytes: Measured<u64>,
        [measured] pub(crate) mtime: Measured<String>,
        [measured] pub(crate) xxh3: Measured<String>,
        [measured] pub(crate) read_as: Measured<String>,
        [reasons_or_skip] pub(crate) why_null: WhyNull,
        /// For an input read from a server: which, what was asked and how
        /// much came back.
        [skip_none] pub(crate) source: Option<ServerRead>,
    }
}

/// What a server was asked for a run, and how much it gave.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct ServerRead {
    /// The server's base URL, without credentials.
    pub(crate) server: String,
    pub(crate) start: String,
    pub(crate) end: String,
    pub(crate) step_s: f64,
    pub(crate) queries: Vec<String>,
    pub(crate) points: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct NodeCoordinate {
    pub(crate) name: String,
    pub(crate) cores: Option<u32>,
}

explained! {
    /// The run's coordinates: what decides what it may be compared with.
    #[derive(Debug, Clone, PartialEq)]
    pub(crate) struct RunCoordinates {
        [plain] pub(crate) stamp: String,
        [measured] pub(crate) mode: Measured<Mode>,
        [measured] pub(crate) arch: Measured<String>,
        [measured] pub(crate) namespace: Measured<String>,
        [measured] pub(crate) sccache_prefix: Measured<String>,
        [plain] pub(crate) nodes: Vec<NodeCoordinate>,
        [measured] pub(crate) job_width: Measured<u32>,
        /// The build repository's revision the run built (run.json `revision`).
        [measured] pub(crate) revision: Measured<String>,
        /// Reasons for parts: `nodes.cores`.
        [why_null] pub(crate) why_null: Reasons,
    }
}

/// Nothing in here changes between two runs of the same tool on the same
/// inputs: no generation time, no host name.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub(crate) struct Provenance {
    pub(crate) tool: Tool,
    /// Present inputs only, by file name.
    pub(crate) inputs: BTreeMap<String, InputIdentity>,
    pub(crate) run: RunCoordinates,
}
