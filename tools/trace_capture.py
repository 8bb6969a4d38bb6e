#!/usr/bin/env python3
"""Runs a real data-parallel training job and captures what anatomy replays.

A small GPT-style decoder (token and position embeddings, pre-norm blocks of
causal self-attention and an MLP, a tied output head) trains with
torch.distributed's gloo backend on the CPU, DistributedDataParallel over
--ranks processes on this machine, AdamW. Each process:

  1. runs --warmup steps, then one step under the execution-trace observer
     (et_rank<R>.json: torch 1.13's ExecutionGraphObserver, or the newer
     ExecutionTraceObserver; anatomy reads both schemas);
  2. runs --profiled steps under the PyTorch profiler (Chrome-trace JSON,
     kineto_rank<R>.json; anatomy replays the median one), each between
     two timed steps that the same profiler session records unmarked. The
     median of the timed steps (wall clock, the slowest rank's, one
     barrier-aligned step after another) is what the job itself measured:
     measured.json, "step_s";
  3. rank 0 times gloo all-reduces of the gradients' size alone (the
     machine's collective bandwidth, as nccl-tests would measure it) and
     writes machine.yaml: a model of this host (its ranks in one scale-up
     domain at that bandwidth) that `anatomy replay` uses by default.

  /usr/bin/python3 tools/trace_capture.py --out DIR [--ranks 2] [--profiled 5]

Everything is CPU-only and single-threaded per rank (torch.set_num_threads(1)),
so a 2-core machine runs 2 ranks side by side.
"""
import argparse
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.ln2 = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d, bias=False)
        self.down = nn.Linear(4 * d, d, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        shape = (b, t, self.heads, d // self.heads)
        q, k, v = (z.view(shape).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class TinyGPT(nn.Module):
    def __init__(self, vocab, d, heads, layers, seq):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x)
        return self.ln(x) @ self.tok.weight.t()


def make_et_observer():
    prof = torch.profiler
    for name in ("ExecutionTraceObserver", "ExecutionGraphObserver", "_ExecutionGraphObserver"):
        if hasattr(prof, name):
            return getattr(prof, name)()
    return None


def worker(rank, args, port):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=args.ranks)
    model = nn.parallel.DistributedDataParallel(TinyGPT(args.vocab, args.d, args.heads, args.layers, args.seq))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, foreach=True)
    gen = torch.Generator().manual_seed(rank)

    def step():
        idx = torch.randint(0, args.vocab, (args.batch, args.seq + 1), generator=gen)
        logits = model(idx[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, args.vocab), idx[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    for _ in range(args.warmup):
        step()
    times = []

    def timed_step():
        dist.barrier()
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)

    # The execution trace gets a step of its own: the observer serializes
    # every operator as it runs, which would inflate the profiled durations.
    # It runs the same operators in the same order as the profiled steps,
    # and anatomy joins them by that order.
    et = make_et_observer()
    if et is not None:
        et.register_callback(os.path.join(args.out, f"et_rank{rank}.json"))
        dist.barrier()
        et.start()
        step()
        et.stop()
        et.unregister_callback()
    # Each profiled step sits between two timed ones: a shared machine's
    # speed drifts by half within seconds (steps of 55 and of 100 ms a few
    # seconds apart on a 2-vCPU VM), and timed steps taken in a block before
    # or after the profiled ones measured another machine than the one the
    # trace recorded. One profiler session holds them all, the timed steps
    # unmarked (anatomy replays only ProfilerStep# spans), so both sides of
    # the comparison carry the profiler's own cost. (A session per profiled
    # step, tried first, aborted a rank once in about 30 captures with
    # "free(): corrupted unsorted chunks" in torch 1.13 without kineto; one
    # session turns the profiler on and off once, as before.)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        for i in range(args.profiled):
            timed_step()
            dist.barrier()
            with torch.profiler.record_function(f"ProfilerStep#{i}"):
                step()
            timed_step()
    prof.export_chrome_trace(os.path.join(args.out, f"kineto_rank{rank}.json"))

    params = sum(p.numel() for p in model.parameters())
    busbw, latency = collective_bandwidth(params * 4, args.ranks)
    gathered = [None] * args.ranks
    dist.all_gather_object(gathered, {"rank": rank, "step_s": times})
    if rank == 0:
        per_step = [max(g["step_s"][i] for g in gathered) for i in range(len(times))]
        with open(os.path.join(args.out, "measured.json"), "w") as f:
            json.dump({"step_s": statistics.median(per_step), "steps_s": per_step, "ranks": args.ranks,
                       "parameters": params, "torch": torch.__version__, "threads_per_rank": 1,
                       "model": {k: getattr(args, k) for k in ("vocab", "d", "heads", "layers", "seq", "batch")},
                       "allreduce_busbw_GBps": busbw, "allreduce_latency_s": latency}, f, indent=1)
        write_machine(args, busbw, latency)
    dist.barrier()
    dist.destroy_process_group()
    sys.stdout.flush()
    os._exit(0)  # gloo's threads can hold a finished worker at interpreter exit


def collective_bandwidth(nbytes, ranks):
    """gloo all-reduce bus bandwidth at the gradients' size, and its latency
    (a 4-byte all-reduce); medians of a few, other rank(s) joining in."""
    big = torch.zeros(nbytes // 4)
    return _timed(big, ranks), _timed(torch.zeros(1), ranks)


def _timed(t, ranks):
    samples = []
    for _ in range(7):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(t)
        samples.append(time.perf_counter() - t0)
    s = statistics.median(samples[2:])
    if t.numel() == 1:
        return s
    return t.numel() * 4 / s * 2 * (ranks - 1) / ranks / 1e9


def write_machine(args, busbw, latency):
    # The host's compute measured by the calibration probe (one thread, as
    # each rank ran): its best GEMM rate is the "accelerator" peak, its
    # element-wise rate the memory bandwidth.
    probe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calibrate_probe.py")
    table = os.path.join(args.out, "calibration.json")
    subprocess.run([sys.executable, probe, "--out", table, "--device", "cpu", "--quick"], check=True,
                   stdout=subprocess.DEVNULL)
    with open(table) as f:
        cal = json.load(f)
    peak = cal["meta"]["peak_tflops"]
    hbm = cal["memory"]["elementwise_inplace_GBps_rw"]
    text = f"""# A model of the machine the trace was captured on (tools/trace_capture.py):
# {args.ranks} single-threaded CPU ranks on one host, their gloo all-reduce
# bus bandwidth ({busbw:.3f} GB/s at the gradients' size) and latency
# ({latency * 1e6:.0f} us) measured by the capture itself, and one core's
# compute as tools/calibrate_probe.py measured it (calibration.json).
name: this host ({args.ranks} CPU ranks, gloo)
model: llama3-8b
cluster:
  gpus: {args.ranks}
  system:
    name: cpu-host
    description: {args.ranks} CPU ranks on one host, gloo over loopback
    gpus_per_host: {args.ranks}
    nics_per_host: 1
    nic_speed: 10Gbps
    gpu:
      name: {cal['meta']['name']}
      vendor: host
      architecture: hopper
      bf16_tflops: {peak:.6g}
      hbm_capacity: 64GB
      hbm_bandwidth: {hbm:.6g}GB/s
      scaleup_bandwidth: {busbw:.6f}GB/s
      tdp_watts: 100
    scaleup: {{kind: switch, hop_latency: {max(latency / 2, 1e-6) * 1e6:.1f}us}}
compute: {{calibration: calibration.json}}
parallelism: {{tp: 1, pp: 1}}
training: {{seq_len: 2048, global_batch: {args.ranks}, micro_batch: 1}}
"""
    with open(os.path.join(args.out, "machine.yaml"), "w") as f:
        f.write(text)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--profiled", type=int, default=5, help="steps under the profiler (anatomy replays the median)")
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--seq", type=int, default=32)
    p.add_argument("--batch", type=int, default=8)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(args, port), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
