#!/usr/bin/env bash
# anatomy calibrate on this machine (its CPU here) writes a table that a
# scenario's compute: {calibration: FILE} loads: the shipped trace replays
# on a machine model that reads the new table instead of the shipped one.
# Exits 77 (skipped) where torch is absent.
#   calibrate_test.sh ANATOMY SOURCE
set -euo pipefail
anatomy=$1 source=$2
python=${ANATOMY_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
"$python" -c "import torch" 2> /dev/null || { echo "no torch for $python: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$anatomy" calibrate --out "$dir/t.json" --device cpu --quick
# The attention rows with and without dropout are part of the table.
"$python" -c "import json, sys; assert json.load(open(sys.argv[1]))[\"attention_dropout\"]" "$dir/t.json"
sed 's|calibration: calibration.json|calibration: t.json|' "$source/tests/data/traces/gpt-gloo-2/machine.yaml" > "$dir/machine.yaml"
out=$("$anatomy" replay "$source/tests/data/traces/gpt-gloo-2" --from "$dir/machine.yaml" --on "$dir/machine.yaml")
case "$out" in
  *"step time"*) echo "replayed on a machine whose compute model read $dir/t.json" ;;
  *) echo "$out"; exit 1 ;;
esac
