#![no_main]
use libfuzzer_sys::fuzz_target;
use perfreport::input::lines::{parse_bytes, Tail};
use perfreport::input::zot::ZotLog;

// Whole chunks, so the chunk splitter and the merge are fuzzed with the line parser.
fuzz_target!(|data: &[u8]| {
    let _ = parse_bytes(data, Tail::MayBePartial, ZotLog::default);
});
