#!/usr/bin/env bash
# Runs each fuzz target for SECONDS over a corpus seeded from the files the
# project ships (every scenario, validation case and calibration table),
# and prints libFuzzer's closing statistics. A finding stops that target
# and leaves its input as BUILD/fuzz-findings/<target>/crash-*.
#   fuzz/run.sh BUILD SECONDS
set -euo pipefail
build=$1 seconds=$2
root=$(cd "$(dirname "$0")/.." && pwd)
run_target() {  # target, seed files...
  local target=$1; shift
  local corpus="$build/fuzz-corpus/$target" findings="$build/fuzz-findings/$target"
  mkdir -p "$corpus" "$findings"
  cp -n "$@" "$corpus"/ 2>/dev/null || true
  echo "== $target: $seconds s, corpus $corpus"
  "$build/fuzz/$target" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/" -dict="$root/fuzz/scenario.dict" "$corpus" 2>&1 |
    grep -E '^(#[0-9]+.*DONE|Done|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY|error without)' || true
  if ls "$findings"/crash-* "$findings"/timeout-* "$findings"/oom-* > /dev/null 2>&1; then
    echo "FINDINGS in $findings"; return 1
  fi
}
status=0
run_target scenario_fuzzer "$root"/scenarios/*.yaml "$root"/scenarios/*/*.yaml "$root"/validation/*.yaml \
  "$root"/tests/golden/*/scenario.yaml || status=1
run_target calibration_fuzzer "$root"/data/calibration/*.json || status=1
exit $status
