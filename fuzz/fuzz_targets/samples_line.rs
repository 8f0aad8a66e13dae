#![no_main]
use libfuzzer_sys::fuzz_target;
use perfreport::input::lines::{parse_bytes, Tail};
use perfreport::model::RunSamples;

fuzz_target!(|data: &[u8]| {
    let (mut s, _) = parse_bytes(data, Tail::Complete, RunSamples::default);
    s.finish();
    for v in s.by_node.values() {
        let _ = perfreport::analysis::nodes::analyse(&v.polls);
    }
});
