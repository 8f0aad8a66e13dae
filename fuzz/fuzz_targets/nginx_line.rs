#![no_main]
use libfuzzer_sys::fuzz_target;
use perfreport::input::sccache::LogFormat;

// The first line is a log_format directive (falling back to combined), the rest log lines.
fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.lines();
    let format = lines.next().and_then(|d| LogFormat::from_directive(d).ok()).unwrap_or_else(LogFormat::combined);
    let _ = format.expected_shape();
    for l in lines {
        if let Ok(r) = format.parse_line(l.as_bytes()) {
            let _ = perfreport::input::sccache::classify(&r.method, &r.path, r.status, Some("perf-1"));
        }
    }
});
