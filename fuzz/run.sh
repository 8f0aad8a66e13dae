#!/usr/bin/env bash
# Runs every fuzz target for a fixed budget (seconds each, default 60) and
# prints executions and crashes. Needs a nightly toolchain and cargo-fuzz
# (`cargo install cargo-fuzz`). Crashes land in fuzz/artifacts/<target>/;
# each one found becomes a regression test in tests/hostile/.
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:-60}
status=0
for t in fast_json zot_line nginx_line trace samples_line placement_line buildlog report; do
  mkdir -p "fuzz/corpus/$t"
  out=$(cargo +nightly fuzz run "$t" -- -max_total_time="$budget" -max_len=65536 -print_final_stats=1 2>&1)
  rc=$?
  execs=$(printf '%s\n' "$out" | grep -oE '(stat::number_of_executed_units: |Done )[0-9]+' | tail -1 | grep -oE '[0-9]+')
  crashes=$(ls "fuzz/artifacts/$t" 2>/dev/null | wc -l)
  printf '%-15s executions %-10s crashes %s (exit %s)\n' "$t" "${execs:-?}" "$crashes" "$rc"
  [ "$rc" -eq 0 ] || status=1
done
exit $status
