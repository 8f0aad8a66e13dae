#!/usr/bin/env bash
# The nightly lane in one script: run the fleet, report the run, gate the
# night, publish the site, and leave the run's report folder for CI to
# upload. Every step runs even when an earlier one failed (a failed harness
# still leaves a run worth reporting); the lane's status is the worst of them.
#
# Environment:
#   HARNESS       the command that runs the fleet and leaves a run under PERF_ROOT (required)
#   PERF_ROOT     the runs root (default /var/tmp/rocm-perf)
#   ARTIFACT_DIR  where the run's report folder is written for upload (default perf-artifact)
#   JUNIT         JUnit XML of the gate (default $ARTIFACT_DIR/gate.xml)
#   SUMMARY       a job-summary file the gate appends to (e.g. $GITHUB_STEP_SUMMARY)
#   SITE_URL      the published site's address, linked from the summary
#   SITE          the site folder (default site); PUSH=1 and PUBLISH_CMD push it
#   ALLOW_EMPTY   1: a night with nothing to gate passes (a lane's first nights)
#   ACCEPTED      the reviewed file of accepted regressions (default PERF_ROOT/perf-accepted.toml)
#   FAIL_ON_OPEN  1: stay red while a regression is open and not accepted
#   GATE_ARCH, GATE_MODE, GATE_JOBS  gate only this lane's keys (a root shared by lanes)
#   LANE          the lane's name in the root's ledger of calls (default: made of the filters)
#   PERFREPORT    how make runs perfreport (default: cargo run --release)
#   MAKE          the make to use (default make)
#
# Exit status: the gate's (0 passed, 1 regressed, 2 unusable, 3 nothing
# gated), or the harness's or another step's failure when the gate passed.
set -uo pipefail
cd "$(dirname "$0")/.."

: "${HARNESS:?HARNESS must name the command that runs the fleet}"
PERF_ROOT=${PERF_ROOT:-/var/tmp/rocm-perf}
ARTIFACT_DIR=${ARTIFACT_DIR:-perf-artifact}
JUNIT=${JUNIT:-$ARTIFACT_DIR/gate.xml}
MAKE=${MAKE:-make}
vars=(PERF_ROOT="$PERF_ROOT" SITE="${SITE:-site}" JUNIT="$JUNIT" SUMMARY="${SUMMARY:-}"
      SITE_URL="${SITE_URL:-}" ALLOW_EMPTY="${ALLOW_EMPTY:-}" PUSH="${PUSH:-}"
      PUBLISH_CMD="${PUBLISH_CMD:-}" ACCEPTED="${ACCEPTED:-}" FAIL_ON_OPEN="${FAIL_ON_OPEN:-}"
      GATE_ARCH="${GATE_ARCH:-}" GATE_MODE="${GATE_MODE:-}" GATE_JOBS="${GATE_JOBS:-}" LANE="${LANE:-}")
[ -n "${PERFREPORT:-}" ] && vars+=(PERFREPORT="$PERFREPORT")
mkdir -p "$ARTIFACT_DIR"

step() { echo "nightly: $*" >&2; }

step "running the fleet: $HARNESS"
bash -c "$HARNESS"
harness=$?
[ "$harness" -ne 0 ] && step "the harness failed (exit $harness): reporting what it left"

step "reporting the newest run under $PERF_ROOT into $ARTIFACT_DIR/report"
"$MAKE" --no-print-directory perf-report "${vars[@]}" OUT="$ARTIFACT_DIR/report"
report=$?

step "gating the night"
gate_status="$ARTIFACT_DIR/gate-status"
rm -f "$JUNIT" "$gate_status"
"$MAKE" --no-print-directory perf-gate "${vars[@]}" GATE_STATUS="$gate_status"
gate=$?
# make turns any failed recipe into 2: the gate's own status (1 regressed,
# 2 unusable, 3 nothing gated) is the one the recipe wrote down.
if [ "$gate" -ne 0 ] && [ -s "$gate_status" ]; then
  gate=$(cat "$gate_status")
fi

step "publishing the site"
"$MAKE" --no-print-directory perf-publish "${vars[@]}"
publish=$?

step "harness $harness, report $report, gate $gate, publish $publish"
[ "$gate" -ne 0 ] && exit "$gate"
for rc in "$harness" "$report" "$publish"; do
  [ "$rc" -ne 0 ] && exit "$rc"
done
exit 0
