//! `perfreport buildlog`: what bench.sh scrapes from a BuildKit build log.

use crate::util::*;
use serde_json::Value;

#[test]
fn buildlog_reports_the_targets_own_step_counters_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("build.log");
    std::fs::write(
        &log,
        "#5 [pytorch builder  1/11] FROM docker.io/rocm/dev\n#5 CACHED\n\
         #32 [pytorch builder 10/11] RUN python setup.py bdist_wheel\n\
         #32 0.5 + cat /wheels-triton-sccache-stats.txt\n#32 0.5 Cache hits 700\n\
         #32 178.6 + cat /opt/pytorch/sccache-stats.txt\n#32 178.7 Compile requests 5684\n#32 178.7 Cache hits 5674\n#32 178.7 Cache misses 10\n\
         #32 DONE 180.2s\n",
    )
    .unwrap();
    let o = perfreport(&["buildlog", log.to_str().unwrap(), "--target", "pytorch"]);
    assert!(o.status.success());
    let f: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (f["steps_total"].as_u64(), f["steps_cached"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(
        (
            f["sccache_requests"].as_u64(),
            f["sccache_hits"].as_u64(),
            f["sccache_misses"].as_u64()
        ),
        (Some(5684), Some(5674), Some(10))
    );
}
