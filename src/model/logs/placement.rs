//! placement.txt: where the balancer put each target.

use super::{read_small_log, Log, LogRead, LogSlot, ReadContext};
use crate::input::placement::Placements;
use crate::model::PLACEMENT;

pub(super) struct PlacementFile;

impl Log for PlacementFile {
    fn file(&self) -> &'static str {
        PLACEMENT
    }

    fn read(&self, cx: &ReadContext, _: Option<&mut LogSlot>) -> LogRead {
        let (p, report) = read_small_log(cx.dir, self.file(), "placement", Placements::default);
        LogRead::new(vec![report], move |run| {
            run.placements = p.map(|p| p.items).unwrap_or_default()
        })
    }
}
