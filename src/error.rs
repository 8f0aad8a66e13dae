//! Typed errors of the library; the binary wraps them with `anyhow`.
//! Their messages embed paths and input text and end up on a terminal, so
//! both are quoted there ([`crate::term::quote`]).

use crate::term::quote;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user pointed at something that is not a run: exit code 2.
    #[error("{}: {}", quote(&.path.display().to_string()), quote(.reason))]
    NotARun { path: PathBuf, reason: String },
    /// Reading an input failed at the OS level (permissions, vanished file).
    #[error("{}: {}", quote(&.path.display().to_string()), quote(&.source.to_string()))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// An output could not be written: exit code 2, since nothing useful was produced.
    #[error("cannot write {}: {}", quote(&.path.display().to_string()), quote(&.source.to_string()))]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The reviewed file of accepted regressions cannot be read: the gate
    /// would otherwise judge as if nothing were accepted.
    #[error("accepted regressions: {}", quote(.0))]
    Accepted(String),
    #[error("template {}: {}", quote(.name), quote(.message))]
    Template { name: String, message: String },
    #[error("chart {}: {}", quote(.name), quote(.message))]
    Chart { name: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
