#!/usr/bin/env bash
# tools/step_probe.py (the GPU step check of docs/research/h200-steps-issue19.md)
# runs its tiny models on this machine's CPU and writes every section it
# writes on a GPU but the CUDA graph's. Exits 77 (skipped) where torch is absent.
#   step_probe_test.sh SOURCE
set -euo pipefail
source=$1
python=${ANATOMY_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
"$python" -c "import torch" 2> /dev/null || { echo "no torch for $python: skipped"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$python" "$source/tools/step_probe.py" --quick --out "$dir/steps.json" > /dev/null
"$python" - "$dir/steps.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d["models"]) == {"tiny-gpt", "tiny-llama"}, d["models"].keys()
for name, m in d["models"].items():
    for phase in ("fwd", "bwd", "opt"):
        assert m["step_ms"][phase] > 0 and m["host"]["step_ms"][phase] > 0, (name, phase)
    assert [r["kind"] for r in m["gemm_layouts"]] == ["qkv", "proj", "up", "down", "out"], name
print("step_probe wrote both models' steps, host costs and GEMM layouts")
PY
