#!/usr/bin/env python3
"""The BF16 "attention" rows of data/calibration/gb200.json, b200.json and b300.json.

Source: NVIDIA/cudnn-frontend, benchmark/sdpa_benchmark_training/results/
  gb200_919_only_cudnn/dsv3_20260226_174854.csv (commit afa9f7c0, 'NVIDIA GB200')
  gb300_919_only_cudnn/dsv3_20260226_185831.csv (commit df73764a, 'NVIDIA GB300')
cuDNN 9.19 SDPA (frontend 1.19.0, backend 91901), the fused attention Transformer
Engine runs on Blackwell, timed by NVIDIA's own harness (benchmark_single_sdpa.py):
DeepSeek-V3's MLA shape, batch 1, 128 query and 128 key-value heads, Q and K 192
wide, V 128, causal (top_left), deterministic backward, 10 iterations; only the
bfloat16 rows are used here (their fp8 rows set "attention_fp8" already).

anatomy keys flash attention on (seq, batch x heads, head_dim) and counts a
backward as 2.5 forwards. An MLA forward multiplies Q K^T over 192 and P V over
128, 2 x 320 FLOPs a score element, those of a kernel of width (192 + 128) / 2 =
160 (the harness agrees: 1,776 TFLOP/s in 1.548 ms at 8,192 tokens on the GB300
is 4 x 8192^2 x 128 x 160 / 2 FLOPs). Its backward does not scale alike: it
recomputes Q K^T and forms dQ and dK over 192, dV and dP over 128, 2 x (3 x 192 +
2 x 128) = 1,664 FLOPs a score element, 2.6 forwards (the harness's bwd_tflops
count that: 2.6 x 2.749 TFLOP / 5.728 ms = 1,248), where a width-160 kernel's is
2 x 5 x 160 = 1,600. So each row is written at head_dim 160 with the backward the
width-160 kernel would take at the same rate, bwd x 1,600 / 1,664: fwd_s is the
forward time, fwd_bwd_s that plus the scaled backward. The rows' backward is
cuDNN's deterministic one, which may be slower than the default a training run
uses.

These rows are not the Llama 3.1 rows of the same harness that validation group
K2 compares anatomy's BF16 attention with (64 query and 8 key-value heads of 128):
the shortfall they set is carried to those shapes by the roofline, so K2 stays a
test of that carrying.

  python3 docs/research/cudnn_mla_attention_rows.py gb200   # prints the JSON rows
"""
import json
import sys

# FLOPs a causal score element costs the backward: MLA's (Q and K 192 wide, V 128) and a width-160 kernel's.
MLA_BWD_FLOPS = 2 * (3 * 192 + 2 * 128)
WIDTH_160_BWD_FLOPS = 2 * 5 * 160

# seq, fwd_time_ms, bwd_time_ms, fwd_tflops, bwd_tflops: the csv's bfloat16 top_left rows.
ROWS = {
    "gb200": [
        (2048, 0.161, 0.508, 1065.0, 880.0),
        (4096, 0.509, 1.613, 1350.0, 1108.0),
        (8192, 1.800, 5.728, 1527.0, 1248.0),
        (16384, 6.318, 21.715, 1740.0, 1317.0),
        (32768, 24.232, 88.716, 1815.0, 1289.0),
    ],
    "gb300": [
        (2048, 0.148, 0.490, 1165.0, 912.0),
        (4096, 0.454, 1.544, 1515.0, 1158.0),
        (8192, 1.548, 5.432, 1776.0, 1316.0),
        (16384, 5.644, 20.522, 1948.0, 1393.0),
        (32768, 21.483, 81.498, 2047.0, 1403.0),
    ],
}


def rows(part):
    out = []
    for seq, fwd_ms, bwd_ms, fwd_tf, bwd_tf in ROWS[part]:
        out.append({
            "seq": seq, "heads": 128, "head_dim": 160, "causal": True,
            "fwd_s": round(fwd_ms / 1e3, 9),
            "fwd_bwd_s": round((fwd_ms + bwd_ms * WIDTH_160_BWD_FLOPS / MLA_BWD_FLOPS) / 1e3, 9),
            "q_heads": 128, "kv_heads": 128, "head_dim_qk": 192, "head_dim_vo": 128,
            "fwd_tflops": fwd_tf, "bwd_tflops": bwd_tf, "deterministic_bwd": True,
        })
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in ROWS:
        sys.exit("usage: cudnn_mla_attention_rows.py gb200|gb300")
    print(json.dumps(rows(sys.argv[1]), indent=1))
