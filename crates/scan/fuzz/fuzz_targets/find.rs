#![no_main]
//! The short-haystack searches must find what the standard library finds.
use libfuzzer_sys::fuzz_target;
use perfreport_scan::find::{digit_run, find_byte, find_str, rfind_byte};

fuzz_target!(|data: &[u8]| {
    let Some((&byte, hay)) = data.split_first() else {
        return;
    };
    assert_eq!(find_byte(hay, byte), hay.iter().position(|&b| b == byte));
    assert_eq!(rfind_byte(hay, byte), hay.iter().rposition(|&b| b == byte));
    assert_eq!(digit_run(hay), hay.iter().take_while(|b| b.is_ascii_digit()).count());
    if let Ok(text) = std::str::from_utf8(hay) {
        if let Some((needle, haystack)) = text.split_once('\n') {
            assert_eq!(find_str(haystack, needle), haystack.find(needle));
        }
    }
});
