//! The run's traces: one BuildKit trace per target, decoded in parallel and
//! analysed once (their figures make the run's window, which the logs'
//! records must lie in); a live view decodes again only a trace whose file
//! changed.

use super::{read_opened, xxh3, RunDir, Small, TargetTrace};
use crate::input::trace;
use crate::input::InputReport;

/// Each trace of the run as last decoded, by file name, with the identity of
/// the file it was decoded from: a refresh decodes only a trace whose file
/// changed. It holds only the traces the last read found, so it costs what
/// the run holds (the run's traces are these, shared).
#[derive(Default)]
pub(crate) struct TraceCache {
    by_file: std::collections::BTreeMap<String, (TraceIdentity, TraceRead)>,
    /// How many traces were decoded through this cache (hits are not).
    decoded: u64,
}

impl TraceCache {
    /// How many traces were decoded through this cache, in all.
    #[cfg(test)]
    pub(crate) fn decoded(&self) -> u64 {
        self.decoded
    }

    /// How many traces it holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.by_file.len()
    }
}

/// What identifies the file a trace was decoded from, as opened: its
/// device and inode, size, modification and change times (to the
/// nanosecond), and the link's text when the name is a link. A file
/// rewritten in place, replaced, or a link re-pointed is another identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TraceIdentity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    link: Option<Vec<u8>>,
}

impl TraceIdentity {
    fn of(dir: &RunDir, name: &str, meta: &std::fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        TraceIdentity {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            link: dir.link_text(name),
        }
    }
}

/// One trace as read: its decoding (none when absent or unfit) and report.
pub(super) type TraceRead = (Option<std::sync::Arc<TargetTrace>>, InputReport);
/// The run's traces, decoded in parallel; with a cache, only those whose
/// file is not the one last decoded, and the cache then holds just the
/// traces read now.
pub(super) fn read_traces(
    dir: &RunDir,
    trace_files: &[(String, String)],
    cache: Option<&mut TraceCache>,
) -> Vec<TraceRead> {
    use rayon::prelude::*;
    let held = cache.as_deref();
    let read: Vec<(Option<TraceIdentity>, TraceRead, bool)> = trace_files
        .par_iter()
        .map(|(target, file)| {
            let opened = match dir.open(file) {
                Ok(o) => o,
                Err(not) => return (None, (None, not.report(file)), false),
            };
            let identity = held.map(|_| TraceIdentity::of(dir, file, &opened.meta));
            let hit = held
                .and_then(|c| c.by_file.get(file))
                .filter(|(was, _)| Some(was) == identity.as_ref());
            match hit {
                Some((_, kept)) => (identity, kept.clone(), false),
                None => (identity, read_trace(target, file, opened), true),
            }
        })
        .collect();
    let Some(cache) = cache else {
        return read.into_iter().map(|(_, r, _)| r).collect();
    };
    cache.by_file.clear();
    let mut out = Vec::with_capacity(read.len());
    for ((_, file), (identity, r, decoded)) in trace_files.iter().zip(read) {
        cache.decoded += u64::from(decoded);
        if let Some(identity) = identity {
            cache.by_file.insert(file.clone(), (identity, r.clone()));
        }
        out.push(r);
    }
    out
}

/// Decodes one trace, opened, and analyses it.
fn read_trace(target: &str, file: &str, opened: crate::input::read::Opened) -> TraceRead {
    let Small { data, mtime } = match read_opened(file, opened) {
        Ok(small) => small,
        Err(r) => return (None, *r),
    };
    let (decoded, stats) = trace::parse(&data);
    match decoded {
        Ok(t) => {
            let report = InputReport::from_parse(file, data.len() as u64, Some(t.encoding.label().into()), &stats)
                .with_identity(mtime, xxh3(&data));
            let tt = TargetTrace {
                target: target.to_string(),
                figures: crate::analysis::targets::analyse(&t.spans),
                spans: t.spans,
            };
            (Some(std::sync::Arc::new(tt)), report)
        }
        Err(reason) => {
            let r = InputReport::from_unfit_parse(file, data.len() as u64, &stats, reason)
                .with_identity(mtime, xxh3(&data));
            (None, r)
        }
    }
}
