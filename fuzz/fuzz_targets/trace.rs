#![no_main]
use libfuzzer_sys::fuzz_target;

// All three encodings are detected by content, so one target covers them;
// the analysis runs on whatever spans come out.
fuzz_target!(|data: &[u8]| {
    if let (Ok(t), _) = perfreport::input::trace::parse(data) {
        let _ = perfreport::analysis::targets::analyse(&t.spans);
    }
});
