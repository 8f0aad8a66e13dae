#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        for l in text.lines() {
            let _ = perfreport::input::placement::parse_line(l);
        }
    }
});
