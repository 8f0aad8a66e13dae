#![no_main]
use libfuzzer_sys::fuzz_target;

// A whole run: the bytes split into a zot log, samples and a trace, then the
// full view and every renderer (charts included) on top.
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
        let _ = r.files.len();
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
