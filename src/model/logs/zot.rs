//! zot.jsonl: the registry's log; the nodes' writes are kept apart to be
//! tied to their targets.

use super::{keep_if_inside, with_slot, Log, LogRead, LogSlot, ReadContext};
use crate::input::incremental;
use crate::input::zot::NodeHosts;
use crate::input::InputReport;
use crate::model::window::OutsideSaid;
use crate::model::{AnchoredWindow, Run, ZOT};

pub(super) struct ZotFile;

impl Log for ZotFile {
    fn file(&self) -> &'static str {
        ZOT
    }

    fn read(&self, cx: &ReadContext, slot: Option<&mut LogSlot>) -> LogRead {
        let format = Some("zot.jsonl: JSON lines".into());
        let hosts = NodeHosts::new(cx.node_hosts.clone());
        let tag = format!("{}{}", hosts.tag(), cx.window_tag);
        let make = || crate::input::zot::ZotLog::for_nodes(hosts.clone(), cx.write_cuts.clone()).within(cx.records);
        let (zot, mut report) = with_slot(slot, |cache| {
            incremental::read_log(cx.dir, self.file(), cx.tail, format, &tag, cache, make)
        });
        crate::input::zot::warn(zot.as_ref(), &mut report);
        LogRead::new(vec![report], move |run| run.zot = zot)
    }

    fn keep_to_window(&self, run: &mut Run, inputs: &mut [InputReport], _: AnchoredWindow, say: &OutsideSaid) {
        let outside = run.zot.as_ref().and_then(|z| z.outside);
        if !keep_if_inside(self.file(), outside, ("record", "records"), inputs, say) {
            run.zot = None;
        }
    }
}
