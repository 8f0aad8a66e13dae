//! How perfreport writes a number for a person: durations, bytes, rates,
//! percents and counts, one function each. The report, the page, compare,
//! history, placement and gate all call these, so a figure reads the same
//! wherever it is shown. The page's script (`assets/page.js`) rounds the
//! same way: half away from zero, on the value times the power of ten.

/// A size in bytes for display, in powers of 1000: `6.4 GB`, `512 B`.
pub(crate) fn bytes(b: f64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"];
    let mut v = b;
    let mut i = 0;
    while v.abs() >= 1000.0 && i + 1 < units.len() {
        v /= 1000.0;
        i += 1;
    }
    if i == 0 {
        format!("{v:.0} B")
    } else {
        format!("{} {}", fixed(v, 1), units[i])
    }
}

/// A duration in seconds for display: `38m52s`, `92s`, `1h04m`.
pub(crate) fn duration(secs: f64) -> String {
    if !secs.is_finite() {
        return "?".into();
    }
    // Past 1e15 s whole seconds are no longer exact in an f64 (and past
    // i64 the clock would saturate): powers of ten. Go's largest duration
    // (2562047h47m) still reads as a clock, as Go prints it.
    if secs.abs() >= 1e15 {
        return format!("{secs:.2e}s");
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

/// Whole seconds, or in powers of ten past a billion: 1.6e308 s is a number
/// a bench line may hold, not 309 digits a table or a legend can.
pub(crate) fn seconds(s: f64) -> String {
    if s.abs() < 1e9 {
        fixed(s, 0)
    } else {
        format!("{s:.2e}")
    }
}

/// `x` to `decimals` places, a tie rounded away from zero (as JavaScript's
/// `Math.round` on the magnitude), not to even as `format!` would: 62.5
/// reads 63% on the page and in report.md alike.
pub(crate) fn fixed(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return "?".into();
    }
    let scale = 10f64.powi(decimals.min(9) as i32);
    let v = (x.abs() * scale).round() / scale;
    // `-0` reads as `0`.
    let v = if x < 0.0 && v != 0.0 { -v } else { v };
    format!("{v:.decimals$}")
}

/// An axis tick: three significant digits at most, no trailing zeros
/// (`0`, `2.5`, `0.02`, `0.0002`, `150`).
pub(crate) fn tick(v: f64) -> String {
    let digits = if v == 0.0 || !v.is_finite() {
        0
    } else {
        (2 - v.abs().log10().floor() as i32).clamp(0, 9) as usize
    };
    let s = fixed(v, digits);
    if !s.contains('.') {
        return s;
    }
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s.is_empty() || s == "-" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// A percentage already in 0..100: `63%`.
pub(crate) fn percent(p: f64) -> String {
    format!("{}%", fixed(p, 0))
}

/// A share in 0..1 as a percentage: `0.625` is `63%`.
pub(crate) fn share(r: f64) -> String {
    percent(100.0 * r)
}

/// A change in percent with its sign, to `decimals` places: `+15%`,
/// `-3.2%`, `0%` (a change that rounds to nothing has no sign).
pub(crate) fn change(p: f64, decimals: usize) -> String {
    let s = fixed(p, decimals);
    if s.starts_with('-') || s.trim_start_matches(['0', '.']).is_empty() {
        format!("{s}%")
    } else {
        format!("+{s}%")
    }
}

/// A value of a named metric as its name says it is measured: `*_s` a
/// duration (`38m52s`), `*_bytes` a size, `*_pct` a percent, `*_mbps` a
/// rate, anything else a count. What compare, history and gate print for a
/// metric of data.json or history.json.
pub(crate) fn metric(name: &str, v: f64) -> String {
    if name.ends_with("_s") {
        duration(v)
    } else if name.ends_with("_bytes") {
        bytes(v)
    } else if name.ends_with("_pct") {
        percent(v)
    } else if name.ends_with("_mbps") {
        rate_mbps(v)
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        count_signed(v as i64)
    } else {
        fixed(v, 1)
    }
}

/// `count` for a whole number that may be negative.
fn count_signed(n: i64) -> String {
    let c = count(n.unsigned_abs());
    if n < 0 {
        format!("-{c}")
    } else {
        c
    }
}

/// A throughput in bytes per second: `5.0 MB/s`.
pub(crate) fn rate(bytes_per_s: f64) -> String {
    format!("{}/s", bytes(bytes_per_s))
}

/// A throughput given in MB/s (as run.json and placement.txt write links).
pub(crate) fn rate_mbps(mbps: f64) -> String {
    rate(mbps * 1e6)
}

/// A count people read: `1,204`.
pub(crate) fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The noun for `n` of them: `one` for exactly one, else `many`.
pub(crate) fn plural<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// A count with its noun: `1 write`, `2,004 writes`.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{} {}", count(n), plural(n, one, many))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tie_rounds_away_from_zero_as_the_page_does() {
        assert_eq!(percent(62.5), "63%");
        assert_eq!(share(0.625), "63%");
        assert_eq!(percent(62.49), "62%");
        assert_eq!(fixed(-2.5, 0), "-3");
        assert_eq!(fixed(-0.01, 1), "0.0");
        assert_eq!(fixed(0.25, 1), "0.3");
        assert_eq!(change(15.2, 0), "+15%");
        assert_eq!(change(-0.2, 0), "0%");
        assert_eq!(change(-3.0, 0), "-3%");
        assert_eq!(change(0.04, 1), "0.0%");
        assert_eq!(change(15.04, 1), "+15.0%");
    }

    #[test]
    fn ticks_keep_the_decimals_they_need() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(2.5), "2.5");
        assert_eq!(tick(0.02), "0.02");
        assert_eq!(tick(150.0), "150");
        assert_eq!(tick(1.0), "1");
        assert_eq!(tick(0.0002), "0.0002");
        assert_eq!(tick(12.5), "12.5");
    }

    #[test]
    fn counts_are_grouped_and_nouns_agree_with_them() {
        assert_eq!(count(0), "0");
        assert_eq!(count(1204), "1,204");
        assert_eq!(count(15137), "15,137");
        assert_eq!(counted(1, "write", "writes"), "1 write");
        assert_eq!(counted(2, "node", "nodes"), "2 nodes");
        assert_eq!(counted(0, "node", "nodes"), "0 nodes");
    }

    #[test]
    fn a_metric_reads_as_its_name_says_not_as_bare_seconds() {
        assert_eq!(metric("total_s", 1021.8), "17m02s");
        assert_eq!(metric("build_s", 1189.2), "19m49s");
        assert_eq!(metric("steps_cached", 4.0), "4");
        assert_eq!(metric("upload_bytes", 6.4e9), "6.4 GB");
        assert_eq!(metric("upload_pct", 62.5), "63%");
        assert_eq!(metric("link_mbps", 5.0), "5.0 MB/s");
    }

    #[test]
    fn rates_read_in_the_bytes_units() {
        assert_eq!(rate(5e6), "5.0 MB/s");
        assert_eq!(rate_mbps(2.79773), "2.8 MB/s");
        assert_eq!(duration(2332.0), "38m52s");
        assert_eq!(bytes(6.4e9), "6.4 GB");
    }

    #[test]
    fn a_huge_time_is_said_in_powers_of_ten_not_a_saturated_clock_or_309_digits() {
        assert_eq!(duration(1.7e308), "1.70e308s");
        assert_eq!(duration(-5e15), "-5.00e15s");
        assert_eq!(duration(9_223_372_036.854_776), "2562047h47m");
        assert_eq!(seconds(1.6e308), "1.60e308");
        assert_eq!(seconds(2342.4), "2342");
    }
}
