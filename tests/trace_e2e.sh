#!/usr/bin/env bash
# A real job, end to end: tools/trace_capture.py runs a small GPT-style
# model data-parallel over 2 gloo processes on this machine's CPU (Debian's
# python3-torch), timing its own steps and recording a profiler and an
# execution trace; anatomy replays the traces on the capture's model of
# this machine, and the replayed step must come within 15% of the step time
# the job measured. Exits 77 (skipped) where torch is absent.
#   trace_e2e.sh ANATOMY SOURCE
set -euo pipefail
anatomy=$1 source=$2
python=${ANATOMY_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
"$python" -c "import torch, torch.distributed" 2> /dev/null || { echo "no torch for $python: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$python" "$source/tools/trace_capture.py" --out "$dir" > "$dir/capture.log" 2>&1 || { cat "$dir/capture.log"; exit 1; }
"$anatomy" replay "$dir" --format json > "$dir/replay.json"
"$python" - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
measured = json.load(open(d + "/measured.json"))["step_s"]
replayed = json.load(open(d + "/replay.json"))["iteration_s"]
err = (replayed - measured) / measured
print(f"measured step {measured * 1e3:.2f} ms, replayed {replayed * 1e3:.2f} ms, error {100 * err:+.1f}%")
sys.exit(0 if abs(err) <= 0.15 else 1)
PY
