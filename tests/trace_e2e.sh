#!/usr/bin/env bash
# A real job, end to end: tools/trace_capture.py runs a small GPT-style
# model data-parallel over 2 gloo processes on this machine's CPU (Debian's
# python3-torch), timing its own steps and recording a profiler and an
# execution trace; anatomy replays the traces on the capture's model of
# this machine. Over three captures, the median of the replayed step's
# errors against the step time each job measured must be within 15%.
# A shared 2-vCPU machine's speed drifts by half within seconds (steps of
# 55 to 100 ms a few seconds apart): the capture puts each profiled step
# between two timed ones in one profiler session, profiles 9 steps instead
# of 5 (18 timed), and three captures take one bad minute out. Timed steps
# in blocks around 5 profiled ones gave -13%, -8%, +6%, +12% here and -21%
# once on CI; interleaved, 9 profiled, one session: -1.7%, +6.9%, -9.6%,
# -10.4%, -7.9%, +2.3%.
# Exits 77 (skipped) where torch is absent.
#   trace_e2e.sh ANATOMY SOURCE
set -euo pipefail
anatomy=$1 source=$2
python=${ANATOMY_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
"$python" -c "import torch, torch.distributed" 2> /dev/null || { echo "no torch for $python: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for i in 1 2 3; do
  mkdir "$dir/$i"
  "$python" "$source/tools/trace_capture.py" --out "$dir/$i" --profiled 9 > "$dir/$i/capture.log" 2>&1 ||
    { cat "$dir/$i/capture.log"; exit 1; }
  "$anatomy" replay "$dir/$i" --format json > "$dir/$i/replay.json"
done
"$python" - "$dir" <<'PY'
import json, statistics, sys
d = sys.argv[1]
errors = []
for i in (1, 2, 3):
    measured = json.load(open(f"{d}/{i}/measured.json"))["step_s"]
    replayed = json.load(open(f"{d}/{i}/replay.json"))["iteration_s"]
    errors.append((replayed - measured) / measured)
    print(f"capture {i}: measured step {measured * 1e3:.2f} ms, replayed {replayed * 1e3:.2f} ms, error {100 * errors[-1]:+.1f}%")
err = statistics.median(errors)
print(f"median error {100 * err:+.1f}%")
sys.exit(0 if abs(err) <= 0.15 else 1)
PY
