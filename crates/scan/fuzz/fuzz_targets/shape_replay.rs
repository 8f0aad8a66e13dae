#![no_main]
//! A line that fits a learnt shape is valid JSON (serde_json agrees), and
//! every field value replay hands out is one whole JSON value of that line;
//! a number's value read on the way has the bits serde_json gives its text.
//! The first line is learnt (when the walk accepts it), the rest replayed.
use libfuzzer_sys::fuzz_target;
use perfreport_scan::json_scan::Cursor;
use perfreport_scan::json_shape::{Shapes, Step};

fuzz_target!(|data: &[u8]| {
    let mut lines = data.split(|&b| b == b'\n');
    let Some(first) = lines.next() else {
        return;
    };
    let mut shapes = Shapes::default();
    // Every top-level key is a field, numbered by its length.
    let field_of = |path: &[Step<'_>]| match path {
        [Step::Key(k)] => Some(k.len() as u8),
        _ => None,
    };
    if let Some(c) = Cursor::plain(first) {
        shapes.learn(&c, field_of);
    }
    for line in lines {
        let Some(c) = Cursor::utf8(line) else {
            continue;
        };
        let Some(values) = shapes.replay(&c) else {
            continue;
        };
        assert!(
            serde_json::from_slice::<serde::de::IgnoredAny>(line).is_ok(),
            "replay accepted what serde refuses: {}",
            String::from_utf8_lossy(line)
        );
        for v in values {
            let text = &line[v.start..v.end];
            assert!(serde_json::from_slice::<serde::de::IgnoredAny>(text).is_ok());
            if let Some(x) = v.number {
                let serde: f64 = serde_json::from_slice(text).expect("a number");
                assert_eq!(x.to_bits(), serde.to_bits(), "{}", String::from_utf8_lossy(text));
            }
        }
    }
});
