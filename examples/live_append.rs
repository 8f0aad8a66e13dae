//! Benchmark helper: the live regeneration of data.json after appending
//! 1 MB to a run's zot.jsonl (the path `perfreport serve` takes).
//!
//!   cargo run --release --example live_append -- RUN_DIR OUT_DIR [ROUNDS]

use perfreport::live::LiveRun;
use std::io::Write;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (run, out) = (std::path::PathBuf::from(&args[0]), std::path::PathBuf::from(&args[1]));
    let rounds: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(10);
    let zot = run.join("zot.jsonl");
    // One megabyte of registry lines, complete lines only.
    let line = r#"{"time":"2026-11-01T11:59:59.5Z","level":"info","message":"HTTP API","clientIP":"10.0.3.12:40000","method":"HEAD","path":"/v2/rocm/cache/blobs/sha256:0000000000000000000000000000000000000000000000000000000000000000","statusCode":200,"latency":"96.6µs","bodySize":0,"headers":{"User-Agent":["containerd/2.1.4+unknown"]}}"#;
    let mut chunk = String::new();
    while chunk.len() < 1_000_000 {
        chunk.push_str(line);
        chunk.push('\n');
    }
    let mut live = LiveRun::new(&run);
    perfreport::serve::regenerate(&mut live, &out, false)?;
    let mut ms = vec![];
    for _ in 0..rounds {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&zot)?
            .write_all(chunk.as_bytes())?;
        let t = Instant::now();
        perfreport::serve::regenerate(&mut live, &out, false)?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(|a, b| a.total_cmp(b));
    println!("{:.1} {:.1} {:.1}", ms[ms.len() / 2], ms[0], ms[ms.len() - 1]);
    Ok(())
}
