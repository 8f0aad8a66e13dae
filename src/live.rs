//! The live view of a run in flight: the run read again and again, its big
//! logs parsed only from where the previous read stopped
//! (`input::incremental`).

use crate::error::Result;
use crate::model::LogCache;
use crate::model::{self, Run};
use std::path::{Path, PathBuf};

/// A run followed as it grows.
pub struct LiveRun {
    pub dir: PathBuf,
    pub cache: LogCache,
}

impl LiveRun {
    pub fn new(dir: &Path) -> Self {
        LiveRun {
            dir: dir.to_path_buf(),
            cache: LogCache::default(),
        }
    }

    /// Reads the run again, the big logs from where the last read stopped.
    pub fn load(&mut self) -> Result<Run> {
        model::load_with(&self.dir, Some(&mut self.cache))
    }
}
