#![no_main]
use libfuzzer_sys::fuzz_target;

// A whole run: the bytes split into a zot log, samples and a trace, then the
// full view and every renderer (charts included) on top; no chart may hold
// a character XML does not allow.
fuzz_target!(|data: &[u8]| {
    let dir = match tempfile_dir() {
        Some(d) => d,
        None => return,
    };
    let third = data.len() / 3;
    let _ = std::fs::write(dir.join("zot.jsonl"), &data[..third]);
    let _ = std::fs::write(dir.join("samples.jsonl"), &data[third..2 * third]);
    let _ = std::fs::write(dir.join("trace-x.json"), &data[2 * third..]);
    if let Ok(r) = perfreport::report(&dir, perfreport::model::Links::StayInside) {
        // Whatever a name holds (an ESC, U+FFFE), every chart stays XML.
        for f in r.files.iter().filter(|f| f.path.extension().is_some_and(|e| e == "svg")) {
            let text = String::from_utf8_lossy(&f.bytes);
            let bad = text
                .chars()
                .find(|&c| (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || matches!(c, '\u{fffe}' | '\u{ffff}'));
            assert!(bad.is_none(), "{}: {bad:?} is no XML character", f.path.display());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
});

fn tempfile_dir() -> Option<std::path::PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!("perfreport-fuzz-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&d).ok()?;
    Some(d)
}
