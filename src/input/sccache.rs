//! `sccache.log`: the compiler cache's WebDAV server, an nginx access log.
//! The line parser is derived from the `log_format` directive the server
//! uses (`nginx-log-format` in the run directory, else nginx's `combined`),
//! so producer and consumer cannot drift apart.

use super::lines::{LineSink, Outcome};
use super::InputReport;

/// The cache server's access log, in a run directory.
pub(crate) const FILE: &str = "sccache.log";
use super::window::{Outside, RecordWindow};
use crate::timefmt::{self, Micros};
use perfreport_scan::find::{each_of_two, find_byte, find_str, rfind_byte, Marks};
use std::borrow::Cow;
use std::collections::BTreeMap;

/// nginx's built-in format, used when the run has no `nginx-log-format`.
pub(crate) const COMBINED: &str = r#"log_format combined '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent"';"#;

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    Var(Field),
}

/// The variables perfreport reads; every other variable is matched and ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    RemoteAddr,
    TimeLocal,
    TimeIso8601,
    Msec,
    Request,
    RequestMethod,
    RequestUri,
    Status,
    RequestLength,
    Other,
}

impl Field {
    fn of(var: &str) -> Field {
        match var {
            "remote_addr" | "http_x_forwarded_for" | "realip_remote_addr" => Field::RemoteAddr,
            "time_local" => Field::TimeLocal,
            "time_iso8601" => Field::TimeIso8601,
            "msec" => Field::Msec,
            "request" => Field::Request,
            "request_method" => Field::RequestMethod,
            "request_uri" | "uri" => Field::RequestUri,
            "status" => Field::Status,
            "request_length" => Field::RequestLength,
            _ => Field::Other,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// Default or `escape=none`: literals and variables on one line.
    Text(TextPlan),
    /// `escape=json` with a JSON-object format: key -> field.
    Json(JsonKeys),
}

/// The keys of a JSON format: all of them, in the directive's order (for the
/// expected shape), and those a line is read for (their variable is one the
/// report uses), the only ones looked up and decoded.
#[derive(Debug, Clone, PartialEq)]
struct JsonKeys {
    all: Vec<(String, Field)>,
    read: Vec<(String, Field)>,
}

impl JsonKeys {
    fn new(all: Vec<(String, Field)>) -> Self {
        let read = all.iter().filter(|(_, f)| *f != Field::Other).cloned().collect();
        JsonKeys { all, read }
    }
}

/// A parser derived from one `log_format` directive.
#[derive(Debug, Clone, PartialEq)]
pub struct LogFormat {
    pub(crate) name: String,
    shape: Shape,
    variables: usize,
    has_request_length: bool,
}

impl LogFormat {
    /// Parses `log_format name [escape=...] 'string' ['string' ...];`.
    pub fn from_directive(text: &str) -> Result<LogFormat, String> {
        // Comments are allowed in nginx config.
        let text: String = text
            .lines()
            .map(|l| if l.trim_start().starts_with('#') { "" } else { l })
            .collect::<Vec<_>>()
            .join("\n");
        let rest = text
            .trim_start()
            .strip_prefix("log_format")
            .ok_or("expected a `log_format` directive")?;
        let mut words = Tokens { rest };
        let name = words.bare().ok_or("log_format without a name")?;
        let mut escape = "default".to_string();
        let mut format = String::new();
        loop {
            match words.next()? {
                None => return Err("log_format is not closed by `;`".into()),
                Some(Token::End) => break,
                Some(Token::Bare(w)) => match w.strip_prefix("escape=") {
                    Some(e) if format.is_empty() => escape = e.to_string(),
                    _ => format.push_str(w),
                },
                Some(Token::Quoted(s)) => format.push_str(&s),
            }
        }
        if format.is_empty() {
            return Err(format!("log_format {name} has no format string"));
        }
        if !matches!(escape.as_str(), "default" | "json" | "none") {
            return Err(format!("unknown escape={escape}"));
        }
        let parts = split_vars(&format)?;
        let variables = parts.iter().filter(|p| matches!(p, Part::Var(_))).count();
        let has_request_length = parts.contains(&Part::Var(Field::RequestLength));
        let needed = |f: Field| parts.contains(&Part::Var(f));
        if !(needed(Field::Request) || (needed(Field::RequestMethod) && needed(Field::RequestUri))) {
            return Err(
                "the format has neither $request nor $request_method with $request_uri: requests cannot be classified"
                    .into(),
            );
        }
        if !needed(Field::Status) {
            return Err("the format has no $status: hits and misses cannot be told apart".into());
        }
        let shape = if escape == "json" && format.trim_start().starts_with('{') {
            Shape::Json(JsonKeys::new(json_keys(&parts)?))
        } else {
            for pair in parts.windows(2) {
                if let [Part::Var(_), Part::Var(_)] = pair {
                    return Err("two variables with nothing between them cannot be told apart".into());
                }
            }
            Shape::Text(TextPlan::new(parts))
        };
        Ok(LogFormat {
            name: name.to_string(),
            shape,
            variables,
            has_request_length,
        })
    }

    pub fn combined() -> LogFormat {
        // The constant is a valid directive; a failure here is a bug in this file.
        Self::from_directive(COMBINED).expect("the built-in combined format parses")
    }

    pub(crate) fn describe(&self) -> String {
        let kind = if matches!(self.shape, Shape::Json(_)) {
            ", escape=json"
        } else {
            ""
        };
        format!("sccache.log: log_format {}{kind}, {} fields", self.name, self.variables)
    }

    /// Whether upload sizes can be measured (`$request_length`).
    pub(crate) fn has_request_length(&self) -> bool {
        self.has_request_length
    }

    /// The shape a line must have, for the message when lines do not fit.
    pub fn expected_shape(&self) -> String {
        match &self.shape {
            Shape::Text(plan) => plan
                .parts
                .iter()
                .map(|p| match p {
                    Part::Literal(s) => s.clone(),
                    Part::Var(f) => format!("<{f:?}>"),
                })
                .collect(),
            Shape::Json(keys) => format!(
                "JSON object with keys {}",
                keys.all.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", ")
            ),
        }
    }

    pub fn parse_line<'a>(&self, line: &'a [u8]) -> Result<Request<'a>, Cow<'static, str>> {
        self.parse_line_with(line, &mut TimeCache::default())
    }

    /// `parse_line`, with the time of the line before remembered: an access
    /// log writes the same second on many lines in a row.
    pub(crate) fn parse_line_with<'a>(
        &self,
        line: &'a [u8],
        times: &mut TimeCache,
    ) -> Result<Request<'a>, Cow<'static, str>> {
        match &self.shape {
            Shape::Text(plan) => {
                let text = simdutf8::basic::from_utf8(line)
                    .map_err(|_| "not UTF-8 (nginx escapes such bytes as \\xXX; is this the right file?)")?;
                plan.parse(text, times)
            }
            Shape::Json(keys) => parse_json(keys, line, times),
        }
    }

    /// `parse_line_with` for a line already known to be UTF-8.
    pub(crate) fn parse_text_with<'a>(
        &self,
        line: &'a str,
        times: &mut TimeCache,
    ) -> Result<Request<'a>, Cow<'static, str>> {
        match &self.shape {
            Shape::Text(plan) => plan.parse(line, times),
            Shape::Json(keys) => parse_json(keys, line.as_bytes(), times),
        }
    }
}

enum Token<'a> {
    Bare(&'a str),
    Quoted(String),
    End,
}

struct Tokens<'a> {
    rest: &'a str,
}

impl<'a> Tokens<'a> {
    fn bare(&mut self) -> Option<&'a str> {
        match self.next() {
            Ok(Some(Token::Bare(w))) => Some(w),
            _ => None,
        }
    }

    fn next(&mut self) -> Result<Option<Token<'a>>, String> {
        self.rest = self.rest.trim_start();
        let mut chars = self.rest.char_indices();
        let Some((_, c)) = chars.next() else {
            return Ok(None);
        };
        if c == ';' {
            self.rest = &self.rest[1..];
            return Ok(Some(Token::End));
        }
        if c == '\'' || c == '"' {
            let mut out = String::new();
            let mut escaped = false;
            for (i, ch) in chars {
                if escaped {
                    out.push(ch);
                    escaped = false;
                } else if ch == '\\' {
                    escaped = true;
                } else if ch == c {
                    self.rest = &self.rest[i + 1..];
                    return Ok(Some(Token::Quoted(out)));
                } else {
                    out.push(ch);
                }
            }
            return Err("unterminated quoted string in log_format".into());
        }
        let end = self
            .rest
            .find(|ch: char| ch.is_whitespace() || ch == ';')
            .unwrap_or(self.rest.len());
        let word = &self.rest[..end];
        self.rest = &self.rest[end..];
        Ok(Some(Token::Bare(word)))
    }
}

fn split_vars(format: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut rest = format;
    while let Some(i) = rest.find('$') {
        literal.push_str(&rest[..i]);
        rest = &rest[i + 1..];
        let (name, after) = if let Some(braced) = rest.strip_prefix('{') {
            let end = braced.find('}').ok_or("unclosed ${ in log_format")?;
            (&braced[..end], &braced[end + 1..])
        } else {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            (&rest[..end], &rest[end..])
        };
        if name.is_empty() {
            literal.push('$');
            rest = after;
            continue;
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(std::mem::take(&mut literal)));
        }
        parts.push(Part::Var(Field::of(name)));
        rest = after;
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Ok(parts)
}

/// For a JSON format, the key each variable is written under: the literal
/// before a variable ends in `"key":` or `"key":"`.
fn json_keys(parts: &[Part]) -> Result<Vec<(String, Field)>, String> {
    let mut keys = Vec::new();
    let mut prev: Option<&str> = None;
    for p in parts {
        match p {
            Part::Literal(s) => prev = Some(s),
            Part::Var(f) => {
                let lit = prev.ok_or("a JSON log_format must start with `{`")?;
                let head = lit.trim_end().strip_suffix('"').unwrap_or(lit).trim_end();
                let head = head
                    .strip_suffix(':')
                    .ok_or("a variable in a JSON log_format is not a value of a key")?;
                let head = head.trim_end().strip_suffix('"').ok_or("a JSON key must be quoted")?;
                let start = head.rfind('"').ok_or("a JSON key must be quoted")?;
                keys.push((head[start + 1..].to_string(), *f));
                prev = None;
            }
        }
    }
    Ok(keys)
}

/// One access-log line, borrowed from the line.
#[derive(Debug, Clone, PartialEq)]
pub struct Request<'a> {
    pub(crate) addr: Cow<'a, str>,
    pub(crate) time: Option<Micros>,
    pub method: Cow<'a, str>,
    pub path: Cow<'a, str>,
    pub status: u16,
    pub(crate) request_length: Option<u64>,
}

/// The values of one line, borrowed from it (or, for a JSON line, from its
/// decoded values): plain slices, so a field costs a store.
#[derive(Default)]
struct Fields<'a> {
    addr: Option<&'a str>,
    /// The time's variable and text, read in `finish` (through the cache).
    time: Option<(Field, &'a str)>,
    request: Option<&'a str>,
    method: Option<&'a str>,
    uri: Option<&'a str>,
    status: Option<&'a str>,
    request_length: Option<&'a str>,
}

impl<'a> Fields<'a> {
    #[inline]
    fn set(&mut self, f: Field, v: &'a str) {
        match f {
            Field::RemoteAddr => self.addr = Some(v),
            Field::TimeLocal | Field::TimeIso8601 | Field::Msec => self.time = Some((f, v)),
            Field::Request => self.request = Some(v),
            Field::RequestMethod => self.method = Some(v),
            Field::RequestUri => self.uri = Some(v),
            Field::Status => self.status = Some(v),
            Field::RequestLength => self.request_length = Some(v),
            Field::Other => {}
        }
    }

    fn finish(self, times: &mut TimeCache) -> Result<Request<'a>, Cow<'static, str>> {
        let (method, path) = match (self.method, self.uri, self.request) {
            (Some(m), Some(u), _) => (m, u),
            (_, _, Some(r)) => method_and_path(r).ok_or("the request is not `METHOD PATH PROTOCOL`")?,
            _ => return Err("no request in the line".into()),
        };
        let status = self
            .status
            .and_then(|s| s.parse::<u16>().ok())
            .ok_or("the status is not a number")?;
        // A number field that holds something else means the line does not
        // have the directive's shape (a trailing field swallowed the rest).
        let request_length = match self.request_length {
            None | Some("-") => None,
            Some(s) => Some(
                s.parse()
                    .map_err(|_| Cow::Owned(format!("$request_length is not a number: {s:?}")))?,
            ),
        };
        Ok(Request {
            addr: Cow::Borrowed(self.addr.unwrap_or("-")),
            time: self.time.and_then(|(f, text)| times.read(f, text)),
            method: Cow::Borrowed(method),
            path: Cow::Borrowed(path),
            status,
            request_length,
        })
    }
}

impl Request<'_> {
    /// The request with its text owned, to outlive what it was read from.
    fn into_owned(self) -> Request<'static> {
        Request {
            addr: Cow::Owned(self.addr.into_owned()),
            time: self.time,
            method: Cow::Owned(self.method.into_owned()),
            path: Cow::Owned(self.path.into_owned()),
            status: self.status,
            request_length: self.request_length,
        }
    }
}

/// The first two space-separated words of `$request` (what `split(' ')`
/// gives; the protocol after them is not needed).
fn method_and_path(request: &str) -> Option<(&str, &str)> {
    let first = find_byte(request.as_bytes(), b' ')?;
    let rest = &request[first + 1..];
    let second = find_byte(rest.as_bytes(), b' ').unwrap_or(rest.len());
    Some((&request[..first], &rest[..second]))
}

/// A text format compiled for matching: the literal a line starts with,
/// then each variable with the literal that ends it (the format has no two
/// literals in a row, and no two variables: `split_vars` and the directive's
/// check see to that).
#[derive(Debug, Clone, PartialEq)]
struct TextPlan {
    /// The format's parts, for the message of a line that does not fit.
    parts: Vec<Part>,
    lead: Option<String>,
    /// Each variable and the literal after it; the last may have none (it
    /// takes the rest of the line).
    steps: Vec<(Field, Option<String>)>,
    /// The first bytes of the literals after variables: where one of them
    /// may start. A value ends at its literal's first occurrence.
    starts: Vec<u8>,
}

impl TextPlan {
    fn new(parts: Vec<Part>) -> TextPlan {
        let mut lead = None;
        let mut steps: Vec<(Field, Option<String>)> = Vec::new();
        for part in &parts {
            match (part, steps.last_mut()) {
                (Part::Literal(l), None) => lead = Some(l.clone()),
                (Part::Literal(l), Some((_, end))) => *end = Some(l.clone()),
                (Part::Var(f), _) => steps.push((*f, None)),
            }
        }
        let mut starts: Vec<u8> = steps
            .iter()
            .filter_map(|(_, end)| end.as_ref()?.bytes().next())
            .collect();
        starts.sort_unstable();
        starts.dedup();
        TextPlan {
            parts,
            lead,
            steps,
            starts,
        }
    }

    fn parse<'a>(&self, text: &'a str, times: &mut TimeCache) -> Result<Request<'a>, Cow<'static, str>> {
        let line = text.as_bytes();
        let mut at = 0;
        if let Some(lead) = &self.lead {
            if !line.starts_with(lead.as_bytes()) {
                return Err(Cow::Owned(format!("expected {lead:?} at column 1")));
            }
            at = lead.len();
        }
        // One mask of every place a literal may start, walked field by
        // field; a format with more than four such bytes searches each.
        let mut marks = Marks::new(line, &self.starts);
        let mut fields = Fields::default();
        for (field, end) in &self.steps {
            let (value_end, next) = match end {
                Some(lit) => {
                    let found = match marks.as_mut() {
                        Some(m) => m.find_from(at, lit.as_bytes()),
                        None => text.get(at..).and_then(|rest| find_str(rest, lit)).map(|i| at + i),
                    };
                    let Some(found) = found else {
                        return Err(Cow::Owned(format!("expected {lit:?} after column {}", at + 1)));
                    };
                    (found, found + lit.len())
                }
                None => (line.len(), line.len()),
            };
            // A literal's first byte never continues a character, so both
            // ends are character boundaries.
            let value = text
                .get(at..value_end)
                .ok_or("a field does not end on a character boundary")?;
            fields.set(*field, value);
            at = next;
        }
        fields.finish(times)
    }
}

/// The time of the last line read and its text: consecutive lines of an
/// access log mostly carry the same second, so the date arithmetic runs
/// once per second, not once per line.
#[derive(Debug, Clone, Default)]
pub(crate) struct TimeCache {
    field: Option<Field>,
    text: String,
    time: Option<Micros>,
}

impl TimeCache {
    fn read(&mut self, field: Field, text: &str) -> Option<Micros> {
        if self.field == Some(field) && self.text == text {
            return self.time;
        }
        self.time = match field {
            Field::TimeLocal => timefmt::parse_nginx_local(text),
            Field::TimeIso8601 => timefmt::parse_rfc3339(text),
            Field::Msec => text.parse::<f64>().ok().and_then(timefmt::secs_to_micros),
            _ => None,
        };
        self.field = Some(field);
        self.text.clear();
        self.text.push_str(text);
        self.time
    }
}

/// The values of the format's keys in one `escape=json` line, each the
/// last one the line gives (as a JSON object's reader keeps it). Only the
/// keys whose variable the report uses are looked up and kept; every other
/// key and value is passed over without being decoded or allocated, and a
/// key or string without escapes is borrowed from the line: a line of many
/// keys costs what reading it costs, not a string per key and per value
/// and a linear search of every key (which made a log of 45 keys five
/// times slower per byte than the default format; now they are level).
struct Wanted<'k> {
    keys: &'k [(String, Field)],
}

impl<'de> serde::de::DeserializeSeed<'de> for Wanted<'_> {
    type Value = Vec<Option<Value<'de>>>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Wanted<'_> {
    type Value = Vec<Option<Value<'de>>>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut values = vec![None; self.keys.len()];
        while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
            match self.keys.iter().position(|(k, _)| *k == key) {
                Some(i) => values[i] = Some(map.next_value::<Value<'de>>()?),
                None => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Ok(values)
    }
}

/// A JSON string: borrowed from the line unless it holds an escape.
struct Text<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Text<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Text<'de>, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// A wanted key's value: a string's text, a number's as written; any other
/// value (`null`, a boolean, an array, an object) is no value.
#[derive(Clone)]
struct Value<'de>(Option<Cow<'de, str>>);

impl<'de> serde::Deserialize<'de> for Value<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = <&'de serde_json::value::RawValue>::deserialize(d)?;
        let text = raw.get();
        Ok(Value(match text.as_bytes().first() {
            Some(b'"') => serde_json::from_str::<Text<'de>>(text).ok().map(|t| t.0),
            Some(b'-' | b'0'..=b'9') => Some(Cow::Borrowed(text)),
            _ => None,
        }))
    }
}

fn parse_json<'a>(keys: &JsonKeys, line: &'a [u8], times: &mut TimeCache) -> Result<Request<'a>, Cow<'static, str>> {
    use serde::de::DeserializeSeed;
    let not_json = |e: serde_json::Error| Cow::Owned(format!("not a JSON log line: {e}"));
    let mut de = serde_json::Deserializer::from_slice(line);
    let values = Wanted { keys: &keys.read }.deserialize(&mut de).map_err(not_json)?;
    de.end().map_err(not_json)?;
    let mut fields = Fields::default();
    for ((_, f), v) in keys.read.iter().zip(&values) {
        if let Some(Value(Some(text))) = v {
            fields.set(*f, text);
        }
    }
    fields.finish(times).map(Request::into_owned)
}

/// What a request was to the compiler cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Hit,
    Miss,
    Write,
    /// A PUT that did not get a 2xx answer: not a write.
    FailedWrite,
    /// PROPFIND/MKCOL and other WebDAV bookkeeping around a write.
    Overhead,
    /// sccache's start-up probe of `<prefix>/.sccache_check`.
    Check,
    /// A request under another run's prefix: counted apart.
    OtherPrefix,
    /// Anything else (an error status on a read, an unknown method).
    Other,
}

/// Classifies one request. `prefix` is this run's `sccache_prefix`, if known.
pub fn classify(method: &str, path: &str, status: u16, prefix: Option<&str>) -> Access {
    classify_under(method, path, status, prefix.map(|p| p.trim_matches('/')))
}

/// `classify` with the prefix's slashes already trimmed (once per log, not per line).
fn classify_under(method: &str, path: &str, status: u16, prefix: Option<&str>) -> Access {
    // One SIMD pass finds both cut characters: the path is short.
    let mut cut = path.len();
    each_of_two(path.as_bytes(), b'?', b'#', |at| {
        cut = at;
        false
    });
    let path = &path[..cut];
    if let Some(p) = prefix {
        if p.is_empty() || !has_segments(path, p) {
            return Access::OtherPrefix;
        }
    }
    let is_object = match object_key(path) {
        Some(".sccache_check") => return Access::Check,
        Some(_) => true,
        None => match last_segments(path) {
            [Some(".sccache_check"), ..] => return Access::Check,
            segments => is_object(segments),
        },
    };
    let ok = (200..300).contains(&status);
    match method {
        "GET" if is_object && status == 200 => Access::Hit,
        "GET" if is_object && status == 404 => Access::Miss,
        "PUT" if is_object && ok => Access::Write,
        "PUT" if is_object => Access::FailedWrite,
        "PROPFIND" | "MKCOL" | "HEAD" | "OPTIONS" => Access::Overhead,
        _ => Access::Other,
    }
}

/// The key of a path laid out as sccache lays out objects, `.../k0/k1/k2/<key>`
/// with single slashes, read without splitting the path; `None` when the
/// path is not laid out so plainly (`is_object` decides those).
fn object_key(path: &str) -> Option<&str> {
    let p = path.as_bytes();
    let start = rfind_byte(p, b'/')? + 1;
    let k = &p[start..];
    // The three one-byte folders sit between slashes, so they are whole characters.
    let plain = k.len() > 3 && start >= 7 && p[start - 7..start] == [b'/', k[0], b'/', k[1], b'/', k[2], b'/'];
    plain.then(|| &path[start..])
}

/// Whether a path's last non-empty segments (last first) are a cache
/// object's: `<k0>/<k1>/<k2>/<key>`, the key's first three characters as folders.
fn is_object([key, c, b, a]: [Option<&str>; 4]) -> bool {
    match (a, b, c, key) {
        (Some(a), Some(b), Some(c), Some(key)) => {
            let k = key.as_bytes();
            k.len() > 3 && a.as_bytes() == &k[0..1] && b.as_bytes() == &k[1..2] && c.as_bytes() == &k[2..3]
        }
        _ => false,
    }
}

/// The last four non-empty segments of a path, last first (what
/// `path.rsplit('/').filter(|s| !s.is_empty())` gives), without a searcher
/// per call: this runs once per log line.
fn last_segments(path: &str) -> [Option<&str>; 4] {
    let mut out = [None; 4];
    let mut n = 0;
    let mut end = path.len();
    while n < out.len() {
        let start = rfind_byte(&path.as_bytes()[..end], b'/').map_or(0, |i| i + 1);
        if start < end {
            out[n] = Some(&path[start..end]);
            n += 1;
        }
        if start == 0 {
            break;
        }
        end = start - 1;
    }
    out
}

/// Whether `path` holds `segments` (one or more whole path segments).
fn has_segments(path: &str, segments: &str) -> bool {
    // Nearly every path starts with the prefix: no search for that.
    if let Some(after) = path.strip_prefix('/').and_then(|p| p.strip_prefix(segments)) {
        if after.is_empty() || after.starts_with('/') {
            return true;
        }
    }
    let mut from = 0;
    while let Some(i) = path
        .get(from..)
        .and_then(|rest| find_str(rest, segments))
        .map(|i| from + i)
    {
        let before = path[..i].ends_with('/');
        let after = &path[i + segments.len()..];
        if before && (after.is_empty() || after.starts_with('/')) {
            return true;
        }
        from = i + segments.len().max(1);
    }
    false
}

/// Counts of one time bucket of the cache lane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CacheBucket {
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) writes: u64,
    pub(crate) write_bytes: u64,
    /// Writes in this bucket whose size the log does not carry.
    pub(crate) writes_unsized: u64,
}

/// The mergeable aggregate of an sccache.log (or a chunk of it).
#[derive(Debug, Clone, Default)]
pub(crate) struct SccacheLog {
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) writes: u64,
    /// Sum of `$request_length` over writes that carried one.
    pub(crate) write_bytes: u64,
    /// Writes whose size the log does not carry.
    pub(crate) writes_unsized: u64,
    pub(crate) failed_writes: u64,
    pub(crate) overhead: u64,
    pub(crate) checks: u64,
    pub(crate) other_prefix: u64,
    pub(crate) other: u64,
    /// Keyed by `unix seconds / BUCKET_SECS`.
    pub(crate) series: BTreeMap<i64, CacheBucket>,
    pub(crate) first: Option<Micros>,
    pub(crate) last: Option<Micros>,
    /// Requests whose time could not be read (absent, or a date that does not
    /// exist): counted in the totals, but on no lane bucket.
    pub(crate) untimed: u64,
    /// Requests left out of every count here for their time (see
    /// `SccacheSink::within`).
    pub(crate) outside: Option<Outside>,
    /// The fleet's node hosts (run.json `addr`), whose requests also count
    /// on a lane of their own: `node_series[i]` is `hosts[i]`'s.
    hosts: super::zot::NodeHosts,
    node_series: Vec<BTreeMap<i64, CacheBucket>>,
}

impl SccacheLog {
    /// One node's own lane (keyed as `series`); `None` when `host` is not
    /// one of the nodes this log was read for.
    pub(crate) fn node_series(&self, host: &str) -> Option<&BTreeMap<i64, CacheBucket>> {
        static EMPTY: BTreeMap<i64, CacheBucket> = BTreeMap::new();
        let i = self.hosts.index(host)?;
        Some(self.node_series.get(i).unwrap_or(&EMPTY))
    }
}

/// The sink with what it needs to classify: the format and this run's prefix.
#[derive(Debug, Clone)]
pub(crate) struct SccacheSink {
    pub(crate) format: std::sync::Arc<LogFormat>,
    pub(crate) log: SccacheLog,
    /// This run's prefix without its slashes, as `classify` compares it.
    segments: Option<std::sync::Arc<str>>,
    times: TimeCache,
    window: Option<RecordWindow>,
}

impl SccacheSink {
    pub(crate) fn new(format: std::sync::Arc<LogFormat>, prefix: Option<std::sync::Arc<str>>) -> SccacheSink {
        SccacheSink {
            format,
            segments: prefix.as_deref().map(|p| p.trim_matches('/').into()),
            log: SccacheLog::default(),
            times: TimeCache::default(),
            window: None,
        }
    }

    /// Leaves out the requests whose time lies outside `window`, counting them.
    pub(crate) fn within(mut self, window: Option<RecordWindow>) -> SccacheSink {
        self.window = window;
        self
    }

    /// Counts each of these hosts' requests on a lane of its own too.
    pub(crate) fn for_nodes(mut self, hosts: super::zot::NodeHosts) -> SccacheSink {
        self.log.hosts = hosts;
        self
    }
}

impl SccacheSink {
    /// Counts one line's request, or the reason it has none.
    fn count(&mut self, req: Result<Request<'_>, Cow<'static, str>>, line: &[u8]) -> Outcome {
        let req = match req {
            Ok(r) => r,
            // The line itself goes with the reason: `check` shows it beside the expected shape.
            Err(e) => return Outcome::Malformed(format!("{e}; the line: {}", super::lines::excerpt(line)).into()),
        };
        let log = &mut self.log;
        // A request without a readable time cannot be judged: it counts.
        if let Some(t) = req.time.filter(|&t| self.window.is_some_and(|w| !w.holds(t))) {
            Outside::add(&mut log.outside, t, t, 1);
            return Outcome::Skipped;
        }
        let access = classify_under(&req.method, &req.path, req.status, self.segments.as_deref());
        let bucket = req.time.map(|t| {
            log.first = Some(log.first.map_or(t, |f| f.min(t)));
            log.last = Some(log.last.map_or(t, |l| l.max(t)));
            super::bucket_of(t)
        });
        log.untimed += u64::from(bucket.is_none());
        let node = bucket
            .and_then(|_| log.hosts.index(super::zot::client_host(&req.addr)))
            .inspect(|&i| {
                if log.node_series.len() <= i {
                    log.node_series.resize_with(log.hosts.len(), BTreeMap::new);
                }
            });
        let mut lane = |f: &mut dyn FnMut(&mut CacheBucket)| {
            if let Some(b) = bucket {
                f(log.series.entry(b).or_default());
                if let Some(series) = node.and_then(|i| log.node_series.get_mut(i)) {
                    f(series.entry(b).or_default());
                }
            }
        };
        match access {
            Access::Hit => {
                lane(&mut |b| b.hits += 1);
                log.hits += 1;
            }
            Access::Miss => {
                lane(&mut |b| b.misses += 1);
                log.misses += 1;
            }
            Access::Write => {
                let size = req.request_length;
                lane(&mut |b| {
                    b.writes += 1;
                    match size {
                        Some(n) => b.write_bytes = b.write_bytes.saturating_add(n),
                        None => b.writes_unsized += 1,
                    }
                });
                log.writes += 1;
                match size {
                    Some(n) => log.write_bytes = log.write_bytes.saturating_add(n),
                    None => log.writes_unsized += 1,
                }
            }
            Access::FailedWrite => log.failed_writes += 1,
            Access::Overhead => log.overhead += 1,
            Access::Check => log.checks += 1,
            Access::OtherPrefix => log.other_prefix += 1,
            Access::Other => log.other += 1,
        }
        Outcome::Record
    }
}

impl LineSink for SccacheSink {
    fn line(&mut self, line: &[u8]) -> Outcome {
        let req = self.format.parse_line_with(line, &mut self.times);
        self.count(req, line)
    }

    fn line_text(&mut self, line: &str) -> Outcome {
        let req = self.format.parse_text_with(line, &mut self.times);
        self.count(req, line.as_bytes())
    }

    fn merge_following(&mut self, later: Self) {
        let (a, b) = (&mut self.log, later.log);
        a.hits += b.hits;
        a.misses += b.misses;
        a.writes += b.writes;
        a.write_bytes = a.write_bytes.saturating_add(b.write_bytes);
        a.writes_unsized += b.writes_unsized;
        a.failed_writes += b.failed_writes;
        a.overhead += b.overhead;
        a.checks += b.checks;
        a.other_prefix += b.other_prefix;
        a.other += b.other;
        a.untimed += b.untimed;
        let add = |into: &mut BTreeMap<i64, CacheBucket>, from: BTreeMap<i64, CacheBucket>| {
            for (k, v) in from {
                let e = into.entry(k).or_default();
                e.hits += v.hits;
                e.misses += v.misses;
                e.writes += v.writes;
                e.write_bytes = e.write_bytes.saturating_add(v.write_bytes);
                e.writes_unsized += v.writes_unsized;
            }
        };
        add(&mut a.series, b.series);
        // Chunks share `hosts`: node lanes merge by index.
        if a.node_series.len() < b.node_series.len() {
            a.node_series.resize_with(b.node_series.len(), BTreeMap::new);
        }
        for (mine, theirs) in a.node_series.iter_mut().zip(b.node_series) {
            add(mine, theirs);
        }
        a.first = match (a.first, b.first) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        a.last = match (a.last, b.last) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        Outside::merge(&mut a.outside, b.outside);
    }
}

/// What the report says of sccache.log beyond its parse: write sizes that
/// cannot be known, requests off the cache lane, and a log that read fine
/// but held no cache traffic.
pub(crate) fn warn(log: Option<&SccacheLog>, format: &LogFormat, report: &mut InputReport) {
    if report.present && !format.has_request_length() {
        report.warnings.push(format!(
            "{FILE}: the log format has no $request_length, so the size of cache writes is unknown"
        ));
    }
    let Some(log) = log else {
        return;
    };
    if log.untimed > 0 {
        report.warnings.push(format!(
            "{FILE}: {} without a readable time: counted in the totals, not on the cache lane",
            crate::fmt::counted(log.untimed, "request", "requests")
        ));
    }
    if report.present && report.records > 0 && log.hits + log.misses + log.writes == 0 {
        report.warnings.push(format!(
            "{FILE}: {} read but none was a cache hit, miss or write{}",
            crate::fmt::counted(report.records, "request", "requests"),
            if log.other_prefix > 0 {
                format!(" under this run's prefix ({} under other prefixes)", log.other_prefix)
            } else {
                String::new()
            }
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_format_without_request_length_and_a_log_without_cache_traffic_are_warned_about() {
        let stats = crate::input::ParseStats {
            lines: 4,
            records: 4,
            ..Default::default()
        };
        let mut r = InputReport::from_parse("sccache.log", 100, None, &stats);
        let log = SccacheLog {
            untimed: 2,
            other_prefix: 4,
            ..Default::default()
        };
        warn(Some(&log), &LogFormat::combined(), &mut r);
        assert_eq!(
            r.warnings,
            [
                "sccache.log: the log format has no $request_length, so the size of cache writes is unknown",
                "sccache.log: 2 requests without a readable time: counted in the totals, not on the cache lane",
                "sccache.log: 4 requests read but none was a cache hit, miss or write under this run's prefix (4 under other prefixes)",
            ]
        );
        // An absent log says nothing at all.
        let mut absent = InputReport::absent("sccache.log");
        warn(None, &LogFormat::combined(), &mut absent);
        assert!(absent.warnings.is_empty());
    }

    const SPEC_FORMAT: &str = r#"log_format sccache '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_length $request_time';"#;

    #[test]
    fn method_and_path_are_what_split_gives() {
        for r in ["GET /a HTTP/1.1", "GET /a", "GET", "GET  /a", " /a x", "PUT /a b c", ""] {
            let mut it = r.split(' ');
            let want = match (it.next(), it.next()) {
                (Some(m), Some(p)) => Some((m, p)),
                _ => None,
            };
            assert_eq!(method_and_path(r), want, "{r:?}");
        }
    }

    #[test]
    fn the_last_segments_are_what_rsplit_gives() {
        for path in [
            "",
            "/",
            "//",
            "a",
            "/a",
            "a/",
            "/perf-1/a/b/c/abcdef",
            "x//y///z/",
            "/1/2/3/4/5/6",
            "noslash",
        ] {
            let mut want = path.rsplit('/').filter(|s| !s.is_empty());
            let want = [want.next(), want.next(), want.next(), want.next()];
            assert_eq!(last_segments(path), want, "{path:?}");
        }
    }

    #[test]
    fn the_spec_directive_derives_a_parser_with_request_length() {
        let f = LogFormat::from_directive(SPEC_FORMAT).unwrap();
        assert!(f.has_request_length());
        assert_eq!(f.describe(), "sccache.log: log_format sccache, 10 fields");
        let line = br#"10.0.3.12 - - [20/Oct/2026:02:00:05 +0000] "PUT /perf-x/a/b/c/abcdef HTTP/1.1" 201 0 "-" "opendal/0.52" 18244 0.012"#;
        let r = f.parse_line(line).unwrap();
        assert_eq!(r.addr, "10.0.3.12");
        assert_eq!(r.method, "PUT");
        assert_eq!(r.path, "/perf-x/a/b/c/abcdef");
        assert_eq!(r.status, 201);
        assert_eq!(r.request_length, Some(18244));
        assert_eq!(r.time, timefmt::parse_rfc3339("2026-10-20T02:00:05Z"));
    }

    #[test]
    fn combined_is_the_default_and_has_no_upload_sizes() {
        let f = LogFormat::combined();
        assert!(!f.has_request_length());
        let line =
            br#"10.0.3.12 - - [20/Oct/2026:02:00:05 +0000] "GET /p/a/b/c/abcdef HTTP/1.1" 404 153 "-" "opendal""#;
        assert_eq!(f.parse_line(line).unwrap().status, 404);
    }

    #[test]
    fn a_quote_escaped_by_nginx_does_not_end_the_field() {
        let f = LogFormat::combined();
        let line = br#"10.0.3.12 - - [20/Oct/2026:02:00:05 +0000] "GET /p/a/b/c/abcdef HTTP/1.1" 200 153 "-" "agent \x22quoted\x22""#;
        assert_eq!(f.parse_line(line).unwrap().status, 200);
    }

    /// Only the format's keys are decoded; every other value, of any JSON
    /// type, is passed over, a key given twice counts as its last, and a
    /// line that is no JSON object is malformed.
    #[test]
    fn an_escape_json_line_reads_the_formats_keys_and_passes_over_the_rest() {
        let d = r#"log_format js escape=json '{"req":"$request","status":$status,"len":$request_length}';"#;
        let f = LogFormat::from_directive(d).unwrap();
        let line = br#"{"x":{"deep":[1,{"a":null}],"s":"\u00e9"},"req":"GET /a HTTP/1.1","y":[true,false,1e300],"status":404,"status":200,"len":310,"z":"\"req\""}"#;
        let r = f.parse_line(line).unwrap();
        assert_eq!(
            (r.method.as_ref(), r.path.as_ref(), r.status, r.request_length),
            ("GET", "/a", 200, Some(310))
        );
        // A key or value written with escapes reads as what it says.
        let line = br#"{"re\u0071":"GET /a\u002fb HTTP/1.1","status":200,"len":"31\u0030"}"#;
        let r = f.parse_line(line).unwrap();
        assert_eq!((r.path.as_ref(), r.request_length), ("/a/b", Some(310)));
        for bad in [&b"[1,2]"[..], b"{\"req\":", b"{\"req\":\"GET /a HTTP/1.1\"} trailing"] {
            assert!(f.parse_line(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn escape_json_formats_parse_as_json() {
        let d = r#"log_format js escape=json '{"addr":"$remote_addr","t":"$time_iso8601",'
            '"req":"$request","status":$status,"len":$request_length}';"#;
        let f = LogFormat::from_directive(d).unwrap();
        let r = f
            .parse_line(br#"{"addr":"10.0.0.1","t":"2026-10-20T02:00:05+00:00","req":"GET /p/a/b/c/abcd HTTP/1.1","status":200,"len":310}"#)
            .unwrap();
        assert_eq!((r.method.as_ref(), r.status, r.request_length), ("GET", 200, Some(310)));
    }

    #[test]
    fn a_write_without_its_size_leaves_the_buckets_bytes_unknown() {
        let format = std::sync::Arc::new(LogFormat::combined());
        let line = r#"10.0.3.12 - - [20/Oct/2026:02:00:05 +0000] "PUT /p/a/b/c/abcdef HTTP/1.1" 201 0 "-" "opendal""#;
        let (sink, _) = crate::input::lines::parse_bytes(line.as_bytes(), crate::input::lines::Tail::Complete, || {
            SccacheSink::new(format.clone(), None)
        });
        let bucket = sink.log.series.values().next().unwrap();
        assert_eq!((bucket.writes, bucket.write_bytes, bucket.writes_unsized), (1, 0, 1));
        assert_eq!(sink.log.writes_unsized, 1);
    }

    /// A cache server that ran the day before leaves that day's requests in
    /// its log: with the run's window they count nowhere but as left out.
    #[test]
    fn requests_outside_the_run_s_window_are_left_out_of_every_count_and_counted() {
        let format = std::sync::Arc::new(LogFormat::combined());
        let line = |when: &str, method: &str, status: u16| {
            format!(r#"10.0.3.12 - - [{when} +0000] "{method} /p/a/b/c/abcdef HTTP/1.1" {status} 0 "-" "opendal""#)
        };
        let text = [
            line("19/Oct/2026:02:00:05", "GET", 200),
            line("19/Oct/2026:02:00:06", "PUT", 201),
            line("20/Oct/2026:02:00:05", "GET", 404),
            line("20/Oct/2026:02:10:05", "GET", 200),
        ]
        .join("\n");
        let t = |s: &str| timefmt::parse_rfc3339(s).unwrap();
        let window = RecordWindow {
            from: t("2026-10-20T01:00:00Z"),
            to: None,
        };
        let (sink, stats) =
            crate::input::lines::parse_bytes(text.as_bytes(), crate::input::lines::Tail::Complete, || {
                SccacheSink::new(format.clone(), None).within(Some(window))
            });
        let log = &sink.log;
        assert_eq!((log.hits, log.misses, log.writes), (1, 1, 0));
        assert_eq!(
            log.first,
            Some(t("2026-10-20T02:00:05Z")),
            "the window starts at the run's own"
        );
        let bucketed: u64 = log.series.values().map(|b| b.hits + b.misses + b.writes).sum();
        assert_eq!(bucketed, 2);
        assert_eq!(
            log.outside,
            Some(Outside {
                records: 2,
                first: t("2026-10-19T02:00:05Z"),
                last: t("2026-10-19T02:00:06Z"),
            })
        );
        assert_eq!((stats.records, stats.skipped), (2, 2));
    }

    #[test]
    fn write_sizes_past_what_a_u64_holds_saturate_instead_of_wrapping_or_panicking() {
        let format = std::sync::Arc::new(LogFormat::from_directive(SPEC_FORMAT).unwrap());
        let line = r#"10.0.3.12 - - [20/Oct/2026:02:00:05 +0000] "PUT /p/a/b/c/abcdef HTTP/1.1" 201 0 "-" "opendal" 18446744073709551615 0.012"#;
        let text = [line; 3].join("\n");
        let (sink, stats) =
            crate::input::lines::parse_bytes(text.as_bytes(), crate::input::lines::Tail::Complete, || {
                SccacheSink::new(format.clone(), None)
            });
        assert_eq!(stats.records, 3);
        assert_eq!((sink.log.writes, sink.log.write_bytes), (3, u64::MAX));
        assert_eq!(sink.log.series.values().next().unwrap().write_bytes, u64::MAX);
    }

    /// The walk the compiled plan replaced: each literal stripped or
    /// searched for with `find_str`, one part after another.
    fn walk_parts<'a>(parts: &[Part], line: &'a [u8]) -> Result<Request<'a>, Cow<'static, str>> {
        let line = std::str::from_utf8(line).map_err(|_| "not UTF-8")?;
        let mut rest = line;
        let mut fields = Fields::default();
        let mut parts = parts.iter().peekable();
        while let Some(part) = parts.next() {
            match part {
                Part::Literal(lit) => {
                    rest = rest
                        .strip_prefix(lit.as_str())
                        .ok_or_else(|| format!("expected {lit:?} at column {}", line.len() - rest.len() + 1))?;
                }
                Part::Var(f) => {
                    let value = match parts.peek() {
                        Some(Part::Literal(next)) => {
                            let end = rest.find(next.as_str()).ok_or_else(|| {
                                format!("expected {next:?} after column {}", line.len() - rest.len() + 1)
                            })?;
                            let v = &rest[..end];
                            rest = &rest[end + next.len()..];
                            parts.next();
                            v
                        }
                        _ => std::mem::take(&mut rest),
                    };
                    fields.set(*f, value);
                }
            }
        }
        fields.finish(&mut TimeCache::default())
    }

    #[test]
    fn the_compiled_text_parser_reads_every_line_as_the_literal_walk_did() {
        let formats = [
            COMBINED.to_string(),
            SPEC_FORMAT.to_string(),
            // A leading literal, and more than four bytes that start a literal (searched one by one).
            r#"log_format x '<$remote_addr> [$time_local] {$status} ($request) |$request_length| ~$http_user_agent';"#
                .to_string(),
        ];
        let seeds = [
            r#"10.0.3.12 - - [20/Oct/2026:02:00:05 +0000] "GET /p/a/b/c/abcdef HTTP/1.1" 200 153 "-" "opendal" 310 0.012"#,
            r#"<10.0.3.12> [20/Oct/2026:02:00:05 +0000] {404} (PUT /p/a/b/c/abcdef HTTP/1.1) |310| ~sccache/0.10"#,
        ];
        let noise = [
            " ", "\"", "]", "[", "-", "é", "<", ">", "{", "}", "(", ")", "|", "~", "x", "\" \"", "] \"",
        ];
        let mut seed = 11u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut compared = 0;
        for directive in &formats {
            let format = LogFormat::from_directive(directive).unwrap();
            let Shape::Text(plan) = &format.shape else {
                unreachable!("text formats");
            };
            for base in seeds {
                for _ in 0..400 {
                    // Cut, doubled or foreign delimiters at random places.
                    let mut line = base.to_string();
                    for _ in 0..next() % 4 {
                        let at = (0..=next() % (line.len() + 1))
                            .rev()
                            .find(|&i| line.is_char_boundary(i))
                            .unwrap_or(0);
                        if next() % 3 == 0 && at < line.len() {
                            let end = (at + 1..=line.len()).find(|&i| line.is_char_boundary(i)).unwrap();
                            line.replace_range(at..end, "");
                        } else {
                            line.insert_str(at, noise[next() % noise.len()]);
                        }
                    }
                    let want = walk_parts(&plan.parts, line.as_bytes());
                    let got = format.parse_line(line.as_bytes());
                    assert_eq!(got, want, "{directive}\n{line}");
                    let as_text = format.parse_text_with(&line, &mut TimeCache::default());
                    assert_eq!(as_text, want, "as checked text: {directive}\n{line}");
                    compared += 1;
                }
            }
        }
        assert_eq!(compared, 2400);
    }

    /// `classify` as it was before the object layout was read in place.
    fn classify_by_segments(method: &str, path: &str, status: u16, prefix: Option<&str>) -> Access {
        let path = path.split(['?', '#']).next().unwrap_or("");
        if let Some(p) = prefix.map(|p| p.trim_matches('/')) {
            if p.is_empty() || !has_segments(path, p) {
                return Access::OtherPrefix;
            }
        }
        let mut segments = path.rsplit('/').filter(|s| !s.is_empty());
        let [key, c, b, a] = [segments.next(), segments.next(), segments.next(), segments.next()];
        if key == Some(".sccache_check") {
            return Access::Check;
        }
        let is_object = match (a, b, c, key) {
            (Some(a), Some(b), Some(c), Some(key)) => {
                let k = key.as_bytes();
                k.len() > 3 && a.as_bytes() == &k[0..1] && b.as_bytes() == &k[1..2] && c.as_bytes() == &k[2..3]
            }
            _ => false,
        };
        let ok = (200..300).contains(&status);
        match method {
            "GET" if is_object && status == 200 => Access::Hit,
            "GET" if is_object && status == 404 => Access::Miss,
            "PUT" if is_object && ok => Access::Write,
            "PUT" if is_object => Access::FailedWrite,
            "PROPFIND" | "MKCOL" | "HEAD" | "OPTIONS" => Access::Overhead,
            _ => Access::Other,
        }
    }

    #[test]
    fn the_object_layout_read_in_place_classifies_as_the_segments_do() {
        let pieces = [
            "/",
            "//",
            "a",
            "b",
            "ab",
            "abc",
            "abcd",
            "abcdef",
            "é",
            "?",
            "#x",
            ".sccache_check",
            "p",
            "/p/",
        ];
        let mut seed = 5u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let mut paths: Vec<String> = vec![
            "/p/a/b/c/abcdef".into(),
            "/p/a/b/c/.sccache_check".into(),
            "/p/./s/c/.sccache_check".into(),
            "/p/a//b/c/abcdef".into(),
            "/p/a/b/c/abc".into(),
            "a/b/c/abcd".into(),
            "/é/b/c/ébcd".into(),
        ];
        for _ in 0..3000 {
            paths.push((0..next() % 9).map(|_| pieces[next() % pieces.len()]).collect());
        }
        for path in &paths {
            for method in ["GET", "PUT", "MKCOL"] {
                for status in [200, 404, 201, 507] {
                    for prefix in [None, Some("p"), Some("/p/"), Some("")] {
                        assert_eq!(
                            classify(method, path, status, prefix),
                            classify_by_segments(method, path, status, prefix),
                            "{method} {path:?} {status} {prefix:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_format_without_status_is_refused_with_the_reason() {
        let err = LogFormat::from_directive("log_format x '$remote_addr \"$request\"';").unwrap_err();
        assert!(err.contains("$status"));
    }

    #[test]
    fn a_line_that_does_not_fit_names_the_column() {
        let f = LogFormat::combined();
        let err = f.parse_line(b"10.0.3.12 GET /x 200").unwrap_err();
        assert!(err.contains("column"), "{err}");
    }

    #[test]
    fn classification_follows_sccache_layout_and_prefix() {
        let p = Some("perf-1");
        assert_eq!(classify("GET", "/perf-1/a/b/c/abcdef", 200, p), Access::Hit);
        assert_eq!(
            classify("GET", "/perf-1perf-1/perf-1/a/b/c/abcdef", 200, p),
            Access::Hit
        );
        assert_eq!(classify("GET", "/perf-1/a/b/c/abcdef", 404, p), Access::Miss);
        assert_eq!(classify("PUT", "/perf-1/a/b/c/abcdef", 204, p), Access::Write);
        assert_eq!(classify("PUT", "/perf-1/a/b/c/abcdef", 507, p), Access::FailedWrite);
        assert_eq!(classify("MKCOL", "/perf-1/a/b/", 405, p), Access::Overhead);
        assert_eq!(classify("PUT", "/perf-1/.sccache_check", 201, p), Access::Check);
        assert_eq!(classify("GET", "/perf-0/a/b/c/abcdef", 200, p), Access::OtherPrefix);
        // Behind a base path the prefix is still found.
        assert_eq!(classify("GET", "/dav/perf-1/a/b/c/abcdef", 200, p), Access::Hit);
        // A prefix is whole segments: perf-10 is not perf-1.
        assert_eq!(classify("GET", "/perf-10/a/b/c/abcdef", 200, p), Access::OtherPrefix);
        assert_eq!(
            classify("GET", "/x/perf-1/a/b/c/abcdef", 200, Some("x/perf-1")),
            Access::Hit
        );
        // Without a known prefix every object is this run's.
        assert_eq!(classify("GET", "/x/a/b/c/abcdef", 200, None), Access::Hit);
        // Folders are not objects: a key's first three characters are.
        assert_eq!(classify("GET", "/perf-1/a/b/c/zzzz", 200, p), Access::Other);
    }
}
