//! Typed errors of the library; the binary wraps them with `anyhow`.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user pointed at something that is not a run: exit code 2.
    #[error("{path}: {reason}")]
    NotARun { path: PathBuf, reason: String },
    /// Reading an input failed at the OS level (permissions, vanished file).
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// An output could not be written: exit code 2, since nothing useful was produced.
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("template {name}: {message}")]
    Template { name: String, message: String },
    #[error("chart {name}: {message}")]
    Chart { name: String, message: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
