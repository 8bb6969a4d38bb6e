#!/usr/bin/env python3
"""Hand model behind "The 8B rows: the context-parallel ring's channels" in
dp-cost-issue19.md. Not part of anatomy: it reads `anatomy run` output for the
NVIDIA-recipe Llama 3.1 8B files and adds, by hand, two mechanisms anatomy does
not have yet:

  B      Megatron-Core's per-bucket, prefetched FP8 parameter gather: anatomy's
         exposed DP time is replaced by 6 ms (the first bucket and the last).
  ring   the `cp` communicator's few channels (custom_communicator_cta.yaml caps it
         at max_ctas 1, but NCCL_MIN_NCHANNELS=4 wins): each of the ring's cp - 1
         steps moves one K/V block at the given rate a peer, hidden only behind
         that step's share of the layer's attention.

The attention rate (1.1 PFLOP/s) is this script's assumption, not anatomy's.
Run from the repository root after building: python3 docs/research/f3_cp_ring.py
"""
import re
import subprocess

import yaml

# The NVIDIA-recipe Llama 3.1 8B files; each one's published step, CP and TP
# are read from the file itself.
STEMS = [f"f3-mlperf51-llama31-8b-{row}" for row in
         ("b200-8", "b200-16", "b200-32", "b200-64", "b200-64-oci", "b200-128", "b200-256",
          "gb200-72", "gb300-72", "gb200-512", "gb300-512")]
SEQ, HIDDEN, KV_HEADS, HEAD_DIM, LAYERS = 8192, 4096, 8, 128, 32  # Llama 3.1 8B at the runs' sequence
ATTENTION_FLOPS = 1.1e15
DP_WITH_B = 0.006


def seconds(out, label):
    return float(re.search(label + r"\s+([\d.]+) ms", out).group(1)) / 1e3


def cp_exposed(cp, tp, cta_rate):
    if cp == 1:
        return 0.0
    fwd_attention = 2 * SEQ * SEQ * HIDDEN / (cp * tp) / ATTENTION_FLOPS  # causal, per layer per GPU
    bwd_attention = 2.5 * fwd_attention
    block = (SEQ / cp) * (KV_HEADS / tp) * HEAD_DIM * 2 * 2  # K and V, 2 bytes
    fwd = (cp - 1) * max(0.0, block / cta_rate - fwd_attention / cp)
    bwd = (cp - 1) * max(0.0, 2 * block / cta_rate - bwd_attention / cp)
    return LAYERS * (fwd + bwd)


for rate in (20e9, 40e9, 80e9):
    print(f"cp ring at {rate / 1e9:.0f} GB/s a peer")
    for stem in STEMS:
        with open(f"validation/{stem}.yaml") as f:
            case = yaml.safe_load(f)
        published = case["expected"]["value"]
        cp, tp = case["parallelism"].get("cp", 1), case["parallelism"].get("tp", 1)
        out = subprocess.run(["./build/anatomy", "run", f"validation/{stem}.yaml"],
                             capture_output=True, text=True, check=True).stdout
        step, dp = seconds(out, "iteration time"), seconds(out, "exposed DP comm")
        model = step - dp + min(dp, DP_WITH_B) + cp_exposed(cp, tp, rate)
        print(f"  {stem[19:]:>16}  published {published * 1e3:6.1f}  anatomy {step * 1e3:6.1f} "
              f"({(step / published - 1) * 100:+5.1f}%)  B + ring {model * 1e3:6.1f} "
              f"({(model / published - 1) * 100:+5.1f}%)")
