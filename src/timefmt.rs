//! Timestamps. Everything inside perfreport is microseconds since the Unix
//! epoch (`Micros`): Jaeger records microseconds, and an `i64` of them keeps
//! exact arithmetic where an `f64` of nanoseconds would not.

pub type Micros = i64;

pub(crate) const MICROS_PER_SEC: f64 = 1e6;

/// The earliest and latest instants a timestamp can name (jiff's range,
/// years -9999 to 9999). Every time an input gives is inside them, so the
/// difference of any two is far from overflowing an `i64`.
pub(crate) const MIN_MICROS: Micros = -377_705_023_201_000_000;
pub(crate) const MAX_MICROS: Micros = 253_402_207_200_999_999;

/// An instant if a timestamp can name it.
pub(crate) fn in_range(us: Micros) -> Option<Micros> {
    (MIN_MICROS..=MAX_MICROS).contains(&us).then_some(us)
}

/// RFC 3339 with any fractional precision and any offset.
pub fn parse_rfc3339(s: &str) -> Option<Micros> {
    utc_fast(s.as_bytes()).or_else(|| s.parse::<jiff::Timestamp>().ok().map(|t| t.as_microsecond()))
}

/// The one shape the logs write (`2026-10-20T02:00:05.120Z`, 1970 on), read
/// without building a timestamp, as every sample line has one.
/// Anything else, including what this would reject, is jiff's to judge.
fn utc_fast(b: &[u8]) -> Option<Micros> {
    Some(minute_fast(b)? + seconds_fast(b)?)
}

/// The start of the minute `YYYY-MM-DDTHH:MM` that begins a time of
/// `utc_fast`'s shape (20 bytes at least), if it exists.
fn minute_fast(b: &[u8]) -> Option<Micros> {
    let digits = |r| digits_at(b, r);
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute) = (digits(11..13)?, digits(14..16)?);
    // jiff's range ends inside 9999.
    if !(1970..9999).contains(&year) {
        return None;
    }
    civil_micros(year, month, day, hour, minute, 0)
}

/// What follows the minute in a time of `utc_fast`'s shape (`:SS`, an
/// optional fraction, `Z`), in microseconds.
fn seconds_fast(b: &[u8]) -> Option<Micros> {
    let digits = |r| digits_at(b, r);
    if b.len() < 20 || b[16] != b':' {
        return None;
    }
    let second = digits(17..19)?;
    if !(0..60).contains(&second) {
        return None;
    }
    // Up to nine fractional digits, truncated to microseconds as jiff does.
    const SCALE: [i64; 7] = [1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];
    let (mut micros, mut end) = (0, 19);
    if b[19] == b'.' {
        end = 20;
        while let Some(d) = b.get(end).filter(|d| d.is_ascii_digit()) {
            if end < 26 {
                micros = micros * 10 + i64::from(d - b'0');
            }
            end += 1;
        }
        let n = end - 20;
        if !(1..=9).contains(&n) {
            return None;
        }
        micros *= SCALE[n.min(6)];
    }
    if &b[end..] != b"Z" {
        return None;
    }
    Some(second * 1_000_000 + micros)
}

/// The minute (`YYYY-MM-DDTHH:MM`) of the last time `parse_rfc3339_after`
/// read in `utc_fast`'s shape, and where that minute starts.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LastMinute {
    text: [u8; 16],
    start: Option<Micros>,
}

/// `parse_rfc3339`, the minute of the time read before reused when the
/// text repeats it: a poller writes some thirty lines a minute a node, and
/// the date's digits and calendar are most of a sample line's time.
pub(crate) fn parse_rfc3339_after(s: &str, last: &mut LastMinute) -> Option<Micros> {
    let b = s.as_bytes();
    let Some(head) = b.first_chunk::<16>() else {
        return parse_rfc3339(s);
    };
    let start = match last.start {
        Some(start) if *head == last.text => Some(start),
        _ => {
            let start = minute_fast(b);
            if start.is_some() {
                *last = LastMinute { text: *head, start };
            }
            start
        }
    };
    match start.zip(seconds_fast(b)) {
        Some((minute, seconds)) => Some(minute + seconds),
        None => parse_rfc3339(s),
    }
}

/// Microseconds since the epoch of a UTC civil time; `None` for a date or
/// time that does not exist (31 February, hour 24, second 60).
fn civil_micros(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> Option<Micros> {
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    if !(1..=month_days).contains(&day)
        || !(0..24).contains(&hour)
        || !(0..60).contains(&minute)
        || !(0..60).contains(&second)
    {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hour) * 60 + minute) * 60_000_000 + second * 1_000_000)
}

/// A fixed-width run of ASCII digits.
fn digits_at(b: &[u8], r: std::ops::Range<usize>) -> Option<i64> {
    b.get(r)?
        .iter()
        .try_fold(0i64, |n, &d| d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0')))
}

/// RFC 3339 in UTC, with as many fractional digits as the value needs.
pub fn format_rfc3339(us: Micros) -> String {
    match jiff::Timestamp::from_microsecond(us) {
        Ok(t) => t.to_string(),
        Err(_) => format!("{us}us"),
    }
}

/// A JSON timestamp that is either RFC 3339 or a number of Unix seconds.
pub(crate) fn from_json(v: &serde_json::Value) -> Option<Micros> {
    match v {
        serde_json::Value::String(s) => parse_rfc3339(s),
        serde_json::Value::Number(n) => {
            let secs = n.as_f64()?;
            secs_to_micros(secs)
        }
        _ => None,
    }
}

pub(crate) fn secs_to_micros(secs: f64) -> Option<Micros> {
    // Anything outside year 1970..2262 is not a real poll time.
    if secs.is_finite() && (0.0..9.2e9).contains(&secs) {
        Some((secs * MICROS_PER_SEC).round() as Micros)
    } else {
        None
    }
}

/// nginx `$time_local`: `20/Oct/2026:02:00:05 +0000`.
pub(crate) fn parse_nginx_local(s: &str) -> Option<Micros> {
    let b = s.as_bytes();
    if b.len() < 26 {
        return None;
    }
    let num = |r| digits_at(b, r);
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
    let offset_us = sign * (oh * 3600 + om * 60) * 1_000_000;
    Some(civil_micros(year, month, day, h, m, sec)? - offset_us)
}

/// Durations and sizes for display live with the other formatters.
pub(crate) use crate::fmt::{bytes as human_bytes, duration as human_duration};

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
    fn the_range_of_instants_is_jiff_s() {
        assert_eq!(MIN_MICROS, jiff::Timestamp::MIN.as_microsecond());
        assert_eq!(MAX_MICROS, jiff::Timestamp::MAX.as_microsecond());
    }

    #[test]
    fn the_fast_timestamp_reader_agrees_with_jiff() {
        let jiff = |s: &str| s.parse::<jiff::Timestamp>().ok().map(|t| t.as_microsecond());
        let mut cases: Vec<String> = [
            "2026-10-20T02:00:05Z",
            "2026-10-20T02:00:05.1Z",
            "2026-10-20T02:00:05.123456789Z",
            "2026-10-20T02:00:05.1234567891Z",
            "2026-10-20T02:00:05.Z",
            "2026-10-20T02:00:60Z",
            "2026-10-20T24:00:00Z",
            "2024-02-29T00:00:00Z",
            "2023-02-29T00:00:00Z",
            "2100-02-29T00:00:00Z",
            "2000-02-29T23:59:59.999999Z",
            "1969-12-31T23:59:59.5Z",
            "1970-01-01T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-10-00T00:00:00Z",
            "2026-10-20t02:00:05z",
            "2026-10-20T02:00:05+02:00",
            "2026-10-20 02:00:05Z",
            "2026-10-20T02:00:05ZZ",
            "2026-1a-20T02:00:05Z",
            "9999-12-31T23:59:59.999999999Z",
        ]
        .map(String::from)
        .to_vec();
        // Every day boundary of four years, leap day included.
        for d in 0..(4 * 366) {
            let t = jiff::Timestamp::from_second(1_700_000_000 + d * 86_400 - 1).unwrap();
            cases.push(format!("{t}"));
            cases.push(format!(
                "{}",
                t.checked_add(jiff::SignedDuration::from_nanos(123_456_789)).unwrap()
            ));
        }
        for c in &cases {
            if let Some(fast) = utc_fast(c.as_bytes()) {
                assert_eq!(Some(fast), jiff(c), "{c}");
            }
        }
        let taken = cases.iter().filter(|c| utc_fast(c.as_bytes()).is_some()).count();
        assert!(taken > 2900, "the common shape takes the fast path ({taken})");
        assert_eq!(
            parse_rfc3339("2026-10-20T02:00:05+02:00"),
            jiff("2026-10-20T02:00:05+02:00")
        );
    }

    #[test]
    fn a_time_read_after_another_reads_as_on_its_own() {
        // Runs of one minute, the minute changing under the same date, odd
        // seconds and endings after a good minute, and shapes jiff takes.
        let mut times = vec![];
        for day in ["2026-10-20", "2026-10-21", "2024-02-29", "2023-02-29"] {
            for minute in ["02:00", "02:01", "23:59", "24:00", "02:60"] {
                for rest in [
                    ":05Z",
                    ":05.120Z",
                    ":59.999999999Z",
                    ":60Z",
                    ":5aZ",
                    ":05",
                    ":05ZZ",
                    ":05.Z",
                    ":05+02:00",
                    ":05.1234567891Z",
                    "Z",
                    "",
                ] {
                    times.push(format!("{day}T{minute}{rest}"));
                }
            }
        }
        times.extend(["2026-10-20T02:00:05z", "2026-10-20 02:00:05Z", "2026-10", ""].map(String::from));
        let mut last = LastMinute::default();
        let mut reused = 0;
        for t in times.iter().chain(times.iter().rev()) {
            reused += usize::from(last.start.is_some() && t.as_bytes().starts_with(&last.text));
            assert_eq!(parse_rfc3339_after(t, &mut last), parse_rfc3339(t), "{t}");
        }
        assert!(reused > 150, "the minute is reused ({reused})");
    }

    #[test]
    fn an_impossible_nginx_time_is_refused_not_a_panic() {
        // jiff::civil::date panics on these; a log line must never do that.
        for t in [
            "31/Feb/2026:02:00:05 +0000",
            "20/Oct/2026:25:00:05 +0000",
            "00/Oct/2026:02:00:05 +0000",
        ] {
            assert_eq!(parse_nginx_local(t), None, "{t}");
        }
        assert!(parse_nginx_local("29/Feb/2024:23:59:59 +0000").is_some());
    }

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
