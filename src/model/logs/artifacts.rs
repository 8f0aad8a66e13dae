//! artifacts.txt: what the run published.

use super::{read_small_log, Log, LogRead, LogSlot, ReadContext};
use crate::input::artifacts::Artifacts;
use crate::model::ARTIFACTS;

pub(super) struct ArtifactsFile;

impl Log for ArtifactsFile {
    fn file(&self) -> &'static str {
        ARTIFACTS
    }

    fn read(&self, cx: &ReadContext, _: Option<&mut LogSlot>) -> LogRead {
        let (a, report) = read_small_log(cx.dir, self.file(), "artifacts", Artifacts::default);
        LogRead::new(vec![report], move |run| {
            run.artifacts = a.map(|a| a.items).unwrap_or_default()
        })
    }
}
