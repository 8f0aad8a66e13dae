//! Where the report's questions about a registry write change their answer,
//! worked out from run.json and the traces before the registry log is read,
//! so that the log's writes can be kept together between them (see
//! `input::writes`). Each cut mirrors one comparison in `fleet::owns_write`,
//! `window::run_window` or `window::outside`; the tests hold the writes kept
//! together to the same answers as the writes kept whole.

use super::fleet::UPLOAD_SLACK;
use super::targets::TraceFigures;
use super::window::{self, FAR};
use crate::input::zot::WriteCuts;
use crate::timefmt::Micros;

/// The cuts for a run, or `None` (keep every write whole) when nothing
/// anchors its window: then the window is every record's, which only the
/// logs themselves tell.
pub(crate) fn write_cuts<'a>(
    started: Option<Micros>,
    finished: Option<Micros>,
    figures: impl IntoIterator<Item = &'a TraceFigures> + Clone,
) -> Option<WriteCuts> {
    let core = window::core(started, finished, &window::anchors(figures.clone()))?;
    // `t > x` changes between x and x + 1: the cut is the first instant of the new answer.
    let after = |t: Micros| t.saturating_add(1);
    let mut cuts = Vec::new();
    for f in figures {
        // A record runs from its start to its end, else its last step's end;
        // an open record to the window's end: run.json's finish when it has
        // one (cut below). Without it the window's end is the latest record
        // near the run: in flight, at or after every write (nothing to cut);
        // otherwise within `FAR` after the anchors' end, at or after every
        // write before `core.1 + FAR` and before every write after it, which
        // the `beyond` cut below separates.
        cuts.extend(f.start);
        cuts.extend(f.end.map(after));
        cuts.extend(f.last_step_end.map(after));
        for &(from, to) in &f.uploads {
            cuts.push(from.saturating_sub(UPLOAD_SLACK));
            cuts.push(after(to.saturating_add(UPLOAD_SLACK)));
        }
    }
    cuts.extend(finished.map(after));
    // The logs may widen the window by up to `FAR` before the anchors' and,
    // for a run whose end is closed, after it; so a write is far outside the
    // final window for sure beyond `2 * FAR` of the anchors' and never within
    // `FAR` of it; in between it depends on the other logs, and those writes
    // are kept whole. A run in flight without a finish is never far after:
    // its window grows to the latest record, which the spans' last times
    // give (`view::window` takes each span's first and last).
    let before = (core.0.saturating_sub(2 * FAR), core.0.saturating_sub(FAR));
    let beyond = (after(core.1.saturating_add(FAR)), after(core.1.saturating_add(2 * FAR)));
    cuts.extend([before.0, before.1, beyond.0, beyond.1]);
    Some(WriteCuts::new(cuts, vec![before, beyond], core))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fleet::{owns_write, registry_bytes};
    use crate::analysis::join::record_interval;
    use crate::input::zot::{WriteEvent, Writes};
    use std::sync::Arc;

    const S: Micros = 1_000_000;
    const H: Micros = 3600 * S;

    /// A small seeded generator (xorshift), so a failure names its case.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
        fn time(&mut self, from: Micros, to: Micros) -> Micros {
            from + self.below((to - from) as u64) as Micros
        }
        fn one_in(&mut self, n: u64) -> bool {
            self.below(n) == 0
        }
    }

    /// What the report asks of a run's writes, from the writes as kept.
    #[derive(Debug, PartialEq)]
    struct Answers {
        window: Option<(Micros, Micros)>,
        outside: Option<window::Outside>,
        far_bytes: u64,
        owned: Vec<Option<(u64, u64)>>,
    }

    struct Case {
        started: Option<Micros>,
        finished: Option<Micros>,
        open_end: bool,
        figures: Vec<TraceFigures>,
        other_logs: Vec<Micros>,
        writes: Vec<WriteEvent>,
    }

    fn answers(c: &Case, writes: &Writes) -> Answers {
        let anchors = window::anchors(&c.figures);
        let mut events = c.other_logs.clone();
        for s in writes.spans() {
            events.extend([s.first, s.last]);
        }
        let w = window::run_window(c.started, c.finished, c.open_end, &anchors, &events);
        let spans = || writes.spans().map(|s| (s.first, s.last, s.writes));
        let outside = w.and_then(|w| window::outside_spans(spans(), w));
        let far_bytes = w.map_or(0, |w| {
            writes
                .spans()
                .filter(|s| window::is_far(s.first, w, false))
                .map(|s| s.bytes)
                .sum()
        });
        // Every target on one node, so records overlap and uploads decide.
        let records: Vec<Option<(Micros, Micros)>> =
            c.figures.iter().map(|f| record_interval(f, w.map(|w| w.1))).collect();
        let owned = c
            .figures
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let own = records[i]?;
                let others: Vec<_> = records
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .filter_map(|(_, r)| *r)
                    .collect();
                registry_bytes(writes, |t| owns_write(t, own, &f.uploads, &others))
            })
            .collect();
        Answers {
            window: w,
            outside,
            far_bytes,
            owned,
        }
    }

    fn case(rng: &mut Rng) -> Case {
        let base = 100 * 24 * H;
        let started = (!rng.one_in(4)).then(|| base + rng.time(-H, H));
        let finished = (!rng.one_in(3)).then(|| base + rng.time(6 * H, 12 * H));
        let mut figures = vec![];
        for _ in 0..rng.below(5) {
            let start = base + rng.time(0, 8 * H);
            let end = start + rng.time(S, 4 * H);
            let mut f = TraceFigures {
                start: (!rng.one_in(8)).then_some(start),
                ..Default::default()
            };
            match rng.below(4) {
                0 => f.open = true,
                1 => f.last_step_end = Some(end),
                _ => f.end = Some(end),
            }
            let mut t = start;
            for _ in 0..rng.below(4) {
                let from = t + rng.time(0, H);
                let to = from + rng.time(0, 10 * S);
                f.uploads.push((from, to));
                t = to;
            }
            figures.push(f);
        }
        let other_logs: Vec<Micros> = (0..rng.below(3)).map(|_| base + rng.time(-3 * H, 15 * H)).collect();
        // Writes anywhere, and on and beside every instant an answer turns on.
        let density = [40, 400][rng.below(2) as usize];
        let mut writes: Vec<Micros> = (0..density).map(|_| base + rng.time(-5 * H, 17 * H)).collect();
        let mut edges: Vec<Micros> = vec![];
        for f in &figures {
            edges.extend(f.start.into_iter().chain(f.end).chain(f.last_step_end));
            for &(a, b) in &f.uploads {
                edges.extend([a - UPLOAD_SLACK, b + UPLOAD_SLACK]);
            }
        }
        edges.extend(started.into_iter().chain(finished).chain(other_logs.iter().copied()));
        if let Some(core) = window::core(started, finished, &window::anchors(&figures)) {
            for k in [1, 2] {
                edges.extend([core.0 - k * FAR, core.1 + k * FAR]);
            }
        }
        // Not every edge every time: a write on the window's own edge widens it fully.
        for e in edges {
            if !rng.one_in(3) {
                writes.extend([e - 1, e, e + 1]);
            }
        }
        let writes = writes
            .into_iter()
            .map(|time| WriteEvent {
                time,
                bytes: (!rng.one_in(10)).then(|| rng.below(1 << 30)),
            })
            .collect();
        Case {
            started,
            finished,
            open_end: rng.one_in(3),
            figures,
            other_logs,
            writes,
        }
    }

    #[test]
    fn writes_kept_between_the_cuts_give_every_answer_the_writes_kept_whole_give() {
        let mut rng = Rng(0x5eed_cafe_f00d_d00d);
        let (mut together, mut widened, mut far, mut owned) = (0, [0; 2], 0, 0);
        for n in 0..2_000 {
            let c = case(&mut rng);
            let whole = Writes::from_events(c.writes.iter().copied());
            let Some(cuts) = write_cuts(c.started, c.finished, &c.figures) else {
                assert!(c.started.is_none() && c.figures.iter().all(|f| f.start.is_none() && f.end.is_none()));
                continue;
            };
            let mut kept = Writes::new(Some(Arc::new(cuts)));
            c.writes.iter().for_each(|&e| kept.push(e));
            assert_eq!(kept.count(), whole.count());
            together += whole.spans().count() - kept.spans().count();
            let want = answers(&c, &whole);
            assert_eq!(answers(&c, &kept), want, "case {n}");
            // What the cases reach, so that none of it goes untested.
            let core = window::core(c.started, c.finished, &window::anchors(&c.figures));
            if let (Some(w), Some(core)) = (want.window, core) {
                widened[0] += usize::from(w.0 < core.0);
                widened[1] += usize::from(w.1 > core.1);
            }
            far += usize::from(want.outside.is_some());
            owned += want.owned.iter().filter(|o| o.is_some_and(|(b, _)| b > 0)).count();
        }
        // The cuts must also keep writes together, or the test proves nothing.
        assert!(together > 100_000, "{together} writes kept together");
        assert!(
            widened.iter().all(|&n| n > 50),
            "windows widened by the other logs: {widened:?}"
        );
        assert!(
            far > 500 && owned > 500,
            "{far} runs with far writes, {owned} targets owning some"
        );
    }

    #[test]
    fn nothing_to_anchor_the_window_keeps_every_write_whole() {
        assert_eq!(write_cuts(None, Some(5 * H), &[]), None);
        let f = TraceFigures {
            end: Some(H),
            ..Default::default()
        };
        assert!(write_cuts(None, None, &[f]).is_some(), "a record's end anchors it");
    }
}
