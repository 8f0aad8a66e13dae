//! Inputs: one module per file kind. Each parser returns its records plus
//! the statistics of its parse, so a parser that silently matched nothing
//! shows up as a present file with zero records instead of a chart of zeros.

pub mod artifacts;
pub mod find;
pub mod json_scan;
pub mod json_shape;
pub mod lines;
pub mod placement;
pub mod run_json;
pub mod samples;
pub mod sccache;
pub mod trace;
pub mod zot;

use serde::Serialize;

/// How many problem lines a parser keeps verbatim; the rest are only counted.
pub const MAX_PROBLEMS: usize = 5;

/// One line that could not be used, for the warning that names file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line number (0 when the input is not line-oriented).
    pub line: u64,
    pub reason: String,
}

/// What a parse saw: every line read ends up as a record, skipped (valid but
/// not relevant, such as another zot message) or malformed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParseStats {
    pub lines: u64,
    pub records: u64,
    pub skipped: u64,
    pub malformed: u64,
    /// The first few malformed lines with their reasons.
    pub problems: Vec<Problem>,
    /// Problems past `MAX_PROBLEMS`, counted so the report can say "and N more".
    pub problems_dropped: u64,
}

impl ParseStats {
    pub fn note_malformed(&mut self, line: u64, reason: impl Into<String>) {
        self.malformed += 1;
        self.note_problem(line, reason);
    }

    pub fn note_problem(&mut self, line: u64, reason: impl Into<String>) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(Problem {
                line,
                reason: reason.into(),
            });
        } else {
            self.problems_dropped += 1;
        }
    }

    /// Appends the statistics of the chunk that follows this one in the file:
    /// its line numbers were counted from the start of that chunk.
    pub fn merge_following(&mut self, later: ParseStats) {
        let offset = self.lines;
        self.lines += later.lines;
        self.records += later.records;
        self.skipped += later.skipped;
        self.malformed += later.malformed;
        for p in later.problems {
            self.note_problem(p.line + offset, p.reason);
        }
        self.problems_dropped += later.problems_dropped;
    }
}

/// One input file as the report describes it (`data.json` `inputs`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct InputReport {
    #[serde(skip)]
    pub name: String,
    pub present: bool,
    /// Size in bytes; `null` when the file is absent.
    pub bytes: Option<u64>,
    /// Which reader understood the file, e.g. "trace: Jaeger JSON".
    pub format: Option<String>,
    /// The file's modification time (RFC 3339), for provenance.
    pub mtime: Option<String>,
    /// xxh3-64 of the file's bytes as read, in hex.
    pub xxh3: Option<String>,
    pub lines: u64,
    pub records: u64,
    pub skipped: u64,
    pub malformed: u64,
    pub warnings: Vec<String>,
    /// True when the input broke its contract (what `--strict` fails on).
    pub contract_broken: bool,
}

pub fn hex_hash(h: u64) -> String {
    format!("{h:016x}")
}

impl InputReport {
    /// Records what was read, to decide later whether a figure still holds.
    pub fn with_identity(mut self, mtime: Option<String>, xxh3: u64) -> Self {
        self.mtime = mtime;
        self.xxh3 = Some(hex_hash(xxh3));
        self
    }

    pub fn absent(name: &str) -> Self {
        InputReport {
            name: name.to_string(),
            ..Default::default()
        }
    }

    /// Builds the report of a present file from its parse, adding the loud
    /// warning for a file from which nothing could be taken.
    pub fn from_parse(name: &str, bytes: u64, format: Option<String>, stats: &ParseStats) -> Self {
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
        let mut broken = stats.malformed > 0;
        if stats.records == 0 {
            broken = true;
            warnings.insert(
                0,
                if bytes == 0 {
                    format!("{name}: the file is empty; nothing in this report comes from it")
                } else {
                    format!(
                        "{name}: {} lines read but no record recognised; the producer's format may have changed",
                        stats.lines
                    )
                },
            );
        }
        InputReport {
            name: name.to_string(),
            present: true,
            bytes: Some(bytes),
            format,
            lines: stats.lines,
            records: stats.records,
            skipped: stats.skipped,
            malformed: stats.malformed,
            warnings,
            contract_broken: broken,
            ..Default::default()
        }
    }

    /// A present file that could not be read or decoded at all.
    pub fn unreadable(name: &str, bytes: Option<u64>, reason: String) -> Self {
        InputReport {
            name: name.to_string(),
            present: true,
            bytes,
            warnings: vec![format!("{name}: {reason}")],
            contract_broken: true,
            ..Default::default()
        }
    }
}
