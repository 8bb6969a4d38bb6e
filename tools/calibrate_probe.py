#!/usr/bin/env python3
"""Measures this machine's accelerator into anatomy's calibration-table format.

  /usr/bin/python3 tools/calibrate_probe.py --out table.json [--device cuda|cpu] [--quick]

The table has the keys of data/calibration/h200.json, so a scenario's
`compute: {calibration: table.json}` loads it unchanged (`anatomy calibrate`
runs this probe). Each figure follows a warm-up: on a GPU the mean of calls
queued back to back between two CUDA events (the host runs ahead, as in a
training step), on a CPU the median of timed calls:

  gemm_grid       C[m,n] = A[m,k] @ B[k,n] over powers of two (m, n, k); on a
                  GPU after --sustain seconds of GEMMs, at its power limit
  gemm            the largest square shapes of the grid again, by name
  attention_grid  causal scaled_dot_product_attention, batch 1, fwd and fwd+bwd
                  (the backward timed alone, against a fixed output gradient)
  attention_dropout  the longest sequence again, with dropout 0.1 and without,
                  forward and backward alone
  elementwise     layernorm, gelu, softmax, residual add, dropout on [tokens, hidden]
  memory          in-place element-wise and copy, bytes read plus written per second
  optimizer       AdamW step time per parameter (fp32 parameters)
  copy            host<->device copies (pinned; on a CPU: host memory copies)
  disk            sequential write with fsync to the output's folder

On a GPU the GEMM and attention rows are bf16. On a CPU they are measured in
fp32 (what a CPU trains in; bf16 runs without hardware support there) and
filed under the "bf16" key the compute model reads, which the "about" text
says; the CPU's peak is then the best GEMM rate measured ("meta.peak_tflops").
"""
import argparse
import json
import math
import os
import statistics
import tempfile
import time

import torch
import torch.nn.functional as F


def timer(device):
    """On a GPU the mean of calls queued back to back between two CUDA
    events, at least `repeat` and enough to fill about 20 ms: in a training
    step the host runs ahead of the GPU, so a kernel's time is the GPU's
    alone, without the host's round trip (which is most of a short kernel's
    time when each call is synchronized). On a CPU, where nothing runs
    ahead, the median of timed calls."""
    def run(fn, repeat):
        fn()
        if device == "cuda":
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            calls = max(repeat, min(200, int(0.02 / max(time.perf_counter() - t0, 1e-6))))
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(calls):
                fn()
            end.record()
            end.synchronize()
            return start.elapsed_time(end) / 1e3 / calls
        samples = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t0)
        return statistics.median(samples)
    return run


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--device", choices=["cuda", "cpu"], default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--quick", action="store_true", help="a small grid (seconds on a CPU)")
    p.add_argument("--threads", type=int, default=1, help="CPU threads (torch.set_num_threads)")
    p.add_argument("--sustain", type=float, default=20.0, help="seconds of GEMMs before a GPU's grid (its power limit)")
    a = p.parse_args()
    dev = a.device
    if dev == "cpu":
        torch.set_num_threads(a.threads)
    gpu = dev == "cuda"
    dtype = torch.bfloat16 if gpu else torch.float32
    t = timer(dev)
    repeat = 5 if gpu else 3
    if gpu:
        powers = [256, 1024, 4096, 16384] if a.quick else [256, 512, 1024, 2048, 4096, 8192, 16384]
    else:
        powers = [64, 128, 256] if a.quick else [64, 128, 256, 512]
    # A training run holds a GPU at its power limit, and a GEMM's rate there
    # is below a cool part's burst (an H200: ~660 against ~790 TFLOP/s at
    # 8192^3): on a GPU, --sustain seconds of GEMMs first, and two more
    # before each shape.
    keep = torch.randn(8192, 8192, device=dev, dtype=dtype) if gpu else None
    def hold():
        if gpu:
            keep @ keep
            keep @ keep
    if gpu:
        t_end = time.perf_counter() + a.sustain
        while time.perf_counter() < t_end:
            hold()
            torch.cuda.synchronize()
    grid = []
    for m in powers:
        for n in powers:
            for k in powers:
                A = torch.randn(m, k, device=dev, dtype=dtype)
                B = torch.randn(k, n, device=dev, dtype=dtype)
                hold()
                s = t(lambda: A @ B, repeat)
                grid.append({"dtype": "bf16", "m": m, "n": n, "k": k, "s": s, "tflops": 2 * m * n * k / s / 1e12})
    best = max(grid, key=lambda r: r["tflops"])
    named = [dict(r, kind="square") for r in grid if r["m"] == r["n"] == r["k"]]

    attention = []
    seqs = [1024, 4096] if gpu else [64, 128]
    for seq in seqs:
        for heads in ([8, 32] if gpu else [2, 4]):
            for hd in ([64, 128] if gpu else [32, 64]):
                q, k_, v = (torch.randn(1, heads, seq, hd, device=dev, dtype=dtype, requires_grad=True) for _ in range(3))
                attn = getattr(F, "scaled_dot_product_attention", None)
                if attn is None:  # torch < 2.0: the same maths, unfused
                    mask = torch.ones(seq, seq, dtype=torch.bool, device=dev).tril()
                    def attn(q, k, v, is_causal=True, dropout_p=0.0, mask=mask):
                        w = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
                        return F.dropout(w.masked_fill(~mask, float("-inf")).softmax(-1), dropout_p) @ v
                fwd = t(lambda: attn(q, k_, v, is_causal=True), repeat)
                # The backward alone, against a fixed output gradient.
                out = attn(q, k_, v, is_causal=True)
                grad_out = torch.randn_like(out)
                bwd = t(lambda: torch.autograd.grad(out, (q, k_, v), grad_out, retain_graph=True), repeat)
                fwd_bwd = fwd + max(bwd, fwd * 0.01)
                flops = 4 * seq * seq * heads * hd * 0.5
                attention.append({"seq": seq, "heads": heads, "head_dim": hd, "causal": True, "fwd_s": fwd,
                                  "fwd_bwd_s": fwd_bwd, "fwd_tflops": flops / fwd / 1e12,
                                  "fwd_bwd_tflops": 3.5 * flops / fwd_bwd / 1e12})

    # The same kernel with dropout and without, forward and backward alone:
    # the difference is what drawing a random number per score costs (the
    # host's own latency, in both, cancels).
    attention_dropout = []
    for heads in ([16, 32] if gpu else [2, 4]):
        seq, hd = seqs[-1], (128 if gpu else 64)
        q, k_, v = (torch.randn(1, heads, seq, hd, device=dev, dtype=dtype, requires_grad=True) for _ in range(3))
        grad_out = torch.randn(1, heads, seq, hd, device=dev, dtype=dtype)
        row = {"seq": seq, "heads": heads, "head_dim": hd, "causal": True, "dropout_p": 0.1}
        for p_drop, suffix in ((0.0, "_s"), (0.1, "_dropout_s")):
            fn = lambda: attn(q, k_, v, is_causal=True, dropout_p=p_drop)
            row["fwd" + suffix] = t(fn, repeat)
            out = fn()
            row["bwd" + suffix] = t(lambda: torch.autograd.grad(out, (q, k_, v), grad_out, retain_graph=True), repeat)
        attention_dropout.append(row)

    tokens, hidden = (8192, 8192) if gpu else (512, 512)
    x = torch.randn(tokens, hidden, device=dev, dtype=dtype)
    y = torch.randn(tokens, hidden, device=dev, dtype=dtype)
    nbytes = x.numel() * x.element_size()
    ln = torch.nn.LayerNorm(hidden, device=dev, dtype=dtype)
    elementwise = []
    for op, fn, inputs in [("layernorm", lambda: ln(x), 1), ("gelu", lambda: F.gelu(x), 1),
                           ("softmax", lambda: x.softmax(-1), 1), ("residual_add", lambda: x + y, 2),
                           ("dropout", lambda: F.dropout(x, 0.1, training=True), 1)]:
        s = t(fn, repeat)
        elementwise.append({"op": op, "tokens": tokens, "hidden": hidden, "bytes_in": inputs * nbytes, "s": s,
                            "GBps_in_out": (inputs + 1) * nbytes / s / 1e9})
    inplace = t(lambda: x.mul_(1.0000001), repeat)
    copy = t(lambda: y.copy_(x), repeat)
    memory = {"elementwise_inplace_GBps_rw": 2 * nbytes / inplace / 1e9, "d2d_copy_GBps_rw": 2 * nbytes / copy / 1e9}

    params = 50_000_000 if gpu else 2_000_000
    w = torch.zeros(params, device=dev, dtype=torch.float32, requires_grad=True)
    w.grad = torch.randn_like(w)
    kwargs = {"fused": True} if gpu else {}
    try:
        opt = torch.optim.AdamW([w], lr=1e-3, **kwargs)
    except (TypeError, RuntimeError):
        opt = torch.optim.AdamW([w], lr=1e-3)
    s = t(opt.step, repeat)
    optimizer = [{"optimizer": "adamw", "params": params, "dtype": "fp32_params", "s": s, "ns_per_param": s / params * 1e9}]

    host = torch.empty(64 << 20 if gpu else 16 << 20, dtype=torch.uint8)
    if gpu:
        host = host.pin_memory()
        on_dev = torch.empty_like(host, device=dev)
        h2d = t(lambda: on_dev.copy_(host, non_blocking=True), repeat)
        d2h = t(lambda: host.copy_(on_dev, non_blocking=True), repeat)
    else:  # no device: host memory copies stand for both directions
        other = torch.empty_like(host)
        h2d = d2h = t(lambda: other.copy_(host), repeat)
    copies = {"h2d_pinned_GBps": host.numel() / h2d / 1e9, "d2h_pinned_GBps": host.numel() / d2h / 1e9}

    folder = os.path.dirname(os.path.abspath(a.out))
    block = os.urandom(1 << 20)
    size = (256 << 20) if not a.quick else (32 << 20)
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".calibrate-disk-") as f:
        t0 = time.perf_counter()
        for _ in range(size >> 20):
            f.write(block)
        f.flush()
        os.fsync(f.fileno())
        disk_s = time.perf_counter() - t0
    disk = {"seq_write_fsync_GBps": size / disk_s / 1e9, "bytes": size}

    name = torch.cuda.get_device_name() if gpu else "CPU ({} thread{})".format(a.threads, "s" if a.threads > 1 else "")
    meta = {"name": name, "device": dev, "torch": torch.__version__, "peak_tflops": best["tflops"],
            "measured": time.strftime("%Y-%m-%d", time.gmtime())}
    if gpu:
        props = torch.cuda.get_device_properties(0)
        meta.update({"sms": props.multi_processor_count, "mem_gib": props.total_memory / 2**30, "cuda": torch.version.cuda})
    about = ("Measured by anatomy calibrate (tools/calibrate_probe.py) on {} with PyTorch {}. gemm_grid: C[m,n]=A[m,k]@B[k,n] "
             "over m,n,k in {}, {}; {}{}. attention_grid: causal attention, batch 1, "
             "fwd and fwd+bwd, the backward timed alone (fwd_tflops counts causal FLOPs, half of full). attention_dropout: the same kernel with dropout 0.1 "
             "and without, fwd and bwd alone. elementwise, memory: bytes read plus written. "
             "optimizer: AdamW step per fp32 parameter. copy: {}. disk: sequential write with fsync in the output's folder."
             ).format(name, torch.__version__, powers,
                      "bf16" if gpu else "fp32 filed under the bf16 key (the CPU's own training dtype; its peak is the best rate measured, meta.peak_tflops)",
                      "the mean of calls queued back to back between two CUDA events after a warm-up" if gpu else "the median of timed calls after a warm-up",
                      ", after {:g} s of GEMMs (the part at its power limit, as in training)".format(a.sustain) if gpu else "",
                      "host<->device over pinned memory" if gpu else "host memory copies (no device)")
    table = {"meta": meta, "about": about, "gemm": named, "gemm_grid": grid, "attention_grid": attention,
             "attention_dropout": attention_dropout,
             "elementwise": elementwise, "memory": memory, "optimizer": optimizer, "copy": copies, "disk": disk}
    with open(a.out, "w") as f:
        json.dump(table, f, indent=1)
    print("calibrated {}: best GEMM {:.3g} TFLOP/s ({}x{}x{}), memory {:.3g} GB/s, AdamW {:.3g} ns/param, disk {:.3g} GB/s -> {}".format(
        name, best["tflops"], best["m"], best["n"], best["k"], memory["elementwise_inplace_GBps_rw"],
        optimizer[0]["ns_per_param"], disk["seq_write_fsync_GBps"], a.out))


if __name__ == "__main__":
    main()
