#!/usr/bin/env python3
"""The "attention" rows of data/calibration/mi300x.json and mi355x.json.

Source: ROCm/aiter, op_tests/cpp/mha/README.md (added by PR #1270,
2025-10-28; the version read is commit 0403bcdfd0b507e0459012b82e00785a818f774a),
"the asm kernel performance of the attention forwards and attention
backwards": the hand-written fwd_v3 / bwd_v3 kernels, BF16, BSHD, batch mode,
head_dim 128, seqlen_q = seqlen_kv, MI300X and MI355X side by side. These
are the kernels Transformer Engine on ROCm runs with NVTE_FUSED_ATTN_CK=1,
NVTE_CK_USES_FWD_V3=1 and NVTE_CK_USES_BWD_V3=1, and BWD-a16 is the one
NVTE_CK_IS_V3_ATOMIC_FP32=0 selects (every AMD MLPerf Training v5.1 config
sets all four). Only the causal rows are kept: a training step's attention
is causal. The README's causal figures count FlashAttention's FLOPs (half
the full count): aiter PR #815 prints 2,105 TFLOP/s for the causal a16
backward of b 8, 64/8 heads, seq 8192 on MI355X in 20.893 ms, which is
1,052.6 at half the count, against this table's 1,067.89.

Each row becomes one anatomy row at batch 1 with heads = batch x q_heads
(the model keys flash attention on batch x heads): fwd_s from the forward
rate, fwd_bwd_s adding the backward's 2.5x FLOPs at the BWD-a16 rate.

  python3 docs/research/aiter_attention_rows.py mi300x   # prints the JSON rows
"""
import json
import sys

# batch, q_heads, kv_heads, seq, FWD MI300X, FWD MI355X, BWD-a16 MI300X, BWD-a16 MI355X (TFLOP/s), causal rows.
ROWS = [
    (1, 32, 8, 1024, 130.62, 233.12, 177.565, 211.91),
    (1, 32, 8, 2048, 255.105, 577.28, 317.3, 506.615),
    (1, 32, 8, 4096, 467.805, 949.325, 317.685, 922.385),
    (1, 32, 8, 8192, 522.68, 1247.73, 436.13, 1062.76),
    (1, 32, 8, 10240, 440.12, 1200.645, 513.85, 1002.585),
    (4, 32, 8, 1024, 334.005, 720.995, 257.115, 547.555),
    (4, 32, 8, 2048, 419.435, 809.835, 377.51, 783.305),
    (4, 32, 8, 4096, 486.73, 1130.115, 464.83, 957.41),
    (4, 32, 8, 8192, 547.09, 1318.92, 468.205, 1069.935),
    (4, 32, 8, 10240, 527.705, 1342.995, 474.205, 1088.865),
    (8, 32, 8, 1024, 311.385, 623.93, 301.495, 545.225),
    (8, 32, 8, 2048, 412.99, 894.45, 374.255, 806.96),
    (8, 32, 8, 4096, 513.1, 1166.875, 454.36, 967.905),
    (8, 32, 8, 8192, 537.36, 1316.805, 491.78, 1066.705),
    (8, 32, 8, 10240, 556.045, 1334.865, 495.15, 1087.61),
    (1, 64, 8, 1024, 228.54, 432.565, 283.58, 386.805),
    (1, 64, 8, 2048, 392.425, 936.435, 279.72, 725.61),
    (1, 64, 8, 4096, 474.385, 1046.085, 420.265, 941.16),
    (1, 64, 8, 8192, 518.29, 1300.105, 481.895, 1064.56),
    (1, 64, 8, 10240, 510.895, 1338.005, 501.055, 1092.475),
    (4, 64, 8, 1024, 326.51, 638.705, 311.005, 571.615),
    (4, 64, 8, 2048, 425.735, 899.845, 377.225, 796.81),
    (4, 64, 8, 4096, 513.79, 1174.92, 449.0, 971.395),
    (4, 64, 8, 8192, 540.515, 1319.225, 482.505, 1067.805),
    (4, 64, 8, 10240, 557.475, 1337.965, 493.745, 1090.925),
    (8, 64, 8, 1024, 321.865, 626.57, 324.22, 576.345),
    (8, 64, 8, 2048, 452.03, 963.165, 382.1, 817.49),
    (8, 64, 8, 4096, 509.255, 1190.295, 457.05, 972.25),
    (8, 64, 8, 8192, 550.67, 1311.955, 474.02, 1067.89),
    (8, 64, 8, 10240, 547.05, 1313.695, 489.075, 1084.75),
    (1, 64, 4, 1024, 229.09, 421.615, 265.11, 385.735),
    (1, 64, 4, 2048, 407.525, 949.635, 277.86, 725.085),
    (1, 64, 4, 4096, 476.26, 1058.9, 418.73, 937.725),
    (1, 64, 4, 8192, 519.32, 1318.15, 480.06, 1062.725),
    (1, 64, 4, 10240, 515.275, 1348.155, 499.72, 1087.905),
    (4, 64, 4, 1024, 314.82, 661.045, 324.22, 580.0),
    (4, 64, 4, 2048, 426.77, 896.095, 374.96, 813.51),
    (4, 64, 4, 4096, 524.585, 1182.87, 453.97, 968.96),
    (4, 64, 4, 8192, 540.935, 1324.275, 478.735, 1067.48),
    (4, 64, 4, 10240, 560.63, 1346.46, 491.435, 1091.17),
    (8, 64, 4, 1024, 348.76, 663.48, 315.035, 589.73),
    (8, 64, 4, 2048, 461.89, 983.355, 400.31, 823.795),
    (8, 64, 4, 4096, 513.795, 1196.675, 456.415, 976.635),
    (8, 64, 4, 8192, 552.78, 1318.92, 473.41, 1065.225),
    (8, 64, 4, 10240, 548.65, 1313.945, 488.145, 1087.4),
    (1, 64, 8, 16384, 541.55, 1392.485, 458.075, 1162.805),
    (1, 64, 4, 16384, 544.1, 1398.14, 458.065, 1131.305),
]

HEAD_DIM = 128


def rows(part):
    col = {"mi300x": (4, 6), "mi355x": (5, 7)}[part]
    out = []
    for r in ROWS:
        b, h, hkv, s = r[:4]
        fwd_tflops, bwd_tflops = r[col[0]], r[col[1]]
        flops_fwd = 4 * b * h * s * s * HEAD_DIM / 2  # causal: half the full count
        fwd_s = flops_fwd / (fwd_tflops * 1e12)
        bwd_s = 2.5 * flops_fwd / (bwd_tflops * 1e12)
        out.append({"seq": s, "heads": b * h, "head_dim": HEAD_DIM, "causal": True, "fwd_s": fwd_s,
                    "fwd_bwd_s": fwd_s + bwd_s, "batch": b, "q_heads": h, "kv_heads": hkv,
                    "fwd_tflops": fwd_tflops, "bwd_a16_tflops": bwd_tflops})
    return out


if __name__ == "__main__":
    print(json.dumps(rows(sys.argv[1] if len(sys.argv) > 1 else "mi300x"), indent=1))
