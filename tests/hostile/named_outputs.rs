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
        assert!(
            std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
            "{option:?}"
        );
        let text = String::from_utf8_lossy(&got);
        let expected = if option[0] == "trace" {
            "{"
        } else if option[2] == "--fleet-out" {
            "link_mbps: "
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
            _ => assert!(out.contains("    link_mbps: "), "{out}"),
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

/// A refused output is said once: the write error's message carried its
/// reason and then said it again as its cause (`gate --junit` at a link
/// printed "refused, so a planted link cannot aim the write" twice).
#[test]
fn a_refused_output_says_its_refusal_once() {
    let root = tempfile::tempdir().unwrap();
    for stamp in [COLD, super::WARM] {
        std::fs::create_dir(root.path().join(stamp)).unwrap();
        super::copy_run(&sample(stamp), &root.path().join(stamp));
    }
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, "victim").unwrap();
    let link = dir.path().join("junit.xml");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let (root, link) = (root.path().to_str().unwrap(), link.to_str().unwrap());
    let cold = sample(COLD);
    for args in [
        vec!["gate", "--history", root, "--junit", link],
        vec!["trace", cold.to_str().unwrap(), "-o", link],
    ] {
        let o = perfreport(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(
            err.matches("a planted link cannot aim the write").count(),
            1,
            "{args:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "victim");
}

/// A reader that stops reading (`| head -c 10`): every printing subcommand
/// ends quietly, by SIGPIPE or exit 0 (or its own verdict), never with a
/// panic's exit 101 and its "failed printing to stdout: Broken pipe".
#[test]
fn a_closed_standard_output_ends_every_printing_subcommand_quietly() {
    use std::os::fd::FromRawFd;
    use std::os::unix::process::ExitStatusExt;
    let (cold, warm) = (sample(COLD), sample(super::WARM));
    let (cold, warm) = (cold.to_str().unwrap(), warm.to_str().unwrap());
    let root = tempfile::tempdir().unwrap();
    for (stamp, src) in [(COLD, cold), (super::WARM, warm)] {
        std::fs::create_dir(root.path().join(stamp)).unwrap();
        super::copy_run(Path::new(src), &root.path().join(stamp));
    }
    let root_s = root.path().to_str().unwrap();
    let out = tempfile::tempdir().unwrap();
    let out_s = out.path().to_str().unwrap();
    let log = out.path().join("build.log");
    std::fs::write(&log, "#5 [pytorch builder  1/11] FROM docker.io/rocm/dev\n#5 CACHED\n").unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["history", root_s, "--out", out_s, "--json"],
        vec!["history", root_s, "--out", out_s],
        vec!["trace", cold],
        vec!["placement", cold],
        vec!["placement", cold, "--json"],
        vec!["placement", cold, "--costs-out", "-"],
        vec!["check", cold],
        vec!["check", cold, "--json"],
        vec!["compare", cold, warm],
        vec!["compare", cold, warm, "--json"],
        vec!["gate", warm, "--history", root_s],
        vec!["gate", warm, "--history", root_s, "--json"],
        vec!["buildlog", log.to_str().unwrap(), "--target", "pytorch"],
    ];
    for args in commands {
        // A pipe whose reader is gone before the command writes a byte.
        let mut fds = [0; 2];
        // SAFETY: an out-parameter of two descriptors, each owned once below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let (read_end, write_end) = unsafe {
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        drop(read_end);
        let o = Command::new(env!("CARGO_BIN_EXE_perfreport"))
            .args(&args)
            .env_remove("PERF_ROOT")
            .stdout(std::process::Stdio::from(write_end))
            .output()
            .unwrap();
        let err = stderr(&o);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{args:?}: {err}"
        );
        assert!(
            o.status.signal() == Some(libc::SIGPIPE) || matches!(o.status.code(), Some(0 | 1)),
            "{args:?}: {:?} {err}",
            o.status
        );
    }
}
