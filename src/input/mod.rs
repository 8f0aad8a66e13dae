//! Inputs: one module per file kind. Each parser returns its records plus
//! the statistics of its parse, so a parser that silently matched nothing
//! shows up as a present file with zero records instead of a chart of zeros.

pub(crate) mod artifacts;
pub(crate) mod contract;
pub(crate) mod incremental;
pub mod lines;
pub mod placement;
pub mod prometheus;
pub(crate) mod read;
pub use read::{read_named, ReadLinks};
pub(crate) mod run_json;
pub(crate) mod run_rules;
pub mod samples;
pub mod sccache;
pub mod trace;
pub(crate) mod window;
pub(crate) mod writes;
pub mod zot;

use crate::measured::explained::{explained, WhyNull};
use crate::measured::{Measured, Missing, Value};
pub(crate) use perfreport_scan::lines::{ParseStats, Problem};

/// Seconds per bucket of the cache lanes' time series: the compiler
/// cache's requests (`sccache`) and the registry's writes (`zot`) are
/// bucketed alike, so their buckets line up on the timeline.
pub(crate) const BUCKET_SECS: i64 = 10;

/// The lane bucket of an instant: unix seconds / `BUCKET_SECS`.
pub(crate) fn bucket_of(t: crate::timefmt::Micros) -> i64 {
    t.div_euclid(BUCKET_SECS * 1_000_000)
}

explained! {
    /// One input file as the report describes it (`data.json` `inputs`).
    /// Its identity (`bytes`, `format`, `mtime`, `xxh3`) is `None` for an
    /// absent file, whose `present` says why; for a present one each is its
    /// value or why it has none.
    #[derive(Debug, Clone, Default)]
    pub struct InputReport {
        [hidden] pub(crate) name: String,
        [plain] pub(crate) present: bool,
        /// Size in bytes.
        [section] pub(crate) bytes: Option<Measured<u64>>,
        /// Which reader understood the file, e.g. "trace: Jaeger JSON".
        [section] pub(crate) format: Option<Measured<String>>,
        /// The file's modification time (RFC 3339), for provenance.
        [section] pub(crate) mtime: Option<Measured<String>>,
        /// xxh3-64 of the file's bytes as read, in hex.
        [section] pub(crate) xxh3: Option<Measured<String>>,
        [plain] pub(crate) lines: u64,
        [plain] pub(crate) records: u64,
        [plain] pub(crate) skipped: u64,
        [plain] pub(crate) malformed: u64,
        [plain] pub warnings: Vec<String>,
        /// True when the input broke its contract (what `--strict` fails on):
        /// [`contract::breaches`] found a breach.
        [plain] pub contract_broken: bool,
        /// How it broke its contract, each also the first of `warnings`.
        [hidden] pub(crate) breaches: Vec<String>,
        /// Why nothing of a present input is measured though it kept its
        /// contract: its records were recognised but all lie outside the run's
        /// window (another time's). Also the first of `warnings`.
        [hidden] pub(crate) not_measured: Option<String>,
        /// Why a field of a present input is `null`.
        [reasons_or_skip] pub(crate) why_null: WhyNull,
        /// What a server (not a file) gave: the node samples read from
        /// Prometheus (`prometheus::Source`); absent for a file.
        [skip_none] pub(crate) source: Option<Box<prometheus::Source>>,
    }
}

pub(crate) fn hex_hash(h: u64) -> String {
    format!("{h:016x}")
}

impl InputReport {
    /// Records what was read, to decide later whether a figure still holds.
    pub(crate) fn with_identity(mut self, mtime: Option<String>, xxh3: u64) -> Self {
        self.mtime = Some(Measured::from_option(mtime, || {
            "the file system gave no modification time".into()
        }));
        self.xxh3 = Some(Value(hex_hash(xxh3)));
        self
    }

    pub(crate) fn absent(name: &str) -> Self {
        InputReport {
            name: name.to_string(),
            ..Default::default()
        }
    }

    /// Builds the report of a present file from its parse, with the loud
    /// warning first when the file broke its contract.
    pub(crate) fn from_parse(name: &str, bytes: u64, format: Option<String>, stats: &ParseStats) -> Self {
        Self::judged(name, Some(bytes), format, stats, None)
    }

    /// A present file that does not fit its format at all (e.g. a trace in
    /// no known encoding), with what its parse saw.
    pub(crate) fn from_unfit_parse(name: &str, bytes: u64, stats: &ParseStats, unfit: String) -> Self {
        Self::judged(name, Some(bytes), None, stats, Some(unfit))
    }

    fn judged(
        name: &str,
        bytes: Option<u64>,
        format: Option<String>,
        stats: &ParseStats,
        unfit: Option<String>,
    ) -> Self {
        let mut warnings: Vec<String> = stats
            .problems
            .iter()
            .map(|p| {
                if p.line > 0 {
                    format!("{name}:{}: {}", p.line, p.reason)
                } else {
                    format!("{name}: {}", p.reason)
                }
            })
            .collect();
        if stats.problems_dropped > 0 {
            warnings.push(format!(
                "{name}: {} more problem lines not listed",
                stats.problems_dropped
            ));
        }
        let breaches = contract::breaches(&contract::Observed {
            bytes,
            lines: stats.lines,
            records: stats.records,
            skipped: stats.skipped,
            malformed: stats.malformed,
            format: format.as_deref(),
            first_problem: stats.problems.first(),
            unfit: unfit.as_deref(),
        });
        for (i, b) in breaches.iter().enumerate() {
            warnings.insert(i, format!("{name}: {b}"));
        }
        InputReport {
            name: name.to_string(),
            present: true,
            bytes: bytes.map(Value),
            format: Some(Measured::from_option(format, || {
                unfit.unwrap_or_else(|| "no reader understood the file".to_string())
            })),
            lines: stats.lines,
            records: stats.records,
            skipped: stats.skipped,
            malformed: stats.malformed,
            warnings,
            contract_broken: !breaches.is_empty(),
            breaches,
            ..Default::default()
        }
    }

    /// The reason every figure taken from this input is `null`: it is
    /// present but yielded no record (or could not be read).
    pub(crate) fn why_no_record(&self) -> Option<String> {
        if !self.present || self.records > 0 {
            return None;
        }
        let why: Vec<&str> = self
            .not_measured
            .iter()
            .chain(&self.breaches)
            .map(String::as_str)
            .collect();
        Some(format!("{}: {}", self.name, why.join("; ")))
    }

    /// A present file that could not be read or decoded at all.
    pub(crate) fn unreadable(name: &str, bytes: Option<u64>, reason: String) -> Self {
        let mut r = Self::judged(name, bytes, None, &ParseStats::default(), Some(reason.clone()));
        // Nothing was read, so "no record" would only repeat the reason.
        r.breaches.truncate(1);
        r.warnings = vec![format!("{name}: {reason}")];
        r.bytes = Some(Measured::from_option(bytes, || reason.clone()));
        r.mtime = Some(Missing(reason.clone()));
        r.xxh3 = Some(Missing(reason));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreadable_input_says_why_each_part_of_its_identity_is_null_and_an_absent_one_says_nothing() {
        let r = InputReport::unreadable("zot.jsonl", Some(42), "not a regular file".into());
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["bytes"], 42, "{json}");
        assert!(json["mtime"].is_null() && json["xxh3"].is_null() && json["format"].is_null());
        for f in ["mtime", "xxh3", "format"] {
            assert_eq!(json["why_null"][f], "not a regular file", "{f}: {json}");
        }
        assert!(json["why_null"].get("bytes").is_none(), "{json}");
        // An absent file's `present` says why: no reasons beside it.
        let absent = serde_json::to_value(InputReport::absent("zot.jsonl")).unwrap();
        assert!(
            absent["bytes"].is_null() && absent.get("why_null").is_none(),
            "{absent}"
        );
    }
}
