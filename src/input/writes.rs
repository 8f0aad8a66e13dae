//! The registry's 2xx writes, kept as finely as the report asks of them.
//!
//! The report asks three things of a write: whose target's record (and
//! upload) it fell in, whether it lies far outside the run's window, and
//! whether it stretches that window. Every answer changes only at a few
//! instants the traces and run.json fix before the registry log is read
//! (a record's start and end, an upload's edges with their slack, the
//! window's limits): the `WriteCuts`. Writes between the same two cuts get
//! the same answers, so they are kept together as one `WriteSpan` (count,
//! bytes, first and last time), and memory is bounded by the traces, not
//! by the log: a 1 GB registry log holds some 375,000 writes.
//!
//! Where an answer depends on what only the other logs tell (how far the
//! window is widened by the node samples' first poll, say), the cuts mark a
//! stretch whose writes are each kept whole. Without cuts (a live view,
//! whose traces still grow, or a run with nothing to anchor its window)
//! every write is kept whole, as it was read.

use crate::timefmt::Micros;
use std::sync::Arc;

/// One 2xx write, as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriteEvent {
    pub(crate) time: Micros,
    /// `None` when the upload was chunked without Content-Length.
    pub(crate) bytes: Option<u64>,
}

/// Writes that every question the report asks answers alike, together; a
/// write kept whole is a span of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct WriteSpan {
    pub(crate) first: Micros,
    pub(crate) last: Micros,
    pub(crate) writes: u64,
    /// The bytes of the writes with a size.
    pub(crate) bytes: u64,
    /// Writes without a size (no Content-Length): their bytes are unknown.
    pub(crate) no_size: u64,
}

impl WriteSpan {
    fn of(ev: WriteEvent) -> Self {
        WriteSpan {
            first: ev.time,
            last: ev.time,
            writes: 1,
            bytes: ev.bytes.unwrap_or(0),
            no_size: u64::from(ev.bytes.is_none()),
        }
    }

    fn add(&mut self, o: &WriteSpan) {
        self.first = self.first.min(o.first);
        self.last = self.last.max(o.last);
        self.writes = self.writes.saturating_add(o.writes);
        self.bytes = self.bytes.saturating_add(o.bytes);
        self.no_size = self.no_size.saturating_add(o.no_size);
    }
}

/// The instants at which an answer about a write can change, and the
/// stretches whose writes must each be kept whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WriteCuts {
    /// Sorted, distinct. Cell `k` is `[cuts[k - 1], cuts[k])`.
    cuts: Vec<Micros>,
    /// Half-open `[from, to)`.
    whole: Vec<(Micros, Micros)>,
    /// The window run.json and the traces make, which every log can only
    /// widen: a write's bytes spread inside it are never clamped.
    within: (Micros, Micros),
}

impl WriteCuts {
    pub(crate) fn new(mut cuts: Vec<Micros>, whole: Vec<(Micros, Micros)>, within: (Micros, Micros)) -> Self {
        cuts.sort_unstable();
        cuts.dedup();
        WriteCuts { cuts, whole, within }
    }

    /// Whether `[from, to]` lies inside the window every log can only widen.
    pub(crate) fn within(&self, from: Micros, to: Micros) -> bool {
        from >= self.within.0 && to <= self.within.1
    }

    /// The cell of `t`, or `None` when a write at `t` is kept whole.
    fn cell(&self, t: Micros) -> Option<u32> {
        if self.whole.iter().any(|&(from, to)| t >= from && t < to) {
            return None;
        }
        u32::try_from(self.cuts.partition_point(|&c| c <= t)).ok()
    }
}

/// The writes of one client (or of every client that is not a node).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Writes {
    cuts: Option<Arc<WriteCuts>>,
    /// One span per cell, sorted by cell.
    cells: Vec<(u32, WriteSpan)>,
    /// Writes kept whole, in the order read.
    whole: Vec<WriteEvent>,
}

impl Writes {
    pub(crate) fn new(cuts: Option<Arc<WriteCuts>>) -> Self {
        Writes {
            cuts,
            ..Default::default()
        }
    }

    /// Every write kept whole, as the report would have them without cuts.
    #[cfg(test)]
    pub(crate) fn from_events(events: impl IntoIterator<Item = WriteEvent>) -> Self {
        Writes {
            whole: events.into_iter().collect(),
            ..Default::default()
        }
    }

    pub(crate) fn push(&mut self, ev: WriteEvent) {
        match self.cuts.as_ref().and_then(|c| c.cell(ev.time)) {
            Some(cell) => self.add_to_cell(cell, &WriteSpan::of(ev)),
            None => self.whole.push(ev),
        }
    }

    fn add_to_cell(&mut self, cell: u32, span: &WriteSpan) {
        // The log is nearly in time order: the last cell is the usual one.
        match self.cells.last_mut() {
            Some((c, s)) if *c == cell => s.add(span),
            Some((c, _)) if *c > cell => match self.cells.binary_search_by_key(&cell, |&(c, _)| c) {
                Ok(i) => self.cells[i].1.add(span),
                Err(i) => self.cells.insert(i, (cell, *span)),
            },
            _ => self.cells.push((cell, *span)),
        }
    }

    /// Adds the writes of `other`, read after these with the same cuts.
    pub(crate) fn append(&mut self, other: Writes) {
        for (cell, span) in &other.cells {
            self.add_to_cell(*cell, span);
        }
        self.whole.extend(other.whole);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.cells.is_empty() && self.whole.is_empty()
    }

    /// The writes: the kept-together spans, then each write kept whole.
    pub(crate) fn spans(&self) -> impl Iterator<Item = WriteSpan> + Clone + '_ {
        self.cells
            .iter()
            .map(|&(_, s)| s)
            .chain(self.whole.iter().map(|&ev| WriteSpan::of(ev)))
    }

    /// How many writes.
    #[cfg(test)]
    pub(crate) fn count(&self) -> u64 {
        self.spans().map(|s| s.writes).fold(0, u64::saturating_add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(time: Micros, bytes: Option<u64>) -> WriteEvent {
        WriteEvent { time, bytes }
    }

    #[test]
    fn writes_between_the_same_cuts_are_kept_as_one_span() {
        let cuts = Arc::new(WriteCuts::new(vec![100, 10], vec![(200, 300)], (0, 0)));
        let mut w = Writes::new(Some(cuts));
        // Out of order, with a write on a cut (it opens the next cell).
        for e in [
            ev(50, Some(5)),
            ev(10, Some(1)),
            ev(150, None),
            ev(5, Some(2)),
            ev(99, Some(3)),
        ] {
            w.push(e);
        }
        // In the stretch kept whole: each write is its own span.
        w.push(ev(250, Some(7)));
        w.push(ev(260, Some(8)));
        let spans: Vec<WriteSpan> = w.spans().collect();
        let span = |first, last, writes, bytes, no_size| WriteSpan {
            first,
            last,
            writes,
            bytes,
            no_size,
        };
        assert_eq!(
            spans,
            vec![
                span(5, 5, 1, 2, 0),
                span(10, 99, 3, 9, 0),
                span(150, 150, 1, 0, 1),
                span(250, 250, 1, 7, 0),
                span(260, 260, 1, 8, 0),
            ]
        );
        assert_eq!(w.count(), 7);
    }

    #[test]
    fn writes_read_in_pieces_and_appended_are_those_read_at_once() {
        let cuts = Arc::new(WriteCuts::new(
            (0..40).map(|i| i * 1000).collect(),
            vec![(5000, 9000)],
            (0, 0),
        ));
        let events: Vec<WriteEvent> = (0..5000)
            .map(|i| ev((i * 7919) % 45_000 - 1000, (i % 3 != 0).then_some(i as u64)))
            .collect();
        let mut at_once = Writes::new(Some(cuts.clone()));
        events.iter().for_each(|&e| at_once.push(e));
        let mut pieces = Writes::new(Some(cuts.clone()));
        for piece in events.chunks(333) {
            let mut w = Writes::new(Some(cuts.clone()));
            piece.iter().for_each(|&e| w.push(e));
            pieces.append(w);
        }
        assert_eq!(pieces, at_once);
        assert_eq!(at_once.count(), 5000);
        assert!(
            at_once.cells.len() <= 41,
            "bounded by the cuts: {}",
            at_once.cells.len()
        );
        assert!(
            at_once.cells.windows(2).all(|p| p[0].0 < p[1].0),
            "sorted, one span a cell"
        );
        // The stretch kept whole keeps every write in it.
        let whole = events.iter().filter(|e| (5000..9000).contains(&e.time)).count();
        assert_eq!(at_once.whole.len(), whole);
        // Without cuts, every write is kept whole.
        let mut plain = Writes::new(None);
        events.iter().for_each(|&e| plain.push(e));
        assert_eq!(plain, Writes::from_events(events.iter().copied()));
    }
}
