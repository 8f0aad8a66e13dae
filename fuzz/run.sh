#!/usr/bin/env bash
# Runs every fuzz target for a fixed budget (seconds each, default 60) and
# prints executions and crashes. Needs a nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). Crashes land in <fuzz dir>/artifacts/<target>/;
# each one found becomes a regression test in tests/hostile/ (or, for the
# scanning crate's own targets, in its unit tests).
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:-60}
status=0

# fuzz_one CRATE_DIR TARGET: runs one target of the fuzz directory under CRATE_DIR.
fuzz_one() {
  local dir=$1 t=$2 out rc execs crashes
  mkdir -p "$dir/fuzz/corpus/$t"
  out=$(cd "$dir" && cargo +nightly fuzz run "$t" -- -max_total_time="$budget" -max_len=65536 -print_final_stats=1 2>&1)
  rc=$?
  execs=$(printf '%s\n' "$out" | grep -oE '(stat::number_of_executed_units: |Done )[0-9]+' | tail -1 | grep -oE '[0-9]+')
  crashes=$(ls "$dir/fuzz/artifacts/$t" 2>/dev/null | wc -l)
  printf '%-20s executions %-10s crashes %s (exit %s)\n' "$dir:$t" "${execs:-?}" "$crashes" "$rc"
  [ "$rc" -eq 0 ] || status=1
}

for t in fast_json zot_line nginx_line trace samples_line placement_line buildlog report; do
  fuzz_one . "$t"
done
for t in find shape_replay; do
  fuzz_one crates/scan "$t"
done
exit $status
