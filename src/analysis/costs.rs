//! The balancer's costs as a run measures them: what a target's export
//! weighs, what a node's link really carries, and medians over runs.

use crate::input::run_json::Mode;

/// Measured over declared beyond this factor (either way) is "far".
pub(crate) const LINK_FACTOR: f64 = 1.5;

/// A move, or a packing, that saves more than this is worth a summary line.
pub(crate) const WORTH_SAYING_S: f64 = 180.0;

/// One target's upload: its bytes over the length of its upload spans.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Upload {
    pub(crate) bytes: u64,
    pub(crate) secs: f64,
}

/// A node's measured link: all bytes over all upload time, and how many
/// uploads that rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LinkRate {
    pub(crate) mbps: f64,
    pub(crate) n: u32,
}

/// Bytes over time of the uploads that moved bytes for a measurable time;
/// `None` when none did. Pooled, not averaged: a long upload weighs more
/// than a short one, as it does on the wire.
pub(crate) fn link_rate(uploads: &[Upload]) -> Option<LinkRate> {
    let used: Vec<&Upload> = uploads
        .iter()
        .filter(|u| u.bytes > 0 && u.secs.is_finite() && u.secs > 0.0)
        .collect();
    let bytes: f64 = used.iter().map(|u| u.bytes as f64).sum();
    let secs: f64 = used.iter().map(|u| u.secs).sum();
    let mbps = bytes / secs / 1e6;
    (!used.is_empty() && mbps.is_finite() && mbps > 0.0).then_some(LinkRate {
        mbps,
        n: used.len() as u32,
    })
}

/// Measured over declared, when it lies outside `LINK_FACTOR` either way.
pub(crate) fn link_far(declared_mbps: f64, measured_mbps: f64) -> Option<f64> {
    if !(declared_mbps > 0.0 && measured_mbps > 0.0) {
        return None;
    }
    let ratio = measured_mbps / declared_mbps;
    (ratio.is_finite() && !(1.0 / LINK_FACTOR..=LINK_FACTOR).contains(&ratio)).then_some(ratio)
}

/// The bytes a target's export weighs, from what it uploaded. A cold run's
/// harness clears the export, so an upload of nothing there says the export
/// was cleared, not that it weighs nothing.
pub(crate) fn export_bytes(mode: Option<Mode>, uploaded: u64) -> Result<u64, &'static str> {
    match (mode, uploaded) {
        (Some(Mode::Cold), 0) => Err(
            "cold run: the harness cleared its export (no upload seen), so this run did not weigh it; a warm run does",
        ),
        (_, b) => Ok(b),
    }
}

/// The median of finite values; `None` without one.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_is_all_bytes_over_all_upload_time_with_n() {
        // 6.6 GB in 2359 s and 0.8 GB in 286 s: 7.4 GB in 2645 s = 2.798 MB/s, n = 2.
        let r = link_rate(&[
            Upload {
                bytes: 6_600_000_000,
                secs: 2359.0,
            },
            Upload {
                bytes: 800_000_000,
                secs: 286.0,
            },
            // Nothing moved, or no time: not evidence of a rate.
            Upload { bytes: 0, secs: 12.0 },
            Upload { bytes: 5, secs: 0.0 },
        ])
        .unwrap();
        assert_eq!(r.n, 2);
        assert!((r.mbps - 7.4e9 / 2645.0 / 1e6).abs() < 1e-9);
        assert_eq!(link_rate(&[Upload { bytes: 0, secs: 3.0 }]), None);
        assert_eq!(link_rate(&[]), None);
    }

    #[test]
    fn a_link_half_again_off_its_declaration_is_far() {
        // The balancer's 6.0 MB/s against a measured 2.8: 0.47×.
        assert!((link_far(6.0, 2.8).unwrap() - 0.4667).abs() < 1e-3);
        assert_eq!(link_far(112.5, 106.0), None);
        assert_eq!(link_far(100.0, 150.0), None);
        assert!(link_far(100.0, 151.0).is_some());
        assert_eq!(link_far(0.0, 3.0), None);
    }

    #[test]
    fn a_cold_run_that_uploaded_nothing_did_not_weigh_its_export() {
        assert!(export_bytes(Some(Mode::Cold), 0).unwrap_err().contains("cleared"));
        // A cold run whose export was not cleared did weigh it.
        assert_eq!(export_bytes(Some(Mode::Cold), 7), Ok(7));
        // A warm run that uploaded nothing measured zero.
        assert_eq!(export_bytes(Some(Mode::Warm), 0), Ok(0));
        assert_eq!(export_bytes(None, 0), Ok(0));
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN]), None);
        assert_eq!(median(&[]), None);
    }
}
