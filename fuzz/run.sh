#!/usr/bin/env bash
# Runs each fuzz target for SECONDS over a corpus seeded from the files the
# project ships (every scenario, validation case, calibration table, the
# shipped PyTorch trace and its Chakra export, the cluster traces), and
# prints libFuzzer's closing statistics. A finding stops that target and
# leaves its input as BUILD/fuzz-findings/<target>/crash-*.
#   fuzz/run.sh BUILD SECONDS [TARGET...]   (default: every target)
set -euo pipefail
build=$1 seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario_fuzzer calibration_fuzzer trace_fuzzer cluster_trace_fuzzer)
root=$(cd "$(dirname "$0")/.." && pwd)
sep=$'\n--8<--\n'  # fuzz/fuzz_files.h: kFileSeparator

# A seed for the file-reading targets: a kind byte, then files joined by sep.
join_seed() {  # out, kind, files...
  local out=$1 kind=$2 first=1; shift 2
  { printf '%s' "$kind"
    for f in "$@"; do [ $first = 1 ] || printf '%s' "$sep"; first=0; cat "$f"; done; } > "$out"
}

seed_traces() {  # corpus
  local corpus=$1 shipped=$root/tests/data/traces/gpt-gloo-2 s=$root/fuzz/seeds
  join_seed "$corpus/seed-pytorch-tiny" p "$s/kineto_tiny.json" "$s/et_tiny.json"
  join_seed "$corpus/seed-pytorch-tiny-2" p "$s/kineto_tiny.json" "$s/et_tiny.json" "$s/kineto_tiny.json" "$s/et_tiny.json"
  # The shipped PyTorch pair (480 KB) would slow every execution tenfold:
  # its Chakra export, one rank, stands for it.
  if [ -x "$build/anatomy" ]; then
    local et tiny; et=$(mktemp -d) tiny=$(mktemp -d)
    "$build/anatomy" replay "$shipped" --export-chakra "$et" > /dev/null
    join_seed "$corpus/seed-chakra-shipped-rank0" c "$et/trace.0.et"
    cp "$s/kineto_tiny.json" "$tiny/kineto_rank0.json"; cp "$s/et_tiny.json" "$tiny/et_rank0.json"
    cp "$s/kineto_tiny.json" "$tiny/kineto_rank1.json"; cp "$s/et_tiny.json" "$tiny/et_rank1.json"
    printf 'name: fuzz host\nmodel: llama3-8b\ncluster: {system: dgx-h100, gpus: 8}\n' > "$tiny/machine.yaml"
    "$build/anatomy" replay "$tiny" --export-chakra "$et" > /dev/null
    join_seed "$corpus/seed-chakra-tiny" c "$et/trace.0.et" "$et/trace.1.et"
    rm -rf "$et" "$tiny"
  fi
}

seed_cluster_traces() {  # corpus
  local corpus=$1 s=$root/fuzz/seeds
  join_seed "$corpus/seed-philly" p "$root/scenarios/cluster/traces/philly-sample.json"
  join_seed "$corpus/seed-helios" h "$s/helios_cluster_log.csv"
  join_seed "$corpus/seed-pai" a "$s/pai_task_table.csv" "$s/pai_job_table.csv"
  join_seed "$corpus/seed-pai-tasks-only" a "$s/pai_task_table.csv"
}

run_target() {  # target, max_len, seed files...
  local target=$1 max_len=$2; shift 2
  local corpus="$build/fuzz-corpus/$target" findings="$build/fuzz-findings/$target"
  mkdir -p "$corpus" "$findings"
  cp -n "$@" "$corpus"/ 2>/dev/null || true
  case $target in
    trace_fuzzer) seed_traces "$corpus" ;;
    cluster_trace_fuzzer) seed_cluster_traces "$corpus" ;;
  esac
  echo "== $target: $seconds s, corpus $corpus"
  "$build/fuzz/$target" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$findings/" -dict="$root/fuzz/scenario.dict" "$corpus" 2>&1 |
    grep -E '^(#[0-9]+.*DONE|Done|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY|error without|rejected row without)' || true
  if ls "$findings"/crash-* "$findings"/timeout-* "$findings"/oom-* > /dev/null 2>&1; then
    echo "FINDINGS in $findings"; return 1
  fi
}

# A UBSan report stops the target too, so that its input is kept.
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
for t in "${targets[@]}"; do
  case $t in
    scenario_fuzzer)
      run_target scenario_fuzzer 65536 "$root"/scenarios/*.yaml "$root"/scenarios/*/*.yaml "$root"/validation/*.yaml \
        "$root"/tests/golden/*/scenario.yaml || status=1 ;;
    calibration_fuzzer) run_target calibration_fuzzer 65536 "$root"/data/calibration/*.json || status=1 ;;
    trace_fuzzer) run_target trace_fuzzer 100000 || status=1 ;;
    cluster_trace_fuzzer) run_target cluster_trace_fuzzer 65536 || status=1 ;;
    *) echo "unknown fuzz target $t"; status=1 ;;
  esac
done
exit $status
