//! Output options (`trace -o`, `placement --costs-out`, `--fleet-out`) given
//! a device, a FIFO, a symlink or `-`: a device or FIFO is written in place,
//! never replaced by a rename; `-` is standard output; a symlink to a
//! regular file is refused unless `--follow-links`.

use super::{perfreport, sample, COLD};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

/// Each output option with the run's arguments: `(args before the path, args after)`.
fn options(run: &str) -> Vec<Vec<String>> {
    [
        vec!["trace", run, "-o"],
        vec!["placement", run, "--costs-out"],
        vec!["placement", run, "--fleet-out"],
    ]
    .into_iter()
    .map(|v| v.into_iter().map(String::from).collect())
    .collect()
}

fn with_path(option: &[String], path: &Path, extra: &[&str]) -> std::process::Output {
    let mut args: Vec<&str> = option.iter().map(String::as_str).collect();
    args.push(path.to_str().unwrap());
    args.extend_from_slice(extra);
    perfreport(&args)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn an_output_option_given_a_device_writes_into_it_and_leaves_it_a_device() {
    let run = sample(COLD);
    let dir = tempfile::tempdir().unwrap();
    // Through a symlink to /dev/null: a regression replaces the link, never /dev/null itself.
    let dev = dir.path().join("dev");
    std::os::unix::fs::symlink("/dev/null", &dev).unwrap();
    for option in options(run.to_str().unwrap()) {
        let o = with_path(&option, &dev, &[]);
        assert_eq!(o.status.code(), Some(0), "{option:?}: {}", stderr(&o));
        assert!(
            std::fs::symlink_metadata(&dev).unwrap().is_symlink(),
            "{option:?} replaced the link"
        );
        assert!(std::fs::metadata("/dev/null").unwrap().file_type().is_char_device());
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temporary left");
}

#[test]
fn an_output_option_given_a_fifo_writes_into_it_and_leaves_it_a_fifo() {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    use std::sync::atomic::{AtomicBool, Ordering};
    let run = sample(COLD);
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for option in options(run.to_str().unwrap()) {
        // A reader that never blocks: the command's open for writing finds
        // it there, and its bytes are drained as they come (a trace is more
        // than a pipe holds). Once the command has ended and the pipe is
        // empty, the reader stops.
        let mut reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap();
        let done = AtomicBool::new(false);
        let (o, got) = std::thread::scope(|s| {
            let drained = s.spawn(|| {
                let mut got = Vec::new();
                let mut buf = vec![0; 1 << 16];
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) if done.load(Ordering::SeqCst) => return got,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                        Err(_) => {}
                    }
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            });
            let o = with_path(&option, &fifo, &[]);
            done.store(true, Ordering::SeqCst);
            (o, drained.join().unwrap())
        });
        assert_eq!(o.status.code(), Some(0), "{option:?}: {}", stderr(&o));
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "{option:?}");
        let text = String::from_utf8_lossy(&got);
        let expected = if option[0] == "trace" || option[2] == "--fleet-out" {
            "{"
        } else {
            "build "
        };
        assert!(text.contains(expected), "{option:?} wrote {text:?} into the FIFO");
    }
}

#[test]
fn a_dash_is_standard_output_for_every_output_option() {
    let run = sample(COLD);
    let cwd = tempfile::tempdir().unwrap();
    for option in options(run.to_str().unwrap()) {
        let mut args: Vec<&str> = option.iter().map(String::as_str).collect();
        args.push("-");
        let o = Command::new(env!("CARGO_BIN_EXE_perfreport"))
            .args(&args)
            .current_dir(cwd.path())
            .env_remove("PERF_ROOT")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{option:?}: {}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        match option[2].as_str() {
            "-o" => assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok(), "{out}"),
            "--costs-out" => assert!(out.contains("\nbuild "), "{out}"),
            _ => assert!(out.contains("\"link_mbps\""), "{out}"),
        }
    }
    assert_eq!(std::fs::read_dir(cwd.path()).unwrap().count(), 0, "no file named -");
}

#[test]
fn trace_to_dev_stdout_prints_and_leaves_the_link() {
    let run = sample(COLD);
    let o = perfreport(&["trace", run.to_str().unwrap(), "-o", "/dev/stdout"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(serde_json::from_slice::<serde_json::Value>(&o.stdout).is_ok());
    assert!(std::fs::symlink_metadata("/dev/stdout").unwrap().is_symlink());
}

#[test]
fn a_symlink_to_a_regular_file_is_refused_unless_follow_links() {
    let run = sample(COLD);
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    for option in options(run.to_str().unwrap()) {
        std::fs::write(&victim, "victim").unwrap();
        let o = with_path(&option, &link, &[]);
        assert_eq!(o.status.code(), Some(2), "{option:?}");
        assert!(
            stderr(&o).contains("a symlink to a regular file: refused"),
            "{option:?}: {}",
            stderr(&o)
        );
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "victim");
        let o = with_path(&option, &link, &["--follow-links"]);
        assert_eq!(o.status.code(), Some(0), "{option:?}: {}", stderr(&o));
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_ne!(std::fs::read_to_string(&victim).unwrap(), "victim", "{option:?}");
    }
}

