//! Unions of time intervals: concurrent uploads count once, a node is busy
//! while any of its targets runs.

use crate::timefmt::Micros;

/// Merges overlapping or touching intervals; the result is sorted and disjoint.
pub(crate) fn union(intervals: &[(Micros, Micros)]) -> Vec<(Micros, Micros)> {
    let mut v: Vec<(Micros, Micros)> = intervals.iter().copied().filter(|(s, e)| e >= s).collect();
    v.sort_unstable();
    let mut out: Vec<(Micros, Micros)> = Vec::with_capacity(v.len());
    for (s, e) in v {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Total length covered by the intervals, each instant once.
pub(crate) fn union_length(intervals: &[(Micros, Micros)]) -> Micros {
    union(intervals).iter().map(|(s, e)| e - s).sum()
}

/// Length of the part of `intervals` inside `[lo, hi]`.
pub(crate) fn clipped_length(intervals: &[(Micros, Micros)], lo: Micros, hi: Micros) -> Micros {
    let clipped: Vec<_> = intervals
        .iter()
        .map(|&(s, e)| (s.max(lo), e.min(hi)))
        .filter(|(s, e)| e > s)
        .collect();
    union_length(&clipped)
}

/// The parts of `a` that no interval of `b` covers, sorted and disjoint.
pub(crate) fn minus(a: &[(Micros, Micros)], b: &[(Micros, Micros)]) -> Vec<(Micros, Micros)> {
    let cut = union(b);
    let mut out = vec![];
    for (mut s, e) in union(a) {
        for &(cs, ce) in &cut {
            if ce <= s || cs >= e {
                continue;
            }
            if cs > s {
                out.push((s, cs));
            }
            s = s.max(ce);
        }
        if e > s {
            out.push((s, e));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minus_leaves_what_the_other_intervals_do_not_cover() {
        assert_eq!(
            minus(&[(0, 100)], &[(10, 20), (15, 30), (90, 120)]),
            [(0, 10), (30, 90)]
        );
        assert_eq!(minus(&[(0, 10)], &[(0, 10)]), []);
        assert_eq!(minus(&[(0, 10), (20, 30)], &[]), [(0, 10), (20, 30)]);
    }

    #[test]
    fn concurrent_uploads_count_once() {
        // 0-10 and 5-15 overlap (15 in all); 20-25 is apart (5); 25-30 touches it.
        assert_eq!(union_length(&[(0, 10), (5, 15), (20, 25), (25, 30)]), 25);
        assert_eq!(union(&[(5, 15), (0, 10)]), vec![(0, 15)]);
    }

    #[test]
    fn an_interval_that_ends_before_it_starts_is_ignored() {
        assert_eq!(union_length(&[(10, 5), (0, 1)]), 1);
    }

    #[test]
    fn clipping_keeps_only_the_window() {
        assert_eq!(clipped_length(&[(0, 100)], 10, 20), 10);
        assert_eq!(clipped_length(&[(0, 5)], 10, 20), 0);
    }
}
