//! Tera filters shared by the markdown and HTML templates: how a number
//! reads, and how `null` reads (never as 0, and never a failed template).
//!
//! In the markdown templates every `{{ value }}` is escaped by
//! `escape::md_text` (see `markdown::engine`), so a new field cannot forget
//! it. Filters whose output perfreport builds from a number are registered
//! as safe, so `12.5 s` is not escaped to `12\.5 s`; `md_code` escapes itself.

use crate::timefmt::human_duration;
use crate::view::human_bytes;
use std::collections::HashMap;
use tera::{Result, Value};

pub(crate) const DASH: &str = "—";

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

/// Seconds as `38m52s`; null as a dash.
pub(crate) fn dur(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(num(v).map(human_duration).unwrap_or_else(|| DASH.into())))
}

/// Seconds as a plain number with a unit, for tables that are sorted by value.
pub(crate) fn secs(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(
        num(v)
            .map(|s| format!("{} s", crate::fmt::seconds(s)))
            .unwrap_or_else(|| DASH.into()),
    ))
}

pub(crate) fn bytes(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(num(v).map(human_bytes).unwrap_or_else(|| DASH.into())))
}

/// A percentage already in 0..100.
pub(crate) fn pct(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(
        num(v).map(crate::fmt::percent).unwrap_or_else(|| DASH.into()),
    ))
}

/// A ratio in 0..1 as a percentage.
pub(crate) fn ratio_pct(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(
        num(v)
            .map(|p| format!("{}%", crate::fmt::fixed(100.0 * p, 1)))
            .unwrap_or_else(|| DASH.into()),
    ))
}

/// Any value; null as a dash.
pub(crate) fn or_dash(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
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

/// A number rounded to `precision` decimals (tera's `round` fails on null);
/// null, or anything not a number, as a dash.
pub(crate) fn fixed(v: &Value, args: &HashMap<String, Value>) -> Result<Value> {
    let precision = args.get("precision").and_then(Value::as_u64).unwrap_or(0).min(9) as i32;
    let scale = 10f64.powi(precision);
    Ok(Value::String(
        num(v)
            .map(|x| (x * scale).round() / scale)
            .filter(|x| x.is_finite())
            .and_then(serde_json::Number::from_f64)
            .map(|n| n.to_string())
            .unwrap_or_else(|| DASH.into()),
    ))
}

/// A name as a markdown code span (see `escape::md_code`).
pub(crate) fn md_code(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
    Ok(Value::String(match v {
        Value::String(s) => crate::escape::md_code(s),
        Value::Null => DASH.into(),
        other => crate::escape::md_code(&other.to_string()),
    }))
}

type FilterFn = fn(&Value, &HashMap<String, Value>) -> Result<Value>;

/// A filter whose output needs no further escaping: it is built from a
/// number by perfreport, or escaped by the filter itself.
struct Escaped(FilterFn);

impl tera::Filter for Escaped {
    fn filter(&self, v: &Value, args: &HashMap<String, Value>) -> Result<Value> {
        (self.0)(v, args)
    }

    fn is_safe(&self) -> bool {
        true
    }
}

/// A path segment percent-encoded as `encodeURIComponent` does, for links.
pub(crate) fn url_segment(v: &Value, _: &HashMap<String, Value>) -> Result<Value> {
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

pub(crate) fn register(t: &mut tera::Tera) {
    t.register_filter("url_segment", url_segment);
    let escaped: [(&str, FilterFn); 7] = [
        ("dur", dur),
        ("secs", secs),
        ("bytes", bytes),
        ("pct", pct),
        ("ratio_pct", ratio_pct),
        ("fixed", fixed),
        ("md_code", md_code),
    ];
    for (name, f) in escaped {
        t.register_filter(name, Escaped(f));
    }
    // Passes strings through: the template's escaping applies.
    t.register_filter("or_dash", or_dash);
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
        for f in [dur, secs, bytes, pct, ratio_pct, or_dash, fixed, md_code] {
            assert_eq!(f(&Value::Null, &none).unwrap(), Value::String(DASH.into()));
        }
        assert_eq!(
            bytes(&serde_json::json!(0), &none).unwrap(),
            Value::String("0 B".into())
        );
    }

    #[test]
    fn fixed_rounds_like_tera_round_and_survives_null() {
        let two = HashMap::from([("precision".to_string(), serde_json::json!(2))]);
        assert_eq!(
            fixed(&serde_json::json!(1.6349), &two).unwrap(),
            Value::String("1.63".into())
        );
        assert_eq!(
            fixed(&serde_json::json!(1.6), &two).unwrap(),
            Value::String("1.6".into())
        );
        assert_eq!(
            fixed(&serde_json::json!("x"), &two).unwrap(),
            Value::String(DASH.into())
        );
    }
}
