//! The big line-oriented logs of a run in flight, each read on from where
//! the previous read stopped (the engine's `perfreport_scan::resume`, which
//! also notices a log truncated or replaced), into the input reports the
//! run model takes.

use super::lines::{LineSink, Tail};
use super::read::RunDir;
use super::InputReport;
pub(crate) use perfreport_scan::resume::Tracked;

/// Reads a log whole, or with a slot of a cache, from where the previous
/// read stopped: the one way the model reads its big logs.
pub(crate) fn read_log<S, F>(
    dir: &RunDir,
    name: &str,
    tail: Tail,
    format: Option<String>,
    tag: &str,
    slot: Option<&mut Option<Tracked<S>>>,
    make: F,
) -> (Option<S>, InputReport)
where
    S: LineSink + Clone,
    F: Fn() -> S + Sync,
{
    match slot {
        Some(slot) => read_tracked(dir, name, tail, format, tag, slot, make),
        None => super::read::read_lines(dir, name, tail, format, make),
    }
}

/// Parses a log incrementally into `slot`; returns what the run model needs: the
/// aggregate including the unfinished last line, and the input's report.
pub(crate) fn read_tracked<S, F>(
    dir: &RunDir,
    name: &str,
    tail: Tail,
    format: Option<String>,
    tag: &str,
    slot: &mut Option<Tracked<S>>,
    make: F,
) -> (Option<S>, InputReport)
where
    S: LineSink + Clone,
    F: Fn() -> S + Sync,
{
    let opened = match dir.open(name) {
        Ok(o) => o,
        Err(not) => {
            *slot = None;
            return (None, not.report(name));
        }
    };
    let mtime = opened.mtime();
    match perfreport_scan::resume::read_on(opened.file, &opened.meta, tag, slot, tail, make) {
        Ok(now) => {
            let report = InputReport::from_parse(name, now.bytes, format, &now.stats).with_identity(mtime, now.xxh3);
            (Some(now.sink), report)
        }
        Err(e) => (None, InputReport::unreadable(name, None, format!("cannot read: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::read::read_lines;
    use crate::input::zot::ZotLog;
    use std::io::Write;
    use std::path::Path;

    fn line(i: usize) -> String {
        format!(
            r#"{{"time":"2026-10-20T02:00:{:02}Z","message":"HTTP API","method":"PUT","path":"/v2/r/blobs/uploads/{i}?digest=x","statusCode":201,"headers":{{"Content-Length":["{}"]}},"clientIP":"10.0.0.1:1"}}"#,
            i % 60,
            100 + i
        ) + "\n"
    }

    fn run_dir(dir: &Path) -> RunDir {
        RunDir::new(dir, crate::input::read::Links::StayInside)
    }

    fn track(dir: &Path, slot: &mut Option<Tracked<ZotLog>>) -> (Option<ZotLog>, InputReport) {
        read_tracked(
            &run_dir(dir),
            "zot.jsonl",
            Tail::MayBePartial,
            None,
            "",
            slot,
            ZotLog::default,
        )
    }

    fn full(dir: &Path) -> (Option<ZotLog>, InputReport) {
        read_lines(&run_dir(dir), "zot.jsonl", Tail::MayBePartial, None, ZotLog::default)
    }

    #[test]
    fn appended_lines_are_parsed_alone_and_merge_to_the_full_parse() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("zot.jsonl");
        let mut text: String = (0..500).map(line).collect();
        // A half-written last line: parsed for this view, not consumed.
        let half = &line(500)[..40];
        std::fs::write(&path, format!("{text}{half}")).unwrap();
        let mut slot = None;
        let (z, r) = track(dir.path(), &mut slot);
        assert_eq!(z.unwrap().requests, 500);
        assert_eq!(r.skipped, 1, "the half line is skipped in flight");
        let consumed = slot.as_ref().unwrap().offset();
        assert_eq!(consumed, text.len() as u64);
        // The producer finishes the line and appends more.
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&line(500).as_bytes()[40..]).unwrap();
        for i in 501..800 {
            f.write_all(line(i).as_bytes()).unwrap();
        }
        drop(f);
        for i in 500..800 {
            text.push_str(&line(i));
        }
        let (z, r) = track(dir.path(), &mut slot);
        let (fz, fr) = full(dir.path());
        assert_eq!(z, fz, "incremental and full parses agree");
        assert_eq!(
            (r.lines, r.records, r.malformed, &r.xxh3),
            (fr.lines, fr.records, fr.malformed, &fr.xxh3)
        );
        assert_eq!(z.unwrap().requests, 800);
        assert_eq!(slot.as_ref().unwrap().offset(), text.len() as u64);
    }

    #[test]
    fn a_line_growing_past_the_bound_across_appends_is_counted_once_and_not_held() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("zot.jsonl");
        std::fs::write(&path, (0..10).map(line).collect::<String>()).unwrap();
        let mut slot = None;
        track(dir.path(), &mut slot);
        let piece = "x".repeat(crate::input::lines::MAX_LINE / 2 + 1);
        let mut malformed = vec![];
        for _ in 0..6 {
            let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
            f.write_all(piece.as_bytes()).unwrap();
            drop(f);
            let (_, r) = track(dir.path(), &mut slot);
            malformed.push(r.malformed);
            // Whatever is not consumed is read again next time: never more than the bound.
            let unread = std::fs::metadata(&path).unwrap().len() - slot.as_ref().unwrap().offset();
            assert!(
                unread <= crate::input::lines::MAX_LINE as u64,
                "{unread} bytes held back"
            );
        }
        // Half the bound is an unfinished line in flight; past it, one malformed line.
        assert_eq!(malformed, vec![0, 1, 1, 1, 1, 1]);
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(format!("\n{}{}", line(10), line(11)).as_bytes()).unwrap();
        drop(f);
        let (z, r) = track(dir.path(), &mut slot);
        let (fz, fr) = full(dir.path());
        assert_eq!(z, fz, "incremental and full parses agree");
        assert_eq!(
            (r.lines, r.records, r.malformed, &r.xxh3, &r.warnings),
            (fr.lines, fr.records, fr.malformed, &fr.xxh3, &fr.warnings)
        );
        assert_eq!((r.lines, r.records, r.malformed), (13, 12, 1));
        assert!(
            r.warnings
                .iter()
                .any(|w| w.starts_with("zot.jsonl:11: the line is longer than 1 MiB")),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn samples_followed_live_equal_a_full_parse_even_out_of_order() {
        type Samples = crate::input::samples::Samples<crate::input::samples::kept::Kept>;
        let sample = |node: &str, ts: u32| format!("{{\"ts\": {ts}, \"node\": \"{node}\", \"load1\": {ts}.5}}\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.jsonl");
        std::fs::write(
            &path,
            (0..300)
                .map(|i| sample(["a", "b"][i % 2], 1000 + i as u32))
                .collect::<String>(),
        )
        .unwrap();
        let mut slot = None;
        let read = |slot: &mut Option<Tracked<Samples>>| {
            let (s, _) = read_tracked(
                &run_dir(dir.path()),
                "samples.jsonl",
                Tail::MayBePartial,
                None,
                "",
                slot,
                Samples::default,
            );
            let mut s = s.unwrap();
            s.finish();
            s.by_node
        };
        read(&mut slot);
        // A late poll of `a` lands after newer ones, as polls of a busy node can.
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all((sample("a", 1100) + &sample("b", 2000) + &sample("a", 999)).as_bytes())
            .unwrap();
        drop(f);
        let live = read(&mut slot);
        let (full, _) = read_lines(
            &run_dir(dir.path()),
            "samples.jsonl",
            Tail::MayBePartial,
            None,
            Samples::default,
        );
        let mut full = full.unwrap();
        full.finish();
        assert_eq!(live, full.by_node);
        assert_eq!(live["a"].polls.len(), 152);
        assert_eq!(live["a"].polls[0].ts, 999_000_000, "sorted by time after the append");
    }

    #[test]
    fn samples_followed_live_past_the_cap_summarise_as_a_full_parse_does() {
        type Samples = crate::input::samples::Samples<crate::input::samples::kept::Kept>;
        let sample = |node: &str, ts: u32| format!("{{\"ts\": {ts}, \"node\": \"{node}\", \"load1\": {ts}.5}}\n");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("samples.jsonl");
        let make = || Samples::with_cap(16);
        let mut slot = None;
        let read = |slot: &mut Option<Tracked<Samples>>| {
            let (s, _) = read_tracked(
                &run_dir(dir.path()),
                "samples.jsonl",
                Tail::MayBePartial,
                None,
                "",
                slot,
                make,
            );
            let mut s = s.unwrap();
            s.finish();
            s.by_node
        };
        let mut text = String::new();
        let mut live = Default::default();
        for step in 0..10u32 {
            for i in 0..37 {
                let t = 1000 + step * 37 + i;
                text += &sample(["a", "b"][i as usize % 2], t);
            }
            // Now and then a late poll, older than what was summarised.
            if step % 3 == 2 {
                text += &sample("a", 1000 + step);
            }
            // The last poll is left half written.
            let half = &sample("b", 9000)[..10];
            std::fs::write(&path, format!("{text}{half}")).unwrap();
            live = read(&mut slot);
        }
        let (full, _) = read_lines(&run_dir(dir.path()), "samples.jsonl", Tail::MayBePartial, None, make);
        let mut full = full.unwrap();
        full.finish();
        assert_eq!(live, full.by_node);
        let a = live["a"].summary.as_ref().expect("summarised");
        assert!(a.late > 0 && live["a"].polls.len() < 16);
    }

    #[test]
    fn a_truncated_or_replaced_log_is_parsed_again_from_the_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("zot.jsonl");
        std::fs::write(&path, (0..100).map(line).collect::<String>()).unwrap();
        let mut slot = None;
        track(dir.path(), &mut slot);
        // Truncated and rewritten shorter.
        std::fs::write(&path, (0..10).map(line).collect::<String>()).unwrap();
        let (z, _) = track(dir.path(), &mut slot);
        assert_eq!(z.unwrap().requests, 10);
        // Rewritten in place to the same length with other bytes: the guard notices.
        let other: String = (0..10).map(|i| line(i).replace("\"PUT\"", "\"GET\"")).collect();
        std::fs::write(&path, other).unwrap();
        let (z, _) = track(dir.path(), &mut slot);
        assert_eq!(z.unwrap().blob_writes, 0, "parsed again: no PUT left");
        // Replaced by another file (a new inode).
        let tmp = dir.path().join("new");
        std::fs::write(&tmp, (0..3).map(line).collect::<String>()).unwrap();
        std::fs::rename(&tmp, &path).unwrap();
        let (z, _) = track(dir.path(), &mut slot);
        assert_eq!(z.unwrap().requests, 3);
    }
}
