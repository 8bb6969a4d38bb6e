#!/usr/bin/env python3
"""anatomy's side of docs/research/te-gemm-profiling.md: the twelve GEMMs of one
layer of TE's GEMM profiling guide (hidden 4096, intermediate 16384, 15,872
tokens), each timed as a te.Linear forward: anatomy's GEMM (`anatomy run` of a
kernel case) plus, under autocast, the casts of its input and weight at the
memory rate anatomy uses. Data gradients are taken equal to the forward.

  python3 docs/research/te_gemm_profiling.py [path/to/anatomy]
"""
import os, re, subprocess, sys, tempfile

ANATOMY = sys.argv[1] if len(sys.argv) > 1 else "build/anatomy"
H200_RW = 4265.5e9  # data/calibration/h200.json memory.elementwise_inplace_GBps_rw
LAUNCH_MS = 0.004   # no kernel ends before its launch does (compute_model.cc)
FPROP = [(15872, 4096, 12288), (15872, 4096, 4096), (15872, 4096, 16384), (15872, 16384, 4096)]  # M, K, N
WGRAD = [(4096, 15872, 12288), (4096, 15872, 4096), (4096, 15872, 16384), (16384, 15872, 4096)]


def gemm_ms(system, m, k, n, prec, block=False):
    extra = ", scaling: block" if block else ""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(f"name: k\ncluster: {{system: {system}, gpus: 8}}\n"
                f"kernel: {{op: gemm, m: {m}, n: {n}, k: {k}, precision: {prec}{extra}}}\n")
    out = subprocess.run([ANATOMY, "run", f.name], capture_output=True, text=True, check=True).stdout
    os.unlink(f.name)
    v, unit = re.search(r"^time\s+([\d.]+) (\w+)", out, re.M).groups()
    return float(v) / 1000 if unit == "us" else float(v)


def cast_ms(values, bytes_per_value, rate):
    return max(values * bytes_per_value / rate * 1e3, LAUNCH_MS)


# recipe -> (GEMM precision, block-scaled, bytes a cast reads and writes per value, extra amax pass)
HOPPER = {"bf16": ("bf16", False, 0, False), "current": ("fp8", False, 4, True),
          "delayed": ("fp8", False, 4, False), "block": ("fp8", True, 4, False)}
BLACKWELL = {"bf16": ("bf16", False, 0, False), "mxfp8": ("fp8", False, 4, False),
             "nvfp4": ("fp4", False, 2 + 2 * 2.5, False)}


def layer(system, recipes, rate, autocast):
    for name, (prec, block, cast_bytes, amax) in recipes.items():
        def call(m, k, n):
            t = gemm_ms(system, m, k, n, prec, block)
            if autocast and cast_bytes:
                for values in (m * k, k * n):  # the input and the weight
                    t += cast_ms(values, cast_bytes, rate)
                    if amax:  # current scaling: the amax pass and the scale kernel
                        t += cast_ms(values, 2, rate) + LAUNCH_MS
            return t
        f = sum(call(*s) for s in FPROP)
        w = sum(call(*s) for s in WGRAD)
        print(f"  {name:8s} forward {f:7.3f}  layer {2 * f + w:7.3f} ms")


for autocast in (True, False):
    print("H200 (SXM),", "autocast" if autocast else "pre-quantized")
    layer("dgx-h200", HOPPER, H200_RW, autocast)
    print("B300,", "autocast" if autocast else "pre-quantized")
    layer("dgx-b300", BLACKWELL, H200_RW * 8 / 4.8, autocast)
