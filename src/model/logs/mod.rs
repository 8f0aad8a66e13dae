//! The run's logs (placement.txt, artifacts.txt, the node samples,
//! sccache.log, zot.jsonl), each one unit in a file of its own: how it is
//! read beside the others, what it hands the run, and how its records far
//! outside the run's window are left out. The model reads them as one list
//! (`LOGS`), so adding a log is a file here and its line in that list; what
//! a log's lines mean is its parser's, under `input`.

mod artifacts;
mod placement;
mod samples;
mod sccache;
mod zot;

use super::window::OutsideSaid;
use super::{AnchoredWindow, Options, Run, RunDir};
use crate::input::lines::{LineSink, Tail};
use crate::input::read::read_lines;
use crate::input::sccache::LogFormat;
use crate::input::window::RecordWindow;
use crate::input::writes::WriteCuts;
use crate::input::InputReport;
use std::sync::Arc;

/// One log of the run.
pub(super) trait Log: Sync {
    /// The file it is read from, in the run directory.
    fn file(&self) -> &'static str;

    /// Reads it, beside the other logs; `slot` is its part of a live
    /// view's cache (see `with_slot`), from which it reads on.
    fn read(&self, cx: &ReadContext, slot: Option<&mut LogSlot>) -> LogRead;

    /// Leaves out what it holds far outside the run's window, once every
    /// log is in the run and the run is bounded. Most logs left theirs out
    /// as they were read and only say so here.
    fn keep_to_window(&self, _run: &mut Run, _inputs: &mut [InputReport], _window: AnchoredWindow, _say: &OutsideSaid) {
    }
}

/// The run's logs, in the order they hand the run what they read.
pub(super) static LOGS: [&dyn Log; 5] = [
    &placement::PlacementFile,
    &artifacts::ArtifactsFile,
    &samples::SamplesSource,
    &sccache::SccacheFile,
    &zot::ZotFile,
];

/// A log as read: its reports (one per file it read), and what it hands
/// the run.
pub(super) struct LogRead {
    reports: Vec<InputReport>,
    hand: Box<dyn FnOnce(&mut Run) + Send>,
}

impl LogRead {
    fn new(reports: Vec<InputReport>, hand: impl FnOnce(&mut Run) + Send + 'static) -> Self {
        LogRead {
            reports,
            hand: Box::new(hand),
        }
    }

    /// Hands the run what was read, and its reports to `inputs`.
    pub(super) fn into_run(self, run: &mut Run, inputs: &mut Vec<InputReport>) {
        (self.hand)(run);
        inputs.extend(self.reports);
    }
}

/// What every log's read may need: the run as far as it is known (run.json
/// and the log format), whether a last line may still be being written, and
/// the window a log's records must lie in.
pub(super) struct ReadContext<'a> {
    pub(super) dir: &'a RunDir,
    pub(super) run: &'a Run,
    pub(super) format: &'a LogFormat,
    pub(super) opts: &'a Options,
    pub(super) tail: Tail,
    /// The window a big log's records must lie in (none without run.json's
    /// `started_at`), and its tag: a parse made with another window is not
    /// reused.
    pub(super) records: Option<RecordWindow>,
    pub(super) window_tag: String,
    /// How finely the registry's writes need keeping (every write in a live
    /// view, as its traces grow).
    pub(super) write_cuts: Option<Arc<WriteCuts>>,
    /// The nodes' addresses run.json gives, which tie a log's clients to nodes.
    pub(super) node_hosts: Vec<String>,
}

impl<'a> ReadContext<'a> {
    pub(super) fn new(
        (dir, run, format, opts): (&'a RunDir, &'a Run, &'a LogFormat, &'a Options),
        records: Option<RecordWindow>,
        write_cuts: Option<Arc<WriteCuts>>,
    ) -> Self {
        let tail = if run.info.as_ref().is_some_and(|i| !i.in_flight) {
            Tail::Complete
        } else {
            Tail::MayBePartial
        };
        let node_hosts = run
            .info
            .iter()
            .flat_map(|i| &i.nodes)
            .filter_map(|n| n.addr.clone())
            .collect();
        ReadContext {
            dir,
            run,
            format,
            opts,
            tail,
            window_tag: RecordWindow::tag(records.as_ref()),
            records,
            write_cuts,
            node_hosts,
        }
    }
}

/// A log's part of a live view's cache: what it tracks of its file
/// between refreshes, of its own type.
pub(crate) type LogSlot = Option<Box<dyn std::any::Any + Send>>;

/// Runs `read` with the slot as the log's own type, taken out for the read
/// and put back after. A slot holding another type (none does: each log
/// keeps its place in `LOGS`) is read as empty, so the log is read whole.
fn with_slot<T: Send + 'static, R>(slot: Option<&mut LogSlot>, read: impl FnOnce(Option<&mut Option<T>>) -> R) -> R {
    let Some(slot) = slot else {
        return read(None);
    };
    let mut held: Option<T> = slot
        .take()
        .and_then(|b| b.downcast::<Option<T>>().ok())
        .and_then(|b| *b);
    let out = read(Some(&mut held));
    *slot = Some(Box::new(held));
    out
}

/// Reads every log at once, each on its own (the big ones are themselves
/// parsed in parallel chunks); with a live view's cache, each from where
/// its last read stopped.
pub(super) fn read_all(cx: &ReadContext, cache: Option<&mut Vec<LogSlot>>) -> Vec<LogRead> {
    let slots: Vec<Option<&mut LogSlot>> = match cache {
        Some(c) => {
            c.resize_with(LOGS.len(), || None);
            c.iter_mut().map(Some).collect()
        }
        None => LOGS.iter().map(|_| None).collect(),
    };
    let mut reads: Vec<Option<LogRead>> = LOGS.iter().map(|_| None).collect();
    rayon::scope(|s| {
        for ((log, slot), out) in LOGS.iter().zip(slots).zip(reads.iter_mut()) {
            s.spawn(move |_| *out = Some(log.read(cx, slot)));
        }
    });
    reads.into_iter().flatten().collect()
}

/// A small log (placement, artifacts) read at once, its last line taken
/// as whole.
fn read_small_log<S, F>(dir: &RunDir, name: &str, format: &str, make: F) -> (Option<S>, InputReport)
where
    S: LineSink,
    F: Fn() -> S + Sync,
{
    read_lines(dir, name, Tail::Complete, Some(format.into()), make)
}

/// The input named `name`'s report.
fn report_of<'r>(inputs: &'r mut [InputReport], name: &str) -> Option<&'r mut InputReport> {
    inputs.iter_mut().find(|r| r.name == name)
}

/// Whether what log `file` gave the run stays once its records outside the
/// run's window (`outside`, counted as `noun`) are judged: it does when none
/// lay outside, or when some of its records fell inside; its report says
/// which (see [`OutsideSaid::judge`]).
fn keep_if_inside(
    file: &str,
    outside: Option<crate::input::window::Outside>,
    noun: (&str, &str),
    inputs: &mut [InputReport],
    say: &OutsideSaid,
) -> bool {
    let Some(o) = outside else {
        return true;
    };
    let inside = inputs.iter().any(|r| r.name == file && r.records > 0);
    if let Some(r) = report_of(inputs, file) {
        say.judge(r, noun, &o, inside);
    }
    inside
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::incremental::Tracked;
    use std::path::Path;

    /// Bytes of whole lines a live view's slot for `ZOT` has parsed.
    fn zot_offset(slots: &mut [LogSlot]) -> Option<u64> {
        let at = LOGS.iter().position(|l| l.file() == crate::model::ZOT)?;
        let held = slots.get(at)?.as_ref()?;
        held.downcast_ref::<Option<Tracked<crate::input::zot::ZotLog>>>()?
            .as_ref()
            .map(|t| t.offset())
    }

    /// serve refreshes a run in flight through each log's slot: a refresh
    /// after lines were appended parses from where the last read stopped, and
    /// the run's figures count the new lines as a whole read would.
    #[test]
    fn a_live_refresh_reads_each_log_on_from_its_slot() {
        let tmp = tempfile::tempdir().unwrap();
        let sample = Path::new("sample-runs/20261021T020000Z");
        for e in std::fs::read_dir(sample).unwrap().flatten() {
            std::fs::copy(e.path(), tmp.path().join(e.file_name())).unwrap();
        }
        let zot = tmp.path().join("zot.jsonl");
        // The sample is in flight, its last line half written: end it.
        let mut text = std::fs::read_to_string(&zot).unwrap();
        text.truncate(text.trim_end().rfind('\n').unwrap() + 1);
        std::fs::write(&zot, &text).unwrap();
        let mut cache = crate::model::RunCache::default();
        let opts = Options::default();
        let first = crate::model::load_from(tmp.path(), Some(&mut cache), &opts).unwrap();
        assert_eq!(cache.logs.len(), LOGS.len(), "one slot per log");
        assert_eq!(zot_offset(&mut cache.logs), Some(text.len() as u64));
        let line = text.lines().last().unwrap().to_string() + "\n";
        std::fs::write(&zot, text.clone() + &line + &line).unwrap();
        let again = crate::model::load_from(tmp.path(), Some(&mut cache), &opts).unwrap();
        assert_eq!(zot_offset(&mut cache.logs), Some((text.len() + 2 * line.len()) as u64));
        let records = |r: &Run| r.input(crate::model::ZOT).map(|i| i.records);
        assert_eq!(records(&again), records(&first).map(|n| n + 2));
        let whole = crate::model::load_from(tmp.path(), None, &opts).unwrap();
        assert_eq!(records(&whole), records(&again), "read on, as read whole");
    }

    #[test]
    fn a_slot_of_another_type_is_read_as_empty_and_then_holds_the_logs_own() {
        let mut slot: LogSlot = Some(Box::new(Some("not a tracked log")));
        let seen = with_slot::<u32, _>(Some(&mut slot), |held| held.map(|h| h.replace(7)));
        assert_eq!(seen, Some(None), "another type's state is not taken for this log's");
        let seen = with_slot::<u32, _>(Some(&mut slot), |held| held.and_then(|h| *h));
        assert_eq!(seen, Some(7), "what the read left is there at the next");
        assert!(with_slot::<u32, _>(None, |held| held.is_none()));
    }
}
