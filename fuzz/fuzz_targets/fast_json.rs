#![no_main]
//! The fast JSON paths (the walk, and shapes replayed from earlier lines of
//! the same input) must agree with serde on every input: same outcome per
//! line, same aggregate, same sample bits. A difference is a crash here.
use libfuzzer_sys::fuzz_target;
use perfreport_scan::json_scan::Via;
use perfreport_scan::json_shape::Shapes;
use perfreport::input::samples::{parse_line_shaped, parse_line_via};
use perfreport::input::zot::ZotLog;

fuzz_target!(|data: &[u8]| {
    let (mut fast, mut slow) = (ZotLog::default(), ZotLog::default());
    let mut shapes = Shapes::default();
    for line in data.split(|&b| b == b'\n') {
        assert_eq!(fast.line_via(line, Via::Fast), slow.line_via(line, Via::SerdeOnly));
        let bits = |r: Result<(std::borrow::Cow<str>, perfreport::input::samples::Sample), std::borrow::Cow<str>>| {
            r.map(|(n, s)| (n.into_owned(), s.ts, format!("{:?}", s)))
                .map_err(|e| e.into_owned())
        };
        let slow_sample = bits(parse_line_via(line, Via::SerdeOnly));
        assert_eq!(bits(parse_line_via(line, Via::Fast)), slow_sample);
        assert_eq!(bits(parse_line_shaped(line, &mut shapes)), slow_sample);
    }
    assert_eq!(fast, slow);
});
