//! `trace-<target>.json`: a BuildKit build record's trace, in any of the three
//! encodings that occur (detected by content), decoded into one span shape.

use super::ParseStats;
use crate::timefmt::{self, Micros};
use serde_json::value::RawValue;
use serde_json::Value;

/// A span as the analysis needs it, whatever the encoding.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub(crate) id: String,
    /// `None` for a root: no parent, or a parent whose id is all zeros.
    pub(crate) parent: Option<String>,
    pub(crate) name: String,
    pub(crate) start: Micros,
    /// `None` while the span has not ended (a run in flight) or when its end
    /// lies before its start.
    pub(crate) end: Option<Micros>,
    /// BuildKit's `vertex` attribute: the step's digest.
    pub(crate) vertex: Option<String>,
    /// `http.method` (BuildKit up to v0.25) or `http.request.method` (v0.26+).
    pub(crate) http_method: Option<String>,
    /// `http.request_content_length`, where older BuildKit recorded it.
    pub(crate) request_bytes: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Jaeger,
    Otlp,
    SpanStubs,
    SpanStubArray,
}

impl Encoding {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Encoding::Jaeger => "trace: Jaeger JSON",
            Encoding::Otlp => "trace: OTLP/JSON",
            Encoding::SpanStubs => "trace: BuildKit span stubs (stream)",
            Encoding::SpanStubArray => "trace: BuildKit span stubs (array)",
        }
    }
}

#[derive(Debug)]
pub struct Trace {
    pub(crate) encoding: Encoding,
    pub spans: Vec<Span>,
}

/// A JSON value as the slice of the file it is, not decoded.
type Raw<'a> = &'a RawValue;

/// The members of a JSON object, each left undecoded; `None` for what is no object.
fn members(r: Raw<'_>) -> Option<std::collections::BTreeMap<String, Raw<'_>>> {
    serde_json::from_str(r.get()).ok()
}

/// The items of a JSON array, each left undecoded; none for what is no array.
fn items(r: Option<Raw<'_>>) -> Vec<Raw<'_>> {
    r.and_then(|r| serde_json::from_str(r.get()).ok()).unwrap_or_default()
}

/// One span decoded from its slice of the file, and read as `span` reads it.
fn one(r: Raw<'_>, span: fn(&Value) -> Result<Span, String>) -> Result<Span, String> {
    let v: Value = serde_json::from_str(r.get()).map_err(|e| format!("a span that is not JSON: {e}"))?;
    span(&v)
}

/// Decodes a trace file. `Err` means nothing could be read from it at all.
///
/// Only one span at a time is decoded into a JSON tree: the file's
/// structure above the spans is walked as slices of the file (serde_json's
/// `RawValue`), so a trace costs its own bytes and the spans kept, not a
/// tree of every value in it (about 16 times the file).
pub fn parse(data: &[u8]) -> (Result<Trace, String>, ParseStats) {
    let mut stats = ParseStats {
        lines: count_lines(data),
        ..Default::default()
    };
    let mut values = serde_json::Deserializer::from_slice(data).into_iter::<Raw>();
    let first = match values.next() {
        None => return (Err("the file holds no JSON".into()), stats),
        Some(Err(e)) => {
            stats.note_malformed(e.line() as u64, format!("not JSON: {e}"));
            return (Err(format!("not JSON at line {}: {e}", e.line())), stats);
        }
        Some(Ok(v)) => v,
    };
    let mut spans = Vec::new();
    let top = members(first);
    let field = |k: &str| top.as_ref().and_then(|m| m.get(k).copied());
    let first_items = || items(Some(first));
    let encoding = if let Some(data) = field("data") {
        for trace in items(Some(data)) {
            let spans_of = members(trace).and_then(|t| t.get("spans").copied());
            for s in items(spans_of) {
                push(&mut spans, &mut stats, one(s, jaeger_span));
            }
        }
        Encoding::Jaeger
    } else if let Some(resource_spans) = field("resourceSpans") {
        for rs in items(Some(resource_spans)) {
            let rs = members(rs);
            let scopes = rs.as_ref().and_then(|m| {
                m.get("scopeSpans")
                    .or_else(|| m.get("instrumentationLibrarySpans"))
                    .copied()
            });
            for scope in items(scopes) {
                let spans_of = members(scope).and_then(|m| m.get("spans").copied());
                for s in items(spans_of) {
                    push(&mut spans, &mut stats, one(s, otlp_span));
                }
            }
        }
        Encoding::Otlp
    } else if first.get().starts_with('[') && first_items().first().is_some_and(|s| is_raw_stub(s)) {
        for s in first_items() {
            push(&mut spans, &mut stats, one(s, stub_span));
        }
        Encoding::SpanStubArray
    } else if field(STUB_KEY).is_some() {
        push(&mut spans, &mut stats, one(first, stub_span));
        for v in values {
            match v {
                Ok(v) => push(&mut spans, &mut stats, one(v, stub_span)),
                Err(e) => {
                    // A stream cut short (the run is in flight, or the copy was
                    // interrupted): keep what came before.
                    stats.note_malformed(e.line() as u64, format!("span stream ends in broken JSON: {e}"));
                    break;
                }
            }
        }
        Encoding::SpanStubs
    } else {
        let reason = "unknown trace encoding: neither Jaeger JSON (`data`), OTLP/JSON (`resourceSpans`) nor BuildKit span stubs (`SpanContext`)";
        stats.note_malformed(1, reason);
        return (Err(reason.into()), stats);
    };
    (Ok(Trace { encoding, spans }), stats)
}

/// The key that makes an object a BuildKit span stub.
const STUB_KEY: &str = "SpanContext";

/// Whether an undecoded value is a span stub (an object with `SpanContext`).
fn is_raw_stub(r: Raw<'_>) -> bool {
    members(r).is_some_and(|m| m.contains_key(STUB_KEY))
}

fn push(spans: &mut Vec<Span>, stats: &mut ParseStats, span: Result<Span, String>) {
    match span {
        Ok(s) => {
            stats.records += 1;
            spans.push(s);
        }
        Err(e) => stats.note_malformed(0, e),
    }
}

fn count_lines(data: &[u8]) -> u64 {
    let n = memchr::memchr_iter(b'\n', data).count() as u64;
    n + u64::from(data.last().is_some_and(|b| *b != b'\n'))
}

fn is_zero_id(id: &str) -> bool {
    id.bytes().all(|b| b == b'0')
}

fn normalise_id(id: &str) -> String {
    id.to_ascii_lowercase()
}

fn parent_of(id: Option<&str>) -> Option<String> {
    id.filter(|p| !p.is_empty() && !is_zero_id(p)).map(normalise_id)
}

/// An end before the start is not a duration: treated as not ended.
fn checked_end(start: Micros, end: Option<Micros>) -> Option<Micros> {
    end.filter(|e| *e >= start)
}

/// Attribute values arrive as strings, numbers or typed wrappers.
fn scalar_str(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn scalar_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

#[derive(Default)]
struct Attrs {
    vertex: Option<String>,
    http_method: Option<String>,
    request_bytes: Option<u64>,
}

impl Attrs {
    fn take(&mut self, key: &str, value: &Value) {
        match key {
            "vertex" => self.vertex = scalar_str(value),
            // v0.26 renamed it; whichever appears is the method.
            "http.method" | "http.request.method" => self.http_method = scalar_str(value),
            "http.request_content_length" | "http.request.body.size" => self.request_bytes = scalar_u64(value),
            _ => {}
        }
    }
}

fn jaeger_span(s: &Value) -> Result<Span, String> {
    let id = s
        .get("spanID")
        .and_then(Value::as_str)
        .ok_or("Jaeger span without spanID")?;
    let name = s.get("operationName").and_then(Value::as_str).unwrap_or("");
    let start = s
        .get("startTime")
        .and_then(scalar_u64)
        .ok_or_else(|| format!("span {id} ({name}) without startTime"))?;
    let duration = s.get("duration").and_then(scalar_u64);
    let parent = s
        .get("references")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|r| r.get("refType").and_then(Value::as_str).is_none_or(|t| t == "CHILD_OF"))
        .and_then(|r| r.get("spanID").and_then(Value::as_str));
    let mut attrs = Attrs::default();
    for tag in s.get("tags").and_then(Value::as_array).into_iter().flatten() {
        if let (Some(k), Some(v)) = (tag.get("key").and_then(Value::as_str), tag.get("value")) {
            attrs.take(k, v);
        }
    }
    // Past year 9999 is no time a build ran; inside it, any two instants
    // subtract without overflow.
    let start = i64::try_from(start)
        .ok()
        .and_then(timefmt::in_range)
        .ok_or_else(|| format!("span {id}: startTime {start} µs is past year 9999"))?;
    let end = duration
        .and_then(|d| i64::try_from(d).ok())
        .and_then(|d| start.checked_add(d))
        .and_then(timefmt::in_range);
    Ok(Span {
        id: normalise_id(id),
        parent: parent_of(parent),
        name: name.to_string(),
        start,
        end: checked_end(start, end),
        vertex: attrs.vertex,
        http_method: attrs.http_method,
        request_bytes: attrs.request_bytes,
    })
}

fn nanos_to_micros(v: Option<&Value>) -> Option<Micros> {
    let n = v.and_then(scalar_u64)?;
    if n == 0 {
        return None;
    }
    i64::try_from(n / 1000).ok()
}

fn otlp_span(s: &Value) -> Result<Span, String> {
    let id = s
        .get("spanId")
        .and_then(Value::as_str)
        .ok_or("OTLP span without spanId")?;
    let name = s.get("name").and_then(Value::as_str).unwrap_or("");
    let start = nanos_to_micros(s.get("startTimeUnixNano"))
        .ok_or_else(|| format!("span {id} ({name}) without startTimeUnixNano"))?;
    let end = nanos_to_micros(s.get("endTimeUnixNano"));
    let mut attrs = Attrs::default();
    for a in s.get("attributes").and_then(Value::as_array).into_iter().flatten() {
        let Some(k) = a.get("key").and_then(Value::as_str) else {
            continue;
        };
        // {"stringValue": ..} | {"intValue": "12"} | {"boolValue": true} | ...
        if let Some(v) = a
            .get("value")
            .and_then(Value::as_object)
            .and_then(|o| o.values().next())
        {
            attrs.take(k, v);
        }
    }
    Ok(Span {
        id: normalise_id(id),
        parent: parent_of(s.get("parentSpanId").and_then(Value::as_str)),
        name: name.to_string(),
        start,
        end: checked_end(start, end),
        vertex: attrs.vertex,
        http_method: attrs.http_method,
        request_bytes: attrs.request_bytes,
    })
}

fn stub_span(s: &Value) -> Result<Span, String> {
    let id = s
        .pointer("/SpanContext/SpanID")
        .and_then(Value::as_str)
        .ok_or("span stub without SpanContext.SpanID")?;
    let name = s.get("Name").and_then(Value::as_str).unwrap_or("");
    let time = |k: &str| s.get(k).and_then(Value::as_str).and_then(timefmt::parse_rfc3339);
    let start = time("StartTime").ok_or_else(|| format!("span {id} ({name}) without a readable StartTime"))?;
    let mut attrs = Attrs::default();
    for a in s.get("Attributes").and_then(Value::as_array).into_iter().flatten() {
        if let (Some(k), Some(v)) = (a.get("Key").and_then(Value::as_str), a.pointer("/Value/Value")) {
            attrs.take(k, v);
        }
    }
    Ok(Span {
        id: normalise_id(id),
        parent: parent_of(s.pointer("/Parent/SpanID").and_then(Value::as_str)),
        name: name.to_string(),
        start,
        // Go's zero time (0001-01-01) marks a span that has not ended.
        end: checked_end(start, time("EndTime")),
        vertex: attrs.vertex,
        http_method: attrs.http_method,
        request_bytes: attrs.request_bytes,
    })
}

/// The target a trace file belongs to: the name between `trace-` and `.json`.
pub(crate) fn target_of_file(file_name: &str) -> Option<&str> {
    file_name
        .strip_prefix("trace-")?
        .strip_suffix(".json")
        .filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_name_comes_from_the_file_name() {
        assert_eq!(target_of_file("trace-triton-wheel.json"), Some("triton-wheel"));
        assert_eq!(target_of_file("trace-.json"), None);
        assert_eq!(target_of_file("samples.jsonl"), None);
    }

    #[test]
    fn span_stub_stream_of_indented_objects_with_string_status() {
        let text = r#"{
	"Name": "exporting to image",
	"SpanContext": {"TraceID": "0555ce1903feb85770d102846273073b", "SpanID": "AA00000000000001"},
	"Parent": {"TraceID": "0555ce1903feb85770d102846273073b", "SpanID": "0000000000000000"},
	"StartTime": "2026-10-20T02:00:00.000000001Z",
	"EndTime": "2026-10-20T02:00:10.5Z",
	"Status": {"Code": "Ok"}
}
{
	"Name": "HTTP PUT",
	"SpanContext": {"SpanID": "aa00000000000002"},
	"Parent": {"SpanID": "aa00000000000001"},
	"StartTime": "2026-10-20T02:00:01Z",
	"EndTime": "0001-01-01T00:00:00Z",
	"Attributes": [{"Key": "http.request.method", "Value": {"Type": "STRING", "Value": "PUT"}}],
	"Status": {"Code": 0}
}
"#;
        let (trace, stats) = parse(text.as_bytes());
        let trace = trace.unwrap();
        assert_eq!(trace.encoding, Encoding::SpanStubs);
        assert_eq!(stats.records, 2);
        assert_eq!(trace.spans[0].parent, None);
        assert_eq!(trace.spans[0].end.unwrap() - trace.spans[0].start, 10_500_000);
        assert_eq!(trace.spans[1].parent.as_deref(), Some("aa00000000000001"));
        assert_eq!(trace.spans[1].http_method.as_deref(), Some("PUT"));
        assert_eq!(trace.spans[1].end, None, "Go's zero time is not an end");
    }

    #[test]
    fn an_unknown_encoding_is_an_error_that_says_so() {
        let (trace, stats) = parse(br#"{"spans": []}"#);
        assert!(trace.unwrap_err().contains("unknown trace encoding"));
        assert_eq!(stats.malformed, 1);
    }
}
