//! The node samples: samples.jsonl, or a Prometheus-compatible server's
//! when one is given (its samples win over the file's).

use super::{report_of, with_slot, Log, LogRead, LogSlot, ReadContext};
use crate::input::incremental;
use crate::input::InputReport;
use crate::model::window::OutsideSaid;
use crate::model::{AnchoredWindow, Run, RunSamples, MAX_NODES, SAMPLES};
use std::collections::BTreeSet;

pub(super) struct SamplesSource;

impl Log for SamplesSource {
    fn file(&self) -> &'static str {
        SAMPLES
    }

    fn read(&self, cx: &ReadContext, slot: Option<&mut LogSlot>) -> LogRead {
        let Some(server) = &cx.opts.prometheus else {
            let format = Some("samples: JSON lines".into());
            // run.json's nodes are always held; past MAX_NODES others, a
            // node costs its name, not its polls (see `model::bound`).
            let first: std::sync::Arc<BTreeSet<String>> = std::sync::Arc::new(
                cx.run
                    .info
                    .iter()
                    .flat_map(|i| i.nodes.iter().map(|n| n.name.clone()))
                    .collect(),
            );
            let (samples, report) = with_slot(slot, |cache| {
                incremental::read_log(cx.dir, SAMPLES, cx.tail, format, "", cache, || {
                    RunSamples::keeping(first.clone(), MAX_NODES)
                })
            });
            let (samples, report) = finished(samples, report);
            return LogRead::new(vec![report], move |run| run.samples = samples);
        };
        let read = crate::input::prometheus::read(server, cx.dir, cx.run.info.as_ref(), now(), cx.opts.keep_polls);
        let (samples, report) = finished(read.samples, read.report);
        let (unsampled, polls) = (read.unsampled, read.polls);
        let mut reports: Vec<InputReport> = read.file.into_iter().collect();
        reports.push(report);
        LogRead::new(reports, move |run| {
            run.samples_from_server = true;
            run.unsampled = unsampled;
            run.polls = polls;
            run.samples = samples;
        })
    }

    fn keep_to_window(&self, run: &mut Run, inputs: &mut [InputReport], window: AnchoredWindow, say: &OutsideSaid) {
        if let Some(r) = report_of(inputs, run.samples_input()) {
            keep_samples_to_window(run, r, window, say);
        }
    }
}

/// The samples with every node's intervals made, and their warnings and
/// the polls left out (a breach of the contract past its share) in the report.
fn finished(samples: Option<RunSamples>, mut report: InputReport) -> (RunSamples, InputReport) {
    let mut s = samples.unwrap_or_default();
    s.finish();
    report.warnings.extend(s.warnings());
    if let Some(b) = crate::input::contract::left_out_breach(s.late(), report.records) {
        report
            .warnings
            .insert(report.breaches.len(), format!("{}: {b}", report.name));
        report.breaches.push(b);
        report.contract_broken = true;
    }
    (s, report)
}

/// Now, which ends the window of a run in flight read from a server.
fn now() -> crate::timefmt::Micros {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    since.as_micros().try_into().unwrap_or(crate::timefmt::Micros::MAX)
}

/// The samples' held polls far outside the window are dropped and counted;
/// all of them outside, and the samples are not measured.
fn keep_samples_to_window(run: &mut Run, r: &mut InputReport, (w, open): AnchoredWindow, say: &OutsideSaid) {
    use crate::analysis::window;
    use crate::input::window::Outside;
    let polls = run.samples.by_node.values();
    let (first, last) = (
        polls.clone().filter_map(|n| n.first_ts()).min(),
        polls.filter_map(|n| n.last_ts()).max(),
    );
    let (Some(first), Some(last)) = (first, last) else {
        return;
    };
    // Wholly on one side; an open end is never passed.
    let all_out = if open {
        last < w.0 && window::is_far(last, w, true)
    } else {
        window::span_is_far(first, last, w)
    };
    if all_out {
        let o = Outside {
            records: r.records,
            first,
            last,
        };
        say.judge(r, ("sample", "samples"), &o, false);
        r.skipped = r.skipped.saturating_add(r.records);
        r.records = 0;
        run.samples = RunSamples::default();
        return;
    }
    let mut dropped = None;
    for n in run.samples.by_node.values_mut() {
        if !n.polls.iter().any(|s| window::is_far(s.ts, w, open)) {
            continue;
        }
        let polls = std::sync::Arc::make_mut(&mut n.polls);
        polls.retain(|s| {
            let far = window::is_far(s.ts, w, open);
            if far {
                Outside::add(&mut dropped, s.ts, s.ts, 1);
            }
            !far
        });
    }
    if let Some(o) = dropped {
        r.records = r.records.saturating_sub(o.records);
        r.skipped = r.skipped.saturating_add(o.records);
        say.judge(r, ("sample", "samples"), &o, true);
    }
}
