//! Tera filters shared by the markdown and HTML templates: how a number
//! reads, and how `null` reads (never as 0).

use crate::timefmt::human_duration;
use crate::view::human_bytes;
use std::collections::HashMap;
use tera::{Result, Value};

pub const DASH: &str = "—";

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

/// Seconds as `38m52s`; null as a dash.
pub fn dur(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(num(v).map(human_duration).unwrap_or_else(|| DASH.into())))
}

/// Seconds as a plain number with a unit, for tables that are sorted by value.
pub fn secs(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(
        num(v).map(|s| format!("{s:.0} s")).unwrap_or_else(|| DASH.into()),
    ))
}

pub fn bytes(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(num(v).map(human_bytes).unwrap_or_else(|| DASH.into())))
}

/// A percentage already in 0..100.
pub fn pct(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(
        num(v).map(|p| format!("{p:.0}%")).unwrap_or_else(|| DASH.into()),
    ))
}

/// A ratio in 0..1 as a percentage.
pub fn ratio_pct(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(
        num(v)
            .map(|p| format!("{:.1}%", 100.0 * p))
            .unwrap_or_else(|| DASH.into()),
    ))
}

/// Any value; null as a dash.
pub fn or_dash(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(match v {
        Value::Null => DASH.into(),
        Value::String(s) => s.clone(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() != 0.0 => format!("{f:.1}"),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }))
}

/// Text safe inside a markdown table cell.
pub fn cell(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Null => DASH.into(),
        other => other.to_string(),
    };
    Ok(Value::String(s.replace('|', "\\|").replace(['\n', '\r'], " ")))
}

/// A path segment percent-encoded as `encodeURIComponent` does, for links.
pub fn url_segment(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    let s = v.as_str().unwrap_or_default();
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Ok(Value::String(out))
}

pub fn register(t: &mut tera::Tera) {
    t.register_filter("url_segment", url_segment);
    t.register_filter("dur", dur);
    t.register_filter("secs", secs);
    t.register_filter("bytes", bytes);
    t.register_filter("pct", pct);
    t.register_filter("ratio_pct", ratio_pct);
    t.register_filter("or_dash", or_dash);
    t.register_filter("cell", cell);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_segments_are_percent_encoded_like_encode_uri_component() {
        let none = HashMap::new();
        assert_eq!(
            url_segment(&Value::String("a b/#c".into()), &none).unwrap(),
            Value::String("a%20b%2F%23c".into())
        );
        assert_eq!(
            url_segment(&Value::String("20261020T020000Z".into()), &none).unwrap(),
            Value::String("20261020T020000Z".into())
        );
    }

    #[test]
    fn null_reads_as_a_dash_never_as_zero() {
        let none = HashMap::new();
        for f in [dur, secs, bytes, pct, ratio_pct, or_dash] {
            assert_eq!(f(&Value::Null, &none).unwrap(), Value::String(DASH.into()));
        }
        assert_eq!(
            bytes(&serde_json::json!(0), &none).unwrap(),
            Value::String("0 B".into())
        );
    }
}
