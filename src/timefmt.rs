//! Timestamps. Everything inside perfreport is microseconds since the Unix
//! epoch (`Micros`): Jaeger records microseconds, and an `i64` of them keeps
//! exact arithmetic where an `f64` of nanoseconds would not.

pub type Micros = i64;

pub const MICROS_PER_SEC: f64 = 1e6;

/// RFC 3339 with any fractional precision and any offset.
pub fn parse_rfc3339(s: &str) -> Option<Micros> {
    s.parse::<jiff::Timestamp>().ok().map(|t| t.as_microsecond())
}

/// RFC 3339 in UTC, with as many fractional digits as the value needs.
pub fn format_rfc3339(us: Micros) -> String {
    match jiff::Timestamp::from_microsecond(us) {
        Ok(t) => t.to_string(),
        Err(_) => format!("{us}us"),
    }
}

/// A JSON timestamp that is either RFC 3339 or a number of Unix seconds.
pub fn from_json(v: &serde_json::Value) -> Option<Micros> {
    match v {
        serde_json::Value::String(s) => parse_rfc3339(s),
        serde_json::Value::Number(n) => {
            let secs = n.as_f64()?;
            secs_to_micros(secs)
        }
        _ => None,
    }
}

pub fn secs_to_micros(secs: f64) -> Option<Micros> {
    // Anything outside year 1970..2262 is not a real poll time.
    if secs.is_finite() && (0.0..9.2e9).contains(&secs) {
        Some((secs * MICROS_PER_SEC).round() as Micros)
    } else {
        None
    }
}

pub fn micros_to_secs(us: Micros) -> f64 {
    us as f64 / MICROS_PER_SEC
}

/// nginx `$time_local`: `20/Oct/2026:02:00:05 +0000`.
pub fn parse_nginx_local(s: &str) -> Option<Micros> {
    let b = s.as_bytes();
    if b.len() < 26 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> { std::str::from_utf8(b.get(r)?).ok()?.parse().ok() };
    let day = num(0..2)?;
    let month = match b.get(3..6)? {
        b"Jan" => 1,
        b"Feb" => 2,
        b"Mar" => 3,
        b"Apr" => 4,
        b"May" => 5,
        b"Jun" => 6,
        b"Jul" => 7,
        b"Aug" => 8,
        b"Sep" => 9,
        b"Oct" => 10,
        b"Nov" => 11,
        b"Dec" => 12,
        _ => return None,
    };
    let year = num(7..11)?;
    let (h, m, sec) = (num(12..14)?, num(15..17)?, num(18..20)?);
    let sign = match b.get(21)? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let (oh, om) = (num(22..24)?, num(24..26)?);
    let date = jiff::civil::date(i16::try_from(year).ok()?, month, i8::try_from(day).ok()?);
    let dt = date.at(h as i8, m as i8, sec as i8, 0);
    let ts = dt.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
    let offset_us = sign * (oh * 3600 + om * 60) * 1_000_000;
    Some(ts.as_microsecond() - offset_us)
}

/// A duration in seconds for display: `38m52s`, `92s`, `1h04m`.
pub fn human_duration(secs: f64) -> String {
    if !secs.is_finite() {
        return "?".into();
    }
    let neg = secs < 0.0;
    let s = secs.abs().round() as i64;
    let body = if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s % 3600) / 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

/// Go's `time.Duration` string as zot writes `latency`: `0s`, `96.6µs`, `3m55s`, `1h2m3.5s`.
pub fn parse_go_duration(s: &str) -> Option<f64> {
    if s == "0" || s == "0s" {
        return Some(0.0);
    }
    let mut rest = s;
    let mut total = 0.0;
    let mut any = false;
    while !rest.is_empty() {
        let num_end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if num_end == 0 {
            return None;
        }
        let value: f64 = rest[..num_end].parse().ok()?;
        rest = &rest[num_end..];
        let (unit, scale) = [
            ("ns", 1e-9),
            ("us", 1e-6),
            ("µs", 1e-6),
            ("μs", 1e-6),
            ("ms", 1e-3),
            ("s", 1.0),
            ("m", 60.0),
            ("h", 3600.0),
        ]
        .into_iter()
        .find(|(u, _)| rest.starts_with(u))?;
        rest = &rest[unit.len()..];
        total += value * scale;
        any = true;
    }
    any.then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nginx_local_time_honours_the_offset() {
        let utc = parse_nginx_local("20/Oct/2026:02:00:05 +0000").unwrap();
        let plus2 = parse_nginx_local("20/Oct/2026:04:00:05 +0200").unwrap();
        assert_eq!(utc, plus2);
        assert_eq!(utc, parse_rfc3339("2026-10-20T02:00:05Z").unwrap());
    }

    #[test]
    fn go_durations_as_zot_writes_them() {
        assert_eq!(parse_go_duration("0s"), Some(0.0));
        assert!((parse_go_duration("96.6µs").unwrap() - 96.6e-6).abs() < 1e-12);
        assert_eq!(parse_go_duration("3m55s"), Some(235.0));
        assert_eq!(parse_go_duration("1h2m3.5s"), Some(3723.5));
        assert_eq!(parse_go_duration("fast"), None);
    }

    #[test]
    fn human_durations_read_like_the_spec() {
        assert_eq!(human_duration(2332.0), "38m52s");
        assert_eq!(human_duration(92.0), "1m32s");
        assert_eq!(human_duration(45.4), "45s");
        assert_eq!(human_duration(3840.0), "1h04m");
    }
}
