#!/usr/bin/env python3
"""Times single GPU kernels back to back with CUDA events, to check how a calibration table was measured.

  python3 tools/kernel_probe.py --out kernels.json

A kernel timed between two host synchronizations (as the H200 table's
first rows were) carries the launch and synchronization latency of the
machine it ran on, and one timed on a cool part runs at a clock a training
run does not hold. This probe times `reps` calls queued back to back
between two CUDA events (the host stays ahead; each call's figure is the
mean), for:

  gemm       bf16 A @ B at the power-of-two shapes near small and mid-size
             models' projections, both ways: back to back, and one call
             between host synchronizations as the calibration probe does
  attention  causal SDPA forward, and backward alone (autograd.grad of the
             output against a fixed gradient), with attention dropout 0 and
             0.1, over sequence, heads and head_dim
  sustained  an 8192^3 bf16 GEMM repeated for `--sustain` seconds: the rate
             in each second and the SM clock and power nvidia-smi reads, so
             a short burst's rate can be told from a sustained one

With --attention-grid TABLE it times instead every attention shape of that
calibration table (dropout 0), forward and backward alone, once from the
state the GPU is in and once right after `--sustain` seconds of GEMMs (a
GPU at its power limit), in the table's row format (fwd_bwd_s = forward +
backward).

With --gemm-grid TABLE it times every GEMM shape of that table ("gemm_grid"
and the named "gemm" rows, bf16 and fp8) after `--sustain` seconds of GEMMs,
with a few 8192^3 GEMMs before each shape so that the part stays at its
power limit, as in a training run; each row the mean of calls queued back
to back between two CUDA events (at least 3, enough to fill 10 ms).
"""
import argparse
import json
import statistics
import subprocess
import time

import torch
import torch.nn.functional as F


def events_ms(fn, reps, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) / reps


def synced_ms(fn, reps):
    fn()
    torch.cuda.synchronize()
    s = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        s.append(time.perf_counter() - t0)
    return statistics.median(s) * 1e3


def smi():
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu", "--format=csv,noheader,nounits"],
                           capture_output=True, text=True, timeout=10)
        return r.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def attention_row(seq, heads, hd, drop=0.0):
    dev, bf = "cuda", torch.bfloat16
    q, k, v = (torch.randn(1, heads, seq, hd, device=dev, dtype=bf, requires_grad=True) for _ in range(3))
    go = torch.randn(1, heads, seq, hd, device=dev, dtype=bf)
    f = lambda: F.scaled_dot_product_attention(q, k, v, dropout_p=drop, is_causal=True)
    fwd = events_ms(f, 10)
    o = f()
    bwd = events_ms(lambda: torch.autograd.grad(o, (q, k, v), go, retain_graph=True), 10)
    return fwd, bwd


def heat(seconds):
    A = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    t_end = time.perf_counter() + seconds
    while time.perf_counter() < t_end:
        for _ in range(20):
            A @ A
        torch.cuda.synchronize()
    return smi()


def gemm_call(dtype, m, n, k):
    dev = "cuda"
    if dtype == "bf16":
        A = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        B = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
        return lambda: A @ B
    # fp8 e4m3 inputs, bf16 out, through scaled_mm (B column-major, as it requires)
    A = torch.randn(m, k, device=dev, dtype=torch.bfloat16).to(torch.float8_e4m3fn)
    B = torch.randn(n, k, device=dev, dtype=torch.bfloat16).to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device=dev)
    return lambda: torch._scaled_mm(A, B, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


def gemm_grid(table, out, sustain, path):
    with open(table) as f:
        t = json.load(f)
    out["hot_before"] = heat(sustain)
    keep = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for key in ("gemm_grid", "gemm"):
        rows = []
        for i, r in enumerate(t[key]):
            m, n, k = r["m"], r["n"], r["k"]
            fn = None
            try:
                fn = gemm_call(r["dtype"], m, n, k)
                for _ in range(4):
                    keep @ keep
                fn()
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                fn()
                torch.cuda.synchronize()
                reps = max(3, min(100, int(0.01 / max(time.perf_counter() - t0, 1e-6))))
                for _ in range(4):
                    keep @ keep
                s = events_ms(fn, reps, warm=1) * 1e-3
                rows.append(dict(r, s=s, tflops=2 * m * n * k / s / 1e12))
            except Exception as e:  # a shape that fails is kept as it was, and said
                rows.append(dict(r, error=repr(e)[:200]))
            del fn
            if i % 100 == 0:
                out.setdefault("smi", []).append(smi())
        out[key] = rows
        print(key, len(rows), "rows", sum("error" in r for r in rows), "failed", smi(), flush=True)
        with open(path, "w") as f:  # after each section, so a late failure keeps the first
            json.dump(out, f, indent=1)


def attention_grid(table, out, sustain):
    with open(table) as f:
        shapes = sorted({(r["seq"], r["heads"], r["head_dim"]) for r in json.load(f)["attention_grid"]})
    for state in ("as_found", "hot"):
        if state == "hot":
            out["hot_after"] = heat(sustain)
        rows = []
        for seq, heads, hd in shapes:
            fwd, bwd = attention_row(seq, heads, hd)
            flops = 4 * seq * seq * heads * hd * 0.5
            rows.append({"seq": seq, "heads": heads, "head_dim": hd, "causal": True, "fwd_s": fwd * 1e-3,
                         "fwd_bwd_s": (fwd + bwd) * 1e-3, "fwd_tflops": flops / fwd / 1e9,
                         "fwd_bwd_tflops": 3.5 * flops / (fwd + bwd) / 1e9})
        out["attention_grid_" + state] = rows
        print(state, len(rows), "rows", smi(), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--sustain", type=float, default=20.0)
    p.add_argument("--attention-grid", default="", help="a calibration table whose attention shapes to time")
    p.add_argument("--gemm-grid", default="", help="a calibration table whose GEMM shapes to time, hot")
    a = p.parse_args()
    dev, bf = "cuda", torch.bfloat16
    out = {"meta": {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "cuda": torch.version.cuda,
                    "measured": time.strftime("%Y-%m-%d", time.gmtime())}}
    if a.gemm_grid:
        gemm_grid(a.gemm_grid, out, a.sustain, a.out)
        return
    if a.attention_grid:
        attention_grid(a.attention_grid, out, a.sustain)
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)
        return

    gemm = []
    dims = [2048, 4096, 8192, 16384]
    for m in dims:
        for n in dims + [32768, 131072]:
            for k in dims:
                flop = 2 * m * n * k
                if flop > 2.5e13:
                    continue
                A = torch.randn(m, k, device=dev, dtype=bf)
                B = torch.randn(k, n, device=dev, dtype=bf)
                reps = max(5, min(50, int(2e13 / flop)))
                e = events_ms(lambda: A @ B, reps)
                s = synced_ms(lambda: A @ B, 5)
                gemm.append({"m": m, "n": n, "k": k, "events_ms": e, "synced_ms": s,
                             "events_tflops": flop / e / 1e9, "synced_tflops": flop / s / 1e9})
                del A, B
    out["gemm"] = gemm
    print("gemm rows", len(gemm), flush=True)

    attn = []
    for seq in (2048, 4096, 8192):
        for heads in (16, 32, 64):
            for hd in (64, 128):
                row = {"seq": seq, "heads": heads, "head_dim": hd}
                for drop, tag in ((0.0, "nodrop"), (0.1, "drop")):
                    row[tag + "_fwd_ms"], row[tag + "_bwd_ms"] = attention_row(seq, heads, hd, drop)
                attn.append(row)
    out["attention"] = attn
    print("attention rows", len(attn), flush=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)

    A = torch.randn(8192, 8192, device=dev, dtype=bf)
    B = torch.randn(8192, 8192, device=dev, dtype=bf)
    sustained = []
    t_end = time.perf_counter() + a.sustain
    while time.perf_counter() < t_end:
        t0 = time.perf_counter()
        n = 0
        while time.perf_counter() - t0 < 1.0:
            for _ in range(20):
                A @ B
            torch.cuda.synchronize()
            n += 20
        dt = time.perf_counter() - t0
        sustained.append({"tflops": 2 * 8192 ** 3 * n / dt / 1e12, "smi": smi()})
    out["sustained_8192"] = sustained
    print("sustained", [round(r["tflops"]) for r in sustained], sustained[-1]["smi"], flush=True)
    with open(a.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
