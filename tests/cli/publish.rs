//! `perfreport publish`: the static site over every run, and its incremental rebuild.

use crate::util::*;

/// A root of runs: the two samples and a run whose only input is garbage.
fn root_of_runs() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for stamp in [COLD, WARM] {
        let dst = root.path().join(stamp);
        std::fs::create_dir(&dst).unwrap();
        copy_run(&sample(stamp), &dst);
    }
    std::fs::create_dir(root.path().join("20261019T020000Z-broken")).unwrap();
    std::fs::write(root.path().join("20261019T020000Z-broken/run.json"), "{not json").unwrap();
    root
}

#[test]
fn publish_lists_every_run_newest_first_with_the_broken_one_and_its_reason() {
    let root = root_of_runs();
    let site = tempfile::tempdir().unwrap();
    let o = publish(root.path(), site.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let index = std::fs::read_to_string(site.path().join("index.html")).unwrap();
    let warm = index.find(&format!("data-run=\"{WARM}\"")).unwrap();
    let cold = index.find(&format!("data-run=\"{COLD}\"")).unwrap();
    let broken = index.find("data-run=\"20261019T020000Z-broken\"").unwrap();
    assert!(warm < cold && cold < broken, "newest first");
    assert!(index.contains("data-status=\"in flight\""));
    let row = &index[broken..(broken + 600).min(index.len())];
    assert!(
        row.contains("broken: no input could be read") && row.contains("not a run description"),
        "{row}"
    );
    for f in [
        "index.html",
        "data.json",
        "report.md",
        "report.html",
        "charts/timeline.svg",
    ] {
        assert!(site.path().join("runs").join(COLD).join(f).exists(), "{f}");
    }
    let page = std::fs::read_to_string(site.path().join("runs").join(COLD).join("index.html")).unwrap();
    assert!(
        page.contains("<script src=\"../../runs.js\"></script>"),
        "the run selector"
    );
    let runs_js = std::fs::read_to_string(site.path().join("runs.js")).unwrap();
    assert!(runs_js.contains(WARM) && runs_js.contains(COLD) && runs_js.contains("broken"));
    // With --bench, the ratios page is published and linked.
    let bench = sample(COLD).parent().unwrap().join("bench/bench.jsonl");
    let o = perfreport(&[
        "publish",
        root.path().to_str().unwrap(),
        "--site",
        site.path().to_str().unwrap(),
        "--bench",
        bench.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(site.path().join("bench/ratios.html").exists());
    assert!(std::fs::read_to_string(site.path().join("index.html"))
        .unwrap()
        .contains("href=\"bench/ratios.html\""));
}

#[test]
fn every_link_of_the_published_site_resolves() {
    let root = root_of_runs();
    let site = tempfile::tempdir().unwrap();
    assert!(publish(root.path(), site.path()).status.success());
    let mut checked = 0;
    for file in walk(site.path())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "html"))
    {
        let html = std::fs::read_to_string(&file).unwrap();
        for attr in ["href=\"", "src=\""] {
            for part in html.split(attr).skip(1) {
                let target = part.split('"').next().unwrap();
                if target.starts_with("data:") || target.starts_with('#') || target.is_empty() {
                    continue;
                }
                assert!(
                    !target.contains("://") && !target.starts_with('/'),
                    "{}: not relative: {target}",
                    file.display()
                );
                let path = target.split('#').next().unwrap().replace("%20", " ");
                let resolved = file.parent().unwrap().join(&path);
                assert!(resolved.exists(), "{}: broken link {target}", file.display());
                checked += 1;
            }
        }
    }
    assert!(checked > 10, "only {checked} links checked");
}

#[test]
fn a_second_publish_rewrites_nothing_and_a_new_run_rebuilds_only_it_and_the_index() {
    let root = root_of_runs();
    let site = tempfile::tempdir().unwrap();
    assert!(publish(root.path(), site.path()).status.success());
    let first = mtimes(site.path());
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = publish(root.path(), site.path());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("(0 rebuilt"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(mtimes(site.path()), first, "nothing rewritten");
    // A new run: only its pages, the index and the run list change.
    let newer = root.path().join("20261022T020000Z");
    std::fs::create_dir(&newer).unwrap();
    std::fs::copy(
        fixture("buildx-history-trace-jaeger.json"),
        newer.join("trace-bake.json"),
    )
    .unwrap();
    let o = publish(root.path(), site.path());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("(1 rebuilt"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let after = mtimes(site.path());
    for (path, t) in &first {
        let name = path.strip_prefix(site.path()).unwrap().to_string_lossy().into_owned();
        // The site-wide pages: the index and the history a new run joins.
        if ["index.html", "runs.js", "manifest.json", "history.html", "history.json"].contains(&name.as_str()) {
            continue;
        }
        assert_eq!(after.get(path), Some(t), "{name} was rewritten");
    }
    assert!(after.keys().any(|p| p.ends_with("runs/20261022T020000Z/index.html")));
    // The same runs give byte-identical sites.
    let other = tempfile::tempdir().unwrap();
    assert!(publish(root.path(), other.path()).status.success());
    for p in walk(site.path()) {
        let rel = p.strip_prefix(site.path()).unwrap();
        assert_eq!(
            std::fs::read(&p).unwrap(),
            std::fs::read(other.path().join(rel)).unwrap(),
            "{}",
            rel.display()
        );
    }
}

#[test]
fn a_symlink_loop_under_the_root_is_reported_and_the_rest_published() {
    let root = root_of_runs();
    std::os::unix::fs::symlink(root.path(), root.path().join("loop")).unwrap();
    let site = tempfile::tempdir().unwrap();
    let o = publish(root.path(), site.path());
    assert!(o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("symlink loop"), "{stderr}");
    assert!(site.path().join("runs").join(COLD).join("index.html").exists());
}

#[test]
fn publish_compare_previous_adds_a_section_to_both_runs_report_pages() {
    let root = root_of_runs();
    // A later cold run: comparable with the cold sample, not with the warm one.
    let later = root.path().join("20261022T020000Z");
    std::fs::create_dir(&later).unwrap();
    copy_run(&sample(COLD), &later);
    let run_json = std::fs::read_to_string(later.join("run.json")).unwrap();
    let run_json = run_json
        .replace("2026-10-20T02:00:00Z", "2026-10-22T02:00:00Z")
        .replace(COLD, "20261022T020000Z");
    std::fs::write(later.join("run.json"), run_json).unwrap();
    stretch_root(&later.join("trace-rocm-base.json"), 2.0);
    let site = tempfile::tempdir().unwrap();
    let o = perfreport(&[
        "publish",
        root.path().to_str().unwrap(),
        "--site",
        site.path().to_str().unwrap(),
        "--compare-previous",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = |dir: &str| std::fs::read_to_string(site.path().join("runs").join(dir).join("report.html")).unwrap();
    // Newest first: 1022 (cold) <- 1021 (warm) <- 1020 (cold). Neighbours of another mode are refused.
    let newest = page("20261022T020000Z");
    assert!(
        newest.contains("Since the previous run (20261021T020000Z)"),
        "the warm run came before it"
    );
    assert!(newest.contains("Not comparable") && newest.contains("mode differs"));
    let warm = page(WARM);
    assert!(
        warm.contains("Since the previous run (20261020T020000Z)")
            && warm.contains("Until the next run (20261022T020000Z)")
    );
    let oldest = page(COLD);
    assert!(oldest.contains("Until the next run (20261021T020000Z)"));
}

#[test]
fn a_corrupted_manifest_is_said_and_the_site_is_the_one_a_fresh_publish_gives() {
    let root = root_of_runs();
    let fresh = tempfile::tempdir().unwrap();
    assert!(publish(root.path(), fresh.path()).status.success());
    let same_as_fresh = |site: &std::path::Path| {
        for p in walk(fresh.path()) {
            let rel = p.strip_prefix(fresh.path()).unwrap();
            let (want, got) = (
                std::fs::read(&p).unwrap(),
                std::fs::read(site.join(rel)).unwrap_or_default(),
            );
            if rel == std::path::Path::new("manifest.json") {
                // An unchanged run is written back as the text it was read
                // as: the same JSON, in the layout the edit left.
                let json = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap();
                assert_eq!(json(&want), json(&got), "manifest.json");
            } else {
                assert!(want == got, "{} differs", rel.display());
            }
        }
    };
    // One run's value is not an object: it alone is rebuilt, and said.
    let site = tempfile::tempdir().unwrap();
    assert!(publish(root.path(), site.path()).status.success());
    let manifest = site.path().join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    m["runs"][WARM] = serde_json::json!([1]);
    std::fs::write(&manifest, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    let o = publish(root.path(), site.path());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains(&format!("{WARM:?} cannot be read")), "{said}");
    assert!(said.contains("(1 rebuilt"), "the other runs stand: {said}");
    same_as_fresh(site.path());
    // Cut short: every run is rebuilt, and that is said.
    let text = std::fs::read(&manifest).unwrap();
    std::fs::write(&manifest, &text[..text.len() / 2]).unwrap();
    let o = publish(root.path(), site.path());
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains("manifest.json cannot be read"), "{said}");
    same_as_fresh(site.path());
    // A run gone from the root whose entry cannot be read still leaves the site.
    let gone = "20261019T020000Z-broken";
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    m["runs"][gone] = serde_json::json!("damaged");
    std::fs::write(&manifest, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
    std::fs::remove_dir_all(root.path().join(gone)).unwrap();
    assert!(site.path().join("runs").join(gone).is_dir());
    assert!(publish(root.path(), site.path()).status.success());
    assert!(
        !site.path().join("runs").join(gone).exists(),
        "the gone run's folder is removed"
    );
}

/// The total of `target` on a published run's page, from its data.json.
fn published_total(site: &std::path::Path, run: &str, target_name: &str) -> f64 {
    let d: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("runs").join(run).join("data.json")).unwrap()).unwrap();
    target(&d, target_name)["total_s"].as_f64().unwrap()
}

/// Found by attacking publish and the gate: the fingerprint behind the
/// manifest skipped links, which a run may hold to its own files, so a
/// trace re-pointed from a first attempt to a slower retry rebuilt nothing;
/// and a run folder that lost a page other than index.html was not rebuilt.
#[test]
fn publish_rebuilds_a_run_whose_linked_trace_was_re_pointed_or_whose_pages_are_gone() {
    let root = tempfile::tempdir().unwrap();
    let run = root.path().join(COLD);
    std::fs::create_dir(&run).unwrap();
    copy_run(&sample(COLD), &run);
    for attempt in ["attempt-1", "attempt-2"] {
        std::fs::create_dir(run.join(attempt)).unwrap();
        std::fs::copy(run.join("trace-pytorch.json"), run.join(attempt).join("trace.json")).unwrap();
    }
    stretch_root(&run.join("attempt-2/trace.json"), 1.15);
    std::fs::remove_file(run.join("trace-pytorch.json")).unwrap();
    std::os::unix::fs::symlink("attempt-1/trace.json", run.join("trace-pytorch.json")).unwrap();
    let site = tempfile::tempdir().unwrap();
    let o = publish(root.path(), site.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = published_total(site.path(), COLD, "pytorch");
    std::fs::remove_file(run.join("trace-pytorch.json")).unwrap();
    std::os::unix::fs::symlink("attempt-2/trace.json", run.join("trace-pytorch.json")).unwrap();
    let o = publish(root.path(), site.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let retried = published_total(site.path(), COLD, "pytorch");
    assert!(retried > first * 1.1, "the retry's figures: {first} -> {retried}");
    // A page gone from the run's folder: the run is reported again.
    for page in ["report.html", "charts/timeline.svg", "data.json"] {
        let at = site.path().join("runs").join(COLD).join(page);
        std::fs::remove_file(&at).unwrap();
        let o = publish(root.path(), site.path());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(at.is_file(), "{page} rebuilt");
    }
}

/// Found by reading a published site: its manifest.json listed the name,
/// size and modification time of every file of every run folder, and the
/// root's path. It keeps a digest of them, which is all publish needs.
#[test]
fn the_published_manifest_names_no_run_folders_files_nor_the_roots_path() {
    let root = root_of_runs();
    let site = tempfile::tempdir().unwrap();
    std::fs::write(root.path().join(COLD).join("private-notes.txt"), "x").unwrap();
    let o = publish(root.path(), site.path());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let manifest = std::fs::read_to_string(site.path().join("manifest.json")).unwrap();
    // No file is listed (the figures name the inputs a report reads, as any page does).
    assert!(
        !manifest.contains("private-notes"),
        "a file of the run folder in the manifest"
    );
    let m: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    for (dir, run) in m["runs"].as_object().unwrap() {
        assert!(run.get("inputs").is_none(), "{dir}: a list of the folder's files");
        let fp = run["fingerprint"].as_str().unwrap_or("");
        assert!(
            fp.len() == 64 && fp.bytes().all(|b| b.is_ascii_hexdigit()),
            "{dir}: {fp}"
        );
    }
    let root_path = root.path().to_str().unwrap();
    assert!(!manifest.contains(root_path), "the root's path in the manifest");
    // And it still makes an unchanged site cost nothing.
    let before = mtimes(&site.path().join("runs"));
    let o = publish(root.path(), site.path());
    assert!(o.status.success());
    assert_eq!(mtimes(&site.path().join("runs")), before, "nothing rebuilt");
}
