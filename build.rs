//! Embeds the commit the binary is built from, for provenance: a figure whose
//! tool is not recorded can only be doubted, never retracted.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    // No optional locks: `git status` would otherwise refresh and rewrite
    // the index (it does on a fresh clone), which is a file this script
    // watches, so the next cargo command would rerun it and rebuild the
    // crate with nothing changed.
    let out = Command::new("git")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .args(args)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let commit = match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) if !c.is_empty() => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty {
                format!("{c}-dirty")
            } else {
                c
            }
        }
        // A source tarball without .git: say so rather than invent a commit.
        _ => "unknown".to_string(),
    };
    println!("cargo:rustc-env=PERFREPORT_COMMIT={commit}");
    // In a worktree `.git` is a file: HEAD and the index are in its own git
    // directory, the branches in the common one.
    let own = git(&["rev-parse", "--git-dir"]).unwrap_or_else(|| ".git".into());
    let common = git(&["rev-parse", "--git-common-dir"]).unwrap_or_else(|| own.clone());
    let watched = [
        format!("{own}/HEAD"),
        format!("{own}/index"),
        format!("{common}/refs/heads"),
        format!("{common}/packed-refs"),
    ];
    for path in watched {
        if std::path::Path::new(&path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
