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

pub(crate) use perfreport_scan::lines::{ParseStats, Problem};
use serde::Serialize;
use std::collections::BTreeMap;

/// Seconds per bucket of the cache lanes' time series: the compiler
/// cache's requests (`sccache`) and the registry's writes (`zot`) are
/// bucketed alike, so their buckets line up on the timeline.
pub(crate) const BUCKET_SECS: i64 = 10;

/// The lane bucket of an instant: unix seconds / `BUCKET_SECS`.
pub(crate) fn bucket_of(t: crate::timefmt::Micros) -> i64 {
    t.div_euclid(BUCKET_SECS * 1_000_000)
}

/// One input file as the report describes it (`data.json` `inputs`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct InputReport {
    #[serde(skip)]
    pub(crate) name: String,
    pub(crate) present: bool,
    /// Size in bytes; `null` when the file is absent.
    pub(crate) bytes: Option<u64>,
    /// Which reader understood the file, e.g. "trace: Jaeger JSON".
    pub(crate) format: Option<String>,
    /// The file's modification time (RFC 3339), for provenance.
    pub(crate) mtime: Option<String>,
    /// xxh3-64 of the file's bytes as read, in hex.
    pub(crate) xxh3: Option<String>,
    pub(crate) lines: u64,
    pub(crate) records: u64,
    pub(crate) skipped: u64,
    pub(crate) malformed: u64,
    pub warnings: Vec<String>,
    /// True when the input broke its contract (what `--strict` fails on):
    /// [`contract::breaches`] found a breach.
    pub contract_broken: bool,
    /// How it broke its contract, each also the first of `warnings`.
    #[serde(skip)]
    pub(crate) breaches: Vec<String>,
    /// Why nothing of a present input is measured though it kept its
    /// contract: its records were recognised but all lie outside the run's
    /// window (another time's). Also the first of `warnings`.
    #[serde(skip)]
    pub(crate) not_measured: Option<String>,
    /// Why a field of a present input is `null` (an absent input's `present`
    /// says why).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) why_null: BTreeMap<String, String>,
    /// What a server (not a file) gave: the node samples read from
    /// Prometheus (`prometheus::Source`); absent for a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) source: Option<Box<prometheus::Source>>,
}

pub(crate) fn hex_hash(h: u64) -> String {
    format!("{h:016x}")
}

impl InputReport {
    /// Records what was read, to decide later whether a figure still holds.
    pub(crate) fn with_identity(mut self, mtime: Option<String>, xxh3: u64) -> Self {
        if mtime.is_none() {
            self.why_null.insert(
                "mtime".to_string(),
                "the file system gave no modification time".to_string(),
            );
        }
        self.mtime = mtime;
        self.xxh3 = Some(hex_hash(xxh3));
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
        let mut why_null = BTreeMap::new();
        if format.is_none() {
            why_null.insert(
                "format".to_string(),
                unfit.unwrap_or_else(|| "no reader understood the file".to_string()),
            );
        }
        InputReport {
            name: name.to_string(),
            present: true,
            bytes,
            format,
            lines: stats.lines,
            records: stats.records,
            skipped: stats.skipped,
            malformed: stats.malformed,
            warnings,
            contract_broken: !breaches.is_empty(),
            breaches,
            why_null,
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
        for field in ["bytes", "mtime", "xxh3"] {
            r.why_null.insert(field.to_string(), reason.clone());
        }
        if bytes.is_some() {
            r.why_null.remove("bytes");
        }
        r
    }
}
