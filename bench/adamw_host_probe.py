#!/usr/bin/env python3
"""Host time of an unfused AdamW step, as Composer's DecoupledAdamW runs it.

The loop body is the one in composer/optim/decoupled_weight_decay.py (a
for-loop over the parameters: the step counter read with .item(), then
mul_, mul_/add_, mul_/addcmul_, sqrt, division, add_, addcdiv_), run on tiny
CPU tensors so that the time is the framework's dispatch per operation, not
the arithmetic. It sizes the host side of training.optimizer_impl: for-loop
(docs/research/mpt-fsdp-issue19.md); on a GPU each operation also pays its
kernel launch.

    /usr/bin/python3 bench/adamw_host_probe.py [tensors]

Debian's python3-torch (1.13); one thread.
"""
import math
import sys
import time

import torch


def main() -> None:
    torch.set_num_threads(1)
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 242  # MPT-13B's parameter tensors
    params = [torch.zeros(16) for _ in range(n)]
    grads = [torch.ones(16) for _ in range(n)]
    m = [torch.zeros(16) for _ in range(n)]
    v = [torch.zeros(16) for _ in range(n)]
    steps = [torch.zeros(()) for _ in range(n)]

    def step() -> None:
        for s in steps:
            s += 1
        for i, p in enumerate(params):
            k = steps[i].item()
            p.mul_(1 - 1e-4 * 0.1)
            bc1, bc2 = 1 - 0.9**k, 1 - 0.95**k
            m[i].mul_(0.9).add_(grads[i], alpha=0.1)
            v[i].mul_(0.95).addcmul_(grads[i], grads[i], value=0.05)
            denom = (v[i].sqrt() / math.sqrt(bc2)).add_(1e-8)
            p.addcdiv_(m[i], denom, value=-1e-4 / bc1)

    for _ in range(20):
        step()
    repeats = 200
    start = time.perf_counter()
    for _ in range(repeats):
        step()
    dt = (time.perf_counter() - start) / repeats
    ops = 11  # the counter's += and .item(), and the nine kernels of the update
    print(f"torch {torch.__version__}: {dt * 1e3:.3f} ms a step for {n} tensors, "
          f"{dt / n * 1e6:.1f} us a tensor, {dt / n / ops * 1e6:.2f} us an operation")


if __name__ == "__main__":
    main()
