#!/usr/bin/env bash
# Runs every benchmark in bench/ (built by `make bench`). Pass a filter
# regex as the second argument to run a subset.
set -euo pipefail
build=${1:-build-bench}
filter=${2:-.}
for b in engine_bench topology_bench collective_bench iteration_bench packet_bench edge_bench fleet_bench sweep_bench; do
  echo "== $b"
  "$build/bench/$b" --benchmark_filter="$filter"
done
