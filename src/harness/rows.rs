//! `bench.jsonl`: one JSON object a line, one per measured build.

use crate::input::lines::{LineSink, Outcome};
use crate::timefmt::{self, Micros};
use serde_json::Value;

/// Rows from before the `arch` field existed were measured on this arch.
pub(crate) const DEFAULT_ARCH: &str = "gfx950";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Scenario {
    Cold,
    Hot,
    Frozen,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BenchRow {
    /// 1-based line in bench.jsonl, for every message about the row.
    pub(crate) line: u64,
    pub(crate) ts: Micros,
    pub(crate) ts_text: String,
    pub(crate) scenario: Scenario,
    pub(crate) target: String,
    pub(crate) builder: String,
    pub(crate) arch: String,
    pub(crate) seconds: f64,
    pub(crate) rc: i64,
    pub(crate) steps_cached: Option<u64>,
    pub(crate) steps_total: Option<u64>,
    pub(crate) max_jobs: Option<u64>,
    pub(crate) load_start: Option<f64>,
    pub(crate) load_end: Option<f64>,
    pub(crate) registry_evicted: Option<bool>,
    pub(crate) failure: Option<String>,
}

#[derive(Debug, Default)]
pub(crate) struct BenchRows {
    pub(crate) rows: Vec<BenchRow>,
    /// Lines counted as we go (blank ones too); rows carry their own numbers.
    seen: u64,
}

fn opt_u64(v: Option<&Value>, field: &str) -> Result<Option<u64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("`{field}` is not a whole number: {x}")),
    }
}

fn opt_f64(v: Option<&Value>, field: &str) -> Result<Option<f64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_f64()
            .filter(|f| f.is_finite())
            .map(Some)
            .ok_or_else(|| format!("`{field}` is not a number: {x}")),
    }
}

fn req_str<'a>(o: &'a serde_json::Map<String, Value>, field: &str) -> Result<&'a str, String> {
    o.get(field)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("`{field}` is missing or not a string"))
}

/// Reads one row; `line` is its 1-based line number.
pub(crate) fn parse_row(text: &[u8], line: u64) -> Result<BenchRow, String> {
    let v: Value = serde_json::from_slice(text).map_err(|e| format!("not JSON: {e}"))?;
    let o = v.as_object().ok_or("not a JSON object")?;
    let scenario = match req_str(o, "scenario")? {
        "cold" => Scenario::Cold,
        "hot" => Scenario::Hot,
        "frozen" => Scenario::Frozen,
        other => return Err(format!("unknown scenario `{other}` (expected cold, hot or frozen)")),
    };
    let ts_text = req_str(o, "ts")?.to_string();
    let ts = timefmt::parse_rfc3339(&ts_text).ok_or_else(|| format!("`ts` is not RFC 3339: {ts_text}"))?;
    let seconds = opt_f64(o.get("seconds"), "seconds")?.ok_or("`seconds` is missing")?;
    if seconds < 0.0 {
        return Err(format!("`seconds` is negative: {seconds}"));
    }
    let rc = o
        .get("rc")
        .and_then(Value::as_i64)
        .ok_or("`rc` is missing or not an integer")?;
    let arch = match o.get("arch") {
        None | Some(Value::Null) => DEFAULT_ARCH.to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(x) => return Err(format!("`arch` is not a string: {x}")),
    };
    let registry_evicted = match o.get("registry_evicted") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(x) => return Err(format!("`registry_evicted` is not true, false or null: {x}")),
    };
    Ok(BenchRow {
        line,
        ts,
        ts_text,
        scenario,
        target: req_str(o, "target")?.to_string(),
        builder: req_str(o, "builder")?.to_string(),
        arch,
        seconds,
        rc,
        steps_cached: opt_u64(o.get("steps_cached"), "steps_cached")?,
        steps_total: opt_u64(o.get("steps_total"), "steps_total")?,
        max_jobs: opt_u64(o.get("max_jobs"), "max_jobs")?,
        load_start: opt_f64(o.get("node_load_at_start"), "node_load_at_start")?,
        load_end: opt_f64(o.get("node_load_at_end"), "node_load_at_end")?,
        registry_evicted,
        failure: o.get("failure").and_then(Value::as_str).map(str::to_string),
    })
}

impl LineSink for BenchRows {
    fn line(&mut self, text: &[u8]) -> Outcome {
        self.seen += 1;
        // Chunks restart their count; `merge_following` renumbers.
        match parse_row(text, self.seen) {
            Ok(r) => {
                self.rows.push(r);
                Outcome::Record
            }
            Err(e) => Outcome::Malformed(e.into()),
        }
    }
    fn passed_over(&mut self) {
        self.seen += 1;
    }

    fn merge_following(&mut self, later: Self) {
        let offset = self.seen;
        self.rows.extend(later.rows.into_iter().map(|mut r| {
            r.line += offset;
            r
        }));
        self.seen += later.seen;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::lines::{parse_bytes, Tail};

    #[test]
    fn rows_keep_their_line_numbers_across_blank_lines() {
        let row = r#"{"ts": "2026-10-20T02:00:00+00:00", "scenario": "cold", "target": "t", "builder": "b", "seconds": 1, "rc": 0}"#;
        let text = format!("{row}\n\n\n{row}\n");
        let (rows, _) = parse_bytes(text.as_bytes(), Tail::Complete, BenchRows::default);
        assert_eq!(rows.rows.iter().map(|r| r.line).collect::<Vec<_>>(), vec![1, 4]);
    }
}
