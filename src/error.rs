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
    /// The message says the OS error; it is not also given as the error's
    /// cause, which a printed chain (`{:#}`) would say a second time.
    #[error("{}: {}", quote(&.path.display().to_string()), quote(&.error.to_string()))]
    Io { path: PathBuf, error: std::io::Error },
    /// An output could not be written: exit code 2, since nothing useful was
    /// produced. Its reason is in the message only, as for `Io`.
    #[error("cannot write {}: {}", quote(&.path.display().to_string()), quote(&.error.to_string()))]
    Write { path: PathBuf, error: std::io::Error },
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
