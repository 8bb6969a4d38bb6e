#!/usr/bin/env python3
"""Times whole training steps of small GPT and Llama models on one GPU, to check anatomy's compute model.

  python3 tools/step_probe.py --out steps.json [--quick] [--only NAME]

Each model is written in plain PyTorch with the kernels anatomy's compute
model assumes (fused LayerNorm, SDPA flash attention, fp32 cross-entropy,
fused AdamW over bf16 parameters, i.e. `training.master_weights: false`).
For each model it records, each figure the median of timed steps after a
warm-up:

  step         forward (with the loss), backward and optimizer wall times,
               each phase synchronized, the host free to run ahead inside it
  kernels      the profiler's GPU time per kernel class (gemm, attention,
               elementwise, optimizer) and kernel counts, per phase
  graph        forward + backward captured in one CUDA graph and replayed:
               the GPU's own time with no host in the way
  host         the same model at a tiny sequence (64 tokens): what issuing the
               phase costs the host when the GPU has almost nothing to do
  gemm_layouts each GEMM of the model's layer in the layout autograd runs it
               (forward X W^T, weight gradient dY^T X) beside the plain
               A @ B of the same m, n, k that anatomy's calibration grid
               measures; the input gradient dY W is already that plain form

The host's processor is written into the output, since host figures scale
with it.
"""
import argparse
import json
import math
import platform
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

CONFIGS = {
    # Megatron-Core GPT presets of anatomy (src/workload/model.cc megatron_gpt):
    # LayerNorm with bias, GeLU MLP of 4h, learned positions, dropout 0.1.
    "mcore-1.7b": dict(kind="gpt", layers=24, hidden=2048, heads=16, kv=16, ffn=8192, vocab=131072, seq=4096),
    "mcore-7.1b": dict(kind="gpt", layers=30, hidden=4096, heads=32, kv=32, ffn=16384, vocab=131072, seq=4096),
    # Llama 3 8B's layer (RMSNorm, SwiGLU, GQA, rotary, no dropout), 16 of its
    # 32 layers so that bf16 weights, moments and activations fit.
    "llama3-8b-16l": dict(kind="llama", layers=16, hidden=4096, heads=32, kv=8, ffn=14336, vocab=128256, seq=8192),
}
QUICK = {
    "tiny-gpt": dict(kind="gpt", layers=2, hidden=64, heads=4, kv=4, ffn=256, vocab=512, seq=32),
    "tiny-llama": dict(kind="llama", layers=2, hidden=64, heads=4, kv=2, ffn=128, vocab=512, seq=32),
}


def attention(q, k, v, dropout):
    if hasattr(F, "scaled_dot_product_attention"):
        if k.shape[1] != q.shape[1]:
            rep = q.shape[1] // k.shape[1]
            k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout, is_causal=True)
    if k.shape[1] != q.shape[1]:  # torch < 2.0 (the CPU check): the same maths, unfused
        rep = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1)
    s = q.shape[2]
    w = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    mask = torch.ones(s, s, dtype=torch.bool, device=q.device).tril()
    return F.dropout(w.masked_fill(~mask, float("-inf")).softmax(-1), dropout) @ v


def rms_norm(x, w):
    if hasattr(F, "rms_norm"):
        return F.rms_norm(x, (x.shape[-1],), w)
    return x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5).to(x.dtype) * w


class Layer(torch.nn.Module):
    def __init__(self, c, dev, dtype):
        super().__init__()
        h, hd = c["hidden"], c["hidden"] // c["heads"]
        self.c, self.hd = c, hd
        gpt = c["kind"] == "gpt"
        mk = lambda i, o: torch.nn.Linear(i, o, bias=gpt, device=dev, dtype=dtype)
        self.qkv = mk(h, (c["heads"] + 2 * c["kv"]) * hd)
        self.proj = mk(c["heads"] * hd, h)
        self.up = mk(h, c["ffn"] * (1 if gpt else 2))
        self.down = mk(c["ffn"], h)
        if gpt:
            self.n1 = torch.nn.LayerNorm(h, device=dev, dtype=dtype)
            self.n2 = torch.nn.LayerNorm(h, device=dev, dtype=dtype)
        else:
            self.w1 = torch.nn.Parameter(torch.ones(h, device=dev, dtype=dtype))
            self.w2 = torch.nn.Parameter(torch.ones(h, device=dev, dtype=dtype))
        self.drop = 0.1 if gpt else 0.0

    def norm(self, i, x):
        if self.c["kind"] == "gpt":
            return (self.n1 if i == 1 else self.n2)(x)
        return rms_norm(x, self.w1 if i == 1 else self.w2)

    def forward(self, x, rope):
        b, s, h = x.shape
        c, hd = self.c, self.hd
        qkv = self.qkv(self.norm(1, x))
        q, k, v = qkv.split([c["heads"] * hd, c["kv"] * hd, c["kv"] * hd], -1)
        q = q.view(b, s, c["heads"], hd).transpose(1, 2)
        k = k.view(b, s, c["kv"], hd).transpose(1, 2)
        v = v.view(b, s, c["kv"], hd).transpose(1, 2)
        if rope is not None:
            cos, sin = rope
            rot = lambda t: torch.cat((-t[..., hd // 2:], t[..., :hd // 2]), -1)
            q, k = q * cos + rot(q) * sin, k * cos + rot(k) * sin
        a = attention(q, k, v, self.drop if self.training else 0.0)
        a = self.proj(a.transpose(1, 2).reshape(b, s, c["heads"] * hd))
        x = x + F.dropout(a, self.drop, self.training)
        u = self.up(self.norm(2, x))
        if c["kind"] == "gpt":
            u = F.gelu(u, approximate="tanh")
        else:
            g, up = u.chunk(2, -1)
            u = F.silu(g) * up
        return x + F.dropout(self.down(u), self.drop, self.training)


class Model(torch.nn.Module):
    def __init__(self, c, dev, dtype):
        super().__init__()
        self.c = c
        h = c["hidden"]
        self.emb = torch.nn.Embedding(c["vocab"], h, device=dev, dtype=dtype)
        self.pos = torch.nn.Embedding(c["seq"], h, device=dev, dtype=dtype) if c["kind"] == "gpt" else None
        self.layers = torch.nn.ModuleList(Layer(c, dev, dtype) for _ in range(c["layers"]))
        self.out = torch.nn.Linear(h, c["vocab"], bias=False, device=dev, dtype=dtype)
        if c["kind"] == "gpt":
            self.final = torch.nn.LayerNorm(h, device=dev, dtype=dtype)
        else:
            self.final_w = torch.nn.Parameter(torch.ones(h, device=dev, dtype=dtype))

    def forward(self, tokens, labels):
        s = tokens.shape[1]
        x = self.emb(tokens)
        rope = None
        if self.pos is not None:
            x = F.dropout(x + self.pos.weight[:s], 0.1, self.training)
        else:
            hd = self.c["hidden"] // self.c["heads"]
            inv = 1.0 / (500000.0 ** (torch.arange(0, hd, 2, device=x.device).float() / hd))
            ang = torch.outer(torch.arange(s, device=x.device).float(), inv)
            ang = torch.cat((ang, ang), -1)
            rope = (ang.cos().to(x.dtype), ang.sin().to(x.dtype))
        for layer in self.layers:
            x = layer(x, rope)
        x = self.final(x) if self.pos is not None else rms_norm(x, self.final_w)
        logits = self.out(x).float()  # Megatron's cross-entropy runs in fp32
        return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1))


def classify(name):
    n = name.lower()
    if "flash" in n or "fmha" in n or "attention" in n or "sdpa" in n:
        return "attention"
    if "adam" in n:
        return "optimizer"
    if any(t in n for t in ("gemm", "xmma", "cutlass", "nvjet", "cublas", "matmul", "sm90_", "sm80_", "splitk")):
        return "gemm"
    return "elementwise"


def profile_phase(fn, gpu):
    if not gpu:
        fn()
        return {}
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    out = {}
    for e in prof.events():
        dt = getattr(e, "device_type", None)
        if dt is None or "CUDA" not in str(dt):
            continue
        us = e.time_range.elapsed_us()
        cls = classify(e.name)
        r = out.setdefault(cls, {"ms": 0.0, "kernels": 0})
        r["ms"] += us / 1e3
        r["kernels"] += 1
    return out


def run_model(name, c, dev, repeat, warm, graph=False):
    gpu = dev == "cuda"
    dtype = torch.bfloat16 if gpu else torch.float32
    torch.manual_seed(0)
    m = Model(c, dev, dtype)
    for p in m.parameters():
        p.grad = torch.zeros_like(p)  # gradient buffers held across steps, as Megatron holds them
    kwargs = {"fused": True} if gpu else {}
    opt = torch.optim.AdamW(m.parameters(), lr=1e-5, **kwargs)
    params = sum(p.numel() for p in m.parameters())
    tokens = torch.randint(0, c["vocab"], (1, c["seq"]), device=dev)
    labels = torch.randint(0, c["vocab"], (1, c["seq"]), device=dev)

    def sync():
        if gpu:
            torch.cuda.synchronize()

    state = {}

    def fwd():
        state["loss"] = m(tokens, labels)

    def bwd():
        state["loss"].backward()

    def step():
        opt.step()

    res = {"config": c, "params": params}
    if not graph:
        times = {"fwd": [], "bwd": [], "opt": []}
        for i in range(warm + repeat):
            for key, fn in (("fwd", fwd), ("bwd", bwd), ("opt", step)):
                sync()
                t0 = time.perf_counter()
                fn()
                sync()
                if i >= warm:
                    times[key].append(time.perf_counter() - t0)
        res["step_ms"] = {k: statistics.median(v) * 1e3 for k, v in times.items()}
        res["kernels"] = {"fwd": profile_phase(fwd, gpu), "bwd": profile_phase(bwd, gpu), "opt": profile_phase(step, gpu)}
        print(name, "step ms", {k: round(v, 3) for k, v in res["step_ms"].items()}, flush=True)

    if graph and gpu:
        # Warm-up on a side stream with no autograd graph left alive, as CUDA
        # graph capture needs; a failed capture spoils the process's random
        # state, so main() runs this part in a process of its own.
        state.clear()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fwd()
                bwd()
                state.clear()
        torch.cuda.current_stream().wait_stream(side)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            fwd()
            bwd()
        samples = []
        for i in range(warm + repeat):
            sync()
            t0 = time.perf_counter()
            g.replay()
            sync()
            if i >= warm:
                samples.append(time.perf_counter() - t0)
        res["graph_fwd_bwd_ms"] = statistics.median(samples) * 1e3
        print(name, "graph", res["graph_fwd_bwd_ms"], flush=True)

    del opt, m, state
    if gpu:
        torch.cuda.empty_cache()
    return res


def host_cost(name, c, dev, repeat, warm):
    """The same model at 64 tokens: the GPU has little to do, so each phase's
    wall time is what issuing it costs the host."""
    small = dict(c, seq=64, vocab=min(c["vocab"], 4096))
    r = run_model(name + "@64", small, dev, repeat, warm)
    return {"step_ms": r["step_ms"], "kernels": r["kernels"]}


def gemm_layouts(c, dev, repeat):
    gpu = dev == "cuda"
    dtype = torch.bfloat16 if gpu else torch.float32
    h, hd, T = c["hidden"], c["hidden"] // c["heads"], c["seq"]
    shapes = {"qkv": ((c["heads"] + 2 * c["kv"]) * hd, h), "proj": (h, c["heads"] * hd),
              "up": (c["ffn"] * (1 if c["kind"] == "gpt" else 2), h), "down": (h, c["ffn"]), "out": (c["vocab"], h)}

    def t(fn):
        fn()
        if gpu:
            torch.cuda.synchronize()
        s = []
        for _ in range(repeat):
            if gpu:
                torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            if gpu:
                torch.cuda.synchronize()
            s.append(time.perf_counter() - t0)
        return statistics.median(s) * 1e3

    rows = []
    for kind, (o, i) in shapes.items():
        X = torch.randn(T, i, device=dev, dtype=dtype)
        W = torch.randn(o, i, device=dev, dtype=dtype)
        dY = torch.randn(T, o, device=dev, dtype=dtype)
        A = torch.randn(T, i, device=dev, dtype=dtype)
        Bf = torch.randn(i, o, device=dev, dtype=dtype)
        Aw = torch.randn(i, T, device=dev, dtype=dtype)
        Bw = torch.randn(T, o, device=dev, dtype=dtype)
        row = {"kind": kind, "tokens": T, "in": i, "out": o,
               "fwd_linear_ms": t(lambda: F.linear(X, W)), "fwd_nn_ms": t(lambda: A @ Bf),
               "dgrad_ms": t(lambda: dY @ W),  # already A @ B: W is [out, in]
               "wgrad_ms": t(lambda: dY.t() @ X), "wgrad_nn_ms": t(lambda: Aw @ Bw)}
        rows.append(row)
        del X, W, dY, A, Bf, Aw, Bw
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--quick", action="store_true", help="tiny models (a CPU check of the script)")
    p.add_argument("--only", default="", help="comma-separated model names")
    p.add_argument("--graph", default="", help="(internal) time one model's CUDA graph and write it to --out")
    a = p.parse_args()
    dev = "cuda" if torch.cuda.is_available() and not a.quick else "cpu"
    gpu = dev == "cuda"
    if gpu:
        torch.backends.cuda.matmul.allow_tf32 = True
    configs = QUICK if a.quick else CONFIGS
    if a.graph:
        r = run_model(a.graph, configs[a.graph], dev, 8, 3, graph=True)
        with open(a.out, "w") as f:
            json.dump({"graph_fwd_bwd_ms": r["graph_fwd_bwd_ms"]}, f)
        return
    if a.only:
        configs = {k: v for k, v in configs.items() if k in a.only.split(",")}
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    out = {"meta": {"device": torch.cuda.get_device_name() if gpu else "cpu", "torch": torch.__version__,
                    "cuda": torch.version.cuda if gpu else None, "host_cpu": cpu,
                    "measured": time.strftime("%Y-%m-%d", time.gmtime())},
           "models": {}}
    repeat, warm = (8, 3) if gpu else (2, 1)
    for name, c in configs.items():
        r = run_model(name, c, dev, repeat, warm)
        r["host"] = host_cost(name, c, dev, repeat, warm)
        r["gemm_layouts"] = gemm_layouts(c, dev, repeat)
        out["models"][name] = r
        if gpu:
            tmp = a.out + ".graph"
            try:
                subprocess.run([sys.executable, __file__, "--graph", name, "--out", tmp], check=True, timeout=240)
                with open(tmp) as f:
                    r.update(json.load(f))
            except (subprocess.SubprocessError, OSError, ValueError) as e:
                r["graph_error"] = repr(e)[:300]
        with open(a.out, "w") as f:  # after every model, so a late failure keeps the rest
            json.dump(out, f, indent=1)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
