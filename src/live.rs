//! The live view of a run in flight: the run read again and again, its big
//! logs parsed only from where the previous read stopped
//! (`input::incremental`).

use crate::error::Result;
use crate::model::RunCache;
use crate::model::{self, Run};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How often a run in flight whose samples come from a server is read
/// again when none of its files changed: the server's samples grow anyway.
const SERVER_REFRESH: Duration = Duration::from_secs(15);

/// A run followed as it grows.
pub struct LiveRun {
    pub(crate) dir: PathBuf,
    pub(crate) cache: RunCache,
    opts: model::Options,
    last_load: Option<Instant>,
}

impl LiveRun {
    pub fn new(dir: &Path) -> Self {
        Self::with_options(dir, model::Options::default())
    }

    /// A run read as `opts` says (its samples from a server); inputs that
    /// leave the run directory are never read.
    pub(crate) fn with_options(dir: &Path, opts: model::Options) -> Self {
        LiveRun {
            dir: dir.to_path_buf(),
            cache: RunCache::default(),
            opts: model::Options {
                links: model::Links::StayInside,
                keep_polls: false,
                ..opts
            },
            last_load: None,
        }
    }

    /// Reads the run again, the big logs from where the last read stopped.
    pub(crate) fn load(&mut self) -> Result<Run> {
        self.last_load = Some(Instant::now());
        model::load_from(&self.dir, Some(&mut self.cache), &self.opts)
    }

    /// Whether a run `in_flight` is due to be read again though its files
    /// did not change: its samples come from a server, which has newer ones.
    pub(crate) fn server_due(&self, in_flight: bool) -> bool {
        let waited = self.last_load.is_none_or(|t| t.elapsed() >= SERVER_REFRESH);
        in_flight && self.opts.prometheus.is_some() && waited
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view;

    fn copy_run(from: &Path, to: &Path) {
        for e in std::fs::read_dir(from).unwrap().flatten() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }

    /// A registry write from `ip` at `time` (RFC 3339), of `bytes`.
    fn put(ip: &str, time: &str, bytes: u64) -> String {
        format!(
            r#"{{"level":"info","message":"HTTP API","clientIP":"{ip}:4000","method":"PUT","path":"/v2/rocm/x/blobs/uploads/1?digest=sha256%3Aab","statusCode":201,"latency":"1.5s","headers":{{"Content-Length":["{bytes}"]}},"time":"{time}"}}"#
        ) + "\n"
    }

    /// serve reads its run again on every change: a trace whose file did
    /// not change is not decoded again (a large trace costs many times its
    /// size to decode), one that changed is, and its new figures are shown.
    #[test]
    fn a_refresh_decodes_only_the_traces_whose_files_changed() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path();
        let sample = Path::new("sample-runs/20261020T020000Z");
        std::fs::copy(sample.join("run.json"), run.join("run.json")).unwrap();
        for t in ["pytorch", "vllm"] {
            let f = format!("trace-{t}.json");
            std::fs::copy(sample.join(&f), run.join(&f)).unwrap();
        }
        std::fs::create_dir(run.join("attempt-1")).unwrap();
        std::fs::create_dir(run.join("attempt-2")).unwrap();
        std::fs::copy(sample.join("trace-rccl-tests.json"), run.join("attempt-1/t.json")).unwrap();
        std::fs::copy(sample.join("trace-xformers.json"), run.join("attempt-2/t.json")).unwrap();
        std::os::unix::fs::symlink("attempt-1/t.json", run.join("trace-rccl.json")).unwrap();
        let figures = |r: &Run, target: &str| {
            let t = r.traces.iter().find(|t| t.target == target).unwrap();
            format!("{:?}", t.figures)
        };
        let mut live = LiveRun::new(run);
        let first = live.load().unwrap();
        assert_eq!((live.cache.traces.decoded(), live.cache.traces.len()), (3, 3));
        live.load().unwrap();
        assert_eq!(live.cache.traces.decoded(), 3, "nothing changed, nothing decoded");
        // One trace rewritten in place with another build's record.
        let other = std::fs::read(sample.join("trace-aiter-wheel.json")).unwrap();
        std::fs::write(run.join("trace-pytorch.json"), other).unwrap();
        let now = live.load().unwrap();
        assert_eq!(live.cache.traces.decoded(), 4, "only the changed trace is decoded");
        let fresh = model::load(run).unwrap();
        assert_ne!(figures(&now, "pytorch"), figures(&first, "pytorch"));
        for t in ["pytorch", "vllm", "rccl"] {
            assert_eq!(figures(&now, t), figures(&fresh, t), "{t} as a fresh read has it");
        }
        // A link re-pointed to a retry is another file: decoded again.
        std::fs::remove_file(run.join("trace-rccl.json")).unwrap();
        std::os::unix::fs::symlink("attempt-2/t.json", run.join("trace-rccl.json")).unwrap();
        let now = live.load().unwrap();
        assert_eq!(live.cache.traces.decoded(), 5);
        assert_eq!(figures(&now, "rccl"), figures(&model::load(run).unwrap(), "rccl"));
        // A trace removed leaves the cache too: it holds what the run holds.
        std::fs::remove_file(run.join("trace-vllm.json")).unwrap();
        live.load().unwrap();
        assert_eq!((live.cache.traces.decoded(), live.cache.traces.len()), (5, 2));
    }

    /// A live view keeps every registry write (its traces still grow), a
    /// report keeps them together between the instants the traces fix: the
    /// two must report the same, down to the far-outside counts that the
    /// other logs' extent decides.
    #[test]
    fn a_run_read_live_reports_what_a_report_of_it_does() {
        let tmp = tempfile::tempdir().unwrap();
        let busy = tmp.path().join("busy");
        std::fs::create_dir(&busy).unwrap();
        copy_run(Path::new("sample-runs/20261020T020000Z"), &busy);
        // Writes from the nodes and from strangers, all through the run, on
        // the minute and between, and far before and after it: 75 and 90
        // minutes early, years early, 80 and 150 minutes late.
        let mut more = String::new();
        for (i, ip) in ["10.0.3.12", "10.0.3.14", "10.0.3.16", "192.168.7.7"]
            .iter()
            .enumerate()
        {
            for minute in 0..70 {
                let t = format!(
                    "2026-10-20T02:{:02}:{:02}.{:06}Z",
                    minute % 60,
                    (minute * 7 + i) % 60,
                    minute * 1013 % 1_000_000
                );
                let t = if minute >= 60 { t.replacen("T02", "T03", 1) } else { t };
                more += &put(ip, &t, 1_000 + minute as u64);
            }
            for t in [
                "2026-10-20T00:45:00Z",
                "2026-10-20T00:30:00.5Z",
                "2023-01-01T00:00:00Z",
                "2026-10-20T04:25:00Z",
                "2026-10-20T05:35:00Z",
            ] {
                more += &put(ip, t, 7 + i as u64);
            }
        }
        let zot = busy.join("zot.jsonl");
        let log = std::fs::read_to_string(&zot).unwrap() + &more;
        std::fs::write(&zot, log).unwrap();
        for dir in [
            Path::new("sample-runs/20261020T020000Z"),
            Path::new("sample-runs/20261021T020000Z"),
            &busy,
        ] {
            let report = model::load(dir).unwrap();
            let live = LiveRun::new(dir).load().unwrap();
            let (kept, whole) = (report.zot.as_ref().unwrap(), live.zot.as_ref().unwrap());
            assert!(
                kept.all_writes().count() < whole.all_writes().count(),
                "{}: the report keeps writes together",
                dir.display()
            );
            let json = |run: &Run| serde_json::to_string(&view::build(run)).unwrap();
            let (report, live) = (json(&report), json(&live));
            assert_eq!(report, live, "{}", dir.display());
            assert!(report.contains(r#""upload_bytes_source":"registry""#));
            if dir == busy {
                assert!(
                    report.contains("zot.jsonl: 20 records from 2023-01-01T00:00:00Z to 2026-10-20T05:35:00Z lie outside the run's window"),
                    "the far writes are left out and counted: {report}"
                );
            }
        }
    }
}
