//! sccache.log: the compiler cache server's access log, parsed with the
//! run's log format and prefix; each node's requests count on a lane of
//! their own too.

use super::{keep_if_inside, with_slot, Log, LogRead, LogSlot, ReadContext};
use crate::input::incremental;
use crate::input::sccache::SccacheSink;
use crate::input::zot::NodeHosts;
use crate::input::InputReport;
use crate::model::window::OutsideSaid;
use crate::model::{AnchoredWindow, Run, SccacheInput, SCCACHE};

pub(super) struct SccacheFile;

impl Log for SccacheFile {
    fn file(&self) -> &'static str {
        SCCACHE
    }

    fn read(&self, cx: &ReadContext, slot: Option<&mut LogSlot>) -> LogRead {
        let format = std::sync::Arc::new(cx.format.clone());
        let prefix: Option<std::sync::Arc<str>> = cx
            .run
            .info
            .as_ref()
            .and_then(|i| i.sccache_prefix.as_deref())
            .map(Into::into);
        let hosts = NodeHosts::new(cx.node_hosts.clone());
        let describe = format.describe();
        // A changed log format or prefix invalidates what was parsed before.
        let tag = format!("{describe} prefix={prefix:?} nodes={}{}", hosts.tag(), cx.window_tag);
        let make = || {
            SccacheSink::new(format.clone(), prefix.clone())
                .for_nodes(hosts.clone())
                .within(cx.records)
        };
        let (sink, mut report) = with_slot(slot, |cache| {
            incremental::read_log(cx.dir, self.file(), cx.tail, Some(describe), &tag, cache, make)
        });
        let log = sink.map(|s| s.log);
        crate::input::sccache::warn(log.as_ref(), &format, &mut report);
        let sizes_known = format.has_request_length();
        LogRead::new(vec![report], move |run| {
            run.sccache = log.map(|log| SccacheInput { log, sizes_known });
        })
    }

    fn keep_to_window(&self, run: &mut Run, inputs: &mut [InputReport], _: AnchoredWindow, say: &OutsideSaid) {
        let outside = run.sccache.as_ref().and_then(|s| s.log.outside);
        if !keep_if_inside(self.file(), outside, ("request", "requests"), inputs, say) {
            run.sccache = None;
        }
    }
}
